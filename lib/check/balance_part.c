/* SPDX-License-Identifier: MIT */
/* balance_part.c: shards of a balance report (carcamap/balance.h
 * "Shards"): the partial result a shard writes (its cells' exact sums and
 * its heatmaps' sums, as decimal integers in a line format of its own,
 * schemas/balance-json.md "Shards") and its reader. cm_balance_run merges
 * parts (cm_balance_opts.parts): each cell's sums come from the part that
 * played it, so the figures, and the report's bytes, are those one run
 * gives. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/balance.h"
#include "check/balance_int.h"
#include "base/util_int.h"

#define PART_MAGIC "carcamap-balance-part 1"
#define LINE_BYTES 8192
#define SUMS_N (2 + CM_MAX_PLAYERS + CM_MAX_PLAYERS * CM_MAX_PLAYERS + 2 * CM_MAX_PLAYERS + 6)

/* ---- writing ---- */

static void put_sums(FILE *f, const cm_balance_sums *s)
{
	fprintf(f, "sums %lld %lld", s->groups, s->games);
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		fprintf(f, " %lld", s->win[p]);
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		for (int q = 0; q < CM_MAX_PLAYERS; q++)
			fprintf(f, " %lld", s->win_sq[p][q]);
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		fprintf(f, " %lld %lld", s->score[p], s->score_sq[p]);
	fprintf(f, " %lld %lld %lld %lld %lld %lld\n", s->draws, s->draws_sq, s->turns, s->turns_sq, s->leads,
	        s->leads_sq);
}

/* A row of values when any is not 0: "KEY INDEX v...". */
static void put_row(FILE *f, const char *key, size_t i, const long long *v, int n)
{
	int k = 0;
	while (k < n && v[k] == 0)
		k++;
	if (k == n)
		return;
	fprintf(f, "%s %zu", key, i);
	for (k = 0; k < n; k++)
		fprintf(f, " %lld", v[k]);
	fprintf(f, "\n");
}

int cm_balance_part_write(const cm_balance_report *r, FILE *f)
{
	fprintf(f, "%s\nrequest %s\nshard %d %d\npartial %d\ncells %zu\n", PART_MAGIC, r->request ? r->request : "",
	        r->shard, r->shards, r->partial ? 1 : 0, r->n_cells);
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_cell *c = &r->cells[i];
		fprintf(f, "cell %zu %d %d %d\n", i, c->seats, c->strength, (int)c->stop);
		if (c->stop != CM_BALANCE_NOT_RUN)
			put_sums(f, &c->sums);
	}
	const cm_balance_heat *h = r->heat;
	if (h) {
		size_t n_sq = (size_t)h->cols * (size_t)h->rows;
		fprintf(f, "heat %lld %lld %zu %zu\n", h->groups, h->games, n_sq, h->n_el);
		for (size_t i = 0; i < n_sq; i++)
			put_row(f, "hs", i, &h->sq[i * HS_N], HS_N);
		for (size_t i = 0; i < h->n_el; i++)
			put_row(f, "he", i, &h->es[i * HE_N], HE_N);
	}
	fprintf(f, "end\n");
	return ferror(f) ? CM_EIO : 0;
}

/* ---- reading ---- */

typedef struct {
	FILE *f;
	const char *path;
	unsigned line;
	char buf[LINE_BYTES];
	cm_diags *d;
	bool failed;
} reader;

static int bad(reader *rd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static int bad(reader *rd, const char *fmt, ...)
{
	if (rd->failed)
		return CM_EINVAL; /* one diagnostic a part */
	rd->failed = true;
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_diags_add(rd->d, CM_SEV_ERROR, NULL, rd->path, rd->line, 0, NULL, "%s", msg ? msg : "out of memory");
	free(msg);
	return CM_EINVAL;
}

/* The next line without its newline, or NULL at the end or after a line
 * too long (said). */
static const char *next_line(reader *rd)
{
	if (!fgets(rd->buf, sizeof rd->buf, rd->f))
		return NULL;
	rd->line++;
	size_t n = strlen(rd->buf);
	if (n && rd->buf[n - 1] == '\n') {
		rd->buf[--n] = '\0';
	} else if (!feof(rd->f)) {
		bad(rd, "line longer than %d bytes", LINE_BYTES - 2);
		return NULL;
	}
	return rd->buf;
}

/* The numbers after word on line: exactly n of them (n < 0: any count up
 * to -n, their count in *got). 0, or CM_EINVAL (said). */
static int numbers(reader *rd, const char *line, const char *word, long long *v, int n, int *got)
{
	size_t w = strlen(word);
	if (!line)
		return bad(rd, "the part ends where '%s' was due", word);
	if (strncmp(line, word, w) != 0 || (line[w] != ' ' && line[w] != '\0'))
		return bad(rd, "expected '%s'", word);
	const char *p = line + w;
	int k = 0, max = n < 0 ? -n : n;
	while (*p) {
		char *end;
		errno = 0;
		if (*p != ' ' || k == max)
			return bad(rd, "'%s' takes %d numbers", word, max);
		long long x = strtoll(p + 1, &end, 10);
		if (end == p + 1 || errno || (*end && *end != ' '))
			return bad(rd, "'%s' takes whole numbers", word);
		v[k++] = x;
		p = end;
	}
	if (got)
		*got = k;
	return n >= 0 && k != n ? bad(rd, "'%s' takes %d numbers", word, n) : 0;
}

static int get_sums(reader *rd, cm_balance_sums *s)
{
	long long v[SUMS_N];
	int rc = numbers(rd, next_line(rd), "sums", v, SUMS_N, NULL);
	if (rc)
		return rc;
	int k = 0;
	s->groups = v[k++];
	s->games = v[k++];
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		s->win[p] = v[k++];
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		for (int q = 0; q < CM_MAX_PLAYERS; q++)
			s->win_sq[p][q] = v[k++];
	for (int p = 0; p < CM_MAX_PLAYERS; p++) {
		s->score[p] = v[k++];
		s->score_sq[p] = v[k++];
	}
	s->draws = v[k++];
	s->draws_sq = v[k++];
	s->turns = v[k++];
	s->turns_sq = v[k++];
	s->leads = v[k++];
	s->leads_sq = v[k++];
	return s->groups < 0 || s->games < 0 ? bad(rd, "negative counts") : 0;
}

/* "heat GROUPS GAMES SQUARES ELEMENTS", then hs and he rows. */
static int get_heat(reader *rd, const char *line, cm_balance_part *p)
{
	long long v[HE_N + 1];
	int rc = numbers(rd, line, "heat", v, 4, NULL);
	if (rc)
		return rc;
	if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[2] > (long long)CM_GRID_MAX * CM_GRID_MAX || v[3] < 0 ||
	    v[3] > 64LL * CM_GRID_MAX * CM_GRID_MAX)
		return bad(rd, "heat sizes out of range");
	p->heat_groups = v[0];
	p->heat_games = v[1];
	p->heat_squares = (size_t)v[2];
	p->heat_elements = (size_t)v[3];
	if (!(p->heat_sq = calloc(p->heat_squares * HS_N + 1, sizeof *p->heat_sq)) ||
	    !(p->heat_el = calloc(p->heat_elements * HE_N + 1, sizeof *p->heat_el)))
		return CM_ENOMEM;
	p->has_heat = true;
	for (;;) {
		line = next_line(rd);
		bool sq = line && strncmp(line, "hs ", 3) == 0, el = line && strncmp(line, "he ", 3) == 0;
		if (!sq && !el) { /* not ours: kept for the caller */
			p->pending = line ? cm_strdup(line) : NULL;
			return line && !p->pending ? CM_ENOMEM : 0;
		}
		int n = (sq ? HS_N : HE_N) + 1;
		if ((rc = numbers(rd, line, sq ? "hs" : "he", v, n, NULL)) != 0)
			return rc;
		size_t limit = sq ? p->heat_squares : p->heat_elements;
		if (v[0] < 0 || (size_t)v[0] >= limit)
			return bad(rd, "heat row %lld past the %zu %s", v[0], limit, sq ? "squares" : "elements");
		memcpy((sq ? p->heat_sq : p->heat_el) + (size_t)v[0] * (size_t)(n - 1), v + 1, (size_t)(n - 1) * sizeof *v);
	}
}

int cm_balance_part_read(const char *path, cm_diags *d, cm_balance_part **out)
{
	*out = NULL;
	FILE *f = fopen(path, "r");
	if (!f) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
		return CM_EIO;
	}
	reader rd = { f, path, 0, "", d, false };
	cm_balance_part *p = calloc(1, sizeof *p);
	int rc = p ? 0 : CM_ENOMEM;
	long long v[4];
	const char *line = rc ? NULL : next_line(&rd);
	if (!rc && (!line || strcmp(line, PART_MAGIC) != 0))
		rc = bad(&rd, "not a balance part: the first line is not '%s'", PART_MAGIC);
	if (!rc && (!(line = next_line(&rd)) || strncmp(line, "request ", 8) != 0))
		rc = bad(&rd, "expected 'request'");
	if (!rc && !(p->request = cm_strdup(line + 8)))
		rc = CM_ENOMEM;
	if (!rc && !(rc = numbers(&rd, next_line(&rd), "shard", v, 2, NULL))) {
		p->shard = (int)v[0];
		p->shards = (int)v[1];
		if (v[1] < 1 || v[1] > CM_BALANCE_MAX_CELLS || v[0] < 1 || v[0] > v[1])
			rc = bad(&rd, "shard %lld of %lld is no shard", v[0], v[1]);
	}
	if (!rc && !(rc = numbers(&rd, next_line(&rd), "partial", v, 1, NULL)))
		p->partial = v[0] != 0;
	if (!rc && !(rc = numbers(&rd, next_line(&rd), "cells", v, 1, NULL)) &&
	    (v[0] < 0 || v[0] > CM_BALANCE_MAX_CELLS))
		rc = bad(&rd, "%lld cells: at most %d", v[0], CM_BALANCE_MAX_CELLS);
	if (!rc && !(p->cells = calloc((size_t)v[0] + 1, sizeof *p->cells)))
		rc = CM_ENOMEM;
	if (!rc)
		p->n_cells = (size_t)v[0];
	for (size_t i = 0; !rc && i < p->n_cells; i++) {
		cm_balance_cell *c = &p->cells[i];
		if ((rc = numbers(&rd, next_line(&rd), "cell", v, 4, NULL)) != 0)
			break;
		if (v[0] != (long long)i || v[1] < 2 || v[1] > CM_MAX_PLAYERS || v[2] < 0 || v[2] > 1 ||
		    v[3] < CM_BALANCE_NOT_RUN || v[3] > CM_BALANCE_INTERRUPTED) {
			rc = bad(&rd, "cell %zu: index, seats, strength or stop out of range", i);
			break;
		}
		c->seats = (int)v[1];
		c->strength = (int)v[2];
		c->stop = (cm_balance_stop)v[3];
		if (c->stop != CM_BALANCE_NOT_RUN)
			rc = get_sums(&rd, &c->sums);
	}
	line = rc ? NULL : next_line(&rd);
	if (!rc && line && strncmp(line, "heat ", 5) == 0) {
		rc = get_heat(&rd, line, p);
		line = p->pending;
	}
	if (!rc && (!line || strcmp(line, "end") != 0))
		rc = bad(&rd, "expected 'end'");
	if (!rc && next_line(&rd))
		rc = bad(&rd, "text after 'end'");
	if (!rc && ferror(f))
		rc = CM_EIO;
	fclose(f);
	if (rc) {
		cm_balance_part_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void cm_balance_part_free(cm_balance_part *p)
{
	if (!p)
		return;
	free(p->request);
	free(p->cells);
	free(p->heat_sq);
	free(p->heat_el);
	free(p->pending);
	free(p);
}

/* ---- the merge ---- */

int cm__balance_parts_check(const cm_balance_report *r, const cm_balance_part *const *parts, size_t n,
                            cm_diags *d)
{
	int shards = n ? parts[0]->shards : 0;
	bool seen[CM_BALANCE_MAX_CELLS + 1] = { false };
	for (size_t i = 0; i < n; i++) {
		const cm_balance_part *p = parts[i];
		const char *why = NULL;
		if (strcmp(p->request, r->request) != 0)
			why = "it was played for another request (another map, deck, rules or options)";
		else if (p->shards != shards)
			why = "its number of shards differs from the first part's";
		else if (seen[p->shard])
			why = "its shard is given twice";
		else if (p->n_cells != r->n_cells)
			why = "it holds another number of cells";
		if (why) {
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "part %zu (shard %d of %d) cannot be merged: %s",
			             i + 1, p->shard, p->shards, why);
			return CM_EINVAL;
		}
		seen[p->shard] = true;
		for (size_t c = 0; c < p->n_cells; c++) {
			bool mine = (int)(c % (size_t)shards) == p->shard - 1;
			if ((p->cells[c].stop != CM_BALANCE_NOT_RUN) != mine && !(mine && p->partial)) {
				cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL,
				             "part %zu (shard %d of %d) cannot be merged: cell %zu is %s", i + 1, p->shard,
				             p->shards, c, mine ? "not played" : "another shard's");
				return CM_EINVAL;
			}
		}
	}
	for (int k = 1; k <= shards; k++)
		if (!seen[k]) {
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "shard %d of %d is missing", k, shards);
			return CM_EINVAL;
		}
	return n ? 0 : CM_EINVAL;
}

int cm__heat_add_part(cm_balance_heat *h, const cm_balance_part *p)
{
	size_t n_sq = (size_t)h->cols * (size_t)h->rows;
	if (!p->has_heat)
		return 0;
	if (p->heat_squares != n_sq || p->heat_elements != h->n_el)
		return CM_EINVAL;
	h->groups += p->heat_groups;
	h->games += p->heat_games;
	for (size_t i = 0; i < n_sq * HS_N; i++)
		h->sq[i] += p->heat_sq[i];
	for (size_t i = 0; i < h->n_el * HE_N; i++)
		h->es[i] += p->heat_el[i];
	return 0;
}
