/* SPDX-License-Identifier: MIT */
/* diff.c: the differences between two maps (carcamap/diff.h): one pass
 * over the union of the two grids per section, elements (big cities,
 * ferries, islands, deck entries) matched by what identifies them through
 * sorted keys, never by pairwise search, so the cost is linear in the
 * maps but for one sort per list. Item texts live in an arena of blocks
 * that never move, so the items' pointers stay valid. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/diff.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

/* A block of the text arena; text follows the header. */
typedef struct block {
	struct block *next;
	size_t used, size;
} block;

struct cm_diff {
	cm_diff_item *v;
	size_t n, cap;
	block *mem;
	int kinds[2][CM_SQ_KIND_COUNT];
	int err; /* CM_ENOMEM once anything failed */
};

static const char *const section_names[CM_DIFF_SECTION_COUNT] = {
	"map", "square", "name", "bigcity", "piece", "print", "ferry", "island", "marker", "setup", "deck", "rules",
};

const char *cm_diff_section_name(cm_diff_section s)
{
	return (unsigned)s < CM_DIFF_SECTION_COUNT ? section_names[s] : NULL;
}

const char *cm_diff_change_name(cm_diff_change c)
{
	static const char *const names[] = { "changed", "added", "removed" };
	return (unsigned)c < 3 ? names[c] : NULL;
}

size_t cm_diff_count(const cm_diff *d)
{
	return d ? d->n : 0;
}

const cm_diff_item *cm_diff_get(const cm_diff *d, size_t i)
{
	return d && i < d->n ? &d->v[i] : NULL;
}

bool cm_diff_equal(const cm_diff *d)
{
	return cm_diff_count(d) == 0;
}

int cm_diff_kind_count(const cm_diff *d, int which, cm_square_kind k)
{
	return d && (which == 0 || which == 1) && (unsigned)k < CM_SQ_KIND_COUNT ? d->kinds[which][k] : 0;
}

void cm_diff_free(cm_diff *d)
{
	if (!d)
		return;
	for (block *b = d->mem, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(d->v);
	free(d);
}

/* ---- the arena ---- */

/* Room for len bytes in the arena, or NULL (d->err set). */
static char *room(cm_diff *d, size_t len)
{
	block *b = d->mem;
	if (!b || b->size - b->used < len) {
		size_t size = len > 65536 - sizeof *b ? len : 65536 - sizeof *b;
		block *nb = malloc(sizeof *nb + size);
		if (!nb) {
			d->err = CM_ENOMEM;
			return NULL;
		}
		nb->next = b;
		nb->used = 0;
		nb->size = size;
		d->mem = b = nb;
	}
	char *p = (char *)(b + 1) + b->used;
	b->used += len;
	return p;
}

/* A copy of s in the arena (NULL for NULL). */
static const char *keep(cm_diff *d, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = room(d, n);
	return p ? memcpy(p, s, n) : NULL;
}

static const char *keepf(cm_diff *d, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static const char *keepf(cm_diff *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n < 0 ? NULL : room(d, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* A text grown piece by piece (lists of squares, of markers), then kept. */
typedef struct {
	char *s;
	size_t n, cap;
	bool err;
} text;

static void text_add(text *t, const char *s)
{
	size_t k = strlen(s);
	if (t->err)
		return;
	if (t->n + k + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 64;
		while (cap < t->n + k + 1)
			cap *= 2;
		char *p = realloc(t->s, cap);
		if (!p) {
			t->err = true;
			return;
		}
		t->s = p;
		t->cap = cap;
	}
	memcpy(t->s + t->n, s, k + 1);
	t->n += k;
}

/* The text kept in the arena (t freed), or NULL (d->err set). */
static const char *text_keep(cm_diff *d, text *t)
{
	const char *r = NULL;
	if (t->err)
		d->err = CM_ENOMEM;
	else
		r = keep(d, t->s ? t->s : "");
	free(t->s);
	memset(t, 0, sizeof *t);
	return r;
}

/* ---- items ---- */

typedef struct {
	cm_diff_section section;
	int x, y, side;
	const char *subject;
	unsigned line_a, line_b;
} place;

static place at(cm_diff_section s, int x, int y, int side, const char *subject, unsigned la, unsigned lb)
{
	place p = { s, x, y, side, subject, la, lb };
	return p;
}

/* Adds an item: changed when both values are there, added when only b,
 * removed when only a. Values and subject must live in the arena or be
 * static. */
static void add(cm_diff *d, const place *p, const char *field, const char *a, const char *b)
{
	if (d->err)
		return;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		cm_diff_item *v = realloc(d->v, cap * sizeof *v);
		if (!v) {
			d->err = CM_ENOMEM;
			return;
		}
		d->v = v;
		d->cap = cap;
	}
	cm_diff_item *it = &d->v[d->n++];
	it->section = p->section;
	it->change = a && b ? CM_DIFF_CHANGED : b ? CM_DIFF_ADDED : CM_DIFF_REMOVED;
	it->x = p->x;
	it->y = p->y;
	it->side = p->side;
	it->subject = p->subject;
	it->field = field;
	it->a = a;
	it->b = b;
	it->line_a = p->line_a;
	it->line_b = p->line_b;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* An item when the texts differ (NULL is absent). */
static void add_str(cm_diff *d, const place *p, const char *field, const char *a, const char *b)
{
	if (!str_eq(a, b))
		add(d, p, field, keep(d, a), keep(d, b));
}

static void add_int(cm_diff *d, const place *p, const char *field, long long a, long long b)
{
	if (a != b)
		add(d, p, field, keepf(d, "%lld", a), keepf(d, "%lld", b));
}

/* ---- sorted keys, for matching elements of the two maps ---- */

typedef struct {
	const char *name;  /* NULL sorts first */
	long long k1, k2;
	int idx;
	int which;         /* 0: from a, 1: from b */
} key;

static int key_cmp(const void *p, const void *q)
{
	const key *x = p, *y = q;
	int c = x->name && y->name ? strcmp(x->name, y->name) : (x->name != NULL) - (y->name != NULL);
	if (c)
		return c;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	if (x->which != y->which)
		return x->which - y->which;
	return x->idx - y->idx;
}

static bool key_same(const key *x, const key *y)
{
	return str_eq(x->name, y->name) && x->k1 == y->k1 && x->k2 == y->k2;
}

/* Matches the n keys (from both maps, which 0 and 1) by equal name, k1
 * and k2: for each, in equal runs, the i-th of a with the i-th of b.
 * ma[a index] and mb[b index] receive the partner, or keep -1. Keys of
 * elements already matched are given with idx -1 and skipped. */
static void match_keys(key *k, size_t n, int *ma, int *mb)
{
	qsort(k, n, sizeof *k, key_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && key_same(&k[i], &k[j]))
			j++;
		size_t ia = i, ib = i;
		while (ib < j && k[ib].which == 0)
			ib++;
		for (; ia < j && k[ia].which == 0 && ib < j; ia++, ib++) {
			ma[k[ia].idx] = k[ib].idx;
			mb[k[ib].idx] = k[ia].idx;
		}
		i = j;
	}
}

/* ---- the grid ---- */

typedef struct {
	const cm_map *a, *b;
	int cols, rows; /* the union of the grids */
} grids;

static const cm_square none_square = { .kind = CM_SQ_NONE, .island = -1, .bigcity = -1 };

static const cm_square *sq_of(const cm_map *m, int x, int y)
{
	const cm_square *s = cm__map_at(m, x, y);
	return s ? s : &none_square;
}

static void diff_map(cm_diff *d, const cm_map *a, const cm_map *b)
{
	place p = at(CM_DIFF_MAP, -1, -1, -1, NULL, a->line, b->line);
	add_str(d, &p, "id", a->id, b->id);
	add_str(d, &p, "name", a->name, b->name);
	if (a->cols != b->cols || a->rows != b->rows)
		add(d, &p, "size", keepf(d, "%dx%d", a->cols, a->rows), keepf(d, "%dx%d", b->cols, b->rows));
	for (int i = 0; i < CM_ABOUT_FIELDS; i++)
		add_str(d, &p, cm_about_name(i), cm_about_get(&a->about, i), cm_about_get(&b->about, i));
}

static void diff_squares(cm_diff *d, const grids *g)
{
	for (int y = 0; y < g->rows; y++)
		for (int x = 0; x < g->cols; x++) {
			const cm_square *sa = sq_of(g->a, x, y), *sb = sq_of(g->b, x, y);
			d->kinds[0][sa->kind < CM_SQ_KIND_COUNT ? sa->kind : 0] += cm__map_at(g->a, x, y) != NULL;
			d->kinds[1][sb->kind < CM_SQ_KIND_COUNT ? sb->kind : 0] += cm__map_at(g->b, x, y) != NULL;
			if (sa->kind == sb->kind)
				continue;
			place p = at(CM_DIFF_SQUARE, x, y, -1, NULL, sa->line, sb->line);
			add(d, &p, "kind", sa->kind ? cm_square_kind_name((cm_square_kind)sa->kind) : NULL,
			    sb->kind ? cm_square_kind_name((cm_square_kind)sb->kind) : NULL);
		}
}

static void diff_names(cm_diff *d, const grids *g)
{
	for (int y = 0; y < g->rows; y++)
		for (int x = 0; x < g->cols; x++) {
			const char *na = cm_map_square_name(g->a, x, y), *nb = cm_map_square_name(g->b, x, y);
			if (str_eq(na, nb))
				continue;
			place p = at(CM_DIFF_NAME, x, y, -1, NULL, sq_of(g->a, x, y)->line, sq_of(g->b, x, y)->line);
			add(d, &p, "name", keep(d, na), keep(d, nb));
		}
}

/* ---- big cities and their pieces ---- */

/* The features of a piece (or tile) as one text: "city c1 Nw Nm Ne 2 arms
 * cathedral; road r1 Sm; field f1 ... touches c1", contacts at the end. */
static const char *features_text(cm_diff *d, const cm_tile_type *t)
{
	text s = { 0 };
	char buf[160];
	for (size_t i = 0; i < t->n_features; i++) {
		const cm_feature *f = &t->features[i];
		if (i)
			text_add(&s, "; ");
		text_add(&s, cm_feature_kind_name(f->kind));
		if (f->id) {
			text_add(&s, " ");
			text_add(&s, f->id);
		}
		if (f->slots) {
			cm_slots_format(f->slots, buf, sizeof buf);
			text_add(&s, " ");
			text_add(&s, buf);
		}
		if (f->arms) {
			snprintf(buf, sizeof buf, " %u arms", (unsigned)f->arms);
			text_add(&s, buf);
		}
		if (f->cathedral)
			text_add(&s, " cathedral");
		if (f->inn)
			text_add(&s, " inn");
		if (f->good) {
			text_add(&s, " ");
			text_add(&s, cm_good_name(f->good));
		}
		for (size_t k = 0; k < t->n_features && k < 32; k++)
			if (f->touches & (1u << k)) {
				text_add(&s, " touches ");
				text_add(&s, t->features[k].id ? t->features[k].id : "?");
			}
	}
	for (size_t c = 0; c < t->n_contacts; c++) {
		text_add(&s, c ? "," : "; contacts");
		for (size_t k = 0; k < t->n_features && k < 32; k++)
			if (t->contacts[c] & (1u << k)) {
				text_add(&s, " ");
				text_add(&s, t->features[k].id ? t->features[k].id : "?");
			}
	}
	return text_keep(d, &s);
}

/* The squares of a big city as text, "(3,4) (4,4)". */
static const char *city_squares(cm_diff *d, const cm_bigcity *c)
{
	text s = { 0 };
	char buf[48];
	for (size_t i = 0; i < c->n_pieces; i++) {
		snprintf(buf, sizeof buf, "%s(%d,%d)", i ? " " : "", c->pieces[i].x, c->pieces[i].y);
		text_add(&s, buf);
	}
	return text_keep(d, &s);
}

/* The first square of a big city in reading order. */
static void city_first(const cm_bigcity *c, int *x, int *y)
{
	*x = *y = -1;
	for (size_t i = 0; i < c->n_pieces; i++) {
		const cm_bigcity_piece *q = &c->pieces[i];
		if (*y < 0 || q->y < *y || (q->y == *y && q->x < *x)) {
			*x = q->x;
			*y = q->y;
		}
	}
}

/* Whether big city j of b covers exactly the squares of big city i of a. */
static bool same_footprint(const cm_map *a, size_t i, const cm_map *b, size_t j)
{
	const cm_bigcity *ca = &a->bigcities[i], *cb = &b->bigcities[j];
	if (ca->n_pieces != cb->n_pieces)
		return false;
	for (size_t k = 0; k < ca->n_pieces; k++) {
		const cm_square *s = cm__map_at(b, ca->pieces[k].x, ca->pieces[k].y);
		if (!s || s->bigcity != (int32_t)j)
			return false;
	}
	return true;
}

/* Matches the big cities: by the squares they cover, then by name. */
static int match_cities(const cm_map *a, const cm_map *b, int *ma, int *mb)
{
	size_t na = a->n_bigcities, nb = b->n_bigcities;
	for (size_t i = 0; i < na; i++)
		ma[i] = -1;
	for (size_t j = 0; j < nb; j++)
		mb[j] = -1;
	for (size_t i = 0; i < na; i++) {
		const cm_bigcity *c = &a->bigcities[i];
		if (!c->n_pieces)
			continue;
		const cm_square *s = cm__map_at(b, c->pieces[0].x, c->pieces[0].y);
		if (s && s->bigcity >= 0 && (size_t)s->bigcity < nb && mb[s->bigcity] < 0 &&
		    same_footprint(a, i, b, (size_t)s->bigcity)) {
			ma[i] = s->bigcity;
			mb[s->bigcity] = (int)i;
		}
	}
	key *k = malloc((na + nb + 1) * sizeof *k);
	if (!k)
		return CM_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < na; i++)
		if (ma[i] < 0)
			k[n++] = (key){ a->bigcities[i].name, 0, 0, (int)i, 0 };
	for (size_t j = 0; j < nb; j++)
		if (mb[j] < 0)
			k[n++] = (key){ b->bigcities[j].name, 0, 0, (int)j, 1 };
	match_keys(k, n, ma, mb);
	free(k);
	return 0;
}

typedef struct {
	int sq, idx;
} piece_key;

static int piece_cmp(const void *p, const void *q)
{
	const piece_key *x = p, *y = q;
	return x->sq != y->sq ? (x->sq < y->sq ? -1 : 1) : x->idx - y->idx;
}

/* The pieces of a matched pair of big cities, merged by square. */
static void diff_pieces(cm_diff *d, const cm_map *a, const cm_bigcity *ca, const cm_map *b, const cm_bigcity *cb)
{
	size_t na = ca->n_pieces, nb = cb->n_pieces;
	piece_key *ka = malloc((na + 1) * sizeof *ka), *kb = malloc((nb + 1) * sizeof *kb);
	if (!ka || !kb) {
		free(ka);
		free(kb);
		d->err = CM_ENOMEM;
		return;
	}
	/* squares numbered on the wider grid, so both maps agree */
	long cols = a->cols > b->cols ? a->cols : b->cols;
	for (size_t i = 0; i < na; i++)
		ka[i] = (piece_key){ (int)(ca->pieces[i].y * cols + ca->pieces[i].x), (int)i };
	for (size_t i = 0; i < nb; i++)
		kb[i] = (piece_key){ (int)(cb->pieces[i].y * cols + cb->pieces[i].x), (int)i };
	qsort(ka, na, sizeof *ka, piece_cmp);
	qsort(kb, nb, sizeof *kb, piece_cmp);
	const char *subject = keep(d, cb->name ? cb->name : ca->name);
	for (size_t i = 0, j = 0; i < na || j < nb;) {
		bool in_a = i < na && (j >= nb || ka[i].sq <= kb[j].sq);
		bool in_b = j < nb && (i >= na || kb[j].sq <= ka[i].sq);
		const cm_bigcity_piece *pa = in_a ? &ca->pieces[ka[i].idx] : NULL;
		const cm_bigcity_piece *pb = in_b ? &cb->pieces[kb[j].idx] : NULL;
		const cm_bigcity_piece *q = pa ? pa : pb;
		place p = at(CM_DIFF_PIECE, q->x, q->y, -1, subject, pa ? pa->tile.line : 0, pb ? pb->tile.line : 0);
		const char *ta = pa ? features_text(d, &pa->tile) : NULL;
		const char *tb = pb ? features_text(d, &pb->tile) : NULL;
		if (!pa || !pb || !str_eq(ta, tb))
			add(d, &p, "features", ta, tb);
		i += in_a;
		j += in_b;
	}
	free(ka);
	free(kb);
}

static void diff_cities(cm_diff *d, const cm_map *a, const cm_map *b)
{
	size_t na = a->n_bigcities, nb = b->n_bigcities;
	int *ma = malloc((na + 1) * sizeof *ma), *mb = malloc((nb + 1) * sizeof *mb);
	if (!ma || !mb || match_cities(a, b, ma, mb)) {
		d->err = CM_ENOMEM;
		free(ma);
		free(mb);
		return;
	}
	int x, y;
	for (size_t i = 0; i < na; i++) {
		const cm_bigcity *ca = &a->bigcities[i];
		const cm_bigcity *cb = ma[i] >= 0 ? &b->bigcities[ma[i]] : NULL;
		city_first(ca, &x, &y);
		place p = at(CM_DIFF_BIGCITY, x, y, -1, keep(d, ca->name), ca->line, cb ? cb->line : 0);
		if (!cb) {
			add(d, &p, "squares", city_squares(d, ca), NULL);
			continue;
		}
		add_str(d, &p, "name", ca->name, cb->name);
	}
	for (size_t j = 0; j < nb; j++) {
		const cm_bigcity *cb = &b->bigcities[j];
		if (mb[j] >= 0)
			continue;
		city_first(cb, &x, &y);
		place p = at(CM_DIFF_BIGCITY, x, y, -1, keep(d, cb->name), 0, cb->line);
		add(d, &p, "squares", NULL, city_squares(d, cb));
	}
	for (size_t i = 0; i < na && !d->err; i++)
		if (ma[i] >= 0)
			diff_pieces(d, a, &a->bigcities[i], b, &b->bigcities[ma[i]]);
	free(ma);
	free(mb);
}

/* ---- edge prints ---- */

/* "road", "city, 2 coats of arms" */
static const char *print_text(cm_diff *d, cm_edge_print e)
{
	const char *k = cm_print_kind_name((cm_print_kind)e.kind);
	return e.arms ? keepf(d, "%s, %u coat%s of arms", k, (unsigned)e.arms, e.arms == 1 ? "" : "s") : k;
}

static void diff_prints(cm_diff *d, const grids *g)
{
	for (int y = 0; y < g->rows; y++)
		for (int x = 0; x < g->cols; x++) {
			const cm_square *sa = sq_of(g->a, x, y), *sb = sq_of(g->b, x, y);
			for (int s = 0; s < 4; s++) {
				cm_edge_print pa = sa->print[s], pb = sb->print[s];
				const char *la = cm_map_print_label(g->a, x, y, (cm_side)s);
				const char *lb = cm_map_print_label(g->b, x, y, (cm_side)s);
				if (pa.kind == pb.kind && pa.arms == pb.arms && str_eq(la, lb))
					continue;
				place p = at(CM_DIFF_PRINT, x, y, s, NULL, cm_map_print_line(g->a, x, y, (cm_side)s),
				             cm_map_print_line(g->b, x, y, (cm_side)s));
				/* neutral or none: what the squares around decide */
				bool ra = pa.kind >= CM_PRINT_ROAD, rb = pb.kind >= CM_PRINT_ROAD;
				if ((ra || rb) && pa.kind != pb.kind)
					add(d, &p, "kind", ra ? print_text(d, pa) : NULL, rb ? print_text(d, pb) : NULL);
				else if (pa.arms != pb.arms)
					add_int(d, &p, "arms", pa.arms, pb.arms);
				add_str(d, &p, "label", la, lb);
			}
		}
}

/* ---- ferries ---- */

/* A ferry's ends as one key: each end is (square on the wider grid) * 4 +
 * side, the smaller end first. */
static void ferry_key(const cm_ferry *f, long cols, long long *k1, long long *k2)
{
	long long e1 = ((long long)f->y1 * cols + f->x1) * 4 + f->s1;
	long long e2 = ((long long)f->y2 * cols + f->x2) * 4 + f->s2;
	*k1 = e1 < e2 ? e1 : e2;
	*k2 = e1 < e2 ? e2 : e1;
}

static const char *ferry_ends(cm_diff *d, const cm_ferry *f)
{
	return keepf(d, "(%d,%d) %s - (%d,%d) %s", f->x1, f->y1, cm_side_name(f->s1), f->x2, f->y2,
	             cm_side_name(f->s2));
}

static const char *ferry_subject(cm_diff *d, const cm_ferry *f)
{
	return keep(d, f->name);
}

static void diff_ferries(cm_diff *d, const cm_map *a, const cm_map *b)
{
	size_t na = a->n_ferries, nb = b->n_ferries;
	long cols = a->cols > b->cols ? a->cols : b->cols;
	int *ma = malloc((na + 1) * sizeof *ma), *mb = malloc((nb + 1) * sizeof *mb);
	key *k = malloc((na + nb + 1) * sizeof *k);
	if (!ma || !mb || !k) {
		d->err = CM_ENOMEM;
		goto done;
	}
	for (size_t i = 0; i < na; i++)
		ma[i] = -1;
	for (size_t j = 0; j < nb; j++)
		mb[j] = -1;
	/* by their ends, then the rest by name */
	size_t n = 0;
	for (size_t i = 0; i < na; i++) {
		k[n] = (key){ NULL, 0, 0, (int)i, 0 };
		ferry_key(&a->ferries[i], cols, &k[n].k1, &k[n].k2);
		n++;
	}
	for (size_t j = 0; j < nb; j++) {
		k[n] = (key){ NULL, 0, 0, (int)j, 1 };
		ferry_key(&b->ferries[j], cols, &k[n].k1, &k[n].k2);
		n++;
	}
	match_keys(k, n, ma, mb);
	n = 0;
	for (size_t i = 0; i < na; i++)
		if (ma[i] < 0 && a->ferries[i].name)
			k[n++] = (key){ a->ferries[i].name, 0, 0, (int)i, 0 };
	for (size_t j = 0; j < nb; j++)
		if (mb[j] < 0 && b->ferries[j].name)
			k[n++] = (key){ b->ferries[j].name, 0, 0, (int)j, 1 };
	match_keys(k, n, ma, mb);
	for (size_t i = 0; i < na; i++) {
		const cm_ferry *fa = &a->ferries[i], *fb = ma[i] >= 0 ? &b->ferries[ma[i]] : NULL;
		place p = at(CM_DIFF_FERRY, fa->x1, fa->y1, (int)fa->s1, ferry_subject(d, fa), fa->line,
		             fb ? fb->line : 0);
		if (!fb) {
			add(d, &p, "ends", ferry_ends(d, fa), NULL);
			continue;
		}
		add_str(d, &p, "name", fa->name, fb->name);
		long long a1, a2, b1, b2;
		ferry_key(fa, cols, &a1, &a2);
		ferry_key(fb, cols, &b1, &b2);
		if (a1 != b1 || a2 != b2)
			add(d, &p, "ends", ferry_ends(d, fa), ferry_ends(d, fb));
		add_int(d, &p, "arms", fa->arms, fb->arms);
	}
	for (size_t j = 0; j < nb; j++) {
		const cm_ferry *fb = &b->ferries[j];
		if (mb[j] >= 0)
			continue;
		place p = at(CM_DIFF_FERRY, fb->x1, fb->y1, (int)fb->s1, ferry_subject(d, fb), 0, fb->line);
		add(d, &p, "ends", NULL, ferry_ends(d, fb));
	}
done:
	free(ma);
	free(mb);
	free(k);
}

/* ---- islands ---- */

static const char *island_name(const cm_map *m, int32_t i)
{
	return i >= 0 && (size_t)i < m->n_islands ? m->islands[i].name : NULL;
}

static void diff_islands(cm_diff *d, const grids *g)
{
	const cm_map *a = g->a, *b = g->b;
	size_t na = a->n_islands, nb = b->n_islands;
	int *ma = malloc((na + 1) * sizeof *ma), *mb = malloc((nb + 1) * sizeof *mb);
	key *k = malloc((na + nb + 1) * sizeof *k);
	/* each island's first square in reading order, for its place */
	int *first_a = malloc((na + 1) * sizeof *first_a), *first_b = malloc((nb + 1) * sizeof *first_b);
	if (!ma || !mb || !k || !first_a || !first_b) {
		d->err = CM_ENOMEM;
		goto done;
	}
	size_t n = 0;
	for (size_t i = 0; i < na; i++) {
		ma[i] = first_a[i] = -1;
		k[n++] = (key){ a->islands[i].name, 0, 0, (int)i, 0 };
	}
	for (size_t j = 0; j < nb; j++) {
		mb[j] = first_b[j] = -1;
		k[n++] = (key){ b->islands[j].name, 0, 0, (int)j, 1 };
	}
	match_keys(k, n, ma, mb);
	for (int y = 0; y < g->rows; y++)
		for (int x = 0; x < g->cols; x++) {
			int32_t ia = sq_of(a, x, y)->island, ib = sq_of(b, x, y)->island;
			if (ia >= 0 && (size_t)ia < na && first_a[ia] < 0)
				first_a[ia] = y * g->cols + x;
			if (ib >= 0 && (size_t)ib < nb && first_b[ib] < 0)
				first_b[ib] = y * g->cols + x;
		}
	for (size_t i = 0; i < na; i++) {
		const cm_island *ia = &a->islands[i], *ib = ma[i] >= 0 ? &b->islands[ma[i]] : NULL;
		int f = first_a[i];
		place p = at(CM_DIFF_ISLAND, f < 0 ? -1 : f % g->cols, f < 0 ? -1 : f / g->cols, -1, keep(d, ia->name),
		             ia->line, ib ? ib->line : 0);
		if (!ib)
			add(d, &p, "island", keep(d, ia->title ? ia->title : ia->name), NULL);
		else
			add_str(d, &p, "title", ia->title, ib->title);
	}
	for (size_t j = 0; j < nb; j++) {
		const cm_island *ib = &b->islands[j];
		if (mb[j] >= 0)
			continue;
		int f = first_b[j];
		place p = at(CM_DIFF_ISLAND, f < 0 ? -1 : f % g->cols, f < 0 ? -1 : f / g->cols, -1, keep(d, ib->name), 0,
		             ib->line);
		add(d, &p, "island", NULL, keep(d, ib->title ? ib->title : ib->name));
	}
	/* the squares: which island, and the coats of arms placing scores */
	for (int y = 0; y < g->rows; y++)
		for (int x = 0; x < g->cols; x++) {
			const cm_square *sa = sq_of(a, x, y), *sb = sq_of(b, x, y);
			const char *na_ = island_name(a, sa->island), *nb_ = island_name(b, sb->island);
			if (str_eq(na_, nb_) && sa->arms == sb->arms)
				continue;
			place p = at(CM_DIFF_ISLAND, x, y, -1, NULL, sa->line, sb->line);
			add_str(d, &p, "island", na_, nb_);
			add_int(d, &p, "arms", sa->arms, sb->arms);
		}
done:
	free(ma);
	free(mb);
	free(k);
	free(first_a);
	free(first_b);
}

/* ---- markers ---- */

static int str_ptr_cmp(const void *p, const void *q)
{
	return strcmp(*(const char *const *)p, *(const char *const *)q);
}

static const char *join(cm_diff *d, const char *const *v, size_t n)
{
	text s = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (i)
			text_add(&s, ", ");
		text_add(&s, v[i]);
	}
	return text_keep(d, &s);
}

/* The markers of one square: those only in a or only in b (as multisets,
 * merged after sorting), or their order when only that changed. */
static void diff_square_markers(cm_diff *d, const place *p, const char *const *ma, size_t na, const char *const *mb,
                                size_t nb)
{
	if (na == nb) {
		size_t i = 0;
		while (i < na && str_eq(ma[i], mb[i]))
			i++;
		if (i == na)
			return;
	}
	const char **sa = malloc((na + 1) * sizeof *sa), **sb = malloc((nb + 1) * sizeof *sb);
	if (!sa || !sb) {
		free(sa);
		free(sb);
		d->err = CM_ENOMEM;
		return;
	}
	if (na) /* an empty list may be NULL */
		memcpy(sa, ma, na * sizeof *sa);
	if (nb)
		memcpy(sb, mb, nb * sizeof *sb);
	qsort(sa, na, sizeof *sa, str_ptr_cmp);
	qsort(sb, nb, sizeof *sb, str_ptr_cmp);
	bool any = false;
	for (size_t i = 0, j = 0; i < na || j < nb;) {
		int c = i >= na ? 1 : j >= nb ? -1 : strcmp(sa[i], sb[j]);
		if (c < 0)
			add(d, p, "marker", keep(d, sa[i++]), NULL);
		else if (c > 0)
			add(d, p, "marker", NULL, keep(d, sb[j++]));
		else
			i++, j++;
		any |= c != 0;
	}
	if (!any)
		add(d, p, "order", join(d, ma, na), join(d, mb, nb));
	free(sa);
	free(sb);
}

static void diff_markers(cm_diff *d, const grids *g)
{
	for (int y = 0; y < g->rows; y++)
		for (int x = 0; x < g->cols; x++) {
			size_t na = 0, nb = 0;
			const char *const *ma = cm_map_square_markers(g->a, x, y, &na);
			const char *const *mb = cm_map_square_markers(g->b, x, y, &nb);
			if (!na && !nb)
				continue;
			place p = at(CM_DIFF_MARKER, x, y, -1, NULL, sq_of(g->a, x, y)->line, sq_of(g->b, x, y)->line);
			diff_square_markers(d, &p, ma, na, mb, nb);
		}
}

/* ---- setup, deck, rules ---- */

static void diff_setup(cm_diff *d, const cm_map *a, const cm_map *b)
{
	const cm_setup *p = &a->setup, *q = &b->setup;
	place w = at(CM_DIFF_SETUP, -1, -1, -1, NULL, p->line, q->line);
	add_int(d, &w, "starts", p->starts_used, q->starts_used);
	add_int(d, &w, "tiles-min", p->tiles_min, q->tiles_min);
	add_int(d, &w, "tiles-max", p->tiles_max, q->tiles_max);
	add_int(d, &w, "followers", p->followers, q->followers);
}

static const char *entry_subject(cm_diff *d, const cm_deck_entry *e)
{
	return e->tile ? keepf(d, "%s/%s", e->tileset ? e->tileset : "?", e->tile) : keep(d, e->tileset);
}

static const char *entry_count(cm_diff *d, const cm_deck_entry *e)
{
	return e->count < 0 ? "as in the set" : keepf(d, "%d", e->count);
}

static void diff_deck(cm_diff *d, const cm_map *a, const cm_map *b)
{
	size_t na = a->n_deck, nb = b->n_deck;
	int *ma = malloc((na + 1) * sizeof *ma), *mb = malloc((nb + 1) * sizeof *mb);
	key *k = malloc((na + nb + 1) * sizeof *k);
	char **ka = calloc(na + 1, sizeof *ka), **kb = calloc(nb + 1, sizeof *kb);
	bool fail = !ma || !mb || !k || !ka || !kb;
	size_t n = 0;
	/* keyed by "set/tile" (a whole set: "set") */
	for (size_t i = 0; !fail && i < na; i++) {
		const cm_deck_entry *e = &a->deck[i];
		fail = !(ka[i] = cm_asprintf("%s/%s", e->tileset ? e->tileset : "", e->tile ? e->tile : ""));
		ma[i] = -1;
		k[n++] = (key){ ka[i], 0, 0, (int)i, 0 };
	}
	for (size_t j = 0; !fail && j < nb; j++) {
		const cm_deck_entry *e = &b->deck[j];
		fail = !(kb[j] = cm_asprintf("%s/%s", e->tileset ? e->tileset : "", e->tile ? e->tile : ""));
		mb[j] = -1;
		k[n++] = (key){ kb[j], 0, 0, (int)j, 1 };
	}
	if (fail) {
		d->err = CM_ENOMEM;
		goto done;
	}
	match_keys(k, n, ma, mb);
	bool changed = false, in_order = na == nb;
	for (size_t i = 0; i < na; i++) {
		const cm_deck_entry *ea = &a->deck[i], *eb = ma[i] >= 0 ? &b->deck[ma[i]] : NULL;
		place p = at(CM_DIFF_DECK, -1, -1, -1, entry_subject(d, ea), ea->line, eb ? eb->line : 0);
		in_order &= ma[i] == (int)i;
		if (!eb)
			add(d, &p, "count", entry_count(d, ea), NULL);
		else if (ea->count != eb->count)
			add(d, &p, "count", entry_count(d, ea), entry_count(d, eb));
		changed |= !eb || ea->count != eb->count;
	}
	for (size_t j = 0; j < nb; j++) {
		const cm_deck_entry *eb = &b->deck[j];
		if (mb[j] >= 0)
			continue;
		place p = at(CM_DIFF_DECK, -1, -1, -1, entry_subject(d, eb), 0, eb->line);
		add(d, &p, "count", NULL, entry_count(d, eb));
		changed = true;
	}
	if (!changed && !in_order) {
		/* the same entries in another order: another pile (cm_board_new) */
		const char **oa = malloc((na + 1) * sizeof *oa), **ob = malloc((nb + 1) * sizeof *ob);
		if (oa && ob) {
			for (size_t i = 0; i < na; i++)
				oa[i] = entry_subject(d, &a->deck[i]);
			for (size_t j = 0; j < nb; j++)
				ob[j] = entry_subject(d, &b->deck[j]);
			place p = at(CM_DIFF_DECK, -1, -1, -1, NULL, 0, 0);
			bool ok = true;
			for (size_t i = 0; i < na; i++)
				ok &= oa[i] != NULL;
			for (size_t j = 0; j < nb; j++)
				ok &= ob[j] != NULL;
			if (ok)
				add(d, &p, "order", join(d, oa, na), join(d, ob, nb));
		} else {
			d->err = CM_ENOMEM;
		}
		free(oa);
		free(ob);
	}
done:
	for (size_t i = 0; ka && i < na; i++)
		free(ka[i]);
	for (size_t j = 0; kb && j < nb; j++)
		free(kb[j]);
	free(ka);
	free(kb);
	free(ma);
	free(mb);
	free(k);
}

static void diff_rules(cm_diff *d, const cm_map *a, const cm_map *b)
{
	place p = at(CM_DIFF_RULES, -1, -1, -1, NULL, 0, 0);
	for (size_t i = 0; i < cm_rule_option_count(); i++) {
		const cm_rule_option *o = cm_rule_option_get(i);
		if (!o->in_map)
			continue;
		int va = cm_rules_get(&a->rules, i), vb = cm_rules_get(&b->rules, i);
		if (va != vb)
			add(d, &p, o->name, cm_rules_value_name(i, va, false), cm_rules_value_name(i, vb, false));
	}
}

int cm_map_diff(const cm_map *a, const cm_map *b, cm_diff **out)
{
	*out = NULL;
	cm_diff *d = calloc(1, sizeof *d);
	if (!d)
		return CM_ENOMEM;
	grids g = { a, b, a->cols > b->cols ? a->cols : b->cols, a->rows > b->rows ? a->rows : b->rows };
	diff_map(d, a, b);
	diff_squares(d, &g);
	diff_names(d, &g);
	diff_cities(d, a, b);
	diff_prints(d, &g);
	diff_ferries(d, a, b);
	diff_islands(d, &g);
	diff_markers(d, &g);
	diff_setup(d, a, b);
	diff_deck(d, a, b);
	diff_rules(d, a, b);
	if (d->err) {
		cm_diff_free(d);
		return CM_ENOMEM;
	}
	*out = d;
	return 0;
}
