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
#include "diag.h"
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

/* What an export takes beside the map; cm_export_opts_init sets the
 * defaults. */
typedef struct {
	const cm_tileset *const *sets; /* JSON, binary: the tile sets (borrowed), every
	                                * one the map's deck names; sets the deck does
	                                * not name are not written. NULL, 0: none */
	size_t n_sets;
	unsigned bin_major;    /* binary: the layout's major version: 2 (or 0,
	                        * the default) is 2.0; 1 is 1.0, a record per square
	                        * and per edge print, for clients whose reader
	                        * predates 2.0 (schemas/export-bin.md "Version
	                        * 1.0"); the same content either way */
	const char *kinds;     /* TMX: the shared kinds tileset as the TMX names it, a
	                        * path relative to the TMX's own directory
	                        * (cm_path_relative(tmx_path, kinds_path) makes one);
	                        * default CM_TMX_KINDS, beside the TMX */
} cm_export_opts;

void cm_export_opts_init(cm_export_opts *o);

/* The three exporters have one signature: each writes map m, with what o
 * gives (NULL: the defaults), to f, and says in d (may be NULL) what its
 * return code cannot (the TMX: text XML cannot carry, a partial map). On
 * a refusal nothing is written to f. Write to a file atomically with
 * cm_file_write (carcamap/file.h). Returns 0; CM_ENOTFOUND when a deck
 * entry names a set or tile type that is not in o's sets (JSON, binary);
 * CM_EINVAL when the map is partial (CM_MAP_LOAD_PARTIAL), or for the
 * binary a major version other than 0, 1 or 2, or for the TMX text XML
 * cannot carry; CM_ELIMIT (binary: the encoding would pass 4 GiB);
 * CM_ENOMEM; CM_EIO when writing to f failed. */
typedef int (*cm_exporter)(const cm_map *m, const cm_export_opts *o, FILE *f, cm_diags *d);

/* The whole map as one JSON document ("format": carcamap-map 1.0,
 * schemas/export.schema.json): squares, edge prints, big cities, ferries,
 * islands, setup, rules and the deck with the full definitions of the
 * tile sets it uses. */
int cm_export_json(const cm_map *m, const cm_export_opts *o, FILE *f, cm_diags *d);

/* The same content in the binary format of schemas/export-bin.md. */
int cm_export_bin(const cm_map *m, const cm_export_opts *o, FILE *f, cm_diags *d);
/* cm_export_bin into a new buffer: *out (free it with free()) of *len
 * bytes; on failure *out is NULL and *len 0. The same returns but CM_EIO. */
int cm_export_bin_mem(const cm_map *m, const cm_export_opts *o, unsigned char **out, size_t *len);

/* The shared tileset of square kinds every TMX export uses (one tile per
 * kind, tile id = cm_square_kind, in cm_palette_square) and its image,
 * installed with the tile sets (make install). */
#define CM_TMX_KINDS "carcamap-kinds.tsx"
#define CM_TMX_KINDS_PNG "carcamap-kinds.png"

/* A Tiled 1.8 orthogonal map (schemas/export-tmx.md) that carries the
 * whole map: a tile layer of square kinds over the shared kinds tileset
 * (o->kinds), object layers for big cities and their pieces, edge prints
 * by kind, ferries, islands, names and markers, and setup, deck and rules
 * as map properties. lib/io/tmx.c reads it back to an equal model. */
int cm_export_tmx(const cm_map *m, const cm_export_opts *o, FILE *f, cm_diags *d);

/* Writes CM_TMX_KINDS and CM_TMX_KINDS_PNG into dir (atomically, each).
 * maps/tilesets holds the copies make install installs. 0, CM_EIO or
 * CM_ENOMEM. */
int cm_export_tmx_kinds(const char *dir, cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
