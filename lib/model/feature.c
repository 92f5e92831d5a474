/* SPDX-License-Identifier: MIT */
/* feature.c: the checks on one tile's features, slots and contacts, in the
 * tile vocabulary shared by tile sets and big-city pieces (feature_int.h).
 * The rule ids come from the caller; the rules behind each check are in
 * schemas/tileset.md. Reading and writing the elements is io/feature_xml.c. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "model/feature_int.h"
#include "base/util_int.h"

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
