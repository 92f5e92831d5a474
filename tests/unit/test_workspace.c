/* SPDX-License-Identifier: MIT */
/* test_workspace.c: the workspace's id index (base/idindex.c) and what
 * uses it: cm_workspace_find_map and find_tileset, the duplicate-id check
 * when adding, the verified hash a pack's map keeps (cm_workspace_map_hash),
 * the sets of a deck each once, and one CM0212 per missing set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sqlite3.h>
#include "carcamap/carcamap.h"
#include "base/idindex_int.h"
#include "base/util_int.h"
#include "model/workspace_int.h"
#include "util_files.h"
#include "util_model.h"

#define MANY 20000

static char *id_of(const char *fmt, unsigned i)
{
	char buf[128];
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
	snprintf(buf, sizeof buf, fmt, i);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
	char *s = strdup(buf);
	assert_non_null(s);
	return s;
}

/* Keys of every shape: numbered, sharing a 60-byte prefix, each a prefix
 * of the next ("a", "aa", ...), differing in the last bit only. Each is
 * found at its position, nothing else is, and a key already there is
 * refused. */
static void test_workspace__index_finds_every_key(void **state)
{
	(void)state;
	const char *fmts[] = { "m%u", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa%u", "%u-x" };
	size_t n = 0, cap = 3 * MANY + 200;
	char **keys = calloc(cap, sizeof *keys);
	assert_non_null(keys);
	for (size_t f = 0; f < 3; f++)
		for (unsigned i = 0; i < MANY; i++)
			keys[n++] = id_of(fmts[f], i);
	char run[65] = "";
	for (unsigned i = 0; i < 64; i++) {
		run[i] = 'a';
		run[i + 1] = '\0';
		keys[n++] = strdup(run);
	}
	keys[n++] = strdup("b"); /* 0x62 and 0x63: one bit apart */
	keys[n++] = strdup("c");
	keys[n++] = strdup("");
	cm_idindex x = { 0 };
	assert_int_equal(cm_idindex_find(&x, "m0"), CM_IDINDEX_NONE);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(keys[i]);
		assert_int_equal(cm_idindex_find(&x, keys[i]), CM_IDINDEX_NONE);
		assert_int_equal(cm_idindex_add(&x, keys[i]), 0);
	}
	for (size_t i = 0; i < n; i++)
		assert_int_equal(cm_idindex_find(&x, keys[i]), i);
	/* a prefix and an extension of keys, and 65 a's (the run stops at 64) */
	const char *absent[] = { "m", "m00", "m20000", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		                 "a-", "d", "m1\x7f", "x", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1-" };
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
		assert_int_equal(cm_idindex_find(&x, absent[i]), CM_IDINDEX_NONE);
	assert_int_equal(cm_idindex_find(&x, NULL), CM_IDINDEX_NONE);
	assert_int_equal(cm_idindex_add(&x, "m17"), CM_EINVAL);
	assert_int_equal(cm_idindex_add(&x, ""), CM_EINVAL);
	assert_int_equal(x.n, n);
	cm_idindex_free(&x);
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

/* Many maps with colliding prefixes: each found by its id in load order,
 * a second map of an id already there refused (CM0006, naming where the
 * first came from) and freed, the workspace unchanged by it. */
static void test_workspace__many_maps_and_a_duplicate(void **state)
{
	(void)state;
	cm_workspace *w = NULL;
	cm_diags *d = NULL;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_diags_new(&d), 0);
	for (unsigned i = 0; i < MANY; i++) {
		char *id = id_of(i % 2 ? "map-%u" : "map-%u-c3", i / 2);
		assert_int_equal(cm_workspace_take_map(w, util_map_one_square(id, "base"), i % 3 ? "a.xml" : "b.pack", d), 0);
		free(id);
	}
	assert_int_equal(cm_diags_count(d), 0);
	assert_int_equal(cm_workspace_map_count(w), MANY);
	for (unsigned i = 0; i < MANY; i++) {
		char *id = id_of(i % 2 ? "map-%u" : "map-%u-c3", i / 2);
		const cm_map *m = cm_workspace_find_map(w, id);
		assert_non_null(m);
		assert_ptr_equal(m, cm_workspace_map(w, i));
		assert_string_equal(cm_map_id(m), id);
		assert_int_equal(cm__workspace_map_pos(w, m), i);
		free(id);
	}
	assert_null(cm_workspace_find_map(w, "map-"));
	assert_null(cm_workspace_find_map(w, "map-1-c"));
	assert_null(cm_workspace_find_map(w, "map-10000"));
	assert_int_equal(cm_workspace_take_map(w, util_map_one_square("map-7-c3", "base"), "c.xml", d), CM_EINVAL);
	assert_int_equal(cm_workspace_map_count(w), MANY);
	assert_int_equal(cm_diags_count(d), 1);
	const cm_diag *g = cm_diags_get(d, 0);
	assert_string_equal(g->rule, "CM0006");
	assert_string_equal(g->file, "c.xml");
	assert_string_equal(g->message, "map id 'map-7-c3' is defined twice (first in a.xml)");
	/* a map not in the workspace has no position, even with an id that is */
	cm_map *other = util_map_one_square("map-7", "base");
	assert_int_equal(cm__workspace_map_pos(w, other), CM_IDINDEX_NONE);
	cm_map_free(other);
	cm_diags_free(d);
	cm_workspace_free(w);
}

/* A pack of many maps read into a workspace: each map keeps the hash its
 * reading verified, equal to cm_map_hash of the model; the same pack
 * loaded again adds nothing (equal content is kept once) and every hash
 * is still the verified one; a map edited after loading keeps it (the
 * documented limit: carcamap/workspace.h), one the workspace does not
 * hold is hashed from its content. */
/* cm_workspace_set_map_only: a pack's other maps are never read (a damaged
 * one says nothing), only the sets the maps read name are loaded, a
 * printing of the map comes with it, and a pack without the map is read
 * whole. */
static void test_workspace__one_map_of_a_pack(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	assert_non_null(dir);
	char path[4200];
	snprintf(path, sizeof path, "%s/four.pack", dir);
	cm_tileset *sets[2] = { util_tileset_base(), util_tileset_inns() };
	cm_map *maps[4] = { util_map_one_square("a", "inns"), util_map_one_square("a-c3", "inns"),
		            util_map_one_square("b", "base"), util_map_one_square("c", "base") };
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_pack_write(path, UTIL_MAPS(maps), 4, UTIL_SETS(sets), 2, d), 0);
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE maps SET name = 'edited' WHERE id = 'b'", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	static const struct {
		const char *only;
		int rc;
		size_t maps, sets, diags;
	} cases[] = {
		{ "a", 0, 2, 1, 0 },             /* a and a-c3; inns; b never read */
		{ "c", 0, 1, 1, 0 },             /* c; base */
		{ "b", CM_EINVAL, 0, 1, 1 },     /* b's hash: CM0408 */
		{ "zzz", CM_EINVAL, 3, 2, 1 },   /* none: every map read, b refused */
		{ NULL, CM_EINVAL, 3, 2, 1 },    /* every map */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cm_workspace *w = NULL;
		cm_diags_clear(d);
		assert_int_equal(cm_workspace_new(&w), 0);
		assert_int_equal(cm_workspace_set_map_only(w, cases[i].only), 0);
		assert_int_equal(cm_workspace_load(w, path, d), cases[i].rc);
		assert_int_equal(cm_workspace_map_count(w), cases[i].maps);
		assert_int_equal(cm_workspace_tileset_count(w), cases[i].sets);
		assert_int_equal(cm_diags_count(d), cases[i].diags);
		if (cases[i].diags)
			assert_string_equal(cm_diags_get(d, 0)->rule, "CM0408");
		cm_workspace_free(w);
	}
	cm_diags_free(d);
	for (int i = 0; i < 4; i++)
		cm_map_free(maps[i]);
	cm_tileset_free(sets[0]);
	cm_tileset_free(sets[1]);
	util_rmtree(dir);
}

static void test_workspace__pack_maps_keep_their_hashes(void **state)
{
	(void)state;
	enum { N = 300 };
	char *dir = util_tempdir();
	assert_non_null(dir);
	char path[4200];
	snprintf(path, sizeof path, "%s/many.pack", dir);
	cm_tileset *sets[2] = { util_tileset_base(), util_tileset_inns() };
	cm_map *maps[N];
	for (unsigned i = 0; i < N; i++) {
		char *id = id_of("z%u", i);
		cm_map_builder *b = util_map_one_square_builder(id, i % 2 ? "base" : "inns");
		free(id);
		if (i % 5 == 0)
			util_deck_add(b, "base", "E", 2);
		maps[i] = util_finish(b);
	}
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_pack_write(path, UTIL_MAPS(maps), N, UTIL_SETS(sets), 2, d), 0);
	cm_workspace *w = NULL;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_workspace_load(w, path, d), 0);
	assert_int_equal(cm_workspace_load(w, path, d), 0);
	assert_int_equal(cm_diags_count(d), 0);
	assert_int_equal(cm_workspace_map_count(w), N);
	assert_int_equal(cm_workspace_tileset_count(w), 2);
	for (unsigned i = 0; i < N; i++) {
		uint8_t want[32], got[32];
		assert_int_equal(cm_map_hash(maps[i], UTIL_SETS(sets), 2, want), 0);
		const cm_map *m = cm_workspace_find_map(w, cm_map_id(maps[i]));
		assert_non_null(m);
		size_t at = cm__workspace_map_pos(w, m);
		assert_int_not_equal(at, CM_IDINDEX_NONE);
		assert_true(w->hashes[at].known);
		assert_int_equal(cm_workspace_map_hash(w, m, got), 0);
		assert_memory_equal(got, want, 32);
		/* the deck's sets, each once, sorted by id */
		const cm_tileset **v = NULL;
		size_t n = 0;
		assert_int_equal(cm_workspace_map_sets(w, m, &v, &n), 0);
		assert_int_equal(n, i % 5 == 0 && i % 2 == 0 ? 2 : 1);
		assert_string_equal(v[0]->id, i % 2 || i % 5 == 0 ? "base" : "inns");
		if (n == 2)
			assert_string_equal(v[1]->id, "inns");
		free(v);
	}
	/* a changed map is a new map, with a hash of its own */
	const cm_map *m = cm_workspace_find_map(w, "z3");
	uint8_t before[32], after[32];
	assert_int_equal(cm_workspace_map_hash(w, m, before), 0);
	cm_map_builder *b = util_from(m);
	util_name_set(b, 0, 0, "Renamed");
	cm_map *renamed = util_finish(b);
	assert_int_equal(cm_workspace_map_hash(w, m, after), 0);
	assert_memory_equal(before, after, 32);
	assert_int_equal(cm_workspace_map_hash(w, renamed, after), 0);
	assert_memory_not_equal(before, after, 32);
	cm_map_free(renamed);
	cm_workspace_free(w);
	for (unsigned i = 0; i < N; i++)
		cm_map_free(maps[i]);
	cm_tileset_free(sets[0]);
	cm_tileset_free(sets[1]);
	cm_diags_free(d);
	util_rmtree(dir);
}

/* A deck naming missing sets many times: one CM0212 per set, at its
 * first deck line, in deck order. */
static void test_workspace__missing_set_said_once(void **state)
{
	(void)state;
	cm_workspace *w = NULL;
	cm_diags *d = NULL;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map_builder *b = util_builder(1, 1);
	util_id_set(b, "lonely", "lonely");
	util_kind_set(b, 0, 0, CM_SQ_START);
	util_setup_starts(b, 1);
	const char *names[] = { "nosuch", "other", "nosuch", "other", "third", "nosuch" };
	for (size_t i = 0; i < 6; i++) {
		cm_deck_entry e = { (char *)names[i], i ? "A" : NULL, i ? 1 : -1, (unsigned)(10 + i) };
		assert_int_equal(cm_map_builder_add_deck_entry(b, &e), 0);
	}
	cm_map *m = util_finish(b);
	assert_int_equal(cm_workspace_take_map(w, m, "lonely.xml", d), 0);
	assert_int_not_equal(cm_workspace_resolve(w, d), CM_ENOMEM);
	const char *want[] = { "nosuch", "other", "third" };
	unsigned lines[] = { 10, 11, 14 };
	size_t k = 0;
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if (!g->rule || strcmp(g->rule, "CM0212") != 0)
			continue;
		assert_true(k < 3);
		char msg[200];
		snprintf(msg, sizeof msg, "tile set '%s' not found", want[k]);
		assert_non_null(strstr(g->message, msg));
		assert_int_equal(g->line, lines[k]);
		k++;
	}
	assert_int_equal(k, 3);
	cm_diags_free(d);
	cm_workspace_free(w);
}

/* A search directory is read in name order, the first file of an id
 * winning, and each file at most once to no purpose: a set met while
 * looking for another is taken later from the same file, and a broken
 * file is noted once however many sets are missing. */
static void write_set(const char *dir, const char *file, const char *id, const char *name)
{
	size_t n = 0;
	char *text = util_read_file("maps/tilesets/base.xml", &n); /* a real set, renamed */
	assert_non_null(text);
	const char *head = "id=\"base\" name=\"Base game\"";
	char *at = strstr(text, head);
	assert_non_null(at);
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%.*sid=\"%s\" name=\"%s\"%s", (int)(at - text), text, id, name, at + strlen(head));
	assert_int_equal(fclose(f), 0);
	free(text);
}

static void test_workspace__search_dir_read_once_in_name_order(void **state)
{
	(void)state;
	char dir[] = "/tmp/cm-ws-search-XXXXXX";
	assert_non_null(mkdtemp(dir));
	write_set(dir, "a.xml", "x", "first x");
	write_set(dir, "b.xml", "y", "the y");
	write_set(dir, "c.xml", "x", "second x");
	char path[512];
	snprintf(path, sizeof path, "%s/d.xml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("<tileset format=\"1\" id=\"broken\"", f); /* cut short */
	assert_int_equal(fclose(f), 0);
	cm_workspace *w = NULL;
	cm_diags *d = NULL;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, dir), 0);
	cm_map_builder *b = util_map_one_square_builder("searcher", "y");
	const char *names[] = { "x", "z1", "x", "z2", "z3" };
	for (size_t i = 0; i < 5; i++)
		util_deck_add(b, names[i], NULL, -1);
	cm_map *m = util_finish(b);
	assert_int_equal(cm_workspace_take_map(w, m, "searcher.xml", d), 0);
	assert_int_not_equal(cm_workspace_resolve(w, d), CM_ENOMEM);
	const cm_tileset *x = cm_workspace_find_tileset(w, "x"), *y = cm_workspace_find_tileset(w, "y");
	assert_non_null(x);
	assert_non_null(y);
	assert_string_equal(x->name, "first x");
	assert_string_equal(y->name, "the y");
	assert_null(cm_workspace_find_tileset(w, "z1"));
	size_t missing = 0, notes = 0;
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if (g->rule && strcmp(g->rule, "CM0212") == 0)
			missing++;
		if (g->severity == CM_SEV_NOTE && strstr(g->message, "skipped while looking for tile set 'z1'"))
			notes++;
		assert_false(g->severity == CM_SEV_NOTE && strstr(g->message, "'z2'"));
	}
	assert_int_equal(missing, 3);
	assert_int_equal(notes, 1);
	cm_diags_free(d);
	cm_workspace_free(w);
	const char *files[] = { "a.xml", "b.xml", "c.xml", "d.xml" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		assert_int_equal(remove(path), 0);
	}
	assert_int_equal(rmdir(dir), 0);
}

/* A set is looked for first in the file named after it (x.xml for x), so
 * a deck's sets are found without reading the directory's others (check
 * loads only what the deck names); a set in a file named otherwise is
 * still found in name order. */
static void test_workspace__search_dir_named_file_first(void **state)
{
	(void)state;
	char dir[] = "/tmp/cm-ws-named-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[512];
	snprintf(path, sizeof path, "%s/a.xml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("<tileset format=\"1\" id=\"broken\"", f); /* cut short */
	assert_int_equal(fclose(f), 0);
	write_set(dir, "b.xml", "x", "x in b");
	write_set(dir, "x.xml", "x", "x in x");
	write_set(dir, "y.xml", "z", "z in y");
	cm_workspace *w = NULL;
	cm_diags *d = NULL;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, dir), 0);
	cm_map_builder *b = util_map_one_square_builder("named", "x");
	util_deck_add(b, "z", NULL, -1);
	cm_map *m = util_finish(b);
	assert_int_equal(cm_workspace_take_map(w, m, "named.xml", d), 0);
	assert_int_equal(cm_workspace_resolve(w, d), 0);
	const cm_tileset *x = cm_workspace_find_tileset(w, "x"), *z = cm_workspace_find_tileset(w, "z");
	assert_non_null(x);
	assert_non_null(z);
	assert_string_equal(x->name, "x in x");
	assert_string_equal(z->name, "z in y");
	size_t notes_x = 0, notes_z = 0;
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		notes_x += g->severity == CM_SEV_NOTE && strstr(g->message, "'x'") != NULL;
		notes_z += g->severity == CM_SEV_NOTE && strstr(g->message, "'z'") != NULL;
	}
	assert_int_equal(notes_x, 0); /* a.xml never read for x */
	assert_int_equal(notes_z, 1); /* but read, once, while z was looked for */
	/* only the deck's sets are loaded: b.xml's x never was */
	assert_int_equal(cm_workspace_tileset_count(w), 2);
	cm_diags_free(d);
	cm_workspace_free(w);
	const char *files[] = { "a.xml", "b.xml", "x.xml", "y.xml" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		assert_int_equal(remove(path), 0);
	}
	assert_int_equal(rmdir(dir), 0);
}

/* The error count cm_check asks after every map is kept as diagnostics
 * come, and cleared with them. */
static void test_workspace__diagnostic_counts(void **state)
{
	(void)state;
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	for (unsigned i = 0; i < 3000; i++)
		cm_diags_add(d, (cm_severity)(i % 3), NULL, "f", i, 0, NULL, "m");
	assert_int_equal(cm_diags_errors(d), 1000);
	assert_int_equal(cm_diags_count_at_least(d, CM_SEV_WARNING), 2000);
	assert_int_equal(cm_diags_count_at_least(d, CM_SEV_NOTE), 3000);
	cm_diags_set_strict(d, 1);
	cm_diags_add(d, CM_SEV_WARNING, NULL, "f", 1, 0, NULL, "now an error");
	assert_int_equal(cm_diags_errors(d), 1001);
	cm_diags_clear(d);
	assert_int_equal(cm_diags_errors(d), 0);
	assert_int_equal(cm_diags_count_at_least(d, CM_SEV_NOTE), 0);
	cm_diags_free(d);
}

/* A pack of more maps than a reader takes (CM_ITEMS_MAX) is refused
 * before anything is written, not written and then refused on reading. */
static void test_workspace__pack_of_too_many_maps_refused(void **state)
{
	(void)state;
	enum { N = CM_ITEMS_MAX + 1 };
	char *dir = util_tempdir();
	assert_non_null(dir);
	char path[4200];
	snprintf(path, sizeof path, "%s/big.pack", dir);
	cm_map **maps = calloc(N, sizeof *maps);
	assert_non_null(maps);
	for (unsigned i = 0; i < N; i++) {
		char *id = id_of("m%u", i);
		maps[i] = util_map_one_square(id, "base");
		free(id);
	}
	cm_tileset *base = util_tileset_base();
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_pack_write(path, UTIL_MAPS(maps), N, UTIL_SETS(&base), 1, d), CM_EINVAL);
	assert_int_equal(cm_diags_count(d), 1);
	assert_string_equal(cm_diags_get(d, 0)->rule, "CM0411");
	FILE *f = fopen(path, "rb");
	assert_null(f);
	for (unsigned i = 0; i < N; i++)
		cm_map_free(maps[i]);
	free(maps);
	cm_tileset_free(base);
	cm_diags_free(d);
	util_rmtree(dir);
}

/* A file's text is kept as long as its diagnostics: a compile of 32,768
 * one-square descriptors kept a 64 KB read buffer per file (1 GB
 * resident). The buffer is cut to the file's size once read. */
static void test_workspace__read_buffer_fits_the_file(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	assert_non_null(dir);
	char path[4200];
	snprintf(path, sizeof path, "%s/small.xml", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	for (int i = 0; i < 30; i++)
		fputs("<!-- a small descriptor -->\n", f);
	assert_int_equal(fclose(f), 0);
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	char *buf = NULL;
	size_t len = 0;
	assert_int_equal(cm_read_file(path, CM_MAX_INPUT_BYTES, d, &buf, &len), 0);
	assert_int_equal(len, 30 * strlen("<!-- a small descriptor -->\n"));
	assert_int_equal(buf[len], '\0');
#if defined(__GLIBC__)
	assert_true(malloc_usable_size(buf) < 8192);
#endif
	free(buf);
	cm_diags_free(d);
	util_rmtree(dir);
}

/* cm_read_file reads a file of exactly max bytes ("at most max bytes")
 * and refuses one byte more with CM0004, for limits below, at and past the
 * first buffer's size and its doublings (the 64 MiB input limit's own
 * file is a hostile case: tileset/input-at-limit.xml). */
static void test_workspace__read_limit_on_both_sides(void **state)
{
	(void)state;
	static const size_t maxes[] = { 1, 10, 65535, 65536, 65537, 131072, 200000 };
	char *dir = util_tempdir(), path[4200];
	assert_non_null(dir);
	snprintf(path, sizeof path, "%s/limit.xml", dir);
	for (size_t i = 0; i < sizeof maxes / sizeof *maxes; i++)
		for (int over = 0; over < 2; over++) {
			size_t size = maxes[i] + (size_t)over;
			FILE *f = fopen(path, "wb");
			assert_non_null(f);
			for (size_t k = 0; k < size; k++)
				fputc('x', f);
			assert_int_equal(fclose(f), 0);
			cm_diags *d = NULL;
			assert_int_equal(cm_diags_new(&d), 0);
			char *buf = NULL;
			size_t len = 0;
			int rc = cm_read_file(path, maxes[i], d, &buf, &len);
			if (over) {
				assert_int_equal(rc, CM_ELIMIT);
				assert_null(buf);
				assert_int_equal(cm_diags_count(d), 1);
				assert_string_equal(cm_diags_get(d, 0)->rule, "CM0004");
			} else {
				if (rc)
					fail_msg("a file of %zu bytes, the limit: rc %d", size, rc);
				assert_int_equal(len, size);
				assert_int_equal(buf[len], '\0');
				assert_int_equal(cm_diags_count(d), 0);
			}
			free(buf);
			cm_diags_free(d);
		}
	util_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workspace__index_finds_every_key),
		cmocka_unit_test(test_workspace__read_buffer_fits_the_file),
		cmocka_unit_test(test_workspace__read_limit_on_both_sides),
		cmocka_unit_test(test_workspace__many_maps_and_a_duplicate),
		cmocka_unit_test(test_workspace__pack_maps_keep_their_hashes),
		cmocka_unit_test(test_workspace__one_map_of_a_pack),
		cmocka_unit_test(test_workspace__missing_set_said_once),
		cmocka_unit_test(test_workspace__search_dir_read_once_in_name_order),
		cmocka_unit_test(test_workspace__search_dir_named_file_first),
		cmocka_unit_test(test_workspace__diagnostic_counts),
		cmocka_unit_test(test_workspace__pack_of_too_many_maps_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
