/* SPDX-License-Identifier: MIT */
/* scenario.c: the scenario notation (tests/support/scenario.h,
 * schemas/scenario.md): compact tiles, an ASCII map grid with prints, big
 * cities, ferries and islands, rule options and players; step lines are
 * kept as tokens for the caller. */
#include <stdarg.h>
#include <stdio.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "scenario.h"
#include "base/util_int.h"

/* ---- compact tiles ---- */

static const char kind_letter[CM_FEAT_KIND_COUNT] = { 'r', 'c', 'f', 'm', 'g', 'a' };

int cm_scenario_feature(const cm_tile_type *t, const char *id)
{
	for (size_t f = 0; f < t->n_features; f++)
		if (t->features[f].id && strcmp(t->features[f].id, id) == 0)
			return (int)f;
	return -1;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

static bool to_int(const char *s, int lo, int hi, int *out)
{
	char *e;
	long v = strtol(s, &e, 10);
	if (!*s || *e || v < lo || v > hi)
		return false;
	*out = (int)v;
	return true;
}

#define TERR(...)                                      \
	do {                                           \
		snprintf(err, errsize, __VA_ARGS__);   \
		rc = CM_EINVAL;                        \
		goto out;                              \
	} while (0)

/* One feature "KIND[SLOTS] ATTR …"; touches are kept as text until every
 * feature has its id. */
static int parse_feature(char *s, cm_feature *ft, char **touches, char *err, size_t errsize)
{
	int rc = 0;
	char *lb = strchr(s, '[');
	char *rb = lb ? strchr(lb, ']') : NULL;
	if (!lb || !rb)
		TERR("feature \"%s\" needs KIND[SLOTS]", s);
	*lb = '\0';
	*rb = '\0';
	cm_feature_kind k;
	if (cm_feature_kind_parse(trim(s), &k) < 0)
		TERR("unknown feature kind \"%s\"", trim(s));
	ft->kind = k;
	cm_slots m;
	if (cm_slots_parse(lb + 1, &m) < 0)
		TERR("bad slot list \"%s\"", lb + 1);
	ft->slots = m;
	char *save = NULL;
	for (char *a = strtok_r(rb + 1, " \t", &save); a; a = strtok_r(NULL, " \t", &save)) {
		int v;
		if (strncmp(a, "arms=", 5) == 0) {
			if (!to_int(a + 5, 0, 255, &v))
				TERR("bad arms \"%s\"", a + 5);
			ft->arms = (uint8_t)v;
		} else if (strcmp(a, "inn") == 0) {
			ft->inn = true;
		} else if (strcmp(a, "cathedral") == 0) {
			ft->cathedral = true;
		} else if (strncmp(a, "good=", 5) == 0) {
			if (strcmp(a + 5, "wine") == 0)
				ft->good = CM_GOOD_WINE;
			else if (strcmp(a + 5, "grain") == 0)
				ft->good = CM_GOOD_GRAIN;
			else if (strcmp(a + 5, "cloth") == 0)
				ft->good = CM_GOOD_CLOTH;
			else
				TERR("unknown good \"%s\"", a + 5);
		} else if (strncmp(a, "touches=", 8) == 0) {
			free(*touches);
			if (!(*touches = cm_strdup(a + 8)))
				return CM_ENOMEM;
		} else if (strncmp(a, "id=", 3) == 0) {
			free(ft->id);
			if (!(ft->id = cm_strdup(a + 3)))
				return CM_ENOMEM;
		} else {
			TERR("unknown feature attribute \"%s\"", a);
		}
	}
out:
	return rc;
}

int cm_scenario_parse_tile(const char *text, cm_tile_type *t, char *err, size_t errsize)
{
	memset(t, 0, sizeof *t);
	int rc = 0;
	char *buf = cm_strdup(text);
	char **touches = NULL, **contacts = NULL;
	if (!buf)
		return CM_ENOMEM;
	char *colon = strchr(buf, ':');
	if (!colon)
		TERR("a tile needs \"ID … : FEATURES\"");
	*colon = '\0';
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		t->count[e] = 1;
	char *save = NULL;
	bool c3_set = false;
	for (char *a = strtok_r(buf, " \t", &save); a; a = strtok_r(NULL, " \t", &save)) {
		int v;
		if (!t->id) {
			if (!(t->id = cm_strdup(a)))
				goto nomem;
		} else if (strncmp(a, "count=", 6) == 0 && to_int(a + 6, 0, 10000, &v)) {
			for (int e = 0; e < CM_EDITION_COUNT; e++)
				t->count[e] = v;
		} else if (strncmp(a, "count-c", 7) == 0 && a[7] >= '1' && a[7] <= '3' && a[8] == '=' &&
		           to_int(a + 9, 0, 10000, &v)) {
			t->count[a[7] - '1'] = v;
			if (a[7] == '3')
				c3_set = true;
			else if (a[7] == '2' && !c3_set)
				t->count[CM_EDITION_C3] = v;
		} else if (strcmp(a, "start") == 0) {
			t->start = true;
		} else {
			TERR("unknown tile attribute \"%s\"", a);
		}
	}
	if (!t->id)
		TERR("a tile needs an id");
	/* features, separated by ';' */
	size_t n = 1;
	for (char *p = colon + 1; *p; p++)
		n += *p == ';';
	if (n > CM_MAX_FEATURES)
		TERR("more than %d features", CM_MAX_FEATURES);
	t->features = calloc(n, sizeof *t->features);
	t->contacts = calloc(n, sizeof *t->contacts);
	touches = calloc(n, sizeof *touches);
	contacts = calloc(n, sizeof *contacts);
	if (!t->features || !t->contacts || !touches || !contacts)
		goto nomem;
	int per_kind[CM_FEAT_KIND_COUNT] = { 0 };
	size_t n_contacts = 0;
	char *p = colon + 1;
	for (size_t i = 0; i < n; i++) {
		char *semi = strchr(p, ';');
		if (semi)
			*semi = '\0';
		char *s = trim(p);
		p = semi ? semi + 1 : p + strlen(p);
		if (!*s)
			TERR("empty feature");
		if (strncmp(s, "contact[", 8) == 0) { /* WAGON-C1: "contact[ID ID …]" */
			char *rb = strchr(s, ']');
			if (!rb || *trim(rb + 1))
				TERR("contact needs \"contact[ID ID …]\"");
			*rb = '\0';
			contacts[n_contacts++] = s + 8;
			continue;
		}
		size_t f = t->n_features;
		rc = parse_feature(s, &t->features[f], &touches[f], err, errsize);
		t->n_features = f + 1;
		if (rc < 0)
			goto out;
		cm_feature *ft = &t->features[f];
		int k = ++per_kind[ft->kind];
		if (!ft->id && !(ft->id = cm_asprintf("%c%d", kind_letter[ft->kind], k)))
			goto nomem;
	}
	for (size_t i = 0; i < n_contacts; i++) {
		uint32_t mask = 0;
		int members = 0;
		char *sv = NULL;
		for (char *id = strtok_r(contacts[i], " \t", &sv); id; id = strtok_r(NULL, " \t", &sv)) {
			int c = cm_scenario_feature(t, id);
			if (c < 0)
				TERR("contact names no feature of the tile: \"%s\"", id);
			members += !((mask >> c) & 1);
			mask |= 1u << c;
		}
		if (members < 2)
			TERR("a contact needs two features or more");
		t->contacts[t->n_contacts++] = mask;
	}
	for (size_t f = 0; f < n; f++) {
		if (!touches[f])
			continue;
		char *sv = NULL;
		for (char *id = strtok_r(touches[f], ",", &sv); id; id = strtok_r(NULL, ",", &sv)) {
			int c = cm_scenario_feature(t, id);
			if (c < 0 || t->features[c].kind != CM_FEAT_CITY)
				TERR("touches names no city of the tile: \"%s\"", id);
			t->features[f].touches |= 1u << c;
		}
	}
	if (cm_tile_type_derive(t) < 0)
		TERR("tile %s covers a slot twice", t->id);
	for (int i = 0; i < 12; i++)
		if (t->slot_feature[i] < 0)
			TERR("tile %s leaves slot %s uncovered", t->id, cm_slot_name(i));
out:
	if (touches)
		for (size_t f = 0; f < t->n_features; f++)
			free(touches[f]);
	free(touches);
	free(contacts); /* pointers into buf */
	free(buf);
	if (rc < 0)
		cm_tile_type_clear(t);
	return rc;
nomem:
	rc = CM_ENOMEM;
	snprintf(err, errsize, "out of memory");
	goto out;
}

/* ---- scenarios ---- */

void cm_scenario_free(cm_scenario *s)
{
	if (!s)
		return;
	free(s->name);
	for (size_t i = 0; i < s->n_rule_ids; i++)
		free(s->rule_ids[i]);
	free(s->rule_ids);
	cm_map_free(s->map);
	for (size_t i = 0; i < s->n_sets; i++)
		cm_tileset_free(s->sets[i]);
	free(s->sets);
	for (size_t i = 0; i < s->n_steps; i++) {
		for (int k = 0; k < s->steps[i].n_tok; k++)
			free(s->steps[i].tok[k]);
		free(s->steps[i].tok);
	}
	free(s->steps);
	free(s->file);
	free(s);
}

static int side_parse(const char *s)
{
	static const char *const n[4] = { "N", "E", "S", "W" };
	for (int i = 0; i < 4; i++)
		if (strcmp(s, n[i]) == 0)
			return i;
	return -1;
}

typedef struct {
	cm_scenario *s;
	cm_diags *d;
	const char *file;
	unsigned line;
	int rc;
	size_t cap_steps, cap_deck, cap_tiles, cap_rules;
	cm_tileset *set; /* where "tile" lines go */
	int grid_rows; /* rows of the grid still to read */
	int grid_y;
	unsigned map_line;
	cm_map_builder *b; /* the map being read (s->map once finished) */
	size_t n_islands;  /* the map's islands so far */
	int cur_bigcity;
	/* given to the map at the end, so lines may come in any order and a
	 * map file keeps what the scenario does not set */
	char **opts;          /* "name=value", checked */
	size_t n_opts;
	int starts, followers; /* 0: not given */
	cm_deck_entry *deck;
	size_t n_deck;
} rd;

static void bad(rd *r, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void bad(rd *r, const char *fmt, ...)
{
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (r->d)
		cm_diags_add(r->d, CM_SEV_ERROR, NULL, r->file, r->line, 0, NULL, "%s", msg);
	if (r->rc == 0)
		r->rc = CM_EINVAL;
}

static bool need_map(rd *r)
{
	if (!r->b)
		bad(r, "%s: no map line before this one", "map");
	return r->b != NULL;
}

static bool xy(rd *r, const char *a, const char *b, int *x, int *y)
{
	if (!need_map(r))
		return false;
	if (!to_int(a, 0, cm_map_builder_cols(r->b) - 1, x) || !to_int(b, 0, cm_map_builder_rows(r->b) - 1, y)) {
		bad(r, "coordinates outside the map: %s", a);
		return false;
	}
	return true;
}

static int kv_int(const char *tok, const char *key, int lo, int hi, int *out)
{
	size_t n = strlen(key);
	if (strncmp(tok, key, n) != 0 || tok[n] != '=')
		return 0;
	return to_int(tok + n + 1, lo, hi, out) ? 1 : -1;
}

/* The builder's calls on the map being read: out of memory stops the
 * reading, any other failure is the scenario's. */
static bool ok(rd *r, int rc, const char *what)
{
	if (rc == CM_ENOMEM)
		r->rc = CM_ENOMEM;
	else if (rc)
		bad(r, "%s: %s", what, cm_strerror(rc));
	return rc == 0;
}

static cm_tileset *new_set(rd *r, const char *id);
static char *resolve(const rd *r, const char *path);

/* One header line; returns false when the verb is not a header verb. */
static bool header_line(rd *r, char *raw, char **tok, int n)
{
	cm_scenario *s = r->s;
	const char *v = tok[0];
	char err[200];
	if (strcmp(v, "scenario") == 0) {
		if (n != 2)
			bad(r, "%s needs one name", v);
		else if (!(s->name = cm_strdup(tok[1])))
			r->rc = CM_ENOMEM;
	} else if (strcmp(v, "rule") == 0) {
		for (int i = 1; i < n; i++) {
			if (cm_grow((void **)&s->rule_ids, &r->cap_rules, s->n_rule_ids, sizeof *s->rule_ids) < 0 ||
			    !(s->rule_ids[s->n_rule_ids] = cm_strdup(tok[i]))) {
				r->rc = CM_ENOMEM;
				return true;
			}
			s->n_rule_ids++;
		}
	} else if (strcmp(v, "players") == 0) {
		if (n != 2 || !to_int(tok[1], 2, CM_MAX_PLAYERS, &s->players))
			bad(r, "%s must be 2 to 6", v);
	} else if (strcmp(v, "seed") == 0) {
		char *e;
		if (n != 2 || !*tok[1] || (s->seed = strtoull(tok[1], &e, 10), *e))
			bad(r, "%s must be a number", v);
	} else if (strcmp(v, "setup") == 0) {
		if (n == 2 && strcmp(tok[1], "none") == 0)
			s->flags |= CM_BOARD_NO_SETUP;
		else if (n == 2 && strcmp(tok[1], "random") == 0)
			s->flags &= ~CM_BOARD_NO_SETUP;
		else
			bad(r, "%s is \"setup none\" or \"setup random\"", v);
	} else if (strcmp(v, "starts") == 0) {
		if (n != 2 || !to_int(tok[1], 1, 64, &r->starts))
			bad(r, "%s must be 1 to 64", v);
	} else if (strcmp(v, "followers") == 0) {
		if (n != 2 || !to_int(tok[1], 1, 255, &r->followers))
			bad(r, "%s must be 1 to 255", v);
	} else if (strcmp(v, "option") == 0) {
		for (int i = 1; i < n; i++) {
			char *copy = cm_strdup(tok[i]);
			char *eq = copy ? strchr(copy, '=') : NULL;
			cm_rules scratch;
			cm_rules_default(&scratch, CM_EDITION_C2);
			if (eq)
				*eq = '\0';
			if (!eq || cm_rules_set(&scratch, NULL, copy, eq + 1) < 0) {
				bad(r, "unknown rule option or value: %s", tok[i]);
			} else {
				*eq = '=';
				char **o = realloc(r->opts, (r->n_opts + 1) * sizeof *o);
				if (!o) {
					free(copy);
					r->rc = CM_ENOMEM;
					return true;
				}
				r->opts = o;
				o[r->n_opts++] = copy;
				copy = NULL;
			}
			free(copy);
		}
	} else if (strcmp(v, "mapfile") == 0) {
		if (r->b || n != 2) {
			bad(r, "%s needs one path, and no map before it", v);
			return true;
		}
		char *full = resolve(r, tok[1]);
		cm_map *m = NULL;
		int rc = full ? cm_map_load(full, NULL, r->d, &m) : CM_ENOMEM;
		if (rc == CM_ENOMEM)
			r->rc = CM_ENOMEM;
		else if (rc < 0)
			bad(r, "cannot load map %s", full);
		/* the scenario's lines change a copy */
		if (!rc && ok(r, cm_map_builder_from(m, &r->b), v))
			r->n_islands = cm_map_island_count(m);
		cm_map_free(m);
		free(full);
	} else if (strcmp(v, "deck") == 0) { /* deck SET [TILE COUNT] */
		if (n != 2 && n != 4) {
			bad(r, "%s needs SET or SET TILE COUNT", v);
			return true;
		}
		if (cm_grow((void **)&r->deck, &r->cap_deck, r->n_deck, sizeof *r->deck) < 0) {
			r->rc = CM_ENOMEM;
			return true;
		}
		cm_deck_entry *de = &r->deck[r->n_deck++];
		memset(de, 0, sizeof *de);
		de->tileset = cm_strdup(tok[1]);
		de->count = -1;
		de->line = r->line;
		if (n == 4) {
			de->tile = cm_strdup(tok[2]);
			if (!to_int(tok[3], 0, 10000, &de->count))
				bad(r, "bad count %s", tok[3]);
		}
	} else if (strcmp(v, "print") == 0 || strcmp(v, "bigcity") == 0 || strcmp(v, "piece") == 0 ||
	           strcmp(v, "ferry") == 0 || strcmp(v, "island") == 0 || strcmp(v, "square") == 0) {
		if (!need_map(r))
			return true;
		cm_map_builder *m = r->b;
		int x, y, k;
		if (strcmp(v, "print") == 0) {
			int sd = n >= 5 ? side_parse(tok[3]) : -1;
			if (n < 5 || !xy(r, tok[1], tok[2], &x, &y) || sd < 0) {
				bad(r, "%s needs X Y SIDE KIND [arms=N]", v);
				return true;
			}
			cm_edge_print pr = cm_map_builder_square(m, x, y)->print[sd];
			if (strcmp(tok[4], "road") == 0)
				pr.kind = CM_PRINT_ROAD;
			else if (strcmp(tok[4], "city") == 0)
				pr.kind = CM_PRINT_CITY;
			else if (strcmp(tok[4], "neutral") == 0)
				pr.kind = CM_PRINT_NEUTRAL;
			else
				bad(r, "unknown print kind %s", tok[4]);
			for (int i = 5; i < n; i++) {
				if (kv_int(tok[i], "arms", 0, 255, &k) == 1)
					pr.arms = (uint8_t)k;
				else
					bad(r, "unknown print attribute %s", tok[i]);
			}
			if (!ok(r, cm_map_builder_set_print(m, x, y, (cm_side)sd, (cm_print_kind)pr.kind, pr.arms), v) ||
			    !ok(r, cm_map_builder_set_print_line(m, x, y, (cm_side)sd, r->line), v))
				return true;
		} else if (strcmp(v, "bigcity") == 0) {
			if (n != 2) {
				bad(r, "%s needs a name", v);
				return true;
			}
			size_t i;
			if (ok(r, cm_map_builder_add_bigcity(m, tok[1], r->line, &i), v))
				r->cur_bigcity = (int)i;
		} else if (strcmp(v, "piece") == 0) {
			char *colon = strchr(raw, ':');
			if (n < 4 || !colon || r->cur_bigcity < 0 || !xy(r, tok[1], tok[2], &x, &y)) {
				bad(r, "%s needs a bigcity line before it and X Y : FEATURES", v);
				return true;
			}
			cm_square q = *cm_map_builder_square(m, x, y);
			if (q.kind != CM_SQ_BIGCITY) {
				bad(r, "%s must be on a big-city square (B)", v);
				return true;
			}
			char *txt = cm_asprintf("piece %s", colon);
			cm_tile_type t;
			int rc = txt ? cm_scenario_parse_tile(txt, &t, err, sizeof err) : CM_ENOMEM;
			free(txt);
			if (rc < 0) {
				bad(r, "big-city piece: %s", err);
				return true;
			}
			free(t.id);
			t.id = NULL;
			q.bigcity = r->cur_bigcity;
			if (ok(r, cm_map_builder_add_piece(m, (size_t)r->cur_bigcity, x, y, &t), v))
				ok(r, cm_map_builder_set_square(m, x, y, &q), v);
			cm_tile_type_clear(&t);
		} else if (strcmp(v, "ferry") == 0) {
			int x2, y2, s1 = n >= 7 ? side_parse(tok[3]) : -1, s2 = n >= 7 ? side_parse(tok[6]) : -1;
			if (n < 7 || !xy(r, tok[1], tok[2], &x, &y) || !xy(r, tok[4], tok[5], &x2, &y2) || s1 < 0 ||
			    s2 < 0) {
				bad(r, "%s needs X1 Y1 SIDE1 X2 Y2 SIDE2 [arms=N]", v);
				return true;
			}
			cm_ferry fr;
			memset(&fr, 0, sizeof fr);
			fr.x1 = x;
			fr.y1 = y;
			fr.s1 = (cm_side)s1;
			fr.x2 = x2;
			fr.y2 = y2;
			fr.s2 = (cm_side)s2;
			fr.line = r->line;
			for (int i = 7; i < n; i++) {
				if (kv_int(tok[i], "arms", 0, 255, &k) == 1)
					fr.arms = (uint8_t)k;
				else
					bad(r, "unknown ferry attribute %s", tok[i]);
			}
			/* a ferry end is a road print (MAP-FERRY) */
			if (ok(r, cm_map_builder_add_ferry(m, &fr), v) &&
			    ok(r, cm_map_builder_set_print(m, x, y, (cm_side)s1, CM_PRINT_ROAD,
			                                   cm_map_builder_square(m, x, y)->print[s1].arms), v))
				ok(r, cm_map_builder_set_print(m, x2, y2, (cm_side)s2, CM_PRINT_ROAD,
				                               cm_map_builder_square(m, x2, y2)->print[s2].arms), v);
		} else if (strcmp(v, "island") == 0) {
			if (n != 2) {
				bad(r, "%s needs a name", v);
				return true;
			}
			if (ok(r, cm_map_builder_add_island(m, tok[1], NULL, r->line, NULL), v))
				r->n_islands++;
		} else if (strcmp(v, "square") == 0) {
			if (n < 3 || !xy(r, tok[1], tok[2], &x, &y)) {
				bad(r, "%s needs X Y ATTR…", v);
				return true;
			}
			cm_square q = *cm_map_builder_square(m, x, y);
			for (int i = 3; i < n; i++) {
				if (kv_int(tok[i], "arms", 0, 255, &k) == 1) {
					q.arms = (uint8_t)k;
				} else if (strncmp(tok[i], "island=", 7) == 0) {
					q.island = cm_map_builder_island_find(m, tok[i] + 7);
					if (q.island < 0)
						bad(r, "unknown island %s", tok[i] + 7);
				} else if (strncmp(tok[i], "name=", 5) == 0) {
					if (!ok(r, cm_map_builder_set_square_name(m, x, y, tok[i] + 5), v))
						return true;
				} else if (strncmp(tok[i], "marker=", 7) == 0) {
					if (!ok(r, cm_map_builder_add_marker(m, x, y, tok[i] + 7), v))
						return true;
				} else {
					bad(r, "unknown square attribute %s", tok[i]);
				}
			}
			ok(r, cm_map_builder_set_square(m, x, y, &q), v);
		}
	} else if (strcmp(v, "map") == 0) {
		int w, h;
		if (r->b || n != 3 || !to_int(tok[1], 1, 1024, &w) || !to_int(tok[2], 1, 1024, &h)) {
			bad(r, "%s needs W H, once", v);
			return true;
		}
		if (!ok(r, cm_map_builder_new(w, h, &r->b), v) ||
		    !ok(r, cm_map_builder_set_id(r->b, s->name ? s->name : "scenario"), v))
			return true;
		r->grid_rows = h;
		r->grid_y = 0;
		r->map_line = r->line;
	} else if (strcmp(v, "tile") == 0) {
		cm_tile_type t;
		int rc = cm_scenario_parse_tile(raw + 4, &t, err, sizeof err);
		if (rc < 0) {
			bad(r, "tile: %s", err);
			return true;
		}
		t.line = r->line;
		if (!r->set && !(r->set = new_set(r, "inline"))) {
			cm_tile_type_clear(&t);
			r->rc = CM_ENOMEM;
			return true;
		}
		cm_tileset *ts = r->set;
		if (cm_grow((void **)&ts->tiles, &r->cap_tiles, ts->n_tiles, sizeof *ts->tiles) < 0) {
			cm_tile_type_clear(&t);
			r->rc = CM_ENOMEM;
			return true;
		}
		if (t.start)
			ts->base = true;
		ts->tiles[ts->n_tiles++] = t;
	} else {
		return false;
	}
	return true;
}

static void grid_line(rd *r, const char *row)
{
	cm_map_builder *m = r->b;
	if ((int)strlen(row) != cm_map_builder_cols(m)) {
		bad(r, "a grid row must have exactly the map's width in characters: %s", row);
		r->grid_y++;
		r->grid_rows--;
		return;
	}
	for (int x = 0; x < cm_map_builder_cols(m); x++) {
		cm_square_kind k;
		if (cm_square_kind_from_char(row[x], &k) < 0) {
			bad(r, "unknown square character in %s", row);
			break;
		}
		cm_square q = *cm_map_builder_square(m, x, r->grid_y);
		q.kind = (uint8_t)k;
		q.line = r->line;
		ok(r, cm_map_builder_set_square(m, x, r->grid_y, &q), "grid");
	}
	r->grid_y++;
	r->grid_rows--;
}

/* MAP-EDGE-NEUTRAL (cm_map_builder_default_prints), and island squares
 * without an island belong to the only island there is. */
static void finish_map(rd *r)
{
	cm_map_builder *b = r->b;
	cm_map_builder_default_prints(b);
	for (int y = 0; r->n_islands == 1 && y < cm_map_builder_rows(b); y++)
		for (int x = 0; x < cm_map_builder_cols(b); x++) {
			cm_square q = *cm_map_builder_square(b, x, y);
			if (q.kind == CM_SQ_ISLAND && q.island < 0) {
				q.island = 0;
				ok(r, cm_map_builder_set_square(b, x, y, &q), "island");
			}
		}
}

static void process(rd *r, char *buf, int depth);

/* path relative to the directory of the file being read */
static char *resolve(const rd *r, const char *path)
{
	const char *slash = r->file ? strrchr(r->file, '/') : NULL;
	if (path[0] == '/' || !slash)
		return cm_strdup(path);
	return cm_asprintf("%.*s/%s", (int)(slash - r->file), r->file, path);
}

/* "tileset PATH": a tile set file (schemas/tileset.md), checked. */
static void load_tileset(rd *r, const char *path)
{
	cm_scenario *s = r->s;
	char *full = resolve(r, path);
	cm_tileset *ts = NULL;
	cm_tileset **v = full ? realloc(s->sets, (s->n_sets + 1) * sizeof *v) : NULL;
	if (!v) {
		free(full);
		r->rc = CM_ENOMEM;
		return;
	}
	s->sets = v;
	int rc = cm_tileset_load_file(full, r->d, &ts);
	if (rc == CM_ENOMEM)
		r->rc = CM_ENOMEM;
	else if (rc < 0)
		bad(r, "cannot load tile set %s", full);
	else
		v[s->n_sets++] = ts;
	free(full);
}

/* "include PATH": another file's lines, as if written here; the path is
 * relative to the including file's directory. */
static void include(rd *r, const char *path, int depth)
{
	if (depth >= 4) {
		bad(r, "includes nested too deep: %s", path);
		return;
	}
	char *full = resolve(r, path);
	char *text = NULL;
	size_t len;
	if (!full || cm_read_file(full, CM_MAX_INPUT_BYTES, r->d, &text, &len) < 0) {
		if (!full)
			r->rc = CM_ENOMEM;
		else
			bad(r, "cannot read included file %s", full);
		free(full);
		return;
	}
	const char *file = r->file;
	unsigned line = r->line;
	r->file = full;
	r->line = 0;
	process(r, text, depth + 1);
	r->file = file;
	r->line = line;
	free(full);
	free(text);
}

static cm_tileset *new_set(rd *r, const char *id)
{
	cm_scenario *s = r->s;
	cm_tileset **v = realloc(s->sets, (s->n_sets + 1) * sizeof *v);
	if (!v)
		return NULL;
	s->sets = v;
	cm_tileset *ts = calloc(1, sizeof *ts);
	if (!ts || !(ts->id = cm_strdup(id)) || !(ts->name = cm_strdup(id))) {
		cm_tileset_free(ts);
		return NULL;
	}
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		ts->total[e] = -1;
	v[s->n_sets++] = ts;
	r->cap_tiles = 0;
	return ts;
}

static void process(rd *r, char *buf, int depth)
{
	cm_scenario *s = r->s;
	char *save = NULL;
	for (char *line = buf; line && r->rc != CM_ENOMEM; line = save) {
		char *nl = strchr(line, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		r->line++;
		char *t = trim(line);
		if (r->grid_rows > 0) { /* '#' is land here: the row is the first word */
			if (*t) {
				t[strcspn(t, " \t")] = '\0';
				grid_line(r, t);
			}
			continue;
		}
		char *hash = strchr(t, '#');
		if (hash)
			*hash = '\0';
		t = trim(t);
		if (!*t)
			continue;
		char *raw = cm_strdup(t);
		if (!raw) {
			r->rc = CM_ENOMEM;
			return;
		}
		char *tok[64];
		int n = 0;
		char *sv = NULL;
		for (char *a = strtok_r(t, " \t", &sv); a && n < 64; a = strtok_r(NULL, " \t", &sv))
			tok[n++] = a;
		if (n == 0) {
			free(raw);
			continue;
		}
		if (strcmp(tok[0], "include") == 0) {
			if (n != 2)
				bad(r, "%s needs one path", tok[0]);
			else
				include(r, tok[1], depth);
		} else if (strcmp(tok[0], "tileset") == 0) {
			if (n != 2)
				bad(r, "%s needs one path", tok[0]);
			else
				load_tileset(r, tok[1]);
		} else if (strcmp(tok[0], "set") == 0) {
			if (n != 2)
				bad(r, "%s needs one id", tok[0]);
			else if (!(r->set = new_set(r, tok[1])))
				r->rc = CM_ENOMEM;
		} else if (!header_line(r, raw, tok, n)) {
			cm_scenario_line *st = NULL;
			if (cm_grow((void **)&s->steps, &r->cap_steps, s->n_steps, sizeof *s->steps) == 0) {
				st = &s->steps[s->n_steps];
				st->tok = calloc((size_t)n, sizeof *st->tok);
				st->n_tok = 0;
				st->line = r->line;
				if (st->tok)
					s->n_steps++;
			}
			if (!st || !st->tok) {
				r->rc = CM_ENOMEM;
			} else {
				for (int i = 0; i < n; i++) {
					if (!(st->tok[i] = cm_strdup(tok[i]))) {
						r->rc = CM_ENOMEM;
						break;
					}
					st->n_tok++;
				}
			}
		}
		free(raw);
	}
}

static void free_deck(cm_deck_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].tileset);
		free(v[i].tile);
	}
	free(v);
}

/* The scenario's rule options, setup and deck onto the map. */
static void give_map(rd *r, cm_map_builder *m)
{
	unsigned given = 0; /* an option given wins over its edition's default, in any order */
	cm_rules rules = *cm_map_builder_rules(m);
	cm_setup setup = *cm_map_builder_setup(m);
	for (size_t i = 0; i < r->n_opts; i++) {
		char *eq = strchr(r->opts[i], '=');
		*eq = '\0';
		cm_rules_set(&rules, &given, r->opts[i], eq + 1);
		*eq = '=';
	}
	cm_map_builder_set_rules(m, &rules);
	if (r->starts)
		setup.starts_used = r->starts;
	if (r->followers)
		setup.followers = r->followers;
	cm_map_builder_set_setup(m, &setup);
	if (r->n_deck) {
		cm_map_builder_clear_deck(m);
		for (size_t i = 0; i < r->n_deck; i++)
			if (!ok(r, cm_map_builder_add_deck_entry(m, &r->deck[i]), "deck"))
				break;
	}
}

static void rd_clear(rd *r)
{
	for (size_t i = 0; i < r->n_opts; i++)
		free(r->opts[i]);
	free(r->opts);
	r->opts = NULL;
	r->n_opts = 0;
	free_deck(r->deck, r->n_deck);
	r->deck = NULL;
	r->n_deck = 0;
}

int cm_scenario_read_text(const char *text, const char *file, cm_diags *d, cm_scenario **out)
{
	assert(d && "a diagnostics sink is required");
	*out = NULL;
	cm_scenario *s = calloc(1, sizeof *s);
	rd r = { .s = s, .d = d, .file = file, .cur_bigcity = -1 };
	char *buf = cm_strdup(text);
	if (!s || !buf)
		goto nomem;
	s->players = 2;
	s->seed = 1;
	if (file && !(s->file = cm_strdup(file)))
		goto nomem;
	process(&r, buf, 0);
	if (r.b)
		give_map(&r, r.b);
	rd_clear(&r);
	if (r.rc == CM_ENOMEM)
		goto nomem;
	if (r.grid_rows > 0) {
		r.line = r.map_line;
		bad(&r, "%s: the grid has fewer rows than the map line says", "map");
	}
	if (!r.b) {
		r.line = 0; /* the whole file */
		bad(&r, "%s: no map line", "map");
	} else {
		finish_map(&r);
		/* the model's one check, once, as every reader's map gets */
		int frc = cm_map_builder_finish(r.b, NULL, file, d, &s->map);
		r.b = NULL;
		if (frc && r.rc == 0)
			r.rc = frc;
	}
	free(buf);
	if (r.rc < 0) {
		cm_scenario_free(s);
		return r.rc;
	}
	*out = s;
	return 0;
nomem:
	rd_clear(&r);
	cm_map_builder_free(r.b);
	free(buf);
	cm_scenario_free(s);
	return CM_ENOMEM;
}

int cm_scenario_read_file(const char *path, cm_diags *d, cm_scenario **out)
{
	assert(d && "a diagnostics sink is required");
	*out = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc = cm_read_file(path, CM_MAX_INPUT_BYTES, d, &text, &len);
	if (rc < 0)
		return rc;
	rc = cm_scenario_read_text(text, path, d, out);
	free(text);
	return rc;
}
