/* SPDX-License-Identifier: MIT */
/* engine.h: the engine's layer-internal questions for the validator
 * (lib/check): what a board without setup says about each square before any
 * tile, and which squares play can reach. Not installed and not public;
 * only lib/ layers above the engine include it (tools/layers.sh keeps them
 * off board_int.h). Squares are indexed s = y * cols + x. */
#ifndef CM_ENGINE_H
#define CM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include "carcamap/board.h"

/* Whether deck type t is an abbey (never drawn, never in the pile). */
bool cm__deck_abbey(const cm_deck *deck, size_t t);

int cm__board_squares(const cm_board *b);         /* cols * rows */
int cm__board_playable_count(const cm_board *b);  /* squares that can ever take a tile */
bool cm__board_playable(const cm_board *b, int s);
/* The same for every square at once, for passes over a million squares:
 * byte s of cm__board_playable_flags has bit 0 set when square s is
 * playable; cm__board_printed_reqs[s] is cm__board_printed_req(b, s).
 * Borrowed from the board. */
const uint8_t *cm__board_playable_flags(const cm_board *b);
const uint8_t *cm__board_printed_reqs(const cm_board *b);
/* The printed requirement of square s: 2 bits a side (side k at bits
 * 2k..2k+1), 0 none, 1 field, 2 road, 3 city (BASE-PLACE, MAP-EDGE). */
unsigned cm__board_printed_req(const cm_board *b, int s);
/* The rotations (bit r) in which deck type t meets square s's printed
 * requirement; 0 for an abbey. */
unsigned cm__board_fit_rotations(const cm_board *b, size_t t, int s);
/* The same for any printed requirement req (0..255). */
unsigned cm__board_fit_req(const cm_board *b, size_t t, unsigned req);
/* The squares holding a tile, in the order they were filled (setup first);
 * *sq is borrowed until the board changes. Returns their count. */
int cm__board_filled(const cm_board *b, const int32_t **sq);
int cm__board_start_count(const cm_board *b);
int cm__board_start_square(const cm_board *b, int i);
int cm__board_island(const cm_board *b, int s);   /* island index of s, or -1 */
bool cm__board_island_empty(const cm_board *b, int island); /* has no square */

/* cm_board_new flag: a static board, for the queries above only (no game
 * state is made: every other board function is out of bounds on it). A
 * million-square map's validator board then costs its static arrays alone. */
#define CM__BOARD_STATIC 0x80000000u

/* Tests only: true makes random play use its portable frontier scan even
 * where the processor has SSSE3 (play.c), so both scans can be compared.
 * Set it before any game starts; it is read, never written, by the engine. */
extern bool cm__play_scalar_scan;

/* Reachability from the start squares (MAP-START) through neighbours
 * (BASE-PLACE), big-city unlocks (MAP-BIGCITY) and ferries (MAP-FERRY,
 * MAP-ISLAND), assuming every playable square with takes[s] != 0 gets a
 * tile. Sets reach[s] (cm__board_squares entries) and isl_open[i] (one per
 * map island) to 1 for what play reaches; both must come zeroed. Linear in
 * the board. 0 or CM_ENOMEM. */
int cm__board_reach(const cm_board *b, const int *takes, uint8_t *reach, uint8_t *isl_open);
/* The same with what takes a tile given per printed requirement
 * (cm__board_printed_req): takes_req[256]. */
int cm__board_reach_req(const cm_board *b, const uint8_t *takes_req, uint8_t *reach, uint8_t *isl_open);

#endif
