/* SPDX-License-Identifier: MIT */
/* export/export.h: what the layers above (the pack, io/pack_*.c) ask of
 * the exporters beyond carcamap/export.h, as the validator asks the engine
 * through engine/engine.h: the client binary of a map whose tile sets are
 * checked already (lib/export/export_bin.c), built or compared byte for
 * byte, with the map's packed grid view when the caller has one. The
 * exporters' own header, export/export_int.h, is theirs alone
 * (tools/layers.sh holds to it). */
#ifndef CM_EXPORT_LAYER_H
#define CM_EXPORT_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include "carcamap/export.h"
#include "model/map_grid_int.h"

/* How cm__export_bin_encode and _equal encode. */
typedef struct {
	unsigned major;          /* 1 or 2; 0: CM_EXPORT_BIN_MAJOR */
	const cm_map_grid *grid; /* major 2: a true view of the map, which
	                          * spares the encoder its pass over every
	                          * square (the same bytes); NULL: none */
} cm_export_bin_opts;

/* cm_export_bin_mem for tile sets that cm_tileset_check_model has
 * passed (the pack writer and reader check every set they hold once), not
 * checked again, and a map that is not partial. o NULL: the defaults.
 * Same returns as cm_export_bin_mem. */
int cm__export_bin_encode(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, const cm_export_bin_opts *o,
                          unsigned char **out, size_t *len);
/* Whether the len bytes at data are, byte for byte, cm__export_bin_encode
 * of m, compared without building the file (1.0's square records in place
 * as they are encoded; 2.0's sections from their buffers): 0 and *equal,
 * or the error the encoding would give (the pack reader's check of a
 * stored binary). */
int cm__export_bin_equal(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, const cm_export_bin_opts *o,
                         const unsigned char *data, size_t len, bool *equal);

#endif
