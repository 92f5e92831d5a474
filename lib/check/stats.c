/* SPDX-License-Identifier: MIT */
/* stats.c: statistics over many random games (carcamap/stats.h): one
 * board reset per game, the engine's own per-game figures summed, and the
 * squares each game filled counted. Built on the public engine API only. */
#include <stdlib.h>
#include "carcamap/stats.h"

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
	for (int y = 0; y < s->rows; y++)
		for (int x = 0; x < s->cols; x++)
			if (cm_board_tile_at(b, x, y, NULL, NULL) == 0)
				s->fill[y * s->cols + x]++;
	s->games++;
}

int cm_play_games(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int players,
                  uint64_t seed, int games, cm_play_progress progress, void *arg, cm_diags *d,
                  cm_play_stats **out)
{
	*out = NULL;
	if (games < 1) {
		if (d)
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "play", "at least one game is needed");
		return CM_EINVAL;
	}
	cm_board *b = NULL;
	int rc = cm_board_new(map, deck, rules, players, seed, 0, d, &b);
	if (rc < 0)
		return rc;
	cm_play_stats *s = calloc(1, sizeof *s);
	size_t n_sq = (size_t)map->cols * (size_t)map->rows;
	if (!s || !(s->fill = calloc(n_sq ? n_sq : 1, sizeof *s->fill))) {
		rc = CM_ENOMEM;
		goto out;
	}
	s->players = players;
	s->cols = map->cols;
	s->rows = map->rows;
	s->deck_tiles = cm_deck_total(deck);
	s->squares_playable = cm_board_stats(b)->squares_playable;
	for (size_t i = 0; i < n_sq; i++)
		if (!cm_square_kind_playable(map->squares[i].kind))
			s->fill[i] = -1;
	for (int i = 0; i < games; i++) {
		/* unsigned: seed + i wraps instead of overflowing */
		if ((rc = cm_play_game(b, seed + (uint64_t)i, d)) < 0)
			goto out;
		add_game(s, b);
		if (progress)
			progress(arg, i + 1, games);
	}
out:
	cm_board_free(b);
	if (rc < 0) {
		cm_play_stats_free(s);
		return rc;
	}
	*out = s;
	return 0;
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
