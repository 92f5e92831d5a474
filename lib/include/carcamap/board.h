/* SPDX-License-Identifier: MIT */
/* carcamap/board.h: the rules engine's board (DESIGN.md "Rules engine";
 * RULES.md sections 1 and 2): a board over a map, a deck (carcamap/deck.h)
 * and 2..6 players with the turn API (draw, legal placements, place,
 * follower spots, deploy, score, final scoring), wagons and abbeys. Random
 * play is carcamap/play.h, replays carcamap/replay.h. Rule ids from
 * RULES.md name the rule each behaviour implements.
 *
 * Lifetimes: a board borrows its map and deck: keep them alive and
 * unchanged while the board lives. Nothing here prints.
 *
 * Wagons and abbeys (RULES.md 3 and 4, Abbey & Mayor figures): wagons
 * exist when the rule option `wagons` is on (cm_rules.wagons, default off:
 * MAP-TILES says maps use the expansions' tiles only); abbey tiles are
 * dealt, one per player, when the deck holds an abbey tile type (see
 * "Wagons and abbeys" below).
 * Threads: a board belongs to one thread at a time (it keeps scratch space,
 * even for its questions); boards over one shared map and deck may run on
 * different threads. */
#ifndef CARCAMAP_BOARD_H
#define CARCAMAP_BOARD_H

#include <stdbool.h>
#include <stdio.h>
#include "deck.h"
#include "map.h"
#include "rng.h"
#include "tileset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CM_MAX_PLAYERS 6

/* ---- Board --------------------------------------------------------- */

typedef struct cm_board cm_board;

/* Follower kinds: meeples (map->setup.followers per player) and, with the
 * `wagons` option, one wagon per player (WAGON-DEPLOY). */
typedef enum { CM_FOLLOWER_MEEPLE = 0, CM_FOLLOWER_WAGON = 1 } cm_follower_kind;

/* cm_board_new flags. */
#define CM_BOARD_NO_SETUP 1u /* no MAP-START placement: place start tiles
                              * yourself with cm_board_place_setup */

/* A new board: copies rules (NULL: map->rules), seeds the board's PRNG
 * with seed, shuffles the pile and, unless CM_BOARD_NO_SETUP, performs the
 * setup (MAP-START), in this order, every random choice from the board's
 * PRNG:
 *   1. the pile: every deck copy except the start tile copy, in deck type
 *      order, shuffled by Fisher-Yates (i from n-1 down to 1, j = below(i+1));
 *   2. the start squares: k = map->setup.starts_used clamped to 1..the
 *      number of start squares, chosen by a partial Fisher-Yates over the
 *      start squares in row-major order (the first k after the shuffle);
 *   3. the first chosen square takes the start tile (if the deck has one),
 *      every other chosen square the first tile of the pile that fits there
 *      (taken out, the rest keeps its order); each tile in a rotation drawn
 *      uniformly among those legal against the square's printed constraints
 *      (edge prints, big cities) and tiles already placed.
 * Followers per player: map->setup.followers (9 when 0; MAP-TILES).
 * Player 0 moves first. Returns 0, CM_EINVAL (bad player count, a map
 * the engine cannot play: a big-city piece or ferry out of place, setup
 * impossible; see d, which may be NULL), CM_ELIMIT (more than
 * CM_BOARD_MAX_LINKS big cities or ferries, or a size limit) or CM_ENOMEM. */
#define CM_BOARD_MAX_LINKS 32767 /* big cities, and ferries, one board takes */
int cm_board_new(const cm_map *map, const cm_deck *deck, const cm_rules *rules, int n_players,
                 uint64_t seed, unsigned flags, cm_diags *d, cm_board **out);
/* Starts a new game on the same map, deck, rules, players and flags with
 * another seed, without allocating. Same errors as cm_board_new. */
int cm_board_reset(cm_board *b, uint64_t seed, cm_diags *d);
void cm_board_free(cm_board *b); /* NULL is a no-op */

const cm_map *cm_board_map(const cm_board *b);
const cm_deck *cm_board_deck(const cm_board *b);
const cm_rules *cm_board_rules(const cm_board *b);
int cm_board_players(const cm_board *b);
uint64_t cm_board_seed(const cm_board *b);
int cm_board_current(const cm_board *b);          /* player to move */
void cm_board_set_current(cm_board *b, int player); /* scenarios, `rules` */
int cm_board_score(const cm_board *b, int player);
int cm_board_supply(const cm_board *b, int player); /* meeples not on the board */
/* Replaces the board's rule options mid-game (scenarios' `use` step, the
 * `rules` command's what-if questions): they apply from the next call on.
 * A change of `wagons` changes nobody's supply. */
void cm_board_set_rules(cm_board *b, const cm_rules *rules);
int cm_board_pile(const cm_board *b);             /* tiles left to draw */
bool cm_board_over(const cm_board *b);            /* pile empty */

/* The tile on square (x,y): 0 with *type (deck index) and *rot, or
 * CM_ENOTFOUND (empty, not a square). type or rot may be NULL. */
int cm_board_tile_at(const cm_board *b, int x, int y, int *type, int *rot);
/* The square the current turn placed a tile on: 0 with *x, *y, or
 * CM_ENOTFOUND when no tile was placed this turn. */
int cm_board_last_placed(const cm_board *b, int *x, int *y);
/* Whether some tile may go on (x,y) now: printed, playable, empty, next to
 * a tile or unlocked (MAP-BIGCITY, MAP-FERRY), and not on an island that
 * no ferry has connected yet (MAP-ISLAND). */
bool cm_board_open_square(const cm_board *b, int x, int y);

/* Draws the next tile: a tile without any legal placement is put aside
 * (counted as stranded) and the next one drawn (BASE-PLACE). Returns 0
 * with *type, or CM_ENOTFOUND when the pile is empty (the game is over). */
int cm_board_draw(cm_board *b, int *type);

typedef struct {
	int x, y, rot;
} cm_placement;

/* Whether tile type may go on (x,y) in rotation rot (quarter turns
 * clockwise) now: MAP-SQUARE, BASE-PLACE, MAP-EDGE-PRINT, MAP-BIGCITY,
 * MAP-FERRY, MAP-ISLAND. False while a wagon waits to move
 * (cm_board_wagon_pending; WAGON-MOVE), as cm_board_place refuses then. */
bool cm_board_legal(const cm_board *b, int type, int x, int y, int rot);
/* Every legal placement of tile type: writes at most max into out (out may
 * be NULL when max is 0) in square order (row-major), then rotation order;
 * returns the total number: 0 while a wagon waits to move (as
 * cm_board_legal). */
size_t cm_board_placements(const cm_board *b, int type, cm_placement *out, size_t max);
/* Places tile type (taken from the pile wherever it lies) on (x,y) in
 * rotation rot for the current player. Returns 0, CM_EINVAL (not legal,
 * or the previous turn was not ended) or CM_ENOTFOUND (no copy left). */
int cm_board_place(cm_board *b, int type, int x, int y, int rot);
/* Setup placement (MAP-START) without the adjacency rule: the square must
 * be playable and empty and the tile must match prints, big cities and
 * neighbours. The tile is taken from the pile, or is the set-aside start
 * tile when type is the start type and that copy is unused. No scoring, no
 * turn. Returns 0, CM_EINVAL or CM_ENOTFOUND. */
int cm_board_place_setup(cm_board *b, int type, int x, int y, int rot);
/* Puts tile type aside without placing it (replays). 0 or CM_ENOTFOUND. */
int cm_board_put_aside(cm_board *b, int type);

/* Features of the tile just placed on which the current player may deploy
 * a follower of this kind (BASE-OCCUPIED): not a garden, joined feature
 * unoccupied, a follower of that kind left in the supply; meeples may go
 * on fields (farmers), wagons only on roads, cities, monasteries and
 * abbeys (WAGON-DEPLOY).
 * Writes feature indices (into the tile type's features) in increasing
 * order, at most max; returns the total. 0 when nothing was placed. */
size_t cm_board_spots(const cm_board *b, cm_follower_kind kind, int *out, size_t max);
/* What cm_board_spots would say after cm_board_place(b, type, x, y, rot),
 * without placing: the board is only read (a rules client lists the
 * spots of every legal placement at the cost of the placements, not of a
 * board per placement). Writes the feature indices in increasing order,
 * at most max; returns the total, or CM_EINVAL when cm_board_place would
 * refuse the placement (not legal, a tile already placed this turn, a
 * wagon waiting, the game over) or CM_ENOTFOUND when no copy of type is
 * left to draw. */
int cm_board_spots_if(const cm_board *b, int type, int x, int y, int rot, cm_follower_kind kind, int *out,
                      size_t max);
/* ---- What a placement would do (the players' questions) ------------- */

/* A joined feature's state, as cm_board_feature reports it. */
typedef struct {
	cm_feature_kind kind;
	int tiles; /* BASE-TILE-COUNT; monasteries and abbeys: the tiles and
	            * big-city squares around them (MAP-MONASTERY-EDGE); fields:
	            * their pieces */
	int open;  /* open edges (roads, cities); monasteries and abbeys: the
	            * squares around them still to fill; 0 for fields and gardens */
	int arms;  /* coats of arms (MAP-COA) */
	int followers[CM_MAX_PLAYERS];
} cm_feature_state;

/* A feature after a placement: its state and what it scores. */
typedef struct {
	int set;                /* the lowest feature index of the placed tile in the
	                         * same joined feature (-1: none of the tile's) */
	cm_feature_state after; /* after the placement, before any follower is deployed */
	bool complete;          /* the end of the turn scores it */
	int points;             /* complete: what each scoring player gets now (as
	                         * cm_board_end_turn scores it); else what final
	                         * scoring would give it as it stands (fields: 0,
	                         * farmers are counted at the end) */
	unsigned players;       /* complete: bit p for each player who scores (the
	                         * followers' majority; 0: nobody holds it) */
} cm_feature_if;

/* A feature of the board the placement changes. */
typedef struct {
	int x, y, feature;       /* a piece of it, named as score items name features
	                          * (-1 for a printed segment or ferry alone) */
	cm_feature_state before; /* as it is now */
	cm_feature_if after;     /* what the placement makes of it: set >= 0 when it
	                          * joins the tile's features (then after is the
	                          * set's), -1 for a monastery or abbey around the
	                          * square, or a road or city an abbey closes */
} cm_touched_if;

#define CM_PLACE_IF_TOUCHED 24 /* 12 slots joined, 8 monasteries around, 4 sides an abbey closes */

/* What placing a tile (or an abbey) would do, without placing it. */
typedef struct {
	int n_features;                          /* the tile type's */
	cm_feature_if features[CM_MAX_FEATURES]; /* per feature index of the tile */
	int n_touched;
	cm_touched_if touched[CM_PLACE_IF_TOUCHED]; /* the board's features it joins or changes */
	int scores[CM_MAX_PLAYERS]; /* what the end of the turn gives each player when no
	                             * follower is deployed: every feature completed
	                             * (once), the island's coats of arms (MAP-ISLAND), the
	                             * town cost (MAP-TOWN 2) */
} cm_place_if;

/* What cm_board_place(b, type, x, y, rot) and cm_board_end_turn would do,
 * without placing: per feature of the tile, the joined feature it would
 * be part of (sets: features of the tile that join one feature), its
 * tiles, open edges, coats of arms and followers after joining, whether
 * it completes and what it scores and for whom; the board's features it
 * joins or changes, as they are now and after; the points the turn's end
 * would give. A follower deployed on a free feature (no followers after)
 * makes the current player its only holder. The cost is that of the
 * features touched, not of the board: a player asks it of every legal
 * placement each turn. Any tile type may be asked about, drawn or not.
 * The board is only read (scratch space aside: not safe from two threads
 * on one board). Returns 0, or CM_EINVAL when cm_board_legal refuses the
 * placement or a tile was placed this turn (out unchanged). */
int cm_board_place_if(const cm_board *b, int type, int x, int y, int rot, cm_place_if *out);
/* The same for the current player's abbey on (x,y) instead of drawing
 * (cm_board_place_abbey): the abbey's feature, the roads and cities it
 * closes and the monasteries around. CM_EINVAL unless
 * cm_board_abbey_legal. */
int cm_board_abbey_if(const cm_board *b, int x, int y, cm_place_if *out);

/* The tiles left to draw, per deck type (the order is unknown to the
 * players; the composition is not): counts[i] for type i < n (n up to
 * cm_deck_types). Returns the total left. */
int cm_board_remaining(const cm_board *b, int *counts, size_t n);
/* A determinization, for players that search: the players know which
 * tiles are left (cm_board_remaining), not their order. Shuffles the tiles
 * left to draw after the first keep of them (keep 1: the tile drawn now,
 * which its player sees, stays on top) by Fisher-Yates with rng, each
 * order equally likely; on a copy (cm_board_copy_into), it makes one of
 * the games the player cannot tell from the real one. Returns how many
 * tiles it shuffled. */
int cm_board_shuffle_pile(cm_board *b, int keep, cm_rng *rng);

/* A copy of b (same map, deck, rules, players, seed, generator state and
 * game so far; no score hook) to play forward on its own: what-if and
 * search players. The copy shares b's read-only layout of the map (what
 * the engine derives from the map alone, made once by cm_board_new), so
 * it costs the game state only; a copy may be used and freed on another
 * thread than b. Returns 0 or CM_ENOMEM. */
int cm_board_copy(const cm_board *b, cm_board **out);
/* Makes dst the same game as src without allocating: dst must be a board
 * of the same map, deck and player count (a copy of src, or one made by
 * cm_board_new with them). Its score hook stays its own. Costs the
 * board's squares and the pieces placed so far. Returns 0, or CM_EINVAL
 * when dst does not match. */
int cm_board_copy_into(cm_board *dst, const cm_board *src);

/* Deploys a follower of the current player on feature f of the tile just
 * placed. Returns 0 or CM_EINVAL (not a spot of that kind, already
 * deployed this turn). */
int cm_board_deploy(cm_board *b, int feature, cm_follower_kind kind);

/* What a score item is about. */
typedef enum {
	CM_ITEM_FEATURE = 0, /* a road, city, monastery or field (item.kind) */
	CM_ITEM_ISLAND,      /* MAP-ISLAND: coats of arms on the island square just filled */
	CM_ITEM_TOWN_COST    /* MAP-TOWN option 2: placing on a town costs 2 */
} cm_item_type;

/* One explained scoring: who scores what, and why. */
typedef struct {
	cm_item_type type;
	cm_feature_kind kind;  /* for CM_ITEM_FEATURE */
	bool complete;         /* the feature was complete */
	int x, y;              /* a square of the feature (its lowest node's square) */
	int feature;           /* that square's feature index, -1 for a printed piece */
	int tiles;             /* BASE-TILE-COUNT tiles; monasteries: the tiles
	                        * counted around them; fields: 0 */
	int arms;              /* coats of arms (tiles and map prints: MAP-COA) */
	int cities;            /* fields: complete cities supplied */
	int towns;             /* roads with town-road-bonus: visible towns touched */
	int points;            /* to each scoring player */
	unsigned players;      /* bit p: player p scores (0: nobody; shown only in-game) */
	const char *rule;      /* RULES.md id that decided it ("MAP-EDGE-DONE") */
	const char *reason;    /* "complete road: 1 per tile, 2 per coat of arms" */
} cm_score_item;

/* Ends the turn: scores every feature the tile just placed completed
 * (for an abbey: the features it closes, ABBEY-PLACE)
 * (BASE-*-DONE, BASE-SCORE, MAP-EDGE-DONE, MAP-BIGCITY-SCORE,
 * MAP-FERRY-SCORE, MAP-MONASTERY-EDGE, MAP-COA, MAP-ISLAND, MAP-TOWN),
 * returns those followers to their owners and passes the turn (or keeps
 * it: MAP-TOWN option 1). A wagon on a scored feature does not go back:
 * it waits for its move (WAGON-MOVE, cm_board_wagon_pending); until every
 * waiting wagon has moved or gone back, placing and final scoring are
 * refused. Completed features nobody occupies are items
 * with players 0. *items (borrowed; valid until the next call that
 * changes the board) and *n receive the items; either may be NULL.
 * Returns 0, or CM_EINVAL when no tile was placed this turn. */
int cm_board_end_turn(cm_board *b, const cm_score_item **items, size_t *n);
/* Final scoring (BASE-FINAL, MAP-FINAL; farmers by rules->farmers and
 * farmers_bigcity): every occupied incomplete road, city, monastery and
 * abbey and every occupied field. Once per game; the items as above.
 * Returns 0, or CM_EINVAL when already done, a turn is open or a wagon
 * waits to move. Farmers:
 *   C2 (default): each field scores 3 per complete city it touches, to the
 *     field's majority;
 *   C1 (classic, first-edition rule): each complete city touched by an
 *     occupied field scores 4 once, to the majority of the farmers in all
 *     fields that touch it. */
int cm_board_final(cm_board *b, const cm_score_item **items, size_t *n);

/* Called with the items of every cm_board_end_turn and cm_board_final
 * (also those random play makes, which passes NULL for the items): a game
 * drawn with its explained scores (`render --game`). The items are
 * borrowed for the call. NULL fn: no hook. Kept by cm_board_reset. */
typedef void (*cm_score_hook)(void *arg, const cm_score_item *items, size_t n);
void cm_board_set_score_hook(cm_board *b, cm_score_hook fn, void *arg);

/* What the board knows about feature f of the tile on (x,y). */
typedef struct {
	cm_feature_kind kind;
	bool complete;        /* open edges 0 (monastery: no neighbour missing) */
	bool scored;          /* scored during the game */
	int open;             /* open edges (monastery: neighbours missing) */
	int tiles;            /* BASE-TILE-COUNT (monastery: tiles around it) */
	int arms;
	int followers[CM_MAX_PLAYERS];
	bool inn, cathedral;  /* kept, but scored as plain roads and cities
	                       * (MAP-TILES: only the expansions' tiles are used) */
	bool bigcity, print, ferry; /* printed pieces in it */
	int wx, wy, wfeature; /* the piece that names the feature in score items
	                       * (cm_score_item x, y, feature): equal for every
	                       * piece of one joined feature; -1 when none */
} cm_feature_info;
/* 0, or CM_ENOTFOUND (no tile there, no such feature). */
int cm_board_feature(const cm_board *b, int x, int y, int f, cm_feature_info *out);

/* A follower on the board. */
typedef struct {
	int player;
	cm_follower_kind kind;
	int x, y, feature;
} cm_follower;
/* The followers on the board, in deployment order (borrowed; valid until
 * the board changes). Returns the count. */
size_t cm_board_followers(const cm_board *b, const cm_follower **out);

/* ---- Wagons and abbeys (RULES.md 3 and 4) ----------------------------- */

/* Wagons in player's supply: 0 or 1 (none without the `wagons` option). */
int cm_board_wagons(const cm_board *b, int player);
/* Abbey tiles player still holds. At the start of a game each player is
 * dealt one while the deck has copies of its abbey tile type (the first
 * deck type with an abbey feature; AM-abbey has 6): players 0, 1, … in
 * order. A deck without an abbey type deals none. */
int cm_board_abbeys(const cm_board *b, int player);

/* ABBEY-PLACE: whether the current player may place an abbey on (x,y)
 * now, instead of drawing: the player holds one, no turn is open and no
 * wagon waits, the square is printed, playable, empty, reachable (as for
 * any tile) and each of its four sides faces a tile; a printed big-city
 * square, a landmark or the map edge (anything that can never hold a
 * tile) counts as a tile side when rules->abbey_edge is on (default), and
 * never when it is off. The abbey's sides need not match. */
bool cm_board_abbey_legal(const cm_board *b, int x, int y);
/* Every square cm_board_abbey_legal accepts, row-major, at most max into
 * out (rot 0); returns the total. */
size_t cm_board_abbey_squares(const cm_board *b, cm_placement *out, size_t max);
/* Places the current player's abbey on (x,y): a turn like cm_board_place
 * (deploy on it with cm_board_spots/cm_board_deploy, then
 * cm_board_end_turn). The abbey closes every road and city side it
 * touches (it joins no feature and is no tile of them); it is a monastery
 * for scoring and followers. It connects no big city or ferry. Returns 0
 * or CM_EINVAL (not legal now). */
int cm_board_place_abbey(cm_board *b, int x, int y);

/* A wagon whose feature scored and that waits for its move (WAGON-MOVE).
 * Several wait in clockwise order from the player whose turn scored. A
 * wagon that has no destination when it is first to move goes back to its
 * owner's supply by itself (not a replay move). */
typedef struct {
	int player;
	int x, y;            /* the square it stood on (C2: the centre of its range) */
	int fx, fy, feature; /* the scored feature: a piece of it, as score items name it */
	cm_feature_kind kind;
} cm_wagon_pending;
/* How many wagons wait; *out (may be NULL) receives the first. */
int cm_board_wagon_pending(const cm_board *b, cm_wagon_pending *out);

/* Why a piece of a feature is, or is not, a destination of the first
 * waiting wagon. The checks run in this order; the first that fails is
 * the answer. */
typedef enum {
	CM_WAGON_ALLOWED = 0,
	CM_WAGON_FIELD,        /* a field or a garden: never a destination (WAGON-MOVE) */
	CM_WAGON_COMPLETE,     /* complete (or already scored) */
	CM_WAGON_OCCUPIED,     /* a follower stands on it (BASE-OCCUPIED) */
	CM_WAGON_NOT_ADJACENT, /* C1: it touches the scored feature nowhere (WAGON-C1) */
	CM_WAGON_CITY,         /* C1: it touches it, but two cities are never adjacent */
	CM_WAGON_TOO_FAR       /* C2/C3: this piece is not on the wagon's square or the 8 around (WAGON-C2) */
} cm_wagon_why;
/* "allowed", "field", "complete", "occupied", "not-adjacent", "city",
 * "too-far" (the scenario notation's names). */
const char *cm_wagon_why_name(cm_wagon_why w);
/* The same as a sentence with its rule id, for people:
 * "two cities are never adjacent (WAGON-C1)". */
const char *cm_wagon_why_text(cm_wagon_why w);

/* What made a destination adjacent. */
typedef enum {
	CM_WAGON_VIA_CONTACT = 0, /* C1: a contact of the tile type on (vx,vy): gate, junction, monastery */
	CM_WAGON_VIA_ABBEY,       /* C1: the abbey on (vx,vy) closes the other feature (a play-time contact) */
	CM_WAGON_VIA_RANGE        /* C2/C3: the piece is within one square of the wagon */
} cm_wagon_via;

/* One destination: a piece the wagon may stand on. */
typedef struct {
	int x, y, feature;     /* the piece: square and feature index there */
	int fx, fy, ffeature;  /* the destination feature, named as score items name it
	                        * (equal for the pieces of one feature) */
	cm_feature_kind kind;
	cm_wagon_via via;
	int vx, vy;            /* where the contact is (C1) or the piece's square (C2) */
	const char *rule;      /* "WAGON-C1" or "WAGON-C2" */
	const char *reason;    /* "road leaving the city through a gate", … */
} cm_wagon_dest;

/* The destinations of the first waiting wagon under the board's edition
 * (C1: WAGON-C1; C2 and C3: WAGON-C2): every piece of every allowed
 * feature (C1: any square of it; C2: only pieces in range), row-major by
 * square, then by feature index. Writes at most max into out (NULL when
 * max is 0); returns the total, 0 when no wagon waits. */
size_t cm_board_wagon_moves(const cm_board *b, cm_wagon_dest *out, size_t max);
/* Why feature f of the tile or big-city piece on (x,y) is or is not a
 * destination of the first waiting wagon: *why, and when allowed *how
 * (may be NULL). Returns 0, or CM_ENOTFOUND (no wagon waits, no such
 * feature). */
int cm_board_wagon_why(const cm_board *b, int x, int y, int f, cm_wagon_why *why, cm_wagon_dest *how);
/* Moves the first waiting wagon onto feature f of (x,y) (must be allowed),
 * or with f < 0 back to its owner's supply (always allowed: "or take it
 * back"). Returns 0 or CM_EINVAL (no wagon waits, not a destination). */
int cm_board_wagon_move(cm_board *b, int x, int y, int f);

#ifdef __cplusplus
}
#endif
#endif
