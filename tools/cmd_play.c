/* SPDX-License-Identifier: MIT */
/* cmd_play.c: `carcamap play`: plays many games on a map with the
 * library's players (cm_play_run; random unless --players says) and prints
 * the statistics as text or JSON (schemas/play-json.md); can save the
 * first game as a replay. */
#include <getopt.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "carcamap/replay.h"
#include "carcamap/stats.h"

#define MAX_GAMES ((long)CM_CHECK_MAX_GAMES) /* the same range as check --games */
#define MAX_RULES 32

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap play [options] (MAP.xml | PACK --map ID) [TILESETS...]\n"
	        "\n"
	        "Plays games on a map and reports the tiles placed (besides the setup\n"
	        "tiles), the squares filled and never filled, the stranded tiles (drawn\n"
	        "tiles that fit nowhere, put aside), the points per feature kind, and per\n"
	        "seat its player, mean score and wins. By default every seat is the random\n"
	        "player (each turn a placement chosen uniformly among the legal ones, a\n"
	        "follower deployed half the time). The same inputs and seed give the same\n"
	        "report.\n"
	        "\n"
	        "Options:\n"
	        "  --games N          games to play, 1..%ld (default 100)\n"
	        "  --seed S           seed of the first game; game i uses S+i (default 1)\n"
	        "  --players P        the seats' players, one per seat, comma-separated:\n"
	        "                     random, greedy, mcts or mcts:N (N playouts per move,\n"
	        "                     1 to %d; mcts alone: %d, about a second per\n"
	        "                     Germany game of two mcts seats on one core); one\n"
	        "                     player for every seat (with --seats); or a number\n"
	        "                     of random seats, 2..6\n"
	        "                     (default 2 random seats)\n"
	        "  --seats N          seats, 2..6: with one player in --players, every\n"
	        "                     seat plays it; with a list, its length must be N\n"
	        "  --rule NAME=VALUE  set a rule option (repeatable): edition=C1|C2|C3,\n"
	        "                     farmers=C1|C2, tiny-city, farmers-bigcity,\n"
	        "                     town-extra-turn, town-cost, town-road-bonus,\n"
	        "                     abbey-edge, wagons = yes|no (wagons: each player\n"
	        "                     has a wagon; a deck with the abbey tile deals one\n"
	        "                     abbey per player)\n"
	        "  --jobs N           play on N threads, 1..64 (default: the processors);\n"
	        "                     games are split by seed, so the report is the same\n"
	        "                     for every N\n"
	        "  --all-squares      list every square never filled (text; by default the\n"
	        "                     first 20 and how many more)\n"
	        "  --replay FILE      write the first game as a replay (schemas/replay.md)\n"
	        "  --format FMT       text (default) or json (schemas/play-json.md)\n"
	        "  --map ID           the map to play when the input holds several\n"
	        "  --printing ED      the printing of the board, C2 or C3 (maps/README.md:\n"
	        "                     a descriptor may describe both; default: its first)\n"
	        "  -T, --tilesets DIR search DIR for the tile sets the deck names\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap play maps/benelux/benelux.xml --games 1000\n"
	        "  carcamap play maps/france/france.xml --players 4 --format json\n"
	        "  carcamap play maps/germany/germany.xml --players greedy,random --games 200\n"
	        "  carcamap play maps/germany/germany.xml --players greedy --seats 4\n"
	        "  carcamap play maps/germany/germany.xml --players mcts:200,greedy --games 10\n"
	        "  carcamap play my-map.xml --rule farmers=C1 --replay game1.txt\n"
	        "\n"
	        "Exit status: 0 played, 1 problems in the input, 2 usage error, 3 I/O or\n"
	        "internal failure.\n", MAX_GAMES, CM_PLAYER_MAX_BUDGET, CM_PLAYER_MCTS_BUDGET);
}

/* Progress on a terminal only: "\rplaying 340/1000", about 100 updates. */
static void progress(void *arg, int done, int games)
{
	(void)arg;
	int step = games / 100 > 0 ? games / 100 : 1;
	if (done % step == 0 || done == games)
		fprintf(stderr, "\rplaying %d/%d", done, games);
	if (done == games)
		fprintf(stderr, "\r%*s\r", 40, "");
}

static double mean(long long sum, int games)
{
	return (double)sum / games;
}

/* Points of the kinds the report does not name: gardens, abbeys, island
 * coats of arms and town costs. */
static long long other_points(const cm_play_stats *s)
{
	long long v = s->points_island + s->points_town;
	for (int k = 0; k < CM_FEAT_KIND_COUNT; k++)
		if (k != CM_FEAT_ROAD && k != CM_FEAT_CITY && k != CM_FEAT_MONASTERY && k != CM_FEAT_FIELD)
			v += s->points_kind[k];
	return v;
}

static int never_filled(const cm_play_stats *s)
{
	int n = 0;
	for (int i = 0; i < s->cols * s->rows; i++)
		n += s->fill[i] == 0;
	return n;
}

/* The seats: who plays each. */
typedef struct {
	int n;
	const char *spec[CM_MAX_PLAYERS]; /* as given ("random" for a number of seats) */
	bool random;                      /* --players N (or none): random play */
	char *buf;                        /* owns the pieces of --players */
} seat_list;

#define FORMS "players are " CM_PLAYER_SPEC_FORMS

/* One spec of --players: 0, or a usage error. */
static int check_spec(const char *spec)
{
	cm_player_spec sp;
	int rc = cm_player_spec_parse(spec, &sp);
	if (rc == CM_ENOTFOUND)
		return cli_usage_error("play", "unknown player '%s' in --players; %s", spec, FORMS);
	if (rc < 0)
		return cli_usage_error("play", "player '%s': N must be a whole number from 1 to %d; %s", spec,
		                       CM_PLAYER_MAX_BUDGET, FORMS);
	cm_player *pl = NULL;
	rc = cm_player_new(&sp, &pl);
	cm_player_free(pl);
	if (rc == CM_ENOTSUP)
		return cli_usage_error("play", "player '%s' is not available in this build yet; %s", spec, FORMS);
	return rc < 0 ? EXIT_IO : 0;
}

/* --players (NULL: not given) and --seats (-1: not given) into sl. */
static int parse_seats(const char *players, long seats, seat_list *sl)
{
	int listed = 0; /* seats --players fixes: 0 none (one player, or not given) */
	sl->n = seats >= 0 ? (int)seats : 2;
	sl->random = true;
	if (players && players[strspn(players, "0123456789")] == '\0') {
		long v = cli_parse_uint(players, CM_MAX_PLAYERS);
		if (v < 2)
			return cli_usage_error("play", "--players takes players or a number of random seats from 2 to %d, "
			                       "not '%s'; %s", CM_MAX_PLAYERS, players, FORMS);
		listed = (int)v;
	} else if (players) {
		sl->random = false;
		if (!(sl->buf = strdup(players)))
			return EXIT_IO;
		int k = 0;
		for (char *p = sl->buf, *comma; p; p = comma ? comma + 1 : NULL, k++) {
			if ((comma = strchr(p, ',')))
				*comma = '\0';
			if (k == CM_MAX_PLAYERS)
				return cli_usage_error("play", "--players names more than %d seats: a game has 2 to %d",
				                       CM_MAX_PLAYERS, CM_MAX_PLAYERS);
			int ec = check_spec(p);
			if (ec)
				return ec;
			sl->spec[k] = p;
		}
		listed = k > 1 ? k : 0;
	}
	if (listed && seats >= 0 && seats != listed)
		return cli_usage_error("play", "--seats %ld does not match the %d seats --players names", seats, listed);
	if (listed)
		sl->n = listed;
	for (int p = 0; p < sl->n; p++)
		sl->spec[p] = sl->random ? "random" : sl->spec[p] ? sl->spec[p] : sl->spec[0];
	return 0;
}

/* Squares never filled listed in text unless --all-squares: a huge map
 * gives a summary line, not millions of coordinates. */
#define NEVER_LISTED 20

static void print_text(const cm_map *m, const cm_play_stats *s, const seat_list *sl, uint64_t seed,
                       const char *rules, bool all)
{
	int g = s->games;
	printf("map %s: %d games, %d players, seed %llu\n", cm_map_id(m), g, s->players, (unsigned long long)seed);
	printf("rules: %s\n", rules);
	printf("deck: %d tiles\n", s->deck_tiles);
	printf("tiles placed: %.2f per game (and %.2f at setup)\n", mean(s->tiles_placed, g),
	       mean(s->setup_tiles, g));
	printf("squares filled: %.2f of %d playable (%.1f%%), fewest %d, most %d\n",
	       mean(s->squares_filled, g), s->squares_playable, 100.0 * cm_play_stats_fill(s),
	       s->filled_min, s->filled_max);
	int never = never_filled(s);
	printf("squares never filled: %d%s", never, never ? " at" : "");
	int listed = 0;
	for (int i = 0; i < s->cols * s->rows && (all || listed < NEVER_LISTED); i++)
		if (s->fill[i] == 0) {
			printf(" (%d,%d)", i % s->cols, i / s->cols);
			listed++;
		}
	if (listed < never)
		printf(" and %d more (--all-squares lists them)", never - listed);
	printf("\n");
	printf("stranded tiles: %d of %d games, %.2f per game\n", s->stranded_games, g,
	       mean(s->stranded, g));
	if (s->abbeys_placed || s->wagon_moves || s->wagon_returns)
		printf("abbeys placed: %.2f per game; wagons moved: %.2f, back to the supply: %.2f\n",
		       mean(s->abbeys_placed, g), mean(s->wagon_moves, g), mean(s->wagon_returns, g));
	printf("points per game: road %.2f, city %.2f, monastery %.2f, field %.2f, other %.2f"
	       " (final scoring %.2f)\n",
	       mean(s->points_kind[CM_FEAT_ROAD], g), mean(s->points_kind[CM_FEAT_CITY], g),
	       mean(s->points_kind[CM_FEAT_MONASTERY], g), mean(s->points_kind[CM_FEAT_FIELD], g),
	       mean(other_points(s), g), mean(s->final_points, g));
	for (int p = 0; p < s->players; p++)
		printf("player %d (%s): mean score %.2f (sd %.2f), won %d of %d games (%d of them tied for first)\n", p,
		       sl->spec[p], mean(s->scores[p], g), cm_play_stats_sd(s, p), s->seat_wins[p], g, s->seat_ties[p]);
	printf("first place shared: %d of %d games\n", s->ties, g);
}

static int print_json(const cm_map *m, const cm_play_stats *s, const seat_list *sl, uint64_t seed,
                      const char *rules)
{
	int g = s->games;
	cm_json *j = cm_json_new(stdout, true);
	if (!j)
		return CM_ENOMEM;
	cm_json_obj_begin(j);
	cm_json_key(j, "format"); /* name and version: schemas/play-json.md */
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "name", "carcamap-play");
	cm_json_kv_str(j, "version", "1.2");
	cm_json_obj_end(j);
	cm_json_kv_str(j, "map", cm_map_id(m));
	cm_json_kv_int(j, "games", g);
	cm_json_kv_int(j, "players", s->players);
	cm_json_kv_int(j, "seed", (long long)seed);
	cm_json_kv_str(j, "rules", rules);
	cm_json_kv_int(j, "deck_tiles", s->deck_tiles);
	cm_json_kv_fixed(j, "tiles_placed", mean(s->tiles_placed, g), 4);
	cm_json_kv_fixed(j, "setup_tiles", mean(s->setup_tiles, g), 4);

	cm_json_key(j, "squares");
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "cols", s->cols);
	cm_json_kv_int(j, "rows", s->rows);
	cm_json_kv_int(j, "playable", s->squares_playable);
	cm_json_kv_fixed(j, "filled", mean(s->squares_filled, g), 4);
	cm_json_kv_fixed(j, "fill", cm_play_stats_fill(s), 4);
	cm_json_kv_int(j, "filled_min", s->filled_min);
	cm_json_kv_int(j, "filled_max", s->filled_max);
	cm_json_key(j, "never_filled");
	cm_json_arr_begin(j);
	for (int i = 0; i < s->cols * s->rows; i++)
		if (s->fill[i] == 0) {
			cm_json_obj_begin(j);
			cm_json_kv_int(j, "x", i % s->cols);
			cm_json_kv_int(j, "y", i / s->cols);
			cm_json_obj_end(j);
		}
	cm_json_arr_end(j);
	cm_json_key(j, "fill_counts");
	cm_json_arr_begin(j);
	for (int y = 0; y < s->rows; y++) {
		cm_json_arr_begin(j);
		for (int x = 0; x < s->cols; x++) {
			int v = s->fill[y * s->cols + x];
			if (v < 0)
				cm_json_null(j);
			else
				cm_json_int(j, v);
		}
		cm_json_arr_end(j);
	}
	cm_json_arr_end(j);
	cm_json_obj_end(j);

	cm_json_key(j, "stranded");
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "games", s->stranded_games);
	cm_json_kv_fixed(j, "per_game", mean(s->stranded, g), 4);
	cm_json_obj_end(j);

	cm_json_key(j, "abbey_mayor"); /* 1.1 */
	cm_json_obj_begin(j);
	cm_json_kv_fixed(j, "abbeys_placed", mean(s->abbeys_placed, g), 4);
	cm_json_kv_fixed(j, "wagon_moves", mean(s->wagon_moves, g), 4);
	cm_json_kv_fixed(j, "wagon_returns", mean(s->wagon_returns, g), 4);
	cm_json_obj_end(j);

	cm_json_key(j, "points");
	cm_json_obj_begin(j);
	static const cm_feature_kind named[] = { CM_FEAT_ROAD, CM_FEAT_CITY, CM_FEAT_MONASTERY, CM_FEAT_FIELD };
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
		cm_json_key(j, cm_feature_kind_name(named[i]));
		cm_json_fixed(j, mean(s->points_kind[named[i]], g), 4);
	}
	cm_json_kv_fixed(j, "other", mean(other_points(s), g), 4);
	cm_json_kv_fixed(j, "final", mean(s->final_points, g), 4);
	cm_json_obj_end(j);

	cm_json_key(j, "scores");
	cm_json_arr_begin(j);
	for (int p = 0; p < s->players; p++)
		cm_json_fixed(j, mean(s->scores[p], g), 4);
	cm_json_arr_end(j);
	cm_json_key(j, "wins");
	cm_json_arr_begin(j);
	for (int p = 0; p < s->players; p++)
		cm_json_int(j, s->wins[p]);
	cm_json_arr_end(j);
	cm_json_kv_int(j, "ties", s->ties);
	cm_json_key(j, "seats"); /* 1.2 */
	cm_json_arr_begin(j);
	for (int p = 0; p < s->players; p++) {
		cm_json_obj_begin(j);
		cm_json_kv_str(j, "player", sl->spec[p]);
		cm_json_kv_int(j, "wins", s->seat_wins[p]);
		cm_json_kv_int(j, "ties", s->seat_ties[p]);
		cm_json_kv_fixed(j, "mean_score", mean(s->scores[p], g), 4);
		cm_json_kv_fixed(j, "score_sd", cm_play_stats_sd(s, p), 4);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	cm_json_obj_end(j);
	cm_json_finish(j);
	cm_json_free(j);
	return 0;
}

static int write_replay_to(FILE *f, void *arg)
{
	return cm_replay_write(arg, f);
}

/* Plays game 1 again and writes it as a replay to path, with the seats' players. */
static int write_replay(const char *path, const cm_map *m, const cm_deck *deck, const cm_rules *rules,
                        const seat_list *sl, uint64_t seed, cm_diags *d)
{
	cm_board *b = NULL;
	cm_replay *r = NULL;
	cm_player *seats[CM_MAX_PLAYERS] = { NULL };
	const char *names[CM_MAX_PLAYERS] = { NULL };
	int rc = cm_board_new(m, deck, rules, sl->n, seed, 0, d, &b);
	for (int p = 0; !rc && p < sl->n; p++)
		if (!(rc = cm_player_new_from_spec(sl->spec[p], &seats[p])))
			names[p] = seats[p]->name;
	if (!rc)
		rc = cm_play_game_seats(b, sl->random ? NULL : seats, seed, d);
	if (!rc)
		rc = cm_replay_from_board(b, &r);
	if (!rc)
		rc = cm_replay_set_players(r, names);
	/* as every output: where the path leads, never half written */
	if (!rc && (rc = cm_file_write(path, write_replay_to, r, d)) != 0 && rc != CM_EIO)
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write the replay");
	cm_replay_free(r);
	cm_board_free(b);
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		cm_player_free(seats[p]);
	return rc;
}

int cmd_play(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "games", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "players", required_argument, NULL, 'p' },
		{ "seats", required_argument, NULL, 'S' },
		{ "rule", required_argument, NULL, 'r' },
		{ "replay", required_argument, NULL, 'R' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "all-squares", no_argument, NULL, 'A' },
		{ "format", required_argument, NULL, 'f' },
		{ "map", required_argument, NULL, 'm' },
		{ "printing", required_argument, NULL, 'P' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cli_target t = { .cmd = "play", .decks = 1, .build_deck = 1 };
	cm_play_stats *st = NULL;
	if (cm_diags_new(&d) || cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	const char *replay = NULL;
	const char *rule_args[MAX_RULES];
	int n_rules = 0, games = 100, jobs = cli_default_jobs();
	const char *players = NULL;
	long seats = -1;
	seat_list sl = { 0 };
	bool all_squares = false;
	uint64_t seed = 1;
	cli_format fmt = FMT_TEXT;
	int ec = EXIT_CLEAN, c;
	long v;
	cli_opts o = { .cmd = "play", .opts = opts, .usage = usage, .tilesets = w, .printing = &t.printing };
	while ((c = cli_next_option(&o, argc, argv, ":hT:")) >= 0) {
		switch (c) {
		case 'g':
			if ((v = cli_parse_uint(optarg, MAX_GAMES)) < 1)
				ec = cli_usage_error("play", "--games takes a whole number from 1 to %ld, not '%s'",
				                     MAX_GAMES, optarg);
			games = (int)v;
			break;
		case 's':
			if ((v = cli_parse_uint(optarg, LONG_MAX)) < 0)
				ec = cli_usage_error("play", "--seed takes a whole number, not '%s'", optarg);
			seed = (uint64_t)v;
			break;
		case 'p': players = optarg; break;
		case 'S':
			if ((seats = cli_parse_uint(optarg, CM_MAX_PLAYERS)) < 2)
				ec = cli_usage_error("play", "--seats takes a number from 2 to %d, not '%s'", CM_MAX_PLAYERS,
				                     optarg);
			break;
		case 'r':
			if (!strchr(optarg, '='))
				ec = cli_usage_error("play", "--rule takes NAME=VALUE, not '%s'", optarg);
			else if (n_rules == MAX_RULES)
				ec = cli_usage_error("play", "more than %d --rule options", MAX_RULES);
			else
				rule_args[n_rules++] = optarg;
			break;
		case 'R': replay = optarg; break;
		case 'j':
			if ((v = cli_parse_uint(optarg, CM_PLAY_MAX_JOBS)) < 1)
				ec = cli_usage_error("play", "--jobs takes a number from 1 to %d, not '%s'", CM_PLAY_MAX_JOBS,
				                     optarg);
			jobs = (int)v;
			break;
		case 'A': all_squares = true; break;
		case 'f':
			if (cli_parse_format("play", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt) < 0)
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
	if ((ec = parse_seats(players, seats, &sl)))
		goto done;
	if (optind >= argc) {
		ec = cli_usage_error("play", "no map to play on");
		goto done;
	}
	bool stream = false;
	if (replay && strcmp(replay, "-") == 0) {
		ec = cli_usage_error("play", "--replay -: standard output carries the report; name a file");
		goto done;
	}
	if (replay && (ec = cli_output_check("play", "--replay", replay, NULL, false, &stream)) != 0)
		goto done;
	int rc = cli_load_map(&t, w, argc - optind, argv + optind, d);
	if (rc == CLI_NO_MAP) {
		ec = EXIT_USAGE;
		goto done;
	}
	if (t.map && replay && (ec = cli_output_not_input("play", "--replay", replay, -1, argc - optind, argv + optind, w, d)) != 0)
		goto done;
	if (t.map) {
		const cm_map *m = t.map;
		cm_rules rules = *cm_map_rules(m);
		unsigned given = 0; /* --rule NAME=V wins over --rule edition=E in any order */
		for (int i = 0; i < n_rules; i++) {
			char name[64];
			const char *eq = strchr(rule_args[i], '=');
			size_t len = (size_t)(eq - rule_args[i]);
			snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1),
			         rule_args[i]);
			int r = cm_rules_set(&rules, &given, name, eq + 1);
			if (r == CM_ENOTFOUND || len >= sizeof name) {
				ec = cli_usage_error("play", "unknown rule option '%s'", name);
				goto done;
			}
			if (r < 0) {
				ec = cli_usage_error("play", "rule option %s cannot be '%s'", name, eq + 1);
				goto done;
			}
		}
		char rules_text[256];
		cm_rules_format(&rules, rules_text, sizeof rules_text);
		int max = t.deck ? cm_game_max_seats(m, t.deck) : CM_MAX_PLAYERS;
		if (!rc && sl.n > max) {
			ec = cli_usage_error("play", "map %s takes at most %d seats (its deck has too few tiles), not %d", cm_map_id(m),
			                     max, sl.n);
			goto done;
		}
		cm_play_opts po;
		cm_play_opts_init(&po);
		po.rules = &rules;
		po.seats = sl.n;
		po.players = sl.random ? NULL : sl.spec;
		po.seed = seed;
		po.games = games;
		po.jobs = jobs;
		po.progress = isatty(2) ? progress : NULL;
		if (!rc)
			rc = cm_play_run(m, t.deck, &po, d, &st);
		if (!rc && replay)
			rc = write_replay(replay, m, t.deck, &rules, &sl, seed, d);
		if (!rc) {
			if (fmt == FMT_JSON)
				rc = print_json(m, st, &sl, seed, rules_text);
			else
				print_text(m, st, &sl, seed, rules_text, all_squares);
			if (fflush(stdout) && !rc)
				rc = CM_EIO;
		}
	}
	ec = cli_finish(d, FMT_TEXT, rc);
done:
	free(sl.buf);
	cm_play_stats_free(st);
	cm_deck_free(t.deck);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
