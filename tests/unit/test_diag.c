/* SPDX-License-Identifier: MIT */
/* test_diag.c: the diagnostics sink: filters, strict, sort, text/JSON/SARIF. */
#define _GNU_SOURCE /* fopencookie: a stream that counts its writes */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/diag.h"
#include "base/util_int.h"

/* Renders with fn into a string (caller frees). */
static char *render(const cm_diags *d, int (*fn)(const cm_diags *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(d, f), 0);
	fclose(f);
	return buf;
}

static void test_diag__text_format_and_counts(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_add(d, CM_SEV_ERROR, "CM0001", "a.xml", 3, 7, NULL, "bad %s", "thing");
	cm_diags_add(d, CM_SEV_WARNING, NULL, "b.xml", 0, 0, NULL, "no line");
	cm_diags_add(d, CM_SEV_NOTE, "CM0002", NULL, 0, 0, "map x, square (1,2)", "a note");
	assert_int_equal(cm_diags_count(d), 3);
	assert_int_equal(cm_diags_errors(d), 1);
	assert_int_equal(cm_diags_count_at_least(d, CM_SEV_WARNING), 2);
	char *t = render(d, cm_diags_write_text);
	assert_string_equal(t, "a.xml:3:7: error: bad thing [CM0001]\n"
	                       "b.xml: warning: no line\n"
	                       "note: map x, square (1,2): a note [CM0002]\n");
	free(t);
	char sum[64];
	cm_diags_summary(d, sum, sizeof sum);
	assert_string_equal(sum, "1 error, 1 warning");
	cm_diags_free(d);
	cm_diags_free(NULL);
}

static void test_diag__quotes_source_line(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	const char *src = "<a>\n  <b x='1'/>\n</a>\n";
	assert_int_equal(cm_diags_set_source(d, "f.xml", src, strlen(src)), 0);
	cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", 2, 3, NULL, "here");
	char *t = render(d, cm_diags_write_text);
	assert_string_equal(t, "f.xml:2:3: error: here\n"
	                       "      2 |   <b x='1'/>\n"
	                       "        |   ^\n");
	free(t);
	cm_diags_free(d);
}

/* The first and the last line (with and without a final newline, with
 * CRLF), a line past the end, and a line at and past the 200 bytes a
 * quote shows: what is quoted and where the caret goes. */
static void test_diag__quotes_first_last_and_long_lines(void **state)
{
	(void)state;
	static const char *const srcs[3] = { "first\nsecond\nlast", "first\r\nlast\r\n", NULL };
	static const char *const lasts[2] = { "last", "last" };
	static const unsigned n_lines[2] = { 3, 2 };
	for (int k = 0; k < 2; k++) {
		cm_diags *d;
		assert_int_equal(cm_diags_new(&d), 0);
		assert_int_equal(cm_diags_set_source(d, "f.xml", srcs[k], strlen(srcs[k])), 0);
		cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", 1, 1, NULL, "one");
		cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", n_lines[k], 4, NULL, "last");
		cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", n_lines[k] + 1, 1, NULL, "past the end");
		char *t = render(d, cm_diags_write_text);
		char *want = cm_asprintf("f.xml:1:1: error: one\n"
		                         "      1 | first\n"
		                         "        | ^\n"
		                         "f.xml:%u:4: error: last\n"
		                         "      %u | %s\n"
		                         "        |    ^\n"
		                         "f.xml:%u:1: error: past the end\n",
		                         n_lines[k], n_lines[k], lasts[k], n_lines[k] + 1);
		assert_string_equal(t, want);
		free(want);
		free(t);
		cm_diags_free(d);
	}
	/* 200 bytes are shown: a caret at the 200th, right after it, not beyond */
	char line[260];
	memset(line, 'a', 250);
	line[250] = '\0';
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_diags_set_source(d, "g.xml", line, 250), 0);
	cm_diags_add(d, CM_SEV_ERROR, NULL, "g.xml", 1, 200, NULL, "at");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "g.xml", 1, 201, NULL, "after");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "g.xml", 1, 202, NULL, "beyond");
	char *t = render(d, cm_diags_write_text);
	char quote[256], caret[256];
	snprintf(quote, sizeof quote, "      1 | %.200s\n", line);
	memset(caret, ' ', 199);
	caret[199] = '\0';
	char *want = cm_asprintf("g.xml:1:200: error: at\n%s        | %s^\n"
	                         "g.xml:1:201: error: after\n%s        | %s ^\n"
	                         "g.xml:1:202: error: beyond\n%s",
	                         quote, caret, quote, caret, quote);
	assert_string_equal(t, want);
	free(want);
	free(t);
	cm_diags_free(d);
}

/* cm_diags_point remembers its answers by source, line and name: the same
 * name on other lines and in other files is looked for again. */
static void test_diag__point_remembers_per_line_and_file(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	const char *f = "<a>\n<b x='1'/>\n  <b x='2'/>\n<b y='1' x='3'/>\n</a>\n";
	const char *g = "<a>\n<b  x='1'/>\n</a>\n";
	assert_int_equal(cm_diags_set_source(d, "f.xml", f, strlen(f)), 0);
	assert_int_equal(cm_diags_set_source(d, "g.xml", g, strlen(g)), 0);
	static const struct { const char *file; unsigned line, col; } want[] = {
		{ "f.xml", 2, 4 }, { "f.xml", 3, 6 }, { "f.xml", 2, 4 }, { "g.xml", 2, 5 }, { "f.xml", 4, 10 }, { "f.xml", 3, 6 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, want[i].file, want[i].line, 0, NULL, "x");
		cm_diags_point(d, "x");
		assert_int_equal(cm_diags_get(d, i)->col, want[i].col);
	}
	cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", 2, 0, NULL, "y");
	cm_diags_point(d, "y"); /* another name on a line already asked about */
	assert_int_equal(cm_diags_get(d, cm_diags_count(d) - 1)->col, 0);
	cm_diags_free(d);
}

/* Bytes the heap holds in use (glibc's count; 0 where there is none, as
 * under AddressSanitizer, which finds leaks itself). */
static size_t heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	return mallinfo2().uordblks;
#else
	return 0;
#endif
}

/* A sink with filters and sources, freed, gives every byte back: a leak in
 * the ignore or only list (or a source) shows without a sanitizer. */
static void test_diag__free_gives_every_byte_back(void **state)
{
	(void)state;
	for (int round = 0; round < 2; round++) { /* the first round warms the allocator */
		size_t before = heap_in_use();
		for (int i = 0; i < 200; i++) {
			cm_diags *d;
			assert_int_equal(cm_diags_new(&d), 0);
			assert_int_equal(cm_diags_ignore(d, "CM0001"), 0);
			assert_int_equal(cm_diags_ignore(d, "CM0002"), 0);
			assert_int_equal(cm_diags_only(d, "CM0003"), 0);
			assert_int_equal(cm_diags_set_source(d, "f.xml", "<a/>\n", 5), 0);
			cm_diags_add(d, CM_SEV_ERROR, "CM0003", "f.xml", 1, 1, NULL, "kept");
			cm_diags_add(d, CM_SEV_ERROR, "CM0001", "f.xml", 1, 1, NULL, "dropped");
			cm_diags_free(d);
		}
		if (round == 1 && heap_in_use() != before)
			fail_msg("the heap grew by %zu bytes over 200 sinks", heap_in_use() - before);
	}
}

static void test_diag__point_only_when_certain(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	const char *src = "<a>\n  <b x='1' xx='2' y = '3'/>\n  <c id='1'/><c id='2'/>\n</a>\n";
	assert_int_equal(cm_diags_set_source(d, "f.xml", src, strlen(src)), 0);
	cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", 2, 0, NULL, "x");
	cm_diags_point(d, "x");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", 2, 0, NULL, "y");
	cm_diags_point(d, "y");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", 2, 0, NULL, "tag");
	cm_diags_point(d, "<b");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", 3, 0, NULL, "twice on the line");
	cm_diags_point(d, "id");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "f.xml", 2, 0, NULL, "absent");
	cm_diags_point(d, "z");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "g.xml", 2, 0, NULL, "no source");
	cm_diags_point(d, "x");
	assert_int_equal(cm_diags_get(d, 0)->col, 6);
	assert_int_equal(cm_diags_get(d, 1)->col, 19);
	assert_int_equal(cm_diags_get(d, 2)->col, 3);
	assert_int_equal(cm_diags_get(d, 3)->col, 0);
	assert_int_equal(cm_diags_get(d, 4)->col, 0);
	assert_int_equal(cm_diags_get(d, 5)->col, 0);
	cm_diags_free(d);
}

static void test_diag__filters_and_strict(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_ignore(d, "CM0002");
	cm_diags_add(d, CM_SEV_ERROR, "CM0002", NULL, 0, 0, NULL, "ignored");
	assert_int_equal(cm_diags_count(d), 0);
	cm_diags_only(d, "CM0001");
	cm_diags_add(d, CM_SEV_ERROR, "CM0003", NULL, 0, 0, NULL, "not selected");
	cm_diags_add(d, CM_SEV_WARNING, "CM0001", NULL, 0, 0, NULL, "selected");
	cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "no rule passes");
	assert_int_equal(cm_diags_count(d), 2);
	assert_int_equal(cm_diags_errors(d), 1);
	cm_diags_set_strict(d, 1);
	cm_diags_add(d, CM_SEV_WARNING, "CM0001", NULL, 0, 0, NULL, "now an error");
	assert_int_equal(cm_diags_get(d, 2)->severity, CM_SEV_ERROR);
	cm_diags_free(d);
}

/* A scope gives each report its sink, file and the defaults it does not
 * name; a rule reports at its catalogue severity, no rule as an error. */
static void test_diag__scope_defaults_and_severity(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diag_scope s;
	cm_diag_scope_init(&s, d, "m.xml");
	assert_null(s.rule);
	assert_null(s.where);
	assert_int_equal(s.line, 0);
	cm_diag_scope_add(&s, NULL, 3, 4, NULL, "no rule %d", 1);
	s.rule = "CM0111"; /* a warning */
	s.where = "tile a";
	s.line = 9;
	cm_diag_scope_add(&s, NULL, 0, 0, NULL, "defaults %s", "all");
	cm_diag_scope_add(&s, "CM0001", 5, 0, "square (1,2)", "own %s", "values");
	cm_diag_scope nowhere;
	cm_diag_scope_init(&nowhere, NULL, "x.xml");
	cm_diag_scope_add(&nowhere, "CM0001", 1, 1, NULL, "a NULL sink takes nothing");
	assert_int_equal(cm_diags_count(d), 3);
	const cm_diag *g = cm_diags_get(d, 0);
	assert_int_equal(g->severity, CM_SEV_ERROR);
	assert_null(g->rule);
	assert_string_equal(g->file, "m.xml");
	assert_int_equal(g->line, 3);
	assert_int_equal(g->col, 4);
	assert_null(g->where);
	assert_string_equal(g->message, "no rule 1");
	g = cm_diags_get(d, 1);
	assert_int_equal(g->severity, CM_SEV_WARNING);
	assert_string_equal(g->rule, "CM0111");
	assert_int_equal(g->line, 9);
	assert_string_equal(g->where, "tile a");
	assert_string_equal(g->message, "defaults all");
	g = cm_diags_get(d, 2);
	assert_int_equal(g->severity, CM_SEV_ERROR);
	assert_string_equal(g->rule, "CM0001");
	assert_int_equal(g->line, 5);
	assert_string_equal(g->where, "square (1,2)");
	assert_string_equal(g->message, "own values");
	cm_diags_free(d);
}

/* cm_diags_append copies everything, squares included, in order, through
 * the target's filters and strictness; the file given fills in for
 * diagnostics that name none. */
static void test_diag__append_copies_through_filters(void **state)
{
	(void)state;
	cm_diags *src, *d;
	assert_int_equal(cm_diags_new(&src), 0);
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_add(src, CM_SEV_WARNING, "CM0111", "a.xml", 2, 3, "here", "first");
	cm_diags_set_square(src, 4, 5);
	cm_diags_add(src, CM_SEV_ERROR, "CM0002", NULL, 0, 0, NULL, "ignored by d");
	cm_diags_add(src, CM_SEV_NOTE, NULL, NULL, 7, 0, NULL, "no file");
	cm_diags_ignore(d, "CM0002");
	cm_diags_set_strict(d, 1);
	cm_diags_append(d, src, "given.xml");
	cm_diags_append(NULL, src, NULL); /* a NULL sink takes nothing */
	cm_diags_append(d, NULL, NULL);   /* nor gives */
	assert_int_equal(cm_diags_count(d), 2);
	const cm_diag *g = cm_diags_get(d, 0);
	assert_int_equal(g->severity, CM_SEV_ERROR); /* strict */
	assert_string_equal(g->file, "a.xml");
	assert_int_equal(g->line, 2);
	assert_int_equal(g->col, 3);
	assert_string_equal(g->where, "here");
	assert_string_equal(g->message, "first");
	assert_int_equal(g->x, 4);
	assert_int_equal(g->y, 5);
	g = cm_diags_get(d, 1);
	assert_int_equal(g->severity, CM_SEV_NOTE);
	assert_string_equal(g->file, "given.xml");
	assert_int_equal(g->x, -1);
	assert_string_equal(g->message, "no file");
	assert_int_equal(cm_diags_count(src), 3);
	cm_diags_free(src);
	cm_diags_free(d);
}

static void test_diag__sort_is_stable(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_add(d, CM_SEV_ERROR, NULL, "b", 1, 0, NULL, "b1");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "a", 9, 0, NULL, "a9");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "a", 2, 0, NULL, "a2-first");
	cm_diags_add(d, CM_SEV_ERROR, NULL, "a", 2, 0, NULL, "a2-second");
	cm_diags_sort(d);
	assert_string_equal(cm_diags_get(d, 0)->message, "a2-first");
	assert_string_equal(cm_diags_get(d, 1)->message, "a2-second");
	assert_string_equal(cm_diags_get(d, 2)->message, "a9");
	assert_string_equal(cm_diags_get(d, 3)->message, "b1");
	cm_diags_free(d);
}

static void test_diag__json_escapes(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_add(d, CM_SEV_ERROR, "CM0001", "q\"\\.xml", 1, 2, NULL, "tab\there \xff bad utf8");
	char *t = render(d, cm_diags_write_json);
	assert_non_null(strstr(t, "\"file\": \"q\\\"\\\\.xml\""));
	assert_non_null(strstr(t, "\"message\": \"tab\\there \\ufffd bad utf8\""));
	assert_non_null(strstr(t, "\"errors\": 1"));
	free(t);
	cm_diags_free(d);
}

static void test_diag__sarif_has_rules_and_region(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_check(d, "CM0001", "x.xml", 4, 0, NULL, "broken");
	char *t = render(d, cm_diags_write_sarif);
	assert_non_null(strstr(t, "\"version\": \"2.1.0\""));
	assert_non_null(strstr(t, "\"ruleId\": \"CM0001\""));
	assert_non_null(strstr(t, "\"startLine\": 4"));
	assert_null(strstr(t, "startColumn"));
	assert_non_null(strstr(t, "\"id\": \"CM0001\""));
	assert_non_null(strstr(t, "\"ruleIndex\": 0"));
	/* only the rules the results use are listed */
	assert_null(strstr(t, "\"id\": \"CM0005\""));
	/* what code scanning requires: full description, help, tool URI, and
	 * relative paths against a base id */
	assert_non_null(strstr(t, "\"fullDescription\""));
	assert_non_null(strstr(t, "\"help\""));
	assert_non_null(strstr(t, "\"informationUri\""));
	assert_non_null(strstr(t, "\"uriBaseId\": \"SRCROOT\""));
	assert_non_null(strstr(t, "\"originalUriBaseIds\""));
	free(t);
	char *u = cm_uri_from_path("a dir/b#1%.xml");
	assert_string_equal(u, "a%20dir/b%231%25.xml");
	free(u);
	u = cm_uri_from_path("/tmp/K\xc3\xb8ge.xml");
	assert_string_equal(u, "file:///tmp/K%C3%B8ge.xml");
	free(u);
	cm_diags_free(d);
}

static void test_diag__catalogue_is_sorted_and_unique(void **state)
{
	(void)state;
	for (size_t i = 0; i < cm_catalog_count(); i++) {
		const cm_check_info *c = cm_catalog_get(i);
		assert_int_equal(strlen(c->id), 6);
		assert_true(strncmp(c->id, "CM", 2) == 0);
		assert_true(c->title[0] && c->fix[0]);
		if (i > 0)
			assert_true(strcmp(cm_catalog_get(i - 1)->id, c->id) < 0);
		assert_ptr_equal(cm_catalog_find(c->id), c);
	}
	assert_null(cm_catalog_find("CM9999"));
}

/* An unbuffered stream (as stderr is) that counts the writes reaching it. */
typedef struct {
	size_t calls, bytes;
	char *text;
} counter;

static ssize_t count_write(void *c, const char *buf, size_t n)
{
	counter *k = c;
	char *t = realloc(k->text, k->bytes + n + 1);
	if (!t)
		return -1;
	memcpy(t + k->bytes, buf, n);
	k->bytes += n;
	t[k->bytes] = 0;
	k->text = t;
	k->calls++;
	return (ssize_t)n;
}

static void test_diag__text_written_in_few_pieces(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	const char *src = "<a>\n  <b x='1'/>\n</a>\n";
	assert_int_equal(cm_diags_set_source(d, "f.xml", src, strlen(src)), 0);
	for (int i = 0; i < 3000; i++)
		cm_diags_add(d, CM_SEV_ERROR, "CM0001", "f.xml", 2, 3, "square (1,2)", "problem %d", i);
	counter k = { 0, 0, NULL };
	FILE *f = fopencookie(&k, "w", (cookie_io_functions_t){ .write = count_write });
	assert_non_null(f);
	assert_int_equal(setvbuf(f, NULL, _IONBF, 0), 0);
	assert_int_equal(cm_diags_write_text(d, f), 0);
	assert_int_equal(fclose(f), 0);
	/* the same text as through a buffered stream, in pieces of 64 KiB:
	 * one write per diagnostic part would be ~30,000 calls */
	char *want = render(d, cm_diags_write_text);
	assert_string_equal(k.text, want);
	assert_true(k.bytes > 200000);
	assert_true(k.calls <= k.bytes / 65536 + 1);
	free(want);
	free(k.text);
	cm_diags_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diag__text_format_and_counts),
		cmocka_unit_test(test_diag__scope_defaults_and_severity),
		cmocka_unit_test(test_diag__append_copies_through_filters),
		cmocka_unit_test(test_diag__quotes_source_line),
		cmocka_unit_test(test_diag__quotes_first_last_and_long_lines),
		cmocka_unit_test(test_diag__point_remembers_per_line_and_file),
		cmocka_unit_test(test_diag__free_gives_every_byte_back),
		cmocka_unit_test(test_diag__text_written_in_few_pieces),
		cmocka_unit_test(test_diag__point_only_when_certain),
		cmocka_unit_test(test_diag__filters_and_strict),
		cmocka_unit_test(test_diag__sort_is_stable),
		cmocka_unit_test(test_diag__json_escapes),
		cmocka_unit_test(test_diag__sarif_has_rules_and_region),
		cmocka_unit_test(test_diag__catalogue_is_sorted_and_unique),
	};
	return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}
