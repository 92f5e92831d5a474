/* SPDX-License-Identifier: MIT */
/* balance_int.h: what the balance report's modules share (balance.c,
 * balance_heat.c, balance_part.c, balance_fit.c): the interval of a group
 * mean, the heatmaps' accumulator that a game's worker feeds, and the
 * copy of a worker's diagnostics. */
#ifndef CM_BALANCE_INT_H
#define CM_BALANCE_INT_H

#include "carcamap/balance.h"
#include "carcamap/stats.h"
#include "engine/engine.h"

/* Student's t quantile p with df degrees of freedom (balance_ci.c). */
double cm__t_quantile(double p, double df);
/* Student's t quantile 0.975 with df degrees of freedom. */
double cm__t975(long long df);
/* The mean of a per-group value (its sum and sum of squares over n
 * groups) divided by scale, with the interval mean +- q * sd / sqrt(n);
 * NAN bounds with fewer than 2 groups. */
cm_interval cm__mean_interval_q(long long sum, long long sum_sq, long long n, double scale, double q);
/* The mean of a per-group value (its sum and sum of squares over groups
 * groups) divided by scale, with its 95% interval (Student); NAN where
 * there are too few groups. */
cm_interval cm__mean_interval(long long sum, long long sum_sq, long long groups, double scale);

/* The heatmaps' sums (balance_heat.c; balance_part.c writes and reads
 * them): per square over groups (HS_*), and per element (HE_*). */
enum { HS_FILL, HS_FILL_SQ, HS_TURN, HS_TURN_SQ, HS_TURN_FILL, HS_POINTS, HS_POINTS_SQ, HS_N };
enum { HE_CONN, HE_CONN_SQ, HE_DONE, HE_DONE_SQ, HE_SCORED, HE_SCORED_SQ, HE_CONN_GAMES, HE_DONE_GAMES, HE_SCORED_GAMES, HE_N };

/* What the elements are: fixed by the map. */
typedef struct {
	cm_heat_element e;     /* kind, index, place, name; the figures filled in later */
	int32_t *near;         /* big city: the playable squares next to it; island: its squares */
	int n_near;
	int32_t *feat;         /* big city: square * 32 + feature of its pieces' cities */
	int n_feat;
	int ends[2][3];        /* ferry: x, y, side of each end */
} element;

struct cm_balance_heat {
	int cols, rows;
	long long groups, games;
	long long *sq;         /* HS_N per square; a group's counts are scaled to
	                        * CM_BALANCE_SHARE games (times 60 / its games), so
	                        * groups of any size weigh alike and stay integers */
	element *el;
	size_t n_el;
	long long *es;         /* HE_N per element */
};

/* Heatmap sums for map m. 0 or CM_ENOMEM. */
int cm__heat_new(const cm_map *m, cm_balance_heat **out);
/* h += t; and h back to nothing. */
void cm__heat_add(cm_balance_heat *h, const cm_balance_heat *t);
void cm__heat_zero(cm_balance_heat *h);

/* One thread's view of the games it plays, feeding h's sums: the score
 * hook's items (cm__heat_acc_items), then after each game's final scoring
 * the board (cm__heat_acc_game), then after each group its number of
 * games (cm__heat_acc_group). */
typedef struct cm__heat_acc cm__heat_acc;
int cm__heat_acc_new(cm_balance_heat *h, const cm_map *m, const cm_deck *deck, cm__heat_acc **out);
void cm__heat_acc_free(cm__heat_acc *a);
void cm__heat_acc_items(cm__heat_acc *a, const cm_score_item *items, size_t n);
void cm__heat_acc_game(cm__heat_acc *a, const cm_board *b);
void cm__heat_acc_group(cm__heat_acc *a, int games);

/* A shard's partial result, as read (balance_part.c). */
struct cm_balance_part {
	char *request;
	int shard, shards;
	bool partial;
	cm_balance_cell *cells;  /* seats, strength, stop, sums (no starts) */
	size_t n_cells;
	bool has_heat;
	long long heat_groups, heat_games;
	size_t heat_squares, heat_elements;
	long long *heat_sq, *heat_el;
	char *pending;           /* the reader's line after the heat rows */
};
/* Whether parts are every shard of r's request once: 0, or CM_EINVAL
 * (said in d). */
int cm__balance_parts_check(const cm_balance_report *r, const cm_balance_part *const *parts, size_t n, cm_diags *d);
/* h += the part's heatmap sums: 0, or CM_EINVAL when they are another map's. */
int cm__heat_add_part(cm_balance_heat *h, const cm_balance_part *p);

/* cm_balance_heat_play on lay (NULL: one made here), with the same games'
 * statistics in *stats (NULL: not wanted), as cm__play_run_on gives them
 * (o->progress told): check's CM0601-CM0605 from one set of games. */
int cm__heat_play_on(cm__layout *lay, const cm_map *map, const cm_deck *deck, const cm_play_opts *o, cm_diags *d,
                     cm_play_stats **stats, cm_balance_heat **out);

#endif
