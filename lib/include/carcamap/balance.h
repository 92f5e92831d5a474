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
#include "stats.h"

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
	bool heat;                    /* collect heatmaps from the first strength's games */
	const char *map_key;          /* names the map's content in the request
	                               * (its content hash); NULL: the id alone */
	const struct cm_balance_part *const *parts; /* merge these parts of one */
	size_t n_parts;               /* request instead of playing (Shards) */
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
	struct cm_balance_heat *heat; /* with cm_balance_opts.heat: over every
	                               * cell of strength 0; else NULL */
	char *request;                /* the request in one line: map, deck, rules,
	                               * options (what parts must share) */
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


/* ---- Heatmaps ------------------------------------------------------- */

/* Per square and per printed element, over games: the games of the
 * report's first strength (cm_balance_opts.heat), or games with the map's
 * own setup (cm_balance_heat_play). Sums over groups of games, as the
 * balance figures: the intervals take the group as the unit. */
typedef struct cm_balance_heat cm_balance_heat;

typedef enum {
	CM_HEAT_FILL = 0, /* share of games that ended with a tile on the square */
	CM_HEAT_TURN,     /* mean turn the square was filled (setup 0), over the games that filled it */
	CM_HEAT_POINTS,   /* mean points a game awards to the features that cover the
	                   * square (each once; times the players scoring), with the
	                   * coats of arms scored on it (MAP-ISLAND) and its town cost */
	CM_HEAT_USE       /* the printed elements: cm_balance_heat_element */
} cm_heat_kind;
const char *cm_heat_kind_name(cm_heat_kind k); /* "fill", "turn", "points", "use" */
int cm_heat_kind_parse(const char *s, cm_heat_kind *out); /* 0 or CM_EINVAL */

long long cm_balance_heat_games(const cm_balance_heat *h);
/* Square (x,y)'s figure k with its 95% interval: 0, or CM_ENOTFOUND off
 * the grid, for CM_HEAT_USE, for a turn of a square no game filled, and
 * before any game. A square that never takes a tile has fill 0. */
int cm_balance_heat_square(const cm_balance_heat *h, cm_heat_kind k, int x, int y, cm_interval *out);

typedef enum { CM_ELEMENT_BIGCITY = 0, CM_ELEMENT_PRINT, CM_ELEMENT_FERRY, CM_ELEMENT_ISLAND } cm_element_kind;
const char *cm_element_kind_name(cm_element_kind k); /* "bigcity", "print", "ferry", "island" */

/* A printed element and how the games used it: connected (a big city: a
 * tile next to it, MAP-BIGCITY; a road or city print: a tile on its
 * square; a ferry: a tile on one of its ends, MAP-FERRY; an island: a
 * square of it open or filled, MAP-ISLAND), completed (the city feature
 * of a big city's pieces, the feature through a print or a ferry, every
 * square of an island filled) and scored (points awarded for it: its
 * feature, or on an island's squares). */
typedef struct {
	cm_element_kind kind;
	int index;         /* big city, ferry or island index; -1 for a print */
	int x, y, side;    /* a print's square and side; a ferry's first end; a
	                    * big city's or island's first square (side -1) */
	const char *name;  /* big city or ferry name, island id, print label; or NULL */
	long long n_connected, n_completed, n_scored; /* games */
	cm_interval connected, completed, scored;     /* shares of games */
} cm_heat_element;
/* The elements in kind order (big cities, prints by square and side,
 * ferries, islands), each in the map's order; borrowed from h (the
 * figures are filled in when asked). */
size_t cm_balance_heat_element_count(const cm_balance_heat *h);
const cm_heat_element *cm_balance_heat_element(const cm_balance_heat *h, size_t i);

/* CM0605 (warning) for every element never connected or never completed
 * in any of h's games, naming the games; at the element's line when m
 * came from a descriptor. */
void cm_balance_heat_findings(const cm_balance_heat *h, const cm_map *m, cm_diags *d);

/* Heatmaps of games played as `carcamap play` plays them (cm_play_run:
 * game i by cm_play_game_seats with o->seed + i, the map's own setup,
 * o->players per seat or random play; o->progress unused), each game its
 * own group. The same for every o->jobs. 0, CM_EINVAL (bad options, a
 * setup that fails: see d), CM_ENOTSUP or CM_ENOMEM. */
int cm_balance_heat_play(const cm_map *map, const cm_deck *deck, const cm_play_opts *o, cm_diags *d,
                         cm_balance_heat **out);
void cm_balance_heat_free(cm_balance_heat *h); /* NULL is a no-op */

/* ---- Shards --------------------------------------------------------- */

/* A shard's partial result (cm_balance_opts.shard): its cells' exact sums
 * and its heatmaps' sums, written by cm_balance_part_write (a line format
 * of its own: schemas/balance-json.md "Shards") and read back. A run
 * given the parts of every shard of the same request
 * (cm_balance_opts.parts) plays nothing and reports exactly what one run
 * of the whole request reports. */
typedef struct cm_balance_part cm_balance_part;
/* Writes r (a shard's report) as a part. 0 or CM_EIO. */
int cm_balance_part_write(const cm_balance_report *r, FILE *f);
/* Reads the part at path. 0, CM_EINVAL (not a part, malformed: said in d
 * at path:line), CM_EIO or CM_ENOMEM. */
int cm_balance_part_read(const char *path, cm_diags *d, cm_balance_part **out);
void cm_balance_part_free(cm_balance_part *p); /* NULL is a no-op */

/* ---- Deck fitting --------------------------------------------------- */

/* The criterion, the same for every map: a deck size is recommended when
 * its games fill, on average, between CM_FIT_FILL_LOW and CM_FIT_FILL_HIGH
 * of the playable squares (schemas/balance-json.md "Deck fitting"). */
#define CM_FIT_FILL_LOW 0.82
#define CM_FIT_FILL_HIGH 0.87
#define CM_FIT_GAMES 200   /* games per deck size */
/* A declared range is far from the recommendation when their midpoints
 * differ by more than this fraction of the recommended midpoint. */
#define CM_FIT_FAR 0.10

/* One deck size of the curve: means over its games. */
typedef struct {
	int size;          /* tiles in the deck (start tile included, abbeys not) */
	double fill;       /* squares filled at the end / playable squares */
	double stranded;   /* tiles put aside (no legal placement) / size */
	double length;     /* tiles placed by the players */
} cm_fit_point;

typedef struct {
	int playable;      /* the map's playable squares */
	int deck;          /* the map's own deck size */
	int declared_min, declared_max; /* <setup tiles-min tiles-max>; 0 unset */
	int games;         /* per size */
	double fill_low, fill_high;     /* the criterion */
	int tiles_min, tiles_max;       /* the recommendation; -1 when the curve
	                                 * never reaches fill_low */
	cm_fit_point *curve;
	size_t n_curve;
} cm_fit;

typedef struct {
	const cm_rules *rules;        /* NULL: the map's */
	int seats;                    /* 2..CM_MAX_PLAYERS */
	const char *const *players;   /* seats specs, or NULL: random play */
	uint64_t seed;
	int games;                    /* per deck size */
	int jobs;
} cm_fit_opts;
/* Defaults: the map's rules, 2 random seats, seed 1, CM_FIT_GAMES, 1 job. */
void cm_fit_opts_init(cm_fit_opts *o);

/* The deck of size tiles with deck's mix: each drawable type's share of
 * size, rounded by largest remainder (the first type on a tie), the start
 * tile kept, abbeys as they are. 0, CM_EINVAL or CM_ENOMEM. */
int cm_fit_deck_of_size(const cm_deck *deck, int size, cm_diags *d, cm_deck **out);
/* Plays map with decks of deck's mix from half its playable squares to
 * 130% of them (about 40 sizes; game i of each size with seed o->seed +
 * i, as cm_play_run) and reads the recommendation off the fill curve
 * (linear between sizes). 0, CM_EINVAL, CM_ENOTSUP or CM_ENOMEM. */
int cm_fit_deck(const cm_map *map, const cm_deck *deck, const cm_fit_opts *o, cm_diags *d, cm_fit **out);
void cm_fit_free(cm_fit *f); /* NULL is a no-op */
/* Whether f's map declares a range far from the recommendation (CM_FIT_FAR). */
bool cm_fit_far(const cm_fit *f);

#ifdef __cplusplus
}
#endif
#endif
