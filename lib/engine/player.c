/* SPDX-License-Identifier: MIT */
/* player.c: the player interface (carcamap/player.h): choices checked and
 * played on a board (cm_board_apply) and the game driver that asks each
 * seat in turn (cm_board_play). The random player lives with random play
 * (play.c); player specs and the constructors they name, in
 * player_spec.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/player.h"
#include "engine/board_int.h"
#include "model/map_struct_int.h"

/* ---- choices ---- */

/* Whether a follower of this kind may go on feature f of tile type t
 * whose unoccupied features are free_mask, for the current player. */
static bool follower_ok(const cm_board *b, int t, uint32_t free_mask, const cm_choice *c)
{
	if (c->feature < 0)
		return true;
	if (c->follower != CM_FOLLOWER_MEEPLE && c->follower != CM_FOLLOWER_WAGON)
		return false;
	const type_info *ti = &b->deck->info[t];
	if (c->feature >= ti->n_feat || !cm__in_supply(b, c->follower))
		return false;
	uint32_t spots = (c->follower == CM_FOLLOWER_WAGON ? ti->spot_wagon : ti->spot_meeple) & free_mask;
	return (spots >> c->feature) & 1;
}

/* The turn's end after a placement: the follower, then the scoring. */
static int finish_turn(cm_board *b, const cm_choice *c, const cm_score_item **items, size_t *n)
{
	if (c->feature >= 0 && cm_board_deploy(b, c->feature, c->follower) < 0)
		return CM_EINTERNAL; /* checked before placing */
	return cm_board_end_turn(b, items, n);
}

int cm_board_apply(cm_board *b, int tile, const cm_choice *c, const cm_score_item **items, size_t *n)
{
	if (items)
		*items = NULL;
	if (n)
		*n = 0;
	bool open = b->last_sq >= 0 || b->final_done;
	switch (c->kind) {
	case CM_CHOICE_TILE: {
		/* cm_board_legal refuses while a wagon waits */
		if (open || !cm_board_legal(b, tile, c->x, c->y, c->rot) || !cm__pile_has(b, tile))
			return CM_EINVAL;
		if (!follower_ok(b, tile, cm__free_if(b, tile, c->y * b->L.cols + c->x, c->rot), c))
			return CM_EINVAL;
		if (cm_board_place(b, tile, c->x, c->y, c->rot) < 0)
			return CM_EINTERNAL; /* checked above */
		return finish_turn(b, c, items, n);
	}
	case CM_CHOICE_ABBEY:
		/* an abbey joins no feature: all of it is free */
		if (open || !cm_board_abbey_legal(b, c->x, c->y) || !follower_ok(b, b->abbey_type, UINT32_MAX, c))
			return CM_EINVAL;
		if (cm_board_place_abbey(b, c->x, c->y) < 0)
			return CM_EINTERNAL;
		return finish_turn(b, c, items, n);
	case CM_CHOICE_WAGON:
		return cm_board_wagon_move(b, c->x, c->y, c->feature);
	case CM_CHOICE_PASS:
		/* the abbey declined (a draw follows, or it is kept after the
		 * last tile): between turns, with no wagon waiting */
		return open || b->n_wait ? CM_EINVAL : 0;
	}
	return CM_EINVAL;
}

/* ---- players ---- */

int cm_player_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out)
{
	return self->choose(self, b, tile, rng, out);
}

int cm_player_advise(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_advice *out, size_t max)
{
	return self->advise ? self->advise(self, b, tile, rng, out, max) : CM_ENOTSUP;
}

void cm_player_free(cm_player *p)
{
	if (p && p->free)
		p->free(p);
}

/* ---- the game driver ---- */

static const char *choice_kind_name(cm_choice_kind k)
{
	switch (k) {
	case CM_CHOICE_TILE: return "tile";
	case CM_CHOICE_ABBEY: return "abbey";
	case CM_CHOICE_WAGON: return "wagon";
	case CM_CHOICE_PASS: return "pass";
	}
	return "unknown";
}

/* Asks seat p and plays its choice, which must be one of the kinds in
 * allowed (bit per cm_choice_kind); its kind into *kind (may be NULL). A
 * player that leaves *out as it found it declines the abbey question
 * (the answer is prefilled with a pass) and fails any other. */
static int ask(cm_board *b, cm_player *const *seats, int p, int tile, unsigned allowed, cm_rng *rng, cm_diags *d,
               cm_choice_kind *kind)
{
	cm_choice c;
	memset(&c, 0, sizeof c);
	c.feature = -1;
	c.kind = tile < 0 && !b->n_wait ? CM_CHOICE_PASS : CM_CHOICE_TILE;
	int rc = cm_player_choose(seats[p], b, tile, rng, &c);
	if (rc < 0)
		return rc;
	if (kind)
		*kind = c.kind;
	if ((unsigned)c.kind > CM_CHOICE_PASS || !((allowed >> c.kind) & 1) ||
	    cm_board_apply(b, tile, &c, NULL, NULL) < 0) {
		if (d) {
			const char *name = seats[p]->name ? seats[p]->name : "?";
			char where[96];
			snprintf(where, sizeof where, "game seed %llu, turn %d", (unsigned long long)b->seed,
			         b->stats.turns + 1);
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, where,
			             "player %d (%s) chose an illegal %s move: (%d,%d) rotation %d, follower on feature %d",
			             p, name, choice_kind_name(c.kind), c.x, c.y, c.rot, c.feature);
		}
		return CM_EINVAL;
	}
	return 0;
}

#define ALLOW(k) (1u << (k))

/* The waiting wagons, each by its owner. */
static int move_wagons(cm_board *b, cm_player *const *seats, cm_rng *rng, cm_diags *d)
{
	int rc = 0;
	while (!rc && b->n_wait)
		rc = ask(b, seats, b->wait[0].player, -1, ALLOW(CM_CHOICE_WAGON), rng, d, NULL);
	return rc;
}

int cm_board_play(cm_board *b, cm_player *const *seats, cm_rng *rng, cm_diags *d)
{
	if (b->last_sq >= 0 || b->final_done)
		return CM_EINVAL;
	bool all_random = !b->n_wait;
	for (int p = 0; p < b->n_players; p++)
		all_random &= cm__player_is_random(seats[p]);
	if (all_random)
		return cm_board_play_random(b, rng); /* the same choices, without the asking */
	int rc = 0, t;
	const unsigned abbey_or_pass = ALLOW(CM_CHOICE_ABBEY) | ALLOW(CM_CHOICE_PASS);
	/* a turn: the tiles on top that no square takes are put aside
	 * (cm_board_draw, as random play does), then a seat holding an abbey
	 * some square takes is asked for it without seeing the tile on top,
	 * which it is shown only when it declines */
	while (!(rc = move_wagons(b, seats, rng, d)) && cm_board_draw(b, &t) == 0) {
		cm_choice_kind k = CM_CHOICE_PASS;
		if (b->abbeys[b->cur] && cm__abbey_front(b, -1) > 0 &&
		    (rc = ask(b, seats, b->cur, -1, abbey_or_pass, rng, d, &k)) < 0)
			break;
		if (k == CM_CHOICE_PASS && (rc = ask(b, seats, b->cur, t, ALLOW(CM_CHOICE_TILE), rng, d, NULL)) < 0)
			break;
	}
	/* players still holding an abbey may place it at the end, in turn from the current one */
	for (int i = 0, p = b->cur, np = b->n_players; !rc && i < np; i++, p = (p + 1) % np) {
		if (!b->abbeys[p])
			continue;
		cm_board_set_current(b, p);
		if (cm__abbey_front(b, -1) == 0)
			continue;
		rc = ask(b, seats, p, -1, abbey_or_pass, rng, d, NULL);
		if (!rc)
			rc = move_wagons(b, seats, rng, d);
	}
	return rc < 0 ? rc : cm_board_final(b, NULL, NULL);
}

int cm_game_max_seats(const cm_map *map, const cm_deck *deck)
{
	int drawable = 0, starts = 0;
	for (size_t i = 0; i < deck->n_types; i++)
		if (!deck->info[i].abbey)
			drawable += deck->count[i];
	for (int s = 0; s < map->cols * map->rows; s++)
		starts += map->squares[s].kind == CM_SQ_START;
	/* setup puts a tile on each start square used */
	int used = map->setup.starts_used < 1 ? 1 : map->setup.starts_used;
	drawable -= used < starts ? used : starts;
	return drawable < 2 ? 2 : drawable < CM_MAX_PLAYERS ? drawable : CM_MAX_PLAYERS;
}
