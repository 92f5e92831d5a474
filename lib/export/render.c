/* SPDX-License-Identifier: MIT */
/* render.c: map pictures (carcamap/render.h): format dispatch, and the
 * exact annotated PNG (scale 0 and 1), drawn into an RGBA canvas with
 * integer arithmetic only (identical bytes on every machine) and written
 * with libpng's write API into a temporary file beside the target, then
 * renamed into place. Pictures at larger scales and PDF are the map's
 * scene written by cairo (scene_cairo.c). */
#include <errno.h>
#include <inttypes.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "carcamap/catalog.h"
#include "carcamap/palette.h"
#include "carcamap/render.h"
#include "export/render_int.h"
#include "base/image_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"
#include "carcamap/version.h"

typedef struct {
	uint8_t *px;   /* w*h RGBA */
	int w, h;
} canvas;

typedef struct {
	uint8_t r, g, b, a;
} rgba;

static rgba pal(cm_rgb c)
{
	return (rgba){ c.r, c.g, c.b, 255 };
}

#define C_FIELD pal(cm_palette_feature(CM_FEAT_FIELD))
#define C_CITY pal(cm_palette_feature(CM_FEAT_CITY))
#define C_ROAD pal(cm_palette_feature(CM_FEAT_ROAD))
#define C_ARMS pal(cm_palette_arms())
#define C_FERRY pal(cm_palette_ferry())
#define C_START pal(cm_palette_start_outline())
#define C_GRID pal(cm_palette_grid())

void cm_render_opts_init(cm_render_opts *o)
{
	memset(o, 0, sizeof *o);
	o->format = CM_RENDER_PNG;
	o->scale = 1;
	o->deck_size = -1;
	o->square_um = 45000;
	o->flags = CM_RENDER_GRID | CM_RENDER_FEATURES;
}

static void fill(canvas *c, int x0, int y0, int w, int h, rgba col)
{
	int x1 = x0 + w, y1 = y0 + h;
	if (x0 < 0)
		x0 = 0;
	if (y0 < 0)
		y0 = 0;
	if (x1 > c->w)
		x1 = c->w;
	if (y1 > c->h)
		y1 = c->h;
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++) {
			uint8_t *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 4;
			p[0] = col.r;
			p[1] = col.g;
			p[2] = col.b;
			p[3] = col.a;
		}
}

/* A frame of thickness t inside the rectangle. */
static void frame(canvas *c, int x0, int y0, int w, int h, int t, rgba col)
{
	fill(c, x0, y0, w, t, col);
	fill(c, x0, y0 + h - t, w, t, col);
	fill(c, x0, y0, t, h, col);
	fill(c, x0 + w - t, y0, t, h, col);
}

/* A line with a square brush of side t, stepped along the longer axis. */
static void line(canvas *c, int x0, int y0, int x1, int y1, int t, rgba col)
{
	int dx = x1 - x0, dy = y1 - y0;
	int steps = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
	if (steps == 0)
		steps = 1;
	for (int i = 0; i <= steps; i++) {
		int x = x0 + (dx * i + (dx >= 0 ? steps / 2 : -steps / 2)) / steps;
		int y = y0 + (dy * i + (dy >= 0 ? steps / 2 : -steps / 2)) / steps;
		fill(c, x - t / 2, y - t / 2, t, t, col);
	}
}

/* Midpoint of side s of the square at pixel (x0,y0) of size n. */
static void side_mid(int x0, int y0, int n, cm_side s, int *x, int *y)
{
	static const int fx[4] = { 1, 2, 1, 0 }, fy[4] = { 0, 1, 2, 1 };
	*x = x0 + (fx[s] * (n - 1)) / 2;
	*y = y0 + (fy[s] * (n - 1)) / 2;
}

/* Draws tile type t turned r quarter turns into the n x n square at (x0,y0).
 * A city on one side is a band a third deep; a city over several sides fills
 * every pixel nearer to one of its sides than to the others. */
static void draw_tile(canvas *c, int x0, int y0, int n, const cm_tile_type *t, int r)
{
	fill(c, x0, y0, n, n, C_FIELD);
	for (size_t fi = 0; fi < t->n_features; fi++) {
		const cm_feature *f = &t->features[fi];
		if (f->kind != CM_FEAT_CITY)
			continue;
		unsigned sides = cm_slots_sides(cm_slots_rotate(f->slots, r));
		int one = sides && !(sides & (sides - 1));
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++) {
				/* distances to N, E, S, W in doubled pixel units from the pixel centre */
				int dist[4] = { 2 * j + 1, 2 * (n - i) - 1, 2 * (n - j) - 1, 2 * i + 1 };
				int ns = 0;
				for (int s = 1; s < 4; s++)
					if (dist[s] < dist[ns])
						ns = s;
				if (!(sides & (1u << ns)) || (one && 3 * dist[ns] > 2 * n))
					continue;
				fill(c, x0 + i, y0 + j, 1, 1, C_CITY);
			}
		if (f->arms && sides) {
			int s = 0;
			while (!(sides & (1u << s)))
				s++;
			int mx, my;
			side_mid(x0, y0, n, (cm_side)s, &mx, &my);
			int cx = x0 + (n - 1) / 2, cy = y0 + (n - 1) / 2;
			int d = n / 6 > 1 ? n / 6 : 1;
			fill(c, mx + (cx - mx) / 3 - d / 2, my + (cy - my) / 3 - d / 2, d, d, C_ARMS);
		}
	}
	int w = n / 10 > 1 ? n / 10 : 1;
	int cx = x0 + (n - 1) / 2, cy = y0 + (n - 1) / 2;
	for (size_t fi = 0; fi < t->n_features; fi++) {
		const cm_feature *f = &t->features[fi];
		cm_slots m = cm_slots_rotate(f->slots, r);
		if (f->kind == CM_FEAT_ROAD) {
			for (int s = 0; s < 4; s++)
				if (m & CM_SIDE_MID(s)) {
					int mx, my;
					side_mid(x0, y0, n, (cm_side)s, &mx, &my);
					line(c, mx, my, cx, cy, w, C_ROAD);
				}
		} else if (f->kind == CM_FEAT_MONASTERY || f->kind == CM_FEAT_ABBEY || f->kind == CM_FEAT_GARDEN) {
			int d = n / 4 > 1 ? n / 4 : 1;
			fill(c, cx - d / 2, cy - d / 2, d, d, pal(cm_palette_feature(f->kind)));
		}
	}
}

static rgba legend_rgba(const cm_legend_colour *c)
{
	return (rgba){ c->r, c->g, c->b, c->a };
}

/* Everything the libpng write touches, on the heap (see image.c on longjmp). */
typedef struct {
	cm_diags *d;
	const char *path;
	FILE *f;
	png_structp png;
	png_infop info;
} writer;

static void on_write_error(png_structp png, png_const_charp msg)
{
	writer *w = png_get_error_ptr(png);
	cm_diags_add(w->d, CM_SEV_ERROR, NULL, w->path, 0, 0, NULL, "cannot write png: %s", msg ? msg : "error");
	png_longjmp(png, 1);
}

static void on_write_warning(png_structp png, png_const_charp msg)
{
	writer *w = png_get_error_ptr(png);
	cm_diags_add(w->d, CM_SEV_WARNING, NULL, w->path, 0, 0, NULL, "png writer: %s", msg ? msg : "warning");
}

static void on_write_data(png_structp png, png_bytep buf, size_t n)
{
	writer *w = png_get_io_ptr(png);
	if (fwrite(buf, 1, n, w->f) != n)
		png_error(png, strerror(errno));
}

static void on_flush(png_structp png)
{
	(void)png;
}

static int encode(writer *w, const canvas *c, int alpha)
{
	if (setjmp(png_jmpbuf(w->png)))
		return CM_EIO;
	png_set_write_fn(w->png, w, on_write_data, on_flush);
	png_set_IHDR(w->png, w->info, (png_uint_32)c->w, (png_uint_32)c->h, 8,
	             alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	/* fixed settings: the same map gives the same bytes */
	png_set_compression_level(w->png, 6);
	png_set_filter(w->png, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
	png_write_info(w->png, w->info);
	if (!alpha) /* the canvas is RGBA: drop the fourth byte */
		png_set_filler(w->png, 0, PNG_FILLER_AFTER);
	for (int y = 0; y < c->h; y++)
		png_write_row(w->png, c->px + (size_t)y * (size_t)c->w * 4);
	png_write_end(w->png, NULL);
	return 0;
}

typedef struct {
	writer *w;
	const canvas *c;
	int alpha;
} png_job;

/* cm_write_to's writer: the PNG into f. */
static int png_to(FILE *f, void *arg)
{
	png_job *j = arg;
	writer *w = j->w;
	w->f = f;
	w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, on_write_error, on_write_warning);
	if (!w->png || !(w->info = png_create_info_struct(w->png)))
		return CM_ENOMEM;
	int rc = encode(w, j->c, j->alpha);
	w->f = NULL;
	return rc;
}

/* Writes c to path as every output is written (cm_write_to). */
static int write_png(const canvas *c, int alpha, const char *path, cm_diags *d)
{
	writer *w = calloc(1, sizeof *w);
	if (!w)
		return CM_ENOMEM;
	w->d = d;
	w->path = path;
	png_job j = { w, c, alpha };
	int rc = cm_write_to(path, png_to, &j, d);
	if (w->png)
		png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
	free(w);
	return rc;
}

/* Colour of each square: the legend's best colour for it, or the built-in. */
static rgba square_colour(const cm_map *m, const cm_legend *lg, const cm_legend *builtin, int x, int y,
                          unsigned *warned, const char *out_png, cm_diags *d)
{
	static const cm_square none_sq = { .kind = CM_SQ_NONE, .island = -1, .bigcity = -1 };
	const cm_square *s = cm__map_at(m, x, y);
	if (!s)
		s = &none_sq;
	const cm_legend_colour *c = lg ? cm_legend_find(lg, m, x, y) : NULL;
	if (c)
		return legend_rgba(c);
	if (lg && !(*warned & (1u << s->kind))) {
		*warned |= 1u << s->kind;
		cm_diags_check(d, "CM0340", lg->file ? lg->file : out_png, 0, 0, NULL,
		               "the legend has no colour for squares of kind %s; drawn in the built-in colour",
		               cm_square_kind_name(s->kind));
	}
	return legend_rgba(&builtin->colours[s->kind]);
}

/* A picture PNG or a PDF: the map's scene written by cairo. */
static int render_scene(const cm_map *m, const cm_render_opts *o, const char *out, cm_diags *d)
{
	cm_scene *s;
	cm__svg_geom g;
	int rc = cm__map_scene(m, o, CM__SCENE_PAPER, &g, &s);
	if (rc)
		return rc;
	cm_scene_opts so;
	cm_scene_opts_init(&so);
	so.format = o->format == CM_RENDER_PDF ? CM_SCENE_PDF : CM_SCENE_PNG;
	so.px_per_cell = o->scale;
	so.cell_um = o->square_um;
	so.paper_w_um = o->paper_w_um;
	so.paper_h_um = o->paper_h_um;
	so.bleed_um = o->bleed_um;
	so.epoch = o->epoch;
	so.creator = "carcamap " CM_VERSION_STRING;
	rc = cm_scene_write(s, &so, out, d);
	cm_scene_free(s);
	return rc;
}

static int render_png(const cm_map *m, const cm_legend *lg, const cm_render_opts *o, const char *out_png,
                      cm_diags *d)
{
	if (o->scale < 0 || o->scale > 256) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "scale %d is outside 0..256", o->scale);
		return CM_EINVAL;
	}
	if (o->scale >= 2)
		return render_scene(m, o, out_png, d);
	cm_legend *builtin = NULL;
	canvas c = { NULL, 0, 0 };
	int rc = cm_legend_default(&builtin);
	if (rc)
		return rc;
	/* geometry: the legend's grid (scale 0), or scale pixels per square */
	int ox = 0, oy = 0, cw = o->scale, ch = o->scale;
	if (o->scale == 0) {
		const cm_legend_grid *g = lg ? &lg->grid : &builtin->grid;
		ox = g->x;
		oy = g->y;
		cw = g->cell_w;
		ch = g->cell_h;
	}
	int64_t w = ox + (int64_t)m->cols * cw, h = oy + (int64_t)m->rows * ch;
	if (!cm__image_fits(w, h)) {
		/* the largest scale that fits, to say what to ask for instead */
		int fit = 256;
		while (fit > 0 && !cm__image_fits((int64_t)m->cols * fit, (int64_t)m->rows * fit))
			fit--;
		char hint[64] = "";
		if (fit > 0)
			snprintf(hint, sizeof hint, " (a scale of %d pixels per square or less fits)", fit);
		cm_diags_check(d, "CM0341", out_png, 0, 0, NULL,
		               "picture of %" PRId64 "x%" PRId64 " pixels is over the limit of %d per side and %u in all%s",
		               w, h, CM_IMAGE_MAX_SIDE, CM_IMAGE_MAX_PIXELS, hint);
		rc = CM_ELIMIT;
		goto out;
	}
	c.w = (int)w;
	c.h = (int)h;
	if (!(c.px = malloc((size_t)w * (size_t)h * 4))) {
		rc = CM_ENOMEM;
		goto out;
	}
	unsigned warned = 0;
	int alpha = 0;
	rgba bg = square_colour(m, lg, builtin, -1, -1, &warned, out_png, d); /* off the grid: the background */
	fill(&c, 0, 0, c.w, c.h, bg);
	alpha |= bg.a != 255;
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			rgba col = square_colour(m, lg, builtin, x, y, &warned, out_png, d);
			alpha |= col.a != 255;
			fill(&c, ox + x * cw, oy + y * ch, cw, ch, col);
		}
	int n = o->scale;
	if (n >= 1)
		for (size_t i = 0; i < o->n_tiles; i++) {
			const cm_render_tile *t = &o->tiles[i];
			if (t->type && cm__map_at(m, t->x, t->y))
				draw_tile(&c, t->x * n, t->y * n, n, t->type, t->rotation);
		}
	for (size_t i = 0; i < o->n_marks; i++) {
		const cm_render_mark *k = &o->marks[i];
		if (!cm__map_at(m, k->x, k->y))
			continue;
		int x0 = ox + k->x * cw, y0 = oy + k->y * ch;
		if (cw < 3 || ch < 3)
			fill(&c, x0, y0, cw, ch, pal(cm_palette_severity(k->severity)));
		else
			frame(&c, x0, y0, cw, ch, cw / 8 > 1 ? cw / 8 : 1, pal(cm_palette_severity(k->severity)));
	}
	rc = write_png(&c, alpha, out_png, d);
out:
	free(c.px);
	cm_legend_free(builtin);
	return rc;
}

int cm_render_map(const cm_map *m, const cm_legend *lg, const cm_render_opts *o, const char *out, cm_diags *d)
{
	cm_render_opts def;
	if (!o) {
		cm_render_opts_init(&def);
		o = &def;
	}
	switch (o->format) {
	case CM_RENDER_PNG: return render_png(m, lg, o, out, d);
	case CM_RENDER_SVG: return cm__render_svg(m, o, out, d);
	case CM_RENDER_HTML: return cm__render_html(m, o, out, d);
	case CM_RENDER_PDF: return render_scene(m, o, out, d);
	}
	cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "unknown picture format %d", (int)o->format);
	return CM_EINVAL;
}

const char *cm_render_format_name(cm_render_format f)
{
	switch (f) {
	case CM_RENDER_PNG: return "png";
	case CM_RENDER_SVG: return "svg";
	case CM_RENDER_HTML: return "html";
	case CM_RENDER_PDF: return "pdf";
	}
	return "?";
}

int cm_render_format_parse(const char *s, cm_render_format *out)
{
	for (int f = CM_RENDER_PNG; f <= CM_RENDER_PDF; f++)
		if (s && strcmp(s, cm_render_format_name((cm_render_format)f)) == 0) {
			*out = (cm_render_format)f;
			return 0;
		}
	return CM_EINVAL;
}

static int ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (n < k)
		return 0;
	for (size_t i = 0; i < k; i++) {
		char c = s[n - k + i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != suffix[i])
			return 0;
	}
	return 1;
}

int cm_render_format_of_path(const char *path, cm_render_format *out)
{
	if (!path)
		return CM_ENOTFOUND;
	if (ends_with_ci(path, ".png"))
		*out = CM_RENDER_PNG;
	else if (ends_with_ci(path, ".svg"))
		*out = CM_RENDER_SVG;
	else if (ends_with_ci(path, ".html") || ends_with_ci(path, ".htm"))
		*out = CM_RENDER_HTML;
	else if (ends_with_ci(path, ".pdf"))
		*out = CM_RENDER_PDF;
	else
		return CM_ENOTFOUND;
	return 0;
}
