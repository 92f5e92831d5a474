/* SPDX-License-Identifier: MIT */
/* tileset_io.c: tile-set files. The reader of schemas/tileset.xsd files
 * (parsed and validated by xml.c, features read by feature_xml.c, the
 * result checked by model/tileset.c) and the XML and JSON writers. */
#include <libxml/tree.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/tileset.h"
#include "io/feature_xml_int.h"
#include "model/tileset_int.h"
#include "base/json_int.h"
#include "base/util_int.h"
#include "io/xml_int.h"

/* ------------------------------------------------------------------ */
/* reader                                                              */

typedef struct {
	cm_diags *d;
	const char *file;
	unsigned **contact_line; /* per tile, see checker */
	int rc;                  /* CM_ENOMEM once memory ran out */
} loader;

static void load_error(loader *L, const char *id, unsigned line, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static void load_error(loader *L, const char *id, unsigned line, const char *fmt, ...)
{
	cm_diag_scope s;
	cm_diag_scope_init(&s, L->d, L->file);
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(&s, id, line, 0, NULL, fmt, ap);
	va_end(ap);
}

static bool has_attr(const xmlNode *n, const char *name)
{
	return xmlHasProp((xmlNode *)n, (const xmlChar *)name) != NULL;
}

/* count, count-c1.. on a tile or total, total-c1.. on the set: one value
 * for every edition or one per edition, never both (rule). A missing
 * edition is `none`; C3 plays the C2 set unless the file says otherwise. */
static void read_editions(loader *L, const xmlNode *n, const char *one, int none, const char *rule,
                          unsigned line, int *v)
{
	char names[CM_EDITION_COUNT][16];
	bool per_edition = false;
	for (int e = 0; e < CM_EDITION_COUNT; e++) {
		snprintf(names[e], sizeof names[e], "%s-c%d", one, e + 1);
		per_edition |= has_attr(n, names[e]);
	}
	if (has_attr(n, one)) {
		if (per_edition)
			load_error(L, rule, line, "give %s or %s-c1/c2/c3, not both", one, one);
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			v[e] = cm_xml_attr_int(n, one, none);
		return;
	}
	v[CM_EDITION_C1] = cm_xml_attr_int(n, names[0], none);
	v[CM_EDITION_C2] = cm_xml_attr_int(n, names[1], none);
	v[CM_EDITION_C3] = cm_xml_attr_int(n, names[2], v[CM_EDITION_C2]);
}

/* The <marker> children of a tile, in order: prints the rules ignore. A
 * marker that holds what no name may (a newline given as &#10;, a C1 or
 * bidi control) is CM0007, as such an attribute is, and dropped. */
static int read_markers(loader *L, const xmlNode *n, cm_tile_type *t)
{
	size_t k = 0;
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next))
		k += cm_xml_is(c, "marker") != 0;
	if (!k)
		return 0;
	if (!(t->markers = calloc(k, sizeof *t->markers)))
		return CM_ENOMEM;
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next)) {
		if (!cm_xml_is(c, "marker"))
			continue;
		xmlChar *v = xmlNodeGetContent(c);
		const char *why = v ? cm_text_problem((const char *)v) : NULL;
		if (why) {
			unsigned col, line = cm_xml_content_pos(c, &col);
			cm_diags_check(L->d, "CM0007", L->file, line, col, NULL, "<marker> of tile %s holds %s",
			               t->id ? t->id : "?", why);
			xmlFree(v);
			continue;
		}
		char *m = v ? cm_strdup((const char *)v) : NULL;
		xmlFree(v);
		if (!m)
			return CM_ENOMEM;
		t->markers[t->n_markers++] = m;
	}
	return 0;
}

static int read_tile(loader *L, xmlNode *n, cm_tile_type *t, unsigned **contact_line)
{
	t->line = cm_xml_line(n);
	if (!(t->id = cm_xml_attr_token(n, "id")))
		return CM_ENOMEM;
	t->name = cm_xml_attr(n, "name");
	t->start = cm_xml_attr_bool(n, "start", false);
	read_editions(L, n, "count", 0, "CM0112", t->line, t->count);
	int rc = cm_feature_read_grid(n, &cm_tileset_tile_rules, "tile", false, true, L->d, L->file, t, contact_line);
	if (rc)
		return rc;
	return read_markers(L, n, t);
}

static int build(loader *L, xmlDoc *doc, cm_tileset **out)
{
	xmlNode *root = xmlDocGetRootElement(doc);
	int rc = CM_ENOMEM;
	size_t n = 0; /* tiles; set before the first goto, the clean-up reads it */
	cm_tileset *ts = calloc(1, sizeof *ts);
	if (!ts)
		return CM_ENOMEM;
	ts->line = cm_xml_line(root);
	if (L->file && !(ts->file = cm_strdup(L->file)))
		goto out;
	if (!(ts->id = cm_xml_attr_token(root, "id")) || !(ts->name = cm_xml_attr(root, "name")))
		goto out;
	char *kind = cm_xml_attr_token(root, "kind");
	ts->base = kind && strcmp(kind, "base") == 0;
	free(kind);
	read_editions(L, root, "total", -1, "CM0114", ts->line, ts->total);
	for (xmlNode *c = cm_xml_elem(root->children); c; c = cm_xml_elem(c->next))
		n++;
	ts->tiles = calloc(n ? n : 1, sizeof *ts->tiles);
	L->contact_line = calloc(n ? n : 1, sizeof *L->contact_line);
	if (!ts->tiles || !L->contact_line)
		goto out;
	for (xmlNode *c = cm_xml_elem(root->children); c; c = cm_xml_elem(c->next)) {
		rc = read_tile(L, c, &ts->tiles[ts->n_tiles], &L->contact_line[ts->n_tiles]);
		ts->n_tiles++; /* counted even when half read, so that free releases it */
		if (rc)
			goto out;
	}
	/* the tile-set rules, then, on a sound set, the one model checker
	 * (tileset.xsd bounds every value already: no check id of its own) */
	if (!cm_tileset_check_lines(ts, L->contact_line, L->d))
		cm_tileset_check_model(ts, NULL, L->file, L->d);
	rc = 0;
out:
	if (L->contact_line)
		for (size_t i = 0; i < n; i++)
			free(L->contact_line[i]);
	free(L->contact_line);
	L->contact_line = NULL;
	if (rc) {
		cm_tileset_free(ts);
		return rc;
	}
	*out = ts;
	return 0;
}

/* Builds and checks the model of a parsed, schema-valid document; with
 * CM_TILESET_LOAD_PARTIAL a model with errors is kept. */
static int load_doc(xmlDoc *doc, const char *file, unsigned flags, cm_diags *d, cm_tileset **out)
{
	size_t before = cm_diags_errors(d);
	loader L = { d, file, NULL, 0 };
	cm_tileset *ts = NULL;
	int rc = build(&L, doc, &ts);
	if (rc == CM_ENOMEM)
		cm_diags_add(d, CM_SEV_ERROR, NULL, file, 0, 0, NULL, "out of memory reading the tile set");
	if (!rc && cm_diags_errors(d) > before) {
		if (flags & CM_TILESET_LOAD_PARTIAL) {
			*out = ts; /* what was understood, for pictures of the problems */
			return CM_EINVAL;
		}
		cm_tileset_free(ts);
		return CM_EINVAL;
	}
	if (!rc)
		*out = ts;
	return rc;
}

int cm_tileset_load_memory(const char *buf, size_t len, const char *file, cm_diags *d,
                           cm_tileset **out)
{
	*out = NULL;
	xmlDoc *doc = NULL;
	int rc = cm_xml_load_memory(buf, len, file, "tileset.xsd", d, &doc);
	if (rc)
		return rc;
	rc = load_doc(doc, file, 0, d, out);
	cm_xml_free_doc(doc);
	return rc;
}

int cm_tileset_load_file(const char *path, cm_diags *d, cm_tileset **out)
{
	return cm_tileset_load_file_flags(path, 0, d, out);
}

int cm_tileset_load_file_flags(const char *path, unsigned flags, cm_diags *d, cm_tileset **out)
{
	*out = NULL;
	xmlDoc *doc = NULL;
	int rc = cm_xml_load_file(path, "tileset.xsd", d, &doc);
	if (rc)
		return rc;
	rc = load_doc(doc, path, flags, d, out);
	cm_xml_free_doc(doc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* writers                                                             */

/* count="n" when every edition has n, else the per-edition attributes that
 * the reader's defaults (missing = 0, C3 = C2) do not already give. */
static void xml_counts(cm_xw *x, const int *v, const char *one, const char *const *per, bool opt)
{
	if (v[0] == v[1] && v[1] == v[2]) {
		if (!opt || v[0] >= 0)
			cm_xw_attr_int(x, one, v[0]);
		return;
	}
	int none = opt ? -1 : 0;
	if (v[0] != none)
		cm_xw_attr_int(x, per[0], v[0]);
	if (v[1] != none)
		cm_xw_attr_int(x, per[1], v[1]);
	if (v[2] != v[1] && v[2] >= 0)
		cm_xw_attr_int(x, per[2], v[2]);
}

int cm_tileset_write_xml(const cm_tileset *ts, FILE *f)
{
	return cm_tileset_write_xml_diag(ts, f, NULL);
}

int cm_tileset_write_xml_diag(const cm_tileset *ts, FILE *f, cm_diags *d)
{
	return cm_tileset_write_xml_form(ts, CM_TILE_FORM_SLOTS, f, d);
}

const char *cm_tile_form_name(cm_tile_form f)
{
	return f == CM_TILE_FORM_GRID ? "grid" : "slots";
}

int cm_tile_form_parse(const char *s, cm_tile_form *out)
{
	if (s && strcmp(s, "slots") == 0)
		*out = CM_TILE_FORM_SLOTS;
	else if (s && strcmp(s, "grid") == 0)
		*out = CM_TILE_FORM_GRID;
	else
		return CM_EINVAL;
	return 0;
}

int cm_tileset_write_xml_form(const cm_tileset *ts, cm_tile_form form, FILE *f, cm_diags *d)
{
	if (cm_tileset_check_model(ts, NULL, ts->file, d)) /* the one model checker: no ill-formed XML */
		return CM_EINVAL;
	static const char *const counts[] = { "count-c1", "count-c2", "count-c3" };
	static const char *const totals[] = { "total-c1", "total-c2", "total-c3" };
	cm_xw *x = cm_xw_new();
	if (!x)
		return CM_ENOMEM;
	cm_xw_open(x, 0, "tileset");
	cm_xw_attr(x, "format", "1");
	cm_xw_attr(x, "id", ts->id ? ts->id : "");
	cm_xw_attr(x, "name", ts->name ? ts->name : "");
	cm_xw_attr(x, "kind", ts->base ? "base" : "expansion");
	xml_counts(x, ts->total, "total", totals, true);
	for (size_t i = 0; i < ts->n_tiles; i++) {
		const cm_tile_type *t = &ts->tiles[i];
		cm_xw_open(x, 1, "tile");
		cm_xw_attr(x, "id", t->id ? t->id : "");
		cm_xw_attr(x, "name", t->name);
		xml_counts(x, t->count, "count", counts, false);
		if (t->start)
			cm_xw_attr(x, "start", "true");
		cm_tile_grid_layout L;
		int lrc = form == CM_TILE_FORM_GRID ? cm_tile_grid_layout_make(t, &L) : CM_EINVAL;
		if (lrc == CM_ENOMEM)
			cm_xw_fail(x);
		if (!lrc)
			cm_feature_write_xml_grid(x, t, &L, 2);
		else
			cm_feature_write_xml(x, t, 2);
		for (size_t k = 0; k < t->n_markers; k++) {
			cm_xw_open(x, 2, "marker");
			cm_xw_text(x, t->markers[k]);
			cm_xw_close(x, 2);
		}
		cm_xw_close(x, 1);
	}
	cm_xw_close(x, 0);
	return cm_xw_finish(x, f, ts->file, d);
}

static void json_ids(cm_json *j, const cm_tile_type *t, uint32_t m)
{
	cm_json_arr_begin(j);
	for (size_t k = 0; k < t->n_features && k < CM_MAX_FEATURES; k++)
		if (m & (1u << k))
			cm_json_str(j, cm_feature_id(&t->features[k]));
	cm_json_arr_end(j);
}

static void json_editions(cm_json *j, const int *v, bool opt)
{
	cm_json_obj_begin(j);
	for (int e = 0; e < CM_EDITION_COUNT; e++) {
		cm_json_key(j, cm_edition_name((cm_edition)e));
		if (opt && v[e] < 0)
			cm_json_null(j);
		else
			cm_json_int(j, v[e]);
	}
	cm_json_obj_end(j);
}

static void json_feature(cm_json *j, const cm_tile_type *t, const cm_feature *ft)
{
	cm_json_obj_begin(j);
	cm_json_key(j, "id");
	cm_json_str(j, cm_feature_id(ft));
	cm_json_key(j, "kind");
	cm_json_str(j, cm_feature_kind_name(ft->kind));
	cm_json_key(j, "slots");
	cm_json_arr_begin(j);
	for (int b = 0; b < 12; b++)
		if (ft->slots & (1u << b))
			cm_json_str(j, cm_slot_name(b));
	cm_json_arr_end(j);
	if (ft->kind == CM_FEAT_CITY) {
		cm_json_key(j, "arms");
		cm_json_int(j, ft->arms);
		cm_json_key(j, "cathedral");
		cm_json_bool(j, ft->cathedral);
		cm_json_key(j, "good");
		if (ft->good != CM_GOOD_NONE)
			cm_json_str(j, cm_good_name(ft->good));
		else
			cm_json_null(j);
	} else if (ft->kind == CM_FEAT_ROAD) {
		cm_json_key(j, "inn");
		cm_json_bool(j, ft->inn);
	} else if (ft->kind == CM_FEAT_FIELD) {
		cm_json_key(j, "touches");
		json_ids(j, t, ft->touches);
	}
	cm_json_obj_end(j);
}

int cm_tileset_write_json(const cm_tileset *ts, FILE *f)
{
	cm_json j;
	cm_json_init(&j, f, true);
	cm_json_obj_begin(&j);
	cm_json_key(&j, "id");
	cm_json_str(&j, ts->id);
	cm_json_key(&j, "name");
	cm_json_str(&j, ts->name);
	cm_json_key(&j, "kind");
	cm_json_str(&j, ts->base ? "base" : "expansion");
	int sums[CM_EDITION_COUNT];
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		sums[e] = cm_tileset_total(ts, (cm_edition)e);
	cm_json_key(&j, "totals");
	json_editions(&j, sums, false);
	cm_json_key(&j, "declared");
	json_editions(&j, ts->total, true);
	cm_json_key(&j, "tiles");
	cm_json_arr_begin(&j);
	for (size_t i = 0; i < ts->n_tiles; i++) {
		const cm_tile_type *t = &ts->tiles[i];
		cm_json_obj_begin(&j);
		cm_json_key(&j, "id");
		cm_json_str(&j, t->id);
		cm_json_key(&j, "name");
		cm_json_str(&j, t->name);
		cm_json_key(&j, "count");
		json_editions(&j, t->count, false);
		cm_json_key(&j, "start");
		cm_json_bool(&j, t->start);
		cm_json_key(&j, "abbey");
		cm_json_bool(&j, cm_tileset_is_abbey_tile(t));
		cm_json_key(&j, "edges");
		cm_json_arr_begin(&j);
		for (int s = 0; s < 4; s++)
			cm_json_str(&j, cm_edge_kind_name((cm_edge_kind)t->edge[s]));
		cm_json_arr_end(&j);
		cm_json_key(&j, "features");
		cm_json_arr_begin(&j);
		for (size_t k = 0; k < t->n_features; k++)
			json_feature(&j, t, &t->features[k]);
		cm_json_arr_end(&j);
		cm_json_key(&j, "contacts");
		cm_json_arr_begin(&j);
		for (size_t c = 0; c < t->n_contacts; c++)
			json_ids(&j, t, t->contacts[c]);
		cm_json_arr_end(&j);
		if (t->n_markers) { /* only when there are: sets without keep their bytes */
			cm_json_key(&j, "markers");
			cm_json_arr_begin(&j);
			for (size_t k = 0; k < t->n_markers; k++)
				cm_json_str(&j, t->markers[k]);
			cm_json_arr_end(&j);
		}
		cm_json_obj_end(&j);
	}
	cm_json_arr_end(&j);
	cm_json_obj_end(&j);
	return cm_json_finish(&j) ? CM_EIO : 0;
}
