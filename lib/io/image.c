/* SPDX-License-Identifier: MIT */
/* image.c: annotated map images (carcamap/image.h): the legend reader (the
 * legend model is model/legend.c), and the PNG import that classifies the
 * cells of the legend's grid into a map builder's squares. Owns every
 * libpng read: low-level API, raw sample values, size limits, every libpng
 * error and warning as a diagnostic. Cells are classified while the rows are
 * decoded, so only the sample rows are kept and the decode dominates. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "carcamap/catalog.h"
#include "base/image_int.h"
#include "carcamap/image.h"
#include "carcamap/palette.h"
#include "model/map_builder_int.h"
#include "base/util_int.h"
#include "io/xml_int.h"

/* ------------------------------------------------------------------ legend */

static int hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "#rrggbb" or "#rrggbbaa" (the schema checked the syntax). */
static int parse_rgba(const char *s, uint8_t out[4])
{
	size_t n = s ? strlen(s) : 0;
	if ((n != 7 && n != 9) || s[0] != '#')
		return CM_EINVAL;
	out[3] = 255;
	for (size_t i = 0; i < (n - 1) / 2; i++) {
		int hi = hexdigit(s[1 + 2 * i]), lo = hexdigit(s[2 + 2 * i]);
		if (hi < 0 || lo < 0)
			return CM_EINVAL;
		out[i] = (uint8_t)(hi * 16 + lo);
	}
	return 0;
}

static void format_rgba(char buf[10], const uint8_t c[4])
{
	if (c[3] == 255)
		snprintf(buf, 10, "#%02x%02x%02x", c[0], c[1], c[2]);
	else
		snprintf(buf, 10, "#%02x%02x%02x%02x", c[0], c[1], c[2], c[3]);
}

static void colour_rgba(const cm_legend_colour *c, uint8_t out[4])
{
	out[0] = c->r;
	out[1] = c->g;
	out[2] = c->b;
	out[3] = c->a;
}

/* Largest per-channel difference. Fully transparent colours are equal
 * whatever their RGB: editors keep arbitrary values under alpha 0. */
static int colour_distance(const uint8_t p[4], const cm_legend_colour *c)
{
	if (p[3] == 0 && c->a == 0)
		return 0;
	int q[4] = { c->r, c->g, c->b, c->a }, m = 0;
	for (int i = 0; i < 4; i++) {
		int v = p[i] > q[i] ? p[i] - q[i] : q[i] - p[i];
		if (v > m)
			m = v;
	}
	return m;
}

static int read_colour(const xmlNode *n, const char *file, cm_diags *d, cm_legend_colour *c)
{
	char *v = cm_xml_attr(n, "value"), *k = cm_xml_attr(n, "kind");
	uint8_t rgba[4];
	int rc = 0;
	c->line = cm_xml_line(n);
	if (parse_rgba(v, rgba) || !k || cm_square_kind_parse(k, &c->kind)) {
		/* unreachable after schema validation; kept for in-memory callers */
		cm_diags_check(d, "CM0002", file, c->line, 0, NULL, "bad colour value or kind");
		rc = CM_EINVAL;
		goto out;
	}
	c->r = rgba[0];
	c->g = rgba[1];
	c->b = rgba[2];
	c->a = rgba[3];
	c->island = cm_xml_attr(n, "island");
	c->name = cm_xml_attr(n, "name");
	c->marker = cm_xml_attr(n, "marker");
	c->arms = (uint8_t)cm_xml_attr_int(n, "arms", 0);
	if (c->kind == CM_SQ_ISLAND && !c->island) {
		cm_diags_check(d, "CM0303", file, c->line, 0, NULL, "island colour %s has no island id", v);
		rc = CM_EINVAL;
	}
	if (c->kind != CM_SQ_ISLAND && (c->island || c->arms)) {
		cm_diags_check(d, "CM0303", file, c->line, 0, NULL,
		               "colour %s of kind %s has an island id or coats of arms; only island colours may",
		               v, cm_square_kind_name(c->kind));
		rc = CM_EINVAL;
	}
out:
	free(v);
	free(k);
	return rc;
}

/* Checks between colours and between grid values. */
/* Colours are compared pairwise, at most CM_LEGEND_MAX_COLOURS of them;
 * a colour too close to several is reported against the first alone. */
static int check_legend(const cm_legend *lg, const char *file, cm_diags *d)
{
	int rc = 0;
	for (size_t i = 0; i < lg->n_colours; i++)
		for (size_t j = 0; j < i; j++) {
			uint8_t p[4];
			colour_rgba(&lg->colours[i], p);
			int dist = colour_distance(p, &lg->colours[j]);
			if (dist > 2 * lg->tolerance)
				continue;
			char a[10], b[10];
			format_rgba(a, p);
			colour_rgba(&lg->colours[j], p);
			format_rgba(b, p);
			cm_diags_check(d, "CM0302", file, lg->colours[i].line, 0, NULL,
			               "colour %s is %d from colour %s of line %u: with tolerance %d a pixel "
			               "could match both",
			               a, dist, b, lg->colours[j].line, lg->tolerance);
			rc = CM_EINVAL;
			break;
		}
	const cm_legend_grid *g = &lg->grid;
	if (g->sample > g->cell_w || g->sample > g->cell_h) {
		cm_diags_check(d, "CM0304", file, 0, 0, NULL, "sample %d is larger than the cell of %dx%d pixels",
		               g->sample, g->cell_w, g->cell_h);
		rc = CM_EINVAL;
	}
	return rc;
}

static int legend_from_doc(xmlDoc *doc, const char *file, cm_diags *d, cm_legend **out)
{
	xmlNode *root = xmlDocGetRootElement(doc);
	int rc = 0;
	cm_legend *lg = calloc(1, sizeof *lg);
	if (!lg)
		return CM_ENOMEM;
	lg->grid = (cm_legend_grid){ 0, 0, 1, 1, 0, 0, 1 };
	int format = cm_xml_attr_int(root, "format", 1);
	if (format != 1) {
		cm_diags_check(d, "CM0301", file, cm_xml_line(root), 0, NULL,
		               "legend format %d is newer than format 1 that this build reads", format);
		rc = CM_EVERSION;
		goto out;
	}
	lg->tolerance = cm_xml_attr_int(root, "tolerance", 0);
	if (file && !(lg->file = cm_strdup(file))) {
		rc = CM_ENOMEM;
		goto out;
	}
	size_t cap = 0;
	for (xmlNode *n = cm_xml_elem(root->children); n; n = cm_xml_elem(n->next)) {
		if (cm_xml_is(n, "grid")) {
			cm_legend_grid *g = &lg->grid;
			g->x = cm_xml_attr_int(n, "x", 0);
			g->y = cm_xml_attr_int(n, "y", 0);
			g->cell_w = cm_xml_attr_int(n, "cell-width", 1);
			g->cell_h = cm_xml_attr_int(n, "cell-height", 1);
			g->cols = cm_xml_attr_int(n, "cols", 0);
			g->rows = cm_xml_attr_int(n, "rows", 0);
			g->sample = cm_xml_attr_int(n, "sample", 1);
		} else if (cm_xml_is(n, "colour")) {
			if (lg->n_colours == CM_LEGEND_MAX_COLOURS) {
				/* colours are compared pairwise (CM0302): the cap bounds it */
				cm_diags_check(d, "CM0004", file, cm_xml_line(n), 0, NULL,
				               "legend has more than %d colours", CM_LEGEND_MAX_COLOURS);
				rc = CM_ELIMIT;
				goto out;
			}
			if (cm_grow((void **)&lg->colours, &cap, lg->n_colours, sizeof *lg->colours)) {
				rc = CM_ENOMEM;
				goto out;
			}
			cm_legend_colour *c = &lg->colours[lg->n_colours++];
			memset(c, 0, sizeof *c);
			if (read_colour(n, file, d, c))
				rc = CM_EINVAL;
		}
	}
	if (check_legend(lg, file, d))
		rc = CM_EINVAL;
out:
	if (rc) {
		cm_legend_free(lg);
		return rc;
	}
	*out = lg;
	return 0;
}

int cm_legend_load_memory(const char *buf, size_t len, const char *file, cm_diags *d, cm_legend **out)
{
	xmlDoc *doc;
	*out = NULL;
	int rc = cm_xml_load_memory(buf, len, file, "legend.xsd", d, &doc);
	if (rc)
		return rc;
	rc = legend_from_doc(doc, file, d, out);
	cm_xml_free_doc(doc);
	return rc;
}

int cm_legend_load_file(const char *path, cm_diags *d, cm_legend **out)
{
	xmlDoc *doc;
	*out = NULL;
	int rc = cm_xml_load_file(path, "legend.xsd", d, &doc);
	if (rc)
		return rc;
	rc = legend_from_doc(doc, path, d, out);
	cm_xml_free_doc(doc);
	return rc;
}

/* ------------------------------------------------------------- png reader */

#define MAX_WARNINGS 20
#define MAX_CELL_DIAGS 200
#define CHUNK_CACHE_MAX 256            /* ancillary chunks kept */
#define CHUNK_MALLOC_MAX (8u << 20)    /* largest decompressed ancillary chunk */
#define MEMO_SIZE 4096                 /* distinct colours remembered by the classifier */

/* Everything the decode touches lives here, on the heap: after a longjmp
 * from libpng only memory, not registers, is trusted. */
typedef struct {
	const char *path;
	const cm_legend *lg;
	cm_diags *d;
	FILE *f;
	png_structp png;
	png_infop info;
	int rc;              /* set before png_error when the code is not CM_EINVAL */
	int warnings;
	int w, h;
	cm_legend_grid g;    /* with cols and rows resolved */
	uint8_t *samples;    /* sample rows: g.sample per cell row, w*4 bytes each */
	size_t sample_rows;  /* rows allocated in samples */
	uint8_t **rows;      /* the sample_rows row pointers into samples */
	uint8_t *scratch;    /* destination of rows outside every sample */
	int *cell;           /* legend index per cell, -1 for a bad cell */
	int cell_diags;      /* cell diagnostics issued, capped */
	int bad_cells;
	/* rows are decoded as stored (palette indices, grey, grey+alpha, RGB,
	 * RGBA, 8 or 16 bits; grey below 8 bits one byte per pixel); only the
	 * sample pixels are expanded to RGBA8 (expand_px), into rgba */
	int ct, depth, bpp;  /* colour type, bit depth, bytes per decoded pixel */
	bool indexed;
	uint8_t pal[256][4]; /* palette: PLTE and tRNS */
	bool has_trns;       /* grey or RGB: the tRNS colour, as stored */
	uint16_t trns[3];
	uint8_t *rgba;       /* g.sample expanded rows, w*4 bytes each */
	uint8_t **rgba_rows;
	/* match() per distinct colour: a direct-mapped memo of pixel -> index */
	uint32_t memo_key[MEMO_SIZE];
	int memo_idx[MEMO_SIZE];  /* -3: empty */
	int *isl_of;         /* per legend colour: its island's index in the map, -2 unknown */
} reader;

static void lower_first(char *s)
{
	if (s[0] >= 'A' && s[0] <= 'Z' && !(s[1] >= 'A' && s[1] <= 'Z'))
		s[0] = (char)(s[0] - 'A' + 'a');
}

static void on_png_error(png_structp png, png_const_charp msg)
{
	reader *r = png_get_error_ptr(png);
	char buf[256];
	snprintf(buf, sizeof buf, "%s", msg ? msg : "unknown error");
	lower_first(buf);
	cm_diags_check(r->d, "CM0310", r->path, 0, 0, NULL, "cannot decode png: %s", buf);
	png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
	reader *r = png_get_error_ptr(png);
	if (++r->warnings > MAX_WARNINGS)
		return;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", msg ? msg : "unknown warning");
	lower_first(buf);
	cm_diags_check(r->d, "CM0313", r->path, 0, 0, NULL, "png decoder: %s", buf);
}

static void on_png_read(png_structp png, png_bytep buf, size_t n)
{
	reader *r = png_get_io_ptr(png);
	if (fread(buf, 1, n, r->f) != n)
		png_error(png, ferror(r->f) ? "read error" : "file ends early (truncated)");
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Reads the signature and the IHDR size ourselves, so that absurd sizes get
 * a message with the numbers before libpng allocates anything. */
static int precheck(reader *r)
{
	unsigned char b[24];
	size_t n = fread(b, 1, sizeof b, r->f);
	if (n < 8 || png_sig_cmp(b, 0, 8)) {
		cm_diags_check(r->d, "CM0310", r->path, 0, 0, NULL, "not a png file (no png signature)");
		return CM_EFORMAT;
	}
	if (n == sizeof b && memcmp(b + 12, "IHDR", 4) == 0) {
		uint32_t w = be32(b + 16), h = be32(b + 20);
		if (!cm__image_fits(w, h)) {
			cm_diags_check(r->d, "CM0311", r->path, 0, 0, NULL,
			               "png claims %" PRIu32 "x%" PRIu32 " pixels; the limit is %d per side and %u in all",
			               w, h, CM_IMAGE_MAX_SIDE, CM_IMAGE_MAX_PIXELS);
			return CM_ELIMIT;
		}
	}
	/* every chunk's declared length against what the file holds, before
	 * libpng sees it: a length past the end of the file would otherwise
	 * be allocated before the read fails (libpng only warns past its
	 * chunk limit), so no declared length costs memory the file lacks */
	struct stat st;
	if (fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode)) {
		uint64_t size = (uint64_t)st.st_size, at = 8;
		unsigned char h[8];
		while (at + 8 <= size) {
			if (fseeko(r->f, (off_t)at, SEEK_SET) || fread(h, 1, 8, r->f) != 8)
				break;
			uint64_t len = be32(h);
			if (len > 0x7fffffffu || at + 12 + len > size) {
				cm_diags_check(r->d, "CM0310", r->path, 0, 0, NULL,
				               "cannot decode png: chunk %.4s at byte %" PRIu64 " declares %" PRIu64
				               " bytes, past the end of the %" PRIu64 "-byte file (truncated)",
				               isalpha(h[4]) && isalpha(h[5]) && isalpha(h[6]) && isalpha(h[7]) ? (const char *)h + 4 : "????",
				               at, len, size);
				return CM_EINVAL; /* as any other decode failure */
			}
			if (memcmp(h + 4, "IEND", 4) == 0)
				break;
			at += 12 + len;
		}
	}
	if (fseek(r->f, 0, SEEK_SET)) {
		cm_diags_add(r->d, CM_SEV_ERROR, NULL, r->path, 0, 0, NULL, "cannot seek: %s", strerror(errno));
		return CM_EIO;
	}
	return 0;
}

/* Warns about chunks a viewer applies but we do not: the colours a viewer
 * shows may differ from the raw values compared with the legend. */
static void warn_colour_management(reader *r)
{
	static const struct { png_uint_32 flag; const char *name; } chunks[] = {
		{ PNG_INFO_gAMA, "gAMA" }, { PNG_INFO_cHRM, "cHRM" },
		{ PNG_INFO_iCCP, "iCCP" }, { PNG_INFO_sRGB, "sRGB" },
	};
	char list[32] = "";
	for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++)
		if (png_get_valid(r->png, r->info, chunks[i].flag)) {
			if (list[0])
				strcat(list, ", ");
			strcat(list, chunks[i].name);
		}
	if (list[0])
		cm_diags_check(r->d, "CM0312", r->path, 0, 0, NULL,
		               "png carries %s: colours are read raw, as stored, not as a viewer shows them", list);
}

/* Resolves the grid against the image size; every sample must lie inside. */
static int resolve_grid(reader *r)
{
	cm_legend_grid *g = &r->g;
	*g = r->lg->grid;
	if (g->cols == 0)
		g->cols = r->w > g->x ? (r->w - g->x) / g->cell_w : 0;
	if (g->rows == 0)
		g->rows = r->h > g->y ? (r->h - g->y) / g->cell_h : 0;
	const char *why = NULL;
	if (g->cols <= 0 || g->rows <= 0)
		why = "no whole cell fits right of and below the origin";
	else if (g->cols > 1024 || g->rows > 1024)
		why = "more than 1024 cells per side (the map limit)";
	else if ((int64_t)g->x + (int64_t)(g->cols - 1) * g->cell_w + g->cell_w / 2 - g->sample / 2 + g->sample > r->w ||
	         (int64_t)g->y + (int64_t)(g->rows - 1) * g->cell_h + g->cell_h / 2 - g->sample / 2 + g->sample > r->h)
		why = "the samples of the last cells lie outside the image";
	if (!why)
		return 0;
	cm_diags_check(r->d, "CM0323", r->path, 0, 0, NULL,
	               "grid of %dx%d cells of %dx%d pixels at (%d,%d) does not fit the %dx%d image: %s",
	               g->cols, g->rows, g->cell_w, g->cell_h, g->x, g->y, r->w, r->h, why);
	return CM_EINVAL;
}

/* Index of the sample row y within its cell row (*cr), or -1. */
static int sample_index(const reader *r, int y, int *cr)
{
	const cm_legend_grid *g = &r->g;
	if (y < g->y)
		return -1;
	int c = (y - g->y) / g->cell_h;
	if (c >= g->rows)
		return -1;
	int k = y - (g->y + c * g->cell_h + g->cell_h / 2 - g->sample / 2);
	if (k < 0 || k >= g->sample)
		return -1;
	*cr = c;
	return k;
}

static int match(const cm_legend *lg, const uint8_t p[4])
{
	for (size_t i = 0; i < lg->n_colours; i++)
		if (colour_distance(p, &lg->colours[i]) <= lg->tolerance)
			return (int)i;
	return -1;
}

/* match() once per distinct colour (as long as the memo holds them): an
 * image of a few colours costs one lookup per pixel whatever the legend. */
static int match_memo(reader *r, uint32_t key, const uint8_t p[4])
{
	uint32_t h = (key * 2654435761u) >> 20; /* 12 bits: MEMO_SIZE */
	if (r->memo_idx[h] != -3 && r->memo_key[h] == key)
		return r->memo_idx[h];
	int idx = match(r->lg, p);
	r->memo_key[h] = key;
	r->memo_idx[h] = idx;
	return idx;
}

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void cell_diag(reader *r, const char *id, int cc, int cr, int px, int py, const char *fmt, ...)
{
	if (++r->cell_diags > MAX_CELL_DIAGS)
		return;
	char where[96];
	snprintf(where, sizeof where, "cell (%d,%d), pixel (%d,%d)", cc, cr, px, py);
	cm_diag_scope s;
	cm_diag_scope_init(&s, r->d, r->path);
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(&s, id, 0, 0, where, fmt, ap);
	va_end(ap);
}

static void describe(const cm_legend_colour *c, char *buf, size_t size)
{
	uint8_t p[4];
	char hex[10];
	colour_rgba(c, p);
	format_rgba(hex, p);
	snprintf(buf, size, "%s (%s, legend line %u)", hex, cm_square_kind_name(c->kind), c->line);
}

/* Classifies the cells of cell row cr from its sample rows. The common case,
 * a sample of one colour, costs one comparison per pixel. */
static void classify_row(reader *r, int cr, uint8_t *const *rows)
{
	const cm_legend_grid *g = &r->g;
	const cm_legend *lg = r->lg;
	int s = g->sample;
	for (int cc = 0; cc < g->cols; cc++) {
		int x0 = g->x + cc * g->cell_w + g->cell_w / 2 - s / 2;
		int y0 = g->y + cr * g->cell_h + g->cell_h / 2 - s / 2;
		int first = -2, bad = 0;
		uint32_t last = 0;
		int last_idx = -2;
		for (int k = 0; k < s && !bad; k++) {
			const uint8_t *p = rows[k] + 4 * (size_t)x0;
			for (int i = 0; i < s; i++, p += 4) {
				uint32_t key = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
				int idx = key == last && last_idx != -2 ? last_idx : match_memo(r, key, p);
				last = key;
				last_idx = idx;
				if (idx >= 0 && (first == -2 || idx == first)) {
					first = idx;
					continue;
				}
				char hex[10], what[128];
				format_rgba(hex, p);
				int px = x0 + i, py = y0 + k;
				bad = 1;
				if (idx < 0 && p[3] != 0 && p[3] != 255) {
					cell_diag(r, "CM0322", cc, cr, px, py,
					          "partly transparent pixel %s matches no legend colour", hex);
				} else if (r->cell_diags >= MAX_CELL_DIAGS) {
					r->cell_diags++; /* counted, not described: CM0324 says how many */
				} else if (idx < 0) {
					int best = -1, bd = 256;
					for (size_t j = 0; j < lg->n_colours; j++) {
						int dj = colour_distance(p, &lg->colours[j]);
						if (dj < bd) {
							bd = dj;
							best = (int)j;
						}
					}
					if (best >= 0) {
						describe(&lg->colours[best], what, sizeof what);
						cell_diag(r, "CM0320", cc, cr, px, py,
						          "unknown colour %s: nearest legend colour is %s at distance %d, "
						          "tolerance %d",
						          hex, what, bd, lg->tolerance);
					} else {
						cell_diag(r, "CM0320", cc, cr, px, py, "unknown colour %s: the legend has no colours",
						          hex);
					}
				} else {
					char other[128];
					describe(&lg->colours[first], what, sizeof what);
					describe(&lg->colours[idx], other, sizeof other);
					cell_diag(r, "CM0321", cc, cr, px, py, "sample mixes %s and %s", what, other);
				}
				break;
			}
		}
		if (bad)
			r->bad_cells++;
		r->cell[cr * g->cols + cc] = bad ? -1 : first;
	}
}

/* The RGBA8 value of pixel x of a decoded row, as libpng's expansion
 * would give it (png_set_expand, png_set_strip_16, png_set_gray_to_rgb,
 * an opaque alpha added): palette through PLTE and tRNS; grey below 8 bits
 * scaled to 8 (2-bit 1 is 0x55); 16-bit samples cut to their high byte;
 * the tRNS colour, compared as stored, transparent. */
static void expand_px(const reader *r, const uint8_t *row, int x, uint8_t out[4])
{
	const uint8_t *p = row + (size_t)x * (size_t)r->bpp;
	int b = r->depth == 16 ? 2 : 1; /* bytes per sample; the high one first */
	switch (r->ct) {
	case PNG_COLOR_TYPE_PALETTE:
		memcpy(out, r->pal[p[0]], 4);
		return;
	case PNG_COLOR_TYPE_GRAY: {
		unsigned v = b == 2 ? (unsigned)p[0] << 8 | p[1] : p[0];
		unsigned g = r->depth < 8 ? v * (255u / ((1u << r->depth) - 1u)) : p[0];
		out[0] = out[1] = out[2] = (uint8_t)g;
		out[3] = r->has_trns && v == r->trns[0] ? 0 : 255;
		return;
	}
	case PNG_COLOR_TYPE_GRAY_ALPHA:
		out[0] = out[1] = out[2] = p[0];
		out[3] = p[b];
		return;
	case PNG_COLOR_TYPE_RGB: {
		bool clear = r->has_trns;
		for (int c = 0; c < 3; c++) {
			unsigned v = b == 2 ? (unsigned)p[2 * c] << 8 | p[2 * c + 1] : p[c];
			out[c] = p[c * b];
			clear = clear && v == r->trns[c];
		}
		out[3] = clear ? 0 : 255;
		return;
	}
	default: /* RGBA */
		for (int c = 0; c < 4; c++)
			out[c] = p[c * b];
		return;
	}
}

/* classify_row on rgba rows: the decoded rows are expanded first, only
 * where the samples lie. */
static void classify(reader *r, int cr, uint8_t *const *rows)
{
	const cm_legend_grid *g = &r->g;
	int s = g->sample;
	for (int k = 0; k < s; k++)
		for (int cc = 0; cc < g->cols; cc++) {
			int x0 = g->x + cc * g->cell_w + g->cell_w / 2 - s / 2;
			for (int i = 0; i < s; i++)
				expand_px(r, rows[k], x0 + i, r->rgba_rows[k] + 4 * (size_t)(x0 + i));
		}
	classify_row(r, cr, r->rgba_rows);
}

/* The decode proper. libpng longjmps here on any error; all state is in *r.
 * Returns 0 or a CM_E code; diagnostics are already in r->d. */
static int decode(reader *r)
{
	if (setjmp(png_jmpbuf(r->png)))
		return r->rc ? r->rc : CM_EINVAL;
	png_structp png = r->png;
	png_infop info = r->info;
	png_set_read_fn(png, r, on_png_read);
	png_set_user_limits(png, CM_IMAGE_MAX_SIDE, CM_IMAGE_MAX_SIDE);
	png_set_chunk_cache_max(png, CHUNK_CACHE_MAX);
	png_set_chunk_malloc_max(png, CHUNK_MALLOC_MAX);
	png_read_info(png, info);

	png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
	if (!cm__image_fits(w, h)) {
		r->rc = CM_ELIMIT;
		cm_diags_check(r->d, "CM0311", r->path, 0, 0, NULL, "png has %ux%u pixels; the limit is %u",
		               (unsigned)w, (unsigned)h, CM_IMAGE_MAX_PIXELS);
		return r->rc;
	}
	r->w = (int)w;
	r->h = (int)h;
	warn_colour_management(r);

	/* No transformation but packing low-depth pixels one to a byte: rows
	 * are decoded as stored and only the sample pixels are expanded to
	 * RGBA8 (expand_px: palette and tRNS, low-depth grey scaled, grey
	 * copied to RGB, 16 bits cut to the high byte, opaque alpha added).
	 * No gamma, no background, no colour conversion. */
	int ct = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
	r->ct = ct;
	r->depth = depth;
	r->indexed = ct == PNG_COLOR_TYPE_PALETTE;
	if (depth < 8)
		png_set_packing(png);
	png_bytep trns = NULL;
	int n_trns = 0;
	png_color_16p trns_colour = NULL;
	if (png_get_valid(png, info, PNG_INFO_tRNS))
		png_get_tRNS(png, info, &trns, &n_trns, &trns_colour);
	if (r->indexed) {
		/* entries past PLTE are black, past tRNS opaque, as libpng's
		 * expansion makes them */
		png_colorp plte = NULL;
		int n_plte = 0;
		png_get_PLTE(png, info, &plte, &n_plte);
		for (int i = 0; i < 256; i++) {
			r->pal[i][0] = i < n_plte ? plte[i].red : 0;
			r->pal[i][1] = i < n_plte ? plte[i].green : 0;
			r->pal[i][2] = i < n_plte ? plte[i].blue : 0;
			r->pal[i][3] = trns && i < n_trns ? trns[i] : 0xff;
		}
	} else if (trns_colour && !(ct & PNG_COLOR_MASK_ALPHA)) {
		r->has_trns = true;
		/* compared within the bit depth, as libpng does */
		unsigned mask = depth == 16 ? 0xffffu : (1u << depth) - 1u;
		if (ct & PNG_COLOR_MASK_COLOR) {
			r->trns[0] = (uint16_t)(trns_colour->red & mask);
			r->trns[1] = (uint16_t)(trns_colour->green & mask);
			r->trns[2] = (uint16_t)(trns_colour->blue & mask);
		} else {
			r->trns[0] = (uint16_t)(trns_colour->gray & mask);
		}
	}
	int ch = ct == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : ct == PNG_COLOR_TYPE_RGB ? 3 : ct == PNG_COLOR_TYPE_RGB_ALPHA ? 4 : 1;
	r->bpp = ch * (depth == 16 ? 2 : 1);
	int passes = png_set_interlace_handling(png);
	png_read_update_info(png, info);
	size_t rowbytes = png_get_rowbytes(png, info);
	if (rowbytes != (size_t)w * (size_t)r->bpp) {
		r->rc = CM_EINTERNAL;
		png_error(png, "internal: rows are not of the expected size");
	}

	if (resolve_grid(r))
		return CM_EINVAL;
	const cm_legend_grid *g = &r->g;
	/* Adam7 fills rows over 7 passes, so every sample row must live until
	 * the end; a plain image needs the sample rows of one cell row only. */
	r->sample_rows = (size_t)g->sample * (passes > 1 ? (size_t)g->rows : 1);
	r->cell = malloc((size_t)g->cols * (size_t)g->rows * sizeof *r->cell);
	r->samples = malloc(r->sample_rows * rowbytes);
	r->scratch = malloc(rowbytes);
	r->rows = malloc(r->sample_rows * sizeof *r->rows);
	if (!r->cell || !r->samples || !r->scratch || !r->rows) {
		r->rc = CM_ENOMEM;
		png_error(png, "out of memory for the sample rows");
	}
	uint8_t **rows = r->rows;
	for (size_t i = 0; i < r->sample_rows; i++)
		rows[i] = r->samples + i * rowbytes;
	{
		r->rgba = malloc((size_t)g->sample * (size_t)w * 4);
		r->rgba_rows = malloc((size_t)g->sample * sizeof *r->rgba_rows);
		if (!r->rgba || !r->rgba_rows) {
			r->rc = CM_ENOMEM;
			png_error(png, "out of memory for the sample rows");
		}
		for (int i = 0; i < g->sample; i++)
			r->rgba_rows[i] = r->rgba + (size_t)i * (size_t)w * 4;
	}

	for (int pass = 0; pass < passes; pass++)
		for (int y = 0; y < r->h; y++) {
			int cr = 0, k = sample_index(r, y, &cr);
			uint8_t *dst = k < 0 ? r->scratch : rows[(passes > 1 ? (size_t)cr * (size_t)g->sample : 0) + (size_t)k];
			png_read_row(png, dst, NULL);
			if (passes == 1 && k == g->sample - 1)
				classify(r, cr, rows);
		}
	if (passes > 1)
		for (int cr = 0; cr < g->rows; cr++)
			classify(r, cr, rows + (size_t)cr * (size_t)g->sample);
	/* reads the chunks after the image data: their CRCs count too */
	png_read_end(png, NULL);
	return 0;
}

static void reader_free(reader *r)
{
	if (!r)
		return;
	if (r->png)
		png_destroy_read_struct(&r->png, r->info ? &r->info : NULL, NULL);
	if (r->f)
		fclose(r->f);
	free(r->samples);
	free(r->scratch);
	free(r->rows);
	free(r->cell);
	free(r->rgba);
	free(r->rgba_rows);
	free(r->isl_of);
	free(r);
}

/* Opens, decodes and classifies; *out holds the reader with cell[] filled.
 * Cell problems make CM_EINVAL but still return the reader. */
static int read_cells(const char *path, const cm_legend *lg, cm_diags *d, reader **out)
{
	*out = NULL;
	reader *r = calloc(1, sizeof *r);
	if (!r)
		return CM_ENOMEM;
	r->path = path;
	r->lg = lg;
	r->d = d;
	for (size_t i = 0; i < MEMO_SIZE; i++)
		r->memo_idx[i] = -3;
	int rc = 0;
	if (!(r->isl_of = malloc((lg->n_colours + 1) * sizeof *r->isl_of))) {
		free(r);
		return CM_ENOMEM;
	}
	for (size_t i = 0; i < lg->n_colours; i++)
		r->isl_of[i] = -2;
	if (cm_open_read(path, d, &r->f)) {
		rc = CM_EIO;
		goto out;
	}
	if ((rc = precheck(r)))
		goto out;
	r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, on_png_error, on_png_warning);
	if (!r->png || !(r->info = png_create_info_struct(r->png))) {
		rc = CM_ENOMEM;
		goto out;
	}
	if ((rc = decode(r)))
		goto out;
	/* so many cells that a wrong grid is likelier than a wrong colour: a
	 * picture drawn at a larger scale, one pixel a cell (render's default
	 * is 24 pixels a square), or a legend grid that does not fit */
	if (r->cell_diags > MAX_CELL_DIAGS)
		cm_diags_check(d, "CM0324", path, 0, 0, NULL, "%d more cells with problems not reported%s",
		               r->cell_diags - MAX_CELL_DIAGS,
		               r->g.cell_w == 1 && r->g.cell_h == 1
		                   ? "; each pixel was read as a square: if this is a picture drawn at a larger scale "
		                     "(render's default is 24 pixels a square), render the map with --scale 1 (or "
		                     "--scale 0 and a legend) for import, or give a --legend whose <grid> has the "
		                     "picture's cell size"
		                   : "; check that the legend's <grid> (origin, cell size, sample) fits the image");
	if (r->bad_cells)
		rc = CM_EINVAL;
	*out = r;
	return rc;
out:
	reader_free(r);
	return rc;
}


/* ------------------------------------------------------------------ import */

/* Index of the island named id in b, added when missing (one index
 * lookup: the builder's); -1 on ENOMEM. */
static int island_index(cm_map_builder *b, const char *id)
{
	int i = cm_map_builder_island_find(b, id);
	size_t added;
	if (i >= 0)
		return i;
	return cm_map_builder_add_island(b, id, NULL, 0, &added) ? -1 : (int)added;
}

/* Adds marker to square (x,y)'s markers unless it has it already. */
static int add_marker(cm_map_builder *b, int x, int y, const char *marker)
{
	size_t n;
	const char *const *v = cm_map_square_markers(cm__map_builder_view(b), x, y, &n);
	for (size_t k = 0; k < n; k++)
		if (strcmp(v[k], marker) == 0)
			return 0;
	return cm_map_builder_add_marker(b, x, y, marker);
}

/* Adds what colour c says to square (x,y), of kind kind. *isl remembers
 * the island index of c (-2: not looked up yet), so the islands are
 * searched once per colour, not once per square. */
static int fill_square(cm_map_builder *b, int x, int y, uint8_t kind, const cm_legend_colour *c, int *isl)
{
	cm_square s = *cm_map_builder_square(b, x, y);
	s.kind = kind;
	if (c->island && s.island < 0) {
		if (*isl == -2)
			*isl = island_index(b, c->island);
		if ((s.island = *isl) < 0)
			return CM_ENOMEM;
	}
	if (c->arms && !s.arms)
		s.arms = c->arms;
	if (cm_map_builder_set_square(b, x, y, &s))
		return CM_ENOMEM; /* every value is in range: only a bug lands here */
	if (c->name && !cm_map_square_name(cm__map_builder_view(b), x, y) &&
	    cm_map_builder_set_square_name(b, x, y, c->name))
		return CM_ENOMEM;
	if (c->marker && add_marker(b, x, y, c->marker))
		return CM_ENOMEM;
	return 0;
}

int cm_image_import(const char *png_path, const cm_legend *lg, cm_diags *d, cm_map_builder **out)
{
	reader *r;
	cm_map_builder *b = NULL;
	*out = NULL;
	int rc = read_cells(png_path, lg, d, &r);
	if (rc)
		goto out;
	if ((rc = cm_map_builder_new(r->g.cols, r->g.rows, &b)))
		goto out;
	for (int i = 0; i < r->g.cols * r->g.rows; i++) {
		const cm_legend_colour *c = &lg->colours[r->cell[i]];
		if ((rc = fill_square(b, i % r->g.cols, i / r->g.cols, c->kind, c, &r->isl_of[r->cell[i]])))
			goto out;
	}
	if (cm_map_builder_set_image(b, png_path) || cm_map_builder_set_legend(b, lg->file)) {
		rc = CM_ENOMEM;
		goto out;
	}
	*out = b;
	b = NULL;
out:
	cm_map_builder_free(b);
	reader_free(r);
	return rc;
}

int cm_image_apply(cm_map_builder *b, const char *png_path, const cm_legend *lg, cm_diags *d)
{
	reader *r;
	const cm_map *m = cm__map_builder_view(b);
	/* cells with problems are skipped, the others still applied and compared */
	int rc = read_cells(png_path, lg, d, &r);
	if (!r)
		return rc;
	const cm_legend_grid *g = &r->g;
	if (g->cols != m->cols || g->rows != m->rows) {
		cm_diags_check(d, "CM0331", png_path, 0, 0, NULL, "image grid is %dx%d cells but map %s is %dx%d squares",
		               g->cols, g->rows, m->id ? m->id : "", m->cols, m->rows);
		rc = CM_EINVAL;
		goto out;
	}
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *s = cm__map_at(m, x, y);
			int idx = r->cell[y * m->cols + x];
			if (idx < 0)
				continue;
			const cm_legend_colour *c = &lg->colours[idx];
			if (s->kind != CM_SQ_NONE) {
				const char *island = s->island >= 0 ? m->islands[s->island].name : NULL;
				int kind_differs = s->kind != c->kind;
				if (kind_differs || (c->island && island && strcmp(c->island, island) != 0)) {
					char what[128], where[160];
					describe(c, what, sizeof what);
					int px = g->x + x * g->cell_w + g->cell_w / 2, py = g->y + y * g->cell_h + g->cell_h / 2;
					snprintf(where, sizeof where, "square (%d,%d)", x, y);
					cm_diags_check(d, "CM0330", m->file, s->line, 0, where,
					               "square is %s%s%s in the descriptor but %s%s%s in image %s: colour %s "
					               "at cell (%d,%d), pixel (%d,%d)",
					               cm_square_kind_name(s->kind), island ? " of island " : "",
					               island ? island : "", cm_square_kind_name(c->kind),
					               c->island ? " of island " : "", c->island ? c->island : "", png_path,
					               what, x, y, px, py);
					rc = CM_EINVAL;
					continue;
				}
			}
			if (fill_square(b, x, y, s->kind == CM_SQ_NONE ? c->kind : s->kind, c, &r->isl_of[idx])) {
				rc = CM_ENOMEM;
				goto out;
			}
		}
out:
	reader_free(r);
	return rc;
}

int cm_image_apply_descriptor(cm_map_builder *b, const char *descriptor, cm_diags *d)
{
	const cm_map *m = cm__map_builder_view(b);
	if (!m->image)
		return 0;
	cm_legend *lg = NULL;
	char *png = cm_path_resolve(descriptor, m->image);
	char *legend = m->legend ? cm_path_resolve(descriptor, m->legend) : NULL;
	int rc = CM_ENOMEM;
	if (!png || (m->legend && !legend))
		goto out;
	rc = legend ? cm_legend_load_file(legend, d, &lg) : cm_legend_default(&lg);
	if (rc)
		goto out;
	rc = cm_image_apply(b, png, lg, d);
out:
	cm_legend_free(lg);
	free(png);
	free(legend);
	return rc;
}
