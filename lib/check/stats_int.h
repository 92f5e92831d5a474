/* SPDX-License-Identifier: MIT */
/* stats_int.h: games over a map's layout the caller made (stats.c), so
 * that the validator's layout serves the games it simulates too. */
#ifndef CM_STATS_INT_H
#define CM_STATS_INT_H

#include <stdbool.h>
#include "carcamap/stats.h"
#include "engine/engine.h"

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
