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
#include "model/map_struct_int.h"

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
	free(w->only_map);
	free(w->hashes);
	cm_idindex_free(&w->map_ix);
	cm_idindex_free(&w->set_ix);
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
const cm_map *cm_workspace_map(const cm_workspace *w, size_t i) { return i < w->n_maps ? w->maps[i] : NULL; }
size_t cm_workspace_tileset_count(const cm_workspace *w) { return w->n_sets; }
const cm_tileset *cm_workspace_tileset(const cm_workspace *w, size_t i) { return i < w->n_sets ? w->sets[i] : NULL; }
const char *cm_workspace_map_source(const cm_workspace *w, size_t i) { return i < w->n_maps ? w->map_src[i] : NULL; }

const cm_map *cm_workspace_find_map(const cm_workspace *w, const char *id)
{
	size_t i = cm_idindex_find(&w->map_ix, id);
	return i == CM_IDINDEX_NONE ? NULL : w->maps[i];
}

size_t cm__workspace_map_pos(const cm_workspace *w, const cm_map *m)
{
	size_t i = m ? cm_idindex_find(&w->map_ix, m->id ? m->id : "") : CM_IDINDEX_NONE;
	return i != CM_IDINDEX_NONE && w->maps[i] == m ? i : CM_IDINDEX_NONE;
}

const cm_tileset *cm_workspace_find_tileset(const cm_workspace *w, const char *id)
{
	size_t i = cm_idindex_find(&w->set_ix, id);
	return i == CM_IDINDEX_NONE ? NULL : w->sets[i];
}

/* Takes ownership of m (freed on failure). */
int cm_workspace_take_map(cm_workspace *w, cm_map *m, const char *src, cm_diags *d)
{
	/* a partial map (CM_MAP_LOAD_PARTIAL) may lack its id: indexed as "" */
	const char *id = m->id ? m->id : "";
	size_t had = cm_idindex_find(&w->map_ix, id);
	if (had != CM_IDINDEX_NONE) {
		cm_diags_check(d, "CM0006", src, m->line, 0, NULL, "map id '%s' is defined twice (first in %s)",
		               id, w->map_src[had]);
		cm_map_free(m);
		return CM_EINVAL;
	}
	char *s = NULL;
	int rc = 0;
	if (cm_grow((void **)&w->maps, &w->cap_maps, w->n_maps, sizeof *w->maps) ||
	    cm_grow((void **)&w->map_src, &w->cap_src, w->n_maps, sizeof *w->map_src) ||
	    cm_grow((void **)&w->hashes, &w->cap_hashes, w->n_maps, sizeof *w->hashes) ||
	    (src && !(s = cm_strdup(src))))
		rc = CM_ENOMEM;
	if (!rc)
		rc = cm_idindex_add(&w->map_ix, id);
	if (rc) {
		free(s);
		cm_map_free(m);
		return rc;
	}
	w->maps[w->n_maps] = m;
	w->map_src[w->n_maps] = s;
	w->hashes[w->n_maps].known = false;
	w->n_maps++;
	return 0;
}

/* Takes ownership of ts (freed on failure). An id already held is a
 * conflict (CM0006): the loader (io/workspace.c, take_set) keeps one copy
 * of two equal sets before it asks, and search_dir only loads ids not
 * loaded. */
int cm_workspace_take_set(cm_workspace *w, cm_tileset *ts, const char *src, cm_diags *d)
{
	const char *id = ts->id ? ts->id : "";
	size_t had = cm_idindex_find(&w->set_ix, id);
	if (had != CM_IDINDEX_NONE) {
		cm_diags_check(d, "CM0006", src, ts->line, 0, NULL, "tile set id '%s' is defined twice (first in %s)",
		               id, w->set_src[had]);
		cm_tileset_free(ts);
		return CM_EINVAL;
	}
	char *s = NULL;
	int rc = 0;
	if (cm_grow((void **)&w->sets, &w->cap_sets, w->n_sets, sizeof *w->sets) ||
	    cm_grow((void **)&w->set_src, &w->cap_set_src, w->n_sets, sizeof *w->set_src) ||
	    (src && !(s = cm_strdup(src))))
		rc = CM_ENOMEM;
	if (!rc)
		rc = cm_idindex_add(&w->set_ix, id);
	if (rc) {
		free(s);
		cm_tileset_free(ts);
		return rc;
	}
	w->sets[w->n_sets] = ts;
	w->set_src[w->n_sets] = s;
	w->n_sets++;
	return 0;
}

void cm_workspace_set_map_flags(cm_workspace *w, unsigned flags)
{
	w->map_flags = flags & CM_MAP_LOAD_PARTIAL;
}

static int cmp_set_id(const void *a, const void *b)
{
	return strcmp((*(const cm_tileset *const *)a)->id, (*(const cm_tileset *const *)b)->id);
}

int cm_workspace_map_sets(const cm_workspace *w, const cm_map *m, const cm_tileset ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	const cm_tileset **v = malloc((m->n_deck + 1) * sizeof *v);
	if (!v)
		return CM_ENOMEM;
	size_t k = 0, u = 0;
	for (size_t i = 0; i < m->n_deck; i++) {
		const cm_tileset *ts = cm_workspace_find_tileset(w, m->deck[i].tileset);
		if (ts)
			v[k++] = ts;
	}
	/* sorted, then each set once (ids are unique: equal ids, one set) */
	qsort(v, k, sizeof *v, cmp_set_id);
	for (size_t i = 0; i < k; i++)
		if (!u || v[u - 1] != v[i])
			v[u++] = v[i];
	k = u;
	*out = v;
	*n = k;
	return 0;
}
