/* SPDX-License-Identifier: MIT */
/* test_hostile.c: hostile inputs through every reader. Each directory
 * tests/fixtures/hostile/<reader>/ holds inputs X, committed or built at
 * test time from a recipe X.gen (large or binary ones), and beside each an
 * X.expect naming the return code and the diagnostics the reader must
 * produce; one runner checks them all, each under a time limit. Inputs
 * that crashed a fuzzer stay here as regression cases. Formats: README.md
 * in that directory. Then what no input file can say: pack output into a
 * read-only directory, onto a full disk, and two writers racing to one
 * path, each ending in a clean error or a valid pack, never a damaged one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sqlite3.h>
#include "carcamap/carcamap.h"
#include "carcamap/image.h"
#include "carcamap/pack.h"
#include "genmap.h"
#include "util_files.h"
#include "util_model.h"

#define HOSTILE_DIR "tests/fixtures/hostile"
#define DEFAULT_SECONDS 60

/* snprintf that fails the test on truncation (paths here are short). */
static void fmt(char *buf, size_t size, const char *f, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		fail_msg("text too long for its buffer: %s", buf);
}

/* ------------------------------------------------------------------ */
/* readers: each reads the input at path with diagnostics into d        */

typedef int (*reader_fn)(const char *path, cm_diags *d);

static int read_tileset(const char *path, cm_diags *d)
{
	cm_tileset *ts = NULL;
	int rc = cm_tileset_load_file(path, d, &ts);
	if ((rc == 0) != (ts != NULL))
		fail_msg("%s: tile set reader returned %d with%s a model", path, rc, ts ? "" : "out");
	cm_tileset_free(ts);
	return rc;
}

static int read_map(const char *path, cm_diags *d)
{
	cm_map *m = NULL;
	cm_map_load_opts lo;
	cm_map_load_opts_init(&lo);
	lo.flags = CM_MAP_LOAD_IMAGE;
	int rc = cm_map_load(path, &lo, d, &m);
	if ((rc == 0) != (m != NULL))
		fail_msg("%s: map reader returned %d with%s a model", path, rc, m ? "" : "out");
	cm_map_free(m);
	return rc;
}

static int read_legend(const char *path, cm_diags *d)
{
	cm_legend *lg = NULL;
	int rc = cm_legend_load_file(path, d, &lg);
	if ((rc == 0) != (lg != NULL))
		fail_msg("%s: legend reader returned %d with%s a legend", path, rc, lg ? "" : "out");
	cm_legend_free(lg);
	return rc;
}

/* PNG import with the built-in legend. */
static int read_image(const char *path, cm_diags *d)
{
	cm_legend *lg = NULL;
	assert_int_equal(cm_legend_default(&lg), 0);
	cm_map_builder *m = NULL;
	int rc = cm_image_import(path, lg, d, &m);
	if ((rc == 0) != (m != NULL))
		fail_msg("%s: image import returned %d with%s a map", path, rc, m ? "" : "out");
	cm_map_builder_free(m);
	cm_legend_free(lg);
	return rc;
}

/* Opens the pack and reads every map and tile set in it: the first
 * failure is the result. */
static int read_pack(const char *path, cm_diags *d)
{
	cm_pack *p = NULL;
	int rc = cm_pack_open(path, d, &p);
	for (size_t i = 0; p && !rc && i < cm_pack_tileset_count(p); i++) {
		cm_tileset *ts = NULL;
		rc = cm_pack_read_tileset(p, cm_pack_tileset_id(p, i), d, &ts);
		cm_tileset_free(ts);
	}
	for (size_t i = 0; p && !rc && i < cm_pack_map_count(p); i++) {
		cm_map *m = NULL;
		rc = cm_pack_read_map(p, cm_pack_map_id(p, i), d, &m);
		cm_map_free(m);
		if (!rc)
			rc = cm_pack_verify_map(p, cm_pack_map_id(p, i), d);
	}
	cm_pack_close(p);
	return rc;
}

static int read_tmx(const char *path, cm_diags *d)
{
	cm_map *m = NULL;
	int rc = cm_tmx_load_file(path, d, &m);
	if ((rc == 0) != (m != NULL))
		fail_msg("%s: tmx reader returned %d with%s a model", path, rc, m ? "" : "out");
	cm_map_free(m);
	return rc;
}

/* What `carcamap check` does with a descriptor: load it with its tile
 * sets (the bundled ones), check it, sort and render the diagnostics with
 * quoted lines. */
static int read_check(const char *path, cm_diags *d)
{
	cm_workspace *w = NULL;
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
	int rc = cm_workspace_load(w, path, d);
	if (rc == 0)
		rc = cm_workspace_resolve(w, d);
	if (rc == 0) {
		cm_check_opts o;
		cm_check_opts_init(&o);
		rc = cm_check_workspace(w, &o, d);
	}
	cm_diags_sort(d);
	FILE *f = fopen("/dev/null", "w");
	if (f) {
		cm_diags_write_text(d, f);
		fclose(f);
	}
	cm_workspace_free(w);
	return rc;
}

/* The command itself (build/carcamap beside build/tests/, or the
 * sanitizer build's), run on the input: the commands of the case's
 * "commands" line (default: list, then check), each in a child under the
 * case's time limit as CPU time (RLIMIT_CPU: the runner's timer counts
 * only its own), its outputs into a directory of its own, standard output
 * discarded. Each line of standard error that says "error:", "warning:" or
 * "note:" becomes a diagnostic (its check id from the [CMnnnn] that ends
 * it), so that the case's expectations hold for every command. A command
 * that is killed, or exits non-zero with nothing said, is a diagnostic of
 * its own; exit status 1 is rc EINVAL. */
static char carcamap_bin[1024];
static unsigned case_seconds = DEFAULT_SECONDS;
static char case_commands[256] = "list check";

/* The lines of the text at err as diagnostics of cmd into d: how many. */
static size_t take_stderr(const char *cmd, const char *path, const char *err, cm_diags *d)
{
	size_t len = 0, n = 0;
	char *text = util_read_file(err, &len);
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		static const struct {
			const char *tag;
			cm_severity sev;
		} kinds[] = { { "error: ", CM_SEV_ERROR }, { "warning: ", CM_SEV_WARNING }, { "note: ", CM_SEV_NOTE } };
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			char *at = strstr(line, kinds[k].tag), rule[8] = "";
			if (!at)
				continue;
			char *msg = at + strlen(kinds[k].tag), *end = msg + strlen(msg);
			if (end - msg > 9 && end[-1] == ']' && end[-8] == '[' && strncmp(end - 7, "CM", 2) == 0) {
				memcpy(rule, end - 7, 6);
				rule[6] = '\0';
				end[end[-9] == ' ' ? -9 : -8] = '\0';
			}
			cm_diags_add(d, kinds[k].sev, rule[0] ? rule : NULL, path, 0, 0, NULL, "carcamap %s: %s", cmd, msg);
			n++;
			break;
		}
	}
	free(text);
	return n;
}

static int run_command(const char *cmd, const char *path, cm_diags *d)
{
	char out[] = "/tmp/cm-hostile-out-XXXXXX", err[64], target[64];
	assert_non_null(mkdtemp(out));
	fmt(err, sizeof err, "%s/stderr", out);
	const char *argv[12] = { carcamap_bin, cmd };
	int argc = 2;
	if (strcmp(cmd, "export") == 0) {
		argv[argc++] = "--format";
		argv[argc++] = "json";
	}
	argv[argc++] = path;
	if (strcmp(cmd, "list") != 0 && strcmp(cmd, "check") != 0) {
		fmt(target, sizeof target, "%s/out.%s", out,
		    strcmp(cmd, "compile") == 0 ? "pack" : strcmp(cmd, "render") == 0 ? "svg" : "json");
		argv[argc++] = "-o";
		argv[argc++] = target;
	}
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { (rlim_t)case_seconds, (rlim_t)case_seconds + 1 };
		int fd = open("/dev/null", O_WRONLY), fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (setrlimit(RLIMIT_CPU, &rl) != 0 || fd < 0 || fe < 0 || dup2(fd, 1) < 0 || dup2(fe, 2) < 0 ||
		    setenv("CARCAMAP_TILESETS", "maps/tilesets", 1) != 0)
			_exit(126);
		execv(carcamap_bin, (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	size_t said = take_stderr(cmd, path, err, d);
	char rm[128];
	fmt(rm, sizeof rm, "rm -rf %s", out);
	assert_int_equal(system(rm), 0);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "carcamap %s: killed by signal %d%s", cmd, sig,
		             sig == SIGXCPU ? " (past the time limit)" : "");
		return CM_EINTERNAL;
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (code != 0 && !said) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "carcamap %s: exit status %d without a diagnostic%s",
		             cmd, code, code == 127 ? " (cannot run it)" : "");
		return CM_EINTERNAL;
	}
	if (code == 1)
		return CM_EINVAL;
	if (code != 0) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "carcamap %s: exit status %d", cmd, code);
		return CM_EINTERNAL;
	}
	return 0;
}

/* Every command of the case, in turn: the first failure is the result. */
static int read_command(const char *path, cm_diags *d)
{
	char list[sizeof case_commands], *save = NULL;
	int rc = 0;
	fmt(list, sizeof list, "%s", case_commands);
	for (char *cmd = strtok_r(list, " ", &save); cmd; cmd = strtok_r(NULL, " ", &save)) {
		int r = run_command(cmd, path, d);
		if (r && !rc)
			rc = r;
	}
	return rc;
}

static const struct {
	const char *dir;
	reader_fn read;
} readers[] = {
	{ "check", read_check },
	{ "command", read_command },
	{ "image", read_image },
	{ "legend", read_legend },
	{ "map", read_map },
	{ "pack", read_pack },
	{ "tileset", read_tileset },
	{ "tmx", read_tmx },
};

/* ------------------------------------------------------------------ */
/* the time limit: a hang is a failure that names its fixture           */

static char current[512];

/* The limit of a case is CPU time (the machine may be shared, so wall
 * time says little), with a wall-clock backstop at ten times it for a
 * reader that waits without computing. */
static void limit_start(unsigned seconds)
{
	struct itimerval it = { { 0, 0 }, { (time_t)seconds, 0 } };
	setitimer(ITIMER_PROF, &it, NULL);
	alarm(seconds * 10);
}

static void limit_stop(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &it, NULL);
	alarm(0);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "hostile: time limit exceeded (a hang) on ";
	if (write(2, msg, sizeof msg - 1) < 0 || write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0)
		_exit(1);
	_exit(1);
}

/* ------------------------------------------------------------------ */
/* recipes (X.gen): the input built line by line                        */

/* The sample pack of util_model (one map, two tile sets) at path. */
static bool write_sample_pack(const char *path, char *err, size_t errsize)
{
	cm_tileset *sets[2] = { util_tileset_base(), util_tileset_inns() };
	cm_map *m = util_map_sample();
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	remove(path);
	int rc = cm_pack_write(path, UTIL_MAPS(&m), 1, UTIL_SETS(sets), 2, d);
	if (rc)
		fmt(err, errsize, "writing the sample pack: %s", cm_strerror(rc));
	cm_diags_free(d);
	cm_map_free(m);
	cm_tileset_free(sets[0]);
	cm_tileset_free(sets[1]);
	return rc == 0;
}

/* A pack of n maps of one start square each, ids made by the format ids
 * from the map's number ("m%u"), every deck the sample "base" set: many
 * maps and nothing else, for the paths whose cost is in the number of maps. */
static bool many_maps_pack(const char *path, unsigned long n, const char *ids, char *err, size_t errsize)
{
	cm_tileset *base = util_tileset_base();
	cm_map **maps = calloc(n + 1, sizeof *maps);
	assert_non_null(maps);
	for (unsigned long i = 0; i < n; i++) {
		char id[128];
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
		int k = snprintf(id, sizeof id, ids, (unsigned)i); /* the recipe's: trusted */
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
		assert_true(k > 0 && (size_t)k < sizeof id);
		maps[i] = util_map_one_square(id, "base");
	}
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	remove(path);
	int rc = cm_pack_write(path, UTIL_MAPS(maps), n, UTIL_SETS(&base), 1, d);
	if (rc)
		fmt(err, errsize, "writing a pack of %lu maps: %s (%s)", n, cm_strerror(rc),
		    cm_diags_count(d) && cm_diags_get(d, 0)->message ? cm_diags_get(d, 0)->message : "");
	cm_diags_free(d);
	for (unsigned long i = 0; i < n; i++)
		cm_map_free(maps[i]);
	free(maps);
	cm_tileset_free(base);
	return rc == 0;
}

/* many_maps_pack in a child process: the runner's heap stays small, so
 * that the children that measure the resident size of later cases do not
 * start with the memory of 65,536 maps. */
static bool write_many_maps_pack(const char *path, unsigned long n, const char *ids, char *err, size_t errsize)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		bool ok = many_maps_pack(path, n, ids, err, errsize);
		if (!ok)
			fprintf(stderr, "%s\n", err);
		fflush(NULL);
		_exit(ok ? 0 : 1);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	fmt(err, errsize, "writing a pack of %lu maps failed (see above)", n);
	return false;
}

/* Runs SQL on the database at path, as an attacker's tool would (triggers,
 * views, schema writes allowed). */
static bool run_sql(const char *path, const char *sql, char *err, size_t errsize)
{
	sqlite3 *db = NULL;
	char *msg = NULL;
	bool ok = sqlite3_open(path, &db) == SQLITE_OK &&
	          sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK;
	if (!ok)
		fmt(err, errsize, "sql: %s", msg ? msg : db ? sqlite3_errmsg(db) : "cannot open");
	sqlite3_free(msg);
	sqlite3_close(db);
	return ok;
}

static bool exists(const char *path);

/* Copies the file from to the file to. */
static bool copy_file(const char *from, const char *to)
{
	size_t len;
	char *b = util_read_file(from, &len);
	FILE *f = b ? fopen(to, "wb") : NULL;
	bool ok = f && fwrite(b, 1, len, f) == len;
	if (f)
		ok = fclose(f) == 0 && ok;
	free(b);
	return ok;
}

/* The changes of sql in a WAL file beside the pack at path (path-wal),
 * the pack itself as it was: sql runs on a copy in WAL mode, whose WAL is
 * copied beside path before the copy is closed without a checkpoint. */
static bool wal_sql(const char *path, const char *sql, char *err, size_t errsize)
{
	char copy[1100], copy_wal[1200], copy_shm[1200], wal[1200];
	fmt(copy, sizeof copy, "%s.wal-copy", path);
	fmt(copy_wal, sizeof copy_wal, "%s-wal", copy);
	fmt(copy_shm, sizeof copy_shm, "%s-shm", copy);
	fmt(wal, sizeof wal, "%s-wal", path);
	sqlite3 *db = NULL;
	char *msg = NULL;
	bool ok = copy_file(path, copy) && sqlite3_open(copy, &db) == SQLITE_OK &&
	          sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL) == SQLITE_OK &&
	          sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0", NULL, NULL, &msg) ==
	                  SQLITE_OK &&
	          sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK && copy_file(copy_wal, wal);
	if (!ok)
		fmt(err, errsize, "wal-sql: %s", msg ? msg : db ? sqlite3_errmsg(db) : "cannot copy the pack");
	sqlite3_free(msg);
	sqlite3_close(db);
	remove(copy);
	remove(copy_wal);
	remove(copy_shm);
	return ok;
}

/* A write of sql into the pack at path left unfinished: a child runs it in
 * a transaction with a one-page cache (so that changed pages reach the
 * file) and dies before committing; the pack is half written and its
 * rollback journal lies beside it. */
static bool journal_sql(const char *path, const char *sql, char *err, size_t errsize)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *db = NULL;
		bool ok = sqlite3_open(path, &db) == SQLITE_OK &&
		          sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
		          sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
		_exit(ok ? 0 : 1);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	char journal[1200];
	fmt(journal, sizeof journal, "%s-journal", path);
	bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && exists(journal);
	if (!ok)
		fmt(err, errsize, "journal-sql: the writer failed or left no journal");
	return ok;
}

/* s with \n \t \r \\ \xHH decoded into out (n bytes); false on a bad escape. */
static bool unescape(const char *s, char *out, size_t *n)
{
	size_t k = 0;
	for (; *s; s++) {
		if (*s != '\\') {
			out[k++] = *s;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': out[k++] = '\n'; break;
		case 't': out[k++] = '\t'; break;
		case 'r': out[k++] = '\r'; break;
		case '\\': out[k++] = '\\'; break;
		case '0': out[k++] = '\0'; break;
		case 'x': {
			unsigned v;
			if (sscanf(s + 1, "%2x", &v) != 1 || !s[1] || !s[2])
				return false;
			out[k++] = (char)v;
			s += 2;
			break;
		}
		default: return false;
		}
	}
	*n = k;
	return true;
}

/* CRC-32 of PNG chunks (ISO 3309), bit by bit: test data is small. */
static uint32_t crc32_png(const unsigned char *p, size_t n, uint32_t crc)
{
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* Writes a PNG chunk "TYPE HEXDATA" with its length and CRC (the CRC
 * inverted when bad). False when arg is malformed. */
static bool png_chunk(FILE *o, const char *arg, bool bad)
{
	unsigned char buf[4 + 4096];
	size_t n = 0;
	if (strlen(arg) < 4)
		return false;
	memcpy(buf, arg, 4);
	for (const char *p = arg + 4; *p; p++) {
		if (*p == ' ')
			continue;
		unsigned v;
		if (n >= 4096 || !p[1] || sscanf(p, "%2x", &v) != 1)
			return false;
		buf[4 + n++] = (unsigned char)v;
		p++;
	}
	uint32_t crc = crc32_png(buf, 4 + n, 0) ^ (bad ? 0xFFFFFFFFu : 0u);
	unsigned char len[4] = { (unsigned char)(n >> 24), (unsigned char)(n >> 16), (unsigned char)(n >> 8),
		                 (unsigned char)n };
	unsigned char c[4] = { (unsigned char)(crc >> 24), (unsigned char)(crc >> 16), (unsigned char)(crc >> 8),
		               (unsigned char)crc };
	return fwrite(len, 1, 4, o) == 4 && fwrite(buf, 1, 4 + n, o) == 4 + n && fwrite(c, 1, 4, o) == 4;
}

/* Builds the input of recipe gen into out. Lines: "text STR", "repeat N
 * STR", "repeat-numbered N STR" (%u in STR is the copy's number, from 0),
 * "png-chunk TYPE HEX" and "png-chunk-badcrc TYPE HEX" (a chunk with its
 * length and CRC, or a wrong CRC), "pack" (the file becomes the sample
 * pack), "sql STATEMENTS" (run on the file), "wal-sql STATEMENTS" and
 * "journal-sql STATEMENTS" (their changes in a WAL beside the file, or a
 * write of them left unfinished with its journal beside it); '#' starts a
 * comment. Returns false with a message in err. */
/* A binary recipe writes the file itself: the text so far is flushed and
 * closed first (binary_step), and the file reopened for what follows. */
static bool binary_step(FILE **o, const char *out, char *err, size_t errsize)
{
	int bad = fclose(*o);
	*o = NULL;
	if (bad)
		fmt(err, errsize, "%s: write failed", out);
	return !bad;
}

static bool reopen(FILE **o, const char *out, char *err, size_t errsize)
{
	if (!(*o = fopen(out, "ab")))
		fmt(err, errsize, "%s: cannot reopen", out);
	return *o != NULL;
}

static bool generate(const char *gen, const char *out, char *err, size_t errsize)
{
	FILE *in = fopen(gen, "r");
	FILE *o = fopen(out, "wb");
	bool ok = in && o;
	if (!ok)
		fmt(err, errsize, "cannot open %s or %s: %s", gen, out, strerror(errno));
	char line[8192], data[8192], num[8400];
	unsigned lineno = 0;
	while (ok && fgets(line, sizeof line, in)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (strcmp(line, "pack") == 0)
			strcat(line, " "); /* the one directive without an argument */
		char *sp = strchr(line, ' ');
		if (!sp) {
			fmt(err, errsize, "%s:%u: no argument", gen, lineno);
			ok = false;
			break;
		}
		*sp = '\0';
		const char *arg = sp + 1;
		unsigned long count = 1;
		bool numbered = strcmp(line, "repeat-numbered") == 0;
		if (strcmp(line, "repeat") == 0 || numbered) {
			char *end;
			count = strtoul(arg, &end, 10);
			if (end == arg || *end != ' ') {
				fmt(err, errsize, "%s:%u: repeat needs a count and a text", gen, lineno);
				ok = false;
				break;
			}
			arg = end + 1;
		} else if (strcmp(line, "genmap") == 0) {
			if (cm_genmap(o, arg)) {
				fmt(err, errsize, "%s:%u: genmap cannot write '%s'", gen, lineno, arg);
				ok = false;
				break;
			}
			continue;
		} else if (strcmp(line, "png-chunk") == 0 || strcmp(line, "png-chunk-badcrc") == 0) {
			if (!png_chunk(o, arg, strcmp(line, "png-chunk") != 0)) {
				fmt(err, errsize, "%s:%u: png-chunk needs TYPE and hex data", gen, lineno);
				ok = false;
				break;
			}
			continue;
		} else if (strcmp(line, "pack-maps") == 0) {
			char *end;
			unsigned long n = strtoul(arg, &end, 10);
			if (end == arg || *end != ' ' || !strstr(end + 1, "%u")) {
				fmt(err, errsize, "%s:%u: pack-maps needs a count and an id format with %%u", gen, lineno);
				ok = false;
				break;
			}
			ok = binary_step(&o, out, err, errsize) &&
			     write_many_maps_pack(out, n, end + 1, err, errsize) && reopen(&o, out, err, errsize);
			if (!ok)
				break;
			continue;
		} else if (strcmp(line, "wal-sql") == 0 || strcmp(line, "journal-sql") == 0) {
			ok = binary_step(&o, out, err, errsize) &&
			     (line[0] == 'w' ? wal_sql(out, arg, err, errsize) : journal_sql(out, arg, err, errsize)) &&
			     reopen(&o, out, err, errsize);
			if (!ok)
				break;
			continue;
		} else if (strcmp(line, "pack") == 0 || strcmp(line, "sql") == 0) {
			/* binary recipes for packs: the sample pack, then SQL on it */
			ok = binary_step(&o, out, err, errsize) &&
			     (strcmp(line, "pack") == 0 ? write_sample_pack(out, err, errsize)
			                                : run_sql(out, arg, err, errsize)) &&
			     reopen(&o, out, err, errsize);
			if (!ok)
				break;
			continue;
		} else if (strcmp(line, "text") != 0) {
			fmt(err, errsize, "%s:%u: unknown directive '%s'", gen, lineno, line);
			ok = false;
			break;
		}
		size_t n;
		if (!unescape(arg, data, &n)) {
			fmt(err, errsize, "%s:%u: bad escape", gen, lineno);
			ok = false;
			break;
		}
		data[n] = '\0';
		for (unsigned long i = 0; ok && i < count; i++) {
			if (numbered) {
				/* the recipe's own text is the format: the test data is trusted */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
				int m = snprintf(num, sizeof num, data, (unsigned)i);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
				ok = m >= 0 && (size_t)m < sizeof num && fwrite(num, 1, (size_t)m, o) == (size_t)m;
			} else {
				ok = fwrite(data, 1, n, o) == n;
			}
		}
		if (!ok)
			fmt(err, errsize, "%s: write failed", out);
	}
	if (in)
		fclose(in);
	if (o && fclose(o) != 0 && ok) {
		fmt(err, errsize, "%s: write failed", out);
		ok = false;
	}
	return ok;
}

/* ------------------------------------------------------------------ */
/* expectations (X.expect)                                              */

static const struct {
	const char *name;
	int code;
} codes[] = {
	{ "OK", CM_OK },         { "EINVAL", CM_EINVAL },     { "ENOMEM", CM_ENOMEM },
	{ "EIO", CM_EIO },       { "EFORMAT", CM_EFORMAT },   { "EVERSION", CM_EVERSION },
	{ "ENOTFOUND", CM_ENOTFOUND }, { "ELIMIT", CM_ELIMIT }, { "EINTERNAL", CM_EINTERNAL },
};

/* The diagnostics rendered as text and JSON: what a user could see. */
static char *render(const cm_diags *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	cm_diags_write_text(d, f);
	cm_diags_write_json(d, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Whether some line of the file at path (4 characters or more) occurs in
 * text; its first such line into hit. A missing file leaks nothing. */
static bool leaks_file(const char *path, const char *text, char *hit, size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[1024];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) >= 4 && strstr(text, line)) {
			fmt(hit, size, "%s", line);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Checks the reader's result against the expectations in file exp; each
 * mismatch is printed. Returns the number of mismatches. */
static int check_expect(const char *exp, const char *name, int rc, const cm_diags *d)
{
	FILE *f = fopen(exp, "r");
	if (!f) {
		fprintf(stderr, "hostile %s: cannot open %s\n", name, exp);
		return 1;
	}
	char *text = render(d);
	int bad = 0, rc_given = 0;
	char line[1024];
	unsigned lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char key[32], arg[1000] = "";
		if (sscanf(line, "%31s %999[^\n]", key, arg) < 1)
			continue;
		if (strcmp(key, "rc") == 0) {
			rc_given = 1;
			bool ok;
			if (strcmp(arg, "error") == 0) {
				ok = rc < 0;
			} else {
				int want = 1;
				for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
					if (strcmp(arg, codes[i].name) == 0)
						want = codes[i].code;
				if (want == 1) {
					fprintf(stderr, "hostile %s: %s:%u: unknown code %s\n", name, exp, lineno, arg);
					bad++;
					continue;
				}
				ok = rc == want;
			}
			if (!ok) {
				fprintf(stderr, "hostile %s: returned %d (%s), expected %s\n", name, rc, cm_strerror(rc), arg);
				bad++;
			}
		} else if (strcmp(key, "diag") == 0 || strcmp(key, "only") == 0) {
			char rule[32] = "";
			unsigned want_line = 0;
			int k = sscanf(arg, "%31s line %u", rule, &want_line);
			bool only = strcmp(key, "only") == 0, found = false;
			for (size_t i = 0; i < cm_diags_count(d); i++) {
				const cm_diag *g = cm_diags_get(d, i);
				bool same = g->rule && strcmp(g->rule, rule) == 0 && (k < 2 || g->line == want_line);
				found |= same;
				if (only && !same) {
					fprintf(stderr, "hostile %s: unexpected diagnostic [%s] line %u: %s\n", name,
					        g->rule ? g->rule : "-", g->line, g->message ? g->message : "");
					bad++;
				}
			}
			if (!found) {
				fprintf(stderr, "hostile %s: no diagnostic %s\n", name, arg);
				bad++;
			}
		} else if (strcmp(key, "absent") == 0) {
			/* the case just inside a limit: that diagnostic must not come */
			for (size_t i = 0; i < cm_diags_count(d); i++) {
				const cm_diag *g = cm_diags_get(d, i);
				if (g->rule && strcmp(g->rule, arg) == 0) {
					fprintf(stderr, "hostile %s: diagnostic %s, which must be absent: %s\n", name, arg,
					        g->message ? g->message : "");
					bad++;
				}
			}
		} else if (strcmp(key, "message") == 0) {
			bool found = false;
			for (size_t i = 0; i < cm_diags_count(d) && !found; i++) {
				const cm_diag *g = cm_diags_get(d, i);
				found = g->message && strstr(g->message, arg);
			}
			if (!found) {
				fprintf(stderr, "hostile %s: no diagnostic message contains \"%s\"\n", name, arg);
				bad++;
			}
		} else if (strcmp(key, "count") == 0) {
			/* a cap on what is said: exactly N diagnostics of RULE */
			char rule[32] = "";
			size_t want = 0, got = 0;
			if (sscanf(arg, "%31s %zu", rule, &want) != 2) {
				fprintf(stderr, "hostile %s: %s:%u: count needs a rule and a number\n", name, exp, lineno);
				bad++;
				continue;
			}
			for (size_t i = 0; i < cm_diags_count(d); i++) {
				const cm_diag *g = cm_diags_get(d, i);
				got += g->rule && strcmp(g->rule, rule) == 0;
			}
			if (got != want) {
				fprintf(stderr, "hostile %s: %zu diagnostics %s, expected %zu\n", name, got, rule, want);
				bad++;
			}
		} else if (strcmp(key, "absent-message") == 0) {
			/* the case just inside a cap: no diagnostic says this */
			for (size_t i = 0; i < cm_diags_count(d); i++) {
				const cm_diag *g = cm_diags_get(d, i);
				if (g->message && strstr(g->message, arg)) {
					fprintf(stderr, "hostile %s: a diagnostic says \"%s\", which must be absent: %s\n", name,
					        arg, g->message);
					bad++;
				}
			}
		} else if (strcmp(key, "absent-file") == 0) {
			char hit[1024];
			if (leaks_file(arg, text, hit, sizeof hit)) {
				fprintf(stderr, "hostile %s: the diagnostics show content of %s: \"%s\"\n", name, arg, hit);
				bad++;
			}
		} else if (strcmp(key, "seconds") != 0 && strcmp(key, "megabytes") != 0 && strcmp(key, "commands") != 0) {
			fprintf(stderr, "hostile %s: %s:%u: unknown key %s\n", name, exp, lineno, key);
			bad++;
		}
	}
	fclose(f);
	if (!rc_given) {
		fprintf(stderr, "hostile %s: %s names no rc\n", name, exp);
		bad++;
	}
	if (bad)
		fprintf(stderr, "hostile %s: diagnostics were:\n%s", name, text);
	free(text);
	return bad;
}

/* The time limit of a case: "seconds N" in its .expect, else the default. */
static unsigned expect_seconds(const char *exp)
{
	unsigned s = DEFAULT_SECONDS;
	FILE *f = fopen(exp, "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "seconds %u", &s) == 1)
			break;
	if (f)
		fclose(f);
	return s;
}

/* The commands of a command case: "commands CMD..." in its .expect (list,
 * check, export, render, compile), else list and check. */
static void expect_commands(const char *exp, char *out, size_t size)
{
	fmt(out, size, "list check");
	FILE *f = fopen(exp, "r");
	char line[256];
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "commands ", 9) == 0) {
			fmt(out, size, "%s", line + 9);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* The memory limit of a case: "megabytes N" in its .expect (peak resident
 * size of a process that reads it alone), 0 for none. Sanitizers keep
 * freed memory in quarantine and shadow every byte, so under them only
 * the time limit applies. */
static unsigned expect_megabytes(const char *exp)
{
#if defined(__SANITIZE_ADDRESS__)
	(void)exp;
	return 0;
#else
	unsigned mb = 0;
	FILE *f = fopen(exp, "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "megabytes %u", &mb) == 1)
			break;
	if (f)
		fclose(f);
	return mb;
#endif
}

/* Reads path in a child process and checks it there, its peak resident
 * size included: returns the cases that failed (0 or 1). */
static int read_in_child(reader_fn read, const char *path, const char *exp, unsigned seconds, unsigned mb)
{
	/* a child starts with the runner's resident pages: give back what
	 * the cases read in the runner itself freed (a big tree's blocks stay
	 * in malloc's heap), so that the child measures its own */
	malloc_trim(0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		cm_diags *d = NULL;
		if (cm_diags_new(&d))
			_exit(1);
		limit_start(seconds);
		int rc = read(path, d);
		limit_stop();
		int bad = check_expect(exp, current, rc, d);
		cm_diags_free(d);
		struct rusage ru;
		long peak_mb = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024 : 0; /* KB on Linux */
		if (peak_mb > (long)mb) {
			fprintf(stderr, "hostile %s: %ld MB resident, over the limit of %u MB\n", current, peak_mb, mb);
			bad++;
		}
		fflush(NULL);
		_exit(bad ? 1 : 0);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

/* ------------------------------------------------------------------ */
/* the runner                                                           */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* What a directory holds: each file's name, size and content hash
 * (FNV-1a 64; the content itself is not kept, so that the children that
 * measure their resident size do not inherit it). */
typedef struct {
	char *name;
	size_t len;
	uint64_t hash;
} snap_file;

static uint64_t file_hash(const char *path, size_t *len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char buf[65536];
	size_t n;
	*len = 0;
	FILE *f = fopen(path, "rb");
	while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) {
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
		*len += n;
	}
	if (f)
		fclose(f);
	return h;
}

static snap_file *snapshot(const char *dir, size_t *n)
{
	char **names = util_list_dir(dir, NULL, n);
	snap_file *v = calloc(*n + 1, sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < *n; i++) {
		char path[1024];
		fmt(path, sizeof path, "%s/%s", dir, names[i]);
		v[i].name = strdup(names[i]);
		v[i].hash = file_hash(path, &v[i].len);
	}
	util_names_free(names);
	return v;
}

static void snapshot_free(snap_file *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].name);
	free(v);
}

/* The failures (0 or 1) of dir against its snapshot: a file new, gone or
 * changed, each named. */
static int snapshot_differs(const char *dir, const snap_file *before, size_t n_before)
{
	size_t n = 0;
	snap_file *now = snapshot(dir, &n);
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		const snap_file *was = NULL;
		for (size_t k = 0; k < n_before && !was; k++)
			if (strcmp(before[k].name, now[i].name) == 0)
				was = &before[k];
		if (!was)
			fprintf(stderr, "hostile %s: reading it left %s beside it\n", current, now[i].name);
		else if (was->len != now[i].len || was->hash != now[i].hash)
			fprintf(stderr, "hostile %s: reading it changed %s\n", current, now[i].name);
		bad |= !was || was->len != now[i].len || was->hash != now[i].hash;
	}
	for (size_t k = 0; k < n_before; k++) {
		bool kept = false;
		for (size_t i = 0; i < n && !kept; i++)
			kept = strcmp(before[k].name, now[i].name) == 0;
		if (!kept)
			fprintf(stderr, "hostile %s: reading it removed %s\n", current, before[k].name);
		bad |= !kept;
	}
	snapshot_free(now, n);
	return bad;
}

/* Removes every file of dir (the built inputs' directory). */
static void clear_dir(const char *dir)
{
	size_t n;
	char **names = util_list_dir(dir, NULL, &n);
	for (size_t i = 0; i < n; i++) {
		char path[1024];
		fmt(path, sizeof path, "%s/%s", dir, names[i]);
		remove(path);
	}
	util_names_free(names);
}

/* Runs every case of one reader's directory; returns the cases that failed. */
static int run_reader(const char *sub, reader_fn read, const char *tmp, int *cases)
{
	char dir[256];
	fmt(dir, sizeof dir, "%s/%s", HOSTILE_DIR, sub);
	size_t n;
	char **names = util_list_dir(dir, NULL, &n);
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		const char *f = names[i];
		char path[1024], exp[1024], gen[1024], base[512];
		if (ends_with(f, ".gen") || strcmp(f, "README.md") == 0)
			continue;
		if (!ends_with(f, ".expect")) {
			/* every input names what it must produce */
			fmt(exp, sizeof exp, "%s/%s.expect", dir, f);
			if (!exists(exp)) {
				fprintf(stderr, "hostile %s/%s: no %s\n", sub, f, exp);
				failed++;
			}
			continue;
		}
		fmt(base, sizeof base, "%.*s", (int)(strlen(f) - strlen(".expect")), f);
		fmt(exp, sizeof exp, "%s/%s", dir, f);
		fmt(path, sizeof path, "%s/%s", dir, base);
		fmt(gen, sizeof gen, "%s/%s.gen", dir, base);
		fmt(current, sizeof current, "%s/%s", sub, base);
		if (!exists(path)) {
			char err[512];
			fmt(path, sizeof path, "%s/%s", tmp, base);
			if (!exists(gen) || !generate(gen, path, err, sizeof err)) {
				fprintf(stderr, "hostile %s: no input and %s\n", current,
				        exists(gen) ? err : "no recipe");
				clear_dir(tmp);
				failed++;
				continue;
			}
		}
		size_t n_before = 0;
		snap_file *before = strncmp(path, tmp, strlen(tmp)) == 0 ? snapshot(tmp, &n_before) : NULL;
		unsigned mb = expect_megabytes(exp);
		case_seconds = expect_seconds(exp);
		expect_commands(exp, case_commands, sizeof case_commands);
		(*cases)++;
		if (mb) {
			failed += read_in_child(read, path, exp, expect_seconds(exp), mb);
		} else {
			cm_diags *d = NULL;
			assert_int_equal(cm_diags_new(&d), 0);
			limit_start(expect_seconds(exp));
			int rc = read(path, d);
			limit_stop();
			if (check_expect(exp, current, rc, d))
				failed++;
			cm_diags_free(d);
		}
		if (strncmp(path, tmp, strlen(tmp)) == 0) {
			/* a reader leaves its input and what the recipe put beside it
			 * (a -wal, say) as they were, and writes nothing beside them
			 * (-wal, -shm, ...) */
			failed += snapshot_differs(tmp, before, n_before);
			clear_dir(tmp);
		}
		snapshot_free(before, n_before);
	}
	util_names_free(names);
	return failed;
}

static void test_hostile__fixtures(void **state)
{
	(void)state;
	char tmp[] = "/tmp/cm-hostile-XXXXXX";
	assert_non_null(mkdtemp(tmp));
	signal(SIGALRM, on_alarm);
	signal(SIGPROF, on_alarm);
	int failed = 0, cases = 0;
	for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
		failed += run_reader(readers[i].dir, readers[i].read, tmp, &cases);
	rmdir(tmp);
	printf("hostile: %d cases, %d failed\n", cases, failed);
	assert_true(cases > 0);
	assert_int_equal(failed, 0);
}

/* Each reader has its directory, and each directory is a reader's. */
static void test_hostile__every_directory_has_a_reader(void **state)
{
	(void)state;
	size_t n;
	char **names = util_list_dir(HOSTILE_DIR, NULL, &n);
	for (size_t i = 0; i < n; i++) {
		bool known = strcmp(names[i], "README.md") == 0;
		for (size_t r = 0; r < sizeof readers / sizeof readers[0]; r++)
			known |= strcmp(names[i], readers[r].dir) == 0;
		if (!known)
			fail_msg("%s/%s: no reader for this directory in test_hostile.c", HOSTILE_DIR, names[i]);
	}
	util_names_free(names);
}


/* ------------------------------------------------------------------ */
/* pack output under hostile conditions                                 */

typedef struct {
	cm_tileset *sets[2];
	cm_map *map;
	char *dir;
	char path[4200];
} out_fx;

static int out_setup(void **state)
{
	out_fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	f->sets[0] = util_tileset_base();
	f->sets[1] = util_tileset_inns();
	f->map = util_map_sample();
	f->dir = util_tempdir();
	assert_non_null(f->dir);
	fmt(f->path, sizeof f->path, "%s/out.pack", f->dir);
	*state = f;
	return 0;
}

static int out_teardown(void **state)
{
	out_fx *f = *state;
	cm_map_free(f->map);
	cm_tileset_free(f->sets[0]);
	cm_tileset_free(f->sets[1]);
	util_rmtree(f->dir);
	free(f);
	return 0;
}

/* The pack with the sample map (n_maps 1) or with the tile sets only (0). */
static int write_pack(out_fx *f, const char *path, size_t n_maps, cm_diags *d)
{
	return cm_pack_write(path, UTIL_MAPS(&f->map), n_maps, UTIL_SETS(f->sets), 2, d);
}

/* 0 when path is a pack that opens and reads whole; its map count in *maps. */
static int valid_pack(const char *path, size_t *maps)
{
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return CM_ENOMEM;
	cm_pack *p = NULL;
	int rc = cm_pack_open(path, d, &p);
	if (!rc)
		*maps = cm_pack_map_count(p);
	cm_pack_close(p);
	if (!rc)
		rc = read_pack(path, d);
	if (rc)
		cm_diags_write_text(d, stderr);
	cm_diags_free(d);
	return rc;
}

/* Whether a failed write said so: CM_EIO and a "cannot write pack" error. */
static bool clean_write_error(int rc, const cm_diags *d, const char *why)
{
	bool said = false;
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		said |= g->severity == CM_SEV_ERROR && g->message && strstr(g->message, "cannot write pack") &&
		        (!why || strstr(g->message, why));
	}
	if (rc != CM_EIO || !said) {
		fprintf(stderr, "write returned %d (%s), diagnostics:\n", rc, cm_strerror(rc));
		cm_diags_write_text(d, stderr);
	}
	return rc == CM_EIO && said;
}

/* Waits for child pid; its exit status (0: its checks passed), or -1. */
static int child_status(pid_t pid)
{
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The disk fills up in the middle of a compile (the file size limit of the
 * writing process stands in for it, with no hook in lib/io/pack_write.c: SQLite's
 * write fails at the half of the pack, as on a full disk, though it names
 * EFBIG an I/O error rather than "full"): the write fails cleanly, the pack
 * already there is unchanged and no temporary file is left. */
static void test_hostile__pack_full_disk(void **state)
{
	out_fx *f = *state;
	char scratch[4300];
	fmt(scratch, sizeof scratch, "%s/scratch.pack", f->dir);
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(write_pack(f, scratch, 1, d), 0);
	struct stat st;
	assert_int_equal(stat(scratch, &st), 0);
	assert_int_equal(remove(scratch), 0);
	assert_int_equal(write_pack(f, f->path, 0, d), 0);
	size_t l0, l1;
	char *before = util_read_file(f->path, &l0);

	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead */
		struct rlimit rl = { (rlim_t)st.st_size / 2, (rlim_t)st.st_size / 2 };
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(2);
		cm_diags_clear(d);
		int rc = write_pack(f, f->path, 1, d);
		_exit(clean_write_error(rc, d, NULL) ? 0 : 1);
	}
	assert_int_equal(child_status(pid), 0);
	char *after = util_read_file(f->path, &l1);
	assert_int_equal(l0, l1);
	assert_memory_equal(before, after, l0);
	assert_int_equal(util_dir_entries(f->dir), 1);
	size_t maps = 9;
	assert_int_equal(valid_pack(f->path, &maps), 0);
	assert_int_equal(maps, 0);
	free(before);
	free(after);
	cm_diags_free(d);
}

/* A compile into a directory the user cannot write: a clean error, the
 * pack there unchanged. Root writes anywhere, so as root the writer runs
 * in a child as user nobody. */
static void test_hostile__pack_read_only_directory(void **state)
{
	out_fx *f = *state;
	char ro[4300], target[4400];
	fmt(ro, sizeof ro, "%s/ro", f->dir);
	fmt(target, sizeof target, "%s/x.pack", ro);
	assert_int_equal(mkdir(ro, 0755), 0);
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(write_pack(f, target, 0, d), 0);
	size_t l0, l1;
	char *before = util_read_file(target, &l0);
	assert_int_equal(chmod(ro, 0555), 0);
	assert_int_equal(chmod(f->dir, 0755), 0);

	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(77);
		cm_diags_clear(d);
		int rc = write_pack(f, target, 1, d);
		_exit(clean_write_error(rc, d, "cannot create a file in directory") ? 0 : 1);
	}
	int status = child_status(pid);
	assert_int_equal(chmod(ro, 0755), 0);
	if (status == 77)
		skip(); /* root without the right to become another user */
	assert_int_equal(status, 0);
	char *after = util_read_file(target, &l1);
	assert_int_equal(l0, l1);
	assert_memory_equal(before, after, l0);
	assert_int_equal(util_dir_entries(ro), 1);
	free(before);
	free(after);
	cm_diags_free(d);
}

#define RACE_WRITES 8
#define RACE_READS 40

/* Two compiles race to one path (one writes the map, one the tile sets
 * only) while a third process keeps opening it: every write succeeds or
 * fails cleanly, every open sees one whole pack or the other, and the
 * last file is a valid pack with no temporary file left beside it. */
static void test_hostile__pack_writers_race(void **state)
{
	out_fx *f = *state;
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(write_pack(f, f->path, 0, d), 0);
	fflush(NULL);
	pid_t pids[3];
	for (int k = 0; k < 3; k++) {
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (pids[k] != 0)
			continue;
		int bad = 0;
		if (k < 2) {
			for (int i = 0; i < RACE_WRITES; i++) {
				cm_diags_clear(d);
				int rc = write_pack(f, f->path, (size_t)(1 - k), d);
				bad += rc != 0 && !clean_write_error(rc, d, NULL);
			}
		} else {
			for (int i = 0; i < RACE_READS; i++) {
				size_t maps = 9;
				bad += valid_pack(f->path, &maps) != 0 || maps > 1;
			}
		}
		_exit(bad ? 1 : 0);
	}
	for (int k = 0; k < 3; k++)
		assert_int_equal(child_status(pids[k]), 0);
	size_t maps = 9;
	assert_int_equal(valid_pack(f->path, &maps), 0);
	assert_true(maps <= 1);
	assert_int_equal(util_dir_entries(f->dir), 1);
	cm_diags_free(d);
}

int main(int argc, char **argv)
{
	/* build/tests/test_hostile: the command is build/carcamap */
	const char *self = argc > 0 ? argv[0] : "";
	const char *slash = strrchr(self, '/');
	size_t dir = slash ? (size_t)(slash - self) : 0;
	while (dir > 0 && self[dir - 1] != '/')
		dir--;
	fmt(carcamap_bin, sizeof carcamap_bin, "%.*scarcamap", (int)dir, self);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile__fixtures),
		cmocka_unit_test(test_hostile__every_directory_has_a_reader),
		cmocka_unit_test_setup_teardown(test_hostile__pack_full_disk, out_setup, out_teardown),
		cmocka_unit_test_setup_teardown(test_hostile__pack_read_only_directory, out_setup, out_teardown),
		cmocka_unit_test_setup_teardown(test_hostile__pack_writers_race, out_setup, out_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
