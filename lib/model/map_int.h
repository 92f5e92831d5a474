/* SPDX-License-Identifier: MIT */
/* map_int.h: what the map model's modules share inside the library: the
 * grid geometry, the square tests of the passes over a million squares,
 * the checker entries (map_check.c, model_check.c), the storage beside the
 * grid (map_extra.c), combining two halves (map_combine.c) and the rule
 * ids of big-city pieces. The map's definition is map_struct_int.h, the
 * builder's private entries map_builder_int.h. Readers and writers in io/
 * use it. */
#ifndef CM_MAP_INT_H
#define CM_MAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "carcamap/map.h"
#include "model/feature_int.h"
#include "model/map_struct_int.h"

#define MAX_SIDE 4

/* Step from a square to its neighbour across side N, E, S, W. */
extern const int cm_map_side_dx[4], cm_map_side_dy[4];

/* Whether side s of (x,y) faces a square that takes tiles or a printed big
 * city: such sides carry no edge print (MAP-EDGE-PRINT). */
bool cm_map_faces_land(const cm_map *m, int x, int y, int s);

/* The square a new builder makes, of kind kind on line line: nothing else. */
static inline cm_square cm__square_blank(uint8_t kind, unsigned line)
{
	cm_square t;
	memset(&t, 0, sizeof t); /* its padding too: a grid not zeroed copies it */
	t.kind = kind;
	t.island = -1;
	t.bigcity = -1;
	t.line = line;
	return t;
}

/* The CM0209 id of every feature problem of a big-city piece. */
extern const cm_feature_rules cm_map_piece_rules;

/* Per-square flags for cm_map_check_structure: problems a reader has
 * reported already, so the checker does not report them again. */
#define CM_MAP_QUIET_ISLAND 1u /* the square's island name resolved to nothing */

/* The structural checks of cm_map_check (all but the deck's references);
 * quiet is NULL or one flag byte per square (row-major). */
void cm_map_check_structure(const cm_map *m, cm_diags *d, const uint8_t *quiet);
/* The same on a builder's map m, on one pass over the grid with three
 * other steps every square needs: the default prints written into grid
 * (m's squares) first (square by square: a square's defaults depend on its
 * neighbours' kinds alone, as cm_map_builder_default_prints), the
 * model checker's range test of each square (cm__square_in_range),
 * *grid_ok set when every square passes it, and (view not NULL) the
 * packed grid view of the squares as they leave the pass, into *view
 * (empty when out of memory). */
void cm__map_prints_check_structure(const cm_map *m, cm_square *grid, cm_diags *d, const uint8_t *quiet,
                                    bool *grid_ok, cm_map_grid *view);

/* Whether square s holds only in-range values (kind, island and big-city
 * indices, print kinds): the model checker's test of a square (its extras
 * aside). */
static inline bool cm__square_in_range(const cm_map *m, const cm_square *s)
{
	return s->kind < CM_SQ_KIND_COUNT && s->island >= -1 && (long long)s->island < (long long)m->n_islands &&
	       s->bigcity >= -1 && (long long)s->bigcity < (long long)m->n_bigcities &&
	       s->print[0].kind <= CM_PRINT_CITY && s->print[1].kind <= CM_PRINT_CITY &&
	       s->print[2].kind <= CM_PRINT_CITY && s->print[3].kind <= CM_PRINT_CITY;
}

/* Whether sq holds nothing beside its kind (and line): no print, no arms,
 * no island, no big city, as the grid makes most squares; read as a few
 * words, not field by field (the per-square passes over a million squares
 * test it first). cm__square_plain_land: and it is land, so in range. */
_Static_assert(offsetof(cm_square, bigcity) == offsetof(cm_square, island) + 4, "island, bigcity adjacent");
_Static_assert(offsetof(cm_square, arms) == 1 && offsetof(cm_square, print) == 2 && sizeof(cm_edge_print) == 2,
               "kind, arms, prints packed");
static inline bool cm__square_plain(const cm_square *sq)
{
	static const int32_t none[2] = { -1, -1 };
	uint64_t a, c, pc;
	const unsigned char *p = (const unsigned char *)sq;
	memcpy(&a, p + offsetof(cm_square, arms), 8); /* arms, print[0..2], print[3].kind */
	memcpy(&c, p + offsetof(cm_square, island), 8); /* island, bigcity */
	memcpy(&pc, none, 8);
	return (a | sq->print[3].arms | (c ^ pc)) == 0;
}

/* Whether the eight squares from sq are all plain (the passes skip the
 * open land eight squares at a time; they try it every eighth square, so
 * a grid of other squares pays at most one square's test in eight). */
static inline bool cm__squares8_plain(const cm_square *sq)
{
	for (int i = 0; i < 8; i++)
		if (!cm__square_plain(&sq[i]))
			return false;
	return true;
}

static inline bool cm__square_plain_land(const cm_square *sq)
{
	return sq->kind == CM_SQ_LAND && cm__square_plain(sq);
}

/* Whether sq is land with nothing but neutral prints (as the default
 * prints leave a land square by the water): no arms anywhere, no road or
 * city print, no island, no big city; in range. */
static inline bool cm__square_land_unprinted(const cm_square *sq)
{
	/* arms, print[0..2], print[3].kind: a print kind may have bit 0 */
	static const unsigned char kind_bit[8] = { 0, 1, 0, 1, 0, 1, 0, 1 };
	static const int32_t none[2] = { -1, -1 };
	uint64_t a, ok, c, pc;
	const unsigned char *p = (const unsigned char *)sq;
	memcpy(&a, p + offsetof(cm_square, arms), 8);
	memcpy(&ok, kind_bit, 8);
	memcpy(&c, p + offsetof(cm_square, island), 8);
	memcpy(&pc, none, 8);
	return sq->kind == CM_SQ_LAND && (a & ~ok) == 0 && sq->print[3].arms == 0 && c == pc;
}

/* The model's one checker (model_check.c; what cm_map_builder_finish
 * says it checks), run by the builder's finish and nowhere else
 * (tools/layers.sh holds to it). CM__MODEL_GRID_OK when every square is
 * known to be in range (cm__square_in_range), so the checker reads the
 * grid only if something else is wrong. Returns 0 or CM_EINVAL. */
#define CM__MODEL_GRID_OK 1u
int cm__map_check_model_flags(const cm_map *m, const char *rule, const char *file, cm_diags *d, unsigned flags);

/* What few squares have, beside the grid (map_extra.c, the storage of
 * cm_map_square_name and the other accessors of map.h). */
typedef struct {
	int32_t sq;          /* square index, y*cols + x */
	char *name;
	char **markers;
	size_t n_markers, cap_markers;
	char *label[4];      /* per side: edge-print label */
	unsigned line[4];    /* per side: line of the <edge> element */
} cm_square_extra;
/* The entry of square index sq, or NULL when it has none. */
const cm_square_extra *cm_map_extra_find(const cm_map *m, int sq);
/* The entries in the order they were added (not by square). */
size_t cm_map_extra_count(const cm_map *m);
const cm_square_extra *cm_map_extra_nth(const cm_map *m, size_t i);
/* Frees the table (cm_map_free). */
void cm_map_extras_free(cm_map *m);
/* Replaces *slot with a copy of text (NULL clears): 0 or CM_ENOMEM, *slot
 * unchanged on failure. The builder's texts, and those beside the grid. */
int cm__map_set_text(char **slot, const char *text);
/* The builder's setters of what few squares have (the texts copied, NULL
 * clearing): 0, CM_EINVAL ((x,y) off the grid, s no side, text NULL for
 * a marker) or CM_ENOMEM. */
int cm__map_set_square_name(cm_map *m, int x, int y, const char *name);
int cm__map_add_square_marker(cm_map *m, int x, int y, const char *text);
int cm__map_set_print_label(cm_map *m, int x, int y, cm_side s, const char *label);
int cm__map_set_print_line(cm_map *m, int x, int y, cm_side s, unsigned line);

/* Where about field i (0..CM_ABOUT_FIELDS-1) lives in a, or NULL. */
char **cm__about_field(cm_about *a, int i);

/* Combines the west map w and the east map e (MAP-HALF): e's column 0 on
 * w's last column, dy rows down. Seam problems are reported (CM0215,
 * CM0217) at file:line, the <combine> element, which every copied element
 * takes as its line. On success *out is a new builder holding the
 * combination, for the reader to complete and finish; 0, CM_EINVAL or
 * CM_ENOMEM. */
int cm_map_combine(const cm_map *w, const cm_map *e, int dy, const char *file, unsigned line,
                   cm_diags *d, cm_map_builder **out);

#endif
