/* SPDX-License-Identifier: MIT */
/* test_tmx.c: the Tiled reader (carcamap/tmx.h) and the tile notation it
 * carries pieces in: every bundled map and the full sample exported and
 * read back equal; the squares layer in each format Tiled writes; and the
 * one diagnostic, with its line, object and square, for what carcamap
 * cannot read (zstd, infinite maps, other tilesets, broken objects). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "carcamap/carcamap.h"
#include "util_files.h"
#include "util_model.h"
#include "base/util_int.h"
#include "model/tilenote_int.h"

/* ---- a small hand-written TMX: 4 x 3, a town, a road print ---- */

static const char head[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<map version=\"1.8\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"4\" height=\"3\" "
	"tilewidth=\"32\" tileheight=\"32\" infinite=\"%s\">\n"
	" <properties>\n"
	"  <property name=\"id\" value=\"small\"/>\n"
	"  <property name=\"name\" value=\"Small\"/>\n"
	" </properties>\n"
	" <tileset firstgid=\"1\" source=\"%s\"/>\n"
	" <layer id=\"1\" name=\"squares\" width=\"4\" height=\"3\">\n"
	"  %s\n"
	" </layer>\n";
/* none land land none / land start town none / none land land none */
static const uint32_t gids[12] = { 1, 2, 2, 1, 2, 3, 4, 1, 1, 2, 2, 1 };
static const char objects[] =
	" <objectgroup id=\"2\" name=\"prints-road\">\n"
	"  <object id=\"1\" name=\"to Sea\" x=\"96\" y=\"32\">\n"
	"   <properties><property name=\"arms\" type=\"int\" value=\"1\"/></properties>\n"
	"   <polyline points=\"0,0 0,32\"/>\n"
	"  </object>\n"
	" </objectgroup>\n"
	" <objectgroup id=\"3\" name=\"names\">\n"
	"  <object id=\"2\" x=\"64\" y=\"32\" width=\"32\" height=\"32\"><text>Town</text></object>\n"
	" </objectgroup>\n";

static char *tmx_text(const char *infinite, const char *tileset, const char *data, const char *extra)
{
	size_t n = sizeof head + strlen(infinite) + strlen(tileset) + strlen(data) + strlen(extra) + 64;
	char *s = malloc(n);
	assert_non_null(s);
	int k = snprintf(s, n, head, infinite, tileset, data);
	assert_true(k > 0 && (size_t)k < n);
	snprintf(s + k, n - (size_t)k, "%s</map>\n", extra);
	return s;
}

static int load(const char *text, cm_diags *d, cm_map **m)
{
	return cm_tmx_load_memory(text, strlen(text), "t.tmx", d, m);
}

static char *b64(const unsigned char *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = malloc(n / 3 * 4 + 8), *q = o;
	assert_non_null(o);
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		*q++ = a[v >> 18 & 63];
		*q++ = a[v >> 12 & 63];
		*q++ = i + 1 < n ? a[v >> 6 & 63] : '=';
		*q++ = i + 2 < n ? a[v & 63] : '=';
	}
	*q = '\0';
	return o;
}

/* The gids little-endian, compressed as zlib (wbits 15) or gzip (31). */
static char *data_b64(int wbits)
{
	unsigned char raw[48], z[256];
	for (int i = 0; i < 12; i++)
		for (int k = 0; k < 4; k++)
			raw[4 * i + k] = (unsigned char)(gids[i] >> (8 * k));
	if (!wbits)
		return b64(raw, sizeof raw);
	z_stream s;
	memset(&s, 0, sizeof s);
	assert_int_equal(deflateInit2(&s, 9, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY), Z_OK);
	s.next_in = raw;
	s.avail_in = sizeof raw;
	s.next_out = z;
	s.avail_out = sizeof z;
	assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
	size_t n = s.total_out;
	deflateEnd(&s);
	return b64(z, n);
}

static void expect_small(const cm_map *m, const char *text)
{
	assert_int_equal(cm_map_cols(m), 4);
	assert_int_equal(cm_map_rows(m), 3);
	for (int i = 0; i < 12; i++)
		assert_int_equal(cm_map_at(m, i % 4, i / 4)->kind, (int)gids[i] - 1);
	assert_string_equal(cm_map_id(m), "small");
	assert_string_equal(cm_map_square_name(m, 2, 1), "Town");
	const cm_edge_print *p = &cm_map_at(m, 2, 1)->print[CM_E];
	assert_int_equal(p->kind, CM_PRINT_ROAD);
	assert_int_equal(p->arms, 1);
	assert_string_equal(cm_map_print_label(m, 2, 1, CM_E), "to Sea");
	unsigned line = 1;
	for (const char *c = text; c < strstr(text, "<object id=\"1\""); c++)
		line += *c == '\n';
	assert_int_equal(cm_map_print_line(m, 2, 1, CM_E), line);
	assert_int_equal(cm_map_at(m, 1, 0)->print[CM_N].kind, CM_PRINT_NEUTRAL); /* the default */
	assert_int_equal(cm_map_setup(m)->starts_used, 1);
}

static void test_tmx__every_layer_format_tiled_writes(void **state)
{
	(void)state;
	char *z = data_b64(15), *g = data_b64(31), *raw = data_b64(0);
	char xml[512] = "<data>", csv[128] = "<data encoding=\"csv\">\n";
	for (int i = 0; i < 12; i++) {
		char t[48];
		snprintf(t, sizeof t, "<tile gid=\"%u\"/>", (unsigned)gids[i]);
		strcat(xml, t);
		snprintf(t, sizeof t, "%u%s", (unsigned)gids[i], i == 11 ? "\n" : i % 4 == 3 ? ",\n" : ",");
		strcat(csv, t);
	}
	strcat(xml, "</data>");
	strcat(csv, "</data>");
	char *forms[5];
	forms[0] = cm_asprintf("%s", csv);
	forms[1] = cm_asprintf("<data encoding=\"base64\">\n   %s\n  </data>", raw);
	forms[2] = cm_asprintf("<data encoding=\"base64\" compression=\"zlib\">%s</data>", z);
	forms[3] = cm_asprintf("<data encoding=\"base64\" compression=\"gzip\">%s</data>", g);
	forms[4] = cm_asprintf("%s", xml);
	for (int f = 0; f < 5; f++) {
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		char *t = tmx_text("0", "../tilesets/carcamap-kinds.tsx", forms[f], objects);
		cm_map *m = NULL;
		int rc = load(t, d, &m);
		if (rc)
			fail_msg("layer form %d: rc %d: %s", f, rc, cm_diags_count(d) ? cm_diags_get(d, 0)->message : "");
		assert_int_equal(cm_diags_count(d), 0);
		expect_small(m, t);
		cm_map_free(m);
		free(t);
		free(forms[f]);
		cm_diags_free(d);
	}
	free(z);
	free(g);
	free(raw);
}

/* One refusal: rc, exactly one diagnostic of this id on this line, whose
 * message holds want. */
static void expect_refusal(const char *text, const char *id, unsigned line, const char *want)
{
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *m = NULL;
	assert_int_equal(load(text, d, &m), CM_EINVAL);
	assert_null(m);
	bool found = false;
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if (g->rule && strcmp(g->rule, id) == 0 && g->line == line && strstr(g->message, want))
			found = true;
	}
	if (!found) {
		char *t = util_diags_text(d);
		fail_msg("want %s line %u \"%s\", got:\n%s", id, line, want, t);
	}
	cm_diags_free(d);
}

/* Tiled keeps a tile's flips and rotation in the gid's four high bits
 * (horizontal, vertical, diagonal, hexagonal 120 degrees): every one, and
 * all at once, leaves the kind as it is; bit 27 is part of the tile id. */
/* A tileset's firstgid starts at 1: 0 is CM0705 (gid 0 is "no tile"). */
static void test_tmx__firstgid_zero_refused(void **state)
{
	(void)state;
	char csv[512] = "<data encoding=\"csv\">";
	for (int i = 0; i < 12; i++) {
		char t[16];
		snprintf(t, sizeof t, "%s%u", i ? "," : "", (unsigned)gids[i]);
		strcat(csv, t);
	}
	strcat(csv, "</data>");
	char *t = tmx_text("0", "../tilesets/carcamap-kinds.tsx", csv, objects);
	char *at = strstr(t, "firstgid=\"1\"");
	assert_non_null(at);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *m = NULL;
	assert_int_equal(load(t, d, &m), 0); /* firstgid 1: the near miss */
	cm_map_free(m);
	m = NULL;
	at[strlen("firstgid=\"")] = '0';
	assert_int_not_equal(load(t, d, &m), 0);
	assert_null(m);
	bool said = false;
	for (size_t i = 0; i < cm_diags_count(d); i++)
		said |= cm_diags_get(d, i)->rule && strcmp(cm_diags_get(d, i)->rule, "CM0705") == 0;
	assert_true(said);
	free(t);
	cm_diags_free(d);
}

static void test_tmx__gid_flags_are_not_the_kind(void **state)
{
	(void)state;
	static const uint32_t flags[6] = { 0x80000000u, 0x40000000u, 0x20000000u, 0x10000000u, 0xF0000000u, 0 };
	char csv[512] = "<data encoding=\"csv\">";
	for (int i = 0; i < 12; i++) {
		char t[24];
		snprintf(t, sizeof t, "%s%u", i ? "," : "", (unsigned)(gids[i] | flags[i % 6]));
		strcat(csv, t);
	}
	strcat(csv, "</data>");
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char *t = tmx_text("0", "../tilesets/carcamap-kinds.tsx", csv, objects);
	cm_map *m = NULL;
	if (load(t, d, &m) != 0)
		fail_msg("flagged gids refused: %s", cm_diags_count(d) ? cm_diags_get(d, 0)->message : "");
	expect_small(m, t);
	cm_map_free(m);
	free(t);
	/* just past the flags: bit 27 makes another tile, which the kinds
	 * tileset does not have */
	char *bad = cm_asprintf("<data encoding=\"csv\">1,%u,2,1,2,3,4,1,1,2,2,1</data>", 0x08000002u);
	t = tmx_text("0", "../tilesets/carcamap-kinds.tsx", bad, objects);
	m = NULL;
	assert_int_equal(load(t, d, &m), CM_EINVAL);
	assert_null(m);
	free(t);
	free(bad);
	cm_diags_free(d);
}

/* Objects on the map's right and bottom edges: a print on the east side
 * of the last column (x = width in pixels) and on the south side of the
 * last row belongs to those squares; a point exactly on the edge lies
 * outside the map (CM0201), one just inside it on the last square. */
static void test_tmx__objects_on_the_right_and_bottom_edges(void **state)
{
	(void)state;
	const char *land = "<data encoding=\"csv\">2,2,2,2,2,3,2,2,2,2,2,2</data>";
	const char *edge_prints =
		" <objectgroup id=\"2\" name=\"prints-road\">\n"
		"  <object id=\"1\" x=\"128\" y=\"32\"><polyline points=\"0,0 0,32\"/></object>\n"
		"  <object id=\"2\" x=\"64\" y=\"96\"><polyline points=\"0,0 32,0\"/></object>\n"
		" </objectgroup>\n"
		" <objectgroup id=\"3\" name=\"markers\">\n"
		"  <object id=\"3\" name=\"east\" x=\"127.5\" y=\"40\"><point/></object>\n"
		"  <object id=\"4\" name=\"south\" x=\"40\" y=\"95.5\"><point/></object>\n"
		" </objectgroup>\n";
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	char *t = tmx_text("0", "../tilesets/carcamap-kinds.tsx", land, edge_prints);
	cm_map *m = NULL;
	if (load(t, d, &m) != 0)
		fail_msg("edge objects refused: %s", cm_diags_count(d) ? cm_diags_get(d, 0)->message : "");
	assert_int_equal(cm_map_at(m, 3, 1)->print[CM_E].kind, CM_PRINT_ROAD);
	assert_int_equal(cm_map_at(m, 2, 2)->print[CM_S].kind, CM_PRINT_ROAD);
	assert_int_equal(cm_map_at(m, 2, 1)->print[CM_E].kind, CM_PRINT_NONE); /* an inner side: no print */
	assert_int_equal(util_marker_count(m, 3, 1), 1);
	assert_int_equal(util_marker_count(m, 1, 2), 1);
	cm_map_free(m);
	free(t);
	/* exactly on the edge: outside */
	static const char *const outside[2] = {
		" <objectgroup id=\"3\" name=\"markers\">\n  <object id=\"3\" name=\"east\" x=\"128\" y=\"40\"><point/></object>\n"
		" </objectgroup>\n",
		" <objectgroup id=\"3\" name=\"markers\">\n  <object id=\"4\" name=\"south\" x=\"40\" y=\"96\"><point/></object>\n"
		" </objectgroup>\n",
	};
	for (int k = 0; k < 2; k++) {
		t = tmx_text("0", "../tilesets/carcamap-kinds.tsx", land, outside[k]);
		expect_refusal(t, "CM0201", 12, "outside the 4 x 3 map");
		free(t);
	}
	cm_diags_free(d);
}

static void test_tmx__what_tiled_can_say_and_carcamap_cannot_read(void **state)
{
	(void)state;
	char *csv = cm_asprintf("<data encoding=\"csv\">1,2,2,1,2,3,4,1,1,2,2,1</data>");
	char *t = tmx_text("0", "../tilesets/carcamap-kinds.tsx",
	                   "<data encoding=\"base64\" compression=\"zstd\">KLUv/QBYAAA=</data>", objects);
	expect_refusal(t, "CM0702", 9, "Tile Layer Format");
	free(t);
	t = tmx_text("1", "../tilesets/carcamap-kinds.tsx", csv, "");
	expect_refusal(t, "CM0701", 2, "untick Infinite");
	free(t);
	t = tmx_text("0", "terrain.tsx", csv, "");
	expect_refusal(t, "CM0704", 9, "Replace Tileset");
	free(t);
	t = tmx_text("0", "carcamap-kinds.tsx", "<data encoding=\"base64\">AAA*</data>", "");
	expect_refusal(t, "CM0703", 9, "not valid base64");
	free(t);
	t = tmx_text("0", "carcamap-kinds.tsx", "<data encoding=\"base64\" compression=\"zlib\">AAAA</data>", "");
	expect_refusal(t, "CM0703", 9, "does not decompress");
	free(t);
	t = tmx_text("0", "carcamap-kinds.tsx", "<data encoding=\"csv\">1,2,2,1,2,3,4,1,1,2,2</data>", "");
	expect_refusal(t, "CM0703", 9, "holds 11 tiles");
	free(t);
	t = tmx_text("0", "carcamap-kinds.tsx", "<data encoding=\"csv\">1,2,2,1,2,3,4,1,1,2,2,12</data>", "");
	expect_refusal(t, "CM0704", 9, "tile 11 of carcamap-kinds.tsx");
	free(t);
	/* objects: the line, id, name and square */
	t = tmx_text("0", "carcamap-kinds.tsx", csv,
	             " <objectgroup id=\"3\" name=\"names\">\n"
	             "  <object id=\"7\" name=\"A\" x=\"64\" y=\"32\" width=\"32\" height=\"32\"/>\n"
	             "  <object id=\"8\" name=\"B\" x=\"70\" y=\"40\"><point/></object>\n"
	             " </objectgroup>\n");
	expect_refusal(t, "CM0202", 13, "object 8 'B' on layer 'names': square (2,1) is already named \"A\" by object 7");
	free(t);
	t = tmx_text("0", "carcamap-kinds.tsx", csv,
	             " <objectgroup id=\"3\" name=\"markers\">\n"
	             "  <object id=\"9\" name=\"wine\" x=\"500\" y=\"40\"><point/></object>\n"
	             " </objectgroup>\n");
	expect_refusal(t, "CM0201", 12, "object 9 'wine' on layer 'markers': lies at pixel (500,40), outside");
	free(t);
	t = tmx_text("0", "carcamap-kinds.tsx", csv,
	             " <objectgroup id=\"3\" name=\"prints-city\">\n"
	             "  <object id=\"4\" x=\"64\" y=\"32\"><polyline points=\"0,0 0,32\"/></object>\n"
	             " </objectgroup>\n");
	expect_refusal(t, "CM0203", 12, "object 4 on layer 'prints-city': lies between squares (1,1) and (2,1)");
	free(t);
	t = tmx_text("0", "carcamap-kinds.tsx", csv,
	             " <objectgroup id=\"3\" name=\"bigcities\">\n"
	             "  <object id=\"5\" name=\"Rome\" x=\"32\" y=\"0\"><polygon points=\"0,0 32,0 32,32 0,32\"/></object>\n"
	             " </objectgroup>\n"
	             " <objectgroup id=\"4\" name=\"pieces\">\n"
	             "  <object id=\"6\" x=\"32\" y=\"0\" width=\"32\" height=\"32\">\n"
	             "   <properties><property name=\"features\" value=\"city[Nw Nm] id=c1 ; tower[]\"/></properties>\n"
	             "  </object>\n"
	             " </objectgroup>\n");
	expect_refusal(t, "CM0209", 16, "object 6 on layer 'pieces': the piece on square (1,0): features: unknown "
	                                "feature kind \"tower\"");
	free(t);
	t = tmx_text("0", "carcamap-kinds.tsx", csv, "");
	char *p = strstr(t, "orthogonal");
	memcpy(p, "isometric", 9);
	memmove(p + 9, p + 10, strlen(p + 10) + 1);
	expect_refusal(t, "CM0701", 2, "isometric map");
	free(t);
	free(csv);
}

/* A layer moved in Tiled (its offset) moves its objects with it. */
static char *offset_objects(const char *attrs)
{
	return cm_asprintf(" <group id=\"9\" name=\"g\" offsetx=\"16\">\n <objectgroup id=\"2\" name=\"prints-road\" offsetx=\"16\">\n"
	                   "  <object id=\"1\" name=\"to Sea\"%s x=\"64\" y=\"32\">\n"
	                   "   <properties><property name=\"arms\" type=\"int\" value=\"1\"/></properties>\n"
	                   "   <polyline points=\"0,0 0,32\"/>\n  </object>\n </objectgroup>\n </group>\n"
	                   " <objectgroup id=\"3\" name=\"names\">\n"
	                   "  <object id=\"2\" x=\"64\" y=\"32\" width=\"32\" height=\"32\"><text>Town</text></object>\n"
	                   " </objectgroup>\n",
	                   attrs);
}

/* A layer moved in Tiled (its offset, and its group's) moves its objects
 * with it; a rotated object is refused, not misread. */
static void test_tmx__layer_offsets_move_objects(void **state)
{
	(void)state;
	char *csv = cm_asprintf("<data encoding=\"csv\">1,2,2,1,2,3,4,1,1,2,2,1</data>");
	/* the print object 32 pixels left of its side, its layers 32 pixels right */
	char *ex = offset_objects("");
	char *t = tmx_text("0", "carcamap-kinds.tsx", csv, ex);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *m = NULL;
	assert_int_equal(load(t, d, &m), 0);
	expect_small(m, t);
	cm_map_free(m);
	cm_diags_free(d);
	free(t);
	free(ex);
	ex = offset_objects(" rotation=\"9\"");
	t = tmx_text("0", "carcamap-kinds.tsx", csv, ex);
	expect_refusal(t, "CM0705", 13, "is rotated (9 degrees)");
	free(t);
	free(ex);
	free(csv);
}

static void test_tmx__foreign_layers_are_named_not_read(void **state)
{
	(void)state;
	char *csv = cm_asprintf("<data encoding=\"csv\">1,2,2,1,2,3,4,1,1,2,2,1</data>");
	char *t = tmx_text("0", "carcamap-kinds.tsx", csv,
	                   " <objectgroup id=\"3\" name=\"notes\">\n"
	                   "  <object id=\"9\" name=\"todo\" x=\"5\" y=\"5\"/>\n"
	                   " </objectgroup>\n");
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_map *m = NULL;
	assert_int_equal(load(t, d, &m), 0);
	assert_int_equal(cm_diags_count(d), 1);
	assert_string_equal(cm_diags_get(d, 0)->rule, "CM0706");
	assert_int_equal(cm_diags_get(d, 0)->line, 11);
	cm_map_free(m);
	cm_diags_free(d);
	free(t);
	free(csv);
}

/* Every map of tests/fixtures/map/good and maps/: exported, read back,
 * equal to the original model. */
static void round_trip_dir(const char *dir, int *count)
{
	size_t n = 0;
	char **names = util_list_dir(dir, ".xml", &n);
	char *tmp = util_tempdir();
	assert_non_null(tmp);
	for (size_t i = 0; i < n; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		cm_file_kind k = cm_file_detect(path, d);
		cm_map *m = NULL;
		cm_map_load_opts lo;
		cm_map_load_opts_init(&lo);
		lo.flags = CM_MAP_LOAD_IMAGE;
		if (k != CM_FILE_MAP || cm_map_load(path, &lo, d, &m) != 0) {
			cm_diags_free(d);
			continue;
		}
		char out[512];
		snprintf(out, sizeof out, "%s/x.tmx", tmp);
		if (util_export_tmx(m, out, "carcamap-kinds.tsx", d) != 0)
			fail_msg("%s: export: %s", path, cm_diags_get(d, 0)->message);
		cm_map *b = NULL;
		if (cm_tmx_load_file(out, d, &b) != 0) {
			char *t = util_diags_text(d);
			fail_msg("%s: read back:\n%s", path, t);
		}
		/* TMX keeps no image: the map without one */
		cm_map_builder *mb = util_from(m);
		assert_int_equal(cm_map_builder_set_image(mb, NULL), 0);
		assert_int_equal(cm_map_builder_set_legend(mb, NULL), 0);
		cm_map_free(m);
		m = util_finish(mb);
		if (!cm_map_equal(m, b))
			fail_msg("%s: the map read back from TMX differs", path);
		cm_map_free(b);
		cm_map_free(m);
		remove(out);
		cm_diags_free(d);
		(*count)++;
	}
	assert_int_equal(rmdir(tmp), 0);
	free(tmp);
	util_names_free(names);
}

static void test_tmx__maps_come_back_equal(void **state)
{
	(void)state;
	int n = 0;
	round_trip_dir("tests/fixtures/map/good", &n);
	static const char *const bundled[] = { "maps/germany", "maps/carca-isles", "maps/usa", "maps/nordics",
		                                   "maps/taiwan", "maps/british-isles" };
	for (size_t i = 0; i < sizeof bundled / sizeof *bundled; i++)
		round_trip_dir(bundled[i], &n);
	assert_true(n >= 8);
}

static void test_tmx__tile_notation_round_trip(void **state)
{
	(void)state;
	static const char *const notes[] = {
		"city[En Em Es] id=c1 ; road[Wm] id=r1 inn ; field[Nw Nm Ne Se Sm Sw Ws Wn] id=f1 touches=c1 ; contact[c1 r1]",
		"city[Nw Nm Ne Ws Wm Wn] id=c1 arms=2 cathedral good=wine ; field[En Em Es Se Sm Sw] id=f1 touches=c1",
		"monastery[] id=m1 ; field[Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn] id=f1",
	};
	for (size_t i = 0; i < 3; i++) {
		cm_tile_type t;
		char err[128];
		assert_int_equal(cm_tilenote_parse(notes[i], &t, err, sizeof err), 0);
		char *back = cm_tilenote_format(&t);
		assert_string_equal(back, notes[i]);
		free(back);
		cm_tile_type_clear(&t);
	}
	/* default ids by kind, as the scenario notation gives them */
	cm_tile_type t;
	char err[128];
	assert_int_equal(cm_tilenote_parse("road[Nm Sm] ; field[Nw Ws Wm Wn Sw] ; field[Ne En Em Es Se]", &t, err, sizeof err), 0);
	assert_string_equal(t.features[0].id, "r1");
	assert_string_equal(t.features[2].id, "f2");
	cm_tile_type_clear(&t);
	assert_int_equal(cm_tilenote_parse("city[Nw Nm Ne] touches=x", &t, err, sizeof err), CM_EINVAL);
	assert_non_null(strstr(err, "touches=x names no feature"));
	assert_int_equal(cm_tilenote_parse("city[Nw Nq]", &t, err, sizeof err), CM_EINVAL);
	assert_non_null(strstr(err, "bad slot list"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmx__every_layer_format_tiled_writes),
		cmocka_unit_test(test_tmx__gid_flags_are_not_the_kind),
		cmocka_unit_test(test_tmx__firstgid_zero_refused),
		cmocka_unit_test(test_tmx__objects_on_the_right_and_bottom_edges),
		cmocka_unit_test(test_tmx__what_tiled_can_say_and_carcamap_cannot_read),
		cmocka_unit_test(test_tmx__layer_offsets_move_objects),
		cmocka_unit_test(test_tmx__foreign_layers_are_named_not_read),
		cmocka_unit_test(test_tmx__maps_come_back_equal),
		cmocka_unit_test(test_tmx__tile_notation_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
