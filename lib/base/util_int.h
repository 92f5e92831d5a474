/* SPDX-License-Identifier: MIT */
/* util_int.h: small helpers every module uses: strings and growth
 * (util.c), files and the atomic writer (file.c). */
#ifndef CM_UTIL_INT_H
#define CM_UTIL_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "carcamap/diag.h"
#include "carcamap/file.h"
/* CM_VERSION_STRING, written by make from the Makefile's VERSION */
#include "cm_version.h"

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

/* calloc for arrays of a million squares (bigmem.c): on Linux in
 * transparent huge pages when the system grants them on request (fewer page
 * faults); released with free(). Use it for arrays every square writes
 * (a sparse array is cheaper in small pages, where untouched ones cost
 * nothing). NULL on overflow or out of memory. */
void *cm_calloc_big(size_t n, size_t size);
/* The same without zeroing, for an array the caller writes whole before
 * anything reads it (a block reused from the heap is not cleared twice:
 * a 1000x1000 grid is 24 MB). */
void *cm_malloc_big(size_t n, size_t size);

/* Opens a file for reading; a directory is refused. Reports failures into
 * d (no rule id: "cannot open: …", "is a directory"). 0 or CM_EIO. The
 * library's own name of cm_file_open_read (carcamap/file.h). */
int cm_open_read(const char *path, cm_diags *d, FILE **out);
/* Reads a whole file (at most max bytes) into a NUL-terminated buffer.
 * Reports failures into d (no rule id) and returns 0, CM_EIO, CM_ELIMIT or
 * CM_ENOMEM. */
int cm_read_file(const char *path, size_t max, cm_diags *d, char **out, size_t *len);
/* cm_diags_set_source without the copy: d takes text over (from malloc,
 * len bytes and a '\0' after them, as cm_read_file gives) when *taken;
 * else (a file d keeps already, no memory) the caller still owns it. */
int cm__diags_take_source(cm_diags *d, const char *file, char *text, size_t len, bool *taken);

/* cm_path_resolve, cm_path_relative: carcamap/file.h */

/* Creates a new file beside path (path.tmp.PID.N, O_EXCL, mode 0666 less
 * the umask, like the final file would get) for writing then renaming into
 * place. First removes the temporaries of that naming for path that a
 * writer killed before its rename left (their process is gone: see
 * remove_stale in file.c), so that a killed compile, export or render
 * leaves nothing behind once the next write to the path runs. Returns the
 * descriptor and the name in *name (caller frees), or -1 with errno set. */
int cm_tmp_beside(const char *path, char **name);

/* Makes a file written beside path (cm_tmp_beside) durable and puts it in
 * place: fsync(fd), close(fd), rename(tmp, path), then fsync of path's
 * directory so the rename itself lasts (best effort: some file systems
 * refuse directory syncs). fd is closed in every case; on failure tmp is
 * left for the caller to remove and path is untouched. Returns 0, -1 when
 * the sync failed or -2 when the close or the rename did, errno set. The
 * one commit of cm_write_to and the pack writers. */
int cm_tmp_commit(const char *tmp, int fd, const char *path);

/* Writes through fn (which returns 0 or a CM_E… code) to path atomically:
 * a file beside path (cm_tmp_beside) put in place by cm_tmp_commit (synced,
 * renamed, directory synced) once fn succeeded; on any failure the temporary file is
 * removed, path is untouched and d says why. path NULL writes to stdout.
 * Returns 0, fn's code, or CM_EIO. Clients call it as cm_file_write
 * (carcamap/file.h); this name stays private (tests/lib/run.sh). */
int cm_write_to(const char *path, int (*fn)(FILE *f, void *arg), void *arg, cm_diags *d);

/* Gives the diagnostic just added to d (when kept, with a line and no
 * column) the column of `what` on its line, found in the source text d
 * holds for its file (cm_diags_set_source): an attribute name ("x") or a
 * start tag ("<edge"). Only when it stands exactly once on that line, so
 * the column is never a guess; else the diagnostic stays without one. For
 * checks that know the element's line and the attribute at fault but not
 * the column (the model keeps lines only). */
void cm_diags_point(cm_diags *d, const char *what);

/* Grows *v (element size es) so that it holds at least n+1 elements.
 * Returns 0 or CM_ENOMEM. */
int cm_grow(void **v, size_t *cap, size_t n, size_t es);

/* An index of items by hash: items are the caller's (numbered 0..n-1);
 * the index keeps each one's number and hash, so a lookup costs O(1)
 * expected whatever the number of items. Zero-initialise, free with
 * cm_index_free. */
typedef struct {
	struct cm_index_slot {
		uint64_t hash;
		size_t item; /* item number + 1; 0: empty */
	} *slot;
	size_t cap, n;
} cm_index;
typedef bool (*cm_index_eq)(const void *ctx, size_t item);
/* Looks for an item of hash h that eq says is the one wanted; when none,
 * adds item. Returns the item found (or item itself when added), or
 * (size_t)-1 when out of memory. */
size_t cm_index_find_or_add(cm_index *ix, uint64_t h, size_t item, cm_index_eq eq, const void *ctx);
/* The item of hash h that eq accepts, or (size_t)-1. */
size_t cm_index_find(const cm_index *ix, uint64_t h, cm_index_eq eq, const void *ctx);
void cm_index_free(cm_index *ix);
uint64_t cm_hash_bytes(uint64_t h, const void *p, size_t n);
uint64_t cm_hash_str(const char *s); /* NULL hashes as "" */

#endif
