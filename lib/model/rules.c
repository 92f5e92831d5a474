/* SPDX-License-Identifier: MIT */
/* rules.c: the one table of rule options (carcamap/rules.h): names, kinds,
 * defaults per edition and what each does, with the parsing and formatting
 * every path goes through (descriptor, pack, exports, replay, scenario,
 * --rule), so an edition brings its defaults the same way everywhere; and
 * the decks the rules recommend (MAP-TILES), which descriptors name. */
#include <stdio.h>
#include <string.h>
#include "carcamap/rules.h"

static const cm_rule_option options[] = {
	{ "edition", "edition", CM_RULE_EDITION, { CM_EDITION_C1, CM_EDITION_C2, CM_EDITION_C3 }, true, -1, "",
	  "the edition the game is played by; it sets the defaults of the options below" },
	{ "tiny-city", "tiny_city", CM_RULE_SWITCH, { 1, 0, 0 }, true, 0, "BASE-SCORE",
	  "a complete city of exactly 2 tiles scores 2 instead of 4" },
	{ "farmers", "farmers", CM_RULE_FARMERS, { CM_FARMERS_C2, CM_FARMERS_C2, CM_FARMERS_C2 }, true, -1,
	  "BASE-FINAL", "the farmer rules: C2 (3 per complete city a field touches) or C1" },
	{ "farmers-bigcity", "farmers_bigcity", CM_RULE_SWITCH, { 1, 1, 1 }, true, 1, "MAP-FIELD-BIGCITY",
	  "a printed big city counts as a complete city for the fields it touches" },
	{ "town-extra-turn", "town_extra_turn", CM_RULE_SWITCH, { 0, 0, 0 }, true, 2, "MAP-TOWN",
	  "a tile placed on a town square gives another turn" },
	{ "town-cost", "town_cost", CM_RULE_SWITCH, { 0, 0, 0 }, true, 3, "MAP-TOWN",
	  "placing on a town square costs points" },
	{ "town-road-bonus", "town_road_bonus", CM_RULE_SWITCH, { 0, 0, 0 }, true, 4, "MAP-TOWN",
	  "a road scores a bonus for the towns it touches" },
	{ "abbey-edge", "abbey_edge", CM_RULE_SWITCH, { 1, 1, 1 }, true, 5, "ABBEY-PLACE",
	  "the map edge, a big city and a landmark close an abbey's side" },
	{ "wagons", "wagons", CM_RULE_SWITCH, { 0, 0, 0 }, false, -1, "WAGON-DEPLOY",
	  "each player also has a wagon (a game option: maps do not hold it)" },
};
#define N_OPTIONS (sizeof options / sizeof options[0])

size_t cm_rule_option_count(void)
{
	return N_OPTIONS;
}

const cm_rule_option *cm_rule_option_get(size_t i)
{
	return i < N_OPTIONS ? &options[i] : NULL;
}

int cm_rule_option_find(const char *name)
{
	for (size_t i = 0; name && i < N_OPTIONS; i++)
		if (strcmp(name, options[i].name) == 0 || strcmp(name, options[i].key) == 0)
			return (int)i;
	return -1;
}

int cm_rules_get(const cm_rules *r, size_t i)
{
	switch (i) {
	case 0: return (int)r->edition;
	case 1: return r->tiny_city;
	case 2: return (int)r->farmers;
	case 3: return r->farmers_bigcity;
	case 4: return r->town_extra_turn;
	case 5: return r->town_cost;
	case 6: return r->town_road_bonus;
	case 7: return r->abbey_edge;
	case 8: return r->wagons;
	}
	return 0;
}

void cm_rules_put(cm_rules *r, size_t i, int v)
{
	switch (i) {
	case 0: r->edition = (cm_edition)v; break;
	case 1: r->tiny_city = v != 0; break;
	case 2: r->farmers = v == CM_FARMERS_C1 ? CM_FARMERS_C1 : CM_FARMERS_C2; break;
	case 3: r->farmers_bigcity = v != 0; break;
	case 4: r->town_extra_turn = v != 0; break;
	case 5: r->town_cost = v != 0; break;
	case 6: r->town_road_bonus = v != 0; break;
	case 7: r->abbey_edge = v != 0; break;
	case 8: r->wagons = v != 0; break;
	}
}

bool cm_rule_option_depends(size_t i)
{
	if (i >= N_OPTIONS || options[i].kind == CM_RULE_EDITION)
		return false;
	const int *d = options[i].dflt;
	return d[0] != d[1] || d[1] != d[2];
}

void cm_rules_default(cm_rules *r, cm_edition e)
{
	memset(r, 0, sizeof *r);
	if ((unsigned)e >= CM_EDITION_COUNT)
		e = CM_EDITION_C2;
	for (size_t i = 0; i < N_OPTIONS; i++)
		cm_rules_put(r, i, options[i].dflt[e]);
}

const char *cm_rules_value_name(size_t i, int v, bool xml)
{
	if (i >= N_OPTIONS)
		return "?";
	switch (options[i].kind) {
	case CM_RULE_EDITION: return cm_edition_name((cm_edition)v);
	case CM_RULE_FARMERS: return v == CM_FARMERS_C1 ? "C1" : "C2";
	case CM_RULE_SWITCH: break;
	}
	return xml ? (v ? "true" : "false") : (v ? "yes" : "no");
}

static int parse_value(const cm_rule_option *o, const char *s, int *v)
{
	switch (o->kind) {
	case CM_RULE_EDITION: {
		cm_edition e;
		if (cm_edition_parse(s, &e) < 0)
			return CM_EINVAL;
		*v = (int)e;
		return 0;
	}
	case CM_RULE_FARMERS:
		if (strcmp(s, "C1") == 0)
			*v = CM_FARMERS_C1;
		else if (strcmp(s, "C2") == 0)
			*v = CM_FARMERS_C2;
		else
			return CM_EINVAL;
		return 0;
	case CM_RULE_SWITCH:
		break;
	}
	static const char *const on[] = { "yes", "on", "1", "true" }, *const off[] = { "no", "off", "0", "false" };
	for (size_t k = 0; k < 4; k++) {
		if (strcmp(s, on[k]) == 0) {
			*v = 1;
			return 0;
		}
		if (strcmp(s, off[k]) == 0) {
			*v = 0;
			return 0;
		}
	}
	return CM_EINVAL;
}

int cm_rules_set(cm_rules *r, unsigned *given, const char *name, const char *value)
{
	int i = cm_rule_option_find(name);
	if (i < 0)
		return CM_ENOTFOUND;
	int v;
	if (!value || parse_value(&options[i], value, &v))
		return CM_EINVAL;
	cm_rules_put(r, (size_t)i, v);
	if (given)
		*given |= 1u << i;
	if (options[i].kind == CM_RULE_EDITION)
		for (size_t k = 0; k < N_OPTIONS; k++)
			if (cm_rule_option_depends(k) && !(given && (*given & (1u << k))))
				cm_rules_put(r, k, options[k].dflt[v]);
	return 0;
}

int cm_rules_format(const cm_rules *r, char *buf, size_t size)
{
	int n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < N_OPTIONS; i++) {
			if ((options[i].kind == CM_RULE_SWITCH) != (pass == 1))
				continue;
			size_t at = (size_t)n < size ? (size_t)n : size;
			n += snprintf(buf + at, size - at, "%s%s=%s", n ? " " : "", options[i].name,
			              cm_rules_value_name(i, cm_rules_get(r, i), false));
		}
	return n;
}

/* ---- named decks (MAP-TILES) ---- */

static const char *const classic_sets[] = { "base", "inns-cathedrals", "traders-builders", NULL };
static const char *const minis_sets[] = { "base",       "inns-cathedrals", "goldmines", "mage-witch",
	                                  "robbers",    "crop-circles-2",  NULL };

/* keep schemas/map.xsd's enumeration of <deck named> and schemas/map.md's
 * table in step (test_map__named_decks) */
static const cm_named_deck named_decks[] = {
	{ "base-ic-tb", "base game, Inns & Cathedrals, Traders & Builders: 72 + 18 + 24 = 114 tiles", classic_sets,
	  114, "MAP-TILES (the original Germany rules)" },
	{ "base-ic-minis",
	  "base game, Inns & Cathedrals, the Big Box minis #4 to #7 (The Goldmines, Mage & Witch, The Robbers, "
	  "Crop Circles II): 72 + 18 + 8 + 8 + 8 + 6 = 120 tiles",
	  minis_sets, 120, "MAP-TILES (the basic rules' footnote 3, as indicated for the Nordics map)" },
};
#define N_DECKS (sizeof named_decks / sizeof named_decks[0])

size_t cm_named_deck_count(void)
{
	return N_DECKS;
}

const cm_named_deck *cm_named_deck_get(size_t i)
{
	return i < N_DECKS ? &named_decks[i] : NULL;
}

const cm_named_deck *cm_named_deck_find(const char *name)
{
	for (size_t i = 0; name && i < N_DECKS; i++)
		if (strcmp(named_decks[i].name, name) == 0)
			return &named_decks[i];
	return NULL;
}
