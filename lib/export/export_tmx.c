/* SPDX-License-Identifier: MIT */
/* export_tmx.c: the Tiled TMX export (schemas/export-tmx.md): an orthogonal
 * map whose tile layer of square kinds uses the one shared kinds tileset
 * (carcamap-kinds.tsx, written by cm_export_tmx_kinds in the project
 * palette), object layers for everything else, and setup, deck and rules as
 * map properties, named by carcamap/tmx.h's one table of TMX names.
 * lib/io/tmx.c reads it back. Built in memory with libxml2's writer, then
 * written to the caller's stream whole (nothing on a refusal); the kinds
 * tileset's files go through the atomic writer (cm_write_to). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/xmlwriter.h>
#include "carcamap/palette.h"
#include "carcamap/tmx.h"
#include "export/export_int.h"
#include "base/util_int.h"
#include "model/tilenote_int.h"
#include "model/map_struct_int.h"

#define TS 32 /* tile size in pixels */

/* ---- the kinds tileset: one swatch per square kind ---- */

static void png_error_fn(png_structp png, png_const_charp msg)
{
	(void)msg;
	png_longjmp(png, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

/* Swatches side by side in cm_palette_square, each with a darker
 * one-pixel frame so that neighbouring squares of one kind stay apart. */
static int write_png(FILE *f, void *arg)
{
	(void)arg;
	enum { W = TS * CM_SQ_KIND_COUNT };
	static unsigned char rows[TS][W * 4];
	for (int y = 0; y < TS; y++)
		for (int x = 0; x < W; x++) {
			cm_rgb c = cm_palette_square((cm_square_kind)(x / TS));
			unsigned char v[4] = { c.r, c.g, c.b, 255 };
			int tx = x % TS;
			bool frame = tx == 0 || y == 0 || tx == TS - 1 || y == TS - 1;
			for (int k = 0; k < 4; k++)
				rows[y][x * 4 + k] = (unsigned char)(frame && k < 3 ? v[k] * 7 / 10 : v[k]);
		}
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_fn,
	                                          png_warning_fn);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	int rc = CM_ENOMEM;
	if (!info)
		goto out;
	rc = CM_EIO;
	if (setjmp(png_jmpbuf(png)))
		goto out;
	png_init_io(png, f);
	png_set_IHDR(png, info, W, TS, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (int y = 0; y < TS; y++)
		png_write_row(png, rows[y]);
	png_write_end(png, NULL);
	rc = 0;
out:
	png_destroy_write_struct(&png, &info);
	return rc;
}

/* ---- the writer ---- */

typedef struct {
	xmlTextWriterPtr w;
	const cm_map *m;
	int next_id;  /* object ids, from 1 */
	int err;      /* a writer call failed */
	const char *bad; /* text that XML cannot carry */
} tmx;

/* Text that is not UTF-8 or holds control characters cannot go into XML 1.0. */
static bool xml_text_ok(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			return false;
	return xmlCheckUTF8((const xmlChar *)s) != 0;
}

static void start(tmx *t, const char *el)
{
	if (xmlTextWriterStartElement(t->w, (const xmlChar *)el) < 0)
		t->err = 1;
}

static void end(tmx *t)
{
	if (xmlTextWriterEndElement(t->w) < 0)
		t->err = 1;
}

static void attr(tmx *t, const char *name, const char *v)
{
	if (!xml_text_ok(v))
		t->bad = v;
	else if (xmlTextWriterWriteAttribute(t->w, (const xmlChar *)name, (const xmlChar *)v) < 0)
		t->err = 1;
}

static void attr_int(tmx *t, const char *name, long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", v);
	attr(t, name, buf);
}

/* <property name= [type=] value=/>; type NULL for strings. Only Tiled's
 * own types: a custom property type (propertytype=) lives in a Tiled
 * project the TMX cannot carry, and Tiled opening the TMX alone reports it
 * unrecognized and drops it on saving. */
static void prop_full(tmx *t, const char *name, const char *type, const char *v)
{
	start(t, "property");
	attr(t, "name", name);
	if (type)
		attr(t, "type", type);
	attr(t, "value", v);
	end(t);
}

static void prop(tmx *t, const char *name, const char *v)
{
	prop_full(t, name, NULL, v);
}

static void prop_int(tmx *t, const char *name, long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", v);
	prop_full(t, name, "int", buf);
}

static void prop_bool(tmx *t, const char *name, bool v)
{
	prop_full(t, name, "bool", v ? "true" : "false");
}

/* <object id= [name=] x= y= [width= height=]>, left open */
static void object(tmx *t, const char *name, long x, long y, long w, long h)
{
	start(t, "object");
	attr_int(t, "id", t->next_id++);
	if (name && *name)
		attr(t, "name", name);
	attr_int(t, "x", x);
	attr_int(t, "y", y);
	if (w || h) {
		attr_int(t, "width", w);
		attr_int(t, "height", h);
	}
}

static void group(tmx *t, int id, const char *name)
{
	start(t, "objectgroup");
	attr_int(t, "id", id);
	attr(t, "name", name);
}

static void points(tmx *t, const char *el, const char *pts)
{
	start(t, el);
	attr(t, "points", pts);
	end(t);
}

/* The deck as "SET; SET TILE COUNT; …" (schemas/export-tmx.md), in one
 * growing buffer (not the whole string copied again per entry); NULL when
 * out of memory. */
static char *deck_text(const cm_map *m)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	bool ok = true;
	for (size_t i = 0; ok && i < m->n_deck; i++) {
		const cm_deck_entry *e = &m->deck[i];
		ok = (e->tile ? fprintf(f, "%s%s %s %d", i ? "; " : "", e->tileset, e->tile, e->count)
		              : fprintf(f, "%s%s", i ? "; " : "", e->tileset)) >= 0;
	}
	if (fclose(f) || !ok) {
		free(s);
		return NULL;
	}
	return s;
}

static void map_properties(tmx *t)
{
	const cm_map *m = t->m;
	const cm_rules *r = &m->rules;
	start(t, "properties");
	prop(t, CM_TMX_PROP_FORMAT, CM_TMX_FORMAT);
	prop(t, CM_TMX_PROP_VERSION, CM_TMX_VERSION);
	prop(t, CM_TMX_PROP_ID, m->id ? m->id : "");
	prop(t, CM_TMX_PROP_NAME, m->name ? m->name : "");
	for (int i = 0; i < CM_ABOUT_FIELDS; i++) { /* only the fields given */
		char name[32];
		snprintf(name, sizeof name, CM_TMX_PROP_ABOUT "%s", cm_about_name(i));
		if (cm_about_get(&m->about, i))
			prop(t, name, cm_about_get(&m->about, i));
	}
	prop_int(t, CM_TMX_PROP_STARTS, m->setup.starts_used);
	prop_int(t, CM_TMX_PROP_TILES_MIN, m->setup.tiles_min);
	prop_int(t, CM_TMX_PROP_TILES_MAX, m->setup.tiles_max);
	prop_int(t, CM_TMX_PROP_FOLLOWERS, m->setup.followers);
	char *deck = deck_text(m);
	if (!deck)
		t->err = 1;
	else
		prop(t, CM_TMX_PROP_DECK, deck);
	free(deck);
	for (size_t i = 0; i < cm_rule_option_count(); i++) { /* the table's options (rules.c) */
		const cm_rule_option *o = cm_rule_option_get(i);
		int v = cm_rules_get(r, i);
		char name[64];
		if (!o->in_map)
			continue;
		snprintf(name, sizeof name, CM_TMX_PROP_RULES "%s", o->key);
		if (o->kind == CM_RULE_SWITCH)
			prop_bool(t, name, v != 0);
		else /* edition and farmers: plain strings (issue 33.8: a property
		      * type of a project the TMX cannot carry is an error in Tiled) */
			prop(t, name, cm_rules_value_name(i, v, false));
	}
	end(t);
}

/* Tile layer: gid 1 + kind per square, CSV one row per line. */
static void squares_layer(tmx *t)
{
	const cm_map *m = t->m;
	start(t, "layer");
	attr(t, "id", "1");
	attr(t, "name", CM_TMX_LAYER_SQUARES);
	attr_int(t, "width", m->cols);
	attr_int(t, "height", m->rows);
	start(t, "data");
	attr(t, "encoding", "csv");
	size_t cap = (size_t)m->cols * (size_t)m->rows * 3 + (size_t)m->rows + 2, n = 0;
	char *csv = malloc(cap);
	if (!csv) {
		t->err = 1;
		return;
	}
	csv[n++] = '\n';
	for (int y = 0; y < m->rows; y++) {
		for (int x = 0; x < m->cols; x++) {
			csv[n++] = (char)('1' + cm__map_at(m, x, y)->kind);
			if (x + 1 < m->cols || y + 1 < m->rows)
				csv[n++] = ',';
		}
		csv[n++] = '\n';
	}
	csv[n] = '\0';
	if (xmlTextWriterWriteString(t->w, (const xmlChar *)csv) < 0)
		t->err = 1;
	free(csv);
	end(t);
	end(t);
}

/* ---- big cities: their outline as a polygon, one rectangle per piece ---- */

/* The outline of the union of the pieces' squares: the boundary edges
 * (clockwise around each square, those shared by two pieces dropped)
 * chained into loops; the longest loop (the outer one) as "x,y x,y …"
 * relative to (ox,oy), collinear corners left out. */
static char *outline(const cm_bigcity *b, long *ox, long *oy)
{
	size_t n = b->n_pieces;
	typedef struct {
		int x0, y0, x1, y1;
		bool used;
	} edge;
	edge *e = calloc(4 * n + 1, sizeof *e);
	int *loop = calloc(8 * n + 2, sizeof *loop), *best = calloc(8 * n + 2, sizeof *best);
	char *out = NULL;
	size_t ne = 0, nbest = 0;
	if (!e || !loop || !best)
		goto done;
	for (size_t i = 0; i < n; i++) {
		int x = b->pieces[i].x, y = b->pieces[i].y;
		int c[5][2] = { { x, y }, { x + 1, y }, { x + 1, y + 1 }, { x, y + 1 }, { x, y } };
		for (int s = 0; s < 4; s++) {
			/* an edge shared with another piece is inside */
			int nx = x + (s == 1) - (s == 3), ny = y + (s == 2) - (s == 0);
			bool inside = false;
			for (size_t k = 0; k < n && !inside; k++)
				inside = b->pieces[k].x == nx && b->pieces[k].y == ny;
			if (!inside)
				e[ne++] = (edge){ c[s][0], c[s][1], c[s + 1][0], c[s + 1][1], false };
		}
	}
	for (size_t s = 0; s < ne; s++) {
		if (e[s].used)
			continue;
		size_t len = 0;
		size_t cur = s;
		while (!e[cur].used) {
			e[cur].used = true;
			loop[2 * len] = e[cur].x0;
			loop[2 * len + 1] = e[cur].y0;
			len++;
			size_t nx = ne;
			for (size_t k = 0; k < ne; k++)
				if (!e[k].used && e[k].x0 == e[cur].x1 && e[k].y0 == e[cur].y1) {
					nx = k;
					break;
				}
			if (nx == ne)
				break;
			cur = nx;
		}
		if (len > nbest) {
			memcpy(best, loop, 2 * len * sizeof *loop);
			nbest = len;
		}
	}
	if (!nbest)
		goto done;
	*ox = (long)best[0] * TS;
	*oy = (long)best[1] * TS;
	out = cm_strdup("");
	for (size_t i = 0; out && i < nbest; i++) {
		size_t p = (i + nbest - 1) % nbest, q = (i + 1) % nbest;
		bool straight = (best[2 * p] == best[2 * i] && best[2 * i] == best[2 * q]) ||
		                (best[2 * p + 1] == best[2 * i + 1] && best[2 * i + 1] == best[2 * q + 1]);
		if (straight && i)
			continue;
		char *nw = cm_asprintf("%s%s%ld,%ld", out, *out ? " " : "", (long)best[2 * i] * TS - *ox,
		                       (long)best[2 * i + 1] * TS - *oy);
		free(out);
		out = nw;
	}
done:
	free(e);
	free(loop);
	free(best);
	return out;
}

static void bigcities_group(tmx *t)
{
	const cm_map *m = t->m;
	group(t, 2, CM_TMX_LAYER_BIGCITIES);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *b = &m->bigcities[i];
		long ox = 0, oy = 0;
		char *pts = b->n_pieces ? outline(b, &ox, &oy) : NULL;
		if (!pts) {
			t->err = 1;
			continue;
		}
		object(t, b->name, ox, oy, 0, 0);
		points(t, "polygon", pts);
		end(t);
		free(pts);
	}
	end(t);
	group(t, 3, CM_TMX_LAYER_PIECES);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *b = &m->bigcities[i];
		for (size_t k = 0; k < b->n_pieces; k++) {
			const cm_bigcity_piece *p = &b->pieces[k];
			object(t, NULL, (long)p->x * TS, (long)p->y * TS, TS, TS);
			char *note = cm_tilenote_format(&p->tile);
			start(t, "properties");
			if (!note)
				t->err = 1;
			else
				prop(t, CM_TMX_PROP_FEATURES, note);
			free(note);
			end(t);
			end(t);
		}
	}
	end(t);
}

/* ---- edge prints and ferries ---- */

/* Start corner of side e of square (x,y), and whether it runs down. */
static void side_segment(int x, int y, int e, long *px, long *py, bool *vertical)
{
	*px = (long)(x + (e == CM_E)) * TS;
	*py = (long)(y + (e == CM_S)) * TS;
	*vertical = e == CM_E || e == CM_W;
}

/* A print the reader's default would not give (schemas/map.md). */
static bool print_written(const cm_edge_print *p, const char *label)
{
	return p->kind == CM_PRINT_ROAD || p->kind == CM_PRINT_CITY ||
	       (p->kind == CM_PRINT_NEUTRAL && (label || p->arms));
}

/* Row-major indices of the squares with any edge print, so that the three
 * print groups visit those, not every square of the grid three times. */
typedef struct {
	size_t *v;
	size_t n;
} printed;

static int printed_find(const cm_map *m, printed *out)
{
	size_t n_sq = (size_t)m->cols * (size_t)m->rows, n = 0;
	for (size_t i = 0; i < n_sq; i++) {
		const cm_edge_print *p = m->squares[i].print;
		n += (p[0].kind | p[1].kind | p[2].kind | p[3].kind) != CM_PRINT_NONE;
	}
	out->n = 0;
	out->v = n ? malloc(n * sizeof *out->v) : NULL;
	if (n && !out->v)
		return CM_ENOMEM;
	for (size_t i = 0; i < n_sq; i++) {
		const cm_edge_print *p = m->squares[i].print;
		if ((p[0].kind | p[1].kind | p[2].kind | p[3].kind) != CM_PRINT_NONE)
			out->v[out->n++] = i;
	}
	return 0;
}

static void prints_group(tmx *t, const printed *pr, int id, const char *name, cm_print_kind kind)
{
	const cm_map *m = t->m;
	group(t, id, name);
	for (size_t i = 0; i < pr->n; i++) {
		int x = (int)(pr->v[i] % (size_t)m->cols), y = (int)(pr->v[i] / (size_t)m->cols);
		for (int e = 0; e < 4; e++) {
			const cm_edge_print *p = &cm__map_at(m, x, y)->print[e];
			if (p->kind != kind)
				continue;
			const char *label = cm_map_print_label(m, x, y, (cm_side)e);
			if (!print_written(p, label))
				continue;
			long px, py;
			bool vertical;
			side_segment(x, y, e, &px, &py, &vertical);
			object(t, label, px, py, 0, 0);
			start(t, "properties");
			prop_int(t, CM_TMX_PROP_ARMS, p->arms);
			end(t);
			points(t, "polyline", vertical ? "0,0 0,32" : "0,0 32,0");
			end(t);
		}
	}
	end(t);
}

/* Middle of side e of square (x,y), in pixels. */
static void side_middle(int x, int y, int e, long *px, long *py)
{
	long h = TS / 2;
	*px = (long)x * TS + (e == CM_E ? TS : e == CM_W ? 0 : h);
	*py = (long)y * TS + (e == CM_S ? TS : e == CM_N ? 0 : h);
}

static void ferries_group(tmx *t)
{
	const cm_map *m = t->m;
	group(t, 7, CM_TMX_LAYER_FERRIES);
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		long ax, ay, bx, by;
		side_middle(f->x1, f->y1, f->s1, &ax, &ay);
		side_middle(f->x2, f->y2, f->s2, &bx, &by);
		object(t, f->name, ax, ay, 0, 0);
		start(t, "properties");
		prop_int(t, CM_TMX_PROP_ARMS, f->arms);
		end(t);
		char pts[64];
		snprintf(pts, sizeof pts, "0,0 %ld,%ld", bx - ax, by - ay);
		points(t, "polyline", pts);
		end(t);
	}
	end(t);
}

/* ---- islands, names, markers ---- */

static void islands_group(tmx *t)
{
	const cm_map *m = t->m;
	/* each island's point on its first square in row-major order, found
	 * in one pass over the grid (an island without squares: the origin's) */
	size_t n_sq = (size_t)m->cols * (size_t)m->rows;
	size_t *first = m->n_islands ? malloc(m->n_islands * sizeof *first) : NULL;
	if (m->n_islands && !first)
		t->err = 1;
	for (size_t i = 0; first && i < m->n_islands; i++)
		first[i] = n_sq;
	for (size_t k = 0; first && k < n_sq; k++) {
		int32_t is = m->squares[k].island;
		if (is >= 0 && (size_t)is < m->n_islands && first[is] == n_sq)
			first[is] = k;
	}
	group(t, 8, CM_TMX_LAYER_ISLANDS);
	for (size_t i = 0; first && i < m->n_islands; i++) {
		const cm_island *is = &m->islands[i];
		long px = TS / 2, py = TS / 2;
		if (first[i] < n_sq) {
			px = (long)(first[i] % (size_t)m->cols) * TS + TS / 2;
			py = (long)(first[i] / (size_t)m->cols) * TS + TS / 2;
		}
		object(t, is->name, px, py, 0, 0);
		start(t, "properties");
		prop(t, CM_TMX_PROP_TITLE, is->title ? is->title : "");
		end(t);
		start(t, "point");
		end(t);
		end(t);
	}
	end(t);
	free(first);
	group(t, 9, CM_TMX_LAYER_ISLAND_SQUARES);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *s = cm__map_at(m, x, y);
			if (s->island < 0)
				continue;
			object(t, m->islands[s->island].name, (long)x * TS, (long)y * TS, TS, TS);
			start(t, "properties");
			prop_int(t, CM_TMX_PROP_ARMS, s->arms);
			end(t);
			end(t);
		}
	end(t);
}

/* Characters (not bytes) of the longest word of s. */
static long longest_word(const char *s)
{
	long best = 0, cur = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == ' ') {
			cur = 0;
			continue;
		}
		if ((*p & 0xC0) != 0x80 && ++cur > best)
			best = cur;
	}
	return best;
}

static void names_group(tmx *t)
{
	const cm_map *m = t->m;
	group(t, 10, CM_TMX_LAYER_NAMES);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const char *name = cm_map_square_name(m, x, y);
			if (!name)
				continue;
			/* wide enough for the longest word at 8 px: Tiled breaks
			 * lines only between words then; centred on the square */
			long w = longest_word(name) * 6 + 4;
			w = w < TS ? TS : w + (w & 1);
			object(t, NULL, (long)x * TS + TS / 2 - w / 2, (long)y * TS, w, TS);
			start(t, "text");
			attr(t, "pixelsize", "8");
			attr(t, "wrap", "1");
			attr(t, "halign", "center");
			attr(t, "valign", "center");
			if (!xml_text_ok(name))
				t->bad = name;
			else if (xmlTextWriterWriteString(t->w, (const xmlChar *)name) < 0)
				t->err = 1;
			end(t);
			end(t);
		}
	end(t);
	group(t, 11, CM_TMX_LAYER_MARKERS);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			size_t n_markers;
			const char *const *markers = cm_map_square_markers(m, x, y, &n_markers);
			for (size_t k = 0; k < n_markers; k++) {
				object(t, markers[k], (long)x * TS + TS / 2, (long)y * TS + 3 * TS / 4, 0, 0);
				start(t, "point");
				end(t);
				end(t);
			}
		}
	end(t);
}

static int build_tmx(const cm_map *m, const char *kinds, int next_id, xmlBufferPtr xb, int *n_ids,
                     const char **bad)
{
	tmx t = { .m = m, .next_id = 1 };
	t.w = xmlNewTextWriterMemory(xb, 0);
	if (!t.w)
		return CM_ENOMEM;
	xmlTextWriterSetIndent(t.w, 1);
	xmlTextWriterSetIndentString(t.w, (const xmlChar *)" ");
	if (xmlTextWriterStartDocument(t.w, "1.0", "UTF-8", NULL) < 0)
		t.err = 1;
	start(&t, "map");
	attr(&t, "version", "1.8");
	attr(&t, "tiledversion", "1.8.2");
	attr(&t, "orientation", "orthogonal");
	attr(&t, "renderorder", "right-down");
	attr_int(&t, "width", m->cols);
	attr_int(&t, "height", m->rows);
	attr_int(&t, "tilewidth", TS);
	attr_int(&t, "tileheight", TS);
	attr(&t, "infinite", "0");
	attr(&t, "nextlayerid", "12");
	attr_int(&t, "nextobjectid", next_id);
	map_properties(&t);
	start(&t, "tileset");
	attr(&t, "firstgid", "1");
	attr(&t, "source", kinds);
	end(&t);
	squares_layer(&t);
	bigcities_group(&t);
	printed pr;
	if (printed_find(m, &pr))
		t.err = 1;
	prints_group(&t, &pr, 4, CM_TMX_LAYER_PRINTS_ROAD, CM_PRINT_ROAD);
	prints_group(&t, &pr, 5, CM_TMX_LAYER_PRINTS_CITY, CM_PRINT_CITY);
	prints_group(&t, &pr, 6, CM_TMX_LAYER_PRINTS_NEUTRAL, CM_PRINT_NEUTRAL);
	free(pr.v);
	ferries_group(&t);
	islands_group(&t);
	names_group(&t);
	end(&t);
	if (xmlTextWriterEndDocument(t.w) < 0)
		t.err = 1;
	xmlFreeTextWriter(t.w);
	*bad = t.bad;
	*n_ids = t.next_id;
	return t.bad ? CM_EINVAL : t.err ? CM_ENOMEM : 0;
}

static int write_buf(FILE *f, void *arg)
{
	xmlBufferPtr xb = arg;
	size_t n = (size_t)xmlBufferLength(xb);
	return fwrite(xmlBufferContent(xb), 1, n, f) == n ? 0 : CM_EIO;
}

/* The document with its nextobjectid value put in: the bytes before the
 * placeholder value, the value, the bytes after it. */
typedef struct {
	const char *doc;
	size_t head, tail_at, len; /* head bytes, then the value, then doc[tail_at..len) */
	char value[32];
} spliced;

static int write_spliced(FILE *f, void *arg)
{
	const spliced *sp = arg;
	size_t v = strlen(sp->value), tail = sp->len - sp->tail_at;
	return fwrite(sp->doc, 1, sp->head, f) == sp->head && fwrite(sp->value, 1, v, f) == v &&
	               fwrite(sp->doc + sp->tail_at, 1, tail, f) == tail
	           ? 0
	           : CM_EIO;
}

int cm_export_tmx(const cm_map *m, const cm_export_opts *o, FILE *f, cm_diags *d)
{
	/* every map but a partial one passed the model's checker when built */
	if (m->partial) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, m->file, 0, 0, NULL,
		             "map %s failed its checks: a partial map is not exported", m->id ? m->id : "?");
		return CM_EINVAL;
	}
	int rc = 0;
	const char *ref = o && o->kinds ? o->kinds : CM_TMX_KINDS;
	xmlBufferPtr xb = xmlBufferCreate();
	const char *bad = NULL;
	int ids = 1;
	if (!xb) {
		rc = CM_ENOMEM;
		goto out;
	}
	/* nextobjectid comes first but is known only at the end: the document
	 * is built once with 0 there, and the count goes in as it is written */
	rc = build_tmx(m, ref, 0, xb, &ids, &bad);
	if (rc) {
		if (bad)
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, m->id,
			             "text is not valid utf-8 or holds control characters: \"%s\"", bad);
		goto out;
	}
	/* the map's start tag, before any text of the map's own */
	static const char mark[] = " nextobjectid=\"0\"";
	spliced sp = { .doc = (const char *)xmlBufferContent(xb), .len = (size_t)xmlBufferLength(xb) };
	const char *at = strstr(sp.doc, mark);
	if (!at) { /* cannot happen: the writer puts the attribute there */
		rc = CM_EINVAL;
		goto out;
	}
	sp.head = (size_t)(at - sp.doc) + sizeof mark - 3; /* up to the opening quote */
	sp.tail_at = sp.head + 1;                          /* past the 0 */
	snprintf(sp.value, sizeof sp.value, "%d", ids);
	rc = write_spliced(f, &sp);
out:
	xmlBufferFree(xb);
	return rc;
}

/* ---- the shared kinds tileset ---- */

static int build_tsx(xmlBufferPtr xb)
{
	tmx t = { 0 };
	t.w = xmlNewTextWriterMemory(xb, 0);
	if (!t.w)
		return CM_ENOMEM;
	xmlTextWriterSetIndent(t.w, 1);
	xmlTextWriterSetIndentString(t.w, (const xmlChar *)" ");
	if (xmlTextWriterStartDocument(t.w, "1.0", "UTF-8", NULL) < 0)
		t.err = 1;
	start(&t, "tileset");
	attr(&t, "version", "1.8");
	attr(&t, "tiledversion", "1.8.2");
	attr(&t, "name", "carcamap-kinds");
	attr_int(&t, "tilewidth", TS);
	attr_int(&t, "tileheight", TS);
	attr_int(&t, "tilecount", CM_SQ_KIND_COUNT);
	attr_int(&t, "columns", CM_SQ_KIND_COUNT);
	start(&t, "image");
	attr(&t, "source", CM_TMX_KINDS_PNG);
	attr_int(&t, "width", TS * CM_SQ_KIND_COUNT);
	attr_int(&t, "height", TS);
	end(&t);
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++) {
		start(&t, "tile");
		attr_int(&t, "id", k);
		start(&t, "properties");
		prop(&t, CM_TMX_PROP_KIND, cm_square_kind_name((cm_square_kind)k));
		end(&t);
		end(&t);
	}
	end(&t);
	if (xmlTextWriterEndDocument(t.w) < 0)
		t.err = 1;
	xmlFreeTextWriter(t.w);
	return t.err ? CM_ENOMEM : 0;
}

int cm_export_tmx_kinds(const char *dir, cm_diags *d)
{
	char *tsx = cm_asprintf("%s/%s", dir, CM_TMX_KINDS);
	char *png = cm_asprintf("%s/%s", dir, CM_TMX_KINDS_PNG);
	xmlBufferPtr xb = xmlBufferCreate();
	int rc = CM_ENOMEM;
	if (tsx && png && xb && (rc = build_tsx(xb)) == 0 && (rc = cm_write_to(png, write_png, NULL, d)) == 0)
		rc = cm_write_to(tsx, write_buf, xb, d);
	xmlBufferFree(xb);
	free(tsx);
	free(png);
	return rc;
}
