/* SPDX-License-Identifier: MIT */
/* carcamap/carcamap.h: the whole public API of libcarcamap, and the few
 * functions that belong to no single module (version, file detection).
 * Threads: each module's header says what may be shared. The library keeps
 * no mutable global state, only caches filled once and thread-safely
 * (processor features, CRC tables, compiled schemas). */
#ifndef CARCAMAP_H
#define CARCAMAP_H

#include "version.h"
#include "common.h"
#include "diag.h"
#include "json.h"
#include "file.h"
#include "catalog.h"
#include "tile.h"
#include "tileset.h"
#include "rules.h"
#include "map.h"
#include "image.h"
#include "render.h"
#include "pack.h"
#include "export.h"
#include "workspace.h"
#include "rng.h"
#include "deck.h"
#include "board.h"
#include "play.h"
#include "player.h"
#include "answer.h"
#include "replay.h"
#include "stats.h"
#include "check.h"
#include "balance.h"
#include "diff.h"
#include "heatmap.h"
#include "palette.h"
#include "tmx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked, "MAJOR.MINOR.PATCH": CM_VERSION_STRING
 * when it was built (carcamap/version.h has the one compiled against). */
const char *cm_version(void);

typedef enum {
	CM_FILE_UNKNOWN = 0,
	CM_FILE_TILESET,  /* XML, root <tileset> */
	CM_FILE_MAP,      /* XML, root <map> */
	CM_FILE_LEGEND,   /* XML, root <legend> */
	CM_FILE_PACK,     /* SQLite database (not yet checked to be a carcamap pack) */
	CM_FILE_PNG,
	CM_FILE_TMX       /* XML, root <map> with Tiled's orientation attribute */
} cm_file_kind;

/* Sniffs a file's first bytes. Reports an unreadable file into d (no rule)
 * and returns CM_FILE_UNKNOWN without a diagnostic for unknown content. */
cm_file_kind cm_file_detect(const char *path, cm_diags *d);
const char *cm_file_kind_name(cm_file_kind k);

#ifdef __cplusplus
}
#endif
#endif
