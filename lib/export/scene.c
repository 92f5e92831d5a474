/* SPDX-License-Identifier: MIT */
/* scene.c: the scene of a picture (carcamap/scene.h): its builder (nodes,
 * styles stored once each, strings in one arena), a printed big city's
 * pieces, and the SVG writer, which writes every node in one pass
 * (linear in the nodes) with the attributes in a fixed order. */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/palette.h"
#include "export/render_int.h"
#include "export/scene_int.h"
#include "base/util_int.h"

#define S CM_SCENE_CELL

cm_paint cm_paint_rgb(cm_rgb c)
{
	return CM_PAINT_RGB(c.r, c.g, c.b);
}

static int grow(void **p, size_t *cap, size_t n, size_t need, size_t size)
{
	if (n + need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < n + need) {
		if (c > SIZE_MAX / 2 / size)
			return -1;
		c *= 2;
	}
	void *q = realloc(*p, c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* Copies s into the arena: its offset, or 0 (s NULL, or out of memory). */
static uint32_t intern(cm_scene *s, const char *str, size_t len)
{
	if (!str)
		return 0;
	if (s->na + len + 1 > UINT32_MAX || grow((void **)&s->arena, &s->cap_a, s->na, len + 1, 1)) {
		s->oom = 1;
		return 0;
	}
	uint32_t off = (uint32_t)s->na;
	memcpy(s->arena + s->na, str, len);
	s->arena[s->na + len] = '\0';
	s->na += len + 1;
	return off;
}

int cm_scene_new(cm_scene **out)
{
	cm_scene *s = calloc(1, sizeof *s);
	*out = NULL;
	if (!s)
		return CM_ENOMEM;
	cm_style none;
	memset(&none, 0, sizeof none);
	/* offset 0 of the arena, meta 0 and style 0 mean "none" */
	if (grow((void **)&s->arena, &s->cap_a, 0, 1, 1) || grow((void **)&s->meta, &s->cap_meta, 0, 1, sizeof *s->meta) ||
	    grow((void **)&s->st, &s->cap_st, 0, 1, sizeof *s->st) || grow((void **)&s->n, &s->cap_n, 0, 1, sizeof *s->n)) {
		cm_scene_free(s);
		return CM_ENOMEM;
	}
	s->arena[0] = '\0';
	s->na = 1;
	memset(&s->meta[0], 0, sizeof s->meta[0]);
	s->nmeta = 1;
	s->st[0] = none;
	s->nst = 1;
	s->n[0] = (cm__snode){ .kind = SN_GROUP, .next = CM_NODE_NONE, .child = CM_NODE_NONE };
	s->nn = 1;
	s->stack[0] = CM_NODE_ROOT;
	s->last[0] = CM_NODE_NONE;
	*out = s;
	return 0;
}

void cm_scene_free(cm_scene *s)
{
	if (!s)
		return;
	free(s->n);
	free(s->meta);
	free(s->st);
	free(s->st_hash);
	free(s->arena);
	free(s->pend);
	free(s->pat);
	free(s);
}

void cm_scene_set_size(cm_scene *s, int w, int h)
{
	s->w = w;
	s->h = h;
}

void cm_scene_get_size(const cm_scene *s, int *w, int *h)
{
	*w = s->w;
	*h = s->h;
}

void cm_scene_set_title(cm_scene *s, const char *title, const char *desc)
{
	s->title = title ? intern(s, title, strlen(title)) : 0;
	s->desc = desc ? intern(s, desc, strlen(desc)) : 0;
}

int cm_scene_error(const cm_scene *s)
{
	return s->oom ? CM_ENOMEM : 0;
}

static uint32_t style_hash(const cm_style *st)
{
	const unsigned char *p = (const unsigned char *)st;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < sizeof *st; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* The index of st among the scene's styles, added when new. */
static uint32_t style_of(cm_scene *s, const cm_style *st_in)
{
	if (!st_in)
		return 0;
	cm_style st;
	memset(&st, 0, sizeof st); /* no stray padding in the hash */
	st = *st_in;
	if (2 * (s->nst + 1) > s->hash_cap) {
		size_t cap = s->hash_cap ? 2 * s->hash_cap : 256;
		uint32_t *h = calloc(cap, sizeof *h);
		if (!h) {
			s->oom = 1;
			return 0;
		}
		for (size_t i = 1; i < s->nst; i++) {
			size_t k = style_hash(&s->st[i]) & (cap - 1);
			while (h[k])
				k = (k + 1) & (cap - 1);
			h[k] = (uint32_t)i + 1;
		}
		free(s->st_hash);
		s->st_hash = h;
		s->hash_cap = cap;
	}
	size_t k = style_hash(&st) & (s->hash_cap - 1);
	while (s->st_hash[k]) {
		uint32_t i = s->st_hash[k] - 1;
		if (memcmp(&s->st[i], &st, sizeof st) == 0)
			return i;
		k = (k + 1) & (s->hash_cap - 1);
	}
	if (grow((void **)&s->st, &s->cap_st, s->nst, 1, sizeof *s->st)) {
		s->oom = 1;
		return 0;
	}
	s->st[s->nst] = st;
	s->st_hash[k] = (uint32_t)s->nst + 1;
	return (uint32_t)s->nst++;
}

/* A new node appended to the open group. */
static cm_node add(cm_scene *s, int kind, const cm_style *st)
{
	if (s->nn >= UINT32_MAX - 1 || grow((void **)&s->n, &s->cap_n, s->nn, 1, sizeof *s->n)) {
		s->oom = 1;
		return CM_NODE_NONE;
	}
	uint32_t i = (uint32_t)s->nn++;
	s->n[i] = (cm__snode){ .kind = (uint8_t)kind, .style = style_of(s, st), .next = CM_NODE_NONE,
		               .child = CM_NODE_NONE };
	uint32_t parent = s->stack[s->depth], prev = s->last[s->depth];
	if (prev == CM_NODE_NONE)
		s->n[parent].child = i;
	else
		s->n[prev].next = i;
	s->last[s->depth] = i;
	return i;
}

static cm_node open_group(cm_scene *s, int kind, const cm_style *st)
{
	if (s->depth + 1 >= (int)(sizeof s->stack / sizeof s->stack[0])) {
		s->oom = 1; /* a programming error in practice: groups nest a few deep */
		return CM_NODE_NONE;
	}
	cm_node g = kind == SN_PATTERN ? CM_NODE_NONE : add(s, kind, st);
	if (kind == SN_PATTERN) {
		if (s->nn >= UINT32_MAX - 1 || grow((void **)&s->n, &s->cap_n, s->nn, 1, sizeof *s->n)) {
			s->oom = 1;
		} else {
			g = (uint32_t)s->nn++;
			s->n[g] = (cm__snode){ .kind = SN_PATTERN, .next = CM_NODE_NONE, .child = CM_NODE_NONE };
		}
	}
	s->depth++;
	/* a failed group still nests, so that cm_scene_end pairs; its
	 * children go to its parent */
	s->stack[s->depth] = g == CM_NODE_NONE ? s->stack[s->depth - 1] : g;
	s->last[s->depth] = g == CM_NODE_NONE ? s->last[s->depth - 1] : CM_NODE_NONE;
	return g;
}

cm_node cm_scene_group(cm_scene *s, const cm_style *st)
{
	return open_group(s, SN_GROUP, st);
}

void cm_scene_end(cm_scene *s)
{
	if (s->depth > 0) {
		s->depth--;
		if (s->stack[s->depth] == s->stack[s->depth + 1]) /* a failed group */
			s->last[s->depth] = s->last[s->depth + 1];
	}
}

int cm_scene_pattern_begin(cm_scene *s, const char *id, int w, int h)
{
	cm_node g = open_group(s, SN_PATTERN, NULL);
	if (g == CM_NODE_NONE)
		return 0;
	s->n[g].a = w;
	s->n[g].b = h;
	cm_scene_id(s, g, id);
	if (grow((void **)&s->pat, &s->cap_pat, s->npat, 1, sizeof *s->pat)) {
		s->oom = 1;
		return 0;
	}
	s->pat[s->npat] = g;
	return (int)s->npat++;
}

void cm_scene_pattern_end(cm_scene *s)
{
	cm_scene_end(s);
}

cm_node cm_scene_rect(cm_scene *s, int x, int y, int w, int h, const cm_style *st)
{
	cm_node n = add(s, SN_RECT, st);
	if (n != CM_NODE_NONE) {
		s->n[n].a = x;
		s->n[n].b = y;
		s->n[n].c = w;
		s->n[n].d = h;
	}
	return n;
}

cm_node cm_scene_circle(cm_scene *s, int cx, int cy, int r100, const cm_style *st)
{
	cm_node n = add(s, SN_CIRCLE, st);
	if (n != CM_NODE_NONE) {
		s->n[n].a = cx;
		s->n[n].b = cy;
		s->n[n].c = r100;
	}
	return n;
}

cm_node cm_scene_path(cm_scene *s, const char *d, const cm_style *st)
{
	cm_node n = add(s, SN_PATH, st);
	if (n != CM_NODE_NONE)
		s->n[n].str = intern(s, d, strlen(d));
	return n;
}

void cm_scene_path_add(cm_scene *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0 || grow((void **)&s->pend, &s->cap_pend, s->npend, (size_t)k + 1, 1)) {
		s->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s->pend + s->npend, (size_t)k + 1, fmt, ap);
	va_end(ap);
	s->npend += (size_t)k;
}

cm_node cm_scene_path_end(cm_scene *s, const cm_style *st)
{
	cm_node n = add(s, SN_PATH, st);
	if (n != CM_NODE_NONE)
		s->n[n].str = intern(s, s->pend, s->npend);
	s->npend = 0;
	return n;
}

cm_node cm_scene_text(cm_scene *s, int x, int y, const char *text, const cm_style *st)
{
	cm_node n = add(s, SN_TEXT, st);
	if (n != CM_NODE_NONE) {
		s->n[n].a = x;
		s->n[n].b = y;
		s->n[n].str = intern(s, text ? text : "", text ? strlen(text) : 0);
	}
	return n;
}

void cm_scene_break(cm_scene *s)
{
	add(s, SN_BREAK, NULL);
}

/* The metadata record of n, made on first use. */
static cm__smeta *meta_of(cm_scene *s, cm_node n)
{
	if (n == CM_NODE_NONE || n >= s->nn)
		return NULL;
	if (!s->n[n].meta) {
		if (s->nmeta >= UINT32_MAX || grow((void **)&s->meta, &s->cap_meta, s->nmeta, 1, sizeof *s->meta)) {
			s->oom = 1;
			return NULL;
		}
		memset(&s->meta[s->nmeta], 0, sizeof *s->meta);
		s->n[n].meta = (uint32_t)s->nmeta++;
	}
	return &s->meta[s->n[n].meta];
}

void cm_scene_id(cm_scene *s, cm_node n, const char *id)
{
	uint32_t off = intern(s, id, id ? strlen(id) : 0);
	cm__smeta *m = meta_of(s, n);
	if (m)
		m->id = off;
}

void cm_scene_class(cm_scene *s, cm_node n, const char *cls)
{
	uint32_t off = intern(s, cls, cls ? strlen(cls) : 0);
	cm__smeta *m = meta_of(s, n);
	if (m)
		m->cls = off;
}

void cm_scene_title(cm_scene *s, cm_node n, const char *title)
{
	uint32_t off = intern(s, title, title ? strlen(title) : 0);
	cm__smeta *m = meta_of(s, n);
	if (m)
		m->title = off;
}

void cm_scene_text_line2(cm_scene *s, cm_node n, int dy, const char *text)
{
	uint32_t off = intern(s, text, text ? strlen(text) : 0);
	cm__smeta *m = meta_of(s, n);
	if (m) {
		m->line2 = off;
		m->dy = dy;
	}
}

void cm_scene_data(cm_scene *s, cm_node n, const char *name, const char *value)
{
	cm__smeta *m = meta_of(s, n);
	if (!m || !name || !value)
		return;
	/* the node's list is copied to the arena's end with the new pair:
	 * a node has a few data attributes */
	size_t old = 0;
	if (m->data) {
		const char *p = s->arena + m->data;
		while (p[old])
			old += strlen(p + old) + 1, old += strlen(p + old) + 1;
	}
	size_t ln = strlen(name), lv = strlen(value), need = old + ln + lv + 3;
	if (s->na + need > UINT32_MAX || grow((void **)&s->arena, &s->cap_a, s->na, need, 1)) {
		s->oom = 1;
		return;
	}
	m = meta_of(s, n);
	char *q = s->arena + s->na;
	if (old)
		memcpy(q, s->arena + m->data, old);
	memcpy(q + old, name, ln + 1);
	memcpy(q + old + ln + 1, value, lv + 1);
	q[old + ln + lv + 2] = '\0';
	m->data = (uint32_t)s->na;
	s->na += need;
}

void cm_scene_translate(cm_scene *s, cm_node n, int tx, int ty)
{
	if (n == CM_NODE_NONE || n >= s->nn)
		return;
	s->n[n].has_xf = 1;
	s->n[n].a = tx;
	s->n[n].b = ty;
}

/* A string of src at offset off, copied into s's arena (0 stays 0). */
static uint32_t copy_str(cm_scene *s, const cm_scene *src, uint32_t off)
{
	return off ? intern(s, src->arena + off, strlen(src->arena + off)) : 0;
}

/* A data list of src ("name\0value\0...\0\0") copied into s's arena. */
static uint32_t copy_data(cm_scene *s, const cm_scene *src, uint32_t off)
{
	if (!off)
		return 0;
	const char *p = src->arena + off;
	size_t n = 0;
	while (p[n])
		n += strlen(p + n) + 1, n += strlen(p + n) + 1;
	return intern(s, p, n); /* intern adds the list's closing nul */
}

cm_node cm__scene_copy_node(cm_scene *s, const cm_scene *src, cm_node n)
{
	const cm__snode *o = &src->n[n];
	assert(o->kind != SN_PATTERN);
	const cm_style *st = o->style ? &src->st[o->style] : NULL;
	cm_node c = o->kind == SN_GROUP ? open_group(s, SN_GROUP, st) : add(s, o->kind, st);
	if (c == CM_NODE_NONE)
		return c;
	s->n[c].has_xf = o->has_xf;
	s->n[c].a = o->a;
	s->n[c].b = o->b;
	s->n[c].c = o->c;
	s->n[c].d = o->d;
	uint32_t str = copy_str(s, src, o->str);
	s->n[c].str = str;
	if (o->meta) {
		const cm__smeta *om = &src->meta[o->meta];
		cm__smeta m = { .id = copy_str(s, src, om->id), .cls = copy_str(s, src, om->cls),
			        .title = copy_str(s, src, om->title), .line2 = copy_str(s, src, om->line2),
			        .data = copy_data(s, src, om->data), .dy = om->dy };
		cm__smeta *dm = meta_of(s, c);
		if (dm)
			*dm = m;
	}
	return c;
}

/* ---- the tile ---- */

/* Rotates (x,y) in a square of side S by k quarter turns clockwise. */
static void rot(int k, int *x, int *y)
{
	for (int i = 0; i < (k & 3); i++) {
		int t = *x;
		*x = S - *y;
		*y = t;
	}
}

static void side_point(int s, int *x, int *y)
{
	int px = S / 2, py = 0;
	rot(s, &px, &py);
	*x = px;
	*y = py;
}

static cm_style fill_of(cm_rgb c)
{
	return (cm_style){ .fill = cm_paint_rgb(c) };
}

void cm__scene_shield(cm_scene *s, int x, int y)
{
	char d[64];
	snprintf(d, sizeof d, "M%d %dh8v4q0 4-4 5q-4-1-4-5z", x, y);
	cm_scene_path(s, d, &(cm_style){ .fill = cm_paint_rgb(cm_palette_arms()), .stroke = CM_PAINT_RGB(255, 255, 255),
	                                 .stroke_width = 80 });
}

/* The classic drawing of a printed big city's piece: cities over their
 * sides, roads to the centre. Maps' pictures keep it byte for byte; tiles
 * are drawn by scene_tile.c. */
static void piece_cities(cm_scene *s, const cm_tile_type *t, size_t nf)
{
	for (size_t fi = 0; fi < nf; fi++) {
		const cm_feature *fe = &t->features[fi];
		if (fe->kind != CM_FEAT_CITY)
			continue;
		unsigned sides = cm_slots_sides(fe->slots);
		if (!sides)
			continue;
		int one = !(sides & (sides - 1));
		for (int sd = 0; sd < 4; sd++) {
			if (!(sides & (1u << sd)))
				continue;
			int ax = 0, ay = 0, cx = S, cy = 0, qx = S / 2, qy = one ? 24 : S / 2;
			rot(sd, &ax, &ay);
			rot(sd, &cx, &cy);
			rot(sd, &qx, &qy);
			if (one)
				cm_scene_path_add(s, "M%d %dL%d %dQ%d %d %d %dz", ax, ay, cx, cy, qx, qy, ax, ay);
			else
				cm_scene_path_add(s, "M%d %dL%d %dL%d %dz", ax, ay, cx, cy, qx, qy);
		}
		/* a city across the piece (two opposite sides) joins in the middle */
		if (((sides & 5u) == 5u || (sides & 10u) == 10u))
			cm_scene_path_add(s, "M%d %dh%dv%dh-%dz", S / 4, S / 4, S / 2, S / 2, S / 2);
		cm_style st = fill_of(cm_palette_feature(CM_FEAT_CITY));
		cm_scene_path_end(s, &st);
		for (int a = 0; a < fe->arms && a < 3; a++) {
			int sd = 0;
			while (!(sides & (1u << sd)))
				sd++;
			int px = S / 2 - 4 + 9 * a - 9 * (fe->arms > 1), py = 3;
			int qx = px + 8, qy = py + 9;
			rot(sd, &px, &py);
			rot(sd, &qx, &qy);
			cm__scene_shield(s, px < qx ? px : qx, py < qy ? py : qy);
		}
	}
}

static void road_path(cm_scene *s, const int *ends, int n)
{
	if (n == 2) {
		int ax, ay, cx, cy;
		side_point(ends[0], &ax, &ay);
		side_point(ends[1], &cx, &cy);
		cm_scene_path_add(s, "M%d %dQ%d %d %d %d", ax, ay, S / 2, S / 2, cx, cy);
	} else {
		for (int k = 0; k < n; k++) {
			int ax, ay;
			side_point(ends[k], &ax, &ay);
			cm_scene_path_add(s, "M%d %dL%d %d", ax, ay, S / 2, S / 2);
		}
	}
}

static void piece_roads(cm_scene *s, const cm_tile_type *t, size_t nf)
{
	for (size_t fi = 0; fi < nf; fi++) {
		const cm_feature *fe = &t->features[fi];
		if (fe->kind != CM_FEAT_ROAD)
			continue;
		int ends[4], n = 0;
		for (int sd = 0; sd < 4; sd++)
			if (fe->slots & CM_SIDE_MID(sd))
				ends[n++] = sd;
		if (!n)
			continue;
		road_path(s, ends, n);
		cm_scene_path_end(s, &(cm_style){ .fill = CM_PAINT_NONE, .stroke = cm_paint_rgb(cm_palette_grid()),
		                                  .stroke_width = 600 });
		road_path(s, ends, n);
		cm_scene_path_end(s, &(cm_style){ .fill = CM_PAINT_NONE,
		                                  .stroke = cm_paint_rgb(cm_palette_feature(CM_FEAT_ROAD)),
		                                  .stroke_width = 350 });
		if (n != 2) { /* a junction or an end: a square where the road stops */
			cm_style st = fill_of(cm_palette_grid());
			cm_scene_rect(s, S / 2 - 4, S / 2 - 4, 8, 8, &st);
		}
	}
}

static void piece_cloisters(cm_scene *s, const cm_tile_type *t, size_t nf)
{
	for (size_t fi = 0; fi < nf; fi++) {
		const cm_feature *fe = &t->features[fi];
		if (fe->kind != CM_FEAT_MONASTERY && fe->kind != CM_FEAT_ABBEY && fe->kind != CM_FEAT_GARDEN)
			continue;
		cm_style st = { .fill = cm_paint_rgb(cm_palette_feature(fe->kind)), .stroke = CM_PAINT_RGB(255, 255, 255),
			        .stroke_width = 80 };
		if (fe->kind == CM_FEAT_GARDEN) {
			cm_scene_circle(s, S / 2, S / 2, 600, &st);
		} else {
			char d[64];
			snprintf(d, sizeof d, "M%d %dh12v-8l-6-6l-6 6z", S / 2 - 6, S / 2 + 7);
			cm_scene_path(s, d, &st);
		}
	}
}

cm_node cm__scene_piece(cm_scene *s, int x, int y, const cm_tile_type *t)
{
	cm_node g = cm_scene_group(s, NULL);
	cm_scene_translate(s, g, x, y);
	cm_style st = fill_of(cm_palette_feature(CM_FEAT_FIELD));
	cm_scene_rect(s, 0, 0, S, S, &st);
	size_t nf = t->n_features < CM_MAX_FEATURES ? t->n_features : CM_MAX_FEATURES;
	piece_cities(s, t, nf);
	piece_roads(s, t, nf);
	piece_cloisters(s, t, nf);
	cm_scene_end(s);
	return g;
}

/* ---- SVG ---- */

/* v hundredths as a decimal: 250 "2.5", 80 "0.8", 600 "6". */
static void put_h(FILE *f, long v)
{
	if (v < 0) {
		fputc('-', f);
		v = -v;
	}
	fprintf(f, "%ld", v / 100);
	if (v % 10)
		fprintf(f, ".%02ld", v % 100);
	else if (v % 100)
		fprintf(f, ".%ld", v % 100 / 10);
}

static void put_paint(const cm_scene *s, FILE *f, const char *attr, cm_paint p)
{
	if (p == CM_PAINT_INHERIT)
		return;
	fprintf(f, " %s=\"", attr);
	if (p == CM_PAINT_NONE) {
		fputs("none", f);
	} else if ((p & 0xf000000u) == 0x3000000u) {
		size_t i = p & 0xffffffu;
		fputs("url(#", f);
		if (i < s->npat && s->n[s->pat[i]].meta)
			cm__put_xml(f, cm__sstr(s, s->meta[s->n[s->pat[i]].meta].id));
		fputs(")", f);
	} else {
		fprintf(f, "#%02x%02x%02x", (p >> 16) & 0xff, (p >> 8) & 0xff, p & 0xff);
	}
	fputc('"', f);
}

static void put_attr(FILE *f, const char *attr, const char *v)
{
	if (!v)
		return;
	fprintf(f, " %s=\"", attr);
	cm__put_xml(f, v);
	fputc('"', f);
}

static void put_ids(const cm_scene *s, FILE *f, const cm__smeta *m)
{
	if (!m)
		return;
	put_attr(f, "id", cm__sstr(s, m->id));
	put_attr(f, "class", cm__sstr(s, m->cls));
}

static void put_halo(const cm_scene *s, FILE *f, const cm_style *st)
{
	if (!st->halo)
		return;
	put_paint(s, f, "stroke", st->halo);
	fputs(" stroke-width=\"", f);
	put_h(f, st->halo_width);
	fputs(st->halo_round ? "\" stroke-linejoin=\"round\" paint-order=\"stroke\"" : "\" paint-order=\"stroke\"", f);
}

/* Fill, stroke and their details, in that order. */
static void put_paints(const cm_scene *s, FILE *f, const cm_style *st)
{
	put_paint(s, f, "fill", st->fill);
	if (st->fill_opacity) {
		fputs(" fill-opacity=\"", f);
		put_h(f, st->fill_opacity);
		fputc('"', f);
	}
	put_paint(s, f, "stroke", st->stroke);
	if (st->stroke_width) {
		fputs(" stroke-width=\"", f);
		put_h(f, st->stroke_width);
		fputc('"', f);
	}
	if (st->stroke_opacity) {
		fputs(" stroke-opacity=\"", f);
		put_h(f, st->stroke_opacity);
		fputc('"', f);
	}
	if (st->dash[0])
		fprintf(f, " stroke-dasharray=\"%d %d\"", st->dash[0], st->dash[1]);
	if (st->overlay)
		fputs(" visibility=\"hidden\" pointer-events=\"none\"", f);
}

static void put_title(const cm_scene *s, FILE *f, const cm__smeta *m)
{
	if (m && m->title) {
		fputs("<title>", f);
		cm__put_xml(f, cm__sstr(s, m->title));
		fputs("</title>", f);
	}
}

static void put_data(const cm_scene *s, FILE *f, const cm__smeta *m)
{
	if (!m || !m->data)
		return;
	for (const char *p = s->arena + m->data; *p;) {
		const char *v = p + strlen(p) + 1;
		fprintf(f, " data-%s=\"", p);
		cm__put_xml(f, v);
		fputc('"', f);
		p = v + strlen(v) + 1;
	}
}

/* A leaf's end: "/>" or its title and the closing tag. */
static void leaf_end(const cm_scene *s, FILE *f, const cm__smeta *m, const char *tag)
{
	put_data(s, f, m);
	if (m && m->title) {
		fputc('>', f);
		put_title(s, f, m);
		fprintf(f, "</%s>", tag);
	} else {
		fputs("/>", f);
	}
}

static void svg_text(const cm_scene *s, FILE *f, const cm__snode *n, const cm_style *st, const cm__smeta *m)
{
	static const char *const anchors[] = { "", "start", "middle", "end" };
	fprintf(f, "<text x=\"%d\" y=\"%d\"", n->a, n->b);
	if (st->font_size)
		fprintf(f, " font-size=\"%d\"", st->font_size);
	if (st->bold)
		fputs(" font-weight=\"bold\"", f);
	if (st->anchor)
		fprintf(f, " text-anchor=\"%s\"", anchors[st->anchor & 3]);
	put_ids(s, f, m);
	put_halo(s, f, st);
	put_paint(s, f, "fill", st->fill);
	fputc('>', f);
	put_title(s, f, m);
	cm__put_xml(f, cm__sstr(s, n->str));
	if (m && m->line2) {
		fprintf(f, "<tspan x=\"%d\" dy=\"%d\">", n->a, m->dy);
		cm__put_xml(f, cm__sstr(s, m->line2));
		fputs("</tspan>", f);
	}
	fputs("</text>", f);
}

static void svg_node(const cm_scene *s, FILE *f, uint32_t i)
{
	const cm__snode *n = &s->n[i];
	const cm_style *st = &s->st[n->style];
	const cm__smeta *m = cm__snode_meta(s, n);
	switch (n->kind) {
	case SN_BREAK: fputc('\n', f); return;
	case SN_TEXT: svg_text(s, f, n, st, m); return;
	case SN_RECT:
		fputs("<rect", f);
		put_ids(s, f, m);
		if (n->a || n->b)
			fprintf(f, " x=\"%d\" y=\"%d\"", n->a, n->b);
		fprintf(f, " width=\"%d\" height=\"%d\"", n->c, n->d);
		put_paints(s, f, st);
		leaf_end(s, f, m, "rect");
		return;
	case SN_CIRCLE:
		fputs("<circle", f);
		put_ids(s, f, m);
		fprintf(f, " cx=\"%d\" cy=\"%d\" r=\"", n->a, n->b);
		put_h(f, n->c);
		fputc('"', f);
		put_paints(s, f, st);
		leaf_end(s, f, m, "circle");
		return;
	case SN_PATH:
		fputs("<path", f);
		put_ids(s, f, m);
		fputs(" d=\"", f);
		cm__put_xml(f, cm__sstr(s, n->str));
		fputc('"', f);
		put_paints(s, f, st);
		leaf_end(s, f, m, "path");
		return;
	case SN_PATTERN:
		fputs("<pattern", f);
		put_ids(s, f, m);
		fprintf(f, " width=\"%d\" height=\"%d\" patternUnits=\"userSpaceOnUse\">", n->a, n->b);
		for (uint32_t c = n->child; c != CM_NODE_NONE; c = s->n[c].next)
			svg_node(s, f, c);
		fputs("</pattern>", f);
		return;
	}
	fputs("<g", f);
	put_ids(s, f, m);
	put_data(s, f, m);
	if (n->has_xf)
		fprintf(f, " transform=\"translate(%d %d)\"", n->a, n->b);
	if (st->font_size)
		fprintf(f, " font-size=\"%d\"", st->font_size);
	put_halo(s, f, st);
	put_paints(s, f, st);
	fputc('>', f);
	put_title(s, f, m);
	for (uint32_t c = n->child; c != CM_NODE_NONE; c = s->n[c].next)
		svg_node(s, f, c);
	fputs("</g>", f);
}

void cm__scene_svg(const cm_scene *s, FILE *f, const cm_scene_opts *o, int standalone)
{
	const cm__smeta *m = cm__snode_meta(s, &s->n[0]);
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"", f);
	if (m)
		put_attr(f, "id", cm__sstr(s, m->id));
	fprintf(f, " width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"10\"",
	        o && o->svg_w ? o->svg_w : s->w, o && o->svg_h ? o->svg_h : s->h, s->w, s->h);
	put_data(s, f, m);
	fputs(">\n", f);
	if (s->title) {
		fputs("<title>", f);
		cm__put_xml(f, cm__sstr(s, s->title));
		fputs("</title>\n", f);
	}
	if (s->desc) {
		fputs("<desc>", f);
		cm__put_xml(f, cm__sstr(s, s->desc));
		fputs("</desc>\n", f);
	}
	if (s->npat) {
		fputs("<defs>", f);
		for (size_t i = 0; i < s->npat; i++)
			svg_node(s, f, s->pat[i]);
		fputs("</defs>", f);
	}
	for (uint32_t c = s->n[0].child; c != CM_NODE_NONE; c = s->n[c].next)
		svg_node(s, f, c);
	fputs("\n</svg>\n", f);
}

void cm_scene_opts_init(cm_scene_opts *o)
{
	memset(o, 0, sizeof *o);
	o->format = CM_SCENE_SVG;
	o->px_per_cell = 24;
	o->cell_um = 45000;
}

typedef struct {
	const cm_scene *s;
	const cm_scene_opts *o;
} svg_job;

static int write_svg(FILE *f, void *arg)
{
	const svg_job *j = arg;
	cm__scene_svg(j->s, f, j->o, 1);
	return ferror(f) ? CM_EIO : 0;
}

int cm_scene_write(const cm_scene *s, const cm_scene_opts *o, const char *path, cm_diags *d)
{
	cm_scene_opts def;
	if (!o) {
		cm_scene_opts_init(&def);
		o = &def;
	}
	if (s->oom)
		return CM_ENOMEM;
	switch (o->format) {
	case CM_SCENE_SVG: {
		svg_job j = { s, o };
		return cm_write_to(path, write_svg, &j, d);
	}
	case CM_SCENE_PNG: return cm__scene_png(s, o, path, d);
	case CM_SCENE_PDF: return cm__scene_pdf(s, o, path, d);
	}
	cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "unknown scene format %d", (int)o->format);
	return CM_EINVAL;
}
