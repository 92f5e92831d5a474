/* SPDX-License-Identifier: MIT */
/* test_pack.c: map packs (carcamap/pack.h): round trip, determinism, the
 * content hash, atomic writing, and hostile or damaged files. Packs are
 * written into a fresh temporary directory per test and changed with the
 * SQLite API to make the bad cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sqlite3.h>
#include "carcamap/catalog.h"
#include "carcamap/export.h"
#include "carcamap/pack.h"
#include "carcamap/workspace.h"
#include "base/sha256_int.h"
#include "export/export.h"
#include "io/pack_db_int.h"
#include "model/map_grid_int.h"
#include "model/map_int.h"
#include "genmap.h"
#include "util_files.h"
#include "util_model.h"
#include "model/map_builder_int.h"

/* A copy of m being built, written through the library's own view of
 * it (as a reader writes a map): changes no setter makes, for the hash's
 * tests. The copy is finished (and so checked) by the caller. */
static cm_map *raw_of(cm_map_builder *b)
{
	return (cm_map *)cm__map_builder_view(b);
}

static cm_square *raw_at(cm_map *m, int x, int y)
{
	return &m->squares[y * m->cols + x];
}

typedef struct {
	char *dir;
	char path[4200];
	cm_map *map;
	cm_tileset *sets[2];
	cm_diags *d;
} fx;

static int setup(void **state)
{
	fx *f = calloc(1, sizeof *f);
	f->dir = util_tempdir();
	assert_non_null(f->dir);
	snprintf(f->path, sizeof f->path, "%s/x.pack", f->dir);
	f->map = util_map_sample();
	f->sets[0] = util_tileset_inns(); /* unsorted on purpose */
	f->sets[1] = util_tileset_base();
	assert_int_equal(cm_diags_new(&f->d), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fx *f = *state;
	cm_map_free(f->map);
	cm_tileset_free(f->sets[0]);
	cm_tileset_free(f->sets[1]);
	cm_diags_free(f->d);
	util_rmtree(f->dir);
	free(f);
	return 0;
}

static int write_sample(fx *f, const char *path)
{
	return cm_pack_write(path, UTIL_MAPS(&f->map), 1, UTIL_SETS(f->sets), 2, f->d);
}

static void run_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
	                 SQLITE_OK);
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
	if (rc != SQLITE_OK)
		fprintf(stderr, "sql failed: %s: %s\n", sql, err ? err : "?");
	sqlite3_free(err);
	sqlite3_close(db);
	assert_int_equal(rc, SQLITE_OK);
}

/* Whether d holds a diagnostic with this rule whose where and message
 * contain the given parts (NULL matches anything). */
static int has_diag(const cm_diags *d, const char *rule, const char *where, const char *msg)
{
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if (rule && (!g->rule || strcmp(g->rule, rule) != 0))
			continue;
		if (where && (!g->where || !strstr(g->where, where)))
			continue;
		if (msg && (!g->message || !strstr(g->message, msg)))
			continue;
		return 1;
	}
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		fprintf(stderr, "  have: [%s] %s: %s\n", g->rule ? g->rule : "-", g->where ? g->where : "-",
		        g->message);
	}
	return 0;
}

static void test_pack__round_trip(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	assert_int_equal(cm_diags_count(f->d), 0);
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_map_count(p), 1);
	assert_string_equal(cm_pack_map_id(p, 0), "sample");
	assert_null(cm_pack_map_id(p, 1));
	assert_int_equal(cm_pack_tileset_count(p), 2);
	assert_string_equal(cm_pack_tileset_id(p, 0), "base");
	assert_string_equal(cm_pack_tileset_id(p, 1), "inns");

	char why[128] = "";
	cm_map *m = NULL;
	assert_int_equal(cm_pack_read_map(p, "sample", f->d, &m), 0);
	int eq = util_map_equal(f->map, m, why, sizeof why);
	if (!eq)
		fprintf(stderr, "map: %s\n", why);
	assert_true(eq);
	assert_true(cm_map_equal(f->map, m));
	assert_null(m->file);
	for (int i = 0; i < 2; i++) {
		cm_tileset *ts = NULL;
		assert_int_equal(cm_pack_read_tileset(p, f->sets[i]->id, f->d, &ts), 0);
		eq = util_tileset_equal(f->sets[i], ts, why, sizeof why);
		if (!eq)
			fprintf(stderr, "tile set %s: %s\n", f->sets[i]->id, why);
		assert_true(eq);
		cm_tileset_free(ts);
	}
	uint8_t stored[32], want[32];
	assert_int_equal(cm_pack_map_hash(p, "sample", stored), 0);
	assert_int_equal(cm_map_hash(f->map, UTIL_SETS(f->sets), 2, want), 0);
	assert_memory_equal(stored, want, 32);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	assert_int_equal(cm_diags_count(f->d), 0);

	cm_map *none = NULL;
	assert_int_equal(cm_pack_read_map(p, "nowhere", f->d, &none), CM_ENOTFOUND);
	assert_null(none);
	cm_tileset *nset = NULL;
	assert_int_equal(cm_pack_read_tileset(p, "sample", f->d, &nset), CM_ENOTFOUND);
	cm_map_free(m);
	cm_pack_close(p);
	cm_pack_close(NULL);

	/* the header fields the format promises */
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT (SELECT application_id FROM pragma_application_id),"
	                                        " (SELECT user_version FROM pragma_user_version),"
	                                        " (SELECT page_size FROM pragma_page_size)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), CM_PACK_APPLICATION_ID);
	assert_int_equal(sqlite3_column_int(st, 1), CM_PACK_VERSION);
	assert_int_equal(sqlite3_column_int(st, 2), 4096);
	sqlite3_finalize(st);
	/* format 2: every kind and print kind in map_grids, one character per
	 * square and a newline per row; the prints (format 4) one '.' for a
	 * square without a print, four (N E S W) for any other; a
	 * squares row only for a square with something else: 3 names, 2
	 * islands, 2 big-city pieces, the arms of the print at (4,1), the
	 * marker of the none square (0,4); an edge_prints row only for a
	 * print with arms or a label */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT kinds, prints FROM map_grids WHERE map_id = 'sample'", -1, &st,
	                                    NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "~~~~~~\n.S#L#I\n.#T##I\n.BB#S.\n......\n");
	assert_string_equal((const char *)sqlite3_column_text(st, 1),
	                    "......\n"
	                    ".---r..nc--.\n"
	                    "....-r--.\n"
	                    "......\n"
	                    "......\n");
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM squares), (SELECT count(*) FROM edge_prints)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 3 + 2 + 2 + 1 + 1);
	assert_int_equal(sqlite3_column_int(st, 1), 2);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Tile markers (a mini's print) are stored, read back and hashed; a tile
 * without any hashes as before; a pack from before the table (format 4
 * without tile_markers) still opens and reads as tiles without markers. */
static void test_pack__tile_markers(void **state)
{
	fx *f = *state;
	uint8_t plain[32], marked[32], stored[32];
	assert_int_equal(cm_map_hash(f->map, UTIL_SETS(f->sets), 2, plain), 0);
	cm_tile_type *t = &f->sets[1]->tiles[0];
	t->markers = calloc(2, sizeof *t->markers);
	assert_non_null(t->markers);
	t->markers[t->n_markers++] = strdup("gold-mine");
	t->markers[t->n_markers++] = strdup("crop-circle-club");
	assert_int_equal(cm_map_hash(f->map, UTIL_SETS(f->sets), 2, marked), 0);
	assert_memory_not_equal(plain, marked, 32);
	assert_int_equal(write_sample(f, f->path), 0);
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	cm_tileset *ts = NULL;
	assert_int_equal(cm_pack_read_tileset(p, f->sets[1]->id, f->d, &ts), 0);
	char why[128] = "";
	int eq = util_tileset_equal(f->sets[1], ts, why, sizeof why);
	if (!eq)
		fprintf(stderr, "tile set: %s\n", why);
	assert_true(eq);
	cm_tileset_free(ts);
	assert_int_equal(cm_pack_map_hash(p, "sample", stored), 0);
	assert_memory_equal(stored, marked, 32);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	cm_pack_close(p);
	/* a pack written before the table: no markers, and the map's hash,
	 * which covered them, no longer verifies */
	run_sql(f->path, "DROP TABLE tile_markers");
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_diags_count(f->d), 0);
	assert_int_equal(cm_pack_read_tileset(p, f->sets[1]->id, f->d, &ts), 0);
	assert_int_equal(ts->tiles[0].n_markers, 0);
	cm_tileset_free(ts);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0408", NULL, NULL));
	cm_pack_close(p);
}

static void test_pack__empty_pack(void **state)
{
	fx *f = *state;
	assert_int_equal(cm_pack_write(f->path, NULL, 0, NULL, 0, f->d), 0);
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_map_count(p), 0);
	assert_int_equal(cm_pack_tileset_count(p), 0);
	cm_pack_close(p);
}

/* The same inputs give the same bytes, whatever order they come in. */
static void test_pack__deterministic(void **state)
{
	fx *f = *state;
	char a[4300], b[4300];
	snprintf(a, sizeof a, "%s/a.pack", f->dir);
	snprintf(b, sizeof b, "%s/b.pack", f->dir);
	assert_int_equal(write_sample(f, a), 0);
	cm_tileset *swapped[2] = { f->sets[1], f->sets[0] };
	assert_int_equal(cm_pack_write(b, UTIL_MAPS(&f->map), 1, UTIL_SETS(swapped), 2, f->d), 0);
	size_t la, lb;
	char *ba = util_read_file(a, &la), *bb = util_read_file(b, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(ba, bb, la);
	free(ba);
	free(bb);
	uint8_t h1[32], h2[32];
	assert_int_equal(cm_map_hash(f->map, UTIL_SETS(f->sets), 2, h1), 0);
	assert_int_equal(cm_map_hash(f->map, UTIL_SETS(swapped), 2, h2), 0);
	assert_memory_equal(h1, h2, 32);
}

/* Any logical change changes the hash; file names and lines do not. */
static void test_pack__hash_follows_content(void **state)
{
	fx *f = *state;
	uint8_t base[32], h[32];
	assert_int_equal(cm_map_hash(f->map, UTIL_SETS(f->sets), 2, base), 0);
	const cm_map *m0 = f->map;
	cm_tileset *bs = f->sets[1];

	cm_map_builder *b = util_from(m0);
	cm_map *m = raw_of(b);
	assert_int_equal(cm_map_builder_set_file(b, "/somewhere/else.xml"), 0);
	assert_int_equal(cm_map_builder_set_line(b, 42), 0);
	m->squares[0].line = 7;
	assert_int_equal(cm_map_builder_set_image(b, "other.png"), 0);
	bs->line = 3;
	m = util_finish(b);
	assert_int_equal(cm_map_hash(m, UTIL_SETS(f->sets), 2, h), 0);
	assert_memory_equal(h, base, 32);
	cm_map_free(m);

	/* a change to the map: a copy changed (the map itself never changes),
	 * and the map's own hash, cached, still the same */
#define EXPECT_CHANGE(change)                                    \
	do {                                                         \
		b = util_from(m0);                                       \
		m = raw_of(b);                                           \
		change;                                                  \
		m = util_finish(b);                                      \
		assert_int_equal(cm_map_hash(m, UTIL_SETS(f->sets), 2, h), 0);      \
		assert_memory_not_equal(h, base, 32);                    \
		cm_map_free(m);                                          \
		assert_int_equal(cm_map_hash(m0, UTIL_SETS(f->sets), 2, h), 0);     \
		assert_memory_equal(h, base, 32);                        \
	} while (0)
	EXPECT_CHANGE(raw_at(m, 1, 2)->kind = CM_SQ_TOWN);
	EXPECT_CHANGE(raw_at(m, 4, 1)->print[CM_E].arms = 3);
	EXPECT_CHANGE(m->deck[1].count = 3);
	EXPECT_CHANGE(m->rules.town_cost = false);
	EXPECT_CHANGE(m->ferries[0].s2 = CM_N);
	EXPECT_CHANGE(m->bigcities[0].pieces[1].tile.contacts[0] = 1);
	/* a NULL name and an empty name are different content */
	EXPECT_CHANGE(m->islands[1].name = strdup(""));
	EXPECT_CHANGE(m->islands[1].title = strdup("Föhr"));
	/* the title is not the name: moving one into the other is a change */
	EXPECT_CHANGE((m->islands[1].name = m->islands[0].title, m->islands[0].title = NULL));
#undef EXPECT_CHANGE
	/* a change to a tile set the deck uses (sets are not the map's: the
	 * map's cached part of the hash holds none of them) */
#define EXPECT_CHANGE(change, undo)                              \
	do {                                                         \
		change;                                                  \
		assert_int_equal(cm_map_hash(m0, UTIL_SETS(f->sets), 2, h), 0);     \
		assert_memory_not_equal(h, base, 32);                    \
		undo;                                                    \
		assert_int_equal(cm_map_hash(m0, UTIL_SETS(f->sets), 2, h), 0);     \
		assert_memory_equal(h, base, 32);                        \
	} while (0)
	EXPECT_CHANGE(bs->tiles[1].count[2] = 9, bs->tiles[1].count[2] = 5);
	EXPECT_CHANGE(bs->tiles[0].features[2].touches = 0, bs->tiles[0].features[2].touches = 1);
#undef EXPECT_CHANGE

	/* a deck set that is not given */
	assert_int_equal(cm_map_hash(m0, UTIL_SETS(f->sets), 1, h), CM_ENOTFOUND);
}

/* A 2x1 map with one plain and one full square, an island, a deck of one
 * whole tile set and metadata. */
static cm_map_builder *tiny_builder(cm_tileset **set)
{
	cm_map_builder *mb = util_builder(2, 1);
	cm_map *m = raw_of(mb);
	util_id_set(mb, "t", NULL);
	m->setup.starts_used = 1;
	m->setup.followers = 7;
	m->rules.edition = CM_EDITION_C2;
	m->rules.tiny_city = false;
	m->rules.farmers = CM_FARMERS_C2;
	m->rules.farmers_bigcity = true;
	m->rules.town_extra_turn = false;
	m->rules.town_cost = true;
	m->rules.town_road_bonus = false;
	m->rules.abbey_edge = true;
	util_island_add(mb, "i", "Isle");
	util_deck_add(mb, "s", NULL, -1);
	cm_square *a = raw_at(m, 0, 0), *b = raw_at(m, 1, 0);
	a->kind = CM_SQ_LAND;
	a->print[CM_N].kind = CM_PRINT_NEUTRAL;
	a->print[CM_S].kind = CM_PRINT_NEUTRAL;
	a->print[CM_W].kind = CM_PRINT_CITY;
	b->kind = CM_SQ_ISLAND;
	b->island = 0;
	b->arms = 2;
	b->print[CM_N].kind = CM_PRINT_NEUTRAL;
	b->print[CM_E].kind = CM_PRINT_ROAD;
	b->print[CM_E].arms = 1;
	b->print[CM_S].kind = CM_PRINT_NEUTRAL;
	util_name_set(mb, 1, 0, "A");
	util_marker_add(mb, 1, 0, "m");
	util_label_set(mb, 1, 0, CM_E, "x");
	assert_int_equal(cm_map_builder_set_about(mb, 0, "T"), 0);
	cm_tileset *ts = util_tileset_new("s", "S", true, -1, -1, -1);
	cm_tile_type *t = util_tile_add(ts, "a", 3, 2, 2);
	t->start = true;
	cm_feature *f = util_feature_add(t, CM_FEAT_CITY, "c", 0x1C0);
	f->arms = 1;
	f->good = CM_GOOD_CLOTH;
	*set = ts;
	return mb;
}

static cm_map *tiny_map(cm_tileset **set)
{
	return util_finish(tiny_builder(set));
}

/* Content hash version 2 of tiny_map, byte by byte as schemas/pack.md
 * defines it (integers zigzag LEB128, strings LEB128 of length + 1, kinds
 * as codes), hashed here with SHA-256: cm_map_hash must agree, and so must
 * the digest python3's hashlib gives for these bytes. */
static void test_pack__hash_v2_defined(void **state)
{
	(void)state;
	static const uint8_t want_bytes[] = {
		0x17, 'c', 'a', 'r', 'c', 'a', 'm', 'a', 'p', ' ', 'm', 'a', 'p', ' ', 'c', 'o', 'n', 't', 'e', 'n', 't', ' ', '2',
		0x02, 't', 0x00,                   /* id "t", name NULL */
		0x04, 0x02,                        /* cols 2, rows 1 */
		0x02, 0x00, 0x00, 0x0E,            /* starts 1, tiles min 0, max 0, followers 7 */
		0x01, 0x00, 0x04, 0x02, 0x00, 0x02, 0x00, 0x02, /* C2, tiny 0, farmers 2, 1, 0, 1, 0, 1 */
		0x02, 0x02, 'i', 0x05, 'I', 's', 'l', 'e', /* 1 island: "i", "Isle" */
		0x00, 0x00,                        /* no big city, no ferry */
		0x02, 0x02, 's', 0x00, 0x01,       /* 1 deck entry: "s", tile NULL, count -1 */
		0x01, 0xD1,                        /* (0,0) plain land, prints N n, E -, S n, W c */
		0x87, 0x19,                        /* (1,0) full island square, prints n r n - */
		0x02, 'A', 0x04, 0x00, 0x01,       /* name "A", arms 2, island 0, big city -1 */
		0x02, 0x02, 'm',                   /* 1 marker "m" */
		0x00, 0x00, 0x02, 0x02, 'x', 0x00, 0x00, 0x00, 0x00, /* sides: arms, label */
		0x02,                              /* 1 tile set */
		0x02, 's', 0x02, 'S', 0x02, 0x01, 0x01, 0x01, /* "s", "S", base 1, totals -1 */
		0x02, 0x02, 'a', 0x00, 0x06, 0x04, 0x04, 0x02, /* 1 tile: "a", NULL, 3 2 2, start 1 */
		0x02, 0x01, 0x02, 'c', 0x80, 0x07, /* 1 feature: city "c", slots 0x1C0 */
		0x02, 0x00, 0x00, 0x03, 0x00,      /* arms 1, no cathedral, no inn, cloth, touches 0 */
		0x00,                              /* no contact */
		0x02, 'T', 0x00, 0x00, 0x00, 0x00, 0x00, /* about: title "T", the rest NULL */
	};
	/* python3 -c 'import hashlib,sys; print(hashlib.sha256(bytes(...)).hexdigest())' */
	static const char want_hex[] = "38f477e35c277bd591e1f7c72dc27f9cc8a946cd8501c84d85983ae05c0bec4e";
	uint8_t want[32], got[32];
	cm_sha256 s;
	cm_sha256_init(&s);
	cm_sha256_update(&s, want_bytes, sizeof want_bytes);
	cm_sha256_final(&s, want);
	char hex[65];
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", want[i]);
	assert_string_equal(hex, want_hex);
	cm_tileset *ts = NULL;
	cm_map *m = tiny_map(&ts);
	assert_int_equal(cm_map_hash(m, UTIL_SETS(&ts), 1, got), 0);
	assert_memory_equal(got, want, 32);
	assert_int_equal(cm_map_hash_version(m, UTIL_SETS(&ts), 1, CM_MAP_HASH_VERSION, got), 0);
	assert_memory_equal(got, want, 32);
	/* version 1 is another definition, and no other exists */
	assert_int_equal(cm_map_hash_version(m, UTIL_SETS(&ts), 1, 1, got), 0);
	assert_memory_not_equal(got, want, 32);
	assert_int_equal(cm_map_hash_version(m, UTIL_SETS(&ts), 1, 3, got), CM_EINVAL);
	/* a value without a code is in no map: the builder refuses it */
	cm_map_builder *b = util_from(m);
	assert_int_equal(cm_map_builder_set_print(b, 0, 0, CM_E, (cm_print_kind)7, 0), CM_EINVAL);
	cm_map_builder_free(b);
	cm_map_free(m);
	cm_tileset_free(ts);
}

/* Version 2 follows the content like version 1: a changed square kind,
 * print kind, print arms, label, name or marker changes it, on a plain
 * square and on a full one; the same model hashes the same every time. */
static void test_pack__hash_v2_follows_squares(void **state)
{
	(void)state;
	cm_tileset *ts = NULL;
	cm_map *m0 = tiny_map(&ts);
	uint8_t base[32], h[32];
	assert_int_equal(cm_map_hash(m0, UTIL_SETS(&ts), 1, base), 0);
	assert_int_equal(cm_map_hash(m0, UTIL_SETS(&ts), 1, h), 0);
	assert_memory_equal(h, base, 32);
	cm_map_builder *mb;
	cm_square *a, *b;
	cm_map *m;
#define EXPECT_CHANGE(change)                                    \
	do {                                                         \
		mb = util_from(m0);                                      \
		m = raw_of(mb);                                          \
		a = raw_at(m, 0, 0);                                     \
		b = raw_at(m, 1, 0);                                     \
		(void)a;                                                 \
		(void)b;                                                 \
		change;                                                  \
		m = util_finish(mb);                                     \
		assert_int_equal(cm_map_hash(m, UTIL_SETS(&ts), 1, h), 0);          \
		assert_memory_not_equal(h, base, 32);                    \
		cm_map_free(m);                                          \
	} while (0)
	EXPECT_CHANGE(a->kind = CM_SQ_TOWN);
	EXPECT_CHANGE(a->print[CM_E].kind = CM_PRINT_ROAD);
	EXPECT_CHANGE(a->print[CM_W].kind = CM_PRINT_NEUTRAL);
	/* plain squares become full ones */
	EXPECT_CHANGE(a->print[CM_N].arms = 1);
	EXPECT_CHANGE(a->arms = 1);
	EXPECT_CHANGE(a->island = 0);
	EXPECT_CHANGE(util_name_set(mb, 0, 0, "B"));
	EXPECT_CHANGE(util_label_set(mb, 0, 0, CM_N, "y"));
	/* and full squares change with any field */
	EXPECT_CHANGE(b->kind = CM_SQ_LAND);
	EXPECT_CHANGE(b->print[CM_S].kind = CM_PRINT_CITY);
	EXPECT_CHANGE(b->print[CM_E].arms = 2);
	EXPECT_CHANGE(util_name_set(mb, 1, 0, "B"));
	EXPECT_CHANGE(util_label_set(mb, 1, 0, CM_E, "z"));
	/* a second marker */
	EXPECT_CHANGE(util_marker_add(mb, 1, 0, "n"));
#undef EXPECT_CHANGE
	/* the map itself never changed: its hash (cached) is the same */
	assert_int_equal(cm_map_hash(m0, UTIL_SETS(&ts), 1, h), 0);
	assert_memory_equal(h, base, 32);
	/* a map name, empty against NULL */
	mb = util_from(m0);
	assert_int_equal(cm_map_builder_set_name(mb, ""), 0);
	m = util_finish(mb);
	assert_int_equal(cm_map_hash(m, UTIL_SETS(&ts), 1, h), 0);
	assert_memory_not_equal(h, base, 32);
	cm_map_free(m);
	cm_map_free(m0);
	cm_tileset_free(ts);
}

/* Sets the stored hash of map sample to h. */
static void set_stored_hash(const char *path, const uint8_t h[32])
{
	char sql[200] = "UPDATE maps SET hash = X'";
	for (int i = 0; i < 32; i++)
		snprintf(sql + strlen(sql), 3, "%02x", h[i]);
	strcat(sql, "' WHERE id = 'sample'");
	run_sql(path, sql);
}

/* Packs of format 1 and 2 store content hash version 1 and verify against
 * it; format 3 stores version 2. A pack whose format and hash disagree is
 * CM0408. */
static void test_pack__hash_version_by_format(void **state)
{
	fx *f = *state;
	uint8_t v1[32], v2[32], stored[32];
	assert_int_equal(cm_map_hash_version(f->map, UTIL_SETS(f->sets), 2, 1, v1), 0);
	assert_int_equal(cm_map_hash_version(f->map, UTIL_SETS(f->sets), 2, 2, v2), 0);
	assert_memory_not_equal(v1, v2, 32);
	assert_int_equal(write_sample(f, f->path), 0);
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_map_hash(p, "sample", stored), 0);
	assert_memory_equal(stored, v2, 32);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	cm_pack_close(p);
	/* format 3 with a version 1 hash */
	set_stored_hash(f->path, v1);
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0408", "map sample", "stored content hash differs"));
	cm_pack_close(p);
	/* format 2 (the same tables) with its own definition, then with version 2 */
	run_sql(f->path, "UPDATE map_grids SET prints = replace(prints, '.', '----'); PRAGMA user_version = 2");
	cm_diags_clear(f->d);
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	assert_int_equal(cm_diags_count(f->d), 0);
	cm_pack_close(p);
	set_stored_hash(f->path, v2);
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0408", "map sample", "stored content hash differs"));
	cm_pack_close(p);
}

/* Whether data is the encoding of m in major, by cm__export_bin_equal: the
 * same answer with the map's grid view (2.0) as without it. */
static bool bin_equal(const cm_map *m, cm_tileset *const *sets, unsigned major, const unsigned char *data,
                      size_t len)
{
	bool eq = false, eq_view = false;
	cm_export_bin_opts o = { major, NULL };
	assert_int_equal(cm__export_bin_equal(m, UTIL_SETS(sets), 2, &o, data, len, &eq), 0);
	cm_map_grid g;
	assert_int_equal(cm__map_grid_build(m, &g), 0);
	o.grid = &g;
	assert_int_equal(cm__export_bin_equal(m, UTIL_SETS(sets), 2, &o, data, len, &eq_view), 0);
	cm__map_grid_free(&g);
	assert_int_equal(eq, eq_view);
	return eq;
}

/* The pack reader compares a stored client binary with the model without
 * building the file (cm__export_bin_equal), in either major version:
 * the encoding itself is equal, any byte changed anywhere (header, table,
 * CRCs, records, strings, padding), a byte more or less, is not; nor is
 * the other major's encoding. */
static void test_pack__binary_compared_in_place(void **state)
{
	fx *f = *state;
	for (unsigned major = 1; major <= 2; major++) {
		unsigned char *bin = NULL, *other = NULL;
		size_t len = 0, other_len = 0;
		assert_int_equal(util_export_bin(f->map, UTIL_SETS(f->sets), 2, major, &bin, &len), 0);
		assert_int_equal(bin[8], major);
		assert_true(len > 100);
		assert_true(bin_equal(f->map, f->sets, major, bin, len));
		for (size_t i = 0; i < len; i++) {
			bin[i] ^= 0x01;
			bool eq = bin_equal(f->map, f->sets, major, bin, len);
			if (eq)
				fprintf(stderr, "%u.0: byte %zu of %zu changed, still equal\n", major, i, len);
			assert_false(eq);
			bin[i] ^= 0x01;
		}
		assert_false(bin_equal(f->map, f->sets, major, bin, len - 1));
		unsigned char *more = malloc(len + 4);
		memcpy(more, bin, len);
		memset(more + len, 0, 4);
		assert_false(bin_equal(f->map, f->sets, major, more, len + 4));
		free(more);
		assert_int_equal(util_export_bin(f->map, UTIL_SETS(f->sets), 2, 3 - major, &other, &other_len), 0);
		assert_false(bin_equal(f->map, f->sets, major, other, other_len));
		free(other);
		free(bin);
	}
	unsigned char *bin = NULL;
	size_t len = 0;
	assert_int_equal(util_export_bin(f->map, UTIL_SETS(f->sets), 2, 3, &bin, &len), CM_EINVAL);
	assert_null(bin);
}

/* A write that fails leaves an existing pack byte-identical and no
 * temporary file behind. */
static void test_pack__failed_write_keeps_target(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	size_t l0, l1;
	char *before = util_read_file(f->path, &l0);

	/* a partial map (a descriptor's, with errors): never packed */
	cm_map *partial = NULL;
	assert_int_equal(cm__map_builder_finish(util_from(f->map), NULL, NULL, NULL,
	                                        CM__FINISH_REFUSED | CM__FINISH_PARTIAL, &partial), CM_EINVAL);
	assert_int_equal(cm_pack_write(f->path, UTIL_MAPS(&partial), 1, UTIL_SETS(f->sets), 2, f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0411", NULL, "map sample failed its checks: a partial map is not packed"));
	cm_map_free(partial);

	cm_diags_clear(f->d);
	assert_int_equal(cm_pack_write(f->path, UTIL_MAPS(&f->map), 1, UTIL_SETS(f->sets), 1, f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0409", "map sample, deck entry 0", "tile set base is not in the pack"));

	cm_diags_clear(f->d);
	cm_map *twice[2] = { f->map, f->map };
	assert_int_equal(cm_pack_write(f->path, UTIL_MAPS(twice), 2, UTIL_SETS(f->sets), 2, f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0410", NULL, "map id sample occurs twice"));

	char *after = util_read_file(f->path, &l1);
	assert_int_equal(l0, l1);
	assert_memory_equal(before, after, l0);
	assert_int_equal(util_dir_entries(f->dir), 1);
	free(before);
	free(after);

	/* a directory as the target: refused, nothing left behind */
	cm_diags_clear(f->d);
	char sub[4300];
	snprintf(sub, sizeof sub, "%s/d.pack", f->dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(write_sample(f, sub), CM_EIO);
	assert_true(has_diag(f->d, NULL, NULL, "is a directory"));
	assert_int_equal(util_dir_entries(f->dir), 2);
	assert_int_equal(util_dir_entries(sub), 0);
}

static void test_pack__unwritable_directory(void **state)
{
	fx *f = *state;
	char ro[4300], target[4400];
	snprintf(ro, sizeof ro, "%s/ro", f->dir);
	assert_int_equal(mkdir(ro, 0555), 0);
	if (access(ro, W_OK) == 0) /* root writes anyway: use a directory that does not exist */
		snprintf(ro, sizeof ro, "%s/missing/dir", f->dir);
	snprintf(target, sizeof target, "%s/x.pack", ro);
	assert_int_equal(write_sample(f, target), CM_EIO);
	assert_true(has_diag(f->d, NULL, NULL, "cannot write pack: cannot create a file in directory"));
	assert_int_equal(cm_diags_errors(f->d), 1);
	assert_int_not_equal(access(target, F_OK), 0);
}

static void expect_open_fails(fx *f, int want_rc, const char *rule, const char *msg)
{
	cm_pack *p = NULL;
	cm_diags_clear(f->d);
	assert_int_equal(cm_pack_open(f->path, f->d, &p), want_rc);
	assert_null(p);
	assert_true(has_diag(f->d, rule, NULL, msg));
}

static void test_pack__foreign_sqlite_file(void **state)
{
	fx *f = *state;
	run_sql(f->path, "PRAGMA application_id = 42; CREATE TABLE t (a)");
	expect_open_fails(f, CM_EFORMAT, "CM0402", "not a carcamap pack (application id 0x0000002a)");
}

static void test_pack__not_sqlite(void **state)
{
	fx *f = *state;
	FILE *fp = fopen(f->path, "wb");
	fputs("<tileset id=\"x\"/>\n", fp);
	fclose(fp);
	expect_open_fails(f, CM_EFORMAT, "CM0401", "not a carcamap pack: not an SQLite database");
	fp = fopen(f->path, "wb");
	fclose(fp);
	expect_open_fails(f, CM_EFORMAT, "CM0401", "not an SQLite database");
	/* missing file: an I/O failure, no rule */
	unlink(f->path);
	expect_open_fails(f, CM_EIO, NULL, "cannot open");
}

/* A pack of format 3 or older holds the CMAP 1.0 row those carcamaps
 * wrote: without a 2.0 row it is verified against a 1.0 encoding; with
 * one, the 2.0 row counts. Neither is CM0413. */
/* A map read from a pack into a workspace has the hash its reading
 * verified (cm_workspace_map_hash, as `list` prints it): the stored one,
 * not computed again (a name changed afterwards does not change it);
 * other maps' hashes are computed (a pack of format 1, which stores
 * version 1: tests/cli/cases/pack_format1_read). */
static void test_pack__workspace_keeps_verified_hash(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	uint8_t want[32], got[32], stored[32];
	assert_int_equal(cm_map_hash(f->map, UTIL_SETS(f->sets), 2, want), 0);
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_map_hash(p, "sample", stored), 0);
	cm_pack_close(p);
	assert_memory_equal(stored, want, 32);
	cm_workspace *w = NULL;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_workspace_load(w, f->path, f->d), 0);
	const cm_map *m = cm_workspace_find_map(w, "sample");
	assert_non_null(m);
	assert_int_equal(cm_workspace_map_hash(w, m, got), 0);
	assert_memory_equal(got, want, 32);
	assert_int_equal(cm_workspace_map_hash(w, m, got), 0);
	assert_memory_equal(got, want, 32); /* the verified one */
	cm_workspace_free(w);
	/* a map the workspace did not read from a pack: computed */
	assert_int_equal(cm_workspace_new(&w), 0);
	cm_map *own = util_map_sample();
	assert_int_equal(cm_workspace_load(w, f->path, f->d), 0); /* the tile sets */
	assert_int_equal(cm_workspace_map_hash(w, own, got), 0);
	assert_memory_equal(got, want, 32);
	cm_map_builder *b = util_from(own);
	util_name_set(b, 1, 1, "Changed");
	cm_map *changed = util_finish(b);
	assert_int_equal(cm_workspace_map_hash(w, changed, got), 0);
	assert_memory_not_equal(got, want, 32);
	cm_map_free(changed);
	cm_map_free(own);
	cm_workspace_free(w);
	cm_diags_clear(f->d);
}

/* Rows of the same prints (beside water, as on a serpentine map) are read
 * four squares at a time and runs of '.' eight at a time: the map reads
 * back equal, and a row one square short or long, or a square cut within
 * such a run, is reported at its row. */
static void test_pack__dense_print_runs(void **state)
{
	fx *f = *state;
	char xml[4300];
	snprintf(xml, sizeof xml, "%s/s.xml", f->dir);
	FILE *o = fopen(xml, "w");
	assert_non_null(o);
	assert_int_equal(cm_genmap(o, "serpentine 40"), 0);
	assert_int_equal(fclose(o), 0);
	cm_workspace *w = NULL;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
	assert_int_equal(cm_workspace_load(w, xml, f->d), 0);
	assert_int_equal(cm_workspace_resolve(w, f->d), 0);
	const cm_map *m = cm_workspace_map(w, 0);
	const cm_tileset *base = cm_workspace_find_tileset(w, "base");
	assert_non_null(base);
	assert_int_equal(cm_pack_write(f->path, UTIL_MAPS(&m), 1, UTIL_SETS(&base), 1, f->d), 0);
	cm_pack *p = NULL;
	cm_map *back = NULL;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_read_map_verified(p, m->id, f->d, &back), 0);
	assert_true(cm_map_equal(m, back));
	cm_map_free(back);
	cm_pack_close(p);
	/* row 0 is 40 squares of four characters, "n-n-" after its first
	 * few: cut square 20 out, add one there, cut two characters */
	static const char *const edits[][2] = {
		{ "substr(prints, 1, 80) || substr(prints, 85)", "row 0 of the grid of edge print kinds ends after 39 squares" },
		{ "substr(prints, 1, 80) || 'n-n-' || substr(prints, 81)",
		  "row 0 of the grid of edge print kinds does not end after 40 squares" },
		{ "substr(prints, 1, 80) || substr(prints, 83)", "row 0 of the grid of edge print kinds ends within a square" },
	};
	char tmp[4300];
	snprintf(tmp, sizeof tmp, "%s/t.pack", f->dir);
	for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
		assert_int_equal(cm_pack_write(tmp, UTIL_MAPS(&m), 1, UTIL_SETS(&base), 1, f->d), 0);
		char sql[600];
		snprintf(sql, sizeof sql, "UPDATE map_grids SET prints = %s", edits[k][0]);
		run_sql(tmp, sql);
		cm_diags_clear(f->d);
		assert_int_equal(cm_pack_open(tmp, f->d, &p), 0);
		assert_int_equal(cm_pack_read_map_verified(p, m->id, f->d, &back), CM_EINVAL);
		assert_null(back);
		if (!has_diag(f->d, "CM0407", NULL, edits[k][1]))
			cm_diags_write_text(f->d, stderr);
		assert_true(has_diag(f->d, "CM0407", NULL, edits[k][1]));
		cm_pack_close(p);
	}
	cm_diags_clear(f->d);
	cm_workspace_free(w);
}

/* The grid view the descriptor reader's structure pass makes on its way
 * (cm_map.view, lent to the pack writer and read by the layout) is the
 * one cm__map_grid_build makes of the loaded map: the same bytes and the
 * same squares listed, also a named plain square and the islands, big
 * cities and prints of generated maps; a map copied through a builder has
 * none (any change drops it). */
static void test_pack__structure_pass_view(void **state)
{
	fx *f = *state;
	static const char *const specs[] = { NULL, "serpentine 41", "islands 40 30", "bigcities 33 20" };
	char xml[4300];
	snprintf(xml, sizeof xml, "%s/v.xml", f->dir);
	for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
		FILE *o = fopen(xml, "w");
		assert_non_null(o);
		if (specs[k]) {
			assert_int_equal(cm_genmap(o, specs[k]), 0);
		} else {
			/* a bundled board (islands, ferries, markers, print
			 * labels), with a name on a square that has nothing else */
			cm_map *isles = NULL;
			assert_int_equal(cm_map_load("maps/carca-isles/carca-isles.xml", NULL, f->d, &isles), 0);
			cm_map_builder *b = util_from(isles);
			int px = -1, py = 0;
			for (int i = 0; px < 0 && i < isles->cols * isles->rows; i++)
				if (cm__square_plain_land(&isles->squares[i]) && !cm_map_extra_find(isles, i)) {
					px = i % isles->cols;
					py = i / isles->cols;
				}
			assert_true(px >= 0);
			util_name_set(b, px, py, "a plain square's name");
			cm_map *named = util_finish(b);
			assert_int_equal(cm_map_write_xml(named, o), 0);
			cm_map_free(named);
			cm_map_free(isles);
		}
		assert_int_equal(fclose(o), 0);
		cm_map *m = NULL;
		cm_diags_clear(f->d);
		if (cm_map_load(xml, NULL, f->d, &m) != 0)
			cm_diags_write_text(f->d, stderr);
		assert_non_null(m);
		const cm_map_grid *v = cm__map_view(m);
		assert_non_null(v);
		cm_map_grid g;
		assert_int_equal(cm__map_grid_build(m, &g), 0);
		size_t n_sq = (size_t)m->cols * (size_t)m->rows;
		assert_memory_equal(v->grid, g.grid, 2 * n_sq);
		assert_int_equal(v->n_sq, g.n_sq);
		assert_true(v->n_sq > 0 || k == 1); /* the serpentine: nothing beyond the grid */
		assert_memory_equal(v->sq, g.sq, g.n_sq * sizeof *g.sq);
		cm__map_grid_free(&g);
		cm_map *copy = util_finish(util_from(m));
		assert_null(cm__map_view(copy));
		assert_true(cm_map_equal(m, copy));
		cm_map_free(copy);
		cm_map_free(m);
	}
	cm_diags_clear(f->d);
}

static void test_pack__old_pack_binary_1_0(void **state)
{
	fx *f = *state;
	unsigned char *v1 = NULL;
	size_t len1 = 0;
	assert_int_equal(util_export_bin(f->map, UTIL_SETS(f->sets), 2, 1, &v1, &len1), 0);
	assert_int_equal(write_sample(f, f->path), 0);
	assert_int_equal(cm_pack_put_map_binary(f->path, "sample", 1, v1, len1, f->d), 0);
	run_sql(f->path, "UPDATE map_grids SET prints = replace(prints, '.', '----'); PRAGMA user_version = 3");
	cm_pack *p = NULL;
	/* both rows: the 2.0 one is checked, a damaged 1.0 row is not */
	run_sql(f->path, "UPDATE map_binary SET data = randomblob(64) WHERE format_version = 1");
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	cm_pack_close(p);
	/* the 1.0 row alone, as format 3 wrote it */
	assert_int_equal(cm_pack_put_map_binary(f->path, "sample", 1, v1, len1, f->d), 0);
	run_sql(f->path, "DELETE FROM map_binary WHERE format_version = 2");
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	assert_int_equal(cm_diags_count(f->d), 0);
	cm_pack_close(p);
	/* ... byte for byte */
	run_sql(f->path, "UPDATE map_binary SET data = CAST(substr(data, 1, length(data) - 4) || x'00000001' AS BLOB)");
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0413", "map sample", "stored client binary (format version 1,"));
	cm_pack_close(p);
	/* neither row */
	cm_diags_clear(f->d);
	run_sql(f->path, "DELETE FROM map_binary");
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0413", "map sample",
	                     "no client binary (format version 2, or 1 in a pack of format 3) is stored"));
	cm_pack_close(p);
	free(v1);
}

static void test_pack__newer_version(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	run_sql(f->path, "PRAGMA user_version = 5");
	expect_open_fails(f, CM_EVERSION, "CM0403",
	                  "pack format version 5 is newer than this carcamap reads (max 4)");
	run_sql(f->path, "PRAGMA user_version = 0");
	expect_open_fails(f, CM_EFORMAT, "CM0405", "pack format version 0 does not exist");
}

static void test_pack__trigger_or_view_refused(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	run_sql(f->path, "CREATE TRIGGER evil AFTER INSERT ON pack_meta BEGIN DELETE FROM maps; END");
	expect_open_fails(f, CM_EFORMAT, "CM0406", "pack contains trigger evil");
	run_sql(f->path, "DROP TRIGGER evil; CREATE VIEW v AS SELECT * FROM maps");
	expect_open_fails(f, CM_EFORMAT, "CM0406", "pack contains view v");
}

static void test_pack__schema_mismatch(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	run_sql(f->path, "ALTER TABLE ferries ADD COLUMN extra INTEGER");
	expect_open_fails(f, CM_EFORMAT, "CM0405", "table ferries has other columns");
	run_sql(f->path, "DROP TABLE map_binary");
	expect_open_fails(f, CM_EFORMAT, "CM0405", "table map_binary is missing");
}

/* A table made by another statement than pack.sql's (not the text
 * carcamap writes) is compared column by column: the same columns open,
 * others do not. */
static void test_pack__schema_other_text(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	run_sql(f->path, "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql,"
	                 " 'prints TEXT NOT NULL', 'prints   TEXT   NOT NULL') WHERE name = 'map_grids'");
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	cm_pack_close(p);
	run_sql(f->path, "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql,"
	                 " 'prints   TEXT   NOT NULL', 'prints TEXT') WHERE name = 'map_grids'");
	expect_open_fails(f, CM_EFORMAT, "CM0405", "table map_grids has other columns");
}

/* The schema is compared with pack.sql before anything that evaluates it
 * runs (quick_check computes a generated column for every row and checks
 * every CHECK constraint): a generated or hidden column, which
 * pragma table_info does not show, an unknown table or an index of the
 * pack's own are refused; a shadow of a pragma is an unknown table. */
static void test_pack__schema_refused_before_evaluated(void **state)
{
	fx *f = *state;
	char clean[4300];
	snprintf(clean, sizeof clean, "%s/clean.pack", f->dir);
	assert_int_equal(write_sample(f, clean), 0);
	static const struct {
		const char *sql, *msg;
	} cases[] = {
		{ "ALTER TABLE squares ADD COLUMN g INTEGER GENERATED ALWAYS AS"
		  " (instr(printf('%.*c', 20000000 + x, 'x'), 'y')) VIRTUAL",
		  "column g of table squares is generated" },
		{ "CREATE TABLE extra (a INTEGER) STRICT", "table extra is not one of format version 4's" },
		{ "CREATE INDEX by_name ON squares (printf('%.*c', 1000, name))",
		  "index by_name is not one of format version 4's" },
		{ "CREATE TABLE pragma_foreign_key_check (\"table\" TEXT, rowid INTEGER, parent TEXT, fkid INTEGER);"
		  " PRAGMA foreign_keys = OFF; UPDATE deck_entries SET tileset_id = 'gone' WHERE seq = 0",
		  "table pragma_foreign_key_check is not one of format version 4's" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len;
		char *b = util_read_file(clean, &len);
		FILE *fp = fopen(f->path, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(b, 1, len, fp), len);
		fclose(fp);
		free(b);
		run_sql(f->path, cases[i].sql);
		expect_open_fails(f, CM_EFORMAT, "CM0405", cases[i].msg);
	}
}

/* A CHECK constraint that is not pack.sql's (a table made by another
 * statement, with the same columns) is never evaluated, whatever it costs:
 * the reader checks every value itself. */
static void test_pack__check_constraint_not_evaluated(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	run_sql(f->path, "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'kind TEXT NOT NULL,',"
	                 " 'kind TEXT NOT NULL CHECK (length(kind) < 0),') WHERE name = 'squares'");
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	cm_pack_close(p);
}

/* The foreign key check is the pragma itself, never a table of the pack:
 * a dangling deck reference is reported, and a deck that names a set the
 * pack lacks is never a failure without a diagnostic. */
static void test_pack__dangling_deck_reported(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	run_sql(f->path, "PRAGMA foreign_keys = OFF; UPDATE deck_entries SET tileset_id = 'gone' WHERE seq = 0");
	expect_open_fails(f, CM_EFORMAT, "CM0407", "row 1 of table deck_entries refers to a missing row of tilesets");
}

static void test_pack__corrupt_page(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	size_t len;
	char *b = util_read_file(f->path, &len);
	assert_true(len >= 8 * 4096);
	/* wreck the b-tree page header and cell pointers of a data page in
	 * the middle of the file: the squares table's root (a leaf here), found
	 * by name so new tables moving the pages around cannot make it the
	 * schema's own page */
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name = 'squares'",
	                                    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	size_t page = (size_t)sqlite3_column_int(st, 0) - 1; /* pages count from 1 */
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_true(page > 2 && page < len / 4096 - 2);
	memset(b + page * 4096, 0xA5, 64);
	FILE *fp = fopen(f->path, "wb");
	fwrite(b, 1, len, fp);
	fclose(fp);
	free(b);
	expect_open_fails(f, CM_EFORMAT, "CM0404", "quick_check: ");
}

static void test_pack__truncated(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	struct stat st;
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(truncate(f->path, st.st_size / 2), 0);
	expect_open_fails(f, CM_EFORMAT, "CM0404", NULL);
	assert_int_equal(truncate(f->path, 50), 0);
	expect_open_fails(f, CM_EFORMAT, "CM0404", NULL);
}

/* Hostile values that SQLite accepts: each change, what opening or reading
 * must say about it (rule, where, message part). */
static const struct {
	const char *sql;
	const char *rule, *where, *msg;
} hostile[] = {
	{ "UPDATE squares SET kind = 'castle' WHERE x = 2 AND y = 2", "CM0407", "map sample, square (2,2)",
	  "unknown square kind 'castle'" },
	{ "UPDATE squares SET x = 17 WHERE x = 4 AND y = 3", "CM0407", "map sample", "x is 17, outside 0..5" },
	{ "DELETE FROM map_grids", "CM0407", "map sample", "no grid of square kinds is stored" },
	{ "UPDATE map_grids SET kinds = substr(kinds, 2)", "CM0407", "map sample",
	  "the grid of square kinds has 34 bytes, 5 rows of 6 squares need 35" },
	{ "UPDATE map_grids SET kinds = replace(kinds, 'T', char(0))", "CM0407", "map sample, square (2,2)",
	  "unknown character 0x00 in the grid of square kinds" },
	{ "UPDATE map_grids SET kinds = replace(kinds, char(10), '.')", "CM0407", "map sample",
	  "row 0 of the grid of square kinds does not end after 6 squares" },
	{ "UPDATE map_grids SET kinds = replace(kinds, 'L', 'X')", "CM0407", "map sample, square (3,1)",
	  "unknown character 0x58 in the grid of square kinds" },
	{ "UPDATE map_grids SET kinds = replace(kinds, 'T', '#')", "CM0407", "map sample, square (2,2)",
	  "square kind town differs from the grid's land" },
	{ "UPDATE map_grids SET kinds = replace(kinds, '~', '.')", "CM0408", "map sample",
	  "stored content hash differs" },
	{ "UPDATE map_grids SET prints = substr(prints, 2)", "CM0407", "map sample, square (5,0)",
	  "row 0 of the grid of edge print kinds ends after 5 squares" },
	{ "UPDATE map_grids SET prints = '.' || prints", "CM0407", "map sample",
	  "row 0 of the grid of edge print kinds does not end after 6 squares" },
	{ "UPDATE map_grids SET prints = prints || '.'", "CM0407", "map sample",
	  "the grid of edge print kinds has 1 bytes after its last row" },
	{ "UPDATE map_grids SET prints = substr(prints, 1, 40)", "CM0407", "map sample, square (3,4)",
	  "the grid of edge print kinds ends within row 4" },
	{ "UPDATE map_grids SET prints = substr(prints, 1, 10)", "CM0407", "map sample, square (1,1)",
	  "the grid of edge print kinds ends within row 1" },
	{ "UPDATE map_grids SET prints = substr(prints, 1, 43)", "CM0407", "map sample",
	  "row 4 of the grid of edge print kinds does not end after 6 squares" },
	{ "UPDATE map_grids SET prints = replace(prints, '---r', '-r' || char(10) || '-')", "CM0407",
	  "map sample, square (1,1)", "row 1 of the grid of edge print kinds ends within a square" },
	{ "UPDATE map_grids SET prints = replace(prints, '......', '.----....')", "CM0407",
	  "map sample, square (1,0)", "a square without a print is '.' in the grid of edge print kinds, not '----'" },
	{ "UPDATE map_grids SET prints = replace(prints, '.', '----')", "CM0407", "map sample, square (0,0)",
	  "not '----'" },
	{ "UPDATE map_grids SET prints = replace(prints, '......', '-......')", "CM0407", "map sample, square (0,0)",
	  "unknown character 0x2e in the grid of edge print kinds" },
	{ "UPDATE map_grids SET prints = replace(prints, 'c', 'x')", "CM0407", "map sample, square (4,1)",
	  "unknown character 0x78 in the grid of edge print kinds" },
	{ "UPDATE map_grids SET prints = replace(prints, 'c', 'r')", "CM0407", "map sample, square (4,1)",
	  "edge print kind city on side E differs from the grid's road" },
	{ "UPDATE map_grids SET prints = replace(prints, 'n', '-')", "CM0408", "map sample",
	  "stored content hash differs" },
	{ "UPDATE squares SET island = 5 WHERE x = 5 AND y = 1", "CM0407", "map sample, square (5,1)",
	  "island is 5, outside 0..1" },
	{ "UPDATE squares SET name = CAST(x'41004200' AS TEXT) WHERE x = 1 AND y = 1", "CM0407",
	  "map sample, square (1,1)", "holds a NUL byte" },
	{ "UPDATE squares SET arms = 256 WHERE x = 1 AND y = 1", "CM0407", "map sample, square (1,1)",
	  "arms is 256, outside 0..255" },
	{ "UPDATE edge_prints SET side = 'Q' WHERE x = 4 AND y = 1", "CM0407", "map sample, square (4,1)",
	  "unknown side 'Q'" },
	{ "UPDATE edge_prints SET kind = 'river' WHERE x = 4 AND y = 1", "CM0407", "map sample, square (4,1)",
	  "unknown edge print kind 'river'" },
	{ "UPDATE maps SET cols = 5000", "CM0407", "map sample", "cols is 5000, outside 1..1024" },
	{ "UPDATE maps SET edition = 'C9'", "CM0407", "map sample", "unknown edition 'C9'" },
	{ "UPDATE maps SET followers = -3", "CM0407", "map sample", "followers is -3" },
	{ "UPDATE ferries SET x2 = 40", "CM0407", "map sample, ferry 0", "outside the 6x5 grid" },
	/* places formatted only for the diagnostic (no string per row read) */
	{ "UPDATE ferries SET side1 = 'Q'", "CM0407", "map sample, ferry 0", "unknown side 'Q'" },
	{ "UPDATE islands SET title = 'a' || char(7) WHERE seq = 0", "CM0407", "map sample, island 0",
	  "title holds a control character" },
	{ "UPDATE bigcities SET name = 'a' || char(7)", "CM0407", "map sample, big city 0",
	  "name holds a control character" },
	{ "UPDATE bigcity_pieces SET y = 9 WHERE seq = 1", "CM0407", "map sample, big city 0, piece 1",
	  "square (2,9) is outside the 6x5 grid" },
	{ "UPDATE bigcity_features SET touches = 4 WHERE piece = 0 AND seq = 1", "CM0407",
	  "map sample, big city 0, piece 0, feature 1", "touches 0x4 names features" },
	{ "UPDATE square_markers SET seq = 5 WHERE x = 2 AND y = 2 AND seq = 1", "CM0407",
	  "map sample, square (2,2)", "sequence number 5 where 1 was expected" },
	{ "UPDATE deck_entries SET count = -2 WHERE seq = 1", "CM0407", "map sample, deck entry 1",
	  "count is -2" },
	{ "UPDATE features SET touches = 16 WHERE tileset_id = 'base' AND tile_seq = 0 AND seq = 2",
	  "CM0407", "tile set base, tile D, feature 2", "touches 0x10 names features" },
	{ "UPDATE features SET kind = 'castle' WHERE tileset_id = 'inns'", "CM0407",
	  "tile set inns, tile IC-01, feature 0", "unknown feature kind 'castle'" },
	{ "UPDATE tile_types SET count_c2 = 1000001 WHERE id = 'E'", "CM0407", "tile set base, tile E",
	  "tile count is 1000001" },
	{ "UPDATE tilesets SET total_c1 = -5 WHERE id = 'base'", "CM0407", "tile set base",
	  "declared total is -5" },
	{ "PRAGMA foreign_keys = OFF; UPDATE tilesets SET id = '../x' WHERE id = 'inns';"
	  "UPDATE tile_types SET tileset_id = '../x' WHERE tileset_id = 'inns';"
	  "UPDATE features SET tileset_id = '../x' WHERE tileset_id = 'inns';"
	  "UPDATE contacts SET tileset_id = '../x' WHERE tileset_id = 'inns';"
	  "UPDATE deck_entries SET tileset_id = '../x' WHERE tileset_id = 'inns'", "CM0407", NULL,
	  "an id in table tilesets is not an id" },
	{ "UPDATE squares SET name = char(27) || ']0;owned' || char(7) WHERE x = 1 AND y = 1", "CM0407",
	  "map sample, square (1,1)", "name holds a control character" },
	{ "UPDATE squares SET name = 'a' || char(10) || 'x.xml:1: error: forged' WHERE x = 1 AND y = 1",
	  "CM0407", "map sample, square (1,1)", "name holds a control character" },
	{ "UPDATE squares SET name = 'a' || char(133) WHERE x = 1 AND y = 1", "CM0407",
	  "map sample, square (1,1)", "name holds a control character" },
	{ "UPDATE tile_types SET name = 'x' || char(8238) || 'txt.exe' WHERE id = 'E'", "CM0407",
	  "tile set base, tile 1", "tile name holds a bidirectional control" },
	{ "UPDATE squares SET name = CAST(x'41FF42' AS TEXT) WHERE x = 1 AND y = 1", "CM0407",
	  "map sample, square (1,1)", "name holds invalid UTF-8" },
	{ "UPDATE maps SET hash = zeroblob(32)", "CM0408", "map sample", "stored content hash differs" },
	/* the CHECK of pack.sql's maps table holds it to 32 bytes, but the
	 * reader never evaluates a CHECK: it says what is wrong itself */
	{ "PRAGMA ignore_check_constraints = ON; UPDATE maps SET hash = zeroblob(31)", "CM0407", "map sample",
	  "the stored content hash is not 32 bytes" },
	/* one byte changed, at either end: the whole hash is compared */
	{ "UPDATE maps SET hash = CAST(substr(hash, 1, 31) || CASE WHEN substr(hash, 32) = x'00' THEN x'01' ELSE x'00' END "
	  "AS BLOB)",
	  "CM0408", "map sample", "stored content hash differs" },
	{ "UPDATE maps SET hash = CAST(CASE WHEN substr(hash, 1, 1) = x'00' THEN x'01' ELSE x'00' END || substr(hash, 2) "
	  "AS BLOB)",
	  "CM0408", "map sample", "stored content hash differs" },
	{ "UPDATE maps SET hash = CAST(substr(hash, 1, 16) || CASE WHEN substr(hash, 17, 1) = x'00' THEN x'01' ELSE "
	  "x'00' END || substr(hash, 18) AS BLOB)",
	  "CM0408", "map sample", "stored content hash differs" },
	{ "UPDATE squares SET name = 'Bremen' WHERE x = 1 AND y = 1", "CM0408", "map sample", NULL },
	{ "UPDATE map_binary SET data = randomblob(64)", "CM0413", "map sample",
	  "stored client binary (format version 2, 64 bytes) differs" },
	{ "UPDATE map_binary SET data = zeroblob(0)", "CM0413", "map sample", "differs" },
	{ "DELETE FROM map_binary", "CM0413", "map sample", "no client binary (format version 2) is stored" },
	/* format 4 takes only its own binary: a 1.0 row there is not enough */
	{ "UPDATE map_binary SET format_version = 1", "CM0413", "map sample",
	  "no client binary (format version 2) is stored" },
	{ "PRAGMA foreign_keys = OFF; UPDATE deck_entries SET tileset_id = 'gone' WHERE seq = 0", "CM0407",
	  NULL, "refers to a missing row of tilesets" },
};

static void test_pack__hostile_values(void **state)
{
	fx *f = *state;
	char clean[4300];
	snprintf(clean, sizeof clean, "%s/clean.pack", f->dir);
	assert_int_equal(write_sample(f, clean), 0);
	size_t len;
	char *bytes = util_read_file(clean, &len);
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		FILE *fp = fopen(f->path, "wb");
		fwrite(bytes, 1, len, fp);
		fclose(fp);
		run_sql(f->path, hostile[i].sql);
		cm_diags_clear(f->d);
		cm_pack *p = NULL;
		int rc = cm_pack_open(f->path, f->d, &p);
		if (rc == 0) {
			cm_map *m = NULL;
			cm_tileset *ts = NULL;
			rc = cm_pack_read_map(p, "sample", f->d, &m);
			cm_map_free(m);
			int rc2 = cm_pack_read_tileset(p, "base", f->d, &ts);
			cm_tileset_free(ts);
			ts = NULL;
			int rc3 = cm_pack_read_tileset(p, "inns", f->d, &ts);
			cm_tileset_free(ts);
			int rc4 = rc || rc2 || rc3 ? 0 : cm_pack_verify_map(p, "sample", f->d);
			rc = rc ? rc : rc2 ? rc2 : rc3 ? rc3 : rc4;
		}
		cm_pack_close(p);
		if (rc == 0 || !has_diag(f->d, hostile[i].rule, hostile[i].where, hostile[i].msg))
			fail_msg("case %zu (%s): rc %d, expected diagnostic missing", i, hostile[i].sql, rc);
	}
	free(bytes);
}

/* A map id that is a path (../escape), with the content hash recomputed
 * through the public cm_map_hash so that only the id check can refuse it:
 * the pack does not open, so no command ever names a file after it. */
static void test_pack__path_as_map_id_refused(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	static const char *const tables[] = { "islands", "bigcities", "map_grids", "squares", "square_markers",
		                              "edge_prints", "bigcity_pieces", "bigcity_features",
		                              "bigcity_contacts", "ferries", "deck_entries", "map_binary" };
	char sql[8192];
	int n = snprintf(sql, sizeof sql, "PRAGMA foreign_keys = OFF; UPDATE maps SET id = '../escape';");
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		n += snprintf(sql + n, sizeof sql - (size_t)n, " UPDATE %s SET map_id = '../escape';", tables[i]);
	/* such a map is only ever partial: the model's check refuses its id */
	cm_map_builder *b = util_from(f->map);
	util_id_set(b, "../escape", cm_map_name(f->map));
	cm_map *escape = NULL;
	assert_int_equal(cm__map_builder_finish(b, "CM0411", NULL, f->d, CM__FINISH_PARTIAL, &escape), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0411", "map ../escape", "is not an id"));
	uint8_t h[32];
	int hrc = cm_map_hash(escape, UTIL_SETS(f->sets), 2, h);
	assert_int_equal(hrc, 0);
	n += snprintf(sql + n, sizeof sql - (size_t)n, " UPDATE maps SET hash = x'");
	for (int i = 0; i < 32; i++)
		n += snprintf(sql + n, sizeof sql - (size_t)n, "%02x", h[i]);
	snprintf(sql + n, sizeof sql - (size_t)n, "';");
	run_sql(f->path, sql);
	cm_pack *p = NULL;
	assert_int_not_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_null(p);
	assert_true(has_diag(f->d, "CM0407", NULL, "an id in table maps is not an id"));
	/* and the writer refuses to store one */
	cm_diags_clear(f->d);
	int wrc = cm_pack_write(f->path, UTIL_MAPS(&escape), 1, UTIL_SETS(f->sets), 2, f->d);
	assert_int_not_equal(wrc, 0);
	assert_true(has_diag(f->d, "CM0411", NULL, "a partial map is not packed"));
	cm_map_free(escape);
}

/* A written pack carries each map's client binary, equal to cm_export_bin. */
static void test_pack__write_stores_client_binary(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	unsigned char *want = NULL;
	size_t want_len = 0;
	assert_int_equal(util_export_bin(f->map, UTIL_SETS(f->sets), 2, 0, &want, &want_len), 0);
	cm_pack *p = NULL;
	uint8_t *data = NULL;
	size_t len = 0;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_map_binary(p, "sample", CM_EXPORT_BIN_MAJOR, &data, &len), 0);
	assert_int_equal(len, want_len);
	assert_memory_equal(data, want, len);
	free(data);
	free(want);
	cm_pack_close(p);
}

/* The bytes of path (NULL when there is no such file). */
static char *bytes_of(const char *path, size_t *len)
{
	struct stat st;
	*len = 0;
	return stat(path, &st) == 0 ? util_read_file(path, len) : NULL;
}

static void write_bytes(const char *path, const char *b, size_t len)
{
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(b, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* path's files now are the bytes given (pack, and the one beside it with
 * suffix beside), and no -shm, -wal or -journal file has appeared. */
static void assert_untouched(const char *path, const char *pack, size_t pack_len, const char *beside,
                             const char *side, size_t side_len)
{
	char other[4400];
	size_t len;
	char *now = bytes_of(path, &len);
	assert_non_null(now);
	assert_true(len == pack_len && memcmp(now, pack, len) == 0);
	free(now);
	static const char *const suffixes[] = { "-wal", "-journal", "-shm" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(other, sizeof other, "%s%s", path, suffixes[i]);
		now = bytes_of(other, &len);
		if (beside && strcmp(beside, suffixes[i]) == 0) {
			assert_non_null(now);
			assert_true(len == side_len && memcmp(now, side, len) == 0);
		} else if (now) {
			fail_msg("%s appeared beside the pack", other);
		}
		free(now);
	}
}

/* A pack is one file (issue 33.4): a -wal file beside it, here the WAL of
 * a copy whose map was renamed, is never applied (SQLite would read the
 * map's name from it) and never written, and no -shm is made beside it:
 * the opener refuses the pack and names the file (CM0412). */
static void test_pack__wal_beside_refused(void **state)
{
	fx *f = *state;
	char copy[4300], copy_wal[4400], wal[4400];
	assert_int_equal(write_sample(f, f->path), 0);
	snprintf(copy, sizeof copy, "%s/copy.pack", f->dir);
	snprintf(copy_wal, sizeof copy_wal, "%s-wal", copy);
	snprintf(wal, sizeof wal, "%s-wal", f->path);
	size_t pack_len, wal_len;
	char *pack = bytes_of(f->path, &pack_len);
	write_bytes(copy, pack, pack_len);
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open_v2(copy, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = WAL; UPDATE maps SET name = 'From the WAL'", NULL,
	                              NULL, NULL),
	                 SQLITE_OK);
	char *w = bytes_of(copy_wal, &wal_len);
	assert_non_null(w);
	assert_true(wal_len > 0);
	write_bytes(wal, w, wal_len);
	sqlite3_close(db);
	expect_open_fails(f, CM_EFORMAT, "CM0412", "x.pack-wal");
	assert_untouched(f->path, pack, pack_len, "-wal", w, wal_len);
	/* nor does loading it into a workspace (what compile, list, check do) */
	cm_workspace *ws = NULL;
	assert_int_equal(cm_workspace_new(&ws), 0);
	assert_int_equal(cm_workspace_load(ws, f->path, f->d), CM_EFORMAT);
	assert_int_equal(cm_workspace_map_count(ws), 0);
	cm_workspace_free(ws);
	assert_untouched(f->path, pack, pack_len, "-wal", w, wal_len);
	free(w);
	free(pack);
}

/* A rollback journal beside a pack (a write another program left
 * unfinished: pages of the file already changed, the journal holding the
 * old ones) is never applied and never removed: the opener says so (an I/O
 * failure to try again, no check id) and leaves both files as they are. */
static void test_pack__journal_beside_refused(void **state)
{
	fx *f = *state;
	char journal[4400];
	assert_int_equal(write_sample(f, f->path), 0);
	snprintf(journal, sizeof journal, "%s-journal", f->path);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* a writer that dies in the middle of its transaction */
		sqlite3 *db = NULL;
		if (sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
		    sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN; UPDATE squares SET name = 'half';"
		                     " UPDATE map_binary SET data = zeroblob(length(data))",
		                 NULL, NULL, NULL) != SQLITE_OK)
			_exit(2);
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	size_t pack_len, j_len;
	char *pack = bytes_of(f->path, &pack_len), *j = bytes_of(journal, &j_len);
	assert_non_null(j);
	expect_open_fails(f, CM_EIO, NULL, "x.pack-journal");
	assert_false(has_diag(f->d, "CM0404", NULL, NULL));
	assert_untouched(f->path, pack, pack_len, "-journal", j, j_len);
	free(pack);
	free(j);
}

/* The pack is opened as a file: URI (immutable): a path with the URI's
 * own characters in it, relative or absolute, names the file it names. */
static void test_pack__odd_path_opens(void **state)
{
	fx *f = *state;
	char odd[4400], rel[4400], cwd[4096];
	snprintf(odd, sizeof odd, "%s/a b%%20?x=1#y&immutable=0;.pack", f->dir);
	assert_int_equal(write_sample(f, odd), 0);
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(odd, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	cm_pack_close(p);
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(f->dir), 0);
	snprintf(rel, sizeof rel, "./%s", strrchr(odd, '/') + 1);
	int rc = cm_pack_open(rel, f->d, &p);
	cm_pack_close(p);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rc, 0);
}

/* A pack another process holds in a write transaction (BEGIN EXCLUSIVE):
 * opening it is a transient I/O failure (CM_EIO, a message saying it is
 * locked), never damage (CM0404), and it opens once the writer is done. */
static void test_pack__locked_by_writer_is_io_error(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	int ready[2], done[2];
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *db = NULL;
		char c = 'x';
		if (sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
		    sqlite3_exec(db, "BEGIN EXCLUSIVE; UPDATE squares SET name = 'W' WHERE x = 1 AND y = 1",
		                 NULL, NULL, NULL) != SQLITE_OK)
			c = 'e';
		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(2);
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(db);
		_exit(0);
	}
	char c = 0;
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(c, 'x');
	cm_pack *p = NULL;
	int rc = cm_pack_open(f->path, f->d, &p);
	assert_int_equal(write(done[1], "g", 1), 1);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
	assert_null(p);
	assert_int_equal(rc, CM_EIO);
	assert_true(has_diag(f->d, NULL, NULL, "locked by another program"));
	assert_false(has_diag(f->d, "CM0404", NULL, NULL));
	cm_diags_clear(f->d);
	/* the writer has rolled back: the pack is whole */
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
	cm_pack_close(p);
}

static void test_pack__map_binary(void **state)
{
	fx *f = *state;
	assert_int_equal(write_sample(f, f->path), 0);
	static const uint8_t blob[] = { 1, 2, 0, 3, 255 };
	assert_int_equal(cm_pack_put_map_binary(f->path, "sample", 1, blob, sizeof blob, f->d), 0);
	assert_int_equal(cm_pack_put_map_binary(f->path, "nowhere", 1, blob, sizeof blob, f->d),
	                 CM_ENOTFOUND);
	assert_int_equal(cm_pack_put_map_binary(f->path, "sample", 2, blob, 0, f->d), 0);
	assert_int_equal(util_dir_entries(f->dir), 1);

	cm_pack *p = NULL;
	uint8_t *data = NULL;
	size_t len = 0;
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_map_binary(p, "sample", 1, &data, &len), 0);
	assert_int_equal(len, sizeof blob);
	assert_memory_equal(data, blob, len);
	free(data);
	assert_int_equal(cm_pack_map_binary(p, "sample", 2, &data, &len), 0);
	assert_int_equal(len, 0);
	free(data);
	assert_int_equal(cm_pack_map_binary(p, "sample", 3, &data, &len), CM_ENOTFOUND);
	assert_null(data);
	assert_int_equal(cm_pack_map_binary(p, "nowhere", 1, &data, &len), CM_ENOTFOUND);
	/* the model is untouched, but bytes that are not its encoding in the
	 * version carcamap writes are refused by verification (CM0413) */
	assert_int_equal(cm_pack_verify_map(p, "sample", f->d), CM_EINVAL);
	assert_true(has_diag(f->d, "CM0413", "map sample", "differs from the encoding"));
	cm_diags_clear(f->d);
	cm_pack_close(p);

	/* replacing keeps one row per version */
	assert_int_equal(cm_pack_put_map_binary(f->path, "sample", 1, blob, 2, f->d), 0);
	assert_int_equal(cm_pack_open(f->path, f->d, &p), 0);
	assert_int_equal(cm_pack_map_binary(p, "sample", 1, &data, &len), 0);
	assert_int_equal(len, 2);
	free(data);
	cm_pack_close(p);
	assert_int_equal(cm_diags_count(f->d), 0);
}

/* The largest value a pack holds (CM__PACK_MAX_BLOB: what the writer
 * stores, SQLite's SQLITE_LIMIT_LENGTH for the reader), just inside and just
 * outside, with the limit held at 100000 bytes (cm__pack_open_limited and
 * cm__pack_put_map_binary_limited; 256 MiB costs more than a test may
 * spend): a binary of exactly the limit is stored and read back, one byte
 * more is refused by the writer, which leaves the pack as it was, and by
 * the reader, without a crash. */
static void test_pack__value_limit_on_both_sides(void **state)
{
	fx *f = *state;
	enum { LIMIT = 100000 };
	assert_int_equal(write_sample(f, f->path), 0);
	uint8_t *blob = malloc(LIMIT + 1);
	assert_non_null(blob);
	for (size_t i = 0; i <= LIMIT; i++)
		blob[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(cm__pack_put_map_binary_limited(f->path, "sample", 1, blob, LIMIT, LIMIT, f->d), 0);
	assert_int_equal(cm_diags_count(f->d), 0);
	struct stat before, after;
	assert_int_equal(stat(f->path, &before), 0);
	assert_int_equal(cm__pack_put_map_binary_limited(f->path, "sample", 1, blob, LIMIT + 1, LIMIT, f->d),
	                 CM_ELIMIT);
	assert_true(has_diag(f->d, NULL, NULL, "binary encoding of 100001 bytes is larger than the limit of 100000"));
	assert_int_equal(stat(f->path, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(after.st_size, before.st_size);
	assert_int_equal(util_dir_entries(f->dir), 1);
	cm_diags_clear(f->d);

	/* the stored binary is the pack's largest value: read at a limit of
	 * exactly its size, refused at one byte less */
	for (int over = 0; over < 2; over++) {
		cm_pack *p = NULL;
		uint8_t *data = NULL;
		size_t len = 0;
		assert_int_equal(cm__pack_open_limited(f->path, LIMIT - over, f->d, &p), 0);
		int rc = cm_pack_map_binary(p, "sample", 1, &data, &len);
		if (over) {
			assert_int_not_equal(rc, 0);
			assert_null(data);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(len, LIMIT);
			assert_memory_equal(data, blob, LIMIT);
		}
		free(data);
		/* the map itself, whose values are all smaller, reads either way */
		assert_int_equal(cm_pack_verify_map(p, "sample", f->d), 0);
		cm_pack_close(p);
	}
	assert_int_equal(cm_diags_count(f->d), 0);
	free(blob);
	/* values past the limit where the pack is opened: refused, and said */
	cm_pack *p = NULL;
	assert_int_equal(cm__pack_open_limited(f->path, 10, f->d, &p), CM_EFORMAT);
	assert_null(p);
	assert_true(has_diag(f->d, "CM0404", NULL, "string or blob too big"));
	cm_diags_clear(f->d);
}

/* Every CM04xx diagnostic raised here is catalogued with a title and a fix. */
static void test_pack__catalogue_rows(void **state)
{
	(void)state;
	for (int i = 1; i <= 11; i++) {
		char id[8];
		snprintf(id, sizeof id, "CM04%02d", i);
		const cm_check_info *c = cm_catalog_find(id);
		assert_non_null(c);
		assert_true(strlen(c->title) > 0 && strlen(c->fix) > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pack__round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__tile_markers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__empty_pack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__schema_other_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__deterministic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__hash_follows_content, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__path_as_map_id_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__failed_write_keeps_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__unwritable_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__foreign_sqlite_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__not_sqlite, setup, teardown),
		cmocka_unit_test(test_pack__hash_v2_defined),
		cmocka_unit_test(test_pack__hash_v2_follows_squares),
		cmocka_unit_test_setup_teardown(test_pack__hash_version_by_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__binary_compared_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__newer_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__old_pack_binary_1_0, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__trigger_or_view_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__schema_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__schema_refused_before_evaluated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__check_constraint_not_evaluated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__dangling_deck_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__wal_beside_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__odd_path_opens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__journal_beside_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__corrupt_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__hostile_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__locked_by_writer_is_io_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__workspace_keeps_verified_hash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__dense_print_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__structure_pass_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__map_binary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__value_limit_on_both_sides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack__write_stores_client_binary, setup, teardown),
		cmocka_unit_test(test_pack__catalogue_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
