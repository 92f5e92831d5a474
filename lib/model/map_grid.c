/* SPDX-License-Identifier: MIT */
/* map_grid.c: the packed grid view of a map (model/map_grid_int.h): its
 * squares' kinds and print kinds two bytes each, and the few squares that
 * carry more, from one pass over a million squares. */
#include <stdlib.h>
#include <string.h>
#include "model/map_grid_int.h"
#include "model/map_int.h"

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
				more |= cm__map_grid_pack(&s8[j], g8 + 2 * j);
		} else {
			for (size_t j = 0; j < n8; j++)
				more |= cm__map_grid_pack(&s8[j], g8 + 2 * j);
		}
		uint32_t look = has[i0 / 8]; /* bit j: square i0 + j is listed */
		for (size_t j = 0; more && j < n8; j++)
			look |= (uint32_t)(cm__map_grid_pack(&s8[j], g8 + 2 * j) != 0) << j;
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

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

int cm__map_grid_adopt(const cm_map *m, uint8_t *grid, size_t *sq, size_t n, cm_map_grid *out)
{
	memset(out, 0, sizeof *out);
	size_t n_sq = (size_t)m->cols * (size_t)m->rows, n_x = cm_map_extra_count(m), k = 0;
	size_t *x = malloc((n_x + 1) * sizeof *x), *all = malloc((n + n_x + 1) * sizeof *all);
	if (!x || !all) {
		free(x);
		free(all);
		free(grid);
		free(sq);
		return CM_ENOMEM;
	}
	for (size_t i = 0; i < n_x; i++) {
		size_t e = (size_t)cm_map_extra_nth(m, i)->sq;
		if (e < n_sq)
			x[k++] = e;
	}
	qsort(x, k, sizeof *x, cmp_size);
	/* both increasing: merged, each square once */
	size_t a = 0, b = 0, o = 0;
	while (a < n || b < k) {
		size_t v = b == k || (a < n && sq[a] <= x[b]) ? sq[a] : x[b];
		a += a < n && sq[a] == v;
		while (b < k && x[b] == v)
			b++;
		all[o++] = v;
	}
	free(x);
	free(sq);
	out->grid = grid;
	out->sq = all;
	out->n_sq = o;
	return 0;
}

void cm__map_grid_free(cm_map_grid *g)
{
	free((void *)(uintptr_t)g->grid);
	free((void *)(uintptr_t)g->sq);
	memset(g, 0, sizeof *g);
}
