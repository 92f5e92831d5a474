/* SPDX-License-Identifier: MIT */
/* check.c: the validator's playability (CM05xx) and simulated-game (CM06xx)
 * checks on a map with its deck (carcamap/check.h), and the pipeline over a
 * workspace. What fits where is the rules engine's: the map's layout gives
 * each square's printed requirements and which squares play can reach, the
 * deck each tile type's legal rotations for them (engine/engine.h, the
 * engine's layer-internal API); this file only adds them up. Games are
 * cm_play_run's (carcamap/stats.h), as in `carcamap play`, on the same
 * layout. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"
#include "check/balance_int.h"
#include "check/stats_int.h"
#include "carcamap/balance.h"
#include "carcamap/catalog.h"
#include "carcamap/check.h"
#include "carcamap/stats.h"
#include "base/mem_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

void cm_check_opts_init(cm_check_opts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = CM_CHECK_DEFAULT_SEED;
	o->players = 2;
}

typedef struct {
	const cm_map *m;
	cm_diags *d;
	const cm_check_opts *o;
} ctx;

/* How many squares a check names for one cause before it counts the rest
 * (cm_check_opts.listed). */
static int listed_max(const cm_check_opts *o)
{
	return o->listed > 0 ? o->listed : o->listed < 0 ? INT_MAX : CM_CHECK_LISTED;
}

/* Reports check id about square (x,y): at the square's element line when
 * the map came from a descriptor and an element defines the square, else
 * with a where string. */
static void sq_report(const ctx *c, const char *id, int x, int y, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static void sq_report(const ctx *c, const char *id, int x, int y, const char *fmt, ...)
{
	const cm_square *sq = cm__map_at(c->m, x, y);
	unsigned line = sq && c->m->file ? sq->line : 0;
	/* the printings of one descriptor share its lines: each names its map */
	char *where = !line ? cm_asprintf("map %s, square (%d,%d)", c->m->id ? c->m->id : "?", x, y)
	              : c->m->n_printings > 1 ? cm_asprintf("map %s", c->m->id ? c->m->id : "?") : NULL;
	cm_diag_scope s;
	cm_diag_scope_init(&s, c->d, c->m->file);
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(&s, id, line, 0, where, fmt, ap);
	va_end(ap);
	cm_diags_set_square(c->d, x, y);
	free(where);
}

/* Reports check id about a part of the map that is no square: at line when
 * known, else with "map ID, what". */
static void map_report(const ctx *c, const char *id, unsigned line, const char *what, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
static void map_report(const ctx *c, const char *id, unsigned line, const char *what, const char *fmt, ...)
{
	if (!c->m->file)
		line = 0;
	char *where = !line || c->m->n_printings > 1 ? cm_asprintf("map %s, %s", c->m->id ? c->m->id : "?", what) : NULL;
	cm_diag_scope s;
	cm_diag_scope_init(&s, c->d, c->m->file);
	va_list ap;
	va_start(ap, fmt);
	cm_diag_scope_vadd(&s, id, line, 0, where, fmt, ap);
	va_end(ap);
	free(where);
}

/* "N city, E road" for the sides with a requirement; "no constraint". */
static void describe_req(uint8_t req, char *buf, size_t size)
{
	static const char *const need[4] = { "", "field", "road", "city" };
	size_t n = 0;
	buf[0] = '\0';
	for (int s = 0; s < 4; s++) {
		unsigned r = (req >> (2 * s)) & 3u;
		if (!r)
			continue;
		int k = snprintf(buf + n, size - n, "%s%s %s", n ? ", " : "", cm_side_name((cm_side)s), need[r]);
		if (k < 0 || (size_t)k >= size - n)
			break;
		n += (size_t)k;
	}
	if (!n)
		snprintf(buf, size, "no constraint");
}

/* What the static analysis found. What fits a square depends only on its
 * printed requirement (one byte, cm__layout_printed_req), so the fits are
 * counted per requirement, not per square. */
typedef struct {
	int copies[256]; /* deck copies that fit in some rotation */
	int pairs[256];  /* (tile type, rotation) pairs that fit */
	int types[256];  /* tile types that fit */
	uint8_t takes[256]; /* copies != 0 */
	uint8_t *reach;  /* per square (index y*cols+x): reachable from the start squares */
	uint8_t *isl_open;
	int n_errors;
} analysis;

static void analysis_free(analysis *a)
{
	free(a->reach);
	free(a->isl_open);
}

/* Copies of the deck that fit square s in some rotation. */
static int copies_at(const analysis *a, const cm__layout *l, int s)
{
	return cm__layout_playable(l, s) ? a->copies[cm__layout_printed_req(l, s) & 255u] : 0;
}

static const uint8_t popc4[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };

/* Copies the pile holds plus the start tile: every tile that is drawn or set. */
static int deck_drawn(const cm_deck *dk)
{
	int total = 0;
	for (size_t t = 0; t < cm_deck_types(dk); t++)
		if (!cm__deck_abbey(dk, t))
			total += cm_deck_count(dk, t);
	return total;
}

/* Fits per square: CM0501, CM0502, CM0505. The deck is added up once per
 * requirement; the squares are then one table look-up each. */
static void check_fits(const ctx *c, const cm__layout *l, const cm_deck *dk, analysis *a)
{
	int cols = c->m->cols;
	int drawn = -1;
	for (unsigned rq = 0; rq < 256; rq++) {
		a->copies[rq] = a->pairs[rq] = a->types[rq] = 0;
		for (size_t t = 0; t < cm_deck_types(dk); t++) {
			if (cm__deck_abbey(dk, t) || cm_deck_count(dk, t) <= 0)
				continue;
			unsigned mask = cm__deck_fit_req(dk, t, rq);
			if (mask) {
				a->copies[rq] += cm_deck_count(dk, t);
				a->pairs[rq] += popc4[mask & 15u];
				a->types[rq]++;
			}
		}
		a->takes[rq] = a->copies[rq] != 0;
	}
	uint8_t few[256];
	for (unsigned rq = 0; rq < 256; rq++)
		few[rq] = a->copies[rq] < CM_CHECK_FEW_TILES;
	/* CM0502 has one cause per printed requirement (the deck holds few
	 * tiles for it): its first squares are named, the rest counted */
	int few_seen[256] = { 0 }, few_listed = listed_max(c->o);
	const uint8_t *fl = cm__layout_playable_flags(l), *reqs = cm__layout_printed_reqs(l);
	for (int s = 0, n = cm__layout_squares(l); s < n; s++) {
		/* squares without a printed requirement, when the deck has many
		 * tiles for them: eight at a time */
		while (!few[0] && s + 8 <= n && cm_load8(reqs + s) == 0)
			s += 8;
		if (s >= n)
			break;
		unsigned rq = reqs[s];
		if (!few[rq] || !(fl[s] & 1))
			continue;
		int x = s % cols, y = s / cols;
		char req[96];
		describe_req((uint8_t)rq, req, sizeof req);
		if (a->copies[rq] == 0) {
			sq_report(c, "CM0501", x, y, "no tile of the deck fits square (%d,%d) in any rotation (%s)", x, y,
			          req);
			a->n_errors++;
		} else if (few_seen[rq]++ < few_listed) {
			if (drawn < 0)
				drawn = deck_drawn(dk);
			sq_report(c, "CM0502", x, y,
			          "only %d of the deck's %d tiles fit square (%d,%d) (%s): %d tile type%s, %d placement%s; "
			          "the threshold is %d",
			          a->copies[rq], drawn, x, y, req, a->types[rq], a->types[rq] == 1 ? "" : "s", a->pairs[rq],
			          a->pairs[rq] == 1 ? "" : "s", CM_CHECK_FEW_TILES);
		}
	}
	for (unsigned rq = 0; rq < 256; rq++) {
		if (few_seen[rq] <= few_listed)
			continue;
		char req[96];
		describe_req((uint8_t)rq, req, sizeof req);
		map_report(c, "CM0502", c->m->line, "deck",
		           "%d more squares (%s) are fitted by only %d of the deck's tiles, under the threshold of %d "
		           "(the first %d are listed)",
		           few_seen[rq] - few_listed, req, a->copies[rq], CM_CHECK_FEW_TILES, few_listed);
	}
	int st = cm_deck_start(dk);
	for (int i = 0; st >= 0 && i < cm__layout_start_count(l); i++) {
		int s = cm__layout_start_square(l, i);
		if (copies_at(a, l, s) == 0 || cm__deck_fit_req(dk, (size_t)st, cm__layout_printed_req(l, s)))
			continue;
		int x = s % cols, y = s / cols;
		char req[96];
		describe_req((uint8_t)cm__layout_printed_req(l, s), req, sizeof req);
		const cm_tile_type *tt = cm_deck_type(dk, (size_t)st);
		sq_report(c, "CM0505", x, y, "the start tile %s fits start square (%d,%d) in no rotation (%s)",
		          tt && tt->id ? tt->id : "?", x, y, req);
		a->n_errors++;
	}
}

/* CM0503, CM0504, CM0508. */
static void check_reach(const ctx *c, const cm__layout *l, analysis *a)
{
	const cm_map *m = c->m;
	bool *ferried = calloc(m->n_islands + 1, sizeof *ferried);
	if (!ferried)
		return;
	for (size_t f = 0; f < m->n_ferries; f++) {
		const cm_ferry *fr = &m->ferries[f];
		const int ex[2] = { fr->x1, fr->x2 }, ey[2] = { fr->y1, fr->y2 };
		const cm_side es[2] = { fr->s1, fr->s2 };
		for (int e = 0; e < 2; e++) {
			int s = ey[e] * m->cols + ex[e];
			if (cm__layout_island(l, s) >= 0)
				ferried[cm__layout_island(l, s)] = true;
			if (copies_at(a, l, s))
				continue;
			char what[96];
			if (fr->name)
				snprintf(what, sizeof what, "ferry %s", fr->name);
			else
				snprintf(what, sizeof what, "ferry %zu", f);
			map_report(c, "CM0508", fr->line, what,
			           "%s: no tile of the deck fits square (%d,%d) with a road on side %s, so no road continues "
			           "through the ferry",
			           what, ex[e], ey[e], cm_side_name(es[e]));
		}
	}
	for (size_t i = 0; i < m->n_islands; i++) {
		if (a->isl_open[i] || !ferried[i] || cm__layout_island_empty(l, (int)i))
			continue;
		const cm_island *is = &m->islands[i];
		char what[96];
		snprintf(what, sizeof what, "island %s", is->name ? is->name : "?");
		map_report(c, "CM0504", is->line, what,
		           "island %s is never connected: no ferry to it starts at a square that play can reach and "
		           "that takes a tile",
		           is->name ? is->name : "?");
		a->n_errors++;
	}
	const uint8_t *fl = cm__layout_playable_flags(l), *reqs = cm__layout_printed_reqs(l);
	for (int s = 0, n = cm__layout_squares(l); s < n; s++) {
		/* eight squares reached, or eight not playable */
		while (s + 8 <= n && (cm_load8(a->reach + s) == CM_BYTES8(1) || (cm_load8(fl + s) & CM_BYTES8(1)) == 0))
			s += 8;
		if (s >= n)
			break;
		/* copies_at(a, l, s) == 0: takes no tile */
		if (a->reach[s] || !(fl[s] & 1) || !a->takes[reqs[s]])
			continue;
		int isl = cm__layout_island(l, s);
		if (isl >= 0 && !a->isl_open[isl])
			continue; /* the island's diagnostic says it (CM0504, or CM0206) */
		int x = s % m->cols, y = s / m->cols;
		sq_report(c, "CM0503", x, y,
		          "square (%d,%d) cannot be reached from the start squares: no path of squares that take tiles, "
		          "big cities or ferries leads there",
		          x, y);
		a->n_errors++;
	}
	free(ferried);
}

/* CM0506, CM0507: the deck's drawn tiles (the start tile included). */
static void check_deck_size(const ctx *c, const cm__layout *l, const cm_deck *deck)
{
	const cm_map *m = c->m;
	int total = deck_drawn(deck);
	unsigned line = m->n_deck ? m->deck[0].line : m->line;
	if (total > cm__layout_playable_count(l))
		map_report(c, "CM0506", line, "deck", "the deck has %d tiles for %d squares that take tiles", total,
		           cm__layout_playable_count(l));
	const cm_setup *su = &m->setup;
	if ((su->tiles_min > 0 && total < su->tiles_min) || (su->tiles_max > 0 && total > su->tiles_max))
		map_report(c, "CM0507", su->line ? su->line : line, "setup",
		           "the deck has %d tiles, the recommended range is %d-%d", total, su->tiles_min,
		           su->tiles_max);
}

/* Engine failures have no check id: carry their messages over as CM0509. */
static void relay(const ctx *c, const cm_diags *q, const char *what)
{
	const cm_map *m = c->m;
	unsigned line = m->n_deck ? m->deck[0].line : m->line;
	for (size_t i = 0; i < cm_diags_count(q); i++) {
		const cm_diag *g = cm_diags_get(q, i);
		if (g->severity != CM_SEV_ERROR)
			continue;
		const char *msg = g->message ? g->message : "?";
		if (g->where && strcmp(g->where, what) != 0)
			map_report(c, "CM0509", line, what, "%s: %s", g->where, msg);
		else
			map_report(c, "CM0509", line, what, "%s", msg);
	}
}

/* ---- simulated games (CM06xx) ---- */

/* The printed elements the games never connected or completed (CM0605),
 * from the heatmap of the simulated games (balance_heat.c), and the
 * declared tile range against the one the deck-fitting criterion
 * recommends (CM0606; random play, at most CM_CHECK_FIT_GAMES games a
 * size: the mean fill of 40 games is within a point, and a map's check
 * stays a fraction of a second). */
static int elements_and_range(const ctx *c, const cm_deck *deck, const cm_play_opts *po, const cm_balance_heat *h)
{
	const cm_map *m = c->m;
	cm_balance_heat_findings(h, m, c->d);
	if (m->setup.tiles_min <= 0 || m->setup.tiles_max <= 0)
		return 0;
	cm_fit_opts fo;
	cm_fit_opts_init(&fo);
	fo.seats = po->seats;
	fo.seed = po->seed;
	fo.games = po->games < CM_CHECK_FIT_GAMES ? po->games : CM_CHECK_FIT_GAMES;
	fo.jobs = po->jobs;
	cm_fit *f = NULL;
	int rc = cm_fit_deck(m, deck, &fo, NULL, &f);
	if (!rc && cm_fit_far(f))
		map_report(c, "CM0606", m->setup.line, "setup",
		           "the declared range of %d-%d tiles is far from the %d-%d tiles whose random games fill "
		           "%.0f%% to %.0f%% of the %d playable squares (%d games a deck size)",
		           f->declared_min, f->declared_max, f->tiles_min, f->tiles_max, 100 * f->fill_low,
		           100 * f->fill_high, f->playable, f->games);
	cm_fit_free(f);
	return rc == CM_ENOMEM ? rc : 0;
}

static int simulate(const ctx *c, cm__layout *l, const cm_deck *deck, const cm_check_opts *o)
{
	const cm_map *m = c->m;
	int players = o->players >= 2 && o->players <= CM_MAX_PLAYERS ? o->players : 2;
	cm_play_stats *st = NULL;
	cm_balance_heat *h = NULL;
	cm_diags *q = NULL;
	if (cm_diags_new(&q))
		return CM_ENOMEM;
	cm_play_opts po;
	cm_play_opts_init(&po);
	po.seats = players;
	po.seed = o->seed;
	po.games = o->games;
	po.jobs = o->jobs;
	/* one set of games: their statistics and their heatmap; their boards
	 * read the rest of the layout */
	int rc = cm__layout_complete(l);
	if (rc == 0)
		rc = cm__heat_play_on(l, m, deck, &po, q, &st, &h);
	if (rc) {
		if (cm_diags_count(q))
			relay(c, q, "simulated games");
		else
			map_report(c, "CM0509", m->line, "simulated games", "simulated games failed (%s)", cm_strerror(rc));
		goto out;
	}
	int G = st->games, never = 0, rare = 0, listed = listed_max(o);
	double fill = cm_play_stats_fill(st);
	for (int s = 0; s < st->cols * st->rows; s++) {
		if (st->fill[s] < 0)
			continue;
		never += st->fill[s] == 0;
		if (cm__check_rare(st->fill[s], G) && rare++ < listed) {
			int x = s % st->cols, y = s / st->cols;
			sq_report(c, "CM0602", x, y, "square (%d,%d) was filled in %d of %d simulated games (threshold %d per mille)",
			          x, y, st->fill[s], G, CM_CHECK_RARE_PERMILLE);
		}
	}
	/* one cause (the games), so the first few squares and a count: a
	 * degenerate map would otherwise give a diagnostic per square */
	if (rare > listed)
		map_report(c, "CM0602", m->line, "simulated games",
		           "%d more squares were filled in fewer than %d per mille of %d simulated games (the first %d "
		           "are listed)",
		           rare - listed, CM_CHECK_RARE_PERMILLE, G, listed);
	map_report(c, "CM0601", m->line, "simulated games",
	           "%d games of %d players (seeds %llu-%llu): fill ratio %.3f, tiles placed %.2f per game "
	           "(and %.2f at setup), stranded tiles %.2f per game, squares never filled %d of %d",
	           G, players, (unsigned long long)o->seed, (unsigned long long)(o->seed + (uint64_t)G - 1), fill,
	           (double)st->tiles_placed / G, (double)st->setup_tiles / G, (double)st->stranded / G, never,
	           st->squares_playable);
	if (cm__check_low_fill(fill))
		map_report(c, "CM0603", m->line, "simulated games",
		           "the mean fill ratio over %d simulated games is %.3f, below %.3f", G, fill,
		           CM_CHECK_LOW_FILL_PERMILLE / 1000.0);
	int tiles = deck_drawn(deck);
	if (cm__check_stranding(st->stranded, G, tiles))
		map_report(c, "CM0604", m->line, "simulated games",
		           "stranded tiles: %.2f of the deck's %d tiles per game (threshold %d%%); %d of %d "
		           "games stranded some",
		           (double)st->stranded / G, tiles, CM_CHECK_STRAND_PERCENT, st->stranded_games, G);
	rc = elements_and_range(c, deck, &po, h);
out:
	cm_balance_heat_free(h);
	cm_play_stats_free(st);
	cm_diags_free(q);
	return rc == CM_ENOMEM ? rc : 0;
}

/* ---- the map ---- */

/* Whether every deck entry names a set (and tile) among sets: otherwise
 * the reader or the workspace reported it (CM0212, CM0213) and there is
 * no deck to check against. */
static bool deck_resolves(const cm_map *m, const cm_tileset *const *sets, size_t n_sets)
{
	cm_diags *q = NULL;
	if (cm_diags_new(&q))
		return false;
	bool ok = cm_map_check_deck(m, sets, n_sets, q) == 0;
	cm_diags_free(q);
	return ok;
}

int cm_check_map(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, const cm_check_opts *o,
                 cm_diags *d)
{
	cm_check_opts def;
	if (!o) {
		cm_check_opts_init(&def);
		o = &def;
	}
	size_t errors = cm_diags_errors(d);
	ctx c = { m, d, o };
	cm_deck *deck = NULL;
	cm__layout *l = NULL;
	cm_diags *q = NULL;
	analysis a = { 0 };
	int rc = 0;
	for (int i = 0; o->fits && i < m->cols * m->rows; i++)
		o->fits[i] = -1;
	if (o->structure && cm_map_check(m, sets, n_sets, d))
		goto out;
	if (!deck_resolves(m, sets, n_sets))
		goto out;
	if ((rc = cm_diags_new(&q)) != 0)
		goto out;
	rc = cm_deck_build(m, sets, n_sets, q, &deck);
	if (rc == 0)
		rc = cm__layout_new_reach(m, q, &l);
	if (rc == CM_ENOMEM)
		goto out;
	if (rc) {
		relay(&c, q, "deck");
		rc = 0;
		goto out;
	}
	size_t N = (size_t)cm__layout_squares(l) + 1;
	a.reach = cm_malloc_big(N, 1); /* written whole by the walk (a huge page for a million squares) */
	a.isl_open = calloc(m->n_islands + 1, 1);
	if (!a.reach || !a.isl_open) {
		rc = CM_ENOMEM;
		goto out;
	}
	check_fits(&c, l, deck, &a);
	for (int s = 0; o->fits && s < cm__layout_squares(l) && s < m->cols * m->rows; s++)
		if (cm__layout_playable(l, s))
			o->fits[s] = a.types[cm__layout_printed_req(l, s) & 255u];
	if ((rc = cm__layout_reach_req(l, a.takes, a.reach, a.isl_open)) != 0)
		goto out;
	check_reach(&c, l, &a);
	check_deck_size(&c, l, deck);
	if (o->games > 0 && a.n_errors == 0)
		rc = simulate(&c, l, deck, o);
out:
	analysis_free(&a);
	cm__layout_free(l);
	cm_deck_free(deck);
	cm_diags_free(q);
	if (rc == CM_ENOMEM)
		return rc;
	return cm_diags_errors(d) > errors ? CM_EINVAL : 0;
}

int cm_check_workspace(const cm_workspace *w, const cm_check_opts *o, cm_diags *d)
{
	cm_check_opts mo;
	if (o)
		mo = *o;
	else
		cm_check_opts_init(&mo);
	int rc = 0;
	for (size_t i = 0; i < cm_workspace_map_count(w); i++) {
		const cm_map *m = cm_workspace_map(w, i);
		const cm_tileset **sets = NULL;
		size_t n = 0;
		if (cm_workspace_map_sets(w, m, &sets, &n))
			return CM_ENOMEM;
		mo.structure = m->file == NULL;
		int r = cm_check_map(m, sets, n, &mo, d);
		free(sets);
		if (r == CM_ENOMEM)
			return r;
		if (r)
			rc = r;
	}
	return rc;
}
