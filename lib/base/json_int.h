/* SPDX-License-Identifier: MIT */
/* json_int.h: the library's side of the JSON writer (carcamap/json.h): its
 * structure, so the modules that emit JSON (diagnostics, exports, reports)
 * keep a writer on the stack (cm_json_init) instead of allocating one.
 * Nesting is checked by an assert only. The writer buffers: its bytes reach
 * the FILE when the buffer fills, when a top-level value ends, and at
 * cm_json_finish or cm_json_free, so nothing else writes to that FILE in
 * between. */
#ifndef CM_JSON_INT_H
#define CM_JSON_INT_H

#include <stdbool.h>
#include <stdio.h>
#include "carcamap/json.h"

/* Bytes held before they go to the FILE in one fwrite (the buffer is
 * allocated by cm_json_init; when that fails the writer works on the small
 * one inside the structure, slower but with the same output). Both exceed
 * the deepest indentation (2 * CM_JSON_MAX_DEPTH + 1) and the 32 bytes an
 * indentation store may cover. */
#define CM_JSON_BUF 65536
#define CM_JSON_SMALL 256

struct cm_json {
	FILE *f;
	char *buf;  /* output not yet handed to f: the heap block or small */
	size_t len; /* bytes in buf */
	size_t cap; /* CM_JSON_BUF or CM_JSON_SMALL */
	int depth;
	bool first[CM_JSON_MAX_DEPTH + 1]; /* per open level, and the top */
	bool after_key;
	bool pretty;
	char small[CM_JSON_SMALL];
};

/* A writer on the caller's storage (what cm_json_new allocates). Its
 * buffer is released by cm_json_finish, which every such writer must
 * reach. */
void cm_json_init(cm_json *j, FILE *f, bool pretty);

#endif
