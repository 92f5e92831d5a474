/* play.c: random play (carcamap/board.h "Random play"): whole games with
 * uniformly chosen placements and follower spots, for map statistics and
 * the benchmark. Uses only the turn API's fast paths; no allocation. */
#include "board_int.h"

/* Legal rotations per rotation mask, counted. */
static const uint8_t popc4[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };

int cm_board_play_random(cm_board *b, cm_rng *rng)
{
	if (b->last_sq >= 0 || b->final_done)
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
		int spots[CM_MAX_FEATURES];
		size_t n = cm_board_spots(b, CM_FOLLOWER_MEEPLE, spots, CM_MAX_FEATURES);
		if (n && cm_rng_below(rng, 100) < CM_PLAY_DEPLOY_PERCENT)
			cm_board_deploy(b, spots[cm_rng_below(rng, (uint32_t)n)], CM_FOLLOWER_MEEPLE);
		cm_board_end_turn(b, NULL, NULL);
	}
	return cm_board_final(b, NULL, NULL);
}
