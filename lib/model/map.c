/* SPDX-License-Identifier: MIT */
/* map.c: the map model (carcamap/map.h): construction and release, names
 * of kinds, derived edge prints and model equality (rule options and
 * their defaults: rules.c). Its one
 * checker is map_check.c, combining two halves map_combine.c; the XML
 * reader and writer are io/map_xml.c. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/map.h"
#include "model/map_int.h"
#include "base/util_int.h"

static const char *const sq_names[CM_SQ_KIND_COUNT] = {
	"none", "land", "start", "town", "bigcity", "waves", "landmark", "island", "half"
};

const char *cm_square_kind_name(cm_square_kind k)
{
	return (unsigned)k < CM_SQ_KIND_COUNT ? sq_names[k] : "?";
}

int cm_square_kind_parse(const char *s, cm_square_kind *out)
{
	for (int i = 0; i < CM_SQ_KIND_COUNT; i++)
		if (strcmp(s, sq_names[i]) == 0) {
			*out = (cm_square_kind)i;
			return 0;
		}
	return CM_EINVAL;
}

static const char sq_chars[CM_SQ_KIND_COUNT + 1] = ".#STB~LIH";

char cm_square_kind_char(cm_square_kind k)
{
	return (unsigned)k < CM_SQ_KIND_COUNT ? sq_chars[k] : '?';
}

int cm_square_kind_from_char(char c, cm_square_kind *out)
{
	const char *p = c ? strchr(sq_chars, c) : NULL;
	if (!p)
		return CM_EINVAL;
	*out = (cm_square_kind)(p - sq_chars);
	return 0;
}

bool cm_square_kind_playable(cm_square_kind k)
{
	return k == CM_SQ_LAND || k == CM_SQ_START || k == CM_SQ_TOWN || k == CM_SQ_ISLAND;
}

const char *cm_print_kind_name(cm_print_kind k)
{
	static const char *const n[4] = { "none", "neutral", "road", "city" };
	return (unsigned)k < 4 ? n[k] : "?";
}

static const char *const about_names[CM_ABOUT_FIELDS] = {
	"title", "author", "licence", "version", "description", "homepage"
};

const char *cm_about_name(int i)
{
	return i >= 0 && i < CM_ABOUT_FIELDS ? about_names[i] : NULL;
}

char **cm_about_field(cm_about *a, int i)
{
	char **f[CM_ABOUT_FIELDS] = { &a->title, &a->author, &a->licence, &a->version, &a->description,
	                              &a->homepage };
	return i >= 0 && i < CM_ABOUT_FIELDS ? f[i] : NULL;
}

const char *cm_about_get(const cm_about *a, int i)
{
	char **f = cm_about_field((cm_about *)a, i);
	return f ? *f : NULL;
}

bool cm_about_present(const cm_about *a)
{
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		if (cm_about_get(a, i))
			return true;
	return false;
}

int cm_about_find(const char *name)
{
	for (int i = 0; name && i < CM_ABOUT_FIELDS; i++)
		if (strcmp(name, about_names[i]) == 0)
			return i;
	return -1;
}

/* A million squares on the largest map: the square holds only what every
 * square needs (map_extra.c keeps the rest). */
_Static_assert(sizeof(cm_square) <= CM_SQUARE_MAX_BYTES, "cm_square is larger than CM_SQUARE_MAX_BYTES");

int cm_map_new(int cols, int rows, cm_map **out)
{
	return cm__map_new_grid(cols, rows, NULL, NULL, out);
}

int cm__map_new_grid(int cols, int rows, const uint8_t *kinds, const unsigned *row_lines, cm_map **out)
{
	return cm__map_new_grid_prints(cols, rows, kinds, NULL, row_lines, out);
}

/* A map of cols x rows squares, zeroed or (zero false) not yet written. */
static int new_grid_alloc(int cols, int rows, bool zero, cm_map **out)
{
	*out = NULL;
	if (cols <= 0 || rows <= 0 || cols > CM_MAP_MAX_GRID || rows > CM_MAP_MAX_GRID)
		return CM_EINVAL;
	cm_map *m = calloc(1, sizeof *m);
	if (!m)
		return CM_ENOMEM;
	m->squares = (zero ? cm_calloc_big : cm_malloc_big)((size_t)cols * (size_t)rows, sizeof *m->squares);
	if (!m->squares) {
		free(m);
		return CM_ENOMEM;
	}
	m->cols = cols;
	m->rows = rows;
	m->setup.followers = 9;
	m->seam = -1;
	cm_rules_default(&m->rules, CM_EDITION_C2);
	*out = m;
	return 0;
}

int cm__map_new_grid_rows(int cols, int rows, cm_map **out)
{
	return new_grid_alloc(cols, rows, true, out);
}

int cm__map_new_grid_unset(int cols, int rows, cm_map **out)
{
	return new_grid_alloc(cols, rows, false, out);
}

int cm__map_new_grid_prints(int cols, int rows, const uint8_t *kinds, const uint8_t *prints,
                            const unsigned *row_lines, cm_map **out)
{
	/* every square written below, before anything can fail */
	int rc = cm__map_new_grid_unset(cols, rows, out);
	if (rc)
		return rc;
	cm_square *sq = (*out)->squares;
	for (int y = 0, i = 0; y < rows; y++) {
		/* whole squares, the common ones without a branch; the prints in
		 * the same pass: a million squares are written once */
		cm_square t = cm__square_blank(0, row_lines ? row_lines[y] : 0);
		for (int x = 0; x < cols; x++)
			sq[i + x] = t;
		if (kinds) /* on the same row, still in the cache */
			for (int x = 0; x < cols; x++)
				sq[i + x].kind = kinds[i + x];
		i += cols;
		if (prints)
			for (int x = 0, k = i - cols; x < cols; x++, k++) {
				uint64_t none;
				if (x + 8 <= cols && (memcpy(&none, prints + k, 8), none == 0)) {
					x += 7; /* eight squares without a print */
					k += 7;
					continue;
				}
				if (prints[k])
					for (int e = 0; e < 4; e++)
						sq[k].print[e].kind = (uint8_t)(prints[k] >> (2 * e) & 3);
			}
	}
	return 0;
}

void cm_map_free(cm_map *m)
{
	if (!m)
		return;
	cm_map_extras_free(m);
	free(m->squares);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		for (size_t k = 0; k < m->bigcities[i].n_pieces; k++)
			cm_tile_type_clear(&m->bigcities[i].pieces[k].tile);
		free(m->bigcities[i].pieces);
		free(m->bigcities[i].name);
	}
	free(m->bigcities);
	for (size_t i = 0; i < m->n_ferries; i++)
		free(m->ferries[i].name);
	free(m->ferries);
	for (size_t i = 0; i < m->n_islands; i++) {
		free(m->islands[i].name);
		free(m->islands[i].title);
	}
	free(m->islands);
	for (size_t i = 0; i < m->n_deck; i++) {
		free(m->deck[i].tileset);
		free(m->deck[i].tile);
	}
	free(m->deck);
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		free(*cm_about_field(&m->about, i));
	free(m->id);
	free(m->name);
	free(m->image);
	free(m->legend);
	free(m->file);
	free(m);
}

/* ---- geometry shared by the reader, the checks and the writer ---- */

const int cm_map_side_dx[4] = { 0, 1, 0, -1 };
const int cm_map_side_dy[4] = { -1, 0, 1, 0 };

bool cm_map_faces_land(const cm_map *m, int x, int y, int s)
{
	const cm_square *n = cm_map_at(m, x + cm_map_side_dx[s], y + cm_map_side_dy[s]);
	return n && (cm_square_kind_playable(n->kind) || n->kind == CM_SQ_BIGCITY);
}

void cm_map_default_prints(cm_map *m)
{
	/* cm_map_faces_land and cm_square_kind_playable as tables over any
	 * byte, the neighbours by index: every square of the grid comes here */
	static const uint8_t land[256] = {
		[CM_SQ_LAND] = 1, [CM_SQ_START] = 1, [CM_SQ_TOWN] = 1, [CM_SQ_ISLAND] = 1, [CM_SQ_BIGCITY] = 1,
	};
	int C = m->cols, R = m->rows;
	cm_square *g = m->squares;
	for (int y = 0; y < R; y++)
		for (int x = 0; x < C; x++) {
			int i = y * C + x;
			cm_square *sq = &g[i];
			if (!cm_square_kind_playable(sq->kind))
				continue;
			const bool faces[4] = { y > 0 && land[g[i - C].kind], x + 1 < C && land[g[i + 1].kind],
				                y + 1 < R && land[g[i + C].kind], x > 0 && land[g[i - 1].kind] };
			for (int s = 0; s < MAX_SIDE; s++)
				if (sq->print[s].kind == CM_PRINT_NONE && !faces[s])
					sq->print[s].kind = CM_PRINT_NEUTRAL;
		}
}

/* ---- equality ---- */

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool tile_eq(const cm_tile_type *a, const cm_tile_type *b)
{
	if (!str_eq(a->id, b->id) || !str_eq(a->name, b->name) || a->n_features != b->n_features ||
	    a->n_contacts != b->n_contacts || a->start != b->start)
		return false;
	for (size_t i = 0; i < a->n_features; i++) {
		const cm_feature *x = &a->features[i], *y = &b->features[i];
		if (x->kind != y->kind || !str_eq(x->id, y->id) || x->slots != y->slots || x->arms != y->arms ||
		    x->cathedral != y->cathedral || x->inn != y->inn || x->good != y->good || x->touches != y->touches)
			return false;
	}
	return a->n_contacts == 0 || memcmp(a->contacts, b->contacts, a->n_contacts * sizeof *a->contacts) == 0;
}

static bool square_eq(const cm_square *a, const cm_square *b)
{
	if (a->kind != b->kind || a->arms != b->arms || a->island != b->island || a->bigcity != b->bigcity)
		return false;
	for (int s = 0; s < MAX_SIDE; s++)
		if (a->print[s].kind != b->print[s].kind || a->print[s].arms != b->print[s].arms)
			return false;
	return true;
}

/* What squares keep beside the grid; no entry is an empty one. Lines are
 * not compared. */
static bool extra_eq(const cm_square_extra *a, const cm_square_extra *b)
{
	static const cm_square_extra none;
	if (!a)
		a = &none;
	if (!b)
		b = &none;
	if (!str_eq(a->name, b->name) || a->n_markers != b->n_markers)
		return false;
	for (size_t i = 0; i < a->n_markers; i++)
		if (!str_eq(a->markers[i], b->markers[i]))
			return false;
	for (int s = 0; s < MAX_SIDE; s++)
		if (!str_eq(a->label[s], b->label[s]))
			return false;
	return true;
}

/* Every entry of a has its like in b, at the same square. */
static bool extras_in(const cm_map *a, const cm_map *b)
{
	for (size_t i = 0; i < cm_map_extra_count(a); i++) {
		const cm_square_extra *x = cm_map_extra_nth(a, i);
		if (!extra_eq(x, cm_map_extra_find(b, x->sq)))
			return false;
	}
	return true;
}

bool cm_map_equal(const cm_map *a, const cm_map *b)
{
	if (a == b)
		return true;
	if (!a || !b || !str_eq(a->id, b->id) || !str_eq(a->name, b->name) || a->cols != b->cols ||
	    a->rows != b->rows || !str_eq(a->image, b->image) || !str_eq(a->legend, b->legend) ||
	    a->n_bigcities != b->n_bigcities || a->n_ferries != b->n_ferries || a->n_islands != b->n_islands ||
	    a->n_deck != b->n_deck)
		return false;
	for (int i = 0; i < a->cols * a->rows; i++)
		if (!square_eq(&a->squares[i], &b->squares[i]))
			return false;
	if (!extras_in(a, b) || !extras_in(b, a))
		return false;
	for (size_t i = 0; i < a->n_bigcities; i++) {
		const cm_bigcity *x = &a->bigcities[i], *y = &b->bigcities[i];
		if (!str_eq(x->name, y->name) || x->n_pieces != y->n_pieces)
			return false;
		for (size_t k = 0; k < x->n_pieces; k++)
			if (x->pieces[k].x != y->pieces[k].x || x->pieces[k].y != y->pieces[k].y ||
			    !tile_eq(&x->pieces[k].tile, &y->pieces[k].tile))
				return false;
	}
	for (size_t i = 0; i < a->n_ferries; i++) {
		const cm_ferry *x = &a->ferries[i], *y = &b->ferries[i];
		if (!str_eq(x->name, y->name) || x->x1 != y->x1 || x->y1 != y->y1 || x->s1 != y->s1 ||
		    x->x2 != y->x2 || x->y2 != y->y2 || x->s2 != y->s2 || x->arms != y->arms)
			return false;
	}
	for (size_t i = 0; i < a->n_islands; i++)
		if (!str_eq(a->islands[i].name, b->islands[i].name) || !str_eq(a->islands[i].title, b->islands[i].title))
			return false;
	for (size_t i = 0; i < a->n_deck; i++) {
		const cm_deck_entry *x = &a->deck[i], *y = &b->deck[i];
		if (!str_eq(x->tileset, y->tileset) || !str_eq(x->tile, y->tile) || x->count != y->count)
			return false;
	}
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		if (!str_eq(cm_about_get(&a->about, i), cm_about_get(&b->about, i)))
			return false;
	const cm_setup *p = &a->setup, *q = &b->setup;
	const cm_rules *r = &a->rules, *s = &b->rules;
	return p->starts_used == q->starts_used && p->tiles_min == q->tiles_min && p->tiles_max == q->tiles_max &&
	       p->followers == q->followers && r->edition == s->edition && r->tiny_city == s->tiny_city &&
	       r->farmers == s->farmers && r->farmers_bigcity == s->farmers_bigcity &&
	       r->town_extra_turn == s->town_extra_turn && r->town_cost == s->town_cost &&
	       r->town_road_bonus == s->town_road_bonus && r->abbey_edge == s->abbey_edge;
}

