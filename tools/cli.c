/* SPDX-License-Identifier: MIT */
/* cli.c: helpers every subcommand shares (cli.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
/* CM_TILESET_DIR, written by make from PREFIX (rewritten when PREFIX changes) */
#include "cm_paths.h"

int cli_parse_format(const char *cmd, const char *s, unsigned allowed, cli_format *out)
{
	static const char *const names[] = { "text", "json", "sarif", "github" };
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0 && (allowed & (1u << i))) {
			*out = (cli_format)i;
			return 0;
		}
	fprintf(stderr, "carcamap %s: unknown output format '%s' (use", cmd, s);
	int first = 1;
	for (int i = 0; i < 4; i++)
		if (allowed & (1u << i)) {
			fprintf(stderr, "%s%s", first ? " " : ", ", names[i]);
			first = 0;
		}
	fprintf(stderr, ")\n");
	return -1;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "carcamap %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'carcamap %s --help' for more information.\n", cmd);
	return EXIT_USAGE;
}

int cli_print_diags(cm_diags *d, cli_format fmt, int summary)
{
	int rc = 0;
	switch (fmt) {
	case FMT_TEXT:
		rc = cm_diags_write_text(d, stderr);
		if (summary) {
			char buf[128];
			cm_diags_summary(d, buf, sizeof buf);
			fprintf(stderr, "%s\n", buf);
		}
		break;
	case FMT_JSON:
		rc = cm_diags_write_json(d, stdout);
		break;
	case FMT_SARIF:
		rc = cm_diags_write_sarif(d, stdout);
		break;
	case FMT_GITHUB:
		/* workflow commands are read from the job's log (stdout) */
		rc = cm_diags_write_github(d, stdout);
		break;
	}
	if (fflush(stdout) != 0)
		rc = CM_EIO;
	return rc ? EXIT_IO : 0;
}

int cli_exit_code(int rc, const cm_diags *d)
{
	if (rc == CM_EIO || rc == CM_ENOMEM || rc == CM_EINTERNAL)
		return EXIT_IO;
	if (cm_diags_errors(d) || rc)
		return EXIT_PROBLEMS;
	return EXIT_CLEAN;
}

long cli_parse_uint(const char *s, long max)
{
	if (!s || !*s)
		return -1;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	errno = 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	return v;
}

static int worse(int a, int b)
{
	if (a == CM_EIO || a == CM_ENOMEM || a == CM_EINTERNAL)
		return a;
	if (b == CM_EIO || b == CM_ENOMEM || b == CM_EINTERNAL)
		return b;
	return a ? a : b;
}

/* The tile sets of the source tree the running command was built in (it
 * runs as TREE/build/carcamap, or TREE/build/san-.../carcamap): TREE's
 * maps/tilesets, so that a build finds its tile sets before `make
 * install`. NULL when it runs from elsewhere (installed) or out of memory. */
static char *tree_tilesets(void)
{
	char dir[4096];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n <= 0)
		return NULL;
	dir[n] = '\0';
	for (int up = 0; up < 3; up++) {
		char *sl = strrchr(dir, '/');
		if (!sl || sl == dir)
			return NULL;
		*sl = '\0';
		char *sets = cli_asprintf("%s/maps/tilesets", dir), *mark = cli_asprintf("%s/lib/include/carcamap/carcamap.h", dir);
		struct stat st;
		bool tree = sets && mark && stat(mark, &st) == 0 && stat(sets, &st) == 0 && S_ISDIR(st.st_mode);
		free(mark);
		if (tree)
			return sets;
		free(sets);
	}
	return NULL;
}

int cli_default_dirs(cm_workspace *w)
{
	const char *env = getenv("CARCAMAP_TILESETS");
	while (env && *env) {
		const char *colon = strchr(env, ':');
		size_t len = colon ? (size_t)(colon - env) : strlen(env);
		char dir[4096];
		if (len && len < sizeof dir) {
			memcpy(dir, env, len);
			dir[len] = '\0';
			if (cm_workspace_add_tileset_dir(w, dir))
				return CM_ENOMEM;
		}
		env = colon ? colon + 1 : NULL;
	}
	char *tree = tree_tilesets();
	int rc = tree ? cm_workspace_add_tileset_dir(w, tree) : 0;
	free(tree);
	return rc || cm_workspace_add_tileset_dir(w, CM_TILESET_DIR) ? CM_ENOMEM : 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A board's directory (maps/germany) stands for the one map descriptor in
 * it (*.xml with a <map> root; maps/germany/germany.xml): loaded into w.
 * A directory holding none or several is an I/O failure that names what
 * it found and what to give instead. */
static int load_directory(cm_workspace *w, const char *dir, cm_diags *d)
{
	DIR *dp = opendir(dir);
	if (!dp) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, dir, 0, 0, NULL, "cannot open: %s", strerror(errno));
		return CM_EIO;
	}
	size_t len = strlen(dir), n = 0, cap = 0, n_sets = 0;
	const char *sep = len && dir[len - 1] == '/' ? "" : "/";
	char **found = NULL;
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(dp)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".xml") != 0)
			continue;
		char *path = malloc(len + l + 2);
		cm_diags *q = NULL;
		if (!path || cm_diags_new(&q)) {
			free(path);
			rc = CM_ENOMEM;
			break;
		}
		snprintf(path, len + l + 2, "%s%s%s", dir, sep, e->d_name);
		struct stat st;
		cm_file_kind k = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? cm_file_detect(path, q) : CM_FILE_UNKNOWN;
		bool map = k == CM_FILE_MAP;
		n_sets += k == CM_FILE_TILESET;
		cm_diags_free(q);
		if (!map) {
			free(path);
			continue;
		}
		if (n == cap) {
			char **v = realloc(found, (cap = cap ? 2 * cap : 4) * sizeof *v);
			if (!v) {
				free(path);
				rc = CM_ENOMEM;
				break;
			}
			found = v;
		}
		found[n++] = path;
	}
	closedir(dp);
	if (n)
		qsort(found, n, sizeof *found, cmp_name);
	if (!rc && n == 1) {
		rc = cm_workspace_load(w, found[0], d);
	} else if (!rc && n == 0) {
		char sets[64] = "";
		if (n_sets)
			snprintf(sets, sizeof sets, ", but %zu tile set file%s", n_sets, n_sets > 1 ? "s" : "");
		cm_diags_add(d, CM_SEV_ERROR, NULL, dir, 0, 0, NULL,
		             "is a directory holding no map descriptor (*.xml with a <map> root%s): "
		             "give a descriptor, pack, tile set or Tiled map file",
		             sets);
		rc = CM_EIO;
	} else if (!rc) {
		/* the first few, by name: a directory of many says how many */
		char list[600] = "";
		size_t at = 0;
		for (size_t i = 0; i < n && i < 4 && at < sizeof list; i++) {
			const char *base = found[i] + len + strlen(sep);
			int k = snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", base);
			at += k > 0 ? (size_t)k : 0;
		}
		cm_diags_add(d, CM_SEV_ERROR, NULL, dir, 0, 0, NULL,
		             "is a directory holding %zu map descriptors (%s%s): give the one meant, "
		             "such as %s",
		             n, list, n > 4 ? ", ..." : "", found[0]);
		rc = CM_EIO;
	}
	for (size_t i = 0; i < n; i++)
		free(found[i]);
	free(found);
	return rc;
}

int cli_workspace_load(cm_workspace *w, int n, char **files, int decks, cm_diags *d)
{
	int worst = 0;
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (stat(files[i], &st) == 0 && S_ISDIR(st.st_mode))
			worst = worse(worst, load_directory(w, files[i], d));
		else
			worst = worse(worst, cm_workspace_load(w, files[i], d));
	}
	if (!decks)
		return worst;
	if (cli_default_dirs(w))
		return CM_ENOMEM;
	return worse(worst, cm_workspace_resolve(w, d));
}

/* Whether every map of w is a printing of the first one's board. */
static bool printing_of(const char *id, const char *base);
static bool printing_all(cm_workspace *w)
{
	const char *base = cm_map_id(cm_workspace_map(w, 0));
	for (size_t i = 1; i < cm_workspace_map_count(w); i++)
		if (!printing_of(cm_map_id(cm_workspace_map(w, i)), base))
			return false;
	return true;
}

const char *cli_board_id(cm_workspace *w)
{
	return cm_workspace_map_count(w) > 0 && printing_all(w) ? cm_map_id(cm_workspace_map(w, 0)) : NULL;
}

int cli_printing_option(const char *cmd, const char *arg, int *out)
{
	cm_edition e;
	if (cm_edition_parse(arg, &e) != 0)
		return cli_usage_error(cmd, "unknown printing '%s' (use C2 or C3)", arg);
	*out = (int)e + 1;
	return 0;
}

/* Whether id is printing p of base: base itself, or base-cN. */
static bool printing_of(const char *id, const char *base)
{
	size_t n = strlen(base);
	return strncmp(id, base, n) == 0 &&
	       (id[n] == '\0' || (id[n] == '-' && id[n + 1] == 'c' && id[n + 2] >= '1' && id[n + 2] <= '3' && !id[n + 3]));
}

const cm_map *cli_select_map(const char *cmd, cm_workspace *w, const char *name, int printing)
{
	size_t n = cm_workspace_map_count(w);
	if (name) {
		const cm_map *m = cm_workspace_find_map(w, name);
		if (m && (printing < 0 || (int)cm_map_rules(m)->edition == printing))
			return m;
		if (printing >= 0) {
			char id[300];
			snprintf(id, sizeof id, "%s-c%d", name, printing + 1);
			if ((m = cm_workspace_find_map(w, id)) != NULL && (int)cm_map_rules(m)->edition == printing)
				return m;
			fprintf(stderr, "carcamap %s: no map '%s' in printing %s", cmd, name,
			        cm_edition_name((cm_edition)printing));
		} else {
			fprintf(stderr, "carcamap %s: no map '%s'", cmd, name);
		}
	} else if (n >= 1 && printing_all(w)) {
		/* one board: its only map, or the printing asked for, or the default */
		for (size_t i = 0; i < n; i++) {
			const cm_map *m = cm_workspace_map(w, i);
			if (printing < 0 || (int)cm_map_rules(m)->edition == printing)
				return m;
		}
		fprintf(stderr, "carcamap %s: the input holds no printing %s", cmd,
		        cm_edition_name((cm_edition)printing));
	} else if (n == 0) {
		fprintf(stderr, "carcamap %s: the input holds no map\n", cmd);
		return NULL;
	} else {
		fprintf(stderr, "carcamap %s: the input holds %zu maps; choose one with --map", cmd, n);
	}
	if (n) {
		fprintf(stderr, " (maps:");
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %s", cm_map_id(cm_workspace_map(w, i)));
		fprintf(stderr, ")");
	}
	fprintf(stderr, "\n");
	return NULL;
}

int cli_bad_option(const char *cmd, int c, char **argv, const struct option *opts)
{
	/* getopt_long has moved past a long option, so argv[optind - 1] names
	 * it; not so a short one: on "-xh" it stays while letters are left, and
	 * argv[optind - 1] is the argument before. optopt names a short option,
	 * but also holds the val of a long one given a value it takes none of
	 * ("--strict=1"): that one is told apart by its name. */
	const char *arg = argv[optind - 1];
	int is_long = strncmp(arg, "--", 2) == 0;
	if (c != ':' && is_long && optopt) {
		const char *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg - 2) : 0;
		is_long = 0;
		for (const struct option *o = opts; eq && o->name; o++)
			is_long |= o->has_arg == no_argument && o->val == optopt && strncmp(o->name, arg + 2, len) == 0;
	}
	char name[3] = { '-', (char)optopt, '\0' };
	if (!is_long && optopt)
		arg = name;
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", arg);
	return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_tileset_option(cm_workspace *w, const char *dir)
{
	/* a -T that names nothing is a mistake to say, not a search that
	 * silently finds nothing */
	struct stat st;
	int r = stat(dir, &st), err = errno;
	if (r != 0 || !S_ISDIR(st.st_mode)) {
		char *e = cm_text_escape(dir);
		fprintf(stderr, "carcamap: -T %s: %s\n", e ? e : "?", r != 0 ? strerror(err) : "not a directory");
		free(e);
		return EXIT_USAGE;
	}
	return cm_workspace_add_tileset_dir(w, dir) ? EXIT_IO : 0;
}

int cli_next_option(cli_opts *o, int argc, char **argv, const char *shortopts)
{
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, shortopts, o->opts, NULL), pr = 0;
		if (c == -1)
			return -1;
		if (c == 'h') {
			o->usage(stdout);
			o->status = EXIT_CLEAN;
		} else if (c == 'T' && o->tilesets) {
			o->status = cli_tileset_option(o->tilesets, optarg);
		} else if (c == 'P' && o->printing) {
			o->status = cli_printing_option(o->cmd, optarg, o->printing);
		} else if (c == 'P' && o->printing_w) {
			if (!(o->status = cli_printing_option(o->cmd, optarg, &pr)))
				cm_workspace_set_printing(o->printing_w, pr - 1);
		} else if (c == ':' || c == '?') {
			o->status = cli_bad_option(o->cmd, c, argv, o->opts);
		} else {
			return c;
		}
		if (c == 'h' || o->status)
			return CLI_STOP;
	}
}

int cli_load_map(cli_target *t, cm_workspace *w, int n, char **files, cm_diags *d)
{
	t->map = NULL;
	cm_workspace_set_printing(w, t->printing - 1);
	/* --map: a pack's other maps are not read */
	if (t->map_id && cm_workspace_set_map_only(w, t->map_id))
		return CM_ENOMEM;
	int rc = cli_workspace_load(w, n, files, t->decks, d);
	if (rc || cm_diags_errors(d))
		return rc ? rc : CM_EINVAL;
	const char *id = t->map_id;
	/* several maps: the fallback (a replay's map), unless it is not there
	 * and the maps are the printings of one board (the default one then) */
	if (!id && cm_workspace_map_count(w) > 1 &&
	    !(printing_all(w) && (!t->fallback || !cm_workspace_find_map(w, t->fallback))))
		id = t->fallback;
	t->map = cli_select_map(t->cmd, w, id, t->printing - 1);
	if (!t->map)
		return CLI_NO_MAP;
	/* a map from a pack (no file) has passed only the pack's own checks and
	 * its hash: a structurally broken one (CM02xx, as check reports it) is
	 * never exported, rendered or played */
	if (!cm_map_file(t->map) && cm_map_check(t->map, NULL, 0, d) != 0) {
		t->map = NULL;
		return CM_EINVAL;
	}
	return t->build_deck ? cm_play_deck(w, t->map, d, &t->deck) : 0;
}

int cli_finish(cm_diags *d, cli_format fmt, int rc)
{
	cm_diags_sort(d);
	int ec = cli_print_diags(d, fmt, cm_diags_count(d) > 0);
	return ec ? ec : cli_exit_code(rc, d);
}

int cli_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > CM_PLAY_MAX_JOBS ? CM_PLAY_MAX_JOBS : (int)n;
}

char *cli_strdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	return p ? memcpy(p, s, n) : NULL;
}

char *cli_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n < 0 ? NULL : malloc((size_t)n + 1);
	if (p) {
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return p;
}

int cli_grow(void **v, size_t *cap, size_t n, size_t es)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 8;
	while (nc <= n)
		nc *= 2;
	void *p = realloc(*v, nc * es);
	if (!p)
		return CM_ENOMEM;
	*v = p;
	*cap = nc;
	return 0;
}

/* ---- outputs (README "Outputs"; the library's cm_file_write) ---- */

int cli_output_check(const char *cmd, const char *opt, const char *out, const char *no_stream, bool binary,
                     bool *stream)
{
	*stream = false;
	if (!out)
		return 0;
	const char *why = NULL;
	cm_file_output k = cm_file_output_kind(out, &why);
	if (k == CM_OUTPUT_REFUSED) {
		why = why ? why : "cannot be written";
		if (strncmp(why, "is a directory", 14) == 0)
			return cli_usage_error(cmd, "%s %s is a directory: name a file in it", opt, out);
		return cli_usage_error(cmd, "%s %s%s%s", opt, out, strncmp(why, "is ", 3) == 0 ? " " : ": ", why);
	}
	*stream = k == CM_OUTPUT_STREAM;
	bool dash = strcmp(out, "-") == 0;
	if (*stream && no_stream)
		return cli_usage_error(cmd, "%s %s is %s: %s", opt, out, dash ? "standard output" : "a stream", no_stream);
	if (*stream && binary) {
		/* a terminal shows no binary: only a character device is one, and
		 * opening it here waits on nothing */
		struct stat st;
		int fd = dash ? STDOUT_FILENO
		         : stat(out, &st) == 0 && S_ISCHR(st.st_mode) ? open(out, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
		                                                     : -1;
		bool tty = fd >= 0 && isatty(fd);
		if (fd >= 0 && fd != STDOUT_FILENO)
			close(fd);
		if (tty)
			return cli_usage_error(cmd, "%s %s is a terminal: this output is binary; name a file or redirect", opt,
			                       out);
	}
	return 0;
}

/* Whether the file at path is the one o describes (device and inode). */
static bool same_file(const struct stat *o, const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && st.st_dev == o->st_dev && st.st_ino == o->st_ino;
}

/* The usage error of an output that would destroy input path. */
static int refuse_input(const char *cmd, const char *opt, const char *out, const char *path)
{
	char *e = cm_text_escape(path), *eo = cm_text_escape(out);
	if (e && eo && strcmp(e, eo) == 0)
		cli_usage_error(cmd, "%s %s is an input: writing it would destroy it; choose another output", opt, eo);
	else
		cli_usage_error(cmd, "%s %s is the same file as %s, an input: writing it would destroy it; choose "
		                     "another output",
		                opt, eo ? eo : "?", e ? e : "?");
	free(e);
	free(eo);
	return EXIT_USAGE;
}

int cli_output_not_input(const char *cmd, const char *opt, const char *out, int same_kind, int n, char **files,
                         const cm_workspace *w, const cm_diags *d)
{
	struct stat o;
	if (!out || cm_file_output_kind(out, NULL) != CM_OUTPUT_FILE || stat(out, &o) != 0 || !S_ISREG(o.st_mode))
		return 0; /* a new file, or a stream: no input is replaced */
	/* the files named, the XML files the readers read (descriptors, their
	 * halves, tile sets, legends, Tiled maps), and each map's image */
	size_t n_src = cm_diags_source_count(d), n_maps = w ? cm_workspace_map_count(w) : 0;
	for (size_t i = 0; i < (size_t)n + n_src + 2 * n_maps; i++) {
		char *own = NULL;
		const char *in = NULL;
		if (i < (size_t)n) {
			in = files[i];
		} else if (i < (size_t)n + n_src) {
			in = cm_diags_source_file(d, i - (size_t)n);
		} else {
			size_t k = i - (size_t)n - n_src;
			const cm_map *m = cm_workspace_map(w, k / 2);
			const char *rel = k % 2 ? cm_map_legend(m) : cm_map_image(m);
			if (cm_map_file(m) && rel)
				in = own = cm_path_resolve(cm_map_file(m), rel);
		}
		bool same = in && same_file(&o, in);
		if (same && same_kind >= 0) {
			cm_diags *q = NULL;
			same = cm_diags_new(&q) != 0 || (int)cm_file_detect(in, q) != same_kind;
			cm_diags_free(q);
		}
		if (same) {
			refuse_input(cmd, opt, out, in);
			free(own);
			return EXIT_USAGE;
		}
		free(own);
	}
	return 0;
}

int cli_apply_rules(const char *cmd, char *const *args, int n, cm_rules *rules)
{
	unsigned given = 0; /* --rule NAME=V wins over --rule edition=E in any order */
	for (int i = 0; i < n; i++) {
		char name[64];
		const char *eq = strchr(args[i], '=');
		size_t len = eq ? (size_t)(eq - args[i]) : strlen(args[i]);
		snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), args[i]);
		if (!eq)
			return cli_usage_error(cmd, "--rule takes NAME=VALUE, not '%s'", args[i]);
		int r = cm_rules_set(rules, &given, name, eq + 1);
		if (r == CM_ENOTFOUND || len >= sizeof name)
			return cli_usage_error(cmd, "unknown rule option '%s'", name);
		if (r < 0)
			return cli_usage_error(cmd, "rule option %s cannot be '%s'", name, eq + 1);
	}
	return 0;
}

cm_json *cli_json_begin(FILE *f, const char *name, const char *version)
{
	cm_json *j = cm_json_new(f, true);
	if (!j)
		return NULL;
	cm_json_obj_begin(j);
	cm_json_key(j, "format");
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "name", name);
	cm_json_kv_str(j, "version", version);
	cm_json_obj_end(j);
	return j;
}

int cli_json_end(cm_json *j)
{
	cm_json_obj_end(j);
	int rc = cm_json_finish(j) ? CM_EIO : 0;
	cm_json_free(j);
	return rc;
}

int cli_parse_jobs(const char *cmd, const char *arg, int *out)
{
	long v = cli_parse_uint(arg, CM_PLAY_MAX_JOBS);
	if (v < 1)
		return cli_usage_error(cmd, "--jobs takes a number from 1 to %d, not '%s'", CM_PLAY_MAX_JOBS, arg);
	*out = (int)v;
	return 0;
}
