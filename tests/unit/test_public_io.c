/* SPDX-License-Identifier: MIT */
/* test_public_io.c: the JSON writer and the file helpers as a client (the
 * command) sees them, through the public headers only (carcamap/json.h,
 * carcamap/file.h): output shape, escaping, the atomic writer leaving the
 * target as it was on failure, regular files only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "carcamap/file.h"
#include "carcamap/json.h"
#include "util_files.h"

static char *write_doc(bool pretty)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	cm_json *j = cm_json_new(f, pretty);
	assert_non_null(j);
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "name", "a\"b\n\xff");
	cm_json_kv_int(j, "n", -3);
	cm_json_kv_fixed(j, "mean", 17.3500001, 4);
	cm_json_key(j, "list");
	cm_json_arr_begin(j);
	cm_json_bool(j, true);
	cm_json_null(j);
	cm_json_str(j, NULL);
	cm_json_arr_end(j);
	cm_json_key(j, "empty");
	cm_json_obj_begin(j);
	cm_json_obj_end(j);
	cm_json_obj_end(j);
	assert_int_equal(cm_json_finish(j), 0);
	cm_json_free(j);
	fclose(f);
	return buf;
}

static void test_public_io__json_writer(void **state)
{
	(void)state;
	char *c = write_doc(false);
	assert_string_equal(c, "{\"name\":\"a\\\"b\\n\\ufffd\",\"n\":-3,\"mean\":17.35,"
	                       "\"list\":[true,null,null],\"empty\":{}}\n");
	free(c);
	char *p = write_doc(true);
	assert_string_equal(p, "{\n  \"name\": \"a\\\"b\\n\\ufffd\",\n  \"n\": -3,\n  \"mean\": 17.35,\n"
	                       "  \"list\": [\n    true,\n    null,\n    null\n  ],\n  \"empty\": {}\n}\n");
	free(p);
	cm_json_free(NULL);
}

/* Nesting: CM_JSON_MAX_DEPTH arrays one in another are written, compact
 * and indented (two spaces a level, the innermost value at the deepest
 * indentation); one level more is a caller's bug the writer asserts. */
static void test_public_io__json_depth_on_both_sides(void **state)
{
	(void)state;
	enum { N = CM_JSON_MAX_DEPTH };
	for (int pretty = 0; pretty < 2; pretty++) {
		char *got = NULL, want[8 * N * N + 64], *w = want;
		size_t len = 0;
		FILE *f = open_memstream(&got, &len);
		assert_non_null(f);
		cm_json *j = cm_json_new(f, pretty);
		assert_non_null(j);
		for (int i = 0; i <= N; i++) { /* N openings, then the value */
			if (pretty && i)
				w += sprintf(w, "\n%*s", 2 * i, "");
			if (i < N) {
				cm_json_arr_begin(j);
				*w++ = '[';
			}
		}
		cm_json_int(j, 7);
		*w++ = '7';
		for (int i = N - 1; i >= 0; i--) {
			cm_json_arr_end(j);
			if (pretty)
				w += sprintf(w, "\n%*s", 2 * i, "");
			*w++ = ']';
		}
		strcpy(w, "\n");
		assert_int_equal(cm_json_finish(j), 0);
		cm_json_free(j);
		fclose(f);
		assert_string_equal(got, want);
		free(got);
	}
#ifndef NDEBUG
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen("/dev/null", "w");
		if (!freopen("/dev/null", "w", stderr)) /* the assertion's message is expected */
			_exit(2);
		cm_json *j = f ? cm_json_new(f, false) : NULL;
		for (int i = 0; j && i <= N; i++)
			cm_json_arr_begin(j);
		_exit(0); /* past the limit unnoticed */
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#endif
}

/* The escaping rules spelt out byte by byte (carcamap/json.h): what the
 * writer's buffered fast paths must reproduce exactly. */
static void ref_escape(FILE *f, const unsigned char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned c = *s, n = 0, min = 0, cp;
		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", (char)c);
		} else if (c == '\n' || c == '\t' || c == '\r') {
			fputs(c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r", f);
		} else if (c < 0x20 || c == 0x7F) {
			fprintf(f, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc((int)c, f);
		} else {
			if (c >= 0xC2 && c <= 0xDF)
				n = 2, min = 0x80;
			else if (c >= 0xE0 && c <= 0xEF)
				n = 3, min = 0x800;
			else if (c >= 0xF0 && c <= 0xF4)
				n = 4, min = 0x10000;
			cp = c & (0x7Fu >> n);
			for (unsigned i = 1; i < n; i++) {
				if ((s[i] & 0xC0) != 0x80) {
					n = 0;
					break;
				}
				cp = (cp << 6) | (s[i] & 0x3Fu);
			}
			if (n && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)))
				n = 0;
			if (n == 0) {
				fputs("\\ufffd", f);
			} else {
				fwrite(s, 1, n, f);
				s += n - 1;
			}
		}
		s++;
	}
	fputc('"', f);
}

/* The writer's document and the reference's for the same strings, as keys
 * and as values, compact and pretty. */
static void expect_escaped(const char *const *strs, size_t n)
{
	for (int pretty = 0; pretty < 2; pretty++) {
		char *got = NULL, *want = NULL;
		size_t got_len = 0, want_len = 0;
		FILE *g = open_memstream(&got, &got_len), *w = open_memstream(&want, &want_len);
		assert_non_null(g);
		assert_non_null(w);
		cm_json *j = cm_json_new(g, pretty);
		assert_non_null(j);
		cm_json_arr_begin(j);
		fputc('[', w);
		for (size_t i = 0; i < n; i++) {
			cm_json_obj_begin(j);
			cm_json_kv_str(j, strs[i], strs[i]);
			cm_json_obj_end(j);
			fputs(i ? "," : "", w);
			fputs(pretty ? "\n  {\n    " : "{", w);
			ref_escape(w, (const unsigned char *)strs[i]);
			fputs(pretty ? ": " : ":", w);
			ref_escape(w, (const unsigned char *)strs[i]);
			fputs(pretty ? "\n  }" : "}", w);
		}
		cm_json_arr_end(j);
		fputs(n && pretty ? "\n]\n" : "]\n", w);
		assert_int_equal(cm_json_finish(j), 0);
		cm_json_free(j);
		fclose(g);
		fclose(w);
		assert_int_equal(got_len, want_len);
		assert_memory_equal(got, want, want_len);
		free(got);
		free(want);
	}
}

static void test_public_io__json_escapes_every_byte(void **state)
{
	(void)state;
	/* each byte alone, then after and before plain text */
	char one[255][8];
	const char *strs[255 * 4 + 16];
	size_t n = 0;
	static char mixed[255][3][12];
	for (int b = 1; b < 256; b++) {
		snprintf(one[b - 1], sizeof one[b - 1], "%c", b);
		strs[n++] = one[b - 1];
		snprintf(mixed[b - 1][0], sizeof mixed[b - 1][0], "ab%c", b);
		snprintf(mixed[b - 1][1], sizeof mixed[b - 1][1], "%ccd", b);
		snprintf(mixed[b - 1][2], sizeof mixed[b - 1][2], "e%c%cf", b, b);
		for (int k = 0; k < 3; k++)
			strs[n++] = mixed[b - 1][k];
	}
	/* UTF-8: valid at each length, overlong, surrogate, past U+10FFFF,
	 * truncated sequences, a stray continuation byte */
	static const char *const utf8[] = {
		"caf\xc3\xa9", "\xe2\x82\xac 5", "\xf0\x9f\x97\xba map", "\xc0\xaf", "\xe0\x80\xaf",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xe2\x82", "\xf0\x9f\x97",
		"x\x80y", "\xc3", "", "plain ASCII, with spaces ~",
	};
	for (size_t i = 0; i < sizeof utf8 / sizeof *utf8; i++)
		strs[n++] = utf8[i];
	expect_escaped(strs, n);
}

/* Strings and documents far larger than the writer's buffer: runs, escapes
 * and multi-byte sequences straddle every block boundary. */
static void test_public_io__json_long_strings(void **state)
{
	(void)state;
	enum { LEN = 300000 };
	char *plain = malloc(LEN + 1), *mixed = malloc(LEN + 1);
	assert_non_null(plain);
	assert_non_null(mixed);
	static const char pattern[] = "ab\"c\\d\ne\x01\xc3\xa9\xe2\x82\xac\xf0\x9f\x97\xba\xff ";
	for (size_t i = 0; i < LEN; i++) {
		plain[i] = (char)('a' + i % 26);
		mixed[i] = pattern[i % (sizeof pattern - 1)];
	}
	plain[LEN] = mixed[LEN] = '\0';
	const char *strs[] = { plain, mixed, "short", mixed + 7 };
	expect_escaped(strs, sizeof strs / sizeof *strs);
	free(plain);
	free(mixed);
}

static int write_ok(FILE *f, void *arg)
{
	return fputs(arg, f) < 0 ? CM_EIO : 0;
}

static int write_fails(FILE *f, void *arg)
{
	fputs(arg, f);
	return CM_EINVAL;
}

static void test_public_io__atomic_write(void **state)
{
	(void)state;
	char dir[] = "/tmp/cm-public-io-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof path, "%s/out.txt", dir);
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_file_write(path, write_ok, "first\n", d), 0);
	char *t = util_read_file(path, NULL);
	assert_string_equal(t, "first\n");
	free(t);
	/* a failing writer leaves the file as it was and no file beside it */
	assert_int_equal(cm_file_write(path, write_fails, "half", d), CM_EINVAL);
	t = util_read_file(path, NULL);
	assert_string_equal(t, "first\n");
	free(t);
	assert_int_equal(util_dir_entries(dir), 1);
	/* regular files only: a directory is refused with a reason */
	FILE *f = NULL;
	assert_int_equal(cm_file_open_read(dir, d, &f), CM_EIO);
	assert_null(f);
	assert_int_equal(cm_diags_count(d), 1);
	assert_string_equal(cm_diags_get(d, 0)->message, "is a directory");
	assert_int_equal(cm_file_open_read(path, d, &f), 0);
	assert_non_null(f);
	fclose(f);
	cm_diags_free(d);
	remove(path);
	rmdir(dir);
}

static void test_public_io__paths(void **state)
{
	(void)state;
	char *r = cm_path_resolve("maps/x/map.xml", "../tilesets/base.xml");
	assert_string_equal(r, "maps/x/../tilesets/base.xml");
	free(r);
	r = cm_path_resolve("map.xml", "base.xml");
	assert_string_equal(r, "base.xml");
	free(r);
	r = cm_path_resolve("maps/map.xml", "/abs/base.xml");
	assert_string_equal(r, "/abs/base.xml");
	free(r);
	/* relative to the directory of the file that will name it */
	r = cm_path_relative("maps/benelux/out.xml", "maps/tilesets/base.xml");
	assert_string_equal(r, "../tilesets/base.xml");
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_public_io__json_writer),
		cmocka_unit_test(test_public_io__json_escapes_every_byte),
		cmocka_unit_test(test_public_io__json_long_strings),
		cmocka_unit_test(test_public_io__json_depth_on_both_sides),
		cmocka_unit_test(test_public_io__atomic_write),
		cmocka_unit_test(test_public_io__paths),
	};
	return cmocka_run_group_tests_name("public_io", tests, NULL, NULL);
}
