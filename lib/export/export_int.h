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
int cm_export_deck_resolve(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, bool sets_checked,
                           cm_export_deck *dk);
void cm_export_deck_clear(cm_export_deck *dk);
/* Both of the above, as every writer starts, after refusing a partial map
 * (cm_map_partial): 0, CM_EINVAL, CM_ENOTFOUND or CM_ENOMEM (then *dk is
 * empty). */
int cm_export_prepare(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, cm_export_deck *dk);
/* Copies of tile type ti of used set si in the deck: the sum over the deck
 * entries naming it or its whole set (an entry count of -1 means the set's
 * count for the map's edition). */
long cm_export_in_deck(const cm_map *m, const cm_export_deck *dk, size_t si, size_t ti);
/* Edge kinds of t derived from its features (t itself is not modified). */
void cm_export_edges(const cm_tile_type *t, uint8_t edge[4]);

#endif
