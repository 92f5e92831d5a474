/* SPDX-License-Identifier: MIT */
/* cmd_diff.c: `carcamap diff`: the differences between two maps, or the
 * two printings of one board, as the library finds them (cm_map_diff,
 * carcamap/diff.h), printed as text or JSON (schemas/diff-json.md). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

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
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap diff maps/germany\n"
	        "  carcamap diff maps/taiwan/taiwan.xml --printing C2 --printing-b C3 --format json\n"
	        "  carcamap diff maps/usa-west/usa-west.xml maps/usa-east/usa-east.xml\n"
	        "\n"
	        "Exit status: 0 equal, 1 different (or an input with errors: its\n"
	        "diagnostics on stderr, nothing on stdout), 2 usage error, 3 I/O or\n"
	        "internal failure.\n");
}

/* One side of the comparison: its input, workspace and map. */
typedef struct {
	const char *file;
	const char *map_id; /* --map, --map-b */
	int printing;       /* a cm_edition, or -1 */
	cm_workspace *w;
	const cm_map *m;
} side;

/* Loads s->file into s->w (every printing). 0, or a library code with
 * the problems in d. */
static int load(side *s, cm_diags *d)
{
	if (cm_workspace_new(&s->w))
		return CM_ENOMEM;
	char *files[1] = { (char *)s->file };
	int rc = cli_workspace_load(s->w, 1, files, 0, d);
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

static int print_json(const side *a, const side *b, const cm_diff *df)
{
	cm_json *j = cli_json_begin(stdout, "carcamap-diff", "1.0");
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	side a = { .printing = -1 }, b = { .printing = -1 };
	bool b_map = false, b_printing = false;
	cli_format fmt = FMT_TEXT;
	cm_diags *d = NULL;
	cm_diff *df = NULL;
	int ec = EXIT_CLEAN, c, rc = 0, pr;
	if (cm_diags_new(&d))
		return EXIT_IO;
	cli_opts o = { .cmd = "diff", .opts = opts, .usage = usage };
	while ((c = cli_next_option(&o, argc, argv, ":h")) >= 0) {
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
	if (!b_map)
		b.map_id = a.map_id;
	if (!b_printing)
		b.printing = a.printing;
	a.file = argv[optind];
	b.file = argv[optind + n - 1];
	/* the inputs, each in its own workspace: an id may differ between them */
	rc = load(&a, d);
	if (!rc && n == 2)
		rc = load(&b, d);
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
	rc = fmt == FMT_JSON ? print_json(&a, &b, df) : (print_text(&a, &b, df), 0);
	if (fflush(stdout) && !rc)
		rc = CM_EIO;
	ec = rc ? cli_finish(d, FMT_TEXT, rc) : cm_diff_equal(df) ? EXIT_CLEAN : EXIT_PROBLEMS;
done:
	cm_diff_free(df);
	cm_workspace_free(a.w);
	cm_workspace_free(b.w);
	cm_diags_free(d);
	return ec;
}
