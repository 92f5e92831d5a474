/* SPDX-License-Identifier: MIT */
/* render_heat.c: pictures of the balance results (carcamap/heatmap.h):
 * heatmap layers added to the scene of a map (render_int.h's
 * cm__map_scene) with a colour scale and its legend, the deck-fitting
 * curve as a scene of its own, and the balance report's HTML page around
 * them. Geometry and colours are integers, so the bytes depend only on the
 * inputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/file.h"
#include "carcamap/heatmap.h"
#include "export/render_int.h"
#include "export/scene_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

#define LEGEND_H 64 /* units below the map for a heatmap's legend */

/* ---- colours ---- */

/* A sequential scale, pale to dark: t in 0..1 (clamped). */
static cm_paint scale_colour(double t)
{
	static const int stops[5][3] = {
		{ 255, 255, 204 }, { 254, 204, 92 }, { 253, 141, 60 }, { 227, 26, 28 }, { 128, 0, 38 },
	};
	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	double x = t * 4;
	int i = x >= 4 ? 3 : (int)x;
	double f = x - i;
	int c[3];
	for (int k = 0; k < 3; k++)
		c[k] = (int)lround(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f);
	return CM_PAINT_RGB(c[0], c[1], c[2]);
}

/* ---- what a kind shows ---- */

typedef struct {
	const char *title;  /* the legend's words */
	const char *unit;   /* after a value */
	double scale;       /* a value shown times this */
	int decimals;
} kind_text;

static kind_text text_of(cm_heat_kind k)
{
	switch (k) {
	case CM_HEAT_FILL: return (kind_text){ "share of games that filled the square", "%", 100, 1 };
	case CM_HEAT_TURN: return (kind_text){ "mean turn the square was filled (setup: 0)", "", 1, 1 };
	case CM_HEAT_POINTS:
		return (kind_text){ "mean points a game awarded to the features covering the square", "", 1, 1 };
	case CM_HEAT_USE:
		break;
	}
	return (kind_text){ "share of games that completed the printed element", "%", 100, 1 };
}

/* "84.2% [82.0, 86.4]" */
static char *value_text(const kind_text *kt, const cm_interval *v)
{
	if (isnan(v->lo))
		return cm_asprintf("%.*f%s", kt->decimals, kt->scale * v->value, kt->unit);
	return cm_asprintf("%.*f%s [%.*f, %.*f]", kt->decimals, kt->scale * v->value, kt->unit, kt->decimals,
	                   kt->scale * v->lo, kt->decimals, kt->scale * v->hi);
}

static void data_attrs(cm_scene *s, cm_node n, const cm_interval *v)
{
	char buf[48];
	snprintf(buf, sizeof buf, "%.4f", v->value);
	cm_scene_data(s, n, "value", buf);
	if (!isnan(v->lo)) {
		snprintf(buf, sizeof buf, "%.4f", v->lo);
		cm_scene_data(s, n, "lo", buf);
		snprintf(buf, sizeof buf, "%.4f", v->hi);
		cm_scene_data(s, n, "hi", buf);
	}
}

/* The colour scale of kind k: from its lowest to its highest value over
 * the squares that show it, so that the map's contrast is the data's (a
 * fill of 80% to 100% spreads over the whole scale); the use of printed
 * elements on the fixed 0..1 of a share. */
typedef struct {
	double lo, hi;
} range;

static bool shows(const cm_map *m, int x, int y, cm_heat_kind k);

static range range_of(const cm_map *m, const cm_balance_heat *h, cm_heat_kind k)
{
	range r = { 0, 1 };
	if (k == CM_HEAT_USE)
		return r;
	bool any = false;
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			cm_interval v;
			if (!shows(m, x, y, k) || cm_balance_heat_square(h, k, x, y, &v) != 0 || isnan(v.value))
				continue;
			if (!any || v.value < r.lo)
				r.lo = v.value;
			if (!any || v.value > r.hi)
				r.hi = v.value;
			any = true;
		}
	if (!any)
		return (range){ 0, 1 };
	if (r.hi - r.lo < 1e-9) /* one value: the middle of the scale */
		r.lo = r.hi - (r.hi > 0 ? r.hi : 1);
	return r;
}

static double place(const range *r, double v)
{
	return (v - r->lo) / (r->hi - r->lo);
}

/* ---- the layers ---- */

/* Whether square (x,y) shows kind k: fill and turn on squares that take
 * tiles, points also on big-city squares. */
static bool shows(const cm_map *m, int x, int y, cm_heat_kind k)
{
	const cm_square *q = cm_map_at(m, x, y);
	if (!q)
		return false;
	if (cm_square_kind_playable((cm_square_kind)q->kind))
		return true;
	return k == CM_HEAT_POINTS && q->kind == CM_SQ_BIGCITY;
}

static void square_layer(cm_scene *s, const cm__svg_geom *g, const cm_map *m, const cm_balance_heat *h,
                         cm_heat_kind k, const range *rg)
{
	kind_text kt = text_of(k);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			cm_interval v;
			if (!shows(m, x, y, k) || cm_balance_heat_square(h, k, x, y, &v) != 0)
				continue;
			cm_style st = { .fill = scale_colour(place(rg, v.value)), .fill_opacity = 88 };
			cm_node n = cm_scene_rect(s, g->ox + x * CM__CELL, g->oy + y * CM__CELL, CM__CELL, CM__CELL, &st);
			char *val = value_text(&kt, &v), *t = cm_asprintf("(%d,%d) %s: %s", x, y, cm_heat_kind_name(k),
			                                                   val ? val : "");
			cm_scene_title(s, n, t);
			data_attrs(s, n, &v);
			free(val);
			free(t);
		}
}

/* A square of a big city or island at (x, y): a band of its group's
 * colour inside a dark frame, so that the palest colour shows too. */
static void area_square(cm_scene *s, int x, int y)
{
	static const cm_style frame = { .fill = CM_PAINT_NONE, .stroke = CM_PAINT_RGB(51, 51, 51), .stroke_width = 700,
		                        .stroke_opacity = 70 };
	cm_scene_rect(s, x + 4, y + 4, CM__CELL - 8, CM__CELL - 8, &frame);
	cm_scene_rect(s, x + 4, y + 4, CM__CELL - 8, CM__CELL - 8, NULL);
}

/* The use of the printed elements: big-city and island squares filled,
 * prints as a band along their side, ferries as a line between their
 * ends, each coloured by the share of games that completed it. */
static void element_layer(cm_scene *s, const cm__svg_geom *g, const cm_map *m, const cm_balance_heat *h)
{
	kind_text kt = text_of(CM_HEAT_USE);
	for (size_t i = 0; i < cm_balance_heat_element_count(h); i++) {
		const cm_heat_element *e = cm_balance_heat_element(h, i);
		char *c = value_text(&kt, &e->connected), *d = value_text(&kt, &e->completed),
		     *sc = value_text(&kt, &e->scored);
		static const char *const side[4] = { "N", "E", "S", "W" };
		char *t = cm_asprintf("%s%s%s (%d,%d)%s%s: connected %s, completed %s, scored %s",
		                      cm_element_kind_name(e->kind), e->name ? " " : "", e->name ? e->name : "", e->x, e->y,
		                      e->side >= 0 ? " " : "", e->side >= 0 ? side[e->side & 3] : "", c ? c : "",
		                      d ? d : "", sc ? sc : "");
		free(c);
		free(d);
		free(sc);
		/* areas outlined (their names and pieces stay readable), prints
		 * and ferries drawn in the colour */
		bool area = e->kind == CM_ELEMENT_BIGCITY || e->kind == CM_ELEMENT_ISLAND;
		cm_paint col = scale_colour(e->completed.value);
		cm_style st = area ? (cm_style){ .fill = col, .fill_opacity = 30, .stroke = col, .stroke_width = 450,
		                                 .stroke_opacity = 95 }
		                   : (cm_style){ .fill = col, .fill_opacity = 90 };
		cm_node grp = cm_scene_group(s, &st);
		cm_scene_title(s, grp, t);
		cm_scene_class(s, grp, cm_element_kind_name(e->kind));
		data_attrs(s, grp, &e->completed);
		free(t);
		int ox = g->ox, oy = g->oy, C = CM__CELL;
		switch (e->kind) {
		case CM_ELEMENT_BIGCITY: {
			const cm_bigcity *bc = &m->bigcities[e->index];
			for (size_t p = 0; p < bc->n_pieces; p++)
				area_square(s, ox + bc->pieces[p].x * C, oy + bc->pieces[p].y * C);
			break;
		}
		case CM_ELEMENT_ISLAND:
			for (int y = 0; y < m->rows; y++)
				for (int x = 0; x < m->cols; x++)
					if (m->squares[y * m->cols + x].island == e->index)
						area_square(s, ox + x * C, oy + y * C);
			break;
		case CM_ELEMENT_PRINT: {
			static const int bx[4] = { 0, 30, 0, 0 }, by[4] = { 0, 0, 30, 0 };
			static const int bw[4] = { 36, 6, 36, 6 }, bh[4] = { 6, 36, 6, 36 };
			int sd = e->side & 3;
			cm_scene_rect(s, ox + e->x * C + bx[sd], oy + e->y * C + by[sd], bw[sd], bh[sd], NULL);
			break;
		}
		case CM_ELEMENT_FERRY: {
			const cm_ferry *f = &m->ferries[e->index];
			cm_style line = { .fill = CM_PAINT_NONE, .stroke = scale_colour(e->completed.value), .stroke_width = 500,
				          .stroke_opacity = 85 };
			cm_scene_path_add(s, "M%d %dL%d %d", ox + f->x1 * C + C / 2, oy + f->y1 * C + C / 2,
			                  ox + f->x2 * C + C / 2, oy + f->y2 * C + C / 2);
			cm_scene_path_end(s, &line);
			break;
		}
		}
		cm_scene_end(s);
	}
}

/* The legend at (x, y): the scale from rg->lo to rg->hi in 20 steps,
 * its words and its two ends. */
static void legend(cm_scene *s, int x, int y, int w, cm_heat_kind k, const range *rg, long long games)
{
	kind_text kt = text_of(k);
	cm_style words = { .font_size = 9 };
	char *t = cm_asprintf("%s: %s, over %lld games", cm_heat_kind_name(k), kt.title, games);
	cm_scene_text(s, x, y + 10, t, &words);
	free(t);
	int bar = w > 40 ? w - 40 : w, step = bar / 20 > 0 ? bar / 20 : 1;
	for (int i = 0; i < 20; i++) {
		cm_style st = { .fill = scale_colour((i + 0.5) / 20) };
		cm_scene_rect(s, x + i * step, y + 16, step, 14, &st);
	}
	char lo[32], hi[32];
	snprintf(lo, sizeof lo, "%.*f%s", kt.decimals, kt.scale * rg->lo, kt.unit);
	snprintf(hi, sizeof hi, "%.*f%s", kt.decimals, kt.scale * rg->hi, kt.unit);
	cm_scene_text(s, x, y + 42, lo, &words);
	cm_style end = { .font_size = 9, .anchor = CM_ANCHOR_END };
	cm_scene_text(s, x + 20 * step, y + 42, hi, &end);
	if (k == CM_HEAT_USE)
		cm_scene_text(s, x, y + 56, "outlined: big cities and islands; bands: edge prints; lines: ferries", &words);
}

/* Adds heatmap k's layer (id "heat-KIND") and its legend below the map
 * at legend_y; hidden: shown by the page's buttons. */
static void add_heat(cm_scene *s, const cm__svg_geom *g, const cm_map *m, const cm_balance_heat *h, cm_heat_kind k,
                     int legend_y, bool hidden)
{
	range rg = range_of(m, h, k);
	cm_style st = { .overlay = hidden ? 1 : 0 };
	char id[32];
	snprintf(id, sizeof id, "heat-%s", cm_heat_kind_name(k));
	cm_node grp = cm_scene_group(s, hidden ? &st : NULL);
	cm_scene_id(s, grp, id);
	cm_scene_class(s, grp, "heat");
	if (k == CM_HEAT_USE)
		element_layer(s, g, m, h);
	else
		square_layer(s, g, m, h, k, &rg);
	legend(s, g->ox, legend_y, m->cols * CM__CELL, k, &rg, cm_balance_heat_games(h));
	cm_scene_end(s);
}

/* ---- heatmap pictures ---- */

typedef struct {
	const cm_scene *s;
	const cm_scene_opts *so;
	const char *title;
	const char *body;   /* HTML after the picture, or NULL */
} page;

static const char page_css[] =
	"body{margin:0;font-family:sans-serif;color:#1a1a1a}\n"
	"main{display:flex;align-items:flex-start}#view{flex:1 1 auto;overflow:auto}\n"
	"#view svg{display:block}aside{flex:0 0 320px;padding:8px 12px;font-size:13px}\n"
	"#info{min-height:4em;white-space:pre-wrap;background:#f0f0ea;padding:6px;border-radius:4px}\n"
	"table{border-collapse:collapse;margin:6px 0 14px}td,th{border:1px solid #ccc;padding:2px 6px;"
	"text-align:right}th{background:#f0f0ea}td.l,th.l{text-align:left}\n"
	".fair{color:#1a7f37}.unfair{color:#c00}.flag{background:#ffe680}\n"
	"section{padding:0 12px}h1{font-size:20px;margin:8px 12px}h2{font-size:16px}\n";

/* Shows the title of what the pointer is over; buttons switch layers. */
static const char page_script[] =
	"(function(){'use strict';\n"
	"var info=document.getElementById('info');\n"
	"document.getElementById('view').addEventListener('mousemove',function(e){\n"
	"var n=e.target;while(n&&n.tagName!=='svg'){var t=n.querySelector&&n.querySelector(':scope>title');\n"
	"if(t&&n.closest('.heat')){info.textContent=t.textContent;return;}n=n.parentNode;}});\n"
	"var bs=document.querySelectorAll('button[data-layer]');\n"
	"for(var i=0;i<bs.length;i++)bs[i].addEventListener('click',function(){\n"
	"var ls=document.querySelectorAll('g.heat');for(var j=0;j<ls.length;j++){\n"
	"ls[j].setAttribute('visibility','hidden');ls[j].setAttribute('pointer-events','none');}\n"
	"var l=document.getElementById(this.getAttribute('data-layer'));\n"
	"if(l){l.setAttribute('visibility','visible');l.removeAttribute('pointer-events');}});\n"
	"})();\n";

static int write_page(FILE *f, void *arg)
{
	const page *p = arg;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	cm__put_xml(f, p->title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", page_css);
	cm__put_xml(f, p->title);
	fputs("</h1>\n<main><div id=\"view\">\n", f);
	cm__scene_svg(p->s, f, p->so, 0);
	fputs("</div>\n<aside><div id=\"info\">point at a square to see its value and interval</div>\n", f);
	if (p->body && strstr(p->body, "data-layer"))
		fputs("<p>", f), fputs(p->body, f), fputs("</p>", f);
	fputs("</aside></main>\n", f);
	if (p->body && !strstr(p->body, "data-layer"))
		fputs(p->body, f);
	fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", page_script);
	return ferror(f) ? CM_EIO : 0;
}

static int write_svg(FILE *f, void *arg)
{
	const page *p = arg;
	cm__scene_svg(p->s, f, p->so, 1);
	return ferror(f) ? CM_EIO : 0;
}

int cm_render_heatmap(const cm_map *m, const cm_balance_heat *h, cm_heat_kind k, const cm_render_opts *o,
                      const char *out, cm_diags *d)
{
	if (!o || (o->format != CM_RENDER_SVG && o->format != CM_RENDER_HTML) || cm_balance_heat_games(h) < 1)
		return CM_EINVAL;
	cm__svg_geom g;
	cm_scene *s = NULL;
	int html = o->format == CM_RENDER_HTML;
	int rc = cm__map_scene(m, o, html, &g, &s);
	if (rc)
		return rc;
	int legend_y = g.h;
	cm_scene_set_size(s, g.w, g.h + LEGEND_H);
	add_heat(s, &g, m, h, k, legend_y, false);
	cm_scene_opts so;
	cm_scene_opts_init(&so);
	so.svg_w = (int)g.disp_w;
	so.svg_h = (int)(g.disp_h * (g.h + LEGEND_H) / (g.h > 0 ? g.h : 1));
	char *title = cm_asprintf("%s: %s heatmap", m->name ? m->name : m->id, cm_heat_kind_name(k));
	page p = { s, &so, title ? title : "heatmap", NULL };
	rc = cm_scene_error(s) ? CM_ENOMEM : !title ? CM_ENOMEM : cm_file_write(out, html ? write_page : write_svg, &p, d);
	free(title);
	cm_scene_free(s);
	return rc;
}

/* ---- the deck-fitting curve ---- */

#define PLOT_W 480
#define PLOT_H 240

/* The curve of f drawn at (x0, y0); at (0, 0) it sizes the scene. */
static void cm__fit_scene(cm_scene *s, const cm_fit *f, const char *name, int x0, int y0)
{
	const int left = x0 + 48, top = y0 + 28, W = PLOT_W, H = PLOT_H;
	if (x0 == 0 && y0 == 0)
		cm_scene_set_size(s, left + W + 24, top + H + 66);
	int lo = f->n_curve ? f->curve[0].size : 0, hi = f->n_curve ? f->curve[f->n_curve - 1].size : 1;
	if (hi <= lo)
		hi = lo + 1;
#define PX(size) (left + (int)lround((double)((size) - lo) * W / (hi - lo)))
#define PY(v) (top + H - (int)lround((v) * H))
	cm_style words = { .font_size = 10 }, mid = { .font_size = 10, .anchor = CM_ANCHOR_MIDDLE },
	         right = { .font_size = 10, .anchor = CM_ANCHOR_END };
	char *t = cm_asprintf("%s: fill ratio against deck size (%d games a size)", name ? name : "map", f->games);
	cm_scene_text(s, left, top - 12, t, &words);
	free(t);
	/* the criterion's band, the recommended and declared ranges */
	cm_style band = { .fill = CM_PAINT_RGB(230, 240, 255) };
	cm_scene_rect(s, left, PY(f->fill_high), W, PY(f->fill_low) - PY(f->fill_high), &band);
	if (f->tiles_min >= 0) {
		cm_style rec = { .fill = CM_PAINT_RGB(26, 127, 55), .fill_opacity = 20 };
		cm_node n = cm_scene_rect(s, PX(f->tiles_min), top, PX(f->tiles_max) - PX(f->tiles_min) + 1, H, &rec);
		char *r = cm_asprintf("recommended %d-%d tiles (fill %.0f%% to %.0f%%)", f->tiles_min, f->tiles_max,
		                      100 * f->fill_low, 100 * f->fill_high);
		cm_scene_title(s, n, r);
		free(r);
	}
	if (f->declared_min > 0 && f->declared_max >= f->declared_min) {
		cm_style dec = { .fill = CM_PAINT_NONE, .stroke = CM_PAINT_RGB(90, 90, 90), .stroke_width = 150,
			         .dash = { 4, 3 } };
		cm_node n = cm_scene_rect(s, PX(f->declared_min), top, PX(f->declared_max) - PX(f->declared_min) + 1, H,
		                          &dec);
		char *r = cm_asprintf("declared %d-%d tiles", f->declared_min, f->declared_max);
		cm_scene_title(s, n, r);
		free(r);
	}
	/* axes */
	cm_style axis = { .fill = CM_PAINT_NONE, .stroke = CM_PAINT_RGB(0, 0, 0), .stroke_width = 100 };
	cm_scene_path_add(s, "M%d %dV%dH%d", left, top, top + H, left + W);
	cm_scene_path_end(s, &axis);
	for (int v = 0; v <= 100; v += 20) {
		char l[16];
		snprintf(l, sizeof l, "%d%%", v);
		cm_scene_text(s, left - 4, PY(v / 100.0) + 3, l, &right);
	}
	int step = (hi - lo) / 8 > 0 ? (hi - lo) / 8 : 1;
	for (int v = lo; v <= hi; v += step) {
		char l[16];
		snprintf(l, sizeof l, "%d", v);
		cm_scene_text(s, PX(v), top + H + 14, l, &mid);
	}
	cm_scene_text(s, left + W / 2, top + H + 30, "tiles in the deck", &mid);
	/* the curves: fill (solid), stranded share (dashed) */
	cm_style fill = { .fill = CM_PAINT_NONE, .stroke = CM_PAINT_RGB(0, 90, 180), .stroke_width = 200 };
	cm_style strand = { .fill = CM_PAINT_NONE, .stroke = CM_PAINT_RGB(200, 80, 0), .stroke_width = 150,
		            .dash = { 5, 3 } };
	for (size_t i = 0; i < f->n_curve; i++)
		cm_scene_path_add(s, "%s%d %d", i ? "L" : "M", PX(f->curve[i].size), PY(f->curve[i].fill));
	cm_scene_path_end(s, &fill);
	for (size_t i = 0; i < f->n_curve; i++)
		cm_scene_path_add(s, "%s%d %d", i ? "L" : "M", PX(f->curve[i].size), PY(f->curve[i].stranded));
	cm_scene_path_end(s, &strand);
	for (size_t i = 0; i < f->n_curve; i++) {
		cm_style dot = { .fill = CM_PAINT_RGB(0, 90, 180) };
		cm_node n = cm_scene_circle(s, PX(f->curve[i].size), PY(f->curve[i].fill), 200, &dot);
		char *r = cm_asprintf("%d tiles: fill %.1f%%, stranded %.1f%%, %.1f tiles placed", f->curve[i].size,
		                      100 * f->curve[i].fill, 100 * f->curve[i].stranded, f->curve[i].length);
		cm_scene_title(s, n, r);
		free(r);
	}
	cm_scene_text(s, left, top + H + 46, "solid: fill ratio; dashed: share of the deck stranded (no place)", &words);
	cm_scene_text(s, left, top + H + 58, "band: the criterion; green: recommended; dotted frame: declared", &words);
#undef PX
#undef PY
}


int cm_fit_write_svg(const cm_fit *f, const char *map_name, const char *out, cm_diags *d)
{
	cm_scene *s = NULL;
	if (cm_scene_new(&s))
		return CM_ENOMEM;
	cm__fit_scene(s, f, map_name, 0, 0);
	int w, h;
	cm_scene_get_size(s, &w, &h);
	cm_scene_opts so;
	cm_scene_opts_init(&so);
	page p = { s, &so, map_name, NULL };
	int rc = cm_scene_error(s) ? CM_ENOMEM : cm_file_write(out, write_svg, &p, d);
	cm_scene_free(s);
	return rc;
}

/* ---- the balance report page ---- */

typedef struct {
	const cm_map *m;
	const cm_balance_report *r;
	const cm_fit *fit;
	const char *rules;
	const cm_scene *s;      /* the map with the heatmap layers */
	const cm_scene_opts *so;
	const cm_scene *curve;  /* the fit curve, or NULL */
} report_page;

static void put_iv(FILE *f, const cm_interval *v, double scale, int decimals, const char *unit)
{
	if (isnan(v->value)) {
		fputs("<td>n/a</td><td></td>", f);
		return;
	}
	fprintf(f, "<td>%.*f%s</td>", decimals, scale * v->value, unit);
	if (isnan(v->lo))
		fputs("<td></td>", f);
	else
		fprintf(f, "<td>[%.*f, %.*f]</td>", decimals, scale * v->lo, decimals, scale * v->hi);
}

static void put_starts(FILE *f, const cm_balance_report *r, const cm_balance_cell *c)
{
	for (int k = 0; k < c->n_starts; k++)
		fprintf(f, "%s(%d,%d)", k ? " " : "", c->starts[k] % r->cols, c->starts[k] / r->cols);
}

static const char *seat_player(const cm_balance_report *r, const cm_balance_cell *c, int p)
{
	return c->strength ? r->compare : r->players[r->n_players > 1 ? p : 0];
}

static void put_cell(FILE *f, const cm_balance_report *r, const cm_balance_cell *c)
{
	fprintf(f, "<h3>%s players: ", c->strength ? "comparison" : "");
	cm__put_xml(f, seat_player(r, c, 0));
	if (c->stop == CM_BALANCE_NOT_RUN) {
		fputs(", not played</h3>\n", f);
		return;
	}
	fprintf(f, ", %lld games in %lld groups (%s)</h3>\n", c->games, c->groups,
	        c->stop == CM_BALANCE_PRECISE ? "stopped at the precision"
	        : c->stop == CM_BALANCE_CAPPED ? "stopped at the cap, before the precision"
	                                       : "interrupted");
	fputs("<table><tr><th>seat</th><th class=\"l\">player</th><th>win rate</th><th>95% interval</th>"
	      "<th>mean score</th><th>95% interval</th></tr>\n", f);
	for (int p = 0; p < c->seats; p++) {
		fprintf(f, "<tr><td>%d</td><td class=\"l\">", p);
		cm__put_xml(f, seat_player(r, c, p));
		fputs("</td>", f);
		put_iv(f, &c->win[p], 100, 1, "%");
		put_iv(f, &c->score[p], 1, 1, "");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<table><tr><th class=\"l\">figure</th><th>value</th><th>95% interval</th></tr>\n", f);
	static const char *const names[] = { "first-seat advantage (pp)", "balance", "largest gap (pp)", "draws",
		                             "game length (turns)", "lead changes a game" };
	const cm_interval *v[] = { &c->first_seat_advantage, &c->balance, &c->gap, &c->draws, &c->length,
		                   &c->lead_changes };
	const double scale[] = { 100, 1, 100, 100, 1, 1 };
	const int dec[] = { 1, 3, 1, 1, 1, 2 };
	for (int i = 0; i < 6; i++) {
		fprintf(f, "<tr><td class=\"l\">%s</td>", names[i]);
		put_iv(f, v[i], scale[i], dec[i], i == 3 ? "%" : "");
		fputs("</tr>\n", f);
	}
	fprintf(f, "</table>\n<p class=\"%s%s\">%s: seat %d wins %.1f pp more than seat %d; %s%s%s</p>\n",
	        cm_balance_verdict_name(c->verdict), c->flagged ? " flag" : "", cm_balance_verdict_name(c->verdict),
	        c->best, 100 * c->gap.value, c->worst,
	        c->sure ? "the gap's interval lies on this side of the tolerance"
	                : "not sure: the gap's interval reaches across the tolerance",
	        c->fairest ? "; the fairest start-square choice for this seat count" : "",
	        c->flagged ? "; FLAGGED: the other strength's verdict differs" : "");
}

static void put_elements(FILE *f, const cm_balance_heat *h)
{
	static const char *const side[] = { "N", "E", "S", "W" };
	fprintf(f, "<h2>Printed elements over %lld games</h2>\n<table><tr><th class=\"l\">element</th>"
	        "<th class=\"l\">name</th><th class=\"l\">place</th><th>connected</th><th>95%% interval</th>"
	        "<th>completed</th><th>95%% interval</th><th>scored</th><th>95%% interval</th></tr>\n",
	        cm_balance_heat_games(h));
	for (size_t i = 0; i < cm_balance_heat_element_count(h); i++) {
		const cm_heat_element *e = cm_balance_heat_element(h, i);
		bool never = !e->n_connected || !e->n_completed;
		fprintf(f, "<tr%s><td class=\"l\">%s</td><td class=\"l\">", never ? " class=\"flag\"" : "",
		        cm_element_kind_name(e->kind));
		cm__put_xml(f, e->name ? e->name : "");
		fprintf(f, "</td><td class=\"l\">(%d,%d)%s%s</td>", e->x, e->y, e->side >= 0 ? " " : "",
		        e->side >= 0 ? side[e->side & 3] : "");
		put_iv(f, &e->connected, 100, 1, "%");
		put_iv(f, &e->completed, 100, 1, "%");
		put_iv(f, &e->scored, 100, 1, "%");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void put_fit(FILE *f, const report_page *p)
{
	const cm_fit *fit = p->fit;
	fprintf(f, "<h2>Deck fitting</h2>\n<p>Criterion: the deck sizes whose games fill %.0f%% to %.0f%% of the "
	        "%d playable squares on average. ",
	        100 * fit->fill_low, 100 * fit->fill_high, fit->playable);
	if (fit->tiles_min >= 0)
		fprintf(f, "Recommended: <b>%d&ndash;%d</b> tiles", fit->tiles_min, fit->tiles_max);
	else
		fputs("No deck size reaches the criterion", f);
	if (fit->declared_min > 0)
		fprintf(f, "; declared: %d&ndash;%d%s", fit->declared_min, fit->declared_max,
		        cm_fit_far(fit) ? " (far from the recommendation)" : "");
	fprintf(f, "; the map's deck: %d tiles.</p>\n", fit->deck);
	if (p->curve) {
		cm_scene_opts so;
		cm_scene_opts_init(&so);
		cm__scene_svg(p->curve, f, &so, 0);
	}
}

static int write_report(FILE *f, void *arg)
{
	const report_page *p = arg;
	const cm_balance_report *r = p->r;
	char *title = cm_asprintf("%s: balance", p->m->name ? p->m->name : p->m->id);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	cm__put_xml(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", page_css);
	cm__put_xml(f, title);
	free(title);
	fputs("</h1>\n<main><div id=\"view\">\n", f);
	cm__scene_svg(p->s, f, p->so, 0);
	fputs("</div>\n<aside><div id=\"info\">point at a square to see its value and interval</div>\n", f);
	if (r->heat) {
		fputs("<p>heatmap:", f);
		for (int k = 0; k < 4; k++)
			fprintf(f, " <button data-layer=\"heat-%s\">%s</button>", cm_heat_kind_name((cm_heat_kind)k),
			        cm_heat_kind_name((cm_heat_kind)k));
		fputs("</p>\n", f);
	}
	fputs("<p>", f);
	for (int i = 0; i < r->n_players; i++) {
		fputs(i ? "," : "players: ", f);
		cm__put_xml(f, r->players[i]);
	}
	if (r->compare) {
		fputs("; compared with ", f);
		cm__put_xml(f, r->compare);
	}
	fprintf(f, "<br>seed %llu, precision &plusmn;%.2g pp, tolerance %.2g pp, at most %ld games a cell<br>rules: ",
	        (unsigned long long)r->seed, 100 * r->precision, 100 * r->tolerance, r->max_games);
	cm__put_xml(f, p->rules);
	fprintf(f, "%s</p></aside></main>\n<section>\n", r->partial ? "<br><b>PARTIAL: interrupted</b>" : "");
	/* the summary, then the cells */
	fputs("<h2>Summary</h2>\n<table><tr><th>seats</th><th class=\"l\">start squares</th><th class=\"l\">players</th>"
	      "<th>games</th><th>balance</th><th>first seat (pp)</th><th class=\"l\">verdict</th><th class=\"l\"></th>"
	      "</tr>\n", f);
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_cell *c = &r->cells[i];
		fprintf(f, "<tr%s><td>%d</td><td class=\"l\">", c->flagged ? " class=\"flag\"" : "", c->seats);
		put_starts(f, r, c);
		fputs("</td><td class=\"l\">", f);
		cm__put_xml(f, seat_player(r, c, 0));
		fprintf(f, "</td><td>%lld</td>", c->games);
		if (c->stop == CM_BALANCE_NOT_RUN || isnan(c->balance.value))
			fputs("<td>-</td><td>-</td><td class=\"l\">-</td><td></td></tr>\n", f);
		else
			fprintf(f, "<td>%.3f</td><td>%+.1f</td><td class=\"l %s\">%s</td><td class=\"l\">%s%s</td></tr>\n",
			        c->balance.value, 100 * c->first_seat_advantage.value, cm_balance_verdict_name(c->verdict),
			        cm_balance_verdict_name(c->verdict), c->fairest ? "fairest " : "", c->flagged ? "flagged" : "");
	}
	fputs("</table>\n", f);
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_cell *c = &r->cells[i];
		if (c->strength == 0 || i == 0 || c->seats != r->cells[i - 1].seats ||
		    memcmp(c->starts, r->cells[i - 1].starts, (size_t)c->n_starts * sizeof *c->starts) != 0) {
			if (c->strength == 0) {
				fprintf(f, "<h2>%d seats, start squares ", c->seats);
				put_starts(f, r, c);
				fputs("</h2>\n", f);
			}
		}
		if (c->strength == 0)
			put_cell(f, r, c);
	}
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_cell *c = &r->cells[i];
		if (c->strength == 0)
			continue;
		fprintf(f, "<h2>%d seats, start squares ", c->seats);
		put_starts(f, r, c);
		fputs(" (comparison)</h2>\n", f);
		put_cell(f, r, c);
	}
	if (r->heat)
		put_elements(f, r->heat);
	if (p->fit)
		put_fit(f, p);
	fprintf(f, "</section>\n<script>\n%s</script>\n</body>\n</html>\n", page_script);
	return ferror(f) ? CM_EIO : 0;
}

int cm_balance_write_html(const cm_map *m, const cm_balance_report *r, const cm_fit *fit, const char *rules_text,
                          const char *out, cm_diags *d)
{
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = CM_RENDER_HTML;
	o.scale = CM__CELL;
	cm__svg_geom g;
	cm_scene *s = NULL, *curve = NULL;
	int rc = cm__map_scene(m, &o, 1, &g, &s);
	if (rc)
		return rc;
	int h = g.h;
	if (r->heat && cm_balance_heat_games(r->heat) > 0) {
		cm_scene_set_size(s, g.w, g.h + LEGEND_H);
		h = g.h + LEGEND_H;
		for (int k = 0; k < 4; k++)
			add_heat(s, &g, m, r->heat, (cm_heat_kind)k, g.h, k != 0);
	}
	if (fit && cm_scene_new(&curve) == 0)
		cm__fit_scene(curve, fit, m->name ? m->name : m->id, 0, 0);
	cm_scene_opts so;
	cm_scene_opts_init(&so);
	so.svg_w = (int)g.disp_w;
	so.svg_h = (int)(g.disp_h * h / (g.h > 0 ? g.h : 1));
	report_page p = { m, r, fit, rules_text ? rules_text : "", s, &so, curve };
	rc = cm_scene_error(s) || (fit && (!curve || cm_scene_error(curve))) ? CM_ENOMEM
	                                                                    : cm_file_write(out, write_report, &p, d);
	cm_scene_free(s);
	cm_scene_free(curve);
	return rc;
}
