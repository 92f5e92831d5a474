/* SPDX-License-Identifier: MIT */
/* util_int.h: small helpers every module uses: strings and growth
 * (util.c), files and the atomic writer (file.c). */
#ifndef CM_UTIL_INT_H
#define CM_UTIL_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include "carcamap/diag.h"

#define CM_VERSION_STRING "0.1.0"

/* Largest input file any reader accepts (XML, PNG, packs are checked apart). */
#define CM_MAX_INPUT_BYTES (64u * 1024u * 1024u)

char *cm_strdup(const char *s);          /* NULL on failure or NULL input */
char *cm_strndup(const char *s, size_t n);
char *cm_asprintf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
char *cm_vasprintf(const char *fmt, va_list ap);

/* Opens a file for reading; a directory is refused. Reports failures into
 * d (no rule id: "cannot open: …", "is a directory"). 0 or CM_EIO. */
int cm_open_read(const char *path, cm_diags *d, FILE **out);
/* Reads a whole file (at most max bytes) into a NUL-terminated buffer.
 * Reports failures into d (no rule id) and returns 0, CM_EIO, CM_ELIMIT or
 * CM_ENOMEM. */
int cm_read_file(const char *path, size_t max, cm_diags *d, char **out, size_t *len);

/* rel resolved against the directory of the file base (rel as is when it
 * is absolute or base has no directory). New string, NULL on OOM. */
char *cm_path_resolve(const char *base, const char *rel);

/* Creates a new file beside path (path.tmp.PID.N, O_EXCL, mode 0666 less
 * the umask, like the final file would get) for writing then renaming into
 * place. Returns the descriptor and the name in *name (caller frees), or
 * -1 with errno set. */
int cm_tmp_beside(const char *path, char **name);

/* Writes through fn (which returns 0 or a CM_E… code) to path atomically:
 * a file beside path (cm_tmp_beside) renamed over it once fn succeeded and
 * the file was flushed and closed; on any failure the temporary file is
 * removed, path is untouched and d says why. path NULL writes to stdout.
 * Returns 0, fn's code, or CM_EIO. */
int cm_write_to(const char *path, int (*fn)(FILE *f, void *arg), void *arg, cm_diags *d);

/* Grows *v (element size es) so that it holds at least n+1 elements.
 * Returns 0 or CM_ENOMEM. */
int cm_grow(void **v, size_t *cap, size_t n, size_t es);

#endif
