/* SPDX-License-Identifier: MIT */
/* cmd_rules.c: `carcamap rules`: answers one rules question on the board
 * state a replay reaches (after all its moves, or the first K): the legal
 * placements of a tile with their follower spots, the joined features on a
 * square, the final scoring if the game ended now, where a waiting wagon
 * may go and why a feature is refused, or what the library's players would
 * do next and why (--advise); as text or JSON (schemas/rules-json.md). All
 * game logic is the library's. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "carcamap/stats.h"

#define MAX_COORD (1L << 20)

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap rules [options] REPLAY (MAP.xml | PACK [--map ID]) [TILESETS...]\n"
	        "         (--legal TILE | --square X,Y | --score | --wagon | --why X,Y,F | --advise)\n"
	        "\n"
	        "Plays a replay (schemas/replay.md) back on its map and answers one\n"
	        "question on the board it reaches, before any final scoring:\n"
	        "  --legal TILE   every legal placement of tile type TILE for the player to\n"
	        "                 move (square, rotation) with the features a follower could\n"
	        "                 take there\n"
	        "  --square X,Y   the tile or printed big city on square (X,Y) and, per\n"
	        "                 feature, the joined feature it belongs to: kind, tiles,\n"
	        "                 open edges, complete, coats of arms, followers per player\n"
	        "  --score        the final scoring if the game ended now: every scoring\n"
	        "                 item with its reason, and the scores before and after\n"
	        "  --wagon        the wagon waiting to move after move K (its feature\n"
	        "                 scored) and every destination, with what makes it\n"
	        "                 adjacent: a contact (C1) or the range (C2/C3)\n"
	        "  --why X,Y,F    whether that waiting wagon may go to feature index F of\n"
	        "                 the tile on (X,Y), and why not\n"
	        "  --advise       what the library's players would do next on that board:\n"
	        "                 with the next tile of the pile (or --tile), the waiting\n"
	        "                 wagon, or the abbey after the last tile; each player's\n"
	        "                 choice and the values it saw for its best choices\n"
	        "\n"
	        "Options:\n"
	        "  --moves K          the state after the first K moves (default: all)\n"
	        "  --edition ED       judge by edition ED's rules (C1, C2, C3) instead of\n"
	        "                     the replay's (wagon moves differ: WAGON-C1/C2)\n"
	        "  --tile TILE        --advise: weigh this tile instead of the pile's next\n"
	        "  --players P        --advise: the players to ask, comma-separated (random,\n"
	        "                     greedy, mcts, mcts:N; default greedy,mcts: the ones\n"
	        "                     this build has)\n"
	        "  --top N            --advise: show the N best choices, 1..100 (default 5)\n"
	        "  --format FMT       text (default) or json (schemas/rules-json.md)\n"
	        "  --map ID           the map (default: the only one, else the replay's)\n"
	        "  --printing ED      the printing of the board, C2 or C3 (maps/README.md:\n"
	        "                     a descriptor may describe both; default: its first)\n"
	        "  -T, --tilesets DIR search DIR for the tile sets the deck names\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap play maps/benelux/benelux.xml --games 1 --replay game.txt\n"
	        "  carcamap rules game.txt maps/benelux/benelux.xml --moves 10 --legal E\n"
	        "  carcamap rules game.txt maps/benelux/benelux.xml --square 4,7 --format json\n"
	        "  carcamap rules game.txt maps/benelux/benelux.xml --moves 31 --wagon --edition C1\n"
	        "  carcamap rules game.txt maps/benelux/benelux.xml --moves 40 --advise\n"
	        "\n"
	        "Exit status: 0 answered, 1 problems in the input (a replay that does not\n"
	        "apply), 2 usage error, 3 I/O or internal failure.\n");
}

typedef enum { Q_NONE = 0, Q_LEGAL, Q_SQUARE, Q_SCORE, Q_WAGON, Q_WHY, Q_ADVISE } query;

typedef struct {
	const cm_map *m;
	const cm_deck *deck;
	cm_board *b;
	int moves, moves_total;
	cli_format fmt;
	cm_json *j; /* --format json */
} ctx;

/* The replay up to and including its k-th move line, as a shallow copy of
 * r: setup lines, then the moves and the tiles put aside before them; with
 * k = all, also the tiles put aside at the end. Never the final line: the
 * questions are asked before final scoring. */
static cm_replay cut(const cm_replay *r, int k, int total)
{
	cm_replay c = *r;
	size_t i = 0;
	for (int seen = 0; i < r->n_moves; i++) {
		cm_move_kind kind = r->moves[i].kind;
		if (kind == CM_MOVE_FINAL || (seen == k && k < total && kind != CM_MOVE_SETUP))
			break;
		seen += kind == CM_MOVE_PLACE || kind == CM_MOVE_ABBEY;
	}
	c.n_moves = i;
	c.finished = false;
	return c;
}

static int count_moves(const cm_replay *r)
{
	int n = 0;
	for (size_t i = 0; i < r->n_moves; i++)
		n += r->moves[i].kind == CM_MOVE_PLACE || r->moves[i].kind == CM_MOVE_ABBEY;
	return n;
}

/* Plays r back; the engine's diagnostics name moves by line but carry no
 * file, so they are copied to d with the replay's path. */
static int play_back(const cm_map *m, const cm_deck *deck, const cm_replay *r, const char *path,
                     cm_diags *d, cm_board **out)
{
	cm_diags *tmp = NULL;
	if (cm_diags_new(&tmp))
		return CM_ENOMEM;
	int rc = cm_board_replay(m, deck, r, tmp, out);
	for (size_t i = 0; i < cm_diags_count(tmp); i++) {
		const cm_diag *g = cm_diags_get(tmp, i);
		cm_diags_add(d, g->severity, g->rule, g->file ? g->file : path, g->line, g->col, g->where,
		             "%s", g->message ? g->message : "");
	}
	cm_diags_free(tmp);
	return rc;
}

/* Meeple spots (out) and wagon spots (*n_wagon into wagon) of tile t
 * placed as p, asked of the board without placing (cm_board_spots_if: one
 * board for every placement). Returns the meeple spot count, or -1 when t
 * has no copy left to draw (or the placement cannot be made now). */
static int spots_for(const ctx *c, int t, const cm_placement *p, int *out, int *wagon, int *n_wagon)
{
	int n = cm_board_spots_if(c->b, t, p->x, p->y, p->rot, CM_FOLLOWER_MEEPLE, out, CM_MAX_FEATURES);
	int w = n < 0 ? 0 : cm_board_spots_if(c->b, t, p->x, p->y, p->rot, CM_FOLLOWER_WAGON, wagon, CM_MAX_FEATURES);
	*n_wagon = w < 0 ? 0 : w;
	return n < 0 ? -1 : n;
}

/* Spots as text: " NAME 0 road, 3 field" after the first. */
static void spots_text(const cm_tile_type *tt, const char *name, const int *spots, int k)
{
	for (int s = 0; s < k; s++)
		printf("%s %d %s", s ? "," : name, spots[s], cm_feature_kind_name(tt->features[spots[s]].kind));
}

/* Spots as JSON under key: null when unknown (k < 0). */
static void spots_json(cm_json *j, const char *key, const cm_tile_type *tt, const int *spots, int k)
{
	cm_json_key(j, key);
	if (k < 0) {
		cm_json_null(j);
		return;
	}
	cm_json_arr_begin(j);
	for (int s = 0; s < k; s++) {
		cm_json_obj_begin(j);
		cm_json_kv_int(j, "feature", spots[s]);
		cm_json_kv_str(j, "kind", cm_feature_kind_name(tt->features[spots[s]].kind));
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
}

static void head(ctx *c, const char *q)
{
	int players = cm_board_players(c->b);
	if (c->fmt == FMT_TEXT) {
		printf("map %s after %d of %d moves: player %d to move, %d tiles to draw; scores",
		       cm_map_id(c->m), c->moves, c->moves_total, cm_board_current(c->b), cm_board_pile(c->b));
		for (int p = 0; p < players; p++)
			printf(" %d", cm_board_score(c->b, p));
		printf("\n");
		return;
	}
	cm_json_obj_begin(c->j);
	cm_json_key(c->j, "format"); /* name and version: schemas/rules-json.md */
	cm_json_obj_begin(c->j);
	cm_json_kv_str(c->j, "name", "carcamap-rules");
	cm_json_kv_str(c->j, "version", "1.3");
	cm_json_obj_end(c->j);
	cm_json_kv_str(c->j, "map", cm_map_id(c->m));
	cm_json_kv_int(c->j, "moves", c->moves);
	cm_json_kv_int(c->j, "moves_total", c->moves_total);
	cm_json_kv_int(c->j, "player", cm_board_current(c->b));
	cm_json_kv_int(c->j, "pile", cm_board_pile(c->b));
	cm_json_key(c->j, "scores");
	cm_json_arr_begin(c->j);
	for (int p = 0; p < players; p++)
		cm_json_int(c->j, cm_board_score(c->b, p));
	cm_json_arr_end(c->j);
	cm_json_kv_str(c->j, "query", q);
}

static int legal(ctx *c, int t)
{
	const cm_tile_type *tt = cm_deck_type(c->deck, (size_t)t);
	size_t n = cm_board_placements(c->b, t, NULL, 0);
	cm_placement *pl = malloc((n ? n : 1) * sizeof *pl);
	if (!pl)
		return CM_ENOMEM;
	cm_board_placements(c->b, t, pl, n);
	/* wagon spots only where a wagon could be deployed at all
	 * (WAGON-DEPLOY): the option on and the player's wagon in the supply */
	int cur = cm_board_current(c->b);
	bool wagon = cm_board_rules(c->b)->wagons && cm_board_wagons(c->b, cur) > 0;
	head(c, "legal");
	cm_json *j = c->j;
	if (c->fmt == FMT_TEXT) {
		printf("tile %s: %zu legal placement%s%s\n", tt->id, n, n == 1 ? "" : "s",
		       cm_board_wagon_pending(c->b, NULL) ? " (a wagon waits to move first: see --wagon)" : "");
	} else {
		cm_json_kv_str(j, "tile", tt->id);
		cm_json_key(j, "placements");
		cm_json_arr_begin(j);
	}
	/* spots need the tile drawn: without a copy left, none is known */
	bool drawable = true;
	for (size_t i = 0; i < n; i++) {
		int spots[CM_MAX_FEATURES], wspots[CM_MAX_FEATURES], nw = 0;
		int k = drawable ? spots_for(c, t, &pl[i], spots, wspots, &nw) : -1;
		drawable = k >= 0;
		if (c->fmt == FMT_TEXT) {
			printf("  (%d,%d) rotation %d:", pl[i].x, pl[i].y, pl[i].rot);
			if (k < 0)
				printf(" spots unknown (no copy left to draw)");
			else if (k == 0)
				printf(" no %s spot", wagon ? "meeple" : "follower");
			spots_text(tt, " spots", spots, k);
			if (wagon && k >= 0) {
				printf(";");
				if (nw == 0)
					printf(" no wagon spot");
				spots_text(tt, " wagon spots", wspots, nw);
			}
			printf("\n");
			continue;
		}
		cm_json_obj_begin(j);
		cm_json_kv_int(j, "x", pl[i].x);
		cm_json_kv_int(j, "y", pl[i].y);
		cm_json_kv_int(j, "rotation", pl[i].rot);
		spots_json(j, "spots", tt, spots, k);
		if (wagon)
			spots_json(j, "wagon_spots", tt, wspots, k < 0 ? -1 : nw);
		cm_json_obj_end(j);
	}
	if (c->fmt == FMT_JSON)
		cm_json_arr_end(j);
	free(pl);
	return 0;
}

/* The follower standing on feature f of square (x,y), or -1. */
static int follower_on(const cm_board *b, int x, int y, int f)
{
	const cm_follower *fl;
	size_t n = cm_board_followers(b, &fl);
	for (size_t i = 0; i < n; i++)
		if (fl[i].x == x && fl[i].y == y && fl[i].feature == f)
			return fl[i].player;
	return -1;
}

/* Fields are never complete: no state is shown for them. */
static const char *state(const cm_feature_info *fi)
{
	if (fi->kind == CM_FEAT_FIELD || fi->kind == CM_FEAT_GARDEN)
		return "";
	return fi->scored ? "scored, " : fi->complete ? "complete, " : "incomplete, ";
}

static void feature_text(const cm_board *b, int x, int y, int f, const char *id, const cm_feature_info *fi)
{
	printf("  feature %d%s%s %s: %s%d tile%s, %d open, %d arms", f, id ? " " : "", id ? id : "",
	       cm_feature_kind_name(fi->kind), state(fi), fi->tiles, fi->tiles == 1 ? "" : "s", fi->open,
	       fi->arms);
	const char *flags[] = { fi->inn ? "inn" : NULL, fi->cathedral ? "cathedral" : NULL,
		                fi->bigcity ? "big city" : NULL, fi->print ? "edge print" : NULL,
		                fi->ferry ? "ferry" : NULL };
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (flags[i])
			printf(", %s", flags[i]);
	printf("; followers");
	int any = 0;
	for (int p = 0; p < cm_board_players(b); p++)
		if (fi->followers[p]) {
			printf(" player %d: %d", p, fi->followers[p]);
			any = 1;
		}
	if (!any)
		printf(" none");
	int who = follower_on(b, x, y, f);
	if (who >= 0)
		printf("; player %d's follower stands here", who);
	printf("\n");
}

static void feature_json(cm_json *j, const cm_board *b, int x, int y, int f, const char *id,
                         const cm_feature_info *fi)
{
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "index", f);
	cm_json_kv_str(j, "id", id);
	cm_json_kv_str(j, "kind", cm_feature_kind_name(fi->kind));
	cm_json_kv_bool(j, "complete", fi->complete);
	cm_json_kv_bool(j, "scored", fi->scored);
	cm_json_kv_int(j, "open", fi->open);
	cm_json_kv_int(j, "tiles", fi->tiles);
	cm_json_kv_int(j, "arms", fi->arms);
	cm_json_kv_bool(j, "inn", fi->inn);
	cm_json_kv_bool(j, "cathedral", fi->cathedral);
	cm_json_kv_bool(j, "bigcity", fi->bigcity);
	cm_json_kv_bool(j, "print", fi->print);
	cm_json_kv_bool(j, "ferry", fi->ferry);
	cm_json_key(j, "followers");
	cm_json_arr_begin(j);
	for (int p = 0; p < cm_board_players(b); p++)
		cm_json_int(j, fi->followers[p]);
	cm_json_arr_end(j);
	cm_json_key(j, "follower_here");
	int who = follower_on(b, x, y, f);
	if (who >= 0)
		cm_json_int(j, who);
	else
		cm_json_null(j);
	cm_json_obj_end(j);
}

static void square(ctx *c, int x, int y)
{
	const cm_square *sq = cm_map_at(c->m, x, y);
	const char *name = cm_map_square_name(c->m, x, y);
	int t = -1, rot = 0;
	cm_board_tile_at(c->b, x, y, &t, &rot);
	const char *tile = t >= 0 ? cm_deck_type(c->deck, (size_t)t)->id : NULL;
	head(c, "square");
	cm_json *j = c->j;
	if (c->fmt == FMT_TEXT) {
		printf("square (%d,%d) %s%s%s: ", x, y, cm_square_kind_name(sq->kind), name ? " " : "",
		       name ? name : "");
		if (tile)
			printf("tile %s rotation %d\n", tile, rot);
		else if (sq->kind == CM_SQ_BIGCITY)
			printf("printed big city\n");
		else
			printf("%s\n", cm_board_open_square(c->b, x, y) ? "empty, open" : "empty");
	} else {
		cm_json_kv_int(j, "x", x);
		cm_json_kv_int(j, "y", y);
		cm_json_kv_str(j, "kind", cm_square_kind_name(sq->kind));
		cm_json_kv_str(j, "name", name);
		cm_json_kv_str(j, "tile", tile);
		cm_json_key(j, "rotation");
		if (tile)
			cm_json_int(j, rot);
		else
			cm_json_null(j);
		cm_json_kv_bool(j, "open", cm_board_open_square(c->b, x, y));
		cm_json_key(j, "features");
		cm_json_arr_begin(j);
	}
	cm_feature_info fi;
	for (int f = 0; cm_board_feature(c->b, x, y, f, &fi) == 0; f++) {
		/* a printed big-city piece has features but no tile type */
		const char *id = t >= 0 ? cm_deck_type(c->deck, (size_t)t)->features[f].id : NULL;
		if (c->fmt == FMT_TEXT)
			feature_text(c->b, x, y, f, id, &fi);
		else
			feature_json(j, c->b, x, y, f, id, &fi);
	}
	if (c->fmt == FMT_JSON)
		cm_json_arr_end(j);
}

static const char *item_type(cm_item_type t)
{
	switch (t) {
	case CM_ITEM_FEATURE: return "feature";
	case CM_ITEM_ISLAND: return "island";
	case CM_ITEM_TOWN_COST: return "town-cost";
	}
	return "?";
}

static int score(ctx *c)
{
	int players = cm_board_players(c->b);
	head(c, "score");
	const cm_score_item *it = NULL;
	size_t n = 0;
	/* the board is this command's own: scoring it is the "copy" */
	if (cm_board_final(c->b, &it, &n) < 0)
		return CM_EINTERNAL;
	cm_json *j = c->j;
	if (c->fmt == FMT_JSON) {
		cm_json_key(j, "items");
		cm_json_arr_begin(j);
	} else {
		printf("final scoring now: %zu item%s\n", n, n == 1 ? "" : "s");
	}
	for (size_t i = 0; i < n; i++) {
		const cm_score_item *s = &it[i];
		const char *what = s->type == CM_ITEM_FEATURE ? cm_feature_kind_name(s->kind) : item_type(s->type);
		if (c->fmt == FMT_TEXT) {
			printf("  %s at (%d,%d)", what, s->x, s->y);
			if (s->feature >= 0)
				printf(" feature %d", s->feature);
			int k = 0;
			for (int p = 0; p < players; p++)
				k += (s->players >> p) & 1;
			printf(": %d to %s", s->points, k == 0 ? "nobody" : k == 1 ? "player" : "each of players");
			for (int p = 0, first = 1; p < players; p++)
				if (s->players & (1u << p)) {
					printf("%s %d", first ? "" : ",", p);
					first = 0;
				}
			printf(" [%s] %s\n", s->rule ? s->rule : "", s->reason ? s->reason : "");
			continue;
		}
		cm_json_obj_begin(j);
		cm_json_kv_str(j, "type", item_type(s->type));
		cm_json_kv_str(j, "kind", s->type == CM_ITEM_FEATURE ? cm_feature_kind_name(s->kind) : NULL);
		cm_json_kv_bool(j, "complete", s->complete);
		cm_json_kv_int(j, "x", s->x);
		cm_json_kv_int(j, "y", s->y);
		cm_json_kv_int(j, "feature", s->feature);
		cm_json_kv_int(j, "tiles", s->tiles);
		cm_json_kv_int(j, "arms", s->arms);
		cm_json_kv_int(j, "cities", s->cities);
		cm_json_kv_int(j, "towns", s->towns);
		cm_json_kv_int(j, "points", s->points);
		cm_json_key(j, "players");
		cm_json_arr_begin(j);
		for (int p = 0; p < players; p++)
			if (s->players & (1u << p))
				cm_json_int(j, p);
		cm_json_arr_end(j);
		cm_json_kv_str(j, "rule", s->rule);
		cm_json_kv_str(j, "reason", s->reason);
		cm_json_obj_end(j);
	}
	if (c->fmt == FMT_TEXT) {
		printf("final scores:");
		for (int p = 0; p < players; p++)
			printf(" %d", cm_board_score(c->b, p));
		printf("\n");
		return 0;
	}
	cm_json_arr_end(j);
	cm_json_key(j, "final_scores");
	cm_json_arr_begin(j);
	for (int p = 0; p < players; p++)
		cm_json_int(j, cm_board_score(c->b, p));
	cm_json_arr_end(j);
	return 0;
}

static const char *via_name(cm_wagon_via v)
{
	return v == CM_WAGON_VIA_CONTACT ? "contact" : v == CM_WAGON_VIA_ABBEY ? "abbey" : "range";
}

static void wagon_json(cm_json *j, const cm_wagon_pending *w, const char *rule)
{
	cm_json_key(j, "wagon");
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "player", w->player);
	cm_json_kv_int(j, "x", w->x);
	cm_json_kv_int(j, "y", w->y);
	cm_json_key(j, "scored");
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "kind", cm_feature_kind_name(w->kind));
	cm_json_kv_int(j, "x", w->fx);
	cm_json_kv_int(j, "y", w->fy);
	cm_json_kv_int(j, "feature", w->feature);
	cm_json_obj_end(j);
	cm_json_kv_str(j, "rule", rule);
	cm_json_obj_end(j);
}

static void dest_json(cm_json *j, const cm_wagon_dest *d)
{
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "x", d->x);
	cm_json_kv_int(j, "y", d->y);
	cm_json_kv_int(j, "feature", d->feature);
	cm_json_kv_str(j, "kind", cm_feature_kind_name(d->kind));
	cm_json_key(j, "of");
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "x", d->fx);
	cm_json_kv_int(j, "y", d->fy);
	cm_json_kv_int(j, "feature", d->ffeature);
	cm_json_obj_end(j);
	cm_json_kv_str(j, "via", via_name(d->via));
	cm_json_kv_int(j, "via_x", d->vx);
	cm_json_kv_int(j, "via_y", d->vy);
	cm_json_kv_str(j, "rule", d->rule);
	cm_json_kv_str(j, "reason", d->reason);
	cm_json_obj_end(j);
}

static void dest_text(const cm_wagon_dest *d)
{
	printf("  (%d,%d) feature %d %s, of the %s named (%d,%d) feature %d: %s [%s, %s on (%d,%d)]\n", d->x,
	       d->y, d->feature, cm_feature_kind_name(d->kind), cm_feature_kind_name(d->kind), d->fx, d->fy,
	       d->ffeature, d->reason, d->rule, via_name(d->via), d->vx, d->vy);
}

/* --wagon, and --why X,Y,F (why is true). */
static int wagon(ctx *c, bool why, int x, int y, int f)
{
	cm_wagon_pending w;
	int waiting = cm_board_wagon_pending(c->b, &w);
	const char *rule = cm_board_rules(c->b)->edition == CM_EDITION_C1 ? "WAGON-C1" : "WAGON-C2";
	cm_json *j = c->j;
	head(c, why ? "why" : "wagon");
	if (!waiting) {
		if (c->fmt == FMT_TEXT)
			printf("no wagon waits to move\n");
		else
			cm_json_kv_str(j, "wagon", NULL);
		return 0;
	}
	if (c->fmt == FMT_TEXT)
		printf("player %d's wagon waits on (%d,%d): its %s, named (%d,%d) feature %d, scored; %s\n",
		       w.player, w.x, w.y, cm_feature_kind_name(w.kind), w.fx, w.fy, w.feature, rule);
	else
		wagon_json(j, &w, rule);
	if (why) {
		cm_wagon_why a;
		cm_wagon_dest how;
		if (cm_board_wagon_why(c->b, x, y, f, &a, &how) < 0)
			return CM_ENOTFOUND;
		cm_feature_info fi;
		cm_board_feature(c->b, x, y, f, &fi);
		const char *reason = a == CM_WAGON_ALLOWED ? how.reason : cm_wagon_why_text(a);
		if (c->fmt == FMT_TEXT) {
			printf("(%d,%d) feature %d %s: %s: %s", x, y, f, cm_feature_kind_name(fi.kind),
			       a == CM_WAGON_ALLOWED ? "allowed" : "refused", reason);
			if (a == CM_WAGON_ALLOWED)
				printf(" [%s, %s on (%d,%d)]", how.rule, via_name(how.via), how.vx, how.vy);
			printf("\n");
			return 0;
		}
		cm_json_key(j, "piece");
		cm_json_obj_begin(j);
		cm_json_kv_int(j, "x", x);
		cm_json_kv_int(j, "y", y);
		cm_json_kv_int(j, "feature", f);
		cm_json_kv_str(j, "kind", cm_feature_kind_name(fi.kind));
		cm_json_obj_end(j);
		cm_json_kv_bool(j, "allowed", a == CM_WAGON_ALLOWED);
		cm_json_kv_str(j, "answer", cm_wagon_why_name(a));
		cm_json_kv_str(j, "reason", reason);
		cm_json_key(j, "destination");
		if (a == CM_WAGON_ALLOWED)
			dest_json(j, &how);
		else
			cm_json_null(j);
		return 0;
	}
	size_t n = cm_board_wagon_moves(c->b, NULL, 0);
	cm_wagon_dest *dv = malloc((n ? n : 1) * sizeof *dv);
	if (!dv)
		return CM_ENOMEM;
	cm_board_wagon_moves(c->b, dv, n);
	if (c->fmt == FMT_TEXT) {
		printf("%zu destination%s:\n", n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n; i++)
			dest_text(&dv[i]);
	} else {
		cm_json_key(j, "destinations");
		cm_json_arr_begin(j);
		for (size_t i = 0; i < n; i++)
			dest_json(j, &dv[i]);
		cm_json_arr_end(j);
	}
	free(dv);
	return 0;
}

/* ---- --advise ---- */

#define MAX_TOP 100
#define ADVISORS "greedy,mcts"

/* The feature kind of a choice's feature: of the tile (tile), of the
 * abbey, or of the board's feature a wagon goes to. */
static const char *choice_kind(const ctx *c, int tile, const cm_choice *ch)
{
	if (ch->feature < 0)
		return NULL;
	if (ch->kind == CM_CHOICE_TILE && tile >= 0)
		return cm_feature_kind_name(cm_deck_type(c->deck, (size_t)tile)->features[ch->feature].kind);
	if (ch->kind == CM_CHOICE_ABBEY)
		return cm_feature_kind_name(CM_FEAT_ABBEY);
	cm_feature_info fi;
	if (ch->kind == CM_CHOICE_WAGON && cm_board_feature(c->b, ch->x, ch->y, ch->feature, &fi) == 0)
		return cm_feature_kind_name(fi.kind);
	return NULL;
}

static void choice_text(const ctx *c, int tile, const cm_choice *ch)
{
	const char *who = ch->follower == CM_FOLLOWER_WAGON ? "the wagon" : "a meeple";
	switch (ch->kind) {
	case CM_CHOICE_TILE:
		printf("tile %s on (%d,%d) rotation %d", cm_deck_type(c->deck, (size_t)tile)->id, ch->x, ch->y, ch->rot);
		break;
	case CM_CHOICE_ABBEY: printf("abbey on (%d,%d)", ch->x, ch->y); break;
	case CM_CHOICE_WAGON:
		if (ch->feature < 0)
			printf("wagon back to the supply");
		else
			printf("wagon to (%d,%d) feature %d %s", ch->x, ch->y, ch->feature, choice_kind(c, tile, ch));
		return;
	case CM_CHOICE_PASS: printf("keep the abbey"); return;
	}
	if (ch->feature >= 0)
		printf(", %s on feature %d %s", who, ch->feature, choice_kind(c, tile, ch));
	else
		printf(", no follower");
}

static void choice_json(const ctx *c, int tile, const cm_choice *ch)
{
	static const char *const kinds[] = { "tile", "abbey", "wagon", "pass" };
	cm_json *j = c->j;
	cm_json_kv_str(j, "kind", kinds[ch->kind]);
	bool where = ch->kind != CM_CHOICE_PASS && !(ch->kind == CM_CHOICE_WAGON && ch->feature < 0);
	cm_json_key(j, "x");
	where ? cm_json_int(j, ch->x) : cm_json_null(j);
	cm_json_key(j, "y");
	where ? cm_json_int(j, ch->y) : cm_json_null(j);
	cm_json_key(j, "rotation");
	ch->kind == CM_CHOICE_TILE ? cm_json_int(j, ch->rot) : cm_json_null(j);
	cm_json_key(j, "feature");
	ch->feature >= 0 ? cm_json_int(j, ch->feature) : cm_json_null(j);
	cm_json_kv_str(j, "feature_kind", choice_kind(c, tile, ch));
	cm_json_kv_str(j, "follower", ch->feature < 0 || ch->kind == CM_CHOICE_WAGON ? NULL
	                               : ch->follower == CM_FOLLOWER_WAGON ? "wagon" : "meeple");
}

/* One player's advice: its choice and its best top choices with values. */
static int advise_one(ctx *c, const char *spec, int tile, uint64_t seed, int top)
{
	cm_player *p = NULL;
	int rc = cm_player_new_from_spec(spec, &p);
	cm_json *j = c->j;
	if (rc == CM_ENOTSUP) {
		if (c->fmt == FMT_TEXT) {
			printf("%s: not in this build\n", spec);
		} else {
			cm_json_obj_begin(j);
			cm_json_kv_str(j, "player", spec);
			cm_json_kv_bool(j, "available", false);
			cm_json_obj_end(j);
		}
		return 0;
	}
	if (rc < 0)
		return rc;
	cm_advice adv[MAX_TOP];
	cm_choice ch;
	cm_rng rng;
	cm_rng_seed(&rng, seed);
	rc = cm_player_choose(p, c->b, tile, &rng, &ch);
	cm_rng_seed(&rng, seed);
	int n = rc < 0 ? rc : cm_player_advise(p, c->b, tile, &rng, adv, (size_t)top);
	cm_player_free(p);
	if (rc < 0 || (n < 0 && n != CM_ENOTSUP))
		return rc < 0 ? rc : n;
	int shown = n < 0 ? 0 : n < top ? n : top;
	if (c->fmt == FMT_TEXT) {
		printf("%s would play: ", spec);
		choice_text(c, tile, &ch);
		printf("\n");
		if (n == CM_ENOTSUP) {
			printf("  (%s does not say what it weighed)\n", spec);
			return 0;
		}
		printf("  the best %d of the %d choices it weighed (values in points):\n", shown, n);
		for (int i = 0; i < shown; i++) {
			printf("  %3d. %8.2f  ", i + 1, adv[i].value);
			choice_text(c, tile, &adv[i].choice);
			printf("\n");
		}
		return 0;
	}
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "player", spec);
	cm_json_kv_bool(j, "available", true);
	cm_json_key(j, "choice");
	cm_json_obj_begin(j);
	choice_json(c, tile, &ch);
	cm_json_obj_end(j);
	cm_json_key(j, "weighed");
	n == CM_ENOTSUP ? cm_json_null(j) : cm_json_int(j, n);
	cm_json_key(j, "best");
	cm_json_arr_begin(j);
	for (int i = 0; i < shown; i++) {
		cm_json_obj_begin(j);
		cm_json_kv_fixed(j, "value", adv[i].value, 4);
		choice_json(c, tile, &adv[i].choice);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	cm_json_obj_end(j);
	return 0;
}

/* --advise: the decision the board waits for (a waiting wagon, the next
 * tile or the one given, the abbey after the last tile) and what each
 * player of specs (comma-separated) would do. */
static int advise(ctx *c, int given, const char *specs, uint64_t seed, int top)
{
	cm_wagon_pending w;
	int tile = -1, who = cm_board_current(c->b);
	const char *what;
	size_t nt = cm_deck_types(c->deck);
	int *before = calloc(nt + 1, sizeof *before), *after = calloc(nt + 1, sizeof *after);
	if (!before || !after) {
		free(before);
		free(after);
		return CM_ENOMEM;
	}
	if (cm_board_wagon_pending(c->b, &w)) {
		who = w.player;
		what = "wagon";
	} else if (given >= 0) {
		tile = given;
		what = cm_board_placements(c->b, tile, NULL, 0) ? "tile" : "none";
	} else {
		/* the next tile: tiles without a legal placement are put aside first */
		cm_board_remaining(c->b, before, nt);
		what = cm_board_draw(c->b, &tile) == 0 ? "tile" : "none";
		cm_board_remaining(c->b, after, nt);
		/* the pile empty: the players from the current one on who hold an
		 * abbey place it or not, in turn (cm_board_play) */
		for (int i = 0, np = cm_board_players(c->b); tile < 0 && i < np && strcmp(what, "none") == 0; i++) {
			int p = (who + i) % np;
			if (!cm_board_abbeys(c->b, p))
				continue;
			cm_board_set_current(c->b, p);
			if (cm_board_abbey_squares(c->b, NULL, 0)) {
				who = p;
				what = "abbey";
			}
		}
		cm_board_set_current(c->b, who);
	}
	head(c, "advise");
	cm_json *j = c->j;
	bool aside = false;
	for (size_t t = 0; t < nt; t++)
		aside |= before[t] != after[t];
	if (c->fmt == FMT_TEXT) {
		if (aside) {
			printf("put aside first (no legal placement):");
			for (size_t t = 0; t < nt; t++)
				for (int k = after[t]; k < before[t]; k++)
					printf(" %s", cm_deck_type(c->deck, t)->id);
			printf("\n");
		}
		if (strcmp(what, "wagon") == 0)
			printf("player %d's wagon waits to move from (%d,%d)\n", who, w.x, w.y);
		else if (strcmp(what, "tile") == 0)
			printf("player %d %s tile %s\n", who, given >= 0 ? "is given" : "draws",
			       cm_deck_type(c->deck, (size_t)tile)->id);
		else if (strcmp(what, "abbey") == 0)
			printf("the pile is empty: player %d may place its abbey\n", who);
		else if (given >= 0)
			printf("tile %s has no legal placement now: it would be put aside\n",
			       cm_deck_type(c->deck, (size_t)given)->id);
		else
			printf("nothing to decide: the game ends\n");
	} else {
		cm_json_kv_str(j, "decision", what);
		cm_json_kv_int(j, "decides", who);
		cm_json_kv_str(j, "tile", tile >= 0 ? cm_deck_type(c->deck, (size_t)tile)->id : NULL);
		cm_json_key(j, "aside");
		cm_json_arr_begin(j);
		for (size_t t = 0; t < nt; t++)
			for (int k = after[t]; k < before[t]; k++)
				cm_json_str(j, cm_deck_type(c->deck, t)->id);
		cm_json_arr_end(j);
		cm_json_key(j, "advice");
		cm_json_arr_begin(j);
	}
	free(before);
	free(after);
	int rc = 0;
	if (strcmp(what, "none") != 0) {
		char buf[256];
		snprintf(buf, sizeof buf, "%s", specs);
		for (char *p = buf, *comma; !rc && p; p = comma ? comma + 1 : NULL) {
			if ((comma = strchr(p, ',')))
				*comma = '\0';
			rc = advise_one(c, p, strcmp(what, "tile") == 0 ? tile : -1, seed, top);
		}
	}
	if (c->fmt == FMT_JSON)
		cm_json_arr_end(j);
	return rc;
}

/* "X,Y" into *x, *y; false when malformed. */
static bool parse_xy(const char *s, int *x, int *y)
{
	const char *comma = strchr(s, ',');
	char buf[32];
	if (!comma || (size_t)(comma - s) >= sizeof buf)
		return false;
	memcpy(buf, s, (size_t)(comma - s));
	buf[comma - s] = '\0';
	long a = cli_parse_uint(buf, MAX_COORD), b = cli_parse_uint(comma + 1, MAX_COORD);
	*x = (int)a;
	*y = (int)b;
	return a >= 0 && b >= 0;
}

static int read_replay(const char *path, cm_diags *d, cm_replay **out)
{
	/* a regular file only (cm_file_open_read): a FIFO never blocks the command */
	FILE *f = NULL;
	int orc = cm_file_open_read(path, d, &f);
	if (orc)
		return orc;
	int rc = cm_replay_read(f, path, d, out);
	fclose(f);
	return rc;
}

int cmd_rules(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "moves", required_argument, NULL, 'k' },
		{ "legal", required_argument, NULL, 'L' },
		{ "square", required_argument, NULL, 'S' },
		{ "score", no_argument, NULL, 'C' },
		{ "wagon", no_argument, NULL, 'W' },
		{ "why", required_argument, NULL, 'Y' },
		{ "advise", no_argument, NULL, 'A' },
		{ "tile", required_argument, NULL, 't' },
		{ "players", required_argument, NULL, 'p' },
		{ "top", required_argument, NULL, 'n' },
		{ "edition", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "map", required_argument, NULL, 'm' },
		{ "printing", required_argument, NULL, 'P' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cm_replay *r = NULL;
	cli_target tg = { .cmd = "rules", .decks = 1, .build_deck = 1 };
	ctx c = { 0 };
	if (cm_diags_new(&d) || cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	const char *tile = NULL, *advise_tile = NULL, *advisors = ADVISORS;
	long top = 5;
	bool advise_opts = false; /* --tile, --players or --top given */
	query q = Q_NONE;
	int queries = 0, x = 0, y = 0, f = 0, ec = EXIT_CLEAN, opt;
	const char *edition = NULL;
	cm_edition ed = CM_EDITION_C2;
	long moves = -1;
	cli_opts o = { .cmd = "rules", .opts = opts, .usage = usage, .tilesets = w, .printing = &tg.printing };
	while ((opt = cli_next_option(&o, argc, argv, ":hT:")) >= 0) {
		switch (opt) {
		case 'k':
			if ((moves = cli_parse_uint(optarg, 1L << 30)) < 0)
				ec = cli_usage_error("rules", "--moves takes a whole number, not '%s'", optarg);
			break;
		case 'L': q = Q_LEGAL; queries++; tile = optarg; break;
		case 'S':
			q = Q_SQUARE;
			queries++;
			if (!parse_xy(optarg, &x, &y))
				ec = cli_usage_error("rules", "--square takes X,Y (two whole numbers), not '%s'", optarg);
			break;
		case 'C': q = Q_SCORE; queries++; break;
		case 'W': q = Q_WAGON; queries++; break;
		case 'Y': {
			q = Q_WHY;
			queries++;
			/* X,Y,F: the last comma splits off F */
			char *last = strrchr(optarg, ',');
			long fv = last ? cli_parse_uint(last + 1, CM_MAX_FEATURES - 1) : -1;
			if (last)
				*last = '\0';
			if (fv < 0 || !parse_xy(optarg, &x, &y))
				ec = cli_usage_error("rules", "--why takes X,Y,F (three whole numbers)");
			f = (int)fv;
			break;
		}
		case 'A': q = Q_ADVISE; queries++; break;
		case 't': advise_tile = optarg; advise_opts = true; break;
		case 'p':
			advisors = optarg;
			advise_opts = true;
			if (strlen(optarg) >= 256)
				ec = cli_usage_error("rules", "--players is too long");
			for (const char *p = optarg; !ec && p;) {
				const char *comma = strchr(p, ',');
				char one[64];
				snprintf(one, sizeof one, "%.*s", (int)(comma ? (size_t)(comma - p) : strlen(p)), p);
				cm_player_spec sp;
				int prc = cm_player_spec_parse(one, &sp);
				if (prc == CM_ENOTFOUND)
					ec = cli_usage_error("rules", "unknown player '%s' in --players; players are %s", one,
					                     CM_PLAYER_SPEC_FORMS);
				else if (prc < 0)
					ec = cli_usage_error("rules", "player '%s': N must be a whole number from 1 to %d; "
					                     "players are %s", one, CM_PLAYER_MAX_BUDGET, CM_PLAYER_SPEC_FORMS);
				p = comma ? comma + 1 : NULL;
			}
			break;
		case 'n':
			advise_opts = true;
			if ((top = cli_parse_uint(optarg, MAX_TOP)) < 1)
				ec = cli_usage_error("rules", "--top takes a number from 1 to %d, not '%s'", MAX_TOP, optarg);
			break;
		case 'e':
			edition = optarg;
			if (cm_edition_parse(optarg, &ed) < 0)
				ec = cli_usage_error("rules", "--edition is C1, C2 or C3, not '%s'", optarg);
			break;
		case 'f':
			if (cli_parse_format("rules", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &c.fmt) < 0)
				ec = EXIT_USAGE;
			break;
		case 'm': tg.map_id = optarg; break;
		}
		if (ec)
			goto done;
	}
	if (opt == CLI_STOP) {
		ec = o.status;
		goto done;
	}
	if (queries != 1) {
		ec = cli_usage_error("rules", "ask one question: --legal TILE, --square X,Y, --score, --wagon, "
		                             "--why X,Y,F or --advise");
		goto done;
	}
	if (q != Q_ADVISE && advise_opts) {
		ec = cli_usage_error("rules", "--tile, --players and --top go with --advise");
		goto done;
	}
	if (argc - optind < 2) {
		ec = cli_usage_error("rules", "give a replay and the map it was played on");
		goto done;
	}
	const char *path = argv[optind];
	int rc = read_replay(path, d, &r);
	if (!rc) {
		tg.fallback = r->map_id; /* several maps: the one the replay names, unless --map says */
		rc = cli_load_map(&tg, w, argc - optind - 1, argv + optind + 1, d);
	}
	if (rc == CLI_NO_MAP) {
		ec = EXIT_USAGE;
		goto done;
	}
	c.m = tg.map;
	c.deck = tg.deck;
	if (!rc && cm_diags_errors(d) == 0) {
		c.moves_total = count_moves(r);
		if (moves > c.moves_total) {
			ec = cli_usage_error("rules", "--moves %ld: the replay has %d moves", moves, c.moves_total);
			goto done;
		}
		c.moves = moves < 0 ? c.moves_total : (int)moves;
		int t = q == Q_LEGAL ? cm_deck_find(c.deck, tile) : 0;
		if (t < 0) {
			ec = cli_usage_error("rules", "no tile '%s' in the deck of map %s", tile, cm_map_id(c.m));
			goto done;
		}
		int given = advise_tile ? cm_deck_find(c.deck, advise_tile) : -1;
		if (advise_tile && given < 0) {
			ec = cli_usage_error("rules", "no tile '%s' in the deck of map %s", advise_tile, cm_map_id(c.m));
			goto done;
		}
		if ((q == Q_SQUARE || q == Q_WHY) && !cm_map_at(c.m, x, y)) {
			ec = cli_usage_error("rules", "square (%d,%d) is off the %dx%d grid of map %s", x, y,
			                     cm_map_cols(c.m), cm_map_rows(c.m), cm_map_id(c.m));
			goto done;
		}
		cm_replay part = cut(r, c.moves, c.moves_total);
		rc = play_back(c.m, c.deck, &part, path, d, &c.b);
		if (!rc && edition) { /* what if: the same board under another edition */
			cm_rules ru = *cm_board_rules(c.b);
			ru.edition = ed;
			cm_board_set_rules(c.b, &ru);
		}
		cm_feature_info fi;
		if (!rc && q == Q_WHY && cm_board_feature(c.b, x, y, f, &fi) < 0) {
			ec = cli_usage_error("rules", "no feature %d on square (%d,%d)", f, x, y);
			goto done;
		}
		if (!rc && c.fmt == FMT_JSON && !(c.j = cm_json_new(stdout, true)))
			rc = CM_ENOMEM;
		if (!rc) {
			if (q == Q_LEGAL)
				rc = legal(&c, t);
			else if (q == Q_SQUARE)
				square(&c, x, y);
			else if (q == Q_WAGON || q == Q_WHY)
				rc = wagon(&c, q == Q_WHY, x, y, f);
			else if (q == Q_ADVISE)
				rc = advise(&c, given, advisors, r->seed, (int)top);
			else
				rc = score(&c);
			if (!rc && c.fmt == FMT_JSON) {
				cm_json_obj_end(c.j);
				cm_json_finish(c.j);
			}
			if (fflush(stdout) && !rc)
				rc = CM_EIO;
		}
	}
	ec = cli_finish(d, FMT_TEXT, rc);
done:
	cm_json_free(c.j);
	cm_board_free(c.b);
	cm_deck_free(tg.deck);
	cm_replay_free(r);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
