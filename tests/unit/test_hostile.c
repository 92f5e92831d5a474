/* test_hostile.c: hostile inputs through every reader. Each directory
 * tests/fixtures/hostile/<reader>/ holds inputs X, committed or built at
 * test time from a recipe X.gen (large or binary ones), and beside each an
 * X.expect naming the return code and the diagnostics the reader must
 * produce; one runner checks them all, each under a time limit. Inputs
 * that crashed a fuzzer stay here as regression cases. Formats: README.md
 * in that directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "carcamap/carcamap.h"

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

static const struct {
	const char *dir;
	reader_fn read;
} readers[] = {
	{ "tileset", read_tileset },
};

/* ------------------------------------------------------------------ */
/* the time limit: a hang is a failure that names its fixture           */

static char current[512];

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

/* Builds the input of recipe gen into out. Lines: "text STR", "repeat N
 * STR", "repeat-numbered N STR" (%u in STR is the copy's number, from 0);
 * '#' starts a comment. Returns false with a message in err. */
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
		} else if (strcmp(key, "absent-file") == 0) {
			char hit[1024];
			if (leaks_file(arg, text, hit, sizeof hit)) {
				fprintf(stderr, "hostile %s: the diagnostics show content of %s: \"%s\"\n", name, arg, hit);
				bad++;
			}
		} else if (strcmp(key, "seconds") != 0) {
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

/* ------------------------------------------------------------------ */
/* the runner                                                           */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir; NULL-terminated, caller frees. */
static char **list_dir(const char *dir, size_t *n)
{
	DIR *dp = opendir(dir);
	*n = 0;
	if (!dp)
		return NULL;
	size_t cap = 64;
	char **v = malloc(cap * sizeof *v);
	assert_non_null(v);
	struct dirent *e;
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
			continue;
		if (*n + 1 >= cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof *v);
			assert_non_null(v);
		}
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(dp);
	qsort(v, *n, sizeof *v, by_name);
	v[*n] = NULL;
	return v;
}

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

/* Runs every case of one reader's directory; returns the cases that failed. */
static int run_reader(const char *sub, reader_fn read, const char *tmp, int *cases)
{
	char dir[256];
	fmt(dir, sizeof dir, "%s/%s", HOSTILE_DIR, sub);
	size_t n;
	char **names = list_dir(dir, &n);
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		const char *f = names[i];
		char path[1024], exp[1024], gen[1024], base[512];
		if (ends_with(f, ".gen"))
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
				failed++;
				continue;
			}
		}
		cm_diags *d = NULL;
		assert_int_equal(cm_diags_new(&d), 0);
		alarm(expect_seconds(exp));
		int rc = read(path, d);
		alarm(0);
		(*cases)++;
		if (check_expect(exp, current, rc, d))
			failed++;
		cm_diags_free(d);
		if (strncmp(path, tmp, strlen(tmp)) == 0)
			remove(path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return failed;
}

static void test_hostile__fixtures(void **state)
{
	(void)state;
	char tmp[] = "/tmp/cm-hostile-XXXXXX";
	assert_non_null(mkdtemp(tmp));
	signal(SIGALRM, on_alarm);
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
	char **names = list_dir(HOSTILE_DIR, &n);
	assert_non_null(names);
	for (size_t i = 0; i < n; i++) {
		bool known = false;
		for (size_t r = 0; r < sizeof readers / sizeof readers[0]; r++)
			known |= strcmp(names[i], readers[r].dir) == 0;
		if (!known)
			fail_msg("%s/%s: no reader for this directory in test_hostile.c", HOSTILE_DIR, names[i]);
		free(names[i]);
	}
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile__fixtures),
		cmocka_unit_test(test_hostile__every_directory_has_a_reader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
