/* SPDX-License-Identifier: MIT */
/* fuzz_image.c: libFuzzer harness for PNG import (cm_image_import): any
 * bytes, written to a file, end in a map or diagnostics, with the built-in
 * legend and with a fixture legend (a grid of several pixels per cell), and
 * within the image limits (dimensions, memory, chunk sizes). */
#include "carcamap/image.h"
#include "carcamap/map.h"
#include "fuzz_util.h"

static cm_legend *legends[2];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	cm_diags *d = NULL;
	FUZZ_REQUIRE(cm_diags_new(&d) == 0);
	FUZZ_REQUIRE(cm_legend_default(&legends[0]) == 0);
	if (cm_legend_load_file("tests/fixtures/image/colour.xml", d, &legends[1]) != 0)
		legends[1] = NULL; /* run from elsewhere: the built-in legend only */
	cm_diags_free(d);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write_temp(data, size, ".png");
	if (!path)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (!legends[i])
			continue;
		cm_diags *d = NULL;
		if (cm_diags_new(&d))
			break;
		cm_map_builder *b = NULL;
		cm_map *m = NULL;
		int rc = cm_image_import(path, legends[i], d, &b);
		FUZZ_REQUIRE((rc == 0) == (b != NULL));
		/* what import does next: an id, the default prints, the one check */
		if (b && cm_map_builder_set_id(b, "fuzz") == 0) {
			cm_map_builder_default_prints(b);
			FUZZ_REQUIRE(cm_map_builder_finish(b, NULL, NULL, NULL, &m) != CM_EINVAL || !m);
			b = NULL;
		}
		cm_map_builder_free(b);
		if (m)
			cm_map_write_xml(m, fuzz_null());
		cm_map_free(m);
		fuzz_diags(d, rc);
		cm_diags_free(d);
	}
	remove(path);
	return 0;
}
