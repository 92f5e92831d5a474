/* SPDX-License-Identifier: MIT */
/* tmx.c: the Tiled TMX reader (carcamap/tmx.h, schemas/export-tmx.md). The
 * squares layer (CSV, base64, zlib, gzip, XML tiles) gives the kinds; object
 * layers give names, markers, islands, big cities and pieces (tile notation),
 * edge prints and ferries by geometry; map properties give setup, deck and
 * rules; every name from carcamap/tmx.h's table, the writer's. A document
 * holding more tiles or objects than its map can is refused on its text,
 * before it is parsed. The map is built through a builder and checked like
 * a descriptor: the structure, then the builder's finish. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "carcamap/carcamap.h"
#include "carcamap/tmx.h"
#include "base/util_int.h"
#include "io/xml_int.h"
#include "model/map_builder_int.h"
#include "model/map_int.h"
#include "model/tilenote_int.h"

#define MAX_POINTS 100000
#define MAX_WORK 50000000ull /* point-in-polygon steps for placing pieces */

typedef struct {
	cm_diags *d;
	const char *file;
	cm_map_builder *b;   /* the map being read */
	const cm_map *m;     /* b's view (cm__map_builder_view), to read it back */
	double tw, th;       /* tile size in pixels */
	bool oom;
	long *named_by;      /* per square: id of the object that named it, 0 */
	long *island_by;     /* per square: id of the island-squares object, 0 */
	long *print_by;      /* per square and side: id of the print object, 0 */
	xmlNode **cities;    /* polygon object per big city */
	double **city_pts;   /* its outline in map pixels, x y pairs */
	size_t *city_npts;
	double *city_box;    /* x0 y0 x1 y1 per big city */
	unsigned long long work; /* point-in-polygon steps, bounded */
	cm_diag_scope ds;        /* d and file */
} rd;

/* One object: what diagnostics and geometry need. */
typedef struct {
	xmlNode *n;
	const char *layer;
	unsigned line;
	long id;
	char *name;          /* NULL when absent or empty */
	double x, y, w, h;
	int shape;           /* SH_… */
	double *pts;         /* polygon/polyline points in map pixels, x y pairs */
	size_t npts;
} obj;

enum { SH_RECT, SH_POINT, SH_POLYGON, SH_POLYLINE, SH_TEXT, SH_ELLIPSE };

static void obj_free(obj *o)
{
	free(o->name);
	free(o->pts);
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void report(rd *r, const char *id, unsigned line, const obj *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (!o) {
		cm_diag_scope_vadd(&r->ds, id, line, 0, NULL, fmt, ap);
		va_end(ap);
		return;
	}
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_diag_scope_add(&r->ds, id, line, 0, NULL, "object %ld%s%s%s on layer '%s': %s", o->id, o->name ? " '" : "",
	                  o->name ? o->name : "", o->name ? "'" : "", o->layer, msg ? msg : fmt);
	free(msg);
}

static char *sdup(rd *r, const char *s)
{
	char *c = cm_strdup(s);
	if (!c && s)
		r->oom = true;
	return c;
}

/* ---- numbers ---- */

static bool parse_double(const char *s, double *out)
{
	if (!s || !*s)
		return false;
	char *end;
	double v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end || !isfinite(v) || fabs(v) > 1e9)
		return false;
	*out = v;
	return true;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	if (!s || !*s)
		return false;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (*end || v < lo || v > hi)
		return false;
	*out = (long)v;
	return true;
}

static double attr_num(const xmlNode *n, const char *name, double dflt, bool *bad)
{
	char *v = cm_xml_attr_token(n, name);
	double d = dflt;
	if (v && !parse_double(v, &d))
		*bad = true;
	free(v);
	return d;
}

/* ---- properties ---- */

/* The <property name=…> under n's <properties>, or NULL. */
static xmlNode *property(const xmlNode *n, const char *name)
{
	for (xmlNode *c = cm_xml_elem(n ? n->children : NULL); c; c = cm_xml_elem(c->next)) {
		if (!cm_xml_is(c, "properties"))
			continue;
		for (xmlNode *p = cm_xml_elem(c->children); p; p = cm_xml_elem(p->next)) {
			if (!cm_xml_is(p, "property"))
				continue;
			xmlChar *nm = xmlGetNoNsProp(p, (const xmlChar *)"name");
			bool hit = nm && strcmp((const char *)nm, name) == 0;
			xmlFree(nm);
			if (hit)
				return p;
		}
	}
	return NULL;
}

/* A property's value: the value attribute, or the text Tiled writes for
 * values with line breaks. NULL when absent. */
static char *prop_value(rd *r, const xmlNode *p)
{
	if (!p)
		return NULL;
	char *v = cm_xml_attr(p, "value");
	if (v)
		return v;
	xmlChar *t = xmlNodeGetContent(p);
	if (!t) {
		r->oom = true;
		return NULL;
	}
	v = sdup(r, (const char *)t);
	xmlFree(t);
	return v;
}

/* String property; NULL when absent or empty. */
static char *prop_str(rd *r, const xmlNode *n, const char *name)
{
	char *v = prop_value(r, property(n, name));
	if (v && !*v) {
		free(v);
		return NULL;
	}
	return v;
}

/* Integer property in [lo,hi]; dflt when absent; reported when bad. */
static long prop_int(rd *r, const xmlNode *n, const char *name, long lo, long hi, long dflt, const obj *o)
{
	xmlNode *p = property(n, name);
	if (!p)
		return dflt;
	char *v = prop_value(r, p);
	long out = dflt;
	if (v && !parse_long(v, lo, hi, &out))
		report(r, "CM0705", cm_xml_line(p), o, "property '%s' is \"%s\", not a whole number from %ld to %ld",
		       name, v, lo, hi);
	free(v);
	return out;
}

static bool prop_bool(rd *r, const xmlNode *n, const char *name, bool dflt)
{
	xmlNode *p = property(n, name);
	if (!p)
		return dflt;
	char *v = prop_value(r, p);
	bool out = dflt;
	if (v && (strcmp(v, "true") == 0 || strcmp(v, "1") == 0))
		out = true;
	else if (v && (strcmp(v, "false") == 0 || strcmp(v, "0") == 0))
		out = false;
	else if (v)
		report(r, "CM0705", cm_xml_line(p), NULL, "map property '%s' is \"%s\", not true or false", name, v);
	free(v);
	return out;
}

/* ---- the squares layer ---- */

typedef struct {
	long firstgid;
	bool kinds;
	char *name;
	unsigned line;
} tset;

static int cmp_tset(const void *a, const void *b)
{
	const tset *x = a, *y = b;
	if (x->firstgid != y->firstgid)
		return x->firstgid < y->firstgid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static bool is_kinds_source(const char *src)
{
	const char *b = strrchr(src, '/');
	b = b ? b + 1 : src;
	const char *bs = strrchr(b, '\\');
	b = bs ? bs + 1 : b;
	return strcmp(b, CM_TMX_KINDS) == 0;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Base64 text to bytes (white space skipped). NULL on a bad character
 * (*bad set) or OOM. */
static unsigned char *b64_decode(const char *s, size_t *len, bool *bad)
{
	size_t n = strlen(s);
	unsigned char *out = malloc(n / 4 * 3 + 4);
	if (!out)
		return NULL;
	size_t k = 0;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	for (const char *p = s; *p; p++) {
		int c = (unsigned char)*p;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		int v = b64val(c);
		if (v < 0 || pad) {
			*bad = true;
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(acc >> bits);
		}
	}
	*len = k;
	return out;
}

/* zlib or gzip data that must inflate to exactly want bytes. 0, CM_EINVAL
 * (damaged or a size other than want) or CM_ENOMEM. */
static int inflate_exact(const unsigned char *in, size_t n, unsigned char *out, size_t want)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return CM_ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)want;
	int zr = inflate(&z, Z_FINISH);
	int rc = 0;
	if (zr != Z_STREAM_END || z.total_out != want)
		rc = zr == Z_MEM_ERROR ? CM_ENOMEM : CM_EINVAL;
	inflateEnd(&z);
	return rc;
}

static const char layer_format_fix[] =
	"in Tiled, Map > Map Properties > Tile Layer Format: choose CSV, Base64 (uncompressed), "
	"Base64 (zlib compressed) or Base64 (gzip compressed), then save";

/* The layer's gids, cols*rows of them, with the line of each cell. */
/* The squares layer's cells, as its <data> element holds them. */
typedef struct {
	rd *r;
	int cols, rows;
	size_t n;        /* cols * rows */
	unsigned dline;  /* the <data> element's line */
	uint32_t *gid;   /* per square */
	unsigned *line;  /* per square: the line of its tile (the data's, when unknown) */
} cells;

/* XML: one <tile gid=…/> per cell. */
static int gids_xml(cells *g, xmlNode *data)
{
	size_t k = 0;
	int rc = 0;
	for (xmlNode *c = cm_xml_elem(data->children); c; c = cm_xml_elem(c->next)) {
		if (!cm_xml_is(c, "tile"))
			continue;
		if (k >= g->n) {
			k++;
			break;
		}
		char *t = cm_xml_attr_token(c, "gid");
		long v = 0;
		if (t && !parse_long(t, 0, 0xFFFFFFFFL, &v)) {
			report(g->r, "CM0703", cm_xml_line(c), NULL, "tile gid \"%s\" is not a tile number", t);
			rc = CM_EINVAL;
		}
		free(t);
		g->line[k] = cm_xml_line(c);
		g->gid[k++] = (uint32_t)v;
	}
	if (k != g->n && !rc) {
		report(g->r, "CM0703", g->dline, NULL, "tile layer 'squares' holds %s%zu tiles, the map %d x %d = %zu",
		       k > g->n ? "more than " : "", k > g->n ? g->n : k, g->cols, g->rows, g->n);
		rc = CM_EINVAL;
	}
	return rc;
}

/* CSV: the gids separated by commas, each cell's line counted. */
static int gids_csv(cells *g, const char *p)
{
	size_t k = 0;
	unsigned ln = g->dline;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			ln += *p++ == '\n';
		if (!*p)
			break;
		uint64_t v = 0;
		const char *s = p;
		while (*p >= '0' && *p <= '9' && v <= 0xFFFFFFFFu)
			v = v * 10 + (uint64_t)(*p++ - '0');
		if (p == s || v > 0xFFFFFFFFu) {
			report(g->r, "CM0703", ln, NULL, "tile layer 'squares': \"%.12s\" is not a tile number", s);
			return CM_EINVAL;
		}
		if (k < g->n) {
			g->line[k] = ln;
			g->gid[k] = (uint32_t)v;
		}
		k++;
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			ln += *p++ == '\n';
		if (*p == ',') {
			p++;
		} else if (*p) {
			report(g->r, "CM0703", ln, NULL, "tile layer 'squares': '%c' where a comma belongs", *p);
			return CM_EINVAL;
		}
	}
	if (k != g->n) {
		report(g->r, "CM0703", g->dline, NULL, "tile layer 'squares' holds %zu tiles, the map %d x %d = %zu", k,
		       g->cols, g->rows, g->n);
		return CM_EINVAL;
	}
	return 0;
}

/* Base64 of the gids as little-endian words, compressed (comp: zlib or
 * gzip) or not (NULL). */
static int gids_base64(cells *g, const char *text, const char *comp)
{
	bool bad = false;
	size_t blen = 0, n = g->n;
	int rc = 0;
	unsigned char *bytes = b64_decode(text, &blen, &bad);
	if (!bytes) {
		if (bad)
			report(g->r, "CM0703", g->dline, NULL, "tile layer 'squares' is not valid base64");
		return bad ? CM_EINVAL : CM_ENOMEM;
	}
	unsigned char *raw = bytes;
	if (comp) {
		if (!(raw = malloc(n * 4))) {
			free(bytes);
			return CM_ENOMEM;
		}
		rc = inflate_exact(bytes, blen, raw, n * 4);
		if (rc == CM_EINVAL)
			report(g->r, "CM0703", g->dline, NULL,
			       "tile layer 'squares' does not decompress (%s) to the %zu tiles of a %d x %d map", comp, n,
			       g->cols, g->rows);
	} else if (blen != n * 4) {
		report(g->r, "CM0703", g->dline, NULL, "tile layer 'squares' holds %zu bytes, a %d x %d map needs %zu",
		       blen, g->cols, g->rows, n * 4);
		rc = CM_EINVAL;
	}
	for (size_t i = 0; !rc && i < n; i++)
		g->gid[i] = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 | (uint32_t)raw[4 * i + 2] << 16 |
		            (uint32_t)raw[4 * i + 3] << 24;
	if (raw != bytes)
		free(raw);
	free(bytes);
	return rc;
}

/* Whether the <data> element's encoding and compression are ones this
 * build reads (reported when not). */
static bool layer_format_ok(rd *r, xmlNode *data, unsigned dline, const char *enc, const char *comp)
{
	for (xmlNode *c = cm_xml_elem(data->children); c; c = cm_xml_elem(c->next))
		if (cm_xml_is(c, "chunk")) {
			report(r, "CM0701", cm_xml_line(c),
			       NULL, "tile layer 'squares' is stored in chunks (an infinite map): in Tiled, Map > Map "
			             "Properties, untick Infinite, then save");
			return false;
		}
	if (comp && (!enc || strcmp(enc, "base64") != 0)) {
		report(r, "CM0702", dline, NULL, "compression '%s' without base64 encoding: %s", comp, layer_format_fix);
		return false;
	}
	if (comp && strcmp(comp, "zlib") != 0 && strcmp(comp, "gzip") != 0) {
		report(r, "CM0702", dline, NULL, "tile layer 'squares' is %s compressed, which this build does not read: %s",
		       comp, layer_format_fix);
		return false;
	}
	if (enc && strcmp(enc, "csv") != 0 && strcmp(enc, "base64") != 0) {
		report(r, "CM0702", dline, NULL, "tile layer encoding '%s' is not read: %s", enc, layer_format_fix);
		return false;
	}
	return true;
}

/* The squares layer's gids, and each square's line, in any of the
 * layer formats Tiled writes but zstd. */
static int read_gids(rd *r, xmlNode *layer, int cols, int rows, uint32_t *gid, unsigned *line)
{
	xmlNode *data = NULL;
	for (xmlNode *c = cm_xml_elem(layer->children); c; c = cm_xml_elem(c->next))
		if (cm_xml_is(c, "data"))
			data = c;
	if (!data) {
		report(r, "CM0703", cm_xml_line(layer), NULL, "tile layer 'squares' has no <data>");
		return CM_EINVAL;
	}
	cells g = { r, cols, rows, (size_t)cols * (size_t)rows, cm_xml_line(data), gid, line };
	for (size_t i = 0; i < g.n; i++)
		line[i] = g.dline;
	char *enc = cm_xml_attr_token(data, "encoding"), *comp = cm_xml_attr_token(data, "compression");
	int rc = CM_EINVAL;
	xmlChar *text = NULL;
	if (!layer_format_ok(r, data, g.dline, enc, comp))
		;
	else if (!enc)
		rc = gids_xml(&g, data);
	else if (!(text = xmlNodeGetContent(data)))
		rc = CM_ENOMEM;
	else
		rc = strcmp(enc, "csv") == 0 ? gids_csv(&g, (const char *)text) : gids_base64(&g, (const char *)text, comp);
	xmlFree(text);
	free(enc);
	free(comp);
	return rc;
}

/* Kinds from gids through the tilesets; one diagnostic per foreign
 * tileset or unknown tile. */
static int set_kinds(rd *r, const uint32_t *gid, const unsigned *line, tset *ts, size_t nts)
{
	const cm_map *m = r->m;
	cm_square *grid = cm__map_builder_grid(r->b); /* a million squares: written directly */
	int rc = 0;
	bool *said = calloc(nts + 1, sizeof *said);
	bool said_unknown = false;
	if (!said)
		return CM_ENOMEM;
	for (int i = 0; i < m->cols * m->rows; i++) {
		uint32_t g = gid[i] & 0x0FFFFFFFu; /* flip and rotation flags mean nothing here */
		cm_square *sq = &grid[i];
		sq->line = line[i];
		if (g == 0) {
			sq->kind = CM_SQ_NONE;
			continue;
		}
		/* ts is sorted by firstgid: the last one at or below g */
		size_t lo = 0, hi = nts;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (ts[mid].firstgid <= (long)g)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t best = lo ? lo - 1 : nts;
		int x = i % m->cols, y = i / m->cols;
		if (best == nts || !ts[best].kinds) {
			if (!said[best]) {
				if (best == nts)
					report(r, "CM0704", line[i], NULL,
					       "square (%d,%d) holds tile %lu, which no tileset of the map defines: draw the "
					       "squares with %s only",
					       x, y, (unsigned long)g, CM_TMX_KINDS);
				else
					report(r, "CM0704", line[i], NULL,
					       "square (%d,%d) is drawn with tileset '%s' (line %u), not %s: in Tiled, use Map > "
					       "Replace Tileset to swap it for %s from the carcamap tile sets folder",
					       x, y, ts[best].name ? ts[best].name : "?", ts[best].line, CM_TMX_KINDS, CM_TMX_KINDS);
				cm_diags_set_square(r->d, x, y);
				said[best] = true;
			}
			rc = CM_EINVAL;
			continue;
		}
		long k = (long)g - ts[best].firstgid;
		if (k >= CM_SQ_KIND_COUNT) {
			if (!said_unknown) {
				report(r, "CM0704", line[i], NULL,
				       "square (%d,%d) holds tile %ld of %s, which has tiles 0 to %d only", x, y, k,
				       CM_TMX_KINDS, CM_SQ_KIND_COUNT - 1);
				cm_diags_set_square(r->d, x, y);
				said_unknown = true;
			}
			rc = CM_EINVAL;
			continue;
		}
		sq->kind = (cm_square_kind)k;
	}
	free(said);
	return rc;
}

/* ---- objects ---- */

/* 0, CM_EINVAL (not "x,y x,y ..."), CM_ELIMIT (more than MAX_POINTS) or
 * CM_ENOMEM. */
static int parse_points(const char *s, double ox, double oy, double **pts, size_t *npts)
{
	size_t cap = 1;
	for (const char *p = s; *p; p++)
		cap += *p == ' ';
	if (cap > MAX_POINTS)
		return CM_ELIMIT;
	double *v = malloc(2 * cap * sizeof *v);
	if (!v)
		return CM_ENOMEM;
	size_t n = 0;
	const char *p = s;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		char *end;
		double a = strtod(p, &end);
		if (end == p || *end != ',') {
			free(v);
			return CM_EINVAL;
		}
		p = end + 1;
		double b = strtod(p, &end);
		if (end == p || !isfinite(a) || !isfinite(b) || fabs(a) > 1e9 || fabs(b) > 1e9 || n >= cap) {
			free(v);
			return CM_EINVAL;
		}
		p = end;
		v[2 * n] = ox + a;
		v[2 * n + 1] = oy + b;
		n++;
	}
	if (!n) {
		free(v);
		return CM_EINVAL;
	}
	*pts = v;
	*npts = n;
	return 0;
}

/* Reads the common part of an object; false (reported) when unusable. */
static bool read_obj(rd *r, xmlNode *n, const char *layer, obj *o)
{
	memset(o, 0, sizeof *o);
	o->n = n;
	o->layer = layer;
	o->line = cm_xml_line(n);
	char *id = cm_xml_attr_token(n, "id");
	if (id && !parse_long(id, 0, 0x7fffffffL, &o->id))
		o->id = 0;
	free(id);
	o->name = cm_xml_attr(n, "name");
	if (o->name && !*o->name) {
		free(o->name);
		o->name = NULL;
	}
	char *tpl = cm_xml_attr(n, "template");
	if (tpl) {
		free(tpl);
		report(r, "CM0705", o->line, o,
		       "uses a template, which carcamap does not read: in Tiled, right-click it, Detach Template");
		return false;
	}
	bool bad = false;
	o->x = attr_num(n, "x", 0, &bad);
	o->y = attr_num(n, "y", 0, &bad);
	o->w = attr_num(n, "width", 0, &bad);
	o->h = attr_num(n, "height", 0, &bad);
	double rot = attr_num(n, "rotation", 0, &bad);
	/* a layer moved in Tiled moves its objects: add the offsets of the
	 * object layer and the group layers around it */
	for (const xmlNode *p = n->parent; p && p->type == XML_ELEMENT_NODE && !cm_xml_is(p, "map"); p = p->parent) {
		o->x += attr_num(p, "offsetx", 0, &bad);
		o->y += attr_num(p, "offsety", 0, &bad);
	}
	if (bad) {
		report(r, "CM0705", o->line, o, "x, y, width, height, rotation or a layer offset is not a number");
		return false;
	}
	if (rot != 0) {
		report(r, "CM0705", o->line, o, "is rotated (%g degrees), which carcamap does not read: set its Rotation to 0",
		       rot);
		return false;
	}
	o->shape = SH_RECT;
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next)) {
		bool poly = cm_xml_is(c, "polygon"), line = cm_xml_is(c, "polyline");
		if (poly || line) {
			o->shape = poly ? SH_POLYGON : SH_POLYLINE;
			/* an object with two point lists: the last one counts */
			free(o->pts);
			o->pts = NULL;
			o->npts = 0;
			char *pts = cm_xml_attr(c, "points");
			int rc = pts ? parse_points(pts, o->x, o->y, &o->pts, &o->npts) : CM_EINVAL;
			free(pts);
			if (rc == CM_ENOMEM) {
				r->oom = true;
				return false;
			} else if (rc == CM_ELIMIT) {
				report(r, "CM0705", o->line, o, "has more than %d points", MAX_POINTS);
				return false;
			} else if (rc) {
				report(r, "CM0705", o->line, o, "its points are not \"x,y x,y …\"");
				return false;
			}
		} else if (cm_xml_is(c, "point")) {
			o->shape = SH_POINT;
		} else if (cm_xml_is(c, "text")) {
			o->shape = SH_TEXT;
		} else if (cm_xml_is(c, "ellipse")) {
			o->shape = SH_ELLIPSE;
		}
	}
	return true;
}

/* The square under the object: its centre (a point: the point itself; a
 * polygon: its first point). false, reported, when outside the grid. */
static bool obj_square(rd *r, const obj *o, int *sx, int *sy)
{
	double cx = o->x + o->w / 2, cy = o->y + o->h / 2;
	if (o->shape == SH_POINT || ((o->shape == SH_POLYGON || o->shape == SH_POLYLINE) && o->npts)) {
		cx = o->npts ? o->pts[0] : o->x;
		cy = o->npts ? o->pts[1] : o->y;
	}
	double fx = floor(cx / r->tw), fy = floor(cy / r->th);
	if (fx < 0 || fy < 0 || fx >= r->m->cols || fy >= r->m->rows) {
		report(r, "CM0201", o->line, o, "lies at pixel (%g,%g), outside the %d x %d map", cx, cy, r->m->cols,
		       r->m->rows);
		return false;
	}
	*sx = (int)fx;
	*sy = (int)fy;
	return true;
}

/* The side whose middle is nearest pixel (px,py): the two squares it
 * separates, (ax,ay) with side sa and (bx,by) with side sb; a square may
 * lie outside the grid. */
static void nearest_side(const rd *r, double px, double py, int *ax, int *ay, cm_side *sa, int *bx, int *by,
                         cm_side *sb)
{
	double gx = px / r->tw, gy = py / r->th;
	/* a vertical side's middle: (round(gx), floor(gy)+0.5); a horizontal one's:
	 * (floor(gx)+0.5, round(gy)) */
	double vx = round(gx), vy = floor(gy) + 0.5, hx = floor(gx) + 0.5, hy = round(gy);
	double dv = (gx - vx) * (gx - vx) + (gy - vy) * (gy - vy);
	double dh = (gx - hx) * (gx - hx) + (gy - hy) * (gy - hy);
	if (dv <= dh) {
		*ax = (int)vx - 1, *ay = (int)floor(gy), *sa = CM_E;
		*bx = (int)vx, *by = (int)floor(gy), *sb = CM_W;
	} else {
		*ax = (int)floor(gx), *ay = (int)hy - 1, *sa = CM_S;
		*bx = (int)floor(gx), *by = (int)hy, *sb = CM_N;
	}
}

static bool takes_tiles(const cm_map *m, int x, int y)
{
	const cm_square *s = cm__map_at(m, x, y);
	return s && cm_square_kind_playable(s->kind);
}

/* ---- layers ---- */

/* Every object group, found through group layers too, by name. */
typedef struct {
	xmlNode *islands, *island_squares, *names, *markers, *bigcities, *pieces, *prints[4], *ferries;
} layers;

static void find_layers(rd *r, xmlNode *parent, layers *L, xmlNode **squares, size_t *n_tile_layers, int depth)
{
	for (xmlNode *c = cm_xml_elem(parent->children); c; c = cm_xml_elem(c->next)) {
		if (cm_xml_is(c, "group") && depth < 8) {
			find_layers(r, c, L, squares, n_tile_layers, depth + 1);
			continue;
		}
		char *name = cm_xml_attr(c, "name");
		if (cm_xml_is(c, "layer")) {
			(*n_tile_layers)++;
			if (name && strcmp(name, CM_TMX_LAYER_SQUARES) == 0 && !*squares)
				*squares = c;
			else if (!*squares && *n_tile_layers == 1)
				*squares = c;
		} else if (cm_xml_is(c, "objectgroup")) {
			xmlNode **slot = NULL;
			if (!name)
				;
			else if (strcmp(name, CM_TMX_LAYER_ISLANDS) == 0)
				slot = &L->islands;
			else if (strcmp(name, CM_TMX_LAYER_ISLAND_SQUARES) == 0)
				slot = &L->island_squares;
			else if (strcmp(name, CM_TMX_LAYER_NAMES) == 0)
				slot = &L->names;
			else if (strcmp(name, CM_TMX_LAYER_MARKERS) == 0)
				slot = &L->markers;
			else if (strcmp(name, CM_TMX_LAYER_BIGCITIES) == 0)
				slot = &L->bigcities;
			else if (strcmp(name, CM_TMX_LAYER_PIECES) == 0)
				slot = &L->pieces;
			else if (strcmp(name, CM_TMX_LAYER_PRINTS_ROAD) == 0)
				slot = &L->prints[CM_PRINT_ROAD];
			else if (strcmp(name, CM_TMX_LAYER_PRINTS_CITY) == 0)
				slot = &L->prints[CM_PRINT_CITY];
			else if (strcmp(name, CM_TMX_LAYER_PRINTS_NEUTRAL) == 0)
				slot = &L->prints[CM_PRINT_NEUTRAL];
			else if (strcmp(name, CM_TMX_LAYER_FERRIES) == 0)
				slot = &L->ferries;
			if (slot && *slot) {
				report(r, "CM0705", cm_xml_line(c), NULL,
				       "a second object layer named '%s' (the first is on line %u): merge the two in Tiled",
				       name, cm_xml_line(*slot));
			} else if (slot) {
				*slot = c;
			} else if (cm_xml_elem(c->children)) {
				size_t k = 0;
				for (xmlNode *o = cm_xml_elem(c->children); o; o = cm_xml_elem(o->next))
					k += cm_xml_is(o, "object");
				if (k)
					cm_diags_check(r->d, "CM0706", r->file, cm_xml_line(c), 0, NULL,
					               "object layer '%s' is not a carcamap layer: its %zu object%s not part "
					               "of the map",
					               name ? name : "", k, k == 1 ? " is" : "s are");
			}
		}
		free(name);
	}
}

#define FOR_OBJECTS(layer, o)                                                          \
	for (xmlNode *o = cm_xml_elem((layer) ? (layer)->children : NULL); o; o = cm_xml_elem(o->next)) \
		if (cm_xml_is(o, "object"))

/* Sets square (x,y) to s; every value the reader gives is in range. */
static void set_square(rd *r, int x, int y, const cm_square *s)
{
	if (cm_map_builder_set_square(r->b, x, y, s))
		r->oom = true; /* unreachable: only a bug lands here */
}

static void read_islands(rd *r, xmlNode *layer)
{
	FOR_OBJECTS (layer, n) {
		obj o;
		if (read_obj(r, n, CM_TMX_LAYER_ISLANDS, &o)) {
			if (!o.name) {
				report(r, "CM0705", o.line, &o, "an island needs its id as the object name");
			} else {
				char *title = prop_str(r, n, CM_TMX_PROP_TITLE);
				if (cm_map_builder_add_island(r->b, o.name, title, o.line, NULL))
					r->oom = true;
				free(title);
			}
		}
		obj_free(&o);
	}
}

static void read_island_squares(rd *r, xmlNode *layer)
{
	const cm_map *m = r->m;
	FOR_OBJECTS (layer, n) {
		obj o;
		int x, y;
		if (read_obj(r, n, CM_TMX_LAYER_ISLAND_SQUARES, &o) && obj_square(r, &o, &x, &y)) {
			cm_square s = *cm_map_builder_square(r->b, x, y);
			int k = o.name ? cm_map_builder_island_find(r->b, o.name) : -1;
			if (r->island_by[y * m->cols + x])
				report(r, "CM0705", o.line, &o, "square (%d,%d) is already given an island by object %ld", x, y,
				       r->island_by[y * m->cols + x]);
			else if (k < 0)
				report(r, "CM0205", o.line, &o,
				       "square (%d,%d): the object name must be the id of an island of layer 'islands'", x, y);
			else {
				r->island_by[y * m->cols + x] = o.id ? o.id : -1;
				s.island = k;
				s.arms = (uint8_t)prop_int(r, n, CM_TMX_PROP_ARMS, 0, 255, 0, &o);
				s.line = o.line;
				set_square(r, x, y, &s);
			}
		}
		obj_free(&o);
	}
}

static void read_names(rd *r, xmlNode *layer)
{
	const cm_map *m = r->m;
	FOR_OBJECTS (layer, n) {
		obj o;
		int x, y;
		if (read_obj(r, n, CM_TMX_LAYER_NAMES, &o) && obj_square(r, &o, &x, &y)) {
			/* the text Tiled shows, else the object name */
			char *text = NULL;
			for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next))
				if (cm_xml_is(c, "text")) {
					xmlChar *t = xmlNodeGetContent(c);
					free(text);
					text = t && *t ? sdup(r, (const char *)t) : NULL;
					xmlFree(t);
				}
			if (!text && o.name)
				text = sdup(r, o.name);
			cm_square s = *cm_map_builder_square(r->b, x, y);
			if (!text)
				report(r, "CM0705", o.line, &o, "square (%d,%d): a name object needs a text", x, y);
			else if (cm_map_square_name(m, x, y))
				report(r, "CM0202", o.line, &o, "square (%d,%d) is already named \"%s\" by object %ld", x, y,
				       cm_map_square_name(m, x, y), r->named_by[y * m->cols + x]);
			else {
				if (cm_map_builder_set_square_name(r->b, x, y, text))
					r->oom = true;
				r->named_by[y * m->cols + x] = o.id;
				s.line = o.line;
				set_square(r, x, y, &s);
			}
			free(text);
		}
		obj_free(&o);
	}
}

static void read_markers(rd *r, xmlNode *layer)
{
	FOR_OBJECTS (layer, n) {
		obj o;
		int x, y;
		if (read_obj(r, n, CM_TMX_LAYER_MARKERS, &o) && obj_square(r, &o, &x, &y)) {
			if (!o.name)
				report(r, "CM0705", o.line, &o, "square (%d,%d): a marker needs its text as the object name", x, y);
			else if (cm_map_builder_add_marker(r->b, x, y, o.name))
				r->oom = true;
		}
		obj_free(&o);
	}
}

/* Ray casting: whether (px,py) is inside the polygon. */
static bool inside(const double *p, size_t n, double px, double py)
{
	bool in = false;
	for (size_t i = 0, j = n - 1; i < n; j = i++) {
		double xi = p[2 * i], yi = p[2 * i + 1], xj = p[2 * j], yj = p[2 * j + 1];
		if ((yi > py) != (yj > py) && px < (xj - xi) * (py - yi) / (yj - yi) + xi)
			in = !in;
	}
	return in;
}

static void read_bigcities(rd *r, xmlNode *layer)
{
	size_t count = 0;
	FOR_OBJECTS (layer, n)
		count++;
	r->cities = calloc(count + 1, sizeof *r->cities);
	r->city_pts = calloc(count + 1, sizeof *r->city_pts);
	r->city_npts = calloc(count + 1, sizeof *r->city_npts);
	r->city_box = calloc(4 * (count + 1), sizeof *r->city_box);
	if (!r->cities || !r->city_pts || !r->city_npts || !r->city_box) {
		r->oom = true;
		return;
	}
	FOR_OBJECTS (layer, n) {
		obj o;
		if (!read_obj(r, n, CM_TMX_LAYER_BIGCITIES, &o)) {
			obj_free(&o);
			continue;
		}
		if (!o.name) {
			report(r, "CM0705", o.line, &o, "a big city needs its name as the object name");
			obj_free(&o);
			continue;
		}
		if (o.shape == SH_RECT && o.w > 0 && o.h > 0) {
			/* a rectangle drawn in Tiled: its four corners */
			free(o.pts);
			if (!(o.pts = malloc(8 * sizeof *o.pts))) {
				r->oom = true;
				obj_free(&o);
				continue;
			}
			double c[8] = { o.x, o.y, o.x + o.w, o.y, o.x + o.w, o.y + o.h, o.x, o.y + o.h };
			memcpy(o.pts, c, sizeof c);
			o.npts = 4;
		} else if (o.shape != SH_POLYGON || o.npts < 3) {
			report(r, "CM0705", o.line, &o, "a big city is a polygon or rectangle around its pieces");
			obj_free(&o);
			continue;
		}
		size_t i;
		if (cm_map_builder_add_bigcity(r->b, o.name, o.line, &i)) {
			r->oom = true;
			obj_free(&o);
			continue;
		}
		r->cities[i] = n;
		r->city_pts[i] = o.pts;
		r->city_npts[i] = o.npts;
		double *bx = &r->city_box[4 * i];
		bx[0] = bx[2] = o.pts[0];
		bx[1] = bx[3] = o.pts[1];
		for (size_t k = 1; k < o.npts; k++) {
			bx[0] = fmin(bx[0], o.pts[2 * k]);
			bx[1] = fmin(bx[1], o.pts[2 * k + 1]);
			bx[2] = fmax(bx[2], o.pts[2 * k]);
			bx[3] = fmax(bx[3], o.pts[2 * k + 1]);
		}
		o.pts = NULL;
		obj_free(&o);
	}
}

static void read_pieces(rd *r, xmlNode *layer)
{
	const cm_map *m = r->m;
	FOR_OBJECTS (layer, n) {
		obj o;
		int x, y;
		if (!read_obj(r, n, CM_TMX_LAYER_PIECES, &o) || !obj_square(r, &o, &x, &y)) {
			obj_free(&o);
			continue;
		}
		double cx = (x + 0.5) * r->tw, cy = (y + 0.5) * r->th;
		size_t city = m->n_bigcities;
		for (size_t i = 0; i < m->n_bigcities && city == m->n_bigcities && r->work <= MAX_WORK; i++) {
			const double *bx = &r->city_box[4 * i];
			if (cx < bx[0] || cy < bx[1] || cx > bx[2] || cy > bx[3])
				continue;
			r->work += r->city_npts[i];
			if (inside(r->city_pts[i], r->city_npts[i], cx, cy))
				city = i;
		}
		if (r->work > MAX_WORK) {
			report(r, "CM0705", o.line, &o,
			       "the big-city outlines overlap too much to place the pieces in them: draw each big city "
			       "as one polygon around its own pieces");
			obj_free(&o);
			break;
		}
		xmlNode *fp = property(n, CM_TMX_PROP_FEATURES);
		char *note = prop_value(r, fp);
		if (city == m->n_bigcities) {
			report(r, "CM0208", o.line, &o, "the piece on square (%d,%d) lies in no big city of layer 'bigcities'",
			        x, y);
			cm_diags_set_square(r->d, x, y);
		} else if (!note) {
			report(r, "CM0209", o.line, &o, "the piece on square (%d,%d) has no 'features' property", x, y);
			cm_diags_set_square(r->d, x, y);
		} else {
			cm_tile_type t;
			char err[200];
			int rc = cm_tilenote_parse(note, &t, err, sizeof err);
			if (rc == CM_ENOMEM)
				r->oom = true;
			else if (rc) {
				report(r, "CM0209", fp ? cm_xml_line(fp) : o.line, &o, "the piece on square (%d,%d): features: %s",
				       x, y, err);
				cm_diags_set_square(r->d, x, y);
			} else {
				t.line = o.line;
				for (size_t k = 0; k < t.n_features; k++)
					t.features[k].line = o.line;
				if (cm_map_builder_add_piece(r->b, city, x, y, &t))
					r->oom = true;
				cm_tile_type_clear(&t);
				cm_square s = *cm_map_builder_square(r->b, x, y);
				if (s.bigcity < 0) {
					s.bigcity = (int)city;
					set_square(r, x, y, &s);
				}
			}
		}
		free(note);
		obj_free(&o);
	}
}

/* The middle of a line object's two ends (prints) or one end (ferries). */
static bool line_end(const obj *o, int which, double *px, double *py)
{
	if (o->npts < 2)
		return false;
	size_t k = which ? o->npts - 1 : 0;
	*px = o->pts[2 * k];
	*py = o->pts[2 * k + 1];
	return true;
}

static void read_prints(rd *r, xmlNode *layer, cm_print_kind kind, const char *lname)
{
	const cm_map *m = r->m;
	FOR_OBJECTS (layer, n) {
		obj o;
		if (!read_obj(r, n, lname, &o)) {
			obj_free(&o);
			continue;
		}
		double ax, ay, bx, by;
		if (o.shape != SH_POLYLINE || !line_end(&o, 0, &ax, &ay) || !line_end(&o, 1, &bx, &by)) {
			report(r, "CM0705", o.line, &o, "an edge print is a polyline along the printed side");
			obj_free(&o);
			continue;
		}
		int x1, y1, x2, y2;
		cm_side s1, s2;
		nearest_side(r, (ax + bx) / 2, (ay + by) / 2, &x1, &y1, &s1, &x2, &y2, &s2);
		bool t1 = takes_tiles(m, x1, y1), t2 = takes_tiles(m, x2, y2);
		if (t1 == t2) {
			report(r, "CM0203", o.line, &o, "lies between squares (%d,%d) and (%d,%d), %s: a print goes on a side "
			       "of a square that takes tiles facing one that takes none",
			       x1, y1, x2, y2, t1 ? "which both take tiles" : "neither of which takes tiles");
			obj_free(&o);
			continue;
		}
		int x = t1 ? x1 : x2, y = t1 ? y1 : y2;
		cm_side s = t1 ? s1 : s2;
		long *by_id = &r->print_by[4 * (y * m->cols + x) + s];
		if (*by_id) {
			report(r, "CM0202", o.line, &o, "side %s of square (%d,%d) already has a print (object %ld)",
			       cm_side_name(s), x, y, *by_id);
			cm_diags_set_square(r->d, x, y);
		} else {
			*by_id = o.id ? o.id : -1;
			if ((o.name && cm_map_builder_set_print_label(r->b, x, y, s, o.name)) ||
			    cm_map_builder_set_print_line(r->b, x, y, s, o.line))
				r->oom = true;
			int arms = (int)prop_int(r, n, CM_TMX_PROP_ARMS, 0, 255, 0, &o);
			if (cm_map_builder_set_print(r->b, x, y, s, kind, arms))
				r->oom = true; /* in range: cannot fail */
		}
		obj_free(&o);
	}
}

/* Which of the two squares beside a ferry end it starts from: the one
 * with a road print there, else the one that takes tiles. */
static void ferry_end(const rd *r, double px, double py, int *x, int *y, cm_side *s)
{
	int ax, ay, bx, by;
	cm_side sa, sb;
	nearest_side(r, px, py, &ax, &ay, &sa, &bx, &by, &sb);
	const cm_square *a = cm__map_at(r->m, ax, ay), *b = cm__map_at(r->m, bx, by);
	bool ra = a && a->print[sa].kind == CM_PRINT_ROAD, rb = b && b->print[sb].kind == CM_PRINT_ROAD;
	bool use_a = ra || (!rb && takes_tiles(r->m, ax, ay));
	*x = use_a ? ax : bx;
	*y = use_a ? ay : by;
	*s = use_a ? sa : sb;
}

static void read_ferries(rd *r, xmlNode *layer)
{
	FOR_OBJECTS (layer, n) {
		obj o;
		if (!read_obj(r, n, CM_TMX_LAYER_FERRIES, &o)) {
			obj_free(&o);
			continue;
		}
		double ax, ay, bx, by;
		if (o.shape != SH_POLYLINE || !line_end(&o, 0, &ax, &ay) || !line_end(&o, 1, &bx, &by)) {
			report(r, "CM0705", o.line, &o, "a ferry is a polyline from one road print to another");
			obj_free(&o);
			continue;
		}
		cm_ferry f;
		memset(&f, 0, sizeof f);
		ferry_end(r, ax, ay, &f.x1, &f.y1, &f.s1);
		ferry_end(r, bx, by, &f.x2, &f.y2, &f.s2);
		f.name = o.name;
		f.arms = (uint8_t)prop_int(r, n, CM_TMX_PROP_ARMS, 0, 255, 0, &o);
		f.line = o.line;
		if (cm_map_builder_add_ferry(r->b, &f))
			r->oom = true;
		obj_free(&o);
	}
}

/* ---- map properties ---- */

static bool id_ok(const char *s)
{
	return cm_id_valid(s);
}

/* "SET; SET TILE COUNT; …" */
static void read_deck(rd *r, xmlNode *root)
{
	xmlNode *p = property(root, CM_TMX_PROP_DECK);
	char *v = prop_value(r, p);
	if (!v)
		return;
	unsigned line = cm_xml_line(p);
	char *save = NULL;
	for (char *e = strtok_r(v, ";\n", &save); e; e = strtok_r(NULL, ";\n", &save)) {
		char *tok[4] = { 0 };
		int nt = 0;
		char *s2 = NULL;
		for (char *t = strtok_r(e, " \t\r", &s2); t; t = strtok_r(NULL, " \t\r", &s2))
			if (nt < 4)
				tok[nt++] = t;
			else
				nt = 5;
		if (nt == 0)
			continue;
		long count = -1;
		if ((nt != 1 && nt != 3) || !id_ok(tok[0]) || (nt == 3 && !parse_long(tok[2], 1, 10000, &count))) {
			report(r, "CM0705", line, NULL,
			       "map property 'deck': \"%s%s%s\" is not SET or SET TILE COUNT (entries separated by ';')",
			       tok[0] ? tok[0] : "", nt > 1 ? " " : "", nt > 1 ? tok[1] : "");
			continue;
		}
		cm_deck_entry d = { tok[0], nt == 3 ? tok[1] : NULL, (int)count, line };
		if (cm_map_builder_add_deck_entry(r->b, &d)) {
			r->oom = true;
			break;
		}
	}
	free(v);
}

/* The <about> fields ("about.title" …: the descriptor's <about>), the setup. */
static void read_about_setup(rd *r, xmlNode *root, unsigned line)
{
	const cm_map *m = r->m;
	for (int i = 0; i < CM_ABOUT_FIELDS; i++) {
		char name[32];
		snprintf(name, sizeof name, CM_TMX_PROP_ABOUT "%s", cm_about_name(i));
		char *v = prop_str(r, root, name);
		if (cm_map_builder_set_about(r->b, i, v))
			r->oom = true;
		free(v);
	}
	int starts = 0;
	for (int i = 0; i < m->cols * m->rows; i++)
		starts += m->squares[i].kind == CM_SQ_START;
	xmlNode *sp = property(root, CM_TMX_PROP_STARTS);
	cm_setup su;
	su.line = sp ? cm_xml_line(sp) : line;
	su.starts_used = (int)prop_int(r, root, CM_TMX_PROP_STARTS, 0, 1000000, starts ? starts : 1, NULL);
	su.tiles_min = (int)prop_int(r, root, CM_TMX_PROP_TILES_MIN, 0, 1000000, 0, NULL);
	su.tiles_max = (int)prop_int(r, root, CM_TMX_PROP_TILES_MAX, 0, 1000000, 0, NULL);
	su.followers = (int)prop_int(r, root, CM_TMX_PROP_FOLLOWERS, 0, 1000000, 9, NULL);
	cm_map_builder_set_setup(r->b, &su);
}

/* The rules properties ("rules.edition" …). */
static void read_rules(rd *r, xmlNode *root)
{
	cm_edition ed = CM_EDITION_C2;
	xmlNode *ep = property(root, CM_TMX_PROP_RULES "edition");
	char *e = prop_value(r, ep);
	if (e && cm_edition_parse(e, &ed) != 0)
		report(r, "CM0705", cm_xml_line(ep), NULL, "map property 'rules.edition' is \"%s\", not C1, C2 or C3", e);
	free(e);
	cm_rules ru;
	cm_rules_default(&ru, ed);
	ru.tiny_city = prop_bool(r, root, CM_TMX_PROP_RULES "tiny_city", ru.tiny_city);
	xmlNode *fp = property(root, CM_TMX_PROP_RULES "farmers");
	char *f = prop_value(r, fp);
	if (f && strcmp(f, "C1") == 0)
		ru.farmers = CM_FARMERS_C1;
	else if (f && strcmp(f, "C2") == 0)
		ru.farmers = CM_FARMERS_C2;
	else if (f)
		report(r, "CM0705", cm_xml_line(fp), NULL, "map property 'rules.farmers' is \"%s\", not C1 or C2", f);
	free(f);
	ru.farmers_bigcity = prop_bool(r, root, CM_TMX_PROP_RULES "farmers_bigcity", ru.farmers_bigcity);
	ru.town_extra_turn = prop_bool(r, root, CM_TMX_PROP_RULES "town_extra_turn", ru.town_extra_turn);
	ru.town_cost = prop_bool(r, root, CM_TMX_PROP_RULES "town_cost", ru.town_cost);
	ru.town_road_bonus = prop_bool(r, root, CM_TMX_PROP_RULES "town_road_bonus", ru.town_road_bonus);
	ru.abbey_edge = prop_bool(r, root, CM_TMX_PROP_RULES "abbey_edge", ru.abbey_edge);
	cm_map_builder_set_rules(r->b, &ru);
}

static void read_map_properties(rd *r, xmlNode *root)
{
	unsigned line = cm_xml_line(root);
	char *id = prop_str(r, root, CM_TMX_PROP_ID), *name = prop_str(r, root, CM_TMX_PROP_NAME);
	if (cm_map_builder_set_id(r->b, id) || cm_map_builder_set_name(r->b, name))
		r->oom = true;
	if (!id || !id_ok(id))
		report(r, "CM0705", line, NULL,
		       "map property 'id' is %s: in Tiled, Map > Map Properties, add a string property id such as "
		       "\"my-map\" ([a-z0-9-])",
		       id ? "not a map id" : "missing");
	if (!name)
		report(r, "CM0705", line, NULL,
		       "map property 'name' is missing: in Tiled, Map > Map Properties, add a string property name");
	free(id);
	free(name);
	read_about_setup(r, root, line);
	read_deck(r, root);
	read_rules(r, root);
}

/* ---- the whole map ---- */

/* The <map> element: a carcamap TMX of a version this build reads, an
 * orthogonal, finite map of 1 to CM_GRID_MAX squares a side (its size in
 * *cols, *rows, its tile size in r). Each problem reported. */
static void read_head(rd *r, xmlNode *root, double *cols, double *rows)
{
	unsigned line = cm_xml_line(root);
	char *fmt = prop_str(r, root, CM_TMX_PROP_FORMAT), *ver = prop_str(r, root, CM_TMX_PROP_VERSION);
	if (fmt && strcmp(fmt, CM_TMX_FORMAT) != 0)
		report(r, "CM0701", line, NULL, "map property carcamap.format is \"%s\", not carcamap-tmx", fmt);
	else if (ver && ver[0] != '2')
		report(r, "CM0701", line, NULL,
		       ver[0] == '1' && ver[1] == '.' ? "written by an older carcamap (carcamap-tmx %s) that did not carry "
		                                        "the whole map: export the map again"
		                                      : "carcamap-tmx %s is newer than this build reads (2.x)",
		       ver);
	free(fmt);
	free(ver);
	char *orient = cm_xml_attr_token(root, "orientation"), *inf = cm_xml_attr_token(root, "infinite");
	if (!orient || strcmp(orient, "orthogonal") != 0)
		report(r, "CM0701", line, NULL,
		       "%s map: carcamap maps are orthogonal (in Tiled, Map > Map Properties > Orientation)",
		       orient ? orient : "a map without orientation, not an orthogonal");
	if (inf && strcmp(inf, "0") != 0)
		report(r, "CM0701", line, NULL,
		       "an infinite map has no fixed size: in Tiled, Map > Map Properties, untick Infinite, then save");
	free(orient);
	free(inf);
	bool bad = false;
	*cols = attr_num(root, "width", 0, &bad);
	*rows = attr_num(root, "height", 0, &bad);
	r->tw = attr_num(root, "tilewidth", 0, &bad);
	r->th = attr_num(root, "tileheight", 0, &bad);
	if (bad || *cols < 1 || *rows < 1 || *cols > CM_GRID_MAX || *rows > CM_GRID_MAX || *cols != floor(*cols) ||
	    *rows != floor(*rows) || r->tw < 1 || r->th < 1)
		report(r, "CM0216", line, NULL, "map size %g x %g squares of %g x %g pixels: 1 to %d squares a side and "
		       "whole pixels are needed", *cols, *rows, r->tw, r->th, CM_GRID_MAX);
}

/* The map's tilesets, sorted by firstgid, in a new array *out of *n. */
static int read_tilesets(rd *r, xmlNode *root, tset **out, size_t *n)
{
	tset *ts = NULL;
	size_t nts = 0;
	for (xmlNode *c = cm_xml_elem(root->children); c; c = cm_xml_elem(c->next)) {
		if (!cm_xml_is(c, "tileset"))
			continue;
		tset *v = realloc(ts, (nts + 1) * sizeof *v);
		if (!v) {
			*out = ts;
			*n = nts;
			return CM_ENOMEM;
		}
		ts = v;
		tset *t = &ts[nts++];
		memset(t, 0, sizeof *t);
		t->line = cm_xml_line(c);
		char *fg = cm_xml_attr_token(c, "firstgid"), *src = cm_xml_attr(c, "source");
		if (!fg || !parse_long(fg, 1, 0x0FFFFFFFL, &t->firstgid)) {
			report(r, "CM0705", t->line, NULL, "tileset without a firstgid of 1 or more");
			t->firstgid = 0x7fffffffL;
		}
		t->name = src ? src : cm_xml_attr(c, "name");
		t->kinds = src ? is_kinds_source(src) : (t->name && strcmp(t->name, "carcamap-kinds") == 0);
		free(fg);
	}
	if (nts)
		qsort(ts, nts, sizeof *ts, cmp_tset);
	*out = ts;
	*n = nts;
	return 0;
}

/* The tile layer of square kinds (the one there is, or the one named
 * squares), of the map's size, in *out; the object layers in *L. */
static int find_squares(rd *r, xmlNode *root, double cols, double rows, layers *L, xmlNode **out)
{
	xmlNode *squares = NULL;
	size_t n_tile_layers = 0;
	find_layers(r, root, L, &squares, &n_tile_layers, 0);
	if (!squares) {
		report(r, "CM0701", cm_xml_line(root), NULL,
		       "no tile layer 'squares': in Tiled, Layer > New > Tile Layer, name it squares and draw the "
		       "squares with %s",
		       CM_TMX_KINDS);
		return CM_EINVAL;
	}
	if (n_tile_layers > 1) {
		char *nm = cm_xml_attr(squares, "name");
		bool named = nm && strcmp(nm, CM_TMX_LAYER_SQUARES) == 0;
		free(nm);
		if (!named) {
			report(r, "CM0701", cm_xml_line(squares), NULL,
			       "%zu tile layers and none named 'squares': name the layer of square kinds squares", n_tile_layers);
			return CM_EINVAL;
		}
	}
	bool bad = false;
	double lw = attr_num(squares, "width", cols, &bad), lh = attr_num(squares, "height", rows, &bad);
	if (bad || lw != cols || lh != rows) {
		report(r, "CM0703", cm_xml_line(squares), NULL, "tile layer 'squares' is %g x %g, the map %g x %g", lw, lh,
		       cols, rows);
		return CM_EINVAL;
	}
	*out = squares;
	return 0;
}

/* The object layers, each by what it gives the map. */
static void read_objects(rd *r, const layers *L)
{
	read_islands(r, L->islands);
	read_island_squares(r, L->island_squares);
	read_names(r, L->names);
	read_markers(r, L->markers);
	read_bigcities(r, L->bigcities);
	read_pieces(r, L->pieces);
	read_prints(r, L->prints[CM_PRINT_ROAD], CM_PRINT_ROAD, CM_TMX_LAYER_PRINTS_ROAD);
	read_prints(r, L->prints[CM_PRINT_CITY], CM_PRINT_CITY, CM_TMX_LAYER_PRINTS_CITY);
	read_prints(r, L->prints[CM_PRINT_NEUTRAL], CM_PRINT_NEUTRAL, CM_TMX_LAYER_PRINTS_NEUTRAL);
	read_ferries(r, L->ferries);
}

static int load_doc(xmlDoc *doc, const char *file, cm_diags *d, cm_map **out)
{
	rd r = { .d = d, .file = file };
	cm_diag_scope_init(&r.ds, d, file);
	xmlNode *root = xmlDocGetRootElement(doc);
	size_t errors = cm_diags_errors(d);
	tset *ts = NULL;
	size_t nts = 0;
	uint32_t *gid = NULL;
	unsigned *glines = NULL;
	const cm_map *m = NULL;
	int rc = 0;
	if (!cm_xml_is(root, "map")) {
		report(&r, "CM0701", cm_xml_line(root), NULL, "not a Tiled map (the root element is not <map>)");
		return CM_EINVAL;
	}
	double cols, rows;
	read_head(&r, root, &cols, &rows);
	if (cm_diags_errors(d) > errors)
		return CM_EINVAL;
	xmlNode *squares = NULL;
	layers L = { 0 };
	if ((rc = read_tilesets(&r, root, &ts, &nts)) || (rc = find_squares(&r, root, cols, rows, &L, &squares)) ||
	    (rc = cm_map_builder_new((int)cols, (int)rows, &r.b)))
		goto out;
	m = r.m = cm__map_builder_view(r.b);
	size_t n = (size_t)m->cols * (size_t)m->rows;
	gid = calloc(n, sizeof *gid);
	glines = calloc(n, sizeof *glines);
	r.named_by = calloc(n, sizeof *r.named_by);
	r.island_by = calloc(n, sizeof *r.island_by);
	r.print_by = calloc(4 * n, sizeof *r.print_by);
	if (!gid || !glines || !r.named_by || !r.island_by || !r.print_by ||
	    cm_map_builder_set_line(r.b, cm_xml_line(root)) || cm_map_builder_set_file(r.b, file)) {
		rc = CM_ENOMEM;
		goto out;
	}
	if ((rc = read_gids(&r, squares, m->cols, m->rows, gid, glines)) || (rc = set_kinds(&r, gid, glines, ts, nts)))
		goto out;
	read_map_properties(&r, root);
	read_objects(&r, &L);
	if (r.oom) {
		rc = CM_ENOMEM;
		goto out;
	}
	cm_map_builder_default_prints(r.b);
	/* the checks a descriptor gets: the structure (with the TMX lines),
	 * then, on a sound structure, the model's limits (texts, counts, ids:
	 * the builder's finish) */
	if (cm_diags_errors(d) == errors)
		cm_map_check(m, NULL, 0, d);
	if (cm_diags_errors(d) > errors)
		rc = CM_EINVAL;
out:
	if (r.oom && !rc)
		rc = CM_ENOMEM;
	for (size_t i = 0; i < nts; i++)
		free(ts[i].name);
	free(ts);
	free(gid);
	free(glines);
	free(r.named_by);
	free(r.island_by);
	free(r.print_by);
	for (size_t i = 0; r.city_pts && m && i < m->n_bigcities; i++)
		free(r.city_pts[i]);
	free(r.cities);
	free(r.city_pts);
	free(r.city_npts);
	free(r.city_box);
	if (rc) {
		cm_map_builder_free(r.b);
		return rc;
	}
	return cm_map_builder_finish(r.b, "CM0219", file, d, out);
}

/* ---- what a TMX may hold, counted before it is parsed (issue 33.6) ---- */

/* Whether c may follow an element name in a tag. */
static bool name_ends(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/' || c == '>';
}

/* The value of attribute name in the tag [p, e) as a whole number, or dflt. */
static long tag_attr(const char *p, const char *e, const char *name, long dflt)
{
	size_t n = strlen(name);
	for (const char *q = p; q + n + 2 < e; q++)
		if (name_ends(q[-1]) && memcmp(q, name, n) == 0 && q[n] == '=' && (q[n + 1] == '"' || q[n + 1] == '\'')) {
			long v = 0;
			for (q += n + 2; q < e && *q >= '0' && *q <= '9' && v <= 100000000L; q++)
				v = v * 10 + (*q - '0');
			return v;
		}
	return dflt;
}

/* The line of position p of buf. */
static unsigned line_of(const char *buf, const char *p)
{
	unsigned line = 1;
	for (const char *q = buf; (q = memchr(q, '\n', (size_t)(p - q))) != NULL; q++)
		line++;
	return line;
}

/* A map of W x H squares holds one tile per square in its squares layer
 * and at most four objects per square (a name, an island square, a piece,
 * prints on its sides, markers), and beyond that at most CM_ITEMS_MAX
 * more of each (the tiles of an embedded tileset; islands, big cities,
 * ferries, markers, layers carcamap does not read). A document with more
 * is refused on its text, before libxml2 builds a tree of it: 10^6 markers
 * on a small map (64 MB) would cost a gigabyte of tree to refuse. The map
 * size is the <map> element's (the largest grid when it gives none). */
static int tmx_budget(const char *buf, size_t len, const char *file, cm_diags *d)
{
	const char *end = buf + len, *p = buf;
	long w = CM_GRID_MAX, h = CM_GRID_MAX;
	for (; (p = memchr(p, '<', (size_t)(end - p))) != NULL && end - p > 4; p++)
		if (memcmp(p + 1, "map", 3) == 0 && name_ends(p[4])) {
			const char *e = memchr(p, '>', (size_t)(end - p));
			w = tag_attr(p + 4, e ? e : end, "width", CM_GRID_MAX);
			h = tag_attr(p + 4, e ? e : end, "height", CM_GRID_MAX);
			break;
		}
	if (w < 1 || w > CM_GRID_MAX)
		w = CM_GRID_MAX;
	if (h < 1 || h > CM_GRID_MAX)
		h = CM_GRID_MAX;
	size_t squares = (size_t)w * (size_t)h, n_obj = 0, n_tile = 0;
	const size_t max_obj = 4 * squares + CM_ITEMS_MAX, max_tile = squares + CM_ITEMS_MAX;
	for (p = buf; (p = memchr(p, '<', (size_t)(end - p))) != NULL; p++) {
		const char *what = NULL;
		size_t max = 0;
		if (end - p > 7 && memcmp(p + 1, "object", 6) == 0 && name_ends(p[7]) && ++n_obj > max_obj)
			what = "objects", max = max_obj;
		else if (end - p > 5 && memcmp(p + 1, "tile", 4) == 0 && name_ends(p[5]) && ++n_tile > max_tile)
			what = "tiles", max = max_tile;
		if (what) {
			cm_diags_check(d, "CM0004", file, line_of(buf, p), 0, NULL,
			               "more than %zu %s: a map of %ld x %ld squares holds at most %s",
			               max, what, w, h,
			               *what == 'o' ? "4 objects per square and 65536 more"
			                            : "one tile per square and 65536 more (an embedded tileset's)");
			return CM_EINVAL;
		}
	}
	return 0;
}

int cm_tmx_load_memory(const char *buf, size_t len, const char *file, cm_diags *d, cm_map **out)
{
	xmlDoc *doc;
	*out = NULL;
	int rc = cm_xml_load_memory_checked(buf, len, file, NULL, tmx_budget, d, &doc);
	if (rc)
		return rc;
	rc = load_doc(doc, file, d, out);
	cm_xml_free_doc(doc);
	return rc;
}

int cm_tmx_load_file(const char *path, cm_diags *d, cm_map **out)
{
	xmlDoc *doc;
	*out = NULL;
	int rc = cm_xml_load_file_checked(path, NULL, tmx_budget, d, &doc);
	if (rc)
		return rc;
	rc = load_doc(doc, path, d, out);
	cm_xml_free_doc(doc);
	return rc;
}
