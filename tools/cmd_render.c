/* SPDX-License-Identifier: MIT */
/* cmd_render.c: `carcamap render`: draws a map (from a descriptor or a
 * pack) as a PNG picture with the library's renderer; with --game, the
 * final board of one random game (cm_play_game) drawn on it. */
#include <getopt.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "carcamap/stats.h"
#include "base/util_int.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap render [options] (MAP.xml | PACK --map ID) [TILESETS...]\n"
	        "\n"
	        "Draws a map as a PNG picture: squares coloured by kind with the legend's\n"
	        "colours, and at larger scales the printed big cities with their\n"
	        "features, edge prints, ferries, islands, start squares and a grid.\n"
	        "At --scale 1 (one pixel per square) or --scale 0 (the legend's own\n"
	        "grid) the picture is an annotated image that 'carcamap import' reads\n"
	        "back to the same squares.\n"
	        "\n"
	        "Options:\n"
	        "  -o, --output FILE  the PNG to write (default: MAPID.png)\n"
	        "  --map ID           the map to draw when the input holds several\n"
	        "  --printing ED      the printing of the board, C2 or C3 (maps/README.md:\n"
	        "                     a descriptor may describe both; default: its first)\n"
	        "  --scale N          pixels per square, 0..256 (default 24)\n"
	        "  --legend FILE      colours (default: the descriptor's legend, else the\n"
	        "                     built-in colours)\n"
	        "  --no-grid          no lines between squares\n"
	        "  --no-features      squares only: no cities, prints, ferries, outlines\n"
	        "  --diagnostics      run the map's checks (as 'carcamap check') and frame\n"
	        "                     in red every square a diagnostic is about; the\n"
	        "                     diagnostics go to stderr, the exit status is 1 when\n"
	        "                     one is an error (the picture is written all the same)\n"
	        "  --game SEED        draw the tiles at the end of one random game played\n"
	        "                     with this seed (the first game of 'carcamap play\n"
	        "                     --seed SEED'); needs the deck's tile sets\n"
	        "  --players P        seats in that game, 2..6 (default 2)\n"
	        "  -T, --tilesets DIR search DIR for the tile sets the deck names\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap render maps/benelux/benelux.xml -o benelux.png\n"
	        "  carcamap render build/maps.pack --map france --scale 32 -o france.png\n"
	        "  carcamap render --scale 0 --legend maps/legend.xml my-map.xml -o my-map.png\n"
	        "  carcamap render --diagnostics my-map.xml -o problems.png\n"
	        "  carcamap render maps/benelux/benelux.xml --game 7 -o game7.png\n"
	        "\n"
	        "Exit status: 0 written, 1 problems in the input, 2 usage error, 3 I/O or\n"
	        "internal failure.\n");
}

/* Plays the game of seed on m and lists its tiles into *out (a new array
 * of tiles whose types the deck owns). */
static int game_tiles(const cm_workspace *w, const cm_map *m, uint64_t seed, int players,
                      cm_deck **deck, cm_render_tile **out, size_t *n, cm_diags *d)
{
	cm_board *b = NULL;
	int rc = cm_play_deck(w, m, d, deck);
	if (!rc)
		rc = cm_board_new(m, *deck, NULL, players, seed, 0, d, &b);
	if (!rc)
		rc = cm_play_game(b, seed, d);
	if (!rc && !(*out = calloc((size_t)m->cols * (size_t)m->rows + 1, sizeof **out)))
		rc = CM_ENOMEM;
	for (int y = 0; !rc && y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			int t, r;
			if (cm_board_tile_at(b, x, y, &t, &r) == 0)
				(*out)[(*n)++] = (cm_render_tile){ x, y, cm_deck_type(*deck, (size_t)t), r };
		}
	cm_board_free(b);
	return rc;
}

/* --diagnostics: the checks of `carcamap check` on m, and one mark per
 * square the new diagnostics are about (each square once, in the order
 * found). Problems in the map are no failure here: 0 or CM_ENOMEM. */
static int mark_diagnostics(const cm_workspace *w, const cm_map *m, cm_diags *d, cm_render_mark **out,
                            size_t *n)
{
	size_t before = cm_diags_count(d);
	cm_tileset **sets = NULL;
	size_t n_sets = 0;
	if (cm_workspace_map_sets(w, m, &sets, &n_sets))
		return CM_ENOMEM;
	cm_check_opts co;
	cm_check_opts_init(&co);
	co.structure = m->file == NULL;
	int rc = cm_check_map(m, (const cm_tileset *const *)sets, n_sets, &co, d);
	free(sets);
	if (rc == CM_ENOMEM)
		return rc;
	size_t total = cm_diags_count(d) - before;
	*out = calloc(total + 1, sizeof **out);
	if (!*out)
		return CM_ENOMEM;
	*n = 0;
	for (size_t i = before; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		bool seen = g->x < 0 || g->y < 0;
		for (size_t k = 0; !seen && k < *n; k++)
			seen = (*out)[k].x == g->x && (*out)[k].y == g->y;
		if (!seen)
			(*out)[(*n)++] = (cm_render_mark){ g->x, g->y };
	}
	return 0;
}

int cmd_render(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "map", required_argument, NULL, 'm' },
		{ "printing", required_argument, NULL, 'P' },
		{ "scale", required_argument, NULL, 's' },
		{ "legend", required_argument, NULL, 'l' },
		{ "no-grid", no_argument, NULL, 'g' },
		{ "no-features", no_argument, NULL, 'F' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "diagnostics", no_argument, NULL, 'D' },
		{ "game", required_argument, NULL, 'G' },
		{ "players", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cm_legend *lg = NULL;
	cm_deck *deck = NULL;
	cm_render_tile *tiles = NULL;
	size_t n_tiles = 0;
	long game = -1, players = 2;
	int players_given = 0;
	char *auto_out = NULL, *legend_path = NULL;
	cm_render_mark *marks = NULL;
	int diagnostics = 0;
	cli_target t = { .cmd = "render" };
	if (cm_diags_new(&d) || cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	const char *out = NULL, *legend = NULL;
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.scale = 24;
	int ec = EXIT_CLEAN, c;
	long v;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:T:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'm': t.map_id = optarg; break;
		case 'l': legend = optarg; break;
		case 'g': o.flags &= ~(unsigned)CM_RENDER_GRID; break;
		case 'F': o.flags &= ~(unsigned)CM_RENDER_FEATURES; break;
		case 'D': diagnostics = 1; break;
		case 's':
			if ((v = cli_parse_uint(optarg, 256)) < 0)
				ec = cli_usage_error("render", "--scale takes a whole number from 0 to 256, not '%s'", optarg);
			o.scale = (int)v;
			break;
		case 'T':
			ec = cli_tileset_option(w, optarg);
			break;
		case 'G':
			if ((game = cli_parse_uint(optarg, LONG_MAX)) < 0)
				ec = cli_usage_error("render", "--game takes a seed (a whole number), not '%s'", optarg);
			break;
		case 'p':
			players_given = 1;
			if ((players = cli_parse_uint(optarg, CM_MAX_PLAYERS)) < 2)
				ec = cli_usage_error("render", "--players takes a number from 2 to %d, not '%s'",
				                     CM_MAX_PLAYERS, optarg);
			break;
		case 'P':
			ec = cli_printing_option("render", optarg, &t.printing);
			break;
		case 'h':
			usage(stdout);
			goto done;
		default:
			ec = cli_bad_option("render", c, argv, opts);
			break;
		}
		if (ec)
			goto done;
	}
	if (players_given && game < 0) {
		ec = cli_usage_error("render", "--players goes with --game SEED");
		goto done;
	}
	if (optind >= argc) {
		ec = cli_usage_error("render", "no map to render");
		goto done;
	}
	t.decks = game >= 0 || diagnostics;
	int rc = cli_load_map(&t, w, argc - optind, argv + optind, d);
	if (rc == CLI_NO_MAP) {
		ec = EXIT_USAGE;
		goto done;
	}
	cm_map *m = t.map;
	if (!rc) {
		if (!legend && m->legend && m->file)
			legend = legend_path = cm_path_resolve(m->file, m->legend);
		rc = legend ? cm_legend_load_file(legend, d, &lg) : cm_legend_default(&lg);
	}
	if (!rc && game >= 0) {
		rc = game_tiles(w, m, (uint64_t)game, (int)players, &deck, &tiles, &n_tiles, d);
		o.tiles = tiles;
		o.n_tiles = n_tiles;
	}
	if (!rc && diagnostics) {
		rc = mark_diagnostics(w, m, d, &marks, &o.n_marks);
		o.marks = marks;
	}
	if (!rc) {
		if (!out && !cm_id_valid(m->id)) {
			/* every reader checks ids; never a file name from other text */
			ec = cli_usage_error("render", "the map id is not an id: name the picture with -o");
			goto done;
		}
		if (!out) {
			out = auto_out = cm_asprintf("%s.png", m->id);
			if (!out) {
				ec = EXIT_IO;
				goto done;
			}
		}
		rc = cm_render_map(m, lg, &o, out, d);
	}
	ec = cli_finish(d, FMT_TEXT, rc);
done:
	free(marks);
	free(tiles);
	cm_deck_free(deck);
	cm_legend_free(lg);
	free(legend_path);
	free(auto_out);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
