/* SPDX-License-Identifier: MIT */
/* bench_import.c: cm_image_import against a plain libpng decode of the same
 * file (png_read_row in a loop into one row buffer, no transformation), per
 * colour type: grey, grey+alpha, RGB, RGBA, palette, 16-bit RGB. Each image
 * is W x H pixels of 40-pixel cells with a dark grid line, like a scanned
 * map. CPU time of this process, median of RUNS runs; goal: import within
 * 1.2x the plain decode for every colour type (issue 16). */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"
#include "carcamap/image.h"

#define W 4000
#define H 3000
#define CELL 40
#define RUNS 5
#define GOAL 1.2

/* Four paints and the grid line, grey levels so every colour type holds them. */
static const uint8_t paints[5] = { 0xff, 0xa0, 0x80, 0x60, 0x20 };
static const char legend[] =
	"<legend format=\"1\">\n"
	"  <grid cell-width=\"40\" cell-height=\"40\" sample=\"5\"/>\n"
	"  <colour value=\"#ffffff\" kind=\"none\"/>\n"
	"  <colour value=\"#a0a0a0\" kind=\"land\"/>\n"
	"  <colour value=\"#808080\" kind=\"town\"/>\n"
	"  <colour value=\"#606060\" kind=\"waves\"/>\n"
	"</legend>\n";

typedef struct {
	const char *name;
	int colour_type, depth;
} ctype;

static const ctype types[] = {
	{ "grey", PNG_COLOR_TYPE_GRAY, 8 },
	{ "grey+alpha", PNG_COLOR_TYPE_GRAY_ALPHA, 8 },
	{ "RGB", PNG_COLOR_TYPE_RGB, 8 },
	{ "RGBA", PNG_COLOR_TYPE_RGB_ALPHA, 8 },
	{ "palette", PNG_COLOR_TYPE_PALETTE, 8 },
	{ "16-bit RGB", PNG_COLOR_TYPE_RGB, 16 },
};
#define N_TYPES (sizeof types / sizeof types[0])


static int channels(int ct)
{
	switch (ct) {
	case PNG_COLOR_TYPE_GRAY: return 1;
	case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
	case PNG_COLOR_TYPE_RGB: return 3;
	case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
	default: return 1; /* palette index */
	}
}

/* Cells of pseudo-random paints (the same for every type). */
static int generate(const char *path, const ctype *t)
{
	FILE *f = fopen(path, "wb");
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	int ch = channels(t->colour_type), bytes = t->depth / 8;
	uint8_t *row = malloc((size_t)W * (size_t)ch * (size_t)bytes);
	uint8_t *kinds = malloc((W / CELL) * (H / CELL));
	if (!f || !png || !info || !row || !kinds || setjmp(png_jmpbuf(png)))
		return -1;
	uint32_t seed = 12345;
	for (int i = 0; i < (W / CELL) * (H / CELL); i++) {
		seed = seed * 1103515245u + 12345u;
		kinds[i] = (uint8_t)((seed >> 16) % 4);
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, W, H, t->depth, t->colour_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
	             PNG_FILTER_TYPE_DEFAULT);
	if (t->colour_type == PNG_COLOR_TYPE_PALETTE) {
		png_color plte[5];
		for (int i = 0; i < 5; i++)
			plte[i].red = plte[i].green = plte[i].blue = paints[i];
		png_set_PLTE(png, info, plte, 5);
	}
	png_write_info(png, info);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			int k = (x % CELL == 0 || y % CELL == 0) ? 4 : kinds[(y / CELL) * (W / CELL) + x / CELL];
			uint8_t *p = row + (size_t)x * (size_t)ch * (size_t)bytes;
			for (int c = 0; c < ch; c++) {
				bool alpha = (ch == 2 && c == 1) || (ch == 4 && c == 3);
				uint8_t v = t->colour_type == PNG_COLOR_TYPE_PALETTE ? (uint8_t)k : alpha ? 0xff : paints[k];
				for (int b = 0; b < bytes; b++)
					p[c * bytes + b] = v;
			}
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	fclose(f);
	free(row);
	free(kinds);
	return 0;
}

/* The reference: every row read with png_read_row into one buffer, nothing else. */
static int plain_decode(const char *path)
{
	FILE *f = fopen(path, "rb");
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	uint8_t *row = NULL;
	if (!f || !png || !info || setjmp(png_jmpbuf(png)))
		return -1;
	png_init_io(png, f);
	png_read_info(png, info);
	row = malloc(png_get_rowbytes(png, info));
	if (!row)
		return -1;
	for (png_uint_32 y = 0; y < png_get_image_height(png, info); y++)
		png_read_row(png, row, NULL);
	png_read_end(png, NULL);
	png_destroy_read_struct(&png, &info, NULL);
	fclose(f);
	free(row);
	return 0;
}

int main(void)
{
	cm_diags *d;
	cm_legend *lg;
	if (cm_diags_new(&d) || cm_legend_load_memory(legend, sizeof legend - 1, "bench.xml", d, &lg)) {
		fprintf(stderr, "bench_import: legend does not load\n");
		return 1;
	}
	printf("image import %dx%d px (%dx%d squares), CPU time, median of %d runs; reference: a plain libpng "
	       "png_read_row loop over the same file; goal: within %.1fx for every colour type\n",
	       W, H, W / CELL, H / CELL, RUNS, GOAL);
	int rc = 0, met = 0;
	for (size_t k = 0; k < N_TYPES && !rc; k++) {
		char path[] = "/tmp/cm_bench_import_XXXXXX";
		int fd = mkstemp(path);
		if (fd < 0 || generate(path, &types[k])) {
			fprintf(stderr, "bench_import: cannot write the test image\n");
			return 1;
		}
		close(fd);
		double tp[RUNS], ti[RUNS];
		for (int i = 0; i < RUNS && !rc; i++) {
			double t0 = bench_cpu_s();
			rc |= plain_decode(path);
			double t1 = bench_cpu_s();
			cm_map_builder *m = NULL;
			rc |= cm_image_import(path, lg, d, &m);
			double t2 = bench_cpu_s();
			if (m && (cm_map_builder_cols(m) != W / CELL || cm_map_builder_rows(m) != H / CELL))
				rc = 1;
			cm_map_builder_free(m);
			tp[i] = t1 - t0;
			ti[i] = t2 - t1;
		}
		unlink(path);
		if (rc || cm_diags_count(d)) {
			cm_diags_write_text(d, stderr);
			fprintf(stderr, "bench_import: %s failed (%d, %zu diagnostics)\n", types[k].name, rc,
			        cm_diags_count(d));
			return 1;
		}
		double p = bench_median(tp, RUNS), im = bench_median(ti, RUNS), ratio = im / p;
		met += ratio <= GOAL;
		printf("  import %-11s %7.1f ms | plain libpng %7.1f ms | ratio %5.2f (goal <= %.1f: %s)\n",
		       types[k].name, im * 1e3, p * 1e3, ratio, GOAL, ratio <= GOAL ? "met" : "NOT MET");
	}
	printf("  import goal met for %d of %zu colour types\n", met, N_TYPES);
	cm_legend_free(lg);
	cm_diags_free(d);
	return 0;
}
