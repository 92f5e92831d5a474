/* SPDX-License-Identifier: MIT */
/* bench_deck.c: check of a bundled map reads only the tile sets its deck
 * names (issue 33's performance list: 38% of check went to reading all
 * the bundled sets when Germany's deck names three). Each figure beside
 * its reference measured in the same run: rounds that run the command and
 * its reference one after the other (CPU time of each child, run
 * directly), the median of each and of the rounds' ratios.
 *   - check maps/germany/germany.xml beside `xmllint --noout --schema
 *     schemas/map.xsd` on the same file (5.7x in instructions when every
 *     set was read, 4.8x since);
 *   - the same check with a search directory of the three sets its deck
 *     names and 40 others (copies of base under other ids, in names that
 *     sort first) beside the directory of the three alone: the others are
 *     never read. Goal: within 1.2x. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

#define ROUNDS 5
#define EXTRA 40
#define GOAL_EXTRA 1.2

static const char *bin = "build/carcamap";
static char dir[] = "/tmp/cm-bench-deck-XXXXXX";

static double rounds(char *const *a, char *const *b, double *ta, double *tb)
{
	return bench_rounds("bench_deck", ROUNDS, a, b, ta, tb);
}

/* maps/tilesets/base.xml with id and name replaced, into path */
static void copy_set(const char *from, const char *path, const char *id)
{
	FILE *in = fopen(from, "rb"), *out = fopen(path, "wb");
	if (!in || !out)
		exit(1);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, in);
	buf[n] = 0;
	fclose(in);
	char *at = id ? strstr(buf, "id=\"base\"") : NULL;
	if (id && !at)
		exit(1);
	if (at)
		fprintf(out, "%.*sid=\"%s\"%s", (int)(at - buf), buf, id, at + strlen("id=\"base\""));
	else
		fputs(buf, out);
	if (fclose(out))
		exit(1);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		bin = argv[1];
	if (!mkdtemp(dir))
		return 1;
	static const char *const deck[] = { "base", "inns-cathedrals", "traders-builders" };
	char three[256], many[256], path[600], from[600];
	snprintf(three, sizeof three, "%.200s/three", dir);
	snprintf(many, sizeof many, "%.200s/many", dir);
	snprintf(path, sizeof path, "mkdir -p %s %s", three, many);
	if (system(path))
		return 1;
	for (int i = 0; i < 3; i++) {
		snprintf(from, sizeof from, "maps/tilesets/%s.xml", deck[i]);
		snprintf(path, sizeof path, "%s/%s.xml", three, deck[i]);
		copy_set(from, path, NULL);
		snprintf(path, sizeof path, "%s/%s.xml", many, deck[i]);
		copy_set(from, path, NULL);
	}
	for (int i = 0; i < EXTRA; i++) {
		char id[32];
		snprintf(id, sizeof id, "aa-extra-%02d", i);
		snprintf(path, sizeof path, "%s/%s.xml", many, id);
		copy_set("maps/tilesets/base.xml", path, id);
	}
	/* a copy of Germany's board with its legend, beside no tilesets/
	 * directory, so that only -T is searched */
	snprintf(path, sizeof path, "cp -r maps/germany maps/legend.xml %s/", dir);
	if (system(path))
		return 1;
	char map[512];
	snprintf(map, sizeof map, "%s/germany/germany.xml", dir);

	printf("bench_deck: CPU seconds of each command run directly; %d rounds of the command and its reference one "
	       "after the other, the median of each and of the rounds' ratios\n",
	       ROUNDS);
	char *check[] = { (char *)bin, "check", "maps/germany/germany.xml", NULL };
	char *xmllint[] = { "xmllint", "--noout", "--schema", "schemas/map.xsd", "maps/germany/germany.xml", NULL };
	double tc, tx, rc = rounds(check, xmllint, &tc, &tx);
	printf("  check maps/germany/germany.xml: %.3f / xmllint --schema %.3f = %.2fx\n", tc, tx, rc);
	char *check_many[] = { (char *)bin, "check", "-T", many, map, NULL };
	char *check_three[] = { (char *)bin, "check", "-T", three, map, NULL };
	double tm, t3, rm = rounds(check_many, check_three, &tm, &t3);
	printf("  check with %d other sets in the search directory: %.3f / with the deck's 3 alone %.3f = %.2fx\n",
	       EXTRA, tm, t3, rm);
	printf("\ngoals (figure / reference = ratio; goal):\n");
	printf("  %d sets the deck does not name: %.3f / %.3f = %.2fx (goal <= %.1fx: %s)\n", EXTRA, tm, t3, rm,
	       GOAL_EXTRA, rm <= GOAL_EXTRA ? "met" : "NOT MET");
	printf("  goals met: %d of 1\n", rm <= GOAL_EXTRA);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	return system(path) == 0 ? 0 : 1;
}
