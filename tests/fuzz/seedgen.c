/* SPDX-License-Identifier: MIT */
/* seedgen.c: writes seed inputs for the fuzzers that take files built by
 * carcamap itself: seedgen OUTDIR MAP.xml... loads the bundled tile sets and
 * each map descriptor, and writes OUTDIR/pack/all.pack (every map that
 * loads, with the sets), OUTDIR/pack/set-ID.pack (one tile set each) and
 * OUTDIR/cmap/NAME.cmap (each map's binary
 * export). Built with the normal library (not the fuzz tree); run by
 * tests/fuzz/run.sh. Exits non-zero when nothing could be written. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "carcamap/export.h"
#include "carcamap/map.h"
#include "carcamap/pack.h"
#include "carcamap/tileset.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: seedgen OUTDIR MAP.xml...\n");
		return 2;
	}
	char path[4096];
	cm_tileset *sets[16];
	cm_map *maps[64];
	size_t n_sets = 0, n_maps = 0, written = 0;
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return 3;
	glob_t g;
	if (glob("maps/tilesets/*.xml", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && n_sets < 16; i++)
			if (cm_tileset_load_file(g.gl_pathv[i], d, &sets[n_sets]) == 0)
				n_sets++;
		globfree(&g);
	}
	snprintf(path, sizeof path, "%s/cmap", argv[1]);
	mkdir(argv[1], 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/pack", argv[1]);
	mkdir(path, 0755);
	for (int i = 2; i < argc && n_maps < 64; i++) {
		cm_map *m = NULL;
		if (cm_map_load(argv[i], NULL, d, &m) != 0)
			continue;
		unsigned char *bin = NULL;
		size_t len = 0;
		/* both major versions of the format: the reader reads both */
		bool ok = false;
		cm_export_opts o;
		cm_export_opts_init(&o);
		o.sets = (const cm_tileset *const *)sets;
		o.n_sets = n_sets;
		for (o.bin_major = 1; o.bin_major <= 2; o.bin_major++) {
			if (cm_export_bin_mem(m, &o, &bin, &len) != 0)
				break;
			const char *base = strrchr(argv[i], '/');
			snprintf(path, sizeof path, "%s/cmap/%s-%u.cmap", argv[1], base ? base + 1 : argv[i], o.bin_major);
			FILE *f = fopen(path, "wb");
			if (f && fwrite(bin, 1, len, f) == len && fclose(f) == 0)
				written++;
			else if (f)
				fclose(f);
			free(bin);
			bin = NULL;
			ok = true;
		}
		if (ok)
			maps[n_maps++] = m;
		else
			cm_map_free(m);
	}
	snprintf(path, sizeof path, "%s/pack/all.pack", argv[1]);
	if (cm_pack_write(path, (const cm_map *const *)maps, n_maps, (const cm_tileset *const *)sets, n_sets, d) == 0)
		written++;
	else
		cm_diags_write_text(d, stderr);
	/* small packs too: one tile set each, no map */
	for (size_t i = 0; i < n_sets; i++) {
		snprintf(path, sizeof path, "%s/pack/set-%s.pack", argv[1], sets[i]->id);
		if (cm_pack_write(path, NULL, 0, (const cm_tileset *const *)&sets[i], 1, d) == 0)
			written++;
	}
	for (size_t i = 0; i < n_maps; i++)
		cm_map_free(maps[i]);
	for (size_t i = 0; i < n_sets; i++)
		cm_tileset_free(sets[i]);
	cm_diags_free(d);
	printf("seedgen: %zu files in %s\n", written, argv[1]);
	return written ? 0 : 1;
}
