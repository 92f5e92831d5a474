/* SPDX-License-Identifier: MIT */
/* test_maps_bundled.c: every bundled map in maps/ loads through a workspace
 * (descriptor, annotated PNG, deck resolved against maps/tilesets), passes
 * cm_map_check without a diagnostic, and holds the published facts of
 * RULES.md section 2: start squares (count, names, used), tile range,
 * followers, edition, the special squares of each board, big cities and
 * towns named there, and room for the recommended number of tiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/map.h"
#include "carcamap/workspace.h"

/* The facts one map must hold; NULL-terminated name lists. */
typedef struct {
	const char *path;
	const char *id;
	cm_edition edition;
	int starts;            /* start squares on the map (MAP-START) */
	int starts_used;
	const char *start_names[5];
	int tiles_min, tiles_max; /* MAP-TILES */
	int waves;             /* -1: any number, else exactly (MAP-WAVES) */
	bool ferries;          /* MAP-FERRY: has ferries (else none) */
	int islands;           /* islands declared (MAP-ISLAND) */
	int island_size;       /* squares per island, 0 = any */
	bool island_arms;      /* some island square shows coats of arms */
	bool landmarks;        /* MAP-LANDMARK: has landmarks (else none) */
	bool halves;           /* MAP-HALF: has half squares (else none) */
	int playable;          /* exactly this many playable squares, 0 = not fixed */
	const char *bigcities[3]; /* big cities RULES.md names on this map */
	const char *towns[3];     /* towns RULES.md names on this map */
} map_facts;

static const map_facts facts[] = {
	{ "maps/germany/germany.xml", "germany", CM_EDITION_C2, 3, 2, { "Rostock", "Erfurt", "Stuttgart" },
	  110, 120, 0, false, 0, 0, false, false, false, 0, { "Berlin" }, { "Bremen" } },
	{ "maps/benelux/benelux.xml", "benelux", CM_EDITION_C2, 3, 2, { "Meppel", "Eindhoven", "Charleroi" },
	  110, 120, 3, true, 3, 2, false, false, false, 0, { "Amsterdam" }, { "Utrecht" } },
	{ "maps/france/france.xml", "france", CM_EDITION_C2, 3, 2, { "Nancy", "Le Mans", "Limoges" },
	  110, 120, 0, false, 0, 0, false, false, false, 0, { "Paris" }, { "Bordeaux", "Strasbourg" } },
	{ "maps/british-isles/british-isles.xml", "british-isles", CM_EDITION_C2, 3, 3,
	  { "Kilkenny", "Carlisle", "Bristol" }, 90, 100, 0, false, 0, 0, false, false, false, 0, { "London" },
	  { "Oxford" } },
	{ "maps/iberia/iberia.xml", "iberia", CM_EDITION_C2, 4, 3, { "León", "Pamplona", "Évora", "Murcia" },
	  110, 120, 0, true, -1, 0, true, false, false, 0, { "Barcelona" }, { "Salamanca" } },
	{ "maps/nordics/nordics.xml", "nordics", CM_EDITION_C3, 3, 2, { NULL }, 115, 125, -1, true, 0, 0, false,
	  true, false, 0, { NULL }, { NULL } },
	{ "maps/taiwan/taiwan.xml", "taiwan", CM_EDITION_C2, 2, 2, { "Mount Snow", "Mount Jade" }, 100, 110, 0,
	  true, -1, 0, true, false, false, 121, { NULL }, { NULL } },
	{ "maps/ukraine/ukraine.xml", "ukraine", CM_EDITION_C2, 3, 2, { NULL }, 110, 120, 0, false, 0, 0, false,
	  false, false, 0, { NULL }, { NULL } },
	{ "maps/usa-west/usa-west.xml", "usa-west", CM_EDITION_C2, 2, 2, { NULL }, 110, 120, 0, false, 0, 0,
	  false, false, true, 0, { NULL }, { NULL } },
	{ "maps/usa-east/usa-east.xml", "usa-east", CM_EDITION_C2, 2, 2, { NULL }, 110, 120, 0, false, 0, 0,
	  false, false, true, 0, { NULL }, { NULL } },
	/* both USA maps as one board: the half squares pair into land */
	{ "maps/usa/usa.xml", "usa", CM_EDITION_C2, 4, 4, { NULL }, 220, 240, 0, false, 0, 0, false, false, false,
	  0, { NULL }, { NULL } },
	/* our own example board: every element of the format */
	{ "maps/carca-isles/carca-isles.xml", "carca-isles", CM_EDITION_C2, 3, 2,
	  { "Northgate", "Westhaven", "Southport" }, 70, 76, -1, true, 1, 4, true, true, true, 0,
	  { "Carcassonne" }, { "Millbrook" } },
};
#define N_FACTS (sizeof facts / sizeof facts[0])

typedef struct {
	cm_workspace *w;
} fixture;

/* One workspace holding every bundled map, decks resolved. */
static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	cm_diags *d;
	assert_non_null(fx);
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_workspace_new(&fx->w), 0);
	for (size_t i = 0; i < N_FACTS; i++)
		if (cm_workspace_load(fx->w, facts[i].path, d))
			break;
	if (!cm_diags_count(d))
		cm_workspace_resolve(fx->w, d);
	if (cm_diags_count(d)) {
		cm_diags_write_text(d, stderr);
		fail_msg("the bundled maps do not load cleanly");
	}
	cm_diags_free(d);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	cm_workspace_free(fx->w);
	free(fx);
	return 0;
}

static const cm_square *named(const cm_map *m, const char *name)
{
	for (int i = 0; i < m->cols * m->rows; i++)
		if (m->squares[i].name && strcmp(m->squares[i].name, name) == 0)
			return &m->squares[i];
	return NULL;
}

static int count_kind(const cm_map *m, cm_square_kind k)
{
	int n = 0;
	for (int i = 0; i < m->cols * m->rows; i++)
		n += m->squares[i].kind == k;
	return n;
}

static int count_playable(const cm_map *m)
{
	int n = 0;
	for (int i = 0; i < m->cols * m->rows; i++)
		n += cm_square_kind_playable(m->squares[i].kind);
	return n;
}

/* Tiles the deck deals: whole sets at their edition counts plus explicit
 * tiles. A tile entry may not name a set that is also taken whole, so
 * that "entries add up" and "an explicit count replaces the set's" give
 * the same deck. */
static int deck_total(const cm_workspace *w, const cm_map *m)
{
	int n = 0;
	for (size_t i = 0; i < m->n_deck; i++) {
		const cm_deck_entry *e = &m->deck[i];
		cm_tileset *ts = cm_workspace_find_tileset(w, e->tileset);
		assert_non_null(ts);
		if (!e->tile) {
			n += cm_tileset_total(ts, m->rules.edition);
			continue;
		}
		for (size_t k = 0; k < m->n_deck; k++)
			if (!m->deck[k].tile && strcmp(m->deck[k].tileset, e->tileset) == 0)
				fail_msg("map %s: tile %s of set %s is also taken whole", m->id, e->tile, e->tileset);
		n += e->count;
	}
	return n;
}

static void check_facts(const cm_workspace *w, const map_facts *f)
{
	cm_map *m = cm_workspace_find_map(w, f->id);
	if (!m)
		fail_msg("map %s is not loaded", f->id);
	/* the structural checks and the deck's references: not one diagnostic */
	cm_tileset **sets = NULL;
	size_t n_sets = 0;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_workspace_map_sets(w, m, &sets, &n_sets), 0);
	int rc = cm_map_check(m, (const cm_tileset *const *)sets, n_sets, d);
	if (rc || cm_diags_count(d)) {
		cm_diags_write_text(d, stderr);
		fail_msg("map %s does not check cleanly", f->id);
	}
	free(sets);
	cm_diags_free(d);

	assert_int_equal(m->rules.edition, f->edition);
	assert_int_equal(count_kind(m, CM_SQ_START), f->starts);
	assert_int_equal(m->setup.starts_used, f->starts_used);
	for (size_t i = 0; i < 5 && f->start_names[i]; i++) {
		const cm_square *s = named(m, f->start_names[i]);
		if (!s || s->kind != CM_SQ_START)
			fail_msg("map %s: no start square %s", f->id, f->start_names[i]);
	}
	assert_int_equal(m->setup.tiles_min, f->tiles_min);
	assert_int_equal(m->setup.tiles_max, f->tiles_max);
	assert_int_equal(m->setup.followers, 9);
	int deck = deck_total(w, m);
	if (deck < f->tiles_min || deck > f->tiles_max)
		fail_msg("map %s: deck of %d tiles outside %d-%d", f->id, deck, f->tiles_min, f->tiles_max);

	/* room for the recommended tiles, or exactly the published room */
	int playable = count_playable(m);
	if (f->playable)
		assert_int_equal(playable, f->playable);
	else if (playable < f->tiles_max)
		fail_msg("map %s: %d playable squares for up to %d tiles", f->id, playable, f->tiles_max);

	if (f->waves >= 0)
		assert_int_equal(count_kind(m, CM_SQ_WAVES), f->waves);
	assert_int_equal(m->n_ferries > 0, f->ferries);
	assert_int_equal(count_kind(m, CM_SQ_LANDMARK) > 0, f->landmarks);
	assert_int_equal(count_kind(m, CM_SQ_HALF) > 0, f->halves);
	if (f->islands >= 0)
		assert_int_equal((int)m->n_islands, f->islands);
	else
		assert_true(m->n_islands > 0);
	bool arms = false;
	for (size_t k = 0; k < m->n_islands; k++) {
		int size = 0;
		for (int i = 0; i < m->cols * m->rows; i++) {
			const cm_square *s = &m->squares[i];
			if (s->kind == CM_SQ_ISLAND && s->island == (int)k) {
				size++;
				arms |= s->arms > 0;
			}
		}
		assert_true(size > 0);
		if (f->island_size)
			assert_int_equal(size, f->island_size);
	}
	assert_int_equal(arms, f->island_arms);

	for (size_t i = 0; i < 3 && f->bigcities[i]; i++) {
		bool found = false;
		for (size_t k = 0; k < m->n_bigcities; k++)
			found |= strcmp(m->bigcities[k].name, f->bigcities[i]) == 0;
		if (!found)
			fail_msg("map %s: no big city %s", f->id, f->bigcities[i]);
	}
	for (size_t i = 0; i < 3 && f->towns[i]; i++) {
		const cm_square *s = named(m, f->towns[i]);
		if (!s || s->kind != CM_SQ_TOWN)
			fail_msg("map %s: no town %s", f->id, f->towns[i]);
	}
}

static void test_maps_bundled__published_facts(void **state)
{
	fixture *fx = *state;
	for (size_t i = 0; i < N_FACTS; i++)
		check_facts(fx->w, &facts[i]);
	assert_int_equal(cm_workspace_map_count(fx->w), N_FACTS);
}

/* Every board names its annotated PNG and the shared legend. The published
 * boards have no <grid>, so their playable squares can only have come from
 * the image (Carca Isles keeps its grid too, to show both; the image must
 * then agree with it, CM0330). */
static void test_maps_bundled__squares_from_images(void **state)
{
	fixture *fx = *state;
	for (size_t i = 0; i < N_FACTS; i++) {
		const cm_map *m = cm_workspace_find_map(fx->w, facts[i].id);
		assert_non_null(m);
		if (strcmp(facts[i].id, "usa") == 0)
			continue; /* a <combine> of the two halves, which have images */
		if (!m->image || strcmp(m->legend, "../legend.xml") != 0)
			fail_msg("map %s: no annotated image with the shared legend", facts[i].id);
		assert_true(count_playable(m) > 0);
	}
}

/* Combined USA: the 10 half squares of each map pair into 10 land squares. */
static void test_maps_bundled__usa_halves_pair(void **state)
{
	fixture *fx = *state;
	const cm_map *w = cm_workspace_find_map(fx->w, "usa-west");
	const cm_map *e = cm_workspace_find_map(fx->w, "usa-east");
	const cm_map *u = cm_workspace_find_map(fx->w, "usa");
	assert_non_null(w);
	assert_non_null(e);
	assert_non_null(u);
	int halves = count_kind(w, CM_SQ_HALF);
	assert_int_equal(count_kind(e, CM_SQ_HALF), halves);
	assert_int_equal(u->cols, w->cols + e->cols - 1);
	assert_int_equal(count_playable(u), count_playable(w) + count_playable(e) + halves);
	assert_int_equal((int)u->n_bigcities, (int)(w->n_bigcities + e->n_bigcities));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_bundled__published_facts),
		cmocka_unit_test(test_maps_bundled__squares_from_images),
		cmocka_unit_test(test_maps_bundled__usa_halves_pair),
	};
	return cmocka_run_group_tests_name("maps_bundled", tests, setup, teardown);
}
