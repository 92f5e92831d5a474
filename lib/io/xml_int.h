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
 * with cm_xml_free_doc: it carries the exact source positions). Returns 0, CM_EINVAL or CM_ENOMEM. */
int cm_xml_load_memory(const char *buf, size_t len, const char *file, const char *schema,
                       cm_diags *d, xmlDoc **out);
/* The same for a file; also keeps the text in d for quoting source lines. */
int cm_xml_load_file(const char *path, const char *schema, cm_diags *d, xmlDoc **out);
/* A reader's own limits, counted on a document's text before it is parsed
 * (a document over them never costs a tree): 0 to parse it, or the error
 * code of what it reported to d. */
typedef int (*cm_xml_precheck)(const char *buf, size_t len, const char *file, cm_diags *d);
/* cm_xml_load_memory and cm_xml_load_file with check run on the text
 * before parsing (NULL: none). */
int cm_xml_load_memory_checked(const char *buf, size_t len, const char *file, const char *schema,
                               cm_xml_precheck check, cm_diags *d, xmlDoc **out);
int cm_xml_load_file_checked(const char *path, const char *schema, cm_xml_precheck check, cm_diags *d,
                             xmlDoc **out);

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
/* cm_xml_attr, and in *found whether n has the attribute: NULL with
 * *found true is out of memory (one look-up, not two). */
char *cm_xml_attr_found(const xmlNode *n, const char *name, bool *found);
/* Whether n has attribute name (no namespace), as cm_xml_attr reads it. */
bool cm_xml_has_attr(const xmlNode *n, const char *name);
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
/* The one XML writer of descriptors and tile sets: libxml2's xmlTextWriter
 * into memory, so escaping is the library's, copied to the stream only when
 * the whole document was written (no partial output). Layout is ours: the
 * writer does not indent, cm_xw_open/cm_xw_close put each element on its
 * own line after two spaces per depth. Text that XML 1.0 cannot carry
 * (invalid UTF-8, a control character but tab and line breaks) is refused
 * by the writer itself, whatever the caller checked before. */
typedef struct cm_xw cm_xw;
/* A writer with the XML declaration written; NULL when out of memory. */
cm_xw *cm_xw_new(void);
/* `<el` on a new line at this depth (the root is depth 0). */
void cm_xw_open(cm_xw *x, int depth, const char *el);
/* Ends the innermost element: `/>` when it has no content, else `</el>`
 * on its own line at this depth (the depth it was opened at). */
void cm_xw_close(cm_xw *x, int depth);
/* ` name="v"` escaped; nothing when v is NULL. */
void cm_xw_attr(cm_xw *x, const char *name, const char *v);
void cm_xw_attr_int(cm_xw *x, const char *name, long v);
/* Marks the document failed (out of memory): cm_xw_finish writes nothing. */
void cm_xw_fail(cm_xw *x);
/* Character data, escaped. */
void cm_xw_text(cm_xw *x, const char *s);
/* Ends the document and frees x. When every call succeeded and no text was
 * refused, writes the document to f and returns 0 (CM_EIO when f fails);
 * else writes nothing and returns CM_EINVAL (reported to d, with file) or
 * CM_ENOMEM. */
int cm_xw_finish(cm_xw *x, FILE *f, const char *file, cm_diags *d);
/* Frees a document of cm_xml_load_*; NULL is a no-op. */
void cm_xml_free_doc(xmlDoc *doc);
/* Line of a node (0 if unknown): exact past line 65535, where libxml2's
 * own node lines stop; for an element, the line of its '<'. */
unsigned cm_xml_line(const xmlNode *n);
/* Column (1-based, in characters) of an element's '<'; 0 if unknown. */
unsigned cm_xml_col(const xmlNode *n);
/* Line and, in *col, column where the content of element n begins (just
 * after its start tag's '>'); 0 and 0 when unknown or n is empty. */
unsigned cm_xml_content_pos(const xmlNode *n, unsigned *col);
/* Line of attribute name of element n and its column in *col; when the
 * attribute is absent or its place unknown, the element's line and 0. */
unsigned cm_xml_attr_pos(const xmlNode *n, const char *name, unsigned *col);
/* The root element's element children in document order, as the parse
 * met them: a reader takes them without a walk over the tree (thousands
 * on a big map, each a cache miss). name is the child's n->name. */
typedef struct {
	xmlNode *n;
	const char *name;
} cm_xml_top;
/* The children of doc's root (a document of cm_xml_load_*), *n of them;
 * NULL and 0 for another document (walk the tree then) or a root without
 * element children. Borrowed from doc. */
const cm_xml_top *cm_xml_top_elements(const xmlDoc *doc, size_t *n);
/* Next element sibling starting at n itself (n may be NULL). */
xmlNode *cm_xml_elem(xmlNode *n);
/* Whether n is an element with this local name. */
int cm_xml_is(const xmlNode *n, const char *name);

#endif
