/* SPDX-License-Identifier: MIT */
/* carcamap/replay.h: replays (schemas/replay.md): the moves of a game as
 * text, read, written, taken from a board and played back on a map and deck,
 * checked against the map's and deck's hashes.
 * Threads: a replay is only read once read or taken; playing it back builds
 * a board of its own. */
#ifndef CARCAMAP_REPLAY_H
#define CARCAMAP_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "board.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	CM_MOVE_SETUP = 0,
	CM_MOVE_ASIDE,
	CM_MOVE_PLACE,
	CM_MOVE_FINAL,
	CM_MOVE_ABBEY, /* ABBEY-PLACE */
	CM_MOVE_WAGON  /* WAGON-MOVE: x, y, feature, or feature -1 back to the supply */
} cm_move_kind;

typedef struct {
	cm_move_kind kind;
	int player;        /* PLACE, ABBEY, WAGON: who moved */
	char *tile;        /* tile type id (SETUP, ASIDE, PLACE, ABBEY) */
	int x, y, rot;     /* SETUP, PLACE, ABBEY (rot 0), WAGON */
	int feature;       /* PLACE, ABBEY: follower's feature index, -1 for none;
	                    * WAGON: the destination's, -1 back to the supply */
	cm_follower_kind follower; /* PLACE, ABBEY: the deployed follower's kind */
	unsigned line;     /* source line when read */
} cm_move;

typedef struct {
	char *map_id;
	uint64_t map_hash;  /* cm_replay_map_hash */
	char **tilesets;    /* the deck's set ids, in order (informative) */
	size_t n_tilesets;
	uint64_t deck_hash; /* cm_deck_hash */
	int players;
	uint64_t seed;
	unsigned flags;     /* cm_board_new flags */
	cm_rules rules;
	cm_move *moves;
	size_t n_moves;
	int scores[CM_MAX_PLAYERS]; /* final scores when the game was finished */
	bool finished;
	char *seat_players[CM_MAX_PLAYERS]; /* who played each seat (carcamap/player.h
	                     * names: "greedy", "mcts:200"), NULL when not recorded */
} cm_replay;

/* FNV-1a 64 over a map's playing geometry (size, squares, prints, big
 * cities, ferries, islands): a replay names the map it was played on. */
uint64_t cm_replay_map_hash(const cm_map *map);
/* The replay of the game on b so far. Returns 0 or CM_ENOMEM. */
int cm_replay_from_board(const cm_board *b, cm_replay **out);
/* Records who played each seat: names[p] for seat p, p < r->players (one
 * word each, as cm_player.name; NULL: not recorded). Returns 0, CM_EINVAL
 * (a name with a blank, '#' or a control character, empty or longer than
 * CM_REPLAY_NAME_MAX; r unchanged) or CM_ENOMEM. */
#define CM_REPLAY_NAME_MAX 63
int cm_replay_set_players(cm_replay *r, const char *const *names);
/* Writes r as text (schemas/replay.md). 0 or CM_EIO. */
int cm_replay_write(const cm_replay *r, FILE *f);
/* Reads a replay; file names it in diagnostics (may be NULL). Problems
 * go to d with file and line. Returns 0, CM_EINVAL, CM_EFORMAT (not a
 * replay), CM_EVERSION, CM_ENOMEM. */
int cm_replay_read(FILE *f, const char *file, cm_diags *d, cm_replay **out);
void cm_replay_free(cm_replay *r); /* NULL is a no-op */
/* Replays r on map and deck: checks the map and deck hashes, rebuilds the
 * board from the seed and plays every move, checking that setup moves and
 * the final scores agree. *out is the board after the last move.
 * Returns 0, CM_EINVAL (see d) or CM_ENOMEM. */
int cm_board_replay(const cm_map *map, const cm_deck *deck, const cm_replay *r, cm_diags *d,
                    cm_board **out);

#ifdef __cplusplus
}
#endif
#endif
