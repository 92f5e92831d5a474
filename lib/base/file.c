/* SPDX-License-Identifier: MIT */
/* file.c: the file helpers every reader and writer uses (util_int.h; the
 * public ones in carcamap/file.h):
 * opening and reading whole inputs with their limits, paths relative to a
 * file, and outputs (DESIGN.md "Safety"): written in full into a temporary
 * file, then renamed over a regular file, copied into one with several
 * hard links, or copied to a stream. Failures are reported into a
 * cm_diags sink. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include "carcamap/common.h"
#include "carcamap/diag.h"
#include "base/util_int.h"

int cm_open_read(const char *path, cm_diags *d, FILE **out)
{
	*out = NULL;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; only regular
	 * files are read, so a pipe, a device or a directory is refused here
	 * instead of hanging or failing later in a confusing way */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
		return CM_EIO;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "%s",
		             S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return CM_EIO;
	}
	int fl = fcntl(fd, F_GETFL);
	FILE *f = NULL;
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "rb"))) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
		close(fd);
		return CM_EIO;
	}
	*out = f;
	return 0;
}

int cm_read_file(const char *path, size_t max, cm_diags *d, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	FILE *f;
	if (cm_open_read(path, d, &f))
		return CM_EIO;
	/* room for max bytes and one more, which tells a file of exactly max
	 * bytes (read) from a longer one (refused) */
	size_t cap = max < 65536 ? max + 1 : 65536, n = 0;
	char *buf = malloc(cap + 1);
	int rc = 0;
	if (!buf) {
		rc = CM_ENOMEM;
		goto out;
	}
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				cm_diags_add(d, CM_SEV_ERROR, "CM0004", path, 0, 0, NULL,
				             "file is larger than the limit of %zu bytes", max);
				rc = CM_ELIMIT;
				goto out;
			}
			size_t ncap = cap * 2 > max ? max + 1 : cap * 2;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				rc = CM_ENOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0) {
			if (ferror(f)) {
				cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "read error: %s",
				             strerror(errno));
				rc = CM_EIO;
				goto out;
			}
			break;
		}
	}
	buf[n] = '\0';
	/* the text may be kept as long as its diagnostics (a compile of
	 * thousands of small descriptors keeps every one): no 64 KB buffer
	 * for a file of a few hundred bytes */
	if (cap - n > 4096) {
		char *nb = realloc(buf, n + 1);
		if (nb)
			buf = nb;
	}
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	fclose(f);
	return rc;
}

char *cm_path_resolve(const char *base, const char *rel)
{
	const char *slash = base ? strrchr(base, '/') : NULL;
	if (rel[0] == '/' || !slash)
		return cm_strdup(rel);
	return cm_asprintf("%.*s/%s", (int)(slash - base), base, rel);
}

/* The directory part of path, resolved ("." when it has none); NULL when
 * it does not resolve. */
static char *real_dir(const char *path)
{
	const char *sl = strrchr(path, '/');
	char *dir = sl ? cm_strndup(path, sl == path ? 1 : (size_t)(sl - path)) : cm_strdup(".");
	char *r = dir ? realpath(dir, NULL) : NULL;
	free(dir);
	return r;
}

/* Component i of an absolute path ("/a/b": "a", "b"): its start, length. */
static size_t components(const char *p, const char **starts, size_t *lens, size_t max)
{
	size_t n = 0;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *q = p;
		while (*q && *q != '/')
			q++;
		if (n < max) {
			starts[n] = p;
			lens[n] = (size_t)(q - p);
		}
		n++;
		p = q;
	}
	return n;
}

char *cm_path_relative(const char *from_file, const char *target)
{
	enum { MAXC = 256 };
	char *from = real_dir(from_file), *kd = real_dir(target);
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	char *out = NULL;
	const char *fs[MAXC], *ks[MAXC];
	size_t fl[MAXC], kl[MAXC];
	size_t nf = from ? components(from, fs, fl, MAXC) : MAXC + 1;
	size_t nk = kd ? components(kd, ks, kl, MAXC) : MAXC + 1;
	if (nf <= MAXC && nk <= MAXC) {
		size_t k = 0;
		while (k < nf && k < nk && fl[k] == kl[k] && memcmp(fs[k], ks[k], fl[k]) == 0)
			k++;
		out = cm_strdup("");
		for (size_t i = k; out && i < nf; i++) {
			char *n = cm_asprintf("%s../", out);
			free(out);
			out = n;
		}
		for (size_t i = k; out && i < nk; i++) {
			char *n = cm_asprintf("%s%.*s/", out, (int)kl[i], ks[i]);
			free(out);
			out = n;
		}
		if (out) {
			char *n = cm_asprintf("%s%s", out, base);
			free(out);
			out = n;
		}
	} else {
		out = cm_strdup(target);
	}
	free(from);
	free(kd);
	return out;
}

/* ---- outputs (DESIGN.md "Safety") ---- */

/* How an output path is written, once its symlinks are followed. */
typedef enum {
	WAY_REPLACE,  /* a regular file with one name, or none yet: a temporary
	               * beside it renamed over it */
	WAY_IN_PLACE, /* a regular file with several names (hard links): the
	               * content, written in full first, copied into it */
	WAY_STREAM,   /* standard output, a character device or a FIFO: the
	               * content, written in full first, copied to it */
} out_way;

typedef struct {
	out_way way;
	int fd;         /* WAY_STREAM to a descriptor of this process: it (1 for
	                 * standard output); else -1 */
	char *target;   /* the file written (NULL with fd) */
	struct stat st; /* the target's status when it exists */
	bool exists;
	const char *why; /* a refusal: why (static text, or strerror's) */
} out_plan;

/* The directory part of path ("." when it has none), a new string. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return !slash ? cm_strdup(".") : slash == path ? cm_strdup("/") : cm_strndup(path, (size_t)(slash - path));
}

/* Why a file of this mode cannot be an output; NULL for a regular file, a
 * character device or a FIFO. */
static const char *not_output(mode_t mode)
{
	if (S_ISREG(mode) || S_ISCHR(mode) || S_ISFIFO(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "is a directory";
	return S_ISBLK(mode) ? "is a block device (outputs are files, character devices, FIFOs or '-' for standard output)"
	                     : "is a socket or other special file (outputs are files, character devices, FIFOs or '-' "
	                       "for standard output)";
}

/* The descriptor of this process that path names, by itself or through
 * links: "/dev/stdout" (1), "/dev/stderr" (2), "/dev/fd/N",
 * "/proc/self/fd/N", "/proc/PID/fd/N" of this process. Written to as that
 * descriptor (so `-o /dev/stdout >> log` appends, as the shell opened it).
 * -1 when it names none; -2 when out of memory. */
static int fd_alias(const char *path)
{
	char *cur = cm_strdup(path);
	int fd = -1;
	char self[32];
	snprintf(self, sizeof self, "/proc/%ld/fd/", (long)getpid());
	for (int hops = 0; cur && fd < 0 && hops < 40; hops++) {
		static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/", NULL };
		const char *num = NULL;
		if (strcmp(cur, "/dev/stdout") == 0)
			fd = STDOUT_FILENO;
		else if (strcmp(cur, "/dev/stderr") == 0)
			fd = STDERR_FILENO;
		for (int i = 0; i < 3 && !num; i++) {
			const char *dir = i < 2 ? dirs[i] : self;
			if (strncmp(cur, dir, strlen(dir)) == 0)
				num = cur + strlen(dir);
		}
		if (num && *num && strspn(num, "0123456789") == strlen(num) && strlen(num) < 9)
			fd = atoi(num);
		struct stat st;
		char link[PATH_MAX];
		ssize_t n;
		if (fd >= 0 || lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode) ||
		    (n = readlink(cur, link, sizeof link - 1)) < 0)
			break;
		link[n] = '\0';
		char *dir = link[0] == '/' ? NULL : dir_of(cur);
		char *next = link[0] == '/' ? cm_strdup(link) : dir ? cm_asprintf("%s/%s", dir, link) : NULL;
		free(dir);
		free(cur);
		cur = next;
	}
	if (!cur && fd < 0)
		return -2;
	free(cur);
	return fd;
}

/* Where path leads, symlinks followed (also a dangling one: the file it
 * names is created), into *p. Reports a refusal or failure into d, with
 * what ("pack") in the message; 0 or CM_EIO / CM_ENOMEM. */
static int plan_output(const char *path, const char *what, cm_diags *d, out_plan *p)
{
	memset(p, 0, sizeof *p);
	p->fd = -1;
	const char *sep = what ? " " : "";
	what = what ? what : "";
	if (!path || strcmp(path, "-") == 0) {
		p->way = WAY_STREAM;
		p->fd = STDOUT_FILENO;
		return 0;
	}
	int fdn = fd_alias(path);
	if (fdn == -2) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write%s%s: out of memory", sep, what);
		return CM_ENOMEM;
	}
	if (fdn >= 0) {
		p->way = WAY_STREAM;
		p->fd = fdn;
		return 0;
	}
	/* what the path leads to, as the kernel follows it: streams and special
	 * files are written through the path itself (a magic link such as
	 * /proc/self/fd/1, which /dev/stdout is, names no file by its text) */
	struct stat fol;
	bool found = stat(path, &fol) == 0;
	if (found && !S_ISREG(fol.st_mode)) {
		const char *refused = not_output(fol.st_mode);
		if (refused) {
			p->why = refused;
			cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write%s%s: %s", sep, what, refused);
			return CM_EIO;
		}
		p->way = WAY_STREAM;
		p->exists = true;
		p->st = fol;
		p->target = cm_strdup(path);
		return p->target ? 0 : CM_ENOMEM;
	}
	/* a regular file, or none: its name, links followed by their text, for
	 * the temporary beside it and the rename */
	char *cur = cm_strdup(path);
	const char *refused = NULL;
	int err = 0;
	for (int hops = 0; cur; hops++) {
		if (lstat(cur, &p->st) != 0) {
			err = errno;
			if (err == ENOENT)
				err = 0; /* a new file (its directory is looked at by the temporary's creation) */
			break;
		}
		if (S_ISLNK(p->st.st_mode)) {
			char link[PATH_MAX];
			ssize_t n = hops < 40 ? readlink(cur, link, sizeof link - 1) : -1;
			if (n < 0) {
				err = hops < 40 ? errno : ELOOP;
				break;
			}
			link[n] = '\0';
			char *dir = link[0] == '/' ? NULL : dir_of(cur);
			char *next = link[0] == '/' ? cm_strdup(link) : dir ? cm_asprintf("%s/%s", dir, link) : NULL;
			free(dir);
			free(cur);
			cur = next;
			continue;
		}
		p->exists = true;
		if (S_ISREG(p->st.st_mode))
			p->way = p->st.st_nlink > 1 ? WAY_IN_PLACE : WAY_REPLACE;
		else if (!(refused = not_output(p->st.st_mode)))
			p->way = WAY_STREAM; /* it became one since the stat above */
		break;
	}
	if (!cur) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write%s%s: out of memory", sep, what);
		return CM_ENOMEM;
	}
	if (err || refused) {
		p->why = refused ? refused : strerror(err);
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write%s%s: %s", sep, what, p->why);
		free(cur);
		return CM_EIO;
	}
	p->target = cur;
	if (found && (!p->exists || p->st.st_dev != fol.st_dev || p->st.st_ino != fol.st_ino)) {
		/* a link whose text names another file than the kernel finds (a
		 * magic link to a deleted file): written in place through path */
		free(p->target);
		p->target = cm_strdup(path);
		p->way = WAY_IN_PLACE;
		p->exists = true;
		p->st = fol;
		if (!p->target)
			return CM_ENOMEM;
	}
	return 0;
}

/* The directory stream temporaries go to: $TMPDIR, else /tmp. */
static const char *stream_dir(void)
{
	const char *t = getenv("TMPDIR");
	return t && t[0] == '/' ? t : "/tmp";
}

/* Temporaries are named ".BASE.carcamap-tmp.PID.N" beside their target
 * (BASE: its file name, at most TMP_BASE_MAX bytes of it): a hidden name of
 * their own that no user would give an output, so that the sweep of killed
 * writers' temporaries deletes nothing else. A stream's temporary is
 * "$TMPDIR/.stream.carcamap-tmp.PID.N". */
#define TMP_TAG ".carcamap-tmp."
#define TMP_BASE_MAX 200

/* When name is "." base TMP_TAG "PID.N" (decimal PID and N, nothing
 * after), the PID; else 0. */
static long tmp_owner(const char *name, const char *base, size_t bl)
{
	size_t tl = sizeof TMP_TAG - 1;
	if (name[0] != '.' || strncmp(name + 1, base, bl) != 0 || strncmp(name + 1 + bl, TMP_TAG, tl) != 0)
		return 0;
	const char *p = name + 1 + bl + tl;
	long pid = 0;
	size_t digits = 0;
	for (; *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
		pid = pid * 10 + (*p - '0');
	if (!digits || *p != '.' || !p[1])
		return 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		;
	return *p ? 0 : pid;
}

/* Removes the temporaries a killed writer left in dir for base: entries
 * named as above, regular files of this user, whose process is gone
 * (kill(pid, 0) says ESRCH). A live process's temporary is kept, and so is
 * one whose PID was reused (it goes at a later write). Best effort: errors
 * are ignored. A writer on another machine sharing the directory is not
 * seen: its rename then fails and it reports an I/O error; no output is
 * ever half written. */
static void remove_stale(const char *dir, const char *base, size_t bl)
{
	DIR *dp = bl ? opendir(dir) : NULL;
	if (!dp)
		return;
	long self = (long)getpid();
	uid_t me = geteuid();
	struct dirent *e;
	while ((e = readdir(dp)) != NULL) {
		long pid = tmp_owner(e->d_name, base, bl);
		struct stat st;
		if (pid <= 0 || pid == self || (long)(pid_t)pid != pid)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive, or not ours to ask about (EPERM) */
		if (fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == me)
			unlinkat(dirfd(dp), e->d_name, 0);
	}
	closedir(dp);
}

/* Creates the temporary for the plan (after the sweep). Its descriptor, the
 * name in *name; -1 with errno set. */
static int tmp_create(const out_plan *p, char **name)
{
	*name = NULL;
	char *dir = p->way == WAY_STREAM ? cm_strdup(stream_dir()) : dir_of(p->target);
	const char *base = p->way == WAY_STREAM ? "stream" : strrchr(p->target, '/');
	base = !base ? p->target : p->way == WAY_STREAM ? base : base + 1;
	size_t bl = strlen(base);
	if (bl > TMP_BASE_MAX)
		bl = TMP_BASE_MAX;
	if (!dir) {
		errno = ENOMEM;
		return -1;
	}
	remove_stale(dir, base, bl);
	int fd = -1;
	errno = EEXIST;
	for (unsigned n = 0; fd < 0 && errno == EEXIST && n < 100; n++) {
		char *t = cm_asprintf("%s/.%.*s" TMP_TAG "%ld.%u", dir, (int)bl, base, (long)getpid(), n);
		if (!t) {
			errno = ENOMEM;
			break;
		}
		fd = open(t, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			*name = t;
		else
			free(t);
	}
	free(dir);
	return fd;
}

int cm_out_begin(const char *path, const char *what, cm_diags *d, char **tmp)
{
	*tmp = NULL;
	out_plan p;
	int rc = plan_output(path, what, d, &p);
	if (rc) {
		errno = rc == CM_ENOMEM ? ENOMEM : EIO;
		return -1;
	}
	int fd = tmp_create(&p, tmp);
	if (fd < 0) {
		int err = errno;
		char *dir = p.way == WAY_STREAM ? cm_strdup(stream_dir()) : dir_of(p.target);
		cm_diags_add(d, CM_SEV_ERROR, NULL, path ? path : "-", 0, 0, NULL,
		             "cannot write%s%s: cannot create a file in directory %s: %s", what ? " " : "",
		             what ? what : "", dir ? dir : "?", strerror(err));
		free(dir);
		errno = err;
	}
	free(p.target);
	return fd;
}

/* Copies the whole of file from to descriptor to, from the start. 0, or -1
 * with errno set. */
static int copy_all(int from, int to)
{
	char buf[65536];
	if (lseek(from, 0, SEEK_SET) != 0)
		return -1;
	for (;;) {
		ssize_t n = read(from, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return (int)n;
		for (ssize_t at = 0; at < n;) {
			ssize_t w = write(to, buf + at, (size_t)(n - at));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				if (w == 0)
					errno = EIO;
				return -1;
			}
			at += w;
		}
	}
}

/* Syncs path's directory so that a rename in it lasts (best effort: some
 * file systems refuse directory syncs). */
static void sync_dir_of(const char *path)
{
	char *dir = dir_of(path);
	int dfd = dir ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
}

int cm_out_commit(const char *tmp, int fd, const char *path, const char *what, cm_diags *d)
{
	const char *sep = what ? " " : "", *shown = path ? path : "-";
	out_plan p;
	int rc = plan_output(path, what, d, &p);
	what = what ? what : "";
	if (rc) {
		close(fd);
		unlink(tmp);
		return rc;
	}
	const char *step = NULL;
	int err = 0;
	if (p.way != WAY_STREAM && fsync(fd) != 0) {
		step = "sync failed: ";
	} else if (p.way == WAY_REPLACE) {
		/* the file it replaces keeps its mode and, where this user may
		 * give it (root; the same owner for the group), its owner */
		if (p.exists) {
			if (fchown(fd, p.st.st_uid, p.st.st_gid) != 0 && fchown(fd, (uid_t)-1, p.st.st_gid) != 0) {
				/* not permitted: the new file is this user's */
			}
			if (fchmod(fd, p.st.st_mode & 07777) != 0)
				step = "cannot keep its mode: ";
		}
		if (!step && rename(tmp, p.target) != 0)
			step = "";
	} else {
		int out = p.fd >= 0 ? p.fd : open(p.target, O_WRONLY | O_CLOEXEC | (p.way == WAY_STREAM ? O_NOCTTY : 0));
		if (out == STDOUT_FILENO)
			fflush(stdout); /* what the command printed comes first */
		off_t size = lseek(fd, 0, SEEK_END);
		if (out < 0 || size < 0 || copy_all(fd, out) != 0)
			step = "";
		else if (p.way == WAY_IN_PLACE && (ftruncate(out, size) != 0 || fsync(out) != 0))
			step = "";
		err = errno;
		if (out >= 0 && p.fd < 0 && close(out) != 0 && !step)
			step = "";
	}
	if (step && !err)
		err = errno;
	close(fd);
	if (step) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, shown, 0, 0, NULL, "cannot write%s%s: %s%s", sep, what, step,
		             strerror(err));
		unlink(tmp);
		free(p.target);
		return CM_EIO;
	}
	if (p.way == WAY_REPLACE)
		sync_dir_of(p.target);
	else
		unlink(tmp);
	free(p.target);
	return 0;
}

void cm_out_abort(const char *tmp, int fd)
{
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
}

int cm_write_to(const char *path, int (*fn)(FILE *f, void *arg), void *arg, cm_diags *d)
{
	char *tmp = NULL;
	int fd = cm_out_begin(path, NULL, d, &tmp);
	if (fd < 0) {
		free(tmp);
		return errno == ENOMEM ? CM_ENOMEM : CM_EIO;
	}
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path ? path : "-", 0, 0, NULL, "cannot write: %s", strerror(errno));
		cm_out_abort(tmp, fd);
		free(tmp);
		return CM_EIO;
	}
	int rc = fn(f, arg);
	/* the stream is flushed and let go of; a duplicate of its descriptor
	 * carries the commit */
	int keep = !rc && fflush(f) == 0 ? dup(fileno(f)) : -1;
	int err = errno, closed = fclose(f);
	if (closed)
		err = errno;
	if (!rc && (closed || keep < 0)) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path ? path : "-", 0, 0, NULL, "cannot write: %s", strerror(err));
		rc = CM_EIO;
	} else if (!rc) {
		rc = cm_out_commit(tmp, keep, path, NULL, d);
		keep = -1;
	} else if (rc == CM_EIO) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path ? path : "-", 0, 0, NULL, "cannot write");
	}
	if (rc)
		cm_out_abort(tmp, keep);
	free(tmp);
	return rc;
}

cm_file_output cm_file_output_kind(const char *path, const char **why)
{
	out_plan p;
	int rc = plan_output(path, NULL, NULL, &p);
	free(p.target);
	if (why)
		*why = rc ? p.why ? p.why : "out of memory" : NULL;
	return rc ? CM_OUTPUT_REFUSED : p.way == WAY_STREAM ? CM_OUTPUT_STREAM : CM_OUTPUT_FILE;
}

/* The public names (carcamap/file.h) of the two above. */
int cm_file_open_read(const char *path, cm_diags *d, FILE **out)
{
	return cm_open_read(path, d, out);
}

int cm_file_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg, cm_diags *d)
{
	return cm_write_to(path, fn, arg, d);
}
