/* SPDX-License-Identifier: MIT */
/* bench_play.c: complete random games per second (draw, legal
 * placements, followers, scoring, final scoring) on a ~120-square board
 * with base + Inns & Cathedrals + Traders & Builders (114 tiles), 2
 * players, one core. Target 5,000 games/s; aim 10,000. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "carcamap/board.h"
#include "scenario.h"

#define TARGET 5000.0

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
	return 0;
}
