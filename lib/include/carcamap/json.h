/* SPDX-License-Identifier: MIT */
/* carcamap/json.h: the streaming JSON writer behind every JSON output of
 * the library (diagnostics, exports, reports), for a client that writes
 * its own JSON in the same style: compact or indented by two spaces,
 * commas placed by the writer, strings escaped per RFC 8259 (bytes that
 * are not UTF-8 written as \ufffd), so the output is always valid JSON.
 * Threads: a writer belongs to one thread at a time. */
#ifndef CARCAMAP_JSON_H
#define CARCAMAP_JSON_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Objects and arrays nest at most this deep; deeper is a bug in the
 * caller (asserted), as is an end without its begin. */
#define CM_JSON_MAX_DEPTH 64

typedef struct cm_json cm_json;

/* A writer to f (borrowed: never closed), indented when pretty. NULL when
 * out of memory. Free it with cm_json_free after cm_json_finish. The
 * writer buffers its output: bytes reach f when each top-level value ends,
 * at cm_json_finish and at cm_json_free (an unfinished document is written
 * as far as it went), so write nothing else to f in between. */
cm_json *cm_json_new(FILE *f, bool pretty);
void cm_json_free(cm_json *j); /* NULL is fine */

void cm_json_obj_begin(cm_json *j);
void cm_json_obj_end(cm_json *j);
void cm_json_arr_begin(cm_json *j);
void cm_json_arr_end(cm_json *j);
/* A member's name inside an object; its value follows. */
void cm_json_key(cm_json *j, const char *k);
void cm_json_str(cm_json *j, const char *s); /* NULL writes null */
void cm_json_int(cm_json *j, long long v);
void cm_json_num(cm_json *j, double v);      /* %.17g; not finite writes null */
/* v rounded to decimals (0..9) places, trailing zeros dropped ("17.35",
 * "18"): for means in reports, where %.17g would show binary noise. */
void cm_json_fixed(cm_json *j, double v, int decimals);
void cm_json_bool(cm_json *j, bool v);
void cm_json_null(cm_json *j);
/* A key and its value in one call, for reports with many members. */
static inline void cm_json_kv_int(cm_json *j, const char *k, long long v)
{
	cm_json_key(j, k);
	cm_json_int(j, v);
}
static inline void cm_json_kv_str(cm_json *j, const char *k, const char *v)
{
	cm_json_key(j, k);
	cm_json_str(j, v);
}
static inline void cm_json_kv_bool(cm_json *j, const char *k, bool v)
{
	cm_json_key(j, k);
	cm_json_bool(j, v);
}
static inline void cm_json_kv_fixed(cm_json *j, const char *k, double v, int decimals)
{
	cm_json_key(j, k);
	cm_json_fixed(j, v, decimals);
}
/* Ends the document with a newline; 0, or -1 when writing to the stream
 * failed at any point (ferror). */
int cm_json_finish(cm_json *j);

#ifdef __cplusplus
}
#endif
#endif
