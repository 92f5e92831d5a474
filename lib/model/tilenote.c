/* SPDX-License-Identifier: MIT */
/* tilenote.c: the tile notation of schemas/scenario.md for one tile's
 * features (model/tilenote_int.h): a writer that always names ids and a
 * reader that gives the default ids the scenario reader gives. No checks
 * beyond syntax: the callers run the feature checks of their format. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/tilenote_int.h"
#include "base/util_int.h"

static const char kind_letter[CM_FEAT_KIND_COUNT] = { 'r', 'c', 'f', 'm', 'g', 'a' };

typedef struct {
	char *s;
	size_t n, cap;
	int oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void put(sbuf *b, const char *fmt, ...)
{
	if (b->oom)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *t = cm_vasprintf(fmt, ap);
	va_end(ap);
	size_t k = t ? strlen(t) : 0;
	if (!t || cm_grow((void **)&b->s, &b->cap, b->n + k, 1)) {
		free(t);
		b->oom = 1;
		return;
	}
	memcpy(b->s + b->n, t, k + 1);
	b->n += k;
	free(t);
}

static const char *fid(const cm_feature *f, char *buf, size_t size, size_t i)
{
	if (f->id)
		return f->id;
	snprintf(buf, size, "#%zu", i);
	return buf;
}

char *cm_tilenote_format(const cm_tile_type *t)
{
	sbuf b = { 0 };
	put(&b, "%s", "");
	for (size_t i = 0; i < t->n_features; i++) {
		const cm_feature *f = &t->features[i];
		char slots[64], idb[24];
		cm_slots_format(f->slots, slots, sizeof slots);
		put(&b, "%s%s[%s] id=%s", i ? " ; " : "", cm_feature_kind_name(f->kind), slots,
		    fid(f, idb, sizeof idb, i));
		if (f->arms)
			put(&b, " arms=%u", (unsigned)f->arms);
		if (f->inn)
			put(&b, " inn");
		if (f->cathedral)
			put(&b, " cathedral");
		if (f->good != CM_GOOD_NONE)
			put(&b, " good=%s", cm_good_name(f->good));
		if (f->touches) {
			put(&b, " touches=");
			int first = 1;
			for (size_t k = 0; k < t->n_features && k < 32; k++)
				if (f->touches & (1u << k)) {
					put(&b, "%s%s", first ? "" : ",", fid(&t->features[k], idb, sizeof idb, k));
					first = 0;
				}
		}
	}
	for (size_t i = 0; i < t->n_contacts; i++) {
		put(&b, "%scontact[", b.n ? " ; " : "");
		int first = 1;
		for (size_t k = 0; k < t->n_features && k < 32; k++)
			if (t->contacts[i] & (1u << k)) {
				char idb[24];
				put(&b, "%s%s", first ? "" : " ", fid(&t->features[k], idb, sizeof idb, k));
				first = 0;
			}
		put(&b, "]");
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

#define TERR(...)                                  \
	do {                                           \
		snprintf(err, errsize, __VA_ARGS__);       \
		rc = CM_EINVAL;                            \
		goto out;                                  \
	} while (0)

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

static int find_id(const cm_tile_type *t, const char *id)
{
	for (size_t i = 0; i < t->n_features; i++)
		if (t->features[i].id && strcmp(t->features[i].id, id) == 0)
			return (int)i;
	return -1;
}

static int small_int(const char *s, int *out)
{
	int v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 255)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (v > 255)
		return -1;
	*out = v;
	return 0;
}

int cm_tilenote_parse(const char *text, cm_tile_type *t, char *err, size_t errsize)
{
	memset(t, 0, sizeof *t);
	err[0] = '\0';
	int rc = 0;
	char *buf = cm_strdup(text);
	size_t n_items = 1;
	for (const char *p = text; *p; p++)
		n_items += *p == ';';
	char **touches = calloc(n_items, sizeof *touches);
	char **contacts = calloc(n_items, sizeof *contacts);
	size_t n_contacts = 0;
	int per_kind[CM_FEAT_KIND_COUNT] = { 0 };
	if (!buf || !touches || !contacts) {
		rc = CM_ENOMEM;
		goto out;
	}
	if (n_items > CM_MAX_FEATURES * 2 + 1)
		TERR("more than %d features", CM_MAX_FEATURES);
	if (!(t->features = calloc(n_items, sizeof *t->features))) {
		rc = CM_ENOMEM;
		goto out;
	}
	char *save = NULL;
	for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		item = trim(item);
		if (!*item)
			continue;
		char *lb = strchr(item, '[');
		char *rb = lb ? strchr(lb, ']') : NULL;
		if (!lb || !rb)
			TERR("\"%s\" is not KIND[SLOTS] ATTR…", item);
		*lb = '\0';
		*rb = '\0';
		char *kind = trim(item);
		if (strcmp(kind, "contact") == 0) {
			if (*trim(rb + 1))
				TERR("contact[…] takes no attributes: \"%s\"", trim(rb + 1));
			contacts[n_contacts++] = lb + 1;
			continue;
		}
		cm_feature_kind k;
		if (cm_feature_kind_parse(kind, &k) < 0)
			TERR("unknown feature kind \"%s\" (road, city, field, monastery, garden, abbey)", kind);
		if (t->n_features >= CM_MAX_FEATURES)
			TERR("more than %d features", CM_MAX_FEATURES);
		size_t fi = t->n_features++;
		cm_feature *f = &t->features[fi];
		f->kind = k;
		if (cm_slots_parse(lb + 1, &f->slots) < 0)
			TERR("bad slot list \"%s\" (names Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn, each once)", lb + 1);
		per_kind[k]++;
		char *save2 = NULL;
		for (char *a = strtok_r(rb + 1, " \t\r\n", &save2); a; a = strtok_r(NULL, " \t\r\n", &save2)) {
			int v;
			if (strncmp(a, "arms=", 5) == 0) {
				if (small_int(a + 5, &v))
					TERR("bad arms \"%s\" (0 to 255)", a + 5);
				f->arms = (uint8_t)v;
			} else if (strcmp(a, "inn") == 0) {
				f->inn = true;
			} else if (strcmp(a, "cathedral") == 0) {
				f->cathedral = true;
			} else if (strncmp(a, "good=", 5) == 0) {
				if (strcmp(a + 5, "wine") == 0)
					f->good = CM_GOOD_WINE;
				else if (strcmp(a + 5, "grain") == 0)
					f->good = CM_GOOD_GRAIN;
				else if (strcmp(a + 5, "cloth") == 0)
					f->good = CM_GOOD_CLOTH;
				else
					TERR("unknown good \"%s\" (wine, grain, cloth)", a + 5);
			} else if (strncmp(a, "touches=", 8) == 0) {
				touches[fi] = a + 8;
			} else if (strncmp(a, "id=", 3) == 0) {
				free(f->id);
				if (!a[3])
					TERR("empty id=");
				if (!(f->id = cm_strdup(a + 3))) {
					rc = CM_ENOMEM;
					goto out;
				}
			} else {
				TERR("unknown feature attribute \"%s\" (id=, arms=, inn, cathedral, good=, touches=)", a);
			}
		}
		if (!f->id && !(f->id = cm_asprintf("%c%d", kind_letter[k], per_kind[k]))) {
			rc = CM_ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < t->n_features; i++) {
		if (!touches[i])
			continue;
		char *save3 = NULL;
		for (char *id = strtok_r(touches[i], ",", &save3); id; id = strtok_r(NULL, ",", &save3)) {
			int k = find_id(t, trim(id));
			if (k < 0)
				TERR("touches=%s names no feature", id);
			t->features[i].touches |= 1u << k;
		}
	}
	if (n_contacts && !(t->contacts = calloc(n_contacts, sizeof *t->contacts))) {
		rc = CM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n_contacts; i++) {
		uint32_t mask = 0;
		char *save4 = NULL;
		for (char *id = strtok_r(contacts[i], " \t", &save4); id; id = strtok_r(NULL, " \t", &save4)) {
			int k = find_id(t, id);
			if (k < 0)
				TERR("contact[%s] names no feature", id);
			mask |= 1u << k;
		}
		t->contacts[t->n_contacts++] = mask;
	}
	/* a slot held by two features is the callers' check (CM0102, CM0209) */
	(void)cm_tile_type_derive(t);
out:
	free(buf);
	free(touches);
	free(contacts);
	if (rc)
		cm_tile_type_clear(t);
	return rc;
}
