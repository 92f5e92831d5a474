/* SPDX-License-Identifier: MIT */
/* cmd_list.c: `carcamap list`: shows what a file holds: for a tile set each
 * tile with its counts per edition, edges, features and contacts, and the
 * totals; as text or JSON. Each kind of file is one case of list_file(). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap list [--format text|json] FILE\n"
	        "\n"
	        "For a map descriptor or a pack, lists each map: size, squares by kind,\n"
	        "who made it (the <about> fields given: title, author, licence,\n"
	        "version, description, homepage), start squares, big cities, ferries,\n"
	        "islands, edge prints, setup, deck and its content hash (SHA-256 over the logical content: equal hashes,\n"
	        "equal maps; version 2 of schemas/pack.md for every map, also one read from a pack of format 1 or 2,\n"
	        "which stores version 1); then the tile sets a pack holds.\n"
	        "\n"
	        "For a colour legend, lists its grid geometry and what each colour means.\n"
	        "\n"
	        "For a tile set, lists the tiles: for each tile its id, its copies per\n"
	        "edition (C1, C2, C3), its edges north, east, south, west, its features\n"
	        "(kind, id, slots, coats of arms, inn, cathedral, trade good, the cities a\n"
	        "field touches), the contacts between them and its markers (prints the\n"
	        "rules ignore, such as a mini's symbol); then the totals of drawn\n"
	        "tiles (abbey tiles are dealt, not drawn, and left out). The file is\n"
	        "checked first: with errors nothing is listed.\n"
	        "\n"
	        "Options:\n"
	        "  --format FMT   text (default) or json, on stdout; diagnostics always\n"
	        "                 go to stderr as text\n"
	        "  -h, --help     show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap list maps/tilesets/base.xml\n"
	        "  carcamap compile -o maps.pack maps/*/[a-z]*.xml   # every bundled map\n"
	        "  carcamap list maps.pack\n"
	        "  carcamap list --format json maps/tilesets/base.xml > base.json\n"
	        "\n"
	        "Exit status: 0 listed, 1 the file has errors (or is of a kind that\n"
	        "cannot be listed yet), 2 usage error, 3 the file could not be read.\n");
}

/* Input text escaped for the terminal (cm_text_escape): a name never
 * writes control sequences or a line of its own. The result lives until
 * the eighth call after. */
static const char *E(const char *s)
{
	static char *ring[8];
	static unsigned next;
	if (!s)
		return "";
	unsigned k = next++ % 8;
	free(ring[k]);
	ring[k] = cm_text_escape(s);
	return ring[k] ? ring[k] : "?";
}

static void print_ids(const cm_tile_type *t, uint32_t m)
{
	for (size_t k = 0; k < t->n_features && k < CM_MAX_FEATURES; k++)
		if (m & (1u << k))
			printf(" %s", E(t->features[k].id));
}

static void print_editions(const char *label, const int *v)
{
	printf("%s", label);
	for (int e = 0; e < CM_EDITION_COUNT; e++) {
		printf("%s %s ", e ? "," : "", cm_edition_name((cm_edition)e));
		if (v[e] < 0)
			printf("-");
		else
			printf("%d", v[e]);
	}
	printf("\n");
}

static void print_feature(const cm_tile_type *t, const cm_feature *f)
{
	/* ids padded to 4 columns, but no trailing blanks */
	const char *fid = E(f->id);
	int pad = 5 - (int)strlen(fid);
	printf("    %-9s %s", cm_feature_kind_name(f->kind), fid);
	if (f->slots) {
		char buf[64];
		cm_slots_format(f->slots, buf, sizeof buf);
		printf("%*s[%s]", pad > 1 ? pad : 1, "", buf);
	} else if (f->kind == CM_FEAT_FIELD) {
		printf("%*s[inner]", pad > 1 ? pad : 1, "");
	}
	if (f->arms)
		printf(" arms %u", (unsigned)f->arms);
	if (f->cathedral)
		printf(" cathedral");
	if (f->inn)
		printf(" inn");
	if (f->good != CM_GOOD_NONE)
		printf(" good %s", cm_good_name(f->good));
	if (f->touches) {
		printf(" touches");
		print_ids(t, f->touches);
	}
	printf("\n");
}

static void print_tileset(const cm_tileset *ts)
{
	printf("tile set %s: %s (%s, %zu tile types)\n\n", E(ts->id), E(ts->name), ts->base ? "base" : "expansion",
	       ts->n_tiles);
	for (size_t i = 0; i < ts->n_tiles; i++) {
		const cm_tile_type *t = &ts->tiles[i];
		printf("%s", E(t->id));
		if (t->start)
			printf("  start tile");
		if (cm_tileset_is_abbey_tile(t))
			printf("  abbey tile (dealt, not drawn)");
		if (t->name)
			printf("  \"%s\"", E(t->name));
		printf("\n");
		print_editions("    count    ", t->count);
		printf("    edges     %s %s %s %s\n", cm_edge_kind_name((cm_edge_kind)t->edge[CM_N]),
		       cm_edge_kind_name((cm_edge_kind)t->edge[CM_E]), cm_edge_kind_name((cm_edge_kind)t->edge[CM_S]),
		       cm_edge_kind_name((cm_edge_kind)t->edge[CM_W]));
		for (size_t k = 0; k < t->n_features; k++)
			print_feature(t, &t->features[k]);
		for (size_t c = 0; c < t->n_contacts; c++) {
			printf("    contact  ");
			print_ids(t, t->contacts[c]);
			printf("\n");
		}
		for (size_t k = 0; k < t->n_markers; k++)
			printf("    marker    %s\n", E(t->markers[k]));
	}
	int sums[CM_EDITION_COUNT];
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		sums[e] = cm_tileset_total(ts, (cm_edition)e);
	printf("\n");
	print_editions("drawn tiles:", sums);
	if (ts->total[0] >= 0 || ts->total[1] >= 0 || ts->total[2] >= 0)
		print_editions("declared:   ", ts->total);
}

static int list_tileset(const char *path, cli_format fmt, cm_diags *d)
{
	cm_tileset *ts = NULL;
	int rc = cm_tileset_load_file(path, d, &ts);
	if (rc)
		return rc;
	if (fmt == FMT_JSON)
		rc = cm_tileset_write_json(ts, stdout);
	else
		print_tileset(ts);
	cm_tileset_free(ts);
	if (fflush(stdout) || ferror(stdout))
		rc = CM_EIO;
	return rc;
}

static void hex(const uint8_t *h, char *buf)
{
	for (int i = 0; i < 32; i++)
		sprintf(buf + 2 * i, "%02x", h[i]);
}

/* The content hash of m with the sets of the workspace, or "" when its
 * deck's tile sets are not all there. */
static void map_hash(cm_workspace *w, const cm_map *m, char buf[65])
{
	uint8_t h[32];
	buf[0] = '\0';
	if (cm_workspace_map_hash(w, m, h) == 0) /* a pack's: verified when it was read */
		hex(h, buf);
}

static int deck_size(cm_workspace *w, const cm_map *m)
{
	int total = 0;
	for (size_t i = 0; i < cm_map_deck_count(m); i++) {
		const cm_deck_entry *e = cm_map_deck_entry(m, i);
		const cm_tileset *ts = cm_workspace_find_tileset(w, e->tileset);
		if (!ts)
			return -1;
		if (e->tile)
			total += e->count >= 0 ? e->count : (cm_tileset_find(ts, e->tile) ? cm_tileset_find(ts, e->tile)->count[cm_map_rules(m)->edition] : 0);
		else
			total += cm_tileset_total(ts, cm_map_rules(m)->edition);
	}
	return total;
}

/* One pass over the squares: how many of each kind, of each print kind,
 * playable, and on each island (island_squares: one count per island). */
static int print_map(cm_workspace *w, const cm_map *m)
{
	int counts[CM_SQ_KIND_COUNT] = { 0 }, prints[4] = { 0 }, playable = 0;
	size_t n_islands = cm_map_island_count(m);
	int *island_squares = calloc(n_islands + 1, sizeof *island_squares);
	if (!island_squares)
		return CM_ENOMEM;
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++) {
		const cm_square *q = cm_map_at(m, i % cm_map_cols(m), i / cm_map_cols(m));
		counts[q->kind]++;
		playable += cm_square_kind_playable(q->kind);
		for (int e = 0; e < 4; e++)
			prints[q->print[e].kind]++;
		if (q->island >= 0 && (size_t)q->island < n_islands)
			island_squares[q->island]++;
	}
	/* a board's printing is its rules edition (schemas/map.md "Printings") */
	printf("map %s: %s, printing %s, %d x %d squares\n", E(cm_map_id(m)), E(cm_map_name(m)), cm_edition_name(cm_map_rules(m)->edition),
	       cm_map_cols(m), cm_map_rows(m));
	for (int i = 0; i < CM_ABOUT_FIELDS; i++) /* who made it: the fields given */
		if (cm_about_get(cm_map_about(m), i))
			printf("    %-9s %s\n", cm_about_name(i), E(cm_about_get(cm_map_about(m), i)));
	printf("    squares   ");
	for (int k = 1; k < CM_SQ_KIND_COUNT; k++)
		if (counts[k])
			printf("%s %d, ", cm_square_kind_name((cm_square_kind)k), counts[k]);
	printf("playable %d\n", playable);
	printf("    starts    ");
	int first = 1;
	for (int y = 0; y < cm_map_rows(m); y++)
		for (int x = 0; x < cm_map_cols(m); x++) {
			const cm_square *q = cm_map_at(m, x, y);
			if (q->kind != CM_SQ_START)
				continue;
			const char *name = cm_map_square_name(m, x, y);
			printf("%s(%d,%d)%s%s", first ? "" : ", ", x, y, name ? " " : "", E(name));
			first = 0;
		}
	printf("; %d used\n", cm_map_setup(m)->starts_used);
	for (size_t i = 0; i < cm_map_bigcity_count(m); i++) {
		const cm_bigcity *bc = cm_map_bigcity(m, i);
		printf("    big city  %s, %zu square%s\n", E(bc->name), bc->n_pieces, bc->n_pieces == 1 ? "" : "s");
	}
	for (size_t i = 0; i < cm_map_ferry_count(m); i++) {
		const cm_ferry *f = cm_map_ferry(m, i);
		printf("    ferry     %s%s(%d,%d,%s) - (%d,%d,%s)", E(f->name), f->name ? " " : "", f->x1,
		       f->y1, cm_side_name(f->s1), f->x2, f->y2, cm_side_name(f->s2));
		if (f->arms)
			printf(", arms %u", (unsigned)f->arms);
		printf("\n");
	}
	for (size_t i = 0; i < n_islands; i++) {
		int n = island_squares[i];
		const cm_island *is = cm_map_island(m, i);
		printf("    island    %s%s%s%s, %d square%s\n", E(is->name), is->title ? " \"" : "", E(is->title),
		       is->title ? "\"" : "", n, n == 1 ? "" : "s");
	}
	printf("    prints    road %d, city %d, neutral %d\n", prints[CM_PRINT_ROAD], prints[CM_PRINT_CITY],
	       prints[CM_PRINT_NEUTRAL]);
	printf("    setup     tiles %d-%d, followers %d\n", cm_map_setup(m)->tiles_min, cm_map_setup(m)->tiles_max,
	       cm_map_setup(m)->followers);
	printf("    deck     ");
	for (size_t i = 0; i < cm_map_deck_count(m); i++) {
		const cm_deck_entry *e = cm_map_deck_entry(m, i);
		printf(" %s%s%s", E(e->tileset), e->tile ? "/" : "", E(e->tile));
		if (e->count >= 0)
			printf(" x%d", e->count);
	}
	int size = deck_size(w, m);
	if (size >= 0)
		printf(" = %d tiles\n", size);
	else
		printf(" (tile sets not found)\n");
	char h[65];
	map_hash(w, m, h);
	printf("    hash      %s\n", *h ? h : "(tile sets not found)");
	free(island_squares);
	return 0;
}

static void json_map(cm_json *j, cm_workspace *w, const cm_map *m)
{
	int counts[CM_SQ_KIND_COUNT] = { 0 }, playable = 0;
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++) {
		const cm_square *q = cm_map_at(m, i % cm_map_cols(m), i / cm_map_cols(m));
		counts[q->kind]++;
		playable += cm_square_kind_playable(q->kind);
	}
	cm_json_obj_begin(j);
	cm_json_key(j, "id");
	cm_json_str(j, cm_map_id(m));
	cm_json_key(j, "name");
	cm_json_str(j, cm_map_name(m));
	cm_json_key(j, "edition");
	cm_json_str(j, cm_edition_name(cm_map_rules(m)->edition));
	cm_json_key(j, "printing");
	cm_json_str(j, cm_edition_name(cm_map_rules(m)->edition));
	cm_json_key(j, "cols");
	cm_json_int(j, cm_map_cols(m));
	cm_json_key(j, "rows");
	cm_json_int(j, cm_map_rows(m));
	if (cm_about_present(cm_map_about(m))) { /* as in the JSON export: only when given */
		cm_json_key(j, "about");
		cm_json_obj_begin(j);
		for (int i = 0; i < CM_ABOUT_FIELDS; i++) {
			cm_json_key(j, cm_about_name(i));
			cm_json_str(j, cm_about_get(cm_map_about(m), i));
		}
		cm_json_obj_end(j);
	}
	cm_json_key(j, "squares");
	cm_json_obj_begin(j);
	for (int k = 1; k < CM_SQ_KIND_COUNT; k++) {
		cm_json_key(j, cm_square_kind_name((cm_square_kind)k));
		cm_json_int(j, counts[k]);
	}
	cm_json_obj_end(j);
	cm_json_key(j, "playable");
	cm_json_int(j, playable);
	cm_json_key(j, "starts_used");
	cm_json_int(j, cm_map_setup(m)->starts_used);
	cm_json_key(j, "big_cities");
	cm_json_int(j, (long long)cm_map_bigcity_count(m));
	cm_json_key(j, "ferries");
	cm_json_int(j, (long long)cm_map_ferry_count(m));
	cm_json_key(j, "islands");
	cm_json_int(j, (long long)cm_map_island_count(m));
	cm_json_key(j, "deck_tiles");
	int size = deck_size(w, m);
	if (size >= 0)
		cm_json_int(j, size);
	else
		cm_json_null(j);
	char h[65];
	map_hash(w, m, h);
	cm_json_key(j, "hash");
	cm_json_str(j, *h ? h : NULL);
	cm_json_obj_end(j);
}

/* Maps and tile sets of descriptors or packs. */
static int list_maps(const char *path, cli_format fmt, cm_diags *d)
{
	cm_workspace *w = NULL;
	if (cm_workspace_new(&w))
		return CM_ENOMEM;
	char *files[1] = { (char *)path };
	int rc = cli_workspace_load(w, 1, files, 0, d);
	size_t own_sets = cm_workspace_tileset_count(w);
	if (!rc && cm_workspace_map_count(w)) {
		/* the hash and deck size need the tile sets: find them quietly */
		cm_diags *q = NULL;
		if (cm_diags_new(&q) == 0) {
			cli_workspace_load(w, 0, NULL, 1, q);
			cm_diags_free(q);
		}
	}
	if (!rc) {
		cm_json *j = fmt == FMT_JSON ? cm_json_new(stdout, true) : NULL;
		if (fmt == FMT_JSON && !j) {
			rc = CM_ENOMEM;
		} else if (fmt == FMT_JSON) {
			cm_json_obj_begin(j);
			cm_json_key(j, "maps");
			cm_json_arr_begin(j);
			for (size_t i = 0; i < cm_workspace_map_count(w); i++)
				json_map(j, w, cm_workspace_map(w, i));
			cm_json_arr_end(j);
			cm_json_key(j, "tilesets");
			cm_json_arr_begin(j);
			for (size_t i = 0; i < own_sets; i++) {
				const cm_tileset *ts = cm_workspace_tileset(w, i);
				cm_json_obj_begin(j);
				cm_json_key(j, "id");
				cm_json_str(j, ts->id);
				cm_json_key(j, "name");
				cm_json_str(j, ts->name);
				cm_json_key(j, "types");
				cm_json_int(j, (long long)ts->n_tiles);
				cm_json_obj_end(j);
			}
			cm_json_arr_end(j);
			cm_json_obj_end(j);
			if (cm_json_finish(j))
				rc = CM_EIO;
			cm_json_free(j);
		} else {
			for (size_t i = 0; i < cm_workspace_map_count(w) && !rc; i++)
				rc = print_map(w, cm_workspace_map(w, i));
			/* tile sets that came with the input (a pack's), not those found */
			for (size_t i = 0; i < own_sets; i++) {
				const cm_tileset *ts = cm_workspace_tileset(w, i);
				printf("tile set %s: %s, %zu tile types, %d tiles (C2)\n", E(ts->id), E(ts->name), ts->n_tiles,
				       cm_tileset_total(ts, CM_EDITION_C2));
			}
		}
	}
	cm_workspace_free(w);
	if (fflush(stdout) || ferror(stdout))
		rc = CM_EIO;
	return rc;
}

static void colour_hex(const cm_legend_colour *c, char buf[10])
{
	if (c->a == 255)
		snprintf(buf, 10, "#%02x%02x%02x", c->r, c->g, c->b);
	else
		snprintf(buf, 10, "#%02x%02x%02x%02x", c->r, c->g, c->b, c->a);
}

/* A legend: its grid geometry and what each colour means. */
static int list_legend(const char *path, cli_format fmt, cm_diags *d)
{
	cm_legend *lg = NULL;
	int rc = cm_legend_load_file(path, d, &lg);
	if (rc)
		return rc;
	const cm_legend_grid *g = &lg->grid;
	char hex[10];
	cm_json *j = fmt == FMT_JSON ? cm_json_new(stdout, true) : NULL;
	if (fmt == FMT_JSON && !j) {
		rc = CM_ENOMEM;
	} else if (fmt == FMT_JSON) {
		cm_json_obj_begin(j);
		cm_json_key(j, "tolerance");
		cm_json_int(j, lg->tolerance);
		cm_json_key(j, "grid");
		cm_json_obj_begin(j);
		const char *keys[] = { "x", "y", "cell_w", "cell_h", "cols", "rows", "sample" };
		const int vals[] = { g->x, g->y, g->cell_w, g->cell_h, g->cols, g->rows, g->sample };
		for (int i = 0; i < 7; i++) {
			cm_json_key(j, keys[i]);
			cm_json_int(j, vals[i]);
		}
		cm_json_obj_end(j);
		cm_json_key(j, "colours");
		cm_json_arr_begin(j);
		for (size_t i = 0; i < lg->n_colours; i++) {
			const cm_legend_colour *c = &lg->colours[i];
			colour_hex(c, hex);
			cm_json_obj_begin(j);
			cm_json_key(j, "colour");
			cm_json_str(j, hex);
			cm_json_key(j, "kind");
			cm_json_str(j, cm_square_kind_name(c->kind));
			cm_json_key(j, "island");
			cm_json_str(j, c->island);
			cm_json_key(j, "name");
			cm_json_str(j, c->name);
			cm_json_key(j, "marker");
			cm_json_str(j, c->marker);
			cm_json_key(j, "arms");
			cm_json_int(j, c->arms);
			cm_json_obj_end(j);
		}
		cm_json_arr_end(j);
		cm_json_obj_end(j);
		if (cm_json_finish(j))
			rc = CM_EIO;
		cm_json_free(j);
	} else {
		printf("legend %s: tolerance %d\n", E(path), lg->tolerance);
		printf("    grid      origin (%d,%d), cells %dx%d px, ", g->x, g->y, g->cell_w, g->cell_h);
		if (g->cols > 0)
			printf("%d x %d squares, ", g->cols, g->rows);
		else
			printf("squares: the whole image, ");
		printf("sample %d px\n", g->sample);
		for (size_t i = 0; i < lg->n_colours; i++) {
			const cm_legend_colour *c = &lg->colours[i];
			colour_hex(c, hex);
			printf("    %-9s %s", hex, cm_square_kind_name(c->kind));
			if (c->island)
				printf(" island %s", E(c->island));
			if (c->arms)
				printf(" arms %u", (unsigned)c->arms);
			if (c->name)
				printf(" name \"%s\"", E(c->name));
			if (c->marker)
				printf(" marker %s", E(c->marker));
			printf("\n");
		}
	}
	cm_legend_free(lg);
	if (fflush(stdout) || ferror(stdout))
		rc = CM_EIO;
	return rc;
}

/* Lists one file; 0, CM_EINVAL (problems, in d) or an I/O code. */
static int list_file(const char *path, cli_format fmt, cm_diags *d)
{
	size_t before = cm_diags_count(d);
	cm_file_kind k = cm_file_detect(path, d);
	switch (k) {
	case CM_FILE_TILESET:
		return list_tileset(path, fmt, d);
	case CM_FILE_MAP:
	case CM_FILE_TMX:
	case CM_FILE_PACK:
		return list_maps(path, fmt, d);
	case CM_FILE_LEGEND:
		return list_legend(path, fmt, d);
	case CM_FILE_PNG:
		/* an image means nothing without its legend */
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL,
		             "a PNG image lists nothing by itself: read it with 'carcamap import %s --legend LEGEND'",
		             path);
		return CM_EINVAL;
	case CM_FILE_UNKNOWN:
		break;
	}
	if (cm_diags_count(d) > before)
		return CM_EIO;
	cm_diags_check(d, "CM0005", path, 0, 0, NULL, "not a tile set, map, legend, PNG image or carcamap pack");
	return CM_EINVAL;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cli_format fmt = FMT_TEXT;
	int c;
	cli_opts o = { .cmd = "list", .opts = opts, .usage = usage };
	while ((c = cli_next_option(&o, argc, argv, ":h")) >= 0) {
		switch (c) {
		case 'f':
			if (cli_parse_format("list", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
				return EXIT_USAGE;
			break;
		}
	}
	if (c == CLI_STOP)
		return o.status;
	if (optind >= argc)
		return cli_usage_error("list", "no file to list");
	if (argc - optind > 1)
		return cli_usage_error("list", "one file at a time");
	cm_diags *d = NULL;
	if (cm_diags_new(&d))
		return EXIT_IO;
	int rc = list_file(argv[optind], fmt, d);
	cm_diags_sort(d);
	int ec = cm_diags_write_text(d, stderr) ? EXIT_IO : cli_exit_code(rc, d);
	cm_diags_free(d);
	return ec;
}
