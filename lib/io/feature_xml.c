/* SPDX-License-Identifier: MIT */
/* feature_xml.c: feature and <contact> elements (feature_xml_int.h), shared
 * by tile sets and big-city pieces: the reader (after schema validation)
 * and the writer. The checks on what is read are model/feature.c. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "io/feature_xml_int.h"
#include "model/tilegrid_int.h"
#include "base/util_int.h"
#include "io/xml_int.h"

/* ---- reading ---- */

/* Index of the feature whose id is the len bytes at tok, or -1. */
static int find_feature(const cm_tile_type *t, const char *tok, size_t len)
{
	for (size_t k = 0; k < t->n_features; k++)
		if (t->features[k].id && strlen(t->features[k].id) == len && memcmp(t->features[k].id, tok, len) == 0)
			return (int)k;
	return -1;
}

/* The feature kind an element names; false for <contact>. */
static bool element_kind(const xmlNode *n, cm_feature_kind *kind)
{
	return !cm_xml_is(n, "contact") && cm_feature_kind_parse((const char *)n->name, kind) == 0;
}

static cm_good parse_good(const char *s)
{
	for (int g = CM_GOOD_WINE; s && g <= CM_GOOD_CLOTH; g++)
		if (strcmp(s, cm_good_name((cm_good)g)) == 0)
			return (cm_good)g;
	return CM_GOOD_NONE;
}

/* One feature element into f. A slot named twice is reported here: the
 * mask cannot hold it twice, so the checks would never see it. */
static int read_one(const xmlNode *n, cm_feature_kind kind, const cm_feature_rules *rules, cm_diags *d,
                    const char *file, cm_feature *f)
{
	f->kind = kind;
	f->line = cm_xml_line(n);
	if (!(f->id = cm_xml_attr_token(n, "id")))
		return CM_ENOMEM; /* required by the schemas */
	char *slots = cm_xml_attr(n, "slots");
	if (slots) {
		const char *p = slots, *tok;
		size_t len;
		while ((len = cm_xml_next_token(&p, &tok)) > 0) {
			char name[4] = "";
			if (len < sizeof name)
				memcpy(name, tok, len);
			int b = cm_slot_parse(name);
			if (b < 0)
				continue; /* the schema allows only slot names */
			if (f->slots & (1u << b)) {
				unsigned sc, sl = cm_xml_attr_pos(n, "slots", &sc);
				cm_diags_check(d, rules->slot_twice, file, sl, sc, NULL, "slot %s is listed twice in %s '%s'",
				               name, cm_feature_kind_name(kind), f->id);
			}
			f->slots |= (cm_slots)(1u << b);
		}
		free(slots);
	} else if (kind == CM_FEAT_ABBEY) {
		f->slots = CM_SLOTS_ALL; /* an abbey covers every slot (tileset.md) */
	}
	int arms = cm_xml_attr_int(n, "arms", 0);
	f->arms = (uint8_t)(arms < 0 ? 0 : arms > 255 ? 255 : arms);
	f->cathedral = cm_xml_attr_bool(n, "cathedral", false);
	f->inn = cm_xml_attr_bool(n, "inn", false);
	char *good = cm_xml_attr_token(n, "good");
	f->good = parse_good(good);
	free(good);
	return 0;
}

/* touches="c1 c2" of field k, resolved once every feature is known. Names
 * of no feature are reported; what the others name is left to the checks. */
static void read_touches(const xmlNode *n, const cm_feature_rules *rules, const char *noun, cm_diags *d,
                         const char *file, cm_tile_type *t, size_t k)
{
	char *s = cm_xml_attr(n, "touches");
	if (!s)
		return;
	cm_feature *f = &t->features[k];
	const char *p = s, *tok;
	size_t len;
	while ((len = cm_xml_next_token(&p, &tok)) > 0) {
		int j = find_feature(t, tok, len);
		unsigned tc, tl = cm_xml_attr_pos(n, "touches", &tc);
		if (j < 0)
			cm_diags_check(d, rules->touches, file, tl, tc, NULL,
			               "field '%s' touches '%.*s', which is no feature of this %s", f->id, (int)len, tok,
			               noun);
		else if (j < CM_MAX_FEATURES) /* beyond that: too_many from the checks */
			f->touches |= 1u << j;
	}
	free(s);
}

/* A <contact>: a mask of the named features, or 0 when it is dropped (a
 * name of no feature, a feature beyond the limit, or too few with
 * drop_short). */
static uint32_t read_contact(const xmlNode *n, const cm_feature_rules *rules, const char *noun, bool drop_short,
                             cm_diags *d, const char *file, const cm_tile_type *t)
{
	char *s = cm_xml_attr(n, "features");
	if (!s)
		return 0;
	unsigned col, line = cm_xml_attr_pos(n, "features", &col);
	uint32_t m = 0;
	bool ok = true;
	const char *p = s, *tok;
	size_t len;
	while ((len = cm_xml_next_token(&p, &tok)) > 0) {
		int j = find_feature(t, tok, len);
		if (j < 0) {
			cm_diags_check(d, rules->contact, file, line, col, NULL,
			               "contact names '%.*s', which is no feature of this %s", (int)len, tok, noun);
			ok = false;
		} else if (j >= CM_MAX_FEATURES) {
			ok = false;
		} else {
			m |= 1u << j;
		}
	}
	free(s);
	if (ok && drop_short && cm_feature_popcount(m) < 2) {
		cm_diags_check(d, rules->contact_size, file, line, col, NULL, "contact has %d feature%s: it needs at least two",
		               cm_feature_popcount(m), cm_feature_popcount(m) == 1 ? "" : "s");
		ok = false;
	}
	return ok ? m : 0;
}

/* ---- the grid form (tile sets) ---- */

typedef struct {
	cm_diags *d;
	const char *file;
} grid_sink;

static void grid_report(void *arg, const char *rule, unsigned line, unsigned col, const char *msg)
{
	const grid_sink *g = arg;
	cm_diags_check(g->d, rule, g->file, line, col, NULL, "%s", msg);
}

/* The <grid> child of a tile, or NULL. */
static xmlNode *grid_of(const xmlNode *parent)
{
	for (xmlNode *c = cm_xml_elem(parent->children); c; c = cm_xml_elem(c->next))
		if (cm_xml_is(c, "grid"))
			return c;
	return NULL;
}

/* The features of a tile with a <grid>: their slots come from it, and
 * its regions no element takes become features (tilegrid.c); the
 * elements say ids, attributes, marks and touches. Without a grid, a mark
 * is an error. */
static int read_grid(const xmlNode *parent, xmlNode *grid, cm_diags *d, const char *file, cm_tile_type *t)
{
	grid_sink sink = { d, file };
	cm_grid_decl decl[CM_MAX_FEATURES];
	size_t k = 0;
	cm_feature_kind kind;
	for (xmlNode *c = cm_xml_elem(parent->children); c; c = cm_xml_elem(c->next)) {
		if (!element_kind(c, &kind))
			continue;
		char *mark = cm_xml_attr_token(c, "mark");
		unsigned col, line = cm_xml_attr_pos(c, grid ? "slots" : "mark", &col);
		if (grid && cm_xml_has_attr(c, "slots")) {
			cm_diags_check(d, "CM0118", file, line, col, NULL,
			               "%s '%s' gives slots beside a <grid>: the grid gives them, draw it there",
			               cm_feature_kind_name(kind), t->features[k].id);
		} else if (!grid && mark) {
			cm_diags_check(d, "CM0118", file, line, col, NULL,
			               "%s '%s' has a mark, but the tile has no <grid> to show it", cm_feature_kind_name(kind),
			               t->features[k].id);
		}
		if (k < CM_MAX_FEATURES) {
			unsigned mcol;
			unsigned mline = cm_xml_attr_pos(c, "mark", &mcol);
			decl[k] = (cm_grid_decl){ mark ? mark[0] : 0, cm_xml_has_attr(c, "touches"), mline, mcol };
		}
		free(mark);
		k++;
	}
	if (!grid || k > CM_MAX_FEATURES) /* more: CM0116 from the checks */
		return 0;
	cm_tile_grid g;
	char *text = (char *)xmlNodeGetContent(grid);
	if (!text)
		return CM_ENOMEM;
	unsigned col, line = cm_xml_content_pos(grid, &col);
	/* an unreadable cell or row reads as nothing (#): what the rest says
	 * still gives slots and features, for the checks and the pictures */
	(void)cm_tile_grid_parse(text, line, col, &g, grid_report, &sink);
	xmlFree(text);
	for (size_t i = 0; i < t->n_features; i++)
		t->features[i].slots = 0;
	int rc = cm_tile_grid_apply(&g, decl, t, grid_report, &sink);
	return rc == CM_ENOMEM ? rc : 0;
}

int cm_feature_read(const xmlNode *parent, const cm_feature_rules *rules, const char *noun,
                    bool drop_short, cm_diags *d, const char *file, cm_tile_type *t,
                    unsigned **contact_line)
{
	return cm_feature_read_grid(parent, rules, noun, drop_short, false, d, file, t, contact_line);
}

int cm_feature_read_grid(const xmlNode *parent, const cm_feature_rules *rules, const char *noun,
                         bool drop_short, bool grid, cm_diags *d, const char *file, cm_tile_type *t,
                         unsigned **contact_line)
{
	size_t nf = 0, nc = 0;
	cm_feature_kind kind;
	for (xmlNode *c = cm_xml_elem(parent->children); c; c = cm_xml_elem(c->next)) {
		if (cm_xml_is(c, "contact"))
			nc++;
		else
			nf++;
	}
	t->features = calloc(nf ? nf : 1, sizeof *t->features);
	t->contacts = calloc(nc ? nc : 1, sizeof *t->contacts);
	unsigned *lines = NULL;
	if (contact_line && !(*contact_line = lines = calloc(nc ? nc : 1, sizeof *lines)))
		return CM_ENOMEM;
	if (!t->features || !t->contacts)
		return CM_ENOMEM;
	for (xmlNode *c = cm_xml_elem(parent->children); c; c = cm_xml_elem(c->next)) {
		if (!element_kind(c, &kind))
			continue;
		int rc = read_one(c, kind, rules, d, file, &t->features[t->n_features++]);
		if (rc)
			return rc;
	}
	/* the grid's features come before touches and contacts name them */
	if (grid) {
		int rc = read_grid(parent, grid_of(parent), d, file, t);
		if (rc)
			return rc;
	}
	size_t k = 0;
	for (xmlNode *c = cm_xml_elem(parent->children); c; c = cm_xml_elem(c->next)) {
		if (element_kind(c, &kind)) {
			if (kind == CM_FEAT_FIELD)
				read_touches(c, rules, noun, d, file, t, k);
			k++;
		} else if (cm_xml_is(c, "contact")) {
			uint32_t m = read_contact(c, rules, noun, drop_short, d, file, t);
			if (!m)
				continue;
			if (lines)
				lines[t->n_contacts] = cm_xml_line(c);
			t->contacts[t->n_contacts++] = m;
		}
	}
	cm_tile_type_derive(t); /* a slot covered twice is reported by the checks */
	return 0;
}

/* ---- writing ---- */

/* ` name="id id"`: the ids of the features in mask m, in feature order */
static void write_ids(cm_xw *x, const char *name, const cm_tile_type *t, uint32_t m)
{
	char *v = NULL;
	size_t len = 0, cap = 0;
	bool fail = false;
	for (size_t k = 0; k < t->n_features && k < CM_MAX_FEATURES; k++)
		if (m & (1u << k)) {
			const char *id = cm_feature_id(&t->features[k]);
			size_t n = strlen(id);
			if (len + n + 2 > cap) {
				size_t nc = (len + n + 2) * 2;
				char *nv = realloc(v, nc);
				if (!nv) {
					fail = true;
					break;
				}
				v = nv;
				cap = nc;
			}
			if (len)
				v[len++] = ' ';
			memcpy(v + len, id, n + 1);
			len += n;
		}
	if (fail)
		cm_xw_fail(x); /* out of memory: nothing is written */
	else
		cm_xw_attr(x, name, v ? v : "");
	free(v);
}

/* One feature element: with slots, or (grid form) with its mark and
 * touches only when the picture does not say them. */
static void write_feature(cm_xw *x, const cm_tile_type *t, const cm_feature *ft, int depth, bool slots, char mark,
                          bool touches)
{
	char buf[64];
	cm_xw_open(x, depth, cm_feature_kind_name(ft->kind));
	cm_xw_attr(x, "id", cm_feature_id(ft));
	if (mark) {
		char m[2] = { mark, 0 };
		cm_xw_attr(x, "mark", m);
	}
	if (slots && ft->slots) {
		cm_slots_format(ft->slots, buf, sizeof buf);
		cm_xw_attr(x, "slots", buf);
	}
	if (ft->arms)
		cm_xw_attr_int(x, "arms", (long)ft->arms);
	if (ft->cathedral)
		cm_xw_attr(x, "cathedral", "true");
	if (ft->good != CM_GOOD_NONE)
		cm_xw_attr(x, "good", cm_good_name(ft->good));
	if (ft->inn)
		cm_xw_attr(x, "inn", "true");
	if (touches)
		write_ids(x, "touches", t, ft->touches);
	cm_xw_close(x, depth);
}

static void write_contacts(cm_xw *x, const cm_tile_type *t, int depth)
{
	for (size_t c = 0; c < t->n_contacts; c++) {
		cm_xw_open(x, depth, "contact");
		write_ids(x, "features", t, t->contacts[c]);
		cm_xw_close(x, depth);
	}
}

void cm_feature_write_xml(cm_xw *x, const cm_tile_type *t, int depth)
{
	for (size_t k = 0; k < t->n_features; k++)
		write_feature(x, t, &t->features[k], depth, true, 0, t->features[k].touches != 0);
	write_contacts(x, t, depth);
}

void cm_feature_write_xml_grid(cm_xw *x, const cm_tile_type *t, const cm_tile_grid_layout *L, int depth)
{
	/* the rows indented one level deeper than <grid>, the end tag at its depth */
	char text[8 * CM_GRID_N + 4 * 2 * (CM_GRID_N + 1) + 8], *p = text;
	for (int y = 0; y < CM_GRID_N; y++) {
		*p++ = '\n';
		for (int i = 0; i < 2 * (depth + 1); i++)
			*p++ = ' ';
		memcpy(p, L->grid.c[y], CM_GRID_N);
		p += CM_GRID_N;
	}
	*p++ = '\n';
	for (int i = 0; i < 2 * depth; i++)
		*p++ = ' ';
	*p = '\0';
	cm_xw_open(x, depth, "grid");
	cm_xw_text(x, text);
	cm_xw_close(x, depth);
	for (size_t k = 0; k < L->n_elements && k < t->n_features; k++)
		write_feature(x, t, &t->features[k], depth, false, L->mark[k], L->touches[k]);
	write_contacts(x, t, depth);
}
