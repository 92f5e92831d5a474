/* SPDX-License-Identifier: MIT */
/* test_file.c: where outputs go (lib/base/file.c, DESIGN.md "Safety"):
 * a regular file is replaced atomically keeping its mode; a symlink,
 * dangling or not, is followed; a file with several hard links is written
 * through; a FIFO, a character device, standard output and the names of
 * this process's descriptors are streamed;
 * a directory, a block device and a socket are refused; temporaries have
 * a name of their own, and the sweep of killed writers' ones deletes
 * nothing else; a failed sync (fsync made to fail: this program is linked
 * with -Wl,--wrap=fsync) leaves the target as it was and nothing beside
 * it. */
#define _XOPEN_SOURCE 700 /* mknod */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "carcamap/carcamap.h"
#include "util_files.h"
#include "util_model.h"

/* fsync, failing with EIO while fail_fsync is set (-Wl,--wrap=fsync) */
int __real_fsync(int fd);
int __wrap_fsync(int fd);
static int fail_fsync;
int __wrap_fsync(int fd)
{
	if (fail_fsync) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

static int write_text(FILE *f, void *arg)
{
	return fputs(arg, f) < 0 ? CM_EIO : 0;
}

static int write_fails(FILE *f, void *arg)
{
	fputs(arg, f);
	return CM_EINVAL;
}

typedef struct {
	char dir[64];
	char path[8][128];
	cm_diags *d;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	assert_non_null(f);
	snprintf(f->dir, sizeof f->dir, "/tmp/cm-file-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(cm_diags_new(&f->d), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	cm_diags_free(f->d);
	free(f);
	return 0;
}

/* f->path[i] = dir/name */
static const char *at(fixture *f, int i, const char *name)
{
	int n = snprintf(f->path[i], sizeof f->path[i], "%s/%s", f->dir, name);
	assert_true(n > 0 && (size_t)n < sizeof f->path[i]);
	return f->path[i];
}

static void put(const char *path, const char *text)
{
	FILE *o = fopen(path, "w");
	assert_non_null(o);
	fputs(text, o);
	assert_int_equal(fclose(o), 0);
}

static void assert_text(const char *path, const char *text)
{
	char *t = util_read_file(path, NULL);
	assert_string_equal(t, text);
	free(t);
}

/* Whether some diagnostic's message holds s. */
static bool said(const cm_diags *d, const char *s)
{
	for (size_t i = 0; i < cm_diags_count(d); i++)
		if (strstr(cm_diags_get(d, i)->message, s))
			return true;
	return false;
}

static void test_file__replace_keeps_mode(void **state)
{
	fixture *f = *state;
	const char *p = at(f, 0, "out.txt");
	put(p, "old\n");
	assert_int_equal(chmod(p, 0600), 0);
	struct stat a, b;
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(cm_file_write(p, write_text, "new\n", f->d), 0);
	assert_int_equal(stat(p, &b), 0);
	assert_text(p, "new\n");
	assert_int_equal(b.st_mode & 07777, 0600);
	assert_int_equal(b.st_uid, a.st_uid);
	assert_true(b.st_ino != a.st_ino); /* replaced, not written through */
	/* a new file gets the usual mode: 0666 less the umask */
	mode_t um = umask(022);
	const char *q = at(f, 1, "new.txt");
	assert_int_equal(cm_file_write(q, write_text, "x", f->d), 0);
	assert_int_equal(stat(q, &b), 0);
	assert_int_equal(b.st_mode & 07777, 0644);
	umask(um);
	assert_int_equal(util_dir_entries(f->dir), 2);
	assert_int_equal(cm_diags_count(f->d), 0);
}

static void test_file__symlink_followed(void **state)
{
	fixture *f = *state;
	const char *sub = at(f, 0, "sub");
	assert_int_equal(mkdir(sub, 0755), 0);
	const char *target = at(f, 1, "sub/target.txt");
	put(target, "old\n");
	assert_int_equal(chmod(target, 0640), 0);
	/* a relative link from another directory */
	const char *link = at(f, 2, "link.txt");
	assert_int_equal(symlink("sub/target.txt", link), 0);
	const char *link2 = at(f, 3, "sub/link2.txt");
	assert_int_equal(symlink("../link.txt", link2), 0);
	assert_int_equal(cm_file_write(link2, write_text, "new\n", f->d), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(link2, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(target, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_text(target, "new\n");
	/* nothing left beside the target or the links */
	assert_int_equal(util_dir_entries(f->dir), 2);
	assert_int_equal(util_dir_entries(sub), 2);
	assert_int_equal(cm_diags_count(f->d), 0);
}

static void test_file__dangling_symlink_creates_its_target(void **state)
{
	fixture *f = *state;
	const char *link = at(f, 0, "link.txt");
	assert_int_equal(symlink("made.txt", link), 0);
	assert_int_equal(cm_file_write(link, write_text, "new\n", f->d), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_text(at(f, 1, "made.txt"), "new\n");
	assert_int_equal(util_dir_entries(f->dir), 2);
	/* a loop of links is refused with a reason */
	const char *l1 = at(f, 2, "l1"), *l2 = at(f, 3, "l2");
	assert_int_equal(symlink("l2", l1), 0);
	assert_int_equal(symlink("l1", l2), 0);
	assert_int_equal(cm_file_write(l1, write_text, "x", f->d), CM_EIO);
	assert_true(said(f->d, strerror(ELOOP)));
}

/* Every name of a file with hard links sees the new content (the file is
 * written through, after the content was written in full elsewhere). */
static void test_file__hard_link_written_through(void **state)
{
	fixture *f = *state;
	const char *a = at(f, 0, "a.txt"), *b = at(f, 1, "b.txt");
	put(a, "old content, longer than the new\n");
	assert_int_equal(link(a, b), 0);
	struct stat before, after;
	assert_int_equal(stat(a, &before), 0);
	assert_int_equal(cm_file_write(b, write_text, "new\n", f->d), 0);
	assert_int_equal(stat(a, &after), 0);
	assert_text(a, "new\n");
	assert_text(b, "new\n");
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(after.st_nlink, 2);
	/* a failed write leaves both names as they were */
	assert_int_equal(cm_file_write(a, write_fails, "half", f->d), CM_EINVAL);
	assert_text(b, "new\n");
	assert_int_equal(util_dir_entries(f->dir), 2);
}

/* A FIFO gets the content (a reader waits on it); nothing replaces it. */
static void test_file__fifo_streamed(void **state)
{
	fixture *f = *state;
	const char *fifo = at(f, 0, "fifo"), *got = at(f, 1, "got.txt");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(20); /* a FIFO replaced by a file has no writer: no wait forever */
		char buf[256];
		int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ssize_t n;
		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(1);
		_exit(in >= 0 && out >= 0 && close(out) == 0 ? 0 : 1);
	}
	int rc = cm_file_write(fifo, write_text, "through the fifo\n", f->d);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(rc, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_text(got, "through the fifo\n");
	struct stat st;
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(util_dir_entries(f->dir), 2);
}

/* A character device stays the device: as root, /dev/null once became a
 * regular file. The node written is a null device made in the test's own
 * directory where this user may (root), so that a writer that replaces it
 * damages nothing else; /dev/null otherwise (which another user cannot
 * replace). */
static void test_file__character_device_streamed(void **state)
{
	fixture *f = *state;
	const char *null = at(f, 0, "null");
	if (mknod(null, S_IFCHR | 0666, makedev(1, 3)) != 0)
		null = "/dev/null";
	struct stat st;
	assert_int_equal(cm_file_write(null, write_text, "nothing\n", f->d), 0);
	assert_int_equal(lstat(null, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* a failed write writes nothing to the stream */
	assert_int_equal(cm_file_write(null, write_fails, "half", f->d), CM_EINVAL);
	assert_int_equal(cm_diags_count(f->d), 0);
}

/* "-" and NULL are standard output; the content reaches it whole, and a
 * failed write sends nothing. */
static void test_file__dash_is_standard_output(void **state)
{
	fixture *f = *state;
	const char *cap = at(f, 0, "stdout.txt");
	fflush(stdout);
	int saved = dup(STDOUT_FILENO), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	int r1 = cm_file_write("-", write_text, "one\n", f->d);
	int r2 = cm_file_write(NULL, write_text, "two\n", f->d);
	int r3 = cm_file_write("-", write_fails, "half", f->d);
	fflush(stdout);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	assert_int_equal(r1, 0);
	assert_int_equal(r2, 0);
	assert_int_equal(r3, CM_EINVAL);
	assert_text(cap, "one\ntwo\n");
	assert_int_equal(util_dir_entries(f->dir), 1); /* no file named "-" */
}

/* A name of one of this process's descriptors (/dev/stdout is a link to
 * /proc/self/fd/1) is that descriptor: a file opened for appending gets
 * the output appended, not replaced. */
static void test_file__descriptor_names_streamed(void **state)
{
	fixture *f = *state;
	const char *log = at(f, 0, "log.txt"), *link = at(f, 1, "fd-link");
	put(log, "first\n");
	int fd = open(log, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	char target[64];
	snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(cm_file_write(link, write_text, "second\n", f->d), 0);
	snprintf(target, sizeof target, "/dev/fd/%d", fd);
	assert_int_equal(cm_file_write(target, write_text, "third\n", f->d), 0);
	close(fd);
	assert_text(log, "first\nsecond\nthird\n");
	assert_int_equal(cm_file_output_kind(link, NULL), CM_OUTPUT_STREAM);
	assert_int_equal(cm_file_output_kind("-", NULL), CM_OUTPUT_STREAM);
	assert_int_equal(cm_file_output_kind(log, NULL), CM_OUTPUT_FILE);
	const char *why = NULL;
	assert_int_equal(cm_file_output_kind(f->dir, &why), CM_OUTPUT_REFUSED);
	assert_string_equal(why, "is a directory");
	assert_int_equal(util_dir_entries(f->dir), 2);
}

static void test_file__special_files_refused(void **state)
{
	fixture *f = *state;
	assert_int_equal(cm_file_write(f->dir, write_text, "x", f->d), CM_EIO);
	assert_true(said(f->d, "is a directory"));
	/* a socket */
	const char *sock = at(f, 0, "sock");
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
	assert_true(n > 0 && (size_t)n < sizeof sa.sun_path);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(cm_file_write(sock, write_text, "x", f->d), CM_EIO);
	assert_true(said(f->d, "is a socket"));
	close(s);
	/* a block device: made here where this user may (root) */
	const char *blk = at(f, 1, "blk");
	if (mknod(blk, S_IFBLK | 0600, makedev(7, 200)) == 0) {
		assert_int_equal(cm_file_write(blk, write_text, "x", f->d), CM_EIO);
		assert_true(said(f->d, "is a block device"));
		struct stat st;
		assert_int_equal(lstat(blk, &st), 0);
		assert_true(S_ISBLK(st.st_mode));
	}
}

/* Temporaries are hidden files of their own (".NAME.carcamap-tmp.PID.N");
 * the sweep before a write removes those of a writer that is gone and
 * never a file a user could have named. */
static void test_file__temporaries_named_apart(void **state)
{
	fixture *f = *state;
	/* a process that is gone: a child reaped */
	pid_t dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	char name[128];
	snprintf(name, sizeof name, "out.svg.tmp.%ld.0", (long)dead); /* the old naming: a user's file now */
	put(at(f, 0, name), "mine");
	snprintf(name, sizeof name, ".out.svg.carcamap-tmp.%ld.0", (long)dead);
	put(at(f, 1, name), "stale");
	snprintf(name, sizeof name, ".out.svg.carcamap-tmp.%ld.0", (long)getppid()); /* alive */
	put(at(f, 2, name), "live");
	snprintf(name, sizeof name, ".out.svg.carcamap-tmp.%ld.0x", (long)dead); /* not quite the naming */
	put(at(f, 3, name), "other");
	snprintf(name, sizeof name, ".other.svg.carcamap-tmp.%ld.0", (long)dead); /* another output's */
	put(at(f, 4, name), "other output");
	assert_int_equal(cm_file_write(at(f, 5, "out.svg"), write_text, "<svg/>", f->d), 0);
	assert_text(f->path[0], "mine");
	assert_int_equal(access(f->path[1], F_OK), -1);
	assert_text(f->path[2], "live");
	assert_text(f->path[3], "other");
	assert_text(f->path[4], "other output");
	assert_text(f->path[5], "<svg/>");
	assert_int_equal(util_dir_entries(f->dir), 5);
}

/* A sync that fails is an I/O error that names it; the target keeps its
 * content and nothing is left beside it: for the writer every export
 * uses and for packs. */
static void test_file__failed_sync_keeps_target(void **state)
{
	fixture *f = *state;
	const char *p = at(f, 0, "out.txt");
	put(p, "old\n");
	fail_fsync = 1;
	int rc = cm_file_write(p, write_text, "new\n", f->d);
	fail_fsync = 0;
	assert_int_equal(rc, CM_EIO);
	assert_true(said(f->d, "sync failed"));
	assert_text(p, "old\n");
	assert_int_equal(util_dir_entries(f->dir), 1);

	cm_tileset *ts = NULL;
	assert_int_equal(cm_tileset_load_file("maps/tilesets/base.xml", f->d, &ts), 0);
	const char *pack = at(f, 1, "t.pack");
	assert_int_equal(cm_pack_write(pack, NULL, 0, UTIL_SETS(&ts), 1, f->d), 0);
	size_t len0, len1;
	char *before = util_read_file(pack, &len0);
	cm_diags_clear(f->d);
	fail_fsync = 1;
	rc = cm_pack_write(pack, NULL, 0, UTIL_SETS(&ts), 1, f->d);
	fail_fsync = 0;
	assert_int_equal(rc, CM_EIO);
	assert_true(said(f->d, "cannot write pack: sync failed"));
	char *after = util_read_file(pack, &len1);
	assert_true(len0 == len1 && memcmp(before, after, len0) == 0);
	assert_int_equal(util_dir_entries(f->dir), 2);
	free(before);
	free(after);
	cm_tileset_free(ts);
}

/* A pack is written through a symlink too, keeping the target's mode. */
static void test_file__pack_through_symlink(void **state)
{
	fixture *f = *state;
	cm_tileset *ts = NULL;
	assert_int_equal(cm_tileset_load_file("maps/tilesets/base.xml", f->d, &ts), 0);
	const char *target = at(f, 0, "real.pack"), *link = at(f, 1, "link.pack");
	put(target, "not yet a pack");
	assert_int_equal(chmod(target, 0600), 0);
	assert_int_equal(symlink("real.pack", link), 0);
	assert_int_equal(cm_pack_write(link, NULL, 0, UTIL_SETS(&ts), 1, f->d), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	cm_pack *pk = NULL;
	assert_int_equal(cm_pack_open(target, f->d, &pk), 0);
	assert_int_equal(cm_pack_tileset_count(pk), 1);
	cm_pack_close(pk);
	assert_int_equal(util_dir_entries(f->dir), 2);
	cm_tileset_free(ts);
}

int main(void)
{
	/* a FIFO whose reader is gone must fail the write, not kill the test */
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file__replace_keeps_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__symlink_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__dangling_symlink_creates_its_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__hard_link_written_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__fifo_streamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__character_device_streamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__dash_is_standard_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__descriptor_names_streamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__special_files_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__temporaries_named_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__failed_sync_keeps_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file__pack_through_symlink, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
