/* SPDX-License-Identifier: MIT */
/* pack_write.c: writing a pack (carcamap/pack.h cm_pack_write, and a
 * binary stored into one, cm_pack_put_map_binary): the inputs checked, then
 * every row written in one transaction into a temporary file beside the
 * target, which is synced and renamed over it (the shared atomic writer of
 * base/file.c), so a failed run never leaves a partial or damaged pack.
 * Rows go in batches and in id order: the bytes depend on the content
 * only. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "carcamap/catalog.h"
#include "carcamap/export.h"
#include "export/export.h"
#include "io/pack_db_int.h"
#include "base/bytes_int.h"
#include "base/cpu_int.h"
#include "base/idindex_int.h"
#include "base/util_int.h"
#include "model/map_hash_int.h"
#include "model/map_int.h"

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
static int put_grid(wr *w, const cm_map *m, const cm_map_grid *gh, size_t **stored, size_t *n_stored)
{
	size_t rows = (size_t)m->rows, cols = (size_t)m->cols, n = 0;
	const unsigned cpu = cm_cpu_features();
	/* both texts in one block (5 MB for a million squares: huge pages) */
	size_t g_len = rows * (cols + 1) + 1;
	char *g = cm_malloc_big(1, g_len + rows * (4 * cols + 1) + 1), *pr = g ? g + g_len : NULL;
	size_t *st = malloc((gh->n_sq + 1) * sizeof *st);
	if (!g || !st) {
		free(g);
		free(st);
		return CM_ENOMEM;
	}
	char kch[256], pch[256][4];
	memset(kch, '?', sizeof kch);
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++)
		kch[k] = cm_square_kind_char((cm_square_kind)k);
	for (int v = 0; v < 256; v++)
		for (int e = 0; e < 4; e++)
			pch[v][e] = CM__PACK_PRINT_CHARS[(v >> (2 * e)) & 3];
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
	if (rc)
		free(st);
	else {
		*stored = st;
		*n_stored = n;
	}
	return rc;
}

static int put_map(wr *w, const cm_map *m, const uint8_t hash[32], const cm_map_grid *gh)
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

/* Every check cm_pack_write makes before touching the file system. */
static int check_inputs(const cm_map *const *maps, size_t n_maps, const cm_tileset *const *sets, size_t n_sets, cm_diags *d)
{
	/* what every reader takes (load_ids): a pack of more would be written
	 * and then refused */
	if (n_maps > CM_ITEMS_MAX || n_sets > CM_ITEMS_MAX) {
		cm_diags_check(d, "CM0411", NULL, 0, 0, NULL, "a pack holds at most %d maps and %d tile sets, not %zu and %zu",
		               CM_ITEMS_MAX, CM_ITEMS_MAX, n_maps, n_sets);
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
	const char *dup = cm_first_duplicate(ids, n_maps);
	if (dup)
		cm_diags_check(d, "CM0410", NULL, 0, 0, NULL, "map id %.100s occurs twice", dup);
	for (size_t i = 0; i < n_sets; i++)
		ids[i] = sets[i]->id;
	const char *dup2 = cm_first_duplicate(ids, n_sets);
	if (dup2)
		cm_diags_check(d, "CM0410", NULL, 0, 0, NULL, "tile set id %.100s occurs twice", dup2);
	free(ids);
	int bad = dup || dup2;
	/* the sets by id, and each one's tiles by id, for the deck entries:
	 * their lookups cost the ids, not the number of sets or tiles */
	const cm_tileset **byid = malloc((n_sets + 1) * sizeof *byid);
	cm_idindex *tiles = calloc(n_sets + 1, sizeof *tiles);
	if (!byid || !tiles) {
		free(byid);
		free(tiles);
		return CM_ENOMEM;
	}
	if (n_sets)
		memcpy(byid, sets, n_sets * sizeof *byid);
	qsort(byid, n_sets, sizeof *byid, cm__tileset_cmp_id);
	int oom = 0;
	for (size_t i = 0; i < n_sets && !oom; i++)
		for (size_t t = 0; t < byid[i]->n_tiles && !oom; t++)
			if (cm_idindex_find(&tiles[i], byid[i]->tiles[t].id) == CM_IDINDEX_NONE)
				oom = cm_idindex_add(&tiles[i], byid[i]->tiles[t].id);
	for (size_t i = 0; i < n_maps && !oom; i++)
		for (size_t k = 0; k < maps[i]->n_deck; k++) {
			const cm_deck_entry *e = &maps[i]->deck[k];
			/* the first set of the id, as find_set gives (a duplicate is CM0410) */
			const cm_tileset *ts = dup2 ? cm__tileset_find_in(sets, n_sets, e->tileset)
			                            : cm__tileset_find_sorted(byid, n_sets, e->tileset);
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
				const cm_tileset *const *at = bsearch(&ts, byid, n_sets, sizeof *byid, cm__tileset_cmp_id);
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
static int put_binary(wr *w, const cm_map *m, const cm_tileset *const *sets, size_t n_sets, const cm_map_grid *g)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	cm_export_bin_opts o = { CM_EXPORT_BIN_MAJOR, g };
	int rc = cm__export_bin_encode(m, sets, n_sets, &o, &buf, &len); /* check_inputs checked m */
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

/* A map to write: its packed grid view (shared by the hash, the grid
 * texts and the client binary: the map's own when its builder's structure
 * pass made one, lent, else made here on one pass over its squares) and
 * its hash. */
typedef struct {
	const cm_map *m;
	cm_map_grid g;
	bool lent;
	uint8_t hash[32];
} to_write;

static int cmp_to_write(const void *a, const void *b)
{
	return strcmp(((const to_write *)a)->m->id, ((const to_write *)b)->m->id);
}

/* The maps' grid views and hashes into tw, sorted by id (sorted insertion
 * makes the file's bytes depend on the content only); sets sorted by id. */
static int prepare_maps(const cm_map *const *maps, size_t n_maps, const cm_tileset *const *sets, size_t n_sets,
                        to_write *tw)
{
	int rc = 0;
	for (size_t i = 0; i < n_maps && !rc; i++) {
		const cm_map_grid *v = cm__map_view(maps[i]);
		tw[i].m = maps[i];
		tw[i].lent = v != NULL;
		if (v)
			tw[i].g = *v;
		else
			rc = cm__map_grid_build(maps[i], &tw[i].g);
	}
	if (rc)
		return rc;
	qsort(tw, n_maps, sizeof *tw, cmp_to_write);
	for (size_t i = 0; i < n_maps && !rc; i++)
		rc = cm__map_hash_grid(tw[i].m, sets, n_sets, true, &tw[i].g, CM_MAP_HASH_VERSION, tw[i].hash);
	return rc;
}

/* Creates the tables and writes every row into w's database, in one
 * transaction: the meta rows, the sets, the maps, then each map's binary.
 * No journal: on failure the whole temporary file is thrown away, and the
 * pack is renamed into place only once complete. Foreign keys are not
 * enforced row by row while writing (a parent lookup per square row):
 * check_inputs has checked every reference, and every reader runs
 * foreign_key_check on opening (cm_pack_open). The page cache is small
 * (512 KB): without a journal a page the cache lets go is written to the
 * file as it is, so a big map's megabytes of grid and binary pass
 * through the same few cache pages instead of each faulting in fresh
 * memory (7,204 -> 5,878 page faults for a 1000x1000 map, the same file
 * and instructions), while the b-trees' interior pages, used most, stay. */
static int write_rows(wr *w, const to_write *tw, size_t n_maps, const cm_tileset *const *sets, size_t n_sets)
{
	const char *schema = cm__pack_sql();
	if (!schema)
		return CM_EINTERNAL;
	if (sqlite3_exec(w->db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA foreign_keys=OFF;"
	                        " PRAGMA cache_size=-512; BEGIN;", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(w->db, schema, NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(w, "create tables");
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v2(w->db, insert_sql[i], -1, &w->st[i], NULL) != SQLITE_OK)
			return sql_fail(w, "prepare");
	int rc = ROW(w, S_META, C_TEXT("format"), C_TEXT("carcamap-pack"));
	if (!rc)
		rc = ROW(w, S_META, C_TEXT("generator"), C_TEXT("carcamap " CM_VERSION_STRING));
	for (size_t i = 0; i < n_sets && !rc; i++)
		rc = put_tileset(w, sets[i]);
	for (size_t i = 0; i < n_maps && !rc; i++)
		rc = put_map(w, tw[i].m, tw[i].hash, &tw[i].g);
	if (!rc)
		rc = flush(w); /* before map_binary's rows */
	for (size_t i = 0; i < n_maps && !rc; i++) {
		/* the map's own sets: its deck's lookups cost its sets, not the pack's */
		const cm_tileset **used = NULL;
		size_t n_used = 0;
		rc = cm__map_deck_sets(tw[i].m, sets, n_sets, true, &used, &n_used);
		if (!rc)
			rc = put_binary(w, tw[i].m, used, n_used, &tw[i].g);
		free(used);
	}
	if (!rc && sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = sql_fail(w, "commit");
	return rc;
}

static void wr_finalize(wr *w)
{
	for (int i = 0; i < S_COUNT; i++) {
		sqlite3_finalize(w->st[i]);
		sqlite3_finalize(w->batch[i]);
		w->st[i] = NULL;
		w->batch[i] = NULL;
	}
}

int cm_pack_write(const char *path, const cm_map *const *maps, size_t n_maps, const cm_tileset *const *sets_in,
                  size_t n_sets, cm_diags *d)
{
	int rc = 0, fd = -1;
	char *tmp = NULL;
	wr w = { .db = NULL, .d = d, .path = path };
	to_write *tw = calloc(n_maps + 1, sizeof *tw);
	const cm_tileset **sets = malloc((n_sets + 1) * sizeof *sets);
	if (!tw || !sets) {
		rc = CM_ENOMEM;
		goto out;
	}
	if (n_sets)
		memcpy(sets, sets_in, n_sets * sizeof *sets);
	if ((rc = check_inputs(maps, n_maps, sets, n_sets, d)) != 0)
		goto out;
	qsort(sets, n_sets, sizeof *sets, cm__tileset_cmp_id);
	if ((rc = prepare_maps(maps, n_maps, sets, n_sets, tw)) != 0 || (rc = tmp_create(path, d, &tmp, &fd)) != 0)
		goto out;
	if (sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = w.db ? sql_fail(&w, "open") : CM_ENOMEM;
		goto out;
	}
	if ((rc = write_rows(&w, tw, n_maps, sets, n_sets)) != 0)
		goto out;
	wr_finalize(&w);
	if (sqlite3_close(w.db) != SQLITE_OK) {
		rc = sql_fail(&w, "close");
		goto out;
	}
	w.db = NULL;
	rc = tmp_commit(tmp, fd, path, d);
	fd = -1;
out:
	wr_finalize(&w);
	sqlite3_close(w.db);
	if (fd >= 0)
		close(fd);
	if (rc && tmp)
		unlink(tmp);
	free(tmp);
	for (size_t i = 0; tw && i < n_maps; i++)
		if (!tw[i].lent)
			cm__map_grid_free(&tw[i].g);
	free(tw);
	free(sets);
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
	return cm__pack_put_map_binary_limited(path, id, format_version, data, len, CM__PACK_MAX_BLOB, d);
}

int cm__pack_put_map_binary_limited(const char *path, const char *id, int format_version, const void *data,
                                    size_t len, size_t max_len, cm_diags *d)
{
	cm_pack *p = NULL;
	char *tmp = NULL;
	int fd = -1;
	wr w = { .db = NULL, .d = d, .path = path };
	sqlite3_stmt *st = NULL;
	int rc = cm_pack_open(path, d, &p);
	if (rc)
		goto out;
	bool known = cm__pack_has_id(p->maps, p->n_maps, id);
	cm_pack_close(p);
	p = NULL;
	if (!known) {
		rc = CM_ENOTFOUND;
		goto out;
	}
	if (len > max_len) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL,
		             "binary encoding of %zu bytes is larger than the limit of %zu", len, max_len);
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
