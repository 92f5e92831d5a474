/* SPDX-License-Identifier: MIT */
/* util_files.c: fixture files for the unit tests (util_files.h): reading
 * files and directories, and the "<!-- expect: ID line N -->" headers that
 * every bad-input fixture carries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util_files.h"

char *util_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	char chunk[4096];
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (n + got + 1 > cap) {
			cap = (n + got + 1) * 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		memcpy(buf + n, chunk, got);
		n += got;
	}
	assert_int_equal(ferror(f), 0);
	fclose(f);
	if (!buf) {
		buf = malloc(1);
		assert_non_null(buf);
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a > b && strcmp(s + a - b, suffix) == 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **util_list_dir(const char *dir, const char *suffix, size_t *n)
{
	DIR *dp = opendir(dir);
	if (!dp)
		fail_msg("cannot read directory %s", dir);
	char **v = NULL;
	size_t k = 0;
	for (struct dirent *e; (e = readdir(dp)) != NULL;) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (suffix && !ends_with(e->d_name, suffix))
			continue;
		v = realloc(v, (k + 2) * sizeof *v);
		assert_non_null(v);
		v[k] = strdup(e->d_name);
		assert_non_null(v[k]);
		k++;
	}
	closedir(dp);
	if (!v) {
		v = malloc(sizeof *v);
		assert_non_null(v);
	}
	qsort(v, k, sizeof *v, name_cmp);
	v[k] = NULL;
	*n = k;
	return v;
}

void util_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

size_t util_dir_entries(const char *dir)
{
	size_t n;
	util_names_free(util_list_dir(dir, NULL, &n));
	return n;
}

char *util_read_dir_files(const char *dir, const char *suffix)
{
	size_t n, len = 0;
	char **names = util_list_dir(dir, suffix, &n);
	char *all = calloc(1, 1);
	assert_non_null(all);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		size_t k;
		char *t = util_read_file(path, &k);
		all = realloc(all, len + k + 1);
		assert_non_null(all);
		memcpy(all + len, t, k + 1);
		len += k;
		free(t);
	}
	util_names_free(names);
	return all;
}

#define EXPECT_OPEN "<!-- expect: "

size_t util_parse_expects(const char *text, util_expect *v, size_t max)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, EXPECT_OPEN)) != NULL; p++) {
		if (n == max)
			fail_msg("more than %zu expect headers", max);
		if (sscanf(p, EXPECT_OPEN "%15s line %u -->", v[n].id, &v[n].line) != 2)
			fail_msg("malformed expect header: %.60s", p);
		n++;
	}
	return n;
}

bool util_text_expects(const char *text, const char *id)
{
	char needle[64];
	snprintf(needle, sizeof needle, EXPECT_OPEN "%s line ", id);
	return strstr(text, needle) != NULL;
}

static int expect_cmp(const void *a, const void *b)
{
	const util_expect *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

size_t util_expects_differ(const char *ctx, const util_expect *want, size_t n, const cm_diags *d,
                           const char *file)
{
	size_t ng = cm_diags_count(d);
	util_expect *w = malloc((n + 1) * sizeof *w), *g = malloc((ng + 1) * sizeof *g);
	assert_non_null(w);
	assert_non_null(g);
	if (n)
		memcpy(w, want, n * sizeof *w);
	for (size_t i = 0; i < ng; i++) {
		const cm_diag *dg = cm_diags_get(d, i);
		snprintf(g[i].id, sizeof g[i].id, "%s", dg->rule ? dg->rule : "none");
		g[i].line = !file || (dg->file && strcmp(dg->file, file) == 0) ? dg->line : 0;
	}
	qsort(w, n, sizeof *w, expect_cmp);
	qsort(g, ng, sizeof *g, expect_cmp);
	size_t i = 0, k = 0, diff = 0;
	while (i < n || k < ng) {
		int c = i == n ? 1 : k == ng ? -1 : expect_cmp(&w[i], &g[k]);
		if (c < 0)
			print_message("%s: expected %s line %u, not reported\n", ctx, w[i].id, w[i].line);
		else if (c > 0)
			print_message("%s: unexpected %s line %u\n", ctx, g[k].id, g[k].line);
		diff += c != 0;
		i += c <= 0;
		k += c >= 0;
	}
	free(w);
	free(g);
	return diff;
}

char *util_diags_text(const cm_diags *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cm_diags_write_text(d, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}
