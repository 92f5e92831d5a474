/* SPDX-License-Identifier: MIT */
/* tileset.c: tile sets (carcamap/tileset.h): the model, its look-ups and
 * the semantic checks CM01xx (the checks on one tile's features are
 * feature.c, which big-city pieces share). Reading and writing tile-set
 * files is io/tileset_io.c. Rules of each check: schemas/tileset.md. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/tileset.h"
#include "model/feature_int.h"
#include "model/tileset_int.h"
#include "base/util_int.h"


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
	size_t *first_id; /* per tile: the first tile of its id (itself when first) */
} checker;

static void report(const checker *c, const char *id, unsigned line, const cm_tile_type *t,
                   const cm_feature *f, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;

static void vreport(const checker *c, const char *id, unsigned line, const cm_tile_type *t, const cm_feature *f,
                    const char *fmt, va_list ap)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 0)))
#endif
	;
static void vreport(const checker *c, const char *id, unsigned line, const cm_tile_type *t, const cm_feature *f,
                    const char *fmt, va_list ap)
{
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
	cm_diag_scope s;
	cm_diag_scope_init(&s, c->d, c->ts->file);
	cm_diag_scope_vadd(&s, id, c->ts->file ? line : 0, 0, where, fmt, ap);
	free(where);
}

static void report(const checker *c, const char *id, unsigned line, const cm_tile_type *t,
                   const cm_feature *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(c, id, line, t, f, fmt, ap);
	va_end(ap);
}

static void report_at(const checker *c, const char *id, unsigned line, const char *attr, const cm_tile_type *t,
                      const cm_feature *f, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;
/* report about attribute attr of the element on that line: with its column
 * when the source shows it there once (cm_diags_point). */
static void report_at(const checker *c, const char *id, unsigned line, const char *attr, const cm_tile_type *t,
                      const cm_feature *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(c, id, line, t, f, fmt, ap);
	va_end(ap);
	cm_diags_point(c->d, attr);
}

const cm_feature_rules cm_tileset_tile_rules = {
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
	/* the attribute each feature rule is about, on the feature's line */
	const cm_feature_rules *r = &cm_tileset_tile_rules;
	const char *attr = !rule                                       ? NULL
	                   : strcmp(rule, r->feature_id) == 0          ? "id"
	                   : strcmp(rule, r->touches) == 0             ? "touches"
	                   : strcmp(rule, r->slot_twice) == 0 || strcmp(rule, r->shape) == 0 ? "slots"
	                                                               : NULL;
	report_at(tr->c, rule, line, attr, tr->t, f, "%s", msg);
}

/* CM0109-CM0111 for contact i of tile t (feature.c checked its members). */
static void check_contact(const checker *c, const cm_feature_checker *fc, const cm_tile_type *t, size_t i,
                          size_t first)
{
	unsigned line = cm_feature_contact_line(fc, t, i);
	size_t n = t->n_features < CM_MAX_FEATURES ? t->n_features : CM_MAX_FEATURES;
	uint32_t m = t->contacts[i];
	for (size_t k = 0; k < n; k++) {
		const cm_feature *f = &t->features[k];
		if (!(m & (1u << k)))
			continue;
		if (f->kind == CM_FEAT_FIELD || f->kind == CM_FEAT_GARDEN)
			report_at(c, "CM0109", line, "features", t, f, "%s '%s' is in a contact: a wagon never stands on a %s",
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
					report_at(c, "CM0110", line, "features", t, f,
					       "road '%s' and city '%s' are in contact on the same side %s, "
					       "which cannot show both",
					       cm_feature_id(f), cm_feature_id(g), cm_side_name((cm_side)s));
		}
	}
	if (first != i)
		report_at(c, "CM0111", line, "features", t, NULL, "contact %zu repeats contact %zu", i + 1, first + 1);
}

typedef struct {
	const uint32_t *v; /* masks (contacts) */
	uint32_t want;
} mask_ctx;

static bool same_mask(const void *ctx, size_t j)
{
	const mask_ctx *m = ctx;
	return m->v[j] == m->want;
}

typedef struct {
	const cm_tileset *ts;
	const char *want;
} tile_id_ctx;

static bool same_tile_id(const void *ctx, size_t j)
{
	const tile_id_ctx *c = ctx;
	return c->ts->tiles[j].id && strcmp(c->ts->tiles[j].id, c->want) == 0;
}

static void check_tile(const checker *c, size_t ti)
{
	const cm_tileset *ts = c->ts;
	const cm_tile_type *t = &ts->tiles[ti];
	char name[96];
	snprintf(name, sizeof name, "tile %s", t->id ? t->id : "?");
	tile_report tr = { c, t };
	const cm_feature_checker fc = { &cm_tileset_tile_rules, "tile", name,
	                                c->contact_line ? c->contact_line[ti] : NULL, report_feature, &tr };
	if (c->first_id && c->first_id[ti] != ti)
		report_at(c, "CM0104", t->line, "id", t, NULL, "tile id '%s' is already used (line %u)", t->id,
		       ts->tiles[c->first_id[ti]].line);
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
	/* repeated contacts found through an index: linear in the contacts */
	cm_index seen = { 0 };
	for (size_t i = 0; i < t->n_contacts; i++) {
		cm_feature_check_contact(&fc, t, i);
		uint32_t m = t->contacts[i];
		size_t first = cm_index_find_or_add(&seen, (uint64_t)m * 0x9E3779B97F4A7C15ull, i, same_mask,
		                                    &(mask_ctx){ t->contacts, m });
		check_contact(c, &fc, t, i, first == (size_t)-1 ? i : first);
	}
	cm_index_free(&seen);
	int any = 0;
	for (int e = 0; e < CM_EDITION_COUNT; e++) {
		if (t->count[e] < 0)
			report_at(c, "CM0112", t->line, "count", t, NULL, "tile %s has a negative count for %s", t->id ? t->id : "?",
			       cm_edition_name((cm_edition)e));
		any |= t->count[e] > 0;
	}
	if (!any)
		report_at(c, "CM0112", t->line, "count", t, NULL, "tile %s has no copies in any edition", t->id ? t->id : "?");
	if (t->start && abbey_tile)
		report_at(c, "CM0113", t->line, "start", t, NULL, "an abbey tile is never drawn, so it cannot be the start tile");
}

static void check_set(const checker *c, unsigned root_line)
{
	const cm_tileset *ts = c->ts;
	int starts = 0;
	/* the first tile of each id, through an index: linear in the tiles */
	cm_index ids = { 0 };
	size_t *first_id = malloc((ts->n_tiles + 1) * sizeof *first_id);
	for (size_t i = 0; first_id && i < ts->n_tiles; i++) {
		const char *id = ts->tiles[i].id;
		first_id[i] = id ? cm_index_find_or_add(&ids, cm_hash_str(id), i, same_tile_id, &(tile_id_ctx){ ts, id }) : i;
		if (first_id[i] == (size_t)-1)
			first_id[i] = i;
	}
	cm_index_free(&ids);
	checker cc = *c;
	cc.first_id = first_id;
	c = &cc;
	for (size_t i = 0; i < ts->n_tiles; i++) {
		check_tile(c, i);
		const cm_tile_type *t = &ts->tiles[i];
		if (!t->start || cm_tileset_is_abbey_tile(t))
			continue;
		if (!ts->base)
			report_at(c, "CM0113", t->line, "start", t, NULL, "tile %s is a start tile, but an expansion has none",
			       t->id ? t->id : "?");
		else if (starts > 0)
			report_at(c, "CM0113", t->line, "start", t, NULL, "tile %s is a second start tile; a base set has one",
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
		report_at(c, "CM0114", root_line, "total", NULL, NULL, "declared total %d does not match the %d drawn tiles of %s",
		       decl, sum, eds);
	}
	free(first_id);
}

int cm_tileset_check_lines(const cm_tileset *ts, unsigned *const *contact_line, cm_diags *d)
{
	size_t before = cm_diags_errors(d);
	checker c = { d, ts, contact_line, NULL };
	check_set(&c, ts->line);
	return cm_diags_errors(d) > before ? CM_EINVAL : 0;
}

int cm_tileset_check(const cm_tileset *ts, cm_diags *d)
{
	return cm_tileset_check_lines(ts, NULL, d);
}
