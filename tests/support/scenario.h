/* SPDX-License-Identifier: MIT */
/* tests/support/scenario.h: the scenario notation (test support, not part
 * of libcarcamap) (schemas/scenario.md): a small
 * map, tile types, deck, rule options and players in a compact text, plus
 * the steps of a rules case, kept as token lines for the caller (the
 * scenario runner, tests, the `rules` command) to interpret. It builds the
 * same cm_map and cm_tileset models the XML readers build. */
#ifndef CARCAMAP_SCENARIO_H
#define CARCAMAP_SCENARIO_H

#include "carcamap/board.h"
#include "carcamap/map.h"
#include "carcamap/tileset.h"

/* One step line, split at blanks; tok[0] is the verb. */
typedef struct {
	char **tok;
	int n_tok;
	unsigned line;
} cm_scenario_line;

typedef struct {
	char *name;            /* "scenario NAME", or NULL */
	char **rule_ids;       /* "rule ID …" lines: the RULES.md ids it covers */
	size_t n_rule_ids;
	cm_map *map;           /* owns; its rules are the scenario's rules */
	cm_tileset **sets;     /* owns; "set ID" starts one, tiles before any
	                        * set line form the set "inline" */
	size_t n_sets;
	int players;           /* default 2 */
	uint64_t seed;         /* default 1 */
	unsigned flags;        /* cm_board_new flags: "setup none" sets CM_BOARD_NO_SETUP */
	cm_scenario_line *steps;
	size_t n_steps;
	char *file;
} cm_scenario;

/* Reads a scenario file (schemas/scenario.md). Every problem goes to d (not
 * NULL) with file and line. *out is set only without errors. Returns 0, CM_EINVAL,
 * CM_EIO or CM_ENOMEM. */
int cm_scenario_read_file(const char *path, cm_diags *d, cm_scenario **out);
/* The same from a NUL-terminated text; file names it in diagnostics. */
int cm_scenario_read_text(const char *text, const char *file, cm_diags *d, cm_scenario **out);
void cm_scenario_free(cm_scenario *s); /* NULL is a no-op */

/* Parses one tile in the compact notation used by scenarios:
 *   "ID [count=N] [count-c1=N] [count-c2=N] [start] : FEATURE ; FEATURE …"
 * FEATURE is "KIND[SLOTS] ATTR…" (KIND road city field monastery garden
 * abbey; SLOTS slot names, empty for an inner field, a monastery or a
 * garden; ATTR arms=N, inn, cathedral, good=wine|grain|cloth,
 * touches=ID,ID, id=ID). Features get ids by kind and order (m1, c1, r1,
 * f1, g1, a1) unless id= is given. An item "contact[ID ID …]" is a
 * contact group (WAGON-C1), not a feature. On success t is filled (clear it with
 * cm_tile_type_clear) and derived; returns 0, CM_EINVAL with a message in
 * err (size errsize) or CM_ENOMEM. */
int cm_scenario_parse_tile(const char *text, cm_tile_type *t, char *err, size_t errsize);
/* Index of the feature with local id in t, or -1. */
int cm_scenario_feature(const cm_tile_type *t, const char *id);

#endif
