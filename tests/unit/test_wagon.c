/* SPDX-License-Identifier: MIT */
/* test_wagon.c: wagons and abbeys in the rules engine (carcamap/board.h
 * "Wagons and abbeys") under random play, in both editions: wagons stand
 * only on roads, cities, monasteries and abbeys; a wagon never moves to a
 * field, a complete or an occupied feature, and under C2 never more than
 * one square away; abbeys only go into holes; followers and wagons are
 * conserved; replays with wagon moves and abbeys reproduce the games; and
 * the replay lines for them read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/board.h"
#include "carcamap/play.h"
#include "carcamap/replay.h"
#include "scenario.h"
#include "util_board.h"

typedef struct {
	long abbeys, moves, returns, c1_contact, c1_abbey;
} tally;

/* Meeples and wagons are conserved: in the supply, on the board or (wagons)
 * waiting for their move. */
static void check_conserved(const cm_board *b, int followers)
{
	const cm_follower *fo;
	size_t n = cm_board_followers(b, &fo);
	cm_wagon_pending w;
	int waiting = cm_board_wagon_pending(b, &w);
	for (int p = 0; p < cm_board_players(b); p++) {
		int meeples = 0, wagons = 0;
		for (size_t i = 0; i < n; i++)
			if (fo[i].player == p)
				fo[i].kind == CM_FOLLOWER_WAGON ? wagons++ : meeples++;
		assert_int_equal(cm_board_supply(b, p) + meeples, followers);
		/* only the first waiting wagon is known by player; the rest wait too */
		int wait_p = waiting && w.player == p;
		assert_true(cm_board_wagons(b, p) + wagons + wait_p <= 1);
		if (!waiting)
			assert_int_equal(cm_board_wagons(b, p) + wagons, 1);
	}
	for (size_t i = 0; i < n; i++) {
		cm_feature_info fi;
		assert_int_equal(cm_board_feature(b, fo[i].x, fo[i].y, fo[i].feature, &fi), 0);
		if (fo[i].kind == CM_FOLLOWER_WAGON) /* WAGON-DEPLOY */
			assert_true(fi.kind != CM_FEAT_FIELD && fi.kind != CM_FEAT_GARDEN);
	}
}

/* Every waiting wagon: each destination is allowed, not a field, incomplete,
 * unoccupied, and in C2 within one square; then a random one is taken, or
 * the wagon goes back. */
static void move_wagons(cm_board *b, cm_rng *rng, tally *t)
{
	cm_wagon_pending w;
	cm_wagon_dest dv[512];
	bool c1 = cm_board_rules(b)->edition == CM_EDITION_C1;
	while (cm_board_wagon_pending(b, &w)) {
		size_t n = cm_board_wagon_moves(b, dv, 512);
		assert_true(n > 0 && n <= 512); /* none: it would have gone back by itself */
		for (size_t i = 0; i < n; i++) {
			cm_feature_info fi;
			cm_wagon_why why;
			assert_int_equal(cm_board_feature(b, dv[i].x, dv[i].y, dv[i].feature, &fi), 0);
			assert_true(fi.kind != CM_FEAT_FIELD && fi.kind != CM_FEAT_GARDEN);
			assert_false(fi.complete);
			for (int p = 0; p < CM_MAX_PLAYERS; p++)
				assert_int_equal(fi.followers[p], 0);
			assert_int_equal(cm_board_wagon_why(b, dv[i].x, dv[i].y, dv[i].feature, &why, NULL), 0);
			assert_int_equal(why, CM_WAGON_ALLOWED);
			if (c1) {
				assert_string_equal(dv[i].rule, "WAGON-C1");
				assert_true(dv[i].via == CM_WAGON_VIA_CONTACT || dv[i].via == CM_WAGON_VIA_ABBEY);
				/* two cities are never adjacent */
				assert_false(fi.kind == CM_FEAT_CITY && w.kind == CM_FEAT_CITY);
			} else {
				assert_string_equal(dv[i].rule, "WAGON-C2");
				assert_true(abs(dv[i].x - w.x) <= 1 && abs(dv[i].y - w.y) <= 1);
			}
		}
		uint32_t c = cm_rng_below(rng, (uint32_t)n + 1);
		if (c == n) {
			int before = cm_board_wagons(b, w.player);
			assert_int_equal(cm_board_wagon_move(b, 0, 0, -1), 0);
			assert_int_equal(cm_board_wagons(b, w.player), before + 1);
			t->returns++;
			continue;
		}
		if (c1)
			dv[c].via == CM_WAGON_VIA_ABBEY ? t->c1_abbey++ : t->c1_contact++;
		assert_int_equal(cm_board_wagon_move(b, dv[c].x, dv[c].y, dv[c].feature), 0);
		cm_feature_info fi;
		assert_int_equal(cm_board_feature(b, dv[c].x, dv[c].y, dv[c].feature, &fi), 0);
		assert_int_equal(fi.followers[w.player], 1);
		t->moves++;
	}
}

/* Deploys at random (meeple or wagon) on the tile just placed. */
static void deploy_random(cm_board *b, cm_rng *rng, int x, int y)
{
	int sp[32], wsp[32];
	size_t n = cm_board_spots(b, CM_FOLLOWER_MEEPLE, sp, 32);
	size_t m = cm_board_spots(b, CM_FOLLOWER_WAGON, wsp, 32);
	for (size_t i = 0; i < m; i++) {
		cm_feature_info fi;
		assert_int_equal(cm_board_feature(b, x, y, wsp[i], &fi), 0);
		assert_true(fi.kind != CM_FEAT_FIELD && fi.kind != CM_FEAT_GARDEN);
	}
	if (n + m == 0 || cm_rng_below(rng, 2) == 0)
		return;
	uint32_t k = cm_rng_below(rng, (uint32_t)(n + m));
	if (k < n)
		assert_int_equal(cm_board_deploy(b, sp[k], CM_FOLLOWER_MEEPLE), 0);
	else
		assert_int_equal(cm_board_deploy(b, wsp[k - n], CM_FOLLOWER_WAGON), 0);
}

/* An abbey square: empty, and every side faces a tile or something that
 * can never hold one (abbey-edge is on). */
static void check_abbey_square(const cm_board *b, const cm_map *m, int x, int y)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	assert_int_not_equal(cm_board_tile_at(b, x, y, NULL, NULL), 0);
	for (int d = 0; d < 4; d++) {
		const cm_square *q = cm_map_at(m, x + dx[d], y + dy[d]);
		bool tile = cm_board_tile_at(b, x + dx[d], y + dy[d], NULL, NULL) == 0;
		assert_true(tile || !q || !cm_square_kind_playable(q->kind));
	}
}

static void play_game(const util_fixture *fx, cm_board *b, cm_rng *rng, tally *t)
{
	const cm_map *m = fx->scn->map;
	int fol = cm_map_setup(m)->followers > 0 ? cm_map_setup(m)->followers : 9;
	cm_placement pl[4096];
	int type;
	for (int turn = 0;; turn++) {
		int p = cm_board_current(b);
		size_t na = cm_board_abbey_squares(b, pl, 4096);
		if (cm_board_abbeys(b, p) && na && (cm_board_over(b) || cm_rng_below(rng, 5) == 0)) {
			cm_placement c = pl[cm_rng_below(rng, (uint32_t)na)];
			check_abbey_square(b, m, c.x, c.y);
			assert_true(cm_board_abbey_legal(b, c.x, c.y));
			assert_int_equal(cm_board_place_abbey(b, c.x, c.y), 0);
			assert_int_equal(cm_board_abbeys(b, p), 0);
			t->abbeys++;
			deploy_random(b, rng, c.x, c.y);
		} else if (cm_board_draw(b, &type) == 0) {
			size_t n = cm_board_placements(b, type, pl, 4096);
			assert_true(n > 0 && n <= 4096);
			cm_placement c = pl[cm_rng_below(rng, (uint32_t)n)];
			assert_int_equal(cm_board_place(b, type, c.x, c.y, c.rot), 0);
			deploy_random(b, rng, c.x, c.y);
		} else {
			/* the pile is empty: the others still holding an abbey may place it */
			int next = -1;
			for (int k = 1; k < cm_board_players(b) && next < 0; k++) {
				int q = (p + k) % cm_board_players(b);
				cm_board_set_current(b, q);
				if (cm_board_abbeys(b, q) && cm_board_abbey_squares(b, NULL, 0))
					next = q;
			}
			if (next < 0)
				break;
			continue;
		}
		assert_int_equal(cm_board_end_turn(b, NULL, NULL), 0);
		check_conserved(b, fol);
		move_wagons(b, rng, t);
		assert_int_equal(cm_board_wagon_pending(b, NULL), 0);
		check_conserved(b, fol);
		assert_true(turn < 1000);
	}
	assert_int_equal(cm_board_final(b, NULL, NULL), 0);
}

/* The replay of b, read back and played, gives the same text and scores. */
static void check_replay(const util_fixture *fx, const cm_board *b)
{
	cm_board_free(util_replay_again(fx, b));
}

static void properties(cm_edition ed, int players)
{
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	cm_rules ru = *cm_map_rules(fx.scn->map);
	ru.edition = ed;
	assert_true(ru.wagons);
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, &ru, players, 1, 0, NULL, &b), 0);
	cm_rng rng;
	cm_rng_seed(&rng, 11);
	tally t = { 0 };
	for (int g = 0; g < 300; g++) {
		assert_int_equal(cm_board_reset(b, (uint64_t)g * 31 + 5, NULL), 0);
		for (int p = 0; p < players; p++) {
			assert_int_equal(cm_board_abbeys(b, p), 1); /* dealt */
			assert_int_equal(cm_board_wagons(b, p), 1);
		}
		play_game(&fx, b, &rng, &t);
		if (g % 25 == 0)
			check_replay(&fx, b);
	}
	/* the games do use them */
	assert_true(t.abbeys > 100);
	assert_true(t.moves > 100);
	assert_true(t.returns > 10);
	if (ed == CM_EDITION_C1)
		assert_true(t.c1_contact > 10 && t.c1_abbey > 0);
	cm_board_free(b);
	util_fixture_unload(&fx);
}

static void test_wagon__random_games_c2(void **state)
{
	(void)state;
	properties(CM_EDITION_C2, 3);
}

static void test_wagon__random_games_c1(void **state)
{
	(void)state;
	properties(CM_EDITION_C1, 4);
}

/* cm_board_play_random deals with abbeys and wagons; same seed, same game;
 * its replays play back. */
static void test_wagon__play_random_replays(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	long abbeys = 0, moves = 0;
	for (int ed = 0; ed < 2; ed++) {
		cm_rules ru = *cm_map_rules(fx.scn->map);
		ru.edition = ed ? CM_EDITION_C1 : CM_EDITION_C2;
		char *first = NULL;
		for (int i = 0; i < 2; i++) {
			cm_board *b = NULL;
			assert_int_equal(cm_board_new(fx.scn->map, fx.deck, &ru, 4, 77, 0, NULL, &b), 0);
			cm_rng rng;
			cm_rng_seed(&rng, 3);
			for (int g = 0; g < 20; g++) {
				assert_int_equal(cm_board_reset(b, 77 + (uint64_t)g, NULL), 0);
				assert_int_equal(cm_board_play_random(b, &rng), 0);
				const cm_game_stats *st = cm_board_stats(b);
				assert_int_equal(st->squares_filled, st->tiles_placed + st->setup_tiles + st->abbeys_placed);
				abbeys += st->abbeys_placed;
				moves += st->wagon_moves;
				if (g % 5 == 0)
					check_replay(&fx, b);
			}
			char *text = util_replay_text(b);
			if (i == 0)
				first = text;
			else {
				assert_string_equal(first, text);
				free(text);
			}
			cm_board_free(b);
		}
		free(first);
	}
	assert_true(abbeys > 0 && moves > 0);
	util_fixture_unload(&fx);
}

/* The replay lines for abbeys, wagons on tiles and wagon moves. */
static void test_wagon__replay_lines(void **state)
{
	(void)state;
	const char *text = "carcamap-replay 1\nmap m 0000000000000001\ndeck 0000000000000002 base\n"
	                   "players 2\nseed 1\nflags 1\nrules edition=C1 wagons=yes\n"
	                   "move 0 U 3 2 0 w1\nabbey 1 AM-abbey 4 4 0\nwagon 0 3 3 2\nwagon 1 -\n"
	                   "move 1 U 3 3 0 -\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	cm_replay *r = NULL;
	assert_int_equal(cm_replay_read(f, "mem", NULL, &r), 0);
	fclose(f);
	assert_true(r->rules.wagons);
	assert_int_equal(r->n_moves, 5);
	assert_int_equal(r->moves[0].follower, CM_FOLLOWER_WAGON);
	assert_int_equal(r->moves[0].feature, 1);
	assert_int_equal(r->moves[1].kind, CM_MOVE_ABBEY);
	assert_int_equal(r->moves[1].feature, 0);
	assert_int_equal(r->moves[1].follower, CM_FOLLOWER_MEEPLE);
	assert_int_equal(r->moves[2].kind, CM_MOVE_WAGON);
	assert_int_equal(r->moves[2].x, 3);
	assert_int_equal(r->moves[2].feature, 2);
	assert_int_equal(r->moves[3].kind, CM_MOVE_WAGON);
	assert_int_equal(r->moves[3].feature, -1);
	cm_replay_free(r);
	const char *bad[] = { "wagon 0 3\n", "wagon 0 + \n", "abbey 0 AM-abbey 1 1\n", "move 0 U 1 1 0 wx\n" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char buf[256];
		snprintf(buf, sizeof buf, "carcamap-replay 1\nmap m 01\nplayers 2\n%s", bad[i]);
		cm_diags *d = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		f = fmemopen(buf, strlen(buf), "r");
		assert_int_equal(cm_replay_read(f, "mem", d, &r), CM_EINVAL);
		fclose(f);
		assert_int_equal(cm_diags_get(d, 0)->line, 4);
		cm_diags_free(d);
	}
}

/* The compact tile notation's contact groups (WAGON-C1). */
static void test_wagon__compact_contacts(void **state)
{
	(void)state;
	cm_tile_type t;
	char err[200];
	assert_int_equal(cm_scenario_parse_tile("MC : monastery[] ; city[En Em Es Ws Wm Wn] ; field[Nw Nm Ne] ; "
	                                        "contact[m1 c1] ; field[Se Sm Sw]", &t, err, sizeof err), 0);
	assert_int_equal(t.n_features, 4);
	assert_int_equal(t.n_contacts, 1);
	assert_int_equal(t.contacts[0], 3u); /* m1 and c1: features 0 and 1 */
	cm_tile_type_clear(&t);
	static const char *const bad[][2] = {
		{ "X : road[Em Wm] ; field[Nw Nm Ne En Wn] ; field[Es Se Sm Sw Ws] ; contact[r1 r9]",
		  "contact names no feature of the tile: \"r9\"" },
		{ "X : road[Em Wm] ; field[Nw Nm Ne En Wn] ; field[Es Se Sm Sw Ws] ; contact[r1 r1]",
		  "a contact needs two features or more" },
		{ "X : road[Em Wm] ; field[Nw Nm Ne En Wn] ; field[Es Se Sm Sw Ws] ; contact[r1 f1] x",
		  "contact needs \"contact[ID ID …]\"" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(cm_scenario_parse_tile(bad[i][0], &t, err, sizeof err), CM_EINVAL);
		assert_string_equal(err, bad[i][1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wagon__compact_contacts),
		cmocka_unit_test(test_wagon__replay_lines),
		cmocka_unit_test(test_wagon__play_random_replays),
		cmocka_unit_test(test_wagon__random_games_c2),
		cmocka_unit_test(test_wagon__random_games_c1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
