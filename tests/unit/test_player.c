/* SPDX-License-Identifier: MIT */
/* test_player.c: the player interface (carcamap/player.h): the random
 * player asked one choice at a time plays random play's games exactly
 * (wagons, abbeys, both editions, 2 to 6 seats); player specs; choices
 * checked whole before the board changes; a client's own player, written
 * against the public API, plugs into the driver (also one that ignores the
 * abbey question); the abbey is asked for before the draw, the tile on top
 * unseen; an illegal choice stops the game with a diagnostic; games with
 * players are the same for every number of jobs; mcts plays the same
 * games for a seed and every number of jobs, legal choices with wagons and
 * abbeys, and advises its choice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "util_board.h"
#include "carcamap/player.h"
#include "carcamap/play.h"
#include "carcamap/stats.h"
#include "engine/board_int.h" /* the pile's order, to change the tile on top */

/* A client's player that asks another player: the driver cannot tell it
 * is random underneath, so it takes the general path (the choice asked
 * and checked, then played) and not random play's. */
typedef struct {
	cm_player base;
	cm_player *inner;
	long asked, wagons, abbeys; /* all questions, wagon ones, abbey questions (no tile shown) */
} wrapper;

static int wrapper_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	wrapper *w = (wrapper *)self;
	w->asked++;
	w->wagons += cm_board_wagon_pending(b, NULL) > 0;
	w->abbeys += tile < 0 && !cm_board_wagon_pending(b, NULL);
	return cm_player_choose(w->inner, b, tile, rng, out);
}

static void wrapper_free(cm_player *self)
{
	wrapper *w = (wrapper *)self;
	cm_player_free(w->inner);
	free(w);
}

static cm_player *wrap(cm_player *inner)
{
	wrapper *w = calloc(1, sizeof *w);
	assert_non_null(w);
	w->base.choose = wrapper_choose;
	w->base.free = wrapper_free;
	w->base.name = "wrapped";
	w->inner = inner;
	return &w->base;
}

/* Games on fx's map with random play and with wrapped random seats, from
 * the same seeds: the same replays, scores and statistics (the abbey
 * question before the draw takes random play's draws for its step 1).
 * Returns the wrapper's counts of wagon and abbey questions, summed. */
static long same_games(const util_fixture *fx, cm_edition ed, int players, int games)
{
	cm_rules ru = *cm_map_rules(fx->scn->map);
	ru.edition = ed;
	cm_board *a = NULL, *b = NULL;
	assert_int_equal(cm_board_new(fx->scn->map, fx->deck, &ru, players, 5, 0, NULL, &a), 0);
	assert_int_equal(cm_board_new(fx->scn->map, fx->deck, &ru, players, 5, 0, NULL, &b), 0);
	cm_player *random = NULL;
	assert_int_equal(cm_player_new_random(&random), 0);
	cm_player *w = wrap(random);
	cm_player *seats[CM_MAX_PLAYERS];
	for (int p = 0; p < players; p++)
		seats[p] = w;
	for (int g = 0; g < games; g++) {
		uint64_t seed = 500 + (uint64_t)g * 7;
		assert_int_equal(cm_board_reset(a, seed, NULL), 0);
		assert_int_equal(cm_board_reset(b, seed, NULL), 0);
		cm_rng ra, rb;
		cm_rng_seed(&ra, ~seed);
		cm_rng_seed(&rb, ~seed);
		assert_int_equal(cm_board_play_random(a, &ra), 0);
		assert_int_equal(cm_board_play(b, seats, &rb, NULL), 0);
		char *ta = util_replay_text(a), *tb = util_replay_text(b);
		assert_string_equal(ta, tb);
		free(ta);
		free(tb);
		assert_memory_equal(cm_board_stats(a), cm_board_stats(b), sizeof(cm_game_stats));
		/* and the generators are left in the same state */
		assert_true(cm_rng_next(&ra) == cm_rng_next(&rb));
	}
	wrapper *wr = (wrapper *)w;
	assert_true(wr->asked > 0);
	long special = wr->wagons * 1000 + wr->abbeys;
	cm_player_free(w);
	cm_board_free(a);
	cm_board_free(b);
	return special;
}

static void test_player__random_is_random_play(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	for (int players = 2; players <= 6; players += 2)
		same_games(&fx, CM_EDITION_C2, players, 20);
	util_fixture_unload(&fx);
}

/* Abbeys (before the draw and after the last tile) and wagon moves, C2
 * and C1 (whose destinations differ). */
static void test_player__random_is_random_play_with_wagons_and_abbeys(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	long n = same_games(&fx, CM_EDITION_C2, 2, 30) + same_games(&fx, CM_EDITION_C1, 3, 30) +
	         same_games(&fx, CM_EDITION_C2, 6, 10);
	assert_true(n / 1000 > 0); /* wagons moved */
	assert_true(n % 1000 > 0); /* abbey questions */
	util_fixture_unload(&fx);
}

static void test_player__specs(void **state)
{
	(void)state;
	cm_player_spec sp;
	assert_int_equal(cm_player_spec_parse("random", &sp), 0);
	assert_int_equal(sp.kind, CM_PLAYER_RANDOM);
	assert_int_equal(cm_player_spec_parse("greedy", &sp), 0);
	assert_int_equal(sp.kind, CM_PLAYER_GREEDY);
	assert_int_equal(cm_player_spec_parse("mcts", &sp), 0);
	assert_int_equal(sp.kind, CM_PLAYER_MCTS);
	assert_int_equal(sp.budget, 0);
	assert_int_equal(cm_player_spec_parse("mcts:1", &sp), 0);
	assert_int_equal(sp.budget, 1);
	assert_int_equal(cm_player_spec_parse("mcts:1000000", &sp), 0);
	assert_int_equal(sp.budget, CM_PLAYER_MAX_BUDGET);
	static const char *const bad_budget[] = { "mcts:0", "mcts:1000001", "mcts:", "mcts:-5", "mcts:+5",
		                                  "mcts:5x", "mcts: 5", "mcts:99999999999999999999" };
	for (size_t i = 0; i < sizeof bad_budget / sizeof bad_budget[0]; i++)
		assert_int_equal(cm_player_spec_parse(bad_budget[i], &sp), CM_EINVAL);
	static const char *const unknown[] = { "", "Random", "greedy:5", "random:1", "mct", "mctsx:5", "minimax",
		                               " random", "2" };
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
		assert_int_equal(cm_player_spec_parse(unknown[i], &sp), CM_ENOTFOUND);
	cm_player *p = NULL;
	assert_int_equal(cm_player_new_from_spec("random", &p), 0);
	assert_string_equal(p->name, "random");
	cm_player_free(p);
	assert_int_equal(cm_player_new_from_spec("mcts:30", &p), 0);
	assert_string_equal(p->name, "mcts:30");
	cm_player_free(p);
	assert_int_equal(cm_player_new_from_spec("mcts", &p), 0);
	assert_string_equal(p->name, "mcts");
	cm_player_free(p);
	assert_int_equal(cm_player_new_mcts(-1, &p), CM_EINVAL);
	assert_null(p);
	assert_int_equal(cm_player_new_mcts(CM_PLAYER_MAX_BUDGET + 1L, &p), CM_EINVAL);
	assert_null(p);
	assert_int_equal(cm_player_new_from_spec("nobody", &p), CM_ENOTFOUND);
	cm_player_free(NULL);
}

/* A choice is checked whole: an illegal one changes nothing. */
static void test_player__apply_checks_first(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 9, 0, NULL, &b), 0);
	int t = -1;
	assert_int_equal(cm_board_draw(b, &t), 0);
	cm_placement pl[512];
	size_t n = cm_board_placements(b, t, pl, 512);
	assert_true(n > 0 && n <= 512);
	char *before = util_replay_text(b);
	cm_choice c = { .kind = CM_CHOICE_TILE, .x = pl[0].x, .y = pl[0].y, .rot = pl[0].rot, .feature = 31 };
	assert_int_equal(cm_board_apply(b, t, &c, NULL, NULL), CM_EINVAL); /* no such feature */
	c.feature = -1;
	c.rot = (pl[0].rot + 1) % 4;
	if (!cm_board_legal(b, t, c.x, c.y, c.rot))
		assert_int_equal(cm_board_apply(b, t, &c, NULL, NULL), CM_EINVAL);
	c.kind = CM_CHOICE_PASS;
	assert_int_equal(cm_board_apply(b, t, &c, NULL, NULL), 0); /* declines an abbey: changes nothing */
	c.kind = CM_CHOICE_WAGON;
	assert_int_equal(cm_board_apply(b, t, &c, NULL, NULL), CM_EINVAL); /* no wagon waits */
	c.kind = CM_CHOICE_ABBEY;
	assert_int_equal(cm_board_apply(b, t, &c, NULL, NULL), CM_EINVAL); /* no abbey dealt */
	c.kind = (cm_choice_kind)99;
	assert_int_equal(cm_board_apply(b, t, &c, NULL, NULL), CM_EINVAL);
	char *after = util_replay_text(b);
	assert_string_equal(before, after);
	assert_int_equal(cm_board_current(b), 0);
	/* and a legal one plays the whole turn */
	int spots[CM_MAX_FEATURES];
	int k = cm_board_spots_if(b, t, pl[0].x, pl[0].y, pl[0].rot, CM_FOLLOWER_MEEPLE, spots, CM_MAX_FEATURES);
	assert_true(k > 0);
	c = (cm_choice){ .kind = CM_CHOICE_TILE, .x = pl[0].x, .y = pl[0].y, .rot = pl[0].rot, .feature = spots[0] };
	const cm_score_item *items = NULL;
	size_t ni = 99;
	assert_int_equal(cm_board_apply(b, t, &c, &items, &ni), 0);
	assert_int_equal(cm_board_current(b), 1);
	assert_int_equal(cm_board_supply(b, 0), 8);
	/* while a turn is open (placed, not ended) nothing is declined */
	assert_int_equal(cm_board_draw(b, &t), 0);
	assert_true(cm_board_placements(b, t, pl, 1) > 0);
	assert_int_equal(cm_board_place(b, t, pl[0].x, pl[0].y, pl[0].rot), 0);
	c = (cm_choice){ .kind = CM_CHOICE_PASS, .feature = -1 };
	assert_int_equal(cm_board_apply(b, t, &c, NULL, NULL), CM_EINVAL);
	free(before);
	free(after);
	cm_board_free(b);
	util_fixture_unload(&fx);
}

/* A client's player with the public API alone: the first legal placement
 * (row-major), a meeple on its first spot while it holds four or more. */
static int first_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	(void)self;
	(void)rng;
	memset(out, 0, sizeof *out);
	out->feature = -1;
	if (cm_board_wagon_pending(b, NULL)) {
		out->kind = CM_CHOICE_WAGON; /* back to the supply */
		return 0;
	}
	if (tile < 0) {
		out->kind = CM_CHOICE_PASS;
		return 0;
	}
	cm_placement p;
	if (cm_board_placements(b, tile, &p, 1) == 0)
		return CM_EINTERNAL; /* a drawn tile has one */
	out->kind = CM_CHOICE_TILE;
	out->x = p.x;
	out->y = p.y;
	out->rot = p.rot;
	int spots[CM_MAX_FEATURES];
	if (cm_board_supply(b, cm_board_current(b)) >= 4 &&
	    cm_board_spots_if(b, tile, p.x, p.y, p.rot, CM_FOLLOWER_MEEPLE, spots, CM_MAX_FEATURES) > 0)
		out->feature = spots[0];
	return 0;
}

/* A player that always answers with a placement off the board. */
static int bad_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	(void)self;
	(void)b;
	(void)tile;
	(void)rng;
	*out = (cm_choice){ .kind = CM_CHOICE_TILE, .x = -3, .y = 0, .feature = -1 };
	return 0;
}

static void test_player__client_player_plugs_in(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	cm_player first = { .choose = first_choose, .name = "first" };
	cm_player *random = NULL;
	assert_int_equal(cm_player_new_random(&random), 0);
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 3, 0, NULL, &b), 0);
	cm_player *seats[2] = { &first, random };
	cm_rng rng;
	cm_rng_seed(&rng, 3);
	assert_int_equal(cm_board_play(b, seats, &rng, NULL), 0);
	assert_true(cm_board_stats(b)->tiles_placed > 50);
	assert_int_equal(cm_board_play(b, seats, &rng, NULL), CM_EINVAL); /* scored already */
	/* its replay plays back */
	cm_board *again = util_replay_again(&fx, b);
	cm_board_free(again);
	/* an illegal choice stops the game and says who */
	cm_player bad = { .choose = bad_choose, .name = "bad" };
	cm_player *seats2[2] = { random, &bad };
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_board_reset(b, 4, NULL), 0);
	assert_int_equal(cm_board_play(b, seats2, &rng, d), CM_EINVAL);
	assert_int_equal(cm_diags_errors(d), 1);
	assert_non_null(strstr(cm_diags_get(d, 0)->message, "player 1 (bad) chose an illegal tile move"));
	cm_diags_free(d);
	cm_board_free(b);
	cm_player_free(random);
	util_fixture_unload(&fx);
}

/* A spy around a player: it records what the player was shown, checks
 * that a seat holding an abbey some square takes is asked for it before
 * it sees a tile, and that the answer is the same with another tile on
 * top of the pile (the player cannot see it). */
typedef struct {
	cm_player base;
	cm_player *inner;
	long before, placed, swapped, tiles, tiles_holding;
	int asked_pile, asked_player; /* the last abbey question declined: pile and player */
} spy;

static int spy_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	spy *s = (spy *)self;
	int me = cm_board_current(b);
	bool holds = cm_board_abbeys(b, me) > 0 && cm_board_abbey_squares(b, NULL, 0) > 0;
	if (cm_board_wagon_pending(b, NULL))
		return cm_player_choose(s->inner, b, tile, rng, out);
	if (tile >= 0) {
		/* a tile shown: the abbey was asked for first and declined */
		s->tiles++;
		if (holds) {
			s->tiles_holding++;
			assert_int_equal(s->asked_pile, cm_board_pile(b));
			assert_int_equal(s->asked_player, me);
		}
		s->asked_pile = -1;
		int rc = cm_player_choose(s->inner, b, tile, rng, out);
		assert_int_equal(out->kind, CM_CHOICE_TILE);
		return rc;
	}
	assert_true(holds);
	if (cm_board_pile(b) == 0) /* after the last tile */
		return cm_player_choose(s->inner, b, tile, rng, out);
	s->before++;
	/* the same question with another tile on top (one some square takes) */
	cm_board *c = NULL;
	assert_int_equal(cm_board_copy(b, &c), 0);
	for (int j = c->pile_top + 1; j < c->pile_n; j++) {
		if (c->pile[j] == c->pile[c->pile_top] || !cm_board_placements(c, c->pile[j], NULL, 0))
			continue;
		uint8_t t = c->pile[j];
		c->pile[j] = c->pile[c->pile_top];
		c->pile[c->pile_top] = t;
		s->swapped++;
		break;
	}
	cm_rng r2 = *rng;
	cm_choice other;
	assert_int_equal(cm_player_choose(s->inner, c, -1, &r2, &other), 0);
	cm_board_free(c);
	int rc = cm_player_choose(s->inner, b, tile, rng, out);
	assert_int_equal(rc, 0);
	assert_true(out->kind == CM_CHOICE_ABBEY || out->kind == CM_CHOICE_PASS);
	assert_true(other.kind == out->kind && other.x == out->x && other.y == out->y && other.feature == out->feature);
	s->placed += out->kind == CM_CHOICE_ABBEY;
	s->asked_pile = out->kind == CM_CHOICE_PASS ? cm_board_pile(b) : -1;
	s->asked_player = me;
	return 0;
}

static void spy_free(cm_player *self)
{
	cm_player_free(((spy *)self)->inner);
	free(self);
}

static spy *new_spy(const char *spec)
{
	spy *s = calloc(1, sizeof *s);
	assert_non_null(s);
	assert_int_equal(cm_player_new_from_spec(spec, &s->inner), 0);
	s->base = (cm_player){ .choose = spy_choose, .free = spy_free, .name = "spy" };
	s->asked_pile = -1;
	return s;
}

/* The abbey is decided before the draw, without the tile: greedy and
 * random seats are asked with no tile, answer the same whatever tile is
 * on top, and see a tile only after declining; greedy places abbeys
 * before the draw. */
static void test_player__abbey_before_the_draw_unseen(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	spy *g = new_spy("greedy"), *r = new_spy("random");
	cm_player *seats[3] = { &g->base, &r->base, &g->base };
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 3, 1, 0, NULL, &b), 0);
	for (int game = 0; game < 6; game++) {
		cm_rng rng;
		cm_rng_seed(&rng, 70 + (uint64_t)game);
		assert_int_equal(cm_board_reset(b, 70 + (uint64_t)game, NULL), 0);
		assert_int_equal(cm_board_play(b, seats, &rng, NULL), 0);
	}
	print_message("greedy: %ld abbey questions before a draw, %ld abbeys placed; random: %ld, %ld\n", g->before,
	              g->placed, r->before, r->placed);
	assert_true(g->before > 0 && g->placed > 0 && r->before > 0 && g->swapped > 0);
	assert_true(g->tiles_holding > 0 && g->tiles > 0);
	cm_board_free(b);
	cm_player_free(&g->base);
	cm_player_free(&r->base);
	util_fixture_unload(&fx);
}

/* A client's player that does not answer the abbey question (it leaves
 * the choice as it finds it) declines it: it draws, and keeps its abbey
 * after the last tile. */
static int lazy_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	if (tile < 0 && !cm_board_wagon_pending(b, NULL))
		return 0;
	return first_choose(self, b, tile, rng, out);
}

static void test_player__client_player_ignores_the_abbey(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	cm_player lazy = { .choose = lazy_choose, .name = "lazy" };
	cm_player *random = NULL;
	assert_int_equal(cm_player_new_random(&random), 0);
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 3, 0, NULL, &b), 0);
	cm_player *seats[2] = { random, &lazy };
	cm_rng rng;
	cm_rng_seed(&rng, 3);
	assert_int_equal(cm_board_play(b, seats, &rng, NULL), 0);
	assert_true(cm_board_stats(b)->tiles_placed > 50);
	assert_int_equal(cm_board_abbeys(b, 1), 1);
	cm_board_free(b);
	cm_player_free(random);
	util_fixture_unload(&fx);
}

/* cm_play_run with players: the same figures for every number of jobs,
 * and random specs give cm_play_games' figures. */
static void test_player__play_run_jobs(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	static const char *const specs[] = { "random", "random", "random" };
	cm_play_opts o;
	cm_play_opts_init(&o);
	o.seats = 3;
	o.players = specs;
	o.seed = 40;
	o.games = 13;
	cm_play_stats *one = NULL, *base = NULL;
	assert_int_equal(cm_play_run(fx.scn->map, fx.deck, &o, NULL, &one), 0);
	assert_int_equal(cm_play_games(fx.scn->map, fx.deck, NULL, 3, 40, 13, NULL, NULL, NULL, &base), 0);
	assert_memory_equal(one->scores, base->scores, sizeof one->scores);
	assert_memory_equal(one->wins, base->wins, sizeof one->wins);
	int won = 0;
	for (int p = 0; p < 3; p++) {
		won += one->seat_wins[p] - one->seat_ties[p];
		assert_true(cm_play_stats_sd(one, p) > 0);
	}
	assert_int_equal(won + one->ties, 13);
	for (int jobs = 2; jobs <= 5; jobs += 3) {
		cm_play_stats *s = NULL;
		o.jobs = jobs;
		assert_int_equal(cm_play_run(fx.scn->map, fx.deck, &o, NULL, &s), 0);
		assert_memory_equal(one->scores, s->scores, sizeof one->scores);
		assert_memory_equal(one->scores_sq, s->scores_sq, sizeof one->scores_sq);
		assert_memory_equal(one->seat_wins, s->seat_wins, sizeof one->seat_wins);
		assert_memory_equal(one->seat_ties, s->seat_ties, sizeof one->seat_ties);
		cm_play_stats_free(s);
	}
	/* a spec that names no player */
	static const char *const bad[] = { "random", "minimax", "random" };
	o.players = bad;
	cm_diags *d = NULL;
	cm_play_stats *s = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_play_run(fx.scn->map, fx.deck, &o, d, &s), CM_ENOTFOUND);
	assert_null(s);
	assert_true(cm_diags_errors(d) >= 1);
	cm_diags_free(d);
	cm_play_stats_free(one);
	cm_play_stats_free(base);
	util_fixture_unload(&fx);
}

/* Replays record who played each seat, and read it back; bad player
 * lines are refused with their line. */
static void test_player__replay_players(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 3, 9, 0, NULL, &b), 0);
	assert_int_equal(cm_play_game(b, 9, NULL), 0);
	cm_replay *r = NULL;
	assert_int_equal(cm_replay_from_board(b, &r), 0);
	static const char *const bad[] = { "random", "two words", NULL };
	static const char *const hash[] = { "a#b", NULL, NULL };
	static const char *const names[] = { "random", NULL, "mcts:40" };
	assert_int_equal(cm_replay_set_players(r, bad), CM_EINVAL);
	assert_int_equal(cm_replay_set_players(r, hash), CM_EINVAL);
	assert_null(r->seat_players[0]);
	/* a name of CM_REPLAY_NAME_MAX bytes is taken, one more is not */
	char longest[CM_REPLAY_NAME_MAX + 2];
	memset(longest, 'n', CM_REPLAY_NAME_MAX + 1);
	longest[CM_REPLAY_NAME_MAX + 1] = 0;
	const char *over[] = { longest, NULL, NULL };
	assert_int_equal(cm_replay_set_players(r, over), CM_EINVAL);
	longest[CM_REPLAY_NAME_MAX] = 0;
	assert_int_equal(cm_replay_set_players(r, over), 0);
	assert_int_equal(strlen(r->seat_players[0]), CM_REPLAY_NAME_MAX);
	assert_int_equal(cm_replay_set_players(r, names), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(cm_replay_write(r, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "\nplayers 3\nplayer 0 random\nplayer 2 mcts:40\nseed 9\n"));
	f = fmemopen(text, len, "r");
	cm_replay *back = NULL;
	assert_int_equal(cm_replay_read(f, "r.txt", NULL, &back), 0);
	fclose(f);
	assert_string_equal(back->seat_players[0], "random");
	assert_null(back->seat_players[1]);
	assert_string_equal(back->seat_players[2], "mcts:40");
	cm_replay_free(back);
	free(text);
	static const char *const wrong[] = {
		"carcamap-replay 1\nmap x 0000000000000000\nplayers 2\nplayer 0 a\nplayer 0 b\n",
		"carcamap-replay 1\nmap x 0000000000000000\nplayers 2\nplayer 2 a\n",
		"carcamap-replay 1\nmap x 0000000000000000\nplayers 2\nplayer 6 a\n",
		"carcamap-replay 1\nmap x 0000000000000000\nplayers 2\nplayer 0\n",
	};
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		cm_diags *d = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		f = fmemopen((void *)wrong[i], strlen(wrong[i]), "r");
		assert_int_equal(cm_replay_read(f, "w.txt", d, &back), CM_EINVAL);
		fclose(f);
		assert_null(back);
		assert_true(cm_diags_errors(d) == 1);
		cm_diags_free(d);
	}
	cm_replay_free(r);
	cm_board_free(b);
	util_fixture_unload(&fx);
}

/* Greedy against random on the benchmark board, seats alternated: it
 * wins (nearly) every game; the same seeds give the same games. */
static void test_player__greedy_beats_random(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	static const char *const gr[] = { "greedy", "random" }, *const rg[] = { "random", "greedy" };
	cm_play_opts o;
	cm_play_opts_init(&o);
	o.seed = 77;
	o.games = 20;
	cm_play_stats *a = NULL, *b = NULL;
	o.players = gr;
	assert_int_equal(cm_play_run(fx.scn->map, fx.deck, &o, NULL, &a), 0);
	o.players = rg;
	assert_int_equal(cm_play_run(fx.scn->map, fx.deck, &o, NULL, &b), 0);
	int won = a->wins[0] + b->wins[1];
	print_message("greedy won %d of 40 games against random, mean %.1f to %.1f\n", won,
	              (double)(a->scores[0] + b->scores[1]) / 40, (double)(a->scores[1] + b->scores[0]) / 40);
	assert_true(won >= 38);
	/* the same for every number of jobs */
	for (int jobs = 2; jobs <= 3; jobs++) {
		cm_play_stats *c = NULL;
		o.jobs = jobs;
		assert_int_equal(cm_play_run(fx.scn->map, fx.deck, &o, NULL, &c), 0);
		assert_memory_equal(b->scores, c->scores, sizeof b->scores);
		assert_memory_equal(b->scores_sq, c->scores_sq, sizeof b->scores_sq);
		assert_memory_equal(b->fill, c->fill, (size_t)b->cols * (size_t)b->rows * sizeof *b->fill);
		cm_play_stats_free(c);
	}
	cm_play_stats_free(a);
	cm_play_stats_free(b);
	util_fixture_unload(&fx);
}

/* Greedy's choices are legal wherever the rules allow more: wagons (moves
 * and deployments), abbeys before the draw and after the last tile, both
 * editions, up to 6 seats (cm_board_play checks every choice); its games
 * replay. */
static void test_player__greedy_with_wagons_and_abbeys(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	cm_player *g = NULL, *r = NULL;
	assert_int_equal(cm_player_new_from_spec("greedy", &g), 0);
	assert_string_equal(g->name, "greedy");
	assert_int_equal(cm_player_new_random(&r), 0);
	long abbeys = 0, moves = 0, wagons = 0;
	for (int ed = 0; ed < 2; ed++) {
		cm_rules ru = *cm_map_rules(fx.scn->map);
		ru.edition = ed ? CM_EDITION_C1 : CM_EDITION_C2;
		for (int players = 2; players <= 6; players += 2) {
			cm_board *b = NULL;
			assert_int_equal(cm_board_new(fx.scn->map, fx.deck, &ru, players, 1, 0, NULL, &b), 0);
			cm_player *seats[CM_MAX_PLAYERS];
			for (int p = 0; p < players; p++)
				seats[p] = p % 2 ? r : g;
			for (int game = 0; game < 4; game++) {
				cm_rng rng;
				cm_rng_seed(&rng, (uint64_t)game);
				assert_int_equal(cm_board_reset(b, 100 + (uint64_t)game, NULL), 0);
				assert_int_equal(cm_board_play(b, seats, &rng, NULL), 0);
				const cm_game_stats *st = cm_board_stats(b);
				abbeys += st->abbeys_placed;
				moves += st->wagon_moves;
				const cm_follower *fl;
				size_t nf = cm_board_followers(b, &fl);
				for (size_t i = 0; i < nf; i++)
					wagons += fl[i].kind == CM_FOLLOWER_WAGON && fl[i].player % 2 == 0;
				if (game == 0)
					cm_board_free(util_replay_again(&fx, b));
			}
			cm_board_free(b);
		}
	}
	print_message("abbeys %ld, wagon moves %ld, greedy wagons left on the board %ld\n", abbeys, moves, wagons);
	assert_true(abbeys > 0 && moves > 0 && wagons > 0);
	cm_player_free(g);
	cm_player_free(r);
	util_fixture_unload(&fx);
}

/* A wrapper that checks, at every decision, that greedy's advice agrees
 * with its choice: sorted best first, the choice one of the best. */
typedef struct {
	cm_player base;
	cm_player *greedy;
	long asked;
} checker;

static bool same_choice(const cm_choice *a, const cm_choice *b)
{
	return a->kind == b->kind && a->x == b->x && a->y == b->y && a->rot == b->rot && a->feature == b->feature &&
	       (a->feature < 0 || a->follower == b->follower);
}

static int checker_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	checker *k = (checker *)self;
	static cm_advice adv[4096];
	cm_rng copy = *rng;
	int n = cm_player_advise(k->greedy, b, tile, &copy, adv, 4096);
	assert_true(n >= 1 && n <= 4096);
	for (int i = 1; i < n; i++)
		assert_true(adv[i].value <= adv[i - 1].value);
	int rc = cm_player_choose(k->greedy, b, tile, rng, out);
	assert_int_equal(rc, 0);
	bool found = false;
	for (int i = 0; i < n && adv[i].value == adv[0].value; i++)
		found |= same_choice(&adv[i].choice, out);
	assert_true(found);
	k->asked++;
	return 0;
}

static void test_player__greedy_advice_is_its_choice(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	checker k = { .base = { .choose = checker_choose, .name = "checker" } };
	assert_int_equal(cm_player_new_greedy(&k.greedy), 0);
	cm_player *r = NULL;
	assert_int_equal(cm_player_new_random(&r), 0);
	cm_advice a;
	cm_rng rng;
	cm_rng_seed(&rng, 2);
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 3, 2, 0, NULL, &b), 0);
	int t;
	assert_int_equal(cm_board_draw(b, &t), 0);
	assert_int_equal(cm_player_advise(r, b, t, &rng, &a, 1), CM_ENOTSUP);
	assert_int_equal(cm_player_advise(k.greedy, b, 9999, &rng, &a, 1), CM_EINVAL);
	cm_player *seats[3] = { &k.base, r, &k.base };
	for (int g = 0; g < 3; g++) {
		assert_int_equal(cm_board_reset(b, 40 + (uint64_t)g, NULL), 0);
		assert_int_equal(cm_board_play(b, seats, &rng, NULL), 0);
	}
	assert_true(k.asked > 100);
	cm_board_free(b);
	cm_player_free(k.greedy);
	cm_player_free(r);
	util_fixture_unload(&fx);
}

/* mcts, small budgets: the same games for a seed, once more and for every
 * number of jobs; its choices are legal wherever the rules allow more
 * (wagons, abbeys before the draw and after the last tile, both editions:
 * cm_board_play checks each), and its games replay. */
static void test_player__mcts_same_games(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	static const char *const mg[] = { "mcts:12", "greedy", "mcts:5" };
	cm_play_opts o;
	cm_play_opts_init(&o);
	o.seats = 3;
	o.players = mg;
	o.seed = 21;
	o.games = 3;
	cm_play_stats *one = NULL;
	assert_int_equal(cm_play_run(fx.scn->map, fx.deck, &o, NULL, &one), 0);
	for (int jobs = 1; jobs <= 3; jobs++) {
		cm_play_stats *s = NULL;
		o.jobs = jobs;
		assert_int_equal(cm_play_run(fx.scn->map, fx.deck, &o, NULL, &s), 0);
		assert_memory_equal(one->scores, s->scores, sizeof one->scores);
		assert_memory_equal(one->scores_sq, s->scores_sq, sizeof one->scores_sq);
		assert_memory_equal(one->seat_wins, s->seat_wins, sizeof one->seat_wins);
		assert_memory_equal(one->fill, s->fill, (size_t)one->cols * (size_t)one->rows * sizeof *one->fill);
		cm_play_stats_free(s);
	}
	cm_play_stats_free(one);
	/* one player object for two seats and both editions, with wagons and
	 * abbeys; the same replay twice */
	cm_player *m = NULL, *r = NULL;
	assert_int_equal(cm_player_new_from_spec("mcts:8", &m), 0);
	assert_int_equal(cm_player_new_random(&r), 0);
	long abbeys = 0, moves = 0;
	for (int ed = 0; ed < 2; ed++) {
		cm_rules ru = *cm_map_rules(fx.scn->map);
		ru.edition = ed ? CM_EDITION_C1 : CM_EDITION_C2;
		cm_board *b = NULL;
		assert_int_equal(cm_board_new(fx.scn->map, fx.deck, &ru, 3, 1, 0, NULL, &b), 0);
		cm_player *seats[3] = { m, r, m };
		char *first = NULL;
		for (int k = 0; k < 2; k++) {
			cm_rng rng;
			cm_rng_seed(&rng, 5 + (uint64_t)ed);
			assert_int_equal(cm_board_reset(b, 60 + (uint64_t)ed, NULL), 0);
			assert_int_equal(cm_board_play(b, seats, &rng, NULL), 0);
			char *t = util_replay_text(b);
			if (k == 0) {
				first = t;
				abbeys += cm_board_stats(b)->abbeys_placed;
				moves += cm_board_stats(b)->wagon_moves;
				cm_board_free(util_replay_again(&fx, b));
			} else {
				assert_string_equal(first, t);
				free(t);
			}
		}
		free(first);
		cm_board_free(b);
	}
	print_message("mcts games: abbeys %ld, wagon moves %ld\n", abbeys, moves);
	assert_true(abbeys > 0 && moves > 0);
	cm_player_free(m);
	cm_player_free(r);
	util_fixture_unload(&fx);
}

/* mcts's advice: the choices its playouts tried, most tried first, the
 * first its choice; visits add up to the budget; means 0 to 1. */
static void test_player__mcts_advice_is_its_choice(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	cm_player *m = NULL;
	assert_int_equal(cm_player_new_from_spec("mcts:40", &m), 0);
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 3, 0, NULL, &b), 0);
	int t, searched = 0;
	for (int turn = 0; turn < 12 && cm_board_draw(b, &t) == 0; turn++) {
		cm_advice adv[64];
		cm_choice c;
		cm_rng r1, r2;
		cm_rng_seed(&r1, 99 + (uint64_t)turn);
		r2 = r1;
		assert_int_equal(cm_player_choose(m, b, t, &r1, &c), 0);
		int n = cm_player_advise(m, b, t, &r2, adv, 64);
		assert_true(n >= 1);
		assert_true(same_choice(&adv[0].choice, &c));
		assert_true(cm_rng_next(&r1) == cm_rng_next(&r2));
		long visits = 0;
		for (int i = 0; i < n && i < 64; i++) {
			visits += adv[i].visits;
			if (adv[i].visits) {
				assert_true(adv[i].value >= 0 && adv[i].value <= 1);
				assert_true(i == 0 || adv[i].visits <= adv[i - 1].visits);
			}
		}
		assert_true(visits == 40 || (n == 1 && visits == 0));
		searched += visits > 0;
		assert_int_equal(cm_board_apply(b, t, &c, NULL, NULL), 0);
	}
	assert_true(searched > 6);
	cm_board_free(b);
	cm_player_free(m);
	util_fixture_unload(&fx);
}

static void test_player__max_seats(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/bench/map120.scn");
	assert_int_equal(cm_game_max_seats(fx.scn->map, fx.deck), CM_MAX_PLAYERS);
	util_fixture_unload(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_player__random_is_random_play),
		cmocka_unit_test(test_player__random_is_random_play_with_wagons_and_abbeys),
		cmocka_unit_test(test_player__specs),
		cmocka_unit_test(test_player__apply_checks_first),
		cmocka_unit_test(test_player__client_player_plugs_in),
		cmocka_unit_test(test_player__abbey_before_the_draw_unseen),
		cmocka_unit_test(test_player__client_player_ignores_the_abbey),
		cmocka_unit_test(test_player__play_run_jobs),
		cmocka_unit_test(test_player__replay_players),
		cmocka_unit_test(test_player__greedy_beats_random),
		cmocka_unit_test(test_player__greedy_with_wagons_and_abbeys),
		cmocka_unit_test(test_player__greedy_advice_is_its_choice),
		cmocka_unit_test(test_player__max_seats),
		cmocka_unit_test(test_player__mcts_same_games),
		cmocka_unit_test(test_player__mcts_advice_is_its_choice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
