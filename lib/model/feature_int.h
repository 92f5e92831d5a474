/* SPDX-License-Identifier: MIT */
/* feature_int.h: the feature vocabulary shared by tile types (tileset.c)
 * and big-city pieces (map_check.c): the checks both make on a tile's
 * features (reading them is io/feature_xml_int.h). The two callers
 * report the same problems under their own rule ids (CM01xx for tile sets,
 * CM0209 for pieces), so each call names the ids; messages are the same. */
#ifndef CM_FEATURE_INT_H
#define CM_FEATURE_INT_H

#include "carcamap/tile.h"

/* Rule id per problem. */
typedef struct {
	const char *slot_twice;   /* a slot listed twice, or held by two features (CM0102) */
	const char *uncovered;    /* an edge slot of no feature (CM0101) */
	const char *shape;        /* slots or attributes the kind does not allow (CM0103) */
	const char *feature_id;   /* a feature id used twice (CM0105) */
	const char *touches;      /* touches naming no city (CM0106) */
	const char *contact;      /* a contact naming what is no feature (CM0107) */
	const char *contact_size; /* a contact of fewer than two features (CM0108) */
	const char *too_many;     /* more than CM_MAX_FEATURES features (CM0116) */
} cm_feature_rules;

/* Where the checks report: the caller turns (rule, line, feature, message)
 * into a diagnostic with its file or `where` string. f is NULL for
 * problems of the whole tile or of a contact. */
typedef void (*cm_feature_report_fn)(void *arg, const char *rule, unsigned line,
                                     const cm_feature *f, const char *msg);

typedef struct {
	const cm_feature_rules *rules;
	const char *noun;             /* "tile", "piece": "no feature of this tile" */
	const char *name;             /* "tile D", "piece (3,4)" */
	const unsigned *contact_line; /* line of each contact, or NULL: the tile's line */
	cm_feature_report_fn report;
	void *arg;
} cm_feature_checker;

/* The checks one at a time, for callers that interleave their own. */
void cm_feature_check_count(const cm_feature_checker *c, const cm_tile_type *t);
void cm_feature_check_id(const cm_feature_checker *c, const cm_tile_type *t, size_t k);
void cm_feature_check_shape(const cm_feature_checker *c, const cm_tile_type *t, const cm_feature *f);
void cm_feature_check_touches(const cm_feature_checker *c, const cm_tile_type *t, const cm_feature *f);
void cm_feature_check_coverage(const cm_feature_checker *c, const cm_tile_type *t);
void cm_feature_check_contact(const cm_feature_checker *c, const cm_tile_type *t, size_t i);
/* All of them, in that order (per feature: id, shape, touches). */
void cm_feature_check(const cm_feature_checker *c, const cm_tile_type *t);

/* Line of feature f of t: its own, else the tile's. */
unsigned cm_feature_line(const cm_tile_type *t, const cm_feature *f);
/* Line of contact i of t under c. */
unsigned cm_feature_contact_line(const cm_feature_checker *c, const cm_tile_type *t, size_t i);
/* f->id, or "?" when it has none. */
const char *cm_feature_id(const cm_feature *f);
int cm_feature_popcount(uint32_t v);

#endif
