/* SPDX-License-Identifier: MIT */
/* bench_diff.c: `carcamap diff` grows linearly with the map (issue 29:
 * a 1000x1000 pair under a second). Generated maps (tests/support/
 * genmap.h) of 100x100, 300x300 and 1000x1000 squares, all land against
 * a serpentine path (about half the squares change kind) and all land
 * against itself (nothing changes): the CPU time of cm_map_diff, the
 * median of 3 runs, beside the time to read the two descriptors (the
 * reference: what any command on the pair costs first), their ratio, and
 * the growth exponent between sizes (1 is linear, 2 quadratic). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "bench_util.h"
#include "carcamap/carcamap.h"
#include "genmap.h"

#define RUNS 3
#define N_SIZES 3
static const int sizes[N_SIZES] = { 100, 300, 1000 };

static int write_map(const char *path, const char *spec)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = cm_genmap(f, spec);
	return fclose(f) || rc ? -1 : 0;
}

static cm_map *load(const char *path)
{
	cm_diags *d = NULL;
	cm_map *m = NULL;
	if (cm_diags_new(&d) || cm_map_load(path, NULL, d, &m)) {
		cm_diags_write_text(d, stderr);
		m = NULL;
	}
	cm_diags_free(d);
	return m;
}

int main(void)
{
	char dir[] = "/tmp/cm-bench-diff-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char pa[128], pb[128];
	snprintf(pa, sizeof pa, "%s/a.xml", dir);
	snprintf(pb, sizeof pb, "%s/b.xml", dir);
	printf("diff of two maps, CPU seconds (median of %d) beside reading both descriptors\n", RUNS);
	printf("%-10s %-12s %10s %10s %8s %10s %9s\n", "size", "pair", "diff s", "read s", "ratio", "items",
	       "exponent");
	double prev[2] = { 0, 0 }, at1000 = 0;
	int fail = 0;
	for (int i = 0; i < N_SIZES && !fail; i++) {
		int n = sizes[i];
		char sa[64], sb[64];
		snprintf(sa, sizeof sa, "corner %d tl", n);
		snprintf(sb, sizeof sb, "serpentine %d", n);
		if (write_map(pa, sa) || write_map(pb, sb)) {
			fail = 1;
			break;
		}
		double t0 = bench_cpu_s();
		cm_map *a = load(pa), *b = load(pb);
		double read = bench_cpu_s() - t0;
		if (!a || !b) {
			cm_map_free(a);
			cm_map_free(b);
			fail = 1;
			break;
		}
		for (int pair = 0; pair < 2; pair++) {
			const cm_map *other = pair == 0 ? b : a;
			double t[RUNS];
			size_t items = 0;
			for (int r = 0; r < RUNS; r++) {
				cm_diff *d = NULL;
				double s = bench_cpu_s();
				if (cm_map_diff(a, other, &d))
					fail = 1;
				t[r] = bench_cpu_s() - s;
				items = cm_diff_count(d);
				cm_diff_free(d);
			}
			double med = bench_median(t, RUNS);
			char grow[16] = "";
			if (i > 0 && prev[pair] > 0 && med > 0)
				snprintf(grow, sizeof grow, "%.2f",
				         log(med / prev[pair]) / log((double)sizes[i] * sizes[i] / ((double)sizes[i - 1] * sizes[i - 1])));
			printf("%4dx%-5d %-12s %10.4f %10.4f %8.3f %10zu %9s\n", n, n, pair ? "same" : "land/path", med, read,
			       med / read, items, grow);
			prev[pair] = med;
			if (n == 1000 && pair == 0)
				at1000 = med;
		}
		cm_map_free(a);
		cm_map_free(b);
	}
	unlink(pa);
	unlink(pb);
	rmdir(dir);
	if (fail) {
		fprintf(stderr, "bench_diff: a map could not be made or compared\n");
		return 1;
	}
	printf("goal (issue 29): a 1000x1000 pair under 1 s: %.3f s, %s\n", at1000, at1000 < 1.0 ? "met" : "NOT met");
	return 0;
}
