/* SPDX-License-Identifier: MIT */
/* util_files.h: test helpers shared by the unit tests' fixture runners:
 * whole files, sorted directory listings, the "<!-- expect: ID line N -->"
 * headers of bad-input fixtures and their comparison with a cm_diags.
 * Every name starts with util_. */
#ifndef UTIL_FILES_H
#define UTIL_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include "carcamap/diag.h"

/* The whole file at path, NUL-terminated (binary files too), its length
 * in *len when len is not NULL; the caller frees it. A file that cannot be
 * read fails the test. */
char *util_read_file(const char *path, size_t *len);

/* The names of the entries of dir whose name ends in suffix (every entry
 * but "." and ".." when suffix is NULL), sorted by strcmp and
 * NULL-terminated; their count in *n. Fails the test when dir cannot be
 * read. Free with util_names_free. */
char **util_list_dir(const char *dir, const char *suffix, size_t *n);
void util_names_free(char **names);
/* The number of entries of dir, hidden ones included ("." and ".." not). */
size_t util_dir_entries(const char *dir);

/* The files of dir whose name ends in suffix, in name order, one after the
 * other in one string (caller frees): for "does any fixture say X". */
char *util_read_dir_files(const char *dir, const char *suffix);

/* One "<!-- expect: ID line N -->" header: the diagnostic a fixture must
 * produce; line 0 is a diagnostic with no line, "none" one with no id. */
typedef struct {
	char id[16];
	unsigned line;
} util_expect;

/* Every expect header of text into v; fails the test on a malformed one
 * or on more than max. Returns the count. */
size_t util_parse_expects(const char *text, util_expect *v, size_t max);

/* Whether text holds an expect header for id (any line). */
bool util_text_expects(const char *text, const char *id);

/* Compares the (id, line) pairs of d with want as multisets: each pair as
 * often as it is named, in any order. With file set, a diagnostic about
 * another file counts as line 0. Every difference is printed, prefixed
 * with ctx. Returns the number of differences (0: the same). */
size_t util_expects_differ(const char *ctx, const util_expect *want, size_t n, const cm_diags *d,
                           const char *file);

/* The diagnostics as text (cm_diags_write_text), as a string the caller
 * frees. */
char *util_diags_text(const cm_diags *d);

#endif
