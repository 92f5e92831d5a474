/* SPDX-License-Identifier: MIT */
/* cmd_check.c: `carcamap check`: validates the files it is given, whatever
 * their kind, reports every problem (text, JSON, SARIF or GitHub) and maps
 * the result to the exit status; --list prints the check catalogue. A
 * legend is checked on its own (cm_legend_load_file); every other file is
 * loaded into one workspace (cli_workspace_load: each kind by its library
 * loader) whose maps cm_check_workspace then checks. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap check [options] FILE...\n"
	        "       carcamap check --list [--format text|json|markdown]\n"
	        "\n"
	        "Checks tile sets, map descriptors (with their annotated images), map\n"
	        "packs and legends against their formats and the game's rules, and reports every\n"
	        "problem found, each with its place and a stable check id (CM0101 ...).\n"
	        "The kind of each file is detected from its content. All files form one\n"
	        "set: a map's deck may name a tile set given alongside it. A board's\n"
	        "directory (maps/germany) stands for the one map descriptor in it.\n"
	        "\n"
	        "Options:\n"
	        "  --format FMT   text (default): diagnostics on stderr, as\n"
	        "                 'file:line:col: error: message [CM0101]' with the source\n"
	        "                 line quoted, then 'N errors, N warnings in M files';\n"
	        "                 json or sarif (SARIF 2.1.0, for code scanning): the\n"
	        "                 report alone on stdout; github: GitHub Actions\n"
	        "                 annotations ('::error file=F,line=L::message') on stdout\n"
	        "  --strict       treat warnings as errors\n"
	        "  --ignore ID    drop diagnostics of check ID (repeatable)\n"
	        "  --only ID      keep only diagnostics of check ID (repeatable)\n"
	        "  --games N      also play N random games per map (2 players) and report\n"
	        "                 the fill ratio, squares rarely filled and stranded tiles\n"
	        "                 (drawn tiles that fit nowhere; checks CM06xx), 1..%d,\n"
	        "                 the same statistics as `carcamap play` (default: none)\n"
	        "  --all-squares  a diagnostic for every square that few of the deck's\n"
	        "                 tiles fit (CM0502) or few games fill (CM0602); by\n"
	        "                 default the first %d of one cause (the same printed\n"
	        "                 constraints; the games) and one with the count of the rest\n"
	        "  --seed N       seed of the first game (game i plays seed+i; default %d)\n"
	        "  --jobs N       play the games on N threads, 1..64 (default: the\n"
	        "                 processors); the results are the same for every N\n"
	        "  --map ID       of the packs given, read and check only map ID and its\n"
	        "                 printings (ID-c2, ID-c3): their other maps are not read\n"
	        "                 (exit 2 when no file holds it)\n"
	        "  --printing ED  read map descriptors in that printing only, C2 or C3\n"
	        "                 (default: every printing a descriptor describes)\n"
	        "  -T, --tilesets DIR\n"
	        "                 search DIR for the tile sets that map decks name\n"
	        "                 (repeatable). The order: the files given, these\n"
	        "                 directories, $CARCAMAP_TILESETS (colon-separated),\n"
	        "                 the source tree's maps/tilesets when carcamap runs\n"
	        "                 from the tree it was built in, the installed ones\n"
	        "                 (share/carcamap/tilesets under the install prefix),\n"
	        "                 each descriptor's ../tilesets directory\n"
	        "  --list         print the catalogue of checks (id, severity, game rule,\n"
	        "                 title) instead of checking files; with --format\n"
	        "                 markdown, schemas/checks.md (thresholds included)\n"
	        "  -h, --help     show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap check maps/tilesets/*.xml\n"
	        "  carcamap check maps/germany/germany.xml\n"
	        "  carcamap compile -o maps.pack maps/*/[a-z]*.xml   # every bundled map\n"
	        "  carcamap check maps.pack\n"
	        "  carcamap check --format sarif maps/tilesets/base.xml > report.sarif\n"
	        "  carcamap check --format github maps/*/[a-z]*.xml    # in a workflow step\n"
	        "  carcamap check --ignore CM0111 --strict my-tiles.xml\n"
	        "  carcamap check --games 1000 maps/iberia/iberia.xml\n"
	        "  carcamap check --list --format json\n"
	        "\n"
	        "Exit status: 0 no errors, 1 errors found in the input, 2 usage error,\n"
	        "3 a file could not be read or an internal failure.\n",
	        CM_CHECK_MAX_GAMES, CM_CHECK_LISTED, CM_CHECK_DEFAULT_SEED);
}

/* Markdown table cells: a '|' would split the cell. */
static void md_cell(const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
}

/* schemas/checks.md, whole: tests/cli/cases/check_list_markdown keeps the
 * committed file equal to this output. */
static int list_markdown(void)
{
	cm_check_opts o;
	cm_check_opts_init(&o);
	printf("# Check catalogue\n"
	       "\n"
	       "<!-- Generated by `carcamap check --list --format markdown > schemas/checks.md`;\n"
	       "     do not edit: the catalogue lives in lib/base/catalog.c. -->\n"
	       "\n"
	       "Every diagnostic of a check carries one of these ids. An id never changes\n"
	       "meaning; a retired id keeps its row with \"(retired)\" in its title. The\n"
	       "severity is the default (`--strict` makes warnings errors); the rule is the\n"
	       "RULES.md rule the check enforces. `--ignore ID` and `--only ID` filter by id.\n"
	       "\n"
	       "Levels (DESIGN.md \"Validator\"): CM00xx input files, CM01xx tile sets,\n"
	       "CM02xx map structure, CM03xx images and legends, CM04xx packs, CM05xx\n"
	       "playability against the deck, CM06xx simulated games (`check --games N`),\n"
	       "CM07xx maps drawn in Tiled (TMX read by `import` and every command).\n"
	       "`carcamap check` and `carcamap compile` run every level up to CM05xx on\n"
	       "every map they load; CM06xx runs with `check --games N` only.\n"
	       "\n"
	       "## Thresholds\n"
	       "\n"
	       "| check | threshold |\n"
	       "|---|---|\n"
	       "| CM0502 | fewer than %d copies of the deck fit the square (in some rotation, against its printed constraints alone) |\n"
	       "| CM0602 | the square was filled in fewer than %d per mille of the games |\n"
	       "| CM0603 | the mean fill ratio (squares holding a tile at the end / playable squares) is below %d.%03d |\n"
	       "| CM0604 | the games strand (draw tiles that fit nowhere) more than %d%% of the deck's tiles on average |\n"
	       "| CM0605 | a printed big city, road or city print, ferry or island was never connected, or never completed, in any of the games |\n"
	       "| CM0606 | the declared tile range's midpoint is more than %d%% from the midpoint of the recommended range: the deck sizes whose random games fill %d%% to %d%% of the playable squares (at most %d games a size) |\n"
	       "\n"
	       "CM0502 and CM0602 name the first %d squares of one cause (for CM0502\n"
	       "the same printed constraints, for CM0602 the games of the map) and count\n"
	       "the rest in one more diagnostic of the same id; `--all-squares` names\n"
	       "them all.\n"
	       "\n"
	       "Simulated games: %d players, random play (`cm_play_games`, the games of\n"
	       "`carcamap play`); game i of N plays seed + i, the seed %d unless `--seed`\n"
	       "says otherwise, so the figures are the same on every machine.\n"
	       "\n"
	       "## Checks\n"
	       "\n"
	       "| id | severity | rule | title | fix |\n"
	       "|---|---|---|---|---|\n",
	       CM_CHECK_FEW_TILES, CM_CHECK_RARE_PERMILLE, CM_CHECK_LOW_FILL_PERMILLE / 1000,
	       CM_CHECK_LOW_FILL_PERMILLE % 1000, CM_CHECK_STRAND_PERCENT, (int)(100 * CM_FIT_FAR + 0.5),
	       (int)(100 * CM_FIT_FILL_LOW + 0.5), (int)(100 * CM_FIT_FILL_HIGH + 0.5), CM_CHECK_FIT_GAMES, CM_CHECK_LISTED,
	       o.players, (int)o.seed);
	for (size_t i = 0; i < cm_catalog_count(); i++) {
		const cm_check_info *c = cm_catalog_get(i);
		printf("| %s | %s | %s | ", c->id, cm_severity_name(c->severity), *c->rule ? c->rule : "-");
		md_cell(c->title);
		fputs(" | ", stdout);
		md_cell(c->fix);
		fputs(" |\n", stdout);
	}
	return fflush(stdout) || ferror(stdout) ? EXIT_IO : EXIT_CLEAN;
}

static int list_catalog(cli_format fmt)
{
	if (fmt == FMT_JSON) {
		cm_json *j = cm_json_new(stdout, true);
		if (!j)
			return EXIT_IO;
		cm_json_obj_begin(j);
		cm_json_key(j, "checks");
		cm_json_arr_begin(j);
		for (size_t i = 0; i < cm_catalog_count(); i++) {
			const cm_check_info *c = cm_catalog_get(i);
			cm_json_obj_begin(j);
			cm_json_key(j, "id");
			cm_json_str(j, c->id);
			cm_json_key(j, "severity");
			cm_json_str(j, cm_severity_name(c->severity));
			cm_json_key(j, "rule");
			cm_json_str(j, c->rule);
			cm_json_key(j, "title");
			cm_json_str(j, c->title);
			cm_json_key(j, "fix");
			cm_json_str(j, c->fix);
			cm_json_obj_end(j);
		}
		cm_json_arr_end(j);
		cm_json_obj_end(j);
		int bad = cm_json_finish(j);
		cm_json_free(j);
		return bad || fflush(stdout) ? EXIT_IO : EXIT_CLEAN;
	}
	for (size_t i = 0; i < cm_catalog_count(); i++) {
		const cm_check_info *c = cm_catalog_get(i);
		printf("%-6s  %-7s  %-18s  %s\n", c->id, cm_severity_name(c->severity), *c->rule ? c->rule : "-",
		       c->title);
	}
	return fflush(stdout) || ferror(stdout) ? EXIT_IO : EXIT_CLEAN;
}

/* The diagnostic filters take catalogued ids only: a typo would silently
 * check everything (or nothing). */
static int add_filter(cm_diags *d, const char *opt, const char *id)
{
	if (!cm_catalog_find(id))
		return cli_usage_error("check", "--%s %s: no such check (see 'carcamap check --list')", opt, id);
	int rc = strcmp(opt, "ignore") == 0 ? cm_diags_ignore(d, id) : cm_diags_only(d, id);
	return rc ? EXIT_IO : 0;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 's' },
		{ "ignore", required_argument, NULL, 'i' },
		{ "only", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "printing", required_argument, NULL, 'P' },
		{ "map", required_argument, NULL, 'm' },
		{ "games", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 'S' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "all-squares", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return EXIT_IO;
	cli_format fmt = FMT_TEXT;
	cm_check_opts co;
	cm_check_opts_init(&co);
	co.jobs = cli_default_jobs();
	int list = 0, markdown = 0, ec = EXIT_CLEAN, c;
	const char *map_id = NULL;
	long v;
	cm_workspace *w = NULL;
	if (cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	cli_opts o = { .cmd = "check", .opts = opts, .usage = usage, .tilesets = w, .printing_w = w };
	while ((c = cli_next_option(&o, argc, argv, ":hT:")) >= 0) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "markdown") == 0)
				markdown = 1;
			else if (cli_parse_format("check", optarg, 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_SARIF | 1u << FMT_GITHUB, &fmt))
				ec = EXIT_USAGE;
			break;
		case 's':
			cm_diags_set_strict(d, 1);
			break;
		case 'i':
		case 'o':
			ec = add_filter(d, c == 'i' ? "ignore" : "only", optarg);
			break;
		case 'l':
			list = 1;
			break;
		case 'A':
			co.listed = -1;
			break;
		case 'm':
			map_id = optarg;
			if (cm_workspace_set_map_only(w, map_id))
				ec = EXIT_IO;
			break;
		case 'g':
			if ((v = cli_parse_uint(optarg, CM_CHECK_MAX_GAMES)) < 1)
				ec = cli_usage_error("check", "--games takes a whole number from 1 to %d, not '%s'",
				                     CM_CHECK_MAX_GAMES, optarg);
			co.games = (int)v;
			break;
		case 'j':
			if ((v = cli_parse_uint(optarg, CM_PLAY_MAX_JOBS)) < 1)
				ec = cli_usage_error("check", "--jobs takes a number from 1 to %d, not '%s'", CM_PLAY_MAX_JOBS,
				                     optarg);
			co.jobs = (int)v;
			break;
		case 'S':
			if ((v = cli_parse_uint(optarg, 0x7fffffffL)) < 0)
				ec = cli_usage_error("check", "--seed takes a whole number from 0 to 2147483647, not '%s'", optarg);
			co.seed = (uint64_t)v;
			break;
		}
		if (ec)
			goto out;
	}
	if (c == CLI_STOP) {
		ec = o.status;
		goto out;
	}
	if (list) {
		if (fmt == FMT_SARIF || fmt == FMT_GITHUB)
			ec = cli_usage_error("check", "--list prints text, json or markdown");
		else if (optind < argc)
			ec = cli_usage_error("check", "--list takes no files");
		else
			ec = markdown ? list_markdown() : list_catalog(fmt);
		goto out;
	}
	if (markdown) {
		ec = cli_usage_error("check", "--format markdown goes with --list");
		goto out;
	}
	if (optind >= argc) {
		ec = cli_usage_error("check", "no files to check");
		goto out;
	}
	/* a legend is checked on its own (it holds no map: list shows it,
	 * check validates it); every other file goes to the workspace */
	int worst = 0, n_files = 0;
	char **inputs = malloc((size_t)(argc - optind + 1) * sizeof *inputs);
	if (!inputs) {
		ec = EXIT_IO;
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		cm_diags *q = NULL;
		cm_file_kind k = CM_FILE_UNKNOWN;
		if (cm_diags_new(&q) == 0) {
			k = cm_file_detect(argv[i], q); /* failures: the workspace says them */
			cm_diags_free(q);
		}
		if (k == CM_FILE_LEGEND) {
			cm_legend *lg = NULL;
			int lrc = cm_legend_load_file(argv[i], d, &lg);
			cm_legend_free(lg);
			if (lrc && !worst)
				worst = lrc;
		} else {
			inputs[n_files++] = argv[i];
		}
	}
	int wrc = cli_workspace_load(w, n_files, inputs, 1, d);
	free(inputs);
	if (map_id && wrc != CM_ENOMEM && !cli_select_map("check", w, map_id, -1)) {
		ec = EXIT_USAGE;
		goto out;
	}
	if (wrc == CM_ENOMEM || wrc == CM_EIO || !worst)
		worst = wrc ? wrc : worst;
	/* the maps that loaded: playability and, with --games, simulated games */
	int rc = worst == CM_ENOMEM ? worst : cm_check_workspace(w, &co, d);
	if (rc == CM_ENOMEM || !worst)
		worst = rc;
	cm_diags_sort(d);
	if (fmt == FMT_TEXT) {
		int files = argc - optind;
		char sum[128];
		cm_diags_summary(d, sum, sizeof sum);
		if (cm_diags_write_text(d, stderr))
			ec = EXIT_IO;
		fprintf(stderr, "%s in %d file%s\n", sum, files, files == 1 ? "" : "s");
	} else {
		ec = cli_print_diags(d, fmt, 0);
	}
	if (!ec)
		ec = cli_exit_code(worst, d);
out:
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
