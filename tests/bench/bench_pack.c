/* SPDX-License-Identifier: MIT */
/* bench_pack.c: the pack rows of issue 33's performance list, each figure
 * beside its reference measured in the same run: rounds that run the
 * command and its reference one after the other (CPU time of each child,
 * run directly, no shell), the median of each and the median of the
 * rounds' ratios.
 *   - `list` of a pack of N x N squares with N*N/400 islands (N = 300 and
 *     1000) beside `xmllint --noout --stream --schema schemas/map.xsd` on
 *     the map's descriptor (bench_scale's reference), and the growth
 *     exponent between the sizes (1 is linear): 2.6 s, 68x xmllint and an
 *     exponent of 1.9 when each island's squares were counted over the
 *     whole grid.
 *   - `render PACK --map france` from the pack of every bundled map (22
 *     maps) beside the same render from a pack of France alone (its two
 *     printings): the one map read and verified, not all 22 (2.9x before,
 *     44M of the 156M instructions of such a render in `make maps`).
 * Goals: list's exponent within 1.2, list within 5x xmllint, the render of
 * one map of 22 within 1.5x the render from its own pack. */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "genmap.h"

#define ROUNDS 5
#define GOAL_EXPONENT 1.2
#define GOAL_LIST 5.0
#define GOAL_RENDER 1.5

static const char *bin = "build/carcamap";
static char dir[] = "/tmp/cm-bench-pack-XXXXXX";

static double run(char *const *argv)
{
	return bench_run_or_die("bench_pack", argv);
}

static double rounds(char *const *a, char *const *b, double *ta, double *tb)
{
	return bench_rounds("bench_pack", ROUNDS, a, b, ta, tb);
}

static const char *verdict(double v, double goal)
{
	return v <= goal ? "met" : "NOT MET";
}

/* The islands map of n x n into dir/islandsN.xml and its pack. */
static void islands_pack(int n, char *xml, char *pack, size_t size)
{
	char spec[64];
	snprintf(spec, sizeof spec, "islands %d %d", n, n * n / 400);
	snprintf(xml, size, "%s/islands%d.xml", dir, n);
	snprintf(pack, size, "%s/islands%d.pack", dir, n);
	FILE *f = fopen(xml, "w");
	if (!f || cm_genmap(f, spec) || fclose(f))
		exit(1);
	char *argv[] = { (char *)bin, "compile", "-T", "maps/tilesets", xml, "-o", pack, NULL };
	run(argv);
}

/* The pack of every bundled map and tile set at path (as make maps and the
 * identity snapshot make it). */
static void bundled_pack(const char *path)
{
	glob_t g;
	if (glob("maps/tilesets/*.xml", 0, NULL, &g))
		exit(1);
	size_t sets = g.gl_pathc;
	if (glob("maps/*/*.xml", GLOB_APPEND, NULL, &g))
		exit(1);
	char **argv = calloc(g.gl_pathc + 6, sizeof *argv);
	size_t n = 0;
	argv[n++] = (char *)bin;
	argv[n++] = "compile";
	argv[n++] = "-o";
	argv[n++] = (char *)path;
	for (size_t i = 0; i < g.gl_pathc; i++)
		if (i < sets || strncmp(g.gl_pathv[i], "maps/tilesets/", 14) != 0)
			argv[n++] = g.gl_pathv[i];
	run(argv);
	free(argv);
	globfree(&g);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		bin = argv[1];
	if (!mkdtemp(dir))
		return 1;
	static const int sizes[2] = { 300, 1000 };
	double tl[2], tx[2], ratio[2];
	printf("bench_pack: CPU seconds of each command run directly; %d rounds of the command and its reference one "
	       "after the other, the median of each and of the rounds' ratios\n",
	       ROUNDS);
	for (int z = 0; z < 2; z++) {
		char xml[512], pack[512];
		islands_pack(sizes[z], xml, pack, sizeof xml);
		char *list[] = { (char *)bin, "list", pack, NULL };
		char *xmllint[] = { "xmllint", "--noout", "--stream", "--schema", "schemas/map.xsd", xml, NULL };
		ratio[z] = rounds(list, xmllint, &tl[z], &tx[z]);
		printf("  list of a %dx%d pack, %d islands: %.3f / xmllint %.3f = %.2fx\n", sizes[z], sizes[z],
		       sizes[z] * sizes[z] / 400, tl[z], tx[z], ratio[z]);
	}
	double exponent = log(tl[1] / tl[0]) / log((double)sizes[1] * sizes[1] / ((double)sizes[0] * sizes[0]));
	printf("  list's growth exponent 300->1000: %.2f (xmllint's %.2f)\n", exponent,
	       log(tx[1] / tx[0]) / log((double)sizes[1] * sizes[1] / ((double)sizes[0] * sizes[0])));

	char all[512], one[512], out_all[512], out_one[512];
	snprintf(all, sizeof all, "%s/all.pack", dir);
	snprintf(one, sizeof one, "%s/france.pack", dir);
	snprintf(out_all, sizeof out_all, "%s/from-all.svg", dir);
	snprintf(out_one, sizeof out_one, "%s/from-one.svg", dir);
	bundled_pack(all);
	char *compile_one[] = { (char *)bin, "compile", "-T", "maps/tilesets", "maps/france/france.xml", "-o", one, NULL };
	run(compile_one);
	char *render_all[] = { (char *)bin, "render", all, "--map", "france", "-o", out_all, NULL };
	char *render_one[] = { (char *)bin, "render", one, "--map", "france", "-o", out_one, NULL };
	double ta, to, rr = rounds(render_all, render_one, &ta, &to);
	printf("  render --map france of the 22 bundled maps' pack: %.3f / from France's own pack %.3f = %.2fx\n", ta,
	       to, rr);

	int met = (exponent <= GOAL_EXPONENT) + (ratio[1] <= GOAL_LIST) + (rr <= GOAL_RENDER);
	printf("\ngoals (figure / reference = ratio; goal):\n");
	printf("  list 1000x1000, 2500 islands: exponent %.2f (goal <= %.1f: %s) | %.3f / xmllint %.3f = %.2fx (goal <= "
	       "%.0fx: %s)\n",
	       exponent, GOAL_EXPONENT, verdict(exponent, GOAL_EXPONENT), tl[1], tx[1], ratio[1], GOAL_LIST,
	       verdict(ratio[1], GOAL_LIST));
	printf("  render one map of 22: %.3f / one map's pack %.3f = %.2fx (goal <= %.1fx: %s)\n", ta, to, rr,
	       GOAL_RENDER, verdict(rr, GOAL_RENDER));
	printf("  goals met: %d of 3\n", met);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : 1;
}
