/* SPDX-License-Identifier: MIT */
/* cmd_diff.c: `carcamap diff`: the differences between two maps, or the
 * two printings of one board, as the library finds them (cm_map_diff,
 * carcamap/diff.h), printed as text or JSON (schemas/diff-json.md). */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define FILL_GAMES 200 /* --balance: games that measure each map's fill */

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap diff [options] A [B]\n"
	        "\n"
	        "Shows what differs between map A and map B: squares by kind, names, big\n"
	        "cities and their printed pieces, edge prints, ferries, islands, markers,\n"
	        "setup, deck and rule options, each with its place (square, side,\n"
	        "element). A and B are map descriptors, Tiled maps, packs (with --map)\n"
	        "or board directories. Given one input that describes two printings of a\n"
	        "board (maps/README.md), it compares them: the default printing against\n"
	        "the other. Where a map came from (paths, lines) is not compared, nor\n"
	        "the neutral edge prints the squares imply.\n"
	        "\n"
	        "Options:\n"
	        "  --map ID           the map of A, and of B, when an input holds several\n"
	        "  --map-b ID         the map of B when it is not the one of A\n"
	        "  --printing ED      the printing of A, and of B: C2 or C3\n"
	        "  --printing-b ED    the printing of B when it is not the one of A\n"
	        "  --format FMT       text (default) or json (schemas/diff-json.md)\n"
	        "  --balance          also play both maps and show the change in fairness\n"
	        "                     and fill: the 2-seat balance report's fairest\n"
	        "                     start-square choice (balance, first-seat advantage,\n"
	        "                     with 95%% intervals) and the mean fill of %d games\n"
	        "  --players SPEC     with --balance: the player in every seat (default\n"
	        "                     greedy; carcamap play --help lists the specs)\n"
	        "  --precision PP     with --balance: the win-rate intervals' half-width,\n"
	        "                     in percentage points (default 2)\n"
	        "  --seed S           with --balance: the first pile's seed (default 1)\n"
	        "  --jobs N           with --balance: threads (the same figures for any N)\n"
	        "  -T, --tilesets DIR where to find the tile sets of the decks (--balance)\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap diff maps/germany\n"
	        "  carcamap diff maps/taiwan/taiwan.xml --printing C2 --printing-b C3 --format json\n"
	        "  carcamap diff maps/usa-west/usa-west.xml maps/usa-east/usa-east.xml\n"
	        "  carcamap diff maps/germany --balance --precision 5\n"
	        "\n"
	        "Exit status: 0 equal, 1 different (or an input with errors: its\n"
	        "diagnostics on stderr, nothing on stdout), 2 usage error, 3 I/O or\n"
	        "internal failure.\n", FILL_GAMES);
}

/* One side of the comparison: its input, workspace and map. */
typedef struct {
	const char *file;
	const char *map_id; /* --map, --map-b */
	int printing;       /* a cm_edition, or -1 */
	cm_workspace *w;
	const cm_map *m;
	/* --balance */
	cm_balance_report *rep;
	const cm_balance_cell *fair; /* the fairest choice of 2 seats */
	double fill;
} side;

/* What --balance plays. */
typedef struct {
	bool on;
	const char *player;
	double precision;
	uint64_t seed;
	int jobs;
	const char *dirs[16];   /* -T: searched for both sides' decks */
	int n_dirs;
	const void *first;      /* the side whose workspace took them as given */
} balance_req;

/* Loads s->file into s->w (every printing). 0, or a library code with
 * the problems in d. */
static int load(side *s, const balance_req *br, cm_diags *d)
{
	if (!s->w && cm_workspace_new(&s->w))
		return CM_ENOMEM;
	for (int i = 0; s != br->first && i < br->n_dirs; i++)
		if (cm_workspace_add_tileset_dir(s->w, br->dirs[i]))
			return CM_ENOMEM;
	char *files[1] = { (char *)s->file };
	int rc = cli_workspace_load(s->w, 1, files, br->on, d);
	return rc ? rc : cm_diags_errors(d) ? CM_EINVAL : 0;
}

/* Selects s->m (cli_select_map). A pack's map has passed only the pack's
 * own checks: the structural ones run here, as for every command.
 * Returns 0, CLI_NO_MAP (the error printed) or CM_EINVAL (see d). */
static int select_map(side *s, cm_diags *d)
{
	const cm_map *m = cli_select_map("diff", s->w, s->map_id, s->printing);
	if (!m)
		return CLI_NO_MAP;
	if (!cm_map_file(m) && cm_map_check(m, NULL, 0, d) != 0)
		return CM_EINVAL;
	s->m = m;
	return 0;
}

/* Free texts are quoted; kinds, numbers and lists are not. */
static bool quoted(const cm_diff_item *it)
{
	static const char *const fields[] = { "name", "title", "label", "marker", "id" };
	if (it->section == CM_DIFF_MAP && strcmp(it->field, "size") != 0)
		return true;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (strcmp(it->field, fields[i]) == 0)
			return true;
	return false;
}

static void print_value(const cm_diff_item *it, const char *v)
{
	if (quoted(it))
		printf("'%s'", v);
	else
		printf("%s", v);
}

/* "square (3,4)", "big city Berlin at (5,2)", "edge (3,0) N", ... */
static void print_where(const cm_diff_item *it)
{
	char sq[48] = "";
	if (it->x >= 0)
		snprintf(sq, sizeof sq, "(%d,%d)", it->x, it->y);
	switch (it->section) {
	case CM_DIFF_MAP: printf("map"); break;
	case CM_DIFF_SQUARE:
	case CM_DIFF_NAME:
	case CM_DIFF_MARKER: printf("square %s", sq); break;
	case CM_DIFF_BIGCITY: printf("big city '%s' at %s", it->subject ? it->subject : "", sq); break;
	case CM_DIFF_PIECE: printf("big city '%s', piece %s", it->subject ? it->subject : "", sq); break;
	case CM_DIFF_PRINT: printf("edge %s %s", sq, cm_side_name((cm_side)it->side)); break;
	case CM_DIFF_FERRY:
		printf(it->subject ? "ferry '%s'" : "ferry", it->subject);
		printf(" at %s %s", sq, cm_side_name((cm_side)it->side));
		break;
	case CM_DIFF_ISLAND:
		if (it->subject)
			printf("island '%s'%s%s", it->subject, *sq ? " at " : "", sq);
		else
			printf("square %s", sq);
		break;
	case CM_DIFF_SETUP: printf("setup"); break;
	case CM_DIFF_DECK: printf(it->subject ? "deck entry %s" : "deck", it->subject); break;
	case CM_DIFF_RULES: printf("rules"); break;
	}
}

static void print_side(const char *label, const side *s)
{
	printf("%s: %s, map %s (%s)\n", label, s->file, cm_map_id(s->m) ? cm_map_id(s->m) : "?", cm_edition_name(cm_map_rules(s->m)->edition));
}

/* "squares: land 126 -> 125, town 1 -> 2" when the counts differ. */
static void print_kinds(const cm_diff *df)
{
	bool any = false;
	for (int k = 1; k < CM_SQ_KIND_COUNT; k++) {
		int a = cm_diff_kind_count(df, 0, (cm_square_kind)k), b = cm_diff_kind_count(df, 1, (cm_square_kind)k);
		if (a == b)
			continue;
		printf("%s %s %d -> %d", any ? "," : "squares:", cm_square_kind_name((cm_square_kind)k), a, b);
		any = true;
	}
	if (any)
		printf("\n");
}

/* --balance on one side: the 2-seat report (its fairest choice) and the
 * mean fill of FILL_GAMES games, both with br's player in every seat;
 * w holds s's map.
 * Returns 0 or a library code (the problems in d). */
static int play_side(side *s, const cm_workspace *w, const balance_req *br, cm_diags *d)
{
	cm_deck *deck = NULL;
	int rc = cm_play_deck(w, s->m, d, &deck);
	if (rc)
		return rc;
	static const int two[1] = { 2 };
	const char *players[1] = { br->player };
	cm_balance_opts bo;
	cm_balance_opts_init(&bo);
	bo.seats = two;
	bo.n_seats = 1;
	bo.players = players;
	bo.n_players = 1;
	bo.precision = br->precision;
	bo.seed = br->seed;
	bo.jobs = br->jobs;
	rc = cm_balance_check_request(s->m, deck, &bo, d);
	if (!rc)
		rc = cm_balance_run(s->m, deck, &bo, d, &s->rep);
	for (size_t i = 0; !rc && i < s->rep->n_cells; i++)
		if (s->rep->cells[i].fairest && s->rep->cells[i].strength == 0 && !s->fair)
			s->fair = &s->rep->cells[i];
	if (!rc) {
		const char *seats[2] = { br->player, br->player };
		cm_play_opts po;
		cm_play_opts_init(&po);
		po.players = seats;
		po.seed = br->seed;
		po.games = FILL_GAMES;
		po.jobs = br->jobs;
		cm_play_stats *st = NULL;
		if ((rc = cm_play_run(s->m, deck, &po, d, &st)) == 0)
			s->fill = cm_play_stats_fill(st);
		cm_play_stats_free(st);
	}
	cm_deck_free(deck);
	return rc;
}

static void print_interval(const char *label, cm_interval v, double scale, int decimals)
{
	printf("%s %.*f [%.*f, %.*f]", label, decimals, scale * v.value, decimals, scale * v.lo, decimals, scale * v.hi);
}

/* The --balance lines: each side's fairest 2-seat choice and fill, then
 * the change. */
static void print_balance(const side *a, const side *b, const balance_req *br)
{
	printf("balance (2 seats, %s, the fairest start squares):\n", br->player);
	const side *sd[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		const cm_balance_cell *c = sd[i]->fair;
		printf("  %s:", i ? "b" : "a");
		if (!c) {
			printf(" no cell played\n");
			continue;
		}
		print_interval(" balance", c->balance, 1, 3);
		print_interval(", first-seat advantage", c->first_seat_advantage, 100, 1);
		printf(" pp");
		printf(", %s, %lld games, fill %.3f\n", cm_balance_verdict_name(c->verdict), c->games, sd[i]->fill);
	}
	if (a->fair && b->fair)
		printf("  change: balance %+.3f, first-seat advantage %+.1f pp, fill %+.3f\n",
		       b->fair->balance.value - a->fair->balance.value,
		       100 * (b->fair->first_seat_advantage.value - a->fair->first_seat_advantage.value), b->fill - a->fill);
}

static void json_interval(cm_json *j, const char *key, const char *ci_key, cm_interval v)
{
	cm_json_kv_fixed(j, key, v.value, 6);
	cm_json_key(j, ci_key);
	cm_json_arr_begin(j);
	cm_json_fixed(j, v.lo, 6);
	cm_json_fixed(j, v.hi, 6);
	cm_json_arr_end(j);
}

static void json_balance_side(cm_json *j, const char *key, const side *s, int cols)
{
	cm_json_key(j, key);
	const cm_balance_cell *c = s->fair;
	if (!c) {
		cm_json_null(j);
		return;
	}
	cm_json_obj_begin(j);
	cm_json_key(j, "starts");
	cm_json_arr_begin(j);
	for (int i = 0; i < c->n_starts; i++) {
		cm_json_arr_begin(j);
		cm_json_int(j, c->starts[i] % cols);
		cm_json_int(j, c->starts[i] / cols);
		cm_json_arr_end(j);
	}
	cm_json_arr_end(j);
	cm_json_kv_int(j, "games", c->games);
	json_interval(j, "balance", "balance_ci", c->balance);
	json_interval(j, "first_seat_advantage", "first_seat_advantage_ci", c->first_seat_advantage);
	cm_json_kv_str(j, "verdict", cm_balance_verdict_name(c->verdict));
	cm_json_kv_fixed(j, "fill", s->fill, 6);
	cm_json_obj_end(j);
}

static void json_balance(cm_json *j, const side *a, const side *b, const balance_req *br)
{
	cm_json_key(j, "balance");
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "seats", 2);
	cm_json_kv_str(j, "player", br->player);
	cm_json_kv_fixed(j, "precision", br->precision, 6);
	cm_json_kv_int(j, "seed", (long long)br->seed);
	cm_json_kv_int(j, "fill_games", FILL_GAMES);
	json_balance_side(j, "a", a, cm_map_cols(a->m));
	json_balance_side(j, "b", b, cm_map_cols(b->m));
	cm_json_obj_end(j);
}

static void print_text(const side *a, const side *b, const cm_diff *df)
{
	print_side("a", a);
	print_side("b", b);
	for (size_t i = 0; i < cm_diff_count(df); i++) {
		const cm_diff_item *it = cm_diff_get(df, i);
		print_where(it);
		printf(": %s ", it->field);
		if (it->change == CM_DIFF_CHANGED) {
			print_value(it, it->a);
			printf(" -> ");
			print_value(it, it->b);
		} else {
			print_value(it, it->change == CM_DIFF_ADDED ? it->b : it->a);
			printf(it->change == CM_DIFF_ADDED ? " added" : " removed");
		}
		printf("\n");
	}
	print_kinds(df);
	size_t n = cm_diff_count(df);
	if (n)
		printf("%zu difference%s\n", n, n == 1 ? "" : "s");
	else
		printf("equal\n");
}

static void json_side(cm_json *j, const char *key, const side *s, const cm_diff *df, int which)
{
	cm_json_key(j, key);
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "file", s->file);
	cm_json_kv_str(j, "map", cm_map_id(s->m));
	cm_json_kv_str(j, "edition", cm_edition_name(cm_map_rules(s->m)->edition));
	cm_json_key(j, "squares");
	cm_json_obj_begin(j);
	for (int k = 1; k < CM_SQ_KIND_COUNT; k++)
		cm_json_kv_int(j, cm_square_kind_name((cm_square_kind)k), cm_diff_kind_count(df, which, (cm_square_kind)k));
	cm_json_obj_end(j);
	cm_json_obj_end(j);
}

static int print_json(const side *a, const side *b, const cm_diff *df, const balance_req *br)
{
	cm_json *j = cli_json_begin(stdout, "carcamap-diff", br->on ? "1.1" : "1.0");
	if (!j)
		return CM_ENOMEM;
	json_side(j, "a", a, df, 0);
	json_side(j, "b", b, df, 1);
	cm_json_kv_bool(j, "equal", cm_diff_equal(df));
	cm_json_key(j, "differences");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < cm_diff_count(df); i++) {
		const cm_diff_item *it = cm_diff_get(df, i);
		cm_json_obj_begin(j);
		cm_json_kv_str(j, "section", cm_diff_section_name(it->section));
		cm_json_kv_str(j, "change", cm_diff_change_name(it->change));
		cm_json_key(j, "square");
		if (it->x >= 0) {
			cm_json_arr_begin(j);
			cm_json_int(j, it->x);
			cm_json_int(j, it->y);
			cm_json_arr_end(j);
		} else {
			cm_json_null(j);
		}
		cm_json_kv_str(j, "side", it->side >= 0 ? cm_side_name((cm_side)it->side) : NULL);
		cm_json_kv_str(j, "subject", it->subject);
		cm_json_kv_str(j, "field", it->field);
		cm_json_kv_str(j, "a", it->a);
		cm_json_kv_str(j, "b", it->b);
		cm_json_key(j, "line_a");
		it->line_a ? cm_json_int(j, it->line_a) : cm_json_null(j);
		cm_json_key(j, "line_b");
		it->line_b ? cm_json_int(j, it->line_b) : cm_json_null(j);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	if (br->on)
		json_balance(j, a, b, br);
	return cli_json_end(j);
}

/* One input and no map chosen for B: B is the input's other map (the
 * other printing of a board). */
static int other_printing(side *a, side *b)
{
	for (size_t i = 0; i < cm_workspace_map_count(a->w); i++)
		if (cm_workspace_map(a->w, i) != a->m) {
			b->m = cm_workspace_map(a->w, i);
			return 0;
		}
	cli_usage_error("diff", "%s holds one map: give a second one, or a descriptor that describes two printings",
	                a->file);
	return CLI_NO_MAP;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "map", required_argument, NULL, 'm' },
		{ "map-b", required_argument, NULL, 'M' },
		{ "printing", required_argument, NULL, 'p' },
		{ "printing-b", required_argument, NULL, 'q' },
		{ "format", required_argument, NULL, 'f' },
		{ "balance", no_argument, NULL, 'B' },
		{ "players", required_argument, NULL, 'y' },
		{ "precision", required_argument, NULL, 'e' },
		{ "seed", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	side a = { .printing = -1 }, b = { .printing = -1 };
	balance_req br = { .player = "greedy", .precision = 0.02, .seed = 1, .jobs = cli_default_jobs() };
	bool balance_opt = false;
	long v;
	char *end;
	double x;
	bool b_map = false, b_printing = false;
	cli_format fmt = FMT_TEXT;
	cm_diags *d = NULL;
	cm_diff *df = NULL;
	int ec = EXIT_CLEAN, c, rc = 0, pr;
	if (cm_diags_new(&d) || cm_workspace_new(&a.w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	cli_opts o = { .cmd = "diff", .opts = opts, .usage = usage };
	while ((c = cli_next_option(&o, argc, argv, ":hT:")) >= 0) {
		switch (c) {
		case 'm': a.map_id = optarg; break;
		case 'M':
			b.map_id = optarg;
			b_map = true;
			break;
		case 'p':
		case 'q':
			if ((ec = cli_printing_option("diff", optarg, &pr)) != 0)
				goto done;
			if (c == 'p')
				a.printing = pr - 1;
			else
				b.printing = pr - 1, b_printing = true;
			break;
		case 'f':
			if (cli_parse_format("diff", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt) < 0)
				ec = EXIT_USAGE;
			break;
		case 'B': br.on = true; break;
		case 'y':
			br.player = optarg;
			balance_opt = true;
			break;
		case 'e':
			x = strtod(optarg, &end);
			if (end == optarg || *end || !(x > 0 && x < 50))
				ec = cli_usage_error("diff", "--precision takes percentage points above 0 and below 50, not '%s'",
				                     optarg);
			br.precision = x / 100;
			balance_opt = true;
			break;
		case 'r':
			if ((v = cli_parse_uint(optarg, LONG_MAX)) < 0)
				ec = cli_usage_error("diff", "--seed takes a whole number, not '%s'", optarg);
			br.seed = (uint64_t)v;
			balance_opt = true;
			break;
		case 'j':
			ec = cli_parse_jobs("diff", optarg, &br.jobs);
			balance_opt = true;
			break;
		case 'T': /* checked as every command does, kept for both sides */
			if (br.n_dirs == (int)(sizeof br.dirs / sizeof br.dirs[0]))
				ec = cli_usage_error("diff", "more than %d -T options", br.n_dirs);
			else if ((ec = cli_tileset_option(a.w, optarg)) == 0)
				br.dirs[br.n_dirs++] = optarg;
			break;
		}
		if (ec)
			goto done;
	}
	if (c == CLI_STOP) {
		ec = o.status;
		goto done;
	}
	int n = argc - optind;
	if (n < 1 || n > 2) {
		ec = cli_usage_error("diff", n < 1 ? "no map to compare" : "more than two maps to compare");
		goto done;
	}
	if (balance_opt && !br.on) {
		ec = cli_usage_error("diff", "--players, --precision, --seed and --jobs go with --balance");
		goto done;
	}
	if (!b_map)
		b.map_id = a.map_id;
	if (!b_printing)
		b.printing = a.printing;
	a.file = argv[optind];
	b.file = argv[optind + n - 1];
	/* the inputs, each in its own workspace: an id may differ between them */
	br.first = &a;
	rc = load(&a, &br, d);
	if (!rc && n == 2)
		rc = load(&b, &br, d);
	if (rc) {
		ec = cli_finish(d, FMT_TEXT, rc);
		goto done;
	}
	if ((rc = select_map(&a, d)) == 0) {
		if (n == 2)
			rc = select_map(&b, d);
		else if (b_map || b_printing)
			rc = (b.w = a.w, select_map(&b, d));
		else
			rc = other_printing(&a, &b);
	}
	if (n == 1)
		b.w = NULL; /* a.w holds both maps: freed once */
	if (rc == CLI_NO_MAP) {
		ec = EXIT_USAGE;
		goto done;
	}
	if (!rc)
		rc = cm_map_diff(a.m, b.m, &df);
	if (rc) {
		ec = cli_finish(d, FMT_TEXT, rc);
		goto done;
	}
	if (br.on) {
		/* a failed request (a spec this build lacks, a map no seat count
		 * fits) is a usage error, as in balance */
		rc = play_side(&a, a.w, &br, d);
		if (!rc)
			rc = play_side(&b, b.w ? b.w : a.w, &br, d);
		if (rc == CM_EINVAL || rc == CM_ENOTSUP) {
			for (size_t i = 0; i < cm_diags_count(d); i++)
				fprintf(stderr, "carcamap diff: %s\n", cm_diags_get(d, i)->message);
			fprintf(stderr, "Try 'carcamap diff --help' for more information.\n");
			ec = EXIT_USAGE;
			goto done;
		}
		if (rc) {
			ec = cli_finish(d, FMT_TEXT, rc);
			goto done;
		}
	}
	if (fmt == FMT_JSON) {
		rc = print_json(&a, &b, df, &br);
	} else {
		print_text(&a, &b, df);
		if (br.on)
			print_balance(&a, &b, &br);
	}
	if (fflush(stdout) && !rc)
		rc = CM_EIO;
	ec = rc ? cli_finish(d, FMT_TEXT, rc) : cm_diff_equal(df) ? EXIT_CLEAN : EXIT_PROBLEMS;
done:
	cm_balance_report_free(a.rep);
	cm_balance_report_free(b.rep);
	cm_diff_free(df);
	cm_workspace_free(a.w);
	cm_workspace_free(b.w);
	cm_diags_free(d);
	return ec;
}
