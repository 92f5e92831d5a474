/* SPDX-License-Identifier: MIT */
/* export.c: the JSON export for game clients (schemas/export-json.md) and
 * what the three exporters share (export_int.h): the refusal of a partial
 * map (every other map passed the model's checker when it was built), the
 * model check of the tile sets, and the resolution of the deck against
 * them. The binary and TMX writers are export_bin.c and export_tmx.c. */
#include <stdlib.h>
#include <string.h>
#include "export/export_int.h"
#include "base/json_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

/* ---- shared: deck ---- */

/* Tile ids of one set by hash, so that resolving a deck costs O(1) per
 * entry whatever the size of the set (tile ids are unique in a checked
 * set; the first one wins otherwise, as the items go in in order). */
static bool tile_id_eq(const void *ctx, size_t item)
{
	const void *const *c = ctx; /* { set, id } */
	return strcmp(((const cm_tileset *)c[0])->tiles[item].id, c[1]) == 0;
}

static bool set_id_eq(const void *ctx, size_t item)
{
	const void *const *c = ctx; /* { sets, id } */
	const cm_tileset *const *sets = c[0];
	return strcmp(sets[item]->id, c[1]) == 0;
}

static int index_tiles(const cm_tileset *ts, cm_index *ix)
{
	for (size_t i = 0; i < ts->n_tiles; i++) {
		const void *ctx[2] = { ts, ts->tiles[i].id };
		if (cm_index_find_or_add(ix, cm_hash_str(ts->tiles[i].id), i, tile_id_eq, ctx) == (size_t)-1)
			return CM_ENOMEM;
	}
	return 0;
}

/* Index of the tile type with this id in the indexed set ts, or -1. */
static int find_tile(const cm_tileset *ts, const cm_index *ix, const char *id)
{
	const void *ctx[2] = { ts, id };
	size_t i = cm_index_find(ix, cm_hash_str(id), tile_id_eq, ctx);
	return i == (size_t)-1 ? -1 : (int)i;
}

void cm_export_deck_clear(cm_export_deck *dk)
{
	free(dk->sets);
	free(dk->entry_set);
	free(dk->entry_tile);
	free(dk->set_first);
	free(dk->set_default);
	free(dk->set_fixed);
	free(dk->in_deck);
	memset(dk, 0, sizeof *dk);
}

/* The copies per tile type, from one pass over the deck. */
static int count_in_deck(const cm_map *m, cm_export_deck *dk)
{
	size_t n_tiles = 0;
	dk->set_first = calloc(dk->n_sets, sizeof *dk->set_first);
	dk->set_default = calloc(dk->n_sets, sizeof *dk->set_default);
	dk->set_fixed = calloc(dk->n_sets, sizeof *dk->set_fixed);
	if (!dk->set_first || !dk->set_default || !dk->set_fixed)
		return CM_ENOMEM;
	for (size_t si = 0; si < dk->n_sets; si++) {
		dk->set_first[si] = n_tiles;
		n_tiles += dk->sets[si]->n_tiles;
	}
	dk->in_deck = calloc(n_tiles ? n_tiles : 1, sizeof *dk->in_deck);
	if (!dk->in_deck)
		return CM_ENOMEM;
	for (size_t i = 0; i < m->n_deck; i++) {
		size_t si = dk->entry_set[i];
		int c = m->deck[i].count;
		if (dk->entry_tile[i] < 0) { /* the whole set */
			if (c < 0)
				dk->set_default[si]++;
			else
				dk->set_fixed[si] += c;
			continue;
		}
		const cm_tile_type *t = &dk->sets[si]->tiles[dk->entry_tile[i]];
		c = c < 0 ? t->count[m->rules.edition] : c;
		dk->in_deck[dk->set_first[si] + (size_t)dk->entry_tile[i]] += c > 0 ? c : 0;
	}
	return 0;
}

int cm_export_deck_resolve(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, bool sets_checked,
                           cm_export_deck *dk)
{
	memset(dk, 0, sizeof *dk);
	if (m->n_deck == 0)
		return 0;
	int rc = 0;
	cm_index set_ix = { 0 };
	size_t *slot_of = NULL; /* by set number: its place in dk->sets, or -1 */
	cm_index *ix = calloc(m->n_deck, sizeof *ix); /* per used set, built when first needed */
	bool *indexed = calloc(m->n_deck, sizeof *indexed);
	dk->sets = calloc(m->n_deck, sizeof *dk->sets);
	dk->entry_set = calloc(m->n_deck, sizeof *dk->entry_set);
	dk->entry_tile = calloc(m->n_deck, sizeof *dk->entry_tile);
	if (!ix || !indexed || !dk->sets || !dk->entry_set || !dk->entry_tile) {
		rc = CM_ENOMEM;
		goto out;
	}
	/* a long deck finds its sets through an index of their ids (the
	 * first of an id wins, as in a scan), and each set's place in dk by
	 * the set's number: no scan per entry */
	bool by_index = m->n_deck > 8;
	if (by_index) {
		slot_of = malloc((n_sets ? n_sets : 1) * sizeof *slot_of);
		if (!slot_of) {
			rc = CM_ENOMEM;
			goto out;
		}
		for (size_t k = 0; k < n_sets; k++) {
			slot_of[k] = (size_t)-1;
			if (!sets[k] || !sets[k]->id)
				continue;
			const void *ctx[2] = { sets, sets[k]->id };
			if (cm_index_find_or_add(&set_ix, cm_hash_str(sets[k]->id), k, set_id_eq, ctx) == (size_t)-1) {
				rc = CM_ENOMEM;
				goto out;
			}
		}
	}
	for (size_t i = 0; i < m->n_deck; i++) {
		const cm_deck_entry *e = &m->deck[i];
		const cm_tileset *ts = NULL;
		size_t k = (size_t)-1;
		if (by_index) {
			const void *ctx[2] = { sets, e->tileset };
			k = cm_index_find(&set_ix, cm_hash_str(e->tileset), set_id_eq, ctx);
			ts = k == (size_t)-1 ? NULL : sets[k];
		} else {
			for (size_t j = 0; j < n_sets && !ts; j++)
				if (sets[j] && sets[j]->id && strcmp(sets[j]->id, e->tileset) == 0)
					ts = sets[j];
		}
		if (!ts) {
			rc = CM_ENOTFOUND;
			goto out;
		}
		size_t si = 0;
		if (by_index)
			si = slot_of[k] == (size_t)-1 ? dk->n_sets : slot_of[k];
		else
			while (si < dk->n_sets && dk->sets[si] != ts)
				si++;
		if (si == dk->n_sets) { /* a set's first entry: checked once */
			if (by_index)
				slot_of[k] = si;
			if (!sets_checked && cm_tileset_check_model(ts, NULL, NULL, NULL)) {
				rc = CM_EINVAL;
				goto out;
			}
			dk->sets[dk->n_sets++] = ts;
		}
		dk->entry_set[i] = si;
		dk->entry_tile[i] = -1;
		if (e->tile) {
			if (!indexed[si]) {
				if ((rc = index_tiles(ts, &ix[si])) != 0)
					goto out;
				indexed[si] = true;
			}
			dk->entry_tile[i] = find_tile(ts, &ix[si], e->tile);
			if (dk->entry_tile[i] < 0) {
				rc = CM_ENOTFOUND;
				goto out;
			}
		}
	}
	rc = count_in_deck(m, dk);
out:
	for (size_t i = 0; ix && i < m->n_deck; i++)
		cm_index_free(&ix[i]);
	free(ix);
	free(indexed);
	cm_index_free(&set_ix);
	free(slot_of);
	if (rc)
		cm_export_deck_clear(dk);
	return rc;
}

int cm_export_prepare(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, cm_export_deck *dk)
{
	memset(dk, 0, sizeof *dk);
	/* every map but a partial one passed the model's checker when built */
	return m->partial ? CM_EINVAL : cm_export_deck_resolve(m, sets, n_sets, false, dk);
}

long cm_export_in_deck(const cm_map *m, const cm_export_deck *dk, size_t si, size_t ti)
{
	if (!dk->in_deck) /* an empty deck */
		return 0;
	int c = dk->sets[si]->tiles[ti].count[m->rules.edition];
	return dk->set_default[si] * (c > 0 ? c : 0) + dk->set_fixed[si] + dk->in_deck[dk->set_first[si] + ti];
}

void cm_export_edges(const cm_tile_type *t, uint8_t edge[4])
{
	/* derive on a shallow copy: it writes only the copy's derived arrays */
	cm_tile_type c = *t;
	(void)cm_tile_type_derive(&c);
	memcpy(edge, c.edge, 4);
}

/* ---- JSON ---- */

/* "key": value pairs */
static void kint(cm_json *j, const char *key, long long v)
{
	cm_json_key(j, key);
	cm_json_int(j, v);
}

static void kstr(cm_json *j, const char *key, const char *v)
{
	cm_json_key(j, key);
	cm_json_str(j, v);
}

static void kbool(cm_json *j, const char *key, bool v)
{
	cm_json_key(j, key);
	cm_json_bool(j, v);
}

static void json_opt_int(cm_json *j, const char *key, long long v, bool set)
{
	cm_json_key(j, key);
	if (set)
		cm_json_int(j, v);
	else
		cm_json_null(j);
}

static void json_mask_list(cm_json *j, uint32_t mask)
{
	cm_json_arr_begin(j);
	for (int b = 0; b < 32; b++)
		if (mask & (1u << b))
			cm_json_int(j, b);
	cm_json_arr_end(j);
}

/* features, contacts and derived edges: the shape shared by tile types and
 * big-city pieces */
static void json_shape(cm_json *j, const cm_tile_type *t)
{
	uint8_t edge[4];
	cm_export_edges(t, edge);
	cm_json_key(j, "edges");
	cm_json_arr_begin(j);
	for (int s = 0; s < 4; s++)
		cm_json_str(j, cm_edge_kind_name((cm_edge_kind)edge[s]));
	cm_json_arr_end(j);
	cm_json_key(j, "features");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < t->n_features; i++) {
		const cm_feature *f = &t->features[i];
		cm_json_obj_begin(j);
		kstr(j, "id", f->id);
		kstr(j, "kind", cm_feature_kind_name(f->kind));
		cm_json_key(j, "slots");
		cm_json_arr_begin(j);
		for (int b = 0; b < 12; b++)
			if (f->slots & (1u << b))
				cm_json_str(j, cm_slot_name(b));
		cm_json_arr_end(j);
		kint(j, "mask", f->slots);
		kint(j, "arms", f->arms);
		kbool(j, "cathedral", f->cathedral);
		kbool(j, "inn", f->inn);
		kstr(j, "good", f->good == CM_GOOD_NONE ? NULL : cm_good_name(f->good));
		cm_json_key(j, "touches");
		json_mask_list(j, f->touches);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	cm_json_key(j, "contacts");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < t->n_contacts; i++)
		json_mask_list(j, t->contacts[i]);
	cm_json_arr_end(j);
}

static void json_editions(cm_json *j, const char *key, const int *v)
{
	cm_json_key(j, key);
	cm_json_obj_begin(j);
	for (int e = 0; e < CM_EDITION_COUNT; e++)
		json_opt_int(j, cm_edition_name((cm_edition)e), v[e], v[e] >= 0);
	cm_json_obj_end(j);
}

static void json_squares(cm_json *j, const cm_map *m)
{
	size_t n_prints = 0;
	cm_json_key(j, "squares");
	cm_json_arr_begin(j);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++) {
			const cm_square *s = cm__map_at(m, x, y);
			cm_json_obj_begin(j);
			kint(j, "x", x);
			kint(j, "y", y);
			kstr(j, "kind", cm_square_kind_name(s->kind));
			kstr(j, "name", cm_map_square_name(m, x, y));
			kint(j, "arms", s->arms);
			json_opt_int(j, "island", s->island, s->island >= 0);
			json_opt_int(j, "bigcity", s->bigcity, s->bigcity >= 0);
			cm_json_key(j, "markers");
			cm_json_arr_begin(j);
			size_t n_markers;
			const char *const *markers = cm_map_square_markers(m, x, y, &n_markers);
			for (size_t k = 0; k < n_markers; k++)
				cm_json_str(j, markers[k]);
			cm_json_arr_end(j);
			/* per side, the index of its print in edge_prints */
			cm_json_key(j, "prints");
			cm_json_obj_begin(j);
			for (int e = 0; e < 4; e++)
				if (s->print[e].kind != CM_PRINT_NONE) {
					cm_json_key(j, cm_side_name((cm_side)e));
					cm_json_int(j, (long long)n_prints++);
				}
			cm_json_obj_end(j);
			cm_json_obj_end(j);
		}
	cm_json_arr_end(j);

	cm_json_key(j, "edge_prints");
	cm_json_arr_begin(j);
	for (int y = 0; y < m->rows; y++)
		for (int x = 0; x < m->cols; x++)
			for (int e = 0; e < 4; e++) {
				const cm_edge_print *p = &cm__map_at(m, x, y)->print[e];
				if (p->kind == CM_PRINT_NONE)
					continue;
				cm_json_obj_begin(j);
				kint(j, "x", x);
				kint(j, "y", y);
				kstr(j, "side", cm_side_name((cm_side)e));
				kstr(j, "kind", cm_print_kind_name(p->kind));
				kint(j, "arms", p->arms);
				kstr(j, "label", cm_map_print_label(m, x, y, (cm_side)e));
				cm_json_obj_end(j);
			}
	cm_json_arr_end(j);
}

static void json_place(cm_json *j, const char *key, int x, int y, cm_side s)
{
	cm_json_key(j, key);
	cm_json_obj_begin(j);
	kint(j, "x", x);
	kint(j, "y", y);
	kstr(j, "side", cm_side_name(s));
	cm_json_obj_end(j);
}

static void json_features_of_map(cm_json *j, const cm_map *m)
{
	cm_json_key(j, "bigcities");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < m->n_bigcities; i++) {
		const cm_bigcity *b = &m->bigcities[i];
		cm_json_obj_begin(j);
		kstr(j, "name", b->name);
		cm_json_key(j, "pieces");
		cm_json_arr_begin(j);
		for (size_t k = 0; k < b->n_pieces; k++) {
			cm_json_obj_begin(j);
			kint(j, "x", b->pieces[k].x);
			kint(j, "y", b->pieces[k].y);
			json_shape(j, &b->pieces[k].tile);
			cm_json_obj_end(j);
		}
		cm_json_arr_end(j);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);

	cm_json_key(j, "ferries");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < m->n_ferries; i++) {
		const cm_ferry *f = &m->ferries[i];
		cm_json_obj_begin(j);
		kstr(j, "name", f->name);
		json_place(j, "from", f->x1, f->y1, f->s1);
		json_place(j, "to", f->x2, f->y2, f->s2);
		kint(j, "arms", f->arms);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);

	cm_json_key(j, "islands");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < m->n_islands; i++) {
		cm_json_obj_begin(j);
		kstr(j, "name", m->islands[i].name);
		kstr(j, "title", m->islands[i].title);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
}

static void json_setup_rules(cm_json *j, const cm_map *m)
{
	const cm_setup *s = &m->setup;
	cm_json_key(j, "setup");
	cm_json_obj_begin(j);
	kint(j, "starts_used", s->starts_used);
	json_opt_int(j, "tiles_min", s->tiles_min, s->tiles_min > 0);
	json_opt_int(j, "tiles_max", s->tiles_max, s->tiles_max > 0);
	kint(j, "followers", s->followers);
	cm_json_obj_end(j);

	const cm_rules *r = &m->rules;
	cm_json_key(j, "rules");
	cm_json_obj_begin(j);
	for (size_t i = 0; i < cm_rule_option_count(); i++) { /* the table's options (rules.c) */
		const cm_rule_option *o = cm_rule_option_get(i);
		int v = cm_rules_get(r, i);
		if (!o->in_map)
			continue;
		if (o->kind == CM_RULE_SWITCH)
			kbool(j, o->key, v != 0);
		else
			kstr(j, o->key, cm_rules_value_name(i, v, false));
	}
	cm_json_obj_end(j);
}

static void json_deck(cm_json *j, const cm_map *m, const cm_export_deck *dk)
{
	cm_json_key(j, "deck");
	cm_json_obj_begin(j);
	cm_json_key(j, "entries");
	cm_json_arr_begin(j);
	for (size_t i = 0; i < m->n_deck; i++) {
		const cm_deck_entry *e = &m->deck[i];
		cm_json_obj_begin(j);
		kstr(j, "tileset", e->tileset);
		kstr(j, "tile", e->tile);
		json_opt_int(j, "count", e->count, e->count >= 0);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	cm_json_key(j, "tilesets");
	cm_json_arr_begin(j);
	for (size_t si = 0; si < dk->n_sets; si++) {
		const cm_tileset *ts = dk->sets[si];
		cm_json_obj_begin(j);
		kstr(j, "id", ts->id);
		kstr(j, "name", ts->name);
		kbool(j, "base", ts->base);
		json_editions(j, "totals", ts->total);
		cm_json_key(j, "tiles");
		cm_json_arr_begin(j);
		for (size_t ti = 0; ti < ts->n_tiles; ti++) {
			const cm_tile_type *t = &ts->tiles[ti];
			cm_json_obj_begin(j);
			kstr(j, "id", t->id);
			kstr(j, "name", t->name);
			kbool(j, "start", t->start);
			kint(j, "count", t->count[m->rules.edition]);
			json_editions(j, "counts", t->count);
			kint(j, "in_deck", cm_export_in_deck(m, dk, si, ti));
			json_shape(j, t);
			if (t->n_markers) { /* only when there are: decks without keep their bytes */
				cm_json_key(j, "markers");
				cm_json_arr_begin(j);
				for (size_t k = 0; k < t->n_markers; k++)
					cm_json_str(j, t->markers[k]);
				cm_json_arr_end(j);
			}
			cm_json_obj_end(j);
		}
		cm_json_arr_end(j);
		cm_json_obj_end(j);
	}
	cm_json_arr_end(j);
	cm_json_obj_end(j);
}

void cm_export_opts_init(cm_export_opts *o)
{
	memset(o, 0, sizeof *o);
	o->kinds = CM_TMX_KINDS;
}

int cm_export_json(const cm_map *m, const cm_export_opts *o, FILE *f, cm_diags *d)
{
	(void)d; /* the return code says it all */
	cm_export_opts dflt;
	if (!o) {
		cm_export_opts_init(&dflt);
		o = &dflt;
	}
	cm_export_deck dk;
	int rc = cm_export_prepare(m, o->sets, o->n_sets, &dk);
	if (rc)
		return rc;
	cm_json j;
	cm_json_init(&j, f, true);
	cm_json_obj_begin(&j);
	cm_json_key(&j, "format");
	cm_json_obj_begin(&j);
	cm_json_key(&j, "name");
	cm_json_str(&j, "carcamap-map");
	cm_json_key(&j, "version");
	cm_json_str(&j, CM_EXPORT_JSON_VERSION);
	cm_json_obj_end(&j);
	cm_json_key(&j, "id");
	cm_json_str(&j, m->id);
	cm_json_key(&j, "name");
	cm_json_str(&j, m->name);
	cm_json_key(&j, "cols");
	cm_json_int(&j, m->cols);
	cm_json_key(&j, "rows");
	cm_json_int(&j, m->rows);
	if (cm_about_present(&m->about)) { /* only when given: older exports stay as they were */
		cm_json_key(&j, "about");
		cm_json_obj_begin(&j);
		for (int i = 0; i < CM_ABOUT_FIELDS; i++)
			kstr(&j, cm_about_name(i), cm_about_get(&m->about, i));
		cm_json_obj_end(&j);
	}
	json_setup_rules(&j, m);
	json_squares(&j, m);
	json_features_of_map(&j, m);
	json_deck(&j, m, &dk);
	cm_json_obj_end(&j);
	rc = cm_json_finish(&j) ? CM_EIO : 0;
	cm_export_deck_clear(&dk);
	return rc;
}
