/* SPDX-License-Identifier: MIT */
/* fuzz_legend.c: libFuzzer harness for the legend reader
 * (cm_legend_load_memory): any bytes end in a legend or diagnostics. */
#include "carcamap/image.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return 0;
	cm_diags_set_source(d, "fuzz-legend.xml", buf, size);
	cm_legend *lg = NULL;
	int rc = cm_legend_load_memory(buf, size, "fuzz-legend.xml", d, &lg);
	FUZZ_REQUIRE((rc == 0) == (lg != NULL));
	if (lg)
		FUZZ_REQUIRE(cm_diags_errors(d) == 0);
	cm_legend_free(lg);
	fuzz_diags(d, rc);
	cm_diags_free(d);
	return 0;
}
