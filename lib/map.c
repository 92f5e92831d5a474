/* map.c: the map model (carcamap/map.h): construction, names of kinds, rule
 * defaults. The descriptor reader and the structural checks live here too. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/map.h"
#include "util_int.h"

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

bool cm_square_kind_playable(cm_square_kind k)
{
	return k == CM_SQ_LAND || k == CM_SQ_START || k == CM_SQ_TOWN || k == CM_SQ_ISLAND;
}

const char *cm_print_kind_name(cm_print_kind k)
{
	static const char *const n[4] = { "none", "neutral", "road", "city" };
	return (unsigned)k < 4 ? n[k] : "?";
}

void cm_rules_default(cm_rules *r, cm_edition e)
{
	memset(r, 0, sizeof *r);
	r->edition = e;
	r->tiny_city = e == CM_EDITION_C1;
	r->farmers = CM_FARMERS_C2;
	r->farmers_bigcity = true;
	r->abbey_edge = true;
}

int cm_map_new(int cols, int rows, cm_map **out)
{
	*out = NULL;
	if (cols <= 0 || rows <= 0 || cols > 1024 || rows > 1024)
		return CM_EINVAL;
	cm_map *m = calloc(1, sizeof *m);
	if (!m)
		return CM_ENOMEM;
	m->squares = calloc((size_t)cols * (size_t)rows, sizeof *m->squares);
	if (!m->squares) {
		free(m);
		return CM_ENOMEM;
	}
	m->cols = cols;
	m->rows = rows;
	for (int i = 0; i < cols * rows; i++) {
		m->squares[i].island = -1;
		m->squares[i].bigcity = -1;
	}
	m->setup.followers = 9;
	cm_rules_default(&m->rules, CM_EDITION_C2);
	*out = m;
	return 0;
}

void cm_map_free(cm_map *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->cols * m->rows; i++) {
		cm_square *s = &m->squares[i];
		free(s->name);
		for (size_t k = 0; k < s->n_markers; k++)
			free(s->markers[k]);
		free(s->markers);
		for (int e = 0; e < 4; e++)
			free(s->print[e].label);
	}
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
	for (size_t i = 0; i < m->n_islands; i++)
		free(m->islands[i].name);
	free(m->islands);
	for (size_t i = 0; i < m->n_deck; i++) {
		free(m->deck[i].tileset);
		free(m->deck[i].tile);
	}
	free(m->deck);
	free(m->id);
	free(m->name);
	free(m->image);
	free(m->legend);
	free(m->file);
	free(m);
}
