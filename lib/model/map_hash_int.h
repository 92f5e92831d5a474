/* SPDX-License-Identifier: MIT */
/* map_hash_int.h: the content hash's entries for the pack (model/map_hash.c)
 * beyond carcamap/pack.h: the hash from a map's packed grid view, which
 * the pack writer and reader have in hand, and the tile sets of a deck. */
#ifndef CM_MAP_HASH_INT_H
#define CM_MAP_HASH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "carcamap/map.h"
#include "carcamap/tileset.h"
#include "model/map_grid_int.h"

/* cm_map_hash_version with m's packed grid view g (NULL: none), which
 * spares the hash a look at every square: the same hash for a true view.
 * sorted: sets are sorted by id (cm__tileset_cmp_id) and searched by
 * halves. Same returns as cm_map_hash_version. */
int cm__map_hash_grid(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, bool sorted, const cm_map_grid *g,
                      int version, uint8_t out[32]);

/* The distinct tile sets m's deck names, sorted by id, found among sets
 * (sorted: sorted by id, searched by halves; else in turn, the first of an
 * id), in a new array *out of borrowed pointers (free the array only).
 * 0, CM_ENOTFOUND (a set is not among sets) or CM_ENOMEM. */
int cm__map_deck_sets(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, bool sorted, const cm_tileset ***out,
                      size_t *n_out);

/* qsort and bsearch order of tile sets (pointers to cm_tileset *) by id. */
int cm__tileset_cmp_id(const void *a, const void *b);
/* The set of that id among n: sorted by id (by halves), or any order (in
 * turn, the first of the id); NULL when none. */
const cm_tileset *cm__tileset_find_sorted(const cm_tileset *const *sets, size_t n, const char *id);
const cm_tileset *cm__tileset_find_in(const cm_tileset *const *sets, size_t n, const char *id);

#endif
