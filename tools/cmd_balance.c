/* SPDX-License-Identifier: MIT */
/* cmd_balance.c: `carcamap balance`: is a map fair to every seat, and
 * which start squares should the players use? The library plays and
 * answers (cm_balance_run, carcamap/balance.h); this file parses the
 * options, shows progress on a terminal, and prints the report as text
 * or JSON (schemas/balance-json.md). Ctrl-C prints the report so far,
 * marked partial, and exits 130. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

#define MAX_RULES 32
#define EXIT_INTERRUPTED 130

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap balance [options] (MAP.xml | PACK --map ID) [TILESETS...]\n"
	        "\n"
	        "Is the map fair to every seat, and which start squares should the players\n"
	        "use? For each number of seats and each choice of start squares the setup\n"
	        "allows (a cell), plays games in rotation groups (one shuffled pile and\n"
	        "setup dealt once per seat rotation, so that every seat draws every seat's\n"
	        "tiles once) and reports per seat the win rate (ties shared) and mean score\n"
	        "with 95%% confidence intervals, the first-seat advantage, the balance (1\n"
	        "minus the largest gap between two seats' win rates), draws, game length\n"
	        "and lead changes; a verdict per cell (fair when the gap is within the\n"
	        "tolerance, and whether its interval is sure of it), the fairest\n"
	        "start-square choice per seat count, and the cells whose verdict changes\n"
	        "with the players' strength.\n"
	        "A cell stops when every seat's win-rate interval is within the precision\n"
	        "(and every mean score's within that fraction of the score), or at\n"
	        "--max-games. The same inputs and seed give the same report for every\n"
	        "--jobs. The method: schemas/balance-json.md.\n"
	        "\n"
	        "Options:\n"
	        "  --seats LIST       seat counts, comma-separated (default 2,3,4,5: those the\n"
	        "                     map's deck takes)\n"
	        "  --starts X,Y:X,Y   play only this choice of start squares (as many as the\n"
	        "                     setup uses)\n"
	        "  --players P        the players: one spec for every seat, or one per seat\n"
	        "                     (comma-separated; one seat count then); specs are\n"
	        "                     random, greedy, mcts, mcts:N (default greedy)\n"
	        "  --compare P        a second strength on the same cells, one spec for every\n"
	        "                     seat, to flag verdicts that change with skill (default\n"
	        "                     random; none for no comparison)\n"
	        "  --precision PP     the win-rate intervals' half-width to reach, in\n"
	        "                     percentage points, above 0 and below 50 (default 1)\n"
	        "  --tolerance PP     the largest gap between seats a fair cell may have, in\n"
	        "                     percentage points (default 5)\n"
	        "  --max-games N      games per cell at most, 1..%ld (default %d)\n"
	        "  --seed S           group g of every cell plays the pile of seed S+g\n"
	        "                     (default 1)\n"
	        "  --rule NAME=VALUE  set a rule option (repeatable; see carcamap play --help)\n"
	        "  --jobs N           threads, 1..64 (default: the processors); the report is\n"
	        "                     the same for every N\n"
	        , (long)CM_CHECK_MAX_GAMES, CM_BALANCE_MAX_GAMES);
	fprintf(f,
	        "  --heatmaps         also per square (filled, turn filled, points) and per\n"
	        "                     printed big city, edge print, ferry and island\n"
	        "                     (connected, completed, scored) over the games of\n"
	        "                     --players; elements never connected or completed are\n"
	        "                     CM0605 warnings (always on with --format html)\n"
	        "  --fit-deck         also play decks of the map's mix and other sizes, and\n"
	        "                     recommend the tile range whose games fill 82%% to 87%%\n"
	        "                     of the playable squares (--players' first spec, the\n"
	        "                     smallest seat count, %d games a size)\n"
	        "  --curve FILE.svg   with --fit-deck: draw the fill curve\n"
	        "  --shard K/N        play only the cells i with i %% N = K - 1 and write a\n"
	        "                     partial result (a part) for --merge\n"
	        "  --merge            the files after the map are the parts of every shard\n"
	        "                     of this same request: report as one run would, byte\n"
	        "                     for byte, playing nothing but --fit-deck's games\n"
	        "  --format FMT       text (default), json (schemas/balance-json.md) or html\n"
	        "                     (the map with its heatmaps, the tables, the curve)\n"
	        "  -o, --output FILE  write the report (or the part) there (default: standard\n"
	        "                     output)\n"
	        "  --map ID           the map when the input holds several\n"
	        "  --printing ED      the printing of the board, C2 or C3\n"
	        "  -T, --tilesets DIR search DIR for the tile sets the deck names\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap balance maps/germany --seats 2 --precision 3\n"
	        "  carcamap balance maps/iberia --seats 3 --starts 3,0:10,0:1,7 --precision 3 --format json\n"
	        "  carcamap balance maps/france --players random --compare none --seats 2,4\n"
	        "  carcamap balance maps/taiwan --seats 2 --precision 4 --format html -o taiwan.html\n"
	        "  carcamap balance maps/nordics --seats 2 --precision 4 --fit-deck --curve fit.svg\n"
	        "  carcamap balance maps/benelux --seats 2,3 --precision 5 --shard 1/2 -o b1.part\n"
	        "  carcamap balance maps/benelux --seats 2,3 --precision 5 --shard 2/2 -o b2.part\n"
	        "  carcamap balance maps/benelux --seats 2,3 --precision 5 --merge b1.part b2.part\n"
	        "\n"
	        "Exit status: 0 reported, 1 problems in the input (a map with errors: its\n"
	        "diagnostics), 2 usage error (among them more seats than the map takes, a\n"
	        "square that is no start square, a precision of 0), 3 I/O or internal\n"
	        "failure, 130 interrupted (the report so far, marked partial).\n",
	        CM_FIT_GAMES);
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static bool was_interrupted(void *arg)
{
	(void)arg;
	return interrupted != 0;
}

/* Progress on a terminal only. */
static void progress(void *arg, const cm_balance_progress *p)
{
	(void)arg;
	fprintf(stderr, "\rbalance: %lld games, cells %d/%d, widest interval +-%.2f pp   ", p->games, p->cells_done,
	        p->cells, 100 * p->widest);
}

/* "8,2:8,7" into square indices of a cols-wide map; -1 on bad text. */
static int parse_starts(const char *text, int cols, int rows, int32_t *out, int max)
{
	int n = 0;
	const char *p = text;
	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);
		if (end == p || *end != ',' || x < 0)
			return -1;
		p = end + 1;
		long y = strtol(p, &end, 10);
		if (end == p || y < 0 || (*end && *end != ':'))
			return -1;
		if (n == max || x >= cols || y >= rows)
			return -2;
		out[n++] = (int32_t)(y * cols + x);
		p = *end ? end + 1 : end;
	}
	return n;
}

/* "2,4" into seat counts; -1 on bad text. */
static int parse_seats(const char *text, int *out, int max)
{
	int n = 0;
	char *dup = cli_strdup(text), *save = NULL;
	if (!dup)
		return -1;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long v = cli_parse_uint(t, CM_MAX_PLAYERS);
		if (v < 2 || n == max) {
			n = -1;
			break;
		}
		out[n++] = (int)v;
	}
	free(dup);
	return n;
}

/* A percentage-point option: above 0, at most max. -1 on bad text. */
static double parse_pp(const char *text, double max)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || *end || !(v > 0) || !(v < max) || !isfinite(v))
		return -1;
	return v / 100;
}

/* ---- text ---- */

/* A value and its interval: "48.0% [45.2, 50.9]". decimals places; unit
 * after the value; sign: with a + on positive values. */
static void print_interval(FILE *f, const cm_interval *v, double scale, int decimals, const char *unit, bool sign)
{
	if (isnan(v->value)) {
		fprintf(f, "n/a");
		return;
	}
	fprintf(f, sign ? "%+.*f%s" : "%.*f%s", decimals, scale * v->value, unit);
	if (!isnan(v->lo))
		fprintf(f, sign ? " [%+.*f, %+.*f]" : " [%.*f, %.*f]", decimals, scale * v->lo, decimals, scale * v->hi);
}

static void print_starts(FILE *f, const cm_balance_report *r, const cm_balance_cell *c)
{
	for (int i = 0; i < c->n_starts; i++)
		fprintf(f, "%s(%d,%d)", i ? " " : "", c->starts[i] % r->cols, c->starts[i] / r->cols);
}

static const char *strength_players(const cm_balance_report *r, int strength, char *buf, size_t size)
{
	if (strength)
		return r->compare;
	size_t at = 0;
	buf[0] = '\0';
	for (int p = 0; p < r->n_players && at < size; p++) {
		int k = snprintf(buf + at, size - at, "%s%s", p ? "," : "", r->players[p]);
		at += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

static void print_verdict(FILE *f, const cm_balance_cell *c)
{
	fprintf(f, "%s: seat %d wins ", cm_balance_verdict_name(c->verdict), c->best);
	print_interval(f, &c->gap, 100, 1, " pp", false);
	fprintf(f, " more than seat %d; ", c->worst);
	if (c->sure)
		fprintf(f, "the gap's interval lies %s the tolerance", c->verdict == CM_BALANCE_FAIR ? "below" : "above");
	else
		fprintf(f, "not sure: the gap's interval reaches %s the tolerance",
		       c->verdict == CM_BALANCE_FAIR ? "above" : "below");
}

static void print_cell(FILE *f, const cm_balance_report *r, const cm_balance_cell *c)
{
	char buf[256];
	fprintf(f, "\n%d seats, start squares ", c->seats);
	print_starts(f, r, c);
	fprintf(f, ", %s players: ", strength_players(r, c->strength, buf, sizeof buf));
	if (c->stop == CM_BALANCE_NOT_RUN) {
		fprintf(f, "not played\n");
		return;
	}
	fprintf(f, "%lld games in %lld groups, %s\n", c->games, c->groups,
	       c->stop == CM_BALANCE_PRECISE ? "stopped at the precision"
	       : c->stop == CM_BALANCE_CAPPED ? "stopped at --max-games, before the precision"
	                                      : "interrupted");
	for (int p = 0; p < c->seats; p++) {
		const char *who = c->strength ? r->compare : r->players[r->n_players > 1 ? p : 0];
		fprintf(f, "  seat %d (%s): wins ", p, who);
		print_interval(f, &c->win[p], 100, 1, "%", false);
		fprintf(f, ", score ");
		print_interval(f, &c->score[p], 1, 1, "", false);
		fprintf(f, "\n");
	}
	fprintf(f, "  first-seat advantage ");
	print_interval(f, &c->first_seat_advantage, 100, 1, " pp", true);
	fprintf(f, ", balance ");
	print_interval(f, &c->balance, 1, 3, "", false);
	fprintf(f, "\n  draws ");
	print_interval(f, &c->draws, 100, 1, "%", false);
	fprintf(f, ", game length ");
	print_interval(f, &c->length, 1, 1, " turns", false);
	fprintf(f, ", lead changes ");
	print_interval(f, &c->lead_changes, 1, 2, " a game", false);
	fprintf(f, "\n  ");
	print_verdict(f, c);
	fprintf(f, "%s%s\n", c->fairest ? "; the fairest choice for this seat count" : "",
	       c->flagged ? "; FLAGGED: the other strength's verdict differs" : "");
}

static const char *const side_names[] = { "N", "E", "S", "W" };

/* The printed elements' use. */
static void print_elements(FILE *f, const cm_balance_heat *h)
{
	fprintf(f, "\nprinted elements over %lld games (connected, completed, scored)\n", cm_balance_heat_games(h));
	for (size_t i = 0; i < cm_balance_heat_element_count(h); i++) {
		const cm_heat_element *e = cm_balance_heat_element(h, i);
		fprintf(f, "  %-7s %-24s (%d,%d)%s%s: ", cm_element_kind_name(e->kind), e->name ? e->name : "-", e->x, e->y,
		        e->side >= 0 ? " " : "", e->side >= 0 ? side_names[e->side & 3] : "");
		print_interval(f, &e->connected, 100, 1, "%", false);
		fprintf(f, ", ");
		print_interval(f, &e->completed, 100, 1, "%", false);
		fprintf(f, ", ");
		print_interval(f, &e->scored, 100, 1, "%", false);
		fprintf(f, "%s\n", !e->n_connected ? "  NEVER CONNECTED" : !e->n_completed ? "  NEVER COMPLETED" : "");
	}
}

static void print_fit(FILE *f, const cm_fit *fit)
{
	fprintf(f, "\ndeck fitting: %d games a size; criterion: the sizes whose games fill %.0f%% to %.0f%% of the %d "
	        "playable squares\n",
	        fit->games, 100 * fit->fill_low, 100 * fit->fill_high, fit->playable);
	if (fit->tiles_min >= 0)
		fprintf(f, "  recommended: %d-%d tiles", fit->tiles_min, fit->tiles_max);
	else
		fprintf(f, "  recommended: none (no size reaches a fill of %.0f%%)", 100 * fit->fill_low);
	if (fit->declared_min > 0)
		fprintf(f, "; declared: %d-%d%s", fit->declared_min, fit->declared_max,
		        cm_fit_far(fit) ? " (far from the recommendation)" : "");
	fprintf(f, "; the map's deck: %d tiles\n  %6s %6s %9s %8s\n", fit->deck, "tiles", "fill", "stranded", "placed");
	for (size_t i = 0; i < fit->n_curve; i++)
		fprintf(f, "  %6d %5.1f%% %8.1f%% %8.1f\n", fit->curve[i].size, 100 * fit->curve[i].fill,
		        100 * fit->curve[i].stranded, fit->curve[i].length);
}

static void print_text(FILE *f, const cm_balance_report *r, const char *rules)
{
	char buf[256];
	fprintf(f, "map %s: balance of %s players", r->map, strength_players(r, 0, buf, sizeof buf));
	if (r->compare)
		fprintf(f, ", compared with %s players", r->compare);
	fprintf(f, "\nseed %llu, precision +-%.2g pp, tolerance %.2g pp, at most %ld games a cell\n",
	       (unsigned long long)r->seed, 100 * r->precision, 100 * r->tolerance, r->max_games);
	fprintf(f, "rules: %s\n", rules);
	if (r->partial)
		fprintf(f, "PARTIAL: interrupted; the cells not finished are marked\n");
	for (size_t i = 0; i < r->n_cells; i++)
		print_cell(f, r, &r->cells[i]);
	fprintf(f, "\nsummary\n%-6s %-22s %-9s %8s %-9s %-8s %s\n", "seats", "start squares", "players", "games", "balance",
	       "verdict", "");
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_cell *c = &r->cells[i];
		char st[64] = "";
		size_t at = 0;
		for (int k = 0; k < c->n_starts && at < sizeof st; k++) {
			int w = snprintf(st + at, sizeof st - at, "%s(%d,%d)", k ? " " : "", c->starts[k] % r->cols,
			                 c->starts[k] / r->cols);
			at += w > 0 ? (size_t)w : 0;
		}
		fprintf(f, "%-6d %-22s %-9s %8lld ", c->seats, st, strength_players(r, c->strength, buf, sizeof buf), c->games);
		if (c->stop == CM_BALANCE_NOT_RUN || isnan(c->balance.value))
			fprintf(f, "%-9s %-8s\n", "-", "-");
		else
			fprintf(f, "%-9.3f %-8s %s%s\n", c->balance.value, cm_balance_verdict_name(c->verdict),
			       c->fairest ? "fairest" : "", c->flagged ? (c->fairest ? ", flagged" : "flagged") : "");
	}
}

/* ---- JSON ---- */

static void json_interval(cm_json *j, const char *key, const char *ci_key, const cm_interval *v)
{
	cm_json_key(j, key);
	isnan(v->value) ? cm_json_null(j) : cm_json_fixed(j, v->value, 4);
	cm_json_key(j, ci_key);
	if (isnan(v->lo)) {
		cm_json_null(j);
		return;
	}
	cm_json_arr_begin(j);
	cm_json_fixed(j, v->lo, 4);
	cm_json_fixed(j, v->hi, 4);
	cm_json_arr_end(j);
}

/* The figures of one strength of a cell. */
static void json_figures(cm_json *j, const cm_balance_report *r, const cm_balance_cell *c)
{
	cm_json_kv_int(j, "games", c->games);
	cm_json_kv_int(j, "groups", c->groups);
	cm_json_kv_str(j, "stop", cm_balance_stop_name(c->stop));
	cm_json_key(j, "per_seat");
	cm_json_arr_begin(j);
	for (int p = 0; p < c->seats && c->stop != CM_BALANCE_NOT_RUN; p++) {
		cm_json_obj_begin(j);
		cm_json_kv_int(j, "seat", p);
		cm_json_kv_str(j, "player", c->strength ? r->compare : r->players[r->n_players > 1 ? p : 0]);
		json_interval(j, "win_rate", "win_ci", &c->win[p]);
		json_interval(j, "mean_score", "score_ci", &c->score[p]);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	bool run = c->stop != CM_BALANCE_NOT_RUN;
	static const cm_interval none = { NAN, NAN, NAN };
	json_interval(j, "balance", "balance_ci", run ? &c->balance : &none);
	json_interval(j, "first_seat_advantage", "first_seat_advantage_ci", run ? &c->first_seat_advantage : &none);
	cm_json_key(j, "gap");
	cm_json_obj_begin(j);
	cm_json_key(j, "seats");
	if (run) {
		cm_json_arr_begin(j);
		cm_json_int(j, c->best);
		cm_json_int(j, c->worst);
		cm_json_arr_end(j);
	} else {
		cm_json_null(j);
	}
	json_interval(j, "value", "ci", run ? &c->gap : &none);
	cm_json_obj_end(j);
	json_interval(j, "draws", "draws_ci", run ? &c->draws : &none);
	json_interval(j, "game_length", "game_length_ci", run ? &c->length : &none);
	json_interval(j, "lead_changes", "lead_changes_ci", run ? &c->lead_changes : &none);
	cm_json_kv_str(j, "verdict", run && c->groups > 1 ? cm_balance_verdict_name(c->verdict) : NULL);
	cm_json_kv_bool(j, "sure", run && c->sure);
	cm_json_kv_bool(j, "fairest", c->fairest);
}

/* The cell of the other strength that matches c, or NULL. */
static const cm_balance_cell *other_strength(const cm_balance_report *r, const cm_balance_cell *c)
{
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_cell *e = &r->cells[i];
		if (e->strength != c->strength && e->seats == c->seats && e->n_starts == c->n_starts &&
		    memcmp(e->starts, c->starts, (size_t)c->n_starts * sizeof *c->starts) == 0)
			return e;
	}
	return NULL;
}

/* The heatmaps: each square that takes tiles or is a big city's, then
 * the printed elements. */
static void json_heat(cm_json *j, const cm_map *m, const cm_balance_heat *h)
{
	cm_json_key(j, "heatmaps");
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "games", cm_balance_heat_games(h));
	cm_json_key(j, "squares");
	cm_json_arr_begin(j);
	for (int y = 0; y < cm_map_rows(m); y++)
		for (int x = 0; x < cm_map_cols(m); x++) {
			const cm_square *q = cm_map_at(m, x, y);
			if (!cm_square_kind_playable((cm_square_kind)q->kind) && q->kind != CM_SQ_BIGCITY)
				continue;
			cm_json_obj_begin(j);
			cm_json_key(j, "square");
			cm_json_arr_begin(j);
			cm_json_int(j, x);
			cm_json_int(j, y);
			cm_json_arr_end(j);
			static const char *const keys[3][2] = { { "fill", "fill_ci" }, { "turn", "turn_ci" },
				                                { "points", "points_ci" } };
			for (int k = 0; k < 3; k++) {
				cm_interval v = { NAN, NAN, NAN };
				cm_balance_heat_square(h, (cm_heat_kind)k, x, y, &v);
				json_interval(j, keys[k][0], keys[k][1], &v);
			}
			cm_json_obj_end(j);
		}
	cm_json_arr_end(j);
	cm_json_key(j, "elements");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < cm_balance_heat_element_count(h); i++) {
		const cm_heat_element *e = cm_balance_heat_element(h, i);
		cm_json_obj_begin(j);
		cm_json_kv_str(j, "kind", cm_element_kind_name(e->kind));
		cm_json_kv_str(j, "name", e->name);
		cm_json_key(j, "square");
		cm_json_arr_begin(j);
		cm_json_int(j, e->x);
		cm_json_int(j, e->y);
		cm_json_arr_end(j);
		cm_json_kv_str(j, "side", e->side >= 0 ? side_names[e->side & 3] : NULL);
		json_interval(j, "connected", "connected_ci", &e->connected);
		json_interval(j, "completed", "completed_ci", &e->completed);
		json_interval(j, "scored", "scored_ci", &e->scored);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	cm_json_obj_end(j);
}

static void json_fit(cm_json *j, const cm_fit *fit)
{
	cm_json_key(j, "deck_fit");
	cm_json_obj_begin(j);
	cm_json_key(j, "tiles_min");
	fit->tiles_min >= 0 ? cm_json_int(j, fit->tiles_min) : cm_json_null(j);
	cm_json_key(j, "tiles_max");
	fit->tiles_max >= 0 ? cm_json_int(j, fit->tiles_max) : cm_json_null(j);
	char crit[160];
	snprintf(crit, sizeof crit, "the deck sizes whose games fill %.0f%% to %.0f%% of the playable squares on average",
	         100 * fit->fill_low, 100 * fit->fill_high);
	cm_json_kv_str(j, "criterion", crit);
	cm_json_kv_fixed(j, "fill_low", fit->fill_low, 4);
	cm_json_kv_fixed(j, "fill_high", fit->fill_high, 4);
	cm_json_key(j, "declared");
	if (fit->declared_min > 0) {
		cm_json_arr_begin(j);
		cm_json_int(j, fit->declared_min);
		cm_json_int(j, fit->declared_max);
		cm_json_arr_end(j);
	} else {
		cm_json_null(j);
	}
	cm_json_kv_bool(j, "far", cm_fit_far(fit));
	cm_json_kv_int(j, "deck", fit->deck);
	cm_json_kv_int(j, "playable", fit->playable);
	cm_json_kv_int(j, "games", fit->games);
	cm_json_key(j, "curve");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < fit->n_curve; i++) {
		cm_json_obj_begin(j);
		cm_json_kv_int(j, "tiles", fit->curve[i].size);
		cm_json_kv_fixed(j, "fill", fit->curve[i].fill, 4);
		cm_json_kv_fixed(j, "stranded", fit->curve[i].stranded, 4);
		cm_json_kv_fixed(j, "placed", fit->curve[i].length, 4);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	cm_json_obj_end(j);
}

static int print_json(FILE *f, const cm_map *m, const cm_balance_report *r, const cm_fit *fit, const char *rules)
{
	cm_json *j = cli_json_begin(f, "carcamap-balance", "1.1");
	if (!j)
		return CM_ENOMEM;
	cm_json_kv_str(j, "map", r->map);
	cm_json_key(j, "players");
	cm_json_arr_begin(j);
	for (int p = 0; p < r->n_players; p++)
		cm_json_str(j, r->players[p]);
	cm_json_arr_end(j);
	cm_json_kv_str(j, "compare", r->compare);
	cm_json_kv_int(j, "seed", (long long)r->seed);
	cm_json_kv_fixed(j, "precision", r->precision, 6);
	cm_json_kv_fixed(j, "tolerance", r->tolerance, 6);
	cm_json_kv_int(j, "max_games", r->max_games);
	cm_json_kv_str(j, "rules", rules);
	cm_json_kv_bool(j, "partial", r->partial);
	cm_json_key(j, "cells");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_cell *c = &r->cells[i];
		if (c->strength)
			continue;
		cm_json_obj_begin(j);
		cm_json_kv_int(j, "seats", c->seats);
		cm_json_key(j, "starts");
		cm_json_arr_begin(j);
		for (int k = 0; k < c->n_starts; k++) {
			cm_json_arr_begin(j);
			cm_json_int(j, c->starts[k] % r->cols);
			cm_json_int(j, c->starts[k] / r->cols);
			cm_json_arr_end(j);
		}
		cm_json_arr_end(j);
		json_figures(j, r, c);
		cm_json_kv_bool(j, "flagged", c->flagged);
		const cm_balance_cell *e = other_strength(r, c);
		cm_json_key(j, "compare");
		if (e) {
			cm_json_obj_begin(j);
			json_figures(j, r, e);
			cm_json_obj_end(j);
		} else {
			cm_json_null(j);
		}
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	if (r->heat)
		json_heat(j, m, r->heat);
	if (fit)
		json_fit(j, fit);
	return cli_json_end(j);
}

/* What the report is written from. */
typedef struct {
	cli_format fmt;
	const cm_map *m;
	const cm_balance_report *r;
	const cm_fit *fit;
	const char *rules;
} report_out;

static int write_report(FILE *f, void *arg)
{
	const report_out *o = arg;
	if (o->fmt == FMT_JSON)
		return print_json(f, o->m, o->r, o->fit, o->rules);
	print_text(f, o->r, o->rules);
	if (o->r->heat)
		print_elements(f, o->r->heat);
	if (o->fit)
		print_fit(f, o->fit);
	return ferror(f) ? CM_EIO : 0;
}

static int write_part(FILE *f, void *arg)
{
	return cm_balance_part_write(arg, f);
}

/* Whether path is a balance part (its first line). */
static bool is_part(const char *path)
{
	static const char magic[] = "carcamap-balance-part 1\n";
	char buf[sizeof magic] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof magic - 1, f);
	fclose(f);
	return n == sizeof magic - 1 && memcmp(buf, magic, n) == 0;
}

/* The default players: greedy when this build has it, else random. */
static const char *default_players(void)
{
	cm_player *p = NULL;
	int rc = cm_player_new_from_spec("greedy", &p);
	cm_player_free(p);
	return rc == 0 ? "greedy" : "random";
}

int cmd_balance(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seats", required_argument, NULL, 'S' },
		{ "starts", required_argument, NULL, 's' },
		{ "players", required_argument, NULL, 'p' },
		{ "compare", required_argument, NULL, 'c' },
		{ "precision", required_argument, NULL, 'e' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "max-games", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 'r' },
		{ "rule", required_argument, NULL, 'R' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "heatmaps", no_argument, NULL, 'H' },
		{ "fit-deck", no_argument, NULL, 'F' },
		{ "curve", required_argument, NULL, 'C' },
		{ "shard", required_argument, NULL, 'k' },
		{ "merge", no_argument, NULL, 'M' },
		{ "map", required_argument, NULL, 'm' },
		{ "printing", required_argument, NULL, 'P' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cli_target t = { .cmd = "balance", .decks = 1, .build_deck = 1 };
	cm_balance_report *rep = NULL;
	cm_fit *fit = NULL;
	cm_balance_part **parts = NULL;
	size_t n_parts = 0;
	char **inputs = NULL;
	char *players_buf = NULL;
	if (cm_diags_new(&d) || cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	cm_balance_opts bo;
	cm_balance_opts_init(&bo);
	bo.jobs = cli_default_jobs();
	char *rule_args[MAX_RULES];
	int n_rules = 0, seats[CM_MAX_PLAYERS], n_seats = 0, ec = EXIT_CLEAN, c;
	const char *starts_text = NULL, *players_text = NULL, *compare = NULL, *out = NULL, *curve = NULL;
	bool heatmaps = false, fit_deck = false, merge = false, format_given = false, html = false;
	const char *player_list[CM_MAX_PLAYERS];
	cli_format fmt = FMT_TEXT;
	long v;
	double x;
	cli_opts o = { .cmd = "balance", .opts = opts, .usage = usage, .tilesets = w, .printing = &t.printing };
	while ((c = cli_next_option(&o, argc, argv, ":hT:o:")) >= 0) {
		switch (c) {
		case 'S':
			if ((n_seats = parse_seats(optarg, seats, CM_MAX_PLAYERS)) < 1)
				ec = cli_usage_error("balance", "--seats takes seat counts from 2 to %d, comma-separated, not '%s'",
				                     CM_MAX_PLAYERS, optarg);
			break;
		case 's': starts_text = optarg; break;
		case 'p': players_text = optarg; break;
		case 'c': compare = optarg; break;
		case 'e':
			if ((x = parse_pp(optarg, 50)) < 0)
				ec = cli_usage_error("balance", "--precision takes percentage points above 0 and below 50, not '%s'",
				                     optarg);
			bo.precision = x;
			break;
		case 't':
			if ((x = parse_pp(optarg, 100.0000001)) < 0)
				ec = cli_usage_error("balance", "--tolerance takes percentage points above 0, at most 100, not '%s'",
				                     optarg);
			bo.tolerance = x;
			break;
		case 'g':
			if ((v = cli_parse_uint(optarg, CM_CHECK_MAX_GAMES)) < 1)
				ec = cli_usage_error("balance", "--max-games takes a whole number from 1 to %ld, not '%s'",
				                     (long)CM_CHECK_MAX_GAMES, optarg);
			bo.max_games = v;
			break;
		case 'r':
			if ((v = cli_parse_uint(optarg, LONG_MAX)) < 0)
				ec = cli_usage_error("balance", "--seed takes a whole number, not '%s'", optarg);
			bo.seed = (uint64_t)v;
			break;
		case 'R':
			if (n_rules == MAX_RULES)
				ec = cli_usage_error("balance", "more than %d --rule options", MAX_RULES);
			else
				rule_args[n_rules++] = optarg;
			break;
		case 'j': ec = cli_parse_jobs("balance", optarg, &bo.jobs); break;
		case 'f':
			format_given = true;
			html = strcmp(optarg, "html") == 0;
			if (!html && strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0)
				ec = cli_usage_error("balance", "unknown output format '%s' (use text, json, html)", optarg);
			else if (!html && cli_parse_format("balance", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt) < 0)
				ec = EXIT_USAGE;
			break;
		case 'o': out = optarg; break;
		case 'H': heatmaps = true; break;
		case 'F': fit_deck = true; break;
		case 'C': {
			size_t n = strlen(optarg);
			curve = optarg;
			fit_deck = true;
			if (n < 4 || strcmp(optarg + n - 4, ".svg") != 0)
				ec = cli_usage_error("balance", "--curve draws an SVG: give a FILE.svg, not '%s'", optarg);
			break;
		}
		case 'M': merge = true; break;
		case 'k': {
			char *end;
			long k = strtol(optarg, &end, 10), n = *end == '/' ? strtol(end + 1, &end, 10) : 0;
			if (*end || k < 1 || n < 1 || k > n || n > CM_BALANCE_MAX_CELLS)
				ec = cli_usage_error("balance", "--shard takes K/N with 1 <= K <= N <= %d, not '%s'",
				                     CM_BALANCE_MAX_CELLS, optarg);
			bo.shard = (int)k;
			bo.shards = (int)n;
			break;
		}
		case 'm': t.map_id = optarg; break;
		}
		if (ec)
			goto done;
	}
	if (c == CLI_STOP) {
		ec = o.status;
		goto done;
	}
	if (optind >= argc) {
		ec = cli_usage_error("balance", "no map to study");
		goto done;
	}
	if (bo.shards && (merge || fit_deck || format_given)) {
		ec = cli_usage_error("balance", "--shard writes a part for --merge: --fit-deck, --format and --merge go "
		                                "with --merge, not with --shard");
		goto done;
	}
	bool stream = false;
	if ((ec = cli_output_check("balance", "-o", out, NULL, false, &stream)) != 0 ||
	    (ec = cli_output_check("balance", "--curve", curve, NULL, false, &stream)) != 0)
		goto done;
	/* with --merge, the parts among the files (by their first line) */
	int n_in = 0;
	if (!(inputs = calloc((size_t)(argc - optind) + 1, sizeof *inputs)) ||
	    !(parts = calloc((size_t)(argc - optind) + 1, sizeof *parts))) {
		ec = EXIT_IO;
		goto done;
	}
	for (int i = optind; i < argc; i++) {
		if (merge && is_part(argv[i])) {
			int prc = cm_balance_part_read(argv[i], d, &parts[n_parts]);
			if (prc) {
				ec = cli_finish(d, FMT_TEXT, prc);
				goto done;
			}
			n_parts++;
		} else {
			inputs[n_in++] = argv[i];
		}
	}
	if (merge && !n_parts) {
		ec = cli_usage_error("balance", "--merge needs the parts written by --shard after the map");
		goto done;
	}
	if (n_in == 0) {
		ec = cli_usage_error("balance", "no map to study");
		goto done;
	}
	/* the players: one spec for every seat, or one per seat */
	if (!players_text)
		players_text = default_players();
	if (!(players_buf = cli_strdup(players_text))) {
		ec = EXIT_IO;
		goto done;
	}
	int n_players = 0;
	char *save = NULL;
	for (char *p = strtok_r(players_buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (n_players == CM_MAX_PLAYERS) {
			ec = cli_usage_error("balance", "--players names more than %d seats", CM_MAX_PLAYERS);
			goto done;
		}
		player_list[n_players++] = p;
	}
	if (n_players == 0) {
		ec = cli_usage_error("balance", "--players takes player specs (%s)", CM_PLAYER_SPEC_FORMS);
		goto done;
	}
	bo.players = player_list;
	bo.n_players = (size_t)n_players;
	if (!compare)
		compare = "random";
	/* no comparison with the same players */
	if (strcmp(compare, "none") != 0 && !(n_players == 1 && strcmp(compare, player_list[0]) == 0))
		bo.compare = compare;
	if (n_seats) {
		bo.seats = seats;
		bo.n_seats = (size_t)n_seats;
	}
	int rc = cli_load_map(&t, w, n_in, inputs, d);
	if (rc == CLI_NO_MAP) {
		ec = EXIT_USAGE;
		goto done;
	}
	if (rc || !t.map) {
		ec = cli_finish(d, FMT_TEXT, rc ? rc : CM_EINVAL);
		goto done;
	}
	/* a map with errors is refused with its diagnostics: the checks of
	 * `carcamap check` (structure, playability), before any game */
	const cm_tileset **sets = NULL;
	size_t n_sets = 0;
	if (cm_workspace_map_sets(w, t.map, &sets, &n_sets)) {
		ec = EXIT_IO;
		goto done;
	}
	rc = cm_check_map(t.map, sets, n_sets, NULL, d);
	free(sets);
	if (rc || cm_diags_errors(d)) {
		ec = cli_finish(d, FMT_TEXT, rc ? rc : CM_EINVAL);
		goto done;
	}
	cm_diags_clear(d); /* warnings are check's to tell */
	cm_rules rules = *cm_map_rules(t.map);
	if ((ec = cli_apply_rules("balance", rule_args, n_rules, &rules)) != 0)
		goto done;
	bo.rules = &rules;
	int32_t pinned[CM_MAX_PLAYERS * 8];
	if (starts_text) {
		int n = parse_starts(starts_text, cm_map_cols(t.map), cm_map_rows(t.map), pinned, (int)(sizeof pinned / sizeof pinned[0]));
		if (n < 1) {
			ec = cli_usage_error("balance", n == -2 ? "--starts names a square off the map, or too many: '%s'"
			                                        : "--starts takes squares X,Y separated by ':', not '%s'",
			                     starts_text);
			goto done;
		}
		bo.starts = pinned;
		bo.n_starts = (size_t)n;
	}
	if ((rc = cm_balance_check_request(t.map, t.deck, &bo, d)) != 0) {
		for (size_t i = 0; i < cm_diags_count(d); i++)
			fprintf(stderr, "carcamap balance: %s\n", cm_diags_get(d, i)->message);
		fprintf(stderr, "Try 'carcamap balance --help' for more information.\n");
		ec = rc == CM_ENOMEM ? EXIT_IO : EXIT_USAGE;
		goto done;
	}
	char rules_text[256];
	cm_rules_format(&rules, rules_text, sizeof rules_text);
	/* parts must come from the same map: its content hash names it */
	uint8_t hash[32];
	char key[65] = "";
	if (cm_workspace_map_hash(w, t.map, hash) == 0)
		for (int i = 0; i < 32; i++)
			snprintf(key + 2 * i, 3, "%02x", hash[i]);
	bo.map_key = key[0] ? key : NULL;
	bo.heat = heatmaps || html;
	bo.parts = (const cm_balance_part *const *)parts;
	bo.n_parts = n_parts;
	bo.interrupted = was_interrupted;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	if (isatty(2))
		bo.progress = progress;
	rc = cm_balance_run(t.map, t.deck, &bo, d, &rep);
	if (!rc && fit_deck && !rep->partial) {
		/* the deck fitting: --players' first spec in every seat, the
		 * smallest seat count */
		const char *fit_specs[CM_MAX_PLAYERS];
		for (int p = 0; p < CM_MAX_PLAYERS; p++)
			fit_specs[p] = player_list[0];
		cm_fit_opts fo;
		cm_fit_opts_init(&fo);
		fo.rules = &rules;
		fo.seats = rep->n_cells ? rep->cells[0].seats : 2;
		fo.players = fit_specs;
		fo.seed = bo.seed;
		fo.jobs = bo.jobs;
		rc = cm_fit_deck(t.map, t.deck, &fo, d, &fit);
		if (!rc && curve)
			rc = cm_fit_write_svg(fit, cm_map_name(t.map) ? cm_map_name(t.map) : cm_map_id(t.map), curve, d);
	}
	sigaction(SIGINT, &old, NULL);
	if (isatty(2))
		fprintf(stderr, "\r%*s\r", 72, "");
	if (!rc && rep->heat)
		cm_balance_heat_findings(rep->heat, t.map, d);
	if (!rc && bo.shards) {
		rc = cm_file_write(out, write_part, rep, d);
	} else if (!rc && html) {
		rc = cm_balance_write_html(t.map, rep, fit, rules_text, out, d);
	} else if (!rc) {
		report_out ro = { fmt, t.map, rep, fit, rules_text };
		rc = cm_file_write(out, write_report, &ro, d);
	}
	ec = cli_finish(d, FMT_TEXT, rc);
	if (!ec && rep && rep->partial)
		ec = EXIT_INTERRUPTED;
done:
	for (size_t i = 0; i < n_parts; i++)
		cm_balance_part_free(parts[i]);
	free(parts);
	free(inputs);
	cm_fit_free(fit);
	cm_balance_report_free(rep);
	free(players_buf);
	cm_deck_free(t.deck);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
