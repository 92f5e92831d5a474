/* SPDX-License-Identifier: MIT */
/* export_tmx.c: the Tiled TMX export (schemas/export-tmx.md): an orthogonal
 * map with a tile layer of square kinds, object groups for what tiles cannot
 * show, setup and rules as map properties, and the square-kind tileset
 * image written beside it with libpng. The XML is built in memory with
 * libxml2's writer; both files go to temporary names renamed at the end. */
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/xmlwriter.h>
#include "export/export_int.h"
#include "base/util_int.h"

#define TS 32 /* tile size in pixels */

/* ---- the tileset image: one swatch per square kind ---- */

static const unsigned char kind_rgba[CM_SQ_KIND_COUNT][4] = {
	{ 0, 0, 0, 0 },         /* none: not printed, transparent */
	{ 170, 205, 120, 255 }, /* land */
	{ 240, 200, 60, 255 },  /* start */
	{ 200, 120, 80, 255 },  /* town */
	{ 150, 60, 50, 255 },   /* bigcity */
	{ 70, 130, 200, 255 },  /* waves */
	{ 130, 130, 130, 255 }, /* landmark */
	{ 210, 190, 140, 255 }, /* island */
	{ 180, 180, 220, 255 }, /* half */
};

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

/* Swatches side by side, each with a darker one-pixel frame so that
 * neighbouring squares of one kind stay distinguishable. */
static int write_png(const char *path, cm_diags *d)
{
	enum { W = TS * CM_SQ_KIND_COUNT };
	unsigned char rows[TS][W * 4];
	for (int y = 0; y < TS; y++)
		for (int x = 0; x < W; x++) {
			const unsigned char *c = kind_rgba[x / TS];
			int tx = x % TS;
			bool frame = tx == 0 || y == 0 || tx == TS - 1 || y == TS - 1;
			for (int k = 0; k < 4; k++)
				rows[y][x * 4 + k] = (unsigned char)(frame && k < 3 ? c[k] * 7 / 10 : c[k]);
		}
	FILE *f = fopen(path, "wb");
	if (!f) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write: %s", strerror(errno));
		return CM_EIO;
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
	if (fclose(f) != 0 && rc == 0)
		rc = CM_EIO;
	if (rc)
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write png");
	return rc;
}

/* ---- the TMX document ---- */

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

/* <property name= type= value=/>; type NULL for strings */
static void prop(tmx *t, const char *name, const char *type, const char *v)
{
	start(t, "property");
	attr(t, "name", name);
	if (type)
		attr(t, "type", type);
	attr(t, "value", v);
	end(t);
}

static void prop_int(tmx *t, const char *name, long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", v);
	prop(t, name, "int", buf);
}

static void prop_bool(tmx *t, const char *name, bool v)
{
	prop(t, name, "bool", v ? "true" : "false");
}

/* <object id= [name=] x= y= [width= height=]> with its properties opened */
static void object(tmx *t, const char *name, long x, long y, long w, long h)
{
	start(t, "object");
	attr_int(t, "id", t->next_id++);
	if (name)
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

static void map_properties(tmx *t)
{
	const cm_map *m = t->m;
	const cm_rules *r = &m->rules;
	start(t, "properties");
	prop(t, "carcamap.format", NULL, "carcamap-tmx");
	prop(t, "carcamap.version", NULL, "1.0");
	prop(t, "id", NULL, m->id ? m->id : "");
	prop(t, "name", NULL, m->name ? m->name : "");
	prop_int(t, "setup.starts_used", m->setup.starts_used);
	prop_int(t, "setup.tiles_min", m->setup.tiles_min);
	prop_int(t, "setup.tiles_max", m->setup.tiles_max);
	prop_int(t, "setup.followers", m->setup.followers);
	prop(t, "rules.edition", NULL, cm_edition_name(r->edition));
	prop_bool(t, "rules.tiny_city", r->tiny_city);
	prop(t, "rules.farmers", NULL, r->farmers == CM_FARMERS_C1 ? "C1" : "C2");
	prop_bool(t, "rules.farmers_bigcity", r->farmers_bigcity);
	prop_bool(t, "rules.town_extra_turn", r->town_extra_turn);
	prop_bool(t, "rules.town_cost", r->town_cost);
	prop_bool(t, "rules.town_road_bonus", r->town_road_bonus);
	prop_bool(t, "rules.abbey_edge", r->abbey_edge);
	end(t);
}

static void tileset(tmx *t, const char *image)
{
	start(t, "tileset");
	attr(t, "firstgid", "1");
	attr(t, "name", "square-kinds");
	attr_int(t, "tilewidth", TS);
	attr_int(t, "tileheight", TS);
	attr_int(t, "tilecount", CM_SQ_KIND_COUNT);
	attr_int(t, "columns", CM_SQ_KIND_COUNT);
	start(t, "image");
	attr(t, "source", image);
	attr_int(t, "width", TS * CM_SQ_KIND_COUNT);
	attr_int(t, "height", TS);
	end(t);
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++) {
		start(t, "tile");
		attr_int(t, "id", k);
		start(t, "properties");
		prop(t, "kind", NULL, cm_square_kind_name((cm_square_kind)k));
		end(t);
		end(t);
	}
	end(t);
}

/* Tile layer: gid 1 + kind per square, CSV one row per line. */
static void squares_layer(tmx *t)
{
	const cm_map *m = t->m;
	start(t, "layer");
	attr(t, "id", "1");
	attr(t, "name", "squares");
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
			csv[n++] = (char)('1' + cm_map_at(m, x, y)->kind);
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

static void bigcities_group(tmx *t)
{
	const cm_map *m = t->m;
	group(t, 2, "bigcities");
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *b = &m->bigcities[i];
		if (!b->n_pieces)
			continue;
		int x0 = b->pieces[0].x, y0 = b->pieces[0].y, x1 = x0, y1 = y0;
		for (size_t k = 1; k < b->n_pieces; k++) {
			const cm_bigcity_piece *p = &b->pieces[k];
			x0 = p->x < x0 ? p->x : x0;
			y0 = p->y < y0 ? p->y : y0;
			x1 = p->x > x1 ? p->x : x1;
			y1 = p->y > y1 ? p->y : y1;
		}
		object(t, b->name ? b->name : "", (long)x0 * TS, (long)y0 * TS, (long)(x1 - x0 + 1) * TS,
		       (long)(y1 - y0 + 1) * TS);
		start(t, "properties");
		prop_int(t, "index", (long)i);
		prop_int(t, "pieces", (long)b->n_pieces);
		end(t);
		end(t);
	}
	end(t);
}

/* Segment of side e of square (x,y): start corner and direction. */
static void side_segment(int x, int y, int e, long *px, long *py, bool *vertical)
{
	*px = (long)(x + (e == CM_E)) * TS;
	*py = (long)(y + (e == CM_S)) * TS;
	*vertical = e == CM_E || e == CM_W;
}

static void prints_group(tmx *t)
{
	const cm_map *m = t->m;
	group(t, 3, "edge_prints");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			for (int e = 0; e < 4; e++) {
				const cm_edge_print *p = &cm_map_at(m, x, y)->print[e];
				if (p->kind == CM_PRINT_NONE)
					continue;
				long px, py;
				bool vertical;
				side_segment(x, y, e, &px, &py, &vertical);
				object(t, p->label, px, py, 0, 0);
				start(t, "properties");
				prop(t, "kind", NULL, cm_print_kind_name(p->kind));
				prop_int(t, "arms", p->arms);
				prop(t, "label", NULL, p->label ? p->label : "");
				prop(t, "side", NULL, cm_side_name((cm_side)e));
				prop_int(t, "square_x", x);
				prop_int(t, "square_y", y);
				end(t);
				start(t, "polyline");
				attr(t, "points", vertical ? "0,0 0,32" : "0,0 32,0");
				end(t);
				end(t);
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
	group(t, 4, "ferries");
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		long ax, ay, bx, by;
		side_middle(f->x1, f->y1, f->s1, &ax, &ay);
		side_middle(f->x2, f->y2, f->s2, &bx, &by);
		object(t, f->name, ax, ay, 0, 0);
		start(t, "properties");
		prop_int(t, "arms", f->arms);
		end(t);
		char pts[64];
		snprintf(pts, sizeof pts, "0,0 %ld,%ld", bx - ax, by - ay);
		start(t, "polyline");
		attr(t, "points", pts);
		end(t);
		end(t);
	}
	end(t);
}

static void islands_group(tmx *t)
{
	const cm_map *m = t->m;
	group(t, 5, "islands");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *s = cm_map_at(m, x, y);
			if (s->island < 0)
				continue;
			const cm_island *is = &m->islands[s->island];
			object(t, is->name ? is->name : "", (long)x * TS, (long)y * TS, TS, TS);
			start(t, "properties");
			prop_int(t, "arms", s->arms);
			prop_int(t, "island", s->island);
			prop(t, "title", NULL, is->title ? is->title : "");
			end(t);
			end(t);
		}
	end(t);
}

static void names_group(tmx *t)
{
	const cm_map *m = t->m;
	group(t, 6, "names");
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *s = cm_map_at(m, x, y);
			if (!s->name)
				continue;
			object(t, s->name, (long)x * TS, (long)y * TS, TS, TS);
			start(t, "properties");
			prop(t, "kind", NULL, cm_square_kind_name(s->kind));
			prop_int(t, "markers", (long)s->n_markers);
			end(t);
			start(t, "text");
			attr(t, "pixelsize", "8");
			attr(t, "wrap", "1");
			attr(t, "halign", "center");
			attr(t, "valign", "center");
			if (xml_text_ok(s->name)) {
				if (xmlTextWriterWriteString(t->w, (const xmlChar *)s->name) < 0)
					t->err = 1;
			}
			end(t);
			end(t);
		}
	end(t);
}

/* Objects written: the ids are assigned in writing order, so this must
 * count exactly what the groups write. */
static long object_count(const cm_map *m)
{
	long n = (long)m->n_ferries;
	for (size_t i = 0; i < m->n_bigcities; i++)
		n += m->bigcities[i].n_pieces > 0;
	for (int i = 0; i < m->cols * m->rows; i++) {
		const cm_square *s = &m->squares[i];
		n += (s->island >= 0) + (s->name != NULL);
		for (int e = 0; e < 4; e++)
			n += s->print[e].kind != CM_PRINT_NONE;
	}
	return n;
}

static int build_tmx(const cm_map *m, const char *image, xmlBufferPtr xb, const char **bad)
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
	attr(&t, "nextlayerid", "7");
	attr_int(&t, "nextobjectid", object_count(m) + 1);
	map_properties(&t);
	tileset(&t, image);
	squares_layer(&t);
	bigcities_group(&t);
	prints_group(&t);
	ferries_group(&t);
	islands_group(&t);
	names_group(&t);
	end(&t);
	if (xmlTextWriterEndDocument(t.w) < 0)
		t.err = 1;
	xmlFreeTextWriter(t.w);
	*bad = t.bad;
	return t.bad ? CM_EINVAL : t.err ? CM_ENOMEM : 0;
}

static int write_file(const char *path, const void *p, size_t n, cm_diags *d)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write: %s", strerror(errno));
		return CM_EIO;
	}
	size_t w = fwrite(p, 1, n, f);
	if (fclose(f) != 0 || w != n) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write: %s", strerror(errno));
		return CM_EIO;
	}
	return 0;
}

int cm_export_tmx(const cm_map *m, const char *tmx_path, cm_diags *d)
{
	int rc = cm_map_check_model(m, NULL, NULL, d);
	if (rc)
		return rc;
	size_t n = strlen(tmx_path);
	size_t stem = n > 4 && strcmp(tmx_path + n - 4, ".tmx") == 0 ? n - 4 : n;
	char *png = cm_asprintf("%.*s.kinds.png", (int)stem, tmx_path);
	char *png_tmp = cm_asprintf("%s.tmp", png ? png : "");
	char *tmx_tmp = cm_asprintf("%s.tmp", tmx_path);
	xmlBufferPtr xb = xmlBufferCreate();
	bool wrote_png = false, wrote_tmx = false;
	if (!png || !png_tmp || !tmx_tmp || !xb) {
		rc = CM_ENOMEM;
		goto out;
	}
	const char *base = strrchr(png, '/');
	const char *bad = NULL;
	rc = build_tmx(m, base ? base + 1 : png, xb, &bad);
	if (rc) {
		if (bad)
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, m->id,
			             "text is not valid utf-8 or holds control characters: \"%s\"", bad);
		goto out;
	}
	if ((rc = write_png(png_tmp, d)))
		goto out;
	wrote_png = true;
	if ((rc = write_file(tmx_tmp, xmlBufferContent(xb), (size_t)xmlBufferLength(xb), d)))
		goto out;
	wrote_tmx = true;
	if (rename(png_tmp, png) != 0 || rename(tmx_tmp, tmx_path) != 0) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, tmx_path, 0, 0, NULL, "cannot rename into place: %s",
		             strerror(errno));
		rc = CM_EIO;
	}
out:
	if (rc && wrote_png)
		remove(png_tmp);
	if (rc && wrote_tmx)
		remove(tmx_tmp);
	xmlBufferFree(xb);
	free(png);
	free(png_tmp);
	free(tmx_tmp);
	return rc;
}
