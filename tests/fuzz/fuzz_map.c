/* SPDX-License-Identifier: MIT */
/* fuzz_map.c: libFuzzer harness for the map descriptor reader
 * (cm_map_load_memory). Any bytes end in a model or diagnostics. A model
 * that loads is checked against the bundled tile sets, must survive the
 * canonical writer with an equal model read back (map.h promises it), and
 * its binary export must open in the client reader (lib/reader/cmap.c). The
 * descriptor's base is a directory that does not exist, so <combine> and
 * <image> paths reach no fixture. */
#include <glob.h>
#include "carcamap/export.h"
#include "carcamap/map.h"
#include "carcamap/tileset.h"
#include "fuzz_util.h"
#include "../../lib/reader/cmap.c"
#include "fuzz_cmap_walk.h"

#define BASE "/nonexistent-carcamap-fuzz/map.xml"

static cm_tileset *sets[16];
static size_t n_sets;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	glob_t g;
	if (glob("maps/tilesets/*.xml", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && n_sets < 16; i++) {
			cm_diags *d = NULL;
			if (cm_diags_new(&d) == 0 && cm_tileset_load_file(g.gl_pathv[i], d, &sets[n_sets]) == 0)
				n_sets++;
			cm_diags_free(d);
		}
		globfree(&g);
	}
	return 0;
}

static void round_trip(const cm_map *m)
{
	char *xml = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&xml, &len);
	FUZZ_REQUIRE(f != NULL);
	FUZZ_REQUIRE(cm_map_write_xml(m, f) == 0);
	FUZZ_REQUIRE(fclose(f) == 0);
	cm_diags *d = NULL;
	cm_map *back = NULL;
	if (cm_diags_new(&d) == 0) {
		int rc = cm_map_load_memory(xml, len, BASE, d, &back);
		if (rc != 0 && rc != CM_ENOMEM) {
			cm_diags_write_text(d, stderr);
			FUZZ_REQUIRE(rc == 0);
		}
		if (back)
			FUZZ_REQUIRE(cm_map_equal(m, back));
		cm_map_free(back);
		cm_diags_free(d);
	}
	free(xml);
}

static void export_bin(const cm_map *m)
{
	unsigned char *bin = NULL;
	size_t len = 0;
	cm_export_opts o;
	cm_export_opts_init(&o);
	o.sets = (const cm_tileset *const *)sets;
	o.n_sets = n_sets;
	int rc = cm_export_bin_mem(m, &o, &bin, &len);
	if (rc == 0) {
		cmap_map *cm = NULL;
		int orc = cmap_open(bin, len, &cm);
		if (orc)
			fprintf(stderr, "fuzz: cmap_open of an export: %s\n", cmap_strerror(orc));
		FUZZ_REQUIRE(orc == 0);
		cmap_walk(cm);
		cmap_close(cm);
	}
	free(bin);
	cm_export_json(m, &o, fuzz_null(), NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return 0;
	cm_diags_set_source(d, BASE, buf, size);
	cm_map *m = NULL;
	int rc = cm_map_load_memory(buf, size, BASE, d, &m);
	FUZZ_REQUIRE((rc == 0) == (m != NULL));
	if (m) {
		FUZZ_REQUIRE(cm_diags_errors(d) == 0);
		(void)cm_map_check(m, (const cm_tileset *const *)sets, n_sets, d);
		round_trip(m);
		if (cm_diags_errors(d) == 0)
			export_bin(m);
		cm_map_free(m);
	}
	fuzz_diags(d, rc);
	cm_diags_free(d);
	return 0;
}
