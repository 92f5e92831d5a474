/* SPDX-License-Identifier: MIT */
/* engine.h: the engine's layer-internal questions for the layers above it
 * (lib/check): the map's layout, which the validator reads before any tile
 * and every board of a game shares (layout.c), which squares play can
 * reach, and a few facts of a board. Not installed and not public; only
 * lib/ layers above the engine include it (tools/layers.sh keeps them off
 * board_int.h). Squares are indexed s = y * cols + x. */
#ifndef CM_ENGINE_H
#define CM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include "carcamap/board.h"

/* ---- The map's layout ---------------------------------------------- */

/* What the engine derives from a map alone (its squares' flags, printed
 * requirements, big cities, ferries, islands, start squares and their
 * static feature pieces), read-only once made: one per map serves the
 * validator, every board and every thread (a board made by cm_board_new
 * makes its own; cm_board_copy and cm__board_new_on share one). Reference
 * counted: safe to share between threads. */
typedef struct cm__layout cm__layout;

/* Makes map's layout. Returns 0, CM_EINVAL (a map the engine cannot play:
 * a partial map, a big-city piece or ferry out of place; see d, which may
 * be NULL), CM_ELIMIT (more than CM_BOARD_MAX_LINKS big
 * cities or ferries) or CM_ENOMEM. The map must outlive it, unchanged. */
int cm__layout_new(const cm_map *map, cm_diags *d, cm__layout **out);
/* The same with only what the questions below read (the squares, printed
 * requirements, big cities, ferries, islands, start squares), not the
 * feature pieces and counts boards read: what the validator asks costs
 * no more than it needs. Same codes and diagnostics as cm__layout_new. */
int cm__layout_new_reach(const cm_map *map, cm_diags *d, cm__layout **out);
/* Adds to a layout made by cm__layout_new_reach what boards read, while
 * its maker holds the only reference (before a board or a thread shares
 * it); a no-op on a whole layout. 0 or CM_ENOMEM (the layout then still
 * answers the questions below, and is freed as usual). */
int cm__layout_complete(cm__layout *l);
/* Drops a reference; the last frees it. NULL is a no-op. */
void cm__layout_free(cm__layout *l);
/* A board of a game on lay (its map; a whole layout: cm__layout_new or
 * cm__layout_complete), as cm_board_new, sharing lay (the board takes a
 * reference of its own). Same codes, less the layout's. */
int cm__board_new_on(cm__layout *lay, const cm_deck *deck, const cm_rules *rules, int n_players,
                     uint64_t seed, unsigned flags, cm_diags *d, cm_board **out);
/* The layout b plays on (borrowed). */
cm__layout *cm__board_layout(const cm_board *b);

int cm__layout_squares(const cm__layout *l);         /* cols * rows */
int cm__layout_playable_count(const cm__layout *l);  /* squares that can ever take a tile */
bool cm__layout_playable(const cm__layout *l, int s);
/* The same for every square at once, for passes over a million squares:
 * byte s of cm__layout_playable_flags has bit 0 set when square s is
 * playable; cm__layout_printed_reqs[s] is cm__layout_printed_req(l, s).
 * Borrowed from the layout. */
const uint8_t *cm__layout_playable_flags(const cm__layout *l);
const uint8_t *cm__layout_printed_reqs(const cm__layout *l);
/* The printed requirement of square s: 2 bits a side (side k at bits
 * 2k..2k+1), 0 none, 1 field, 2 road, 3 city (BASE-PLACE, MAP-EDGE). */
unsigned cm__layout_printed_req(const cm__layout *l, int s);
int cm__layout_start_count(const cm__layout *l);
int cm__layout_start_square(const cm__layout *l, int i);
int cm__layout_island(const cm__layout *l, int s);   /* island index of s, or -1 */
bool cm__layout_island_empty(const cm__layout *l, int island); /* has no square */

/* Reachability from the start squares (MAP-START) through neighbours
 * (BASE-PLACE), big-city unlocks (MAP-BIGCITY) and ferries (MAP-FERRY,
 * MAP-ISLAND), assuming every playable square with takes[s] != 0 gets a
 * tile. Sets reach[s] (cm__layout_squares entries) and isl_open[i] (one
 * per map island) to 1 for what play reaches; both must come zeroed.
 * Linear in the map. 0 or CM_ENOMEM. */
int cm__layout_reach(const cm__layout *l, const int *takes, uint8_t *reach, uint8_t *isl_open);
/* The same with what takes a tile given per printed requirement
 * (cm__layout_printed_req): takes_req[256]. */
int cm__layout_reach_req(const cm__layout *l, const uint8_t *takes_req, uint8_t *reach, uint8_t *isl_open);

/* ---- The deck and the board ---------------------------------------- */

/* Whether deck type t is an abbey (never drawn, never in the pile). */
bool cm__deck_abbey(const cm_deck *deck, size_t t);
/* A deck of base's types with counts[i] copies of type i instead (n_sets
 * none): cm_deck_from_types over base's types and start, without deriving
 * the types' facts again. 0, CM_ELIMIT, CM_EINVAL (no start copy, no
 * tile; said in d) or CM_ENOMEM. */
int cm__deck_recount(const cm_deck *base, const int *counts, cm_diags *d, cm_deck **out);
/* The rotations (bit r) in which deck type t meets the printed
 * requirement req (0..255, cm__layout_printed_req); 0 for an abbey. */
unsigned cm__deck_fit_req(const cm_deck *deck, size_t t, unsigned req);
/* The squares holding a tile, in the order they were filled (setup first);
 * *sq is borrowed until the board changes. Returns their count. */
int cm__board_filled(const cm_board *b, const int32_t **sq);
/* Random play (cm_board_play_random) with the processor features its
 * frontier scan may use (base/cpu_int.h: cm_cpu_features(), as the public
 * function passes; 0 for the portable scan): the same games either way,
 * which the tests compare. */
int cm__board_play_random_cpu(cm_board *b, cm_rng *rng, unsigned cpu);

/* The balance report's hooks (seating.c). */
/* Setup (MAP-START) on k chosen start squares (square indices; k at most
 * the map's start squares), for a board made with CM_BOARD_NO_SETUP right
 * after cm_board_new or cm_board_reset: as cm_board_new's setup with the
 * squares given instead of drawn (which of them takes the start tile is
 * drawn from the board's generator, then each tile's rotation; the other
 * squares take the first tile of the pile that fits). 0, or CM_EINVAL
 * (a square that is no start square, a setup that fails: see d). */
int cm__board_setup_on(cm_board *b, const int32_t *squares, int k, cm_diags *d);
/* Deals the pile to the seats in rotation r of a game of seats players:
 * in every whole round of the pile (seats tiles from its top on) the tile
 * seat s draws is the one seat (s + r) % seats would draw unrotated. So
 * the rotations 0..seats-1 of one shuffled pile give each seat each
 * seat's tiles once (seat 0 moves first after setup). Call it after the
 * setup, before the first turn. */
void cm__board_rotate_deal(cm_board *b, int seats, int r);

#endif
