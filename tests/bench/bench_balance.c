/* SPDX-License-Identifier: MIT */
/* bench_balance.c: the balance report (issue 29's speed goals) on the
 * bundled Germany map. (1) The full report: seats 2 to 5, each of the 3
 * start-square choices, greedy players, no comparison, +-1 pp, --jobs 2;
 * its CPU seconds, its wall seconds, and CPU / 2 (what two idle cores
 * take), against the goal of 60 s on two cores; the games and games per
 * CPU second beside it. (2) The heatmaps' cost: one cell (2 seats, the
 * first choice) capped at a fixed number of games, one job, with and
 * without heatmaps: the CPU seconds of each (median of 3) and their
 * ratio, goal 1.10 (heatmaps add at most 10% to the games they come
 * from); the two reports' figures must be equal (heatmaps only watch). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_util.h"
#include "carcamap/carcamap.h"

#define HEAT_GAMES 3000
#define RUNS 3
#define GOAL_FULL_S 60.0
#define GOAL_HEAT_RATIO 1.10

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static cm_balance_report *run(const cm_map *m, const cm_deck *deck, const cm_balance_opts *o)
{
	cm_diags *d = NULL;
	cm_balance_report *r = NULL;
	if (cm_diags_new(&d) || cm_balance_run(m, deck, o, d, &r)) {
		cm_diags_write_text(d, stderr);
		fprintf(stderr, "bench_balance: the report failed\n");
		exit(1);
	}
	cm_diags_free(d);
	return r;
}

static long long games_of(const cm_balance_report *r)
{
	long long n = 0;
	for (size_t i = 0; i < r->n_cells; i++)
		n += r->cells[i].games;
	return n;
}

int main(void)
{
	cm_workspace *w = NULL;
	cm_diags *d = NULL;
	cm_deck *deck = NULL;
	if (cm_diags_new(&d) || cm_workspace_new(&w) || cm_workspace_add_tileset_dir(w, "maps/tilesets") ||
	    cm_workspace_load(w, "maps/germany/germany.xml", d) || cm_workspace_resolve(w, d)) {
		cm_diags_write_text(d, stderr);
		return 1;
	}
	const cm_map *m = cm_workspace_map(w, 0);
	if (cm_play_deck(w, m, d, &deck)) {
		cm_diags_write_text(d, stderr);
		return 1;
	}
	static const char *const greedy[] = { "greedy" };
	cm_balance_opts o;
	cm_balance_opts_init(&o);
	o.players = greedy;
	o.n_players = 1;
	int fail = 0;

	/* (2) first: it is short */
	int32_t starts[2];
	int n = 0;
	for (int y = 0; y < cm_map_rows(m) && n < 2; y++)
		for (int x = 0; x < cm_map_cols(m) && n < 2; x++)
			if (cm_map_at(m, x, y)->kind == CM_SQ_START)
				starts[n++] = (int32_t)(y * cm_map_cols(m) + x);
	int two[] = { 2 };
	cm_balance_opts h = o;
	h.seats = two;
	h.n_seats = 1;
	h.starts = starts;
	h.n_starts = 2;
	h.precision = 1e-6; /* never reached: every run plays the cap */
	h.max_games = HEAT_GAMES;
	double t[2][RUNS];
	char fig[2][256];
	for (int r = 0; r < RUNS; r++)
		for (int heat = 0; heat < 2; heat++) {
			h.heat = heat;
			double t0 = bench_cpu_s();
			cm_balance_report *rep = run(m, deck, &h);
			t[heat][r] = bench_cpu_s() - t0;
			const cm_balance_cell *c = &rep->cells[0];
			snprintf(fig[heat], sizeof fig[heat], "%lld %.6f %.6f %.6f", c->games, c->win[0].value,
			         c->score[0].value, c->length.value);
			if (heat && cm_balance_heat_games(rep->heat) != c->games)
				fail = 1;
			cm_balance_report_free(rep);
		}
	double plain = bench_median(t[0], RUNS), heat = bench_median(t[1], RUNS), ratio = heat / plain;
	printf("heatmaps' cost: Germany, 2 seats, one choice, %d greedy games, one job, CPU s (median of %d)\n",
	       HEAT_GAMES, RUNS);
	printf("%-22s %10s %10s %8s %8s\n", "", "without", "with", "ratio", "goal");
	printf("%-22s %10.3f %10.3f %8.3f %8.2f %s\n", "report", plain, heat, ratio, GOAL_HEAT_RATIO,
	       ratio <= GOAL_HEAT_RATIO ? "ok" : "OVER");
	if (strcmp(fig[0], fig[1]) != 0) {
		printf("FAIL: the heatmaps changed the games (%s against %s)\n", fig[0], fig[1]);
		fail = 1;
	}

	/* (1) the full report */
	o.jobs = 2;
	double w0 = wall_s(), c0 = bench_cpu_s();
	cm_balance_report *rep = run(m, deck, &o);
	double wall = wall_s() - w0, cpu = bench_cpu_s() - c0;
	long long games = games_of(rep);
	int precise = 0;
	for (size_t i = 0; i < rep->n_cells; i++)
		precise += rep->cells[i].stop == CM_BALANCE_PRECISE;
	printf("full report: Germany, seats 2-5 x 3 start-square choices, greedy, +-1 pp, --jobs 2\n");
	printf("%-8s %8s %10s %10s %12s %10s %8s\n", "cells", "precise", "games", "CPU s", "games/CPU s", "wall s",
	       "CPU/2 s");
	printf("%-8zu %8d %10lld %10.1f %12.0f %10.1f %8.1f goal %.0f s on two cores %s\n", rep->n_cells, precise, games,
	       cpu, games / cpu, wall, cpu / 2, GOAL_FULL_S, cpu / 2 <= GOAL_FULL_S ? "ok" : "OVER");
	if (precise != (int)rep->n_cells)
		fail = 1;
	cm_balance_report_free(rep);
	cm_deck_free(deck);
	cm_workspace_free(w);
	cm_diags_free(d);
	return fail;
}
