/* SPDX-License-Identifier: MIT */
/* test_tile.c: slots, rotation, facing and matching (carcamap/tile.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "carcamap/tile.h"

static void test_tile__slot_names_round_trip(void **state)
{
	(void)state;
	static const char *const want[12] = { "Nw", "Nm", "Ne", "En", "Em", "Es",
	                                      "Se", "Sm", "Sw", "Ws", "Wm", "Wn" };
	for (int i = 0; i < 12; i++) {
		assert_string_equal(cm_slot_name(i), want[i]);
		assert_int_equal(cm_slot_parse(want[i]), i);
	}
	assert_int_equal(cm_slot_parse("NW"), -1);
	assert_int_equal(cm_slot_parse(""), -1);
	cm_slots m;
	assert_int_equal(cm_slots_parse(" Nw  Em\tWn ", &m), 0);
	assert_int_equal(m, (1u << 0) | (1u << 4) | (1u << 11));
	assert_int_equal(cm_slots_parse("Nw Nw", &m), CM_EINVAL);
	assert_int_equal(cm_slots_parse("Nw Xx", &m), CM_EINVAL);
	char buf[64];
	cm_slots_format((1u << 0) | (1u << 4) | (1u << 11), buf, sizeof buf);
	assert_string_equal(buf, "Nw Em Wn");
}

/* Every slot through every rotation: a quarter turn moves a slot 3 places
 * clockwise (Nw->En, Nm->Em, …, Wn->Ne), four turns are the identity. */
static void test_tile__every_slot_every_rotation(void **state)
{
	(void)state;
	for (int i = 0; i < 12; i++) {
		for (int r = 0; r < 8; r++) {
			cm_slots got = cm_slots_rotate((cm_slots)(1u << i), r);
			assert_int_equal(got, 1u << ((i + 3 * (r % 4)) % 12));
		}
		assert_int_equal(cm_slots_rotate((cm_slots)(1u << i), -1), 1u << ((i + 9) % 12));
	}
	assert_int_equal(cm_slots_rotate(CM_SLOT(CM_N, 0), 1), CM_SLOT(CM_E, 0)); /* Nw -> En */
	assert_int_equal(cm_slots_rotate(CM_SLOT(CM_W, 2), 1), CM_SLOT(CM_N, 2)); /* Wn -> Ne */
	assert_int_equal(cm_slots_rotate(CM_SLOTS_ALL, 1), CM_SLOTS_ALL);
	for (int s = 0; s < 4; s++)
		for (int r = 0; r < 4; r++)
			assert_int_equal(cm_side_rotate((cm_side)s, r), (s + r) % 4);
}

/* Slot p of side s faces slot 2-p of side (s+2)%4, for all four sides. */
static void test_tile__facing_slots(void **state)
{
	(void)state;
	assert_int_equal(cm_slot_facing(cm_slot_parse("Nw")), cm_slot_parse("Sw"));
	assert_int_equal(cm_slot_facing(cm_slot_parse("Nm")), cm_slot_parse("Sm"));
	assert_int_equal(cm_slot_facing(cm_slot_parse("Ne")), cm_slot_parse("Se"));
	assert_int_equal(cm_slot_facing(cm_slot_parse("En")), cm_slot_parse("Wn"));
	assert_int_equal(cm_slot_facing(cm_slot_parse("Em")), cm_slot_parse("Wm"));
	assert_int_equal(cm_slot_facing(cm_slot_parse("Es")), cm_slot_parse("Ws"));
	for (int i = 0; i < 12; i++) {
		assert_int_equal(cm_slot_facing(cm_slot_facing(i)), i);
		assert_int_equal(cm_slot_facing(i) / 3, (i / 3 + 2) % 4);
		assert_int_equal(cm_slot_facing(i) % 3, 2 - i % 3);
		assert_int_equal(cm_slots_facing((cm_slots)(1u << i)), 1u << cm_slot_facing(i));
		assert_int_equal(cm_slots_sides((cm_slots)(1u << i)), 1u << (i / 3));
	}
	assert_int_equal(cm_slots_sides(0), 0);
	assert_int_equal(cm_slots_sides(CM_SLOTS_ALL), 0xFu);
	cm_slots m;
	assert_int_equal(cm_slots_parse("Ne Wm", &m), 0);
	assert_int_equal(cm_slots_sides(m), (1u << CM_N) | (1u << CM_W));
}

/* Tile D: city N, road W-E. */
static cm_feature d_features[4];
static cm_tile_type make_d(void)
{
	cm_tile_type t;
	memset(&t, 0, sizeof t);
	memset(d_features, 0, sizeof d_features);
	d_features[0].kind = CM_FEAT_CITY;
	cm_slots_parse("Nw Nm Ne", &d_features[0].slots);
	d_features[1].kind = CM_FEAT_ROAD;
	cm_slots_parse("Em Wm", &d_features[1].slots);
	d_features[2].kind = CM_FEAT_FIELD;
	cm_slots_parse("En Wn", &d_features[2].slots);
	d_features[3].kind = CM_FEAT_FIELD;
	cm_slots_parse("Es Se Sm Sw Ws", &d_features[3].slots);
	t.features = d_features;
	t.n_features = 4;
	return t;
}

static void test_tile__derived_edges_and_matching(void **state)
{
	(void)state;
	cm_tile_type d = make_d();
	assert_int_equal(cm_tile_type_derive(&d), 0);
	assert_int_equal(d.edge[CM_N], CM_EDGE_CITY);
	assert_int_equal(d.edge[CM_E], CM_EDGE_ROAD);
	assert_int_equal(d.edge[CM_S], CM_EDGE_FIELD);
	assert_int_equal(d.edge[CM_W], CM_EDGE_ROAD);
	for (int i = 0; i < 12; i++)
		assert_true(d.slot_feature[i] >= 0);
	/* rotated once clockwise the city faces east */
	assert_int_equal(cm_tile_edge(&d, CM_E, 1), CM_EDGE_CITY);
	assert_int_equal(cm_tile_edge(&d, CM_N, 1), CM_EDGE_ROAD);
	assert_int_equal(cm_tile_edge(&d, CM_W, 3), CM_EDGE_CITY);
	/* D north of D: its south (field) meets the other's north (city) */
	assert_false(cm_tiles_match(&d, 0, CM_S, &d, 0));
	/* turned upside down, the lower tile's city meets the upper's south? no:
	 * upper rotation 2 shows city on S, lower rotation 0 shows city on N */
	assert_true(cm_tiles_match(&d, 2, CM_S, &d, 0));
	assert_true(cm_tiles_match(&d, 0, CM_E, &d, 0)); /* road to road */
	assert_false(cm_tiles_match(&d, 1, CM_E, &d, 0)); /* city to road */
	/* a slot covered twice is reported */
	d_features[3].slots |= d_features[2].slots;
	assert_int_equal(cm_tile_type_derive(&d), CM_EINVAL);
}

static void test_tile__abbey_edge_matches_anything(void **state)
{
	(void)state;
	for (int k = 0; k < 4; k++) {
		assert_true(cm_edge_match(CM_EDGE_ABBEY, (cm_edge_kind)k));
		assert_true(cm_edge_match((cm_edge_kind)k, CM_EDGE_ABBEY));
	}
	assert_false(cm_edge_match(CM_EDGE_CITY, CM_EDGE_ROAD));
	assert_false(cm_edge_match(CM_EDGE_FIELD, CM_EDGE_CITY));
	assert_true(cm_edge_match(CM_EDGE_FIELD, CM_EDGE_FIELD));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tile__slot_names_round_trip),
		cmocka_unit_test(test_tile__every_slot_every_rotation),
		cmocka_unit_test(test_tile__facing_slots),
		cmocka_unit_test(test_tile__derived_edges_and_matching),
		cmocka_unit_test(test_tile__abbey_edge_matches_anything),
	};
	return cmocka_run_group_tests_name("tile", tests, NULL, NULL);
}
