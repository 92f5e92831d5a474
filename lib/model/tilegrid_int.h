/* SPDX-License-Identifier: MIT */
/* tilegrid_int.h: a tile as a small picture (schemas/tileset.md "Tiles as
 * pictures"): a 5x5 grid of characters whose 12 non-corner border cells are
 * the slots. tilegrid.c reads a grid into features (the tile-set reader,
 * io/feature_xml.c, gives it the text and the elements beside it) and lays
 * a tile's features out as a grid that reads back to the same tile (the
 * writer, io/tileset_io.c). */
#ifndef CM_TILEGRID_INT_H
#define CM_TILEGRID_INT_H

#include <stdbool.h>
#include "carcamap/tile.h"

#define CM_GRID_N 5

/* The characters: kind letters, nothing, and marks 0-9 a-z. */
#define CM_GRID_CITY 'C'
#define CM_GRID_ROAD 'R'
#define CM_GRID_FIELD '.'
#define CM_GRID_MONASTERY 'M'
#define CM_GRID_GARDEN 'G'
#define CM_GRID_ABBEY 'A'
#define CM_GRID_NOTHING '#'

typedef struct {
	char c[CM_GRID_N][CM_GRID_N]; /* c[y][x] */
	unsigned line[CM_GRID_N];     /* source line of row y, 0 when unknown */
	unsigned col[CM_GRID_N];      /* source column of its first cell */
} cm_tile_grid;

/* Where problems go: rule, line and column (0 unknown), message. */
typedef void (*cm_grid_report_fn)(void *arg, const char *rule, unsigned line, unsigned col, const char *msg);

/* Whether ch is a mark (a feature named by an element): 0-9 a-z. */
bool cm_grid_is_mark(int ch);
/* The kind letter of a feature kind ('C' for a city). */
char cm_grid_kind_char(cm_feature_kind k);

/* Reads the text of a <grid> element into g: five rows of five cells,
 * one row a line, blank lines and the whitespace around a row ignored.
 * line and col are where the text starts in its file (0: unknown). Every
 * problem is reported as CM0117 at its line and column (at most a few per
 * grid; the cost is linear in the text whatever its shape). 0 or
 * CM_EINVAL. */
int cm_tile_grid_parse(const char *text, unsigned line, unsigned col, cm_tile_grid *g, cm_grid_report_fn rep,
                       void *arg);

/* What the element of a feature beside a grid says. */
typedef struct {
	char mark;          /* its mark, or 0: it takes a region of its kind */
	bool touches_given; /* a field whose touches were written: not derived */
	unsigned line;      /* the element's line */
	unsigned col;       /* its mark's column, 0 when unknown */
} cm_grid_decl;

/* Gives t's features (read from the elements beside the grid, in order,
 * without slots; decl[i] for feature i) their slots from the grid, and
 * adds a feature, with an automatic id, for every region no element
 * takes; a field whose touches were not given touches the cities next to
 * its cells. CM0118 for what does not fit (a mark no element names, an
 * element without a region, a mark named twice). 0, CM_EINVAL or
 * CM_ENOMEM (t then holds what was added; clear it as usual). */
int cm_tile_grid_apply(const cm_tile_grid *g, const cm_grid_decl *decl, cm_tile_type *t, cm_grid_report_fn rep,
                       void *arg);

/* A tile drawn as a grid: the grid, each feature's mark (0: its kind
 * letter), whether its touches must be written (a field whose touches the
 * picture does not give), and how many features, from the first, are
 * written as elements (the rest the reader makes from the picture alone). */
typedef struct {
	cm_tile_grid grid;
	char mark[CM_MAX_FEATURES];
	bool touches[CM_MAX_FEATURES];
	size_t n_elements;
} cm_tile_grid_layout;

/* Lays t out: a grid and elements that cm_tile_grid_apply reads back to
 * t's features exactly (kinds, ids, order, slots, attributes, touches).
 * CM_EINVAL when t cannot be drawn (a slot of two features, more features
 * than 32, or more inner features than the inner cells), CM_ENOMEM. */
int cm_tile_grid_layout_make(const cm_tile_type *t, cm_tile_grid_layout *out);

#endif
