/* SPDX-License-Identifier: MIT */
/* bench_play.c: complete random games per second (draw, legal
 * placements, followers, scoring, final scoring) on a ~120-square board
 * with base + Inns & Cathedrals + Traders & Builders (114 tiles), 2
 * players, one core. Target 5,000 games/s; aim 10,000. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "carcamap/carcamap.h"
#include "scenario.h"

#define TARGET 5000.0

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The figures a run of games reports, to compare --jobs 1 and 2. */
static unsigned long long fingerprint(const cm_play_stats *st)
{
	unsigned long long h = 1469598103934665603ull;
	long long v[] = { st->games, st->tiles_placed, st->squares_filled, st->stranded, st->final_points,
		          st->scores[0], st->scores[1], st->wins[0], st->wins[1], st->ties };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		h = (h ^ (unsigned long long)v[i]) * 1099511628211ull;
	for (int i = 0; i < st->cols * st->rows; i++)
		h = (h ^ (unsigned long long)st->fill[i]) * 1099511628211ull;
	return h;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* What `carcamap play` does per game (cm_play_games: reset, random game,
 * statistics) on the Germany map, one job: complete games per CPU second,
 * the median of 5 runs and the best (goal 40,000); then 2 jobs against 1
 * in wall time (the same figures). */
static int germany(void)
{
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cm_deck *deck = NULL;
	if (cm_diags_new(&d) || cm_workspace_new(&w) || cm_workspace_add_tileset_dir(w, "maps/tilesets") ||
	    cm_workspace_load(w, "maps/germany/germany.xml", d) || cm_workspace_resolve(w, d) ||
	    cm_play_deck(w, cm_workspace_map(w, 0), d, &deck)) {
		cm_diags_write_text(d, stderr);
		return 1;
	}
	const cm_map *m = cm_workspace_map(w, 0);
	const int games = 40000;
	double cpu[5], wall[3] = { 0, 0, 0 };
	unsigned long long figures[3] = { 0, 0, 0 };
	for (int jobs = 1; jobs <= 2; jobs++) {
		for (int run = 0; run < (jobs == 1 ? 5 : 3); run++) {
			cm_play_stats *st = NULL;
			double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
			if (cm_play_games_jobs(m, deck, NULL, 2, 1, games, jobs, NULL, NULL, d, &st))
				return 1;
			double c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, wt = clock_s(CLOCK_MONOTONIC) - w0;
			if (jobs == 1)
				cpu[run] = c;
			if (run == 0 || wt < wall[jobs])
				wall[jobs] = wt;
			figures[jobs] = fingerprint(st);
			cm_play_stats_free(st);
		}
	}
	qsort(cpu, 5, sizeof cpu[0], cmp_double);
	printf("bench_play germany: %d games with statistics, one job: %.0f games per CPU second, median of 5 "
	       "(best %.0f; goal 40000: ratio %.2f)\n",
	       games, games / cpu[2], games / cpu[0], games / cpu[2] / 40000.0);
	printf("bench_play germany: --jobs 2 %.2f s wall against --jobs 1 %.2f s (speed-up %.2f on a shared "
	       "machine); same figures: %s\n",
	       wall[2], wall[1], wall[1] / wall[2], figures[1] == figures[2] ? "yes" : "NO");
	cm_deck_free(deck);
	cm_workspace_free(w);
	cm_diags_free(d);
	return figures[1] == figures[2] ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "tests/bench/map120.scn";
	cm_diags *d = NULL;
	cm_scenario *s = NULL;
	cm_deck *deck = NULL;
	cm_board *b = NULL;
	int rc = cm_diags_new(&d);
	if (rc == 0)
		rc = cm_scenario_read_file(path, d, &s);
	if (rc == 0)
		rc = cm_deck_build(s->map, (const cm_tileset *const *)s->sets, s->n_sets, d, &deck);
	if (rc == 0)
		rc = cm_board_new(s->map, deck, NULL, 2, 1, 0, d, &b);
	if (rc < 0) {
		cm_diags_write_text(d, stderr);
		fprintf(stderr, "bench_play: setup failed: %s\n", cm_strerror(rc));
		return 1;
	}
	int playable = cm_board_stats(b)->squares_playable;
	cm_rng rng;
	cm_rng_seed(&rng, 42);
	long games = 0, placed = 0, stranded = 0, points = 0;
	/* the figure is per CPU second of this one thread, so other work on a
	 * shared machine does not lower it; wall time is shown beside it */
	double t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), t1 = t0, w0 = clock_s(CLOCK_MONOTONIC);
	/* at least 2 CPU seconds and 2,000 games */
	while (t1 - t0 < 2.0 || games < 2000) {
		for (int i = 0; i < 500; i++, games++) {
			if (cm_board_reset(b, (uint64_t)games + 1, NULL) < 0 || cm_board_play_random(b, &rng) < 0) {
				fprintf(stderr, "bench_play: game %ld failed\n", games);
				return 1;
			}
			const cm_game_stats *st = cm_board_stats(b);
			placed += st->tiles_placed + st->setup_tiles;
			stranded += st->stranded;
			points += st->scores[0] + st->scores[1];
		}
		t1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	}
	double wall = clock_s(CLOCK_MONOTONIC) - w0;
	double rate = (double)games / (t1 - t0);
	printf("bench_play: %d playable squares, %d tiles, 2 players\n", playable, cm_deck_total(deck));
	printf("bench_play: %ld games in %.2f s CPU (%.2f s wall): %.0f games/s on one core "
	       "(target %.0f: ratio %.2f)\n", games, t1 - t0, wall, rate, TARGET, rate / TARGET);
	printf("bench_play: per game %.1f tiles placed, %.2f stranded, %.1f points\n",
	       (double)placed / (double)games, (double)stranded / (double)games,
	       (double)points / (double)games);
	cm_board_free(b);
	cm_deck_free(deck);
	cm_scenario_free(s);
	cm_diags_free(d);
	return germany();
}
