/* SPDX-License-Identifier: MIT */
/* render_svg.c: the scene of a map (render_int.h): every element of the
 * model drawn apart (square kinds, starts, towns, big cities, islands,
 * waves, landmarks, half squares and the seam, edge prints with their arms
 * and labels, ferries, markers), its words (title line, names, coordinates,
 * a key), diagnostics framed with their ids, and a played game; and the SVG
 * file of it. Integer geometry, palette colours, one pass per layer: linear
 * in the squares. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/palette.h"
#include "export/render_int.h"
#include "export/scene_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

#define S CM__CELL
#define TITLE_H 44
#define COORD 18
#define PAD 26
#define KEY_COL 180
#define KEY_ROW 20
#define LINE_H 14
#define WHITE CM_PAINT_RGB(255, 255, 255)
#define BLACK CM_PAINT_RGB(0, 0, 0)

typedef struct {
	cm_scene *s;
	const cm_map *m;
	const cm_render_opts *o;
	const cm_board *b; /* the game's board, or NULL */
	int html;
	int ox, oy, w, h;
	int pad_l, pad_r;
	/* Map-Chips markers: distinct texts, sorted */
	const char **mk;
	size_t n_mk;
	/* diagnostics per square: first index and next index, -1 ends */
	int *dg_first, *dg_next;
	size_t n_dg;       /* diagnostics listed */
	/* score items per square (game): first and next */
	int *it_first, *it_next;
	/* paper (no hover titles): the shortened labels, listed in full */
	int paper;
	char **short_, **whole;
	size_t n_short, cap_short;
	/* the placed tiles: drawn once per type and rotation, and their prints
	 * for the key of the tiles below the map's key (0: none, no key) */
	cm__tile_cache *tc;
	unsigned tile_prints;
	int tkey_y;
	int oom;
} svg;

static cm_paint pc(cm_rgb c)
{
	return cm_paint_rgb(c);
}

static cm_style fill_st(cm_rgb c)
{
	return (cm_style){ .fill = pc(c) };
}

/* A stroke of width w100 hundredths, dashed when dash_on is not 0. */
static cm_style line_st(cm_paint fill, cm_rgb c, int w100, int dash_on, int dash_off)
{
	return (cm_style){ .fill = fill, .stroke = pc(c), .stroke_width = w100, .dash = { dash_on, dash_off } };
}

static const cm_square *sq_at(const svg *v, int x, int y)
{
	return cm__map_at(v->m, x, y);
}

/* Rotates (x,y) in a square of side S by k quarter turns clockwise. */
static void rot(int k, int *x, int *y)
{
	for (int i = 0; i < (k & 3); i++) {
		int t = *x;
		*x = S - *y;
		*y = t;
	}
}

/* The midpoint of side s of the square at (x0,y0), pushed out by out units. */
static void side_point(int x0, int y0, int s, int along, int out, int *x, int *y)
{
	int px = along, py = -out; /* side N, along from its west end */
	rot(s, &px, &py);
	*x = x0 + px;
	*y = y0 + py;
}

/* ---- symbols ---- */

static void house(svg *v, int cx, int y)
{
	char d[64];
	snprintf(d, sizeof d, "M%d %dl6-5l6 5v6h-12z", cx - 6, y + 5);
	cm_style st = fill_st(cm_palette_text());
	cm_scene_path(v->s, d, &st);
}

static void tower(svg *v, int cx, int y)
{
	char d[64];
	snprintf(d, sizeof d, "M%d %dl3-10h2l3 10z", cx - 4, y + 11);
	cm_style st = fill_st(cm_palette_text());
	cm_scene_path(v->s, d, &st);
}

static void marker_symbol(svg *v, int cx, int cy, size_t k)
{
	cm_style st = fill_st(cm_palette_marker());
	cm_scene_circle(v->s, cx, cy, 450, &st);
	char t[32];
	snprintf(t, sizeof t, "%zu", k + 1);
	cm_scene_text(v->s, cx, cy + 2, t, &(cm_style){ .font_size = 6, .anchor = CM_ANCHOR_MIDDLE, .fill = WHITE });
}

static void meeple(svg *v, int cx, int cy, int player, cm_follower_kind kind)
{
	char d[128];
	cm_node g = cm_scene_group(v->s, NULL);
	cm_scene_class(v->s, g, "follower");
	if (kind == CM_FOLLOWER_WAGON)
		snprintf(d, sizeof d, "M%d %dh14v7h-14z", cx - 7, cy - 4);
	else
		snprintf(d, sizeof d, "M%d %dq0-4 3-4q-2-4 2-5q4 1 2 5q3 0 3 4l-3 0l2 5h-3l-2-3l-2 3h-3l2-5z", cx - 5, cy);
	cm_scene_path(v->s, d, &(cm_style){ .fill = pc(cm_palette_player(player)), .stroke = BLACK, .stroke_width = 80 });
	char t[16];
	snprintf(t, sizeof t, "%d", player + 1);
	cm_scene_text(v->s, cx, cy + 4, t,
	              &(cm_style){ .font_size = 6, .bold = 1, .anchor = CM_ANCHOR_MIDDLE, .fill = WHITE });
	cm_scene_end(v->s);
}

/* ---- text ---- */

/* A text of size font; anchor as cm_anchor, cls its class or NULL. */
static cm_node text(svg *v, int x, int y, int font, cm_anchor anchor, const char *cls, const char *s)
{
	cm_node n = cm_scene_text(v->s, x, y, s, &(cm_style){ .font_size = font, .anchor = anchor });
	if (cls)
		cm_scene_class(v->s, n, cls);
	return n;
}

/* Paper: a shortened label and its whole text, for the list below. */
static void note_short(svg *v, const char *shown, const char *whole)
{
	if (v->n_short == v->cap_short) {
		size_t c = v->cap_short ? 2 * v->cap_short : 8;
		char **a = realloc(v->short_, c * sizeof *a), **b = a ? realloc(v->whole, c * sizeof *b) : NULL;
		if (a)
			v->short_ = a;
		if (b)
			v->whole = b;
		if (!a || !b) {
			v->oom = 1;
			return;
		}
		v->cap_short = c;
	}
	v->short_[v->n_short] = cm_strdup(shown);
	v->whole[v->n_short] = cm_strdup(whole);
	if (!v->short_[v->n_short] || !v->whole[v->n_short])
		v->oom = 1;
	v->n_short++;
}

/* A name fitted into width x height with its centre-bottom at (cx, by),
 * in a font from max_font down to min_font. */
static void fitted_min(svg *v, int cx, int by, int width, int height, int max_font, int min_font, const char *cls,
                       const char *s)
{
	cm__label l;
	if (cm__label_fit(s, width, height, max_font, min_font, &l)) {
		v->oom = 1;
		return;
	}
	int y = l.lines == 2 ? by - l.font - 1 : by;
	cm_node n = text(v, cx, y, l.font, CM_ANCHOR_MIDDLE, cls, l.line[0]);
	if (l.abbreviated && v->paper)
		note_short(v, l.line[0], s);
	if (l.abbreviated || l.lines == 2) /* the whole name, as one text */
		cm_scene_title(v->s, n, s);
	if (l.lines == 2)
		cm_scene_text_line2(v->s, n, l.font + 1, l.line[1]);
	cm__label_clear(&l);
}

static void fitted(svg *v, int cx, int by, int width, int height, int max_font, const char *cls, const char *s)
{
	fitted_min(v, cx, by, width, height, max_font, 5, cls, s);
}

/* ---- tiles from their features ---- */

/* The anchor of slot bit in tile coordinates, depth in percent of the way
 * from the border to the centre. */
static void slot_anchor(int bit, int depth, int *x, int *y)
{
	int s = bit / 3, p = bit % 3;
	int px = 6 + 12 * p, py = 0;
	py = (S / 2) * depth / 100;
	px = px + (S / 2 - px) * depth / 100;
	rot(s, &px, &py);
	*x = px;
	*y = py;
}

static void feature_anchor(const cm_feature *fe, int r, int *x, int *y)
{
	cm_slots m = cm_slots_rotate(fe->slots, r);
	int n = 0, sx = 0, sy = 0;
	int depth = fe->kind == CM_FEAT_FIELD ? 25 : fe->kind == CM_FEAT_CITY ? 30 : 45;
	for (int b = 0; b < 12; b++)
		if (m & (1u << b)) {
			int ax, ay;
			slot_anchor(b, depth, &ax, &ay);
			sx += ax;
			sy += ay;
			n++;
		}
	*x = n ? sx / n : S / 2;
	*y = n ? sy / n : S / 2;
}

/* The explained items of the feature piece (game), as a <title>. */
/* The explained items of the feature piece (game), as a title line. */
static void put_item(cm__sbuf *b, const cm_score_item *it)
{
	static const char *const what[] = { "", "island coats of arms", "town cost" };
	if (it->type == CM_ITEM_FEATURE)
		cm__sb_add(b, "%s%s", cm_feature_kind_name(it->kind), it->complete ? " (complete)" : " (incomplete)");
	else
		cm__sb_add(b, "%s", what[it->type <= CM_ITEM_TOWN_COST ? it->type : 0]);
	if (it->tiles)
		cm__sb_add(b, ", %d tiles", it->tiles);
	if (it->arms)
		cm__sb_add(b, ", %d coats of arms", it->arms);
	if (it->cities)
		cm__sb_add(b, ", %d cities", it->cities);
	if (it->towns)
		cm__sb_add(b, ", %d towns", it->towns);
	cm__sb_add(b, ": %d points", it->points);
	if (it->players) {
		cm__sb_add(b, " to player");
		const char *sep = " ";
		for (int p = 0; p < CM_MAX_PLAYERS; p++)
			if (it->players & (1u << p)) {
				cm__sb_add(b, "%s%d", sep, p + 1);
				sep = ", ";
			}
	} else {
		cm__sb_add(b, " to nobody");
	}
	cm__sb_add(b, " (%s: %s)", it->rule ? it->rule : "", it->reason ? it->reason : "");
}

/* A tile of the game: its square, for the feature groups. */
typedef struct {
	svg *v;
	int x, y;
} game_tile;

/* Opens the group of feature fi of the tile on (x,y) of the game: its
 * joined feature's name (data-f) and its score items. */
static int feature_group(void *arg, int fi)
{
	const game_tile *gt = arg;
	svg *v = gt->v;
	cm_feature_info info;
	if (!v->b || cm_board_feature(v->b, gt->x, gt->y, fi, &info) != 0 || info.wx < 0) {
		cm_scene_group(v->s, NULL);
		return 1;
	}
	cm_node g = cm_scene_group(v->s, NULL);
	cm_scene_class(v->s, g, "f");
	char key[48];
	snprintf(key, sizeof key, "%d,%d,%d", info.wx, info.wy, info.wfeature);
	cm_scene_data(v->s, g, "f", key);
	cm__sbuf b = { 0 };
	cm__sb_add(&b, "%s", cm_feature_kind_name(info.kind));
	const cm_score_item *items = v->o->game->items;
	int any = 0;
	int sq = info.wy * v->m->cols + info.wx;
	for (int i = v->it_first ? v->it_first[sq] : -1; i >= 0; i = v->it_next[i]) {
		const cm_score_item *it = &items[i];
		if (it->type != CM_ITEM_FEATURE || it->feature != info.wfeature)
			continue;
		cm__sb_add(&b, "%s", any ? "\n" : ": ");
		put_item(&b, it);
		any = 1;
	}
	if (!any)
		cm__sb_add(&b, "%s", info.complete ? ", complete, scored nothing" : ", not scored");
	if (b.oom)
		v->oom = 1;
	else
		cm_scene_title(v->s, g, b.p);
	free(b.p);
	return 1;
}

/* ---- layers ---- */

static void defs(svg *v)
{
	cm_scene_pattern_begin(v->s, "cm-waves", 18, 12);
	cm_scene_path(v->s, "M0 6q4.5-5 9 0t9 0",
	              &(cm_style){ .fill = CM_PAINT_NONE, .stroke = WHITE, .stroke_width = 120, .stroke_opacity = 80 });
	cm_scene_pattern_end(v->s);
	cm_scene_pattern_begin(v->s, "cm-half", 8, 8);
	cm_scene_path(v->s, "M0 8L8 0", &(cm_style){ .stroke = pc(cm_palette_grid()), .stroke_width = 100 });
	cm_scene_pattern_end(v->s);
}

enum { PAT_WAVES, PAT_HALF };

/* Squares as runs of one kind per row, then the waves and half patterns. */
static void squares(svg *v)
{
	const cm_map *m = v->m;
	cm_node g = cm_scene_group(v->s, NULL);
	cm_scene_id(v->s, g, "squares");
	for (int pass = 0; pass < 3; pass++)
		for (int y = 0; y < m->rows; y++)
			for (int x = 0; x < m->cols;) {
				cm_square_kind k = sq_at(v, x, y)->kind;
				int x1 = x + 1;
				while (x1 < m->cols && sq_at(v, x1, y)->kind == k)
					x1++;
				int want = pass == 0 || (pass == 1 && k == CM_SQ_WAVES) || (pass == 2 && k == CM_SQ_HALF);
				if (want && !(pass == 0 && k == CM_SQ_NONE)) {
					cm_style st = { .fill = pass == 0 ? pc(cm_palette_square(k))
					                                  : CM_PAINT_PATTERN(pass == 1 ? PAT_WAVES : PAT_HALF) };
					cm_scene_rect(v->s, v->ox + x * S, v->oy + y * S, (x1 - x) * S, S, &st);
				}
				x = x1;
			}
	cm_scene_end(v->s);
}

/* Outline segments of a region: the sides of squares in it whose
 * neighbour is not (in(x,y) decides); w100 the line's width. */
static void outline(svg *v, const char *id, int (*in)(const svg *, int, int, int), int tag, cm_rgb c, int dash,
                    int w100)
{
	const cm_map *m = v->m;
	int any = 0;
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			if (!in(v, x, y, tag))
				continue;
			int x0 = v->ox + x * S, y0 = v->oy + y * S;
			any = 1;
			if (!in(v, x, y - 1, tag))
				cm_scene_path_add(v->s, "M%d %dh%d", x0, y0, S);
			if (!in(v, x + 1, y, tag))
				cm_scene_path_add(v->s, "M%d %dv%d", x0 + S, y0, S);
			if (!in(v, x, y + 1, tag))
				cm_scene_path_add(v->s, "M%d %dh%d", x0, y0 + S, S);
			if (!in(v, x - 1, y, tag))
				cm_scene_path_add(v->s, "M%d %dv%d", x0, y0, S);
		}
	if (!any)
		return;
	cm_style st = line_st(CM_PAINT_NONE, c, w100, dash ? 3 : 0, dash ? 2 : 0);
	cm_scene_id(v->s, cm_scene_path_end(v->s, &st), id);
}

static int in_island(const svg *v, int x, int y, int tag)
{
	(void)tag;
	const cm_square *s = sq_at(v, x, y);
	return s && s->kind == CM_SQ_ISLAND;
}

static int in_bigcity(const svg *v, int x, int y, int tag)
{
	const cm_square *s = sq_at(v, x, y);
	return s && s->kind == CM_SQ_BIGCITY && s->bigcity == tag;
}

static int valid_piece(const svg *v, const cm_bigcity_piece *p)
{
	return cm__map_at(v->m, p->x, p->y) != NULL;
}

static void bigcities(svg *v)
{
	const cm_map *m = v->m;
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "bigcities");
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *bc = &m->bigcities[i];
		cm_node g = cm_scene_group(v->s, NULL);
		cm_scene_class(v->s, g, "bigcity");
		cm_scene_title(v->s, g, bc->name ? bc->name : "big city");
		for (size_t k = 0; k < bc->n_pieces; k++)
			if (valid_piece(v, &bc->pieces[k]))
				cm__scene_piece(v->s, v->ox + bc->pieces[k].x * S, v->oy + bc->pieces[k].y * S,
				                &bc->pieces[k].tile);
		char id[32];
		snprintf(id, sizeof id, "bigcity-%zu", i);
		outline(v, id, in_bigcity, (int)i, cm_palette_print(CM_PRINT_CITY), 0, 250);
		cm_scene_end(v->s);
	}
	cm_scene_end(v->s);
}

/* Vertical dashed line through the seam column of a combined map. */
static void seam(svg *v)
{
	const cm_map *m = v->m;
	if (m->seam < 0 || m->seam >= m->cols)
		return;
	int x = v->ox + m->seam * S + S / 2;
	for (int y = 0; y < m->rows; y++)
		if (sq_at(v, m->seam, y)->kind != CM_SQ_NONE)
			cm_scene_path_add(v->s, "M%d %dv%d", x, v->oy + y * S, S);
	cm_style st = line_st(CM_PAINT_NONE, cm_palette_text(), 150, 2, 3);
	cm_scene_id(v->s, cm_scene_path_end(v->s, &st), "seam");
}

/* Tiles given without a game (cm_render_opts.tiles), drawn plain. */
static void given_tiles(svg *v)
{
	const cm_map *m = v->m;
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "tiles");
	for (size_t i = 0; i < v->o->n_tiles; i++) {
		const cm_render_tile *t = &v->o->tiles[i];
		if (t->type && cm__map_at(m, t->x, t->y))
			cm__scene_tile_cached(v->s, v->tc, v->ox + t->x * S, v->oy + t->y * S, t->type, t->rotation, NULL,
			                      NULL, NULL);
	}
	cm_scene_end(v->s);
}

static void game_tiles(svg *v)
{
	if (!v->b && v->o->n_tiles) {
		given_tiles(v);
		return;
	}
	if (!v->b)
		return;
	const cm_map *m = v->m;
	const cm_deck *dk = cm_board_deck(v->b);
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "tiles");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			int t, r;
			game_tile gt = { v, x, y };
			if (cm_board_tile_at(v->b, x, y, &t, &r) == 0)
				cm__scene_tile_cached(v->s, v->tc, v->ox + x * S, v->oy + y * S, cm_deck_type(dk, (size_t)t), r,
				                      feature_group, &gt, NULL);
		}
	cm_scene_end(v->s);
}

/* The prints of the tiles game_tiles draws (their templates drawn now,
 * copied then), for the key of the tiles. 0 or CM_ENOMEM. */
static int tile_prints(svg *v)
{
	const cm_map *m = v->m;
	if (!v->b && !v->o->n_tiles)
		return 0;
	if (cm__tile_cache_new(&v->tc))
		return CM_ENOMEM;
	int rc = 0;
	if (!v->b) {
		for (size_t i = 0; i < v->o->n_tiles && !rc; i++) {
			const cm_render_tile *t = &v->o->tiles[i];
			if (t->type && cm__map_at(m, t->x, t->y))
				rc = cm__tile_cache_prints(v->tc, t->type, t->rotation, &v->tile_prints);
		}
		return rc;
	}
	const cm_deck *dk = cm_board_deck(v->b);
	for (int y = 0; y < m->rows && !rc; y++)
		for (int x = 0; x < m->cols && !rc; x++) {
			int t, r;
			if (cm_board_tile_at(v->b, x, y, &t, &r) == 0)
				rc = cm__tile_cache_prints(v->tc, cm_deck_type(dk, (size_t)t), r, &v->tile_prints);
		}
	return rc;
}

static void grid(svg *v)
{
	if (!(v->o->flags & CM_RENDER_GRID))
		return;
	const cm_map *m = v->m;
	for (int x = 0; x <= m->cols; x++)
		cm_scene_path_add(v->s, "M%d %dv%d", v->ox + x * S, v->oy, m->rows * S);
	for (int y = 0; y <= m->rows; y++)
		cm_scene_path_add(v->s, "M%d %dh%d", v->ox, v->oy + y * S, m->cols * S);
	cm_style st = line_st(CM_PAINT_NONE, cm_palette_grid(), 50, 0, 0);
	st.stroke_opacity = 60;
	cm_scene_id(v->s, cm_scene_path_end(v->s, &st), "grid");
}

static void starts(svg *v)
{
	const cm_map *m = v->m;
	cm_style st = line_st(CM_PAINT_NONE, cm_palette_start_outline(), 250, 0, 0);
	cm_scene_id(v->s, cm_scene_group(v->s, &st), "starts");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			if (sq_at(v, x, y)->kind == CM_SQ_START)
				cm_scene_rect(v->s, v->ox + x * S + 3, v->oy + y * S + 3, S - 6, S - 6, NULL);
	cm_scene_end(v->s);
}

/* Where an edge print's label and arms go: outside side s of (x0,y0),
 * clear of the print itself (which reaches 8 units out at the middle). */
static void print_label(svg *v, int x0, int y0, int s, const cm_edge_print *p, const char *label)
{
	static const cm_anchor anchor[4] = { CM_ANCHOR_MIDDLE, CM_ANCHOR_START, CM_ANCHOR_MIDDLE, CM_ANCHOR_END };
	int lx, ly;
	switch (s) {
	case CM_N: lx = x0 + S / 2; ly = y0 - 13; break;
	case CM_S: lx = x0 + S / 2; ly = y0 + S + 19; break;
	case CM_E: lx = x0 + S + 3; ly = y0 + 9; break;
	default: lx = x0 - 3; ly = y0 + 9; break;
	}
	for (int a = 0; a < p->arms && a < 3; a++) {
		int sx, sy;
		if (s == CM_N || s == CM_S) {
			sx = x0 + S / 2 + 5 + 9 * a;
			sy = s == CM_N ? y0 - 11 : y0 + S + 2;
		} else {
			sx = s == CM_E ? x0 + S + 2 + 9 * a : x0 - 10 - 9 * a;
			sy = y0 + S - 11;
		}
		cm__scene_shield(v->s, sx, sy);
	}
	/* above or below: as wide as three squares; beside: the margin's room */
	if (label && (s == CM_N || s == CM_S))
		fitted(v, lx, ly, 3 * S - 4, 10, 8, "label", label);
	else if (label)
		text(v, lx, ly, 8, anchor[s], "label", label);
}

static void print_shape(svg *v, int x0, int y0, int s, cm_print_kind kind)
{
	if (kind == CM_PRINT_ROAD) {
		int ax, ay, bx, by;
		side_point(x0, y0, s, S / 2, -7, &ax, &ay);
		side_point(x0, y0, s, S / 2, 8, &bx, &by);
		char d[64];
		snprintf(d, sizeof d, "M%d %dL%d %d", ax, ay, bx, by);
		cm_scene_class(v->s, cm_scene_path(v->s, d, &(cm_style){ .stroke = pc(cm_palette_grid()), .stroke_width = 600 }),
		               "print-road");
		cm_scene_path(v->s, d, &(cm_style){ .stroke = pc(cm_palette_print(CM_PRINT_ROAD)), .stroke_width = 350 });
	} else if (kind == CM_PRINT_CITY) {
		/* a printed city segment bulging out of the side */
		int ax = 2, ay = 0, bx = S - 2, by = 0, qx = S / 2, qy = -16;
		rot(s, &ax, &ay);
		rot(s, &bx, &by);
		rot(s, &qx, &qy);
		char d[96];
		snprintf(d, sizeof d, "M%d %dQ%d %d %d %dz", x0 + ax, y0 + ay, x0 + qx, y0 + qy, x0 + bx, y0 + by);
		cm_style st = { .fill = pc(cm_palette_print(CM_PRINT_CITY)), .stroke = WHITE, .stroke_width = 80 };
		cm_scene_class(v->s, cm_scene_path(v->s, d, &st), "print-city");
	}
}

static void prints(svg *v)
{
	const cm_map *m = v->m;
	/* neutral edges: one thin dashed path */
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "prints");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			for (int s = 0; s < 4; s++)
				if (sq_at(v, x, y)->print[s].kind == CM_PRINT_NEUTRAL) {
					int ax = 0, ay = 1, bx = S, by = 1;
					rot(s, &ax, &ay);
					rot(s, &bx, &by);
					cm_scene_path_add(v->s, "M%d %dL%d %d", v->ox + x * S + ax, v->oy + y * S + ay,
					                  v->ox + x * S + bx, v->oy + y * S + by);
				}
	cm_style st = line_st(CM_PAINT_NONE, cm_palette_print(CM_PRINT_NEUTRAL), 150, 3, 2);
	cm_scene_id(v->s, cm_scene_path_end(v->s, &st), "neutral");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = sq_at(v, x, y);
			int x0 = v->ox + x * S, y0 = v->oy + y * S;
			for (int s = 0; s < 4; s++) {
				const cm_edge_print *p = &sq->print[s];
				print_shape(v, x0, y0, s, p->kind);
				const char *label = p->kind != CM_PRINT_NONE ? cm_map_print_label(m, x, y, (cm_side)s) : NULL;
				if (p->kind != CM_PRINT_NONE && (label || p->arms))
					print_label(v, x0, y0, s, p, label);
			}
		}
	cm_scene_end(v->s);
}

static void ferries(svg *v)
{
	const cm_map *m = v->m;
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "ferries");
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *fr = &m->ferries[i];
		if (!cm__map_at(m, fr->x1, fr->y1) || !cm__map_at(m, fr->x2, fr->y2) || (unsigned)fr->s1 > 3 ||
		    (unsigned)fr->s2 > 3)
			continue; /* a partial model */
		int ax, ay, bx, by;
		side_point(v->ox + fr->x1 * S, v->oy + fr->y1 * S, fr->s1, S / 2, 0, &ax, &ay);
		side_point(v->ox + fr->x2 * S, v->oy + fr->y2 * S, fr->s2, S / 2, 0, &bx, &by);
		int mx = (ax + bx) / 2, my = (ay + by) / 2;
		/* a gentle curve: the control point off the chord by a fifth of it */
		int cx = mx + (by - ay) / 5, cy = my - (bx - ax) / 5;
		cm_node g = cm_scene_group(v->s, NULL);
		cm_scene_class(v->s, g, "ferry");
		char *t = cm_asprintf("ferry%s%s", fr->name ? " " : "", fr->name ? fr->name : "");
		if (!t)
			v->oom = 1;
		cm_scene_title(v->s, g, t);
		free(t);
		cm_scene_path_add(v->s, "M%d %dQ%d %d %d %d", ax, ay, cx, cy, bx, by);
		cm_style st = line_st(CM_PAINT_NONE, cm_palette_ferry(), 200, 5, 3);
		cm_scene_path_end(v->s, &st);
		st = fill_st(cm_palette_ferry());
		cm_scene_circle(v->s, ax, ay, 250, &st);
		cm_scene_circle(v->s, bx, by, 250, &st);
		int lx = (mx + cx) / 2, ly = (my + cy) / 2;
		if (fr->name)
			fitted(v, lx, ly - 3, (abs(bx - ax) > 2 * S ? abs(bx - ax) : 2 * S) - 4, 10, 8, "label", fr->name);
		for (int a = 0; a < fr->arms && a < 3; a++)
			cm__scene_shield(v->s, lx - 4 + 9 * a, ly + 1);
		cm_scene_end(v->s);
	}
	cm_scene_end(v->s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t marker_index(const svg *v, const char *s)
{
	const char **hit = bsearch(&s, v->mk, v->n_mk, sizeof *v->mk, cmp_str);
	return hit ? (size_t)(hit - v->mk) : 0;
}

/* Distinct marker texts, sorted: the key's numbers. */
static int collect_markers(svg *v)
{
	const cm_map *m = v->m;
	size_t n = 0;
	for (int y = 0; m->extras && y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			size_t k;
			cm_map_square_markers(m, x, y, &k);
			n += k;
		}
	if (!n)
		return 0;
	v->mk = malloc(n * sizeof *v->mk);
	if (!v->mk)
		return CM_ENOMEM;
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			size_t nk;
			const char *const *mk = cm_map_square_markers(m, x, y, &nk);
			for (size_t k = 0; k < nk; k++)
				if (mk[k])
					v->mk[v->n_mk++] = mk[k];
		}
	qsort(v->mk, v->n_mk, sizeof *v->mk, cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < v->n_mk; i++)
		if (!u || strcmp(v->mk[u - 1], v->mk[i]) != 0)
			v->mk[u++] = v->mk[i];
	v->n_mk = u;
	return 0;
}


/* Towns, landmarks, arms and markers on squares. */
static void square_symbols(svg *v)
{
	const cm_map *m = v->m;
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "symbols");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = sq_at(v, x, y);
			int x0 = v->ox + x * S, y0 = v->oy + y * S;
			if (sq->kind == CM_SQ_TOWN)
				house(v, x0 + S / 2, y0 + 5);
			else if (sq->kind == CM_SQ_LANDMARK)
				tower(v, x0 + S / 2, y0 + 4);
			for (int a = 0; a < sq->arms && a < 3; a++)
				cm__scene_shield(v->s, x0 + 3 + 9 * a, y0 + 4);
			size_t n_markers;
			const char *const *markers = cm_map_square_markers(m, x, y, &n_markers);
			for (size_t k = 0; k < n_markers && k < 3; k++) {
				if (!markers[k])
					continue;
				cm_node g = cm_scene_group(v->s, NULL);
				cm_scene_class(v->s, g, "marker");
				cm_scene_title(v->s, g, markers[k]);
				marker_symbol(v, x0 + S - 6 - 10 * (int)k, y0 + 6, marker_index(v, markers[k]));
				cm_scene_end(v->s);
			}
			if (n_markers > 3)
				text(v, x0 + S - 36, y0 + 8, 6, CM_ANCHOR_START, NULL, "+");
		}
	cm_scene_end(v->s);
}

/* A rectangle in units. */
typedef struct {
	int x0, y0, x1, y1;
} rect;

static int overlaps(rect a, rect b)
{
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/* The check id in the corner of square (x, y), if it has diagnostics. */
static int diag_tag(const svg *v, int x, int y, rect *out)
{
	if (!v->dg_first || !cm__map_at(v->m, x, y))
		return 0;
	int i = v->dg_first[y * v->m->cols + x];
	if (i < 0)
		return 0;
	const cm_diag *g = cm_diags_get(v->o->diags, (size_t)i);
	long w = cm__text_width(g->rule ? g->rule : cm_severity_name(g->severity), 6) / 100 + 6;
	int x0 = v->ox + x * S, y0 = v->oy + y * S;
	*out = (rect){ x0 + 1, y0 + 1, x0 + 3 + (int)w, y0 + 11 };
	return 1;
}

/* Whether r covers a diagnostic's check id. */
static int over_tag(const svg *v, rect r)
{
	int sx0 = (r.x0 - v->ox) / S - 1, sx1 = (r.x1 - v->ox) / S + 1;
	int sy0 = (r.y0 - v->oy) / S - 1, sy1 = (r.y1 - v->oy) / S + 1;
	for (int y = sy0; y <= sy1; y++)
		for (int x = sx0; x <= sx1; x++) {
			rect t;
			if (diag_tag(v, x, y, &t) && overlaps(r, t))
				return 1;
		}
	return 0;
}

/* A square an outside label may cover: plain land or a start square
 * with nothing written or drawn on it. */
static int free_square(const svg *v, int x, int y)
{
	const cm_square *sq = sq_at(v, x, y);
	rect t;
	if (!sq || (sq->kind != CM_SQ_LAND && sq->kind != CM_SQ_START) || sq->arms || diag_tag(v, x, y, &t))
		return 0;
	const char *name = cm_map_square_name(v->m, x, y);
	size_t nk;
	cm_map_square_markers(v->m, x, y, &nk);
	if ((name && name[0]) || nk)
		return 0;
	for (int e = 0; e < 4; e++)
		if (sq->print[e].kind != CM_PRINT_NONE && sq->print[e].kind != CM_PRINT_NEUTRAL)
			return 0;
	return 1;
}

/* The squares of row y from units x0 to x1 are all free. */
static int free_run(const svg *v, int y, int x0, int x1)
{
	if (x0 < v->ox || x1 > v->ox + v->m->cols * S)
		return 0;
	for (int x = (x0 - v->ox) / S; x <= (x1 - 1 - v->ox) / S; x++)
		if (!free_square(v, x, y))
			return 0;
	return 1;
}

/* A name too long for its big city: beside it, right or left in the
 * middle of one of its rows, on a white plate joined to it by a short
 * leader line, over free squares only. 0 when no place is free. */
static int outside_label(svg *v, const char *name, int x0, int y0, int x1, int y1)
{
	const int font = 9, pad = 2, gap = 5;
	int w = (int)(cm__text_width(name, font) / 100) + 2 * pad + 1;
	for (int y = y0; y <= y1; y++)
		for (int side = 0; side < 2; side++) {
			int cy = v->oy + y * S + S / 2;
			int edge = side == 0 ? v->ox + (x1 + 1) * S : v->ox + x0 * S;
			int px = side == 0 ? edge + gap : edge - gap - w;
			rect r = { px, cy - 7, px + w, cy + 6 };
			if (!free_run(v, y, r.x0, r.x1) || over_tag(v, r))
				continue;
			char d[64];
			snprintf(d, sizeof d, "M%d %dH%d", edge, cy, side == 0 ? px : px + w);
			cm_style ls = line_st(CM_PAINT_NONE, cm_palette_print(CM_PRINT_CITY), 120, 0, 0);
			cm_scene_class(v->s, cm_scene_path(v->s, d, &ls), "leader");
			cm_style ps = line_st(WHITE, cm_palette_print(CM_PRINT_CITY), 100, 0, 0);
			cm_scene_class(v->s, cm_scene_rect(v->s, r.x0, r.y0, w, r.y1 - r.y0, &ps), "plate");
			text(v, px + w / 2, cy + 3, font, CM_ANCHOR_MIDDLE, "bigcity-name", name);
			return 1;
		}
	return 0;
}

/* A big-city name fitted over its pieces (font 8 to 12) where it covers
 * no check id: centred, else in the middle of one of its rows. 0 when it
 * fits nowhere so. */
static int inside_label(svg *v, const char *name, int x0, int y0, int x1, int y1)
{
	int wd = (x1 - x0 + 1) * S, cx = v->ox + x0 * S + wd / 2;
	for (int y = y0 - 1; y <= y1; y++) { /* y0 - 1: centred on the whole city */
		int by = y < y0 ? v->oy + ((y0 + y1 + 1) * S) / 2 + 5 : v->oy + y * S + S / 2 + 5;
		int height = y < y0 ? (y1 - y0 + 1) * S : S;
		cm__label l;
		if (cm__label_fit(name, wd - 4, height, 12, 8, &l)) {
			v->oom = 1;
			return 1;
		}
		long tw = 0;
		for (int k = 0; k < l.lines; k++) {
			long t = cm__text_width(l.line[k], l.font) / 100 + 1;
			tw = t > tw ? t : tw;
		}
		int top = by - (l.lines == 2 ? 2 * l.font + 1 : l.font) - 1, ok = !l.abbreviated;
		cm__label_clear(&l);
		if (!ok)
			return 0;
		rect r = { cx - (int)tw / 2 - 1, top, cx + (int)tw / 2 + 1, by + 3 };
		if (over_tag(v, r))
			continue;
		fitted_min(v, cx, by, wd - 4, height, 12, 8, "bigcity-name", name);
		return 1;
	}
	return 0;
}

/* Big-city names over their pieces, or beside them when too long (never
 * shrunk below 8 units, never over a check id), shrunk only when there is
 * no room at all. */
static void bigcity_names(svg *v)
{
	const cm_map *m = v->m;
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *bc = &m->bigcities[i];
		int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
		for (size_t k = 0; k < bc->n_pieces; k++) {
			const cm_bigcity_piece *p = &bc->pieces[k];
			if (!valid_piece(v, p))
				continue;
			x0 = p->x < x0 ? p->x : x0;
			y0 = p->y < y0 ? p->y : y0;
			x1 = p->x > x1 ? p->x : x1;
			y1 = p->y > y1 ? p->y : y1;
		}
		if (x1 < 0 || !bc->name)
			continue;
		if (inside_label(v, bc->name, x0, y0, x1, y1) || outside_label(v, bc->name, x0, y0, x1, y1))
			continue;
		int wd = (x1 - x0 + 1) * S;
		fitted(v, v->ox + x0 * S + wd / 2, v->oy + ((y0 + y1 + 1) * S) / 2 + 5, wd - 4, (y1 - y0 + 1) * S, 12,
		       "bigcity-name", bc->name);
	}
}

/* Island titles on the island square nearest its middle. */
static void island_names(svg *v)
{
	const cm_map *m = v->m;
	size_t ni = m->n_islands;
	long *sx = ni ? calloc(ni * 3, sizeof *sx) : NULL;
	int *best = ni ? malloc(ni * sizeof *best) : NULL;
	long *bd = ni ? malloc(ni * sizeof *bd) : NULL;
	if (ni && (!sx || !best || !bd)) {
		v->oom = 1;
		ni = 0;
	}
	for (int i = 0; i < m->cols * m->rows; i++) {
		int is = m->squares[i].island;
		if (is >= 0 && (size_t)is < ni && m->squares[i].kind == CM_SQ_ISLAND) {
			sx[3 * is] += i % m->cols;
			sx[3 * is + 1] += i / m->cols;
			sx[3 * is + 2]++;
		}
	}
	for (size_t i = 0; i < ni; i++) {
		best[i] = -1;
		bd[i] = 0;
	}
	for (int i = 0; i < m->cols * m->rows; i++) {
		int is = m->squares[i].island;
		if (is < 0 || (size_t)is >= ni || m->squares[i].kind != CM_SQ_ISLAND)
			continue;
		long c = sx[3 * is + 2];
		long dx = (long)(i % m->cols) * c - sx[3 * is], dy = (long)(i / m->cols) * c - sx[3 * is + 1];
		long dd = dx * dx + dy * dy;
		if (best[is] < 0 || dd < bd[is]) {
			best[is] = i;
			bd[is] = dd;
		}
	}
	for (size_t i = 0; i < ni; i++) {
		const cm_island *is = &m->islands[i];
		const char *name = is->title ? is->title : is->name;
		if (best[i] < 0 || !name)
			continue;
		int x = best[i] % m->cols, y = best[i] / m->cols;
		/* above the square names: in the square's upper half */
		fitted(v, v->ox + x * S + S / 2, v->oy + y * S + S / 2 - 1, 3 * S, S / 2, 10, "island-name", name);
	}
	free(sx);
	free(best);
	free(bd);
}

/* Every square name, big-city name and island title, with a white halo. */
static void square_words(svg *v)
{
	const cm_map *m = v->m;
	square_symbols(v);
	cm_style st = { .halo = WHITE, .halo_width = 200, .halo_round = 1, .fill = pc(cm_palette_text()) };
	cm_scene_id(v->s, cm_scene_group(v->s, &st), "names");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const char *name = cm_map_square_name(m, x, y);
			if (!name || !name[0])
				continue;
			fitted(v, v->ox + x * S + S / 2, v->oy + y * S + S - 4, S - 3, S / 2 + 2, 9, "name", name);
		}
	bigcity_names(v);
	island_names(v);
	cm_scene_end(v->s);
}

static void coords(svg *v)
{
	const cm_map *m = v->m;
	cm_style st = { .font_size = 8, .fill = pc(cm_palette_grid()) };
	cm_scene_id(v->s, cm_scene_group(v->s, &st), "coords");
	char t[16];
	for (int x = 0; x < m->cols; x++) {
		snprintf(t, sizeof t, "%d", x);
		cm_scene_text(v->s, v->ox + x * S + S / 2, TITLE_H + 12, t, &(cm_style){ .anchor = CM_ANCHOR_MIDDLE });
	}
	for (int y = 0; y < m->rows; y++) {
		snprintf(t, sizeof t, "%d", y);
		cm_scene_text(v->s, COORD - 2, v->oy + y * S + S / 2 + 3, t, &(cm_style){ .anchor = CM_ANCHOR_END });
	}
	cm_scene_end(v->s);
}

static void followers(svg *v)
{
	if (!v->b)
		return;
	const cm_follower *fl;
	size_t n = cm_board_followers(v->b, &fl);
	const cm_deck *dk = cm_board_deck(v->b);
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "followers");
	for (size_t i = 0; i < n; i++) {
		int t, r;
		if (cm_board_tile_at(v->b, fl[i].x, fl[i].y, &t, &r) != 0)
			continue;
		const cm_tile_type *tt = cm_deck_type(dk, (size_t)t);
		if (fl[i].feature < 0 || (size_t)fl[i].feature >= tt->n_features)
			continue;
		int ax, ay;
		feature_anchor(&tt->features[fl[i].feature], r, &ax, &ay);
		meeple(v, v->ox + fl[i].x * S + ax, v->oy + fl[i].y * S + ay, fl[i].player, fl[i].kind);
	}
	cm_scene_end(v->s);
}

/* Squares never filled in the game: a cross, under the names. */
static void empties(svg *v)
{
	if (!v->b)
		return;
	const cm_map *m = v->m;
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			if (cm_square_kind_playable(sq_at(v, x, y)->kind) && cm_board_tile_at(v->b, x, y, NULL, NULL) != 0)
				cm_scene_path_add(v->s, "M%d %dl12 12m0-12l-12 12", v->ox + x * S + S / 2 - 6,
				                  v->oy + y * S + S / 2 - 6);
	cm_style st = line_st(CM_PAINT_NONE, cm_palette_severity(CM_SEV_ERROR), 150, 0, 0);
	st.stroke_opacity = 70;
	cm_scene_id(v->s, cm_scene_path_end(v->s, &st), "empty");
}

static int diag_on_grid(const svg *v, const cm_diag *g)
{
	return g && cm__map_at(v->m, g->x, g->y) != NULL;
}

/* The frame of square s and its diagnostics: their indices, square, messages. */
static void diag_frame(svg *v, int s)
{
	const cm_map *m = v->m;
	const cm_diags *d = v->o->diags;
	int x0 = v->ox + (s % m->cols) * S, y0 = v->oy + (s / m->cols) * S;
	cm_severity worst = CM_SEV_NOTE;
	int n = 0;
	const cm_diag *first = cm_diags_get(d, (size_t)v->dg_first[s]);
	cm__sbuf ids = { 0 }, title = { 0 };
	for (int i = v->dg_first[s]; i >= 0; i = v->dg_next[i]) {
		const cm_diag *g = cm_diags_get(d, (size_t)i);
		worst = g->severity > worst ? g->severity : worst;
		cm__sb_add(&ids, "%s%d", n ? " " : "", i);
		cm__sb_add(&title, "%s%s %s: %s", n ? "\n" : "", cm_severity_name(g->severity), g->rule ? g->rule : "",
		       g->message ? g->message : "");
		n++;
	}
	char sq[32];
	snprintf(sq, sizeof sq, "%d,%d", s % m->cols, s / m->cols);
	cm_node grp = cm_scene_group(v->s, NULL);
	cm_scene_class(v->s, grp, "diag");
	if (ids.oom || title.oom)
		v->oom = 1;
	cm_scene_data(v->s, grp, "d", ids.p ? ids.p : "");
	cm_scene_data(v->s, grp, "sq", sq);
	cm_scene_title(v->s, grp, title.p);
	free(ids.p);
	free(title.p);
	cm_style st = line_st(CM_PAINT_NONE, cm_palette_severity(worst), 250, 0, 0);
	cm_scene_rect(v->s, x0 + 1, y0 + 1, S - 2, S - 2, &st);
	char id[32];
	snprintf(id, sizeof id, "%s%s", first->rule ? first->rule : cm_severity_name(first->severity), n > 1 ? "+" : "");
	cm_scene_text(v->s, x0 + 3, y0 + 8, id,
	              &(cm_style){ .font_size = 6, .halo = WHITE, .halo_width = 150, .fill = pc(cm_palette_severity(worst)) });
	cm_scene_end(v->s);
}

/* Squares marked without diagnostics (cm_render_opts.marks): a frame in
 * the severity's colour. */
static void mark_frames(svg *v)
{
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "diagnostics");
	for (size_t i = 0; i < v->o->n_marks; i++) {
		const cm_render_mark *k = &v->o->marks[i];
		if (!cm__map_at(v->m, k->x, k->y))
			continue;
		cm_style st = line_st(CM_PAINT_NONE, cm_palette_severity(k->severity), 250, 0, 0);
		cm_scene_rect(v->s, v->ox + k->x * S + 1, v->oy + k->y * S + 1, S - 2, S - 2, &st);
	}
	cm_scene_end(v->s);
}

static void diag_frames(svg *v)
{
	if (!v->dg_first && !v->o->diags && v->o->n_marks)
		mark_frames(v);
	if (!v->dg_first)
		return;
	const cm_map *m = v->m;
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "diagnostics");
	for (int s = 0; s < m->cols * m->rows; s++)
		if (v->dg_first[s] >= 0)
			diag_frame(v, s);
	cm_scene_end(v->s);
}

/* ---- key, scores, diagnostics list ---- */

typedef enum {
	K_SQUARE, K_SEAM, K_ROAD, K_CITY, K_NEUTRAL, K_ARMS,
	K_FERRY, K_MARKER, K_SEVERITY, K_PLAYER, K_EMPTY
} key_kind;

typedef struct {
	key_kind k;
	int arg;
} key_entry;

/* The entries of the key: what the map shows, in a fixed order. */
static size_t key_entries(const svg *v, key_entry *out, size_t max)
{
	const cm_map *m = v->m;
	unsigned kinds = 0, prints = 0;
	int arms = 0;
	for (int i = 0; i < m->cols * m->rows; i++) {
		const cm_square *s = &m->squares[i];
		kinds |= 1u << s->kind;
		arms |= s->arms > 0;
		for (int e = 0; e < 4; e++) {
			prints |= 1u << s->print[e].kind;
			arms |= s->print[e].arms > 0;
		}
	}
	for (size_t i = 0; i < m->n_ferries; i++)
		arms |= m->ferries[i].arms > 0;
	for (size_t i = 0; i < m->n_bigcities; i++)
		for (size_t k = 0; k < m->bigcities[i].n_pieces; k++)
			for (size_t fi = 0; fi < m->bigcities[i].pieces[k].tile.n_features; fi++)
				arms |= m->bigcities[i].pieces[k].tile.features[fi].arms > 0;
	size_t n = 0;
#define ADD(kk, a)                                     \
	do {                                           \
		if (n < max)                           \
			out[n] = (key_entry){ (kk), (a) }; \
		n++;                                   \
	} while (0)
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++)
		if (kinds & (1u << k))
			ADD(K_SQUARE, k);
	if (m->seam >= 0)
		ADD(K_SEAM, 0);
	if (prints & (1u << CM_PRINT_ROAD))
		ADD(K_ROAD, 0);
	if (prints & (1u << CM_PRINT_CITY))
		ADD(K_CITY, 0);
	if (prints & (1u << CM_PRINT_NEUTRAL))
		ADD(K_NEUTRAL, 0);
	if (arms)
		ADD(K_ARMS, 0);
	if (m->n_ferries)
		ADD(K_FERRY, 0);
	for (size_t i = 0; i < v->n_mk; i++)
		ADD(K_MARKER, (int)i);
	if (v->dg_first) {
		unsigned sev = 0;
		for (int i = 0; i < m->cols * m->rows; i++)
			for (int k = v->dg_first[i]; k >= 0; k = v->dg_next[k])
				sev |= 1u << cm_diags_get(v->o->diags, (size_t)k)->severity;
		for (int s = CM_SEV_ERROR; s >= CM_SEV_NOTE; s--)
			if (sev & (1u << s))
				ADD(K_SEVERITY, s);
	}
	if (v->b) {
		for (int p = 0; p < cm_board_players(v->b); p++)
			ADD(K_PLAYER, p);
		ADD(K_EMPTY, 0);
	}
#undef ADD
	return n;
}

/* The symbol of a key entry of square kind k at (x, y). */
static void key_square(svg *v, int k, int x, int y)
{
	cm_style st = line_st(pc(cm_palette_square((cm_square_kind)k)), cm_palette_grid(), 50, 0, 0);
	cm_scene_rect(v->s, x, y, 14, 14, &st);
	if (k == CM_SQ_WAVES || k == CM_SQ_HALF)
		cm_scene_rect(v->s, x, y, 14, 14,
		              &(cm_style){ .fill = CM_PAINT_PATTERN(k == CM_SQ_WAVES ? PAT_WAVES : PAT_HALF) });
	/* the kind's own marks over its colour */
	if (k == CM_SQ_START) {
		st = line_st(CM_PAINT_NONE, cm_palette_start_outline(), 200, 0, 0);
		cm_scene_rect(v->s, x + 2, y + 2, 10, 10, &st);
	} else if (k == CM_SQ_TOWN) {
		house(v, x + 7, y + 2);
	} else if (k == CM_SQ_LANDMARK) {
		tower(v, x + 7, y + 2);
	} else if (k == CM_SQ_BIGCITY) {
		st = line_st(CM_PAINT_NONE, cm_palette_print(CM_PRINT_CITY), 250, 0, 0);
		cm_scene_rect(v->s, x, y, 14, 14, &st);
	} else if (k == CM_SQ_ISLAND) {
		st = line_st(CM_PAINT_NONE, cm_palette_ferry(), 150, 3, 2);
		cm_scene_rect(v->s, x, y, 14, 14, &st);
	}
}

/* The symbol of key entry e at (x, y); its words in *label. */
static void key_symbol(svg *v, const key_entry *e, int x, int y, char *buf, size_t n, const char **label)
{
	static const char *const kind_words[CM_SQ_KIND_COUNT] = {
		"not printed (water, off the map)", "land", "start square (outlined)", "town", "big city (outlined)",
		"waves", "landmark", "island (dashed outline)", "half square"
	};
	char d[128];
	cm_style st;
	switch (e->k) {
	case K_SQUARE:
		key_square(v, e->arg, x, y);
		*label = kind_words[e->arg];
		break;
	case K_SEAM:
		snprintf(d, sizeof d, "M%d %dv14", x + 7, y);
		st = line_st(0, cm_palette_text(), 150, 2, 3);
		cm_scene_path(v->s, d, &st);
		*label = "seam of the combined halves";
		break;
	case K_ROAD:
		snprintf(d, sizeof d, "M%d %dh14", x, y + 7);
		st = line_st(0, cm_palette_grid(), 600, 0, 0);
		cm_scene_path(v->s, d, &st);
		st = line_st(0, cm_palette_print(CM_PRINT_ROAD), 350, 0, 0);
		cm_scene_path(v->s, d, &st);
		*label = "edge print: road";
		break;
	case K_CITY:
		snprintf(d, sizeof d, "M%d %dQ%d %d %d %dz", x, y + 14, x + 7, y - 2, x + 14, y + 14);
		st = fill_st(cm_palette_print(CM_PRINT_CITY));
		cm_scene_path(v->s, d, &st);
		*label = "edge print: city";
		break;
	case K_NEUTRAL:
		snprintf(d, sizeof d, "M%d %dh14", x, y + 7);
		st = line_st(0, cm_palette_print(CM_PRINT_NEUTRAL), 150, 3, 2);
		cm_scene_path(v->s, d, &st);
		*label = "edge print: neutral";
		break;
	case K_ARMS: cm__scene_shield(v->s, x + 3, y + 2); *label = "coat of arms"; break;
	case K_FERRY:
		snprintf(d, sizeof d, "M%d %dq7-8 14 0", x, y + 10);
		st = line_st(CM_PAINT_NONE, cm_palette_ferry(), 200, 5, 3);
		cm_scene_path(v->s, d, &st);
		*label = "ferry route";
		break;
	case K_MARKER:
		marker_symbol(v, x + 7, y + 7, (size_t)e->arg);
		*label = v->mk[e->arg];
		break;
	case K_SEVERITY:
		st = line_st(CM_PAINT_NONE, cm_palette_severity((cm_severity)e->arg), 250, 0, 0);
		cm_scene_rect(v->s, x + 1, y + 1, 13, 13, &st);
		snprintf(buf, n, "%s (check id in the corner)", cm_severity_name((cm_severity)e->arg));
		break;
	case K_PLAYER:
		meeple(v, x + 7, y + 8, e->arg, CM_FOLLOWER_MEEPLE);
		snprintf(buf, n, "player %d", e->arg + 1);
		break;
	case K_EMPTY:
		snprintf(d, sizeof d, "M%d %dl12 12m0-12l-12 12", x + 1, y + 1);
		st = line_st(0, cm_palette_severity(CM_SEV_ERROR), 150, 0, 0);
		cm_scene_path(v->s, d, &st);
		*label = "never filled in this game";
		break;
	}
}

static void key_entry_draw(svg *v, const key_entry *e, int x, int y)
{
	char buf[64];
	const char *label = buf;
	key_symbol(v, e, x, y, buf, sizeof buf, &label);
	/* key texts are cut to their column, the whole text in a <title> */
	long room = (KEY_COL - 24) * 100L;
	if (cm__text_width(label, 10) <= room) {
		text(v, x + 20, y + 11, 10, CM_ANCHOR_START, NULL, label);
		return;
	}
	cm__label l;
	if (cm__label_fit(label, KEY_COL - 24, 12, 10, 7, &l)) {
		v->oom = 1;
		return;
	}
	char *t = l.lines == 2 ? cm_asprintf("%s %s", l.line[0], l.line[1]) : NULL;
	if (l.lines == 2 && !t)
		v->oom = 1;
	cm_node n = cm_scene_text(v->s, x + 20, y + 11, t ? t : l.line[0], &(cm_style){ .font_size = l.font });
	cm_scene_title(v->s, n, label);
	free(t);
	cm__label_clear(&l);
}

static int key_height(size_t n, int w)
{
	int cols = (w - 2 * COORD) / KEY_COL;
	if (cols < 1)
		cols = 1;
	return 18 + (int)((n + (size_t)cols - 1) / (size_t)cols) * KEY_ROW;
}

/* A heading of a block below the map. */
static void heading(svg *v, int y, const char *s)
{
	cm_scene_text(v->s, COORD, y + 11, s, &(cm_style){ .font_size = 11, .bold = 1 });
}

static void key(svg *v, int y)
{
	size_t n = key_entries(v, NULL, 0);
	key_entry *e = malloc((n + 1) * sizeof *e);
	if (!e) {
		v->oom = 1;
		return;
	}
	key_entries(v, e, n);
	int cols = (v->w - 2 * COORD) / KEY_COL;
	if (cols < 1)
		cols = 1;
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "key");
	heading(v, y, "Key");
	for (size_t i = 0; i < n; i++)
		key_entry_draw(v, &e[i], COORD + (int)(i % (size_t)cols) * KEY_COL, y + 18 + (int)(i / (size_t)cols) * KEY_ROW);
	cm_scene_end(v->s);
	free(e);
}

static int scores_height(const svg *v)
{
	return v->b ? 18 + (cm_board_players(v->b) + 1) * LINE_H + 6 : 0;
}

/* A number of the score table. */
static void score_cell(svg *v, int x, int y, long value, int bold, const char *cls)
{
	char t[32];
	snprintf(t, sizeof t, "%ld", value);
	cm_node n = cm_scene_text(v->s, x, y, t, &(cm_style){ .font_size = 9, .bold = bold, .anchor = CM_ANCHOR_END });
	if (cls)
		cm_scene_class(v->s, n, cls);
}

/* The final scores: per player the points by kind and in all. */
static void scores(svg *v, int y)
{
	if (!v->b)
		return;
	int np = cm_board_players(v->b);
	long pts[CM_MAX_PLAYERS][CM_FEAT_KIND_COUNT + 1];
	memset(pts, 0, sizeof pts);
	for (size_t i = 0; i < v->o->game->n_items; i++) {
		const cm_score_item *it = &v->o->game->items[i];
		int k = it->type == CM_ITEM_FEATURE && (unsigned)it->kind < CM_FEAT_KIND_COUNT ? (int)it->kind
		                                                                               : CM_FEAT_KIND_COUNT;
		for (int p = 0; p < np; p++)
			if (it->players & (1u << p))
				pts[p][k] += it->points;
	}
	static const char *const head[] = { "player", "road", "city", "field", "monastery", "garden", "abbey", "other",
		                             "score" };
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "scores");
	char t[64];
	snprintf(t, sizeof t, "Final scores (game seed %llu)", (unsigned long long)v->o->game->seed);
	heading(v, y, t);
	int cx[9];
	for (int c = 0; c < 9; c++)
		cx[c] = COORD + 60 + c * 62;
	cx[0] = COORD;
	for (int c = 0; c < 9; c++)
		cm_scene_text(v->s, c ? cx[c] : cx[0], y + 18 + LINE_H - 3, head[c],
		              &(cm_style){ .font_size = 9, .bold = 1, .anchor = c ? CM_ANCHOR_END : CM_ANCHOR_START });
	for (int p = 0; p < np; p++) {
		int ry = y + 18 + (p + 2) * LINE_H - 3;
		meeple(v, cx[0] + 6, ry - 5, p, CM_FOLLOWER_MEEPLE);
		snprintf(t, sizeof t, "player %d", p + 1);
		cm_scene_text(v->s, cx[0] + 16, ry, t, &(cm_style){ .font_size = 9 });
		for (int k = 0; k <= CM_FEAT_KIND_COUNT; k++)
			score_cell(v, cx[k + 1], ry, pts[p][k], 0, NULL);
		score_cell(v, cx[8], ry, cm_board_score(v->b, p), 1, "score");
	}
	cm_scene_end(v->s);
}

static int list_height(const svg *v)
{
	return v->html || !v->n_dg ? 0 : 18 + (int)v->n_dg * LINE_H + 6;
}

/* SVG only: every diagnostic as a line, cut to the picture's width. */
static void diag_list(svg *v, int y)
{
	if (!list_height(v))
		return;
	const cm_diags *d = v->o->diags;
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "diaglist");
	heading(v, y, "Diagnostics");
	for (size_t i = 0; i < v->n_dg; i++) {
		const cm_diag *g = cm_diags_get(d, i);
		char *line;
		if (diag_on_grid(v, g))
			line = cm_asprintf("%s %s (%d,%d): %s", cm_severity_name(g->severity), g->rule ? g->rule : "", g->x, g->y,
			                   g->message ? g->message : "");
		else
			line = cm_asprintf("%s %s: %s", cm_severity_name(g->severity), g->rule ? g->rule : "",
			                   g->message ? g->message : "");
		cm__label l;
		if (!line || cm__label_fit(line, v->w - 2 * COORD, 10, 9, 9, &l)) {
			v->oom = 1;
			free(line);
			break;
		}
		int ty = y + 18 + (int)(i + 1) * LINE_H - 3;
		cm_node n = cm_scene_text(v->s, COORD, ty, l.abbreviated ? l.line[0] : line,
		                          &(cm_style){ .font_size = 9, .fill = pc(cm_palette_severity(g->severity)) });
		if (l.abbreviated)
			cm_scene_title(v->s, n, line);
		cm__label_clear(&l);
		free(line);
	}
	cm_scene_end(v->s);
}

/* ---- the title line ---- */

static char *title_line(const svg *v)
{
	const cm_map *m = v->m;
	int starts = 0;
	for (int i = 0; i < m->cols * m->rows; i++)
		starts += m->squares[i].kind == CM_SQ_START;
	char tiles[48] = "", deck[48] = "", game[64] = "";
	if (m->setup.tiles_min > 0 || m->setup.tiles_max > 0)
		snprintf(tiles, sizeof tiles, " \xc2\xb7 tiles %d\xe2\x80\x93%d", m->setup.tiles_min, m->setup.tiles_max);
	if (v->o->deck_size >= 0)
		snprintf(deck, sizeof deck, " \xc2\xb7 deck %d tiles", v->o->deck_size);
	if (v->b)
		snprintf(game, sizeof game, " \xc2\xb7 game seed %llu, %d players", (unsigned long long)v->o->game->seed,
		         cm_board_players(v->b));
	return cm_asprintf("edition %s%s \xc2\xb7 start squares %d/%d used%s \xc2\xb7 %d\xc3\x97%d squares%s",
	                   cm_edition_name(m->rules.edition), tiles, m->setup.starts_used, starts, deck, m->cols, m->rows,
	                   game);
}

/* ---- the whole picture ---- */

/* Left and right room for labels of prints on the grid's first and last
 * columns (they are written outside the edge). */
static void pads(svg *v)
{
	const cm_map *m = v->m;
	long l = PAD * 100L, r = PAD * 100L;
	for (int y = 0; y < m->rows; y++) {
		const char *pw = cm_map_print_label(m, 0, y, CM_W);
		const char *pe = cm_map_print_label(m, m->cols - 1, y, CM_E);
		if (pw) {
			long w = cm__text_width(pw, 8) + 800;
			l = w > l ? w : l;
		}
		if (pe) {
			long w = cm__text_width(pe, 8) + 800;
			r = w > r ? w : r;
		}
	}
	v->pad_l = (int)((l + 99) / 100);
	v->pad_r = (int)((r + 99) / 100);
}

static int build_index(svg *v)
{
	const cm_map *m = v->m;
	int n = m->cols * m->rows;
	const cm_diags *d = v->o->diags;
	v->n_dg = d ? cm_diags_count(d) : 0;
	if (v->n_dg) {
		v->dg_first = malloc((size_t)n * sizeof *v->dg_first);
		v->dg_next = malloc(v->n_dg * sizeof *v->dg_next);
		if (!v->dg_first || !v->dg_next)
			return CM_ENOMEM;
		for (int i = 0; i < n; i++)
			v->dg_first[i] = -1;
		/* backwards, so that each square's list is in diagnostic order */
		for (size_t i = v->n_dg; i-- > 0;) {
			const cm_diag *g = cm_diags_get(d, i);
			v->dg_next[i] = -1;
			if (!diag_on_grid(v, g))
				continue;
			int s = g->y * m->cols + g->x;
			v->dg_next[i] = v->dg_first[s];
			v->dg_first[s] = (int)i;
		}
	}
	if (v->b && v->o->game->n_items) {
		size_t ni = v->o->game->n_items;
		v->it_first = malloc((size_t)n * sizeof *v->it_first);
		v->it_next = malloc(ni * sizeof *v->it_next);
		if (!v->it_first || !v->it_next)
			return CM_ENOMEM;
		for (int i = 0; i < n; i++)
			v->it_first[i] = -1;
		for (size_t i = ni; i-- > 0;) {
			const cm_score_item *it = &v->o->game->items[i];
			v->it_next[i] = -1;
			if (!cm__map_at(m, it->x, it->y))
				continue;
			int s = it->y * m->cols + it->x;
			v->it_next[i] = v->it_first[s];
			v->it_first[s] = (int)i;
		}
	}
	return 0;
}

/* Paper: the labels shortened on the map, in full, below the rest; the
 * picture grows to hold them. */
static void shortened(svg *v, cm_node bg)
{
	int y = v->h;
	cm_scene_id(v->s, cm_scene_group(v->s, NULL), "shortened");
	heading(v, y, "Names shortened on the map");
	for (size_t i = 0; i < v->n_short; i++) {
		char *t = cm_asprintf("%s \xe2\x80\x94 %s", v->short_[i] ? v->short_[i] : "", v->whole[i] ? v->whole[i] : "");
		if (!t) {
			v->oom = 1;
			break;
		}
		cm_scene_text(v->s, COORD, y + 18 + (int)(i + 1) * LINE_H - 3, t, &(cm_style){ .font_size = 9 });
		free(t);
	}
	cm_scene_end(v->s);
	v->h = y + 18 + (int)v->n_short * LINE_H + 6 + 8;
	if (bg != CM_NODE_NONE)
		v->s->n[bg].d = v->h;
	cm_scene_set_size(v->s, v->w, v->h);
}

/* The layers of the picture, in drawing order; a break between layers
 * where the SVG has a newline. */
static void layers(svg *v, const char *name, const char *tl, int key_y, int score_y, int list_y)
{
	cm_scene *s = v->s;
	const cm_map *m = v->m;
	cm_scene_break(s);
	cm_node bg = cm_scene_rect(s, 0, 0, v->w, v->h, &(cm_style){ .fill = WHITE });
	cm_scene_break(s);
	cm_style st = fill_st(cm_palette_square(CM_SQ_NONE));
	cm_scene_rect(s, v->ox, v->oy, m->cols * S, m->rows * S, &st);
	cm_scene_break(s);
	cm_scene_id(s, cm_scene_text(s, COORD, 18, name, &(cm_style){ .font_size = 15, .bold = 1 }), "map-name");
	cm_scene_id(s, cm_scene_text(s, COORD, 36, tl, &(cm_style){ .font_size = 10 }), "title-line");
	cm_scene_break(s);
	squares(v);
	cm_scene_break(s);
	outline(v, "islands", in_island, 0, cm_palette_ferry(), 1, 150);
	bigcities(v);
	cm_scene_break(s);
	game_tiles(v);
	grid(v);
	seam(v);
	cm_scene_break(s);
	if (v->o->flags & CM_RENDER_FEATURES) {
		starts(v);
		prints(v);
		cm_scene_break(s);
		ferries(v);
		cm_scene_break(s);
	}
	empties(v);
	square_words(v);
	cm_scene_break(s);
	coords(v);
	cm_scene_break(s);
	followers(v);
	diag_frames(v);
	cm_scene_break(s);
	key(v, key_y);
	cm__scene_tile_key(s, COORD, v->tkey_y, v->w - 2 * COORD, v->tile_prints, CM__TILE_KEY_BOARD);
	cm_scene_break(s);
	scores(v, score_y);
	diag_list(v, list_y);
	if (v->n_short) /* paper: no tooltip keeps the whole text */
		shortened(v, bg);
	if (v->html) { /* the square under the pointer, the selected diagnostic's square */
		cm_scene_break(s);
		cm_scene_id(s, cm_scene_rect(s, 0, 0, S, S,
		                             &(cm_style){ .fill = CM_PAINT_NONE, .stroke = BLACK, .stroke_width = 200, .overlay = 1 }),
		            "cm-hover");
		cm_scene_id(s, cm_scene_rect(s, 0, 0, S, S,
		                             &(cm_style){ .fill = CM_PAINT_RGB(255, 255, 0), .fill_opacity = 35, .stroke = BLACK,
		                                          .stroke_width = 300, .overlay = 1 }),
		            "cm-hl");
	}
}

static void root_data(cm_scene *s, const char *name, int value)
{
	char t[16];
	snprintf(t, sizeof t, "%d", value);
	cm_scene_data(s, CM_NODE_ROOT, name, t);
}

int cm__map_scene(const cm_map *m, const cm_render_opts *o, int mode, cm__svg_geom *g, cm_scene **out)
{
	svg v = { .m = m, .o = o, .html = mode == CM__SCENE_HTML, .paper = mode == CM__SCENE_PAPER };
	*out = NULL;
	if (o->game && o->game->board && cm_board_map(o->game->board) == m)
		v.b = o->game->board;
	int rc = cm_scene_new(&v.s);
	if (!rc)
		rc = collect_markers(&v);
	if (!rc)
		rc = build_index(&v);
	if (!rc)
		rc = tile_prints(&v);
	char *tl = rc ? NULL : title_line(&v);
	if (!rc && !tl)
		rc = CM_ENOMEM;
	if (rc)
		goto out;
	pads(&v);
	v.ox = COORD + v.pad_l;
	v.oy = TITLE_H + COORD + PAD;
	int grid_w = v.ox + m->cols * S + v.pad_r;
	const char *name = m->name ? m->name : m->id ? m->id : "map";
	long tw = cm__text_width(name, 15) / 100 + 24 + COORD;
	long lw = cm__text_width(tl, 10) / 100 + 2 * COORD;
	v.w = grid_w;
	v.w = tw > v.w ? (int)tw : v.w;
	v.w = lw > v.w ? (int)lw : v.w;
	v.w = v.w < 560 ? 560 : v.w;
	int key_y = v.oy + m->rows * S + PAD + 8;
	size_t nk = key_entries(&v, NULL, 0);
	v.tkey_y = key_y + key_height(nk, v.w) + 8;
	int tkey_h = cm__tile_key_height(v.w - 2 * COORD, v.tile_prints, CM__TILE_KEY_BOARD);
	int score_y = v.tkey_y + (tkey_h ? tkey_h + 8 : 0);
	int list_y = score_y + scores_height(&v);
	v.h = list_y + list_height(&v) + 8;
	int scale = o->scale > 0 ? o->scale : S;
	*g = (cm__svg_geom){ .ox = v.ox, .oy = v.oy, .w = v.w, .h = v.h, .key_y = key_y,
		             .disp_w = (long)v.w * scale / S, .disp_h = (long)v.h * scale / S };
	cm_scene_set_size(v.s, v.w, v.h);
	cm_scene_set_title(v.s, name, tl);
	cm_scene_id(v.s, CM_NODE_ROOT, "cm-map");
	root_data(v.s, "cols", m->cols);
	root_data(v.s, "rows", m->rows);
	root_data(v.s, "cell", S);
	root_data(v.s, "ox", v.ox);
	root_data(v.s, "oy", v.oy);
	defs(&v);
	layers(&v, name, tl, key_y, score_y, list_y);
	rc = v.oom ? CM_ENOMEM : cm_scene_error(v.s);
	g->h = v.h;
out:
	for (size_t i = 0; i < v.n_short; i++) {
		free(v.short_[i]);
		free(v.whole[i]);
	}
	free(v.short_);
	free(v.whole);
	free(tl);
	free(v.mk);
	free(v.dg_first);
	free(v.dg_next);
	free(v.it_first);
	free(v.it_next);
	cm__tile_cache_free(v.tc);
	if (rc)
		cm_scene_free(v.s);
	else
		*out = v.s;
	return rc;
}

int cm__render_svg(const cm_map *m, const cm_render_opts *o, const char *out, cm_diags *d)
{
	cm_scene *s;
	cm__svg_geom g;
	int rc = cm__map_scene(m, o, CM__SCENE_SVG, &g, &s);
	if (rc)
		return rc;
	cm_scene_opts so;
	cm_scene_opts_init(&so);
	so.svg_w = (int)g.disp_w;
	so.svg_h = (int)g.disp_h;
	rc = cm_scene_write(s, &so, out, d);
	cm_scene_free(s);
	return rc;
}
