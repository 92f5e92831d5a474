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
#include <sys/stat.h>
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
		cmocka_unit_test(test_public_io__atomic_write),
		cmocka_unit_test(test_public_io__paths),
	};
	return cmocka_run_group_tests_name("public_io", tests, NULL, NULL);
}
