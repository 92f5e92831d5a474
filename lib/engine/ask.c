/* SPDX-License-Identifier: MIT */
/* ask.c: the questions players ask of a board (carcamap/board.h "What a
 * placement would do"): what a placement or an abbey would join, close and
 * score, answered by mirroring cm__put_tile's joins and cm_board_end_turn's
 * scoring on the features touched, never on the board; the tiles left to
 * draw and a determinization of their order. */
#include <assert.h>
#include <string.h>
#include "engine/board_int.h"
#include "engine/rng_int.h"

/* cm_slot_facing as a table (board.c's) */
static const int8_t facing[12] = { 8, 7, 6, 11, 10, 9, 2, 1, 0, 5, 4, 3 };

/* The players with most followers (score.c's cm__majority; a player
 * holds at most 255 followers and a wagon). */
static unsigned majority(const int *fol, int np)
{
	uint8_t f8[CM_MAX_PLAYERS];
	for (int p = 0; p < np; p++)
		f8[p] = (uint8_t)(fol[p] < 255 ? fol[p] : 255);
	return cm__majority(f8, np);
}

/* A root's state as it is. */
static void root_state(const cm_board *b, int32_t r, cm_feature_state *st)
{
	const node *n = &b->nodes[r];
	st->kind = (cm_feature_kind)n->kind;
	st->tiles = n->tiles;
	st->open = n->open;
	st->arms = n->arms;
	memset(st->followers, 0, sizeof st->followers);
	if (n->nfol) /* most features carry none */
		for (int p = 0; p < b->n_players; p++)
			st->followers[p] = b->nx[r].fol[p];
	if (n->kind == CM_FEAT_MONASTERY || n->kind == CM_FEAT_ABBEY) {
		int s = b->nx[r].sq;
		st->tiles = b->L.around8[s] - n->open;
	} else if (n->kind == CM_FEAT_FIELD || n->kind == CM_FEAT_GARDEN) {
		st->open = 0;
	}
}

/* Empty town squares next to square q and not stamped ep (MAP-TOWN 3),
 * other than s (the square being filled): counted and stamped. */
static int towns_near(cm_board *b, int q, int s, uint32_t ep)
{
	int cnt = 0;
	for (int d = 0; d < 4; d++) {
		int t = cm__nb(b, q, d);
		if (t >= 0 && t != s && b->L.sq_kind[t] == CM_SQ_TOWN && b->tile[t] < 0 && b->stamp[t] != ep) {
			b->stamp[t] = ep;
			cnt++;
		}
	}
	return cnt;
}

/* What a road, city or monastery in state st scores: complete now
 * (cm__score_feature, cm__score_monastery) or at final scoring; towns:
 * the visible towns of a road (town-road-bonus). */
static int points_of(const cm_board *b, const cm_feature_state *st, bool complete, int towns)
{
	switch (st->kind) {
	case CM_FEAT_ROAD:
		return st->tiles + (complete ? 2 : 1) * st->arms + 2 * towns;
	case CM_FEAT_CITY:
		if (!complete)
			return st->tiles + st->arms;
		if (b->rules.tiny_city && st->tiles == 2)
			return 2 + st->arms;
		return 2 * st->tiles + 2 * st->arms;
	case CM_FEAT_MONASTERY:
	case CM_FEAT_ABBEY:
		return 1 + st->tiles;
	default:
		return 0;
	}
}

/* The question's working state. */
typedef struct {
	cm_board *b;      /* scratch only (stamps); the game is read */
	const type_info *ti;
	int s;
	int8_t uf[CM_MAX_FEATURES]; /* the tile's features as sets (local union-find) */
	int open[CM_MAX_FEATURES];  /* per feature: its open edges after its sides joined */
	int32_t root[CM_PLACE_IF_TOUCHED]; /* the board's roots touched */
	int8_t first[CM_PLACE_IF_TOUCHED]; /* the tile feature that joined it first, -1: not joined */
	int8_t closes[CM_PLACE_IF_TOUCHED];/* sides an abbey closes on it */
	int n;
} ask;

static int set_of(ask *a, int f)
{
	while (a->uf[f] != f)
		f = a->uf[f];
	return f;
}

/* Root r, touched (joined by tile feature f, or f -1: closed by an abbey
 * or a monastery around): its entry. */
static int touch(ask *a, int32_t r, int f)
{
	int k = 0;
	while (k < a->n && a->root[k] != r)
		k++;
	if (k == a->n) {
		assert(a->n < CM_PLACE_IF_TOUCHED);
		a->root[k] = r;
		a->first[k] = (int8_t)f;
		a->closes[k] = 0;
		a->n++;
	} else if (f >= 0 && a->first[k] < 0) {
		a->first[k] = (int8_t)f;
	}
	if (f >= 0 && a->first[k] >= 0) {
		int x = set_of(a, f), y = set_of(a, a->first[k]);
		if (x != y) /* the lower index names the set */
			a->uf[x > y ? x : y] = (int8_t)(x < y ? x : y);
	}
	return k;
}

/* Side d: cm__put_tile's put_side and join_side (join_abbey included),
 * recorded instead of done. */
static CM__INLINE void side(ask *a, const int8_t *sa, int d)
{
	cm_board *b = a->b;
	const node *n = b->nodes;
	const type_info *ti = a->ti;
	int s = a->s, cls = (b->L.side_cls[s] >> (2 * d)) & 3;
	int32_t c;
	const int8_t *sc;
	if (cls == SC_NONE || cls == SC_STATIC) {
		/* the map edge: a printed segment or ferry joins, anything else closes */
		int f = sa[3 * d + 1], kx = ti->kind[f];
		int32_t st = cm__side_static(&b->L, s, d);
		bool rc_st = st >= 0 && (n[st].kind == CM_FEAT_ROAD || n[st].kind == CM_FEAT_CITY);
		if (kx == CM_FEAT_ABBEY && rc_st) {
			a->closes[touch(a, cm__find(n, st), -1)]++;
			return;
		}
		if (kx != CM_FEAT_ROAD && kx != CM_FEAT_CITY)
			return;
		if (st >= 0 && n[st].kind == kx) {
			touch(a, cm__find(n, st), f);
			a->open[f] -= 2;
		} else {
			a->open[f]--;
		}
		return;
	}
	int q = s + b->L.off4[d];
	if (cls == SC_BIGCITY) {
		c = b->L.bc_base[q];
		sc = b->L.bc_info[b->L.bc_type[q]].slot[0];
	} else if (b->tile[q] >= 0) {
		c = b->base[q];
		sc = b->deck->info[b->tile[q]].slot[b->rot[q]];
	} else {
		return; /* an empty square */
	}
	for (int p = 0; p < 3; p++) {
		int ia = 3 * d + p, f = sa[ia], kx = ti->kind[f];
		int32_t y = c + sc[facing[ia]];
		int ky = n[y].kind;
		if (kx == CM_FEAT_ABBEY || ky == CM_FEAT_ABBEY) {
			/* the abbey closes the road or city it meets */
			if (p == 1 && kx == CM_FEAT_ABBEY && (ky == CM_FEAT_ROAD || ky == CM_FEAT_CITY))
				a->closes[touch(a, cm__find(n, y), -1)]++;
			else if (p == 1 && ky == CM_FEAT_ABBEY && (kx == CM_FEAT_ROAD || kx == CM_FEAT_CITY))
				a->open[f]--;
			continue;
		}
		if (kx != ky)
			continue;
		if (kx == CM_FEAT_FIELD) {
			touch(a, cm__find(n, y), f);
		} else if (p == 1 && (kx == CM_FEAT_ROAD || kx == CM_FEAT_CITY)) {
			touch(a, cm__find(n, y), f);
			a->open[f] -= 2;
		}
	}
}

/* The squares two or more of the roots in keys[0..k) hold (BASE-TILE-COUNT:
 * a square holding pieces of one kind in several roots counts once when
 * they join), counted as the engine's unions count them. Only roots with
 * NF_MULTI pieces can share a square: their NF_MULTI lists are walked, a
 * fresh stamp per root. */
static int shared_squares(ask *a, const int32_t *roots, int k)
{
	cm_board *b = a->b;
	const node *n = b->nodes;
	int multi = 0;
	for (int i = 0; i < k; i++)
		multi += (n[roots[i]].flags & NF_MULTI) != 0;
	if (multi < 2)
		return 0;
	/* k consecutive stamps, none wrapping: stamp >= e0 means seen by an
	 * earlier root of this count */
	if (b->epoch > UINT32_MAX - (uint32_t)k - 1)
		b->epoch = UINT32_MAX; /* the next cm__epoch clears and starts over */
	uint32_t e0 = cm__epoch(b);
	b->epoch += (uint32_t)k;
	int cnt = 0;
	for (int i = 0; i < k; i++) {
		int32_t r = roots[i];
		if (!(n[r].flags & NF_MULTI))
			continue;
		uint32_t ei = e0 + (uint32_t)i + 1;
		int32_t h = b->nx[r].mhead, p = h;
		do {
			int q = b->nx[p].sq;
			uint32_t st = b->stamp[q];
			if (st != ei) {
				cnt += st >= e0 && st < ei;
				b->stamp[q] = ei;
			}
			p = b->nx[p].mnext;
		} while (p != h);
	}
	return cnt;
}

/* Visible towns of the road whose roots are roots[0..k) once the tile on
 * s is placed (MAP-TOWN 3), with_s when the road has pieces on s. */
static int set_towns(ask *a, const int32_t *roots, int k, bool with_s)
{
	cm_board *b = a->b;
	const node *n = b->nodes;
	uint32_t ep = cm__epoch(b);
	int cnt = with_s ? towns_near(b, a->s, a->s, ep) : 0;
	for (int i = 0; i < k; i++) {
		int32_t p = roots[i];
		do {
			int q = b->nx[p].sq;
			if (q < b->L.n_sq)
				cnt += towns_near(b, q, a->s, ep);
			p = n[p].next;
		} while (p != roots[i]);
	}
	return cnt;
}

/* The roots of touched[] that set g joins, into roots; their count. */
static int set_roots(const ask *a, const int8_t *set, int g, int32_t *roots)
{
	int k = 0;
	for (int i = 0; i < a->n; i++)
		if (a->first[i] >= 0 && set[a->first[i]] == g)
			roots[k++] = a->root[i];
	return k;
}

/* The tile's sets (set[f]: the lowest feature index joined with f) after
 * the placement, into features[g] for each set g: the tile's pieces and
 * the roots joined (their states before in touched[]) summed in one pass
 * each, then per set its tiles, completion, points and players. */
static void sets_after(ask *a, const int8_t *set, const cm_touched_if *touched, cm_feature_if *features)
{
	cm_board *b = a->b;
	const type_info *ti = a->ti;
	int nf = ti->n_feat, pieces[CM_MAX_FEATURES], multi[CM_MAX_FEATURES];
	for (int f = 0; f < nf; f++) {
		if (set[f] != f)
			continue;
		memset(&features[f], 0, sizeof features[f]);
		features[f].set = f;
		features[f].after.kind = (cm_feature_kind)ti->kind[f];
		pieces[f] = multi[f] = 0;
	}
	for (int f = 0; f < nf; f++) {
		cm_feature_state *st = &features[set[f]].after;
		pieces[set[f]]++;
		st->open += a->open[f];
		st->arms += ti->arms[f];
	}
	for (int i = 0; i < a->n; i++) {
		if (a->first[i] < 0)
			continue;
		int g = set[a->first[i]];
		cm_feature_state *st = &features[g].after;
		const cm_feature_state *r = &touched[i].before;
		st->tiles += r->tiles;
		st->open += r->open;
		st->arms += r->arms;
		for (int p = 0; p < b->n_players; p++)
			st->followers[p] += r->followers[p];
		multi[g] += (b->nodes[a->root[i]].flags & NF_MULTI) != 0;
	}
	for (int g = 0; g < nf; g++) {
		if (set[g] != g)
			continue;
		cm_feature_if *o = &features[g];
		cm_feature_state *st = &o->after;
		int towns = 0;
		int32_t roots[CM_PLACE_IF_TOUCHED];
		switch (st->kind) {
		case CM_FEAT_ROAD:
		case CM_FEAT_CITY:
			/* the new square once; squares two joined roots share once
			 * (only roots with NF_MULTI pieces can share one) */
			st->tiles += 1;
			if (multi[g] >= 2)
				st->tiles -= shared_squares(a, roots, set_roots(a, set, g, roots));
			o->complete = st->open == 0;
			if (st->kind == CM_FEAT_ROAD && b->rules.town_road_bonus)
				towns = set_towns(a, roots, set_roots(a, set, g, roots), true);
			break;
		case CM_FEAT_MONASTERY:
		case CM_FEAT_ABBEY: {
			/* the squares around still to fill, as cm__put_tile counts them */
			int s = a->s, missing = 0;
			for (int j = 0; j < 8; j++) {
				int q = cm__nb8(b, s, j);
				missing += q >= 0 && (b->sflags[q] & SF_PLAYABLE) && b->tile[q] < 0;
			}
			st->open = missing;
			st->tiles = b->L.around8[s] - missing;
			o->complete = missing == 0;
			break;
		}
		case CM_FEAT_FIELD:
			st->tiles += pieces[g];
			st->open = 0;
			break;
		default:
			st->open = 0;
			break;
		}
		o->points = points_of(b, st, o->complete, towns);
		if (o->complete)
			o->players = majority(st->followers, b->n_players);
	}
}

/* A touched root not joined (f -1): a road or city an abbey closes, or
 * a monastery around whose squares to fill drop by one. */
static void closed_after(ask *a, int i, const cm_feature_state *before, cm_feature_if *o)
{
	memset(o, 0, sizeof *o);
	o->set = -1;
	o->after = *before;
	if (before->kind == CM_FEAT_MONASTERY || before->kind == CM_FEAT_ABBEY) {
		o->after.open--;
		o->after.tiles++;
	} else {
		o->after.open -= a->closes[i];
	}
	o->complete = o->after.open == 0;
	int towns = 0;
	if (o->complete && before->kind == CM_FEAT_ROAD && a->b->rules.town_road_bonus)
		towns = set_towns(a, &a->root[i], 1, false);
	o->points = points_of(a->b, &o->after, o->complete, towns);
	if (o->complete)
		o->players = majority(o->after.followers, a->b->n_players);
}

static void add_points(const cm_board *b, int *scores, const cm_feature_if *o)
{
	if (!o->complete)
		return;
	for (int p = 0; p < b->n_players; p++)
		if ((o->players >> p) & 1)
			scores[p] += o->points;
}

/* The answer once the sides are recorded. */
static void answer(ask *a, cm_place_if *out)
{
	cm_board *b = a->b;
	const type_info *ti = a->ti;
	const node *n = b->nodes;
	int s = a->s;
	memset(out->scores, 0, sizeof out->scores);
	/* the monasteries and abbeys around gain the square */
	for (unsigned m = b->mon_near[s]; m; m &= m - 1) {
		int32_t r = b->mon[s + b->L.off8[cm__ctz(m)]];
		if (!(n[r].flags & NF_DONE))
			touch(a, r, -1);
	}
	out->n_touched = a->n;
	for (int i = 0; i < a->n; i++) {
		cm_touched_if *t = &out->touched[i];
		int32_t r = a->root[i];
		root_state(b, r, &t->before);
		/* named as score items name it: the monastery's own piece, else
		 * the feature's lowest piece on a square (cm__item_where) */
		int32_t p = n[r].kind == CM_FEAT_MONASTERY || n[r].kind == CM_FEAT_ABBEY ? r : n[r].minp;
		if (p >= 0) {
			int q = b->nx[p].sq, y = cm__row(b, q);
			t->x = q - y * b->L.cols;
			t->y = y;
			t->feature = b->nx[p].feat;
		} else {
			t->x = t->y = t->feature = -1;
		}
	}
	int8_t set[CM_MAX_FEATURES];
	for (int f = 0; f < ti->n_feat; f++)
		set[f] = (int8_t)set_of(a, f);
	out->n_features = ti->n_feat;
	sets_after(a, set, out->touched, out->features);
	for (int f = 0; f < ti->n_feat; f++) {
		if (set[f] == f)
			add_points(b, out->scores, &out->features[f]);
		else
			out->features[f] = out->features[set[f]]; /* set[f] < f: done */
	}
	for (int i = 0; i < a->n; i++) {
		cm_touched_if *t = &out->touched[i];
		if (a->first[i] >= 0) {
			t->after = out->features[set[a->first[i]]];
		} else {
			closed_after(a, i, &t->before, &t->after);
			add_points(b, out->scores, &t->after);
		}
	}
	if (b->L.island_arms[s])
		out->scores[b->cur] += 2 * b->L.island_arms[s];
	if (b->L.sq_kind[s] == CM_SQ_TOWN && b->rules.town_cost)
		out->scores[b->cur] -= 2;
}

static void ask_init(ask *a, const cm_board *b, int type, int s)
{
	a->b = (cm_board *)b; /* scratch only: stamps, as the wagon questions */
	a->ti = &b->deck->info[type];
	a->s = s;
	a->n = 0;
	for (int f = 0; f < a->ti->n_feat; f++) {
		a->uf[f] = (int8_t)f;
		a->open[f] = a->ti->open0[f];
	}
}

void cm__place_if(const cm_board *b, int type, int s, int rot, cm_place_if *out)
{
	ask a;
	ask_init(&a, b, type, s);
	const int8_t *sa = a.ti->slot[rot];
	for (int d = 0; d < 4; d++)
		side(&a, sa, d);
	answer(&a, out);
}

int cm_board_place_if(const cm_board *b, int type, int x, int y, int rot, cm_place_if *out)
{
	if (b->last_sq >= 0 || b->final_done || !cm_board_legal(b, type, x, y, rot))
		return CM_EINVAL;
	cm__place_if(b, type, y * b->L.cols + x, rot, out);
	return 0;
}

int cm_board_abbey_if(const cm_board *b, int x, int y, cm_place_if *out)
{
	if (!cm_board_abbey_legal(b, x, y))
		return CM_EINVAL;
	ask a;
	ask_init(&a, b, b->abbey_type, y * b->L.cols + x);
	const int8_t *sa = a.ti->slot[0];
	for (int d = 0; d < 4; d++)
		side(&a, sa, d);
	answer(&a, out);
	return 0;
}

int cm_board_remaining(const cm_board *b, int *counts, size_t n)
{
	if (counts)
		memset(counts, 0, n * sizeof *counts);
	for (int i = b->pile_top; counts && i < b->pile_n; i++)
		if ((size_t)b->pile[i] < n)
			counts[b->pile[i]]++;
	return b->pile_n - b->pile_top;
}

int cm_board_shuffle_pile(cm_board *b, int keep, cm_rng *rng)
{
	int lo = b->pile_top + (keep > 0 ? keep : 0);
	if (lo >= b->pile_n)
		return 0;
	uint8_t *p = b->pile + lo;
	int n = b->pile_n - lo;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)cm__rng_below(rng, (uint32_t)(i + 1));
		uint8_t t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	return n;
}
