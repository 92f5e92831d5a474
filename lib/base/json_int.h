/* SPDX-License-Identifier: MIT */
/* json_int.h: a tiny streaming JSON writer shared by the modules that emit
 * JSON (diagnostics, exports, reports). It writes compact or indented JSON
 * and tracks commas itself; it does not validate nesting beyond an assert. */
#ifndef CM_JSON_INT_H
#define CM_JSON_INT_H

#include <stdbool.h>
#include <stdio.h>

#define CM_JSON_MAX_DEPTH 64

typedef struct {
	FILE *f;
	int depth;
	bool first[CM_JSON_MAX_DEPTH];
	bool after_key;
	bool pretty;
} cm_json;

void cm_json_init(cm_json *j, FILE *f, bool pretty);
void cm_json_obj_begin(cm_json *j);
void cm_json_obj_end(cm_json *j);
void cm_json_arr_begin(cm_json *j);
void cm_json_arr_end(cm_json *j);
void cm_json_key(cm_json *j, const char *k);
void cm_json_str(cm_json *j, const char *s); /* NULL writes null */
void cm_json_int(cm_json *j, long long v);
void cm_json_num(cm_json *j, double v);      /* %.17g, finite only */
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
/* Finishes with a newline; returns 0 or -1 when the stream had an error. */
int cm_json_finish(cm_json *j);
/* Writes s as a JSON string literal (quotes included) to f. */
void cm_json_write_string(FILE *f, const char *s);

#endif
