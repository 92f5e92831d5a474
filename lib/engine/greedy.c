/* SPDX-License-Identifier: MIT */
/* greedy.c: the greedy player (carcamap/player.h cm_player_new_greedy):
 * one turn ahead. Every legal placement of the drawn tile and every
 * follower choice on it (none, a meeple or the wagon on each free spot),
 * or, before the draw, the abbey on each square that takes it against the
 * expected draw over the tiles left, valued from the engine's
 * answer to "what would this do" (cm_board_place_if, cm_board_abbey_if):
 * points scored now, plus an estimate for the features touched that stay
 * open, less the value of a follower locked away; the weights in one
 * table; ties broken by the game's generator. */
#include <math.h> /* INFINITY */
#include <stdlib.h>
#include <string.h>
#include "carcamap/player.h"
#include "engine/board_int.h"
#include "engine/rng_int.h"

/* The evaluation's weights (README "Players" says what each does). */
static const struct {
	double opp;       /* an opponent's point against one of the player's (shared over n - 1 opponents) */
	double edge_k;    /* an open edge closes before the end with chance c / (c + edge_k), c the
	                   * draws left times the share of the pile that can close it */
	double fill_k;    /* a square around a monastery fills with chance d / (d + fill_k), d the draws left */
	double lock;      /* a follower locked away costs lock * t / (t + lock_k * k) points, t the
	                   * player's turns left, k its followers in the supply, ... */
	double lock_k;
	double lock_open; /* ... times 1 - lock_open * (the feature's chance to complete) */
	double farm;      /* a farmer: farm * 3 points per city its piece touches, times the
	                   * city's chance to complete, ... */
	double farm_base; /* ... plus farm_base for the cities the rest of its field touches */
	double abbey;     /* playing the abbey now instead of keeping it */
	double tie;       /* values closer than this are a tie (broken by the generator) */
} W = {
	.opp = 1.0,
	.edge_k = 4.0,
	.fill_k = 6.0,
	.lock = 6.0,
	.lock_k = 1.5,
	.lock_open = 0.8,
	.farm = 0.8,
	.farm_base = 2.0,
	.abbey = 4.0,
	.tie = 1e-9,
};

#define MAX_OPEN 32

typedef struct {
	cm_player base;
	cm_advice *seen;       /* greedy_advise: every choice weighed */
	size_t n_seen, cap_seen;
	bool record;
	bool oom;
	const cm_deck *deck;   /* the deck the tables below are for */
	uint8_t *closes;       /* per deck type: bit 0 a road side, bit 1 a city side */
	int *left;             /* per deck type: copies left to draw */
	int *order;            /* abbey_or_draw: deck types, most copies left first */
	double *floor;         /* draw_value: per deck type, floor_of's bound, then the value */
	size_t n_types;
} greedy;

/* What one question's evaluation needs, set once per choice. */
typedef struct {
	const cm_board *b;
	int me, np;
	double sign[CM_MAX_PLAYERS]; /* 1 for me, -opp / (np - 1) for the others */
	double pc_road[MAX_OPEN + 1], pc_city[MAX_OPEN + 1]; /* chance to complete with n open edges */
	double p_fill;               /* chance that an empty square around a monastery fills */
	double pc_mon[9];            /* p_fill to the power n: n squares around all fill */
	double lock[2];              /* a meeple's and the wagon's lock cost */
	cm_rng *rng;
	greedy *g;
	bool record;                 /* every offer goes to g->seen (greedy_advise) */
	/* the best so far */
	double best;
	int ties;
	cm_choice choice;
} eval;

/* ---- the deck's tables ---- */

static int tables(greedy *g, const cm_board *b)
{
	const cm_deck *dk = b->deck;
	if (g->deck == dk)
		return 0;
	size_t n = dk->n_types;
	uint8_t *cl = calloc(n + 1, 1);
	int *left = calloc(n + 1, sizeof *left), *order = calloc(n + 1, sizeof *order);
	double *floor = calloc(n + 1, sizeof *floor);
	if (!cl || !left || !order || !floor) {
		free(cl);
		free(left);
		free(order);
		free(floor);
		return CM_ENOMEM;
	}
	for (size_t t = 0; t < n; t++)
		for (int s = 0; s < 4; s++) {
			cl[t] |= dk->info[t].edge[0][s] == CM_EDGE_ROAD ? 1 : 0;
			cl[t] |= dk->info[t].edge[0][s] == CM_EDGE_CITY ? 2 : 0;
		}
	free(g->closes);
	free(g->left);
	free(g->order);
	free(g->floor);
	g->closes = cl;
	g->left = left;
	g->order = order;
	g->floor = floor;
	g->n_types = n;
	g->deck = dk;
	return 0;
}

/* ---- values ---- */

static void setup_eval(eval *e, greedy *g, const cm_board *b, cm_rng *rng)
{
	memset(e, 0, sizeof *e);
	e->b = b;
	e->rng = rng;
	e->g = g;
	e->record = g->record;
	e->me = b->n_wait ? b->wait[0].player : b->cur; /* a wagon moves for its owner */
	e->np = b->n_players;
	for (int p = 0; p < e->np; p++)
		e->sign[p] = p == e->me ? 1.0 : -W.opp / (e->np - 1);
	int d = cm_board_remaining(b, g->left, g->n_types), roads = 0, cities = 0;
	for (size_t t = 0; t < g->n_types; t++) {
		roads += (g->closes[t] & 1) ? g->left[t] : 0;
		cities += (g->closes[t] & 2) ? g->left[t] : 0;
	}
	double pr = roads / (roads + W.edge_k), pcy = cities / (cities + W.edge_k);
	e->pc_road[0] = e->pc_city[0] = 1.0;
	for (int k = 1; k <= MAX_OPEN; k++) {
		e->pc_road[k] = e->pc_road[k - 1] * pr;
		e->pc_city[k] = e->pc_city[k - 1] * pcy;
	}
	e->p_fill = d / (d + W.fill_k);
	e->pc_mon[0] = 1.0;
	for (int k = 1; k <= 8; k++)
		e->pc_mon[k] = e->pc_mon[k - 1] * e->p_fill;
	double turns = (double)d / e->np;
	int k = b->supply[e->me];
	e->lock[CM_FOLLOWER_MEEPLE] = W.lock * turns / (turns + W.lock_k * k);
	/* the wagon comes back and moves on: its lock counts as one more follower's */
	e->lock[CM_FOLLOWER_WAGON] = W.lock * turns / (turns + W.lock_k * (k + 1));
	e->best = -INFINITY;
}

/* The chance that a feature in state st completes before the end. */
static double completes(const eval *e, const cm_feature_state *st)
{
	int k = st->open < MAX_OPEN ? st->open : MAX_OPEN;
	switch (st->kind) {
	case CM_FEAT_ROAD: return e->pc_road[k];
	case CM_FEAT_CITY: return e->pc_city[k];
	case CM_FEAT_MONASTERY:
	case CM_FEAT_ABBEY: return e->pc_mon[k < 8 ? k : 8];
	default: return 0.0;
	}
}

/* What a road, city or monastery in state st is expected to score. */
static double expected(const eval *e, const cm_feature_state *st)
{
	double pc = completes(e, st);
	switch (st->kind) {
	case CM_FEAT_ROAD:
		return pc * (st->tiles + 2 * st->arms) + (1 - pc) * (st->tiles + st->arms);
	case CM_FEAT_CITY:
		return pc * (2 * st->tiles + 2 * st->arms) + (1 - pc) * (st->tiles + st->arms);
	case CM_FEAT_MONASTERY:
	case CM_FEAT_ABBEY:
		return 1 + st->tiles + st->open * e->p_fill;
	default:
		return 0.0;
	}
}

/* A feature's worth to me: its expected points to each holder (the
 * followers' majority), mine counted for and the others' against; with
 * extra one more follower of mine on it. Complete features are worth
 * nothing here (their points are the turn's). */
static double worth(const eval *e, const cm_feature_state *st, bool complete, int extra)
{
	if (complete || st->kind == CM_FEAT_FIELD || st->kind == CM_FEAT_GARDEN)
		return 0.0;
	int any = extra;
	for (int p = 0; p < e->np; p++)
		any |= st->followers[p];
	if (!any) /* most features: nobody holds them */
		return 0.0;
	int max = 0;
	for (int p = 0; p < e->np; p++) {
		int f = st->followers[p] + (p == e->me ? extra : 0);
		if (f > max)
			max = f;
	}
	if (max == 0)
		return 0.0;
	double v = 0.0;
	for (int p = 0; p < e->np; p++)
		if (st->followers[p] + (p == e->me ? extra : 0) == max)
			v += e->sign[p];
	return v * expected(e, st);
}

/* A farmer on field feature f of the tile: the cities its piece touches
 * on the tile, by their chance to complete, and the field's others. */
static double farmer(const eval *e, const type_info *ti, int f, const cm_place_if *q)
{
	double v = W.farm_base;
	for (uint32_t m = ti->touches[f]; m; m &= m - 1) {
		const cm_feature_if *c = &q->features[cm__ctz(m)];
		v += 3.0 * (c->complete ? 1.0 : completes(e, &c->after));
	}
	return W.farm * v;
}

/* Takes choice c with value v when it is the best so far (a tie: one of
 * the tied, uniformly, by the generator). */
static CM__NOINLINE void record(greedy *g, double v, const cm_choice *c)
{
	if (g->n_seen == g->cap_seen) {
		size_t cap = g->cap_seen ? 2 * g->cap_seen : 256;
		cm_advice *a = realloc(g->seen, cap * sizeof *a);
		if (!a) {
			g->oom = true;
			return;
		}
		g->seen = a;
		g->cap_seen = cap;
	}
	g->seen[g->n_seen++] = (cm_advice){ .choice = *c, .value = v };
}

static CM__INLINE void offer(eval *e, double v, const cm_choice *c)
{
	if (e->record)
		record(e->g, v, c);
	if (v > e->best + W.tie) {
		e->best = v;
		e->ties = 1;
		e->choice = *c;
	} else if (v >= e->best - W.tie) {
		e->ties++;
		/* without a generator only the best value is asked (draw_value) */
		if (e->rng && cm__rng_below(e->rng, (uint32_t)e->ties) == 0)
			e->choice = *c;
	}
}

/* extra plus the turn whose answer is q without a follower: points now,
 * and the change in what the features touched are worth. */
static double turn_value(const eval *e, const cm_place_if *q, double extra)
{
	double v = extra;
	for (int p = 0; p < e->np; p++)
		v += e->sign[p] * q->scores[p];
	for (int f = 0; f < q->n_features; f++)
		if (q->features[f].set == f)
			v += worth(e, &q->features[f].after, q->features[f].complete, 0);
	for (int i = 0; i < q->n_touched; i++) {
		const cm_touched_if *t = &q->touched[i];
		v -= worth(e, &t->before, false, 0);
		if (t->after.set < 0)
			v += worth(e, &t->after.after, t->after.complete, 0);
	}
	return v;
}

/* Every follower choice on a placement (or abbey) whose answer is q:
 * base is the choice without a follower (kind, square, rotation). */
static void weigh(eval *e, int type, const cm_place_if *q, cm_choice c, double extra)
{
	const cm_board *b = e->b;
	const type_info *ti = &b->deck->info[type];
	double v = turn_value(e, q, extra);
	c.feature = -1;
	offer(e, v, &c);
	/* a follower on a free set of the tile */
	bool kinds[2] = { b->supply[e->me] > 0, b->rules.wagons && b->wagons[e->me] > 0 };
	for (int k = 0; k < 2; k++) {
		if (!kinds[k])
			continue;
		uint32_t all = k == CM_FOLLOWER_WAGON ? ti->spot_wagon : ti->spot_meeple;
		for (uint32_t spots = all; spots; spots &= spots - 1) {
			int f = cm__ctz(spots);
			const cm_feature_if *o = &q->features[f];
			bool free = true;
			for (int p = 0; p < e->np && free; p++)
				free = o->after.followers[p] == 0;
			if (!free || (o->set != f && ((all >> o->set) & 1)))
				continue; /* occupied, or the set of a spot already weighed */
			double w = v;
			if (o->complete)
				w += o->points; /* scored now, the follower back at once */
			else if (o->after.kind == CM_FEAT_FIELD)
				w += farmer(e, ti, f, q) - e->lock[k] * (1 + W.lock_open);
			else
				w += worth(e, &o->after, false, 1) -
				     e->lock[k] * (1 - W.lock_open * completes(e, &o->after));
			c.feature = f;
			c.follower = (cm_follower_kind)k;
			offer(e, w, &c);
		}
	}
}

/* ---- choices ---- */

/* Where the first waiting wagon (this player's) goes: the destination
 * worth most with it there, or back to the supply when none is worth
 * its lock. */
static int wagon_choice(eval *e)
{
	const cm_board *b = e->b;
	size_t n = cm__wagon_dests(b, NULL, 0, -1);
	cm_choice back = { .kind = CM_CHOICE_WAGON, .x = -1, .y = -1, .feature = -1 };
	offer(e, 0.0, &back);
	for (size_t i = 0; i < n; i++) {
		cm_wagon_dest d;
		cm__wagon_dests(b, &d, 1, (long)i);
		cm_feature_info fi;
		if (cm_board_feature(b, d.x, d.y, d.feature, &fi) < 0)
			continue;
		cm_feature_state st = { .kind = fi.kind, .tiles = fi.tiles, .open = fi.open, .arms = fi.arms };
		double v = worth(e, &st, false, 1) - e->lock[CM_FOLLOWER_WAGON] * (1 - W.lock_open * completes(e, &st));
		cm_choice c = { .kind = CM_CHOICE_WAGON, .x = d.x, .y = d.y, .feature = d.feature };
		offer(e, v, &c);
	}
	return 0;
}

/* The abbey on each square that takes it, at a cost (kept otherwise)
 * while tiles are left. */
static void abbeys(eval *e, double cost)
{
	const cm_board *b = e->b;
	cm_place_if q;
	for (int i = 0, s; (s = cm__abbey_front(b, i)) >= 0; i++) {
		if (cm_board_abbey_if(b, s % b->L.cols, s / b->L.cols, &q) < 0)
			continue;
		cm_choice c = { .kind = CM_CHOICE_ABBEY, .x = s % b->L.cols, .y = s / b->L.cols };
		weigh(e, b->abbey_type, &q, c, -cost);
	}
}

/* Every legal placement of tile with every follower choice on it. */
static void placements(eval *e, int tile)
{
	const cm_board *b = e->b;
	const uint8_t *rm = b->deck->info[tile].rotmask;
	cm_place_if q;
	for (int i = 0; i < b->n_front; i++) {
		int s = b->front[i];
		for (unsigned m = rm[b->front_req[i]]; m; m &= m - 1) {
			int r = cm__ctz(m), y = cm__row(b, s);
			cm__place_if(b, tile, s, r, &q); /* a legal placement (the frontier's rotations) */
			cm_choice c = { .kind = CM_CHOICE_TILE, .x = s - y * b->L.cols, .y = y, .rot = r };
			weigh(e, tile, &q, c, 0.0);
		}
	}
}

/* A fresh evaluation like e that only finds the best value: nothing
 * recorded, no generator (no tie broken). */
static eval value_only(const eval *e)
{
	eval v = *e;
	v.rng = NULL;
	v.record = false;
	v.best = -INFINITY;
	v.ties = 0;
	return v;
}

/* The best value of tile type t on this board (every placement and
 * follower choice), -INFINITY when no square takes it. No generator is
 * drawn from. */
static double best_of(const eval *e, int t)
{
	eval et = value_only(e);
	placements(&et, t);
	return et.ties ? et.best : -INFINITY;
}

/* A bound below best_of(e, t), cheap: the best choice on t's first
 * legal placement (every follower choice on it); -INFINITY when no
 * square takes t. */
static double floor_of(const eval *e, int t)
{
	const cm_board *b = e->b;
	const uint8_t *rm = b->deck->info[t].rotmask;
	cm_place_if q;
	for (int i = 0; i < b->n_front; i++) {
		unsigned m = rm[b->front_req[i]];
		if (!m)
			continue;
		int s = b->front[i], r = cm__ctz(m), y = cm__row(b, s);
		eval et = value_only(e);
		cm__place_if(b, t, s, r, &q);
		cm_choice c = { .kind = CM_CHOICE_TILE, .x = s - y * b->L.cols, .y = y, .rot = r };
		weigh(&et, t, &q, c, 0.0);
		return et.best;
	}
	return -INFINITY;
}

/* What drawing is worth before the draw: the best value of each tile
 * type left that some square takes (the tile on top is one of those: the
 * others are put aside as they come up), averaged over the copies left
 * (e's tables: setup_eval), summed in deck order. With stop finite, a
 * bound below it instead, as soon as that bound passes stop: the types
 * with most copies are valued first, the others counted by floor_of
 * meanwhile. */
static double draw_value(const eval *e, double stop)
{
	greedy *g = e->g;
	const bool bound = isfinite(stop);
	int n = 0;
	long copies = 0;
	double sum = 0.0; /* with bound: the bound times copies */
	for (size_t t = 0; t < g->n_types; t++) {
		g->floor[t] = -INFINITY;
		if (!g->left[t] || e->b->deck->info[t].abbey)
			continue;
		if (bound) {
			if ((g->floor[t] = floor_of(e, (int)t)) == -INFINITY)
				continue; /* no legal placement: put aside when it comes up */
			sum += g->floor[t] * g->left[t];
			copies += g->left[t];
		}
		/* insertion: most copies first, then deck order */
		int k = n++;
		for (; k > 0 && g->left[g->order[k - 1]] < g->left[t]; k--)
			g->order[k] = g->order[k - 1];
		g->order[k] = (int)t;
	}
	for (int i = 0; i < n; i++) {
		if (bound && sum > stop * (double)copies)
			return sum / (double)copies;
		int t = g->order[i];
		double v = best_of(e, t); /* -INFINITY: no legal placement (floor_of said so too) */
		if (bound)
			sum += (v - g->floor[t]) * g->left[t];
		g->floor[t] = v; /* now the value */
	}
	/* the whole average, the same sum whether bounded or not */
	sum = 0.0;
	copies = 0;
	for (size_t t = 0; t < g->n_types; t++)
		if (g->floor[t] != -INFINITY) {
			sum += g->floor[t] * g->left[t];
			copies += g->left[t];
		}
	return copies ? sum / (double)copies : 0.0;
}

/* The abbey question before the draw: a pass worth the expected draw
 * against the abbey on each square. Choosing, the expected draw is
 * valued only until it is sure to beat every abbey by more than a tie
 * (then the pass is the choice whatever the rest, and no tie is broken:
 * the generator is untouched); advice values it whole. */
static void abbey_or_draw(eval *e)
{
	cm_choice pass = { .kind = CM_CHOICE_PASS, .feature = -1 };
	double stop = INFINITY;
	if (!e->record) {
		eval a = value_only(e);
		abbeys(&a, W.abbey);
		stop = a.best + W.tie;
	}
	double v = draw_value(e, stop);
	offer(e, v, &pass);
	if (!(v > stop))
		abbeys(e, W.abbey);
}

/* Every choice of the decision weighed; the best into e->choice. */
static int decide(greedy *g, const cm_board *b, int tile, cm_rng *rng, eval *ev)
{
	int rc = tables(g, b);
	if (rc < 0)
		return rc;
	eval *e = ev;
	setup_eval(e, g, b, rng);
	if (b->n_wait)
		return wagon_choice(e);
	if (b->last_sq >= 0 || b->final_done)
		return CM_EINVAL;
	if (tile < 0) {
		/* the abbey question, the tile on top unseen: the best abbey, or
		 * a pass, worth what drawing is expected to be worth while tiles
		 * are left (the abbey costs its keeping then), nothing after the
		 * last tile (a pass keeps the abbey) */
		bool draw = b->pile_top < b->pile_n;
		bool any = b->abbeys[b->cur] && cm__abbey_front(b, -1) > 0; /* else only a pass */
		if (draw && any) {
			abbey_or_draw(e);
			return 0;
		}
		cm_choice pass = { .kind = CM_CHOICE_PASS, .feature = -1 };
		offer(e, 0.0, &pass);
		if (any)
			abbeys(e, 0.0);
		return 0;
	}
	if ((size_t)tile >= b->deck->n_types || b->deck->info[tile].abbey)
		return CM_EINVAL;
	placements(e, tile);
	return e->ties ? 0 : CM_EINVAL; /* no legal placement: not a drawn tile */
}

static int greedy_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	greedy *g = (greedy *)self;
	eval e;
	g->record = false;
	int rc = decide(g, b, tile, rng, &e);
	if (rc == 0)
		*out = e.choice;
	return rc;
}

/* A choice weighed: its value and its place in the order weighed. */
typedef struct {
	double value;
	size_t i;
} ranked;

/* Best first; among equals, in the order weighed (qsort is not stable). */
static int by_value(const void *x, const void *y)
{
	const ranked *a = x, *b = y;
	if (a->value != b->value)
		return a->value < b->value ? 1 : -1;
	return (a->i > b->i) - (a->i < b->i);
}

static int greedy_advise(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_advice *out, size_t max)
{
	greedy *g = (greedy *)self;
	eval e;
	g->record = true;
	g->oom = false;
	g->n_seen = 0;
	int rc = decide(g, b, tile, rng, &e);
	g->record = false;
	if (rc < 0)
		return rc;
	size_t n = g->n_seen;
	ranked *r = malloc((n ? n : 1) * sizeof *r);
	if (g->oom || !r) {
		free(r);
		return CM_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		r[i] = (ranked){ g->seen[i].value, i };
	qsort(r, n, sizeof *r, by_value);
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = g->seen[r[i].i];
	free(r);
	return n > (size_t)INT32_MAX ? INT32_MAX : (int)n;
}

static void greedy_free(cm_player *self)
{
	greedy *g = (greedy *)self;
	if (!g)
		return;
	free(g->closes);
	free(g->left);
	free(g->order);
	free(g->floor);
	free(g->seen);
	free(g);
}

int cm_player_new_greedy(cm_player **out)
{
	*out = NULL;
	greedy *g = calloc(1, sizeof *g);
	if (!g)
		return CM_ENOMEM;
	g->base.choose = greedy_choose;
	g->base.free = greedy_free;
	g->base.name = "greedy";
	g->base.advise = greedy_advise;
	*out = &g->base;
	return 0;
}
