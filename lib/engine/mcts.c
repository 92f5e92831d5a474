/* SPDX-License-Identifier: MIT */
/* mcts.c: the mcts player (carcamap/player.h cm_player_new_mcts): Monte
 * Carlo search over determinizations. The greedy player ranks the
 * decision's choices (its values are the search's prior); the search
 * spends its playouts on the best few (more as playouts accumulate:
 * progressive widening), picking by UCB1 with a progressive bias toward
 * greedy's value. Each playout copies the board (cm_board_copy_into),
 * deals the unseen tiles in an order of its own (cm_board_shuffle_pile),
 * plays the choice and then random play to the end; its result is the
 * final margin over the best opponent, squashed to 0..1. The choice tried
 * most wins. The weights are one table; README "Players" says what each
 * does and how it was measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/player.h"
#include "engine/board_int.h"
#include "engine/rng_int.h"

/* The search's weights (README "Players"). */
static const struct {
	int arms;       /* choices searched from the first playout: greedy's best */
	int widen;      /* one more of greedy's next best every widen playouts */
	double explore; /* UCB1's exploration: explore * sqrt(ln t / n) */
	double bias;    /* progressive bias: bias * (value - best value) / (n + 1),
	                 * greedy's values in points */
	double scale;   /* a playout's result: 1 / (1 + exp(-margin / scale)) */
} W = {
	.arms = 3,
	.widen = 200,
	.explore = 0.35,
	.bias = 0.02,
	.scale = 10.0,
};

/* One choice searched: greedy's advice on it (choice and value), and the
 * playouts that tried it. */
typedef struct {
	cm_advice a;
	int n;
	double sum;
} arm;

typedef struct {
	cm_player base;
	long budget;
	char name[CM_PLAYER_NAME_MAX + 1];
	cm_player *greedy;   /* the prior; the abbey after the last tile */
	cm_player *random;   /* playouts that start with wagons waiting */
	cm_board *sim;       /* a playout's board, made for the game's map, deck and seats */
	arm *arms;           /* the decision's choices, greedy's best first */
	cm_advice *advice;   /* greedy's answer, before it becomes arms */
	size_t cap;          /* entries of arms and advice */
	int n_arms;
} mcts;

/* The deciding player's result of a finished playout: 0 to 1, rising
 * with its margin over the best opponent (0.5 for a tie). */
static double result(const cm_board *s, int me)
{
	int other = 0;
	bool first = true;
	for (int p = 0; p < s->n_players; p++)
		if (p != me && (first || s->score[p] > other)) {
			other = s->score[p];
			first = false;
		}
	return 1.0 / (1.0 + exp(-(double)(s->score[me] - other) / W.scale));
}

/* A playout board for b's game (kept while the games are on one map with
 * one deck and seats: cm_board_copy_into needs that). */
static int playout_board(mcts *m, const cm_board *b)
{
	if (m->sim && m->sim->L.map == b->L.map && m->sim->deck == b->deck && m->sim->n_players == b->n_players)
		return 0;
	cm_board_free(m->sim);
	m->sim = NULL;
	return cm_board_copy(b, &m->sim);
}

/* The decision's choices as greedy ranks them, into arms: their count. */
static int rank_choices(mcts *m, const cm_board *b, int tile, cm_rng *rng)
{
	for (;;) {
		cm_rng r = *rng; /* asked again when the arrays grow: the same draws */
		int n = cm_player_advise(m->greedy, b, tile, &r, m->advice, m->cap);
		if (n < 0)
			return n;
		if ((size_t)n <= m->cap) {
			*rng = r;
			for (int i = 0; i < n; i++)
				m->arms[i] = (arm){ .a = m->advice[i] };
			return m->n_arms = n;
		}
		size_t cap = (size_t)n + 64;
		cm_advice *a = realloc(m->advice, cap * sizeof *a);
		if (a)
			m->advice = a;
		arm *c = a ? realloc(m->arms, cap * sizeof *c) : NULL;
		if (!c)
			return CM_ENOMEM;
		m->arms = c;
		m->cap = cap;
	}
}

/* The arm the t-th playout tries: among the first active, one not tried
 * yet (greedy's order), else the highest UCB1 with progressive bias. */
static int select_arm(const mcts *m, int active, long t)
{
	double best = -HUGE_VAL, lt = log((double)t + 1.0), v0 = m->arms[0].a.value;
	int k = 0;
	for (int i = 0; i < active; i++) {
		const arm *a = &m->arms[i];
		if (a->n == 0)
			return i;
		double u = a->sum / a->n + W.explore * sqrt(lt / a->n) + W.bias * (a->a.value - v0) / (a->n + 1);
		if (u > best) {
			best = u;
			k = i;
		}
	}
	return k;
}

/* One playout of choice c on a determinization of b (keep: the tiles on
 * top its player has seen); the game ends on m->sim. A pass of the abbey
 * question draws, and the tile drawn is placed as greedy places it (the
 * abbey's arms are choices greedy ranked: a pass followed by a random
 * placement would be judged against a worse move). */
static int playout(mcts *m, const cm_board *b, int tile, int keep, const cm_choice *c, cm_rng *r)
{
	cm_board *s = m->sim;
	cm_board_copy_into(s, b);
	cm_board_shuffle_pile(s, keep, r);
	if (cm_board_apply(s, tile, c, NULL, NULL) < 0)
		return CM_EINTERNAL; /* greedy offered a legal choice */
	int t;
	if (tile < 0 && c->kind == CM_CHOICE_PASS && cm_board_draw(s, &t) == 0) {
		cm_choice d;
		memset(&d, 0, sizeof d);
		d.feature = -1;
		int rc = cm_player_choose(m->greedy, s, t, r, &d);
		if (rc < 0)
			return rc;
		if (cm_board_apply(s, t, &d, NULL, NULL) < 0)
			return CM_EINTERNAL;
	}
	if (!s->n_wait)
		return cm_board_play_random(s, r);
	cm_player *seats[CM_MAX_PLAYERS];
	for (int p = 0; p < s->n_players; p++)
		seats[p] = m->random;
	return cm_board_play(s, seats, r, NULL);
}

/* The search of a tile decision (tile >= 0), a waiting wagon's move or
 * the abbey question before the draw (tile -1), for its player: the arms
 * with their playouts. */
static int search(mcts *m, const cm_board *b, int tile, cm_rng *rng)
{
	int rc = playout_board(m, b);
	if (rc < 0)
		return rc;
	int n = rank_choices(m, b, tile, rng);
	if (n < 1)
		return n < 0 ? n : CM_EINVAL; /* no legal choice: not a decision */
	if (n == 1)
		return 0;
	int me = b->n_wait ? b->wait[0].player : b->cur, keep = tile >= 0;
	for (long t = 0; t < m->budget; t++) {
		long active = W.arms + t / W.widen;
		int k = select_arm(m, active < n ? (int)active : n, t);
		arm *a = &m->arms[k];
		if ((rc = playout(m, b, tile, keep, &a->a.choice, rng)) < 0)
			return rc;
		a->n++;
		a->sum += result(m->sim, me);
	}
	return 0;
}

/* Most playouts first; among equals, the better mean, then greedy's order. */
static bool before(const arm *a, const arm *b)
{
	if (a->n != b->n)
		return a->n > b->n;
	return a->n && a->sum / a->n > b->sum / b->n;
}

/* The search's choice: the arm tried most. */
static int best_arm(const mcts *m)
{
	int k = 0;
	for (int i = 1; i < m->n_arms; i++)
		if (before(&m->arms[i], &m->arms[k]))
			k = i;
	return k;
}

/* The decision searched: the arms ready, or 1 when greedy decides (the
 * abbey after the last tile: a one-turn look ahead sees all of it but the
 * other seats' last abbeys). The search's generator is seeded from the
 * game's: one draw per decision. */
static int decide(mcts *m, const cm_board *b, int tile, cm_rng *rng)
{
	if (tile < 0 && !b->n_wait && b->pile_top >= b->pile_n)
		return 1;
	cm_rng r;
	cm_rng_seed(&r, cm_rng_next(rng));
	return search(m, b, tile, &r);
}

static int mcts_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	mcts *m = (mcts *)self;
	int rc = decide(m, b, tile, rng);
	if (rc == 1)
		return cm_player_choose(m->greedy, b, tile, rng, out);
	if (rc < 0)
		return rc;
	*out = m->arms[best_arm(m)].a.choice;
	return 0;
}

/* The arms searched, best first (as best_arm orders them), each with its
 * mean result and playouts; greedy's advice (values in points, no
 * playouts) when greedy decides or there is one choice. */
static int mcts_advise(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_advice *out, size_t max)
{
	mcts *m = (mcts *)self;
	int rc = decide(m, b, tile, rng);
	if (rc == 1)
		return cm_player_advise(m->greedy, b, tile, rng, out, max);
	if (rc < 0)
		return rc;
	/* the one choice of a decision without playouts keeps greedy's value */
	int n = m->n_arms == 1 ? 1 : 0;
	for (int i = 0; i < m->n_arms; i++) {
		arm *a = &m->arms[i];
		a->a.visits = a->n;
		if (a->n) {
			a->a.value = a->sum / a->n;
			n++;
		}
	}
	/* a selection of the n tried (n is small: a few dozen at most) */
	for (int i = 0; i < n; i++) {
		int k = i;
		for (int j = i + 1; j < m->n_arms; j++)
			if (before(&m->arms[j], &m->arms[k]))
				k = j;
		arm t = m->arms[i];
		m->arms[i] = m->arms[k];
		m->arms[k] = t;
		if ((size_t)i < max)
			out[i] = m->arms[i].a;
	}
	return n;
}

static void mcts_free(cm_player *self)
{
	mcts *m = (mcts *)self;
	if (!m)
		return;
	cm_player_free(m->greedy);
	cm_player_free(m->random);
	cm_board_free(m->sim);
	free(m->arms);
	free(m->advice);
	free(m);
}

int cm_player_new_mcts(long budget, cm_player **out)
{
	*out = NULL;
	if (budget < 0 || budget > CM_PLAYER_MAX_BUDGET)
		return CM_EINVAL;
	mcts *m = calloc(1, sizeof *m);
	if (!m)
		return CM_ENOMEM;
	m->budget = budget ? budget : CM_PLAYER_MCTS_BUDGET;
	if (budget)
		snprintf(m->name, sizeof m->name, "mcts:%ld", budget);
	else
		snprintf(m->name, sizeof m->name, "mcts");
	m->base.choose = mcts_choose;
	m->base.advise = mcts_advise;
	m->base.free = mcts_free;
	m->base.name = m->name;
	if (cm_player_new_greedy(&m->greedy) < 0 || cm_player_new_random(&m->random) < 0) {
		mcts_free(&m->base);
		return CM_ENOMEM;
	}
	*out = &m->base;
	return 0;
}
