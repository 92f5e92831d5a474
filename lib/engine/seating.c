/* SPDX-License-Identifier: MIT */
/* seating.c: the two hooks the balance report needs from the engine
 * (engine/engine.h, layer-internal): the setup (MAP-START) on start
 * squares chosen by the caller, and the pile dealt to the seats in
 * another rotation. Both work through the board's own pile and
 * generator and the public setup placement, so the games they lead to
 * are ordinary games of the engine. */
#include <stdio.h>
#include <string.h>
#include "engine/board_int.h"
#include "engine/engine.h"
#include "engine/rng_int.h"
#include "model/map_struct_int.h"

/* A rotation drawn uniformly among those of mask, from the board's
 * generator (as cm_board_new's setup draws them). */
static int pick_rotation(cm_board *b, unsigned mask)
{
	int n = 0;
	for (int r = 0; r < 4; r++)
		n += (mask >> r) & 1;
	int k = (int)cm__rng_below(&b->rng, (uint32_t)n);
	for (int r = 0; r < 4; r++)
		if (((mask >> r) & 1) && k-- == 0)
			return r;
	return -1;
}

int cm__board_setup_on(cm_board *b, const int32_t *squares, int k, cm_diags *d)
{
	if (!(b->flags & CM_BOARD_NO_SETUP) || b->n_filled || k < 1 || k > b->L.n_start) {
		if (d)
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "board", "setup on chosen start squares needs a new board made without setup");
		return CM_EINVAL;
	}
	/* which chosen square takes the start tile: a partial shuffle of
	 * the chosen ones, as cm_board_new's setup shuffles all of them */
	int32_t pick[CM_MAX_PLAYERS * 4];
	int32_t *p = k <= (int)(sizeof pick / sizeof pick[0]) ? pick : b->start_pick;
	memcpy(p, squares, (size_t)k * sizeof *p);
	for (int i = 0; i < k; i++) {
		int j = i + (int)cm__rng_below(&b->rng, (uint32_t)(k - i));
		int32_t t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	for (int i = 0; i < k; i++) {
		int s = p[i], t = -1;
		if (s < 0 || s >= b->L.n_sq || b->L.map->squares[s].kind != CM_SQ_START) {
			if (d)
				cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "board", "square %d is no start square", s);
			return CM_EINVAL;
		}
		unsigned mask = 0;
		if (i == 0 && b->deck->start >= 0) {
			t = b->deck->start;
			mask = b->deck->info[t].rotmask[b->req[s]];
		} else {
			for (int q = b->pile_top; q < b->pile_n && !mask; q++)
				if ((mask = b->deck->info[b->pile[q]].rotmask[b->req[s]]) != 0)
					t = b->pile[q];
		}
		int r = mask ? pick_rotation(b, mask) : -1;
		if (r < 0 || cm_board_place_setup(b, t, s % b->L.cols, s / b->L.cols, r) < 0) {
			if (d) {
				char where[160];
				snprintf(where, sizeof where, "map %s, start square (%d,%d)", b->L.map->id ? b->L.map->id : "?",
				         s % b->L.cols, s / b->L.cols);
				cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, where,
				             t == b->deck->start && i == 0 ? "the start tile fits no rotation on the start square"
				                                            : "no tile of the pile fits the start square");
			}
			return CM_EINVAL;
		}
	}
	return 0;
}

void cm__board_rotate_deal(cm_board *b, int seats, int r)
{
	if (seats < 2 || (r %= seats) == 0 || b->last_sq >= 0)
		return;
	/* whole rounds only: the tiles of a last, short round stay where
	 * they are (the seats that draw them draw one more tile in every
	 * rotation, which is a seat's own advantage) */
	uint8_t round[CM_MAX_PLAYERS];
	for (int at = b->pile_top; at + seats <= b->pile_n; at += seats) {
		for (int s = 0; s < seats; s++)
			round[s] = b->pile[at + (s + r) % seats];
		memcpy(&b->pile[at], round, (size_t)seats);
	}
}
