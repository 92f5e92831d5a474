/* SPDX-License-Identifier: MIT */
/* tilegrid.c: tiles as small pictures (tilegrid_int.h, schemas/tileset.md
 * "Tiles as pictures"). Reading: a 5x5 grid into regions (cells of one
 * kind letter joined side by side, or all cells of one mark), regions into
 * features with slots. Layout: a tile's features drawn into a grid that
 * reads back to the same tile. Pure and bounded: a grid has 25 cells. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/tilegrid_int.h"
#include "base/util_int.h"

#define N CM_GRID_N
#define CELLS (N * N)
#define ALL_CELLS ((1u << CELLS) - 1u)
#define BIT(x, y) (1u << ((y) * N + (x)))
#define MAX_REPORTS 8

/* The cell of each slot bit: Nw Nm Ne on the top row, En Em Es down the
 * right column, Se Sm Sw right to left on the bottom row, Ws Wm Wn up the
 * left column (clockwise, as the slots). */
static const int8_t slot_x[12] = { 1, 2, 3, 4, 4, 4, 3, 2, 1, 0, 0, 0 };
static const int8_t slot_y[12] = { 0, 0, 0, 1, 2, 3, 4, 4, 4, 3, 2, 1 };

/* The order automatic features come in (the bundled sets' convention). */
static const cm_feature_kind auto_order[CM_FEAT_KIND_COUNT] = {
	CM_FEAT_MONASTERY, CM_FEAT_CITY, CM_FEAT_ROAD, CM_FEAT_FIELD, CM_FEAT_GARDEN, CM_FEAT_ABBEY
};

bool cm_grid_is_mark(int ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z');
}

static int popcount(uint32_t v)
{
	int n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The lowest set bit of v (not 0). */
static int low_bit(uint32_t v)
{
	int i = 0;
	while (!(v & 1u)) {
		v >>= 1;
		i++;
	}
	return i;
}

static int mark_index(int ch)
{
	return ch <= '9' ? ch - '0' : 10 + ch - 'a';
}

static char mark_char(int i)
{
	return (char)(i < 10 ? '0' + i : 'a' + i - 10);
}

char cm_grid_kind_char(cm_feature_kind k)
{
	static const char c[CM_FEAT_KIND_COUNT] = { 'R', 'C', '.', 'M', 'G', 'A' };
	return (unsigned)k < CM_FEAT_KIND_COUNT ? c[k] : CM_GRID_NOTHING;
}

/* The kind a letter draws, or -1. */
static int letter_kind(int ch)
{
	for (int k = 0; k < CM_FEAT_KIND_COUNT; k++)
		if (cm_grid_kind_char((cm_feature_kind)k) == ch)
			return k;
	return -1;
}

static bool grid_char(int ch)
{
	return ch == CM_GRID_NOTHING || letter_kind(ch) >= 0 || cm_grid_is_mark(ch);
}

/* The cells next to those of m (side by side, not diagonally). */
static uint32_t around(uint32_t m)
{
	uint32_t left_col = 0, right_col = 0;
	for (int y = 0; y < N; y++) {
		left_col |= BIT(0, y);
		right_col |= BIT(N - 1, y);
	}
	uint32_t r = ((m & ~right_col) << 1) | ((m & ~left_col) >> 1) | (m << N) | (m >> N);
	return r & ALL_CELLS & ~m;
}

static void say(cm_grid_report_fn rep, void *arg, const char *rule, unsigned line, unsigned col, const char *fmt,
                ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;
static void say(cm_grid_report_fn rep, void *arg, const char *rule, unsigned line, unsigned col, const char *fmt,
                ...)
{
	if (!rep)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	rep(arg, rule, line, col, msg ? msg : "(out of memory)");
	free(msg);
}

/* ------------------------------------------------------------------ */
/* parsing                                                             */

static bool blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* A character as a message shows it: 'x', or a byte in hex. */
static void show_char(int ch, char buf[8])
{
	if (ch > 0x20 && ch < 0x7f)
		snprintf(buf, 8, "'%c'", ch);
	else
		snprintf(buf, 8, "0x%02X", (unsigned)(unsigned char)ch);
}

/* The length of the UTF-8 character at p (at most n bytes left): 1 for
 * ASCII and for a byte that starts no character. */
static size_t char_len(const char *p, size_t n)
{
	unsigned c = (unsigned char)p[0];
	size_t k = c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	if (c < 0x80 || k > n)
		return 1;
	for (size_t i = 1; i < k; i++)
		if (((unsigned char)p[i] & 0xC0) != 0x80)
			return 1;
	return k;
}

/* Reads one row of n bytes at (line, col) into row y of g: a cell per
 * character (a UTF-8 sequence is one, and no grid character). */
static int parse_row(const char *a, size_t n, unsigned line, unsigned col, int y, cm_tile_grid *g,
                     cm_grid_report_fn rep, void *arg, int *reports)
{
	int bad = 0;
	size_t cells = 0;
	g->line[y] = line;
	g->col[y] = col;
	for (size_t i = 0; i < n; cells++) {
		size_t k = char_len(a + i, n - i);
		int ch = (unsigned char)a[i];
		if (cells < N && k == 1 && grid_char(ch)) {
			g->c[y][cells] = (char)ch;
		} else if (cells < N) {
			bad = 1;
			if ((*reports)++ < MAX_REPORTS) {
				char s[16];
				if (k > 1)
					snprintf(s, sizeof s, "'%.*s'", (int)k, a + i);
				else
					show_char(ch, s);
				say(rep, arg, "CM0117", line, line ? col + (unsigned)i : 0,
				    "%s is not a grid character: C city, R road, . field, M monastery, G garden, A abbey, "
				    "# nothing, or a mark 0-9 a-z that a feature names",
				    s);
			}
		} else if (cells == N) {
			bad = 1;
			if ((*reports)++ < MAX_REPORTS)
				say(rep, arg, "CM0117", line, line ? col + (unsigned)i : 0,
				    "row %d of the grid has more than 5 cells: a row has 5, one character each, no spaces "
				    "between",
				    y + 1);
		}
		i += k;
	}
	if (cells < N) {
		bad = 1;
		if ((*reports)++ < MAX_REPORTS)
			say(rep, arg, "CM0117", line, line ? col + (unsigned)n : 0,
			    "row %d of the grid has %zu cell%s: a row has 5, one character each", y + 1, cells,
			    cells == 1 ? "" : "s");
	}
	return bad;
}

int cm_tile_grid_parse(const char *text, unsigned line, unsigned col, cm_tile_grid *g, cm_grid_report_fn rep,
                       void *arg)
{
	memset(g->c, CM_GRID_NOTHING, sizeof g->c);
	memset(g->line, 0, sizeof g->line);
	memset(g->col, 0, sizeof g->col);
	int rows = 0, bad = 0, reports = 0;
	unsigned ln = line, cl = col ? col : 1, last_line = line;
	for (const char *p = text ? text : "";;) {
		const char *e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		const char *a = p, *b = e;
		unsigned ac = cl;
		while (a < b && blank(*a)) {
			a++;
			ac++;
		}
		while (b > a && blank(b[-1]))
			b--;
		if (a < b) {
			last_line = ln;
			if (rows < N) {
				bad |= parse_row(a, (size_t)(b - a), line ? ln : 0, line ? ac : 0, rows, g, rep, arg, &reports);
			} else if (rows == N) {
				bad = 1;
				if (reports++ < MAX_REPORTS)
					say(rep, arg, "CM0117", line ? ln : 0, line ? ac : 0,
					    "a sixth row: a grid has 5 rows of 5 cells");
			}
			rows++;
		}
		if (!*e)
			break;
		p = e + 1;
		ln++;
		cl = 1;
	}
	if (rows < N) {
		bad = 1;
		if (reports++ < MAX_REPORTS)
			say(rep, arg, "CM0117", line ? last_line : 0, 0, "the grid has %d row%s: it needs 5 rows of 5 cells",
			    rows, rows == 1 ? "" : "s");
	}
	if (reports > MAX_REPORTS)
		say(rep, arg, "CM0117", line, col, "%d more problem%s in this grid %s not listed",
		    reports - MAX_REPORTS, reports - MAX_REPORTS == 1 ? "" : "s", reports - MAX_REPORTS == 1 ? "is" : "are");
	return bad ? CM_EINVAL : 0;
}

/* ------------------------------------------------------------------ */
/* regions and features                                                */

typedef struct {
	char ch;         /* the letter or mark */
	uint32_t cells;
	cm_slots slots;
	int key;         /* the first slot clockwise, else 12 + the first cell */
	int first;       /* first cell, reading order */
	int owner;       /* feature index, -1 none yet */
} region;

typedef struct {
	region r[CELLS];
	int n;
	int of_mark[36]; /* region of each mark, -1 */
} regions;

static void find_regions(const cm_tile_grid *g, regions *rs)
{
	int at[CELLS];
	rs->n = 0;
	for (int i = 0; i < 36; i++)
		rs->of_mark[i] = -1;
	for (int i = 0; i < CELLS; i++)
		at[i] = -1;
	for (int i = 0; i < CELLS; i++) {
		int x = i % N, y = i / N, ch = (unsigned char)g->c[y][x];
		if (ch == CM_GRID_NOTHING || at[i] >= 0)
			continue;
		int ri;
		if (cm_grid_is_mark(ch) && rs->of_mark[mark_index(ch)] >= 0) {
			ri = rs->of_mark[mark_index(ch)];
		} else {
			ri = rs->n++;
			rs->r[ri] = (region){ (char)ch, 0, 0, 0, i, -1 };
			if (cm_grid_is_mark(ch))
				rs->of_mark[mark_index(ch)] = ri;
		}
		if (cm_grid_is_mark(ch)) {
			at[i] = ri;
			rs->r[ri].cells |= 1u << i;
			continue;
		}
		/* a letter: its region grows over the same letter, side by side */
		uint32_t todo = 1u << i;
		while (todo) {
			int c = low_bit(todo);
			todo &= todo - 1;
			if (at[c] >= 0)
				continue;
			at[c] = ri;
			rs->r[ri].cells |= 1u << c;
			uint32_t nb = around(1u << c);
			while (nb) {
				int d = low_bit(nb);
				nb &= nb - 1;
				if (at[d] < 0 && g->c[d / N][d % N] == ch)
					todo |= 1u << d;
			}
		}
	}
	for (int k = 0; k < rs->n; k++) {
		region *r = &rs->r[k];
		for (int b = 11; b >= 0; b--)
			if (r->cells & BIT(slot_x[b], slot_y[b])) {
				r->slots |= (cm_slots)(1u << b);
				r->key = b;
			}
		if (!r->slots)
			r->key = 12 + r->first;
	}
}

/* The regions of letter ch in key order, into idx; their number. */
static int letter_regions(const regions *rs, char ch, int *idx)
{
	int n = 0;
	for (int k = 0; k < rs->n; k++)
		if (rs->r[k].ch == ch) {
			int j = n++;
			while (j > 0 && rs->r[idx[j - 1]].key > rs->r[k].key) {
				idx[j] = idx[j - 1];
				j--;
			}
			idx[j] = k;
		}
	return n;
}

/* A free id for an automatic feature of kind k: its prefix and the next
 * number no feature of t uses. */
static char *auto_id(const cm_tile_type *t, cm_feature_kind k, int *next)
{
	static const char prefix[CM_FEAT_KIND_COUNT] = { 'r', 'c', 'f', 'm', 'g', 'a' };
	char buf[24];
	for (;; (*next)++) {
		snprintf(buf, sizeof buf, "%c%d", prefix[k], *next);
		bool used = false;
		for (size_t i = 0; i < t->n_features && !used; i++)
			used = t->features[i].id && strcmp(t->features[i].id, buf) == 0;
		if (!used)
			break;
	}
	(*next)++;
	return cm_strdup(buf);
}

/* Regions the elements take: marks by name, letters in key order. */
static void take_regions(const cm_tile_grid *g, const cm_grid_decl *decl, const cm_tile_type *t, regions *rs,
                         cm_grid_report_fn rep, void *arg, int *bad)
{
	int named[36];
	for (int i = 0; i < 36; i++)
		named[i] = -1;
	for (size_t i = 0; i < t->n_features; i++) {
		const cm_feature *f = &t->features[i];
		const char *id = f->id ? f->id : "?";
		if (!decl[i].mark)
			continue;
		int m = mark_index(decl[i].mark), r = rs->of_mark[m];
		if (named[m] >= 0) {
			*bad = 1;
			say(rep, arg, "CM0118", decl[i].line, decl[i].col, "%s '%s' takes mark '%c', which %s '%s' has already",
			    cm_feature_kind_name(f->kind), id, decl[i].mark,
			    cm_feature_kind_name(t->features[named[m]].kind), t->features[named[m]].id);
			continue;
		}
		named[m] = (int)i;
		if (r < 0) {
			*bad = 1;
			say(rep, arg, "CM0118", decl[i].line, decl[i].col, "%s '%s' has mark '%c', which the grid does not show",
			    cm_feature_kind_name(f->kind), id, decl[i].mark);
			continue;
		}
		rs->r[r].owner = (int)i;
	}
	for (int m = 0; m < 36; m++) {
		int r = rs->of_mark[m];
		if (r < 0 || named[m] >= 0)
			continue;
		*bad = 1;
		int c = rs->r[r].first;
		say(rep, arg, "CM0118", g->line[c / N], g->line[c / N] ? g->col[c / N] + (unsigned)(c % N) : 0,
		    "mark '%c' names no feature: give the feature it draws mark=\"%c\"", mark_char(m), mark_char(m));
	}
	for (int k = 0; k < CM_FEAT_KIND_COUNT; k++) {
		int idx[CELLS];
		char ch = cm_grid_kind_char((cm_feature_kind)k);
		int n = letter_regions(rs, ch, idx), next = 0, want = 0;
		for (size_t i = 0; i < t->n_features; i++)
			want += !decl[i].mark && t->features[i].kind == (cm_feature_kind)k;
		for (size_t i = 0; i < t->n_features; i++) {
			const cm_feature *f = &t->features[i];
			if (decl[i].mark || f->kind != (cm_feature_kind)k)
				continue;
			if (next < n) {
				rs->r[idx[next++]].owner = (int)i;
				continue;
			}
			*bad = 1;
			say(rep, arg, "CM0118", decl[i].line, 0,
			    "%s '%s' finds no region of '%c' left in the grid: %d drawn for %d element%s without a mark",
			    cm_feature_kind_name(f->kind), f->id ? f->id : "?", ch, n, want, want == 1 ? "" : "s");
		}
	}
}

/* Adds a feature for every letter region no element took, in the
 * automatic order (monastery, cities, roads, fields, garden, abbey), each
 * kind in key order. */
static int add_automatic(const cm_tile_grid *g, cm_tile_type *t, regions *rs)
{
	int extra = 0;
	for (int k = 0; k < rs->n; k++)
		extra += rs->r[k].owner < 0 && !cm_grid_is_mark((unsigned char)rs->r[k].ch);
	if (!extra)
		return 0;
	cm_feature *nf = realloc(t->features, (t->n_features + (size_t)extra) * sizeof *nf);
	if (!nf)
		return CM_ENOMEM;
	t->features = nf;
	for (int o = 0; o < CM_FEAT_KIND_COUNT; o++) {
		cm_feature_kind kind = auto_order[o];
		int idx[CELLS], next = 1;
		int n = letter_regions(rs, cm_grid_kind_char(kind), idx);
		for (int j = 0; j < n; j++) {
			region *r = &rs->r[idx[j]];
			if (r->owner >= 0)
				continue;
			cm_feature *f = &t->features[t->n_features];
			memset(f, 0, sizeof *f);
			f->kind = kind;
			f->line = g->line[r->first / N];
			if (!(f->id = auto_id(t, kind, &next)))
				return CM_ENOMEM;
			r->owner = (int)t->n_features++;
		}
	}
	return 0;
}

int cm_tile_grid_apply(const cm_tile_grid *g, const cm_grid_decl *decl, cm_tile_type *t, cm_grid_report_fn rep,
                       void *arg)
{
	regions rs;
	int bad = 0;
	size_t n_elements = t->n_features;
	find_regions(g, &rs);
	take_regions(g, decl, t, &rs, rep, arg, &bad);
	int rc = add_automatic(g, t, &rs);
	if (rc)
		return rc;
	uint32_t cells[CM_MAX_FEATURES] = { 0 };
	for (int k = 0; k < rs.n; k++) {
		int o = rs.r[k].owner;
		if (o < 0)
			continue;
		t->features[o].slots = rs.r[k].slots;
		if (o < CM_MAX_FEATURES)
			cells[o] = rs.r[k].cells;
	}
	/* a field touches the cities next to its cells, unless it says */
	for (size_t i = 0; i < t->n_features && i < CM_MAX_FEATURES; i++) {
		cm_feature *f = &t->features[i];
		if (f->kind != CM_FEAT_FIELD || (i < n_elements && decl[i].touches_given))
			continue;
		f->touches = 0;
		uint32_t near = around(cells[i]);
		for (size_t j = 0; j < t->n_features && j < CM_MAX_FEATURES; j++)
			if (t->features[j].kind == CM_FEAT_CITY && (cells[j] & near))
				f->touches |= 1u << j;
	}
	return bad ? CM_EINVAL : 0;
}

/* ------------------------------------------------------------------ */
/* layout                                                              */

#define FREE (-2)
#define NONE (-1)

typedef struct {
	const cm_tile_type *t;
	int a[N][N]; /* feature index, FREE or NONE */
} canvas;

static bool is_free(const canvas *c, int x, int y)
{
	return c->a[y][x] == FREE;
}

static void put(canvas *c, int x, int y, int f)
{
	if (is_free(c, x, y))
		c->a[y][x] = f;
}

static const int8_t mid_bit[4] = { 1, 4, 7, 10 }; /* Nm Em Sm Wm */
static const int8_t inner_x[4] = { 2, 3, 2, 1 }, inner_y[4] = { 1, 2, 3, 2 };
/* the inner corner cell between side s and side s+1 */
static const int8_t hug_x[4] = { 3, 3, 1, 1 }, hug_y[4] = { 1, 3, 3, 1 };

/* Roads: a stub into the tile for a road that ends, a line through the
 * centre for a straight one or one of three or more ends, a bend round
 * the inner corner for two neighbouring sides (through the centre when
 * the corner is taken). */
static void draw_roads(canvas *c)
{
	const cm_tile_type *t = c->t;
	for (size_t f = 0; f < t->n_features; f++) {
		if (t->features[f].kind != CM_FEAT_ROAD)
			continue;
		int sides[4], k = 0;
		for (int s = 0; s < 4; s++)
			if (t->features[f].slots & (1u << mid_bit[s]))
				sides[k++] = s;
		for (int i = 0; i < k; i++)
			put(c, inner_x[sides[i]], inner_y[sides[i]], (int)f);
		if (k == 2 && (sides[1] == sides[0] + 1 || (sides[0] == 0 && sides[1] == 3))) {
			int s = sides[1] == sides[0] + 1 ? sides[0] : 3;
			if (is_free(c, hug_x[s], hug_y[s])) {
				put(c, hug_x[s], hug_y[s], (int)f);
				continue;
			}
		}
		if (k >= 2)
			put(c, 2, 2, (int)f);
	}
}

/* Cities: the corner between two of their sides, and a band through the
 * middle for a city on two opposite sides only. */
static void draw_cities(canvas *c)
{
	static const int8_t cx[4] = { 0, 4, 4, 0 }, cy[4] = { 0, 0, 4, 4 };
	static const int8_t ca[4] = { 11, 2, 5, 8 }, cb[4] = { 0, 3, 6, 9 }; /* Wn Nw, Ne En, Es Se, Sw Ws */
	const cm_tile_type *t = c->t;
	for (size_t f = 0; f < t->n_features; f++) {
		const cm_feature *ft = &t->features[f];
		if (ft->kind != CM_FEAT_CITY)
			continue;
		for (int k = 0; k < 4; k++)
			if ((ft->slots & (1u << ca[k])) && (ft->slots & (1u << cb[k])))
				put(c, cx[k], cy[k], (int)f);
		unsigned sides = cm_slots_sides(ft->slots);
		if (sides == 0x5) /* N and S */
			for (int y = 1; y < N - 1; y++)
				put(c, 2, y, (int)f);
		if (sides == 0xA) /* E and W */
			for (int x = 1; x < N - 1; x++)
				put(c, x, 2, (int)f);
	}
}

/* Whether feature f may take (x, y) without touching another feature of
 * its kind (which would join the two regions); with strict, a field also
 * touches no city it does not touch, and a city no field that does not
 * touch it. */
static bool may_take(const canvas *c, int x, int y, int f, bool strict)
{
	const cm_tile_type *t = c->t;
	const cm_feature *ft = &t->features[f];
	static const int8_t dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	for (int d = 0; d < 4; d++) {
		int nx = x + dx[d], ny = y + dy[d];
		if (nx < 0 || ny < 0 || nx >= N || ny >= N)
			continue;
		int g = c->a[ny][nx];
		if (g < 0 || g == f)
			continue;
		const cm_feature *gt = &t->features[g];
		if (gt->kind == ft->kind)
			return false;
		if (!strict)
			continue;
		if (ft->kind == CM_FEAT_FIELD && gt->kind == CM_FEAT_CITY && !(g < 32 && (ft->touches & (1u << g))))
			return false;
		if (ft->kind == CM_FEAT_CITY && gt->kind == CM_FEAT_FIELD && !(f < 32 && (gt->touches & (1u << f))))
			return false;
	}
	return true;
}

/* A feature without slots (monastery, garden, inner field) in the first
 * free cell of the list that it may take; false when none is free. */
static bool place_inner(canvas *c, int f, const int8_t (*order)[2], int n)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			int x = order[i][0], y = order[i][1];
			if (is_free(c, x, y) && (pass || may_take(c, x, y, f, true))) {
				c->a[y][x] = f;
				return true;
			}
		}
	return false;
}

/* The free cells go to the features of kind k (fields, then cities: a
 * city stays on its sides unless nothing else reaches a cell) next to
 * them that may take them, the one with most cells around first, a pass
 * at a time. */
static void flood(canvas *c, cm_feature_kind k)
{
	const cm_tile_type *t = c->t;
	static const int8_t dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	for (bool changed = true; changed;) {
		changed = false;
		for (int y = 0; y < N; y++)
			for (int x = 0; x < N; x++) {
				if (!is_free(c, x, y))
					continue;
				int best = -1, best_n = 0;
				for (int strict = 1; strict >= 0 && best < 0; strict--)
					for (int d = 0; d < 4; d++) {
						int nx = x + dx[d], ny = y + dy[d];
						if (nx < 0 || ny < 0 || nx >= N || ny >= N)
							continue;
						int f = c->a[ny][nx];
						if (f < 0 || t->features[f].kind != k)
							continue;
						if (!may_take(c, x, y, f, strict))
							continue;
						int n = 0;
						for (int e = 0; e < 4; e++) {
							int ex = x + dx[e], ey = y + dy[e];
							n += ex >= 0 && ey >= 0 && ex < N && ey < N && c->a[ey][ex] == f;
						}
						if (best < 0 || n > best_n) {
							best = f;
							best_n = n;
						}
					}
				if (best >= 0) {
					c->a[y][x] = best;
					changed = true;
				}
			}
	}
}

static int draw(canvas *c)
{
	static const int8_t inner_first[9][2] = { { 2, 2 }, { 1, 1 }, { 3, 1 }, { 1, 3 }, { 3, 3 },
		                                  { 2, 1 }, { 1, 2 }, { 3, 2 }, { 2, 3 } };
	static const int8_t garden_first[9][2] = { { 3, 3 }, { 1, 3 }, { 3, 1 }, { 1, 1 }, { 2, 3 },
		                                   { 3, 2 }, { 1, 2 }, { 2, 1 }, { 2, 2 } };
	const cm_tile_type *t = c->t;
	for (int y = 0; y < N; y++)
		for (int x = 0; x < N; x++)
			c->a[y][x] = FREE;
	for (size_t f = 0; f < t->n_features; f++)
		for (int b = 0; b < 12; b++)
			if (t->features[f].slots & (1u << b)) {
				if (!is_free(c, slot_x[b], slot_y[b]))
					return CM_EINVAL; /* a slot of two features */
				c->a[slot_y[b]][slot_x[b]] = (int)f;
			}
	for (size_t f = 0; f < t->n_features; f++)
		if (t->features[f].kind == CM_FEAT_ABBEY)
			for (int y = 0; y < N; y++)
				for (int x = 0; x < N; x++)
					put(c, x, y, (int)f);
	draw_roads(c);
	draw_cities(c);
	int ends = 0;
	for (size_t f = 0; f < t->n_features; f++) {
		const cm_feature *ft = &t->features[f];
		ends += ft->kind == CM_FEAT_ROAD && ft->slots && !(ft->slots & (ft->slots - 1));
		if (ft->kind == CM_FEAT_MONASTERY && !place_inner(c, (int)f, inner_first, 9))
			return CM_EINVAL;
	}
	if (ends >= 2 && is_free(c, 2, 2))
		c->a[2][2] = NONE; /* roads end at a junction, a crossing or a crop field */
	for (size_t f = 0; f < t->n_features; f++) {
		const cm_feature *ft = &t->features[f];
		if ((ft->kind == CM_FEAT_GARDEN || (ft->kind == CM_FEAT_FIELD && !ft->slots)) &&
		    !place_inner(c, (int)f, ft->kind == CM_FEAT_GARDEN ? garden_first : inner_first, 9))
			return CM_EINVAL;
	}
	flood(c, CM_FEAT_FIELD);
	flood(c, CM_FEAT_CITY);
	for (int y = 0; y < N; y++)
		for (int x = 0; x < N; x++)
			if (is_free(c, x, y))
				c->a[y][x] = NONE;
	return 0;
}

/* The cells of each feature. */
static void feature_cells(const canvas *c, uint32_t *cells, size_t n)
{
	memset(cells, 0, n * sizeof *cells);
	for (int y = 0; y < N; y++)
		for (int x = 0; x < N; x++)
			if (c->a[y][x] >= 0)
				cells[c->a[y][x]] |= BIT(x, y);
}

static void paint(const canvas *c, const char *mark, cm_tile_grid *g)
{
	for (int y = 0; y < N; y++)
		for (int x = 0; x < N; x++) {
			int f = c->a[y][x];
			g->c[y][x] = f < 0 ? CM_GRID_NOTHING : mark[f] ? mark[f] : cm_grid_kind_char(c->t->features[f].kind);
		}
}

/* Marks for the features whose letter cells would not read back as their
 * own region: split, sharing a region with another feature, or out of
 * the key order of their kind. */
static void choose_marks(const canvas *c, cm_tile_grid_layout *L)
{
	const cm_tile_type *t = c->t;
	size_t n = t->n_features;
	uint32_t cells[CM_MAX_FEATURES];
	feature_cells(c, cells, n);
	int next = 1;
	for (bool changed = true; changed;) {
		changed = false;
		regions rs;
		paint(c, L->mark, &L->grid);
		find_regions(&L->grid, &rs);
		for (size_t f = 0; f < n && !changed; f++) {
			if (L->mark[f])
				continue;
			for (int k = 0; k < rs.n; k++) {
				if (!(rs.r[k].cells & cells[f]))
					continue;
				if (rs.r[k].cells != cells[f]) {
					/* split (mark it), or others share its region (mark them) */
					if ((rs.r[k].cells & cells[f]) != cells[f]) {
						L->mark[f] = mark_char(next++);
					} else {
						/* the feature with most cells keeps the letter */
						size_t keep = f;
						for (size_t g = 0; g < n; g++)
							if (!L->mark[g] && (cells[g] & rs.r[k].cells) &&
							    popcount(cells[g]) > popcount(cells[keep]))
								keep = g;
						for (size_t g = 0; g < n; g++)
							if (g != keep && !L->mark[g] && (cells[g] & rs.r[k].cells))
								L->mark[g] = mark_char(next++);
					}
					changed = true;
				}
				break;
			}
		}
	}
	/* each kind's lettered features in model order take regions in key
	 * order: the letters stay on the heaviest increasing run (most cells),
	 * the others get marks */
	regions rs;
	paint(c, L->mark, &L->grid);
	find_regions(&L->grid, &rs);
	for (int k = 0; k < CM_FEAT_KIND_COUNT; k++) {
		size_t f_of[CM_MAX_FEATURES];
		int key[CM_MAX_FEATURES], w[CM_MAX_FEATURES], best[CM_MAX_FEATURES], prev[CM_MAX_FEATURES], m = 0;
		for (size_t f = 0; f < n; f++) {
			if (L->mark[f] || t->features[f].kind != (cm_feature_kind)k || !cells[f])
				continue;
			key[m] = -1;
			for (int r = 0; r < rs.n; r++)
				if (rs.r[r].cells == cells[f])
					key[m] = rs.r[r].key;
			w[m] = popcount(cells[f]);
			f_of[m++] = f;
		}
		int top = -1;
		for (int i = 0; i < m; i++) {
			best[i] = w[i];
			prev[i] = -1;
			for (int j = 0; j < i; j++)
				if (key[j] < key[i] && best[j] + w[i] > best[i]) {
					best[i] = best[j] + w[i];
					prev[i] = j;
				}
			if (top < 0 || best[i] > best[top])
				top = i;
		}
		bool keep[CM_MAX_FEATURES] = { false };
		for (int i = top; i >= 0; i = prev[i])
			keep[i] = true;
		for (int i = 0; i < m; i++)
			if (!keep[i])
				L->mark[f_of[i]] = mark_char(next++);
	}
	paint(c, L->mark, &L->grid);
}

static bool same_feature(const cm_feature *a, const cm_feature *b)
{
	return a->kind == b->kind && a->id && b->id && strcmp(a->id, b->id) == 0 && a->slots == b->slots &&
	       a->arms == b->arms && a->cathedral == b->cathedral && a->inn == b->inn && a->good == b->good &&
	       a->touches == b->touches;
}

/* Reads the layout back with its first k features as elements: whether
 * that gives t's features. touches_out, when not NULL, receives what the
 * reader made of every feature's touches. */
static int reads_back(const cm_tile_type *t, const cm_tile_grid_layout *L, size_t k, uint32_t *touches_out,
                      bool *same)
{
	cm_tile_type s = { 0 };
	cm_grid_decl decl[CM_MAX_FEATURES];
	*same = false;
	s.features = calloc(k ? k : 1, sizeof *s.features);
	if (!s.features)
		return CM_ENOMEM;
	for (size_t i = 0; i < k; i++) {
		s.features[i] = t->features[i];
		s.features[i].slots = 0;
		if (!L->touches[i])
			s.features[i].touches = 0;
		decl[i] = (cm_grid_decl){ L->mark[i], L->touches[i], 0, 0 };
	}
	s.n_features = k;
	int rc = cm_tile_grid_apply(&L->grid, decl, &s, NULL, NULL);
	if (rc != CM_ENOMEM) {
		*same = rc == 0 && s.n_features == t->n_features;
		for (size_t i = 0; i < s.n_features && i < t->n_features; i++) {
			if (touches_out)
				touches_out[i] = s.features[i].touches;
			*same = *same && same_feature(&s.features[i], &t->features[i]);
		}
		rc = 0;
	}
	for (size_t i = k; i < s.n_features; i++)
		free(s.features[i].id); /* the automatic ones; the first k are t's */
	free(s.features);
	return rc;
}

static bool plain(const cm_feature *f)
{
	return !f->arms && !f->cathedral && !f->inn && f->good == CM_GOOD_NONE;
}

int cm_tile_grid_layout_make(const cm_tile_type *t, cm_tile_grid_layout *out)
{
	memset(out, 0, sizeof *out);
	size_t n = t->n_features;
	if (n > CM_MAX_FEATURES || (n && !t->features))
		return CM_EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!t->features[i].id)
			return CM_EINVAL;
	canvas c = { t, { { 0 } } };
	int rc = draw(&c);
	if (rc)
		return rc;
	uint32_t cells[CM_MAX_FEATURES];
	feature_cells(&c, cells, n);
	for (size_t f = 0; f < n; f++)
		if (!cells[f])
			return CM_EINVAL; /* a feature the picture could not hold */
	choose_marks(&c, out);
	for (int y = 0; y < N; y++) {
		out->grid.line[y] = 0;
		out->grid.col[y] = 0;
	}
	/* touches written where the picture says otherwise */
	uint32_t derived[CM_MAX_FEATURES] = { 0 };
	bool same;
	if ((rc = reads_back(t, out, n, derived, &same)) != 0)
		return rc;
	for (size_t f = 0; f < n; f++)
		out->touches[f] = t->features[f].kind == CM_FEAT_FIELD && derived[f] != t->features[f].touches;
	/* as few elements as read back the same: the features from k on
	 * must be plain letters the reader finds by itself */
	size_t k = n;
	while (k > 0 && !out->mark[k - 1] && !out->touches[k - 1] && plain(&t->features[k - 1]))
		k--;
	for (; k <= n; k++) {
		if ((rc = reads_back(t, out, k, NULL, &same)) != 0)
			return rc;
		if (same) {
			out->n_elements = k;
			return 0;
		}
	}
	return CM_EINVAL; /* not drawable: the caller writes slots */
}
