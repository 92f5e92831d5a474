/* SPDX-License-Identifier: MIT */
/* stats_int.h: games over a map's layout the caller made (stats.c), so
 * that the validator's layout serves the games it simulates too. */
#ifndef CM_STATS_INT_H
#define CM_STATS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "carcamap/check.h"
#include "carcamap/stats.h"
#include "engine/engine.h"

/* The thresholds of check's simulated-game findings (carcamap/check.h), in
 * one place for check.c and its tests. CM0602: a square filled in fewer
 * than CM_CHECK_RARE_PERMILLE per mille of the games; CM0603: a mean fill
 * ratio below CM_CHECK_LOW_FILL_PERMILLE per mille; CM0604: more than
 * CM_CHECK_STRAND_PERCENT percent of the deck's tiles stranded a game, on
 * average. Exact in integers where the figures are counts. */
static inline bool cm__check_rare(int filled, int games)
{
	return (int64_t)filled * 1000 < (int64_t)games * CM_CHECK_RARE_PERMILLE;
}
static inline bool cm__check_low_fill(double fill)
{
	return fill * 1000 < CM_CHECK_LOW_FILL_PERMILLE;
}
static inline bool cm__check_stranding(long long stranded, int games, int tiles)
{
	return (double)stranded * 100 > (double)games * tiles * CM_CHECK_STRAND_PERCENT;
}

/* Something that watches the games cm__play_run_on plays, alongside its
 * statistics, so that a caller who wants more of the same games (check's
 * heatmap findings) does not play them twice. Each range of games (one per
 * thread) has a part of its own: begin makes it for the range's board (it
 * may set the board's score hook), game sees the board after each game's
 * final scoring, and end, called in seed order on the calling thread once
 * every range is played, adds the part to the caller's result (ok false:
 * a range failed, only free it) and frees it. begin returns 0 or a
 * negative code, leaving in *part NULL or a part that end can free; end
 * takes a NULL part too (a range that never began) and returns 0 or
 * CM_ENOMEM. */
typedef struct {
	int (*begin)(void *arg, cm_board *b, void **part);
	void (*game)(void *part, const cm_board *b);
	int (*end)(void *arg, void *part, bool ok);
	void *arg;
} cm__play_watch;

/* cm_play_run on lay, the layout of map (engine.h), or on one made here
 * (lay NULL): every thread's board shares it. watch may be NULL. Same
 * codes. */
int cm__play_run_on(cm__layout *lay, const cm_map *map, const cm_deck *deck, const cm_play_opts *o,
                    const cm__play_watch *watch, cm_diags *d, cm_play_stats **out);

#endif
