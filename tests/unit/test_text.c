/* SPDX-License-Identifier: MIT */
/* test_text.c: the id syntax (cm_id_valid), the text a name may hold
 * (cm_text_problem) and terminal-safe escaping (cm_text_escape), with the
 * text diagnostics writer that uses it: one diagnostic is one line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/common.h"
#include "carcamap/diag.h"
#include "carcamap/map.h"

static void test_text__id_syntax(void **state)
{
	(void)state;
	assert_true(cm_id_valid("germany"));
	assert_true(cm_id_valid("usa-west-2"));
	assert_true(cm_id_valid("0"));
	assert_false(cm_id_valid(NULL));
	assert_false(cm_id_valid(""));
	assert_false(cm_id_valid("-x"));
	assert_false(cm_id_valid("../escape"));
	assert_false(cm_id_valid("a/b"));
	assert_false(cm_id_valid("Bad Id"));
	assert_false(cm_id_valid("Germany"));
	assert_false(cm_id_valid("a.pack"));
	char id[CM_ID_MAX + 2];
	memset(id, 'a', CM_ID_MAX);
	id[CM_ID_MAX] = '\0';
	assert_true(cm_id_valid(id));
	id[CM_ID_MAX] = 'a';
	id[CM_ID_MAX + 1] = '\0';
	assert_false(cm_id_valid(id));
}

static void test_text__problems(void **state)
{
	(void)state;
	assert_null(cm_text_problem("Berlin"));
	assert_null(cm_text_problem("K\xc3\xb8" "benhavn \xe2\x80\x94 \xf0\x9f\x8f\xb0"));
	assert_string_equal(cm_text_problem("a\nb"), "a control character");
	assert_string_equal(cm_text_problem("a\tb"), "a control character");
	assert_string_equal(cm_text_problem("\x1b[2J"), "a control character");
	assert_string_equal(cm_text_problem("a\x7f"), "a control character");
	assert_string_equal(cm_text_problem("\xc2\x9b" "2J"), "a control character");
	assert_non_null(cm_text_problem("a\xe2\x80\xae" "b"));   /* U+202E */
	assert_non_null(cm_text_problem("a\xe2\x81\xa6" "b"));   /* U+2066 */
	assert_non_null(cm_text_problem("a\xe2\x80\xa8" "b"));   /* U+2028 */
	assert_string_equal(cm_text_problem("a\xff"), "invalid UTF-8");
	assert_string_equal(cm_text_problem("\xc0\xaf"), "invalid UTF-8");  /* overlong '/' */
	assert_string_equal(cm_text_problem("\xed\xa0\x80"), "invalid UTF-8"); /* surrogate */
	assert_string_equal(cm_text_problem("\xe2\x80"), "invalid UTF-8");     /* cut */
	/* the last code point, and one past it */
	assert_null(cm_text_problem("a\xf4\x8f\xbf\xbf"));                      /* U+10FFFF */
	assert_string_equal(cm_text_problem("a\xf4\x90\x80\x80"), "invalid UTF-8"); /* U+110000 */
	assert_string_equal(cm_text_problem("\xe0\x9f\xbf"), "invalid UTF-8");     /* overlong U+07FF */
	assert_null(cm_text_problem("\xe0\xa0\x80"));                             /* U+0800 */
}

static void expect_escape(const char *in, const char *want)
{
	char *e = cm_text_escape(in);
	assert_non_null(e);
	assert_string_equal(e, want);
	free(e);
}

static void test_text__escape(void **state)
{
	(void)state;
	expect_escape("plain text", "plain text");
	expect_escape("K\xc3\xb8" "benhavn", "K\xc3\xb8" "benhavn");
	expect_escape("a\nb\tc\rd", "a\\nb\\tc\\rd");
	expect_escape("\x1b]0;owned\x07", "\\x1B]0;owned\\x07");
	expect_escape("\x7f", "\\x7F");
	expect_escape("\xc2\x9b" "2J", "\\u{009B}2J");
	expect_escape("x\xe2\x80\xae" "y", "x\\u{202E}y");
	expect_escape("\xff\xfe", "\\xFF\\xFE");
	expect_escape("\xe2\x80", "\\xE2\\x80");
	assert_null(cm_text_escape(NULL));
}

/* Newlines and escape sequences in a file name, a where and a message
 * never reach the output raw: the rendering is exactly one line. */
static void test_text__diagnostic_is_one_line(void **state)
{
	(void)state;
	cm_diags *d;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_diags_add(d, CM_SEV_ERROR, "CM0001", "a\nb.xml", 3, 0, "tile \x1b[2J",
	             "bad\nx.xml:1: error: forged \xe2\x80\xae");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cm_diags_write_text(d, f), 0);
	fclose(f);
	assert_string_equal(buf, "a\\nb.xml:3: error: tile \\x1B[2J: bad\\nx.xml:1: error: forged "
	                         "\\u{202E} [CM0001]\n");
	free(buf);
	/* a quoted source line is escaped too, the caret under the escaped column */
	const char src[] = "<a x=\"\x1b[31m\" y=\"1\"/>\n";
	assert_int_equal(cm_diags_set_source(d, "s.xml", src, sizeof src - 1), 0);
	cm_diags_clear(d);
	cm_diags_add(d, CM_SEV_ERROR, "CM0001", "s.xml", 1, 15, NULL, "m");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cm_diags_write_text(d, f), 0);
	fclose(f);
	assert_string_equal(buf, "s.xml:1:15: error: m [CM0001]\n"
	                         "      1 | <a x=\"\\x1B[31m\" y=\"1\"/>\n"
	                         "        |                  ^\n");
	free(buf);
	cm_diags_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text__id_syntax),
		cmocka_unit_test(test_text__problems),
		cmocka_unit_test(test_text__escape),
		cmocka_unit_test(test_text__diagnostic_is_one_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
