/* SPDX-License-Identifier: MIT */
/* util.c: string and array helpers (util_int.h), and the names of shared
 * enums and error codes (carcamap/common.h). It reports nothing, so the
 * diagnostics sink (diag.c) can use it; the file helpers, which report
 * into a sink, are file.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/common.h"
#include "base/util_int.h"

char *cm_strdup(const char *s)
{
	return s ? cm_strndup(s, strlen(s)) : NULL;
}

char *cm_strndup(const char *s, size_t n)
{
	if (!s)
		return NULL;
	char *p = malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *cm_vasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	char *p = malloc((size_t)n + 1);
	if (p)
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *cm_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = cm_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}

int cm_strcmp_p(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *cm_first_duplicate(const char **ids, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (ids[i])
			ids[k++] = ids[i];
	qsort(ids, k, sizeof *ids, cm_strcmp_p);
	for (size_t i = 1; i < k; i++)
		if (strcmp(ids[i - 1], ids[i]) == 0)
			return ids[i];
	return NULL;
}

int cm_grow(void **v, size_t *cap, size_t n, size_t es)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 8;
	while (nc <= n)
		nc *= 2;
	void *p = realloc(*v, nc * es);
	if (!p)
		return CM_ENOMEM;
	*v = p;
	*cap = nc;
	return 0;
}

const char *cm_strerror(int code)
{
	switch (code) {
	case CM_OK: return "success";
	case CM_EINVAL: return "invalid input";
	case CM_ENOMEM: return "out of memory";
	case CM_EIO: return "input/output error";
	case CM_EFORMAT: return "not a file of the expected kind";
	case CM_EVERSION: return "newer format version than this build reads";
	case CM_ENOTFOUND: return "not found";
	case CM_ELIMIT: return "limit exceeded";
	case CM_EINTERNAL: return "internal error";
	case CM_ENOTSUP: return "not supported";
	}
	return "unknown error";
}

const char *cm_edition_name(cm_edition e)
{
	switch (e) {
	case CM_EDITION_C1: return "C1";
	case CM_EDITION_C2: return "C2";
	case CM_EDITION_C3: return "C3";
	}
	return "C2";
}

int cm_edition_parse(const char *s, cm_edition *out)
{
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		if (strcmp(s, cm_edition_name((cm_edition)e)) == 0) {
			*out = (cm_edition)e;
			return 0;
		}
	return CM_EINVAL;
}

/* The code point of the UTF-8 sequence at s (its length in *len), or -1
 * with *len 1 for an invalid, overlong, surrogate or cut sequence. */
static long utf8_next(const unsigned char *s, size_t *len)
{
	unsigned c = s[0];
	*len = 1;
	if (c < 0x80)
		return (long)c;
	size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? (c < 0xF0 ? 3 : 0) : c >= 0xC2 ? 2 : 0;
	if (!n)
		return -1;
	long v = (long)(c & (0x7F >> n));
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return -1;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
	    (v >= 0xD800 && v <= 0xDFFF))
		return -1;
	*len = n;
	return v;
}

/* Code points cm_text_escape writes as escapes. */
static bool escaped_cp(long v)
{
	return v < 0x20 || (v >= 0x7F && v <= 0x9F) || v == 0x061C || v == 0x200E || v == 0x200F ||
	       (v >= 0x2028 && v <= 0x202E) || (v >= 0x2066 && v <= 0x2069);
}

char *cm_text_escape(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s);
	char *out = malloc(n * 8 + 1); /* at most \u{HHHH} (8) per input byte */
	if (!out)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;
	while (*p) {
		size_t len;
		long v = utf8_next(p, &len);
		if (v < 0)
			o += sprintf(o, "\\x%02X", *p);
		else if (v == '\n')
			o += sprintf(o, "\\n");
		else if (v == '\t')
			o += sprintf(o, "\\t");
		else if (v == '\r')
			o += sprintf(o, "\\r");
		else if (v < 0x80 && escaped_cp(v))
			o += sprintf(o, "\\x%02lX", v);
		else if (escaped_cp(v))
			o += sprintf(o, "\\u{%04lX}", v);
		else {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

const char *cm_text_problem(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (p && *p) {
		size_t len;
		long v = utf8_next(p, &len);
		if (v < 0)
			return "invalid UTF-8";
		if (v < 0x20 || (v >= 0x7F && v <= 0x9F))
			return "a control character";
		if (escaped_cp(v))
			return "a bidirectional control or line separator";
		p += len;
	}
	return NULL;
}

uint64_t cm_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t cm_hash_str(const char *s)
{
	return cm_hash_bytes(CM_HASH_INIT, s ? s : "", s ? strlen(s) : 0);
}

static bool index_grow(cm_index *ix)
{
	size_t cap = ix->cap ? ix->cap * 2 : 64;
	struct cm_index_slot *v = calloc(cap, sizeof *v);
	if (!v)
		return false;
	for (size_t i = 0; i < ix->cap; i++) {
		if (!ix->slot[i].item)
			continue;
		size_t j = (size_t)(ix->slot[i].hash ^ (ix->slot[i].hash >> 29)) & (cap - 1);
		while (v[j].item)
			j = (j + 1) & (cap - 1);
		v[j] = ix->slot[i];
	}
	free(ix->slot);
	ix->slot = v;
	ix->cap = cap;
	return true;
}

size_t cm_index_find_or_add(cm_index *ix, uint64_t h, size_t item, cm_index_eq eq, const void *ctx)
{
	if ((ix->n + 1) * 2 > ix->cap && !index_grow(ix))
		return (size_t)-1;
	size_t j = (size_t)(h ^ (h >> 29)) & (ix->cap - 1);
	for (; ix->slot[j].item; j = (j + 1) & (ix->cap - 1))
		if (ix->slot[j].hash == h && eq(ctx, ix->slot[j].item - 1))
			return ix->slot[j].item - 1;
	ix->slot[j].hash = h;
	ix->slot[j].item = item + 1;
	ix->n++;
	return item;
}

size_t cm_index_find(const cm_index *ix, uint64_t h, cm_index_eq eq, const void *ctx)
{
	if (!ix->cap)
		return (size_t)-1;
	for (size_t j = (size_t)(h ^ (h >> 29)) & (ix->cap - 1); ix->slot[j].item; j = (j + 1) & (ix->cap - 1))
		if (ix->slot[j].hash == h && eq(ctx, ix->slot[j].item - 1))
			return ix->slot[j].item - 1;
	return (size_t)-1;
}

void cm_index_free(cm_index *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = ix->n = 0;
}
