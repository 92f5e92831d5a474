/* SPDX-License-Identifier: MIT */
/* carcamap/tmx.h: maps drawn or edited in Tiled. Reads a TMX file in the
 * layout of schemas/export-tmx.md (what cm_export_tmx writes, or what an
 * author drew over the carcamap kinds tileset) into the one map model, with
 * the same safe XML loading and the same structural checks as a descriptor. */
#ifndef CARCAMAP_TMX_H
#define CARCAMAP_TMX_H

#include "map.h"

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
