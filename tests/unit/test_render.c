/* SPDX-License-Identifier: MIT */
/* test_render.c: map pictures (carcamap/render.h): import-render-import
 * round trips, tile drawing from features at every rotation, decorations,
 * deterministic bytes, limits and the write-then-rename guarantee. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "carcamap/catalog.h"
#include "carcamap/render.h"
#include "carcamap/scene.h"
#include "util_files.h"
#include "util_model.h"

#define FIX "tests/fixtures/image/"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/cm_render_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* Removes every file of the temporary directory, then the directory. */
static int teardown(void **state)
{
	(void)state;
	DIR *dir = opendir(tmpdir);
	struct dirent *e;
	while (dir && (e = readdir(dir)))
		if (e->d_name[0] != '.') {
			char p[512];
			snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
			unlink(p);
		}
	if (dir)
		closedir(dir);
	return rmdir(tmpdir);
}

static char *tmp(const char *name)
{
	static char p[256];
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	return p;
}

/* The picture as RGBA8 via libpng's simple API (8-bit in, 8-bit out: no
 * conversion). Caller frees. */
static uint8_t *read_rgba(const char *path, int *w, int *h)
{
	png_image im;
	memset(&im, 0, sizeof im);
	im.version = PNG_IMAGE_VERSION;
	assert_true(png_image_begin_read_from_file(&im, path));
	im.format = PNG_FORMAT_RGBA;
	uint8_t *buf = malloc(PNG_IMAGE_SIZE(im));
	assert_non_null(buf);
	assert_true(png_image_finish_read(&im, NULL, buf, 0, NULL));
	*w = (int)im.width;
	*h = (int)im.height;
	return buf;
}

static uint32_t px(const uint8_t *img, int w, int x, int y)
{
	const uint8_t *p = img + ((size_t)y * (size_t)w + (size_t)x) * 4;
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static cm_legend *load_legend(const char *path)
{
	cm_diags *d;
	cm_legend *lg;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_legend_load_file(path, d, &lg), 0);
	cm_diags_free(d);
	return lg;
}

static cm_map *import(const char *png, const cm_legend *lg)
{
	cm_diags *d;
	cm_map_builder *b;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_image_import(png, lg, d, &b);
	if (rc)
		fail_msg("import %s: %s", png, cm_diags_count(d) ? cm_diags_get(d, 0)->message : "?");
	cm_diags_free(d);
	util_id_set(b, "imported", NULL); /* the importer gives none */
	return util_finish(b);
}

static void render_ok(const cm_map *m, const cm_legend *lg, const cm_render_opts *o, const char *out)
{
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_render_map(m, lg, o, out, d);
	if (rc)
		fail_msg("render %s: %s", out, cm_diags_count(d) ? cm_diags_get(d, 0)->message : "?");
	assert_int_equal(cm_diags_count(d), 0);
	cm_diags_free(d);
}

static void expect_same_squares(const cm_map *a, const cm_map *b, int names)
{
	assert_int_equal(cm_map_cols(a), cm_map_cols(b));
	assert_int_equal(cm_map_rows(a), cm_map_rows(b));
	for (int i = 0; i < cm_map_cols(a) * cm_map_rows(a); i++) {
		const cm_square *s = &cm_map_squares(a)[i], *t = &cm_map_squares(b)[i];
		assert_int_equal(s->kind, t->kind);
		if (!names)
			continue;
		int x = i % cm_map_cols(a), y = i / cm_map_cols(a);
		const char *sn = cm_map_square_name(a, x, y), *tn = cm_map_square_name(b, x, y);
		assert_true((!sn && !tn) || (sn && tn && strcmp(sn, tn) == 0));
		assert_int_equal(util_marker_count(a, x, y), util_marker_count(b, x, y));
		for (size_t k = 0; k < util_marker_count(a, x, y); k++)
			assert_string_equal(util_marker(a, x, y, k), util_marker(b, x, y, k));
		assert_int_equal(s->arms, t->arms);
		assert_int_equal(s->island < 0, t->island < 0);
		if (s->island >= 0)
			assert_string_equal(cm_map_island(a, (size_t)s->island)->name, cm_map_island(b, (size_t)t->island)->name);
	}
}

/* Import, render with the legend's own grid (scale 0), import again: the
 * same squares, names, markers, islands and arms. Then the same at scale 1
 * with a one-pixel grid, and with the built-in legend. */
static void test_render__import_render_import_round_trip(void **state)
{
	(void)state;
	cm_legend *lg = load_legend(FIX "colour.xml");
	cm_map *m1 = import(FIX "colour_rgb8.png", lg);
	cm_render_opts o;
	cm_render_opts_init(&o);
	assert_int_equal(o.scale, 1);
	o.scale = 0;
	render_ok(m1, lg, &o, tmp("grid.png"));
	cm_map *m2 = import(tmp("grid.png"), lg);
	expect_same_squares(m1, m2, 1);
	cm_map_free(m2);

	lg->grid = (cm_legend_grid){ 0, 0, 1, 1, 0, 0, 1 };
	render_ok(m1, lg, NULL, tmp("scale1.png"));
	int w, h;
	free(read_rgba(tmp("scale1.png"), &w, &h));
	assert_int_equal(w, 6);
	assert_int_equal(h, 4);
	m2 = import(tmp("scale1.png"), lg);
	expect_same_squares(m1, m2, 1);
	cm_map_free(m2);

	cm_legend *def;
	assert_int_equal(cm_legend_default(&def), 0);
	render_ok(m1, NULL, NULL, tmp("default.png"));
	m2 = import(tmp("default.png"), def);
	expect_same_squares(m1, m2, 0);
	cm_map_free(m2);
	cm_legend_free(def);
	cm_map_free(m1);
	cm_legend_free(lg);
}

/* The cap of cell diagnostics at its edge (image.c MAX_CELL_DIAGS, CM0324):
 * an image with exactly 200 bad cells has them all reported and no CM0324;
 * with one more, the 200 and the note "1 more cells". A (200 + k) x 1 map
 * rendered one pixel a square, read with a legend knowing none of its
 * colours. */
static void test_render__cell_problems_capped_on_both_sides(void **state)
{
	(void)state;
	cm_legend *lg = load_legend(FIX "colour.xml"), *other;
	lg->grid = (cm_legend_grid){ 0, 0, 1, 1, 0, 0, 1 };
	static const char xml[] = "<legend format=\"1\"><colour value=\"#000001\" kind=\"land\"/></legend>";
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_legend_load_memory(xml, sizeof xml - 1, "none.xml", d, &other), 0);
	cm_diags_free(d);
	for (int over = 0; over < 2; over++) {
		cm_map_builder *b = util_builder(200 + over, 1);
		util_id_set(b, "row", NULL);
		for (int x = 0; x < 200 + over; x++)
			util_kind_set(b, x, 0, CM_SQ_LAND);
		cm_map *m = util_finish(b);
		render_ok(m, lg, NULL, tmp("row.png"));
		cm_map_builder *got = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		assert_int_equal(cm_image_import(tmp("row.png"), other, d, &got), CM_EINVAL);
		size_t cells = 0, notes = 0;
		for (size_t i = 0; i < cm_diags_count(d); i++) {
			const cm_diag *g = cm_diags_get(d, i);
			cells += strcmp(g->rule, "CM0320") == 0;
			notes += strcmp(g->rule, "CM0324") == 0 && strstr(g->message, "1 more cells");
		}
		assert_int_equal(cells, 200);
		assert_int_equal(notes, (size_t)over);
		assert_int_equal(cm_diags_count(d), 200 + (size_t)over);
		cm_diags_free(d);
		cm_map_free(m);
	}
	cm_legend_free(other);
	cm_legend_free(lg);
}

/* The grid picture's side limit at its edge (CM0341): a 1024 x 1 map
 * drawn 16 pixels a square is CM_IMAGE_MAX_SIDE wide and written; the
 * legend's grid moved one pixel right makes it one pixel wider: refused,
 * no file. */
static void test_render__png_side_on_both_sides(void **state)
{
	(void)state;
	cm_legend *lg = load_legend(FIX "colour.xml");
	cm_map_builder *b = util_builder(CM_GRID_MAX, 1);
	util_id_set(b, "wide", NULL);
	cm_map *m = util_finish(b);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.scale = 0; /* the legend's grid */
	for (int over = 0; over < 2; over++) {
		lg->grid = (cm_legend_grid){ over, 0, CM_IMAGE_MAX_SIDE / CM_GRID_MAX, 1, 0, 0, 1 };
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		size_t before = util_dir_entries(tmpdir);
		int rc = cm_render_map(m, lg, &o, tmp("wide.png"), d);
		if (over) {
			assert_int_equal(rc, CM_ELIMIT);
			assert_string_equal(cm_diags_get(d, 0)->rule, "CM0341");
			assert_non_null(strstr(cm_diags_get(d, 0)->message, "picture of 16385x1 pixels"));
			assert_int_equal(util_dir_entries(tmpdir), before);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(cm_diags_errors(d), 0);
			int w, h;
			free(read_rgba(tmp("wide.png"), &w, &h));
			assert_int_equal(w, CM_IMAGE_MAX_SIDE);
			assert_int_equal(h, 1);
		}
		cm_diags_free(d);
	}
	cm_map_free(m);
	cm_legend_free(lg);
}

/* A tile with a city on N and a road W-E, at every rotation: the city is
 * on side r, the road crosses the other axis, fields elsewhere. */
static void test_render__tile_features_at_every_rotation(void **state)
{
	(void)state;
	cm_feature f[4] = {
		{ .kind = CM_FEAT_CITY, .slots = CM_SIDE_SLOTS(CM_N) },
		{ .kind = CM_FEAT_ROAD, .slots = CM_SIDE_MID(CM_E) | CM_SIDE_MID(CM_W) },
		{ .kind = CM_FEAT_FIELD, .slots = CM_SLOT(CM_E, 0) | CM_SLOT(CM_W, 2) },
		{ .kind = CM_FEAT_FIELD, .slots = CM_SLOT(CM_E, 2) | CM_SIDE_SLOTS(CM_S) | CM_SLOT(CM_W, 0) },
	};
	cm_tile_type t = { .features = f, .n_features = 4 };
	cm_map_builder *b = util_builder(4, 1);
	util_id_set(b, "tiles", NULL);
	cm_render_tile tiles[4];
	for (int r = 0; r < 4; r++) {
		util_kind_set(b, r, 0, CM_SQ_LAND);
		tiles[r] = (cm_render_tile){ r, 0, &t, r };
	}
	cm_map *m = util_finish(b);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.scale = 30;
	o.flags = 0;
	o.tiles = tiles;
	o.n_tiles = 4;
	render_ok(m, NULL, &o, tmp("tiles.png"));
	int w, h;
	uint8_t *img = read_rgba(tmp("tiles.png"), &w, &h);
	/* a picture scale: the map's scene, one pixel a unit; the grid at
	 * (44, 88) units (coordinates and margins around it) */
	assert_int_equal(w, 560 * 30 / 36 + 1);
	const uint32_t city = 0xc8783c, field = 0x9cc86c, road = 0xf8f4e8;
	o.scale = 36;
	render_ok(m, NULL, &o, tmp("tiles.png"));
	free(img);
	img = read_rgba(tmp("tiles.png"), &w, &h);
	/* points 3 pixels inside the middle of each side N, E, S, W; the centre */
	static const int sx[4] = { 17, 32, 17, 3 }, sy[4] = { 3, 17, 32, 17 };
	for (int r = 0; r < 4; r++) {
		int x0 = 44 + 36 * r, y0 = 88;
		for (int s = 0; s < 4; s++) {
			uint32_t want = s == r ? city : (s - r + 4) % 2 ? road : field;
			if (px(img, w, x0 + sx[s], y0 + sy[s]) != want)
				fail_msg("rotation %d side %d: %06x, expected %06x", r, s, px(img, w, x0 + sx[s], y0 + sy[s]),
				         want);
		}
		assert_int_equal(px(img, w, x0 + 17, y0 + 17), road);
		/* the corners away from the city are field */
		int cx = (r == 0 || r == 3) ? 33 : 2, cy = (r == 0 || r == 1) ? 33 : 2;
		assert_int_equal(px(img, w, x0 + cx, y0 + cy), field);
	}
	free(img);
	cm_map_free(m);
}

/* A decorated map: start outline, city and road prints, a ferry, a big
 * city piece, arms, a grid and a marked square; rendered twice to the
 * same bytes. */
static void test_render__decorations_and_deterministic_bytes(void **state)
{
	(void)state;
	cm_map_builder *mb = util_builder(3, 3);
	util_id_set(mb, "decorated", NULL);
	for (int i = 0; i < 9; i++)
		util_kind_set(mb, i % 3, i / 3, CM_SQ_LAND);
	util_kind_set(mb, 0, 0, CM_SQ_START);
	util_print_set(mb, 2, 0, CM_N, CM_PRINT_CITY, 0);
	util_print_set(mb, 0, 2, CM_W, CM_PRINT_ROAD, 0);
	cm_square q = *cm_map_builder_square(mb, 2, 2);
	q.kind = CM_SQ_ISLAND;
	q.arms = 1;
	util_square_set(mb, 2, 2, &q);
	util_kind_set(mb, 1, 1, CM_SQ_BIGCITY);
	cm_feature bf = { .kind = CM_FEAT_CITY, .slots = CM_SLOTS_ALL };
	cm_tile_type piece = { .features = &bf, .n_features = 1 };
	assert_int_equal(cm_map_builder_add_bigcity(mb, NULL, 0, NULL), 0);
	assert_int_equal(cm_map_builder_add_piece(mb, 0, 1, 1, &piece), 0);
	cm_ferry fe = { .x1 = 0, .y1 = 2, .s1 = CM_S, .x2 = 2, .y2 = 2, .s2 = CM_S };
	assert_int_equal(cm_map_builder_add_ferry(mb, &fe), 0);
	cm_map *m = util_finish(mb);
	cm_render_mark mark = { 2, 1, CM_SEV_ERROR };
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.scale = 36; /* one pixel a unit: the grid at (44, 88) */
	o.marks = &mark;
	o.n_marks = 1;
	render_ok(m, NULL, &o, tmp("a.png"));
	render_ok(m, NULL, &o, tmp("b.png"));
	int w, h;
	uint8_t *img = read_rgba(tmp("a.png"), &w, &h);
	assert_int_equal(w, 560);
	const int X = 44, Y = 88;
	assert_int_equal(px(img, w, X + 72 + 1, Y + 36 + 12), 0xe00000);   /* mark frame: the error colour */
	assert_int_equal(px(img, w, X + 2, Y + 12), 0x8b1a1a);              /* start outline */
	assert_int_equal(px(img, w, X + 72 + 18, Y - 5), 0xa03010);         /* city print on N (palette) */
	assert_int_equal(px(img, w, X - 4, Y + 72 + 17), 0xffffff);         /* road print on W (palette) */
	assert_int_equal(px(img, w, X + 36 + 17, Y + 36 + 17), 0xc8783c);   /* big city piece, all city */
	assert_int_equal(px(img, w, X + 72 + 5, Y + 72 + 7), 0x2040c0);     /* island arms */
	assert_int_equal(px(img, w, X + 18, Y + 36 + 10), 0xc8dc8c);        /* plain land */
	assert_true((px(img, w, X + 36, Y + 36 + 10) & 0xff) < 0x8c);       /* a grid line, darker */
	free(img);
	cm_map_free(m);

	FILE *a = fopen(tmp("a.png"), "rb"), *b = fopen(tmp("b.png"), "rb");
	int ca, cb;
	long n = 0;
	do {
		ca = fgetc(a);
		cb = fgetc(b);
		assert_int_equal(ca, cb);
		n++;
	} while (ca != EOF);
	fclose(a);
	fclose(b);
	assert_true(n > 100);
}

/* A kind the legend lacks: drawn in the built-in colour, one warning. */
static void test_render__missing_legend_colour_warns(void **state)
{
	(void)state;
	static const char xml[] = "<legend format=\"1\"><colour value=\"#40a040\" kind=\"land\"/></legend>";
	cm_diags *d;
	cm_legend *lg;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_legend_load_memory(xml, sizeof xml - 1, "mem.xml", d, &lg), 0);
	cm_map_builder *b = util_builder(3, 1);
	util_id_set(b, "warn", NULL);
	util_kind_set(b, 1, 0, CM_SQ_LAND);
	cm_map *m = util_finish(b);
	assert_int_equal(cm_render_map(m, lg, NULL, tmp("warn.png"), d), 0);
	assert_int_equal(cm_diags_count(d), 1);
	assert_string_equal(cm_diags_get(d, 0)->rule, "CM0340");
	assert_string_equal(cm_diags_get(d, 0)->file, "mem.xml");
	assert_non_null(strstr(cm_diags_get(d, 0)->message, "kind none"));
	int w, h;
	uint8_t *img = read_rgba(tmp("warn.png"), &w, &h);
	assert_int_equal(px(img, w, 1, 0), 0x40a040);
	assert_int_equal(px(img, w, 0, 0), 0xa8c8e8);
	free(img);
	cm_map_free(m);
	cm_legend_free(lg);
	cm_diags_free(d);
}

/* Over the limits, a bad scale or an unwritable place: an error, and no
 * file (not even a temporary one) left behind. */
static void test_render__failures_leave_no_file(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map_builder *b = util_builder(100, 100);
	util_id_set(b, "big", NULL);
	cm_map *m = util_finish(b);
	size_t before = util_dir_entries(tmpdir);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.scale = 200;
	assert_int_equal(cm_render_map(m, NULL, &o, tmp("big.png"), d), CM_ELIMIT);
	assert_string_equal(cm_diags_get(d, 0)->rule, "CM0341");
	/* 100 x 100 squares and the picture's margins, key and title: 156
	 * pixels a square make fewer than 16384 a side */
	assert_non_null(strstr(cm_diags_get(d, 0)->message, "(a scale of 156 pixels per square or less fits)"));
	o.scale = -1;
	assert_int_equal(cm_render_map(m, NULL, &o, tmp("bad.png"), d), CM_EINVAL);
	assert_int_equal(cm_render_map(m, NULL, NULL, "/nonexistent-dir/x.png", d), CM_EIO);
	/* a directory in the way of the rename */
	char dir[256];
	snprintf(dir, sizeof dir, "%s", tmp("taken"));
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(cm_render_map(m, NULL, NULL, dir, d), CM_EIO);
	rmdir(dir);
	assert_int_equal(util_dir_entries(tmpdir), before);
	assert_int_equal(cm_diags_errors(d), 4);
	cm_map_free(m);
	cm_diags_free(d);
}

/* PDF limits (CM0342): a 1000x1000 map is refused as an A4 poster (over
 * CM_POSTER_MAX_PAGES) and as one sheet (over CM_SHEET_MAX_UM); a paper
 * that holds only its margins is a bad option; nothing is left behind. A
 * 20x20 map fits both. */
static void test_render__pdf_limits(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map_builder *b = util_builder(1000, 1000), *bs = util_builder(20, 20);
	util_id_set(b, "big", NULL);
	util_id_set(bs, "small", NULL);
	cm_map *m = util_finish(b), *small = util_finish(bs);
	size_t before = util_dir_entries(tmpdir);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = CM_RENDER_PDF;
	o.paper_w_um = 210000;
	o.paper_h_um = 297000;
	assert_int_equal(cm_render_map(m, NULL, &o, tmp("poster.pdf"), d), CM_ELIMIT);
	assert_string_equal(cm_diags_get(d, 0)->rule, "CM0342");
	assert_non_null(strstr(cm_diags_get(d, 0)->message, "over the limit of 500 pages"));
	o.paper_w_um = o.paper_h_um = 0;
	assert_int_equal(cm_render_map(m, NULL, &o, tmp("sheet.pdf"), d), CM_ELIMIT);
	assert_string_equal(cm_diags_get(d, 1)->rule, "CM0342");
	assert_non_null(strstr(cm_diags_get(d, 1)->message, "over the limit of 5080 mm"));
	o.paper_w_um = o.paper_h_um = 25000; /* margins and overlap fill it */
	assert_int_equal(cm_render_map(small, NULL, &o, tmp("tiny.pdf"), d), CM_EINVAL);
	assert_int_equal(util_dir_entries(tmpdir), before);
	assert_int_equal(cm_diags_errors(d), 3);
	o.paper_w_um = 210000;
	o.paper_h_um = 297000;
	assert_int_equal(cm_render_map(small, NULL, &o, tmp("small.pdf"), d), 0);
	o.paper_w_um = o.paper_h_um = 0;
	assert_int_equal(cm_render_map(small, NULL, &o, tmp("small-sheet.pdf"), d), 0);
	assert_int_equal(cm_diags_errors(d), 3);
	cm_map_free(m);
	cm_map_free(small);
	cm_diags_free(d);
}

/* Tile sheets: a pdf of the set's tiles; another format, a paper that
 * holds no tile, or an edition without tiles is refused with no file. */
static void test_render__tile_sheet(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_tileset *ts = util_tileset_new("t", "Test", true, 1, 1, 1);
	cm_tile_type *tt = util_tile_add(ts, "A", 0, 3, 3);
	util_feature_add(tt, CM_FEAT_FIELD, "f", CM_SLOTS_ALL);
	size_t before = util_dir_entries(tmpdir);
	cm_render_opts o;
	cm_render_opts_init(&o);
	assert_int_equal(cm_render_tileset(ts, &o, tmp("t.png"), d), CM_EINVAL); /* PNG */
	o.format = CM_RENDER_PDF;
	o.edition = CM_EDITION_C1; /* no tiles in C1 */
	assert_int_equal(cm_render_tileset(ts, &o, tmp("t.pdf"), d), CM_EINVAL);
	assert_non_null(strstr(cm_diags_get(d, 1)->message, "no tiles in edition C1"));
	o.edition = CM_EDITION_C2;
	o.paper_w_um = o.paper_h_um = 60000;
	assert_int_equal(cm_render_tileset(ts, &o, tmp("t.pdf"), d), CM_EINVAL);
	assert_int_equal(util_dir_entries(tmpdir), before);
	o.paper_w_um = o.paper_h_um = 0;
	o.backs = 1;
	assert_int_equal(cm_render_tileset(ts, &o, tmp("t.pdf"), d), 0);
	assert_int_equal(cm_diags_errors(d), 3);
	cm_tileset_free(ts);
	cm_diags_free(d);
}

/* A tile sheet of CM_POSTER_MAX_PAGES pages is written, one page more is
 * refused (CM0342) with no file; with backs, 250 fronts make the 500 pages.
 * Tiles of 150 mm: one a page of A4. */
static void test_render__tile_sheet_pages_on_both_sides(void **state)
{
	(void)state;
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = CM_RENDER_PDF;
	o.edition = CM_EDITION_C2;
	o.square_um = 150000;
	for (int k = 0; k < 4; k++) {
		int over = k & 1, backs = k >> 1, fronts = (backs ? CM_POSTER_MAX_PAGES / 2 : CM_POSTER_MAX_PAGES) + over;
		cm_tileset *ts = util_tileset_new("t", "Test", true, -1, -1, -1);
		util_feature_add(util_tile_add(ts, "A", 0, fronts, 0), CM_FEAT_FIELD, "f", CM_SLOTS_ALL);
		o.backs = backs;
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		size_t before = util_dir_entries(tmpdir);
		int rc = cm_render_tileset(ts, &o, tmp("pages.pdf"), d);
		if (over) {
			char msg[64];
			snprintf(msg, sizeof msg, "a tile sheet of %d pages", (backs + 1) * fronts);
			assert_int_equal(rc, CM_ELIMIT);
			assert_string_equal(cm_diags_get(d, 0)->rule, "CM0342");
			assert_non_null(strstr(cm_diags_get(d, 0)->message, msg));
			assert_int_equal(util_dir_entries(tmpdir), before);
		} else if (rc || cm_diags_count(d)) {
			char *t = util_diags_text(d);
			fail_msg("%d fronts%s: rc %d\n%s", fronts, backs ? " with backs" : "", rc, t);
		}
		cm_diags_free(d);
		cm_tileset_free(ts);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render__import_render_import_round_trip),
		cmocka_unit_test(test_render__cell_problems_capped_on_both_sides),
		cmocka_unit_test(test_render__png_side_on_both_sides),
		cmocka_unit_test(test_render__tile_features_at_every_rotation),
		cmocka_unit_test(test_render__decorations_and_deterministic_bytes),
		cmocka_unit_test(test_render__missing_legend_colour_warns),
		cmocka_unit_test(test_render__failures_leave_no_file),
		cmocka_unit_test(test_render__pdf_limits),
		cmocka_unit_test(test_render__tile_sheet),
		cmocka_unit_test(test_render__tile_sheet_pages_on_both_sides),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
