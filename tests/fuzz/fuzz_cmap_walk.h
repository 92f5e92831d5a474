/* SPDX-License-Identifier: MIT */
/* fuzz_cmap_walk.h: reads every record of an opened binary map through the
 * dependency-free reader (lib/reader/cmap.c), following each index it
 * returns, so that a reader bug shows as an out-of-bounds read under ASan.
 * cmap_open promises that after a successful open every accessor succeeds
 * for indices below the counts, and that the indices it hands out are in
 * range: both are checked. Included by the harnesses that produce or take
 * binary maps; the includer includes lib/reader/cmap.c first. */
#ifndef CM_FUZZ_CMAP_WALK_H
#define CM_FUZZ_CMAP_WALK_H

static inline size_t cmap_walk_str(const char *s)
{
	return s ? strlen(s) : 0; /* touches every byte up to the NUL */
}

static inline void cmap_walk_shape(const cmap_map *m, const cmap_shape *s)
{
	FUZZ_REQUIRE(s->n_features <= cmap_count(m, CMAP_T_FEATURES));
	FUZZ_REQUIRE(s->first_feature <= cmap_count(m, CMAP_T_FEATURES) - s->n_features);
	FUZZ_REQUIRE(s->n_contacts <= cmap_count(m, CMAP_T_CONTACTS));
	FUZZ_REQUIRE(s->first_contact <= cmap_count(m, CMAP_T_CONTACTS) - s->n_contacts);
}

static inline void cmap_walk(const cmap_map *m)
{
	size_t sum = 0;
	unsigned major, minor;
	cmap_version(m, &major, &minor);
	sum += cmap_walk_str(cmap_id(m)) + cmap_walk_str(cmap_name(m));
	cmap_rules r;
	cmap_get_rules(m, &r);
	uint32_t cols = cmap_cols(m), rows = cmap_rows(m);
	for (uint32_t y = 0; y < rows; y++)
		for (uint32_t x = 0; x < cols; x++) {
			cmap_square s;
			FUZZ_REQUIRE(cmap_get_square(m, x, y, &s) == 0);
			sum += cmap_walk_str(s.name);
			FUZZ_REQUIRE(s.island == CMAP_NONE || s.island < cmap_count(m, CMAP_T_ISLANDS));
			FUZZ_REQUIRE(s.bigcity == CMAP_NONE || s.bigcity < cmap_count(m, CMAP_T_BIGCITIES));
			FUZZ_REQUIRE(s.n_markers <= cmap_count(m, CMAP_T_MARKERS));
			FUZZ_REQUIRE(s.first_marker <= cmap_count(m, CMAP_T_MARKERS) - s.n_markers);
			uint32_t pr[4];
			FUZZ_REQUIRE(cmap_square_prints(m, x, y, pr) == 0);
			for (unsigned side = 0; side < 4; side++) {
				cmap_print p;
				if (pr[side] == CMAP_NONE)
					continue;
				FUZZ_REQUIRE(cmap_get_print(m, pr[side], &p) == 0);
				FUZZ_REQUIRE(p.x == x && p.y == y && p.side == side);
			}
		}
	cmap_square s;
	FUZZ_REQUIRE(cmap_get_square(m, cols, 0, &s) != 0);
	const char *str;
	uint32_t u;
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_MARKERS); i++) {
		FUZZ_REQUIRE(cmap_get_marker(m, i, &str) == 0);
		sum += cmap_walk_str(str);
	}
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_PRINTS); i++) {
		cmap_print p;
		FUZZ_REQUIRE(cmap_get_print(m, i, &p) == 0);
		FUZZ_REQUIRE(p.x < cols && p.y < rows);
		sum += cmap_walk_str(p.label);
	}
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_BIGCITIES); i++) {
		cmap_bigcity b;
		FUZZ_REQUIRE(cmap_get_bigcity(m, i, &b) == 0);
		FUZZ_REQUIRE(b.n_pieces <= cmap_count(m, CMAP_T_PIECES));
		FUZZ_REQUIRE(b.first_piece <= cmap_count(m, CMAP_T_PIECES) - b.n_pieces);
		sum += cmap_walk_str(b.name);
	}
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_PIECES); i++) {
		cmap_piece p;
		FUZZ_REQUIRE(cmap_get_piece(m, i, &p) == 0);
		FUZZ_REQUIRE(p.x < cols && p.y < rows);
		cmap_walk_shape(m, &p.shape);
	}
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_FEATURES); i++) {
		cmap_feature f;
		FUZZ_REQUIRE(cmap_get_feature(m, i, &f) == 0);
		sum += cmap_walk_str(f.id);
	}
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_CONTACTS); i++)
		FUZZ_REQUIRE(cmap_get_contact(m, i, &u) == 0);
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_FERRIES); i++) {
		cmap_ferry f;
		FUZZ_REQUIRE(cmap_get_ferry(m, i, &f) == 0);
		FUZZ_REQUIRE(f.x1 < cols && f.y1 < rows && f.x2 < cols && f.y2 < rows);
		sum += cmap_walk_str(f.name);
	}
	cmap_island is;
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_ISLANDS); i++) {
		FUZZ_REQUIRE(cmap_get_island(m, i, &is) == 0);
		sum += cmap_walk_str(is.name) + cmap_walk_str(is.title);
	}
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_TILESETS); i++) {
		cmap_tileset t;
		FUZZ_REQUIRE(cmap_get_tileset(m, i, &t) == 0);
		FUZZ_REQUIRE(t.n_tiles <= cmap_count(m, CMAP_T_TILES));
		FUZZ_REQUIRE(t.first_tile <= cmap_count(m, CMAP_T_TILES) - t.n_tiles);
		sum += cmap_walk_str(t.id) + cmap_walk_str(t.name);
	}
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_TILES); i++) {
		cmap_tile t;
		FUZZ_REQUIRE(cmap_get_tile(m, i, &t) == 0);
		cmap_walk_shape(m, &t.shape);
		sum += cmap_walk_str(t.id) + cmap_walk_str(t.name);
	}
	for (uint32_t i = 0; i < cmap_count(m, CMAP_T_DECK); i++) {
		cmap_deck_entry e;
		FUZZ_REQUIRE(cmap_get_deck_entry(m, i, &e) == 0);
		FUZZ_REQUIRE(e.tileset < cmap_count(m, CMAP_T_TILESETS));
		FUZZ_REQUIRE(e.tile == CMAP_NONE || e.tile < cmap_count(m, CMAP_T_TILES));
	}
	FUZZ_REQUIRE(cmap_get_island(m, cmap_count(m, CMAP_T_ISLANDS), &is) != 0);
	(void)sum;
}

#endif
