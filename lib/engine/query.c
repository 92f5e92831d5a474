/* SPDX-License-Identifier: MIT */
/* query.c: the engine's answers to the layers above it (engine/engine.h):
 * the square-unlock rules (start, neighbours, big cities, ferries,
 * islands) run over the map's layout at once, and a few facts of a deck
 * and a board.
 * The rules themselves stay where the engine plays them (board.c). */
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"
#include "engine/board_int.h"
#include "base/mem_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

bool cm__deck_abbey(const cm_deck *deck, size_t t)
{
	return t < deck->n_types && deck->info[t].abbey;
}

unsigned cm__deck_fit_req(const cm_deck *deck, size_t t, unsigned req)
{
	if (t >= deck->n_types || deck->info[t].abbey || req > 255)
		return 0;
	return deck->info[t].rotmask[req];
}

int cm__board_filled(const cm_board *b, const int32_t **sq)
{
	*sq = b->filled;
	return b->n_filled;
}

typedef struct {
	const layout *L;
	const int *takes;           /* per square, or NULL: */
	const uint8_t *takes_req;   /* per printed requirement */
	uint8_t *reach, *isl_open;
	uint8_t *st;                /* per square: ST_ */
	int32_t *seed;              /* squares to fill their row's run from */
	size_t n_seed, cap_seed;
	bool oom;
} walk;

/* What a square is to the walk. */
enum {
	ST_NO = 0,      /* takes no tile */
	ST_OPEN = 1,    /* takes one: reached when a neighbour is */
	ST_ISLAND = 2,  /* an island square: waits for its island */
	ST_WAITING = 3, /* an island square a neighbour reached: goes on when the island opens */
	ST_REACHED = 4
};

_Static_assert(ST_REACHED == 4, "reached: the one state with bit 2 (the last pass reads it)");

/* Whether square q, in state t, is reached when a neighbour is: it takes
 * a tile and is no island square of an island still closed. */
static inline bool passable(const walk *w, int q, uint8_t t)
{
	if (t == ST_OPEN)
		return true;
	if (t != ST_ISLAND && t != ST_WAITING)
		return false;
	int32_t isl = w->L->island[q];
	return isl >= 0 && w->isl_open[isl];
}

static void push_seed(walk *w, int q)
{
	if (w->n_seed == w->cap_seed) {
		size_t cap = w->cap_seed * 2;
		int32_t *v = realloc(w->seed, cap * sizeof *v);
		if (!v) {
			w->oom = true;
			return;
		}
		w->seed = v;
		w->cap_seed = cap;
	}
	w->seed[w->n_seed++] = q;
}

/* A neighbour q of a reached square (q in the grid), or a square a big
 * city or ferry leads to: a seed when it is reached, else an island
 * square that waits for its island. */
static inline void touch(walk *w, int q)
{
	uint8_t t = w->st[q];
	if (passable(w, q, t))
		push_seed(w, q);
	else if (t == ST_ISLAND)
		w->st[q] = ST_WAITING;
}

/* The squares of the row lo..hi (inclusive) next to a run just reached:
 * each stretch of squares reached through it is one seed (the seed's run
 * takes the rest), the island squares of closed islands wait. */
static void touch_row(walk *w, int lo, int hi)
{
	uint8_t *st = w->st;
	bool in = false; /* the square before is in a stretch with a seed */
	for (int q = lo; q <= hi; q++) {
		/* eight squares that change nothing: open ones in a stretch with
		 * a seed, or reached and tileless ones outside any */
		while (q + 8 <= hi + 1) {
			uint64_t x = cm_load8(st + q);
			if (in ? x != CM_BYTES8(ST_OPEN) : (x & ~CM_BYTES8(ST_REACHED)) != 0)
				break;
			q += 8;
		}
		if (q > hi)
			break;
		uint8_t t = st[q];
		if (t == ST_REACHED || t == ST_NO) {
			in = false;
			continue;
		}
		if (passable(w, q, t)) {
			if (!in)
				push_seed(w, q);
			in = true;
			continue;
		}
		in = false;
		if (t == ST_ISLAND)
			st[q] = ST_WAITING;
	}
}

/* The big cities and ferries beside reached square s (sq_links[s] set). */
static void links(walk *w, uint8_t *bc_done, int s)
{
	const layout *L = w->L;
	const cm_map *m = L->map;
	uint8_t *isl_open = w->isl_open;
	for (int k = 0; k < 4; k++) {
		int key = s * 4 + k;
		int bc = L->side_bc[key];
		if (bc >= 0 && !bc_done[bc]) {
			bc_done[bc] = 1;
			for (int32_t i = L->bc_adj_start[bc]; i < L->bc_adj_start[bc + 1]; i++)
				touch(w, L->bc_adj[i]);
		}
		int fe = L->side_ferry[key];
		if (fe < 0)
			continue;
		const cm_ferry *fr = &m->ferries[fe];
		int s1 = fr->y1 * L->cols + fr->x1, s2 = fr->y2 * L->cols + fr->x2;
		int o = s1 == s && (int)fr->s1 == k ? s2 : s1;
		int isl = cm__lisland_of(L, o);
		if (isl >= 0 && !isl_open[isl]) {
			isl_open[isl] = 1;
			for (int32_t i = L->isl_start[isl]; i < L->isl_start[isl + 1]; i++)
				if (w->st[L->isl_sq[i]] == ST_WAITING)
					push_seed(w, L->isl_sq[i]);
		}
		touch(w, o);
	}
}

/* The reached squares as a closure: from each seed, the run of squares
 * it reaches along its row is filled at once, then the rows above and
 * below it are touched, stretch by stretch, and the big cities and
 * ferries of its squares followed. Every square is filled once, and
 * touched a bounded number of times (once from each side, once per link),
 * so the walk is linear in the board whatever its shape; on a map of open
 * land it handles rows, not squares. The closure does not depend on the
 * order (every rule only adds), so it is the one a breadth-first walk
 * finds. What each square is comes first, in one pass over the flat
 * arrays. */
static int reach_walk(walk w)
{
	const layout *L = w.L;
	const cm_map *m = L->map;
	int N = L->n_sq, C = L->cols;
	/* the states live in reach itself, made 0 or 1 at the end */
	w.st = w.reach;
	w.cap_seed = 1024;
	w.seed = malloc(w.cap_seed * sizeof *w.seed);
	uint8_t *bc_done = calloc(m->n_bigcities + 1, 1);
	if (!bc_done || !w.seed) {
		free(bc_done);
		free(w.seed);
		return CM_ENOMEM;
	}
	uint8_t *st = w.st;
	/* squares with links only where a big city or a ferry is: without,
	 * sq_links is all zero, and is not read (a million squares' worth of
	 * untouched pages, each a page fault when read) */
	const bool any_links = m->n_bigcities || m->n_ferries;
	/* per flags: playable and allowed open, playable alone an island
	 * square (not allowed until connected), else no tile */
	static const uint8_t by_flags[8] = { [SF_PLAYABLE | SF_ALLOWED] = ST_OPEN, [SF_PLAYABLE] = ST_ISLAND };
	const uint8_t *fl = L->sflags0, *rq = L->req0;
	if (w.takes)
		for (int q = 0; q < N; q++)
			st[q] = w.takes[q] ? by_flags[fl[q] & (SF_PLAYABLE | SF_ALLOWED)] : ST_NO;
	else {
		/* eight at a time where they take no tile, or are all open land
		 * with no requirement (most of a map); the others one by one */
		const uint64_t pa8 = CM_BYTES8(SF_PLAYABLE | SF_ALLOWED), open8 = CM_BYTES8(ST_OPEN), no8 = CM_BYTES8(ST_NO);
		bool any_takes = w.takes_req[REQ_ANY] != 0;
		int q = 0;
		for (; q + 8 <= N; q += 8) {
			uint64_t f = cm_load8(fl + q) & pa8;
			if (f == 0) {
				memcpy(st + q, &no8, 8);
				continue;
			}
			if (f == pa8 && any_takes && cm_load8(rq + q) == CM_BYTES8(REQ_ANY)) {
				memcpy(st + q, &open8, 8);
				continue;
			}
			for (int k = q; k < q + 8; k++)
				st[k] = (uint8_t)(by_flags[fl[k] & (SF_PLAYABLE | SF_ALLOWED)] & -(w.takes_req[rq[k]] != 0));
		}
		for (; q < N; q++)
			st[q] = (uint8_t)(by_flags[fl[q] & (SF_PLAYABLE | SF_ALLOWED)] & -(w.takes_req[rq[q]] != 0));
	}
	for (int i = 0; i < L->n_start; i++)
		touch(&w, L->start_sq[i]);
	while (w.n_seed && !w.oom) {
		int s = w.seed[--w.n_seed];
		if (!passable(&w, s, st[s]))
			continue; /* reached already, on another seed's run */
		int y0 = s - s % C, l = s, r = s;
		for (;;) {
			if (l - 8 >= y0 && cm_load8(st + l - 8) == CM_BYTES8(ST_OPEN))
				l -= 8;
			else if (l > y0 && passable(&w, l - 1, st[l - 1]))
				l--;
			else
				break;
		}
		for (;;) {
			if (r + 8 < y0 + C && cm_load8(st + r + 1) == CM_BYTES8(ST_OPEN))
				r += 8;
			else if (r + 1 < y0 + C && passable(&w, r + 1, st[r + 1]))
				r++;
			else
				break;
		}
		memset(st + l, ST_REACHED, (size_t)(r - l + 1));
		if (l > y0 && st[l - 1] == ST_ISLAND)
			st[l - 1] = ST_WAITING;
		if (r + 1 < y0 + C && st[r + 1] == ST_ISLAND)
			st[r + 1] = ST_WAITING;
		if (y0 > 0)
			touch_row(&w, l - C, r - C);
		if (y0 + C < N)
			touch_row(&w, l + C, r + C);
		for (int q = l; any_links && q <= r; q++) {
			while (q + 8 <= r + 1 && cm_load8(L->sq_links + q) == 0)
				q += 8;
			if (q <= r && L->sq_links[q])
				links(&w, bc_done, q);
		}
	}
	int rc = w.oom ? CM_ENOMEM : 0;
	/* 1 where reached (bit 2, ST_REACHED alone has it), eight at a time */
	int q = 0;
	for (; q + 8 <= N; q += 8) {
		uint64_t x = (cm_load8(st + q) >> 2) & CM_BYTES8(1);
		memcpy(st + q, &x, 8);
	}
	for (; q < N; q++)
		st[q] = (uint8_t)(st[q] == ST_REACHED);
	free(bc_done);
	free(w.seed);
	return rc;
}

int cm__layout_reach(const cm__layout *l, const int *takes, uint8_t *reach, uint8_t *isl_open)
{
	return reach_walk((walk){ .L = &l->L, .takes = takes, .reach = reach, .isl_open = isl_open });
}

int cm__layout_reach_req(const cm__layout *l, const uint8_t *takes_req, uint8_t *reach, uint8_t *isl_open)
{
	return reach_walk((walk){ .L = &l->L, .takes_req = takes_req, .reach = reach, .isl_open = isl_open });
}
