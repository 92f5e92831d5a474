/* SPDX-License-Identifier: MIT */
/* test_answer.c: the rules questions (carcamap/answer.h): cm_board_ask's
 * answers agree with the board's own questions (placements and spots,
 * features, final scoring, wagon moves and why, the players' choices and
 * advice) turn after turn of random games with wagons and abbeys; every
 * question the board cannot take is refused with no answer; the rules
 * JSON is the same bytes for the same answer and names its query. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util_board.h"
#include "carcamap/answer.h"
#include "carcamap/player.h"

static cm_answer *ask(cm_board *b, const cm_ask *q)
{
	cm_answer *a = (cm_answer *)(uintptr_t)1;
	assert_int_equal(cm_board_ask(b, q, &a), 0);
	assert_non_null(a);
	assert_int_equal(a->kind, q->kind);
	assert_string_equal(a->map, cm_map_id(cm_board_map(b)));
	assert_int_equal(a->players, cm_board_players(b));
	return a;
}

static void refused(cm_board *b, const cm_ask *q, int rc)
{
	cm_answer *a = (cm_answer *)(uintptr_t)1;
	assert_int_equal(cm_board_ask(b, q, &a), rc);
	assert_null(a);
}

/* The answer as JSON text (the caller frees it). */
static char *json(const cm_answer *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cm_answer_write_json(a, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* LEGAL for every tile type: the board's placements and spots. */
static void check_legal(cm_board *b, int *asked)
{
	const cm_deck *deck = cm_board_deck(b);
	for (size_t t = 0; t < cm_deck_types(deck); t++) {
		cm_ask q;
		cm_ask_init(&q, CM_ASK_LEGAL);
		q.tile = (int)t;
		cm_answer *a = ask(b, &q);
		size_t n = cm_board_placements(b, (int)t, NULL, 0);
		cm_placement *pl = calloc(n ? n : 1, sizeof *pl);
		assert_non_null(pl);
		cm_board_placements(b, (int)t, pl, n);
		assert_int_equal(a->legal.n_placements, n);
		assert_string_equal(a->legal.tile, cm_deck_type(deck, t)->id);
		assert_int_equal(a->pile, cm_board_pile(b));
		for (size_t i = 0; i < n; i++) {
			const cm_answer_placement *p = &a->legal.placements[i];
			assert_int_equal(p->x, pl[i].x);
			assert_int_equal(p->y, pl[i].y);
			assert_int_equal(p->rot, pl[i].rot);
			int f[CM_MAX_FEATURES];
			int k = cm_board_spots_if(b, (int)t, p->x, p->y, p->rot, CM_FOLLOWER_MEEPLE, f, CM_MAX_FEATURES);
			if (p->n_spots < 0)
				continue; /* no copy left: spots unknown from here on */
			assert_int_equal(p->n_spots, k);
			for (int s = 0; s < k; s++)
				assert_int_equal(p->spots[s].feature, f[s]);
		}
		free(pl);
		cm_answer_free(a);
		(*asked)++;
	}
}

/* SQUARE on every placed square: its tile and features. */
static void check_squares(cm_board *b, int *asked)
{
	const cm_map *m = cm_board_map(b);
	for (int y = 0; y < cm_map_rows(m); y++)
		for (int x = 0; x < cm_map_cols(m); x++) {
			int t = -1, rot = 0;
			if (cm_board_tile_at(b, x, y, &t, &rot) < 0 || t < 0)
				continue;
			cm_ask q;
			cm_ask_init(&q, CM_ASK_SQUARE);
			q.x = x;
			q.y = y;
			cm_answer *a = ask(b, &q);
			assert_string_equal(a->square.tile, cm_deck_type(cm_board_deck(b), (size_t)t)->id);
			assert_int_equal(a->square.rot, rot);
			assert_true(a->square.n_features > 0);
			for (size_t f = 0; f < a->square.n_features; f++) {
				cm_feature_info fi;
				assert_int_equal(cm_board_feature(b, x, y, (int)f, &fi), 0);
				assert_memory_equal(&fi, &a->square.features[f].info, sizeof fi);
			}
			cm_feature_info fi;
			assert_int_not_equal(cm_board_feature(b, x, y, (int)a->square.n_features, &fi), 0);
			cm_answer_free(a);
			(*asked)++;
		}
}

/* WAGON and WHY of every destination (allowed), and SCORE refused. */
static void check_wagon(cm_board *b, int *asked)
{
	cm_ask q;
	cm_ask_init(&q, CM_ASK_WAGON);
	cm_answer *a = ask(b, &q);
	assert_true(a->wagon.waiting);
	size_t n = cm_board_wagon_moves(b, NULL, 0);
	assert_int_equal(a->wagon.n_destinations, n);
	for (size_t i = 0; i < n; i++) {
		const cm_wagon_dest *d = &a->wagon.destinations[i];
		cm_ask w;
		cm_ask_init(&w, CM_ASK_WHY);
		w.x = d->x;
		w.y = d->y;
		w.feature = d->feature;
		cm_answer *why = ask(b, &w);
		assert_int_equal(why->wagon.why, CM_WAGON_ALLOWED);
		assert_string_equal(why->wagon.reason, d->reason);
		char *text = json(why);
		assert_non_null(strstr(text, "\"query\": \"why\""));
		assert_non_null(strstr(text, "\"allowed\": true"));
		free(text);
		cm_answer_free(why);
		(*asked)++;
	}
	cm_answer_free(a);
	cm_ask s;
	cm_ask_init(&s, CM_ASK_SCORE);
	refused(b, &s, CM_EINVAL); /* no final scoring while a wagon waits */
}

/* SCORE on a copy: the items of cm_board_final on another copy. */
static void check_score(const cm_board *b, int *asked)
{
	cm_board *c1 = NULL, *c2 = NULL;
	assert_int_equal(cm_board_copy(b, &c1), 0);
	assert_int_equal(cm_board_copy(b, &c2), 0);
	cm_ask q;
	cm_ask_init(&q, CM_ASK_SCORE);
	cm_answer *a = ask(c1, &q);
	const cm_score_item *it = NULL;
	size_t n = 0;
	assert_int_equal(cm_board_final(c2, &it, &n), 0);
	assert_int_equal(a->score.n_items, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a->score.items[i].points, it[i].points);
		assert_int_equal(a->score.items[i].players, it[i].players);
	}
	for (int p = 0; p < cm_board_players(b); p++) {
		assert_int_equal(a->scores[p], cm_board_score(b, p));
		assert_int_equal(a->score.final_scores[p], cm_board_score(c2, p));
	}
	refused(c1, &q, CM_EINVAL); /* scored once */
	cm_answer_free(a);
	cm_board_free(c1);
	cm_board_free(c2);
	(*asked)++;
}

/* ADVISE on a copy: greedy's choice is its choose's, its best come best
 * first; random says nothing of what it weighed. */
static void check_advise(const cm_board *b, int *asked)
{
	cm_board *c = NULL;
	assert_int_equal(cm_board_copy(b, &c), 0);
	cm_ask q;
	cm_ask_init(&q, CM_ASK_ADVISE);
	q.players = "greedy,random";
	q.top = 3;
	q.seed = 11;
	cm_answer *a = ask(c, &q);
	if (strcmp(a->advise.decision, "none") != 0) {
		assert_int_equal(a->advise.n_advice, 2);
		const cm_answer_advice *g = &a->advise.advice[0], *r = &a->advise.advice[1];
		assert_string_equal(g->player, "greedy");
		assert_true(g->available);
		assert_true(g->n_best >= 1 && g->n_best <= 3);
		assert_true(g->weighed >= g->n_best);
		for (int i = 1; i < g->n_best; i++)
			assert_true(g->best[i - 1].value >= g->best[i].value);
		cm_player *p = NULL;
		assert_int_equal(cm_player_new_greedy(&p), 0);
		cm_rng rng;
		cm_rng_seed(&rng, 11);
		cm_choice ch;
		int tile = strcmp(a->advise.decision, "tile") == 0 ? a->advise.tile : -1;
		assert_int_equal(cm_player_choose(p, c, tile, &rng, &ch), 0);
		assert_memory_equal(&ch, &g->choice.choice, sizeof ch);
		cm_player_free(p);
		assert_string_equal(r->player, "random");
		assert_true(r->available);
		assert_int_equal(r->weighed, -1);
		assert_int_equal(r->n_best, 0);
	}
	char *text = json(a);
	assert_non_null(strstr(text, "\"query\": \"advise\""));
	free(text);
	cm_answer_free(a);
	cm_board_free(c);
	(*asked)++;
}

/* Random games with wagons and abbeys: every question on many boards. */
static void test_answer__agrees_with_the_board(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	cm_rules ru = *cm_map_rules(fx.scn->map);
	ru.wagons = true;
	cm_player *random = NULL;
	assert_int_equal(cm_player_new_random(&random), 0);
	int asked = 0, wagons = 0;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		cm_board *b = NULL;
		assert_int_equal(cm_board_new(fx.scn->map, fx.deck, &ru, 3, seed, 0, NULL, &b), 0);
		cm_rng rng;
		cm_rng_seed(&rng, seed);
		for (int turn = 0; turn < 200; turn++) {
			cm_choice ch;
			int t;
			while (cm_board_wagon_pending(b, NULL)) {
				if (wagons++ < 12)
					check_wagon(b, &asked);
				cm_player_choose(random, b, -1, &rng, &ch);
				assert_int_equal(cm_board_apply(b, -1, &ch, NULL, NULL), 0);
			}
			if (turn % 10 == 0) {
				check_legal(b, &asked);
				check_squares(b, &asked);
				check_score(b, &asked);
				check_advise(b, &asked);
			}
			if (cm_board_draw(b, &t) < 0)
				break;
			cm_player_choose(random, b, t, &rng, &ch);
			assert_int_equal(cm_board_apply(b, t, &ch, NULL, NULL), 0);
		}
		check_advise(b, &asked); /* the pile empty: an abbey or nothing */
		cm_board_free(b);
	}
	assert_true(wagons > 0);
	assert_true(asked > 100);
	cm_player_free(random);
	util_fixture_unload(&fx);
}

/* Questions the board cannot take: no answer. */
static void test_answer__refusals(void **state)
{
	(void)state;
	util_fixture fx = util_fixture_load("tests/unit/wagon120.scn");
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx.scn->map, fx.deck, NULL, 2, 4, 0, NULL, &b), 0);
	const cm_map *m = cm_board_map(b);
	cm_ask q;
	cm_ask_init(&q, CM_ASK_LEGAL);
	q.tile = (int)cm_deck_types(fx.deck);
	refused(b, &q, CM_EINVAL);
	q.tile = -1;
	refused(b, &q, CM_EINVAL);
	cm_ask_init(&q, CM_ASK_SQUARE);
	q.x = cm_map_cols(m);
	refused(b, &q, CM_EINVAL);
	q.x = -1;
	refused(b, &q, CM_EINVAL);
	cm_ask_init(&q, CM_ASK_WHY);
	q.x = cm_map_cols(m);
	refused(b, &q, CM_EINVAL);
	q.x = 0;
	q.feature = CM_MAX_FEATURES;
	refused(b, &q, CM_EINVAL);
	cm_ask_init(&q, CM_ASK_ADVISE);
	q.top = 0;
	refused(b, &q, CM_EINVAL);
	q.top = CM_ASK_MAX_TOP + 1;
	refused(b, &q, CM_EINVAL);
	q.top = CM_ASK_MAX_TOP; /* the limit itself is taken */
	cm_answer *top = NULL;
	assert_int_equal(cm_board_ask(b, &q, &top), 0);
	cm_answer_free(top);
	cm_ask_init(&q, CM_ASK_ADVISE);
	q.tile = (int)cm_deck_types(fx.deck);
	refused(b, &q, CM_EINVAL);
	char longer[CM_ASK_PLAYERS_MAX + 2];
	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	cm_ask_init(&q, CM_ASK_ADVISE);
	q.players = longer;
	refused(b, &q, CM_EINVAL);
	longer[CM_ASK_PLAYERS_MAX] = '\0'; /* at the limit: read, and no such player */
	refused(b, &q, CM_ENOTFOUND);
	q.players = "greedy,minimax";
	refused(b, &q, CM_ENOTFOUND);
	cm_ask_init(&q, (cm_ask_kind)99);
	refused(b, &q, CM_EINVAL);
	/* no wagon waits: an answer that says so, in both forms */
	cm_ask_init(&q, CM_ASK_WAGON);
	cm_answer *a = ask(b, &q);
	assert_false(a->wagon.waiting);
	char *text = json(a), *again = json(a);
	assert_string_equal(text, again);
	assert_non_null(strstr(text, "\"wagon\": null"));
	assert_non_null(strstr(text, "\"name\": \"carcamap-rules\""));
	free(text);
	free(again);
	cm_answer_free(a);
	cm_answer_free(NULL);
	cm_board_free(b);
	util_fixture_unload(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer__agrees_with_the_board),
		cmocka_unit_test(test_answer__refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
