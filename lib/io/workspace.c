/* SPDX-License-Identifier: MIT */
/* workspace.c: loading what one command works on (carcamap/workspace.h):
 * tile sets, map descriptors with their images, TMX files and packs into
 * the workspace (model/workspace.c keeps them, ids unique across inputs);
 * resolves decks against loaded sets and search directories. */
#include <dirent.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/carcamap.h"
#include "carcamap/pack.h"
#include "carcamap/tileset.h"
#include "carcamap/tmx.h"
#include "carcamap/workspace.h"
#include "model/workspace_int.h"
#include "base/util_int.h"
#include "io/pack_int.h"
#include "io/xml_int.h"

void cm_workspace_set_printing(cm_workspace *w, int printing)
{
	w->printing = printing < 0 || printing >= CM_EDITION_COUNT ? -1 : printing;
}

/* Whether two tile sets hold the same content: their canonical
 * descriptors (cm_tileset_write_xml) are the same bytes. */
static bool same_set(const cm_tileset *a, const cm_tileset *b)
{
	char *ba = NULL, *bb = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&ba, &la), *fb = open_memstream(&bb, &lb);
	bool ok = fa && fb && cm_tileset_write_xml(a, fa) == 0 && cm_tileset_write_xml(b, fb) == 0;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	ok = ok && la == lb && memcmp(ba, bb, la) == 0;
	free(ba);
	free(bb);
	return ok;
}

/* cm_workspace_take_set, except that a set equal to one already loaded
 * (two packs built from the same sets, a file given twice) is no
 * conflict: one copy is kept. Takes ownership of ts. */
static int take_set(cm_workspace *w, cm_tileset *ts, const char *src, cm_diags *d)
{
	const cm_tileset *had = ts && ts->id ? cm_workspace_find_tileset(w, ts->id) : NULL;
	if (had && same_set(had, ts)) {
		cm_tileset_free(ts);
		return 0;
	}
	return cm_workspace_take_set(w, ts, src, d);
}

/* The same for maps (cm_map_equal). */
static int take_map(cm_workspace *w, cm_map *m, const char *src, cm_diags *d)
{
	const cm_map *had = m && m->id ? cm_workspace_find_map(w, m->id) : NULL;
	if (had && cm_map_equal(had, m)) {
		cm_map_free(m);
		return 0;
	}
	return cm_workspace_take_map(w, m, src, d);
}

static int load_pack(cm_workspace *w, const char *path, cm_diags *d)
{
	cm_pack *p = NULL;
	int rc = cm_pack_open(path, d, &p);
	if (rc)
		return rc;
	for (size_t i = 0; i < cm_pack_tileset_count(p) && rc != CM_ENOMEM; i++) {
		cm_tileset *ts = NULL;
		int r = cm_pack_read_tileset(p, cm_pack_tileset_id(p, i), d, &ts);
		if (!r)
			r = take_set(w, ts, path, d);
		if (r && !rc)
			rc = r;
	}
	for (size_t i = 0; i < cm_pack_map_count(p) && rc != CM_ENOMEM; i++) {
		cm_map *m = NULL;
		/* the stored hash must match the content: a pack edited outside
		 * carcamap is reported (CM0408) before anything uses it */
		const char *id = cm_pack_map_id(p, i);
		int r = cm_pack_read_map_verified(p, id, d, &m);
		uint8_t h[32];
		bool known = !r && cm__pack_hash_version(p) == CM_MAP_HASH_VERSION &&
		             cm_pack_map_hash(p, id, h) == 0;
		size_t at = w->n_maps; /* m's position once added */
		if (!r)
			r = take_map(w, m, path, d);
		/* the verified hash, for m if the workspace holds it (not when an
		 * equal map already there was kept instead, and m freed) */
		if (!r && known && w->n_maps == at + 1) {
			memcpy(w->hashes[at].h, h, 32);
			w->hashes[at].known = true;
		}
		if (r && !rc)
			rc = r;
	}
	cm_pack_close(p);
	return rc;
}

int cm_workspace_map_hash(const cm_workspace *w, const cm_map *m, uint8_t out[32])
{
	size_t at = cm__workspace_map_pos(w, m);
	if (at != CM_IDINDEX_NONE && w->hashes[at].known) {
		memcpy(out, w->hashes[at].h, 32);
		return 0;
	}
	cm_tileset **sets = NULL;
	size_t n = 0;
	int rc = cm_workspace_map_sets(w, m, &sets, &n);
	if (!rc)
		rc = cm_map_hash(m, sets, n, out);
	free(sets);
	return rc;
}

int cm_workspace_load(cm_workspace *w, const char *path, cm_diags *d)
{
	size_t before = cm_diags_count(d);
	cm_file_kind k = cm_file_detect(path, d);
	int rc;
	switch (k) {
	case CM_FILE_TILESET: {
		cm_tileset *ts = NULL;
		rc = cm_tileset_load_file(path, d, &ts);
		return rc ? rc : take_set(w, ts, path, d);
	}
	case CM_FILE_MAP: {
		cm_map *m = NULL;
		rc = cm_map_load_file_printing(path, CM_MAP_LOAD_IMAGE | w->map_flags, w->printing, d, &m);
		if (rc && m) { /* CM_MAP_LOAD_PARTIAL: kept with its errors */
			int arc = take_map(w, m, path, d);
			return arc ? arc : rc;
		}
		/* every other printing of the board, as maps of their own (ID-c3);
		 * read the list before m is handed over (an equal map is freed) */
		cm_edition more[CM_EDITION_COUNT];
		size_t n_more = rc ? 0 : m->n_printings;
		if (!rc)
			memcpy(more, m->printings, sizeof more);
		if (rc || (rc = take_map(w, m, path, d)) != 0 || w->printing >= 0)
			return rc;
		for (size_t i = 1; i < n_more; i++) {
			cm_map *v = NULL;
			rc = cm_map_load_file_printing(path, CM_MAP_LOAD_IMAGE | w->map_flags, (int)more[i], d, &v);
			if (rc && v) {
				int arc = take_map(w, v, path, d);
				return arc ? arc : rc;
			}
			if (rc || (rc = take_map(w, v, path, d)) != 0)
				return rc;
		}
		return 0;
	}
	case CM_FILE_TMX: {
		cm_map *m = NULL;
		rc = cm_tmx_load_file(path, d, &m);
		return rc ? rc : take_map(w, m, path, d);
	}
	case CM_FILE_PACK:
		return load_pack(w, path, d);
	case CM_FILE_LEGEND:
	case CM_FILE_PNG:
		cm_diags_check(d, "CM0005", path, 0, 0, NULL,
		               "a %s is not a map: name it in a map descriptor's <image> element",
		               cm_file_kind_name(k));
		return CM_EFORMAT;
	case CM_FILE_UNKNOWN:
		break;
	}
	if (cm_diags_count(d) > before)
		return CM_EIO;
	/* a file named as a pack gets the pack reader's precise refusal */
	size_t len = strlen(path);
	if (len > 5 && strcmp(path + len - 5, ".pack") == 0)
		return load_pack(w, path, d);
	/* say what it is when we can tell (UTF-16, binary, XML of another
	 * kind): never any of its bytes */
	char head[4096];
	size_t n = 0;
	FILE *f = fopen(path, "rb");
	if (f) {
		n = fread(head, 1, sizeof head, f);
		fclose(f);
	}
	const char *kind = n ? cm_xml_other_kind(head, n) : NULL;
	if (kind)
		cm_diags_check(d, "CM0005", path, 0, 0, NULL,
		               "not a tile set, map descriptor, Tiled map or carcamap pack: it is %s", kind);
	else
		cm_diags_check(d, "CM0005", path, 0, 0, NULL, "not a tile set, map descriptor, Tiled map or carcamap pack");
	return CM_EFORMAT;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads, from dir, the tile set files whose id is wanted and not loaded
 * yet. Files are read in name order so the result does not depend on the
 * directory's order. Unreadable or foreign files are skipped silently:
 * a search directory may hold anything. */
static int search_dir(cm_workspace *w, const char *dir, const char *want, cm_diags *d)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(dp)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".xml") != 0)
			continue;
		if (cm_grow((void **)&names, &cap, n, sizeof *names) || !(names[n] = cm_asprintf("%s/%s", dir, e->d_name))) {
			rc = CM_ENOMEM;
			break;
		}
		n++;
	}
	closedir(dp);
	if (n)
		qsort(names, n, sizeof *names, cmp_cstr);
	for (size_t i = 0; i < n && !rc && !cm_workspace_find_tileset(w, want); i++) {
		cm_diags *q = NULL;
		if (cm_diags_new(&q)) {
			rc = CM_ENOMEM;
			break;
		}
		if (cm_file_detect(names[i], q) == CM_FILE_TILESET) {
			cm_tileset *ts = NULL;
			if (cm_tileset_load_file(names[i], q, &ts) == 0) {
				if (strcmp(ts->id, want) == 0)
					rc = cm_workspace_take_set(w, ts, names[i], d);
				else
					cm_tileset_free(ts);
			} else if (cm_diags_errors(q)) {
				/* a broken file that might be the one wanted: say so */
				cm_diags_add(d, CM_SEV_NOTE, NULL, names[i], 0, 0, NULL,
				             "skipped while looking for tile set '%s': it has errors", want);
			}
		}
		cm_diags_free(q);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int find_set(cm_workspace *w, const char *id, const char *map_src, cm_diags *d)
{
	int rc = 0;
	for (size_t i = 0; i < w->n_dirs && !rc && !cm_workspace_find_tileset(w, id); i++)
		rc = search_dir(w, w->dirs[i], id, d);
	if (!rc && !cm_workspace_find_tileset(w, id) && map_src) {
		/* maps/<name>/<name>.xml next to maps/tilesets/ */
		char *dir = cm_path_resolve(map_src, "../tilesets");
		if (!dir)
			return CM_ENOMEM;
		rc = search_dir(w, dir, id, d);
		free(dir);
	}
	return rc;
}

int cm_workspace_resolve(cm_workspace *w, cm_diags *d)
{
	int rc = 0;
	for (size_t i = 0; i < w->n_maps; i++) {
		cm_map *m = w->maps[i];
		for (size_t k = 0; k < m->n_deck; k++) {
			if (cm_workspace_find_tileset(w, m->deck[k].tileset))
				continue;
			int r = find_set(w, m->deck[k].tileset, m->file, d);
			if (r == CM_ENOMEM)
				return r;
		}
		cm_tileset **sets = NULL;
		size_t n = 0;
		if (cm_workspace_map_sets(w, m, &sets, &n))
			return CM_ENOMEM;
		/* a set found nowhere: one diagnostic that says where to put it,
		 * at its first deck line, instead of one per deck line */
		cm_diags *q = NULL;
		if (cm_diags_new(&q)) {
			free(sets);
			return CM_ENOMEM;
		}
		if (cm_map_check_deck(m, (const cm_tileset *const *)sets, n, q))
			rc = CM_EINVAL;
		free(sets);
		cm_idindex told = { 0 }; /* the missing sets said so far */
		for (size_t k = 0; k < m->n_deck; k++) {
			const char *id = m->deck[k].tileset, *key = id ? id : "";
			if (cm_workspace_find_tileset(w, id) || cm_idindex_find(&told, key) != CM_IDINDEX_NONE)
				continue;
			if (cm_idindex_add(&told, key)) {
				cm_idindex_free(&told);
				cm_diags_free(q);
				return CM_ENOMEM;
			}
			cm_diags_check(d, "CM0212", m->file, m->deck[k].line, 0, NULL,
				               "tile set '%s' not found: give its file with the map, or the directory "
				               "holding it with -T DIR or CARCAMAP_TILESETS",
				               id);
		}
		cm_idindex_free(&told);
		for (size_t k = 0; k < cm_diags_count(q); k++) {
			const cm_diag *g = cm_diags_get(q, k);
			if (g->rule && strcmp(g->rule, "CM0212") == 0)
				continue;
			cm_diags_add(d, g->severity, g->rule, g->file, g->line, g->col, g->where, "%s",
			             g->message ? g->message : "(out of memory)");
			cm_diags_set_square(d, g->x, g->y);
		}
		cm_diags_free(q);
	}
	return rc;
}

static char *file_in(const char *dir, const char *name)
{
	char *p = cm_asprintf("%s/%s", dir, name);
	struct stat st;
	if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode))
		return p;
	free(p);
	return NULL;
}

char *cm_workspace_find_file(const cm_workspace *w, const cm_map *m, const char *name)
{
	char *p = NULL;
	for (size_t i = 0; i < w->n_dirs && !p; i++)
		p = file_in(w->dirs[i], name);
	if (!p && m && m->file) {
		char *dir = cm_path_resolve(m->file, "../tilesets");
		p = dir ? file_in(dir, name) : NULL;
		free(dir);
	}
	return p;
}
