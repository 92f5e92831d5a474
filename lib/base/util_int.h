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
/* CM_VERSION_STRING */
#include "carcamap/version.h"

/* Largest input file any reader accepts (XML, PNG, packs are checked apart). */
#define CM_MAX_INPUT_BYTES (64u * 1024u * 1024u)

char *cm_strdup(const char *s);          /* NULL on failure or NULL input */
/* qsort and bsearch order of strings (pointers to const char *), bytewise. */
int cm_strcmp_p(const void *a, const void *b);
/* The first id that occurs twice among n (NULLs skipped; ids is reordered:
 * sorted, NULLs gone), or NULL. */
const char *cm_first_duplicate(const char **ids, size_t n);
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
 * a 1000x1000 grid is 24 MB); from 1 MB on, whole huge pages on a huge
 * page's boundary, so none of it comes in small pages: also for the
 * megabytes a big map's pack is written through. */
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

/* Outputs (DESIGN.md "Safety"; README "Outputs"). Every output is written
 * in full into a temporary file first, then put in place by
 * cm_out_commit according to what path names, symlinks followed (a
 * dangling one too: the file it names is made):
 *   - a regular file with one name, or none yet: the temporary, beside it,
 *     is synced and renamed over it (keeping an existing file's mode and,
 *     where permitted, owner), then the directory synced;
 *   - a regular file with several hard links: the content is copied into
 *     it in place and synced, so that every name sees it (a failure during
 *     that copy, a full disk, can leave it partly written; a failed run
 *     before it never touches it);
 *   - NULL or "-" (standard output), a character device or a FIFO: the
 *     content is copied to it, after it was written in full (in $TMPDIR);
 *   - a directory, a block device or a socket is refused.
 * Temporaries are hidden files named ".NAME.carcamap-tmp.PID.N" beside
 * the target (a stream's ".stream.carcamap-tmp.PID.N" in $TMPDIR); before
 * a new one is made, those of that name whose writer is gone (killed
 * before its commit) are removed, and nothing else. */

/* Resolves path and creates its temporary (mode 0666 less the umask,
 * O_EXCL, open for reading and writing) after sweeping killed writers'
 * ones. Returns the descriptor and the temporary's name in *tmp (caller
 * frees), or -1 with errno set and d told why ("cannot write[ WHAT]: ...",
 * what NULL or "pack"). */
int cm_out_begin(const char *path, const char *what, cm_diags *d, char **tmp);
/* Puts the temporary (fd, closed in every case) in place as above, and
 * removes it. Returns 0, or CM_EIO (CM_ENOMEM) with d told why ("cannot
 * write[ WHAT]: sync failed: ...", "...: REASON"); on failure the
 * temporary is removed and the target is as it was (but see hard links). */
int cm_out_commit(const char *tmp, int fd, const char *path, const char *what, cm_diags *d);
/* Gives the temporary up: closes fd (when >= 0) and removes tmp. */
void cm_out_abort(const char *tmp, int fd);

/* Writes through fn (which returns 0 or a CM_E… code) to path as above:
 * on any failure the temporary file is removed, the target is untouched
 * and d says why. path NULL or "-" writes to stdout. Returns 0, fn's code,
 * CM_EIO or CM_ENOMEM. Clients call it as cm_file_write (carcamap/file.h);
 * this name stays private (tests/lib/run.sh). */
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
/* The library's one string and byte hash, FNV-1a 64: cm_hash_bytes goes
 * on from h (CM_HASH_INIT to start); the same value on every platform. */
#define CM_HASH_INIT 0xcbf29ce484222325ull
uint64_t cm_hash_bytes(uint64_t h, const void *p, size_t n);
uint64_t cm_hash_str(const char *s); /* NULL hashes as "" */

#endif
