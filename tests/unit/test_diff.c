/* SPDX-License-Identifier: MIT */
/* test_diff.c: the differences between two maps (carcamap/diff.h). The
 * fixture pair tests/fixtures/diff/isles-{a,b}.xml changes one thing of
 * every section; variants of isles-a.xml made by replacing text check how
 * elements are matched (big cities by their squares, ferries by their
 * ends, islands and deck entries by id) and that a change of order alone
 * is one item; every bundled map equals itself, and its printings differ
 * exactly when cm_map_equal says so; a square of 20,000 markers in
 * reverse order costs one sort, not a pairwise search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/carcamap.h"
#include "util_files.h"

#define FIX "tests/fixtures/diff/"

static cm_map *load_text(const char *text, const char *file)
{
	cm_diags *d = NULL;
	cm_map *m = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_map_load_memory(text, strlen(text), file, d, &m);
	if (rc)
		cm_diags_write_text(d, stderr);
	assert_int_equal(rc, 0);
	cm_diags_free(d);
	return m;
}

static cm_map *load_file(const char *path)
{
	char *text = util_read_file(path, NULL);
	cm_map *m = load_text(text, path);
	free(text);
	return m;
}

/* text with every occurrence of old replaced by new (caller frees); old
 * must occur. */
static char *replace(const char *text, const char *old, const char *new)
{
	size_t lo = strlen(old), ln = strlen(new), n = 0;
	for (const char *p = strstr(text, old); p; p = strstr(p + lo, old))
		n++;
	assert_true(n > 0);
	char *out = malloc(strlen(text) + n * ln + 1), *w = out;
	assert_non_null(out);
	for (const char *p = text, *q; (q = strstr(p, old)) != NULL; p = q + lo) {
		memcpy(w, p, (size_t)(q - p));
		w += q - p;
		memcpy(w, new, ln);
		w += ln;
		text = q + lo;
	}
	strcpy(w, text);
	return out;
}

typedef struct {
	cm_diff_section section;
	cm_diff_change change;
	int x, y;
	const char *field, *a, *b;
} want;

static bool same_str(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

/* d holds exactly the items of w, in order (else they are printed). */
static void expect_items(const cm_diff *d, const want *w, size_t n)
{
	bool ok = cm_diff_count(d) == n;
	for (size_t i = 0; ok && i < n; i++) {
		const cm_diff_item *it = cm_diff_get(d, i);
		ok = it->section == w[i].section && it->change == w[i].change && it->x == w[i].x && it->y == w[i].y &&
		     same_str(it->field, w[i].field) && same_str(it->a, w[i].a) && same_str(it->b, w[i].b);
	}
	for (size_t i = 0; !ok && i < cm_diff_count(d); i++) {
		const cm_diff_item *it = cm_diff_get(d, i);
		fprintf(stderr, "  item %zu: %s %s (%d,%d) %s %s '%s' -> '%s'\n", i, cm_diff_section_name(it->section),
		        cm_diff_change_name(it->change), it->x, it->y, it->subject ? it->subject : "-", it->field,
		        it->a ? it->a : "", it->b ? it->b : "");
	}
	assert_true(ok);
}

/* The diff of isles-a.xml against its text with old replaced by new. */
static cm_diff *diff_variant(const char *old, const char *new)
{
	char *text = util_read_file(FIX "isles-a.xml", NULL);
	char *var = replace(text, old, new);
	cm_map *a = load_text(text, "a.xml"), *b = load_text(var, "b.xml");
	cm_diff *d = NULL;
	assert_int_equal(cm_map_diff(a, b, &d), 0);
	cm_map_free(a);
	cm_map_free(b);
	free(var);
	free(text);
	return d;
}

static void test_diff__every_section_of_the_fixture_pair(void **state)
{
	(void)state;
	cm_map *a = load_file(FIX "isles-a.xml"), *b = load_file(FIX "isles-b.xml");
	cm_diff *d = NULL;
	assert_int_equal(cm_map_diff(a, b, &d), 0);
	static const want w[] = {
		{ CM_DIFF_MAP, CM_DIFF_CHANGED, -1, -1, "name", "Carca Isles", "Carca Isles II" },
		{ CM_DIFF_SQUARE, CM_DIFF_ADDED, 10, 1, "kind", NULL, "land" },
		{ CM_DIFF_SQUARE, CM_DIFF_CHANGED, 6, 8, "kind", "land", "town" },
		{ CM_DIFF_NAME, CM_DIFF_CHANGED, 3, 3, "name", "Millbrook", "Millbrooke" },
		{ CM_DIFF_BIGCITY, CM_DIFF_CHANGED, 6, 3, "name", "Carcassonne", "Carcasona" },
		{ CM_DIFF_PIECE, CM_DIFF_CHANGED, 7, 3, "features", "city c1 Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn wine",
		  "city c1 Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn cloth" },
		{ CM_DIFF_PRINT, CM_DIFF_CHANGED, 1, 4, "kind", "city, 1 coat of arms", "road, 1 coat of arms" },
		{ CM_DIFF_PRINT, CM_DIFF_CHANGED, 3, 8, "label", "Southern Sea", "South Sea" },
		{ CM_DIFF_FERRY, CM_DIFF_CHANGED, 10, 3, "arms", "1", "2" },
		{ CM_DIFF_ISLAND, CM_DIFF_CHANGED, 14, 2, "title", "Isle of Bells", "Bell Island" },
		{ CM_DIFF_ISLAND, CM_DIFF_CHANGED, 15, 3, "arms", "2", "1" },
		{ CM_DIFF_MARKER, CM_DIFF_ADDED, 3, 3, "marker", NULL, "bread" },
		{ CM_DIFF_MARKER, CM_DIFF_REMOVED, 3, 3, "marker", "wine", NULL },
		{ CM_DIFF_SETUP, CM_DIFF_CHANGED, -1, -1, "starts", "2", "3" },
		{ CM_DIFF_SETUP, CM_DIFF_CHANGED, -1, -1, "tiles-min", "70", "72" },
		{ CM_DIFF_DECK, CM_DIFF_REMOVED, -1, -1, "count", "1", NULL },
		{ CM_DIFF_DECK, CM_DIFF_CHANGED, -1, -1, "count", "2", "3" },
		{ CM_DIFF_DECK, CM_DIFF_ADDED, -1, -1, "count", NULL, "1" },
		{ CM_DIFF_RULES, CM_DIFF_CHANGED, -1, -1, "town-extra-turn", "yes", "no" },
	};
	expect_items(d, w, sizeof w / sizeof w[0]);
	/* places: the element's lines in each file, the deck entries' ids */
	const cm_diff_item *it = cm_diff_get(d, 3);
	assert_true(it->line_a > 0 && it->line_b > 0);
	assert_string_equal(cm_diff_get(d, 15)->subject, "inns-cathedrals/IC-02");
	assert_string_equal(cm_diff_get(d, 8)->subject, "Bell Ferry");
	assert_int_equal(cm_diff_get(d, 6)->side, CM_W);
	assert_int_equal(cm_diff_kind_count(d, 0, CM_SQ_TOWN), 1);
	assert_int_equal(cm_diff_kind_count(d, 1, CM_SQ_TOWN), 2);
	assert_false(cm_diff_equal(d));
	cm_diff_free(d);
	/* and the other way round: added and removed swap */
	assert_int_equal(cm_map_diff(b, a, &d), 0);
	assert_int_equal(cm_diff_count(d), sizeof w / sizeof w[0]);
	assert_int_equal(cm_diff_get(d, 1)->change, CM_DIFF_REMOVED);
	cm_diff_free(d);
	cm_map_free(a);
	cm_map_free(b);
}

static void test_diff__a_map_equals_itself(void **state)
{
	(void)state;
	cm_map *a = load_file(FIX "isles-a.xml"), *b = load_file(FIX "isles-a.xml");
	cm_diff *d = NULL;
	assert_int_equal(cm_map_diff(a, b, &d), 0);
	assert_true(cm_diff_equal(d));
	assert_int_equal(cm_diff_count(d), 0);
	assert_null(cm_diff_get(d, 0));
	assert_int_equal(cm_diff_kind_count(d, 0, CM_SQ_LAND), cm_diff_kind_count(d, 1, CM_SQ_LAND));
	cm_diff_free(d);
	cm_diff_free(NULL);
	cm_map_free(a);
	cm_map_free(b);
}

static void test_diff__big_city_renamed_is_matched_by_its_squares(void **state)
{
	(void)state;
	cm_diff *d = diff_variant("<bigcity name=\"Carcassonne\">", "<bigcity name=\"Elsewhere\">");
	static const want w[] = { { CM_DIFF_BIGCITY, CM_DIFF_CHANGED, 6, 3, "name", "Carcassonne", "Elsewhere" } };
	expect_items(d, w, 1);
	cm_diff_free(d);
}

static void test_diff__ferry_renamed_is_matched_by_its_ends(void **state)
{
	(void)state;
	cm_diff *d = diff_variant("name=\"Bay Ferry\"", "name=\"Bay Route\"");
	static const want w[] = { { CM_DIFF_FERRY, CM_DIFF_CHANGED, 5, 7, "name", "Bay Ferry", "Bay Route" } };
	expect_items(d, w, 1);
	cm_diff_free(d);
	/* the same ends written the other way round: the same ferry */
	d = diff_variant("x1=\"5\" y1=\"7\" side1=\"E\" x2=\"10\" y2=\"7\" side2=\"W\"",
	                 "x1=\"10\" y1=\"7\" side1=\"W\" x2=\"5\" y2=\"7\" side2=\"E\"");
	assert_true(cm_diff_equal(d));
	cm_diff_free(d);
}

static void test_diff__island_renamed_is_removed_and_added(void **state)
{
	(void)state;
	cm_diff *d = diff_variant("bell-isle", "bells");
	static const want w[] = {
		{ CM_DIFF_ISLAND, CM_DIFF_REMOVED, 14, 2, "island", "Isle of Bells", NULL },
		{ CM_DIFF_ISLAND, CM_DIFF_ADDED, 14, 2, "island", NULL, "Isle of Bells" },
		{ CM_DIFF_ISLAND, CM_DIFF_CHANGED, 14, 2, "island", "bell-isle", "bells" },
		{ CM_DIFF_ISLAND, CM_DIFF_CHANGED, 15, 2, "island", "bell-isle", "bells" },
		{ CM_DIFF_ISLAND, CM_DIFF_CHANGED, 14, 3, "island", "bell-isle", "bells" },
		{ CM_DIFF_ISLAND, CM_DIFF_CHANGED, 15, 3, "island", "bell-isle", "bells" },
	};
	expect_items(d, w, sizeof w / sizeof w[0]);
	cm_diff_free(d);
}

static void test_diff__an_order_alone_is_one_item(void **state)
{
	(void)state;
	cm_diff *d = diff_variant("<marker>wine</marker>\n    <marker>mill</marker>",
	                          "<marker>mill</marker>\n    <marker>wine</marker>");
	static const want w[] = { { CM_DIFF_MARKER, CM_DIFF_CHANGED, 3, 3, "order", "wine, mill", "mill, wine" } };
	expect_items(d, w, 1);
	cm_diff_free(d);
	d = diff_variant("<tile set=\"inns-cathedrals\" id=\"IC-02\" count=\"1\"/>\n    <tile set=\"inns-cathedrals\" "
	                 "id=\"IC-14\" count=\"1\"/>",
	                 "<tile set=\"inns-cathedrals\" id=\"IC-14\" count=\"1\"/>\n    <tile set=\"inns-cathedrals\" "
	                 "id=\"IC-02\" count=\"1\"/>");
	static const want o[] = { { CM_DIFF_DECK, CM_DIFF_CHANGED, -1, -1, "order",
		                    "base, inns-cathedrals/IC-02, inns-cathedrals/IC-14, inns-cathedrals/IC-16",
		                    "base, inns-cathedrals/IC-14, inns-cathedrals/IC-02, inns-cathedrals/IC-16" } };
	expect_items(d, o, 1);
	cm_diff_free(d);
}

static void test_diff__a_larger_grid_of_unprinted_squares_is_its_size(void **state)
{
	(void)state;
	cm_diff *d = diff_variant("    .................\n  </grid>", "    .................\n    .................\n  </grid>");
	static const want w[] = { { CM_DIFF_MAP, CM_DIFF_CHANGED, -1, -1, "size", "17x10", "17x11" } };
	expect_items(d, w, 1);
	cm_diff_free(d);
}

/* Many markers on one square, in reverse order: one item, found by
 * sorting (a pairwise search would take 200 million comparisons). */
static void test_diff__many_markers_reversed(void **state)
{
	(void)state;
	enum { N = 20000 };
	size_t cap = (size_t)N * 40 + 256;
	char *fwd = malloc(cap), *rev = malloc(cap);
	assert_non_null(fwd);
	assert_non_null(rev);
	size_t nf = 0, nr = 0;
	for (int i = 0; i < N; i++) {
		nf += (size_t)snprintf(fwd + nf, cap - nf, "<marker>m%05d</marker>", i);
		nr += (size_t)snprintf(rev + nr, cap - nr, "<marker>m%05d</marker>", N - 1 - i);
	}
	cm_diff *d = diff_variant("<marker>wine</marker>", fwd);
	cm_diff_free(d);
	char *text = util_read_file(FIX "isles-a.xml", NULL);
	char *ta = replace(text, "<marker>wine</marker>", fwd), *tb = replace(text, "<marker>wine</marker>", rev);
	cm_map *a = load_text(ta, "a.xml"), *b = load_text(tb, "b.xml");
	assert_int_equal(cm_map_diff(a, b, &d), 0);
	assert_int_equal(cm_diff_count(d), 1);
	assert_string_equal(cm_diff_get(d, 0)->field, "order");
	cm_diff_free(d);
	cm_map_free(a);
	cm_map_free(b);
	free(ta);
	free(tb);
	free(text);
	free(fwd);
	free(rev);
}

/* Every bundled board equals itself; two printings differ exactly when
 * cm_map_equal says so (it also compares the image paths, which the two
 * printings of one descriptor share). */
static void test_diff__bundled_printings_agree_with_map_equal(void **state)
{
	(void)state;
	char **names;
	size_t n;
	names = util_list_dir("maps", NULL, &n);
	for (size_t i = 0; i < n; i++) {
		char path[512];
		snprintf(path, sizeof path, "maps/%s/%s.xml", names[i], names[i]);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		fclose(f);
		cm_workspace *w1, *w2;
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		assert_int_equal(cm_workspace_new(&w1), 0);
		assert_int_equal(cm_workspace_new(&w2), 0);
		assert_int_equal(cm_workspace_load(w1, path, d), 0);
		assert_int_equal(cm_workspace_load(w2, path, d), 0);
		size_t k = cm_workspace_map_count(w1);
		for (size_t p = 0; p < k; p++)
			for (size_t q = 0; q < k; q++) {
				const cm_map *a = cm_workspace_map(w1, p), *b = cm_workspace_map(w2, q);
				cm_diff *df = NULL;
				assert_int_equal(cm_map_diff(a, b, &df), 0);
				assert_int_equal(cm_diff_equal(df), cm_map_equal(a, b));
				assert_int_equal(cm_diff_equal(df), p == q);
				cm_diff_free(df);
			}
		cm_workspace_free(w1);
		cm_workspace_free(w2);
		cm_diags_free(d);
	}
	util_names_free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff__every_section_of_the_fixture_pair),
		cmocka_unit_test(test_diff__a_map_equals_itself),
		cmocka_unit_test(test_diff__big_city_renamed_is_matched_by_its_squares),
		cmocka_unit_test(test_diff__ferry_renamed_is_matched_by_its_ends),
		cmocka_unit_test(test_diff__island_renamed_is_removed_and_added),
		cmocka_unit_test(test_diff__an_order_alone_is_one_item),
		cmocka_unit_test(test_diff__a_larger_grid_of_unprinted_squares_is_its_size),
		cmocka_unit_test(test_diff__many_markers_reversed),
		cmocka_unit_test(test_diff__bundled_printings_agree_with_map_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
