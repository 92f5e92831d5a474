/* SPDX-License-Identifier: MIT */
/* balance_fit.c: deck fitting (carcamap/balance.h "Deck fitting"): the
 * map played with decks of the same mix and other sizes, the mean fill
 * ratio measured per size, and the recommended range read off that one
 * curve by one criterion for every map: the sizes whose games fill
 * between CM_FIT_FILL_LOW and CM_FIT_FILL_HIGH of the playable squares.
 * Games are cm_play_run's (the map's own setup, the players asked for),
 * so the curve is the same for every number of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/balance.h"
#include "carcamap/stats.h"
#include "check/balance_int.h"
#include "check/stats_int.h"
#include "engine/engine.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

void cm_fit_opts_init(cm_fit_opts *o)
{
	memset(o, 0, sizeof *o);
	o->games = CM_FIT_GAMES;
	o->seats = 2;
	o->seed = 1;
	o->jobs = 1;
}

/* The deck's drawable copies: every type but abbeys, start copy included. */
static int drawable(const cm_deck *deck)
{
	int n = 0;
	for (size_t i = 0; i < cm_deck_types(deck); i++)
		if (!cm__deck_abbey(deck, i))
			n += cm_deck_count(deck, i);
	return n;
}

int cm_fit_deck_of_size(const cm_deck *deck, int size, cm_diags *d, cm_deck **out)
{
	*out = NULL;
	size_t n = cm_deck_types(deck);
	int total = drawable(deck), start = cm_deck_start(deck);
	if (total < 1 || size < 1)
		return CM_EINVAL;
	int *counts = malloc((n + 1) * sizeof *counts);
	long long *rem = malloc((n + 1) * sizeof *rem);
	int rc = 0;
	if (!counts || !rem) {
		rc = CM_ENOMEM;
		goto done;
	}
	/* largest remainder: each type its share of size, the copies left
	 * to the largest remainders (the first type on a tie) */
	int given = 0;
	for (size_t i = 0; i < n; i++) {
		int c = cm_deck_count(deck, i);
		if (cm__deck_abbey(deck, i)) {
			counts[i] = c;
			rem[i] = -1;
			continue;
		}
		long long q = (long long)c * size;
		counts[i] = (int)(q / total);
		rem[i] = q % total;
		given += counts[i];
	}
	while (given < size) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (rem[i] >= 0 && (best == n || rem[i] > rem[best]))
				best = i;
		if (best == n)
			break;
		counts[best]++;
		rem[best] = -1;
		given++;
	}
	if (start >= 0 && counts[start] < 1) /* the start tile is always there */
		counts[start] = 1;
	/* deck's types and start, their facts not derived again */
	rc = cm__deck_recount(deck, counts, d, out);
done:
	free(counts);
	free(rem);
	return rc;
}

/* Where a rising curve crosses level between sizes: the size, linearly
 * between the two points around it, or -1 when it never does. */
static double crossing(const cm_fit_point *p, size_t n, double level)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i].fill < level)
			continue;
		if (i == 0)
			return p[0].size;
		double f0 = p[i - 1].fill, f1 = p[i].fill;
		return p[i - 1].size + (p[i].size - p[i - 1].size) * (level - f0) / (f1 - f0);
	}
	return -1;
}

int cm_fit_deck(const cm_map *map, const cm_deck *deck, const cm_fit_opts *o, cm_diags *d, cm_fit **out)
{
	*out = NULL;
	int playable = 0;
	for (int s = 0; s < map->cols * map->rows; s++)
		playable += cm_square_kind_playable((cm_square_kind)map->squares[s].kind);
	if (playable < 1 || o->games < 1 || o->seats < 2)
		return CM_EINVAL;
	cm_fit *f = calloc(1, sizeof *f);
	if (!f)
		return CM_ENOMEM;
	/* from half the playable squares to 130% of them, about 40 steps */
	int step = (playable + 20) / 40 > 0 ? (playable + 20) / 40 : 1;
	int lo = playable / 2 > 1 ? playable / 2 : 1, hi = playable * 13 / 10 + 1;
	size_t cap = (size_t)((hi - lo) / step + 2);
	f->curve = calloc(cap, sizeof *f->curve);
	f->playable = playable;
	f->deck = drawable(deck);
	f->declared_min = map->setup.tiles_min;
	f->declared_max = map->setup.tiles_max;
	f->games = o->games;
	f->fill_low = CM_FIT_FILL_LOW;
	f->fill_high = CM_FIT_FILL_HIGH;
	/* one layout of the map for every size's games */
	cm__layout *lay = NULL;
	int rc = f->curve ? cm__layout_new(map, d, &lay) : CM_ENOMEM;
	rc = rc < 0 ? rc : 0;
	for (int size = lo; !rc && size <= hi && f->n_curve < cap; size += step) {
		cm_deck *sd = NULL;
		cm_play_stats *st = NULL;
		if ((rc = cm_fit_deck_of_size(deck, size, d, &sd)) != 0)
			break;
		cm_play_opts po;
		cm_play_opts_init(&po);
		po.rules = o->rules;
		po.seats = o->seats;
		po.players = o->players;
		po.seed = o->seed;
		po.games = o->games;
		po.jobs = o->jobs;
		rc = cm__play_run_on(lay, map, sd, &po, NULL, d, &st);
		if (!rc) {
			cm_fit_point *p = &f->curve[f->n_curve++];
			p->size = size;
			p->fill = cm_play_stats_fill(st);
			p->stranded = (double)st->stranded / st->games / size;
			p->length = (double)st->tiles_placed / st->games;
		}
		cm_play_stats_free(st);
		cm_deck_free(sd);
	}
	cm__layout_free(lay);
	if (rc) {
		cm_fit_free(f);
		return rc;
	}
	double a = crossing(f->curve, f->n_curve, f->fill_low), b = crossing(f->curve, f->n_curve, f->fill_high);
	f->tiles_min = a < 0 ? -1 : (int)ceil(a - 1e-9);
	f->tiles_max = b < 0 ? (a < 0 ? -1 : f->curve[f->n_curve - 1].size) : (int)floor(b + 1e-9);
	if (f->tiles_max >= 0 && f->tiles_min > f->tiles_max)
		f->tiles_max = f->tiles_min;
	*out = f;
	return 0;
}

void cm_fit_free(cm_fit *f)
{
	if (!f)
		return;
	free(f->curve);
	free(f);
}

bool cm_fit_far(const cm_fit *f)
{
	if (!f || f->tiles_min < 0 || f->declared_min <= 0 || f->declared_max <= 0)
		return false;
	double rec = (f->tiles_min + f->tiles_max) / 2.0, dec = (f->declared_min + f->declared_max) / 2.0;
	return fabs(rec - dec) > CM_FIT_FAR * rec;
}
