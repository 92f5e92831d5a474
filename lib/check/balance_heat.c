/* SPDX-License-Identifier: MIT */
/* balance_heat.c: heatmaps (carcamap/balance.h "Heatmaps"): per square,
 * whether a game filled it, at which turn, and the points awarded by the
 * features that cover it; per printed big city, road or city print,
 * ferry and island, whether it was connected, completed and scored. Read
 * from each game through the public board API (the squares filled, each
 * tile's features and their joined feature) and the score hook's items,
 * added up per group of games and summed over groups as integers, as the
 * balance figures are (so heatmaps come out the same for every number of
 * threads and shard). A game's facts cost a few hundred feature lookups:
 * a few percent of a greedy game. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/balance.h"
#include "carcamap/catalog.h"
#include "carcamap/player.h"
#include "carcamap/stats.h"
#include "check/balance_int.h"
#include "check/stats_int.h"
#include "engine/engine.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

static void elements_free(element *el, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(el[i].near);
		free(el[i].feat);
	}
	free(el);
}

void cm_balance_heat_free(cm_balance_heat *h)
{
	if (!h)
		return;
	free(h->sq);
	elements_free(h->el, h->n_el);
	free(h->es);
	free(h);
}

const char *cm_heat_kind_name(cm_heat_kind k)
{
	static const char *const names[] = { "fill", "turn", "points", "use" };
	return (unsigned)k < 4 ? names[k] : NULL;
}

int cm_heat_kind_parse(const char *s, cm_heat_kind *out)
{
	for (int k = 0; k < 4; k++)
		if (strcmp(s, cm_heat_kind_name((cm_heat_kind)k)) == 0) {
			*out = (cm_heat_kind)k;
			return 0;
		}
	return CM_EINVAL;
}

const char *cm_element_kind_name(cm_element_kind k)
{
	static const char *const names[] = { "bigcity", "print", "ferry", "island" };
	return (unsigned)k < 4 ? names[k] : NULL;
}

/* ---- the elements of a map ---- */

static int push32(int32_t **v, int *n, int32_t x)
{
	if ((*n & (*n - 1)) == 0 || *n == 0) { /* a power of two: grow */
		int32_t *p = realloc(*v, (size_t)(*n ? 2 * *n : 4) * sizeof *p);
		if (!p)
			return CM_ENOMEM;
		*v = p;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };

/* The elements of m, in kind order (big cities, prints row-major by side,
 * ferries, islands), each in the map's order. */
static int elements_of(const cm_map *m, element **out, size_t *n_out)
{
	size_t n = m->n_bigcities + m->n_ferries + m->n_islands;
	int N = m->cols * m->rows;
	for (int s = 0; s < N; s++)
		for (int k = 0; k < 4; k++)
			n += m->squares[s].print[k].kind >= CM_PRINT_ROAD;
	element *el = calloc(n + 1, sizeof *el);
	if (!el)
		return CM_ENOMEM;
	size_t i = 0;
	int rc = 0;
	uint32_t *stamp = calloc((size_t)N + 1, sizeof *stamp);
	if (!stamp)
		rc = CM_ENOMEM;
	for (size_t c = 0; c < m->n_bigcities && !rc; c++, i++) {
		const cm_bigcity *bc = &m->bigcities[c];
		element *e = &el[i];
		e->e.kind = CM_ELEMENT_BIGCITY;
		e->e.index = (int)c;
		e->e.name = bc->name;
		e->e.x = e->e.y = e->e.side = -1;
		for (size_t p = 0; p < bc->n_pieces && !rc; p++) {
			const cm_bigcity_piece *pc = &bc->pieces[p];
			if (e->e.y < 0 || pc->y < e->e.y || (pc->y == e->e.y && pc->x < e->e.x)) {
				e->e.x = pc->x;
				e->e.y = pc->y;
			}
			for (size_t f = 0; f < pc->tile.n_features && f < 32 && !rc; f++)
				if (pc->tile.features[f].kind == CM_FEAT_CITY)
					rc = push32(&e->feat, &e->n_feat, (int32_t)((pc->y * m->cols + pc->x) * 32 + (int)f));
			for (int k = 0; k < 4 && !rc; k++) {
				const cm_square *q = cm_map_at(m, pc->x + dx[k], pc->y + dy[k]);
				int s = (pc->y + dy[k]) * m->cols + pc->x + dx[k];
				if (q && cm_square_kind_playable((cm_square_kind)q->kind) && stamp[s] != c + 1) {
					stamp[s] = (uint32_t)c + 1;
					rc = push32(&e->near, &e->n_near, s);
				}
			}
		}
	}
	for (int s = 0; s < N && !rc; s++)
		for (int k = 0; k < 4; k++)
			if (m->squares[s].print[k].kind >= CM_PRINT_ROAD) {
				element *e = &el[i++];
				e->e.kind = CM_ELEMENT_PRINT;
				e->e.index = -1;
				e->e.x = s % m->cols;
				e->e.y = s / m->cols;
				e->e.side = k;
				e->e.name = cm_map_print_label(m, e->e.x, e->e.y, (cm_side)k);
			}
	for (size_t f = 0; f < m->n_ferries && !rc; f++, i++) {
		const cm_ferry *fe = &m->ferries[f];
		element *e = &el[i];
		e->e.kind = CM_ELEMENT_FERRY;
		e->e.index = (int)f;
		e->e.name = fe->name;
		e->e.x = fe->x1;
		e->e.y = fe->y1;
		e->e.side = (int)fe->s1;
		int ends[2][3] = { { fe->x1, fe->y1, (int)fe->s1 }, { fe->x2, fe->y2, (int)fe->s2 } };
		memcpy(e->ends, ends, sizeof ends);
	}
	size_t first_island = i;
	for (size_t k = 0; k < m->n_islands && !rc; k++, i++) {
		element *e = &el[i];
		e->e.kind = CM_ELEMENT_ISLAND;
		e->e.index = (int)k;
		e->e.name = m->islands[k].name;
		e->e.x = e->e.y = e->e.side = -1;
	}
	for (int s = 0; s < N && !rc; s++) {
		int32_t k = m->squares[s].island;
		if (k < 0 || (size_t)k >= m->n_islands)
			continue;
		element *e = &el[first_island + (size_t)k];
		if (e->e.x < 0) {
			e->e.x = s % m->cols;
			e->e.y = s / m->cols;
		}
		rc = push32(&e->near, &e->n_near, s);
	}
	free(stamp);
	if (rc) {
		elements_free(el, n);
		return rc;
	}
	*out = el;
	*n_out = n;
	return 0;
}

int cm__heat_new(const cm_map *m, cm_balance_heat **out)
{
	*out = NULL;
	cm_balance_heat *h = calloc(1, sizeof *h);
	size_t N = (size_t)m->cols * (size_t)m->rows;
	if (!h || !(h->sq = calloc(N * HS_N + 1, sizeof *h->sq)) || elements_of(m, &h->el, &h->n_el) ||
	    !(h->es = calloc(h->n_el * HE_N + 1, sizeof *h->es))) {
		cm_balance_heat_free(h);
		return CM_ENOMEM;
	}
	h->cols = m->cols;
	h->rows = m->rows;
	*out = h;
	return 0;
}

void cm__heat_add(cm_balance_heat *h, const cm_balance_heat *t)
{
	size_t N = (size_t)h->cols * (size_t)h->rows;
	h->groups += t->groups;
	h->games += t->games;
	for (size_t i = 0; i < N * HS_N; i++)
		h->sq[i] += t->sq[i];
	for (size_t i = 0; i < h->n_el * HE_N; i++)
		h->es[i] += t->es[i];
}

void cm__heat_zero(cm_balance_heat *h)
{
	h->groups = h->games = 0;
	memset(h->sq, 0, (size_t)h->cols * (size_t)h->rows * HS_N * sizeof *h->sq);
	memset(h->es, 0, h->n_el * HE_N * sizeof *h->es);
}

/* ---- one game's facts ---- */

/* The points awarded to each feature scored in a game, by the piece that
 * names it (square * 32 + feature, as score items name it): an open
 * addressing table cleared by generation. */
typedef struct {
	int64_t key;
	int points;
	uint32_t gen;
} scored_slot;

struct cm__heat_acc {
	cm_balance_heat *h;    /* this thread's sums over groups */
	const cm_map *m;
	const cm_deck *deck;
	int cols, N;
	scored_slot *tab;
	size_t cap, used;
	uint32_t gen;
	int *sq_points;        /* this game: points on squares from island and town items */
	uint32_t *sq_gen;      /* the game (gen) sq_points[s] belongs to */
	/* the group: per square, counters and the squares they touched */
	int *g_fill;
	long long *g_turn, *g_points;
	int32_t *touched;
	int n_touched;
	int *e_conn, *e_done, *e_scored; /* per element, games of the group */
	uint32_t *isl_hit;     /* per island: the game (gen) points landed on it */
};

void cm__heat_acc_free(cm__heat_acc *a)
{
	if (!a)
		return;
	free(a->tab);
	free(a->sq_points);
	free(a->sq_gen);
	free(a->g_fill);
	free(a->g_turn);
	free(a->g_points);
	free(a->touched);
	free(a->e_conn);
	free(a->e_done);
	free(a->e_scored);
	free(a->isl_hit);
	free(a);
}

int cm__heat_acc_new(cm_balance_heat *h, const cm_map *m, const cm_deck *deck, cm__heat_acc **out)
{
	*out = NULL;
	cm__heat_acc *a = calloc(1, sizeof *a);
	size_t N = (size_t)m->cols * (size_t)m->rows, ne = h->n_el + 1;
	if (!a)
		return CM_ENOMEM;
	a->h = h;
	a->m = m;
	a->deck = deck;
	a->cols = m->cols;
	a->N = (int)N;
	a->cap = 256;
	if (!(a->tab = calloc(a->cap, sizeof *a->tab)) || !(a->sq_points = calloc(N + 1, sizeof *a->sq_points)) ||
	    !(a->sq_gen = calloc(N + 1, sizeof *a->sq_gen)) || !(a->g_fill = calloc(N + 1, sizeof *a->g_fill)) ||
	    !(a->g_turn = calloc(N + 1, sizeof *a->g_turn)) || !(a->g_points = calloc(N + 1, sizeof *a->g_points)) ||
	    !(a->touched = malloc((N + 1) * sizeof *a->touched)) || !(a->e_conn = calloc(ne, sizeof *a->e_conn)) ||
	    !(a->e_done = calloc(ne, sizeof *a->e_done)) || !(a->e_scored = calloc(ne, sizeof *a->e_scored)) ||
	    !(a->isl_hit = calloc(m->n_islands + 1, sizeof *a->isl_hit))) {
		cm__heat_acc_free(a);
		return CM_ENOMEM;
	}
	a->gen = 1;
	*out = a;
	return 0;
}

static size_t slot_of(int64_t key, size_t cap)
{
	uint64_t k = (uint64_t)key * 0x9E3779B97F4A7C15ull;
	return (size_t)(k >> 32) & (cap - 1);
}

static scored_slot *find(cm__heat_acc *a, int64_t key)
{
	for (size_t i = slot_of(key, a->cap);; i = (i + 1) & (a->cap - 1))
		if (a->tab[i].gen != a->gen || a->tab[i].key == key)
			return &a->tab[i];
}

/* Doubles the table, keeping this game's entries. */
static int grow(cm__heat_acc *a)
{
	size_t cap = a->cap * 2;
	scored_slot *t = calloc(cap, sizeof *t), *old = a->tab;
	if (!t)
		return CM_ENOMEM;
	size_t oc = a->cap;
	a->tab = t;
	a->cap = cap;
	for (size_t i = 0; i < oc; i++)
		if (old[i].gen == a->gen)
			*find(a, old[i].key) = old[i];
	free(old);
	return 0;
}

void cm__heat_acc_items(cm__heat_acc *a, const cm_score_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const cm_score_item *it = &items[i];
		int np = 0;
		for (unsigned m = it->players; m; m &= m - 1)
			np++;
		int pts = it->points * np;
		if (!np || !pts || it->x < 0 || it->y < 0 || it->x >= a->cols)
			continue;
		int s = it->y * a->cols + it->x;
		if (it->type != CM_ITEM_FEATURE) {
			/* coats of arms placed on an island square, a town's cost */
			if (s < a->N) {
				if (a->sq_gen[s] != a->gen) {
					a->sq_gen[s] = a->gen;
					a->sq_points[s] = 0;
				}
				a->sq_points[s] += pts;
			}
			continue;
		}
		if ((a->used + 1) * 2 > a->cap && grow(a))
			continue; /* out of memory: the heatmap misses these points */
		int64_t key = (int64_t)s * 32 + it->feature;
		scored_slot *sl = find(a, key);
		if (sl->gen != a->gen) {
			sl->gen = a->gen;
			sl->key = key;
			sl->points = 0;
			a->used++;
		}
		sl->points += pts;
	}
}

/* Points awarded to the joined feature of feature f on (x,y), 0 when none;
 * its piece that names it in *key. */
static int feature_points(cm__heat_acc *a, const cm_board *b, int x, int y, int f, int64_t *key, bool *complete)
{
	cm_feature_info fi;
	*key = -1;
	if (cm_board_feature(b, x, y, f, &fi) < 0 || fi.wx < 0)
		return 0;
	if (complete)
		*complete = fi.complete;
	*key = ((int64_t)fi.wy * a->cols + fi.wx) * 32 + fi.wfeature;
	scored_slot *sl = find(a, *key);
	return sl->gen == a->gen ? sl->points : 0;
}

static void touch(cm__heat_acc *a, int s)
{
	if (!a->g_fill[s] && !a->g_turn[s] && !a->g_points[s])
		a->touched[a->n_touched++] = s;
}

/* The points on square s this game: each joined feature covering it
 * once, and its items. */
static long long square_points(cm__heat_acc *a, const cm_board *b, int s, int nf)
{
	int64_t seen[CM_MAX_FEATURES];
	int n_seen = 0;
	long long pts = a->sq_gen[s] == a->gen ? a->sq_points[s] : 0;
	for (int f = 0; f < nf && f < CM_MAX_FEATURES; f++) {
		int64_t key;
		int p = feature_points(a, b, s % a->cols, s / a->cols, f, &key, NULL);
		if (!p)
			continue;
		bool dup = false;
		for (int k = 0; k < n_seen; k++)
			dup |= seen[k] == key;
		if (!dup) {
			seen[n_seen++] = key;
			pts += p;
		}
	}
	return pts;
}

/* The feature of the tile on (x,y) that meets side `side` (its middle
 * slot: a road's, or a city's), or -1. */
static int side_feature(const cm_board *b, const cm_deck *deck, int x, int y, int side)
{
	int t, r;
	if (cm_board_tile_at(b, x, y, &t, &r) < 0)
		return -1;
	const cm_tile_type *tt = cm_deck_type(deck, (size_t)t);
	int slot = (3 * side + 1 - 3 * r + 48) % 12; /* the placed slot, turned back */
	return tt ? tt->slot_feature[slot] : -1;
}

/* Connected, completed, scored of element e this game. */
static void element_facts(cm__heat_acc *a, const cm_board *b, const element *e, bool *conn, bool *done, bool *scored)
{
	*conn = *done = *scored = false;
	int64_t key;
	bool complete = false;
	switch (e->e.kind) {
	case CM_ELEMENT_BIGCITY:
		for (int i = 0; i < e->n_near && !*conn; i++)
			*conn = cm_board_tile_at(b, e->near[i] % a->cols, e->near[i] / a->cols, NULL, NULL) == 0;
		*done = e->n_feat > 0;
		for (int i = 0; i < e->n_feat; i++) {
			int s = e->feat[i] / 32;
			int p = feature_points(a, b, s % a->cols, s / a->cols, e->feat[i] % 32, &key, &complete);
			*done &= complete;
			*scored |= p != 0;
		}
		break;
	case CM_ELEMENT_PRINT:
	case CM_ELEMENT_FERRY:
		for (int k = 0; k < (e->e.kind == CM_ELEMENT_FERRY ? 2 : 1); k++) {
			int x = e->e.kind == CM_ELEMENT_FERRY ? e->ends[k][0] : e->e.x;
			int y = e->e.kind == CM_ELEMENT_FERRY ? e->ends[k][1] : e->e.y;
			int side = e->e.kind == CM_ELEMENT_FERRY ? e->ends[k][2] : e->e.side;
			int f = side_feature(b, a->deck, x, y, side);
			if (f < 0)
				continue;
			*conn = true;
			complete = false;
			int p = feature_points(a, b, x, y, f, &key, &complete);
			*done |= complete;
			*scored |= p != 0;
		}
		break;
	case CM_ELEMENT_ISLAND: {
		int filled = 0;
		for (int i = 0; i < e->n_near; i++) {
			int x = e->near[i] % a->cols, y = e->near[i] / a->cols;
			bool has = cm_board_tile_at(b, x, y, NULL, NULL) == 0;
			filled += has;
			*conn |= has || cm_board_open_square(b, x, y);
		}
		*done = e->n_near > 0 && filled == e->n_near;
		*scored = a->isl_hit[e->e.index] == a->gen;
		break;
	}
	}
}

void cm__heat_acc_game(cm__heat_acc *a, const cm_board *b)
{
	const int32_t *sq;
	int n = cm__board_filled(b, &sq), setup = cm_board_stats(b)->setup_tiles;
	for (int i = 0; i < n; i++) {
		int s = sq[i], t;
		if (cm_board_tile_at(b, s % a->cols, s / a->cols, &t, NULL) < 0)
			continue;
		const cm_tile_type *tt = cm_deck_type(a->deck, (size_t)t);
		long long pts = square_points(a, b, s, tt ? (int)tt->n_features : 0);
		touch(a, s);
		a->g_fill[s]++;
		a->g_turn[s] += i < setup ? 0 : i - setup + 1;
		a->g_points[s] += pts;
		int32_t isl = a->m->squares[s].island;
		if (pts && isl >= 0 && (size_t)isl < a->m->n_islands)
			a->isl_hit[isl] = a->gen;
	}
	/* big-city squares: the points of the features their pieces hold */
	for (size_t c = 0; c < a->m->n_bigcities; c++) {
		const cm_bigcity *bc = &a->m->bigcities[c];
		for (size_t p = 0; p < bc->n_pieces; p++) {
			int s = bc->pieces[p].y * a->cols + bc->pieces[p].x;
			long long pts = square_points(a, b, s, (int)bc->pieces[p].tile.n_features);
			if (pts) {
				touch(a, s);
				a->g_points[s] += pts;
			}
		}
	}
	const cm_balance_heat *h = a->h;
	for (size_t i = 0; i < h->n_el; i++) {
		bool conn, done, scored;
		element_facts(a, b, &h->el[i], &conn, &done, &scored);
		a->e_conn[i] += conn;
		a->e_done[i] += done;
		a->e_scored[i] += scored;
	}
	/* the next game */
	a->used = 0;
	if (++a->gen == 0) { /* wrapped: clear the tables once */
		memset(a->tab, 0, a->cap * sizeof *a->tab);
		memset(a->isl_hit, 0, a->m->n_islands * sizeof *a->isl_hit);
		memset(a->sq_gen, 0, (size_t)a->N * sizeof *a->sq_gen);
		a->gen = 1;
	}
}

void cm__heat_acc_group(cm__heat_acc *a, int games)
{
	cm_balance_heat *h = a->h;
	long long u = CM_BALANCE_SHARE / (games > 0 && games <= CM_MAX_PLAYERS ? games : 1);
	for (int i = 0; i < a->n_touched; i++) {
		int s = a->touched[i];
		long long *v = &h->sq[(size_t)s * HS_N];
		long long f = u * a->g_fill[s], t = u * a->g_turn[s], p = u * a->g_points[s];
		v[HS_FILL] += f;
		v[HS_FILL_SQ] += f * f;
		v[HS_TURN] += t;
		v[HS_TURN_SQ] += t * t;
		v[HS_TURN_FILL] += t * f;
		v[HS_POINTS] += p;
		v[HS_POINTS_SQ] += p * p;
		a->g_fill[s] = 0;
		a->g_turn[s] = 0;
		a->g_points[s] = 0;
	}
	a->n_touched = 0;
	for (size_t i = 0; i < h->n_el; i++) {
		long long *v = &h->es[i * HE_N];
		long long c = u * a->e_conn[i], d = u * a->e_done[i], s = u * a->e_scored[i];
		v[HE_CONN] += c;
		v[HE_CONN_SQ] += c * c;
		v[HE_DONE] += d;
		v[HE_DONE_SQ] += d * d;
		v[HE_SCORED] += s;
		v[HE_SCORED_SQ] += s * s;
		v[HE_CONN_GAMES] += a->e_conn[i];
		v[HE_DONE_GAMES] += a->e_done[i];
		v[HE_SCORED_GAMES] += a->e_scored[i];
		a->e_conn[i] = a->e_done[i] = a->e_scored[i] = 0;
	}
	h->groups++;
	h->games += games;
}

/* ---- the figures ---- */

long long cm_balance_heat_games(const cm_balance_heat *h)
{
	return h ? h->games : 0;
}

/* A group mean over h's groups: sum, sum of squares, per game. */
static cm_interval per_game(const cm_balance_heat *h, long long sum, long long sum_sq)
{
	return cm__mean_interval(sum, sum_sq, h->groups, CM_BALANCE_SHARE);
}

int cm_balance_heat_square(const cm_balance_heat *h, cm_heat_kind k, int x, int y, cm_interval *out)
{
	*out = (cm_interval){ NAN, NAN, NAN };
	if (!h || x < 0 || y < 0 || x >= h->cols || y >= h->rows || h->groups < 1)
		return CM_ENOTFOUND;
	const long long *v = &h->sq[((size_t)y * (size_t)h->cols + (size_t)x) * HS_N];
	switch (k) {
	case CM_HEAT_FILL:
		*out = per_game(h, v[HS_FILL], v[HS_FILL_SQ]);
		break;
	case CM_HEAT_POINTS:
		*out = per_game(h, v[HS_POINTS], v[HS_POINTS_SQ]);
		break;
	case CM_HEAT_TURN: {
		/* a ratio of two group sums (turns over fills), its interval
		 * by the delta method: s^2 of (turn - R fill) over the groups */
		long long G = h->groups;
		if (v[HS_FILL] == 0)
			return CM_ENOTFOUND;
		long double R = (long double)v[HS_TURN] / v[HS_FILL], xbar = (long double)v[HS_FILL] / G;
		out->value = (double)R;
		if (G < 2)
			break;
		long double ss = (long double)v[HS_TURN_SQ] - 2 * R * v[HS_TURN_FILL] + R * R * v[HS_FILL_SQ];
		long double var = ss > 0 ? ss / (G - 1) / (G * xbar * xbar) : 0;
		double half = cm__t975(G - 1) * (double)sqrtl(var);
		out->lo = out->value - half;
		out->hi = out->value + half;
		break;
	}
	case CM_HEAT_USE:
		return CM_ENOTFOUND; /* the elements' figures: cm_balance_heat_element */
	}
	if (k == CM_HEAT_FILL) {
		if (out->lo < 0)
			out->lo = 0;
		if (out->hi > 1)
			out->hi = 1;
	}
	return 0;
}

size_t cm_balance_heat_element_count(const cm_balance_heat *h)
{
	return h ? h->n_el : 0;
}

const cm_heat_element *cm_balance_heat_element(const cm_balance_heat *h, size_t i)
{
	if (!h || i >= h->n_el)
		return NULL;
	element *e = &h->el[i];
	const long long *v = &h->es[i * HE_N];
	e->e.n_connected = v[HE_CONN_GAMES];
	e->e.n_completed = v[HE_DONE_GAMES];
	e->e.n_scored = v[HE_SCORED_GAMES];
	e->e.connected = per_game(h, v[HE_CONN], v[HE_CONN_SQ]);
	e->e.completed = per_game(h, v[HE_DONE], v[HE_DONE_SQ]);
	e->e.scored = per_game(h, v[HE_SCORED], v[HE_SCORED_SQ]);
	cm_interval *iv[3] = { &e->e.connected, &e->e.completed, &e->e.scored };
	for (int k = 0; k < 3; k++) {
		if (iv[k]->lo < 0)
			iv[k]->lo = 0;
		if (iv[k]->hi > 1)
			iv[k]->hi = 1;
	}
	return &e->e;
}

/* "big city Berlin", "road print (3,0) N 'to Denmark'", "ferry Texel", "island mallorca" */
static void element_text(const cm_heat_element *e, char *buf, size_t size)
{
	static const char *const side[] = { "N", "E", "S", "W" };
	switch (e->kind) {
	case CM_ELEMENT_BIGCITY: snprintf(buf, size, "big city %s", e->name ? e->name : "?"); break;
	case CM_ELEMENT_PRINT:
		snprintf(buf, size, "edge print at (%d,%d) %s%s%s%s", e->x, e->y, side[e->side & 3], e->name ? " '" : "",
		         e->name ? e->name : "", e->name ? "'" : "");
		break;
	case CM_ELEMENT_FERRY:
		snprintf(buf, size, "ferry %s(%d,%d) %s", e->name ? e->name : "", e->x, e->y, side[e->side & 3]);
		if (e->name)
			snprintf(buf, size, "ferry %s", e->name);
		break;
	case CM_ELEMENT_ISLAND: snprintf(buf, size, "island %s", e->name ? e->name : "?"); break;
	}
}

void cm_balance_heat_findings(const cm_balance_heat *h, const cm_map *m, cm_diags *d)
{
	if (!h || h->games < 1)
		return;
	for (size_t i = 0; i < h->n_el; i++) {
		const cm_heat_element *e = cm_balance_heat_element(h, i);
		if (e->n_connected && e->n_completed)
			continue;
		char what[CM_TEXT_MAX + 64];
		element_text(e, what, sizeof what);
		unsigned line = 0;
		if (m->file) {
			if (e->kind == CM_ELEMENT_BIGCITY)
				line = m->bigcities[e->index].line;
			else if (e->kind == CM_ELEMENT_FERRY)
				line = m->ferries[e->index].line;
			else if (e->kind == CM_ELEMENT_ISLAND)
				line = m->islands[e->index].line;
			else
				line = cm_map_print_line(m, e->x, e->y, (cm_side)e->side);
		}
		/* every printing of a descriptor plays its own games: name it */
		char *where = line && m->n_printings < 2 ? NULL : cm_asprintf("map %s, %s", m->id ? m->id : "?", what);
		cm_diags_check(d, "CM0605", m->file, line, 0, where, "%s was never %s in %lld simulated games", what,
		               e->n_connected ? "completed" : "connected", h->games);
		if (e->x >= 0)
			cm_diags_set_square(d, e->x, e->y);
		free(where);
	}
}

/* ---- heatmaps of games with the map's own setup ---- */

/* The heatmap rides along cm__play_run_on's games (stats_int.h): each
 * range of games feeds a heatmap of its own through its board's score
 * hook, added to the result in seed order. */
typedef struct {
	const cm_map *map;
	const cm_deck *deck;
	cm_balance_heat *h;
} heat_watch;

typedef struct {
	cm_balance_heat *h;
	cm__heat_acc *acc;
} heat_part;

static void heat_hook(void *arg, const cm_score_item *items, size_t n)
{
	cm__heat_acc_items(arg, items, n);
}

static int heat_begin(void *arg, cm_board *b, void **part)
{
	const heat_watch *w = arg;
	heat_part *p = calloc(1, sizeof *p);
	*part = p;
	if (!p || cm__heat_new(w->map, &p->h) || cm__heat_acc_new(p->h, w->map, w->deck, &p->acc))
		return CM_ENOMEM;
	cm_board_set_score_hook(b, heat_hook, p->acc);
	return 0;
}

static void heat_game(void *part, const cm_board *b)
{
	heat_part *p = part;
	cm__heat_acc_game(p->acc, b);
	cm__heat_acc_group(p->acc, 1);
}

static int heat_end(void *arg, void *part, bool ok)
{
	const heat_watch *w = arg;
	heat_part *p = part;
	if (!p)
		return 0;
	if (ok)
		cm__heat_add(w->h, p->h);
	cm__heat_acc_free(p->acc);
	cm_balance_heat_free(p->h);
	free(p);
	return 0;
}

int cm__heat_play_on(cm__layout *lay, const cm_map *map, const cm_deck *deck, const cm_play_opts *o, cm_diags *d,
                     cm_play_stats **stats, cm_balance_heat **out)
{
	*out = NULL;
	if (stats)
		*stats = NULL;
	cm_balance_heat *h = NULL;
	cm_play_stats *st = NULL;
	if (cm__heat_new(map, &h))
		return CM_ENOMEM;
	heat_watch hw = { map, deck, h };
	cm__play_watch w = { heat_begin, heat_game, heat_end, &hw };
	int rc = cm__play_run_on(lay, map, deck, o, &w, d, &st);
	if (rc < 0) {
		cm_balance_heat_free(h);
		return rc;
	}
	if (stats)
		*stats = st;
	else
		cm_play_stats_free(st);
	*out = h;
	return 0;
}

int cm_balance_heat_play(const cm_map *map, const cm_deck *deck, const cm_play_opts *o, cm_diags *d,
                         cm_balance_heat **out)
{
	*out = NULL;
	if (o->seats < 2 || o->seats > CM_MAX_PLAYERS || o->games < 1)
		return CM_EINVAL;
	cm_play_opts po = *o;
	po.progress = NULL; /* unused, as documented */
	return cm__heat_play_on(NULL, map, deck, &po, d, NULL, out);
}
