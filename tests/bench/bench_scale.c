/* SPDX-License-Identifier: MIT */
/* bench_scale.c: how every command grows with the map. Generated maps
 * (tests/support/genmap.h) of 100x100, 300x300 and 1000x1000 squares:
 * start squares in the top-left and bottom-right corners, a serpentine
 * path, many big cities, many islands. For each, the CPU time (children's
 * user+system time, so other work on a shared machine counts little; each
 * command run directly, no shell) of check, compile, export (json, bin,
 * tmx, xml), render, render --scale 1 then import, play (10 games, one
 * job), beside `xmllint --noout --stream --schema schemas/map.xsd` on the
 * same file; in-process, loading the pack against loading the descriptor.
 * The ratios against xmllint come from rounds of xmllint, check and compile
 * run one after the other (RATIO_ROUNDS at the largest size): each round's
 * ratios, whose commands ran under the same load, then their median. Prints
 * the growth exponent between sizes (1 is linear, 2 quadratic), each ratio
 * beside its figure and reference, and at the end the goals of issue 16 at
 * 1000x1000 (check within 2x xmllint, compile within 3x, pack load no
 * slower than the descriptor), met or not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"
#include "carcamap/carcamap.h"
#include "genmap.h"

#define RUNS 3
/* rounds of xmllint, check and compile for the ratios: at the largest size
 * (xmllint takes 20-50 ms there, and a median of 3 moved the ratios by a
 * fifth between runs) and below it */
#define RATIO_ROUNDS 9
#define RATIO_ROUNDS_SMALL 5
#define MAX_ROUNDS 9
#define N_SIZES 3
static const int sizes[N_SIZES] = { 100, 300, 1000 };

static const char *bin = "build/carcamap";
static char dir[] = "/tmp/cm-bench-scale-XXXXXX";

static double children_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec * 1e-6;
}


/* CPU seconds of one run of cmd, a command line of words split at spaces
 * (the table's paths hold none), run directly: no shell's time counted;
 * the redirections it ends with (">/dev/null", "2>&1", "2>/dev/null")
 * are what the child gets, stdout and stderr to /dev/null. */
static double run_once(const char *cmd)
{
	char buf[4096];
	char *argv[64];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", cmd);
	for (char *w = strtok(buf, " "); w && argc < 63; w = strtok(NULL, " "))
		if (strcmp(w, ">/dev/null") != 0 && strcmp(w, "2>&1") != 0 && strcmp(w, "2>/dev/null") != 0)
			argv[argc++] = w;
	argv[argc] = NULL;
	if (argc == 0)
		exit(1);
	double t0 = children_cpu();
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
		fprintf(stderr, "bench_scale: failed (%d): %s\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1, cmd);
		exit(1);
	}
	return children_cpu() - t0;
}

static void format_step(char *cmd, size_t size, const char *fmt, const char *map)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(cmd, size, fmt, bin, map, dir); /* the table's own formats */
#pragma GCC diagnostic pop
}

static double run(const char *fmt, const char *map)
{
	char cmd[4096];
	double t[RUNS];
	format_step(cmd, sizeof cmd, fmt, map);
	for (int i = 0; i < RUNS; i++)
		t[i] = run_once(cmd);
	return bench_median(t, RUNS);
}

/* In-process: CPU seconds to load path into a workspace (tile sets from
 * maps/tilesets), median of RUNS. */
static double load(const char *path)
{
	double t[RUNS];
	for (int i = 0; i < RUNS; i++) {
		cm_diags *d = NULL;
		cm_workspace *w = NULL;
		if (cm_diags_new(&d) || cm_workspace_new(&w) || cm_workspace_add_tileset_dir(w, "maps/tilesets"))
			exit(1);
		double t0 = bench_cpu_s();
		int rc = cm_workspace_load(w, path, d);
		t[i] = bench_cpu_s() - t0;
		if (rc) {
			cm_diags_write_text(d, stderr);
			exit(1);
		}
		cm_workspace_free(w);
		cm_diags_free(d);
	}
	return bench_median(t, RUNS);
}

typedef struct {
	const char *name;
	const char *cmd; /* %1$s the command, %2$s the map, %3$s the scratch directory */
} step;

static const step steps[] = {
	{ "xmllint", "xmllint --noout --stream --schema schemas/map.xsd %2$s 2>/dev/null" },
	{ "check", "%1$s check -T maps/tilesets %2$s >/dev/null 2>&1" },
	{ "compile", "%1$s compile -T maps/tilesets %2$s -o %3$s/m.pack >/dev/null 2>&1" },
	{ "export json", "%1$s export --format json -T maps/tilesets %2$s -o %3$s/m.json >/dev/null 2>&1" },
	{ "export bin", "%1$s export --format bin -T maps/tilesets %2$s -o %3$s/m.bin >/dev/null 2>&1" },
	{ "export tmx", "%1$s export --format tmx -T maps/tilesets %2$s -o %3$s/m.tmx >/dev/null 2>&1" },
	{ "export xml", "%1$s export --format xml -T maps/tilesets %2$s -o %3$s/m.xml >/dev/null 2>&1" },
	{ "render", "%1$s render -T maps/tilesets --scale 2 %2$s -o %3$s/m.png >/dev/null 2>&1" },
	{ "import", "%1$s import %3$s/s1.png -o %3$s/i.xml >/dev/null 2>&1" },
	{ "play 10", "%1$s play -T maps/tilesets --games 10 --jobs 1 %2$s >/dev/null 2>&1" },
};
#define N_STEPS (sizeof steps / sizeof steps[0])
/* steps 0, 1, 2: xmllint, check, compile */

/* Rounds of xmllint, check and compile on map, one after the other: the
 * median time of each into t[0..2], the median of the rounds' ratios
 * check/xmllint and compile/xmllint into ratio[0..1]. */
static void ratio_rounds(const char *map, int rounds, double *t, double *ratio)
{
	char cmd[3][4096];
	double v[3][MAX_ROUNDS], q[2][MAX_ROUNDS];
	for (int s = 0; s < 3; s++)
		format_step(cmd[s], sizeof cmd[s], steps[s].cmd, map);
	for (int i = 0; i < rounds; i++) {
		for (int s = 0; s < 3; s++)
			v[s][i] = run_once(cmd[s]);
		q[0][i] = v[1][i] / v[0][i];
		q[1][i] = v[2][i] / v[0][i];
	}
	for (int s = 0; s < 3; s++)
		t[s] = bench_median(v[s], rounds);
	ratio[0] = bench_median(q[0], rounds);
	ratio[1] = bench_median(q[1], rounds);
}

/* Goals against the references (issue 16), at the largest size. */
#define GOAL_CHECK 2.0   /* check / xmllint */
#define GOAL_COMPILE 3.0 /* compile / xmllint */
#define GOAL_PACK 1.0    /* load pack / load descriptor */

static const char *verdict(double ratio, double goal)
{
	return ratio <= goal ? "met" : "NOT MET";
}

int main(int argc, char **argv)
{
	if (argc > 1)
		bin = argv[1];
	if (!mkdtemp(dir))
		return 1;
	static const char *const kinds[] = { "corner %d tl", "corner %d br", "serpentine %d", "bigcities %d %d",
		                             "islands %d %d" };
#define N_KINDS (sizeof kinds / sizeof kinds[0])
	static double t[N_KINDS][N_SIZES][N_STEPS + 2];
	static double ratios[N_KINDS][N_SIZES][2]; /* check / xmllint, compile / xmllint */
	static char specs[N_KINDS][64];
	printf("bench_scale: CPU seconds (user+system of each command, run without a shell), median of %d runs; "
	       "xmllint, check and compile: median of %d rounds (%d at %dx%d), each round running the three one "
	       "after the other, and their ratios the median of the rounds' ratios; exponent: growth between sizes "
	       "(1 linear, 2 quadratic); ratios against the reference on the same file: xmllint --noout --stream "
	       "--schema schemas/map.xsd for check (goal <= %.0fx) and compile (goal <= %.0fx), loading the "
	       "descriptor for loading the pack (goal <= %.0fx, in-process, median of %d)\n",
	       RUNS, RATIO_ROUNDS_SMALL, RATIO_ROUNDS, sizes[N_SIZES - 1], sizes[N_SIZES - 1], GOAL_CHECK,
	       GOAL_COMPILE, GOAL_PACK, RUNS);
	for (size_t k = 0; k < N_KINDS; k++) {
		for (int z = 0; z < N_SIZES; z++) {
			int n = sizes[z];
			char spec[64], map[512], cmd[2048];
			/* big cities and islands: 1 per 400 squares (2500 on 1000x1000) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(spec, sizeof spec, kinds[k], n, n * n / 400);
			if (z == N_SIZES - 1)
				snprintf(specs[k], sizeof specs[k], kinds[k], n, n * n / 400);
#pragma GCC diagnostic pop
			snprintf(map, sizeof map, "%s/map.xml", dir);
			FILE *f = fopen(map, "w");
			if (!f || cm_genmap(f, spec) || fclose(f))
				return 1;
			snprintf(cmd, sizeof cmd, "%s render -T maps/tilesets --scale 1 %s -o %s/s1.png >/dev/null 2>&1", bin,
			         map, dir);
			run_once(cmd);
			double *r = t[k][z];
			ratio_rounds(map, z == N_SIZES - 1 ? RATIO_ROUNDS : RATIO_ROUNDS_SMALL, r, ratios[k][z]);
			for (size_t s = 3; s < N_STEPS; s++)
				r[s] = run(steps[s].cmd, map);
			snprintf(cmd, sizeof cmd, "%s/m.pack", dir);
			r[N_STEPS] = load(map);
			r[N_STEPS + 1] = load(cmd);
			printf("\n%-24s", spec);
			for (size_t s = 0; s < N_STEPS; s++)
				printf(" %s %.3f", steps[s].name, r[s]);
			printf("\n%-24s check %.3f / xmllint %.3f = %.2fx, compile %.3f / xmllint %.3f = %.2fx, "
			       "load pack %.3f / load xml %.3f = %.2fx",
			       "", r[1], r[0], ratios[k][z][0], r[2], r[0], ratios[k][z][1], r[N_STEPS + 1], r[N_STEPS],
			       r[N_STEPS + 1] / r[N_STEPS]);
		}
		for (int z = 1; z < N_SIZES; z++) {
			printf("\n  exponent %d->%d:", sizes[z - 1], sizes[z]);
			double g = log((double)sizes[z] * sizes[z] / ((double)sizes[z - 1] * sizes[z - 1]));
			for (size_t s = 0; s < N_STEPS + 2; s++) {
				double a = t[k][z - 1][s], b = t[k][z][s];
				const char *name = s < N_STEPS ? steps[s].name : s == N_STEPS ? "load xml" : "load pack";
				if (a > 0.005)
					printf(" %s %.2f", name, log(b / a) / g);
				else
					printf(" %s -", name);
			}
		}
		printf("\n");
	}
	/* the goals, side by side: figure, reference, ratio, goal */
	int met = 0, all = 0;
	printf("\ngoals at %dx%d (CPU s, medians of %d rounds; figure / reference, ratio = median of the rounds' "
	       "ratios; goal):\n",
	       sizes[N_SIZES - 1], sizes[N_SIZES - 1], RATIO_ROUNDS);
	for (size_t k = 0; k < N_KINDS; k++) {
		const double *r = t[k][N_SIZES - 1];
		double rc = ratios[k][N_SIZES - 1][0], rp = ratios[k][N_SIZES - 1][1], rl = r[N_STEPS + 1] / r[N_STEPS];
		printf("  %-20s check %.3f / xmllint %.3f = %6.2fx (goal <= %.0f: %s) | compile %.3f / xmllint %.3f = "
		       "%6.2fx (goal <= %.0f: %s) | load pack %.3f / load xml %.3f = %5.2fx (goal <= %.0f: %s)\n",
		       specs[k], r[1], r[0], rc, GOAL_CHECK, verdict(rc, GOAL_CHECK), r[2], r[0], rp, GOAL_COMPILE,
		       verdict(rp, GOAL_COMPILE), r[N_STEPS + 1], r[N_STEPS], rl, GOAL_PACK, verdict(rl, GOAL_PACK));
		met += (rc <= GOAL_CHECK) + (rp <= GOAL_COMPILE) + (rl <= GOAL_PACK);
		all += 3;
	}
	printf("  goals met: %d of %d\n", met, all);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : 1;
}
