/* SPDX-License-Identifier: MIT */
/* render_svg.c: the SVG picture of a map (render_int.h): every element of
 * the model drawn apart (square kinds, starts, towns, big cities, islands,
 * waves, landmarks, half squares and the seam, edge prints with their arms
 * and labels, ferries, markers), its words (title line, names, coordinates,
 * a key), diagnostics framed with their ids, and a played game. Integer
 * geometry, palette colours, one pass per layer: linear in the squares. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/palette.h"
#include "export/render_int.h"
#include "base/util_int.h"

#define S CM__CELL
#define TITLE_H 44
#define COORD 18
#define PAD 26
#define KEY_COL 180
#define KEY_ROW 20
#define LINE_H 14

typedef struct {
	FILE *f;
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
	int oom;
} svg;

static void col(FILE *f, const char *attr, cm_rgb c)
{
	fprintf(f, " %s=\"#%02x%02x%02x\"", attr, c.r, c.g, c.b);
}

static const cm_square *sq_at(const svg *v, int x, int y)
{
	return cm_map_at(v->m, x, y);
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

static void shield(FILE *f, int x, int y)
{
	/* a coat of arms: 8 wide, 9 high, top-left at (x,y) */
	fprintf(f, "<path d=\"M%d %dh8v4q0 4-4 5q-4-1-4-5z\"", x, y);
	col(f, "fill", cm_palette_arms());
	fputs(" stroke=\"#ffffff\" stroke-width=\"0.8\"/>", f);
}

static void house(FILE *f, int cx, int y)
{
	fprintf(f, "<path d=\"M%d %dl6-5l6 5v6h-12z\"", cx - 6, y + 5);
	col(f, "fill", cm_palette_text());
	fputs("/>", f);
}

static void tower(FILE *f, int cx, int y)
{
	fprintf(f, "<path d=\"M%d %dl3-10h2l3 10z\"", cx - 4, y + 11);
	col(f, "fill", cm_palette_text());
	fputs("/>", f);
}

static void marker_symbol(FILE *f, int cx, int cy, size_t k)
{
	fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4.5\"", cx, cy);
	col(f, "fill", cm_palette_marker());
	fprintf(f, "/><text x=\"%d\" y=\"%d\" font-size=\"6\" text-anchor=\"middle\" fill=\"#ffffff\">%zu</text>", cx,
	        cy + 2, k + 1);
}

static void meeple(FILE *f, int cx, int cy, int player, cm_follower_kind kind)
{
	fputs("<g class=\"follower\">", f);
	if (kind == CM_FOLLOWER_WAGON)
		fprintf(f, "<path d=\"M%d %dh14v7h-14z\"", cx - 7, cy - 4);
	else
		fprintf(f, "<path d=\"M%d %dq0-4 3-4q-2-4 2-5q4 1 2 5q3 0 3 4l-3 0l2 5h-3l-2-3l-2 3h-3l2-5z\"", cx - 5,
		        cy);
	col(f, "fill", cm_palette_player(player));
	fprintf(f, " stroke=\"#000000\" stroke-width=\"0.8\"/><text x=\"%d\" y=\"%d\" font-size=\"6\" "
	           "font-weight=\"bold\" text-anchor=\"middle\" fill=\"#ffffff\">%d</text></g>",
	        cx, cy + 4, player + 1);
}

/* ---- text ---- */

/* A label with a white halo; anchor "start", "middle" or "end". */
static void text(FILE *f, int x, int y, int font, const char *anchor, const char *cls, const char *s)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" text-anchor=\"%s\"", x, y, font, anchor);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	fputs(">", f);
	cm__put_xml(f, s);
	fputs("</text>", f);
}

/* A name fitted into width x height with its centre-bottom at (cx, by). */
static void fitted(svg *v, int cx, int by, int width, int height, int max_font, const char *cls, const char *s)
{
	cm__label l;
	if (cm__label_fit(s, width, height, max_font, 5, &l)) {
		v->oom = 1;
		return;
	}
	FILE *f = v->f;
	int y = l.lines == 2 ? by - l.font - 1 : by;
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" text-anchor=\"middle\" class=\"%s\">", cx, y, l.font, cls);
	if (l.abbreviated || l.lines == 2) { /* the whole name, as one text */
		fputs("<title>", f);
		cm__put_xml(f, s);
		fputs("</title>", f);
	}
	if (l.lines == 2) {
		cm__put_xml(f, l.line[0]);
		fprintf(f, "<tspan x=\"%d\" dy=\"%d\">", cx, l.font + 1);
		cm__put_xml(f, l.line[1]);
		fputs("</tspan>", f);
	} else {
		cm__put_xml(f, l.line[0]);
	}
	fputs("</text>", f);
	cm__label_clear(&l);
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
static void put_item(FILE *f, const cm_score_item *it)
{
	static const char *const what[] = { "", "island coats of arms", "town cost" };
	if (it->type == CM_ITEM_FEATURE)
		fprintf(f, "%s%s", cm_feature_kind_name(it->kind), it->complete ? " (complete)" : " (incomplete)");
	else
		fputs(what[it->type <= CM_ITEM_TOWN_COST ? it->type : 0], f);
	if (it->tiles)
		fprintf(f, ", %d tiles", it->tiles);
	if (it->arms)
		fprintf(f, ", %d coats of arms", it->arms);
	if (it->cities)
		fprintf(f, ", %d cities", it->cities);
	if (it->towns)
		fprintf(f, ", %d towns", it->towns);
	fprintf(f, ": %d points", it->points);
	if (it->players) {
		fputs(" to player", f);
		const char *sep = " ";
		for (int p = 0; p < CM_MAX_PLAYERS; p++)
			if (it->players & (1u << p)) {
				fprintf(f, "%s%d", sep, p + 1);
				sep = ", ";
			}
	} else {
		fputs(" to nobody", f);
	}
	fputs(" (", f);
	cm__put_xml(f, it->rule ? it->rule : "");
	fputs(": ", f);
	cm__put_xml(f, it->reason ? it->reason : "");
	fputs(")", f);
}

/* Opens the group of feature fi of the tile on (x,y) of the game: its
 * joined feature's name (data-f) and its score items. */
static void feature_group(svg *v, int x, int y, int fi)
{
	FILE *f = v->f;
	cm_feature_info info;
	if (!v->b || cm_board_feature(v->b, x, y, fi, &info) != 0 || info.wx < 0) {
		fputs("<g>", f);
		return;
	}
	fprintf(f, "<g class=\"f\" data-f=\"%d,%d,%d\"><title>%s", info.wx, info.wy, info.wfeature,
	        cm_feature_kind_name(info.kind));
	const cm_score_item *items = v->o->game->items;
	int any = 0;
	int sq = info.wy * v->m->cols + info.wx;
	for (int i = v->it_first ? v->it_first[sq] : -1; i >= 0; i = v->it_next[i]) {
		const cm_score_item *it = &items[i];
		if (it->type != CM_ITEM_FEATURE || it->feature != info.wfeature)
			continue;
		fputs(any ? "\n" : ": ", f);
		put_item(f, it);
		any = 1;
	}
	if (!any)
		fputs(info.complete ? ", complete, scored nothing" : ", not scored", f);
	fputs("</title>", f);
}

/* Draws tile type t turned r at (x0,y0); bx, by: its square for the game's
 * feature groups, or -1 (printed big-city pieces). */
static void draw_tile(svg *v, int x0, int y0, const cm_tile_type *t, int r, int bx, int by)
{
	FILE *f = v->f;
	fprintf(f, "<g transform=\"translate(%d %d)\"><rect width=\"%d\" height=\"%d\"", x0, y0, S, S);
	col(f, "fill", cm_palette_feature(CM_FEAT_FIELD));
	fputs("/>", f);
	size_t nf = t->n_features < CM_MAX_FEATURES ? t->n_features : CM_MAX_FEATURES;
	/* fields as the triangles of their slots (only where hovering means something) */
	for (size_t fi = 0; bx >= 0 && fi < nf; fi++) {
		const cm_feature *fe = &t->features[fi];
		if (fe->kind != CM_FEAT_FIELD || !fe->slots)
			continue;
		feature_group(v, bx, by, (int)fi);
		fputs("<path d=\"", f);
		cm_slots m = cm_slots_rotate(fe->slots, r);
		for (int b = 0; b < 12; b++) {
			if (!(m & (1u << b)))
				continue;
			int ax = 12 * (b % 3), ay = 0, cx = ax + 12, cy = 0;
			rot(b / 3, &ax, &ay);
			rot(b / 3, &cx, &cy);
			fprintf(f, "M%d %dL%d %dL%d %dz", ax, ay, cx, cy, S / 2, S / 2);
		}
		fputs("\"", f);
		col(f, "fill", cm_palette_feature(CM_FEAT_FIELD));
		fputs("/></g>", f);
	}
	for (size_t fi = 0; fi < nf; fi++) {
		const cm_feature *fe = &t->features[fi];
		if (fe->kind != CM_FEAT_CITY)
			continue;
		unsigned sides = cm_slots_sides(cm_slots_rotate(fe->slots, r));
		if (!sides)
			continue;
		if (bx >= 0)
			feature_group(v, bx, by, (int)fi);
		fputs("<path d=\"", f);
		int one = !(sides & (sides - 1));
		for (int s = 0; s < 4; s++) {
			if (!(sides & (1u << s)))
				continue;
			int ax = 0, ay = 0, cx = S, cy = 0, qx = S / 2, qy = one ? 24 : S / 2;
			rot(s, &ax, &ay);
			rot(s, &cx, &cy);
			rot(s, &qx, &qy);
			if (one)
				fprintf(f, "M%d %dL%d %dQ%d %d %d %dz", ax, ay, cx, cy, qx, qy, ax, ay);
			else
				fprintf(f, "M%d %dL%d %dL%d %dz", ax, ay, cx, cy, qx, qy);
		}
		/* a city across the tile (two opposite sides) joins in the middle */
		if (((sides & 5u) == 5u || (sides & 10u) == 10u))
			fprintf(f, "M%d %dh%dv%dh-%dz", S / 4, S / 4, S / 2, S / 2, S / 2);
		fputs("\"", f);
		col(f, "fill", cm_palette_feature(CM_FEAT_CITY));
		fputs("/>", f);
		for (int a = 0; a < fe->arms && a < 3; a++) {
			int s = 0;
			while (!(sides & (1u << s)))
				s++;
			int px = S / 2 - 4 + 9 * a - 9 * (fe->arms > 1), py = 3;
			int qx = px + 8, qy = py + 9;
			rot(s, &px, &py);
			rot(s, &qx, &qy);
			shield(f, px < qx ? px : qx, py < qy ? py : qy);
		}
		if (bx >= 0)
			fputs("</g>", f);
	}
	for (size_t fi = 0; fi < nf; fi++) {
		const cm_feature *fe = &t->features[fi];
		if (fe->kind != CM_FEAT_ROAD)
			continue;
		cm_slots m = cm_slots_rotate(fe->slots, r);
		int ends[4], n = 0;
		for (int s = 0; s < 4; s++)
			if (m & CM_SIDE_MID(s))
				ends[n++] = s;
		if (!n)
			continue;
		if (bx >= 0)
			feature_group(v, bx, by, (int)fi);
		fputs("<path d=\"", f);
		if (n == 2) {
			int ax, ay, cx, cy;
			side_point(0, 0, ends[0], S / 2, 0, &ax, &ay);
			side_point(0, 0, ends[1], S / 2, 0, &cx, &cy);
			fprintf(f, "M%d %dQ%d %d %d %d", ax, ay, S / 2, S / 2, cx, cy);
		} else {
			for (int k = 0; k < n; k++) {
				int ax, ay;
				side_point(0, 0, ends[k], S / 2, 0, &ax, &ay);
				fprintf(f, "M%d %dL%d %d", ax, ay, S / 2, S / 2);
			}
		}
		fputs("\" fill=\"none\"", f);
		col(f, "stroke", cm_palette_grid());
		fputs(" stroke-width=\"6\"/><path d=\"", f);
		if (n == 2) {
			int ax, ay, cx, cy;
			side_point(0, 0, ends[0], S / 2, 0, &ax, &ay);
			side_point(0, 0, ends[1], S / 2, 0, &cx, &cy);
			fprintf(f, "M%d %dQ%d %d %d %d", ax, ay, S / 2, S / 2, cx, cy);
		} else {
			for (int k = 0; k < n; k++) {
				int ax, ay;
				side_point(0, 0, ends[k], S / 2, 0, &ax, &ay);
				fprintf(f, "M%d %dL%d %d", ax, ay, S / 2, S / 2);
			}
		}
		fputs("\" fill=\"none\"", f);
		col(f, "stroke", cm_palette_feature(CM_FEAT_ROAD));
		fputs(" stroke-width=\"3.5\"/>", f);
		if (n != 2) { /* a junction or an end: a square where the road stops */
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"8\" height=\"8\"", S / 2 - 4, S / 2 - 4);
			col(f, "fill", cm_palette_grid());
			fputs("/>", f);
		}
		if (bx >= 0)
			fputs("</g>", f);
	}
	for (size_t fi = 0; fi < nf; fi++) {
		const cm_feature *fe = &t->features[fi];
		if (fe->kind != CM_FEAT_MONASTERY && fe->kind != CM_FEAT_ABBEY && fe->kind != CM_FEAT_GARDEN)
			continue;
		if (bx >= 0)
			feature_group(v, bx, by, (int)fi);
		if (fe->kind == CM_FEAT_GARDEN)
			fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"6\"", S / 2, S / 2);
		else
			fprintf(f, "<path d=\"M%d %dh12v-8l-6-6l-6 6z\"", S / 2 - 6, S / 2 + 7);
		col(f, "fill", cm_palette_feature(fe->kind));
		fputs(" stroke=\"#ffffff\" stroke-width=\"0.8\"/>", f);
		if (bx >= 0)
			fputs("</g>", f);
	}
	fputs("</g>", f);
}

/* ---- layers ---- */

static void defs(svg *v)
{
	FILE *f = v->f;
	fputs("<defs><pattern id=\"cm-waves\" width=\"18\" height=\"12\" patternUnits=\"userSpaceOnUse\">"
	      "<path d=\"M0 6q4.5-5 9 0t9 0\" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"1.2\" "
	      "stroke-opacity=\"0.8\"/></pattern>"
	      "<pattern id=\"cm-half\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\">"
	      "<path d=\"M0 8L8 0\"",
	      f);
	col(f, "stroke", cm_palette_grid());
	fputs(" stroke-width=\"1\"/></pattern></defs>", f);
}

/* Squares as runs of one kind per row, then the waves and half patterns. */
static void squares(svg *v)
{
	FILE *f = v->f;
	const cm_map *m = v->m;
	fputs("<g id=\"squares\">", f);
	for (int pass = 0; pass < 3; pass++)
		for (int y = 0; y < m->rows; y++)
			for (int x = 0; x < m->cols;) {
				cm_square_kind k = sq_at(v, x, y)->kind;
				int x1 = x + 1;
				while (x1 < m->cols && sq_at(v, x1, y)->kind == k)
					x1++;
				int want = pass == 0 || (pass == 1 && k == CM_SQ_WAVES) || (pass == 2 && k == CM_SQ_HALF);
				if (want && !(pass == 0 && k == CM_SQ_NONE)) {
					fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", v->ox + x * S, v->oy + y * S,
					        (x1 - x) * S, S);
					if (pass == 0)
						col(f, "fill", cm_palette_square(k));
					else
						fprintf(f, " fill=\"url(#cm-%s)\"", pass == 1 ? "waves" : "half");
					fputs("/>", f);
				}
				x = x1;
			}
	fputs("</g>", f);
}

/* Outline segments of a region: the sides of squares in it whose
 * neighbour is not (same(x,y) decides). */
static void outline(svg *v, const char *id, int (*in)(const svg *, int, int, int), int tag, cm_rgb c, const char *dash,
                    const char *width)
{
	FILE *f = v->f;
	const cm_map *m = v->m;
	int any = 0;
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			if (!in(v, x, y, tag))
				continue;
			int x0 = v->ox + x * S, y0 = v->oy + y * S;
			if (!any) {
				fprintf(f, "<path id=\"%s\" d=\"", id);
				any = 1;
			}
			if (!in(v, x, y - 1, tag))
				fprintf(f, "M%d %dh%d", x0, y0, S);
			if (!in(v, x + 1, y, tag))
				fprintf(f, "M%d %dv%d", x0 + S, y0, S);
			if (!in(v, x, y + 1, tag))
				fprintf(f, "M%d %dh%d", x0, y0 + S, S);
			if (!in(v, x - 1, y, tag))
				fprintf(f, "M%d %dv%d", x0, y0, S);
		}
	if (!any)
		return;
	fputs("\" fill=\"none\"", f);
	col(f, "stroke", c);
	fprintf(f, " stroke-width=\"%s\"", width);
	if (dash)
		fprintf(f, " stroke-dasharray=\"%s\"", dash);
	fputs("/>", f);
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
	return cm_map_at(v->m, p->x, p->y) != NULL;
}

static void bigcities(svg *v)
{
	FILE *f = v->f;
	const cm_map *m = v->m;
	fputs("<g id=\"bigcities\">", f);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *bc = &m->bigcities[i];
		fputs("<g class=\"bigcity\"><title>", f);
		cm__put_xml(f, bc->name ? bc->name : "big city");
		fputs("</title>", f);
		for (size_t k = 0; k < bc->n_pieces; k++)
			if (valid_piece(v, &bc->pieces[k]))
				draw_tile(v, v->ox + bc->pieces[k].x * S, v->oy + bc->pieces[k].y * S, &bc->pieces[k].tile, 0, -1,
				          -1);
		char id[32];
		snprintf(id, sizeof id, "bigcity-%zu", i);
		outline(v, id, in_bigcity, (int)i, cm_palette_print(CM_PRINT_CITY), NULL, "2.5");
		fputs("</g>", f);
	}
	fputs("</g>", f);
}

/* Vertical dashed line through the seam column of a combined map. */
static void seam(svg *v)
{
	const cm_map *m = v->m;
	if (m->seam < 0 || m->seam >= m->cols)
		return;
	FILE *f = v->f;
	fputs("<path id=\"seam\" d=\"", f);
	int x = v->ox + m->seam * S + S / 2;
	for (int y = 0; y < m->rows; y++)
		if (sq_at(v, m->seam, y)->kind != CM_SQ_NONE)
			fprintf(f, "M%d %dv%d", x, v->oy + y * S, S);
	fputs("\" fill=\"none\"", f);
	col(f, "stroke", cm_palette_text());
	fputs(" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>", f);
}

static void game_tiles(svg *v)
{
	if (!v->b)
		return;
	FILE *f = v->f;
	const cm_map *m = v->m;
	const cm_deck *dk = cm_board_deck(v->b);
	fputs("<g id=\"tiles\">", f);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			int t, r;
			if (cm_board_tile_at(v->b, x, y, &t, &r) == 0)
				draw_tile(v, v->ox + x * S, v->oy + y * S, cm_deck_type(dk, (size_t)t), r, x, y);
		}
	fputs("</g>", f);
}

static void grid(svg *v)
{
	if (!(v->o->flags & CM_RENDER_GRID))
		return;
	FILE *f = v->f;
	const cm_map *m = v->m;
	fputs("<path id=\"grid\" d=\"", f);
	for (int x = 0; x <= m->cols; x++)
		fprintf(f, "M%d %dv%d", v->ox + x * S, v->oy, m->rows * S);
	for (int y = 0; y <= m->rows; y++)
		fprintf(f, "M%d %dh%d", v->ox, v->oy + y * S, m->cols * S);
	fputs("\" fill=\"none\"", f);
	col(f, "stroke", cm_palette_grid());
	fputs(" stroke-width=\"0.5\" stroke-opacity=\"0.6\"/>", f);
}

static void starts(svg *v)
{
	FILE *f = v->f;
	const cm_map *m = v->m;
	fputs("<g id=\"starts\" fill=\"none\"", f);
	col(f, "stroke", cm_palette_start_outline());
	fputs(" stroke-width=\"2.5\">", f);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			if (sq_at(v, x, y)->kind == CM_SQ_START)
				fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", v->ox + x * S + 3, v->oy + y * S + 3,
				        S - 6, S - 6);
	fputs("</g>", f);
}

/* Where an edge print's label and arms go: outside side s of (x0,y0),
 * clear of the print itself (which reaches 8 units out at the middle). */
static void print_label(svg *v, int x0, int y0, int s, const cm_edge_print *p, const char *label)
{
	FILE *f = v->f;
	static const char *const anchor[4] = { "middle", "start", "middle", "end" };
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
		shield(f, sx, sy);
	}
	/* above or below: as wide as three squares; beside: the margin's room */
	if (label && (s == CM_N || s == CM_S))
		fitted(v, lx, ly, 3 * S - 4, 10, 8, "label", label);
	else if (label)
		text(f, lx, ly, 8, anchor[s], "label", label);
}

static void prints(svg *v)
{
	FILE *f = v->f;
	const cm_map *m = v->m;
	/* neutral edges: one thin dashed path */
	fputs("<g id=\"prints\"><path id=\"neutral\" d=\"", f);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			for (int s = 0; s < 4; s++)
				if (sq_at(v, x, y)->print[s].kind == CM_PRINT_NEUTRAL) {
					int ax = 0, ay = 1, bx = S, by = 1;
					rot(s, &ax, &ay);
					rot(s, &bx, &by);
					fprintf(f, "M%d %dL%d %d", v->ox + x * S + ax, v->oy + y * S + ay, v->ox + x * S + bx,
					        v->oy + y * S + by);
				}
	fputs("\" fill=\"none\"", f);
	col(f, "stroke", cm_palette_print(CM_PRINT_NEUTRAL));
	fputs(" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"/>", f);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = sq_at(v, x, y);
			int x0 = v->ox + x * S, y0 = v->oy + y * S;
			for (int s = 0; s < 4; s++) {
				const cm_edge_print *p = &sq->print[s];
				if (p->kind == CM_PRINT_ROAD) {
					int ax, ay, bx, by;
					side_point(x0, y0, s, S / 2, -7, &ax, &ay);
					side_point(x0, y0, s, S / 2, 8, &bx, &by);
					fprintf(f, "<path class=\"print-road\" d=\"M%d %dL%d %d\"", ax, ay, bx, by);
					col(f, "stroke", cm_palette_grid());
					fprintf(f, " stroke-width=\"6\"/><path d=\"M%d %dL%d %d\"", ax, ay, bx, by);
					col(f, "stroke", cm_palette_print(CM_PRINT_ROAD));
					fputs(" stroke-width=\"3.5\"/>", f);
				} else if (p->kind == CM_PRINT_CITY) {
					/* a printed city segment bulging out of the side */
					int ax = 2, ay = 0, bx = S - 2, by = 0, qx = S / 2, qy = -16;
					rot(s, &ax, &ay);
					rot(s, &bx, &by);
					rot(s, &qx, &qy);
					fprintf(f, "<path class=\"print-city\" d=\"M%d %dQ%d %d %d %dz\"", x0 + ax, y0 + ay, x0 + qx,
					        y0 + qy, x0 + bx, y0 + by);
					col(f, "fill", cm_palette_print(CM_PRINT_CITY));
					fputs(" stroke=\"#ffffff\" stroke-width=\"0.8\"/>", f);
				}
				const char *label = p->kind != CM_PRINT_NONE ? cm_map_print_label(m, x, y, (cm_side)s) : NULL;
				if (p->kind != CM_PRINT_NONE && (label || p->arms))
					print_label(v, x0, y0, s, p, label);
			}
		}
	fputs("</g>", f);
}

static void ferries(svg *v)
{
	FILE *f = v->f;
	const cm_map *m = v->m;
	fputs("<g id=\"ferries\">", f);
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *fr = &m->ferries[i];
		if (!cm_map_at(m, fr->x1, fr->y1) || !cm_map_at(m, fr->x2, fr->y2) || (unsigned)fr->s1 > 3 ||
		    (unsigned)fr->s2 > 3)
			continue; /* a partial model */
		int ax, ay, bx, by;
		side_point(v->ox + fr->x1 * S, v->oy + fr->y1 * S, fr->s1, S / 2, 0, &ax, &ay);
		side_point(v->ox + fr->x2 * S, v->oy + fr->y2 * S, fr->s2, S / 2, 0, &bx, &by);
		int mx = (ax + bx) / 2, my = (ay + by) / 2;
		/* a gentle curve: the control point off the chord by a fifth of it */
		int cx = mx + (by - ay) / 5, cy = my - (bx - ax) / 5;
		fputs("<g class=\"ferry\"><title>ferry", f);
		if (fr->name) {
			fputs(" ", f);
			cm__put_xml(f, fr->name);
		}
		fprintf(f, "</title><path d=\"M%d %dQ%d %d %d %d\" fill=\"none\"", ax, ay, cx, cy, bx, by);
		col(f, "stroke", cm_palette_ferry());
		fputs(" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>", f);
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"2.5\"", ax, ay);
		col(f, "fill", cm_palette_ferry());
		fprintf(f, "/><circle cx=\"%d\" cy=\"%d\" r=\"2.5\"", bx, by);
		col(f, "fill", cm_palette_ferry());
		fputs("/>", f);
		int lx = (mx + cx) / 2, ly = (my + cy) / 2;
		if (fr->name)
			fitted(v, lx, ly - 3, (abs(bx - ax) > 2 * S ? abs(bx - ax) : 2 * S) - 4, 10, 8, "label", fr->name);
		for (int a = 0; a < fr->arms && a < 3; a++)
			shield(f, lx - 4 + 9 * a, ly + 1);
		fputs("</g>", f);
	}
	fputs("</g>", f);
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


/* Towns, landmarks, arms and markers on squares, and every square name. */
static void square_words(svg *v)
{
	FILE *f = v->f;
	const cm_map *m = v->m;
	fputs("<g id=\"symbols\">", f);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = sq_at(v, x, y);
			int x0 = v->ox + x * S, y0 = v->oy + y * S;
			if (sq->kind == CM_SQ_TOWN)
				house(f, x0 + S / 2, y0 + 5);
			else if (sq->kind == CM_SQ_LANDMARK)
				tower(f, x0 + S / 2, y0 + 4);
			for (int a = 0; a < sq->arms && a < 3; a++)
				shield(f, x0 + 3 + 9 * a, y0 + 4);
			size_t n_markers;
			const char *const *markers = cm_map_square_markers(m, x, y, &n_markers);
			for (size_t k = 0; k < n_markers && k < 3; k++) {
				if (!markers[k])
					continue;
				fputs("<g class=\"marker\"><title>", f);
				cm__put_xml(f, markers[k]);
				fputs("</title>", f);
				marker_symbol(f, x0 + S - 6 - 10 * (int)k, y0 + 6, marker_index(v, markers[k]));
				fputs("</g>", f);
			}
			if (n_markers > 3)
				text(f, x0 + S - 36, y0 + 8, 6, "start", NULL, "+");
		}
	fputs("</g><g id=\"names\" stroke=\"#ffffff\" stroke-width=\"2\" stroke-linejoin=\"round\" "
	      "paint-order=\"stroke\"",
	      f);
	col(f, "fill", cm_palette_text());
	fputs(">", f);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const char *name = cm_map_square_name(m, x, y);
			if (!name || !name[0])
				continue;
			fitted(v, v->ox + x * S + S / 2, v->oy + y * S + S - 4, S - 3, S / 2 + 2, 9, "name", name);
		}
	/* big-city names over their pieces */
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
		int wd = (x1 - x0 + 1) * S;
		fitted(v, v->ox + x0 * S + wd / 2, v->oy + ((y0 + y1 + 1) * S) / 2 + 5, wd - 4, (y1 - y0 + 1) * S, 12,
		       "bigcity-name", bc->name);
	}
	/* island titles on the island square nearest its middle */
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
	fputs("</g>", f);
}

static void coords(svg *v)
{
	FILE *f = v->f;
	const cm_map *m = v->m;
	fputs("<g id=\"coords\" font-size=\"8\"", f);
	col(f, "fill", cm_palette_grid());
	fputs(">", f);
	for (int x = 0; x < m->cols; x++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>", v->ox + x * S + S / 2, TITLE_H + 12, x);
	for (int y = 0; y < m->rows; y++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>", COORD - 2, v->oy + y * S + S / 2 + 3, y);
	fputs("</g>", f);
}

static void followers(svg *v)
{
	if (!v->b)
		return;
	FILE *f = v->f;
	const cm_follower *fl;
	size_t n = cm_board_followers(v->b, &fl);
	const cm_deck *dk = cm_board_deck(v->b);
	fputs("<g id=\"followers\">", f);
	for (size_t i = 0; i < n; i++) {
		int t, r;
		if (cm_board_tile_at(v->b, fl[i].x, fl[i].y, &t, &r) != 0)
			continue;
		const cm_tile_type *tt = cm_deck_type(dk, (size_t)t);
		if (fl[i].feature < 0 || (size_t)fl[i].feature >= tt->n_features)
			continue;
		int ax, ay;
		feature_anchor(&tt->features[fl[i].feature], r, &ax, &ay);
		meeple(f, v->ox + fl[i].x * S + ax, v->oy + fl[i].y * S + ay, fl[i].player, fl[i].kind);
	}
	fputs("</g>", f);
}

/* Squares never filled in the game: a cross, under the names. */
static void empties(svg *v)
{
	if (!v->b)
		return;
	FILE *f = v->f;
	const cm_map *m = v->m;
	fputs("<path id=\"empty\" d=\"", f);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			if (cm_square_kind_playable(sq_at(v, x, y)->kind) && cm_board_tile_at(v->b, x, y, NULL, NULL) != 0)
				fprintf(f, "M%d %dl12 12m0-12l-12 12", v->ox + x * S + S / 2 - 6, v->oy + y * S + S / 2 - 6);
	fputs("\" fill=\"none\"", f);
	col(f, "stroke", cm_palette_severity(CM_SEV_ERROR));
	fputs(" stroke-width=\"1.5\" stroke-opacity=\"0.7\"/>", f);
}

static int diag_on_grid(const svg *v, const cm_diag *g)
{
	return g && cm_map_at(v->m, g->x, g->y) != NULL;
}

static void diag_frames(svg *v)
{
	if (!v->dg_first)
		return;
	FILE *f = v->f;
	const cm_map *m = v->m;
	const cm_diags *d = v->o->diags;
	fputs("<g id=\"diagnostics\">", f);
	for (int s = 0; s < m->cols * m->rows; s++) {
		if (v->dg_first[s] < 0)
			continue;
		int x0 = v->ox + (s % m->cols) * S, y0 = v->oy + (s / m->cols) * S;
		cm_severity worst = CM_SEV_NOTE;
		int n = 0;
		const cm_diag *first = cm_diags_get(d, (size_t)v->dg_first[s]);
		fputs("<g class=\"diag\" data-d=\"", f);
		for (int i = v->dg_first[s]; i >= 0; i = v->dg_next[i]) {
			const cm_diag *g = cm_diags_get(d, (size_t)i);
			worst = g->severity > worst ? g->severity : worst;
			fprintf(f, "%s%d", n ? " " : "", i);
			n++;
		}
		fprintf(f, "\" data-sq=\"%d,%d\"><title>", s % m->cols, s / m->cols);
		n = 0;
		for (int i = v->dg_first[s]; i >= 0; i = v->dg_next[i]) {
			const cm_diag *g = cm_diags_get(d, (size_t)i);
			fprintf(f, "%s%s ", n++ ? "\n" : "", cm_severity_name(g->severity));
			cm__put_xml(f, g->rule ? g->rule : "");
			fputs(": ", f);
			cm__put_xml(f, g->message);
		}
		fprintf(f, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\"", x0 + 1, y0 + 1, S - 2,
		        S - 2);
		col(f, "stroke", cm_palette_severity(worst));
		fputs(" stroke-width=\"2.5\"/>", f);
		char id[32];
		snprintf(id, sizeof id, "%s%s", first->rule ? first->rule : cm_severity_name(first->severity),
		         n > 1 ? "+" : "");
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"6\" stroke=\"#ffffff\" stroke-width=\"1.5\" "
		           "paint-order=\"stroke\"",
		        x0 + 3, y0 + 8);
		col(f, "fill", cm_palette_severity(worst));
		fputs(">", f);
		cm__put_xml(f, id);
		fputs("</text></g>", f);
	}
	fputs("</g>", f);
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

static void key_entry_draw(svg *v, const key_entry *e, int x, int y)
{
	FILE *f = v->f;
	static const char *const kind_words[CM_SQ_KIND_COUNT] = {
		"not printed (water, off the map)", "land", "start square (outlined)", "town", "big city (outlined)",
		"waves", "landmark", "island (dashed outline)", "half square"
	};
	char buf[64];
	const char *label = buf;
	switch (e->k) {
	case K_SQUARE:
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\"", x, y);
		col(f, "fill", cm_palette_square((cm_square_kind)e->arg));
		col(f, "stroke", cm_palette_grid());
		fputs(" stroke-width=\"0.5\"/>", f);
		if (e->arg == CM_SQ_WAVES || e->arg == CM_SQ_HALF)
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"url(#cm-%s)\"/>", x, y,
			        e->arg == CM_SQ_WAVES ? "waves" : "half");
		/* the kind's own marks over its colour */
		if (e->arg == CM_SQ_START) {
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"none\"", x + 2, y + 2);
			col(f, "stroke", cm_palette_start_outline());
			fputs(" stroke-width=\"2\"/>", f);
		} else if (e->arg == CM_SQ_TOWN) {
			house(f, x + 7, y + 2);
		} else if (e->arg == CM_SQ_LANDMARK) {
			tower(f, x + 7, y + 2);
		} else if (e->arg == CM_SQ_BIGCITY) {
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"none\"", x, y);
			col(f, "stroke", cm_palette_print(CM_PRINT_CITY));
			fputs(" stroke-width=\"2.5\"/>", f);
		} else if (e->arg == CM_SQ_ISLAND) {
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"none\"", x, y);
			col(f, "stroke", cm_palette_ferry());
			fputs(" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"/>", f);
		}
		label = kind_words[e->arg];
		break;
	case K_SEAM:
		fprintf(f, "<path d=\"M%d %dv14\"", x + 7, y);
		col(f, "stroke", cm_palette_text());
		fputs(" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>", f);
		label = "seam of the combined halves";
		break;
	case K_ROAD:
		fprintf(f, "<path d=\"M%d %dh14\"", x, y + 7);
		col(f, "stroke", cm_palette_grid());
		fprintf(f, " stroke-width=\"6\"/><path d=\"M%d %dh14\"", x, y + 7);
		col(f, "stroke", cm_palette_print(CM_PRINT_ROAD));
		fputs(" stroke-width=\"3.5\"/>", f);
		label = "edge print: road";
		break;
	case K_CITY:
		fprintf(f, "<path d=\"M%d %dQ%d %d %d %dz\"", x, y + 14, x + 7, y - 2, x + 14, y + 14);
		col(f, "fill", cm_palette_print(CM_PRINT_CITY));
		fputs("/>", f);
		label = "edge print: city";
		break;
	case K_NEUTRAL:
		fprintf(f, "<path d=\"M%d %dh14\"", x, y + 7);
		col(f, "stroke", cm_palette_print(CM_PRINT_NEUTRAL));
		fputs(" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"/>", f);
		label = "edge print: neutral";
		break;
	case K_ARMS: shield(f, x + 3, y + 2); label = "coat of arms"; break;
	case K_FERRY:
		fprintf(f, "<path d=\"M%d %dq7-8 14 0\" fill=\"none\"", x, y + 10);
		col(f, "stroke", cm_palette_ferry());
		fputs(" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>", f);
		label = "ferry route";
		break;
	case K_MARKER:
		marker_symbol(f, x + 7, y + 7, (size_t)e->arg);
		label = v->mk[e->arg];
		break;
	case K_SEVERITY:
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"13\" height=\"13\" fill=\"none\"", x + 1, y + 1);
		col(f, "stroke", cm_palette_severity((cm_severity)e->arg));
		fputs(" stroke-width=\"2.5\"/>", f);
		snprintf(buf, sizeof buf, "%s (check id in the corner)", cm_severity_name((cm_severity)e->arg));
		break;
	case K_PLAYER:
		meeple(f, x + 7, y + 8, e->arg, CM_FOLLOWER_MEEPLE);
		snprintf(buf, sizeof buf, "player %d", e->arg + 1);
		break;
	case K_EMPTY:
		fprintf(f, "<path d=\"M%d %dl12 12m0-12l-12 12\"", x + 1, y + 1);
		col(f, "stroke", cm_palette_severity(CM_SEV_ERROR));
		fputs(" stroke-width=\"1.5\"/>", f);
		label = "never filled in this game";
		break;
	}
	/* key texts are cut to their column, the whole text in a <title> */
	long room = (KEY_COL - 24) * 100L;
	if (cm__text_width(label, 10) <= room) {
		text(f, x + 20, y + 11, 10, "start", NULL, label);
	} else {
		cm__label l;
		if (cm__label_fit(label, KEY_COL - 24, 12, 10, 7, &l)) {
			v->oom = 1;
			return;
		}
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\"><title>", x + 20, y + 11, l.font);
		cm__put_xml(f, label);
		fputs("</title>", f);
		cm__put_xml(f, l.line[0]);
		if (l.lines == 2) {
			fputs(" ", f);
			cm__put_xml(f, l.line[1]);
		}
		fputs("</text>", f);
		cm__label_clear(&l);
	}
}

static int key_height(size_t n, int w)
{
	int cols = (w - 2 * COORD) / KEY_COL;
	if (cols < 1)
		cols = 1;
	return 18 + (int)((n + (size_t)cols - 1) / (size_t)cols) * KEY_ROW;
}

static void key(svg *v, int y)
{
	FILE *f = v->f;
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
	fprintf(f, "<g id=\"key\"><text x=\"%d\" y=\"%d\" font-size=\"11\" font-weight=\"bold\">Key</text>", COORD, y + 11);
	for (size_t i = 0; i < n; i++)
		key_entry_draw(v, &e[i], COORD + (int)(i % (size_t)cols) * KEY_COL, y + 18 + (int)(i / (size_t)cols) * KEY_ROW);
	fputs("</g>", f);
	free(e);
}

static int scores_height(const svg *v)
{
	return v->b ? 18 + (cm_board_players(v->b) + 1) * LINE_H + 6 : 0;
}

/* The final scores: per player the points by kind and in all. */
static void scores(svg *v, int y)
{
	if (!v->b)
		return;
	FILE *f = v->f;
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
	fprintf(f, "<g id=\"scores\"><text x=\"%d\" y=\"%d\" font-size=\"11\" font-weight=\"bold\">Final scores (game "
	           "seed %llu)</text>",
	        COORD, y + 11, (unsigned long long)v->o->game->seed);
	int cx[9];
	for (int c = 0; c < 9; c++)
		cx[c] = COORD + 60 + c * 62;
	cx[0] = COORD;
	for (int c = 0; c < 9; c++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" font-weight=\"bold\" text-anchor=\"%s\">%s</text>",
		        c ? cx[c] : cx[0], y + 18 + LINE_H - 3, c ? "end" : "start", head[c]);
	for (int p = 0; p < np; p++) {
		int ry = y + 18 + (p + 2) * LINE_H - 3;
		meeple(f, cx[0] + 6, ry - 5, p, CM_FOLLOWER_MEEPLE);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\">player %d</text>", cx[0] + 16, ry, p + 1);
		for (int k = 0; k <= CM_FEAT_KIND_COUNT; k++)
			fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"end\">%ld</text>", cx[k + 1], ry,
			        pts[p][k]);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" font-weight=\"bold\" text-anchor=\"end\" "
		           "class=\"score\">%d</text>",
		        cx[8], ry, cm_board_score(v->b, p));
	}
	fputs("</g>", f);
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
	FILE *f = v->f;
	const cm_diags *d = v->o->diags;
	fprintf(f, "<g id=\"diaglist\"><text x=\"%d\" y=\"%d\" font-size=\"11\" font-weight=\"bold\">Diagnostics</text>",
	        COORD, y + 11);
	for (size_t i = 0; i < v->n_dg; i++) {
		const cm_diag *g = cm_diags_get(d, i);
		char *line;
		if (diag_on_grid(v, g))
			line = cm_asprintf("%s %s (%d,%d): %s", cm_severity_name(g->severity), g->rule ? g->rule : "", g->x, g->y,
			                   g->message ? g->message : "");
		else
			line = cm_asprintf("%s %s: %s", cm_severity_name(g->severity), g->rule ? g->rule : "",
			                   g->message ? g->message : "");
		if (!line) {
			v->oom = 1;
			return;
		}
		int ty = y + 18 + (int)(i + 1) * LINE_H - 3;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\"", COORD, ty);
		col(f, "fill", cm_palette_severity(g->severity));
		fputs(">", f);
		cm__label l;
		if (cm__label_fit(line, v->w - 2 * COORD, 10, 9, 9, &l)) {
			v->oom = 1;
			free(line);
			return;
		}
		if (l.abbreviated) {
			fputs("<title>", f);
			cm__put_xml(f, line);
			fputs("</title>", f);
			cm__put_xml(f, l.line[0]);
		} else {
			cm__put_xml(f, line);
		}
		fputs("</text>", f);
		cm__label_clear(&l);
		free(line);
	}
	fputs("</g>", f);
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
			if (!cm_map_at(m, it->x, it->y))
				continue;
			int s = it->y * m->cols + it->x;
			v->it_next[i] = v->it_first[s];
			v->it_first[s] = (int)i;
		}
	}
	return 0;
}

int cm__svg_write(FILE *f, const cm_map *m, const cm_render_opts *o, int html, cm__svg_geom *g)
{
	svg v = { .f = f, .m = m, .o = o, .html = html };
	if (o->game && o->game->board && cm_board_map(o->game->board) == m)
		v.b = o->game->board;
	int rc = collect_markers(&v);
	if (!rc)
		rc = build_index(&v);
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
	int score_y = key_y + key_height(nk, v.w) + 8;
	int list_y = score_y + scores_height(&v);
	v.h = list_y + list_height(&v) + 8;
	g->ox = v.ox;
	g->oy = v.oy;
	g->w = v.w;
	g->h = v.h;
	g->key_y = key_y;
	int scale = o->scale > 0 ? o->scale : S;
	if (!html)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" id=\"cm-map\" width=\"%ld\" height=\"%ld\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"10\" data-cols=\"%d\" data-rows=\"%d\" "
	        "data-cell=\"%d\" data-ox=\"%d\" data-oy=\"%d\">\n<title>",
	        (long)v.w * scale / S, (long)v.h * scale / S, v.w, v.h, m->cols, m->rows, S, v.ox, v.oy);
	cm__put_xml(f, name);
	fputs("</title>\n<desc>", f);
	cm__put_xml(f, tl);
	fputs("</desc>\n", f);
	defs(&v);
	fprintf(f, "\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", v.w, v.h);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", v.ox, v.oy, m->cols * S, m->rows * S);
	col(f, "fill", cm_palette_square(CM_SQ_NONE));
	fputs("/>\n", f);
	fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"15\" font-weight=\"bold\" id=\"map-name\">", COORD);
	cm__put_xml(f, name);
	fputs("</text>", f);
	fprintf(f, "<text x=\"%d\" y=\"36\" font-size=\"10\" id=\"title-line\">", COORD);
	cm__put_xml(f, tl);
	fputs("</text>\n", f);
	squares(&v);
	fputs("\n", f);
	outline(&v, "islands", in_island, 0, cm_palette_ferry(), "3 2", "1.5");
	bigcities(&v);
	fputs("\n", f);
	game_tiles(&v);
	grid(&v);
	seam(&v);
	fputs("\n", f);
	if (o->flags & CM_RENDER_FEATURES) {
		starts(&v);
		prints(&v);
		fputs("\n", f);
		ferries(&v);
		fputs("\n", f);
	}
	empties(&v);
	square_words(&v);
	fputs("\n", f);
	coords(&v);
	fputs("\n", f);
	followers(&v);
	diag_frames(&v);
	fputs("\n", f);
	key(&v, key_y);
	fputs("\n", f);
	scores(&v, score_y);
	diag_list(&v, list_y);
	if (html)
		fprintf(f, "\n<rect id=\"cm-hover\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000000\" "
		           "stroke-width=\"2\" visibility=\"hidden\" pointer-events=\"none\"/>"
		           "<rect id=\"cm-hl\" width=\"%d\" height=\"%d\" fill=\"#ffff00\" fill-opacity=\"0.35\" "
		           "stroke=\"#000000\" stroke-width=\"3\" visibility=\"hidden\" pointer-events=\"none\"/>",
		        S, S, S, S);
	fputs("\n</svg>\n", f);
	if (v.oom)
		rc = CM_ENOMEM;
out:
	free(tl);
	free(v.mk);
	free(v.dg_first);
	free(v.dg_next);
	free(v.it_first);
	free(v.it_next);
	return rc;
}

typedef struct {
	const cm_map *m;
	const cm_render_opts *o;
} svg_job;

static int write_svg(FILE *f, void *arg)
{
	const svg_job *j = arg;
	cm__svg_geom g;
	int rc = cm__svg_write(f, j->m, j->o, 0, &g);
	return rc ? rc : ferror(f) ? CM_EIO : 0;
}

int cm__render_svg(const cm_map *m, const cm_render_opts *o, const char *out, cm_diags *d)
{
	svg_job j = { m, o };
	return cm_write_to(out, write_svg, &j, d);
}
