/* SPDX-License-Identifier: MIT */
/* query.c: the engine's answers to the validator (engine/engine.h): static
 * facts of a board made without setup, and the square-unlock rules (start,
 * neighbours, big cities, ferries, islands) run over the whole map at once.
 * The rules themselves stay where the engine plays them (board.c). */
#include <stdlib.h>
#include "engine/engine.h"
#include "engine/board_int.h"
#include "base/util_int.h"

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
	int32_t *queue;
	int tail;
} walk;

/* What a square is to the walk. */
enum {
	ST_NO = 0,      /* takes no tile */
	ST_OPEN = 1,    /* takes one: reached when a neighbour is */
	ST_ISLAND = 2,  /* an island square: waits for its island */
	ST_WAITING = 3, /* an island square a neighbour reached: goes on when the island opens */
	ST_REACHED = 4
};

/* Square q next to a reached one (q in the grid). */
static inline void reach_sq(walk *w, int q)
{
	uint8_t t = w->st[q];
	if (t == ST_OPEN) {
		w->st[q] = ST_REACHED;
		w->queue[w->tail++] = q;
	} else if (t == ST_ISLAND) {
		const cm_board *b = w->b;
		if (b->island[q] >= 0 && w->isl_open[b->island[q]]) {
			w->st[q] = ST_REACHED;
			w->queue[w->tail++] = q;
		} else {
			w->st[q] = ST_WAITING;
		}
	}
}

/* One breadth-first pass, each square queued once, each big city and
 * island opened once, so linear in the board whatever its shape. What each
 * square is comes first, in one pass over the flat arrays, so the walk
 * reads one byte per neighbour. */
static int reach_walk(walk w)
{
	const cm_board *b = w.b;
	const cm_map *m = b->map;
	int N = b->n_sq;
	w.st = cm_calloc_big((size_t)N + 1, 1);
	w.queue = cm_calloc_big((size_t)N + 1, sizeof *w.queue);
	uint8_t *bc_done = calloc(m->n_bigcities + 1, 1);
	uint8_t *isl_open = w.isl_open;
	if (!w.st || !bc_done || !w.queue) {
		free(w.st);
		free(bc_done);
		free(w.queue);
		return CM_ENOMEM;
	}
	for (int q = 0; q < N; q++) {
		uint8_t f = b->sflags0[q];
		bool takes = (f & SF_PLAYABLE) && (w.takes ? w.takes[q] != 0 : w.takes_req[b->req0[q]] != 0);
		/* playable and not allowed: an island square */
		w.st[q] = (uint8_t)(!takes ? ST_NO : (f & SF_ALLOWED) ? ST_OPEN : ST_ISLAND);
	}
	int head = 0;
	for (int i = 0; i < b->n_start; i++)
		reach_sq(&w, b->start_sq[i]);
	while (head < w.tail) {
		int s = w.queue[head++];
		uint8_t bd = b->border[s];
		/* the four neighbours (cm__nb) */
		if (!(bd & BD_N))
			reach_sq(&w, s + b->off4[0]);
		if (!(bd & BD_E))
			reach_sq(&w, s + 1);
		if (!(bd & BD_S))
			reach_sq(&w, s + b->off4[2]);
		if (!(bd & BD_W))
			reach_sq(&w, s - 1);
		if (!b->sq_links[s])
			continue; /* side_bc and side_ferry hold nothing here */
		for (int k = 0; k < 4; k++) {
			int key = s * 4 + k;
			int bc = b->side_bc[key];
			if (bc >= 0 && !bc_done[bc]) {
				bc_done[bc] = 1;
				for (int32_t i = b->bc_adj_start[bc]; i < b->bc_adj_start[bc + 1]; i++)
					reach_sq(&w, b->bc_adj[i]);
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
				for (int32_t i = b->isl_start[isl]; i < b->isl_start[isl + 1]; i++) {
					int q = b->isl_sq[i];
					if (w.st[q] == ST_WAITING) {
						w.st[q] = ST_REACHED;
						w.queue[w.tail++] = q;
					}
				}
			}
			reach_sq(&w, o);
		}
	}
	for (int q = 0; q < N; q++)
		w.reach[q] = w.st[q] == ST_REACHED;
	free(w.st);
	free(bc_done);
	free(w.queue);
	return 0;
}

int cm__board_reach(const cm_board *b, const int *takes, uint8_t *reach, uint8_t *isl_open)
{
	return reach_walk((walk){ b, takes, NULL, reach, isl_open, NULL, NULL, 0 });
}

int cm__board_reach_req(const cm_board *b, const uint8_t *takes_req, uint8_t *reach, uint8_t *isl_open)
{
	return reach_walk((walk){ b, NULL, takes_req, reach, isl_open, NULL, NULL, 0 });
}
