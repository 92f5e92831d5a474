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
#include "model/tilegrid_int.h"
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

/* cm_feature_read for a tile of a tile set: with grid, a <grid> child
 * (schemas/tileset.md "Tiles as pictures") gives the features' slots and
 * adds the features no element names, before touches and contacts are
 * resolved, so they may name them (CM0117 an unreadable grid, CM0118 a
 * grid and elements that disagree, reported with their positions). */
int cm_feature_read_grid(const xmlNode *parent, const cm_feature_rules *rules, const char *noun,
                         bool drop_short, bool grid, cm_diags *d, const char *file, cm_tile_type *t,
                         unsigned **contact_line);

/* Writes t's features and contacts through x as the elements
 * cm_feature_read reads, one per line at this depth: attributes that hold
 * their default are left out; touches and contacts name features by id. */
void cm_feature_write_xml(cm_xw *x, const cm_tile_type *t, int depth);
/* The same in grid form: the <grid> of layout L (tilegrid_int.h), the
 * elements of its first L->n_elements features without slots (their mark,
 * attributes, and touches where L says the picture does not give them),
 * then the contacts; cm_feature_read_grid reads it back to t. */
void cm_feature_write_xml_grid(cm_xw *x, const cm_tile_type *t, const cm_tile_grid_layout *L, int depth);

#endif
