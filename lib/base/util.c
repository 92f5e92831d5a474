/* SPDX-License-Identifier: MIT */
/* util.c: string, file and array helpers (util_int.h), and the names of
 * shared enums and error codes (carcamap/common.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "carcamap/common.h"
#include "carcamap/diag.h"
#include "base/util_int.h"

char *cm_strdup(const char *s)
{
	return s ? cm_strndup(s, strlen(s)) : NULL;
}

char *cm_strndup(const char *s, size_t n)
{
	if (!s)
		return NULL;
	char *p = malloc(n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *cm_vasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	char *p = malloc((size_t)n + 1);
	if (p)
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *cm_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = cm_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}

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

int cm_tmp_beside(const char *path, char **name)
{
	*name = NULL;
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
	int closed = fclose(f);
	if (!rc && closed)
		rc = CM_EIO;
	if (!rc && rename(tmp, path)) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write: %s", strerror(errno));
		rc = CM_EIO;
	} else if (rc == CM_EIO) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, path, 0, 0, NULL, "cannot write");
	}
	if (rc)
		remove(tmp);
	free(tmp);
	return rc;
}

int cm_grow(void **v, size_t *cap, size_t n, size_t es)
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

const char *cm_strerror(int code)
{
	switch (code) {
	case CM_OK: return "success";
	case CM_EINVAL: return "invalid input";
	case CM_ENOMEM: return "out of memory";
	case CM_EIO: return "input/output error";
	case CM_EFORMAT: return "not a file of the expected kind";
	case CM_EVERSION: return "newer format version than this build reads";
	case CM_ENOTFOUND: return "not found";
	case CM_ELIMIT: return "limit exceeded";
	case CM_EINTERNAL: return "internal error";
	}
	return "unknown error";
}

const char *cm_edition_name(cm_edition e)
{
	switch (e) {
	case CM_EDITION_C1: return "C1";
	case CM_EDITION_C2: return "C2";
	case CM_EDITION_C3: return "C3";
	}
	return "C2";
}

int cm_edition_parse(const char *s, cm_edition *out)
{
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		if (strcmp(s, cm_edition_name((cm_edition)e)) == 0) {
			*out = (cm_edition)e;
			return 0;
		}
	return CM_EINVAL;
}

bool cm_id_valid(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '-') ||
		    n >= CM_ID_MAX)
			return false;
	return true;
}

/* The code point of the UTF-8 sequence at s (its length in *len), or -1
 * with *len 1 for an invalid, overlong, surrogate or cut sequence. */
static long utf8_next(const unsigned char *s, size_t *len)
{
	unsigned c = s[0];
	*len = 1;
	if (c < 0x80)
		return (long)c;
	size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? (c < 0xF0 ? 3 : 0) : c >= 0xC2 ? 2 : 0;
	if (!n)
		return -1;
	long v = (long)(c & (0x7F >> n));
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return -1;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
	    (v >= 0xD800 && v <= 0xDFFF))
		return -1;
	*len = n;
	return v;
}

/* Code points cm_text_escape writes as escapes. */
static bool escaped_cp(long v)
{
	return v < 0x20 || (v >= 0x7F && v <= 0x9F) || v == 0x061C || v == 0x200E || v == 0x200F ||
	       (v >= 0x2028 && v <= 0x202E) || (v >= 0x2066 && v <= 0x2069);
}

char *cm_text_escape(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s);
	char *out = malloc(n * 8 + 1); /* at most \u{HHHH} (8) per input byte */
	if (!out)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;
	while (*p) {
		size_t len;
		long v = utf8_next(p, &len);
		if (v < 0)
			o += sprintf(o, "\\x%02X", *p);
		else if (v == '\n')
			o += sprintf(o, "\\n");
		else if (v == '\t')
			o += sprintf(o, "\\t");
		else if (v == '\r')
			o += sprintf(o, "\\r");
		else if (v < 0x80 && escaped_cp(v))
			o += sprintf(o, "\\x%02lX", v);
		else if (escaped_cp(v))
			o += sprintf(o, "\\u{%04lX}", v);
		else {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

const char *cm_text_problem(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (p && *p) {
		size_t len;
		long v = utf8_next(p, &len);
		if (v < 0)
			return "invalid UTF-8";
		if (v < 0x20 || (v >= 0x7F && v <= 0x9F))
			return "a control character";
		if (escaped_cp(v))
			return "a bidirectional control or line separator";
		p += len;
	}
	return NULL;
}
