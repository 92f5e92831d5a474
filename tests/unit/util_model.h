/* util_model.h: test helpers shared by unit tests: small tile sets and maps
 * built in memory, field-by-field comparison (file and line fields are
 * ignored), and a temporary directory. Every name starts with util_. */
#ifndef UTIL_MODEL_H
#define UTIL_MODEL_H

#include <stddef.h>
#include "carcamap/map.h"
#include "carcamap/tileset.h"

/* "base": tiles D (start), E and B (monastery), with C1/C2/C3 counts. */
cm_tileset *util_tileset_base(void);
/* "inns": one tile with an inn, a cathedral city and a trade good. */
cm_tileset *util_tileset_inns(void);
/* "sample": 6x5 map using every part of the model (kinds, names, markers,
 * edge prints, a two-square big city, islands, a ferry, a deck of "base"
 * and one tile of "inns"). */
cm_map *util_map_sample(void);
/* Frees a tile set built by these helpers or read from a pack. */

/* 1 when equal; otherwise 0 and the first difference written into why. */
int util_tileset_equal(const cm_tileset *a, const cm_tileset *b, char *why, size_t n);
int util_map_equal(const cm_map *a, const cm_map *b, char *why, size_t n);

/* A new directory under $TMPDIR (or /tmp), and its removal with its files. */
char *util_tempdir(void);
void util_rmtree(char *dir);

#endif
