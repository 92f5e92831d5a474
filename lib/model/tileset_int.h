/* SPDX-License-Identifier: MIT */
/* tileset_int.h: what the tile-set reader (io/tileset_io.c) shares with
 * the model's checks (tileset.c): the rule ids of a tile's feature checks
 * and the check entry that knows each contact's source line. */
#ifndef CM_TILESET_INT_H
#define CM_TILESET_INT_H

#include "carcamap/tileset.h"
#include "model/feature_int.h"

/* The CM01xx id of each feature problem of a tile. */
extern const cm_feature_rules cm_tileset_tile_rules;

/* cm_tileset_check, with contact_line[i][k] the source line of contact k
 * of tile i (the model keeps contacts as masks without lines), or NULL. */
int cm_tileset_check_lines(const cm_tileset *ts, unsigned *const *contact_line, cm_diags *d);

#endif
