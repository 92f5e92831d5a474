/* SPDX-License-Identifier: MIT */
/* test_about.c: who made a map (cm_about, the descriptor's <about>): the
 * round trip descriptor -> pack -> map, JSON and TMX exports and the
 * canonical XML; the content hash counting the fields only when given;
 * packs older than the map_about table; hostile fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "carcamap/export.h"
#include "carcamap/map.h"
#include "carcamap/pack.h"
#include "carcamap/tmx.h"
#include "base/util_int.h"
#include "util_files.h"
#include "util_model.h"

static const char *const want[CM_ABOUT_FIELDS] = {
	"A tiny board", "Ana Maker", "CC-BY-4.0", "1.2", "Six squares & a start: \xc3\xa9t\xc3\xa9.",
	"https://example.org/tiny"
};

#define DESC_HEAD "<map format=\"1\" id=\"about\" name=\"About\">\n"
#define DESC_ABOUT                                                                              \
	"  <about title=\"A tiny board\" author=\"Ana Maker\" licence=\"CC-BY-4.0\" version=\"1.2\"\n" \
	"         description=\"Six squares &amp; a start: \xc3\xa9t\xc3\xa9.\"\n"                     \
	"         homepage=\"https://example.org/tiny\"/>\n"
#define DESC_TAIL                      \
	"  <grid>\n    S#####\n  </grid>\n" \
	"  <deck><set id=\"base\"/></deck>\n</map>\n"

static cm_map *load(const char *text, cm_diags *d)
{
	cm_map *m = NULL;
	int rc = cm_map_load_memory(text, strlen(text), "about.xml", d, &m);
	if (rc) {
		char *t = util_diags_text(d);
		fail_msg("descriptor does not load:\n%s", t);
	}
	return m;
}

static void expect_all(const cm_map *m)
{
	for (int i = 0; i < CM_ABOUT_FIELDS; i++) {
		assert_non_null(cm_about_get(cm_map_about(m), i));
		assert_string_equal(cm_about_get(cm_map_about(m), i), want[i]);
	}
}

static void hash_of(const cm_map *m, cm_tileset *set, uint8_t out[32])
{
	assert_int_equal(cm_map_hash(m, UTIL_SETS(&set), 1, out), 0);
}

static void test_about__names(void **state)
{
	(void)state;
	static const char *const n[CM_ABOUT_FIELDS] = { "title", "author", "licence", "version",
	                                                 "description", "homepage" };
	for (int i = 0; i < CM_ABOUT_FIELDS; i++) {
		assert_string_equal(cm_about_name(i), n[i]);
		assert_int_equal(cm_about_find(n[i]), i);
	}
	assert_null(cm_about_name(CM_ABOUT_FIELDS));
	assert_int_equal(cm_about_find("license"), -1);
	cm_about a = { 0 };
	assert_false(cm_about_present(&a));
	a.homepage = (char *)"x";
	assert_true(cm_about_present(&a));
}

/* descriptor -> pack -> map, then JSON, TMX and XML from what the pack gave */
static void test_about__round_trip(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *m = load(DESC_HEAD DESC_ABOUT DESC_TAIL, d);
	expect_all(m);
	cm_tileset *set = util_tileset_base();
	char *dir = util_tempdir();
	char path[600];
	snprintf(path, sizeof path, "%s/a.pack", dir);
	assert_int_equal(cm_pack_write(path, UTIL_MAPS(&m), 1, UTIL_SETS(&set), 1, d), 0);
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(path, d, &p), 0);
	cm_map *b = NULL;
	assert_int_equal(cm_pack_read_map_verified(p, "about", d, &b), 0);
	expect_all(b);
	assert_true(cm_map_equal(m, b));
	uint8_t h1[32], h2[32], stored[32];
	hash_of(m, set, h1);
	hash_of(b, set, h2);
	assert_int_equal(cm_pack_map_hash(p, "about", stored), 0);
	assert_memory_equal(h1, h2, 32);
	assert_memory_equal(h1, stored, 32);

	/* JSON: every field under "about" */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(util_export_json(b, UTIL_SETS(&set), 1, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"about\": {\n    \"title\": \"A tiny board\",\n"
	                            "    \"author\": \"Ana Maker\",\n    \"licence\": \"CC-BY-4.0\",\n"
	                            "    \"version\": \"1.2\",\n"));
	assert_non_null(strstr(buf, "\"homepage\": \"https://example.org/tiny\"\n  }"));
	free(buf);

	/* TMX: map properties about.*, read back by the TMX reader */
	char tmx[640];
	snprintf(tmx, sizeof tmx, "%s/a.tmx", dir);
	assert_int_equal(util_export_tmx(b, tmx, "carcamap-kinds.tsx", d), 0);
	char *text = util_read_file(tmx, &len);
	assert_non_null(strstr(text, "<property name=\"about.licence\" value=\"CC-BY-4.0\"/>"));
	free(text);
	cm_map *t = NULL;
	if (cm_tmx_load_file(tmx, d, &t) != 0)
		fail_msg("TMX read back:\n%s", util_diags_text(d));
	expect_all(t);
	uint8_t h3[32];
	hash_of(t, set, h3);
	assert_memory_equal(h1, h3, 32);

	/* the canonical XML: read again, the same map and the same hash */
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(cm_map_write_xml(b, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "<about title=\"A tiny board\""));
	cm_map *x = load(buf, d);
	free(buf);
	expect_all(x);
	uint8_t h4[32];
	hash_of(x, set, h4);
	assert_memory_equal(h1, h4, 32);

	cm_map_free(x);
	cm_map_free(t);
	cm_map_free(b);
	cm_pack_close(p);
	cm_map_free(m);
	cm_tileset_free(set);
	util_rmtree(dir);
	cm_diags_free(d);
}

/* Without <about> the hash is what it was before the fields existed (the
 * bundled maps' recorded hashes rely on it); each given field changes it. */
static void test_about__hash_only_when_present(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *plain = load(DESC_HEAD DESC_TAIL, d), *full = load(DESC_HEAD DESC_ABOUT DESC_TAIL, d);
	assert_false(cm_about_present(cm_map_about(plain)));
	cm_tileset *set = util_tileset_base();
	uint8_t a[32], b[32], c[32];
	hash_of(plain, set, a);
	hash_of(full, set, b);
	assert_memory_not_equal(a, b, 32);
	for (int i = 0; i < CM_ABOUT_FIELDS; i++) {
		cm_map_builder *mb = util_from(plain);
		assert_int_equal(cm_map_builder_set_about(mb, i, "x"), 0);
		cm_map *x = util_finish(mb);
		hash_of(x, set, c);
		assert_memory_not_equal(a, c, 32);
		/* cleared again: the map of before */
		mb = util_from(x);
		assert_int_equal(cm_map_builder_set_about(mb, i, NULL), 0);
		cm_map *y = util_finish(mb);
		hash_of(y, set, c);
		assert_memory_equal(a, c, 32);
		cm_map_free(x);
		cm_map_free(y);
	}
	/* the same text in two fields is two different maps */
	cm_map_builder *mb = util_from(plain);
	assert_int_equal(cm_map_builder_set_about(mb, 0, "x"), 0);
	cm_map *title = util_finish(mb);
	mb = util_from(plain);
	assert_int_equal(cm_map_builder_set_about(mb, 1, "x"), 0);
	cm_map *author = util_finish(mb);
	hash_of(title, set, b);
	hash_of(author, set, c);
	assert_memory_not_equal(b, c, 32);
	cm_map_free(title);
	cm_map_free(author);
	cm_map_free(plain);
	cm_map_free(full);
	cm_tileset_free(set);
	cm_diags_free(d);
}

static void run_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static bool has_rule(const cm_diags *d, const char *rule, const char *part)
{
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if (g->rule && strcmp(g->rule, rule) == 0 && strstr(g->message, part))
			return true;
	}
	return false;
}

/* A pack written before map_about existed reads as maps without it; a
 * damaged map_about row is refused. */
static void test_about__older_and_damaged_packs(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *m = load(DESC_HEAD DESC_ABOUT DESC_TAIL, d);
	cm_tileset *set = util_tileset_base();
	char *dir = util_tempdir();
	char path[600];
	snprintf(path, sizeof path, "%s/a.pack", dir);
	static const char *const bad[] = {
		"UPDATE map_about SET key = 'licenze' WHERE key = 'licence'",
		"UPDATE map_about SET value = 'a' || char(27) || '[2J' WHERE key = 'title'",
		"UPDATE map_about SET value = '' WHERE key = 'title'",
		"UPDATE map_about SET value = printf('%300s', 'x') WHERE key = 'author'",
	};
	static const char *const msg[] = { "licenze", "title", "title is empty", "author is longer" };
	static const char *const rule[] = { "CM0407", "CM0407", "CM0407", "CM0407" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		remove(path);
		assert_int_equal(cm_pack_write(path, UTIL_MAPS(&m), 1, UTIL_SETS(&set), 1, d), 0);
		run_sql(path, bad[i]);
		cm_diags *e;
		assert_int_equal(cm_diags_new(&e), 0);
		cm_pack *p = NULL;
		assert_int_equal(cm_pack_open(path, e, &p), 0);
		cm_map *b = NULL;
		assert_int_not_equal(cm_pack_read_map(p, "about", e, &b), 0);
		assert_null(b);
		if (!has_rule(e, rule[i], msg[i]))
			fail_msg("case %zu: no %s about %s:\n%s", i, rule[i], msg[i], util_diags_text(e));
		cm_pack_close(p);
		cm_diags_free(e);
	}
	/* the older pack: no table at all */
	remove(path);
	assert_int_equal(cm_pack_write(path, UTIL_MAPS(&m), 1, UTIL_SETS(&set), 1, d), 0);
	run_sql(path, "DROP TABLE map_about");
	cm_pack *p = NULL;
	assert_int_equal(cm_pack_open(path, d, &p), 0);
	cm_map *b = NULL;
	assert_int_equal(cm_pack_read_map(p, "about", d, &b), 0);
	assert_false(cm_about_present(cm_map_about(b)));
	cm_map_free(b);
	cm_pack_close(p);
	cm_map_free(m);
	cm_tileset_free(set);
	util_rmtree(dir);
	cm_diags_free(d);
}

/* Over-long fields, control characters and bidi controls: diagnostics
 * from the descriptor reader, and no XML from the writer. */
static void test_about__hostile_fields(void **state)
{
	(void)state;
	char longer[400];
	memset(longer, 'a', 300);
	longer[300] = 0;
	char *cases[5];
	cases[0] = cm_asprintf(DESC_HEAD "  <about title=\"%s\"/>\n" DESC_TAIL, longer);
	cases[1] = cm_asprintf(DESC_HEAD "  <about author=\"tab&#9;here\"/>\n" DESC_TAIL);
	cases[2] = cm_asprintf(DESC_HEAD "  <about licence=\"line&#10;break\"/>\n" DESC_TAIL);
	cases[3] = cm_asprintf(DESC_HEAD "  <about homepage=\"\xe2\x80\xae" "evil\"/>\n" DESC_TAIL);
	cases[4] = cm_asprintf(DESC_HEAD "  <about description=\"%s%s%s%s%s%s%s%s%s%s%s%s%s%s\"/>\n" DESC_TAIL,
	                       longer, longer, longer, longer, longer, longer, longer, longer, longer, longer,
	                       longer, longer, longer, longer);
	/* control characters are caught by the XML layer (CM0007) already */
	static const char *const rule[5] = { "CM0219", "CM0007", "CM0007", "CM0007", "CM0219" };
	static const char *const part[5] = { "about title is longer than 256 bytes",
	                                     "author of <about> holds a control character",
	                                     "licence of <about> holds a control character",
	                                     "homepage of <about> holds a bidirectional control",
	                                     "about description is longer than 4096 bytes" };
	for (int i = 0; i < 5; i++) {
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_map *m = NULL;
		assert_int_equal(cm_map_load_memory(cases[i], strlen(cases[i]), "h.xml", d, &m), CM_EINVAL);
		assert_null(m);
		if (!has_rule(d, rule[i], part[i]))
			fail_msg("case %d: no %s '%s':\n%s", i, rule[i], part[i], util_diags_text(d));
		cm_diags_free(d);
		free(cases[i]);
	}
	/* a field of exactly the limit is fine */
	longer[256] = 0;
	char *ok = cm_asprintf(DESC_HEAD "  <about title=\"%s\"/>\n" DESC_TAIL, longer);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *m = load(ok, d);
	free(ok);
	/* no map holds what the checker refuses: the builder's finish says so */
	cm_map_builder *mb = util_from(m);
	assert_int_equal(cm_map_builder_set_about(mb, 3, "1\x01"), 0);
	cm_map *bad = NULL;
	assert_int_equal(cm_map_builder_finish(mb, "CM0219", NULL, d, &bad), CM_EINVAL);
	assert_null(bad);
	assert_true(has_rule(d, "CM0219", "about version holds control character 0x01"));
	cm_map_free(m);
	cm_diags_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_about__names),
		cmocka_unit_test(test_about__round_trip),
		cmocka_unit_test(test_about__hash_only_when_present),
		cmocka_unit_test(test_about__older_and_damaged_packs),
		cmocka_unit_test(test_about__hostile_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
