/* SPDX-License-Identifier: MIT */
/* map_builder.c: the one way a map is made (carcamap/map.h "building a
 * map"). A builder holds the map under construction and refuses at once
 * what no map may hold at that place (a square off the grid, a kind, print
 * kind or side out of range, an index to an island or big city not added);
 * its finish runs the model's one checker (model_check.c) once and hands
 * the map out, never to change again. Readers write the grid in bulk
 * through map_builder_int.h. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/map.h"
#include "model/map_builder_int.h"
#include "model/map_int.h"
#include "base/util_int.h"

struct cm_map_builder {
	cm_map *m;
	size_t cap_islands, cap_bigcities, cap_ferries, cap_deck;
	size_t *cap_pieces;  /* per big city, cap_bigcities of them */
	bool raw_grid;       /* the grid was handed out to be written directly
	                      * (cm__map_builder_grid): finish tests its squares */
};

/* ---- making one ---- */

/* A map of cols x rows squares not yet written (every maker of a builder
 * writes them all). */
static int new_map(int cols, int rows, cm_map **out)
{
	*out = NULL;
	if (cols <= 0 || rows <= 0 || cols > CM_GRID_MAX || rows > CM_GRID_MAX)
		return CM_EINVAL;
	cm_map *m = calloc(1, sizeof *m);
	if (!m)
		return CM_ENOMEM;
	m->squares = cm_malloc_big((size_t)cols * (size_t)rows, sizeof *m->squares);
	if (!m->squares) {
		free(m);
		return CM_ENOMEM;
	}
	m->cols = cols;
	m->rows = rows;
	m->setup.followers = 9;
	m->seam = -1;
	cm_rules_default(&m->rules, CM_EDITION_C2);
	atomic_init(&m->hash_state, 0);
	*out = m;
	return 0;
}

static int wrap(cm_map *m, bool raw_grid, cm_map_builder **out)
{
	cm_map_builder *b = calloc(1, sizeof *b);
	if (!b) {
		cm_map_free(m);
		return CM_ENOMEM;
	}
	b->m = m;
	b->raw_grid = raw_grid;
	*out = b;
	return 0;
}

static int new_builder(int cols, int rows, bool raw_grid, cm_map_builder **out)
{
	cm_map *m;
	*out = NULL;
	int rc = new_map(cols, rows, &m);
	return rc ? rc : wrap(m, raw_grid, out);
}

int cm__map_builder_new_unset(int cols, int rows, cm_map_builder **out)
{
	return new_builder(cols, rows, true, out);
}

int cm__map_builder_new_grid(int cols, int rows, const uint8_t *kinds, const uint8_t *prints,
                             const unsigned *row_lines, cm_map_builder **out)
{
	/* every square written below, before anything can fail */
	int rc = new_builder(cols, rows, kinds || prints, out);
	if (rc)
		return rc;
	cm_square *sq = (*out)->m->squares;
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

int cm_map_builder_new(int cols, int rows, cm_map_builder **out)
{
	return cm__map_builder_new_grid(cols, rows, NULL, NULL, NULL, out);
}

void cm_map_builder_free(cm_map_builder *b)
{
	if (!b)
		return;
	cm_map_free(b->m);
	free(b->cap_pieces);
	free(b);
}

/* What changes a square or what lies beside it drops the grid view the
 * structure pass made (cm_map.view): a view is only ever true. */
static void drop_view(cm_map_builder *b)
{
	cm__map_grid_free(&b->m->view);
}

cm_square *cm__map_builder_grid(cm_map_builder *b)
{
	drop_view(b);
	b->raw_grid = true;
	return b->m->squares;
}

const cm_map *cm__map_builder_view(const cm_map_builder *b)
{
	return b->m;
}

/* ---- reading what is built ---- */

int cm_map_builder_cols(const cm_map_builder *b)
{
	return b->m->cols;
}

int cm_map_builder_rows(const cm_map_builder *b)
{
	return b->m->rows;
}

const cm_square *cm_map_builder_square(const cm_map_builder *b, int x, int y)
{
	return cm__map_at(b->m, x, y);
}

const cm_setup *cm_map_builder_setup(const cm_map_builder *b)
{
	return &b->m->setup;
}

const cm_rules *cm_map_builder_rules(const cm_map_builder *b)
{
	return &b->m->rules;
}

int cm_map_builder_island_find(const cm_map_builder *b, const char *name)
{
	return cm_map_island_find(b->m, name);
}

/* ---- the map's own values ---- */

int cm_map_builder_set_id(cm_map_builder *b, const char *id)
{
	return cm__map_set_text(&b->m->id, id);
}

int cm_map_builder_set_name(cm_map_builder *b, const char *name)
{
	return cm__map_set_text(&b->m->name, name);
}

int cm_map_builder_set_image(cm_map_builder *b, const char *path)
{
	return cm__map_set_text(&b->m->image, path);
}

int cm_map_builder_set_legend(cm_map_builder *b, const char *path)
{
	return cm__map_set_text(&b->m->legend, path);
}

int cm_map_builder_set_file(cm_map_builder *b, const char *path)
{
	return cm__map_set_text(&b->m->file, path);
}

int cm_map_builder_set_about(cm_map_builder *b, int i, const char *value)
{
	char **f = cm__about_field(&b->m->about, i);
	return f ? cm__map_set_text(f, value) : CM_EINVAL;
}

int cm_map_builder_set_line(cm_map_builder *b, unsigned line)
{
	b->m->line = line;
	return 0;
}

int cm_map_builder_set_seam(cm_map_builder *b, int col)
{
	if (col < -1 || col >= b->m->cols)
		return CM_EINVAL;
	b->m->seam = col;
	return 0;
}

int cm_map_builder_set_printings(cm_map_builder *b, const cm_edition *printings, size_t n)
{
	if (n > CM_EDITION_COUNT || (n && !printings))
		return CM_EINVAL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned)printings[i] >= CM_EDITION_COUNT)
			return CM_EINVAL;
	memset(b->m->printings, 0, sizeof b->m->printings);
	if (n)
		memcpy(b->m->printings, printings, n * sizeof *printings);
	b->m->n_printings = n;
	return 0;
}

int cm_map_builder_set_setup(cm_map_builder *b, const cm_setup *setup)
{
	b->m->setup = *setup;
	return 0;
}

int cm_map_builder_set_rules(cm_map_builder *b, const cm_rules *rules)
{
	b->m->rules = *rules;
	return 0;
}

/* ---- squares ---- */

int cm_map_builder_set_square(cm_map_builder *b, int x, int y, const cm_square *sq)
{
	drop_view(b);
	cm_square *t = (cm_square *)cm__map_at(b->m, x, y);
	if (!t || !cm__square_in_range(b->m, sq))
		return CM_EINVAL;
	/* field by field onto a blank square: its padding stays zero */
	cm_square v = cm__square_blank(sq->kind, sq->line);
	v.arms = sq->arms;
	memcpy(v.print, sq->print, sizeof v.print);
	v.island = sq->island;
	v.bigcity = sq->bigcity;
	*t = v;
	return 0;
}

int cm_map_builder_set_kind(cm_map_builder *b, int x, int y, cm_square_kind kind)
{
	drop_view(b);
	cm_square *t = (cm_square *)cm__map_at(b->m, x, y);
	if (!t || (unsigned)kind >= CM_SQ_KIND_COUNT)
		return CM_EINVAL;
	t->kind = (uint8_t)kind;
	return 0;
}

int cm_map_builder_set_print(cm_map_builder *b, int x, int y, cm_side s, cm_print_kind kind, int arms)
{
	drop_view(b);
	cm_square *t = (cm_square *)cm__map_at(b->m, x, y);
	if (!t || (unsigned)s >= 4 || (unsigned)kind > CM_PRINT_CITY || arms < 0 || arms > 255)
		return CM_EINVAL;
	t->print[s].kind = (uint8_t)kind;
	t->print[s].arms = (uint8_t)arms;
	return 0;
}

int cm_map_builder_set_square_name(cm_map_builder *b, int x, int y, const char *name)
{
	drop_view(b);
	return cm__map_set_square_name(b->m, x, y, name);
}

int cm_map_builder_add_marker(cm_map_builder *b, int x, int y, const char *text)
{
	drop_view(b);
	return cm__map_add_square_marker(b->m, x, y, text);
}

int cm_map_builder_set_print_label(cm_map_builder *b, int x, int y, cm_side s, const char *label)
{
	drop_view(b);
	return cm__map_set_print_label(b->m, x, y, s, label);
}

int cm_map_builder_set_print_line(cm_map_builder *b, int x, int y, cm_side s, unsigned line)
{
	drop_view(b);
	return cm__map_set_print_line(b->m, x, y, s, line);
}

void cm_map_builder_default_prints(cm_map_builder *b)
{
	/* cm_map_faces_land and cm_square_kind_playable as tables over any
	 * byte, the neighbours by index: every square of the grid comes here */
	static const uint8_t land[256] = {
		[CM_SQ_LAND] = 1, [CM_SQ_START] = 1, [CM_SQ_TOWN] = 1, [CM_SQ_ISLAND] = 1, [CM_SQ_BIGCITY] = 1,
	};
	drop_view(b);
	cm_map *m = b->m;
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

void cm__map_builder_prints_check_structure(cm_map_builder *b, cm_diags *d, const uint8_t *quiet, bool *grid_ok)
{
	drop_view(b);
	/* the grid view on the way (the map's last change to its squares);
	 * without one (no memory) the pack writer makes its own */
	cm__map_prints_check_structure(b->m, b->m->squares, d, quiet, grid_ok, &b->m->view);
}

/* ---- islands, big cities, ferries, the deck ---- */

typedef struct {
	const cm_map *m;
	const char *name;
} island_ctx;

static bool island_is(const void *ctx, size_t i)
{
	const island_ctx *c = ctx;
	return c->m->islands[i].name && strcmp(c->m->islands[i].name, c->name) == 0;
}

int cm_map_island_find(const cm_map *m, const char *name)
{
	if (!name || !m->n_islands)
		return -1;
	size_t i = cm_index_find(&m->island_ix, cm_hash_str(name), island_is, &(island_ctx){ m, name });
	return i == (size_t)-1 ? -1 : (int)i;
}

/* Indexes island i by its name (the first of each name stays found). */
static int index_island(cm_map *m, size_t i)
{
	const char *name = m->islands[i].name;
	if (!name)
		return 0;
	return cm_index_find_or_add(&m->island_ix, cm_hash_str(name), i, island_is, &(island_ctx){ m, name }) ==
	                       (size_t)-1
	               ? CM_ENOMEM
	               : 0;
}

int cm_map_builder_add_island(cm_map_builder *b, const char *name, const char *title, unsigned line,
                              size_t *index)
{
	cm_map *m = b->m;
	cm_island is = { NULL, NULL, line };
	if (m->n_islands >= INT32_MAX || cm_grow((void **)&m->islands, &b->cap_islands, m->n_islands, sizeof *m->islands) ||
	    (name && !(is.name = cm_strdup(name))) || (title && !(is.title = cm_strdup(title))))
		goto nomem;
	m->islands[m->n_islands] = is;
	if (index_island(m, m->n_islands))
		goto nomem;
	if (index)
		*index = m->n_islands;
	m->n_islands++;
	return 0;
nomem:
	free(is.name);
	free(is.title);
	return CM_ENOMEM;
}

int cm_map_builder_add_bigcity(cm_map_builder *b, const char *name, unsigned line, size_t *index)
{
	cm_map *m = b->m;
	size_t cap = b->cap_bigcities;
	char *n = NULL;
	if (m->n_bigcities >= INT32_MAX || (name && !(n = cm_strdup(name))) ||
	    cm_grow((void **)&m->bigcities, &b->cap_bigcities, m->n_bigcities, sizeof *m->bigcities)) {
		free(n);
		return CM_ENOMEM;
	}
	if (b->cap_bigcities != cap) { /* the pieces' capacities beside them */
		size_t *cp = realloc(b->cap_pieces, b->cap_bigcities * sizeof *cp);
		if (!cp) {
			free(n);
			return CM_ENOMEM;
		}
		b->cap_pieces = cp;
	}
	b->cap_pieces[m->n_bigcities] = 0;
	m->bigcities[m->n_bigcities] = (cm_bigcity){ n, NULL, 0, line };
	if (index)
		*index = m->n_bigcities;
	m->n_bigcities++;
	return 0;
}

int cm_map_builder_set_bigcity_name(cm_map_builder *b, size_t i, const char *name)
{
	return i < b->m->n_bigcities ? cm__map_set_text(&b->m->bigcities[i].name, name) : CM_EINVAL;
}

/* A deep copy of src into dst (left empty on failure). */
static int copy_tile(cm_tile_type *dst, const cm_tile_type *src)
{
	*dst = *src;
	dst->id = NULL;
	dst->name = NULL;
	dst->features = NULL;
	dst->contacts = NULL;
	dst->n_features = dst->n_contacts = 0;
	dst->markers = NULL; /* a piece has none; never share a list */
	dst->n_markers = 0;
	if (src->n_features) {
		if (!(dst->features = calloc(src->n_features, sizeof *dst->features)))
			goto nomem;
		for (size_t i = 0; i < src->n_features; i++) {
			dst->features[i] = src->features[i];
			dst->features[i].id = NULL;
			dst->n_features = i + 1;
			if (src->features[i].id && !(dst->features[i].id = cm_strdup(src->features[i].id)))
				goto nomem;
		}
	}
	if (src->n_contacts) {
		if (!(dst->contacts = malloc(src->n_contacts * sizeof *dst->contacts)))
			goto nomem;
		memcpy(dst->contacts, src->contacts, src->n_contacts * sizeof *dst->contacts);
		dst->n_contacts = src->n_contacts;
	}
	if ((src->id && !(dst->id = cm_strdup(src->id))) || (src->name && !(dst->name = cm_strdup(src->name))))
		goto nomem;
	return 0;
nomem:
	cm_tile_type_clear(dst);
	memset(dst, 0, sizeof *dst);
	return CM_ENOMEM;
}

int cm_map_builder_add_piece(cm_map_builder *b, size_t city, int x, int y, const cm_tile_type *tile)
{
	cm_map *m = b->m;
	if (city >= m->n_bigcities || !tile)
		return CM_EINVAL;
	cm_bigcity *bc = &m->bigcities[city];
	if (cm_grow((void **)&bc->pieces, &b->cap_pieces[city], bc->n_pieces, sizeof *bc->pieces))
		return CM_ENOMEM;
	cm_bigcity_piece *pc = &bc->pieces[bc->n_pieces];
	memset(pc, 0, sizeof *pc);
	pc->x = x;
	pc->y = y;
	if (copy_tile(&pc->tile, tile))
		return CM_ENOMEM;
	bc->n_pieces++;
	return 0;
}

int cm_map_builder_add_ferry(cm_map_builder *b, const cm_ferry *ferry)
{
	cm_map *m = b->m;
	if ((unsigned)ferry->s1 >= 4 || (unsigned)ferry->s2 >= 4)
		return CM_EINVAL;
	cm_ferry f = *ferry;
	f.name = NULL;
	if ((ferry->name && !(f.name = cm_strdup(ferry->name))) ||
	    cm_grow((void **)&m->ferries, &b->cap_ferries, m->n_ferries, sizeof *m->ferries)) {
		free(f.name);
		return CM_ENOMEM;
	}
	m->ferries[m->n_ferries++] = f;
	return 0;
}

int cm_map_builder_add_deck_entry(cm_map_builder *b, const cm_deck_entry *entry)
{
	cm_map *m = b->m;
	cm_deck_entry e = *entry;
	e.tileset = e.tile = NULL;
	if ((entry->tileset && !(e.tileset = cm_strdup(entry->tileset))) ||
	    (entry->tile && !(e.tile = cm_strdup(entry->tile))) ||
	    cm_grow((void **)&m->deck, &b->cap_deck, m->n_deck, sizeof *m->deck)) {
		free(e.tileset);
		free(e.tile);
		return CM_ENOMEM;
	}
	m->deck[m->n_deck++] = e;
	return 0;
}

void cm_map_builder_clear_deck(cm_map_builder *b)
{
	cm_map *m = b->m;
	for (size_t i = 0; i < m->n_deck; i++) {
		free(m->deck[i].tileset);
		free(m->deck[i].tile);
	}
	m->n_deck = 0;
}

/* ---- a copy of a map ---- */

static int copy_extras(cm_map_builder *b, const cm_map *src)
{
	for (size_t i = 0; i < cm_map_extra_count(src); i++) {
		const cm_square_extra *e = cm_map_extra_nth(src, i);
		int x = e->sq % src->cols, y = e->sq / src->cols;
		if (e->name && cm_map_builder_set_square_name(b, x, y, e->name))
			return CM_ENOMEM;
		for (size_t k = 0; k < e->n_markers; k++)
			if (cm_map_builder_add_marker(b, x, y, e->markers[k]))
				return CM_ENOMEM;
		for (int s = 0; s < 4; s++)
			if ((e->label[s] && cm_map_builder_set_print_label(b, x, y, (cm_side)s, e->label[s])) ||
			    (e->line[s] && cm_map_builder_set_print_line(b, x, y, (cm_side)s, e->line[s])))
				return CM_ENOMEM;
	}
	return 0;
}

static int copy_parts(cm_map_builder *b, const cm_map *src)
{
	cm_map *m = b->m;
	for (size_t i = 0; i < src->n_islands; i++)
		if (cm_map_builder_add_island(b, src->islands[i].name, src->islands[i].title, src->islands[i].line, NULL))
			return CM_ENOMEM;
	for (size_t i = 0; i < src->n_bigcities; i++) {
		const cm_bigcity *bc = &src->bigcities[i];
		if (cm_map_builder_add_bigcity(b, bc->name, bc->line, NULL))
			return CM_ENOMEM;
		for (size_t k = 0; k < bc->n_pieces; k++)
			if (cm_map_builder_add_piece(b, i, bc->pieces[k].x, bc->pieces[k].y, &bc->pieces[k].tile))
				return CM_ENOMEM;
	}
	for (size_t i = 0; i < src->n_ferries; i++)
		if (cm_map_builder_add_ferry(b, &src->ferries[i]))
			return CM_ENOMEM;
	for (size_t i = 0; i < src->n_deck; i++)
		if (cm_map_builder_add_deck_entry(b, &src->deck[i]))
			return CM_ENOMEM;
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		if (cm_map_builder_set_about(b, i, cm_about_get(&src->about, i)))
			return CM_ENOMEM;
	if (cm_map_builder_set_id(b, src->id) || cm_map_builder_set_name(b, src->name) ||
	    cm_map_builder_set_image(b, src->image) || cm_map_builder_set_legend(b, src->legend) ||
	    cm_map_builder_set_file(b, src->file))
		return CM_ENOMEM;
	m->setup = src->setup;
	m->rules = src->rules;
	m->seam = src->seam;
	m->line = src->line;
	memcpy(m->printings, src->printings, sizeof m->printings);
	m->n_printings = src->n_printings;
	return copy_extras(b, src);
}

int cm_map_builder_from(const cm_map *src, cm_map_builder **out)
{
	/* the squares copied whole (a million of them); a finished map's are
	 * in range, so finish skips their pass unless they change */
	int rc = new_builder(src->cols, src->rows, src->partial, out);
	if (rc)
		return rc;
	memcpy((*out)->m->squares, src->squares, (size_t)src->cols * (size_t)src->rows * sizeof *src->squares);
	if ((rc = copy_parts(*out, src)) != 0) {
		cm_map_builder_free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- finishing ---- */

int cm__map_builder_finish(cm_map_builder *b, const char *rule, const char *file, cm_diags *d, unsigned flags,
                           cm_map **out)
{
	*out = NULL;
	if (!b)
		return CM_EINVAL;
	cm_map *m = b->m;
	unsigned model = (flags & CM__FINISH_GRID_OK) || !b->raw_grid ? CM__MODEL_GRID_OK : 0;
	b->m = NULL;
	cm_map_builder_free(b);
	int rc = (flags & CM__FINISH_REFUSED) ? CM_EINVAL : cm__map_check_model_flags(m, rule, file, d, model);
	if (rc && (flags & CM__FINISH_PARTIAL)) {
		m->partial = true; /* what was understood, for pictures of the problems */
		*out = m;
		return rc;
	}
	if (rc) {
		cm_map_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int cm_map_builder_finish(cm_map_builder *b, const char *rule, const char *file, cm_diags *d, cm_map **out)
{
	return cm__map_builder_finish(b, rule, file, d, 0, out);
}
