/* SPDX-License-Identifier: MIT */
/* carcamap/player.h: players (DESIGN.md "The next pieces": Players): one
 * interface that chooses a seat's decisions on a board, the library's
 * players behind it (random, greedy, mcts), player specs as the
 * command line names them ("greedy", "mcts:200"), and the game driver
 * that plays a board to its end with one player per seat.
 *
 * A client writes its own player with the public API alone: it reads the
 * board (carcamap/board.h: placements, spots, score-if questions, wagon
 * destinations, the tiles left) and answers with a cm_choice; see
 * libcarcamap(3) for a worked example.
 *
 * Threads: a player object serves one game at a time (players keep
 * scratch space); play games on several threads with a player object per
 * thread. Nothing here prints. */
#ifndef CARCAMAP_PLAYER_H
#define CARCAMAP_PLAYER_H

#include <stdbool.h>
#include "board.h"
#include "rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Choices ------------------------------------------------------- */

/* What a choice does. */
typedef enum {
	CM_CHOICE_TILE = 0, /* place the drawn tile on (x,y) in rotation rot */
	CM_CHOICE_ABBEY,    /* place the seat's abbey on (x,y) instead of drawing (ABBEY-PLACE) */
	CM_CHOICE_WAGON,    /* move the first waiting wagon (WAGON-MOVE) */
	CM_CHOICE_PASS      /* decline the abbey: draw a tile (tiles left) or keep it (after the last tile) */
} cm_choice_kind;

/* One decision of a seat: everything a turn decides (the tile's place and
 * the follower, or the abbey instead of the draw and its follower), or
 * where a waiting wagon goes after a scoring. */
typedef struct {
	cm_choice_kind kind;
	int x, y;       /* TILE, ABBEY: the square; WAGON: the destination's square */
	int rot;        /* TILE: quarter turns clockwise; 0 otherwise */
	int feature;    /* TILE, ABBEY: the feature index of the tile (or abbey) a
	                 * follower is deployed on, -1 for none; WAGON: the
	                 * destination's feature index on (x,y), -1 back to the supply */
	cm_follower_kind follower; /* TILE, ABBEY with a feature: meeple or wagon */
} cm_choice;

/* Plays choice c for the seat it is asked of (see cm_player below), with
 * the drawn tile type for CM_CHOICE_TILE: places and deploys, then ends
 * the turn (cm_board_end_turn; *items and *n as there, either may be
 * NULL); or moves the first waiting wagon; a pass changes nothing. The
 * choice is checked whole before anything changes: returns 0, or
 * CM_EINVAL with the board unchanged when the choice is not legal now
 * (the placement, the follower's spot, the abbey's square, the wagon's
 * destination; a pass while a turn is open or a wagon waits; a tile
 * choice while a wagon waits). */
int cm_board_apply(cm_board *b, int tile, const cm_choice *c, const cm_score_item **items, size_t *n);

/* ---- The player interface ------------------------------------------ */

typedef struct cm_player cm_player;

/* One choice a player weighed, and its value on the player's own scale
 * (greedy: points; mcts: the mean result of its playouts; higher is
 * better). */
typedef struct {
	cm_choice choice;
	double value;
	int visits; /* mcts: the playouts that tried it (value: their mean
	             * result, 0 to 1); 0 for players that do not sample */
} cm_advice;

/* A player: a client's player embeds this struct as its first member
 * (or points to it) and fills in the functions; the library's players
 * come from the constructors below. */
struct cm_player {
	/* Chooses this seat's next decision on b into *out. The driver
	 * (cm_board_play) asks in three situations, told apart by the board:
	 *   - a wagon waits to move (cm_board_wagon_pending(b, ...) > 0; the
	 *     first waiting wagon is this seat's): a CM_CHOICE_WAGON, to a
	 *     destination of cm_board_wagon_moves or back (feature -1); tile
	 *     is -1;
	 *   - the abbey question: tile is -1, no wagon waits, and this seat
	 *     holds an abbey some square takes (cm_board_abbey_squares): a
	 *     CM_CHOICE_ABBEY on such a square (and its follower), or a
	 *     CM_CHOICE_PASS. Asked at the start of each of the seat's turns
	 *     while tiles are left (cm_board_pile(b) > 0), before any tile
	 *     is shown, as at the table: a pass draws the tile and asks again
	 *     (below); the tiles on top that no square takes were put aside
	 *     already (cm_board_draw), so the tile on top, unseen, is one some
	 *     square takes. And once after the last tile (cm_board_pile(b) is
	 *     0), for each seat still holding an abbey, in turn from the
	 *     current one: a pass keeps it. *out comes filled with a pass: a
	 *     player that leaves it declines;
	 *   - tile >= 0: it is this seat's turn, tile (a deck type index) is
	 *     the top of the pile, drawn, and has a legal placement: a
	 *     CM_CHOICE_TILE (an abbey is no answer now: it was asked for
	 *     first).
	 * Every random choice must come from rng (the game's generator,
	 * shared by all seats), so a game depends only on the board, the
	 * players and the generator's seed: the same for every --jobs. A
	 * player may keep scratch space in self but no state that changes
	 * its choices from one game to the next. Returns 0, or a negative
	 * CM_E code that stops the game (cm_board_play returns it). */
	int (*choose)(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out);
	/* Frees self and what it owns (cm_player_free calls it); NULL when
	 * there is nothing to free. */
	void (*free)(cm_player *self);
	/* The name reports and replays show: the spec it was made from
	 * ("random", "mcts:200") or a client's own; one word (no blank, no
	 * '#'), at most CM_PLAYER_NAME_MAX bytes. */
	const char *name;
	/* Optional (NULL: the player does not say why): the choices it weighs
	 * for the decision choose would make in the same situation, best
	 * first, at most max into out (out may be NULL when max is 0), with
	 * their values; returns how many it weighed, or a negative CM_E code.
	 * Choices of equal value are those choose breaks a tie between with
	 * rng. rules --advise shows them. */
	int (*advise)(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_advice *out, size_t max);
};
#define CM_PLAYER_NAME_MAX 63

/* self->choose(self, b, tile, rng, out). */
int cm_player_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *out);
void cm_player_free(cm_player *p); /* p->free(p); NULL is a no-op */
/* self->advise(...), or CM_ENOTSUP when the player has no advise. */
int cm_player_advise(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_advice *out, size_t max);

/* ---- The library's players ----------------------------------------- */

/* random: every choice uniform among the legal ones, in the order
 * cm_board_play_random documents (carcamap/play.h): a board played by
 * random seats with a generator gives exactly cm_board_play_random's game
 * with that generator (random play's step 1, the abbey instead of the
 * draw, is its answer to the abbey question, which the driver asks after
 * putting aside the tiles no square takes, as random play does). Returns
 * 0 or CM_ENOMEM. */
int cm_player_new_random(cm_player **out);

/* greedy: one turn ahead. For the drawn tile it weighs every legal
 * placement with every follower choice on it (none, a meeple or the wagon
 * on each free feature); for the abbey question its abbey on every square
 * that takes one against a pass; it asks the engine what each would do
 * (cm_board_place_if, cm_board_abbey_if), and takes the best by this
 * value, in points:
 *   - the points the turn scores now, the player's own counted for and
 *     each opponent's against (shared over the opponents);
 *   - for every feature the placement joins or changes and that stays
 *     open, the change in what it is expected to score for its holders
 *     (same signs): a road or city completes before the end with chance
 *     p^open, p from the draws left and the share of the tiles left that
 *     have a road (city) side; a monastery's squares around fill with
 *     a chance from the draws left;
 *   - a follower on a feature completed now scores it and is back at
 *     once; on an open one it makes the player its holder, less the
 *     value of a follower locked away (more with few followers left and
 *     many turns to go, less the likelier the feature completes); a
 *     farmer is worth 3 points per city its piece touches, by that city's
 *     chance to complete, and a little for the rest of its field;
 *   - before the draw (the tile on top unseen), a pass is worth what a
 *     draw is expected to be worth: the best value above of each tile
 *     type left that some square takes, averaged over the copies left
 *     (cm_board_remaining); the abbey costs a few points more (it could
 *     be played later). That is a turn's evaluation per tile type left
 *     (the types with most copies first, and only until the draw surely
 *     wins), the dearest question greedy answers. After the last tile
 *     the abbey is played where it is worth most, or kept when nowhere
 *     it is worth anything.
 * A waiting wagon goes where it is worth most, or back. Ties (values
 * within 1e-9) are broken by rng. The weights are one table in
 * lib/engine/greedy.c; README "Players" lists them. Returns 0 or
 * CM_ENOMEM. */
int cm_player_new_greedy(cm_player **out);

/* mcts: Monte Carlo search for imperfect information, with budget
 * playouts per decision (0: CM_PLAYER_MCTS_BUDGET; at most
 * CM_PLAYER_MAX_BUDGET). For the drawn tile, a waiting wagon's move or
 * the abbey question before the draw, it ranks every choice as greedy
 * values it (above), then spends its playouts on greedy's best 3, one
 * more of the next best every 200 playouts (progressive widening),
 * choosing which to try by UCB1 with a progressive bias toward greedy's
 * value. A playout copies the board,
 * deals the tiles the player has not seen in an order of its own (the
 * determinization: cm_board_shuffle_pile; the tile on top too when
 * the abbey question is asked, before the draw), plays the choice (a pass
 * draws, and the tile drawn is placed as greedy would), and plays the
 * game to its end by random play; its result is the player's final margin
 * over the best opponent m, as 1 / (1 + exp(-m / 10)). The choice with
 * the most playouts is played (the better mean, then greedy's order, on a
 * tie). A decision with one choice takes no playout; the abbey after the
 * last tile is greedy's choice. Every random draw comes from a generator
 * seeded by one draw of rng per decision: the same games for a seed,
 * whatever the threads. advise lists the choices searched, most playouts
 * first, with their mean result (0 to 1) and playouts (cm_advice.visits).
 * Cost: a playout is a random game from the decision on, about 10
 * microseconds from mid-game on Germany (2 seats); the default budget
 * makes a Germany game between two mcts seats about a second on one
 * core. The weights are one table in lib/engine/mcts.c; README "Players"
 * lists them. Returns 0, CM_EINVAL (budget out of range) or CM_ENOMEM. */
#define CM_PLAYER_MCTS_BUDGET 1000
int cm_player_new_mcts(long budget, cm_player **out);

/* Player specs: the text that names a player on the command line and in
 * replays:
 *   random        uniform legal choices
 *   greedy        one turn ahead (cm_player_new_greedy)
 *   mcts, mcts:N  Monte Carlo search with N playouts per move
 *                 (1..CM_PLAYER_MAX_BUDGET; mcts alone: CM_PLAYER_MCTS_BUDGET)
 * Names are lowercase; nothing else is accepted (no blanks, no sign, no
 * leading '+'). CM_PLAYER_SPEC_FORMS says the accepted forms, for usage
 * messages. */
typedef enum { CM_PLAYER_RANDOM = 0, CM_PLAYER_GREEDY, CM_PLAYER_MCTS } cm_player_kind;
#define CM_PLAYER_MAX_BUDGET 1000000
#define CM_PLAYER_SPEC_FORMS "random, greedy, mcts or mcts:N (N playouts per move, 1 to 1000000)"

typedef struct {
	cm_player_kind kind;
	long budget; /* mcts: playouts per move, 0 for its default; 0 for the others */
} cm_player_spec;

/* Parses a spec (above). Returns 0, CM_ENOTFOUND (no such player: an
 * unknown name, a budget on a player that takes none) or CM_EINVAL (a
 * budget that is not a whole number from 1 to CM_PLAYER_MAX_BUDGET). */
int cm_player_spec_parse(const char *text, cm_player_spec *out);
/* A new player for spec, named by its spec text ("random", "mcts:200").
 * Free it with cm_player_free. Returns 0, CM_ENOMEM, or CM_ENOTSUP for a
 * player this build does not have. */
int cm_player_new(const cm_player_spec *spec, cm_player **out);
/* cm_player_spec_parse, then cm_player_new: its codes. */
int cm_player_new_from_spec(const char *text, cm_player **out);

/* ---- Playing a game ------------------------------------------------ */

/* Plays b from its current state to the end and scores it, seats[p]
 * choosing for player p (cm_board_players(b) of them; seats may repeat a
 * player object), rng the game's generator. Each turn: the waiting
 * wagons move first (their owners choose, in order); then the tiles on
 * top of the pile without a legal placement are put aside
 * (cm_board_draw); a current player holding an abbey that some square
 * takes is asked the abbey question (tile -1: place it instead of
 * drawing, or pass), and on a pass is shown the tile on top and chooses
 * its placement. When the pile is empty, each player from the current
 * one on who still holds an abbey that some square takes is asked again
 * (place it or keep it). Then final scoring. With every seat the
 * library's random player this is cm_board_play_random. Returns 0;
 * CM_EINVAL when a turn was left open or the game was scored, or a seat's
 * choice was not legal (said in d, which may be NULL; the board is left
 * where it stopped); or a seat's error. */
int cm_board_play(cm_board *b, cm_player *const *seats, cm_rng *rng, cm_diags *d);

/* The most seats a game on map with deck takes: CM_MAX_PLAYERS, fewer
 * when the tiles left to draw after setup could not give every seat a
 * turn (a seat that can never place a tile is no seat); at least 2. */
int cm_game_max_seats(const cm_map *map, const cm_deck *deck);

#ifdef __cplusplus
}
#endif
#endif
