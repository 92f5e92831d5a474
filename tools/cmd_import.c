/* SPDX-License-Identifier: MIT */
/* cmd_import.c: `carcamap import`: reads the squares of an annotated map
 * image through a colour legend and writes a map descriptor skeleton, or
 * reads a whole map drawn in Tiled (TMX) and writes its descriptor. */
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap import [options] IMAGE.png\n"
	        "       carcamap import [-o MAP.xml] MAP.tmx\n"
	        "\n"

	        "Reads the grid of squares from an annotated map image: each cell is\n"
	        "classified by the colour of the pixels around its centre, through a\n"
	        "legend (schemas/legend.md) that maps colours to square kinds, island\n"
	        "ids, names and markers, and says where the grid lies. Colours are read\n"
	        "raw (no gamma or colour management). Every cell that mixes colours, has\n"
	        "an unknown colour (the nearest legend colour is named) or is partly\n"
	        "transparent is reported with its cell and pixel.\n"
	        "\n"
	        "The result is a map descriptor (schemas/map.md) with the full grid and\n"
	        "an <image> element naming the picture and legend (from the directory of\n"
	        "-o FILE, as check and render read them): add names, big cities, edge\n"
	        "prints, ferries, setup and deck to it by hand.\n"
	        "\n"	        "A Tiled map (TMX, schemas/export-tmx.md: what `export --format tmx`\n"
	        "writes, edited or drawn in Tiled over carcamap-kinds.tsx) is read whole:\n"
	        "squares, names, big cities, edge prints, ferries, islands, markers,\n"
	        "setup, deck and rules; the result is its checked map descriptor. Every\n"
	        "problem names the TMX line, the object's id and name and the square.\n"
	        "check, compile, render, play and export also take a .tmx directly.\n"
	        "\n"
	        "Options:\n"
	        "  --legend FILE     the colour legend (default: the built-in colours,\n"
	        "                    one pixel per square)\n"
	        "  -o, --output FILE the descriptor to write (default or '-': standard\n"
	        "                    output); the image, legend or Tiled map read is\n"
	        "                    refused (README \"Outputs\")\n"
	        "  --id ID           map id (default: the image's file name)\n"
	        "  --name NAME       display name (default: the id)\n"
	        "  -h, --help        show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap import --legend maps/legend.xml scan.png -o my-map.xml\n"
	        "  carcamap import tiny.png\n"
	        "  carcamap import germany.tmx -o germany.xml\n"
	        "\n"
	        "Exit status: 0 written, 1 problems in the image or legend, 2 usage error,\n"
	        "3 I/O or internal failure.\n");
}

/* The file name of path without directory and extension, as a map id
 * ([a-z0-9-], lowercase); NULL if nothing usable is left. */
static char *id_from_path(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	char *id = cli_strdup(b);
	if (!id)
		return NULL;
	char *dot = strrchr(id, '.');
	if (dot)
		*dot = '\0';
	size_t k = 0;
	for (size_t i = 0; id[i]; i++) {
		char ch = id[i];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			id[k++] = ch;
		else if (k && id[k - 1] != '-')
			id[k++] = '-';
	}
	if (k > CM_ID_MAX)
		k = CM_ID_MAX;
	while (k && id[k - 1] == '-')
		k--;
	id[k] = '\0';
	if (!k) {
		free(id);
		return NULL;
	}
	return id;
}

static int write_map(FILE *f, void *arg)
{
	return cm_map_write_xml(arg, f);
}

/* The image and legend paths the importer gave b (png and legend, from
 * the current directory), as the descriptor at out writes them. False on
 * OOM. */
static bool rebase_paths(cm_map_builder *b, const char *png, const char *legend, const char *out)
{
	char *img = cm_path_relative(out, png), *lg = legend ? cm_path_relative(out, legend) : NULL;
	bool ok = img && (!legend || lg) && !cm_map_builder_set_image(b, img) && (!lg || !cm_map_builder_set_legend(b, lg));
	free(img);
	free(lg);
	return ok;
}

/* The descriptor's skeleton from the image's squares: id, name, the
 * default prints, and every start square used until the author says
 * otherwise; then the map, checked once (its problems to d). */
static int finish_map(cm_map_builder *b, const char *id, const char *name, const char *png, cm_diags *d,
                      cm_map **out)
{
	int starts = 0;
	for (int y = 0; y < cm_map_builder_rows(b); y++)
		for (int x = 0; x < cm_map_builder_cols(b); x++)
			starts += cm_map_builder_square(b, x, y)->kind == CM_SQ_START;
	cm_setup su = { starts ? starts : 1, 0, 0, 9, 0 };
	if (cm_map_builder_set_id(b, id) || cm_map_builder_set_name(b, name ? name : id) ||
	    cm_map_builder_set_setup(b, &su)) {
		cm_map_builder_free(b);
		return CM_ENOMEM;
	}
	cm_map_builder_default_prints(b);
	return cm_map_builder_finish(b, NULL, png, d, out);
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "legend", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "id", required_argument, NULL, 'i' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *legend = NULL, *out = NULL, *id = NULL, *name = NULL;
	int ec = EXIT_CLEAN, c;
	cli_opts o = { .cmd = "import", .opts = opts, .usage = usage };
	while ((c = cli_next_option(&o, argc, argv, ":ho:")) >= 0) {
		switch (c) {
		case 'l': legend = optarg; break;
		case 'o': out = optarg; break;
		case 'i': id = optarg; break;
		case 'n': name = optarg; break;
		}
	}
	if (c == CLI_STOP)
		return o.status;
	if (optind >= argc)
		return cli_usage_error("import", "no image to import");
	if (argc - optind > 1)
		return cli_usage_error("import", "one image at a time");
	const char *png = argv[optind];
	bool stream = false;
	int oc = cli_output_check("import", "-o", out, NULL, false, &stream);
	if (oc)
		return oc;
	if (id && !cm_id_valid(id))
		return cli_usage_error("import",
		                       "--id is not an id: 1 to %d of a-z, 0-9 and '-', not starting with '-'",
		                       CM_ID_MAX);
	cm_diags *d = NULL;
	cm_legend *lg = NULL;
	cm_map *m = NULL;
	cm_map_builder *b = NULL;
	char *map_id = NULL;
	if (cm_diags_new(&d))
		return EXIT_IO;
	cm_diags *q = NULL;
	if (cm_diags_new(&q)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	cm_file_kind kind = cm_file_detect(png, q);
	cm_diags_free(q);
	if (kind == CM_FILE_TMX) {
		if (legend || id || name) {
			cm_diags_free(d);
			return cli_usage_error("import", "--legend, --id and --name are for images: a Tiled map "
			                                 "carries its id and name as map properties");
		}
		int trc = cm_tmx_load_file(png, d, &m);
		if (!trc && (ec = cli_output_not_input("import", "-o", out, -1, 1, argv + optind, NULL, d)) != 0) {
			cm_map_free(m);
			cm_diags_free(d);
			return ec;
		}
		if (!trc)
			trc = cm_file_write(out, write_map, m, d);
		ec = cli_finish(d, FMT_TEXT, trc);
		cm_map_free(m);
		cm_diags_free(d);
		return ec;
	}
	int rc = legend ? cm_legend_load_file(legend, d, &lg) : cm_legend_default(&lg);
	if (!rc)
		rc = cm_image_import(png, lg, d, &b);
	if (!rc) {
		map_id = id ? cli_strdup(id) : id_from_path(png);
		if (!map_id) {
			cm_diags_add(d, CM_SEV_ERROR, NULL, png, 0, 0, NULL,
			             "no map id can be made from the file name: give --id");
			rc = CM_EINVAL;
		}
	}
	if (!rc && (ec = cli_output_not_input("import", "-o", out, -1, 1, argv + optind, NULL, d)) != 0)
		goto out;
	if (!rc) {
		/* the importer names the image and legend as given (from the
		 * current directory); the descriptor names them from its own
		 * directory, where check and render look for them (a stream's
		 * reader: from the current directory) */
		if (out && !stream && !rebase_paths(b, png, legend, out)) {
			rc = CM_ENOMEM;
		} else {
			rc = finish_map(b, map_id, name, png, d, &m);
			b = NULL;
		}
		/* beside the target, renamed into place: never a half-written file */
		if (!rc)
			rc = cm_file_write(out, write_map, m, d);
	}
	ec = cli_finish(d, FMT_TEXT, rc);
out:
	cm_map_builder_free(b);
	free(map_id);
	cm_map_free(m);
	cm_legend_free(lg);
	cm_diags_free(d);
	return ec;
}
