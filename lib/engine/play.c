/* SPDX-License-Identifier: MIT */
/* play.c: random play (carcamap/board.h "Random play"): whole games with
 * uniformly chosen placements and follower spots, abbeys and wagon moves
 * when the game has them, for map statistics and the benchmark. Uses only
 * the turn API's fast paths; no allocation. */
#include "engine/board_int.h"

/* Legal rotations per rotation mask, counted. */
static const uint8_t popc4[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };

/* Step 3: deploy a meeple or the wagon, or nothing. */
static void deploy_random(cm_board *b, cm_rng *rng)
{
	int spots[2 * CM_MAX_FEATURES];
	size_t n = cm_board_spots(b, CM_FOLLOWER_MEEPLE, spots, CM_MAX_FEATURES);
	size_t m = cm_board_spots(b, CM_FOLLOWER_WAGON, spots + n, CM_MAX_FEATURES);
	if (n + m && cm_rng_below(rng, 100) < CM_PLAY_DEPLOY_PERCENT) {
		uint32_t k = cm_rng_below(rng, (uint32_t)(n + m));
		cm_board_deploy(b, spots[k], k < n ? CM_FOLLOWER_MEEPLE : CM_FOLLOWER_WAGON);
	}
}

/* Step 4: each waiting wagon to a destination or back to the supply. */
static void move_wagons(cm_board *b, cm_rng *rng)
{
	while (b->n_wait) {
		uint32_t k = (uint32_t)cm__wagon_dests(b, NULL, 0, -1);
		uint32_t c = cm_rng_below(rng, k + 1);
		cm_wagon_dest d = { .feature = -1 };
		if (c < k)
			cm__wagon_dests(b, &d, 1, (long)c);
		cm_board_wagon_move(b, d.x, d.y, c < k ? d.feature : -1);
	}
}

/* An abbey turn on the nth abbey square (frontier order). */
static void abbey_turn(cm_board *b, cm_rng *rng, int nth)
{
	int s = cm__abbey_front(b, nth);
	cm_board_place_abbey(b, s % b->cols, s / b->cols);
	deploy_random(b, rng);
	cm_board_end_turn(b, NULL, NULL);
	move_wagons(b, rng);
}

int cm_board_play_random(cm_board *b, cm_rng *rng)
{
	if (b->last_sq >= 0 || b->final_done || b->n_wait)
		return CM_EINVAL;
	while (b->pile_top < b->pile_n) {
		int t = b->pile[b->pile_top];
		const uint8_t *rm = b->deck->info[t].rotmask;
		/* one pass over the frontier counts the legal placements; the
		 * draw, the count and the choice of cm_board_draw,
		 * cm_board_placements and a walk would take three */
		uint32_t total = 0;
		for (int i = 0; i < b->n_front; i++)
			total += popc4[rm[b->req[b->front[i]]]];
		if (total == 0) {
			cm_board_put_aside(b, t); /* BASE-PLACE: put aside, draw again */
			continue;
		}
		if (b->abbeys[b->cur]) { /* step 1: the abbey instead of drawing */
			int k = cm__abbey_front(b, -1);
			if (k && cm_rng_below(rng, 100) < CM_PLAY_ABBEY_PERCENT) {
				abbey_turn(b, rng, (int)cm_rng_below(rng, (uint32_t)k));
				continue;
			}
		}
		uint32_t k = cm_rng_below(rng, total);
		int s = -1, r = 0;
		for (int i = 0; s < 0; i++) {
			unsigned m = rm[b->req[b->front[i]]];
			if (k >= popc4[m]) {
				k -= popc4[m];
				continue;
			}
			s = b->front[i];
			for (r = 0; !((m >> r) & 1) || k--; r++)
				;
		}
		if (cm_board_place(b, t, s % b->cols, s / b->cols, r) < 0)
			return CM_EINTERNAL;
		deploy_random(b, rng);
		cm_board_end_turn(b, NULL, NULL);
		if (b->n_wait)
			move_wagons(b, rng);
	}
	/* players still holding an abbey may place it at the end */
	for (int i = 0, p = b->cur, np = b->n_players; i < np; i++, p = (p + 1) % np) {
		if (!b->abbeys[p])
			continue;
		cm_board_set_current(b, p);
		int k = cm__abbey_front(b, -1);
		if (k)
			abbey_turn(b, rng, (int)cm_rng_below(rng, (uint32_t)k));
	}
	return cm_board_final(b, NULL, NULL);
}
