/* SPDX-License-Identifier: MIT */
/* model_check.c: the one checker of the in-memory model's own invariants
 * (carcamap/map.h "Limits"): sizes and counts within the limits, ids of the
 * schemas' syntax, texts XML can hold, every index and reference inside
 * what it indexes. For maps, the builder's finish runs it, once per map
 * and nowhere else (tools/layers.sh); for tile sets, every reader and
 * writer. The game rules on top are map_check.c. */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/map.h"
#include "model/map_int.h"
#include "base/util_int.h"

#define MAX_TEXT CM_TEXT_MAX
#define MAX_ITEMS CM_ITEMS_MAX
#define MAX_COUNT CM_COUNT_MAX


typedef struct {
	cm_diags *d;
	const char *rule;
	const char *file;
	int bad;
	unsigned line; /* of the element being checked, 0 when unknown (a model
	                * built in memory, or from an image) */
} chk;

static void complain(cm_diags *d, const char *rule, const char *file, unsigned line, const char *where,
                     const char *fmt, va_list ap)
{
	cm_diag_scope s;
	cm_diag_scope_init(&s, d, file);
	cm_diag_scope_vadd(&s, rule, line, 0, where, fmt, ap);
}

static void fail(chk *c, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static void fail(chk *c, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	complain(c->d, c->rule, c->file, c->line, where, fmt, ap);
	va_end(ap);
	c->bad = 1;
}

/* Offset of the first byte of s that starts no well-formed UTF-8 sequence
 * of a character XML 1.0 can hold (no C0 control but tab, line feed and
 * carriage return; no U+FFFE, U+FFFF), or -1 when there is none. */
static long bad_char(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	for (size_t i = 0; s[i];) {
		unsigned c = s[i];
		size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
		if (!n)
			return (long)i;
		uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
		for (size_t k = 1; k < n; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return (long)i;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
		if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE ||
		    cp == 0xFFFF || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r'))
			return (long)i;
		i += n;
	}
	return -1;
}

static void check_text(chk *c, const char *where, const char *what, const char *s, bool required)
{
	long bad;
	if (!s) {
		if (required)
			fail(c, where, "%s is missing", what);
	} else if (strlen(s) > MAX_TEXT) {
		fail(c, where, "%s is longer than %d bytes", what, MAX_TEXT);
	} else if (required && !*s) {
		fail(c, where, "%s is empty", what);
	} else if ((bad = bad_char(s)) >= 0) {
		unsigned char b = (unsigned char)s[bad];
		if (b < 0x20)
			fail(c, where, "%s holds control character 0x%02x at byte %ld, which no XML text can hold",
			     what, b, bad);
		else
			fail(c, where, "%s is not valid utf-8 (byte 0x%02x at byte %ld)", what, b, bad);
	} else if (cm_text_problem(s)) {
		/* names reach terminals: no tab, newline, DEL, C1 or bidi control */
		fail(c, where, "%s holds %s", what, cm_text_problem(s));
	}
}

/* Ids: required, and of the syntax the schemas give (cm_id_valid for maps
 * and tile sets, the tile and feature patterns of schemas/tileset.xsd). */
static bool id_syntax(const char *s, const char *first, const char *rest, size_t max)
{
	size_t n = strlen(s);
	if (n < 1 || n > max || !strchr(first, s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!strchr(rest, s[i]))
			return false;
	return true;
}

#define LOWER_DIGITS "abcdefghijklmnopqrstuvwxyz0123456789"
#define ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

bool cm_id_valid(const char *s)
{
	return s && id_syntax(s, LOWER_DIGITS, LOWER_DIGITS "-", CM_ID_MAX);
}

static void check_id(chk *c, const char *where, const char *what, const char *s)
{
	if (!s)
		fail(c, where, "%s is missing", what);
	else if (!cm_id_valid(s))
		fail(c, where, "%s '%.100s' is not an id: 1 to %d of a-z, 0-9 and '-', not starting with '-'", what,
		     bad_char(s) < 0 ? s : "?", CM_ID_MAX);
}

static void check_tile_id(chk *c, const char *where, const char *what, const char *s, bool required,
                          const char *rest, size_t max)
{
	if (!s) {
		if (required)
			fail(c, where, "%s is missing", what);
	} else if (!id_syntax(s, ALNUM, rest, max)) {
		fail(c, where, "%s '%.100s' is not an id: 1 to %zu of %s, starting with a letter or digit", what,
		     bad_char(s) < 0 ? s : "?", max,
		     strchr(rest, '.') ? "A-Z, a-z, 0-9, '_', '.' and '-'" : "A-Z, a-z, 0-9, '_' and '-'");
	}
}

static void check_range(chk *c, const char *where, const char *what, long long v, long long lo,
                        long long hi)
{
	/* the readers clamp what an int cannot hold to its limits, so a
	 * limit says "or more" (a count of 99999999999999999999 written) */
	const char *more = v >= INT_MAX ? " or more" : v <= INT_MIN ? " or less" : "";
	if (v < lo || v > hi)
		fail(c, where, "%s is %lld%s, outside %lld..%lld", what, v, more, lo, hi);
}

static void check_feature(chk *c, const char *w, const cm_feature *f, uint32_t known)
{
	check_range(c, w, "feature kind", (long long)f->kind, 0, CM_FEAT_KIND_COUNT - 1);
	check_tile_id(c, w, "feature id", f->id, false, ALNUM "_-", 32);
	check_range(c, w, "slot mask", f->slots, 0, CM_SLOTS_ALL);
	check_range(c, w, "trade good", (long long)f->good, CM_GOOD_NONE, CM_GOOD_CLOTH);
	if (f->touches & ~known)
		fail(c, w, "touches 0x%x names features the tile does not have", (unsigned)f->touches);
}

/* A tile type, or the pseudo-tile of a big city piece (piece: no id, no counts). */
static void check_tile(chk *c, const char *where, const cm_tile_type *t, bool piece)
{
	char w[512];
	if (!piece) {
		check_tile_id(c, where, "tile id", t->id, true, ALNUM "_.-", 64);
		check_text(c, where, "tile name", t->name, false);
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			check_range(c, where, "tile count", t->count[e], 0, MAX_COUNT);
	}
	if (t->n_features > CM_MAX_FEATURES) {
		fail(c, where, "%zu features, more than %d", t->n_features, CM_MAX_FEATURES);
		return;
	}
	if ((t->n_features && !t->features) || (t->n_contacts && !t->contacts)) {
		fail(c, where, "features or contacts are counted but missing");
		return;
	}
	uint32_t known = t->n_features == 32 ? 0xFFFFFFFFu : (1u << t->n_features) - 1;
	for (size_t i = 0; i < t->n_features; i++) {
		/* a silent probe first: the where string only for a feature
		 * with a problem (a big map's pieces have thousands) */
		chk probe = { NULL, NULL, NULL, 0, 0 };
		check_feature(&probe, "", &t->features[i], known);
		if (!probe.bad)
			continue;
		snprintf(w, sizeof w, "%s, feature %zu", where, i);
		check_feature(c, w, &t->features[i], known);
	}
	if (t->n_markers > MAX_ITEMS || (t->n_markers && !t->markers))
		fail(c, where, "%zu markers, more than %d or missing", t->n_markers, MAX_ITEMS);
	else
		for (size_t k = 0; k < t->n_markers; k++)
			check_text(c, where, "marker", t->markers[k], true);
	if (t->n_contacts > MAX_ITEMS)
		fail(c, where, "%zu contacts, more than %d", t->n_contacts, MAX_ITEMS);
	for (size_t i = 0; i < t->n_contacts && i < MAX_ITEMS; i++)
		if (t->contacts[i] & ~known) {
			snprintf(w, sizeof w, "%s, contact %zu", where, i);
			fail(c, w, "contact 0x%x names features the tile does not have",
			     (unsigned)t->contacts[i]);
		}
}

static void check_tileset(chk *c, const cm_tileset *ts)
{
	char where[256] = "", w[512];
	if (c->d)
		snprintf(where, sizeof where, "tile set %.100s", ts->id ? ts->id : "?");
	check_id(c, where, "tile set id", ts->id);
	check_text(c, where, "tile set name", ts->name, false);
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		check_range(c, where, "declared total", ts->total[e], -1, MAX_COUNT);
	if (ts->n_tiles > MAX_ITEMS || (ts->n_tiles && !ts->tiles)) {
		fail(c, where, "%zu tile types, more than %d or missing", ts->n_tiles, MAX_ITEMS);
		return;
	}
	const char **ids = malloc((ts->n_tiles + 1) * sizeof *ids);
	for (size_t i = 0; i < ts->n_tiles; i++) {
		/* the where string only when something is said (a silent check
		 * runs once per map that uses the set) */
		w[0] = '\0';
		if (c->d)
			snprintf(w, sizeof w, "%s, tile %.100s", where, ts->tiles[i].id ? ts->tiles[i].id : "?");
		c->line = ts->tiles[i].line;
		check_tile(c, w, &ts->tiles[i], false);
		c->line = 0;
		if (ids)
			ids[i] = ts->tiles[i].id;
	}
	const char *dup = ids ? cm_first_duplicate(ids, ts->n_tiles) : NULL;
	if (dup)
		fail(c, where, "tile id %.100s occurs twice", dup);
	free(ids);
}

static bool inside(const cm_map *m, int x, int y)
{
	return x >= 0 && y >= 0 && x < m->cols && y < m->rows;
}

static void check_square(chk *c, const char *w, const cm_map *m, const cm_square *s)
{
	check_range(c, w, "square kind", (long long)s->kind, 0, CM_SQ_KIND_COUNT - 1);
	check_range(c, w, "square island index", s->island, -1, (long long)m->n_islands - 1);
	check_range(c, w, "square big city index", s->bigcity, -1, (long long)m->n_bigcities - 1);
	for (int e = 0; e < 4; e++)
		check_range(c, w, "edge print kind", (long long)s->print[e].kind, 0, CM_PRINT_CITY);
}

/* What a square keeps beside the grid (its square checked by the caller). */
static void check_extra(chk *c, const char *w, const cm_square_extra *s)
{
	check_text(c, w, "square name", s->name, false);
	if (s->n_markers > MAX_ITEMS || (s->n_markers && !s->markers))
		fail(c, w, "%zu markers, more than %d or missing", s->n_markers, MAX_ITEMS);
	else
		for (size_t k = 0; k < s->n_markers; k++)
			check_text(c, w, "marker", s->markers[k], true);
	for (int e = 0; e < 4; e++)
		check_text(c, w, "edge print label", s->label[e], false);
}

static void check_island(chk *c, const char *w, const cm_island *is)
{
	check_text(c, w, "island name", is->name, false);
	check_text(c, w, "island title", is->title, false);
}

static void check_ferry(chk *c, const char *w, const cm_map *m, const cm_ferry *f)
{
	check_text(c, w, "ferry name", f->name, false);
	if (!inside(m, f->x1, f->y1) || !inside(m, f->x2, f->y2))
		fail(c, w, "end (%d,%d) or (%d,%d) is outside the %dx%d grid", f->x1, f->y1, f->x2, f->y2, m->cols,
		     m->rows);
	check_range(c, w, "side", (long long)f->s1, 0, 3);
	check_range(c, w, "side", (long long)f->s2, 0, 3);
}

static void check_deck_entry(chk *c, const char *w, const cm_deck_entry *e)
{
	check_id(c, w, "deck tile set", e->tileset);
	check_tile_id(c, w, "deck tile", e->tile, false, ALNUM "_.-", 64);
	check_range(c, w, "deck count", e->count, -1, MAX_COUNT);
}

/* A big city and its pieces; w: where it is ("" for a silent probe, whose
 * piece where strings are then not formatted either). */
static void check_bigcity(chk *c, const char *w, const cm_map *m, const cm_bigcity *b)
{
	check_text(c, w, "big city name", b->name, false);
	if (b->n_pieces > MAX_ITEMS || (b->n_pieces && !b->pieces)) {
		fail(c, w, "%zu pieces, more than %d", b->n_pieces, MAX_ITEMS);
		return;
	}
	for (size_t k = 0; k < b->n_pieces; k++) {
		char pw[600] = "";
		if (c->d)
			snprintf(pw, sizeof pw, "%s, piece %zu", w, k);
		if (!inside(m, b->pieces[k].x, b->pieces[k].y))
			fail(c, pw, "square (%d,%d) is outside the %dx%d grid", b->pieces[k].x, b->pieces[k].y, m->cols,
			     m->rows);
		unsigned at = c->line;
		if (b->pieces[k].tile.line)
			c->line = b->pieces[k].tile.line;
		check_tile(c, pw, &b->pieces[k].tile, true);
		c->line = at;
	}
}

static void check_map(chk *c, const cm_map *m, unsigned flags)
{
	char where[256], w[512];
	snprintf(where, sizeof where, "map %.100s", m->id ? m->id : "?");
	check_id(c, where, "map id", m->id);
	check_text(c, where, "map name", m->name, false);
	check_text(c, where, "image", m->image, false);
	check_text(c, where, "legend", m->legend, false);
	for (int i = 0; i < CM_ABOUT_FIELDS; i++) {
		const char *v = cm_about_get(&m->about, i);
		char what[32];
		snprintf(what, sizeof what, "about %s", cm_about_name(i));
		size_t max = i == 4 ? MAX_TEXT : CM_ABOUT_MAX;
		if (v && strlen(v) > max)
			fail(c, where, "%s is longer than %zu bytes", what, max);
		else if (v && !*v)
			fail(c, where, "%s is empty", what);
		else
			check_text(c, where, what, v, false);
	}
	if (m->cols < 1 || m->rows < 1 || m->cols > CM_GRID_MAX || m->rows > CM_GRID_MAX || !m->squares) {
		fail(c, where, "grid %d x %d is outside 1..%d", m->cols, m->rows, CM_GRID_MAX);
		return;
	}
	c->line = m->setup.line;
	check_range(c, where, "start squares used", m->setup.starts_used, 0, MAX_COUNT);
	check_range(c, where, "tiles min", m->setup.tiles_min, 0, MAX_COUNT);
	check_range(c, where, "tiles max", m->setup.tiles_max, 0, MAX_COUNT);
	check_range(c, where, "followers", m->setup.followers, 0, MAX_COUNT);
	c->line = 0;
	check_range(c, where, "edition", (long long)m->rules.edition, 0, CM_EDITION_COUNT - 1);
	check_range(c, where, "farmers", (long long)m->rules.farmers, CM_FARMERS_C1, CM_FARMERS_C2);
	if (m->n_islands > MAX_ITEMS || m->n_bigcities > MAX_ITEMS || m->n_ferries > MAX_ITEMS ||
	    m->n_deck > MAX_ITEMS || (m->n_islands && !m->islands) || (m->n_bigcities && !m->bigcities) ||
	    (m->n_ferries && !m->ferries) || (m->n_deck && !m->deck)) {
		fail(c, where, "more than %d islands, big cities, ferries or deck entries", MAX_ITEMS);
		return;
	}
	/* islands, ferries, deck entries (thousands on a big map): a silent
	 * probe first, the where string only for one with a problem */
	for (size_t i = 0; i < m->n_islands; i++) {
		chk probe = { NULL, NULL, NULL, 0, 0 };
		check_island(&probe, "", &m->islands[i]);
		if (!probe.bad)
			continue;
		snprintf(w, sizeof w, "%s, island %zu", where, i);
		c->line = m->islands[i].line;
		check_island(c, w, &m->islands[i]);
		c->line = 0;
	}
	/* the common case first, in one pass over the grid and one over the
	 * few squares with extras: nothing out of range anywhere, nothing to
	 * say; only otherwise the square-by-square pass below, which says it
	 * in square order */
	bool grid_ok = true;
	size_t n_sq = (size_t)m->cols * (size_t)m->rows;
	for (size_t i = 0; i < n_sq && grid_ok && !(flags & CM__MODEL_GRID_OK); i++)
		grid_ok = cm__square_in_range(m, &m->squares[i]);
	for (size_t i = 0; grid_ok && i < cm_map_extra_count(m); i++) {
		chk probe = { NULL, NULL, NULL, 0, 0 };
		check_extra(&probe, "", cm_map_extra_nth(m, i));
		grid_ok = !probe.bad;
	}
	for (int y = 0; !grid_ok && y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			/* a silent probe first: the where string is built only for a
			 * square with a problem (boards check every map they get) */
			const cm_square *s = cm__map_at(m, x, y);
			const cm_square_extra *e = m->extras ? cm_map_extra_find(m, y * m->cols + x) : NULL;
			chk probe = { NULL, NULL, NULL, 0, 0 };
			check_square(&probe, "", m, s);
			if (e)
				check_extra(&probe, "", e);
			if (!probe.bad)
				continue;
			snprintf(w, sizeof w, "%s, square (%d,%d)", where, x, y);
			c->line = s->line;
			check_square(c, w, m, s);
			if (e)
				check_extra(c, w, e);
			c->line = 0;
		}
	for (size_t i = 0; i < m->n_bigcities; i++) {
		/* a silent probe first, as for the islands */
		chk probe = { NULL, NULL, NULL, 0, 0 };
		check_bigcity(&probe, "", m, &m->bigcities[i]);
		if (!probe.bad)
			continue;
		snprintf(w, sizeof w, "%s, big city %zu", where, i);
		c->line = m->bigcities[i].line;
		check_bigcity(c, w, m, &m->bigcities[i]);
		c->line = 0;
	}
	for (size_t i = 0; i < m->n_ferries; i++) {
		chk probe = { NULL, NULL, NULL, 0, 0 };
		check_ferry(&probe, "", m, &m->ferries[i]);
		if (!probe.bad)
			continue;
		snprintf(w, sizeof w, "%s, ferry %zu", where, i);
		c->line = m->ferries[i].line;
		check_ferry(c, w, m, &m->ferries[i]);
		c->line = 0;
	}
	for (size_t i = 0; i < m->n_deck; i++) {
		chk probe = { NULL, NULL, NULL, 0, 0 };
		check_deck_entry(&probe, "", &m->deck[i]);
		if (!probe.bad)
			continue;
		snprintf(w, sizeof w, "%s, deck entry %zu", where, i);
		c->line = m->deck[i].line;
		check_deck_entry(c, w, &m->deck[i]);
		c->line = 0;
	}
}

int cm__map_check_model_flags(const cm_map *m, const char *rule, const char *file, cm_diags *d, unsigned flags)
{
	chk c = { d, rule, file, 0, 0 };
	check_map(&c, m, flags);
	return c.bad ? CM_EINVAL : 0;
}

int cm_tileset_check_model(const cm_tileset *ts, const char *rule, const char *file, cm_diags *d)
{
	chk c = { d, rule, file, 0, 0 };
	check_tileset(&c, ts);
	return c.bad ? CM_EINVAL : 0;
}
