/* SPDX-License-Identifier: MIT */
/* scene_cairo.c: the scene written by cairo: PNG at a picture scale (drawn
 * in bands of rows, each written to libpng as it is done) and PDF at true
 * size, on one sheet with crop marks or as a poster of pages with an
 * assembly page. Text is real text in DejaVu Sans, loaded from its file
 * with FreeType. Nodes outside a band or page are skipped by their bounding
 * boxes, computed once: the cost is the nodes times the bands or pages. */
#include <cairo.h>
#include <cairo-ft.h>
#include <cairo-pdf.h>
#include <errno.h>
#include <inttypes.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "carcamap/catalog.h"
#include "carcamap/image.h"
#include "export/render_int.h"
#include "export/scene_int.h"
#include "base/util_int.h"
#include "cm_paths.h"

/* ---- fonts ---- */

/* FreeType's library lives until cairo lets go of the last face made
 * from it (cairo keeps scaled fonts in a cache of its own). */
typedef struct {
	FT_Library lib;
	int refs;
} ft_lib;

typedef struct {
	ft_lib *lib;
	FT_Face face;
} ft_face_ref;

static void face_gone(void *p)
{
	ft_face_ref *r = p;
	FT_Done_Face(r->face);
	if (--r->lib->refs == 0) {
		FT_Done_FreeType(r->lib->lib);
		free(r->lib);
	}
	free(r);
}

typedef struct {
	cairo_font_face_t *face[2]; /* regular, bold */
} fonts;

static const cairo_user_data_key_t face_key;

static void fonts_clear(fonts *fo)
{
	for (int i = 0; i < 2; i++)
		if (fo->face[i])
			cairo_font_face_destroy(fo->face[i]);
	memset(fo, 0, sizeof *fo);
}

static int fonts_load(fonts *fo, cm_diags *d)
{
	static const char *const file[2] = { "DejaVuSans.ttf", "DejaVuSans-Bold.ttf" };
	memset(fo, 0, sizeof *fo);
	ft_lib *lib = calloc(1, sizeof *lib);
	if (!lib)
		return CM_ENOMEM;
	if (FT_Init_FreeType(&lib->lib)) {
		free(lib);
		return CM_ENOMEM;
	}
	lib->refs = 1; /* ours, until the faces hold it */
	int rc = 0;
	for (int i = 0; i < 2 && !rc; i++) {
		char *path = cm_asprintf("%s/%s", CM_FONT_DIR, file[i]);
		ft_face_ref *r = calloc(1, sizeof *r);
		if (!path || !r) {
			free(path);
			free(r);
			rc = CM_ENOMEM;
			break;
		}
		if (FT_New_Face(lib->lib, path, 0, &r->face)) {
			cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL,
			             "cannot load the font of PDF and PNG pictures (Debian: apt-get install fonts-dejavu-core)");
			free(path);
			free(r);
			rc = CM_EIO;
			break;
		}
		free(path);
		r->lib = lib;
		lib->refs++;
		fo->face[i] = cairo_ft_font_face_create_for_ft_face(r->face, FT_LOAD_NO_HINTING);
		if (cairo_font_face_set_user_data(fo->face[i], &face_key, r, face_gone) != CAIRO_STATUS_SUCCESS) {
			face_gone(r);
			rc = CM_ENOMEM;
		}
	}
	if (--lib->refs == 0) {
		FT_Done_FreeType(lib->lib);
		free(lib);
	}
	if (rc)
		fonts_clear(fo);
	return rc;
}

/* ---- paths ---- */

typedef struct {
	void (*move)(void *, double, double);
	void (*line)(void *, double, double);
	void (*curve)(void *, double, double, double, double, double, double);
	void (*close)(void *);
	void *arg;
} path_sink;

/* A number of path data (no locale: '.' is the decimal point), or 0 at
 * the end of the data. */
static int number(const char **pp, double *v)
{
	const char *p = *pp;
	while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t')
		p++;
	int neg = 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')))
		return 0;
	double x = 0;
	while (*p >= '0' && *p <= '9')
		x = 10 * x + (*p++ - '0');
	if (*p == '.') {
		double f = 0.1;
		for (p++; *p >= '0' && *p <= '9'; p++, f /= 10)
			x += f * (*p - '0');
	}
	*v = neg ? -x : x;
	*pp = p;
	return 1;
}

/* Runs SVG path data (M L H V Q T C Z, absolute or relative) into k. */
static void path_run(const char *d, const path_sink *k)
{
	double cx = 0, cy = 0, sx = 0, sy = 0, qx = 0, qy = 0;
	int cmd = 0, lastq = 0;
	const char *p = d;
	for (;;) {
		while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t')
			p++;
		if (!*p)
			return;
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
			cmd = *p++;
		else if ((cmd | 0x20) == 'z' || !cmd)
			return; /* numbers after a close, or before any command */
		int rel = cmd >= 'a';
		double a[6];
		int need = 0;
		switch (cmd | 0x20) {
		case 'm': case 'l': case 't': need = 2; break;
		case 'h': case 'v': need = 1; break;
		case 'q': need = 4; break;
		case 'c': need = 6; break;
		case 'z': need = 0; break;
		default: return; /* nothing this writer knows: the rest is left out */
		}
		for (int i = 0; i < need; i++)
			if (!number(&p, &a[i]))
				return;
		double ox = rel ? cx : 0, oy = rel ? cy : 0;
		int isq = 0;
		switch (cmd | 0x20) {
		case 'm':
			cx = ox + a[0], cy = oy + a[1], sx = cx, sy = cy;
			k->move(k->arg, cx, cy);
			cmd = rel ? 'l' : 'L'; /* pairs after a move are lines */
			break;
		case 'l': cx = ox + a[0], cy = oy + a[1]; k->line(k->arg, cx, cy); break;
		case 'h': cx = ox + a[0]; k->line(k->arg, cx, cy); break;
		case 'v': cy = (rel ? cy : 0) + a[0]; k->line(k->arg, cx, cy); break;
		case 'z':
			k->close(k->arg);
			cx = sx, cy = sy;
			break;
		case 'q': case 't': {
			double x1, y1, x, y;
			if ((cmd | 0x20) == 'q') {
				x1 = ox + a[0], y1 = oy + a[1], x = ox + a[2], y = oy + a[3];
			} else {
				x1 = lastq ? 2 * cx - qx : cx, y1 = lastq ? 2 * cy - qy : cy;
				x = ox + a[0], y = oy + a[1];
			}
			/* a quadratic as a cubic */
			k->curve(k->arg, cx + 2.0 / 3 * (x1 - cx), cy + 2.0 / 3 * (y1 - cy), x + 2.0 / 3 * (x1 - x),
			         y + 2.0 / 3 * (y1 - y), x, y);
			qx = x1, qy = y1, cx = x, cy = y, isq = 1;
			break;
		}
		case 'c':
			k->curve(k->arg, ox + a[0], oy + a[1], ox + a[2], oy + a[3], ox + a[4], oy + a[5]);
			cx = ox + a[4], cy = oy + a[5];
			break;
		}
		lastq = isq;
	}
}

static void c_move(void *a, double x, double y) { cairo_move_to(a, x, y); }
static void c_line(void *a, double x, double y) { cairo_line_to(a, x, y); }
static void c_curve(void *a, double x1, double y1, double x2, double y2, double x, double y)
{
	cairo_curve_to(a, x1, y1, x2, y2, x, y);
}
static void c_close(void *a) { cairo_close_path(a); }

typedef struct {
	double x0, y0, x1, y1;
	int any;
} box;

static void box_add(box *b, double x, double y)
{
	if (!b->any || x < b->x0)
		b->x0 = x;
	if (!b->any || y < b->y0)
		b->y0 = y;
	if (!b->any || x > b->x1)
		b->x1 = x;
	if (!b->any || y > b->y1)
		b->y1 = y;
	b->any = 1;
}
static void b_move(void *a, double x, double y) { box_add(a, x, y); }
static void b_curve(void *a, double x1, double y1, double x2, double y2, double x, double y)
{
	box_add(a, x1, y1);
	box_add(a, x2, y2);
	box_add(a, x, y);
}
static void b_close(void *a) { (void)a; }

/* ---- drawing ---- */

/* What a node inherits, merged down the groups. */
static void merge(cm_style *out, const cm_style *in)
{
#define M(f) if (in->f) out->f = in->f
	M(fill); M(stroke); M(stroke_width); M(fill_opacity); M(stroke_opacity); M(font_size); M(bold); M(anchor);
	M(halo); M(halo_width); M(halo_round); M(overlay);
	if (in->dash[0]) {
		out->dash[0] = in->dash[0];
		out->dash[1] = in->dash[1];
	}
#undef M
}

typedef struct {
	const cm_scene *s;
	fonts fo;
	float *bb;            /* per node x0 y0 x1 y1 in scene units; NaN-free */
	double cx0, cy0, cx1, cy1; /* what is drawn now, in scene units */
	cairo_pattern_t **pat; /* per scene pattern */
	int oom;
} drawer;

static double text_advance(cairo_t *cr, const char *t)
{
	cairo_text_extents_t e;
	cairo_text_extents(cr, t, &e);
	return e.x_advance;
}

static int set_paint(drawer *dw, cairo_t *cr, cm_paint p, int opacity)
{
	if (p == CM_PAINT_NONE || p == CM_PAINT_INHERIT)
		return 0;
	if ((p & 0xf000000u) == 0x3000000u) {
		size_t i = p & 0xffffffu;
		if (i >= dw->s->npat || !dw->pat[i])
			return 0;
		cairo_set_source(cr, dw->pat[i]);
		return 1;
	}
	double a = opacity ? opacity / 100.0 : 1.0;
	cairo_set_source_rgba(cr, ((p >> 16) & 0xff) / 255.0, ((p >> 8) & 0xff) / 255.0, (p & 0xff) / 255.0, a);
	return 1;
}

static void stroke_setup(cairo_t *cr, const cm_style *st)
{
	cairo_set_line_width(cr, (st->stroke_width ? st->stroke_width : 100) / 100.0);
	if (st->dash[0]) {
		double dash[2] = { st->dash[0], st->dash[1] };
		cairo_set_dash(cr, dash, 2, 0);
	} else {
		cairo_set_dash(cr, NULL, 0, 0);
	}
}

static void draw_text_line(drawer *dw, cairo_t *cr, const cm_style *st, double x, double y, const char *raw)
{
	char *t = cm__utf8_clean(raw);
	if (!t) {
		dw->oom = 1;
		return;
	}
	cairo_set_font_face(cr, dw->fo.face[st->bold ? 1 : 0]);
	cairo_set_font_size(cr, st->font_size ? st->font_size : 10);
	double w = st->anchor == CM_ANCHOR_MIDDLE ? text_advance(cr, t) / 2
	           : st->anchor == CM_ANCHOR_END  ? text_advance(cr, t)
	                                          : 0;
	if (st->halo && st->halo != CM_PAINT_NONE) { /* the outline under the letters */
		cairo_move_to(cr, x - w, y);
		cairo_text_path(cr, t);
		set_paint(dw, cr, st->halo, 0);
		cairo_set_line_width(cr, st->halo_width / 100.0);
		cairo_set_line_join(cr, st->halo_round ? CAIRO_LINE_JOIN_ROUND : CAIRO_LINE_JOIN_MITER);
		cairo_set_dash(cr, NULL, 0, 0);
		cairo_stroke(cr);
		cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
	}
	if (set_paint(dw, cr, st->fill ? st->fill : CM_PAINT_RGB(0, 0, 0), st->fill_opacity)) {
		cairo_move_to(cr, x - w, y);
		cairo_show_text(cr, t); /* real text: a PDF's words can be searched */
	}
	free(t);
}

static int visible(const drawer *dw, uint32_t i)
{
	const float *b = &dw->bb[4 * (size_t)i];
	return b[0] <= dw->cx1 && b[2] >= dw->cx0 && b[1] <= dw->cy1 && b[3] >= dw->cy0;
}

static void draw_node(drawer *dw, cairo_t *cr, uint32_t i, const cm_style *inh)
{
	const cm_scene *s = dw->s;
	const cm__snode *n = &s->n[i];
	if (n->kind == SN_BREAK || !visible(dw, i))
		return;
	cm_style st = *inh;
	merge(&st, &s->st[n->style]);
	if (st.overlay)
		return; /* shown by a page's script only */
	if (n->kind == SN_GROUP) {
		cairo_save(cr);
		if (n->has_xf)
			cairo_translate(cr, n->a, n->b);
		for (uint32_t c = n->child; c != CM_NODE_NONE; c = s->n[c].next)
			draw_node(dw, cr, c, &st);
		cairo_restore(cr);
		return;
	}
	if (n->kind == SN_TEXT) {
		const cm__smeta *m = cm__snode_meta(s, n);
		draw_text_line(dw, cr, &st, n->a, n->b, cm__sstr(s, n->str));
		if (m && m->line2)
			draw_text_line(dw, cr, &st, n->a, n->b + m->dy, cm__sstr(s, m->line2));
		return;
	}
	cairo_new_path(cr);
	if (n->kind == SN_RECT) {
		cairo_rectangle(cr, n->a, n->b, n->c, n->d);
	} else if (n->kind == SN_CIRCLE) {
		cairo_new_sub_path(cr);
		cairo_arc(cr, n->a, n->b, n->c / 100.0, 0, 6.283185307179586);
	} else if (n->kind == SN_PATH) {
		path_sink k = { c_move, c_line, c_curve, c_close, cr };
		path_run(cm__sstr(s, n->str), &k);
	} else {
		return;
	}
	/* SVG's defaults: filled black, not stroked */
	if (set_paint(dw, cr, st.fill ? st.fill : CM_PAINT_RGB(0, 0, 0), st.fill_opacity))
		cairo_fill_preserve(cr);
	if (set_paint(dw, cr, st.stroke, st.stroke_opacity)) {
		stroke_setup(cr, &st);
		cairo_stroke_preserve(cr);
	}
	cairo_new_path(cr);
}

/* The bounding boxes of node i and below, in scene units, with room for
 * strokes and halos; text by the generous width estimate. */
static void bound(drawer *dw, uint32_t i, double ox, double oy, const cm_style *inh, box *out)
{
	const cm_scene *s = dw->s;
	const cm__snode *n = &s->n[i];
	cm_style st = *inh;
	merge(&st, &s->st[n->style]);
	box b = { 0 };
	if (n->kind == SN_GROUP || n->kind == SN_PATTERN) {
		double tx = ox + (n->has_xf ? n->a : 0), ty = oy + (n->has_xf ? n->b : 0);
		for (uint32_t c = n->child; c != CM_NODE_NONE; c = s->n[c].next) {
			box cb = { 0 };
			bound(dw, c, tx, ty, &st, &cb);
			if (cb.any) {
				box_add(&b, cb.x0, cb.y0);
				box_add(&b, cb.x1, cb.y1);
			}
		}
	} else if (n->kind == SN_RECT) {
		box_add(&b, ox + n->a, oy + n->b);
		box_add(&b, ox + n->a + n->c, oy + n->b + n->d);
	} else if (n->kind == SN_CIRCLE) {
		box_add(&b, ox + n->a - n->c / 100.0, oy + n->b - n->c / 100.0);
		box_add(&b, ox + n->a + n->c / 100.0, oy + n->b + n->c / 100.0);
	} else if (n->kind == SN_PATH) {
		box pb = { 0 };
		path_sink k = { b_move, b_move, b_curve, b_close, &pb };
		path_run(cm__sstr(s, n->str), &k);
		if (pb.any) {
			box_add(&b, ox + pb.x0, oy + pb.y0);
			box_add(&b, ox + pb.x1, oy + pb.y1);
		}
	} else if (n->kind == SN_TEXT) {
		const cm__smeta *m = cm__snode_meta(s, n);
		int font = st.font_size ? st.font_size : 10;
		long w = cm__text_width(cm__sstr(s, n->str), font);
		if (m && m->line2) {
			long w2 = cm__text_width(cm__sstr(s, m->line2), font);
			w = w2 > w ? w2 : w;
		}
		double wu = w / 100.0 + font, x = ox + n->a;
		box_add(&b, x - wu, oy + n->b - 1.5 * font);
		box_add(&b, x + wu, oy + n->b + 0.5 * font + (m && m->line2 ? m->dy : 0));
	}
	if (b.any && n->kind != SN_GROUP) { /* strokes, halos, miters */
		double pad = 1 + (st.stroke_width > st.halo_width ? st.stroke_width : st.halo_width) / 50.0;
		b.x0 -= pad, b.y0 -= pad, b.x1 += pad, b.y1 += pad;
	}
	float *o = &dw->bb[4 * (size_t)i];
	if (b.any) {
		o[0] = (float)b.x0 - 1, o[1] = (float)b.y0 - 1, o[2] = (float)b.x1 + 1, o[3] = (float)b.y1 + 1;
	} else {
		o[0] = o[1] = 1e30f, o[2] = o[3] = -1e30f;
	}
	*out = b;
}

static void drawer_clear(drawer *dw)
{
	for (size_t i = 0; dw->pat && i < dw->s->npat; i++)
		if (dw->pat[i])
			cairo_pattern_destroy(dw->pat[i]);
	free(dw->pat);
	free(dw->bb);
	fonts_clear(&dw->fo);
}

/* Fonts, bounding boxes and patterns (recorded once, drawn repeated). */
static int drawer_init(drawer *dw, const cm_scene *s, cm_diags *d)
{
	memset(dw, 0, sizeof *dw);
	dw->s = s;
	int rc = fonts_load(&dw->fo, d);
	if (rc)
		return rc;
	dw->bb = malloc(s->nn * 4 * sizeof *dw->bb);
	dw->pat = calloc(s->npat + 1, sizeof *dw->pat);
	if (!dw->bb || !dw->pat) {
		drawer_clear(dw);
		return CM_ENOMEM;
	}
	cm_style none;
	memset(&none, 0, sizeof none);
	box b;
	bound(dw, CM_NODE_ROOT, 0, 0, &none, &b);
	for (size_t i = 0; i < s->npat; i++) {
		const cm__snode *p = &s->n[s->pat[i]];
		bound(dw, s->pat[i], 0, 0, &none, &b);
		cairo_rectangle_t ext = { 0, 0, p->a, p->b };
		cairo_surface_t *rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &ext);
		cairo_t *cr = cairo_create(rec);
		dw->cx0 = -1e30, dw->cy0 = -1e30, dw->cx1 = 1e30, dw->cy1 = 1e30;
		for (uint32_t c = p->child; c != CM_NODE_NONE; c = s->n[c].next)
			draw_node(dw, cr, c, &none);
		cairo_destroy(cr);
		dw->pat[i] = cairo_pattern_create_for_surface(rec);
		cairo_pattern_set_extend(dw->pat[i], CAIRO_EXTEND_REPEAT);
		cairo_surface_destroy(rec);
	}
	return dw->oom ? CM_ENOMEM : 0;
}

/* Draws the scene's units (x0,y0)-(x1,y1) onto cr, whose user space is
 * already the scene's. */
static void draw_window(drawer *dw, cairo_t *cr, double x0, double y0, double x1, double y1)
{
	dw->cx0 = x0, dw->cy0 = y0, dw->cx1 = x1, dw->cy1 = y1;
	cm_style none;
	memset(&none, 0, sizeof none);
	cairo_set_miter_limit(cr, 4); /* SVG's */
	cairo_font_options_t *fo = cairo_font_options_create();
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
	for (uint32_t c = dw->s->n[0].child; c != CM_NODE_NONE; c = dw->s->n[c].next)
		draw_node(dw, cr, c, &none);
}

/* ---- PNG ---- */

typedef struct {
	const cm_scene *s;
	const cm_scene_opts *o;
	cm_diags *d;
	const char *path;
	int w, h;
	drawer dw;
	cairo_surface_t *band;
	uint8_t *row;
	png_structp png;
	png_infop info;
	FILE *f;
} png_job;

static void png_err(png_structp png, png_const_charp msg)
{
	png_job *j = png_get_error_ptr(png);
	cm_diags_add(j->d, CM_SEV_ERROR, NULL, j->path, 0, 0, NULL, "cannot write png: %s", msg ? msg : "error");
	png_longjmp(png, 1);
}

static void png_warn(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static void png_data(png_structp png, png_bytep buf, size_t n)
{
	png_job *j = png_get_io_ptr(png);
	if (fwrite(buf, 1, n, j->f) != n)
		png_error(png, strerror(errno));
}

static void png_flush(png_structp png)
{
	(void)png;
}

/* Draws rows y0.. of the picture into the band and hands them to libpng. */
static void png_band(png_job *j, int y0, int bh)
{
	double k = j->o->px_per_cell / (double)CM_SCENE_CELL;
	cairo_surface_set_device_offset(j->band, 0, -y0);
	cairo_t *cr = cairo_create(j->band);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_scale(cr, k, k);
	draw_window(&j->dw, cr, 0, y0 / k, j->s->w, (y0 + bh) / k);
	cairo_destroy(cr);
	cairo_surface_flush(j->band);
	const unsigned char *px = cairo_image_surface_get_data(j->band);
	int stride = cairo_image_surface_get_stride(j->band);
	for (int y = 0; y < bh; y++) {
		const uint32_t *src = (const uint32_t *)(const void *)(px + (size_t)y * (size_t)stride);
		for (int x = 0; x < j->w; x++) { /* opaque: premultiplied is plain */
			j->row[3 * x] = (uint8_t)(src[x] >> 16);
			j->row[3 * x + 1] = (uint8_t)(src[x] >> 8);
			j->row[3 * x + 2] = (uint8_t)src[x];
		}
		png_write_row(j->png, j->row);
	}
}

/* Rows per band: about 16 MB of pixels. */
#define BAND_BYTES (16u << 20)

static int png_encode(png_job *j)
{
	if (setjmp(png_jmpbuf(j->png)))
		return CM_EIO;
	png_set_write_fn(j->png, j, png_data, png_flush);
	png_set_IHDR(j->png, j->info, (png_uint_32)j->w, (png_uint_32)j->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	/* fixed settings, chosen for speed (README "Pictures"): one cheap
	 * filter and a fast deflate level */
	png_set_compression_level(j->png, 1);
	png_set_filter(j->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
	png_write_info(j->png, j->info);
	int bh = (int)(BAND_BYTES / 4 / (unsigned)j->w);
	bh = bh < 1 ? 1 : bh > j->h ? j->h : bh;
	for (int y = 0; y < j->h; y += bh)
		png_band(j, y, y + bh > j->h ? j->h - y : bh);
	png_write_end(j->png, NULL);
	return j->dw.oom ? CM_ENOMEM : 0;
}

static int write_png(FILE *f, void *arg)
{
	png_job *j = arg;
	j->f = f;
	int bh = (int)(BAND_BYTES / 4 / (unsigned)j->w);
	bh = bh < 1 ? 1 : bh > j->h ? j->h : bh;
	j->band = cairo_image_surface_create(CAIRO_FORMAT_RGB24, j->w, bh);
	j->row = malloc((size_t)j->w * 3);
	if (cairo_surface_status(j->band) != CAIRO_STATUS_SUCCESS || !j->row)
		return CM_ENOMEM;
	j->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, j, png_err, png_warn);
	if (!j->png || !(j->info = png_create_info_struct(j->png)))
		return CM_ENOMEM;
	int rc = png_encode(j);
	return rc ? rc : ferror(f) ? CM_EIO : 0;
}

/* The largest pixels per cell that fit the image limits, or 0. */
static int png_fit(const cm_scene *s)
{
	for (int k = 256; k >= 2; k--) {
		int64_t w = ((int64_t)s->w * k + CM_SCENE_CELL - 1) / CM_SCENE_CELL;
		int64_t h = ((int64_t)s->h * k + CM_SCENE_CELL - 1) / CM_SCENE_CELL;
		if (w <= CM_IMAGE_MAX_SIDE && h <= CM_IMAGE_MAX_SIDE)
			return k;
	}
	return 0;
}

int cm__scene_png(const cm_scene *s, const cm_scene_opts *o, const char *path, cm_diags *d)
{
	if (o->px_per_cell < 2 || o->px_per_cell > 256) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "picture scale %d is outside 2..256", o->px_per_cell);
		return CM_EINVAL;
	}
	int64_t w = ((int64_t)s->w * o->px_per_cell + CM_SCENE_CELL - 1) / CM_SCENE_CELL;
	int64_t h = ((int64_t)s->h * o->px_per_cell + CM_SCENE_CELL - 1) / CM_SCENE_CELL;
	/* drawn and written in bands: the side is the limit, not the pixels */
	if (w < 1 || h < 1 || w > CM_IMAGE_MAX_SIDE || h > CM_IMAGE_MAX_SIDE) {
		int fit = png_fit(s);
		char hint[64] = "";
		if (fit > 0)
			snprintf(hint, sizeof hint, " (a scale of %d pixels per square or less fits)", fit);
		cm_diags_check(d, "CM0341", path, 0, 0, NULL,
		               "picture of %" PRId64 "x%" PRId64 " pixels is over the limit of %d per side%s", w, h,
		               CM_IMAGE_MAX_SIDE, hint);
		return CM_ELIMIT;
	}
	png_job j = { .s = s, .o = o, .d = d, .path = path, .w = (int)w, .h = (int)h };
	int rc = drawer_init(&j.dw, s, d);
	if (!rc)
		rc = cm_write_to(path, write_png, &j, d);
	if (j.png)
		png_destroy_write_struct(&j.png, j.info ? &j.info : NULL);
	if (j.band)
		cairo_surface_destroy(j.band);
	free(j.row);
	drawer_clear(&j.dw);
	return rc;
}

/* ---- PDF ---- */

#define PT_PER_UM (72.0 / 25400.0)
#define SLUG_UM 10000   /* room for crop marks around a sheet */

/* Pages of a poster of a picture pw x ph (µm) on paper w x h. */
static int grid_for(double pw, double ph, double w, double h, int *cols, int *rows)
{
	double step_w = w - 2.0 * CM_POSTER_MARGIN_UM - CM_POSTER_OVERLAP_UM;
	double step_h = h - 2.0 * CM_POSTER_MARGIN_UM - CM_POSTER_OVERLAP_UM;
	if (step_w < 10000 || step_h < 10000)
		return CM_EINVAL;
	double c = (pw - CM_POSTER_OVERLAP_UM) / step_w, r = (ph - CM_POSTER_OVERLAP_UM) / step_h;
	c = c < 1 ? 1 : c;
	r = r < 1 ? 1 : r;
	if (c > 1e6 || r > 1e6)
		c = r = 1e6;
	*cols = (int)c + ((double)(int)c < c);
	*rows = (int)r + ((double)(int)r < r);
	return 0;
}

int cm_scene_poster_grid(const cm_scene *s, const cm_scene_opts *o, int *cols, int *rows, int *landscape)
{
	double pw = (double)s->w * o->cell_um / CM_SCENE_CELL, ph = (double)s->h * o->cell_um / CM_SCENE_CELL;
	int c1, r1, c2, r2;
	if (o->paper_w_um <= 0 || o->paper_h_um <= 0 ||
	    grid_for(pw, ph, o->paper_w_um, o->paper_h_um, &c1, &r1) ||
	    grid_for(pw, ph, o->paper_h_um, o->paper_w_um, &c2, &r2))
		return CM_EINVAL;
	*landscape = (double)c2 * r2 < (double)c1 * r1;
	*cols = *landscape ? c2 : c1;
	*rows = *landscape ? r2 : r1;
	return 0;
}

typedef struct {
	const cm_scene *s;
	const cm_scene_opts *o;
	cm_diags *d;
	drawer dw;
	int cols, rows, landscape;
	double page_w, page_h; /* points */
	double k;              /* points per scene unit */
} pdf_job;

static cairo_status_t pdf_data(void *arg, const unsigned char *data, unsigned int n)
{
	return fwrite(data, 1, n, arg) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* A PDF surface writing to f, w x h points, with fixed metadata: the
 * creation and modification dates of o->epoch, creator, title. */
static cairo_surface_t *pdf_open(FILE *f, double w, double h, const cm_scene_opts *o, const char *title)
{
	cairo_surface_t *pdf = cairo_pdf_surface_create_for_stream(pdf_data, f, w, h);
	char date[32];
	time_t t = (time_t)o->epoch;
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATE_DATE, date);
	cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_MOD_DATE, date);
	cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATOR, o->creator ? o->creator : "carcamap");
	if (title)
		cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_TITLE, title);
	return pdf;
}

/* Finishes the PDF: 0, CM_ENOMEM or CM_EIO. */
static int pdf_close(FILE *f, cairo_t *cr, cairo_surface_t *pdf, int oom)
{
	cairo_status_t st = cairo_status(cr);
	cairo_destroy(cr);
	cairo_surface_finish(pdf);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(pdf);
	cairo_surface_destroy(pdf);
	if (oom || st == CAIRO_STATUS_NO_MEMORY)
		return CM_ENOMEM;
	return st != CAIRO_STATUS_SUCCESS || ferror(f) ? CM_EIO : 0;
}

static void mm_line(cairo_t *cr, double x0, double y0, double x1, double y1)
{
	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1, y1);
	cairo_stroke(cr);
}

static void label(pdf_job *j, cairo_t *cr, double x, double y, double size, int bold, const char *t)
{
	cm_style st = { .font_size = 1, .bold = bold, .fill = CM_PAINT_RGB(0, 0, 0) };
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_scale(cr, size, size);
	draw_text_line(&j->dw, cr, &st, 0, 0, t);
	cairo_restore(cr);
}

/* One sheet of the picture's size: bleed around it, crop marks outside. */
static void pdf_sheet(pdf_job *j, cairo_t *cr)
{
	double b = j->o->bleed_um * PT_PER_UM, slug = SLUG_UM * PT_PER_UM;
	double tw = j->s->w * j->k, th = j->s->h * j->k, o = slug + b;
	cairo_save(cr);
	cairo_rectangle(cr, slug, slug, tw + 2 * b, th + 2 * b);
	cairo_set_source_rgb(cr, 1, 1, 1); /* the picture's white edge, carried into the bleed */
	cairo_fill(cr);
	cairo_translate(cr, o, o);
	cairo_scale(cr, j->k, j->k);
	draw_window(&j->dw, cr, -1e30, -1e30, 1e30, 1e30);
	cairo_restore(cr);
	/* crop marks on the trim lines, starting 3 mm outside the bleed */
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 0.25);
	double gap = b + 3000 * PT_PER_UM;
	double xs[2] = { o, o + tw }, ys[2] = { o, o + th };
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++) {
			double sx = k ? 1 : -1, sy = i ? 1 : -1;
			mm_line(cr, xs[k] + sx * gap, ys[i], xs[k] + sx * o, ys[i]);
			mm_line(cr, xs[k], ys[i] + sy * gap, xs[k], ys[i] + sy * o);
		}
}

/* A small map of the poster in the margin: the page at (c, r) filled. */
static void mini_map(pdf_job *j, cairo_t *cr, double x, double y, double hmax, int c, int r)
{
	double cell = hmax / (j->rows > j->cols ? j->rows : j->cols);
	cairo_set_line_width(cr, 0.3);
	for (int rr = 0; rr < j->rows; rr++)
		for (int cc = 0; cc < j->cols; cc++) {
			cairo_rectangle(cr, x + cc * cell, y + rr * cell, cell, cell);
			if (cc == c && rr == r) {
				cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
				cairo_fill_preserve(cr);
			}
			cairo_set_source_rgb(cr, 0, 0, 0);
			cairo_stroke(cr);
		}
}

/* A registration cross centred at (x, y). */
static void cross(cairo_t *cr, double x, double y)
{
	double a = 2500 * PT_PER_UM;
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 0.3);
	mm_line(cr, x - a, y, x + a, y);
	mm_line(cr, x, y - a, x, y + a);
}

/* Whether node i draws anything in the window set in dw: a leaf whose
 * box meets it, other than the picture's white background. */
static int draws_in(const drawer *dw, uint32_t i)
{
	const cm__snode *n = &dw->s->n[i];
	if (n->kind == SN_BREAK || !visible(dw, i) || dw->s->st[n->style].overlay)
		return 0;
	if (n->kind != SN_GROUP)
		return !(n->kind == SN_RECT && n->a == 0 && n->b == 0 && n->c == dw->s->w && n->d == dw->s->h);
	for (uint32_t c = n->child; c != CM_NODE_NONE; c = dw->s->n[c].next)
		if (draws_in(dw, c))
			return 1;
	return 0;
}

/* Whether page (c, r) of the poster would print nothing of the picture:
 * such pages are left out. */
static int page_blank(pdf_job *j, int c, int r)
{
	double m = CM_POSTER_MARGIN_UM * PT_PER_UM, ov = CM_POSTER_OVERLAP_UM * PT_PER_UM;
	double pw = j->page_w - 2 * m, ph = j->page_h - 2 * m;
	double x0 = c * (pw - ov), y0 = r * (ph - ov);
	j->dw.cx0 = x0 / j->k, j->dw.cy0 = y0 / j->k, j->dw.cx1 = (x0 + pw) / j->k, j->dw.cy1 = (y0 + ph) / j->k;
	return !draws_in(&j->dw, CM_NODE_ROOT);
}

static void pdf_poster_page(pdf_job *j, cairo_t *cr, int c, int r, int page, int pages)
{
	double m = CM_POSTER_MARGIN_UM * PT_PER_UM, ov = CM_POSTER_OVERLAP_UM * PT_PER_UM;
	double pw = j->page_w - 2 * m, ph = j->page_h - 2 * m;
	double x0 = c * (pw - ov), y0 = r * (ph - ov); /* the board window, in points */
	cairo_save(cr);
	cairo_rectangle(cr, m, m, pw, ph);
	cairo_clip(cr);
	cairo_translate(cr, m - x0, m - y0);
	cairo_scale(cr, j->k, j->k);
	draw_window(&j->dw, cr, x0 / j->k, y0 / j->k, (x0 + pw) / j->k, (y0 + ph) / j->k);
	cairo_restore(cr);
	/* assembly: cut along the dashed line on the left (top) and lay the
	 * page over its neighbour, the cut edge on the neighbour's crosses */
	double dash[2] = { 3, 2 };
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 0.4);
	cairo_set_dash(cr, dash, 2, 0);
	if (c > 0)
		mm_line(cr, m + ov, m / 2, m + ov, j->page_h - m / 2);
	if (r > 0)
		mm_line(cr, m / 2, m + ov, j->page_w - m / 2, m + ov);
	cairo_set_dash(cr, NULL, 0, 0);
	if (c + 1 < j->cols) {
		cross(cr, m + pw - ov, m / 2);
		cross(cr, m + pw - ov, j->page_h - m / 2);
	}
	if (r + 1 < j->rows) {
		cross(cr, m / 2, m + ph - ov);
		cross(cr, j->page_w - m / 2, m + ph - ov);
	}
	char *t = cm_asprintf("%s \xc2\xb7 page %d of %d \xc2\xb7 row %d of %d, column %d of %d \xc2\xb7 cut on the "
	                      "dashed lines, lay over the page to the left and above, crosses on the cut edge",
	                      j->s->title ? cm__sstr(j->s, j->s->title) : "carcamap", page, pages, r + 1, j->rows, c + 1,
	                      j->cols);
	if (!t) {
		j->dw.oom = 1;
		return;
	}
	label(j, cr, m, j->page_h - m / 2 + 2, 6, 0, t);
	free(t);
	char rc[32];
	snprintf(rc, sizeof rc, "%d,%d", r + 1, c + 1);
	label(j, cr, m + ov + 3000 * PT_PER_UM, m - 3000 * PT_PER_UM, 10, 1, rc);
	double mh = m - 3000 * PT_PER_UM;
	double mw = mh * j->cols / (j->rows > j->cols ? j->rows : j->cols);
	mini_map(j, cr, (j->page_w - mw) / 2, 1500 * PT_PER_UM, mh, c, r);
}

/* The first page: the whole picture, the pages drawn over it. */
static void pdf_assembly(pdf_job *j, cairo_t *cr, int pages)
{
	double m = CM_POSTER_MARGIN_UM * PT_PER_UM, ov = CM_POSTER_OVERLAP_UM * PT_PER_UM;
	double pw = j->page_w - 2 * m, ph = j->page_h - 2 * m, head = 46;
	double step_w = pw - ov, step_h = ph - ov;
	int blanks = j->cols * j->rows - (pages - 1);
	double full_w = j->s->w * j->k, full_h = j->s->h * j->k;
	double poster_w = (j->cols - 1) * step_w + pw, poster_h = (j->rows - 1) * step_h + ph;
	double f = pw / poster_w < (ph - head) / poster_h ? pw / poster_w : (ph - head) / poster_h;
	char *t = cm_asprintf("%s: poster of %d pages after this one", j->s->title ? cm__sstr(j->s, j->s->title) : "carcamap",
	                      pages - 1);
	char *t2 = cm_asprintf("%d\xc3\x97%d pages%s, square %.1f mm, overlap %d mm. Print every page at 100%% (no "
	                       "fit to page).",
	                       j->cols, j->rows, blanks ? " (the grey ones blank: not printed)" : "",
	                       j->o->cell_um / 1000.0, CM_POSTER_OVERLAP_UM / 1000);
	if (!t || !t2) {
		free(t);
		free(t2);
		j->dw.oom = 1;
		return;
	}
	label(j, cr, m, m + 12, 11, 1, t);
	label(j, cr, m, m + 25, 7, 0, t2);
	free(t);
	free(t2);
	label(j, cr, m, m + 35, 7, 0,
	      "Cut each page on its dashed lines and lay it over its neighbours to the left and above, the cut edges "
	      "on the crosses.");
	cairo_save(cr);
	cairo_translate(cr, m, m + head);
	cairo_scale(cr, f, f);
	cairo_save(cr);
	cairo_rectangle(cr, 0, 0, full_w, full_h);
	cairo_clip(cr);
	cairo_scale(cr, j->k, j->k);
	draw_window(&j->dw, cr, -1e30, -1e30, 1e30, 1e30);
	cairo_restore(cr);
	cairo_set_line_width(cr, 1.0 / f);
	for (int r = 0; r < j->rows; r++)
		for (int c = 0; c < j->cols; c++) {
			int blank = blanks && page_blank(j, c, r);
			cairo_rectangle(cr, c * step_w, r * step_h, pw, ph);
			if (blank) {
				cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.35);
				cairo_fill(cr);
				continue;
			}
			cairo_set_source_rgba(cr, 0.8, 0, 0, 0.8);
			cairo_stroke(cr);
			char n[32];
			snprintf(n, sizeof n, "%d,%d", r + 1, c + 1);
			cairo_save(cr);
			cairo_translate(cr, c * step_w + 4 / f, r * step_h + 14 / f);
			cairo_scale(cr, 1 / f, 1 / f);
			label(j, cr, 0, 0, 12, 1, n);
			cairo_restore(cr);
		}
	cairo_restore(cr);
}

static int pdf_write(FILE *f, void *arg)
{
	pdf_job *j = arg;
	cairo_surface_t *pdf = pdf_open(f, j->page_w, j->page_h, j->o, cm__sstr(j->s, j->s->title));
	cairo_t *cr = cairo_create(pdf);
	if (!j->o->paper_w_um) {
		pdf_sheet(j, cr);
		cairo_show_page(cr);
	} else {
		int pages = 1;
		for (int r = 0; r < j->rows; r++)
			for (int c = 0; c < j->cols; c++)
				pages += !page_blank(j, c, r);
		pdf_assembly(j, cr, pages);
		cairo_show_page(cr);
		for (int r = 0, page = 2; r < j->rows; r++)
			for (int c = 0; c < j->cols; c++) {
				if (page_blank(j, c, r))
					continue;
				pdf_poster_page(j, cr, c, r, page++, pages);
				cairo_show_page(cr);
			}
	}
	return pdf_close(f, cr, pdf, j->dw.oom);
}

int cm__scene_pdf(const cm_scene *s, const cm_scene_opts *o, const char *path, cm_diags *d)
{
	if (o->cell_um < 1000 || o->cell_um > 1000000 || o->bleed_um < 0 || o->bleed_um > 50000 ||
	    o->paper_w_um < 0 || o->paper_h_um < 0) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL,
		             "a square of 1 to 1000 mm, a bleed of 0 to 50 mm and a paper size are needed for a pdf");
		return CM_EINVAL;
	}
	pdf_job j = { .s = s, .o = o, .d = d, .k = (double)o->cell_um / CM_SCENE_CELL * PT_PER_UM };
	if (!o->paper_w_um) {
		double side = ((s->w > s->h ? s->w : s->h) * (double)o->cell_um / CM_SCENE_CELL) + 2.0 * (o->bleed_um + SLUG_UM);
		if (side > CM_SHEET_MAX_UM) {
			cm_diags_check(d, "CM0342", path, 0, 0, NULL,
			               "a sheet of %.0f mm a side is over the limit of %d mm: print it as a poster (--paper) "
			               "or with a smaller square",
			               side / 1000, CM_SHEET_MAX_UM / 1000);
			return CM_ELIMIT;
		}
		j.page_w = (s->w * (double)o->cell_um / CM_SCENE_CELL + 2.0 * (o->bleed_um + SLUG_UM)) * PT_PER_UM;
		j.page_h = (s->h * (double)o->cell_um / CM_SCENE_CELL + 2.0 * (o->bleed_um + SLUG_UM)) * PT_PER_UM;
	} else {
		if (cm_scene_poster_grid(s, o, &j.cols, &j.rows, &j.landscape)) {
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL,
			             "the paper is too small: it must hold %d mm margins and the %d mm overlap with room to spare",
			             CM_POSTER_MARGIN_UM / 1000, CM_POSTER_OVERLAP_UM / 1000);
			return CM_EINVAL;
		}
		double pages = (double)j.cols * j.rows + 1;
		if (pages > CM_POSTER_MAX_PAGES) {
			cm_diags_check(d, "CM0342", path, 0, 0, NULL,
			               "a poster of %.0f pages (%d\xc3\x97%d and the assembly page) is over the limit of %d "
			               "pages: use a smaller --square-mm or a larger --paper",
			               pages, j.cols, j.rows, CM_POSTER_MAX_PAGES);
			return CM_ELIMIT;
		}
		j.page_w = (j.landscape ? o->paper_h_um : o->paper_w_um) * PT_PER_UM;
		j.page_h = (j.landscape ? o->paper_w_um : o->paper_h_um) * PT_PER_UM;
	}
	int rc = drawer_init(&j.dw, s, d);
	if (!rc)
		rc = cm_write_to(path, pdf_write, &j, d);
	drawer_clear(&j.dw);
	return rc;
}

/* ---- pages of their own (tile sheets) ---- */

typedef struct {
	cm_scene *const *pages;
	size_t n;
	int x_um, y_um;
	const cm_scene_opts *o;
	drawer *dw; /* one per page */
	double k;
} pages_job;

static int pages_write(FILE *f, void *arg)
{
	pages_job *j = arg;
	cairo_surface_t *pdf = pdf_open(f, j->o->paper_w_um * PT_PER_UM, j->o->paper_h_um * PT_PER_UM, j->o,
	                                j->n ? cm__sstr(j->pages[0], j->pages[0]->title) : NULL);
	cairo_t *cr = cairo_create(pdf);
	int oom = 0;
	for (size_t i = 0; i < j->n; i++) {
		cairo_save(cr);
		cairo_translate(cr, j->x_um * PT_PER_UM, j->y_um * PT_PER_UM);
		cairo_scale(cr, j->k, j->k);
		draw_window(&j->dw[i], cr, -1e30, -1e30, 1e30, 1e30);
		cairo_restore(cr);
		cairo_show_page(cr);
		oom |= j->dw[i].oom;
	}
	return pdf_close(f, cr, pdf, oom);
}

int cm__scene_pdf_pages(cm_scene *const *pages, size_t n, int x_um, int y_um, const cm_scene_opts *o,
                        const char *path, cm_diags *d)
{
	pages_job j = { pages, n, x_um, y_um, o, calloc(n + 1, sizeof(drawer)),
		        (double)o->cell_um / CM_SCENE_CELL * PT_PER_UM };
	if (!j.dw)
		return CM_ENOMEM;
	int rc = 0;
	size_t done = 0;
	for (; done < n && !rc; done++) {
		rc = pages[done]->oom ? CM_ENOMEM : drawer_init(&j.dw[done], pages[done], d);
		if (rc)
			break;
	}
	if (!rc)
		rc = cm_write_to(path, pages_write, &j, d);
	for (size_t i = 0; i < done; i++)
		drawer_clear(&j.dw[i]);
	free(j.dw);
	return rc;
}
