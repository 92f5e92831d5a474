/* SPDX-License-Identifier: MIT */
/* file.c: the file helpers every reader and writer uses (util_int.h; the
 * public ones in carcamap/file.h):
 * opening and reading whole inputs with their limits, paths relative to a
 * file, and the atomic writer (a file beside the target, renamed into
 * place). Failures are reported into a cm_diags sink. */
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
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	int rc = 0;
	if (!buf) {
		rc = CM_ENOMEM;
		goto out;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				cm_diags_add(d, CM_SEV_ERROR, "CM0004", path, 0, 0, NULL,
				             "file is larger than the limit of %zu bytes", max);
				rc = CM_ELIMIT;
				goto out;
			}
			size_t ncap = cap * 2 > max ? max : cap * 2;
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

/* When name is "base.tmp.PID.N" (decimal PID and N, nothing after), the
 * PID; else 0. */
static long tmp_owner(const char *name, const char *base, size_t bl)
{
	if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".tmp.", 5) != 0)
		return 0;
	const char *p = name + bl + 5;
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

/* Removes the temporaries a killed writer left beside path: entries of
 * path's directory named like cm_tmp_beside's for that path, regular
 * files of this user, whose process is gone (kill(pid, 0) says ESRCH). A
 * live process's temporary is kept, and so is one whose PID was reused
 * (it goes at a later write). Best effort: errors are ignored. A writer
 * on another machine sharing the directory is not seen: its rename then
 * fails and it reports an I/O error; no output is ever half written. */
static void remove_stale(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir = !slash ? cm_strdup(".") : slash == path ? cm_strdup("/") : cm_strndup(path, (size_t)(slash - path));
	size_t bl = strlen(base);
	DIR *dp = dir && bl ? opendir(dir) : NULL;
	free(dir);
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

int cm_tmp_beside(const char *path, char **name)
{
	*name = NULL;
	remove_stale(path);
	for (unsigned n = 0; n < 100; n++) {
		char *t = cm_asprintf("%s.tmp.%ld.%u", path, (long)getpid(), n);
		if (!t) {
			errno = ENOMEM;
			return -1;
		}
		int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			*name = t;
			return fd;
		}
		free(t);
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int cm_tmp_commit(const char *tmp, int fd, const char *path)
{
	if (fsync(fd) != 0) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0)
		return -2;
	const char *slash = strrchr(path, '/');
	char *dir = !slash ? cm_strdup(".") : slash == path ? cm_strdup("/") : cm_strndup(path, (size_t)(slash - path));
	int dfd = dir ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
	return 0;
}

int cm_write_to(const char *path, int (*fn)(FILE *f, void *arg), void *arg, cm_diags *d)
{
	if (!path) {
		int rc = fn(stdout, arg);
		if (fflush(stdout) && !rc)
			rc = CM_EIO;
		return rc;
	}
	char *tmp = NULL;
	int fd = cm_tmp_beside(path, &tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot create a file beside it: %s",
		             strerror(errno));
		if (fd >= 0) {
			close(fd);
			remove(tmp);
		}
		free(tmp);
		return CM_EIO;
	}
	int rc = fn(f, arg);
	/* the stream is flushed and let go of; a duplicate of its descriptor
	 * carries the sync and the rename (cm_tmp_commit) */
	int keep = !rc && fflush(f) == 0 ? dup(fileno(f)) : -1;
	int closed = fclose(f);
	if (!rc && (closed || keep < 0))
		rc = CM_EIO;
	if (!rc) {
		if (cm_tmp_commit(tmp, keep, path) != 0) {
			cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write: %s", strerror(errno));
			rc = CM_EIO;
		}
	} else {
		if (keep >= 0)
			close(keep);
		if (rc == CM_EIO)
			cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write");
	}
	if (rc)
		remove(tmp);
	free(tmp);
	return rc;
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
