/* SPDX-License-Identifier: MIT */
/* workspace.c: loading what one command works on (carcamap/workspace.h):
 * tile sets, map descriptors with their images, TMX files and packs into
 * the workspace (model/workspace.c keeps them, ids unique across inputs);
 * resolves decks against loaded sets and search directories. A map
 * descriptor is loaded here (cm_map_load): what the reader read
 * (io/map_xml.c) joined with its image's squares and its printing's
 * kinds, checked, and finished. */
#include <dirent.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/carcamap.h"
#include "carcamap/catalog.h"
#include "carcamap/image.h"
#include "carcamap/pack.h"
#include "carcamap/tileset.h"
#include "carcamap/tmx.h"
#include "carcamap/workspace.h"
#include "model/workspace_int.h"
#include "base/util_int.h"
#include "io/map_xml_int.h"
#include "io/pack_int.h"
#include "io/xml_int.h"
#include "model/map_builder_int.h"
#include "model/map_struct_int.h"

/* ---- a map descriptor, loaded ---- */

void cm_map_load_opts_init(cm_map_load_opts *o)
{
	memset(o, 0, sizeof *o);
	o->printing = -1;
}

/* A printing's kinds replace the printed ones (land and town only). */
static void apply_printing_kinds(cm_map_builder *b, const uint8_t *kind_to, const char *file, cm_diags *d)
{
	const cm_map *m = cm__map_builder_view(b);
	size_t n = (size_t)m->cols * (size_t)m->rows;
	for (size_t i = 0; kind_to && i < n; i++) {
		if (!kind_to[i])
			continue;
		const cm_square *sq = &m->squares[i];
		int x = (int)(i % (size_t)m->cols), y = (int)(i / (size_t)m->cols);
		if (sq->kind != CM_SQ_LAND && sq->kind != CM_SQ_TOWN)
			cm_diags_check(d, "CM0220", file, sq->line, 0, NULL,
			               "square (%d,%d) is %s: a printing may change land and town squares only", x, y,
			               cm_square_kind_name(sq->kind));
		else
			cm_map_builder_set_kind(b, x, y, (cm_square_kind)(kind_to[i] - 1));
	}
}

/* What the reader read (rc its return), joined: the image gives the
 * squares the descriptor leaves open (checking before it is read would
 * report a board of empty squares), the printing its kinds, then the
 * default prints and the structure (references with their lines) on one
 * pass over the squares, with the grid's part of the model's check; then,
 * on a sound structure, the builder's finish checks the model's limits
 * (texts, counts, ids). With CM_MAP_LOAD_PARTIAL, a map whose checks
 * failed is still what was understood, for pictures of the problems. */
static int join(cm__map_read *r, int rc, const char *file, unsigned flags, cm_diags *d, cm_map **out)
{
	bool grid_ok = false;
	if (!rc && (flags & CM_MAP_LOAD_IMAGE) && cm__map_builder_view(r->b)->image) {
		int irc = cm_image_apply_descriptor(r->b, file, d);
		if (irc)
			rc = irc == CM_ENOMEM ? CM_ENOMEM : CM_EINVAL;
	}
	if (!rc) {
		apply_printing_kinds(r->b, r->kind_to, file, d);
		cm__map_builder_prints_check_structure(r->b, d, r->quiet, &grid_ok);
		if (cm_diags_errors(d) > r->errors)
			rc = CM_EINVAL;
	}
	cm_map_builder *b = r->b;
	r->b = NULL;
	cm__map_read_clear(r);
	if (!b || (rc && !(rc == CM_EINVAL && (flags & CM_MAP_LOAD_PARTIAL)))) {
		cm_map_builder_free(b);
		return rc;
	}
	unsigned fl = (rc ? CM__FINISH_REFUSED : 0) | (grid_ok ? CM__FINISH_GRID_OK : 0) |
	              (flags & CM_MAP_LOAD_PARTIAL ? CM__FINISH_PARTIAL : 0);
	return cm__map_builder_finish(b, "CM0219", file, d, fl, out);
}

static int load_map(const char *path, const cm__map_read_opts *o, cm_diags *d, cm_map **out)
{
	cm__map_read r;
	*out = NULL;
	int rc = cm__map_xml_read(path, o, d, &r);
	return join(&r, rc, path, o->flags, d, out);
}

int cm_map_load(const char *path, const cm_map_load_opts *o, cm_diags *d, cm_map **out)
{
	cm__map_read_opts ro = { o ? o->flags : 0, o ? o->printing : -1, 0, load_map };
	return load_map(path, &ro, d, out);
}

int cm_map_load_memory(const char *buf, size_t len, const char *file, cm_diags *d, cm_map **out)
{
	cm__map_read_opts ro = { 0, -1, 0, load_map };
	cm__map_read r;
	*out = NULL;
	int rc = cm__map_xml_read_memory(buf, len, file, &ro, d, &r);
	return join(&r, rc, file, 0, d, out);
}

/* ---- the workspace ---- */

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

int cm_workspace_set_map_only(cm_workspace *w, const char *id)
{
	char *copy = NULL;
	if (id && !(copy = cm_strdup(id)))
		return CM_ENOMEM;
	free(w->only_map);
	w->only_map = copy;
	return 0;
}

/* Whether a pack's map id is one cm_workspace_set_map_only asks for: the
 * id itself or one of its printings (id-c1, id-c2, id-c3). */
static bool map_wanted(const cm_workspace *w, const char *id)
{
	const char *only = w->only_map;
	size_t n = only ? strlen(only) : 0;
	return !only || strcmp(id, only) == 0 ||
	       (strncmp(id, only, n) == 0 && id[n] == '-' && id[n + 1] == 'c' && id[n + 2] >= '1' &&
	        id[n + 2] <= '3' && !id[n + 3]);
}

/* The maps of the pack at path (those map_wanted asks for), each verified,
 * then its tile sets: each read once, the copy verifying a map read taken
 * over (cm__pack_take_tileset); with one map asked for, only the sets its
 * deck names. */
static int load_pack(cm_workspace *w, const char *path, cm_diags *d)
{
	cm_pack *p = NULL;
	int rc = cm_pack_open(path, d, &p);
	if (rc)
		return rc;
	/* one map asked for: the others are not read (unless the pack holds
	 * none of them, and the missing one is said with the maps it holds) */
	bool some = false;
	for (size_t i = 0; i < cm_pack_map_count(p) && !some && w->only_map; i++)
		some = map_wanted(w, cm_pack_map_id(p, i));
	for (size_t i = 0; i < cm_pack_map_count(p) && rc != CM_ENOMEM; i++) {
		cm_map *m = NULL;
		/* the stored hash must match the content: a pack edited outside
		 * carcamap is reported (CM0408) before anything uses it */
		const char *id = cm_pack_map_id(p, i);
		if (some && !map_wanted(w, id))
			continue;
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
	for (size_t i = 0; i < cm_pack_tileset_count(p) && rc != CM_ENOMEM; i++) {
		cm_tileset *ts = NULL;
		int r = cm__pack_take_tileset(p, cm_pack_tileset_id(p, i), some, d, &ts);
		if (r == CM_ENOTFOUND && some)
			continue; /* no deck of the maps read names it */
		if (!r)
			r = take_set(w, ts, path, d);
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
	const cm_tileset **sets = NULL;
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
		cm_map_load_opts lo;
		cm_map_load_opts_init(&lo);
		lo.flags = CM_MAP_LOAD_IMAGE | w->map_flags;
		lo.printing = w->printing;
		rc = cm_map_load(path, &lo, d, &m);
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
			lo.printing = (int)more[i];
			rc = cm_map_load(path, &lo, d, &v);
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

/* One search directory as cm_workspace_resolve goes through it: for an
 * id, the file named after it (base.xml for base) first, then the other
 * tile set files in name order, read one after the other as ids are asked
 * for and never read twice to no purpose: a deck's sets are found without
 * reading the directory's other sets. The ids of the files read so far
 * are indexed (the first file of an id wins, as in a scan), so a set asked
 * for again, or missing, costs a lookup instead of another pass over the
 * directory: resolving D deck entries against a directory of F files reads
 * each file at most twice, not D * F times. */
typedef struct {
	char *dir;
	char **names; /* dir/name of each .xml, sorted */
	size_t n, next; /* files; the first not read yet in name order */
	bool *done;     /* by file: read already */
	char **ids;   /* the ids met, owned (the index's keys) */
	size_t *file; /* by id: the first file holding it */
	size_t cap_ids, cap_file;
	cm_idindex ix;
	bool listed;
} dir_scan;

typedef struct {
	dir_scan *v;
	size_t n, cap;
	cm_idindex ix; /* by directory path */
	/* what was said about deck lines, as "file\nline\nid" (a missing
	 * set) or "file\nline\nrule\ncolumn\nseverity\nmessage": the
	 * printings a descriptor holds share its deck, and a finding on one of
	 * its lines is said once */
	cm_idindex said_ix;
	char **said;
	size_t cap_said;
} dir_scans;

static void dir_scans_free(dir_scans *s)
{
	for (size_t i = 0; i < s->n; i++) {
		dir_scan *c = &s->v[i];
		for (size_t k = 0; k < c->n; k++)
			free(c->names[k]);
		free(c->names);
		free(c->done);
		for (size_t k = 0; k < c->ix.n; k++)
			free(c->ids[k]);
		free(c->ids);
		free(c->file);
		cm_idindex_free(&c->ix);
		free(c->dir);
	}
	free(s->v);
	cm_idindex_free(&s->ix);
	for (size_t k = 0; k < s->said_ix.n; k++)
		free(s->said[k]);
	free(s->said);
	cm_idindex_free(&s->said_ix);
	memset(s, 0, sizeof *s);
}

/* The scan of dir, made (unlisted) when first asked for; NULL: no memory. */
static dir_scan *dir_scan_of(dir_scans *s, const char *dir)
{
	size_t at = cm_idindex_find(&s->ix, dir);
	if (at != CM_IDINDEX_NONE)
		return &s->v[at];
	/* the index borrows each scan's dir string, which moves with v: the
	 * strings themselves are heap copies that stay put */
	if (cm_grow((void **)&s->v, &s->cap, s->n, sizeof *s->v))
		return NULL;
	dir_scan *c = &s->v[s->n];
	memset(c, 0, sizeof *c);
	if (!(c->dir = cm_strdup(dir)))
		return NULL;
	if (cm_idindex_add(&s->ix, c->dir)) {
		free(c->dir);
		return NULL;
	}
	s->n++;
	return c;
}

/* Lists the .xml files of c's directory (an unreadable one has none). */
static int dir_scan_list(dir_scan *c)
{
	c->listed = true;
	DIR *dp = opendir(c->dir);
	if (!dp)
		return 0;
	size_t cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(dp)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".xml") != 0)
			continue;
		if (cm_grow((void **)&c->names, &cap, c->n, sizeof *c->names) ||
		    !(c->names[c->n] = cm_asprintf("%s/%s", c->dir, e->d_name))) {
			rc = CM_ENOMEM;
			break;
		}
		c->n++;
	}
	closedir(dp);
	if (c->n)
		qsort(c->names, c->n, sizeof *c->names, cmp_cstr);
	if (!rc && c->n && !(c->done = calloc(c->n, sizeof *c->done)))
		rc = CM_ENOMEM;
	return rc;
}

/* Reads file fi of c as a tile set: *ts when it is one (NULL otherwise),
 * its id recorded when new and record is set. A broken tile set file gets a note naming the
 * set looked for (it might have been the one). */
static int dir_scan_read(dir_scan *c, size_t fi, const char *want, bool record, cm_tileset **ts, cm_diags *d)
{
	*ts = NULL;
	cm_diags *q = NULL;
	if (cm_diags_new(&q))
		return CM_ENOMEM;
	int rc = 0;
	if (cm_file_detect(c->names[fi], q) == CM_FILE_TILESET) {
		if (cm_tileset_load_file(c->names[fi], q, ts) == 0) {
			if (record && (*ts)->id && cm_idindex_find(&c->ix, (*ts)->id) == CM_IDINDEX_NONE) {
				char *id = cm_strdup((*ts)->id);
				if (!id || cm_grow((void **)&c->ids, &c->cap_ids, c->ix.n, sizeof *c->ids) ||
				    cm_grow((void **)&c->file, &c->cap_file, c->ix.n, sizeof *c->file)) {
					free(id);
					rc = CM_ENOMEM;
				} else {
					c->ids[c->ix.n] = id;
					c->file[c->ix.n] = fi;
					if (cm_idindex_add(&c->ix, id)) {
						free(id);
						rc = CM_ENOMEM;
					}
				}
			}
		} else if (cm_diags_errors(q)) {
			cm_diags_add(d, CM_SEV_NOTE, NULL, c->names[fi], 0, 0, NULL,
			             "skipped while looking for tile set '%s': it has errors", want);
		}
	}
	cm_diags_free(q);
	if (rc) {
		cm_tileset_free(*ts);
		*ts = NULL;
	}
	return rc;
}

/* Loads, from dir, the tile set file whose id is wanted (not loaded yet):
 * the file named after the id when it holds that id, else the first such
 * file in name order, so the result does not depend on the directory's
 * order. Unreadable or foreign files are skipped silently: a
 * search directory may hold anything. */
static int search_dir(cm_workspace *w, dir_scans *s, const char *dir, const char *want, cm_diags *d)
{
	dir_scan *c = dir_scan_of(s, dir);
	if (!c)
		return CM_ENOMEM;
	int rc = c->listed ? 0 : dir_scan_list(c);
	if (rc)
		return rc;
	/* the file named after the id first (base.xml for base) */
	char *named = cm_asprintf("%s/%s.xml", c->dir, want);
	if (!named)
		return CM_ENOMEM;
	char **hit = c->n ? bsearch(&named, c->names, c->n, sizeof *c->names, cmp_cstr) : NULL;
	free(named);
	if (hit && !c->done[hit - c->names]) {
		size_t fi = (size_t)(hit - c->names);
		cm_tileset *ts = NULL;
		if ((rc = dir_scan_read(c, fi, want, false, &ts, d)) != 0)
			return rc;
		if (ts && ts->id && strcmp(ts->id, want) == 0) {
			c->done[fi] = true;
			return cm_workspace_take_set(w, ts, c->names[fi], d);
		}
		/* another id: read again, and its id recorded, in its turn;
		 * not a tile set (noted when broken): never again */
		c->done[fi] = !ts;
		cm_tileset_free(ts);
	}
	size_t at = cm_idindex_find(&c->ix, want);
	if (at != CM_IDINDEX_NONE) { /* met while looking for another: read it again */
		cm_tileset *ts = NULL;
		const char *name = c->names[c->file[at]];
		if ((rc = dir_scan_read(c, c->file[at], want, true, &ts, d)) != 0 || !ts)
			return rc;
		if (ts->id && strcmp(ts->id, want) == 0)
			return cm_workspace_take_set(w, ts, name, d);
		cm_tileset_free(ts); /* changed since: look further */
	}
	while (c->next < c->n) {
		size_t fi = c->next++;
		if (c->done[fi])
			continue;
		c->done[fi] = true;
		cm_tileset *ts = NULL;
		if ((rc = dir_scan_read(c, fi, want, true, &ts, d)) != 0)
			return rc;
		if (ts && ts->id && strcmp(ts->id, want) == 0)
			return cm_workspace_take_set(w, ts, c->names[fi], d);
		cm_tileset_free(ts);
	}
	return 0;
}

static int find_set(cm_workspace *w, dir_scans *s, const char *id, const char *map_src, cm_diags *d)
{
	int rc = 0;
	for (size_t i = 0; i < w->n_dirs && !rc && !cm_workspace_find_tileset(w, id); i++)
		rc = search_dir(w, s, w->dirs[i], id, d);
	if (!rc && !cm_workspace_find_tileset(w, id) && map_src) {
		/* maps/<name>/<name>.xml next to maps/tilesets/ */
		char *dir = cm_path_resolve(map_src, "../tilesets");
		if (!dir)
			return CM_ENOMEM;
		rc = search_dir(w, s, dir, id, d);
		free(dir);
	}
	return rc;
}

/* Whether the missing set id at file:line was said already; if not, it
 * now is. -1: no memory. */
static int said_before(dir_scans *s, const char *file, unsigned line, const char *id)
{
	char *key = cm_asprintf("%s\n%u\n%s", file ? file : "", line, id ? id : "");
	if (!key)
		return -1;
	if (cm_idindex_find(&s->said_ix, key) != CM_IDINDEX_NONE) {
		free(key);
		return 1;
	}
	if (cm_grow((void **)&s->said, &s->cap_said, s->said_ix.n, sizeof *s->said)) {
		free(key);
		return -1;
	}
	s->said[s->said_ix.n] = key;
	if (cm_idindex_add(&s->said_ix, key)) {
		free(key);
		return -1;
	}
	return 0;
}

static int resolve(cm_workspace *w, dir_scans *s, cm_diags *d);

int cm_workspace_resolve(cm_workspace *w, cm_diags *d)
{
	dir_scans scans = { 0 };
	int rc = resolve(w, &scans, d);
	dir_scans_free(&scans);
	return rc;
}

static int resolve(cm_workspace *w, dir_scans *scans, cm_diags *d)
{
	int rc = 0;
	for (size_t i = 0; i < w->n_maps; i++) {
		cm_map *m = w->maps[i];
		for (size_t k = 0; k < m->n_deck; k++) {
			if (cm_workspace_find_tileset(w, m->deck[k].tileset))
				continue;
			int r = find_set(w, scans, m->deck[k].tileset, m->file, d);
			if (r == CM_ENOMEM)
				return r;
		}
		const cm_tileset **sets = NULL;
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
		if (cm_map_check_deck(m, sets, n, q))
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
			int said = said_before(scans, m->file, m->deck[k].line, id);
			if (said < 0) {
				cm_idindex_free(&told);
				cm_diags_free(q);
				return CM_ENOMEM;
			}
			if (!said)
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
			/* the same finding on the same deck line, met again in another
			 * printing of the descriptor, is said once */
			char *what = cm_asprintf("%s\n%u\n%d\n%s", g->rule ? g->rule : "", g->col, (int)g->severity,
			                         g->message ? g->message : "");
			int said = what ? said_before(scans, g->file, g->line, what) : -1;
			free(what);
			if (said < 0) {
				cm_diags_free(q);
				return CM_ENOMEM;
			}
			if (said)
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
