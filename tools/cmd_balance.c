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
	        "                     random, greedy, mcts, mcts:N (default greedy; random\n"
	        "                     while this build has no greedy player)\n"
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
	        "  --format FMT       text (default) or json (schemas/balance-json.md)\n"
	        "  --map ID           the map when the input holds several\n"
	        "  --printing ED      the printing of the board, C2 or C3\n"
	        "  -T, --tilesets DIR search DIR for the tile sets the deck names\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap balance maps/germany --seats 2 --precision 3\n"
	        "  carcamap balance maps/iberia --seats 3 --starts 3,0:10,0:1,7 --precision 3 --format json\n"
	        "  carcamap balance maps/france --players random --compare none --seats 2,4\n"
	        "\n"
	        "Exit status: 0 reported, 1 problems in the input (a map with errors: its\n"
	        "diagnostics), 2 usage error (among them more seats than the map takes, a\n"
	        "square that is no start square, a precision of 0), 3 I/O or internal\n"
	        "failure, 130 interrupted (the report so far, marked partial).\n",
	        (long)CM_CHECK_MAX_GAMES, CM_BALANCE_MAX_GAMES);
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
static void print_interval(const cm_interval *v, double scale, int decimals, const char *unit, bool sign)
{
	if (isnan(v->value)) {
		printf("n/a");
		return;
	}
	printf(sign ? "%+.*f%s" : "%.*f%s", decimals, scale * v->value, unit);
	if (!isnan(v->lo))
		printf(sign ? " [%+.*f, %+.*f]" : " [%.*f, %.*f]", decimals, scale * v->lo, decimals, scale * v->hi);
}

static void print_starts(const cm_balance_report *r, const cm_balance_cell *c)
{
	for (int i = 0; i < c->n_starts; i++)
		printf("%s(%d,%d)", i ? " " : "", c->starts[i] % r->cols, c->starts[i] / r->cols);
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

static void print_verdict(const cm_balance_cell *c)
{
	printf("%s: seat %d wins ", cm_balance_verdict_name(c->verdict), c->best);
	print_interval(&c->gap, 100, 1, " pp", false);
	printf(" more than seat %d; ", c->worst);
	if (c->sure)
		printf("the gap's interval lies %s the tolerance", c->verdict == CM_BALANCE_FAIR ? "below" : "above");
	else
		printf("not sure: the gap's interval reaches %s the tolerance",
		       c->verdict == CM_BALANCE_FAIR ? "above" : "below");
}

static void print_cell(const cm_balance_report *r, const cm_balance_cell *c)
{
	char buf[256];
	printf("\n%d seats, start squares ", c->seats);
	print_starts(r, c);
	printf(", %s players: ", strength_players(r, c->strength, buf, sizeof buf));
	if (c->stop == CM_BALANCE_NOT_RUN) {
		printf("not played\n");
		return;
	}
	printf("%lld games in %lld groups, %s\n", c->games, c->groups,
	       c->stop == CM_BALANCE_PRECISE ? "stopped at the precision"
	       : c->stop == CM_BALANCE_CAPPED ? "stopped at --max-games, before the precision"
	                                      : "interrupted");
	for (int p = 0; p < c->seats; p++) {
		const char *who = c->strength ? r->compare : r->players[r->n_players > 1 ? p : 0];
		printf("  seat %d (%s): wins ", p, who);
		print_interval(&c->win[p], 100, 1, "%", false);
		printf(", score ");
		print_interval(&c->score[p], 1, 1, "", false);
		printf("\n");
	}
	printf("  first-seat advantage ");
	print_interval(&c->first_seat_advantage, 100, 1, " pp", true);
	printf(", balance ");
	print_interval(&c->balance, 1, 3, "", false);
	printf("\n  draws ");
	print_interval(&c->draws, 100, 1, "%", false);
	printf(", game length ");
	print_interval(&c->length, 1, 1, " turns", false);
	printf(", lead changes ");
	print_interval(&c->lead_changes, 1, 2, " a game", false);
	printf("\n  ");
	print_verdict(c);
	printf("%s%s\n", c->fairest ? "; the fairest choice for this seat count" : "",
	       c->flagged ? "; FLAGGED: the other strength's verdict differs" : "");
}

static void print_text(const cm_balance_report *r, const char *rules)
{
	char buf[256];
	printf("map %s: balance of %s players", r->map, strength_players(r, 0, buf, sizeof buf));
	if (r->compare)
		printf(", compared with %s players", r->compare);
	printf("\nseed %llu, precision +-%.2g pp, tolerance %.2g pp, at most %ld games a cell\n",
	       (unsigned long long)r->seed, 100 * r->precision, 100 * r->tolerance, r->max_games);
	printf("rules: %s\n", rules);
	if (r->partial)
		printf("PARTIAL: interrupted; the cells not finished are marked\n");
	for (size_t i = 0; i < r->n_cells; i++)
		print_cell(r, &r->cells[i]);
	printf("\nsummary\n%-6s %-22s %-9s %8s %-9s %-8s %s\n", "seats", "start squares", "players", "games", "balance",
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
		printf("%-6d %-22s %-9s %8lld ", c->seats, st, strength_players(r, c->strength, buf, sizeof buf), c->games);
		if (c->stop == CM_BALANCE_NOT_RUN || isnan(c->balance.value))
			printf("%-9s %-8s\n", "-", "-");
		else
			printf("%-9.3f %-8s %s%s\n", c->balance.value, cm_balance_verdict_name(c->verdict),
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

static int print_json(const cm_balance_report *r, const char *rules)
{
	cm_json *j = cli_json_begin("carcamap-balance", "1.0");
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
	return cli_json_end(j);
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
	const char *starts_text = NULL, *players_text = NULL, *compare = NULL;
	const char *player_list[CM_MAX_PLAYERS];
	cli_format fmt = FMT_TEXT;
	long v;
	double x;
	cli_opts o = { .cmd = "balance", .opts = opts, .usage = usage, .tilesets = w, .printing = &t.printing };
	while ((c = cli_next_option(&o, argc, argv, ":hT:")) >= 0) {
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
			if (cli_parse_format("balance", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt) < 0)
				ec = EXIT_USAGE;
			break;
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
	int rc = cli_load_map(&t, w, argc - optind, argv + optind, d);
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
	cm_tileset **sets = NULL;
	size_t n_sets = 0;
	if (cm_workspace_map_sets(w, t.map, &sets, &n_sets)) {
		ec = EXIT_IO;
		goto done;
	}
	rc = cm_check_map(t.map, (const cm_tileset *const *)sets, n_sets, NULL, d);
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
	bo.interrupted = was_interrupted;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	if (isatty(2))
		bo.progress = progress;
	rc = cm_balance_run(t.map, t.deck, &bo, d, &rep);
	sigaction(SIGINT, &old, NULL);
	if (isatty(2))
		fprintf(stderr, "\r%*s\r", 72, "");
	if (!rc) {
		if (fmt == FMT_JSON)
			rc = print_json(rep, rules_text);
		else
			print_text(rep, rules_text);
		if (fflush(stdout) && !rc)
			rc = CM_EIO;
	}
	ec = cli_finish(d, FMT_TEXT, rc);
	if (!ec && rep && rep->partial)
		ec = EXIT_INTERRUPTED;
done:
	cm_balance_report_free(rep);
	free(players_buf);
	cm_deck_free(t.deck);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
