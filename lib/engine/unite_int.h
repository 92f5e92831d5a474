/* SPDX-License-Identifier: MIT */
/* unite_int.h: the union-find over feature pieces (board_int.h "node"):
 * joining two pieces' features, their open edges, tiles (BASE-TILE-COUNT:
 * squares both hold counted once), coats of arms, followers and lists.
 * Static inline, so the turn (board.c) inlines it where it joins sides,
 * and the layout's builder (layout.c), which joins big-city pieces with
 * it, has its own copy. Only those two include it. */
#ifndef CM_UNITE_INT_H
#define CM_UNITE_INT_H

#include <stddef.h>
#include "engine/board_int.h"

/* A new tile's pieces are set up 16 bytes at a time where SSE2 is there
 * (every x86-64), which needs the layouts: node's links in its first 8
 * bytes and minp at 24 (32 bytes in all), node_x's square and lists in
 * its first 16 (24 in all). */
#if defined(__SSE2__) && !defined(CM_NO_SIMD)
#include <emmintrin.h>
#define NODE_SSE2 1
_Static_assert(sizeof(node) == 32 && offsetof(node, parent) == 0 && offsetof(node, next) == 4 &&
                       offsetof(node, size) == 8 && offsetof(node, open) == 12 && offsetof(node, tiles) == 16 &&
                       offsetof(node, arms) == 20 && offsetof(node, minp) == 24 && sizeof(node_x) == 24 && offsetof(node_x, sq) == 0 &&
                       offsetof(node_x, mhead) == 4 && offsetof(node_x, mnext) == 8 && offsetof(node_x, feat) == 16,
               "node layout (cm__put_tile, unite)");
#endif

_Static_assert(offsetof(node, flags) == offsetof(node, kind) + 1 && offsetof(node, nfol) == offsetof(node, kind) + 2,
               "kind, flags and nfol in one word (unite)");


/* Whether NF_MULTI piece p shares its square with root y: another piece
 * of its kind there under y (p is on a tile or a big-city piece). */
static inline bool shares_square(const cm_board *b, int32_t p, int32_t y)
{
	const node_x *nx = b->nx;
	int s = nx[p].sq;
	int32_t lo;
	cm__sq_nodes(b, s, &lo);
	for (uint32_t m = cm__sq_info(b, s)->same[nx[p].feat]; m; m &= m - 1)
		if (cm__find(b->nodes, lo + cm__ctz(m)) == y)
			return true;
	return false;
}

/* Squares that two roots of the same kind share (BASE-TILE-COUNT). Only
 * squares holding two pieces of one kind can be shared, and those pieces
 * carry NF_MULTI: walk the shorter multi list, each square once (a list
 * of one, most often a new tile's piece, needs no stamps). */
static inline int overlap(cm_board *b, int32_t x, int32_t y)
{
	const node_x *nx = b->nx;
	if (nx[x].nmulti > nx[y].nmulti) {
		int32_t t = x;
		x = y;
		y = t;
	}
	int32_t h = nx[x].mhead, p = h;
	if (nx[x].nmulti == 1)
		return shares_square(b, h, y);
	uint32_t ep = cm__epoch(b);
	int cnt = 0;
	do {
		int s = nx[p].sq;
		if (b->stamp[s] != ep) {
			b->stamp[s] = ep;
			cnt += shares_square(b, p, y);
		}
		p = nx[p].mnext;
	} while (p != h);
	return cnt;
}

/* The rarer half of a union of root rc into ra (whose flags were af):
 * followers and the NF_MULTI lists, in the rarer half of the nodes. */
static inline void unite_more(cm_board *b, int32_t ra, int32_t rc, unsigned af)
{
	node *A = &b->nodes[ra], *C = &b->nodes[rc];
	node_x *nx = b->nx, *X = &nx[ra], *Y = &nx[rc];
	if (C->nfol) { /* most features joined carry no follower */
		if (!A->nfol)
			memcpy(X->fol, Y->fol, sizeof X->fol); /* A's were never set */
		else
			for (int p = 0; p < b->n_players; p++)
				X->fol[p] = (uint8_t)(X->fol[p] + Y->fol[p]);
		A->nfol = (uint16_t)(A->nfol + C->nfol);
	}
	if (!(C->flags & NF_MULTI))
		return;
	if (!(af & NF_MULTI)) {
		X->mhead = Y->mhead;
		X->nmulti = Y->nmulti;
	} else {
		int32_t t = nx[X->mhead].mnext;
		nx[X->mhead].mnext = nx[Y->mhead].mnext;
		nx[Y->mhead].mnext = t;
		X->nmulti += Y->nmulti;
	}
}

/* Merges root rc's set into root ra's, the sets sharing ov squares
 * (BASE-TILE-COUNT): all but unite_more. */
static CM__INLINE void merge(cm_board *b, int32_t ra, int32_t rc, int ov)
{
	node *n = b->nodes;
	node *A = &n[ra], *C = &n[rc];
	/* C's pieces (the smaller set: each piece is relabelled at most
	 * log2 of the pieces times over a game) point at the new root */
	int32_t p = rc;
	do {
		n[p].parent = ra;
		p = n[p].next;
	} while (p != rc);
#ifdef NODE_SSE2
	/* size, open, tiles and arms side by side: one vector */
	__m128i va = _mm_loadu_si128((const __m128i *)(const void *)&A->size);
	__m128i vc = _mm_loadu_si128((const __m128i *)(const void *)&C->size);
	_mm_storeu_si128((__m128i *)(void *)&A->size,
	                 _mm_sub_epi32(_mm_add_epi32(va, vc), _mm_setr_epi32(0, 0, ov, 0)));
#else
	A->size += C->size;
	A->open += C->open;
	A->tiles += C->tiles - ov;
	A->arms += C->arms;
#endif
	A->flags |= C->flags; /* on a root, NF_MULTI: nmulti > 0 */
	/* the lower piece, -1 meaning none: an unsigned minimum */
	uint32_t am = (uint32_t)A->minp, cm = (uint32_t)C->minp;
	A->minp = (int32_t)(cm < am ? cm : am);
	int32_t t = A->next;
	A->next = C->next;
	C->next = t;
}

/* unite of roots ra and rc (rc the smaller set) when rc's set carries
 * followers or NF_MULTI pieces: the squares both sets hold (when both
 * hold NF_MULTI pieces, roads and cities only), the merge, and
 * unite_more. One copy, out of line. */
static CM__NOINLINE void unite_slow(cm_board *b, int32_t ra, int32_t rc)
{
	node *n = b->nodes;
	unsigned af = n[ra].flags;
	merge(b, ra, rc, af & n[rc].flags & NF_MULTI ? overlap(b, ra, rc) : 0);
	unite_more(b, ra, rc, af);
}

/* Joins the features of pieces a and c (union by size, the first root
 * kept on a tie); returns the root. */
static CM__INLINE int32_t unite(cm_board *b, int32_t a, int32_t c)
{
	node *n = b->nodes;
	int32_t ra = cm__find(n, a), rc = cm__find(n, c);
	if (ra == rc)
		return ra;
	/* the larger root kept: a swap without a branch (which is larger is
	 * a coin toss) */
	int32_t sw = (ra ^ rc) & -(int32_t)(n[ra].size < n[rc].size);
	ra ^= sw;
	rc ^= sw;
	/* the smaller set's followers and NF_MULTI pieces are all the rarer
	 * work needs (overlap counts squares both sets hold, the same
	 * whichever it walks): one test of the word holding kind, flags and
	 * nfol, against a mask laid out as a node's (whatever the byte order) */
	static const node rare = { .flags = NF_MULTI, .nfol = UINT16_MAX };
	uint32_t w, m;
	memcpy(&w, &n[rc].kind, sizeof w);
	memcpy(&m, &rare.kind, sizeof m);
	if (w & m)
		unite_slow(b, ra, rc);
	else
		merge(b, ra, rc, 0);
	return ra;
}

/* unite where a turn rarely goes (abbeys, big cities, the map edge) and
 * for the layout's big-city pieces: one copy, not one inlined per call */
static CM__NOINLINE int32_t unite_rare(cm_board *b, int32_t a, int32_t c)
{
	return unite(b, a, c);
}

#endif
