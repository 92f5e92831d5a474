/* SPDX-License-Identifier: MIT */
/* export_bin.c: the compact binary export (schemas/export-bin.md): a header,
 * a section table with a CRC-32 per section, and little-endian record
 * tables that lib/reader/cmap.c reads without carcamap. Major version 2
 * (the default): two bytes per square and records for the few squares and
 * prints that carry more; 1 (for older readers): a record per square and
 * per print. Sections are built in separate buffers (1.0's square records
 * straight into the file), then laid out 4-aligned in a fixed order. */
#include <stdlib.h>
#include <string.h>
#include "base/crc32_int.h"
#include "export/export.h"
#include "export/export_int.h"
#include "model/map_int.h"

#define NONE32 0xFFFFFFFFu
#define HEADER_SIZE 24u
#define ENTRY_SIZE 16u

/* A growing byte buffer; the first failure sticks in err. */
typedef struct {
	unsigned char *p;
	size_t n, cap;
	int err;
} buf;

static void put(buf *b, const void *src, size_t n)
{
	if (b->err || n == 0)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n)
			cap *= 2;
		unsigned char *p = realloc(b->p, cap);
		if (!p) {
			b->err = CM_ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, src, n);
	b->n += n;
}

static void put8(buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;
	put(b, &c, 1);
}

static void put16(buf *b, unsigned v)
{
	unsigned char c[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
	put(b, c, 2);
}

static void put32(buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
	                       (unsigned char)(v >> 24) };
	put(b, c, 4);
}

static void set32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* CRC-32 (ISO-HDLC, the zlib and PNG one): cm_crc32, with the carry-less
 * multiply where there is one (a million-square map's GRID is 2 MB,
 * checked again on every pack read). */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	return cm_crc32(0, p, n);
}

/* The string table: NUL-terminated strings referenced by offset, each
 * distinct string stored once (open addressing over offsets). */
typedef struct {
	buf b;
	uint32_t *slot; /* offset + 1, 0 = empty */
	size_t n_slots, used;
} strtab;

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int strtab_rehash(strtab *t)
{
	size_t n = t->n_slots ? t->n_slots * 2 : 256;
	uint32_t *slot = calloc(n, sizeof *slot);
	if (!slot)
		return CM_ENOMEM;
	for (size_t i = 0; i < t->n_slots; i++)
		if (t->slot[i]) {
			size_t k = hash_str((char *)t->b.p + t->slot[i] - 1) & (n - 1);
			while (slot[k])
				k = (k + 1) & (n - 1);
			slot[k] = t->slot[i];
		}
	free(t->slot);
	t->slot = slot;
	t->n_slots = n;
	return 0;
}

/* The offset of s in the table (added if new), NONE32 for NULL. */
static uint32_t str_ref(strtab *t, const char *s)
{
	if (!s || t->b.err)
		return NONE32;
	if (2 * (t->used + 1) > t->n_slots && (t->b.err = strtab_rehash(t)))
		return NONE32;
	size_t k = hash_str(s) & (t->n_slots - 1);
	for (; t->slot[k]; k = (k + 1) & (t->n_slots - 1))
		if (strcmp((char *)t->b.p + t->slot[k] - 1, s) == 0)
			return t->slot[k] - 1;
	size_t len = strlen(s) + 1;
	if (t->b.n + len >= NONE32) {
		t->b.err = CM_ELIMIT;
		return NONE32;
	}
	uint32_t off = (uint32_t)t->b.n;
	put(&t->b, s, len);
	if (t->b.err)
		return NONE32;
	t->slot[k] = off + 1;
	t->used++;
	return off;
}

/* Section ids: those of 1.0 in its file order, then those of 2.0 alone. */
enum { S_META, S_RULE, S_STRS, S_SQRS, S_MRKS, S_PRNT, S_BIGC, S_PIEC, S_FEAT, S_CONT,
       S_FERY, S_ISLD, S_TSET, S_TILE, S_DECK, S_GRID, S_SQEX, S_PREX, S_COUNT };
static const char tags[S_COUNT][5] = { "META", "RULE", "STRS", "SQRS", "MRKS", "PRNT", "BIGC",
                                       "PIEC", "FEAT", "CONT", "FERY", "ISLD", "TSET", "TILE",
                                       "DECK", "GRID", "SQEX", "PREX" };
/* x.0 record size of each table section (0: not a table) */
static const uint32_t rec_size[S_COUNT] = { 16, 20, 0, 20, 4, 12, 12, 24, 16, 4, 16, 8, 32, 48, 12,
                                            2, 24, 12 };
/* The sections of each major version in file order. */
#define N_SECS 16 /* at most */
static const int n_order[2] = { 15, 16 };
static const int order[2][N_SECS] = {
	{ S_META, S_RULE, S_STRS, S_SQRS, S_MRKS, S_PRNT, S_BIGC, S_PIEC, S_FEAT, S_CONT, S_FERY, S_ISLD,
	  S_TSET, S_TILE, S_DECK },
	{ S_META, S_RULE, S_STRS, S_GRID, S_SQEX, S_MRKS, S_PREX, S_BIGC, S_PIEC, S_FEAT, S_CONT, S_FERY,
	  S_ISLD, S_TSET, S_TILE, S_DECK },
};

typedef struct {
	buf s[S_COUNT];      /* record bytes of each section (STRS: in st; SQRS,
	                      * MRKS, PRNT: written by put_squares into the file) */
	uint32_t n[S_COUNT]; /* records */
	strtab st;
	int err;
	const uint8_t *has;  /* a bit per square: it has an entry beside the grid */
	unsigned major;      /* 1 or 2 */
	const cm_map_grid *view; /* 2.0: GRID and the squares to visit, or NULL */
	bool grid_lent;      /* s[S_GRID].p is the view's GRID itself (not freed) */
} writer;

static void rec(writer *w, int sec)
{
	if (w->n[sec] == NONE32)
		w->err = CM_ELIMIT;
	else
		w->n[sec]++;
}

/* Appends t's features and contacts to FEAT and CONT; writes first/count
 * pairs and (before them) the derived edges into the record in sec. */
static void put_shape(writer *w, int sec, const cm_tile_type *t)
{
	uint8_t edge[4];
	cm_export_edges(t, edge);
	put(&w->s[sec], edge, 4);
	put32(&w->s[sec], w->n[S_FEAT]);
	put32(&w->s[sec], (uint32_t)t->n_features);
	put32(&w->s[sec], w->n[S_CONT]);
	put32(&w->s[sec], (uint32_t)t->n_contacts);
	for (size_t i = 0; i < t->n_features; i++) {
		const cm_feature *f = &t->features[i];
		buf *b = &w->s[S_FEAT];
		put8(b, f->kind);
		put8(b, f->arms);
		put8(b, (f->cathedral ? 1u : 0u) | (f->inn ? 2u : 0u));
		put8(b, f->good);
		put16(b, f->slots);
		put16(b, 0);
		put32(b, str_ref(&w->st, f->id));
		put32(b, f->touches);
		rec(w, S_FEAT);
	}
	for (size_t i = 0; i < t->n_contacts; i++) {
		put32(&w->s[S_CONT], t->contacts[i]);
		rec(w, S_CONT);
	}
}

/* Where put_squares writes the records of SQRS, MRKS and PRNT: straight
 * into the file's buffer, once their sizes are known. */
typedef struct {
	unsigned char *sq, *mk, *pr;
	uint32_t n_mk; /* markers written so far */
	bool cmp;      /* compare with the bytes at sq, mk, pr instead of writing them */
	bool diff;     /* (cmp) a record differed */
} sq_out;

/* Writes (or compares) n bytes at *at and moves past them. */
static inline void emit(sq_out *o, unsigned char **at, const unsigned char *b, size_t n)
{
	if (o->cmp)
		o->diff = o->diff || memcmp(*at, b, n) != 0;
	else
		memcpy(*at, b, n);
	*at += n;
}

/* The square records (SQRS, their markers MRKS, their prints PRNT). With
 * o NULL, a first pass: it counts the records and enters the strings in
 * the string table in the order the file has them; with o, the second
 * pass writes the records at o (every string is in the table by then). A
 * square's name, markers and labels are looked up only when it has an
 * entry beside the grid (w->has, a bit per square). */
static void put_squares(writer *w, const cm_map *m, sq_out *o)
{
	size_t n_sq = (size_t)m->cols * (size_t)m->rows;
	if (!o && (n_sq >= NONE32 || w->n[S_SQRS])) {
		w->err = CM_ELIMIT;
		return;
	}
	if (!o)
		w->n[S_SQRS] = (uint32_t)n_sq;
	for (int y = 0; y < m->rows && !w->err; y++)
		for (int x = 0; x < m->cols; x++) {
			size_t i = (size_t)y * (size_t)m->cols + (size_t)x;
			const cm_square *s = &m->squares[i];
			bool has = w->has[i / 8] >> (i % 8) & 1;
			if (!o && !has) { /* first pass, nothing beside the grid: only counts */
				w->n[S_PRNT] += (s->print[0].kind != CM_PRINT_NONE) + (s->print[1].kind != CM_PRINT_NONE) +
				                (s->print[2].kind != CM_PRINT_NONE) + (s->print[3].kind != CM_PRINT_NONE);
				continue;
			}
			const cm_square_extra *xe = has ? cm_map_extra_find(m, (int)i) : NULL;
			size_t n_markers = xe ? xe->n_markers : 0;
			if (n_markers > 0xFFFF) {
				w->err = CM_ELIMIT;
				break;
			}
			uint32_t name = xe ? str_ref(&w->st, xe->name) : NONE32;
			if (o) {
				unsigned char q[20];
				q[0] = (unsigned char)s->kind;
				q[1] = s->arms;
				q[2] = (unsigned char)n_markers;
				q[3] = (unsigned char)(n_markers >> 8);
				set32(q + 4, name);
				set32(q + 8, s->island < 0 ? NONE32 : (uint32_t)s->island);
				set32(q + 12, s->bigcity < 0 ? NONE32 : (uint32_t)s->bigcity);
				set32(q + 16, o->n_mk);
				emit(o, &o->sq, q, sizeof q);
			}
			for (size_t k = 0; k < n_markers; k++) {
				uint32_t t = str_ref(&w->st, xe->markers[k]);
				if (o) {
					unsigned char tb[4];
					set32(tb, t);
					emit(o, &o->mk, tb, 4);
					o->n_mk++;
				} else {
					rec(w, S_MRKS);
				}
			}
			for (int e = 0; e < 4; e++) {
				const cm_edge_print *p = &s->print[e];
				if (p->kind == CM_PRINT_NONE)
					continue;
				uint32_t label = xe ? str_ref(&w->st, xe->label[e]) : NONE32;
				if (!o) {
					rec(w, S_PRNT);
					continue;
				}
				unsigned char pq[12];
				pq[0] = (unsigned char)x;
				pq[1] = (unsigned char)(x >> 8);
				pq[2] = (unsigned char)y;
				pq[3] = (unsigned char)(y >> 8);
				pq[4] = (unsigned char)e;
				pq[5] = p->kind;
				pq[6] = p->arms;
				pq[7] = 0;
				set32(pq + 8, label);
				emit(o, &o->pr, pq, sizeof pq);
			}
		}
}

/* 2.0's squares: GRID (kind, and the four print kinds at 2 bits each, of
 * every square), SQEX for a square with arms, a name, an island, a big
 * city or markers (its markers into MRKS), PREX for a print with arms or
 * a label; both in square order, then side. Strings enter the table in
 * the order of the records: name, markers, labels of each square. */
static void put_grid(writer *w, const cm_map *m)
{
	size_t n_sq = (size_t)m->cols * (size_t)m->rows;
	buf *g = &w->s[S_GRID];
	if (n_sq >= NONE32 / 2 || g->n) {
		w->err = CM_ELIMIT;
		return;
	}
	const cm_map_grid *view = w->view;
	/* with a view, its GRID is used as it is (no copy of 2 MB) unless a
	 * listed square's bytes differ from the model's */
	if (view) {
		g->p = (unsigned char *)(uintptr_t)view->grid;
		w->grid_lent = true;
	} else if (!(g->p = malloc(2 * n_sq + 1))) {
		w->err = CM_ENOMEM;
		return;
	}
	g->n = g->cap = 2 * n_sq;
	w->n[S_GRID] = (uint32_t)n_sq;
	for (size_t j = 0, n = view ? view->n_sq : n_sq; j < n && !w->err; j++) {
		size_t i = view ? view->sq[j] : j;
		if (i >= n_sq) {
			w->err = CM_EINTERNAL;
			break;
		}
		const cm_square *s = &m->squares[i];
		unsigned char sk = s->kind, pk = (unsigned char)(s->print[0].kind | s->print[1].kind << 2 |
		                                                 s->print[2].kind << 4 | s->print[3].kind << 6);
		if (w->grid_lent && (g->p[2 * i] != sk || g->p[2 * i + 1] != pk)) {
			unsigned char *own = malloc(2 * n_sq + 1);
			if (!own) {
				w->err = CM_ENOMEM;
				break;
			}
			memcpy(own, g->p, 2 * n_sq);
			g->p = own;
			w->grid_lent = false;
		}
		if (!w->grid_lent) {
			g->p[2 * i] = sk;
			g->p[2 * i + 1] = pk;
		}
		unsigned has = w->has[i / 8] >> (i % 8) & 1u;
		if (!(has | s->arms | (uint32_t)(s->island + 1) | (uint32_t)(s->bigcity + 1) | s->print[0].arms |
		      s->print[1].arms | s->print[2].arms | s->print[3].arms))
			continue; /* nothing beside the grid */
		const cm_square_extra *xe = has ? cm_map_extra_find(m, (int)i) : NULL;
		size_t n_markers = xe ? xe->n_markers : 0;
		if (n_markers > 0xFFFF) {
			w->err = CM_ELIMIT;
			break;
		}
		uint32_t name = xe ? str_ref(&w->st, xe->name) : NONE32;
		if (s->arms || name != NONE32 || s->island >= 0 || s->bigcity >= 0 || n_markers) {
			buf *b = &w->s[S_SQEX];
			put32(b, (uint32_t)i);
			put8(b, s->arms);
			put8(b, 0);
			put16(b, (unsigned)n_markers);
			put32(b, name);
			put32(b, s->island < 0 ? NONE32 : (uint32_t)s->island);
			put32(b, s->bigcity < 0 ? NONE32 : (uint32_t)s->bigcity);
			put32(b, w->n[S_MRKS]);
			rec(w, S_SQEX);
			for (size_t k = 0; k < n_markers; k++) {
				put32(&w->s[S_MRKS], str_ref(&w->st, xe->markers[k]));
				rec(w, S_MRKS);
			}
		}
		for (int e = 0; e < 4; e++) {
			const cm_edge_print *p = &s->print[e];
			if (p->kind == CM_PRINT_NONE)
				continue;
			uint32_t label = xe ? str_ref(&w->st, xe->label[e]) : NONE32;
			if (!p->arms && label == NONE32)
				continue;
			buf *b = &w->s[S_PREX];
			put32(b, (uint32_t)i);
			put8(b, (unsigned)e);
			put8(b, p->arms);
			put16(b, 0);
			put32(b, label);
			rec(w, S_PREX);
		}
	}
}

static void put_map(writer *w, const cm_map *m)
{
	buf *b = &w->s[S_META];
	put32(b, str_ref(&w->st, m->id));
	put32(b, str_ref(&w->st, m->name));
	put32(b, (uint32_t)m->cols);
	put32(b, (uint32_t)m->rows);
	rec(w, S_META);

	b = &w->s[S_RULE];
	const cm_rules *r = &m->rules;
	put32(b, (uint32_t)m->setup.starts_used);
	put32(b, (uint32_t)m->setup.tiles_min);
	put32(b, (uint32_t)m->setup.tiles_max);
	put32(b, (uint32_t)m->setup.followers);
	put8(b, r->edition);
	put8(b, r->farmers);
	unsigned flags = 0; /* the switches at the table's bits (rules.c) */
	for (size_t i = 0; i < cm_rule_option_count(); i++) {
		const cm_rule_option *o = cm_rule_option_get(i);
		if (o->flag_bit >= 0 && cm_rules_get(r, i))
			flags |= 1u << o->flag_bit;
	}
	put8(b, (uint8_t)flags);
	put8(b, 0);
	rec(w, S_RULE);

	if (w->major == 1)
		put_squares(w, m, NULL);
	else
		put_grid(w, m);

	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *c = &m->bigcities[i];
		put32(&w->s[S_BIGC], str_ref(&w->st, c->name));
		put32(&w->s[S_BIGC], w->n[S_PIEC]);
		put32(&w->s[S_BIGC], (uint32_t)c->n_pieces);
		rec(w, S_BIGC);
		for (size_t k = 0; k < c->n_pieces; k++) {
			put16(&w->s[S_PIEC], (unsigned)c->pieces[k].x);
			put16(&w->s[S_PIEC], (unsigned)c->pieces[k].y);
			put_shape(w, S_PIEC, &c->pieces[k].tile);
			rec(w, S_PIEC);
		}
	}

	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		b = &w->s[S_FERY];
		put32(b, str_ref(&w->st, f->name));
		put16(b, (unsigned)f->x1);
		put16(b, (unsigned)f->y1);
		put16(b, (unsigned)f->x2);
		put16(b, (unsigned)f->y2);
		put8(b, f->s1);
		put8(b, f->s2);
		put8(b, f->arms);
		put8(b, 0);
		rec(w, S_FERY);
	}
	for (size_t i = 0; i < m->n_islands; i++) {
		put32(&w->s[S_ISLD], str_ref(&w->st, m->islands[i].name));
		put32(&w->s[S_ISLD], str_ref(&w->st, m->islands[i].title));
		rec(w, S_ISLD);
	}
}

static void put_deck(writer *w, const cm_map *m, const cm_export_deck *dk)
{
	uint32_t *first_tile = calloc(dk->n_sets + 1, sizeof *first_tile);
	if (!first_tile) {
		w->err = CM_ENOMEM;
		return;
	}
	for (size_t si = 0; si < dk->n_sets; si++) {
		const cm_tileset *ts = dk->sets[si];
		buf *b = &w->s[S_TSET];
		first_tile[si] = w->n[S_TILE];
		put32(b, str_ref(&w->st, ts->id));
		put32(b, str_ref(&w->st, ts->name));
		put8(b, ts->base ? 1 : 0);
		put8(b, 0);
		put16(b, 0);
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			put32(b, ts->total[e] < 0 ? NONE32 : (uint32_t)ts->total[e]);
		put32(b, w->n[S_TILE]);
		put32(b, (uint32_t)ts->n_tiles);
		rec(w, S_TSET);
		for (size_t ti = 0; ti < ts->n_tiles; ti++) {
			const cm_tile_type *t = &ts->tiles[ti];
			long in_deck = cm_export_in_deck(m, dk, si, ti);
			if (in_deck > 0x7FFFFFFFL)
				w->err = CM_ELIMIT;
			b = &w->s[S_TILE];
			put32(b, str_ref(&w->st, t->id));
			put32(b, str_ref(&w->st, t->name));
			for (int e = 0; e < CM_EDITION_COUNT; e++)
				put32(b, t->count[e] < 0 ? 0 : (uint32_t)t->count[e]);
			put32(b, (uint32_t)in_deck);
			put8(b, t->start ? 1 : 0);
			put8(b, 0);
			put16(b, 0);
			put_shape(w, S_TILE, t);
			rec(w, S_TILE);
		}
	}
	for (size_t i = 0; i < m->n_deck; i++) {
		size_t si = dk->entry_set[i];
		buf *b = &w->s[S_DECK];
		put32(b, (uint32_t)si);
		put32(b, dk->entry_tile[i] < 0 ? NONE32 : first_tile[si] + (uint32_t)dk->entry_tile[i]);
		put32(b, m->deck[i].count < 0 ? NONE32 : (uint32_t)m->deck[i].count);
		rec(w, S_DECK);
	}
	free(first_tile);
}

/* Lays the sections out after the header and the table, each copied
 * once into the one buffer of the file; 1.0's square records are written
 * there by put_squares (direct). */
static bool direct(const writer *w, int s)
{
	return w->major == 1 && (s == S_SQRS || s == S_MRKS || s == S_PRNT);
}

/* Where each section of the version lies in the file and how long it
 * is; the file's length, or 0 past the format's 32-bit offsets. */
static size_t layout(const writer *w, size_t offs[S_COUNT], size_t size[S_COUNT])
{
	int n = n_order[w->major - 1];
	size_t off = HEADER_SIZE + ENTRY_SIZE * (size_t)n;
	for (int k = 0; k < n; k++) {
		int s = order[w->major - 1][k];
		/* a table: count, record size, records */
		size[s] = s == S_STRS ? w->st.b.n : 8 + (direct(w, s) ? (size_t)w->n[s] * rec_size[s] : w->s[s].n);
		offs[s] = off;
		off += (size[s] + 3) & ~(size_t)3;
	}
	return off > NONE32 ? 0 : off;
}

static int assemble(writer *w, const cm_map *m, unsigned char **out, size_t *len)
{
	size_t offs[S_COUNT], size[S_COUNT];
	size_t off = layout(w, offs, size);
	if (!off)
		return CM_ELIMIT;
	int n = n_order[w->major - 1];
	unsigned char *p = cm_malloc_big(off, 1); /* every byte written: 2 MB for a million squares */
	if (!p)
		return CM_ENOMEM;
	memset(p, 0, HEADER_SIZE + ENTRY_SIZE * (size_t)n);
	memcpy(p, "CMAP\r\n\x1a\n", 8);
	p[8] = (unsigned char)w->major;
	p[10] = w->major == CM_EXPORT_BIN_MAJOR ? CM_EXPORT_BIN_MINOR : 0;
	set32(p + 12, (uint32_t)off);
	set32(p + 16, (uint32_t)n);
	if (w->major == 1) {
		sq_out o = { p + offs[S_SQRS] + 8, p + offs[S_MRKS] + 8, p + offs[S_PRNT] + 8, 0, false, false };
		size_t strs = w->st.b.n;
		put_squares(w, m, &o);
		if (w->err || w->st.b.n != strs) { /* the first pass entered every string */
			free(p);
			return w->err ? w->err : CM_EINTERNAL;
		}
	}
	for (int k = 0; k < n; k++) {
		int s = order[w->major - 1][k];
		unsigned char *b = p + offs[s];
		if (s == S_STRS) {
			if (size[s])
				memcpy(b, w->st.b.p, size[s]);
		} else {
			set32(b, w->n[s]);
			set32(b + 4, rec_size[s]);
			if (w->s[s].n && !direct(w, s))
				memcpy(b + 8, w->s[s].p, w->s[s].n);
		}
		memset(b + size[s], 0, ((size[s] + 3) & ~(size_t)3) - size[s]); /* padding */
		unsigned char *e = p + HEADER_SIZE + ENTRY_SIZE * (size_t)k;
		memcpy(e, tags[s], 4);
		set32(e + 4, (uint32_t)offs[s]);
		set32(e + 8, (uint32_t)size[s]);
		set32(e + 12, crc32_of(b, size[s]));
	}
	set32(p + 20, crc32_of(p + HEADER_SIZE, ENTRY_SIZE * (size_t)n));
	*out = p;
	*len = off;
	return 0;
}

/* Whether the len bytes at data are the file assemble would lay out,
 * compared in place: the square records by the second pass of
 * put_squares, the rest section by section, then the header and table
 * with the CRC-32 of the (by then equal) sections of data. */
static int assemble_equal(writer *w, const cm_map *m, const unsigned char *data, size_t len, bool *equal)
{
	*equal = false;
	size_t offs[S_COUNT], size[S_COUNT];
	size_t off = layout(w, offs, size);
	if (!off)
		return CM_ELIMIT;
	if (len != off)
		return 0;
	int n = n_order[w->major - 1];
	static const unsigned char zero[4];
	for (int k = 0; k < n; k++) {
		int s = order[w->major - 1][k];
		const unsigned char *b = data + offs[s];
		unsigned char hd[8];
		set32(hd, w->n[s]);
		set32(hd + 4, rec_size[s]);
		if (s == S_STRS ? size[s] && memcmp(b, w->st.b.p, size[s]) != 0
		                : memcmp(b, hd, 8) != 0 || (!direct(w, s) && w->s[s].n && memcmp(b + 8, w->s[s].p, w->s[s].n) != 0))
			return 0;
		if (memcmp(b + size[s], zero, ((size[s] + 3) & ~(size_t)3) - size[s]) != 0)
			return 0;
	}
	if (w->major == 1) {
		/* the records are only read at data: cast for the shared cursor type */
		sq_out o = { (unsigned char *)(uintptr_t)(data + offs[S_SQRS] + 8),
			     (unsigned char *)(uintptr_t)(data + offs[S_MRKS] + 8),
			     (unsigned char *)(uintptr_t)(data + offs[S_PRNT] + 8), 0, true, false };
		size_t strs = w->st.b.n;
		put_squares(w, m, &o);
		if (w->err || w->st.b.n != strs)
			return w->err ? w->err : CM_EINTERNAL;
		if (o.diff)
			return 0;
	}
	unsigned char head[HEADER_SIZE + ENTRY_SIZE * N_SECS];
	size_t head_len = HEADER_SIZE + ENTRY_SIZE * (size_t)n;
	memset(head, 0, sizeof head);
	memcpy(head, "CMAP\r\n\x1a\n", 8);
	head[8] = (unsigned char)w->major;
	head[10] = w->major == CM_EXPORT_BIN_MAJOR ? CM_EXPORT_BIN_MINOR : 0;
	set32(head + 12, (uint32_t)off);
	set32(head + 16, (uint32_t)n);
	for (int k = 0; k < n; k++) {
		int s = order[w->major - 1][k];
		unsigned char *e = head + HEADER_SIZE + ENTRY_SIZE * (size_t)k;
		memcpy(e, tags[s], 4);
		set32(e + 4, (uint32_t)offs[s]);
		set32(e + 8, (uint32_t)size[s]);
		set32(e + 12, crc32_of(data + offs[s], size[s]));
	}
	set32(head + 20, crc32_of(head + HEADER_SIZE, ENTRY_SIZE * (size_t)n));
	*equal = memcmp(head, data, head_len) == 0;
	return 0;
}

/* The encoding; the tile sets' model checks first unless the caller has
 * just run them (cm_export_prepare). */
/* With equal, nothing is built: *equal says whether the cmp_len bytes at cmp
 * are the encoding. */
static int encode(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, bool checked, unsigned major,
                  const cm_map_grid *view, unsigned char **out, size_t *len, const unsigned char *cmp,
                  size_t cmp_len, bool *equal)
{
	if (out) {
		*out = NULL;
		*len = 0;
	}
	if (major == 0)
		major = CM_EXPORT_BIN_MAJOR;
	if (major != 1 && major != 2)
		return CM_EINVAL;
	cm_export_deck dk;
	int rc = checked ? cm_export_deck_resolve(m, sets, n_sets, true, &dk) : cm_export_prepare(m, sets, n_sets, &dk);
	if (rc)
		return rc;
	writer w;
	memset(&w, 0, sizeof w);
	size_t n_sq = (size_t)m->cols * (size_t)m->rows;
	uint8_t *has = calloc(n_sq / 8 + 1, 1);
	if (!has) {
		cm_export_deck_clear(&dk);
		return CM_ENOMEM;
	}
	for (size_t i = 0; i < cm_map_extra_count(m); i++) {
		size_t sq = (size_t)cm_map_extra_nth(m, i)->sq;
		if (sq < n_sq)
			has[sq / 8] = (uint8_t)(has[sq / 8] | 1u << (sq % 8));
	}
	w.has = has;
	w.major = major;
	w.view = major == 2 ? view : NULL;
	(void)str_ref(&w.st, ""); /* offset 0 is the empty string */
	put_map(&w, m);
	put_deck(&w, m, &dk);
	rc = w.err ? w.err : w.st.b.err;
	for (int s = 0; !rc && s < S_COUNT; s++)
		rc = w.s[s].err;
	if (!rc)
		rc = equal ? assemble_equal(&w, m, cmp, cmp_len, equal) : assemble(&w, m, out, len);
	free(has);
	for (int s = 0; s < S_COUNT; s++)
		if (s != S_GRID || !w.grid_lent)
			free(w.s[s].p);
	free(w.st.b.p);
	free(w.st.slot);
	cm_export_deck_clear(&dk);
	return rc;
}

int cm_export_bin_mem(const cm_map *m, const cm_export_opts *o, unsigned char **out, size_t *len)
{
	return encode(m, o ? o->sets : NULL, o ? o->n_sets : 0, false, o ? o->bin_major : 0, NULL, out, len, NULL, 0,
	              NULL);
}

int cm_export_bin(const cm_map *m, const cm_export_opts *o, FILE *f, cm_diags *d)
{
	(void)d; /* the return code says it all */
	unsigned char *bin = NULL;
	size_t len = 0;
	int rc = cm_export_bin_mem(m, o, &bin, &len);
	if (!rc && fwrite(bin, 1, len, f) != len)
		rc = CM_EIO;
	free(bin);
	return rc;
}

int cm__export_bin_encode(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, const cm_export_bin_opts *o,
                          unsigned char **out, size_t *len)
{
	return encode(m, sets, n_sets, true, o ? o->major : 0, o ? o->grid : NULL, out, len, NULL, 0, NULL);
}

int cm__export_bin_equal(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, const cm_export_bin_opts *o,
                         const unsigned char *data, size_t len, bool *equal)
{
	*equal = false;
	return encode(m, sets, n_sets, true, o ? o->major : 0, o ? o->grid : NULL, NULL, NULL, data, len, equal);
}
