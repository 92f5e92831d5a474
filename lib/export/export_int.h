/* SPDX-License-Identifier: MIT */
/* export_int.h: what the three exporters share (lib/export/export.c): the model
 * consistency check every writer runs first, and the resolution of the
 * map's deck against the tile sets given. */
#ifndef CM_EXPORT_INT_H
#define CM_EXPORT_INT_H

#include "carcamap/export.h"

/* The tile sets a deck uses, in order of first use, and per deck entry the
 * used-set index and the tile type index in that set (-1: the whole set). */
typedef struct {
	const cm_tileset **sets;
	size_t n_sets;
	size_t *entry_set;
	int *entry_tile;
	/* per used set: its first slot in in_deck, the whole-set entries that
	 * take each tile's own count, the copies whole-set entries with a
	 * count give every tile; per tile of each used set, the copies its own
	 * entries give (cm_export_in_deck adds them up) */
	size_t *set_first;
	long *set_default, *set_fixed;
	long *in_deck;
} cm_export_deck;

/* Resolves m's deck against sets, each set it uses put through
 * cm_tileset_check_model first unless sets_checked (the pack writer and
 * reader have checked every set they hold once, and resolve a deck per
 * map: a check per map would cost maps x set size). 0, CM_EINVAL (a set
 * fails the check), CM_ENOTFOUND or CM_ENOMEM (then *dk is empty).
 * Release with cm_export_deck_clear. */
int cm_export_deck_resolve(const cm_map *m, cm_tileset *const *sets, size_t n_sets, bool sets_checked,
                           cm_export_deck *dk);
void cm_export_deck_clear(cm_export_deck *dk);
/* Both of the above, as every writer starts, after refusing a partial map
 * (cm_map_partial): 0, CM_EINVAL, CM_ENOTFOUND or CM_ENOMEM (then *dk is
 * empty). */
int cm_export_prepare(const cm_map *m, cm_tileset *const *sets, size_t n_sets, cm_export_deck *dk);
/* Copies of tile type ti of used set si in the deck: the sum over the deck
 * entries naming it or its whole set (an entry count of -1 means the set's
 * count for the map's edition). */
long cm_export_in_deck(const cm_map *m, const cm_export_deck *dk, size_t si, size_t ti);
/* cm_export_bin_version for sets cm_tileset_check_model has passed (the
 * pack writer and reader check every set before encoding), not checked
 * again, and a map that is not partial (the pack's). */
int cm_export_bin_checked(const cm_map *m, cm_tileset *const *sets, size_t n_sets, unsigned major,
                          unsigned char **out, size_t *len);
/* Whether the len bytes at data are, byte for byte, cm_export_bin_checked
 * of m in major version major, compared without building the file (1.0's
 * square records in place as they are encoded; 2.0's sections from their
 * buffers; the pack reader's check of a stored binary): 0 and *equal, or
 * the error the encoding would give. */
int cm_export_bin_equal_checked(const cm_map *m, cm_tileset *const *sets, size_t n_sets, unsigned major,
                                const unsigned char *data, size_t len, bool *equal);
/* What a reader of m already knows of its grid, to spare the 2.0 encoder
 * its pass over every square: grid, the GRID records of m (two bytes per
 * square: kind, then the print kinds N + 4E + 16S + 64W), and sq, the
 * increasing indices of the n_sq squares that may carry more (every
 * other square has no arms, island, big city, print arms nor entry beside
 * the grid). The pack reader builds it while reading the grid texts. */
typedef struct {
	const uint8_t *grid;
	const size_t *sq;
	size_t n_sq;
} cm_export_grid_hint;
/* The hint of m (squares allocated, cols x rows) from one pass over its
 * squares (the pack writer's, shared by the hash, the
 * grid texts and the binary): grid and sq are new buffers, freed by
 * cm_export_grid_hint_free. With in_range, *in_range says whether every
 * square passed cm__square_in_range on the way (the model checker's test
 * of a square: CM__MODEL_GRID_OK). 0 or CM_ENOMEM, CM_ELIMIT. */
int cm_export_grid_hint_build(const cm_map *m, cm_export_grid_hint *out, bool *in_range);
void cm_export_grid_hint_free(cm_export_grid_hint *h);
/* cm_export_bin_checked in major version 2 with the hint: the same bytes
 * for a true hint. */
int cm_export_bin_hinted(const cm_map *m, cm_tileset *const *sets, size_t n_sets, const cm_export_grid_hint *hint,
                         unsigned char **out, size_t *len);
/* cm_export_bin_equal_checked in major version 2 with the hint (NULL: as
 * cm_export_bin_equal_checked): the same answer for a true hint. */
int cm_export_bin_equal_hinted(const cm_map *m, cm_tileset *const *sets, size_t n_sets, const cm_export_grid_hint *hint,
                               const unsigned char *data, size_t len, bool *equal);
/* Edge kinds of t derived from its features (t itself is not modified). */
void cm_export_edges(const cm_tile_type *t, uint8_t edge[4]);

#endif
