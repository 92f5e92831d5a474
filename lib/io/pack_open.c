/* SPDX-License-Identifier: MIT */
/* pack_open.c: opening a pack as hostile input (carcamap/pack.h
 * cm_pack_open): the SQLite header looked at before SQLite opens the file,
 * then the application id, the format version, the pages (quick_check),
 * the schema against pack.sql, the foreign keys and the id lists, in that
 * order; and the open pack's statements, kept for its readers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "carcamap/catalog.h"
#include "io/pack_db_int.h"
#include "io/schema_int.h"
#include "base/util_int.h"

const char *cm__pack_sql(void)
{
	for (const cm_embedded_schema *s = cm_embedded_schemas; s->name; s++)
		if (strcmp(s->name, "pack.sql") == 0)
			return (const char *)s->data;
	return NULL;
}

bool cm__sqlite_signature(const void *head, size_t n)
{
	return n >= 16 && memcmp(head, "SQLite format 3", 16) == 0;
}

int cm__pack_hash_version(const cm_pack *p)
{
	return p->version >= 3 ? 2 : 1;
}

bool cm__pack_has_id(char **ids, size_t n, const char *id)
{
	return id && bsearch(&id, ids, n, sizeof *ids, cm_strcmp_p) != NULL;
}

int cm__pack_stmt(cm_pack *p, const char *sql, sqlite3_stmt **st)
{
	bool known = false;
	for (size_t i = 0; i < p->n_stmts; i++)
		if (strcmp(p->stmts[i].sql, sql) == 0) {
			if (!p->stmts[i].busy) {
				p->stmts[i].busy = true;
				*st = p->stmts[i].st;
				return SQLITE_OK;
			}
			known = true;
		}
	int rc = sqlite3_prepare_v2(p->db, sql, -1, st, NULL);
	if (rc != SQLITE_OK || known || p->n_stmts == CM__PACK_STMT_CACHE)
		return rc;
	char *copy = cm_strdup(sql);
	if (copy) /* else simply not cached */
		p->stmts[p->n_stmts++] = (struct cm__pack_stmt){ copy, *st, true };
	return SQLITE_OK;
}

void cm__pack_release(cm_pack *p, sqlite3_stmt *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < p->n_stmts; i++)
		if (p->stmts[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			p->stmts[i].busy = false;
			return;
		}
	sqlite3_finalize(st);
}

static void pack_free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

void cm_pack_close(cm_pack *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_stmts; i++) {
		sqlite3_finalize(p->stmts[i].st);
		free(p->stmts[i].sql);
	}
	sqlite3_close(p->db);
	pack_free_ids(p->maps, p->n_maps);
	for (size_t i = 0; p->vsets && i < p->n_sets; i++)
		cm_tileset_free(p->vsets[i]);
	free(p->vsets);
	free(p->vstamp);
	pack_free_ids(p->sets, p->n_sets);
	free(p->path);
	free(p);
}

/* Damage shows as CORRUPT or NOTADB and is CM0404; a pack locked by
 * another writer (BUSY, LOCKED) is a transient I/O failure, not bad input
 * (CM_EIO, no check id); anything else is reported as it is. */
int cm__pack_db_fail(cm_diags *d, sqlite3 *db, const char *path, const char *what)
{
	int e = sqlite3_extended_errcode(db) & 0xff;
	if (e == SQLITE_NOMEM)
		return CM_ENOMEM;
	if (e == SQLITE_BUSY || e == SQLITE_LOCKED) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL,
		             "%s: the pack is locked by another program writing it (%s); try again when it"
		             " has finished",
		             what, sqlite3_errmsg(db));
		return CM_EIO;
	}
	cm_diags_check(d, "CM0404", path, 0, 0, NULL, "%s: %s", what, sqlite3_errmsg(db));
	return CM_EFORMAT;
}

static int pragma_int(cm_diags *d, sqlite3 *db, const char *path, const char *sql, long long *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return 0;
	}
	rc = cm__pack_db_fail(d, db, path, "cannot read the pack");
	sqlite3_finalize(st);
	return rc;
}

/* Runs a query whose rows may report problems: report(d, path, row)
 * returns 1 when the row was a problem. Returns CM_EFORMAT when any was. */
static int report_rows(cm_diags *d, sqlite3 *db, const char *path, const char *sql,
                       int (*report)(cm_diags *, const char *, sqlite3_stmt *))
{
	sqlite3_stmt *st = NULL;
	int n = 0, rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return cm__pack_db_fail(d, db, path, "cannot check the pack");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		n += report(d, path, st);
	rc = rc == SQLITE_DONE ? (n ? CM_EFORMAT : 0) : cm__pack_db_fail(d, db, path, "cannot check the pack");
	sqlite3_finalize(st);
	return rc;
}

static int quick_check_row(cm_diags *d, const char *path, sqlite3_stmt *st)
{
	const char *msg = (const char *)sqlite3_column_text(st, 0);
	if (msg && strcmp(msg, "ok") == 0)
		return 0;
	/* one line per diagnostic: drop SQLite's "*** in database main ***" heading */
	char line[256];
	const char *head = "*** in database main ***\n";
	if (msg && strncmp(msg, head, strlen(head)) == 0)
		msg += strlen(head);
	snprintf(line, sizeof line, "%s", msg ? msg : "?");
	for (char *c = line; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	cm_diags_check(d, "CM0404", path, 0, 0, NULL, "quick_check: %s", line);
	return 1;
}

static int foreign_key_row(cm_diags *d, const char *path, sqlite3_stmt *st)
{
	cm_diags_check(d, "CM0407", path, 0, 0, NULL,
	               "row %lld of table %.64s refers to a missing row of %.64s",
	               sqlite3_column_int64(st, 1), (const char *)sqlite3_column_text(st, 0),
	               (const char *)sqlite3_column_text(st, 2));
	return 1;
}

static int code_row(cm_diags *d, const char *path, sqlite3_stmt *st)
{
	cm_diags_check(d, "CM0406", path, 0, 0, NULL, "pack contains %s %.64s",
	               (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
	return 1;
}

/* One table's shape: "STRICT;name TYPE notnull pk;…", comparable as text. */
static char *table_shape(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st = NULL;
	char *s = NULL;
	size_t len = 0, cap = 0;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT strict FROM pragma_table_list(?1)), name, type,"
	                           " \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid",
	                       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *row = cm_asprintf("%s%.64s %.32s %d %d;", len ? "" : (sqlite3_column_int(st, 0) ? "STRICT;" : "plain;"),
		                        (const char *)sqlite3_column_text(st, 1),
		                        (const char *)sqlite3_column_text(st, 2), sqlite3_column_int(st, 3),
		                        sqlite3_column_int(st, 4));
		size_t n = row ? strlen(row) : 0;
		if (!row || cm_grow((void **)&s, &cap, len + n, 1) != 0) {
			free(row);
			rc = SQLITE_NOMEM;
			break;
		}
		memcpy(s + len, row, n + 1);
		len += n;
		free(row);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(s);
		return NULL;
	}
	return s ? s : cm_strdup("");
}

/* Tables a pack of format version ver may lack: map_about, which format 1
 * gained later, tile_markers, which format 4 gained later, and map_grids,
 * new in format 2. */
static bool table_optional(const char *t, long long ver)
{
	return strcmp(t, "map_about") == 0 || strcmp(t, "tile_markers") == 0 ||
	       (ver < 2 && strcmp(t, "map_grids") == 0);
}

/* Whether every table of schema (pack.sql) is in db created by the very
 * statement pack.sql has for it (sqlite_schema keeps that text as it was
 * run, comments and all): the pack's shape is then the reference's
 * without building it, as with every pack this carcamap writes. Anything
 * else, an older pack too, gets check_tables' comparison column by
 * column. */
static bool tables_as_written(sqlite3 *db, const char *schema)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", -1, &st,
	                       NULL) != SQLITE_OK)
		return false;
	bool same = true;
	static const char head[] = "CREATE TABLE ", tail[] = "\n) STRICT;";
	for (const char *c = strstr(schema, head); same && c; c = strstr(c, head)) {
		const char *name = c + sizeof head - 1, *sp = strchr(name, ' ');
		const char *e = strstr(c, tail);
		if ((c != schema && c[-1] != '\n') || !sp || !e) { /* not a statement of the usual form */
			same = false;
			break;
		}
		size_t len = (size_t)(e - c) + sizeof tail - 2; /* up to STRICT, without the ';' */
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, name, (int)(sp - name), SQLITE_STATIC);
		same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
		       (size_t)sqlite3_column_bytes(st, 0) == len && memcmp(sqlite3_column_text(st, 0), c, len) == 0;
		c = e;
	}
	sqlite3_finalize(st);
	return same;
}

/* Every table of schemas/pack.sql must exist in the pack with the same
 * columns (name, type, not null, primary key) and be STRICT; an optional
 * one may be missing. */
static int check_tables(cm_diags *d, sqlite3 *db, const char *path, long long ver)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *st = NULL;
	int rc = 0, bad = 0;
	const char *schema = cm__pack_sql();
	if (!schema)
		return CM_EINTERNAL;
	if (tables_as_written(db, schema))
		return 0;
	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) !=
	        SQLITE_OK ||
	    sqlite3_exec(ref, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
	                       -1, &st, NULL) != SQLITE_OK) {
		rc = CM_EINTERNAL;
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		char *want = table_shape(ref, t), *got = table_shape(db, t);
		if (!want) {
			rc = CM_EINTERNAL;
		} else if (!got) {
			rc = cm__pack_db_fail(d, db, path, "cannot read the schema");
		} else if (!*got && table_optional(t, ver)) {
			/* an older pack: read as holding no such rows */
		} else if (!*got) {
			cm_diags_check(d, "CM0405", path, 0, 0, NULL, "table %s is missing", t);
			bad = 1;
		} else if (strcmp(want, got) != 0) {
			cm_diags_check(d, "CM0405", path, 0, 0, NULL,
			               "table %s has other columns than format version %d defines", t,
			               CM_PACK_VERSION);
			bad = 1;
		}
		free(want);
		free(got);
		if (rc < 0)
			goto out;
	}
	rc = rc == SQLITE_DONE ? (bad ? CM_EFORMAT : 0) : CM_EINTERNAL;
out:
	sqlite3_finalize(st);
	sqlite3_close(ref);
	return rc;
}

/* Loads "SELECT id FROM <table>" into a sorted array of checked ids. */
static int load_ids(cm_diags *d, sqlite3 *db, const char *path, const char *table, char ***out,
                    size_t *n_out)
{
	sqlite3_stmt *st = NULL;
	char **ids = NULL, *sql = cm_asprintf("SELECT id FROM %s", table);
	size_t n = 0, cap = 0;
	int rc = 0;
	if (!sql)
		return CM_ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = cm__pack_db_fail(d, db, path, "cannot list the pack");
		goto out;
	}
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		int bytes = sqlite3_column_bytes(st, 0);
		const char *t = (const char *)sqlite3_column_text(st, 0);
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT || !t || bytes < 1 || bytes > CM_TEXT_MAX ||
		    memchr(t, 0, (size_t)bytes)) {
			cm_diags_check(d, "CM0407", path, 0, 0, NULL, "an id in table %s is not a short text",
			               table);
			rc = CM_EFORMAT;
			goto out;
		}
		if (!cm_id_valid(t) || (size_t)bytes != strlen(t)) {
			/* ids name output files (compile, render): never ../x */
			cm_diags_check(d, "CM0407", path, 0, 0, NULL,
			               "an id in table %s is not an id (1 to %d of a-z, 0-9 and '-', "
			               "not starting with '-')",
			               table, CM_ID_MAX);
			rc = CM_EFORMAT;
			goto out;
		}
		if (n >= CM_ITEMS_MAX) {
			cm_diags_check(d, "CM0407", path, 0, 0, NULL, "table %s has more than %d rows", table,
			               CM_ITEMS_MAX);
			rc = CM_EFORMAT;
			goto out;
		}
		if (cm_grow((void **)&ids, &cap, n, sizeof *ids) != 0 ||
		    !(ids[n] = cm_strndup(t, (size_t)bytes))) {
			rc = CM_ENOMEM;
			goto out;
		}
		n++;
	}
	if (s != SQLITE_DONE) {
		rc = cm__pack_db_fail(d, db, path, "cannot list the pack");
		goto out;
	}
	if (n)
		qsort(ids, n, sizeof *ids, cm_strcmp_p);
	*out = ids;
	*n_out = n;
	ids = NULL;
out:
	if (ids)
		pack_free_ids(ids, n);
	sqlite3_finalize(st);
	free(sql);
	return rc;
}

/* Whether the first bytes are the SQLite header. A file that cannot be read
 * is reported as such (no rule). */
static int sniff(const char *path, cm_diags *d)
{
	FILE *f;
	if (cm_open_read(path, d, &f))
		return CM_EIO;
	char head[100];
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	if (!cm__sqlite_signature(head, n)) {
		cm_diags_check(d, "CM0401", path, 0, 0, NULL, "not a carcamap pack: not an SQLite database");
		return CM_EFORMAT;
	}
	/* SQLite reads a short header as zeros and would call it another
	 * application's database */
	if (n < sizeof head) {
		cm_diags_check(d, "CM0404", path, 0, 0, NULL,
		               "file ends within the 100-byte SQLite header (%zu bytes)", n);
		return CM_EFORMAT;
	}
	/* Bytes 18 and 19 are 2 in WAL mode: SQLite would then create -wal and
	 * -shm files beside the pack, even on a read-only open, and leave them
	 * there. carcamap writes packs in rollback mode (1); refuse others. */
	if (head[18] == 2 && head[19] == 2) {
		cm_diags_check(d, "CM0412", path, 0, 0, NULL,
		               "pack is in WAL journal mode: a pack is a single file in rollback journal mode "
		               "(sqlite3 PACK 'PRAGMA journal_mode=DELETE' converts it)");
		return CM_EFORMAT;
	}
	if (head[18] != 1 || head[19] != 1) {
		cm_diags_check(d, "CM0404", path, 0, 0, NULL, "invalid SQLite file format bytes %d/%d in the header",
		               head[18], head[19]);
		return CM_EFORMAT;
	}
	return 0;
}

int cm_pack_open(const char *path, cm_diags *d, cm_pack **out)
{
	*out = NULL;
	int rc = sniff(path, d);
	if (rc)
		return rc;
	cm_pack *p = calloc(1, sizeof *p);
	if (!p || !(p->path = cm_strdup(path))) {
		free(p);
		return CM_ENOMEM;
	}
	if (sqlite3_open_v2(path, &p->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		if (!p->db)
			rc = CM_ENOMEM;
		else {
			cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot open: %s",
			             sqlite3_errmsg(p->db));
			rc = CM_EIO;
		}
		goto out;
	}
	/* The file is hostile: no schema-defined code runs with trust, no
	 * extensions, writes to the schema are refused, cells are checked. */
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_limit(p->db, SQLITE_LIMIT_LENGTH, CM__PACK_MAX_BLOB);
	sqlite3_limit(p->db, SQLITE_LIMIT_ATTACHED, 0);
	/* A page cache of up to 32 MB: quick_check reads every page once, and
	 * the maps' rows are read from the cache after it, not from the file a
	 * second time (SQLite's default of 2 MB holds a third of a 1000x1000
	 * map's pack). The shared lock, once taken, is held until the pack is
	 * closed (locking_mode EXCLUSIVE: a reader's shared lock; packs are
	 * replaced by renaming, never written in place): reading each of many
	 * small maps does not lock, check for a journal and reread the header
	 * again, statement by statement. */
	if (sqlite3_exec(p->db, "PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON;"
	                        " PRAGMA query_only=ON; PRAGMA mmap_size=0; PRAGMA cache_size=-32768;"
	                        " PRAGMA locking_mode=EXCLUSIVE", NULL, NULL,
	                 NULL) != SQLITE_OK) {
		rc = cm__pack_db_fail(d, p->db, path, "cannot read the pack");
		goto out;
	}
	long long app, ver;
	if ((rc = pragma_int(d, p->db, path, "PRAGMA application_id", &app)) != 0 ||
	    (rc = pragma_int(d, p->db, path, "PRAGMA user_version", &ver)) != 0)
		goto out;
	if ((uint32_t)app != CM_PACK_APPLICATION_ID) {
		cm_diags_check(d, "CM0402", path, 0, 0, NULL, "not a carcamap pack (application id 0x%08x)",
		               (unsigned)(uint32_t)app);
		rc = CM_EFORMAT;
		goto out;
	}
	if (ver > CM_PACK_VERSION) {
		cm_diags_check(d, "CM0403", path, 0, 0, NULL,
		               "pack format version %lld is newer than this carcamap reads (max %d)", ver,
		               CM_PACK_VERSION);
		rc = CM_EVERSION;
		goto out;
	}
	if (ver < 1) {
		cm_diags_check(d, "CM0405", path, 0, 0, NULL, "pack format version %lld does not exist", ver);
		rc = CM_EFORMAT;
		goto out;
	}
	p->version = (int)ver;
	if ((rc = report_rows(d, p->db, path, "PRAGMA quick_check(5)", quick_check_row)) != 0 ||
	    (rc = report_rows(d, p->db, path, "SELECT type, name FROM sqlite_schema WHERE type IN"
	                                      " ('trigger', 'view') ORDER BY type, name", code_row)) != 0 ||
	    (rc = check_tables(d, p->db, path, ver)) != 0 ||
	    (rc = report_rows(d, p->db, path, "SELECT \"table\", rowid, parent FROM"
	                                      " pragma_foreign_key_check LIMIT 5", foreign_key_row)) != 0 ||
	    (rc = load_ids(d, p->db, path, "maps", &p->maps, &p->n_maps)) != 0 ||
	    (rc = load_ids(d, p->db, path, "tilesets", &p->sets, &p->n_sets)) != 0)
		goto out;
	*out = p;
	p = NULL;
out:
	cm_pack_close(p);
	return rc;
}

size_t cm_pack_map_count(const cm_pack *p)
{
	return p ? p->n_maps : 0;
}

const char *cm_pack_map_id(const cm_pack *p, size_t i)
{
	return p && i < p->n_maps ? p->maps[i] : NULL;
}

size_t cm_pack_tileset_count(const cm_pack *p)
{
	return p ? p->n_sets : 0;
}

const char *cm_pack_tileset_id(const cm_pack *p, size_t i)
{
	return p && i < p->n_sets ? p->sets[i] : NULL;
}

