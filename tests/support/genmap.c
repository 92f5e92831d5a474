/* SPDX-License-Identifier: MIT */
/* genmap.c: writes generated map descriptors (genmap.h): large boards of
 * every shape that once cost quadratic time (start corner, serpentine,
 * many big cities or islands) and repetitive hostile ones (duplicate
 * ferries, deck entries, diagnostics). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "genmap.h"

#define CITY_SLOTS "Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn"

static void head(FILE *f, int cols, int rows)
{
	fprintf(f, "<?xml version=\"1.0\"?>\n<map format=\"1\" id=\"gen\" name=\"Generated\" cols=\"%d\" rows=\"%d\">\n<grid>\n",
	        cols, rows);
}

static void tail(FILE *f)
{
	fputs("<setup starts=\"2\"/>\n<deck><set id=\"base\"/></deck>\n</map>\n", f);
}

/* One grid row from a kind-per-square callback. */
typedef char (*square_fn)(int x, int y, int n, const void *arg);

static void grid(FILE *f, int n, square_fn fn, const void *arg)
{
	char *row = malloc((size_t)n + 2);
	if (!row)
		return;
	for (int y = 0; y < n; y++) {
		for (int x = 0; x < n; x++)
			row[x] = fn(x, y, n, arg);
		row[n] = '\n';
		row[n + 1] = '\0';
		fputs(row, f);
	}
	free(row);
	fputs("</grid>\n", f);
}

static char sq_corner(int x, int y, int n, const void *arg)
{
	const char *c = arg;
	int cx = c[1] == 'l' ? 0 : n - 2, cy = c[0] == 't' ? 0 : n - 1;
	return (y == cy && (x == cx || x == cx + 1)) ? 'S' : '#';
}

/* Even rows are land; odd rows join them at alternate ends; the rest is
 * waves. The start squares begin the path at the top left. */
static char sq_serpentine(int x, int y, int n, const void *arg)
{
	(void)arg;
	if (y == 0 && x < 2)
		return 'S';
	if (y % 2 == 0)
		return '#';
	return x == ((y / 2) % 2 ? 0 : n - 1) ? '#' : '~';
}

/* Big cities on a lattice of every third square of every third row. */
static int lattice(int x, int y, int n, int k)
{
	if (x % 3 != 1 || y % 3 != 1)
		return -1;
	int per_row = n / 3, i = (y / 3) * per_row + x / 3;
	return x / 3 < per_row && i < k ? i : -1;
}

static char sq_bigcities(int x, int y, int n, const void *arg)
{
	int k = *(const int *)arg;
	if (y == n - 1 && x < 2)
		return 'S';
	return lattice(x, y, n, k) >= 0 ? 'B' : '#';
}

/* Islands: in every fourth row, groups of four squares "#~I~" (a land
 * square, waves, the island, waves); a ferry joins the land square's east
 * side to the island's west side. */
static int island_at(int x, int y, int n, int k)
{
	if (y % 4 != 2 || x % 4 != 2)
		return -1;
	int per_row = n / 4, i = (y / 4) * per_row + x / 4;
	return x / 4 < per_row && i < k ? i : -1;
}

static char sq_islands(int x, int y, int n, const void *arg)
{
	int k = *(const int *)arg;
	if (y == n - 1 && x < 2)
		return 'S';
	if (island_at(x, y, n, k) >= 0)
		return 'I';
	if ((x % 4 == 1 && island_at(x + 1, y, n, k) >= 0) || (x % 4 == 3 && island_at(x - 1, y, n, k) >= 0))
		return '~';
	return '#';
}

static char sq_land(int x, int y, int n, const void *arg)
{
	(void)arg;
	(void)n;
	return y == 0 && x < 2 ? 'S' : '#';
}

int cm_genmap(FILE *f, const char *spec)
{
	char kind[32] = "", opt[8] = "";
	int n = 0, k = 0;
	if (sscanf(spec, "%31s %d", kind, &n) != 2 || n < 1)
		return -1;
	if (strcmp(kind, "corner") == 0) {
		if (sscanf(spec, "%*s %*d %7s", opt) != 1 || strlen(opt) != 2 || !strchr("tb", opt[0]) ||
		    !strchr("lr", opt[1]) || n < 2)
			return -1;
		head(f, n, n);
		grid(f, n, sq_corner, opt);
		tail(f);
	} else if (strcmp(kind, "serpentine") == 0) {
		if (n < 2)
			return -1;
		head(f, n, n);
		grid(f, n, sq_serpentine, NULL);
		tail(f);
	} else if (strcmp(kind, "bigcities") == 0) {
		if (sscanf(spec, "%*s %*d %d", &k) != 1 || k < 0 || n < 3)
			return -1;
		head(f, n, n);
		grid(f, n, sq_bigcities, &k);
		for (int y = 0; y < n; y++)
			for (int x = 0; x < n; x++) {
				int i = lattice(x, y, n, k);
				if (i >= 0)
					fprintf(f,
					        "<bigcity name=\"c%d\"><piece x=\"%d\" y=\"%d\"><city id=\"c1\" slots=\"" CITY_SLOTS
					        "\"/></piece></bigcity>\n",
					        i, x, y);
			}
		tail(f);
	} else if (strcmp(kind, "islands") == 0) {
		if (sscanf(spec, "%*s %*d %d", &k) != 1 || k < 0 || n < 4)
			return -1;
		head(f, n, n);
		grid(f, n, sq_islands, &k);
		for (int i = 0; i < k; i++)
			fprintf(f, "<island id=\"i%d\"/>\n", i);
		for (int y = 0; y < n; y++)
			for (int x = 0; x < n; x++) {
				int i = island_at(x, y, n, k);
				if (i < 0)
					continue;
				fprintf(f, "<square x=\"%d\" y=\"%d\" island=\"i%d\"/>\n", x, y, i);
				fprintf(f, "<edge x=\"%d\" y=\"%d\" side=\"E\" print=\"road\"/>\n", x - 2, y);
				fprintf(f, "<edge x=\"%d\" y=\"%d\" side=\"W\" print=\"road\"/>\n", x, y);
				fprintf(f, "<ferry x1=\"%d\" y1=\"%d\" side1=\"E\" x2=\"%d\" y2=\"%d\" side2=\"W\"/>\n", x - 2, y,
				        x, y);
			}
		tail(f);
	} else if (strcmp(kind, "ferries") == 0) {
		k = n;
		fputs("<?xml version=\"1.0\"?>\n<map format=\"1\" id=\"gen\" name=\"Generated\">\n<grid>\nSS##\n#~I#\n####\n</grid>\n"
		      "<island id=\"i\"/>\n<square x=\"2\" y=\"1\" island=\"i\"/>\n"
		      "<edge x=\"0\" y=\"1\" side=\"E\" print=\"road\"/>\n<edge x=\"2\" y=\"1\" side=\"W\" print=\"road\"/>\n",
		      f);
		for (int i = 0; i < k; i++)
			fputs("<ferry x1=\"0\" y1=\"1\" side1=\"E\" x2=\"2\" y2=\"1\" side2=\"W\"/>\n", f);
		tail(f);
	} else if (strcmp(kind, "deck") == 0) {
		fputs("<?xml version=\"1.0\"?>\n<map format=\"1\" id=\"gen\" name=\"Generated\">\n<grid>\nSS##\n####\n</grid>\n"
		      "<setup starts=\"2\"/>\n<deck>\n",
		      f);
		for (int i = 0; i < n; i++)
			fputs("<set id=\"base\"/>\n", f);
		fputs("</deck>\n</map>\n", f);
	} else if (strcmp(kind, "diags") == 0) {
		head(f, n, n);
		grid(f, n, sq_land, NULL);
		for (int y = 0; y < n; y++)
			for (int x = 0; x < n; x++)
				fprintf(f, "<square x=\"%d\" y=\"%d\" name=\"x\"/>\n", x, y);
		tail(f);
	} else if (strcmp(kind, "diags-one-line") == 0) {
		head(f, n, n);
		grid(f, n, sq_land, NULL);
		for (int y = 0; y < n; y++)
			for (int x = 0; x < n; x++)
				fprintf(f, "<square x=\"%d\" y=\"%d\" name=\"x\"/>", x, y);
		fputc('\n', f);
		tail(f);
	} else {
		return -1;
	}
	return ferror(f) ? -1 : 0;
}
