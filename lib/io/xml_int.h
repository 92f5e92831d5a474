/* SPDX-License-Identifier: MIT */
/* xml_int.h: safe XML loading shared by every XML reader (tile sets, maps,
 * legends). No network, no DTD, no entity expansion, size limits, errors as
 * diagnostics with line and column, validation against an embedded XSD. */
#ifndef CM_XML_INT_H
#define CM_XML_INT_H

#include <stdbool.h>
#include <stdio.h>
#include <libxml/tree.h>
#include "carcamap/diag.h"

/* Parses buf (len bytes, named file in diagnostics) and, when schema is not
 * NULL, validates it against the embedded schema of that name ("map.xsd").
 * Documents with a DOCTYPE are refused (CM0003). Every problem goes to d
 * (CM0001 syntax, CM0002 schema). On success *out holds the document (free
 * with xmlFreeDoc). Returns 0, CM_EINVAL or CM_ENOMEM. */
int cm_xml_load_memory(const char *buf, size_t len, const char *file, const char *schema,
                       cm_diags *d, xmlDoc **out);
/* The same for a file; also keeps the text in d for quoting source lines. */
int cm_xml_load_file(const char *path, const char *schema, cm_diags *d, xmlDoc **out);

/* Name of the root element of an XML text without building a tree, into
 * buf; 0 or CM_EFORMAT when buf is not XML. */
int cm_xml_root_name(const char *text, size_t len, char *buf, size_t size);

/* What kind of file buf holds, for a refusal that names only the kind:
 * "a tile set", "a map descriptor", "a legend", "XML of another kind",
 * "UTF-16 text (...)", "a PNG image", ...; NULL when the
 * cheap scan finds no root element (static storage). */
const char *cm_xml_other_kind(const char *buf, size_t len);

/* Whether the root element's start tag (within text) has an attribute
 * of this name. */
bool cm_xml_root_has_attr(const char *text, size_t len, const char *attr);

/* Attribute value as a malloc'd string, or NULL when absent. */
char *cm_xml_attr(const xmlNode *n, const char *name);
/* The same without white space around it (xs:token values may carry it). */
char *cm_xml_attr_token(const xmlNode *n, const char *name);
/* An integer attribute (the schema checked its syntax), clamped to int;
 * dflt when absent. */
int cm_xml_attr_int(const xmlNode *n, const char *name, int dflt);
/* An xs:boolean attribute ("true" or "1" is true); dflt when absent. */
bool cm_xml_attr_bool(const xmlNode *n, const char *name, bool dflt);
/* The next white-space separated token of *p: its start in *tok, its
 * length returned, 0 at the end; *p moves past it. */
size_t cm_xml_next_token(const char **p, const char **tok);
/* Writes s escaped for XML text or a double-quoted attribute value: & < > "
 * and, as character references, the tab, newline and carriage return that
 * attribute normalization would otherwise turn into spaces. */
void cm_xml_put_escaped(FILE *f, const char *s);
/* Writes ` name="v"` with v escaped; nothing when v is NULL. */
void cm_xml_put_attr(FILE *f, const char *name, const char *v);
/* Line of a node (0 if unknown). */
unsigned cm_xml_line(const xmlNode *n);
/* Next element sibling starting at n itself (n may be NULL). */
xmlNode *cm_xml_elem(xmlNode *n);
/* Whether n is an element with this local name. */
int cm_xml_is(const xmlNode *n, const char *name);

#endif
