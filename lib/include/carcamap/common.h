/* SPDX-License-Identifier: MIT */
/* carcamap/common.h: error codes and small types shared by every module.
 * Threads: these functions keep no state: safe from any thread. */
#ifndef CARCAMAP_COMMON_H
#define CARCAMAP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: 0 is success, failures are negative. Details of a failure
 * go to the cm_diags sink passed to the function. */
enum {
	CM_OK = 0,
	CM_EINVAL = -1,   /* the input has problems (reported as diagnostics) */
	CM_ENOMEM = -2,   /* out of memory */
	CM_EIO = -3,      /* a file could not be read or written */
	CM_EFORMAT = -4,  /* not a file of the expected kind */
	CM_EVERSION = -5, /* a newer format version than this build reads */
	CM_ENOTFOUND = -6,/* a named thing does not exist */
	CM_ELIMIT = -7,   /* a size or resource limit was exceeded */
	CM_EINTERNAL = -8,/* a bug or an unexpected library failure */
	CM_ENOTSUP = -9   /* not available in this build (yet) */
};

/* Short lowercase text for a CM_E… code (static storage). */
const char *cm_strerror(int code);

/* Game editions. C3 plays as C2 unless a rule says otherwise. */
typedef enum { CM_EDITION_C1 = 0, CM_EDITION_C2 = 1, CM_EDITION_C3 = 2 } cm_edition;
#define CM_EDITION_COUNT 3

/* "C1", "C2", "C3"; parse returns 0 or CM_EINVAL. */
const char *cm_edition_name(cm_edition e);
int cm_edition_parse(const char *s, cm_edition *out);

/* Text for one line of terminal output: s with every control character
 * (C0, DEL, C1), bidirectional control (U+061C, U+200E-200F, U+202A-202E,
 * U+2066-2069), line or paragraph separator and invalid UTF-8 byte written
 * as an escape (\n, \t, \r, \xHH for bytes, \u{HHHH} for code points).
 * New string (caller frees), NULL on allocation failure or NULL input. */
char *cm_text_escape(const char *s);

/* Whether s is text a name may hold: valid UTF-8 without any character
 * cm_text_escape escapes. NULL when it is, else what is wrong ("a control
 * character", "invalid UTF-8", ...; static storage). */
const char *cm_text_problem(const char *s);

#ifdef __cplusplus
}
#endif
#endif
