/* SPDX-License-Identifier: MIT */
/* query.c: the engine's answers to the validator (engine/engine.h): static
 * facts of a board made without setup, and the square-unlock rules (start,
 * neighbours, big cities, ferries, islands) run over the whole map at once.
 * The rules themselves stay where the engine plays them (board.c). */
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"
#include "engine/board_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

bool cm__deck_abbey(const cm_deck *deck, size_t t)
{
	return t < deck->n_types && deck->info[t].abbey;
}

int cm__board_squares(const cm_board *b)
{
	return b->n_sq;
}

int cm__board_playable_count(const cm_board *b)
{
	return b->n_playable;
}

bool cm__board_playable(const cm_board *b, int s)
{
	return s >= 0 && s < b->n_sq && (b->sflags0[s] & SF_PLAYABLE);
}

_Static_assert(SF_PLAYABLE == 1, "cm__board_playable_flags: bit 0");
const uint8_t *cm__board_playable_flags(const cm_board *b)
{
	return b->sflags0;
}

const uint8_t *cm__board_printed_reqs(const cm_board *b)
{
	return b->req0;
}

unsigned cm__board_printed_req(const cm_board *b, int s)
{
	return b->req0[s];
}

unsigned cm__board_fit_rotations(const cm_board *b, size_t t, int s)
{
	const cm_deck *dk = b->deck;
	if (t >= dk->n_types || dk->info[t].abbey)
		return 0;
	return dk->info[t].rotmask[b->req0[s]];
}

unsigned cm__board_fit_req(const cm_board *b, size_t t, unsigned req)
{
	const cm_deck *dk = b->deck;
	if (t >= dk->n_types || dk->info[t].abbey || req > 255)
		return 0;
	return dk->info[t].rotmask[req];
}

int cm__board_filled(const cm_board *b, const int32_t **sq)
{
	*sq = b->filled;
	return b->n_filled;
}

int cm__board_start_count(const cm_board *b)
{
	return b->n_start;
}

int cm__board_start_square(const cm_board *b, int i)
{
	return b->start_sq[i];
}

int cm__board_island(const cm_board *b, int s)
{
	return cm__island_of(b, s);
}

bool cm__board_island_empty(const cm_board *b, int island)
{
	return b->isl_start[island] == b->isl_start[island + 1];
}

typedef struct {
	const cm_board *b;
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

/* Eight states at once (runs of open land go a word at a time). */
#define BYTES8(v) (0x0101010101010101ull * (uint64_t)(v))
static inline uint64_t load8(const uint8_t *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return x;
}

/* Whether square q, in state t, is reached when a neighbour is: it takes
 * a tile and is no island square of an island still closed. */
static inline bool passable(const walk *w, int q, uint8_t t)
{
	if (t == ST_OPEN)
		return true;
	if (t != ST_ISLAND && t != ST_WAITING)
		return false;
	int32_t isl = w->b->island[q];
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
			uint64_t x = load8(st + q);
			if (in ? x != BYTES8(ST_OPEN) : (x & ~BYTES8(ST_REACHED)) != 0)
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
	const cm_board *b = w->b;
	const cm_map *m = b->map;
	uint8_t *isl_open = w->isl_open;
	for (int k = 0; k < 4; k++) {
		int key = s * 4 + k;
		int bc = b->side_bc[key];
		if (bc >= 0 && !bc_done[bc]) {
			bc_done[bc] = 1;
			for (int32_t i = b->bc_adj_start[bc]; i < b->bc_adj_start[bc + 1]; i++)
				touch(w, b->bc_adj[i]);
		}
		int fe = b->side_ferry[key];
		if (fe < 0)
			continue;
		const cm_ferry *fr = &m->ferries[fe];
		int s1 = fr->y1 * b->cols + fr->x1, s2 = fr->y2 * b->cols + fr->x2;
		int o = s1 == s && (int)fr->s1 == k ? s2 : s1;
		int isl = cm__island_of(b, o);
		if (isl >= 0 && !isl_open[isl]) {
			isl_open[isl] = 1;
			for (int32_t i = b->isl_start[isl]; i < b->isl_start[isl + 1]; i++)
				if (w->st[b->isl_sq[i]] == ST_WAITING)
					push_seed(w, b->isl_sq[i]);
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
	const cm_board *b = w.b;
	const cm_map *m = b->map;
	int N = b->n_sq, C = b->cols;
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
	/* per flags: playable and allowed open, playable alone an island
	 * square (not allowed until connected), else no tile */
	static const uint8_t by_flags[8] = { [SF_PLAYABLE | SF_ALLOWED] = ST_OPEN, [SF_PLAYABLE] = ST_ISLAND };
	const uint8_t *fl = b->sflags0, *rq = b->req0;
	if (w.takes)
		for (int q = 0; q < N; q++)
			st[q] = w.takes[q] ? by_flags[fl[q] & (SF_PLAYABLE | SF_ALLOWED)] : ST_NO;
	else {
		/* eight at a time where they take no tile, or are all open land
		 * with no requirement (most of a map); the others one by one */
		const uint64_t pa8 = BYTES8(SF_PLAYABLE | SF_ALLOWED), open8 = BYTES8(ST_OPEN), no8 = BYTES8(ST_NO);
		bool any_takes = w.takes_req[REQ_ANY] != 0;
		int q = 0;
		for (; q + 8 <= N; q += 8) {
			uint64_t f = load8(fl + q) & pa8;
			if (f == 0) {
				memcpy(st + q, &no8, 8);
				continue;
			}
			if (f == pa8 && any_takes && load8(rq + q) == BYTES8(REQ_ANY)) {
				memcpy(st + q, &open8, 8);
				continue;
			}
			for (int k = q; k < q + 8; k++)
				st[k] = (uint8_t)(by_flags[fl[k] & (SF_PLAYABLE | SF_ALLOWED)] & -(w.takes_req[rq[k]] != 0));
		}
		for (; q < N; q++)
			st[q] = (uint8_t)(by_flags[fl[q] & (SF_PLAYABLE | SF_ALLOWED)] & -(w.takes_req[rq[q]] != 0));
	}
	for (int i = 0; i < b->n_start; i++)
		touch(&w, b->start_sq[i]);
	while (w.n_seed && !w.oom) {
		int s = w.seed[--w.n_seed];
		if (!passable(&w, s, st[s]))
			continue; /* reached already, on another seed's run */
		int y0 = s - s % C, l = s, r = s;
		for (;;) {
			if (l - 8 >= y0 && load8(st + l - 8) == BYTES8(ST_OPEN))
				l -= 8;
			else if (l > y0 && passable(&w, l - 1, st[l - 1]))
				l--;
			else
				break;
		}
		for (;;) {
			if (r + 8 < y0 + C && load8(st + r + 1) == BYTES8(ST_OPEN))
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
		for (int q = l; q <= r; q++) {
			while (q + 8 <= r + 1 && load8(b->sq_links + q) == 0)
				q += 8;
			if (q <= r && b->sq_links[q])
				links(&w, bc_done, q);
		}
	}
	int rc = w.oom ? CM_ENOMEM : 0;
	/* 1 where reached (bit 2, ST_REACHED alone has it), eight at a time */
	int q = 0;
	for (; q + 8 <= N; q += 8) {
		uint64_t x = (load8(st + q) >> 2) & BYTES8(1);
		memcpy(st + q, &x, 8);
	}
	for (; q < N; q++)
		st[q] = (uint8_t)(st[q] == ST_REACHED);
	free(bc_done);
	free(w.seed);
	return rc;
}

int cm__board_reach(const cm_board *b, const int *takes, uint8_t *reach, uint8_t *isl_open)
{
	return reach_walk((walk){ .b = b, .takes = takes, .reach = reach, .isl_open = isl_open });
}

int cm__board_reach_req(const cm_board *b, const uint8_t *takes_req, uint8_t *reach, uint8_t *isl_open)
{
	return reach_walk((walk){ .b = b, .takes_req = takes_req, .reach = reach, .isl_open = isl_open });
}
