/* SPDX-License-Identifier: MIT */
/* carcamap/tmx.h: maps drawn or edited in Tiled. Reads a TMX file in the
 * layout of schemas/export-tmx.md (what cm_export_tmx writes, or what an
 * author drew over the carcamap kinds tileset) into the one map model, with
 * the same safe XML loading and the same structural checks as a descriptor.
 * Threads: each call reads its own file into a new map: calls on different
 * threads are independent. */
#ifndef CARCAMAP_TMX_H
#define CARCAMAP_TMX_H

#include "map.h"

/* ---- the names of schemas/export-tmx.md ----
 * The one table of the TMX vocabulary: the reader below and the writer
 * (cm_export_tmx, carcamap/export.h) both name layers and properties by
 * it. The kinds tileset's file names are CM_TMX_KINDS, CM_TMX_KINDS_PNG
 * (carcamap/export.h). */
/* The object layers, with the id the export gives each (the squares tile
 * layer is 1). */
#define CM_TMX_LAYER_SQUARES "squares"               /* tile layer: square kinds */
#define CM_TMX_LAYER_BIGCITIES "bigcities"           /* 2: a polygon per big city */
#define CM_TMX_LAYER_PIECES "pieces"                 /* 3: a rectangle per piece */
#define CM_TMX_LAYER_PRINTS_ROAD "prints-road"       /* 4: a polyline per edge print */
#define CM_TMX_LAYER_PRINTS_CITY "prints-city"       /* 5 */
#define CM_TMX_LAYER_PRINTS_NEUTRAL "prints-neutral" /* 6 */
#define CM_TMX_LAYER_FERRIES "ferries"               /* 7: a polyline per ferry */
#define CM_TMX_LAYER_ISLANDS "islands"               /* 8: a point per island */
#define CM_TMX_LAYER_ISLAND_SQUARES "island-squares" /* 9: a rectangle per island square */
#define CM_TMX_LAYER_NAMES "names"                   /* 10: a text per named square */
#define CM_TMX_LAYER_MARKERS "markers"               /* 11: a point per marker */
/* Map properties. */
#define CM_TMX_PROP_FORMAT "carcamap.format"         /* CM_TMX_FORMAT */
#define CM_TMX_FORMAT "carcamap-tmx"
#define CM_TMX_PROP_VERSION "carcamap.version"       /* CM_TMX_VERSION; another major is refused */
#define CM_TMX_VERSION "2.0"
#define CM_TMX_PROP_ID "id"
#define CM_TMX_PROP_NAME "name"
#define CM_TMX_PROP_ABOUT "about."                   /* + cm_about_name(i) */
#define CM_TMX_PROP_STARTS "setup.starts"
#define CM_TMX_PROP_TILES_MIN "setup.tiles_min"
#define CM_TMX_PROP_TILES_MAX "setup.tiles_max"
#define CM_TMX_PROP_FOLLOWERS "setup.followers"
#define CM_TMX_PROP_DECK "deck"
#define CM_TMX_PROP_RULES "rules."                   /* + a rule option's key (carcamap/rules.h) */
/* Object properties, and the kinds tileset's tile property. */
#define CM_TMX_PROP_ARMS "arms"
#define CM_TMX_PROP_TITLE "title"
#define CM_TMX_PROP_FEATURES "features"
#define CM_TMX_PROP_KIND "kind"

/* Reads path (Tiled TMX): the squares layer (CSV, base64, base64 with zlib
 * or gzip, or XML tiles) over the carcamap kinds tileset, the object layers
 * and map properties of schemas/export-tmx.md, then every structural check
 * a descriptor gets (cm_map_check without sets). Diagnostics name the TMX
 * file and the line of the layer or object, its id and name, and the
 * square (CM07xx for what Tiled can express but carcamap cannot read: a
 * zstd layer, an infinite map, tiles of another tileset; CM02xx for the
 * map itself). *out is set only when no error was reported; m->file is
 * path. Returns 0, CM_EINVAL (see d), CM_EVERSION, CM_EIO or CM_ENOMEM. */
int cm_tmx_load_file(const char *path, cm_diags *d, cm_map **out);
/* The same from memory; file names the text in diagnostics (may be NULL). */
int cm_tmx_load_memory(const char *buf, size_t len, const char *file, cm_diags *d, cm_map **out);

#endif
