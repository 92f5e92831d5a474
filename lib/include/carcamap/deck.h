/* SPDX-License-Identifier: MIT */
/* carcamap/deck.h: the deck of a game (DESIGN.md "Rules engine"; MAP-START,
 * MAP-TILES): built from a map's deck entries and tile sets, or from explicit
 * types and counts. A deck borrows the tile types of the sets it was built
 * from: keep them alive and unchanged while the deck lives.
 * Threads: a deck is only read once built: many threads may share one (play
 * --jobs does). */
#ifndef CARCAMAP_DECK_H
#define CARCAMAP_DECK_H

#include <stddef.h>
#include <stdint.h>
#include "diag.h"
#include "map.h"
#include "tileset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cm_deck cm_deck;

/* Builds the deck of a map from its deck entries (map->deck) and the tile
 * sets: each entry's set id is looked up in sets[0..n_sets); a whole-set
 * entry adds every tile type with its count for map->rules.edition; a tile
 * entry sets that type's count explicitly (it replaces a count that an
 * earlier whole-set entry gave). A map without deck entries uses every set
 * given. The start tile (the base set's tile with start="true") is one copy
 * of that type, set aside for setup (MAP-START); tile types with an abbey
 * feature are kept apart and never drawn (ABBEY-PLACE, later).
 * Tile ids must be unique over the deck. Problems (unknown set or tile, a
 * duplicate id, an empty deck, more than 255 types) go to d as errors
 * without a rule id, with a `where` string; d may be NULL.
 * Returns 0, CM_EINVAL or CM_ENOMEM; *out is set on success only. */
int cm_deck_build(const cm_map *map, const cm_tileset *const *sets, size_t n_sets, cm_diags *d,
                  cm_deck **out);
/* A deck from explicit types and counts (tests, tools): types[i] has
 * counts[i] copies; start is the index of the start tile type or -1
 * (one copy of it is set aside; it must have count >= 1). Same errors. */
int cm_deck_from_types(const cm_tile_type *const *types, const int *counts, size_t n, int start,
                       cm_diags *d, cm_deck **out);
void cm_deck_free(cm_deck *deck); /* NULL is a no-op */
/* The most copies a deck holds (CM_ELIMIT past it): every sum of counts
 * stays far from INT_MAX. */
#define CM_DECK_MAX_TILES 1000000

size_t cm_deck_types(const cm_deck *deck);                   /* distinct tile types */
const cm_tile_type *cm_deck_type(const cm_deck *deck, size_t i); /* borrowed */
int cm_deck_count(const cm_deck *deck, size_t i); /* copies of type i, start copy included */
int cm_deck_total(const cm_deck *deck);           /* all copies, start tile included */
int cm_deck_start(const cm_deck *deck);           /* start tile type index or -1 */
int cm_deck_find(const cm_deck *deck, const char *id); /* type index or -1 */
/* FNV-1a 64 over the types' ids, counts and features: replays check it. */
uint64_t cm_deck_hash(const cm_deck *deck);

/* Rule options by name (cm_rules_set, cm_rules_format): carcamap/rules.h. */

#ifdef __cplusplus
}
#endif
#endif
