/* SPDX-License-Identifier: MIT */
/* cli.h: what every subcommand shares: exit codes, output formats, printing
 * diagnostics, and small option helpers. No XML, SQL or PNG here. */
#ifndef CM_CLI_H
#define CM_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include "carcamap/carcamap.h"

/* Exit status (DESIGN.md "Command line"). */
enum { EXIT_CLEAN = 0, EXIT_PROBLEMS = 1, EXIT_USAGE = 2, EXIT_IO = 3 };

typedef enum { FMT_TEXT = 0, FMT_JSON, FMT_SARIF, FMT_GITHUB } cli_format;

/* Parses "text", "json", "sarif" (allowed: a mask of 1<<FMT_…). Prints a
 * usage error and returns -1 when not allowed. */
int cli_parse_format(const char *cmd, const char *s, unsigned allowed, cli_format *out);

/* Prints a usage error "carcamap CMD: message" and a hint to --help. Returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* Prints diagnostics: text to stderr (plus a summary line when summary is
 * set), json/sarif to stdout. Returns 0 or EXIT_IO when writing failed. */
int cli_print_diags(cm_diags *d, cli_format fmt, int summary);

/* Exit code for a library return code and diagnostics: EXIT_IO for
 * CM_EIO/CM_ENOMEM/CM_EINTERNAL, EXIT_PROBLEMS when d has errors, else 0. */
int cli_exit_code(int rc, const cm_diags *d);

/* Loads files into w (cm_workspace_load each) and, when decks is set,
 * resolves the decks (cm_workspace_resolve) after adding the default tile
 * set directories (cli_default_dirs). Returns the worst library code: an I/O failure
 * outranks problems. */
int cli_workspace_load(cm_workspace *w, int n, char **files, int decks, cm_diags *d);

/* Adds the default tile set directories to w: $CARCAMAP_TILESETS
 * (colon-separated), then the source tree's maps/tilesets when the command
 * runs from the tree it was built in (TREE/build/carcamap), then the
 * installed ones. 0 or CM_ENOMEM. */
int cli_default_dirs(cm_workspace *w);

/* The map to work on: the one with id name, or the only map when name is
 * NULL, or the default printing when the maps are the printings of one
 * board (ID, ID-c3, ...). printing >= 0 (a cm_edition, --printing) takes
 * that printing: the map name in that edition, else name-c3 (name-c2, ...).
 * Prints a usage-style error naming the maps and returns NULL. */
const cm_map *cli_select_map(const char *cmd, cm_workspace *w, const char *name, int printing);

/* The id of the board whose printings are all the maps of w (its first
 * map's: "germany" for germany and germany-c3); NULL when w holds no map
 * or maps of several boards. Borrowed from w. */
const char *cli_board_id(cm_workspace *w);

/* --printing ED: parses C1/C2/C3 into *out as the cm_edition + 1 (the
 * cli_target field). Returns 0, or EXIT_USAGE after printing the usage
 * error. */
int cli_printing_option(const char *cmd, const char *arg, int *out);

/* The error cases of every command's getopt_long loop (opterr 0, the
 * option string starting with ':'): c is ':' (an option without its
 * value) or anything else (an unknown option, or a long option given a
 * value it takes none of). Prints the usage error naming the option as
 * the user wrote it (a short one from optopt: "-x", also inside "-xh")
 * and returns EXIT_USAGE. opts: the command's long options. */
int cli_bad_option(const char *cmd, int c, char **argv, const struct option *opts);

/* -T/--tilesets DIR: adds dir to w's tile set search path. Returns 0, or
 * EXIT_IO when out of memory. */
int cli_tileset_option(cm_workspace *w, const char *dir);

/* The option loop every command shares: getopt_long (opterr off) over the
 * command's options, with the options every command treats alike handled
 * here and the rest handed back to the command's switch. */
typedef struct {
	const char *cmd;            /* the command, for messages */
	const struct option *opts;  /* its long options */
	void (*usage)(FILE *f);     /* -h, --help: printed to stdout */
	cm_workspace *tilesets;     /* -T, --tilesets DIR (val 'T') adds to it
	                             * (cli_tileset_option); NULL: the command's */
	int *printing;              /* --printing ED (val 'P') into *printing as
	                             * cli_target's (cli_printing_option) */
	cm_workspace *printing_w;   /* or, printing NULL, set on this workspace;
	                             * both NULL: the command's */
	int status;                 /* out, after CLI_STOP: the exit status */
} cli_opts;

/* After CLI_STOP the command exits with o->status. */
#define CLI_STOP (-2)

/* The next option the command handles itself (its val), -1 when the
 * options are over, or CLI_STOP when the command is done: after --help
 * (o->status EXIT_CLEAN) or after a bad option or value of the shared
 * ones, the usage error printed (EXIT_USAGE; EXIT_IO when out of memory).
 * shortopts starts with ':' (cli_bad_option). */
int cli_next_option(cli_opts *o, int argc, char **argv, const char *shortopts);

/* The map a command works on (play, rules, render, export): fill in the
 * inputs, call cli_load_map, read the outputs. */
typedef struct {
	const char *cmd;      /* the command, for messages */
	const char *map_id;   /* --map ID, or NULL */
	int printing;         /* --printing: the cm_edition + 1, or 0 (every printing
	                       * is loaded and the default one selected) */
	const char *fallback; /* without --map: the map to take when the input
	                       * holds several (NULL: an error) */
	int decks;            /* find the tile sets the decks name */
	int build_deck;       /* build the map's deck (cm_play_deck) */
	const cm_map *map;    /* out: the map, borrowed from the workspace */
	cm_deck *deck;        /* out: with build_deck; the caller frees it */
} cli_target;

/* Positive: never a library code. */
#define CLI_NO_MAP 1

/* Loads files into w (cli_workspace_load, with t->decks) and, when they
 * loaded without errors, selects t->map (cli_select_map: t->map_id, else
 * the only map, else t->fallback) and with t->build_deck builds its deck.
 * Returns 0 with t->map set, or a library code (the problems in d;
 * CM_EINVAL for errors in d; t->map is set when only the deck failed);
 * CLI_NO_MAP when there was no map to choose (the error printed: the
 * command exits with EXIT_USAGE). */
int cli_load_map(cli_target *t, cm_workspace *w, int n, char **files, cm_diags *d);

/* Outputs (README "Outputs"): the library writes -o where it leads
 * (cm_file_write). opt names the option in messages ("-o"). Before
 * anything is read, cli_output_check looks at what out names: a directory, block device or socket is a usage error;
 * "-" (standard output), a character device or a FIFO is a stream (*stream
 * set), a usage error when no_stream is given (it says why the command
 * cannot stream, and what to give), and for binary output (binary) when
 * it is a terminal. out NULL: nothing to check. Returns 0 or EXIT_USAGE
 * (the error printed). */
int cli_output_check(const char *cmd, const char *opt, const char *out, const char *no_stream, bool binary,
                     bool *stream);
/* After the inputs are read: refuses an output that is one of them, the
 * same file by device and inode (a link or another name included): the
 * files named (files[0..n)), every file whose text d keeps (descriptors,
 * their halves, tile sets, legends, Tiled maps) and each map's image and
 * legend in w (NULL: none). An input of kind same_kind (a cm_file_kind;
 * -1: none) may be the output: the command rewrites a file of its own kind
 * (a pack compiled into itself), having read it whole. Returns 0 or
 * EXIT_USAGE (the error printed). */
int cli_output_not_input(const char *cmd, const char *opt, const char *out, int same_kind, int n, char **files,
                         const cm_workspace *w, const cm_diags *d);

/* The end of a command: sorts and prints d (cli_print_diags, with the
 * summary line when there are diagnostics) and returns the exit code:
 * EXIT_IO when printing failed, else cli_exit_code(rc, d). */
int cli_finish(cm_diags *d, cli_format fmt, int rc);

/* Applies --rule NAME=VALUE arguments to rules, in order (an explicit
 * option wins over the defaults of --rule edition=E whatever their
 * order). Returns 0, or EXIT_USAGE after printing the usage error. */
int cli_apply_rules(const char *cmd, char *const *args, int n, cm_rules *rules);

/* A JSON report on f: the writer (NULL when out of memory) with the
 * document's object open and its "format" member ({name, version})
 * written; cli_json_end closes the object, finishes and frees the
 * writer: 0, or CM_EIO when writing failed. */
cm_json *cli_json_begin(FILE *f, const char *name, const char *version);
int cli_json_end(cm_json *j);
/* --jobs N: 1..CM_PLAY_MAX_JOBS into *out; 0, or EXIT_USAGE after the
 * usage error. */
int cli_parse_jobs(const char *cmd, const char *arg, int *out);

/* Parses a whole non-negative decimal int (no sign, no junk); -1 on error. */
long cli_parse_uint(const char *s, long max);
/* The default of --jobs: the processors online (1 when unknown). */
int cli_default_jobs(void);

/* Small helpers of the command's own (the library keeps its alike
 * private): a copy of s (NULL for NULL or when out of memory); a printf
 * into a new string (NULL when out of memory); growing *v (elements of es
 * bytes) to hold at least n+1 of them, 0 or CM_ENOMEM (*v left as it was). */
char *cli_strdup(const char *s);
char *cli_asprintf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
int cli_grow(void **v, size_t *cap, size_t n, size_t es);

/* Waiting for files to change (watch.c): a set of files, a wait that
 * returns once any of them changed (content, replacement, appearance,
 * removal) and stayed quiet for 150 ms. inotify on Linux, else polling
 * (also when CARCAMAP_WATCH_POLL is set). new/set return 0 or CM_ENOMEM. */
typedef struct cli_watch cli_watch;
int cli_watch_new(cli_watch **out);
int cli_watch_set(cli_watch *w, char *const *paths, size_t n);
/* cli_watch_new also catches SIGINT and SIGTERM: the wait then returns 1
 * (else 0), and cli_watch_stopped says so from then on. */
int cli_watch_wait(cli_watch *w);
bool cli_watch_stopped(void);
const char *cli_watch_method(const cli_watch *w); /* "inotify" or "polling" */
void cli_watch_free(cli_watch *w);

/* Subcommands: each parses its own options (getopt_long) and returns an exit code. */
int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_balance(int argc, char **argv);

#endif
