/* SPDX-License-Identifier: MIT */
/* fuzz_tmx.c: libFuzzer harness for the Tiled reader (cm_tmx_load_memory).
 * Any bytes end in a model or diagnostics. A model that loads is exported
 * as TMX again (to a temporary directory) and must read back equal: the
 * reader and the export agree on everything a map holds. */
#include <stdlib.h>
#include <unistd.h>
#include "carcamap/export.h"
#include "carcamap/map.h"
#include "carcamap/tmx.h"
#include "fuzz_util.h"

#define BASE "/nonexistent-carcamap-fuzz/map.tmx"

static char dir[] = "/tmp/carcamap-fuzz-tmx-XXXXXX";
static char out[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	snprintf(out, sizeof out, "%s/x.tmx", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return 0;
	cm_diags_set_source(d, BASE, buf, size);
	cm_map *m = NULL;
	int rc = cm_tmx_load_memory(buf, size, BASE, d, &m);
	FUZZ_REQUIRE((rc == 0) == (m != NULL));
	if (m) {
		FUZZ_REQUIRE(cm_diags_errors(d) == 0);
		FILE *f = fopen(out, "wb");
		FUZZ_REQUIRE(f != NULL);
		int erc = cm_export_tmx(m, NULL, f, d);
		FUZZ_REQUIRE(fclose(f) == 0);
		if (erc == 0) {
			cm_map *back = NULL;
			int brc = cm_tmx_load_file(out, d, &back);
			if (brc != 0 && brc != CM_ENOMEM) {
				cm_diags_write_text(d, stderr);
				FUZZ_REQUIRE(brc == 0);
			}
			if (back)
				FUZZ_REQUIRE(cm_map_equal(m, back));
			cm_map_free(back);
			unlink(out);
		}
		cm_map_free(m);
	}
	fuzz_diags(d, rc);
	cm_diags_free(d);
	return 0;
}
