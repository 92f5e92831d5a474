/* SPDX-License-Identifier: MIT */
/* bench_check.c: the time to check the largest bundled map (the most
 * playable squares among maps/<name>/<name>.xml) with its deck: the
 * playability checks alone, and with 1000 simulated games (check --games
 * 1000). Loading is not timed. CPU time of this thread, best of 5 runs. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "carcamap/carcamap.h"

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int playable(const cm_map *m)
{
	int n = 0;
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++)
		n += cm_square_kind_playable(cm_map_squares(m)[i].kind);
	return n;
}

/* Best of 5: seconds per check of map i of w with games simulated games. */
static double time_check(const cm_workspace *w, const cm_map *m, int games, size_t *n_diags)
{
	const cm_tileset **sets = NULL;
	size_t n = 0;
	if (cm_workspace_map_sets(w, m, &sets, &n))
		exit(1);
	cm_check_opts o;
	cm_check_opts_init(&o);
	o.games = games;
	double best = 1e9;
	for (int k = 0; k < 5; k++) {
		cm_diags *d = NULL;
		if (cm_diags_new(&d))
			exit(1);
		double t0 = cpu_s();
		if (cm_check_map(m, (const cm_tileset *const *)sets, n, &o, d) == CM_ENOMEM)
			exit(1);
		double t = cpu_s() - t0;
		best = t < best ? t : best;
		*n_diags = cm_diags_count(d);
		cm_diags_free(d);
	}
	free(sets);
	return best;
}

int main(void)
{
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	if (cm_diags_new(&d) || cm_workspace_new(&w) || cm_workspace_add_tileset_dir(w, "maps/tilesets"))
		return 1;
	DIR *dir = opendir("maps");
	if (!dir)
		return 1;
	char **names = NULL;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(dir)) != NULL;) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "tilesets") == 0 || strcmp(e->d_name, "previews") == 0)
			continue;
		char *p = malloc(2 * strlen(e->d_name) + 16);
		char **nv = realloc(names, (n + 1) * sizeof *nv);
		if (!p || !nv)
			return 1;
		names = nv;
		sprintf(p, "maps/%s/%s.xml", e->d_name, e->d_name);
		names[n++] = p;
	}
	closedir(dir);
	for (size_t i = 0; i < n; i++) {
		FILE *f = fopen(names[i], "r");
		if (f) {
			fclose(f);
			cm_workspace_load(w, names[i], d);
		}
		free(names[i]);
	}
	free(names);
	cm_workspace_resolve(w, d);
	const cm_map *big = NULL;
	for (size_t i = 0; i < cm_workspace_map_count(w); i++) {
		const cm_map *m = cm_workspace_map(w, i);
		/* ties: the first id in name order, whatever the directory order */
		if (!big || playable(m) > playable(big) || (playable(m) == playable(big) && strcmp(cm_map_id(m), cm_map_id(big)) < 0))
			big = m;
	}
	if (!big || cm_diags_errors(d)) {
		cm_diags_write_text(d, stderr);
		fprintf(stderr, "bench_check: the bundled maps did not load\n");
		return 1;
	}
	size_t k0, k1;
	double t0 = time_check(w, big, 0, &k0), t1 = time_check(w, big, 1000, &k1);
	printf("check %s (%d playable squares): %.2f ms without games, %.1f ms with --games 1000 "
	       "(%.3f ms per game); %zu and %zu diagnostics\n",
	       cm_map_id(big), playable(big), t0 * 1e3, t1 * 1e3, (t1 - t0), k0, k1);
	cm_workspace_free(w);
	cm_diags_free(d);
	return 0;
}
