/* SPDX-License-Identifier: MIT */
/* test_map.c: the map descriptor (carcamap/map.h): reading every feature,
 * the canonical writer's round trip, combined maps, in-memory checks, and
 * one data-driven runner over tests/fixtures/map/bad/ *.xml, whose
 * "<!-- expect: CM0203 line 12 -->" lines name exactly the diagnostics due. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/map.h"
#include <dirent.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlmemory.h>
#include "util_files.h"
#include "base/util_int.h"
#include "io/xml_int.h"
#include "util_model.h"
#include "model/map_builder_int.h"

/* The map b builds, written directly (as the library's readers do): the
 * changes no setter makes, for the tests of equality and the checker. */
static cm_map *raw_of(cm_map_builder *b)
{
	return (cm_map *)cm__map_builder_view(b);
}

/* b finished as render --diagnostics gets a descriptor with errors
 * (CM_MAP_LOAD_PARTIAL): a map the model check refuses is still handed
 * out, partial. */
static cm_map *partial(cm_map_builder *b)
{
	cm_map *m = NULL;
	assert_int_equal(cm__map_builder_finish(b, NULL, NULL, NULL, CM__FINISH_PARTIAL, &m), CM_EINVAL);
	assert_true(cm_map_partial(m));
	return m;
}

#define GOOD "tests/fixtures/map/good/"
#define BAD "tests/fixtures/map/bad/"

/* Tile sets the deck checks resolve against: "base" with tiles A and D. */
static cm_tile_type base_tiles[2] = { { .id = "A" }, { .id = "D" } };
static cm_tileset base_set = { .id = "base", .tiles = base_tiles, .n_tiles = 2 };
static const cm_tileset *const sets[1] = { &base_set };

/* Loads a fixture that must be clean; fails the test with the diagnostics otherwise. */
static cm_map *load_clean(const char *path)
{
	cm_diags *d;
	cm_map *m = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_map_load(path, NULL, d, &m);
	if (rc || cm_diags_count(d)) {
		char *t = util_diags_text(d);
		print_message("%s: rc %d\n%s", path, rc, t);
		free(t);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(cm_diags_count(d), 0);
	cm_diags_free(d);
	return m;
}

static char *write_string(const cm_map *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cm_map_write_xml(m, f), 0);
	fclose(f);
	return buf;
}

static const cm_square *at(const cm_map *m, int x, int y)
{
	const cm_square *s = cm_map_at(m, x, y);
	assert_non_null(s);
	return s;
}

static void test_map__reads_every_feature(void **state)
{
	(void)state;
	cm_map *m = load_clean(GOOD "sample.xml");
	assert_string_equal(cm_map_id(m), "sample");
	assert_string_equal(cm_map_name(m), "Sample Land");
	assert_string_equal(cm_map_image(m), "sample.png");
	assert_string_equal(cm_map_legend(m), "legend.xml");
	assert_int_equal(cm_map_cols(m), 7);
	assert_int_equal(cm_map_rows(m), 5);
	/* grid key */
	assert_int_equal(at(m, 0, 0)->kind, CM_SQ_NONE);
	assert_int_equal(at(m, 1, 0)->kind, CM_SQ_LAND);
	assert_int_equal(at(m, 2, 0)->kind, CM_SQ_START);
	assert_int_equal(at(m, 4, 0)->kind, CM_SQ_WAVES);
	assert_int_equal(at(m, 1, 1)->kind, CM_SQ_BIGCITY);
	assert_int_equal(at(m, 4, 1)->kind, CM_SQ_LANDMARK);
	assert_int_equal(at(m, 1, 2)->kind, CM_SQ_TOWN);
	assert_int_equal(at(m, 4, 3)->kind, CM_SQ_ISLAND);
	assert_int_equal(at(m, 7 - 1, 4)->kind, CM_SQ_NONE);
	/* names, markers, islands with arms */
	assert_string_equal(cm_map_square_name(m, 2, 0), "Rostock");
	assert_string_equal(cm_map_square_name(m, 4, 1), "Lighthouse");
	assert_int_equal(util_marker_count(m, 1, 2), 2);
	assert_string_equal(util_marker(m, 1, 2, 0), "wine");
	assert_string_equal(util_marker(m, 1, 2, 1), "chumak");
	assert_int_equal(cm_map_island_count(m), 1);
	assert_string_equal(cm_map_island(m, 0)->name, "isle");
	assert_string_equal(cm_map_island(m, 0)->title, "Isle of Test");
	assert_int_equal(at(m, 4, 3)->island, 0);
	assert_int_equal(at(m, 5, 3)->island, 0);
	assert_int_equal(at(m, 5, 3)->arms, 1);
	assert_int_equal(at(m, 1, 0)->island, -1);
	/* explicit edge prints of each kind */
	const cm_edge_print *p = &at(m, 1, 0)->print[CM_N];
	assert_int_equal(p->kind, CM_PRINT_CITY);
	assert_int_equal(p->arms, 1);
	assert_string_equal(cm_map_print_label(m, 1, 0, CM_N), "to Denmark");
	p = &at(m, 0, 1)->print[CM_W];
	assert_int_equal(p->kind, CM_PRINT_ROAD);
	assert_int_equal(p->arms, 2);
	assert_string_equal(cm_map_print_label(m, 0, 1, CM_W), "to France");
	p = &at(m, 3, 0)->print[CM_N];
	assert_int_equal(p->kind, CM_PRINT_NEUTRAL);
	assert_string_equal(cm_map_print_label(m, 3, 0, CM_N), "North Sea");
	/* derived prints: neutral toward none/waves/landmark/off-grid, none toward land and big cities */
	assert_int_equal(at(m, 1, 0)->print[CM_W].kind, CM_PRINT_NEUTRAL);  /* none */
	assert_int_equal(at(m, 3, 0)->print[CM_E].kind, CM_PRINT_NEUTRAL);  /* waves */
	assert_int_equal(at(m, 3, 1)->print[CM_E].kind, CM_PRINT_NEUTRAL);  /* landmark */
	assert_int_equal(at(m, 1, 4)->print[CM_S].kind, CM_PRINT_NEUTRAL);  /* off the grid */
	assert_null(cm_map_print_label(m, 1, 4, CM_S));
	assert_int_equal(at(m, 1, 0)->print[CM_S].kind, CM_PRINT_NONE);     /* big city */
	assert_int_equal(at(m, 1, 0)->print[CM_E].kind, CM_PRINT_NONE);     /* start square */
	assert_int_equal(at(m, 1, 1)->print[CM_N].kind, CM_PRINT_NONE);     /* big cities have no prints */
	assert_int_equal(at(m, 4, 1)->print[CM_W].kind, CM_PRINT_NONE);     /* nor landmarks */
	/* big city over two squares with a road leaving it */
	assert_int_equal(cm_map_bigcity_count(m), 1);
	const cm_bigcity *bc = cm_map_bigcity(m, 0);
	assert_string_equal(bc->name, "Berlin");
	assert_int_equal(bc->n_pieces, 2);
	assert_int_equal(at(m, 1, 1)->bigcity, 0);
	assert_int_equal(at(m, 2, 1)->bigcity, 0);
	assert_int_equal(at(m, 3, 1)->bigcity, -1);
	const cm_tile_type *a = &bc->pieces[0].tile, *b = &bc->pieces[1].tile;
	assert_int_equal(a->n_features, 3);
	assert_int_equal(a->edge[CM_W], CM_EDGE_ROAD);
	assert_int_equal(a->edge[CM_E], CM_EDGE_CITY);
	assert_true(a->features[1].inn);
	assert_int_equal(a->features[2].touches, 1u << 0);
	assert_int_equal(a->n_contacts, 1);
	assert_int_equal(a->contacts[0], (1u << 0) | (1u << 1));
	assert_int_equal(b->features[0].arms, 2);
	assert_true(b->features[0].cathedral);
	assert_int_equal(b->features[0].good, CM_GOOD_WINE);
	assert_true(cm_tiles_match(a, 0, CM_E, b, 0));
	/* ferry */
	assert_int_equal(cm_map_ferry_count(m), 1);
	assert_string_equal(cm_map_ferry(m, 0)->name, "Test ferry");
	assert_int_equal(cm_map_ferry(m, 0)->x1, 2);
	assert_int_equal(cm_map_ferry(m, 0)->s1, CM_E);
	assert_int_equal(cm_map_ferry(m, 0)->x2, 4);
	assert_int_equal(cm_map_ferry(m, 0)->s2, CM_W);
	assert_int_equal(cm_map_ferry(m, 0)->arms, 1);
	/* setup, deck, rules */
	assert_int_equal(cm_map_setup(m)->starts_used, 2);
	assert_int_equal(cm_map_setup(m)->tiles_min, 110);
	assert_int_equal(cm_map_setup(m)->tiles_max, 120);
	assert_int_equal(cm_map_setup(m)->followers, 9);
	assert_int_equal(cm_map_deck_count(m), 3);
	assert_string_equal(cm_map_deck_entry(m, 0)->tileset, "base");
	assert_null(cm_map_deck_entry(m, 0)->tile);
	assert_int_equal(cm_map_deck_entry(m, 0)->count, -1);
	assert_string_equal(cm_map_deck_entry(m, 2)->tileset, "traders-builders");
	assert_string_equal(cm_map_deck_entry(m, 2)->tile, "TB-01");
	assert_int_equal(cm_map_deck_entry(m, 2)->count, 2);
	assert_int_equal(cm_map_rules(m)->edition, CM_EDITION_C2);
	assert_false(cm_map_rules(m)->tiny_city);
	assert_int_equal(cm_map_rules(m)->farmers, CM_FARMERS_C2);
	assert_false(cm_map_rules(m)->farmers_bigcity);
	assert_true(cm_map_rules(m)->town_cost);
	assert_false(cm_map_rules(m)->town_extra_turn);
	assert_false(cm_map_rules(m)->town_road_bonus);
	assert_false(cm_map_rules(m)->abbey_edge);
	/* lines point into the file */
	assert_int_equal(at(m, 1, 0)->line, 6);
	assert_true(cm_map_ferry(m, 0)->line > 0);
	cm_map_free(m);
}

/* read → write → read gives an equal model, and writing is a fixed point. */
static void round_trip(const char *path)
{
	cm_map *m = load_clean(path);
	char *x1 = write_string(m);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *m2 = NULL;
	int rc = cm_map_load_memory(x1, strlen(x1), "written.xml", d, &m2);
	if (rc) {
		char *t = util_diags_text(d);
		print_message("%s\n%s", x1, t);
		free(t);
	}
	assert_int_equal(rc, 0);
	assert_true(cm_map_equal(m, m2));
	char *x2 = write_string(m2);
	assert_string_equal(x1, x2);
	free(x1);
	free(x2);
	cm_map_free(m);
	cm_map_free(m2);
	cm_diags_free(d);
}

static void test_map__round_trip_is_equal_and_stable(void **state)
{
	(void)state;
	round_trip(GOOD "sample.xml");
	round_trip(GOOD "usa.xml");
	round_trip(GOOD "usa-west.xml");
}

/* Equality sees every kind of difference, not only some. */
static void test_map__equal_notices_changes(void **state)
{
	(void)state;
	cm_map *a = load_clean(GOOD "sample.xml");
	/* a copy differs from a where change (on the copy, raw) says */
#define DIFFERS(change, want)                                         \
	do {                                                              \
		cm_map_builder *mb = util_from(a);                            \
		cm_map *b = raw_of(mb);                                       \
		change;                                                       \
		b = util_finish(mb);                                          \
		assert_true(cm_map_equal(a, b) == !(want));                   \
		cm_map_free(b);                                               \
	} while (0)
	DIFFERS((void)b, false);
	/* lines are not compared */
	DIFFERS((cm_map_builder_set_print_line(mb, 3 % b->cols, 3 / b->cols, CM_S, 999), b->line = 77), false);
	DIFFERS(b->rules.town_cost = !b->rules.town_cost, true);
	DIFFERS(b->bigcities[0].pieces[1].tile.features[0].arms++, true);
	DIFFERS(b->squares[1].print[CM_N].arms = 7, true);
	DIFFERS(b->ferries[0].s2 = CM_N, true);
#undef DIFFERS
	cm_map_free(a);
}

/* MAP-HALF: halves pair into land squares; both maps' contents on one grid. */
static void test_map__combined_halves_pair(void **state)
{
	(void)state;
	cm_map *w = load_clean(GOOD "usa-west.xml");
	/* alone, a side toward a half square is map edge */
	assert_int_equal(at(w, 2, 1)->print[CM_E].kind, CM_PRINT_NEUTRAL);
	assert_int_equal(at(w, 3, 1)->kind, CM_SQ_HALF);
	cm_map_free(w);

	cm_map *m = load_clean(GOOD "usa.xml");
	assert_string_equal(cm_map_id(m), "usa");
	assert_int_equal(cm_map_cols(m), 7);
	assert_int_equal(cm_map_rows(m), 3);
	assert_int_equal(at(m, 3, 0)->kind, CM_SQ_LAND);
	assert_int_equal(at(m, 3, 1)->kind, CM_SQ_LAND);
	assert_int_equal(at(m, 3, 2)->kind, CM_SQ_NONE);
	assert_string_equal(cm_map_square_name(m, 3, 0), "Kansas City");
	assert_string_equal(cm_map_square_name(m, 3, 1), "Denver"); /* the combining descriptor refines */
	assert_string_equal(cm_map_square_name(m, 1, 0), "Seattle");
	assert_string_equal(cm_map_square_name(m, 5, 0), "Boston");
	assert_string_equal(cm_map_square_name(m, 5, 2), "Miami");
	int starts = 0;
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++)
		starts += cm_map_squares(m)[i].kind == CM_SQ_START;
	assert_int_equal(starts, 4);
	/* combined, the same side faces land; the printed road stays */
	assert_int_equal(at(m, 2, 1)->print[CM_E].kind, CM_PRINT_NONE);
	assert_int_equal(at(m, 4, 1)->print[CM_W].kind, CM_PRINT_NONE);
	assert_int_equal(at(m, 3, 0)->print[CM_N].kind, CM_PRINT_NEUTRAL);
	assert_int_equal(at(m, 3, 1)->print[CM_S].kind, CM_PRINT_NEUTRAL);
	assert_int_equal(at(m, 2, 0)->print[CM_N].kind, CM_PRINT_ROAD);
	assert_string_equal(cm_map_print_label(m, 2, 0, CM_N), "to Canada");
	/* setup from the combining descriptor */
	assert_int_equal(cm_map_setup(m)->starts_used, 4);
	assert_int_equal(cm_map_setup(m)->tiles_min, 220);
	assert_int_equal(cm_map_setup(m)->tiles_max, 240);
	assert_int_equal(cm_map_deck_count(m), 1);
	cm_map_free(m);
}

/* With an image, the grid may be absent: the reader keeps the references. */
/* One descriptor, two printings (schemas/map.md "Printings"): the default
 * keeps the id and the names written on the elements; C3 takes its
 * <printing> children, its edition and the id twice-c3; a printing the
 * descriptor does not list is CM0220. Each printing writes and reads back
 * as a map of its own. */
static void test_map__printings(void **state)
{
	(void)state;
	cm_map *c2 = load_clean(GOOD "printings.xml");
	cm_diags *d;
	cm_map *c3 = NULL, *c1 = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map_load_opts lo;
	cm_map_load_opts_init(&lo);
	lo.printing = CM_EDITION_C3;
	assert_int_equal(cm_map_load(GOOD "printings.xml", &lo, d, &c3), 0);
	assert_int_equal(cm_diags_count(d), 0);
	assert_string_equal(c2->id, "twice");
	assert_string_equal(c3->id, "twice-c3");
	assert_int_equal(c2->rules.edition, CM_EDITION_C2);
	assert_int_equal(c3->rules.edition, CM_EDITION_C3);
	assert_int_equal((int)c2->n_printings, 2);
	assert_int_equal(c2->printings[0], CM_EDITION_C2);
	assert_int_equal(c2->printings[1], CM_EDITION_C3);
	assert_string_equal(cm_map_square_name(c2, 1, 0), "Rostock");
	assert_string_equal(cm_map_square_name(c3, 1, 0), "Wismar");
	assert_int_equal((int)util_marker_count(c2, 1, 0), 0);
	assert_int_equal((int)util_marker_count(c3, 1, 0), 1);
	assert_string_equal(util_marker(c3, 1, 0, 0), "mountain");
	assert_int_equal(at(c2, 3, 0)->kind, CM_SQ_LAND);
	assert_null(cm_map_square_name(c2, 3, 0));
	assert_int_equal(at(c3, 3, 0)->kind, CM_SQ_TOWN);
	assert_string_equal(cm_map_square_name(c3, 3, 0), "Yunlin");
	assert_string_equal(util_marker(c3, 4, 0, 0), "wine-purple"); /* shared by both */
	assert_string_equal(c2->islands[0].title, "Old Isle");
	assert_string_equal(c3->islands[0].title, "New Isle");
	assert_string_equal(c2->bigcities[0].name, "Ruhrgebiet");
	assert_string_equal(c3->bigcities[0].name, "Essen + Köln");
	assert_int_equal((int)c3->bigcities[0].n_pieces, 2);
	assert_false(cm_map_equal(c2, c3));
	/* a printing reads back as a plain one-printing map in its edition */
	char *x = write_string(c3);
	cm_map *back = NULL;
	assert_int_equal(cm_map_load_memory(x, strlen(x), NULL, d, &back), 0);
	assert_true(cm_map_equal(c3, back));
	assert_int_equal((int)back->n_printings, 0);
	lo.printing = CM_EDITION_C1;
	assert_int_equal(cm_map_load(GOOD "printings.xml", &lo, d, &c1), CM_EINVAL);
	assert_null(c1);
	assert_int_equal((int)cm_diags_count(d), 1);
	assert_string_equal(cm_diags_get(d, 0)->rule, "CM0220");
	free(x);
	cm_map_free(back);
	cm_map_free(c2);
	cm_map_free(c3);
	cm_diags_free(d);
}

static void test_map__image_without_grid(void **state)
{
	(void)state;
	static const char xml[] = "<map format=\"1\" id=\"pic\" name=\"Pic\" cols=\"3\" rows=\"2\">\n"
	                          "  <image src=\"pic.png\" legend=\"pic-legend.xml\"/>\n"
	                          "  <square x=\"1\" y=\"1\" kind=\"start\" name=\"Here\"/>\n"
	                          "</map>\n";
	cm_diags *d;
	cm_map *m = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_map_load_memory(xml, sizeof xml - 1, "pic.xml", d, &m), 0);
	assert_int_equal(cm_diags_count(d), 0);
	assert_string_equal(cm_map_image(m), "pic.png");
	assert_string_equal(cm_map_legend(m), "pic-legend.xml");
	assert_int_equal(cm_map_cols(m), 3);
	assert_int_equal(cm_map_rows(m), 2);
	assert_int_equal(at(m, 1, 1)->kind, CM_SQ_START);
	assert_int_equal(at(m, 1, 1)->line, 3);
	assert_int_equal(at(m, 0, 0)->kind, CM_SQ_NONE);
	assert_int_equal(at(m, 1, 1)->print[CM_N].kind, CM_PRINT_NEUTRAL);
	cm_map_free(m);
	cm_diags_free(d);
}

/* In-memory maps have no lines: diagnostics say where instead. */
static void test_map__in_memory_checks_say_where(void **state)
{
	(void)state;
	cm_map_builder *b = util_builder(3, 1);
	util_id_set(b, "mem", NULL);
	util_kind_set(b, 0, 0, CM_SQ_START);
	util_kind_set(b, 1, 0, CM_SQ_LAND);
	util_kind_set(b, 2, 0, CM_SQ_WAVES);
	util_setup_starts(b, 1);
	cm_map *m = util_finish(b);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	/* before the default prints, sides toward the edge lack one */
	assert_int_equal(cm_map_check(m, NULL, 0, d), CM_EINVAL);
	assert_int_equal(cm_diags_count(d), 6);
	cm_diags_clear(d);
	b = util_from(m);
	cm_map_builder_default_prints(b);
	cm_map *p = util_finish(b);
	assert_int_equal(cm_map_check(p, NULL, 0, d), 0);
	assert_int_equal(cm_map_at(p, 1, 0)->print[CM_E].kind, CM_PRINT_NEUTRAL);
	assert_int_equal(cm_map_at(p, 1, 0)->print[CM_W].kind, CM_PRINT_NONE);
	b = util_from(p);
	util_print_set(b, 1, 0, CM_W, CM_PRINT_ROAD, 0);
	util_deck_add(b, "base", "Q", 1);
	cm_map_free(m);
	cm_map_free(p);
	m = util_finish(b);
	assert_int_equal(cm_map_check(m, sets, 1, d), CM_EINVAL);
	assert_int_equal(cm_diags_count(d), 2);
	const cm_diag *g = cm_diags_get(d, 0);
	assert_string_equal(g->rule, "CM0203");
	assert_int_equal(g->line, 0);
	assert_string_equal(g->where, "map mem, square (1,0), side W");
	g = cm_diags_get(d, 1);
	assert_string_equal(g->rule, "CM0213");
	assert_string_equal(g->where, "map mem, deck entry 0");
	cm_diags_free(d);
	cm_map_free(m);
}

/* ---- the bad fixtures ---- */

/* The near misses of bad/'s setup and ferry fixtures: limits met exactly
 * load clean (good/setup-limits.xml says which). */
static void test_map__limits_met_exactly_are_clean(void **state)
{
	(void)state;
	cm_map *m = load_clean(GOOD "setup-limits.xml");
	assert_int_equal(cm_map_ferry_count(m), 1);
	cm_map_free(m);
	m = load_clean(GOOD "size-limits.xml");
	assert_int_equal(cm_map_cols(m), CM_GRID_MAX);
	cm_map_free(m);
}

static void test_map__bad_fixtures_report_exactly_what_they_expect(void **state)
{
	(void)state;
	size_t n, failed = 0;
	char **names = util_list_dir(BAD, ".xml", &n);
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) {
		char path[512];
		snprintf(path, sizeof path, BAD "%s", names[i]);
		char *text = util_read_file(path, NULL);
		util_expect want[32];
		size_t nw = util_parse_expects(text, want, 32);
		free(text);
		assert_true(nw > 0);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_map *m = NULL;
		int rc = cm_map_load(path, NULL, d, &m);
		if (rc == 0)
			rc = cm_map_check_deck(m, sets, 1, d);
		cm_map_free(m);
		/* diagnostics about another file (a half map) do not count as this file's lines */
		bool same = util_expects_differ(names[i], want, nw, d, path) == 0 && rc != 0;
		if (!same) {
			char *t = util_diags_text(d);
			print_message("%s: rc %d, expected %zu diagnostics, got:\n%s", names[i], rc, nw, t);
			free(t);
			failed++;
		}
		cm_diags_free(d);
	}
	util_names_free(names);
	assert_int_equal(failed, 0);
}

/* Every CM02xx check in the catalogue has a bad fixture that expects it. */
static void test_map__every_check_has_a_fixture(void **state)
{
	(void)state;
	char *all = util_read_dir_files(BAD, ".xml");
	size_t checks = 0;
	for (size_t i = 0; i < cm_catalog_count(); i++) {
		const cm_check_info *ci = cm_catalog_get(i);
		if (strncmp(ci->id, "CM02", 4) != 0)
			continue;
		checks++;
		if (!util_text_expects(all, ci->id))
			print_message("no bad fixture expects %s\n", ci->id);
		assert_true(util_text_expects(all, ci->id));
	}
	assert_true(checks >= 18);
	free(all);
}

/* <deck named>: every deck of the rules' table is accepted by the schema
 * and read as its sets, whole, in order, on the <deck> line, before the
 * entries the element holds; the writer lists the sets. */
static void test_map__named_decks(void **state)
{
	(void)state;
	assert_true(cm_named_deck_count() >= 2);
	assert_null(cm_named_deck_get(cm_named_deck_count()));
	assert_null(cm_named_deck_find("no-such-deck"));
	for (size_t i = 0; i < cm_named_deck_count(); i++) {
		const cm_named_deck *nd = cm_named_deck_get(i);
		assert_ptr_equal(cm_named_deck_find(nd->name), nd);
		char xml[512];
		snprintf(xml, sizeof xml,
		         "<map format=\"1\" id=\"n\" name=\"N\">\n<grid>#S</grid>\n"
		         "<deck named=\"%s\"><tile set=\"extra\" id=\"X\" count=\"2\"/></deck>\n</map>\n",
		         nd->name);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_map *m = NULL;
		int rc = cm_map_load_memory(xml, strlen(xml), "named.xml", d, &m);
		if (rc || cm_diags_count(d))
			cm_diags_write_text(d, stderr);
		assert_int_equal(rc, 0);
		size_t n = 0;
		while (nd->sets[n])
			n++;
		assert_true(n > 0);
		assert_int_equal(m->n_deck, n + 1);
		for (size_t k = 0; k < n; k++) {
			assert_string_equal(m->deck[k].tileset, nd->sets[k]);
			assert_null(m->deck[k].tile);
			assert_int_equal(m->deck[k].count, -1);
			assert_int_equal(m->deck[k].line, 3);
		}
		assert_string_equal(m->deck[n].tileset, "extra");
		char *w = write_string(m);
		assert_null(strstr(w, "named="));
		assert_non_null(strstr(w, "<set id=\"base\"/>"));
		free(w);
		cm_map_free(m);
		cm_diags_free(d);
	}
}

static void test_map__kind_chars_round_trip(void **state)
{
	(void)state;
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++) {
		cm_square_kind got;
		assert_int_equal(cm_square_kind_from_char(cm_square_kind_char((cm_square_kind)k), &got), 0);
		assert_int_equal(got, k);
	}
	cm_square_kind got;
	assert_int_equal(cm_square_kind_from_char('x', &got), CM_EINVAL);
	assert_int_equal(cm_square_kind_from_char('\0', &got), CM_EINVAL);
}

/* The id syntax of schemas/map.md, the one place that decides it. */
static void test_map__id_valid(void **state)
{
	(void)state;
	char longest[CM_ID_MAX + 2];
	memset(longest, 'a', sizeof longest);
	longest[CM_ID_MAX] = '\0';
	const char *good[] = { "germany", "a", "0", "a-b", "uk-2", longest };
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		assert_true(cm_id_valid(good[i]));
	longest[CM_ID_MAX] = 'a';
	longest[CM_ID_MAX + 1] = '\0';
	const char *bad[] = { "", "-a", "../escape", "a/b", "A", "a b", "a_b", "a.b", "\xc3\xa9", longest };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_false(cm_id_valid(bad[i]));
	assert_false(cm_id_valid(NULL));
}

/* The one model checker, which the builder's finish runs: texts XML
 * cannot hold, bad ids and dangling indices are refused, with or without a
 * sink. */
static void test_map__model_checker_refuses(void **state)
{
	(void)state;
	for (int c = 0; c < 6; c++) {
		for (int sink = 0; sink < 2; sink++) {
			cm_map_builder *b = util_builder(3, 1);
			util_id_set(b, "ok", NULL);
			util_kind_set(b, 1, 0, CM_SQ_START);
			const char *want = NULL;
			switch (c) {
			case 0: util_name_set(b, 0, 0, "a\x1b]0;title\x07"); want = "control character 0x1b"; break;
			case 1: util_name_set(b, 0, 0, "bad \xff byte"); want = "not valid utf-8"; break;
			case 2: util_id_set(b, "../escape", NULL); want = "is not an id"; break;
			/* an index the model cannot hold is refused when it is set; a
			 * reader writing the grid directly has it tested at the end */
			case 3: {
				cm_square q = *cm_map_builder_square(b, 2, 0);
				q.island = 0;
				assert_int_equal(cm_map_builder_set_square(b, 2, 0, &q), CM_EINVAL);
				cm__map_builder_grid(b)[2].island = 0;
				want = "square island index is 0";
				break;
			}
			/* names reach terminals and diagnostics: no tab or newline either
			 * (one diagnostic is one line), but any printable text */
			case 4: util_name_set(b, 2, 0, "tab\tand\nnewline"); want = "holds a control character"; break;
			case 5: util_name_set(b, 2, 0, "K\xc3\xb8" "benhavn \xe2\x80\x94 Z\xc3\xbc" "rich"); break;
			}
			cm_diags *d;
			assert_int_equal(cm_diags_new(&d), 0);
			cm_map *m = NULL;
			assert_int_equal(cm_map_builder_finish(b, "CM0219", "f.xml", sink ? d : NULL, &m), want ? CM_EINVAL : 0);
			assert_true((m == NULL) == (want != NULL));
			assert_int_equal(cm_diags_errors(d), want && sink ? 1 : 0);
			if (want && sink) {
				assert_non_null(strstr(cm_diags_get(d, 0)->message, want));
				assert_string_equal(cm_diags_get(d, 0)->rule, "CM0219");
				assert_string_equal(cm_diags_get(d, 0)->file, "f.xml");
			}
			cm_diags_free(d);
			cm_map_free(m);
		}
	}
	/* the writer refuses a partial map (the only one that may hold such a
	 * text): never ill-formed XML */
	cm_map_builder *b = util_builder(3, 1);
	util_id_set(b, "ok", NULL);
	util_kind_set(b, 1, 0, CM_SQ_START);
	util_name_set(b, 0, 0, "bell\x07");
	cm_map *m = partial(b);
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(cm_map_write_xml(m, f), CM_EINVAL);
	assert_int_equal(ftell(f), 0);
	fclose(f);
	cm_map_free(m);
	/* a NULL sink takes nothing and counts nothing */
	cm_diags_add(NULL, CM_SEV_ERROR, "CM0219", "f", 1, 1, NULL, "dropped");
}

/* The descriptor writer is libxml2's xmlTextWriter: markup characters in
 * every kind of text are escaped by the library, and a parser gives back
 * the very same strings, both libxml2's own tree and our reader. */
#define MARKUP "a<b & \"c\" 'd' >e"
/* Element and attribute positions (io/xml.c): exact past line 65535, the
 * '<' of a start tag that spans lines, attribute columns in characters,
 * where an element's content begins. */
static void test_map__xml_positions(void **state)
{
	(void)state;
	size_t pad = 70000;
	const char *head = "<a>";
	const char *tail = "<b x=\"1\"\n   \xc3\xa9=\"2\" y=\"3\"/><c>\n  <d  z='4'>t</d></c></a>\n";
	size_t n = strlen(head) + pad + strlen(tail);
	char *buf = malloc(n + 1);
	assert_non_null(buf);
	strcpy(buf, head);
	memset(buf + strlen(head), '\n', pad);
	strcpy(buf + strlen(head) + pad, tail);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	xmlDoc *doc = NULL;
	assert_int_equal(cm_xml_load_memory(buf, n, "p.xml", NULL, d, &doc), 0);
	xmlNode *a = xmlDocGetRootElement(doc);
	assert_int_equal(cm_xml_line(a), 1);
	assert_int_equal(cm_xml_col(a), 1);
	xmlNode *b = cm_xml_elem(a->children);
	assert_int_equal(cm_xml_line(b), 70001);
	assert_int_equal(cm_xml_col(b), 1);
	unsigned col, line = cm_xml_attr_pos(b, "x", &col);
	assert_int_equal(line, 70001);
	assert_int_equal(col, 4);
	line = cm_xml_attr_pos(b, "y", &col); /* after a two-byte character: columns count characters */
	assert_int_equal(line, 70002);
	assert_int_equal(col, 10);
	line = cm_xml_attr_pos(b, "none", &col);
	assert_int_equal(line, 70001);
	assert_int_equal(col, 0);
	xmlNode *c = cm_xml_elem(b->next), *e = cm_xml_elem(c->children);
	assert_int_equal(cm_xml_col(c), 17);
	line = cm_xml_content_pos(c, &col);
	assert_int_equal(line, 70002);
	assert_int_equal(col, 20);
	assert_int_equal(cm_xml_line(e), 70003);
	assert_int_equal(cm_xml_col(e), 3);
	line = cm_xml_attr_pos(e, "z", &col);
	assert_int_equal(col, 7);
	cm_xml_free_doc(doc);
	cm_diags_free(d);
	free(buf);
}

/* Attribute texts a name may not hold (CM0007, io/xml.c): the first of
 * each element, in document order, at its attribute's place, the first
 * MAX_TEXT_PROBLEMS (100) said; 100 and 101 such elements. */
static void test_map__xml_text_problems_on_both_sides(void **state)
{
	(void)state;
	for (int n = 100; n <= 101; n++) {
		char *buf = malloc(64 + (size_t)n * 64);
		assert_non_null(buf);
		size_t len = (size_t)sprintf(buf, "<a ok=\"fine\">\n");
		for (int i = 0; i < n; i++)
			len += (size_t)sprintf(buf + len, "<b i=\"%d\" s=\"x&#%d;\" t=\"&#x85;\"/>\n", i, i % 2 ? 0x202e : 10);
		len += (size_t)sprintf(buf + len, "</a>\n");
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		xmlDoc *doc = NULL;
		assert_int_equal(cm_xml_load_memory(buf, len, "t.xml", NULL, d, &doc), CM_EINVAL);
		assert_null(doc);
		assert_int_equal(cm_diags_count(d), 100);
		for (size_t i = 0; i < 100; i++) {
			const cm_diag *g = cm_diags_get(d, i);
			assert_string_equal(g->rule, "CM0007");
			assert_int_equal(g->line, i + 2);
			assert_int_equal(g->col, 10 + (i >= 10));
			assert_string_equal(g->message, i % 2 ? "attribute s of <b> holds a bidirectional control or line separator"
			                                      : "attribute s of <b> holds a control character");
		}
		cm_diags_free(d);
		free(buf);
	}
}

/* Trees are independent: two trees at once, freed in either order, a big
 * text, a refused document (libxml2's last error keeps none of its
 * strings), and libxml2 after them all, on the allocator it had: the
 * library installs no process-wide hook (xmlMemSetup). */
static void test_map__xml_trees_apart_no_allocator_hooks(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	xmlFreeFunc f0;
	xmlMallocFunc m0;
	xmlReallocFunc r0;
	xmlStrdupFunc s0;
	assert_int_equal(xmlMemGet(&f0, &m0, &r0, &s0), 0);
	size_t big = 600000;
	char *text = malloc(big + 64);
	assert_non_null(text);
	strcpy(text, "<a v=\"first\">");
	size_t n = strlen(text);
	memset(text + n, 'x', big);
	strcpy(text + n + big, "</a>");
	n = strlen(text);
	xmlDoc *a = NULL, *b = NULL, *bad = NULL;
	assert_int_equal(cm_xml_load_memory(text, n, "a.xml", NULL, d, &a), 0);
	const char *bt = "<b><c w=\"7\"/><c w=\"8\"/></b>";
	assert_int_equal(cm_xml_load_memory(bt, strlen(bt), "b.xml", NULL, d, &b), 0);
	/* ill-formed: libxml2 keeps its last error, whose strings were in that
	 * document's memory */
	const char *it = "<b><c></b>";
	assert_int_not_equal(cm_xml_load_memory(it, strlen(it), "bad.xml", NULL, d, &bad), 0);
	assert_null(bad);
	const xmlError *last = xmlGetLastError();
	assert_true(!last || !last->message);
	cm_xml_free_doc(a); /* the older tree first */
	xmlNode *c = cm_xml_elem(xmlDocGetRootElement(b)->children);
	assert_int_equal(cm_xml_attr_int(c, "w", 0), 7);
	assert_int_equal(cm_xml_attr_int(cm_xml_elem(c->next), "w", 0), 8);
	assert_int_equal(cm_xml_load_memory(text, n, "a.xml", NULL, d, &a), 0);
	xmlNode *r = xmlDocGetRootElement(a);
	char *v = cm_xml_attr(r, "v");
	assert_string_equal(v, "first");
	free(v);
	xmlChar *all = xmlNodeGetContent(r); /* outside a parse: malloc's */
	assert_non_null(all);
	assert_int_equal(strlen((const char *)all), big);
	cm_xml_free_doc(b);
	cm_xml_free_doc(a);
	xmlFree(all);
	xmlChar *s = xmlStrdup((const xmlChar *)"after");
	assert_string_equal((const char *)s, "after");
	xmlFree(s);
	xmlFreeFunc f1;
	xmlMallocFunc m1;
	xmlReallocFunc r1;
	xmlStrdupFunc s1;
	assert_int_equal(xmlMemGet(&f1, &m1, &r1, &s1), 0);
	assert_true(f1 == f0 && m1 == m0 && r1 == r0 && s1 == s0);
	cm_diags_free(d);
	free(text);
}

/* A program's own libxml2 allocator, set after the library's first
 * document: the library's trees then come from it and go back to it. */
static long own_live, own_calls;
static void own_free(void *p)
{
	if (p)
		own_live--;
	free(p);
}
static void *own_malloc(size_t n)
{
	own_calls++;
	void *p = malloc(n);
	if (p)
		own_live++;
	return p;
}
static void *own_realloc(void *p, size_t n)
{
	own_calls++;
	void *q = realloc(p, n);
	if (q && !p)
		own_live++;
	return q;
}
static char *own_strdup(const char *s)
{
	char *p = own_malloc(strlen(s) + 1);
	if (p)
		strcpy(p, s);
	return p;
}

static void test_map__xml_keeps_a_programs_allocator(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	const char *t = "<b><c w=\"7\"/><c w=\"8\"/></b>";
	xmlDoc *doc = NULL;
	assert_int_equal(cm_xml_load_memory(t, strlen(t), "b.xml", NULL, d, &doc), 0); /* libxml2 is set up */
	cm_xml_free_doc(doc);
	xmlFreeFunc f;
	xmlMallocFunc m;
	xmlReallocFunc r;
	xmlStrdupFunc s;
	assert_int_equal(xmlMemGet(&f, &m, &r, &s), 0);
	assert_int_equal(xmlMemSetup(own_free, own_malloc, own_realloc, own_strdup), 0);
	own_live = own_calls = 0;
	doc = NULL;
	assert_int_equal(cm_xml_load_memory(t, strlen(t), "b.xml", NULL, d, &doc), 0);
	assert_true(own_calls > 0); /* the tree came from the program's allocator */
	xmlNode *c = cm_xml_elem(xmlDocGetRootElement(doc)->children);
	assert_int_equal(cm_xml_attr_int(cm_xml_elem(c->next), "w", 0), 8);
	cm_xml_free_doc(doc); /* and went back to it, whole */
	const char *bad = "<b><c></b>";
	doc = NULL;
	assert_int_not_equal(cm_xml_load_memory(bad, strlen(bad), "bad.xml", NULL, d, &doc), 0);
	xmlResetLastError();
	assert_int_equal(own_live, 0);
	assert_int_equal(xmlMemSetup(f, m, r, s), 0);
	doc = NULL;
	assert_int_equal(cm_xml_load_memory(t, strlen(t), "b.xml", NULL, d, &doc), 0);
	cm_xml_free_doc(doc);
	cm_diags_free(d);
}

static void test_map__writer_escapes_markup(void **state)
{
	(void)state;
	cm_map_builder *b = util_builder(3, 1);
	util_id_set(b, "ok", "Map " MARKUP);
	util_kind_set(b, 1, 0, CM_SQ_START);
	util_name_set(b, 0, 0, "Sq " MARKUP);
	util_marker_add(b, 0, 0, "Mk " MARKUP);
	util_setup_starts(b, 1);
	cm_map *m = util_finish(b);
	char *xml = write_string(m);
	assert_null(strstr(xml, MARKUP)); /* escaped, not raw */
	xmlDoc *doc = xmlReadMemory(xml, (int)strlen(xml), "w.xml", NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	xmlNode *root = xmlDocGetRootElement(doc);
	xmlChar *v = xmlGetProp(root, (const xmlChar *)"name");
	assert_string_equal((const char *)v, "Map " MARKUP);
	xmlFree(v);
	xmlNode *sq = root->children;
	while (sq && !(sq->type == XML_ELEMENT_NODE && !strcmp((const char *)sq->name, "square")))
		sq = sq->next;
	assert_non_null(sq);
	v = xmlGetProp(sq, (const xmlChar *)"name");
	assert_string_equal((const char *)v, "Sq " MARKUP);
	xmlFree(v);
	xmlNode *mk = sq->children;
	while (mk && mk->type != XML_ELEMENT_NODE)
		mk = mk->next;
	assert_non_null(mk);
	v = xmlNodeGetContent(mk);
	assert_string_equal((const char *)v, "Mk " MARKUP);
	xmlFree(v);
	xmlFreeDoc(doc);
	/* and our reader: an equal map */
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *back = NULL;
	int lrc = cm_map_load_memory(xml, strlen(xml), "w.xml", d, &back);
	if (lrc) {
		char *t = util_diags_text(d);
		print_message("%s\n%s", xml, t);
		free(t);
	}
	assert_int_equal(lrc, 0);
	assert_string_equal(cm_map_name(back), cm_map_name(m));
	assert_string_equal(cm_map_square_name(back, 0, 0), cm_map_square_name(m, 0, 0));
	assert_string_equal(util_marker(back, 0, 0, 0), util_marker(m, 0, 0, 0));
	cm_map_free(back);
	cm_diags_free(d);
	free(xml);
	cm_map_free(m);
}

static int write_diag(FILE *f, void *arg)
{
	void **a = arg;
	return cm_map_write_xml_diag(a[0], f, a[1]);
}

/* A control character or invalid UTF-8 (in a partial map, the only one
 * that holds such a text) is refused with a diagnostic, and the atomic
 * writer leaves nothing behind: no file, no temporary file. */
static void test_map__writer_refuses_control_atomically(void **state)
{
	(void)state;
	const char *bad[] = { "bell\x07", "bad \xff byte", "esc\x1b[2J" };
	for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
		char dir[] = "/tmp/test_map_xw.XXXXXX";
		assert_non_null(mkdtemp(dir));
		char path[64];
		snprintf(path, sizeof path, "%s/out.xml", dir);
		cm_map_builder *b = util_builder(3, 1);
		util_id_set(b, "ok", NULL);
		util_kind_set(b, 1, 0, CM_SQ_START);
		util_name_set(b, 2, 0, "fine");
		util_name_set(b, 0, 0, bad[c]);
		cm_map *m = partial(b);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		void *arg[2] = { m, d };
		assert_int_equal(cm_write_to(path, write_diag, arg, d), CM_EINVAL);
		assert_true(cm_diags_errors(d) >= 1);
		DIR *dh = opendir(dir);
		assert_non_null(dh);
		struct dirent *e;
		int n = 0;
		while ((e = readdir(dh)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				n++;
		closedir(dh);
		assert_int_equal(n, 0);
		assert_int_equal(rmdir(dir), 0);
		cm_diags_free(d);
		cm_map_free(m);
	}
	/* the writer's own refusal, whatever its caller checked: nothing
	 * reaches the stream and the diagnostic says why */
	for (int c = 0; c < 2; c++) {
		cm_xw *x = cm_xw_new();
		assert_non_null(x);
		cm_xw_open(x, 0, "map");
		cm_xw_attr(x, "id", "ok");
		cm_xw_open(x, 1, "marker");
		if (c == 0)
			cm_xw_attr(x, "name", "tab ok\tbut \x01 not");
		else
			cm_xw_text(x, "half \xe2\x80");
		cm_xw_close(x, 1);
		cm_xw_close(x, 0);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		FILE *f = tmpfile();
		assert_non_null(f);
		assert_int_equal(cm_xw_finish(x, f, "f.xml", d), CM_EINVAL);
		assert_int_equal(ftell(f), 0);
		fclose(f);
		assert_int_equal(cm_diags_errors(d), 1);
		assert_non_null(strstr(cm_diags_get(d, 0)->message, "control character or invalid UTF-8"));
		assert_non_null(strstr(cm_diags_get(d, 0)->message, c == 0 ? "name attribute" : "text"));
		cm_diags_free(d);
	}
}

/* A square is what every square needs and no more (issue 16: a 1024x1024
 * map is a million squares); the rest lives beside the grid. */
_Static_assert(sizeof(cm_square) <= 64, "cm_square grew past 64 bytes");
static void test_map__square_fits_64_bytes(void **state)
{
	(void)state;
	assert_int_equal(CM_SQUARE_MAX_BYTES, 64);
	assert_true(sizeof(cm_square) <= CM_SQUARE_MAX_BYTES);
	assert_true(sizeof(cm_edge_print) <= 2);
}

/* Names, markers, labels and print lines beside the grid: set, read back,
 * cleared, kept apart per square and side, refused off the grid, freed with
 * the map, and part of equality (lines not). Enough squares that the table
 * grows many times. */
static void test_map__rare_square_data_beside_the_grid(void **state)
{
	(void)state;
	cm_map_builder *mb = util_builder(300, 200), *nb = util_builder(300, 200);
	const cm_map *v = cm__map_builder_view(mb);
	assert_null(v->extras);
	assert_null(cm_map_square_name(v, 3, 4));
	size_t k = 7;
	assert_null(cm_map_square_markers(v, 3, 4, &k));
	assert_int_equal(k, 0);
	assert_null(cm_map_print_label(v, 3, 4, CM_E));
	assert_int_equal(cm_map_print_line(v, 3, 4, CM_E), 0);
	/* clearing what was never set adds nothing */
	assert_int_equal(cm_map_builder_set_square_name(mb, 3, 4, NULL), 0);
	assert_int_equal(cm_map_builder_set_print_label(mb, 3, 4, CM_E, NULL), 0);
	assert_int_equal(cm_map_builder_set_print_line(mb, 3, 4, CM_E, 0), 0);
	assert_null(v->extras);
	/* off the grid, or no side */
	assert_int_equal(cm_map_builder_set_square_name(mb, 300, 0, "x"), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_square_name(mb, 0, -1, "x"), CM_EINVAL);
	assert_int_equal(cm_map_builder_add_marker(mb, -1, 0, "x"), CM_EINVAL);
	assert_int_equal(cm_map_builder_add_marker(mb, 0, 0, NULL), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_print_label(mb, 0, 0, (cm_side)4, "x"), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_print_line(mb, 0, 0, (cm_side)4, 3), CM_EINVAL);
	assert_null(cm_map_square_name(v, 300, 0));
	assert_null(cm_map_print_label(v, 0, 0, (cm_side)4));
	assert_null(v->extras);
	/* every 7th square named, every 11th with markers, every 13th labelled */
	char t[32];
	for (int i = 0; i < 300 * 200; i++) {
		int x = i % 300, y = i / 300;
		snprintf(t, sizeof t, "sq%d", i);
		for (int h = 0; h < 2; h++) {
			cm_map_builder *o = h ? nb : mb;
			if (i % 7 == 0)
				assert_int_equal(cm_map_builder_set_square_name(o, x, y, t), 0);
			if (i % 11 == 0) {
				assert_int_equal(cm_map_builder_add_marker(o, x, y, "a"), 0);
				assert_int_equal(cm_map_builder_add_marker(o, x, y, t), 0);
			}
			if (i % 13 == 0) {
				assert_int_equal(cm_map_builder_set_print_label(o, x, y, (cm_side)(i % 4), t), 0);
				assert_int_equal(cm_map_builder_set_print_line(o, x, y, (cm_side)(i % 4), (unsigned)i + 1), 0);
			}
		}
	}
	util_id_set(mb, "big", NULL);
	util_id_set(nb, "big", NULL);
	cm_map *m = util_finish(mb), *n = util_finish(nb);
	assert_true(cm_map_equal(m, n));
	for (int i = 0; i < 300 * 200; i++) {
		int x = i % 300, y = i / 300;
		snprintf(t, sizeof t, "sq%d", i);
		if (i % 7 == 0)
			assert_string_equal(cm_map_square_name(m, x, y), t);
		else
			assert_null(cm_map_square_name(m, x, y));
		const char *const *mk = cm_map_square_markers(m, x, y, &k);
		if (i % 11 == 0) {
			assert_int_equal(k, 2);
			assert_string_equal(mk[0], "a");
			assert_string_equal(mk[1], t);
		} else {
			assert_int_equal(k, 0);
		}
		for (int s = 0; s < 4; s++) {
			bool set = i % 13 == 0 && s == i % 4;
			if (set)
				assert_string_equal(cm_map_print_label(m, x, y, (cm_side)s), t);
			else
				assert_null(cm_map_print_label(m, x, y, (cm_side)s));
			assert_int_equal(cm_map_print_line(m, x, y, (cm_side)s), set ? (unsigned)i + 1 : 0);
		}
	}
	/* replaced and cleared; lines are not compared, names are */
	mb = util_from(m);
	assert_int_equal(cm_map_builder_set_square_name(mb, 7, 0, "other"), 0);
	assert_string_equal(cm_map_square_name(cm__map_builder_view(mb), 7, 0), "other");
	cm_map *m2 = util_finish(mb);
	assert_false(cm_map_equal(m2, n));
	cm_map_free(m2);
	mb = util_from(m);
	assert_int_equal(cm_map_builder_set_square_name(mb, 7, 0, NULL), 0);
	assert_null(cm_map_square_name(cm__map_builder_view(mb), 7, 0));
	m2 = util_finish(mb);
	assert_false(cm_map_equal(m2, n));
	nb = util_from(n);
	assert_int_equal(cm_map_builder_set_square_name(nb, 7, 0, NULL), 0);
	cm_map *n2 = util_finish(nb);
	assert_true(cm_map_equal(m2, n2));
	cm_map_free(m2);
	mb = util_from(m);
	assert_int_equal(cm_map_builder_set_print_line(mb, 13, 0, CM_E, 5), 0);
	m2 = util_finish(mb);
	assert_true(cm_map_equal(m2, n));
	cm_map_free(m2);
	nb = util_from(n);
	assert_int_equal(cm_map_builder_set_print_label(nb, 13, 0, CM_E, NULL), 0);
	cm_map_free(n2);
	n2 = util_finish(nb);
	assert_false(cm_map_equal(m, n2));
	cm_map_free(n2);
	nb = util_from(n);
	assert_int_equal(cm_map_builder_add_marker(nb, 1, 1, "late"), 0);
	n2 = util_finish(nb);
	assert_false(cm_map_equal(n2, m));
	cm_map_free(n2);
	/* the model checker sees what lives beside the grid */
	mb = util_from(m);
	assert_int_equal(cm_map_builder_set_square_name(mb, 5, 6, "bell\x07"), 0);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_map_builder_finish(mb, NULL, NULL, d, &m2), CM_EINVAL);
	assert_int_equal(cm_diags_errors(d), 1);
	assert_non_null(strstr(cm_diags_get(d, 0)->where, "square (5,6)"));
	cm_diags_free(d);
	cm_map_free(m);
	cm_map_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map__reads_every_feature),
		cmocka_unit_test(test_map__xml_positions),
		cmocka_unit_test(test_map__xml_text_problems_on_both_sides),
		cmocka_unit_test(test_map__round_trip_is_equal_and_stable),
		cmocka_unit_test(test_map__equal_notices_changes),
		cmocka_unit_test(test_map__combined_halves_pair),
		cmocka_unit_test(test_map__printings),
		cmocka_unit_test(test_map__image_without_grid),
		cmocka_unit_test(test_map__in_memory_checks_say_where),
		cmocka_unit_test(test_map__bad_fixtures_report_exactly_what_they_expect),
		cmocka_unit_test(test_map__limits_met_exactly_are_clean),
		cmocka_unit_test(test_map__every_check_has_a_fixture),
		cmocka_unit_test(test_map__named_decks),
		cmocka_unit_test(test_map__kind_chars_round_trip),
		cmocka_unit_test(test_map__id_valid),
		cmocka_unit_test(test_map__model_checker_refuses),
		cmocka_unit_test(test_map__writer_escapes_markup),
		cmocka_unit_test(test_map__writer_refuses_control_atomically),
		cmocka_unit_test(test_map__square_fits_64_bytes),
		cmocka_unit_test(test_map__xml_trees_apart_no_allocator_hooks),
		cmocka_unit_test(test_map__xml_keeps_a_programs_allocator),
		cmocka_unit_test(test_map__rare_square_data_beside_the_grid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
