/* SPDX-License-Identifier: MIT */
/* carcamap/palette.h: the project's one palette. Every picture carcamap
 * makes (PNG render, SVG, HTML, the TMX kinds tileset) takes its colours per
 * square kind, feature kind, edge print, severity and player from here, so a
 * start square is the same colour everywhere. The built-in import legend
 * (cm_legend_default) uses the square colours too, so a render imports back
 * with the built-in legend.
 * Threads: constants: safe from any thread. */
#ifndef CARCAMAP_PALETTE_H
#define CARCAMAP_PALETTE_H

#include "diag.h"
#include "map.h"
#include "tile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	unsigned char r, g, b;
} cm_rgb;

/* Colour of a square kind; CM_SQ_NONE is the "not printed" background. */
cm_rgb cm_palette_square(cm_square_kind k);
/* Colour of a tile feature kind when a tile is drawn from its features. */
cm_rgb cm_palette_feature(cm_feature_kind k);
/* Colour of an edge print (road, city, neutral; CM_PRINT_NONE: grid line). */
cm_rgb cm_palette_print(cm_print_kind k);
/* Frame colour of a diagnostic of this severity. */
cm_rgb cm_palette_severity(cm_severity s);
/* Follower colour of player i (0-based; wraps after the palette's players). */
cm_rgb cm_palette_player(int i);
/* The outline drawn inside start squares. */
cm_rgb cm_palette_start_outline(void);
/* Map-Chips marker symbols. */
cm_rgb cm_palette_marker(void);
/* Coats of arms, ferries, grid lines and text. */
cm_rgb cm_palette_arms(void);
cm_rgb cm_palette_ferry(void);
cm_rgb cm_palette_grid(void);
cm_rgb cm_palette_text(void);
/* Writes "#rrggbb" and a NUL into buf (8 bytes); returns buf. */
char *cm_rgb_hex(cm_rgb c, char buf[8]);

#ifdef __cplusplus
}
#endif
#endif
