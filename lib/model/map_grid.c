/* SPDX-License-Identifier: MIT */
/* map_grid.c: the packed grid view of a map (model/map_grid_int.h): its
 * squares' kinds and print kinds two bytes each, and the few squares that
 * carry more, from one pass over a million squares. */
#include <stdlib.h>
#include <string.h>
#include "model/map_grid_int.h"
#include "model/map_int.h"

/* the view reads a square's island and big city as one 8-byte word */
_Static_assert(offsetof(cm_square, bigcity) == offsetof(cm_square, island) + 4,
               "cm_square: bigcity right after island");

/* A bit per square of m: it has an entry beside the grid. */
static uint8_t *extras_bits(const cm_map *m, size_t n_sq)
{
	uint8_t *has = calloc(n_sq / 8 + 1, 1);
	for (size_t i = 0; has && i < cm_map_extra_count(m); i++) {
		size_t k = (size_t)cm_map_extra_nth(m, i)->sq;
		if (k < n_sq)
			has[k / 8] = (uint8_t)(has[k / 8] | 1u << (k % 8));
	}
	return has;
}

/* The two bytes of square s at r; nonzero when it carries more than them. */
static inline uint64_t pack_square(const cm_square *s, uint8_t *r)
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

int cm__map_grid_build(const cm_map *m, cm_map_grid *out)
{
	memset(out, 0, sizeof *out);
	size_t n_sq = (size_t)m->cols * (size_t)m->rows, n = 0, cap = 64;
	if (n_sq >= 0xFFFFFFFFu / 2)
		return CM_ELIMIT;
	uint8_t *has = extras_bits(m, n_sq), *g = malloc(2 * n_sq + 1);
	size_t *sq = malloc(cap * sizeof *sq);
	int rc = has && g && sq ? 0 : CM_ENOMEM;
	/* eight squares at a time (one byte of has): their records and
	 * whether any needs a look of its own, without a branch per square;
	 * which ones, only when one does (seldom: packed again, the same) */
	for (size_t i0 = 0; !rc && i0 < n_sq; i0 += 8) {
		size_t n8 = n_sq - i0 < 8 ? n_sq - i0 : 8;
		const cm_square *s8 = &m->squares[i0];
		uint8_t *g8 = g + 2 * i0;
		uint64_t more = 0;
		if (n8 == 8) {
			/* a fixed count, unrolled: no loop step per square */
#pragma GCC unroll 8
			for (size_t j = 0; j < 8; j++)
				more |= pack_square(&s8[j], g8 + 2 * j);
		} else {
			for (size_t j = 0; j < n8; j++)
				more |= pack_square(&s8[j], g8 + 2 * j);
		}
		uint32_t look = has[i0 / 8]; /* bit j: square i0 + j is listed */
		for (size_t j = 0; more && j < n8; j++)
			look |= (uint32_t)(pack_square(&s8[j], g8 + 2 * j) != 0) << j;
		for (size_t j = 0; look && j < n8; j++) {
			if (!(look >> j & 1u))
				continue;
			size_t i = i0 + j;
			if (n == cap) {
				size_t *p = realloc(sq, 2 * cap * sizeof *sq);
				if (!p) {
					rc = CM_ENOMEM;
					break;
				}
				sq = p;
				cap *= 2;
			}
			sq[n++] = i;
		}
	}
	free(has);
	if (rc) {
		free(g);
		free(sq);
		return rc;
	}
	out->grid = g;
	out->sq = sq;
	out->n_sq = n;
	return 0;
}

void cm__map_grid_free(cm_map_grid *g)
{
	free((void *)(uintptr_t)g->grid);
	free((void *)(uintptr_t)g->sq);
	memset(g, 0, sizeof *g);
}
