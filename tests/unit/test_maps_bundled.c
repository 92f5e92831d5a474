/* SPDX-License-Identifier: MIT */
/* test_maps_bundled.c: every bundled map in maps/ loads through a workspace
 * (descriptor in each of its printings, annotated PNG, deck resolved
 * against maps/tilesets) and passes cm_map_check without a diagnostic; every
 * row of maps/facts.tsv (the published facts with their sources) holds on
 * its board and printing; every name on a board is a row of the table; and
 * maps/README.md's "published" and "ours" lists are the table's.
 * CM_UPDATE_GOLDEN=1 rewrites that README section from the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/map.h"
#include "carcamap/workspace.h"
#include "util_model.h"
#include "util_files.h"

#define FACTS "maps/facts.tsv"
#define README "maps/README.md"
#define BEGIN_MARK "<!-- facts: begin"
#define END_MARK "<!-- facts: end -->"

/* One row of maps/facts.tsv. */
typedef struct {
	char *map, *printing, *fact, *value, *status, *source;
	unsigned line;
} fact_row;

typedef struct {
	cm_workspace *w;
	fact_row *rows;
	size_t n_rows;
	char *text; /* the table's file, the rows point into it */
} fixture;

static void split_rows(fixture *fx)
{
	fx->text = util_read_file(FACTS, NULL);
	size_t cap = 0;
	unsigned line = 0;
	for (char *p = fx->text, *next; p && *p; p = next) {
		line++;
		char *nl = strchr(p, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		if (*p == '#' || *p == '\0')
			continue;
		char *f[6];
		int n = 0;
		for (char *q = p; n < 6; n++) {
			f[n] = q;
			char *tab = strchr(q, '\t');
			if (!tab) {
				n++;
				break;
			}
			*tab = '\0';
			q = tab + 1;
		}
		if (n != 6 || strchr(f[5], '\t'))
			fail_msg("%s:%u: a row has 6 tab-separated fields", FACTS, line);
		if (fx->n_rows == cap) {
			cap = cap ? 2 * cap : 256;
			fx->rows = realloc(fx->rows, cap * sizeof *fx->rows);
			assert_non_null(fx->rows);
		}
		fact_row *r = &fx->rows[fx->n_rows++];
		*r = (fact_row){ f[0], f[1], f[2], f[3], f[4], f[5], line };
		if (strcmp(r->status, "published") && strcmp(r->status, "inferred") && strcmp(r->status, "ours"))
			fail_msg("%s:%u: status %s is not published, inferred or ours", FACTS, line, r->status);
		if (strcmp(r->printing, "*") && strcmp(r->printing, "C2") && strcmp(r->printing, "C3"))
			fail_msg("%s:%u: printing %s is not C2, C3 or *", FACTS, line, r->printing);
		if (!strcmp(r->status, "ours") != !strcmp(r->source, "-"))
			fail_msg("%s:%u: rows of ours have the source -, the others a source key", FACTS, line);
	}
}

/* One workspace holding every bundled map (each folder's NAME/NAME.xml, in
 * every printing), decks resolved; and the table. */
static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	cm_diags *d;
	assert_non_null(fx);
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_workspace_new(&fx->w), 0);
	size_t n = 0;
	char **dirs = util_list_dir("maps", NULL, &n);
	for (size_t i = 0; i < n; i++) {
		char path[512];
		snprintf(path, sizeof path, "maps/%s/%s.xml", dirs[i], dirs[i]);
		FILE *f = fopen(path, "r");
		if (!f)
			continue; /* tilesets/, previews/, files */
		fclose(f);
		if (cm_workspace_load(fx->w, path, d))
			break;
	}
	util_names_free(dirs);
	if (!cm_diags_count(d))
		cm_workspace_resolve(fx->w, d);
	if (cm_diags_count(d)) {
		cm_diags_write_text(d, stderr);
		fail_msg("the bundled maps do not load cleanly");
	}
	cm_diags_free(d);
	split_rows(fx);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	cm_workspace_free(fx->w);
	free(fx->rows);
	free(fx->text);
	free(fx);
	return 0;
}

/* ---- the board a row talks about ---- */

static const fact_row *board_row(const fixture *fx, const char *board, const char *fact)
{
	for (size_t i = 0; i < fx->n_rows; i++)
		if (strcmp(fx->rows[i].map, board) == 0 && strcmp(fx->rows[i].fact, fact) == 0)
			return &fx->rows[i];
	return NULL;
}

static bool is_ours(const fixture *fx, const char *board)
{
	return board_row(fx, board, "board") != NULL;
}

/* Whether row r speaks about printing pr of board. */
static bool applies(const fixture *fx, const fact_row *r, const char *board, const char *pr)
{
	if (strcmp(r->map, board) != 0 && !(strcmp(r->map, "*") == 0 && !is_ours(fx, board)))
		return false;
	return strcmp(r->printing, "*") == 0 || strcmp(r->printing, pr) == 0;
}

/* The map of printing index k (name pr) of board: ID, or ID-c3. */
static const cm_map *printing_map(const fixture *fx, const char *board, size_t k, const char *pr)
{
	char id[200];
	if (k == 0)
		snprintf(id, sizeof id, "%s", board);
	else
		snprintf(id, sizeof id, "%s-c%c", board, pr[1]);
	return cm_workspace_find_map(fx->w, id);
}

/* ---- counting on a map ---- */

static int count_kind(const cm_map *m, cm_square_kind k)
{
	int n = 0;
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++)
		n += cm_map_squares(m)[i].kind == k;
	return n;
}

static int count_playable(const cm_map *m)
{
	int n = 0;
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++)
		n += cm_square_kind_playable(cm_map_squares(m)[i].kind);
	return n;
}

/* Whether square s of m has marker mk (or one starting with mk). */
static bool has_marker(const cm_map *m, const cm_square *s, const char *mk, bool prefix)
{
	int i = (int)(s - cm_map_squares(m));
	size_t n;
	const char *const *v = cm_map_square_markers(m, i % cm_map_cols(m), i / cm_map_cols(m), &n);
	for (size_t k = 0; k < n; k++)
		if (prefix ? strncmp(v[k], mk, strlen(mk)) == 0 : strcmp(v[k], mk) == 0)
			return true;
	return false;
}

static const cm_square *named_square(const cm_map *m, const char *name)
{
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++) {
		const char *n = cm_map_square_name(m, i % cm_map_cols(m), i / cm_map_cols(m));
		if (n && strcmp(n, name) == 0)
			return &cm_map_squares(m)[i];
	}
	return NULL;
}

static bool has_bigcity(const cm_map *m, const char *name)
{
	for (size_t k = 0; k < cm_map_bigcity_count(m); k++)
		if (strcmp(cm_map_bigcity(m, k)->name, name) == 0)
			return true;
	return false;
}

static int count_islands(const cm_map *m, const char *title)
{
	int n = 0;
	for (size_t k = 0; k < cm_map_island_count(m); k++)
		n += cm_map_island(m, k)->title && strcmp(cm_map_island(m, k)->title, title) == 0;
	return n;
}

/* Tiles the deck deals: whole sets at their edition counts plus explicit
 * tiles. A tile entry may not name a set that is also taken whole, so
 * that "entries add up" and "an explicit count replaces the set's" give
 * the same deck. */
static int deck_total(const cm_workspace *w, const cm_map *m)
{
	int n = 0;
	for (size_t i = 0; i < cm_map_deck_count(m); i++) {
		const cm_deck_entry *e = cm_map_deck_entry(m, i);
		const cm_tileset *ts = cm_workspace_find_tileset(w, e->tileset);
		assert_non_null(ts);
		if (!e->tile) {
			n += cm_tileset_total(ts, cm_map_rules(m)->edition);
			continue;
		}
		for (size_t k = 0; k < cm_map_deck_count(m); k++)
			if (!cm_map_deck_entry(m, k)->tile && strcmp(cm_map_deck_entry(m, k)->tileset, e->tileset) == 0)
				fail_msg("map %s: tile %s of set %s is also taken whole", cm_map_id(m), e->tile, e->tileset);
		n += e->count;
	}
	return n;
}

/* A row that does not hold fails the test, or with soft set only counts
 * (test_maps_bundled__a_wrong_row_fails). */
static bool soft;
static int soft_failures;
#define FAIL_ROW(r, m, ...)                                                                                   \
	do {                                                                                                      \
		if (soft) {                                                                                           \
			soft_failures++;                                                                                  \
			return;                                                                                           \
		}                                                                                                     \
		print_message("%s:%u: %s %s does not hold on map %s: ", FACTS, (r)->line, (r)->fact, (r)->value,      \
		              cm_map_id(m));                                                                             \
		print_message(__VA_ARGS__);                                                                           \
		print_message("\n");                                                                                  \
		fail();                                                                                               \
	} while (0)

static int as_int(const fact_row *r)
{
	char *end;
	long v = strtol(r->value, &end, 10);
	if (*end || end == r->value)
		fail_msg("%s:%u: %s takes a number, not %s", FACTS, r->line, r->fact, r->value);
	return (int)v;
}

static bool yes(const fact_row *r)
{
	if (strcmp(r->value, "yes") && strcmp(r->value, "no"))
		fail_msg("%s:%u: %s takes yes or no, not %s", FACTS, r->line, r->fact, r->value);
	return strcmp(r->value, "yes") == 0;
}

/* value "NAME=REST": the part after the last '=' in *rest, NAME copied */
static void split_eq(const fact_row *r, char *name, size_t size, const char **rest)
{
	const char *eq = strrchr(r->value, '=');
	if (!eq || (size_t)(eq - r->value) >= size)
		fail_msg("%s:%u: %s takes NAME=VALUE, not %s", FACTS, r->line, r->fact, r->value);
	memcpy(name, r->value, (size_t)(eq - r->value));
	name[eq - r->value] = '\0';
	*rest = eq + 1;
}

static void check_edge(const fact_row *r, const cm_map *m)
{
	char kind[16], side[4];
	int arms, used = 0;
	if (sscanf(r->value, "%15s %3s %d %n", kind, side, &arms, &used) != 3 || !used)
		fail_msg("%s:%u: edge takes KIND SIDE N LABEL", FACTS, r->line);
	const char *label = r->value + used;
	static const char sides[] = "NESW";
	const char *s = strchr(sides, side[0]);
	if (!s || side[1])
		fail_msg("%s:%u: side %s", FACTS, r->line, side);
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++) {
		const cm_edge_print *p = &cm_map_squares(m)[i].print[s - sides];
		const char *l = cm_map_print_label(m, i % cm_map_cols(m), i / cm_map_cols(m), (cm_side)(s - sides));
		if (l && strcmp(l, label) == 0 && strcmp(cm_print_kind_name(p->kind), kind) == 0 &&
		    p->arms == arms)
			return;
	}
	FAIL_ROW(r, m, "no %s print on side %s with %d coats of arms labelled \"%s\"", kind, side, arms, label);
}

/* deck SET... = N: the deck is these whole sets in this order, N tiles. */
static void check_deck(const fixture *fx, const fact_row *r, const cm_map *m)
{
	const char *eq = strstr(r->value, " = ");
	int want = eq ? atoi(eq + 3) : 0;
	if (!eq || want <= 0)
		fail_msg("%s:%u: deck takes SET... = N", FACTS, r->line);
	size_t k = 0;
	for (const char *p = r->value; p < eq; k++) {
		const char *e = strchr(p, ' ');
		size_t len = (size_t)((e && e < eq ? e : eq) - p);
		if (k >= cm_map_deck_count(m) || cm_map_deck_entry(m, k)->tile || strlen(cm_map_deck_entry(m, k)->tileset) != len ||
		    strncmp(cm_map_deck_entry(m, k)->tileset, p, len))
			FAIL_ROW(r, m, "deck entry %zu is %s%s", k + 1, k < cm_map_deck_count(m) ? cm_map_deck_entry(m, k)->tileset : "missing",
			         k < cm_map_deck_count(m) && cm_map_deck_entry(m, k)->tile ? " (one tile type)" : "");
		p += len;
		while (p < eq && *p == ' ')
			p++;
	}
	if (k != cm_map_deck_count(m))
		FAIL_ROW(r, m, "%zu deck entries", cm_map_deck_count(m));
	if (deck_total(fx->w, m) != want)
		FAIL_ROW(r, m, "a deck of %d tiles", deck_total(fx->w, m));
}

static void check_row(const fixture *fx, const fact_row *r, const cm_map *m)
{
	const char *f = r->fact;
	int n = cm_map_cols(m) * cm_map_rows(m);
	if (!strcmp(f, "printings") || !strcmp(f, "labels") || !strcmp(f, "board") || !strcmp(f, "combines")) {
		return; /* checked per board */
	} else if (!strcmp(f, "bigcity")) {
		if (!has_bigcity(m, r->value))
			FAIL_ROW(r, m, "no big city of that name");
	} else if (!strcmp(f, "town") || !strcmp(f, "start")) {
		const cm_square *s = named_square(m, r->value);
		cm_square_kind k = f[0] == 't' ? CM_SQ_TOWN : CM_SQ_START;
		if (!s || s->kind != k)
			FAIL_ROW(r, m, "no %s square of that name", cm_square_kind_name(k));
	} else if (!strcmp(f, "not-town")) {
		const cm_square *s = named_square(m, r->value);
		if (s && s->kind == CM_SQ_TOWN)
			FAIL_ROW(r, m, "a town of that name");
	} else if (!strcmp(f, "name")) {
		if (!named_square(m, r->value) && !has_bigcity(m, r->value))
			FAIL_ROW(r, m, "no square or big city of that name");
	} else if (!strcmp(f, "starts")) {
		if (count_kind(m, CM_SQ_START) != as_int(r))
			FAIL_ROW(r, m, "%d start squares", count_kind(m, CM_SQ_START));
	} else if (!strcmp(f, "starts-used")) {
		if (cm_map_setup(m)->starts_used != as_int(r))
			FAIL_ROW(r, m, "%d used", cm_map_setup(m)->starts_used);
	} else if (!strcmp(f, "followers")) {
		if (cm_map_setup(m)->followers != as_int(r))
			FAIL_ROW(r, m, "%d followers", cm_map_setup(m)->followers);
	} else if (!strcmp(f, "tiles")) {
		int lo, hi;
		if (sscanf(r->value, "%d-%d", &lo, &hi) != 2)
			fail_msg("%s:%u: tiles takes MIN-MAX", FACTS, r->line);
		if (cm_map_setup(m)->tiles_min != lo || cm_map_setup(m)->tiles_max != hi)
			FAIL_ROW(r, m, "tiles %d-%d", cm_map_setup(m)->tiles_min, cm_map_setup(m)->tiles_max);
		int deck = deck_total(fx->w, m);
		if (deck < lo || deck > hi)
			FAIL_ROW(r, m, "a deck of %d tiles", deck);
	} else if (!strcmp(f, "deck")) {
		check_deck(fx, r, m);
	} else if (!strcmp(f, "playable")) {
		if (count_playable(m) != as_int(r))
			FAIL_ROW(r, m, "%d playable squares", count_playable(m));
	} else if (!strcmp(f, "waves")) {
		int w = count_kind(m, CM_SQ_WAVES);
		if (!strcmp(r->value, "yes") ? w == 0 : w != as_int(r))
			FAIL_ROW(r, m, "%d wave squares", w);
	} else if (!strcmp(f, "landmarks")) {
		if ((count_kind(m, CM_SQ_LANDMARK) > 0) != yes(r))
			FAIL_ROW(r, m, "%d landmarks", count_kind(m, CM_SQ_LANDMARK));
	} else if (!strcmp(f, "ferries")) {
		if ((cm_map_ferry_count(m) > 0) != yes(r))
			FAIL_ROW(r, m, "%zu ferries", cm_map_ferry_count(m));
	} else if (!strcmp(f, "islands")) {
		if (yes(r) || count_kind(m, CM_SQ_ISLAND) || cm_map_island_count(m))
			FAIL_ROW(r, m, "%d island squares", count_kind(m, CM_SQ_ISLAND));
	} else if (!strcmp(f, "halves")) {
		int want = !strcmp(r->value, "E") ? cm_map_cols(m) - 1 : !strcmp(r->value, "W") ? 0 : -1;
		for (int i = 0; i < n; i++)
			if (cm_map_squares(m)[i].kind == CM_SQ_HALF && i % cm_map_cols(m) != want)
				FAIL_ROW(r, m, "a half square in column %d", i % cm_map_cols(m));
		if (want >= 0 && !count_kind(m, CM_SQ_HALF))
			FAIL_ROW(r, m, "no half square");
	} else if (!strcmp(f, "island")) {
		int want = 0;
		for (size_t i = 0; i < fx->n_rows; i++)
			want += !strcmp(fx->rows[i].fact, "island") && !strcmp(fx->rows[i].value, r->value) &&
			        !strcmp(fx->rows[i].map, r->map) &&
			        (!strcmp(fx->rows[i].printing, "*") || !strcmp(fx->rows[i].printing, r->printing) ||
			         !strcmp(r->printing, "*"));
		if (count_islands(m, r->value) != want)
			FAIL_ROW(r, m, "%d islands of that name for %d rows", count_islands(m, r->value), want);
	} else if (!strcmp(f, "island-arms")) {
		int want = as_int(r);
		bool found = false;
		for (int i = 0; i < n; i++)
			found |= cm_map_squares(m)[i].kind == CM_SQ_ISLAND && cm_map_squares(m)[i].arms == want;
		if (!found)
			FAIL_ROW(r, m, "no island square with that many coats of arms");
	} else if (!strcmp(f, "edge")) {
		check_edge(r, m);
	} else if (!strcmp(f, "border-arms")) {
		for (int i = 0; i < n; i++)
			for (int s = 0; s < 4; s++) {
				const cm_edge_print *p = &cm_map_squares(m)[i].print[s];
				if ((p->kind == CM_PRINT_ROAD || p->kind == CM_PRINT_CITY) && !p->arms && yes(r))
					FAIL_ROW(r, m, "a print without coat of arms at (%d,%d)", i % cm_map_cols(m), i / cm_map_cols(m));
			}
	} else if (!strcmp(f, "marker")) {
		char mk[64];
		const char *cnt;
		split_eq(r, mk, sizeof mk, &cnt);
		int have = 0;
		for (int i = 0; i < n; i++)
			have += has_marker(m, &cm_map_squares(m)[i], mk, false);
		if (!strcmp(cnt, "some") ? have == 0 : have != atoi(cnt))
			FAIL_ROW(r, m, "%d squares marked %s", have, mk);
	} else if (!strcmp(f, "marker-start") || !strcmp(f, "no-marker-start")) {
		bool want = f[0] == 'm';
		for (int i = 0; i < n; i++)
			if (cm_map_squares(m)[i].kind == CM_SQ_START && has_marker(m, &cm_map_squares(m)[i], r->value, false) != want)
				FAIL_ROW(r, m, "start square (%d,%d)", i % cm_map_cols(m), i / cm_map_cols(m));
	} else if (!strcmp(f, "marker-town") || !strcmp(f, "marker-landmark")) {
		cm_square_kind k = f[7] == 't' ? CM_SQ_TOWN : CM_SQ_LANDMARK;
		for (int i = 0; i < n; i++)
			if (has_marker(m, &cm_map_squares(m)[i], r->value, true) != (cm_map_squares(m)[i].kind == k))
				FAIL_ROW(r, m, "square (%d,%d)", i % cm_map_cols(m), i / cm_map_cols(m));
	} else if (!strcmp(f, "band")) {
		char rows[32];
		const char *colour;
		split_eq(r, rows, sizeof rows, &colour);
		int a = 0, b = 0;
		if (sscanf(rows, "%d-%d", &a, &b) < 1 || a < 1)
			fail_msg("%s:%u: band takes A-B=COLOUR", FACTS, r->line);
		if (b == 0)
			b = cm_map_rows(m);
		char mk[64];
		snprintf(mk, sizeof mk, "band-%s", colour);
		for (int i = 0; i < n; i++) {
			const cm_square *s = &cm_map_squares(m)[i];
			int row = i / cm_map_cols(m) + 1;
			bool in = row >= a && row <= b;
			if (cm_square_kind_playable(s->kind) && s->kind != CM_SQ_ISLAND && in != has_marker(m, s, mk, false))
				FAIL_ROW(r, m, "square (%d,%d)", i % cm_map_cols(m), i / cm_map_cols(m));
			if ((!cm_square_kind_playable(s->kind) || s->kind == CM_SQ_ISLAND) && has_marker(m, s, mk, false))
				FAIL_ROW(r, m, "square (%d,%d) takes no band", i % cm_map_cols(m), i / cm_map_cols(m));
		}
	} else if (!strcmp(f, "place")) {
		char name[128];
		const char *mk;
		split_eq(r, name, sizeof name, &mk);
		const cm_square *s = named_square(m, name);
		if (!s || cm_square_kind_playable(s->kind) || !has_marker(m, s, mk, false))
			FAIL_ROW(r, m, "no square that takes no tile named %s with marker %s", name, mk);
	} else {
		fail_msg("%s:%u: unknown fact %s", FACTS, r->line, f);
	}
}

/* Whether some row of board (or of the boards it combines) at printing pr
 * names name with one of the naming facts. */
static bool name_listed(const fixture *fx, const char *board, const char *pr, const char *name)
{
	for (size_t i = 0; i < fx->n_rows; i++) {
		const fact_row *r = &fx->rows[i];
		if (!applies(fx, r, board, pr))
			continue;
		if ((!strcmp(r->fact, "bigcity") || !strcmp(r->fact, "town") || !strcmp(r->fact, "start") ||
		     !strcmp(r->fact, "name") || !strcmp(r->fact, "island")) &&
		    !strcmp(r->value, name))
			return true;
		if (!strcmp(r->fact, "place") && !strncmp(r->value, name, strlen(name)) && r->value[strlen(name)] == '=')
			return true;
		if (!strcmp(r->fact, "combines")) {
			char a[64], b[64];
			if (sscanf(r->value, "%63s %63s", a, b) == 2 &&
			    (name_listed(fx, a, pr, name) || name_listed(fx, b, pr, name)))
				return true;
		}
	}
	return false;
}

static bool label_listed(const fixture *fx, const char *board, const char *pr, const char *label)
{
	for (size_t i = 0; i < fx->n_rows; i++) {
		const fact_row *r = &fx->rows[i];
		if (!applies(fx, r, board, pr))
			continue;
		if (!strcmp(r->fact, "labels"))
			return true;
		if (!strcmp(r->fact, "edge") && strlen(r->value) > strlen(label) &&
		    !strcmp(r->value + strlen(r->value) - strlen(label), label))
			return true;
		if (!strcmp(r->fact, "combines")) {
			char a[64], b[64];
			if (sscanf(r->value, "%63s %63s", a, b) == 2 &&
			    (label_listed(fx, a, pr, label) || label_listed(fx, b, pr, label)))
				return true;
		}
	}
	return false;
}

/* Every name and label on the map is a row of the table: published,
 * inferred or ours. */
static void check_names(const fixture *fx, const char *board, const char *pr, const cm_map *m)
{
	if (is_ours(fx, board))
		return;
	for (int i = 0; i < cm_map_cols(m) * cm_map_rows(m); i++) {
		const char *name = cm_map_square_name(m, i % cm_map_cols(m), i / cm_map_cols(m));
		if (name && !name_listed(fx, board, pr, name))
			fail_msg("map %s: square (%d,%d) is named %s, which %s does not list", cm_map_id(m), i % cm_map_cols(m),
			         i / cm_map_cols(m), name, FACTS);
		for (int e = 0; e < 4; e++) {
			const char *label = cm_map_print_label(m, i % cm_map_cols(m), i / cm_map_cols(m), (cm_side)e);
			if (label && !label_listed(fx, board, pr, label))
				fail_msg("map %s: edge label \"%s\" at (%d,%d) is not in %s", cm_map_id(m), label,
				         i % cm_map_cols(m), i / cm_map_cols(m), FACTS);
		}
	}
	for (size_t k = 0; k < cm_map_bigcity_count(m); k++)
		if (!name_listed(fx, board, pr, cm_map_bigcity(m, k)->name))
			fail_msg("map %s: big city %s is not in %s", cm_map_id(m), cm_map_bigcity(m, k)->name, FACTS);
	for (size_t k = 0; k < cm_map_island_count(m); k++)
		if (cm_map_island(m, k)->title && !name_listed(fx, board, pr, cm_map_island(m, k)->title))
			fail_msg("map %s: island %s is not in %s", cm_map_id(m), cm_map_island(m, k)->title, FACTS);
	for (size_t k = 0; k < cm_map_ferry_count(m); k++)
		if (cm_map_ferry(m, k)->name && !name_listed(fx, board, pr, cm_map_ferry(m, k)->name))
			fail_msg("map %s: ferry %s is not in %s", cm_map_id(m), cm_map_ferry(m, k)->name, FACTS);
}

/* The boards of the table, in the order of their first row ("*" aside). */
static size_t boards(const fixture *fx, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < fx->n_rows; i++) {
		const char *b = fx->rows[i].map;
		bool seen = !strcmp(b, "*");
		for (size_t k = 0; k < n; k++)
			seen |= !strcmp(out[k], b);
		if (!seen && n < max)
			out[n++] = b;
	}
	return n;
}

static void test_maps_bundled__published_facts(void **state)
{
	fixture *fx = *state;
	const char *bs[64];
	size_t nb = boards(fx, bs, 64), maps = 0;
	for (size_t b = 0; b < nb; b++) {
		const fact_row *pr = board_row(fx, bs[b], "printings");
		if (!pr)
			fail_msg("%s: board %s has no printings row", FACTS, bs[b]);
		if (!is_ours(fx, bs[b]) && !board_row(fx, bs[b], "ferries"))
			fail_msg("%s: board %s has no ferries row (ferries only where published)", FACTS, bs[b]);
		/* the printings, in order: ID, ID-c3 */
		char list[32];
		snprintf(list, sizeof list, "%s", pr->value);
		size_t k = 0;
		for (char *save = NULL, *p = strtok_r(list, " ", &save); p; p = strtok_r(NULL, " ", &save), k++) {
			const cm_map *m = printing_map(fx, bs[b], k, p);
			if (!m)
				fail_msg("board %s: printing %s is not loaded", bs[b], p);
			if (strcmp(cm_edition_name(cm_map_rules(m)->edition), p) != 0)
				fail_msg("map %s is printing %s, not %s", cm_map_id(m), cm_edition_name(cm_map_rules(m)->edition), p);
			maps++;
			/* the structural checks and the deck's references: not one diagnostic */
			const cm_tileset **sets = NULL;
			size_t n_sets = 0;
			cm_diags *d;
			assert_int_equal(cm_diags_new(&d), 0);
			assert_int_equal(cm_workspace_map_sets(fx->w, m, &sets, &n_sets), 0);
			int rc = cm_map_check(m, (const cm_tileset *const *)sets, n_sets, d);
			if (rc || cm_diags_count(d)) {
				cm_diags_write_text(d, stderr);
				fail_msg("map %s does not check cleanly", cm_map_id(m));
			}
			free(sets);
			cm_diags_free(d);
			bool fixed = false;
			const fact_row *tiles = NULL;
			for (size_t i = 0; i < fx->n_rows; i++)
				if (applies(fx, &fx->rows[i], bs[b], p)) {
					check_row(fx, &fx->rows[i], m);
					fixed |= !strcmp(fx->rows[i].fact, "playable");
					if (!strcmp(fx->rows[i].fact, "tiles"))
						tiles = &fx->rows[i];
				}
			if (!tiles)
				fail_msg("%s: board %s has no tiles row", FACTS, bs[b]);
			/* room for the recommended tiles, or exactly the published room */
			if (!fixed && count_playable(m) < cm_map_setup(m)->tiles_max)
				fail_msg("map %s: %d playable squares for up to %d tiles", cm_map_id(m), count_playable(m),
				         cm_map_setup(m)->tiles_max);
			check_names(fx, bs[b], p, m);
		}
	}
	/* and nothing else: every bundled map is a printing of a board of the table */
	assert_int_equal(cm_workspace_map_count(fx->w), maps);
}

/* A row that does not hold is reported: the checks can fail. Germany's
 * rows, on a board whose town Bremen is renamed Köln, whose Berlin is
 * gone and whose road into Denmark lost its coats of arms. */
static void test_maps_bundled__a_wrong_row_fails(void **state)
{
	fixture *fx = *state;
	const cm_map *g = cm_workspace_find_map(fx->w, "germany");
	assert_non_null(g);
	const cm_square *bremen = named_square(g, "Bremen");
	assert_non_null(bremen);
	int bx = (int)(bremen - cm_map_squares(g)) % cm_map_cols(g), by = (int)(bremen - cm_map_squares(g)) / cm_map_cols(g);
	cm_map_builder *b = util_from(g);
	assert_int_equal(cm_map_builder_set_square_name(b, bx, by, "Köln"), 0);
	bool berlin = false;
	for (size_t k = 0; k < cm_map_bigcity_count(g); k++)
		if (!strcmp(cm_map_bigcity(g, k)->name, "Berlin")) {
			assert_int_equal(cm_map_builder_set_bigcity_name(b, k, "Berlin (ours)"), 0);
			berlin = true;
		}
	assert_true(berlin);
	bool denmark = false;
	for (int i = 0; i < cm_map_cols(g) * cm_map_rows(g); i++) {
		int x = i % cm_map_cols(g), y = i / cm_map_cols(g);
		if (cm_map_print_label(g, x, y, CM_N) && !strcmp(cm_map_print_label(g, x, y, CM_N), "to Denmark")) {
			util_print_set(b, x, y, CM_N, (cm_print_kind)cm_map_at(g, x, y)->print[CM_N].kind, 0);
			denmark = true;
		}
	}
	assert_true(denmark);
	cm_map *m = util_finish(b);
	soft = true;
	soft_failures = 0;
	int rows = 0;
	for (size_t i = 0; i < fx->n_rows; i++)
		if (applies(fx, &fx->rows[i], "germany", "C2")) {
			check_row(fx, &fx->rows[i], m);
			rows++;
		}
	soft = false;
	cm_map_free(m);
	assert_true(rows > 10);
	/* town Bremen, not-town Köln, bigcity Berlin, the edge to Denmark */
	assert_int_equal(soft_failures, 4);
}

/* ---- maps/README.md's lists ---- */

static void put_board(FILE *f, const fixture *fx, const char *board, bool ours)
{
	const char *last_fact = NULL, *last_pr = NULL, *last_src = NULL, *last_status = NULL;
	bool any = false;
	for (size_t i = 0; i < fx->n_rows; i++) {
		const fact_row *r = &fx->rows[i];
		if (strcmp(r->map, board) || !strcmp(r->fact, "board") || (!strcmp(r->status, "ours")) != ours)
			continue;
		if (last_fact && !strcmp(last_fact, r->fact) && !strcmp(last_pr, r->printing) &&
		    !strcmp(last_src, r->source) && !strcmp(last_status, r->status)) {
			fprintf(f, ", %s", r->value);
		} else {
			if (last_fact && !ours)
				fprintf(f, " [%s]%s", last_src, !strcmp(last_status, "inferred") ? " (inferred)" : "");
			fprintf(f, "%s", any ? "; " : "");
			if (strcmp(r->printing, "*"))
				fprintf(f, "%s: ", r->printing);
			if (!strcmp(r->fact, "labels"))
				fprintf(f, "every edge label");
			else
				fprintf(f, "%s %s", !strcmp(r->fact, "bigcity") ? "big city" : r->fact, r->value);
		}
		any = true;
		last_fact = r->fact;
		last_pr = r->printing;
		last_src = r->source;
		last_status = r->status;
	}
	if (last_fact && !ours)
		fprintf(f, " [%s]%s", last_src, !strcmp(last_status, "inferred") ? " (inferred)" : "");
	if (!any)
		fprintf(f, "—");
}

/* The README section the table gives. */
static char *readme_section(const fixture *fx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	fprintf(f, BEGIN_MARK " generated from facts.tsv by tests/unit/test_maps_bundled.c;\n"
	           "     edit facts.tsv, then CM_UPDATE_GOLDEN=1 build/tests/test_maps_bundled -->\n");
	fprintf(f, "| board | published facts [source keys] | ours (no source) |\n|---|---|---|\n");
	fprintf(f, "| every published board | ");
	put_board(f, fx, "*", false);
	fprintf(f, " | |\n");
	const char *bs[64];
	size_t nb = boards(fx, bs, 64);
	for (size_t b = 0; b < nb; b++) {
		const cm_map *m = cm_workspace_find_map(fx->w, bs[b]);
		fprintf(f, "| %s (`%s`) | ", m ? cm_map_name(m) : bs[b], bs[b]);
		put_board(f, fx, bs[b], false);
		fprintf(f, " | ");
		put_board(f, fx, bs[b], true);
		fprintf(f, " |\n");
	}
	fprintf(f, END_MARK);
	fclose(f);
	return buf;
}

static void test_maps_bundled__readme_lists_the_table(void **state)
{
	fixture *fx = *state;
	char *want = readme_section(fx);
	size_t len = 0;
	char *readme = util_read_file(README, &len);
	char *b = strstr(readme, BEGIN_MARK), *e = b ? strstr(b, END_MARK) : NULL;
	if (!b || !e)
		fail_msg("%s has no %s ... %s section", README, BEGIN_MARK, END_MARK);
	e += strlen(END_MARK);
	size_t have = (size_t)(e - b);
	if (getenv("CM_UPDATE_GOLDEN")) {
		FILE *f = fopen(README, "w");
		assert_non_null(f);
		fwrite(readme, 1, (size_t)(b - readme), f);
		fputs(want, f);
		fputs(e, f);
		fclose(f);
	} else if (have != strlen(want) || memcmp(b, want, have) != 0) {
		print_message("%s: the facts section differs from %s; it should read:\n%s\n", README, FACTS, want);
		fail();
	}
	free(readme);
	free(want);
}

/* Every board names its annotated PNG and the shared legend. The published
 * boards have no <grid>, so their playable squares can only have come from
 * the image (Carca Isles keeps its grid too, to show both; the image must
 * then agree with it, CM0330). */
static void test_maps_bundled__squares_from_images(void **state)
{
	fixture *fx = *state;
	for (size_t i = 0; i < cm_workspace_map_count(fx->w); i++) {
		const cm_map *m = cm_workspace_map(fx->w, i);
		if (!strncmp(cm_map_id(m), "usa", 3) && (!cm_map_id(m)[3] || !strcmp(cm_map_id(m) + 3, "-c3")))
			continue; /* a <combine> of the two halves, which have images */
		if (!cm_map_image(m) || strcmp(cm_map_legend(m), "../legend.xml") != 0)
			fail_msg("map %s: no annotated image with the shared legend", cm_map_id(m));
		assert_true(count_playable(m) > 0);
	}
}

/* Combined USA: the 10 half squares of each map pair into 10 land squares. */
static void test_maps_bundled__usa_halves_pair(void **state)
{
	fixture *fx = *state;
	const cm_map *w = cm_workspace_find_map(fx->w, "usa-west");
	const cm_map *e = cm_workspace_find_map(fx->w, "usa-east");
	const cm_map *u = cm_workspace_find_map(fx->w, "usa");
	assert_non_null(w);
	assert_non_null(e);
	assert_non_null(u);
	int halves = count_kind(w, CM_SQ_HALF);
	assert_int_equal(count_kind(e, CM_SQ_HALF), halves);
	assert_int_equal(cm_map_cols(u), cm_map_cols(w) + cm_map_cols(e) - 1);
	assert_int_equal(count_playable(u), count_playable(w) + count_playable(e) + halves);
	assert_int_equal((int)cm_map_bigcity_count(u), (int)(cm_map_bigcity_count(w) + cm_map_bigcity_count(e)));
	/* the C3 board takes the C3 halves: Ely, not Toledo */
	const cm_map *u3 = cm_workspace_find_map(fx->w, "usa-c3");
	assert_non_null(u3);
	assert_non_null(named_square(u3, "Ely"));
	assert_null(named_square(u3, "Toledo"));
	assert_non_null(named_square(u, "Toledo"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_bundled__published_facts),
		cmocka_unit_test(test_maps_bundled__a_wrong_row_fails),
		cmocka_unit_test(test_maps_bundled__readme_lists_the_table),
		cmocka_unit_test(test_maps_bundled__squares_from_images),
		cmocka_unit_test(test_maps_bundled__usa_halves_pair),
	};
	return cmocka_run_group_tests_name("maps_bundled", tests, setup, teardown);
}
