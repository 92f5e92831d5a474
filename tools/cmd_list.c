/* cmd_list.c: `carcamap list`: shows what a file holds: for a tile set each
 * tile with its counts per edition, edges, features and contacts, and the
 * totals; as text or JSON. Each kind of file is one case of list_file(). */
#include <getopt.h>
#include <string.h>
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap list [--format text|json] FILE\n"
	        "\n"
	        "Lists the tiles of a tile set: for each tile its id, its copies per\n"
	        "edition (C1, C2, C3), its edges north, east, south, west, its features\n"
	        "(kind, id, slots, coats of arms, inn, cathedral, trade good, the cities a\n"
	        "field touches) and the contacts between them; then the totals of drawn\n"
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
	        "  carcamap list --format json maps/tilesets/base.xml > base.json\n"
	        "\n"
	        "Exit status: 0 listed, 1 the file has errors (or is of a kind that\n"
	        "cannot be listed yet), 2 usage error, 3 the file could not be read.\n");
}

static void print_ids(const cm_tile_type *t, uint32_t m)
{
	for (size_t k = 0; k < t->n_features && k < CM_MAX_FEATURES; k++)
		if (m & (1u << k))
			printf(" %s", t->features[k].id);
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
	int pad = 5 - (int)strlen(f->id);
	printf("    %-9s %s", cm_feature_kind_name(f->kind), f->id);
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
	printf("tile set %s: %s (%s, %zu tile types)\n\n", ts->id, ts->name, ts->base ? "base" : "expansion",
	       ts->n_tiles);
	for (size_t i = 0; i < ts->n_tiles; i++) {
		const cm_tile_type *t = &ts->tiles[i];
		printf("%s", t->id);
		if (t->start)
			printf("  start tile");
		if (cm_tileset_is_abbey_tile(t))
			printf("  abbey tile (dealt, not drawn)");
		if (t->name)
			printf("  \"%s\"", t->name);
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

/* Lists one file; 0, CM_EINVAL (problems, in d) or an I/O code. */
static int list_file(const char *path, cli_format fmt, cm_diags *d)
{
	size_t before = cm_diags_count(d);
	cm_file_kind k = cm_file_detect(path, d);
	switch (k) {
	case CM_FILE_TILESET:
		return list_tileset(path, fmt, d);
	case CM_FILE_MAP:
	case CM_FILE_LEGEND:
	case CM_FILE_PACK:
	case CM_FILE_PNG:
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "listing %s files is not supported yet",
		             cm_file_kind_name(k));
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
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (cli_parse_format("list", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return EXIT_CLEAN;
		case ':':
			return cli_usage_error("list", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("list", "unknown option '%s'", argv[optind - 1]);
		}
	}
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
