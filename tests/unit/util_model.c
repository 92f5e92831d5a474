/* SPDX-License-Identifier: MIT */
/* util_model.c: model builders and comparisons for unit tests (util_model.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util_model.h"
#include "carcamap/export.h"
#include "carcamap/file.h"

static char *sdup(const char *s)
{
	if (!s)
		return NULL;
	char *p = malloc(strlen(s) + 1);
	if (!p)
		abort();
	strcpy(p, s);
	return p;
}

/* realloc for n elements of es bytes; a test cannot go on without memory */
static void *grow(void *p, size_t n, size_t es)
{
	void *q = realloc(p, n * es);
	if (!q)
		abort();
	return q;
}

cm_slots util_slots(const char *names)
{
	cm_slots m = 0;
	if (cm_slots_parse(names, &m) != 0)
		abort(); /* a typo in a test */
	return m;
}

cm_feature *util_feature_add(cm_tile_type *t, cm_feature_kind kind, const char *id, cm_slots slots)
{
	t->features = grow(t->features, t->n_features + 1, sizeof *t->features);
	cm_feature *f = &t->features[t->n_features++];
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->id = sdup(id);
	f->slots = slots;
	return f;
}

void util_contact_add(cm_tile_type *t, uint32_t mask)
{
	t->contacts = grow(t->contacts, t->n_contacts + 1, sizeof *t->contacts);
	t->contacts[t->n_contacts++] = mask;
}

cm_tile_type *util_tile_add(cm_tileset *ts, const char *id, int c1, int c2, int c3)
{
	ts->tiles = grow(ts->tiles, ts->n_tiles + 1, sizeof *ts->tiles);
	cm_tile_type *t = &ts->tiles[ts->n_tiles++];
	memset(t, 0, sizeof *t);
	t->id = sdup(id);
	t->count[0] = c1;
	t->count[1] = c2;
	t->count[2] = c3;
	return t;
}

cm_tileset *util_tileset_new(const char *id, const char *name, bool base, int t1, int t2, int t3)
{
	cm_tileset *ts = calloc(1, sizeof *ts);
	if (!ts)
		abort();
	ts->id = sdup(id);
	ts->name = sdup(name);
	ts->base = base;
	ts->total[0] = t1;
	ts->total[1] = t2;
	ts->total[2] = t3;
	return ts;
}

int util_tileset_derive(cm_tileset *ts)
{
	int rc = 0;
	for (size_t i = 0; i < ts->n_tiles; i++)
		if (cm_tile_type_derive(&ts->tiles[i]) != 0)
			rc = CM_EINVAL;
	return rc;
}

void util_marker_add(cm_map_builder *b, int x, int y, const char *text)
{
	if (cm_map_builder_add_marker(b, x, y, text))
		abort();
}

void util_name_set(cm_map_builder *b, int x, int y, const char *name)
{
	if (cm_map_builder_set_square_name(b, x, y, name))
		abort();
}

size_t util_marker_count(const cm_map *m, int x, int y)
{
	size_t n;
	cm_map_square_markers(m, x, y, &n);
	return n;
}

const char *util_marker(const cm_map *m, int x, int y, size_t k)
{
	size_t n;
	const char *const *v = cm_map_square_markers(m, x, y, &n);
	return k < n ? v[k] : NULL;
}

void util_label_set(cm_map_builder *b, int x, int y, cm_side s, const char *label)
{
	if (cm_map_builder_set_print_label(b, x, y, s, label))
		abort();
}

void util_island_add(cm_map_builder *b, const char *name, const char *title)
{
	if (cm_map_builder_add_island(b, name, title, 0, NULL))
		abort();
}

void util_deck_add(cm_map_builder *b, const char *set, const char *tile, int count)
{
	cm_deck_entry e = { (char *)set, (char *)tile, count, 0 };
	if (cm_map_builder_add_deck_entry(b, &e))
		abort();
}

cm_map_builder *util_builder(int cols, int rows)
{
	cm_map_builder *b = NULL;
	if (cm_map_builder_new(cols, rows, &b))
		abort();
	return b;
}

cm_map_builder *util_from(const cm_map *m)
{
	cm_map_builder *b = NULL;
	if (cm_map_builder_from(m, &b))
		abort();
	return b;
}

cm_map *util_finish(cm_map_builder *b)
{
	cm_map *m = NULL;
	if (cm_map_builder_finish(b, NULL, NULL, NULL, &m))
		abort();
	return m;
}

void util_kind_set(cm_map_builder *b, int x, int y, cm_square_kind kind)
{
	if (cm_map_builder_set_kind(b, x, y, kind))
		abort();
}

void util_square_set(cm_map_builder *b, int x, int y, const cm_square *sq)
{
	if (cm_map_builder_set_square(b, x, y, sq))
		abort();
}

void util_print_set(cm_map_builder *b, int x, int y, cm_side s, cm_print_kind kind, int arms)
{
	if (cm_map_builder_set_print(b, x, y, s, kind, arms))
		abort();
}

cm_map *util_with_deck_entry(const cm_map *m, size_t i, const char *set, const char *tile, int count)
{
	cm_map_builder *b = util_from(m);
	cm_map_builder_clear_deck(b);
	for (size_t k = 0; k < cm_map_deck_count(m); k++) {
		cm_deck_entry e = *cm_map_deck_entry(m, k);
		if (k == i) {
			e.tileset = set ? (char *)set : e.tileset;
			e.tile = tile ? (char *)tile : e.tile;
			e.count = count;
		}
		if (cm_map_builder_add_deck_entry(b, &e))
			abort();
	}
	return util_finish(b);
}

void util_setup_starts(cm_map_builder *b, int starts_used)
{
	cm_setup su = { starts_used, 0, 0, 9, 0 };
	cm_map_builder_set_setup(b, &su);
}

void util_id_set(cm_map_builder *b, const char *id, const char *name)
{
	if (cm_map_builder_set_id(b, id) || cm_map_builder_set_name(b, name))
		abort();
}

cm_tileset *util_tileset_base(void)
{
	cm_tileset *ts = util_tileset_new("base", "Base game", true, 7, -1, -1);
	cm_tile_type *t = util_tile_add(ts, "D", 4, 4, 4);
	t->start = true;
	t->name = sdup("city N, road W-E");
	util_feature_add(t, CM_FEAT_CITY, "c1", CM_SIDE_SLOTS(CM_N));
	util_feature_add(t, CM_FEAT_ROAD, "r1", CM_SIDE_MID(CM_E) | CM_SIDE_MID(CM_W));
	util_feature_add(t, CM_FEAT_FIELD, "f1", CM_SLOT(CM_E, 0) | CM_SLOT(CM_W, 2));
	util_feature_add(t, CM_FEAT_FIELD, "f2",
	            CM_SLOT(CM_E, 2) | CM_SIDE_SLOTS(CM_S) | CM_SLOT(CM_W, 0));
	t->features[2].touches = 1u << 0;
	util_contact_add(t, (1u << 0) | (1u << 1));
	t = util_tile_add(ts, "E", 5, 5, 5);
	util_feature_add(t, CM_FEAT_CITY, "c1", CM_SIDE_SLOTS(CM_N));
	util_feature_add(t, CM_FEAT_FIELD, "f1", CM_SIDE_SLOTS(CM_E) | CM_SIDE_SLOTS(CM_S) | CM_SIDE_SLOTS(CM_W));
	t->features[0].arms = 1;
	t->features[1].touches = 1u << 0;
	t = util_tile_add(ts, "B", 4, 4, 3);
	util_feature_add(t, CM_FEAT_MONASTERY, "m1", 0);
	util_feature_add(t, CM_FEAT_FIELD, "f1", CM_SLOTS_ALL);
	util_tileset_derive(ts);
	return ts;
}

cm_tileset *util_tileset_inns(void)
{
	cm_tileset *ts = util_tileset_new("inns", NULL, false, -1, 2, 2);
	cm_tile_type *t = util_tile_add(ts, "IC-01", 0, 2, 2);
	util_feature_add(t, CM_FEAT_CITY, "c1", CM_SIDE_SLOTS(CM_N) | CM_SIDE_SLOTS(CM_E));
	t->features[0].cathedral = true;
	t->features[0].good = CM_GOOD_WINE;
	t->features[0].arms = 2;
	util_feature_add(t, CM_FEAT_ROAD, "r1", CM_SIDE_MID(CM_S));
	t->features[1].inn = true;
	util_feature_add(t, CM_FEAT_FIELD, NULL, CM_SLOT(CM_S, 0) | CM_SIDE_SLOTS(CM_W));
	util_feature_add(t, CM_FEAT_FIELD, "f2", CM_SLOT(CM_S, 2));
	cm_tile_type_derive(t);
	return ts;
}

cm_map_builder *util_map_one_square_builder(const char *id, const char *set)
{
	cm_map_builder *b = util_builder(1, 1);
	util_id_set(b, id, id);
	util_kind_set(b, 0, 0, CM_SQ_START);
	cm_map_builder_default_prints(b);
	util_setup_starts(b, 1);
	util_deck_add(b, set, NULL, -1);
	return b;
}

cm_map *util_map_one_square(const char *id, const char *set)
{
	return util_finish(util_map_one_square_builder(id, set));
}

cm_map_builder *util_map_sample_builder(void)
{
	cm_map_builder *b = util_builder(6, 5);
	util_id_set(b, "sample", "Sample Land");
	if (cm_map_builder_set_image(b, "sample.png") || cm_map_builder_set_legend(b, "legend.xml"))
		abort();
	cm_setup su = { 2, 10, 20, 7, 0 };
	cm_map_builder_set_setup(b, &su);
	/* every rule option differs from a new builder's default, so that a
	 * reader that drops one is caught */
	cm_rules ru;
	cm_rules_default(&ru, CM_EDITION_C1);
	ru.farmers = CM_FARMERS_C1;
	ru.farmers_bigcity = false;
	ru.town_extra_turn = true;
	ru.town_cost = true;
	ru.town_road_bonus = true;
	ru.abbey_edge = false;
	cm_map_builder_set_rules(b, &ru);
	/* rows 1..3, cols 1..4 are land; row 0 waves; the rest is not printed */
	for (int y = 1; y <= 3; y++)
		for (int x = 1; x <= 4; x++)
			util_kind_set(b, x, y, CM_SQ_LAND);
	for (int x = 0; x < 6; x++)
		util_kind_set(b, x, 0, CM_SQ_WAVES);
	util_kind_set(b, 1, 1, CM_SQ_START);
	util_name_set(b, 1, 1, "Hamburg");
	util_kind_set(b, 4, 3, CM_SQ_START);
	util_name_set(b, 4, 3, "München");
	util_kind_set(b, 2, 2, CM_SQ_TOWN);
	util_name_set(b, 2, 2, "Kassel");
	util_marker_add(b, 2, 2, "chip:castle");
	util_marker_add(b, 2, 2, "chip:\"quoted\"");
	util_kind_set(b, 3, 1, CM_SQ_LANDMARK);
	/* islands at (5,1) and (5,2) */
	util_island_add(b, "Sylt", "Sylt (Nordfriesland)");
	util_island_add(b, NULL, NULL);
	cm_square s = *cm_map_builder_square(b, 5, 1);
	s.kind = CM_SQ_ISLAND;
	s.island = 0;
	s.arms = 1;
	util_square_set(b, 5, 1, &s);
	s = *cm_map_builder_square(b, 5, 2);
	s.kind = CM_SQ_ISLAND;
	s.island = 1;
	util_square_set(b, 5, 2, &s);
	/* big city over (1,3) and (2,3) */
	if (cm_map_builder_add_bigcity(b, "Berlin", 0, NULL))
		abort();
	for (int k = 0; k < 2; k++) {
		cm_tile_type t;
		memset(&t, 0, sizeof t);
		s = *cm_map_builder_square(b, 1 + k, 3);
		s.kind = CM_SQ_BIGCITY;
		s.bigcity = 0;
		util_square_set(b, 1 + k, 3, &s);
		util_feature_add(&t, CM_FEAT_CITY, "c", CM_SLOTS_ALL & ~CM_SIDE_SLOTS(k ? CM_E : CM_W));
		util_feature_add(&t, CM_FEAT_FIELD, NULL, CM_SIDE_SLOTS(k ? CM_E : CM_W));
		t.features[0].arms = (uint8_t)k;
		t.features[0].cathedral = k == 1;
		t.features[0].good = k ? CM_GOOD_CLOTH : CM_GOOD_NONE;
		t.features[1].touches = 1;
		if (k)
			util_contact_add(&t, 3);
		cm_tile_type_derive(&t);
		if (cm_map_builder_add_piece(b, 0, 1 + k, 3, &t))
			abort();
		cm_tile_type_clear(&t);
	}
	/* edge prints */
	util_print_set(b, 1, 1, CM_W, CM_PRINT_ROAD, 0);
	util_label_set(b, 1, 1, CM_W, "to Denmark");
	util_print_set(b, 4, 1, CM_E, CM_PRINT_CITY, 2);
	util_print_set(b, 4, 1, CM_N, CM_PRINT_NEUTRAL, 0);
	util_print_set(b, 4, 2, CM_E, CM_PRINT_ROAD, 0);
	/* a none square that still carries a marker is kept */
	util_marker_add(b, 0, 4, "note");
	/* ferry from (4,2) E to the island (5,2) */
	cm_ferry f = { "Sylt ferry", 4, 2, CM_E, 5, 2, CM_W, 1, 0 };
	if (cm_map_builder_add_ferry(b, &f))
		abort();
	util_deck_add(b, "base", NULL, -1);
	util_deck_add(b, "inns", "IC-01", 2);
	return b;
}

cm_map *util_map_sample(void)
{
	return util_finish(util_map_sample_builder());
}

/* ---- comparison ---- */

static int differ(char *why, size_t n, const char *what)
{
	snprintf(why, n, "%s differs", what);
	return 0;
}

static int str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

#define SAME_INT(x, y, what)                                 \
	do {                                                     \
		if ((long long)(x) != (long long)(y))                \
			return differ(why, n, what);       \
	} while (0)
#define SAME_STR(x, y, what)                                 \
	do {                                                     \
		if (!str_eq((x), (y)))                               \
			return differ(why, n, what);       \
	} while (0)

static int tile_eq(const cm_tile_type *a, const cm_tile_type *b, char *why, size_t n)
{
	SAME_STR(a->id, b->id, "tile id");
	SAME_STR(a->name, b->name, "tile name");
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		SAME_INT(a->count[e], b->count[e], "tile count");
	SAME_INT(a->start, b->start, "start flag");
	SAME_INT(a->n_features, b->n_features, "feature count");
	for (size_t i = 0; i < a->n_features; i++) {
		const cm_feature *f = &a->features[i], *g = &b->features[i];
		SAME_INT(f->kind, g->kind, "feature kind");
		SAME_STR(f->id, g->id, "feature id");
		SAME_INT(f->slots, g->slots, "feature slots");
		SAME_INT(f->arms, g->arms, "feature arms");
		SAME_INT(f->cathedral, g->cathedral, "cathedral");
		SAME_INT(f->inn, g->inn, "inn");
		SAME_INT(f->good, g->good, "good");
		SAME_INT(f->touches, g->touches, "touches");
	}
	SAME_INT(a->n_contacts, b->n_contacts, "contact count");
	for (size_t i = 0; i < a->n_contacts; i++)
		SAME_INT(a->contacts[i], b->contacts[i], "contact");
	SAME_INT(a->n_markers, b->n_markers, "marker count");
	for (size_t i = 0; i < a->n_markers; i++)
		SAME_STR(a->markers[i], b->markers[i], "marker");
	if (memcmp(a->edge, b->edge, sizeof a->edge) || memcmp(a->slot_feature, b->slot_feature, sizeof a->slot_feature))
		return differ(why, n, "derived edges");
	return 1;
}

int util_tileset_equal(const cm_tileset *a, const cm_tileset *b, char *why, size_t n)
{
	SAME_STR(a->id, b->id, "tile set id");
	SAME_STR(a->name, b->name, "tile set name");
	SAME_INT(a->base, b->base, "base flag");
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		SAME_INT(a->total[e], b->total[e], "declared total");
	SAME_INT(a->n_tiles, b->n_tiles, "tile count");
	for (size_t i = 0; i < a->n_tiles; i++)
		if (!tile_eq(&a->tiles[i], &b->tiles[i], why, n))
			return 0;
	return 1;
}

int util_map_equal(const cm_map *a, const cm_map *b, char *why, size_t n)
{
	SAME_STR(cm_map_id(a), cm_map_id(b), "map id");
	SAME_STR(cm_map_name(a), cm_map_name(b), "map name");
	SAME_STR(cm_map_image(a), cm_map_image(b), "image");
	SAME_STR(cm_map_legend(a), cm_map_legend(b), "legend");
	SAME_INT(cm_map_cols(a), cm_map_cols(b), "cols");
	SAME_INT(cm_map_rows(a), cm_map_rows(b), "rows");
	const cm_setup *su = cm_map_setup(a), *sv = cm_map_setup(b);
	SAME_INT(su->starts_used, sv->starts_used, "start squares used");
	SAME_INT(su->tiles_min, sv->tiles_min, "tiles min");
	SAME_INT(su->tiles_max, sv->tiles_max, "tiles max");
	SAME_INT(su->followers, sv->followers, "followers");
	const cm_rules *ra = cm_map_rules(a), *rb = cm_map_rules(b);
	SAME_INT(ra->edition, rb->edition, "edition");
	SAME_INT(ra->tiny_city, rb->tiny_city, "tiny city");
	SAME_INT(ra->farmers, rb->farmers, "farmers");
	SAME_INT(ra->farmers_bigcity, rb->farmers_bigcity, "farmers big city");
	SAME_INT(ra->town_extra_turn, rb->town_extra_turn, "town extra turn");
	SAME_INT(ra->town_cost, rb->town_cost, "town cost");
	SAME_INT(ra->town_road_bonus, rb->town_road_bonus, "town road bonus");
	SAME_INT(ra->abbey_edge, rb->abbey_edge, "abbey edge");
	for (int y = 0; y < cm_map_rows(a); y++)
		for (int x = 0; x < cm_map_cols(a); x++) {
			const cm_square *s = cm_map_at(a, x, y), *t = cm_map_at(b, x, y);
			SAME_INT(s->kind, t->kind, "square kind");
			SAME_STR(cm_map_square_name(a, x, y), cm_map_square_name(b, x, y), "square name");
			SAME_INT(s->arms, t->arms, "square arms");
			SAME_INT(s->island, t->island, "square island");
			SAME_INT(s->bigcity, t->bigcity, "square big city");
			size_t na, nb;
			const char *const *ma = cm_map_square_markers(a, x, y, &na);
			const char *const *mb = cm_map_square_markers(b, x, y, &nb);
			SAME_INT(na, nb, "marker count");
			for (size_t k = 0; k < na; k++)
				SAME_STR(ma[k], mb[k], "marker");
			for (int e = 0; e < 4; e++) {
				SAME_INT(s->print[e].kind, t->print[e].kind, "edge print kind");
				SAME_INT(s->print[e].arms, t->print[e].arms, "edge print arms");
				SAME_STR(cm_map_print_label(a, x, y, (cm_side)e), cm_map_print_label(b, x, y, (cm_side)e),
				         "edge print label");
			}
		}
	SAME_INT(cm_map_island_count(a), cm_map_island_count(b), "island count");
	for (size_t i = 0; i < cm_map_island_count(a); i++) {
		SAME_STR(cm_map_island(a, i)->name, cm_map_island(b, i)->name, "island name");
		SAME_STR(cm_map_island(a, i)->title, cm_map_island(b, i)->title, "island title");
	}
	SAME_INT(cm_map_bigcity_count(a), cm_map_bigcity_count(b), "big city count");
	for (size_t i = 0; i < cm_map_bigcity_count(a); i++) {
		const cm_bigcity *c = cm_map_bigcity(a, i), *d = cm_map_bigcity(b, i);
		SAME_STR(c->name, d->name, "big city name");
		SAME_INT(c->n_pieces, d->n_pieces, "piece count");
		for (size_t k = 0; k < c->n_pieces; k++) {
			SAME_INT(c->pieces[k].x, d->pieces[k].x, "piece x");
			SAME_INT(c->pieces[k].y, d->pieces[k].y, "piece y");
			if (!tile_eq(&c->pieces[k].tile, &d->pieces[k].tile, why, n))
				return 0;
		}
	}
	SAME_INT(cm_map_ferry_count(a), cm_map_ferry_count(b), "ferry count");
	for (size_t i = 0; i < cm_map_ferry_count(a); i++) {
		const cm_ferry *f = cm_map_ferry(a, i), *g = cm_map_ferry(b, i);
		SAME_STR(f->name, g->name, "ferry name");
		SAME_INT(f->x1, g->x1, "ferry x1");
		SAME_INT(f->y1, g->y1, "ferry y1");
		SAME_INT(f->s1, g->s1, "ferry side1");
		SAME_INT(f->x2, g->x2, "ferry x2");
		SAME_INT(f->y2, g->y2, "ferry y2");
		SAME_INT(f->s2, g->s2, "ferry side2");
		SAME_INT(f->arms, g->arms, "ferry arms");
	}
	SAME_INT(cm_map_deck_count(a), cm_map_deck_count(b), "deck size");
	for (size_t i = 0; i < cm_map_deck_count(a); i++) {
		const cm_deck_entry *e = cm_map_deck_entry(a, i), *f = cm_map_deck_entry(b, i);
		SAME_STR(e->tileset, f->tileset, "deck tile set");
		SAME_STR(e->tile, f->tile, "deck tile");
		SAME_INT(e->count, f->count, "deck count");
	}
	return 1;
}

/* ---- temporary directories ---- */

char *util_tempdir(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof tmpl, "%s/carcamap-test-XXXXXX", base && *base ? base : "/tmp");
	char *d = mkdtemp(tmpl);
	return d ? sdup(d) : NULL;
}

static void rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		chmod(path, 0700);
		DIR *dir = opendir(path);
		struct dirent *e;
		while (dir && (e = readdir(dir))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char sub[4096];
			snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
			rm_rf(sub);
		}
		if (dir)
			closedir(dir);
		rmdir(path);
	} else {
		unlink(path);
	}
}

void util_rmtree(char *dir)
{
	if (dir)
		rm_rf(dir);
	free(dir);
}

int util_export_json(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, FILE *f)
{
	cm_export_opts o;
	cm_export_opts_init(&o);
	o.sets = sets;
	o.n_sets = n_sets;
	return cm_export_json(m, &o, f, NULL);
}

int util_export_bin(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, unsigned major, unsigned char **out,
                    size_t *len)
{
	cm_export_opts o;
	cm_export_opts_init(&o);
	o.sets = sets;
	o.n_sets = n_sets;
	o.bin_major = major;
	return cm_export_bin_mem(m, &o, out, len);
}

typedef struct {
	const cm_map *m;
	const cm_export_opts *o;
	cm_diags *d;
} tmx_job;

static int write_tmx(FILE *f, void *arg)
{
	const tmx_job *j = arg;
	return cm_export_tmx(j->m, j->o, f, j->d);
}

int util_export_tmx(const cm_map *m, const char *tmx_path, const char *kinds_tsx, cm_diags *d)
{
	cm_export_opts o;
	cm_export_opts_init(&o);
	char *ref = cm_path_relative(tmx_path, kinds_tsx);
	if (!ref)
		return CM_ENOMEM;
	o.kinds = ref;
	tmx_job j = { m, &o, d };
	int rc = cm_file_write(tmx_path, write_tmx, &j, d);
	free(ref);
	return rc;
}
