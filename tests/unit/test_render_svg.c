/* SPDX-License-Identifier: MIT */
/* test_render_svg.c: the vector pictures (carcamap/render.h, SVG and
 * HTML): hostile names come out escaped and well-formed, models with
 * broken references (CM_MAP_LOAD_PARTIAL) draw what is in range, the
 * format follows file names, and a played game is drawn with its scores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "carcamap/catalog.h"
#include "carcamap/render.h"
#include "carcamap/stats.h"
#include "util_files.h"
#include "util_model.h"
#include "model/map_builder_int.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/cm_svg_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	static const char *const names[] = { "a.svg", "a.html", "p.svg", "p.html", "p.png", "p.pdf", "p4.pdf", "g.svg", "g.html", "plain.svg", "short.svg", "long.svg", "tag.svg" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char p[256];
		snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
		unlink(p);
	}
	return rmdir(tmpdir);
}

static char *tmp(const char *name)
{
	static char p[256];
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	return p;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return b;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static int render(const cm_map *m, cm_render_format fmt, const cm_render_opts *base, const char *out, cm_diags *d)
{
	cm_render_opts o;
	if (base)
		o = *base;
	else
		cm_render_opts_init(&o);
	o.format = fmt;
	o.scale = 36;
	return cm_render_map(m, NULL, &o, out, d);
}

/* b finished as a descriptor's reader finishes it for render
 * --diagnostics (CM_MAP_LOAD_PARTIAL): a map the model's check refuses is
 * still handed out, partial. */
static cm_map *partial(cm_map_builder *b)
{
	cm_map *m = NULL;
	assert_int_equal(cm__map_builder_finish(b, NULL, NULL, NULL, CM__FINISH_PARTIAL, &m), CM_EINVAL);
	assert_true(cm_map_partial(m));
	return m;
}

static const char evil[] = "<script>alert(1)</script>&\"'\x01\x1b\xff\xc3(end";

/* Markup, quotes, control characters and bytes that are not UTF-8 in
 * every kind of name: the SVG parses, says them as text, runs nothing. No
 * finished map holds such names; a partial one (render --diagnostics
 * draws a descriptor the checks refused) does. */
static void test_render_svg__names_escaped(void **state)
{
	(void)state;
	cm_map_builder *b = util_builder(3, 1);
	util_id_set(b, "evil", evil);
	util_kind_set(b, 0, 0, CM_SQ_TOWN);
	util_name_set(b, 0, 0, evil);
	util_marker_add(b, 0, 0, evil);
	util_kind_set(b, 1, 0, CM_SQ_LAND);
	util_print_set(b, 1, 0, CM_N, CM_PRINT_ROAD, 0);
	util_label_set(b, 1, 0, CM_N, evil);
	cm_map *m = partial(b);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_add(d, CM_SEV_ERROR, "CM0201", NULL, 0, 0, NULL, "%s", evil);
	cm_diags_set_square(d, 1, 0);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.diags = d;
	assert_int_equal(render(m, CM_RENDER_SVG, &o, tmp("a.svg"), d), 0);
	assert_int_equal(render(m, CM_RENDER_HTML, &o, tmp("a.html"), d), 0);

	xmlDoc *doc = xmlReadFile(tmp("a.svg"), NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	assert_non_null(doc);
	xmlFreeDoc(doc);
	char *svg = slurp(tmp("a.svg"), NULL);
	assert_null(strstr(svg, "<script"));
	assert_true(count(svg, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&apos;") >= 5);
	assert_non_null(strstr(svg, "\xe2\x90\x81\xe2\x90\x9b\xef\xbf\xbd\xef\xbf\xbd(end")); /* ␁ ␛ and U+FFFD twice */
	free(svg);

	char *html = slurp(tmp("a.html"), NULL);
	assert_int_equal(count(html, "<script"), 2);   /* the data and the page's own script */
	assert_int_equal(count(html, "</script>"), 2); /* no name closes them */
	assert_non_null(strstr(html, "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\u0026\\\"'\\u0001\\u001b\\ufffd"));
	free(html);
	cm_diags_free(d);
	cm_map_free(m);
}

/* What a partial reader leaves (a piece and ferry ends off the grid, an
 * island square of no island, a big-city square of no big city) draws
 * without touching memory it should not (the sanitizer build). Indices
 * out of range the builder refuses at once (test_map). */
static void test_render_svg__partial_model(void **state)
{
	(void)state;
	cm_map_builder *b = util_builder(2, 2);
	util_id_set(b, "partial", NULL);
	util_kind_set(b, 0, 0, CM_SQ_ISLAND);
	util_kind_set(b, 1, 0, CM_SQ_BIGCITY);
	util_kind_set(b, 0, 1, CM_SQ_START);
	cm_feature bf = { .kind = CM_FEAT_CITY, .slots = CM_SLOTS_ALL, .arms = 200 };
	cm_tile_type piece = { .features = &bf, .n_features = 1 };
	assert_int_equal(cm_map_builder_add_bigcity(b, "Off", 0, NULL), 0);
	assert_int_equal(cm_map_builder_add_piece(b, 0, 9, -3, &piece), 0);
	cm_ferry fe = { .x1 = -1, .y1 = 0, .s1 = CM_N, .x2 = 5, .y2 = 5, .s2 = CM_S };
	assert_int_equal(cm_map_builder_add_ferry(b, &fe), 0);
	assert_int_equal(cm_map_builder_set_seam(b, 99), CM_EINVAL); /* no column of the map */
	cm_map *m = partial(b);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_add(d, CM_SEV_WARNING, "CM0201", NULL, 0, 0, NULL, "off the grid");
	cm_diags_set_square(d, 30, 30);
	cm_diags_add(d, CM_SEV_ERROR, "CM0205", NULL, 0, 0, NULL, "on the grid");
	cm_diags_set_square(d, 1, 1);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.diags = d;
	assert_int_equal(render(m, CM_RENDER_SVG, &o, tmp("p.svg"), d), 0);
	assert_int_equal(render(m, CM_RENDER_HTML, &o, tmp("p.html"), d), 0);
	o.scale = 16;
	o.format = CM_RENDER_PNG;
	assert_int_equal(cm_render_map(m, NULL, &o, tmp("p.png"), d), 0);
	o.format = CM_RENDER_PDF;
	assert_int_equal(cm_render_map(m, NULL, &o, tmp("p.pdf"), d), 0);
	o.paper_w_um = 210000;
	o.paper_h_um = 297000;
	assert_int_equal(cm_render_map(m, NULL, &o, tmp("p4.pdf"), d), 0);
	char *svg = slurp(tmp("p.svg"), NULL);
	/* one frame, on the square on the grid; both listed */
	assert_int_equal(count(svg, "class=\"diag\""), 1);
	assert_non_null(strstr(svg, "data-sq=\"1,1\""));
	assert_non_null(strstr(svg, "off the grid"));
	assert_null(strstr(svg, "id=\"seam\""));
	free(svg);
	cm_diags_free(d);
	cm_map_free(m);
}

/* The x of the first text of class cls in svg, or -1. */
static int text_x(const char *svg, const char *cls)
{
	char key[64];
	snprintf(key, sizeof key, "class=\"%s\"", cls);
	const char *c = strstr(svg, key);
	if (!c)
		return -1;
	const char *t = c;
	while (t > svg && strncmp(t, "<text ", 6) != 0)
		t--;
	int x = -1;
	sscanf(t, "<text x=\"%d\"", &x);
	return x;
}

/* A map of four squares, the second a one-piece big city named name
 * (partial: no start squares). */
/* A big-city name too long for its piece goes beside it on a plate with a
 * leader line (never shrunk to 5); a short one sits in it, unless a check
 * id is there: then it moves beside it too. */
static cm_map *one_city(const char *name)
{
	cm_map_builder *b = util_builder(4, 1);
	for (int x = 0; x < 4; x++)
		util_kind_set(b, x, 0, x == 1 ? CM_SQ_BIGCITY : CM_SQ_LAND);
	static cm_feature bf = { .kind = CM_FEAT_CITY, .slots = CM_SLOTS_ALL };
	cm_tile_type piece = { .features = &bf, .n_features = 1 };
	assert_int_equal(cm_map_builder_add_bigcity(b, name, 0, NULL), 0);
	assert_int_equal(cm_map_builder_add_piece(b, 0, 1, 0, &piece), 0);
	return partial(b);
}

static void test_render_svg__bigcity_labels(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	/* the grid starts at x 44: the piece spans 80..116 */
	cm_map *m = one_city("Big");
	assert_int_equal(render(m, CM_RENDER_SVG, NULL, tmp("short.svg"), d), 0);
	char *svg = slurp(tmp("short.svg"), NULL);
	assert_int_equal(text_x(svg, "bigcity-name"), 98);
	assert_null(strstr(svg, "class=\"leader\""));
	free(svg);
	cm_diags_add(d, CM_SEV_ERROR, "CM0208", NULL, 0, 0, NULL, "on the piece");
	cm_diags_set_square(d, 1, 0);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.diags = d;
	assert_int_equal(render(m, CM_RENDER_SVG, &o, tmp("tag.svg"), d), 0);
	svg = slurp(tmp("tag.svg"), NULL);
	assert_non_null(strstr(svg, "data-sq=\"1,0\""));
	assert_true(text_x(svg, "bigcity-name") > 116);
	free(svg);
	cm_map_free(m);
	m = one_city("Ruhrgebiet");
	assert_int_equal(render(m, CM_RENDER_SVG, NULL, tmp("long.svg"), NULL), 0);
	svg = slurp(tmp("long.svg"), NULL);
	assert_true(text_x(svg, "bigcity-name") > 116);
	assert_non_null(strstr(svg, "class=\"leader\""));
	assert_non_null(strstr(svg, "font-size=\"9\" text-anchor=\"middle\" class=\"bigcity-name\">Ruhrgebiet<"));
	free(svg);
	cm_map_free(m);
	cm_diags_free(d);
}

static void test_render_svg__format_names(void **state)
{
	(void)state;
	cm_render_format f;
	assert_int_equal(cm_render_format_of_path("a/b.SVG", &f), 0);
	assert_int_equal(f, CM_RENDER_SVG);
	assert_int_equal(cm_render_format_of_path("x.htm", &f), 0);
	assert_int_equal(f, CM_RENDER_HTML);
	assert_int_equal(cm_render_format_of_path("x.png", &f), 0);
	assert_int_equal(f, CM_RENDER_PNG);
	assert_int_equal(cm_render_format_of_path("board.PDF", &f), 0);
	assert_int_equal(f, CM_RENDER_PDF);
	assert_int_equal(cm_render_format_of_path("x.svg.bak", &f), CM_ENOTFOUND);
	assert_int_equal(cm_render_format_of_path("svg", &f), CM_ENOTFOUND);
	assert_int_equal(cm_render_format_parse("html", &f), 0);
	assert_int_equal(f, CM_RENDER_HTML);
	assert_int_equal(cm_render_format_parse("HTML", &f), CM_EINVAL);
	assert_string_equal(cm_render_format_name(CM_RENDER_SVG), "svg");
}

typedef struct {
	cm_score_item *v;
	size_t n, cap;
} items;

static void keep(void *arg, const cm_score_item *it, size_t n)
{
	items *a = arg;
	for (size_t i = 0; i < n; i++) {
		if (a->n == a->cap) {
			a->cap = a->cap ? 2 * a->cap : 64;
			a->v = realloc(a->v, a->cap * sizeof *a->v);
			assert_non_null(a->v);
		}
		a->v[a->n++] = it[i];
	}
}

/* A played game: followers in player colours, a cross per square never
 * filled, the score table, each scored feature's items as its title, and
 * the key of what its tiles show. */
static void test_render_svg__game(void **state)
{
	(void)state;
	cm_diags *d;
	cm_workspace *w;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
	assert_int_equal(cm_workspace_load(w, "maps/benelux/benelux.xml", d), 0);
	assert_int_equal(cm_workspace_resolve(w, d), 0);
	const cm_map *m = cm_workspace_map(w, 0);
	cm_deck *deck;
	cm_board *b;
	assert_int_equal(cm_play_deck(w, m, d, &deck), 0);
	assert_int_equal(cm_board_new(m, deck, NULL, 3, 5, 0, d, &b), 0);
	items it = { 0 };
	cm_board_set_score_hook(b, keep, &it);
	assert_int_equal(cm_play_game(b, 5, d), 0);
	assert_true(it.n > 0);
	long total = 0;
	for (size_t i = 0; i < it.n; i++)
		for (int p = 0; p < 3; p++)
			if (it.v[i].players & (1u << p))
				total += it.v[i].points;
	long scores = cm_board_score(b, 0) + cm_board_score(b, 1) + cm_board_score(b, 2);
	assert_int_equal(total, scores); /* the hook saw every item */
	cm_render_game g = { b, it.v, it.n, 5 };
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.game = &g;
	assert_int_equal(render(m, CM_RENDER_SVG, &o, tmp("g.svg"), d), 0);
	assert_int_equal(render(m, CM_RENDER_HTML, &o, tmp("g.html"), d), 0);
	char *svg = slurp(tmp("g.svg"), NULL);
	const cm_follower *fl;
	size_t nf = cm_board_followers(b, &fl);
	assert_int_equal(count(svg, "class=\"follower\""), nf + 6); /* and one per player in the key and the table */
	assert_non_null(strstr(svg, "id=\"scores\""));
	char want[64];
	snprintf(want, sizeof want, "class=\"score\">%d<", cm_board_score(b, 2));
	assert_non_null(strstr(svg, want));
	assert_non_null(strstr(svg, "(complete), ")); /* an explained item */
	assert_non_null(strstr(svg, " points to player "));
	assert_non_null(strstr(svg, "id=\"empty\""));
	/* the key of the tiles: each line print the placed tiles show, and
	 * only those; the map without the game has none */
	static const char *const line_prints[][2] = {
		{ "hedge", "field boundary (two fields meet)" }, { "junction", "junction (roads end and meet)" },
		{ "fork", "fork (one road, three ways or more)" }, { "bridge", "bridge (crosses without meeting)" },
		{ "tunnel", "tunnel (a field or city passes over it)" }, { "gate", "city gate (the road ends at the city)" },
		{ "dead", "dead end (the road ends, touching nothing)" },
	};
	const char *tkey = strstr(svg, "What the tiles show");
	assert_non_null(tkey);
	int shown = 0;
	for (size_t i = 0; i < sizeof line_prints / sizeof line_prints[0]; i++) {
		char cls[32], entry[96];
		snprintf(cls, sizeof cls, "class=\"%s\"", line_prints[i][0]);
		snprintf(entry, sizeof entry, "class=\"keyentry\"><title>%s</title>", line_prints[i][1]);
		int drawn = strstr(svg, cls) != NULL && strstr(svg, cls) < tkey;
		assert_int_equal(drawn, strstr(tkey, entry) != NULL);
		shown += drawn;
	}
	assert_true(shown >= 3);
	assert_true(count(tkey, "<title>coat of arms</title>") == (count(svg, "<title>coat of arms</title>") > 1));
	/* its labels are as large as the map key's (10 units), not a tile
	 * sheet's 5, which a picture PNG draws about 3 pixels high */
	const char *label = strstr(tkey, "class=\"keyentry\">");
	assert_non_null(label);
	label = strstr(label, "<text ");
	assert_non_null(label);
	assert_true(strncmp(strstr(label, "font-size=\""), "font-size=\"10\"", 14) == 0);
	o.game = NULL;
	assert_int_equal(render(m, CM_RENDER_SVG, &o, tmp("plain.svg"), d), 0);
	char *plain = slurp(tmp("plain.svg"), NULL);
	assert_null(strstr(plain, "What the tiles show"));
	free(plain);
	free(svg);
	free(it.v);
	cm_board_free(b);
	cm_deck_free(deck);
	cm_workspace_free(w);
	cm_diags_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_svg__names_escaped),
		cmocka_unit_test(test_render_svg__partial_model),
		cmocka_unit_test(test_render_svg__format_names),
		cmocka_unit_test(test_render_svg__bigcity_labels),
		cmocka_unit_test(test_render_svg__game),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
