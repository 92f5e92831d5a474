/* SPDX-License-Identifier: MIT */
/* render_html.c: the map as one self-contained HTML page (render_int.h):
 * the SVG picture inline, a panel that shows the square under the pointer
 * (coordinates, kind, name, markers, edge prints, the deck's tile types
 * that fit) and the game's score items per feature, and every diagnostic
 * with the catalogue's explanation; selecting one highlights its square.
 * Inline CSS and script only: nothing is fetched, it works from file://. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/palette.h"
#include "export/render_int.h"
#include "export/scene_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

static const char css[] =
	"body{margin:0;font-family:sans-serif;display:flex;align-items:flex-start;color:#1a1a1a}\n"
	"#view{flex:1 1 auto;overflow:auto;height:100vh}\n"
	"#view svg{display:block}\n"
	"aside{flex:0 0 360px;height:100vh;overflow:auto;box-sizing:border-box;padding:8px 12px;"
	"border-left:1px solid #bbb;font-size:13px;background:#fcfcfa}\n"
	"aside h1{font-size:18px;margin:4px 0}aside h2{font-size:14px;margin:12px 0 4px}\n"
	"#info{min-height:8em;white-space:pre-wrap;background:#f0f0ea;padding:6px;border-radius:4px}\n"
	"#diags{padding-left:1.6em}#diags li{cursor:pointer;margin:3px 0;padding:2px 4px;border-radius:3px}\n"
	"#diags li:hover{background:#eee}#diags li.sel{background:#ffe680}\n"
	".explain{color:#555;font-size:12px}.sev{font-weight:bold}\n"
	".sev-error{color:#e00000}.sev-warning{color:#b86000}.sev-note{color:#0070a8}\n"
	".f.hi>*{stroke:#000;stroke-width:1.5}.diag.sel rect{stroke-width:4}\n";

/* The page's script: reads #cm-data, follows the pointer, selects
 * diagnostics. No global names but one. */
static const char script[] =
	"(function(){\n"
	"'use strict';\n"
	"var D=JSON.parse(document.getElementById('cm-data').textContent);\n"
	"var svg=document.getElementById('cm-map'),info=document.getElementById('info');\n"
	"var hover=document.getElementById('cm-hover'),hl=document.getElementById('cm-hl');\n"
	"var lit=[];\n"
	"function sq(x,y){return y*D.cols+x;}\n"
	"function put(r,x,y){r.setAttribute('x',D.ox+x*D.cell);r.setAttribute('y',D.oy+y*D.cell);"
	"r.setAttribute('visibility','visible');}\n"
	"function describe(x,y){var i=sq(x,y),k=D.kinds.charAt(i),t=[];\n"
	" t.push('('+x+','+y+') '+(D.kindNames[k]||k));\n"
	" if(D.names[i])t.push('name: '+D.names[i]);\n"
	" if(D.bigcity[i])t.push('big city: '+D.bigcity[i]);\n"
	" if(D.island[i])t.push('island: '+D.island[i]);\n"
	" if(D.arms[i])t.push('coats of arms: '+D.arms[i]);\n"
	" if(D.markers[i])t.push('markers: '+D.markers[i].join(', '));\n"
	" if(D.prints[i])t.push('edge prints: '+D.prints[i].join('; '));\n"
	" if(D.fits&&D.fits[i]>=0)t.push('tile types of the deck that fit: '+D.fits[i]);\n"
	" if(D.tiles&&D.tiles[i])t.push('tile: '+D.tiles[i]);\n"
	" if(D.sqdiags[i])t.push('diagnostics: '+D.sqdiags[i].join(', '));\n"
	" return t.join('\\n');}\n"
	"function unlight(){lit.forEach(function(e){e.classList.remove('hi');});lit=[];}\n"
	"svg.addEventListener('mousemove',function(ev){\n"
	" var p=svg.createSVGPoint();p.x=ev.clientX;p.y=ev.clientY;\n"
	" var m=svg.getScreenCTM();if(!m)return;p=p.matrixTransform(m.inverse());\n"
	" var x=Math.floor((p.x-D.ox)/D.cell),y=Math.floor((p.y-D.oy)/D.cell);\n"
	" if(x<0||y<0||x>=D.cols||y>=D.rows){hover.setAttribute('visibility','hidden');return;}\n"
	" put(hover,x,y);var text=describe(x,y);\n"
	" unlight();var f=ev.target.closest?ev.target.closest('.f'):null;\n"
	" if(f){var key=f.getAttribute('data-f');\n"
	"  lit=Array.prototype.slice.call(svg.querySelectorAll('.f[data-f=\"'+key+'\"]'));\n"
	"  lit.forEach(function(e){e.classList.add('hi');});\n"
	"  var tt=f.querySelector('title');if(tt)text+='\\n\\nfeature '+tt.textContent;}\n"
	" info.textContent=text;});\n"
	"svg.addEventListener('mouseleave',function(){hover.setAttribute('visibility','hidden');unlight();});\n"
	"function select(li){\n"
	" Array.prototype.forEach.call(document.querySelectorAll('#diags li.sel,.diag.sel'),"
	"function(e){e.classList.remove('sel');});\n"
	" li.classList.add('sel');var s=li.getAttribute('data-sq');\n"
	" if(!s){hl.setAttribute('visibility','hidden');return;}\n"
	" var xy=s.split(','),x=+xy[0],y=+xy[1];put(hl,x,y);\n"
	" var fr=svg.querySelector('.diag[data-sq=\"'+s+'\"]');if(fr)fr.classList.add('sel');\n"
	" info.textContent=describe(x,y);\n"
	" if(hl.scrollIntoView)hl.scrollIntoView({block:'nearest',inline:'nearest'});}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('#diags li'),function(li){\n"
	" li.addEventListener('click',function(){select(li);});\n"
	" li.addEventListener('keydown',function(ev){if(ev.key==='Enter'||ev.key===' '){ev.preventDefault();"
	"select(li);}});});\n"
	"window.carcamap={select:function(i){var li=document.querySelector('#diags li[data-i=\"'+i+'\"]');"
	"if(li)select(li);},describe:describe};\n"
	"})();\n";

typedef struct {
	FILE *f;
	const cm_map *m;
	const cm_render_opts *o;
	int first;
} page;

/* Opens the next member of a sparse object keyed by square index. */
static void key_open(page *p, int i)
{
	fprintf(p->f, "%s\"%d\":", p->first ? "" : ",", i);
	p->first = 0;
}

/* "prints": per square its edge prints in words. */
static void data_prints(page *pg)
{
	FILE *f = pg->f;
	const cm_map *m = pg->m;
	int n = m->cols * m->rows;
	fputs("},\n\"prints\":{", f);
	pg->first = 1;
	for (int i = 0; i < n; i++) {
		const cm_square *s = &m->squares[i];
		int any = 0;
		for (int e = 0; e < 4; e++) {
			const cm_edge_print *ep = &s->print[e];
			if (ep->kind == CM_PRINT_NONE)
				continue;
			if (!any) {
				key_open(pg, i);
				fputc('[', f);
			}
			const char *label = cm_map_print_label(m, i % m->cols, i / m->cols, (cm_side)e);
			char *t = cm_asprintf("%s %s%s%.0d%s%s%s", cm_side_name((cm_side)e), cm_print_kind_name(ep->kind),
			                      ep->arms ? ", coats of arms " : "", ep->arms, label ? ", \xe2\x80\x9c" : "",
			                      label ? label : "", label ? "\xe2\x80\x9d" : "");
			fputs(any ? "," : "", f);
			cm__put_js(f, t ? t : "?");
			free(t);
			any = 1;
		}
		if (any)
			fputc(']', f);
	}
}

/* "tiles": the game's tile per square, or null. */
static void data_tiles(page *pg)
{
	FILE *f = pg->f;
	const cm_map *m = pg->m;
	int n = m->cols * m->rows;
	fputs(",\n\"tiles\":", f);
	const cm_board *b = pg->o->game && pg->o->game->board && cm_board_map(pg->o->game->board) == m
	                            ? pg->o->game->board
	                            : NULL;
	if (b) {
		pg->first = 1;
		fputc('{', f);
		const cm_deck *dk = cm_board_deck(b);
		for (int i = 0; i < n; i++) {
			int t, r;
			if (cm_board_tile_at(b, i % m->cols, i / m->cols, &t, &r) != 0)
				continue;
			const cm_tile_type *tt = cm_deck_type(dk, (size_t)t);
			char *s = cm_asprintf("%s turned %d\xc2\xb0", tt->id ? tt->id : "?", 90 * r);
			key_open(pg, i);
			cm__put_js(f, s ? s : "?");
			free(s);
		}
		fputc('}', f);
	} else {
		fputs("null", f);
	}
}

/* "sqdiags": per square the ids of its diagnostics. */
static void data_sqdiags(page *pg)
{
	FILE *f = pg->f;
	const cm_map *m = pg->m;
	int n = m->cols * m->rows;
	fputs(",\n\"sqdiags\":{", f);
	/* per square the ids of its diagnostics: squares in order of first mention */
	const cm_diags *d = pg->o->diags;
	size_t nd = d ? cm_diags_count(d) : 0;
	int *first = nd ? malloc((size_t)n * sizeof *first) : NULL;
	int *next = nd ? malloc(nd * sizeof *next) : NULL;
	if (first && next) {
		for (int i = 0; i < n; i++)
			first[i] = -1;
		for (size_t i = nd; i-- > 0;) {
			const cm_diag *g2 = cm_diags_get(d, i);
			next[i] = -1;
			if (!cm__map_at(m, g2->x, g2->y))
				continue;
			int s = g2->y * m->cols + g2->x;
			next[i] = first[s];
			first[s] = (int)i;
		}
		pg->first = 1;
		for (int s = 0; s < n; s++) {
			if (first[s] < 0)
				continue;
			key_open(pg, s);
			fputc('[', f);
			for (int i = first[s]; i >= 0; i = next[i]) {
				const cm_diag *g2 = cm_diags_get(d, (size_t)i);
				fputs(i == first[s] ? "" : ",", f);
				cm__put_js(f, g2->rule ? g2->rule : cm_severity_name(g2->severity));
			}
			fputc(']', f);
		}
	}
	free(first);
	free(next);
	fputs("}", f);
}

static void data(page *pg)
{
	FILE *f = pg->f;
	const cm_map *m = pg->m;
	int n = m->cols * m->rows;
	fputs("{\"cols\":", f);
	fprintf(f, "%d,\"rows\":%d,\"cell\":%d,", m->cols, m->rows, CM__CELL);
	fputs("\"kinds\":\"", f);
	for (int i = 0; i < n; i++)
		fputc(cm_square_kind_char(m->squares[i].kind), f);
	fputs("\",\"kindNames\":{", f);
	for (int k = 0; k < CM_SQ_KIND_COUNT; k++) {
		char c[2] = { cm_square_kind_char((cm_square_kind)k), 0 };
		fprintf(f, "%s", k ? "," : "");
		cm__put_js(f, c);
		fputc(':', f);
		cm__put_js(f, cm_square_kind_name((cm_square_kind)k));
	}
	fputs("},\n\"names\":{", f);
	pg->first = 1;
	for (int i = 0; i < n; i++) {
		const char *name = cm_map_square_name(m, i % m->cols, i / m->cols);
		if (name) {
			key_open(pg, i);
			cm__put_js(f, name);
		}
	}
	fputs("},\n\"bigcity\":{", f);
	pg->first = 1;
	for (int i = 0; i < n; i++) {
		int b = m->squares[i].bigcity;
		if (b >= 0 && (size_t)b < m->n_bigcities && m->bigcities[b].name) {
			key_open(pg, i);
			cm__put_js(f, m->bigcities[b].name);
		}
	}
	fputs("},\n\"island\":{", f);
	pg->first = 1;
	for (int i = 0; i < n; i++) {
		int b = m->squares[i].island;
		if (b >= 0 && (size_t)b < m->n_islands) {
			const cm_island *is = &m->islands[b];
			key_open(pg, i);
			cm__put_js(f, is->title ? is->title : is->name);
		}
	}
	fputs("},\n\"arms\":{", f);
	pg->first = 1;
	for (int i = 0; i < n; i++)
		if (m->squares[i].arms) {
			key_open(pg, i);
			fprintf(f, "%d", m->squares[i].arms);
		}
	fputs("},\n\"markers\":{", f);
	pg->first = 1;
	for (int i = 0; i < n; i++) {
		size_t n_markers;
		const char *const *markers = cm_map_square_markers(m, i % m->cols, i / m->cols, &n_markers);
		if (!n_markers)
			continue;
		key_open(pg, i);
		fputc('[', f);
		for (size_t k = 0; k < n_markers; k++) {
			fputs(k ? "," : "", f);
			cm__put_js(f, markers[k] ? markers[k] : "");
		}
		fputc(']', f);
	}
	data_prints(pg);
	fputs("},\n\"fits\":", f);
	if (pg->o->fits) {
		fputc('[', f);
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%d", i ? "," : "", pg->o->fits[i]);
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	data_tiles(pg);
	data_sqdiags(pg);
}

static void diag_panel(page *pg)
{
	FILE *f = pg->f;
	const cm_diags *d = pg->o->diags;
	size_t nd = d ? cm_diags_count(d) : 0;
	size_t ne = d ? cm_diags_errors(d) : 0, nw = d ? cm_diags_count_at_least(d, CM_SEV_WARNING) - ne : 0;
	fprintf(f, "<h2>Diagnostics (%zu: %zu error%s, %zu warning%s)</h2>\n", nd, ne, ne == 1 ? "" : "s", nw,
	        nw == 1 ? "" : "s");
	if (!d) {
		fputs("<p>Not checked: render with <code>--diagnostics</code> to list the checks' findings here.</p>\n", f);
		return;
	}
	if (!nd) {
		fputs("<p>No problems found.</p>\n", f);
		return;
	}
	fputs("<ol id=\"diags\">\n", f);
	for (size_t i = 0; i < nd; i++) {
		const cm_diag *g = cm_diags_get(d, i);
		const char *sev = cm_severity_name(g->severity);
		fprintf(f, "<li data-i=\"%zu\" tabindex=\"0\"", i);
		if (cm__map_at(pg->m, g->x, g->y))
			fprintf(f, " data-sq=\"%d,%d\"", g->x, g->y);
		fprintf(f, "><span class=\"sev sev-%s\">%s</span> ", sev, sev);
		if (g->rule) {
			fputs("<code>", f);
			cm__put_xml(f, g->rule);
			fputs("</code> ", f);
		}
		if (cm__map_at(pg->m, g->x, g->y))
			fprintf(f, "<span class=\"at\">(%d,%d)</span> ", g->x, g->y);
		else if (g->line)
			fprintf(f, "<span class=\"at\">line %u</span> ", g->line);
		else if (g->where) {
			fputs("<span class=\"at\">", f);
			cm__put_xml(f, g->where);
			fputs("</span> ", f);
		}
		fputs("<span class=\"msg\">", f);
		cm__put_xml(f, g->message);
		fputs("</span>", f);
		const cm_check_info *ci = g->rule ? cm_catalog_find(g->rule) : NULL;
		if (ci) {
			fputs("<div class=\"explain\">", f);
			cm__put_xml(f, ci->title);
			if (ci->rule && ci->rule[0]) {
				fputs(" (rule ", f);
				cm__put_xml(f, ci->rule);
				fputs(")", f);
			}
			fputs(". Fix: ", f);
			cm__put_xml(f, ci->fix);
			fputs("</div>", f);
		}
		fputs("</li>\n", f);
	}
	fputs("</ol>\n", f);
}

typedef struct {
	const cm_map *m;
	const cm_render_opts *o;
} html_job;

static int write_html(FILE *f, void *arg)
{
	const html_job *j = arg;
	const cm_map *m = j->m;
	page pg = { f, m, j->o, 1 };
	const char *name = m->name ? m->name : m->id ? m->id : "map";
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"carcamap\">\n<title>",
	      f);
	cm__put_xml(f, name);
	fputs(" \xe2\x80\x94 carcamap</title>\n<style>\n", f);
	fputs(css, f);
	fputs("</style>\n</head>\n<body>\n<div id=\"view\">\n", f);
	cm__svg_geom g;
	cm_scene *s;
	int rc = cm__map_scene(m, j->o, CM__SCENE_HTML, &g, &s);
	if (rc)
		return rc;
	cm_scene_opts so;
	cm_scene_opts_init(&so);
	so.svg_w = (int)g.disp_w;
	so.svg_h = (int)g.disp_h;
	cm__scene_svg(s, f, &so, 0);
	cm_scene_free(s);
	fputs("</div>\n<aside>\n<h1>", f);
	cm__put_xml(f, name);
	fputs("</h1>\n<h2>Square</h2>\n<div id=\"info\">Move the pointer over the map.</div>\n", f);
	diag_panel(&pg);
	fputs("</aside>\n<script type=\"application/json\" id=\"cm-data\">", f);
	data(&pg);
	fprintf(f, ",\"ox\":%d,\"oy\":%d}</script>\n<script>\n", g.ox, g.oy);
	fputs(script, f);
	fputs("</script>\n</body>\n</html>\n", f);
	return ferror(f) ? CM_EIO : 0;
}

int cm__render_html(const cm_map *m, const cm_render_opts *o, const char *out, cm_diags *d)
{
	html_job j = { m, o };
	return cm_write_to(out, write_html, &j, d);
}
