/* SPDX-License-Identifier: MIT */
/* test_map_builder.c: the map builder (carcamap/map.h "building a map"):
 * every setter's refusal of what no map may hold, with the builder left as
 * it was; finish's one model check; a built map equal to the same map read
 * from a descriptor; the island index; a copy from a map; the content
 * hash's cache, from many threads at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/map.h"
#include "carcamap/pack.h"
#include "util_files.h"
#include "util_model.h"

/* Whether d holds a diagnostic of rule (NULL: any) whose message holds part. */
static bool says(const cm_diags *d, const char *rule, const char *part)
{
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if ((!rule || (g->rule && strcmp(g->rule, rule) == 0)) && strstr(g->message, part))
			return true;
	}
	return false;
}

/* A 3x2 builder: an island, a big city with one piece, a map id. */
static cm_map_builder *small(void)
{
	cm_map_builder *b = util_builder(3, 2);
	util_id_set(b, "small", "Small");
	util_island_add(b, "isle", NULL);
	assert_int_equal(cm_map_builder_add_bigcity(b, "City", 0, NULL), 0);
	cm_feature f = { .kind = CM_FEAT_CITY, .slots = CM_SLOTS_ALL };
	cm_tile_type t = { .features = &f, .n_features = 1 };
	assert_int_equal(cm_map_builder_add_piece(b, 0, 2, 1, &t), 0);
	return b;
}

/* Every setter refuses, with CM_EINVAL, what no map may hold at that
 * place; a refused call leaves the map being built as it was. */
static void test_map_builder__setters_refuse_what_no_map_holds(void **state)
{
	(void)state;
	cm_map_builder *b = small();
	cm_map *before = util_finish(small());
	cm_square ok = *cm_map_builder_square(b, 0, 0);
	/* squares off the grid */
	const int off[][2] = { { -1, 0 }, { 0, -1 }, { 3, 0 }, { 0, 2 }, { 1 << 30, 1 << 30 } };
	for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
		int x = off[i][0], y = off[i][1];
		assert_null(cm_map_builder_square(b, x, y));
		assert_int_equal(cm_map_builder_set_square(b, x, y, &ok), CM_EINVAL);
		assert_int_equal(cm_map_builder_set_kind(b, x, y, CM_SQ_LAND), CM_EINVAL);
		assert_int_equal(cm_map_builder_set_print(b, x, y, CM_N, CM_PRINT_ROAD, 0), CM_EINVAL);
		assert_int_equal(cm_map_builder_set_square_name(b, x, y, "n"), CM_EINVAL);
		assert_int_equal(cm_map_builder_add_marker(b, x, y, "m"), CM_EINVAL);
		assert_int_equal(cm_map_builder_set_print_label(b, x, y, CM_N, "l"), CM_EINVAL);
		assert_int_equal(cm_map_builder_set_print_line(b, x, y, CM_N, 3), CM_EINVAL);
	}
	/* kinds, print kinds, sides and arms out of range */
	assert_int_equal(cm_map_builder_set_kind(b, 0, 0, (cm_square_kind)CM_SQ_KIND_COUNT), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_kind(b, 0, 0, (cm_square_kind)-1), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_print(b, 0, 0, (cm_side)4, CM_PRINT_ROAD, 0), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_print(b, 0, 0, CM_N, (cm_print_kind)4, 0), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_print(b, 0, 0, CM_N, CM_PRINT_ROAD, 256), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_print(b, 0, 0, CM_N, CM_PRINT_ROAD, -1), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_print_label(b, 0, 0, (cm_side)4, "l"), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_print_line(b, 0, 0, (cm_side)-1, 3), CM_EINVAL);
	assert_int_equal(cm_map_builder_add_marker(b, 0, 0, NULL), CM_EINVAL);
	/* a square's values: each out of range alone */
	for (int c = 0; c < 6; c++) {
		cm_square q = ok;
		switch (c) {
		case 0: q.kind = CM_SQ_KIND_COUNT; break;
		case 1: q.island = 1; break;  /* one island: index 0 only */
		case 2: q.island = -2; break;
		case 3: q.bigcity = 1; break; /* one big city */
		case 4: q.bigcity = -2; break;
		case 5: q.print[CM_W].kind = 4; break;
		}
		assert_int_equal(cm_map_builder_set_square(b, 0, 0, &q), CM_EINVAL);
	}
	/* and in range: taken */
	cm_square q = ok;
	q.kind = CM_SQ_ISLAND;
	q.island = 0;
	assert_int_equal(cm_map_builder_set_square(b, 1, 0, &q), 0);
	q = ok;
	q.island = -1;
	assert_int_equal(cm_map_builder_set_square(b, 1, 0, &q), 0); /* and back */
	/* parts: an about field, printings, a seam, a piece, a ferry, a name */
	assert_int_equal(cm_map_builder_set_about(b, -1, "x"), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_about(b, CM_ABOUT_FIELDS, "x"), CM_EINVAL);
	const cm_edition four[4] = { CM_EDITION_C1, CM_EDITION_C2, CM_EDITION_C3, CM_EDITION_C1 };
	assert_int_equal(cm_map_builder_set_printings(b, four, 4), CM_EINVAL);
	const cm_edition bad_ed[1] = { (cm_edition)3 };
	assert_int_equal(cm_map_builder_set_printings(b, bad_ed, 1), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_printings(b, NULL, 1), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_seam(b, 3), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_seam(b, -2), CM_EINVAL);
	cm_feature f = { .kind = CM_FEAT_CITY, .slots = CM_SLOTS_ALL };
	cm_tile_type t = { .features = &f, .n_features = 1 };
	assert_int_equal(cm_map_builder_add_piece(b, 1, 0, 0, &t), CM_EINVAL);
	assert_int_equal(cm_map_builder_add_piece(b, 0, 0, 0, NULL), CM_EINVAL);
	assert_int_equal(cm_map_builder_set_bigcity_name(b, 1, "x"), CM_EINVAL);
	cm_ferry fe = { .x1 = 0, .y1 = 0, .s1 = CM_N, .x2 = 1, .y2 = 0, .s2 = (cm_side)4 };
	assert_int_equal(cm_map_builder_add_ferry(b, &fe), CM_EINVAL);
	fe.s2 = CM_S;
	fe.s1 = (cm_side)-1;
	assert_int_equal(cm_map_builder_add_ferry(b, &fe), CM_EINVAL);
	/* none of it reached the map */
	cm_map *m = util_finish(b);
	assert_true(cm_map_equal(m, before));
	assert_int_equal(cm_map_seam(m), -1);
	cm_map_free(m);
	cm_map_free(before);
}

/* Finish runs the model's one check: what the setters cannot see alone
 * (a missing or bad id, a piece or ferry end off the grid, texts no XML
 * holds, a feature naming what its tile lacks) is refused with the rule,
 * file and place asked for; finish always frees the builder. */
static void test_map_builder__finish_refuses_an_inconsistent_model(void **state)
{
	(void)state;
	cm_map *m = (cm_map *)1;
	assert_int_equal(cm_map_builder_finish(NULL, NULL, NULL, NULL, &m), CM_EINVAL);
	assert_null(m);
	static const char *const want[] = { "map id is missing",   "is not an id",      "outside the 3x2 grid",
		                            "outside the 3x2 grid", "control character", "is longer than",
		                            "names features",       "followers is -1" };
	char long_text[CM_TEXT_MAX + 2];
	memset(long_text, 'x', sizeof long_text - 1);
	long_text[sizeof long_text - 1] = '\0';
	for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
		cm_map_builder *b = small();
		switch (c) {
		case 0: util_id_set(b, NULL, "Small"); break;
		case 1: util_id_set(b, "Not An Id", "Small"); break;
		case 2: {
			cm_feature f = { .kind = CM_FEAT_CITY, .slots = CM_SLOTS_ALL };
			cm_tile_type t = { .features = &f, .n_features = 1 };
			assert_int_equal(cm_map_builder_add_piece(b, 0, 3, 0, &t), 0);
			break;
		}
		case 3: {
			cm_ferry fe = { .x1 = 0, .y1 = 0, .s1 = CM_N, .x2 = 0, .y2 = 2, .s2 = CM_S };
			assert_int_equal(cm_map_builder_add_ferry(b, &fe), 0);
			break;
		}
		case 4: util_name_set(b, 1, 1, "bell\x07"); break;
		case 5: util_marker_add(b, 1, 1, long_text); break;
		case 6: {
			cm_feature f[2] = { { .kind = CM_FEAT_CITY, .slots = CM_SIDE_SLOTS(CM_N) },
				            { .kind = CM_FEAT_FIELD, .slots = CM_SLOTS_ALL & ~CM_SIDE_SLOTS(CM_N),
				              .touches = 1u << 5 } };
			cm_tile_type t = { .features = f, .n_features = 2 };
			assert_int_equal(cm_map_builder_add_piece(b, 0, 1, 1, &t), 0);
			break;
		}
		case 7: {
			cm_setup su = { 1, 0, 0, -1, 0 };
			cm_map_builder_set_setup(b, &su);
			break;
		}
		}
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		assert_int_equal(cm_map_builder_finish(b, "CM0219", "small.xml", d, &m), CM_EINVAL);
		assert_null(m);
		if (!says(d, "CM0219", want[c])) {
			char *t = util_diags_text(d);
			fail_msg("case %zu: no CM0219 saying \"%s\":\n%s", c, want[c], t);
		}
		assert_string_equal(cm_diags_get(d, 0)->file, "small.xml");
		cm_diags_free(d);
	}
	/* and a sound one passes, not partial */
	m = util_finish(small());
	assert_false(cm_map_partial(m));
	cm_map_free(m);
}

/* m built again from nothing through the public builder alone, from what
 * its accessors say: every part of a map can be built by a client. */
static cm_map *rebuild(const cm_map *m)
{
	cm_map_builder *b = util_builder(cm_map_cols(m), cm_map_rows(m));
	util_id_set(b, cm_map_id(m), cm_map_name(m));
	assert_int_equal(cm_map_builder_set_image(b, cm_map_image(m)), 0);
	assert_int_equal(cm_map_builder_set_legend(b, cm_map_legend(m)), 0);
	assert_int_equal(cm_map_builder_set_file(b, cm_map_file(m)), 0);
	assert_int_equal(cm_map_builder_set_line(b, cm_map_line(m)), 0);
	assert_int_equal(cm_map_builder_set_seam(b, cm_map_seam(m)), 0);
	size_t n;
	const cm_edition *pr = cm_map_printings(m, &n);
	assert_int_equal(cm_map_builder_set_printings(b, pr, n), 0);
	cm_map_builder_set_setup(b, cm_map_setup(m));
	cm_map_builder_set_rules(b, cm_map_rules(m));
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		assert_int_equal(cm_map_builder_set_about(b, i, cm_about_get(cm_map_about(m), i)), 0);
	for (size_t i = 0; i < cm_map_island_count(m); i++) {
		const cm_island *is = cm_map_island(m, i);
		assert_int_equal(cm_map_builder_add_island(b, is->name, is->title, is->line, NULL), 0);
	}
	for (size_t i = 0; i < cm_map_bigcity_count(m); i++) {
		const cm_bigcity *bc = cm_map_bigcity(m, i);
		assert_int_equal(cm_map_builder_add_bigcity(b, bc->name, bc->line, NULL), 0);
		for (size_t k = 0; k < bc->n_pieces; k++)
			assert_int_equal(cm_map_builder_add_piece(b, i, bc->pieces[k].x, bc->pieces[k].y, &bc->pieces[k].tile), 0);
	}
	for (size_t i = 0; i < cm_map_ferry_count(m); i++)
		assert_int_equal(cm_map_builder_add_ferry(b, cm_map_ferry(m, i)), 0);
	for (size_t i = 0; i < cm_map_deck_count(m); i++)
		assert_int_equal(cm_map_builder_add_deck_entry(b, cm_map_deck_entry(m, i)), 0);
	for (int y = 0; y < cm_map_rows(m); y++)
		for (int x = 0; x < cm_map_cols(m); x++) {
			util_square_set(b, x, y, cm_map_at(m, x, y));
			util_name_set(b, x, y, cm_map_square_name(m, x, y));
			const char *const *mk = cm_map_square_markers(m, x, y, &n);
			for (size_t k = 0; k < n; k++)
				util_marker_add(b, x, y, mk[k]);
			for (int s = 0; s < 4; s++) {
				util_label_set(b, x, y, (cm_side)s, cm_map_print_label(m, x, y, (cm_side)s));
				assert_int_equal(cm_map_builder_set_print_line(b, x, y, (cm_side)s,
				                                               cm_map_print_line(m, x, y, (cm_side)s)), 0);
			}
		}
	return util_finish(b);
}

/* A map built through the builder is the map a descriptor reads as: the
 * good fixtures and every bundled board, built again from nothing and
 * copied, are equal to what was read (lines and paths too), and their
 * content hashes the same. */
/* Limits met exactly pass, one step over is refused: a text of exactly
 * CM_TEXT_MAX bytes (one more: "is longer than", above), one follower
 * per player (none: CM0214; the schema keeps 0 out of descriptors, not
 * out of packs, TMX or the API). */
static void test_map_builder__limits_met_exactly(void **state)
{
	(void)state;
	static char text[CM_TEXT_MAX + 1];
	memset(text, 'x', CM_TEXT_MAX);
	for (int c = 0; c < 3; c++) {
		cm_map_builder *b = util_map_one_square_builder("edge", "base");
		cm_setup su = *cm_map_builder_setup(b);
		if (c == 0)
			util_marker_add(b, 0, 0, text);
		su.followers = c == 2 ? 0 : 1;
		assert_int_equal(cm_map_builder_set_setup(b, &su), 0);
		cm_diags *d;
		cm_map *m = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		int rc = cm_map_builder_finish(b, "CM0219", "edge.xml", d, &m);
		if (!rc && m)
			rc = cm_map_check(m, NULL, 0, d);
		if (c < 2 && (rc != 0 || cm_diags_count(d))) {
			char *t = util_diags_text(d);
			fail_msg("case %d: rc %d\n%s", c, rc, t);
		}
		if (c == 2)
			assert_true(says(d, "CM0214", "at least 1 is needed"));
		cm_map_free(m);
		cm_diags_free(d);
	}
}

/* Finishes b: past a limit (over), CM0219 saying part and no map; at it,
 * a map and nothing said. */
static void finish_at_or_over(cm_map_builder *b, bool over, const char *part, const char *what)
{
	cm_diags *d;
	cm_map *m = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_map_builder_finish(b, "CM0219", "limits.xml", d, &m);
	if (over ? rc == 0 || m || !says(d, "CM0219", part) : rc != 0 || !m || cm_diags_count(d) != 0) {
		char *t = util_diags_text(d);
		fail_msg("%s %s its limit: rc %d\n%s", what, over ? "one past" : "at", rc, t);
	}
	cm_map_free(m);
	cm_diags_free(d);
}

/* CM_ITEMS_MAX entries in each list a map keeps are built; one more is
 * CM0219, list by list (markers of a square, deck entries, ferries,
 * islands, big cities, pieces of a big city). */
static void test_map_builder__item_limits_on_both_sides(void **state)
{
	(void)state;
	static const char *const lists[] = { "markers", "deck entries", "ferries", "islands", "big cities", "pieces" };
	cm_feature f = { .kind = CM_FEAT_CITY, .slots = CM_SLOTS_ALL };
	cm_tile_type piece = { .features = &f, .n_features = 1 };
	for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
		for (int over = 0; over < 2; over++) {
			cm_map_builder *b = util_map_one_square_builder("items", "base"); /* one deck entry */
			size_t n = (size_t)CM_ITEMS_MAX + (size_t)over, city = 0;
			cm_ferry fe = { NULL, 0, 0, CM_N, 0, 0, CM_S, 0, 0 };
			if (l == 5)
				assert_int_equal(cm_map_builder_add_bigcity(b, "City", 0, &city), 0);
			for (size_t i = l == 1 ? 1 : 0; i < n; i++) {
				char name[32];
				snprintf(name, sizeof name, "i%zu", i);
				switch (l) {
				case 0: util_marker_add(b, 0, 0, "m"); break;
				case 1: util_deck_add(b, "base", NULL, 1); break;
				case 2: assert_int_equal(cm_map_builder_add_ferry(b, &fe), 0); break;
				case 3: util_island_add(b, name, NULL); break;
				case 4: assert_int_equal(cm_map_builder_add_bigcity(b, NULL, 0, NULL), 0); break;
				default: assert_int_equal(cm_map_builder_add_piece(b, city, 0, 0, &piece), 0); break;
				}
			}
			const char *part = l == 0 ? "65537 markers, more than 65536"
			                 : l == 5 ? "65537 pieces, more than 65536"
			                          : "more than 65536 islands, big cities, ferries or deck entries";
			finish_at_or_over(b, over, part, lists[l]);
		}
}

/* The <about> fields of CM_ABOUT_MAX bytes (the description: CM_TEXT_MAX)
 * are built, one byte more is CM0219; a count, total or setup figure of
 * CM_COUNT_MAX is built, one more is CM0219. */
static void test_map_builder__about_and_count_limits_on_both_sides(void **state)
{
	(void)state;
	static char text[CM_TEXT_MAX + 2];
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		for (int over = 0; over < 2; over++) {
			size_t max = strcmp(cm_about_name(i), "description") == 0 ? CM_TEXT_MAX : CM_ABOUT_MAX;
			memset(text, 'a', max + (size_t)over);
			text[max + (size_t)over] = '\0';
			cm_map_builder *b = util_map_one_square_builder("about", "base");
			assert_int_equal(cm_map_builder_set_about(b, i, text), 0);
			char part[64];
			snprintf(part, sizeof part, "about %s is longer than %zu bytes", cm_about_name(i), max);
			finish_at_or_over(b, over, part, cm_about_name(i));
		}
	static const char *const figures[] = { "deck count", "start squares used", "tiles min", "tiles max", "followers" };
	for (size_t k = 0; k < sizeof figures / sizeof *figures; k++)
		for (int over = 0; over < 2; over++) {
			int v = CM_COUNT_MAX + over;
			cm_map_builder *b = util_map_one_square_builder("count", "base");
			if (k == 0) {
				util_deck_add(b, "base", "D", v);
			} else {
				cm_setup su = *cm_map_builder_setup(b);
				int *at[] = { NULL, &su.starts_used, &su.tiles_min, &su.tiles_max, &su.followers };
				*at[k] = v;
				if (k == 2)
					su.tiles_max = v; /* the range stays a range (CM0214 is map_check's) */
				assert_int_equal(cm_map_builder_set_setup(b, &su), 0);
			}
			char part[80];
			snprintf(part, sizeof part, "%s is %d, outside", figures[k], v);
			finish_at_or_over(b, over, part, figures[k]);
		}
}

static void test_map_builder__built_equals_read(void **state)
{
	(void)state;
	static const char *const paths[] = { "tests/fixtures/map/good/sample.xml", "tests/fixtures/map/good/usa.xml",
		                             "tests/fixtures/map/good/printings.xml", "maps/germany/germany.xml",
		                             "maps/carca-isles/carca-isles.xml", "maps/usa/usa.xml" };
	cm_tileset *sets[2] = { util_tileset_base(), util_tileset_inns() };
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_map *read = NULL;
		cm_map_load_opts lo;
		cm_map_load_opts_init(&lo);
		lo.flags = strncmp(paths[i], "maps/", 5) == 0 ? CM_MAP_LOAD_IMAGE : 0; /* the fixtures name no real image */
		if (cm_map_load(paths[i], &lo, d, &read)) {
			char *t = util_diags_text(d);
			fail_msg("%s does not read:\n%s", paths[i], t);
		}
		cm_map *built = rebuild(read), *copy = util_finish(util_from(read));
		char why[200];
		if (!util_map_equal(built, read, why, sizeof why))
			fail_msg("%s: built and read differ: %s", paths[i], why);
		assert_true(cm_map_equal(built, read));
		assert_true(cm_map_equal(copy, read));
		for (int k = 0; k < 2; k++) {
			const cm_map *o = k ? copy : built;
			assert_string_equal(cm_map_file(o), cm_map_file(read));
			assert_int_equal(cm_map_line(o), cm_map_line(read));
			assert_int_equal(cm_map_seam(o), cm_map_seam(read));
			for (int y = 0; y < cm_map_rows(read); y++)
				for (int x = 0; x < cm_map_cols(read); x++) {
					assert_int_equal(cm_map_at(o, x, y)->line, cm_map_at(read, x, y)->line);
					for (int s = 0; s < 4; s++)
						assert_int_equal(cm_map_print_line(o, x, y, (cm_side)s),
						                 cm_map_print_line(read, x, y, (cm_side)s));
				}
		}
		uint8_t h1[32], h2[32];
		int r1 = cm_map_hash(read, UTIL_SETS(sets), 2, h1), r2 = cm_map_hash(built, UTIL_SETS(sets), 2, h2);
		assert_int_equal(r1, r2);
		if (!r1)
			assert_memory_equal(h1, h2, 32);
		cm_map_free(copy);
		cm_map_free(built);
		cm_map_free(read);
		cm_diags_free(d);
	}
	/* a copy changed is another map; the map copied stays as it was */
	cm_map *m = util_map_sample();
	cm_map_builder *b = util_from(m);
	util_name_set(b, 1, 1, "Lübeck");
	cm_map *changed = util_finish(b);
	assert_false(cm_map_equal(changed, m));
	assert_string_equal(cm_map_square_name(m, 1, 1), "Hamburg");
	assert_string_equal(cm_map_square_name(changed, 1, 1), "Lübeck");
	cm_map_free(changed);
	cm_map_free(m);
	cm_tileset_free(sets[0]);
	cm_tileset_free(sets[1]);
}

/* One index finds islands by name, in the builder and in the map: the
 * first island of a name, NULL names never, many islands in one lookup
 * each; a copy's index is its own. */
static void test_map_builder__island_index(void **state)
{
	(void)state;
	cm_map_builder *b = util_builder(2, 2);
	util_id_set(b, "isles", NULL);
	assert_int_equal(cm_map_builder_island_find(b, "none"), -1);
	assert_int_equal(cm_map_builder_island_find(b, NULL), -1);
	util_island_add(b, "a", "first a");
	util_island_add(b, NULL, "no name");
	util_island_add(b, "b", NULL);
	util_island_add(b, "a", "second a");
	size_t idx = 99;
	assert_int_equal(cm_map_builder_add_island(b, "c", NULL, 7, &idx), 0);
	assert_int_equal(idx, 4);
	char name[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "isle-%d", i);
		util_island_add(b, name, NULL);
	}
	assert_int_equal(cm_map_builder_island_find(b, "a"), 0);
	assert_int_equal(cm_map_builder_island_find(b, "b"), 2);
	assert_int_equal(cm_map_builder_island_find(b, "c"), 4);
	assert_int_equal(cm_map_builder_island_find(b, ""), -1);
	assert_int_equal(cm_map_builder_island_find(b, "isle-4999"), 5004);
	cm_map *m = util_finish(b);
	assert_int_equal(cm_map_island_count(m), 5005);
	assert_int_equal(cm_map_island_find(m, "a"), 0);
	assert_string_equal(cm_map_island(m, (size_t)cm_map_island_find(m, "a"))->title, "first a");
	assert_int_equal(cm_map_island_find(m, "c"), 4);
	assert_int_equal(cm_map_island(m, 4)->line, 7);
	assert_null(cm_map_island(m, 5005));
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "isle-%d", i);
		assert_int_equal(cm_map_island_find(m, name), 5 + i);
	}
	assert_int_equal(cm_map_island_find(m, "isle-5000"), -1);
	assert_int_equal(cm_map_island_find(m, NULL), -1);
	cm_map_builder *c = util_from(m);
	util_island_add(c, "d", NULL);
	assert_int_equal(cm_map_builder_island_find(c, "a"), 0);
	assert_int_equal(cm_map_builder_island_find(c, "d"), 5005);
	cm_map *n = util_finish(c);
	assert_int_equal(cm_map_island_find(n, "d"), 5005);
	assert_int_equal(cm_map_island_find(m, "d"), -1);
	cm_map_free(n);
	cm_map_free(m);
}

/* The accessors give what was built; the i-th ones NULL past the end. */
static void test_map_builder__accessors(void **state)
{
	(void)state;
	cm_map *m = util_map_sample();
	assert_string_equal(cm_map_id(m), "sample");
	assert_string_equal(cm_map_name(m), "Sample Land");
	assert_int_equal(cm_map_cols(m), 6);
	assert_int_equal(cm_map_rows(m), 5);
	assert_ptr_equal(cm_map_at(m, 2, 3), &cm_map_squares(m)[3 * 6 + 2]);
	assert_null(cm_map_at(m, 6, 0));
	assert_int_equal(cm_map_bigcity_count(m), 1);
	assert_int_equal(cm_map_bigcity(m, 0)->n_pieces, 2);
	assert_null(cm_map_bigcity(m, 1));
	assert_int_equal(cm_map_ferry_count(m), 1);
	assert_string_equal(cm_map_ferry(m, 0)->name, "Sylt ferry");
	assert_null(cm_map_ferry(m, 1));
	assert_int_equal(cm_map_deck_count(m), 2);
	assert_string_equal(cm_map_deck_entry(m, 1)->tile, "IC-01");
	assert_null(cm_map_deck_entry(m, 2));
	assert_int_equal(cm_map_setup(m)->followers, 7);
	assert_int_equal(cm_map_rules(m)->edition, CM_EDITION_C1);
	assert_false(cm_about_present(cm_map_about(m)));
	assert_string_equal(cm_map_image(m), "sample.png");
	assert_string_equal(cm_map_legend(m), "legend.xml");
	assert_int_equal(cm_map_seam(m), -1);
	size_t n = 9;
	assert_null(cm_map_printings(m, &n));
	assert_int_equal(n, 0);
	cm_map_builder *b = util_from(m);
	const cm_edition two[2] = { CM_EDITION_C2, CM_EDITION_C3 };
	assert_int_equal(cm_map_builder_set_printings(b, two, 2), 0);
	assert_int_equal(cm_map_builder_set_seam(b, 5), 0);
	assert_int_equal(cm_map_builder_set_about(b, 1, "me"), 0);
	cm_map *c = util_finish(b);
	const cm_edition *p = cm_map_printings(c, &n);
	assert_int_equal(n, 2);
	assert_int_equal(p[1], CM_EDITION_C3);
	assert_int_equal(cm_map_seam(c), 5);
	assert_string_equal(cm_about_get(cm_map_about(c), 1), "me");
	cm_map_free(c);
	cm_map_free(m);
}

typedef struct {
	const cm_map *m;
	cm_tileset *const *sets;
	uint8_t h[32];
	int rc;
} hash_job;

static void *hash_thread(void *arg)
{
	hash_job *j = arg;
	for (int i = 0; i < 20 && !j->rc; i++)
		j->rc = cm_map_hash(j->m, UTIL_SETS(j->sets), 2, j->h);
	return NULL;
}

/* The content hash is cached on the map (its own part; the tile sets are
 * hashed each time): the same digest asked again, from threads asking at
 * once for a map none has hashed yet, and for a copy of the map. */
static void test_map_builder__hash_cache_from_many_threads(void **state)
{
	(void)state;
	cm_tileset *sets[2] = { util_tileset_base(), util_tileset_inns() };
	cm_map *ref = util_map_sample(), *m = util_map_sample();
	uint8_t want[32], again[32];
	assert_int_equal(cm_map_hash(ref, UTIL_SETS(sets), 2, want), 0);
	assert_int_equal(cm_map_hash(ref, UTIL_SETS(sets), 2, again), 0);
	assert_memory_equal(want, again, 32);
	enum { N = 4 };
	pthread_t t[N];
	hash_job j[N];
	for (int i = 0; i < N; i++) {
		j[i] = (hash_job){ m, sets, { 0 }, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, hash_thread, &j[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(j[i].rc, 0);
		assert_memory_equal(j[i].h, want, 32);
	}
	/* the sets are not cached: a changed set, another digest */
	sets[1]->tiles[0].count[2]++;
	assert_int_equal(cm_map_hash(m, UTIL_SETS(sets), 2, again), 0);
	assert_memory_not_equal(want, again, 32);
	sets[1]->tiles[0].count[2]--;
	cm_map *copy = util_finish(util_from(m));
	assert_int_equal(cm_map_hash(copy, UTIL_SETS(sets), 2, again), 0);
	assert_memory_equal(want, again, 32);
	cm_map_free(copy);
	cm_map_free(m);
	cm_map_free(ref);
	cm_tileset_free(sets[0]);
	cm_tileset_free(sets[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_builder__setters_refuse_what_no_map_holds),
		cmocka_unit_test(test_map_builder__finish_refuses_an_inconsistent_model),
		cmocka_unit_test(test_map_builder__limits_met_exactly),
		cmocka_unit_test(test_map_builder__item_limits_on_both_sides),
		cmocka_unit_test(test_map_builder__about_and_count_limits_on_both_sides),
		cmocka_unit_test(test_map_builder__built_equals_read),
		cmocka_unit_test(test_map_builder__island_index),
		cmocka_unit_test(test_map_builder__accessors),
		cmocka_unit_test(test_map_builder__hash_cache_from_many_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
