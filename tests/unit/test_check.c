/* SPDX-License-Identifier: MIT */
/* test_check.c: the playability and simulated-game checks (carcamap/check.h).
 * One data-driven runner over tests/fixtures/check/ *.xml: each fixture's
 * "<!-- expect: CM0503 line 12 -->" lines name exactly the diagnostics due
 * (line 0: no line, a where string), "<!-- near-miss: CM0503 -->" the ids it
 * must not produce, "<!-- games: N -->" the simulated games; the text of
 * the diagnostics must equal NAME.golden (CM_UPDATE_GOLDEN=1 rewrites it).
 * Also: every CM05xx/CM06xx id has a trigger and a near miss, a pack
 * compiled from a descriptor checks the same, squares on diagnostics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/carcamap.h"
#include "check/stats_int.h"
#include "util_files.h"
#include "util_model.h"

#define DIR_CHECK "tests/fixtures/check/"
#define MAX_EXPECT 64

/* Loads files like `carcamap check` does (tile sets from maps/tilesets and
 * the fixtures' own), then runs the pipeline. */
static int run_check(const char *const *files, size_t n, int games, cm_diags *d)
{
	cm_workspace *w;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, DIR_CHECK "tilesets"), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		int r = cm_workspace_load(w, files[i], d);
		rc = rc ? rc : r;
	}
	int r = cm_workspace_resolve(w, d);
	rc = rc ? rc : r;
	cm_check_opts o;
	cm_check_opts_init(&o);
	o.games = games;
	r = cm_check_workspace(w, &o, d);
	rc = rc ? rc : r;
	cm_workspace_free(w);
	return rc;
}

static bool golden_matches(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, DIR_CHECK "%.*s.golden", (int)(strlen(name) - 4), name);
	const char *up = getenv("CM_UPDATE_GOLDEN");
	if (up && strcmp(up, "1") == 0) {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
		return true;
	}
	char *want = util_read_file(path, NULL);
	bool same = strcmp(want, text) == 0;
	if (!same)
		print_message("%s differs from the output:\n%s", path, text);
	free(want);
	return same;
}

static void test_check__fixtures_report_exactly_what_they_expect(void **state)
{
	(void)state;
	size_t n, failed = 0;
	char **names = util_list_dir(DIR_CHECK, ".xml", &n);
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) {
		char path[512];
		snprintf(path, sizeof path, DIR_CHECK "%s", names[i]);
		char *text = util_read_file(path, NULL);
		util_expect want[MAX_EXPECT];
		size_t nw = util_parse_expects(text, want, MAX_EXPECT);
		int games = 0;
		const char *g = strstr(text, "<!-- games: ");
		if (g)
			games = atoi(g + strlen("<!-- games: "));
		char near[256] = "";
		const char *nm = strstr(text, "<!-- near-miss: ");
		if (nm)
			sscanf(nm + strlen("<!-- near-miss: "), "%255[^>]", near);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		const char *files[1] = { path };
		run_check(files, 1, games, d);
		cm_diags_sort(d);
		bool ok = true;
		for (size_t k = 0; k < cm_diags_count(d); k++) {
			const cm_diag *dg = cm_diags_get(d, k);
			if (dg->rule && strstr(near, dg->rule)) {
				print_message("%s: near miss of %s produces it\n", names[i], dg->rule);
				ok = false;
			}
			/* everything about a square says which (check.h) */
			if (dg->rule && strncmp(dg->rule, "CM050", 5) == 0 && strstr(dg->message, "square (") &&
			    !strstr(dg->message, "ferry") && (dg->x < 0 || dg->y < 0)) {
				print_message("%s: %s names a square but carries none\n", names[i], dg->rule);
				ok = false;
			}
		}
		ok = util_expects_differ(names[i], want, nw, d, NULL) == 0 && ok;
		char *t = util_diags_text(d);
		if (!ok) {
			print_message("%s: expected %zu diagnostics, got:\n%s", names[i], nw, t);
			failed++;
		} else if (!golden_matches(names[i], t)) {
			failed++;
		}
		free(t);
		free(text);
		cm_diags_free(d);
	}
	util_names_free(names);
	assert_int_equal(failed, 0);
}

/* Removing a check must fail a test: every CM05xx and CM06xx id has a
 * fixture that expects it and one that names it as its near miss. */
static void test_check__every_check_has_a_trigger_and_a_near_miss(void **state)
{
	(void)state;
	char *all = util_read_dir_files(DIR_CHECK, ".xml");
	size_t checks = 0, missing = 0;
	for (size_t i = 0; i < cm_catalog_count(); i++) {
		const cm_check_info *ci = cm_catalog_get(i);
		if (strncmp(ci->id, "CM05", 4) != 0 && strncmp(ci->id, "CM06", 4) != 0)
			continue;
		checks++;
		if (!util_text_expects(all, ci->id)) {
			print_message("no fixture expects %s\n", ci->id);
			missing++;
		}
		bool near = false;
		for (const char *p = all; !near && (p = strstr(p, "<!-- near-miss: ")) != NULL; p++) {
			const char *e = strstr(p, "-->");
			const char *h = strstr(p, ci->id);
			near = e && h && h < e;
		}
		if (!near) {
			print_message("no fixture is the near miss of %s\n", ci->id);
			missing++;
		}
	}
	assert_true(checks >= 13);
	assert_int_equal(missing, 0);
	free(all);
}

/* Strips the file and line: what a pack's copy of a map must reproduce. */
static char *signature(const cm_diags *d, const char *skip_prefix)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if (!g->rule || strncmp(g->rule, skip_prefix, strlen(skip_prefix)) != 0)
			fprintf(f, "%s %s (%d,%d) %s\n", g->rule ? g->rule : "-", cm_severity_name(g->severity), g->x,
			        g->y, g->message);
	}
	fclose(f);
	return buf;
}

/* A pack compiled from descriptors checks the same as the descriptors:
 * the same ids, severities, squares and messages; only file and line give
 * way to a where string. */
static void test_check__pack_checks_like_its_descriptors(void **state)
{
	(void)state;
	static const char *const maps[] = { DIR_CHECK "CM0502-few.xml", DIR_CHECK "CM0602-rare.xml",
		                            DIR_CHECK "CM0508-ferry.xml", "maps/iberia/iberia.xml" };
	char *dir = util_tempdir();
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
		cm_diags *d1, *d2;
		assert_int_equal(cm_diags_new(&d1), 0);
		assert_int_equal(cm_diags_new(&d2), 0);
		const char *files[1] = { maps[i] };
		run_check(files, 1, 200, d1);
		/* the pack: the map and its tile sets, written without the checks */
		cm_workspace *w;
		assert_int_equal(cm_workspace_new(&w), 0);
		assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
		cm_diags *q;
		assert_int_equal(cm_diags_new(&q), 0);
		assert_int_equal(cm_workspace_load(w, maps[i], q), 0);
		assert_int_equal(cm_workspace_resolve(w, q), 0);
		/* every map the descriptor gives (each printing of a board) */
		const cm_map *ms[CM_EDITION_COUNT];
		size_t n_ms = cm_workspace_map_count(w);
		assert_true(n_ms >= 1 && n_ms <= CM_EDITION_COUNT);
		for (size_t k = 0; k < n_ms; k++)
			ms[k] = cm_workspace_map(w, k);
		const cm_tileset **sets;
		size_t n;
		assert_int_equal(cm_workspace_map_sets(w, ms[0], &sets, &n), 0);
		char pack[600];
		snprintf(pack, sizeof pack, "%s/p%zu.pack", dir, i);
		assert_int_equal(cm_pack_write(pack, ms, n_ms, UTIL_SETS(sets), n, q), 0);
		free(sets);
		cm_workspace_free(w);
		cm_diags_free(q);
		const char *pfiles[1] = { pack };
		run_check(pfiles, 1, 200, d2);
		/* the sinks keep insertion order: both runs add in the same order */
		char *s1 = signature(d1, "CM00"), *s2 = signature(d2, "CM00");
		if (strcmp(s1, s2) != 0)
			print_message("%s:\n-- descriptor\n%s-- pack\n%s", maps[i], s1, s2);
		assert_string_equal(s1, s2);
		for (size_t k = 0; k < cm_diags_count(d2); k++) {
			const cm_diag *g = cm_diags_get(d2, k);
			assert_int_equal(g->line, 0);
			assert_non_null(g->where);
		}
		free(s1);
		free(s2);
		cm_diags_free(d1);
		cm_diags_free(d2);
	}
	util_rmtree(dir);
}

/* Squares from an image have no element line: a where string says which. */
static void test_check__image_squares_say_where(void **state)
{
	(void)state;
	cm_map_builder *b = util_builder(3, 1);
	util_id_set(b, "tiny", NULL);
	util_kind_set(b, 0, 0, CM_SQ_START);
	util_kind_set(b, 1, 0, CM_SQ_LAND);
	util_kind_set(b, 2, 0, CM_SQ_LAND);
	cm_map_builder_default_prints(b);
	util_print_set(b, 2, 0, CM_N, CM_PRINT_CITY, 0);
	util_print_set(b, 2, 0, CM_S, CM_PRINT_CITY, 0);
	util_setup_starts(b, 1);
	cm_tileset *ts = util_tileset_base();
	util_deck_add(b, ts->id, "D", 3);
	cm_map *m = util_finish(b);
	const cm_tileset *sets[1] = { ts };
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_check_opts o;
	cm_check_opts_init(&o);
	o.structure = true;
	assert_int_equal(cm_check_map(m, sets, 1, &o, d), CM_EINVAL);
	bool seen = false;
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if (!g->rule || strcmp(g->rule, "CM0501") != 0)
			continue;
		seen = true;
		assert_string_equal(g->where, "map tiny, square (2,0)");
		assert_int_equal(g->x, 2);
		assert_int_equal(g->y, 0);
		assert_int_equal(g->line, 0);
	}
	assert_true(seen);
	cm_diags_free(d);
	cm_map_free(m);
	cm_tileset_free(ts);
}

/* The setter applies to the diagnostic just added, and never to an older
 * one when a filter dropped the new one. */
static void test_check__square_setter_follows_filters(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_diags_ignore(d, "CM0502"), 0);
	cm_diags_check(d, "CM0501", NULL, 0, 0, "w", "kept");
	cm_diags_set_square(d, 3, 4);
	cm_diags_check(d, "CM0502", NULL, 0, 0, "w", "dropped");
	cm_diags_set_square(d, 7, 8);
	cm_diags_check(d, "CM0503", NULL, 0, 0, "w", "no square");
	assert_int_equal(cm_diags_count(d), 2);
	assert_int_equal(cm_diags_get(d, 0)->x, 3);
	assert_int_equal(cm_diags_get(d, 0)->y, 4);
	assert_int_equal(cm_diags_get(d, 1)->x, -1);
	assert_int_equal(cm_diags_get(d, 1)->y, -1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cm_diags_write_json(d, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"square\": [\n        3,\n        4\n      ]"));
	assert_non_null(strstr(buf, "\"square\": null"));
	free(buf);
	cm_diags_free(d);
}

/* Games are deterministic: the same seed gives the same figures. */
static void test_check__games_are_deterministic(void **state)
{
	(void)state;
	char *t[3];
	for (int k = 0; k < 3; k++) {
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		const char *files[1] = { "maps/germany/germany.xml" };
		cm_workspace *w;
		assert_int_equal(cm_workspace_new(&w), 0);
		assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
		assert_int_equal(cm_workspace_load(w, files[0], d), 0);
		assert_int_equal(cm_workspace_resolve(w, d), 0);
		cm_check_opts o;
		cm_check_opts_init(&o);
		o.games = 50;
		o.seed = k == 2 ? 99 : CM_CHECK_DEFAULT_SEED;
		assert_int_equal(cm_check_workspace(w, &o, d), 0);
		t[k] = util_diags_text(d);
		assert_non_null(strstr(t[k], "[CM0601]"));
		cm_workspace_free(w);
		cm_diags_free(d);
	}
	assert_string_equal(t[0], t[1]);
	assert_true(strcmp(t[0], t[2]) != 0);
	for (int k = 0; k < 3; k++)
		free(t[k]);
}

/* The simulated-game findings at their thresholds (check.h): a square
 * filled in exactly 10 per mille of the games is not rare (CM0602), one
 * game fewer is; a fill ratio of exactly 0.700 is not low (CM0603), 0.699
 * is; exactly 10% of the deck stranded a game is not too many (CM0604), one
 * tile more over the games is. Random games cannot be aimed at a figure,
 * so the decisions check.c makes are tested on the figures. */
static void test_check__game_thresholds_on_both_sides(void **state)
{
	(void)state;
	assert_false(cm__check_rare(1, 100));
	assert_true(cm__check_rare(0, 100));
	assert_false(cm__check_rare(10, 1000));
	assert_true(cm__check_rare(9, 1000));
	assert_false(cm__check_rare(100000, 10000000)); /* no overflow at the most games */
	assert_true(cm__check_rare(99999, 10000000));
	assert_false(cm__check_low_fill(7.0 / 10));
	assert_false(cm__check_low_fill(700.0 / 1000));
	assert_true(cm__check_low_fill(699.0 / 1000));
	assert_false(cm__check_stranding(50, 10, 50)); /* 5 of 50 tiles a game: 10% */
	assert_true(cm__check_stranding(51, 10, 50));
	assert_false(cm__check_stranding(0, 1, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check__fixtures_report_exactly_what_they_expect),
		cmocka_unit_test(test_check__every_check_has_a_trigger_and_a_near_miss),
		cmocka_unit_test(test_check__pack_checks_like_its_descriptors),
		cmocka_unit_test(test_check__image_squares_say_where),
		cmocka_unit_test(test_check__square_setter_follows_filters),
		cmocka_unit_test(test_check__games_are_deterministic),
		cmocka_unit_test(test_check__game_thresholds_on_both_sides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
