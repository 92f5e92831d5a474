/* SPDX-License-Identifier: MIT */
/* deck.c: the deck of a game (carcamap/board.h "Deck"): resolving a map's
 * deck entries against tile sets, per-edition and explicit counts, the
 * start tile, and what the engine precomputes per tile type (features per
 * slot and rotation, edge codes, legal rotations per edge requirement). */
#include <stdlib.h>
#include <string.h>
#include "engine/board_int.h"
#include "engine/engine.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

/* The join signature (JS_) of the three slots sl[0], sl[step], sl[2 * step]. */
static uint8_t join_sig(const type_info *ti, const int8_t *sl, int step)
{
	int f0 = sl[0], f1 = sl[step], f2 = sl[2 * step];
	unsigned m = ti->abbey ? JS_ABBEY : 0;
	m |= ti->kind[f0] == CM_FEAT_FIELD ? JS_FIELD0 : 0;
	m |= ti->kind[f1] == CM_FEAT_FIELD ? JS_FIELD1 : 0;
	m |= ti->kind[f2] == CM_FEAT_FIELD ? JS_FIELD2 : 0;
	m |= ti->kind[f1] == CM_FEAT_ROAD ? JS_ROAD1 : 0;
	m |= ti->kind[f1] == CM_FEAT_CITY ? JS_CITY1 : 0;
	m |= f0 == f1 ? JS_SAME01 : 0;
	m |= f1 == f2 ? JS_SAME12 : 0;
	return (uint8_t)m;
}

int cm__type_info(const cm_tile_type *t, type_info *ti)
{
	memset(ti, 0, sizeof *ti);
	if (t->n_features > CM_MAX_FEATURES)
		return CM_EINVAL;
	ti->n_feat = (uint8_t)t->n_features;
	ti->mon = -1;
	int8_t slot0[12];
	for (int i = 0; i < 12; i++)
		slot0[i] = -1;
	int n_kind[CM_FEAT_KIND_COUNT] = { 0 };
	for (size_t f = 0; f < t->n_features; f++) {
		const cm_feature *ft = &t->features[f];
		ti->kind[f] = (uint8_t)ft->kind;
		ti->arms[f] = ft->arms;
		ti->touches[f] = ft->kind == CM_FEAT_FIELD ? ft->touches : 0;
		if (ft->inn)
			ti->nflags[f] |= NF_INN;
		if (ft->cathedral)
			ti->nflags[f] |= NF_CATHEDRAL;
		if ((unsigned)ft->kind < CM_FEAT_KIND_COUNT)
			n_kind[ft->kind]++;
		if (ft->kind != CM_FEAT_GARDEN)
			ti->spot_meeple |= 1u << f;
		if (ft->kind != CM_FEAT_GARDEN && ft->kind != CM_FEAT_FIELD)
			ti->spot_wagon |= 1u << f;
		if (ft->kind == CM_FEAT_MONASTERY || ft->kind == CM_FEAT_ABBEY) {
			if (ti->mon < 0)
				ti->mon = (int8_t)f;
		}
		if (ft->kind == CM_FEAT_ABBEY)
			ti->abbey = true;
		for (int i = 0; i < 12; i++)
			if ((ft->slots & (1u << i)) && slot0[i] < 0)
				slot0[i] = (int8_t)f;
		if (ft->kind == CM_FEAT_ROAD || ft->kind == CM_FEAT_CITY) {
			ti->roadcity |= 1u << f;
			int sides = 0;
			for (int s = 0; s < 4; s++)
				if (ft->slots & CM_SIDE_MID(s))
					sides++;
			ti->open0[f] = (uint8_t)sides;
		}
	}
	for (int i = 0; i < 12; i++)
		if (slot0[i] < 0)
			return CM_EINVAL;
	for (size_t f = 0; f < t->n_features; f++) {
		cm_feature_kind k = t->features[f].kind;
		if ((k == CM_FEAT_ROAD || k == CM_FEAT_CITY) && n_kind[k] > 1) {
			ti->nflags[f] |= NF_MULTI;
			for (size_t g = 0; g < t->n_features; g++)
				if (g != f && t->features[g].kind == k)
					ti->same[f] |= 1u << g;
		}
	}
	for (int r = 0; r < 4; r++) {
		/* after r quarter turns, slot i shows what slot i-3r showed */
		for (int i = 0; i < 12; i++)
			ti->slot[r][i] = slot0[((i - 3 * r) % 12 + 12) % 12];
		for (int s = 0; s < 4; s++) {
			int f = ti->slot[r][3 * s + 1];
			cm_edge_kind e;
			switch (ti->kind[f]) {
			case CM_FEAT_CITY: e = CM_EDGE_CITY; break;
			case CM_FEAT_ROAD: e = CM_EDGE_ROAD; break;
			case CM_FEAT_ABBEY: e = CM_EDGE_ABBEY; break;
			default: e = CM_EDGE_FIELD; break;
			}
			ti->edge[r][s] = (uint8_t)e;
			ti->reqn[r] |= (uint8_t)((e == CM_EDGE_ABBEY ? REQ_ANY : e + 1) << (2 * ((s + 2) & 3)));
			ti->jsig[r][s] = join_sig(ti, ti->slot[r] + 3 * s, 1);
			ti->jsigr[r][s] = join_sig(ti, ti->slot[r] + 3 * s + 2, -1);
		}
	}
	/* the rotations meeting a requirement byte: sides N and E (the low
	 * nibble) and sides S and W (the high one) looked up apart and
	 * intersected (big maps build this for every big-city piece) */
	uint8_t half[2][16];
	for (int h = 0; h < 2; h++)
		for (int q = 0; q < 16; q++) {
			uint8_t m = 0;
			for (int r = 0; r < 4; r++) {
				bool ok = true;
				for (int j = 0; j < 2 && ok; j++) {
					int need = (q >> (2 * j)) & 3;
					int e = ti->edge[r][2 * h + j];
					ok = need == REQ_ANY || e == CM_EDGE_ABBEY || e + 1 == need;
				}
				if (ok)
					m |= (uint8_t)(1u << r);
			}
			half[h][q] = m;
		}
	for (int q = 0; q < 256; q++) {
		uint8_t m = (uint8_t)(half[0][q & 15] & half[1][q >> 4]);
		ti->rotmask[q] = m;
		ti->rotcnt[q] = (uint8_t)((m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1));
	}
	return 0;
}

static void deck_err(cm_diags *d, const char *where, const char *msg, const char *arg)
{
	if (d)
		cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, where, "%s%s%s", msg, arg ? ": " : "",
		             arg ? arg : "");
}

/* Adds type i's count to k's total (abbeys are never drawn: ABBEY-PLACE;
 * a negative count is 0): 0, or CM_ELIMIT when it would take the total
 * past CM_DECK_MAX_TILES (said once in d: *too_many), its count then 0. */
static int count_type(cm_deck *k, size_t i, bool *too_many, cm_diags *d)
{
	if (k->count[i] < 0)
		k->count[i] = 0;
	if (k->info[i].abbey)
		return 0;
	if (k->count[i] > CM_DECK_MAX_TILES - k->total) {
		/* no count sums past the cap, so no sum overflows */
		if (!*too_many)
			deck_err(d, "deck", "the deck holds more than 1000000 tiles", k->types[i]->id);
		*too_many = true;
		k->count[i] = 0;
		return CM_ELIMIT;
	}
	k->total += k->count[i];
	return 0;
}

/* A deck whose totals are made: its start tile has a copy and it holds a
 * tile. 0 or CM_EINVAL (said in d). */
static int deck_checks(const cm_deck *k, cm_diags *d)
{
	if (k->start >= 0 && k->count[k->start] < 1) {
		deck_err(d, "deck", "no copy of the start tile", k->types[k->start]->id);
		return CM_EINVAL;
	}
	if (k->total == 0) {
		deck_err(d, "deck", "the deck holds no tile", NULL);
		return CM_EINVAL;
	}
	return 0;
}

/* Shared tail of both constructors: checks, derived info, totals. */
static int deck_finish(cm_deck *k, cm_diags *d)
{
	int rc = 0;
	if (k->n_types > 255) {
		deck_err(d, "deck", "more than 255 tile types in a deck", NULL);
		return CM_EINVAL;
	}
	k->info = calloc(k->n_types ? k->n_types : 1, sizeof *k->info);
	if (!k->info)
		return CM_ENOMEM;
	k->total = 0;
	bool too_many = false;
	for (size_t i = 0; i < k->n_types; i++) {
		const cm_tile_type *t = k->types[i];
		if (!t->id) {
			deck_err(d, "deck", "tile type without an id", NULL);
			rc = CM_EINVAL;
			continue;
		}
		/* at most 255 types (above): the pairwise look is bounded */
		for (size_t j = 0; j < i; j++)
			if (k->types[j]->id && strcmp(k->types[j]->id, t->id) == 0) {
				deck_err(d, "deck", "tile id used twice in the deck", t->id);
				rc = CM_EINVAL;
			}
		if (cm__type_info(t, &k->info[i]) < 0) {
			deck_err(d, "deck", "tile type has too many features or an uncovered slot", t->id);
			rc = CM_EINVAL;
		}
		if (count_type(k, i, &too_many, d) < 0)
			rc = CM_ELIMIT;
	}
	if (rc == 0 && k->n_types) {
		/* the fit tables of the distinct edge patterns (edge[0] decides
		 * rotcnt and rotmask), one copy each */
		k->fit = malloc(k->n_types * CM__FIT_SIZE);
		if (!k->fit)
			return CM_ENOMEM;
		size_t n_fit = 0;
		for (size_t i = 0; i < k->n_types; i++) {
			size_t j = 0;
			while (j < i && memcmp(k->info[j].edge[0], k->info[i].edge[0], 4) != 0)
				j++;
			if (j < i) {
				k->info[i].fit = k->info[j].fit;
				continue;
			}
			uint8_t *f = k->fit + CM__FIT_SIZE * n_fit++;
			memcpy(f, k->info[i].rotcnt, 256);
			memcpy(f + 256, k->info[i].rotmask, 256);
			/* rotmask[q] is half[q & 15] & half[16 + (q >> 4)] */
			for (int h = 0; h < 16; h++) {
				f[512 + h] = k->info[i].rotmask[h];
				f[528 + h] = k->info[i].rotmask[h << 4];
			}
			k->info[i].fit = f;
		}
	}
	return rc == 0 ? deck_checks(k, d) : rc;
}

/* Hands k out when everything went well, frees it otherwise. */
static int deck_done(cm_deck *k, int rc, cm_diags *d, cm_deck **out)
{
	if (rc == 0)
		rc = deck_finish(k, d);
	if (rc < 0) {
		cm_deck_free(k);
		return rc;
	}
	*out = k;
	return 0;
}

static int add_type(cm_deck *k, size_t *cap, const cm_tile_type *t, int count, bool replace)
{
	for (size_t i = 0; i < k->n_types; i++)
		if (k->types[i] == t) {
			k->count[i] = replace ? count : k->count[i] + count;
			return (int)i;
		}
	size_t c1 = *cap;
	if (cm_grow((void **)&k->types, cap, k->n_types, sizeof *k->types) < 0)
		return CM_ENOMEM;
	if (cm_grow((void **)&k->count, &c1, k->n_types, sizeof *k->count) < 0)
		return CM_ENOMEM;
	k->types[k->n_types] = t;
	k->count[k->n_types] = count;
	return (int)k->n_types++;
}

static int add_set_id(cm_deck *k, const char *id)
{
	for (size_t i = 0; i < k->n_sets; i++)
		if (strcmp(k->set_ids[i], id) == 0)
			return 0;
	char **v = realloc(k->set_ids, (k->n_sets + 1) * sizeof *v);
	if (!v)
		return CM_ENOMEM;
	k->set_ids = v;
	if (!(v[k->n_sets] = cm_strdup(id)))
		return CM_ENOMEM;
	k->n_sets++;
	return 0;
}

static int add_whole_set(cm_deck *k, size_t *cap, const cm_tileset *ts, cm_edition e)
{
	int rc = add_set_id(k, ts->id ? ts->id : "");
	for (size_t i = 0; rc == 0 && i < ts->n_tiles; i++) {
		const cm_tile_type *t = &ts->tiles[i];
		int at = add_type(k, cap, t, t->count[e], true);
		if (at < 0)
			return at;
		if (t->start && ts->base && k->start < 0)
			k->start = at;
	}
	return rc;
}

int cm_deck_build(const cm_map *map, const cm_tileset *const *sets, size_t n_sets, cm_diags *d,
                  cm_deck **out)
{
	*out = NULL;
	cm_deck *k = calloc(1, sizeof *k);
	if (!k)
		return CM_ENOMEM;
	k->start = -1;
	size_t cap = 0;
	int rc = 0;
	cm_edition e = map->rules.edition;
	if ((unsigned)e >= CM_EDITION_COUNT)
		e = CM_EDITION_C2;
	if (map->n_deck == 0) {
		for (size_t s = 0; s < n_sets && rc == 0; s++)
			rc = add_whole_set(k, &cap, sets[s], e);
	}
	for (size_t i = 0; i < map->n_deck && rc != CM_ENOMEM; i++) {
		const cm_deck_entry *de = &map->deck[i];
		char where[160];
		snprintf(where, sizeof where, "map %s, deck entry %zu", map->id ? map->id : "?", i + 1);
		const cm_tileset *ts = NULL;
		for (size_t s = 0; s < n_sets; s++)
			if (sets[s]->id && de->tileset && strcmp(sets[s]->id, de->tileset) == 0)
				ts = sets[s];
		if (!ts) {
			deck_err(d, where, "unknown tile set", de->tileset ? de->tileset : "(none)");
			rc = CM_EINVAL;
			continue;
		}
		if (!de->tile) {
			int r2 = add_whole_set(k, &cap, ts, e);
			if (r2 < 0)
				rc = r2;
			continue;
		}
		const cm_tile_type *t = cm_tileset_find(ts, de->tile);
		if (!t) {
			deck_err(d, where, "unknown tile in the tile set", de->tile);
			rc = CM_EINVAL;
			continue;
		}
		int r2 = add_set_id(k, ts->id);
		int at = r2 < 0 ? r2 : add_type(k, &cap, t, de->count >= 0 ? de->count : t->count[e], true);
		if (at < 0)
			rc = at;
		else if (t->start && ts->base && k->start < 0)
			k->start = at;
	}
	return deck_done(k, rc, d, out);
}

int cm_deck_from_types(const cm_tile_type *const *types, const int *counts, size_t n, int start,
                       cm_diags *d, cm_deck **out)
{
	*out = NULL;
	cm_deck *k = calloc(1, sizeof *k);
	if (!k)
		return CM_ENOMEM;
	int rc = 0;
	k->types = calloc(n ? n : 1, sizeof *k->types);
	k->count = calloc(n ? n : 1, sizeof *k->count);
	if (!k->types || !k->count)
		rc = CM_ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		k->types[i] = types[i];
		k->count[i] = counts[i];
	}
	k->n_types = rc == 0 ? n : 0;
	k->start = start >= 0 && (size_t)start < n ? start : -1;
	return deck_done(k, rc, d, out);
}

int cm__deck_recount(const cm_deck *base, const int *counts, cm_diags *d, cm_deck **out)
{
	*out = NULL;
	size_t n = base->n_types;
	cm_deck *k = calloc(1, sizeof *k);
	if (!k)
		return CM_ENOMEM;
	k->types = malloc((n ? n : 1) * sizeof *k->types);
	k->count = malloc((n ? n : 1) * sizeof *k->count);
	k->info = malloc((n ? n : 1) * sizeof *k->info);
	k->fit = n ? malloc(n * CM__FIT_SIZE) : NULL;
	if (!k->types || !k->count || !k->info || (n && !k->fit)) {
		cm_deck_free(k);
		return CM_ENOMEM;
	}
	k->n_types = n;
	k->start = base->start;
	for (size_t i = 0; i < n; i++) {
		k->types[i] = base->types[i];
		k->count[i] = counts[i];
		k->info[i] = base->info[i];
		/* the same fit table, in k's copy of them */
		k->info[i].fit = k->fit + (base->info[i].fit - base->fit);
	}
	if (n)
		memcpy(k->fit, base->fit, n * CM__FIT_SIZE);
	bool too_many = false;
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		if (count_type(k, i, &too_many, d) < 0)
			rc = CM_ELIMIT;
	if (rc == 0)
		rc = deck_checks(k, d);
	if (rc < 0) {
		cm_deck_free(k);
		return rc;
	}
	*out = k;
	return 0;
}

void cm_deck_free(cm_deck *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_sets; i++)
		free(k->set_ids[i]);
	free(k->set_ids);
	free(k->types);
	free(k->count);
	free(k->info);
	free(k->fit);
	free(k);
}

size_t cm_deck_types(const cm_deck *k)
{
	return k->n_types;
}

const cm_tile_type *cm_deck_type(const cm_deck *k, size_t i)
{
	return i < k->n_types ? k->types[i] : NULL;
}

int cm_deck_count(const cm_deck *k, size_t i)
{
	return i < k->n_types ? k->count[i] : 0;
}

int cm_deck_total(const cm_deck *k)
{
	return k->total;
}

int cm_deck_start(const cm_deck *k)
{
	return k->start;
}

int cm_deck_find(const cm_deck *k, const char *id)
{
	for (size_t i = 0; id && i < k->n_types; i++)
		if (k->types[i]->id && strcmp(k->types[i]->id, id) == 0)
			return (int)i;
	return -1;
}

/* Little-endian bytes, so the hash is the same on every platform. */
uint64_t cm__fnv_u32(uint64_t h, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
	                       (unsigned char)(v >> 24) };
	return cm_hash_bytes(h, b, 4);
}

uint64_t cm_deck_hash(const cm_deck *k)
{
	uint64_t h = CM_HASH_INIT;
	for (size_t i = 0; i < k->n_types; i++) {
		const cm_tile_type *t = k->types[i];
		h = cm_hash_bytes(h, t->id, strlen(t->id) + 1);
		h = cm__fnv_u32(h, (uint32_t)(k->count[i] * 2 + ((int)i == k->start)));
		h = cm__hash_tile(h, t);
	}
	return h;
}

uint64_t cm__hash_tile(uint64_t h, const cm_tile_type *t)
{
	h = cm__fnv_u32(h, (uint32_t)t->n_features);
	for (size_t f = 0; f < t->n_features; f++) {
		const cm_feature *ft = &t->features[f];
		h = cm__fnv_u32(h, (uint32_t)ft->kind);
		h = cm__fnv_u32(h, ft->slots);
		h = cm__fnv_u32(h, ft->arms);
		h = cm__fnv_u32(h, ft->touches);
	}
	return h;
}
