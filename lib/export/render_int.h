/* SPDX-License-Identifier: MIT */
/* render_int.h: what the picture writers share (render.c dispatches to
 * render_svg.c and render_html.c): the scene of a map that every format
 * but the annotated PNG writes, and the text helpers (escaping for XML and script, width estimates and
 * label fitting) of render_text.c. */
#ifndef CM_RENDER_INT_H
#define CM_RENDER_INT_H

#include <stdio.h>
#include "carcamap/render.h"
#include "carcamap/scene.h"

int cm__render_svg(const cm_map *m, const cm_render_opts *o, const char *out, cm_diags *d);
int cm__render_html(const cm_map *m, const cm_render_opts *o, const char *out, cm_diags *d);

/* Geometry of the scene (user units): CM__CELL per square, the grid's
 * top-left corner at (ox, oy), the whole picture w x h; the SVG's size
 * asked for at o->scale. */
#define CM__CELL CM_SCENE_CELL
typedef struct {
	int ox, oy, w, h;
	int key_y;      /* where the key starts */
	long disp_w, disp_h;
} cm__svg_geom;

/* The scene of m (*out, the caller's to free) for an SVG file, an HTML
 * page (no diagnostics list: the page has its panel; the highlight the
 * page's script moves) or paper (PDF, picture PNG: no tooltips, so the
 * labels shortened on the map are listed in full below it). *g receives
 * the geometry. 0 or CM_ENOMEM. */
enum { CM__SCENE_SVG, CM__SCENE_HTML, CM__SCENE_PAPER };
int cm__map_scene(const cm_map *m, const cm_render_opts *o, int mode, cm__svg_geom *g, cm_scene **out);

/* Writes s as XML text or attribute content: & < > " ' escaped, control
 * characters as their visible Control Pictures (U+2400 block), bytes that
 * are not UTF-8 as U+FFFD. NULL writes nothing. */
void cm__put_xml(FILE *f, const char *s);
/* Writes s as a double-quoted JavaScript/JSON string safe inside a <script>
 * element: " \ and control characters escaped, < > & as \u003c…, U+2028/9
 * escaped, bytes that are not UTF-8 as \ufffd. NULL writes null. */
void cm__put_js(FILE *f, const char *s);

/* s as valid UTF-8 for a font (malloc'd; NULL when out of memory): the
 * code points cm__put_xml writes, unescaped. NULL s gives "". */
char *cm__utf8_clean(const char *s);

/* Estimated width of s in a generic sans-serif font of size font (units),
 * in hundredths of a unit: widths per character class, never less than
 * what common sans-serif fonts need. */
long cm__text_width(const char *s, int font);

/* A label fitted into a box: font size, one or two lines (split at a
 * space: never inside a word), and text shortened to what fits with an
 * ellipsis when nothing else does: then abbreviated is set and the full
 * text belongs in a <title>. */
typedef struct {
	int font;
	int lines;          /* 1 or 2 */
	char *line[2];      /* malloc'd */
	int abbreviated;
} cm__label;
/* Fits s into width x height (units) with font sizes from max_font down to
 * min_font. 0 or CM_ENOMEM. Release with cm__label_clear. */
int cm__label_fit(const char *s, int width, int height, int max_font, int min_font, cm__label *out);
void cm__label_clear(cm__label *l);

/* A growing string for titles built from parts: cm__sb_add appends
 * printf-style; on allocation failure oom is set and later adds do
 * nothing. Free p. */
typedef struct {
	char *p;
	size_t n, cap;
	int oom;
} cm__sbuf;
void cm__sb_add(cm__sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

#endif
