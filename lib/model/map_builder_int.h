/* SPDX-License-Identifier: MIT */
/* map_builder_int.h: the builder's entries for the library's own readers
 * (map_builder.c): a grid written in bulk, row by row (a million squares
 * are written once, not through a call each), a read-only view of the map
 * being built, and a finish told what the reader has checked or reported
 * already. Everything else a reader sets goes through carcamap/map.h's
 * builder functions. */
#ifndef CM_MAP_BUILDER_INT_H
#define CM_MAP_BUILDER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "carcamap/map.h"
#include "model/map_struct_int.h"

/* A builder whose grid has the kinds (cols*rows, row-major; NULL: none),
 * each square's print kinds (prints[i]: side e's kind in bits 2e..2e+1,
 * the 2.0 GRID print byte; NULL: none) and each row's line (row_lines[y];
 * NULL: none), written on one pass. The kinds and prints must be in range. */
int cm__map_builder_new_grid(int cols, int rows, const uint8_t *kinds, const uint8_t *prints,
                             const unsigned *row_lines, cm_map_builder **out);
/* The same with the squares' memory not even zeroed: the caller writes
 * every square (cm__square_blank, then its values) through
 * cm__map_builder_grid before anything reads the grid or can fail (a
 * pack's grid made whole from its texts; the descriptor's grid reader,
 * which writes each row's kinds on that pass). A big grid lies on whole
 * huge pages (cm_malloc_big). */
int cm__map_builder_new_unset(int cols, int rows, cm_map_builder **out);

/* The grid (cols*rows squares, row-major) for the caller to write
 * directly. The builder can no longer vouch for the squares' ranges: its
 * finish tests every square, unless told CM__FINISH_GRID_OK. */
cm_square *cm__map_builder_grid(cm_map_builder *b);

/* The map being built, to read with the map's accessors and private
 * helpers: valid until the next call that changes b. Never handed out:
 * it may break any rule until finished. */
const cm_map *cm__map_builder_view(const cm_map_builder *b);

/* Flags of cm__map_builder_finish. */
#define CM__FINISH_GRID_OK 1u  /* the caller found every square in range
                                * (cm__square_in_range) on a pass of its own */
#define CM__FINISH_PARTIAL 2u  /* a map that fails is still handed out, marked
                                * partial (CM_MAP_LOAD_PARTIAL), with CM_EINVAL */
#define CM__FINISH_REFUSED 4u  /* the caller has reported errors already: the
                                * map is refused (CM_EINVAL) without checking
                                * it (with PARTIAL: handed out, partial) */
/* cm_map_builder_finish with flags. */
int cm__map_builder_finish(cm_map_builder *b, const char *rule, const char *file, cm_diags *d, unsigned flags,
                           cm_map **out);

/* The default prints and the structural checks of cm_map_check on the
 * builder's map, on one pass over the grid (map_check.c): *grid_ok set
 * when every square is in range (then finish may take CM__FINISH_GRID_OK). */
void cm__map_builder_prints_check_structure(cm_map_builder *b, cm_diags *d, const uint8_t *quiet, bool *grid_ok);

#endif
