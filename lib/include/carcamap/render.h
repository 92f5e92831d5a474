/* SPDX-License-Identifier: MIT */
/* carcamap/render.h: pictures of maps, as PNG, SVG, one HTML page or PDF.
 * PNG: squares coloured by kind with the legend's colours (so that a picture
 * at scale 1, or at the legend's own grid, imports back to the same
 * squares), and at larger scales the printed features, a grid, framed
 * squares (diagnostics) and placed tiles. SVG: every element of the model
 * with its words (names, labels, title line, coordinates, a key), the
 * diagnostics framed with their ids, a played game with followers and
 * scores. HTML: that SVG with a hover panel and the diagnostics listed.
 * PDF (and PNG at scale 2 or more): the SVG's scene drawn by cairo, at true
 * size on one sheet or as a poster of pages. Colours come from
 * carcamap/palette.h.
 * Threads: a render only reads the map, legend, game and diagnostics it is
 * given: renders may run on several threads at once, each to its own
 * output. */
#ifndef CARCAMAP_RENDER_H
#define CARCAMAP_RENDER_H

#include "board.h"
#include "image.h"
#include "tileset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CM_RENDER_PNG = 0, CM_RENDER_SVG, CM_RENDER_HTML, CM_RENDER_PDF } cm_render_format;
/* "png", "svg", "html", "pdf". */
const char *cm_render_format_name(cm_render_format f);
/* Parses "png", "svg", "html", "pdf": 0 or CM_EINVAL. */
int cm_render_format_parse(const char *s, cm_render_format *out);
/* The format a file name asks for by its extension (.png, .svg, .html or
 * .htm, .pdf, any case): 0, or CM_ENOTFOUND for any other name. */
int cm_render_format_of_path(const char *path, cm_render_format *out);

/* A square to frame (PNG): one with a diagnostic, in its severity's colour. */
typedef struct {
	int x, y;
	cm_severity severity;
} cm_render_mark;

/* A tile placed on the board (PNG): type (borrowed) turned rotation
 * quarter turns clockwise. Drawn from its features: fields green, cities
 * filled, roads as lines to the centre, monasteries, abbeys and gardens as
 * a dot. */
typedef struct {
	int x, y;
	const cm_tile_type *type;
	int rotation;
} cm_render_tile;

/* A played game (SVG, HTML): the board after final scoring (borrowed; its
 * map is the map drawn) and every score item of the game in order
 * (cm_board_set_score_hook), which the picture explains per feature. */
typedef struct {
	const cm_board *board;
	const cm_score_item *items;
	size_t n_items;
	uint64_t seed;
} cm_render_game;

enum {
	CM_RENDER_GRID = 1,     /* lines between squares (PNG: scale >= 4) */
	CM_RENDER_FEATURES = 2  /* big cities, prints, ferries, start outlines, arms (PNG: scale >= 8) */
};

typedef struct {
	cm_render_format format;
	int scale;              /* PNG: pixels per square, 1..256; 0: the legend's grid
	                         * (origin and cell size); 0 and 1 give the exact
	                         * annotated image, 2 and more the picture with its
	                         * words (the SVG's scene). SVG, HTML: the width and
	                         * height the picture asks for, per square (its
	                         * viewBox is fixed: 36 units per square) */
	unsigned flags;         /* CM_RENDER_*; PNG decorations never drawn at scale 1 or 0 */
	const cm_render_mark *marks; /* PNG */
	size_t n_marks;
	const cm_render_tile *tiles; /* PNG */
	size_t n_tiles;
	const cm_diags *diags;  /* SVG, HTML: diagnostics to draw (those about a
	                         * square framed there with their ids) and list; NULL none */
	const int *fits;        /* SVG, HTML: per square (row-major) the deck's tile
	                         * types that fit there (cm_check_opts.fits); NULL unknown */
	int deck_size;          /* SVG, HTML title line: tiles in the deck; -1 unknown */
	const cm_render_game *game; /* SVG, HTML, PDF, picture PNG: a played game; NULL none */
	int square_um;          /* PDF: a square's side in micrometres (45000) */
	int paper_w_um, paper_h_um; /* PDF: a poster on this paper (cm_scene_opts);
	                         * 0: one sheet of the picture's size */
	int bleed_um;           /* PDF sheet: bleed beyond the trim */
	long long epoch;        /* PDF: creation date, seconds since 1970 (0) */
	cm_edition edition;     /* tile sheets: whose tile counts (C2) */
	int backs;              /* tile sheets: a page of backs after each page */
} cm_render_opts;

/* Defaults: PNG, scale 1, grid and features on, no marks, no tiles, no
 * diagnostics, deck size unknown, no game; PDF: 45 mm squares, one sheet. */
void cm_render_opts_init(cm_render_opts *o);

/* A tile sheet: every tile type of each of the n sets drawn from its
 * features (the drawing of a played board, cm_scene_tile), in id order,
 * each on a card with its id, name, copies per edition and markers, the
 * sets one below the other under a line naming each. o->format SVG, PNG
 * (the scene drawn by cairo) or HTML (a page whose script outlines and
 * describes the feature under the
 * pointer, with its slots, contacts, touches and coats of arms, and shows
 * a selected tile turned four ways); o->scale: pixels per tile side
 * (below 2: 108; the cards and their words grow with it). o->diags (NULL: none): problems to
 * draw, each on its tile (the one its line falls in, or the one its
 * `where` names) with its check id and the tile's uncovered and doubly
 * covered slots marked on its edge; a set's own problems (no start tile,
 * totals) under its name. The sets may come from
 * CM_TILESET_LOAD_PARTIAL and break the checks' rules: what was
 * understood is drawn. Written like cm_render_map (atomically, the same
 * bytes for the same input); cost linear in the tiles and diagnostics.
 * 0, CM_EINVAL (no set, another format), CM_ELIMIT (CM0341: a PNG over the
 * scene's limits), CM_EIO or CM_ENOMEM. */
int cm_render_tile_sheet(const cm_tileset *const *sets, size_t n_sets, const cm_render_opts *o, const char *out,
                         cm_diags *d);

/* Draws m into the file out in o->format. lg gives the PNG's square colours
 * (NULL: the built-in ones of cm_legend_default); a kind without a legend
 * colour is drawn in its built-in colour with a CM0340 warning. SVG and
 * HTML use the palette. o NULL means the defaults. m may be a model read
 * with CM_MAP_LOAD_PARTIAL: whatever lies off the grid or out of range is
 * left out. The file is written beside the target and renamed into place,
 * so a failure never leaves a partial file; the bytes depend only on the
 * input (no time, fixed compression, integer geometry). Cost is linear in
 * the squares (plus the diagnostics, markers and game). Returns 0,
 * CM_EINVAL (bad options), CM_ELIMIT (CM0341: a PNG over 16384 pixels per
 * side, or at scale 0 or 1 over 100 million pixels; CM0342: a PDF over the poster or sheet limits
 * of carcamap/scene.h), CM_EIO or CM_ENOMEM. */
int cm_render_map(const cm_map *m, const cm_legend *lg, const cm_render_opts *o, const char *out,
                  cm_diags *d);

/* Print and play: every tile type of ts at true size (o->square_um) as
 * many times as its count in o->edition, on pages of o->paper (A4 when
 * 0), turned whichever way holds more, the grid centred, with cut lines
 * along every tile edge carried into the margin, each page naming the set
 * and the tile types on it; with o->backs each page of fronts is followed
 * by one of backs mirrored left to right for long-edge duplex printing.
 * PDF only (o->format). Deterministic as cm_render_map's PDF. Returns 0,
 * CM_EINVAL (another format, a paper too small for one tile, a set with
 * no tiles in that edition), CM_ELIMIT (CM0342: over CM_POSTER_MAX_PAGES
 * pages), CM_EIO or CM_ENOMEM. */
int cm_render_tileset(const cm_tileset *ts, const cm_render_opts *o, const char *out, cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
