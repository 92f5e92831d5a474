/* SPDX-License-Identifier: MIT */
/* bench_sheet.c: tile sheets (cm_render_tile_sheet): the time to draw and
 * write one sheet of every bundled tile set (the XML files of maps/tilesets) as SVG
 * and as HTML (the target: under 100 ms), and the cost per tile of sheets
 * of 1, 4 and 16 times those tiles in one set (linear: the per-tile figure
 * stays flat). Loading is not timed. CPU time of this process, best of 5
 * runs, written to /dev/null. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "carcamap/carcamap.h"

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of 5: seconds per sheet of the n sets in format f. */
static double time_sheet(const cm_tileset *const *sets, size_t n, cm_render_format f)
{
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = f;
	double best = 1e9;
	for (int k = 0; k < 5; k++) {
		cm_diags *d = NULL;
		if (cm_diags_new(&d))
			exit(1);
		double t0 = cpu_s();
		if (cm_render_tile_sheet(sets, n, &o, "/dev/null", d) != 0) {
			cm_diags_write_text(d, stderr);
			exit(1);
		}
		double t = cpu_s() - t0;
		best = t < best ? t : best;
		cm_diags_free(d);
	}
	return best;
}

/* One set holding k copies of every tile of the n sets (ids made unique). */
static cm_tileset *copies(cm_tileset *const *sets, size_t n, int k, char ***ids, size_t *n_ids)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += sets[i]->n_tiles;
	cm_tileset *big = calloc(1, sizeof *big);
	if (!big || !(big->tiles = calloc(total * (size_t)k, sizeof *big->tiles)) ||
	    !(*ids = calloc(total * (size_t)k, sizeof **ids)))
		exit(1);
	big->id = "copies";
	big->name = "every bundled tile, several times";
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		big->total[e] = -1;
	for (int c = 0; c < k; c++)
		for (size_t i = 0; i < n; i++)
			for (size_t t = 0; t < sets[i]->n_tiles; t++) {
				cm_tile_type *tt = &big->tiles[big->n_tiles++];
				*tt = sets[i]->tiles[t]; /* shallow: the features are borrowed */
				char *id = malloc(96);
				if (!id)
					exit(1);
				snprintf(id, 96, "%s-%s-%d", sets[i]->id, sets[i]->tiles[t].id, c);
				tt->id = id;
				(*ids)[(*n_ids)++] = id;
			}
	return big;
}

int main(void)
{
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return 1;
	DIR *dir = opendir("maps/tilesets");
	if (!dir)
		return 1;
	cm_tileset *sets[64];
	size_t n = 0, tiles = 0;
	char *names[64];
	size_t nn = 0;
	for (struct dirent *e; (e = readdir(dir)) != NULL && nn < 64;) {
		size_t l = strlen(e->d_name);
		if (l > 4 && strcmp(e->d_name + l - 4, ".xml") == 0)
			names[nn++] = strdup(e->d_name);
	}
	closedir(dir);
	for (size_t i = 0; i < nn; i++) {
		char path[512];
		snprintf(path, sizeof path, "maps/tilesets/%s", names[i]);
		free(names[i]);
		if (cm_tileset_load_file(path, d, &sets[n]) == 0)
			tiles += sets[n++]->n_tiles;
	}
	if (!n || cm_diags_errors(d)) {
		cm_diags_write_text(d, stderr);
		fprintf(stderr, "bench_sheet: the bundled tile sets did not load\n");
		return 1;
	}
	const cm_tileset *const *cs = (const cm_tileset *const *)sets;
	double svg = time_sheet(cs, n, CM_RENDER_SVG), html = time_sheet(cs, n, CM_RENDER_HTML);
	printf("tile sheet of the %zu bundled sets (%zu tile types): svg %.2f ms, html %.2f ms (target: under 100 ms)\n",
	       n, tiles, svg * 1e3, html * 1e3);
	double per1 = 0;
	static const int ks[] = { 1, 4, 16 };
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
		char **ids = NULL;
		size_t n_ids = 0;
		cm_tileset *big = copies(sets, n, ks[i], &ids, &n_ids);
		const cm_tileset *one[1] = { big };
		double t = time_sheet(one, 1, CM_RENDER_HTML);
		double per = t / (double)big->n_tiles;
		if (ks[i] == 1)
			per1 = per;
		printf("  html sheet of %5zu tiles: %8.2f ms, %.2f us per tile (x%.2f of the 1-copy figure)\n",
		       big->n_tiles, t * 1e3, per * 1e6, per / per1);
		for (size_t k = 0; k < n_ids; k++)
			free(ids[k]);
		free(ids);
		free(big->tiles);
		free(big);
	}
	for (size_t i = 0; i < n; i++)
		cm_tileset_free(sets[i]);
	cm_diags_free(d);
	return 0;
}
