/* SPDX-License-Identifier: MIT */
/* board.c: the game state (carcamap/board.h "Board"): the map's static
 * structure flattened into arrays, setup (MAP-START), the frontier of open
 * squares with per-side edge requirements, placement and feature joining
 * by union-find, followers. Scoring lives in score.c, random play in
 * play.c, replays in replay.c. */
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "engine/board_int.h"
#include "engine/engine.h"
#include "model/map_int.h"
#include "engine/rng_int.h"
#include "base/util_int.h"

static void err(cm_diags *d, const char *where, const char *msg)
{
	if (d)
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, where, "%s", msg);
}

#include "engine/unite_int.h"

/* cm_slot_facing as a table: the hot paths join sides slot by slot */
static const int8_t facing[12] = { 8, 7, 6, 11, 10, 9, 2, 1, 0, 5, 4, 3 };

/* join_side with an abbey on either piece: it closes what it meets. */
static CM__NOINLINE void join_abbey(cm_board *b, int32_t a, const int8_t *sa, int d, int32_t c,
                                    const int8_t *sc)
{
	node *n = b->nodes;
	for (int p = 0; p < 3; p++) {
		int ia = 3 * d + p, ic = facing[ia];
		int32_t x = a + sa[ia], y = c + sc[ic];
		int kx = n[x].kind, ky = n[y].kind;
		if (kx == CM_FEAT_ABBEY || ky == CM_FEAT_ABBEY) {
			if (p == 1) {
				int32_t o = kx == CM_FEAT_ABBEY ? y : x;
				if (n[o].kind == CM_FEAT_ROAD || n[o].kind == CM_FEAT_CITY)
					n[cm__find(n, o)].open--;
			}
			continue;
		}
		if (kx != ky)
			continue; /* corners of a city side, or a mismatch legality refused */
		if (kx == CM_FEAT_FIELD) {
			unite_rare(b, x, y);
		} else if (p == 1 && (kx == CM_FEAT_ROAD || kx == CM_FEAT_CITY)) {
			int32_t r = unite_rare(b, x, y);
			n[r].open -= 2;
		}
	}
}

/* What join_side unites on a side, by the bits two join signatures
 * (type_info.jsig, jsigr) share when no abbey is on either: JP_S0, JP_S1,
 * JP_S2 the slot pairs to unite, in that order, and JP_CLOSE when the
 * middle pair is a road or a city (its unite closes an open edge on each
 * piece). A field pair unites on any slot and a road or a city on the
 * middle one only. A field pair on slot 0 or 2 that is the middle one
 * (the same feature on both pieces) is left out, as uniting it again does
 * nothing: so the middle pair unites on nearly every side and only the
 * sides with a road or split fields take the outer ones. A table, so the
 * turn tests no piece's kind. */
enum { JP_S0 = 1, JP_S1 = 2, JP_S2 = 4, JP_CLOSE = 8 };
#define JP_RC(w) (((w) >> 3 | (w) >> 4) & 1) /* JS_ROAD1 or JS_CITY1 */
#define JP(w)                                                                                                \
	((((w) & ~((w) >> 1 & (w) >> 5)) & 1) | ((((w) >> 1) | JP_RC(w)) & 1) << 1 |                       \
	 ((((w) >> 2) & ~((w) >> 1 & (w) >> 6)) & 1) << 2 | JP_RC(w) << 3)
#define JP4(w) JP(w), JP((w) + 1), JP((w) + 2), JP((w) + 3)
#define JP16(w) JP4(w), JP4((w) + 4), JP4((w) + 8), JP4((w) + 12)
static const uint8_t join_plan[JS_ABBEY] = { JP16(0), JP16(16), JP16(32), JP16(48),
	                                     JP16(64), JP16(80), JP16(96), JP16(112) };
#undef JP16
#undef JP4
#undef JP
#undef JP_RC
_Static_assert(JS_FIELD0 == 1 && JS_FIELD1 == 2 && JS_FIELD2 == 4 && JS_ROAD1 == 8 && JS_CITY1 == 16 &&
                       JS_SAME01 == 32 && JS_SAME12 == 64 && JS_ABBEY == 128,
               "join signature bits (join_plan)");

/* Joins the pieces that meet across side d of a square (features a, slot
 * table sa, join signature ja of the side) and its neighbour (features c,
 * slot table sc, signature jc of its side facing d): the slot pairs
 * join_plan names (a field's open count is 0, so only the middle pair's
 * unite closes edges). An abbey closes what it meets. */
static CM__INLINE void join_side(cm_board *b, int32_t a, const int8_t *sa, int d, int32_t c, const int8_t *sc,
                                 unsigned ja, unsigned jc)
{
	node *n = b->nodes;
	if ((ja | jc) & JS_ABBEY) {
		join_abbey(b, a, sa, d, c, sc);
		return;
	}
	unsigned pl = join_plan[ja & jc];
	int32_t x1 = a + sa[3 * d + 1], y1 = c + sc[facing[3 * d + 1]];
	int sub = (int)((pl & JP_CLOSE) >> 2); /* 2 or 0 */
	if (!(pl & (JP_S0 | JP_S2))) {
		/* one feature along the side on both pieces (a city, a
		 * field), the middle pair only: one test that is hard to
		 * predict, not one for each of the outer pairs */
		if (pl & JP_S1)
			n[unite(b, x1, y1)].open -= sub;
		return;
	}
	if (pl & JP_S0)
		unite(b, a + sa[3 * d], c + sc[facing[3 * d]]);
	if (pl & JP_S1)
		n[unite(b, x1, y1)].open -= sub;
	if (pl & JP_S2)
		unite(b, a + sa[3 * d + 2], c + sc[facing[3 * d + 2]]);
}

/* join_side for a big-city piece's side: rare, one copy. */
static CM__NOINLINE void join_side_rare(cm_board *b, int32_t a, const int8_t *sa, int d, int32_t c,
                                        const int8_t *sc, unsigned ja, unsigned jc)
{
	join_side(b, a, sa, d, c, sc, ja, jc);
}

/* ---- the frontier ---- */

static CM__INLINE void front_add(cm_board *b, int s)
{
	if (b->front_pos[s] >= 0)
		return;
	b->front_pos[s] = b->n_front;
	b->front_req[b->n_front] = b->req[s];
	b->front[b->n_front++] = s;
}

/* What cm__put_tile's frontier steps (front_del, put_side) read or write
 * of the board, loaded once a turn: a byte stored through any of the
 * board's arrays may alias the board's own fields, so the compiler would
 * reload these step after step (and n_front, kept here, is stored back
 * once). */
typedef struct {
	const int16_t *tile;
	uint8_t *req, *sflags, *front_req;
	int32_t *front, *front_pos;
	int n_front;
} side_ctx;

static CM__INLINE void front_del(side_ctx *c, int s)
{
	int i = c->front_pos[s];
	if (i < 0)
		return;
	int last = c->front[--c->n_front];
	c->front[i] = last;
	c->front_req[i] = c->front_req[c->n_front];
	c->front_pos[last] = i;
	c->front_pos[s] = -1;
}

static CM__INLINE void reach(cm_board *b, int s)
{
	uint8_t f = b->sflags[s];
	if (!(f & SF_PLAYABLE))
		return;
	b->sflags[s] = (uint8_t)(f | SF_REACH);
	if ((f & SF_ALLOWED) && b->tile[s] < 0)
		front_add(b, s);
}

static void open_island(cm_board *b, int isl)
{
	if (isl < 0 || b->isl_open[isl])
		return;
	b->isl_open[isl] = 1;
	for (int32_t i = b->L.isl_start[isl]; i < b->L.isl_start[isl + 1]; i++) {
		int s = b->L.isl_sq[i];
		b->sflags[s] |= SF_ALLOWED;
		if ((b->sflags[s] & SF_REACH) && b->tile[s] < 0)
			front_add(b, s);
	}
}

/* Side d of tile t just put on square s in rotation r (features from
 * base, slot table sa; side_cls the square's side classes): joins what
 * lies across it, or sets the empty square's requirement and reaches it.
 * Called once per side with d a constant, so each copy is specialised. */
static CM__INLINE void put_side(cm_board *b, side_ctx *c, const type_info *ti, int r, int s, int32_t base,
                                const int8_t *sa, unsigned side_cls, int d)
{
	node *n = b->nodes;
	int key = s * 4 + d, cls = (side_cls >> (2 * d)) & 3;
	if (cls == SC_PLAYABLE) {
		int q = s + b->L.off4[d];
		if (c->tile[q] >= 0) {
			const type_info *qi = &b->deck->info[c->tile[q]];
			join_side(b, base, sa, d, b->base[q], qi->slot[b->rot[q]], ti->jsig[r][d],
			          qi->jsigr[b->rot[q]][(d + 2) & 3]);
			return;
		}
		/* an empty square: its requirement on that side, and it
		 * is reached (reach and front_add, the square known empty) */
		unsigned om = 3u << (2 * ((d + 2) & 3)); /* q's side facing s */
		uint8_t rq = (uint8_t)((c->req[q] & ~om) | (ti->reqn[r] & om));
		c->req[q] = rq;
		uint8_t f = c->sflags[q];
		c->sflags[q] = (uint8_t)(f | SF_REACH);
		/* without branches (whether q is new to the frontier is
		 * a coin toss): q's entry, at its place or appended;
		 * when q stays out (not allowed), the writes land in
		 * the free slot past the end (q and s are not in the
		 * frontier, so it exists) and are not counted */
		int fp = c->front_pos[q], nf = c->n_front;
		/* out: 1 when q is not in the frontier; add: and allowed in
		 * (bit arithmetic, not && and ||, which compile to branches) */
		int out = (int)((uint32_t)fp >> 31), add = out & (f >> 2); /* SF_ALLOWED is bit 2 */
		int pos = fp ^ ((fp ^ nf) & -out); /* out ? nf : fp */
		c->front_req[pos] = rq;
		c->front[pos] = q;
		c->front_pos[q] = out & ~add ? -1 : pos;
		c->n_front = nf + add;
	} else if (cls == SC_BIGCITY) {
		int q = s + b->L.off4[d];
		const type_info *qi = &b->L.bc_info[b->L.bc_type[q]];
		join_side_rare(b, base, sa, d, b->L.bc_base[q], qi->slot[0], ti->jsig[r][d], qi->jsigr[0][(d + 2) & 3]);
	} else if (cls == SC_NONE) {
		/* the map edge: it closes a road or a city */
		int32_t x = base + sa[3 * d + 1];
		int kx = n[x].kind;
		if (kx == CM_FEAT_ROAD || kx == CM_FEAT_CITY) {
			int32_t rt = cm__find(n, x);
			n[rt].open--;
			n[rt].flags |= NF_EDGE;
		}
	} else {
		/* a printed segment or a ferry: joins a road or city of its
		 * kind, closes any other */
		int32_t x = base + sa[3 * d + 1];
		int kx = n[x].kind;
		int32_t st = b->L.side_static[key];
		if (kx == CM_FEAT_ABBEY && (n[st].kind == CM_FEAT_ROAD || n[st].kind == CM_FEAT_CITY)) {
			/* ABBEY-PLACE: it closes a ferry or printed segment
			 * at its side as it closes a tile's road */
			n[cm__find(n, st)].open--;
			return;
		}
		if (kx != CM_FEAT_ROAD && kx != CM_FEAT_CITY)
			return;
		if (n[st].kind == kx) {
			int32_t rt = unite_rare(b, x, st);
			n[rt].open -= 2;
		} else {
			int32_t rt = cm__find(n, x);
			n[rt].open--;
			n[rt].flags |= NF_EDGE;
		}
	}
}

/* Puts tile t on square s in rotation r: joins features, closes edges at
 * the map edge (MAP-EDGE-DONE), updates the neighbours' requirements and
 * the frontier, unlocks big cities (MAP-BIGCITY) and ferries (MAP-FERRY,
 * MAP-ISLAND), counts down monasteries around. */
void cm__put_tile(cm_board *b, int t, int s, int r)
{
	const type_info *ti = &b->deck->info[t];
	node *n = b->nodes;
	int32_t base = b->n_nodes;
	assert(b->n_nodes + ti->n_feat <= b->max_nodes);
	b->n_nodes += ti->n_feat;
	const node *pr = &b->proto[b->proto_at[t]];
	node_x *nx = b->nx;
	/* init_node from the type's template (init_node with the piece's
	 * place f on its tile as index: the links and minp f), so adding
	 * the tile's first piece, the same for all, sets them without a
	 * branch; node_x needs none (mhead, mnext and nmulti are read only
	 * under NF_MULTI, so they are set as for a piece that has it).
	 * The first NODE_SPARE + 1 pieces whatever the tile's count (most
	 * tiles have 2 to 4), the rest in a loop: no loop exit at a count
	 * that changes with every tile to mispredict; the pieces past the
	 * tile's land in nodes not in use yet (nodes and the templates have
	 * NODE_PAD spare entries past their last). */
	int f = 0, nfeat = ti->n_feat;
#ifdef NODE_SSE2
	/* node: the links in the first vector, minp in the second; node_x:
	 * sq, mhead, mnext and nmulti in its first 16 bytes, then feat (the
	 * followers are set by the first follower) */
	const __m128i vl = _mm_setr_epi32(base, base, 0, 0), vm = _mm_setr_epi32(0, 0, base, 0);
	__m128i vx = _mm_setr_epi32(s, base, base, 1);
	const __m128i onex = _mm_setr_epi32(0, 1, 1, 0);
#define INIT_PIECE()                                                                                   \
	do {                                                                                           \
		const char *src = (const char *)&pr[f];                                                \
		char *dst = (char *)&n[base + f];                                                      \
		__m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)src);                      \
		__m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(src + 16));               \
		_mm_storeu_si128((__m128i *)(void *)dst, _mm_add_epi32(x0, vl));                       \
		_mm_storeu_si128((__m128i *)(void *)(dst + 16), _mm_add_epi32(x1, vm));                \
		_mm_storeu_si128((__m128i *)(void *)&nx[base + f], vx);                                \
		nx[base + f].feat = (uint8_t)f;                                                        \
		vx = _mm_add_epi32(vx, onex);                                                          \
	} while (0)
#else
#define INIT_PIECE()                                                                                   \
	do {                                                                                           \
		int32_t i = base + f;                                                                  \
		node *nd = &n[i];                                                                      \
		node_x *x = &nx[i];                                                                    \
		*nd = pr[f];                                                                           \
		nd->parent = nd->next = nd->minp = i;                                                  \
		x->sq = s;                                                                             \
		x->mhead = x->mnext = i;                                                               \
		x->nmulti = 1;                                                                         \
		x->feat = (uint8_t)f;                                                                  \
	} while (0)
#endif
#if defined(__GNUC__)
#pragma GCC unroll 8
#endif
	for (; f <= NODE_SPARE; f++)
		INIT_PIECE();
	if (nfeat > f) {
		/* as many again whatever the count (NODE_PAD), then the rest */
#if defined(__GNUC__)
#pragma GCC unroll 8
#endif
		for (; f <= 2 * NODE_SPARE + 1; f++)
			INIT_PIECE();
		for (; f < nfeat; f++)
			INIT_PIECE();
	}
#undef INIT_PIECE
	b->tile[s] = (int16_t)t;
	b->rot[s] = (uint8_t)r;
	b->base[s] = base;
	b->filled[b->n_filled++] = s;
	const int8_t *sa = ti->slot[r];
	if (ti->mon >= 0) {
		/* the 8 around without a branch on each (whether there is a
		 * square there, an empty one, is a coin toss): one off the
		 * grid reads and writes s itself, which holds a tile and
		 * takes an OR of 0 */
		int32_t m = base + ti->mon;
		int missing = 0;
		int32_t q8[8];
		unsigned in8[8];
#if defined(__GNUC__)
#pragma GCC unroll 8
#endif
		for (int k = 0; k < 8; k++) {
			int q = cm__nb8(b, s, k);
			in8[k] = q >= 0;
			q8[k] = q >= 0 ? q : s;
			missing += (int)(in8[k] & b->sflags[q8[k]] & SF_PLAYABLE & (unsigned)(b->tile[q8[k]] < 0));
		}
		n[m].open = missing;
		b->mon[s] = m;
#if defined(__GNUC__)
#pragma GCC unroll 8
#endif
		for (int k = 0; k < 8; k++) /* s is q's neighbour k + 4 */
			b->mon_near[q8[k]] |= (uint8_t)((1u << ((k + 4) & 7)) & -in8[k]);
	}
	const unsigned side_cls = b->L.side_cls[s];
	side_ctx ctx = { b->tile, b->req, b->sflags, b->front_req, b->front, b->front_pos, b->n_front };
	front_del(&ctx, s);
	put_side(b, &ctx, ti, r, s, base, sa, side_cls, 0);
	put_side(b, &ctx, ti, r, s, base, sa, side_cls, 1);
	put_side(b, &ctx, ti, r, s, base, sa, side_cls, 2);
	put_side(b, &ctx, ti, r, s, base, sa, side_cls, 3);
	b->n_front = ctx.n_front;
	/* ferries and big cities at the sides (an abbey joins nothing, so it
	 * connects no ferry or big city) */
	for (unsigned links = ti->abbey ? 0 : b->L.sq_links[s]; links; links &= links - 1) {
		int d = cm__ctz(links), key = s * 4 + d;
		int fe = b->L.side_ferry[key];
		if (fe >= 0 && !b->ferry_used[fe]) {
			b->ferry_used[fe] = 1;
			const cm_ferry *fr = &b->L.map->ferries[fe];
			int o = fr->y1 * b->L.cols + fr->x1 == s && (int)fr->s1 == d ? fr->y2 * b->L.cols + fr->x2
			                                                            : fr->y1 * b->L.cols + fr->x1;
			open_island(b, cm__island_of(b, o));
			reach(b, o);
		}
		int c = b->L.side_bc[key];
		if (c >= 0 && !b->bc_connected[c]) {
			b->bc_connected[c] = 1;
			for (int32_t i = b->L.bc_adj_start[c]; i < b->L.bc_adj_start[c + 1]; i++)
				reach(b, b->L.bc_adj[i]);
		}
	}
	for (unsigned m = b->mon_near[s]; m; m &= m - 1)
		n[b->mon[s + b->L.off8[cm__ctz(m)]]].open--;
}

/* ---- construction ---- */

int cm__sq_index(const cm_board *b, int x, int y)
{
	return (x >= 0 && y >= 0 && x < b->L.cols && y < b->L.rows) ? y * b->L.cols + x : -1;
}

static int take_from_pile(cm_board *b, int t)
{
	for (int i = b->pile_top; i < b->pile_n; i++)
		if (b->pile[i] == t) {
			/* keep the order of the others: shift the skipped ones down */
			memmove(&b->pile[b->pile_top + 1], &b->pile[b->pile_top], (size_t)(i - b->pile_top));
			b->pile[b->pile_top++] = (uint8_t)t;
			return 0;
		}
	return CM_ENOTFOUND;
}

static CM__INLINE void log_move(cm_board *b, cm_move_kind k, int t, int s, int r)
{
	assert(b->n_log < b->max_log);
	move_rec *mv = &b->log[b->n_log++];
	mv->kind = (uint8_t)k;
	mv->player = (uint8_t)b->cur;
	mv->type = (uint8_t)(t < 0 ? 0 : t);
	mv->rot = (uint8_t)r;
	int y = s >= 0 ? cm__row(b, s) : -1;
	mv->x = (int16_t)(s >= 0 ? s - y * b->L.cols : -1);
	mv->y = (int16_t)y;
	mv->feature = -1;
	mv->wagon = 0;
}

void cm__log_move(cm_board *b, cm_move_kind k, int t, int s, int r)
{
	log_move(b, k, t, s, r);
}

static int pick_rot(cm_board *b, uint8_t mask)
{
	int cnt = 0;
	for (int r = 0; r < 4; r++)
		cnt += (mask >> r) & 1;
	int k = (int)cm__rng_below(&b->rng, (uint32_t)cnt);
	for (int r = 0; r < 4; r++)
		if (((mask >> r) & 1) && k-- == 0)
			return r;
	return -1;
}

/* A setup error about start square s (-1: the map). */
static int setup_err(const cm_board *b, cm_diags *d, int s, const char *msg)
{
	const char *mid = b->L.map->id ? b->L.map->id : "?";
	char where[160];
	if (s < 0)
		snprintf(where, sizeof where, "map %s", mid);
	else
		snprintf(where, sizeof where, "map %s, start square (%d,%d)", mid, s % b->L.cols, s / b->L.cols);
	err(d, where, msg);
	return CM_EINVAL;
}

/* MAP-START, as documented at cm_board_new. */
static int setup(cm_board *b, cm_diags *d)
{
	if (b->L.n_start == 0)
		return setup_err(b, d, -1, "map has no start square");
	int k = b->L.map->setup.starts_used;
	if (k < 1)
		k = 1;
	if (k > b->L.n_start)
		k = b->L.n_start;
	int32_t *pick = b->start_pick;
	memcpy(pick, b->L.start_sq, (size_t)b->L.n_start * sizeof *pick);
	for (int i = 0; i < k; i++) {
		int j = i + (int)cm__rng_below(&b->rng, (uint32_t)(b->L.n_start - i));
		int32_t t = pick[i];
		pick[i] = pick[j];
		pick[j] = t;
	}
	for (int i = 0; i < k; i++) {
		int s = pick[i];
		int t = -1;
		uint8_t mask = 0;
		if (i == 0 && b->deck->start >= 0) {
			t = b->deck->start;
			mask = b->deck->info[t].rotmask[b->req[s]];
			if (!mask)
				return setup_err(b, d, s, "the start tile fits no rotation on the start square");
			b->start_used = true;
		} else {
			for (int p = b->pile_top; p < b->pile_n && !mask; p++) {
				mask = b->deck->info[b->pile[p]].rotmask[b->req[s]];
				if (mask)
					t = b->pile[p];
			}
			if (!mask)
				return setup_err(b, d, s, "no tile of the pile fits the start square");
			take_from_pile(b, t);
		}
		int r = pick_rot(b, mask);
		cm__put_tile(b, t, s, r);
		cm__log_move(b, CM_MOVE_SETUP, t, s, r);
		b->stats.setup_tiles++;
	}
	return 0;
}

/* One square back to its state before any tile. */
static void clear_square(cm_board *b, int s)
{
	b->req[s] = b->L.req0[s];
	b->sflags[s] = b->L.sflags0[s];
}

/* The squares back to their state before any tile: a new board clears
 * them all, and so does a game that filled a sixteenth of the map or
 * more (18 bytes a square copied and set in bulk cost less than the walk
 * of the squares filled, with a branch per monastery); after another game
 * only what the game changed (the squares filled and their neighbours,
 * the frontier, the squares big cities, ferries and islands unlocked), so
 * a reset costs what the game did, not the map. */
static void clear_squares(cm_board *b)
{
	int N = b->L.n_sq;
	if (b->reset_all || (size_t)N <= 16 * ((size_t)b->n_filled + 1)) {
		memcpy(b->req, b->L.req0, (size_t)N);
		memcpy(b->sflags, b->L.sflags0, (size_t)N);
		for (int s = 0; s < N; s++) {
			b->tile[s] = -1;
			b->base[s] = -1;
			b->mon[s] = -1;
			b->front_pos[s] = -1;
		}
		memset(b->rot, 0, (size_t)N);
		memset(b->mon_near, 0, (size_t)N);
		b->reset_all = false;
		b->n_front = 0;
		b->n_filled = 0;
		return;
	}
	/* on a small map two copies of the requirements and flags are
	 * cheaper than finding what changed */
	bool bulk = (size_t)N <= 256 * ((size_t)b->n_filled + 1);
	if (bulk) {
		memcpy(b->req, b->L.req0, (size_t)N);
		memcpy(b->sflags, b->L.sflags0, (size_t)N);
	}
	/* the arrays in locals: the byte stores may alias anything, b too */
	const int32_t *front = b->front, *filled = b->filled;
	int32_t *front_pos = b->front_pos, *base = b->base, *mon = b->mon;
	int16_t *tile = b->tile;
	uint8_t *rot = b->rot, *mon_near = b->mon_near;
	int n_front = b->n_front, n_filled = b->n_filled;
	for (int i = 0; i < n_front; i++) {
		front_pos[front[i]] = -1;
		if (!bulk)
			clear_square(b, front[i]);
	}
	for (int i = 0; i < n_filled; i++) {
		int s = filled[i];
		if (mon[s] >= 0)
			for (int k = 0; k < 8; k++) {
				int q = cm__nb8(b, s, k);
				if (q >= 0)
					mon_near[q] = 0;
			}
		tile[s] = -1;
		base[s] = -1;
		mon[s] = -1;
		rot[s] = 0;
		if (bulk)
			continue;
		clear_square(b, s);
		for (int k = 0; k < 4; k++) {
			int q = cm__nb(b, s, k);
			if (q >= 0)
				clear_square(b, q);
		}
	}
	const cm_map *m = b->L.map;
	for (size_t c = 0; c < m->n_bigcities && !bulk; c++) {
		if (!b->bc_connected[c])
			continue;
		for (int32_t i = b->L.bc_adj_start[c]; i < b->L.bc_adj_start[c + 1]; i++)
			clear_square(b, b->L.bc_adj[i]);
	}
	for (size_t k = 0; k < m->n_islands && !bulk; k++) {
		if (!b->isl_open[k])
			continue;
		for (int32_t i = b->L.isl_start[k]; i < b->L.isl_start[k + 1]; i++)
			clear_square(b, b->L.isl_sq[i]);
	}
	for (size_t f = 0; f < m->n_ferries && !bulk; f++)
		if (b->ferry_used[f]) {
			const cm_ferry *fr = &m->ferries[f];
			clear_square(b, fr->y1 * b->L.cols + fr->x1);
			clear_square(b, fr->y2 * b->L.cols + fr->x2);
		}
	b->n_front = 0;
	b->n_filled = 0;
}

int cm_board_reset(cm_board *b, uint64_t seed, cm_diags *d)
{
	memcpy(b->nodes, b->L.static_nodes, (size_t)b->L.n_static * sizeof *b->nodes);
	memcpy(b->nx, b->L.static_nx, (size_t)b->L.n_static * sizeof *b->nx);
	b->n_nodes = b->L.n_static;
	clear_squares(b);
	/* stamp, nstamp and epoch carry over: stamps only compare to the
	 * current epoch, which keeps rising (cm__epoch clears on wrap) */
	memset(b->bc_connected, 0, b->L.map->n_bigcities + 1);
	memset(b->isl_open, 0, b->L.map->n_islands + 1);
	memset(b->ferry_used, 0, b->L.map->n_ferries + 1);
	int fol = b->L.map->setup.followers > 0 ? b->L.map->setup.followers : 9;
	if (fol > 255)
		fol = 255;
	for (int p = 0; p < CM_MAX_PLAYERS; p++) {
		b->score[p] = 0;
		b->supply[p] = p < b->n_players ? fol : 0;
		b->wagons[p] = p < b->n_players && b->rules.wagons;
		b->abbeys[p] = p < b->n_players && p < b->abbey_count; /* dealt (ABBEY-PLACE) */
	}
	b->n_wait = 0;
	b->n_fol = 0;
	b->cur = 0;
	b->last_sq = -1;
	b->deployed = false;
	b->extra_taken = false;
	b->final_done = false;
	b->n_items = 0;
	b->n_log = 0;
	memset(&b->stats, 0, sizeof b->stats);
	b->stats.squares_playable = b->L.n_playable;
	b->seed = seed;
	/* the pile: the deck's order (pile0), shuffled; the generator in a
	 * local while it draws, so its state stays in registers (stores to
	 * the byte pile may alias anything, b->rng included) */
	cm_rng_seed(&b->rng, seed);
	cm_rng rng = b->rng;
	int n = b->pile0_n;
	uint8_t *pile = b->pile;
	memcpy(pile, b->pile0, (size_t)n);
	for (int i = n - 1; i > 0; i--) {
		int j = (int)cm__rng_below(&rng, (uint32_t)(i + 1));
		uint8_t t = pile[i];
		pile[i] = pile[j];
		pile[j] = t;
	}
	b->rng = rng;
	b->pile_n = n;
	b->pile_top = 0;
	b->start_used = false;
	if (!(b->flags & CM_BOARD_NO_SETUP))
		return setup(b, d);
	return 0;
}

#define ALLOC(p, n)                                                   \
	do {                                                          \
		(p) = calloc((size_t)(n) + ((n) == 0), sizeof *(p)); \
		if (!(p))                                             \
			goto nomem;                                   \
	} while (0)
/* An array every square writes: in huge pages where the system grants
 * them (cm_calloc_big). */
#define ALLOC_DENSE(p, n)                                                   \
	do {                                                                \
		(p) = cm_calloc_big((size_t)(n) + ((n) == 0), sizeof *(p)); \
		if (!(p))                                                   \
			goto nomem;                                         \
	} while (0)

/* The per-square arrays of a game (a board's squares; the layout has the
 * map's). */
static int alloc_squares(cm_board *b)
{
	int N = b->L.n_sq;
	ALLOC_DENSE(b->tile, N);
	ALLOC(b->stamp, N);
	ALLOC_DENSE(b->rot, N);
	ALLOC_DENSE(b->base, N);
	ALLOC_DENSE(b->req, N);
	ALLOC_DENSE(b->sflags, N);
	ALLOC_DENSE(b->mon, N);
	ALLOC(b->front, N);
	ALLOC_DENSE(b->front_pos, N);
	ALLOC(b->front_req, N + 15); /* spare entries: random play's scans read 4 or 16 at a time */
	ALLOC(b->front_cum, N + 3);
	ALLOC(b->front_fit, N + 15);
	ALLOC(b->filled, N);
	ALLOC_DENSE(b->mon_near, N);
	ALLOC(b->start_pick, b->L.n_start);
	const cm_map *map = b->L.map;
	ALLOC(b->bc_connected, map->n_bigcities + 1);
	ALLOC(b->isl_open, map->n_islands + 1);
	ALLOC(b->ferry_used, map->n_ferries + 1);
	return 0;
nomem:
	return CM_ENOMEM;
}

/* The deck's part: node capacity, the tiles' templates, the pile in deck
 * order, the abbey. */
static int alloc_deck(cm_board *b, cm_diags *d)
{
	const cm_deck *deck = b->deck;
	/* node capacity: the static nodes and every tile of the deck */
	int64_t cap = b->L.n_static;
	for (size_t i = 0; i < deck->n_types; i++)
		cap += (int64_t)deck->count[i] * deck->info[i].n_feat;
	if (cap > 0x7fffffff / 2) {
		err(d, "deck", "deck too large");
		return CM_ELIMIT;
	}
	b->max_nodes = (int)cap;
	ALLOC(b->nodes, b->max_nodes + NODE_PAD);
	ALLOC(b->nx, b->max_nodes + NODE_PAD);
	ALLOC(b->proto_at, deck->n_types + 1);
	for (size_t i = 0; i < deck->n_types; i++)
		b->proto_at[i + 1] = b->proto_at[i] + deck->info[i].n_feat;
	ALLOC(b->proto, b->proto_at[deck->n_types] + NODE_PAD); /* spares: zeros */
	for (size_t i = 0; i < deck->n_types; i++) {
		const type_info *ti = &deck->info[i];
		node_x x; /* cm__put_tile sets node_x itself */
		for (int f = 0; f < ti->n_feat; f++) /* index f: cm__put_tile adds the tile's first */
			cm__init_node(&b->proto[b->proto_at[i] + f], &x, f, 0, ti->kind[f], ti->nflags[f], (uint8_t)f,
			              ti->open0[f], ti->arms[f]);
	}
	ALLOC(b->pile, deck->total + 1);
	ALLOC(b->pile0, deck->total + 1);
	for (size_t i = 0; i < deck->n_types; i++) {
		if (deck->info[i].abbey)
			continue;
		int c = deck->count[i] - ((int)i == deck->start);
		for (int k = 0; k < c; k++)
			b->pile0[b->pile0_n++] = (uint8_t)i;
	}
	ALLOC(b->nstamp, b->max_nodes);
	b->abbey_type = -1;
	for (size_t i = 0; i < deck->n_types && b->abbey_type < 0; i++)
		if (deck->info[i].abbey && deck->count[i] > 0) {
			b->abbey_type = (int)i;
			b->abbey_count = deck->count[i];
		}
	return 0;
nomem:
	return CM_ENOMEM;
}

/* The followers, score items, the move log and the wagons' scratch. */
static int alloc_play(cm_board *b)
{
	int np = b->n_players;
	int fol = b->L.map->setup.followers > 0 ? b->L.map->setup.followers : 9;
	if (fol > 255)
		fol = 255;
	/* one wagon each, whether or not the option is on: cm_board_set_rules
	 * may turn it on later */
	ALLOC(b->fol, (fol + 1) * np);
	ALLOC(b->fol_node, (fol + 1) * np);
	ALLOC(b->froots, (fol + 1) * np);
	b->max_items = (size_t)b->max_nodes + 64;
	ALLOC(b->items, b->max_items);
	/* every turn logs a move and at most one wagon move per player */
	int turns = b->deck->total + np + 2;
	b->max_log = turns * (1 + np);
	ALLOC(b->log, b->max_log);
	ALLOC(b->wmark, b->max_nodes);
	ALLOC(b->wvia, b->max_nodes);
	ALLOC(b->wvsq, b->max_nodes);
	return 0;
nomem:
	return CM_ENOMEM;
}

/* A board on lay without its first game: what changes during a game, the
 * layout shared. */
static int board_alloc(cm__layout *lay, const cm_deck *deck, const cm_rules *rules, int n_players,
                       unsigned flags, cm_diags *d, cm_board **out)
{
	*out = NULL;
	cm_board *b = calloc(1, sizeof *b);
	if (!b)
		return CM_ENOMEM;
	assert(lay->whole); /* cm__board_new_on's contract */
	b->lay = cm__layout_ref(lay);
	b->L = lay->L;
	b->deck = deck;
	b->rules = rules ? *rules : lay->L.map->rules;
	b->n_players = n_players;
	b->flags = flags;
	b->reset_all = true;
	int rc = alloc_squares(b);
	if (!rc)
		rc = alloc_deck(b, d);
	if (!rc)
		rc = alloc_play(b);
	if (rc < 0) {
		cm_board_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

static int players_ok(int n_players, cm_diags *d)
{
	if (n_players >= 2 && n_players <= CM_MAX_PLAYERS)
		return 0;
	err(d, "board", "a game needs 2 to 6 players");
	return CM_EINVAL;
}

int cm__board_new_on(cm__layout *lay, const cm_deck *deck, const cm_rules *rules, int n_players,
                     uint64_t seed, unsigned flags, cm_diags *d, cm_board **out)
{
	*out = NULL;
	int rc = players_ok(n_players, d);
	cm_board *b = NULL;
	if (!rc)
		rc = board_alloc(lay, deck, rules, n_players, flags, d, &b);
	if (!rc && (rc = cm_board_reset(b, seed, d)) < 0)
		cm_board_free(b);
	else if (!rc)
		*out = b;
	return rc;
}

int cm_board_new(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int n_players,
                 uint64_t seed, unsigned flags, cm_diags *d, cm_board **out)
{
	*out = NULL;
	int rc = players_ok(n_players, d);
	if (rc < 0)
		return rc;
	cm__layout *lay = NULL;
	if ((rc = cm__layout_new(map, d, &lay)) < 0)
		return rc;
	rc = cm__board_new_on(lay, deck, rules, n_players, seed, flags, d, out);
	cm__layout_free(lay); /* the board holds its own reference */
	return rc;
}

cm__layout *cm__board_layout(const cm_board *b)
{
	return b->lay;
}

void cm_board_free(cm_board *b)
{
	if (!b)
		return;
	void *p[] = { b->tile, b->rot, b->base, b->req, b->sflags, b->mon, b->front, b->front_pos, b->front_req,
		      b->front_cum, b->front_fit, b->filled, b->mon_near, b->start_pick, b->bc_connected,
		      b->isl_open, b->ferry_used, b->nodes, b->nx, b->proto, b->proto_at, b->stamp, b->nstamp,
		      b->pile, b->pile0, b->fol, b->fol_node, b->froots, b->items, b->log, b->wmark, b->wvia,
		      b->wvsq };
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		free(p[i]);
	cm__layout_free(b->lay);
	free(b);
}

/* ---- copies ---- */

int cm_board_copy_into(cm_board *dst, const cm_board *src)
{
	if (dst == src)
		return 0;
	if (dst->L.map != src->L.map || dst->deck != src->deck || dst->n_players != src->n_players)
		return CM_EINVAL;
	size_t N = (size_t)src->L.n_sq;
	memcpy(dst->tile, src->tile, N * sizeof *dst->tile);
	memcpy(dst->rot, src->rot, N);
	memcpy(dst->base, src->base, N * sizeof *dst->base);
	memcpy(dst->req, src->req, N);
	memcpy(dst->sflags, src->sflags, N);
	memcpy(dst->mon, src->mon, N * sizeof *dst->mon);
	memcpy(dst->mon_near, src->mon_near, N);
	memcpy(dst->front_pos, src->front_pos, N * sizeof *dst->front_pos);
	memcpy(dst->front, src->front, (size_t)src->n_front * sizeof *dst->front);
	memcpy(dst->front_req, src->front_req, (size_t)src->n_front);
	memcpy(dst->filled, src->filled, (size_t)src->n_filled * sizeof *dst->filled);
	memcpy(dst->bc_connected, src->bc_connected, src->L.map->n_bigcities + 1);
	memcpy(dst->isl_open, src->isl_open, src->L.map->n_islands + 1);
	memcpy(dst->ferry_used, src->ferry_used, src->L.map->n_ferries + 1);
	memcpy(dst->nodes, src->nodes, (size_t)src->n_nodes * sizeof *dst->nodes);
	memcpy(dst->nx, src->nx, (size_t)src->n_nodes * sizeof *dst->nx);
	memcpy(dst->pile, src->pile, (size_t)src->pile_n);
	memcpy(dst->fol, src->fol, (size_t)src->n_fol * sizeof *dst->fol);
	memcpy(dst->fol_node, src->fol_node, (size_t)src->n_fol * sizeof *dst->fol_node);
	memcpy(dst->log, src->log, (size_t)src->n_log * sizeof *dst->log);
	memcpy(dst->wait, src->wait, sizeof dst->wait);
	memcpy(dst->score, src->score, sizeof dst->score);
	memcpy(dst->supply, src->supply, sizeof dst->supply);
	memcpy(dst->wagons, src->wagons, sizeof dst->wagons);
	memcpy(dst->abbeys, src->abbeys, sizeof dst->abbeys);
	dst->rules = src->rules;
	dst->flags = src->flags;
	dst->seed = src->seed;
	dst->rng = src->rng;
	dst->n_front = src->n_front;
	dst->n_filled = src->n_filled;
	dst->reset_all = src->reset_all;
	dst->n_nodes = src->n_nodes;
	dst->pile_n = src->pile_n;
	dst->pile_top = src->pile_top;
	dst->start_used = src->start_used;
	dst->cur = src->cur;
	dst->n_wait = src->n_wait;
	dst->n_fol = src->n_fol;
	dst->last_sq = src->last_sq;
	dst->deployed = src->deployed;
	dst->extra_taken = src->extra_taken;
	dst->final_done = src->final_done;
	dst->n_items = 0;
	dst->n_log = src->n_log;
	dst->stats = src->stats;
	return 0;
}

int cm_board_copy(const cm_board *b, cm_board **out)
{
	cm_board *c = NULL;
	int rc = board_alloc(b->lay, b->deck, &b->rules, b->n_players, b->flags, NULL, &c);
	if (rc == CM_EINVAL || rc == CM_ELIMIT)
		return CM_EINTERNAL; /* b was made from them */
	if (rc < 0)
		return rc;
	cm_board_copy_into(c, b);
	*out = c;
	return 0;
}

/* ---- queries ---- */

const cm_map *cm_board_map(const cm_board *b) { return b->L.map; }
const cm_deck *cm_board_deck(const cm_board *b) { return b->deck; }
const cm_rules *cm_board_rules(const cm_board *b) { return &b->rules; }
int cm_board_players(const cm_board *b) { return b->n_players; }
uint64_t cm_board_seed(const cm_board *b) { return b->seed; }
int cm_board_current(const cm_board *b) { return b->cur; }
int cm_board_pile(const cm_board *b) { return b->pile_n - b->pile_top; }
bool cm_board_over(const cm_board *b) { return b->pile_top >= b->pile_n; }
const cm_game_stats *cm_board_stats(const cm_board *b) { return &b->stats; }

void cm_board_set_rules(cm_board *b, const cm_rules *rules)
{
	b->rules = *rules;
}

void cm_board_set_current(cm_board *b, int player)
{
	if (player >= 0 && player < b->n_players)
		b->cur = player;
}

int cm_board_score(const cm_board *b, int player)
{
	return player >= 0 && player < b->n_players ? b->score[player] : 0;
}

int cm_board_supply(const cm_board *b, int player)
{
	return player >= 0 && player < b->n_players ? b->supply[player] : 0;
}

int cm_board_tile_at(const cm_board *b, int x, int y, int *type, int *rot)
{
	int s = cm__sq_index(b, x, y);
	if (s < 0 || b->tile[s] < 0)
		return CM_ENOTFOUND;
	if (type)
		*type = b->tile[s];
	if (rot)
		*rot = b->rot[s];
	return 0;
}

int cm_board_last_placed(const cm_board *b, int *x, int *y)
{
	if (b->last_sq < 0)
		return CM_ENOTFOUND;
	*x = b->last_sq % b->L.cols;
	*y = b->last_sq / b->L.cols;
	return 0;
}

bool cm_board_open_square(const cm_board *b, int x, int y)
{
	int s = cm__sq_index(b, x, y);
	return s >= 0 && b->front_pos[s] >= 0;
}

bool cm_board_legal(const cm_board *b, int type, int x, int y, int rot)
{
	int s = cm__sq_index(b, x, y);
	if (s < 0 || b->n_wait || type < 0 || (size_t)type >= b->deck->n_types || rot < 0 || rot > 3 ||
	    b->front_pos[s] < 0 || b->deck->info[type].abbey)
		return false; /* a waiting wagon moves first (WAGON-MOVE), as cm_board_place says */
	return (b->deck->info[type].rotmask[b->req[s]] >> rot) & 1;
}

size_t cm_board_placements(const cm_board *b, int type, cm_placement *out, size_t max)
{
	if (b->n_wait || type < 0 || (size_t)type >= b->deck->n_types || b->deck->info[type].abbey)
		return 0;
	const uint8_t *rm = b->deck->info[type].rotmask;
	size_t n = 0;
	/* row-major order, independent of the frontier's internal order */
	if (!out || max == 0) {
		for (int i = 0; i < b->n_front; i++) {
			unsigned m = rm[b->req[b->front[i]]];
			n += (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1);
		}
		return n;
	}
	for (int s = 0; s < b->L.n_sq; s++) {
		if (b->front_pos[s] < 0)
			continue;
		unsigned m = rm[b->req[s]];
		for (int r = 0; r < 4; r++)
			if ((m >> r) & 1) {
				if (n < max) {
					out[n].x = s % b->L.cols;
					out[n].y = s / b->L.cols;
					out[n].rot = r;
				}
				n++;
			}
	}
	return n;
}

static bool any_placement(const cm_board *b, int t)
{
	const uint8_t *rm = b->deck->info[t].rotmask;
	for (int i = 0; i < b->n_front; i++)
		if (rm[b->req[b->front[i]]])
			return true;
	return false;
}

int cm_board_draw(cm_board *b, int *type)
{
	while (b->pile_top < b->pile_n) {
		int t = b->pile[b->pile_top];
		if (any_placement(b, t)) {
			*type = t;
			return 0;
		}
		b->pile_top++;
		b->stats.stranded++;
		cm__log_move(b, CM_MOVE_ASIDE, t, -1, 0);
	}
	return CM_ENOTFOUND;
}

int cm_board_put_aside(cm_board *b, int type)
{
	if (type < 0 || (size_t)type >= b->deck->n_types || take_from_pile(b, type) < 0)
		return CM_ENOTFOUND;
	b->stats.stranded++;
	cm__log_move(b, CM_MOVE_ASIDE, type, -1, 0);
	return 0;
}

int cm_board_place(cm_board *b, int type, int x, int y, int rot)
{
	if (b->last_sq >= 0 || b->final_done || b->n_wait || !cm_board_legal(b, type, x, y, rot))
		return CM_EINVAL;
	if (take_from_pile(b, type) < 0)
		return CM_ENOTFOUND;
	int s = y * b->L.cols + x;
	cm__put_tile(b, type, s, rot);
	b->last_sq = s;
	b->deployed = false;
	cm__log_move(b, CM_MOVE_PLACE, type, s, rot);
	b->stats.tiles_placed++;
	return 0;
}

void cm__place_drawn(cm_board *b, int t, int s, int r)
{
	assert(b->pile[b->pile_top] == t);
	b->pile_top++; /* take_from_pile of the tile on top */
	cm__put_tile(b, t, s, r);
	b->last_sq = s;
	b->deployed = false;
	log_move(b, CM_MOVE_PLACE, t, s, r);
	b->stats.tiles_placed++;
}

int cm_board_place_setup(cm_board *b, int type, int x, int y, int rot)
{
	int s = cm__sq_index(b, x, y);
	if (b->last_sq >= 0 || b->n_wait || s < 0 || type < 0 || (size_t)type >= b->deck->n_types || rot < 0 ||
	    rot > 3 || b->tile[s] >= 0 || (b->sflags[s] & (SF_PLAYABLE | SF_ALLOWED)) !=
	    (SF_PLAYABLE | SF_ALLOWED) || b->deck->info[type].abbey ||
	    !((b->deck->info[type].rotmask[b->req[s]] >> rot) & 1))
		return CM_EINVAL;
	if (type == b->deck->start && !b->start_used)
		b->start_used = true;
	else if (take_from_pile(b, type) < 0)
		return CM_ENOTFOUND;
	cm__put_tile(b, type, s, rot);
	cm__log_move(b, CM_MOVE_SETUP, type, s, rot);
	b->stats.setup_tiles++;
	return 0;
}

/* Whether the current player has a follower of this kind to deploy. */
bool cm__in_supply(const cm_board *b, cm_follower_kind kind)
{
	if (kind == CM_FOLLOWER_MEEPLE)
		return b->supply[b->cur] > 0;
	return kind == CM_FOLLOWER_WAGON && b->rules.wagons && b->wagons[b->cur] > 0;
}

/* Feature kinds a follower of this kind may stand on (WAGON-DEPLOY: a
 * wagon never on a field; nobody on a garden). */
static bool kind_takes(cm_follower_kind kind, int fk)
{
	if (fk == CM_FEAT_GARDEN)
		return false;
	return kind == CM_FOLLOWER_MEEPLE || fk != CM_FEAT_FIELD;
}

size_t cm_board_spots(const cm_board *b, cm_follower_kind kind, int *out, size_t max)
{
	int s = b->last_sq;
	if (s < 0 || b->deployed || !cm__in_supply(b, kind))
		return 0;
	const type_info *ti = &b->deck->info[b->tile[s]];
	size_t n = 0;
	for (int f = 0; f < ti->n_feat; f++) {
		if (!kind_takes(kind, ti->kind[f]))
			continue;
		int32_t r = cm__find(b->nodes, b->base[s] + f);
		if (b->nodes[r].nfol)
			continue;
		if (n < max && out)
			out[n] = f;
		n++;
	}
	return n;
}

/* The tile's local feature sets (a tiny union-find over its features):
 * two features of the placed tile are one when they join one root. */
static int local_find(int8_t *uf, int f)
{
	while (uf[f] != f)
		f = uf[f];
	return f;
}

/* Mirrors the joins of cm__put_tile: on each side, the features that
 * join_side or the map edge's printed segment or ferry would unite with
 * the tile's feature f are recorded as (f, root) pairs; a feature is then
 * occupied when its set of the tile's features reaches a root with a
 * follower. */
uint32_t cm__free_if(const cm_board *b, int type, int s, int rot)
{
	const type_info *ti = &b->deck->info[type];
	const node *n = b->nodes;
	const int8_t *sa = ti->slot[rot];
	int8_t uf[CM_MAX_FEATURES];
	int32_t first_of[16]; /* per joined root: the feature that met it first */
	int32_t roots[16];
	int n_roots = 0;
	uint32_t occupied = 0;
	for (int f = 0; f < ti->n_feat; f++)
		uf[f] = (int8_t)f;
	for (int d = 0; d < 4; d++) {
		int q = cm__nb(b, s, d);
		int32_t c = -1;
		const int8_t *sc = NULL;
		if (q >= 0 && b->tile[q] >= 0) {
			c = b->base[q];
			sc = b->deck->info[b->tile[q]].slot[b->rot[q]];
		} else if (q >= 0 && (b->L.sflags0[q] & SF_BIGCITY)) {
			c = b->L.bc_base[q];
			sc = b->L.bc_info[b->L.bc_type[q]].slot[0];
		} else if (q >= 0 && (b->sflags[q] & SF_PLAYABLE)) {
			continue; /* an empty square: nothing to join */
		}
		for (int p = 0; p < 3; p++) {
			int ia = 3 * d + p, f = sa[ia], kx = ti->kind[f];
			int32_t other;
			if (sc) { /* join_side */
				other = c + sc[facing[ia]];
				int ky = n[other].kind;
				if (kx == CM_FEAT_ABBEY || ky == CM_FEAT_ABBEY || kx != ky)
					continue;
				if (kx != CM_FEAT_FIELD && !(p == 1 && (kx == CM_FEAT_ROAD || kx == CM_FEAT_CITY)))
					continue;
			} else { /* the map edge: a printed segment or a ferry of the same kind */
				other = cm__side_static(&b->L, s, d);
				if (p != 1 || other < 0 || (kx != CM_FEAT_ROAD && kx != CM_FEAT_CITY) ||
				    n[other].kind != kx)
					continue;
			}
			int32_t r = cm__find(n, other);
			int k = 0;
			while (k < n_roots && roots[k] != r)
				k++;
			if (k == n_roots) {
				assert(n_roots < 16);
				roots[n_roots] = r;
				first_of[n_roots++] = f;
			}
			int a = local_find(uf, f), g = local_find(uf, (int)first_of[k]);
			if (a != g)
				uf[a] = (int8_t)g;
			if (n[r].nfol)
				occupied |= 1u << f;
		}
	}
	/* an occupied feature occupies its whole set */
	uint32_t set_occupied = 0;
	for (int f = 0; f < ti->n_feat; f++)
		if ((occupied >> f) & 1)
			set_occupied |= 1u << local_find(uf, f);
	uint32_t free_mask = 0;
	for (int f = 0; f < ti->n_feat; f++)
		free_mask |= (uint32_t)!((set_occupied >> local_find(uf, f)) & 1) << f;
	return free_mask;
}

/* Whether a copy of type is left to draw. */
bool cm__pile_has(const cm_board *b, int type)
{
	for (int i = b->pile_top; i < b->pile_n; i++)
		if (b->pile[i] == type)
			return true;
	return false;
}

int cm_board_spots_if(const cm_board *b, int type, int x, int y, int rot, cm_follower_kind kind, int *out,
                      size_t max)
{
	if (b->last_sq >= 0 || b->final_done || b->n_wait || !cm_board_legal(b, type, x, y, rot))
		return CM_EINVAL;
	if (!cm__pile_has(b, type))
		return CM_ENOTFOUND;
	if (!cm__in_supply(b, kind))
		return 0;
	const type_info *ti = &b->deck->info[type];
	uint32_t m = cm__free_if(b, type, y * b->L.cols + x, rot) &
	             (kind == CM_FOLLOWER_WAGON ? ti->spot_wagon : ti->spot_meeple);
	int cnt = 0;
	for (; m; m &= m - 1) {
		if ((size_t)cnt < max && out)
			out[cnt] = cm__ctz(m);
		cnt++;
	}
	return cnt;
}

/* The follower on node nd of root r; at (x, y) on the map. */
static CM__INLINE void add_follower(cm_board *b, int player, cm_follower_kind kind, int32_t nd, int32_t r, int x,
                                    int y)
{
	node_x *rx = &b->nx[r];
	if (!b->nodes[r].nfol++)
		memset(rx->fol, 0, sizeof rx->fol); /* the feature's first */
	rx->fol[player]++;
	cm_follower *fo = &b->fol[b->n_fol];
	fo->player = player;
	fo->kind = kind;
	fo->x = x;
	fo->y = y;
	fo->feature = b->nx[nd].feat;
	b->fol_node[b->n_fol++] = nd;
}

void cm__deploy_free(cm_board *b, int f, cm_follower_kind kind, int32_t r)
{
	move_rec *mv = &b->log[b->n_log - 1]; /* the move that put last_sq's tile */
	if (kind == CM_FOLLOWER_WAGON)
		b->wagons[b->cur]--;
	else
		b->supply[b->cur]--;
	add_follower(b, b->cur, kind, b->base[b->last_sq] + f, r, mv->x, mv->y);
	b->deployed = true;
	mv->feature = (int8_t)f;
	mv->wagon = kind == CM_FOLLOWER_WAGON;
}

int cm_board_deploy(cm_board *b, int f, cm_follower_kind kind)
{
	int s = b->last_sq;
	if (s < 0 || b->deployed || !cm__in_supply(b, kind))
		return CM_EINVAL;
	const type_info *ti = &b->deck->info[b->tile[s]];
	if (f < 0 || f >= ti->n_feat || !kind_takes(kind, ti->kind[f]))
		return CM_EINVAL;
	int32_t r = cm__find(b->nodes, b->base[s] + f);
	if (b->nodes[r].nfol)
		return CM_EINVAL; /* BASE-OCCUPIED */
	cm__deploy_free(b, f, kind, r);
	return 0;
}

void cm__put_follower(cm_board *b, int player, cm_follower_kind kind, int32_t nd)
{
	int s = b->nx[nd].sq;
	int y = cm__row(b, s);
	add_follower(b, player, kind, nd, cm__find(b->nodes, nd), s - y * b->L.cols, y);
}

size_t cm_board_followers(const cm_board *b, const cm_follower **out)
{
	if (out)
		*out = b->fol;
	return (size_t)b->n_fol;
}

int cm_board_feature(const cm_board *b, int x, int y, int f, cm_feature_info *out)
{
	int s = cm__sq_index(b, x, y);
	if (s < 0)
		return CM_ENOTFOUND;
	int32_t lo;
	int k = cm__sq_nodes(b, s, &lo);
	if (f < 0 || f >= k)
		return CM_ENOTFOUND;
	node *n = b->nodes;
	int32_t r = cm__find(n, lo + f);
	memset(out, 0, sizeof *out);
	out->kind = (cm_feature_kind)n[r].kind;
	out->open = n[r].open;
	out->arms = n[r].arms;
	out->tiles = n[r].tiles;
	if (n[r].kind == CM_FEAT_MONASTERY || n[r].kind == CM_FEAT_ABBEY) {
		out->tiles = b->L.around8[s] - n[r].open;
		out->complete = n[r].open == 0;
	} else if (n[r].kind == CM_FEAT_ROAD || n[r].kind == CM_FEAT_CITY) {
		out->complete = n[r].open == 0;
	}
	out->scored = (n[r].flags & NF_DONE) != 0;
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		out->followers[p] = n[r].nfol ? b->nx[r].fol[p] : 0;
	out->inn = (n[r].flags & NF_INN) != 0;
	out->cathedral = (n[r].flags & NF_CATHEDRAL) != 0;
	out->bigcity = (n[r].flags & NF_BIGCITY) != 0;
	out->print = (n[r].flags & NF_PRINT) != 0;
	out->ferry = (n[r].flags & NF_FERRY) != 0;
	cm_score_item it = { .x = -1, .y = -1, .feature = -1 };
	if (n[r].kind == CM_FEAT_MONASTERY || n[r].kind == CM_FEAT_ABBEY || n[r].kind == CM_FEAT_GARDEN) {
		it.x = x; /* scored on its own square (cm__score_monastery) */
		it.y = y;
		it.feature = f;
	} else {
		cm__item_where(b, r, &it);
	}
	out->wx = it.x;
	out->wy = it.y;
	out->wfeature = it.feature;
	return 0;
}

/* A score item's place: the lowest-numbered piece of the feature that lies
 * on a square (printed segments and ferries have none). Score items and
 * wagon moves name features by it. */
void cm__item_where(const cm_board *b, int32_t r, cm_score_item *it)
{
	const node *n = b->nodes;
	r = n[r].parent;
	int32_t best = n[r].minp; /* kept by unite */
	if (best >= 0) {
		it->x = b->nx[best].sq % b->L.cols;
		it->y = b->nx[best].sq / b->L.cols;
		it->feature = b->nx[best].feat;
	}
}
