/* SPDX-License-Identifier: MIT */
/* legend.c: legends as a model (carcamap/image.h): the colours that stand
 * for square kinds, the built-in legend (the palette's colours) and the
 * choice of a square's colour, which rendering uses too. Reading legend
 * files and images is io/image.c. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/image.h"
#include "carcamap/palette.h"
#include "model/map_int.h"
#include "base/util_int.h"

void cm_legend_free(cm_legend *lg)
{
	if (!lg)
		return;
	for (size_t i = 0; i < lg->n_colours; i++) {
		free(lg->colours[i].island);
		free(lg->colours[i].name);
		free(lg->colours[i].marker);
	}
	free(lg->colours);
	free(lg->file);
	free(lg);
}

/* Built-in colours, by kind: sea for none, greens for land, browns for
 * towns and cities, blue waves, grey landmarks, straw for half squares. */

int cm_legend_default(cm_legend **out)
{
	*out = NULL;
	cm_legend *lg = calloc(1, sizeof *lg);
	if (!lg || !(lg->colours = calloc(CM_SQ_KIND_COUNT, sizeof *lg->colours))) {
		free(lg);
		return CM_ENOMEM;
	}
	lg->grid = (cm_legend_grid){ 0, 0, 1, 1, 0, 0, 1 };
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++) {
		cm_legend_colour *c = &lg->colours[k];
		cm_rgb p = cm_palette_square((cm_square_kind)k);
		c->r = p.r;
		c->g = p.g;
		c->b = p.b;
		c->a = 255;
		c->kind = (cm_square_kind)k;
		/* every island square imported with the built-in legend joins one island */
		if (k == CM_SQ_ISLAND && !(c->island = cm_strdup("island"))) {
			lg->n_colours = CM_SQ_KIND_COUNT;
			cm_legend_free(lg);
			return CM_ENOMEM;
		}
	}
	lg->n_colours = CM_SQ_KIND_COUNT;
	*out = lg;
	return 0;
}

static int str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int has_marker(const cm_square_extra *e, const char *marker)
{
	for (size_t i = 0; e && i < e->n_markers; i++)
		if (strcmp(e->markers[i], marker) == 0)
			return 1;
	return 0;
}

const cm_legend_colour *cm_legend_find(const cm_legend *lg, const cm_map *m, int x, int y)
{
	static const cm_square none_sq = { .kind = CM_SQ_NONE, .island = -1, .bigcity = -1 };
	const cm_square *s = cm__map_at(m, x, y);
	const cm_square_extra *e = s ? cm_map_extra_find(m, y * m->cols + x) : NULL;
	if (!s)
		s = &none_sq;
	const char *name = e ? e->name : NULL;
	const char *island = s->island >= 0 && (size_t)s->island < m->n_islands ? m->islands[s->island].name : NULL;
	const cm_legend_colour *best = NULL;
	int best_score = -1;
	for (size_t i = 0; i < lg->n_colours; i++) {
		const cm_legend_colour *c = &lg->colours[i];
		if (c->kind != s->kind)
			continue;
		/* an attribute the colour gives but the square lacks disqualifies
		 * it (importing it would add what the square has not) */
		if ((c->island && !str_eq(c->island, island)) || (c->name && !str_eq(c->name, name)) ||
		    (c->marker && !has_marker(e, c->marker)) || (c->arms && c->arms != s->arms))
			continue;
		int score = (c->island != NULL) + (c->name != NULL) + (c->marker != NULL) + (c->arms != 0);
		if (score > best_score) {
			best = c;
			best_score = score;
		}
	}
	if (!best) /* fall back to any colour of the kind */
		for (size_t i = 0; i < lg->n_colours && !best; i++)
			if (lg->colours[i].kind == s->kind)
				best = &lg->colours[i];
	return best;
}
