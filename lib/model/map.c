/* SPDX-License-Identifier: MIT */
/* map.c: the map model (carcamap/map.h): the accessors of an immutable
 * map, its release, the cache of its content hash, names of kinds and
 * model equality (rule options and their defaults: rules.c). Maps are
 * made by map_builder.c, checked by model_check.c (the model) and
 * map_check.c (the game structure), combined by map_combine.c; the XML
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

char **cm__about_field(cm_about *a, int i)
{
	char **f[CM_ABOUT_FIELDS] = { &a->title, &a->author, &a->licence, &a->version, &a->description,
	                              &a->homepage };
	return i >= 0 && i < CM_ABOUT_FIELDS ? f[i] : NULL;
}

const char *cm_about_get(const cm_about *a, int i)
{
	char **f = cm__about_field((cm_about *)a, i);
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

void cm_map_free(cm_map *m)
{
	if (!m)
		return;
	cm_map_extras_free(m);
	free(m->squares);
	cm__map_grid_free(&m->view);
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
	cm_index_free(&m->island_ix);
	for (size_t i = 0; i < m->n_deck; i++) {
		free(m->deck[i].tileset);
		free(m->deck[i].tile);
	}
	free(m->deck);
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		free(*cm__about_field(&m->about, i));
	free(m->id);
	free(m->name);
	free(m->image);
	free(m->legend);
	free(m->file);
	free(m);
}

/* ---- reading a map ---- */

const char *cm_map_id(const cm_map *m) { return m->id; }
const char *cm_map_name(const cm_map *m) { return m->name; }
int cm_map_cols(const cm_map *m) { return m->cols; }
int cm_map_rows(const cm_map *m) { return m->rows; }
const cm_square *cm_map_at(const cm_map *m, int x, int y) { return cm__map_at(m, x, y); }
const cm_square *cm_map_squares(const cm_map *m) { return m->squares; }
size_t cm_map_bigcity_count(const cm_map *m) { return m->n_bigcities; }
size_t cm_map_ferry_count(const cm_map *m) { return m->n_ferries; }
size_t cm_map_island_count(const cm_map *m) { return m->n_islands; }
size_t cm_map_deck_count(const cm_map *m) { return m->n_deck; }
const cm_setup *cm_map_setup(const cm_map *m) { return &m->setup; }
const cm_rules *cm_map_rules(const cm_map *m) { return &m->rules; }
const cm_about *cm_map_about(const cm_map *m) { return &m->about; }
const char *cm_map_image(const cm_map *m) { return m->image; }
const char *cm_map_legend(const cm_map *m) { return m->legend; }
const char *cm_map_file(const cm_map *m) { return m->file; }
unsigned cm_map_line(const cm_map *m) { return m->line; }
int cm_map_seam(const cm_map *m) { return m->seam; }
bool cm_map_partial(const cm_map *m) { return m->partial; }

const cm_bigcity *cm_map_bigcity(const cm_map *m, size_t i)
{
	return i < m->n_bigcities ? &m->bigcities[i] : NULL;
}

const cm_ferry *cm_map_ferry(const cm_map *m, size_t i)
{
	return i < m->n_ferries ? &m->ferries[i] : NULL;
}

const cm_island *cm_map_island(const cm_map *m, size_t i)
{
	return i < m->n_islands ? &m->islands[i] : NULL;
}

const cm_deck_entry *cm_map_deck_entry(const cm_map *m, size_t i)
{
	return i < m->n_deck ? &m->deck[i] : NULL;
}

const cm_edition *cm_map_printings(const cm_map *m, size_t *n)
{
	*n = m->n_printings;
	return m->n_printings ? m->printings : NULL;
}

/* ---- the content hash's cache (map_struct_int.h) ---- */

bool cm__map_hash_mid_get(const cm_map *m, cm__hash_mid *out)
{
	if (atomic_load_explicit(&m->hash_state, memory_order_acquire) != 2)
		return false;
	*out = m->hash_mid;
	return true;
}

void cm__map_hash_mid_put(const cm_map *m, const cm__hash_mid *mid)
{
	/* the cache is no part of the map's value: written through a cast,
	 * once, by the one thread that moves the state from 0 to 1 (every map
	 * is allocated writable by the builder) */
	cm_map *w = (cm_map *)m;
	int empty = 0;
	if (!atomic_compare_exchange_strong_explicit(&w->hash_state, &empty, 1, memory_order_acq_rel,
	                                             memory_order_relaxed))
		return;
	w->hash_mid = *mid;
	atomic_store_explicit(&w->hash_state, 2, memory_order_release);
}

/* ---- geometry shared by the reader, the checks and the writer ---- */

const int cm_map_side_dx[4] = { 0, 1, 0, -1 };
const int cm_map_side_dy[4] = { -1, 0, 1, 0 };

bool cm_map_faces_land(const cm_map *m, int x, int y, int s)
{
	const cm_square *n = cm__map_at(m, x + cm_map_side_dx[s], y + cm_map_side_dy[s]);
	return n && (cm_square_kind_playable(n->kind) || n->kind == CM_SQ_BIGCITY);
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

