/* SPDX-License-Identifier: MIT */
/* test_bundled.c: the bundled tile sets in maps/tilesets/ hold the published
 * facts (../shared/reference/tiles.md): totals per edition, the base game's
 * letter counts, the garden swap in C2, inns, cathedrals, goods, arms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "carcamap/tileset.h"

static cm_tileset *load(const char *path)
{
	cm_diags *d;
	cm_tileset *ts = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_tileset_load_file(path, d, &ts);
	if (rc || cm_diags_count(d)) {
		cm_diags_write_text(d, stderr);
		fail_msg("%s does not load cleanly", path);
	}
	cm_diags_free(d);
	return ts;
}

static int count_of(const cm_tileset *ts, const char *id, cm_edition e)
{
	const cm_tile_type *t = cm_tileset_find(ts, id);
	assert_non_null(t);
	return t->count[e];
}

static void test_bundled__base_counts(void **state)
{
	(void)state;
	cm_tileset *ts = load("maps/tilesets/base.xml");
	assert_true(ts->base);
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		assert_int_equal(cm_tileset_total(ts, (cm_edition)e), 72);
	static const struct { const char *id; int n; } c1[] = {
		{ "A", 2 }, { "B", 4 }, { "C", 1 }, { "D", 4 }, { "E", 5 }, { "F", 2 }, { "G", 1 },
		{ "H", 3 }, { "I", 2 }, { "J", 3 }, { "K", 3 }, { "L", 3 }, { "M", 2 }, { "N", 3 },
		{ "O", 2 }, { "P", 3 }, { "Q", 1 }, { "R", 3 }, { "S", 2 }, { "T", 1 }, { "U", 8 },
		{ "V", 9 }, { "W", 4 }, { "X", 1 },
	};
	for (size_t i = 0; i < sizeof c1 / sizeof c1[0]; i++) {
		assert_int_equal(count_of(ts, c1[i].id, CM_EDITION_C1), c1[i].n);
		/* C2 moves one copy of E H I M N R U V into a garden variant */
		int moved = strchr("EHIMNRUV", c1[i].id[0]) != NULL;
		assert_int_equal(count_of(ts, c1[i].id, CM_EDITION_C2), c1[i].n - moved);
		assert_int_equal(count_of(ts, c1[i].id, CM_EDITION_C3), c1[i].n - moved);
		if (moved) {
			char g[4] = { c1[i].id[0], 'g', 0, 0 };
			assert_int_equal(count_of(ts, g, CM_EDITION_C1), 0);
			assert_int_equal(count_of(ts, g, CM_EDITION_C2), 1);
		}
	}
	int s = cm_tileset_start(ts);
	assert_true(s >= 0);
	assert_string_equal(ts->tiles[s].id, "D");
	cm_tileset_free(ts);
}

/* Sums a per-feature property over the tiles of an edition. */
static int sum_features(const cm_tileset *ts, cm_edition e, int (*f)(const cm_feature *))
{
	int n = 0;
	for (size_t i = 0; i < ts->n_tiles; i++)
		for (size_t k = 0; k < ts->tiles[i].n_features; k++)
			n += ts->tiles[i].count[e] * f(&ts->tiles[i].features[k]);
	return n;
}
static int is_inn(const cm_feature *f) { return f->inn; }
static int is_cathedral(const cm_feature *f) { return f->cathedral; }
static int is_wine(const cm_feature *f) { return f->good == CM_GOOD_WINE; }
static int is_grain(const cm_feature *f) { return f->good == CM_GOOD_GRAIN; }
static int is_cloth(const cm_feature *f) { return f->good == CM_GOOD_CLOTH; }

static void test_bundled__expansions(void **state)
{
	(void)state;
	cm_tileset *ic = load("maps/tilesets/inns-cathedrals.xml");
	cm_tileset *tb = load("maps/tilesets/traders-builders.xml");
	cm_tileset *am = load("maps/tilesets/abbey-mayor.xml");
	for (int e = 0; e < CM_EDITION_COUNT; e++) {
		cm_edition ed = (cm_edition)e;
		assert_int_equal(cm_tileset_total(ic, ed), 18);
		assert_int_equal(cm_tileset_total(tb, ed), 24);
		assert_int_equal(cm_tileset_total(am, ed), 12);
		assert_int_equal(sum_features(ic, ed, is_inn), 6);
		assert_int_equal(sum_features(ic, ed, is_cathedral), 2);
		assert_int_equal(sum_features(tb, ed, is_wine), 9);
		assert_int_equal(sum_features(tb, ed, is_grain), 6);
		assert_int_equal(sum_features(tb, ed, is_cloth), 5);
	}
	assert_false(ic->base);
	assert_int_equal(cm_tileset_start(ic), -1);
	const cm_tile_type *abbey = cm_tileset_find(am, "AM-abbey");
	assert_non_null(abbey);
	assert_true(cm_tileset_is_abbey_tile(abbey));
	for (int s = 0; s < 4; s++)
		assert_int_equal(abbey->edge[s], CM_EDGE_ABBEY);
	cm_tileset_free(ic);
	cm_tileset_free(tb);
	cm_tileset_free(am);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundled__base_counts),
		cmocka_unit_test(test_bundled__expansions),
	};
	return cmocka_run_group_tests_name("bundled", tests, NULL, NULL);
}
