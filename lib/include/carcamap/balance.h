/* SPDX-License-Identifier: MIT */
/* carcamap/balance.h: is a map fair? (DESIGN.md "The next pieces":
 * Balance; `carcamap balance`). For each number of seats and each choice
 * of start squares the setup allows (a cell), games are played in
 * rotation groups: one shuffled pile and one setup, dealt once per seat
 * rotation, so that every seat draws every seat's tiles once and the luck
 * of the tiles cancels between seats. A group is the unit of the
 * statistics: the mean of a figure over a group's games, its mean over
 * the groups and the spread between groups give each figure's 95%
 * confidence interval (Student's t), which so accounts for the games of a
 * group sharing their tiles. Games go on until every seat's win-rate
 * interval is within the precision asked for (and every mean score's
 * within that fraction of the score), or a cap. All sums are integers,
 * so the report is the same for every number of threads, and the same
 * when its cells are played in shards and merged. Nothing here prints. */
#ifndef CARCAMAP_BALANCE_H
#define CARCAMAP_BALANCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "board.h"
#include "deck.h"
#include "diag.h"
#include "map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults and limits (schemas/balance-json.md "Method"). */
#define CM_BALANCE_PRECISION 0.01   /* half-width of the win-rate intervals */
#define CM_BALANCE_TOLERANCE 0.05   /* a cell is fair when its seats' win rates
                                     * are within this of each other */
#define CM_BALANCE_MAX_GAMES 100000 /* games per cell */
#define CM_BALANCE_MIN_GROUPS 32    /* groups a cell plays before it may stop */
#define CM_BALANCE_MAX_CELLS 256    /* cells in one report (seat counts times
                                     * start-square choices, both strengths) */
#define CM_BALANCE_SEATS_MAX 5      /* the default seat counts: 2 to this */
/* Ties share a win: a tie of k seats gives each 1/k, counted in units of
 * 1/CM_BALANCE_SHARE (k is 1 to 6, and 60 divides by each). */
#define CM_BALANCE_SHARE 60

/* A value with its 95% confidence interval [lo, hi]. */
typedef struct {
	double value, lo, hi;
} cm_interval;

typedef enum {
	CM_BALANCE_NOT_RUN = 0,     /* another shard plays it */
	CM_BALANCE_PRECISE,         /* every interval within the precision */
	CM_BALANCE_CAPPED,          /* the cap of games came first */
	CM_BALANCE_INTERRUPTED      /* stopped by the caller (Ctrl-C) */
} cm_balance_stop;
/* "not-run", "precision", "max-games", "interrupted". */
const char *cm_balance_stop_name(cm_balance_stop s);

typedef enum { CM_BALANCE_FAIR = 0, CM_BALANCE_UNFAIR } cm_balance_verdict;
const char *cm_balance_verdict_name(cm_balance_verdict v); /* "fair", "unfair" */

/* The exact sums over a cell's groups: what its figures are computed
 * from, and what a shard's partial result carries. Per group: each
 * seat's win shares (units of 1/CM_BALANCE_SHARE) and score, summed over
 * the group's games; the group's drawn games (a tie for first), turns
 * and lead changes. */
typedef struct {
	long long groups, games;
	long long win[CM_MAX_PLAYERS], win_sq[CM_MAX_PLAYERS][CM_MAX_PLAYERS]; /* sums, cross products */
	long long score[CM_MAX_PLAYERS], score_sq[CM_MAX_PLAYERS];
	long long draws, draws_sq, turns, turns_sq, leads, leads_sq;
} cm_balance_sums;

/* One cell: a number of seats, a choice of start squares, a strength. */
typedef struct {
	int seats;
	int n_starts;
	int32_t *starts;        /* square indices (y * cols + x), rising */
	int strength;           /* 0: the players asked for; 1: the comparison */
	cm_balance_stop stop;
	long long groups, games;
	cm_interval win[CM_MAX_PLAYERS];   /* win rate per seat (ties shared) */
	cm_interval score[CM_MAX_PLAYERS]; /* mean final score per seat */
	cm_interval first_seat_advantage;  /* seat 0's win rate minus 1/seats */
	int best, worst;        /* the seats of the largest gap */
	cm_interval gap;        /* win[best] - win[worst]; its interval holds
	                         * for all pairs of seats at once (Bonferroni) */
	cm_interval balance;    /* 1 - gap */
	cm_interval draws;      /* share of games with a tie for first */
	cm_interval length;     /* turns per game */
	cm_interval lead_changes; /* per game: times the sole leader changed */
	cm_balance_verdict verdict; /* fair when gap.value <= tolerance */
	bool sure;              /* the gap's whole interval is on the verdict's
	                         * side of the tolerance */
	bool fairest;           /* the fairest start-square choice of its seats and strength */
	bool flagged;           /* its verdict differs from the other strength's */
	cm_balance_sums sums;
} cm_balance_cell;

/* Progress, after every batch of groups. */
typedef struct {
	long long games;        /* played so far, every cell */
	int cells_done, cells;  /* cells finished, cells this run plays */
	double widest;          /* the current cell's widest win-rate half-width */
} cm_balance_progress;

typedef struct {
	const cm_rules *rules;        /* NULL: the map's */
	const int *seats;             /* seat counts (each 2..cm_game_max_seats); */
	size_t n_seats;               /* NULL/0: 2..CM_BALANCE_SEATS_MAX, those the map takes */
	const int32_t *starts;        /* pin one choice of start squares (square */
	size_t n_starts;              /* indices; as many as the setup uses); NULL: every choice */
	const char *const *players;   /* player specs (carcamap/player.h): one for */
	size_t n_players;             /* every seat, or one per seat (one seat count
	                               * then, n_players); NULL: "random" */
	const char *compare;          /* a second strength, one spec for every seat,
	                               * played on the same cells; NULL: none */
	double precision;             /* 0 < precision < 0.5 */
	double tolerance;             /* 0 < tolerance <= 1 */
	long max_games;               /* per cell, at least one group */
	uint64_t seed;                /* group g of every cell: pile and setup from seed + g */
	int jobs;                     /* threads, 1..CM_PLAY_MAX_JOBS */
	int shard, shards;            /* play only the cells whose index i has
	                               * i % shards == shard - 1; 0 0: all */
	void (*progress)(void *arg, const cm_balance_progress *p); /* NULL: none */
	void *arg;
	bool (*interrupted)(void *arg); /* asked after every batch (with arg):
	                               * true stops the run there, the report
	                               * partial (Ctrl-C); NULL: never */
} cm_balance_opts;

/* Defaults: the map's rules, seats 2..5, every choice, random players, no
 * comparison, CM_BALANCE_PRECISION, CM_BALANCE_TOLERANCE,
 * CM_BALANCE_MAX_GAMES, seed 1, 1 job, no shards. */
void cm_balance_opts_init(cm_balance_opts *o);

typedef struct {
	char *map;                    /* the map's id */
	int cols, rows;
	char *players[CM_MAX_PLAYERS];/* the specs as given (n_players of them) */
	int n_players;
	char *compare;                /* or NULL */
	double precision, tolerance;
	long max_games;
	uint64_t seed;
	int shard, shards;            /* 0 0 for a whole run (and a merge) */
	bool partial;                 /* interrupted: some cells unfinished */
	cm_balance_cell *cells;       /* strength 0 first; within one, by seats, */
	size_t n_cells;               /* then choices in order (rising squares) */
} cm_balance_report;

/* Whether the request can be played on map with deck: the seat counts
 * (each 2..cm_game_max_seats), the players per seat against them, the
 * pinned start squares (start squares, distinct, as many as the setup
 * uses), the options' ranges (precision, tolerance, games, shard), at
 * most CM_BALANCE_MAX_CELLS cells, and the player specs (a spec this
 * build does not have is CM_ENOTSUP). Returns 0, or CM_EINVAL,
 * CM_ENOTSUP or CM_ENOMEM with the reason in d. A command maps a refusal
 * to a usage error. */
int cm_balance_check_request(const cm_map *map, const cm_deck *deck, const cm_balance_opts *o, cm_diags *d);

/* Plays the cells (cm_balance_opts) on map with deck and reports them in
 * *out (free with cm_balance_report_free). Returns 0; CM_EINVAL for a
 * request the map cannot take (a seat count outside 2..cm_game_max_seats,
 * a pinned square that is no start square or not as many as the setup
 * uses, a bad spec or option value, more than CM_BALANCE_MAX_CELLS cells;
 * said in d: cm_balance_check_request's refusals), a setup that fails or
 * a player's illegal move (see d); CM_ENOTSUP (a player this build does
 * not have) or CM_ENOMEM. An interrupted run returns 0 with a partial
 * report. */
int cm_balance_run(const cm_map *map, const cm_deck *deck, const cm_balance_opts *o, cm_diags *d,
                   cm_balance_report **out);
void cm_balance_report_free(cm_balance_report *r); /* NULL is a no-op */

/* The figures of a cell from its sums (cm_balance_run does it; a merge
 * too): the intervals, best and worst seats, verdict. */
void cm_balance_cell_figures(cm_balance_cell *c, double tolerance);
/* The fairest choice of each seat count and strength, and the flags
 * (verdicts that differ between the strengths), over the played cells. */
void cm_balance_report_compare(cm_balance_report *r);

#ifdef __cplusplus
}
#endif
#endif
