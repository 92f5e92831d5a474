/* SPDX-License-Identifier: MIT */
/* map_xml.c: map descriptors (schemas/map.md): the reader, which reads
 * what a descriptor says into a builder and nothing more (io/workspace.c
 * joins it with its image, printing and checks: io/map_xml_int.h; the
 * halves of a combined map come through its loader), and the canonical
 * writer. Nothing else reads or writes map XML. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/tree.h>
#include "carcamap/catalog.h"
#include "carcamap/map.h"
#include "io/feature_xml_int.h"
#include "io/map_xml_int.h"
#include "model/map_builder_int.h"
#include "model/map_int.h"
#include "base/util_int.h"
#include "io/xml_int.h"

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
	cm_map_builder *b; /* the map being read */
	const cm_map *m;   /* b's view (cm__map_builder_view), to read it back */
	uint8_t *seen;   /* per square: described by a <square> element */
	uint8_t *quiet;  /* per square: an island problem already reported (CM_MAP_QUIET_ISLAND) */
	int depth;       /* <combine> nesting */
	unsigned flags;  /* CM_MAP_LOAD_… */
	int format;      /* <map format>: 1, or 2 with printings */
	int printing;    /* the printing read (a cm_edition) */
	cm_edition printings[CM_EDITION_COUNT]; /* <map printings>, the default first */
	size_t n_printings;
	uint8_t *kind_to; /* per square: 1 + kind of the printing (land/town), 0 = as printed */
	bool any_kind_to; /* some square has one */
	bool oom;
	cm__map_loader load; /* the halves of a <combine> */
	cm_diag_scope ds;    /* d and file */
} reader;


static void rd_report(reader *r, const char *id, unsigned line, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static void rd_report(reader *r, const char *id, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(&r->ds, id, line, col, NULL, fmt, ap);
	va_end(ap);
}

static void rd_report_at(reader *r, const char *id, const xmlNode *n, const char *attr, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
/* rd_report at attribute attr of n (line and column), or at n's '<' when
 * attr is NULL or absent. */
static void rd_report_at(reader *r, const char *id, const xmlNode *n, const char *attr, const char *fmt, ...)
{
	unsigned col = 0, line = attr ? cm_xml_attr_pos(n, attr, &col) : cm_xml_line(n);
	if (!col)
		col = cm_xml_col(n);
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(&r->ds, id, line, col, NULL, fmt, ap);
	va_end(ap);
}

static char *rd_attr(reader *r, const xmlNode *n, const char *name)
{
	bool found;
	char *s = cm_xml_attr_found(n, name, &found); /* read in place: one copy, not two */
	if (!s && found)
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

/* Reads <grid> into a new builder *out: its size, each row's line (the
 * defining element of its squares) and the squares' kinds, written into the
 * squares themselves. Reports each unknown character and each row whose
 * length differs from the first (CM0216) and goes on; fails only when no
 * grid can be built. */
static int read_grid(reader *r, xmlNode *g, cm_map_builder **out)
{
	*out = NULL;
	unsigned *lines = NULL;
	/* the grid's one text node read in place (a megabyte on a big map),
	 * else its text gathered */
	const xmlNode *only = g->children;
	bool direct = only && !only->next && only->type == XML_TEXT_NODE && only->content;
	xmlChar *txt = direct ? only->content : xmlNodeGetContent(g);
	if (!txt) {
		r->oom = true;
		return CM_ENOMEM;
	}
	unsigned gline = cm_xml_line(g);
	/* the text begins where the start tag ends: its line and column */
	unsigned tcol, tline = cm_xml_content_pos(g, &tcol);
	if (!tline)
		tline = gline, tcol = 0;
	grid_row *rv = NULL;
	size_t nr = 0, cap = 0, width = 0;
	int rc = 0;
	unsigned line = tline;
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
			/* columns in characters, like every other column */
			unsigned c0 = 1;
			for (const char *q = p; q < a; q++)
				c0 += ((unsigned char)*q & 0xC0) != 0x80;
			unsigned col = line != tline ? c0 : tcol ? tcol + c0 - 1 : 0;
			rv[nr++] = (grid_row){ a, (size_t)(b - a), line, col };
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
	if (width > CM_GRID_MAX || nr > CM_GRID_MAX) {
		rd_report(r, "CM0216", gline, 0, "grid of %zu x %zu squares is larger than %d x %d", width, nr,
		          CM_GRID_MAX, CM_GRID_MAX);
		rc = CM_EINVAL;
		goto out;
	}
	lines = calloc(nr, sizeof *lines);
	if (!lines) {
		r->oom = true;
		rc = CM_ENOMEM;
		goto out;
	}
	for (size_t y = 0; y < nr; y++)
		lines[y] = rv[y].line;
	if ((rc = cm__map_builder_new_unset((int)width, (int)nr, out)) != 0)
		goto out;
	cm_square *sqs = cm__map_builder_grid(*out);
	/* the grid key as a table (cm_square_kind_from_char), 255: none */
	uint8_t key[256];
	memset(key, 255, sizeof key);
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++)
		key[(unsigned char)cm_square_kind_char((cm_square_kind)k)] = (uint8_t)k;
	for (size_t y = 0; y < nr; y++) {
		/* each row's squares made with their kinds on one pass; the
		 * common row first: every byte a square (ASCII, so bytes are
		 * characters); only a row with another byte goes the long way */
		const unsigned char *row = (const unsigned char *)rv[y].p;
		cm_square *sq = sqs + y * width;
		cm_square t = cm__square_blank(CM_SQ_NONE, lines[y]);
		uint8_t bad = 0;
		for (size_t x = 0; x < width; x++)
			sq[x] = t; /* the row's line; CM_SQ_NONE past a short row (CM0216) */
		for (size_t x = 0; x < rv[y].n; x++) {
			uint8_t k = key[row[x]];
			sq[x].kind = k; /* on the same row, still in the cache */
			bad |= (uint8_t)(k == 255);
		}
		if (!bad)
			continue;
		for (size_t x = 0; x < rv[y].n; x++)
			sq[x].kind = CM_SQ_NONE;
		for (size_t x = 0, chars = 0; x < rv[y].n; x++) {
			unsigned char c = (unsigned char)rv[y].p[x];
			size_t here = chars; /* characters before this byte in the row */
			chars += (c & 0xC0) != 0x80;
			cm_square_kind k;
			if (cm_square_kind_from_char((char)c, &k) == 0) {
				sq[x].kind = (uint8_t)k;
				continue;
			}
			if (c >= 0x80 && c < 0xC0)
				continue; /* a UTF-8 continuation byte: its lead byte was reported */
			unsigned col = rv[y].col ? rv[y].col + (unsigned)here : 0;
			if (c > 0x20 && c < 0x7f)
				rd_report(r, "CM0216", rv[y].line, col,
				          "unknown square character '%c' at (%zu,%zu) in the grid", c, x, y);
			else
				rd_report(r, "CM0216", rv[y].line, col,
				          "unknown square byte 0x%02x at (%zu,%zu) in the grid", c, x, y);
		}
	}
out:
	free(rv);
	free(lines);
	if (!direct)
		xmlFree(txt);
	return rc;
}

/* <combine>: loads both halves (plain maps, with the reader's flags) and
 * places them on one grid (model/map_combine.c), in a new builder *out. */
static int combine(reader *r, xmlNode *c, cm_map_builder **out)
{
	static const char *const which[2] = { "west", "east" };
	*out = NULL;
	unsigned line = cm_xml_line(c);
	cm_map *half[2] = { NULL, NULL };
	int rc = 0;
	/* halves are plain maps: this also stops a descriptor combining itself */
	if (r->depth > 0) {
		rd_report_at(r, "CM0217", c, NULL, "a half of a combined map cannot combine maps itself");
		return CM_EINVAL;
	}
	for (int h = 0; h < 2; h++) {
		char *rel = rd_attr(r, c, which[h]);
		char *path = rel ? cm_path_resolve(r->file, rel) : NULL;
		cm__map_read_opts ho = { r->flags, r->n_printings ? r->printing : -1, r->depth + 1, r->load };
		int lrc = path ? r->load(path, &ho, r->d, &half[h]) : CM_ENOMEM;
		if (lrc == CM_ENOMEM) {
			r->oom = true;
			rc = CM_ENOMEM;
		} else if (lrc) {
			rd_report_at(r, "CM0217", c, which[h], "%s map %s does not load", which[h], rel);
			if (!rc)
				rc = CM_EINVAL;
		}
		free(rel);
		free(path);
	}
	if (!rc)
		rc = cm_map_combine(half[0], half[1], cm_xml_attr_int(c, "dy", 0), r->file, line, r->d, out);
	if (rc == CM_ENOMEM)
		r->oom = true;
	cm_map_free(half[0]);
	cm_map_free(half[1]);
	return rc;
}

/* The <printing> child of n for the printing being read, or NULL. Every
 * <printing> child must name one of the map's printings, once (CM0220). */
static xmlNode *printing_child(reader *r, xmlNode *n, const char *what)
{
	xmlNode *found = NULL;
	unsigned seen = 0;
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next)) {
		if (!cm_xml_is(c, "printing"))
			continue;
		if (r->format < 2)
			rd_report_at(r, "CM0220", c, NULL, "%s has a <printing>: printings need format=\"2\"", what);
		char *e = rd_attr(r, c, "edition");
		cm_edition ed = CM_EDITION_C2;
		bool known = false;
		if (e && cm_edition_parse(e, &ed) == 0)
			for (size_t i = 0; i < r->n_printings; i++)
				known |= r->printings[i] == ed;
		if (!known)
			rd_report_at(r, "CM0220", c, "edition",
			          "%s has a printing %s that the map does not list in <map printings>", what,
			          e ? e : "?");
		else if (seen & (1u << ed))
			rd_report_at(r, "CM0220", c, "edition", "%s gives printing %s twice", what, e);
		else if ((int)ed == r->printing)
			found = c;
		if (known)
			seen |= 1u << ed;
		free(e);
		char *kind = rd_attr(r, c, "kind");
		cm_square_kind k;
		if (kind && cm_square_kind_parse(kind, &k) == 0 && k != CM_SQ_LAND && k != CM_SQ_TOWN) {
			rd_report(r, "CM0220", cm_xml_line(c), 0, "%s: a printing may make a square land or town, not %s",
			          what, kind);
			if (c == found)
				found = NULL;
		}
		free(kind);
	}
	return found;
}

static void read_island(reader *r, xmlNode *n)
{
	char *name = rd_attr(r, n, "id"), *title = rd_attr(r, n, "name");
	unsigned line = cm_xml_line(n);
	xmlNode *pr = printing_child(r, n, "island");
	char *ptitle = pr ? rd_attr(r, pr, "name") : NULL;
	if (ptitle) {
		free(title);
		title = ptitle;
	}
	/* the builder's index finds the first island of each id */
	if (cm_map_builder_add_island(r->b, name, title, line, NULL))
		r->oom = true;
	free(name);
	free(title);
}

/* Sets square (x,y) to sq; every value a reader gives is in range, so
 * only memory can fail (and cannot here: the builder allocates nothing). */
static void rd_set_square(reader *r, int x, int y, const cm_square *sq)
{
	if (cm_map_builder_set_square(r->b, x, y, sq))
		r->oom = true;
}

static void read_square(reader *r, xmlNode *n)
{
	const cm_map *m = r->m;
	unsigned line = cm_xml_line(n);
	int x = cm_xml_attr_int(n, "x", 0), y = cm_xml_attr_int(n, "y", 0);
	const cm_square *at = cm_map_builder_square(r->b, x, y);
	if (!at) {
		rd_report_at(r, "CM0201", n, x < 0 || x >= m->cols ? "x" : "y", "square (%d,%d) is outside the %dx%d grid", x, y, m->cols, m->rows);
		return;
	}
	cm_square sq = *at;
	size_t i = (size_t)y * (size_t)m->cols + (size_t)x;
	if (r->seen[i]) {
		rd_report_at(r, "CM0202", n, NULL, "square (%d,%d) is described twice (first on line %u)", x, y, sq.line);
		return;
	}
	r->seen[i] = 1;
	char *kind = rd_attr(r, n, "kind");
	cm_square_kind k;
	if (kind && cm_square_kind_parse(kind, &k) == 0) {
		if (sq.kind != CM_SQ_NONE)
			rd_report_at(r, "CM0202", n, "kind",
			          "square (%d,%d) is %s in the grid and %s here: give its kind in one place", x, y,
			          cm_square_kind_name(sq.kind), kind);
		else
			sq.kind = (uint8_t)k;
	}
	free(kind);
	sq.line = line;
	char *name = rd_attr(r, n, "name");
	if (name && cm_map_builder_set_square_name(r->b, x, y, name))
		r->oom = true;
	free(name);
	sq.arms = (uint8_t)cm_xml_attr_int(n, "arms", sq.arms);
	char *island = rd_attr(r, n, "island");
	if (island) {
		sq.island = cm_map_builder_island_find(r->b, island);
		if (sq.island < 0) {
			rd_report_at(r, "CM0205", n, "island", "square (%d,%d) names island %s, which no <island> declares", x,
			          y, island);
			r->quiet[i] |= CM_MAP_QUIET_ISLAND;
		}
		free(island);
	}
	rd_set_square(r, x, y, &sq);
	xmlNode *pr = printing_child(r, n, "square");
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next)) {
		if (!cm_xml_is(c, "marker"))
			continue;
		xmlChar *t = xmlNodeGetContent(c);
		if (!t || cm_map_builder_add_marker(r->b, x, y, (const char *)t))
			r->oom = true;
		xmlFree(t);
	}
	if (!pr)
		return;
	/* the printing's own name, kind and markers */
	if ((name = rd_attr(r, pr, "name")) != NULL && cm_map_builder_set_square_name(r->b, x, y, name))
		r->oom = true;
	free(name);
	if ((kind = rd_attr(r, pr, "kind")) != NULL && cm_square_kind_parse(kind, &k) == 0) {
		r->kind_to[i] = (uint8_t)(k + 1); /* land or town: printing_child checked it */
		r->any_kind_to = true;
	}
	free(kind);
	for (xmlNode *c = cm_xml_elem(pr->children); c; c = cm_xml_elem(c->next)) {
		xmlChar *t = xmlNodeGetContent(c);
		if (!t || cm_map_builder_add_marker(r->b, x, y, (const char *)t))
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
	const cm_square *sq = cm_map_builder_square(r->b, x, y);
	if (!sq) {
		rd_report_at(r, "CM0201", n, x < 0 || x >= r->m->cols ? "x" : "y", "edge print at square (%d,%d) is outside the %dx%d grid", x, y,
		          r->m->cols, r->m->rows);
	} else if (s >= 0 && print) {
		if (sq->print[s].kind != CM_PRINT_NONE) {
			rd_report_at(r, "CM0202", n, "side", "side %s of square (%d,%d) has a print already (line %u)", side, x,
			          y, cm_map_print_line(r->m, x, y, (cm_side)s));
		} else {
			cm_print_kind kind = strcmp(print, "road") == 0   ? CM_PRINT_ROAD
			                     : strcmp(print, "city") == 0 ? CM_PRINT_CITY
			                                                   : CM_PRINT_NEUTRAL;
			char *label = rd_attr(r, n, "label");
			if (cm_map_builder_set_print(r->b, x, y, (cm_side)s, kind, (uint8_t)cm_xml_attr_int(n, "arms", 0)) ||
			    (label && cm_map_builder_set_print_label(r->b, x, y, (cm_side)s, label)) ||
			    cm_map_builder_set_print_line(r->b, x, y, (cm_side)s, line))
				r->oom = true;
			free(label);
		}
	}
	free(side);
	free(print);
}

/* Reads a <piece>'s place and features into *t (the caller clears it).
 * Names in `touches` and <contact> that are no feature, and contacts of
 * fewer than two features, are reported here (the model keeps no line per
 * contact for the checks); the rest is left to the checks, which see
 * in-memory maps too. */
static void read_piece(reader *r, xmlNode *pn, int *x, int *y, cm_tile_type *t)
{
	t->line = cm_xml_line(pn);
	*x = cm_xml_attr_int(pn, "x", 0);
	*y = cm_xml_attr_int(pn, "y", 0);
	if (cm_feature_read(pn, &cm_map_piece_rules, "piece", true, r->d, r->file, t, NULL))
		r->oom = true;
}

static void read_bigcity(reader *r, xmlNode *n)
{
	char *name = rd_attr(r, n, "name");
	unsigned line = cm_xml_line(n);
	xmlNode *pr = printing_child(r, n, "big city");
	char *pname = pr ? rd_attr(r, pr, "name") : NULL;
	if (pname) {
		free(name);
		name = pname;
	}
	size_t idx;
	int rc = cm_map_builder_add_bigcity(r->b, name, line, &idx);
	free(name);
	if (rc) {
		r->oom = true;
		return;
	}
	for (xmlNode *c = cm_xml_elem(n->children); c; c = cm_xml_elem(c->next)) {
		if (!cm_xml_is(c, "piece"))
			continue;
		cm_tile_type t;
		int x, y;
		memset(&t, 0, sizeof t);
		read_piece(r, c, &x, &y, &t);
		if (cm_map_builder_add_piece(r->b, idx, x, y, &t))
			r->oom = true;
		cm_tile_type_clear(&t);
		const cm_square *sq = cm_map_builder_square(r->b, x, y);
		if (sq && sq->bigcity < 0) {
			cm_square v = *sq;
			v.bigcity = (int32_t)idx;
			rd_set_square(r, x, y, &v);
		}
	}
}

static void read_ferry(reader *r, xmlNode *n)
{
	cm_ferry f;
	memset(&f, 0, sizeof f);
	f.name = rd_attr(r, n, "name");
	f.x1 = cm_xml_attr_int(n, "x1", 0);
	f.y1 = cm_xml_attr_int(n, "y1", 0);
	f.x2 = cm_xml_attr_int(n, "x2", 0);
	f.y2 = cm_xml_attr_int(n, "y2", 0);
	char *s1 = rd_attr(r, n, "side1"), *s2 = rd_attr(r, n, "side2");
	f.s1 = (cm_side)(side_parse(s1) < 0 ? 0 : side_parse(s1));
	f.s2 = (cm_side)(side_parse(s2) < 0 ? 0 : side_parse(s2));
	free(s1);
	free(s2);
	f.arms = (uint8_t)cm_xml_attr_int(n, "arms", 0);
	f.line = cm_xml_line(n);
	if (cm_map_builder_add_ferry(r->b, &f))
		r->oom = true;
	free(f.name);
}

static void read_setup(reader *r, xmlNode *n)
{
	const cm_map *m = r->m;
	cm_setup s = { 0, 0, 0, 9, m->line };
	/* by default every start square is used (and at least one is needed):
	 * the squares are counted only then (no attribute reads as both
	 * sentinels) */
	int given = n ? cm_xml_attr_int(n, "starts", INT_MIN) : INT_MIN;
	if (given == INT_MIN && (!n || cm_xml_attr_int(n, "starts", INT_MAX) == INT_MAX)) {
		int starts = 0;
		for (int i = 0; i < m->cols * m->rows; i++)
			starts += m->squares[i].kind == CM_SQ_START;
		given = starts ? starts : 1;
	}
	s.starts_used = given;
	if (n) {
		s.line = cm_xml_line(n);
		s.tiles_min = cm_xml_attr_int(n, "tiles-min", 0);
		s.tiles_max = cm_xml_attr_int(n, "tiles-max", 0);
		s.followers = cm_xml_attr_int(n, "followers", 9);
	}
	cm_map_builder_set_setup(r->b, &s);
}

/* <deck named="…">: the named deck's sets, whole, before the entries
 * the element holds, all on the <deck> line (schemas/map.md "Named decks").
 * The schema admits only the table's names. */
static void read_named_deck(reader *r, xmlNode *n)
{
	char *name = n ? cm_xml_attr_token(n, "named") : NULL;
	if (!name)
		return;
	const cm_named_deck *nd = cm_named_deck_find(name);
	if (!nd)
		rd_report_at(r, "CM0002", n, "named", "<deck named=\"%s\">: no deck of that name", name);
	for (size_t i = 0; nd && nd->sets[i]; i++) {
		cm_deck_entry e = { (char *)nd->sets[i], NULL, -1, cm_xml_line(n) };
		if (cm_map_builder_add_deck_entry(r->b, &e))
			r->oom = true;
	}
	free(name);
}

static void read_deck(reader *r, xmlNode *n)
{
	read_named_deck(r, n);
	for (xmlNode *c = cm_xml_elem(n ? n->children : NULL); c; c = cm_xml_elem(c->next)) {
		cm_deck_entry e;
		memset(&e, 0, sizeof e);
		e.line = cm_xml_line(c);
		bool whole = cm_xml_is(c, "set");
		e.tileset = rd_attr(r, c, whole ? "id" : "set");
		e.tile = whole ? NULL : rd_attr(r, c, "id");
		e.count = whole ? -1 : cm_xml_attr_int(c, "count", 1);
		if (cm_map_builder_add_deck_entry(r->b, &e))
			r->oom = true;
		free(e.tileset);
		free(e.tile);
	}
}

/* <rules>: every attribute is an option of the table (rules.c), read as
 * an explicit option: the edition's defaults fill the rest. */
static void read_rules(reader *r, xmlNode *n)
{
	cm_rules ru;
	cm_rules_default(&ru, CM_EDITION_C2);
	unsigned given = 0;
	/* a map with printings plays each printing in its own edition */
	if (n && r->n_printings && xmlHasProp(n, (const xmlChar *)"edition")) {
		char *e = rd_attr(r, n, "edition");
		rd_report(r, "CM0220", cm_xml_line(n), 0,
		          "<rules edition=\"%s\">: a map with printings plays each printing in its own edition;"
		          " remove the attribute", e ? e : "");
		free(e);
	}
	if (r->n_printings)
		cm_rules_set(&ru, &given, "edition", cm_edition_name((cm_edition)r->printing));
	for (size_t i = 0; n && i < cm_rule_option_count(); i++) {
		const cm_rule_option *o = cm_rule_option_get(i);
		if (!o->in_map || !xmlHasProp(n, (const xmlChar *)o->name))
			continue;
		if (r->n_printings && strcmp(o->name, "edition") == 0)
			continue; /* reported above */
		char *v = cm_xml_attr_token(n, o->name);
		if (!v)
			r->oom = true;
		else
			cm_rules_set(&ru, &given, o->name, v); /* the schema checked the value */
		free(v);
	}
	cm_map_builder_set_rules(r->b, &ru);
}


/* <map printings="C2 C3">: the printings, and the one to read (want < 0:
 * the first). 0, or CM_EINVAL when the list repeats one or want is not in
 * it (CM0220). Without the attribute the map has one printing, its rules
 * edition, and want must be that or negative. */
static int read_printings(reader *r, xmlNode *root, xmlNode *rules, int want)
{
	unsigned line = cm_xml_line(root);
	char *list = rd_attr(r, root, "printings");
	int rc = 0;
	if (list && r->format < 2) {
		rd_report(r, "CM0220", line, 0, "<map printings>: printings need format=\"2\"");
		rc = CM_EINVAL;
	}
	if (list) {
		char *save = NULL;
		for (char *t = strtok_r(list, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
			cm_edition e;
			if (cm_edition_parse(t, &e) != 0)
				continue; /* the schema reports it */
			bool dup = false;
			for (size_t i = 0; i < r->n_printings; i++)
				dup |= r->printings[i] == e;
			if (dup || r->n_printings == CM_EDITION_COUNT) {
				rd_report(r, "CM0220", line, 0, "printing %s is listed twice in <map printings>", t);
				rc = CM_EINVAL;
			} else {
				r->printings[r->n_printings++] = e;
			}
		}
		free(list);
	}
	if (r->n_printings) {
		r->printing = want < 0 ? (int)r->printings[0] : want;
		bool ok = false;
		for (size_t i = 0; i < r->n_printings; i++)
			ok |= (int)r->printings[i] == r->printing;
		if (!ok) {
			rd_report(r, "CM0220", line, 0, "the map has no printing %s (its printings: %s%s%s%s%s)",
			          cm_edition_name((cm_edition)r->printing), cm_edition_name(r->printings[0]),
			          r->n_printings > 1 ? " " : "", r->n_printings > 1 ? cm_edition_name(r->printings[1]) : "",
			          r->n_printings > 2 ? " " : "", r->n_printings > 2 ? cm_edition_name(r->printings[2]) : "");
			rc = CM_EINVAL;
		}
		return rc;
	}
	cm_edition ed = CM_EDITION_C2;
	char *e = rules ? rd_attr(r, rules, "edition") : NULL;
	if (e)
		cm_edition_parse(e, &ed);
	free(e);
	r->printing = (int)ed;
	if (want >= 0 && want != (int)ed) {
		rd_report(r, "CM0220", line, 0, "the map has no printing %s (it is printed in %s only)",
		          cm_edition_name((cm_edition)want), cm_edition_name(ed));
		rc = CM_EINVAL;
	}
	return rc;
}

/* The map's id: the <map id>, or for a printing that is not the default
 * ID-c3. A new string in *out (NULL when none); false when out of memory. */
static bool printing_id(reader *r, xmlNode *root, char **out)
{
	char *id = rd_attr(r, root, "id");
	*out = id;
	if (!r->n_printings || r->printing == (int)r->printings[0] || !id)
		return !r->oom;
	*out = cm_asprintf("%s-c%d", id, r->printing + 1);
	free(id);
	return *out != NULL;
}

/* The <map> element's own values, and its image's paths. */
static void read_head(reader *r, xmlNode *root, xmlNode *about, xmlNode *image, unsigned line)
{
	cm_map_builder *b = r->b;
	char *id = NULL, *name = NULL;
	if (!printing_id(r, root, &id))
		r->oom = true;
	name = rd_attr(r, root, "name");
	if (cm_map_builder_set_line(b, line) || cm_map_builder_set_id(b, id) || cm_map_builder_set_name(b, name) ||
	    cm_map_builder_set_printings(b, r->printings, r->n_printings) || cm_map_builder_set_file(b, r->file))
		r->oom = true;
	free(id);
	free(name);
	/* a combined map takes its own <about>, never a half's */
	for (int i = 0; i < CM_ABOUT_FIELDS; i++) {
		char *v = about ? rd_attr(r, about, cm_about_name(i)) : NULL;
		if (cm_map_builder_set_about(b, i, v))
			r->oom = true;
		free(v);
	}
	if (image) {
		char *src = rd_attr(r, image, "src"), *legend = rd_attr(r, image, "legend");
		if (cm_map_builder_set_image(b, src) || cm_map_builder_set_legend(b, legend))
			r->oom = true;
		free(src);
		free(legend);
	}
}

/* The map's squares and parts from root's children: islands first
 * (squares name them), then squares (edges, pieces and ferries need the
 * final kinds), then the rest in document order; sorted by kind on one
 * walk over the children (thousands on a big map), each kind in document
 * order. */
static int read_elements(reader *r, const cm_xml_top *top, size_t n_el)
{
	uint8_t *what = malloc(n_el + 1);
	if (!what)
		return CM_ENOMEM;
	enum { EL_OTHER, EL_ISLAND, EL_SQUARE, EL_EDGE, EL_BIGCITY, EL_FERRY };
	for (size_t i = 0; i < n_el; i++) {
		const char *nm = top[i].name;
		what[i] = strcmp(nm, "island") == 0    ? EL_ISLAND
		          : strcmp(nm, "square") == 0  ? EL_SQUARE
		          : strcmp(nm, "edge") == 0    ? EL_EDGE
		          : strcmp(nm, "bigcity") == 0 ? EL_BIGCITY
		          : strcmp(nm, "ferry") == 0   ? EL_FERRY
		                                       : EL_OTHER;
	}
	for (size_t i = 0; i < n_el; i++)
		if (what[i] == EL_ISLAND)
			read_island(r, top[i].n);
	for (size_t i = 0; i < n_el; i++)
		if (what[i] == EL_SQUARE)
			read_square(r, top[i].n);
	for (size_t i = 0; i < n_el; i++) {
		if (what[i] == EL_EDGE)
			read_edge(r, top[i].n);
		else if (what[i] == EL_BIGCITY)
			read_bigcity(r, top[i].n);
		else if (what[i] == EL_FERRY)
			read_ferry(r, top[i].n);
	}
	free(what);
	return 0;
}

/* The builder of the map's grid: from <combine>, from <grid>, or of the
 * size the <map> element gives. */
static int new_map(reader *r, xmlNode *root, xmlNode *comb, xmlNode *grid)
{
	int cols = cm_xml_attr_int(root, "cols", 0), rows = cm_xml_attr_int(root, "rows", 0);
	if (comb)
		return combine(r, comb, &r->b);
	if (grid)
		return read_grid(r, grid, &r->b);
	if (!cols || !rows) {
		rd_report_at(r, "CM0216", root, NULL, "map has no size: give a <grid>, or cols and rows");
		return CM_EINVAL;
	}
	if (cols > CM_GRID_MAX || rows > CM_GRID_MAX) {
		rd_report(r, "CM0216", cm_xml_line(root), 0, "map of %d x %d squares is larger than %d x %d", cols,
		          rows, CM_GRID_MAX, CM_GRID_MAX);
		return CM_EINVAL;
	}
	return cm_map_builder_new(cols, rows, &r->b);
}

/* What the descriptor says, into r->b, from root and its children top[0..
 * n_top): everything but the image's squares, the printing's kinds and
 * the checks, which the caller joins (io/workspace.c). */
static int load_parts(reader *r, xmlNode *root, const cm_xml_top *top, size_t n_top)
{
	unsigned line = cm_xml_line(root);
	int format = cm_xml_attr_int(root, "format", 1);
	if (format < 1 || format > CM_MAP_FORMAT) {
		rd_report_at(r, "CM0218", root, "format", "map format %d is newer than this build reads (%d)", format,
		          CM_MAP_FORMAT);
		return CM_EVERSION;
	}
	r->format = format;
	xmlNode *about = NULL, *grid = NULL, *comb = NULL, *image = NULL, *setup = NULL, *deck = NULL, *rules = NULL;
	for (size_t i = 0; i < n_top; i++) {
		xmlNode *c = top[i].n;
		const char *nm = top[i].name;
		if (strcmp(nm, "about") == 0)
			about = c;
		else if (strcmp(nm, "grid") == 0)
			grid = c;
		else if (strcmp(nm, "combine") == 0)
			comb = c;
		else if (strcmp(nm, "image") == 0)
			image = c;
		else if (strcmp(nm, "setup") == 0)
			setup = c;
		else if (strcmp(nm, "deck") == 0)
			deck = c;
		else if (strcmp(nm, "rules") == 0)
			rules = c;
	}
	int rc, acols = cm_xml_attr_int(root, "cols", 0), arows = cm_xml_attr_int(root, "rows", 0);
	if ((rc = read_printings(r, root, rules, r->printing)) != 0 || (rc = new_map(r, root, comb, grid)) != 0)
		return rc;
	const cm_map *m = r->m = cm__map_builder_view(r->b);
	if ((acols && acols != m->cols) || (arows && arows != m->rows))
		rd_report(r, "CM0216", line, 0, "map says %d x %d squares, its %s has %d x %d", acols ? acols : m->cols,
		          arows ? arows : m->rows, comb ? "combination" : "grid", m->cols, m->rows);
	read_head(r, root, about, image, line);
	size_t n = (size_t)m->cols * (size_t)m->rows;
	r->seen = calloc(n, 1);
	r->quiet = calloc(n, 1);
	r->kind_to = calloc(n, 1);
	if (!r->seen || !r->quiet || !r->kind_to || read_elements(r, top, n_top) != 0)
		return CM_ENOMEM;
	read_setup(r, setup);
	read_deck(r, deck);
	read_rules(r, rules);
	return r->oom ? CM_ENOMEM : 0;
}

/* load_parts of doc: the root's children as the parse met them (no walk
 * over thousands of nodes), or from a walk for a tree made otherwise. */
static int load_doc(reader *r, xmlDoc *doc)
{
	xmlNode *root = xmlDocGetRootElement(doc);
	size_t n_top;
	const cm_xml_top *top = cm_xml_top_elements(doc, &n_top);
	cm_xml_top *walked = NULL;
	if (!top) {
		size_t cap = 0;
		n_top = 0;
		for (xmlNode *c = cm_xml_elem(root->children); c; c = cm_xml_elem(c->next)) {
			if (!rd_grow(r, (void **)&walked, &cap, n_top, sizeof *walked))
				return CM_ENOMEM;
			walked[n_top++] = (cm_xml_top){ c, (const char *)c->name };
		}
		top = walked;
	}
	int rc = load_parts(r, root, top, n_top);
	free(walked);
	return rc;
}

/* load_doc of doc into out, which owns what was read from here on. */
static int read_into(xmlDoc *doc, const char *file, const cm__map_read_opts *o, cm_diags *d, cm__map_read *out)
{
	reader r = { .d = d, .file = file, .depth = o->depth, .flags = o->flags, .printing = o->printing,
		     .load = o->load };
	cm_diag_scope_init(&r.ds, d, file);
	memset(out, 0, sizeof *out);
	out->errors = cm_diags_errors(d);
	int rc = load_doc(&r, doc);
	free(r.seen);
	out->b = r.b;
	out->quiet = r.quiet;
	out->kind_to = r.any_kind_to ? r.kind_to : NULL;
	if (!r.any_kind_to)
		free(r.kind_to);
	return rc;
}

int cm__map_xml_read(const char *path, const cm__map_read_opts *o, cm_diags *d, cm__map_read *out)
{
	xmlDoc *doc;
	memset(out, 0, sizeof *out);
	int rc = cm_xml_load_file(path, "map.xsd", d, &doc);
	if (rc)
		return rc;
	rc = read_into(doc, path, o, d, out);
	cm_xml_free_doc(doc);
	return rc;
}

int cm__map_xml_read_memory(const char *buf, size_t len, const char *file, const cm__map_read_opts *o, cm_diags *d,
                            cm__map_read *out)
{
	xmlDoc *doc;
	memset(out, 0, sizeof *out);
	int rc = cm_xml_load_memory(buf, len, file, "map.xsd", d, &doc);
	if (rc)
		return rc;
	rc = read_into(doc, file, o, d, out);
	cm_xml_free_doc(doc);
	return rc;
}

void cm__map_read_clear(cm__map_read *r)
{
	cm_map_builder_free(r->b);
	free(r->quiet);
	free(r->kind_to);
	memset(r, 0, sizeof *r);
}

/* ---- the canonical writer ---- */

static void write_piece(cm_xw *x, const cm_bigcity_piece *pc)
{
	cm_xw_open(x, 2, "piece");
	cm_xw_attr_int(x, "x", pc->x);
	cm_xw_attr_int(x, "y", pc->y);
	cm_feature_write_xml(x, &pc->tile, 3);
	cm_xw_close(x, 2);
}

int cm_map_write_xml(const cm_map *m, FILE *f)
{
	return cm_map_write_xml_diag(m, f, NULL);
}

/* The <grid>: a line of kind letters per row. false when out of memory. */
static bool write_grid(cm_xw *x, const cm_map *m)
{
	cm_xw_open(x, 1, "grid");
	char *grid = malloc((size_t)m->rows * ((size_t)m->cols + 5) + 4);
	if (grid) {
		char *p = grid;
		for (int y = 0; y < m->rows; y++) {
			memcpy(p, "\n    ", 5);
			p += 5;
			for (int xx = 0; xx < m->cols; xx++)
				*p++ = cm_square_kind_char(cm__map_at(m, xx, y)->kind);
		}
		memcpy(p, "\n  ", 4);
		cm_xw_text(x, grid);
		free(grid);
	}
	cm_xw_close(x, 1);
	return grid != NULL;
}

/* A <square> for each square with a name, an island, arms or markers. */
static void write_squares(cm_xw *x, const cm_map *m)
{
	for (int y = 0; y < m->rows; y++)
		for (int xx = 0; xx < m->cols; xx++) {
			const cm_square *sq = cm__map_at(m, xx, y);
			const char *name = cm_map_square_name(m, xx, y);
			size_t n_markers;
			const char *const *markers = cm_map_square_markers(m, xx, y, &n_markers);
			if (!name && sq->island < 0 && !sq->arms && !n_markers)
				continue;
			cm_xw_open(x, 1, "square");
			cm_xw_attr_int(x, "x", xx);
			cm_xw_attr_int(x, "y", y);
			cm_xw_attr(x, "name", name);
			if (sq->island >= 0 && (size_t)sq->island < m->n_islands)
				cm_xw_attr(x, "island", m->islands[sq->island].name);
			if (sq->arms)
				cm_xw_attr_int(x, "arms", (long)sq->arms);
			for (size_t k = 0; k < n_markers; k++) {
				cm_xw_open(x, 2, "marker");
				cm_xw_text(x, markers[k]);
				cm_xw_close(x, 2);
			}
			cm_xw_close(x, 1);
		}
}

/* An <edge> for each print the reader would not derive: plain neutral is
 * the default. */
static void write_edges(cm_xw *x, const cm_map *m)
{
	for (int y = 0; y < m->rows; y++)
		for (int xx = 0; xx < m->cols; xx++)
			for (int s = 0; s < MAX_SIDE; s++) {
				const cm_edge_print *p = &cm__map_at(m, xx, y)->print[s];
				if (p->kind == CM_PRINT_NONE)
					continue;
				const char *label = cm_map_print_label(m, xx, y, (cm_side)s);
				if (p->kind == CM_PRINT_NEUTRAL && !p->arms && !label)
					continue;
				cm_xw_open(x, 1, "edge");
				cm_xw_attr_int(x, "x", xx);
				cm_xw_attr_int(x, "y", y);
				cm_xw_attr(x, "side", cm_side_name((cm_side)s));
				cm_xw_attr(x, "print", cm_print_kind_name(p->kind));
				if (p->arms)
					cm_xw_attr_int(x, "arms", (long)p->arms);
				cm_xw_attr(x, "label", label);
				cm_xw_close(x, 1);
			}
}

static void write_ferries(cm_xw *x, const cm_map *m)
{
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *fe = &m->ferries[i];
		cm_xw_open(x, 1, "ferry");
		cm_xw_attr(x, "name", fe->name);
		cm_xw_attr_int(x, "x1", fe->x1);
		cm_xw_attr_int(x, "y1", fe->y1);
		cm_xw_attr(x, "side1", cm_side_name(fe->s1));
		cm_xw_attr_int(x, "x2", fe->x2);
		cm_xw_attr_int(x, "y2", fe->y2);
		cm_xw_attr(x, "side2", cm_side_name(fe->s2));
		if (fe->arms)
			cm_xw_attr_int(x, "arms", (long)fe->arms);
		cm_xw_close(x, 1);
	}
}

/* <setup>, <deck> and <rules>. */
static void write_play(cm_xw *x, const cm_map *m)
{
	const cm_setup *su = &m->setup;
	cm_xw_open(x, 1, "setup");
	cm_xw_attr_int(x, "starts", su->starts_used);
	if (su->tiles_min)
		cm_xw_attr_int(x, "tiles-min", su->tiles_min);
	if (su->tiles_max)
		cm_xw_attr_int(x, "tiles-max", su->tiles_max);
	cm_xw_attr_int(x, "followers", su->followers);
	cm_xw_close(x, 1);
	if (m->n_deck) {
		cm_xw_open(x, 1, "deck");
		for (size_t i = 0; i < m->n_deck; i++) {
			const cm_deck_entry *e = &m->deck[i];
			if (!e->tile) {
				cm_xw_open(x, 2, "set");
				cm_xw_attr(x, "id", e->tileset);
			} else {
				cm_xw_open(x, 2, "tile");
				cm_xw_attr(x, "set", e->tileset);
				cm_xw_attr(x, "id", e->tile);
				cm_xw_attr_int(x, "count", e->count);
			}
			cm_xw_close(x, 2);
		}
		cm_xw_close(x, 1);
	}
	cm_xw_open(x, 1, "rules");
	for (size_t i = 0; i < cm_rule_option_count(); i++) {
		const cm_rule_option *o = cm_rule_option_get(i);
		if (o->in_map)
			cm_xw_attr(x, o->name, cm_rules_value_name(i, cm_rules_get(&m->rules, i), true));
	}
	cm_xw_close(x, 1);
}

int cm_map_write_xml_diag(const cm_map *m, FILE *f, cm_diags *d)
{
	/* every other map has passed the model's checker: no text XML cannot
	 * hold, no dangling index */
	if (m->partial) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, m->file, 0, 0, NULL,
		             "map %s failed its checks: a partial map is not written", m->id ? m->id : "?");
		return CM_EINVAL;
	}
	cm_xw *x = cm_xw_new();
	if (!x)
		return CM_ENOMEM;
	cm_xw_open(x, 0, "map");
	cm_xw_attr(x, "format", "1");
	cm_xw_attr(x, "id", m->id ? m->id : "");
	cm_xw_attr(x, "name", m->name ? m->name : "");
	if (cm_about_present(&m->about)) {
		cm_xw_open(x, 1, "about");
		for (int i = 0; i < CM_ABOUT_FIELDS; i++)
			cm_xw_attr(x, cm_about_name(i), cm_about_get(&m->about, i));
		cm_xw_close(x, 1);
	}
	if (m->image) {
		cm_xw_open(x, 1, "image");
		cm_xw_attr(x, "src", m->image);
		cm_xw_attr(x, "legend", m->legend);
		cm_xw_close(x, 1);
	}
	bool grid = write_grid(x, m);
	for (size_t i = 0; i < m->n_islands; i++) {
		cm_xw_open(x, 1, "island");
		cm_xw_attr(x, "id", m->islands[i].name);
		cm_xw_attr(x, "name", m->islands[i].title);
		cm_xw_close(x, 1);
	}
	write_squares(x, m);
	write_edges(x, m);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		cm_xw_open(x, 1, "bigcity");
		cm_xw_attr(x, "name", m->bigcities[i].name ? m->bigcities[i].name : "");
		for (size_t k = 0; k < m->bigcities[i].n_pieces; k++)
			write_piece(x, &m->bigcities[i].pieces[k]);
		cm_xw_close(x, 1);
	}
	write_ferries(x, m);
	write_play(x, m);
	cm_xw_close(x, 0);
	if (!grid) {
		cm_xw_finish(x, NULL, m->file, NULL);
		return CM_ENOMEM;
	}
	return cm_xw_finish(x, f, m->file, d);
}
