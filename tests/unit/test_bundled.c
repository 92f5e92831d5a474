/* SPDX-License-Identifier: MIT */
/* test_bundled.c: the bundled tile sets in maps/tilesets/ hold the published
 * facts (../shared/reference/tiles.md and tiles-minis.md): totals per
 * edition, the base game's letter counts, the garden swap in C2, inns,
 * cathedrals, goods, arms, the minis' monasteries and markers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>
#include "carcamap/rules.h"
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

static int is_monastery(const cm_feature *f) { return f->kind == CM_FEAT_MONASTERY; }
static int is_garden(const cm_feature *f) { return f->kind == CM_FEAT_GARDEN; }
static int arms_of(const cm_feature *f) { return f->arms; }

/* The four minis of the Big Box that the Maps rules allow instead of
 * Traders & Builders (MAP-TILES; reference/tiles-minis.md): their totals
 * per edition, monasteries, gardens, no coats of arms, every tile marked
 * with its mini's print, and base + Inns & Cathedrals + the four = 120. */
static void test_bundled__minis(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		int total, monasteries, gardens_c2;
		const char *marker; /* every tile's, or NULL: crop circles carry their symbol */
	} minis[] = {
		{ "maps/tilesets/goldmines.xml", 8, 4, 0, "gold-mine" },
		{ "maps/tilesets/mage-witch.xml", 8, 0, 1, "mage-hat" },
		{ "maps/tilesets/robbers.xml", 8, 0, 1, "robber" },
		{ "maps/tilesets/crop-circles-2.xml", 6, 0, 0, NULL },
	};
	int sum[CM_EDITION_COUNT] = { 0, 0, 0 };
	int symbols[3] = { 0, 0, 0 };
	for (size_t i = 0; i < sizeof minis / sizeof minis[0]; i++) {
		cm_tileset *ts = load(minis[i].file);
		assert_false(ts->base);
		assert_int_equal(cm_tileset_start(ts), -1);
		for (int e = 0; e < CM_EDITION_COUNT; e++) {
			cm_edition ed = (cm_edition)e;
			assert_int_equal(cm_tileset_total(ts, ed), minis[i].total);
			sum[e] += cm_tileset_total(ts, ed);
			assert_int_equal(sum_features(ts, ed, is_monastery), minis[i].monasteries);
			assert_int_equal(sum_features(ts, ed, is_garden), e == CM_EDITION_C1 ? 0 : minis[i].gardens_c2);
			assert_int_equal(sum_features(ts, ed, arms_of), 0);
		}
		for (size_t k = 0; k < ts->n_tiles; k++) {
			const cm_tile_type *t = &ts->tiles[k];
			assert_int_equal(t->n_markers, 1);
			if (minis[i].marker) {
				assert_string_equal(t->markers[0], minis[i].marker);
				continue;
			}
			static const char *const sym[3] = { "crop-circle-club", "crop-circle-pitchfork", "crop-circle-shield" };
			int found = 0;
			for (int s = 0; s < 3; s++)
				if (strcmp(t->markers[0], sym[s]) == 0) {
					symbols[s]++;
					found = 1;
				}
			assert_true(found);
		}
		cm_tileset_free(ts);
	}
	/* 2 clubs, 2 pitchforks, 2 shields */
	for (int s = 0; s < 3; s++)
		assert_int_equal(symbols[s], 2);
	cm_tileset *base = load("maps/tilesets/base.xml");
	cm_tileset *ic = load("maps/tilesets/inns-cathedrals.xml");
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		assert_int_equal(cm_tileset_total(base, (cm_edition)e) + cm_tileset_total(ic, (cm_edition)e) + sum[e], 120);
	cm_tileset_free(base);
	cm_tileset_free(ic);
}

/* Crop Circles II's tile without a field: two cities over all four sides,
 * which all-city edges must not be taken to mean one city. */
static void test_bundled__crop_circles_two_cities(void **state)
{
	(void)state;
	cm_tileset *ts = load("maps/tilesets/crop-circles-2.xml");
	const cm_tile_type *t = cm_tileset_find(ts, "CC-06");
	assert_non_null(t);
	assert_int_equal(t->n_features, 2);
	for (int s = 0; s < 4; s++)
		assert_int_equal(t->edge[s], CM_EDGE_CITY);
	assert_int_not_equal(t->slot_feature[1], t->slot_feature[4]); /* Nm and Em: two cities */
	cm_tileset_free(ts);
}

/* The named decks (MAP-TILES) add up to what the rules say in every
 * edition with the bundled sets. */
static void test_bundled__named_decks(void **state)
{
	(void)state;
	for (size_t i = 0; i < cm_named_deck_count(); i++) {
		const cm_named_deck *nd = cm_named_deck_get(i);
		int sum[CM_EDITION_COUNT] = { 0, 0, 0 };
		for (size_t k = 0; nd->sets[k]; k++) {
			char path[128];
			snprintf(path, sizeof path, "maps/tilesets/%s.xml", nd->sets[k]);
			cm_tileset *ts = load(path);
			assert_string_equal(ts->id, nd->sets[k]);
			for (int e = 0; e < CM_EDITION_COUNT; e++)
				sum[e] += cm_tileset_total(ts, (cm_edition)e);
			cm_tileset_free(ts);
		}
		for (int e = 0; e < CM_EDITION_COUNT; e++)
			assert_int_equal(sum[e], nd->tiles);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundled__base_counts),
		cmocka_unit_test(test_bundled__expansions),
		cmocka_unit_test(test_bundled__minis),
		cmocka_unit_test(test_bundled__crop_circles_two_cities),
		cmocka_unit_test(test_bundled__named_decks),
	};
	return cmocka_run_group_tests_name("bundled", tests, NULL, NULL);
}
