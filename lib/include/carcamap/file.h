/* SPDX-License-Identifier: MIT */
/* carcamap/file.h: the file handling every reader and writer of the
 * library shares, for clients (the command among them) that read and
 * write files beside it the same way: regular files only, written
 * atomically and durably, relative paths kept relative to the file that
 * names them.
 * Threads: safe from any thread, as long as no two threads write the same
 * path at once. */
#ifndef CARCAMAP_FILE_H
#define CARCAMAP_FILE_H

#include <stdio.h>
#include "common.h"
#include "diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens path for reading into *out (close it with fclose). Only a regular
 * file is opened: a directory, a FIFO (never waited on) or a device is
 * refused. A failure is reported into d without a rule id ("cannot open:
 * ...", "is a directory", "not a regular file"). 0 or CM_EIO. */
int cm_file_open_read(const char *path, cm_diags *d, FILE **out);

/* Writes through fn (which returns 0 or a CM_E... code) to path. fn
 * writes into a temporary file; once it succeeded, the content goes where
 * path leads, symlinks followed (a dangling one too): over a regular file
 * atomically (the temporary, beside it, synced and renamed over it, the
 * directory synced; an existing file's mode and, where permitted, owner
 * kept), into a regular file with several hard links in place (every name
 * sees it), to standard output (path NULL or "-"), a character device or a
 * FIFO as a stream. A directory, block device or socket is refused. On
 * any failure the temporary is removed, path is left as it was, nothing
 * reaches a stream and d says why (no rule id). Temporaries are hidden
 * files ".NAME.carcamap-tmp.PID.N" beside the target (in $TMPDIR for a
 * stream); those a killed writer left are removed by the next write to
 * that name. Returns 0, fn's code, CM_EIO or CM_ENOMEM. */
int cm_file_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg, cm_diags *d);

/* What cm_file_write does with path, found without writing anything:
 * CM_OUTPUT_FILE (a regular file, existing or not, written through its
 * links), CM_OUTPUT_STREAM (standard output: NULL, "-", /dev/stdout and
 * other names of this process's descriptors; a character device or a
 * FIFO), CM_OUTPUT_REFUSED (a directory, a block device, a socket, a loop
 * of links...: *why says which, static text, when why is not NULL). */
typedef enum { CM_OUTPUT_FILE, CM_OUTPUT_STREAM, CM_OUTPUT_REFUSED } cm_file_output;
cm_file_output cm_file_output_kind(const char *path, const char **why);

/* rel resolved against the directory of the file base: rel as it is when
 * it is absolute or base names no directory. A new string (the caller
 * frees it), NULL when out of memory. */
char *cm_path_resolve(const char *base, const char *rel);

/* target (a path from the current directory) as a file at from_file must
 * write it: relative to from_file's directory when both directories
 * resolve (realpath), else target as given. The inverse of
 * cm_path_resolve(from_file, ...). A new string, NULL when out of memory. */
char *cm_path_relative(const char *from_file, const char *target);

#ifdef __cplusplus
}
#endif
#endif
