/* SPDX-License-Identifier: MIT */
/* carcamap/export.h: exports of a map for game clients (DESIGN.md "Users and
 * their jobs" 3). Three formats, each specified under schemas/: JSON with a
 * JSON Schema (export-json.md), a compact little-endian binary with a
 * dependency-free C reader in lib/reader/ (export-bin.md), and Tiled TMX with
 * a generated tileset image (export-tmx.md). Every writer is deterministic:
 * the same model gives the same bytes. */
#ifndef CARCAMAP_EXPORT_H
#define CARCAMAP_EXPORT_H

#include <stdio.h>
#include "map.h"
#include "tileset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format versions written by this build. A minor version only adds optional
 * content; a new major version breaks readers of the old one. */
#define CM_EXPORT_JSON_VERSION "1.0"
#define CM_EXPORT_BIN_MAJOR 1
#define CM_EXPORT_BIN_MINOR 0

/* Writes the whole map as one JSON document ("format": carcamap-map 1.0,
 * schemas/export.schema.json) to f: squares, edge prints, big cities,
 * ferries, islands, setup, rules and the deck with the full definitions of
 * the tile sets it uses. sets (n_sets entries, borrowed) must hold every tile
 * set the map's deck names; sets the deck does not name are not written.
 * Returns 0; CM_ENOTFOUND when a deck entry names a set or tile type that is
 * not in sets (nothing is written); CM_EINVAL when the model is inconsistent
 * (an index out of range, an unknown kind; nothing is written); CM_EIO when
 * writing to f failed. */
int cm_export_json(const cm_map *m, cm_tileset *const *sets, size_t n_sets, FILE *f);

/* The same content in the binary format of schemas/export-bin.md, into a new
 * buffer: *out (free it with free()) of *len bytes. On failure *out is NULL
 * and *len 0. Returns 0, CM_ENOTFOUND, CM_EINVAL (as cm_export_json),
 * CM_ELIMIT (the encoding would pass 4 GiB) or CM_ENOMEM. */
int cm_export_bin(const cm_map *m, cm_tileset *const *sets, size_t n_sets,
                  unsigned char **out, size_t *len);

/* Writes a Tiled 1.8 orthogonal map to tmx_path (schemas/export-tmx.md): a
 * tile layer of square kinds whose tileset image is written beside it as
 * <tmx_path without .tmx>.kinds.png, object groups for big cities, edge
 * prints, ferries, names and islands, and setup and rules as map properties.
 * Each file is written to a temporary name and renamed, so a failure leaves
 * no partial file. Problems go to d (no rule id). Returns 0, CM_EINVAL
 * (inconsistent model), CM_EIO or CM_ENOMEM. */
int cm_export_tmx(const cm_map *m, const char *tmx_path, cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
