/* SPDX-License-Identifier: MIT */
/* carcamap/export.h: exports of a map for game clients (DESIGN.md "Users and
 * their jobs" 3). Three formats, each specified under schemas/: JSON with a
 * JSON Schema (export-json.md), a compact little-endian binary with a
 * dependency-free C reader in lib/reader/ (export-bin.md), and Tiled TMX over
 * the shared kinds tileset, read back by carcamap/tmx.h (export-tmx.md). Every writer is deterministic:
 * the same model gives the same bytes.
 * Threads: the exporters only read the map and tile sets they are given:
 * exports of shared maps may run on several threads at once, each to its
 * own file. */
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
#define CM_EXPORT_BIN_MAJOR 2
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
/* cm_export_bin in the layout of major version major: 2 (or 0) is 2.0, what
 * cm_export_bin writes; 1 is 1.0, a record per square and per edge print,
 * for clients whose reader predates 2.0 (schemas/export-bin.md "Version
 * 1.0"). The same content either way. CM_EINVAL for another major. */
int cm_export_bin_version(const cm_map *m, cm_tileset *const *sets, size_t n_sets, unsigned major,
                          unsigned char **out, size_t *len);

/* The shared tileset of square kinds every TMX export uses (one tile per
 * kind, tile id = cm_square_kind, in cm_palette_square) and its image,
 * installed with the tile sets (make install). */
#define CM_TMX_KINDS "carcamap-kinds.tsx"
#define CM_TMX_KINDS_PNG "carcamap-kinds.png"

/* Writes a Tiled 1.8 orthogonal map to tmx_path (schemas/export-tmx.md)
 * that carries the whole map: a tile layer of square kinds over the shared
 * kinds tileset kinds_tsx (a path from the current directory; the TMX names
 * it relative to its own directory), object layers for big cities and their
 * pieces, edge prints by kind, ferries, islands, names and markers, and
 * setup, deck and rules as map properties. lib/io/tmx.c reads it back to an
 * equal model. Written atomically (cm_write_to): a failure leaves no file.
 * Problems go to d (no rule id). Returns 0, CM_EINVAL (inconsistent model,
 * text XML cannot carry), CM_EIO or CM_ENOMEM. */
int cm_export_tmx(const cm_map *m, const char *tmx_path, const char *kinds_tsx, cm_diags *d);

/* Writes CM_TMX_KINDS and CM_TMX_KINDS_PNG into dir (atomically, each).
 * maps/tilesets holds the copies make install installs. 0, CM_EIO or
 * CM_ENOMEM. */
int cm_export_tmx_kinds(const char *dir, cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
