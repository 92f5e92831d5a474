/* SPDX-License-Identifier: MIT */
/* test_scene_tile.c: a drawn tile tells the truth about its features
 * (cm_scene_tile), for every tile type of every bundled set in every
 * rotation: drawn by cairo and read back pixel by pixel, each city is a
 * shape of its own and each field an area of its own; roads that cross
 * without meeting are drawn as a bridge and roads that meet as a junction;
 * every coat of arms, cathedral, inn, good and marker is drawn and named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/palette.h"
#include "carcamap/scene.h"
#include "carcamap/tileset.h"
#include "util_files.h"
#include "util_model.h"

#define S CM_SCENE_CELL
#define PITCH 40     /* units from one drawn tile to the next */
#define PX 4         /* pixels a unit */
#define MIN_AREA 64  /* pixels (2 by 2 units): smaller specks are no shape */

typedef struct {
	cm_tileset **sets;
	size_t n_sets;
	const cm_tile_type **tiles;
	size_t n_tiles;
} bundle;

static void bundle_load(bundle *b)
{
	memset(b, 0, sizeof *b);
	size_t n;
	char **names = util_list_dir("maps/tilesets", ".xml", &n);
	b->sets = calloc(n, sizeof *b->sets);
	assert_non_null(b->sets);
	for (size_t i = 0; i < n; i++) {
		char path[512];
		snprintf(path, sizeof path, "maps/tilesets/%s", names[i]);
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		assert_int_equal(cm_tileset_load_file(path, d, &b->sets[b->n_sets]), 0);
		cm_diags_free(d);
		b->n_tiles += b->sets[b->n_sets++]->n_tiles;
	}
	util_names_free(names);
	assert_true(b->n_sets >= 8);
	b->tiles = calloc(b->n_tiles, sizeof *b->tiles);
	assert_non_null(b->tiles);
	size_t k = 0;
	for (size_t i = 0; i < b->n_sets; i++)
		for (size_t t = 0; t < b->sets[i]->n_tiles; t++)
			b->tiles[k++] = &b->sets[i]->tiles[t];
}

static void bundle_free(bundle *b)
{
	for (size_t i = 0; i < b->n_sets; i++)
		cm_tileset_free(b->sets[i]);
	free(b->sets);
	free(b->tiles);
}

/* ---- what the features say ---- */

static int n_kind(const cm_tile_type *t, cm_feature_kind k)
{
	int n = 0;
	for (size_t i = 0; i < t->n_features; i++)
		n += t->features[i].kind == k && (k != CM_FEAT_CITY || t->features[i].slots);
	return n;
}

static int in_contact(const cm_tile_type *t, size_t a, size_t b)
{
	uint32_t m = (1u << a) | (1u << b);
	for (size_t i = 0; i < t->n_contacts; i++)
		if ((t->contacts[i] & m) == m)
			return 1;
	return 0;
}

/* Whether slot bit x lies strictly between a and b going clockwise. */
static int between(int a, int b, int x)
{
	return ((x - a + 12) % 12) > 0 && ((x - a + 12) % 12) < ((b - a + 12) % 12);
}

static int bits(cm_slots m, int *out)
{
	int n = 0;
	for (int b = 0; b < 12; b++)
		if ((m >> b) & 1)
			out[n++] = b;
	return n;
}

/* Cities drawn across each other (one over the other, N-S and W-E): the
 * lower one shows on both sides of the upper. */
static int crossings(const cm_tile_type *t)
{
	int n = 0;
	for (size_t i = 0; i < t->n_features; i++)
		for (size_t k = i + 1; k < t->n_features; k++) {
			const cm_feature *a = &t->features[i], *b = &t->features[k];
			if (a->kind != CM_FEAT_CITY || b->kind != CM_FEAT_CITY)
				continue;
			cm_slots ns = CM_SIDE_SLOTS(CM_N) | CM_SIDE_SLOTS(CM_S), we = CM_SIDE_SLOTS(CM_W) | CM_SIDE_SLOTS(CM_E);
			n += (a->slots == ns && b->slots == we) || (a->slots == we && b->slots == ns);
		}
	return n;
}

/* Whether road i runs between two edge slots across the line between two
 * slots of feature k, which it does not meet: the edge order alone says
 * they cross, so one must bridge the other. */
static int crosses(const cm_tile_type *t, size_t i, size_t k)
{
	int e[12], o[12], n;
	const cm_feature *f = &t->features[k];
	if (k == i || t->features[i].kind != CM_FEAT_ROAD || bits(t->features[i].slots, e) != 2 ||
	    (f->kind != CM_FEAT_ROAD && f->kind != CM_FEAT_CITY) || in_contact(t, i, k))
		return 0;
	n = bits(f->slots, o);
	int in = 0, out = 0;
	for (int j = 0; j < n; j++) {
		if (o[j] == e[0] || o[j] == e[1])
			continue;
		if (between(e[0], e[1], o[j]))
			in = 1;
		else
			out = 1;
	}
	return in && out;
}

static int must_bridge(const cm_tile_type *t)
{
	for (size_t i = 0; i < t->n_features; i++)
		for (size_t k = 0; k < t->n_features; k++)
			if (crosses(t, i, k))
				return 1;
	return 0;
}

/* Cities a road crosses over: each shows on both sides of the road. */
static int cut_cities(const cm_tile_type *t)
{
	int n = 0;
	for (size_t i = 0; i < t->n_features; i++)
		for (size_t k = 0; k < t->n_features; k++)
			n += t->features[k].kind == CM_FEAT_CITY && crosses(t, i, k);
	return n;
}

/* Whether the tile has a field on both sides of a road's end at the edge
 * that nothing else parts: the road runs in a tunnel there. */
static int tunnels_allowed(const cm_tile_type *t)
{
	for (int s = 0; s < 4; s++) {
		int a = t->slot_feature[3 * s], m = t->slot_feature[3 * s + 1];
		if (a >= 0 && m >= 0 && a == t->slot_feature[3 * s + 2] && t->features[m].kind == CM_FEAT_ROAD)
			return 1;
	}
	return 0;
}

/* Whether two roads of the tile meet (a contact between roads). */
static int roads_meet(const cm_tile_type *t)
{
	for (size_t i = 0; i < t->n_features; i++)
		for (size_t k = i + 1; k < t->n_features; k++)
			if (t->features[i].kind == CM_FEAT_ROAD && t->features[k].kind == CM_FEAT_ROAD && in_contact(t, i, k))
				return 1;
	return 0;
}

/* ---- the drawing read back ---- */

/* The tile without what is drawn over its shapes (coats of arms,
 * cathedrals, inns, goods, markers other than a crop field's): those are
 * checked by name; here the shapes are counted. */
static cm_tile_type bare(const cm_tile_type *t, cm_feature *f)
{
	cm_tile_type b = *t;
	memcpy(f, t->features, t->n_features * sizeof *f);
	for (size_t i = 0; i < t->n_features; i++) {
		f[i].arms = 0;
		f[i].cathedral = false;
		f[i].inn = false;
		f[i].good = CM_GOOD_NONE;
	}
	b.features = f;
	b.n_markers = 0;
	for (size_t m = 0; m < t->n_markers; m++)
		if (strncmp(t->markers[m], "crop-circle", 11) == 0) {
			b.markers = &t->markers[m];
			b.n_markers = 1;
			break;
		}
	return b;
}

typedef struct {
	int w, h;
	uint8_t *px; /* RGB */
} raster;

/* Draws every tile bare in its four rotations (two tiles a row, four
 * turns each: the PNG stays under its largest side) and reads it back. */
static void draw_all(const bundle *b, const char *dir, raster *r)
{
	cm_scene *s;
	assert_int_equal(cm_scene_new(&s), 0);
	int rows = (int)(b->n_tiles + 1) / 2;
	cm_scene_set_size(s, 8 * PITCH, rows * PITCH);
	cm_scene_rect(s, 0, 0, 8 * PITCH, rows * PITCH, &(cm_style){ .fill = CM_PAINT_RGB(255, 255, 255) });
	for (size_t i = 0; i < b->n_tiles; i++) {
		cm_feature f[64];
		assert_true(b->tiles[i]->n_features <= 64);
		cm_tile_type t = bare(b->tiles[i], f);
		for (int rot = 0; rot < 4; rot++)
			cm_scene_tile(s, ((int)i % 2 * 4 + rot) * PITCH, (int)i / 2 * PITCH, &t, rot);
	}
	char path[512];
	snprintf(path, sizeof path, "%s/tiles.png", dir);
	cm_scene_opts o;
	cm_scene_opts_init(&o);
	o.format = CM_SCENE_PNG;
	o.px_per_cell = S * PX;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_scene_write(s, &o, path, d), 0);
	cm_diags_free(d);
	cm_scene_free(s);
	png_image im;
	memset(&im, 0, sizeof im);
	im.version = PNG_IMAGE_VERSION;
	assert_true(png_image_begin_read_from_file(&im, path));
	im.format = PNG_FORMAT_RGB;
	r->w = (int)im.width;
	r->h = (int)im.height;
	assert_int_equal(r->w, 8 * PITCH * PX);
	r->px = malloc(PNG_IMAGE_SIZE(im));
	assert_non_null(r->px);
	assert_true(png_image_finish_read(&im, NULL, r->px, 0, NULL));
}

/* The shapes of colour c in the drawn square at (x0, y0): 4-connected
 * areas of exactly that colour of MIN_AREA pixels or more. */
static int shapes(const raster *r, int x0, int y0, cm_rgb c, int *stack, uint8_t *seen)
{
	int side = S * PX, n = 0;
	memset(seen, 0, (size_t)side * side);
#define AT(i, j) (r->px + 3 * ((size_t)(y0 + (j)) * r->w + x0 + (i)))
#define IS(i, j) (AT(i, j)[0] == c.r && AT(i, j)[1] == c.g && AT(i, j)[2] == c.b)
	for (int j0 = 0; j0 < side; j0++)
		for (int i0 = 0; i0 < side; i0++) {
			if (seen[j0 * side + i0] || !IS(i0, j0))
				continue;
			int ns = 0, area = 0;
			seen[j0 * side + i0] = 1;
			stack[ns++] = j0 * side + i0;
			while (ns) {
				int v = stack[--ns], i = v % side, j = v / side;
				area++;
				const int di[4] = { 1, -1, 0, 0 }, dj[4] = { 0, 0, 1, -1 };
				for (int k = 0; k < 4; k++) {
					int x = i + di[k], y = j + dj[k];
					if (x < 0 || y < 0 || x >= side || y >= side || seen[y * side + x] || !IS(x, y))
						continue;
					seen[y * side + x] = 1;
					stack[ns++] = y * side + x;
				}
			}
			n += area >= MIN_AREA;
		}
#undef IS
#undef AT
	return n;
}

/* Each city its own shape (the lower of two crossing cities, or a city a
 * road crosses over, in two; one it passes under in a tunnel stays whole),
 * each field its own area: for every bundled tile in every rotation. */
static void test_scene_tile__separate_features_look_separate(void **state)
{
	(void)state;
	bundle b;
	bundle_load(&b);
	char *dir = util_tempdir();
	raster r;
	draw_all(&b, dir, &r);
	int side = S * PX, *stack = malloc(sizeof(int) * (size_t)side * side), bad = 0;
	uint8_t *seen = malloc((size_t)side * side);
	assert_non_null(stack);
	assert_non_null(seen);
	for (size_t i = 0; i < b.n_tiles; i++) {
		const cm_tile_type *t = b.tiles[i];
		int want_c = n_kind(t, CM_FEAT_CITY) + crossings(t) + (tunnels_allowed(t) ? 0 : cut_cities(t)), want_f = n_kind(t, CM_FEAT_FIELD);
		for (int rot = 0; rot < 4; rot++) {
			int x0 = ((int)i % 2 * 4 + rot) * PITCH * PX, y0 = (int)i / 2 * PITCH * PX;
			int nc = shapes(&r, x0, y0, cm_palette_feature(CM_FEAT_CITY), stack, seen);
			int nf = shapes(&r, x0, y0, cm_palette_feature(CM_FEAT_FIELD), stack, seen);
			if (nc != want_c || nf != want_f) {
				fprintf(stderr, "tile %s turned %d: %d city shapes (features say %d), %d field areas (features say %d)\n",
				        t->id, rot, nc, want_c, nf, want_f);
				bad++;
			}
		}
	}
	free(stack);
	free(seen);
	free(r.px);
	util_rmtree(dir);
	bundle_free(&b);
	assert_int_equal(bad, 0);
}

/* ---- the drawing's words ---- */

static char *tile_svg(const cm_tile_type *t, int rot, const char *dir)
{
	cm_scene *s;
	assert_int_equal(cm_scene_new(&s), 0);
	cm_scene_set_size(s, S, S);
	cm_scene_tile(s, 0, 0, t, rot);
	char path[512];
	snprintf(path, sizeof path, "%s/tile.svg", dir);
	cm_scene_opts o;
	cm_scene_opts_init(&o);
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_scene_write(s, &o, path, d), 0);
	cm_diags_free(d);
	cm_scene_free(s);
	return util_read_file(path, NULL);
}

static int count(const char *text, const char *what)
{
	int n = 0;
	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* Roads that cross without meeting are a bridge (or a tunnel), roads that
 * meet a junction; every print is drawn with its name as often as the
 * tile has it. */
static void test_scene_tile__bridges_junctions_and_prints_named(void **state)
{
	(void)state;
	bundle b;
	bundle_load(&b);
	char *dir = util_tempdir();
	int bad = 0, bridged = 0, met = 0;
	for (size_t i = 0; i < b.n_tiles; i++) {
		const cm_tile_type *t = b.tiles[i];
		int arms = 0, cathedrals = 0, inns = 0, goods[4] = { 0 };
		for (size_t k = 0; k < t->n_features; k++) {
			arms += t->features[k].arms;
			cathedrals += t->features[k].cathedral;
			inns += t->features[k].inn;
			if ((unsigned)t->features[k].good < 4)
				goods[t->features[k].good]++;
		}
		for (int rot = 0; rot < 4; rot++) {
			char *svg = tile_svg(t, rot, dir);
			int bridge = count(svg, "class=\"bridge\"") + (tunnels_allowed(t) ? count(svg, "class=\"tunnel\"") : 0);
			int junction = count(svg, "class=\"junction\"");
			if (!must_bridge(t) != !bridge || !roads_meet(t) != !junction) {
				fprintf(stderr, "tile %s turned %d: %s bridge, %s junction\n", t->id, rot, bridge ? "a" : "no",
				        junction ? "a" : "no");
				bad++;
			}
			bridged += must_bridge(t) && bridge;
			met += roads_meet(t) && junction;
			int got_arms = count(svg, "<title>coat of arms</title>"), got_cath = count(svg, "<title>cathedral</title>");
			int got_inns = count(svg, "<title>inn</title>");
			int got_goods[4] = { 0, count(svg, "<title>wine</title>"), count(svg, "<title>grain</title>"),
				             count(svg, "<title>cloth</title>") };
			if (got_arms != arms || got_cath != cathedrals || got_inns != inns || got_goods[1] != goods[1] ||
			    got_goods[2] != goods[2] || got_goods[3] != goods[3]) {
				fprintf(stderr, "tile %s turned %d: arms %d/%d cathedrals %d/%d inns %d/%d goods %d/%d %d/%d %d/%d\n",
				        t->id, rot, got_arms, arms, got_cath, cathedrals, got_inns, inns, got_goods[1], goods[1],
				        got_goods[2], goods[2], got_goods[3], goods[3]);
				bad++;
			}
			for (size_t m = 0; m < t->n_markers; m++) {
				char want[160];
				snprintf(want, sizeof want, "<title>marker %s", t->markers[m]);
				if (count(svg, want) != 1) {
					fprintf(stderr, "tile %s turned %d: marker %s not drawn named once\n", t->id, rot, t->markers[m]);
					bad++;
				}
			}
			free(svg);
		}
	}
	util_rmtree(dir);
	bundle_free(&b);
	assert_true(bridged >= 4 * 3); /* GM-06, GM-04, TB-24 at least */
	assert_true(met >= 4 * 5);
	assert_int_equal(bad, 0);
}

/* A road across a city it has no contact with: over it on a bridge, or
 * under it in a tunnel where the road runs in one up to the city (the
 * fields on both sides of its end are one: AM-12), never both. */
static void test_scene_tile__tunnel_under_a_city_is_no_bridge(void **state)
{
	(void)state;
	bundle b;
	bundle_load(&b);
	char *dir = util_tempdir();
	int bad = 0, tunnels = 0, bridges = 0;
	for (size_t i = 0; i < b.n_tiles; i++) {
		const cm_tile_type *t = b.tiles[i];
		if (!cut_cities(t))
			continue;
		for (int rot = 0; rot < 4; rot++) {
			char *svg = tile_svg(t, rot, dir);
			int bridge = count(svg, "class=\"bridge\""), tunnel = count(svg, "class=\"tunnel\"");
			if (tunnels_allowed(t) ? bridge || !tunnel : !bridge || tunnel) {
				fprintf(stderr, "tile %s turned %d: %d bridges, %d tunnels\n", t->id, rot, bridge, tunnel);
				bad++;
			}
			tunnels += tunnels_allowed(t) && tunnel;
			bridges += !tunnels_allowed(t) && bridge;
			free(svg);
		}
	}
	util_rmtree(dir);
	bundle_free(&b);
	assert_true(tunnels >= 4); /* AM-12 */
	assert_true(bridges >= 4); /* GM-04 */
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scene_tile__separate_features_look_separate),
		cmocka_unit_test(test_scene_tile__bridges_junctions_and_prints_named),
		cmocka_unit_test(test_scene_tile__tunnel_under_a_city_is_no_bridge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
