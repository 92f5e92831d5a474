/* SPDX-License-Identifier: MIT */
/* carcamap/render.h: pictures of maps as PNG. Squares coloured by kind with
 * the legend's colours (so that a picture at scale 1, or at the legend's own
 * grid, imports back to the same squares), and at larger scales the printed
 * big cities, edge prints, ferries, start outlines, a grid, marked squares
 * (diagnostics) and placed tiles drawn from their features. */
#ifndef CARCAMAP_RENDER_H
#define CARCAMAP_RENDER_H

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A square to frame in red (a square with a diagnostic). */
typedef struct {
	int x, y;
} cm_render_mark;

/* A tile placed on the board: type (borrowed) turned rotation quarter turns
 * clockwise. Drawn from its features: fields green, cities filled, roads as
 * lines to the centre, monasteries, abbeys and gardens as a dot. */
typedef struct {
	int x, y;
	const cm_tile_type *type;
	int rotation;
} cm_render_tile;

enum {
	CM_RENDER_GRID = 1,     /* lines between squares (scale >= 4) */
	CM_RENDER_FEATURES = 2  /* big cities, prints, ferries, start outlines, arms (scale >= 8) */
};

typedef struct {
	int scale;              /* pixels per square, 1..256; 0: the legend's grid (origin and cell size) */
	unsigned flags;         /* CM_RENDER_*; decorations never drawn at scale 1 or 0 */
	const cm_render_mark *marks;
	size_t n_marks;
	const cm_render_tile *tiles;
	size_t n_tiles;
} cm_render_opts;

/* Defaults: scale 1, grid and features on, no marks, no tiles. */
void cm_render_opts_init(cm_render_opts *o);

/* Draws m into the PNG out_png. lg gives the square colours (NULL: the
 * built-in ones of cm_legend_default); a kind without a legend colour is
 * drawn in its built-in colour with a CM0340 warning. o NULL means the
 * defaults. The file is written beside the target and renamed into place,
 * so a failure never leaves a partial file; the bytes depend only on the
 * input (no time chunk, fixed compression). Returns 0, CM_EINVAL (bad
 * options), CM_ELIMIT (CM0341: over 16384 pixels per side or 100 million
 * pixels), CM_EIO or CM_ENOMEM. */
int cm_render_map(const cm_map *m, const cm_legend *lg, const cm_render_opts *o, const char *out_png,
                  cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
