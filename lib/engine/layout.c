/* SPDX-License-Identifier: MIT */
/* layout.c: the map's layout (board_int.h "layout"; engine.h cm__layout):
 * what the engine derives from a map alone, built once in named steps and
 * read-only after, shared by reference by the validator, every board and
 * every thread. Built in two stages of named steps: what the validator's
 * reachability reads (the grid: kinds, flags, borders, islands, start
 * squares; the big cities' pieces; the ferries; the printed requirements
 * and what each side meets; the neighbourhoods a connection unlocks), then
 * what boards read besides (the nodes: big-city pieces joined, ferry
 * pieces; the counts the turn reads: what lies across each side, the
 * squares around; the printed segments' pieces), only when a board asks
 * (cm__layout_new, cm__layout_complete). Each step writes square by square
 * only where every square needs it, the per-side arrays only for the sides
 * that have something; the validator's questions about it close the file. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/board_int.h"
#include "engine/engine.h"
#include "engine/unite_int.h"
#include "model/map_int.h"
#include "base/mem_int.h"
#include "base/util_int.h"

/* What the steps share while the layout is built: the arrays a later step
 * still writes (L holds them read-only) and the counts carried forward. */
typedef struct {
	layout *L;
	const cm_map *m;
	cm_diags *d;
	const char *mid;         /* the map's id for diagnostics */
	uint8_t *sflags0, *req0, *sq_links, *side_cls, *around8;
	int16_t *side_bc, *side_ferry;
	int32_t *side_static;
	node *nodes;
	node_x *nx;
	int32_t *piece_city;     /* per big-city piece: its city */
	uint8_t *mark;           /* per square: MARK_ bits */
	int32_t *island, *start_sq; /* grid's writable views of L's arrays */
	uint8_t *island_arms;
	int32_t *cand;           /* the squares whose sides may have a requirement
	                          * (printed ones, next to a big city, ferry ends) */
	size_t n_cand, cap_cand;
	size_t n_pieces;         /* big-city pieces */
	size_t n_bcsq;           /* big-city squares */
	int n_bc_nodes;          /* the big-city pieces' nodes (numbered first) */
	int n_prints;            /* road and city prints of playable squares, less ferry ends */
} build;

/* build.mark bits. */
enum {
	MARK_LINKS = 1, /* the square's link entries (side_bc, side_ferry) are set */
	MARK_CAND = 2   /* the square is in build.cand */
};

static void err(cm_diags *d, const char *where, const char *msg)
{
	if (d)
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, where, "%s", msg);
}

/* calloc of n entries (at least one) into p, or CM_ENOMEM. */
#define ALLOC(p, n)                                                   \
	do {                                                          \
		(p) = calloc((size_t)(n) + ((n) == 0), sizeof *(p)); \
		if (!(p))                                             \
			return CM_ENOMEM;                             \
	} while (0)

/* Puts square s among the candidates for a requirement once. */
static int candidate(build *B, int s)
{
	if (B->mark[s] & MARK_CAND)
		return 0;
	if (cm_grow((void **)&B->cand, &B->cap_cand, B->n_cand, sizeof *B->cand))
		return CM_ENOMEM;
	B->mark[s] |= MARK_CAND;
	B->cand[B->n_cand++] = s;
	return 0;
}

/* ---- the grid ---- */

/* What grid's pass over the squares counts. */
typedef struct {
	int n_playable, n_prints, n_start;
	size_t n_bcsq;
} grid_counts;

/* The flags a square's kind gives (the model checker holds kinds in range). */
static const uint8_t kflags[CM_SQ_KIND_COUNT] = {
	[CM_SQ_LAND] = SF_PLAYABLE | SF_ALLOWED, [CM_SQ_START] = SF_PLAYABLE | SF_ALLOWED,
	[CM_SQ_TOWN] = SF_PLAYABLE | SF_ALLOWED | SF_TOWN, [CM_SQ_ISLAND] = SF_PLAYABLE,
};

/* Square s (q: its square) into the byte arrays and the counts: what is
 * not land without a road or city print nor water with nothing else
 * (the passes below take those at once). 0 or CM_ENOMEM. */
static int grid_square(build *B, int s, const cm_square *q, uint8_t *sq_kind, uint8_t *sflags0, grid_counts *n)
{
	unsigned kind = q->kind;
	uint8_t f = kflags[kind < CM_SQ_KIND_COUNT ? kind : 0];
	sq_kind[s] = (uint8_t)kind;
	sflags0[s] = f;
	n->n_bcsq += kind == CM_SQ_BIGCITY;
	if (!(f & SF_PLAYABLE))
		return 0;
	n->n_playable++;
	const cm_edge_print *pr = q->print;
	/* in range, road and city are the print kinds with bit 1 */
	if ((pr[0].kind | pr[1].kind | pr[2].kind | pr[3].kind) & 2) {
		for (int k = 0; k < 4; k++)
			n->n_prints += pr[k].kind == CM_PRINT_ROAD || pr[k].kind == CM_PRINT_CITY;
		if (candidate(B, s) < 0)
			return CM_ENOMEM;
	}
	if (kind == CM_SQ_ISLAND) {
		/* the model checker holds the index to -1..n_islands-1;
		 * an island square without a valid island never opens */
		B->island[s] = q->island >= 0 ? (int32_t)q->island : -1;
		B->island_arms[s] = q->arms;
	} else if (kind == CM_SQ_START) {
		B->start_sq[n->n_start++] = s;
	}
	return 0;
}

/* The kinds that take no tile and, with nothing else, get no flags. */
static inline bool water_kind(unsigned kind)
{
	return kind == CM_SQ_NONE || kind == CM_SQ_WAVES || kind == CM_SQ_LANDMARK || kind == CM_SQ_HALF;
}

/* grid's pass over the map's packed grid view v (two bytes a square, not
 * the 24 of a square: a million squares read once more cost 2 MB, not
 * 24): the squares it does not list carry nothing beyond their kind and
 * print kinds (no arms, island, big city), so their square is made from
 * the two bytes; the listed ones are read from the grid. */
static int grid_view(build *B, const cm_map_grid *v, uint8_t *sq_kind, uint8_t *sflags0, grid_counts *n)
{
	const cm_map *m = B->m;
	const uint8_t *g = v->grid;
	size_t j = 0, N = (size_t)m->cols * (size_t)m->rows;
	size_t next = j < v->n_sq ? v->sq[j] : N;
	int playable = 0; /* in a local: a byte store may alias *n */
	for (size_t s = 0; s < N; s++) {
		unsigned kind = g[2 * s], pk = g[2 * s + 1];
		if (s == next) {
			next = ++j < v->n_sq ? v->sq[j] : N;
			if (grid_square(B, (int)s, &m->squares[s], sq_kind, sflags0, n) < 0)
				return CM_ENOMEM;
			continue;
		}
		if (kind == CM_SQ_LAND && !(pk & 0xAAu)) { /* no road or city print */
			sq_kind[s] = CM_SQ_LAND;
			sflags0[s] = kflags[CM_SQ_LAND];
			playable++;
			continue;
		}
		if (water_kind(kind) && pk == 0) {
			sq_kind[s] = (uint8_t)kind;
			sflags0[s] = 0;
			continue;
		}
		cm_square t = cm__square_blank((uint8_t)kind, 0);
		for (int e = 0; e < 4; e++)
			t.print[e].kind = (uint8_t)(pk >> (2 * e) & 3u);
		if (grid_square(B, (int)s, &t, sq_kind, sflags0, n) < 0)
			return CM_ENOMEM;
	}
	n->n_playable += playable;
	return 0;
}

/* The squares: kinds, flags, borders, islands and start squares, and the
 * counts of playable squares, prints and big-city squares. The arrays
 * every square writes lie in one block (huge pages where the system
 * grants them, zeroed whole), the others are sparse. */
static int grid(build *B, cm__layout *lay)
{
	layout *L = B->L;
	const cm_map *m = B->m;
	int N = L->n_sq, C = L->cols;
	/* border, kinds, flags, requirements, side classes, squares around;
	 * a block of huge pages starts on one (4 MB more of address space,
	 * never touched): the bytes fill whole huge pages, none half in
	 * small pages */
	const size_t per = 6, huge = (size_t)2 << 20;
	size_t pad = (size_t)N * per >= huge ? 2 * huge : 0;
	if (!(lay->slab = cm_calloc_big((size_t)N * per + pad, 1)))
		return CM_ENOMEM;
	uint8_t *bytes = lay->slab;
	if (pad)
		bytes += (huge - (uintptr_t)bytes % huge) % huge;
	lay->dense = bytes;
	uint8_t *border = bytes, *sq_kind = bytes + N;
	B->sflags0 = bytes + 2 * (size_t)N;
	B->req0 = bytes + 3 * (size_t)N;
	L->border = border;
	L->sq_kind = sq_kind;
	L->sflags0 = B->sflags0;
	L->req0 = B->req0;
	L->side_cls = B->side_cls = bytes + 4 * (size_t)N;
	L->around8 = B->around8 = bytes + 5 * (size_t)N;
	int32_t *island, *start_sq;
	uint8_t *island_arms;
	ALLOC(island, N);
	ALLOC(island_arms, N);
	ALLOC(start_sq, N);
	L->island = B->island = island;
	L->island_arms = B->island_arms = island_arms;
	L->start_sq = B->start_sq = start_sq;
	ALLOC(B->mark, N);
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	static const int ex[8] = { -1, 0, 1, 1, 1, 0, -1, -1 }, ey[8] = { -1, -1, -1, 0, 1, 1, 1, 0 };
	for (int k = 0; k < 4; k++)
		L->off4[k] = dy[k] * C + dx[k];
	for (int k = 0; k < 8; k++)
		L->off8[k] = ey[k] * C + ex[k];
	/* the byte arrays in locals: a byte store may alias anything, so
	 * through B they would be read again after each */
	uint8_t *const sflags0 = B->sflags0;
	grid_counts n = { 0, 0, 0, 0 };
	for (int y = 0; y < L->rows; y++) {
		uint8_t *bd = border + y * C;
		memset(bd, (y == 0 ? BD_N : 0) | (y == L->rows - 1 ? BD_S : 0), (size_t)C);
		bd[0] |= BD_W;
		bd[C - 1] |= BD_E;
	}
	const cm_map_grid *v = cm__map_view(m);
	if (v && grid_view(B, v, sq_kind, sflags0, &n) < 0)
		return CM_ENOMEM;
	for (int y = 0; !v && y < L->rows; y++) {
		const cm_square *q = &m->squares[y * C];
		for (int x = 0; x < C; x++) {
			int s = y * C + x;
			/* most squares: land, no road or city print, nothing else */
			if (cm__square_land_unprinted(&q[x])) {
				sq_kind[s] = CM_SQ_LAND;
				sflags0[s] = kflags[CM_SQ_LAND];
				n.n_playable++;
				continue;
			}
			/* a square that takes no tile with nothing beside its kind
			 * (the water): no flags */
			if (water_kind(q[x].kind) && cm__square_plain(&q[x])) {
				sq_kind[s] = q[x].kind;
				sflags0[s] = 0;
				continue;
			}
			if (grid_square(B, s, &q[x], sq_kind, sflags0, &n) < 0)
				return CM_ENOMEM;
		}
	}
	L->n_playable = n.n_playable;
	L->n_start = n.n_start;
	B->n_prints = n.n_prints;
	B->n_bcsq = n.n_bcsq;
	/* The board indexes big cities and ferries per side in 16 bits. */
	if (m->n_bigcities > CM_BOARD_MAX_LINKS || m->n_ferries > CM_BOARD_MAX_LINKS) {
		err(B->d, "board", "a map may have at most 32767 big cities and 32767 ferries");
		return CM_ELIMIT;
	}
	/* what the next steps fill where they need it */
	ALLOC(B->sq_links, N);
	ALLOC(B->side_bc, N * 4);
	ALLOC(B->side_ferry, N * 4);
	L->sq_links = B->sq_links;
	L->side_bc = B->side_bc;
	L->side_ferry = B->side_ferry;
	return 0;
}

/* ---- big cities ---- */

/* Big-city pieces repeat a few shapes across a big map; cm__type_info
 * reads only each feature's kind, slots, arms, cathedral and inn flags and
 * (for fields) touches, so a piece equal to one already filled in those
 * copies its info (an open-addressed table of the pieces filled, keyed by
 * a hash of those fields): the same result, one fill per shape. */
typedef struct {
	const cm_tile_type *t; /* NULL: empty */
	const type_info *ti;
} shape_memo;

static uint32_t shape_hash(const cm_tile_type *t)
{
	uint32_t h = 2166136261u ^ (uint32_t)t->n_features;
	for (size_t f = 0; f < t->n_features; f++) {
		const cm_feature *ft = &t->features[f];
		uint32_t v[4] = { (uint32_t)ft->kind, ft->slots | (uint32_t)ft->arms << 16,
		                  (uint32_t)ft->cathedral | (uint32_t)ft->inn << 1,
		                  ft->kind == CM_FEAT_FIELD ? ft->touches : 0 };
		for (int i = 0; i < 4; i++)
			h = (h ^ v[i]) * 16777619u;
	}
	return h ^ (h >> 15);
}

static bool same_shape(const cm_tile_type *a, const cm_tile_type *c)
{
	if (a->n_features != c->n_features)
		return false;
	for (size_t f = 0; f < a->n_features; f++) {
		const cm_feature *x = &a->features[f], *y = &c->features[f];
		if (x->kind != y->kind || x->slots != y->slots || x->arms != y->arms || x->cathedral != y->cathedral ||
		    x->inn != y->inn || (x->kind == CM_FEAT_FIELD && x->touches != y->touches))
			return false;
	}
	return true;
}

/* cm__type_info(t, ti) through the table (memo NULL: no table, mask its
 * size less one); a successful fill enters the table. At most 16 probes,
 * then a fill of its own, so shapes crafted to collide cost no more than
 * the fill. */
static int type_info_memo(shape_memo *memo, size_t mask, const cm_tile_type *t, type_info *ti)
{
	if (!memo)
		return cm__type_info(t, ti);
	size_t i = shape_hash(t) & mask;
	int probes = 0;
	for (; memo[i].t && probes < 16; i = (i + 1) & mask, probes++)
		if (same_shape(memo[i].t, t)) {
			memcpy(ti, memo[i].ti, sizeof *ti);
			return 0;
		}
	int rc = cm__type_info(t, ti);
	if (rc == 0 && !memo[i].t) {
		memo[i].t = t;
		memo[i].ti = ti;
	}
	return rc;
}

/* Each big-city piece's features (type_info), its square flagged
 * SF_BIGCITY, and the number of its first node (pieces in map order).
 * Every misplaced piece is reported: CM_EINVAL after them all. */
static int big_cities(build *B)
{
	layout *L = B->L;
	const cm_map *m = B->m;
	int N = L->n_sq;
	size_t n_pieces = 0;
	for (size_t c = 0; c < m->n_bigcities; c++)
		n_pieces += m->bigcities[c].n_pieces;
	type_info *bc_info;
	const cm_tile_type **bc_tile;
	int32_t *bc_type, *bc_base;
	ALLOC(bc_info, n_pieces);
	ALLOC(bc_tile, n_pieces);
	ALLOC(bc_type, N);
	ALLOC(bc_base, N);
	ALLOC(B->piece_city, n_pieces);
	L->bc_info = bc_info;
	L->bc_tile = bc_tile;
	L->bc_type = bc_type;
	L->bc_base = bc_base;
	L->n_bc_pieces = B->n_pieces = n_pieces;
	/* at most half full; without it (no memory) each piece is filled */
	size_t memo_cap = 16;
	while (memo_cap < 2 * n_pieces)
		memo_cap *= 2;
	shape_memo *memo = n_pieces > 1 ? calloc(memo_cap, sizeof *memo) : NULL;
	int rc = 0, n_nodes = 0;
	size_t pi = 0;
	char where[200];
	for (size_t c = 0; c < m->n_bigcities; c++)
		for (size_t k = 0; k < m->bigcities[c].n_pieces; k++, pi++) {
			const cm_bigcity_piece *p = &m->bigcities[c].pieces[k];
			int s = p->y * L->cols + p->x;
			assert(p->x >= 0 && p->y >= 0 && p->x < L->cols && p->y < L->rows); /* the model checker */
			const char *msg = NULL;
			if (m->squares[s].kind != CM_SQ_BIGCITY || (B->sflags0[s] & SF_BIGCITY))
				msg = "big-city piece not on a free big-city square";
			else if (type_info_memo(memo, memo_cap - 1, &p->tile, &bc_info[pi]) < 0)
				msg = "big-city piece has an uncovered slot or too many features";
			if (msg) {
				snprintf(where, sizeof where, "map %s, big city %s, square (%d,%d)", B->mid,
				         m->bigcities[c].name ? m->bigcities[c].name : "?", p->x, p->y);
				err(B->d, where, msg);
				rc = CM_EINVAL;
				continue;
			}
			bc_type[s] = (int32_t)pi;
			bc_tile[pi] = &p->tile;
			bc_base[s] = n_nodes;
			B->piece_city[pi] = (int32_t)c;
			n_nodes += bc_info[pi].n_feat;
			B->sflags0[s] |= SF_BIGCITY;
		}
	free(memo);
	B->n_bc_nodes = n_nodes;
	return rc;
}

/* ---- ferries ---- */

/* Gives square s its link entries (side_bc, side_ferry: none on every
 * side) the first time it needs them; the other squares' entries are never
 * written, so a map without ferries and big cities costs nothing there. */
static void links_init(build *B, int s)
{
	if (B->mark[s] & MARK_LINKS)
		return;
	B->mark[s] |= MARK_LINKS;
	for (int k = 0; k < 4; k++) {
		B->side_bc[s * 4 + k] = -1;
		B->side_ferry[s * 4 + k] = -1;
	}
}

/* Each ferry's two ends: the sides it links. Every misplaced ferry is
 * reported: CM_EINVAL after them all. */
static int ferries(build *B)
{
	const layout *L = B->L;
	const cm_map *m = B->m;
	int rc = 0;
	char where[200];
	for (size_t f = 0; f < m->n_ferries; f++) {
		const cm_ferry *fr = &m->ferries[f];
		/* the model checker: both ends inside the grid, sides 0..3 */
		assert(fr->x1 >= 0 && fr->y1 >= 0 && fr->x1 < L->cols && fr->y1 < L->rows);
		assert(fr->x2 >= 0 && fr->y2 >= 0 && fr->x2 < L->cols && fr->y2 < L->rows);
		assert((unsigned)fr->s1 <= 3 && (unsigned)fr->s2 <= 3);
		int s1 = fr->y1 * L->cols + fr->x1, s2 = fr->y2 * L->cols + fr->x2;
		links_init(B, s1);
		links_init(B, s2);
		if (s1 == s2 || !(B->sflags0[s1] & SF_PLAYABLE) || !(B->sflags0[s2] & SF_PLAYABLE) ||
		    B->side_ferry[s1 * 4 + fr->s1] >= 0 || B->side_ferry[s2 * 4 + fr->s2] >= 0) {
			snprintf(where, sizeof where, "map %s, ferry %zu", B->mid, f + 1);
			err(B->d, where, "ferry ends must be two sides of playable squares");
			rc = CM_EINVAL;
			continue;
		}
		B->side_ferry[s1 * 4 + fr->s1] = (int16_t)f;
		B->side_ferry[s2 * 4 + fr->s2] = (int16_t)f;
		B->sq_links[s1] |= (uint8_t)(1u << fr->s1);
		B->sq_links[s2] |= (uint8_t)(1u << fr->s2);
		for (int e = 0; e < 2; e++) {
			unsigned pk = m->squares[e ? s2 : s1].print[e ? fr->s2 : fr->s1].kind;
			B->n_prints -= pk == CM_PRINT_ROAD || pk == CM_PRINT_CITY;
		}
	}
	return rc;
}

/* ---- nodes ---- */

/* The static pieces a game starts from: the big-city pieces' features
 * (open edges towards playable squares, the other sides closed), pieces
 * of one city side by side joined like tiles (schemas/map.md), then one
 * road piece per ferry; the printed segments' pieces follow (sides). The
 * joins run the turn's union-find (unite_int.h) on a board over the
 * layout whose nodes are the layout's: a big-city square never holds a
 * tile, so it reads nothing else of a game. */
static int nodes(build *B)
{
	layout *L = B->L;
	const cm_map *m = B->m;
	int N = L->n_sq;
	L->n_static = B->n_bc_nodes + B->n_prints + (int)m->n_ferries;
	ALLOC(B->nodes, L->n_static);
	ALLOC(B->nx, L->n_static);
	L->static_nodes = B->nodes;
	L->static_nx = B->nx;
	node *n = B->nodes;
	const uint8_t *fl = B->sflags0;
	for (int s = 0; B->n_pieces && s < N; s++) {
		while (s + 8 <= N && !(cm_load8(fl + s) & CM_BYTES8(SF_BIGCITY)))
			s += 8;
		if (s >= N)
			break;
		if (!(fl[s] & SF_BIGCITY))
			continue;
		const type_info *pt = &L->bc_info[L->bc_type[s]];
		int32_t base = L->bc_base[s];
		for (int f = 0; f < pt->n_feat; f++) {
			int open = 0;
			for (int k = 0; k < 4; k++) {
				int q = cm__lnb(L, s, k);
				if (pt->slot[0][3 * k + 1] == f && q >= 0 && (fl[q] & SF_PLAYABLE))
					open++;
			}
			cm__init_node(&n[base + f], &B->nx[base + f], base + f, s, pt->kind[f],
			              (uint8_t)(pt->nflags[f] | NF_BIGCITY), (uint8_t)f,
			              (pt->kind[f] == CM_FEAT_ROAD || pt->kind[f] == CM_FEAT_CITY) ? open : 0, pt->arms[f]);
		}
	}
	if (B->n_pieces > 1) {
		cm_board *jb = calloc(1, sizeof *jb);
		uint32_t *stamp = calloc((size_t)N, sizeof *stamp);
		if (!jb || !stamp) {
			free(jb);
			free(stamp);
			return CM_ENOMEM;
		}
		jb->L = *L;
		jb->nodes = n;
		jb->nx = B->nx;
		jb->stamp = stamp;
		jb->n_players = CM_MAX_PLAYERS;
		jb->n_nodes = jb->max_nodes = B->n_bc_nodes;
		for (int s = 0; s < N; s++) {
			while (s + 8 <= N && !(cm_load8(fl + s) & CM_BYTES8(SF_BIGCITY)))
				s += 8;
			if (s >= N)
				break;
			if (!(fl[s] & SF_BIGCITY))
				continue;
			for (int k = 1; k <= 2; k++) { /* E and S: each pair once */
				int q = cm__lnb(L, s, k);
				if (q < 0 || !(fl[q] & SF_BIGCITY))
					continue; /* pieces side by side meet like tiles (schemas/map.md) */
				const int8_t *sa = L->bc_info[L->bc_type[s]].slot[0];
				const int8_t *sc = L->bc_info[L->bc_type[q]].slot[0];
				for (int p = 0; p < 3; p++) {
					int ia = 3 * k + p, ic = cm_slot_facing(ia);
					int32_t x = L->bc_base[s] + sa[ia], y = L->bc_base[q] + sc[ic];
					if (n[x].kind == n[y].kind)
						unite_rare(jb, x, y);
				}
			}
		}
		free(stamp);
		free(jb);
	}
	int next = B->n_bc_nodes;
	for (size_t f = 0; f < m->n_ferries; f++) {
		const cm_ferry *fr = &m->ferries[f];
		int s1 = fr->y1 * L->cols + fr->x1, s2 = fr->y2 * L->cols + fr->x2;
		int arms = fr->arms + m->squares[s1].print[fr->s1].arms + m->squares[s2].print[fr->s2].arms;
		cm__init_node(&n[next], &B->nx[next], next, N + next, CM_FEAT_ROAD, NF_FERRY, 255, 2, arms);
		next++;
	}
	return 0;
}

/* ---- requirements ---- */

static uint8_t req_of_edge(int e)
{
	return e == CM_EDGE_ABBEY ? REQ_ANY : (uint8_t)(e + 1);
}

/* Square s's printed requirements (REQ_ per side) and the big cities its
 * sides face (side_bc, sq_links). A side requires what it meets: a
 * big-city piece its edge there; a playable square nothing; else (the
 * grid's edge, water, a landmark) a ferry's end a road, a printed road or
 * city segment its kind, anything else nothing. */
static void square_reqs(build *B, int s)
{
	const layout *L = B->L;
	const uint8_t *fl = B->sflags0;
	const cm_edge_print *pr = B->m->squares[s].print;
	uint8_t req = 0;
	for (int k = 0; k < 4; k++) {
		int key = s * 4 + k, q = cm__lnb(L, s, k);
		uint8_t rq = REQ_ANY;
		if (q >= 0 && (fl[q] & SF_BIGCITY)) {
			links_init(B, s);
			B->side_bc[key] = (int16_t)B->piece_city[L->bc_type[q]];
			B->sq_links[s] |= (uint8_t)(1u << k);
			rq = req_of_edge(L->bc_info[L->bc_type[q]].edge[0][(k + 2) % 4]);
		} else if (q >= 0 && (fl[q] & SF_PLAYABLE)) {
			rq = REQ_ANY;
		} else if (((B->sq_links[s] >> k) & 1) && B->side_ferry[key] >= 0) {
			rq = REQ_ROAD;
		} else if (pr[k].kind == CM_PRINT_ROAD || pr[k].kind == CM_PRINT_CITY) {
			rq = pr[k].kind == CM_PRINT_ROAD ? REQ_ROAD : REQ_CITY;
		}
		req |= (uint8_t)(rq << (2 * k));
	}
	B->req0[s] = req;
}

/* The printed requirements of every playable square: only a square with a
 * road or city print, a ferry's end or a big-city piece beside it can
 * have one (the others require nothing on any side: req0 stays 0), so
 * only those are visited, whatever the size of the map. */
static int requirements(build *B)
{
	const layout *L = B->L;
	const cm_map *m = B->m;
	for (size_t c = 0; c < m->n_bigcities; c++)
		for (size_t k = 0; k < m->bigcities[c].n_pieces; k++) {
			const cm_bigcity_piece *p = &m->bigcities[c].pieces[k];
			int s = p->y * L->cols + p->x;
			for (int d = 0; d < 4; d++) {
				int q = cm__lnb(L, s, d);
				if (q >= 0 && (B->sflags0[q] & SF_PLAYABLE) && candidate(B, q) < 0)
					return CM_ENOMEM;
			}
		}
	for (size_t f = 0; f < m->n_ferries; f++) {
		const cm_ferry *fr = &m->ferries[f];
		if (candidate(B, fr->y1 * L->cols + fr->x1) < 0 || candidate(B, fr->y2 * L->cols + fr->x2) < 0)
			return CM_ENOMEM;
	}
	for (size_t i = 0; i < B->n_cand; i++)
		square_reqs(B, B->cand[i]);
	return 0;
}

/* ---- the static pieces of the sides (boards only) ---- */

/* The sides that meet a ferry's end or a printed segment with nothing
 * a tile joins across them (SC_NONE, from counts): each becomes SC_STATIC
 * and meets its static node, the ferry's, or a new printed segment's
 * piece (numbered in square order, then side order). They are the sides
 * with a requirement and nothing across, so only squares with a
 * requirement are looked at (eight at a time skipped). */
static int statics(build *B)
{
	const layout *L = B->L;
	const cm_map *m = B->m;
	int N = L->n_sq;
	ALLOC(B->side_static, (size_t)N * 4);
	B->L->side_static = B->side_static;
	const uint8_t *rq = L->req0;
	int next = B->n_bc_nodes + (int)m->n_ferries;
	for (int s = 0; s < N; s++) {
		while (s + 8 <= N && cm_load8(rq + s) == 0)
			s += 8;
		if (s >= N)
			break;
		for (int k = 0; rq[s] && k < 4; k++) {
			int key = s * 4 + k;
			if (!((rq[s] >> (2 * k)) & 3) || ((B->side_cls[s] >> (2 * k)) & 3) != SC_NONE)
				continue;
			if (((L->sq_links[s] >> k) & 1) && L->side_ferry[key] >= 0) {
				B->side_static[key] = B->n_bc_nodes + L->side_ferry[key];
			} else {
				const cm_edge_print *pr = &m->squares[s].print[k];
				uint8_t kind = pr->kind == CM_PRINT_ROAD ? CM_FEAT_ROAD : CM_FEAT_CITY;
				cm__init_node(&B->nodes[next], &B->nx[next], next, N + next, kind, NF_PRINT, 255, 1, pr->arms);
				B->side_static[key] = next++;
			}
			B->side_cls[s] |= (uint8_t)(1u << (2 * k)); /* SC_NONE becomes SC_STATIC */
		}
	}
	assert(next == L->n_static);
	return 0;
}

/* ---- neighbourhoods ---- */

/* True when an earlier side of square s faces big city v too (a square
 * is listed once per big city next to it). */
static bool bc_side_seen(const layout *L, int s, int k, int v)
{
	for (int j = 0; j < k; j++)
		if (L->side_bc[s * 4 + j] == v)
			return true;
	return false;
}

/* Calls visit on each (big city, square next to it) pair, squares in
 * order: the squares with no link skipped eight at a time. */
static void bc_pairs(const layout *L, void (*visit)(void *, int, int), void *arg)
{
	int N = L->n_sq;
	for (int s = 0; s < N; s++) {
		while (s + 8 <= N && !cm_load8(L->sq_links + s))
			s += 8; /* eight squares with no link at once (most) */
		if (s >= N)
			break;
		if (!L->sq_links[s])
			continue;
		for (int k = 0; k < 4; k++) {
			int v = L->side_bc[s * 4 + k];
			if (v >= 0 && !bc_side_seen(L, s, k, v))
				visit(arg, v, s);
		}
	}
}

/* Calls visit on each (island, square of it) pair, squares in order. */
static void isl_pairs(const layout *L, void (*visit)(void *, int, int), void *arg)
{
	int N = L->n_sq;
	for (int s = 0; s < N; s++) {
		while (s + 8 <= N && !cm_has_byte8(cm_load8(L->sq_kind + s), CM_SQ_ISLAND))
			s += 8;
		if (s < N && L->sq_kind[s] == CM_SQ_ISLAND && L->island[s] >= 0)
			visit(arg, L->island[s], s);
	}
}

/* Buckets of squares per key (a big city, an island), each in square
 * order: counted by one pass, filled by another. */
typedef struct {
	int32_t *start; /* per key, its first entry; start[n] the total */
	int32_t *fill;  /* per key, its next entry (the filling pass) */
	int32_t *sq;
} buckets;

static void count_pair(void *arg, int key, int s)
{
	(void)s;
	((buckets *)arg)->start[key + 1]++;
}

static void fill_pair(void *arg, int key, int s)
{
	buckets *bk = arg;
	bk->sq[bk->fill[key]++] = s;
}

static int bucket(const layout *L, size_t n, void (*pairs)(const layout *, void (*)(void *, int, int), void *),
                  int32_t **start, int32_t **sq)
{
	buckets bk = { 0 };
	ALLOC(bk.start, n + 1);
	*start = bk.start;
	if (n)
		pairs(L, count_pair, &bk);
	for (size_t i = 0; i < n; i++)
		bk.start[i + 1] += bk.start[i];
	ALLOC(bk.sq, bk.start[n]);
	*sq = bk.sq;
	ALLOC(bk.fill, n);
	memcpy(bk.fill, bk.start, n * sizeof *bk.fill);
	if (n)
		pairs(L, fill_pair, &bk);
	free(bk.fill);
	return 0;
}

/* The squares next to each big city (MAP-BIGCITY: a connection unlocks
 * them) and each island's squares (MAP-ISLAND): linear whatever the
 * number of big cities and islands. */
static int neighbourhoods(build *B)
{
	layout *L = B->L;
	int32_t *start, *sq;
	int rc = bucket(L, B->m->n_bigcities, bc_pairs, &start, &sq);
	L->bc_adj_start = start;
	L->bc_adj = sq;
	if (rc < 0)
		return rc;
	rc = bucket(L, B->m->n_islands, isl_pairs, &start, &sq);
	L->isl_start = start;
	L->isl_sq = sq;
	return rc;
}

/* ---- what the turn counts ---- */

/* What lies across each side of each square, for the turn (side_cls):
 * a playable square, a big-city piece, or nothing a tile joins (the grid
 * edge, water, a landmark; sides then marks those with a static node);
 * and the playable and big-city squares among
 * the 8 around each square, by sums of three rows per column slid along
 * each row (no per-square neighbour walk). */
static int counts(build *B)
{
	const layout *L = B->L;
	int C = L->cols, R = L->rows;
	const uint8_t *fl = B->sflags0, *kind = L->sq_kind;
	for (int s = 0; s < L->n_sq; s++) {
		unsigned c = 0;
		for (int d = 0; d < 4; d++) {
			int q = cm__lnb(L, s, d);
			unsigned k = q < 0 ? SC_NONE
			             : (fl[q] & SF_BIGCITY) ? SC_BIGCITY
			             : (fl[q] & SF_PLAYABLE) ? SC_PLAYABLE : SC_NONE;
			c |= k << (2 * d);
		}
		B->side_cls[s] = (uint8_t)c;
	}
	/* per column of the row, the squares that count in it and the rows
	 * above and below; then three columns at a time, less the square */
	uint8_t *one, *col;
	ALLOC(one, 2 * (size_t)(C + 2));
	col = one + C + 2;
#define COUNTS(q) ((fl[q] & SF_PLAYABLE) | (kind[q] == CM_SQ_BIGCITY))
	for (int y = 0; y < R; y++) {
		col[0] = col[C + 1] = 0;
		for (int x = 0, s = y * C; x < C; x++, s++) {
			one[x] = (uint8_t)COUNTS(s);
			col[x + 1] = (uint8_t)(one[x] + (y > 0 ? COUNTS(s - C) : 0) + (y + 1 < R ? COUNTS(s + C) : 0));
		}
		uint8_t *out = B->around8 + y * C;
		for (int x = 0; x < C; x++)
			out[x] = (uint8_t)(col[x] + col[x + 1] + col[x + 2] - one[x]);
	}
#undef COUNTS
	free(one);
	return 0;
}

/* ---- the layout ---- */

static void layout_free_arrays(cm__layout *l)
{
	layout *L = &l->L;
	const void *p[] = { L->island, L->island_arms, L->start_sq, L->sq_links, L->side_bc, L->side_ferry,
		            L->side_static, L->bc_info, L->bc_tile, L->bc_type, L->bc_base, L->static_nodes,
		            L->static_nx, L->bc_adj_start, L->bc_adj, L->isl_start, L->isl_sq };
	for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
		free((void *)p[i]);
	free(l->slab);
	free(l);
}

/* What the validator reads, in order; each step returns 0 or a negative
 * code. */
static int build_reach(build *B, cm__layout *lay)
{
	int rc = grid(B, lay);
	if (rc < 0)
		return rc;
	rc = big_cities(B);
	if (rc == CM_ENOMEM)
		return rc;
	int rf = ferries(B); /* reported with the big cities' errors */
	if (rc < 0 || rf < 0)
		return rc < 0 ? rc : rf;
	if ((rc = requirements(B)) < 0)
		return rc;
	lay->n_bc_nodes = B->n_bc_nodes;
	lay->n_prints = B->n_prints;
	return neighbourhoods(B);
}

/* What boards read besides, on a layout build_reach made: the dense
 * arrays are the layout's own, written before anyone shares it. */
static int build_play(cm__layout *lay)
{
	layout *L = &lay->L;
	size_t N = (size_t)L->n_sq;
	build B = { .L = L, .m = L->map, .mid = L->map->id ? L->map->id : "?", .sflags0 = lay->dense + 2 * N,
		    .side_cls = lay->dense + 4 * N, .around8 = lay->dense + 5 * N, .n_pieces = L->n_bc_pieces,
		    .n_bc_nodes = lay->n_bc_nodes, .n_prints = lay->n_prints };
	int rc;
	if ((rc = nodes(&B)) < 0 || (rc = counts(&B)) < 0)
		return rc;
	return statics(&B);
}

/* The layout of map, built up to the validator's steps. */
static int layout_reach(const cm_map *map, cm_diags *d, cm__layout **out)
{
	*out = NULL;
	/* every index the layout follows is in range: the map passed the
	 * model's one checker when it was built (a partial map did not) */
	if (map->partial) {
		err(d, "board", "the map failed its checks: a partial map cannot be played");
		return CM_EINVAL;
	}
	cm__layout *lay = calloc(1, sizeof *lay);
	if (!lay)
		return CM_ENOMEM;
	layout *L = &lay->L;
	L->map = map;
	L->cols = map->cols;
	L->rows = map->rows;
	L->n_sq = map->cols * map->rows;
	L->cols_inv = map->cols > 0 ? ((1ull << 42) + (uint64_t)map->cols - 1) / (uint64_t)map->cols : 0;
	build B = { .L = L, .m = map, .d = d, .mid = map->id ? map->id : "?" };
	int rc = build_reach(&B, lay);
	free(B.piece_city);
	free(B.mark);
	free(B.cand);
	if (rc < 0) {
		layout_free_arrays(lay);
		return rc;
	}
	lay->refs = 1;
	*out = lay;
	return 0;
}

int cm__layout_new_reach(const cm_map *map, cm_diags *d, cm__layout **out)
{
	return layout_reach(map, d, out);
}

int cm__layout_complete(cm__layout *l)
{
	if (l->whole)
		return 0;
	assert(l->refs == 1); /* nobody else reads it yet */
	int rc = build_play(l);
	l->whole = rc == 0;
	return rc;
}

int cm__layout_new(const cm_map *map, cm_diags *d, cm__layout **out)
{
	int rc = layout_reach(map, d, out);
	if (rc == 0 && (rc = cm__layout_complete(*out)) < 0) {
		cm__layout_free(*out);
		*out = NULL;
	}
	return rc;
}

cm__layout *cm__layout_ref(cm__layout *l)
{
	__atomic_add_fetch(&l->refs, 1, __ATOMIC_RELAXED);
	return l;
}

void cm__layout_free(cm__layout *l)
{
	if (l && __atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL) == 0)
		layout_free_arrays(l);
}

/* ---- the validator's questions ---- */

int cm__layout_squares(const cm__layout *l)
{
	return l->L.n_sq;
}

int cm__layout_playable_count(const cm__layout *l)
{
	return l->L.n_playable;
}

bool cm__layout_playable(const cm__layout *l, int s)
{
	return s >= 0 && s < l->L.n_sq && (l->L.sflags0[s] & SF_PLAYABLE);
}

_Static_assert(SF_PLAYABLE == 1, "cm__layout_playable_flags: bit 0");
const uint8_t *cm__layout_playable_flags(const cm__layout *l)
{
	return l->L.sflags0;
}

const uint8_t *cm__layout_printed_reqs(const cm__layout *l)
{
	return l->L.req0;
}

unsigned cm__layout_printed_req(const cm__layout *l, int s)
{
	return l->L.req0[s];
}

int cm__layout_start_count(const cm__layout *l)
{
	return l->L.n_start;
}

int cm__layout_start_square(const cm__layout *l, int i)
{
	return l->L.start_sq[i];
}

int cm__layout_island(const cm__layout *l, int s)
{
	return cm__lisland_of(&l->L, s);
}

bool cm__layout_island_empty(const cm__layout *l, int island)
{
	return l->L.isl_start[island] == l->L.isl_start[island + 1];
}
