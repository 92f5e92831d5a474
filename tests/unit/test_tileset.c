/* SPDX-License-Identifier: MIT */
/* test_tileset.c: the tile set reader, the semantic checks and the writers
 * (carcamap/tileset.h). Bad inputs are data: every file in
 * tests/fixtures/tileset/bad names the (rule, line) diagnostics it must
 * produce in "<!-- expect: CM0107 line 9 -->" comments, and one runner
 * checks them all; every file in good/ must load without a diagnostic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/tileset.h"
#include "util_files.h"

#define BAD_DIR "tests/fixtures/tileset/bad"
#define GOOD_DIR "tests/fixtures/tileset/good"

static const char good_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<tileset format=\"1\" id=\"mini\" name=\"Mini &amp; co\" kind=\"base\" total-c1=\"9\" total-c2=\"8\" total-c3=\"7\">\n"
	"  <tile id=\"D\" count=\"2\" start=\"true\" name=\"city cap N, road W-E\">\n"
	"    <city id=\"c1\" slots=\"Nw Nm Ne\" arms=\"1\"/>\n"
	"    <road id=\"r1\" slots=\"Em Wm\" inn=\"true\"/>\n"
	"    <field id=\"f1\" slots=\"En Wn\" touches=\" c1 \"/>\n"
	"    <field id=\"f2\" slots=\"Es Se Sm Sw Ws\"/>\n"
	"  </tile>\n"
	"  <tile id=\"E\" count-c1=\"5\" count-c2=\"4\">\n" /* line 9 */
	"    <city id=\"c1\" slots=\"Nw Nm Ne\" cathedral=\"true\" good=\"wine\"/>\n"
	"    <field id=\"f1\" slots=\"En Em Es Se Sm Sw Ws Wm Wn\" touches=\"c1\"/>\n"
	"  </tile>\n"
	"  <tile id=\"A\" count-c1=\"2\" count-c2=\"2\" count-c3=\"1\">\n"
	"    <monastery id=\"m1\"/>\n"
	"    <road id=\"r1\" slots=\"Sm\"/>\n"
	"    <field id=\"f1\" slots=\"Nw Nm Ne En Em Es Se Sw Ws Wm Wn\"/>\n"
	"    <garden id=\"g1\"/>\n"
	"    <contact features=\"m1 r1\"/>\n"
	"  </tile>\n"
	"  <tile id=\"AB\" count=\"6\">\n"
	"    <abbey id=\"a1\"/>\n"
	"  </tile>\n"
	"</tileset>\n";

static cm_tileset *load_good(cm_diags **d)
{
	assert_int_equal(cm_diags_new(d), 0);
	cm_tileset *ts = NULL;
	int rc = cm_tileset_load_memory(good_xml, strlen(good_xml), "good.xml", *d, &ts);
	if (rc)
		cm_diags_write_text(*d, stderr);
	assert_int_equal(rc, 0);
	assert_non_null(ts);
	assert_int_equal(cm_diags_count(*d), 0);
	return ts;
}

static cm_slots slots(const char *s)
{
	cm_slots m = 0;
	assert_int_equal(cm_slots_parse(s, &m), 0);
	return m;
}

static void test_tileset__reads_model(void **state)
{
	(void)state;
	cm_diags *d;
	cm_tileset *ts = load_good(&d);
	assert_string_equal(ts->id, "mini");
	assert_string_equal(ts->name, "Mini & co");
	assert_true(ts->base);
	assert_int_equal(ts->line, 2);
	assert_string_equal(ts->file, "good.xml");
	assert_int_equal(ts->n_tiles, 4);
	assert_int_equal(ts->total[CM_EDITION_C1], 9);
	assert_int_equal(ts->total[CM_EDITION_C2], 8);
	assert_int_equal(ts->total[CM_EDITION_C3], 7);

	const cm_tile_type *d1 = cm_tileset_find(ts, "D");
	assert_ptr_equal(d1, &ts->tiles[0]);
	assert_true(d1->start);
	assert_string_equal(d1->name, "city cap N, road W-E");
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		assert_int_equal(d1->count[e], 2);
	assert_int_equal(d1->n_features, 4);
	assert_int_equal(d1->features[0].kind, CM_FEAT_CITY);
	assert_string_equal(d1->features[0].id, "c1");
	assert_int_equal(d1->features[0].slots, slots("Nw Nm Ne"));
	assert_int_equal(d1->features[0].arms, 1);
	assert_int_equal(d1->features[0].line, 4);
	assert_int_equal(d1->features[1].kind, CM_FEAT_ROAD);
	assert_true(d1->features[1].inn);
	assert_int_equal(d1->features[1].slots, slots("Em Wm"));
	assert_int_equal(d1->features[2].touches, 1u << 0); /* touches c1, spaces trimmed */
	assert_int_equal(d1->features[3].touches, 0);
	assert_int_equal(d1->edge[CM_N], CM_EDGE_CITY);
	assert_int_equal(d1->edge[CM_E], CM_EDGE_ROAD);
	assert_int_equal(d1->edge[CM_S], CM_EDGE_FIELD);
	assert_int_equal(d1->edge[CM_W], CM_EDGE_ROAD);
	assert_int_equal(d1->slot_feature[cm_slot_parse("Wn")], 2);

	const cm_tile_type *e = cm_tileset_find(ts, "E");
	assert_int_equal(e->line, 9);
	assert_int_equal(e->count[CM_EDITION_C1], 5);
	assert_int_equal(e->count[CM_EDITION_C2], 4);
	assert_int_equal(e->count[CM_EDITION_C3], 4); /* C3 defaults to C2 */
	assert_true(e->features[0].cathedral);
	assert_int_equal(e->features[0].good, CM_GOOD_WINE);
	assert_false(e->start);

	const cm_tile_type *a = cm_tileset_find(ts, "A");
	assert_int_equal(a->count[CM_EDITION_C3], 1);
	assert_int_equal(a->features[0].kind, CM_FEAT_MONASTERY);
	assert_int_equal(a->features[0].slots, 0);
	assert_int_equal(a->features[3].kind, CM_FEAT_GARDEN);
	assert_int_equal(a->n_contacts, 1);
	assert_int_equal(a->contacts[0], (1u << 0) | (1u << 1));
	assert_int_equal(a->edge[CM_S], CM_EDGE_ROAD);
	assert_int_equal(a->edge[CM_N], CM_EDGE_FIELD);

	/* the abbey tile: all 12 slots by default, abbey edges, not drawn */
	const cm_tile_type *ab = cm_tileset_find(ts, "AB");
	assert_true(cm_tileset_is_abbey_tile(ab));
	assert_false(cm_tileset_is_abbey_tile(a));
	assert_int_equal(ab->features[0].slots, CM_SLOTS_ALL);
	for (int s = 0; s < 4; s++)
		assert_int_equal(ab->edge[s], CM_EDGE_ABBEY);
	assert_int_equal(cm_tileset_total(ts, CM_EDITION_C1), 9);
	assert_int_equal(cm_tileset_total(ts, CM_EDITION_C2), 8);
	assert_int_equal(cm_tileset_total(ts, CM_EDITION_C3), 7);

	assert_null(cm_tileset_find(ts, "Z"));
	assert_int_equal(cm_tileset_start(ts), 0);
	cm_tileset_free(ts);
	cm_tileset_free(NULL);
	cm_diags_free(d);
}

/* total-c3 and count-c3 default to the C2 values; a missing total is -1 */
static void test_tileset__c3_defaults_to_c2(void **state)
{
	(void)state;
	static const char xml[] =
		"<tileset format=\"1\" id=\"x\" name=\"x\" kind=\"expansion\" total-c2=\"3\">\n"
		"  <tile id=\"B\" count-c1=\"1\" count-c2=\"3\">\n"
		"    <field id=\"f1\" slots=\"Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn\"/>\n"
		"  </tile>\n"
		"</tileset>\n";
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_tileset *ts = NULL;
	assert_int_equal(cm_tileset_load_memory(xml, strlen(xml), "x.xml", d, &ts), 0);
	assert_int_equal(ts->total[CM_EDITION_C1], -1);
	assert_int_equal(ts->total[CM_EDITION_C2], 3);
	assert_int_equal(ts->total[CM_EDITION_C3], 3);
	assert_int_equal(ts->tiles[0].count[CM_EDITION_C1], 1);
	assert_int_equal(ts->tiles[0].count[CM_EDITION_C3], 3);
	assert_false(ts->base);
	assert_int_equal(cm_tileset_start(ts), -1);
	cm_tileset_free(ts);
	cm_diags_free(d);
}

static void assert_same_set(const cm_tileset *a, const cm_tileset *b)
{
	assert_string_equal(a->id, b->id);
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->base, b->base);
	assert_memory_equal(a->total, b->total, sizeof a->total);
	assert_int_equal(a->n_tiles, b->n_tiles);
	for (size_t i = 0; i < a->n_tiles; i++) {
		const cm_tile_type *s = &a->tiles[i], *t = &b->tiles[i];
		assert_string_equal(s->id, t->id);
		assert_int_equal(s->name == NULL, t->name == NULL);
		if (s->name)
			assert_string_equal(s->name, t->name);
		assert_memory_equal(s->count, t->count, sizeof s->count);
		assert_int_equal(s->start, t->start);
		assert_int_equal(s->n_features, t->n_features);
		for (size_t k = 0; k < s->n_features; k++) {
			const cm_feature *f = &s->features[k], *g = &t->features[k];
			assert_int_equal(f->kind, g->kind);
			assert_string_equal(f->id, g->id);
			assert_int_equal(f->slots, g->slots);
			assert_int_equal(f->arms, g->arms);
			assert_int_equal(f->cathedral, g->cathedral);
			assert_int_equal(f->inn, g->inn);
			assert_int_equal(f->good, g->good);
			assert_int_equal(f->touches, g->touches);
		}
		assert_int_equal(s->n_contacts, t->n_contacts);
		for (size_t c = 0; c < s->n_contacts; c++)
			assert_int_equal(s->contacts[c], t->contacts[c]);
		assert_int_equal(s->n_markers, t->n_markers);
		for (size_t k = 0; k < s->n_markers; k++)
			assert_string_equal(s->markers[k], t->markers[k]);
		assert_memory_equal(s->edge, t->edge, sizeof s->edge);
	}
}

/* Writes ts as XML into a malloc'd string. */
static char *to_xml(const cm_tileset *ts, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	assert_int_equal(cm_tileset_write_xml(ts, f), 0);
	fclose(f);
	return buf;
}

/* Writes ts as XML, reads it back and asserts an equal model, and that
 * writing the copy gives the same bytes; returns the XML (caller frees). */
static char *round_trip(const cm_tileset *ts, const char *name)
{
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	size_t len, len2;
	char *xml = to_xml(ts, &len);
	cm_tileset *back = NULL;
	assert_int_equal(cm_tileset_load_memory(xml, len, name, d, &back), 0);
	assert_int_equal(cm_diags_count(d), 0);
	assert_same_set(ts, back);
	char *xml2 = to_xml(back, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(xml, xml2, len);
	free(xml2);
	cm_tileset_free(back);
	cm_diags_free(d);
	return xml;
}

static void test_tileset__write_xml_round_trip(void **state)
{
	(void)state;
	cm_diags *d;
	cm_tileset *ts = load_good(&d);
	char *xml = round_trip(ts, "written.xml");
	/* editions that differ keep their per-edition form */
	assert_non_null(strstr(xml, "count-c1=\"5\" count-c2=\"4\""));
	assert_non_null(strstr(xml, "count-c1=\"2\" count-c2=\"2\" count-c3=\"1\""));
	assert_non_null(strstr(xml, "total-c1=\"9\" total-c2=\"8\" total-c3=\"7\""));
	assert_non_null(strstr(xml, "name=\"Mini &amp; co\""));
	free(xml);
	cm_tileset_free(ts);
	cm_diags_free(d);
}

/* A model built in memory is checked too, with `where` instead of lines. */
static void test_tileset__check_in_memory_model(void **state)
{
	(void)state;
	cm_diags *d;
	cm_tileset *ts = load_good(&d);
	assert_int_equal(cm_tileset_check(ts, d), 0);
	free(ts->file);
	ts->file = NULL;
	cm_tile_type *a = &ts->tiles[2];
	a->features[1].slots = slots("Sm Sw"); /* road on a half-side slot */
	a->features[2].inn = true;             /* an inn on a field */
	a->contacts[0] |= 1u << 2;             /* the field joins the contact */
	assert_int_equal(cm_tileset_check(ts, d), CM_EINVAL);
	const char *want[] = { "CM0103", "CM0103", "CM0102", "CM0109" };
	assert_int_equal(cm_diags_count(d), 4);
	for (size_t i = 0; i < 4; i++) {
		const cm_diag *g = cm_diags_get(d, i);
		assert_string_equal(g->rule, want[i]);
		assert_null(g->file);
		assert_int_equal(g->line, 0);
		assert_non_null(g->where);
		assert_non_null(strstr(g->where, "tile set mini, tile A"));
	}
	cm_tileset_free(ts);
	cm_diags_free(d);
}

/* ---- fixtures ---- */

/* Every bad fixture produces exactly the (rule, line) pairs it names, each
 * as often as it is named. */
static void test_tileset__bad_fixtures(void **state)
{
	(void)state;
	size_t n;
	char **names = util_list_dir(BAD_DIR, ".xml", &n);
	assert_true(n > 0);
	int failures = 0;
	for (size_t i = 0; i < n; i++) {
		char path[256];
		snprintf(path, sizeof path, "%s/%s", BAD_DIR, names[i]);
		char *text = util_read_file(path, NULL);
		util_expect ex[16];
		size_t n_ex = util_parse_expects(text, ex, 16);
		free(text);
		if (n_ex == 0) {
			print_error("%s: no expect comment\n", path);
			failures++;
			continue;
		}
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_tileset *ts = NULL;
		int rc = cm_tileset_load_file(path, d, &ts);
		bool any_error = false;
		for (size_t k = 0; k < n_ex; k++) {
			const cm_check_info *ci = cm_catalog_find(ex[k].id);
			if (!ci) {
				print_error("%s: expects %s, which is not in the catalogue\n", path, ex[k].id);
				failures++;
			} else if (ci->severity == CM_SEV_ERROR) {
				any_error = true;
			}
		}
		if (any_error != (rc != 0) || any_error != (ts == NULL)) {
			print_error("%s: load returned %d (errors expected: %s)\n", path, rc, any_error ? "yes" : "no");
			failures++;
		}
		failures += (int)util_expects_differ(path, ex, n_ex, d, NULL);
		cm_tileset_free(ts);
		cm_diags_free(d);
	}
	util_names_free(names);
	assert_int_equal(failures, 0);
}

/* Removing a check must fail a test: every CM01xx id of the catalogue is
 * named by at least one bad fixture, as are the XML-level ids. */
static void test_tileset__every_check_has_a_bad_fixture(void **state)
{
	(void)state;
	char *all = util_read_dir_files(BAD_DIR, ".xml");
	int missing = 0;
	for (size_t i = 0; i < cm_catalog_count(); i++) {
		const char *id = cm_catalog_get(i)->id;
		bool wanted = strncmp(id, "CM01", 4) == 0 || strcmp(id, "CM0001") == 0 ||
		              strcmp(id, "CM0002") == 0 || strcmp(id, "CM0003") == 0;
		if (wanted && !util_text_expects(all, id)) {
			print_error("%s has no bad fixture in %s\n", id, BAD_DIR);
			missing++;
		}
	}
	free(all);
	assert_int_equal(missing, 0);
}

/* Every good fixture loads without a diagnostic and survives a round trip
 * through cm_tileset_write_xml. */
static void test_tileset__good_fixtures(void **state)
{
	(void)state;
	size_t n;
	char **names = util_list_dir(GOOD_DIR, ".xml", &n);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		char path[256];
		snprintf(path, sizeof path, "%s/%s", GOOD_DIR, names[i]);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_tileset *ts = NULL;
		int rc = cm_tileset_load_file(path, d, &ts);
		if (rc || cm_diags_count(d)) {
			print_error("%s: rc %d\n", path, rc);
			cm_diags_write_text(d, stderr);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(cm_diags_count(d), 0);
		assert_int_equal(cm_tileset_check(ts, d), 0);
		free(round_trip(ts, path));
		cm_tileset_free(ts);
		cm_diags_free(d);
	}
	util_names_free(names);
}

/* Writes ts in form as XML into a malloc'd string. */
static char *to_xml_form(const cm_tileset *ts, cm_tile_form form, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	assert_int_equal(cm_tileset_write_xml_form(ts, form, f, NULL), 0);
	fclose(f);
	return buf;
}

/* Every bundled tile, written as a picture (schemas/tileset.md "Tiles as
 * pictures") and read back, is the same tile: kinds, ids, order, slots,
 * attributes, touches, contacts, markers; writing the copy gives the same
 * bytes, and the picture holds every tile (no tile keeps its slots). */
static void test_tileset__grid_form_round_trips_bundled(void **state)
{
	(void)state;
	size_t n;
	char **names = util_list_dir("maps/tilesets", ".xml", &n);
	assert_true(n >= 8);
	for (size_t i = 0; i < n; i++) {
		char path[256];
		snprintf(path, sizeof path, "maps/tilesets/%s", names[i]);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_tileset *ts = NULL;
		assert_int_equal(cm_tileset_load_file(path, d, &ts), 0);
		size_t len, len2;
		char *xml = to_xml_form(ts, CM_TILE_FORM_GRID, &len);
		assert_null(strstr(xml, "slots=")); /* every tile drawn */
		cm_tileset *back = NULL;
		int rc = cm_tileset_load_memory(xml, len, "grid.xml", d, &back);
		if (rc || cm_diags_count(d)) {
			cm_diags_write_text(d, stderr);
			fprintf(stderr, "%s in grid form:\n%s", path, xml);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(cm_diags_count(d), 0);
		assert_same_set(ts, back);
		char *xml2 = to_xml_form(back, CM_TILE_FORM_GRID, &len2);
		assert_int_equal(len, len2);
		assert_memory_equal(xml, xml2, len);
		/* and back to slots: the bytes of the slots form of the original */
		char *s1 = to_xml_form(ts, CM_TILE_FORM_SLOTS, &len);
		char *s2 = to_xml_form(back, CM_TILE_FORM_SLOTS, &len2);
		assert_int_equal(len, len2);
		assert_memory_equal(s1, s2, len);
		free(s1);
		free(s2);
		free(xml2);
		free(xml);
		cm_tileset_free(back);
		cm_tileset_free(ts);
		cm_diags_free(d);
	}
	util_names_free(names);
}

/* Asserts tile a equals tile b feature by feature (ids, kinds, order,
 * slots, attributes, touches), contacts and markers aside. */
static void assert_same_features(const cm_tile_type *a, const cm_tile_type *b)
{
	assert_int_equal(a->n_features, b->n_features);
	for (size_t k = 0; k < a->n_features; k++) {
		const cm_feature *f = &a->features[k], *g = &b->features[k];
		assert_int_equal(f->kind, g->kind);
		assert_string_equal(f->id, g->id);
		assert_int_equal(f->slots, g->slots);
		assert_int_equal(f->arms, g->arms);
		assert_int_equal(f->touches, g->touches);
	}
}

/* The worked example of schemas/tileset.md "Tiles as pictures" reads to
 * the bundled GM-06 and O. */
static void test_tileset__grid_example_is_the_bundled_tiles(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_tileset *ex = NULL, *gm = NULL, *base = NULL;
	assert_int_equal(cm_tileset_load_file(GOOD_DIR "/grid.xml", d, &ex), 0);
	assert_int_equal(cm_tileset_load_file("maps/tilesets/goldmines.xml", d, &gm), 0);
	assert_int_equal(cm_tileset_load_file("maps/tilesets/base.xml", d, &base), 0);
	assert_same_features(cm_tileset_find(ex, "GM-06"), cm_tileset_find(gm, "GM-06"));
	assert_same_features(cm_tileset_find(ex, "O"), cm_tileset_find(base, "O"));
	assert_string_equal(cm_tileset_find(ex, "GM-06")->markers[0], "gold-mine");
	cm_tileset_free(ex);
	cm_tileset_free(gm);
	cm_tileset_free(base);
	cm_diags_free(d);
}

/* Hostile grids are refused cleanly at their place, at a cost linear in
 * their text: a row of 4000 cells, thousands of rows, bytes that are no
 * grid character (UTF-8, control-free odd ASCII), inconsistent marks. */
static void test_tileset__hostile_grids(void **state)
{
	(void)state;
	static const char head[] = "<tileset format=\"1\" id=\"h\" name=\"h\" kind=\"expansion\">\n"
	                           "<tile id=\"T\" count=\"1\"><grid>";
	static const char tail[] = "</grid><field id=\"f1\" mark=\"z\"/><field id=\"f2\" mark=\"z\"/></tile>\n</tileset>\n";
	const char *bodies[] = {
		NULL, /* a row of 4000 cells: the schema's limit, CM0002 */
		".....\n.....\n.....\n.....\n.....\n.....\n.....\n.....\n.....\n.....\n.....\n.....\n",
		"\xc3\xa9....\n.\xe2\x80\xae...\n..~..\n..!..\n.....\n",
		"zzzzz\n.....\n.....\n.....\n..9..\n",
		"", "\n\n\n",
	};
	char big[4100];
	memset(big, '.', 4000);
	big[4000] = '\0';
	bodies[0] = big;
	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		size_t len = strlen(head) + strlen(bodies[i]) + strlen(tail);
		char *xml = malloc(len + 1);
		assert_non_null(xml);
		snprintf(xml, len + 1, "%s%s%s", head, bodies[i], tail);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_tileset *ts = NULL;
		assert_int_equal(cm_tileset_load_memory(xml, len, "hostile.xml", d, &ts), CM_EINVAL);
		assert_null(ts);
		assert_true(cm_diags_errors(d) > 0);
		assert_true(cm_diags_count(d) <= 40); /* a few each, never one per cell */
		for (size_t k = 0; k < cm_diags_count(d); k++) {
			const cm_diag *g = cm_diags_get(d, k);
			assert_non_null(g->rule);
			if (strcmp(g->rule, "CM0117") == 0)
				assert_true(g->line >= 2);
		}
		cm_diags_free(d);
		free(xml);
	}
}

static void test_tileset__json_lists_tiles(void **state)
{
	(void)state;
	cm_diags *d;
	cm_tileset *ts = load_good(&d);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cm_tileset_write_json(ts, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"edges\": [\n        \"city\",\n        \"road\",\n        \"field\",\n        \"road\"\n      ]"));
	assert_non_null(strstr(buf, "\"touches\": [\n            \"c1\"\n          ]"));
	assert_non_null(strstr(buf, "\"C3\": 7"));
	free(buf);
	cm_tileset_free(ts);
	cm_diags_free(d);
}

/* The problems of one tile grid said before the rest are counted
 * (tilegrid.c MAX_REPORTS, CM0117): 8 bad cells are each said and nothing
 * is counted; with 9, the 8 and "1 more problem in this grid is not
 * listed". */
static void test_tileset__grid_reports_capped_on_both_sides(void **state)
{
	(void)state;
	static const char *const rows[2] = { "!!!!!\n!!!..\n", "!!!!!\n!!!!.\n" };
	for (int over = 0; over < 2; over++) {
		char xml[512];
		int len = snprintf(xml, sizeof xml,
		                   "<tileset format=\"1\" id=\"t\" name=\"t\" kind=\"expansion\">\n<tile id=\"A\" count=\"1\">\n"
		                   "<grid>\n%s.....\n.....\n.....\n</grid>\n<field id=\"f\"/>\n</tile>\n</tileset>\n",
		                   rows[over]);
		cm_diags *d;
		cm_tileset *ts = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		assert_int_not_equal(cm_tileset_load_memory(xml, (size_t)len, "grid.xml", d, &ts), 0);
		size_t grid = 0, said = 0, counted = 0; /* CM0117s; the unread cells' slots say more */
		for (size_t i = 0; i < cm_diags_count(d); i++) {
			const cm_diag *g = cm_diags_get(d, i);
			if (strcmp(g->rule, "CM0117") != 0)
				continue;
			grid++;
			said += strstr(g->message, "is not a grid character") != NULL;
			counted += strstr(g->message, "1 more problem in this grid is not listed") != NULL;
		}
		assert_int_equal(said, 8);
		assert_int_equal(counted, (size_t)over);
		assert_int_equal(grid, 8 + (size_t)over);
		cm_tileset_free(ts);
		cm_diags_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tileset__reads_model),
		cmocka_unit_test(test_tileset__c3_defaults_to_c2),
		cmocka_unit_test(test_tileset__write_xml_round_trip),
		cmocka_unit_test(test_tileset__grid_form_round_trips_bundled),
		cmocka_unit_test(test_tileset__grid_example_is_the_bundled_tiles),
		cmocka_unit_test(test_tileset__hostile_grids),
		cmocka_unit_test(test_tileset__check_in_memory_model),
		cmocka_unit_test(test_tileset__bad_fixtures),
		cmocka_unit_test(test_tileset__every_check_has_a_bad_fixture),
		cmocka_unit_test(test_tileset__good_fixtures),
		cmocka_unit_test(test_tileset__json_lists_tiles),
		cmocka_unit_test(test_tileset__grid_reports_capped_on_both_sides),
	};
	return cmocka_run_group_tests_name("tileset", tests, NULL, NULL);
}
