/* SPDX-License-Identifier: MIT */
/* test_image.c: legends and PNG import (carcamap/image.h). The fixture
 * cases are data: tests/fixtures/image/cases.txt (images) and
 * legend_cases.txt (legends), checked by one runner each; the PNGs are
 * written by tests/fixtures/image/gen.c (run by hand, files committed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/image.h"
#include "base/image_int.h"
#include "util_files.h"
#include "util_model.h"

#define FIX "tests/fixtures/image/"

/* The map an import built: b finished with an id (the importer gives
 * none), or NULL when there is no b. */
static cm_map *as_map(cm_map_builder *b)
{
	if (!b)
		return NULL;
	util_id_set(b, "imported", NULL);
	return util_finish(b);
}

static int code_of(const char *name)
{
	static const struct { const char *name; int code; } codes[] = {
		{ "ok", 0 }, { "EINVAL", CM_EINVAL }, { "ENOMEM", CM_ENOMEM }, { "EIO", CM_EIO },
		{ "EFORMAT", CM_EFORMAT }, { "EVERSION", CM_EVERSION }, { "ELIMIT", CM_ELIMIT },
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (strcmp(codes[i].name, name) == 0)
			return codes[i].code;
	fail_msg("unknown result %s", name);
	return 1;
}

/* Compares the diagnostics with "ID[@where],…" or "-". at_line: the part
 * after @ is a line number; otherwise a cell "c,r" found in where. */
static void expect_diags(const cm_diags *d, const char *want, int at_line, const char *ctx)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", strcmp(want, "-") == 0 ? "" : want);
	size_t i = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), i++) {
		char *at = strchr(tok, '@');
		char cell[32] = "";
		if (at) {
			*at = '\0';
			if (!at_line) { /* "c,r": the row is the next token */
				char *row = strtok_r(NULL, ",", &save);
				snprintf(cell, sizeof cell, "cell (%s,%s)", at + 1, row ? row : "");
			}
		}
		if (i >= cm_diags_count(d))
			fail_msg("%s: expected %s, got only %zu diagnostics", ctx, tok, cm_diags_count(d));
		const cm_diag *g = cm_diags_get(d, i);
		if (!g->rule || strcmp(g->rule, tok) != 0)
			fail_msg("%s: diagnostic %zu is %s (%s), expected %s", ctx, i, g->rule ? g->rule : "(none)",
			         g->message, tok);
		if (at && at_line && g->line != (unsigned)atoi(at + 1))
			fail_msg("%s: %s at line %u, expected %s", ctx, tok, g->line, at + 1);
		if (at && !at_line && (!g->where || !strstr(g->where, cell)))
			fail_msg("%s: %s where '%s', expected %s", ctx, tok, g->where ? g->where : "", cell);
	}
	if (cm_diags_count(d) != i)
		fail_msg("%s: %zu diagnostics, expected %zu; first extra: %s %s", ctx, cm_diags_count(d), i,
		         cm_diags_get(d, i)->rule ? cm_diags_get(d, i)->rule : "", cm_diags_get(d, i)->message);
}

static char kind_letter(cm_square_kind k)
{
	return ".LSTBWMIH"[k];
}

static void expect_grid(const cm_map *m, const char *grid_file, const char *ctx)
{
	char path[256], line[256];
	snprintf(path, sizeof path, FIX "%s", grid_file);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	int y = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if ((int)strlen(line) != cm_map_cols(m))
			fail_msg("%s: row %d has %d squares, the grid file %zu", ctx, y, cm_map_cols(m), strlen(line));
		for (int x = 0; x < cm_map_cols(m); x++)
			if (kind_letter(cm_map_at(m, x, y)->kind) != line[x])
				fail_msg("%s: square (%d,%d) is %s, expected %c", ctx, x, y,
				         cm_square_kind_name(cm_map_at(m, x, y)->kind), line[x]);
		y++;
	}
	fclose(f);
	assert_int_equal(y, cm_map_rows(m));
}

static cm_legend *load_legend(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, FIX "%s", name);
	cm_diags *d;
	cm_legend *lg;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_legend_load_file(path, d, &lg);
	if (rc)
		fail_msg("legend %s: %s", name, cm_diags_count(d) ? cm_diags_get(d, 0)->message : "?");
	cm_diags_free(d);
	return lg;
}

/* Reads the whitespace-separated fields of the next case line; 0 at the end. */
static int next_case(FILE *f, char fields[][64], int n)
{
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0')
			continue;
		int k = 0;
		for (char *save = NULL, *t = strtok_r(line, " \t\n", &save); t && k < n; t = strtok_r(NULL, " \t\n", &save))
			snprintf(fields[k++], 64, "%s", t);
		if (k != n)
			fail_msg("case line with %d fields, expected %d", k, n);
		return 1;
	}
	return 0;
}

static void test_image__fixture_cases(void **state)
{
	(void)state;
	FILE *f = fopen(FIX "cases.txt", "r");
	assert_non_null(f);
	char c[5][64];
	int cases = 0;
	while (next_case(f, c, 5)) {
		char png[256], ctx[160];
		snprintf(png, sizeof png, FIX "%s", c[0]);
		snprintf(ctx, sizeof ctx, "%s with %s", c[0], c[1]);
		cm_legend *lg = load_legend(c[1]);
		cm_diags *d;
		cm_map_builder *b = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		int rc = cm_image_import(png, lg, d, &b);
		cm_map *m = as_map(b);
		if (rc != code_of(c[2]))
			fail_msg("%s: result %s (%d), expected %s; %s", ctx, cm_strerror(rc), rc, c[2],
			         cm_diags_count(d) ? cm_diags_get(d, 0)->message : "no diagnostics");
		expect_diags(d, c[4], 0, ctx);
		if (strcmp(c[3], "-") != 0) {
			assert_non_null(m);
			expect_grid(m, c[3], ctx);
		} else {
			assert_null(m);
		}
		cm_map_free(m);
		cm_legend_free(lg);
		cm_diags_free(d);
		cases++;
	}
	fclose(f);
	assert_true(cases >= 30);
}

static void test_image__legend_cases(void **state)
{
	(void)state;
	FILE *f = fopen(FIX "legend_cases.txt", "r");
	assert_non_null(f);
	char c[3][64];
	int cases = 0;
	while (next_case(f, c, 3)) {
		char path[256];
		snprintf(path, sizeof path, FIX "%s", c[0]);
		cm_diags *d;
		cm_legend *lg = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		int rc = cm_legend_load_file(path, d, &lg);
		if (rc != code_of(c[1]))
			fail_msg("%s: result %d, expected %s", c[0], rc, c[1]);
		expect_diags(d, c[2], 1, c[0]);
		assert_true(rc ? lg == NULL : lg != NULL);
		cm_legend_free(lg);
		cm_diags_free(d);
		cases++;
	}
	fclose(f);
	assert_true(cases >= 7);
}

/* Names, markers, islands and arms come from the legend colours. */
static void test_image__import_names_islands_markers(void **state)
{
	(void)state;
	cm_legend *lg = load_legend("colour.xml");
	cm_diags *d;
	cm_map_builder *b;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_image_import(FIX "colour_rgb8.png", lg, d, &b), 0);
	cm_map *m = as_map(b);
	assert_int_equal(cm_map_cols(m), 6);
	assert_int_equal(cm_map_rows(m), 4);
	assert_string_equal(cm_map_square_name(m, 3, 3), "Erfurt");
	assert_null(cm_map_square_name(m, 3, 0));
	assert_int_equal(util_marker_count(m, 2, 3), 1);
	assert_string_equal(util_marker(m, 2, 3, 0), "wine");
	assert_int_equal(cm_map_island_count(m), 1);
	assert_string_equal(cm_map_island(m, 0)->name, "mallorca");
	assert_int_equal(cm_map_at(m, 4, 2)->island, 0);
	assert_int_equal(cm_map_at(m, 5, 2)->island, 0);
	assert_int_equal(cm_map_at(m, 5, 2)->arms, 1);
	assert_int_equal(cm_map_at(m, 3, 2)->island, -1);
	assert_int_equal(cm_map_at(m, 1, 1)->bigcity, -1);
	assert_string_equal(cm_map_image(m), FIX "colour_rgb8.png");
	assert_string_equal(cm_map_legend(m), FIX "colour.xml");
	cm_map_free(m);
	cm_legend_free(lg);
	cm_diags_free(d);
}

/* The unknown-colour message names the pixel's colour, the nearest legend
 * colour and the distance; the where names cell and pixel. */
static void test_image__unknown_colour_names_nearest(void **state)
{
	(void)state;
	cm_legend *lg = load_legend("colour.xml");
	cm_diags *d;
	cm_map_builder *m;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_image_import(FIX "wrong_colour.png", lg, d, &m), CM_EINVAL);
	const cm_diag *g = cm_diags_get(d, 0);
	assert_string_equal(g->file, FIX "wrong_colour.png");
	assert_string_equal(g->where, "cell (1,0), pixel (9,2)");
	assert_non_null(strstr(g->message, "#41a140"));
	assert_non_null(strstr(g->message, "#40a040 (land, legend line 7)"));
	assert_non_null(strstr(g->message, "distance 1"));
	cm_legend_free(lg);
	cm_diags_free(d);
}

/* A hopeless image reports 200 cells, then one note with the rest. */
static void test_image__cell_diagnostics_capped(void **state)
{
	(void)state;
	static const char xml[] = "<legend format=\"1\"><colour value=\"#40a040\" kind=\"land\"/></legend>";
	cm_diags *d;
	cm_legend *lg;
	cm_map_builder *m;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_legend_load_memory(xml, sizeof xml - 1, "mem.xml", d, &lg), 0);
	assert_int_equal(lg->grid.cell_w, 1);
	assert_int_equal(lg->grid.sample, 1);
	assert_int_equal(cm_image_import(FIX "colour_rgb8.png", lg, d, &m), CM_EINVAL);
	assert_int_equal(cm_diags_count(d), 201);
	const cm_diag *last = cm_diags_get(d, 200);
	assert_string_equal(last->rule, "CM0324");
	/* 27x19 pixels, one cell each; the 12 land-coloured pixels of each of
	 * the 9 land cells (4x4 less the drawn grid column) pass */
	char want[64];
	snprintf(want, sizeof want, "%d more cells", 27 * 19 - 9 * 12 - 200);
	assert_non_null(strstr(last->message, want));
	cm_legend_free(lg);
	cm_diags_free(d);
}

/* A legend of 256 colours loads; one colour more is CM0002 on that colour
 * (schemas/legend.xsd's maxOccurs, checked before CM_LEGEND_MAX_COLOURS,
 * the loader's own cap, which no legend file can reach). */
/* The picture size limit, read (image.c) and drawn (render.c's grid
 * pictures), just inside and just outside each of its bounds: pictures this
 * size cost hundreds of megabytes, so the one test both share is held here,
 * and cases.txt reads files claiming these sizes (pixels_at, pixels_over,
 * side_at, side_over). */
static void test_image__size_limit_on_both_sides(void **state)
{
	(void)state;
	assert_true(cm__image_fits(10000, 10000)); /* exactly CM_IMAGE_MAX_PIXELS */
	assert_false(cm__image_fits(10000, 10001));
	assert_false(cm__image_fits(7122, 14041)); /* the fewest pixels past it */
	assert_true(cm__image_fits(7122, 14040));
	assert_true(cm__image_fits(CM_IMAGE_MAX_SIDE, 1));
	assert_false(cm__image_fits(CM_IMAGE_MAX_SIDE + 1, 1));
	assert_true(cm__image_fits(1, CM_IMAGE_MAX_SIDE));
	assert_false(cm__image_fits(1, CM_IMAGE_MAX_SIDE + 1));
	assert_true(cm__image_fits(CM_IMAGE_MAX_SIDE, (int64_t)CM_IMAGE_MAX_PIXELS / CM_IMAGE_MAX_SIDE));
	assert_false(cm__image_fits(CM_IMAGE_MAX_SIDE, (int64_t)CM_IMAGE_MAX_PIXELS / CM_IMAGE_MAX_SIDE + 1));
	assert_true(cm__image_fits(0, 0));
	assert_false(cm__image_fits(-1, 1));
	assert_false(cm__image_fits(UINT32_MAX, UINT32_MAX)); /* a PNG's largest claim */
}

static void test_image__legend_colours_on_both_sides(void **state)
{
	(void)state;
	enum { MOST = 256, PER = 48 };
	char xml[(MOST + 1) * PER + 64];
	for (int over = 0; over < 2; over++) {
		int n = MOST + over;
		size_t len = (size_t)sprintf(xml, "<legend format=\"1\">\n");
		for (int i = 0; i < n; i++)
			len += (size_t)sprintf(xml + len, "<colour value=\"#%06x\" kind=\"land\"/>\n", i * 4);
		len += (size_t)sprintf(xml + len, "</legend>");
		assert_true(len < sizeof xml);
		cm_diags *d;
		cm_legend *lg = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		int rc = cm_legend_load_memory(xml, len, "many.xml", d, &lg);
		if (over) {
			assert_int_not_equal(rc, 0);
			assert_int_equal(cm_diags_count(d), 1);
			assert_string_equal(cm_diags_get(d, 0)->rule, "CM0002");
			assert_int_equal(cm_diags_get(d, 0)->line, MOST + 2);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(cm_diags_count(d), 0);
			assert_int_equal(lg->n_colours, MOST);
		}
		cm_legend_free(lg);
		cm_diags_free(d);
	}
	assert_true(MOST <= CM_LEGEND_MAX_COLOURS);
}

static void test_image__missing_file_is_io_error(void **state)
{
	(void)state;
	cm_legend *lg = load_legend("colour.xml");
	cm_diags *d;
	cm_map_builder *m;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_image_import(FIX "no_such.png", lg, d, &m), CM_EIO);
	assert_null(m);
	assert_int_equal(cm_diags_errors(d), 1);
	cm_legend_free(lg);
	cm_diags_free(d);
}

/* Apply fills undefined squares, keeps agreeing ones, and names both
 * places where descriptor and image disagree. */
static void test_image__apply_fills_and_reports_conflicts(void **state)
{
	(void)state;
	cm_legend *lg = load_legend("colour.xml");
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map_builder *b = util_builder(6, 4);
	assert_int_equal(cm_map_builder_set_file(b, "maps/test/map.xml"), 0);
	util_id_set(b, "test", NULL);
	cm_square q = *cm_map_builder_square(b, 0, 0);
	q.kind = CM_SQ_LAND; /* image: none */
	q.line = 7;
	util_square_set(b, 0, 0, &q);
	q.line = 8; /* image: land */
	util_square_set(b, 1, 0, &q);
	util_name_set(b, 3, 0, "Bremen");
	util_island_add(b, "ibiza", NULL);
	q.kind = CM_SQ_ISLAND; /* image: island mallorca */
	q.island = 0;
	q.line = 9;
	util_square_set(b, 4, 2, &q);
	assert_int_equal(cm_image_apply(b, FIX "colour_rgb8.png", lg, d), CM_EINVAL);
	cm_map *m = util_finish(b);
	assert_int_equal(cm_diags_count(d), 2);
	const cm_diag *g = cm_diags_get(d, 0);
	assert_string_equal(g->rule, "CM0330");
	assert_string_equal(g->file, "maps/test/map.xml");
	assert_int_equal(g->line, 7);
	assert_string_equal(g->where, "square (0,0)");
	assert_non_null(strstr(g->message, "square is land in the descriptor but none in image"));
	assert_non_null(strstr(g->message, FIX "colour_rgb8.png"));
	assert_non_null(strstr(g->message, "cell (0,0), pixel (4,3)"));
	g = cm_diags_get(d, 1);
	assert_int_equal(g->line, 9);
	assert_non_null(strstr(g->message, "ibiza"));
	assert_non_null(strstr(g->message, "mallorca"));
	/* filled from the image where the descriptor said nothing */
	assert_int_equal(cm_map_at(m, 3, 0)->kind, CM_SQ_START);
	assert_string_equal(cm_map_square_name(m, 3, 0), "Bremen");
	assert_int_equal(cm_map_at(m, 1, 1)->kind, CM_SQ_BIGCITY);
	assert_string_equal(cm_map_square_name(m, 3, 3), "Erfurt");
	assert_int_equal(cm_map_at(m, 5, 2)->kind, CM_SQ_ISLAND);
	assert_int_equal(cm_map_island_count(m), 2);
	assert_string_equal(cm_map_island(m, cm_map_at(m, 5, 2)->island)->name, "mallorca");
	assert_int_equal(cm_map_at(m, 0, 0)->kind, CM_SQ_LAND);
	cm_map_free(m);

	cm_diags_clear(d);
	b = util_builder(5, 4);
	assert_int_equal(cm_image_apply(b, FIX "colour_rgb8.png", lg, d), CM_EINVAL);
	assert_int_equal(cm_diags_count(d), 1);
	assert_string_equal(cm_diags_get(d, 0)->rule, "CM0331");
	cm_map_builder_free(b);
	cm_legend_free(lg);
	cm_diags_free(d);
}

/* Every CM03xx id used by the module is catalogued with a fix sentence. */
static void test_image__catalogue_rows(void **state)
{
	(void)state;
	static const char *const ids[] = { "CM0301", "CM0302", "CM0303", "CM0304", "CM0310", "CM0311",
	                                   "CM0312", "CM0313", "CM0320", "CM0321", "CM0322", "CM0323",
	                                   "CM0324", "CM0330", "CM0331", "CM0340", "CM0341" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		const cm_check_info *c = cm_catalog_find(ids[i]);
		assert_non_null(c);
		assert_true(strlen(c->title) > 0 && strlen(c->fix) > 0);
	}
}

/* The example in schemas/legend.md loads without diagnostics. */
static void test_image__spec_example_loads(void **state)
{
	(void)state;
	char *text = util_read_file("schemas/legend.md", NULL);
	char *a = strstr(text, "```xml\n");
	assert_non_null(a);
	a += 7;
	char *b = strstr(a, "```");
	assert_non_null(b);
	cm_diags *d;
	cm_legend *lg;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_legend_load_memory(a, (size_t)(b - a), "legend.md", d, &lg), 0);
	assert_int_equal(cm_diags_count(d), 0);
	assert_int_equal(lg->n_colours, 12);
	assert_int_equal(lg->tolerance, 4);
	assert_int_equal(lg->grid.sample, 5);
	cm_legend_free(lg);
	cm_diags_free(d);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_image__fixture_cases),
		cmocka_unit_test(test_image__legend_cases),
		cmocka_unit_test(test_image__import_names_islands_markers),
		cmocka_unit_test(test_image__unknown_colour_names_nearest),
		cmocka_unit_test(test_image__cell_diagnostics_capped),
		cmocka_unit_test(test_image__size_limit_on_both_sides),
		cmocka_unit_test(test_image__legend_colours_on_both_sides),
		cmocka_unit_test(test_image__missing_file_is_io_error),
		cmocka_unit_test(test_image__apply_fills_and_reports_conflicts),
		cmocka_unit_test(test_image__catalogue_rows),
		cmocka_unit_test(test_image__spec_example_loads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
