/* SPDX-License-Identifier: MIT */
/* pack_open.c: opening a pack as hostile input (carcamap/pack.h
 * cm_pack_open): the SQLite header looked at before SQLite opens the file,
 * then the application id, the format version, the pages (quick_check),
 * the schema against pack.sql, the foreign keys and the id lists, in that
 * order; and the open pack's statements, kept for its readers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Runs a statement whose rows may report problems: report(d, path, row)
 * returns 1 when the row was a problem; after max problems the statement
 * is not stepped further. Returns CM_EFORMAT when any row was one. */
static int report_rows(cm_diags *d, sqlite3 *db, const char *path, const char *sql, int max,
                       int (*report)(cm_diags *, const char *, sqlite3_stmt *))
{
	sqlite3_stmt *st = NULL;
	int n = 0, rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return cm__pack_db_fail(d, db, path, "cannot check the pack");
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
		n += report(d, path, st);
	rc = n ? CM_EFORMAT : rc == SQLITE_DONE ? 0 : cm__pack_db_fail(d, db, path, "cannot check the pack");
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

/* A row of PRAGMA foreign_key_check: table, rowid, parent, fkid. */
static int foreign_key_row(cm_diags *d, const char *path, sqlite3_stmt *st)
{
	cm_diags_check(d, "CM0407", path, 0, 0, NULL,
	               "row %lld of table %.64s refers to a missing row of %.64s",
	               sqlite3_column_int64(st, 1), (const char *)sqlite3_column_text(st, 0),
	               (const char *)sqlite3_column_text(st, 2));
	return 1;
}

/* ---- the schema, compared with pack.sql before anything evaluates it ----
 * quick_check computes every generated column of every row (and would
 * check CHECK constraints), and a query may use an index: a hostile schema
 * could make either cost any time or memory. So every object of the
 * schema is looked at first, from sqlite_schema and the PRAGMA statements
 * that describe tables (never the pragma_* table functions, which a table
 * of that name in the pack would shadow), and nothing else runs before it
 * passes. */

#define MAX_TABLES 32 /* pack.sql's tables, at most */

/* A table of pack.sql: its name and the statement that creates it, as
 * sqlite_schema keeps it (from CREATE up to STRICT, comments and all). */
typedef struct {
	char name[64];
	const char *sql;
	size_t sql_len;
} ref_table;

/* The tables of schema (pack.sql) into t, in order: their number, or 0
 * when a statement is not of the usual form. */
static size_t ref_tables(const char *schema, ref_table *t)
{
	static const char head[] = "CREATE TABLE ", tail[] = "\n) STRICT;";
	size_t n = 0;
	for (const char *c = strstr(schema, head); c; c = strstr(c, head)) {
		const char *name = c + sizeof head - 1, *sp = strchr(name, ' '), *e = strstr(c, tail);
		if ((c != schema && c[-1] != '\n') || !sp || !e || n == MAX_TABLES || (size_t)(sp - name) >= sizeof t->name)
			return 0;
		memcpy(t[n].name, name, (size_t)(sp - name));
		t[n].name[sp - name] = '\0';
		t[n].sql = c;
		t[n].sql_len = (size_t)(e - c) + sizeof tail - 2; /* up to STRICT, without the ';' */
		n++;
		c = e;
	}
	return n;
}

static const ref_table *ref_find(const ref_table *t, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

/* Tables a pack of format version ver may lack: map_about, which format 1
 * gained later, tile_markers, which format 4 gained later, and map_grids,
 * new in format 2. */
static bool table_optional(const char *t, long long ver)
{
	return strcmp(t, "map_about") == 0 || strcmp(t, "tile_markers") == 0 ||
	       (ver < 2 && strcmp(t, "map_grids") == 0);
}

#define MAX_OBJECT_DIAGS 20 /* unknown objects named; the rest counted */

/* Every object of the schema is one of pack.sql's: its tables, and the
 * indexes SQLite makes for their keys (an index of the pack's own would be
 * an expression or a collation to evaluate, a plan to follow). A trigger or
 * view is CM0406 (never run: triggers and views are off), anything else
 * CM0405. */
static int check_objects(cm_diags *d, sqlite3 *db, const char *path, const ref_table *t, size_t n_t)
{
	sqlite3_stmt *st = NULL;
	size_t bad = 0;
	int s;
	if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql IS NULL FROM main.sqlite_schema ORDER BY type, name",
	                       -1, &st, NULL) != SQLITE_OK)
		return cm__pack_db_fail(d, db, path, "cannot read the schema");
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0), *name = (const char *)sqlite3_column_text(st, 1);
		const char *table = (const char *)sqlite3_column_text(st, 2);
		bool code = type && (strcmp(type, "trigger") == 0 || strcmp(type, "view") == 0);
		bool known = type && ((strcmp(type, "table") == 0 && ref_find(t, n_t, name)) ||
		                      (strcmp(type, "index") == 0 && sqlite3_column_int(st, 3) && ref_find(t, n_t, table)));
		if (known)
			continue;
		if (bad++ >= MAX_OBJECT_DIAGS)
			continue;
		if (code)
			cm_diags_check(d, "CM0406", path, 0, 0, NULL, "pack contains %s %.64s", type, name ? name : "?");
		else
			cm_diags_check(d, "CM0405", path, 0, 0, NULL,
			               "%.16s %.64s is not one of format version %d's (a pack holds the tables of "
			               "schemas/pack.sql and their keys' indexes, nothing else)",
			               type ? type : "object", name ? name : "?", CM_PACK_VERSION);
	}
	if (bad > MAX_OBJECT_DIAGS)
		cm_diags_check(d, "CM0405", path, 0, 0, NULL, "and %zu more objects that are not format version %d's",
		               bad - MAX_OBJECT_DIAGS, CM_PACK_VERSION);
	int rc = s != SQLITE_DONE ? cm__pack_db_fail(d, db, path, "cannot read the schema") : bad ? CM_EFORMAT : 0;
	sqlite3_finalize(st);
	return rc;
}

/* What describes one table, as comparable texts: its kind (table_list:
 * type, columns, WITHOUT ROWID, STRICT), its columns (table_xinfo: name,
 * type, not null, default, primary key, hidden) and its keys (foreign_key_list,
 * and index_list with each index's index_xinfo); the first generated or
 * hidden column's name. head is "" when there is no such table. */
typedef struct {
	char *head, *cols, *keys;
	char hidden[64];
} table_shape;

static void shape_clear(table_shape *s)
{
	free(s->head);
	free(s->cols);
	free(s->keys);
	memset(s, 0, sizeof *s);
}

/* Appends the rows of sql (a PRAGMA naming one object) to *text, each
 * column's text and '|', each row ';'; with hidden, the name (column 1)
 * of the first row whose column 6 (table_xinfo's hidden) is not 0. 0,
 * CM_ENOMEM or -1 (SQLite failed; see the database's message). */
static int append_rows(sqlite3 *db, const char *sql, char **text, size_t *len, size_t *cap, char *hidden)
{
	sqlite3_stmt *st = NULL;
	if (!sql)
		return CM_ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	int s = SQLITE_DONE, rc = 0;
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st) && !rc; c++) {
			const char *v = (const char *)sqlite3_column_text(st, c);
			size_t n = v ? strlen(v) : 1;
			if (cm_grow((void **)text, cap, *len + n + 2, 1) != 0) {
				rc = CM_ENOMEM;
				break;
			}
			memcpy(*text + *len, v ? v : "~", n);
			*len += n;
			(*text)[(*len)++] = '|';
		}
		if (!rc && cm_grow((void **)text, cap, *len + 1, 1) != 0)
			rc = CM_ENOMEM;
		if (!rc)
			(*text)[(*len)++] = ';';
		if (hidden && !*hidden && sqlite3_column_int(st, 6) != 0)
			snprintf(hidden, 64, "%s", (const char *)sqlite3_column_text(st, 1));
	}
	if (!rc && s != SQLITE_DONE)
		rc = -1;
	if (*text)
		(*text)[*len] = '\0';
	sqlite3_finalize(st);
	return rc;
}

/* Appends each index of table's index_xinfo rows to *text. */
static int append_indexes(sqlite3 *db, const char *table, char **text, size_t *len, size_t *cap)
{
	sqlite3_stmt *st = NULL;
	char *sql = sqlite3_mprintf("PRAGMA main.index_list(\"%w\")", table);
	int rc = sql ? 0 : CM_ENOMEM, s = SQLITE_DONE;
	if (!rc && sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = -1;
	while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		char *x = sqlite3_mprintf("PRAGMA main.index_xinfo(\"%w\")", (const char *)sqlite3_column_text(st, 1));
		rc = append_rows(db, x, text, len, cap, NULL);
		sqlite3_free(x);
	}
	if (!rc && s != SQLITE_DONE)
		rc = -1;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* The shape of table in db (a name of pack.sql's). 0, CM_ENOMEM or -1. */
static int shape_of(sqlite3 *db, const char *table, table_shape *out)
{
	memset(out, 0, sizeof *out);
	size_t hl = 0, hc = 0, cl = 0, cc = 0, kl = 0, kc = 0;
	char *q[4];
	q[0] = sqlite3_mprintf("PRAGMA main.table_list(\"%w\")", table);
	q[1] = sqlite3_mprintf("PRAGMA main.table_xinfo(\"%w\")", table);
	q[2] = sqlite3_mprintf("PRAGMA main.foreign_key_list(\"%w\")", table);
	q[3] = sqlite3_mprintf("PRAGMA main.index_list(\"%w\")", table);
	int rc = append_rows(db, q[0], &out->head, &hl, &hc, NULL);
	if (!rc && hl)
		rc = append_rows(db, q[1], &out->cols, &cl, &cc, out->hidden);
	if (!rc && hl)
		rc = append_rows(db, q[2], &out->keys, &kl, &kc, NULL);
	if (!rc && hl)
		rc = append_rows(db, q[3], &out->keys, &kl, &kc, NULL);
	if (!rc && hl)
		rc = append_indexes(db, table, &out->keys, &kl, &kc);
	for (int i = 0; i < 4; i++)
		sqlite3_free(q[i]);
	if (rc)
		shape_clear(out);
	return rc;
}

static bool same_text(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Table t of pack.sql against the pack's: the same kind (STRICT, with
 * rowids), the same columns with none generated or hidden, the same keys
 * and indexes. ref is pack.sql run in memory (made when first needed);
 * *bad set when they differ (reported). */
static int compare_table(cm_diags *d, sqlite3 *db, const char *path, long long ver, const ref_table *t,
                         sqlite3 **ref, bool *bad)
{
	const char *schema = cm__pack_sql();
	if (!*ref && (sqlite3_open_v2(":memory:", ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK ||
	              sqlite3_exec(*ref, schema, NULL, NULL, NULL) != SQLITE_OK))
		return CM_EINTERNAL;
	table_shape want, got;
	int rc = shape_of(*ref, t->name, &want);
	if (rc)
		return rc == CM_ENOMEM ? rc : CM_EINTERNAL;
	if ((rc = shape_of(db, t->name, &got)) != 0) {
		shape_clear(&want);
		return rc == CM_ENOMEM ? rc : cm__pack_db_fail(d, db, path, "cannot read the schema");
	}
	if (!got.head && table_optional(t->name, ver)) {
		/* an older pack: read as holding no such rows */
	} else if (!got.head) {
		cm_diags_check(d, "CM0405", path, 0, 0, NULL, "table %s is missing", t->name);
		*bad = true;
	} else if (got.hidden[0]) {
		cm_diags_check(d, "CM0405", path, 0, 0, NULL,
		               "column %.64s of table %s is generated or hidden: format version %d's columns hold "
		               "values, never expressions",
		               got.hidden, t->name, CM_PACK_VERSION);
		*bad = true;
	} else if (!same_text(want.cols, got.cols)) {
		cm_diags_check(d, "CM0405", path, 0, 0, NULL, "table %s has other columns than format version %d defines",
		               t->name, CM_PACK_VERSION);
		*bad = true;
	} else if (!same_text(want.head, got.head) || !same_text(want.keys, got.keys)) {
		cm_diags_check(d, "CM0405", path, 0, 0, NULL,
		               "table %s has other keys, indexes or options (STRICT, WITHOUT ROWID) than format "
		               "version %d defines",
		               t->name, CM_PACK_VERSION);
		*bad = true;
	}
	shape_clear(&want);
	shape_clear(&got);
	return 0;
}

/* Every object of the schema is pack.sql's (check_objects), and every
 * table of pack.sql is in the pack as pack.sql makes it: created by the
 * very statement pack.sql has for it (sqlite_schema keeps that text as it
 * was run, comments and all), as every pack this carcamap writes, or, an
 * older pack's or one made by another statement, of the same shape
 * (compare_table); an optional table may be missing. */
static int check_schema(cm_diags *d, sqlite3 *db, const char *path, long long ver)
{
	ref_table t[MAX_TABLES];
	const char *schema = cm__pack_sql();
	size_t n = schema ? ref_tables(schema, t) : 0;
	if (!n)
		return CM_EINTERNAL;
	int rc = check_objects(d, db, path, t, n);
	sqlite3 *ref = NULL;
	sqlite3_stmt *st = NULL;
	bool bad = false;
	if (!rc && sqlite3_prepare_v2(db, "SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?", -1, &st,
	                              NULL) != SQLITE_OK)
		rc = cm__pack_db_fail(d, db, path, "cannot read the schema");
	for (size_t i = 0; !rc && i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, t[i].name, -1, SQLITE_STATIC);
		bool as_written = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
		                  (size_t)sqlite3_column_bytes(st, 0) == t[i].sql_len &&
		                  memcmp(sqlite3_column_text(st, 0), t[i].sql, t[i].sql_len) == 0;
		if (!as_written)
			rc = compare_table(d, db, path, ver, &t[i], &ref, &bad);
	}
	sqlite3_finalize(st);
	sqlite3_close(ref);
	return rc ? rc : bad ? CM_EFORMAT : 0;
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

/* A pack is one file (schemas/pack.md "One file"): a -wal file beside it
 * would be applied by SQLite (after making a -shm file, even on a
 * read-only open) and a -journal rolled back. The opener never looks at
 * either (it opens the file immutable), and refuses a pack that has one,
 * naming it, rather than reading the pack as if it were not there. */
static int refuse_beside(const char *path, cm_diags *d)
{
	char *wal = cm_asprintf("%s-wal", path), *journal = cm_asprintf("%s-journal", path);
	struct stat st;
	int rc = 0;
	if (!wal || !journal) {
		rc = CM_ENOMEM;
	} else if (lstat(wal, &st) == 0) {
		cm_diags_check(d, "CM0412", path, 0, 0, NULL,
		               "a WAL file lies beside the pack (%s), which carcamap never applies: a pack is one file "
		               "(sqlite3 PACK 'PRAGMA journal_mode=DELETE' applies it and removes it)",
		               wal);
		rc = CM_EFORMAT;
	} else if (lstat(journal, &st) == 0) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL,
		             "the pack is locked by another program writing it, or such a write was interrupted: a "
		             "rollback journal lies beside it (%s), which carcamap never applies; try again when that "
		             "program has finished, or open the pack once with sqlite3 to roll the write back",
		             journal);
		rc = CM_EIO;
	}
	free(wal);
	free(journal);
	return rc;
}

/* The file: URI of path opened immutable: SQLite then never looks for a
 * journal, WAL or shared-memory file beside it, never locks it and never
 * writes. Every byte but the unreserved ones and '/' is %XX; an absolute
 * path gets the empty authority ("file:///..."). */
static char *immutable_uri(const char *path)
{
	static const char keep[] = "-._~/";
	size_t n = strlen(path);
	char *u = malloc(3 * n + 32), *q = u;
	if (!u)
		return NULL;
	q += sprintf(q, "file:%s", path[0] == '/' ? "//" : "");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr(keep, *c))
			*q++ = (char)*c;
		else
			q += sprintf(q, "%%%02X", *c);
	strcpy(q, "?immutable=1");
	return u;
}

/* Opens p->path as hostile input: immutable (immutable_uri), defensive
 * (no schema-defined code runs with trust, no extensions, no triggers or
 * views, writes to the schema refused, cells checked), read only. */
static int open_db(cm_pack *p, int max_value, cm_diags *d)
{
	char *uri = immutable_uri(p->path);
	if (!uri)
		return CM_ENOMEM;
	int s = sqlite3_open_v2(uri, &p->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	free(uri);
	if (s != SQLITE_OK) {
		if (!p->db)
			return CM_ENOMEM;
		cm_diags_add(d, CM_SEV_ERROR, NULL, p->path, 0, 0, NULL, "cannot open: %s", sqlite3_errmsg(p->db));
		return CM_EIO;
	}
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(p->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_limit(p->db, SQLITE_LIMIT_LENGTH, max_value);
	sqlite3_limit(p->db, SQLITE_LIMIT_ATTACHED, 0);
	/* A page cache of up to 32 MB: quick_check reads every page once, and
	 * the maps' rows are read from the cache after it, not from the file a
	 * second time (SQLite's default of 2 MB holds a third of a 1000x1000
	 * map's pack). CHECK constraints are never evaluated (a read-only
	 * connection does not, and a table not made by pack.sql's statement may
	 * carry any): the reader checks every value itself. */
	if (sqlite3_exec(p->db, "PRAGMA trusted_schema=OFF; PRAGMA cell_size_check=ON; PRAGMA query_only=ON;"
	                        " PRAGMA ignore_check_constraints=ON; PRAGMA mmap_size=0; PRAGMA cache_size=-32768",
	                 NULL, NULL, NULL) != SQLITE_OK)
		return cm__pack_db_fail(d, p->db, p->path, "cannot read the pack");
	return 0;
}

/* The header's application id and format version. */
static int check_version(cm_pack *p, cm_diags *d)
{
	long long app, ver;
	int rc;
	if ((rc = pragma_int(d, p->db, p->path, "PRAGMA application_id", &app)) != 0 ||
	    (rc = pragma_int(d, p->db, p->path, "PRAGMA user_version", &ver)) != 0)
		return rc;
	if ((uint32_t)app != CM_PACK_APPLICATION_ID) {
		cm_diags_check(d, "CM0402", p->path, 0, 0, NULL, "not a carcamap pack (application id 0x%08x)",
		               (unsigned)(uint32_t)app);
		return CM_EFORMAT;
	}
	if (ver > CM_PACK_VERSION) {
		cm_diags_check(d, "CM0403", p->path, 0, 0, NULL,
		               "pack format version %lld is newer than this carcamap reads (max %d)", ver, CM_PACK_VERSION);
		return CM_EVERSION;
	}
	if (ver < 1) {
		cm_diags_check(d, "CM0405", p->path, 0, 0, NULL, "pack format version %lld does not exist", ver);
		return CM_EFORMAT;
	}
	p->version = (int)ver;
	return 0;
}

int cm_pack_open(const char *path, cm_diags *d, cm_pack **out)
{
	return cm__pack_open_limited(path, CM__PACK_MAX_BLOB, d, out);
}

int cm__pack_open_limited(const char *path, int max_value, cm_diags *d, cm_pack **out)
{
	*out = NULL;
	int rc = sniff(path, d);
	if (rc || (rc = refuse_beside(path, d)) != 0)
		return rc;
	cm_pack *p = calloc(1, sizeof *p);
	if (!p || !(p->path = cm_strdup(path))) {
		free(p);
		return CM_ENOMEM;
	}
	/* the schema before anything that evaluates it; the foreign keys by
	 * the pragma statement, which no table of the pack can stand in for */
	if ((rc = open_db(p, max_value, d)) != 0 || (rc = check_version(p, d)) != 0 ||
	    (rc = check_schema(d, p->db, path, p->version)) != 0 ||
	    (rc = report_rows(d, p->db, path, "PRAGMA main.quick_check(5)", 5, quick_check_row)) != 0 ||
	    (rc = report_rows(d, p->db, path, "PRAGMA main.foreign_key_check", 5, foreign_key_row)) != 0 ||
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

