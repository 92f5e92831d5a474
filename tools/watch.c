/* SPDX-License-Identifier: MIT */
/* watch.c: waiting for files to change (cli.h, `render --watch`). A stat
 * snapshot of every watched file decides what changed; inotify on their
 * directories (editors save by rename) only wakes the wait early, and
 * without it (not Linux, no inotify left, CARCAMAP_WATCH_POLL set) the
 * snapshot is taken again every 250 ms. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif
#include "cli.h"

typedef struct {
	char *path;
	int exists;
	struct stat st;
} watched;

struct cli_watch {
	watched *files;
	size_t n;
	int fd; /* inotify, or -1 */
};

static void snap(watched *w)
{
	struct stat st;
	w->exists = stat(w->path, &st) == 0;
	if (w->exists)
		w->st = st;
	else
		memset(&w->st, 0, sizeof w->st);
}

static int same(const watched *w)
{
	struct stat st;
	int ex = stat(w->path, &st) == 0;
	if (ex != w->exists)
		return 0;
	if (!ex)
		return 1;
	return st.st_ino == w->st.st_ino && st.st_dev == w->st.st_dev && st.st_size == w->st.st_size &&
	       st.st_mtim.tv_sec == w->st.st_mtim.tv_sec && st.st_mtim.tv_nsec == w->st.st_mtim.tv_nsec &&
	       st.st_ctim.tv_sec == w->st.st_ctim.tv_sec && st.st_ctim.tv_nsec == w->st.st_ctim.tv_nsec;
}

/* Set by SIGINT or SIGTERM once cli_watch_new has caught them. */
static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
	(void)sig;
	stopped = 1;
}

int cli_watch_new(cli_watch **out)
{
	cli_watch *w = calloc(1, sizeof *w);
	if (!w)
		return CM_ENOMEM;
	w->fd = -1;
	/* Ctrl-C or a kill ends the watch between renders, with the last
	 * render's status (render --help) */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
#ifdef __linux__
	const char *poll_env = getenv("CARCAMAP_WATCH_POLL");
	if (!poll_env || !poll_env[0])
		w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
#endif
	*out = w;
	return 0;
}

const char *cli_watch_method(const cli_watch *w)
{
	return w->fd >= 0 ? "inotify" : "polling";
}

static void clear_files(cli_watch *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->files[i].path);
	free(w->files);
	w->files = NULL;
	w->n = 0;
}

void cli_watch_free(cli_watch *w)
{
	if (!w)
		return;
	clear_files(w);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}

/* The directory of path, as inotify watches it ("." for a bare name). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return cli_strdup(".");
	if (slash == path)
		return cli_strdup("/");
	char *d = malloc((size_t)(slash - path) + 1);
	if (d) {
		memcpy(d, path, (size_t)(slash - path));
		d[slash - path] = '\0';
	}
	return d;
}

int cli_watch_set(cli_watch *w, char *const *paths, size_t n)
{
	clear_files(w);
	if (!(w->files = calloc(n + 1, sizeof *w->files)))
		return CM_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int dup = 0;
		for (size_t k = 0; k < w->n; k++)
			dup |= strcmp(w->files[k].path, paths[i]) == 0;
		if (dup)
			continue;
		if (!(w->files[w->n].path = cli_strdup(paths[i])))
			return CM_ENOMEM;
		snap(&w->files[w->n]);
		w->n++;
#ifdef __linux__
		if (w->fd >= 0) {
			/* watches on one directory are one watch: adding again is harmless */
			char *d = dir_of(paths[i]);
			if (!d)
				return CM_ENOMEM;
			inotify_add_watch(w->fd, d,
			                  IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB |
			                          IN_MOVED_FROM);
			free(d);
		}
#endif
	}
	return 0;
}

static int changed(const cli_watch *w)
{
	for (size_t i = 0; i < w->n; i++)
		if (!same(&w->files[i]))
			return 1;
	return 0;
}

/* Waits up to ms for an inotify event (draining them) or just sleeps. */
static void nap(cli_watch *w, int ms)
{
	if (w->fd >= 0) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };
		if (poll(&p, 1, ms) > 0) {
			char buf[4096];
			while (read(w->fd, buf, sizeof buf) > 0)
				;
		}
		return;
	}
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int cli_watch_wait(cli_watch *w)
{
	/* inotify wakes at once; a missed event is caught within a second; a
	 * signal cuts the nap short (no SA_RESTART) */
	while (!stopped && !changed(w))
		nap(w, w->fd >= 0 ? 1000 : 250);
	if (stopped)
		return 1;
	/* let a save that writes in steps settle: until nothing changed for 150 ms */
	for (int quiet = 0; quiet < 3;) {
		for (size_t i = 0; i < w->n; i++)
			snap(&w->files[i]);
		nap(w, 50);
		quiet = changed(w) ? 0 : quiet + 1;
	}
	return stopped ? 1 : 0;
}

bool cli_watch_stopped(void)
{
	return stopped != 0;
}
