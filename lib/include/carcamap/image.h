/* SPDX-License-Identifier: MIT */
/* carcamap/image.h: annotated map images. A legend (schemas/legend.xsd,
 * described in schemas/legend.md) maps colours to square kinds and gives the
 * grid geometry; cm_image_import reads the grid of squares from a PNG, and
 * cm_image_apply fills a descriptor's map from one. Colours are compared as
 * the raw sample values in the file: no gamma or colour management. CM03xx.
 * Threads: a legend is only read once loaded (share it); an import or apply
 * fills its own map builder. */
#ifndef CARCAMAP_IMAGE_H
#define CARCAMAP_IMAGE_H

#include "map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest image read: each side, and in pixels. */
#define CM_IMAGE_MAX_SIDE 16384
#define CM_IMAGE_MAX_PIXELS 100000000u
/* Most colours in a legend (CM0004 past it): they are compared pairwise. */
#define CM_LEGEND_MAX_COLOURS 4096

/* One legend colour and what a cell of that colour means. */
typedef struct {
	uint8_t r, g, b, a;   /* a = 255 unless the legend gives #rrggbbaa */
	cm_square_kind kind;
	char *island;         /* island id (kind island only); may be NULL */
	char *name;           /* square name; may be NULL */
	char *marker;         /* square marker (Map-Chips print); may be NULL */
	uint8_t arms;         /* coats of arms on the square (island squares) */
	unsigned line;        /* line in the legend file, 0 when built in */
} cm_legend_colour;

/* Grid geometry in pixels. cols/rows 0: as many whole cells as fit right
 * of and below the origin. The sample is the sample x sample square of
 * pixels around each cell's centre pixel (x + cell_w/2, y + cell_h/2) that
 * must all be of one legend colour; it starts sample/2 pixels up and left
 * of the centre. */
typedef struct {
	int x, y;
	int cell_w, cell_h;
	int cols, rows;
	int sample;
} cm_legend_grid;

typedef struct cm_legend {
	cm_legend_colour *colours;
	size_t n_colours;
	int tolerance;        /* largest per-channel difference that still matches */
	cm_legend_grid grid;
	char *file;           /* path it was read from; NULL when built in */
} cm_legend;

/* Reads and checks a legend file (format 1). Problems go to d (CM0001-3
 * for the XML, CM0301-CM0304 for the legend). On success *out holds the
 * legend (free with cm_legend_free). Returns 0, CM_EINVAL, CM_EVERSION
 * (a newer format), CM_EIO or CM_ENOMEM. */
int cm_legend_load_file(const char *path, cm_diags *d, cm_legend **out);
/* The same from a buffer; file names it in diagnostics. */
int cm_legend_load_memory(const char *buf, size_t len, const char *file, cm_diags *d,
                          cm_legend **out);
/* The built-in legend (the default colours render uses without a legend):
 * one opaque colour per square kind, 1 pixel per square. 0 or CM_ENOMEM. */
int cm_legend_default(cm_legend **out);
void cm_legend_free(cm_legend *lg);
/* The entry that best describes square (x,y) of m (same kind; then same
 * island, name and marker), or NULL when the legend has no colour for the
 * kind. (x,y) off the grid stands for a square of kind none with nothing
 * printed (what render paints around the grid). Borrowed from lg. */
const cm_legend_colour *cm_legend_find(const cm_legend *lg, const cm_map *m, int x, int y);

/* Reads the PNG at png_path and classifies every cell of the legend's grid.
 * The result is a new map builder of the grid's size (free it with
 * cm_map_builder_free, or complete it, say with an id, and finish it):
 * kinds, names, markers and arms from the legend, one island per island id
 * met (in the order met, row by row), big-city squares with bigcity -1 (the
 * descriptor defines big cities), the image and legend paths as given, no
 * default prints yet. Problems go to d with the png path as file and
 * "cell (c,r), pixel (x,y)" as where: CM0310-CM0313 for the file,
 * CM0320-CM0323 for cells. Returns 0; CM_EINVAL when a cell or the file has
 * problems (*out NULL); CM_ELIMIT for images over the limits; CM_EIO;
 * CM_ENOMEM. */
int cm_image_import(const char *png_path, const cm_legend *lg, cm_diags *d, cm_map_builder **out);

/* Fills the squares of the map b builds from the image png_path (the
 * descriptor's image, resolved by the caller against the descriptor's
 * directory, read with the legend it names): the grid must have the map's
 * size (CM0331). A square the descriptor left undefined (kind none) takes
 * the image's kind, island, name, markers and arms; a square it defines
 * (kind other than none) must agree in kind and island id, else CM0330
 * names the descriptor's file:line and the image's cell and pixel. A name
 * or marker from the image is added where the descriptor gives none.
 * Returns 0, CM_EINVAL (b is then partly filled), or as cm_image_import. */
int cm_image_apply(cm_map_builder *b, const char *png_path, const cm_legend *lg, cm_diags *d);

/* Applies the image the map being built names (its image, and its legend
 * or the built-in legend), both resolved against the directory of
 * descriptor (the descriptor's path; NULL: the current directory), as
 * cm_image_apply does. Returns what cm_legend_load_file or cm_image_apply
 * return. */
int cm_image_apply_descriptor(cm_map_builder *b, const char *descriptor, cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
