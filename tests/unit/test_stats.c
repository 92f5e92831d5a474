/* SPDX-License-Identifier: MIT */
/* test_stats.c: statistics over random games (carcamap/stats.h) on the
 * 120-square benchmark board: the same seed gives the same figures and
 * another seed others; the sums agree with each other (per-square fill
 * counts with squares filled, tiles with the deck, points with scores);
 * the first game equals cm_play_game with the seed; bad arguments fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "scenario.h"
#include "carcamap/stats.h"
#include "engine/engine.h"
#include "base/cpu_int.h"

typedef struct {
	cm_scenario *scn;
	cm_deck *deck;
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	cm_diags *d = NULL;
	if (!fx || cm_diags_new(&d))
		return -1;
	*state = fx;
	int rc = cm_scenario_read_file("tests/bench/map120.scn", d, &fx->scn);
	if (!rc)
		rc = cm_deck_build(fx->scn->map, (const cm_tileset *const *)fx->scn->sets, fx->scn->n_sets, d,
		                   &fx->deck);
	if (rc)
		cm_diags_write_text(d, stderr);
	cm_diags_free(d);
	return rc;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	cm_deck_free(fx->deck);
	cm_scenario_free(fx->scn);
	free(fx);
	return 0;
}

static cm_play_stats *play(const fixture *fx, int players, uint64_t seed, int games)
{
	cm_play_stats *s = NULL;
	assert_int_equal(cm_play_games(fx->scn->map, fx->deck, NULL, players, seed, games, NULL, NULL, NULL, &s), 0);
	assert_non_null(s);
	return s;
}

static bool same(const cm_play_stats *a, const cm_play_stats *b)
{
	size_t n = (size_t)a->cols * (size_t)a->rows;
	/* the struct holds a pointer: compare it field by field past it */
	return a->games == b->games && a->squares_filled == b->squares_filled &&
	       a->tiles_placed == b->tiles_placed && a->stranded == b->stranded &&
	       memcmp(a->points_kind, b->points_kind, sizeof a->points_kind) == 0 &&
	       memcmp(a->scores, b->scores, sizeof a->scores) == 0 &&
	       memcmp(a->wins, b->wins, sizeof a->wins) == 0 && a->ties == b->ties &&
	       memcmp(a->fill, b->fill, n * sizeof *a->fill) == 0;
}

static void test_stats__same_seed_same_figures(void **state)
{
	fixture *fx = *state;
	cm_play_stats *a = play(fx, 3, 7, 40), *b = play(fx, 3, 7, 40), *c = play(fx, 3, 8, 40);
	assert_true(same(a, b));
	assert_false(same(a, c));
	cm_play_stats_free(a);
	cm_play_stats_free(b);
	cm_play_stats_free(c);
}

static void test_stats__sums_agree(void **state)
{
	fixture *fx = *state;
	cm_play_stats *s = play(fx, 2, 1, 50);
	assert_int_equal(s->games, 50);
	assert_int_equal(s->squares_playable, 120);
	long long fill = 0;
	int playable = 0;
	for (int i = 0; i < s->cols * s->rows; i++) {
		bool can = cm_square_kind_playable(cm_map_at(fx->scn->map, i % s->cols, i / s->cols)->kind);
		if (!can) {
			assert_int_equal(s->fill[i], -1);
			continue;
		}
		playable++;
		assert_in_range(s->fill[i], 0, s->games);
		fill += s->fill[i];
	}
	assert_int_equal(playable, s->squares_playable);
	assert_int_equal(fill, s->squares_filled);
	assert_true(s->filled_min <= s->filled_max && s->filled_max <= s->squares_playable);
	assert_true((long long)s->filled_min * s->games <= s->squares_filled);
	assert_true((long long)s->filled_max * s->games >= s->squares_filled);
	double f = cm_play_stats_fill(s);
	assert_true(f > 0.0 && f <= 1.0);
	/* every tile of every game is placed, set up or stranded */
	assert_int_equal(s->tiles_placed + s->setup_tiles + s->stranded, (long long)s->deck_tiles * s->games);
	assert_int_equal(s->squares_filled, s->tiles_placed + s->setup_tiles);
	assert_in_range(s->stranded_games, 0, s->games);
	long long points = s->points_island + s->points_town, scores = 0;
	for (int k = 0; k < CM_FEAT_KIND_COUNT; k++)
		points += s->points_kind[k];
	for (int p = 0; p < s->players; p++)
		scores += s->scores[p];
	assert_int_equal(points, scores);
	assert_int_equal(s->wins[0] + s->wins[1] + s->ties, s->games);
	cm_play_stats_free(s);
}

/* Game 1 of cm_play_games is cm_play_game with the seed (what `play
 * --replay` and `render --game` rely on). */
static void test_stats__first_game_is_play_game(void **state)
{
	fixture *fx = *state;
	cm_play_stats *s = play(fx, 2, 12345, 1);
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx->scn->map, fx->deck, NULL, 2, 1, 0, NULL, &b), 0);
	assert_int_equal(cm_play_game(b, 12345, NULL), 0);
	assert_int_equal(cm_board_score(b, 0), s->scores[0]);
	assert_int_equal(cm_board_score(b, 1), s->scores[1]);
	assert_int_equal(cm_board_stats(b)->squares_filled, s->squares_filled);
	for (int y = 0; y < s->rows; y++)
		for (int x = 0; x < s->cols; x++)
			assert_int_equal(cm_board_tile_at(b, x, y, NULL, NULL) == 0,
			                 s->fill[y * s->cols + x] == 1);
	cm_board_free(b);
	cm_play_stats_free(s);
}

static int calls;
static void count_progress(void *arg, int done, int games)
{
	assert_ptr_equal(arg, &calls);
	assert_int_equal(done, ++calls);
	assert_int_equal(games, 5);
}

static void test_stats__progress_and_errors(void **state)
{
	fixture *fx = *state;
	cm_play_stats *s = NULL;
	calls = 0;
	assert_int_equal(cm_play_games(fx->scn->map, fx->deck, NULL, 2, 1, 5, count_progress, &calls, NULL, &s), 0);
	assert_int_equal(calls, 5);
	cm_play_stats_free(s);
	s = NULL;
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_play_games(fx->scn->map, fx->deck, NULL, 2, 1, 0, NULL, NULL, d, &s), CM_EINVAL);
	assert_null(s);
	assert_int_equal(cm_diags_errors(d), 1);
	assert_int_equal(cm_play_games(fx->scn->map, fx->deck, NULL, 7, 1, 3, NULL, NULL, d, &s), CM_EINVAL);
	assert_null(s);
	assert_int_equal(cm_diags_errors(d), 2);
	cm_diags_free(d);
	cm_play_stats_free(NULL);
}

/* Every field of two sums, the fill counts included. */
static void assert_same_all(const cm_play_stats *a, const cm_play_stats *b)
{
	assert_true(same(a, b));
	assert_int_equal(a->setup_tiles, b->setup_tiles);
	assert_int_equal(a->filled_min, b->filled_min);
	assert_int_equal(a->filled_max, b->filled_max);
	assert_int_equal(a->stranded_games, b->stranded_games);
	assert_int_equal(a->points_island, b->points_island);
	assert_int_equal(a->points_town, b->points_town);
	assert_int_equal(a->final_points, b->final_points);
	assert_int_equal(a->abbeys_placed, b->abbeys_placed);
	assert_int_equal(a->squares_playable, b->squares_playable);
	assert_int_equal(a->deck_tiles, b->deck_tiles);
}

/* --jobs: the games split by seed over threads give the same sums for
 * every number of threads, more threads than games included. */
static void test_stats__jobs_give_the_same_figures(void **state)
{
	fixture *fx = *state;
	cm_play_stats *one = play(fx, 3, 99, 37);
	static const int jobs[] = { 2, 3, 7, 37, 64 };
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		cm_play_stats *s = NULL;
		assert_int_equal(cm_play_games_jobs(fx->scn->map, fx->deck, NULL, 3, 99, 37, jobs[i], NULL, NULL, NULL, &s),
		                 0);
		assert_same_all(one, s);
		cm_play_stats_free(s);
	}
	cm_play_stats_free(one);
	/* errors of a thread reach the caller's diagnostics */
	cm_diags *d = NULL;
	cm_play_stats *s = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_play_games_jobs(fx->scn->map, fx->deck, NULL, 7, 1, 3, 2, NULL, NULL, d, &s), CM_EINVAL);
	assert_null(s);
	assert_true(cm_diags_errors(d) >= 1);
	cm_diags_free(d);
}

/* Random play's two frontier scans (16 squares at a time with SSSE3, and
 * the portable one) choose the same placements: games with 2 to 6 players
 * played both ways fill the same squares in the same order and end with
 * the same scores and figures. Where the processor has no SSSE3 both runs
 * take the portable scan and the test shows nothing (it says so). */
static void test_stats__both_frontier_scans_play_the_same_games(void **state)
{
	fixture *fx = *state;
	unsigned cpu = cm_cpu_features();
	if (!(cpu & CM_CPU_SSSE3))
		print_message("no SSSE3 here: both runs use the portable scan\n");
	for (int players = 2; players <= 6; players += 2) {
		cm_board *fast = NULL, *port = NULL;
		assert_int_equal(cm_board_new(fx->scn->map, fx->deck, NULL, players, 1, 0, NULL, &fast), 0);
		assert_int_equal(cm_board_copy(fast, &port), 0);
		for (uint64_t g = 0; g < 150; g++) {
			uint64_t seed = 1000 + (uint64_t)players * 1000 + g;
			cm_rng rf, rp;
			cm_rng_seed(&rf, ~seed);
			cm_rng_seed(&rp, ~seed);
			assert_int_equal(cm_board_reset(fast, seed, NULL), 0);
			assert_int_equal(cm_board_reset(port, seed, NULL), 0);
			assert_int_equal(cm__board_play_random_cpu(fast, &rf, cpu), 0);
			assert_int_equal(cm__board_play_random_cpu(port, &rp, 0), 0);
			const int32_t *sf, *sp;
			int nf = cm__board_filled(fast, &sf), np = cm__board_filled(port, &sp);
			assert_int_equal(nf, np);
			assert_memory_equal(sf, sp, (size_t)nf * sizeof *sf);
			for (int p = 0; p < players; p++)
				assert_int_equal(cm_board_score(fast, p), cm_board_score(port, p));
			const cm_game_stats *a = cm_board_stats(fast), *b = cm_board_stats(port);
			assert_int_equal(a->tiles_placed, b->tiles_placed);
			assert_int_equal(a->stranded, b->stranded);
			assert_int_equal(a->final_points, b->final_points);
			assert_memory_equal(a->points_kind, b->points_kind, sizeof a->points_kind);
		}
		cm_board_free(fast);
		cm_board_free(port);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats__same_seed_same_figures),
		cmocka_unit_test(test_stats__sums_agree),
		cmocka_unit_test(test_stats__first_game_is_play_game),
		cmocka_unit_test(test_stats__progress_and_errors),
		cmocka_unit_test(test_stats__jobs_give_the_same_figures),
		cmocka_unit_test(test_stats__both_frontier_scans_play_the_same_games),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
