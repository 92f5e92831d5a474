/* SPDX-License-Identifier: MIT */
/* carcamap/diag.h: the diagnostics sink. Every module reports problems here
 * instead of printing; the command renders them as text, JSON or SARIF.
 * Threads: a sink belongs to one thread at a time; threads report into
 * sinks of their own. */
#ifndef CARCAMAP_DIAG_H
#define CARCAMAP_DIAG_H

#include <stdarg.h>
#include <stdio.h>
#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CM_SEV_NOTE = 0, CM_SEV_WARNING = 1, CM_SEV_ERROR = 2 } cm_severity;

typedef struct {
	cm_severity severity;
	char *rule;     /* "CM0101"; may be NULL for I/O failures */
	char *file;     /* path as given; may be NULL */
	unsigned line;  /* 1-based; 0 when unknown */
	unsigned col;   /* 1-based; 0 when unknown */
	char *where;    /* place in a model without lines ("map germany, square (3,4), side N"); may be NULL */
	char *message;  /* lowercase, no full stop */
	int x, y;       /* the map square it is about (cm_diags_set_square); -1, -1 when none */
} cm_diag;

typedef struct cm_diags cm_diags;

/* A new empty sink in *out; free with cm_diags_free. Returns 0 or CM_ENOMEM. */
int cm_diags_new(cm_diags **out);
/* Frees the sink and every diagnostic; NULL is a no-op. */
void cm_diags_free(cm_diags *d);
/* Forgets every diagnostic, keeps the sink and its settings. */
void cm_diags_clear(cm_diags *d);

/* Adds a diagnostic; strings are copied; rule, file, where may be NULL.
 * On allocation failure the diagnostic is counted but its text dropped.
 * A NULL sink takes nothing (so do cm_diags_check and cm_diags_set_square;
 * the counts of a NULL sink are 0): library calls accept d == NULL, and
 * every cm_diags_ function does: on NULL the setters and cm_diags_sort do
 * nothing (returning 0), the writers write an empty report. */
void cm_diags_add(cm_diags *d, cm_severity sev, const char *rule, const char *file,
                  unsigned line, unsigned col, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 8, 9)))
#endif
	;

/* Sets the square (x east, y south) the diagnostic added last is about,
 * for the JSON and SARIF output and for marking squares in pictures. Does
 * nothing when that diagnostic was dropped by a filter (ignore, only), so
 * call it right after the cm_diags_add or cm_diags_check it belongs to. */
void cm_diags_set_square(cm_diags *d, int x, int y);

/* A diagnostics scope: what the diagnostics of one reader or checker
 * share (the sink, the file, a default rule, place and line), so that
 * each report says only what is its own. cm_diag_scope_init sets d and
 * file and clears the defaults; set the others as the work goes. Every
 * string is borrowed. */
typedef struct {
	cm_diags *d;       /* the sink (NULL: nothing is reported) */
	const char *file;  /* the file every diagnostic is about; NULL: none */
	const char *rule;  /* the rule when a report names none; NULL: none */
	const char *where; /* the place when a report names none; NULL: none */
	unsigned line;     /* the line when a report gives 0 */
} cm_diag_scope;

void cm_diag_scope_init(cm_diag_scope *s, cm_diags *d, const char *file);
/* Adds a diagnostic in scope s: of rule (NULL: s->rule) at the rule's
 * catalogue severity (carcamap/catalog.h; without a rule, an error), at
 * line (0: s->line) and col, with where (NULL: s->where), its message
 * formatted printf-style as cm_diags_add's. */
void cm_diag_scope_add(const cm_diag_scope *s, const char *rule, unsigned line, unsigned col, const char *where,
                       const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;
/* cm_diag_scope_add with a va_list, for a module's own reporting helper. */
void cm_diag_scope_vadd(const cm_diag_scope *s, const char *rule, unsigned line, unsigned col, const char *where,
                        const char *fmt, va_list ap)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 0)))
#endif
	;

/* Appends a copy of every diagnostic of src to d, in src's order, with
 * its square (cm_diags_set_square); d's filters and strictness apply as
 * to cm_diags_add. file: the file of those that name none (NULL: none).
 * The sink-to-sink copy for work done in a sink of its own (a thread, a
 * step whose diagnostics are kept only when it fails). */
void cm_diags_append(cm_diags *d, const cm_diags *src, const char *file);

size_t cm_diags_count(const cm_diags *d);
/* The i-th diagnostic (borrowed), in the order added. */
const cm_diag *cm_diags_get(const cm_diags *d, size_t i);
/* Number of diagnostics of at least the given severity. */
size_t cm_diags_count_at_least(const cm_diags *d, cm_severity sev);
size_t cm_diags_errors(const cm_diags *d);

/* Filters applied when diagnostics are added: a rule listed with ignore is
 * dropped; when any rule is listed with only, every other rule is dropped
 * (diagnostics without a rule always pass). strict turns warnings into errors.
 * Return 0 or CM_ENOMEM. */
int cm_diags_ignore(cm_diags *d, const char *rule);
int cm_diags_only(cm_diags *d, const char *rule);
void cm_diags_set_strict(cm_diags *d, int strict);

/* Keeps a copy of a file's text so text output can quote the offending
 * source line under each diagnostic for that file. 0 or CM_ENOMEM. */
int cm_diags_set_source(cm_diags *d, const char *file, const char *text, size_t len);
/* The files whose text d keeps (cm_diags_set_source; the readers keep
 * every descriptor, tile set, legend and Tiled map they read into d), in
 * the order they came: file i, borrowed from d; NULL when i is out of
 * range. A command learns from them which files it read (an output that
 * is one of them is refused). */
size_t cm_diags_source_count(const cm_diags *d);
const char *cm_diags_source_file(const cm_diags *d, size_t i);

/* Sorts by file, line, column, then insertion order (stable). */
void cm_diags_sort(cm_diags *d);

/* "error", "warning", "note". */
const char *cm_severity_name(cm_severity s);

/* Rendering. text: one line each, "file:line:col: error: message [CM0001]"
 * (parts that are unknown are left out) and, when source text is available
 * for the file (cm_diags_set_source), the quoted source line and a caret.
 * json: {"diagnostics":[…],"errors":N,"warnings":N,"notes":N}, each
 * diagnostic with "square": [x,y] or null (schemas/check-json.md).
 * sarif: SARIF 2.1.0 with tool.driver.rules from the check catalogue
 * (short and full description, help, helpUri; "no-check" for failures of
 * no check); artifact URIs percent-encoded, absolute paths as file://
 * URIs, relative ones against the base id SRCROOT (originalUriBaseIds); a
 * result about a square has a logical location "square (x,y)" of kind
 * "object" and the property "square": [x,y].
 * github: one GitHub Actions workflow command per diagnostic,
 * "::error file=F,line=L,col=C,title=CM0001 title::message [CM0001]"
 * (::warning, ::notice), escaped by GitHub's rules: an annotation is one line.
 * Each returns 0 or CM_EIO (text and sarif: or CM_ENOMEM). */
int cm_diags_write_text(const cm_diags *d, FILE *f);
int cm_diags_write_json(const cm_diags *d, FILE *f);
int cm_diags_write_sarif(const cm_diags *d, FILE *f);
int cm_diags_write_github(const cm_diags *d, FILE *f);
/* A path as a URI reference (RFC 3986): every byte but unreserved ones and
 * '/' percent-encoded; an absolute path as a file:// URI. New string,
 * NULL on allocation failure or NULL input. */
char *cm_uri_from_path(const char *path);
/* "N errors, N warnings" summary line (no newline) into buf. */
void cm_diags_summary(const cm_diags *d, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
