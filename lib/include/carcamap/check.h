/* SPDX-License-Identifier: MIT */
/* carcamap/check.h: the validator's map levels above structure (DESIGN.md
 * "Validator"): playability against the deck (CM05xx) and statistics from
 * simulated games (CM06xx), and the whole pipeline over a workspace, which
 * `carcamap check` and `carcamap compile` run on every map they load. The
 * thresholds below are documented in schemas/checks.md.
 * Threads: the checks only read their map and tile sets; the games of
 * --games run on threads of the library's own (cm_play_games_jobs). */
#ifndef CARCAMAP_CHECK_H
#define CARCAMAP_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include "diag.h"
#include "map.h"
#include "tileset.h"
#include "workspace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CM0502: a square that fewer copies of the deck than this fit (in some
 * rotation, against its printed constraints alone) is hard to fill. */
#define CM_CHECK_FEW_TILES 5
/* CM0602: a square filled in fewer than this per mille of the games. */
#define CM_CHECK_RARE_PERMILLE 10
/* CM0502 (per printed requirement) and CM0602 are reported for the first
 * this many squares (in row order), then once with the count of the rest:
 * they have one cause (the deck's tiles for that requirement; the games),
 * and a degenerate map has a million such squares. */
#define CM_CHECK_LISTED 20
/* CM0603: mean fill ratio (squares filled at the end / playable squares)
 * below this per mille. */
#define CM_CHECK_LOW_FILL_PERMILLE 700
/* CM0604: the games put aside (drawn with no legal placement) more than
 * this percent of the deck, on average. */
#define CM_CHECK_STRAND_PERCENT 10
/* CM0606: the deck-fitting curve check --games reads the recommended
 * tile range off plays at most this many random games a deck size. */
#define CM_CHECK_FIT_GAMES 40
/* The first game's seed when none is given; game i plays seed + i. */
#define CM_CHECK_DEFAULT_SEED 1
/* --games of check and play take 1..CM_CHECK_MAX_GAMES */
#define CM_CHECK_MAX_GAMES 10000000

typedef struct {
	bool structure;   /* run the structural checks (cm_map_check) first: for
	                   * maps that did not come from a descriptor (packs,
	                   * memory); the descriptor reader ran them already */
	int games;        /* simulated games (CM06xx); 0: none */
	uint64_t seed;    /* seed of the first game */
	int players;      /* players per simulated game, 2..6 */
	int jobs;         /* threads for the games (cm_play_games_jobs); 0 or 1: one.
	                   * The results are the same for every value */
	int *fits;        /* out, optional: m->cols * m->rows entries (row-major)
	                   * receiving the number of the deck's tile types that
	                   * fit each playable square in some rotation (the
	                   * count behind CM0501 and CM0502); -1 for squares that
	                   * take no tile or were not analysed (no deck) */
	int listed;       /* squares CM0502 (per requirement) and CM0602 name
	                   * before the rest are counted in one diagnostic:
	                   * 0 CM_CHECK_LISTED, < 0 all */
} cm_check_opts;

/* Defaults: no structure, no games, seed CM_CHECK_DEFAULT_SEED, 2 players. */
void cm_check_opts_init(cm_check_opts *o);

/* Checks map m against the deck its entries build from sets[0..n_sets):
 * with o->structure first the CM02xx checks (and nothing more when they
 * find errors), then playability (CM05xx):
 *   - every playable square takes some tile type of the deck in some
 *     rotation against its printed constraints (edge prints, big-city
 *     sides; neutral edges, waves and landmarks take anything) (CM0501),
 *     and at least CM_CHECK_FEW_TILES copies (CM0502: the first
 *     o->listed squares of one requirement, then one with the count);
 *   - every such square is reachable from the start squares through
 *     squares that take tiles, big-city unlocks and ferries (CM0503), and
 *     every island is opened by a ferry that play can reach (CM0504);
 *   - every start square takes the start tile (CM0505);
 *   - the deck's size against the playable squares (CM0506) and the
 *     recommended range (CM0507); each ferry end takes a tile with a road
 *     towards the ferry (CM0508); the engine can build the deck (CM0509);
 * then, with o->games > 0 and no playability error, that many random games
 * of o->players (cm_play_games with o->seed: the games `carcamap play
 * --seed` plays):
 * a CM0601 note with the figures, CM0602 per rarely filled square (the
 * first o->listed, then one with the count of the rest), CM0603,
 * CM0604. Matching and play are the rules engine's (carcamap/board.h).
 * Diagnostics carry m->file and the square's element line when it has one,
 * else a `where` ("map germany, square (3,4)"); those about a square carry
 * it (cm_diags_set_square); a map that is one of a descriptor's printings
 * is named in every `where` ("map germany-c3"), as its printings share the
 * lines. o NULL means the defaults.
 * Returns 0, CM_EINVAL (errors reported) or CM_ENOMEM. */
int cm_check_map(const cm_map *m, const cm_tileset *const *sets, size_t n_sets,
                 const cm_check_opts *o, cm_diags *d);

/* cm_check_map on every map of w with the tile sets its deck names
 * (cm_workspace_map_sets), in load order; o->structure is set for each map
 * that has no descriptor file (read from a pack). Returns 0, CM_EINVAL or
 * CM_ENOMEM. */
int cm_check_workspace(const cm_workspace *w, const cm_check_opts *o, cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
