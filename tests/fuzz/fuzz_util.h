/* SPDX-License-Identifier: MIT */
/* fuzz_util.h: what every libFuzzer harness shares: rendering the
 * diagnostics of a run in every format (the renderers see hostile text too),
 * writing fuzz input to a temporary file for the readers that take a path,
 * and stopping the process on a broken invariant so libFuzzer keeps the
 * input. Header-only: each harness is one translation unit. */
#ifndef CM_FUZZ_UTIL_H
#define CM_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "carcamap/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a finding: abort so that libFuzzer saves the input. */
#define FUZZ_REQUIRE(cond)                                                                  \
	do {                                                                                    \
		if (!(cond)) {                                                                      \
			fprintf(stderr, "fuzz: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
			abort();                                                                        \
		}                                                                                   \
	} while (0)

static inline FILE *fuzz_null(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	FUZZ_REQUIRE(f != NULL);
	return f;
}

/* Every diagnostic in every format; a failing reader must still have said
 * why (rc != 0 implies at least one diagnostic, ENOMEM aside). */
static inline void fuzz_diags(cm_diags *d, int rc)
{
	if (rc != 0 && rc != CM_ENOMEM)
		FUZZ_REQUIRE(cm_diags_count(d) > 0);
	cm_diags_sort(d);
	FILE *f = fuzz_null();
	cm_diags_write_text(d, f);
	cm_diags_write_json(d, f);
	cm_diags_write_sarif(d, f);
	char sum[128];
	cm_diags_summary(d, sum, sizeof sum);
}

/* The input as a file for readers that take a path: a fixed name per
 * process (libFuzzer runs inputs one at a time), rewritten each run.
 * Returns the path (static storage) or NULL. */
static inline const char *fuzz_write_temp(const uint8_t *data, size_t size, const char *suffix)
{
	static char path[256];
	const char *dir = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/cm-fuzz-%ld%s", dir && *dir ? dir : "/tmp", (long)getpid(), suffix);
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	size_t n = size ? fwrite(data, 1, size, f) : 0;
	if (fclose(f) != 0 || n != size) {
		remove(path);
		return NULL;
	}
	return path;
}

#endif
