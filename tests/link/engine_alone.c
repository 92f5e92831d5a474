/* SPDX-License-Identifier: MIT */
/* engine_alone.c: the rules engine links alone. A map built in memory, a
 * deck from two tile types and a whole random game, linked against the
 * objects of lib/base, lib/model and lib/engine only: no libxml2, libpng
 * or SQLite (`make link-test`, part of `make test`). Exits 0 when the
 * game ran to its final scoring with every tile drawn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/board.h"
#include "carcamap/play.h"
#include "carcamap/map.h"
#include "carcamap/rng.h"

static int fail(const char *what, int rc)
{
	fprintf(stderr, "engine_alone: %s failed (%d)\n", what, rc);
	return 1;
}

int main(void)
{
	/* tile C: a city on the north side, a field round it; tile F: field */
	cm_feature c_feats[2] = {
		{ .kind = CM_FEAT_CITY, .id = "c1", .slots = CM_SIDE_SLOTS(CM_N) },
		{ .kind = CM_FEAT_FIELD, .id = "f1", .slots = CM_SLOTS_ALL & (cm_slots)~CM_SIDE_SLOTS(CM_N),
		  .touches = 1u },
	};
	cm_feature f_feats[1] = { { .kind = CM_FEAT_FIELD, .id = "f1", .slots = CM_SLOTS_ALL } };
	cm_tile_type types[2] = {
		{ .id = "C", .features = c_feats, .n_features = 2, .start = true },
		{ .id = "F", .features = f_feats, .n_features = 1 },
	};
	for (int i = 0; i < 2; i++)
		if (cm_tile_type_derive(&types[i]))
			return fail("cm_tile_type_derive", -1);
	const cm_tile_type *tv[2] = { &types[0], &types[1] };
	const int counts[2] = { 8, 12 };
	cm_deck *deck = NULL;
	int rc = cm_deck_from_types(tv, counts, 2, 0, NULL, &deck);
	if (rc)
		return fail("cm_deck_from_types", rc);

	cm_map_builder *mb = NULL;
	cm_map *m = NULL;
	if ((rc = cm_map_builder_new(6, 6, &mb)))
		return fail("cm_map_builder_new", rc);
	for (int i = 0; i < 36; i++)
		if ((rc = cm_map_builder_set_kind(mb, i % 6, i / 6, i == 2 * 6 + 2 ? CM_SQ_START : CM_SQ_LAND)))
			return fail("cm_map_builder_set_kind", rc);
	cm_setup su = { .starts_used = 1, .followers = 9 };
	cm_map_builder_set_setup(mb, &su);
	cm_map_builder_default_prints(mb);
	if ((rc = cm_map_builder_set_id(mb, "alone")) || (rc = cm_map_builder_finish(mb, NULL, NULL, NULL, &m)))
		return fail("cm_map_builder_finish", rc);

	cm_board *b = NULL;
	if ((rc = cm_board_new(m, deck, NULL, 2, 7, 0, NULL, &b)))
		return fail("cm_board_new", rc);
	cm_rng rng;
	cm_rng_seed(&rng, 7);
	if ((rc = cm_board_play_random(b, &rng)))
		return fail("cm_board_play_random", rc);
	int pile = cm_board_pile(b), s0 = cm_board_score(b, 0), s1 = cm_board_score(b, 1);
	const cm_game_stats *st = cm_board_stats(b);
	int placed = st ? st->tiles_placed : -1; /* st is the board's: read it before freeing */
	printf("engine alone: %d tiles placed, pile %d, scores %d %d\n", placed, pile, s0, s1);
	cm_board_free(b);
	cm_map_free(m);
	cm_deck_free(deck);
	return pile == 0 && placed > 0 ? 0 : 1;
}
