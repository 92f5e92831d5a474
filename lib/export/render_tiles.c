/* SPDX-License-Identifier: MIT */
/* render_tiles.c: tile sheets to print and play (carcamap/render.h,
 * cm_render_tileset): every tile of a set at true size, drawn from its
 * features by cm_scene_tile (each type once, copied), in a grid centred on each page with cut lines
 * carried into the margin, and optionally a page of backs after each page
 * of fronts, mirrored for long-edge duplex printing. One scene per page,
 * written by cairo (scene_cairo.c). */
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/palette.h"
#include "carcamap/render.h"
#include "export/render_int.h"
#include "export/scene_int.h"
#include "base/util_int.h"
#include "carcamap/version.h"

#define S CM_SCENE_CELL
#define MARGIN_UM 10000  /* unprinted edge of the page, at least */
#define MARK_UM 8000     /* cut lines go this far into the margin */

/* How the tiles lie on a page. */
typedef struct {
	const cm_tileset *ts;
	const cm_render_opts *o;
	int paper_w, paper_h;  /* µm, turned */
	int cols, rows;
	int total;             /* tiles in all */
	int pages;             /* pages of fronts */
	cm__tile_cache *cache; /* a set prints each type several times */
} sheet;

/* Micrometres as scene units (36 units a tile). */
static int units(const sheet *sh, long um)
{
	return (int)(um * S / sh->o->square_um);
}

/* The tile type of the n-th tile of the set in this edition. */
static const cm_tile_type *nth_tile(const sheet *sh, int n)
{
	for (size_t i = 0; i < sh->ts->n_tiles; i++) {
		int c = sh->ts->tiles[i].count[sh->o->edition];
		if (c > 0 && n < c)
			return &sh->ts->tiles[i];
		n -= c > 0 ? c : 0;
	}
	return NULL;
}

/* Thin lines along every column and row of the grid, past it into the margin. */
static void cut_lines(cm_scene *s, const sheet *sh)
{
	int ext = units(sh, MARK_UM), w;
	for (int c = 0; c <= sh->cols; c++)
		cm_scene_path_add(s, "M%d %dV%d", c * S, -ext, sh->rows * S + ext);
	for (int r = 0; r <= sh->rows; r++)
		cm_scene_path_add(s, "M%d %dH%d", -ext, r * S, sh->cols * S + ext);
	w = (int)(20000L * S / sh->o->square_um); /* 0.2 mm, in hundredths of a unit */
	cm_style st = { .fill = CM_PAINT_NONE, .stroke = CM_PAINT_RGB(0x80, 0x80, 0x80), .stroke_width = w > 1 ? w : 1 };
	cm_scene_class(s, cm_scene_path_end(s, &st), "cut");
}

/* The words above the grid: the set, the page, what is on it. */
static void page_words(cm_scene *s, const sheet *sh, int page, int backs, int first, int n)
{
	const cm_tile_type *a = nth_tile(sh, first), *b = nth_tile(sh, first + n - 1);
	int font = units(sh, 3000) > 1 ? units(sh, 3000) : 1;
	char *t = cm_asprintf("%s (%s), %s \xc2\xb7 page %d of %d \xc2\xb7 %s%d tiles, %s to %s%s",
	                      sh->ts->name ? sh->ts->name : sh->ts->id, sh->ts->id, cm_edition_name(sh->o->edition),
	                      page, sh->o->backs ? 2 * sh->pages : sh->pages, backs ? "backs of " : "", n,
	                      a && a->id ? a->id : "?", b && b->id ? b->id : "?",
	                      backs ? " (mirrored: print two-sided, flipped on the long edge)" : "");
	if (!t) {
		s->oom = 1;
		return;
	}
	cm_scene_text(s, 0, -units(sh, MARK_UM + 1500), t, &(cm_style){ .font_size = font });
	free(t);
}

/* One page of fronts (tiles first .. first + n - 1) or of their backs. */
static int sheet_page(const sheet *sh, int page, int backs, int first, int n, cm_scene **out)
{
	cm_scene *s;
	int rc = cm_scene_new(&s);
	if (rc)
		return rc;
	cm_scene_set_title(s, sh->ts->name ? sh->ts->name : sh->ts->id, NULL);
	for (int i = 0; i < n; i++) {
		int c = i % sh->cols, r = i / sh->cols;
		if (!backs) {
			cm__scene_tile_cached(s, sh->cache, c * S, r * S, nth_tile(sh, first + i), 0, NULL, NULL, NULL);
			continue;
		}
		/* the back of the tile at column c lies at the mirrored column */
		int x = (sh->cols - 1 - c) * S, y = r * S;
		cm_scene_rect(s, x, y, S, S, &(cm_style){ .fill = cm_paint_rgb(cm_palette_ferry()) });
		cm__label l;
		if (cm__label_fit(sh->ts->name ? sh->ts->name : sh->ts->id, S - 6, S - 8, 6, 3, &l)) {
			cm_scene_free(s);
			return CM_ENOMEM;
		}
		cm_node t = cm_scene_text(s, x + S / 2, y + S / 2 + (l.lines == 2 ? 0 : l.font / 2), l.line[0],
		                          &(cm_style){ .font_size = l.font, .anchor = CM_ANCHOR_MIDDLE,
		                                       .fill = CM_PAINT_RGB(255, 255, 255) });
		if (l.lines == 2)
			cm_scene_text_line2(s, t, l.font + 1, l.line[1]);
		cm__label_clear(&l);
	}
	cut_lines(s, sh);
	page_words(s, sh, page, backs, first, n);
	*out = s;
	return cm_scene_error(s);
}

/* Columns and rows that fit paper w x h. */
static void fit(const cm_render_opts *o, int w, int h, int *cols, int *rows)
{
	*cols = (w - 2 * MARGIN_UM) / o->square_um;
	*rows = (h - 2 * MARGIN_UM - 2 * MARK_UM) / o->square_um; /* room for the words above */
	*cols = *cols < 0 ? 0 : *cols;
	*rows = *rows < 0 ? 0 : *rows;
}

static int layout(sheet *sh, const char *out, cm_diags *d)
{
	const cm_render_opts *o = sh->o;
	int w = o->paper_w_um ? o->paper_w_um : 210000, h = o->paper_h_um ? o->paper_h_um : 297000;
	int c1, r1, c2, r2;
	fit(o, w, h, &c1, &r1);
	fit(o, h, w, &c2, &r2);
	int land = c2 * r2 > c1 * r1;
	sh->paper_w = land ? h : w;
	sh->paper_h = land ? w : h;
	sh->cols = land ? c2 : c1;
	sh->rows = land ? r2 : r1;
	for (size_t i = 0; i < sh->ts->n_tiles; i++)
		sh->total += sh->ts->tiles[i].count[o->edition] > 0 ? sh->ts->tiles[i].count[o->edition] : 0;
	if (sh->cols < 1 || sh->rows < 1) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL,
		             "a tile of %.1f mm does not fit the paper with its %d mm margins", o->square_um / 1000.0,
		             (MARGIN_UM + MARK_UM) / 1000);
		return CM_EINVAL;
	}
	if (sh->total == 0) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, sh->ts->file, 0, 0, NULL, "tile set %s has no tiles in edition %s",
		             sh->ts->id, cm_edition_name(o->edition));
		return CM_EINVAL;
	}
	int per = sh->cols * sh->rows;
	sh->pages = (sh->total + per - 1) / per;
	if ((o->backs ? 2L : 1L) * sh->pages > CM_POSTER_MAX_PAGES) {
		cm_diags_check(d, "CM0342", out, 0, 0, NULL,
		               "a tile sheet of %d pages is over the limit of %d pages: use a larger --paper or a smaller "
		               "--square-mm",
		               (o->backs ? 2 : 1) * sh->pages, CM_POSTER_MAX_PAGES);
		return CM_ELIMIT;
	}
	return 0;
}

int cm_render_tileset(const cm_tileset *ts, const cm_render_opts *o, const char *out, cm_diags *d)
{
	if (o->format != CM_RENDER_PDF || o->square_um < 5000 || o->square_um > 500000 || (unsigned)o->edition > 2) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL,
		             "a tile sheet is a pdf with tiles of 5 to 500 mm in edition C1, C2 or C3");
		return CM_EINVAL;
	}
	sheet sh = { .ts = ts, .o = o };
	int rc = layout(&sh, out, d);
	if (rc)
		return rc;
	size_t n = (size_t)sh.pages * (o->backs ? 2 : 1), made = 0;
	cm_scene **pages = calloc(n + 1, sizeof *pages);
	if (!pages || cm__tile_cache_new(&sh.cache)) {
		free(pages);
		return CM_ENOMEM;
	}
	int per = sh.cols * sh.rows;
	for (int p = 0; p < sh.pages && !rc; p++) {
		int first = p * per, k = sh.total - first < per ? sh.total - first : per;
		for (int b = 0; b <= (o->backs ? 1 : 0) && !rc; b++) {
			rc = sheet_page(&sh, (int)made + 1, b, first, k, &pages[made]);
			made++;
		}
	}
	if (!rc) {
		cm_scene_opts so;
		cm_scene_opts_init(&so);
		so.format = CM_SCENE_PDF;
		so.cell_um = o->square_um;
		so.paper_w_um = sh.paper_w;
		so.paper_h_um = sh.paper_h;
		so.epoch = o->epoch;
		so.creator = "carcamap " CM_VERSION_STRING;
		rc = cm__scene_pdf_pages(pages, n, (sh.paper_w - sh.cols * o->square_um) / 2,
		                         (sh.paper_h - sh.rows * o->square_um + 2 * MARK_UM) / 2, &so, out, d);
	}
	for (size_t i = 0; i < made; i++)
		cm_scene_free(pages[i]);
	free(pages);
	cm__tile_cache_free(sh.cache);
	return rc;
}
