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
/* The inks of a tile drawn from its features (carcamap/scene.h,
 * cm_scene_tile): its walls, the lines between fields, ground that is no
 * feature, and the small prints it carries. */
typedef enum {
	CM_INK_WALL = 0,  /* a city's wall, on its inner edge */
	CM_INK_HEDGE,     /* where two fields meet with nothing between them */
	CM_INK_GROUND,    /* ground no feature covers */
	CM_INK_CROP,      /* a crop field (Crop Circles) */
	CM_INK_ROOF,      /* an inn's roof */
	CM_INK_WINE,
	CM_INK_GRAIN,
	CM_INK_CLOTH,
	CM_INK_GOLD,      /* a gold mine's ingot */
	CM_INK_HAT,       /* the mage's hat */
	CM_INK_BAG,       /* the robbers' bag */
	CM_INK_STONE,     /* a cathedral's stone */
	CM_INK_DARK       /* outlines of small prints, symbols */
} cm_ink;
#define CM_INK_COUNT 13
cm_rgb cm_palette_ink(cm_ink k);
/* Writes "#rrggbb" and a NUL into buf (8 bytes); returns buf. */
char *cm_rgb_hex(cm_rgb c, char buf[8]);

#ifdef __cplusplus
}
#endif
#endif
