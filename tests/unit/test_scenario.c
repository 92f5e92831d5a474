/* SPDX-License-Identifier: MIT */
/* test_scenario.c: the scenario notation reader (carcamap/scenario.h):
 * compact tiles, grids, prints, big cities, ferries, islands; and bad
 * input, each case with the line its diagnostic must carry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "scenario.h"
#include "util_model.h"

static void test_scenario__compact_tile(void **state)
{
	(void)state;
	cm_tile_type t;
	char err[128];
	assert_int_equal(cm_scenario_parse_tile("D count-c1=3 count-c2=4 start : city[Nw Nm Ne] arms=1 ; "
	                                        "road[Em Wm] inn ; field[En Wn] touches=c1 ; "
	                                        "field[Es Se Sm Sw Ws] id=south",
	                                        &t, err, sizeof err),
	                 0);
	assert_string_equal(t.id, "D");
	assert_true(t.start);
	assert_int_equal(t.count[CM_EDITION_C1], 3);
	assert_int_equal(t.count[CM_EDITION_C2], 4);
	assert_int_equal(t.count[CM_EDITION_C3], 4); /* C3 = C2 unless given */
	assert_int_equal(t.n_features, 4);
	assert_int_equal(cm_scenario_feature(&t, "c1"), 0);
	assert_int_equal(cm_scenario_feature(&t, "r1"), 1);
	assert_int_equal(cm_scenario_feature(&t, "f1"), 2);
	assert_int_equal(cm_scenario_feature(&t, "south"), 3);
	assert_int_equal(cm_scenario_feature(&t, "f2"), -1);
	assert_int_equal(t.features[0].arms, 1);
	assert_true(t.features[1].inn);
	assert_int_equal(t.features[2].touches, 1u);
	assert_int_equal(t.edge[CM_N], CM_EDGE_CITY);
	assert_int_equal(t.edge[CM_E], CM_EDGE_ROAD);
	cm_tile_type_clear(&t);
	static const char *const bad[] = {
		"X : road[Nm Sm]",                            /* slots uncovered */
		"X : field[Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn] ; road[Nm]", /* a slot twice */
		"X : river[Nm]",                              /* unknown kind */
		"X : field[Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn] touches=c9",
		"X count=two : monastery[]",
		"X monastery[]",                              /* no colon */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		assert_int_equal(cm_scenario_parse_tile(bad[i], &t, err, sizeof err), CM_EINVAL);
		assert_true(err[0] != '\0');
	}
}

static void test_scenario__map_notation(void **state)
{
	(void)state;
	const char *text = "scenario s\nrule MAP-FERRY\nplayers 3\nseed 9\noption town-cost=yes\n"
	                   "map 5 3\n.#B#I  # trailing comment\n##S~L\n#T#H.\n"
	                   "bigcity Mini\npiece 2 0 : city[Nw Nm Ne] ; field[En Em Es Se Sm Sw Ws Wm Wn]\n"
	                   "island Rock\nsquare 4 0 arms=2 marker=wine\n"
	                   "print 0 1 W road arms=1\nferry 1 0 N 4 0 N arms=3\n"
	                   "tile U : road[Em Wm] ; field[Nw Nm Ne En Wn] ; field[Es Se Sm Sw Ws]\n"
	                   "deck inline U 5\nplace U 1 1 0\n";
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_scenario *s = NULL;
	assert_int_equal(cm_scenario_read_text(text, "t.scn", d, &s), 0);
	assert_int_equal(s->players, 3);
	assert_int_equal(s->seed, 9);
	assert_true(cm_map_rules(s->map)->town_cost);
	const cm_map *m = s->map;
	assert_int_equal(cm_map_at(m, 2, 0)->kind, CM_SQ_BIGCITY);
	assert_int_equal(cm_map_at(m, 2, 0)->bigcity, 0);
	assert_int_equal(cm_map_at(m, 4, 0)->island, 0); /* the only island */
	assert_int_equal(cm_map_at(m, 4, 0)->arms, 2);
	assert_int_equal(util_marker_count(m, 4, 0), 1);
	assert_int_equal(cm_map_at(m, 3, 1)->kind, CM_SQ_WAVES);
	assert_int_equal(cm_map_at(m, 3, 2)->kind, CM_SQ_HALF);
	assert_int_equal(cm_map_at(m, 0, 1)->print[CM_W].kind, CM_PRINT_ROAD);
	assert_int_equal(cm_map_at(m, 0, 1)->print[CM_W].arms, 1);
	assert_int_equal(cm_map_at(m, 1, 0)->print[CM_N].kind, CM_PRINT_ROAD); /* ferry end */
	assert_int_equal(cm_map_at(m, 1, 0)->print[CM_W].kind, CM_PRINT_NEUTRAL);
	assert_int_equal(cm_map_at(m, 1, 0)->print[CM_E].kind, CM_PRINT_NONE); /* big city */
	assert_int_equal(cm_map_ferry_count(m), 1);
	assert_int_equal(cm_map_ferry(m, 0)->arms, 3);
	assert_int_equal(cm_map_deck_count(m), 1);
	assert_int_equal(cm_map_deck_entry(m, 0)->count, 5);
	assert_int_equal(s->n_sets, 1);
	assert_string_equal(s->sets[0]->id, "inline");
	assert_int_equal(s->n_steps, 1);
	assert_string_equal(s->steps[0].tok[0], "place");
	assert_int_equal(s->steps[0].line, 18);
	cm_scenario_free(s);
	cm_diags_free(d);
}

/* Each bad text and the line of its (first) diagnostic. */
static void test_scenario__bad_input_lines(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		unsigned line;
		const char *says;
	} cases[] = {
		{ "map 3 1\n###\nprint 5 0 N road\n", 3, "outside" },
		{ "map 3 1\n#x#\n", 2, "character" },
		{ "map 3 2\n###\n", 1, "fewer rows" },
		{ "players 9\nmap 1 1\n#\n", 1, "2 to 6" },
		{ "map 2 1\n##\npiece 0 0 : city[Nw Nm Ne]\n", 3, "bigcity" },
		{ "map 2 1\n#B\nbigcity X\npiece 0 0 : city[Nw Nm Ne] ; field[En Em Es Se Sm Sw Ws Wm Wn]\n", 4,
		  "big-city square" },
		{ "option tiny-city=maybe\nmap 1 1\n#\n", 1, "rule option" },
		{ "map 1 1\n#\ntile Q : road[Nm]\n", 3, "uncovered" },
		{ "map 1 1\n#\ninclude no-such-file.scn\n", 3, "cannot read" },
		{ "rule X\n", 0, "no map" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cm_diags *d = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_scenario *s = NULL;
		assert_int_equal(cm_scenario_read_text(cases[i].text, "bad.scn", d, &s), CM_EINVAL);
		assert_null(s);
		assert_true(cm_diags_errors(d) >= 1);
		const cm_diag *g = NULL;
		for (size_t k = 0; k < cm_diags_count(d) && !g; k++)
			if (cm_diags_get(d, k)->file && strcmp(cm_diags_get(d, k)->file, "bad.scn") == 0)
				g = cm_diags_get(d, k);
		assert_non_null(g);
		if (g->line != cases[i].line || !strstr(g->message, cases[i].says))
			fail_msg("case %zu: line %u \"%s\"", i, g->line, g->message);
		cm_diags_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario__compact_tile),
		cmocka_unit_test(test_scenario__map_notation),
		cmocka_unit_test(test_scenario__bad_input_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
