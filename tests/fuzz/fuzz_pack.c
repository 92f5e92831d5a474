/* SPDX-License-Identifier: MIT */
/* fuzz_pack.c: libFuzzer harness for the pack reader: any bytes, written to
 * a .pack file, are opened (cm_pack_open), and every map and tile set it
 * lists is read, verified against its hash, and its stored client binary
 * opened in the client reader. Each step ends in a model or diagnostics. */
#include "carcamap/export.h"
#include "carcamap/pack.h"
#include "fuzz_util.h"
#include "../../lib/reader/cmap.c"
#include "fuzz_cmap_walk.h"

static void read_all(cm_pack *p, cm_diags *d)
{
	for (size_t i = 0; i < cm_pack_tileset_count(p); i++) {
		cm_tileset *ts = NULL;
		int rc = cm_pack_read_tileset(p, cm_pack_tileset_id(p, i), d, &ts);
		FUZZ_REQUIRE((rc == 0) == (ts != NULL));
		cm_tileset_free(ts);
	}
	for (size_t i = 0; i < cm_pack_map_count(p); i++) {
		const char *id = cm_pack_map_id(p, i);
		cm_map *m = NULL;
		int rc = cm_pack_read_map(p, id, d, &m);
		FUZZ_REQUIRE((rc == 0) == (m != NULL));
		if (m)
			cm_map_write_xml(m, fuzz_null());
		cm_map_free(m);
		(void)cm_pack_verify_map(p, id, d);
		uint8_t hash[32];
		(void)cm_pack_map_hash(p, id, hash);
		for (int major = 1; major <= CM_EXPORT_BIN_MAJOR; major++) {
			uint8_t *bin = NULL;
			size_t len = 0;
			if (cm_pack_map_binary(p, id, major, &bin, &len) == 0) {
				cmap_map *cm = NULL;
				if (cmap_open(bin, len, &cm) == 0)
					cmap_walk(cm);
				cmap_close(cm);
			}
			free(bin);
		}
	}
	FUZZ_REQUIRE(cm_pack_map_id(p, cm_pack_map_count(p)) == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write_temp(data, size, ".pack");
	if (!path)
		return 0;
	cm_diags *d = NULL;
	if (cm_diags_new(&d) == 0) {
		cm_pack *p = NULL;
		int rc = cm_pack_open(path, d, &p);
		FUZZ_REQUIRE((rc == 0) == (p != NULL));
		if (p)
			read_all(p, d);
		cm_pack_close(p);
		fuzz_diags(d, rc);
		cm_diags_free(d);
	}
	remove(path);
	return 0;
}
