/* SPDX-License-Identifier: MIT */
/* carcamap/diff.h: the differences between two maps (`carcamap diff`):
 * what changed between two versions of a descriptor, a descriptor and
 * its pack entry or Tiled map, or the two printings of one board. The
 * library compares and answers with a list of items, each with its
 * place; the command only formats them (schemas/diff-json.md). Nothing
 * here prints. Linear in the maps' size (squares, pieces, ferries, deck
 * entries and markers, each list sorted once).
 * Threads: a diff only reads its maps (which threads may share) and owns
 * its answer. */
#ifndef CARCAMAP_DIFF_H
#define CARCAMAP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include "map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an item is about, in the order the items come (schemas/diff-json.md). */
typedef enum {
	CM_DIFF_MAP = 0, /* id, name, grid size, <about> fields */
	CM_DIFF_SQUARE,  /* a square's kind */
	CM_DIFF_NAME,    /* a square's name (towns, start squares, landmarks) */
	CM_DIFF_BIGCITY, /* a printed big city: name, squares */
	CM_DIFF_PIECE,   /* one printed square of a big city: its features */
	CM_DIFF_PRINT,   /* an edge print: kind (road, city), coats of arms, label */
	CM_DIFF_FERRY,   /* a ferry: name, ends, coats of arms */
	CM_DIFF_ISLAND,  /* an island: title; a square's island, its coats of arms */
	CM_DIFF_MARKER,  /* a square's markers (Map-Chips prints) */
	CM_DIFF_SETUP,   /* start squares used, recommended tiles, followers */
	CM_DIFF_DECK,    /* deck entries and their order */
	CM_DIFF_RULES    /* the map's rule options (edition, ...) */
} cm_diff_section;
#define CM_DIFF_SECTION_COUNT 12
/* "map", "square", "name", "bigcity", "piece", "print", "ferry", "island",
 * "marker", "setup", "deck", "rules"; NULL out of range. */
const char *cm_diff_section_name(cm_diff_section s);

typedef enum {
	CM_DIFF_CHANGED = 0, /* in both, with another value */
	CM_DIFF_ADDED,       /* only in b */
	CM_DIFF_REMOVED      /* only in a */
} cm_diff_change;
const char *cm_diff_change_name(cm_diff_change c); /* "changed", "added", "removed" */

/* One difference. Strings are borrowed from the cm_diff. */
typedef struct {
	cm_diff_section section;
	cm_diff_change change;
	int x, y;            /* the square it is about (a big city's, ferry's or
	                      * island's first square in reading order), or -1 -1 */
	int side;            /* a cm_side (edge prints, ferry ends), or -1 */
	const char *subject; /* the element by name: a big city's or ferry's
	                      * name, an island's id, a deck entry ("base",
	                      * "traders-builders/TB-01"); NULL for a square's
	                      * own fields and an unnamed ferry */
	const char *field;   /* what differs: "kind", "name", "arms", "label",
	                      * "squares", "features", "ends", "count", ... */
	const char *a, *b;   /* the values as text (a in map a, b in map b);
	                      * NULL where the element is absent */
	unsigned line_a, line_b; /* the element's line in each map's
	                      * descriptor, 0 when unknown (images, packs) */
} cm_diff_item;

typedef struct cm_diff cm_diff;

/* Compares map a with map b. Not compared: where a map came from (its
 * file, image and legend paths, lines), its printings list and seam
 * (reader information), and the wagons game option (not part of a map).
 * Neutral edge prints follow from the squares (MAP-EDGE-NEUTRAL) and are
 * not items of their own; road and city prints, coats of arms and labels
 * are. The items come by section (cm_diff_section order); within one,
 * squares in reading order (row-major), then by side; elements (big
 * cities, pieces, ferries, islands, deck entries) in the order of a, then
 * those only in b in the order of b. Big cities are matched by the squares
 * they cover, then by name; ferries by their ends, then by name; islands
 * and deck entries by id.
 * Returns 0 with *out (free with cm_diff_free) or CM_ENOMEM. */
int cm_map_diff(const cm_map *a, const cm_map *b, cm_diff **out);
void cm_diff_free(cm_diff *d); /* NULL is a no-op */

/* The items, in order (borrowed; i out of range gives NULL). */
size_t cm_diff_count(const cm_diff *d);
const cm_diff_item *cm_diff_get(const cm_diff *d, size_t i);
/* Whether the maps are equal by the comparison above (no items). */
bool cm_diff_equal(const cm_diff *d);
/* The squares of each kind (cm_square_kind) in map a (which 0) or b (1). */
int cm_diff_kind_count(const cm_diff *d, int which, cm_square_kind k);

#ifdef __cplusplus
}
#endif
#endif
