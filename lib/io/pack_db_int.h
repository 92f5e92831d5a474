/* SPDX-License-Identifier: MIT */
/* pack_db_int.h: what the pack's modules share (io/pack_open.c opens a
 * pack as hostile input and keeps its statements, io/pack_read.c reads it
 * into the model, io/pack_verify.c checks what it stores against what it
 * holds, io/pack_write.c writes one): the open pack, the embedded schema
 * and the limits of a value. The rest of io asks through io/pack_int.h. */
#ifndef CM_PACK_DB_INT_H
#define CM_PACK_DB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sqlite3.h>
#include "carcamap/pack.h"
#include "io/pack_int.h"
#include "model/map_grid_int.h"

/* One value as SQLite returns it, at most (SQLITE_LIMIT_LENGTH of a
 * reader; the largest binary a pack stores). */
#define CM__PACK_MAX_BLOB (256 * 1024 * 1024)

/* cm_pack_open and cm_pack_put_map_binary with that limit at max_value
 * (max_len) bytes instead of CM__PACK_MAX_BLOB: tests hold the limit at a
 * size they can afford, just inside and just outside a pack's largest
 * value (a value of 256 MiB costs more than a test may spend). */
int cm__pack_open_limited(const char *path, int max_value, cm_diags *d, cm_pack **out);
int cm__pack_put_map_binary_limited(const char *path, const char *id, int format_version, const void *data,
                                    size_t len, size_t max_len, cm_diags *d);

/* The print kind characters of map_grids.prints, by cm_print_kind. */
#define CM__PACK_PRINT_CHARS "-nrc"

#define CM__PACK_STMT_CACHE 32

struct cm_pack {
	sqlite3 *db;
	char *path;
	char **maps, **sets; /* ids, sorted bytewise */
	size_t n_maps, n_sets;
	int version;         /* user_version: 1 (squares only), 2 (map_grids), 3 (hash version 2),
	                      * 4 (client binary 2.0) */
	/* the tile sets verifying maps read (parallel to sets, read once for
	 * all the maps whose decks use them), and which of them the map being
	 * verified has taken (vstamp[i] == vcall) */
	cm_tileset **vsets;
	size_t *vstamp, vcall;
	/* the reading statements, prepared once per pack and reset after each
	 * use (cm__pack_stmt, cm__pack_release): reading many small maps costs
	 * their rows, not a parse of every query per map */
	struct cm__pack_stmt {
		char *sql;
		sqlite3_stmt *st;
		bool busy;
	} stmts[CM__PACK_STMT_CACHE];
	size_t n_stmts;
};

/* pack.sql, the schema this carcamap writes and compares a pack with. */
const char *cm__pack_sql(void);

/* A prepared statement of sql for p's database in *st: the cached one when
 * it is free, else a new one (cached when there is room). SQLite's result
 * code. Give it back with cm__pack_release. */
int cm__pack_stmt(cm_pack *p, const char *sql, sqlite3_stmt **st);
/* Gives back a statement of cm__pack_stmt (NULL: nothing): reset, its
 * bindings cleared, for the next use; finalized when it is not cached. */
void cm__pack_release(cm_pack *p, sqlite3_stmt *st);

/* A failure SQLite reports while reading db (the pack at path), reported
 * into d as what went wrong while doing what: CM0404 (damage, CM_EFORMAT),
 * a transient lock (no rule, CM_EIO) or CM_ENOMEM (no diagnostic). */
int cm__pack_db_fail(cm_diags *d, sqlite3 *db, const char *path, const char *what);

/* Whether id is among the n sorted ids. */
bool cm__pack_has_id(char **ids, size_t n, const char *id);

/* cm_pack_read_map, and with grid (formats 2 and later) the map's packed
 * grid view made from the grid texts on the way (its buffers the caller's,
 * freed with cm__map_grid_free; empty in format 1 or on failure). */
int cm__pack_read_map(cm_pack *p, const char *id, cm_diags *d, cm_map **out, cm_map_grid *grid);

#endif
