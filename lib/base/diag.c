/* SPDX-License-Identifier: MIT */
/* diag.c: the diagnostics sink (carcamap/diag.h). Owns the list of
 * diagnostics, the ignore/only filters and the strict switch, and renders
 * the list as text (with quoted source lines), JSON and SARIF 2.1.0. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/diag.h"
#include "base/idindex_int.h"
#include "base/json_int.h"
#include "base/util_int.h"

typedef struct {
	char *file;
	char *text;
	size_t len;
	size_t *line_at; /* line_at[l - 1]: offset of line l, built once */
	size_t n_lines;
} source;

struct cm_diags {
	cm_diag *v;
	size_t n, cap;
	size_t *order; /* insertion sequence, for a stable sort */
	char **ignore;
	size_t n_ignore;
	char **only;
	size_t n_only;
	int strict;
	bool last_kept; /* the last add was kept (cm_diags_set_square applies) */
	/* how many diagnostics have each severity (n_sev[3]: any other value):
	 * cm_diags_errors, asked after every map, costs nothing per diagnostic */
	size_t n_sev[4];
	source *src;
	size_t n_src, cap_src;
	cm_idindex src_ix; /* the sources by file name */
	/* the last columns cm_diags_point found, by source, line and what:
	 * many findings on one long line look for the same few names, and
	 * each look costs the whole line (a one-line file of 50,000 findings
	 * would be scanned 50,000 times) */
	struct point_memo {
		size_t src; /* its index in src, plus one (0: unused) */
		unsigned line, col;
		char what[16];
	} memo[8];
	unsigned memo_next;
};

static size_t sev_slot(cm_severity sev)
{
	return sev >= CM_SEV_NOTE && sev <= CM_SEV_ERROR ? (size_t)sev : 3;
}

int cm_diags_new(cm_diags **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? 0 : CM_ENOMEM;
}

static void diag_release(cm_diag *g)
{
	free(g->rule);
	free(g->file);
	free(g->where);
	free(g->message);
}

void cm_diags_clear(cm_diags *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		diag_release(&d->v[i]);
	d->n = 0;
	memset(d->n_sev, 0, sizeof d->n_sev);
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void cm_diags_free(cm_diags *d)
{
	if (!d)
		return;
	cm_diags_clear(d);
	free(d->v);
	free(d->order);
	free_list(d->ignore, d->n_ignore);
	free_list(d->only, d->n_only);
	for (size_t i = 0; i < d->n_src; i++) {
		free(d->src[i].file);
		free(d->src[i].text);
		free(d->src[i].line_at);
	}
	free(d->src);
	cm_idindex_free(&d->src_ix);
	free(d);
}

static bool in_list(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static int push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof *nv);
	if (!nv)
		return CM_ENOMEM;
	*v = nv;
	if (!(nv[*n] = cm_strdup(s)))
		return CM_ENOMEM;
	(*n)++;
	return 0;
}

/* A NULL sink takes nothing, so it has nothing to filter, make strict or
 * quote: these are no-ops on it, as cm_diags_add is. */
int cm_diags_ignore(cm_diags *d, const char *rule) { return d ? push(&d->ignore, &d->n_ignore, rule) : 0; }
int cm_diags_only(cm_diags *d, const char *rule) { return d ? push(&d->only, &d->n_only, rule) : 0; }
void cm_diags_set_strict(cm_diags *d, int strict)
{
	if (d)
		d->strict = strict;
}

static void vadd(cm_diags *d, cm_severity sev, const char *rule, const char *file, unsigned line,
                 unsigned col, const char *where, const char *fmt, va_list ap)
{
	if (!d)
		return; /* a NULL sink takes nothing (diag.h) */
	d->last_kept = false;
	if (rule && in_list(d->ignore, d->n_ignore, rule))
		return;
	if (rule && d->n_only && !in_list(d->only, d->n_only, rule))
		return;
	if (d->strict && sev == CM_SEV_WARNING)
		sev = CM_SEV_ERROR;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		cm_diag *nv = realloc(d->v, cap * sizeof *nv);
		if (!nv)
			return;
		d->v = nv;
		size_t *no = realloc(d->order, cap * sizeof *no);
		if (!no)
			return;
		d->order = no;
		d->cap = cap;
	}
	cm_diag *g = &d->v[d->n];
	memset(g, 0, sizeof *g);
	g->severity = sev;
	g->rule = rule ? cm_strdup(rule) : NULL;
	g->file = file ? cm_strdup(file) : NULL;
	g->where = where ? cm_strdup(where) : NULL;
	g->line = line;
	g->col = col;
	g->message = cm_vasprintf(fmt, ap);
	g->x = g->y = -1;
	d->order[d->n] = d->n;
	d->n++;
	d->n_sev[sev_slot(sev)]++;
	d->last_kept = true;
}

void cm_diags_set_square(cm_diags *d, int x, int y)
{
	if (d && d->last_kept && d->n) {
		d->v[d->n - 1].x = x;
		d->v[d->n - 1].y = y;
	}
}

void cm_diags_add(cm_diags *d, cm_severity sev, const char *rule, const char *file, unsigned line,
                  unsigned col, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vadd(d, sev, rule, file, line, col, where, fmt, ap);
	va_end(ap);
}

void cm_diag_scope_init(cm_diag_scope *s, cm_diags *d, const char *file)
{
	memset(s, 0, sizeof *s);
	s->d = d;
	s->file = file;
}

void cm_diag_scope_vadd(const cm_diag_scope *s, const char *rule, unsigned line, unsigned col, const char *where,
                        const char *fmt, va_list ap)
{
	if (!rule)
		rule = s->rule;
	const cm_check_info *ci = rule ? cm_catalog_find(rule) : NULL;
	vadd(s->d, ci ? ci->severity : CM_SEV_ERROR, rule, s->file, line ? line : s->line, col, where ? where : s->where,
	     fmt, ap);
}

void cm_diag_scope_add(const cm_diag_scope *s, const char *rule, unsigned line, unsigned col, const char *where,
                       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(s, rule, line, col, where, fmt, ap);
	va_end(ap);
}

void cm_diags_append(cm_diags *d, const cm_diags *src, const char *file)
{
	for (size_t i = 0; d && i < cm_diags_count(src); i++) {
		const cm_diag *g = cm_diags_get(src, i);
		cm_diags_add(d, g->severity, g->rule, g->file ? g->file : file, g->line, g->col, g->where, "%s",
		             g->message ? g->message : "");
		cm_diags_set_square(d, g->x, g->y);
	}
}

void cm_diags_check(cm_diags *d, const char *id, const char *file, unsigned line, unsigned col,
                    const char *where, const char *fmt, ...)
{
	const cm_check_info *ci = cm_catalog_find(id);
	cm_severity sev = ci ? ci->severity : CM_SEV_ERROR;
	va_list ap;
	va_start(ap, fmt);
	vadd(d, sev, id, file, line, col, where, fmt, ap);
	va_end(ap);
}

static const source *find_source(const cm_diags *d, const char *file);

/* Column (1-based, in characters) of the one place on line `line` of s
 * where `what` stands: an attribute name ("x": preceded by white space,
 * followed by '=' after optional spaces) or a start tag ("<edge": followed
 * by white space, '/', '>' or the end of the line). 0 when it stands there
 * no time or more than once: a column is given only when it is certain. */
static unsigned locate(const source *s, unsigned line, const char *what)
{
	if (line < 1 || line > s->n_lines)
		return 0;
	const char *p = s->text + s->line_at[line - 1], *end = s->text + s->len;
	const char *e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	size_t wl = strlen(what);
	bool tag = what[0] == '<';
	const char *found = NULL;
	for (const char *q = p; wl && (size_t)(e - q) >= wl; q++) {
		if (memcmp(q, what, wl) != 0)
			continue;
		const char *a = q + wl;
		bool ok;
		if (tag) {
			ok = a == e || *a == ' ' || *a == '\t' || *a == '\r' || *a == '/' || *a == '>';
		} else {
			ok = q > p && (q[-1] == ' ' || q[-1] == '\t');
			while (a < e && (*a == ' ' || *a == '\t'))
				a++;
			ok = ok && a < e && *a == '=';
		}
		if (!ok)
			continue;
		if (found)
			return 0;
		found = q;
	}
	if (!found)
		return 0;
	unsigned col = 1;
	for (const char *c = p; c < found; c++)
		col += ((unsigned char)*c & 0xC0) != 0x80;
	return col;
}

void cm_diags_point(cm_diags *d, const char *what)
{
	if (!d || !d->last_kept || !d->n || !what)
		return;
	cm_diag *g = &d->v[d->n - 1];
	const source *s = g->col || !g->line ? NULL : find_source(d, g->file);
	if (!s)
		return;
	size_t wl = strlen(what), si = (size_t)(s - d->src) + 1;
	bool memo = wl < sizeof d->memo[0].what;
	for (size_t i = 0; memo && i < sizeof d->memo / sizeof d->memo[0]; i++) {
		const struct point_memo *m = &d->memo[i];
		if (m->src == si && m->line == g->line && strcmp(m->what, what) == 0) {
			g->col = m->col;
			return;
		}
	}
	g->col = locate(s, g->line, what);
	if (memo) {
		struct point_memo *m = &d->memo[d->memo_next++ % (sizeof d->memo / sizeof d->memo[0])];
		m->src = si;
		m->line = g->line;
		m->col = g->col;
		memcpy(m->what, what, wl + 1);
	}
}

size_t cm_diags_source_count(const cm_diags *d) { return d ? d->n_src : 0; }
const char *cm_diags_source_file(const cm_diags *d, size_t i) { return d && i < d->n_src ? d->src[i].file : NULL; }

size_t cm_diags_count(const cm_diags *d) { return d ? d->n : 0; }
const cm_diag *cm_diags_get(const cm_diags *d, size_t i) { return d && i < d->n ? &d->v[i] : NULL; }

size_t cm_diags_count_at_least(const cm_diags *d, cm_severity sev)
{
	size_t c = 0;
	if (!d)
		return 0;
	if (sev_slot(sev) < 3 && !d->n_sev[3]) {
		for (size_t k = sev_slot(sev); k < 3; k++)
			c += d->n_sev[k];
		return c;
	}
	for (size_t i = 0; i < d->n; i++)
		c += d->v[i].severity >= sev;
	return c;
}

size_t cm_diags_errors(const cm_diags *d) { return cm_diags_count_at_least(d, CM_SEV_ERROR); }

static size_t count_exact(const cm_diags *d, cm_severity sev)
{
	size_t c = 0;
	if (!d)
		return 0;
	if (sev_slot(sev) < 3)
		return d->n_sev[sev_slot(sev)];
	for (size_t i = 0; i < d->n; i++)
		c += d->v[i].severity == sev;
	return c;
}

/* Keeps text (len bytes, text[len] == '\0', from malloc) as the source of
 * file, taking it over when *taken; a file already kept leaves it. */
static int keep_source(cm_diags *d, const char *file, char *text, size_t len, bool *taken)
{
	*taken = false;
	if (cm_idindex_find(&d->src_ix, file) != CM_IDINDEX_NONE)
		return 0;
	if (cm_grow((void **)&d->src, &d->cap_src, d->n_src, sizeof *d->src))
		return CM_ENOMEM;
	source *s = &d->src[d->n_src];
	s->file = cm_strdup(file);
	if (!s->file)
		return CM_ENOMEM;
	s->text = text;
	s->len = len;
	/* the line index: quoting a line costs nothing per diagnostic */
	size_t lines = 1;
	for (const char *p = s->text, *end = s->text + len; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
		lines++;
	s->line_at = malloc(lines * sizeof *s->line_at);
	if (!s->line_at) {
		free(s->file);
		return CM_ENOMEM;
	}
	s->n_lines = 0;
	s->line_at[s->n_lines++] = 0;
	for (const char *p = s->text, *end = s->text + len; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
		s->line_at[s->n_lines++] = (size_t)(p + 1 - s->text);
	if (cm_idindex_add(&d->src_ix, s->file)) {
		free(s->file);
		free(s->line_at);
		return CM_ENOMEM; /* the text stays the caller's */
	}
	d->n_src++;
	*taken = true;
	return 0;
}

int cm_diags_set_source(cm_diags *d, const char *file, const char *text, size_t len)
{
	if (!d)
		return 0;
	if (cm_idindex_find(&d->src_ix, file) != CM_IDINDEX_NONE)
		return 0;
	char *copy = malloc(len + 1);
	if (!copy)
		return CM_ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	bool taken;
	int rc = keep_source(d, file, copy, len, &taken);
	if (!taken)
		free(copy);
	return rc;
}

int cm__diags_take_source(cm_diags *d, const char *file, char *text, size_t len, bool *taken)
{
	*taken = false;
	return d ? keep_source(d, file, text, len, taken) : 0;
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

typedef struct {
	cm_diag g;
	size_t order;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
	const ranked *ra = pa, *rb = pb;
	const cm_diag *a = &ra->g, *b = &rb->g;
	int c = cmp_str(a->file, b->file);
	if (!c)
		c = a->line != b->line ? (a->line < b->line ? -1 : 1) : 0;
	if (!c)
		c = a->col != b->col ? (a->col < b->col ? -1 : 1) : 0;
	if (!c)
		c = ra->order != rb->order ? (ra->order < rb->order ? -1 : 1) : 0;
	return c;
}

void cm_diags_sort(cm_diags *d)
{
	/* by file, line, column, then insertion order (a total order, so the
	 * result is stable and deterministic): O(n log n) */
	if (!d || d->n < 2)
		return;
	ranked *r = malloc(d->n * sizeof *r);
	if (!r)
		return; /* out of memory: left in insertion order */
	for (size_t i = 0; i < d->n; i++) {
		r[i].g = d->v[i];
		r[i].order = d->order[i];
	}
	qsort(r, d->n, sizeof *r, cmp_ranked);
	for (size_t i = 0; i < d->n; i++) {
		d->v[i] = r[i].g;
		d->order[i] = r[i].order;
	}
	free(r);
}

const char *cm_severity_name(cm_severity s)
{
	switch (s) {
	case CM_SEV_NOTE: return "note";
	case CM_SEV_WARNING: return "warning";
	case CM_SEV_ERROR: return "error";
	}
	return "error";
}

static const source *find_source(const cm_diags *d, const char *file)
{
	size_t i = file ? cm_idindex_find(&d->src_ix, file) : CM_IDINDEX_NONE;
	return i == CM_IDINDEX_NONE ? NULL : &d->src[i];
}

/* s escaped by cm_text_escape except that tabs stay tabs (new string). */
static char *escape_keep_tabs(const char *s)
{
	size_t n = strlen(s), cap = n * 8 + 1, len = 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	out[0] = '\0';
	const char *p = s;
	for (;;) {
		size_t k = strcspn(p, "\t");
		char *seg = cm_strndup(p, k), *e = seg ? cm_text_escape(seg) : NULL;
		free(seg);
		if (!e) {
			free(out);
			return NULL;
		}
		size_t el = strlen(e);
		memcpy(out + len, e, el + 1);
		len += el;
		free(e);
		if (!p[k])
			break;
		out[len++] = '\t';
		out[len] = '\0';
		p += k + 1;
	}
	return out;
}

/* The most of a source line a diagnostic quotes, in bytes. */
#define QUOTE_MAX 200

/* Prints line `line` of the source (its first QUOTE_MAX bytes), tabs
 * kept, and a caret under col when it falls within them. Costs at most
 * QUOTE_MAX bytes of the line, however long. */
static void quote_line(FILE *f, const source *s, unsigned line, unsigned col)
{
	if (line < 1 || line > s->n_lines)
		return;
	const char *p = s->text + s->line_at[line - 1], *end = s->text + s->len;
	if (p >= end)
		return;
	/* at most QUOTE_MAX bytes are shown: the end of the line is looked
	 * for no further (a one-line file with many findings would otherwise
	 * be scanned to its end once per finding) */
	size_t avail = (size_t)(end - p), look = avail < QUOTE_MAX + 1 ? avail : QUOTE_MAX + 1;
	const char *e = memchr(p, '\n', look);
	size_t n = e ? (size_t)(e - p) : look;
	if (n && n <= QUOTE_MAX && p[n - 1] == '\r')
		n--;
	if (n > QUOTE_MAX)
		n = QUOTE_MAX;
	/* the line as escaped text (tabs kept): a control character or bidi
	 * override in the input never reaches the terminal; the caret goes
	 * under the escaped column */
	char *head = cm_strndup(p, col > 0 && col <= n + 1 ? col - 1 : n);
	char *all = cm_strndup(p, n);
	char *eh = head ? escape_keep_tabs(head) : NULL, *ea = all ? escape_keep_tabs(all) : NULL;
	if (ea) {
		fprintf(f, "  %5u | %s\n", line, ea);
		if (eh && col > 0 && col <= n + 1) {
			fputs("        | ", f);
			for (const char *c = eh; *c; c++)
				if (*c == '\t' || (*c & 0xC0) != 0x80) /* one column per character */
					fputc(*c == '\t' ? '\t' : ' ', f);
			fputs("^\n", f);
		}
	}
	free(head);
	free(all);
	free(eh);
	free(ea);
}

/* Writes s escaped (cm_text_escape), NULL as nothing. */
static void put_escaped(FILE *f, const char *s)
{
	if (!s)
		return;
	char *e = cm_text_escape(s);
	fputs(e ? e : "(out of memory)", f);
	free(e);
}

/* Writes diagnostic g as text to f. */
static void write_one(const cm_diags *d, const cm_diag *g, FILE *f)
{
	{
		/* every part escaped: one diagnostic is one line, whatever the
		 * input held (names, file names, quoted pack text) */
		if (g->file) {
			put_escaped(f, g->file);
			if (g->line) {
				fprintf(f, ":%u", g->line);
				if (g->col)
					fprintf(f, ":%u", g->col);
			}
			fputs(": ", f);
		}
		fprintf(f, "%s: ", cm_severity_name(g->severity));
		if (g->where) {
			put_escaped(f, g->where);
			fputs(": ", f);
		}
		if (g->message)
			put_escaped(f, g->message);
		else
			fputs("(out of memory)", f);
		if (g->rule) {
			fputs(" [", f);
			put_escaped(f, g->rule);
			fputc(']', f);
		}
		fputc('\n', f);
		const source *s = find_source(d, g->file);
		if (s && g->line)
			quote_line(f, s, g->line, g->col);
	}
}

/* Diagnostics are gathered in memory and handed to f in pieces of at
 * least BATCH bytes: f is usually stderr, unbuffered, where the dozen
 * small writes of each diagnostic would each be a system call (122,499
 * diagnostics took 4.4 million writes). */
#define BATCH 65536

int cm_diags_write_text(const cm_diags *d, FILE *f)
{
	size_t i = 0, n = cm_diags_count(d);
	while (i < n) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m) { /* no memory for the batch: straight to f */
			for (; i < n; i++)
				write_one(d, &d->v[i], f);
			break;
		}
		long at = 0;
		for (; i < n && at < BATCH; i++) {
			write_one(d, &d->v[i], m);
			at = ftell(m);
		}
		bool bad = ferror(m) != 0 || at < 0;
		if (fclose(m) != 0 || bad) {
			free(buf);
			return CM_ENOMEM;
		}
		size_t put = len ? fwrite(buf, 1, len, f) : 0;
		free(buf);
		if (put != len)
			break;
	}
	return ferror(f) ? CM_EIO : 0;
}

void cm_diags_summary(const cm_diags *d, char *buf, size_t size)
{
	size_t e = count_exact(d, CM_SEV_ERROR), w = count_exact(d, CM_SEV_WARNING);
	snprintf(buf, size, "%zu error%s, %zu warning%s", e, e == 1 ? "" : "s", w, w == 1 ? "" : "s");
}

static bool has_square(const cm_diag *g)
{
	return g->x >= 0 && g->y >= 0;
}

/* [x,y], or null when the diagnostic is about no square. */
static void write_square(cm_json *j, const cm_diag *g)
{
	if (!has_square(g)) {
		cm_json_null(j);
		return;
	}
	cm_json_arr_begin(j);
	cm_json_int(j, g->x);
	cm_json_int(j, g->y);
	cm_json_arr_end(j);
}

int cm_diags_write_json(const cm_diags *d, FILE *f)
{
	cm_json j;
	cm_json_init(&j, f, true);
	cm_json_obj_begin(&j);
	cm_json_key(&j, "diagnostics");
	cm_json_arr_begin(&j);
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = &d->v[i];
		cm_json_obj_begin(&j);
		cm_json_key(&j, "severity");
		cm_json_str(&j, cm_severity_name(g->severity));
		cm_json_key(&j, "rule");
		cm_json_str(&j, g->rule);
		cm_json_key(&j, "file");
		cm_json_str(&j, g->file);
		cm_json_key(&j, "line");
		cm_json_int(&j, g->line);
		cm_json_key(&j, "column");
		cm_json_int(&j, g->col);
		cm_json_key(&j, "where");
		cm_json_str(&j, g->where);
		cm_json_key(&j, "message");
		cm_json_str(&j, g->message ? g->message : "(out of memory)");
		cm_json_key(&j, "square");
		write_square(&j, g);
		cm_json_obj_end(&j);
	}
	cm_json_arr_end(&j);
	cm_json_key(&j, "errors");
	cm_json_int(&j, (long long)count_exact(d, CM_SEV_ERROR));
	cm_json_key(&j, "warnings");
	cm_json_int(&j, (long long)count_exact(d, CM_SEV_WARNING));
	cm_json_key(&j, "notes");
	cm_json_int(&j, (long long)count_exact(d, CM_SEV_NOTE));
	cm_json_obj_end(&j);
	return cm_json_finish(&j) ? CM_EIO : 0;
}

