/* SPDX-License-Identifier: MIT */
/* carcamap/pack.h: map packs, SQLite files holding maps and tile sets
 * (DESIGN.md "Pack (SQLite)", schema and promises in schemas/pack.md).
 * Writing is atomic (temporary file beside the target, then rename);
 * opening treats the file as hostile and checks it before any read.
 * Problems are reported into a cm_diags sink with ids CM04xx.
 * Threads: a cm_pack, an SQLite connection, belongs to one thread at a
 * time; packs written to different paths may be written at once. */
#ifndef CARCAMAP_PACK_H
#define CARCAMAP_PACK_H

#include "common.h"
#include "diag.h"
#include "map.h"
#include "tileset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The pack format this build writes and the newest it reads. */
#define CM_PACK_VERSION 4
/* SQLite application_id of every carcamap pack: 'CAMP'. */
#define CM_PACK_APPLICATION_ID 0x43414D50u

typedef struct cm_pack cm_pack;

/* Writes a new pack at path holding the given maps and tile sets, replacing
 * any file there. The pack is built in one transaction in a temporary file
 * beside path, synced, then renamed over path: on any failure the temporary
 * file is removed and path is untouched. The inputs are checked first
 * (CM0409 a deck names a set or tile not given, CM0410 duplicate ids,
 * CM0411 a tile set value the pack cannot hold, or a partial map); maps
 * passed the model's checker when they were built. Maps and sets are
 * stored in id order and the output bytes depend only on the inputs (no
 * timestamps). Borrowed: maps and sets. Returns 0, CM_EINVAL (see d),
 * CM_EIO (cannot create, write or rename; see d), CM_ENOMEM. */
int cm_pack_write(const char *path, const cm_map *const *maps, size_t n_maps, const cm_tileset *const *sets,
                  size_t n_sets, cm_diags *d);

/* Opens a pack read-only and immutable as untrusted input: SQLite
 * defensive mode, no trusted schema, cell size checks, no extensions, no
 * lock, and nothing ever read from or written beside the file. Checks, in
 * order (schemas/pack.md "Opening a pack"): the SQLite header (CM0401, a
 * WAL-mode pack CM0412), a -wal file beside it (CM0412) or a -journal
 * (CM_EIO: another program writing it), the application id (CM0402), the
 * format version (CM0403, CM_EVERSION), the schema against
 * schemas/pack.sql before anything evaluates it (an unknown table or
 * index, a generated column, other columns: CM0405; triggers or views:
 * CM0406), PRAGMA quick_check (CM0404), the foreign keys (CM0407), and the
 * id lists: time and memory bounded by the file's size. *out is set only
 * on success; free it with cm_pack_close. Returns 0, CM_EIO (cannot open,
 * or a journal beside it), CM_EFORMAT (not a carcamap pack, or damaged),
 * CM_EVERSION, CM_ENOMEM. */
int cm_pack_open(const char *path, cm_diags *d, cm_pack **out);
/* Closes the pack; NULL is a no-op. */
void cm_pack_close(cm_pack *p);

/* Maps and tile sets in the pack, sorted by id (bytewise). The ids are
 * borrowed from the pack; i out of range gives NULL. */
size_t cm_pack_map_count(const cm_pack *p);
const char *cm_pack_map_id(const cm_pack *p, size_t i);
size_t cm_pack_tileset_count(const cm_pack *p);
const char *cm_pack_tileset_id(const cm_pack *p, size_t i);

/* Reads one map or tile set into a new model in *out (caller frees with
 * cm_map_free / cm_tileset_free). Every value is range-checked; problems
 * are reported as CM0407 with file = the pack path and a where such as
 * "map germany, square (3,4)", and the model is then also checked as
 * cm_pack_write would (CM0407). file and line fields of the result are
 * NULL and 0. Returns 0, CM_ENOTFOUND (no such id), CM_EINVAL, CM_EFORMAT
 * (SQLite reports damage), CM_ENOMEM. */
int cm_pack_read_map(cm_pack *p, const char *id, cm_diags *d, cm_map **out);
int cm_pack_read_tileset(cm_pack *p, const char *id, cm_diags *d, cm_tileset **out);

/* The content hash stored for a map. Returns 0, CM_ENOTFOUND, CM_EFORMAT. */
int cm_pack_map_hash(cm_pack *p, const char *id, uint8_t out[32]);
/* Reads the map and the tile sets its deck uses, recomputes cm_map_hash and
 * compares it with the stored one (CM0408 on a mismatch), then compares
 * the stored client binary (format CM_EXPORT_BIN_MAJOR; in a pack of
 * format 3 or older without one, the format 1 binary those wrote) byte for
 * byte with cm_export_bin_mem of the model in that format (CM0413 if
 * missing or different). Returns 0,
 * CM_EINVAL (mismatch or unreadable content, see d), CM_ENOTFOUND, CM_ENOMEM. */
int cm_pack_verify_map(cm_pack *p, const char *id, cm_diags *d);
/* cm_pack_read_map and cm_pack_verify_map in one: the map is read once,
 * its hash recomputed and compared, and only then handed out in *out (NULL
 * on any failure). Same returns as cm_pack_verify_map. */
int cm_pack_read_map_verified(cm_pack *p, const char *id, cm_diags *d, cm_map **out);

/* The client binary encoding of a map stored in the reserved table, in
 * format_version. *data is a new buffer (caller frees with free) of *len
 * bytes. Returns 0, CM_ENOTFOUND (no map, or no binary in that version),
 * CM_EFORMAT, CM_ENOMEM. */
int cm_pack_map_binary(cm_pack *p, const char *id, int format_version, uint8_t **data,
                       size_t *len);
/* Stores (or replaces) the binary encoding of map id in the pack at path,
 * atomically: the pack is checked as by cm_pack_open, copied to a
 * temporary file beside it, changed there, synced and renamed over path.
 * Returns 0, CM_ENOTFOUND (no such map), CM_EIO, CM_EFORMAT, CM_EVERSION,
 * CM_ENOMEM. */
int cm_pack_put_map_binary(const char *path, const char *id, int format_version,
                           const void *data, size_t len, cm_diags *d);

/* SHA-256 over a canonical serialization of a map's logical content and of
 * the tile sets its deck uses (schemas/pack.md "Content hash"), in the
 * definition CM_MAP_HASH_VERSION: file names, image and legend paths and
 * line numbers are left out, so the same map from another directory has
 * the same hash. sets must hold every tile set the deck names (more are
 * ignored). The map's own part (all but its tile sets and about fields)
 * is computed once per map and cached on it: asking again, from any
 * thread, hashes only the tile sets. Returns 0, CM_ENOTFOUND (a deck set
 * is missing from sets), CM_EINVAL (a value the serialization cannot
 * hold), CM_ENOMEM. */
int cm_map_hash(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, uint8_t out[32]);
/* The content hash definition cm_map_hash computes and packs of format 3
 * and CM_PACK_VERSION store: 2. Packs of format 1 and 2 store version 1. */
#define CM_MAP_HASH_VERSION 2
/* cm_map_hash in the given definition (1 or 2, schemas/pack.md); CM_EINVAL
 * for any other version. */
int cm_map_hash_version(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, int version,
                        uint8_t out[32]);

#ifdef __cplusplus
}
#endif
#endif
