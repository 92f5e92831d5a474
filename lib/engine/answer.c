/* SPDX-License-Identifier: MIT */
/* answer.c: the rules questions asked of a board and their answers
 * (carcamap/answer.h; schemas/rules-json.md): cm_board_ask gathers each
 * answer from the board's public questions (placements, spots, features,
 * final scoring, wagon moves, the players' advice) into a cm_answer, and
 * cm_answer_write_json writes the rules JSON from it, the one place its
 * members and their order are written. No rule is decided here. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/answer.h"
#include "carcamap/json.h"

#define RULES_JSON_VERSION "1.4"

void cm_ask_init(cm_ask *q, cm_ask_kind kind)
{
	memset(q, 0, sizeof *q);
	q->kind = kind;
	q->tile = kind == CM_ASK_ADVISE ? -1 : 0;
	q->players = CM_ASK_ADVISORS;
	q->top = 5;
}

const char *cm_wagon_via_name(cm_wagon_via v)
{
	return v == CM_WAGON_VIA_CONTACT ? "contact" : v == CM_WAGON_VIA_ABBEY ? "abbey" : "range";
}

const char *cm_item_type_name(cm_item_type t)
{
	switch (t) {
	case CM_ITEM_FEATURE: return "feature";
	case CM_ITEM_ISLAND: return "island";
	case CM_ITEM_TOWN_COST: return "town-cost";
	}
	return "?";
}

const char *cm_choice_kind_name(cm_choice_kind k)
{
	static const char *const names[] = { "tile", "abbey", "wagon", "pass" };
	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

void cm_answer_free(cm_answer *a)
{
	if (!a)
		return;
	free(a->legal.placements);
	free(a->square.features);
	free(a->score.items);
	free(a->wagon.destinations);
	free(a->advise.aside);
	for (size_t i = 0; i < a->advise.n_advice; i++) {
		free(a->advise.advice[i].player);
		free(a->advise.advice[i].best);
	}
	free(a->advise.advice);
	free(a);
}

/* The board as the question finds it (the head of every answer). */
static void head(cm_answer *a, const cm_board *b)
{
	a->map = cm_map_id(cm_board_map(b));
	a->player = cm_board_current(b);
	a->pile = cm_board_pile(b);
	a->players = cm_board_players(b);
	for (int p = 0; p < a->players; p++)
		a->scores[p] = cm_board_score(b, p);
}

/* ---- The questions ---- */

/* Spots of kind k of tile t placed as pl, asked without placing
 * (cm_board_spots_if); -1 when t has no copy left to draw. */
static int spots(const cm_board *b, const cm_tile_type *tt, int t, const cm_placement *pl, cm_follower_kind k,
                 cm_answer_spot *out)
{
	int f[CM_MAX_FEATURES];
	int n = cm_board_spots_if(b, t, pl->x, pl->y, pl->rot, k, f, CM_MAX_FEATURES);
	for (int s = 0; s < n; s++)
		out[s] = (cm_answer_spot){ f[s], tt->features[f[s]].kind };
	return n < 0 ? -1 : n;
}

static int legal(const cm_board *b, int t, cm_answer *a)
{
	const cm_deck *deck = cm_board_deck(b);
	if (t < 0 || (size_t)t >= cm_deck_types(deck))
		return CM_EINVAL;
	const cm_tile_type *tt = cm_deck_type(deck, (size_t)t);
	size_t n = cm_board_placements(b, t, NULL, 0);
	cm_placement *pl = malloc((n ? n : 1) * sizeof *pl);
	a->legal.placements = calloc(n ? n : 1, sizeof *a->legal.placements);
	if (!pl || !a->legal.placements) {
		free(pl);
		return CM_ENOMEM;
	}
	cm_board_placements(b, t, pl, n);
	/* wagon spots only where a wagon could be deployed at all
	 * (WAGON-DEPLOY): the option on and the player's wagon in the supply */
	int cur = cm_board_current(b);
	a->legal.tile = tt->id;
	a->legal.wagon = cm_board_rules(b)->wagons && cm_board_wagons(b, cur) > 0;
	a->legal.wagon_waits = cm_board_wagon_pending(b, NULL) > 0;
	a->legal.n_placements = n;
	/* spots need the tile drawn: without a copy left, none is known */
	bool drawable = true;
	for (size_t i = 0; i < n; i++) {
		cm_answer_placement *p = &a->legal.placements[i];
		p->x = pl[i].x;
		p->y = pl[i].y;
		p->rot = pl[i].rot;
		p->n_spots = drawable ? spots(b, tt, t, &pl[i], CM_FOLLOWER_MEEPLE, p->spots) : -1;
		drawable = p->n_spots >= 0;
		p->n_wagon_spots = !drawable ? -1 : !a->legal.wagon ? 0
		                 : spots(b, tt, t, &pl[i], CM_FOLLOWER_WAGON, p->wagon_spots);
		if (p->n_wagon_spots < 0 && drawable)
			p->n_wagon_spots = 0;
	}
	free(pl);
	head(a, b);
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

static int square(const cm_board *b, int x, int y, cm_answer *a)
{
	const cm_map *m = cm_board_map(b);
	const cm_square *sq = cm_map_at(m, x, y);
	if (!sq)
		return CM_EINVAL;
	const cm_deck *deck = cm_board_deck(b);
	int t = -1, rot = 0;
	cm_board_tile_at(b, x, y, &t, &rot);
	const cm_tile_type *tt = t >= 0 ? cm_deck_type(deck, (size_t)t) : NULL;
	a->square.x = x;
	a->square.y = y;
	a->square.kind = sq->kind;
	a->square.name = cm_map_square_name(m, x, y);
	a->square.tile = tt ? tt->id : NULL;
	a->square.rot = rot;
	a->square.open = cm_board_open_square(b, x, y);
	cm_feature_info fi;
	size_t cap = 0;
	for (int f = 0; cm_board_feature(b, x, y, f, &fi) == 0; f++) {
		if (a->square.n_features == cap) {
			size_t nc = cap ? 2 * cap : 8;
			cm_answer_feature *nf = realloc(a->square.features, nc * sizeof *nf);
			if (!nf)
				return CM_ENOMEM;
			a->square.features = nf;
			cap = nc;
		}
		/* a printed big-city piece has features but no tile type */
		a->square.features[a->square.n_features++] = (cm_answer_feature){
			.index = f,
			.id = tt ? tt->features[f].id : NULL,
			.info = fi,
			.follower_here = follower_on(b, x, y, f),
		};
	}
	head(a, b);
	return 0;
}

/* Final scoring now: the board is the asker's to score (ask a copy to
 * keep it). */
static int score(cm_board *b, cm_answer *a)
{
	head(a, b);
	const cm_score_item *it = NULL;
	size_t n = 0;
	if (cm_board_final(b, &it, &n) < 0)
		return CM_EINVAL;
	a->score.items = malloc((n ? n : 1) * sizeof *a->score.items);
	if (!a->score.items)
		return CM_ENOMEM;
	if (n)
		memcpy(a->score.items, it, n * sizeof *it);
	a->score.n_items = n;
	for (int p = 0; p < a->players; p++)
		a->score.final_scores[p] = cm_board_score(b, p);
	return 0;
}

/* WAGON, and WHY (why is true) about feature f of (x,y). */
static int wagon(const cm_board *b, bool why, int x, int y, int f, cm_answer *a)
{
	cm_feature_info fi;
	if (why && cm_board_feature(b, x, y, f, &fi) < 0)
		return CM_EINVAL;
	a->wagon.waiting = cm_board_wagon_pending(b, &a->wagon.pending) > 0;
	a->wagon.rule = cm_board_rules(b)->edition == CM_EDITION_C1 ? "WAGON-C1" : "WAGON-C2";
	head(a, b);
	if (!a->wagon.waiting)
		return 0;
	if (why) {
		cm_wagon_why w;
		if (cm_board_wagon_why(b, x, y, f, &w, &a->wagon.how) < 0)
			return CM_ENOTFOUND;
		a->wagon.x = x;
		a->wagon.y = y;
		a->wagon.feature = f;
		a->wagon.kind = fi.kind;
		a->wagon.why = w;
		a->wagon.reason = w == CM_WAGON_ALLOWED ? a->wagon.how.reason : cm_wagon_why_text(w);
		return 0;
	}
	size_t n = cm_board_wagon_moves(b, NULL, 0);
	a->wagon.destinations = malloc((n ? n : 1) * sizeof *a->wagon.destinations);
	if (!a->wagon.destinations)
		return CM_ENOMEM;
	cm_board_wagon_moves(b, a->wagon.destinations, n);
	a->wagon.n_destinations = n;
	return 0;
}

/* ---- ADVISE ---- */

/* The feature kind of a choice's feature: of the tile (tile), of the
 * abbey, or of the board's feature a wagon goes to; -1 for none. */
static int choice_kind(const cm_board *b, int tile, const cm_choice *ch)
{
	if (ch->feature < 0)
		return -1;
	if (ch->kind == CM_CHOICE_TILE && tile >= 0)
		return (int)cm_deck_type(cm_board_deck(b), (size_t)tile)->features[ch->feature].kind;
	if (ch->kind == CM_CHOICE_ABBEY)
		return CM_FEAT_ABBEY;
	cm_feature_info fi;
	if (ch->kind == CM_CHOICE_WAGON && cm_board_feature(b, ch->x, ch->y, ch->feature, &fi) == 0)
		return (int)fi.kind;
	return -1;
}

/* One player's advice into *v: its choice and its best top choices. */
static int advise_one(const cm_board *b, const char *spec, int tile, uint64_t seed, int top, cm_answer_advice *v)
{
	if (!(v->player = strdup(spec)))
		return CM_ENOMEM;
	cm_player *p = NULL;
	int rc = cm_player_new_from_spec(spec, &p);
	if (rc == CM_ENOTSUP)
		return 0; /* not in this build: available stays false */
	if (rc < 0)
		return rc;
	v->available = true;
	cm_advice adv[CM_ASK_MAX_TOP];
	cm_rng rng;
	cm_rng_seed(&rng, seed);
	rc = cm_player_choose(p, b, tile, &rng, &v->choice.choice);
	cm_rng_seed(&rng, seed);
	int n = rc < 0 ? rc : cm_player_advise(p, b, tile, &rng, adv, (size_t)top);
	cm_player_free(p);
	if (rc < 0 || (n < 0 && n != CM_ENOTSUP))
		return rc < 0 ? rc : n;
	v->choice.feature_kind = choice_kind(b, tile, &v->choice.choice);
	v->weighed = n < 0 ? -1 : n;
	v->n_best = n < 0 ? 0 : n < top ? n : top;
	if (!(v->best = calloc(v->n_best ? (size_t)v->n_best : 1, sizeof *v->best)))
		return CM_ENOMEM;
	for (int i = 0; i < v->n_best; i++)
		v->best[i] = (cm_answer_choice){ adv[i].choice, adv[i].value, adv[i].visits,
		                                  choice_kind(b, tile, &adv[i].choice) };
	return 0;
}

/* The decision the board waits for: a waiting wagon; the given tile; the
 * abbey of the player to move before the draw (the tiles without a legal
 * placement on top put aside first, into before/after); the pile's next
 * tile; or the abbey after the last tile. */
static void decide(cm_board *b, int given, int *before, int *after, size_t nt, cm_answer *a)
{
	cm_wagon_pending w;
	int tile = -1, who = cm_board_current(b);
	const char *what;
	if (cm_board_wagon_pending(b, &w)) {
		a->advise.wagon = w;
		who = w.player;
		what = "wagon";
	} else if (given >= 0) {
		tile = given;
		what = cm_board_placements(b, tile, NULL, 0) ? "tile" : "none";
	} else {
		cm_board_remaining(b, before, nt);
		what = cm_board_draw(b, &tile) == 0 ? "tile" : "none";
		cm_board_remaining(b, after, nt);
		/* a player holding an abbey some square takes is asked for it
		 * first, without seeing the tile on top */
		if (tile >= 0 && cm_board_abbeys(b, who) && cm_board_abbey_squares(b, NULL, 0)) {
			what = "abbey";
			tile = -1;
		}
		/* the pile empty: the players from the current one on who hold an
		 * abbey place it or not, in turn (cm_board_play) */
		for (int i = 0, np = cm_board_players(b); tile < 0 && i < np && strcmp(what, "none") == 0; i++) {
			int p = (who + i) % np;
			if (!cm_board_abbeys(b, p))
				continue;
			cm_board_set_current(b, p);
			if (cm_board_abbey_squares(b, NULL, 0)) {
				who = p;
				what = "abbey";
			}
		}
		cm_board_set_current(b, who);
	}
	a->advise.decision = what;
	a->advise.decides = who;
	a->advise.tile = tile;
	a->advise.given = given >= 0;
	a->advise.tile_id = tile >= 0 ? cm_deck_type(cm_board_deck(b), (size_t)tile)->id : NULL;
}

static int advise(cm_board *b, const cm_ask *q, cm_answer *a)
{
	const cm_deck *deck = cm_board_deck(b);
	size_t nt = cm_deck_types(deck);
	const char *specs = q->players ? q->players : CM_ASK_ADVISORS;
	if (q->top < 1 || q->top > CM_ASK_MAX_TOP || strlen(specs) > CM_ASK_PLAYERS_MAX ||
	    (q->tile >= 0 && (size_t)q->tile >= nt))
		return CM_EINVAL;
	int *before = calloc(nt + 1, sizeof *before), *after = calloc(nt + 1, sizeof *after);
	size_t n_specs = 1;
	for (const char *s = specs; *s; s++)
		n_specs += *s == ',';
	a->advise.advice = calloc(n_specs, sizeof *a->advise.advice);
	if (!before || !after || !a->advise.advice) {
		free(before);
		free(after);
		return CM_ENOMEM;
	}
	decide(b, q->tile, before, after, nt, a);
	head(a, b);
	size_t n_aside = 0;
	for (size_t t = 0; t < nt; t++)
		n_aside += before[t] > after[t] ? (size_t)(before[t] - after[t]) : 0;
	a->advise.aside = calloc(n_aside ? n_aside : 1, sizeof *a->advise.aside);
	for (size_t t = 0; a->advise.aside && t < nt; t++)
		for (int k = after[t]; k < before[t]; k++)
			a->advise.aside[a->advise.n_aside++] = cm_deck_type(deck, t)->id;
	free(before);
	free(after);
	if (!a->advise.aside)
		return CM_ENOMEM;
	if (strcmp(a->advise.decision, "none") == 0)
		return 0;
	int tile = strcmp(a->advise.decision, "tile") == 0 ? a->advise.tile : -1;
	char buf[CM_ASK_PLAYERS_MAX + 1];
	snprintf(buf, sizeof buf, "%s", specs);
	int rc = 0;
	for (char *p = buf, *comma; !rc && p; p = comma ? comma + 1 : NULL) {
		if ((comma = strchr(p, ',')))
			*comma = '\0';
		rc = advise_one(b, p, tile, q->seed, q->top, &a->advise.advice[a->advise.n_advice++]);
	}
	return rc;
}

int cm_board_ask(cm_board *b, const cm_ask *q, cm_answer **out)
{
	*out = NULL;
	if (!b || !q)
		return CM_EINVAL;
	cm_answer *a = calloc(1, sizeof *a);
	if (!a)
		return CM_ENOMEM;
	a->kind = q->kind;
	a->moves = q->moves;
	a->moves_total = q->moves_total;
	int rc;
	switch (q->kind) {
	case CM_ASK_LEGAL: rc = legal(b, q->tile, a); break;
	case CM_ASK_SQUARE: rc = square(b, q->x, q->y, a); break;
	case CM_ASK_SCORE: rc = score(b, a); break;
	case CM_ASK_WAGON:
	case CM_ASK_WHY: rc = wagon(b, q->kind == CM_ASK_WHY, q->x, q->y, q->feature, a); break;
	case CM_ASK_ADVISE: rc = advise(b, q, a); break;
	default: rc = CM_EINVAL;
	}
	if (rc < 0) {
		cm_answer_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* ---- The rules JSON ---- */

static const char *const queries[] = { "legal", "square", "score", "wagon", "why", "advise" };

static void spots_json(cm_json *j, const char *key, const cm_answer_spot *s, int k)
{
	cm_json_key(j, key);
	if (k < 0) {
		cm_json_null(j);
		return;
	}
	cm_json_arr_begin(j);
	for (int i = 0; i < k; i++) {
		cm_json_obj_begin(j);
		cm_json_kv_int(j, "feature", s[i].feature);
		cm_json_kv_str(j, "kind", cm_feature_kind_name(s[i].kind));
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
}

static void legal_json(cm_json *j, const cm_answer *a)
{
	cm_json_kv_str(j, "tile", a->legal.tile);
	cm_json_key(j, "placements");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < a->legal.n_placements; i++) {
		const cm_answer_placement *p = &a->legal.placements[i];
		cm_json_obj_begin(j);
		cm_json_kv_int(j, "x", p->x);
		cm_json_kv_int(j, "y", p->y);
		cm_json_kv_int(j, "rotation", p->rot);
		spots_json(j, "spots", p->spots, p->n_spots);
		if (a->legal.wagon)
			spots_json(j, "wagon_spots", p->wagon_spots, p->n_wagon_spots);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
}

static void feature_json(cm_json *j, const cm_answer *a, const cm_answer_feature *af)
{
	const cm_feature_info *fi = &af->info;
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "index", af->index);
	cm_json_kv_str(j, "id", af->id);
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
	for (int p = 0; p < a->players; p++)
		cm_json_int(j, fi->followers[p]);
	cm_json_arr_end(j);
	cm_json_key(j, "follower_here");
	if (af->follower_here >= 0)
		cm_json_int(j, af->follower_here);
	else
		cm_json_null(j);
	cm_json_obj_end(j);
}

static void square_json(cm_json *j, const cm_answer *a)
{
	cm_json_kv_int(j, "x", a->square.x);
	cm_json_kv_int(j, "y", a->square.y);
	cm_json_kv_str(j, "kind", cm_square_kind_name(a->square.kind));
	cm_json_kv_str(j, "name", a->square.name);
	cm_json_kv_str(j, "tile", a->square.tile);
	cm_json_key(j, "rotation");
	if (a->square.tile)
		cm_json_int(j, a->square.rot);
	else
		cm_json_null(j);
	cm_json_kv_bool(j, "open", a->square.open);
	cm_json_key(j, "features");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < a->square.n_features; i++)
		feature_json(j, a, &a->square.features[i]);
	cm_json_arr_end(j);
}

static void scores_json(cm_json *j, const char *key, const int *scores, int players)
{
	cm_json_key(j, key);
	cm_json_arr_begin(j);
	for (int p = 0; p < players; p++)
		cm_json_int(j, scores[p]);
	cm_json_arr_end(j);
}

static void score_json(cm_json *j, const cm_answer *a)
{
	cm_json_key(j, "items");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < a->score.n_items; i++) {
		const cm_score_item *s = &a->score.items[i];
		cm_json_obj_begin(j);
		cm_json_kv_str(j, "type", cm_item_type_name(s->type));
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
		for (int p = 0; p < a->players; p++)
			if (s->players & (1u << p))
				cm_json_int(j, p);
		cm_json_arr_end(j);
		cm_json_kv_str(j, "rule", s->rule);
		cm_json_kv_str(j, "reason", s->reason);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	scores_json(j, "final_scores", a->score.final_scores, a->players);
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
	cm_json_kv_str(j, "via", cm_wagon_via_name(d->via));
	cm_json_kv_int(j, "via_x", d->vx);
	cm_json_kv_int(j, "via_y", d->vy);
	cm_json_kv_str(j, "rule", d->rule);
	cm_json_kv_str(j, "reason", d->reason);
	cm_json_obj_end(j);
}

static void wagon_json(cm_json *j, const cm_answer *a)
{
	if (!a->wagon.waiting) {
		cm_json_kv_str(j, "wagon", NULL);
		return;
	}
	const cm_wagon_pending *w = &a->wagon.pending;
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
	cm_json_kv_str(j, "rule", a->wagon.rule);
	cm_json_obj_end(j);
	if (a->kind == CM_ASK_WAGON) {
		cm_json_key(j, "destinations");
		cm_json_arr_begin(j);
		for (size_t i = 0; i < a->wagon.n_destinations; i++)
			dest_json(j, &a->wagon.destinations[i]);
		cm_json_arr_end(j);
		return;
	}
	bool allowed = a->wagon.why == CM_WAGON_ALLOWED;
	cm_json_key(j, "piece");
	cm_json_obj_begin(j);
	cm_json_kv_int(j, "x", a->wagon.x);
	cm_json_kv_int(j, "y", a->wagon.y);
	cm_json_kv_int(j, "feature", a->wagon.feature);
	cm_json_kv_str(j, "kind", cm_feature_kind_name(a->wagon.kind));
	cm_json_obj_end(j);
	cm_json_kv_bool(j, "allowed", allowed);
	cm_json_kv_str(j, "answer", cm_wagon_why_name(a->wagon.why));
	cm_json_kv_str(j, "reason", a->wagon.reason);
	cm_json_key(j, "destination");
	if (allowed)
		dest_json(j, &a->wagon.how);
	else
		cm_json_null(j);
}

static void choice_json(cm_json *j, const cm_answer_choice *c)
{
	const cm_choice *ch = &c->choice;
	cm_json_kv_str(j, "kind", cm_choice_kind_name(ch->kind));
	bool where = ch->kind != CM_CHOICE_PASS && !(ch->kind == CM_CHOICE_WAGON && ch->feature < 0);
	cm_json_key(j, "x");
	where ? cm_json_int(j, ch->x) : cm_json_null(j);
	cm_json_key(j, "y");
	where ? cm_json_int(j, ch->y) : cm_json_null(j);
	cm_json_key(j, "rotation");
	ch->kind == CM_CHOICE_TILE ? cm_json_int(j, ch->rot) : cm_json_null(j);
	cm_json_key(j, "feature");
	ch->feature >= 0 ? cm_json_int(j, ch->feature) : cm_json_null(j);
	cm_json_kv_str(j, "feature_kind", c->feature_kind >= 0 ? cm_feature_kind_name((cm_feature_kind)c->feature_kind) : NULL);
	cm_json_kv_str(j, "follower", ch->feature < 0 || ch->kind == CM_CHOICE_WAGON ? NULL
	                               : ch->follower == CM_FOLLOWER_WAGON ? "wagon" : "meeple");
}

static void advice_json(cm_json *j, const cm_answer_advice *v)
{
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "player", v->player);
	cm_json_kv_bool(j, "available", v->available);
	if (!v->available) {
		cm_json_obj_end(j);
		return;
	}
	cm_json_key(j, "choice");
	cm_json_obj_begin(j);
	choice_json(j, &v->choice);
	cm_json_obj_end(j);
	cm_json_key(j, "weighed");
	v->weighed < 0 ? cm_json_null(j) : cm_json_int(j, v->weighed);
	cm_json_key(j, "best");
	cm_json_arr_begin(j);
	for (int i = 0; i < v->n_best; i++) {
		cm_json_obj_begin(j);
		cm_json_kv_fixed(j, "value", v->best[i].value, 4);
		cm_json_kv_int(j, "visits", v->best[i].visits);
		choice_json(j, &v->best[i]);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	cm_json_obj_end(j);
}

static void advise_json(cm_json *j, const cm_answer *a)
{
	cm_json_kv_str(j, "decision", a->advise.decision);
	cm_json_kv_int(j, "decides", a->advise.decides);
	cm_json_kv_str(j, "tile", a->advise.tile_id);
	cm_json_key(j, "aside");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < a->advise.n_aside; i++)
		cm_json_str(j, a->advise.aside[i]);
	cm_json_arr_end(j);
	cm_json_key(j, "advice");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < a->advise.n_advice; i++)
		advice_json(j, &a->advise.advice[i]);
	cm_json_arr_end(j);
}

int cm_answer_write_json(const cm_answer *a, FILE *f)
{
	if ((unsigned)a->kind >= sizeof queries / sizeof queries[0])
		return CM_EINVAL;
	cm_json *j = cm_json_new(f, true);
	if (!j)
		return CM_ENOMEM;
	cm_json_obj_begin(j);
	cm_json_key(j, "format"); /* name and version: schemas/rules-json.md */
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "name", "carcamap-rules");
	cm_json_kv_str(j, "version", RULES_JSON_VERSION);
	cm_json_obj_end(j);
	cm_json_kv_str(j, "map", a->map);
	cm_json_kv_int(j, "moves", a->moves);
	cm_json_kv_int(j, "moves_total", a->moves_total);
	cm_json_kv_int(j, "player", a->player);
	cm_json_kv_int(j, "pile", a->pile);
	scores_json(j, "scores", a->scores, a->players);
	cm_json_kv_str(j, "query", queries[a->kind]);
	switch (a->kind) {
	case CM_ASK_LEGAL: legal_json(j, a); break;
	case CM_ASK_SQUARE: square_json(j, a); break;
	case CM_ASK_SCORE: score_json(j, a); break;
	case CM_ASK_WAGON:
	case CM_ASK_WHY: wagon_json(j, a); break;
	case CM_ASK_ADVISE: advise_json(j, a); break;
	}
	cm_json_obj_end(j);
	int rc = cm_json_finish(j);
	cm_json_free(j);
	return rc < 0 ? CM_EIO : 0;
}
