/* SPDX-License-Identifier: MIT */
/* json_int.h: the library's side of the JSON writer (carcamap/json.h): its
 * structure, so the modules that emit JSON (diagnostics, exports, reports)
 * keep a writer on the stack (cm_json_init) instead of allocating one, and
 * the bare string writer. Nesting is checked by an assert only. */
#ifndef CM_JSON_INT_H
#define CM_JSON_INT_H

#include <stdbool.h>
#include <stdio.h>
#include "carcamap/json.h"

struct cm_json {
	FILE *f;
	int depth;
	bool first[CM_JSON_MAX_DEPTH];
	bool after_key;
	bool pretty;
};

/* A writer on the caller's storage (what cm_json_new allocates). */
void cm_json_init(cm_json *j, FILE *f, bool pretty);
/* Writes s as a JSON string literal (quotes included) to f. */
void cm_json_write_string(FILE *f, const char *s);

#endif
