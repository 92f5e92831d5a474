/* SPDX-License-Identifier: MIT */
/* pack_read.c: reading a pack into the model (carcamap/pack.h
 * cm_pack_read_map, cm_pack_read_tileset): one function per table, every
 * value hostile until range-checked, a map made through its builder, and
 * from formats 2 on the map's packed grid view made from the grid texts on
 * the way (for the verifier, io/pack_verify.c: the hash and the binary
 * need no second pass over a million squares). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "carcamap/catalog.h"
#include "io/pack_db_int.h"
#include "base/bytes_int.h"
#include "base/cpu_int.h"
#include "base/util_int.h"
#include "model/map_builder_int.h"
#include "model/map_int.h"

/* What one reading knows: the first failure, the place of the row being
 * read (formatted only when a diagnostic needs it), and while a map is read
 * its builder and the state the tables share. */
typedef struct {
	cm_pack *p;
	cm_diags *d;
	int rc;            /* first failure: CM_EINVAL, CM_EFORMAT or CM_ENOMEM */
	const char *where; /* place of the row being read; NULL: square sq_x,sq_y of sq_map, */
	const char *sq_map;
	int sq_x, sq_y;
	const char *it_base, *it_what; /* or (no sq_map) item it_i of it_base: "map x, ferry 3" */
	size_t it_i;
	/* reading a map: its id and place ("map x"), its builder, the map
	 * being built (read through the builder's view) and its grid written
	 * directly (a million squares; every value checked against its range
	 * first) */
	const char *id, *at;
	cm_map_builder *b;
	const cm_map *m;
	cm_square *sq;
	/* per square, what the squares and edge_prints rows claimed: bit 0 a
	 * row, bits 1..4 a print row of side N, E, S, W */
	uint8_t *seen;
	/* formats 2 and later: map_grids decoded, per square its kind and
	 * its print byte N + 4E + 16S + 64W (the model is made from them) */
	uint8_t *kinds, *prints;
	/* the packed grid view (want_grid): records, and the squares with rows */
	bool want_grid;
	uint8_t *grid;
	size_t *rows, n_rows, cap_rows;
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
	cm_diag_scope s;
	cm_diag_scope_init(&s, r->d, r->p->path);
	s.rule = "CM0407";
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(&s, NULL, 0, 0, at, fmt, ap);
	va_end(ap);
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
	if (cm__pack_stmt(r->p, sql, &st) != SQLITE_OK) {
		int e = cm__pack_db_fail(r->d, r->p->db, r->p->path, "cannot read the pack");
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
		int e = cm__pack_db_fail(r->d, r->p->db, r->p->path, "cannot read the pack");
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

/* A text of at most CM_TEXT_MAX bytes without NUL bytes, copied into *out;
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
	if (n > CM_TEXT_MAX || memchr(t, 0, (size_t)n)) {
		rd_bad(r, "%s is longer than %d bytes or holds a NUL byte", what, CM_TEXT_MAX);
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
	if (!col_int(r, st, c, "sequence number", 0, CM_ITEMS_MAX, &v))
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
	if (n >= CM_ITEMS_MAX) {
		rd_bad(r, "more than %zu entries", (size_t)CM_ITEMS_MAX);
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
		                      CM_ITEMS_MAX);
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
		char **m = rd_next(r, mt->st, mt->c0, (void **)&t->markers, &t->n_markers, &cap, sizeof *m, CM_ITEMS_MAX);
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
	cm__pack_release(r->p, t);
	return have;
}


/* ---- tile sets ---- */

/* tilesets: the set's own row. */
static void read_set_row(rd *r, cm_tileset *set, const char *id)
{
	sqlite3_stmt *st = rd_prepare(r, "SELECT name, base, total_c1, total_c2, total_c3 FROM tilesets WHERE id = ?");
	if (!st)
		return;
	rd_bind(st, id, -1, -1);
	long long v;
	if (!rd_step(r, st)) {
		if (!r->rc)
			r->rc = CM_ENOTFOUND;
	} else if (col_text(r, st, 0, "name", true, &set->name) && col_bool(r, st, 1, "base", &set->base)) {
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			if (col_opt_int(r, st, 2 + e, "declared total", CM_COUNT_MAX, &v))
				set->total[e] = (int)v;
	}
	cm__pack_release(r->p, st);
}

/* tile_types, each tile with its rows of features, contacts and
 * tile_markers, each of those tables read in one scan for the whole set
 * (tile_rows, their key the tile's seq and 0). */
static void read_tile_types(rd *r, cm_tileset *set, const char *id, const char *where)
{
	char w[512];
	size_t cap = 0;
	long long v;
	sqlite3_stmt *ts = rd_prepare(r, "SELECT seq, id, name, count_c1, count_c2, count_c3, start FROM tile_types"
	                                 " WHERE tileset_id = ? ORDER BY seq");
	sqlite3_stmt *fs = rd_prepare(r, "SELECT tile_seq, 0, seq, kind, local_id, slots, arms, cathedral, inn, good,"
	                                 " touches FROM features WHERE tileset_id = ? ORDER BY tile_seq, seq");
	sqlite3_stmt *cs = rd_prepare(r, "SELECT tile_seq, 0, seq, features FROM contacts WHERE tileset_id = ?"
	                                 " ORDER BY tile_seq, seq");
	sqlite3_stmt *ms = NULL;
	if (!r->rc && table_present(r, "tile_markers"))
		ms = rd_prepare(r, "SELECT tile_seq, 0, seq, text FROM tile_markers WHERE tileset_id = ?"
		                   " ORDER BY tile_seq, seq");
	if (!r->rc) {
		rd_bind(ts, id, -1, -1);
		rd_bind(fs, id, -1, -1);
		rd_bind(cs, id, -1, -1);
		if (ms)
			rd_bind(ms, id, -1, -1);
	}
	tile_rows ft = { fs, false, false, 0, 0, 2 }, ct = { cs, false, false, 0, 0, 2 };
	tile_rows mt = { ms, false, false, 0, 0, 2 };
	while (!r->rc && rd_step(r, ts)) {
		snprintf(w, sizeof w, "%s, tile %zu", where, set->n_tiles);
		r->where = w;
		cm_tile_type *t = rd_next(r, ts, 0, (void **)&set->tiles, &set->n_tiles, &cap, sizeof *t, CM_ITEMS_MAX);
		if (!t || !col_text(r, ts, 1, "tile id", false, &t->id) || !col_text(r, ts, 2, "tile name", true, &t->name))
			break;
		snprintf(w, sizeof w, "%s, tile %.100s", where, t->id);
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			if (col_int(r, ts, 3 + e, "tile count", 0, CM_COUNT_MAX, &v))
				t->count[e] = (int)v;
		col_bool(r, ts, 6, "start", &t->start);
		read_tile(r, &ft, &ct, (long long)(set->n_tiles - 1), 0, t, w);
		if (ms)
			read_markers(r, &mt, (long long)(set->n_tiles - 1), t, w);
	}
	r->where = where;
	cm__pack_release(r->p, ts);
	cm__pack_release(r->p, fs);
	cm__pack_release(r->p, cs);
	cm__pack_release(r->p, ms);
}

int cm_pack_read_tileset(cm_pack *p, const char *id, cm_diags *d, cm_tileset **out)
{
	*out = NULL;
	if (!cm__pack_has_id(p->sets, p->n_sets, id))
		return CM_ENOTFOUND;
	char where[256];
	snprintf(where, sizeof where, "tile set %.100s", id);
	rd r = { .p = p, .d = d, .where = where };
	cm_tileset *set = calloc(1, sizeof *set);
	if (!set || !(set->id = cm_strdup(id)))
		rd_nomem(&r);
	if (!r.rc)
		read_set_row(&r, set, id);
	if (!r.rc)
		read_tile_types(&r, set, id, where);
	if (!r.rc && cm_tileset_check_model(set, "CM0407", p->path, d))
		r.rc = CM_EINVAL;
	if (r.rc)
		cm_tileset_free(set);
	else
		*out = set;
	return r.rc;
}

/* ---- a map: its row and its grid ---- */

/* The place of the row being read: square (x,y) of the map. */
static void rd_square(rd *r, int x, int y)
{
	r->where = NULL;
	r->it_what = NULL;
	r->sq_map = r->at;
	r->sq_x = x;
	r->sq_y = y;
}

/* The square at (x,y) of a row (columns c and c+1), checked to be inside
 * the grid; the row's place is then that square. */
static cm_square *col_square(rd *r, sqlite3_stmt *st, int c, int *px, int *py)
{
	long long x, y;
	r->where = r->at;
	if (!col_int(r, st, c, "x", 0, r->m->cols - 1, &x) || !col_int(r, st, c + 1, "y", 0, r->m->rows - 1, &y))
		return NULL;
	rd_square(r, (int)x, (int)y);
	*px = (int)x;
	*py = (int)y;
	return &r->sq[y * r->m->cols + x];
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

/* The kinds text (checked by grid_text) into r->kinds, every character
 * known. False (reported) on failure. */
static bool decode_kinds(rd *r, const unsigned char *kt, int cols, int rows)
{
	cm_charmap km;
	char kc[CM_SQ_KIND_COUNT];
	uint8_t kv[CM_SQ_KIND_COUNT];
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++) {
		kc[k] = cm_square_kind_char((cm_square_kind)k);
		kv[k] = (uint8_t)k;
	}
	cm_charmap_init(&km, kc, kv, CM_SQ_KIND_COUNT);
	const unsigned cpu = cm_cpu_features();
	for (int y = 0; y < rows; y++) {
		const unsigned char *kq = kt + (size_t)y * ((size_t)cols + 1);
		if (cm_charmap_decode(&km, kq, r->kinds + (size_t)y * (size_t)cols, (size_t)cols, cpu))
			continue;
		for (int x = 0; x < cols; x++)
			if (km.tab[kq[x]] == 0xff) {
				rd_square(r, x, y);
				rd_bad(r, "unknown character 0x%02x in the grid of square kinds", kq[x]);
				return false;
			}
	}
	return true;
}

/* What is wrong with the prints text at p (end its end), at square (x,y)
 * of row y: reported. op gives a print character's kind. */
static void prints_error(rd *r, const unsigned char *p, const unsigned char *end, const uint8_t *op, int x, int y)
{
	size_t left = (size_t)(end - p);
	const unsigned char *nl = memchr(p, '\n', left < 4 ? left : 4);
	rd_square(r, x, y);
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
}

/* The prints text pt (len bytes) into r->prints, every character known.
 * In format 4 it is dense (a square without a print is one '.',
 * schemas/pack.md), in formats 2 and 3 four characters a square. False
 * (reported) on failure. */
static bool decode_prints(rd *r, const unsigned char *pt, size_t len, int cols, int rows, bool dense)
{
	uint8_t op[256]; /* a print character's kind */
	memset(op, 0xff, sizeof op);
	for (int k = 0; k < 4; k++)
		op[(unsigned char)CM__PACK_PRINT_CHARS[k]] = (uint8_t)k;
	const unsigned char *p = pt, *end = pt + len;
	/* eight squares without a print: "........", or 32 '-' before format 4 */
	static const char blank4[] = "--------------------------------";
	const char *blank = dense ? "........" : blank4;
	size_t blank_len = dense ? 8 : 32;
	uint64_t dots8;
	memcpy(&dots8, "........", 8);
	uint32_t last = 0;  /* the last square's four characters, when has_last */
	uint64_t last2 = 0; /* the same twice */
	uint8_t last_pb = 0;
	bool has_last = false;
	for (int y = 0; y < rows; y++) {
		uint8_t *pr = r->prints + (size_t)y * (size_t)cols;
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
			} else {
				prints_error(r, p, end, op, x, y);
				return false;
			}
		}
		if (p >= end || *p != '\n') {
			r->where = r->at;
			rd_bad(r, "row %d of the grid of edge print kinds does not end after %d squares", y, cols);
			return false;
		}
		p++;
	}
	if (p != end) {
		r->where = r->at;
		rd_bad(r, "the grid of edge print kinds has %zu bytes after its last row", (size_t)(end - p));
		return false;
	}
	return true;
}

/* map_grids (formats 2 and later), before the model is made: the map's
 * row, its texts decoded into r->kinds and r->prints, every character
 * checked. False (reported) on failure. */
static bool read_grid_texts(rd *r, int cols, int rows)
{
	r->where = r->at;
	sqlite3_stmt *st = rd_prepare(r, "SELECT kinds, prints FROM map_grids WHERE map_id = ?");
	if (!st)
		return false;
	rd_bind(st, r->id, -1, -1);
	bool ok = false, dense = r->p->version >= 4;
	const unsigned char *kt = NULL, *pt = NULL;
	size_t n = (size_t)cols * (size_t)rows;
	if (!rd_step(r, st)) {
		if (!r->rc)
			rd_bad(r, "no grid of square kinds is stored (map_grids)");
	} else if ((kt = grid_text(r, cols, rows, st, 0, "square kinds", 1)) != NULL) {
		if (!(r->kinds = malloc(n)) || !(r->prints = malloc(n)))
			rd_nomem(r);
		else if (!decode_kinds(r, kt, cols, rows))
			;
		else if (!dense)
			pt = grid_text(r, cols, rows, st, 1, "edge print kinds", 4);
		else if (sqlite3_column_type(st, 1) != SQLITE_TEXT)
			rd_bad(r, "the grid of edge print kinds is not a text");
		else if (!(pt = sqlite3_column_text(st, 1)))
			rd_nomem(r);
		ok = pt && decode_prints(r, pt, (size_t)sqlite3_column_bytes(st, 1), cols, rows, dense);
	}
	cm__pack_release(r->p, st);
	return ok;
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

/* maps, the columns after cols and rows: setup, rules, name, image and
 * legend into the builder. */
static void read_map_fields(rd *r, sqlite3_stmt *st)
{
	static const char *const setup[4] = { "start squares used", "tiles min", "tiles max", "followers" };
	long long v[4];
	for (int i = 0; i < 4; i++)
		if (!col_int(r, st, 3 + i, setup[i], 0, CM_COUNT_MAX, &v[i]))
			v[i] = 0;
	cm_setup su = { (int)v[0], (int)v[1], (int)v[2], (int)v[3], 0 };
	cm_map_builder_set_setup(r->b, &su);
	int ed = 0, farmers = 0;
	char *name = NULL, *image = NULL, *legend = NULL;
	cm_rules rules = *cm_map_rules(r->m), *ru = &rules;
	if (col_text(r, st, 2, "name", true, &name) &&
	    col_name(r, st, 7, "edition", n_edition, 0, CM_EDITION_COUNT, &ed) &&
	    col_bool(r, st, 8, "tiny city", &ru->tiny_city) &&
	    col_name(r, st, 9, "farmers rule", n_edition, CM_EDITION_C1, CM_EDITION_C2 + 1, &farmers) &&
	    col_bool(r, st, 10, "farmers with big cities", &ru->farmers_bigcity) &&
	    col_bool(r, st, 11, "town extra turn", &ru->town_extra_turn) &&
	    col_bool(r, st, 12, "town cost", &ru->town_cost) &&
	    col_bool(r, st, 13, "town road bonus", &ru->town_road_bonus) &&
	    col_bool(r, st, 14, "abbey at the edge", &ru->abbey_edge) &&
	    col_text(r, st, 15, "image", true, &image) && col_text(r, st, 16, "legend", true, &legend)) {
		ru->edition = (cm_edition)ed;
		ru->farmers = farmers == CM_EDITION_C1 ? CM_FARMERS_C1 : CM_FARMERS_C2;
	}
	cm_map_builder_set_rules(r->b, ru);
	if (cm_map_builder_set_name(r->b, name) || cm_map_builder_set_image(r->b, image) ||
	    cm_map_builder_set_legend(r->b, legend))
		rd_nomem(r);
	free(name);
	free(image);
	free(legend);
}

/* maps: the map's row, and in formats 2 and later its map_grids row after
 * cols and rows (the squares are then made with their kinds and print
 * kinds in one pass): the builder in r->b. */
static void read_map_row(rd *r)
{
	sqlite3_stmt *st = rd_prepare(r, "SELECT cols, rows, name, starts_used, tiles_min, tiles_max,"
	                                 " followers, edition, tiny_city, farmers, farmers_bigcity,"
	                                 " town_extra_turn, town_cost, town_road_bonus, abbey_edge,"
	                                 " image, legend FROM maps WHERE id = ?");
	if (!st)
		return;
	rd_bind(st, r->id, -1, -1);
	long long cols, rows;
	if (!rd_step(r, st)) {
		if (!r->rc)
			r->rc = CM_ENOTFOUND;
	} else if (col_int(r, st, 0, "cols", 1, CM_GRID_MAX, &cols) && col_int(r, st, 1, "rows", 1, CM_GRID_MAX, &rows) &&
	           (r->p->version < 2 || read_grid_texts(r, (int)cols, (int)rows))) {
		if ((r->p->version >= 2 ? new_grid(&r->b, (int)cols, (int)rows, r->kinds, r->prints)
		                        : cm_map_builder_new((int)cols, (int)rows, &r->b)) != 0 ||
		    cm_map_builder_set_id(r->b, r->id)) {
			rd_nomem(r);
		} else {
			r->m = cm__map_builder_view(r->b);
			r->sq = cm__map_builder_grid(r->b);
			r->where = r->at;
			read_map_fields(r, st);
		}
	}
	cm__pack_release(r->p, st);
}

/* ---- a map: one function per table ---- */

/* islands or bigcities, seq 0..n-1, into the builder: the query gives
 * seq, name and, for islands, a title. */
static void read_names(rd *r, const char *sql, const char *what, bool island)
{
	sqlite3_stmt *st = rd_prepare(r, sql);
	size_t n = 0;
	if (!st)
		return;
	rd_bind(st, r->id, -1, -1);
	while (!r->rc && rd_step(r, st)) {
		rd_item(r, r->at, what, n);
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
	r->where = r->at;
	cm__pack_release(r->p, st);
}

/* squares: what a square carries besides its kind and print kinds; its
 * kind is a claim (formats 2 and 3) the grid must confirm (merge_grid). */
static void read_squares(rd *r)
{
	const cm_map *m = r->m;
	sqlite3_stmt *st = rd_prepare(r, "SELECT x, y, kind, name, arms, island, bigcity FROM squares"
	                                 " WHERE map_id = ? ORDER BY y, x");
	if (!st)
		return;
	rd_bind(st, r->id, -1, -1);
	int x, y;
	while (!r->rc && rd_step(r, st)) {
		cm_square *s = col_square(r, st, 0, &x, &y);
		if (!s)
			continue;
		if (r->seen[y * m->cols + x] & 1) {
			rd_bad(r, "square stored twice");
			continue;
		}
		r->seen[y * m->cols + x] |= 1;
		int kind = 0;
		long long arms = 0, island = -1, bigcity = -1;
		char *name = NULL;
		if (col_name(r, st, 2, "square kind", n_square, 0, CM_SQ_KIND_COUNT, &kind) &&
		    col_text(r, st, 3, "name", true, &name) && col_int(r, st, 4, "arms", 0, 255, &arms) &&
		    col_opt_int(r, st, 5, "island", (long long)m->n_islands - 1, &island) &&
		    col_opt_int(r, st, 6, "big city", (long long)m->n_bigcities - 1, &bigcity)) {
			s->kind = (uint8_t)kind;
			s->arms = (uint8_t)arms;
			s->island = (int)island;
			s->bigcity = (int)bigcity;
		}
		if (name && cm_map_builder_set_square_name(r->b, x, y, name))
			rd_nomem(r);
		free(name);
	}
	cm__pack_release(r->p, st);
}

/* square_markers: a stored square's markers, in order. */
static void read_square_markers(rd *r)
{
	const cm_map *m = r->m;
	sqlite3_stmt *st = rd_prepare(r, "SELECT x, y, seq, text FROM square_markers WHERE map_id = ?"
	                                 " ORDER BY y, x, seq");
	if (!st)
		return;
	rd_bind(st, r->id, -1, -1);
	int x, y;
	while (!r->rc && rd_step(r, st)) {
		if (!col_square(r, st, 0, &x, &y))
			continue;
		if (!(r->seen[y * m->cols + x] & 1)) {
			rd_bad(r, "marker on a square that is not stored");
			continue;
		}
		size_t n_markers;
		cm_map_square_markers(m, x, y, &n_markers);
		char *text = NULL;
		if (rd_seq(r, st, 2, n_markers) && col_text(r, st, 3, "marker", false, &text) &&
		    cm_map_builder_add_marker(r->b, x, y, text))
			rd_nomem(r);
		free(text);
	}
	cm__pack_release(r->p, st);
}

/* edge_prints: a stored square's prints with arms or a label; the kind is
 * a claim the grid must confirm (merge_grid). */
static void read_edge_prints(rd *r)
{
	const cm_map *m = r->m;
	sqlite3_stmt *st = rd_prepare(r, "SELECT x, y, side, kind, arms, label FROM edge_prints WHERE map_id = ?"
	                                 " ORDER BY y, x, side");
	if (!st)
		return;
	rd_bind(st, r->id, -1, -1);
	int x, y;
	while (!r->rc && rd_step(r, st)) {
		cm_square *s = col_square(r, st, 0, &x, &y);
		int side = 0, kind = 0;
		long long arms = 0;
		if (!s || !col_name(r, st, 2, "side", n_side, 0, 4, &side))
			continue;
		uint8_t bit = (uint8_t)(2u << side), *seen = &r->seen[y * m->cols + x];
		if (!(*seen & 1) || (*seen & bit)) {
			rd_bad(r, "edge print on side %s stored twice or on a square that is not stored",
			       cm_side_name((cm_side)side));
			continue;
		}
		*seen |= bit;
		if (!col_name(r, st, 3, "edge print kind", n_print, 0, CM_PRINT_CITY + 1, &kind))
			continue;
		char *label = NULL;
		bool ok = col_int(r, st, 4, "arms", 0, 255, &arms) && col_text(r, st, 5, "label", true, &label);
		if (label && cm_map_builder_set_print_label(r->b, x, y, (cm_side)side, label))
			rd_nomem(r);
		free(label);
		if (ok) {
			s->print[side].kind = (uint8_t)kind;
			s->print[side].arms = (uint8_t)arms;
		}
	}
	cm__pack_release(r->p, st);
}

/* bigcity_pieces, each piece with its rows of bigcity_features and
 * bigcity_contacts, each of those tables read in one scan for the whole
 * map (tile_rows, their key the big city and the piece). */
static void read_bigcity_pieces(rd *r)
{
	const cm_map *m = r->m;
	char w[600];
	sqlite3_stmt *pc = rd_prepare(r, "SELECT bigcity, seq, x, y FROM bigcity_pieces WHERE map_id = ?"
	                                 " ORDER BY bigcity, seq");
	sqlite3_stmt *fs = rd_prepare(r, "SELECT bigcity, piece, seq, kind, local_id, slots, arms, cathedral, inn,"
	                                 " good, touches FROM bigcity_features WHERE map_id = ?"
	                                 " ORDER BY bigcity, piece, seq");
	sqlite3_stmt *cs = rd_prepare(r, "SELECT bigcity, piece, seq, features FROM bigcity_contacts WHERE map_id = ?"
	                                 " ORDER BY bigcity, piece, seq");
	if (!r->rc) {
		rd_bind(pc, r->id, -1, -1);
		rd_bind(fs, r->id, -1, -1);
		rd_bind(cs, r->id, -1, -1);
	}
	tile_rows ft = { fs, false, false, 0, 0, 2 }, ct = { cs, false, false, 0, 0, 2 };
	long long prev = -1;
	while (!r->rc && rd_step(r, pc)) {
		long long b, px, py;
		r->where = r->at;
		if (!col_int(r, pc, 0, "big city", 0, (long long)m->n_bigcities - 1, &b))
			break;
		const cm_bigcity *bc = &m->bigcities[b];
		if (b < prev || (b != prev && bc->n_pieces)) {
			rd_bad(r, "big city pieces out of order");
			break;
		}
		prev = b;
		snprintf(w, sizeof w, "%s, big city %lld, piece %zu", r->at, b, bc->n_pieces);
		r->where = w;
		if (!rd_seq(r, pc, 1, bc->n_pieces) || !col_int(r, pc, 2, "x", -1, CM_GRID_MAX, &px) ||
		    !col_int(r, pc, 3, "y", -1, CM_GRID_MAX, &py))
			break;
		cm_tile_type t;
		memset(&t, 0, sizeof t);
		read_tile(r, &ft, &ct, b, (long long)bc->n_pieces, &t, w);
		if (cm_map_builder_add_piece(r->b, (size_t)b, (int)px, (int)py, &t))
			rd_nomem(r);
		cm_tile_type_clear(&t);
	}
	r->where = r->at;
	cm__pack_release(r->p, pc);
	cm__pack_release(r->p, fs);
	cm__pack_release(r->p, cs);
}

/* ferries, seq 0..n-1. */
static void read_ferries(rd *r)
{
	const cm_map *m = r->m;
	sqlite3_stmt *st = rd_prepare(r, "SELECT seq, name, x1, y1, side1, x2, y2, side2, arms FROM ferries"
	                                 " WHERE map_id = ? ORDER BY seq");
	if (!st)
		return;
	rd_bind(st, r->id, -1, -1);
	while (!r->rc && rd_step(r, st)) {
		rd_item(r, r->at, "ferry", m->n_ferries);
		if (!rd_seq(r, st, 0, m->n_ferries))
			break;
		cm_ferry f;
		memset(&f, 0, sizeof f);
		long long c[5] = { 0 };
		int s1 = 0, s2 = 0;
		if (col_text(r, st, 1, "name", true, &f.name) && col_int(r, st, 2, "x1", -1, CM_GRID_MAX, &c[0]) &&
		    col_int(r, st, 3, "y1", -1, CM_GRID_MAX, &c[1]) && col_name(r, st, 4, "side", n_side, 0, 4, &s1) &&
		    col_int(r, st, 5, "x2", -1, CM_GRID_MAX, &c[2]) && col_int(r, st, 6, "y2", -1, CM_GRID_MAX, &c[3]) &&
		    col_name(r, st, 7, "side", n_side, 0, 4, &s2) && col_int(r, st, 8, "arms", 0, 255, &c[4])) {
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
	cm__pack_release(r->p, st);
}

/* deck_entries, seq 0..n-1. */
static void read_deck(rd *r)
{
	const cm_map *m = r->m;
	sqlite3_stmt *st = rd_prepare(r, "SELECT seq, tileset_id, tile_id, count FROM deck_entries WHERE map_id = ?"
	                                 " ORDER BY seq");
	if (!st)
		return;
	rd_bind(st, r->id, -1, -1);
	while (!r->rc && rd_step(r, st)) {
		rd_item(r, r->at, "deck entry", m->n_deck);
		if (!rd_seq(r, st, 0, m->n_deck))
			break;
		cm_deck_entry e;
		memset(&e, 0, sizeof e);
		long long count;
		if (col_text(r, st, 1, "tile set", false, &e.tileset) && col_text(r, st, 2, "tile", true, &e.tile) &&
		    col_int(r, st, 3, "count", -1, CM_COUNT_MAX, &count))
			e.count = (int)count;
		if (cm_map_builder_add_deck_entry(r->b, &e))
			rd_nomem(r);
		free(e.tileset);
		free(e.tile);
	}
	cm__pack_release(r->p, st);
}

/* map_about: the map's <about> fields (a pack older than the table has none). */
static void read_about(rd *r)
{
	if (!table_present(r, "map_about"))
		return;
	sqlite3_stmt *st = rd_prepare(r, "SELECT key, value FROM map_about WHERE map_id = ? ORDER BY key");
	if (!st)
		return;
	rd_bind(st, r->id, -1, -1);
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
	cm__pack_release(r->p, st);
}

/* The square with rows at i joins the grid view's list. */
static void view_list(rd *r, size_t i)
{
	if (r->n_rows == r->cap_rows) {
		size_t nc = r->cap_rows ? 2 * r->cap_rows : 64;
		size_t *np = realloc(r->rows, nc * sizeof *np);
		if (!np) {
			rd_nomem(r);
			return;
		}
		r->rows = np;
		r->cap_rows = nc;
	}
	r->rows[r->n_rows++] = i;
}

/* Formats 2 and later, once the rows are read: the squares and
 * edge_prints rows claimed the kinds of the squares and sides marked in
 * r->seen; the grid (r->kinds, r->prints, which the model was made with)
 * must agree. The packed grid view (records, and the squares with rows)
 * is made on the way when wanted. */
static void merge_grid(rd *r)
{
	const cm_map *m = r->m;
	const uint8_t *kinds = r->kinds, *pb = r->prints, *seen = r->seen;
	size_t n = (size_t)m->cols * (size_t)m->rows;
	r->where = r->at;
	if (r->want_grid) {
		if (!(r->grid = malloc(2 * n + 1))) {
			rd_nomem(r);
			return;
		}
		cm_bytes_interleave(kinds, pb, r->grid, n, cm_cpu_features());
	}
	for (size_t i = 0; i < n && !r->rc; i++) {
		if (!seen[i]) {
			if ((i & 7) == 0 && i + 8 <= n) { /* eight without a row */
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
			rd_square(r, x, y);
			rd_bad(r, "square kind %s differs from the grid's %s", cm_square_kind_name((cm_square_kind)s->kind),
			       cm_square_kind_name((cm_square_kind)kinds[i]));
			break;
		}
		s->kind = kinds[i];
		for (int e = 0; e < 4 && !r->rc; e++) {
			uint8_t v = (uint8_t)(pb[i] >> (2 * e) & 3);
			if ((seen[i] & (2u << e)) && s->print[e].kind != v) {
				rd_square(r, x, y);
				rd_bad(r, "edge print kind %s on side %s differs from the grid's %s",
				       cm_print_kind_name((cm_print_kind)s->print[e].kind), cm_side_name((cm_side)e),
				       cm_print_kind_name((cm_print_kind)v));
			}
			s->print[e].kind = v;
		}
		if (!r->rc && r->grid)
			view_list(r, i);
	}
	r->where = r->at;
}

/* Every table of the map after its row, in order. */
static void read_map_tables(rd *r)
{
	const cm_map *m = r->m;
	if (!(r->seen = calloc((size_t)m->cols * (size_t)m->rows, 1))) {
		rd_nomem(r);
		return;
	}
	read_names(r, "SELECT seq, name, title FROM islands WHERE map_id = ? ORDER BY seq", "island", true);
	if (!r->rc)
		read_names(r, "SELECT seq, name FROM bigcities WHERE map_id = ? ORDER BY seq", "big city", false);
	if (!r->rc)
		read_squares(r);
	if (!r->rc)
		read_square_markers(r);
	if (!r->rc)
		read_edge_prints(r);
	if (!r->rc)
		read_bigcity_pieces(r);
	if (!r->rc)
		read_ferries(r);
	if (!r->rc)
		read_deck(r);
	if (!r->rc && r->p->version >= 2)
		merge_grid(r);
	r->where = r->at;
	if (!r->rc)
		read_about(r);
}

int cm__pack_read_map(cm_pack *p, const char *id, cm_diags *d, cm_map **out, cm_map_grid *grid)
{
	*out = NULL;
	if (grid)
		memset(grid, 0, sizeof *grid);
	if (!cm__pack_has_id(p->maps, p->n_maps, id))
		return CM_ENOTFOUND;
	char where[256];
	snprintf(where, sizeof where, "map %.100s", id);
	rd r = { .p = p, .d = d, .where = where, .id = id, .at = where, .want_grid = grid != NULL };
	cm_map *m = NULL;
	read_map_row(&r);
	if (!r.rc)
		read_map_tables(&r);
	/* every square is in range by now (kinds and print kinds from their
	 * names or the grid's characters, island and big-city indices checked
	 * against the lists read before them): the builder's one model check
	 * skips the grid's pass */
	if (!r.rc) {
		if (cm__map_builder_finish(r.b, "CM0407", p->path, d, CM__FINISH_GRID_OK, &m))
			r.rc = CM_EINVAL;
		r.b = NULL;
	}
	cm_map_builder_free(r.b);
	free(r.seen);
	free(r.kinds);
	free(r.prints);
	if (!r.rc && grid && r.grid) {
		grid->grid = r.grid;
		grid->sq = r.rows;
		grid->n_sq = r.n_rows;
	} else {
		free(r.grid);
		free(r.rows);
	}
	if (r.rc)
		return r.rc;
	*out = m;
	return 0;
}

int cm_pack_read_map(cm_pack *p, const char *id, cm_diags *d, cm_map **out)
{
	return cm__pack_read_map(p, id, d, out, NULL);
}
