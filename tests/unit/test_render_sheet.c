/* SPDX-License-Identifier: MIT */
/* test_render_sheet.c: tile sheets (cm_render_tile_sheet): every tile of a
 * set drawn from its features in id order with its words, the page's
 * data, problems drawn on their tiles (also for a set read partially), the
 * same bytes every time, refusals, and a set no check would pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/render.h"
#include "util_files.h"
#include "util_model.h"

static cm_tileset *load(const char *path, unsigned flags, cm_diags *d)
{
	cm_tileset *ts = NULL;
	int rc = cm_tileset_load_file_flags(path, flags, d, &ts);
	if (!flags)
		assert_int_equal(rc, 0);
	assert_non_null(ts);
	return ts;
}

/* Renders the sets into dir/name and returns the file's text. */
static char *sheet(const char *dir, const char *name, cm_tileset **sets, size_t n, cm_render_format f,
                   const cm_diags *diags)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = f;
	o.diags = diags;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_render_tile_sheet((const cm_tileset *const *)sets, n, &o, path, d);
	if (rc)
		cm_diags_write_text(d, stderr);
	assert_int_equal(rc, 0);
	cm_diags_free(d);
	char *text = util_read_file(path, NULL);
	assert_non_null(text);
	return text;
}

/* Every tile of the base set and the Goldmines: a drawn group, its id,
 * name, copies and markers as text, in id order; the same bytes again. */
static void test_render_sheet__every_tile_with_its_words(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_tileset *sets[2] = { load("maps/tilesets/base.xml", 0, d), load("maps/tilesets/goldmines.xml", 0, d) };
	char *svg = sheet(dir, "a.svg", sets, 2, CM_RENDER_SVG, NULL);
	for (size_t i = 0; i < 2; i++) {
		assert_non_null(strstr(svg, sets[i]->name));
		for (size_t k = 0; k < sets[i]->n_tiles; k++) {
			const cm_tile_type *t = &sets[i]->tiles[k];
			char want[160];
			snprintf(want, sizeof want, "<g id=\"t-%zu-%zu\"", i, k);
			assert_non_null(strstr(svg, want));
			snprintf(want, sizeof want, ">%s</text>", t->id);
			const char *at = strstr(svg, want);
			assert_non_null(at);
			snprintf(want, sizeof want, ">C1 %d \xc2\xb7 C2 %d \xc2\xb7 C3 %d", t->count[0], t->count[1], t->count[2]);
			assert_non_null(strstr(svg, want));
			for (size_t m = 0; m < t->n_markers; m++)
				assert_non_null(strstr(svg, t->markers[m]));
		}
	}
	/* id order: E before Eg before F, GM-01 before GM-08 */
	assert_true(strstr(svg, ">E</text>") < strstr(svg, ">Eg</text>"));
	assert_true(strstr(svg, ">Eg</text>") < strstr(svg, ">F</text>"));
	assert_true(strstr(svg, ">GM-01</text>") < strstr(svg, ">GM-08</text>"));
	/* every feature a group with its description, in the SVG as on the page */
	assert_non_null(strstr(svg, "class=\"f\" data-f=\"0,3,0\""));
	assert_non_null(strstr(svg, "<title>c1: city, Nw Nm Ne</title>"));
	char *again = sheet(dir, "b.svg", sets, 2, CM_RENDER_SVG, NULL);
	assert_string_equal(svg, again);
	free(again);
	free(svg);
	/* the page: feature groups with their descriptions, the data, the script */
	char *html = sheet(dir, "a.html", sets, 2, CM_RENDER_HTML, NULL);
	assert_non_null(strstr(html, "class=\"f\" data-f=\"0,3,0\""));
	assert_non_null(strstr(html, "<title>c1: city, Nw Nm Ne</title>"));
	assert_non_null(strstr(html, "\"markers\":[\"gold-mine\"]"));
	assert_non_null(strstr(html, "id=\"cm-data\""));
	assert_non_null(strstr(html, "Not checked"));
	free(html);
	cm_tileset_free(sets[0]);
	cm_tileset_free(sets[1]);
	cm_diags_free(d);
	util_rmtree(dir);
}

/* A set with a problem on each tile, read as far as it goes: each
 * problem's id on its tile, the slots marked, the set's own under its
 * name, the page listing them with their tiles. */
static void test_render_sheet__problems_on_their_tiles(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_tileset *ts = load("tests/fixtures/render/bad-tiles.xml", CM_TILESET_LOAD_PARTIAL, d);
	assert_true(cm_diags_errors(d) >= 5);
	cm_diags_sort(d);
	char *svg = sheet(dir, "bad.svg", &ts, 1, CM_RENDER_SVG, d);
	/* D misses Ws, E holds Ne twice, A names r9, X has a Q in its grid */
	const char *tiles[] = { "D", "E", "A", "X" }, *ids[] = { "CM0101", "CM0102", "CM0107", "CM0117" };
	for (size_t i = 0; i < 4; i++) {
		const cm_tile_type *t = cm_tileset_find(ts, tiles[i]);
		assert_non_null(t);
		char key[64];
		snprintf(key, sizeof key, "class=\"card diag\" data-t=\"0,%zu\"", (size_t)(t - ts->tiles));
		const char *card = strstr(svg, key);
		assert_non_null(card);
		const char *next = strstr(card + 1, "class=\"card");
		const char *id = strstr(card, ids[i]);
		assert_non_null(id);
		assert_true(!next || id < next);
	}
	assert_non_null(strstr(svg, "covered by no feature (CM0101)"));
	assert_non_null(strstr(svg, "covered by two features (CM0102)"));
	assert_non_null(strstr(svg, "class=\"setdiag\""));
	assert_non_null(strstr(svg, "CM0113 error: base set has no start tile"));
	free(svg);
	char *html = sheet(dir, "bad.html", &ts, 1, CM_RENDER_HTML, d);
	assert_non_null(strstr(html, "<li data-t=\"0,0\">"));
	assert_non_null(strstr(html, "\"diags\":[\"CM0101 "));
	free(html);
	cm_tileset_free(ts);
	cm_diags_free(d);
	util_rmtree(dir);
}

/* What no check would pass is still drawn: a tile of 40 features, one of
 * none, ids missing; other formats and no set are refused. */
static void test_render_sheet__broken_models_and_refusals(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	cm_tile_type tiles[3] = { { 0 } };
	cm_feature many[40];
	memset(many, 0, sizeof many);
	for (int i = 0; i < 40; i++) {
		many[i].kind = CM_FEAT_FIELD;
		many[i].slots = (cm_slots)(1u << (i % 12));
	}
	tiles[0].id = "many";
	tiles[0].features = many;
	tiles[0].n_features = 40;
	tiles[1].id = NULL;
	tiles[2].id = "none";
	cm_tileset ts = { .id = NULL, .name = NULL, .tiles = tiles, .n_tiles = 3 };
	cm_tileset *p = &ts;
	char *svg = sheet(dir, "broken.svg", &p, 1, CM_RENDER_SVG, NULL);
	assert_non_null(strstr(svg, ">many</text>"));
	free(svg);
	free(sheet(dir, "broken.html", &p, 1, CM_RENDER_HTML, NULL));
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = CM_RENDER_PDF; /* the sheets to print are cm_render_tileset's */
	char path[512];
	snprintf(path, sizeof path, "%s/x.pdf", dir);
	assert_int_equal(cm_render_tile_sheet((const cm_tileset *const *)&p, 1, &o, path, NULL), CM_EINVAL);
	o.format = CM_RENDER_SVG;
	assert_int_equal(cm_render_tile_sheet(NULL, 0, &o, path, NULL), CM_EINVAL);
	util_rmtree(dir);
}

/* PNG: the scene drawn by cairo, a tile side as many pixels as the scale
 * asks (108 by default), the same bytes twice. */
static void test_render_sheet__png(void **state)
{
	(void)state;
	char *dir = util_tempdir();
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_tileset *ts = load("maps/tilesets/crop-circles-2.xml", 0, d);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = CM_RENDER_PNG;
	char a[512], b[512];
	snprintf(a, sizeof a, "%s/a.png", dir);
	snprintf(b, sizeof b, "%s/b.png", dir);
	assert_int_equal(cm_render_tile_sheet((const cm_tileset *const *)&ts, 1, &o, a, d), 0);
	assert_int_equal(cm_render_tile_sheet((const cm_tileset *const *)&ts, 1, &o, b, d), 0);
	size_t la, lb;
	char *x = util_read_file(a, &la), *y = util_read_file(b, &lb);
	assert_true(la > 1000 && la == lb);
	assert_memory_equal(x, y, la);
	assert_memory_equal(x, "\x89PNG\r\n\x1a\n", 8);
	/* IHDR: width and height, big-endian, at bytes 16 and 20 */
	const unsigned char *u = (const unsigned char *)x;
	unsigned w = (unsigned)u[16] << 24 | (unsigned)u[17] << 16 | (unsigned)u[18] << 8 | u[19];
	char svgp[512];
	snprintf(svgp, sizeof svgp, "%s/a.svg", dir);
	o.format = CM_RENDER_SVG;
	assert_int_equal(cm_render_tile_sheet((const cm_tileset *const *)&ts, 1, &o, svgp, d), 0);
	char *svg = util_read_file(svgp, NULL);
	unsigned vw = 0;
	static const char key[] = "viewBox=\"0 0 ";
	const char *vb = strstr(svg, key);
	assert_non_null(vb);
	assert_int_equal(sscanf(vb + sizeof key - 1, "%u", &vw), 1);
	assert_int_equal(w, vw * 108 / 36);
	free(svg);
	free(x);
	free(y);
	cm_tileset_free(ts);
	cm_diags_free(d);
	util_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_sheet__every_tile_with_its_words),
		cmocka_unit_test(test_render_sheet__problems_on_their_tiles),
		cmocka_unit_test(test_render_sheet__broken_models_and_refusals),
		cmocka_unit_test(test_render_sheet__png),
	};
	return cmocka_run_group_tests_name("render_sheet", tests, NULL, NULL);
}
