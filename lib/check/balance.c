/* SPDX-License-Identifier: MIT */
/* balance.c: the balance report (carcamap/balance.h): the cells of a map
 * (seat counts times start-square choices, for one or two strengths),
 * each played in rotation groups by batches on worker threads until its
 * intervals are as precise as asked, then the figures, verdicts, fairest
 * choices and flags. A group's games come from the engine's seating
 * hooks (engine/engine.h: setup on the cell's start squares, the pile
 * dealt in each rotation) and the players' game driver. Every sum is an
 * integer and every decision (stop, next batch) is made from the sums at
 * a batch's end, so neither the number of threads nor their timing
 * changes a byte of the report. */
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/balance.h"
#include "carcamap/player.h"
#include "carcamap/stats.h"
#include "check/balance_int.h"
#include "engine/engine.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

const char *cm_balance_stop_name(cm_balance_stop s)
{
	static const char *const names[] = { "not-run", "precision", "max-games", "interrupted" };
	return (unsigned)s < 4 ? names[s] : "?";
}

const char *cm_balance_verdict_name(cm_balance_verdict v)
{
	return v == CM_BALANCE_FAIR ? "fair" : "unfair";
}

void cm_balance_opts_init(cm_balance_opts *o)
{
	memset(o, 0, sizeof *o);
	o->precision = CM_BALANCE_PRECISION;
	o->tolerance = CM_BALANCE_TOLERANCE;
	o->max_games = CM_BALANCE_MAX_GAMES;
	o->seed = 1;
	o->jobs = 1;
}

static void clamp01(cm_interval *v)
{
	if (v->lo < 0)
		v->lo = 0;
	if (v->hi > 1)
		v->hi = 1;
}

static double half_width(const cm_interval *v)
{
	return isnan(v->lo) ? INFINITY : (v->hi - v->lo) / 2;
}

void cm_balance_cell_figures(cm_balance_cell *c, double tolerance)
{
	const cm_balance_sums *s = &c->sums;
	int n = c->seats;
	long long G = s->groups;
	c->groups = G;
	c->games = s->games;
	double q = G > 1 ? cm__t_quantile(0.975, (double)(G - 1)) : 0;
	double per_win = (double)CM_BALANCE_SHARE * n; /* a group's win units per game */
	for (int p = 0; p < n; p++) {
		c->win[p] = cm__mean_interval_q(s->win[p], s->win_sq[p][p], G, per_win, q);
		clamp01(&c->win[p]);
		c->score[p] = cm__mean_interval_q(s->score[p], s->score_sq[p], G, n, q);
	}
	double fair_share = 1.0 / n;
	c->first_seat_advantage = c->win[0];
	c->first_seat_advantage.value -= fair_share;
	c->first_seat_advantage.lo -= fair_share;
	c->first_seat_advantage.hi -= fair_share;
	/* the largest gap, with an interval that holds for every pair of
	 * seats at once: Bonferroni over the n(n-1)/2 pairs */
	int best = 0, worst = 0;
	for (int p = 1; p < n; p++) {
		if (c->win[p].value > c->win[best].value)
			best = p;
		if (c->win[p].value < c->win[worst].value)
			worst = p;
	}
	if (best == worst)
		worst = best == 0 ? 1 : 0;
	c->best = best;
	c->worst = worst;
	double pairs = n * (n - 1) / 2.0;
	double qg = G > 1 ? cm__t_quantile(1 - 0.025 / pairs, (double)(G - 1)) : 0;
	long long dsum = s->win[best] - s->win[worst];
	long long dsq = s->win_sq[best][best] + s->win_sq[worst][worst] - 2 * s->win_sq[best][worst];
	c->gap = cm__mean_interval_q(dsum, dsq, G, per_win, qg);
	if (c->gap.lo < 0)
		c->gap.lo = 0;
	c->balance = (cm_interval){ 1 - c->gap.value, 1 - c->gap.hi, 1 - c->gap.lo };
	c->draws = cm__mean_interval_q(s->draws, s->draws_sq, G, n, q);
	clamp01(&c->draws);
	c->length = cm__mean_interval_q(s->turns, s->turns_sq, G, n, q);
	c->lead_changes = cm__mean_interval_q(s->leads, s->leads_sq, G, n, q);
	c->verdict = G > 1 && c->gap.value <= tolerance ? CM_BALANCE_FAIR : CM_BALANCE_UNFAIR;
	c->sure = G > 1 && (c->verdict == CM_BALANCE_FAIR ? c->gap.hi <= tolerance : c->gap.lo > tolerance);
}

/* How far the cell is from its precision: the largest ratio of a
 * half-width to what it must reach (win rates: the precision; mean
 * scores: the precision times the score). At most 1: done. */
static double precision_ratio(const cm_balance_cell *c, double precision, double *widest)
{
	double r = 0;
	*widest = 0;
	for (int p = 0; p < c->seats; p++) {
		double h = half_width(&c->win[p]);
		if (h > *widest)
			*widest = h;
		if (h / precision > r)
			r = h / precision;
		double hs = half_width(&c->score[p]), need = precision * fabs(c->score[p].value);
		if (need > 0 && hs / need > r)
			r = hs / need;
		else if (need == 0 && hs > 0)
			r = INFINITY;
	}
	return r;
}

/* ---- the games of a group ---- */

typedef struct run run;

typedef struct {
	const run *R;
	cm_board *b;
	cm_player *seat[CM_MAX_PLAYERS];
	cm_balance_sums sums; /* of the batch */
	long long g0, g1;
	int rc;
	cm_diags *d;
	cm_balance_heat *heat; /* this thread's heatmap sums of the batch, or NULL */
	cm__heat_acc *acc;
	/* the game being played, kept by the score hook */
	int score[CM_MAX_PLAYERS];
	int leader, leads;
} worker;

struct run {
	const cm_map *map;
	const cm_deck *deck;
	const cm_rules *rules;
	const cm_balance_opts *o;
	const cm_balance_cell *cell;
	const char *const *specs; /* one per seat */
};

/* The score hook: the running scores, and the lead changes (the sole
 * leader changing to another seat; a tie for the lead leads nobody). */
static void on_score(void *arg, const cm_score_item *items, size_t n)
{
	worker *w = arg;
	int np = w->R->cell->seats;
	if (w->acc)
		cm__heat_acc_items(w->acc, items, n);
	for (size_t i = 0; i < n; i++)
		for (int p = 0; p < np; p++)
			if ((items[i].players >> p) & 1u)
				w->score[p] += items[i].points;
	int top = 0, k = 0;
	for (int p = 1; p < np; p++)
		if (w->score[p] > w->score[top])
			top = p;
	for (int p = 0; p < np; p++)
		k += w->score[p] == w->score[top];
	if (k == 1) {
		w->leads += w->leader >= 0 && w->leader != top;
		w->leader = top;
	}
}

/* One game of a group, the seats' players playing b from its setup to
 * the end: the one place that says how a balance game is played. */
static int play_game(cm_board *b, cm_player *const *seats, cm_rng *rng, cm_diags *d)
{
	return cm_board_play(b, seats, rng, d);
}

/* Plays group g (its seats rotations) into w->sums. */
static int play_group(worker *w, long long g)
{
	const run *R = w->R;
	const cm_balance_cell *c = R->cell;
	int n = c->seats;
	uint64_t seed = R->o->seed + (uint64_t)g;
	long long win[CM_MAX_PLAYERS] = { 0 }, score[CM_MAX_PLAYERS] = { 0 }, draws = 0, turns = 0, leads = 0;
	for (int r = 0; r < n; r++) {
		int rc = cm_board_reset(w->b, seed, w->d);
		if (!rc)
			rc = cm__board_setup_on(w->b, c->starts, c->n_starts, w->d);
		if (rc < 0)
			return rc;
		cm__board_rotate_deal(w->b, n, r);
		cm_rng rng;
		cm_rng_seed(&rng, ~seed + 0x9E3779B97F4A7C15ull * (uint64_t)r);
		memset(w->score, 0, sizeof w->score);
		w->leader = -1;
		w->leads = 0;
		if ((rc = play_game(w->b, w->seat, &rng, w->d)) < 0)
			return rc;
		int top = 0, k = 0;
		for (int p = 1; p < n; p++)
			if (cm_board_score(w->b, p) > cm_board_score(w->b, top))
				top = p;
		for (int p = 0; p < n; p++)
			k += cm_board_score(w->b, p) == cm_board_score(w->b, top);
		for (int p = 0; p < n; p++) {
			int v = cm_board_score(w->b, p);
			score[p] += v;
			if (v == cm_board_score(w->b, top))
				win[p] += CM_BALANCE_SHARE / k;
		}
		draws += k > 1;
		turns += cm_board_stats(w->b)->turns;
		leads += w->leads;
		if (w->acc)
			cm__heat_acc_game(w->acc, w->b);
	}
	if (w->acc)
		cm__heat_acc_group(w->acc, n);
	cm_balance_sums *s = &w->sums;
	s->groups++;
	s->games += n;
	for (int p = 0; p < n; p++) {
		s->win[p] += win[p];
		for (int q = 0; q < n; q++)
			s->win_sq[p][q] += win[p] * win[q];
		s->score[p] += score[p];
		s->score_sq[p] += score[p] * score[p];
	}
	s->draws += draws;
	s->draws_sq += draws * draws;
	s->turns += turns;
	s->turns_sq += turns * turns;
	s->leads += leads;
	s->leads_sq += leads * leads;
	return 0;
}

static void *work(void *arg)
{
	worker *w = arg;
	for (long long g = w->g0; g < w->g1 && !w->rc; g++)
		w->rc = play_group(w, g);
	return NULL;
}

static void sums_add(cm_balance_sums *s, const cm_balance_sums *t)
{
	s->groups += t->groups;
	s->games += t->games;
	for (int p = 0; p < CM_MAX_PLAYERS; p++) {
		s->win[p] += t->win[p];
		for (int q = 0; q < CM_MAX_PLAYERS; q++)
			s->win_sq[p][q] += t->win_sq[p][q];
		s->score[p] += t->score[p];
		s->score_sq[p] += t->score_sq[p];
	}
	s->draws += t->draws;
	s->draws_sq += t->draws_sq;
	s->turns += t->turns;
	s->turns_sq += t->turns_sq;
	s->leads += t->leads;
	s->leads_sq += t->leads_sq;
}

static void workers_free(worker *w, int n)
{
	for (int k = 0; k < n; k++) {
		cm_board_free(w[k].b);
		cm__heat_acc_free(w[k].acc);
		cm_balance_heat_free(w[k].heat);
		for (int p = 0; p < CM_MAX_PLAYERS; p++)
			cm_player_free(w[k].seat[p]);
		cm_diags_free(w[k].d);
	}
}

/* Makes a player for spec, its failure said in d. */
static int new_player(const char *spec, cm_diags *d, cm_player **out)
{
	int rc = cm_player_new_from_spec(spec, out);
	if (rc == CM_ENOTSUP)
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "balance", "player '%s' is not available in this build", spec);
	else if (rc == CM_ENOTFOUND || rc == CM_EINVAL)
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "balance", "unknown player '%s' (use %s)", spec,
		             CM_PLAYER_SPEC_FORMS);
	return rc == CM_ENOTFOUND ? CM_EINVAL : rc;
}

/* Plays cell c to its stop, adding to heat (NULL: none) its heatmaps.
 * *played adds its games (progress). */
static int run_cell(run *R, cm_balance_cell *c, cm_balance_heat *heat, int cells_done, int cells, long long *played,
                    cm_diags *d)
{
	const cm_balance_opts *o = R->o;
	int jobs = o->jobs < 1 ? 1 : o->jobs > CM_PLAY_MAX_JOBS ? CM_PLAY_MAX_JOBS : o->jobs;
	worker *w = calloc((size_t)jobs, sizeof *w);
	if (!w)
		return CM_ENOMEM;
	R->cell = c;
	int rc = 0;
	for (int k = 0; k < jobs && !rc; k++) {
		w[k].R = R;
		if (cm_diags_new(&w[k].d)) {
			rc = CM_ENOMEM;
			break;
		}
		rc = cm_board_new(R->map, R->deck, R->rules, c->seats, o->seed, CM_BOARD_NO_SETUP, d, &w[k].b);
		for (int p = 0; !rc && p < c->seats; p++)
			rc = new_player(R->specs[p], d, &w[k].seat[p]);
		if (!rc && heat && !(rc = cm__heat_new(R->map, &w[k].heat)))
			rc = cm__heat_acc_new(w[k].heat, R->map, R->deck, &w[k].acc);
		if (!rc)
			cm_board_set_score_hook(w[k].b, on_score, &w[k]);
	}
	long long max_groups = o->max_games / c->seats;
	if (max_groups < 1)
		max_groups = 1;
	long long next = CM_BALANCE_MIN_GROUPS;
	while (!rc) {
		long long G = c->sums.groups, batch = next < max_groups - G ? next : max_groups - G;
		for (int k = 0; k < jobs; k++) {
			memset(&w[k].sums, 0, sizeof w[k].sums);
			w[k].g0 = G + batch * k / jobs;
			w[k].g1 = G + batch * (k + 1) / jobs;
			w[k].rc = 0;
		}
		pthread_t th[CM_PLAY_MAX_JOBS];
		bool started[CM_PLAY_MAX_JOBS] = { false };
		for (int k = 1; k < jobs; k++)
			started[k] = w[k].g0 < w[k].g1 && pthread_create(&th[k], NULL, work, &w[k]) == 0;
		work(&w[0]);
		for (int k = 1; k < jobs; k++) {
			if (started[k])
				pthread_join(th[k], NULL);
			else
				work(&w[k]);
		}
		for (int k = 0; k < jobs; k++) {
			if (!rc && w[k].rc < 0)
				rc = w[k].rc;
			sums_add(&c->sums, &w[k].sums);
			if (heat) {
				cm__heat_add(heat, w[k].heat);
				cm__heat_zero(w[k].heat);
			}
			cm_diags_append(d, w[k].d, NULL);
			cm_diags_clear(w[k].d);
		}
		*played += batch * c->seats;
		cm_balance_cell_figures(c, o->tolerance);
		double widest, ratio = precision_ratio(c, o->precision, &widest);
		if (o->progress) {
			cm_balance_progress pr = { *played, cells_done, cells, widest };
			o->progress(o->arg, &pr);
		}
		G = c->sums.groups;
		if (rc)
			break;
		if (G >= CM_BALANCE_MIN_GROUPS && ratio <= 1) {
			c->stop = CM_BALANCE_PRECISE;
			break;
		}
		if (G >= max_groups) {
			c->stop = CM_BALANCE_CAPPED;
			break;
		}
		if (o->interrupted && o->interrupted(o->arg)) {
			c->stop = CM_BALANCE_INTERRUPTED;
			break;
		}
		/* the groups the precision needs at the spread seen so far (the
		 * half-widths shrink as 1/sqrt(groups)), a tenth more, at least
		 * 8 and at most as many as played */
		double want = isfinite(ratio) ? ceil(G * ratio * ratio * 1.1) - G : (double)G;
		next = want < 8 ? 8 : want > G ? G : (long long)want;
	}
	workers_free(w, jobs);
	free(w);
	return rc;
}

/* ---- the cells ---- */

/* The start squares of m, rising. */
static int start_squares(const cm_map *m, int32_t **out)
{
	int n = 0;
	for (int s = 0; s < m->cols * m->rows; s++)
		n += m->squares[s].kind == CM_SQ_START;
	int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
	if (!v)
		return CM_ENOMEM;
	n = 0;
	for (int s = 0; s < m->cols * m->rows; s++)
		if (m->squares[s].kind == CM_SQ_START)
			v[n++] = s;
	*out = v;
	return n;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* The choices of k start squares among the n of sq, in lexicographic
 * order, appended as cells of each seat count and strength. */
typedef struct {
	cm_balance_cell *v;
	size_t n, cap;
} cells;

static int add_cell(cells *cs, int seats, int strength, const int32_t *starts, int k)
{
	if (cm_grow((void **)&cs->v, &cs->cap, cs->n, sizeof *cs->v))
		return CM_ENOMEM;
	cm_balance_cell *c = &cs->v[cs->n];
	memset(c, 0, sizeof *c);
	if (!(c->starts = malloc((size_t)k * sizeof *c->starts)))
		return CM_ENOMEM;
	memcpy(c->starts, starts, (size_t)k * sizeof *starts);
	c->n_starts = k;
	c->seats = seats;
	c->strength = strength;
	cs->n++;
	return 0;
}

/* Every k-subset of sq[0..n), in lexicographic order, into out (rows of
 * k); returns their count, or -1 past max. */
static long choices(const int32_t *sq, int n, int k, int32_t *out, long max)
{
	int idx[64];
	if (k > 64 || k > n)
		return k > n ? 0 : -1;
	for (int i = 0; i < k; i++)
		idx[i] = i;
	long count = 0;
	for (;;) {
		if (count >= max)
			return -1;
		for (int i = 0; i < k; i++)
			out[count * k + i] = sq[idx[i]];
		count++;
		int i = k - 1;
		while (i >= 0 && idx[i] == n - k + i)
			i--;
		if (i < 0)
			return count;
		idx[i]++;
		for (int j = i + 1; j < k; j++)
			idx[j] = idx[j - 1] + 1;
	}
}

/* A request the map cannot take: said in d, CM_EINVAL. */
static int refuse(cm_diags *d, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static int refuse(cm_diags *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "%s", msg ? msg : "out of memory");
	free(msg);
	return CM_EINVAL;
}

/* The seat counts to play (into seats, rising) and checks them. */
static int seat_counts(const cm_map *map, const cm_deck *deck, const cm_balance_opts *o, int *seats, int *n,
                       cm_diags *d)
{
	int most = cm_game_max_seats(map, deck);
	*n = 0;
	if (o->n_seats == 0 && o->n_players > 1) {
		seats[(*n)++] = (int)o->n_players;
	} else if (o->n_seats == 0) {
		for (int s = 2; s <= CM_BALANCE_SEATS_MAX && s <= most; s++)
			seats[(*n)++] = s;
	} else {
		for (size_t i = 0; i < o->n_seats; i++) {
			int s = o->seats[i];
			if (s < 2 || s > most)
				return refuse(d, "%d seats: the map's setup and deck take 2 to %d", s, most);
			bool dup = false;
			for (int j = 0; j < *n; j++)
				dup |= seats[j] == s;
			if (!dup)
				seats[(*n)++] = s;
		}
		qsort(seats, (size_t)*n, sizeof *seats, cmp_i32);
	}
	if (o->n_players > 1 && (*n != 1 || seats[0] != (int)o->n_players))
		return refuse(d, "one player per seat needs one seat count, %zu", o->n_players);
	return *n ? 0 : refuse(d, "no seat count the map takes (at most %d seats)", most);
}

/* The cells of a request, checked (cm_balance_check_request), into r. */
static int plan(const cm_map *map, const cm_deck *deck, const cm_balance_opts *o, cm_diags *d, cm_balance_report *r)
{
	if (!(o->precision > 0 && o->precision < 0.5) || !(o->tolerance > 0 && o->tolerance <= 1) ||
	    o->max_games < 1 || (o->shards && (o->shard < 1 || o->shard > o->shards)) ||
	    o->n_players > CM_MAX_PLAYERS || (o->players && o->n_players < 1))
		return refuse(d, "bad balance options: precision, tolerance, games, players or shard out of range");
	int seats[CM_MAX_PLAYERS + 1], n_seats;
	if (seat_counts(map, deck, o, seats, &n_seats, d))
		return CM_EINVAL;
	/* every spec makes a player in this build */
	for (size_t i = 0; i <= (o->players ? o->n_players : 0); i++) {
		const char *spec = i < (o->players ? o->n_players : 0) ? o->players[i] : o->compare;
		cm_player *pl = NULL;
		if (!spec)
			continue;
		int rc = new_player(spec, d, &pl);
		cm_player_free(pl);
		if (rc)
			return rc;
	}
	int32_t *sq = NULL, *ch = NULL;
	int n_sq = start_squares(map, &sq), rc = 0;
	if (n_sq < 0)
		return CM_ENOMEM;
	int k = map->setup.starts_used < 1 ? 1 : map->setup.starts_used > n_sq ? n_sq : map->setup.starts_used;
	long n_ch = 0;
	cells cs = { 0 };
	if (n_sq == 0) {
		rc = refuse(d, "the map has no start square");
	} else if (o->starts) {
		if ((int)o->n_starts != k) {
			rc = refuse(d, "the setup uses %d start square%s: pin as many, not %zu", k, k == 1 ? "" : "s",
			            o->n_starts);
		} else if (!(ch = malloc((size_t)k * sizeof *ch))) {
			rc = CM_ENOMEM;
		} else {
			memcpy(ch, o->starts, (size_t)k * sizeof *ch);
			qsort(ch, (size_t)k, sizeof *ch, cmp_i32);
			for (int i = 0; i < k && !rc; i++) {
				int32_t s = ch[i];
				if (s < 0 || s >= map->cols * map->rows || map->squares[s].kind != CM_SQ_START)
					rc = refuse(d, "(%d,%d) is no start square", s % map->cols, s / map->cols);
				else if (i > 0 && ch[i - 1] == s)
					rc = refuse(d, "(%d,%d) is pinned twice", s % map->cols, s / map->cols);
			}
			n_ch = 1;
		}
	} else {
		long max = CM_BALANCE_MAX_CELLS / n_seats / (o->compare ? 2 : 1);
		if (!(ch = malloc((size_t)(max + 1) * (size_t)k * sizeof *ch)))
			rc = CM_ENOMEM;
		else if ((n_ch = choices(sq, n_sq, k, ch, max)) < 0)
			rc = refuse(d, "too many start-square choices for one report (at most %d cells): pin one",
			            CM_BALANCE_MAX_CELLS);
	}
	for (int st = 0; st < (o->compare ? 2 : 1) && !rc; st++)
		for (int i = 0; i < n_seats && !rc; i++)
			for (long c = 0; c < n_ch && !rc; c++)
				rc = add_cell(&cs, seats[i], st, ch + c * k, k);
	free(ch);
	free(sq);
	r->cells = cs.v;
	r->n_cells = cs.n;
	return rc;
}

/* The request in one line (cm_balance_report.request). */
static char *request_text(const cm_map *map, const cm_deck *deck, const cm_balance_opts *o, const cm_balance_report *r)
{
	char rules[512], players[512] = "", seats[64] = "", starts[512] = "";
	cm_rules_format(o->rules ? o->rules : &map->rules, rules, sizeof rules);
	size_t at = 0;
	for (size_t p = 0; p < o->n_players && at < sizeof players; p++)
		at += (size_t)snprintf(players + at, sizeof players - at, "%s%s", p ? "," : "", o->players[p]);
	at = 0;
	for (size_t i = 0; i < r->n_cells && at < sizeof seats; i++)
		if (i == 0 || r->cells[i].seats > r->cells[i - 1].seats)
			at += (size_t)snprintf(seats + at, sizeof seats - at, "%s%d", i ? "," : "", r->cells[i].seats);
	at = 0;
	for (size_t i = 0; o->starts && i < o->n_starts && at < sizeof starts; i++)
		at += (size_t)snprintf(starts + at, sizeof starts - at, "%s%d", i ? "," : "", (int)o->starts[i]);
	return cm_asprintf("map=%s %dx%d key=%s deck=%016llx rules=[%s] seats=%s starts=%s players=%s compare=%s "
	                   "precision=%.17g tolerance=%.17g max_games=%ld seed=%llu heat=%d cells=%zu",
	                   map->id ? map->id : "", map->cols, map->rows, o->map_key ? o->map_key : "-",
	                   (unsigned long long)cm_deck_hash(deck), rules, seats, o->starts ? starts : "all",
	                   o->players ? players : "random", o->compare ? o->compare : "none", o->precision,
	                   o->tolerance, o->max_games, (unsigned long long)o->seed, o->heat ? 1 : 0, r->n_cells);
}

/* The merge: every cell's stop and sums from the part of the shard that
 * played it, the heatmaps' sums added up. */
static int merge_parts(const cm_map *map, const cm_balance_opts *o, cm_balance_report *r, cm_diags *d)
{
	int rc = cm__balance_parts_check(r, o->parts, o->n_parts, d);
	if (rc)
		return rc;
	int shards = o->parts[0]->shards;
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_part *p = NULL;
		for (size_t k = 0; k < o->n_parts && !p; k++)
			if (o->parts[k]->shard == (int)(i % (size_t)shards) + 1)
				p = o->parts[k];
		cm_balance_cell *c = &r->cells[i];
		c->stop = p->cells[i].stop;
		c->sums = p->cells[i].sums;
		r->partial |= p->partial;
		if (c->stop != CM_BALANCE_NOT_RUN)
			cm_balance_cell_figures(c, o->tolerance);
	}
	if (o->heat && (rc = cm__heat_new(map, &r->heat)) != 0)
		return rc;
	for (size_t k = 0; o->heat && k < o->n_parts; k++)
		if (cm__heat_add_part(r->heat, o->parts[k]) != 0) {
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "part %zu holds heatmaps of another map", k + 1);
			return CM_EINVAL;
		}
	return 0;
}

int cm_balance_check_request(const cm_map *map, const cm_deck *deck, const cm_balance_opts *o, cm_diags *d)
{
	cm_balance_report *r = calloc(1, sizeof *r);
	if (!r)
		return CM_ENOMEM;
	int rc = plan(map, deck, o, d, r);
	cm_balance_report_free(r);
	return rc;
}

int cm_balance_run(const cm_map *map, const cm_deck *deck, const cm_balance_opts *o, cm_diags *d,
                   cm_balance_report **out)
{
	*out = NULL;
	cm_balance_report *r = calloc(1, sizeof *r);
	if (!r)
		return CM_ENOMEM;
	int rc = plan(map, deck, o, d, r);
	if (rc)
		goto done;
	r->map = cm_strdup(map->id ? map->id : "");
	r->cols = map->cols;
	r->rows = map->rows;
	r->n_players = o->players ? (int)o->n_players : 1;
	for (int p = 0; p < r->n_players; p++)
		r->players[p] = cm_strdup(o->players ? o->players[p] : "random");
	r->compare = o->compare ? cm_strdup(o->compare) : NULL;
	r->precision = o->precision;
	r->tolerance = o->tolerance;
	r->max_games = o->max_games;
	r->seed = o->seed;
	r->shard = o->shard;
	r->shards = o->shards;
	r->request = request_text(map, deck, o, r);
	if (!r->map || (o->compare && !r->compare) || !r->request) {
		rc = CM_ENOMEM;
		goto done;
	}
	if (o->n_parts) {
		if ((rc = merge_parts(map, o, r, d)) == 0)
			cm_balance_report_compare(r);
		goto done;
	}
	/* the cells this run plays, then each in turn */
	int todo = 0, done_cells = 0;
	for (size_t i = 0; i < r->n_cells; i++)
		todo += !o->shards || (int)(i % (size_t)o->shards) == o->shard - 1;
	long long played = 0;
	run R = { map, deck, o->rules ? o->rules : &map->rules, o, NULL, NULL };
	for (size_t i = 0; i < r->n_cells && !rc; i++) {
		cm_balance_cell *c = &r->cells[i];
		if (o->shards && (int)(i % (size_t)o->shards) != o->shard - 1)
			continue;
		if (o->interrupted && o->interrupted(o->arg)) {
			r->partial = true;
			continue;
		}
		const char *specs[CM_MAX_PLAYERS];
		for (int p = 0; p < c->seats; p++)
			specs[p] = c->strength ? o->compare : r->players[r->n_players > 1 ? p : 0];
		R.specs = specs;
		if (o->heat && c->strength == 0 && !r->heat && (rc = cm__heat_new(map, &r->heat)) != 0)
			break;
		rc = run_cell(&R, c, c->strength == 0 ? r->heat : NULL, done_cells, todo, &played, d);
		r->partial |= c->stop == CM_BALANCE_INTERRUPTED;
		done_cells++;
	}
	if (!rc)
		cm_balance_report_compare(r);
done:
	if (rc) {
		cm_balance_report_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void cm_balance_report_compare(cm_balance_report *r)
{
	for (size_t i = 0; i < r->n_cells; i++) {
		cm_balance_cell *c = &r->cells[i];
		c->fairest = c->flagged = false;
		if (c->stop == CM_BALANCE_NOT_RUN || c->groups < 2)
			continue;
		/* the fairest of its seats and strength: the smallest gap, then
		 * the smallest upper bound, then the first */
		bool best = true;
		for (size_t j = 0; j < r->n_cells && best; j++) {
			const cm_balance_cell *e = &r->cells[j];
			if (j == i || e->seats != c->seats || e->strength != c->strength || e->stop == CM_BALANCE_NOT_RUN ||
			    e->groups < 2)
				continue;
			if (e->gap.value < c->gap.value || (e->gap.value == c->gap.value && e->gap.hi < c->gap.hi) ||
			    (e->gap.value == c->gap.value && e->gap.hi == c->gap.hi && j < i))
				best = false;
		}
		c->fairest = best;
		/* the same cell in the other strength */
		for (size_t j = 0; j < r->n_cells; j++) {
			const cm_balance_cell *e = &r->cells[j];
			if (e->strength != c->strength && e->seats == c->seats && e->n_starts == c->n_starts &&
			    memcmp(e->starts, c->starts, (size_t)c->n_starts * sizeof *c->starts) == 0 &&
			    e->stop != CM_BALANCE_NOT_RUN && e->groups >= 2)
				c->flagged = e->verdict != c->verdict;
		}
	}
}

void cm_balance_report_free(cm_balance_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_cells; i++)
		free(r->cells[i].starts);
	free(r->cells);
	free(r->map);
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		free(r->players[p]);
	free(r->compare);
	free(r->request);
	cm_balance_heat_free(r->heat);
	free(r);
}
