/* SPDX-License-Identifier: MIT */
/* carcamap/workspace.h: the maps and tile sets one command works on. A
 * workspace loads descriptors (with their annotated images), tile sets and
 * packs, finds the tile sets that decks name, and hands out each map with
 * the sets its deck uses. Every command that takes map files uses one.
 * Threads: a workspace belongs to one thread while it loads and resolves;
 * loaded, its maps and tile sets may be read from any thread. */
#ifndef CARCAMAP_WORKSPACE_H
#define CARCAMAP_WORKSPACE_H

#include "map.h"
#include "tileset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cm_workspace cm_workspace;

/* A new empty workspace in *out; free with cm_workspace_free. 0 or CM_ENOMEM. */
int cm_workspace_new(cm_workspace **out);
/* Frees the workspace and every model it loaded; NULL is a no-op. */
void cm_workspace_free(cm_workspace *w);

/* Adds a directory searched for tile set files (*.xml with a <tileset>
 * root) when a deck names a set that no loaded file defines. Directories
 * are searched in the order added, after the files given to
 * cm_workspace_load, and before each map descriptor's ../tilesets (the
 * layout of the bundled maps/). In a directory, set ID is looked for in
 * ID.xml first, then in the other .xml files in name order (the first
 * holding it wins); files are read only as sets are looked for. The
 * string is copied. 0 or CM_ENOMEM. */
int cm_workspace_add_tileset_dir(cm_workspace *w, const char *dir);

/* The printing map descriptors are read in (a cm_edition; schemas/map.md
 * "Printings"): by default (-1) a descriptor gives one map per printing it
 * describes (ID, ID-c3, ...); with a printing set, only that printing, and
 * a descriptor that does not describe it is an error (CM0220). Packs are
 * not filtered. */
void cm_workspace_set_printing(cm_workspace *w, int printing);

/* Loads a file by its kind: a tile set; a map descriptor (its <image>
 * applied: CM_MAP_LOAD_IMAGE; every printing, see above); a pack (every map and tile set in it, or the
 * maps cm_workspace_set_map_only asks for, each map's stored content hash
 * verified: CM0408).
 * An id defined twice across the inputs with different content is an
 * error (CM0006); the same content twice (a file given twice, two packs
 * built from the same sets) is kept once. Problems go
 * to d. Returns 0, CM_EINVAL (see d), CM_EFORMAT (unknown kind: CM0005),
 * CM_EIO, CM_EVERSION, CM_ENOMEM. */
int cm_workspace_load(cm_workspace *w, const char *path, cm_diags *d);

/* Packs loaded after this read and verify only map id and its other
 * printings (id-c1, id-c2, id-c3), as a command that works on one map asks
 * (--map): the other maps of a pack of many are never read. A pack that
 * holds none of them is read whole, so that the missing map can be said
 * with the maps it holds; of the pack's tile sets, only those the decks of
 * the maps read name are loaded. Descriptors, Tiled maps and tile set
 * files are not filtered. NULL (the default): every map. The id is copied;
 * 0 or CM_ENOMEM. */
int cm_workspace_set_map_only(cm_workspace *w, const char *id);

/* Extra flags for the map descriptors cm_workspace_load reads; only
 * CM_MAP_LOAD_PARTIAL is taken: a descriptor whose checks fail is still
 * added (and cm_workspace_load returns CM_EINVAL), for commands that show
 * what was understood. Default 0. */
void cm_workspace_set_map_flags(cm_workspace *w, unsigned flags);

/* Finds the tile sets every map's deck names (loading them from the search
 * directories when needed) and checks the deck references (CM0212, CM0213).
 * Returns 0 or CM_EINVAL (see d) or CM_ENOMEM. */
int cm_workspace_resolve(cm_workspace *w, cm_diags *d);

/* Maps and tile sets in load order (borrowed; i out of range gives NULL).
 * The find functions look an id up in an index (its cost is the id's
 * length, whatever the number or the ids of the maps): a set's id must not
 * change while the workspace holds it (a map never changes). */
size_t cm_workspace_map_count(const cm_workspace *w);
const cm_map *cm_workspace_map(const cm_workspace *w, size_t i);
const cm_map *cm_workspace_find_map(const cm_workspace *w, const char *id);
size_t cm_workspace_tileset_count(const cm_workspace *w);
const cm_tileset *cm_workspace_tileset(const cm_workspace *w, size_t i);
const cm_tileset *cm_workspace_find_tileset(const cm_workspace *w, const char *id);

/* The tile sets m's deck names, found in the workspace, sorted by id, as a
 * new array of borrowed pointers in *out (free the array only). A set that
 * is not loaded is left out (cm_workspace_resolve reports it). 0 or CM_ENOMEM. */
int cm_workspace_map_sets(const cm_workspace *w, const cm_map *m, const cm_tileset ***out, size_t *n);

/* A file named name (no directory part) in the tile set search path: the
 * directories added, in order, then the directory ../tilesets beside m's
 * descriptor (m may be NULL). A new string (the path) or NULL when none
 * holds a regular file of that name. The TMX export finds the shared
 * kinds tileset (CM_TMX_KINDS) this way. */
char *cm_workspace_find_file(const cm_workspace *w, const cm_map *m, const char *name);

/* The content hash of m (cm_map_hash, carcamap/pack.h) with the tile sets
 * cm_workspace_map_sets finds. For a map read from a pack that stores this
 * definition of the hash (format 3 and later), the stored hash its reading
 * verified, not computed a second time, found in constant time (a map
 * never changes, so the stored hash stays its own); for any other, the
 * map's cached part and the sets'.
 * 0 or as cm_map_hash: CM_ENOTFOUND (a set of the deck is missing),
 * CM_EINVAL, CM_ENOMEM. */
int cm_workspace_map_hash(const cm_workspace *w, const cm_map *m, uint8_t out[32]);

/* Where a map came from: its descriptor path, or "PACK" for a pack (borrowed). */
const char *cm_workspace_map_source(const cm_workspace *w, size_t i);

#ifdef __cplusplus
}
#endif
#endif
