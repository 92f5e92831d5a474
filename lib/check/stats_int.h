/* SPDX-License-Identifier: MIT */
/* stats_int.h: games over a map's layout the caller made (stats.c), so
 * that the validator's layout serves the games it simulates too. */
#ifndef CM_STATS_INT_H
#define CM_STATS_INT_H

#include "carcamap/stats.h"
#include "engine/engine.h"

/* cm_play_run on lay, the layout of map (engine.h): every thread's board
 * shares it. Same codes. */
int cm__play_run_on(cm__layout *lay, const cm_map *map, const cm_deck *deck, const cm_play_opts *o, cm_diags *d,
                    cm_play_stats **out);

#endif
