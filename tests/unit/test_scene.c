/* SPDX-License-Identifier: MIT */
/* test_scene.c: the scene (carcamap/scene.h): what the builder stores and
 * the SVG writer writes, byte for byte (attribute order, inherited styles,
 * metadata, patterns, escaping), a tile drawn from its features, and a
 * tile copied from the cache drawn the same as one drawn anew. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "carcamap/scene.h"
#include "carcamap/tileset.h"
#include "export/scene_int.h"
#include "util_files.h"
#include "util_model.h"

static char *svg_of(const cm_scene *s)
{
	char path[] = "/tmp/cm_scene_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_scene_opts o;
	cm_scene_opts_init(&o);
	assert_int_equal(cm_scene_write(s, &o, path, d), 0);
	assert_int_equal(cm_diags_count(d), 0);
	cm_diags_free(d);
	char *text = util_read_file(path, NULL);
	unlink(path);
	return text;
}

static void test_scene__svg_bytes(void **state)
{
	(void)state;
	cm_scene *s;
	assert_int_equal(cm_scene_new(&s), 0);
	cm_scene_set_size(s, 100, 50);
	cm_scene_set_title(s, "A & B", "desc");
	cm_scene_id(s, CM_NODE_ROOT, "root");
	cm_scene_data(s, CM_NODE_ROOT, "cols", "3");
	int p = cm_scene_pattern_begin(s, "pat", 8, 8);
	cm_scene_path(s, "M0 8L8 0", &(cm_style){ .stroke = CM_PAINT_RGB(1, 2, 3), .stroke_width = 100 });
	cm_scene_pattern_end(s);
	cm_style gs = { .halo = CM_PAINT_RGB(255, 255, 255), .halo_width = 200, .halo_round = 1,
		        .fill = CM_PAINT_RGB(0, 0, 0) };
	cm_node g = cm_scene_group(s, &gs);
	cm_scene_id(s, g, "names");
	cm_scene_data(s, g, "d", "1 2");
	cm_scene_data(s, g, "sq", "3,4");
	cm_scene_rect(s, 0, 0, 10, 10, &(cm_style){ .fill = CM_PAINT_PATTERN(p) });
	cm_scene_rect(s, 1, 2, 3, 4, &(cm_style){ .fill = CM_PAINT_NONE, .stroke = CM_PAINT_RGB(0xab, 0, 0xff),
	                                          .stroke_width = 250, .stroke_opacity = 35, .dash = { 3, 2 } });
	cm_node t = cm_scene_text(s, 5, 6, "x<y", &(cm_style){ .font_size = 9, .bold = 1, .anchor = CM_ANCHOR_MIDDLE });
	cm_scene_class(s, t, "name");
	cm_scene_title(s, t, "x<y whole");
	cm_scene_text_line2(s, t, 10, "two");
	cm_scene_end(s);
	cm_scene_break(s);
	cm_scene_path_add(s, "M%d %d", 1, 2);
	cm_scene_path_add(s, "h%d", 3);
	cm_scene_path_end(s, NULL);
	cm_scene_circle(s, 7, 8, 450, &(cm_style){ .fill = CM_PAINT_RGB(0x10, 0x20, 0x30) });
	assert_int_equal(cm_scene_error(s), 0);
	char *svg = svg_of(s);
	assert_string_equal(svg,
	                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" id=\"root\" width=\"100\" "
	                    "height=\"50\" viewBox=\"0 0 100 50\" font-family=\"sans-serif\" font-size=\"10\" "
	                    "data-cols=\"3\">\n<title>A &amp; B</title>\n<desc>desc</desc>\n"
	                    "<defs><pattern id=\"pat\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\">"
	                    "<path d=\"M0 8L8 0\" stroke=\"#010203\" stroke-width=\"1\"/></pattern></defs>"
	                    "<g id=\"names\" data-d=\"1 2\" data-sq=\"3,4\" stroke=\"#ffffff\" stroke-width=\"2\" "
	                    "stroke-linejoin=\"round\" paint-order=\"stroke\" fill=\"#000000\">"
	                    "<rect width=\"10\" height=\"10\" fill=\"url(#pat)\"/>"
	                    "<rect x=\"1\" y=\"2\" width=\"3\" height=\"4\" fill=\"none\" stroke=\"#ab00ff\" "
	                    "stroke-width=\"2.5\" stroke-opacity=\"0.35\" stroke-dasharray=\"3 2\"/>"
	                    "<text x=\"5\" y=\"6\" font-size=\"9\" font-weight=\"bold\" text-anchor=\"middle\" "
	                    "class=\"name\"><title>x&lt;y whole</title>x&lt;y<tspan x=\"5\" dy=\"10\">two</tspan></text>"
	                    "</g>\n<path d=\"M1 2h3\"/><circle cx=\"7\" cy=\"8\" r=\"4.5\" fill=\"#102030\"/>\n</svg>\n");
	free(svg);
	cm_scene_free(s);
	cm_scene_free(NULL);
}

/* A city cap with a road, turned once: a translated group with the ground,
 * each field its own area, the city (east) with its wall and its arms
 * named, the road north-south (dark under light), no junction. */
static void test_scene__tile_from_features(void **state)
{
	(void)state;
	cm_tileset *ts = util_tileset_new("t", "t", true, 1, 1, 1);
	cm_tile_type *tt = util_tile_add(ts, "cap", 1, 1, 1);
	cm_feature *c = util_feature_add(tt, CM_FEAT_CITY, "c", CM_SIDE_SLOTS(CM_N));
	c->arms = 1;
	util_feature_add(tt, CM_FEAT_ROAD, "r", CM_SIDE_MID(CM_E) | CM_SIDE_MID(CM_W));
	util_feature_add(tt, CM_FEAT_FIELD, "f", CM_SLOT(CM_E, 0) | CM_SLOT(CM_W, 2));
	util_feature_add(tt, CM_FEAT_FIELD, "g", CM_SLOT(CM_E, 2) | CM_SIDE_SLOTS(CM_S) | CM_SLOT(CM_W, 0));
	cm_scene *s;
	assert_int_equal(cm_scene_new(&s), 0);
	cm_scene_set_size(s, 36, 36);
	cm_scene_tile(s, 36, 72, tt, 1);
	char *svg = svg_of(s);
	assert_non_null(strstr(svg, "<g transform=\"translate(36 72)\"><rect class=\"ground\" width=\"36\" height=\"36\""));
	/* turned once: the city is on the east side, the road runs north-south */
	assert_non_null(strstr(svg, "<path class=\"area\" d=\"M36 0L36 36Q14 18 36 0Z\" fill=\"#c8783c\""));
	assert_non_null(strstr(svg, "class=\"wall\""));
	assert_non_null(strstr(svg, "<title>coat of arms</title>"));
	assert_non_null(strstr(svg, "<path class=\"road\" d=\"M18 0L18 36\" fill=\"none\""));
	assert_null(strstr(svg, "junction"));
	assert_null(strstr(svg, "bridge"));
	const char *f1 = strstr(svg, "class=\"area\""), *f2 = f1 ? strstr(f1 + 1, "class=\"area\"") : NULL;
	assert_non_null(f2); /* two fields, then the city */
	assert_non_null(strstr(f2 + 1, "class=\"area\""));
	free(svg);
	cm_scene_free(s);
	cm_tileset_free(ts);
}

/* The PDF limits at their edges (CM0342): a poster of CM_POSTER_MAX_PAGES
 * pages (499 board pages in a row and the assembly page) is written, one
 * page more is refused; a sheet of CM_SHEET_MAX_UM a side is written, one
 * with 2 um more (a bleed of 1 um moves both edges) is refused. The scene
 * is empty, so 500 pages cost little. */
static void test_scene__pdf_limits_on_both_sides(void **state)
{
	(void)state;
	char *dir = util_tempdir(), path[4200];
	assert_non_null(dir);
	snprintf(path, sizeof path, "%s/limits.pdf", dir);
	cm_scene_opts o;
	cm_scene_opts_init(&o);
	o.format = CM_SCENE_PDF;
	o.cell_um = 1000 * CM_SCENE_CELL; /* a millimetre a unit */
	o.paper_w_um = o.paper_h_um = 100000; /* 70 mm of board a page past the first: 100 less margins and overlap */
	for (int k = 0; k < 4; k++) {
		bool over = k & 1, sheet = k >= 2;
		cm_scene *s;
		assert_int_equal(cm_scene_new(&s), 0);
		if (sheet) {
			o.paper_w_um = o.paper_h_um = 0;
			o.bleed_um = over; /* the side: 5060 mm and 10 mm of crop-mark room each side, and the bleed */
			cm_scene_set_size(s, (CM_SHEET_MAX_UM - 20000) / 1000, 36);
		} else {
			cm_scene_set_size(s, 499 * 70 + 10 + over, 36); /* 499 pages' steps and the overlap */
			int cols, rows, land;
			assert_int_equal(cm_scene_poster_grid(s, &o, &cols, &rows, &land), 0);
			assert_int_equal(cols * rows + 1, CM_POSTER_MAX_PAGES + over);
		}
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		int rc = cm_scene_write(s, &o, path, d);
		if (over) {
			assert_int_equal(rc, CM_ELIMIT);
			assert_int_equal(cm_diags_count(d), 1);
			assert_string_equal(cm_diags_get(d, 0)->rule, "CM0342");
			assert_non_null(strstr(cm_diags_get(d, 0)->message, sheet ? "of 5080 mm a side" : "of 501 pages"));
		} else if (rc || cm_diags_count(d)) {
			char *t = util_diags_text(d);
			fail_msg("%s at the limit: rc %d\n%s", sheet ? "sheet" : "poster", rc, t);
		}
		cm_diags_free(d);
		cm_scene_free(s);
	}
	util_rmtree(dir);
}

/* The feature callback of the copy test: a group with the feature's number
 * for even features, none for odd ones. */
static int feature_group(void *arg, int fi)
{
	cm_scene *s = arg;
	if (fi % 2)
		return 0;
	char v[16];
	snprintf(v, sizeof v, "%d", fi);
	cm_node g = cm_scene_group(s, NULL);
	cm_scene_class(s, g, "f");
	cm_scene_data(s, g, "f", v);
	return 1;
}

/* Tiles drawn through the cache (each type and rotation computed once,
 * then copied) are the same nodes, feature calls and prints as tiles drawn
 * anew: every fifth bundled type in every rotation, twice each, with and
 * without a feature callback, written as SVG byte for byte. */
static void test_scene__tile_copies_equal_drawings(void **state)
{
	(void)state;
	size_t n;
	char **names = util_list_dir("maps/tilesets", ".xml", &n);
	assert_true(n >= 8);
	cm_scene *a, *b;
	assert_int_equal(cm_scene_new(&a), 0);
	assert_int_equal(cm_scene_new(&b), 0);
	cm__tile_cache *c;
	assert_int_equal(cm__tile_cache_new(&c), 0);
	cm_tileset **sets = calloc(n, sizeof *sets);
	assert_non_null(sets);
	unsigned pa = 0, pb = 0;
	int k = 0, drawn = 0;
	for (size_t i = 0; i < n; i++) {
		char path[512];
		snprintf(path, sizeof path, "maps/tilesets/%s", names[i]);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		assert_int_equal(cm_tileset_load_file(path, d, &sets[i]), 0);
		cm_diags_free(d);
		for (size_t t = 0; t < sets[i]->n_tiles; t++, k++) {
			if (k % 5)
				continue;
			const cm_tile_type *tt = &sets[i]->tiles[t];
			for (int copy = 0; copy < 2; copy++)
				for (int r = 0; r < 4; r++) {
					int x = 40 * (drawn % 16), y = 40 * (drawn / 16), f = (drawn + copy) % 2;
					cm__scene_tile(a, x, y, tt, r, f ? feature_group : NULL, a, &pa);
					cm__scene_tile_cached(b, c, x, y, tt, r, f ? feature_group : NULL, b, &pb);
					drawn++;
				}
		}
	}
	assert_true(drawn >= 150);
	assert_int_equal(cm_scene_error(b), 0);
	assert_int_equal(pa, pb);
	char *sa = svg_of(a), *sb = svg_of(b);
	assert_true(strlen(sa) > 100000);
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
	cm__tile_cache_free(c);
	cm_scene_free(a);
	cm_scene_free(b);
	for (size_t i = 0; i < n; i++)
		cm_tileset_free(sets[i]);
	free(sets);
	util_names_free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scene__svg_bytes),
		cmocka_unit_test(test_scene__tile_from_features),
		cmocka_unit_test(test_scene__pdf_limits_on_both_sides),
		cmocka_unit_test(test_scene__tile_copies_equal_drawings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
