/* SPDX-License-Identifier: MIT */
/* stats.c: statistics over many games (carcamap/stats.h): one board
 * reset per game, played by random play or by players made from specs,
 * the engine's own per-game figures summed, the seats' results, and the
 * squares each game filled counted. Built on the public engine API and the
 * engine's layer-internal layout, shared by every thread's board, and list
 * of filled squares (engine/engine.h). */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "carcamap/stats.h"
#include "check/stats_int.h"
#include "engine/engine.h"
#include "model/map_struct_int.h"

int cm_play_game_seats(cm_board *b, cm_player *const *seats, uint64_t seed, cm_diags *d)
{
	int rc = cm_board_reset(b, seed, d);
	if (rc < 0)
		return rc;
	cm_rng rng;
	cm_rng_seed(&rng, ~seed);
	return seats ? cm_board_play(b, seats, &rng, d) : cm_board_play_random(b, &rng);
}

int cm_play_game(cm_board *b, uint64_t seed, cm_diags *d)
{
	return cm_play_game_seats(b, NULL, seed, d);
}

void cm_play_stats_free(cm_play_stats *s)
{
	if (!s)
		return;
	free(s->fill);
	free(s);
}

/* Adds the game just played on b to s. */
static void add_game(cm_play_stats *s, const cm_board *b)
{
	const cm_game_stats *g = cm_board_stats(b);
	s->tiles_placed += g->tiles_placed;
	s->setup_tiles += g->setup_tiles;
	s->squares_filled += g->squares_filled;
	if (s->games == 0 || g->squares_filled < s->filled_min)
		s->filled_min = g->squares_filled;
	if (s->games == 0 || g->squares_filled > s->filled_max)
		s->filled_max = g->squares_filled;
	s->stranded += g->stranded;
	s->stranded_games += g->stranded > 0;
	for (int k = 0; k < CM_FEAT_KIND_COUNT; k++)
		s->points_kind[k] += g->points_kind[k];
	s->points_island += g->points_island;
	s->points_town += g->points_town;
	s->final_points += g->final_points;
	s->abbeys_placed += g->abbeys_placed;
	s->wagon_moves += g->wagon_moves;
	s->wagon_returns += g->wagon_returns;
	int best = 0, n_best = 0;
	for (int p = 0; p < s->players; p++) {
		int v = cm_board_score(b, p);
		s->scores[p] += v;
		s->scores_sq[p] += (long long)v * v;
		if (p == 0 || v > cm_board_score(b, best)) {
			best = p;
			n_best = 1;
		} else if (v == cm_board_score(b, best)) {
			n_best++;
		}
	}
	if (n_best == 1)
		s->wins[best]++;
	else
		s->ties++;
	for (int p = 0; p < s->players; p++)
		if (cm_board_score(b, p) == cm_board_score(b, best)) {
			s->seat_wins[p]++;
			s->seat_ties[p] += n_best > 1;
		}
	const int32_t *sq;
	for (int i = 0, n = cm__board_filled(b, &sq); i < n; i++)
		s->fill[sq[i]]++; /* the squares of this game, not the map's */
	s->games++;
}

/* New empty statistics for map: fill 0 on squares that can take a tile. */
static cm_play_stats *stats_new(const cm_map *map, const cm_deck *deck, int players)
{
	cm_play_stats *s = calloc(1, sizeof *s);
	size_t n_sq = (size_t)map->cols * (size_t)map->rows;
	if (!s || !(s->fill = calloc(n_sq ? n_sq : 1, sizeof *s->fill))) {
		free(s);
		return NULL;
	}
	s->players = players;
	s->cols = map->cols;
	s->rows = map->rows;
	s->deck_tiles = cm_deck_total(deck);
	for (size_t i = 0; i < n_sq; i++)
		if (!cm_square_kind_playable(map->squares[i].kind))
			s->fill[i] = -1;
	return s;
}

/* The seats' players from the specs (all NULL for random play). */
static int make_seats(const cm_play_opts *o, cm_player **seats, cm_diags *d)
{
	for (int p = 0; o->players && p < o->seats; p++) {
		int rc = cm_player_new_from_spec(o->players[p], &seats[p]);
		if (rc < 0) {
			if (d)
				cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "play", "player %d: '%s': %s", p,
				             o->players[p], rc == CM_ENOTSUP ? "not available in this build" :
				             "not a player (" CM_PLAYER_SPEC_FORMS ")");
			return rc;
		}
	}
	return 0;
}

/* Plays games lo..hi-1 (seed + i) on a board of its own into s, with
 * players of its own, telling o's progress after each game if progress;
 * w (may be NULL) watches them through *part. */
static int play_range(cm__layout *lay, const cm_deck *deck, const cm_play_opts *o, int lo, int hi, bool progress,
                      const cm__play_watch *w, void **part, cm_diags *d, cm_play_stats *s)
{
	cm_board *b = NULL;
	cm_player *seats[CM_MAX_PLAYERS] = { NULL };
	int rc = make_seats(o, seats, d);
	if (!rc)
		rc = cm__board_new_on(lay, deck, o->rules, o->seats, o->seed, 0, d, &b);
	if (!rc && w)
		rc = w->begin(w->arg, b, part);
	if (!rc) {
		s->squares_playable = cm_board_stats(b)->squares_playable;
		for (int i = lo; i < hi; i++) {
			/* unsigned: seed + i wraps instead of overflowing */
			if ((rc = cm_play_game_seats(b, o->players ? seats : NULL, o->seed + (uint64_t)i, d)) < 0)
				break;
			add_game(s, b);
			if (w)
				w->game(*part, b);
			if (progress && o->progress)
				o->progress(o->arg, i + 1, o->games);
		}
	}
	cm_board_free(b);
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		cm_player_free(seats[p]);
	return rc < 0 ? rc : 0;
}

/* Adds the sums of t into s: every figure is a sum, a minimum or a
 * maximum, so the result does not depend on how the games were split. */
static void merge(cm_play_stats *s, const cm_play_stats *t)
{
	if (t->games == 0)
		return;
	if (s->games == 0 || t->filled_min < s->filled_min)
		s->filled_min = t->filled_min;
	if (s->games == 0 || t->filled_max > s->filled_max)
		s->filled_max = t->filled_max;
	s->games += t->games;
	s->squares_playable = t->squares_playable;
	s->tiles_placed += t->tiles_placed;
	s->setup_tiles += t->setup_tiles;
	s->squares_filled += t->squares_filled;
	s->stranded += t->stranded;
	s->stranded_games += t->stranded_games;
	for (int k = 0; k < CM_FEAT_KIND_COUNT; k++)
		s->points_kind[k] += t->points_kind[k];
	s->points_island += t->points_island;
	s->points_town += t->points_town;
	s->final_points += t->final_points;
	s->abbeys_placed += t->abbeys_placed;
	s->wagon_moves += t->wagon_moves;
	s->wagon_returns += t->wagon_returns;
	for (int p = 0; p < CM_MAX_PLAYERS; p++) {
		s->scores[p] += t->scores[p];
		s->scores_sq[p] += t->scores_sq[p];
		s->wins[p] += t->wins[p];
		s->seat_wins[p] += t->seat_wins[p];
		s->seat_ties[p] += t->seat_ties[p];
	}
	s->ties += t->ties;
	for (int i = 0; i < s->cols * s->rows; i++)
		if (s->fill[i] >= 0)
			s->fill[i] += t->fill[i];
}

typedef struct {
	cm__layout *lay;
	const cm_deck *deck;
	const cm_play_opts *o;
	const cm__play_watch *w;
	int lo, hi, rc;
	cm_diags *d;
	cm_play_stats *s;
	void *part;
} job;

static void *run_job(void *arg)
{
	job *j = arg;
	j->rc = play_range(j->lay, j->deck, j->o, j->lo, j->hi, false, j->w, &j->part, j->d, j->s);
	return NULL;
}

void cm_play_opts_init(cm_play_opts *o)
{
	*o = (cm_play_opts){ .seats = 2, .seed = 1, .games = 100, .jobs = 1 };
}

int cm_play_run(const cm_map *map, const cm_deck *deck, const cm_play_opts *o, cm_diags *d, cm_play_stats **out)
{
	return cm__play_run_on(NULL, map, deck, o, NULL, d, out);
}

int cm__play_run_on(cm__layout *lay, const cm_map *map, const cm_deck *deck, const cm_play_opts *o,
                    const cm__play_watch *watch, cm_diags *d, cm_play_stats **out)
{
	*out = NULL;
	int games = o->games, jobs = o->jobs, players = o->seats;
	if (players < 2 || players > CM_MAX_PLAYERS) {
		if (d)
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "board", "a game needs 2 to 6 players");
		return CM_EINVAL;
	}
	if (games < 1) {
		if (d)
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "play", "at least one game is needed");
		return CM_EINVAL;
	}
	if (jobs < 1)
		jobs = 1;
	if (jobs > CM_PLAY_MAX_JOBS)
		jobs = CM_PLAY_MAX_JOBS;
	if (jobs > games)
		jobs = games;
	/* one layout for every thread's board: the caller's, or one made here */
	cm__layout *own = NULL;
	int rc = lay ? 0 : cm__layout_new(map, d, &own);
	if (rc < 0)
		return rc;
	if (own)
		lay = own;
	cm_play_stats *s = stats_new(map, deck, players);
	if (!s) {
		cm__layout_free(own);
		return CM_ENOMEM;
	}
	void *part = NULL;
	if (jobs == 1) {
		rc = play_range(lay, deck, o, 0, games, true, watch, &part, d, s);
		if (watch) {
			int e = watch->end(watch->arg, part, rc >= 0);
			rc = rc < 0 ? rc : e;
		}
	} else {
		/* games split by seed into consecutive ranges, one board and one
		 * set of sums per thread, merged in seed order */
		job j[CM_PLAY_MAX_JOBS] = { { 0 } }; /* ranges not made stay empty */
		pthread_t th[CM_PLAY_MAX_JOBS];
		bool started[CM_PLAY_MAX_JOBS] = { false };
		for (int k = 0; k < jobs; k++) {
			j[k] = (job){ lay, deck, o, watch, (int)((long long)games * k / jobs),
				      (int)((long long)games * (k + 1) / jobs), 0, NULL, NULL, NULL };
			if (cm_diags_new(&j[k].d) || !(j[k].s = stats_new(map, deck, players))) {
				rc = CM_ENOMEM;
				break;
			}
		}
		for (int k = 0; !rc && k < jobs; k++)
			started[k] = pthread_create(&th[k], NULL, run_job, &j[k]) == 0;
		for (int k = 0; k < jobs; k++) {
			if (started[k])
				pthread_join(th[k], NULL);
			else if (!rc && j[k].s)
				run_job(&j[k]); /* no thread: play the range here */
		}
		for (int k = 0; k < jobs; k++) {
			if (!rc && j[k].rc < 0)
				rc = j[k].rc;
			if (watch) {
				int e = watch->end(watch->arg, j[k].part, !rc);
				rc = rc < 0 ? rc : e;
			}
			if (j[k].s)
				merge(s, j[k].s);
			cm_diags_append(d, j[k].d, NULL);
			cm_diags_free(j[k].d);
			cm_play_stats_free(j[k].s);
		}
		if (!rc && o->progress)
			o->progress(o->arg, games, games);
	}
	cm__layout_free(own);
	if (rc < 0) {
		cm_play_stats_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int cm_play_games_jobs(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int players,
                       uint64_t seed, int games, int jobs, cm_play_progress progress, void *arg, cm_diags *d,
                       cm_play_stats **out)
{
	cm_play_opts o = { .rules = rules, .seats = players, .seed = seed, .games = games, .jobs = jobs,
		           .progress = progress, .arg = arg };
	return cm_play_run(map, deck, &o, d, out);
}

int cm_play_games(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int players,
                  uint64_t seed, int games, cm_play_progress progress, void *arg, cm_diags *d,
                  cm_play_stats **out)
{
	return cm_play_games_jobs(map, deck, rules, players, seed, games, 1, progress, arg, d, out);
}

double cm_play_stats_sd(const cm_play_stats *s, int p)
{
	if (p < 0 || p >= CM_MAX_PLAYERS || s->games < 2)
		return 0.0;
	double n = s->games, sum = (double)s->scores[p];
	double var = ((double)s->scores_sq[p] - sum * sum / n) / (n - 1);
	return var > 0 ? sqrt(var) : 0.0;
}

double cm_play_stats_fill(const cm_play_stats *s)
{
	if (s->games == 0 || s->squares_playable == 0)
		return 0.0;
	return (double)s->squares_filled / ((double)s->games * s->squares_playable);
}

int cm_play_deck(const cm_workspace *w, const cm_map *m, cm_diags *d, cm_deck **out)
{
	*out = NULL;
	const cm_tileset **sets = NULL;
	size_t n = 0;
	if (cm_workspace_map_sets(w, m, &sets, &n))
		return CM_ENOMEM;
	int rc = cm_deck_build(m, sets, n, d, out);
	free(sets);
	return rc;
}
