/* SPDX-License-Identifier: MIT */
/* bench_players.c: the players (carcamap/player.h) on the Germany map, 2
 * seats: complete games per CPU second of each player (one job, what
 * `carcamap play` does per game: reset, game, statistics; median of 3
 * runs; goal: greedy 2,000), the `--jobs 2` speed-up in wall time (the same
 * figures), and the ladder: each pair of players with seats alternated
 * (half the games each way round, the same seeds), the first's win rate
 * (a shared first place counts half) with its 95% confidence interval
 * (Wilson score) and the games played; mcts at its default budget (the
 * speed row: games per minute of two mcts seats). A player this build
 * lacks has its rows marked as not built. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "carcamap/carcamap.h"
#include "bench_util.h"

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
	const cm_map *map;
	const cm_deck *deck;
} board_in;

/* Whether this build has the player spec names. */
static bool built(const char *spec)
{
	cm_player *p = NULL;
	int rc = cm_player_new_from_spec(spec, &p);
	cm_player_free(p);
	return rc == 0;
}

static cm_play_stats *run(const board_in *in, const char *a, const char *b, uint64_t seed, int games, int jobs)
{
	const char *specs[2] = { a, b };
	cm_play_opts o;
	cm_play_opts_init(&o);
	o.players = specs;
	o.seed = seed;
	o.games = games;
	o.jobs = jobs;
	cm_diags *d = NULL;
	cm_play_stats *st = NULL;
	if (cm_diags_new(&d) || cm_play_run(in->map, in->deck, &o, d, &st)) {
		cm_diags_write_text(d, stderr);
		fprintf(stderr, "bench_players: %s against %s failed\n", a, b);
		exit(1);
	}
	cm_diags_free(d);
	return st;
}

/* The figures a run reports, to compare --jobs 1 and 2. */
static unsigned long long fingerprint(const cm_play_stats *st)
{
	unsigned long long h = 1469598103934665603ull;
	long long v[] = { st->games, st->tiles_placed, st->squares_filled, st->scores[0], st->scores[1],
		          st->scores_sq[0], st->scores_sq[1], st->seat_wins[0], st->seat_wins[1], st->ties };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		h = (h ^ (unsigned long long)v[i]) * 1099511628211ull;
	return h;
}

/* Games per CPU second of player spec in both seats (median of 3 runs of
 * games games), and the wall-time speed-up of 2 jobs; *same: the figures
 * agree. */
static double speed(const board_in *in, const char *spec, int games, double *speedup, bool *same)
{
	double cpu[3], wall[3];
	unsigned long long f1 = 0;
	for (int k = 0; k < 3; k++) {
		double c0 = bench_cpu_s(), w0 = wall_s();
		cm_play_stats *st = run(in, spec, spec, 1, games, 1);
		cpu[k] = bench_cpu_s() - c0;
		wall[k] = wall_s() - w0;
		f1 = fingerprint(st);
		cm_play_stats_free(st);
	}
	double best2 = 1e30;
	*same = true;
	for (int k = 0; k < 2; k++) {
		double w0 = wall_s();
		cm_play_stats *st = run(in, spec, spec, 1, games, 2);
		double w = wall_s() - w0;
		if (w < best2)
			best2 = w;
		*same = *same && fingerprint(st) == f1;
		cm_play_stats_free(st);
	}
	double best1 = wall[0];
	for (int k = 1; k < 3; k++)
		if (wall[k] < best1)
			best1 = wall[k];
	*speedup = best1 / best2;
	return games / bench_median(cpu, 3);
}

/* The Wilson score interval of p over n games at 95%. */
static void wilson(double p, int n, double *lo, double *hi)
{
	const double z = 1.959964;
	double den = 1 + z * z / n, mid = (p + z * z / (2.0 * n)) / den;
	double half = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / den;
	*lo = mid - half;
	*hi = mid + half;
}

/* a against b, half the games in each seating, the same seeds: a's win
 * rate (a shared first place half a win). */
static void ladder_row(const board_in *in, const char *a, const char *b, int games, const char *goal)
{
	if (!built(a) || !built(b)) {
		printf("  %-10s %-10s  not in this build (%s)\n", a, b, goal);
		return;
	}
	double t0 = bench_cpu_s();
	cm_play_stats *ab = run(in, a, b, 1000, games / 2, 2);
	cm_play_stats *ba = run(in, b, a, 1000, games / 2, 2);
	double cpu = bench_cpu_s() - t0;
	int n = ab->games + ba->games;
	/* a won alone, or shared first place (seat_ties: shared) */
	double won = (ab->seat_wins[0] - ab->seat_ties[0]) + (ba->seat_wins[1] - ba->seat_ties[1]) +
	             0.5 * (ab->seat_ties[0] + ba->seat_ties[1]);
	double p = won / n, lo, hi;
	wilson(p, n, &lo, &hi);
	double ma = (double)(ab->scores[0] + ba->scores[1]) / n, mb = (double)(ab->scores[1] + ba->scores[0]) / n;
	printf("  %-10s %-10s %6.1f%% [%5.1f%%, %5.1f%%] %6d   %6.1f to %5.1f   %s%s (%.1f s CPU)\n", a, b,
	       100 * p, 100 * lo, 100 * hi, n, ma, mb, goal, lo > 0.5 ? "" : ", interval not above 50%", cpu);
	cm_play_stats_free(ab);
	cm_play_stats_free(ba);
}

/* Germany's deck with Abbey & Mayor's abbey tile added (one abbey dealt
 * per seat, ABBEY-PLACE): greedy decides its abbey before the draw, from
 * the tiles left; its speed and the greedy-random row there. */
static int abbeys(const cm_workspace *w, const cm_map *germany, cm_diags *d)
{
	cm_map_builder *mb = NULL;
	cm_map *m = NULL;
	cm_deck *deck = NULL;
	cm_deck_entry abbey = { .tileset = "abbey-mayor", .tile = "AM-abbey", .count = -1 };
	if (cm_map_builder_from(germany, &mb) || cm_map_builder_add_deck_entry(mb, &abbey) ||
	    cm_map_builder_finish(mb, NULL, NULL, d, &m) || cm_play_deck(w, m, d, &deck)) {
		cm_diags_write_text(d, stderr);
		cm_map_free(m);
		return 1;
	}
	board_in in = { m, deck };
	double up;
	bool same;
	double rate = speed(&in, "greedy", 1000, &up, &same);
	printf("bench_players germany with abbeys (+AM-abbey, one per seat; decided before the draw): "
	       "greedy %.0f games/s, --jobs 2 speed-up %.2f, same figures: %s\n", rate, up, same ? "yes" : "NO");
	ladder_row(&in, "greedy", "random", 2000, "goal 95%");
	cm_deck_free(deck);
	cm_map_free(m);
	return !same;
}

int main(void)
{
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cm_deck *deck = NULL;
	if (cm_diags_new(&d) || cm_workspace_new(&w) || cm_workspace_add_tileset_dir(w, "maps/tilesets") ||
	    cm_workspace_load(w, "maps/germany/germany.xml", d) ||
	    cm_workspace_load(w, "maps/tilesets/abbey-mayor.xml", d) || /* abbeys() */
	    cm_workspace_resolve(w, d) ||
	    cm_play_deck(w, cm_workspace_map(w, 0), d, &deck)) {
		cm_diags_write_text(d, stderr);
		return 1;
	}
	board_in in = { cm_workspace_map(w, 0), deck };
	printf("bench_players germany: 2 seats, %d tiles; games per CPU second, one job, median of 3 "
	       "(--jobs 2: wall-time speed-up on a shared machine, same figures)\n",
	       cm_deck_total(deck));
	static const struct {
		const char *spec;
		int games;
		double goal;
	} speeds[] = {
		{ "random", 20000, 40000 },
		{ "greedy", 2000, 2000 },
		{ "mcts", 4, 0 }, /* goal: mcts games per minute at the default budget */
	};
	int fail = 0;
	for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
		if (!built(speeds[i].spec)) {
			printf("  %-8s not in this build\n", speeds[i].spec);
			continue;
		}
		double up;
		bool same;
		double rate = speed(&in, speeds[i].spec, speeds[i].games, &up, &same);
		if (speeds[i].goal > 0)
			printf("  %-8s %9.0f games/s", speeds[i].spec, rate);
		else
			printf("  %-8s %9.1f games per minute", speeds[i].spec, 60 * rate);
		if (speeds[i].goal > 0)
			printf(", goal %.0f: ratio %.2f", speeds[i].goal, rate / speeds[i].goal);
		printf("; --jobs 2 speed-up %.2f, same figures: %s\n", up, same ? "yes" : "NO");
		fail |= !same;
	}
	printf("bench_players ladder on germany, 2 seats alternated: the first player's win rate "
	       "(ties half), 95%% interval (Wilson), games, mean scores\n");
	printf("  %-10s %-10s %7s %17s %6s   %s\n", "player", "against", "wins", "95% interval", "games",
	       "mean scores");
	ladder_row(&in, "greedy", "random", 2000, "goal 95%");
	ladder_row(&in, "mcts", "greedy", 200, "goal 65%, interval above 50%");
	ladder_row(&in, "mcts", "random", 200, "no goal: above greedy's");
	fail |= abbeys(w, in.map, d);
	cm_deck_free(deck);
	cm_workspace_free(w);
	cm_diags_free(d);
	return fail;
}
