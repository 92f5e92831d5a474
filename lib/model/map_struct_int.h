/* SPDX-License-Identifier: MIT */
/* map_struct_int.h: the definition of a map, private to the library
 * (carcamap/map.h keeps cm_map opaque, as cmark's node.h keeps its nodes):
 * library modules read its fields directly on their hot paths (a million
 * squares), clients through the accessors of map.h. Only the builder
 * (model/map_builder.c) writes a map; everyone else holds a const cm_map *
 * that the builder's one model check has passed (see cm_map_partial for
 * the exception). */
#ifndef CM_MAP_STRUCT_INT_H
#define CM_MAP_STRUCT_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "carcamap/map.h"
#include "model/map_grid_int.h"
#include "base/sha256_int.h"
#include "base/util_int.h"

/* The costly part of the content hash (cm_map_hash, version 2): the
 * SHA-256 state after the map's own items before the tile sets (schemas/
 * pack.md "Content hash", items 1 to 7), which depends on the map alone.
 * The tile sets (which are not the map's, and may change) and the about
 * fields are hashed on top of a copy each time. Filled once, by the first
 * thread that computes it: state goes 0 (empty) -> 1 (that thread writes
 * mid) -> 2 (filled, read by anyone); a thread that finds 1 computes its
 * own and writes nothing, so no two threads ever write mid. */
typedef struct {
	cm_sha256 s;
	bool bad; /* a value had no code: the hash is refused */
} cm__hash_mid;

struct cm_map {
	char *id;            /* "germany" (unique in a pack) */
	char *name;          /* "Germany" */
	int cols, rows;
	cm_square *squares;  /* cols*rows, row-major: squares[y*cols + x] */
	struct cm_map_extras *extras; /* names, markers, print labels and lines of
	                      * the squares that have them (map_extra.c); NULL
	                      * while there are none */
	cm_bigcity *bigcities;
	size_t n_bigcities;
	cm_ferry *ferries;
	size_t n_ferries;
	cm_island *islands;
	size_t n_islands;
	cm_index island_ix;  /* islands by name, the first of each (cm_map_island_find) */
	cm_setup setup;
	cm_deck_entry *deck;
	size_t n_deck;
	cm_rules rules;
	cm_about about;      /* who made it; fields NULL when not given */
	char *image;         /* annotated image path as written in the descriptor, or NULL */
	char *legend;        /* legend path as written, or NULL */
	char *file;          /* descriptor path; NULL when built in memory or read from a pack */
	int seam;            /* cm_map_seam */
	unsigned line;
	cm_edition printings[CM_EDITION_COUNT]; /* cm_map_printings */
	size_t n_printings;
	bool partial;        /* cm_map_partial */
	cm_map_grid view;    /* the packed grid view (map_grid_int.h) the builder's
	                      * structure pass made on its way (cm__map_view), true
	                      * of the squares: any change drops it; empty when
	                      * none was made */
	/* caches of values that depend on the map alone, filled when first
	 * asked (the map is const to everyone but the builder) */
	_Atomic int hash_state; /* 0, 1, 2: see cm__hash_mid */
	cm__hash_mid hash_mid;
};

/* The square at (x,y), or NULL off the grid: cm_map_at inlined, for the
 * library's hot paths. */
static inline const cm_square *cm__map_at(const cm_map *m, int x, int y)
{
	return (x >= 0 && y >= 0 && x < m->cols && y < m->rows) ? &m->squares[y * m->cols + x] : NULL;
}

/* m's packed grid view, or NULL when it has none (then
 * cm__map_grid_build makes one). */
static inline const cm_map_grid *cm__map_view(const cm_map *m)
{
	return m->view.grid ? &m->view : NULL;
}

/* The cached part of m's content hash: true and *out filled when some
 * thread has stored it. */
bool cm__map_hash_mid_get(const cm_map *m, cm__hash_mid *out);
/* Stores mid as m's cached part of the content hash, unless it is there
 * already or another thread is storing it (then nothing happens). */
void cm__map_hash_mid_put(const cm_map *m, const cm__hash_mid *mid);

#endif
