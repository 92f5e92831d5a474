/* SPDX-License-Identifier: MIT */
/* feature.c: features in the tile vocabulary (feature_int.h), shared by
 * tile sets and big-city pieces: the reader of feature and <contact>
 * elements (after schema validation) and the checks on one tile's features,
 * slots and contacts. The rule ids come from the caller; the rules behind
 * each check are in schemas/tileset.md. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "io/feature_int.h"
#include "base/util_int.h"
#include "io/xml_int.h"

int cm_feature_popcount(uint32_t v)
{
	int n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

const char *cm_feature_id(const cm_feature *f)
{
	return f->id ? f->id : "?";
}

unsigned cm_feature_line(const cm_tile_type *t, const cm_feature *f)
{
	return f->line ? f->line : t->line;
}

unsigned cm_feature_contact_line(const cm_feature_checker *c, const cm_tile_type *t, size_t i)
{
	return c->contact_line ? c->contact_line[i] : t->line;
}

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
			if (f->slots & (1u << b))
				cm_diags_check(d, rules->slot_twice, file, f->line, 0, NULL, "slot %s is listed twice in %s '%s'",
				               name, cm_feature_kind_name(kind), f->id);
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
		if (j < 0)
			cm_diags_check(d, rules->touches, file, f->line, 0, NULL,
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
	unsigned line = cm_xml_line(n);
	uint32_t m = 0;
	bool ok = true;
	const char *p = s, *tok;
	size_t len;
	while ((len = cm_xml_next_token(&p, &tok)) > 0) {
		int j = find_feature(t, tok, len);
		if (j < 0) {
			cm_diags_check(d, rules->contact, file, line, 0, NULL,
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
		cm_diags_check(d, rules->contact_size, file, line, 0, NULL, "contact has %d feature%s: it needs at least two",
		               cm_feature_popcount(m), cm_feature_popcount(m) == 1 ? "" : "s");
		ok = false;
	}
	return ok ? m : 0;
}

int cm_feature_read(const xmlNode *parent, const cm_feature_rules *rules, const char *noun,
                    bool drop_short, cm_diags *d, const char *file, cm_tile_type *t,
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
static void write_ids(FILE *f, const char *name, const cm_tile_type *t, uint32_t m)
{
	fprintf(f, " %s=\"", name);
	for (size_t k = 0, n = 0; k < t->n_features && k < CM_MAX_FEATURES; k++)
		if (m & (1u << k)) {
			fputs(n++ ? " " : "", f);
			cm_xml_put_escaped(f, cm_feature_id(&t->features[k]));
		}
	fputc('"', f);
}

void cm_feature_write_xml(FILE *f, const cm_tile_type *t, const char *indent)
{
	char buf[64];
	for (size_t k = 0; k < t->n_features; k++) {
		const cm_feature *ft = &t->features[k];
		fprintf(f, "%s<%s", indent, cm_feature_kind_name(ft->kind));
		cm_xml_put_attr(f, "id", cm_feature_id(ft));
		if (ft->slots) {
			cm_slots_format(ft->slots, buf, sizeof buf);
			cm_xml_put_attr(f, "slots", buf);
		}
		if (ft->arms)
			fprintf(f, " arms=\"%u\"", (unsigned)ft->arms);
		if (ft->cathedral)
			fputs(" cathedral=\"true\"", f);
		if (ft->good != CM_GOOD_NONE)
			fprintf(f, " good=\"%s\"", cm_good_name(ft->good));
		if (ft->inn)
			fputs(" inn=\"true\"", f);
		if (ft->touches)
			write_ids(f, "touches", t, ft->touches);
		fputs("/>\n", f);
	}
	for (size_t c = 0; c < t->n_contacts; c++) {
		fprintf(f, "%s<contact", indent);
		write_ids(f, "features", t, t->contacts[c]);
		fputs("/>\n", f);
	}
}

/* ---- checks ---- */

static void say(const cm_feature_checker *c, const char *rule, unsigned line, const cm_feature *f,
                const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

static void say(const cm_feature_checker *c, const char *rule, unsigned line, const cm_feature *f,
                const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	c->report(c->arg, rule, line, f, msg ? msg : "(out of memory)");
	free(msg);
}

void cm_feature_check_count(const cm_feature_checker *c, const cm_tile_type *t)
{
	if (t->n_features > CM_MAX_FEATURES)
		say(c, c->rules->too_many, t->line, NULL, "%s has %zu features; at most %d are allowed", c->name,
		    t->n_features, CM_MAX_FEATURES);
}

void cm_feature_check_id(const cm_feature_checker *c, const cm_tile_type *t, size_t k)
{
	const cm_feature *f = &t->features[k];
	for (size_t j = 0; j < k; j++)
		if (f->id && t->features[j].id && strcmp(f->id, t->features[j].id) == 0) {
			say(c, c->rules->feature_id, cm_feature_line(t, f), f, "feature id '%s' is already used in this %s",
			    f->id, c->noun);
			break;
		}
}

void cm_feature_check_shape(const cm_feature_checker *c, const cm_tile_type *t, const cm_feature *f)
{
	const char *rule = c->rules->shape, *id = cm_feature_id(f);
	unsigned line = cm_feature_line(t, f);
	const char *kind = cm_feature_kind_name(f->kind);
	char buf[64];
	if (f->slots & ~CM_SLOTS_ALL)
		say(c, rule, line, f, "%s '%s' has slot bits beyond the 12 edge slots", kind, id);
	cm_slots m = f->slots & CM_SLOTS_ALL;
	switch (f->kind) {
	case CM_FEAT_CITY:
		if (!m)
			say(c, rule, line, f, "city '%s' covers no slots: a city reaches the edge", id);
		for (int s = 0; s < 4; s++) {
			cm_slots side = CM_SIDE_SLOTS(s);
			if ((m & side) && (m & side) != side) {
				cm_slots_format(m & side, buf, sizeof buf);
				say(c, rule, line, f, "city '%s' covers %s but not the whole side %s (a city covers whole sides)",
				    id, buf, cm_side_name((cm_side)s));
			}
		}
		break;
	case CM_FEAT_ROAD: {
		cm_slots mid = CM_SIDE_MID(CM_N) | CM_SIDE_MID(CM_E) | CM_SIDE_MID(CM_S) | CM_SIDE_MID(CM_W);
		if (!m)
			say(c, rule, line, f, "road '%s' covers no slots: a road reaches the edge", id);
		if (m & ~mid) {
			cm_slots_format(m & ~mid, buf, sizeof buf);
			say(c, rule, line, f, "road '%s' covers %s: a road covers middle slots only (Nm Em Sm Wm)", id, buf);
		}
		break;
	}
	case CM_FEAT_MONASTERY:
	case CM_FEAT_GARDEN:
		if (m)
			say(c, rule, line, f, "%s '%s' covers slots: a %s lies inside the tile", kind, id, kind);
		break;
	case CM_FEAT_ABBEY:
		if (m != CM_SLOTS_ALL)
			say(c, rule, line, f, "abbey '%s' must cover all 12 slots", id);
		break;
	case CM_FEAT_FIELD:
		break;
	}
	if (f->kind != CM_FEAT_CITY && (f->arms || f->cathedral || f->good != CM_GOOD_NONE))
		say(c, rule, line, f, "%s '%s' has arms, a cathedral or a good: only a city has them", kind, id);
	if (f->kind != CM_FEAT_ROAD && f->inn)
		say(c, rule, line, f, "%s '%s' has an inn: only a road has one", kind, id);
	if (f->kind != CM_FEAT_FIELD && f->touches)
		say(c, rule, line, f, "%s '%s' has touches: only a field touches cities", kind, id);
}

void cm_feature_check_touches(const cm_feature_checker *c, const cm_tile_type *t, const cm_feature *f)
{
	for (int b = 0; b < 32; b++) {
		if (!(f->touches & (1u << b)))
			continue;
		if ((size_t)b >= t->n_features)
			say(c, c->rules->touches, cm_feature_line(t, f), f,
			    "%s '%s' touches feature number %d, which the %s does not have", cm_feature_kind_name(f->kind),
			    cm_feature_id(f), b + 1, c->noun);
		else if (t->features[b].kind != CM_FEAT_CITY)
			say(c, c->rules->touches, cm_feature_line(t, f), f, "%s '%s' touches '%s', which is a %s, not a city",
			    cm_feature_kind_name(f->kind), cm_feature_id(f), cm_feature_id(&t->features[b]),
			    cm_feature_kind_name(t->features[b].kind));
	}
}

/* Every edge slot belongs to exactly one feature. */
void cm_feature_check_coverage(const cm_feature_checker *c, const cm_tile_type *t)
{
	cm_slots seen = 0;
	char buf[64];
	for (size_t k = 0; k < t->n_features; k++) {
		const cm_feature *f = &t->features[k];
		cm_slots twice = f->slots & seen & CM_SLOTS_ALL;
		if (twice) {
			/* name the first earlier feature that holds one of them */
			const cm_feature *o = NULL;
			for (size_t j = 0; j < k && !o; j++)
				if (t->features[j].slots & twice)
					o = &t->features[j];
			cm_slots_format(twice, buf, sizeof buf);
			bool one = cm_feature_popcount(twice) == 1;
			say(c, c->rules->slot_twice, cm_feature_line(t, f), f, "slot%s %s of %s '%s' already belong%s to %s '%s'",
			    one ? "" : "s", buf, cm_feature_kind_name(f->kind), cm_feature_id(f), one ? "s" : "",
			    o ? cm_feature_kind_name(o->kind) : "?", o ? cm_feature_id(o) : "?");
		}
		seen |= f->slots;
	}
	cm_slots missing = (cm_slots)(~seen & CM_SLOTS_ALL);
	if (missing) {
		cm_slots_format(missing, buf, sizeof buf);
		bool one = cm_feature_popcount(missing) == 1;
		say(c, c->rules->uncovered, t->line, NULL, "slot%s %s of %s belong%s to no feature", one ? "" : "s", buf,
		    c->name, one ? "s" : "");
	}
}

/* Contact i names features the tile has, at least two of them. */
void cm_feature_check_contact(const cm_feature_checker *c, const cm_tile_type *t, size_t i)
{
	unsigned line = cm_feature_contact_line(c, t, i);
	uint32_t m = t->contacts[i];
	size_t n = t->n_features < CM_MAX_FEATURES ? t->n_features : CM_MAX_FEATURES;
	uint32_t valid = n >= 32 ? 0xFFFFFFFFu : ((1u << n) - 1u);
	if (m & ~valid)
		say(c, c->rules->contact, line, NULL, "contact %zu names feature numbers the %s does not have", i + 1,
		    c->noun);
	int members = cm_feature_popcount(m & valid);
	if (members < 2)
		say(c, c->rules->contact_size, line, NULL, "contact has %d feature%s: it needs at least two", members,
		    members == 1 ? "" : "s");
}

void cm_feature_check(const cm_feature_checker *c, const cm_tile_type *t)
{
	cm_feature_check_count(c, t);
	for (size_t k = 0; k < t->n_features; k++) {
		cm_feature_check_id(c, t, k);
		cm_feature_check_shape(c, t, &t->features[k]);
		cm_feature_check_touches(c, t, &t->features[k]);
	}
	cm_feature_check_coverage(c, t);
	for (size_t i = 0; i < t->n_contacts; i++)
		cm_feature_check_contact(c, t, i);
}
