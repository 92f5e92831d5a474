/* SPDX-License-Identifier: MIT */
/* bench_render.c: the picture PNG of a 1000x1000 map at --scale 10 (issue
 * 33's performance row: 4.6 s and 422 MB when the whole image was held and
 * libpng tried every filter at level 6). The command's CPU time and peak
 * memory (median of RUNS, run directly, no shell), beside the reference
 * measured in the same run: the same picture's rows re-encoded by libpng
 * with those old settings (every filter, level 6), in-process, its decode
 * subtracted. Goals: the whole render (drawing included) within the old
 * settings' encoding alone, and under 100 MB. */
#include <fcntl.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench_util.h"
#include "genmap.h"

#define RUNS 3
#define GOAL_RATIO 1.0
#define GOAL_MB 100.0

static char dir[] = "/tmp/cm-bench-render-XXXXXX";

/* CPU seconds and peak resident MB of one run of argv. */
static double run_child(char *const *argv, double *mb)
{
	double t = bench_run(argv, mb);
	if (t < 0) {
		fprintf(stderr, "bench_render: %s failed\n", argv[0]);
		exit(1);
	}
	return t;
}

/* Reads in row by row and, when out is set, writes each row to out with
 * every filter at level 6: CPU seconds. */
static double recode(const char *in, const char *out)
{
	FILE *f = fopen(in, "rb"), *g = out ? fopen(out, "wb") : NULL;
	png_structp rp = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop ri = rp ? png_create_info_struct(rp) : NULL;
	png_structp wp = out ? png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL) : NULL;
	png_infop wi = wp ? png_create_info_struct(wp) : NULL;
	png_bytep row = NULL;
	if (!f || (out && (!g || !wi)) || !ri || setjmp(png_jmpbuf(rp)) || (wp && setjmp(png_jmpbuf(wp)))) {
		fprintf(stderr, "bench_render: cannot recode %s\n", in);
		exit(1);
	}
	double t0 = bench_cpu_s();
	png_init_io(rp, f);
	png_read_info(rp, ri);
	png_uint_32 w = png_get_image_width(rp, ri), h = png_get_image_height(rp, ri);
	row = malloc(png_get_rowbytes(rp, ri));
	if (wp) {
		png_init_io(wp, g);
		png_set_IHDR(wp, wi, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		             PNG_FILTER_TYPE_DEFAULT);
		png_set_compression_level(wp, 6);
		png_set_filter(wp, PNG_FILTER_TYPE_BASE, PNG_ALL_FILTERS);
		png_write_info(wp, wi);
	}
	for (png_uint_32 y = 0; y < h; y++) {
		png_read_row(rp, row, NULL);
		if (wp)
			png_write_row(wp, row);
	}
	if (wp)
		png_write_end(wp, NULL);
	double t = bench_cpu_s() - t0;
	free(row);
	png_destroy_read_struct(&rp, &ri, NULL);
	if (wp)
		png_destroy_write_struct(&wp, &wi);
	fclose(f);
	if (g)
		fclose(g);
	return t;
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : "build/carcamap";
	if (!mkdtemp(dir))
		return 1;
	char map[256], png[256], ref[256];
	snprintf(map, sizeof map, "%s/m.xml", dir);
	snprintf(png, sizeof png, "%s/m.png", dir);
	snprintf(ref, sizeof ref, "%s/ref.png", dir);
	FILE *f = fopen(map, "w");
	if (!f || cm_genmap(f, "corner 1000 tl") || fclose(f))
		return 1;
	char *args[] = { (char *)bin, "render", "-T", "maps/tilesets", "--scale", "10", map, "-o", png, NULL };
	double t[RUNS], mb[RUNS], e[RUNS], dcd[RUNS];
	for (int i = 0; i < RUNS; i++)
		t[i] = run_child(args, &mb[i]);
	for (int i = 0; i < RUNS; i++) {
		dcd[i] = recode(png, NULL);
		e[i] = recode(png, ref) - dcd[i];
	}
	double tr = bench_median(t, RUNS), m = bench_median(mb, RUNS), te = bench_median(e, RUNS);
	double ratio = tr / te;
	printf("bench_render: CPU seconds (user+system), median of %d\n", RUNS);
	printf("  render --scale 10 of corner 1000 tl (picture PNG, drawn and written in bands): %.3f s, %.0f MB peak\n",
	       tr, m);
	printf("  reference: its rows re-encoded with every filter at level 6 (the old settings), decode "
	       "subtracted: %.3f s\n",
	       te);
	printf("goals: render %.3f / old encoding %.3f = %.2fx (goal <= %.1f: %s) | peak %.0f MB (goal <= %.0f: %s)\n",
	       tr, te, ratio, GOAL_RATIO, ratio <= GOAL_RATIO ? "met" : "NOT MET", m, GOAL_MB,
	       m <= GOAL_MB ? "met" : "NOT MET");
	unlink(map);
	unlink(png);
	unlink(ref);
	rmdir(dir);
	return 0;
}
