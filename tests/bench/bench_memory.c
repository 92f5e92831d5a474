/* SPDX-License-Identifier: MIT */
/* bench_memory.c: what a square costs and what checking the largest map
 * holds resident: sizeof(cm_square) against 64 bytes, and the peak
 * resident set of `carcamap check` on a generated 1024x1024 map (the
 * largest grid, CM_GRID_MAX) against 150 MB, median of RUNS runs. */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "carcamap/carcamap.h"
#include "genmap.h"

#define RUNS 3
#define RSS_GOAL_MB 150.0

static const char *bin = "build/carcamap";

/* Peak resident kilobytes of one run of bin check on map, or -1. */
static long check_rss(const char *map)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(bin, bin, "check", "-T", "maps/tilesets", map, (char *)NULL);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return ru.ru_maxrss;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		bin = argv[1];
	printf("bench_memory: a square is %zu bytes in the model (goal at most %d); an edge print %zu\n",
	       sizeof(cm_square), CM_SQUARE_MAX_BYTES, sizeof(cm_edge_print));
	char dir[] = "/tmp/cm-bench-memory-XXXXXX", map[64];
	if (!mkdtemp(dir))
		return 1;
	snprintf(map, sizeof map, "%s/map.xml", dir);
	FILE *f = fopen(map, "w");
	int n = CM_GRID_MAX;
	char spec[32];
	snprintf(spec, sizeof spec, "corner %d tl", n);
	if (!f || cm_genmap(f, spec) || fclose(f)) {
		fprintf(stderr, "bench_memory: cannot write %s\n", map);
		return 1;
	}
	long kb[RUNS];
	for (int i = 0; i < RUNS; i++)
		if ((kb[i] = check_rss(map)) < 0) {
			fprintf(stderr, "bench_memory: %s check %s failed\n", bin, map);
			return 1;
		}
	qsort(kb, RUNS, sizeof *kb, cmp_long);
	double mb = (double)kb[RUNS / 2] / 1024.0;
	printf("bench_memory: check of a %dx%d map: %.1f MB resident at most, %.0f resident bytes per square "
	       "(goal %.0f MB: ratio %.2f)\n",
	       n, n, mb, (double)kb[RUNS / 2] * 1024.0 / ((double)n * n), RSS_GOAL_MB, mb / RSS_GOAL_MB);
	remove(map);
	rmdir(dir);
	return 0;
}
