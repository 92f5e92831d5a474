/* SPDX-License-Identifier: MIT */
/* schema_int.h: the schemas (XSDs, pack.sql) compiled into the library (generated table). */
#ifndef CM_SCHEMA_INT_H
#define CM_SCHEMA_INT_H

#include <stddef.h>

typedef struct {
	const char *name;            /* "tileset.xsd" */
	const unsigned char *data;
	size_t size;
} cm_embedded_schema;

/* Ended by an entry with a NULL name. */
extern const cm_embedded_schema cm_embedded_schemas[];

#endif
