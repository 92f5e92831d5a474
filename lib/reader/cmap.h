/* SPDX-License-Identifier: MIT */
/* cmap.h: a dependency-free reader for carcamap's binary map export
 * (format "CMAP" 2.x and 1.x, specified in carcamap's schemas/export-bin.md).
 * Copy cmap.h and cmap.c into your tree; they need only a C99 compiler and
 * the C library. The reader never copies the buffer and never reads outside
 * it: cmap_open checks every length, offset, count, string and index once,
 * after which the accessors cannot fail except for an index you pass out of
 * range. Strings returned are borrowed from the buffer (NUL-terminated UTF-8,
 * checked to be valid by cmap_open; NULL when absent); the buffer must
 * outlive the map (cmap_open_file reads a file into a buffer the map owns).
 * Besides the accessors: the names of every enumeration (those of the JSON
 * export), edge prints by square, and slot and rotation helpers. */
#ifndef CMAP_READER_H
#define CMAP_READER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CMAP_MAJOR 2 /* the newest major version this reader reads (any minor); it reads 1.x too */
#define CMAP_NONE 0xFFFFFFFFu /* an absent index */

/* Return codes: 0 or one of these (each names one kind of bad input). */
typedef enum {
	CMAP_OK = 0,
	CMAP_EARG = -1,     /* NULL argument, or an index past the end in an accessor */
	CMAP_ENOMEM = -2,   /* out of memory */
	CMAP_ETRUNC = -3,   /* the buffer is shorter than the header or the file size it declares */
	CMAP_EMAGIC = -4,   /* not a CMAP file */
	CMAP_EVERSION = -5, /* a major version this reader does not know */
	CMAP_ECRC = -6,     /* a section or the section table fails its CRC-32 */
	CMAP_EBOUNDS = -7,  /* the section table or a section lies outside the file */
	CMAP_ECOUNT = -8,   /* a record count overflows or does not fit its section */
	CMAP_ESTRREF = -9,  /* a string offset is outside the string table */
	CMAP_ESTRTERM = -10,/* the string table does not end with a NUL */
	CMAP_EMISSING = -11,/* a required section is missing */
	CMAP_EFORMAT = -12, /* a malformed section: duplicate, short records, wrong counts */
	CMAP_EREF = -13,    /* an index or coordinate refers outside its table or the grid */
	CMAP_EVALUE = -14,  /* an enumerated value out of range */
	CMAP_EIO = -15,     /* cmap_open_file: the file cannot be opened or read */
	CMAP_EUTF8 = -16    /* a string that is not valid UTF-8 */
} cmap_error;
/* Short lowercase text for a code (static storage). */
const char *cmap_strerror(int code);

typedef struct cmap_map cmap_map;

/* Checks buf (len bytes) and on success sets *out to a new map reading from
 * it; free it with cmap_close. On failure *out is NULL. */
int cmap_open(const void *buf, size_t len, cmap_map **out);
void cmap_close(cmap_map *m); /* NULL is a no-op */
/* Reads the file at path (stdio only) and opens it as cmap_open does; the
 * map owns the bytes and cmap_close frees them. CMAP_EIO when the file
 * cannot be opened or read, else cmap_open's codes. */
int cmap_open_file(const char *path, cmap_map **out);

/* The file's version: 2.0 from this carcamap, 1.0 from an older one or
 * `export --format bin --bin-version 1`; the accessors give the same
 * values for either. */
void cmap_version(const cmap_map *m, unsigned *major, unsigned *minor);
const char *cmap_id(const cmap_map *m);
const char *cmap_name(const cmap_map *m); /* may be NULL */
uint32_t cmap_cols(const cmap_map *m);
uint32_t cmap_rows(const cmap_map *m);

/* Enumerations; the numbers are those of the format. Record fields hold
 * them as unsigned. */
typedef enum { CMAP_SQ_NONE, CMAP_SQ_LAND, CMAP_SQ_START, CMAP_SQ_TOWN, CMAP_SQ_BIGCITY,
               CMAP_SQ_WAVES, CMAP_SQ_LANDMARK, CMAP_SQ_ISLAND, CMAP_SQ_HALF } cmap_square_kind;
typedef enum { CMAP_N, CMAP_E, CMAP_S, CMAP_W } cmap_side;
typedef enum { CMAP_PRINT_NEUTRAL = 1, CMAP_PRINT_ROAD = 2, CMAP_PRINT_CITY = 3 } cmap_print_kind;
typedef enum { CMAP_EDGE_FIELD, CMAP_EDGE_ROAD, CMAP_EDGE_CITY, CMAP_EDGE_ABBEY } cmap_edge_kind;
typedef enum { CMAP_FEAT_ROAD, CMAP_FEAT_CITY, CMAP_FEAT_FIELD, CMAP_FEAT_MONASTERY,
               CMAP_FEAT_GARDEN, CMAP_FEAT_ABBEY } cmap_feature_kind;
typedef enum { CMAP_GOOD_NONE, CMAP_GOOD_WINE, CMAP_GOOD_GRAIN, CMAP_GOOD_CLOTH } cmap_good;
typedef enum { CMAP_C1, CMAP_C2, CMAP_C3 } cmap_edition;
/* The farmer rules and the rule switches, as bits of the rules record's
 * switch byte (cmap_get_rules reads them into cmap_rules). They are the
 * library's one table of rule options (carcamap/rules.h: the farmers
 * values, and each switch's key and flag_bit) written out for a reader
 * that links nothing; tests/unit/test_cmap_reader.c fails when the two
 * disagree. */
typedef enum { CMAP_FARMERS_C1 = 1, CMAP_FARMERS_C2 = 2 } cmap_farmers;
#define CMAP_RULE_TINY_CITY 0x01u       /* tiny_city */
#define CMAP_RULE_FARMERS_BIGCITY 0x02u /* farmers_bigcity */
#define CMAP_RULE_TOWN_EXTRA_TURN 0x04u /* town_extra_turn */
#define CMAP_RULE_TOWN_COST 0x08u       /* town_cost */
#define CMAP_RULE_TOWN_ROAD_BONUS 0x10u /* town_road_bonus */
#define CMAP_RULE_ABBEY_EDGE 0x20u      /* abbey_edge */
#define CMAP_RULE_ALL 0x3fu             /* every bit a switch uses */

/* Names of the values, the strings of the JSON export ("land", "N",
 * "road", "monastery", "C2"...; CMAP_GOOD_NONE is "none", JSON's null);
 * static storage; NULL for a value out of range. */
const char *cmap_square_kind_name(unsigned kind);
const char *cmap_side_name(unsigned side);
const char *cmap_print_kind_name(unsigned kind);
const char *cmap_edge_kind_name(unsigned kind);
const char *cmap_feature_kind_name(unsigned kind);
const char *cmap_good_name(unsigned good);
const char *cmap_edition_name(unsigned edition);

/* Slots and rotation. A side has three slots, clockwise; slot p (0..2) of
 * side s is bit 3*s+p of a 12-bit mask: Nw Nm Ne En Em Es Se Sm Sw Ws Wm
 * Wn. Turns are quarter turns clockwise; a tile turned once shows on its
 * east side what it had on its north side. */
#define CMAP_SLOT(side, p) ((uint16_t)(1u << (3u * (side) + (p))))
#define CMAP_SIDE_SLOTS(side) ((uint16_t)(7u << (3u * (side))))
const char *cmap_slot_name(unsigned bit);  /* "Nw".."Wn"; NULL past 11 */
uint16_t cmap_slots_rotate(uint16_t slots, unsigned turns);
unsigned cmap_side_rotate(unsigned side, unsigned turns);
unsigned cmap_side_opposite(unsigned side);
/* The neighbour's slot across the side of slot bit that touches it: slot p
 * of side s faces slot 2-p of side (s+2)%4. */
unsigned cmap_slot_facing(unsigned bit);

typedef struct {
	int32_t starts_used, tiles_min, tiles_max, followers; /* tiles_*: 0 = unset */
	unsigned edition;  /* CMAP_C1.. */
	unsigned farmers;  /* CMAP_FARMERS_C1 or CMAP_FARMERS_C2 */
	int tiny_city, farmers_bigcity, town_extra_turn, town_cost, town_road_bonus, abbey_edge;
} cmap_rules;
void cmap_get_rules(const cmap_map *m, cmap_rules *out);

typedef struct {
	unsigned kind;        /* CMAP_SQ_* */
	unsigned arms;
	const char *name;     /* may be NULL */
	uint32_t island;      /* index of cmap_get_island, or CMAP_NONE */
	uint32_t bigcity;     /* index of cmap_get_bigcity, or CMAP_NONE */
	uint32_t first_marker, n_markers; /* range of cmap_get_marker */
} cmap_square;
int cmap_get_square(const cmap_map *m, uint32_t x, uint32_t y, cmap_square *out);

/* The tables; cmap_count gives the number of records in each. */
typedef enum {
	CMAP_T_MARKERS, CMAP_T_PRINTS, CMAP_T_BIGCITIES, CMAP_T_PIECES, CMAP_T_FEATURES,
	CMAP_T_CONTACTS, CMAP_T_FERRIES, CMAP_T_ISLANDS, CMAP_T_TILESETS, CMAP_T_TILES,
	CMAP_T_DECK
} cmap_table;
uint32_t cmap_count(const cmap_map *m, cmap_table t);

int cmap_get_marker(const cmap_map *m, uint32_t i, const char **out);

typedef struct {
	uint32_t x, y;
	unsigned side;        /* CMAP_N.. */
	unsigned kind;        /* CMAP_PRINT_* */
	unsigned arms;
	const char *label;    /* may be NULL */
} cmap_print;
int cmap_get_print(const cmap_map *m, uint32_t i, cmap_print *out);
/* The edge prints of square (x,y): out[side] is the index of its print on
 * that side (for cmap_get_print), or CMAP_NONE. O(log prints) in 1.x, at
 * most 64 squares' bytes read in 2.x. cmap_get_print is O(log squares) in
 * 2.x. */
int cmap_square_prints(const cmap_map *m, uint32_t x, uint32_t y, uint32_t out[4]);

typedef struct {
	const char *name;
	uint32_t first_piece, n_pieces;
} cmap_bigcity;
int cmap_get_bigcity(const cmap_map *m, uint32_t i, cmap_bigcity *out);

/* The shape shared by big-city pieces and tile types. */
typedef struct {
	unsigned edges[4];    /* CMAP_EDGE_* of sides N, E, S, W */
	uint32_t first_feature, n_features, first_contact, n_contacts;
} cmap_shape;

/* The edge kind (CMAP_EDGE_*) a shape shows on side once turned by turns. */
unsigned cmap_shape_edge(const cmap_shape *s, unsigned side, unsigned turns);

typedef struct {
	uint32_t x, y;
	cmap_shape shape;
} cmap_piece;
int cmap_get_piece(const cmap_map *m, uint32_t i, cmap_piece *out);

typedef struct {
	unsigned kind;        /* CMAP_FEAT_* */
	unsigned arms;
	int cathedral, inn;
	unsigned good;        /* CMAP_GOOD_* */
	uint16_t slots;       /* 12-bit mask, bit 0 = Nw … bit 11 = Wn */
	const char *id;       /* may be NULL */
	uint32_t touches;     /* bit i: feature i of the same shape */
} cmap_feature;
int cmap_get_feature(const cmap_map *m, uint32_t i, cmap_feature *out);
/* A contact: bit i set for each feature i of the shape that touches. */
int cmap_get_contact(const cmap_map *m, uint32_t i, uint32_t *out);

typedef struct {
	const char *name;
	uint32_t x1, y1, x2, y2;
	unsigned s1, s2;
	unsigned arms;
} cmap_ferry;
int cmap_get_ferry(const cmap_map *m, uint32_t i, cmap_ferry *out);

typedef struct {
	const char *name;     /* the island's id in the descriptor; may be NULL */
	const char *title;    /* display name ("Mallorca"); may be NULL */
} cmap_island;
int cmap_get_island(const cmap_map *m, uint32_t i, cmap_island *out);

typedef struct {
	const char *id;
	const char *name;
	int base;
	int32_t total[3];     /* per edition, -1 when not declared */
	uint32_t first_tile, n_tiles;
} cmap_tileset;
int cmap_get_tileset(const cmap_map *m, uint32_t i, cmap_tileset *out);

typedef struct {
	const char *id;
	const char *name;
	uint32_t count[3];    /* copies per edition in its set */
	uint32_t in_deck;     /* copies in this map's deck */
	int start;
	cmap_shape shape;
} cmap_tile;
int cmap_get_tile(const cmap_map *m, uint32_t i, cmap_tile *out);

typedef struct {
	uint32_t tileset;     /* index of cmap_get_tileset */
	uint32_t tile;        /* index of cmap_get_tile, or CMAP_NONE for the whole set */
	int32_t count;        /* -1: the set's count for the map's edition */
} cmap_deck_entry;
int cmap_get_deck_entry(const cmap_map *m, uint32_t i, cmap_deck_entry *out);

#ifdef __cplusplus
}
#endif
#endif
