/* SPDX-License-Identifier: MIT */
/* carcamap/stats.h: statistics of many games on one map (DESIGN.md
 * "Validator": fill ratio, squares never filled; `carcamap play`). Games
 * are played by the rules engine's players (carcamap/player.h; random
 * play unless told otherwise) and summed here, so `play` and `check
 * --games` report the same figures for the same map, deck, rules,
 * players and seed. Nothing here prints.
 * Threads: cm_play_games_jobs runs threads of its own over the shared map
 * and deck, each with its own boards and players. */
#ifndef CARCAMAP_STATS_H
#define CARCAMAP_STATS_H

#include "board.h"
#include "play.h"
#include "player.h"
#include "workspace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sums over the games played; divide by games for means. */
typedef struct {
	int games;              /* games played */
	int players;
	int cols, rows;         /* the map's grid */
	int squares_playable;   /* squares that can ever take a tile */
	int *fill;              /* cols*rows, row-major: games that ended with a
	                         * tile on the square; -1 for squares that can
	                         * never take one. Owned by the stats */
	int deck_tiles;         /* cm_deck_total: every copy, start tile included */
	long long tiles_placed; /* by players, setup not included */
	long long setup_tiles;
	long long squares_filled; /* tiles on the board at the end, setup included */
	int filled_min, filled_max; /* fewest and most squares filled in one game */
	long long stranded;     /* tiles put aside with no legal placement */
	int stranded_games;     /* games that put aside at least one tile */
	long long points_kind[CM_FEAT_KIND_COUNT]; /* awarded points, times scoring players */
	long long points_island, points_town;
	long long final_points; /* of all points, those from final scoring */
	long long abbeys_placed; /* ABBEY-PLACE (abbey tiles dealt with the deck) */
	long long wagon_moves, wagon_returns; /* WAGON-MOVE (rule option wagons) */
	long long scores[CM_MAX_PLAYERS]; /* final score per seat (player index) */
	int wins[CM_MAX_PLAYERS]; /* games a seat won alone */
	int ties;               /* games whose top score was shared */
	long long scores_sq[CM_MAX_PLAYERS]; /* squares of the final scores, summed (cm_play_stats_sd) */
	int seat_wins[CM_MAX_PLAYERS]; /* games a seat won, alone or tied for first */
	int seat_ties[CM_MAX_PLAYERS]; /* games a seat tied for first */
} cm_play_stats;

/* Called after each game with the games done so far and the total. */
typedef void (*cm_play_progress)(void *arg, int done, int games);

/* Plays one random game on b from the start: cm_board_reset(b, seed),
 * then cm_board_play_random with a cm_rng seeded with ~seed (the bitwise
 * complement, so the choices are not the shuffle's stream), which ends
 * with final scoring. Same board (map, deck, rules, players) and seed,
 * same game. Returns 0, or cm_board_reset's errors (see d, may be NULL). */
int cm_play_game(cm_board *b, uint64_t seed, cm_diags *d);
/* The same with seats[p] choosing for player p (cm_board_play; seats
 * NULL: random play, as cm_play_game). Returns 0, cm_board_reset's
 * errors, or cm_board_play's. */
int cm_play_game_seats(cm_board *b, cm_player *const *seats, uint64_t seed, cm_diags *d);

/* Plays games random games on map with deck, rules (NULL: map->rules) and
 * players seats, game i (0-based) by cm_play_game with seed + i, and
 * sums them into a new *out (free with cm_play_stats_free). progress, when
 * not NULL, is called after every game with arg. Returns 0, CM_EINVAL
 * (games < 1, bad players, a map the engine cannot play or a setup that
 * fails: see d, which may be NULL) or CM_ENOMEM; *out is set on success
 * only. */
int cm_play_games(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int players,
                  uint64_t seed, int games, cm_play_progress progress, void *arg, cm_diags *d,
                  cm_play_stats **out);
/* cm_play_games on jobs threads (1..CM_PLAY_MAX_JOBS, fewer when there
 * are fewer games): the games are split by seed into consecutive ranges,
 * each played on a board of its own, and the sums merged in seed order,
 * so the result is the same for every jobs. progress is called once, at
 * the end, when jobs > 1. Diagnostics of the threads are added to d after
 * they finish. */
#define CM_PLAY_MAX_JOBS 64
int cm_play_games_jobs(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int players,
                       uint64_t seed, int games, int jobs, cm_play_progress progress, void *arg, cm_diags *d,
                       cm_play_stats **out);
void cm_play_stats_free(cm_play_stats *s); /* NULL is a no-op */

/* What cm_play_run plays. */
typedef struct {
	const cm_rules *rules;        /* NULL: the map's */
	int seats;                    /* 2..CM_MAX_PLAYERS */
	const char *const *players;   /* seats player specs (carcamap/player.h),
	                               * one per seat; NULL: random for every seat */
	uint64_t seed;                /* game i (0-based) plays seed + i */
	int games;                    /* 1 or more */
	int jobs;                     /* threads, 1..CM_PLAY_MAX_JOBS */
	cm_play_progress progress;    /* as cm_play_games_jobs; NULL: none */
	void *arg;
} cm_play_opts;
/* Defaults: the map's rules, 2 random seats, seed 1, 100 games, 1 job. */
void cm_play_opts_init(cm_play_opts *o);
/* cm_play_games_jobs with players: game i by cm_play_game_seats with
 * seed + i, each thread with player objects of its own made from the
 * specs. The same figures for every jobs. Returns 0, CM_EINVAL (as
 * cm_play_games_jobs, a bad spec, a seat's illegal choice: see d),
 * CM_ENOTSUP (a player this build does not have), CM_ENOMEM or a
 * player's error; *out is set on success only. */
int cm_play_run(const cm_map *map, const cm_deck *deck, const cm_play_opts *o, cm_diags *d, cm_play_stats **out);
/* The standard deviation (n - 1 in the denominator) of seat p's final
 * scores; 0 for fewer than 2 games. */
double cm_play_stats_sd(const cm_play_stats *s, int p);

/* Mean fraction of the playable squares filled at the end of a game
 * (0..1; 0 when the map has no playable square). */
double cm_play_stats_fill(const cm_play_stats *s);

/* The deck of map m from the tile sets its deck names, found in w
 * (cm_workspace_map_sets, then cm_deck_build): what every command that
 * plays on a map of a workspace needs. Returns cm_deck_build's codes. */
int cm_play_deck(const cm_workspace *w, const cm_map *m, cm_diags *d, cm_deck **out);

#ifdef __cplusplus
}
#endif
#endif
