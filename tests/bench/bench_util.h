/* SPDX-License-Identifier: MIT */
/* bench_util.h: what the benchmarks share: this process's CPU time, a
 * child's, and the median of a few runs (sorted in place). Header-only,
 * test code. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline double bench_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return v[n / 2];
}

/* CPU seconds (user and system) of one run of argv (NULL-terminated, found
 * on PATH), run directly with its output discarded, and with peak_mb its
 * peak resident MB; -1 when it could not run or exited non-zero. */
static inline double bench_run(char *const *argv, double *peak_mb)
{
	struct rusage r0, r1;
	getrusage(RUSAGE_CHILDREN, &r0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	getrusage(RUSAGE_CHILDREN, &r1);
	if (peak_mb)
		*peak_mb = (double)r1.ru_maxrss / 1024.0;
	return (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) * 1e-6 +
	       (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) * 1e-6;
}

/* bench_run for a run that must succeed: a failure names the benchmark
 * (who) and the command, and ends the benchmark. */
static inline double bench_run_or_die(const char *who, char *const *argv)
{
	double t = bench_run(argv, NULL);
	if (t < 0) {
		fprintf(stderr, "%s: %s %s failed\n", who, argv[0], argv[1] ? argv[1] : "");
		exit(1);
	}
	return t;
}

#define BENCH_ROUNDS_MAX 15

/* n (at most BENCH_ROUNDS_MAX) rounds of a then b, alternated so that a
 * machine's changing load falls on both: their median CPU seconds into *ta
 * and *tb, and the median of the rounds' ratios a/b returned. */
static inline double bench_rounds(const char *who, int n, char *const *a, char *const *b, double *ta, double *tb)
{
	double va[BENCH_ROUNDS_MAX], vb[BENCH_ROUNDS_MAX], r[BENCH_ROUNDS_MAX];
	if (n > BENCH_ROUNDS_MAX)
		n = BENCH_ROUNDS_MAX;
	for (int i = 0; i < n; i++) {
		va[i] = bench_run_or_die(who, a);
		vb[i] = bench_run_or_die(who, b);
		r[i] = va[i] / (vb[i] > 1e-6 ? vb[i] : 1e-6);
	}
	*ta = bench_median(va, n);
	*tb = bench_median(vb, n);
	return bench_median(r, n);
}

#endif
