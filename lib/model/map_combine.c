/* SPDX-License-Identifier: MIT */
/* map_combine.c: two maps made one (MAP-HALF): the east map laid over the
 * west map at the seam, half squares paired, islands, big cities and
 * ferries of both kept. Loading the halves is the reader's (io/map_xml.c). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/map.h"
#include "model/map_int.h"
#include "base/util_int.h"

/* Deep copies of model parts, for combined maps. */
static int copy_tile(cm_tile_type *dst, const cm_tile_type *src)
{
	memset(dst, 0, sizeof *dst);
	*dst = *src;
	dst->id = NULL;
	dst->name = NULL;
	dst->features = NULL;
	dst->contacts = NULL;
	dst->n_features = dst->n_contacts = 0;
	dst->markers = NULL; /* a piece has none; never share a list */
	dst->n_markers = 0;
	if (src->n_features) {
		dst->features = calloc(src->n_features, sizeof *dst->features);
		if (!dst->features)
			return CM_ENOMEM;
		for (size_t i = 0; i < src->n_features; i++) {
			dst->features[i] = src->features[i];
			dst->features[i].id = NULL;
			dst->n_features = i + 1;
			if (src->features[i].id && !(dst->features[i].id = cm_strdup(src->features[i].id)))
				return CM_ENOMEM;
		}
	}
	if (src->n_contacts) {
		dst->contacts = malloc(src->n_contacts * sizeof *dst->contacts);
		if (!dst->contacts)
			return CM_ENOMEM;
		memcpy(dst->contacts, src->contacts, src->n_contacts * sizeof *dst->contacts);
		dst->n_contacts = src->n_contacts;
	}
	if ((src->id && !(dst->id = cm_strdup(src->id))) || (src->name && !(dst->name = cm_strdup(src->name))))
		return CM_ENOMEM;
	return 0;
}

/* Copies what square (sx,sy) of src keeps beside the grid to (x,y) of dst:
 * the name unless dst has one, the markers after dst's, and with labels
 * the print labels. */
static int copy_extra(cm_map *dst, int x, int y, const cm_map *src, int sx, int sy, bool labels)
{
	const cm_square_extra *e = cm_map_extra_find(src, sy * src->cols + sx);
	if (!e)
		return 0;
	if (e->name && !cm_map_square_name(dst, x, y) && cm_map_set_square_name(dst, x, y, e->name))
		return CM_ENOMEM;
	for (size_t i = 0; i < e->n_markers; i++)
		if (cm_map_add_square_marker(dst, x, y, e->markers[i]))
			return CM_ENOMEM;
	for (int s = 0; labels && s < MAX_SIDE; s++)
		if (e->label[s] && cm_map_set_print_label(dst, x, y, (cm_side)s, e->label[s]))
			return CM_ENOMEM;
	return 0;
}

/* Copies square (sx,sy) of src into the empty square (x,y) of dst. Plain
 * neutral prints are dropped: they are the default, recomputed on the
 * combined grid (a side that faced a half square faces land once the
 * halves pair). */
static int copy_square(cm_map *dst, int x, int y, const cm_map *src, int sx, int sy, int island_off,
                       int bigcity_off, unsigned line)
{
	cm_square *t = cm_map_at_mut(dst, x, y);
	const cm_square *s = cm_map_at(src, sx, sy);
	t->kind = s->kind;
	t->arms = s->arms;
	t->island = s->island >= 0 ? s->island + island_off : -1;
	t->bigcity = s->bigcity >= 0 ? s->bigcity + bigcity_off : -1;
	t->line = line;
	if (copy_extra(dst, x, y, src, sx, sy, true))
		return CM_ENOMEM;
	for (int k = 0; k < MAX_SIDE; k++) {
		const cm_edge_print *p = &s->print[k];
		if (p->kind == CM_PRINT_NEUTRAL && !p->arms && !cm_map_print_label(src, sx, sy, (cm_side)k))
			continue;
		t->print[k] = *p;
		if (cm_map_set_print_line(dst, x, y, (cm_side)k, line))
			return CM_ENOMEM;
	}
	return 0;
}

static void report(cm_diags *d, const char *file, unsigned line, const char *id, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static void report(cm_diags *d, const char *file, unsigned line, const char *id, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_diags_check(d, id, file, line, 0, NULL, "%s", msg ? msg : "out of memory");
	free(msg);
}

/* Places both halves on one grid (MAP-HALF): the east map is laid over the
 * west map so that the east map's column 0 is the west map's last column,
 * shifted dy rows down. Two half squares on one place become a land square;
 * a half square left alone is reported (CM0215). Elements copied from the
 * halves take the <combine> element's line: they were checked in their own
 * files already, and what is left to report is about the seam. */
int cm_map_combine(const cm_map *w, const cm_map *e, int dy_in, const char *file, unsigned line,
                   cm_diags *d, cm_map **out)
{
	*out = NULL;
	cm_map *m = NULL;
	int rc = 0;
	long long dy = dy_in;
	long long y0 = dy < 0 ? dy : 0;
	long long cols = (long long)w->cols + e->cols - 1;
	long long rows = ((long long)w->rows > dy + e->rows ? (long long)w->rows : dy + e->rows) - y0;
	if (cols > CM_MAP_MAX_GRID || rows > CM_MAP_MAX_GRID) {
		report(d, file, line, "CM0217", "combined map of %lld x %lld squares is larger than %d x %d", cols,
		          rows, CM_MAP_MAX_GRID, CM_MAP_MAX_GRID);
		rc = CM_EINVAL;
		goto out;
	}
	if ((rc = cm_map_new((int)cols, (int)rows, &m)))
		goto out;
	const int ox[2] = { 0, w->cols - 1 }, oy[2] = { (int)-y0, (int)(dy - y0) };
	m->seam = ox[1];
	const int isl_off[2] = { 0, (int)w->n_islands }, bc_off[2] = { 0, (int)w->n_bigcities };
	for (int h = 0; h < 2; h++) {
		const cm_map *src = h ? e : w;
		for (int y = 0; y < src->rows; y++)
			for (int x = 0; x < src->cols; x++) {
				const cm_square *s = cm_map_at(src, x, y);
				cm_square *t = cm_map_at_mut(m, x + ox[h], y + oy[h]);
				if (s->kind == CM_SQ_NONE)
					continue;
				if (t->kind == CM_SQ_NONE) {
					if ((rc = copy_square(m, x + ox[h], y + oy[h], src, x, y, isl_off[h], bc_off[h], line)))
						goto out;
					continue;
				}
				/* only the seam column holds squares of both maps */
				if (t->kind == CM_SQ_HALF && s->kind == CM_SQ_HALF) {
					t->kind = CM_SQ_LAND;
					t->arms = (uint8_t)(t->arms + s->arms);
					if ((rc = copy_extra(m, x + ox[h], y + oy[h], src, x, y, false)))
						goto out;
				} else if (t->kind != CM_SQ_HALF && s->kind != CM_SQ_HALF) {
					report(d, file, line, "CM0215",
					          "seam square (%d,%d) is %s on the west map and %s on the east map",
					          x + ox[h], y + oy[h], cm_square_kind_name(t->kind),
					          cm_square_kind_name(s->kind));
				}
				/* a half square meeting a whole one stays half: reported below */
			}
	}
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			if (cm_map_at(m, x, y)->kind != CM_SQ_HALF)
				continue;
			int wy = y - oy[0];
			bool west = x < ox[1] || (x == ox[1] && wy >= 0 && wy < w->rows &&
			                          cm_map_at(w, x, wy)->kind == CM_SQ_HALF);
			report(d, file, line, "CM0215", "half square (%d,%d) of the %s map pairs with no half square of the %s map",
			          x, y, west ? "west" : "east", west ? "east" : "west");
		}
	/* islands, big cities and ferries of both halves, in that order */
	size_t ni = w->n_islands + e->n_islands, nb = w->n_bigcities + e->n_bigcities,
	       nf = w->n_ferries + e->n_ferries;
	if ((ni && !(m->islands = calloc(ni, sizeof *m->islands))) ||
	    (nb && !(m->bigcities = calloc(nb, sizeof *m->bigcities))) ||
	    (nf && !(m->ferries = calloc(nf, sizeof *m->ferries)))) {
		rc = CM_ENOMEM;
		goto out;
	}
	for (int h = 0; h < 2; h++) {
		const cm_map *src = h ? e : w;
		for (size_t i = 0; i < src->n_islands; i++) {
			cm_island *t = &m->islands[m->n_islands++];
			t->line = line;
			if (!(t->name = cm_strdup(src->islands[i].name)) ||
			    (src->islands[i].title && !(t->title = cm_strdup(src->islands[i].title)))) {
				rc = CM_ENOMEM;
				goto out;
			}
		}
		for (size_t i = 0; i < src->n_bigcities; i++) {
			const cm_bigcity *sb = &src->bigcities[i];
			cm_bigcity *t = &m->bigcities[m->n_bigcities++];
			t->line = line;
			if ((sb->name && !(t->name = cm_strdup(sb->name))) ||
			    !(t->pieces = calloc(sb->n_pieces ? sb->n_pieces : 1, sizeof *t->pieces))) {
				rc = CM_ENOMEM;
				goto out;
			}
			for (size_t k = 0; k < sb->n_pieces; k++) {
				cm_bigcity_piece *tp = &t->pieces[t->n_pieces++];
				tp->x = sb->pieces[k].x + ox[h];
				tp->y = sb->pieces[k].y + oy[h];
				if ((rc = copy_tile(&tp->tile, &sb->pieces[k].tile)))
					goto out;
				tp->tile.line = line;
			}
		}
		for (size_t i = 0; i < src->n_ferries; i++) {
			const cm_ferry *sf = &src->ferries[i];
			cm_ferry *t = &m->ferries[m->n_ferries++];
			*t = *sf;
			t->name = NULL;
			t->x1 += ox[h];
			t->x2 += ox[h];
			t->y1 += oy[h];
			t->y2 += oy[h];
			t->line = line;
			if (sf->name && !(t->name = cm_strdup(sf->name))) {
				rc = CM_ENOMEM;
				goto out;
			}
		}
	}
out:
	if (rc) {
		cm_map_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

