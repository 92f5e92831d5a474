/* SPDX-License-Identifier: MIT */
/* cmd_compile.c: `carcamap compile`: reads map descriptors (with their
 * images), tile sets and packs, runs every check, and writes one pack only
 * when there are no errors. The library writes packs atomically. */
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap compile [options] FILE...\n"
	        "\n"
	        "Compiles map descriptors (XML, with the annotated images they name),\n"
	        "tile sets and packs into one map pack (an SQLite file). Every check of\n"
	        "'carcamap check' (structure and playability; no simulated games)\n"
	        "runs first; the pack is written only when no error was found, in one\n"
	        "transaction into a temporary file that then replaces PACK, so a failed\n"
	        "run never leaves a partial or damaged pack. The tile sets that a map's\n"
	        "deck names are taken from the files given, then from --tilesets\n"
	        "directories, $CARCAMAP_TILESETS (colon-separated), the source tree's\n"
	        "maps/tilesets when carcamap runs from the tree it was built in, the\n"
	        "installed ones (share/carcamap/tilesets under the install prefix),\n"
	        "and the descriptor's ../tilesets directory, in that order.\n"
	        "A board's directory (maps/germany) stands for the one map descriptor\n"
	        "in it (maps/germany/germany.xml); a directory holding none or several\n"
	        "is refused with what it holds.\n"
	        "\n"
	        "Options:\n"
	        "  -o, --output PACK  the pack to write (default: MAPID.pack when the\n"
	        "                     input holds one map or the printings of one board,\n"
	        "                     named after the board); '-' writes it to standard\n"
	        "                     output (not a terminal). A symlink is followed, an\n"
	        "                     existing pack keeps its mode; one of the inputs\n"
	        "                     is refused, but a pack compiled into itself is\n"
	        "                     rewritten (README \"Outputs\")\n"
	        "  --printing ED      read map descriptors in that printing only, C2 or C3\n"
	        "                     (default: every printing a descriptor describes)\n"
	        "  -T, --tilesets DIR search DIR for tile sets (repeatable)\n"
	        "  --strict           treat warnings as errors\n"
	        "  --title TEXT       the maps' title, for every map of the pack\n"
	        "  --author TEXT      who made them\n"
	        "  --licence TEXT     their licence (an SPDX id such as CC-BY-4.0)\n"
	        "  --pack-version V   their version (of the maps, not of the format)\n"
	        "  --description TEXT\n"
	        "                     what they are\n"
	        "  --homepage URL     where they come from\n"
	        "                     These six set the <about> fields (schemas/map.md)\n"
	        "                     of every map, over what its descriptor says;\n"
	        "                     'carcamap list' shows them, the JSON and TMX\n"
	        "                     exports carry them and they count in the content\n"
	        "                     hash. One line each, at most 256 bytes (the\n"
	        "                     description 4096)\n"
	        "  --format FMT       diagnostics as text (stderr, default), json,\n"
	        "                     sarif or github (GitHub Actions annotations) on\n"
	        "                     stdout\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap compile maps/germany/germany.xml          # germany.pack (C2 and C3)\n"
	        "  carcamap compile -o all.pack maps/*/[a-z]*.xml\n"
	        "  carcamap compile -o mine.pack -T ~/tiles my-map.xml\n"
	        "  carcamap compile -o mine.pack --author 'A. Maker' --licence CC-BY-4.0 *.xml\n"
	        "\n"
	        "Exit status: 0 pack written (warnings allowed), 1 problems found (no\n"
	        "pack written), 2 usage error, 3 I/O or internal failure.\n");
}

/* m with the options' about fields (about[k], NULL: the map's own) in
 * *out: m itself when no option is given, else a new map built from it
 * (also in *own, for the caller to free). Its model check (CM0411, as the
 * pack writer's) refuses what no pack may hold. 0, CM_EINVAL, CM_ENOMEM. */
static int about_map(const cm_map *m, const char *const about[CM_ABOUT_FIELDS], cm_diags *d, const cm_map **out,
                     cm_map **own)
{
	bool any = false;
	for (int k = 0; k < CM_ABOUT_FIELDS; k++)
		any |= about[k] != NULL;
	*out = m;
	*own = NULL;
	if (!any)
		return 0;
	cm_map_builder *b = NULL;
	int rc = cm_map_builder_from(m, &b);
	for (int k = 0; k < CM_ABOUT_FIELDS && !rc; k++)
		if (about[k])
			rc = cm_map_builder_set_about(b, k, about[k]);
	if (rc) {
		cm_map_builder_free(b);
		return rc;
	}
	rc = cm_map_builder_finish(b, "CM0411", NULL, d, own);
	*out = *own;
	return rc;
}

int cmd_compile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "printing", required_argument, NULL, 'P' },
		{ "strict", no_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		/* the <about> fields, in cm_about_name order: values 1000 + field */
		{ "title", required_argument, NULL, 1000 },
		{ "author", required_argument, NULL, 1001 },
		{ "licence", required_argument, NULL, 1002 },
		{ "pack-version", required_argument, NULL, 1003 },
		{ "description", required_argument, NULL, 1004 },
		{ "homepage", required_argument, NULL, 1005 },
		{ NULL, 0, NULL, 0 },
	};
	const char *about[CM_ABOUT_FIELDS] = { NULL };
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	char *auto_out = NULL;
	const cm_map **maps = NULL;
	cm_map **own = NULL; /* the maps rebuilt with the options' about fields */
	const cm_tileset **sets = NULL;
	if (cm_diags_new(&d) || cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	const char *out = NULL;
	cli_format fmt = FMT_TEXT;
	int ec = EXIT_CLEAN, c;
	cli_opts o = { .cmd = "compile", .opts = opts, .usage = usage, .tilesets = w, .printing_w = w };
	while ((c = cli_next_option(&o, argc, argv, ":ho:T:")) >= 0) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 's':
			cm_diags_set_strict(d, 1);
			break;
		case 'f':
			if (cli_parse_format("compile", optarg, 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_SARIF | 1u << FMT_GITHUB, &fmt))
				ec = EXIT_USAGE;
			break;
		case 1000: case 1001: case 1002: case 1003: case 1004: case 1005:
			about[c - 1000] = optarg;
			break;
		}
		if (ec)
			goto done;
	}
	if (c == CLI_STOP) {
		ec = o.status;
		goto done;
	}
	if (optind >= argc) {
		ec = cli_usage_error("compile", "no files to compile");
		goto done;
	}
	bool stream = false;
	if ((ec = cli_output_check("compile", "-o", out, NULL, true, &stream)) != 0)
		goto done;
	int rc = cli_workspace_load(w, argc - optind, argv + optind, 1, d);
	/* the same checks as `carcamap check` (without games) on every map that loaded */
	int crc = rc == CM_ENOMEM ? rc : cm_check_workspace(w, NULL, d);
	if (crc == CM_ENOMEM || !rc)
		rc = crc;
	size_t n_maps = cm_workspace_map_count(w), n_sets = cm_workspace_tileset_count(w);
	if (!rc && n_maps == 0 && n_sets == 0) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, NULL, "nothing to compile: no map or tile set");
		rc = CM_EINVAL;
	}
	if (!out && !rc) {
		/* one map, or the printings of one board (germany, germany-c3):
		 * named after it */
		const char *board = cli_board_id(w);
		if (!board) {
			ec = n_maps ? cli_usage_error("compile", "the input holds %zu maps of several boards: name the pack "
			                                         "with -o",
			                              n_maps)
			            : cli_usage_error("compile", "the input holds no map: name the pack with -o");
			goto done;
		}
		if (!cm_id_valid(board)) {
			/* every reader checks ids; the file name is never built
			 * from text that could be ../x or /etc/x */
			ec = cli_usage_error("compile", "the map id is not an id: name the pack with -o");
			goto done;
		}
		if (!(auto_out = cli_asprintf("%s.pack", board))) {
			ec = EXIT_IO;
			goto done;
		}
		out = auto_out;
		/* the name made is an output like any other: never an input */
		if ((ec = cli_output_check("compile", "-o", out, NULL, true, &stream)) != 0)
			goto done;
	}
	/* a pack compiled into itself is rewritten (it was read whole); no
	 * other input is ever overwritten */
	if (!rc && (ec = cli_output_not_input("compile", "-o", out, CM_FILE_PACK, argc - optind, argv + optind, w, d)) != 0)
		goto done;
	if (!rc && cm_diags_errors(d) == 0) {
		maps = malloc((n_maps + 1) * sizeof *maps);
		own = calloc(n_maps + 1, sizeof *own);
		sets = malloc((n_sets + 1) * sizeof *sets);
		if (!maps || !own || !sets) {
			ec = EXIT_IO;
			goto done;
		}
		for (size_t i = 0; i < n_maps && rc != CM_ENOMEM; i++) {
			int mrc = about_map(cm_workspace_map(w, i), about, d, &maps[i], &own[i]);
			if (mrc == CM_ENOMEM || (mrc && !rc))
				rc = mrc; /* every map's problems are reported */
		}
		for (size_t i = 0; i < n_sets; i++)
			sets[i] = cm_workspace_tileset(w, i);
		if (!rc)
			rc = cm_pack_write(out, maps, n_maps, sets, n_sets, d);
		if (!rc && fmt == FMT_TEXT)
			fprintf(stderr, "wrote %s: %zu map%s, %zu tile set%s\n",
			        strcmp(out, "-") == 0 ? "the pack to standard output" : out, n_maps, n_maps == 1 ? "" : "s",
			        n_sets, n_sets == 1 ? "" : "s");
	}
	ec = cli_finish(d, fmt, rc);
done:
	for (size_t i = 0; own && i < cm_workspace_map_count(w); i++)
		cm_map_free(own[i]);
	free(own);
	free(maps);
	free(sets);
	free(auto_out);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
