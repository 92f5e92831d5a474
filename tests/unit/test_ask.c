/* SPDX-License-Identifier: MIT */
/* test_ask.c: the players' questions (carcamap/board.h "What a placement
 * would do"): cm_board_place_if and cm_board_abbey_if answer what placing
 * and ending the turn then does, for every legal placement of every turn
 * of random games on the bundled maps (big cities, prints, ferries,
 * islands, towns, landmarks) and on the wagon board (abbeys), under rule
 * variants; board copies play on alone; cm_board_remaining counts the
 * pile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "util_board.h"
#include "carcamap/player.h"
#include "carcamap/stats.h"
#include "carcamap/workspace.h"

typedef struct {
	int checked, completed, touched, towns;
} tally;

static void same_state(const cm_feature_state *want, const cm_feature_info *got, int players)
{
	assert_int_equal(want->kind, got->kind);
	assert_int_equal(want->arms, got->arms);
	if (got->kind != CM_FEAT_FIELD && got->kind != CM_FEAT_GARDEN) {
		assert_int_equal(want->tiles, got->tiles);
		assert_int_equal(want->open, got->open);
	}
	for (int p = 0; p < players; p++)
		assert_int_equal(want->followers[p], got->followers[p]);
}

/* Score items of one end of turn, kept by the hook. */
typedef struct {
	cm_score_item it[256];
	size_t n;
} items;

static void keep_items(void *arg, const cm_score_item *it, size_t n)
{
	items *k = arg;
	k->n = n < 256 ? n : 256;
	memcpy(k->it, it, k->n * sizeof *it);
}

/* The item scoring the feature named (x,y,f), or NULL. */
static const cm_score_item *item_of(const items *k, int x, int y, int f)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->it[i].type == CM_ITEM_FEATURE && k->it[i].x == x && k->it[i].y == y && k->it[i].feature == f)
			return &k->it[i];
	return NULL;
}

/* The answer q for a placement (or abbey, type < 0) against the board
 * after placing it on a copy and ending the turn. */
static void check_answer(const cm_board *b, cm_board *c, int type, const cm_placement *pl, const cm_place_if *q,
                         tally *t)
{
	int np = cm_board_players(b);
	assert_int_equal(cm_board_copy_into(c, b), 0);
	if (type >= 0)
		assert_int_equal(cm_board_place(c, type, pl->x, pl->y, pl->rot), 0);
	else
		assert_int_equal(cm_board_place_abbey(c, pl->x, pl->y), 0);
	for (int f = 0; f < q->n_features; f++) {
		cm_feature_info fi;
		assert_int_equal(cm_board_feature(c, pl->x, pl->y, f, &fi), 0);
		same_state(&q->features[f].after, &fi, np);
		assert_int_equal(q->features[f].complete, fi.complete && fi.kind != CM_FEAT_FIELD);
	}
	for (int i = 0; i < q->n_touched; i++) {
		const cm_touched_if *tc = &q->touched[i];
		cm_feature_info fi;
		if (tc->x < 0) /* a printed segment or ferry alone: on no square */
			continue;
		assert_int_equal(cm_board_feature(c, tc->x, tc->y, tc->feature, &fi), 0);
		same_state(&tc->after.after, &fi, np);
		t->touched++;
	}
	int before[CM_MAX_PLAYERS];
	for (int p = 0; p < np; p++)
		before[p] = cm_board_score(c, p);
	items k = { .n = 0 };
	cm_board_set_score_hook(c, keep_items, &k);
	assert_int_equal(cm_board_end_turn(c, NULL, NULL), 0);
	cm_board_set_score_hook(c, NULL, NULL);
	for (int p = 0; p < np; p++)
		assert_int_equal(cm_board_score(c, p) - before[p], q->scores[p]);
	/* each completed feature's points and players, as its item says */
	for (int f = 0; f < q->n_features; f++) {
		const cm_feature_if *o = &q->features[f];
		if (!o->complete || o->set != f)
			continue;
		cm_feature_info fi;
		cm_board_feature(c, pl->x, pl->y, f, &fi);
		const cm_score_item *it = item_of(&k, fi.wx, fi.wy, fi.wfeature);
		assert_non_null(it);
		assert_int_equal(it->points, o->points);
		assert_int_equal(it->players, o->players);
		t->towns += it->towns;
		t->completed++;
	}
	for (int i = 0; i < q->n_touched; i++) {
		const cm_feature_if *o = &q->touched[i].after;
		if (!o->complete || o->set >= 0)
			continue;
		const cm_score_item *it = item_of(&k, q->touched[i].x, q->touched[i].y, q->touched[i].feature);
		assert_non_null(it);
		assert_int_equal(it->points, o->points);
		assert_int_equal(it->players, o->players);
		t->completed++;
	}
	t->checked++;
}

/* Random games on map and deck with rules ru: every legal placement of
 * every drawn tile, and every abbey square, asked and checked. */
static void check_games(const cm_map *m, const cm_deck *deck, const cm_rules *ru, int players, int games,
                        uint64_t seed, tally *t)
{
	cm_board *b = NULL, *c = NULL;
	assert_int_equal(cm_board_new(m, deck, ru, players, seed, 0, NULL, &b), 0);
	assert_int_equal(cm_board_copy(b, &c), 0);
	cm_player *random = NULL;
	assert_int_equal(cm_player_new_random(&random), 0);
	size_t cap = 4096;
	cm_placement *pl = malloc(cap * sizeof *pl);
	assert_non_null(pl);
	for (int g = 0; g < games; g++) {
		assert_int_equal(cm_board_reset(b, seed + (uint64_t)g, NULL), 0);
		cm_rng rng;
		cm_rng_seed(&rng, seed * 31 + (uint64_t)g);
		int tile;
		for (;;) {
			cm_choice ch;
			while (cm_board_wagon_pending(b, NULL)) {
				assert_int_equal(cm_player_choose(random, b, -1, &rng, &ch), 0);
				assert_int_equal(cm_board_apply(b, -1, &ch, NULL, NULL), 0);
			}
			if (cm_board_draw(b, &tile) < 0)
				break;
			size_t n = cm_board_placements(b, tile, pl, cap);
			assert_true(n > 0 && n <= cap);
			cm_place_if q;
			for (size_t i = 0; i < n; i++) {
				assert_int_equal(cm_board_place_if(b, tile, pl[i].x, pl[i].y, pl[i].rot, &q), 0);
				check_answer(b, c, tile, &pl[i], &q, t);
			}
			size_t na = cm_board_abbey_squares(b, pl, cap);
			for (size_t i = 0; i < na; i++) {
				assert_int_equal(cm_board_abbey_if(b, pl[i].x, pl[i].y, &q), 0);
				check_answer(b, c, -1, &pl[i], &q, t);
			}
			assert_int_equal(cm_player_choose(random, b, tile, &rng, &ch), 0);
			assert_int_equal(cm_board_apply(b, tile, &ch, NULL, NULL), 0);
		}
	}
	free(pl);
	cm_player_free(random);
	cm_board_free(c);
	cm_board_free(b);
}

static void bundled(const char *path, void (*vary)(cm_rules *), int players, int games, tally *t)
{
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cm_deck *deck = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
	int rc = cm_workspace_load(w, path, d);
	if (!rc)
		rc = cm_workspace_resolve(w, d);
	if (!rc)
		rc = cm_play_deck(w, cm_workspace_map(w, 0), d, &deck);
	if (rc)
		cm_diags_write_text(d, stderr);
	assert_int_equal(rc, 0);
	const cm_map *m = cm_workspace_map(w, 0);
	cm_rules ru = *cm_map_rules(m);
	if (vary)
		vary(&ru);
	check_games(m, deck, &ru, players, games, 17, t);
	cm_deck_free(deck);
	cm_workspace_free(w);
	cm_diags_free(d);
}

static void towns_and_tiny(cm_rules *r)
{
	r->town_road_bonus = true;
	r->town_cost = true;
	r->tiny_city = true;
}

static void c1_no_edge(cm_rules *r)
{
	r->edition = CM_EDITION_C1;
	r->abbey_edge = false;
}

static void test_ask__place_if_is_what_placing_does(void **state)
{
	(void)state;
	tally t = { 0 };
	bundled("maps/germany/germany.xml", NULL, 2, 3, &t);            /* big cities, prints, a town */
	bundled("maps/germany/germany.xml", towns_and_tiny, 3, 2, &t);
	bundled("maps/benelux/benelux.xml", NULL, 4, 2, &t);            /* ferries, waves */
	bundled("maps/iberia/iberia.xml", NULL, 2, 2, &t);              /* islands with coats of arms */
	bundled("maps/nordics/nordics.xml", towns_and_tiny, 2, 2, &t);  /* landmarks */
	print_message("%d placements checked, %d features completed, %d touched, %d towns\n", t.checked, t.completed,
	              t.touched, t.towns);
	assert_true(t.checked > 10000 && t.completed > 1000 && t.towns > 0);
}

static void test_ask__abbey_if_and_wagons(void **state)
{
	(void)state;
	tally t = { 0 };
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	check_games(fx.scn->map, fx.deck, NULL, 2, 4, 5, &t);
	cm_rules ru = *cm_map_rules(fx.scn->map);
	c1_no_edge(&ru);
	check_games(fx.scn->map, fx.deck, &ru, 3, 3, 6, &t);
	util_fixture_unload(&fx);
	assert_true(t.checked > 1000);
}

/* A copy plays on alone: the same game as the original from there, and
 * the original is untouched by the copy's moves. */
static void test_ask__copies_play_on_alone(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	cm_board *a = NULL, *b = NULL, *c = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 3, 8, 0, NULL, &a), 0);
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 3, 8, 0, NULL, &b), 0);
	cm_player *random = NULL;
	assert_int_equal(cm_player_new_random(&random), 0);
	cm_rng ra, rb;
	cm_rng_seed(&ra, 1);
	cm_rng_seed(&rb, 1);
	/* 30 turns on both, then a copy of a finishes the game as b does */
	for (int turn = 0; turn < 30; turn++) {
		cm_choice ch;
		int t;
		while (cm_board_wagon_pending(a, NULL)) {
			cm_player_choose(random, a, -1, &ra, &ch);
			assert_int_equal(cm_board_apply(a, -1, &ch, NULL, NULL), 0);
			cm_player_choose(random, b, -1, &rb, &ch);
			assert_int_equal(cm_board_apply(b, -1, &ch, NULL, NULL), 0);
		}
		assert_int_equal(cm_board_draw(a, &t), 0);
		assert_int_equal(cm_board_draw(b, &t), 0);
		cm_player_choose(random, a, t, &ra, &ch);
		assert_int_equal(cm_board_apply(a, t, &ch, NULL, NULL), 0);
		cm_player_choose(random, b, t, &rb, &ch);
		assert_int_equal(cm_board_apply(b, t, &ch, NULL, NULL), 0);
	}
	char *mid = util_replay_text(a);
	assert_int_equal(cm_board_copy(a, &c), 0);
	cm_player *seats[3] = { random, random, random };
	cm_rng rc = ra;
	assert_int_equal(cm_board_play(c, seats, &rc, NULL), 0);
	assert_int_equal(cm_board_play(b, seats, &rb, NULL), 0);
	char *tc = util_replay_text(c), *tb = util_replay_text(b), *ta = util_replay_text(a);
	assert_string_equal(tb, tc);
	assert_string_equal(mid, ta); /* a did not move */
	assert_memory_equal(cm_board_stats(b), cm_board_stats(c), sizeof(cm_game_stats));
	/* a copy into a board of another player count is refused */
	cm_board *other = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 8, 0, NULL, &other), 0);
	assert_int_equal(cm_board_copy_into(other, a), CM_EINVAL);
	/* and a reset copy plays the seed's game again */
	assert_int_equal(cm_board_reset(c, 8, NULL), 0);
	assert_int_equal(cm_board_reset(a, 8, NULL), 0);
	char *ra_text = util_replay_text(a), *rc_text = util_replay_text(c);
	assert_string_equal(ra_text, rc_text);
	free(ra_text);
	free(rc_text);
	free(mid);
	free(ta);
	free(tb);
	free(tc);
	cm_board_free(other);
	cm_board_free(a);
	cm_board_free(b);
	cm_board_free(c);
	cm_player_free(random);
	util_fixture_unload(&fx);
}

static void test_ask__remaining(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 3, 0, NULL, &b), 0);
	size_t n = cm_deck_types(fx.deck);
	int *cnt = calloc(n, sizeof *cnt);
	assert_non_null(cnt);
	int left = cm_board_remaining(b, cnt, n), sum = 0, placed = 0;
	assert_int_equal(left, cm_board_pile(b));
	for (size_t i = 0; i < n; i++) {
		sum += cnt[i];
		assert_true(cnt[i] <= cm_deck_count(fx.deck, i));
		placed += cm_deck_count(fx.deck, i) - cnt[i];
	}
	assert_int_equal(sum, left);
	assert_int_equal(placed, 2); /* the setup's two tiles */
	assert_int_equal(cm_board_remaining(b, NULL, 0), left);
	free(cnt);
	cm_board_free(b);
	util_fixture_unload(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ask__place_if_is_what_placing_does),
		cmocka_unit_test(test_ask__abbey_if_and_wagons),
		cmocka_unit_test(test_ask__copies_play_on_alone),
		cmocka_unit_test(test_ask__remaining),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
