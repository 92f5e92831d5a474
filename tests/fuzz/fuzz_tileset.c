/* SPDX-License-Identifier: MIT */
/* fuzz_tileset.c: libFuzzer harness for the tile set reader
 * (cm_tileset_load_memory): any bytes must end in a model or diagnostics,
 * never a crash, leak or hang. A model that loads must survive its own
 * writers, and what the XML writer writes must load back, with its
 * features' slots listed and as pictures (the grid form). Root sniffing
 * (cm_xml_root_name) and source quoting see the same bytes. */
#include "carcamap/tileset.h"
#include "fuzz_util.h"
#include "io/xml_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	char root[64];
	(void)cm_xml_root_name(buf, size, root, sizeof root);

	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return 0;
	cm_diags_set_source(d, "fuzz.xml", buf, size);
	cm_tileset *ts = NULL;
	int rc = cm_tileset_load_memory(buf, size, "fuzz.xml", d, &ts);
	FUZZ_REQUIRE((rc == 0) == (ts != NULL));
	fuzz_diags(d, rc);
	if (ts) {
		FUZZ_REQUIRE(cm_diags_errors(d) == 0);
		cm_tileset_write_json(ts, fuzz_null());
		char *xml = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&xml, &len);
		FUZZ_REQUIRE(m != NULL);
		FUZZ_REQUIRE(cm_tileset_write_xml(ts, m) == 0);
		FUZZ_REQUIRE(fclose(m) == 0);
		/* the writer's output is a valid tile set again, in both forms */
		for (int form = CM_TILE_FORM_SLOTS; form <= CM_TILE_FORM_GRID; form++) {
			if (form == CM_TILE_FORM_GRID) {
				free(xml);
				xml = NULL;
				m = open_memstream(&xml, &len);
				FUZZ_REQUIRE(m != NULL);
				int wrc = cm_tileset_write_xml_form(ts, CM_TILE_FORM_GRID, m, NULL);
				FUZZ_REQUIRE(fclose(m) == 0);
				if (wrc == CM_ENOMEM)
					break;
				FUZZ_REQUIRE(wrc == 0);
			}
			cm_diags *d2 = NULL;
			cm_tileset *back = NULL;
			if (cm_diags_new(&d2) == 0) {
				int rc2 = cm_tileset_load_memory(xml, len, "fuzz-rewritten.xml", d2, &back);
				if (rc2 != 0 && rc2 != CM_ENOMEM) {
					cm_diags_write_text(d2, stderr);
					FUZZ_REQUIRE(rc2 == 0);
				}
				cm_tileset_free(back);
				cm_diags_free(d2);
			}
		}
		free(xml);
		cm_tileset_free(ts);
	}
	cm_diags_free(d);
	return 0;
}
