/* SPDX-License-Identifier: MIT */
/* test_export.c: the exports for game clients (carcamap/export.h): JSON
 * against a golden file, binary round trips through the client reader
 * (lib/reader/cmap.c, built into this program), TMX files (the shared kinds
 * tileset, links, races, a full disk), determinism and failures. Maps and tile sets are built here in memory. With CM_EXPORT_DIR
 * set, the samples are also written there for tests/export/run.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <png.h>
#include "carcamap/export.h"
#include "carcamap/palette.h"
#include "util_files.h"
#include "util_model.h"
#include "model/map_builder_int.h"
#include "export/export_int.h"
#include "../../lib/reader/cmap.c"

/* ---- builders ---- */

static char *sdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static cm_feature *feat(cm_tile_type *t, cm_feature_kind k, const char *id, const char *slots)
{
	return util_feature_add(t, k, id, util_slots(slots));
}

static void derive_all(cm_tileset *ts)
{
	assert_int_equal(util_tileset_derive(ts), 0);
}

/* sets[0] base, [1] ic, [2] abbey */
static void make_sets(cm_tileset *sets[3])
{
	cm_tileset *b = sets[0] = util_tileset_new("base", "Base game", true, 18, 18, -1);
	cm_tile_type *t = util_tile_add(b, "D", 4, 4, 4);
	t->start = true;
	t->name = sdup("city cap with straight road");
	feat(t, CM_FEAT_CITY, "c1", "Nw Nm Ne");
	feat(t, CM_FEAT_ROAD, "r1", "Em Wm");
	feat(t, CM_FEAT_FIELD, "f1", "En Wn")->touches = 1u << 0;
	feat(t, CM_FEAT_FIELD, "f2", "Es Se Sm Sw Ws");
	t = util_tile_add(b, "B", 4, 4, 4);
	feat(t, CM_FEAT_MONASTERY, "m1", "");
	feat(t, CM_FEAT_FIELD, "f1", "Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn");
	t = util_tile_add(b, "V", 9, 9, 9);
	feat(t, CM_FEAT_ROAD, "r1", "Sm Wm")->inn = true;
	feat(t, CM_FEAT_FIELD, "f1", "Nw Nm Ne En Em Es Se Wn");
	feat(t, CM_FEAT_FIELD, "f2", "Sw Ws");
	t = util_tile_add(b, "Q", 1, 1, 2);
	feat(t, CM_FEAT_CITY, "c1", "Nw Nm Ne En Em Es Ws Wm Wn")->arms = 1;
	feat(t, CM_FEAT_ROAD, "r1", "Sm");
	feat(t, CM_FEAT_FIELD, "f1", "Se")->touches = 1u << 0;
	feat(t, CM_FEAT_FIELD, "f2", "Sw")->touches = 1u << 0;
	util_contact_add(t, 3u);
	derive_all(b);

	cm_tileset *ic = sets[1] = util_tileset_new("ic", "Inns & Cathedrals", false, -1, 18, 18);
	t = util_tile_add(ic, "IC-01", 1, 2, 2);
	cm_feature *f = feat(t, CM_FEAT_CITY, "c1", "Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn");
	f->cathedral = true;
	f->good = CM_GOOD_WINE;
	t = util_tile_add(ic, "IC-02", 0, 1, 1);
	feat(t, CM_FEAT_FIELD, "f1", "Ne En Em Es Se");
	feat(t, CM_FEAT_ROAD, "r1", "Nm Sm")->inn = true;
	feat(t, CM_FEAT_FIELD, "f2", "Sw Ws Wm Wn Nw");
	derive_all(ic);

	cm_tileset *ab = sets[2] = util_tileset_new("abbey", "Abbey & Mayor", false, 2, 2, 2);
	t = util_tile_add(ab, "abbey", 1, 1, 1);
	feat(t, CM_FEAT_ABBEY, "a1", "Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn");
	t = util_tile_add(ab, "garden", 1, 1, 1);
	feat(t, CM_FEAT_GARDEN, "g1", "");
	feat(t, CM_FEAT_FIELD, NULL, "Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn");
	util_contact_add(t, 3u);
	derive_all(ab);
}

static void free_sets(cm_tileset *sets[3])
{
	for (int i = 0; i < 3; i++)
		cm_tileset_free(sets[i]);
}

/* 5x4 with every model part:
 *   none land  land     land    waves
 *   land start town     bigcity land
 *   land land  land     bigcity island
 *   none land  landmark land    island */
static cm_map_builder *make_sample_builder(void)
{
	static const char *const rows[4] = { "01115", "12341", "11147", "01617" };
	cm_map_builder *m = util_builder(5, 4);
	util_id_set(m, "sample", "Sample \"Land\" <&>");
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 5; x++)
			util_kind_set(m, x, y, (cm_square_kind)(rows[y][x] - '0'));
	util_name_set(m, 1, 1, "Paris");
	util_name_set(m, 2, 1, "Lyon");
	util_name_set(m, 2, 3, "Mont Blanc");
	util_marker_add(m, 1, 2, "chip:wine");
	util_marker_add(m, 1, 2, "chip:grain");
	util_island_add(m, "corsica", "Corsica");
	cm_square q = *cm_map_builder_square(m, 4, 2);
	q.island = 0;
	q.arms = 1;
	util_square_set(m, 4, 2, &q);
	q = *cm_map_builder_square(m, 4, 3);
	q.island = 0;
	util_square_set(m, 4, 3, &q);
	cm_map_builder_default_prints(m);
	util_print_set(m, 1, 3, CM_S, CM_PRINT_ROAD, 0);
	util_label_set(m, 1, 3, CM_S, "to Spain");
	util_print_set(m, 3, 3, CM_S, CM_PRINT_ROAD, 0);
	util_print_set(m, 2, 0, CM_N, CM_PRINT_CITY, 2);
	util_label_set(m, 2, 0, CM_N, "Köln");

	assert_int_equal(cm_map_builder_add_bigcity(m, "Berlin", 0, NULL), 0);
	cm_tile_type t;
	memset(&t, 0, sizeof t);
	feat(&t, CM_FEAT_CITY, "c1", "Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn")->arms = 2;
	assert_int_equal(cm_map_builder_add_piece(m, 0, 3, 1, &t), 0);
	cm_tile_type_clear(&t);
	memset(&t, 0, sizeof t);
	feat(&t, CM_FEAT_CITY, "c1", "Nw Nm Ne Wn Wm Ws");
	feat(&t, CM_FEAT_ROAD, "r1", "Em");
	feat(&t, CM_FEAT_FIELD, "f1", "En")->touches = 1u;
	feat(&t, CM_FEAT_FIELD, "f2", "Es Se Sm Sw");
	util_contact_add(&t, 3u);
	assert_int_equal(cm_map_builder_add_piece(m, 0, 3, 2, &t), 0);
	cm_tile_type_clear(&t);
	for (int y = 1; y <= 2; y++) {
		q = *cm_map_builder_square(m, 3, y);
		q.bigcity = 0;
		for (int e = 0; e < 4; e++)
			q.print[e].kind = CM_PRINT_NONE;
		util_square_set(m, 3, y, &q);
	}

	cm_ferry f = { "Channel", 1, 3, CM_S, 3, 3, CM_S, 1, 0 };
	assert_int_equal(cm_map_builder_add_ferry(m, &f), 0);
	cm_setup su = { .starts_used = 1, .tiles_min = 40, .tiles_max = 60, .followers = 7 };
	cm_map_builder_set_setup(m, &su);
	cm_rules ru;
	cm_rules_default(&ru, CM_EDITION_C1);
	ru.farmers = CM_FARMERS_C1;
	ru.town_cost = true;
	cm_map_builder_set_rules(m, &ru);
	util_deck_add(m, "base", NULL, -1);
	util_deck_add(m, "ic", "IC-02", 3);
	util_deck_add(m, "ic", "IC-01", -1);
	return m;
}

static cm_map *make_sample(void)
{
	return util_finish(make_sample_builder());
}

/* 1x1, no name, no deck */
static cm_map_builder *make_tiny_builder(void)
{
	cm_map_builder *m = util_builder(1, 1);
	util_id_set(m, "tiny", NULL);
	util_kind_set(m, 0, 0, CM_SQ_LAND);
	cm_map_builder_default_prints(m);
	return m;
}

static cm_map *make_tiny(void)
{
	return util_finish(make_tiny_builder());
}

/* 12x9 with every square kind in a pattern, two islands (one titled, one
 * with a title only), C3 with the rule options the sample leaves at their
 * defaults switched on, the abbey set */
static cm_map *make_wide(void)
{
	cm_map_builder *m = util_builder(12, 9);
	util_id_set(m, "wide", "Wide");
	util_island_add(m, "North", NULL);
	util_island_add(m, NULL, "The South");
	for (int y = 0; y < 9; y++)
		for (int x = 0; x < 12; x++) {
			cm_square s = *cm_map_builder_square(m, x, y);
			s.kind = (uint8_t)((x * 7 + y * 3) % CM_SQ_KIND_COUNT);
			if (s.kind == CM_SQ_ISLAND)
				s.island = (x + y) % 2;
			if (s.kind == CM_SQ_TOWN)
				util_name_set(m, x, y, "Town");
			util_square_set(m, x, y, &s);
		}
	cm_map_builder_default_prints(m);
	cm_rules ru;
	cm_rules_default(&ru, CM_EDITION_C3);
	ru.town_extra_turn = true;
	ru.town_road_bonus = true;
	ru.farmers_bigcity = false;
	ru.abbey_edge = false;
	cm_map_builder_set_rules(m, &ru);
	util_deck_add(m, "abbey", NULL, -1);
	util_deck_add(m, "base", "D", 1);
	return util_finish(m);
}

/* m (freed) with deck entry i given set and tile (NULL: its own). */
static cm_map *with_entry(cm_map *m, size_t i, const char *set, const char *tile)
{
	cm_map *n = util_with_deck_entry(m, i, set, tile, cm_map_deck_entry(m, i)->count);
	cm_map_free(m);
	return n;
}

/* ---- helpers ---- */

static char *json_of(const cm_map *m, cm_tileset *sets[3], int *rc, size_t *len)
{
	char *p = NULL;
	FILE *f = open_memstream(&p, len);
	assert_non_null(f);
	*rc = util_export_json(m, UTIL_SETS(sets), 3, f);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* The JSON of the sample map must equal the golden file: the format is a
 * promise to clients (schemas/export-json.md). CM_UPDATE_GOLDEN=1 rewrites it. */
#define GOLDEN "tests/fixtures/export/sample.json"

/* ---- JSON ---- */

static void test_export__json_matches_golden_and_is_deterministic(void **state)
{
	(void)state;
	cm_tileset *sets[3];
	make_sets(sets);
	cm_map *m = make_sample();
	int rc1, rc2;
	size_t n1, n2, ng;
	char *a = json_of(m, sets, &rc1, &n1);
	char *b = json_of(m, sets, &rc2, &n2);
	assert_int_equal(rc1, 0);
	assert_int_equal(rc2, 0);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	if (getenv("CM_UPDATE_GOLDEN")) {
		FILE *f = fopen(GOLDEN, "wb");
		assert_non_null(f);
		fwrite(a, 1, n1, f);
		fclose(f);
	}
	char *g = util_read_file(GOLDEN, &ng);
	assert_int_equal(ng, n1);
	assert_memory_equal(g, a, n1);
	/* what a client relies on first */
	assert_non_null(strstr(a, "\"format\": {\n    \"name\": \"carcamap-map\",\n    \"version\": \"1.0\""));
	assert_null(strstr(a, "\"abbey\",")); /* a set the deck does not use is not written */
	free(g);
	free(a);
	free(b);
	cm_map_free(m);
	free_sets(sets);
}

static void test_export__json_missing_set_or_tile_writes_nothing(void **state)
{
	(void)state;
	cm_tileset *sets[3];
	make_sets(sets);
	cm_map *m = with_entry(make_sample(), 1, NULL, "IC-99");
	int rc;
	size_t n;
	char *p = json_of(m, sets, &rc, &n);
	assert_int_equal(rc, CM_ENOTFOUND);
	assert_int_equal(n, 0);
	free(p);
	m = with_entry(m, 0, "river", NULL);
	p = json_of(m, sets, &rc, &n);
	assert_int_equal(rc, CM_ENOTFOUND);
	assert_int_equal(n, 0);
	free(p);
	cm_map_free(m);
	free_sets(sets);
}

/* A deck's sets found by id, the first set of an id winning, each set
 * taken once in the order of first use: the same for a short deck (a scan)
 * and a long one (an index of the ids). */
static void test_export__deck_resolves_sets_by_id(void **state)
{
	(void)state;
	const char *ids[4] = { "s0", "s1", "s0", "s3" };
	cm_tileset *sets[4];
	for (int k = 0; k < 4; k++) {
		sets[k] = util_tileset_base();
		free(sets[k]->id);
		sets[k]->id = sdup(ids[k]);
	}
	const char *use[3] = { "s3", "s0", "s1" };
	const cm_tileset *want[3] = { sets[3], sets[0], sets[1] };
	size_t nt = sets[0]->n_tiles;
	for (int pass = 0; pass < 2; pass++) {
		size_t n = pass ? 40 : 3;
		cm_map_builder *mb = make_sample_builder();
		cm_map_builder_clear_deck(mb);
		for (size_t i = 0; i < n; i++)
			util_deck_add(mb, use[i % 3], i % 2 ? sets[0]->tiles[i % nt].id : NULL, i % 2 ? 1 : -1);
		cm_map *m = util_finish(mb);
		cm_export_deck dk;
		assert_int_equal(cm_export_deck_resolve(m, UTIL_SETS(sets), 4, false, &dk), 0);
		assert_int_equal(dk.n_sets, 3);
		for (size_t si = 0; si < 3; si++)
			assert_ptr_equal(dk.sets[si], want[si]);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(dk.entry_set[i], i % 3);
			assert_int_equal(dk.entry_tile[i], i % 2 ? (int)(i % nt) : -1);
		}
		cm_export_deck_clear(&dk);
		mb = util_from(m);
		util_deck_add(mb, "s2", NULL, -1); /* no such set */
		cm_map_free(m);
		m = util_finish(mb);
		assert_int_equal(cm_export_deck_resolve(m, UTIL_SETS(sets), 4, false, &dk), CM_ENOTFOUND);
		assert_null(dk.sets);
		cm_map_free(m);
	}
	for (int k = 0; k < 4; k++)
		cm_tileset_free(sets[k]);
}

/* Each inconsistency no writer ever sees, one at a time: the builder
 * refuses an index or kind out of range when it is set, its finish the
 * rest; the writers refuse a partial map (a descriptor's, with errors). */
static void test_export__inconsistent_model_is_refused(void **state)
{
	(void)state;
	cm_tileset *sets[3];
	make_sets(sets);
	for (int c = 0; c < 7; c++) {
		cm_map_builder *b = make_sample_builder();
		cm_square q = *cm_map_builder_square(b, 0, 0);
		cm_tile_type t;
		memset(&t, 0, sizeof t);
		switch (c) {
		case 0: q.island = 1; break;
		case 1: q.bigcity = 5; break;
		case 2: q.kind = CM_SQ_KIND_COUNT; break;
		case 3: {
			cm_ferry f = { NULL, 1, 3, CM_S, 5, 3, CM_S, 0, 0 };
			assert_int_equal(cm_map_builder_add_ferry(b, &f), 0);
			break;
		}
		case 4:
			feat(&t, CM_FEAT_FIELD, "f1", "Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn")->touches = 1u << 9;
			assert_int_equal(cm_map_builder_add_piece(b, 0, 3, 1, &t), 0);
			cm_tile_type_clear(&t);
			break;
		case 5: {
			cm_rules ru = *cm_map_builder_rules(b);
			ru.farmers = (cm_farmers)0;
			cm_map_builder_set_rules(b, &ru);
			break;
		}
		case 6: util_id_set(b, NULL, "no id"); break;
		}
		cm_map *m = NULL;
		if (c < 3)
			assert_int_equal(cm_map_builder_set_square(b, 0, 0, &q), CM_EINVAL);
		else
			assert_int_equal(cm_map_builder_finish(b, NULL, NULL, NULL, &m), CM_EINVAL);
		assert_null(m);
		if (c < 3)
			cm_map_builder_free(b);
	}
	cm_map *m = NULL;
	assert_int_equal(cm__map_builder_finish(make_sample_builder(), NULL, NULL, NULL,
	                                        CM__FINISH_REFUSED | CM__FINISH_PARTIAL, &m), CM_EINVAL);
	int rc;
	size_t n;
	char *p = json_of(m, sets, &rc, &n);
	assert_int_equal(rc, CM_EINVAL);
	assert_int_equal(n, 0);
	free(p);
	unsigned char *bin = (unsigned char *)"x";
	assert_int_equal(util_export_bin(m, UTIL_SETS(sets), 3, 0, &bin, &n), CM_EINVAL);
	assert_null(bin);
	cm_map_free(m);
	free_sets(sets);
}

/* ---- binary round trip ---- */

static void expect_str(const char *got, const char *want)
{
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
}

/* The reader's shape equals the tile type's features, contacts, edges. */
static void expect_shape(const cmap_map *r, const cmap_shape *sh, const cm_tile_type *t)
{
	for (int s = 0; s < 4; s++)
		assert_int_equal(sh->edges[s], t->edge[s]);
	assert_int_equal(sh->n_features, t->n_features);
	assert_int_equal(sh->n_contacts, t->n_contacts);
	for (size_t i = 0; i < t->n_features; i++) {
		cmap_feature f;
		const cm_feature *w = &t->features[i];
		assert_int_equal(cmap_get_feature(r, sh->first_feature + (uint32_t)i, &f), 0);
		assert_int_equal(f.kind, w->kind);
		assert_int_equal(f.slots, w->slots);
		assert_int_equal(f.arms, w->arms);
		assert_int_equal(f.cathedral, w->cathedral);
		assert_int_equal(f.inn, w->inn);
		assert_int_equal(f.good, w->good);
		assert_int_equal(f.touches, w->touches);
		expect_str(f.id, w->id);
	}
	for (size_t i = 0; i < t->n_contacts; i++) {
		uint32_t c;
		assert_int_equal(cmap_get_contact(r, sh->first_contact + (uint32_t)i, &c), 0);
		assert_int_equal(c, t->contacts[i]);
	}
}

/* Writer -> reader gives the model back; used_sets: the sets in the order
 * the deck first names them. */
static void round_trip(const cm_map *m, cm_tileset *sets[3], cm_tileset *const *used, size_t n_used)
{
	unsigned char *bin, *bin2;
	size_t len, len2;
	assert_int_equal(util_export_bin(m, UTIL_SETS(sets), 3, 0, &bin, &len), 0);
	assert_int_equal(util_export_bin(m, UTIL_SETS(sets), 3, 0, &bin2, &len2), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(bin, bin2, len);
	free(bin2);

	cmap_map *r;
	assert_int_equal(cmap_open(bin, len, &r), 0);
	unsigned major, minor;
	cmap_version(r, &major, &minor);
	assert_int_equal(major, CM_EXPORT_BIN_MAJOR);
	assert_int_equal(minor, CM_EXPORT_BIN_MINOR);
	expect_str(cmap_id(r), cm_map_id(m));
	expect_str(cmap_name(r), cm_map_name(m));
	assert_int_equal(cmap_cols(r), cm_map_cols(m));
	assert_int_equal(cmap_rows(r), cm_map_rows(m));

	cmap_rules ru;
	cmap_get_rules(r, &ru);
	assert_int_equal(ru.starts_used, cm_map_setup(m)->starts_used);
	assert_int_equal(ru.tiles_min, cm_map_setup(m)->tiles_min);
	assert_int_equal(ru.tiles_max, cm_map_setup(m)->tiles_max);
	assert_int_equal(ru.followers, cm_map_setup(m)->followers);
	assert_int_equal(ru.edition, cm_map_rules(m)->edition);
	assert_int_equal(ru.farmers, cm_map_rules(m)->farmers);
	assert_int_equal(ru.tiny_city, cm_map_rules(m)->tiny_city);
	assert_int_equal(ru.farmers_bigcity, cm_map_rules(m)->farmers_bigcity);
	assert_int_equal(ru.town_extra_turn, cm_map_rules(m)->town_extra_turn);
	assert_int_equal(ru.town_cost, cm_map_rules(m)->town_cost);
	assert_int_equal(ru.town_road_bonus, cm_map_rules(m)->town_road_bonus);
	assert_int_equal(ru.abbey_edge, cm_map_rules(m)->abbey_edge);

	uint32_t np = 0;
	for (int y = 0; y < cm_map_rows(m); y++)
		for (int x = 0; x < cm_map_cols(m); x++) {
			const cm_square *s = cm_map_at(m, x, y);
			cmap_square q;
			assert_int_equal(cmap_get_square(r, (uint32_t)x, (uint32_t)y, &q), 0);
			assert_int_equal(q.kind, s->kind);
			assert_int_equal(q.arms, s->arms);
			expect_str(q.name, cm_map_square_name(m, x, y));
			assert_int_equal(q.island, s->island < 0 ? CMAP_NONE : (uint32_t)s->island);
			assert_int_equal(q.bigcity, s->bigcity < 0 ? CMAP_NONE : (uint32_t)s->bigcity);
			size_t n_markers;
			const char *const *markers = cm_map_square_markers(m, x, y, &n_markers);
			assert_int_equal(q.n_markers, n_markers);
			for (uint32_t k = 0; k < q.n_markers; k++) {
				const char *mk;
				assert_int_equal(cmap_get_marker(r, q.first_marker + k, &mk), 0);
				assert_string_equal(mk, markers[k]);
			}
			for (int e = 0; e < 4; e++) {
				if (s->print[e].kind == CM_PRINT_NONE)
					continue;
				cmap_print p;
				assert_int_equal(cmap_get_print(r, np++, &p), 0);
				assert_int_equal(p.x, x);
				assert_int_equal(p.y, y);
				assert_int_equal(p.side, e);
				assert_int_equal(p.kind, s->print[e].kind);
				assert_int_equal(p.arms, s->print[e].arms);
				expect_str(p.label, cm_map_print_label(m, x, y, (cm_side)e));
			}
		}
	assert_int_equal(cmap_count(r, CMAP_T_PRINTS), np);

	assert_int_equal(cmap_count(r, CMAP_T_BIGCITIES), cm_map_bigcity_count(m));
	for (uint32_t i = 0; i < cm_map_bigcity_count(m); i++) {
		cmap_bigcity b;
		assert_int_equal(cmap_get_bigcity(r, i, &b), 0);
		expect_str(b.name, cm_map_bigcity(m, i)->name);
		assert_int_equal(b.n_pieces, cm_map_bigcity(m, i)->n_pieces);
		for (uint32_t k = 0; k < b.n_pieces; k++) {
			const cm_bigcity_piece *w = &cm_map_bigcity(m, i)->pieces[k];
			cm_tile_type derived = w->tile; /* the pieces are not derived by the builder */
			cmap_piece pc;
			assert_int_equal(cmap_get_piece(r, b.first_piece + k, &pc), 0);
			assert_int_equal(pc.x, w->x);
			assert_int_equal(pc.y, w->y);
			cm_tile_type_derive(&derived);
			expect_shape(r, &pc.shape, &derived);
		}
	}

	assert_int_equal(cmap_count(r, CMAP_T_FERRIES), cm_map_ferry_count(m));
	for (uint32_t i = 0; i < cm_map_ferry_count(m); i++) {
		const cm_ferry *w = cm_map_ferry(m, i);
		cmap_ferry f;
		assert_int_equal(cmap_get_ferry(r, i, &f), 0);
		expect_str(f.name, w->name);
		assert_true(f.x1 == (uint32_t)w->x1 && f.y1 == (uint32_t)w->y1 && f.s1 == w->s1);
		assert_true(f.x2 == (uint32_t)w->x2 && f.y2 == (uint32_t)w->y2 && f.s2 == w->s2);
		assert_int_equal(f.arms, w->arms);
	}
	assert_int_equal(cmap_count(r, CMAP_T_ISLANDS), cm_map_island_count(m));
	for (uint32_t i = 0; i < cm_map_island_count(m); i++) {
		cmap_island is;
		assert_int_equal(cmap_get_island(r, i, &is), 0);
		expect_str(is.name, cm_map_island(m, i)->name);
		expect_str(is.title, cm_map_island(m, i)->title);
	}

	assert_int_equal(cmap_count(r, CMAP_T_TILESETS), n_used);
	for (uint32_t i = 0; i < n_used; i++) {
		cmap_tileset ts;
		assert_int_equal(cmap_get_tileset(r, i, &ts), 0);
		expect_str(ts.id, used[i]->id);
		expect_str(ts.name, used[i]->name);
		assert_int_equal(ts.base, used[i]->base);
		for (int e = 0; e < 3; e++)
			assert_int_equal(ts.total[e], used[i]->total[e]);
		assert_int_equal(ts.n_tiles, used[i]->n_tiles);
		for (uint32_t k = 0; k < ts.n_tiles; k++) {
			const cm_tile_type *w = &used[i]->tiles[k];
			cmap_tile t;
			assert_int_equal(cmap_get_tile(r, ts.first_tile + k, &t), 0);
			expect_str(t.id, w->id);
			expect_str(t.name, w->name);
			assert_int_equal(t.start, w->start);
			for (int e = 0; e < 3; e++)
				assert_int_equal(t.count[e], w->count[e]);
			expect_shape(r, &t.shape, w);
		}
	}
	assert_int_equal(cmap_count(r, CMAP_T_DECK), cm_map_deck_count(m));
	for (uint32_t i = 0; i < cm_map_deck_count(m); i++) {
		cmap_deck_entry d;
		cmap_tileset ts;
		assert_int_equal(cmap_get_deck_entry(r, i, &d), 0);
		assert_int_equal(cmap_get_tileset(r, d.tileset, &ts), 0);
		assert_string_equal(ts.id, cm_map_deck_entry(m, i)->tileset);
		assert_int_equal(d.count, cm_map_deck_entry(m, i)->count);
		if (!cm_map_deck_entry(m, i)->tile) {
			assert_int_equal(d.tile, CMAP_NONE);
		} else {
			cmap_tile t;
			assert_int_equal(cmap_get_tile(r, d.tile, &t), 0);
			assert_string_equal(t.id, cm_map_deck_entry(m, i)->tile);
		}
	}
	/* past the end is refused, never read */
	cmap_ferry f;
	assert_int_equal(cmap_get_ferry(r, (uint32_t)cm_map_ferry_count(m), &f), CMAP_EARG);
	cmap_square q;
	assert_int_equal(cmap_get_square(r, (uint32_t)cm_map_cols(m), 0, &q), CMAP_EARG);
	cmap_close(r);
	free(bin);
}

/* Copies in the deck per tile, in the order of the reader's tile table. */
static void expect_in_deck(const cm_map *m, cm_tileset *sets[3], const uint32_t *want, size_t n)
{
	unsigned char *bin;
	size_t len;
	cmap_map *r;
	assert_int_equal(util_export_bin(m, UTIL_SETS(sets), 3, 0, &bin, &len), 0);
	assert_int_equal(cmap_open(bin, len, &r), 0);
	assert_int_equal(cmap_count(r, CMAP_T_TILES), n);
	for (uint32_t i = 0; i < n; i++) {
		cmap_tile t;
		assert_int_equal(cmap_get_tile(r, i, &t), 0);
		assert_int_equal(t.in_deck, want[i]);
	}
	cmap_close(r);
	free(bin);
}

static void test_export__bin_round_trip_sample(void **state)
{
	(void)state;
	cm_tileset *sets[3];
	make_sets(sets);
	cm_map *m = make_sample();
	cm_tileset *used[2] = { sets[0], sets[1] };
	round_trip(m, sets, used, 2);
	/* C1 counts of base D B V Q, then IC-01 (whole-set count, C1: 1) and
	 * IC-02 (explicit 3) */
	static const uint32_t want[] = { 4, 4, 9, 1, 1, 3 };
	expect_in_deck(m, sets, want, 6);
	cm_map_free(m);
	free_sets(sets);
}

static void test_export__bin_round_trip_tiny_and_wide(void **state)
{
	(void)state;
	cm_tileset *sets[3];
	make_sets(sets);
	cm_map *m = make_tiny();
	round_trip(m, sets, NULL, 0);
	cm_map_free(m);
	m = make_wide();
	cm_tileset *used[2] = { sets[2], sets[0] };
	round_trip(m, sets, used, 2);
	/* abbey set at C3, then base with only D (1 copy) */
	static const uint32_t want[] = { 1, 1, 1, 0, 0, 0 };
	expect_in_deck(m, sets, want, 6);
	cm_map_free(m);
	free_sets(sets);
}

/* The shared sample of tests/unit/util_model.c: every rule option away from
 * its default, island titles, a piece with a cathedral and a good. */
static void test_export__bin_round_trip_util_sample(void **state)
{
	(void)state;
	cm_tileset *sets[3] = { util_tileset_inns(), util_tileset_base(), NULL };
	cm_map *m = util_map_sample();
	cm_tileset *used[2] = { sets[1], sets[0] };
	round_trip(m, sets, used, 2);
	cm_map_free(m);
	free_sets(sets);
}

static void test_export__bin_missing_tile_gives_no_buffer(void **state)
{
	(void)state;
	cm_tileset *sets[3];
	make_sets(sets);
	cm_map *m = make_wide();
	unsigned char *bin;
	size_t len = 7;
	assert_int_equal(util_export_bin(m, UTIL_SETS(sets), 2, 0, &bin, &len), CM_ENOTFOUND); /* no abbey set */
	assert_null(bin);
	assert_int_equal(len, 0);
	cm_map_free(m);
	free_sets(sets);
}

/* ---- TMX ---- */

static char *path_in(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	assert_non_null(p);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* dir/carcamap-kinds.tsx, written there; caller frees */
static char *kinds_in(const char *dir, cm_diags *d)
{
	assert_int_equal(cm_export_tmx_kinds(dir, d), 0);
	return path_in(dir, CM_TMX_KINDS);
}

static void remove_kinds(const char *dir)
{
	char *a = path_in(dir, CM_TMX_KINDS), *b = path_in(dir, CM_TMX_KINDS_PNG);
	assert_int_equal(remove(a), 0);
	assert_int_equal(remove(b), 0);
	free(a);
	free(b);
}

static void test_export__tmx_files_are_deterministic(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	assert_non_null(dir);
	cm_map *m = make_sample();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char *kinds = kinds_in(dir, d);
	char *t1 = path_in(dir, "a.tmx"), *t2 = path_in(dir, "b.tmx");
	assert_int_equal(util_export_tmx(m, t1, kinds, d), 0);
	assert_int_equal(util_export_tmx(m, t2, kinds, d), 0);
	assert_int_equal(cm_diags_count(d), 0);
	size_t n1, n2;
	char *a = util_read_file(t1, &n1), *b = util_read_file(t2, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	/* one shared tileset, named relative to the map: no image per map */
	assert_non_null(strstr(a, "<tileset firstgid=\"1\" source=\"carcamap-kinds.tsx\"/>"));
	assert_null(strstr(a, ".png"));
	assert_non_null(strstr(a, "<layer id=\"1\" name=\"squares\" width=\"5\" height=\"4\">"));
	assert_non_null(strstr(a, "\n1,2,2,2,6,\n2,3,4,5,2,\n2,2,2,5,8,\n1,2,7,2,8\n"));
	assert_non_null(strstr(a, "value=\"Sample &quot;Land&quot; &lt;&amp;&gt;\""));
	assert_non_null(strstr(a, "<property name=\"rules.farmers\" value=\"C1\"/>"));
	assert_null(strstr(a, "propertytype")); /* Tiled opens it alone (issue 33.8) */
	assert_non_null(strstr(a, "<property name=\"deck\" value=\"base; ic IC-02 3; ic IC-01 -1\"/>"));
	/* the L of a big city is its real outline; pieces carry their features */
	assert_non_null(strstr(a, "name=\"Berlin\" x=\"96\" y=\"32\">\n   <polygon points=\"0,0 32,0 32,64 0,64\"/>"));
	assert_non_null(strstr(a, "value=\"city[Nw Nm Ne Ws Wm Wn] id=c1 ; road[Em] id=r1 ; field[En] id=f1 touches=c1 ; "
	                          "field[Es Se Sm Sw] id=f2 ; contact[c1 r1]\""));
	/* a label box wide enough for its longest word: Tiled never breaks one */
	assert_non_null(strstr(a, "x=\"63\" y=\"96\" width=\"34\" height=\"32\">\n   <text pixelsize=\"8\" wrap=\"1\""));
	const char *groups[] = { "bigcities", "pieces", "prints-road", "prints-city", "prints-neutral", "ferries",
		                     "islands", "island-squares", "names", "markers" };
	for (int i = 0; i < 10; i++) {
		char want[64];
		snprintf(want, sizeof want, "name=\"%s\"", groups[i]);
		assert_non_null(strstr(a, want));
	}
	free(a);
	free(b);
	remove(t1);
	remove(t2);
	remove_kinds(dir);
	assert_int_equal(rmdir(dir), 0); /* nothing else left: no temporary files */
	free(t1);
	free(t2);
	free(kinds);
	free(dir);
	cm_diags_free(d);
	cm_map_free(m);
}

static void test_export__tmx_names_the_kinds_tileset_relative_to_itself(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	assert_non_null(dir);
	cm_map *m = make_tiny();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char *sub = path_in(dir, "maps"), *ts = path_in(dir, "sets");
	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(mkdir(ts, 0777), 0);
	char *kinds = kinds_in(ts, d);
	char *t = path_in(sub, "x.tmx");
	assert_int_equal(util_export_tmx(m, t, kinds, d), 0);
	char *a = util_read_file(t, NULL);
	assert_non_null(strstr(a, "source=\"../sets/carcamap-kinds.tsx\""));
	free(a);
	remove(t);
	remove_kinds(ts);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(ts), 0);
	assert_int_equal(rmdir(dir), 0);
	free(t);
	free(kinds);
	free(sub);
	free(ts);
	free(dir);
	cm_diags_free(d);
	cm_map_free(m);
}

static void test_export__tmx_failures_leave_no_file(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	assert_non_null(dir);
	cm_map *m = make_sample();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char *t = path_in(dir, "missing/x.tmx");
	assert_int_equal(util_export_tmx(m, t, "carcamap-kinds.tsx", d), CM_EIO);
	assert_int_equal(cm_diags_errors(d), 1);
	free(t);
	cm_diags_clear(d);
	t = path_in(dir, "x.tmx");
	/* a name TMX cannot hold: only in a partial map, which is refused */
	cm_map_builder *b = make_sample_builder();
	util_name_set(b, 1, 1, "bad \xff byte");
	cm_map *bad = NULL;
	assert_int_equal(cm__map_builder_finish(b, NULL, NULL, NULL, CM__FINISH_PARTIAL, &bad), CM_EINVAL);
	assert_int_equal(util_export_tmx(bad, t, "carcamap-kinds.tsx", d), CM_EINVAL);
	assert_int_equal(cm_diags_errors(d), 1);
	assert_non_null(strstr(cm_diags_get(d, 0)->message, "partial map"));
	cm_map_free(bad);
	assert_int_equal(rmdir(dir), 0); /* empty */
	free(t);
	free(dir);
	cm_diags_free(d);
	cm_map_free(m);
}

/* Temporary names planted as links to a file that is not ours (the names
 * the export once wrote with fopen, and the writer's own next ones): the
 * export never writes through them (O_EXCL). The target itself a link:
 * the export writes through it (DESIGN.md "Safety"), and the link stays. */
static void test_export__tmx_never_writes_through_a_planted_link(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	assert_non_null(dir);
	cm_map *m = make_sample();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char own[64];
	snprintf(own, sizeof own, ".x.tmx.carcamap-tmp.%ld.0", (long)getpid());
	char *victim = path_in(dir, "victim"), *t = path_in(dir, "x.tmx");
	char *l1 = path_in(dir, "x.tmx.tmp"), *l2 = path_in(dir, own);
	FILE *f = fopen(victim, "wb");
	assert_non_null(f);
	fputs("precious", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(symlink(victim, l1), 0);
	assert_int_equal(symlink(victim, l2), 0);
	assert_int_equal(util_export_tmx(m, t, "carcamap-kinds.tsx", d), 0);
	char *v = util_read_file(victim, NULL);
	assert_string_equal(v, "precious");
	free(v);
	char *want = util_read_file(t, NULL);
	remove(t);
	assert_int_equal(symlink("victim", t), 0);
	assert_int_equal(util_export_tmx(m, t, "carcamap-kinds.tsx", d), 0);
	v = util_read_file(victim, NULL);
	assert_string_equal(v, want);
	free(v);
	free(want);
	struct stat st;
	assert_int_equal(lstat(t, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(cm_diags_count(d), 0);
	assert_int_equal(util_dir_entries(dir), 4); /* victim, the two planted links, x.tmx */
	remove(t);
	remove(l1);
	remove(l2);
	remove(victim);
	assert_int_equal(rmdir(dir), 0);
	free(victim);
	free(t);
	free(l1);
	free(l2);
	free(dir);
	cm_diags_free(d);
	cm_map_free(m);
}

/* 8 processes export 5 times each to one path: every export succeeds, the
 * result is the export's exact bytes, no temporary file is left. */
static void test_export__tmx_concurrent_exports_to_one_path(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	assert_non_null(dir);
	cm_map *m = make_sample();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char *t = path_in(dir, "x.tmx"), *ref = path_in(dir, "ref.tmx");
	assert_int_equal(util_export_tmx(m, ref, "carcamap-kinds.tsx", d), 0);
	enum { KIDS = 8, EACH = 5 };
	pid_t pids[KIDS];
	for (int k = 0; k < KIDS; k++) {
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (pids[k] != 0)
			continue;
		int bad = 0;
		for (int i = 0; i < EACH; i++)
			bad |= util_export_tmx(m, t, "carcamap-kinds.tsx", d) != 0;
		_exit(bad);
	}
	for (int k = 0; k < KIDS; k++) {
		int st;
		assert_int_equal(waitpid(pids[k], &st, 0), pids[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	size_t n1, n2;
	char *a = util_read_file(ref, &n1), *b = util_read_file(t, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	assert_int_equal(util_dir_entries(dir), 2);
	free(a);
	free(b);
	remove(t);
	remove(ref);
	assert_int_equal(rmdir(dir), 0);
	free(t);
	free(ref);
	free(dir);
	cm_diags_free(d);
	cm_map_free(m);
}

/* A full disk (a file size limit): a clean error, no file, no temporary. */
static void test_export__tmx_full_disk_leaves_nothing(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	assert_non_null(dir);
	cm_map *m = make_sample();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char *t = path_in(dir, "x.tmx");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead */
		struct rlimit rl = { 512, 512 };
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(2);
		int rc = util_export_tmx(m, t, "carcamap-kinds.tsx", d);
		_exit(rc == CM_EIO && cm_diags_errors(d) == 1 ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(util_dir_entries(dir), 0);
	assert_int_equal(rmdir(dir), 0);
	free(t);
	free(dir);
	cm_diags_free(d);
	cm_map_free(m);
}

/* Pixels of a PNG as RGBA (libpng's simplified API); caller frees. */
static unsigned char *png_pixels(const char *path, unsigned *w, unsigned *h)
{
	png_image im;
	memset(&im, 0, sizeof im);
	im.version = PNG_IMAGE_VERSION;
	assert_true(png_image_begin_read_from_file(&im, path));
	im.format = PNG_FORMAT_RGBA;
	unsigned char *px = malloc(PNG_IMAGE_SIZE(im));
	assert_non_null(px);
	assert_true(png_image_finish_read(&im, NULL, px, 0, NULL));
	*w = im.width;
	*h = im.height;
	return px;
}

/* maps/tilesets holds the kinds tileset the library writes, in the
 * palette: regenerate with CM_REGEN_KINDS=1 build/tests/test_export. */
static void test_export__installed_kinds_tileset_is_current(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	if (getenv("CM_REGEN_KINDS"))
		assert_int_equal(cm_export_tmx_kinds("maps/tilesets", d), 0);
	char *dir = util_tempdir();
	assert_non_null(dir);
	char *kinds = kinds_in(dir, d);
	size_t n1, n2;
	char *a = util_read_file(kinds, &n1), *b = util_read_file("maps/tilesets/" CM_TMX_KINDS, &n2);
	assert_non_null(b);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	char *png = path_in(dir, CM_TMX_KINDS_PNG);
	unsigned w1, h1, w2, h2;
	unsigned char *p1 = png_pixels(png, &w1, &h1), *p2 = png_pixels("maps/tilesets/" CM_TMX_KINDS_PNG, &w2, &h2);
	assert_int_equal(w1, w2);
	assert_int_equal(h1, h2);
	assert_memory_equal(p1, p2, (size_t)w1 * h1 * 4);
	/* the middle of tile k is square kind k's palette colour */
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++) {
		const unsigned char *px = p1 + ((size_t)16 * w1 + (size_t)k * 32 + 16) * 4;
		cm_rgb c = cm_palette_square((cm_square_kind)k);
		assert_true(px[0] == c.r && px[1] == c.g && px[2] == c.b && px[3] == 255);
	}
	free(p1);
	free(p2);
	free(a);
	free(b);
	remove_kinds(dir);
	assert_int_equal(rmdir(dir), 0);
	free(png);
	free(kinds);
	free(dir);
	cm_diags_free(d);
}

/* For tests/export/run.sh: the samples in every format. */
static void test_export__write_samples(void **state)
{
	(void)state;
	const char *dir = getenv("CM_EXPORT_DIR");
	if (!dir) {
		/* not a check of its own: make export-test runs it to write the
		 * samples it validates (tests/export/run.sh) */
		print_message("test_export__write_samples: skipped: it writes the JSON and TMX samples that make "
		              "export-test validates (JSON Schema, Tiled), into $CM_EXPORT_DIR, which is not set\n");
		skip();
	}
	cm_tileset *sets[3];
	make_sets(sets);
	/* one sample with every <about> field, for the schema's "about" */
	cm_map_builder *tiny = make_tiny_builder();
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		assert_int_equal(cm_map_builder_set_about(tiny, i, cm_about_name(i)), 0);
	cm_map *maps[3] = { make_sample(), util_finish(tiny), make_wide() };
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char *kinds = kinds_in(dir, d);
	for (int i = 0; i < 3; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s.json", maps[i]->id);
		char *p = path_in(dir, name);
		FILE *f = fopen(p, "wb");
		assert_non_null(f);
		assert_int_equal(util_export_json(maps[i], UTIL_SETS(sets), 3, f), 0);
		assert_int_equal(fclose(f), 0);
		free(p);
		snprintf(name, sizeof name, "%s.tmx", maps[i]->id);
		p = path_in(dir, name);
		assert_int_equal(util_export_tmx(maps[i], p, kinds, d), 0);
		free(p);
		cm_map_free(maps[i]);
	}
	free(kinds);
	cm_diags_free(d);
	free_sets(sets);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export__json_matches_golden_and_is_deterministic),
		cmocka_unit_test(test_export__json_missing_set_or_tile_writes_nothing),
		cmocka_unit_test(test_export__deck_resolves_sets_by_id),
		cmocka_unit_test(test_export__inconsistent_model_is_refused),
		cmocka_unit_test(test_export__bin_round_trip_sample),
		cmocka_unit_test(test_export__bin_round_trip_tiny_and_wide),
		cmocka_unit_test(test_export__bin_round_trip_util_sample),
		cmocka_unit_test(test_export__bin_missing_tile_gives_no_buffer),
		cmocka_unit_test(test_export__tmx_files_are_deterministic),
		cmocka_unit_test(test_export__tmx_names_the_kinds_tileset_relative_to_itself),
		cmocka_unit_test(test_export__tmx_failures_leave_no_file),
		cmocka_unit_test(test_export__tmx_never_writes_through_a_planted_link),
		cmocka_unit_test(test_export__tmx_concurrent_exports_to_one_path),
		cmocka_unit_test(test_export__tmx_full_disk_leaves_nothing),
		cmocka_unit_test(test_export__installed_kinds_tileset_is_current),
		cmocka_unit_test(test_export__write_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
