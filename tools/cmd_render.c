/* SPDX-License-Identifier: MIT */
/* cmd_render.c: `carcamap render`: draws a map (from a descriptor or a
 * pack) as a PNG, SVG, HTML or PDF picture with the library's renderers, or
 * tile sets as sheets (to print: PDF; to look at: SVG, HTML, PNG); with
 * --diagnostics the checks' findings on it (also for a map with structural
 * errors: what was understood), with --game one random game's final board,
 * with --watch again whenever an input changes. */
#include <getopt.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "carcamap/stats.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap render [options] (MAP.xml | PACK --map ID) [TILESETS...]\n"
	        "       carcamap render [options] TILESET.xml -o TILES.pdf\n"
	        "       carcamap render [options] (TILESET.xml... | PACK --tileset ID|all) -o SHEET.svg|.html|.png\n"
	        "\n"
	        "Draws a map as a picture. The format follows -o's extension (.png, .svg,\n"
	        ".html, .pdf) unless --format names it; the two must agree.\n"
	        "  png   at --scale 1 (one pixel per square) or --scale 0 (the legend's own\n"
	        "        grid): an annotated image, squares coloured by kind with the\n"
	        "        legend's colours, that 'carcamap import' reads back. At --scale 2\n"
	        "        and more: the SVG's picture with all its words, drawn by cairo.\n"
	        "  svg   every element with its words: the title line (name, edition, tile\n"
	        "        range, start squares, deck size), square, big-city, island and\n"
	        "        landmark names, edge prints with their labels and coats of arms,\n"
	        "        ferries, Map-Chips markers, coordinates (x on top, y on the left:\n"
	        "        the numbers diagnostics use) and a key. Long names shrink, or are\n"
	        "        shortened with the full name as a tooltip (<title>).\n"
	        "  html  the SVG in one self-contained page (works from file://): hover a\n"
	        "        square for its coordinates, kind, name, markers, edge prints and\n"
	        "        the number of the deck's tile types that fit there; the panel\n"
	        "        lists the diagnostics with the catalogue's explanation, and\n"
	        "        selecting one highlights its square.\n"
	        "  pdf   the SVG's picture at true size to print and play on: a square is\n"
	        "        45 mm (a Carcassonne tile) unless --square-mm says otherwise; text\n"
	        "        is real text, lines are vectors. One sheet of the picture's size\n"
	        "        with crop marks, or with --paper a poster over pages: an assembly\n"
	        "        page first, then each page with its row and column, a small map of\n"
	        "        where it lies, a dashed cut line on its left (top) edge and crosses\n"
	        "        where the next page's cut edge goes; neighbours share 10 mm of the\n"
	        "        board, inside 10 mm margins; pages that would print nothing are\n"
	        "        left out (schemas/render.md). Names shortened on\n"
	        "        the map are listed in full below it (paper has no tooltips).\n"
	        "A tile set (TILESET.xml alone) is drawn as tile sheets to print and play:\n"
	        "every tile type at true size as many times as its count (--printing: C1,\n"
	        "C2 or C3 counts, default C2), on pages of --paper (default a4) with cut\n"
	        "lines along every tile edge; --backs adds a page of backs after each page\n"
	        "of fronts, mirrored for printing two-sided (flip on the long edge).\n");
	fprintf(f,
	        "To look at, tile sets are drawn as a tile sheet (svg, html, png): every\n"
	        "tile type of each set from its features (the drawing of a played board),\n"
	        "in id order, each with its id, name, copies per edition (C1, C2, C3) and\n"
	        "markers, a section per set. html: hover a feature to outline it and read\n"
	        "its id, kind, slots, contacts, touches and coats of arms; click a tile to\n"
	        "see it turned four ways. With --diagnostics each problem is drawn on its\n"
	        "tile with its check id (uncovered and doubly covered slots marked on the\n"
	        "edge), the set's own under its name, also when the file has errors.\n"
	        "--scale is then the pixels a tile side asks for (default 108).\n"
	        "Colours are the project's one palette (the same in every format).\n"
	        "\n");
	fprintf(f,
	        "Options:\n"
	        "  -o, --output FILE  the picture to write (default: MAPID.png, or .svg, .html,\n"
	        "                     .pdf with --format); '-' (with --format): standard\n"
	        "                     output (png and pdf: not a terminal). A symlink is\n"
	        "                     followed, an existing file keeps its mode; an input\n"
	        "                     is refused\n"
	        "  --format F         png, svg, html or pdf\n"
	        "  --map ID           the map to draw when the input holds several\n"
	        "  --printing ED      the printing of the board, C2 or C3 (maps/README.md:\n"
	        "                     a descriptor may describe both; default: its first)\n"
	        "  --scale N          pixels per square, 0..256 (default 24; svg and html:\n"
	        "                     the size the picture asks for, default 36 and 54)\n"
	        "  --legend FILE      png colours at --scale 0 and 1 (default: the\n"
	        "                     descriptor's legend, else the built-in colours)\n"
	        "  --square-mm MM     pdf: a square's side, 5 to 500 mm (default 45)\n"
	        "  --paper P          pdf: a4, a3, letter or WxHmm (like 600x900mm): a\n"
	        "                     poster over pages of that paper, turned whichever way\n"
	        "                     needs fewer (at most 500 pages); none (default): one\n"
	        "                     sheet (at most 5080 mm a side)\n"
	        "  --bleed MM         pdf with --paper none: the picture's edge carried on\n"
	        "                     past the trim by MM (0 to 50; default 0), crop marks\n"
	        "                     outside it\n"
	        "  --backs            tile sheets: a page of tile backs after each page\n"
	        "  --no-grid          no lines between squares\n"
	        "  --no-features      no edge prints, ferries or start outlines\n"
	        "  --diagnostics      run the map's checks (as 'carcamap check') and frame\n"
	        "                     every square a diagnostic is about in its severity's\n"
	        "                     colour with its check id (png at --scale 0 or 1:\n"
	        "                     the frame only), the messages listed (svg, html:\n"
	        "                     also as tooltips). The picture is written even\n"
	        "                     when the descriptor has structural errors: what was\n"
	        "                     understood is drawn. Diagnostics go to stderr; the\n"
	        "                     exit status is 1 when one is an error\n"
	        "  --game SEED        draw the board at the end of one random game played\n"
	        "                     with this seed (the first game of 'carcamap play\n"
	        "                     --seed SEED'); needs the deck's tile sets. svg/html:\n"
	        "                     followers in player colours with their numbers,\n"
	        "                     squares never filled crossed, the final scores, and\n"
	        "                     each feature's explained score items (hover it)\n"
	        "  --players P        seats in that game (or the heatmap's), 2..6 (default 2)\n"
	        "  --heatmap KIND     svg, html: colour the squares by what --games games of\n"
	        "                     --heat-players did there: fill (share of games that\n"
	        "                     filled the square), turn (mean turn it was filled),\n"
	        "                     points (mean points of the features covering it), use\n"
	        "                     (share of games that completed each big city, edge\n"
	        "                     print, ferry and island); a legend below the map, each\n"
	        "                     value with its 95%% interval on hover (schemas/balance-\n"
	        "                     json.md \"Heatmaps\"); printed elements never connected\n"
	        "                     or completed are CM0605 warnings\n"
	        "  --games N          the heatmap's games, 1..1000000 (default 500): seeds 1\n"
	        "                     to N, the games carcamap play --games N plays\n"
	        "  --heat-players P   the heatmap's players, one spec for every seat (default\n"
	        "                     greedy; random, greedy, mcts, mcts:N)\n");
	fprintf(f,
	        "  --watch            render again whenever the descriptor, its image, its\n"
	        "                     legend or a tile set it uses changes (inotify, else\n"
	        "                     polling), printing one line per render with the\n"
	        "                     error and warning counts, until interrupted\n"
	        "  -T, --tilesets DIR search DIR for the tile sets the deck names\n"
	        "  --tileset ID       draw a tile sheet of this tile set of the inputs (a\n"
	        "                     pack's too); repeat for more, 'all' for every one\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap render maps/benelux/benelux.xml -o benelux.svg\n"
	        "  carcamap render maps/benelux/benelux.xml --diagnostics -o benelux.html\n"
	        "  carcamap render maps/france/france.xml --scale 32 -o france.png\n"
	        "  carcamap render --scale 0 --legend maps/legend.xml my-map.xml -o my-map.png\n"
	        "  carcamap render --diagnostics my-map.xml -o problems.svg\n"
	        "  carcamap render maps/benelux/benelux.xml --game 7 -o game7.html\n"
	        "  carcamap render --watch --diagnostics my-map.xml -o my-map.html\n"
	        "  carcamap render maps/benelux/benelux.xml -o benelux.pdf\n"
	        "  carcamap render maps/benelux/benelux.xml --paper a4 -o benelux-a4.pdf\n"
	        "  carcamap render maps/benelux/benelux.xml --paper none --bleed 3 -o print.pdf\n"
	        "  carcamap render maps/tilesets/inns-cathedrals.xml --backs -o inns.pdf\n"
	        "  carcamap render maps/germany/germany.xml --heatmap fill -o germany-fill.html\n"
	        "  carcamap render maps/iberia/iberia.xml --heatmap use --games 200 -o use.svg\n"
	        "  carcamap render maps/tilesets/goldmines.xml -o goldmines.svg\n"
	        "  carcamap render --diagnostics maps/tilesets/base.xml -o base.html\n"
	        "  carcamap render maps/tilesets/base.xml maps/tilesets/robbers.xml -o sets.png\n"
	        "  carcamap render --watch --diagnostics my-tiles.xml -o my-tiles.html\n"
	        "\n"
	        "A PDF's creation date is 1970-01-01, or SOURCE_DATE_EPOCH's: the same\n"
	        "input gives the same bytes.\n"
	        "\n"
	        "Exit status: 0 written, 1 problems in the input (also a picture over the\n"
	        "size limits: CM0341, CM0342), 2 usage error, 3 I/O or internal failure\n"
	        "(with --watch: that of the last render).\n");
}

/* What one render does, from the options. */
typedef struct {
	int argc;
	char **files;
	const char *out, *legend, *map_id;
	char **tdirs;
	size_t n_tdirs;
	cm_render_format format;
	int scale, scale_given;
	unsigned flags;
	int diagnostics;
	long game, players;
	int printing; /* --printing: the cm_edition + 1, or 0 (cli_target.printing) */
	int square_um, paper_w_um, paper_h_um, bleed_um; /* pdf */
	long long epoch;
	int backs;    /* tile sheets */
	int format_given;
	char **sets;  /* --tileset ID (repeatable; "all"): a tile sheet of these */
	size_t n_sets;
	int games_given;
	int heatmap;  /* a cm_heat_kind, or -1 */
	long games;   /* the heatmap's games */
	const char *heat_players;
} job;

/* The result of one render, for --watch. */
typedef struct {
	char **deps;      /* files it read */
	size_t n_deps, cap_deps;
	size_t errors, warnings;
	int written;
	int oom;
} outcome;

static void dep(outcome *r, const char *path)
{
	if (!path)
		return;
	char *c = cli_strdup(path);
	if (!c || cli_grow((void **)&r->deps, &r->cap_deps, r->n_deps, sizeof *r->deps)) {
		free(c);
		r->oom = 1;
		return;
	}
	r->deps[r->n_deps++] = c;
}

static void outcome_clear(outcome *r)
{
	for (size_t i = 0; i < r->n_deps; i++)
		free(r->deps[i]);
	free(r->deps);
	memset(r, 0, sizeof *r);
}

/* Score items of the whole game, gathered by the board's hook. */
typedef struct {
	cm_score_item *v;
	size_t n, cap;
	int oom;
} items_acc;

static void on_items(void *arg, const cm_score_item *items, size_t n)
{
	items_acc *a = arg;
	for (size_t i = 0; i < n && !a->oom; i++) {
		if (cli_grow((void **)&a->v, &a->cap, a->n, sizeof *a->v)) {
			a->oom = 1;
			return;
		}
		a->v[a->n++] = items[i];
	}
}

/* Plays the game of seed on m: the board after final scoring in *b, its
 * tiles (PNG) in *tiles and every score item in *acc. */
static int play(const cm_map *m, const cm_deck *deck, uint64_t seed, int players, cm_board **b, items_acc *acc,
                cm_render_tile **tiles, size_t *n, cm_diags *d)
{
	int rc = cm_board_new(m, deck, NULL, players, seed, 0, d, b);
	if (rc)
		return rc;
	cm_board_set_score_hook(*b, on_items, acc);
	rc = cm_play_game(*b, seed, d);
	cm_board_set_score_hook(*b, NULL, NULL);
	if (!rc && acc->oom)
		rc = CM_ENOMEM;
	if (!rc && !(*tiles = calloc((size_t)cm_map_cols(m) * (size_t)cm_map_rows(m) + 1, sizeof **tiles)))
		rc = CM_ENOMEM;
	for (int y = 0; !rc && y < cm_map_rows(m); y++)
		for (int x = 0; x < cm_map_cols(m); x++) {
			int t, r;
			if (cm_board_tile_at(*b, x, y, &t, &r) == 0)
				(*tiles)[(*n)++] = (cm_render_tile){ x, y, cm_deck_type(deck, (size_t)t), r };
		}
	return rc;
}

/* One mark per square that diagnostics are about, in the worst severity. */
static int marks_of(const cm_map *m, const cm_diags *d, cm_render_mark **out, size_t *n)
{
	size_t N = (size_t)cm_map_cols(m) * (size_t)cm_map_rows(m);
	signed char *worst = malloc(N + 1);
	if (!worst || !(*out = calloc(N + 1, sizeof **out))) {
		free(worst);
		return CM_ENOMEM;
	}
	memset(worst, -1, N + 1);
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		if (!cm_map_at(m, g->x, g->y))
			continue;
		size_t s = (size_t)g->y * (size_t)cm_map_cols(m) + (size_t)g->x;
		if ((int)g->severity > worst[s])
			worst[s] = (signed char)g->severity;
	}
	*n = 0;
	for (size_t s = 0; s < N; s++)
		if (worst[s] >= 0)
			(*out)[(*n)++] = (cm_render_mark){ (int)(s % (size_t)cm_map_cols(m)), (int)(s / (size_t)cm_map_cols(m)),
				                           (cm_severity)worst[s] };
	free(worst);
	return 0;
}

/* A stand-in when nothing of the input could be read (--diagnostics): one
 * empty square, named after the file (or not, when the file's name is no
 * text a map may hold), and the diagnostics listed. */
static int placeholder(const char *file, cm_map **out)
{
	*out = NULL;
	for (int named = 1; named >= 0; named--) {
		cm_map_builder *b = NULL;
		char *name = named ? cli_asprintf("%s (could not be read)", file) : NULL;
		int rc = (named && !name) ? CM_ENOMEM : cm_map_builder_new(1, 1, &b);
		if (!rc && (cm_map_builder_set_id(b, "unreadable") || cm_map_builder_set_name(b, name)))
			rc = CM_ENOMEM;
		free(name);
		if (rc) {
			cm_map_builder_free(b);
			return rc;
		}
		if ((rc = cm_map_builder_finish(b, NULL, NULL, NULL, out)) != CM_EINVAL)
			return rc;
	}
	return CM_EINVAL;
}

/* Whether every input is a tile set file (a tile sheet to draw). */
static int tilesets_only(const job *j)
{
	for (int i = 0; i < j->argc; i++)
		if (cm_file_detect(j->files[i], NULL) != CM_FILE_TILESET)
			return 0;
	return j->argc > 0;
}

/* A tile set as sheets to print and play: its tiles at true size. */
static int render_tiles(const job *j, outcome *r)
{
	cm_diags *d = NULL;
	cm_tileset *ts = NULL;
	int rc = 0, ec;
	if (cm_diags_new(&d))
		return EXIT_IO;
	if (j->argc != 1) {
		cm_diags_free(d);
		return cli_usage_error("render", "a tile sheet is one tile set: give one file, not %d", j->argc);
	}
	if ((rc = cm_tileset_load_file(j->files[0], d, &ts)) == 0) {
		cm_render_opts o;
		cm_render_opts_init(&o);
		o.format = CM_RENDER_PDF;
		o.square_um = j->square_um;
		o.paper_w_um = j->paper_w_um;
		o.paper_h_um = j->paper_h_um;
		o.epoch = j->epoch;
		o.edition = j->printing ? (cm_edition)(j->printing - 1) : CM_EDITION_C2;
		o.backs = j->backs;
		char *auto_out = j->out ? NULL : cli_asprintf("%s.pdf", ts->id);
		const char *out = j->out ? j->out : auto_out;
		/* the tile set file is never drawn over */
		if (out && (ec = cli_output_not_input("render", "-o", out, -1, j->argc, j->files, NULL, d)) != 0) {
			free(auto_out);
			cm_tileset_free(ts);
			cm_diags_free(d);
			return ec;
		}
		rc = out ? cm_render_tileset(ts, &o, out, d) : CM_ENOMEM;
		r->written = rc == 0;
		free(auto_out);
	}
	ec = cli_finish(d, FMT_TEXT, rc);
	r->errors = cm_diags_errors(d);
	cm_tileset_free(ts);
	cm_diags_free(d);
	return ec;
}

/* After the writer returned wrc: whether the picture is written, and the
 * run's code: the writer's failure, else what loading said. */
static int wrote(outcome *r, int wrc, int rc)
{
	if (!wrc)
		r->written = 1;
	return wrc ? wrc : rc;
}

/* The end of one render: the outcome's counts, the diagnostics printed,
 * the exit code. */
static int finish(cm_diags *d, outcome *r, int rc)
{
	if (rc == CM_ENOMEM)
		r->oom = 1;
	r->errors = cm_diags_errors(d);
	r->warnings = cm_diags_count_at_least(d, CM_SEV_WARNING) - r->errors;
	return cli_finish(d, FMT_TEXT, rc);
}

/* ---- tile sheets ---- */

/* Whether the job draws tile sets: --tileset, or tile set files alone. */
static int sheet_job(const job *j)
{
	return j->n_sets || tilesets_only(j);
}

/* The sets of the sheet: those --tileset names (all of them for "all"),
 * else every one, in input order; NULL entries for names not found. */
static int pick_sets(const job *j, const cm_tileset *const *have, size_t n_have, const cm_tileset ***out, size_t *n)
{
	int all = !j->n_sets;
	for (size_t i = 0; i < j->n_sets; i++)
		all |= strcmp(j->sets[i], "all") == 0;
	*n = 0;
	if (!(*out = calloc((all ? n_have : j->n_sets) + 1, sizeof **out)))
		return CM_ENOMEM;
	if (all) {
		for (size_t i = 0; i < n_have; i++)
			(*out)[(*n)++] = have[i];
		return 0;
	}
	for (size_t i = 0; i < j->n_sets; i++) {
		const cm_tileset *f = NULL;
		for (size_t k = 0; k < n_have && !f; k++)
			if (have[k]->id && strcmp(have[k]->id, j->sets[i]) == 0)
				f = have[k];
		if (!f)
			return cli_usage_error("render", "the input holds no tile set '%s'", j->sets[i]) ? CM_ENOTFOUND : 0;
		(*out)[(*n)++] = f;
	}
	return 0;
}

/* A stand-in for a tile set file nothing could be read of (--diagnostics):
 * a set without tiles named after the file, its problems listed. */
static int unreadable_set(const char *file, cm_tileset **out)
{
	cm_tileset *ts = calloc(1, sizeof *ts);
	if (!ts)
		return CM_ENOMEM;
	ts->id = cli_strdup("unreadable");
	ts->name = cli_asprintf("%s (could not be read)", file);
	ts->file = cli_strdup(file);
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		ts->total[e] = -1;
	*out = ts;
	if (!ts->id || !ts->name || !ts->file)
		return CM_ENOMEM;
	return 0;
}

/* A tile sheet of tile set files (with --diagnostics, each read as far as
 * it goes) or of the sets of packs. */
static int render_sheet(const job *j, outcome *r)
{
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cm_tileset **own = NULL;
	const cm_tileset **have = NULL;
	const cm_tileset **sets = NULL;
	size_t n_own = 0, n_have = 0, n_sets = 0;
	char *auto_out = NULL;
	int rc = 0, ec = EXIT_CLEAN;
	if (j->backs)
		return cli_usage_error("render", "--backs goes with a pdf to print (one tile set, -o TILES.pdf)");
	if (cm_diags_new(&d) || cm_workspace_new(&w) || !(own = calloc((size_t)j->argc + 1, sizeof *own))) {
		ec = EXIT_IO;
		goto done;
	}
	for (int i = 0; i < j->argc && rc != CM_ENOMEM; i++) {
		int kind = cm_file_detect(j->files[i], NULL);
		if (j->diagnostics && kind == CM_FILE_TILESET) {
			/* what was understood of a file with errors is drawn too */
			int lrc = cm_tileset_load_file_flags(j->files[i], CM_TILESET_LOAD_PARTIAL, d, &own[n_own]);
			if (lrc == CM_ENOMEM)
				rc = lrc;
			else if (!own[n_own] && (rc = unreadable_set(j->files[i], &own[n_own])) != 0)
				n_own++;
			if (own[n_own])
				n_own++;
		} else {
			int lrc = cm_workspace_load(w, j->files[i], d);
			if (lrc == CM_ENOMEM)
				rc = lrc;
		}
	}
	if (rc || (!j->diagnostics && cm_diags_errors(d)))
		goto finish;
	size_t nw = cm_workspace_tileset_count(w);
	if (!(have = calloc(n_own + nw + 1, sizeof *have))) {
		rc = CM_ENOMEM;
		goto finish;
	}
	for (size_t i = 0; i < n_own; i++)
		have[n_have++] = own[i];
	for (size_t i = 0; i < nw; i++)
		have[n_have++] = cm_workspace_tileset(w, i);
	if ((rc = pick_sets(j, have, n_have, &sets, &n_sets)) != 0) {
		if (rc == CM_ENOTFOUND)
			ec = EXIT_USAGE;
		goto done;
	}
	if (!n_sets) {
		ec = cli_usage_error("render", "the input holds no tile set to draw");
		goto done;
	}
	for (size_t i = 0; i < n_sets; i++)
		dep(r, sets[i]->file);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = j->format;
	o.scale = j->scale_given ? j->scale : 0;
	if (j->diagnostics) {
		cm_diags_sort(d);
		o.diags = d;
	}
	const char *out = j->out;
	if (!out) {
		if (!cm_id_valid(sets[0]->id)) {
			ec = cli_usage_error("render", "the tile set id is not an id: name the picture with -o");
			goto done;
		}
		out = auto_out = cli_asprintf("%s.%s", sets[0]->id, cm_render_format_name(j->format));
		if (!out) {
			rc = CM_ENOMEM;
			goto finish;
		}
	}
	rc = wrote(r, cm_render_tile_sheet(sets, n_sets, &o, out, d), rc);
finish:
	ec = finish(d, r, rc);
done:
	for (size_t i = 0; i < n_own; i++)
		cm_tileset_free(own[i]);
	free(own);
	free(have);
	free(sets);
	free(auto_out);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}

/* The heatmap's games (cm_balance_heat_play): --games games of
 * --heat-players (greedy when this build has it, else random) in every
 * seat, seeds 1 to N; printed elements never connected or completed are
 * said (CM0605). */
static int heat_games(const job *j, const cm_map *m, const cm_deck *deck, cm_diags *d, cm_balance_heat **out)
{
	const char *spec = j->heat_players;
	cm_player *probe = NULL;
	if (!spec)
		spec = cm_player_new_from_spec("greedy", &probe) == 0 ? "greedy" : "random";
	cm_player_free(probe);
	const char *specs[CM_MAX_PLAYERS];
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		specs[p] = spec;
	cm_play_opts po;
	cm_play_opts_init(&po);
	po.seats = (int)j->players;
	po.players = specs;
	po.seed = 1; /* --game and --heatmap are one or the other */
	po.games = (int)j->games;
	po.jobs = cli_default_jobs();
	int rc = cm_balance_heat_play(m, deck, &po, d, out);
	if (rc == CM_ENOTSUP || rc == CM_ENOTFOUND)
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "render", "player '%s' is not available", spec);
	if (!rc)
		cm_balance_heat_findings(*out, m, d);
	return rc;
}

/* Renders once: loads, checks, plays, draws, prints the diagnostics.
 * Returns the exit code; *r says what was read and written. */
static int render_once(const job *j, outcome *r)
{
	cm_diags *d = NULL, *q = NULL;
	cm_workspace *w = NULL;
	cm_legend *lg = NULL;
	cm_deck *deck = NULL;
	cm_board *board = NULL;
	cm_map *stand_in = NULL;
	cm_render_tile *tiles = NULL;
	cm_render_mark *marks = NULL;
	int *fits = NULL;
	char *auto_out = NULL, *legend_path = NULL, *image_path = NULL;
	items_acc acc = { 0 };
	cm_balance_heat *heat = NULL;
	int ec = EXIT_CLEAN, rc = 0;
	for (int i = 0; i < j->argc; i++)
		dep(r, j->files[i]);
	/* tile sets: to print (pdf, also by default) or to look at */
	if (sheet_job(j)) {
		if (j->format == CM_RENDER_PDF && j->n_sets)
			return cli_usage_error("render", "the pdf to print is of one tile set file: give it, not --tileset");
		return j->format == CM_RENDER_PDF || (!j->out && !j->format_given && !j->n_sets) ? render_tiles(j, r)
		                                                                                : render_sheet(j, r);
	}
	if (j->backs) {
		ec = cli_usage_error("render", "--backs goes with a tile set (a tile sheet), not a map");
		goto done;
	}
	if (cm_diags_new(&d) || cm_diags_new(&q) || cm_workspace_new(&w)) {
		ec = EXIT_IO;
		goto done;
	}
	for (size_t i = 0; i < j->n_tdirs; i++)
		if ((ec = cli_tileset_option(w, j->tdirs[i])))
			goto done;
	if (j->diagnostics)
		cm_workspace_set_map_flags(w, CM_MAP_LOAD_PARTIAL);
	cm_render_opts o;
	cm_render_opts_init(&o);
	o.format = j->format;
	o.scale = j->scale;
	o.flags = j->flags;
	o.square_um = j->square_um;
	o.paper_w_um = j->paper_w_um;
	o.paper_h_um = j->paper_h_um;
	o.bleed_um = j->bleed_um;
	o.epoch = j->epoch;
	int decks = j->game >= 0 || j->diagnostics || j->heatmap >= 0;
	cli_target t = { .cmd = "render", .map_id = j->map_id, .decks = decks, .printing = j->printing };
	const cm_map *m = NULL;
	if (j->diagnostics) {
		/* a descriptor with errors still gives its model (CM_MAP_LOAD_PARTIAL) */
		cm_workspace_set_printing(w, j->printing - 1);
		if (j->map_id && cm_workspace_set_map_only(w, j->map_id)) {
			rc = CM_ENOMEM;
			goto finish;
		}
		rc = cli_workspace_load(w, j->argc, j->files, decks, d);
		if (rc == CM_ENOMEM)
			goto finish;
		/* the map asked for did not load: its diagnostics say why (a
		 * damaged map in a pack), not "no map" */
		if (j->map_id && cm_diags_errors(d) && !cm_workspace_find_map(w, j->map_id)) {
			rc = rc ? rc : CM_EINVAL;
			goto finish;
		}
		if (cm_workspace_map_count(w) > 0) {
			if (!(m = cli_select_map("render", w, j->map_id, j->printing - 1))) {
				ec = EXIT_USAGE;
				goto done;
			}
		} else {
			if ((rc = placeholder(j->files[0], &stand_in)) != 0)
				goto finish;
			m = stand_in;
		}
	} else {
		rc = cli_load_map(&t, w, j->argc, j->files, d);
		if (rc == CLI_NO_MAP) {
			ec = EXIT_USAGE;
			goto done;
		}
		if (rc)
			goto finish;
		m = t.map;
	}
	int clean = cm_diags_errors(d) == 0 && m != stand_in;
	dep(r, cm_map_file(m));
	if (cm_map_file(m) && cm_map_image(m))
		dep(r, image_path = cm_path_resolve(cm_map_file(m), cm_map_image(m)));
	const char *legend = j->legend;
	if (!legend && cm_map_legend(m) && cm_map_file(m))
		legend = legend_path = cm_path_resolve(cm_map_file(m), cm_map_legend(m));
	dep(r, legend);
	if (j->format == CM_RENDER_PNG && !rc) {
		int lrc = legend ? cm_legend_load_file(legend, d, &lg) : cm_legend_default(&lg);
		if (lrc && !j->diagnostics) {
			rc = lrc;
			goto finish;
		}
		if (lrc == CM_ENOMEM) {
			rc = lrc;
			goto finish;
		}
	}
	/* the deck, when its tile sets are known: size, fits, the game */
	if (clean && !decks) { /* only for the title line and the fits: no error when missing */
		if (cli_default_dirs(w)) {
			rc = CM_ENOMEM;
			goto finish;
		}
		cm_workspace_resolve(w, q);
	}
	for (size_t i = 0; i < cm_workspace_tileset_count(w); i++)
		dep(r, cm_workspace_tileset(w, i)->file);
	if (clean && cm_play_deck(w, m, j->game >= 0 || j->heatmap >= 0 ? d : q, &deck) == 0)
		o.deck_size = cm_deck_total(deck);
	if (clean && j->game >= 0) {
		if (!deck) {
			rc = CM_EINVAL;
			goto finish;
		}
		size_t n = 0;
		rc = play(m, deck, (uint64_t)j->game, (int)j->players, &board, &acc, &tiles, &n, d);
		if (rc)
			goto finish;
		o.tiles = tiles;
		o.n_tiles = n;
	}
	if (clean && (j->diagnostics || j->format == CM_RENDER_HTML)) {
		const cm_tileset **sets = NULL;
		size_t n_sets = 0;
		if (!(fits = malloc(((size_t)cm_map_cols(m) * (size_t)cm_map_rows(m) + 1) * sizeof *fits)) ||
		    cm_workspace_map_sets(w, m, &sets, &n_sets)) {
			rc = CM_ENOMEM;
			goto finish;
		}
		cm_check_opts co;
		cm_check_opts_init(&co);
		co.structure = cm_map_file(m) == NULL;
		co.fits = fits;
		int crc = cm_check_map(m, sets, n_sets, &co, j->diagnostics ? d : q);
		free(sets);
		if (crc == CM_ENOMEM) {
			rc = crc;
			goto finish;
		}
		o.fits = fits;
	}
	if (clean && j->heatmap >= 0) {
		if (!deck) {
			rc = CM_EINVAL;
			goto finish;
		}
		if ((rc = heat_games(j, m, deck, d, &heat)) != 0)
			goto finish;
	}
	cm_render_game game = { board, acc.v, acc.n, (uint64_t)(j->game >= 0 ? j->game : 0) };
	if (board)
		o.game = &game;
	if (j->diagnostics) {
		cm_diags_sort(d); /* the order they are printed in */
		o.diags = d;
		size_t n = 0;
		if ((rc = marks_of(m, d, &marks, &n)) != 0)
			goto finish;
		o.marks = marks;
		o.n_marks = n;
	}
	const char *out = j->out;
	if (!out && !cm_id_valid(cm_map_id(m))) {
		/* every reader checks ids; never a file name from other text */
		cli_usage_error("render", "the map id is not an id: name the picture with -o");
		ec = EXIT_USAGE;
		goto done;
	}
	if (!out) {
		out = auto_out = cli_asprintf("%s.%s", cm_map_id(m) ? cm_map_id(m) : "map", cm_render_format_name(j->format));
		if (!out) {
			rc = CM_ENOMEM;
			goto finish;
		}
	}
	/* no input is ever drawn over (a picture is no rewrite of a map) */
	if ((ec = cli_output_not_input("render", "-o", out, -1, j->argc, j->files, w, d)) != 0)
		goto done;
	/* problems in the map are no reason not to draw them */
	rc = wrote(r, heat ? cm_render_heatmap(m, heat, (cm_heat_kind)j->heatmap, &o, out, d) : cm_render_map(m, lg, &o, out, d), rc);
finish:
	ec = finish(d, r, rc);
done:
	free(fits);
	free(marks);
	free(tiles);
	free(acc.v);
	cm_board_free(board);
	cm_balance_heat_free(heat);
	cm_deck_free(deck);
	cm_legend_free(lg);
	cm_map_free(stand_in);
	free(legend_path);
	free(image_path);
	free(auto_out);
	cm_workspace_free(w);
	cm_diags_free(q);
	cm_diags_free(d);
	return ec;
}

static void watch_line(const job *j, int n, const outcome *r, int last_written)
{
	const char *out = j->out ? j->out : "the picture";
	if (r->written)
		printf("render %d: %s written: %zu error%s, %zu warning%s\n", n, out, r->errors, r->errors == 1 ? "" : "s",
		       r->warnings, r->warnings == 1 ? "" : "s");
	else if (last_written)
		printf("render %d: %s not written: %zu error%s, %zu warning%s; it still shows render %d\n", n, out,
		       r->errors, r->errors == 1 ? "" : "s", r->warnings, r->warnings == 1 ? "" : "s", last_written);
	else
		printf("render %d: %s not written: %zu error%s, %zu warning%s\n", n, out, r->errors,
		       r->errors == 1 ? "" : "s", r->warnings, r->warnings == 1 ? "" : "s");
	fflush(stdout);
}

/* --watch: renders, then again after every change, until interrupted. */
static int watch(const job *j)
{
	cli_watch *cw = NULL;
	if (cli_watch_new(&cw))
		return EXIT_IO;
	int last = 0, ec = EXIT_CLEAN;
	for (int n = 1;; n++) {
		outcome r = { 0 };
		ec = render_once(j, &r);
		if (ec == EXIT_USAGE || r.oom || cli_watch_set(cw, r.deps, r.n_deps)) {
			outcome_clear(&r);
			if (ec == EXIT_CLEAN)
				ec = EXIT_IO;
			break;
		}
		if (r.written)
			last = n;
		watch_line(j, n, &r, last);
		outcome_clear(&r);
		/* interrupted (Ctrl-C, a kill): the last render's status */
		if (cli_watch_stopped() || cli_watch_wait(cw))
			break;
	}
	cli_watch_free(cw);
	return ec;
}

/* Millimetres with up to three decimals ("45", "44.5") as micrometres,
 * from lo to hi mm; -1 when s is not such a number. */
static long parse_mm(const char *s, size_t n, long lo, long hi)
{
	long um = 0;
	size_t i = 0;
	int digits = 0, dec = -1;
	for (; i < n && s[i]; i++) {
		if (s[i] == '.' && dec < 0) {
			dec = 0;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || um > 100000000 || dec >= 3)
			return -1;
		um = 10 * um + (s[i] - '0');
		digits++;
		if (dec >= 0)
			dec++;
	}
	if (!digits)
		return -1;
	for (int k = dec < 0 ? 0 : dec; k < 3; k++)
		um *= 10;
	return um < lo * 1000 || um > hi * 1000 ? -1 : um;
}

/* --paper: a named size, WxHmm or none. 0 or -1. */
static int parse_paper(const char *s, int *w, int *h)
{
	static const struct {
		const char *name;
		int w, h;
	} sizes[] = { { "a4", 210000, 297000 }, { "a3", 297000, 420000 }, { "letter", 215900, 279400 },
		      { "none", 0, 0 } };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		if (strcmp(s, sizes[i].name) == 0) {
			*w = sizes[i].w;
			*h = sizes[i].h;
			return 0;
		}
	const char *x = strchr(s, 'x');
	size_t n = strlen(s);
	if (!x || n < 3 || strcmp(s + n - 2, "mm") != 0)
		return -1;
	long pw = parse_mm(s, (size_t)(x - s), 50, 2000), ph = parse_mm(x + 1, (size_t)(s + n - 2 - (x + 1)), 50, 2000);
	if (pw < 0 || ph < 0)
		return -1;
	*w = (int)pw;
	*h = (int)ph;
	return 0;
}

/* SOURCE_DATE_EPOCH (reproducible builds): the PDF's creation date. */
static int source_date(long long *out)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	*out = 0;
	if (!e || !*e)
		return 0;
	long v = cli_parse_uint(e, LONG_MAX);
	if (v < 0)
		return cli_usage_error("render", "SOURCE_DATE_EPOCH must be a whole number of seconds, not '%s'", e);
	*out = v;
	return 0;
}

int cmd_render(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
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
		{ "watch", no_argument, NULL, 'W' },
		{ "square-mm", required_argument, NULL, 'Q' },
		{ "paper", required_argument, NULL, 'A' },
		{ "bleed", required_argument, NULL, 'B' },
		{ "backs", no_argument, NULL, 'K' },
		{ "heatmap", required_argument, NULL, 'H' },
		{ "games", required_argument, NULL, 'N' },
		{ "heat-players", required_argument, NULL, 'Y' },
		{ "tileset", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	job j = { .format = CM_RENDER_PNG, .scale = 24, .flags = CM_RENDER_GRID | CM_RENDER_FEATURES, .game = -1,
		  .players = 2, .square_um = 45000, .heatmap = -1, .games = 500 };
	int players_given = 0, format_given = 0, watching = 0, paper_given = 0;
	long um;
	int ec = EXIT_CLEAN, c;
	long v;
	j.tdirs = calloc((size_t)argc + 1, sizeof *j.tdirs);
	j.sets = calloc((size_t)argc + 1, sizeof *j.sets);
	if (!j.tdirs || !j.sets) {
		free(j.tdirs);
		free(j.sets);
		return EXIT_IO;
	}
	cli_opts o = { .cmd = "render", .opts = opts, .usage = usage, .printing = &j.printing };
	while ((c = cli_next_option(&o, argc, argv, ":ho:T:")) >= 0) {
		switch (c) {
		case 'o': j.out = optarg; break;
		case 'm': j.map_id = optarg; break;
		case 'l': j.legend = optarg; break;
		case 'g': j.flags &= ~(unsigned)CM_RENDER_GRID; break;
		case 'F': j.flags &= ~(unsigned)CM_RENDER_FEATURES; break;
		case 'D': j.diagnostics = 1; break;
		case 'W': watching = 1; break;
		case 'K': j.backs = 1; break;
		case 'H': {
			cm_heat_kind k;
			if (cm_heat_kind_parse(optarg, &k) != 0)
				ec = cli_usage_error("render", "--heatmap takes fill, turn, points or use, not '%s'", optarg);
			j.heatmap = (int)k;
			break;
		}
		case 'N':
			j.games_given = 1;
			if ((j.games = cli_parse_uint(optarg, 1000000)) < 1)
				ec = cli_usage_error("render", "--games takes a whole number from 1 to 1000000, not '%s'", optarg);
			break;
		case 'Y': j.heat_players = optarg; break;
		case 'S': j.sets[j.n_sets++] = optarg; break;
		case 'f':
			format_given = 1;
			if (cm_render_format_parse(optarg, &j.format))
				ec = cli_usage_error("render", "--format takes png, svg, html or pdf, not '%s'", optarg);
			break;
		case 's':
			if ((v = cli_parse_uint(optarg, 256)) < 0)
				ec = cli_usage_error("render", "--scale takes a whole number from 0 to 256, not '%s'", optarg);
			j.scale = (int)v;
			j.scale_given = 1;
			break;
		case 'T': j.tdirs[j.n_tdirs++] = optarg; break;
		case 'Q':
			paper_given = 1;
			if ((um = parse_mm(optarg, strlen(optarg), 5, 500)) < 0)
				ec = cli_usage_error("render", "--square-mm takes millimetres from 5 to 500 (like 45 or 44.5), not '%s'",
				                     optarg);
			j.square_um = (int)um;
			break;
		case 'A':
			paper_given = 1;
			if (parse_paper(optarg, &j.paper_w_um, &j.paper_h_um))
				ec = cli_usage_error("render", "--paper takes a4, a3, letter, none or WxHmm (like 600x900mm, 50 to "
				                               "2000 mm a side), not '%s'",
				                     optarg);
			break;
		case 'B':
			paper_given = 1;
			if ((um = parse_mm(optarg, strlen(optarg), 0, 50)) < 0)
				ec = cli_usage_error("render", "--bleed takes millimetres from 0 to 50, not '%s'", optarg);
			j.bleed_um = (int)um;
			break;
		case 'G':
			if ((j.game = cli_parse_uint(optarg, LONG_MAX)) < 0)
				ec = cli_usage_error("render", "--game takes a seed (a whole number), not '%s'", optarg);
			break;
		case 'p':
			players_given = 1;
			if ((j.players = cli_parse_uint(optarg, CM_MAX_PLAYERS)) < 2)
				ec = cli_usage_error("render", "--players takes a number from 2 to %d, not '%s'",
				                     CM_MAX_PLAYERS, optarg);
			break;
		}
		if (ec)
			goto done;
	}
	if (c == CLI_STOP) {
		ec = o.status;
		goto done;
	}
	if (players_given && j.game < 0 && j.heatmap < 0) {
		ec = cli_usage_error("render", "--players goes with --game SEED or --heatmap");
		goto done;
	}
	if ((j.games_given || j.heat_players) && j.heatmap < 0) {
		ec = cli_usage_error("render", "--games and --heat-players go with --heatmap");
		goto done;
	}
	if (j.heat_players) {
		cm_player *probe = NULL;
		int prc = cm_player_new_from_spec(j.heat_players, &probe);
		cm_player_free(probe);
		if (prc) {
			ec = cli_usage_error("render", "--heat-players takes one player spec (%s), not '%s'",
			                     CM_PLAYER_SPEC_FORMS, j.heat_players);
			goto done;
		}
	}
	if (optind >= argc) {
		ec = cli_usage_error("render", "no map to render");
		goto done;
	}
	cm_render_format by_ext;
	int known = j.out && cm_render_format_of_path(j.out, &by_ext) == 0;
	if (format_given && known && by_ext != j.format) {
		ec = cli_usage_error("render", "--format %s does not match -o %s, whose extension asks for %s; give one or make them agree",
		                     cm_render_format_name(j.format), j.out, cm_render_format_name(by_ext));
		goto done;
	}
	bool stream = false;
	if ((ec = cli_output_check("render", "-o", j.out, watching ? "--watch renders into a file again and again: name one"
	                                                      : NULL,
	                           false, &stream)) != 0)
		goto done;
	if (!format_given && stream && !known) {
		ec = cli_usage_error("render", "-o %s is a stream: give --format png, svg, html or pdf", j.out);
		goto done;
	}
	if (!format_given && j.out) {
		if (!known) {
			ec = cli_usage_error("render", "cannot tell the picture format of -o %s: name it .png, .svg, .html or "
			                               ".pdf, or give --format",
			                     j.out);
			goto done;
		}
		j.format = by_ext;
	}
	if (j.heatmap >= 0 && (j.format == CM_RENDER_PNG || j.format == CM_RENDER_PDF)) {
		ec = cli_usage_error("render", "--heatmap draws svg and html pictures, not %s", cm_render_format_name(j.format));
		goto done;
	}
	if (j.heatmap >= 0 && j.game >= 0) {
		ec = cli_usage_error("render", "--heatmap and --game draw different pictures: give one");
		goto done;
	}
	if (paper_given && j.format != CM_RENDER_PDF) {
		ec = cli_usage_error("render", "--square-mm, --paper and --bleed are for pdf");
		goto done;
	}
	if (j.bleed_um && j.paper_w_um) {
		ec = cli_usage_error("render", "--bleed goes with --paper none (one sheet for a print shop), not a poster");
		goto done;
	}
	if (j.format == CM_RENDER_PDF && j.scale_given) {
		ec = cli_usage_error("render", "--scale is for png, svg and html; a pdf is at true size (--square-mm)");
		goto done;
	}
	if (stream && (j.format == CM_RENDER_PNG || j.format == CM_RENDER_PDF) &&
	    (ec = cli_output_check("render", "-o", j.out, NULL, true, &stream)) != 0)
		goto done;
	if ((ec = source_date(&j.epoch)) != 0)
		goto done;
	if (j.format != CM_RENDER_PNG && !j.scale_given)
		j.scale = j.format == CM_RENDER_HTML ? 54 : 36; /* a page is read on a screen */
	if (j.format != CM_RENDER_PNG && j.scale == 0) {
		ec = cli_usage_error("render", "--scale 0 (the legend's grid) is for png pictures");
		goto done;
	}
	j.argc = argc - optind;
	j.files = argv + optind;
	j.format_given = format_given;
	if (sheet_job(&j) && (j.game >= 0 || j.map_id || j.legend)) {
		ec = cli_usage_error("render", "--game, --map and --legend go with a map, not a tile set");
		goto done;
	}
	if (watching) {
		ec = watch(&j);
		goto done;
	}
	outcome r = { 0 };
	ec = render_once(&j, &r);
	outcome_clear(&r);
done:
	free(j.tdirs);
	free(j.sets);
	return ec;
}
