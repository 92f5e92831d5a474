/* SPDX-License-Identifier: MIT */
/* util_board.h: test helpers shared by the rules engine's unit tests
 * (test_board.c, test_wagon.c): a scenario file with its deck, and
 * replays written, read back and played again. Every name starts with
 * util_. */
#ifndef UTIL_BOARD_H
#define UTIL_BOARD_H

#include "carcamap/board.h"
#include "carcamap/replay.h"
#include "scenario.h"

typedef struct {
	cm_scenario *scn;
	cm_deck *deck;
} util_fixture;

/* Reads a scenario file and builds its deck; fails the test on error. */
util_fixture util_fixture_load(const char *path);
void util_fixture_unload(util_fixture *fx);
/* The replay of b as text (schemas/replay.md); the caller frees it. */
char *util_replay_text(const cm_board *b);
/* Writes b's replay, reads it back and plays it on fx's map and deck:
 * asserts the same scores and the same replay text, and returns the board
 * played back (the caller frees it). */
cm_board *util_replay_again(const util_fixture *fx, const cm_board *b);

#endif
