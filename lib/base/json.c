/* SPDX-License-Identifier: MIT */
/* json.c: the streaming JSON writer (carcamap/json.h, json_int.h). Strings are escaped per
 * RFC 8259; bytes that are not valid UTF-8 are replaced by U+FFFD so the
 * output is always valid JSON whatever the input files held. Output is
 * gathered in the writer's buffer and handed to the FILE in large blocks:
 * a value costs a few stores, not a stdio call per byte. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/json_int.h"

void cm_json_init(cm_json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->buf = malloc(CM_JSON_BUF);
	j->cap = CM_JSON_BUF;
	if (!j->buf) { /* still correct, only slower */
		j->buf = j->small;
		j->cap = sizeof j->small;
	}
	j->len = 0;
	j->depth = 0;
	memset(j->first, 0, sizeof j->first);
	j->first[0] = true;
	j->after_key = false;
	j->pretty = pretty;
}

cm_json *cm_json_new(FILE *f, bool pretty)
{
	cm_json *j = malloc(sizeof *j);
	if (j)
		cm_json_init(j, f, pretty);
	return j;
}

/* Hands the buffered bytes to the FILE (errors surface through ferror). */
static void flush(cm_json *j)
{
	if (j->len)
		fwrite(j->buf, 1, j->len, j->f);
	j->len = 0;
}

/* Flushes and gives the heap buffer back; the writer can go on in small. */
static void release(cm_json *j)
{
	flush(j);
	if (j->buf != j->small)
		free(j->buf);
	j->buf = j->small;
	j->cap = sizeof j->small;
}

void cm_json_free(cm_json *j)
{
	if (!j)
		return;
	release(j); /* an unfinished document still gets what was written */
	free(j);
}

/* Room for n more bytes (n <= CM_JSON_SMALL, so it fits after a flush). */
static inline char *room(cm_json *j, size_t n)
{
	if (j->cap - j->len < n)
		flush(j);
	return j->buf + j->len;
}

/* put's way when s does not fit what is left of the buffer. */
static void put_long(cm_json *j, const char *s, size_t n)
{
	flush(j);
	if (n > j->cap) {
		fwrite(s, 1, n, j->f);
		return;
	}
	memcpy(j->buf, s, n);
	j->len = n;
}

static inline void put(cm_json *j, const char *s, size_t n)
{
	if (n > j->cap - j->len) {
		put_long(j, s, n);
		return;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

static inline void putch(cm_json *j, char c)
{
	*room(j, 1) = c;
	j->len++;
}

static inline void indent(cm_json *j)
{
	/* a newline and two spaces a level; depth <= CM_JSON_MAX_DEPTH */
	static const char nl[] = "\n"
		"                                                                "
		"                                                                ";
	_Static_assert(sizeof nl == 2 * CM_JSON_MAX_DEPTH + 2, "one newline, two spaces a level");
	size_t n = 1 + 2 * (size_t)j->depth;
	if (n <= 32) /* the usual depth: one fixed-size store, the excess overwritten later */
		memcpy(room(j, 32), nl, 32);
	else
		memcpy(room(j, n), nl, n);
	j->len += n;
}

/* Separator before a value (or key) at the current depth. */
static inline void pre_value(cm_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		putch(j, ',');
	j->first[j->depth] = false;
	if (j->depth > 0 && j->pretty)
		indent(j);
}

/* After a value: a complete top-level value goes out at once, so a client
 * sees each document whole on its FILE without waiting for cm_json_finish. */
static inline void post_value(cm_json *j)
{
	if (j->depth == 0)
		flush(j);
}

static void begin(cm_json *j, char c)
{
	pre_value(j);
	putch(j, c);
	assert(j->depth < CM_JSON_MAX_DEPTH);
	j->depth++;
	j->first[j->depth] = true;
}

static void end(cm_json *j, char c)
{
	bool empty = j->first[j->depth];
	assert(j->depth > 0);
	j->depth--;
	if (!empty && j->pretty)
		indent(j);
	putch(j, c);
	post_value(j);
}

void cm_json_obj_begin(cm_json *j) { begin(j, '{'); }
void cm_json_obj_end(cm_json *j) { end(j, '}'); }
void cm_json_arr_begin(cm_json *j) { begin(j, '['); }
void cm_json_arr_end(cm_json *j) { end(j, ']'); }

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

/* What a byte needs in a string literal: 0 nothing (printable ASCII other
 * than '"' and '\\'), 1 an escape (those two, control characters, DEL),
 * 2 a UTF-8 check (0x80 and up), 3 the terminating NUL. */
static const unsigned char byte_class[256] = {
	3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

/* The literal of str, quotes included. Runs of plain ASCII are copied as
 * they are; the short escapes for '"', '\\', newline, tab and carriage
 * return, \u00XX for the other control characters and DEL, valid UTF-8
 * sequences unchanged, and \ufffd for each byte of anything else. */
static void string_lit(cm_json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	putch(j, '"');
	for (;;) {
		char *p = j->buf + j->len, *end = j->buf + j->cap;
		while (p < end && byte_class[*s] == 0)
			*p++ = (char)*s++;
		j->len = (size_t)(p - j->buf);
		unsigned c = *s, k = byte_class[c];
		if (k == 0) { /* buffer full in the middle of a run */
			flush(j);
			continue;
		}
		if (k == 3)
			break;
		p = room(j, 6);
		if (k == 2) {
			size_t n = utf8_len(s);
			if (n == 0) {
				memcpy(p, "\\ufffd", 6);
				j->len += 6;
				s++;
			} else {
				memcpy(p, s, n); /* 2 to 4 bytes */
				j->len += n;
				s += n;
			}
		} else if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r') {
			p[0] = '\\';
			p[1] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : (char)c;
			j->len += 2;
			s++;
		} else {
			static const char hex[] = "0123456789abcdef";
			memcpy(p, "\\u00", 4);
			p[4] = hex[c >> 4];
			p[5] = hex[c & 15];
			j->len += 6;
			s++;
		}
	}
	putch(j, '"');
}

/* Longest string string_short takes: keys, kinds, names. */
#define SHORT_MAX 64

/* The literal of a short plain-ASCII string (most of them: keys, kinds,
 * names) in one pass over room reserved once, with room left for two more
 * bytes; false, writing nothing, for anything longer or needing escapes. */
static inline bool string_short(cm_json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char *p = room(j, SHORT_MAX + 4) + 1;
	for (size_t i = 0; i < SHORT_MAX; i++) {
		unsigned char c = s[i];
		if (byte_class[c] == 0) {
			p[i] = (char)c;
			continue;
		}
		if (c != 0)
			return false;
		p[-1] = '"';
		p[i] = '"';
		j->len += i + 2;
		return true;
	}
	return false;
}

void cm_json_key(cm_json *j, const char *k)
{
	pre_value(j);
	if (!string_short(j, k))
		string_lit(j, k);
	char *p = room(j, 2);
	p[0] = ':';
	p[1] = ' ';
	j->len += j->pretty ? 2 : 1;
	j->after_key = true;
}

void cm_json_str(cm_json *j, const char *s)
{
	pre_value(j);
	if (!s)
		put(j, "null", 4);
	else if (!string_short(j, s))
		string_lit(j, s);
	post_value(j);
}

void cm_json_int(cm_json *j, long long v)
{
	pre_value(j);
	char *p = room(j, 20), *q = p; /* 19 digits and a sign at most */
	/* the magnitude in unsigned arithmetic: LLONG_MIN has no positive twin */
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	if (v < 0)
		*q++ = '-';
	if (u < 10) {
		*q++ = (char)('0' + u);
	} else {
		char tmp[20];
		size_t n = 0;
		do {
			tmp[n++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		while (n)
			*q++ = tmp[--n];
	}
	j->len += (size_t)(q - p);
	post_value(j);
}

void cm_json_num(cm_json *j, double v)
{
	pre_value(j);
	if (!isfinite(v)) {
		put(j, "null", 4);
	} else {
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%.17g", v);
		put(j, buf, n > 0 ? (size_t)n : 0);
	}
	post_value(j);
}

void cm_json_fixed(cm_json *j, double v, int decimals)
{
	pre_value(j);
	char buf[64];
	int n = -1;
	if (isfinite(v))
		n = snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals > 9 ? 9 : decimals, v);
	if (!isfinite(v)) {
		put(j, "null", 4);
	} else if (n < 0 || (size_t)n >= sizeof buf) { /* too long for fixed notation */
		n = snprintf(buf, sizeof buf, "%.17g", v);
		put(j, buf, n > 0 ? (size_t)n : 0);
	} else {
		if (strchr(buf, '.')) {
			while (n > 0 && buf[n - 1] == '0')
				buf[--n] = '\0';
			if (n > 0 && buf[n - 1] == '.')
				buf[--n] = '\0';
		}
		if (strcmp(buf, "-0") == 0)
			put(j, "0", 1);
		else
			put(j, buf, (size_t)n);
	}
	post_value(j);
}

void cm_json_bool(cm_json *j, bool v)
{
	pre_value(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
	post_value(j);
}

void cm_json_null(cm_json *j)
{
	pre_value(j);
	put(j, "null", 4);
	post_value(j);
}

int cm_json_finish(cm_json *j)
{
	assert(j->depth == 0);
	putch(j, '\n');
	release(j);
	return ferror(j->f) ? -1 : 0;
}
