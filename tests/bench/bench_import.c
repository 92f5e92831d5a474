/* SPDX-License-Identifier: MIT */
/* bench_import.c: cm_image_import on an 8000x6000 annotated RGB PNG (cells
 * of 40 px, 200x150 squares) against a plain libpng decode of the same file
 * into memory. The import classifies while decoding, so the ratio should
 * stay near 1 (target < 1.3). Prints both times and the ratio. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "carcamap/image.h"

#define W 8000
#define H 6000
#define CELL 40
#define RUNS 3

static const uint8_t paints[4][3] = { { 0xff, 0xff, 0xff }, { 0x40, 0xa0, 0x40 }, { 0xc0, 0x80, 0x40 }, { 0x20, 0x60, 0xc0 } };
static const char legend[] =
	"<legend format=\"1\">\n"
	"  <grid cell-width=\"40\" cell-height=\"40\" sample=\"5\"/>\n"
	"  <colour value=\"#ffffff\" kind=\"none\"/>\n"
	"  <colour value=\"#40a040\" kind=\"land\"/>\n"
	"  <colour value=\"#c08040\" kind=\"town\"/>\n"
	"  <colour value=\"#2060c0\" kind=\"waves\"/>\n"
	"</legend>\n";

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Cells of pseudo-random kinds with a dark grid line, like a scanned map. */
static int generate(const char *path)
{
	FILE *f = fopen(path, "wb");
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	uint8_t *row = malloc((size_t)W * 3);
	uint8_t *kinds = malloc((W / CELL) * (H / CELL));
	if (!f || !png || !info || !row || !kinds || setjmp(png_jmpbuf(png)))
		return -1;
	uint32_t seed = 12345;
	for (int i = 0; i < (W / CELL) * (H / CELL); i++) {
		seed = seed * 1103515245u + 12345u;
		kinds[i] = (uint8_t)((seed >> 16) % 4);
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, W, H, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
	             PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			uint8_t *p = row + (size_t)x * 3;
			if (x % CELL == 0 || y % CELL == 0)
				memset(p, 0x20, 3);
			else
				memcpy(p, paints[kinds[(y / CELL) * (W / CELL) + x / CELL]], 3);
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

/* Reads every row into one image buffer and nothing else. */
static int plain_decode(const char *path)
{
	FILE *f = fopen(path, "rb");
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	uint8_t *img = malloc((size_t)W * H * 3);
	png_bytep *rows = malloc(H * sizeof *rows);
	if (!f || !png || !info || !img || !rows || setjmp(png_jmpbuf(png)))
		return -1;
	png_init_io(png, f);
	png_read_info(png, info);
	for (int y = 0; y < H; y++)
		rows[y] = img + (size_t)y * W * 3;
	png_read_image(png, rows);
	png_read_end(png, NULL);
	png_destroy_read_struct(&png, &info, NULL);
	fclose(f);
	free(rows);
	free(img);
	return 0;
}

int main(void)
{
	char path[] = "/tmp/cm_bench_import_XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || generate(path)) {
		fprintf(stderr, "bench_import: cannot write the test image\n");
		return 1;
	}
	close(fd);
	cm_diags *d;
	cm_legend *lg;
	if (cm_diags_new(&d) || cm_legend_load_memory(legend, sizeof legend - 1, "bench.xml", d, &lg)) {
		fprintf(stderr, "bench_import: legend does not load\n");
		return 1;
	}
	double best_plain = 1e9, best_import = 1e9;
	int rc = 0;
	for (int i = 0; i < RUNS && !rc; i++) {
		double t0 = now();
		rc |= plain_decode(path);
		double t1 = now();
		cm_map *m = NULL;
		rc |= cm_image_import(path, lg, d, &m);
		double t2 = now();
		if (m && (m->cols != W / CELL || m->rows != H / CELL))
			rc = 1;
		cm_map_free(m);
		if (t1 - t0 < best_plain)
			best_plain = t1 - t0;
		if (t2 - t1 < best_import)
			best_import = t2 - t1;
	}
	unlink(path);
	if (rc || cm_diags_count(d)) {
		fprintf(stderr, "bench_import: failed (%d, %zu diagnostics)\n", rc, cm_diags_count(d));
		return 1;
	}
	printf("image import %dx%d (%dx%d squares), best of %d:\n", W, H, W / CELL, H / CELL, RUNS);
	printf("  plain libpng decode   %7.1f ms\n", best_plain * 1e3);
	printf("  cm_image_import       %7.1f ms\n", best_import * 1e3);
	printf("  ratio                 %7.2f (target < 1.3)\n", best_import / best_plain);
	cm_legend_free(lg);
	cm_diags_free(d);
	return 0;
}
