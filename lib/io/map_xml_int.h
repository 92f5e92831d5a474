/* SPDX-License-Identifier: MIT */
/* map_xml_int.h: the descriptor reader (map_xml.c) reads only: what a
 * descriptor says, into a builder. Joining it with its image's squares,
 * the printing's kinds and the checks, and finishing the builder, is the
 * loader's (io/workspace.c, cm_map_load). */
#ifndef CM_MAP_XML_INT_H
#define CM_MAP_XML_INT_H

#include <stddef.h>
#include <stdint.h>
#include "carcamap/diag.h"
#include "carcamap/map.h"

typedef struct cm__map_read_opts cm__map_read_opts;

/* Loads a whole map (read, joined, finished): how the reader gets the two
 * halves of a <combine>, with o's flags and printing and depth 1. */
typedef int (*cm__map_loader)(const char *path, const cm__map_read_opts *o, cm_diags *d, cm_map **out);

struct cm__map_read_opts {
	unsigned flags;      /* CM_MAP_LOAD_… */
	int printing;        /* a cm_edition; < 0: the descriptor's default */
	int depth;           /* <combine> nesting: 0 at the top */
	cm__map_loader load; /* the halves of a <combine> */
};

/* A descriptor read: b holds what it says (NULL when nothing was built);
 * quiet marks the squares whose island problems are reported already
 * (for cm__map_builder_prints_check_structure); kind_to, when the printing
 * changes kinds, holds 1 + the printing's kind per square (0: as printed);
 * errors is d's error count before the read. */
typedef struct {
	cm_map_builder *b;
	uint8_t *quiet;
	uint8_t *kind_to;
	size_t errors;
} cm__map_read;

/* Reads the descriptor at path (XML syntax, map.xsd, then its elements)
 * into out, which the caller clears with cm__map_read_clear whatever the
 * return. Every problem goes to d with file and line. Returns 0,
 * CM_EINVAL, CM_EVERSION, CM_EIO or CM_ENOMEM. */
int cm__map_xml_read(const char *path, const cm__map_read_opts *o, cm_diags *d, cm__map_read *out);
/* The same from memory; file names the text in diagnostics. */
int cm__map_xml_read_memory(const char *buf, size_t len, const char *file, const cm__map_read_opts *o, cm_diags *d,
                            cm__map_read *out);
void cm__map_read_clear(cm__map_read *r);

#endif
