/* SPDX-License-Identifier: MIT */
/* map_combine.c: two maps made one (MAP-HALF), through a builder: the
 * east map laid over the west map at the seam, half squares paired,
 * islands, big cities and ferries of both kept. Loading the halves, and
 * finishing the combination, is the reader's (io/map_xml.c). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/map.h"
#include "model/map_builder_int.h"
#include "model/map_int.h"
#include "base/util_int.h"

/* Copies what square (sx,sy) of src keeps beside the grid to (x,y) of dst:
 * the name unless dst has one, the markers after dst's, and with labels
 * the print labels. */
static int copy_extra(cm_map_builder *dst, int x, int y, const cm_map *src, int sx, int sy, bool labels)
{
	const cm_square_extra *e = cm_map_extra_find(src, sy * src->cols + sx);
	if (!e)
		return 0;
	if (e->name && !cm_map_square_name(cm__map_builder_view(dst), x, y) &&
	    cm_map_builder_set_square_name(dst, x, y, e->name))
		return CM_ENOMEM;
	for (size_t i = 0; i < e->n_markers; i++)
		if (cm_map_builder_add_marker(dst, x, y, e->markers[i]))
			return CM_ENOMEM;
	for (int s = 0; labels && s < MAX_SIDE; s++)
		if (e->label[s] && cm_map_builder_set_print_label(dst, x, y, (cm_side)s, e->label[s]))
			return CM_ENOMEM;
	return 0;
}

/* Copies square (sx,sy) of src into the empty square (x,y) of dst. Plain
 * neutral prints are dropped: they are the default, recomputed on the
 * combined grid (a side that faced a half square faces land once the
 * halves pair). */
static int copy_square(cm_map_builder *dst, int x, int y, const cm_map *src, int sx, int sy, int island_off,
                       int bigcity_off, unsigned line)
{
	const cm_square *s = cm__map_at(src, sx, sy);
	cm_square t = *cm_map_builder_square(dst, x, y);
	t.kind = s->kind;
	t.arms = s->arms;
	t.island = s->island >= 0 ? s->island + island_off : -1;
	t.bigcity = s->bigcity >= 0 ? s->bigcity + bigcity_off : -1;
	t.line = line;
	if (copy_extra(dst, x, y, src, sx, sy, true))
		return CM_ENOMEM;
	for (int k = 0; k < MAX_SIDE; k++) {
		const cm_edge_print *p = &s->print[k];
		if (p->kind == CM_PRINT_NEUTRAL && !p->arms && !cm_map_print_label(src, sx, sy, (cm_side)k))
			continue;
		t.print[k] = *p;
		if (cm_map_builder_set_print_line(dst, x, y, (cm_side)k, line))
			return CM_ENOMEM;
	}
	return cm_map_builder_set_square(dst, x, y, &t);
}

static void report(cm_diags *d, const char *file, unsigned line, const char *id, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static void report(cm_diags *d, const char *file, unsigned line, const char *id, const char *fmt, ...)
{
	cm_diag_scope s;
	cm_diag_scope_init(&s, d, file);
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(&s, id, line, 0, NULL, fmt, ap);
	va_end(ap);
}

/* The islands, big cities (with their pieces) and ferries of both halves,
 * in that order, the east map's moved by (ox[1], oy[1]), all on the
 * <combine> element's line. */
static int copy_parts(cm_map_builder *b, const cm_map *const half[2], const int ox[2], const int oy[2],
                      unsigned line)
{
	for (int h = 0; h < 2; h++)
		for (size_t i = 0; i < half[h]->n_islands; i++)
			if (cm_map_builder_add_island(b, half[h]->islands[i].name, half[h]->islands[i].title, line, NULL))
				return CM_ENOMEM;
	size_t city = 0;
	for (int h = 0; h < 2; h++)
		for (size_t i = 0; i < half[h]->n_bigcities; i++, city++) {
			const cm_bigcity *sb = &half[h]->bigcities[i];
			if (cm_map_builder_add_bigcity(b, sb->name, line, NULL))
				return CM_ENOMEM;
			for (size_t k = 0; k < sb->n_pieces; k++) {
				cm_tile_type t = sb->pieces[k].tile;
				t.line = line;
				if (cm_map_builder_add_piece(b, city, sb->pieces[k].x + ox[h], sb->pieces[k].y + oy[h], &t))
					return CM_ENOMEM;
			}
		}
	for (int h = 0; h < 2; h++)
		for (size_t i = 0; i < half[h]->n_ferries; i++) {
			cm_ferry f = half[h]->ferries[i];
			f.x1 += ox[h];
			f.x2 += ox[h];
			f.y1 += oy[h];
			f.y2 += oy[h];
			f.line = line;
			if (cm_map_builder_add_ferry(b, &f))
				return CM_ENOMEM;
		}
	return 0;
}

/* Lays both halves' squares on b's grid: two half squares on one place
 * become a land square; seam squares of any other kinds are reported
 * (CM0215). */
static int lay_squares(cm_map_builder *b, const cm_map *const half[2], const int ox[2], const int oy[2],
                       const char *file, unsigned line, cm_diags *d)
{
	const int isl_off[2] = { 0, (int)half[0]->n_islands }, bc_off[2] = { 0, (int)half[0]->n_bigcities };
	for (int h = 0; h < 2; h++) {
		const cm_map *src = half[h];
		for (int y = 0; y < src->rows; y++)
			for (int x = 0; x < src->cols; x++) {
				const cm_square *s = cm__map_at(src, x, y);
				cm_square t = *cm_map_builder_square(b, x + ox[h], y + oy[h]);
				int rc;
				if (s->kind == CM_SQ_NONE)
					continue;
				if (t.kind == CM_SQ_NONE) {
					if ((rc = copy_square(b, x + ox[h], y + oy[h], src, x, y, isl_off[h], bc_off[h], line)))
						return rc;
					continue;
				}
				/* only the seam column holds squares of both maps */
				if (t.kind == CM_SQ_HALF && s->kind == CM_SQ_HALF) {
					t.kind = CM_SQ_LAND;
					t.arms = (uint8_t)(t.arms + s->arms);
					if ((rc = cm_map_builder_set_square(b, x + ox[h], y + oy[h], &t)) ||
					    (rc = copy_extra(b, x + ox[h], y + oy[h], src, x, y, false)))
						return rc;
				} else if (t.kind != CM_SQ_HALF && s->kind != CM_SQ_HALF) {
					report(d, file, line, "CM0215",
					       "seam square (%d,%d) is %s on the west map and %s on the east map", x + ox[h],
					       y + oy[h], cm_square_kind_name(t.kind), cm_square_kind_name(s->kind));
				}
				/* a half square meeting a whole one stays half: reported below */
			}
	}
	const cm_map *m = cm__map_builder_view(b), *w = half[0];
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			if (cm__map_at(m, x, y)->kind != CM_SQ_HALF)
				continue;
			int wy = y - oy[0];
			bool west = x < ox[1] || (x == ox[1] && wy >= 0 && wy < w->rows &&
			                          cm__map_at(w, x, wy)->kind == CM_SQ_HALF);
			report(d, file, line, "CM0215", "half square (%d,%d) of the %s map pairs with no half square of the %s map",
			       x, y, west ? "west" : "east", west ? "east" : "west");
		}
	return 0;
}

/* Places both halves on one grid (MAP-HALF): the east map is laid over the
 * west map so that the east map's column 0 is the west map's last column,
 * shifted dy rows down. Two half squares on one place become a land square;
 * a half square left alone is reported (CM0215). Elements copied from the
 * halves take the <combine> element's line: they were checked in their own
 * files already, and what is left to report is about the seam. */
int cm_map_combine(const cm_map *w, const cm_map *e, int dy_in, const char *file, unsigned line,
                   cm_diags *d, cm_map_builder **out)
{
	*out = NULL;
	long long dy = dy_in;
	long long y0 = dy < 0 ? dy : 0;
	long long cols = (long long)w->cols + e->cols - 1;
	long long rows = ((long long)w->rows > dy + e->rows ? (long long)w->rows : dy + e->rows) - y0;
	if (cols > CM_GRID_MAX || rows > CM_GRID_MAX) {
		report(d, file, line, "CM0217", "combined map of %lld x %lld squares is larger than %d x %d", cols,
		       rows, CM_GRID_MAX, CM_GRID_MAX);
		return CM_EINVAL;
	}
	cm_map_builder *b = NULL;
	int rc = cm_map_builder_new((int)cols, (int)rows, &b);
	if (rc)
		return rc;
	const int ox[2] = { 0, w->cols - 1 }, oy[2] = { (int)-y0, (int)(dy - y0) };
	const cm_map *const half[2] = { w, e };
	/* the islands and big cities first: the squares name them */
	if ((rc = cm_map_builder_set_seam(b, ox[1])) || (rc = copy_parts(b, half, ox, oy, line)) ||
	    (rc = lay_squares(b, half, ox, oy, file, line, d))) {
		cm_map_builder_free(b);
		return rc;
	}
	*out = b;
	return 0;
}
