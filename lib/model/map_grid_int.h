/* SPDX-License-Identifier: MIT */
/* map_grid_int.h: the packed grid view of a map (model/map_grid.c): two
 * bytes per square, its kind and its four print kinds, which is at once
 * the client binary's GRID record (schemas/export-bin.md), the pack's
 * map_grids texts (schemas/pack.md) and a plain square's bytes in the
 * content hash (version 2); and the few squares that may carry more. The
 * pack writer makes it in one pass over the squares and shares it between
 * the hash, the grid texts and the binary; the pack reader makes it from
 * the grid texts as it reads them. */
#ifndef CM_MAP_GRID_INT_H
#define CM_MAP_GRID_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "carcamap/map.h"

/* grid: per square (row-major) its kind, then its print kinds N + 4E +
 * 16S + 64W; sq: the increasing indices of the n_sq squares that may
 * carry more (every other square has no arms, island, big city, print
 * arms nor entry beside the grid: cm_map_extra_find gives NULL). A view
 * is true of its map when its bytes are the map's and its list holds
 * every square that carries more (it may hold others). */
typedef struct {
	const uint8_t *grid;
	const size_t *sq;
	size_t n_sq;
} cm_map_grid;

/* The view of m in *out from one pass over its squares: grid and sq are
 * new buffers, freed by cm__map_grid_free. 0, CM_ENOMEM or CM_ELIMIT (too
 * many squares for 32-bit indices); *out is empty then. */
int cm__map_grid_build(const cm_map *m, cm_map_grid *out);
/* Frees the buffers of a view (the builder's or the pack reader's) and
 * empties it; an empty view is a no-op. */
void cm__map_grid_free(cm_map_grid *g);

#endif
