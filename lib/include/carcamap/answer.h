/* SPDX-License-Identifier: MIT */
/* carcamap/answer.h: the rules questions asked of a board, and their
 * answers (`carcamap rules`; schemas/rules-json.md): the legal placements
 * of a tile with their follower spots, a square's joined features, the
 * final scoring if the game ended now, where a waiting wagon may go and
 * why a piece is or is not a destination, and what players would do next
 * and why. cm_board_ask fills a cm_answer a client reads; the library
 * writes the rules JSON from it (cm_answer_write_json), so every client
 * gets the same answers; the command only formats text.
 *
 * Lifetimes: an answer's strings point into the board's deck (tile and
 * feature ids) and map (its id, square names) and into static tables
 * (rule ids, reasons): keep the board's map and deck alive while reading
 * it. The answer owns its arrays and the player specs it names.
 * Threads: asking changes the board (score and advise, below), which
 * belongs to one thread at a time; an answer is a plain value, safe to
 * read from any thread. */
#ifndef CARCAMAP_ANSWER_H
#define CARCAMAP_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "board.h"
#include "player.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The questions. */
typedef enum {
	CM_ASK_LEGAL = 0, /* every legal placement of a tile with its follower spots */
	CM_ASK_SQUARE,    /* a square: its tile and the joined feature of each of its features */
	CM_ASK_SCORE,     /* the final scoring if the game ended now */
	CM_ASK_WAGON,     /* the first waiting wagon and every destination */
	CM_ASK_WHY,       /* whether that wagon may go to one piece, and why not */
	CM_ASK_ADVISE     /* what players would do next, with the values they saw */
} cm_ask_kind;

#define CM_ASK_MAX_TOP 100      /* advise: best choices kept per player, at most */
#define CM_ASK_PLAYERS_MAX 255  /* advise: length of the players text, at most */
#define CM_ASK_ADVISORS "greedy,mcts" /* advise: the players asked by default */

/* One question; cm_ask_init sets the defaults. */
typedef struct {
	cm_ask_kind kind;
	int tile;            /* LEGAL: the tile type (deck index); ADVISE: the tile to weigh
	                      * instead of the pile's next, -1 (default) for the pile's */
	int x, y;            /* SQUARE, WHY: the square (on the grid) */
	int feature;         /* WHY: the piece's feature index on (x,y) */
	const char *players; /* ADVISE: player specs (carcamap/player.h), comma-separated,
	                      * at most CM_ASK_PLAYERS_MAX bytes (default CM_ASK_ADVISORS) */
	int top;             /* ADVISE: best choices to keep per player, 1..CM_ASK_MAX_TOP (5) */
	uint64_t seed;       /* ADVISE: each player's generator is seeded with it (0) */
	int moves, moves_total; /* copied to the answer: where a replay put the board
	                         * (moves played of moves_total; 0 and 0 by default) */
} cm_ask;

void cm_ask_init(cm_ask *q, cm_ask_kind kind);

/* A feature a follower could be deployed on. */
typedef struct {
	int feature;          /* index in the tile type */
	cm_feature_kind kind;
} cm_answer_spot;

/* LEGAL: one placement. */
typedef struct {
	int x, y, rot;
	int n_spots;          /* meeple spots (every follower's without wagon spots);
	                       * -1: not known, the pile holds no copy of the tile */
	cm_answer_spot spots[CM_MAX_FEATURES];
	int n_wagon_spots;    /* with legal.wagon: the wagon's spots; -1 as n_spots */
	cm_answer_spot wagon_spots[CM_MAX_FEATURES];
} cm_answer_placement;

/* SQUARE: one feature of the square's tile (or printed big-city piece). */
typedef struct {
	int index;
	const char *id;       /* the feature id in the tile type; NULL for a printed piece */
	cm_feature_info info; /* the joined feature (cm_board_feature) */
	int follower_here;    /* the player whose follower stands on this very feature, or -1 */
} cm_answer_feature;

/* ADVISE: one choice and what it touches. */
typedef struct {
	cm_choice choice;
	double value;         /* best choices: the player's value (greedy: points; mcts: the
	                       * mean result of its playouts, 0 to 1); 0 for the choice */
	int visits;           /* best choices: the playouts that tried it (mcts); 0 for
	                       * players that do not sample, and for the choice */
	int feature_kind;     /* the cm_feature_kind of the choice's feature (the tile's, the
	                       * abbey's, the wagon destination's), -1 for none */
} cm_answer_choice;

/* ADVISE: one player's advice. */
typedef struct {
	char *player;         /* the spec asked ("greedy", "mcts:50") */
	bool available;       /* false: not in this build (nothing below is set) */
	cm_answer_choice choice; /* what its choose takes */
	int weighed;          /* choices it weighed (cm_player_advise), -1 when it does not say */
	int n_best;           /* its best choices, best first, at most the question's top */
	cm_answer_choice *best;
} cm_answer_advice;

/* An answer: the board as asked, then the members of its question. */
typedef struct {
	cm_ask_kind kind;
	const char *map;      /* the map's id */
	int moves, moves_total; /* as the question gave them */
	int player;           /* to move */
	int pile;             /* tiles left to draw */
	int players;
	int scores[CM_MAX_PLAYERS]; /* each player's score now (before a final scoring) */

	struct {
		const char *tile;     /* the tile type id */
		bool wagon_waits;     /* a wagon waits to move first: no placement */
		bool wagon;           /* the player could deploy its wagon: wagon spots given */
		size_t n_placements;  /* row-major, then by rotation (cm_board_placements) */
		cm_answer_placement *placements;
	} legal;

	struct {
		int x, y;
		cm_square_kind kind;
		const char *name;     /* printed name, or NULL */
		const char *tile;     /* the tile type id on it, NULL when empty (or a printed big city) */
		int rot;              /* that tile's rotation */
		bool open;            /* a tile may go there now (cm_board_open_square) */
		size_t n_features;
		cm_answer_feature *features;
	} square;

	struct {
		size_t n_items;       /* the final scoring items (cm_board_final) */
		cm_score_item *items;
		int final_scores[CM_MAX_PLAYERS];
	} score;

	struct {                      /* WAGON and WHY */
		bool waiting;         /* a wagon waits to move; nothing below is set otherwise */
		cm_wagon_pending pending; /* the first waiting wagon */
		const char *rule;     /* "WAGON-C1" or "WAGON-C2": by the board's edition */
		size_t n_destinations; /* WAGON: cm_board_wagon_moves */
		cm_wagon_dest *destinations;
		int x, y, feature;    /* WHY: the piece asked about */
		cm_feature_kind kind; /* WHY: its feature kind */
		cm_wagon_why why;     /* WHY: CM_WAGON_ALLOWED or the first check that fails */
		const char *reason;   /* WHY: the destination's reason, or the refusal (cm_wagon_why_text) */
		cm_wagon_dest how;    /* WHY: the destination, when allowed */
	} wagon;

	struct {
		const char *decision; /* "wagon", "tile", "abbey" (before the draw, the tile on
		                       * top unseen, while the pile is not empty; else after
		                       * the last tile), "none" */
		int decides;          /* the player who decides */
		cm_wagon_pending wagon; /* "wagon": the first waiting wagon */
		int tile;             /* the tile weighed (deck index), -1 for none; with the
		                       * question's tile it is given even for "none" */
		bool given;           /* the tile is the question's, not the pile's */
		const char *tile_id;  /* its id, or NULL */
		size_t n_aside;       /* tiles put aside before the pile's next (no legal placement) */
		const char **aside;   /* their ids, as drawing puts them aside */
		size_t n_advice;      /* one per player asked, in the question's order */
		cm_answer_advice *advice;
	} advise;
} cm_answer;

/* Asks question q of board b and fills *out (free it with
 * cm_answer_free). The board changes for two questions: SCORE scores it
 * finally (cm_board_final), ADVISE draws the pile's next tile and may
 * hand the turn to the player with an abbey; ask a copy
 * (cm_board_copy) to keep it. Returns 0; CM_EINVAL for a question the
 * board cannot take (a tile outside the deck, a square off the grid, a
 * feature the square does not have, a top or players text out of range,
 * final scoring refused while a wagon waits or after the game's own),
 * CM_ENOTFOUND or CM_EINVAL for a player spec that is no player's, or
 * CM_ENOMEM; *out is then NULL. A player not in this build is an answer
 * (available false). */
int cm_board_ask(cm_board *b, const cm_ask *q, cm_answer **out);
void cm_answer_free(cm_answer *a); /* NULL is a no-op */

/* The answer as the rules JSON (schemas/rules-json.md, carcamap-rules
 * 1.3): one document, two-space indentation, a trailing newline. Returns
 * 0 or CM_EIO. */
int cm_answer_write_json(const cm_answer *a, FILE *f);

/* "contact", "abbey", "range": what made a wagon destination adjacent. */
const char *cm_wagon_via_name(cm_wagon_via v);
/* "feature", "island", "town-cost": what a score item is about. */
const char *cm_item_type_name(cm_item_type t);
/* "tile", "abbey", "wagon", "pass". */
const char *cm_choice_kind_name(cm_choice_kind k);

#ifdef __cplusplus
}
#endif

#endif
