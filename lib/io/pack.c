/* SPDX-License-Identifier: MIT */
/* pack.c: map packs (carcamap/pack.h). Owns the SQLite side of carcamap:
 * atomic writing of a pack from the in-memory model, opening a pack as
 * hostile input (header, application id, version, quick_check, schema), and
 * reading it back into the model through a map builder, every value
 * range-checked. Also the canonical content hash of a map (schemas/pack.md
 * "Content hash"), the map's own part cached on the map. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "carcamap/catalog.h"
#include "carcamap/export.h"
#include "carcamap/pack.h"
#include "export/export_int.h"
#include "io/pack_int.h"
#include "base/idindex_int.h"
#include "io/schema_int.h"
#include "model/map_builder_int.h"
#include "model/map_int.h"
#include "base/bytes_int.h"
#include "base/cpu_int.h"
#include "base/sha256_int.h"
#include "base/util_int.h"

/* Limits shared by writing and reading: what a pack may hold. */
#define MAX_TEXT CM_TEXT_MAX   /* bytes in one text value */
#define MAX_ITEMS CM_ITEMS_MAX /* entries in one list (tiles, markers, ferries, …) */
#define MAX_COUNT CM_COUNT_MAX /* a count, total or setup figure */
#define MAX_GRID CM_GRID_MAX   /* cols and rows, as cm_map_builder_new */
#define MAX_BLOB (256 * 1024 * 1024) /* one value as SQLite returns it */

#define STMT_CACHE 32

struct cm_pack {
	sqlite3 *db;
	char *path;
	char **maps, **sets; /* ids, sorted bytewise */
	size_t n_maps, n_sets;
	int version;         /* user_version: 1 (squares only), 2 (map_grids), 3 (hash version 2),
	                      * 4 (client binary 2.0) */
	/* the tile sets verifying maps read (parallel to sets, read once for
	 * all the maps whose decks use them), and which of them the map being
	 * verified has taken (vstamp[i] == vcall) */
	cm_tileset **vsets;
	size_t *vstamp, vcall;
	/* the reading statements, prepared once per pack and reset after each
	 * use (pack_stmt, pack_release): reading many small maps costs their
	 * rows, not a parse of every query per map */
	struct pack_stmt {
		char *sql;
		sqlite3_stmt *st;
		bool busy;
	} stmts[STMT_CACHE];
	size_t n_stmts;
};

/* A prepared statement of sql for p's database in *st: the cached one when
 * it is free, else a new one (cached when there is room). SQLite's result
 * code. Give it back with pack_release. */
static int pack_stmt(cm_pack *p, const char *sql, sqlite3_stmt **st)
{
	bool known = false;
	for (size_t i = 0; i < p->n_stmts; i++)
		if (strcmp(p->stmts[i].sql, sql) == 0) {
			if (!p->stmts[i].busy) {
				p->stmts[i].busy = true;
				*st = p->stmts[i].st;
				return SQLITE_OK;
			}
			known = true;
		}
	int rc = sqlite3_prepare_v2(p->db, sql, -1, st, NULL);
	if (rc != SQLITE_OK || known || p->n_stmts == STMT_CACHE)
		return rc;
	char *copy = cm_strdup(sql);
	if (copy) /* else simply not cached */
		p->stmts[p->n_stmts++] = (struct pack_stmt){ copy, *st, true };
	return SQLITE_OK;
}

/* Gives back a statement of pack_stmt (NULL: nothing): reset, its bindings
 * cleared, for the next use; finalized when it is not cached. */
static void pack_release(cm_pack *p, sqlite3_stmt *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < p->n_stmts; i++)
		if (p->stmts[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			p->stmts[i].busy = false;
			return;
		}
	sqlite3_finalize(st);
}

/* The content hash definition of the pack's stored hashes. */
static int pack_hash_version(const cm_pack *p)
{
	return p->version >= 3 ? 2 : 1;
}

int cm__pack_hash_version(const cm_pack *p)
{
	return pack_hash_version(p);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first id that occurs twice among n (NULLs skipped), or NULL. */
static const char *duplicate_id(const char **ids, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (ids[i])
			ids[k++] = ids[i];
	qsort(ids, k, sizeof *ids, cmp_str);
	for (size_t i = 1; i < k; i++)
		if (strcmp(ids[i - 1], ids[i]) == 0)
			return ids[i];
	return NULL;
}

/* ---- content hash ---- */

/* The canonical serialization (schemas/pack.md): integers as 8-byte
 * big-endian two's complement, strings as a 4-byte big-endian length and
 * their bytes (NULL as length 0xFFFFFFFF), enums by name. */
/* The serialization is gathered in a buffer and hashed in large pieces:
 * a million squares make a hundred million bytes of small fields. */
typedef struct {
	cm_sha256 s;
	size_t n;
	unsigned long flushes; /* times buf was hashed and emptied */
	uint8_t buf[8192];
} hasher;

static void h_bytes(hasher *h, const void *p, size_t n)
{
	if (n > sizeof h->buf - h->n) {
		cm_sha256_update(&h->s, h->buf, h->n);
		h->n = 0;
		h->flushes++;
		if (n > sizeof h->buf) {
			cm_sha256_update(&h->s, p, n);
			return;
		}
	}
	memcpy(h->buf + h->n, p, n);
	h->n += n;
}

static void h_int(hasher *h, long long v)
{
	uint8_t b[8];
	uint64_t u = (uint64_t)v;
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (56 - 8 * i));
	h_bytes(h, b, 8);
}

static void h_str(hasher *h, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	uint32_t len = s ? (uint32_t)n : 0xFFFFFFFFu;
	uint8_t b[4] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len };
	h_bytes(h, b, 4);
	if (s)
		h_bytes(h, s, n);
}

static void h_tile(hasher *h, const cm_tile_type *t)
{
	h_int(h, (long long)t->n_features);
	for (size_t i = 0; i < t->n_features; i++) {
		const cm_feature *f = &t->features[i];
		h_str(h, cm_feature_kind_name(f->kind));
		h_str(h, f->id);
		h_int(h, f->slots);
		h_int(h, f->arms);
		h_int(h, f->cathedral);
		h_int(h, f->inn);
		h_str(h, cm_good_name(f->good));
		h_int(h, f->touches);
	}
	h_int(h, (long long)t->n_contacts);
	for (size_t i = 0; i < t->n_contacts; i++)
		h_int(h, t->contacts[i]);
}

static void h_tileset(hasher *h, const cm_tileset *ts)
{
	h_str(h, ts->id);
	h_str(h, ts->name);
	h_int(h, ts->base);
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		h_int(h, ts->total[e]);
	h_int(h, (long long)ts->n_tiles);
	for (size_t i = 0; i < ts->n_tiles; i++) {
		const cm_tile_type *t = &ts->tiles[i];
		h_str(h, t->id);
		h_str(h, t->name);
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			h_int(h, t->count[e]);
		h_int(h, t->start);
		h_tile(h, t);
	}
}

static int cmp_set(const void *a, const void *b)
{
	return strcmp((*(cm_tileset *const *)a)->id, (*(cm_tileset *const *)b)->id);
}

static cm_tileset *find_set(cm_tileset *const *sets, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (sets[i] && sets[i]->id && id && strcmp(sets[i]->id, id) == 0)
			return sets[i];
	return NULL;
}

static int deck_sets(const cm_map *m, cm_tileset *const *sets, size_t n_sets, bool sorted, cm_tileset ***out,
                     size_t *n_out);

/* The set of that id among n sorted by id (cmp_set), or NULL. */
static cm_tileset *find_sorted_set(cm_tileset *const *sets, size_t n, const char *id)
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

/* Version 1 (schemas/pack.md "Content hash", version 1): what packs of
 * format 1 and 2 store. */
static int hash_v1(const cm_map *m, cm_tileset *const *sets, size_t n_sets, uint8_t out[32])
{
	if (!m->squares || m->cols < 1 || m->rows < 1)
		return CM_EINVAL;
	/* the distinct tile sets of the deck, sorted by id */
	cm_tileset **used = NULL;
	size_t n_used = 0;
	int rc = deck_sets(m, sets, n_sets, false, &used, &n_used);
	if (rc)
		return rc;

	hasher *hp = malloc(sizeof *hp);
	if (!hp) {
		free(used);
		return CM_ENOMEM;
	}
	hp->n = 0;
	hp->flushes = 0;
	cm_sha256_init(&hp->s);
	h_str(hp, "carcamap map content 1");
	h_str(hp, m->id);
	h_str(hp, m->name);
	h_int(hp, m->cols);
	h_int(hp, m->rows);
	h_int(hp, m->setup.starts_used);
	h_int(hp, m->setup.tiles_min);
	h_int(hp, m->setup.tiles_max);
	h_int(hp, m->setup.followers);
	for (size_t i = 0; i < cm_rule_option_count(); i++) { /* the table's map options, in order */
		const cm_rule_option *o = cm_rule_option_get(i);
		int v = cm_rules_get(&m->rules, i);
		if (!o->in_map)
			continue;
		if (o->kind == CM_RULE_EDITION)
			h_str(hp, cm_edition_name((cm_edition)v));
		else
			h_int(hp, v);
	}
	h_int(hp, (long long)m->n_islands);
	for (size_t i = 0; i < m->n_islands; i++) {
		h_str(hp, m->islands[i].name);
		h_str(hp, m->islands[i].title);
	}
	h_int(hp, (long long)m->n_bigcities);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *b = &m->bigcities[i];
		h_str(hp, b->name);
		h_int(hp, (long long)b->n_pieces);
		for (size_t k = 0; k < b->n_pieces; k++) {
			h_int(hp, b->pieces[k].x);
			h_int(hp, b->pieces[k].y);
			h_tile(hp, &b->pieces[k].tile);
		}
	}
	h_int(hp, (long long)m->n_ferries);
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		h_str(hp, f->name);
		h_int(hp, f->x1);
		h_int(hp, f->y1);
		h_str(hp, cm_side_name(f->s1));
		h_int(hp, f->x2);
		h_int(hp, f->y2);
		h_str(hp, cm_side_name(f->s2));
		h_int(hp, f->arms);
	}
	h_int(hp, (long long)m->n_deck);
	for (size_t i = 0; i < m->n_deck; i++) {
		h_str(hp, m->deck[i].tileset);
		h_str(hp, m->deck[i].tile);
		h_int(hp, m->deck[i].count);
	}
	/* A plain square (nothing on it but its kind and print kinds) always
	 * serializes to the same bytes for the same kinds: kept from the last
	 * plain square and appended whole while the kinds repeat. */
	uint8_t plain[160];
	size_t plain_n = 0;
	unsigned plain_key = ~0u;
	for (int i = 0; i < m->cols * m->rows; i++) {
		const cm_square *s = &m->squares[i];
		const cm_square_extra *x = m->extras ? cm_map_extra_find(m, i) : NULL;
		bool is_plain = (!x || (!x->name && !x->n_markers && !x->label[0] && !x->label[1] && !x->label[2] &&
		                        !x->label[3])) &&
		                !s->arms && s->island < 0 && s->bigcity < 0;
		unsigned key = (unsigned)s->kind << 8;
		for (int e = 0; e < 4 && is_plain; e++) {
			is_plain = !s->print[e].arms;
			key |= ((unsigned)s->print[e].kind & 3u) << (2 * e);
		}
		is_plain = is_plain && s->print[0].kind < 4u && s->print[1].kind < 4u && s->print[2].kind < 4u &&
		           s->print[3].kind < 4u;
		if (is_plain && key == plain_key) {
			h_bytes(hp, plain, plain_n);
			continue;
		}
		size_t before = hp->n;
		unsigned long flushes = hp->flushes;
		h_str(hp, cm_square_kind_name(s->kind));
		h_str(hp, x ? x->name : NULL);
		h_int(hp, s->arms);
		h_int(hp, s->island);
		h_int(hp, s->bigcity);
		h_int(hp, x ? (long long)x->n_markers : 0);
		for (size_t k = 0; x && k < x->n_markers; k++)
			h_str(hp, x->markers[k]);
		for (int e = 0; e < 4; e++) {
			h_str(hp, cm_print_kind_name(s->print[e].kind));
			h_int(hp, s->print[e].arms);
			h_str(hp, x ? x->label[e] : NULL);
		}
		/* the square's bytes are in the buffer unless it was flushed meanwhile */
		if (is_plain && hp->flushes == flushes && hp->n - before <= sizeof plain) {
			plain_n = hp->n - before;
			memcpy(plain, hp->buf + before, plain_n);
			plain_key = key;
		}
	}
	h_int(hp, (long long)n_used);
	for (size_t i = 0; i < n_used; i++)
		h_tileset(hp, used[i]);
	/* only when given, so maps without it keep the hashes they had */
	if (cm_about_present(&m->about)) {
		h_str(hp, "about");
		for (int i = 0; i < CM_ABOUT_FIELDS; i++)
			h_str(hp, cm_about_get(&m->about, i));
	}
	cm_sha256_update(&hp->s, hp->buf, hp->n);
	cm_sha256_final(&hp->s, out);
	free(hp);
	free(used);
	return 0;
}

/* The distinct tile sets of m's deck, sorted by id, in a new array; sets
 * sorted by id (the writer's) are searched by halves, others in turn. */
static int deck_sets(const cm_map *m, cm_tileset *const *sets, size_t n_sets, bool sorted, cm_tileset ***out,
                     size_t *n_out)
{
	cm_tileset **used = calloc(m->n_deck + 1, sizeof *used);
	size_t n_used = 0;
	*out = NULL;
	*n_out = 0;
	if (!used)
		return CM_ENOMEM;
	for (size_t i = 0; i < m->n_deck; i++) {
		const char *id = m->deck[i].tileset;
		cm_tileset *ts = sorted ? find_sorted_set(sets, n_sets, id) : find_set(sets, n_sets, id);
		if (!ts) {
			free(used);
			return CM_ENOTFOUND;
		}
		used[n_used++] = ts;
	}
	/* sorted, then each once: an id names one set (find_set gives the
	 * first of an id), so equal ids are the same set */
	qsort(used, n_used, sizeof *used, cmp_set);
	size_t u = 0;
	for (size_t i = 0; i < n_used; i++)
		if (!u || used[u - 1] != used[i])
			used[u++] = used[i];
	*out = used;
	*n_out = u;
	return 0;
}

/* ---- content hash, version 2 (schemas/pack.md "Content hash") ----
 * Integers as zigzag LEB128, strings as LEB128 of length + 1 then the
 * bytes (NULL: the byte 0), kinds as one code byte from the tables below;
 * a plain square (its kind and four print kinds, nothing else) is two
 * bytes. A kind's code is the position of its name in its table, so the
 * C enums may be reordered without changing any hash. */
static const char *const code_sq[] = { "none", "land", "start", "town", "bigcity",
	                               "waves", "landmark", "island", "half" };
static const char *const code_pr[] = { "none", "neutral", "road", "city" };
static const char *const code_side[] = { "N", "E", "S", "W" };
static const char *const code_feat[] = { "road", "city", "field", "monastery", "garden", "abbey" };
static const char *const code_good[] = { "", "wine", "grain", "cloth" }; /* cm_good_name: none is "" */
static const char *const code_ed[] = { "C1", "C2", "C3" };
#define NO_CODE 0xffu
#define N_GOODS 4

typedef struct {
	uint8_t sq[CM_SQ_KIND_COUNT], pr[4], side[4], feat[CM_FEAT_KIND_COUNT], good[N_GOODS],
		ed[CM_EDITION_COUNT];
	bool bad; /* a value without a code: the hash is refused (CM_EINVAL) */
	hasher h;
} hasher2;

static uint8_t code_of(const char *name, const char *const *tab, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(name, tab[i]) == 0)
			return (uint8_t)i;
	return NO_CODE;
}

#define CODES(dst, count, namefn, tab)                                                              \
	for (int k_ = 0; k_ < (count); k_++)                                                        \
		(dst)[k_] = code_of(namefn(k_), (tab), sizeof(tab) / sizeof(tab)[0])

static const char *sq_name(int k) { return cm_square_kind_name((cm_square_kind)k); }
static const char *pr_name(int k) { return cm_print_kind_name((cm_print_kind)k); }
static const char *side_name(int k) { return cm_side_name((cm_side)k); }
static const char *feat_name(int k) { return cm_feature_kind_name((cm_feature_kind)k); }
static const char *good_name(int k) { return cm_good_name((cm_good)k); }
static const char *ed_name(int k) { return cm_edition_name((cm_edition)k); }

static void h2_u(hasher *h, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	do {
		uint8_t c = (uint8_t)(v & 0x7f);
		v >>= 7;
		b[n++] = (uint8_t)(c | (v ? 0x80 : 0));
	} while (v);
	h_bytes(h, b, n);
}

static void h2_int(hasher *h, long long v)
{
	uint64_t u = (uint64_t)v << 1;
	h2_u(h, v < 0 ? ~u : u); /* zigzag: 0 1 -1 2 -2 … as 0 2 1 4 3 … */
}

static void h2_str(hasher *h, const char *s)
{
	if (!s) {
		h2_u(h, 0);
		return;
	}
	size_t n = strlen(s);
	h2_u(h, (uint64_t)n + 1);
	h_bytes(h, s, n);
}

/* One code byte: value v of a table of n codes. */
static void h2_code(hasher2 *h, const uint8_t *codes, size_t n, unsigned v)
{
	uint8_t c = v < n ? codes[v] : NO_CODE;
	if (c == NO_CODE)
		h->bad = true;
	h_bytes(&h->h, &c, 1);
}

static void h2_tile(hasher2 *h, const cm_tile_type *t)
{
	h2_int(&h->h, (long long)t->n_features);
	for (size_t i = 0; i < t->n_features; i++) {
		const cm_feature *f = &t->features[i];
		h2_code(h, h->feat, CM_FEAT_KIND_COUNT, (unsigned)f->kind);
		h2_str(&h->h, f->id);
		h2_int(&h->h, f->slots);
		h2_int(&h->h, f->arms);
		h2_int(&h->h, f->cathedral);
		h2_int(&h->h, f->inn);
		h2_code(h, h->good, N_GOODS, (unsigned)f->good);
		h2_int(&h->h, (long long)f->touches);
	}
	/* a tile with markers says so by a negative count, -(contacts + 1),
	 * and its markers follow the contacts: a tile without any hashes as
	 * it did before markers existed (schemas/pack.md) */
	if (t->n_markers)
		h2_int(&h->h, -(long long)t->n_contacts - 1);
	else
		h2_int(&h->h, (long long)t->n_contacts);
	for (size_t i = 0; i < t->n_contacts; i++)
		h2_int(&h->h, (long long)t->contacts[i]);
	if (t->n_markers) {
		h2_int(&h->h, (long long)t->n_markers);
		for (size_t i = 0; i < t->n_markers; i++)
			h2_str(&h->h, t->markers[i]);
	}
}

/* The codes of the enums' values. */
static void h2_codes(hasher2 *h)
{
	CODES(h->sq, CM_SQ_KIND_COUNT, sq_name, code_sq);
	CODES(h->pr, 4, pr_name, code_pr);
	CODES(h->side, 4, side_name, code_side);
	CODES(h->feat, CM_FEAT_KIND_COUNT, feat_name, code_feat);
	CODES(h->good, N_GOODS, good_name, code_good);
	CODES(h->ed, CM_EDITION_COUNT, ed_name, code_ed);
	h->bad = false;
}

/* Items 1 to 6: everything before the squares. */
static void h2_begin(hasher2 *h, const cm_map *m)
{
	h2_codes(h);
	hasher *b = &h->h;
	b->n = 0;
	b->flushes = 0;
	cm_sha256_init(&b->s);
	h2_str(b, "carcamap map content 2");
	h2_str(b, m->id);
	h2_str(b, m->name);
	h2_int(b, m->cols);
	h2_int(b, m->rows);
	h2_int(b, m->setup.starts_used);
	h2_int(b, m->setup.tiles_min);
	h2_int(b, m->setup.tiles_max);
	h2_int(b, m->setup.followers);
	for (size_t i = 0; i < cm_rule_option_count(); i++) { /* the table's map options, in order */
		const cm_rule_option *o = cm_rule_option_get(i);
		int v = cm_rules_get(&m->rules, i);
		if (!o->in_map)
			continue;
		if (o->kind == CM_RULE_EDITION)
			h2_code(h, h->ed, CM_EDITION_COUNT, (unsigned)v);
		else
			h2_int(b, v);
	}
	h2_int(b, (long long)m->n_islands);
	for (size_t i = 0; i < m->n_islands; i++) {
		h2_str(b, m->islands[i].name);
		h2_str(b, m->islands[i].title);
	}
	h2_int(b, (long long)m->n_bigcities);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *c = &m->bigcities[i];
		h2_str(b, c->name);
		h2_int(b, (long long)c->n_pieces);
		for (size_t k = 0; k < c->n_pieces; k++) {
			h2_int(b, c->pieces[k].x);
			h2_int(b, c->pieces[k].y);
			h2_tile(h, &c->pieces[k].tile);
		}
	}
	h2_int(b, (long long)m->n_ferries);
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		h2_str(b, f->name);
		h2_int(b, f->x1);
		h2_int(b, f->y1);
		h2_code(h, h->side, 4, (unsigned)f->s1);
		h2_int(b, f->x2);
		h2_int(b, f->y2);
		h2_code(h, h->side, 4, (unsigned)f->s2);
		h2_int(b, f->arms);
	}
	h2_int(b, (long long)m->n_deck);
	for (size_t i = 0; i < m->n_deck; i++) {
		h2_str(b, m->deck[i].tileset);
		h2_str(b, m->deck[i].tile);
		h2_int(b, m->deck[i].count);
	}
}

/* Item 7, one square (x: what it keeps beside the grid, or NULL): a plain
 * square is its kind code and a byte of print kind codes; any other the
 * kind code + 0x80, the print byte and the rest of the record. */
static void h2_square(hasher2 *h, const cm_square *s, const cm_square_extra *x)
{
	uint8_t b[2];
	b[0] = s->kind < CM_SQ_KIND_COUNT ? h->sq[s->kind] : NO_CODE;
	b[1] = 0;
	bool plain = !s->arms && s->island < 0 && s->bigcity < 0;
	for (int e = 0; e < 4; e++) {
		uint8_t c = s->print[e].kind < 4 ? h->pr[s->print[e].kind] : NO_CODE;
		if (c == NO_CODE)
			h->bad = true;
		b[1] = (uint8_t)(b[1] | (c & 3u) << (2 * e));
		plain = plain && !s->print[e].arms && !(x && x->label[e]);
	}
	if (b[0] == NO_CODE)
		h->bad = true;
	plain = plain && !(x && (x->name || x->n_markers));
	if (plain) {
		h_bytes(&h->h, b, 2);
		return;
	}
	b[0] = (uint8_t)(b[0] | 0x80);
	h_bytes(&h->h, b, 2);
	hasher *hb = &h->h;
	h2_str(hb, x ? x->name : NULL);
	h2_int(hb, s->arms);
	h2_int(hb, s->island);
	h2_int(hb, s->bigcity);
	h2_int(hb, x ? (long long)x->n_markers : 0);
	for (size_t k = 0; x && k < x->n_markers; k++)
		h2_str(hb, x->markers[k]);
	for (int e = 0; e < 4; e++) {
		h2_int(hb, s->print[e].arms);
		h2_str(hb, x ? x->label[e] : NULL);
	}
}

/* Item 7 for a square known to be plain (no row beside the grid): its
 * two bytes straight into the buffer. */
static inline void h2_plain(hasher2 *h, const cm_square *s)
{
	hasher *b = &h->h;
	if (b->n + 2 > sizeof b->buf) {
		cm_sha256_update(&b->s, b->buf, b->n);
		b->n = 0;
		b->flushes++;
	}
	b->buf[b->n++] = h->sq[s->kind];
	b->buf[b->n++] = (uint8_t)(h->pr[s->print[0].kind] | h->pr[s->print[1].kind] << 2 |
	                           h->pr[s->print[2].kind] << 4 | h->pr[s->print[3].kind] << 6);
}

/* Items 8 and 9, and the digest; CM_EINVAL when a value had no code. */
static int h2_end(hasher2 *h, const cm_map *m, cm_tileset *const *used, size_t n_used, uint8_t out[32])
{
	hasher *b = &h->h;
	h2_int(b, (long long)n_used);
	for (size_t i = 0; i < n_used; i++) {
		const cm_tileset *ts = used[i];
		h2_str(b, ts->id);
		h2_str(b, ts->name);
		h2_int(b, ts->base);
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			h2_int(b, ts->total[e]);
		h2_int(b, (long long)ts->n_tiles);
		for (size_t k = 0; k < ts->n_tiles; k++) {
			const cm_tile_type *t = &ts->tiles[k];
			h2_str(b, t->id);
			h2_str(b, t->name);
			for (int e = 0; e < CM_EDITION_COUNT; e++)
				h2_int(b, t->count[e]);
			h2_int(b, t->start);
			h2_tile(h, t);
		}
	}
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		h2_str(b, cm_about_get(&m->about, i));
	cm_sha256_update(&b->s, b->buf, b->n);
	cm_sha256_final(&b->s, out);
	return h->bad ? CM_EINVAL : 0;
}

/* Whether h's codes of square and print kinds are the enums' values (they
 * are): a plain square's two hash bytes are then its 2.0 GRID record. */
static bool h2_codes_are_grid(const hasher2 *h)
{
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++)
		if (h->sq[k] != k)
			return false;
	for (int k = 0; k < 4; k++)
		if (h->pr[k] != k)
			return false;
	return true;
}

/* Item 7 square by square. */
static int h2_squares(hasher2 *h, const cm_map *m)
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
			h2_square(h, s, cm_map_extra_find(m, (int)i));
		else if (!s->arms && s->island < 0 && s->bigcity < 0 && s->kind < CM_SQ_KIND_COUNT &&
		         (s->print[0].kind | s->print[1].kind | s->print[2].kind | s->print[3].kind) < 4 &&
		         !(s->print[0].arms | s->print[1].arms | s->print[2].arms | s->print[3].arms))
			h2_plain(h, s); /* the common case: what h2_square would give, without its tests */
		else
			h2_square(h, s, NULL);
	}
	free(has);
	return 0;
}

/* Item 7 from m's grid hint g: the runs of plain squares between the
 * hint's listed squares hashed from its GRID records in one piece, the
 * listed ones as h2_square does them (h2_codes_are_grid holds). */
static void h2_squares_hinted(hasher2 *h, const cm_map *m, const cm_export_grid_hint *g)
{
	size_t n = (size_t)m->cols * (size_t)m->rows, run = 0;
	for (size_t k = 0; k < g->n_sq; k++) {
		size_t i = g->sq[k];
		h_bytes(&h->h, g->grid + 2 * run, 2 * (i - run));
		h2_square(h, &m->squares[i], cm_map_extra_find(m, (int)i));
		run = i + 1;
	}
	h_bytes(&h->h, g->grid + 2 * run, 2 * (n - run));
}

/* The map's own part of hash version 2, items 1 to 7 (the costly one: a
 * million squares), from the map's cache (map_struct_int.h) or computed,
 * from the grid hint g when given, and stored there. */
static int h2_mid(const cm_map *m, const cm_export_grid_hint *g, cm__hash_mid *mid)
{
	if (cm__map_hash_mid_get(m, mid))
		return 0;
	hasher2 *h = malloc(sizeof *h);
	if (!h)
		return CM_ENOMEM;
	h2_begin(h, m);
	int rc = 0;
	if (g && h2_codes_are_grid(h))
		h2_squares_hinted(h, m, g);
	else
		rc = h2_squares(h, m);
	if (!rc) {
		/* the buffer into the digest's state: the state alone is the cache */
		cm_sha256_update(&h->h.s, h->h.buf, h->h.n);
		mid->s = h->h.s;
		mid->bad = h->bad;
		cm__map_hash_mid_put(m, mid);
	}
	free(h);
	return rc;
}

/* Hash version 2: the map's part (h2_mid), then items 8 and 9 (the tile
 * sets the deck uses, which are no part of the map, and the about fields)
 * on a copy of its state. */
static int hash_v2_with(const cm_map *m, cm_tileset *const *sets, size_t n_sets, const cm_export_grid_hint *g,
                        uint8_t out[32])
{
	if (!m->squares || m->cols < 1 || m->rows < 1)
		return CM_EINVAL;
	cm_tileset **used = NULL;
	size_t n_used = 0;
	cm__hash_mid mid;
	int rc = deck_sets(m, sets, n_sets, g != NULL, &used, &n_used);
	if (rc)
		return rc;
	hasher2 *h = malloc(sizeof *h);
	if (!h || (rc = h2_mid(m, g, &mid)) != 0) {
		free(h);
		free(used);
		return rc ? rc : CM_ENOMEM;
	}
	h2_codes(h);
	h->bad = mid.bad;
	h->h.s = mid.s;
	h->h.n = 0;
	h->h.flushes = 0;
	rc = h2_end(h, m, used, n_used, out);
	free(h);
	free(used);
	return rc;
}

static int hash_v2(const cm_map *m, cm_tileset *const *sets, size_t n_sets, uint8_t out[32])
{
	return hash_v2_with(m, sets, n_sets, NULL, out);
}

int cm_map_hash_version(const cm_map *m, cm_tileset *const *sets, size_t n_sets, int version, uint8_t out[32])
{
	switch (version) {
	case 1: return hash_v1(m, sets, n_sets, out);
	case 2: return hash_v2(m, sets, n_sets, out);
	default: return CM_EINVAL;
	}
}

int cm_map_hash(const cm_map *m, cm_tileset *const *sets, size_t n_sets, uint8_t out[32])
{
	return hash_v2(m, sets, n_sets, out);
}

/* ---- temporary files: the shared output writer's (cm_out_begin, then
 * cm_out_commit: synced and renamed over a regular file, copied into one
 * with hard links or to a stream; util_int.h) ---- */

/* Creates the temporary file the pack at path is built in. */
static int tmp_create(const char *path, cm_diags *d, char **tmp, int *fd)
{
	*fd = cm_out_begin(path, "pack", d, tmp);
	return *fd >= 0 ? 0 : errno == ENOMEM ? CM_ENOMEM : CM_EIO;
}

/* Puts tmp in place durably (cm_out_commit). fd is closed in every case. */
static int tmp_commit(const char *tmp, int fd, const char *path, cm_diags *d)
{
	return cm_out_commit(tmp, fd, path, "pack", d);
}

/* ---- writing ---- */

static const char *pack_sql(void)
{
	for (const cm_embedded_schema *s = cm_embedded_schemas; s->name; s++)
		if (strcmp(s->name, "pack.sql") == 0)
			return (const char *)s->data;
	return NULL;
}

enum {
	S_META, S_SET, S_TILE, S_FEAT, S_CONTACT, S_MAP, S_ISLAND, S_BIGCITY, S_SQUARE, S_MARKER,
	S_PRINT, S_PIECE, S_PFEAT, S_PCONTACT, S_FERRY, S_DECK, S_ABOUT, S_GRID, S_TMARKER, S_COUNT
};
static const char *const insert_sql[S_COUNT] = {
	"INSERT INTO pack_meta (key, value) VALUES (?,?)",
	"INSERT INTO tilesets (id, name, base, total_c1, total_c2, total_c3) VALUES (?,?,?,?,?,?)",
	"INSERT INTO tile_types (tileset_id, seq, id, name, count_c1, count_c2, count_c3, start)"
	" VALUES (?,?,?,?,?,?,?,?)",
	"INSERT INTO features (tileset_id, tile_seq, seq, kind, local_id, slots, arms, cathedral,"
	" inn, good, touches) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO contacts (tileset_id, tile_seq, seq, features) VALUES (?,?,?,?)",
	"INSERT INTO maps (id, name, cols, rows, starts_used, tiles_min, tiles_max, followers,"
	" edition, tiny_city, farmers, farmers_bigcity, town_extra_turn, town_cost,"
	" town_road_bonus, abbey_edge, image, legend, hash)"
	" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO islands (map_id, seq, name, title) VALUES (?,?,?,?)",
	"INSERT INTO bigcities (map_id, seq, name) VALUES (?,?,?)",
	"INSERT INTO squares (map_id, x, y, kind, name, arms, island, bigcity) VALUES (?,?,?,?,?,?,?,?)",
	"INSERT INTO square_markers (map_id, x, y, seq, text) VALUES (?,?,?,?,?)",
	"INSERT INTO edge_prints (map_id, x, y, side, kind, arms, label) VALUES (?,?,?,?,?,?,?)",
	"INSERT INTO bigcity_pieces (map_id, bigcity, seq, x, y) VALUES (?,?,?,?,?)",
	"INSERT INTO bigcity_features (map_id, bigcity, piece, seq, kind, local_id, slots, arms,"
	" cathedral, inn, good, touches) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO bigcity_contacts (map_id, bigcity, piece, seq, features) VALUES (?,?,?,?,?)",
	"INSERT INTO ferries (map_id, seq, name, x1, y1, side1, x2, y2, side2, arms)"
	" VALUES (?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO deck_entries (map_id, seq, tileset_id, tile_id, count) VALUES (?,?,?,?,?)",
	"INSERT INTO map_about (map_id, key, value) VALUES (?,?,?)",
	"INSERT INTO map_grids (map_id, kinds, prints) VALUES (?,?,?)",
	"INSERT INTO tile_markers (tileset_id, tile_seq, seq, text) VALUES (?,?,?,?)",
};

/* One value of a row. The C_ constructors below check each value's type at
 * compile time (a pointer where an integer belongs, or the reverse, is a
 * constraint violation), which a format string could not. */
typedef struct {
	enum { COL_TEXT, COL_COPY, COL_INT, COL_OPT, COL_HASH } k;
	sqlite3_int64 i;
	const char *s;
	const uint8_t *h;
} row_val;
/* Rows of one table are inserted BATCH at a time by one statement of
 * BATCH rows (one execution instead of BATCH: a statement's start and end
 * cost about as much as its row), in the order they came, and every batch
 * before a row of another table, so the file's bytes are those of one
 * insert per row. */
#define BATCH 16
#define MAX_COLS 19 /* the maps table's */
typedef struct {
	sqlite3 *db;
	cm_diags *d;
	const char *path;
	sqlite3_stmt *st[S_COUNT];
	sqlite3_stmt *batch[S_COUNT]; /* BATCH rows, prepared when first needed */
	int pend_which;               /* the table of the rows pending */
	size_t pend_n, pend_cols;
	row_val pend[BATCH * MAX_COLS];
} wr;

static int sql_fail(wr *w, const char *what)
{
	cm_diags_add(w->d, CM_SEV_ERROR, NULL, w->path, 0, 0, NULL, "cannot write pack: %s: %s", what,
	             sqlite3_errmsg(w->db));
	return CM_EIO;
}

#define C_TEXT(v) ((row_val){ .k = COL_TEXT, .s = (v) })  /* NULL binds NULL */
#define C_COPY(v) ((row_val){ .k = COL_COPY, .s = (v) })  /* text freed after the call */
#define C_INT(v) ((row_val){ .k = COL_INT, .i = (v) })
#define C_OPT(v) ((row_val){ .k = COL_OPT, .i = (v) }) /* NULL when negative */
#define C_I64(v) ((row_val){ .k = COL_INT, .i = (v) })
#define C_HASH(v) ((row_val){ .k = COL_HASH, .h = (v) })  /* 32 bytes */
#define ROW(w, which, ...) \
	ins((w), (which), (const row_val[]){ __VA_ARGS__ }, sizeof((const row_val[]){ __VA_ARGS__ }) / sizeof(row_val))

/* Binds n values from parameter first + 1 on. */
static int bind_vals(sqlite3_stmt *st, int first, const row_val *v, size_t n)
{
	int rc = SQLITE_OK;
	for (size_t j = 0; j < n && rc == SQLITE_OK; j++) {
		int i = first + (int)j + 1;
		switch (v[j].k) {
		case COL_TEXT:
			rc = v[j].s ? sqlite3_bind_text(st, i, v[j].s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
			break;
		case COL_COPY: /* SQLite keeps a copy */
			rc = sqlite3_bind_text(st, i, v[j].s, -1, SQLITE_TRANSIENT);
			break;
		case COL_INT: rc = sqlite3_bind_int64(st, i, v[j].i); break;
		case COL_OPT: rc = v[j].i < 0 ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, v[j].i); break;
		case COL_HASH: rc = sqlite3_bind_blob(st, i, v[j].h, 32, SQLITE_STATIC); break;
		default: rc = SQLITE_MISUSE; break;
		}
	}
	return rc;
}

/* Inserts one row now: n values bound in order to the statement's parameters. */
static int ins_now(wr *w, int which, const row_val *v, size_t n)
{
	sqlite3_stmt *st = w->st[which];
	assert(n == (size_t)sqlite3_bind_parameter_count(st));
	sqlite3_reset(st); /* every parameter is bound again below: no clearing */
	int rc = bind_vals(st, 0, v, n);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		return sql_fail(w, "insert");
	return 0;
}

/* "INSERT … VALUES (?,…)" of which with its row of parameters BATCH times. */
static sqlite3_stmt *batch_stmt(wr *w, int which)
{
	if (w->batch[which])
		return w->batch[which];
	const char *sql = insert_sql[which], *row = strstr(sql, "(?");
	if (!row)
		return NULL;
	size_t head = (size_t)(row - sql), len = strlen(row);
	char *b = malloc(head + BATCH * (len + 1) + 1);
	if (!b)
		return NULL;
	memcpy(b, sql, head);
	char *q = b + head;
	for (int k = 0; k < BATCH; k++) {
		if (k)
			*q++ = ',';
		memcpy(q, row, len);
		q += len;
	}
	*q = '\0';
	if (sqlite3_prepare_v2(w->db, b, -1, &w->batch[which], NULL) != SQLITE_OK)
		w->batch[which] = NULL;
	free(b);
	return w->batch[which];
}

/* Inserts the rows pending: a whole batch by one statement, fewer one by one. */
static int flush(wr *w)
{
	size_t n = w->pend_n, c = w->pend_cols;
	int rc = 0;
	w->pend_n = 0;
	if (n == BATCH) {
		sqlite3_stmt *st = batch_stmt(w, w->pend_which);
		if (!st)
			return sql_fail(w, "prepare");
		assert(BATCH * c == (size_t)sqlite3_bind_parameter_count(st));
		sqlite3_reset(st);
		int s = SQLITE_OK;
		for (size_t k = 0; k < n && s == SQLITE_OK; k++)
			s = bind_vals(st, (int)(k * c), w->pend + k * c, c);
		if (s == SQLITE_OK)
			s = sqlite3_step(st);
		return s == SQLITE_DONE ? 0 : sql_fail(w, "insert");
	}
	for (size_t k = 0; k < n && !rc; k++)
		rc = ins_now(w, w->pend_which, w->pend + k * c, c);
	return rc;
}

/* Inserts one row (n values for the statement's parameters, in order), in
 * a batch: the values' texts must live until flush (the model's and
 * static ones do); a row with a text to copy, and the grid row (whose texts
 * are freed after the call), go in at once. */
static int ins(wr *w, int which, const row_val *v, size_t n)
{
	bool now = which == S_GRID || n > MAX_COLS;
	for (size_t j = 0; j < n && !now; j++)
		now = v[j].k == COL_COPY;
	int rc = w->pend_n && (now || w->pend_which != which) ? flush(w) : 0;
	if (rc || now)
		return rc ? rc : ins_now(w, which, v, n);
	memcpy(w->pend + w->pend_n * n, v, n * sizeof *v);
	w->pend_which = which;
	w->pend_cols = n;
	return ++w->pend_n == BATCH ? flush(w) : 0;
}

static const char *good_or_null(cm_good g)
{
	return g == CM_GOOD_NONE ? NULL : cm_good_name(g);
}

/* Features and contacts of a tile type (key = tile set id, k1 = tile seq)
 * or of a big city piece (key = map id, k1 = big city, k2 = piece). */
static int put_tile(wr *w, const cm_tile_type *t, const char *key, int k1, int k2)
{
	int rc = 0;
	for (size_t i = 0; i < t->n_features && !rc; i++) {
		const cm_feature *f = &t->features[i];
		const char *kind = cm_feature_kind_name(f->kind);
		if (k2 < 0)
			rc = ROW(w, S_FEAT, C_TEXT(key), C_INT(k1), C_INT((int)i), C_TEXT(kind),
			         C_TEXT(f->id), C_INT((int)f->slots), C_INT((int)f->arms),
			         C_INT((int)f->cathedral), C_INT((int)f->inn),
			         C_TEXT(good_or_null(f->good)), C_I64((long long)f->touches));
		else
			rc = ROW(w, S_PFEAT, C_TEXT(key), C_INT(k1), C_INT(k2), C_INT((int)i),
			         C_TEXT(kind), C_TEXT(f->id), C_INT((int)f->slots),
			         C_INT((int)f->arms), C_INT((int)f->cathedral), C_INT((int)f->inn),
			         C_TEXT(good_or_null(f->good)), C_I64((long long)f->touches));
	}
	for (size_t i = 0; i < t->n_contacts && !rc; i++) {
		if (k2 < 0)
			rc = ROW(w, S_CONTACT, C_TEXT(key), C_INT(k1), C_INT((int)i),
			         C_I64((long long)t->contacts[i]));
		else
			rc = ROW(w, S_PCONTACT, C_TEXT(key), C_INT(k1), C_INT(k2), C_INT((int)i),
			         C_I64((long long)t->contacts[i]));
	}
	return rc;
}

static int put_tileset(wr *w, const cm_tileset *ts)
{
	int rc = ROW(w, S_SET, C_TEXT(ts->id), C_TEXT(ts->name), C_INT((int)ts->base),
	             C_OPT(ts->total[0]), C_OPT(ts->total[1]), C_OPT(ts->total[2]));
	for (size_t i = 0; i < ts->n_tiles && !rc; i++) {
		const cm_tile_type *t = &ts->tiles[i];
		rc = ROW(w, S_TILE, C_TEXT(ts->id), C_INT((int)i), C_TEXT(t->id), C_TEXT(t->name),
		         C_INT(t->count[0]), C_INT(t->count[1]), C_INT(t->count[2]),
		         C_INT((int)t->start));
		if (!rc)
			rc = put_tile(w, t, ts->id, (int)i, -1);
		for (size_t k = 0; k < t->n_markers && !rc; k++)
			rc = ROW(w, S_TMARKER, C_TEXT(ts->id), C_INT((int)i), C_INT((int)k), C_TEXT(t->markers[k]));
	}
	return rc;
}

/* The print kind characters of map_grids.prints, by cm_print_kind. */
static const char print_chars[] = "-nrc";

/* An edge print row holds what map_grids.prints cannot: arms, a label. */
static bool print_stored(const cm_edge_print *p, const char *label)
{
	return p->arms || label;
}

/* A square gets a row when it carries anything besides its kind and print
 * kinds (which map_grids holds for every square). */
static bool square_stored(const cm_square *s, const cm_square_extra *x)
{
	if ((x && x->name) || s->arms || s->island >= 0 || s->bigcity >= 0 || (x && x->n_markers))
		return true;
	for (int e = 0; e < 4; e++)
		if (print_stored(&s->print[e], x ? x->label[e] : NULL))
			return true;
	return false;
}

/* The map_grids row: one kind character per square and four print kind
 * characters per square, a newline per row, from the grid hint's GRID
 * records; the squares that need a squares row (square_stored, among the
 * hint's listed ones) into *stored, in square order. */
static int put_grid(wr *w, const cm_map *m, const cm_export_grid_hint *gh, size_t **stored, size_t *n_stored)
{
	size_t rows = (size_t)m->rows, cols = (size_t)m->cols, n = 0;
	const unsigned cpu = cm_cpu_features();
	char *g = malloc(rows * (cols + 1) + 1), *pr = malloc(rows * (4 * cols + 1) + 1);
	size_t *st = malloc((gh->n_sq + 1) * sizeof *st);
	if (!g || !pr || !st) {
		free(g);
		free(pr);
		free(st);
		return CM_ENOMEM;
	}
	char kch[256], pch[256][4];
	memset(kch, '?', sizeof kch);
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++)
		kch[k] = cm_square_kind_char((cm_square_kind)k);
	for (int v = 0; v < 256; v++)
		for (int e = 0; e < 4; e++)
			pch[v][e] = print_chars[(v >> (2 * e)) & 3];
	char *q = g, *t = pr;
	const uint8_t *r = gh->grid;
	for (size_t y = 0; y < rows; y++) {
		for (size_t x = 0; x < cols; x++, r += 2) {
			/* a run of squares without a print (when this one and the next
			 * have none): their kinds 16 at a time, a '.' each in the prints */
			size_t run = !r[1] && x + 1 < cols && !r[3] ?
			                     cm_bytes_pairs_run(r, cols - x, (const uint8_t *)kch, (uint8_t *)q, cpu) : 0;
			if (run) {
				memset(t, '.', run);
				q += run;
				t += run;
				x += run;
				r += 2 * run;
				if (x == cols)
					break;
			}
			*q++ = kch[r[0]];
			if (!r[1]) { /* dense: a square without a print is one '.' */
				*t++ = '.';
				continue;
			}
			memcpy(t, pch[r[1]], 4);
			t += 4;
		}
		*q++ = '\n';
		*t++ = '\n';
	}
	*q = '\0';
	*t = '\0';
	for (size_t k = 0; k < gh->n_sq; k++) {
		size_t i = gh->sq[k];
		if (square_stored(&m->squares[i], cm_map_extra_find(m, (int)i)))
			st[n++] = i;
	}
	/* bound without a copy, then unbound before the texts are freed */
	int rc = ROW(w, S_GRID, C_TEXT(m->id), C_TEXT(g), C_TEXT(pr));
	sqlite3_clear_bindings(w->st[S_GRID]);
	free(g);
	free(pr);
	if (rc)
		free(st);
	else {
		*stored = st;
		*n_stored = n;
	}
	return rc;
}

static int put_map(wr *w, const cm_map *m, const uint8_t hash[32], const cm_export_grid_hint *gh)
{
	const cm_rules *r = &m->rules;
	int rc = ROW(w, S_MAP, C_TEXT(m->id), C_TEXT(m->name), C_INT(m->cols), C_INT(m->rows),
	             C_INT(m->setup.starts_used), C_INT(m->setup.tiles_min),
	             C_INT(m->setup.tiles_max), C_INT(m->setup.followers),
	             C_TEXT(cm_edition_name(r->edition)), C_INT((int)r->tiny_city),
	             C_TEXT(r->farmers == CM_FARMERS_C1 ? "C1" : "C2"),
	             C_INT((int)r->farmers_bigcity), C_INT((int)r->town_extra_turn),
	             C_INT((int)r->town_cost), C_INT((int)r->town_road_bonus),
	             C_INT((int)r->abbey_edge), C_TEXT(m->image), C_TEXT(m->legend), C_HASH(hash));
	for (size_t i = 0; i < m->n_islands && !rc; i++)
		rc = ROW(w, S_ISLAND, C_TEXT(m->id), C_INT((int)i), C_TEXT(m->islands[i].name),
		         C_TEXT(m->islands[i].title));
	for (size_t i = 0; i < m->n_bigcities && !rc; i++)
		rc = ROW(w, S_BIGCITY, C_TEXT(m->id), C_INT((int)i), C_TEXT(m->bigcities[i].name));
	/* the squares rows: among the few the grid hint lists */
	size_t *stored = NULL, n_stored = 0;
	if (!rc)
		rc = put_grid(w, m, gh, &stored, &n_stored);
	for (size_t j = 0; j < n_stored && !rc; j++) {
			size_t i = stored[j];
			int x = (int)(i % (size_t)m->cols), y = (int)(i / (size_t)m->cols);
			const cm_square *s = &m->squares[i];
			const cm_square_extra *xs = cm_map_extra_find(m, (int)i);
			rc = ROW(w, S_SQUARE, C_TEXT(m->id), C_INT(x), C_INT(y),
			         C_TEXT(cm_square_kind_name(s->kind)), C_TEXT(xs ? xs->name : NULL),
			         C_INT((int)s->arms), C_OPT(s->island), C_OPT(s->bigcity));
			for (size_t k = 0; xs && k < xs->n_markers && !rc; k++)
				rc = ROW(w, S_MARKER, C_TEXT(m->id), C_INT(x), C_INT(y),
				         C_INT((int)k), C_TEXT(xs->markers[k]));
			for (int e = 0; e < 4 && !rc; e++) {
				const cm_edge_print *p = &s->print[e];
				const char *label = xs ? xs->label[e] : NULL;
				if (print_stored(p, label))
					rc = ROW(w, S_PRINT, C_TEXT(m->id), C_INT(x), C_INT(y),
					         C_TEXT(cm_side_name((cm_side)e)),
					         C_TEXT(cm_print_kind_name(p->kind)),
					         C_INT((int)p->arms), C_TEXT(label));
			}
	}
	free(stored);
	for (size_t i = 0; i < m->n_bigcities && !rc; i++)
		for (size_t k = 0; k < m->bigcities[i].n_pieces && !rc; k++) {
			const cm_bigcity_piece *pc = &m->bigcities[i].pieces[k];
			rc = ROW(w, S_PIECE, C_TEXT(m->id), C_INT((int)i), C_INT((int)k),
			         C_INT(pc->x), C_INT(pc->y));
			if (!rc)
				rc = put_tile(w, &pc->tile, m->id, (int)i, (int)k);
		}
	for (size_t i = 0; i < m->n_ferries && !rc; i++) {
		const cm_ferry *f = &m->ferries[i];
		rc = ROW(w, S_FERRY, C_TEXT(m->id), C_INT((int)i), C_TEXT(f->name), C_INT(f->x1),
		         C_INT(f->y1), C_TEXT(cm_side_name(f->s1)), C_INT(f->x2), C_INT(f->y2),
		         C_TEXT(cm_side_name(f->s2)), C_INT((int)f->arms));
	}
	for (size_t i = 0; i < m->n_deck && !rc; i++)
		rc = ROW(w, S_DECK, C_TEXT(m->id), C_INT((int)i), C_TEXT(m->deck[i].tileset),
		         C_TEXT(m->deck[i].tile), C_INT(m->deck[i].count));
	for (int i = 0; i < CM_ABOUT_FIELDS && !rc; i++)
		if (cm_about_get(&m->about, i))
			rc = ROW(w, S_ABOUT, C_TEXT(m->id), C_TEXT(cm_about_name(i)),
			         C_TEXT(cm_about_get(&m->about, i)));
	return rc;
}

/* A map and its grid hint, sorted together. */
typedef struct {
	const cm_map *m;
	cm_export_grid_hint h;
} hinted;

static int cmp_hinted(const void *a, const void *b)
{
	return strcmp(((const hinted *)a)->m->id, ((const hinted *)b)->m->id);
}


/* Every check cm_pack_write makes before touching the file system. */
static int check_inputs(const cm_map **maps, size_t n_maps, cm_tileset **sets, size_t n_sets, cm_diags *d)
{
	/* what every reader takes (load_ids): a pack of more would be written
	 * and then refused */
	if (n_maps > MAX_ITEMS || n_sets > MAX_ITEMS) {
		cm_diags_check(d, "CM0411", NULL, 0, 0, NULL, "a pack holds at most %d maps and %d tile sets, not %zu and %zu",
		               MAX_ITEMS, MAX_ITEMS, n_maps, n_sets);
		return CM_EINVAL;
	}
	/* the one model checker (model_check.c) for the tile sets, which are
	 * not immutable; every map has passed it when it was built (only a
	 * partial one, from a descriptor with errors, has not) */
	int model_bad = 0;
	for (size_t i = 0; i < n_sets; i++)
		model_bad |= -cm_tileset_check_model(sets[i], "CM0411", NULL, d);
	for (size_t i = 0; i < n_maps; i++)
		if (maps[i]->partial) {
			cm_diags_check(d, "CM0411", NULL, 0, 0, NULL, "map %.100s failed its checks: a partial map is not packed",
			               maps[i]->id ? maps[i]->id : "?");
			model_bad = 1;
		}
	if (model_bad)
		return CM_EINVAL;
	const char **ids = malloc((n_maps + n_sets + 1) * sizeof *ids);
	if (!ids)
		return CM_ENOMEM;
	for (size_t i = 0; i < n_maps; i++)
		ids[i] = maps[i]->id;
	const char *dup = duplicate_id(ids, n_maps);
	if (dup)
		cm_diags_check(d, "CM0410", NULL, 0, 0, NULL, "map id %.100s occurs twice", dup);
	for (size_t i = 0; i < n_sets; i++)
		ids[i] = sets[i]->id;
	const char *dup2 = duplicate_id(ids, n_sets);
	if (dup2)
		cm_diags_check(d, "CM0410", NULL, 0, 0, NULL, "tile set id %.100s occurs twice", dup2);
	free(ids);
	int bad = dup || dup2;
	/* the sets by id, and each one's tiles by id, for the deck entries:
	 * their lookups cost the ids, not the number of sets or tiles */
	cm_tileset **byid = malloc((n_sets + 1) * sizeof *byid);
	cm_idindex *tiles = calloc(n_sets + 1, sizeof *tiles);
	if (!byid || !tiles) {
		free(byid);
		free(tiles);
		return CM_ENOMEM;
	}
	if (n_sets)
		memcpy(byid, sets, n_sets * sizeof *byid);
	qsort(byid, n_sets, sizeof *byid, cmp_set);
	int oom = 0;
	for (size_t i = 0; i < n_sets && !oom; i++)
		for (size_t t = 0; t < byid[i]->n_tiles && !oom; t++)
			if (cm_idindex_find(&tiles[i], byid[i]->tiles[t].id) == CM_IDINDEX_NONE)
				oom = cm_idindex_add(&tiles[i], byid[i]->tiles[t].id);
	for (size_t i = 0; i < n_maps && !oom; i++)
		for (size_t k = 0; k < maps[i]->n_deck; k++) {
			const cm_deck_entry *e = &maps[i]->deck[k];
			/* the first set of the id, as find_set gives (a duplicate is CM0410) */
			const cm_tileset *ts = dup2 ? find_set(sets, n_sets, e->tileset)
			                            : find_sorted_set(byid, n_sets, e->tileset);
			char where[256];
			snprintf(where, sizeof where, "map %.100s, deck entry %zu", maps[i]->id, k);
			if (!ts) {
				cm_diags_check(d, "CM0409", NULL, 0, 0, where, "tile set %.100s is not in the pack",
				               e->tileset);
				bad = 1;
				continue;
			}
			bool found = !e->tile;
			if (!found && dup2) {
				for (size_t t = 0; t < ts->n_tiles && !found; t++)
					found = strcmp(ts->tiles[t].id, e->tile) == 0;
			} else if (!found) {
				cm_tileset *const *at = bsearch(&ts, byid, n_sets, sizeof *byid, cmp_set);
				found = at && cm_idindex_find(&tiles[at - byid], e->tile) != CM_IDINDEX_NONE;
			}
			if (!found) {
				cm_diags_check(d, "CM0409", NULL, 0, 0, where, "tile set %.100s has no tile %.100s",
				               e->tileset, e->tile);
				bad = 1;
			}
		}
	for (size_t i = 0; i < n_sets; i++)
		cm_idindex_free(&tiles[i]);
	free(tiles);
	free(byid);
	if (oom)
		return CM_ENOMEM;
	return bad ? CM_EINVAL : 0;
}

/* Stores the client binary encoding of a map (export-bin.md), in the same
 * transaction as its model, so a pack never holds one without the other. */
static int put_binary(wr *w, const cm_map *m, cm_tileset *const *sets, size_t n_sets, const cm_export_grid_hint *gh)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	int rc = cm_export_bin_hinted(m, sets, n_sets, gh, &buf, &len); /* check_inputs checked m */
	if (rc) {
		cm_diags_add(w->d, CM_SEV_ERROR, NULL, w->path, 0, 0, NULL,
		             "map %s: cannot encode the client binary: %s", m->id, cm_strerror(rc));
		return rc == CM_ENOMEM ? rc : CM_EINVAL;
	}
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(w->db, "INSERT INTO map_binary (map_id, format_version, data) VALUES (?, ?, ?)",
	                       -1, &st, NULL) != SQLITE_OK) {
		free(buf);
		return sql_fail(w, "prepare");
	}
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, CM_EXPORT_BIN_MAJOR);
	sqlite3_bind_blob(st, 3, len ? (const void *)buf : "", (int)len, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_fail(w, "store binary");
	sqlite3_finalize(st);
	free(buf);
	return rc;
}

int cm_pack_write(const char *path, const cm_map *const *maps_in, size_t n_maps,
                  cm_tileset *const *sets_in, size_t n_sets, cm_diags *d)
{
	int rc = 0, fd = -1;
	char *tmp = NULL;
	wr w = { .db = NULL, .d = d, .path = path };
	uint8_t *hashes = NULL;
	cm_export_grid_hint *hints = NULL;
	hinted *hm = malloc((n_maps + 1) * sizeof *hm);
	const cm_map **maps = malloc((n_maps + 1) * sizeof *maps);
	cm_tileset **sets = malloc((n_sets + 1) * sizeof *sets);
	hashes = malloc(32 * (n_maps + 1));
	hints = calloc(n_maps + 1, sizeof *hints);
	if (!hm || !maps || !sets || !hashes || !hints) {
		rc = CM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n_maps; i++)
		maps[i] = maps_in[i];
	if (n_sets)
		memcpy(sets, sets_in, n_sets * sizeof *sets);
	if ((rc = check_inputs(maps, n_maps, sets, n_sets, d)) != 0)
		goto out;
	/* One pass over each map's squares (the grid hint), shared by the
	 * hash, the grid texts and the client binary */
	for (size_t i = 0; i < n_maps; i++) {
		hm[i].m = maps_in[i];
		memset(&hm[i].h, 0, sizeof hm[i].h);
		if ((rc = cm_export_grid_hint_build(hm[i].m, &hm[i].h, NULL)) != 0) {
			for (size_t k = 0; k < i; k++)
				cm_export_grid_hint_free(&hm[k].h);
			goto out;
		}
	}
	/* sorted insertion makes the file bytes depend on the content only */
	qsort(hm, n_maps, sizeof *hm, cmp_hinted);
	for (size_t i = 0; i < n_maps; i++) {
		maps[i] = hm[i].m;
		hints[i] = hm[i].h;
	}
	qsort(sets, n_sets, sizeof *sets, cmp_set);
	for (size_t i = 0; i < n_maps; i++)
		if ((rc = hash_v2_with(maps[i], sets, n_sets, &hints[i], hashes + 32 * i)) != 0)
			goto out;
	const char *schema = pack_sql();
	if (!schema) {
		rc = CM_EINTERNAL;
		goto out;
	}
	if ((rc = tmp_create(path, d, &tmp, &fd)) != 0)
		goto out;
	if (sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = w.db ? sql_fail(&w, "open") : CM_ENOMEM;
		goto out;
	}
	/* No journal: on failure the whole temporary file is thrown away, and
	 * the pack is renamed into place only once complete. Foreign keys are
	 * not enforced row by row while writing (a parent lookup per square
	 * row): check_inputs has checked every reference, and every reader
	 * runs foreign_key_check on opening (cm_pack_open). A 64 MB page cache
	 * keeps a large map's b-trees in memory until the commit. */
	if (sqlite3_exec(w.db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA foreign_keys=OFF;"
	                       " PRAGMA cache_size=-65536; BEGIN;", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(w.db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		rc = sql_fail(&w, "create tables");
		goto out;
	}
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v2(w.db, insert_sql[i], -1, &w.st[i], NULL) != SQLITE_OK) {
			rc = sql_fail(&w, "prepare");
			goto out;
		}
	rc = ROW(&w, S_META, C_TEXT("format"), C_TEXT("carcamap-pack"));
	if (!rc)
		rc = ROW(&w, S_META, C_TEXT("generator"), C_TEXT("carcamap " CM_VERSION_STRING));
	for (size_t i = 0; i < n_sets && !rc; i++)
		rc = put_tileset(&w, sets[i]);
	for (size_t i = 0; i < n_maps && !rc; i++)
		rc = put_map(&w, maps[i], hashes + 32 * i, &hints[i]);
	if (!rc)
		rc = flush(&w); /* before map_binary's rows */
	for (size_t i = 0; i < n_maps && !rc; i++) {
		/* the map's own sets: its deck's lookups cost its sets, not the pack's */
		cm_tileset **used = NULL;
		size_t n_used = 0;
		rc = deck_sets(maps[i], sets, n_sets, true, &used, &n_used);
		if (!rc)
			rc = put_binary(&w, maps[i], used, n_used, &hints[i]);
		free(used);
	}
	if (rc)
		goto out;
	if (sqlite3_exec(w.db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		rc = sql_fail(&w, "commit");
		goto out;
	}
	for (int i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(w.st[i]);
		sqlite3_finalize(w.batch[i]);
		w.st[i] = NULL;
		w.batch[i] = NULL;
	}
	if (sqlite3_close(w.db) != SQLITE_OK) {
		rc = sql_fail(&w, "close");
		goto out;
	}
	w.db = NULL;
	rc = tmp_commit(tmp, fd, path, d);
	fd = -1;
out:
	for (int i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(w.st[i]);
		sqlite3_finalize(w.batch[i]);
	}
	sqlite3_close(w.db);
	if (fd >= 0)
		close(fd);
	if (rc && tmp)
		unlink(tmp);
	free(tmp);
	free(hashes);
	for (size_t i = 0; hints && i < n_maps; i++)
		cm_export_grid_hint_free(&hints[i]);
	free(hints);
	free(hm);
	free(maps);
	free(sets);
	return rc;
}

/* ---- opening ---- */

static void pack_free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

void cm_pack_close(cm_pack *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_stmts; i++) {
		sqlite3_finalize(p->stmts[i].st);
		free(p->stmts[i].sql);
	}
	sqlite3_close(p->db);
	pack_free_ids(p->maps, p->n_maps);
	for (size_t i = 0; p->vsets && i < p->n_sets; i++)
		cm_tileset_free(p->vsets[i]);
	free(p->vsets);
	free(p->vstamp);
	pack_free_ids(p->sets, p->n_sets);
	free(p->path);
	free(p);
}

/* A failure SQLite reports while reading: damage shows as CORRUPT or
 * NOTADB and is CM0404; a pack locked by another writer (BUSY, LOCKED) is
 * a transient I/O failure, not bad input (CM_EIO, no check id); anything
 * else is reported as it is. */
static int db_fail(cm_diags *d, sqlite3 *db, const char *path, const char *what)
{
	int e = sqlite3_extended_errcode(db) & 0xff;
	if (e == SQLITE_NOMEM)
		return CM_ENOMEM;
	if (e == SQLITE_BUSY || e == SQLITE_LOCKED) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL,
		             "%s: the pack is locked by another program writing it (%s); try again when it"
		             " has finished",
		             what, sqlite3_errmsg(db));
		return CM_EIO;
	}
	cm_diags_check(d, "CM0404", path, 0, 0, NULL, "%s: %s", what, sqlite3_errmsg(db));
	return CM_EFORMAT;
}

static int pragma_int(cm_diags *d, sqlite3 *db, const char *path, const char *sql, long long *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return 0;
	}
	rc = db_fail(d, db, path, "cannot read the pack");
	sqlite3_finalize(st);
	return rc;
}

/* Runs a query whose rows may report problems: report(d, path, row)
 * returns 1 when the row was a problem. Returns CM_EFORMAT when any was. */
static int report_rows(cm_diags *d, sqlite3 *db, const char *path, const char *sql,
                       int (*report)(cm_diags *, const char *, sqlite3_stmt *))
{
	sqlite3_stmt *st = NULL;
	int n = 0, rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(d, db, path, "cannot check the pack");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		n += report(d, path, st);
	rc = rc == SQLITE_DONE ? (n ? CM_EFORMAT : 0) : db_fail(d, db, path, "cannot check the pack");
	sqlite3_finalize(st);
	return rc;
}

static int quick_check_row(cm_diags *d, const char *path, sqlite3_stmt *st)
{
	const char *msg = (const char *)sqlite3_column_text(st, 0);
	if (msg && strcmp(msg, "ok") == 0)
		return 0;
	/* one line per diagnostic: drop SQLite's "*** in database main ***" heading */
	char line[256];
	const char *head = "*** in database main ***\n";
	if (msg && strncmp(msg, head, strlen(head)) == 0)
		msg += strlen(head);
	snprintf(line, sizeof line, "%s", msg ? msg : "?");
	for (char *c = line; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	cm_diags_check(d, "CM0404", path, 0, 0, NULL, "quick_check: %s", line);
	return 1;
}

static int foreign_key_row(cm_diags *d, const char *path, sqlite3_stmt *st)
{
	cm_diags_check(d, "CM0407", path, 0, 0, NULL,
	               "row %lld of table %.64s refers to a missing row of %.64s",
	               sqlite3_column_int64(st, 1), (const char *)sqlite3_column_text(st, 0),
	               (const char *)sqlite3_column_text(st, 2));
	return 1;
}

static int code_row(cm_diags *d, const char *path, sqlite3_stmt *st)
{
	cm_diags_check(d, "CM0406", path, 0, 0, NULL, "pack contains %s %.64s",
	               (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
	return 1;
}

/* One table's shape: "STRICT;name TYPE notnull pk;…", comparable as text. */
static char *table_shape(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st = NULL;
	char *s = NULL;
	size_t len = 0, cap = 0;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT strict FROM pragma_table_list(?1)), name, type,"
	                           " \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid",
	                       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *row = cm_asprintf("%s%.64s %.32s %d %d;", len ? "" : (sqlite3_column_int(st, 0) ? "STRICT;" : "plain;"),
		                        (const char *)sqlite3_column_text(st, 1),
		                        (const char *)sqlite3_column_text(st, 2), sqlite3_column_int(st, 3),
		                        sqlite3_column_int(st, 4));
		size_t n = row ? strlen(row) : 0;
		if (!row || cm_grow((void **)&s, &cap, len + n, 1) != 0) {
			free(row);
			rc = SQLITE_NOMEM;
			break;
		}
		memcpy(s + len, row, n + 1);
		len += n;
		free(row);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(s);
		return NULL;
	}
	return s ? s : cm_strdup("");
}

/* Tables a pack of format version ver may lack: map_about, which format 1
 * gained later, tile_markers, which format 4 gained later, and map_grids,
 * new in format 2. */
static bool table_optional(const char *t, long long ver)
{
	return strcmp(t, "map_about") == 0 || strcmp(t, "tile_markers") == 0 ||
	       (ver < 2 && strcmp(t, "map_grids") == 0);
}

/* Whether every table of schema (pack.sql) is in db created by the very
 * statement pack.sql has for it (sqlite_schema keeps that text as it was
 * run, comments and all): the pack's shape is then the reference's
 * without building it, as with every pack this carcamap writes. Anything
 * else, an older pack too, gets check_tables' comparison column by
 * column. */
static bool tables_as_written(sqlite3 *db, const char *schema)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", -1, &st,
	                       NULL) != SQLITE_OK)
		return false;
	bool same = true;
	static const char head[] = "CREATE TABLE ", tail[] = "\n) STRICT;";
	for (const char *c = strstr(schema, head); same && c; c = strstr(c, head)) {
		const char *name = c + sizeof head - 1, *sp = strchr(name, ' ');
		const char *e = strstr(c, tail);
		if ((c != schema && c[-1] != '\n') || !sp || !e) { /* not a statement of the usual form */
			same = false;
			break;
		}
		size_t len = (size_t)(e - c) + sizeof tail - 2; /* up to STRICT, without the ';' */
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, name, (int)(sp - name), SQLITE_STATIC);
		same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
		       (size_t)sqlite3_column_bytes(st, 0) == len && memcmp(sqlite3_column_text(st, 0), c, len) == 0;
		c = e;
	}
	sqlite3_finalize(st);
	return same;
}

/* Every table of schemas/pack.sql must exist in the pack with the same
 * columns (name, type, not null, primary key) and be STRICT; an optional
 * one may be missing. */
static int check_tables(cm_diags *d, sqlite3 *db, const char *path, long long ver)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *st = NULL;
	int rc = 0, bad = 0;
	const char *schema = pack_sql();
	if (!schema)
		return CM_EINTERNAL;
	if (tables_as_written(db, schema))
		return 0;
	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) !=
	        SQLITE_OK ||
	    sqlite3_exec(ref, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
	                       -1, &st, NULL) != SQLITE_OK) {
		rc = CM_EINTERNAL;
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		char *want = table_shape(ref, t), *got = table_shape(db, t);
		if (!want) {
			rc = CM_EINTERNAL;
		} else if (!got) {
			rc = db_fail(d, db, path, "cannot read the schema");
		} else if (!*got && table_optional(t, ver)) {
			/* an older pack: read as holding no such rows */
		} else if (!*got) {
			cm_diags_check(d, "CM0405", path, 0, 0, NULL, "table %s is missing", t);
			bad = 1;
		} else if (strcmp(want, got) != 0) {
			cm_diags_check(d, "CM0405", path, 0, 0, NULL,
			               "table %s has other columns than format version %d defines", t,
			               CM_PACK_VERSION);
			bad = 1;
		}
		free(want);
		free(got);
		if (rc < 0)
			goto out;
	}
	rc = rc == SQLITE_DONE ? (bad ? CM_EFORMAT : 0) : CM_EINTERNAL;
out:
	sqlite3_finalize(st);
	sqlite3_close(ref);
	return rc;
}

/* Loads "SELECT id FROM <table>" into a sorted array of checked ids. */
static int load_ids(cm_diags *d, sqlite3 *db, const char *path, const char *table, char ***out,
                    size_t *n_out)
{
	sqlite3_stmt *st = NULL;
	char **ids = NULL, *sql = cm_asprintf("SELECT id FROM %s", table);
	size_t n = 0, cap = 0;
	int rc = 0;
	if (!sql)
		return CM_ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = db_fail(d, db, path, "cannot list the pack");
		goto out;
	}
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		int bytes = sqlite3_column_bytes(st, 0);
		const char *t = (const char *)sqlite3_column_text(st, 0);
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT || !t || bytes < 1 || bytes > MAX_TEXT ||
		    memchr(t, 0, (size_t)bytes)) {
			cm_diags_check(d, "CM0407", path, 0, 0, NULL, "an id in table %s is not a short text",
			               table);
			rc = CM_EFORMAT;
			goto out;
		}
		if (!cm_id_valid(t) || (size_t)bytes != strlen(t)) {
			/* ids name output files (compile, render): never ../x */
			cm_diags_check(d, "CM0407", path, 0, 0, NULL,
			               "an id in table %s is not an id (1 to %d of a-z, 0-9 and '-', "
			               "not starting with '-')",
			               table, CM_ID_MAX);
			rc = CM_EFORMAT;
			goto out;
		}
		if (n >= MAX_ITEMS) {
			cm_diags_check(d, "CM0407", path, 0, 0, NULL, "table %s has more than %d rows", table,
			               MAX_ITEMS);
			rc = CM_EFORMAT;
			goto out;
		}
		if (cm_grow((void **)&ids, &cap, n, sizeof *ids) != 0 ||
		    !(ids[n] = cm_strndup(t, (size_t)bytes))) {
			rc = CM_ENOMEM;
			goto out;
		}
		n++;
	}
	if (s != SQLITE_DONE) {
		rc = db_fail(d, db, path, "cannot list the pack");
		goto out;
	}
	if (n)
		qsort(ids, n, sizeof *ids, cmp_str);
	*out = ids;
	*n_out = n;
	ids = NULL;
out:
	if (ids)
		pack_free_ids(ids, n);
	sqlite3_finalize(st);
	free(sql);
	return rc;
}

/* Whether the first bytes are the SQLite header. A file that cannot be read
 * is reported as such (no rule). */
static int sniff(const char *path, cm_diags *d)
{
	FILE *f;
	if (cm_open_read(path, d, &f))
		return CM_EIO;
	char head[100];
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	if (n < 16 || memcmp(head, "SQLite format 3", 16) != 0) {
		cm_diags_check(d, "CM0401", path, 0, 0, NULL, "not a carcamap pack: not an SQLite database");
		return CM_EFORMAT;
	}
	/* SQLite reads a short header as zeros and would call it another
	 * application's database */
	if (n < sizeof head) {
		cm_diags_check(d, "CM0404", path, 0, 0, NULL,
		               "file ends within the 100-byte SQLite header (%zu bytes)", n);
		return CM_EFORMAT;
	}
	/* Bytes 18 and 19 are 2 in WAL mode: SQLite would then create -wal and
	 * -shm files beside the pack, even on a read-only open, and leave them
	 * there. carcamap writes packs in rollback mode (1); refuse others. */
	if (head[18] == 2 && head[19] == 2) {
		cm_diags_check(d, "CM0412", path, 0, 0, NULL,
		               "pack is in WAL journal mode: a pack is a single file in rollback journal mode "
		               "(sqlite3 PACK 'PRAGMA journal_mode=DELETE' converts it)");
		return CM_EFORMAT;
	}
	if (head[18] != 1 || head[19] != 1) {
		cm_diags_check(d, "CM0404", path, 0, 0, NULL, "invalid SQLite file format bytes %d/%d in the header",
		               head[18], head[19]);
		return CM_EFORMAT;
	}
	return 0;
}

int cm_pack_open(const char *path, cm_diags *d, cm_pack **out)
{
	*out = NULL;
	int rc = sniff(path, d);
	if (rc)
		return rc;
	cm_pack *p = calloc(1, sizeof *p);
	if (!p || !(p->path = cm_strdup(path))) {
		free(p);
		return CM_ENOMEM;
	}
	if (sqlite3_open_v2(path, &p->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		if (!p->db)
			rc = CM_ENOMEM;
		else {
			cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot open: %s",
			             sqlite3_errmsg(p->db));
			rc = CM_EIO;
		}
		goto out;
	}
	/* The file is hostile: no schema-defined code runs with trust, no
	 * extensions, writes to the schema are refused, cells are checked. */
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_limit(p->db, SQLITE_LIMIT_LENGTH, MAX_BLOB);
	sqlite3_limit(p->db, SQLITE_LIMIT_ATTACHED, 0);
	/* A page cache of up to 32 MB: quick_check reads every page once, and
	 * the maps' rows are read from the cache after it, not from the file a
	 * second time (SQLite's default of 2 MB holds a third of a 1000x1000
	 * map's pack). The shared lock, once taken, is held until the pack is
	 * closed (locking_mode EXCLUSIVE: a reader's shared lock; packs are
	 * replaced by renaming, never written in place): reading each of many
	 * small maps does not lock, check for a journal and reread the header
	 * again, statement by statement. */
	if (sqlite3_exec(p->db, "PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON;"
	                        " PRAGMA query_only=ON; PRAGMA mmap_size=0; PRAGMA cache_size=-32768;"
	                        " PRAGMA locking_mode=EXCLUSIVE", NULL, NULL,
	                 NULL) != SQLITE_OK) {
		rc = db_fail(d, p->db, path, "cannot read the pack");
		goto out;
	}
	long long app, ver;
	if ((rc = pragma_int(d, p->db, path, "PRAGMA application_id", &app)) != 0 ||
	    (rc = pragma_int(d, p->db, path, "PRAGMA user_version", &ver)) != 0)
		goto out;
	if ((uint32_t)app != CM_PACK_APPLICATION_ID) {
		cm_diags_check(d, "CM0402", path, 0, 0, NULL, "not a carcamap pack (application id 0x%08x)",
		               (unsigned)(uint32_t)app);
		rc = CM_EFORMAT;
		goto out;
	}
	if (ver > CM_PACK_VERSION) {
		cm_diags_check(d, "CM0403", path, 0, 0, NULL,
		               "pack format version %lld is newer than this carcamap reads (max %d)", ver,
		               CM_PACK_VERSION);
		rc = CM_EVERSION;
		goto out;
	}
	if (ver < 1) {
		cm_diags_check(d, "CM0405", path, 0, 0, NULL, "pack format version %lld does not exist", ver);
		rc = CM_EFORMAT;
		goto out;
	}
	p->version = (int)ver;
	if ((rc = report_rows(d, p->db, path, "PRAGMA quick_check(5)", quick_check_row)) != 0 ||
	    (rc = report_rows(d, p->db, path, "SELECT type, name FROM sqlite_schema WHERE type IN"
	                                      " ('trigger', 'view') ORDER BY type, name", code_row)) != 0 ||
	    (rc = check_tables(d, p->db, path, ver)) != 0 ||
	    (rc = report_rows(d, p->db, path, "SELECT \"table\", rowid, parent FROM"
	                                      " pragma_foreign_key_check LIMIT 5", foreign_key_row)) != 0 ||
	    (rc = load_ids(d, p->db, path, "maps", &p->maps, &p->n_maps)) != 0 ||
	    (rc = load_ids(d, p->db, path, "tilesets", &p->sets, &p->n_sets)) != 0)
		goto out;
	*out = p;
	p = NULL;
out:
	cm_pack_close(p);
	return rc;
}

size_t cm_pack_map_count(const cm_pack *p)
{
	return p ? p->n_maps : 0;
}

const char *cm_pack_map_id(const cm_pack *p, size_t i)
{
	return p && i < p->n_maps ? p->maps[i] : NULL;
}

size_t cm_pack_tileset_count(const cm_pack *p)
{
	return p ? p->n_sets : 0;
}

const char *cm_pack_tileset_id(const cm_pack *p, size_t i)
{
	return p && i < p->n_sets ? p->sets[i] : NULL;
}

/* ---- reading: every value is hostile until checked ---- */

typedef struct {
	cm_pack *p;
	cm_diags *d;
	int rc;            /* first failure: CM_EINVAL, CM_EFORMAT or CM_ENOMEM */
	const char *where; /* place of the row being read; NULL: square sq_x,sq_y of sq_map, */
	const char *sq_map;
	int sq_x, sq_y;
	const char *it_base, *it_what; /* or (no sq_map) item it_i of it_base: "map x, ferry 3" */
	size_t it_i;
	hasher2 *h; /* reading a map of format 3 to verify it: hashed on the way (items 1 to 7) */
	/* reading a map to verify it (format 2 and later): its 2.0 GRID
	 * records and the squares with rows, for check_binary; grid NULL when
	 * not wanted or not built */
	uint8_t *grid;
	size_t *rows, n_rows, cap_rows;
	bool want_grid;
	/* formats 2 and later: the map_grids row, stepped before the model is
	 * made (its kinds, decoded into kinds, are the new squares' kinds) */
	sqlite3_stmt *gst;
	uint8_t *kinds, *prints; /* per square: kind, and the 2.0 print byte N + 4E + 16S + 64W */
	/* reading a map: its builder, and the builder's grid written directly
	 * (a million squares; every value checked against its range first) */
	cm_map_builder *b;
	cm_square *sq;
} rd;

/* The row being read is item i (island, big city, ferry, deck entry) of
 * base: its place is formatted only if a diagnostic needs it. */
static void rd_item(rd *r, const char *base, const char *what, size_t i)
{
	r->where = NULL;
	r->sq_map = NULL;
	r->it_base = base;
	r->it_what = what;
	r->it_i = i;
}

static void rd_bad(rd *r, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void rd_bad(rd *r, const char *fmt, ...)
{
	/* a square's place is formatted only when something is wrong with it:
	 * no string is formatted per row read */
	char w[600];
	const char *at = r->where;
	if (!at && r->sq_map) {
		snprintf(w, sizeof w, "%s, square (%d,%d)", r->sq_map, r->sq_x, r->sq_y);
		at = w;
	} else if (!at && r->it_what) {
		snprintf(w, sizeof w, "%s, %s %zu", r->it_base ? r->it_base : "?", r->it_what, r->it_i);
		at = w;
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_diags_check(r->d, "CM0407", r->p->path, 0, 0, at, "%s", msg ? msg : "invalid value");
	free(msg);
	if (!r->rc)
		r->rc = CM_EINVAL;
}

static void rd_nomem(rd *r)
{
	r->rc = CM_ENOMEM;
}

static sqlite3_stmt *rd_prepare(rd *r, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (pack_stmt(r->p, sql, &st) != SQLITE_OK) {
		int e = db_fail(r->d, r->p->db, r->p->path, "cannot read the pack");
		if (!r->rc || e == CM_ENOMEM)
			r->rc = e;
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

/* Steps st: true on a row; false when done or on failure (then r->rc is set). */
static bool rd_step(rd *r, sqlite3_stmt *st)
{
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		return true;
	if (s != SQLITE_DONE) {
		int e = db_fail(r->d, r->p->db, r->p->path, "cannot read the pack");
		if (!r->rc || e == CM_ENOMEM)
			r->rc = e;
	}
	return false;
}

/* Binds "t…i…" parameters from index 1 and resets the statement. */
static void rd_bind(sqlite3_stmt *st, const char *key, int k1, int k2)
{
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (k1 >= 0)
		sqlite3_bind_int(st, 2, k1);
	if (k2 >= 0)
		sqlite3_bind_int(st, 3, k2);
}

static bool col_int(rd *r, sqlite3_stmt *st, int c, const char *what, long long lo, long long hi,
                    long long *out)
{
	if (sqlite3_column_type(st, c) != SQLITE_INTEGER) {
		rd_bad(r, "%s is not an integer", what);
		return false;
	}
	long long v = sqlite3_column_int64(st, c);
	if (v < lo || v > hi) {
		rd_bad(r, "%s is %lld, outside %lld..%lld", what, v, lo, hi);
		return false;
	}
	*out = v;
	return true;
}

/* An integer that may be NULL (read as -1). */
static bool col_opt_int(rd *r, sqlite3_stmt *st, int c, const char *what, long long hi, long long *out)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL) {
		*out = -1;
		return true;
	}
	return col_int(r, st, c, what, 0, hi, out);
}

static bool col_bool(rd *r, sqlite3_stmt *st, int c, const char *what, bool *out)
{
	long long v;
	if (!col_int(r, st, c, what, 0, 1, &v))
		return false;
	*out = v != 0;
	return true;
}

/* A text of at most MAX_TEXT bytes without NUL bytes, copied into *out;
 * NULL allowed when nullable. */
static bool col_text(rd *r, sqlite3_stmt *st, int c, const char *what, bool nullable, char **out)
{
	*out = NULL;
	int type = sqlite3_column_type(st, c);
	if (type == SQLITE_NULL && nullable)
		return true;
	if (type != SQLITE_TEXT) {
		rd_bad(r, "%s is not a text", what);
		return false;
	}
	const char *t = (const char *)sqlite3_column_text(st, c);
	int n = sqlite3_column_bytes(st, c);
	if (!t) {
		rd_nomem(r);
		return false;
	}
	if (n > MAX_TEXT || memchr(t, 0, (size_t)n)) {
		rd_bad(r, "%s is longer than %d bytes or holds a NUL byte", what, MAX_TEXT);
		return false;
	}
	const char *why = cm_text_problem(t);
	if (why) {
		rd_bad(r, "%s holds %s", what, why);
		return false;
	}
	if (!(*out = cm_strndup(t, (size_t)n))) {
		rd_nomem(r);
		return false;
	}
	return true;
}

/* A name from a fixed list: name(i) for i in lo..hi-1. */
static bool col_name(rd *r, sqlite3_stmt *st, int c, const char *what, const char *(*name)(int),
                     int lo, int hi, int *out)
{
	if (sqlite3_column_type(st, c) != SQLITE_TEXT) {
		rd_bad(r, "%s is not a text", what);
		return false;
	}
	const char *t = (const char *)sqlite3_column_text(st, c);
	int n = sqlite3_column_bytes(st, c);
	for (int i = lo; t && i < hi; i++)
		if ((size_t)n == strlen(name(i)) && memcmp(t, name(i), (size_t)n) == 0) {
			*out = i;
			return true;
		}
	rd_bad(r, "unknown %s '%.32s'", what, t && !memchr(t, 0, (size_t)n) ? t : "?");
	return false;
}

static const char *n_square(int i) { return cm_square_kind_name((cm_square_kind)i); }
static const char *n_print(int i) { return cm_print_kind_name((cm_print_kind)i); }
static const char *n_feature(int i) { return cm_feature_kind_name((cm_feature_kind)i); }
static const char *n_side(int i) { return cm_side_name((cm_side)i); }
static const char *n_edition(int i) { return cm_edition_name((cm_edition)i); }
static const char *n_good(int i) { return cm_good_name((cm_good)i); }

/* Rows of an ordered list carry seq = 0, 1, 2, …: gaps or repeats mean the
 * indices other rows use cannot be trusted. */
static bool col_seq(rd *r, sqlite3_stmt *st, int c, size_t want)
{
	long long v;
	if (!col_int(r, st, c, "sequence number", 0, MAX_ITEMS, &v))
		return false;
	if ((size_t)v != want) {
		rd_bad(r, "sequence number %lld where %zu was expected", v, want);
		return false;
	}
	return true;
}

/* The next element of an ordered list read row by row: checks the row's
 * sequence number (column c) against *n, grows the array and returns the
 * new zeroed element, or NULL when the list must not be read further. */
static void *rd_next(rd *r, sqlite3_stmt *st, int c, void **arr, size_t *n, size_t *cap,
                     size_t es, size_t max)
{
	if (!col_seq(r, st, c, *n))
		return NULL;
	if (*n >= max) {
		rd_bad(r, "more than %zu entries", max);
		return NULL;
	}
	if (cm_grow(arr, cap, *n, es) != 0) {
		rd_nomem(r);
		return NULL;
	}
	char *e = (char *)*arr + es * (*n)++;
	memset(e, 0, es);
	return e;
}

/* The next element of an ordered list the builder keeps: checks the
 * row's sequence number (column c) against n, the count so far; false
 * when the list must not be read further. */
static bool rd_seq(rd *r, sqlite3_stmt *st, int c, size_t n)
{
	if (!col_seq(r, st, c, n))
		return false;
	if (n >= MAX_ITEMS) {
		rd_bad(r, "more than %zu entries", (size_t)MAX_ITEMS);
		return false;
	}
	return true;
}

/* The features or contacts of every tile of a tile set, or of every piece
 * of a map's big cities, from one scan: columns 0 and 1 give the tile's key
 * (tile seq and 0; big city and piece), the rows in key order; each tile
 * takes the rows with its key (one statement for them all instead of a
 * query per tile). */
typedef struct {
	sqlite3_stmt *st;
	bool fresh;     /* the statement stands on a row not yet taken, or is done */
	bool row;       /* fresh: it stands on a row */
	long long b, k; /* row: the row's key */
	int c0;         /* the first column read_tile reads */
} tile_rows;

/* Whether the next row is tile (b, k)'s. Rows of a key before (b, k) belong
 * to no tile read (read as if not there, as a query per tile would). */
static bool tr_has(rd *r, tile_rows *t, long long b, long long k)
{
	for (;;) {
		if (!t->fresh) {
			t->fresh = true;
			t->row = !r->rc && rd_step(r, t->st);
			if (t->row) {
				t->b = sqlite3_column_int64(t->st, 0); /* STRICT, NOT NULL: integers */
				t->k = sqlite3_column_int64(t->st, 1);
			}
		}
		if (!t->row)
			return false;
		if (t->b > b || (t->b == b && t->k >= k))
			return t->b == b && t->k == k;
		t->fresh = false; /* a row of no tile read */
	}
}

/* Reads the features (seq, kind, local_id, slots, arms, cathedral, inn,
 * good, touches) and contacts (seq, features) of tile (b, k) from their
 * scans: where is the tile's place, a row's is formatted only if a
 * diagnostic needs it. */
static void read_tile(rd *r, tile_rows *ft, tile_rows *ct, long long b, long long k, cm_tile_type *t,
                      const char *where)
{
	size_t cap = 0;
	sqlite3_stmt *fs = ft->st, *cs = ct->st;
	int f0 = ft->c0, k0 = ct->c0;
	r->where = where;
	while (!r->rc && tr_has(r, ft, b, k)) {
		ft->fresh = false;
		rd_item(r, where, "feature", t->n_features);
		cm_feature *f = rd_next(r, fs, f0, (void **)&t->features, &t->n_features, &cap,
		                        sizeof *f, CM_MAX_FEATURES);
		if (!f)
			break;
		int kind = 0, good = 0;
		long long slots = 0, arms = 0, touches = 0;
		if (col_name(r, fs, f0 + 1, "feature kind", n_feature, 0, CM_FEAT_KIND_COUNT, &kind) &&
		    col_text(r, fs, f0 + 2, "feature id", true, &f->id) &&
		    col_int(r, fs, f0 + 3, "slot mask", 0, CM_SLOTS_ALL, &slots) &&
		    col_int(r, fs, f0 + 4, "arms", 0, 255, &arms) &&
		    col_bool(r, fs, f0 + 5, "cathedral", &f->cathedral) && col_bool(r, fs, f0 + 6, "inn", &f->inn) &&
		    (sqlite3_column_type(fs, f0 + 7) == SQLITE_NULL ||
		     col_name(r, fs, f0 + 7, "trade good", n_good, CM_GOOD_WINE, CM_GOOD_CLOTH + 1, &good)) &&
		    col_int(r, fs, f0 + 8, "touches", 0, 0xFFFFFFFFll, &touches)) {
			f->kind = (cm_feature_kind)kind;
			f->slots = (cm_slots)slots;
			f->arms = (uint8_t)arms;
			f->good = (cm_good)good;
			f->touches = (uint32_t)touches;
		}
	}
	cap = 0;
	r->where = where;
	while (!r->rc && tr_has(r, ct, b, k)) {
		ct->fresh = false;
		rd_item(r, where, "contact", t->n_contacts);
		long long v;
		uint32_t *c = rd_next(r, cs, k0, (void **)&t->contacts, &t->n_contacts, &cap, sizeof *c,
		                      MAX_ITEMS);
		if (!c || !col_int(r, cs, k0 + 1, "contact", 0, 0xFFFFFFFFll, &v))
			break;
		*c = (uint32_t)v;
	}
	r->where = where;
	/* overlapping slots are the tile set checks' business; derive keeps the first */
	cm_tile_type_derive(t);
}

/* The markers (seq, text) of tile k from their scan. */
static void read_markers(rd *r, tile_rows *mt, long long k, cm_tile_type *t, const char *where)
{
	size_t cap = 0;
	r->where = where;
	while (!r->rc && tr_has(r, mt, k, 0)) {
		mt->fresh = false;
		rd_item(r, where, "marker", t->n_markers);
		char **m = rd_next(r, mt->st, mt->c0, (void **)&t->markers, &t->n_markers, &cap, sizeof *m, MAX_ITEMS);
		if (!m || !col_text(r, mt->st, mt->c0 + 1, "marker", false, m))
			break;
	}
	r->where = where;
}

/* Whether the pack has the table (an optional one may be missing). */
static bool table_present(rd *r, const char *name)
{
	sqlite3_stmt *t = rd_prepare(r, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
	if (t)
		sqlite3_bind_text(t, 1, name, -1, SQLITE_STATIC);
	bool have = t && rd_step(r, t) && sqlite3_column_int(t, 0) > 0;
	pack_release(r->p, t);
	return have;
}

static bool has_id(char **ids, size_t n, const char *id)
{
	return id && bsearch(&id, ids, n, sizeof *ids, cmp_str) != NULL;
}

int cm_pack_read_tileset(cm_pack *p, const char *id, cm_diags *d, cm_tileset **out)
{
	*out = NULL;
	if (!has_id(p->sets, p->n_sets, id))
		return CM_ENOTFOUND;
	char where[256], w[512];
	snprintf(where, sizeof where, "tile set %.100s", id);
	rd r = { p, d, 0, where, NULL, 0, 0, NULL, NULL, 0, NULL, NULL, NULL, 0, 0, false, NULL, NULL, NULL, NULL, NULL };
	sqlite3_stmt *ss = NULL, *ts = NULL, *fs = NULL, *cs = NULL, *ms = NULL;
	size_t cap = 0;
	cm_tileset *set = calloc(1, sizeof *set);
	if (!set || !(set->id = cm_strdup(id))) {
		rd_nomem(&r);
		goto out;
	}
	ss = rd_prepare(&r, "SELECT name, base, total_c1, total_c2, total_c3 FROM tilesets WHERE id = ?");
	ts = rd_prepare(&r, "SELECT seq, id, name, count_c1, count_c2, count_c3, start FROM tile_types"
	                    " WHERE tileset_id = ? ORDER BY seq");
	/* every tile's features and contacts, each in one scan (tile_rows,
	 * their key the tile's seq and 0) */
	fs = rd_prepare(&r, "SELECT tile_seq, 0, seq, kind, local_id, slots, arms, cathedral, inn, good, touches"
	                    " FROM features WHERE tileset_id = ? ORDER BY tile_seq, seq");
	cs = rd_prepare(&r, "SELECT tile_seq, 0, seq, features FROM contacts WHERE tileset_id = ?"
	                    " ORDER BY tile_seq, seq");
	if (!r.rc && table_present(&r, "tile_markers"))
		ms = rd_prepare(&r, "SELECT tile_seq, 0, seq, text FROM tile_markers WHERE tileset_id = ?"
		                    " ORDER BY tile_seq, seq");
	if (r.rc)
		goto out;
	rd_bind(ss, id, -1, -1);
	if (!rd_step(&r, ss)) {
		if (!r.rc)
			r.rc = CM_ENOTFOUND;
		goto out;
	}
	long long v;
	if (col_text(&r, ss, 0, "name", true, &set->name) && col_bool(&r, ss, 1, "base", &set->base))
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			if (col_opt_int(&r, ss, 2 + e, "declared total", MAX_COUNT, &v))
				set->total[e] = (int)v;
	rd_bind(ts, id, -1, -1);
	rd_bind(fs, id, -1, -1);
	rd_bind(cs, id, -1, -1);
	if (ms)
		rd_bind(ms, id, -1, -1);
	tile_rows ft = { fs, false, false, 0, 0, 2 }, ct = { cs, false, false, 0, 0, 2 };
	tile_rows mt = { ms, false, false, 0, 0, 2 };
	while (!r.rc && rd_step(&r, ts)) {
		snprintf(w, sizeof w, "%s, tile %zu", where, set->n_tiles);
		r.where = w;
		cm_tile_type *t = rd_next(&r, ts, 0, (void **)&set->tiles, &set->n_tiles, &cap, sizeof *t,
		                          MAX_ITEMS);
		if (!t || !col_text(&r, ts, 1, "tile id", false, &t->id) ||
		    !col_text(&r, ts, 2, "tile name", true, &t->name))
			break;
		snprintf(w, sizeof w, "%s, tile %.100s", where, t->id);
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			if (col_int(&r, ts, 3 + e, "tile count", 0, MAX_COUNT, &v))
				t->count[e] = (int)v;
		col_bool(&r, ts, 6, "start", &t->start);
		read_tile(&r, &ft, &ct, (long long)(set->n_tiles - 1), 0, t, w);
		if (ms)
			read_markers(&r, &mt, (long long)(set->n_tiles - 1), t, w);
	}
	r.where = where;
	if (!r.rc) {
		if (cm_tileset_check_model(set, "CM0407", p->path, d))
			r.rc = CM_EINVAL;
	}
out:
	pack_release(p, ss);
	pack_release(p, ts);
	pack_release(p, fs);
	pack_release(p, cs);
	pack_release(p, ms);
	if (r.rc)
		cm_tileset_free(set);
	else
		*out = set;
	return r.rc;
}

static void read_map_rows(rd *r, const cm_map *m, const char *id, const char *where);
static bool grid_kinds(rd *r, int cols, int rows, const char *id, const char *where);

/* The map's <about> fields (map_about; a pack older than the table has none). */
static void read_about(rd *r, const char *id)
{
	sqlite3_stmt *t = rd_prepare(r, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"
	                                " AND name = 'map_about'");
	bool have = t && rd_step(r, t) && sqlite3_column_int(t, 0) > 0;
	pack_release(r->p, t);
	if (!have)
		return;
	sqlite3_stmt *st = rd_prepare(r, "SELECT key, value FROM map_about WHERE map_id = ? ORDER BY key");
	if (!st)
		return;
	rd_bind(st, id, -1, -1);
	while (rd_step(r, st)) {
		char *key = NULL;
		if (!col_text(r, st, 0, "about key", false, &key))
			break;
		int i = cm_about_find(key);
		if (i < 0) {
			rd_bad(r, "about key %.64s is none of title, author, licence, version, description,"
			          " homepage", key);
			free(key);
			break;
		}
		free(key);
		char *v = NULL;
		bool ok = col_text(r, st, 1, cm_about_name(i), false, &v);
		if (ok && cm_map_builder_set_about(r->b, i, v))
			rd_nomem(r);
		free(v);
		if (!ok)
			break;
	}
	pack_release(r->p, st);
}

/* A builder of a cols x rows grid whose squares have the kinds and the
 * 2.0 print bytes (N + 4E + 16S + 64W) the grid's texts gave: each square
 * written whole, once (what cm__map_builder_new_grid makes of them, which
 * writes a row three times: blank, kinds, prints). */
static int new_grid(cm_map_builder **out, int cols, int rows, const uint8_t *kinds, const uint8_t *prints)
{
	/* not zeroed: the loop below writes every square before anything
	 * can fail or read one */
	int rc = cm__map_builder_new_unset(cols, rows, out);
	if (rc)
		return rc;
	cm_square *sq = cm__map_builder_grid(*out);
	size_t n = (size_t)cols * (size_t)rows;
	cm_square t = cm__square_blank(0, 0);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* a print byte's four sides as the word of print[0..3] (kinds in bytes
	 * 0, 2, 4, 6, no arms) */
	uint64_t word[256];
	for (unsigned v = 0; v < 256; v++)
		word[v] = (uint64_t)(v & 3) | (uint64_t)(v >> 2 & 3) << 16 | (uint64_t)(v >> 4 & 3) << 32 |
		          (uint64_t)(v >> 6 & 3) << 48;
	for (size_t i = 0; i < n; i++) {
		t.kind = kinds[i];
		memcpy(t.print, &word[prints[i]], 8);
		sq[i] = t;
	}
#else
	for (size_t i = 0; i < n; i++) {
		t.kind = kinds[i];
		for (int e = 0; e < 4; e++)
			t.print[e].kind = (uint8_t)(prints[i] >> (2 * e) & 3);
		sq[i] = t;
	}
#endif
	return 0;
}

/* cm_pack_read_map; with h (a pack of format 3), the map's content hash
 * version 2 up to its squares computed on the way (h2_end finishes it). */
/* With gh (verifying), *gh gets what read_grid learnt of the grid (its
 * buffers the caller's to free), or nothing (grid NULL). */
static int read_map(cm_pack *p, const char *id, cm_diags *d, hasher2 *h, cm_map **out, cm_export_grid_hint *gh)
{
	*out = NULL;
	if (gh)
		memset(gh, 0, sizeof *gh);
	if (!has_id(p->maps, p->n_maps, id))
		return CM_ENOTFOUND;
	char where[256];
	snprintf(where, sizeof where, "map %.100s", id);
	rd r = { p, d, 0, where, NULL, 0, 0, NULL, NULL, 0, h, NULL, NULL, 0, 0, gh != NULL, NULL, NULL, NULL, NULL, NULL };
	cm_map *m = NULL;
	char *name = NULL, *image = NULL, *legend = NULL;
	sqlite3_stmt *st = rd_prepare(&r, "SELECT cols, rows, name, starts_used, tiles_min, tiles_max,"
	                                  " followers, edition, tiny_city, farmers, farmers_bigcity,"
	                                  " town_extra_turn, town_cost, town_road_bonus, abbey_edge,"
	                                  " image, legend FROM maps WHERE id = ?");
	if (!st)
		goto out;
	rd_bind(st, id, -1, -1);
	if (!rd_step(&r, st)) {
		if (!r.rc)
			r.rc = CM_ENOTFOUND;
		goto out;
	}
	long long cols, rows, v[4];
	if (!col_int(&r, st, 0, "cols", 1, MAX_GRID, &cols) ||
	    !col_int(&r, st, 1, "rows", 1, MAX_GRID, &rows))
		goto out;
	/* formats 2 and later: the grid's texts first, so that the squares are
	 * made with their kinds and print kinds in one pass and a square with
	 * nothing beside them is not written again */
	if (p->version >= 2 && !grid_kinds(&r, (int)cols, (int)rows, id, where))
		goto out;
	if ((p->version >= 2 ? new_grid(&r.b, (int)cols, (int)rows, r.kinds, r.prints) :
	                       cm_map_builder_new((int)cols, (int)rows, &r.b)) != 0 ||
	    cm_map_builder_set_id(r.b, id)) {
		rd_nomem(&r);
		goto out;
	}
	const cm_map *view = cm__map_builder_view(r.b);
	r.sq = cm__map_builder_grid(r.b);

	static const char *const setup[4] = { "start squares used", "tiles min", "tiles max",
	                                      "followers" };
	for (int i = 0; i < 4; i++)
		if (!col_int(&r, st, 3 + i, setup[i], 0, MAX_COUNT, &v[i]))
			v[i] = 0;
	cm_setup su = { (int)v[0], (int)v[1], (int)v[2], (int)v[3], 0 };
	cm_map_builder_set_setup(r.b, &su);
	int ed = 0, farmers = 0;
	cm_rules rules = *cm_map_rules(view), *ru = &rules;
	if (col_text(&r, st, 2, "name", true, &name) &&
	    col_name(&r, st, 7, "edition", n_edition, 0, CM_EDITION_COUNT, &ed) &&
	    col_bool(&r, st, 8, "tiny city", &ru->tiny_city) &&
	    col_name(&r, st, 9, "farmers rule", n_edition, CM_EDITION_C1, CM_EDITION_C2 + 1, &farmers) &&
	    col_bool(&r, st, 10, "farmers with big cities", &ru->farmers_bigcity) &&
	    col_bool(&r, st, 11, "town extra turn", &ru->town_extra_turn) &&
	    col_bool(&r, st, 12, "town cost", &ru->town_cost) &&
	    col_bool(&r, st, 13, "town road bonus", &ru->town_road_bonus) &&
	    col_bool(&r, st, 14, "abbey at the edge", &ru->abbey_edge) &&
	    col_text(&r, st, 15, "image", true, &image) &&
	    col_text(&r, st, 16, "legend", true, &legend)) {
		ru->edition = (cm_edition)ed;
		ru->farmers = farmers == CM_EDITION_C1 ? CM_FARMERS_C1 : CM_FARMERS_C2;
	}
	cm_map_builder_set_rules(r.b, ru);
	if (cm_map_builder_set_name(r.b, name) || cm_map_builder_set_image(r.b, image) ||
	    cm_map_builder_set_legend(r.b, legend))
		rd_nomem(&r);
	if (!r.rc)
		read_map_rows(&r, view, id, where);
	r.where = where;
	if (!r.rc)
		read_about(&r, id);
	/* every square is in range by now (kinds and print kinds from their
	 * names or the grid's characters, island and big-city indices checked
	 * against the lists read before them): the builder's one model check
	 * skips the grid's pass */
	if (!r.rc) {
		if (cm__map_builder_finish(r.b, "CM0407", p->path, d, CM__FINISH_GRID_OK, &m))
			r.rc = CM_EINVAL;
		r.b = NULL;
	}
out:
	pack_release(p, st);
	pack_release(p, r.gst);
	free(r.kinds);
	free(r.prints);
	free(name);
	free(image);
	free(legend);
	cm_map_builder_free(r.b);
	if (r.rc)
		cm_map_free(m);
	else
		*out = m;
	if (!r.rc && gh && r.grid) {
		gh->grid = r.grid;
		gh->sq = r.rows;
		gh->n_sq = r.n_rows;
	} else {
		free(r.grid);
		free(r.rows);
	}
	return r.rc;
}

int cm_pack_read_map(cm_pack *p, const char *id, cm_diags *d, cm_map **out)
{
	return read_map(p, id, d, NULL, out, NULL);
}

/* Reads a list of named things (islands, big cities) with seq 0..n-1
 * into the builder: the query gives seq, name and, for islands, a title. */
static void read_names(rd *r, const char *sql, const char *id, const char *what, bool island)
{
	sqlite3_stmt *st = rd_prepare(r, sql);
	size_t n = 0;
	if (!st)
		return;
	rd_bind(st, id, -1, -1);
	const char *where = r->where;
	while (!r->rc && rd_step(r, st)) {
		rd_item(r, where, what, n);
		if (!rd_seq(r, st, 0, n))
			break;
		char *name = NULL, *title = NULL;
		if (col_text(r, st, 1, "name", true, &name) && island)
			col_text(r, st, 2, "title", true, &title);
		if (island ? cm_map_builder_add_island(r->b, name, title, 0, NULL)
		           : cm_map_builder_add_bigcity(r->b, name, 0, NULL))
			rd_nomem(r);
		free(name);
		free(title);
		n++;
	}
	r->where = where;
	pack_release(r->p, st);
}

/* The square at (x,y) of a row, checked to be inside the grid. */
static cm_square *col_square(rd *r, sqlite3_stmt *st, int c, const cm_map *m, char *w, size_t wn,
                             const char *where, int *px, int *py)
{
	long long x, y;
	r->where = where;
	if (!col_int(r, st, c, "x", 0, m->cols - 1, &x) || !col_int(r, st, c + 1, "y", 0, m->rows - 1, &y))
		return NULL;
	(void)w;
	(void)wn;
	r->where = NULL;
	r->it_what = NULL;
	r->sq_map = where;
	r->sq_x = (int)x;
	r->sq_y = (int)y;
	*px = (int)x;
	*py = (int)y;
	return &r->sq[y * m->cols + x];
}

/* The place of the row being read: square (x,y) of map where. */
static void rd_square(rd *r, const char *where, int x, int y)
{
	r->where = NULL;
	r->it_what = NULL;
	r->sq_map = where;
	r->sq_x = x;
	r->sq_y = y;
}

/* Column col of st, a map_grids text of rows of chars characters per
 * square then a newline; NULL (reported) when it is not. */
static const unsigned char *grid_text(rd *r, int cols, int rows, sqlite3_stmt *st, int col, const char *what,
                                      int chars)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	size_t n = (size_t)sqlite3_column_bytes(st, col), row = (size_t)cols * (size_t)chars + 1;
	if (sqlite3_column_type(st, col) != SQLITE_TEXT || !t) {
		if (t || sqlite3_column_type(st, col) != SQLITE_TEXT)
			rd_bad(r, "the grid of %s is not a text", what);
		else
			rd_nomem(r);
		return NULL;
	}
	if (n != row * (size_t)rows) {
		rd_bad(r, "the grid of %s has %zu bytes, %d rows of %d squares need %zu", what, n, rows, cols,
		       row * (size_t)rows);
		return NULL;
	}
	for (int y = 0; y < rows; y++)
		if (t[(size_t)y * row + row - 1] != '\n') {
			rd_bad(r, "row %d of the grid of %s does not end after %d squares", y, what, cols);
			return NULL;
		}
	return t;
}

/* Formats 2 and later, before the model is made: steps the map's
 * map_grids row and decodes its texts into r->kinds and r->prints, every
 * character checked. In format 4 the prints text is dense (a square
 * without a print is one '.', schemas/pack.md), in formats 2 and 3 four
 * characters a square. False (reported) on failure. */
static bool grid_kinds(rd *r, int cols, int rows, const char *id, const char *where)
{
	const unsigned cpu = cm_cpu_features();
	r->where = where;
	if (!(r->gst = rd_prepare(r, "SELECT kinds, prints FROM map_grids WHERE map_id = ?")))
		return false;
	rd_bind(r->gst, id, -1, -1);
	if (!rd_step(r, r->gst)) {
		if (!r->rc)
			rd_bad(r, "no grid of square kinds is stored (map_grids)");
		return false;
	}
	const unsigned char *kt = grid_text(r, cols, rows, r->gst, 0, "square kinds", 1);
	if (!kt)
		return false;
	cm_charmap km;
	char kc[CM_SQ_KIND_COUNT];
	uint8_t kv[CM_SQ_KIND_COUNT];
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++) {
		kc[k] = cm_square_kind_char((cm_square_kind)k);
		kv[k] = (uint8_t)k;
	}
	cm_charmap_init(&km, kc, kv, CM_SQ_KIND_COUNT);
	size_t n = (size_t)cols * (size_t)rows;
	uint8_t *kinds = r->kinds = malloc(n), *pb = r->prints = malloc(n);
	if (!kinds || !pb) {
		rd_nomem(r);
		return false;
	}
	for (int y = 0; y < rows; y++) {
		const unsigned char *kq = kt + (size_t)y * ((size_t)cols + 1);
		if (cm_charmap_decode(&km, kq, kinds + (size_t)y * (size_t)cols, (size_t)cols, cpu))
			continue;
		for (int x = 0; x < cols; x++)
			if (km.tab[kq[x]] == 0xff) {
				rd_square(r, where, x, y);
				rd_bad(r, "unknown character 0x%02x in the grid of square kinds", kq[x]);
				return false;
			}
	}
	bool dense = r->p->version >= 4;
	const unsigned char *pt;
	if (dense) {
		pt = sqlite3_column_text(r->gst, 1);
		if (sqlite3_column_type(r->gst, 1) != SQLITE_TEXT || !pt) {
			if (pt || sqlite3_column_type(r->gst, 1) != SQLITE_TEXT)
				rd_bad(r, "the grid of edge print kinds is not a text");
			else
				rd_nomem(r);
			return false;
		}
	} else if (!(pt = grid_text(r, cols, rows, r->gst, 1, "edge print kinds", 4))) {
		return false;
	}
	/* op: a print character's kind; op4 the same shifted for side W */
	uint8_t op[256];
	memset(op, 0xff, sizeof op);
	for (int k = 0; k < 4; k++)
		op[(unsigned char)print_chars[k]] = (uint8_t)k;
	const unsigned char *p = pt, *end = pt + sqlite3_column_bytes(r->gst, 1);
	/* eight squares without a print: "........", or 32 '-' before format 4 */
	static const char blank4[] = "--------------------------------";
	const char *blank = dense ? "........" : blank4;
	size_t blank_len = dense ? 8 : 32;
	uint64_t dots8;
	memcpy(&dots8, "........", 8);
	uint32_t last = 0; /* the last square's four characters, when has_last */
	uint64_t last2 = 0; /* the same twice */
	uint8_t last_pb = 0;
	bool has_last = false;
	for (int y = 0; y < rows; y++) {
		uint8_t *pr = pb + (size_t)y * (size_t)cols;
		for (int x = 0; x < cols; x++) {
			uint64_t w8 = 0;
			if (dense && x + 8 <= cols && end - p >= 8)
				memcpy(&w8, p, 8);
			if (dense ? w8 == dots8 :
			            (x & 7) == 0 && x + 8 <= cols && (size_t)(end - p) >= blank_len &&
			                    memcmp(p, blank, blank_len) == 0) {
				memset(pr + x, 0, 8);
				p += blank_len;
				x += 7;
				continue;
			}
			/* four squares with the last square's four characters (rows
			 * of the same prints, as beside water) */
			if (has_last && x + 4 <= cols && end - p >= 16) {
				uint64_t a, b;
				memcpy(&a, p, 8);
				memcpy(&b, p + 8, 8);
				if (a == last2 && b == last2) {
					memset(pr + x, last_pb, 4);
					p += 16;
					x += 3;
					continue;
				}
			}
			uint8_t v0, v1, v2, v3;
			uint32_t w4 = 0;
			if (end - p >= 4)
				memcpy(&w4, p, 4);
			if (dense && p < end && *p == '.') {
				pr[x] = 0;
				p++;
			} else if (has_last && end - p >= 4 && w4 == last) { /* the four characters just checked */
				pr[x] = last_pb;
				p += 4;
			} else if (end - p >= 4 && !((v0 = op[p[0]]) & 0x80) && !((v1 = op[p[1]]) & 0x80) &&
			           !((v2 = op[p[2]]) & 0x80) && !((v3 = op[p[3]]) & 0x80) &&
			           (!dense || (v0 | v1 | v2 | v3))) {
				pr[x] = last_pb = (uint8_t)(v0 | v1 << 2 | v2 << 4 | v3 << 6);
				last = w4;
				last2 = (uint64_t)w4 << 32 | w4; /* in memory: w4's bytes twice, either byte order */
				has_last = true;
				p += 4; /* four known characters (a newline is none of them) */
			} else { /* what is wrong, at this square */
				size_t left = (size_t)(end - p);
				const unsigned char *nl = memchr(p, '\n', left < 4 ? left : 4);
				rd_square(r, where, x, y);
				if (nl && nl == p)
					rd_bad(r, "row %d of the grid of edge print kinds ends after %d squares", y, x);
				else if (nl)
					rd_bad(r, "row %d of the grid of edge print kinds ends within a square", y);
				else if (left < 4)
					rd_bad(r, "the grid of edge print kinds ends within row %d", y);
				for (int e = 0; e < 4 && !r->rc; e++)
					if (op[p[e]] == 0xff)
						rd_bad(r, "unknown character 0x%02x in the grid of edge print kinds", p[e]);
				if (!r->rc)
					rd_bad(r, "a square without a print is '.' in the grid of edge print kinds, not '----'");
				return false;
			}
		}
		if (p >= end || *p != '\n') {
			r->where = where;
			rd_bad(r, "row %d of the grid of edge print kinds does not end after %d squares", y, cols);
			return false;
		}
		p++;
	}
	if (p != end) {
		r->where = where;
		rd_bad(r, "the grid of edge print kinds has %zu bytes after its last row", (size_t)(end - p));
		return false;
	}
	return true;
}

/* Formats 2 and later, once the rows are read: the squares and
 * edge_prints rows claimed the kinds of the squares and sides marked in
 * seen (bit 0 the square, 1..4 its sides); the grid (r->kinds, r->prints,
 * which the model was made with) must agree. Builds the 2.0 GRID records
 * when wanted, and with r->h hashes every square. */
static void read_grid(rd *r, const cm_map *m, const char *where, const uint8_t *seen)
{
	r->where = where;
	const uint8_t *kinds = r->kinds, *pb = r->prints;
	size_t n = (size_t)m->cols * (size_t)m->rows;
	uint8_t *g = NULL; /* the 2.0 GRID records, when wanted */
	if (r->want_grid) {
		if (!(g = r->grid = malloc(2 * n + 1))) {
			rd_nomem(r);
			return;
		}
		cm_bytes_interleave(kinds, pb, g, n, cm_cpu_features());
	}
	/* A plain square's two hash bytes are its GRID bytes when the hash's
	 * codes are the enums' values (they are): a run of plain squares is
	 * then hashed from g in one piece, from run up to the next square
	 * with a row. */
	bool runs = g && r->h;
	for (int k = 0; runs && k < CM_SQ_KIND_COUNT; k++)
		runs = r->h->sq[k] == k;
	for (int k = 0; runs && k < 4; k++)
		runs = r->h->pr[k] == k;
	size_t run = 0;
	for (size_t i = 0; i < n && !r->rc; i++) {
		if (!seen[i]) {
			if (r->h && !runs)
				h2_plain(r->h, &m->squares[i]);
			else if ((i & 7) == 0 && i + 8 <= n) { /* eight without a row */
				uint64_t sv;
				memcpy(&sv, seen + i, 8);
				if (sv == 0)
					i += 7;
			}
			continue;
		}
		cm_square *s = &r->sq[i];
		int x = (int)(i % (size_t)m->cols), y = (int)(i / (size_t)m->cols);
		if ((seen[i] & 1) && s->kind != kinds[i]) {
			rd_square(r, where, x, y);
			rd_bad(r, "square kind %s differs from the grid's %s",
			       cm_square_kind_name((cm_square_kind)s->kind), cm_square_kind_name((cm_square_kind)kinds[i]));
			break;
		}
		s->kind = kinds[i];
		for (int e = 0; e < 4; e++) {
			uint8_t v = (uint8_t)(pb[i] >> (2 * e) & 3);
			if ((seen[i] & (2u << e)) && s->print[e].kind != v) {
				rd_square(r, where, x, y);
				rd_bad(r, "edge print kind %s on side %s differs from the grid's %s",
				       cm_print_kind_name((cm_print_kind)s->print[e].kind), cm_side_name((cm_side)e),
				       cm_print_kind_name((cm_print_kind)v));
				break;
			}
			s->print[e].kind = v;
		}
		if (r->rc)
			break;
		if (g) {
			if (r->n_rows == r->cap_rows) {
				size_t nc = r->cap_rows ? 2 * r->cap_rows : 64;
				size_t *np = realloc(r->rows, nc * sizeof *np);
				if (!np) {
					rd_nomem(r);
					break;
				}
				r->rows = np;
				r->cap_rows = nc;
			}
			r->rows[r->n_rows++] = i;
		}
		if (runs) { /* the plain squares before it, then it */
			h_bytes(&r->h->h, g + 2 * run, 2 * (i - run));
			run = i + 1;
		}
		if (r->h)
			h2_square(r->h, s, cm_map_extra_find(m, (int)i));
	}
	if (runs && !r->rc) /* the plain squares after the last row */
		h_bytes(&r->h->h, g + 2 * run, 2 * (n - run));
	r->where = where;
}

static void read_map_rows(rd *r, const cm_map *m, const char *id, const char *where)
{
	char w[600];
	int x, y;
	sqlite3_stmt *sq = NULL, *mk = NULL, *pr = NULL, *pc = NULL, *fs = NULL, *cs = NULL,
	             *fe = NULL, *dk = NULL;
	uint8_t *seen = calloc((size_t)m->cols * (size_t)m->rows, 1); /* bit 0 row read, 1..4 sides */
	if (!seen) {
		rd_nomem(r);
		return;
	}
	read_names(r, "SELECT seq, name, title FROM islands WHERE map_id = ? ORDER BY seq", id, "island", true);
	read_names(r, "SELECT seq, name FROM bigcities WHERE map_id = ? ORDER BY seq", id, "big city", false);
	sq = rd_prepare(r, "SELECT x, y, kind, name, arms, island, bigcity FROM squares"
	                   " WHERE map_id = ? ORDER BY y, x");
	mk = rd_prepare(r, "SELECT x, y, seq, text FROM square_markers WHERE map_id = ? ORDER BY y, x, seq");
	pr = rd_prepare(r, "SELECT x, y, side, kind, arms, label FROM edge_prints WHERE map_id = ?"
	                   " ORDER BY y, x, side");
	pc = rd_prepare(r, "SELECT bigcity, seq, x, y FROM bigcity_pieces WHERE map_id = ?"
	                   " ORDER BY bigcity, seq");
	/* every piece's features and contacts, each in one scan (tile_rows) */
	fs = rd_prepare(r, "SELECT bigcity, piece, seq, kind, local_id, slots, arms, cathedral, inn, good,"
	                   " touches FROM bigcity_features WHERE map_id = ? ORDER BY bigcity, piece, seq");
	cs = rd_prepare(r, "SELECT bigcity, piece, seq, features FROM bigcity_contacts WHERE map_id = ?"
	                   " ORDER BY bigcity, piece, seq");
	fe = rd_prepare(r, "SELECT seq, name, x1, y1, side1, x2, y2, side2, arms FROM ferries"
	                   " WHERE map_id = ? ORDER BY seq");
	dk = rd_prepare(r, "SELECT seq, tileset_id, tile_id, count FROM deck_entries WHERE map_id = ?"
	                   " ORDER BY seq");
	if (r->rc)
		goto out;

	rd_bind(sq, id, -1, -1);
	while (!r->rc && rd_step(r, sq)) {
		cm_square *s = col_square(r, sq, 0, m, w, sizeof w, where, &x, &y);
		if (!s)
			continue;
		if (seen[y * m->cols + x] & 1) {
			rd_bad(r, "square stored twice");
			continue;
		}
		seen[y * m->cols + x] |= 1;
		int kind = 0;
		long long arms = 0, island = -1, bigcity = -1;
		char *name = NULL;
		if (col_name(r, sq, 2, "square kind", n_square, 0, CM_SQ_KIND_COUNT, &kind) &&
		    col_text(r, sq, 3, "name", true, &name) && col_int(r, sq, 4, "arms", 0, 255, &arms) &&
		    col_opt_int(r, sq, 5, "island", (long long)m->n_islands - 1, &island) &&
		    col_opt_int(r, sq, 6, "big city", (long long)m->n_bigcities - 1, &bigcity)) {
			s->kind = (uint8_t)kind; /* in format 2 and 3 a claim the grid must confirm (read_grid) */
			s->arms = (uint8_t)arms;
			s->island = (int)island;
			s->bigcity = (int)bigcity;
		}
		if (name && cm_map_builder_set_square_name(r->b, x, y, name))
			rd_nomem(r);
		free(name);
	}
	rd_bind(mk, id, -1, -1);
	while (!r->rc && rd_step(r, mk)) {
		cm_square *s = col_square(r, mk, 0, m, w, sizeof w, where, &x, &y);
		if (!s)
			continue;
		if (!(seen[y * m->cols + x] & 1)) {
			rd_bad(r, "marker on a square that is not stored");
			continue;
		}
		size_t n_markers;
		cm_map_square_markers(m, x, y, &n_markers);
		char *text = NULL;
		if (rd_seq(r, mk, 2, n_markers) && col_text(r, mk, 3, "marker", false, &text) &&
		    cm_map_builder_add_marker(r->b, x, y, text))
			rd_nomem(r);
		free(text);
	}
	rd_bind(pr, id, -1, -1);
	while (!r->rc && rd_step(r, pr)) {
		cm_square *s = col_square(r, pr, 0, m, w, sizeof w, where, &x, &y);
		int side = 0, kind = 0;
		long long arms = 0;
		if (!s || !col_name(r, pr, 2, "side", n_side, 0, 4, &side))
			continue;
		uint8_t bit = (uint8_t)(2u << side);
		if (!(seen[y * m->cols + x] & 1) || (seen[y * m->cols + x] & bit)) {
			rd_bad(r, "edge print on side %s stored twice or on a square that is not stored",
			       cm_side_name((cm_side)side));
			continue;
		}
		seen[y * m->cols + x] |= bit;
		cm_edge_print *p = &s->print[side];
		if (!col_name(r, pr, 3, "edge print kind", n_print, 0, CM_PRINT_CITY + 1, &kind))
			continue;
		char *label = NULL;
		bool ok = col_int(r, pr, 4, "arms", 0, 255, &arms) && col_text(r, pr, 5, "label", true, &label);
		if (label && cm_map_builder_set_print_label(r->b, x, y, (cm_side)side, label))
			rd_nomem(r);
		free(label);
		if (ok) {
			p->kind = (uint8_t)kind;
			p->arms = (uint8_t)arms;
		}
	}
	rd_bind(pc, id, -1, -1);
	rd_bind(fs, id, -1, -1);
	rd_bind(cs, id, -1, -1);
	tile_rows ft = { fs, false, false, 0, 0, 2 }, ct = { cs, false, false, 0, 0, 2 };
	long long prev = -1;
	while (!r->rc && rd_step(r, pc)) {
		long long b, px, py;
		r->where = where;
		if (!col_int(r, pc, 0, "big city", 0, (long long)m->n_bigcities - 1, &b))
			break;
		const cm_bigcity *bc = &m->bigcities[b];
		if (b < prev || (b != prev && bc->n_pieces)) {
			rd_bad(r, "big city pieces out of order");
			break;
		}
		prev = b;
		snprintf(w, sizeof w, "%s, big city %lld, piece %zu", where, b, bc->n_pieces);
		r->where = w;
		if (!rd_seq(r, pc, 1, bc->n_pieces) || !col_int(r, pc, 2, "x", -1, MAX_GRID, &px) ||
		    !col_int(r, pc, 3, "y", -1, MAX_GRID, &py))
			break;
		cm_tile_type t;
		memset(&t, 0, sizeof t);
		read_tile(r, &ft, &ct, b, (long long)bc->n_pieces, &t, w);
		if (cm_map_builder_add_piece(r->b, (size_t)b, (int)px, (int)py, &t))
			rd_nomem(r);
		cm_tile_type_clear(&t);
	}
	rd_bind(fe, id, -1, -1);
	while (!r->rc && rd_step(r, fe)) {
		rd_item(r, where, "ferry", m->n_ferries);
		if (!rd_seq(r, fe, 0, m->n_ferries))
			break;
		cm_ferry f;
		memset(&f, 0, sizeof f);
		long long c[5] = { 0 };
		int s1 = 0, s2 = 0;
		if (col_text(r, fe, 1, "name", true, &f.name) &&
		    col_int(r, fe, 2, "x1", -1, MAX_GRID, &c[0]) && col_int(r, fe, 3, "y1", -1, MAX_GRID, &c[1]) &&
		    col_name(r, fe, 4, "side", n_side, 0, 4, &s1) &&
		    col_int(r, fe, 5, "x2", -1, MAX_GRID, &c[2]) && col_int(r, fe, 6, "y2", -1, MAX_GRID, &c[3]) &&
		    col_name(r, fe, 7, "side", n_side, 0, 4, &s2) && col_int(r, fe, 8, "arms", 0, 255, &c[4])) {
			f.x1 = (int)c[0];
			f.y1 = (int)c[1];
			f.s1 = (cm_side)s1;
			f.x2 = (int)c[2];
			f.y2 = (int)c[3];
			f.s2 = (cm_side)s2;
			f.arms = (uint8_t)c[4];
		}
		if (cm_map_builder_add_ferry(r->b, &f))
			rd_nomem(r);
		free(f.name);
	}
	rd_bind(dk, id, -1, -1);
	while (!r->rc && rd_step(r, dk)) {
		rd_item(r, where, "deck entry", m->n_deck);
		if (!rd_seq(r, dk, 0, m->n_deck))
			break;
		cm_deck_entry e;
		memset(&e, 0, sizeof e);
		long long count;
		if (col_text(r, dk, 1, "tile set", false, &e.tileset) &&
		    col_text(r, dk, 2, "tile", true, &e.tile) &&
		    col_int(r, dk, 3, "count", -1, MAX_COUNT, &count))
			e.count = (int)count;
		if (cm_map_builder_add_deck_entry(r->b, &e))
			rd_nomem(r);
		free(e.tileset);
		free(e.tile);
	}
	/* everything before the squares is read: the hash's items 1 to 6, then
	 * the grid, hashed square by square */
	if (!r->rc && r->h)
		h2_begin(r->h, m);
	if (!r->rc && r->p->version >= 2)
		read_grid(r, m, where, seen);
out:
	r->where = where;
	pack_release(r->p, sq);
	pack_release(r->p, mk);
	pack_release(r->p, pr);
	pack_release(r->p, pc);
	pack_release(r->p, fs);
	pack_release(r->p, cs);
	pack_release(r->p, fe);
	pack_release(r->p, dk);
	free(seen);
}

int cm_pack_map_hash(cm_pack *p, const char *id, uint8_t out[32])
{
	if (!has_id(p->maps, p->n_maps, id))
		return CM_ENOTFOUND;
	sqlite3_stmt *st = NULL;
	int rc = CM_EFORMAT;
	if (pack_stmt(p, "SELECT hash FROM maps WHERE id = ?", &st) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB &&
	    sqlite3_column_bytes(st, 0) == 32) {
		memcpy(out, sqlite3_column_blob(st, 0), 32);
		rc = 0;
	}
out:
	pack_release(p, st);
	return rc;
}

/* The client binary the pack stores for a map must be, byte for byte, the
 * encoding cm_export_bin_version gives of the verified model in its
 * version: the row of the version this carcamap writes (CM_EXPORT_BIN_MAJOR),
 * or in a pack of format 3 or older without one, the version 1 row those
 * wrote. A missing or altered binary is CM0413. */
static int check_binary(cm_pack *p, const char *id, const cm_map *m, cm_tileset *const *sets,
                        size_t n_sets, const cm_export_grid_hint *gh, cm_diags *d)
{
	unsigned char *want = NULL;
	size_t want_len = 0;
	char where[256];
	snprintf(where, sizeof where, "map %.100s", id);
	/* compared in SQLite's own buffer: no copy of a 20 MB blob */
	sqlite3_stmt *st = NULL;
	int rc, s;
	unsigned major = CM_EXPORT_BIN_MAJOR;
	if (pack_stmt(p, "SELECT data FROM map_binary WHERE map_id = ? AND format_version = ?", &st) != SQLITE_OK) {
		rc = db_fail(d, p->db, p->path, "cannot read the pack");
		goto out;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)major);
	if ((s = sqlite3_step(st)) == SQLITE_DONE && p->version < 4) {
		sqlite3_reset(st);
		sqlite3_bind_int(st, 2, (int)(major = 1));
		s = sqlite3_step(st);
	}
	if (s == SQLITE_DONE) {
		if (p->version < 4)
			cm_diags_check(d, "CM0413", p->path, 0, 0, where,
			               "no client binary (format version %d, or 1 in a pack of format %d) is stored",
			               CM_EXPORT_BIN_MAJOR, p->version);
		else
			cm_diags_check(d, "CM0413", p->path, 0, 0, where,
			               "no client binary (format version %d) is stored", CM_EXPORT_BIN_MAJOR);
		rc = CM_EINVAL;
		goto out;
	}
	if (s != SQLITE_ROW) {
		rc = db_fail(d, p->db, p->path, "cannot read the pack");
		goto out;
	}
	if (sqlite3_column_type(st, 0) != SQLITE_BLOB) {
		cm_diags_check(d, "CM0413", p->path, 0, 0, where, "the stored client binary is not a blob");
		rc = CM_EINVAL;
		goto out;
	}
	const void *stored = sqlite3_column_blob(st, 0);
	size_t stored_len = (size_t)sqlite3_column_bytes(st, 0);
	if (stored_len && !stored) {
		rc = CM_ENOMEM;
		goto out;
	}
	bool equal = false;
	/* cm_pack_read_map checked m; compared without building the file, the
	 * encoding is only built (for its length) when it differs */
	/* 2.0 with what the grid's reading learnt (GRID itself, the squares
	 * with rows): no second pass over every square */
	if (major == 2 && gh && gh->grid)
		rc = cm_export_bin_equal_hinted(m, sets, n_sets, gh, stored, stored_len, &equal);
	else
		rc = cm_export_bin_equal_checked(m, sets, n_sets, major, stored, stored_len, &equal);
	if (!rc && !equal)
		rc = cm_export_bin_checked(m, sets, n_sets, major, &want, &want_len);
	if (rc == CM_ENOMEM)
		goto out;
	if (rc) {
		cm_diags_check(d, "CM0413", p->path, 0, 0, where, "the map cannot be encoded as a client binary: %s",
		               cm_strerror(rc));
		rc = CM_EINVAL;
	} else if (!equal) {
		cm_diags_check(d, "CM0413", p->path, 0, 0, where,
		               "stored client binary (format version %u, %zu bytes) differs from the encoding of the "
		               "map (%zu bytes)",
		               major, stored_len, want_len);
		rc = CM_EINVAL;
	}
out:
	pack_release(p, st);
	free(want);
	return rc;
}

int cm_pack_read_map_verified(cm_pack *p, const char *id, cm_diags *d, cm_map **out)
{
	cm_map *m = NULL;
	cm_tileset **sets = NULL, **used = NULL;
	size_t n = 0, n_used = 0;
	uint8_t stored[32], got[32];
	*out = NULL;
	/* format 3: hashed while read (version 2); older formats: version 1,
	 * from the model once read */
	hasher2 *h = pack_hash_version(p) == 2 ? malloc(sizeof *h) : NULL;
	if (pack_hash_version(p) == 2 && !h)
		return CM_ENOMEM;
	cm_export_grid_hint gh;
	int rc = read_map(p, id, d, h, &m, &gh);
	if (rc)
		goto out;
	if ((rc = cm_pack_map_hash(p, id, stored)) != 0)
		goto out;
	sets = calloc(m->n_deck + 1, sizeof *sets);
	if (!sets || (p->n_sets && !p->vsets && (!(p->vsets = calloc(p->n_sets, sizeof *p->vsets)) ||
	                                          !(p->vstamp = calloc(p->n_sets, sizeof *p->vstamp))))) {
		rc = CM_ENOMEM;
		goto out;
	}
	/* each set the deck names once, in the order named; read from the
	 * pack the first time a map uses it (a failed read is tried again,
	 * and reported again, for the next map) */
	p->vcall++;
	for (size_t i = 0; i < m->n_deck; i++) {
		const char *sid = m->deck[i].tileset;
		char **at = sid && p->n_sets ? bsearch(&sid, p->sets, p->n_sets, sizeof *p->sets, cmp_str) : NULL;
		if (!at) {
			rc = CM_ENOTFOUND;
			goto out;
		}
		size_t k = (size_t)(at - p->sets);
		if (p->vstamp[k] == p->vcall)
			continue;
		p->vstamp[k] = p->vcall;
		if (!p->vsets[k] && (rc = cm_pack_read_tileset(p, sid, d, &p->vsets[k])) != 0)
			goto out;
		sets[n++] = p->vsets[k];
	}
	if (h) {
		if ((rc = deck_sets(m, sets, n, false, &used, &n_used)) != 0 ||
		    (rc = h2_end(h, m, used, n_used, got)) != 0)
			goto out;
	} else if ((rc = cm_map_hash_version(m, sets, n, 1, got)) != 0) {
		goto out;
	}
	if (memcmp(stored, got, 32) != 0) {
		char where[256];
		snprintf(where, sizeof where, "map %.100s", id);
		cm_diags_check(d, "CM0408", p->path, 0, 0, where,
		               "stored content hash differs from the hash of the stored content");
		rc = CM_EINVAL;
		goto out;
	}
	rc = check_binary(p, id, m, sets, n, &gh, d);
out:
	free((void *)(uintptr_t)gh.grid);
	free((void *)(uintptr_t)gh.sq);
	free(sets); /* the sets themselves are p's */
	free(used);
	free(h);
	if (rc)
		cm_map_free(m);
	else
		*out = m;
	return rc;
}

int cm_pack_verify_map(cm_pack *p, const char *id, cm_diags *d)
{
	cm_map *m = NULL;
	int rc = cm_pack_read_map_verified(p, id, d, &m);
	cm_map_free(m);
	return rc;
}

int cm_pack_map_binary(cm_pack *p, const char *id, int format_version, uint8_t **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	if (!has_id(p->maps, p->n_maps, id))
		return CM_ENOTFOUND;
	sqlite3_stmt *st = NULL;
	int rc = CM_EFORMAT, s;
	if (sqlite3_prepare_v2(p->db, "SELECT data FROM map_binary WHERE map_id = ? AND format_version = ?",
	                       -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, format_version);
	if ((s = sqlite3_step(st)) == SQLITE_DONE) {
		rc = CM_ENOTFOUND;
	} else if (s == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB) {
		const void *b = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		uint8_t *copy = malloc((size_t)n + 1); /* +1: a zero-length blob is still a buffer */
		if (!copy) {
			rc = CM_ENOMEM;
			goto out;
		}
		if (n)
			memcpy(copy, b, (size_t)n);
		*data = copy;
		*len = (size_t)n;
		rc = 0;
	}
out:
	sqlite3_finalize(st);
	return rc;
}

static int copy_file(const char *from, int to, const char *path, cm_diags *d)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), rc = 0;
	char buf[65536];
	if (in < 0) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
		return CM_EIO;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		ssize_t off = 0;
		while (n > 0 && off < n) {
			ssize_t w = write(to, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				n = -1;
				break;
			}
			off += w;
		}
		if (n < 0) {
			cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write pack: %s",
			             strerror(errno));
			rc = CM_EIO;
			break;
		}
	}
	close(in);
	return rc;
}

int cm_pack_put_map_binary(const char *path, const char *id, int format_version, const void *data,
                           size_t len, cm_diags *d)
{
	cm_pack *p = NULL;
	char *tmp = NULL;
	int fd = -1;
	wr w = { .db = NULL, .d = d, .path = path };
	sqlite3_stmt *st = NULL;
	int rc = cm_pack_open(path, d, &p);
	if (rc)
		goto out;
	bool known = has_id(p->maps, p->n_maps, id);
	cm_pack_close(p);
	p = NULL;
	if (!known) {
		rc = CM_ENOTFOUND;
		goto out;
	}
	if (len > MAX_BLOB) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL,
		             "binary encoding of %zu bytes is larger than the limit of %d", len, MAX_BLOB);
		rc = CM_ELIMIT;
		goto out;
	}
	if ((rc = tmp_create(path, d, &tmp, &fd)) != 0 || (rc = copy_file(path, fd, path, d)) != 0)
		goto out;
	if (sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = w.db ? sql_fail(&w, "open") : CM_ENOMEM;
		goto out;
	}
	sqlite3_db_config(w.db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(w.db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	if (sqlite3_exec(w.db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA foreign_keys=ON;",
	                 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w.db, "INSERT OR REPLACE INTO map_binary (map_id, format_version, data)"
	                             " VALUES (?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
		rc = sql_fail(&w, "prepare");
		goto out;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, format_version);
	sqlite3_bind_blob(st, 3, len ? data : "", (int)len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		rc = sql_fail(&w, "insert");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_close(w.db) != SQLITE_OK) {
		rc = sql_fail(&w, "close");
		goto out;
	}
	w.db = NULL;
	rc = tmp_commit(tmp, fd, path, d);
	fd = -1;
out:
	sqlite3_finalize(st);
	sqlite3_close(w.db);
	if (fd >= 0)
		close(fd);
	if (rc && tmp)
		unlink(tmp);
	free(tmp);
	cm_pack_close(p);
	return rc;
}
