/* SPDX-License-Identifier: MIT */
/* map_grid_int.h: the packed grid view of a map (model/map_grid.c): two
 * bytes per square, its kind and its four print kinds, which is at once
 * the client binary's GRID record (schemas/export-bin.md), the pack's
 * map_grids texts (schemas/pack.md) and a plain square's bytes in the
 * content hash (version 2); and the few squares that may carry more. The
 * pack writer makes it in one pass over the squares and shares it between
 * the hash, the grid texts and the binary; the pack reader makes it from
 * the grid texts as it reads them. */
#ifndef CM_MAP_GRID_INT_H
#define CM_MAP_GRID_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "carcamap/map.h"

/* grid: per square (row-major) its kind, then its print kinds N + 4E +
 * 16S + 64W; sq: the increasing indices of the n_sq squares that may
 * carry more (every other square has no arms, island, big city, print
 * arms nor entry beside the grid: cm_map_extra_find gives NULL). A view
 * is true of its map when its bytes are the map's and its list holds
 * every square that carries more (it may hold others). */
typedef struct {
	const uint8_t *grid;
	const size_t *sq;
	size_t n_sq;
} cm_map_grid;

/* The view of m in *out from one pass over its squares: grid and sq are
 * new buffers, freed by cm__map_grid_free. 0, CM_ENOMEM or CM_ELIMIT (too
 * many squares for 32-bit indices); *out is empty then. */
int cm__map_grid_build(const cm_map *m, cm_map_grid *out);
/* The same from a pass over the squares made for another reason (the
 * builder's structure pass): grid (2 bytes per square of m, all written)
 * and the n increasing squares sq that carry more than their two bytes
 * (cm__map_grid_pack nonzero), to which the squares with an entry beside
 * the grid are joined. Takes grid and sq (freed on failure). 0 or
 * CM_ENOMEM; *out is empty then. */
int cm__map_grid_adopt(const cm_map *m, uint8_t *grid, size_t *sq, size_t n, cm_map_grid *out);

/* The two bytes of square s at r (its kind, its print kinds as in
 * cm_map_grid.grid); nonzero when it carries more than them (arms, print
 * arms, an island or a big city). */
static inline uint64_t cm__map_grid_pack(const cm_square *s, uint8_t *r)
{
	r[0] = s->kind;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* the four prints as one word: kinds in bytes 0, 2, 4, 6 and arms
	 * in the others; kind e moved to bits 2e (the same truncated OR) */
	uint64_t pv;
	memcpy(&pv, s->print, 8);
	uint64_t k = pv & 0x00FF00FF00FF00FFull;
	k |= k >> 14; /* kinds 0 and 1 in bits 0-3, kinds 2 and 3 in bits 32-35 */
	r[1] = (uint8_t)(k | k >> 28);
	/* island and big city both -1: the one word of all ones */
	uint64_t ib;
	memcpy(&ib, &s->island, 8);
	return (pv & 0xFF00FF00FF00FF00ull) | s->arms | ~ib;
#else
	r[1] = (uint8_t)(s->print[0].kind | s->print[1].kind << 2 | s->print[2].kind << 4 | s->print[3].kind << 6);
	return (uint64_t)(s->print[0].arms | s->print[1].arms | s->print[2].arms | s->print[3].arms | s->arms |
	                  (uint32_t)(s->island + 1) | (uint32_t)(s->bigcity + 1));
#endif
}
/* the view reads a square's island and big city as one 8-byte word */
_Static_assert(offsetof(cm_square, bigcity) == offsetof(cm_square, island) + 4,
               "cm_square: bigcity right after island");

/* Frees the buffers of a view (the builder's or the pack reader's) and
 * empties it; an empty view is a no-op. */
void cm__map_grid_free(cm_map_grid *g);

#endif
