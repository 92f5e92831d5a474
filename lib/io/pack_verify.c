/* SPDX-License-Identifier: MIT */
/* pack_verify.c: what a pack stores beside a map checked against the map
 * it holds (carcamap/pack.h cm_pack_read_map_verified): the content hash,
 * recomputed from the map read and the tile sets its deck uses, and the
 * client binary, compared byte for byte with the encoding of that map;
 * both from the packed grid view the reading made (no second pass over a
 * million squares). Also the stored values themselves, as they are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "carcamap/catalog.h"
#include "export/export.h"
#include "io/pack_db_int.h"
#include "model/map_hash_int.h"
#include "model/map_int.h"
#include "base/util_int.h"

int cm_pack_map_hash(cm_pack *p, const char *id, uint8_t out[32])
{
	if (!cm__pack_has_id(p->maps, p->n_maps, id))
		return CM_ENOTFOUND;
	sqlite3_stmt *st = NULL;
	int rc = CM_EFORMAT;
	if (cm__pack_stmt(p, "SELECT hash FROM maps WHERE id = ?", &st) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB &&
	    sqlite3_column_bytes(st, 0) == 32) {
		memcpy(out, sqlite3_column_blob(st, 0), 32);
		rc = 0;
	}
out:
	cm__pack_release(p, st);
	return rc;
}

/* The stored binary of map id in p, in SQLite's own buffer (no copy of a
 * 20 MB blob) while st stands on its row: the row of the version this
 * carcamap writes (CM_EXPORT_BIN_MAJOR) or, in a pack of format 3 or older
 * without one, the version 1 row those wrote (*major says which). A
 * missing one is CM0413 (CM_EINVAL). */
static int stored_binary(cm_pack *p, const char *id, const char *where, sqlite3_stmt *st, unsigned *major,
                         const void **data, size_t *len, cm_diags *d)
{
	int s;
	*major = CM_EXPORT_BIN_MAJOR;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)*major);
	if ((s = sqlite3_step(st)) == SQLITE_DONE && p->version < 4) {
		sqlite3_reset(st);
		sqlite3_bind_int(st, 2, (int)(*major = 1));
		s = sqlite3_step(st);
	}
	if (s == SQLITE_DONE) {
		if (p->version < 4)
			cm_diags_check(d, "CM0413", p->path, 0, 0, where,
			               "no client binary (format version %d, or 1 in a pack of format %d) is stored",
			               CM_EXPORT_BIN_MAJOR, p->version);
		else
			cm_diags_check(d, "CM0413", p->path, 0, 0, where, "no client binary (format version %d) is stored",
			               CM_EXPORT_BIN_MAJOR);
		return CM_EINVAL;
	}
	if (s != SQLITE_ROW)
		return cm__pack_db_fail(d, p->db, p->path, "cannot read the pack");
	if (sqlite3_column_type(st, 0) != SQLITE_BLOB) {
		cm_diags_check(d, "CM0413", p->path, 0, 0, where, "the stored client binary is not a blob");
		return CM_EINVAL;
	}
	*data = sqlite3_column_blob(st, 0);
	*len = (size_t)sqlite3_column_bytes(st, 0);
	return *len && !*data ? CM_ENOMEM : 0;
}

/* The client binary the pack stores for a map must be, byte for byte, the
 * encoding cm_export_bin_mem gives of the verified model in its
 * version (stored_binary); a missing or altered binary is CM0413. */
static int check_binary(cm_pack *p, const char *id, const cm_map *m, const cm_tileset *const *sets, size_t n_sets,
                        const cm_map_grid *g, cm_diags *d)
{
	unsigned char *want = NULL;
	size_t want_len = 0, stored_len = 0;
	const void *stored = NULL;
	char where[256];
	snprintf(where, sizeof where, "map %.100s", id);
	sqlite3_stmt *st = NULL;
	unsigned major = CM_EXPORT_BIN_MAJOR;
	int rc;
	if (cm__pack_stmt(p, "SELECT data FROM map_binary WHERE map_id = ? AND format_version = ?", &st) != SQLITE_OK)
		rc = cm__pack_db_fail(d, p->db, p->path, "cannot read the pack");
	else
		rc = stored_binary(p, id, where, st, &major, &stored, &stored_len, d);
	if (rc)
		goto out;
	/* compared without building the file, the encoding is only built
	 * (for its length) when it differs; 2.0 with the grid view the
	 * reading made (its GRID, the squares with rows) */
	bool equal = false;
	cm_export_bin_opts o = { major, major == 2 && g && g->grid ? g : NULL };
	rc = cm__export_bin_equal(m, sets, n_sets, &o, stored, stored_len, &equal);
	if (!rc && !equal) {
		o.grid = NULL;
		rc = cm__export_bin_encode(m, sets, n_sets, &o, &want, &want_len);
	}
	if (rc == CM_ENOMEM)
		goto out;
	if (rc) {
		cm_diags_check(d, "CM0413", p->path, 0, 0, where, "the map cannot be encoded as a client binary: %s",
		               cm_strerror(rc));
		rc = CM_EINVAL;
	} else if (!equal) {
		cm_diags_check(d, "CM0413", p->path, 0, 0, where,
		               "stored client binary (format version %u, %zu bytes) differs from the encoding of the "
		               "map (%zu bytes)",
		               major, stored_len, want_len);
		rc = CM_EINVAL;
	}
out:
	cm__pack_release(p, st);
	free(want);
	return rc;
}

/* The tile sets m's deck names, each once in the order named, in sets
 * (room for m's deck): read from the pack the first time a map uses one
 * and kept on p for the next (a failed read is tried again, and reported
 * again, for the next map). */
static int deck_sets(cm_pack *p, const cm_map *m, const char *where, cm_diags *d, const cm_tileset **sets, size_t *n)
{
	*n = 0;
	if (p->n_sets && !p->vsets && (!(p->vsets = calloc(p->n_sets, sizeof *p->vsets)) ||
	                               !(p->vstamp = calloc(p->n_sets, sizeof *p->vstamp))))
		return CM_ENOMEM;
	p->vcall++;
	for (size_t i = 0; i < m->n_deck; i++) {
		const char *sid = m->deck[i].tileset;
		char **at = sid && p->n_sets ? bsearch(&sid, p->sets, p->n_sets, sizeof *p->sets, cm_strcmp_p) : NULL;
		if (!at) { /* the foreign keys forbid it; said all the same */
			cm_diags_check(d, "CM0407", p->path, 0, 0, where, "deck entry %zu names tile set %.100s, which the pack"
			               " does not hold", i, sid ? sid : "?");
			return CM_EINVAL;
		}
		size_t k = (size_t)(at - p->sets);
		if (p->vstamp[k] == p->vcall)
			continue;
		p->vstamp[k] = p->vcall;
		int rc;
		if (!p->vsets[k] && (rc = cm_pack_read_tileset(p, sid, d, &p->vsets[k])) != 0)
			return rc;
		sets[(*n)++] = p->vsets[k];
	}
	return 0;
}

int cm__pack_take_tileset(cm_pack *p, const char *id, bool read_only, cm_diags *d, cm_tileset **out)
{
	*out = NULL;
	char **at = id && p->n_sets ? bsearch(&id, p->sets, p->n_sets, sizeof *p->sets, cm_strcmp_p) : NULL;
	size_t k = at ? (size_t)(at - p->sets) : 0;
	if (at && p->vsets && p->vsets[k]) {
		*out = p->vsets[k];
		p->vsets[k] = NULL;
		return 0;
	}
	return read_only ? CM_ENOTFOUND : cm_pack_read_tileset(p, id, d, out);
}

int cm_pack_read_map_verified(cm_pack *p, const char *id, cm_diags *d, cm_map **out)
{
	cm_map *m = NULL;
	const cm_tileset **sets = NULL;
	size_t n = 0;
	uint8_t stored[32], got[32];
	cm_map_grid g;
	char where[256];
	snprintf(where, sizeof where, "map %.100s", id);
	*out = NULL;
	int rc = cm__pack_read_map(p, id, d, &m, &g);
	if (rc)
		goto out;
	if (cm_pack_map_hash(p, id, stored) != 0) { /* a CHECK of pack.sql's, never evaluated */
		cm_diags_check(d, "CM0407", p->path, 0, 0, where, "the stored content hash is not 32 bytes");
		rc = CM_EINVAL;
		goto out;
	}
	if (!(sets = calloc(m->n_deck + 1, sizeof *sets))) {
		rc = CM_ENOMEM;
		goto out;
	}
	if ((rc = deck_sets(p, m, where, d, sets, &n)) != 0 ||
	    (rc = cm__map_hash_grid(m, sets, n, false, g.grid ? &g : NULL, cm__pack_hash_version(p), got)) != 0)
		goto out;
	if (memcmp(stored, got, 32) != 0) {
		cm_diags_check(d, "CM0408", p->path, 0, 0, where,
		               "stored content hash differs from the hash of the stored content");
		rc = CM_EINVAL;
		goto out;
	}
	rc = check_binary(p, id, m, sets, n, &g, d);
out:
	cm__map_grid_free(&g);
	free(sets); /* the sets themselves are p's */
	if (rc)
		cm_map_free(m);
	else
		*out = m;
	return rc;
}

int cm_pack_verify_map(cm_pack *p, const char *id, cm_diags *d)
{
	cm_map *m = NULL;
	int rc = cm_pack_read_map_verified(p, id, d, &m);
	cm_map_free(m);
	return rc;
}

int cm_pack_map_binary(cm_pack *p, const char *id, int format_version, uint8_t **data, size_t *len)
{
	*data = NULL;
	*len = 0;
	if (!cm__pack_has_id(p->maps, p->n_maps, id))
		return CM_ENOTFOUND;
	sqlite3_stmt *st = NULL;
	int rc = CM_EFORMAT, s;
	if (sqlite3_prepare_v2(p->db, "SELECT data FROM map_binary WHERE map_id = ? AND format_version = ?", -1, &st,
	                       NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, format_version);
	if ((s = sqlite3_step(st)) == SQLITE_DONE) {
		rc = CM_ENOTFOUND;
	} else if (s == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB) {
		const void *b = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		uint8_t *copy = malloc((size_t)n + 1); /* +1: a zero-length blob is still a buffer */
		if (!copy) {
			rc = CM_ENOMEM;
			goto out;
		}
		if (n)
			memcpy(copy, b, (size_t)n);
		*data = copy;
		*len = (size_t)n;
		rc = 0;
	}
out:
	sqlite3_finalize(st);
	return rc;
}
