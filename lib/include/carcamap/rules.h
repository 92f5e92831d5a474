/* SPDX-License-Identifier: MIT */
/* carcamap/rules.h: rule options (RULES.md, docs/rules.md): the cm_rules
 * values a game is played by, and the one table of options (name, kind,
 * default per edition, documentation) that every reader and writer of
 * options works from: map descriptors, packs, the JSON, binary and TMX
 * exports, replays, scenarios and `--rule`.
 * Threads: the table is read-only and cm_rules is a plain value: safe from
 * any thread. */
#ifndef CARCAMAP_RULES_H
#define CARCAMAP_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CM_FARMERS_C1 = 1, CM_FARMERS_C2 = 2 } cm_farmers;

/* Rule options; cm_rules_default gives each the default of an edition. */
typedef struct {
	cm_edition edition;
	bool tiny_city;        /* BASE-SCORE: complete 2-tile city scores 2 (C1 default on) */
	cm_farmers farmers;    /* BASE-FINAL: farmer rules (default C2 rules) */
	bool farmers_bigcity;  /* MAP-FIELD-BIGCITY: default true */
	bool town_extra_turn;  /* MAP-TOWN 1, default false */
	bool town_cost;        /* MAP-TOWN 2, default false */
	bool town_road_bonus;  /* MAP-TOWN 3, default false */
	bool abbey_edge;       /* ABBEY-PLACE: map edge/big city/landmark close an abbey side; default true */
	bool wagons;           /* WAGON-DEPLOY: each player has a wagon; default false. A game
	                        * option (board, scenario, replay, play), not read from map
	                        * descriptors or packs (schemas/map.md) */
} cm_rules;

/* Every option at the defaults of edition e (the table's dflt[e]). */
void cm_rules_default(cm_rules *r, cm_edition e);

typedef enum {
	CM_RULE_EDITION, /* C1, C2, C3: sets the defaults of the options that depend on it */
	CM_RULE_FARMERS, /* C1 or C2 farmer rules */
	CM_RULE_SWITCH   /* yes or no */
} cm_rule_kind;

/* One rule option. Values are ints: an edition's cm_edition, a farmers
 * rule's cm_farmers, a switch's 0 or 1. */
typedef struct {
	const char *name;   /* "tiny-city": descriptors, replays, scenarios, --rule */
	const char *key;    /* "tiny_city": JSON and TMX exports, pack columns */
	cm_rule_kind kind;
	int dflt[CM_EDITION_COUNT]; /* default in C1, C2, C3 */
	bool in_map;        /* part of a map (descriptors, packs, exports); else a game option */
	int flag_bit;       /* bit in the binary export's switch byte, -1 for none */
	const char *rule;   /* the rule it belongs to (docs/rules.md) */
	const char *doc;    /* what it does, one sentence */
} cm_rule_option;

/* The table, in its fixed order (the order of every writer). */
size_t cm_rule_option_count(void);
const cm_rule_option *cm_rule_option_get(size_t i); /* NULL past the end */
/* Index of the option named name (or keyed key), or -1. */
int cm_rule_option_find(const char *name);

/* Whether option i depends on the edition: its default differs between
 * editions (tiny-city). */
bool cm_rule_option_depends(size_t i);

/* Value of option i in r, and setting it (no defaults follow: see
 * cm_rules_set for that). */
int cm_rules_get(const cm_rules *r, size_t i);
void cm_rules_put(cm_rules *r, size_t i, int v);

/* The value text of option i: "C1", "yes"/"no" (replays, --rule) or
 * "true"/"false" with xml (descriptors). */
const char *cm_rules_value_name(size_t i, int v, bool xml);

/* Sets one option by name (or key) from text: edition C1|C2|C3, farmers
 * C1|C2, a switch yes|no, on|off, 1|0, true|false. Setting the edition
 * also sets every option that depends on it (cm_rule_option_depends) to
 * the new edition's default, except the options given explicitly: *given
 * records them (one bit per table index; start a sequence of options with
 * *given = 0; NULL records none), so an explicit option wins whatever the
 * order of the two.
 * Returns 0, CM_ENOTFOUND (unknown name) or CM_EINVAL (bad value). */
int cm_rules_set(cm_rules *r, unsigned *given, const char *name, const char *value);

/* "edition=C2 farmers=C2 tiny-city=no …": every option, the edition and
 * farmers first, then the switches, each in table order (the replay rule
 * line). Into buf; returns the length it needs (snprintf rules). */
int cm_rules_format(const cm_rules *r, char *buf, size_t size);

/* The decks the Maps rules recommend (MAP-TILES), which a descriptor takes
 * whole by name: <deck named="base-ic-minis"/> (schemas/map.md "Named
 * decks"). A named deck is its tile sets, each whole at the map's edition
 * counts; the reader writes them into the map's deck as <set> entries. */
typedef struct {
	const char *name;         /* "base-ic-minis" */
	const char *title;        /* what it is, one line */
	const char *const *sets;  /* its tile set ids in deck order, NULL-terminated */
	int tiles;                /* the drawn tiles the rules add up (every edition) */
	const char *source;       /* where the rules say so */
} cm_named_deck;

/* The table, in its fixed order. */
size_t cm_named_deck_count(void);
const cm_named_deck *cm_named_deck_get(size_t i); /* NULL past the end */
/* The named deck called name, or NULL. */
const cm_named_deck *cm_named_deck_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
