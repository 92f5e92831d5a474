/* SPDX-License-Identifier: MIT */
/* map.c: the map model (carcamap/map.h): construction, names of kinds, rule
 * defaults, the descriptor reader (schemas/map.md, combined maps included),
 * the canonical writer, model equality and the structural checks CM02xx.
 * Nothing else reads or writes map XML. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/tree.h>
#include "carcamap/catalog.h"
#include "carcamap/image.h"
#include "carcamap/map.h"
#include "io/feature_int.h"
#include "base/util_int.h"
#include "io/xml_int.h"

static const char *const sq_names[CM_SQ_KIND_COUNT] = {
	"none", "land", "start", "town", "bigcity", "waves", "landmark", "island", "half"
};

const char *cm_square_kind_name(cm_square_kind k)
{
	return (unsigned)k < CM_SQ_KIND_COUNT ? sq_names[k] : "?";
}

int cm_square_kind_parse(const char *s, cm_square_kind *out)
{
	for (int i = 0; i < CM_SQ_KIND_COUNT; i++)
		if (strcmp(s, sq_names[i]) == 0) {
			*out = (cm_square_kind)i;
			return 0;
		}
	return CM_EINVAL;
}

static const char sq_chars[CM_SQ_KIND_COUNT + 1] = ".#STB~LIH";

char cm_square_kind_char(cm_square_kind k)
{
	return (unsigned)k < CM_SQ_KIND_COUNT ? sq_chars[k] : '?';
}

int cm_square_kind_from_char(char c, cm_square_kind *out)
{
	const char *p = c ? strchr(sq_chars, c) : NULL;
	if (!p)
		return CM_EINVAL;
	*out = (cm_square_kind)(p - sq_chars);
	return 0;
}

bool cm_square_kind_playable(cm_square_kind k)
{
	return k == CM_SQ_LAND || k == CM_SQ_START || k == CM_SQ_TOWN || k == CM_SQ_ISLAND;
}

const char *cm_print_kind_name(cm_print_kind k)
{
	static const char *const n[4] = { "none", "neutral", "road", "city" };
	return (unsigned)k < 4 ? n[k] : "?";
}

void cm_rules_default(cm_rules *r, cm_edition e)
{
	memset(r, 0, sizeof *r);
	r->edition = e;
	r->tiny_city = e == CM_EDITION_C1;
	r->farmers = CM_FARMERS_C2;
	r->farmers_bigcity = true;
	r->abbey_edge = true;
}

int cm_map_new(int cols, int rows, cm_map **out)
{
	*out = NULL;
	if (cols <= 0 || rows <= 0 || cols > 1024 || rows > 1024)
		return CM_EINVAL;
	cm_map *m = calloc(1, sizeof *m);
	if (!m)
		return CM_ENOMEM;
	m->squares = calloc((size_t)cols * (size_t)rows, sizeof *m->squares);
	if (!m->squares) {
		free(m);
		return CM_ENOMEM;
	}
	m->cols = cols;
	m->rows = rows;
	for (int i = 0; i < cols * rows; i++) {
		m->squares[i].island = -1;
		m->squares[i].bigcity = -1;
	}
	m->setup.followers = 9;
	m->seam = -1;
	cm_rules_default(&m->rules, CM_EDITION_C2);
	*out = m;
	return 0;
}

void cm_map_free(cm_map *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->cols * m->rows; i++) {
		cm_square *s = &m->squares[i];
		free(s->name);
		for (size_t k = 0; k < s->n_markers; k++)
			free(s->markers[k]);
		free(s->markers);
		for (int e = 0; e < 4; e++)
			free(s->print[e].label);
	}
	free(m->squares);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		for (size_t k = 0; k < m->bigcities[i].n_pieces; k++)
			cm_tile_type_clear(&m->bigcities[i].pieces[k].tile);
		free(m->bigcities[i].pieces);
		free(m->bigcities[i].name);
	}
	free(m->bigcities);
	for (size_t i = 0; i < m->n_ferries; i++)
		free(m->ferries[i].name);
	free(m->ferries);
	for (size_t i = 0; i < m->n_islands; i++) {
		free(m->islands[i].name);
		free(m->islands[i].title);
	}
	free(m->islands);
	for (size_t i = 0; i < m->n_deck; i++) {
		free(m->deck[i].tileset);
		free(m->deck[i].tile);
	}
	free(m->deck);
	free(m->id);
	free(m->name);
	free(m->image);
	free(m->legend);
	free(m->file);
	free(m);
}

/* ---- geometry shared by the reader, the checks and the writer ---- */

static const int side_dx[4] = { 0, 1, 0, -1 };
static const int side_dy[4] = { -1, 0, 1, 0 };
#define MAX_SIDE 4
#define MAX_GRID 1024         /* cm_map_new's limit */
#define WHERE_MAX 200

/* Whether side s of (x,y) faces a square that takes tiles or a printed big
 * city: such sides carry no edge print (MAP-EDGE-PRINT). */
static bool faces_land(const cm_map *m, int x, int y, int s)
{
	const cm_square *n = cm_map_at(m, x + side_dx[s], y + side_dy[s]);
	return n && (cm_square_kind_playable(n->kind) || n->kind == CM_SQ_BIGCITY);
}

void cm_map_default_prints(cm_map *m)
{
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			cm_square *sq = cm_map_at(m, x, y);
			if (!cm_square_kind_playable(sq->kind))
				continue;
			for (int s = 0; s < MAX_SIDE; s++)
				if (sq->print[s].kind == CM_PRINT_NONE && !faces_land(m, x, y, s))
					sq->print[s].kind = CM_PRINT_NEUTRAL;
		}
}

static int side_parse(const char *s)
{
	static const char *const n[4] = { "N", "E", "S", "W" };
	for (int i = 0; s && i < 4; i++)
		if (strcmp(s, n[i]) == 0)
			return i;
	return -1;
}

/* ---- the reader ---- */

typedef struct {
	cm_diags *d;
	const char *file;
	cm_map *m;
	uint8_t *seen;   /* per square: described by a <square> element */
	uint8_t *quiet;  /* per square: an island problem already reported (QUIET_ISLAND) */
	int depth;       /* <combine> nesting */
	unsigned flags;  /* CM_MAP_LOAD_… */
	size_t cap_islands, cap_bigcities, cap_ferries; /* allocated lengths of the map's arrays */
	bool oom;
} reader;

#define QUIET_ISLAND 1

static void rd_report(reader *r, const char *id, unsigned line, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static void rd_report(reader *r, const char *id, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_diags_check(r->d, id, r->file, line, col, NULL, "%s", msg ? msg : "out of memory");
	free(msg);
}

static char *rd_attr(reader *r, const xmlNode *n, const char *name)
{
	xmlChar *v = xmlGetNoNsProp((xmlNode *)n, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *s = cm_strdup((const char *)v);
	xmlFree(v);
	if (!s)
		r->oom = true;
	return s;
}

static bool rd_grow(reader *r, void **v, size_t *cap, size_t n, size_t es)
{
	if (cm_grow(v, cap, n, es) == 0)
		return true;
	r->oom = true;
	return false;
}

typedef struct {
	const char *p;   /* first character of the row */
	size_t n;        /* characters in the row */
	unsigned line;   /* source line */
	unsigned col;    /* source column of p, 0 when unknown */
} grid_row;

/* Reads <grid> into *kinds (cols*rows, row-major). Reports each unknown
 * character and each row whose length differs from the first (CM0216) and
 * goes on; fails only when no grid can be built. */
static int read_grid(reader *r, xmlNode *g, int *cols, int *rows, uint8_t **kinds, unsigned **lines)
{
	*kinds = NULL;
	*lines = NULL;
	xmlChar *txt = xmlNodeGetContent(g);
	if (!txt) {
		r->oom = true;
		return CM_ENOMEM;
	}
	unsigned gline = cm_xml_line(g);
	grid_row *rv = NULL;
	size_t nr = 0, cap = 0, width = 0;
	int rc = 0;
	unsigned line = gline;
	for (const char *p = (const char *)txt;; line++) {
		const char *e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		const char *a = p, *b = e;
		while (a < b && (*a == ' ' || *a == '\t' || *a == '\r'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
			b--;
		if (b > a) {
			if (!rd_grow(r, (void **)&rv, &cap, nr, sizeof *rv)) {
				rc = CM_ENOMEM;
				goto out;
			}
			/* on the <grid> line the text starts after the tag: column unknown */
			rv[nr++] = (grid_row){ a, (size_t)(b - a), line, line == gline ? 0 : (unsigned)(a - p) + 1 };
		}
		if (!*e)
			break;
		p = e + 1;
	}
	if (nr == 0) {
		rd_report(r, "CM0216", gline, 0, "grid has no rows");
		rc = CM_EINVAL;
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		if (rv[i].n != rv[0].n)
			rd_report(r, "CM0216", rv[i].line, rv[i].col,
			          "grid row y=%zu has %zu squares, row y=0 has %zu", i, rv[i].n, rv[0].n);
		if (rv[i].n > width)
			width = rv[i].n;
	}
	if (width > MAX_GRID || nr > MAX_GRID) {
		rd_report(r, "CM0216", gline, 0, "grid of %zu x %zu squares is larger than %d x %d", width, nr,
		          MAX_GRID, MAX_GRID);
		rc = CM_EINVAL;
		goto out;
	}
	*kinds = calloc(width * nr, 1);
	*lines = calloc(nr, sizeof **lines);
	if (!*kinds || !*lines) {
		r->oom = true;
		rc = CM_ENOMEM;
		goto out;
	}
	for (size_t y = 0; y < nr; y++)
		(*lines)[y] = rv[y].line;
	for (size_t y = 0; y < nr; y++)
		for (size_t x = 0; x < rv[y].n; x++) {
			unsigned char c = (unsigned char)rv[y].p[x];
			cm_square_kind k;
			if (cm_square_kind_from_char((char)c, &k) == 0) {
				(*kinds)[y * width + x] = (uint8_t)k;
				continue;
			}
			if (c >= 0x80 && c < 0xC0)
				continue; /* a UTF-8 continuation byte: its lead byte was reported */
			unsigned col = rv[y].col ? rv[y].col + (unsigned)x : 0;
			if (c > 0x20 && c < 0x7f)
				rd_report(r, "CM0216", rv[y].line, col,
				          "unknown square character '%c' at (%zu,%zu) in the grid", c, x, y);
			else
				rd_report(r, "CM0216", rv[y].line, col,
				          "unknown square byte 0x%02x at (%zu,%zu) in the grid", c, x, y);
		}
	*cols = (int)width;
	*rows = (int)nr;
out:
	free(rv);
	xmlFree(txt);
	return rc;
}

/* Deep copies of model parts, for combined maps. */
static int copy_tile(cm_tile_type *dst, const cm_tile_type *src)
{
	memset(dst, 0, sizeof *dst);
	*dst = *src;
	dst->id = NULL;
	dst->name = NULL;
	dst->features = NULL;
	dst->contacts = NULL;
	dst->n_features = dst->n_contacts = 0;
	if (src->n_features) {
		dst->features = calloc(src->n_features, sizeof *dst->features);
		if (!dst->features)
			return CM_ENOMEM;
		for (size_t i = 0; i < src->n_features; i++) {
			dst->features[i] = src->features[i];
			dst->features[i].id = NULL;
			dst->n_features = i + 1;
			if (src->features[i].id && !(dst->features[i].id = cm_strdup(src->features[i].id)))
				return CM_ENOMEM;
		}
	}
	if (src->n_contacts) {
		dst->contacts = malloc(src->n_contacts * sizeof *dst->contacts);
		if (!dst->contacts)
			return CM_ENOMEM;
		memcpy(dst->contacts, src->contacts, src->n_contacts * sizeof *dst->contacts);
		dst->n_contacts = src->n_contacts;
	}
	if ((src->id && !(dst->id = cm_strdup(src->id))) || (src->name && !(dst->name = cm_strdup(src->name))))
		return CM_ENOMEM;
	return 0;
}

static int add_marker(cm_square *sq, const char *text)
{
	char **v = realloc(sq->markers, (sq->n_markers + 1) * sizeof *v);
	if (!v)
		return CM_ENOMEM;
	sq->markers = v;
	if (!(v[sq->n_markers] = cm_strdup(text)))
		return CM_ENOMEM;
	sq->n_markers++;
	return 0;
}

/* Copies src into the empty square dst. Plain neutral prints are dropped:
 * they are the default, recomputed on the combined grid (a side that faced
 * a half square faces land once the halves pair). */
static int copy_square(cm_square *dst, const cm_square *src, int island_off, int bigcity_off, unsigned line)
{
	dst->kind = src->kind;
	dst->arms = src->arms;
	dst->island = src->island >= 0 ? src->island + island_off : -1;
	dst->bigcity = src->bigcity >= 0 ? src->bigcity + bigcity_off : -1;
	dst->line = line;
	if (src->name && !(dst->name = cm_strdup(src->name)))
		return CM_ENOMEM;
	for (size_t i = 0; i < src->n_markers; i++)
		if (add_marker(dst, src->markers[i]))
			return CM_ENOMEM;
	for (int s = 0; s < MAX_SIDE; s++) {
		const cm_edge_print *p = &src->print[s];
		if (p->kind == CM_PRINT_NEUTRAL && !p->arms && !p->label)
			continue;
		dst->print[s].kind = p->kind;
		dst->print[s].arms = p->arms;
		dst->print[s].line = line;
		if (p->label && !(dst->print[s].label = cm_strdup(p->label)))
			return CM_ENOMEM;
	}
	return 0;
}

static int load_path(const char *path, int depth, unsigned flags, cm_diags *d, cm_map **out);

/* Places both halves on one grid (MAP-HALF): the east map is laid over the
 * west map so that the east map's column 0 is the west map's last column,
 * shifted dy rows down. Two half squares on one place become a land square;
 * a half square left alone is reported (CM0215). Elements copied from the
 * halves take the <combine> element's line: they were checked in their own
 * files already, and what is left to report is about the seam. */
static int combine(reader *r, xmlNode *c, cm_map **out)
{
	static const char *const which[2] = { "west", "east" };
	*out = NULL;
	unsigned line = cm_xml_line(c);
	cm_map *half[2] = { NULL, NULL }, *m = NULL;
	int rc = 0;
	/* halves are plain maps: this also stops a descriptor combining itself */
	if (r->depth > 0) {
		rd_report(r, "CM0217", line, 0, "a half of a combined map cannot combine maps itself");
		return CM_EINVAL;
	}
	for (int h = 0; h < 2; h++) {
		char *rel = rd_attr(r, c, which[h]);
		char *path = rel ? cm_path_resolve(r->file, rel) : NULL;
		int lrc = path ? load_path(path, r->depth + 1, r->flags, r->d, &half[h]) : CM_ENOMEM;
		if (lrc == CM_ENOMEM) {
			r->oom = true;
			rc = CM_ENOMEM;
		} else if (lrc) {
			rd_report(r, "CM0217", line, 0, "%s map %s does not load", which[h], rel);
			if (!rc)
				rc = CM_EINVAL;
		}
		free(rel);
		free(path);
	}
	if (rc)
		goto out;
	const cm_map *w = half[0], *e = half[1];
	long long dy = cm_xml_attr_int(c, "dy", 0);
	long long y0 = dy < 0 ? dy : 0;
	long long cols = (long long)w->cols + e->cols - 1;
	long long rows = ((long long)w->rows > dy + e->rows ? (long long)w->rows : dy + e->rows) - y0;
	if (cols > MAX_GRID || rows > MAX_GRID) {
		rd_report(r, "CM0217", line, 0, "combined map of %lld x %lld squares is larger than %d x %d", cols,
		          rows, MAX_GRID, MAX_GRID);
		rc = CM_EINVAL;
		goto out;
	}
	if ((rc = cm_map_new((int)cols, (int)rows, &m)))
		goto out;
	const int ox[2] = { 0, w->cols - 1 }, oy[2] = { (int)-y0, (int)(dy - y0) };
	m->seam = ox[1];
	const int isl_off[2] = { 0, (int)w->n_islands }, bc_off[2] = { 0, (int)w->n_bigcities };
	for (int h = 0; h < 2; h++) {
		const cm_map *src = half[h];
		for (int y = 0; y < src->rows; y++)
			for (int x = 0; x < src->cols; x++) {
				const cm_square *s = cm_map_at(src, x, y);
				cm_square *t = cm_map_at(m, x + ox[h], y + oy[h]);
				if (s->kind == CM_SQ_NONE)
					continue;
				if (t->kind == CM_SQ_NONE) {
					if ((rc = copy_square(t, s, isl_off[h], bc_off[h], line)))
						goto out;
					continue;
				}
				/* only the seam column holds squares of both maps */
				if (t->kind == CM_SQ_HALF && s->kind == CM_SQ_HALF) {
					t->kind = CM_SQ_LAND;
					t->arms = (uint8_t)(t->arms + s->arms);
					if (!t->name && s->name && !(t->name = cm_strdup(s->name)))
						rc = CM_ENOMEM;
					for (size_t k = 0; !rc && k < s->n_markers; k++)
						rc = add_marker(t, s->markers[k]);
					if (rc)
						goto out;
				} else if (t->kind != CM_SQ_HALF && s->kind != CM_SQ_HALF) {
					rd_report(r, "CM0215", line, 0,
					          "seam square (%d,%d) is %s on the west map and %s on the east map",
					          x + ox[h], y + oy[h], cm_square_kind_name(t->kind),
					          cm_square_kind_name(s->kind));
				}
				/* a half square meeting a whole one stays half: reported below */
			}
	}
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			if (cm_map_at(m, x, y)->kind != CM_SQ_HALF)
				continue;
			int wy = y - oy[0];
			bool west = x < ox[1] || (x == ox[1] && wy >= 0 && wy < w->rows &&
			                          cm_map_at(w, x, wy)->kind == CM_SQ_HALF);
			rd_report(r, "CM0215", line, 0, "half square (%d,%d) of the %s map pairs with no half square of the %s map",
			          x, y, west ? "west" : "east", west ? "east" : "west");
		}
	/* islands, big cities and ferries of both halves, in that order */
	size_t ni = w->n_islands + e->n_islands, nb = w->n_bigcities + e->n_bigcities,
	       nf = w->n_ferries + e->n_ferries;
	if ((ni && !(m->islands = calloc(ni, sizeof *m->islands))) ||
	    (nb && !(m->bigcities = calloc(nb, sizeof *m->bigcities))) ||
	    (nf && !(m->ferries = calloc(nf, sizeof *m->ferries)))) {
		rc = CM_ENOMEM;
		goto out;
	}
	for (int h = 0; h < 2; h++) {
		const cm_map *src = half[h];
		for (size_t i = 0; i < src->n_islands; i++) {
			cm_island *t = &m->islands[m->n_islands++];
			t->line = line;
			if (!(t->name = cm_strdup(src->islands[i].name)) ||
			    (src->islands[i].title && !(t->title = cm_strdup(src->islands[i].title)))) {
				rc = CM_ENOMEM;
				goto out;
			}
		}
		for (size_t i = 0; i < src->n_bigcities; i++) {
			const cm_bigcity *sb = &src->bigcities[i];
			cm_bigcity *t = &m->bigcities[m->n_bigcities++];
			t->line = line;
			if ((sb->name && !(t->name = cm_strdup(sb->name))) ||
			    !(t->pieces = calloc(sb->n_pieces ? sb->n_pieces : 1, sizeof *t->pieces))) {
				rc = CM_ENOMEM;
				goto out;
			}
			for (size_t k = 0; k < sb->n_pieces; k++) {
				cm_bigcity_piece *tp = &t->pieces[t->n_pieces++];
				tp->x = sb->pieces[k].x + ox[h];
				tp->y = sb->pieces[k].y + oy[h];
				if ((rc = copy_tile(&tp->tile, &sb->pieces[k].tile)))
					goto out;
				tp->tile.line = line;
			}
		}
		for (size_t i = 0; i < src->n_ferries; i++) {
			const cm_ferry *sf = &src->ferries[i];
			cm_ferry *t = &m->ferries[m->n_ferries++];
			*t = *sf;
			t->name = NULL;
			t->x1 += ox[h];
			t->x2 += ox[h];
			t->y1 += oy[h];
			t->y2 += oy[h];
			t->line = line;
			if (sf->name && !(t->name = cm_strdup(sf->name))) {
				rc = CM_ENOMEM;
				goto out;
			}
		}
	}
out:
	cm_map_free(half[0]);
	cm_map_free(half[1]);
	if (rc) {
		if (rc == CM_ENOMEM)
			r->oom = true;
		cm_map_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

static int island_index(const cm_map *m, const char *id)
{
	for (size_t i = 0; i < m->n_islands; i++)
		if (m->islands[i].name && strcmp(m->islands[i].name, id) == 0)
			return (int)i;
	return -1;
}

static void read_island(reader *r, xmlNode *n)
{
	cm_map *m = r->m;
	if (!rd_grow(r, (void **)&m->islands, &r->cap_islands, m->n_islands, sizeof *m->islands))
		return;
	cm_island *is = &m->islands[m->n_islands++];
	memset(is, 0, sizeof *is);
	is->name = rd_attr(r, n, "id");
	is->title = rd_attr(r, n, "name");
	is->line = cm_xml_line(n);
}

static void read_square(reader *r, xmlNode *n)
{
	cm_map *m = r->m;
	unsigned line = cm_xml_line(n);
	int x = cm_xml_attr_int(n, "x", 0), y = cm_xml_attr_int(n, "y", 0);
	cm_square *sq = cm_map_at(m, x, y);
	if (!sq) {
		rd_report(r, "CM0201", line, 0, "square (%d,%d) is outside the %dx%d grid", x, y, m->cols, m->rows);
		return;
	}
	size_t i = (size_t)y * (size_t)m->cols + (size_t)x;
	if (r->seen[i]) {
		rd_report(r, "CM0202", line, 0, "square (%d,%d) is described twice (first on line %u)", x, y, sq->line);
		return;
	}
	r->seen[i] = 1;
	char *kind = rd_attr(r, n, "kind");
	cm_square_kind k;
	if (kind && cm_square_kind_parse(kind, &k) == 0) {
		if (sq->kind != CM_SQ_NONE)
			rd_report(r, "CM0202", line, 0,
			          "square (%d,%d) is %s in the grid and %s here: give its kind in one place", x, y,
			          cm_square_kind_name(sq->kind), kind);
		else
			sq->kind = k;
	}
	free(kind);
	sq->line = line;
	char *name = rd_attr(r, n, "name");
	if (name) {
		free(sq->name);
		sq->name = name;
	}
	sq->arms = (uint8_t)cm_xml_attr_int(n, "arms", sq->arms);
	char *island = rd_attr(r, n, "island");
	if (island) {
		sq->island = island_index(m, island);
		if (sq->island < 0) {
			rd_report(r, "CM0205", line, 0, "square (%d,%d) names island %s, which no <island> declares", x,
			          y, island);
			r->quiet[i] |= QUIET_ISLAND;
		}
		free(island);
	}
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next)) {
		xmlChar *t = xmlNodeGetContent(c);
		if (!t || add_marker(sq, (const char *)t))
			r->oom = true;
		xmlFree(t);
	}
}

static void read_edge(reader *r, xmlNode *n)
{
	unsigned line = cm_xml_line(n);
	int x = cm_xml_attr_int(n, "x", 0), y = cm_xml_attr_int(n, "y", 0);
	char *side = rd_attr(r, n, "side"), *print = rd_attr(r, n, "print");
	int s = side_parse(side);
	cm_square *sq = cm_map_at(r->m, x, y);
	if (!sq) {
		rd_report(r, "CM0201", line, 0, "edge print at square (%d,%d) is outside the %dx%d grid", x, y,
		          r->m->cols, r->m->rows);
	} else if (s >= 0 && print) {
		cm_edge_print *p = &sq->print[s];
		if (p->kind != CM_PRINT_NONE) {
			rd_report(r, "CM0202", line, 0, "side %s of square (%d,%d) has a print already (line %u)", side, x,
			          y, p->line);
		} else {
			p->kind = strcmp(print, "road") == 0 ? CM_PRINT_ROAD
			          : strcmp(print, "city") == 0 ? CM_PRINT_CITY : CM_PRINT_NEUTRAL;
			p->arms = (uint8_t)cm_xml_attr_int(n, "arms", 0);
			p->label = rd_attr(r, n, "label");
			p->line = line;
		}
	}
	free(side);
	free(print);
}

/* Big-city pieces use the tile set's feature vocabulary (feature.c); every
 * problem with them is CM0209. */
static const cm_feature_rules piece_rules = {
	.slot_twice = "CM0209", .uncovered = "CM0209", .shape = "CM0209", .feature_id = "CM0209",
	.touches = "CM0209", .contact = "CM0209", .contact_size = "CM0209", .too_many = "CM0209",
};

/* Reads a <piece>'s features. Names in `touches` and <contact> that are no
 * feature, and contacts of fewer than two features, are reported here (the
 * model keeps no line per contact for the checks); the rest is left to the
 * checks, which see in-memory maps too. */
static void read_piece(reader *r, xmlNode *pn, cm_bigcity_piece *pc)
{
	cm_tile_type *t = &pc->tile;
	t->line = cm_xml_line(pn);
	pc->x = cm_xml_attr_int(pn, "x", 0);
	pc->y = cm_xml_attr_int(pn, "y", 0);
	if (cm_feature_read(pn, &piece_rules, "piece", true, r->d, r->file, t, NULL))
		r->oom = true;
}

static void read_bigcity(reader *r, xmlNode *n)
{
	cm_map *m = r->m;
	if (!rd_grow(r, (void **)&m->bigcities, &r->cap_bigcities, m->n_bigcities, sizeof *m->bigcities))
		return;
	int idx = (int)m->n_bigcities;
	cm_bigcity *bc = &m->bigcities[m->n_bigcities++];
	memset(bc, 0, sizeof *bc);
	bc->name = rd_attr(r, n, "name");
	bc->line = cm_xml_line(n);
	size_t np = 0;
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next))
		np++;
	if (!(bc->pieces = calloc(np ? np : 1, sizeof *bc->pieces))) {
		r->oom = true;
		return;
	}
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next)) {
		cm_bigcity_piece *pc = &bc->pieces[bc->n_pieces++];
		read_piece(r, c, pc);
		cm_square *sq = cm_map_at(m, pc->x, pc->y);
		if (sq && sq->bigcity < 0)
			sq->bigcity = idx;
	}
}

static void read_ferry(reader *r, xmlNode *n)
{
	cm_map *m = r->m;
	if (!rd_grow(r, (void **)&m->ferries, &r->cap_ferries, m->n_ferries, sizeof *m->ferries))
		return;
	cm_ferry *f = &m->ferries[m->n_ferries++];
	memset(f, 0, sizeof *f);
	f->name = rd_attr(r, n, "name");
	f->x1 = cm_xml_attr_int(n, "x1", 0);
	f->y1 = cm_xml_attr_int(n, "y1", 0);
	f->x2 = cm_xml_attr_int(n, "x2", 0);
	f->y2 = cm_xml_attr_int(n, "y2", 0);
	char *s1 = rd_attr(r, n, "side1"), *s2 = rd_attr(r, n, "side2");
	f->s1 = (cm_side)(side_parse(s1) < 0 ? 0 : side_parse(s1));
	f->s2 = (cm_side)(side_parse(s2) < 0 ? 0 : side_parse(s2));
	free(s1);
	free(s2);
	f->arms = (uint8_t)cm_xml_attr_int(n, "arms", 0);
	f->line = cm_xml_line(n);
}

static void read_setup(reader *r, xmlNode *n)
{
	cm_map *m = r->m;
	int starts = 0;
	for (int i = 0; i < m->cols * m->rows; i++)
		starts += m->squares[i].kind == CM_SQ_START;
	/* by default every start square is used (and at least one is needed) */
	cm_setup *s = &m->setup;
	s->starts_used = starts ? starts : 1;
	s->followers = 9;
	s->line = m->line;
	if (!n)
		return;
	s->line = cm_xml_line(n);
	s->starts_used = cm_xml_attr_int(n, "starts", s->starts_used);
	s->tiles_min = cm_xml_attr_int(n, "tiles-min", 0);
	s->tiles_max = cm_xml_attr_int(n, "tiles-max", 0);
	s->followers = cm_xml_attr_int(n, "followers", 9);
}

static void read_deck(reader *r, xmlNode *n)
{
	cm_map *m = r->m;
	size_t cap = 0;
	for (xmlNode *c = cm_xml_elem(n ? n->children : NULL); c; c = cm_xml_elem(c->next)) {
		if (!rd_grow(r, (void **)&m->deck, &cap, m->n_deck, sizeof *m->deck))
			return;
		cm_deck_entry *e = &m->deck[m->n_deck++];
		memset(e, 0, sizeof *e);
		e->line = cm_xml_line(c);
		bool whole = cm_xml_is(c, "set");
		e->tileset = rd_attr(r, c, whole ? "id" : "set");
		e->tile = whole ? NULL : rd_attr(r, c, "id");
		e->count = whole ? -1 : cm_xml_attr_int(c, "count", 1);
	}
}

static void read_rules(reader *r, xmlNode *n)
{
	cm_rules *ru = &r->m->rules;
	cm_edition ed = CM_EDITION_C2;
	char *e = n ? rd_attr(r, n, "edition") : NULL;
	if (e)
		cm_edition_parse(e, &ed);
	free(e);
	cm_rules_default(ru, ed);
	if (!n)
		return;
	ru->tiny_city = cm_xml_attr_bool(n, "tiny-city", ru->tiny_city);
	char *f = rd_attr(r, n, "farmers");
	if (f)
		ru->farmers = strcmp(f, "C1") == 0 ? CM_FARMERS_C1 : CM_FARMERS_C2;
	free(f);
	ru->farmers_bigcity = cm_xml_attr_bool(n, "farmers-bigcity", ru->farmers_bigcity);
	ru->town_extra_turn = cm_xml_attr_bool(n, "town-extra-turn", ru->town_extra_turn);
	ru->town_cost = cm_xml_attr_bool(n, "town-cost", ru->town_cost);
	ru->town_road_bonus = cm_xml_attr_bool(n, "town-road-bonus", ru->town_road_bonus);
	ru->abbey_edge = cm_xml_attr_bool(n, "abbey-edge", ru->abbey_edge);
}

static void check_structure(const cm_map *m, cm_diags *d, const uint8_t *quiet);

static int load_doc(xmlDoc *doc, const char *file, int depth, unsigned flags, cm_diags *d,
                    cm_map **out)
{
	*out = NULL;
	xmlNode *root = xmlDocGetRootElement(doc);
	reader r = { .d = d, .file = file, .depth = depth, .flags = flags };
	size_t errors = cm_diags_errors(d);
	uint8_t *kinds = NULL;
	unsigned *row_lines = NULL;
	cm_map *m = NULL;
	int rc = 0;
	unsigned line = cm_xml_line(root);
	int format = cm_xml_attr_int(root, "format", 1);
	if (format != 1) {
		rd_report(&r, "CM0218", line, 0, "map format %d is newer than this build reads (1)", format);
		return CM_EVERSION;
	}
	xmlNode *grid = NULL, *comb = NULL, *image = NULL, *setup = NULL, *deck = NULL, *rules = NULL;
	for (xmlNode *c = cm_xml_elem(root->children); c; c = cm_xml_elem(c->next)) {
		if (cm_xml_is(c, "grid"))
			grid = c;
		else if (cm_xml_is(c, "combine"))
			comb = c;
		else if (cm_xml_is(c, "image"))
			image = c;
		else if (cm_xml_is(c, "setup"))
			setup = c;
		else if (cm_xml_is(c, "deck"))
			deck = c;
		else if (cm_xml_is(c, "rules"))
			rules = c;
	}
	int acols = cm_xml_attr_int(root, "cols", 0), arows = cm_xml_attr_int(root, "rows", 0);
	if (comb) {
		if ((rc = combine(&r, comb, &m)))
			goto out;
	} else {
		int cols = acols, rows = arows;
		if (grid) {
			if ((rc = read_grid(&r, grid, &cols, &rows, &kinds, &row_lines)))
				goto out;
		} else if (!cols || !rows) {
			rd_report(&r, "CM0216", line, 0, "map has no size: give a <grid>, or cols and rows");
			rc = CM_EINVAL;
			goto out;
		} else if (cols > MAX_GRID || rows > MAX_GRID) {
			rd_report(&r, "CM0216", line, 0, "map of %d x %d squares is larger than %d x %d", cols, rows,
			          MAX_GRID, MAX_GRID);
			rc = CM_EINVAL;
			goto out;
		}
		if ((rc = cm_map_new(cols, rows, &m)))
			goto out;
		/* a grid row is the defining element of its squares */
		for (int i = 0; kinds && i < cols * rows; i++) {
			m->squares[i].kind = (cm_square_kind)kinds[i];
			m->squares[i].line = row_lines[i / cols];
		}
	}
	if ((acols && acols != m->cols) || (arows && arows != m->rows))
		rd_report(&r, "CM0216", line, 0, "map says %d x %d squares, its %s has %d x %d", acols ? acols : m->cols,
		          arows ? arows : m->rows, comb ? "combination" : "grid", m->cols, m->rows);
	r.m = m;
	r.cap_islands = m->n_islands; /* a combination allocates exactly */
	r.cap_bigcities = m->n_bigcities;
	r.cap_ferries = m->n_ferries;
	m->line = line;
	m->id = rd_attr(&r, root, "id");
	m->name = rd_attr(&r, root, "name");
	if (file && !(m->file = cm_strdup(file)))
		r.oom = true;
	if (image) {
		m->image = rd_attr(&r, image, "src");
		m->legend = rd_attr(&r, image, "legend");
	}
	size_t n = (size_t)m->cols * (size_t)m->rows;
	r.seen = calloc(n, 1);
	r.quiet = calloc(n, 1);
	if (!r.seen || !r.quiet) {
		rc = CM_ENOMEM;
		goto out;
	}
	/* islands first (squares name them), then squares (edges, pieces and
	 * ferries need the final kinds), then the rest in document order */
	for (xmlNode *c = cm_xml_elem(root->children); c; c = cm_xml_elem(c->next))
		if (cm_xml_is(c, "island"))
			read_island(&r, c);
	for (xmlNode *c = cm_xml_elem(root->children); c; c = cm_xml_elem(c->next))
		if (cm_xml_is(c, "square"))
			read_square(&r, c);
	for (xmlNode *c = cm_xml_elem(root->children); c; c = cm_xml_elem(c->next)) {
		if (cm_xml_is(c, "edge"))
			read_edge(&r, c);
		else if (cm_xml_is(c, "bigcity"))
			read_bigcity(&r, c);
		else if (cm_xml_is(c, "ferry"))
			read_ferry(&r, c);
	}
	read_setup(&r, setup);
	read_deck(&r, deck);
	read_rules(&r, rules);
	if (r.oom) {
		rc = CM_ENOMEM;
		goto out;
	}
	/* the image gives the squares the descriptor leaves open; checking
	 * before it is read would report a board of empty squares */
	if ((flags & CM_MAP_LOAD_IMAGE) && m->image) {
		int irc = cm_image_apply_descriptor(m, file, d);
		if (irc) {
			rc = irc == CM_ENOMEM ? CM_ENOMEM : CM_EINVAL;
			goto out;
		}
	}
	cm_map_default_prints(m);
	check_structure(m, d, r.quiet);
	if (cm_diags_errors(d) > errors)
		rc = CM_EINVAL;
out:
	if (r.oom && !rc)
		rc = CM_ENOMEM;
	free(kinds);
	free(row_lines);
	free(r.seen);
	free(r.quiet);
	if (rc == CM_EINVAL && m && (flags & CM_MAP_LOAD_PARTIAL)) {
		*out = m; /* what was understood, for pictures of the problems */
		return rc;
	}
	if (rc) {
		cm_map_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

static int load_path(const char *path, int depth, unsigned flags, cm_diags *d, cm_map **out)
{
	xmlDoc *doc;
	*out = NULL;
	int rc = cm_xml_load_file(path, "map.xsd", d, &doc);
	if (rc)
		return rc;
	rc = load_doc(doc, path, depth, flags, d, out);
	xmlFreeDoc(doc);
	return rc;
}

int cm_map_load_file(const char *path, cm_diags *d, cm_map **out)
{
	return load_path(path, 0, 0, d, out);
}

int cm_map_load_file_flags(const char *path, unsigned flags, cm_diags *d, cm_map **out)
{
	return load_path(path, 0, flags, d, out);
}

int cm_map_load_memory(const char *buf, size_t len, const char *file, cm_diags *d, cm_map **out)
{
	xmlDoc *doc;
	*out = NULL;
	int rc = cm_xml_load_memory(buf, len, file, "map.xsd", d, &doc);
	if (rc)
		return rc;
	rc = load_doc(doc, file, 0, 0, d, out);
	xmlFreeDoc(doc);
	return rc;
}

/* ---- structural checks (CM02xx) ---- */

static void chk(const cm_map *m, cm_diags *d, const char *id, unsigned line, const char *where,
                const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;
/* Reports at the element's line in m->file; the where string goes along
 * when there is no line (maps from an image, a pack or built in memory). */
static void chk(const cm_map *m, cm_diags *d, const char *id, unsigned line, const char *where,
                const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_diags_check(d, id, m->file, line, 0, line && m->file ? NULL : where, "%s",
	               msg ? msg : "out of memory");
	free(msg);
}

static void chk_sq(const cm_map *m, cm_diags *d, int x, int y, const char *id, unsigned line, const char *where,
                   const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 8, 9)))
#endif
	;
/* chk about square (x,y): the diagnostic carries the square (diag.h). */
static void chk_sq(const cm_map *m, cm_diags *d, int x, int y, const char *id, unsigned line, const char *where,
                   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	chk(m, d, id, line, where, "%s", msg ? msg : "out of memory");
	cm_diags_set_square(d, x, y);
	free(msg);
}

static const char *where_fmt(char *buf, const cm_map *m, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static const char *where_fmt(char *buf, const cm_map *m, const char *fmt, ...)
{
	int n = snprintf(buf, WHERE_MAX, "map %s, ", m->id ? m->id : "?");
	if (n < 0 || n >= WHERE_MAX)
		return buf;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, WHERE_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

static unsigned sq_line(const cm_map *m, const cm_square *sq, unsigned line)
{
	return line ? line : sq->line ? sq->line : m->file ? m->line : 0;
}

/* Edge category of a piece's slot (as a tile side would show it). */
static cm_edge_kind slot_category(const cm_tile_type *t, int bit)
{
	for (size_t i = 0; i < t->n_features; i++)
		if (t->features[i].slots & (1u << bit))
			return t->features[i].kind == CM_FEAT_CITY ? CM_EDGE_CITY
			       : t->features[i].kind == CM_FEAT_ROAD ? CM_EDGE_ROAD : CM_EDGE_FIELD;
	return CM_EDGE_FIELD;
}

typedef struct {
	const cm_map *m;
	cm_diags *d;
	const char *where;
} piece_report;

static void report_piece(void *arg, const char *rule, unsigned line, const cm_feature *f, const char *msg)
{
	const piece_report *pr = arg;
	(void)f;
	chk(pr->m, pr->d, rule, line, pr->where, "%s", msg);
}

/* One piece's features, as a tile set's checks would see a tile (CM0209);
 * a printed big city has no abbey. */
static void check_piece(const cm_map *m, cm_diags *d, const cm_bigcity *bc, const cm_bigcity_piece *pc)
{
	char w[WHERE_MAX], name[64];
	const cm_tile_type *t = &pc->tile;
	where_fmt(w, m, "big city %s, piece (%d,%d)", bc->name ? bc->name : "?", pc->x, pc->y);
	snprintf(name, sizeof name, "piece (%d,%d)", pc->x, pc->y);
	piece_report pr = { m, d, w };
	const cm_feature_checker fc = { &piece_rules, "piece", name, NULL, report_piece, &pr };
	cm_feature_check(&fc, t);
	for (size_t i = 0; i < t->n_features; i++)
		if (t->features[i].kind == CM_FEAT_ABBEY)
			chk(m, d, "CM0209", cm_feature_line(t, &t->features[i]), w,
			    "abbey '%s' on piece (%d,%d): a printed big city has no abbey",
			    cm_feature_id(&t->features[i]), pc->x, pc->y);
}

/* Pieces that sit side by side must meet like tiles (city slot to city
 * slot, road to road, field to field), and the pieces of one big city must
 * hang together (MAP-BIGCITY). */
static void check_bigcities(const cm_map *m, cm_diags *d, const cm_bigcity_piece **at)
{
	char w[WHERE_MAX];
	for (size_t c = 0; c < m->n_bigcities; c++) {
		const cm_bigcity *bc = &m->bigcities[c];
		const char *name = bc->name ? bc->name : "?";
		for (size_t k = 0; k < bc->n_pieces; k++) {
			const cm_bigcity_piece *a = &bc->pieces[k];
			for (int s = CM_E; s <= CM_S; s++) { /* each shared side once */
				int nx = a->x + side_dx[s], ny = a->y + side_dy[s];
				if (!cm_map_at(m, a->x, a->y) || !cm_map_at(m, nx, ny))
					continue;
				const cm_bigcity_piece *b = at[ny * m->cols + nx];
				if (!b || at[a->y * m->cols + a->x] != a)
					continue;
				for (int p = 0; p < 3; p++) {
					int bit = 3 * s + p;
					cm_edge_kind ka = slot_category(&a->tile, bit);
					cm_edge_kind kb = slot_category(&b->tile, cm_slot_facing(bit));
					if (ka == kb)
						continue;
					where_fmt(w, m, "big city %s, piece (%d,%d), side %s", name, a->x, a->y,
					          cm_side_name((cm_side)s));
					chk(m, d, "CM0207", a->tile.line ? a->tile.line : bc->line, w,
					    "pieces (%d,%d) and (%d,%d) do not match: slot %s (%s) meets slot %s (%s)", a->x,
					    a->y, nx, ny, cm_slot_name(bit), cm_edge_kind_name(ka),
					    cm_slot_name(cm_slot_facing(bit)), cm_edge_kind_name(kb));
					break;
				}
			}
		}
		/* connectivity: grow from piece 0 through side-by-side pieces of this city */
		if (bc->n_pieces < 2)
			continue;
		size_t n = bc->n_pieces, reached = 1;
		bool *in = calloc(n, sizeof *in);
		if (!in)
			return;
		in[0] = true;
		for (bool grew = true; grew;) {
			grew = false;
			for (size_t i = 0; i < n; i++)
				for (size_t j = 0; !in[i] && j < n; j++)
					if (in[j] && abs(bc->pieces[i].x - bc->pieces[j].x) + abs(bc->pieces[i].y - bc->pieces[j].y) == 1) {
						in[i] = true;
						reached++;
						grew = true;
					}
		}
		free(in);
		if (reached < n)
			chk(m, d, "CM0207", bc->line, where_fmt(w, m, "big city %s", name),
			    "big city %s falls apart: only %zu of its %zu pieces join the first side by side", name, reached,
			    n);
	}
}

typedef struct {
	const char *name;
	int space;       /* 0 places (squares, big cities), 1 island ids, 2 ferries */
	size_t order;    /* position in the walk, for a stable sort */
	unsigned line;
	char what[64];   /* "square (3,4)" for the where string */
} name_ref;

static int name_cmp(const void *a, const void *b)
{
	const name_ref *x = a, *y = b;
	if (x->space != y->space)
		return x->space - y->space;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Names of places, island ids and ferry names are each unique in a map. */
static void check_names(const cm_map *m, cm_diags *d)
{
	size_t cap = 0, n = 0;
	name_ref *v = NULL;
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = cm_map_at(m, x, y);
			if (!sq->name)
				continue;
			if (cm_grow((void **)&v, &cap, n, sizeof *v))
				goto out;
			v[n] = (name_ref){ sq->name, 0, n, sq->line, "" };
			snprintf(v[n].what, sizeof v[n].what, "square (%d,%d)", x, y);
			n++;
		}
	for (size_t i = 0; i < m->n_bigcities + m->n_islands + m->n_ferries; i++) {
		const char *name;
		int space;
		unsigned line;
		if (i < m->n_bigcities) {
			name = m->bigcities[i].name, space = 0, line = m->bigcities[i].line;
		} else if (i < m->n_bigcities + m->n_islands) {
			const cm_island *is = &m->islands[i - m->n_bigcities];
			name = is->name, space = 1, line = is->line;
		} else {
			const cm_ferry *f = &m->ferries[i - m->n_bigcities - m->n_islands];
			name = f->name, space = 2, line = f->line;
		}
		if (!name)
			continue;
		if (cm_grow((void **)&v, &cap, n, sizeof *v))
			goto out;
		v[n] = (name_ref){ name, space, n, line, "" };
		snprintf(v[n].what, sizeof v[n].what, "%s %s", space == 0 ? "big city" : space == 1 ? "island" : "ferry",
		         name);
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, name_cmp);
	for (size_t i = 1, first = 0; i < n; i++) {
		if (v[i].space != v[first].space || strcmp(v[i].name, v[first].name) != 0) {
			first = i;
			continue;
		}
		char w[WHERE_MAX];
		chk(m, d, "CM0211", v[i].line, where_fmt(w, m, "%s", v[i].what), "%s %s is used twice (first on line %u)",
		    v[i].space == 1 ? "island id" : "name", v[i].name, v[first].line);
	}
out:
	free(v);
}

/* Squares and their edge prints and islands (CM0203, CM0205). */
static void check_squares(const cm_map *m, cm_diags *d, const uint8_t *quiet)
{
	/* the where strings are formatted only for a diagnostic: this loop sees every square */
	char w[WHERE_MAX];
#define WHERE_SIDE where_fmt(w, m, "square (%d,%d), side %s", x, y, side)
#define WHERE_SQ where_fmt(w, m, "square (%d,%d)", x, y)
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = cm_map_at(m, x, y);
			bool playable = cm_square_kind_playable(sq->kind);
			for (int s = 0; s < MAX_SIDE; s++) {
				const cm_edge_print *p = &sq->print[s];
				unsigned line = sq_line(m, sq, p->line);
				const char *side = cm_side_name((cm_side)s);
				if (!playable && p->kind != CM_PRINT_NONE)
					chk_sq(m, d, x, y, "CM0203", line, WHERE_SIDE,
					    "%s print on side %s of square (%d,%d), which is %s: only squares that take tiles have edge prints",
					    cm_print_kind_name(p->kind), side, x, y, cm_square_kind_name(sq->kind));
				if (!playable)
					continue;
				bool land = faces_land(m, x, y, s);
				if (land && p->kind != CM_PRINT_NONE)
					chk_sq(m, d, x, y, "CM0203", line, WHERE_SIDE,
					    "%s print on side %s of square (%d,%d) faces a square that takes tiles or a big city",
					    cm_print_kind_name(p->kind), side, x, y);
				else if (!land && p->kind == CM_PRINT_NONE)
					chk_sq(m, d, x, y, "CM0203", line, WHERE_SIDE,
					    "side %s of square (%d,%d) faces the map edge and has no print", side, x, y);
				if (p->kind == CM_PRINT_NEUTRAL && p->arms)
					chk_sq(m, d, x, y, "CM0203", line, WHERE_SIDE,
					    "neutral print on side %s of square (%d,%d) has coats of arms: print a road or a city",
					    side, x, y);
			}
			if (quiet && (quiet[y * m->cols + x] & QUIET_ISLAND))
				continue;
			unsigned line = sq_line(m, sq, 0);
			if (sq->kind == CM_SQ_ISLAND && sq->island < 0)
				chk_sq(m, d, x, y, "CM0205", line, WHERE_SQ, "island square (%d,%d) names no island", x, y);
			else if (sq->island >= 0 && (size_t)sq->island >= m->n_islands)
				chk_sq(m, d, x, y, "CM0205", line, WHERE_SQ, "square (%d,%d) names island %d, which does not exist", x,
				    y, sq->island);
			else if (sq->kind != CM_SQ_ISLAND && sq->island >= 0)
				chk_sq(m, d, x, y, "CM0205", line, WHERE_SQ,
				    "square (%d,%d) is %s and names island %s: only island squares do", x, y,
				    cm_square_kind_name(sq->kind), m->islands[sq->island].name);
			if (sq->kind != CM_SQ_ISLAND && sq->arms)
				chk_sq(m, d, x, y, "CM0205", line, WHERE_SQ,
				    "square (%d,%d) is %s and has coats of arms: only island squares have them", x, y,
				    cm_square_kind_name(sq->kind));
		}
}
#undef WHERE_SIDE
#undef WHERE_SQ

/* Ferries join road prints (CM0204), and every island is reached by one (CM0206). */
static void check_ferries(const cm_map *m, cm_diags *d)
{
	char w[WHERE_MAX];
	bool *reached = calloc(m->n_islands ? m->n_islands : 1, sizeof *reached);
	bool *has_square = calloc(m->n_islands ? m->n_islands : 1, sizeof *has_square);
	if (!reached || !has_square)
		goto out;
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		const int ex[2] = { f->x1, f->x2 }, ey[2] = { f->y1, f->y2 };
		const cm_side es[2] = { f->s1, f->s2 };
		where_fmt(w, m, "ferry %zu", i);
		for (int e = 0; e < 2; e++) {
			const cm_square *sq = cm_map_at(m, ex[e], ey[e]);
			if (!sq) {
				chk(m, d, "CM0201", f->line, w, "ferry end (%d,%d) is outside the %dx%d grid", ex[e], ey[e],
				    m->cols, m->rows);
				continue;
			}
			if ((unsigned)es[e] >= MAX_SIDE || sq->print[es[e]].kind != CM_PRINT_ROAD)
				chk(m, d, "CM0204", f->line, w,
				    "ferry end at side %s of square (%d,%d) is %s, not a road edge print",
				    cm_side_name(es[e]), ex[e], ey[e],
				    (unsigned)es[e] < MAX_SIDE ? cm_print_kind_name(sq->print[es[e]].kind) : "?");
			if (sq->island >= 0 && (size_t)sq->island < m->n_islands)
				reached[sq->island] = true;
			for (size_t k = 0; k < i; k++) {
				const cm_ferry *g = &m->ferries[k];
				if ((g->x1 == ex[e] && g->y1 == ey[e] && g->s1 == es[e]) ||
				    (g->x2 == ex[e] && g->y2 == ey[e] && g->s2 == es[e]))
					chk(m, d, "CM0204", f->line, w,
					    "road print at side %s of square (%d,%d) ends ferry %zu already (line %u)",
					    cm_side_name(es[e]), ex[e], ey[e], k, g->line);
			}
		}
		if (f->x1 == f->x2 && f->y1 == f->y2 && f->s1 == f->s2)
			chk(m, d, "CM0204", f->line, w, "ferry starts and ends at side %s of square (%d,%d)",
			    cm_side_name(f->s1), f->x1, f->y1);
	}
	for (int i = 0; i < m->cols * m->rows; i++)
		if (m->squares[i].kind == CM_SQ_ISLAND && m->squares[i].island >= 0 &&
		    (size_t)m->squares[i].island < m->n_islands)
			has_square[m->squares[i].island] = true;
	for (size_t i = 0; i < m->n_islands; i++) {
		const cm_island *is = &m->islands[i];
		const char *name = is->name ? is->name : "?";
		where_fmt(w, m, "island %s", name);
		if (!has_square[i])
			chk(m, d, "CM0205", is->line, w, "island %s has no squares", name);
		else if (!reached[i])
			chk(m, d, "CM0206", is->line, w, "island %s is reached by no ferry: its squares can never take a tile",
			    name);
	}
out:
	free(reached);
	free(has_square);
}

static void check_structure(const cm_map *m, cm_diags *d, const uint8_t *quiet)
{
	char w[WHERE_MAX];
	check_squares(m, d, quiet);
	check_ferries(m, d);
	/* big-city pieces: placement, one city per square, features, matching */
	size_t n = (size_t)m->cols * (size_t)m->rows;
	const cm_bigcity_piece **at = calloc(n, sizeof *at);
	uint8_t *count = calloc(n, 1);
	int starts = 0;
	if (!at || !count)
		goto out;
	for (size_t c = 0; c < m->n_bigcities; c++) {
		const cm_bigcity *bc = &m->bigcities[c];
		const char *name = bc->name ? bc->name : "?";
		for (size_t k = 0; k < bc->n_pieces; k++) {
			const cm_bigcity_piece *pc = &bc->pieces[k];
			const cm_square *sq = cm_map_at(m, pc->x, pc->y);
			unsigned line = pc->tile.line ? pc->tile.line : bc->line;
			where_fmt(w, m, "big city %s, piece (%d,%d)", name, pc->x, pc->y);
			if (!sq) {
				chk(m, d, "CM0201", line, w, "piece (%d,%d) of big city %s is outside the %dx%d grid", pc->x,
				    pc->y, name, m->cols, m->rows);
			} else {
				size_t i = (size_t)pc->y * (size_t)m->cols + (size_t)pc->x;
				if (sq->kind != CM_SQ_BIGCITY)
					chk(m, d, "CM0208", line, w, "piece (%d,%d) of big city %s lies on a %s square", pc->x,
					    pc->y, name, cm_square_kind_name(sq->kind));
				if (count[i] < 255)
					count[i]++;
				if (!at[i])
					at[i] = pc;
			}
			check_piece(m, d, bc, pc);
		}
	}
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = cm_map_at(m, x, y);
			size_t i = (size_t)y * (size_t)m->cols + (size_t)x;
			starts += sq->kind == CM_SQ_START;
			if (sq->kind != CM_SQ_BIGCITY || count[i] == 1)
				continue;
			where_fmt(w, m, "square (%d,%d)", x, y);
			if (count[i] == 0)
				chk_sq(m, d, x, y, "CM0208", sq_line(m, sq, 0), w,
				       "big-city square (%d,%d) is a piece of no big city", x, y);
			else
				chk_sq(m, d, x, y, "CM0208", at[i]->tile.line, w,
				       "big-city square (%d,%d) has %d pieces, one expected", x, y, count[i]);
		}
	check_bigcities(m, d, at);
	/* setup (MAP-START, MAP-TILES) */
	const cm_setup *su = &m->setup;
	unsigned sline = su->line ? su->line : m->file ? m->line : 0;
	where_fmt(w, m, "setup");
	if (su->starts_used > starts)
		chk(m, d, "CM0210", sline, w, "setup uses %d start squares, the map has %d", su->starts_used, starts);
	if (su->starts_used < 1)
		chk(m, d, "CM0214", sline, w, "setup uses no start square: at least one is needed");
	if (su->tiles_min < 0 || su->tiles_max < 0 || (su->tiles_min && su->tiles_max && su->tiles_min > su->tiles_max))
		chk(m, d, "CM0214", sline, w, "recommended tile range %d-%d is empty", su->tiles_min, su->tiles_max);
	if (su->followers < 1)
		chk(m, d, "CM0214", sline, w, "setup gives %d followers per player, at least 1 is needed", su->followers);
	check_names(m, d);
	/* deck entries named twice */
	for (size_t i = 0; i < m->n_deck; i++)
		for (size_t k = 0; k < i; k++) {
			const cm_deck_entry *a = &m->deck[i], *b = &m->deck[k];
			if (!a->tileset || !b->tileset || strcmp(a->tileset, b->tileset) != 0 || !a->tile != !b->tile ||
			    (a->tile && strcmp(a->tile, b->tile) != 0))
				continue;
			chk(m, d, "CM0202", a->line, where_fmt(w, m, "deck entry %zu", i),
			    "deck lists %s%s%s twice (also on line %u)", a->tile ? "tile " : "tile set ",
			    a->tile ? a->tile : a->tileset, a->tile ? " of that set" : "", b->line);
			break;
		}
out:
	free(at);
	free(count);
}

int cm_map_check_deck(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, cm_diags *d)
{
	size_t errors = cm_diags_errors(d);
	char w[WHERE_MAX];
	for (size_t i = 0; i < m->n_deck; i++) {
		const cm_deck_entry *e = &m->deck[i];
		const cm_tileset *ts = NULL;
		for (size_t k = 0; !ts && k < n_sets; k++)
			if (sets[k] && sets[k]->id && e->tileset && strcmp(sets[k]->id, e->tileset) == 0)
				ts = sets[k];
		where_fmt(w, m, "deck entry %zu", i);
		if (!ts) {
			chk(m, d, "CM0212", e->line, w, "deck names tile set %s, which is not among the tile sets given",
			    e->tileset ? e->tileset : "?");
			continue;
		}
		bool found = !e->tile;
		for (size_t k = 0; !found && k < ts->n_tiles; k++)
			found = ts->tiles[k].id && strcmp(ts->tiles[k].id, e->tile) == 0;
		if (!found)
			chk(m, d, "CM0213", e->line, w, "deck names tile %s, which tile set %s does not have", e->tile,
			    ts->id);
	}
	return cm_diags_errors(d) > errors ? CM_EINVAL : 0;
}

int cm_map_check(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, cm_diags *d)
{
	size_t errors = cm_diags_errors(d);
	check_structure(m, d, NULL);
	if (n_sets)
		cm_map_check_deck(m, sets, n_sets, d);
	return cm_diags_errors(d) > errors ? CM_EINVAL : 0;
}

/* ---- the canonical writer ---- */

static void put_bool(FILE *f, const char *name, bool v)
{
	fprintf(f, " %s=\"%s\"", name, v ? "true" : "false");
}

static void write_piece(FILE *f, const cm_bigcity_piece *pc)
{
	fprintf(f, "    <piece x=\"%d\" y=\"%d\">\n", pc->x, pc->y);
	cm_feature_write_xml(f, &pc->tile, "      ");
	fputs("    </piece>\n", f);
}

int cm_map_write_xml(const cm_map *m, FILE *f)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map format=\"1\"", f);
	cm_xml_put_attr(f, "id", m->id ? m->id : "");
	cm_xml_put_attr(f, "name", m->name ? m->name : "");
	fputs(">\n", f);
	if (m->image) {
		fputs("  <image", f);
		cm_xml_put_attr(f, "src", m->image);
		cm_xml_put_attr(f, "legend", m->legend);
		fputs("/>\n", f);
	}
	fputs("  <grid>\n", f);
	for (int y = 0; y < m->rows; y++) {
		fputs("    ", f);
		for (int x = 0; x < m->cols; x++)
			fputc(cm_square_kind_char(cm_map_at(m, x, y)->kind), f);
		fputc('\n', f);
	}
	fputs("  </grid>\n", f);
	for (size_t i = 0; i < m->n_islands; i++) {
		fputs("  <island", f);
		cm_xml_put_attr(f, "id", m->islands[i].name);
		cm_xml_put_attr(f, "name", m->islands[i].title);
		fputs("/>\n", f);
	}
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *sq = cm_map_at(m, x, y);
			if (!sq->name && sq->island < 0 && !sq->arms && !sq->n_markers)
				continue;
			fprintf(f, "  <square x=\"%d\" y=\"%d\"", x, y);
			cm_xml_put_attr(f, "name", sq->name);
			if (sq->island >= 0 && (size_t)sq->island < m->n_islands)
				cm_xml_put_attr(f, "island", m->islands[sq->island].name);
			if (sq->arms)
				fprintf(f, " arms=\"%u\"", sq->arms);
			if (!sq->n_markers) {
				fputs("/>\n", f);
				continue;
			}
			fputs(">\n", f);
			for (size_t k = 0; k < sq->n_markers; k++) {
				fputs("    <marker>", f);
				cm_xml_put_escaped(f, sq->markers[k]);
				fputs("</marker>\n", f);
			}
			fputs("  </square>\n", f);
		}
	/* only prints the reader would not derive: plain neutral is the default */
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			for (int s = 0; s < MAX_SIDE; s++) {
				const cm_edge_print *p = &cm_map_at(m, x, y)->print[s];
				if (p->kind == CM_PRINT_NONE || (p->kind == CM_PRINT_NEUTRAL && !p->arms && !p->label))
					continue;
				fprintf(f, "  <edge x=\"%d\" y=\"%d\" side=\"%s\" print=\"%s\"", x, y, cm_side_name((cm_side)s),
				        cm_print_kind_name(p->kind));
				if (p->arms)
					fprintf(f, " arms=\"%u\"", p->arms);
				cm_xml_put_attr(f, "label", p->label);
				fputs("/>\n", f);
			}
	for (size_t i = 0; i < m->n_bigcities; i++) {
		fputs("  <bigcity", f);
		cm_xml_put_attr(f, "name", m->bigcities[i].name ? m->bigcities[i].name : "");
		fputs(">\n", f);
		for (size_t k = 0; k < m->bigcities[i].n_pieces; k++)
			write_piece(f, &m->bigcities[i].pieces[k]);
		fputs("  </bigcity>\n", f);
	}
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *fe = &m->ferries[i];
		fputs("  <ferry", f);
		cm_xml_put_attr(f, "name", fe->name);
		fprintf(f, " x1=\"%d\" y1=\"%d\" side1=\"%s\" x2=\"%d\" y2=\"%d\" side2=\"%s\"", fe->x1, fe->y1,
		        cm_side_name(fe->s1), fe->x2, fe->y2, cm_side_name(fe->s2));
		if (fe->arms)
			fprintf(f, " arms=\"%u\"", fe->arms);
		fputs("/>\n", f);
	}
	const cm_setup *su = &m->setup;
	fprintf(f, "  <setup starts=\"%d\"", su->starts_used);
	if (su->tiles_min)
		fprintf(f, " tiles-min=\"%d\"", su->tiles_min);
	if (su->tiles_max)
		fprintf(f, " tiles-max=\"%d\"", su->tiles_max);
	fprintf(f, " followers=\"%d\"/>\n", su->followers);
	if (m->n_deck) {
		fputs("  <deck>\n", f);
		for (size_t i = 0; i < m->n_deck; i++) {
			const cm_deck_entry *e = &m->deck[i];
			if (!e->tile) {
				fputs("    <set", f);
				cm_xml_put_attr(f, "id", e->tileset);
				fputs("/>\n", f);
			} else {
				fputs("    <tile", f);
				cm_xml_put_attr(f, "set", e->tileset);
				cm_xml_put_attr(f, "id", e->tile);
				fprintf(f, " count=\"%d\"/>\n", e->count);
			}
		}
		fputs("  </deck>\n", f);
	}
	const cm_rules *r = &m->rules;
	fprintf(f, "  <rules edition=\"%s\"", cm_edition_name(r->edition));
	put_bool(f, "tiny-city", r->tiny_city);
	fprintf(f, " farmers=\"%s\"", r->farmers == CM_FARMERS_C1 ? "C1" : "C2");
	put_bool(f, "farmers-bigcity", r->farmers_bigcity);
	put_bool(f, "town-extra-turn", r->town_extra_turn);
	put_bool(f, "town-cost", r->town_cost);
	put_bool(f, "town-road-bonus", r->town_road_bonus);
	put_bool(f, "abbey-edge", r->abbey_edge);
	fputs("/>\n</map>\n", f);
	return ferror(f) ? CM_EIO : 0;
}

/* ---- equality ---- */

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool tile_eq(const cm_tile_type *a, const cm_tile_type *b)
{
	if (!str_eq(a->id, b->id) || !str_eq(a->name, b->name) || a->n_features != b->n_features ||
	    a->n_contacts != b->n_contacts || a->start != b->start)
		return false;
	for (size_t i = 0; i < a->n_features; i++) {
		const cm_feature *x = &a->features[i], *y = &b->features[i];
		if (x->kind != y->kind || !str_eq(x->id, y->id) || x->slots != y->slots || x->arms != y->arms ||
		    x->cathedral != y->cathedral || x->inn != y->inn || x->good != y->good || x->touches != y->touches)
			return false;
	}
	return a->n_contacts == 0 || memcmp(a->contacts, b->contacts, a->n_contacts * sizeof *a->contacts) == 0;
}

static bool square_eq(const cm_square *a, const cm_square *b)
{
	if (a->kind != b->kind || !str_eq(a->name, b->name) || a->arms != b->arms || a->island != b->island ||
	    a->bigcity != b->bigcity || a->n_markers != b->n_markers)
		return false;
	for (size_t i = 0; i < a->n_markers; i++)
		if (!str_eq(a->markers[i], b->markers[i]))
			return false;
	for (int s = 0; s < MAX_SIDE; s++)
		if (a->print[s].kind != b->print[s].kind || a->print[s].arms != b->print[s].arms ||
		    !str_eq(a->print[s].label, b->print[s].label))
			return false;
	return true;
}

bool cm_map_equal(const cm_map *a, const cm_map *b)
{
	if (a == b)
		return true;
	if (!a || !b || !str_eq(a->id, b->id) || !str_eq(a->name, b->name) || a->cols != b->cols ||
	    a->rows != b->rows || !str_eq(a->image, b->image) || !str_eq(a->legend, b->legend) ||
	    a->n_bigcities != b->n_bigcities || a->n_ferries != b->n_ferries || a->n_islands != b->n_islands ||
	    a->n_deck != b->n_deck)
		return false;
	for (int i = 0; i < a->cols * a->rows; i++)
		if (!square_eq(&a->squares[i], &b->squares[i]))
			return false;
	for (size_t i = 0; i < a->n_bigcities; i++) {
		const cm_bigcity *x = &a->bigcities[i], *y = &b->bigcities[i];
		if (!str_eq(x->name, y->name) || x->n_pieces != y->n_pieces)
			return false;
		for (size_t k = 0; k < x->n_pieces; k++)
			if (x->pieces[k].x != y->pieces[k].x || x->pieces[k].y != y->pieces[k].y ||
			    !tile_eq(&x->pieces[k].tile, &y->pieces[k].tile))
				return false;
	}
	for (size_t i = 0; i < a->n_ferries; i++) {
		const cm_ferry *x = &a->ferries[i], *y = &b->ferries[i];
		if (!str_eq(x->name, y->name) || x->x1 != y->x1 || x->y1 != y->y1 || x->s1 != y->s1 ||
		    x->x2 != y->x2 || x->y2 != y->y2 || x->s2 != y->s2 || x->arms != y->arms)
			return false;
	}
	for (size_t i = 0; i < a->n_islands; i++)
		if (!str_eq(a->islands[i].name, b->islands[i].name) || !str_eq(a->islands[i].title, b->islands[i].title))
			return false;
	for (size_t i = 0; i < a->n_deck; i++) {
		const cm_deck_entry *x = &a->deck[i], *y = &b->deck[i];
		if (!str_eq(x->tileset, y->tileset) || !str_eq(x->tile, y->tile) || x->count != y->count)
			return false;
	}
	const cm_setup *p = &a->setup, *q = &b->setup;
	const cm_rules *r = &a->rules, *s = &b->rules;
	return p->starts_used == q->starts_used && p->tiles_min == q->tiles_min && p->tiles_max == q->tiles_max &&
	       p->followers == q->followers && r->edition == s->edition && r->tiny_city == s->tiny_city &&
	       r->farmers == s->farmers && r->farmers_bigcity == s->farmers_bigcity &&
	       r->town_extra_turn == s->town_extra_turn && r->town_cost == s->town_cost &&
	       r->town_road_bonus == s->town_road_bonus && r->abbey_edge == s->abbey_edge;
}
