/* SPDX-License-Identifier: MIT */
/* carcamap/catalog.h: the catalogue of checks. Every diagnostic that comes
 * from a check carries one of these ids; ids never change meaning once
 * released (retired ids stay, marked retired).
 * Threads: a read-only table: safe from any thread. */
#ifndef CARCAMAP_CATALOG_H
#define CARCAMAP_CATALOG_H

#include "diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	const char *id;         /* "CM0101" */
	cm_severity severity;   /* default severity */
	const char *title;      /* short, lowercase */
	const char *rule;       /* RULES.md id it enforces ("MAP-FERRY"), or "" */
	const char *fix;        /* one sentence on how to fix it */
} cm_check_info;

/* Number of entries, and the i-th (static storage), sorted by id. */
size_t cm_catalog_count(void);
const cm_check_info *cm_catalog_get(size_t i);
/* The entry for an id, or NULL. */
const cm_check_info *cm_catalog_find(const char *id);

/* Adds a diagnostic for a catalogued check at its catalogue severity.
 * id must be in the catalogue (assert). */
void cm_diags_check(cm_diags *d, const char *id, const char *file, unsigned line,
                    unsigned col, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;

#ifdef __cplusplus
}
#endif
#endif
