/* SPDX-License-Identifier: MIT */
/* carcamap/util.h: the library's small helpers that the command shares:
 * new strings, paths relative to a file, the atomic writer every output
 * goes through, and array growth (lib/base/util.c, file.c). */
#ifndef CARCAMAP_UTIL_H
#define CARCAMAP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies of s (NULL on failure or NULL input), of its first n bytes, and
 * printf-formatted new strings (NULL on failure); the caller frees them. */
char *cm_strdup(const char *s);
char *cm_strndup(const char *s, size_t n);
char *cm_asprintf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
char *cm_vasprintf(const char *fmt, va_list ap);

/* rel resolved against the directory of the file base (rel as is when it
 * is absolute or base has no directory). New string, NULL on OOM. */
char *cm_path_resolve(const char *base, const char *rel);

/* Writes through fn (which returns 0 or a CM_E… code) to path atomically:
 * a file beside path, renamed over it once fn succeeded and
 * the file was flushed and closed; on any failure the temporary file is
 * removed, path is untouched and d says why. path NULL writes to stdout.
 * Returns 0, fn's code, or CM_EIO. */
int cm_write_to(const char *path, int (*fn)(FILE *f, void *arg), void *arg, cm_diags *d);

/* Grows *v (element size es) so that it holds at least n+1 elements.
 * Returns 0 or CM_ENOMEM. */
int cm_grow(void **v, size_t *cap, size_t n, size_t es);

#ifdef __cplusplus
}
#endif

#endif
