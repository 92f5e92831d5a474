/* SPDX-License-Identifier: MIT */
/* map_hash.c: the content hash of a map and of the tile sets its deck uses
 * (cm_map_hash, carcamap/pack.h; schemas/pack.md "Content hash"). One
 * walker visits the items in the order the definition lists them; an
 * encoder per definition writes each value: version 1 (packs of format 1
 * and 2) in fixed-width integers and names, version 2 in LEB128 and
 * one-byte codes with two bytes per plain square. The map's own part of
 * version 2 is computed once and cached on the map. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/pack.h"
#include "base/sha256_int.h"
#include "model/map_hash_int.h"
#include "model/map_int.h"

/* ---- the buffer every encoder writes into ---- */

/* The serialization is gathered in a buffer and hashed in large pieces:
 * a million squares make a hundred million bytes of small fields. */
typedef struct {
	cm_sha256 s;
	size_t n;
	unsigned long flushes; /* times buf was hashed and emptied */
	uint8_t buf[8192];
} hasher;

static void h_init(hasher *h)
{
	h->n = 0;
	h->flushes = 0;
	cm_sha256_init(&h->s);
}

static void h_flush(hasher *h)
{
	cm_sha256_update(&h->s, h->buf, h->n);
	h->n = 0;
	h->flushes++;
}

static void h_bytes(hasher *h, const void *p, size_t n)
{
	if (n > sizeof h->buf - h->n) {
		h_flush(h);
		if (n > sizeof h->buf) {
			cm_sha256_update(&h->s, p, n);
			return;
		}
	}
	memcpy(h->buf + h->n, p, n);
	h->n += n;
}

/* ---- the walker ---- */

/* The enumerations the definitions write: version 1 by name, version 2
 * by code, a kind's code being the position of its name in its table
 * (so the C enums may be reordered without changing any hash). */
enum { TAB_SQ, TAB_PR, TAB_SIDE, TAB_FEAT, TAB_GOOD, TAB_ED, N_TABS };
#define MAX_CODES 16
#define NO_CODE 0xffu
static const char *const code_sq[] = { "none", "land", "start", "town", "bigcity",
	                               "waves", "landmark", "island", "half" };
static const char *const code_pr[] = { "none", "neutral", "road", "city" };
static const char *const code_side[] = { "N", "E", "S", "W" };
static const char *const code_feat[] = { "road", "city", "field", "monastery", "garden", "abbey" };
static const char *const code_good[] = { "", "wine", "grain", "cloth" }; /* cm_good_name: none is "" */
static const char *const code_ed[] = { "C1", "C2", "C3" };
_Static_assert(CM_SQ_KIND_COUNT <= MAX_CODES && CM_FEAT_KIND_COUNT <= MAX_CODES && CM_EDITION_COUNT <= MAX_CODES,
               "every enum value has a code slot");

static const char *sq_name(int k) { return cm_square_kind_name((cm_square_kind)k); }
static const char *pr_name(int k) { return cm_print_kind_name((cm_print_kind)k); }
static const char *side_name(int k) { return cm_side_name((cm_side)k); }
static const char *feat_name(int k) { return cm_feature_kind_name((cm_feature_kind)k); }
static const char *good_name(int k) { return cm_good_name((cm_good)k); }
static const char *ed_name(int k) { return cm_edition_name((cm_edition)k); }

static const struct {
	const char *(*name)(int); /* the C enum's value's name */
	int count;                /* values of the C enum */
	const char *const *codes; /* version 2's table of names */
	size_t n_codes;
} tabs[N_TABS] = {
#define TAB(fn, count, tab) { fn, count, tab, sizeof tab / sizeof tab[0] }
	[TAB_SQ] = TAB(sq_name, CM_SQ_KIND_COUNT, code_sq),
	[TAB_PR] = TAB(pr_name, 4, code_pr),
	[TAB_SIDE] = TAB(side_name, 4, code_side),
	[TAB_FEAT] = TAB(feat_name, CM_FEAT_KIND_COUNT, code_feat),
	[TAB_GOOD] = TAB(good_name, 4, code_good),
	[TAB_ED] = TAB(ed_name, CM_EDITION_COUNT, code_ed),
#undef TAB
};

typedef struct walk walk;

/* One definition's way of writing each kind of value. */
typedef struct {
	const char *tag; /* item 1 */
	void (*num)(walk *w, long long v);
	void (*str)(walk *w, const char *s); /* NULL is a value of its own */
	void (*code)(walk *w, int tab, unsigned v);
	/* a tile's contacts, and what follows them (version 2: markers) */
	void (*contacts)(walk *w, const cm_tile_type *t);
	/* item 7, every square, from the grid view g when given */
	int (*squares)(walk *w, const cm_map *m, const cm_map_grid *g);
	/* item 9 */
	void (*about)(walk *w, const cm_map *m);
} encoder;

struct walk {
	const encoder *e;
	uint8_t code[N_TABS][MAX_CODES]; /* version 2: each enum value's code */
	bool bad; /* a value without a code: the hash is refused (CM_EINVAL) */
	hasher h;
};

static void walk_init(walk *w, const encoder *e)
{
	w->e = e;
	w->bad = false;
	for (int t = 0; t < N_TABS; t++)
		for (int k = 0; k < tabs[t].count && k < MAX_CODES; k++) {
			const char *name = tabs[t].name(k);
			w->code[t][k] = NO_CODE;
			for (size_t i = 0; name && i < tabs[t].n_codes; i++)
				if (strcmp(name, tabs[t].codes[i]) == 0)
					w->code[t][k] = (uint8_t)i;
		}
}

/* A tile type's features, then its contacts. */
static void walk_tile(walk *w, const cm_tile_type *t)
{
	const encoder *e = w->e;
	e->num(w, (long long)t->n_features);
	for (size_t i = 0; i < t->n_features; i++) {
		const cm_feature *f = &t->features[i];
		e->code(w, TAB_FEAT, (unsigned)f->kind);
		e->str(w, f->id);
		e->num(w, f->slots);
		e->num(w, f->arms);
		e->num(w, f->cathedral);
		e->num(w, f->inn);
		e->code(w, TAB_GOOD, (unsigned)f->good);
		e->num(w, (long long)f->touches);
	}
	e->contacts(w, t);
}

/* Items 1 to 6: everything before the squares. */
static void walk_head(walk *w, const cm_map *m)
{
	const encoder *e = w->e;
	e->str(w, e->tag);
	e->str(w, m->id);
	e->str(w, m->name);
	e->num(w, m->cols);
	e->num(w, m->rows);
	e->num(w, m->setup.starts_used);
	e->num(w, m->setup.tiles_min);
	e->num(w, m->setup.tiles_max);
	e->num(w, m->setup.followers);
	for (size_t i = 0; i < cm_rule_option_count(); i++) { /* the table's map options, in order */
		const cm_rule_option *o = cm_rule_option_get(i);
		int v = cm_rules_get(&m->rules, i);
		if (!o->in_map)
			continue;
		if (o->kind == CM_RULE_EDITION)
			e->code(w, TAB_ED, (unsigned)v);
		else
			e->num(w, v);
	}
	e->num(w, (long long)m->n_islands);
	for (size_t i = 0; i < m->n_islands; i++) {
		e->str(w, m->islands[i].name);
		e->str(w, m->islands[i].title);
	}
	e->num(w, (long long)m->n_bigcities);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *c = &m->bigcities[i];
		e->str(w, c->name);
		e->num(w, (long long)c->n_pieces);
		for (size_t k = 0; k < c->n_pieces; k++) {
			e->num(w, c->pieces[k].x);
			e->num(w, c->pieces[k].y);
			walk_tile(w, &c->pieces[k].tile);
		}
	}
	e->num(w, (long long)m->n_ferries);
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		e->str(w, f->name);
		e->num(w, f->x1);
		e->num(w, f->y1);
		e->code(w, TAB_SIDE, (unsigned)f->s1);
		e->num(w, f->x2);
		e->num(w, f->y2);
		e->code(w, TAB_SIDE, (unsigned)f->s2);
		e->num(w, f->arms);
	}
	e->num(w, (long long)m->n_deck);
	for (size_t i = 0; i < m->n_deck; i++) {
		e->str(w, m->deck[i].tileset);
		e->str(w, m->deck[i].tile);
		e->num(w, m->deck[i].count);
	}
}

/* Item 8: the tile sets the deck uses, sorted by id. */
static void walk_sets(walk *w, const cm_tileset *const *used, size_t n_used)
{
	const encoder *e = w->e;
	e->num(w, (long long)n_used);
	for (size_t i = 0; i < n_used; i++) {
		const cm_tileset *ts = used[i];
		e->str(w, ts->id);
		e->str(w, ts->name);
		e->num(w, ts->base);
		for (int k = 0; k < CM_EDITION_COUNT; k++)
			e->num(w, ts->total[k]);
		e->num(w, (long long)ts->n_tiles);
		for (size_t k = 0; k < ts->n_tiles; k++) {
			const cm_tile_type *t = &ts->tiles[k];
			e->str(w, t->id);
			e->str(w, t->name);
			for (int j = 0; j < CM_EDITION_COUNT; j++)
				e->num(w, t->count[j]);
			e->num(w, t->start);
			walk_tile(w, t);
		}
	}
}

/* ---- version 1: integers as 8-byte big-endian two's complement, strings
 * as a 4-byte big-endian length and their bytes (NULL as length
 * 0xFFFFFFFF), enums by name ---- */

static void v1_num(walk *w, long long v)
{
	uint8_t b[8];
	uint64_t u = (uint64_t)v;
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (56 - 8 * i));
	h_bytes(&w->h, b, 8);
}

static void v1_str(walk *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	uint32_t len = s ? (uint32_t)n : 0xFFFFFFFFu;
	uint8_t b[4] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len };
	h_bytes(&w->h, b, 4);
	if (s)
		h_bytes(&w->h, s, n);
}

static void v1_code(walk *w, int tab, unsigned v)
{
	v1_str(w, tabs[tab].name((int)v));
}

static void v1_contacts(walk *w, const cm_tile_type *t)
{
	v1_num(w, (long long)t->n_contacts);
	for (size_t i = 0; i < t->n_contacts; i++)
		v1_num(w, t->contacts[i]);
}

/* Whether s (x: its entry beside the grid, or NULL) is plain: nothing on
 * it but its kind and print kinds; *key says which. */
static bool v1_plain(const cm_square *s, const cm_square_extra *x, unsigned *key)
{
	bool is_plain = (!x || (!x->name && !x->n_markers && !x->label[0] && !x->label[1] && !x->label[2] &&
	                        !x->label[3])) &&
	                !s->arms && s->island < 0 && s->bigcity < 0;
	*key = (unsigned)s->kind << 8;
	for (int e = 0; e < 4 && is_plain; e++) {
		is_plain = !s->print[e].arms;
		*key |= ((unsigned)s->print[e].kind & 3u) << (2 * e);
	}
	return is_plain && s->print[0].kind < 4u && s->print[1].kind < 4u && s->print[2].kind < 4u &&
	       s->print[3].kind < 4u;
}

/* Every square's whole record. A plain square always serializes to the
 * same bytes for the same kinds: kept from the last plain square and
 * appended whole while the kinds repeat. */
static int v1_squares(walk *w, const cm_map *m, const cm_map_grid *g)
{
	(void)g;
	hasher *h = &w->h;
	uint8_t plain[160];
	size_t plain_n = 0;
	unsigned plain_key = ~0u;
	for (int i = 0; i < m->cols * m->rows; i++) {
		const cm_square *s = &m->squares[i];
		const cm_square_extra *x = m->extras ? cm_map_extra_find(m, i) : NULL;
		unsigned key;
		bool is_plain = v1_plain(s, x, &key);
		if (is_plain && key == plain_key) {
			h_bytes(h, plain, plain_n);
			continue;
		}
		size_t before = h->n;
		unsigned long flushes = h->flushes;
		v1_code(w, TAB_SQ, s->kind);
		v1_str(w, x ? x->name : NULL);
		v1_num(w, s->arms);
		v1_num(w, s->island);
		v1_num(w, s->bigcity);
		v1_num(w, x ? (long long)x->n_markers : 0);
		for (size_t k = 0; x && k < x->n_markers; k++)
			v1_str(w, x->markers[k]);
		for (int e = 0; e < 4; e++) {
			v1_code(w, TAB_PR, s->print[e].kind);
			v1_num(w, s->print[e].arms);
			v1_str(w, x ? x->label[e] : NULL);
		}
		/* the square's bytes are in the buffer unless it was flushed meanwhile */
		if (is_plain && h->flushes == flushes && h->n - before <= sizeof plain) {
			plain_n = h->n - before;
			memcpy(plain, h->buf + before, plain_n);
			plain_key = key;
		}
	}
	return 0;
}

/* only when given, so maps without it keep the hashes they had */
static void v1_about(walk *w, const cm_map *m)
{
	if (!cm_about_present(&m->about))
		return;
	v1_str(w, "about");
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		v1_str(w, cm_about_get(&m->about, i));
}

/* ---- version 2: integers as zigzag LEB128, strings as LEB128 of length
 * + 1 then the bytes (NULL: the byte 0), kinds as one code byte; a plain
 * square (its kind and four print kinds, nothing else) is two bytes ---- */

static void v2_u(walk *w, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	do {
		uint8_t c = (uint8_t)(v & 0x7f);
		v >>= 7;
		b[n++] = (uint8_t)(c | (v ? 0x80 : 0));
	} while (v);
	h_bytes(&w->h, b, n);
}

static void v2_num(walk *w, long long v)
{
	uint64_t u = (uint64_t)v << 1;
	v2_u(w, v < 0 ? ~u : u); /* zigzag: 0 1 -1 2 -2 … as 0 2 1 4 3 … */
}

static void v2_str(walk *w, const char *s)
{
	if (!s) {
		v2_u(w, 0);
		return;
	}
	size_t n = strlen(s);
	v2_u(w, (uint64_t)n + 1);
	h_bytes(&w->h, s, n);
}

/* One code byte: value v of table tab. */
static void v2_code(walk *w, int tab, unsigned v)
{
	uint8_t c = v < (unsigned)tabs[tab].count ? w->code[tab][v] : NO_CODE;
	if (c == NO_CODE)
		w->bad = true;
	h_bytes(&w->h, &c, 1);
}

/* A tile with markers says so by a negative count, -(contacts + 1), and
 * its markers follow the contacts: a tile without any hashes as it did
 * before markers existed (schemas/pack.md). */
static void v2_contacts(walk *w, const cm_tile_type *t)
{
	if (t->n_markers)
		v2_num(w, -(long long)t->n_contacts - 1);
	else
		v2_num(w, (long long)t->n_contacts);
	for (size_t i = 0; i < t->n_contacts; i++)
		v2_num(w, (long long)t->contacts[i]);
	if (t->n_markers) {
		v2_num(w, (long long)t->n_markers);
		for (size_t i = 0; i < t->n_markers; i++)
			v2_str(w, t->markers[i]);
	}
}

/* One square (x: its entry beside the grid, or NULL): a plain square is
 * its kind code and a byte of print kind codes; any other the kind code +
 * 0x80, the print byte and the rest of the record. */
static void v2_square(walk *w, const cm_square *s, const cm_square_extra *x)
{
	uint8_t b[2];
	b[0] = s->kind < CM_SQ_KIND_COUNT ? w->code[TAB_SQ][s->kind] : NO_CODE;
	b[1] = 0;
	bool plain = !s->arms && s->island < 0 && s->bigcity < 0;
	for (int e = 0; e < 4; e++) {
		uint8_t c = s->print[e].kind < 4 ? w->code[TAB_PR][s->print[e].kind] : NO_CODE;
		if (c == NO_CODE)
			w->bad = true;
		b[1] = (uint8_t)(b[1] | (c & 3u) << (2 * e));
		plain = plain && !s->print[e].arms && !(x && x->label[e]);
	}
	if (b[0] == NO_CODE)
		w->bad = true;
	plain = plain && !(x && (x->name || x->n_markers));
	if (plain) {
		h_bytes(&w->h, b, 2);
		return;
	}
	b[0] = (uint8_t)(b[0] | 0x80);
	h_bytes(&w->h, b, 2);
	v2_str(w, x ? x->name : NULL);
	v2_num(w, s->arms);
	v2_num(w, s->island);
	v2_num(w, s->bigcity);
	v2_num(w, x ? (long long)x->n_markers : 0);
	for (size_t k = 0; x && k < x->n_markers; k++)
		v2_str(w, x->markers[k]);
	for (int e = 0; e < 4; e++) {
		v2_num(w, s->print[e].arms);
		v2_str(w, x ? x->label[e] : NULL);
	}
}

/* A square known to be plain (no entry beside the grid): its two bytes
 * straight into the buffer. */
static inline void v2_plain(walk *w, const cm_square *s)
{
	hasher *b = &w->h;
	if (b->n + 2 > sizeof b->buf)
		h_flush(b);
	b->buf[b->n++] = w->code[TAB_SQ][s->kind];
	b->buf[b->n++] = (uint8_t)(w->code[TAB_PR][s->print[0].kind] | w->code[TAB_PR][s->print[1].kind] << 2 |
	                           w->code[TAB_PR][s->print[2].kind] << 4 | w->code[TAB_PR][s->print[3].kind] << 6);
}

/* Whether the codes of square and print kinds are the enums' values (they
 * are): a plain square's two bytes are then its grid view's two. */
static bool v2_codes_are_grid(const walk *w)
{
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++)
		if (w->code[TAB_SQ][k] != k)
			return false;
	for (int k = 0; k < 4; k++)
		if (w->code[TAB_PR][k] != k)
			return false;
	return true;
}

/* Square by square. */
static int v2_squares_each(walk *w, const cm_map *m)
{
	size_t n = (size_t)m->cols * (size_t)m->rows;
	uint8_t *has = calloc(n / 8 + 1, 1); /* squares with an entry beside the grid */
	if (!has)
		return CM_ENOMEM;
	for (size_t i = 0; i < cm_map_extra_count(m); i++) {
		size_t sq = (size_t)cm_map_extra_nth(m, i)->sq;
		if (sq < n)
			has[sq / 8] = (uint8_t)(has[sq / 8] | 1u << (sq % 8));
	}
	for (size_t i = 0; i < n; i++) {
		const cm_square *s = &m->squares[i];
		if (has[i / 8] >> (i % 8) & 1)
			v2_square(w, s, cm_map_extra_find(m, (int)i));
		else if (!s->arms && s->island < 0 && s->bigcity < 0 && s->kind < CM_SQ_KIND_COUNT &&
		         (s->print[0].kind | s->print[1].kind | s->print[2].kind | s->print[3].kind) < 4 &&
		         !(s->print[0].arms | s->print[1].arms | s->print[2].arms | s->print[3].arms))
			v2_plain(w, s); /* the common case: what v2_square would give, without its tests */
		else
			v2_square(w, s, NULL);
	}
	free(has);
	return 0;
}

/* From the grid view: the runs of plain squares between the view's listed
 * squares hashed from its records in one piece, the listed ones as
 * v2_square does them. */
static int v2_squares(walk *w, const cm_map *m, const cm_map_grid *g)
{
	if (!g || !v2_codes_are_grid(w))
		return v2_squares_each(w, m);
	size_t n = (size_t)m->cols * (size_t)m->rows, run = 0;
	for (size_t k = 0; k < g->n_sq; k++) {
		size_t i = g->sq[k];
		h_bytes(&w->h, g->grid + 2 * run, 2 * (i - run));
		v2_square(w, &m->squares[i], cm_map_extra_find(m, (int)i));
		run = i + 1;
	}
	h_bytes(&w->h, g->grid + 2 * run, 2 * (n - run));
	return 0;
}

static void v2_about(walk *w, const cm_map *m)
{
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		v2_str(w, cm_about_get(&m->about, i));
}

static const encoder encoders[2] = {
	{ "carcamap map content 1", v1_num, v1_str, v1_code, v1_contacts, v1_squares, v1_about },
	{ "carcamap map content 2", v2_num, v2_str, v2_code, v2_contacts, v2_squares, v2_about },
};

/* ---- the hash ---- */

/* Items 1 to 7, the map's own part. Version 2 keeps the state after them
 * on the map (map_struct_int.h) and starts from there when it is kept:
 * they are the costly part (a million squares), and depend on the map
 * alone. */
static int walk_map(walk *w, const cm_map *m, const cm_map_grid *g, int version)
{
	cm__hash_mid mid;
	if (version == 2 && cm__map_hash_mid_get(m, &mid)) {
		w->h.s = mid.s;
		w->h.n = 0;
		w->h.flushes = 0;
		w->bad = mid.bad;
		return 0;
	}
	h_init(&w->h);
	walk_head(w, m);
	int rc = w->e->squares(w, m, g);
	if (rc || version != 2)
		return rc;
	/* the buffer into the digest's state: the state alone is the cache */
	cm_sha256_update(&w->h.s, w->h.buf, w->h.n);
	w->h.n = 0;
	mid.s = w->h.s;
	mid.bad = w->bad;
	cm__map_hash_mid_put(m, &mid);
	return 0;
}

int cm__map_hash_grid(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, bool sorted, const cm_map_grid *g,
                      int version, uint8_t out[32])
{
	if (version != 1 && version != 2)
		return CM_EINVAL;
	if (!m->squares || m->cols < 1 || m->rows < 1)
		return CM_EINVAL;
	const cm_tileset **used = NULL;
	size_t n_used = 0;
	int rc = cm__map_deck_sets(m, sets, n_sets, sorted, &used, &n_used);
	if (rc)
		return rc;
	walk *w = malloc(sizeof *w);
	if (!w) {
		free(used);
		return CM_ENOMEM;
	}
	walk_init(w, &encoders[version - 1]);
	rc = walk_map(w, m, g, version);
	if (!rc) {
		walk_sets(w, used, n_used);
		w->e->about(w, m);
		cm_sha256_update(&w->h.s, w->h.buf, w->h.n);
		cm_sha256_final(&w->h.s, out);
		rc = w->bad ? CM_EINVAL : 0;
	}
	free(w);
	free(used);
	return rc;
}

int cm_map_hash_version(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, int version, uint8_t out[32])
{
	return cm__map_hash_grid(m, sets, n_sets, false, NULL, version, out);
}

int cm_map_hash(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, uint8_t out[32])
{
	return cm__map_hash_grid(m, sets, n_sets, false, NULL, CM_MAP_HASH_VERSION, out);
}

/* ---- the tile sets of a deck ---- */

int cm__tileset_cmp_id(const void *a, const void *b)
{
	return strcmp((*(const cm_tileset *const *)a)->id, (*(const cm_tileset *const *)b)->id);
}

const cm_tileset *cm__tileset_find_in(const cm_tileset *const *sets, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (sets[i] && sets[i]->id && id && strcmp(sets[i]->id, id) == 0)
			return sets[i];
	return NULL;
}

const cm_tileset *cm__tileset_find_sorted(const cm_tileset *const *sets, size_t n, const char *id)
{
	size_t lo = 0, hi = n;
	while (id && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sets[mid]->id, id);
		if (!c)
			return sets[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int cm__map_deck_sets(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, bool sorted, const cm_tileset ***out,
                      size_t *n_out)
{
	const cm_tileset **used = calloc(m->n_deck + 1, sizeof *used);
	size_t n_used = 0;
	*out = NULL;
	*n_out = 0;
	if (!used)
		return CM_ENOMEM;
	for (size_t i = 0; i < m->n_deck; i++) {
		const char *id = m->deck[i].tileset;
		const cm_tileset *ts = sorted ? cm__tileset_find_sorted(sets, n_sets, id) : cm__tileset_find_in(sets, n_sets, id);
		if (!ts) {
			free(used);
			return CM_ENOTFOUND;
		}
		used[n_used++] = ts;
	}
	/* sorted, then each once: an id names one set (the first of an id is
	 * found), so equal ids are the same set */
	qsort(used, n_used, sizeof *used, cm__tileset_cmp_id);
	size_t u = 0;
	for (size_t i = 0; i < n_used; i++)
		if (!u || used[u - 1] != used[i])
			used[u++] = used[i];
	*out = used;
	*n_out = u;
	return 0;
}
