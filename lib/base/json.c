/* SPDX-License-Identifier: MIT */
/* json.c: the streaming JSON writer (carcamap/json.h, json_int.h). Strings are escaped per
 * RFC 8259; bytes that are not valid UTF-8 are replaced by U+FFFD so the
 * output is always valid JSON whatever the input files held. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/json_int.h"

void cm_json_init(cm_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof *j);
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

cm_json *cm_json_new(FILE *f, bool pretty)
{
	cm_json *j = malloc(sizeof *j);
	if (j)
		cm_json_init(j, f, pretty);
	return j;
}

void cm_json_free(cm_json *j)
{
	free(j);
}

static void indent(cm_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator before a value (or key) at the current depth. */
static void pre_value(cm_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0)
		indent(j);
}

static void begin(cm_json *j, char c)
{
	pre_value(j);
	fputc(c, j->f);
	assert(j->depth + 1 < CM_JSON_MAX_DEPTH);
	j->depth++;
	j->first[j->depth] = true;
}

static void end(cm_json *j, char c)
{
	bool empty = j->first[j->depth];
	j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void cm_json_obj_begin(cm_json *j) { begin(j, '{'); }
void cm_json_obj_end(cm_json *j) { end(j, '}'); }
void cm_json_arr_begin(cm_json *j) { begin(j, '['); }
void cm_json_arr_end(cm_json *j) { end(j, ']'); }

void cm_json_key(cm_json *j, const char *k)
{
	pre_value(j);
	cm_json_write_string(j->f, k);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

/* Length of the valid UTF-8 sequence at s, or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) { n = 2; min = 0x80; }
	else if (c >= 0xE0 && c <= 0xEF) { n = 3; min = 0x800; }
	else if (c >= 0xF0 && c <= 0xF4) { n = 4; min = 0x10000; }
	else return 0;
	unsigned cp = c & (0x7F >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

void cm_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', f);
	while (*s) {
		unsigned c = *s;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc((int)c, f);
			s++;
		} else if (c == '\n') {
			fputs("\\n", f);
			s++;
		} else if (c == '\t') {
			fputs("\\t", f);
			s++;
		} else if (c == '\r') {
			fputs("\\r", f);
			s++;
		} else if (c < 0x20 || c == 0x7F) {
			fprintf(f, "\\u%04x", c);
			s++;
		} else {
			size_t n = utf8_len(s);
			if (n == 0) {
				fputs("\\ufffd", f);
				s++;
			} else {
				fwrite(s, 1, n, f);
				s += n;
			}
		}
	}
	fputc('"', f);
}

void cm_json_str(cm_json *j, const char *s)
{
	pre_value(j);
	if (s)
		cm_json_write_string(j->f, s);
	else
		fputs("null", j->f);
}

void cm_json_int(cm_json *j, long long v)
{
	pre_value(j);
	fprintf(j->f, "%lld", v);
}

void cm_json_num(cm_json *j, double v)
{
	pre_value(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.17g", v);
}

void cm_json_fixed(cm_json *j, double v, int decimals)
{
	pre_value(j);
	if (!isfinite(v)) {
		fputs("null", j->f);
		return;
	}
	char buf[64];
	int n = snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals > 9 ? 9 : decimals, v);
	if (n < 0 || (size_t)n >= sizeof buf) {
		fprintf(j->f, "%.17g", v);
		return;
	}
	if (strchr(buf, '.')) {
		while (n > 0 && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (n > 0 && buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	fputs(strcmp(buf, "-0") == 0 ? "0" : buf, j->f);
}

void cm_json_bool(cm_json *j, bool v)
{
	pre_value(j);
	fputs(v ? "true" : "false", j->f);
}

void cm_json_null(cm_json *j)
{
	pre_value(j);
	fputs("null", j->f);
}

int cm_json_finish(cm_json *j)
{
	assert(j->depth == 0);
	fputc('\n', j->f);
	return ferror(j->f) ? -1 : 0;
}
