/* SPDX-License-Identifier: MIT */
/* render_sheet.c: tile sheets (cm_render_tile_sheet, carcamap/render.h):
 * every tile type of a set drawn from its features by the scene's tile (the
 * drawing of a played board), in id order, on a card with its id, name,
 * counts per edition and markers, a section per set, and the key of the
 * prints the tiles show; the problems of a set drawn on their tiles with
 * their check ids. Every feature is a group with its key and description. SVG is the scene; HTML puts it
 * in a page whose script outlines the feature under the pointer, describes
 * it, and shows a selected tile's four rotations; PNG is the scene drawn
 * by cairo. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/palette.h"
#include "export/render_int.h"
#include "export/scene_int.h"
#include "base/util_int.h"

#define S CM_SCENE_CELL
#define MARGIN 12
#define CARD_W 64
#define CARD_H 76
#define GAP 5
#define COLS 10
#define HEAD_H 30
#define LINE_H 8   /* a line of a set's own problems */
#define TILE_X 14  /* the tile inside its card */
#define TILE_Y 3

/* Where each diagnostic belongs: its set and tile (-1: the set itself;
 * set -1: none of the sets). */
typedef struct {
	int set, tile;
} place;

typedef struct {
	cm_scene *s;
	const cm_tileset *const *sets;
	size_t n_sets;
	const cm_render_opts *o;
	const cm_diags *d;      /* NULL: no problems drawn */
	place *at;              /* per diagnostic */
	size_t **order;         /* per set, its tiles in id order */
	int *set_y;             /* per set, the top of its section */
	int w, h;
	int cols;               /* cards a row: COLS, fewer for small sets */
	unsigned prints;        /* what the tiles show, for the key */
	int key_y;
	int oom;
} sheet;

/* ---- diagnostics to tiles ---- */

/* The tile of ts whose element holds line (tiles come in line order): the
 * last one starting at or before it; -1 before the first. */
static int tile_of_line(const cm_tileset *ts, unsigned line)
{
	size_t lo = 0, hi = ts->n_tiles;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ts->tiles[mid].line <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int)lo - 1;
}

/* "tile set ID, tile TID, ..." (a model without lines): set and tile. */
static place place_of_where(const sheet *sh, const char *where)
{
	place p = { -1, -1 };
	static const char set_kw[] = "tile set ", tile_kw[] = ", tile ";
	if (!where || strncmp(where, set_kw, sizeof set_kw - 1) != 0)
		return p;
	const char *id = where + sizeof set_kw - 1, *end = strchr(id, ',');
	size_t n = end ? (size_t)(end - id) : strlen(id);
	for (size_t i = 0; i < sh->n_sets && p.set < 0; i++)
		if (sh->sets[i]->id && strlen(sh->sets[i]->id) == n && strncmp(sh->sets[i]->id, id, n) == 0)
			p.set = (int)i;
	if (p.set < 0 || !end || strncmp(end, tile_kw, sizeof tile_kw - 1) != 0)
		return p;
	const char *tid = end + sizeof tile_kw - 1, *tend = strchr(tid, ',');
	size_t tn = tend ? (size_t)(tend - tid) : strlen(tid);
	const cm_tileset *ts = sh->sets[p.set];
	for (size_t k = 0; k < ts->n_tiles; k++)
		if (ts->tiles[k].id && strlen(ts->tiles[k].id) == tn && strncmp(ts->tiles[k].id, tid, tn) == 0) {
			p.tile = (int)k;
			break;
		}
	return p;
}

static int place_diags(sheet *sh)
{
	size_t nd = sh->d ? cm_diags_count(sh->d) : 0;
	if (!nd)
		return 0;
	if (!(sh->at = malloc(nd * sizeof *sh->at)))
		return CM_ENOMEM;
	for (size_t i = 0; i < nd; i++) {
		const cm_diag *g = cm_diags_get(sh->d, i);
		place p = { -1, -1 };
		for (size_t k = 0; k < sh->n_sets && p.set < 0; k++) {
			const cm_tileset *ts = sh->sets[k];
			if (g->file && ts->file && strcmp(g->file, ts->file) == 0) {
				p.set = (int)k;
				/* the root's line is the set's; a tile's lines are its own */
				p.tile = g->line > ts->line ? tile_of_line(ts, g->line) : -1;
			}
		}
		if (p.set < 0)
			p = place_of_where(sh, g->where);
		if (p.set < 0 && sh->n_sets == 1)
			p.set = 0;
		sh->at[i] = p;
	}
	return 0;
}

/* ---- layout ---- */

typedef struct {
	const char *id;
	size_t i;
} by_id;

static int cmp_tile(const void *a, const void *b)
{
	const by_id *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int set_lines(const sheet *sh, size_t si)
{
	int n = 0;
	size_t nd = sh->at ? cm_diags_count(sh->d) : 0;
	for (size_t i = 0; i < nd; i++)
		n += sh->at[i].set == (int)si && sh->at[i].tile < 0;
	return n;
}

static int layout(sheet *sh)
{
	if (!(sh->order = calloc(sh->n_sets + 1, sizeof *sh->order)) ||
	    !(sh->set_y = calloc(sh->n_sets + 1, sizeof *sh->set_y)))
		return CM_ENOMEM;
	int y = MARGIN;
	sh->cols = 1;
	for (size_t i = 0; i < sh->n_sets; i++)
		if (sh->sets[i]->n_tiles > (size_t)sh->cols)
			sh->cols = sh->sets[i]->n_tiles < COLS ? (int)sh->sets[i]->n_tiles : COLS;
	for (size_t i = 0; i < sh->n_sets; i++) {
		const cm_tileset *ts = sh->sets[i];
		size_t n = ts->n_tiles;
		by_id *ids = malloc((n + 1) * sizeof *ids);
		if (!ids || !(sh->order[i] = malloc((n + 1) * sizeof **sh->order))) {
			free(ids);
			return CM_ENOMEM;
		}
		for (size_t k = 0; k < n; k++)
			ids[k] = (by_id){ ts->tiles[k].id ? ts->tiles[k].id : "", k };
		qsort(ids, n, sizeof *ids, cmp_tile);
		for (size_t k = 0; k < n; k++)
			sh->order[i][k] = ids[k].i;
		free(ids);
		sh->set_y[i] = y;
		int rows = (int)((n + (size_t)sh->cols - 1) / (size_t)sh->cols);
		y += HEAD_H + LINE_H * set_lines(sh, i) + rows * (CARD_H + GAP) + GAP;
	}
	sh->w = 2 * MARGIN + sh->cols * CARD_W + (sh->cols - 1) * GAP;
	if (sh->w < 2 * MARGIN + 320) /* room for a set's line */
		sh->w = 2 * MARGIN + 320;
	sh->key_y = y + GAP; /* the key's height is known once the tiles are drawn */
	sh->h = y + MARGIN - GAP;
	return 0;
}

/* ---- drawing ---- */

static cm_style text_st(int size, int bold, cm_anchor a, cm_rgb c)
{
	return (cm_style){ .fill = cm_paint_rgb(c), .font_size = size, .bold = bold, .anchor = a };
}

/* "c1: city, Nw Nm Ne, 1 coat of arms; touches …; contacts …" */
static void describe_feature(cm__sbuf *b, const cm_tile_type *t, size_t fi)
{
	const cm_feature *f = &t->features[fi];
	char slots[64];
	cm_slots_format(f->slots & CM_SLOTS_ALL, slots, sizeof slots);
	cm__sb_add(b, "%s: %s, %s", f->id ? f->id : "?", cm_feature_kind_name(f->kind), f->slots ? slots : "no slots");
	if (f->arms)
		cm__sb_add(b, ", %d coat%s of arms", f->arms, f->arms == 1 ? "" : "s");
	if (f->cathedral)
		cm__sb_add(b, ", cathedral");
	if (f->inn)
		cm__sb_add(b, ", inn");
	if (f->good != CM_GOOD_NONE)
		cm__sb_add(b, ", %s", cm_good_name(f->good));
	for (size_t k = 0, first = 1; k < t->n_features && k < CM_MAX_FEATURES; k++)
		if (f->touches & (1u << k)) {
			cm__sb_add(b, "%s%s", first ? "; touches " : " ", t->features[k].id ? t->features[k].id : "?");
			first = 0;
		}
	for (size_t c = 0, first = 1; fi < CM_MAX_FEATURES && c < t->n_contacts; c++) {
		if (!(t->contacts[c] & (1u << fi)))
			continue;
		for (size_t k = 0; k < t->n_features && k < CM_MAX_FEATURES; k++)
			if (k != fi && (t->contacts[c] & (1u << k))) {
				cm__sb_add(b, "%s%s", first ? "; in contact with " : " ", t->features[k].id ? t->features[k].id : "?");
				first = 0;
			}
	}
}

typedef struct {
	sheet *sh;
	size_t si, ti;
} tile_ctx;

/* Opens the group of feature fi: its key (set, tile, feature) and its
 * description as the hover title. */
static int feature_group(void *arg, int fi)
{
	tile_ctx *c = arg;
	const cm_tile_type *t = &c->sh->sets[c->si]->tiles[c->ti];
	cm_node g = cm_scene_group(c->sh->s, NULL);
	cm_scene_class(c->sh->s, g, "f");
	char key[64];
	snprintf(key, sizeof key, "%zu,%zu,%d", c->si, c->ti, fi);
	cm_scene_data(c->sh->s, g, "f", key);
	cm__sbuf b = { 0 };
	describe_feature(&b, t, (size_t)fi);
	if (b.oom)
		c->sh->oom = 1;
	cm_scene_title(c->sh->s, g, b.p);
	free(b.p);
	return 1;
}

/* Marks along the tile's edge: the slots of m, a bar each. */
static void slot_bars(cm_scene *s, int x, int y, cm_slots m, cm_rgb c, const char *title)
{
	if (!m)
		return;
	for (int b = 0; b < 12; b++) {
		if (!(m & (1u << b)))
			continue;
		int side = b / 3, p = b % 3, bx, by, bw, bh;
		switch (side) {
		case 0: bx = 12 * p; by = 0; bw = 12; bh = 3; break;
		case 1: bx = S - 3; by = 12 * p; bw = 3; bh = 12; break;
		case 2: bx = S - 12 * (p + 1); by = S - 3; bw = 12; bh = 3; break;
		default: bx = 0; by = S - 12 * (p + 1); bw = 3; bh = 12; break;
		}
		cm_scene_title(s, cm_scene_rect(s, x + bx, y + by, bw, bh, &(cm_style){ .fill = cm_paint_rgb(c) }), title);
	}
}

/* The slots no feature covers and those two features cover. */
static void slot_problems(const cm_tile_type *t, cm_slots *uncovered, cm_slots *twice)
{
	cm_slots seen = 0;
	*twice = 0;
	for (size_t k = 0; k < t->n_features; k++) {
		*twice |= (cm_slots)(seen & t->features[k].slots);
		seen |= t->features[k].slots;
	}
	*uncovered = (cm_slots)(~seen & CM_SLOTS_ALL);
	*twice &= CM_SLOTS_ALL;
}

static cm_severity tile_worst(const sheet *sh, size_t si, size_t ti, cm__sbuf *ids)
{
	int worst = -1;
	size_t nd = sh->at ? cm_diags_count(sh->d) : 0;
	for (size_t i = 0; i < nd; i++) {
		if (sh->at[i].set != (int)si || sh->at[i].tile != (int)ti)
			continue;
		const cm_diag *g = cm_diags_get(sh->d, i);
		if ((int)g->severity > worst)
			worst = (int)g->severity;
		const char *r = g->rule ? g->rule : cm_severity_name(g->severity);
		if (!ids->p || !strstr(ids->p, r))
			cm__sb_add(ids, "%s%s", ids->n ? " " : "", r);
	}
	return (cm_severity)worst;
}

static void counts_line(char *buf, size_t n, const cm_tile_type *t)
{
	snprintf(buf, n, "C1 %d \xc2\xb7 C2 %d \xc2\xb7 C3 %d%s%s", t->count[CM_EDITION_C1], t->count[CM_EDITION_C2],
	         t->count[CM_EDITION_C3], t->start ? " \xc2\xb7 start" : "",
	         cm_tileset_is_abbey_tile(t) ? " \xc2\xb7 dealt" : "");
}

/* A fitted label: one or two lines, the full text as a title when cut. */
static void label(sheet *sh, int cx, int y, int width, const char *text, int max_font, int min_font, cm_rgb c)
{
	cm__label l;
	if (!text || !*text)
		return;
	if (cm__label_fit(text, width, 12, max_font, min_font, &l)) {
		sh->oom = 1;
		return;
	}
	cm_style st = text_st(l.font, 0, CM_ANCHOR_MIDDLE, c);
	cm_node n = cm_scene_text(sh->s, cx, y, l.line[0], &st);
	if (l.lines > 1)
		cm_scene_text_line2(sh->s, n, l.font + 1, l.line[1]);
	if (l.abbreviated)
		cm_scene_title(sh->s, n, text);
	cm__label_clear(&l);
}

static void card(sheet *sh, size_t si, size_t ti, int x, int y)
{
	cm_scene *s = sh->s;
	const cm_tile_type *t = &sh->sets[si]->tiles[ti];
	cm__sbuf ids = { 0 };
	cm_severity worst = sh->d ? tile_worst(sh, si, ti, &ids) : (cm_severity)-1;
	char key[64];
	snprintf(key, sizeof key, "%zu,%zu", si, ti);
	cm_node g = cm_scene_group(s, NULL);
	cm_scene_class(s, g, (int)worst >= 0 ? "card diag" : "card");
	cm_scene_data(s, g, "t", key);
	snprintf(key, sizeof key, "%d,%d", x + TILE_X, y + TILE_Y);
	cm_scene_data(s, g, "xy", key);
	cm_style frame = { .fill = CM_PAINT_RGB(255, 255, 255), .stroke = CM_PAINT_RGB(200, 200, 192),
		           .stroke_width = 60 };
	if ((int)worst >= 0) {
		frame.stroke = cm_paint_rgb(cm_palette_severity(worst));
		frame.stroke_width = 150;
	}
	cm_scene_rect(s, x, y, CARD_W, CARD_H, &frame);
	tile_ctx c = { sh, si, ti };
	if (t->n_features <= CM_MAX_FEATURES) {
		cm_node tg = cm__scene_tile(s, x + TILE_X, y + TILE_Y, t, 0, feature_group, &c, &sh->prints);
		snprintf(key, sizeof key, "t-%zu-%zu", si, ti);
		cm_scene_id(s, tg, key);
	} else { /* CM0116: more than a tile can say */
		cm_scene_rect(s, x + TILE_X, y + TILE_Y, S, S, &(cm_style){ .fill = CM_PAINT_RGB(230, 230, 230) });
	}
	if (sh->d) {
		cm_slots unc, twice;
		slot_problems(t, &unc, &twice);
		slot_bars(s, x + TILE_X, y + TILE_Y, unc, cm_palette_severity(CM_SEV_ERROR), "covered by no feature (CM0101)");
		slot_bars(s, x + TILE_X, y + TILE_Y, twice, cm_palette_severity(CM_SEV_WARNING),
		          "covered by two features (CM0102)");
	}
	cm_style id_st = text_st(6, 1, CM_ANCHOR_MIDDLE, cm_palette_text());
	cm_scene_text(s, x + CARD_W / 2, y + 46, t->id ? t->id : "?", &id_st);
	label(sh, x + CARD_W / 2, y + 52, CARD_W - 4, t->name, 4, 3, cm_palette_text());
	char counts[96];
	counts_line(counts, sizeof counts, t);
	cm_style small = text_st(3, 0, CM_ANCHOR_MIDDLE, cm_palette_text());
	cm_scene_text(s, x + CARD_W / 2, y + 63, counts, &small);
	if (t->n_markers) {
		cm__sbuf m = { 0 };
		for (size_t k = 0; k < t->n_markers; k++)
			cm__sb_add(&m, "%s%s", k ? ", " : "marker ", t->markers[k]);
		if (m.oom)
			sh->oom = 1;
		label(sh, x + CARD_W / 2, y + 68, CARD_W - 4, m.p, 3, 3, cm_palette_marker());
		free(m.p);
	}
	if (ids.n) {
		cm_style st = text_st(3, 1, CM_ANCHOR_MIDDLE, cm_palette_severity(worst));
		cm_scene_text(s, x + CARD_W / 2, y + CARD_H - 2, ids.p, &st);
	}
	if (ids.oom)
		sh->oom = 1;
	free(ids.p);
	cm_scene_end(s);
}

static void set_head(sheet *sh, size_t si)
{
	cm_scene *s = sh->s;
	const cm_tileset *ts = sh->sets[si];
	int y = sh->set_y[si];
	char line[256];
	snprintf(line, sizeof line, "%s (%s)", ts->name ? ts->name : "?", ts->id ? ts->id : "?");
	cm_style h = text_st(10, 1, CM_ANCHOR_START, cm_palette_text());
	cm_scene_text(s, MARGIN, y + 12, line, &h);
	snprintf(line, sizeof line,
	         "%s \xc2\xb7 %zu tile type%s \xc2\xb7 drawn tiles C1 %d \xc2\xb7 C2 %d \xc2\xb7 C3 %d \xc2\xb7 in id order",
	         ts->base ? "base set" : "expansion", ts->n_tiles, ts->n_tiles == 1 ? "" : "s",
	         cm_tileset_total(ts, CM_EDITION_C1), cm_tileset_total(ts, CM_EDITION_C2),
	         cm_tileset_total(ts, CM_EDITION_C3));
	cm_style sub = text_st(5, 0, CM_ANCHOR_START, cm_palette_text());
	cm_scene_text(s, MARGIN, y + 22, line, &sub);
	/* the set's own problems, a line each */
	size_t nd = sh->at ? cm_diags_count(sh->d) : 0;
	int k = 0;
	for (size_t i = 0; i < nd; i++) {
		if (sh->at[i].set != (int)si || sh->at[i].tile >= 0)
			continue;
		const cm_diag *g = cm_diags_get(sh->d, i);
		char *msg = cm_asprintf("%s %s: %s", g->rule ? g->rule : "", cm_severity_name(g->severity),
		                        g->message ? g->message : "");
		if (!msg) {
			sh->oom = 1;
			continue;
		}
		cm_style st = text_st(5, 0, CM_ANCHOR_START, cm_palette_severity(g->severity));
		cm_node n = cm_scene_text(s, MARGIN, y + HEAD_H + LINE_H * k + 2, msg, &st);
		cm_scene_class(s, n, "setdiag");
		free(msg);
		k++;
	}
}

static int build(sheet *sh)
{
	int rc = place_diags(sh);
	if (!rc)
		rc = layout(sh);
	if (rc)
		return rc;
	if ((rc = cm_scene_new(&sh->s)) != 0)
		return rc;
	cm_scene *s = sh->s;
	cm_scene_set_size(s, sh->w, sh->h);
	cm__sbuf title = { 0 };
	for (size_t i = 0; i < sh->n_sets; i++)
		cm__sb_add(&title, "%s%s", i ? ", " : "tile sheet: ", sh->sets[i]->name ? sh->sets[i]->name : "?");
	cm_scene_set_title(s, title.p ? title.p : "tile sheet", "every tile type drawn from its features, by carcamap");
	free(title.p);
	cm_node bg = cm_scene_rect(s, 0, 0, sh->w, sh->h, &(cm_style){ .fill = CM_PAINT_RGB(250, 250, 246) });
	for (size_t i = 0; i < sh->n_sets; i++) {
		cm_node g = cm_scene_group(s, NULL);
		cm_scene_class(s, g, "set");
		set_head(sh, i);
		int top = sh->set_y[i] + HEAD_H + LINE_H * set_lines(sh, i);
		for (size_t k = 0; k < sh->sets[i]->n_tiles; k++) {
			int col = (int)(k % (size_t)sh->cols), row = (int)(k / (size_t)sh->cols);
			card(sh, i, sh->order[i][k], MARGIN + col * (CARD_W + GAP), top + row * (CARD_H + GAP));
		}
		cm_scene_end(s);
		cm_scene_break(s);
	}
	int kh = cm__scene_tile_key(s, MARGIN, sh->key_y, sh->w - 2 * MARGIN, sh->prints, CM__TILE_KEY_SHEET);
	if (kh) { /* the page grows by the key, its background with it */
		sh->h = sh->key_y + kh + MARGIN;
		cm_scene_set_size(s, sh->w, sh->h);
		if (bg != CM_NODE_NONE)
			s->n[bg].d = sh->h;
	}
	return sh->oom ? CM_ENOMEM : cm_scene_error(s);
}

static void sheet_clear(sheet *sh)
{
	for (size_t i = 0; sh->order && i < sh->n_sets; i++)
		free(sh->order[i]);
	free(sh->order);
	free(sh->set_y);
	free(sh->at);
	cm_scene_free(sh->s);
}

/* ---- HTML ---- */

static const char css[] =
	"body{margin:0;font-family:sans-serif;display:flex;align-items:flex-start;color:#1a1a1a}\n"
	"#view{flex:1 1 auto;overflow:auto;height:100vh}\n"
	"#view svg{display:block}\n"
	"aside{flex:0 0 340px;height:100vh;overflow:auto;box-sizing:border-box;padding:8px 12px;"
	"border-left:1px solid #bbb;font-size:13px;background:#fcfcfa}\n"
	"aside h1{font-size:18px;margin:4px 0}aside h2{font-size:14px;margin:12px 0 4px}\n"
	"#info,#tile{white-space:pre-wrap;background:#f0f0ea;padding:6px;border-radius:4px;min-height:3em}\n"
	"#rot{display:flex;gap:6px;margin-top:6px}#rot figure{margin:0;text-align:center;font-size:11px}\n"
	"#rot svg{width:72px;height:72px;border:1px solid #bbb;background:#fff}\n"
	".card{cursor:pointer}.card.sel>rect:first-child{stroke:#0070a8;stroke-width:2}\n"
	".f.hi>*{stroke:#000;stroke-width:1.5}\n"
	"#diags{padding-left:1.6em}#diags li{cursor:pointer;margin:3px 0}\n"
	".sev-error{color:#e00000}.sev-warning{color:#b86000}.sev-note{color:#0070a8}\n";

/* The page's script: the feature under the pointer outlined and described,
 * a tile selected (click, or a problem in the list) shown turned 0, 90,
 * 180 and 270 degrees (the drawing of its group, rotated). */
static const char script[] =
	"(function(){\n"
	"'use strict';\n"
	"var D=JSON.parse(document.getElementById('cm-data').textContent);\n"
	"var svg=document.getElementById('cm-sheet'),info=document.getElementById('info');\n"
	"var tile=document.getElementById('tile'),rot=document.getElementById('rot');\n"
	"var NS='http://www.w3.org/2000/svg',lit=[];\n"
	"function tileOf(k){var p=k.split(',');return D.sets[+p[0]].tiles[+p[1]];}\n"
	"function unlight(){lit.forEach(function(e){e.classList.remove('hi');});lit=[];}\n"
	"function feature(k){var p=k.split(','),t=D.sets[+p[0]].tiles[+p[1]],f=t.features[+p[2]];\n"
	" var s='tile '+t.id+', feature '+f.id+'\\nkind: '+f.kind+'\\nslots: '+(f.slots||'none');\n"
	" if(f.arms)s+='\\ncoats of arms: '+f.arms;if(f.cathedral)s+='\\ncathedral';if(f.inn)s+='\\ninn';\n"
	" if(f.good)s+='\\ngood: '+f.good;if(f.touches.length)s+='\\ntouches: '+f.touches.join(' ');\n"
	" if(f.contacts.length)s+='\\ncontacts: '+f.contacts.join(' ');return s;}\n"
	"svg.addEventListener('mousemove',function(ev){\n"
	" var f=ev.target.closest?ev.target.closest('.f'):null;unlight();\n"
	" if(!f){info.textContent='Move the pointer over a feature.';return;}\n"
	" lit=[f];f.classList.add('hi');info.textContent=feature(f.getAttribute('data-f'));});\n"
	"svg.addEventListener('mouseleave',unlight);\n"
	"function select(card){\n"
	" Array.prototype.forEach.call(svg.querySelectorAll('.card.sel'),function(e){e.classList.remove('sel');});\n"
	" card.classList.add('sel');var k=card.getAttribute('data-t'),t=tileOf(k),xy=card.getAttribute('data-xy').split(',');\n"
	" var x=+xy[0],y=+xy[1],id='t-'+k.replace(',','-');\n"
	" var s=t.id+(t.name?' \\u2014 '+t.name:'')+'\\ncopies: C1 '+t.count.C1+', C2 '+t.count.C2+', C3 '+t.count.C3;\n"
	" if(t.start)s+='\\nthe start tile';if(t.markers.length)s+='\\nmarkers: '+t.markers.join(', ');\n"
	" if(t.diags.length)s+='\\nproblems:\\n'+t.diags.join('\\n');tile.textContent=s;\n"
	" while(rot.firstChild)rot.removeChild(rot.firstChild);\n"
	" if(!document.getElementById(id))return;\n"
	" for(var r=0;r<4;r++){var fig=document.createElement('figure'),v=document.createElementNS(NS,'svg');\n"
	"  v.setAttribute('viewBox',x+' '+y+' 36 36');v.setAttribute('class','turn');\n"
	"  var g=document.createElementNS(NS,'g');g.setAttribute('transform','rotate('+(90*r)+' '+(x+18)+' '+(y+18)+')');\n"
	"  var u=document.createElementNS(NS,'use');u.setAttribute('href','#'+id);g.appendChild(u);v.appendChild(g);\n"
	"  fig.appendChild(v);var c=document.createElement('figcaption');c.textContent=(90*r)+'\\u00b0';\n"
	"  fig.appendChild(c);rot.appendChild(fig);}\n"
	" if(card.scrollIntoView)card.scrollIntoView({block:'nearest',inline:'nearest'});}\n"
	"svg.addEventListener('click',function(ev){var c=ev.target.closest?ev.target.closest('.card'):null;"
	"if(c)select(c);});\n"
	"Array.prototype.forEach.call(document.querySelectorAll('#diags li[data-t]'),function(li){\n"
	" li.addEventListener('click',function(){var c=svg.querySelector('.card[data-t=\"'+li.getAttribute('data-t')+'\"]');"
	"if(c)select(c);});});\n"
	"window.carcamap={select:function(k){var c=svg.querySelector('.card[data-t=\"'+k+'\"]');if(c)select(c);},"
	"feature:feature};\n"
	"})();\n";

static void js_key_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "\"%s\":", key);
	cm__put_js(f, v);
}

static void data_feature(FILE *f, const cm_tile_type *t, size_t fi)
{
	const cm_feature *ft = &t->features[fi];
	char slots[64];
	cm_slots_format(ft->slots & CM_SLOTS_ALL, slots, sizeof slots);
	fputc('{', f);
	js_key_str(f, "id", ft->id);
	fputc(',', f);
	js_key_str(f, "kind", cm_feature_kind_name(ft->kind));
	fputc(',', f);
	js_key_str(f, "slots", slots);
	fprintf(f, ",\"arms\":%d,\"cathedral\":%s,\"inn\":%s,", ft->arms, ft->cathedral ? "true" : "false",
	        ft->inn ? "true" : "false");
	js_key_str(f, "good", ft->good != CM_GOOD_NONE ? cm_good_name(ft->good) : NULL);
	fputs(",\"touches\":[", f);
	for (size_t k = 0, first = 1; k < t->n_features && k < CM_MAX_FEATURES; k++)
		if (ft->touches & (1u << k)) {
			fputs(first ? "" : ",", f);
			cm__put_js(f, t->features[k].id);
			first = 0;
		}
	fputs("],\"contacts\":[", f);
	for (size_t c = 0, first = 1; fi < CM_MAX_FEATURES && c < t->n_contacts; c++) {
		if (!(t->contacts[c] & (1u << fi)))
			continue;
		for (size_t k = 0; k < t->n_features && k < CM_MAX_FEATURES; k++)
			if (k != fi && (t->contacts[c] & (1u << k))) {
				fputs(first ? "" : ",", f);
				cm__put_js(f, t->features[k].id);
				first = 0;
			}
	}
	fputs("]}", f);
}

static void data(const sheet *sh, FILE *f)
{
	fputs("{\"sets\":[", f);
	size_t nd = sh->at ? cm_diags_count(sh->d) : 0;
	for (size_t si = 0; si < sh->n_sets; si++) {
		const cm_tileset *ts = sh->sets[si];
		fputs(si ? ",\n{" : "\n{", f);
		js_key_str(f, "id", ts->id);
		fputc(',', f);
		js_key_str(f, "name", ts->name);
		fputs(",\"tiles\":[", f);
		for (size_t ti = 0; ti < ts->n_tiles; ti++) {
			const cm_tile_type *t = &ts->tiles[ti];
			fputs(ti ? ",\n{" : "\n{", f);
			js_key_str(f, "id", t->id);
			fputc(',', f);
			js_key_str(f, "name", t->name);
			fprintf(f, ",\"count\":{\"C1\":%d,\"C2\":%d,\"C3\":%d},\"start\":%s,\"markers\":[", t->count[0],
			        t->count[1], t->count[2], t->start ? "true" : "false");
			for (size_t k = 0; k < t->n_markers; k++) {
				fputs(k ? "," : "", f);
				cm__put_js(f, t->markers[k]);
			}
			fputs("],\"features\":[", f);
			for (size_t k = 0; k < t->n_features && k < CM_MAX_FEATURES; k++) {
				fputs(k ? "," : "", f);
				data_feature(f, t, k);
			}
			fputs("],\"diags\":[", f);
			for (size_t i = 0, first = 1; i < nd; i++) {
				if (sh->at[i].set != (int)si || sh->at[i].tile != (int)ti)
					continue;
				const cm_diag *g = cm_diags_get(sh->d, i);
				char *m = cm_asprintf("%s %s", g->rule ? g->rule : cm_severity_name(g->severity),
				                      g->message ? g->message : "");
				fputs(first ? "" : ",", f);
				cm__put_js(f, m ? m : "?");
				free(m);
				first = 0;
			}
			fputs("]}", f);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

static void diag_list(const sheet *sh, FILE *f)
{
	size_t nd = sh->d ? cm_diags_count(sh->d) : 0;
	fputs("<h2>Problems</h2>\n", f);
	if (!sh->d) {
		fputs("<p>Not checked: render with --diagnostics to list and draw them.</p>\n", f);
		return;
	}
	if (!nd) {
		fputs("<p>No problems found.</p>\n", f);
		return;
	}
	fputs("<ol id=\"diags\">\n", f);
	for (size_t i = 0; i < nd; i++) {
		const cm_diag *g = cm_diags_get(sh->d, i);
		const char *sev = cm_severity_name(g->severity);
		fputs("<li", f);
		if (sh->at[i].set >= 0 && sh->at[i].tile >= 0)
			fprintf(f, " data-t=\"%d,%d\"", sh->at[i].set, sh->at[i].tile);
		fprintf(f, "><span class=\"sev-%s\">%s</span> ", sev, sev);
		if (g->rule) {
			fputs("<code>", f);
			cm__put_xml(f, g->rule);
			fputs("</code> ", f);
		}
		if (sh->at[i].set >= 0 && sh->at[i].tile >= 0) {
			fputs("tile ", f);
			cm__put_xml(f, sh->sets[sh->at[i].set]->tiles[sh->at[i].tile].id);
			fputs(": ", f);
		} else if (g->line) {
			fprintf(f, "line %u: ", g->line);
		}
		cm__put_xml(f, g->message);
		const cm_check_info *ci = g->rule ? cm_catalog_find(g->rule) : NULL;
		if (ci) {
			fputs("<br><small>Fix: ", f);
			cm__put_xml(f, ci->fix);
			fputs("</small>", f);
		}
		fputs("</li>\n", f);
	}
	fputs("</ol>\n", f);
}

/* Pixels a tile side asks for: o->scale, or 108 below 2. */
static int sheet_scale(const cm_render_opts *o)
{
	return o->scale >= 2 ? o->scale : 108;
}

static int write_html(FILE *f, void *arg)
{
	const sheet *sh = arg;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"carcamap\">\n<title>",
	      f);
	for (size_t i = 0; i < sh->n_sets; i++) {
		fputs(i ? ", " : "", f);
		cm__put_xml(f, sh->sets[i]->name);
	}
	fputs(" \xe2\x80\x94 tile sheet \xe2\x80\x94 carcamap</title>\n<style>\n", f);
	fputs(css, f);
	fputs("</style>\n</head>\n<body>\n<div id=\"view\">\n", f);
	cm_scene_opts so;
	cm_scene_opts_init(&so);
	so.svg_w = (int)((long)sh->w * sheet_scale(sh->o) / S);
	so.svg_h = (int)((long)sh->h * sheet_scale(sh->o) / S);
	cm__scene_svg(sh->s, f, &so, 0);
	fputs("</div>\n<aside>\n<h1>Tile sheet</h1>\n<h2>Feature</h2>\n"
	      "<div id=\"info\">Move the pointer over a feature.</div>\n"
	      "<h2>Tile</h2>\n<div id=\"tile\">Select a tile to see it turned.</div>\n<div id=\"rot\"></div>\n",
	      f);
	diag_list(sh, f);
	fputs("</aside>\n<script type=\"application/json\" id=\"cm-data\">", f);
	data(sh, f);
	fputs("</script>\n<script>\n", f);
	fputs(script, f);
	fputs("</script>\n</body>\n</html>\n", f);
	return ferror(f) ? CM_EIO : 0;
}

int cm_render_tile_sheet(const cm_tileset *const *sets, size_t n_sets, const cm_render_opts *o, const char *out,
                         cm_diags *d)
{
	cm_render_opts dflt;
	if (!o) {
		cm_render_opts_init(&dflt);
		dflt.format = CM_RENDER_SVG;
		o = &dflt;
	}
	if (!n_sets || (o->format != CM_RENDER_SVG && o->format != CM_RENDER_HTML && o->format != CM_RENDER_PNG))
		return CM_EINVAL;
	sheet sh = { 0 };
	sh.sets = sets;
	sh.n_sets = n_sets;
	sh.o = o;
	sh.d = o->diags;
	int rc = build(&sh);
	if (!rc) {
		/* the root's id, for the page's script */
		cm_scene_id(sh.s, CM_NODE_ROOT, "cm-sheet");
		if (o->format == CM_RENDER_HTML) {
			rc = cm_write_to(out, write_html, &sh, d);
		} else {
			cm_scene_opts so;
			cm_scene_opts_init(&so);
			if (o->format == CM_RENDER_PNG) {
				so.format = CM_SCENE_PNG;
				so.px_per_cell = sheet_scale(o);
			}
			so.svg_w = (int)((long)sh.w * sheet_scale(o) / S);
			so.svg_h = (int)((long)sh.h * sheet_scale(o) / S);
			rc = cm_scene_write(sh.s, &so, out, d);
		}
	}
	sheet_clear(&sh);
	return rc;
}
