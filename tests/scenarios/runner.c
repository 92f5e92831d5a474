/* SPDX-License-Identifier: MIT */
/* runner.c: the scenario runner. Every tests/scenarios/NAME.scn file (format:
 * schemas/scenario.md) is one cmocka test: it builds the map, tiles and
 * deck, then plays and checks the steps. A last test checks that every
 * rule id in the table below is named by at least one scenario. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/board.h"
#include "carcamap/play.h"
#include "carcamap/player.h"
#include "scenario.h"

/* RULES.md sections 1 to 4: each must appear in a "rule" line. */
static const char *const rule_table[] = {
	"BASE-FEATURES", "BASE-PLACE", "BASE-ROAD-DONE", "BASE-CITY-DONE",
	"BASE-MONASTERY-DONE", "BASE-OCCUPIED", "BASE-SCORE", "BASE-FINAL",
	"BASE-TILE-COUNT", "MAP-SQUARE", "MAP-START", "MAP-TILES", "MAP-BIGCITY",
	"MAP-TOWN", "MAP-EDGE-PRINT", "MAP-EDGE-NEUTRAL", "MAP-FERRY", "MAP-WAVES",
	"MAP-ISLAND", "MAP-LANDMARK", "MAP-HALF", "MAP-CHIPS-IGNORED", "MAP-COA",
	"MAP-BIGCITY-SCORE", "MAP-EDGE-DONE", "MAP-FERRY-SCORE", "MAP-MONASTERY-EDGE",
	"MAP-COUNTS", "MAP-FINAL", "MAP-FIELD-BIGCITY", "WAGON-DEPLOY", "WAGON-MOVE",
	"WAGON-C1", "WAGON-C2", "ABBEY-PLACE",
};

static const char *dir_path;
static char **files;
static size_t n_files;

typedef struct {
	const char *file;
	cm_scenario *scn;
	cm_deck *deck;
	cm_board *board;
	const cm_score_item *items;
	size_t n_items;
	char msg[512];
} run;

static void print_diags(cm_diags *d)
{
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		print_error("%s:%u: %s%s%s\n", g->file ? g->file : "", g->line, g->where ? g->where : "",
		            g->where ? ": " : "", g->message);
	}
}

static bool int_arg(const char *s, int *out)
{
	char *e;
	long v = strtol(s, &e, 10);
	if (!*s || *e)
		return false;
	*out = (int)v;
	return true;
}

static int tile_of(run *r, const char *id)
{
	return cm_deck_find(r->deck, id);
}

/* The feature index of FEATURE (a local id like r1, or a number) on the
 * tile or big-city piece on (x,y). */
static int feature_of(run *r, int x, int y, const char *id)
{
	int t, f;
	if (int_arg(id, &f))
		return f;
	if (cm_board_tile_at(r->board, x, y, &t, NULL) == 0)
		return cm_scenario_feature(cm_deck_type(r->deck, (size_t)t), id);
	const cm_map *m = r->scn->map;
	for (size_t c = 0; c < cm_map_bigcity_count(m); c++)
		for (size_t k = 0; k < cm_map_bigcity(m, c)->n_pieces; k++)
			if (cm_map_bigcity(m, c)->pieces[k].x == x && cm_map_bigcity(m, c)->pieces[k].y == y)
				return cm_scenario_feature(&cm_map_bigcity(m, c)->pieces[k].tile, id);
	return -1;
}

static bool parse_kind(const char *s, cm_item_type *type, cm_feature_kind *kind)
{
	*type = CM_ITEM_FEATURE;
	if (strcmp(s, "island") == 0) {
		*type = CM_ITEM_ISLAND;
		return true;
	}
	if (strcmp(s, "town-cost") == 0) {
		*type = CM_ITEM_TOWN_COST;
		return true;
	}
	return cm_feature_kind_parse(s, kind) == 0;
}

static bool players_arg(const char *s, unsigned *mask)
{
	*mask = 0;
	if (strcmp(s, "none") == 0)
		return true;
	for (const char *p = s; *p; p++) {
		if (*p == ',')
			continue;
		if (*p < '0' || *p > '5')
			return false;
		*mask |= 1u << (*p - '0');
	}
	return true;
}

/* "score KIND POINTS [tiles=N] [arms=N] [cities=N] [towns=N] [players=0,1]
 * [rule=ID] [complete=yes|no]": some item of the last scoring matches. */
static bool check_score(run *r, char **tok, int n)
{
	cm_item_type type;
	cm_feature_kind kind = CM_FEAT_ROAD;
	int pts;
	if (n < 3 || !parse_kind(tok[1], &type, &kind) || !int_arg(tok[2], &pts)) {
		snprintf(r->msg, sizeof r->msg, "score needs KIND POINTS");
		return false;
	}
	for (size_t i = 0; i < r->n_items; i++) {
		const cm_score_item *it = &r->items[i];
		if (it->type != type || (type == CM_ITEM_FEATURE && it->kind != kind) || it->points != pts)
			continue;
		bool ok = true;
		for (int k = 3; k < n && ok; k++) {
			char *eq = strchr(tok[k], '=');
			int v = 0;
			unsigned mask;
			if (!eq) {
				ok = false;
				continue;
			}
			const char *val = eq + 1;
			size_t kl = (size_t)(eq - tok[k]);
			if (kl == 5 && strncmp(tok[k], "tiles", 5) == 0)
				ok = int_arg(val, &v) && it->tiles == v;
			else if (kl == 4 && strncmp(tok[k], "arms", 4) == 0)
				ok = int_arg(val, &v) && it->arms == v;
			else if (kl == 6 && strncmp(tok[k], "cities", 6) == 0)
				ok = int_arg(val, &v) && it->cities == v;
			else if (kl == 5 && strncmp(tok[k], "towns", 5) == 0)
				ok = int_arg(val, &v) && it->towns == v;
			else if (kl == 7 && strncmp(tok[k], "players", 7) == 0)
				ok = players_arg(val, &mask) && it->players == mask;
			else if (kl == 4 && strncmp(tok[k], "rule", 4) == 0)
				ok = it->rule && strcmp(it->rule, val) == 0;
			else if (kl == 8 && strncmp(tok[k], "complete", 8) == 0)
				ok = it->complete == (strcmp(val, "yes") == 0);
			else
				ok = false;
		}
		if (ok)
			return true;
	}
	int w = snprintf(r->msg, sizeof r->msg, "no score item matches; items:");
	for (size_t i = 0; i < r->n_items && w < (int)sizeof r->msg; i++) {
		const cm_score_item *it = &r->items[i];
		w += snprintf(r->msg + w, sizeof r->msg - (size_t)w,
		              "\n    %s %d tiles=%d arms=%d cities=%d towns=%d players=%#x rule=%s (%d,%d)",
		              it->type == CM_ITEM_FEATURE ? cm_feature_kind_name(it->kind)
		              : it->type == CM_ITEM_ISLAND ? "island" : "town-cost",
		              it->points, it->tiles, it->arms, it->cities, it->towns, it->players,
		              it->rule ? it->rule : "", it->x, it->y);
	}
	return false;
}

static bool check_feature(run *r, char **tok, int n, int want_complete)
{
	int x, y;
	if (n < 4 || !int_arg(tok[1], &x) || !int_arg(tok[2], &y)) {
		snprintf(r->msg, sizeof r->msg, "%s needs X Y FEATURE", tok[0]);
		return false;
	}
	int f = feature_of(r, x, y, tok[3]);
	cm_feature_info fi;
	if (f < 0 || cm_board_feature(r->board, x, y, f, &fi) < 0) {
		snprintf(r->msg, sizeof r->msg, "no feature %s on (%d,%d)", tok[3], x, y);
		return false;
	}
	if (want_complete >= 0 && fi.complete != (want_complete == 1)) {
		snprintf(r->msg, sizeof r->msg, "feature %s on (%d,%d) is %s (open %d)", tok[3], x, y,
		         fi.complete ? "complete" : "open", fi.open);
		return false;
	}
	for (int k = 4; k < n; k++) {
		int v;
		char *eq = strchr(tok[k], '=');
		if (!eq || !int_arg(eq + 1, &v)) {
			snprintf(r->msg, sizeof r->msg, "bad attribute %s", tok[k]);
			return false;
		}
		*eq = '\0';
		int got;
		if (strcmp(tok[k], "tiles") == 0)
			got = fi.tiles;
		else if (strcmp(tok[k], "arms") == 0)
			got = fi.arms;
		else if (strcmp(tok[k], "open") == 0)
			got = fi.open;
		else if (strncmp(tok[k], "followers", 9) == 0 && tok[k][9] >= '0' && tok[k][9] <= '5')
			got = fi.followers[tok[k][9] - '0'];
		else {
			snprintf(r->msg, sizeof r->msg, "unknown attribute %s", tok[k]);
			*eq = '=';
			return false;
		}
		*eq = '=';
		if (got != v) {
			snprintf(r->msg, sizeof r->msg, "feature %s on (%d,%d): %s is %d, expected %d", tok[3], x,
			         y, tok[k], got, v);
			return false;
		}
	}
	return true;
}

/* Parses "TILE X Y ROT" at tok[1..4]. */
static bool placement(run *r, char **tok, int n, int *t, int *x, int *y, int *rot)
{
	if (n < 5 || !int_arg(tok[2], x) || !int_arg(tok[3], y) || !int_arg(tok[4], rot)) {
		snprintf(r->msg, sizeof r->msg, "%s needs TILE X Y ROT", tok[0]);
		return false;
	}
	*t = tile_of(r, tok[1]);
	if (*t < 0) {
		snprintf(r->msg, sizeof r->msg, "unknown tile %s", tok[1]);
		return false;
	}
	return true;
}

static bool put(run *r, char **tok, int n)
{
	int t, x, y, rot;
	if (!placement(r, tok, n, &t, &x, &y, &rot))
		return false;
	int rc = cm_board_place(r->board, t, x, y, rot);
	if (rc < 0) {
		snprintf(r->msg, sizeof r->msg, "placing %s on (%d,%d) rotation %d failed: %s", tok[1], x, y,
		         rot, cm_strerror(rc));
		return false;
	}
	return true;
}

static bool end_turn(run *r)
{
	if (cm_board_end_turn(r->board, &r->items, &r->n_items) < 0) {
		snprintf(r->msg, sizeof r->msg, "no turn to end");
		return false;
	}
	return true;
}

static bool deploy(run *r, int x, int y, const char *fid, cm_follower_kind kind)
{
	int f = feature_of(r, x, y, fid);
	if (f < 0 || cm_board_deploy(r->board, f, kind) < 0) {
		snprintf(r->msg, sizeof r->msg, "cannot deploy a %s on %s",
		         kind == CM_FOLLOWER_WAGON ? "wagon" : "meeple", fid);
		return false;
	}
	return true;
}

/* "[on FEATURE] [wagon FEATURE]" from tok[i0] on: deploy on the tile just
 * placed on (x,y) ("by" pairs are skipped). */
static bool deploy_args(run *r, char **tok, int n, int i0, int x, int y)
{
	for (int i = i0; i + 1 < n; i += 2) {
		if (strcmp(tok[i], "on") == 0 && !deploy(r, x, y, tok[i + 1], CM_FOLLOWER_MEEPLE))
			return false;
		if (strcmp(tok[i], "wagon") == 0 && !deploy(r, x, y, tok[i + 1], CM_FOLLOWER_WAGON))
			return false;
	}
	return true;
}

static void by_arg(run *r, char **tok, int n, int i0)
{
	int k;
	for (int i = i0; i + 1 < n; i += 2)
		if (strcmp(tok[i], "by") == 0 && int_arg(tok[i + 1], &k))
			cm_board_set_current(r->board, k);
}

/* "X Y FEATURE" at tok[1..3]: a piece on the board. */
static bool piece_arg(run *r, char **tok, int n, int *x, int *y, int *f)
{
	if (n < 4 || !int_arg(tok[1], x) || !int_arg(tok[2], y) || (*f = feature_of(r, *x, *y, tok[3])) < 0) {
		snprintf(r->msg, sizeof r->msg, "%s needs X Y FEATURE of a tile on the board", tok[0]);
		return false;
	}
	return true;
}

static const char *via_name(cm_wagon_via v)
{
	return v == CM_WAGON_VIA_CONTACT ? "contact" : v == CM_WAGON_VIA_ABBEY ? "abbey" : "range";
}

/* The wagon steps (WAGON-*), and the abbey steps (ABBEY-PLACE); -1 when
 * the verb is none of them. */
static int wagon_step(run *r, char **tok, int n)
{
	const char *v = tok[0];
	int x, y, f, k, p;
	if (strcmp(v, "abbey") == 0) { /* abbey X Y [on F] [wagon F] [by P] */
		if (n < 3 || !int_arg(tok[1], &x) || !int_arg(tok[2], &y)) {
			snprintf(r->msg, sizeof r->msg, "abbey needs X Y");
			return false;
		}
		by_arg(r, tok, n, 3);
		if (cm_board_place_abbey(r->board, x, y) < 0) {
			snprintf(r->msg, sizeof r->msg, "placing an abbey on (%d,%d) failed", x, y);
			return false;
		}
		return deploy_args(r, tok, n, 3, x, y) && end_turn(r);
	}
	if (strcmp(v, "abbey-legal") == 0 || strcmp(v, "abbey-illegal") == 0) {
		if (n != 3 || !int_arg(tok[1], &x) || !int_arg(tok[2], &y))
			return false;
		bool want = strcmp(v, "abbey-legal") == 0, got = cm_board_abbey_legal(r->board, x, y);
		if (got != want)
			snprintf(r->msg, sizeof r->msg, "an abbey on (%d,%d) is %s", x, y, got ? "legal" : "illegal");
		return got == want;
	}
	if (strcmp(v, "abbeys") == 0 || strcmp(v, "wagons") == 0) { /* abbeys P N, wagons P N */
		if (n != 3 || !int_arg(tok[1], &p) || !int_arg(tok[2], &k))
			return false;
		int got = v[0] == 'a' ? cm_board_abbeys(r->board, p) : cm_board_wagons(r->board, p);
		if (got != k)
			snprintf(r->msg, sizeof r->msg, "player %d holds %d %s, expected %d", p, got, v, k);
		return got == k;
	}
	if (strcmp(v, "wagon-spots") == 0) {
		int sp[64];
		size_t got = cm_board_spots(r->board, CM_FOLLOWER_WAGON, sp, 64);
		x = y = -1;
		cm_board_last_placed(r->board, &x, &y);
		bool ok = got == (size_t)(n - 1);
		for (int i = 1; i < n && ok; i++) {
			bool found = false;
			for (size_t j = 0; j < got; j++)
				found |= sp[j] == feature_of(r, x, y, tok[i]);
			ok = found;
		}
		if (!ok)
			snprintf(r->msg, sizeof r->msg, "wagon spots differ: %zu spots", got);
		return ok;
	}
	if (strcmp(v, "wagon-pending") == 0) { /* wagon-pending P X Y | none */
		cm_wagon_pending w;
		int got = cm_board_wagon_pending(r->board, &w);
		if (n == 2 && strcmp(tok[1], "none") == 0) {
			if (got)
				snprintf(r->msg, sizeof r->msg, "%d wagons wait, player %d's first", got, w.player);
			return got == 0;
		}
		if (n != 4 || !int_arg(tok[1], &p) || !int_arg(tok[2], &x) || !int_arg(tok[3], &y))
			return false;
		if (!got || w.player != p || w.x != x || w.y != y) {
			snprintf(r->msg, sizeof r->msg, "waiting: %d wagons, first player %d on (%d,%d)", got,
			         got ? w.player : -1, got ? w.x : -1, got ? w.y : -1);
			return false;
		}
		return true;
	}
	if (strcmp(v, "wagon-moves") == 0) { /* wagon-moves N */
		if (n != 2 || !int_arg(tok[1], &k))
			return false;
		cm_wagon_dest dv[64];
		size_t got = cm_board_wagon_moves(r->board, dv, 64);
		if ((int)got != k) {
			int w = snprintf(r->msg, sizeof r->msg, "%zu wagon destinations, expected %d:", got, k);
			for (size_t i = 0; i < got && i < 64 && w < (int)sizeof r->msg; i++)
				w += snprintf(r->msg + w, sizeof r->msg - (size_t)w, " (%d,%d) %d", dv[i].x, dv[i].y,
				              dv[i].feature);
		}
		return (int)got == k;
	}
	if (strcmp(v, "wagon-ok") == 0 || strcmp(v, "wagon-refused") == 0) {
		/* wagon-ok X Y F [via=contact|abbey|range] / wagon-refused X Y F REASON */
		if (!piece_arg(r, tok, n, &x, &y, &f))
			return false;
		cm_wagon_why why;
		cm_wagon_dest how;
		if (cm_board_wagon_why(r->board, x, y, f, &why, &how) < 0) {
			snprintf(r->msg, sizeof r->msg, "no wagon waits, or no feature %s on (%d,%d)", tok[3], x, y);
			return false;
		}
		bool ok;
		if (strcmp(v, "wagon-ok") == 0) {
			ok = why == CM_WAGON_ALLOWED;
			if (ok && n == 5 && strncmp(tok[4], "via=", 4) == 0)
				ok = strcmp(tok[4] + 4, via_name(how.via)) == 0;
			if (!ok)
				snprintf(r->msg, sizeof r->msg, "%s on (%d,%d): %s%s%s", tok[3], x, y,
				         cm_wagon_why_name(why), why ? "" : " via ", why ? "" : via_name(how.via));
		} else {
			ok = n == 5 && strcmp(tok[4], cm_wagon_why_name(why)) == 0;
			if (!ok)
				snprintf(r->msg, sizeof r->msg, "%s on (%d,%d) is %s, expected %s", tok[3], x, y,
				         cm_wagon_why_name(why), n == 5 ? tok[4] : "a reason");
		}
		return ok;
	}
	if (strcmp(v, "wagon-move") == 0 || strcmp(v, "wagon-return") == 0) {
		f = -1;
		x = y = 0;
		if (strcmp(v, "wagon-move") == 0 && !piece_arg(r, tok, n, &x, &y, &f))
			return false;
		if (cm_board_wagon_move(r->board, x, y, f) < 0) {
			snprintf(r->msg, sizeof r->msg, "%s refused", v);
			return false;
		}
		return true;
	}
	if (strcmp(v, "use") == 0) { /* use NAME=VALUE…: the board's rule options from here on */
		cm_rules ru = *cm_board_rules(r->board);
		unsigned given = 0;
		for (int i = 1; i < n; i++) {
			char *eq = strchr(tok[i], '=');
			if (!eq) {
				snprintf(r->msg, sizeof r->msg, "use needs NAME=VALUE");
				return false;
			}
			*eq = '\0';
			int rc = cm_rules_set(&ru, &given, tok[i], eq + 1);
			*eq = '=';
			if (rc < 0) {
				snprintf(r->msg, sizeof r->msg, "unknown rule option or value %s", tok[i]);
				return false;
			}
		}
		cm_board_set_rules(r->board, &ru);
		return true;
	}
	return -1;
}

/* The deck's abbey tile type (the first with an abbey), or -1. */
static int abbey_type(const run *r)
{
	for (size_t t = 0; t < cm_deck_types(r->deck); t++) {
		const cm_tile_type *tt = cm_deck_type(r->deck, t);
		for (size_t f = 0; f < tt->n_features; f++)
			if (tt->features[f].kind == CM_FEAT_ABBEY)
				return (int)t;
	}
	return -1;
}

/* "choose SPEC TILE X Y ROT [on FEATURE|wagon FEATURE|none]": player SPEC,
 * asked for the current player with TILE drawn (a generator seeded with
 * the scenario's seed), chooses that placement (and that follower); with
 * avoid: it does not choose that placement. "choose SPEC abbey X Y
 * [...]" and "choose SPEC pass": asked the abbey question (no tile shown:
 * before the draw, or after the last tile), it places the abbey on (X,Y)
 * (and that follower), or declines; "avoid SPEC abbey X Y": it does not
 * place it there. Nothing is played. */
static bool choose_step(run *r, char **tok, int n, bool avoid)
{
	int t = -1, x = 0, y = 0, rot = 0, feature = -2, at = 6; /* at: the follower's words */
	cm_follower_kind kind = CM_FOLLOWER_MEEPLE;
	cm_choice_kind want = CM_CHOICE_TILE;
	if (n >= 3 && strcmp(tok[2], "pass") == 0) {
		want = CM_CHOICE_PASS;
		at = 3;
	} else if (n >= 3 && strcmp(tok[2], "abbey") == 0) {
		want = CM_CHOICE_ABBEY;
		at = 5;
	}
	bool ok_args = want == CM_CHOICE_PASS ? !avoid && n == 3
	             : want == CM_CHOICE_ABBEY ? n >= 5 && int_arg(tok[3], &x) && int_arg(tok[4], &y)
	                                       : n >= 6 && (t = tile_of(r, tok[2])) >= 0 && int_arg(tok[3], &x) &&
	                                                 int_arg(tok[4], &y) && int_arg(tok[5], &rot);
	if (!ok_args || (avoid && n != at)) {
		snprintf(r->msg, sizeof r->msg, "%s needs SPEC TILE X Y ROT, SPEC abbey X Y or SPEC pass",
		         avoid ? "avoid" : "choose");
		return false;
	}
	if (n == at + 1 && strcmp(tok[at], "none") == 0) {
		feature = -1;
	} else if (n == at + 2 && (strcmp(tok[at], "on") == 0 || strcmp(tok[at], "wagon") == 0)) {
		int tt = t >= 0 ? t : abbey_type(r);
		kind = tok[at][0] == 'w' ? CM_FOLLOWER_WAGON : CM_FOLLOWER_MEEPLE;
		if (!int_arg(tok[at + 1], &feature))
			feature = tt < 0 ? -1 : cm_scenario_feature(cm_deck_type(r->deck, (size_t)tt), tok[at + 1]);
	} else if (n != at) {
		snprintf(r->msg, sizeof r->msg, "choose takes on FEATURE, wagon FEATURE or none");
		return false;
	}
	cm_player *p = NULL;
	if (cm_player_new_from_spec(tok[1], &p) < 0) {
		snprintf(r->msg, sizeof r->msg, "no player %s", tok[1]);
		return false;
	}
	cm_rng rng;
	cm_rng_seed(&rng, r->scn->seed);
	cm_choice c;
	memset(&c, 0, sizeof c);
	int rc = cm_player_choose(p, r->board, t, &rng, &c);
	cm_player_free(p);
	bool same = rc == 0 && c.kind == want &&
	            (want == CM_CHOICE_PASS || (c.x == x && c.y == y && (want == CM_CHOICE_ABBEY || c.rot == rot)));
	bool ok = avoid ? rc == 0 && !same
	                : same && (feature == -2 || (c.feature == feature && (feature < 0 || c.follower == kind)));
	static const char *const kinds[] = { "the tile on", "the abbey on", "a wagon to", "a pass" };
	if (!ok)
		snprintf(r->msg, sizeof r->msg, "%s chose %s (%d,%d) rotation %d, %s on feature %d (rc %d)", tok[1],
		         (unsigned)c.kind <= CM_CHOICE_PASS ? kinds[c.kind] : "?", c.x, c.y, c.rot,
		         c.follower == CM_FOLLOWER_WAGON ? "wagon" : "meeple", c.feature, rc);
	return ok;
}

static bool step(run *r, const cm_scenario_line *st)
{
	char **tok = st->tok;
	int n = st->n_tok;
	const char *v = tok[0];
	int t, x, y, rot, k;
	if (strcmp(v, "start") == 0) {
		if (!placement(r, tok, n, &t, &x, &y, &rot))
			return false;
		if (cm_board_place_setup(r->board, t, x, y, rot) < 0) {
			snprintf(r->msg, sizeof r->msg, "setup tile %s cannot go on (%d,%d)", tok[1], x, y);
			return false;
		}
		return true;
	}
	if (strcmp(v, "place") == 0) {
		/* place TILE X Y ROT [on FEATURE] [wagon FEATURE] [by PLAYER] */
		by_arg(r, tok, n, 5);
		if (!put(r, tok, n))
			return false;
		x = y = 0;
		int_arg(tok[2], &x);
		int_arg(tok[3], &y);
		return deploy_args(r, tok, n, 5, x, y) && end_turn(r);
	}
	if (strcmp(v, "put") == 0)
		return put(r, tok, n);
	if (strcmp(v, "deploy") == 0 || strcmp(v, "nodeploy") == 0) {
		/* deploy X Y FEATURE [wagon] */
		if (n < 4 || n > 5 || !int_arg(tok[1], &x) || !int_arg(tok[2], &y) ||
		    (n == 5 && strcmp(tok[4], "wagon") != 0)) {
			snprintf(r->msg, sizeof r->msg, "%s needs X Y FEATURE [wagon]", v);
			return false;
		}
		bool ok = deploy(r, x, y, tok[3], n == 5 ? CM_FOLLOWER_WAGON : CM_FOLLOWER_MEEPLE);
		if (strcmp(v, "nodeploy") == 0) {
			if (ok)
				snprintf(r->msg, sizeof r->msg, "deploying on %s should be refused", tok[3]);
			return !ok;
		}
		return ok;
	}
	if (strcmp(v, "end") == 0)
		return end_turn(r);
	if (strcmp(v, "turn") == 0) { /* turn P: P is to move */
		if (n != 2 || !int_arg(tok[1], &k))
			return false;
		if (cm_board_current(r->board) != k)
			snprintf(r->msg, sizeof r->msg, "player %d is to move, expected %d",
			         cm_board_current(r->board), k);
		return cm_board_current(r->board) == k;
	}
	if (strcmp(v, "player") == 0) {
		if (n != 2 || !int_arg(tok[1], &k))
			return false;
		cm_board_set_current(r->board, k);
		return true;
	}
	if (strcmp(v, "legal") == 0 || strcmp(v, "illegal") == 0) {
		if (!placement(r, tok, n, &t, &x, &y, &rot))
			return false;
		bool want = strcmp(v, "legal") == 0, got = cm_board_legal(r->board, t, x, y, rot);
		if (got != want)
			snprintf(r->msg, sizeof r->msg, "%s on (%d,%d) rotation %d is %s", tok[1], x, y, rot,
			         got ? "legal" : "illegal");
		return got == want;
	}
	if (strcmp(v, "placements") == 0) { /* placements TILE N */
		if (n != 3 || (t = tile_of(r, tok[1])) < 0 || !int_arg(tok[2], &k))
			return false;
		size_t got = cm_board_placements(r->board, t, NULL, 0);
		if ((int)got != k)
			snprintf(r->msg, sizeof r->msg, "%s has %zu legal placements, expected %d", tok[1], got, k);
		return (int)got == k;
	}
	if (strcmp(v, "open") == 0 || strcmp(v, "closed") == 0) {
		if (n != 3 || !int_arg(tok[1], &x) || !int_arg(tok[2], &y))
			return false;
		bool want = strcmp(v, "open") == 0, got = cm_board_open_square(r->board, x, y);
		if (got != want)
			snprintf(r->msg, sizeof r->msg, "square (%d,%d) is %s", x, y, got ? "open" : "closed");
		return got == want;
	}
	if (strcmp(v, "complete") == 0)
		return check_feature(r, tok, n, 1);
	if (strcmp(v, "incomplete") == 0)
		return check_feature(r, tok, n, 0);
	if (strcmp(v, "feature") == 0)
		return check_feature(r, tok, n, -1);
	if (strcmp(v, "spots") == 0) { /* spots FEATURE… : exactly these */
		int sp[64];
		size_t got = cm_board_spots(r->board, CM_FOLLOWER_MEEPLE, sp, 64);
		int lx = -1, ly = -1;
		cm_board_last_placed(r->board, &lx, &ly);
		bool ok = got == (size_t)(n - 1);
		for (int i = 1; i < n && ok; i++) {
			int f = feature_of(r, lx, ly, tok[i]);
			bool found = false;
			for (size_t j = 0; j < got; j++)
				found |= sp[j] == f;
			ok = found;
		}
		if (!ok)
			snprintf(r->msg, sizeof r->msg, "spots differ: %zu spots", got);
		return ok;
	}
	if (strcmp(v, "score") == 0)
		return check_score(r, tok, n);
	if (strcmp(v, "items") == 0) {
		if (n != 2 || !int_arg(tok[1], &k))
			return false;
		if ((int)r->n_items != k)
			snprintf(r->msg, sizeof r->msg, "%zu score items, expected %d", r->n_items, k);
		return (int)r->n_items == k;
	}
	if (strcmp(v, "scores") == 0) {
		for (int p = 0; p + 1 < n; p++) {
			if (!int_arg(tok[p + 1], &k))
				return false;
			if (cm_board_score(r->board, p) != k) {
				snprintf(r->msg, sizeof r->msg, "player %d has %d points, expected %d", p,
				         cm_board_score(r->board, p), k);
				return false;
			}
		}
		return true;
	}
	if (strcmp(v, "supply") == 0) {
		int p;
		if (n != 3 || !int_arg(tok[1], &p) || !int_arg(tok[2], &k))
			return false;
		if (cm_board_supply(r->board, p) != k)
			snprintf(r->msg, sizeof r->msg, "player %d has %d followers, expected %d", p,
			         cm_board_supply(r->board, p), k);
		return cm_board_supply(r->board, p) == k;
	}
	if (strcmp(v, "final") == 0) {
		if (cm_board_final(r->board, &r->items, &r->n_items) < 0) {
			snprintf(r->msg, sizeof r->msg, "final scoring refused");
			return false;
		}
		return true;
	}
	if (strcmp(v, "setup-tiles") == 0) { /* setup-tiles N: tiles on start squares */
		if (n != 2 || !int_arg(tok[1], &k))
			return false;
		int got = cm_board_stats(r->board)->setup_tiles, on_start = 0;
		const cm_map *m = r->scn->map;
		for (int yy = 0; yy < cm_map_rows(m); yy++)
			for (int xx = 0; xx < cm_map_cols(m); xx++)
				if (cm_board_tile_at(r->board, xx, yy, NULL, NULL) == 0 &&
				    cm_map_at(m, xx, yy)->kind == CM_SQ_START)
					on_start++;
		if (got != k || on_start != k)
			snprintf(r->msg, sizeof r->msg, "%d setup tiles, %d on start squares, expected %d", got,
			         on_start, k);
		return got == k && on_start == k;
	}
	if (strcmp(v, "pile") == 0) {
		if (n != 2 || !int_arg(tok[1], &k))
			return false;
		if (cm_board_pile(r->board) != k)
			snprintf(r->msg, sizeof r->msg, "%d tiles in the pile, expected %d", cm_board_pile(r->board), k);
		return cm_board_pile(r->board) == k;
	}
	if (strcmp(v, "draw") == 0) { /* draw TILE|none [stranded=N] */
		int got = -1;
		int rc = cm_board_draw(r->board, &got);
		bool ok = n >= 2 && (strcmp(tok[1], "none") == 0 ? rc < 0 : rc == 0 && got == tile_of(r, tok[1]));
		if (ok && n == 3 && strncmp(tok[2], "stranded=", 9) == 0 && int_arg(tok[2] + 9, &k))
			ok = cm_board_stats(r->board)->stranded == k;
		if (!ok)
			snprintf(r->msg, sizeof r->msg, "draw gave %s, stranded %d",
			         rc < 0 ? "none" : cm_deck_type(r->deck, (size_t)got)->id,
			         cm_board_stats(r->board)->stranded);
		return ok;
	}
	if (strcmp(v, "choose") == 0 || strcmp(v, "avoid") == 0)
		return choose_step(r, tok, n, v[0] == 'a');
	int w = wagon_step(r, tok, n);
	if (w >= 0)
		return w == 1;
	snprintf(r->msg, sizeof r->msg, "unknown step %s", v);
	return false;
}

static void run_scenario(void **state)
{
	const char *path = *state;
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	run r;
	memset(&r, 0, sizeof r);
	r.file = path;
	int rc = cm_scenario_read_file(path, d, &r.scn);
	if (rc == 0)
		rc = cm_deck_build(r.scn->map, (const cm_tileset *const *)r.scn->sets, r.scn->n_sets, d, &r.deck);
	if (rc == 0)
		rc = cm_board_new(r.scn->map, r.deck, NULL, r.scn->players, r.scn->seed, r.scn->flags, d,
		                  &r.board);
	if (rc < 0)
		print_diags(d);
	bool ok = rc == 0;
	if (ok && r.scn->n_rule_ids == 0) {
		print_error("%s: names no rule (add a \"rule ID\" line)\n", path);
		ok = false;
	}
	for (size_t i = 0; ok && i < r.scn->n_steps; i++) {
		if (!step(&r, &r.scn->steps[i])) {
			print_error("%s:%u: %s: %s\n", path, r.scn->steps[i].line, r.scn->steps[i].tok[0], r.msg);
			ok = false;
		}
	}
	cm_board_free(r.board);
	cm_deck_free(r.deck);
	cm_scenario_free(r.scn);
	cm_diags_free(d);
	if (!ok)
		fail();
}

static void rules_covered(void **state)
{
	(void)state;
	size_t n = sizeof rule_table / sizeof rule_table[0];
	bool *seen = calloc(n, sizeof *seen);
	cm_diags *d = NULL;
	assert_non_null(seen);
	assert_int_equal(cm_diags_new(&d), 0);
	for (size_t i = 0; i < n_files; i++) {
		cm_scenario *s = NULL;
		if (cm_scenario_read_file(files[i], d, &s) < 0)
			continue; /* its own test reports it */
		for (size_t k = 0; k < s->n_rule_ids; k++) {
			bool known = false;
			for (size_t j = 0; j < n; j++)
				if (strcmp(rule_table[j], s->rule_ids[k]) == 0)
					seen[j] = known = true;
			if (!known)
				print_error("%s: unknown rule id %s\n", files[i], s->rule_ids[k]);
		}
		cm_scenario_free(s);
	}
	size_t missing = 0;
	for (size_t j = 0; j < n; j++)
		if (!seen[j]) {
			print_error("rule %s is covered by no scenario\n", rule_table[j]);
			missing++;
		}
	free(seen);
	cm_diags_free(d);
	assert_int_equal(missing, 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	dir_path = argc > 1 ? argv[1] : "tests/scenarios";
	DIR *dir = opendir(dir_path);
	if (!dir) {
		fprintf(stderr, "scenario_runner: cannot open %s\n", dir_path);
		return 1;
	}
	struct dirent *e;
	size_t cap = 0;
	while ((e = readdir(dir))) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".scn") != 0)
			continue;
		if (n_files == cap) {
			cap = cap ? 2 * cap : 64;
			files = realloc(files, cap * sizeof *files);
			if (!files)
				return 1;
		}
		size_t pl = strlen(dir_path) + l + 2;
		files[n_files] = malloc(pl);
		if (!files[n_files])
			return 1;
		snprintf(files[n_files++], pl, "%s/%s", dir_path, e->d_name);
	}
	closedir(dir);
	qsort(files, n_files, sizeof *files, cmp_str);
	struct CMUnitTest *tests = calloc(n_files + 1, sizeof *tests);
	if (!tests)
		return 1;
	for (size_t i = 0; i < n_files; i++) {
		const char *slash = strrchr(files[i], '/');
		tests[i].name = slash ? slash + 1 : files[i];
		tests[i].test_func = run_scenario;
		tests[i].initial_state = files[i];
	}
	tests[n_files].name = "rules_covered";
	tests[n_files].test_func = rules_covered;
	int rc = _cmocka_run_group_tests("scenarios", tests, n_files + 1, NULL, NULL);
	for (size_t i = 0; i < n_files; i++)
		free(files[i]);
	free(files);
	free(tests);
	return rc;
}
