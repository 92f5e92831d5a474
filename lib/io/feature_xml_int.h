/* SPDX-License-Identifier: MIT */
/* feature_xml_int.h: feature and <contact> elements of tile sets and
 * big-city pieces, read into a cm_tile_type and written back
 * (feature_xml.c); the checks on the result are model/feature_int.h. */
#ifndef CM_FEATURE_XML_INT_H
#define CM_FEATURE_XML_INT_H

#include <stdio.h>
#include <libxml/tree.h>
#include "carcamap/diag.h"
#include "model/feature_int.h"
#include "io/xml_int.h"

/* Reads the feature children of parent (elements named by feature kind)
 * and its <contact> children into t, which must be empty, then derives t.
 * Problems the model cannot keep are reported here with file and line:
 * a slot listed twice in one feature, touches or contact names that are no
 * feature of t (the name, or the contact, is dropped). With drop_short, a
 * contact of fewer than two features is reported and dropped too (for
 * callers that cannot give the checks each contact's line). When
 * contact_line is not NULL it gets a malloc'd array with the line of each
 * kept contact. Returns 0 or CM_ENOMEM (t then holds what was read; clear
 * it with cm_tile_type_clear). */
int cm_feature_read(const xmlNode *parent, const cm_feature_rules *rules, const char *noun,
                    bool drop_short, cm_diags *d, const char *file, cm_tile_type *t,
                    unsigned **contact_line);

/* Writes t's features and contacts through x as the elements
 * cm_feature_read reads, one per line at this depth: attributes that hold
 * their default are left out; touches and contacts name features by id. */
void cm_feature_write_xml(cm_xw *x, const cm_tile_type *t, int depth);

#endif
