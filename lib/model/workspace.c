/* SPDX-License-Identifier: MIT */
/* workspace.c: the workspace as a model (carcamap/workspace.h): the maps
 * and tile sets one command works on, their sources, ids unique across
 * inputs, and the tile sets of a map's deck. The validator and statistics
 * work from it; loading files into it is io/workspace.c. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/workspace.h"
#include "model/workspace_int.h"
#include "base/util_int.h"

int cm_workspace_new(cm_workspace **out)
{
	*out = calloc(1, sizeof **out);
	if (*out)
		(*out)->printing = -1; /* every printing */
	return *out ? 0 : CM_ENOMEM;
}

void cm_workspace_free(cm_workspace *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_maps; i++) {
		cm_map_free(w->maps[i]);
		free(w->map_src[i]);
	}
	for (size_t i = 0; i < w->n_sets; i++) {
		cm_tileset_free(w->sets[i]);
		free(w->set_src[i]);
	}
	for (size_t i = 0; i < w->n_dirs; i++)
		free(w->dirs[i]);
	free(w->maps);
	free(w->map_src);
	free(w->sets);
	free(w->set_src);
	free(w->dirs);
	free(w->hashes);
	free(w);
}

int cm_workspace_add_tileset_dir(cm_workspace *w, const char *dir)
{
	if (cm_grow((void **)&w->dirs, &w->cap_dirs, w->n_dirs, sizeof *w->dirs))
		return CM_ENOMEM;
	if (!(w->dirs[w->n_dirs] = cm_strdup(dir)))
		return CM_ENOMEM;
	w->n_dirs++;
	return 0;
}

size_t cm_workspace_map_count(const cm_workspace *w) { return w->n_maps; }
cm_map *cm_workspace_map(const cm_workspace *w, size_t i) { return i < w->n_maps ? w->maps[i] : NULL; }
size_t cm_workspace_tileset_count(const cm_workspace *w) { return w->n_sets; }
cm_tileset *cm_workspace_tileset(const cm_workspace *w, size_t i) { return i < w->n_sets ? w->sets[i] : NULL; }
const char *cm_workspace_map_source(const cm_workspace *w, size_t i) { return i < w->n_maps ? w->map_src[i] : NULL; }

cm_map *cm_workspace_find_map(const cm_workspace *w, const char *id)
{
	for (size_t i = 0; i < w->n_maps; i++)
		if (strcmp(w->maps[i]->id, id) == 0)
			return w->maps[i];
	return NULL;
}

cm_tileset *cm_workspace_find_tileset(const cm_workspace *w, const char *id)
{
	for (size_t i = 0; i < w->n_sets; i++)
		if (strcmp(w->sets[i]->id, id) == 0)
			return w->sets[i];
	return NULL;
}

/* Takes ownership of m (freed on failure). */
int cm_workspace_take_map(cm_workspace *w, cm_map *m, const char *src, cm_diags *d)
{
	for (size_t i = 0; i < w->n_maps; i++)
		if (strcmp(w->maps[i]->id, m->id) == 0) {
			cm_diags_check(d, "CM0006", src, m->line, 0, NULL, "map id '%s' is defined twice (first in %s)",
			               m->id, w->map_src[i]);
			cm_map_free(m);
			return CM_EINVAL;
		}
	if (cm_grow((void **)&w->maps, &w->cap_maps, w->n_maps, sizeof *w->maps) ||
	    cm_grow((void **)&w->map_src, &w->cap_src, w->n_maps, sizeof *w->map_src)) {
		cm_map_free(m);
		return CM_ENOMEM;
	}
	w->maps[w->n_maps] = m;
	w->map_src[w->n_maps] = cm_strdup(src);
	w->n_maps++;
	return 0;
}

/* Takes ownership of ts (freed on failure). An id already held is a
 * conflict (CM0006): the loader (io/workspace.c, take_set) keeps one copy
 * of two equal sets before it asks, and search_dir only loads ids not
 * loaded. */
int cm_workspace_take_set(cm_workspace *w, cm_tileset *ts, const char *src, cm_diags *d)
{
	for (size_t i = 0; i < w->n_sets; i++)
		if (strcmp(w->sets[i]->id, ts->id) == 0) {
			cm_diags_check(d, "CM0006", src, ts->line, 0, NULL,
			               "tile set id '%s' is defined twice (first in %s)", ts->id, w->set_src[i]);
			cm_tileset_free(ts);
			return CM_EINVAL;
		}
	if (cm_grow((void **)&w->sets, &w->cap_sets, w->n_sets, sizeof *w->sets) ||
	    cm_grow((void **)&w->set_src, &w->cap_set_src, w->n_sets, sizeof *w->set_src)) {
		cm_tileset_free(ts);
		return CM_ENOMEM;
	}
	w->sets[w->n_sets] = ts;
	w->set_src[w->n_sets] = cm_strdup(src);
	w->n_sets++;
	return 0;
}

void cm_workspace_set_map_flags(cm_workspace *w, unsigned flags)
{
	w->map_flags = flags & CM_MAP_LOAD_PARTIAL;
}

static int cmp_set_id(const void *a, const void *b)
{
	return strcmp((*(cm_tileset *const *)a)->id, (*(cm_tileset *const *)b)->id);
}

int cm_workspace_map_sets(const cm_workspace *w, const cm_map *m, cm_tileset ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	cm_tileset **v = malloc((m->n_deck + 1) * sizeof *v);
	if (!v)
		return CM_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < m->n_deck; i++) {
		cm_tileset *ts = cm_workspace_find_tileset(w, m->deck[i].tileset);
		int dup = 0;
		for (size_t j = 0; j < k; j++)
			dup |= v[j] == ts;
		if (ts && !dup)
			v[k++] = ts;
	}
	qsort(v, k, sizeof *v, cmp_set_id);
	*out = v;
	*n = k;
	return 0;
}
