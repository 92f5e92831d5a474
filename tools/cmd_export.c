/* SPDX-License-Identifier: MIT */
/* cmd_export.c: `carcamap export`: writes a map for game clients (JSON,
 * compact binary, Tiled TMX) or back as a descriptor (XML). */
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap export --format FMT [options] (MAP.xml | MAP.tmx | PACK --map ID) [TILESETS...]\n"
	        "       carcamap export --format xml|json [--tiles grid|slots] (TILESET.xml | PACK --tileset ID)\n"
	        "\n"
	        "Writes one map in a format for game clients or back as a descriptor:\n"
	        "  json  the whole map with the tile definitions of its deck\n"
	        "        (schemas/export-json.md, JSON Schema schemas/export.schema.json)\n"
	        "  bin   compact little-endian binary with a section table and CRC-32s\n"
	        "        (schemas/export-bin.md; a dependency-free C reader is in\n"
	        "        lib/reader/)\n"
	        "  tmx   a Tiled map (TMX 1.8) that carries the whole map, over the\n"
	        "        shared kinds tileset carcamap-kinds.tsx of the tile set\n"
	        "        directory; edit it in Tiled and bring it back with import\n"
	        "        (schemas/export-tmx.md)\n"
	        "  xml   the map descriptor (schemas/map.md); compiling it again gives\n"
	        "        the same content hash\n"
	        "Every export is deterministic: the same map gives the same bytes.\n"
	        "\n"
	        "Given a tile set file (or --tileset ID of a pack), writes that tile set:\n"
	        "  xml   the tile set file (schemas/tileset.md); with --tiles grid each tile\n"
	        "        as a 5x5 picture (\"Tiles as pictures\"), with --tiles slots (the\n"
	        "        default) each feature's slots listed; both read back the same\n"
	        "  json  the tiles with their edges, features and contacts (as 'list\n"
	        "        --format json')\n"
	        "\n"
	        "Options:\n"
	        "  --format FMT       json, bin, tmx or xml (required)\n"
	        "  --bin-version V    bin: the format's major version, 2 (default, two\n"
	        "                     bytes per square) or 1 (a record per square and\n"
	        "                     per edge print, for clients whose reader predates\n"
	        "                     2.0; lib/reader/ reads both); '1.0', '2.0' also do\n"
	        "  -o, --output FILE  where to write; '-' or none: standard output (json,\n"
	        "                     xml; bin only when stdout is not a terminal); tmx\n"
	        "                     needs a file. A symlink is followed, a FIFO or\n"
	        "                     device streamed, an existing file keeps its mode;\n"
	        "                     an input is refused, but a descriptor or Tiled map\n"
	        "                     may be exported over itself (README \"Outputs\")\n"
	        "  --map ID           the map to export when the input holds several\n"
	        "  --tileset ID       export this tile set (of the files or packs given)\n"
	        "  --tiles FORM       xml of a tile set: grid (pictures) or slots (default)\n"
	        "  --printing ED      the printing of the board, C2 or C3 (maps/README.md:\n"
	        "                     a descriptor may describe both; default: its first)\n"
	        "  -T, --tilesets DIR search DIR for the tile sets the deck names (and,\n"
	        "                     for tmx, for carcamap-kinds.tsx)\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap export --format json maps/germany/germany.xml -o germany.json\n"
	        "  carcamap compile -o maps.pack maps/*/[a-z]*.xml   # every bundled map\n"
	        "  carcamap export --format bin maps.pack --map taiwan -o taiwan.cmap\n"
	        "  carcamap export --format bin --bin-version 1 maps/taiwan/taiwan.xml -o old.cmap\n"
	        "  carcamap export --format tmx maps.pack --map benelux -o benelux.tmx\n"
	        "  carcamap export --format xml maps.pack --map france > france.xml\n"
	        "  carcamap export --format xml --tiles grid maps/tilesets/goldmines.xml -o gm.xml\n"
	        "  carcamap export --format xml maps.pack --tileset robbers > robbers.xml\n"
	        "\n"
	        "Exit status: 0 written, 1 problems in the input, 2 usage error, 3 I/O or\n"
	        "internal failure.\n");
}

enum { X_NONE, X_JSON, X_BIN, X_TMX, X_XML };

typedef struct {
	const cm_map *m;
	cm_exporter fn; /* json, bin, tmx; NULL: the descriptor (XML) */
	const cm_export_opts *o;
	cm_diags *d;
} job;

static int write_job(FILE *f, void *arg)
{
	const job *j = arg;
	return j->fn ? j->fn(j->m, j->o, f, j->d) : cm_map_write_xml_diag(j->m, f, j->d);
}

/* Writes the export to path atomically, or to stdout when path is NULL. */
static int write_out(const char *path, const cm_map *m, const cm_export_opts *o, int fmt, cm_diags *d)
{
	static const cm_exporter exporters[] = { [X_JSON] = cm_export_json, [X_BIN] = cm_export_bin,
		                                 [X_TMX] = cm_export_tmx, [X_XML] = NULL };
	job j = { m, exporters[fmt], o, d };
	int rc = cm_file_write(path, write_job, &j, d);
	/* the TMX says its own refusals */
	if (rc && rc != CM_EIO && fmt != X_TMX)
		cm_diags_add(d, CM_SEV_ERROR, NULL, cm_map_file(m), 0, 0, NULL, "cannot %s map %s: %s",
		             fmt == X_BIN ? "encode" : "export", cm_map_id(m), cm_strerror(rc));
	return rc;
}

/* ---- a tile set ---- */

typedef struct {
	const cm_tileset *ts;
	int fmt;
	cm_tile_form form;
	cm_diags *d;
} set_job;

static int write_set(FILE *f, void *arg)
{
	const set_job *j = arg;
	if (j->fmt == X_JSON)
		return cm_tileset_write_json(j->ts, f);
	return cm_tileset_write_xml_form(j->ts, j->form, f, j->d);
}

/* Writes the tile set id (or the only one the inputs hold) to out. */
static int export_tileset(cm_workspace *w, int n, char **files, const char *id, int fmt, cm_tile_form form,
                          const char *out, cm_diags *d, int *ec)
{
	int rc = cli_workspace_load(w, n, files, 0, d);
	if (rc || cm_diags_errors(d))
		return rc ? rc : CM_EINVAL;
	const cm_tileset *ts = id ? cm_workspace_find_tileset(w, id) : NULL;
	if (!id && cm_workspace_tileset_count(w) == 1)
		ts = cm_workspace_tileset(w, 0);
	if (!ts) {
		if (id)
			*ec = cli_usage_error("export", "the input holds no tile set '%s'", id);
		else
			*ec = cli_usage_error("export", "the input holds %zu tile sets: name one with --tileset ID",
			                      cm_workspace_tileset_count(w));
		return 0;
	}
	set_job j = { ts, fmt, form, d };
	return cm_file_write(out, write_set, &j, d);
}

/* m with its image and legend paths, written from the directory of its
 * descriptor, as the descriptor at out writes them: a new map in *own,
 * built from m. 0, CM_EINVAL (see d) or CM_ENOMEM. */
static int rebase_paths(const cm_map *m, const char *out, cm_diags *d, cm_map **own)
{
	const char *paths[2] = { cm_map_image(m), cm_map_legend(m) };
	char *rel[2] = { NULL, NULL };
	cm_map_builder *b = NULL;
	int rc = cm_map_builder_from(m, &b);
	for (size_t i = 0; i < 2 && !rc; i++) {
		if (!paths[i])
			continue;
		char *here = cm_path_resolve(cm_map_file(m), paths[i]);
		rel[i] = here ? cm_path_relative(out, here) : NULL;
		free(here);
		if (!rel[i])
			rc = CM_ENOMEM;
	}
	if (!rc && ((rel[0] && cm_map_builder_set_image(b, rel[0])) || (rel[1] && cm_map_builder_set_legend(b, rel[1]))))
		rc = CM_ENOMEM;
	free(rel[0]);
	free(rel[1]);
	if (rc) {
		cm_map_builder_free(b);
		return rc;
	}
	return cm_map_builder_finish(b, NULL, cm_map_file(m), d, own);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "map", required_argument, NULL, 'm' },
		{ "printing", required_argument, NULL, 'P' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "bin-version", required_argument, NULL, 'B' },
		{ "tileset", required_argument, NULL, 'S' },
		{ "tiles", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const names[] = { "", "json", "bin", "tmx", "xml" };
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	const cm_tileset **sets = NULL;
	cli_target t = { .cmd = "export" };
	if (cm_diags_new(&d) || cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	const char *out = NULL;
	int fmt = X_NONE, ec = EXIT_CLEAN, c;
	unsigned major = CM_EXPORT_BIN_MAJOR;
	bool major_given = false, form_given = false;
	const char *tileset_id = NULL;
	cm_tile_form form = CM_TILE_FORM_SLOTS;
	cli_opts o = { .cmd = "export", .opts = opts, .usage = usage, .tilesets = w, .printing = &t.printing };
	while ((c = cli_next_option(&o, argc, argv, ":ho:T:")) >= 0) {
		switch (c) {
		case 'f':
			for (int i = X_JSON; i <= X_XML; i++)
				if (strcmp(optarg, names[i]) == 0)
					fmt = i;
			if (fmt == X_NONE)
				ec = cli_usage_error("export", "unknown format '%s' (use json, bin, tmx or xml)", optarg);
			break;
		case 'o': out = optarg; break;
		case 'm': t.map_id = optarg; break;
		case 'B':
			if (strcmp(optarg, "1") == 0 || strcmp(optarg, "1.0") == 0)
				major = 1;
			else if (strcmp(optarg, "2") == 0 || strcmp(optarg, "2.0") == 0)
				major = 2;
			else
				ec = cli_usage_error("export", "unknown binary format version '%s' (use 2 or 1)", optarg);
			major_given = true;
			break;
		case 'S': tileset_id = optarg; break;
		case 'F':
			if (cm_tile_form_parse(optarg, &form))
				ec = cli_usage_error("export", "--tiles takes grid or slots, not '%s'", optarg);
			form_given = true;
			break;
		}
		if (ec)
			goto done;
	}
	if (c == CLI_STOP) {
		ec = o.status;
		goto done;
	}
	if (fmt == X_NONE) {
		ec = cli_usage_error("export", "choose a format with --format json|bin|tmx|xml");
		goto done;
	}
	if (optind >= argc) {
		ec = cli_usage_error("export", "no map to export");
		goto done;
	}
	if (major_given && fmt != X_BIN) {
		ec = cli_usage_error("export", "--bin-version applies to --format bin only");
		goto done;
	}
	/* a tile set: named, or the first input is one */
	if (tileset_id || cm_file_detect(argv[optind], NULL) == CM_FILE_TILESET) {
		if (fmt != X_XML && fmt != X_JSON) {
			ec = cli_usage_error("export", "a tile set exports as xml or json, not %s", names[fmt]);
			goto done;
		}
		if (t.map_id) {
			ec = cli_usage_error("export", "--map and --tileset: export one of them");
			goto done;
		}
		if (form_given && fmt != X_XML) {
			ec = cli_usage_error("export", "--tiles applies to --format xml");
			goto done;
		}
		int rc = export_tileset(w, argc - optind, argv + optind, tileset_id, fmt, form, out, d, &ec);
		if (!ec)
			ec = cli_finish(d, FMT_TEXT, rc);
		goto done;
	}
	if (form_given) {
		ec = cli_usage_error("export", "--tiles applies to a tile set (a tile set file, or --tileset ID)");
		goto done;
	}
	if (fmt == X_TMX && !out) {
		ec = cli_usage_error("export", "--format tmx writes files: give -o FILE.tmx");
		goto done;
	}
	if (fmt == X_BIN && !out && isatty(STDOUT_FILENO)) {
		ec = cli_usage_error("export", "binary output to a terminal: give -o FILE or redirect");
		goto done;
	}
	bool stream = false;
	if ((ec = cli_output_check("export", "-o", out,
	                           fmt == X_TMX ? "--format tmx writes a file that names its tileset by a path "
	                                          "relative to it: give -o FILE.tmx"
	                                        : NULL,
	                           fmt == X_BIN, &stream)) != 0)
		goto done;
	/* xml and tmx need no tile definitions; json and bin carry the deck's */
	t.decks = fmt == X_JSON || fmt == X_BIN;
	int rc = cli_load_map(&t, w, argc - optind, argv + optind, d);
	if (rc == CLI_NO_MAP) {
		ec = EXIT_USAGE;
		goto done;
	}
	/* the same kind rewritten (a descriptor exported over itself) is
	 * safe: it was read whole; no other input is ever overwritten */
	if (t.map && (ec = cli_output_not_input("export", "-o", out, fmt == X_XML ? CM_FILE_MAP : fmt == X_TMX ? CM_FILE_TMX : -1,
	                                        argc - optind, argv + optind, w, d)) != 0)
		goto done;
	if (t.map) {
		const cm_map *m = t.map;
		cm_export_opts eo;
		cm_export_opts_init(&eo);
		eo.bin_major = major;
		if (cm_workspace_map_sets(w, m, &sets, &eo.n_sets)) {
			ec = EXIT_IO;
			goto done;
		}
		eo.sets = sets;
		if (fmt == X_TMX) {
			/* the shared kinds tileset, where the tile sets are */
			char *kinds = cli_default_dirs(w) ? NULL : cm_workspace_find_file(w, m, CM_TMX_KINDS);
			if (!kinds) {
				/* carcamap's own file, which no input names: the
				 * setup is wanting (exit 2), not the map */
				ec = cli_usage_error("export", "the Tiled kinds tileset %s is in no tile set directory: give -T "
				                               "DIR (the carcamap tile sets, e.g. maps/tilesets) or set "
				                               "CARCAMAP_TILESETS",
				                     CM_TMX_KINDS);
				goto done;
			}
			/* the TMX names it relative to its own directory */
			char *ref = cm_path_relative(out, kinds);
			eo.kinds = ref;
			rc = ref ? write_out(out, m, &eo, fmt, d) : CM_ENOMEM;
			free(ref);
			free(kinds);
		} else {
			/* a descriptor names its image and legend from its own
			 * directory: the copy written elsewhere names the same files */
			cm_map *rebased = NULL;
			if (fmt == X_XML && out && !stream && (rc = rebase_paths(m, out, d, &rebased)) == 0)
				m = rebased;
			if (!rc)
				rc = write_out(out, m, &eo, fmt, d);
			cm_map_free(rebased);
		}
	}
	ec = cli_finish(d, FMT_TEXT, rc);
done:
	free(sets);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
