/* SPDX-License-Identifier: MIT */
/* util_model.h: test helpers shared by unit tests: small tile sets and maps
 * built in memory, field-by-field comparison (file and line fields are
 * ignored), and a temporary directory. Every name starts with util_. */
#ifndef UTIL_MODEL_H
#define UTIL_MODEL_H

#include <stddef.h>
#include <stdio.h>
#include "carcamap/map.h"
#include "carcamap/tileset.h"

/* Builders: each appends to the model and returns what it added; strings
 * are copied; a failed allocation aborts the test program. */
cm_tileset *util_tileset_new(const char *id, const char *name, bool base, int t1, int t2, int t3);
cm_tile_type *util_tile_add(cm_tileset *ts, const char *id, int c1, int c2, int c3);
cm_feature *util_feature_add(cm_tile_type *t, cm_feature_kind kind, const char *id, cm_slots slots);
void util_contact_add(cm_tile_type *t, uint32_t mask);
/* Derives every tile type; 0, or CM_EINVAL when a slot is covered twice. */
int util_tileset_derive(cm_tileset *ts);
/* "Nw Nm Ne" as a mask; aborts on a name that is no slot. */
cm_slots util_slots(const char *names);
/* Map builders (carcamap/map.h): each aborts the test program on a
 * failure. util_finish finishes b (no diagnostics) into its map. */
cm_map_builder *util_builder(int cols, int rows);
cm_map_builder *util_from(const cm_map *m);
cm_map *util_finish(cm_map_builder *b);
void util_id_set(cm_map_builder *b, const char *id, const char *name);
void util_kind_set(cm_map_builder *b, int x, int y, cm_square_kind kind);
void util_square_set(cm_map_builder *b, int x, int y, const cm_square *sq);
void util_print_set(cm_map_builder *b, int x, int y, cm_side s, cm_print_kind kind, int arms);
/* A new map: m with deck entry i given set and tile (NULL: its own) and
 * count. */
cm_map *util_with_deck_entry(const cm_map *m, size_t i, const char *set, const char *tile, int count);
/* The setup: starts_used start squares, no tile range, 9 followers. */
void util_setup_starts(cm_map_builder *b, int starts_used);
/* What square (x,y) keeps beside the grid: a marker appended, its name,
 * the label of the print on side s. */
void util_marker_add(cm_map_builder *b, int x, int y, const char *text);
void util_name_set(cm_map_builder *b, int x, int y, const char *name);
void util_label_set(cm_map_builder *b, int x, int y, cm_side s, const char *label);
/* The number of markers of square (x,y), and its marker k (NULL past them). */
size_t util_marker_count(const cm_map *m, int x, int y);
const char *util_marker(const cm_map *m, int x, int y, size_t k);
void util_island_add(cm_map_builder *b, const char *name, const char *title);
void util_deck_add(cm_map_builder *b, const char *set, const char *tile, int count);

/* "base": tiles D (start), E and B (monastery), with C1/C2/C3 counts. */
cm_tileset *util_tileset_base(void);
/* "inns": one tile with an inn, a cathedral city and a trade good. */
cm_tileset *util_tileset_inns(void);
/* "sample": 6x5 map using every part of the model (kinds, names, markers,
 * edge prints, a two-square big city, islands with and without a title, a
 * ferry, a deck of "base" and one tile of "inns"); every rule option is set
 * away from its default. */
cm_map *util_map_sample(void);
/* The same, still in its builder (for a test that changes it). */
cm_map_builder *util_map_sample_builder(void);
/* A map of one start square, id and name id, its deck the whole tile set
 * set (the smallest map a pack or workspace takes); and in its builder. */
cm_map *util_map_one_square(const char *id, const char *set);
cm_map_builder *util_map_one_square_builder(const char *id, const char *set);

/* An array of maps as the functions that only read them take it (C does
 * not convert cm_map ** to const cm_map *const * by itself). */
#define UTIL_MAPS(v) ((const cm_map *const *)(v))
/* The same for tile sets. */
#define UTIL_SETS(v) ((const cm_tileset *const *)(v))

/* The exporters (carcamap/export.h) with the options most tests give:
 * the tile sets; the binary's major version; the TMX written to tmx_path
 * through cm_file_write, naming kinds_tsx relative to it. */
int util_export_json(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, FILE *f);
int util_export_bin(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, unsigned major, unsigned char **out,
                    size_t *len);
int util_export_tmx(const cm_map *m, const char *tmx_path, const char *kinds_tsx, cm_diags *d);

/* 1 when equal; otherwise 0 and the first difference written into why. */
int util_tileset_equal(const cm_tileset *a, const cm_tileset *b, char *why, size_t n);
int util_map_equal(const cm_map *a, const cm_map *b, char *why, size_t n);

/* A new directory under $TMPDIR (or /tmp), and its removal with its files. */
char *util_tempdir(void);
void util_rmtree(char *dir);

#endif
