/* SPDX-License-Identifier: MIT */
/* wagon.c: the Abbey & Mayor figures in the rules engine (carcamap/board.h
 * "Wagons and abbeys"): placing abbeys (ABBEY-PLACE); wagons that wait
 * after their feature scored, and their destinations per edition
 * (WAGON-MOVE; WAGON-C1 through the tile types' contacts and the abbeys'
 * play-time contacts; WAGON-C2 by range around the wagon's square). */
#include <stdlib.h>
#include <string.h>
#include "engine/board_int.h"

int cm_board_wagons(const cm_board *b, int player)
{
	return player >= 0 && player < b->n_players ? b->wagons[player] : 0;
}

int cm_board_abbeys(const cm_board *b, int player)
{
	return player >= 0 && player < b->n_players ? b->abbeys[player] : 0;
}

/* ---- abbeys (ABBEY-PLACE) ---- */

/* Side d of empty square s faces a tile, or something that can never hold
 * one (a big-city square, a landmark, waves, the map edge), which counts
 * when abbey-edge is on. An empty square that may take a tile never does. */
static bool abbey_side(const cm_board *b, int s, int d)
{
	int q = cm__nb(b, s, d);
	if (q >= 0 && b->tile[q] >= 0)
		return true;
	if (q >= 0 && (b->sflags[q] & SF_PLAYABLE))
		return false;
	return b->rules.abbey_edge;
}

static bool abbey_square(const cm_board *b, int s)
{
	if (s < 0 || b->front_pos[s] < 0)
		return false; /* the frontier: empty, playable, allowed, reached */
	for (int d = 0; d < 4; d++)
		if (!abbey_side(b, s, d))
			return false;
	return true;
}

static bool may_place_abbey(const cm_board *b)
{
	return b->abbey_type >= 0 && b->abbeys[b->cur] > 0 && b->last_sq < 0 && !b->n_wait &&
	       !b->final_done;
}

bool cm_board_abbey_legal(const cm_board *b, int x, int y)
{
	return may_place_abbey(b) && abbey_square(b, cm__sq_index(b, x, y));
}

size_t cm_board_abbey_squares(const cm_board *b, cm_placement *out, size_t max)
{
	size_t n = 0;
	if (!may_place_abbey(b))
		return 0;
	for (int s = 0; s < b->L.n_sq; s++) {
		if (!abbey_square(b, s))
			continue;
		if (out && n < max) {
			out[n].x = s % b->L.cols;
			out[n].y = s / b->L.cols;
			out[n].rot = 0;
		}
		n++;
	}
	return n;
}

int cm__abbey_front(const cm_board *b, int nth)
{
	int n = 0;
	for (int i = 0; i < b->n_front; i++)
		if (abbey_square(b, b->front[i]) && n++ == nth)
			return b->front[i];
	return nth < 0 ? n : -1;
}

int cm_board_place_abbey(cm_board *b, int x, int y)
{
	int s = cm__sq_index(b, x, y);
	if (!may_place_abbey(b) || !abbey_square(b, s))
		return CM_EINVAL;
	cm__put_tile(b, b->abbey_type, s, 0);
	b->abbeys[b->cur]--;
	b->last_sq = s;
	b->deployed = false;
	cm__log_move(b, CM_MOVE_ABBEY, b->abbey_type, s, 0);
	b->stats.abbeys_placed++;
	return 0;
}

/* ---- waiting wagons (WAGON-MOVE) ---- */

void cm__wagon_order(cm_board *b, int placer)
{
	/* clockwise from the player whose turn scored; one wagon per player */
	for (int i = 1; i < b->n_wait; i++) {
		wagon_wait w = b->wait[i];
		int key = (w.player - placer + b->n_players) % b->n_players, j = i;
		for (; j > 0 && (b->wait[j - 1].player - placer + b->n_players) % b->n_players > key; j--)
			b->wait[j] = b->wait[j - 1];
		b->wait[j] = w;
	}
}

void cm__wagon_settle(cm_board *b)
{
	/* WAGON-MOVE: "with no such feature it goes back to the supply"; asked
	 * only when the wagon is first to move, after the ones before it moved */
	while (b->n_wait && cm__wagon_dests(b, NULL, 0, -1) == 0) {
		b->wagons[b->wait[0].player]++;
		b->stats.wagon_returns++;
		b->n_wait--;
		memmove(&b->wait[0], &b->wait[1], (size_t)b->n_wait * sizeof *b->wait);
	}
}

int cm_board_wagon_pending(const cm_board *b, cm_wagon_pending *out)
{
	if (b->n_wait && out) {
		const wagon_wait *w = &b->wait[0];
		cm_score_item it;
		memset(&it, 0, sizeof it);
		it.x = it.y = it.feature = -1;
		cm__item_where(b, w->root, &it);
		out->player = w->player;
		out->x = w->sq % b->L.cols;
		out->y = w->sq / b->L.cols;
		out->fx = it.x;
		out->fy = it.y;
		out->feature = it.feature;
		out->kind = (cm_feature_kind)b->nodes[w->root].kind;
	}
	return b->n_wait;
}

const char *cm_wagon_why_name(cm_wagon_why w)
{
	static const char *const names[] = { "allowed", "field", "complete", "occupied",
		                             "not-adjacent", "city", "too-far" };
	return (unsigned)w < sizeof names / sizeof names[0] ? names[w] : "?";
}

const char *cm_wagon_why_text(cm_wagon_why w)
{
	static const char *const texts[] = {
		"an incomplete, unoccupied feature next to the scored one (WAGON-MOVE)",
		"a field or a garden is never a destination (WAGON-MOVE)",
		"the feature is complete (WAGON-MOVE)",
		"a follower stands on the feature (WAGON-MOVE, BASE-OCCUPIED)",
		("it does not touch the scored feature: no gate, junction, road end, shared surface "
		 "or abbey joins them (WAGON-C1)"),
		"two cities are never adjacent (WAGON-C1)",
		"this piece is more than one square from where the wagon stood (WAGON-C2)",
	};
	return (unsigned)w < sizeof texts / sizeof texts[0] ? texts[w] : "?";
}

/* The tile type on square s: a placed tile or a big-city piece. */
static const cm_tile_type *sq_type(const cm_board *b, int s)
{
	if (b->tile[s] >= 0)
		return b->deck->types[b->tile[s]];
	return (b->L.sflags0[s] & SF_BIGCITY) ? b->L.bc_tile[b->L.bc_type[s]] : NULL;
}

static int sq_rot(const cm_board *b, int s)
{
	return b->tile[s] >= 0 ? b->rot[s] : 0;
}

static bool is_abbey_sq(const cm_board *b, int q)
{
	return q >= 0 && b->tile[q] >= 0 && b->deck->info[b->tile[q]].abbey;
}

/* Per-query scratch: the features C1-adjacent to the scored one, marked
 * with the current stamp, with what made them adjacent. The queries are
 * const to the caller: these arrays, like union-find's path compression,
 * change no observable state. */
typedef struct {
	cm_board *b;
	const wagon_wait *w;
	uint32_t ep;
	bool c1;
} ctx;

static void mark(ctx *c, int32_t r, cm_wagon_via via, int32_t sq)
{
	cm_board *b = c->b;
	if (r == c->w->root || b->wmark[r] == c->ep)
		return; /* the first contact found names it */
	b->wmark[r] = c->ep;
	b->wvia[r] = (uint8_t)via;
	b->wvsq[r] = sq;
}

/* WAGON-C1: what touches the scored feature directly: members of a
 * contact group of a tile its pieces lie on (gates, junctions, monasteries
 * at a road's end or inside a city), and the abbeys' play-time contacts (a
 * road or city side an abbey closes touches that abbey). */
static void c1_adjacent(ctx *c)
{
	cm_board *b = c->b;
	node *n = b->nodes;
	int32_t F = c->w->root, p = F;
	do {
		int s = b->nx[p].sq;
		if (s < b->L.n_sq) {
			const cm_tile_type *t = sq_type(b, s);
			const type_info *ti = cm__sq_info(b, s);
			int32_t lo;
			int k = cm__sq_nodes(b, s, &lo), f = b->nx[p].feat;
			for (size_t i = 0; t && i < t->n_contacts; i++) {
				uint32_t m = t->contacts[i];
				if (!((m >> f) & 1))
					continue;
				for (int g = 0; g < k; g++)
					if (g != f && ((m >> g) & 1))
						mark(c, cm__find(n, lo + g), CM_WAGON_VIA_CONTACT, s);
			}
			for (int d = 0; d < 4; d++) {
				int q = cm__nb(b, s, d);
				if (q < 0)
					continue;
				if (ti->abbey) { /* the scored abbey touches what it closes */
					const type_info *qi = cm__sq_info(b, q);
					int32_t qlo;
					if (!qi || cm__sq_nodes(b, q, &qlo) == 0)
						continue;
					int g = qi->slot[sq_rot(b, q)][cm_slot_facing(3 * d + 1)];
					if (qi->kind[g] == CM_FEAT_ROAD || qi->kind[g] == CM_FEAT_CITY)
						mark(c, cm__find(n, qlo + g), CM_WAGON_VIA_ABBEY, s);
				} else if (is_abbey_sq(b, q) && ti->slot[sq_rot(b, s)][3 * d + 1] == f &&
				           (n[p].kind == CM_FEAT_ROAD || n[p].kind == CM_FEAT_CITY)) {
					mark(c, cm__find(n, b->mon[q]), CM_WAGON_VIA_ABBEY, q);
				}
			}
		}
		p = n[p].next;
	} while (p != F);
}

static bool prepare(ctx *c, const cm_board *cb)
{
	if (!cb->n_wait)
		return false;
	cm_board *b = (cm_board *)cb; /* scratch only, see ctx */
	c->b = b;
	c->w = &b->wait[0];
	c->c1 = b->rules.edition == CM_EDITION_C1;
	if (++b->wepoch == 0) {
		memset(b->wmark, 0, (size_t)b->max_nodes * sizeof *b->wmark);
		b->wepoch = 1;
	}
	c->ep = b->wepoch;
	if (c->c1)
		c1_adjacent(c);
	return true;
}

static bool complete(const node *r)
{
	return r->open == 0 || (r->flags & NF_DONE);
}

static bool in_range(const cm_board *b, int s, int centre)
{
	int dx = s % b->L.cols - centre % b->L.cols, dy = s / b->L.cols - centre / b->L.cols;
	return dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1;
}

/* The piece nd as a destination; the checks in cm_wagon_why order. */
static cm_wagon_why judge(const ctx *c, int32_t nd)
{
	const cm_board *b = c->b;
	node *n = b->nodes;
	int32_t r = cm__find(n, nd);
	if (n[r].kind == CM_FEAT_FIELD || n[r].kind == CM_FEAT_GARDEN)
		return CM_WAGON_FIELD;
	if (complete(&n[r]))
		return CM_WAGON_COMPLETE;
	if (n[r].nfol)
		return CM_WAGON_OCCUPIED;
	if (!c->c1)
		return in_range(b, b->nx[nd].sq, c->w->sq) ? CM_WAGON_ALLOWED : CM_WAGON_TOO_FAR;
	if (b->wmark[r] != c->ep)
		return CM_WAGON_NOT_ADJACENT;
	if (n[r].kind == CM_FEAT_CITY && n[c->w->root].kind == CM_FEAT_CITY)
		return CM_WAGON_CITY;
	return CM_WAGON_ALLOWED;
}

static const char *c1_reason(int sk, int dk, int via)
{
	if (via == CM_WAGON_VIA_ABBEY)
		return sk == CM_FEAT_ABBEY ? "closed by the abbey" : "abbey closing it";
	if (sk == CM_FEAT_CITY && dk == CM_FEAT_ROAD)
		return "road leaving the city through a gate";
	if (sk == CM_FEAT_CITY && dk == CM_FEAT_MONASTERY)
		return "monastery inside the city";
	if (sk == CM_FEAT_ROAD && dk == CM_FEAT_ROAD)
		return "road meeting it at the same junction";
	if (sk == CM_FEAT_ROAD && dk == CM_FEAT_CITY)
		return "city closing the road's end";
	if (sk == CM_FEAT_ROAD && (dk == CM_FEAT_MONASTERY || dk == CM_FEAT_ABBEY))
		return "monastery closing the road's end";
	if ((sk == CM_FEAT_MONASTERY || sk == CM_FEAT_ABBEY) && dk == CM_FEAT_ROAD)
		return "road ending at the monastery";
	if ((sk == CM_FEAT_MONASTERY || sk == CM_FEAT_ABBEY) && dk == CM_FEAT_CITY)
		return "city around the monastery";
	return "touching it on the tile";
}

static void fill(const ctx *c, int32_t nd, cm_wagon_dest *o)
{
	const cm_board *b = c->b;
	node *n = b->nodes;
	int32_t r = cm__find(n, nd);
	cm_score_item it;
	memset(&it, 0, sizeof it);
	it.x = it.y = it.feature = -1;
	cm__item_where(b, r, &it);
	o->x = b->nx[nd].sq % b->L.cols;
	o->y = b->nx[nd].sq / b->L.cols;
	o->feature = b->nx[nd].feat;
	o->fx = it.x;
	o->fy = it.y;
	o->ffeature = it.feature;
	o->kind = (cm_feature_kind)n[r].kind;
	if (c->c1) {
		o->via = (cm_wagon_via)b->wvia[r];
		o->vx = b->wvsq[r] % b->L.cols;
		o->vy = b->wvsq[r] / b->L.cols;
		o->rule = "WAGON-C1";
		o->reason = c1_reason(n[c->w->root].kind, n[r].kind, o->via);
	} else {
		o->via = CM_WAGON_VIA_RANGE;
		o->vx = o->x;
		o->vy = o->y;
		o->rule = "WAGON-C2";
		o->reason = "within one square of the wagon";
	}
}

size_t cm__wagon_dests(const cm_board *cb, cm_wagon_dest *out, size_t max, long nth)
{
	ctx c;
	if (!prepare(&c, cb))
		return 0;
	const cm_board *b = c.b;
	/* C2: only the 3x3 squares around the wagon can hold a destination */
	int x0 = 0, x1 = b->L.cols - 1, y0 = 0, y1 = b->L.rows - 1;
	if (!c.c1) {
		int wx = c.w->sq % b->L.cols, wy = c.w->sq / b->L.cols;
		x0 = wx > 0 ? wx - 1 : 0;
		y0 = wy > 0 ? wy - 1 : 0;
		x1 = wx + 1 < b->L.cols ? wx + 1 : wx;
		y1 = wy + 1 < b->L.rows ? wy + 1 : wy;
	}
	size_t n = 0;
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++) {
			int s = y * b->L.cols + x;
			int32_t lo;
			int k = cm__sq_nodes(b, s, &lo);
			for (int f = 0; f < k; f++) {
				if (judge(&c, lo + f) != CM_WAGON_ALLOWED)
					continue;
				if (nth < 0 && out && n < max)
					fill(&c, lo + f, &out[n]);
				else if (nth >= 0 && (long)n == nth && out && max)
					fill(&c, lo + f, &out[0]);
				n++;
			}
		}
	return n;
}

size_t cm_board_wagon_moves(const cm_board *b, cm_wagon_dest *out, size_t max)
{
	return cm__wagon_dests(b, out, max, -1);
}

/* The node of feature f on (x,y), or -1. */
static int32_t piece(const cm_board *b, int x, int y, int f)
{
	int s = cm__sq_index(b, x, y);
	int32_t lo;
	if (s < 0 || f < 0 || f >= cm__sq_nodes(b, s, &lo))
		return -1;
	return lo + f;
}

int cm_board_wagon_why(const cm_board *b, int x, int y, int f, cm_wagon_why *why, cm_wagon_dest *how)
{
	ctx c;
	int32_t nd = piece(b, x, y, f);
	if (nd < 0 || !prepare(&c, b))
		return CM_ENOTFOUND;
	*why = judge(&c, nd);
	if (*why == CM_WAGON_ALLOWED && how)
		fill(&c, nd, how);
	return 0;
}

int cm_board_wagon_move(cm_board *b, int x, int y, int f)
{
	ctx c;
	if (!b->n_wait)
		return CM_EINVAL;
	wagon_wait w = b->wait[0];
	int32_t nd = -1;
	if (f >= 0) {
		nd = piece(b, x, y, f);
		if (nd < 0 || !prepare(&c, b) || judge(&c, nd) != CM_WAGON_ALLOWED)
			return CM_EINVAL;
		cm__put_follower(b, w.player, CM_FOLLOWER_WAGON, nd);
		b->stats.wagon_moves++;
	} else {
		b->wagons[w.player]++; /* "or take it back" */
		b->stats.wagon_returns++;
	}
	cm__log_move(b, CM_MOVE_WAGON, 0, nd >= 0 ? b->nx[nd].sq : -1, 0);
	move_rec *mv = &b->log[b->n_log - 1];
	mv->player = (uint8_t)w.player;
	mv->feature = (int8_t)(nd >= 0 ? f : -1);
	b->n_wait--;
	memmove(&b->wait[0], &b->wait[1], (size_t)b->n_wait * sizeof *b->wait);
	cm__wagon_settle(b);
	return 0;
}
