/* SPDX-License-Identifier: MIT */
/* stats.c: statistics over many random games (carcamap/stats.h): one
 * board reset per game, the engine's own per-game figures summed, and the
 * squares each game filled counted. Built on the public engine API and the
 * engine's layer-internal list of filled squares (engine/engine.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include "carcamap/stats.h"
#include "engine/engine.h"

int cm_play_game(cm_board *b, uint64_t seed, cm_diags *d)
{
	int rc = cm_board_reset(b, seed, d);
	if (rc < 0)
		return rc;
	cm_rng rng;
	cm_rng_seed(&rng, ~seed);
	return cm_board_play_random(b, &rng);
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

/* Plays games lo..hi-1 (seed + i) on a board of its own into s. */
static int play_range(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int players, uint64_t seed,
                      int lo, int hi, int games, cm_play_progress progress, void *arg, cm_diags *d, cm_play_stats *s)
{
	cm_board *b = NULL;
	int rc = cm_board_new(map, deck, rules, players, seed, 0, d, &b);
	if (rc < 0)
		return rc;
	s->squares_playable = cm_board_stats(b)->squares_playable;
	for (int i = lo; i < hi; i++) {
		/* unsigned: seed + i wraps instead of overflowing */
		if ((rc = cm_play_game(b, seed + (uint64_t)i, d)) < 0)
			break;
		add_game(s, b);
		if (progress)
			progress(arg, i + 1, games);
	}
	cm_board_free(b);
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
		s->wins[p] += t->wins[p];
	}
	s->ties += t->ties;
	for (int i = 0; i < s->cols * s->rows; i++)
		if (s->fill[i] >= 0)
			s->fill[i] += t->fill[i];
}

typedef struct {
	const cm_map *map;
	const cm_deck *deck;
	const cm_rules *rules;
	int players, lo, hi, games, rc;
	uint64_t seed;
	cm_diags *d;
	cm_play_stats *s;
} job;

static void *run_job(void *arg)
{
	job *j = arg;
	j->rc = play_range(j->map, j->deck, j->rules, j->players, j->seed, j->lo, j->hi, j->games, NULL, NULL, j->d,
	                   j->s);
	return NULL;
}

int cm_play_games_jobs(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int players,
                       uint64_t seed, int games, int jobs, cm_play_progress progress, void *arg, cm_diags *d,
                       cm_play_stats **out)
{
	*out = NULL;
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
	cm_play_stats *s = stats_new(map, deck, players);
	if (!s)
		return CM_ENOMEM;
	int rc = 0;
	if (jobs == 1) {
		rc = play_range(map, deck, rules, players, seed, 0, games, games, progress, arg, d, s);
	} else {
		/* games split by seed into consecutive ranges, one board and one
		 * set of sums per thread, merged in seed order */
		job j[CM_PLAY_MAX_JOBS];
		pthread_t th[CM_PLAY_MAX_JOBS];
		bool started[CM_PLAY_MAX_JOBS] = { false };
		for (int k = 0; k < jobs; k++) {
			j[k] = (job){ map, deck, rules, players, (int)((long long)games * k / jobs),
				      (int)((long long)games * (k + 1) / jobs), games, 0, seed, NULL, NULL };
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
			if (j[k].s)
				merge(s, j[k].s);
			for (size_t i = 0; d && j[k].d && i < cm_diags_count(j[k].d); i++) {
				const cm_diag *g = cm_diags_get(j[k].d, i);
				cm_diags_add(d, g->severity, g->rule, g->file, g->line, g->col, g->where, "%s",
				             g->message ? g->message : "");
			}
			cm_diags_free(j[k].d);
			cm_play_stats_free(j[k].s);
		}
		if (!rc && progress)
			progress(arg, games, games);
	}
	if (rc < 0) {
		cm_play_stats_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int cm_play_games(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int players,
                  uint64_t seed, int games, cm_play_progress progress, void *arg, cm_diags *d,
                  cm_play_stats **out)
{
	return cm_play_games_jobs(map, deck, rules, players, seed, games, 1, progress, arg, d, out);
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
	cm_tileset **sets = NULL;
	size_t n = 0;
	if (cm_workspace_map_sets(w, m, &sets, &n))
		return CM_ENOMEM;
	int rc = cm_deck_build(m, (const cm_tileset *const *)sets, n, d, out);
	free(sets);
	return rc;
}
