/* SPDX-License-Identifier: MIT */
/* main.c: the carcamap command. Dispatches to one file per subcommand
 * (tools/cmd_<name>.c); global options are --help/-h and --version/-V
 * only; 'carcamap help CMD' is 'carcamap CMD --help'. */
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>
#include "cli.h"

typedef struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} command;

static const command commands[] = {
	{ "compile", cmd_compile, "compile map descriptors and tile sets into a map pack" },
	{ "import", cmd_import, "read an annotated map image or a Tiled map into a descriptor" },
	{ "check", cmd_check, "validate tile sets, maps and packs against the rules" },
	{ "export", cmd_export, "write a map as JSON, compact binary, Tiled TMX or XML" },
	{ "render", cmd_render, "draw a map as a picture: PNG, SVG, HTML or PDF" },
	{ "play", cmd_play, "play random games on a map and report fill, scores and winners" },
	{ "rules", cmd_rules, "answer rules questions on the board state of a replay" },
	{ "balance", cmd_balance, "is a map fair to every seat? win rates with confidence intervals" },
	{ "diff", cmd_diff, "show the differences between two maps or two printings of a board" },
	{ "list", cmd_list, "list the tiles of a tile set, or the maps and tile sets of a pack" },
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap <command> [options] [files]\n"
	        "\n"
	        "carcamap authors, checks and exports boards and tile sets for\n"
	        "Carcassonne Maps.\n"
	        "\n"
	        "Commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
	        "\n"
	        "Options:\n"
	        "  -h, --help     this text\n"
	        "  -V, --version  the version and licence\n"
	        "\n"
	        "Run 'carcamap help <command>' or 'carcamap <command> --help' for a\n"
	        "command's options.\n"
	        "Exit status: 0 clean, 1 problems found in the input, 2 usage error,\n"
	        "3 I/O or internal failure.\n");
}

int main(int argc, char **argv)
{
#if defined(M_MMAP_THRESHOLD)
	/* Every block of 128 KiB or more mapped on its own, always: glibc
	 * otherwise raises that threshold to the size of each big block freed,
	 * and the million-square arrays made after one (a board's mostly
	 * untouched per-square tables) come from the heap, cleared byte by
	 * byte and faulted in whole instead of mapped zero pages touched
	 * where written (check of a 1000x1000 map: 25 MB less written). */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
#if defined(M_MXFAST)
	/* No fast bins: a freed small block is merged with its free
	 * neighbours at once, while they are in the cache. With them, the
	 * hundred thousand nodes of a big map's XML tree, freed after
	 * reading, wait in the bins until the next big malloc merges them
	 * all in one pass over cold memory (malloc_consolidate: 6% of check
	 * of a 1000x1000 map with 2,500 islands); blocks freed and soon
	 * asked for again still come from the thread cache (tcache). */
	mallopt(M_MXFAST, 0);
#endif
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "help") == 0 && argc > 2) {
		for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
			if (strcmp(argv[2], commands[i].name) == 0) {
				char help[] = "--help";
				char *av[] = { argv[2], help, NULL };
				return commands[i].run(2, av);
			}
		fprintf(stderr, "carcamap help: unknown command '%s'\n", argv[2]);
		fprintf(stderr, "Try 'carcamap --help' for the list of commands.\n");
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return EXIT_CLEAN;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("carcamap %s\nLicence: MIT (see LICENSE); no warranty.\n", cm_version());
		return EXIT_CLEAN;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(cmd, commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "carcamap: unknown command '%s'\n", cmd);
	fprintf(stderr, "Try 'carcamap --help' for the list of commands.\n");
	return EXIT_USAGE;
}
