/* SPDX-License-Identifier: MIT */
/* tileset.c: tile sets (carcamap/tileset.h). Owns the reader of
 * schemas/tileset.xsd files (the XML is parsed and validated by xml.c, the
 * features of a tile are read and checked by feature.c, which big-city
 * pieces share), the semantic checks CM01xx, and the XML and JSON writers.
 * Rules of each check: schemas/tileset.md. */
#include <libxml/tree.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/tileset.h"
#include "io/feature_int.h"
#include "base/json_int.h"
#include "base/util_int.h"
#include "io/xml_int.h"

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

bool cm_tileset_is_abbey_tile(const cm_tile_type *t)
{
	for (size_t i = 0; i < t->n_features; i++)
		if (t->features[i].kind == CM_FEAT_ABBEY)
			return true;
	return false;
}

int cm_tileset_total(const cm_tileset *ts, cm_edition e)
{
	int n = 0;
	for (size_t i = 0; i < ts->n_tiles; i++)
		if (!cm_tileset_is_abbey_tile(&ts->tiles[i]))
			n += ts->tiles[i].count[e];
	return n;
}

const cm_tile_type *cm_tileset_find(const cm_tileset *ts, const char *id)
{
	for (size_t i = 0; i < ts->n_tiles; i++)
		if (ts->tiles[i].id && strcmp(ts->tiles[i].id, id) == 0)
			return &ts->tiles[i];
	return NULL;
}

int cm_tileset_start(const cm_tileset *ts)
{
	for (size_t i = 0; i < ts->n_tiles; i++)
		if (ts->tiles[i].start)
			return (int)i;
	return -1;
}

void cm_tileset_free(cm_tileset *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->n_tiles; i++)
		cm_tile_type_clear(&ts->tiles[i]);
	free(ts->tiles);
	free(ts->id);
	free(ts->name);
	free(ts->file);
	free(ts);
}

/* ------------------------------------------------------------------ */
/* semantic checks                                                     */

/* Where a problem is: the file and line of the element, or, for a model
 * built in memory (no file), a `where` string naming tile and feature. */
typedef struct {
	cm_diags *d;
	const cm_tileset *ts;
	/* per tile, the source line of each contact (loader only, else NULL):
	 * the model keeps contacts as masks without lines */
	unsigned *const *contact_line;
} checker;

static void report(const checker *c, const char *id, unsigned line, const cm_tile_type *t,
                   const cm_feature *f, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;

static void report(const checker *c, const char *id, unsigned line, const cm_tile_type *t,
                   const cm_feature *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	char *where = NULL;
	if (!c->ts->file) {
		const char *set = c->ts->id ? c->ts->id : "?";
		if (t && f)
			where = cm_asprintf("tile set %s, tile %s, feature %s", set, t->id ? t->id : "?",
			                    f->id ? f->id : "?");
		else if (t)
			where = cm_asprintf("tile set %s, tile %s", set, t->id ? t->id : "?");
		else
			where = cm_asprintf("tile set %s", set);
	}
	cm_diags_check(c->d, id, c->ts->file, c->ts->file ? line : 0, 0, where, "%s",
	               msg ? msg : "(out of memory)");
	free(where);
	free(msg);
}

static const cm_feature_rules tile_rules = {
	.slot_twice = "CM0102", .uncovered = "CM0101", .shape = "CM0103", .feature_id = "CM0105",
	.touches = "CM0106", .contact = "CM0107", .contact_size = "CM0108", .too_many = "CM0116",
};

/* feature.c's reports about tile t, through report() */
typedef struct {
	const checker *c;
	const cm_tile_type *t;
} tile_report;

static void report_feature(void *arg, const char *rule, unsigned line, const cm_feature *f, const char *msg)
{
	const tile_report *tr = arg;
	report(tr->c, rule, line, tr->t, f, "%s", msg);
}

/* CM0109-CM0111 for contact i of tile t (feature.c checked its members). */
static void check_contact(const checker *c, const cm_feature_checker *fc, const cm_tile_type *t, size_t i)
{
	unsigned line = cm_feature_contact_line(fc, t, i);
	size_t n = t->n_features < CM_MAX_FEATURES ? t->n_features : CM_MAX_FEATURES;
	uint32_t m = t->contacts[i];
	for (size_t k = 0; k < n; k++) {
		const cm_feature *f = &t->features[k];
		if (!(m & (1u << k)))
			continue;
		if (f->kind == CM_FEAT_FIELD || f->kind == CM_FEAT_GARDEN)
			report(c, "CM0109", line, t, f, "%s '%s' is in a contact: a wagon never stands on a %s",
			       cm_feature_kind_name(f->kind), cm_feature_id(f), cm_feature_kind_name(f->kind));
		if (f->kind != CM_FEAT_ROAD)
			continue;
		for (size_t j = 0; j < n; j++) {
			const cm_feature *g = &t->features[j];
			if (!(m & (1u << j)) || g->kind != CM_FEAT_CITY)
				continue;
			unsigned both = cm_slots_sides(f->slots) & cm_slots_sides(g->slots);
			for (int s = 0; s < 4; s++)
				if (both & (1u << s))
					report(c, "CM0110", line, t, f,
					       "road '%s' and city '%s' are in contact on the same side %s, "
					       "which cannot show both",
					       cm_feature_id(f), cm_feature_id(g), cm_side_name((cm_side)s));
		}
	}
	for (size_t j = 0; j < i; j++)
		if (t->contacts[j] == t->contacts[i]) {
			report(c, "CM0111", line, t, NULL, "contact %zu repeats contact %zu", i + 1, j + 1);
			break;
		}
}

static void check_tile(const checker *c, size_t ti)
{
	const cm_tileset *ts = c->ts;
	const cm_tile_type *t = &ts->tiles[ti];
	char name[96];
	snprintf(name, sizeof name, "tile %s", t->id ? t->id : "?");
	tile_report tr = { c, t };
	const cm_feature_checker fc = { &tile_rules, "tile", name,
	                                c->contact_line ? c->contact_line[ti] : NULL, report_feature, &tr };
	for (size_t j = 0; j < ti; j++)
		if (t->id && ts->tiles[j].id && strcmp(t->id, ts->tiles[j].id) == 0) {
			report(c, "CM0104", t->line, t, NULL, "tile id '%s' is already used (line %u)", t->id,
			       ts->tiles[j].line);
			break;
		}
	cm_feature_check_count(&fc, t);
	bool abbey_tile = cm_tileset_is_abbey_tile(t);
	bool abbey_seen = false;
	for (size_t k = 0; k < t->n_features; k++) {
		const cm_feature *f = &t->features[k];
		cm_feature_check_id(&fc, t, k);
		cm_feature_check_shape(&fc, t, f);
		if (abbey_tile) {
			if (f->kind == CM_FEAT_ABBEY && !abbey_seen)
				abbey_seen = true;
			else
				report(c, "CM0115", cm_feature_line(t, f), t, f,
				       "%s '%s' is on an abbey tile, which holds its abbey only",
				       cm_feature_kind_name(f->kind), cm_feature_id(f));
		}
		cm_feature_check_touches(&fc, t, f);
	}
	cm_feature_check_coverage(&fc, t);
	for (size_t i = 0; i < t->n_contacts; i++) {
		cm_feature_check_contact(&fc, t, i);
		check_contact(c, &fc, t, i);
	}
	int any = 0;
	for (int e = 0; e < CM_EDITION_COUNT; e++) {
		if (t->count[e] < 0)
			report(c, "CM0112", t->line, t, NULL, "tile %s has a negative count for %s", t->id ? t->id : "?",
			       cm_edition_name((cm_edition)e));
		any |= t->count[e] > 0;
	}
	if (!any)
		report(c, "CM0112", t->line, t, NULL, "tile %s has no copies in any edition", t->id ? t->id : "?");
	if (t->start && abbey_tile)
		report(c, "CM0113", t->line, t, NULL, "an abbey tile is never drawn, so it cannot be the start tile");
}

static void check_set(const checker *c, unsigned root_line)
{
	const cm_tileset *ts = c->ts;
	int starts = 0;
	for (size_t i = 0; i < ts->n_tiles; i++) {
		check_tile(c, i);
		const cm_tile_type *t = &ts->tiles[i];
		if (!t->start || cm_tileset_is_abbey_tile(t))
			continue;
		if (!ts->base)
			report(c, "CM0113", t->line, t, NULL, "tile %s is a start tile, but an expansion has none",
			       t->id ? t->id : "?");
		else if (starts > 0)
			report(c, "CM0113", t->line, t, NULL, "tile %s is a second start tile; a base set has one",
			       t->id ? t->id : "?");
		starts++;
	}
	if (ts->base && starts == 0)
		report(c, "CM0113", root_line, NULL, NULL, "base set has no start tile: mark one with start=\"true\"");
	/* total="70" declares every edition: one diagnostic names every edition
	 * with the same declared and counted numbers */
	bool said[CM_EDITION_COUNT] = { false, false, false };
	for (int e = 0; e < CM_EDITION_COUNT; e++) {
		int decl = ts->total[e], sum = cm_tileset_total(ts, (cm_edition)e);
		if (said[e] || decl < 0 || decl == sum)
			continue;
		char eds[32] = "";
		for (int k = e; k < CM_EDITION_COUNT; k++)
			if (ts->total[k] == decl && cm_tileset_total(ts, (cm_edition)k) == sum) {
				said[k] = true;
				size_t l = strlen(eds);
				snprintf(eds + l, sizeof eds - l, "%s%s", l ? ", " : "", cm_edition_name((cm_edition)k));
			}
		report(c, "CM0114", root_line, NULL, NULL, "declared total %d does not match the %d drawn tiles of %s",
		       decl, sum, eds);
	}
}

int cm_tileset_check(const cm_tileset *ts, cm_diags *d)
{
	size_t before = cm_diags_errors(d);
	checker c = { d, ts, NULL };
	check_set(&c, ts->line);
	return cm_diags_errors(d) > before ? CM_EINVAL : 0;
}

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
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_diags_check(L->d, id, L->file, line, 0, NULL, "%s", msg ? msg : "(out of memory)");
	free(msg);
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

static int read_tile(loader *L, xmlNode *n, cm_tile_type *t, unsigned **contact_line)
{
	t->line = cm_xml_line(n);
	if (!(t->id = cm_xml_attr_token(n, "id")))
		return CM_ENOMEM;
	t->name = cm_xml_attr(n, "name");
	t->start = cm_xml_attr_bool(n, "start", false);
	read_editions(L, n, "count", 0, "CM0112", t->line, t->count);
	return cm_feature_read(n, &tile_rules, "tile", false, L->d, L->file, t, contact_line);
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
	checker ck = { L->d, ts, L->contact_line };
	check_set(&ck, ts->line);
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

/* Builds and checks the model of a parsed, schema-valid document. */
static int load_doc(xmlDoc *doc, const char *file, cm_diags *d, cm_tileset **out)
{
	size_t before = cm_diags_errors(d);
	loader L = { d, file, NULL, 0 };
	cm_tileset *ts = NULL;
	int rc = build(&L, doc, &ts);
	if (rc == CM_ENOMEM)
		cm_diags_add(d, CM_SEV_ERROR, NULL, file, 0, 0, NULL, "out of memory reading the tile set");
	if (!rc && cm_diags_errors(d) > before) {
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
	rc = load_doc(doc, file, d, out);
	xmlFreeDoc(doc);
	return rc;
}

int cm_tileset_load_file(const char *path, cm_diags *d, cm_tileset **out)
{
	*out = NULL;
	xmlDoc *doc = NULL;
	int rc = cm_xml_load_file(path, "tileset.xsd", d, &doc);
	if (rc)
		return rc;
	rc = load_doc(doc, path, d, out);
	xmlFreeDoc(doc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* writers                                                             */

/* count="n" when every edition has n, else the per-edition attributes that
 * the reader's defaults (missing = 0, C3 = C2) do not already give. */
static void xml_counts(FILE *f, const int *v, const char *one, const char *const *per, bool opt)
{
	if (v[0] == v[1] && v[1] == v[2]) {
		if (!opt || v[0] >= 0)
			fprintf(f, " %s=\"%d\"", one, v[0]);
		return;
	}
	int none = opt ? -1 : 0;
	if (v[0] != none)
		fprintf(f, " %s=\"%d\"", per[0], v[0]);
	if (v[1] != none)
		fprintf(f, " %s=\"%d\"", per[1], v[1]);
	if (v[2] != v[1] && v[2] >= 0)
		fprintf(f, " %s=\"%d\"", per[2], v[2]);
}

int cm_tileset_write_xml(const cm_tileset *ts, FILE *f)
{
	static const char *const counts[] = { "count-c1", "count-c2", "count-c3" };
	static const char *const totals[] = { "total-c1", "total-c2", "total-c3" };
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tileset format=\"1\"", f);
	cm_xml_put_attr(f, "id", ts->id ? ts->id : "");
	cm_xml_put_attr(f, "name", ts->name ? ts->name : "");
	fprintf(f, " kind=\"%s\"", ts->base ? "base" : "expansion");
	xml_counts(f, ts->total, "total", totals, true);
	fputs(">\n", f);
	for (size_t i = 0; i < ts->n_tiles; i++) {
		const cm_tile_type *t = &ts->tiles[i];
		fputs("  <tile", f);
		cm_xml_put_attr(f, "id", t->id ? t->id : "");
		if (t->name)
			cm_xml_put_attr(f, "name", t->name);
		xml_counts(f, t->count, "count", counts, false);
		if (t->start)
			fputs(" start=\"true\"", f);
		fputs(">\n", f);
		cm_feature_write_xml(f, t, "    ");
		fputs("  </tile>\n", f);
	}
	fputs("</tileset>\n", f);
	return ferror(f) ? CM_EIO : 0;
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
		cm_json_obj_end(&j);
	}
	cm_json_arr_end(&j);
	cm_json_obj_end(&j);
	return cm_json_finish(&j) ? CM_EIO : 0;
}
