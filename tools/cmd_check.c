/* cmd_check.c: `carcamap check`: validates the files it is given, whatever
 * their kind, reports every problem (text, JSON or SARIF) and maps the
 * result to the exit status; --list prints the check catalogue. Each kind
 * of file is one case of check_file() calling its library loader. */
#include <getopt.h>
#include <string.h>
#include "cli.h"
#include "json_int.h" /* --list --format json */

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap check [options] FILE...\n"
	        "       carcamap check --list [--format text|json]\n"
	        "\n"
	        "Checks tile sets, map descriptors (with their annotated images) and map\n"
	        "packs against their formats and the game's rules, and reports every\n"
	        "problem found, each with its place and a stable check id (CM0101 ...).\n"
	        "The kind of each file is detected from its content. All files form one\n"
	        "set: a map's deck may name a tile set given alongside it.\n"
	        "\n"
	        "Options:\n"
	        "  --format FMT   text (default): diagnostics on stderr, as\n"
	        "                 'file:line:col: error: message [CM0101]' with the source\n"
	        "                 line quoted, then 'N errors, N warnings in M files';\n"
	        "                 json or sarif (SARIF 2.1.0): the report alone on stdout\n"
	        "  --strict       treat warnings as errors\n"
	        "  --ignore ID    drop diagnostics of check ID (repeatable)\n"
	        "  --only ID      keep only diagnostics of check ID (repeatable)\n"
	        "  --games N      also play N random games per map (2 players) and report\n"
	        "                 the fill ratio, squares rarely filled and tiles put aside\n"
	        "                 (checks CM06xx); 0..%d, default 0\n"
	        "  --seed N       seed of the first game (game i plays seed+i; default %d)\n"
	        "  -T, --tilesets DIR\n"
	        "                 search DIR for the tile sets that map decks name\n"
	        "                 (repeatable; after the files given, before each\n"
	        "                 descriptor's ../tilesets directory)\n"
	        "  --list         print the catalogue of checks (id, severity, game rule,\n"
	        "                 title) instead of checking files\n"
	        "  -h, --help     show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap check maps/tilesets/*.xml\n"
	        "  carcamap check maps/germany/germany.xml\n"
	        "  carcamap check build/maps.pack\n"
	        "  carcamap check --format sarif maps/tilesets/base.xml > report.sarif\n"
	        "  carcamap check --ignore CM0111 --strict my-tiles.xml\n"
	        "  carcamap check --games 1000 maps/iberia/iberia.xml\n"
	        "  carcamap check --list --format json\n"
	        "\n"
	        "Exit status: 0 no errors, 1 errors found in the input, 2 usage error,\n"
	        "3 a file could not be read or an internal failure.\n",
	        CM_CHECK_MAX_GAMES, CM_CHECK_DEFAULT_SEED);
}

static int list_catalog(cli_format fmt)
{
	if (fmt == FMT_JSON) {
		cm_json j;
		cm_json_init(&j, stdout, true);
		cm_json_obj_begin(&j);
		cm_json_key(&j, "checks");
		cm_json_arr_begin(&j);
		for (size_t i = 0; i < cm_catalog_count(); i++) {
			const cm_check_info *c = cm_catalog_get(i);
			cm_json_obj_begin(&j);
			cm_json_key(&j, "id");
			cm_json_str(&j, c->id);
			cm_json_key(&j, "severity");
			cm_json_str(&j, cm_severity_name(c->severity));
			cm_json_key(&j, "rule");
			cm_json_str(&j, c->rule);
			cm_json_key(&j, "title");
			cm_json_str(&j, c->title);
			cm_json_key(&j, "fix");
			cm_json_str(&j, c->fix);
			cm_json_obj_end(&j);
		}
		cm_json_arr_end(&j);
		cm_json_obj_end(&j);
		return cm_json_finish(&j) || fflush(stdout) ? EXIT_IO : EXIT_CLEAN;
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
		{ "games", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return EXIT_IO;
	cli_format fmt = FMT_TEXT;
	cm_check_opts co;
	cm_check_opts_init(&co);
	int list = 0, ec = EXIT_CLEAN, c;
	long v;
	cm_workspace *w = NULL;
	if (cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hT:", opts, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (cm_workspace_add_tileset_dir(w, optarg))
				ec = EXIT_IO;
			break;
		case 'f':
			if (cli_parse_format("check", optarg, 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_SARIF, &fmt))
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
		case 'g':
			if ((v = cli_parse_uint(optarg, CM_CHECK_MAX_GAMES)) < 0)
				ec = cli_usage_error("check", "--games takes a whole number from 0 to %d, not '%s'",
				                     CM_CHECK_MAX_GAMES, optarg);
			co.games = (int)v;
			break;
		case 'S':
			if ((v = cli_parse_uint(optarg, 0x7fffffffL)) < 0)
				ec = cli_usage_error("check", "--seed takes a whole number from 0 to 2147483647, not '%s'", optarg);
			co.seed = (uint64_t)v;
			break;
		case 'h':
			usage(stdout);
			goto out;
		case ':':
			ec = cli_usage_error("check", "option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			ec = cli_usage_error("check", "unknown option '%s'", argv[optind - 1]);
			break;
		}
		if (ec)
			goto out;
	}
	if (list) {
		if (fmt == FMT_SARIF)
			ec = cli_usage_error("check", "--list prints text or json");
		else if (optind < argc)
			ec = cli_usage_error("check", "--list takes no files");
		else
			ec = list_catalog(fmt);
		goto out;
	}
	if (optind >= argc) {
		ec = cli_usage_error("check", "no files to check");
		goto out;
	}
	int worst = cli_workspace_load(w, argc - optind, argv + optind, 1, d);
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
