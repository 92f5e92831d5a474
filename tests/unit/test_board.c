/* SPDX-License-Identifier: MIT */
/* test_board.c: the rules engine (carcamap/board.h) under random play:
 * property tests over thousands of games on two boards (tiles match
 * neighbours, big cities and prints; followers only on unoccupied
 * features and conserved; open edges, tiles and coats of arms equal a
 * recount from scratch; scores never decrease; replays and seeds
 * reproduce games), plus the PRNG, the deck and replay reading. */
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
#include "engine/engine.h"
#include "util_files.h"
#include "util_model.h"
#include "carcamap/replay.h"
#include "carcamap/stats.h"
#include "scenario.h"
#include "util_board.h"
#include "model/map_builder_int.h"

/* ---- an independent recount of the board, from scratch ---- */

typedef struct {
	const cm_map *m;
	const cm_board *b;
	const cm_deck *deck;
	int n_sq;
} recount;

static int rfind(int *uf, int a)
{
	while (uf[a] != a)
		a = uf[a] = uf[uf[a]];
	return a;
}

static void runite(int *uf, int a, int b)
{
	a = rfind(uf, a);
	b = rfind(uf, b);
	if (a != b)
		uf[a] = b;
}

/* The tile type and rotation on square s: a placed tile, or a big-city
 * piece (rotation 0); NULL for neither. */
static const cm_tile_type *type_at(const recount *r, int s, int *rot)
{
	int t, x = s % cm_map_cols(r->m), y = s / cm_map_cols(r->m);
	if (cm_board_tile_at(r->b, x, y, &t, rot) == 0)
		return cm_deck_type(r->deck, (size_t)t);
	*rot = 0;
	for (size_t c = 0; c < cm_map_bigcity_count(r->m); c++)
		for (size_t k = 0; k < cm_map_bigcity(r->m, c)->n_pieces; k++)
			if (cm_map_bigcity(r->m, c)->pieces[k].x == x && cm_map_bigcity(r->m, c)->pieces[k].y == y)
				return &cm_map_bigcity(r->m, c)->pieces[k].tile;
	return NULL;
}

/* The feature covering slot i of a tile turned rot quarter turns. */
static int feature_on(const cm_tile_type *t, int rot, int i)
{
	return t->slot_feature[((i - 3 * rot) % 12 + 12) % 12];
}

static int nb(const cm_map *m, int s, int d)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	int x = s % cm_map_cols(m) + dx[d], y = s / cm_map_cols(m) + dy[d];
	return cm_map_at(m, x, y) ? y * cm_map_cols(m) + x : -1;
}

static int bigcity_of(const cm_map *m, int s)
{
	return s >= 0 ? cm_map_squares(m)[s].bigcity : -1;
}

/* Checks every feature on the board against a recount: open edges, tiles
 * (squares once, printed pieces once), coats of arms; and that every
 * placed tile matches its neighbours, big cities and prints. */
static void check_board(const cm_map *m, const cm_board *b, const cm_deck *deck)
{
	recount r = { m, b, deck, cm_map_cols(m) * cm_map_rows(m) };
	int n_nodes = r.n_sq * 32 + r.n_sq * 4 + (int)cm_map_ferry_count(m);
	int *uf = malloc((size_t)n_nodes * sizeof *uf);
	int *open = calloc((size_t)n_nodes, sizeof *open);
	int *arms = calloc((size_t)n_nodes, sizeof *arms);
	int *tiles = calloc((size_t)n_nodes, sizeof *tiles);
	unsigned char *real = calloc((size_t)n_nodes, 1); /* prints and ferries in use */
	assert_true(uf && open && arms && tiles && real);
	for (int i = 0; i < n_nodes; i++)
		uf[i] = i;
	int pbase = r.n_sq * 32, fbase = r.n_sq * 36;
	for (int s = 0; s < r.n_sq; s++) {
		int rot;
		const cm_tile_type *t = type_at(&r, s, &rot);
		if (!t)
			continue;
		bool placed = cm_board_tile_at(b, s % cm_map_cols(m), s / cm_map_cols(m), NULL, NULL) == 0;
		for (int d = 0; d < 4; d++) {
			int q = nb(m, s, d), qrot;
			const cm_tile_type *u = q >= 0 ? type_at(&r, q, &qrot) : NULL;
			int f = feature_on(t, rot, 3 * d + 1);
			cm_feature_kind k = t->features[f].kind;
			bool rc = k == CM_FEAT_ROAD || k == CM_FEAT_CITY;
			if (u) {
				if (!placed && bigcity_of(m, q) >= 0 && bigcity_of(m, q) != bigcity_of(m, s))
					continue; /* two different big cities: closed */
				if (placed)
					assert_true(cm_tile_edge(t, (cm_side)d, rot) ==
					            cm_tile_edge(u, (cm_side)((d + 2) % 4), qrot));
				for (int p = 0; p < 3; p++) {
					int a = feature_on(t, rot, 3 * d + p);
					int c = feature_on(u, qrot, cm_slot_facing(3 * d + p));
					if (t->features[a].kind == u->features[c].kind)
						runite(uf, s * 32 + a, q * 32 + c);
				}
				continue;
			}
			if (q >= 0 && cm_square_kind_playable(cm_map_squares(m)[q].kind)) {
				if (rc)
					open[s * 32 + f]++; /* an empty square */
				continue;
			}
			if (!placed)
				continue; /* a big city at the map edge: closed */
			/* the map edge: a ferry, a print or neutral */
			const cm_edge_print *pr = &cm_map_squares(m)[s].print[d];
			int fe = -1;
			for (size_t i = 0; i < cm_map_ferry_count(m); i++) {
				const cm_ferry *fr = cm_map_ferry(m, i);
				if ((fr->y1 * cm_map_cols(m) + fr->x1 == s && (int)fr->s1 == d) ||
				    (fr->y2 * cm_map_cols(m) + fr->x2 == s && (int)fr->s2 == d))
					fe = (int)i;
			}
			if (fe >= 0) {
				assert_int_equal(k, CM_FEAT_ROAD);
				runite(uf, s * 32 + f, fbase + fe);
				real[fbase + fe] = 1;
			} else if (pr->kind == CM_PRINT_ROAD || pr->kind == CM_PRINT_CITY) {
				assert_int_equal(k, pr->kind == CM_PRINT_ROAD ? CM_FEAT_ROAD : CM_FEAT_CITY);
				runite(uf, s * 32 + f, pbase + s * 4 + d);
				arms[pbase + s * 4 + d] = pr->arms;
				real[pbase + s * 4 + d] = 1;
			}
		}
	}
	/* a ferry: one tile, its arms and both ends' printed arms, open at an
	 * end with no tile */
	for (size_t i = 0; i < cm_map_ferry_count(m); i++) {
		const cm_ferry *fr = cm_map_ferry(m, i);
		int s1 = fr->y1 * cm_map_cols(m) + fr->x1, s2 = fr->y2 * cm_map_cols(m) + fr->x2;
		arms[fbase + (int)i] = fr->arms + cm_map_squares(m)[s1].print[fr->s1].arms +
		                       cm_map_squares(m)[s2].print[fr->s2].arms;
		open[fbase + (int)i] = (cm_board_tile_at(b, fr->x1, fr->y1, NULL, NULL) < 0) +
		                       (cm_board_tile_at(b, fr->x2, fr->y2, NULL, NULL) < 0);
	}
	/* sum per root: open edges, arms, tiles (a square once) */
	int *ropen = calloc((size_t)n_nodes, sizeof *ropen), *rarms = calloc((size_t)n_nodes, sizeof *rarms);
	assert_true(ropen && rarms);
	for (int i = 0; i < n_nodes; i++) {
		int root = rfind(uf, i);
		ropen[root] += open[i];
		rarms[root] += arms[i];
	}
	for (int s = 0; s < r.n_sq; s++) {
		int rot;
		const cm_tile_type *t = type_at(&r, s, &rot);
		if (!t)
			continue;
		for (size_t f = 0; f < t->n_features; f++) {
			int root = rfind(uf, s * 32 + (int)f);
			rarms[root] += t->features[f].arms;
			bool first = true; /* BASE-TILE-COUNT: a square once per feature */
			for (size_t g = 0; g < f; g++)
				if (rfind(uf, s * 32 + (int)g) == root)
					first = false;
			tiles[root] += first;
		}
	}
	for (int i = pbase; i < n_nodes; i++)
		if (real[i])
			tiles[rfind(uf, i)]++;
	/* compare every placed road and city with the engine */
	for (int s = 0; s < r.n_sq; s++) {
		int rot, x = s % cm_map_cols(m), y = s / cm_map_cols(m);
		if (cm_board_tile_at(b, x, y, NULL, &rot) < 0)
			continue;
		const cm_tile_type *t = type_at(&r, s, &rot);
		for (size_t f = 0; f < t->n_features; f++) {
			cm_feature_info fi;
			assert_int_equal(cm_board_feature(b, x, y, (int)f, &fi), 0);
			assert_int_equal(fi.kind, t->features[f].kind);
			if (fi.kind == CM_FEAT_MONASTERY) {
				int missing = 0;
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++) {
						const cm_square *q = cm_map_at(m, x + dx, y + dy);
						missing += (dx || dy) && q && cm_square_kind_playable(q->kind) &&
						           cm_board_tile_at(b, x + dx, y + dy, NULL, NULL) < 0;
					}
				assert_int_equal(fi.open, missing);
			}
			if (fi.kind != CM_FEAT_ROAD && fi.kind != CM_FEAT_CITY)
				continue;
			int root = rfind(uf, s * 32 + (int)f);
			assert_int_equal(fi.open, ropen[root]);
			assert_int_equal(fi.arms, rarms[root]);
			assert_int_equal(fi.tiles, tiles[root]);
			assert_int_equal(fi.complete, ropen[root] == 0);
		}
	}
	free(uf);
	free(open);
	free(arms);
	free(tiles);
	free(real);
	free(ropen);
	free(rarms);
}

/* ---- playing games step by step ---- */

static int followers_on_board(const cm_board *b, int p)
{
	const cm_follower *fo;
	size_t n = cm_board_followers(b, &fo);
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += fo[i].player == p;
	return c;
}

/* One random game through the turn API, checking invariants every turn
 * when deep (the full recount), else every 16 turns. */
static void play_checked(const util_fixture *fx, cm_board *b, cm_rng *rng, bool deep)
{
	const cm_map *m = fx->scn->map;
	int players = cm_board_players(b), fol = cm_map_setup(m)->followers;
	int last[CM_MAX_PLAYERS] = { 0 };
	cm_placement pl[4 * 1024];
	int t, turn = 0;
	while (cm_board_draw(b, &t) == 0) {
		size_t n = cm_board_placements(b, t, pl, 4 * 1024);
		assert_true(n > 0 && n <= 4 * 1024);
		for (size_t i = 0; i < n; i++)
			assert_true(cm_board_legal(b, t, pl[i].x, pl[i].y, pl[i].rot));
		cm_placement c = pl[cm_rng_below(rng, (uint32_t)n)];
		assert_int_equal(cm_board_place(b, t, c.x, c.y, c.rot), 0);
		assert_int_equal(cm_board_place(b, t, c.x, c.y, c.rot), CM_EINVAL); /* turn open */
		int spots[32];
		size_t ns = cm_board_spots(b, CM_FOLLOWER_MEEPLE, spots, 32);
		if (ns && cm_rng_below(rng, 2)) {
			int f = spots[cm_rng_below(rng, (uint32_t)ns)];
			cm_feature_info fi;
			assert_int_equal(cm_board_feature(b, c.x, c.y, f, &fi), 0);
			for (int p = 0; p < CM_MAX_PLAYERS; p++)
				assert_int_equal(fi.followers[p], 0); /* BASE-OCCUPIED */
			assert_int_equal(cm_board_deploy(b, f, CM_FOLLOWER_MEEPLE), 0);
			assert_int_equal(cm_board_deploy(b, f, CM_FOLLOWER_MEEPLE), CM_EINVAL);
		}
		const cm_score_item *items;
		size_t ni;
		assert_int_equal(cm_board_end_turn(b, &items, &ni), 0);
		for (size_t i = 0; i < ni; i++)
			assert_non_null(items[i].reason);
		for (int p = 0; p < players; p++) {
			if (!cm_board_rules(b)->town_cost) /* the only way to lose points */
				assert_true(cm_board_score(b, p) >= last[p]);
			last[p] = cm_board_score(b, p);
			assert_int_equal(cm_board_supply(b, p) + followers_on_board(b, p), fol);
		}
		if (deep || ++turn % 16 == 0)
			check_board(m, b, fx->deck);
	}
	check_board(m, b, fx->deck);
	assert_int_equal(cm_board_final(b, NULL, NULL), 0);
	assert_int_equal(cm_board_final(b, NULL, NULL), CM_EINVAL);
	for (int p = 0; p < players; p++)
		assert_true(cm_board_score(b, p) >= last[p]);
}

/* The replay of b, read back and played, gives the same board and text. */
static void check_replay(const util_fixture *fx, const cm_board *b)
{
	cm_board *b2 = util_replay_again(fx, b);
	const cm_map *m = fx->scn->map;
	for (int y = 0; y < cm_map_rows(m); y++)
		for (int x = 0; x < cm_map_cols(m); x++) {
			int t1 = -1, r1 = -1, t2 = -1, r2 = -1;
			assert_int_equal(cm_board_tile_at(b, x, y, &t1, &r1), cm_board_tile_at(b2, x, y, &t2, &r2));
			assert_int_equal(t1, t2);
			assert_int_equal(r1, r2);
		}
	cm_board_free(b2);
}

static void properties(const char *path, int deep_games, int games, int players, bool islands)
{
	util_fixture fx = util_fixture_load(path);
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, players, 1, 0, NULL, &b), 0);
	cm_rng rng;
	cm_rng_seed(&rng, 7);
	long points = 0, island_points = 0;
	for (int g = 0; g < games; g++) {
		assert_int_equal(cm_board_reset(b, (uint64_t)g * 7919 + 3, NULL), 0);
		play_checked(&fx, b, &rng, g < deep_games);
		if (g % 50 == 0)
			check_replay(&fx, b);
		points += cm_board_score(b, 0);
		island_points += cm_board_stats(b)->points_island;
	}
	assert_true(points > 0); /* the games do score */
	assert_true(!islands || island_points > 0); /* and reach the islands */
	cm_board_free(b);
	util_fixture_unload(&fx);
}

static void test_board__properties_map120(void **state)
{
	(void)state;
	properties("tests/bench/map120.scn", 100, 1500, 2, false);
}

static void test_board__properties_islands(void **state)
{
	(void)state;
	properties("tests/scenarios/islands.map", 100, 1500, 3, true);
}

/* The map format's full example, read by the map reader (town-cost on). */
static void test_board__properties_sample_xml(void **state)
{
	(void)state;
	properties("tests/scenarios/map-xml-sample.scn", 200, 1500, 2, true);
}

/* The validator's layout (cm__layout_new_reach: no pieces, no counts)
 * answers its questions as the whole layout does, and completed
 * (cm__layout_complete, as check --games does) plays the same games, on
 * maps with big cities, ferries, an island and prints. */
static void test_board__layout_in_stages(void **state)
{
	(void)state;
	const char *paths[] = { "tests/bench/map120.scn", "tests/scenarios/islands.map",
		                "tests/scenarios/map-xml-sample.scn" };
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		util_fixture fx = util_fixture_load(paths[i]);
		const cm_map *m = fx.scn->map;
		cm__layout *whole = NULL, *part = NULL;
		assert_int_equal(cm__layout_new(m, NULL, &whole), 0);
		assert_int_equal(cm__layout_new_reach(m, NULL, &part), 0);
		int n = cm__layout_squares(whole);
		assert_int_equal(cm__layout_squares(part), n);
		assert_int_equal(cm__layout_playable_count(part), cm__layout_playable_count(whole));
		assert_memory_equal(cm__layout_playable_flags(part), cm__layout_playable_flags(whole), (size_t)n);
		assert_memory_equal(cm__layout_printed_reqs(part), cm__layout_printed_reqs(whole), (size_t)n);
		assert_int_equal(cm__layout_start_count(part), cm__layout_start_count(whole));
		for (int s = 0; s < n; s++)
			assert_int_equal(cm__layout_island(part, s), cm__layout_island(whole, s));
		size_t ni = cm_map_island_count(m) + 1;
		uint8_t *reach[2], *isl[2];
		uint8_t takes[256];
		memset(takes, 1, sizeof takes);
		for (int k = 0; k < 2; k++) {
			reach[k] = calloc((size_t)n, 1);
			isl[k] = calloc(ni, 1);
			assert_true(reach[k] && isl[k]);
			assert_int_equal(cm__layout_reach_req(k ? part : whole, takes, reach[k], isl[k]), 0);
		}
		assert_memory_equal(reach[0], reach[1], (size_t)n);
		assert_memory_equal(isl[0], isl[1], ni);
		assert_int_equal(cm__layout_complete(part), 0);
		assert_int_equal(cm__layout_complete(part), 0); /* a no-op once whole */
		char *text[2];
		for (int k = 0; k < 2; k++) {
			cm_board *b = NULL;
			assert_int_equal(cm__board_new_on(k ? part : whole, fx.deck, NULL, 3, 42, 0, NULL, &b), 0);
			cm_rng rng;
			cm_rng_seed(&rng, 9);
			assert_int_equal(cm_board_play_random(b, &rng), 0);
			text[k] = util_replay_text(b);
			cm_board_free(b);
			free(reach[k]);
			free(isl[k]);
		}
		assert_string_equal(text[0], text[1]);
		free(text[0]);
		free(text[1]);
		cm__layout_free(part);
		cm__layout_free(whole);
		util_fixture_unload(&fx);
	}
}

/* Same seed, same game (random play and replay text); another seed, another. */
static void test_board__same_seed_same_game(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	char *text[3];
	for (int i = 0; i < 3; i++) {
		cm_board *b = NULL;
		assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 4, i < 2 ? 99 : 100, 0, NULL, &b), 0);
		cm_rng rng;
		cm_rng_seed(&rng, 5);
		assert_int_equal(cm_board_play_random(b, &rng), 0);
		assert_int_equal(cm_board_play_random(b, &rng), CM_EINVAL);
		text[i] = util_replay_text(b);
		if (i == 0)
			check_replay(&fx, b);
		cm_board_free(b);
	}
	assert_string_equal(text[0], text[1]);
	assert_true(strcmp(text[0], text[2]) != 0);
	for (int i = 0; i < 3; i++)
		free(text[i]);
	util_fixture_unload(&fx);
}

/* Random play fills the board and accounts for every tile. */
static void test_board__random_play_stats(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 11, 0, NULL, &b), 0);
	cm_rng rng;
	cm_rng_seed(&rng, 1);
	assert_int_equal(cm_board_play_random(b, &rng), 0);
	const cm_game_stats *st = cm_board_stats(b);
	assert_int_equal(st->setup_tiles, 2);
	assert_int_equal(st->tiles_placed + st->setup_tiles + st->stranded, cm_deck_total(fx.deck));
	assert_int_equal(st->squares_filled, st->tiles_placed + st->setup_tiles);
	assert_int_equal(st->squares_playable, 120);
	int sum = st->points_island + st->points_town;
	for (int k = 0; k < CM_FEAT_KIND_COUNT; k++)
		sum += st->points_kind[k];
	assert_int_equal(sum, st->scores[0] + st->scores[1]);
	assert_true(cm_board_over(b));
	cm_board_free(b);
	util_fixture_unload(&fx);
}

static void test_board__rng_range_and_determinism(void **state)
{
	(void)state;
	cm_rng a, b;
	cm_rng_seed(&a, 12345);
	cm_rng_seed(&b, 12345);
	int hist[7] = { 0 };
	for (int i = 0; i < 70000; i++) {
		uint64_t x = cm_rng_next(&a);
		assert_true(x == cm_rng_next(&b));
		uint32_t v = cm_rng_below(&a, 7);
		assert_true(v == cm_rng_below(&b, 7));
		assert_true(v < 7);
		hist[v]++;
	}
	for (int i = 0; i < 7; i++)
		assert_true(hist[i] > 9000 && hist[i] < 11000);
	assert_int_equal(cm_rng_below(&a, 1), 0);
	assert_int_equal(cm_rng_below(&a, 0), 0);
	cm_rng_seed(&b, 12346);
	assert_true(cm_rng_next(&a) != cm_rng_next(&b));
}

/* Deck: per-edition counts, explicit counts, the start tile set aside,
 * and errors for an unknown set or tile. */
/* A deck of exactly CM_DECK_MAX_TILES copies is built; one copy more is
 * CM_ELIMIT, however the counts are split. */
static void test_board__deck_limit_on_both_sides(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	const cm_tile_type *types[2] = { cm_deck_type(fx.deck, 0), cm_deck_type(fx.deck, 1) };
	static const int at[2] = { CM_DECK_MAX_TILES - 7, 7 }, over[2] = { CM_DECK_MAX_TILES - 7, 8 },
			 one[2] = { CM_DECK_MAX_TILES + 1, 0 };
	cm_deck *k = NULL;
	assert_int_equal(cm_deck_from_types(types, at, 2, -1, NULL, &k), 0);
	assert_int_equal(cm_deck_total(k), CM_DECK_MAX_TILES);
	cm_deck_free(k);
	k = NULL;
	assert_int_equal(cm_deck_from_types(types, over, 2, -1, NULL, &k), CM_ELIMIT);
	cm_deck_free(k);
	k = NULL;
	assert_int_equal(cm_deck_from_types(types, one, 2, -1, NULL, &k), CM_ELIMIT);
	cm_deck_free(k);
	util_fixture_unload(&fx);
}

/* A game on d with seed: its replay text (the caller frees it). */
static char *game_on(const cm_map *m, const cm_deck *d, uint64_t seed)
{
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(m, d, NULL, 3, seed, 0, NULL, &b), 0);
	assert_int_equal(cm_play_game(b, seed, NULL), 0);
	char *text = util_replay_text(b);
	cm_board_free(b);
	return text;
}

/* cm__deck_recount (deck fitting's decks of other sizes) is
 * cm_deck_from_types over the same types and start: the same counts,
 * total, hash and games; its limits and errors are the same too. */
static void test_board__deck_recount_is_from_types(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	size_t n = cm_deck_types(fx.deck);
	int start = cm_deck_start(fx.deck);
	assert_true(n >= 3 && start >= 0);
	const cm_tile_type **types = calloc(n, sizeof *types);
	int *counts = calloc(n, sizeof *counts);
	assert_non_null(types);
	assert_non_null(counts);
	for (size_t i = 0; i < n; i++) {
		types[i] = cm_deck_type(fx.deck, i);
		counts[i] = (int)(i * 7 % 5);
	}
	counts[start] = 2;
	cm_deck *a = NULL, *b = NULL;
	assert_int_equal(cm_deck_from_types(types, counts, n, start, NULL, &a), 0);
	assert_int_equal(cm__deck_recount(fx.deck, counts, NULL, &b), 0);
	assert_int_equal(cm_deck_total(a), cm_deck_total(b));
	assert_int_equal(cm_deck_start(b), start);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(cm_deck_count(a, i), cm_deck_count(b, i));
	assert_true(cm_deck_hash(a) == cm_deck_hash(b));
	for (uint64_t seed = 1; seed <= 20; seed++) {
		char *ga = game_on(fx.scn->map, a, seed), *gb = game_on(fx.scn->map, b, seed);
		assert_string_equal(ga, gb);
		free(ga);
		free(gb);
	}
	cm_deck_free(a);
	cm_deck_free(b);
	/* the cap exactly, one past it, no start copy, no tile */
	for (size_t i = 0; i < n; i++)
		counts[i] = 0;
	counts[start] = CM_DECK_MAX_TILES - 7;
	counts[start == 0 ? 1 : 0] = 7;
	b = NULL;
	assert_int_equal(cm__deck_recount(fx.deck, counts, NULL, &b), 0);
	assert_int_equal(cm_deck_total(b), CM_DECK_MAX_TILES);
	cm_deck_free(b);
	counts[start == 0 ? 1 : 0] = 8;
	b = NULL;
	assert_int_equal(cm__deck_recount(fx.deck, counts, NULL, &b), CM_ELIMIT);
	assert_null(b);
	counts[start] = 0;
	assert_int_equal(cm__deck_recount(fx.deck, counts, NULL, &b), CM_EINVAL);
	counts[start == 0 ? 1 : 0] = 0;
	counts[start] = -3; /* negative counts are none */
	assert_int_equal(cm__deck_recount(fx.deck, counts, NULL, &b), CM_EINVAL);
	assert_null(b);
	free(types);
	free(counts);
	util_fixture_unload(&fx);
}

static void test_board__deck_counts_and_errors(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	assert_int_equal(cm_deck_total(fx.deck), 114);
	int d = cm_deck_find(fx.deck, "D");
	assert_true(d >= 0);
	assert_int_equal(cm_deck_start(fx.deck), d);
	assert_int_equal(cm_deck_count(fx.deck, (size_t)d), 4);
	assert_int_equal(cm_deck_count(fx.deck, (size_t)cm_deck_find(fx.deck, "E")), 4); /* C2 */
	const cm_map *m0 = fx.scn->map;
	cm_map_builder *mb = util_from(m0);
	cm_rules ru = *cm_map_rules(m0);
	ru.edition = CM_EDITION_C1;
	cm_map_builder_set_rules(mb, &ru);
	cm_map *m = util_finish(mb);
	cm_deck *k = NULL;
	assert_int_equal(cm_deck_build(m, (const cm_tileset *const *)fx.scn->sets, fx.scn->n_sets, NULL, &k), 0);
	assert_int_equal(cm_deck_count(k, (size_t)cm_deck_find(k, "E")), 5);
	assert_int_equal(cm_deck_find(k, "Eg") >= 0 ? cm_deck_count(k, (size_t)cm_deck_find(k, "Eg")) : 0, 0);
	assert_int_equal(cm_deck_total(k), 114);
	assert_true(cm_deck_hash(k) != cm_deck_hash(fx.deck));
	cm_deck_free(k);
	cm_map_free(m);
	/* explicit count replaces the set's */
	m = util_with_deck_entry(m0, 0, NULL, "U", 2);
	cm_diags *dg = NULL;
	assert_int_equal(cm_diags_new(&dg), 0);
	assert_int_equal(cm_deck_build(m, (const cm_tileset *const *)fx.scn->sets, fx.scn->n_sets, dg, &k), 0);
	assert_int_equal(cm_deck_total(k), 2 + 18 + 24);
	assert_int_equal(cm_deck_start(k), -1);
	cm_deck_free(k);
	cm_map *m2 = util_with_deck_entry(m, 0, NULL, "nope", 2);
	cm_map_free(m);
	assert_int_equal(cm_deck_build(m2, (const cm_tileset *const *)fx.scn->sets, fx.scn->n_sets, dg, &k),
	                 CM_EINVAL);
	assert_null(k);
	const cm_deck_entry *e1 = cm_map_deck_entry(m2, 1);
	m = util_with_deck_entry(m2, 1, "no-such-set", e1->tile, e1->count);
	cm_map_free(m2);
	assert_int_equal(cm_deck_build(m, (const cm_tileset *const *)fx.scn->sets, fx.scn->n_sets, dg, &k),
	                 CM_EINVAL);
	/* every problem is reported, not only the first */
	assert_int_equal(cm_diags_errors(dg), 3);
	assert_non_null(strstr(cm_diags_get(dg, 0)->message, "nope"));
	assert_non_null(strstr(cm_diags_get(dg, 1)->message, "nope"));
	assert_non_null(strstr(cm_diags_get(dg, 2)->message, "no-such-set"));
	assert_non_null(strstr(cm_diags_get(dg, 2)->where, "deck entry 2"));
	cm_diags_free(dg);
	cm_map_free(m);
	util_fixture_unload(&fx);
}

/* Bad replays: a wrong header, a bad line, another map. */
/* A replay line of 24 words is read (and said unknown); 25 words are
 * "too many fields" (replay.c MAX_TOK). */
static void test_board__replay_line_words_on_both_sides(void **state)
{
	(void)state;
	for (int over = 0; over < 2; over++) {
		char text[512] = "carcamap-replay 1\nmap x 00000000000000ff\ndeck 1\nplayers 2\nseed 1\nfrobnicate";
		for (int i = 1; i < 24 + over; i++)
			strcat(text, " w");
		strcat(text, "\n");
		FILE *f = fmemopen(text, strlen(text), "r");
		assert_non_null(f);
		cm_diags *d = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_replay *r = NULL;
		assert_int_equal(cm_replay_read(f, "words", d, &r), CM_EINVAL);
		fclose(f);
		assert_null(r);
		assert_int_equal(cm_diags_errors(d), 1);
		assert_non_null(strstr(cm_diags_get(d, 0)->message, over ? "too many fields" : "unknown line"));
		cm_diags_free(d);
	}
}

static void test_board__replay_errors(void **state)
{
	(void)state;
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_replay *r = NULL;
	const char *bad1 = "hello\n";
	FILE *f = fmemopen((void *)bad1, strlen(bad1), "r");
	assert_int_equal(cm_replay_read(f, "a", d, &r), CM_EFORMAT);
	fclose(f);
	const char *bad2 = "carcamap-replay 2\n";
	f = fmemopen((void *)bad2, strlen(bad2), "r");
	assert_int_equal(cm_replay_read(f, "b", d, &r), CM_EVERSION);
	fclose(f);
	const char *bad3 = "carcamap-replay 1\nmap x 00000000000000ff\ndeck 1\nplayers 2\nseed 1\n"
	                   "move 0 D 1 1 7 -\nfrobnicate\n";
	f = fmemopen((void *)bad3, strlen(bad3), "r");
	assert_int_equal(cm_replay_read(f, "c", d, &r), CM_EINVAL);
	fclose(f);
	assert_null(r);
	assert_int_equal(cm_diags_errors(d), 4);
	assert_int_equal(cm_diags_get(d, 2)->line, 6);
	assert_int_equal(cm_diags_get(d, 3)->line, 7);
	/* a good replay on another map */
	util_fixture fx = util_fixture_load("tests/bench/map120.scn"), fy = util_fixture_load("tests/scenarios/islands.map");
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 3, 0, NULL, &b), 0);
	cm_replay *rp = NULL;
	assert_int_equal(cm_replay_from_board(b, &rp), 0);
	cm_board *b2 = NULL;
	assert_int_equal(cm_board_replay(fy.scn->map, fy.deck, rp, d, &b2), CM_EINVAL);
	assert_null(b2);
	cm_replay_free(rp);
	cm_board_free(b);
	util_fixture_unload(&fx);
	util_fixture_unload(&fy);
	cm_diags_free(d);
}

/* cm_board_spots_if (asked without placing) says what placing and then
 * cm_board_spots says, for every legal placement of several tile types
 * on board states along random games (wagons on, so wagon spots and
 * waiting wagons count too), on boards with ferries, prints, big cities
 * and islands; the board asked is left as it was. The reference is a
 * board played back to the same state, placed on, and asked. */
static void spots_if_agrees(const char *path, uint64_t seed)
{
	util_fixture fx = util_fixture_load(path);
	cm_rules ru = *cm_map_rules(fx.scn->map);
	ru.wagons = true;
	cm_board *g = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, &ru, 3, seed, 0, NULL, &g), 0);
	cm_rng rng;
	cm_rng_seed(&rng, seed);
	assert_int_equal(cm_board_play_random(g, &rng), 0);
	cm_replay *r = NULL;
	assert_int_equal(cm_replay_from_board(g, &r), 0);
	cm_board_free(g);
	size_t compared = 0, refused = 0;
	for (size_t cut = 0; cut < r->n_moves; cut += 5) {
		cm_replay c = *r;
		c.n_moves = cut;
		c.finished = false;
		cm_board *b = NULL;
		if (cm_board_replay(fx.scn->map, fx.deck, &c, NULL, &b) != 0)
			continue; /* cut inside a turn the format keeps whole */
		char *before = util_replay_text(b);
		for (size_t t = cut % 3; t < cm_deck_types(fx.deck); t += 4) {
			cm_placement pl[1024];
			size_t n = cm_board_placements(b, (int)t, pl, 1024);
			assert_true(n <= 1024);
			for (size_t i = 0; i < n; i++) {
				cm_board *ref = NULL;
				assert_int_equal(cm_board_replay(fx.scn->map, fx.deck, &c, NULL, &ref), 0);
				int prc = cm_board_place(ref, (int)t, pl[i].x, pl[i].y, pl[i].rot);
				for (int k = 0; k < 2; k++) {
					cm_follower_kind kind = k ? CM_FOLLOWER_WAGON : CM_FOLLOWER_MEEPLE;
					int got[CM_MAX_FEATURES], want[CM_MAX_FEATURES];
					int ng = cm_board_spots_if(b, (int)t, pl[i].x, pl[i].y, pl[i].rot, kind, got,
					                           CM_MAX_FEATURES);
					if (prc) {
						assert_int_equal(ng, prc);
						refused++;
						continue;
					}
					size_t nw = cm_board_spots(ref, kind, want, CM_MAX_FEATURES);
					assert_int_equal(ng, (int)nw);
					assert_memory_equal(got, want, nw * sizeof *want);
					compared++;
				}
				cm_board_free(ref);
			}
			/* a placement cm_board_place refuses is refused alike */
			if (n) {
				int rot = (pl[0].rot + 1) % 4;
				bool legal = cm_board_legal(b, (int)t, pl[0].x, pl[0].y, rot);
				int rc = cm_board_spots_if(b, (int)t, pl[0].x, pl[0].y, rot, CM_FOLLOWER_MEEPLE, NULL, 0);
				if (!legal)
					assert_int_equal(rc, CM_EINVAL);
				assert_int_equal(cm_board_spots_if(b, (int)t, -1, 0, 0, CM_FOLLOWER_MEEPLE, NULL, 0), CM_EINVAL);
			}
		}
		char *after = util_replay_text(b);
		assert_string_equal(before, after);
		free(before);
		free(after);
		cm_board_free(b);
	}
	assert_true(compared > 500);
	print_message("spots_if %s: %zu answers compared, %zu refusals\n", path, compared, refused);
	cm_replay_free(r);
	util_fixture_unload(&fx);
}

static void test_board__spots_if_equals_place_then_spots(void **state)
{
	(void)state;
	spots_if_agrees("tests/bench/map120.scn", 1); /* a field joined twice through one neighbour */
	spots_if_agrees("tests/bench/map120.scn", 7);
	spots_if_agrees("tests/scenarios/islands.map", 11);
}

/* The board trusts the map: a model that breaks an index the board
 * follows is never built. The builder refuses an out-of-range side or
 * island index at once, its finish a ferry end or big-city piece off the
 * grid; a partial map (a descriptor's, with errors) is refused by the
 * board itself. */
static void test_board__broken_model_never_reaches_the_board(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	const cm_map *m = fx.scn->map;
	for (int c = 0; c < 4; c++) {
		cm_map_builder *b = util_from(m);
		const char *want = NULL;
		if (c == 0) {
			cm_ferry f = { .x1 = 0, .y1 = 4, .s1 = CM_W, .x2 = cm_map_cols(m), .y2 = 4, .s2 = CM_E };
			assert_int_equal(cm_map_builder_add_ferry(b, &f), 0);
			want = "outside the";
		} else if (c == 1) {
			cm_ferry f = { .x1 = 0, .y1 = 4, .s1 = CM_W, .x2 = 0, .y2 = 5, .s2 = (cm_side)7 };
			assert_int_equal(cm_map_builder_add_ferry(b, &f), CM_EINVAL);
		} else if (c == 2) {
			assert_true(cm_map_bigcity_count(m) > 0 && cm_map_bigcity(m, 0)->n_pieces > 0);
			assert_int_equal(cm_map_builder_add_piece(b, 0, -1, 0, &cm_map_bigcity(m, 0)->pieces[0].tile), 0);
			want = "outside the";
		} else {
			cm_square q = *cm_map_at(m, 0, 4);
			q.kind = CM_SQ_ISLAND;
			q.island = (int)cm_map_island_count(m); /* one past the last */
			assert_int_equal(cm_map_builder_set_square(b, 0, 4, &q), CM_EINVAL);
		}
		cm_diags *d = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_map *out = NULL;
		int rc = cm_map_builder_finish(b, NULL, NULL, d, &out);
		if (want) {
			assert_int_equal(rc, CM_EINVAL);
			assert_null(out);
			assert_non_null(strstr(cm_diags_get(d, 0)->message, want));
		} else { /* refused at once: the builder kept the map as it was */
			assert_int_equal(rc, 0);
			assert_true(cm_map_equal(out, m));
		}
		cm_map_free(out);
		cm_diags_free(d);
	}
	/* a partial map */
	cm_map *partial = NULL;
	assert_int_equal(cm__map_builder_finish(util_from(m), NULL, NULL, NULL, CM__FINISH_REFUSED | CM__FINISH_PARTIAL,
	                                        &partial), CM_EINVAL);
	assert_true(cm_map_partial(partial));
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_board *g = NULL;
	assert_int_equal(cm_board_new(partial, fx.deck, NULL, 2, 1, 0, d, &g), CM_EINVAL);
	assert_null(g);
	assert_non_null(strstr(cm_diags_get(d, 0)->message, "partial"));
	cm_diags_free(d);
	cm_map_free(partial);
	util_fixture_unload(&fx);
}

/* Exactly CM_BOARD_MAX_LINKS ferries (each between two sides no other
 * ferry uses, on a 200 x 200 land map) make a board; test_board__large_indices
 * refuses one more. */
static void test_board__ferries_at_the_limit(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	enum { W = 200 };
	cm_map_builder *mb = util_builder(W, W);
	util_id_set(mb, "links", NULL);
	for (int y = 0; y < W; y++)
		for (int x = 0; x < W; x++)
			util_kind_set(mb, x, y, x == 0 && y == 0 ? CM_SQ_START : CM_SQ_LAND);
	util_setup_starts(mb, 1);
	for (int i = 0; i < CM_BOARD_MAX_LINKS; i++) {
		int half = W * W / 2, j = i % half; /* squares 2j and 2j + 1, their north sides, then their south */
		cm_side e = i < half ? CM_N : CM_S;
		cm_ferry f = { .x1 = 2 * j % W, .y1 = 2 * j / W, .s1 = e, .x2 = (2 * j + 1) % W, .y2 = (2 * j + 1) / W, .s2 = e };
		assert_int_equal(cm_map_builder_add_ferry(mb, &f), 0);
	}
	cm_map *m = util_finish(mb);
	assert_int_equal(cm_map_ferry_count(m), CM_BOARD_MAX_LINKS);
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_board *b = NULL;
	if (cm_board_new(m, fx.deck, NULL, 2, 1, 0, d, &b)) {
		char *t = util_diags_text(d);
		fail_msg("%d ferries refused:\n%.2000s", CM_BOARD_MAX_LINKS, t);
	}
	cm_board_free(b);
	cm_diags_free(d);
	cm_map_free(m);
	util_fixture_unload(&fx);
}

/* Indices the board keeps per square hold every count the model allows:
 * an island index past 32767 stays that island; more big cities or ferries
 * than the board's per-side indices take are refused, not wrapped. */
static void test_board__large_indices(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	const cm_map *m0 = fx.scn->map;
	cm_map_builder *mb = util_from(m0);
	char name[32];
	for (size_t i = cm_map_island_count(m0); i < 40000; i++) {
		snprintf(name, sizeof name, "isle-%zu", i);
		util_island_add(mb, name, NULL);
	}
	int s = -1;
	for (int i = 0; i < cm_map_cols(m0) * cm_map_rows(m0) && s < 0; i++)
		if (cm_map_squares(m0)[i].kind == CM_SQ_LAND)
			s = i;
	assert_true(s >= 0);
	cm_square q = cm_map_squares(m0)[s];
	q.kind = CM_SQ_ISLAND;
	q.island = 39999;
	util_square_set(mb, s % cm_map_cols(m0), s / cm_map_cols(m0), &q);
	cm_map *m = util_finish(mb);
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(m, fx.deck, NULL, 2, 1, 0, NULL, &b), 0);
	assert_int_equal(cm__layout_island(cm__board_layout(b), s), 39999);
	cm_board_free(b);
	cm_map_free(m);

	mb = util_from(m0);
	for (size_t i = 0; i <= CM_BOARD_MAX_LINKS; i++) {
		cm_ferry f = { .x1 = 0, .y1 = 0, .s1 = CM_W, .x2 = 1, .y2 = 0, .s2 = CM_E };
		assert_int_equal(cm_map_builder_add_ferry(mb, &f), 0);
	}
	m = util_finish(mb);
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_board_new(m, fx.deck, NULL, 2, 1, 0, d, &b), CM_ELIMIT);
	assert_null(b);
	assert_non_null(strstr(cm_diags_get(d, cm_diags_count(d) - 1)->message, "32767"));
	cm_diags_free(d);
	cm_map_free(m);
	util_fixture_unload(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_board__rng_range_and_determinism),
		cmocka_unit_test(test_board__deck_counts_and_errors),
		cmocka_unit_test(test_board__deck_limit_on_both_sides),
		cmocka_unit_test(test_board__deck_recount_is_from_types),
		cmocka_unit_test(test_board__random_play_stats),
		cmocka_unit_test(test_board__same_seed_same_game),
		cmocka_unit_test(test_board__replay_errors),
		cmocka_unit_test(test_board__replay_line_words_on_both_sides),
		cmocka_unit_test(test_board__broken_model_never_reaches_the_board),
		cmocka_unit_test(test_board__large_indices),
		cmocka_unit_test(test_board__ferries_at_the_limit),
		cmocka_unit_test(test_board__spots_if_equals_place_then_spots),
		cmocka_unit_test(test_board__properties_map120),
		cmocka_unit_test(test_board__properties_islands),
		cmocka_unit_test(test_board__properties_sample_xml),
		cmocka_unit_test(test_board__layout_in_stages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
