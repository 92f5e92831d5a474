/* SPDX-License-Identifier: MIT */
/* carcamap/play.h: random play on a board and its statistics
 * (DESIGN.md "Rules engine"): the order of every random choice, so the same
 * seed gives the same game. The board API is carcamap/board.h.
 * Threads: a board belongs to one thread at a time (see carcamap/board.h). */
#ifndef CARCAMAP_PLAY_H
#define CARCAMAP_PLAY_H

#include "board.h"
#include "rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Probability (in percent) that random play deploys when it can. */
#define CM_PLAY_DEPLOY_PERCENT 50
/* Probability (in percent) that random play places its abbey, when it
 * holds one and a square takes it, instead of drawing. */
#define CM_PLAY_ABBEY_PERCENT 20

typedef struct {
	int tiles_placed;       /* by players, setup not included */
	int setup_tiles;
	int stranded;           /* drawn with no legal placement, put aside */
	int squares_filled;     /* squares holding a tile at the end */
	int squares_playable;   /* squares that could ever take a tile */
	int turns;
	int points_kind[CM_FEAT_KIND_COUNT]; /* awarded points (times scoring players) */
	int points_island, points_town;
	int final_points;       /* part of the scores from final scoring */
	int abbeys_placed;      /* ABBEY-PLACE (not in tiles_placed) */
	int wagon_moves;        /* WAGON-MOVE: wagons moved to a destination */
	int wagon_returns;      /* WAGON-MOVE: wagons taken back to the supply */
	int scores[CM_MAX_PLAYERS];
} cm_game_stats;

/* Plays the game on to the end and scores it: each turn draws, picks a
 * placement uniformly among the legal ones, deploys with probability
 * CM_PLAY_DEPLOY_PERCENT on a spot picked uniformly, ends the turn; then
 * final scoring. Every choice comes from rng, in this order per turn:
 *   1. when the player holds an abbey and k > 0 squares take it:
 *      below(100), and when below CM_PLAY_ABBEY_PERCENT, below(k) picks
 *      the square and the abbey is played instead of a tile (steps 3-4);
 *   2. below(placements);
 *   3. when there are spots (meeple spots, then wagon spots when the
 *      player's wagon is in the supply): below(100) and, when deploying,
 *      below(spots);
 *   4. after the turn ends, for each waiting wagon: below(k + 1) over its
 *      k destinations, k meaning back to the supply.
 * When the pile is empty, each player from the current one on who still
 * holds an abbey places it on a square picked by below(k), if any, with
 * steps 3 and 4. Without wagons and abbeys the choices are exactly those
 * of steps 2 and 3. The same board state and rng state give the same
 * game. Returns 0, or CM_EINVAL (a turn was left open, a wagon waits, or
 * the game was already scored). */
int cm_board_play_random(cm_board *b, cm_rng *rng);
/* Statistics of the game so far (borrowed). */
const cm_game_stats *cm_board_stats(const cm_board *b);

#ifdef __cplusplus
}
#endif
#endif
