/* SPDX-License-Identifier: MIT */
/* carcamap/scene.h: a picture drawn once, as a scene of shapes, text and
 * layers with their metadata (ids, classes, hover titles, data), then
 * written by a writer per format (carcamap/render.h builds the scenes of maps and played
 * boards; a tile sheet or a heatmap builds its own with these calls).
 * Geometry is in user units, x right and y down, integers except where a
 * field says hundredths; nothing depends on the machine, so every writer
 * gives the same bytes for the same scene.
 * Threads: a scene belongs to one thread while it is built; built, writers
 * only read it. */
#ifndef CARCAMAP_SCENE_H
#define CARCAMAP_SCENE_H

#include <stdint.h>
#include "diag.h"
#include "palette.h"
#include "tile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cm_scene cm_scene;

/* A paint: nothing set (inherit from the enclosing group), none, a colour
 * or a pattern of the scene (cm_scene_pattern_begin's index). */
typedef uint32_t cm_paint;
#define CM_PAINT_INHERIT 0u
#define CM_PAINT_NONE 0x2000000u
#define CM_PAINT_RGB(r, g, b) (0x1000000u | ((uint32_t)(r) << 16) | ((uint32_t)(g) << 8) | (uint32_t)(b))
#define CM_PAINT_PATTERN(i) (0x3000000u | (uint32_t)(i))
/* CM_PAINT_RGB of a palette colour. */
cm_paint cm_paint_rgb(cm_rgb c);

typedef enum { CM_ANCHOR_INHERIT = 0, CM_ANCHOR_START, CM_ANCHOR_MIDDLE, CM_ANCHOR_END } cm_anchor;

/* How a node is painted. Every field left 0 is inherited from the
 * enclosing groups (SVG's rules: the root paints text black, shapes
 * black, no stroke, font size 10). Widths are hundredths of a unit. */
typedef struct {
	cm_paint fill, stroke;
	int stroke_width;
	int fill_opacity, stroke_opacity; /* percent; 0 inherits (opaque) */
	int dash[2];                      /* units on, off; 0 solid */
	int font_size;                    /* units */
	int bold;
	cm_anchor anchor;
	cm_paint halo;                    /* text: an outline painted under the fill */
	int halo_width;                   /* hundredths */
	int halo_round;                   /* round joins */
	int overlay;                      /* hidden until a page's script shows it (HTML) */
} cm_style;

/* A node of the scene; CM_NODE_NONE after a failed allocation (the
 * scene remembers it: cm_scene_error). The root group is CM_NODE_ROOT. */
typedef uint32_t cm_node;
#define CM_NODE_ROOT 0u
#define CM_NODE_NONE UINT32_MAX

/* A new empty scene of w x h units (set later with cm_scene_set_size).
 * 0 or CM_ENOMEM; free with cm_scene_free (NULL is a no-op). */
int cm_scene_new(cm_scene **out);
void cm_scene_free(cm_scene *s);
/* The picture's extent in units (SVG viewBox). */
void cm_scene_set_size(cm_scene *s, int w, int h);
void cm_scene_get_size(const cm_scene *s, int *w, int *h);
/* The picture's title and description (SVG <title>, <desc>; PDF metadata). */
void cm_scene_set_title(cm_scene *s, const char *title, const char *desc);
/* CM_ENOMEM if any call since cm_scene_new failed to allocate, else 0. */
int cm_scene_error(const cm_scene *s);

/* Opens a group: the nodes added until cm_scene_end go inside it, painted
 * with st where they set nothing themselves. st NULL sets nothing. */
cm_node cm_scene_group(cm_scene *s, const cm_style *st);
void cm_scene_end(cm_scene *s);
/* A rectangle, a circle of radius r100 hundredths, a path (SVG path data:
 * M L H V Q T C Z, absolute or relative), a text at (x, y) (its baseline,
 * placed by the anchor). Strings are copied. */
cm_node cm_scene_rect(cm_scene *s, int x, int y, int w, int h, const cm_style *st);
cm_node cm_scene_circle(cm_scene *s, int cx, int cy, int r100, const cm_style *st);
cm_node cm_scene_path(cm_scene *s, const char *d, const cm_style *st);
cm_node cm_scene_text(cm_scene *s, int x, int y, const char *text, const cm_style *st);
/* Path data written piece by piece: cm_scene_path_add appends printf-style
 * (integers only: no locale), cm_scene_path_end makes the path node of
 * what was added (an empty path draws nothing). */
void cm_scene_path_add(cm_scene *s, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
cm_node cm_scene_path_end(cm_scene *s, const cm_style *st);
/* A break between layers: a newline in SVG, nothing elsewhere. */
void cm_scene_break(cm_scene *s);

/* Metadata of node n (the root too): its id, class, hover title (SVG
 * <title>), a data attribute (SVG data-NAME), a translation (groups), and
 * a text's second line, dy units below the first. */
void cm_scene_id(cm_scene *s, cm_node n, const char *id);
void cm_scene_class(cm_scene *s, cm_node n, const char *cls);
void cm_scene_title(cm_scene *s, cm_node n, const char *title);
void cm_scene_data(cm_scene *s, cm_node n, const char *name, const char *value);
void cm_scene_translate(cm_scene *s, cm_node n, int tx, int ty);
void cm_scene_text_line2(cm_scene *s, cm_node n, int dy, const char *text);

/* A pattern tile of w x h units, drawn by the nodes added until
 * cm_scene_pattern_end; returns its index for CM_PAINT_PATTERN. */
int cm_scene_pattern_begin(cm_scene *s, const char *id, int w, int h);
void cm_scene_pattern_end(cm_scene *s);

/* Draws tile type t turned r quarter turns clockwise from its features
 * into the 36-unit square at (x, y), as carcamap draws placed tiles and
 * tile sheets: each field its own area (a boundary line where two meet
 * with nothing between), each city its own shape with a wall on its inner
 * edge, roads ending where their contacts say (junction, city gate,
 * monastery, crop field, dead end) and crossing on a bridge where they do
 * not meet, and the tile's prints named in titles (coats of arms,
 * cathedral, inn, goods, monastery, abbey, garden, markers). One group
 * (schemas/render.md, "A tile drawn from its features"). */
cm_node cm_scene_tile(cm_scene *s, int x, int y, const cm_tile_type *t, int r);
#define CM_SCENE_CELL 36

/* How a scene is written to a file. */
typedef enum { CM_SCENE_SVG = 0, CM_SCENE_PNG, CM_SCENE_PDF } cm_scene_format;
typedef struct {
	cm_scene_format format;
	int svg_w, svg_h;   /* SVG: the width and height asked for (0: the units) */
	int px_per_cell;    /* PNG: pixels per 36 units, 2..256 (default 24) */
	int cell_um;        /* PDF: micrometres per 36 units (default 45000: a
	                     * Carcassonne tile's 45 mm) */
	int paper_w_um, paper_h_um; /* PDF: a poster's paper, turned whichever
	                     * way needs fewer pages; 0: one sheet of the
	                     * picture's size with crop marks */
	int bleed_um;       /* PDF sheet: the picture's edge carried on past the
	                     * trim by this much, marks outside it */
	long long epoch;    /* PDF creation date, seconds since 1970 (default 0) */
	const char *creator; /* PDF metadata; NULL: "carcamap" */
} cm_scene_opts;
/* Defaults: SVG, 24 pixels, 45 mm, one sheet, no bleed, epoch 0. */
void cm_scene_opts_init(cm_scene_opts *o);

/* A poster's pages (PDF with paper): columns and rows of the board pages
 * (the assembly page comes on top of them) and whether the paper lies
 * landscape. 0, or CM_EINVAL when the paper holds no more than its
 * margins and the overlap. Each page prints the paper less
 * CM_POSTER_MARGIN_UM on every side; neighbouring pages show the same
 * CM_POSTER_OVERLAP_UM of the board. */
int cm_scene_poster_grid(const cm_scene *s, const cm_scene_opts *o, int *cols, int *rows, int *landscape);
#define CM_POSTER_MAX_PAGES 500
#define CM_POSTER_MARGIN_UM 10000
#define CM_POSTER_OVERLAP_UM 10000
#define CM_SHEET_MAX_UM 5080000 /* a PDF page's largest side (200 inches) */

/* Writes s to path (replaced atomically, or streamed to a device or "-").
 * PNG and PDF set text in DejaVu Sans (Debian fonts-dejavu-core) loaded
 * from its file, so the bytes do not depend on the machine's font
 * settings; a PNG is drawn and written in bands of rows (memory bounded by
 * the band, not the picture). Returns 0, CM_EINVAL (bad options),
 * CM_ELIMIT (CM0341: a PNG over 16384 pixels a side;
 * CM0342: a poster of more than CM_POSTER_MAX_PAGES pages or a sheet over
 * CM_SHEET_MAX_UM a side), CM_EIO (also a missing font) or CM_ENOMEM. */
int cm_scene_write(const cm_scene *s, const cm_scene_opts *o, const char *path, cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
