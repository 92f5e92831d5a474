/* SPDX-License-Identifier: MIT */
/* carcamap/tileset.h: tile sets, read from XML (schemas/tileset.xsd), with
 * the semantic checks CM01xx. A tile set is a named, edition-tagged
 * collection of tile types with counts; a map's deck is a list of them.
 * Threads: a tile set is only read once loaded: many threads may read one
 * (games, exports, hashes); changing one is for a thread no other is
 * reading it from. */
#ifndef CARCAMAP_TILESET_H
#define CARCAMAP_TILESET_H

#include "tile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cm_tileset {
	char *id;            /* "base", "inns-cathedrals" (unique in a pack) */
	char *name;          /* display name */
	bool base;           /* a base set: exactly one start tile */
	int total[CM_EDITION_COUNT]; /* declared totals; -1 when not declared */
	cm_tile_type *tiles;
	size_t n_tiles;
	char *file;          /* source path, NULL when built in memory */
	unsigned line;       /* line of the root element */
} cm_tileset;

/* Reads and checks a tile set file: XML syntax, schema, then every semantic
 * check, all problems into d. *out is set only when there are no errors.
 * Returns 0, CM_EINVAL (see d), CM_EIO, CM_ENOMEM. */
int cm_tileset_load_file(const char *path, cm_diags *d, cm_tileset **out);
/* The same from memory; file names the text in diagnostics. */
int cm_tileset_load_memory(const char *buf, size_t len, const char *file, cm_diags *d,
                           cm_tileset **out);
/* Flags for cm_tileset_load_file_flags. */
#define CM_TILESET_LOAD_PARTIAL 1u /* when the file parsed and followed the
                                    * schema but the checks (CM01xx, a grid)
                                    * found errors, still return the model in
                                    * *out, with CM_EINVAL: what a tile sheet
                                    * with --diagnostics draws. Such a model may
                                    * break any rule the checks enforce (slots
                                    * uncovered or taken twice, more than 32
                                    * features, ids twice) */
int cm_tileset_load_file_flags(const char *path, unsigned flags, cm_diags *d, cm_tileset **out);
/* Runs the semantic checks on a tile set built in memory (cm_tileset_load_*
 * already does). Returns 0 or CM_EINVAL when any error was reported. */
int cm_tileset_check(const cm_tileset *ts, cm_diags *d);
/* The one checker of the model's own invariants (for maps,
 * cm_map_builder_finish in carcamap/map.h, with the same limits): ids, texts, counts, feature kinds,
 * slots, touches and contacts inside the tile, tile ids unique. Each
 * problem goes to d (NULL: none reported) with rule (NULL: none) and file.
 * 0 or CM_EINVAL. The tile-set rules on a valid model: cm_tileset_check. */
int cm_tileset_check_model(const cm_tileset *ts, const char *rule, const char *file, cm_diags *d);
/* Frees the set and everything it owns; NULL is a no-op. */
void cm_tileset_free(cm_tileset *ts);

/* Copies of each drawn tile type in an edition, summed: abbey tiles (dealt
 * one per player, never drawn) are left out, as in the declared totals. */
int cm_tileset_total(const cm_tileset *ts, cm_edition e);
/* Whether t is an abbey tile: it holds an abbey feature. */
bool cm_tileset_is_abbey_tile(const cm_tile_type *t);
/* The tile type with this id (borrowed), or NULL. */
const cm_tile_type *cm_tileset_find(const cm_tileset *ts, const char *id);
/* Index of the start tile, or -1. */
int cm_tileset_start(const cm_tileset *ts);

/* Writes the set as XML (schemas/tileset.xsd), deterministic: reading it
 * back gives an equal model. A set the model checker refuses is not
 * written. 0, CM_EINVAL, CM_ENOMEM or CM_EIO. */
int cm_tileset_write_xml(const cm_tileset *ts, FILE *f);
/* The same with the refusal reported to d; like cm_map_write_xml_diag,
 * through libxml2's xmlTextWriter, f untouched unless the set is written. */
int cm_tileset_write_xml_diag(const cm_tileset *ts, FILE *f, cm_diags *d);

/* How the writer gives a tile's features: each with its slots listed, or
 * as a picture (schemas/tileset.md "Tiles as pictures"): a 5x5 <grid>
 * beside elements only for what the picture does not say (ids out of the
 * automatic order, coats of arms, inns, cathedrals, goods, touches other
 * than the cities a field's cells lie next to); a tile no picture can
 * hold (a slot of two features) keeps its slots. */
typedef enum { CM_TILE_FORM_SLOTS = 0, CM_TILE_FORM_GRID } cm_tile_form;
/* "slots", "grid"; parse: 0 or CM_EINVAL. */
const char *cm_tile_form_name(cm_tile_form f);
int cm_tile_form_parse(const char *s, cm_tile_form *out);
/* cm_tileset_write_xml_diag with the tiles in form: reading either form
 * back gives an equal model. */
int cm_tileset_write_xml_form(const cm_tileset *ts, cm_tile_form form, FILE *f, cm_diags *d);
/* Writes the set as indented JSON, deterministic: {"id","name","kind",
 * "totals":{"C1",…},"declared":{"C1": n or null,…},"tiles":[{"id","name",
 * "count":{"C1",…},"start","abbey","edges":[N,E,S,W],"features":[{"id",
 * "kind","slots":[…], kind's attributes}],"contacts":[[ids]]}]}.
 * 0 or CM_EIO. */
int cm_tileset_write_json(const cm_tileset *ts, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
