/* SPDX-License-Identifier: MIT */
/* map_check.c: the game structure of a map: the checks CM02xx (squares,
 * prints, islands, ferries, big cities, setup, names, deck) the readers
 * run on what they build (with the default prints, on the same pass) and
 * `check` runs on any map, and the deck's references to tile sets. The
 * model's own invariants are model_check.c's. Rules: schemas/map.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/map.h"
#include "model/map_int.h"
#include "base/util_int.h"

#define WHERE_MAX 200

/* Big-city pieces use the tile set's feature vocabulary (feature.c); every
 * problem with them is CM0209. */
const cm_feature_rules cm_map_piece_rules = {
	.slot_twice = "CM0209", .uncovered = "CM0209", .shape = "CM0209", .feature_id = "CM0209",
	.touches = "CM0209", .contact = "CM0209", .contact_size = "CM0209", .too_many = "CM0209",
};

/* ---- structural checks (CM02xx) ---- */

/* Reports at the element's line in m->file; the where string goes along
 * when there is no line (maps from an image, a pack or built in memory). */
static void vchk(const cm_map *m, cm_diags *d, const char *id, unsigned line, const char *where, const char *fmt,
                 va_list ap)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 0)))
#endif
	;
static void vchk(const cm_map *m, cm_diags *d, const char *id, unsigned line, const char *where, const char *fmt,
                 va_list ap)
{
	cm_diag_scope s;
	cm_diag_scope_init(&s, d, m->file);
	cm_diag_scope_vadd(&s, id, line, 0, line && m->file ? NULL : where, fmt, ap);
}

static void chk(const cm_map *m, cm_diags *d, const char *id, unsigned line, const char *where,
                const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;
static void chk(const cm_map *m, cm_diags *d, const char *id, unsigned line, const char *where,
                const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vchk(m, d, id, line, where, fmt, ap);
	va_end(ap);
}

static void chk_at(const cm_map *m, cm_diags *d, const char *id, unsigned line, const char *attr,
                   const char *where, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;
/* chk about attribute attr of the element on that line: the diagnostic
 * gets the attribute's column when the source shows it there once
 * (cm_diags_point). */
static void chk_at(const cm_map *m, cm_diags *d, const char *id, unsigned line, const char *attr,
                   const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vchk(m, d, id, line, where, fmt, ap);
	va_end(ap);
	cm_diags_point(d, attr);
}

static void chk_sq(const cm_map *m, cm_diags *d, int x, int y, const char *id, unsigned line, const char *where,
                   const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 8, 9)))
#endif
	;
/* chk about square (x,y): the diagnostic carries the square (diag.h). */
static void chk_sq(const cm_map *m, cm_diags *d, int x, int y, const char *id, unsigned line, const char *where,
                   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vchk(m, d, id, line, where, fmt, ap);
	va_end(ap);
	cm_diags_set_square(d, x, y);
}

static void chk_sq_at(const cm_map *m, cm_diags *d, int x, int y, const char *id, unsigned line,
                      const char *attr, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 9, 10)))
#endif
	;
/* chk_sq with the column of attribute attr (chk_at). */
static void chk_sq_at(const cm_map *m, cm_diags *d, int x, int y, const char *id, unsigned line,
                      const char *attr, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vchk(m, d, id, line, where, fmt, ap);
	va_end(ap);
	cm_diags_set_square(d, x, y);
	cm_diags_point(d, attr);
}

static const char *where_fmt(char *buf, const cm_map *m, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static const char *where_fmt(char *buf, const cm_map *m, const char *fmt, ...)
{
	int n = snprintf(buf, WHERE_MAX, "map %s, ", m->id ? m->id : "?");
	if (n < 0 || n >= WHERE_MAX)
		return buf;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, WHERE_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

static unsigned sq_line(const cm_map *m, const cm_square *sq, unsigned line)
{
	return line ? line : sq->line ? sq->line : m->file ? m->line : 0;
}

/* Edge category of a piece's slot (as a tile side would show it). */
static cm_edge_kind slot_category(const cm_tile_type *t, int bit)
{
	for (size_t i = 0; i < t->n_features; i++)
		if (t->features[i].slots & (1u << bit))
			return t->features[i].kind == CM_FEAT_CITY ? CM_EDGE_CITY
			       : t->features[i].kind == CM_FEAT_ROAD ? CM_EDGE_ROAD : CM_EDGE_FIELD;
	return CM_EDGE_FIELD;
}

typedef struct {
	const cm_map *m;
	cm_diags *d;
	const char *where;
} piece_report;

static void report_piece(void *arg, const char *rule, unsigned line, const cm_feature *f, const char *msg)
{
	const piece_report *pr = arg;
	(void)f;
	chk(pr->m, pr->d, rule, line, pr->where, "%s", msg);
}

/* One piece's features, as a tile set's checks would see a tile (CM0209);
 * a printed big city has no abbey. */
static void count_report(void *arg, const char *rule, unsigned line, const cm_feature *f, const char *msg)
{
	(void)rule;
	(void)line;
	(void)f;
	(void)msg;
	(*(size_t *)arg)++;
}

static void check_piece(const cm_map *m, cm_diags *d, const cm_bigcity *bc, const cm_bigcity_piece *pc)
{
	char w[WHERE_MAX], name[64];
	const cm_tile_type *t = &pc->tile;
	/* a silent count first: the where string and the name are formatted
	 * only for a piece with a problem (a big map has thousands) */
	size_t problems = 0;
	const cm_feature_checker probe = { &cm_map_piece_rules, "piece", "", NULL, count_report, &problems };
	cm_feature_check(&probe, t);
	for (size_t i = 0; i < t->n_features; i++)
		problems += t->features[i].kind == CM_FEAT_ABBEY;
	if (!problems)
		return;
	where_fmt(w, m, "big city %s, piece (%d,%d)", bc->name ? bc->name : "?", pc->x, pc->y);
	snprintf(name, sizeof name, "piece (%d,%d)", pc->x, pc->y);
	piece_report pr = { m, d, w };
	const cm_feature_checker fc = { &cm_map_piece_rules, "piece", name, NULL, report_piece, &pr };
	cm_feature_check(&fc, t);
	for (size_t i = 0; i < t->n_features; i++)
		if (t->features[i].kind == CM_FEAT_ABBEY)
			chk(m, d, "CM0209", cm_feature_line(t, &t->features[i]), w,
			    "abbey '%s' on piece (%d,%d): a printed big city has no abbey",
			    cm_feature_id(&t->features[i]), pc->x, pc->y);
}

/* Pieces that sit side by side must meet like tiles (city slot to city
 * slot, road to road, field to field), and the pieces of one big city must
 * hang together (MAP-BIGCITY). */
typedef struct {
	int y, x;
	size_t i;
} piece_pos;

static int piece_pos_cmp(const void *pa, const void *pb)
{
	const piece_pos *a = pa, *b = pb;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* How many pieces of bc join piece 0 side by side: a breadth-first walk
 * over the pieces sorted by place, neighbours found by binary search, so
 * n log n. (size_t)-1 when out of memory. */
static size_t pieces_joined(const cm_bigcity *bc)
{
	size_t n = bc->n_pieces, reached = 1;
	piece_pos *by_pos = malloc(n * sizeof *by_pos);
	size_t *queue = malloc(n * sizeof *queue);
	bool *in = calloc(n, sizeof *in);
	if (!by_pos || !queue || !in) {
		free(by_pos);
		free(queue);
		free(in);
		return (size_t)-1;
	}
	for (size_t i = 0; i < n; i++)
		by_pos[i] = (piece_pos){ bc->pieces[i].y, bc->pieces[i].x, i };
	qsort(by_pos, n, sizeof *by_pos, piece_pos_cmp);
	size_t head = 0, tail = 0;
	in[0] = true;
	queue[tail++] = 0;
	while (head < tail) {
		const cm_bigcity_piece *p = &bc->pieces[queue[head++]];
		for (int s = 0; s < 4; s++) {
			int x = p->x + cm_map_side_dx[s], y = p->y + cm_map_side_dy[s];
			size_t lo = 0, hi = n; /* first piece at or after (x,y) */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				const piece_pos *q = &by_pos[mid];
				if (q->y < y || (q->y == y && q->x < x))
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < n && by_pos[lo].x == x && by_pos[lo].y == y; lo++)
				if (!in[by_pos[lo].i]) {
					in[by_pos[lo].i] = true;
					queue[tail++] = by_pos[lo].i;
					reached++;
				}
		}
	}
	free(by_pos);
	free(queue);
	free(in);
	return reached;
}

static void check_bigcities(const cm_map *m, cm_diags *d, const cm_bigcity_piece **at)
{
	char w[WHERE_MAX];
	for (size_t c = 0; c < m->n_bigcities; c++) {
		const cm_bigcity *bc = &m->bigcities[c];
		const char *name = bc->name ? bc->name : "?";
		for (size_t k = 0; k < bc->n_pieces; k++) {
			const cm_bigcity_piece *a = &bc->pieces[k];
			for (int s = CM_E; s <= CM_S; s++) { /* each shared side once */
				int nx = a->x + cm_map_side_dx[s], ny = a->y + cm_map_side_dy[s];
				if (!cm__map_at(m, a->x, a->y) || !cm__map_at(m, nx, ny))
					continue;
				const cm_bigcity_piece *b = at[ny * m->cols + nx];
				if (!b || at[a->y * m->cols + a->x] != a)
					continue;
				for (int p = 0; p < 3; p++) {
					int bit = 3 * s + p;
					cm_edge_kind ka = slot_category(&a->tile, bit);
					cm_edge_kind kb = slot_category(&b->tile, cm_slot_facing(bit));
					if (ka == kb)
						continue;
					where_fmt(w, m, "big city %s, piece (%d,%d), side %s", name, a->x, a->y,
					          cm_side_name((cm_side)s));
					chk(m, d, "CM0207", a->tile.line ? a->tile.line : bc->line, w,
					    "pieces (%d,%d) and (%d,%d) do not match: slot %s (%s) meets slot %s (%s)", a->x,
					    a->y, nx, ny, cm_slot_name(bit), cm_edge_kind_name(ka),
					    cm_slot_name(cm_slot_facing(bit)), cm_edge_kind_name(kb));
					break;
				}
			}
		}
		/* connectivity: grow from piece 0 through side-by-side pieces of this city */
		if (bc->n_pieces < 2)
			continue;
		size_t n = bc->n_pieces;
		size_t reached = pieces_joined(bc);
		if (reached == (size_t)-1)
			return;
		if (reached < n)
			chk(m, d, "CM0207", bc->line, where_fmt(w, m, "big city %s", name),
			    "big city %s falls apart: only %zu of its %zu pieces join the first side by side", name, reached,
			    n);
	}
}

typedef struct {
	const char *name;
	int space;       /* 0 places (squares, big cities), 1 island ids, 2 ferries */
	size_t order;    /* position in the walk, for a stable sort */
	unsigned line;
	int sq;          /* a square's index, else -1 (the where string is made
	                  * only for a diagnostic: name_what) */
} name_ref;

/* "square (3,4)", "island X": what r names, in 64 bytes at most. */
static void name_what(const cm_map *m, const name_ref *r, char what[64])
{
	if (r->sq >= 0)
		snprintf(what, 64, "square (%d,%d)", r->sq % m->cols, r->sq / m->cols);
	else
		snprintf(what, 64, "%s %s", r->space == 0 ? "big city" : r->space == 1 ? "island" : "ferry", r->name);
}

static int name_cmp(const void *a, const void *b)
{
	const name_ref *x = a, *y = b;
	if (x->space != y->space)
		return x->space - y->space;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Table entries by square (one entry per square: no ties). */
static int extra_sq_cmp(const void *a, const void *b)
{
	const cm_square_extra *x = *(const cm_square_extra *const *)a, *y = *(const cm_square_extra *const *)b;
	return x->sq < y->sq ? -1 : x->sq > y->sq;
}

/* Names of places, island ids and ferry names are each unique in a map. */
typedef struct {
	const cm_map *m;
	size_t i;
} entry_ctx;

static bool same_entry(const void *ctx, size_t k)
{
	const entry_ctx *c = ctx;
	const cm_deck_entry *a = &c->m->deck[c->i], *b = &c->m->deck[k];
	return strcmp(a->tileset, b->tileset) == 0 && !a->tile == !b->tile && (!a->tile || strcmp(a->tile, b->tile) == 0);
}

static void check_deck_twice(const cm_map *m, cm_diags *d)
{
	char w[WHERE_MAX];
	cm_index ix = { 0 };
	size_t *uses = calloc(m->n_deck + 1, sizeof *uses), *second = calloc(m->n_deck + 1, sizeof *second);
	for (size_t i = 0; uses && second && i < m->n_deck; i++) {
		const cm_deck_entry *a = &m->deck[i];
		if (!a->tileset)
			continue;
		uint64_t h = cm_hash_str(a->tileset) ^ (a->tile ? cm_hash_str(a->tile) * 31u : 7u);
		size_t k = cm_index_find_or_add(&ix, h, i, same_entry, &(entry_ctx){ m, i });
		if (k == (size_t)-1)
			break;
		if (k != i && uses[k]++ == 0)
			second[k] = i;
	}
	for (size_t k = 0; uses && second && k < m->n_deck; k++) {
		if (!uses[k])
			continue;
		const cm_deck_entry *a = &m->deck[second[k]], *b = &m->deck[k];
		if (uses[k] == 1)
			chk(m, d, "CM0202", a->line, where_fmt(w, m, "deck entry %zu", second[k]),
			    "deck lists %s%s%s twice (also on line %u)", a->tile ? "tile " : "tile set ",
			    a->tile ? a->tile : a->tileset, a->tile ? " of that set" : "", b->line);
		else
			chk(m, d, "CM0202", a->line, where_fmt(w, m, "deck entry %zu", second[k]),
			    "deck lists %s%s%s %zu times (first on line %u)", a->tile ? "tile " : "tile set ",
			    a->tile ? a->tile : a->tileset, a->tile ? " of that set" : "", uses[k] + 1, b->line);
	}
	cm_index_free(&ix);
	free(uses);
	free(second);
}

/* One end of a ferry, for finding road prints that end several. */
typedef struct {
	int x, y, side;
	size_t ferry;
} ferry_end;

static int ferry_end_cmp(const void *pa, const void *pb)
{
	const ferry_end *a = pa, *b = pb;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return a->ferry < b->ferry ? -1 : a->ferry > b->ferry;
}

/* CM0204: a road print ending more than one ferry. The ends are sorted,
 * so the cost is n log n, and each such print is reported once, on the
 * second ferry's line, with the number of ferries it ends. */
static void check_ferry_ends(const cm_map *m, cm_diags *d)
{
	char w[WHERE_MAX];
	size_t n = 0;
	ferry_end *v = malloc((2 * m->n_ferries + 1) * sizeof *v);
	if (!v)
		return;
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		v[n++] = (ferry_end){ f->x1, f->y1, (int)f->s1, i };
		/* a ferry from a print to itself is reported apart */
		if (f->x1 != f->x2 || f->y1 != f->y2 || f->s1 != f->s2)
			v[n++] = (ferry_end){ f->x2, f->y2, (int)f->s2, i };
	}
	qsort(v, n, sizeof *v, ferry_end_cmp);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && ferry_end_cmp(&(ferry_end){ v[a].x, v[a].y, v[a].side, v[b].ferry }, &v[b]) == 0; b++)
			;
		if (b - a < 2)
			continue;
		const cm_ferry *f = &m->ferries[v[a + 1].ferry], *g = &m->ferries[v[a].ferry];
		where_fmt(w, m, "ferry %zu", v[a + 1].ferry);
		const char *side = (unsigned)v[a].side < MAX_SIDE ? cm_side_name((cm_side)v[a].side) : "?";
		if (b - a == 2)
			chk(m, d, "CM0204", f->line, w, "road print at side %s of square (%d,%d) ends ferry %zu already (line %u)",
			    side, v[a].x, v[a].y, v[a].ferry, g->line);
		else
			chk(m, d, "CM0204", f->line, w,
			    "road print at side %s of square (%d,%d) ends %zu ferries: ferry %zu (line %u) and %zu more",
			    side, v[a].x, v[a].y, b - a, v[a].ferry, g->line, b - a - 1);
	}
	free(v);
}

static void check_names(const cm_map *m, cm_diags *d)
{
	size_t cap = 0, n = 0;
	name_ref *v = NULL;
	/* the named squares in grid order: from the table beside the grid (a
	 * few entries), sorted by square, not a look-up for every square */
	size_t ne = cm_map_extra_count(m), nn = 0;
	const cm_square_extra **named = ne ? malloc(ne * sizeof *named) : NULL;
	if (ne && !named)
		return;
	for (size_t i = 0; i < ne; i++) {
		const cm_square_extra *e = cm_map_extra_nth(m, i);
		if (e->name && e->sq >= 0 && e->sq < m->cols * m->rows)
			named[nn++] = e;
	}
	if (nn > 1)
		qsort(named, nn, sizeof *named, extra_sq_cmp);
	for (size_t i = 0; i < nn; i++) {
		if (cm_grow((void **)&v, &cap, n, sizeof *v))
			goto out;
		v[n] = (name_ref){ named[i]->name, 0, n, m->squares[named[i]->sq].line, named[i]->sq };
		n++;
	}
	for (size_t i = 0; i < m->n_bigcities + m->n_islands + m->n_ferries; i++) {
		const char *name;
		int space;
		unsigned line;
		if (i < m->n_bigcities) {
			name = m->bigcities[i].name, space = 0, line = m->bigcities[i].line;
		} else if (i < m->n_bigcities + m->n_islands) {
			const cm_island *is = &m->islands[i - m->n_bigcities];
			name = is->name, space = 1, line = is->line;
		} else {
			const cm_ferry *f = &m->ferries[i - m->n_bigcities - m->n_islands];
			name = f->name, space = 2, line = f->line;
		}
		if (!name)
			continue;
		if (cm_grow((void **)&v, &cap, n, sizeof *v))
			goto out;
		v[n] = (name_ref){ name, space, n, line, -1 };
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, name_cmp);
	for (size_t i = 1, first = 0; i < n; i++) {
		if (v[i].space != v[first].space || strcmp(v[i].name, v[first].name) != 0) {
			first = i;
			continue;
		}
		char w[WHERE_MAX], what[64];
		name_what(m, &v[i], what);
		chk_at(m, d, "CM0211", v[i].line, v[i].space == 1 ? "id" : "name", where_fmt(w, m, "%s", what), "%s %s is used twice (first on line %u)",
		    v[i].space == 1 ? "island id" : "name", v[i].name, v[first].line);
	}
out:
	free(named);
	free(v);
}

/* Whether a side facing a square of kind k faces land (cm_map_faces_land):
 * a square that takes tiles or a big city; any byte. */
static const uint8_t faces_land_kind[256] = {
	[CM_SQ_LAND] = 1, [CM_SQ_START] = 1, [CM_SQ_TOWN] = 1, [CM_SQ_ISLAND] = 1, [CM_SQ_BIGCITY] = 1,
};

/* Square (x,y) on the one pass every square takes: with mw (the grid of a
 * builder's map), its default prints first (as cm_map_builder_default_prints: neutral on
 * the sides that face no land); then whether it passes check_squares
 * without a word, on masks of its sides, so that only a square failing
 * it is checked again, the long way, for its diagnostics. */
static bool square_quiet(const cm_map *m, cm_square *mw, int x, int y, const uint8_t *quiet)
{
	static const uint8_t playable[256] = {
		[CM_SQ_LAND] = 1, [CM_SQ_START] = 1, [CM_SQ_TOWN] = 1, [CM_SQ_ISLAND] = 1,
	};
	int C = m->cols, i = y * C + x;
	const cm_square *g = m->squares, *sq = &g[i];
	const cm_edge_print *p = sq->print;
	unsigned none = (unsigned)(p[0].kind == CM_PRINT_NONE) | (unsigned)(p[1].kind == CM_PRINT_NONE) << 1 |
	                (unsigned)(p[2].kind == CM_PRINT_NONE) << 2 | (unsigned)(p[3].kind == CM_PRINT_NONE) << 3;
	if (!playable[sq->kind]) {
		if (none != 15)
			return false;
	} else {
		unsigned land = (unsigned)(y > 0 && faces_land_kind[g[i - C].kind]) |
		                (unsigned)(x + 1 < C && faces_land_kind[g[i + 1].kind]) << 1 |
		                (unsigned)(y + 1 < m->rows && faces_land_kind[g[i + C].kind]) << 2 |
		                (unsigned)(x > 0 && faces_land_kind[g[i - 1].kind]) << 3;
		unsigned fix = mw ? none & ~land : 0;
		for (int s = 0; fix; s++, fix >>= 1)
			if (fix & 1) {
				mw[i].print[s].kind = CM_PRINT_NEUTRAL;
				none &= ~(1u << s);
			}
		unsigned arms_neutral = (unsigned)(p[0].kind == CM_PRINT_NEUTRAL && p[0].arms) |
		                        (unsigned)(p[1].kind == CM_PRINT_NEUTRAL && p[1].arms) |
		                        (unsigned)(p[2].kind == CM_PRINT_NEUTRAL && p[2].arms) |
		                        (unsigned)(p[3].kind == CM_PRINT_NEUTRAL && p[3].arms);
		if (land != none || arms_neutral)
			return false;
	}
	if (quiet && (quiet[i] & CM_MAP_QUIET_ISLAND))
		return true;
	if (sq->kind == CM_SQ_ISLAND)
		return sq->island >= 0 && (size_t)sq->island < m->n_islands;
	return sq->island < 0 && !sq->arms;
}

/* What check_squares reads of a square's kind, as bits: faces_land_kind,
 * and which plain squares (cm__square_plain) pass at once: those that take
 * no tile, and land or towns with land on all four sides. */
enum { KB_LAND = 1, KB_NO_TILE = 2, KB_LAND_TOWN = 4 };
static const uint8_t kind_bits[256] = {
	[CM_SQ_LAND] = KB_LAND | KB_LAND_TOWN, [CM_SQ_START] = KB_LAND, [CM_SQ_TOWN] = KB_LAND | KB_LAND_TOWN,
	[CM_SQ_ISLAND] = KB_LAND, [CM_SQ_BIGCITY] = KB_LAND, [CM_SQ_NONE] = KB_NO_TILE, [CM_SQ_WAVES] = KB_NO_TILE,
	[CM_SQ_LANDMARK] = KB_NO_TILE, [CM_SQ_HALF] = KB_NO_TILE,
};
_Static_assert(CM_SQ_KIND_COUNT <= 256, "kinds index a byte table");

/* The four prints (cm_square.print, 8 bytes: kind and arms per side) a
 * plain square gets by default, by which of its sides face land (bit s:
 * side s): CM_PRINT_NEUTRAL where not, nothing where so. A plain square's
 * prints are all zero before, so the whole word can be written. */
static void default_prints(uint64_t out[16])
{
	_Static_assert(sizeof(((cm_square *)0)->print) == 8, "four prints in a word");
	for (unsigned land = 0; land < 16; land++) {
		cm_edge_print pr[4] = { { 0, 0 } };
		for (int s = 0; s < MAX_SIDE; s++)
			if (!((land >> s) & 1))
				pr[s].kind = CM_PRINT_NEUTRAL;
		memcpy(&out[land], pr, 8);
	}
}

/* kind_bits of each square of row y at out[x + 1], 0 at out[0],
 * out[cols + 1] and on a row off the grid; with vg, each square's kind
 * into its byte of the grid view (vg: the view's grid). */
static void land_row(const cm_map *m, int y, uint8_t *out, uint8_t *vg)
{
	int C = m->cols;
	out[0] = out[C + 1] = 0;
	if (y < 0 || y >= m->rows) {
		memset(out, 0, (size_t)C + 2);
		return;
	}
	const cm_square *g = m->squares + (size_t)y * (size_t)C;
	if (!vg) {
		for (int x = 0; x < C; x++)
			out[x + 1] = kind_bits[g[x].kind];
		return;
	}
	uint8_t *v = vg + 2 * (size_t)y * (size_t)C;
	for (int x = 0; x < C; x++) {
		uint8_t k = g[x].kind;
		out[x + 1] = kind_bits[k];
		v[2 * x] = k;
	}
}

/* Which sides of square x face land (bit s: side s), from the kind_bits
 * of the rows above (up), at (me) and below (dn) it, as land_row wrote them. */
static inline unsigned land_of(const uint8_t *up, const uint8_t *me, const uint8_t *dn, int x)
{
	return (unsigned)(up[x + 1] & KB_LAND) | (unsigned)(me[x + 2] & KB_LAND) << 1 |
	       (unsigned)(dn[x + 1] & KB_LAND) << 2 | (unsigned)(me[x] & KB_LAND) << 3;
}

/* What the pass over the squares counts for the later checks. */
typedef struct {
	int starts;        /* start squares */
	size_t bigcity;    /* big-city squares */
	bool *has_square;  /* per island: an island square names it (NULL: no islands) */
} square_counts;

/* Squares and their edge prints and islands (CM0203, CM0205); counts into
 * *n on the same pass (a million squares are read once, not once per check). */
static void check_squares(const cm_map *m, cm_diags *d, const uint8_t *quiet, square_counts *n, cm_square *mw,
                          bool *grid_ok, cm_map_grid *view)
{
	bool in_range = true;
	/* the where strings are formatted only for a diagnostic: this loop sees every square */
	char w[WHERE_MAX];
#define WHERE_SIDE where_fmt(w, m, "square (%d,%d), side %s", x, y, side)
#define WHERE_SQ where_fmt(w, m, "square (%d,%d)", x, y)
	int C = m->cols;
	/* kind_bits of the squares of the rows above, at and below the row
	 * checked (index x + 1; 0 off the grid), each row read once; and
	 * pass[x]: 1 when square (x,y), if plain, passes at once (KB_NO_TILE,
	 * or KB_LAND_TOWN with KB_LAND on all four sides), made eight squares a
	 * word */
	uint64_t dp[16];
	default_prints(dp);
	/* the packed grid view (view not NULL; map_grid_int.h), made on the
	 * way: the kinds as land_row reads them, the print kinds of each square
	 * as it leaves the pass (a plain square that passes has none: vg starts
	 * zeroed), the squares that carry more, in order; dpv: dp's print kinds
	 * as the view's byte */
	size_t vg_len = 2 * (size_t)C * (size_t)m->rows;
	uint8_t *vg = view ? cm_malloc_big(vg_len + 1, 1) : NULL, dpv[16];
	if (vg) /* 2 MB for a million squares: on huge pages, cleared here */
		memset(vg, 0, vg_len);
	size_t *vsq = NULL, vn = 0, vcap = 0;
	for (int l = 0; l < 16; l++) {
		cm_square t = cm__square_blank(CM_SQ_LAND, 0);
		uint8_t b[2];
		memcpy(t.print, &dp[l], 8);
		(void)cm__map_grid_pack(&t, b);
		dpv[l] = b[1];
	}
	size_t rl = (size_t)C + 2;
	uint8_t *lk = malloc(4 * rl), *up = lk, *me = lk + rl, *dn = lk + 2 * rl, *pass = lk + 3 * rl;
	if (lk) {
		land_row(m, -1, up, vg);
		land_row(m, 0, me, vg);
		land_row(m, 1, dn, vg);
	}
	for (int y = 0; y < m->rows; y++) {
		if (lk && y > 0) {
			uint8_t *t = up;
			up = me;
			me = dn;
			dn = t;
			land_row(m, y + 1, dn, vg);
		}
		if (lk) {
			int x = 0;
			for (; x + 8 <= C; x += 8) {
				uint64_t a, b, c, e, k;
				memcpy(&a, up + x + 1, 8);
				memcpy(&b, me + x + 2, 8);
				memcpy(&c, dn + x + 1, 8);
				memcpy(&e, me + x, 8);
				memcpy(&k, me + x + 1, 8);
				uint64_t all4 = a & b & c & e & 0x0101010101010101ull;
				uint64_t p = ((k >> 1) & 0x0101010101010101ull) | ((k >> 2) & all4);
				memcpy(pass + x, &p, 8);
			}
			for (; x < C; x++) {
				unsigned all4 = up[x + 1] & me[x + 2] & dn[x + 1] & me[x] & KB_LAND, k = me[x + 1];
				pass[x] = (uint8_t)(((k >> 1) & 1) | ((k >> 2) & all4));
			}
		}
		const cm_square *row = m->squares + (size_t)y * (size_t)C;
		for (int x = 0; x < m->cols; x++) {
			/* eight plain squares that pass at once (pass bytes are 0
			 * or 1), as below, at a time (tried every eighth square) */
			while (lk && !(x & 7) && x + 8 <= C) {
				uint64_t p8, fill = 0;
				memcpy(&p8, pass + x, 8);
				/* with mw, also eight plain squares each passing or land
				 * or a town, as below: the latter get their default
				 * prints (the land by the water of a big map; mw is m's
				 * own grid, so these squares are plain there too) */
				if (p8 != 0x0101010101010101ull) {
					uint64_t k8;
					memcpy(&k8, me + x + 1, 8);
					/* KB_LAND_TOWN of those that do not pass */
					fill = mw ? (k8 >> 2) & ~p8 & 0x0101010101010101ull : 0;
					if ((p8 | fill) != 0x0101010101010101ull)
						break;
				}
				if (!cm__squares8_plain(row + x))
					break;
				for (int j = 0; fill && j < 8; j++)
					if (!pass[x + j]) {
						unsigned l = land_of(up, me, dn, x + j);
						memcpy(mw[y * C + x + j].print, &dp[l], 8);
						if (vg)
							vg[2 * ((size_t)y * C + x + j) + 1] = dpv[l];
					}
				x += 8;
			}
			if (x >= C)
				break;
			const cm_square *sq = &row[x];
			/* most of a big map: a square with nothing beside its kind
			 * is in range and, unless it is counted below, passes
			 * square_quiet: one that takes no tile at once; land or a
			 * town once its sides facing no land have their default
			 * print (or have no such side) */
			if (lk && cm__square_plain(sq)) {
				if (pass[x])
					continue;
				if ((me[x + 1] & KB_LAND_TOWN) && mw) {
					unsigned l = land_of(up, me, dn, x);
					memcpy(mw[y * C + x].print, &dp[l], 8);
					if (vg)
						vg[2 * ((size_t)y * C + x) + 1] = dpv[l];
					continue;
				}
			}
			if (grid_ok)
				in_range &= cm__square_in_range(m, sq);
			n->starts += sq->kind == CM_SQ_START;
			n->bigcity += sq->kind == CM_SQ_BIGCITY;
			if (n->has_square && sq->kind == CM_SQ_ISLAND && sq->island >= 0 &&
			    (size_t)sq->island < m->n_islands)
				n->has_square[sq->island] = true;
			bool sq_quiet = square_quiet(m, mw, x, y, quiet);
			/* the square is final (square_quiet wrote its default prints) */
			if (vg && cm__map_grid_pack(sq, vg + 2 * ((size_t)y * C + x)) != 0) {
				if (cm_grow((void **)&vsq, &vcap, vn, sizeof *vsq)) {
					free(vg); /* no memory: no view */
					vg = NULL;
				} else {
					vsq[vn++] = (size_t)y * C + x;
				}
			}
			if (sq_quiet)
				continue;
			const cm_square_extra *e = m->extras ? cm_map_extra_find(m, y * m->cols + x) : NULL;
			bool playable = cm_square_kind_playable(sq->kind);
			for (int s = 0; s < MAX_SIDE; s++) {
				const cm_edge_print *p = &sq->print[s];
				unsigned line = sq_line(m, sq, e ? e->line[s] : 0);
				const char *side = cm_side_name((cm_side)s);
				if (!playable && p->kind != CM_PRINT_NONE)
					chk_sq_at(m, d, x, y, "CM0203", line, "side", WHERE_SIDE,
					    "%s print on side %s of square (%d,%d), which is %s: only squares that take tiles have edge prints",
					    cm_print_kind_name(p->kind), side, x, y, cm_square_kind_name(sq->kind));
				if (!playable)
					continue;
				bool land = cm_map_faces_land(m, x, y, s);
				if (land && p->kind != CM_PRINT_NONE)
					chk_sq_at(m, d, x, y, "CM0203", line, "side", WHERE_SIDE,
					    "%s print on side %s of square (%d,%d) faces a square that takes tiles or a big city",
					    cm_print_kind_name(p->kind), side, x, y);
				else if (!land && p->kind == CM_PRINT_NONE)
					chk_sq(m, d, x, y, "CM0203", line, WHERE_SIDE,
					    "side %s of square (%d,%d) faces the map edge and has no print", side, x, y);
				if (p->kind == CM_PRINT_NEUTRAL && p->arms)
					chk_sq_at(m, d, x, y, "CM0203", line, "arms", WHERE_SIDE,
					    "neutral print on side %s of square (%d,%d) has coats of arms: print a road or a city",
					    side, x, y);
			}
			if (quiet && (quiet[y * m->cols + x] & CM_MAP_QUIET_ISLAND))
				continue;
			unsigned line = sq_line(m, sq, 0);
			if (sq->kind == CM_SQ_ISLAND && sq->island < 0)
				chk_sq(m, d, x, y, "CM0205", line, WHERE_SQ, "island square (%d,%d) names no island", x, y);
			else if (sq->island >= 0 && (size_t)sq->island >= m->n_islands)
				chk_sq(m, d, x, y, "CM0205", line, WHERE_SQ, "square (%d,%d) names island %d, which does not exist", x,
				    y, sq->island);
			else if (sq->kind != CM_SQ_ISLAND && sq->island >= 0)
				chk_sq(m, d, x, y, "CM0205", line, WHERE_SQ,
				    "square (%d,%d) is %s and names island %s: only island squares do", x, y,
				    cm_square_kind_name(sq->kind), m->islands[sq->island].name);
			if (sq->kind != CM_SQ_ISLAND && sq->arms)
				chk_sq(m, d, x, y, "CM0205", line, WHERE_SQ,
				    "square (%d,%d) is %s and has coats of arms: only island squares have them", x, y,
				    cm_square_kind_name(sq->kind));
		}
	}
	if (vg && lk) {
		(void)cm__map_grid_adopt(m, vg, vsq, vn, view); /* no memory: no view (the pack writer makes one) */
	} else {
		free(vg);
		free(vsq);
	}
	free(lk);
	if (grid_ok)
		*grid_ok = in_range;
}
#undef WHERE_SIDE
#undef WHERE_SQ

/* Ferries join road prints (CM0204), and every island is reached by one (CM0206). */
static void check_ferries(const cm_map *m, cm_diags *d, const bool *has_square)
{
	char w[WHERE_MAX];
	bool *reached = calloc(m->n_islands ? m->n_islands : 1, sizeof *reached);
	if (!reached)
		goto out;
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		const int ex[2] = { f->x1, f->x2 }, ey[2] = { f->y1, f->y2 };
		const cm_side es[2] = { f->s1, f->s2 };
		/* the where strings only for a diagnostic (WF) */
#define WF where_fmt(w, m, "ferry %zu", i)
		for (int e = 0; e < 2; e++) {
			const cm_square *sq = cm__map_at(m, ex[e], ey[e]);
			if (!sq) {
				chk_at(m, d, "CM0201", f->line, ex[e] < 0 || ex[e] >= m->cols ? (e ? "x2" : "x1") : (e ? "y2" : "y1"), WF, "ferry end (%d,%d) is outside the %dx%d grid", ex[e], ey[e],
				    m->cols, m->rows);
				continue;
			}
			if ((unsigned)es[e] >= MAX_SIDE || sq->print[es[e]].kind != CM_PRINT_ROAD)
				chk_at(m, d, "CM0204", f->line, e ? "side2" : "side1", WF,
				    "ferry end at side %s of square (%d,%d) is %s, not a road edge print",
				    cm_side_name(es[e]), ex[e], ey[e],
				    (unsigned)es[e] < MAX_SIDE ? cm_print_kind_name(sq->print[es[e]].kind) : "?");
			if (sq->island >= 0 && (size_t)sq->island < m->n_islands)
				reached[sq->island] = true;
		}
		if (f->x1 == f->x2 && f->y1 == f->y2 && f->s1 == f->s2)
			chk_at(m, d, "CM0204", f->line, "side2", WF, "ferry starts and ends at side %s of square (%d,%d)",
			    cm_side_name(f->s1), f->x1, f->y1);
	}
#undef WF
	check_ferry_ends(m, d);
	for (size_t i = 0; i < m->n_islands; i++) {
		const cm_island *is = &m->islands[i];
		const char *name = is->name ? is->name : "?";
		if (!has_square[i])
			chk_at(m, d, "CM0205", is->line, "id", where_fmt(w, m, "island %s", name), "island %s has no squares", name);
		else if (!reached[i])
			chk_at(m, d, "CM0206", is->line, "id", where_fmt(w, m, "island %s", name), "island %s is reached by no ferry: its squares can never take a tile",
			    name);
	}
out:
	free(reached);
}

static void structure(const cm_map *m, cm_diags *d, const uint8_t *quiet, cm_square *mw, bool *grid_ok,
                      cm_map_grid *view)
{
	char w[WHERE_MAX];
	square_counts sc = { 0, 0, m->n_islands ? calloc(m->n_islands, sizeof *sc.has_square) : NULL };
	if (m->n_islands && !sc.has_square)
		return;
	check_squares(m, d, quiet, &sc, mw, grid_ok, view);
	check_ferries(m, d, sc.has_square);
	free(sc.has_square);
	int starts = sc.starts;
	/* big-city pieces: placement, one city per square, features, matching */
	size_t n = (size_t)m->cols * (size_t)m->rows;
	const cm_bigcity_piece **at = calloc(n, sizeof *at);
	uint8_t *count = calloc(n, 1);
	if (!at || !count)
		goto out;
	size_t ones = 0; /* big-city squares under exactly one piece */
	for (size_t c = 0; c < m->n_bigcities; c++) {
		const cm_bigcity *bc = &m->bigcities[c];
		const char *name = bc->name ? bc->name : "?";
		for (size_t k = 0; k < bc->n_pieces; k++) {
			const cm_bigcity_piece *pc = &bc->pieces[k];
			const cm_square *sq = cm__map_at(m, pc->x, pc->y);
			unsigned line = pc->tile.line ? pc->tile.line : bc->line;
			/* the where string only for a diagnostic (thousands of pieces) */
#define WP where_fmt(w, m, "big city %s, piece (%d,%d)", name, pc->x, pc->y)
			if (!sq) {
				chk_at(m, d, "CM0201", line, pc->x < 0 || pc->x >= m->cols ? "x" : "y", WP, "piece (%d,%d) of big city %s is outside the %dx%d grid", pc->x,
				    pc->y, name, m->cols, m->rows);
			} else {
				size_t i = (size_t)pc->y * (size_t)m->cols + (size_t)pc->x;
				if (sq->kind != CM_SQ_BIGCITY) {
					chk_at(m, d, "CM0208", line, "<piece", WP, "piece (%d,%d) of big city %s lies on a %s square", pc->x,
					    pc->y, name, cm_square_kind_name(sq->kind));
					cm_diags_set_square(d, pc->x, pc->y); /* framed on pictures, (x,y) in lists */
				}
#undef WP
				if (count[i] < 255)
					count[i]++;
				if (sq->kind == CM_SQ_BIGCITY)
					ones += count[i] == 1 ? 1 : count[i] == 2 ? (size_t)-1 : 0;
				if (!at[i])
					at[i] = pc;
			}
			check_piece(m, d, bc, pc);
		}
	}
	/* every big-city square one piece's (the count of them is that of the
	 * big-city squares): nothing to say, no pass over the grid */
	for (int y = 0; sc.bigcity != ones && y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = cm__map_at(m, x, y);
			size_t i = (size_t)y * (size_t)m->cols + (size_t)x;
			if (sq->kind != CM_SQ_BIGCITY || count[i] == 1)
				continue;
			where_fmt(w, m, "square (%d,%d)", x, y);
			if (count[i] == 0)
				chk_sq(m, d, x, y, "CM0208", sq_line(m, sq, 0), w,
				       "big-city square (%d,%d) is a piece of no big city", x, y);
			else
				chk_sq(m, d, x, y, "CM0208", at[i]->tile.line, w,
				       "big-city square (%d,%d) has %d pieces, one expected", x, y, count[i]);
		}
	check_bigcities(m, d, at);
	/* setup (MAP-START, MAP-TILES) */
	const cm_setup *su = &m->setup;
	unsigned sline = su->line ? su->line : m->file ? m->line : 0;
	where_fmt(w, m, "setup");
	if (su->starts_used > starts)
		chk_at(m, d, "CM0210", sline, "starts", w, "setup uses %d start squares, the map has %d", su->starts_used, starts);
	if (su->starts_used < 1)
		chk_at(m, d, "CM0214", sline, "starts", w, "setup uses no start square: at least one is needed");
	if (su->tiles_min < 0 || su->tiles_max < 0 || (su->tiles_min && su->tiles_max && su->tiles_min > su->tiles_max))
		chk_at(m, d, "CM0214", sline, su->tiles_max < 0 && su->tiles_min >= 0 ? "tiles-max" : "tiles-min", w, "recommended tile range %d-%d is empty", su->tiles_min, su->tiles_max);
	if (su->followers < 1)
		chk_at(m, d, "CM0214", sline, "followers", w, "setup gives %d followers per player, at least 1 is needed", su->followers);
	check_names(m, d);
	/* deck entries named twice: found through an index of the entries, and
	 * each repeated entry reported once, on its second line, with a count */
	check_deck_twice(m, d);
out:
	free(at);
	free(count);
}

void cm_map_check_structure(const cm_map *m, cm_diags *d, const uint8_t *quiet)
{
	structure(m, d, quiet, NULL, NULL, NULL);
}

void cm__map_prints_check_structure(const cm_map *m, cm_square *grid, cm_diags *d, const uint8_t *quiet,
                                    bool *grid_ok, cm_map_grid *view)
{
	*grid_ok = false;
	structure(m, d, quiet, grid, grid_ok, view);
}

int cm_map_check_deck(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, cm_diags *d)
{
	size_t errors = cm_diags_errors(d);
	char w[WHERE_MAX];
	for (size_t i = 0; i < m->n_deck; i++) {
		const cm_deck_entry *e = &m->deck[i];
		const cm_tileset *ts = NULL;
		for (size_t k = 0; !ts && k < n_sets; k++)
			if (sets[k] && sets[k]->id && e->tileset && strcmp(sets[k]->id, e->tileset) == 0)
				ts = sets[k];
		where_fmt(w, m, "deck entry %zu", i);
		if (!ts) {
			chk_at(m, d, "CM0212", e->line, e->tile ? "set" : "id", w, "deck names tile set %s, which is not among the tile sets given",
			    e->tileset ? e->tileset : "?");
			continue;
		}
		bool found = !e->tile;
		for (size_t k = 0; !found && k < ts->n_tiles; k++)
			found = ts->tiles[k].id && strcmp(ts->tiles[k].id, e->tile) == 0;
		if (!found)
			chk_at(m, d, "CM0213", e->line, "id", w, "deck names tile %s, which tile set %s does not have", e->tile,
			    ts->id);
	}
	return cm_diags_errors(d) > errors ? CM_EINVAL : 0;
}

int cm_map_check(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, cm_diags *d)
{
	size_t errors = cm_diags_errors(d);
	cm_map_check_structure(m, d, NULL);
	if (n_sets)
		cm_map_check_deck(m, sets, n_sets, d);
	return cm_diags_errors(d) > errors ? CM_EINVAL : 0;
}

