/* play.c: random play (carcamap/board.h "Random play"): whole games with
 * uniformly chosen placements and follower spots, for map statistics and
 * the benchmark. Uses only the turn API's fast paths; no allocation. */
#include "board_int.h"

/* The k-th legal placement of tile t in frontier order. */
static void kth_placement(const cm_board *b, int t, uint32_t k, int *sq, int *rot)
{
	const uint8_t *rm = b->deck->info[t].rotmask;
	for (int i = 0; i < b->n_front; i++) {
		int s = b->front[i];
		unsigned m = rm[b->req[s]];
		for (int r = 0; m; r++, m >>= 1)
			if ((m & 1) && k-- == 0) {
				*sq = s;
				*rot = r;
				return;
			}
	}
	*sq = -1;
	*rot = 0;
}

int cm_board_play_random(cm_board *b, cm_rng *rng)
{
	if (b->last_sq >= 0 || b->final_done)
		return CM_EINVAL;
	int t;
	while (cm_board_draw(b, &t) == 0) {
		uint32_t total = (uint32_t)cm_board_placements(b, t, NULL, 0);
		int s, r;
		kth_placement(b, t, cm_rng_below(rng, total), &s, &r);
		if (s < 0 || cm_board_place(b, t, s % b->cols, s / b->cols, r) < 0)
			return CM_EINTERNAL;
		int spots[CM_MAX_FEATURES];
		size_t n = cm_board_spots(b, CM_FOLLOWER_MEEPLE, spots, CM_MAX_FEATURES);
		if (n && cm_rng_below(rng, 100) < CM_PLAY_DEPLOY_PERCENT)
			cm_board_deploy(b, spots[cm_rng_below(rng, (uint32_t)n)], CM_FOLLOWER_MEEPLE);
		cm_board_end_turn(b, NULL, NULL);
	}
	return cm_board_final(b, NULL, NULL);
}
