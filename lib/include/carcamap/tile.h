/* SPDX-License-Identifier: MIT */
/* carcamap/tile.h: the tile model. Slots and sides, rotation, matching,
 * features with their attributes and relations (DESIGN.md "Core model").
 *
 * Slots: 12 per tile, clockwise from the north-west corner:
 *   Nw Nm Ne En Em Es Se Sm Sw Ws Wm Wn   (bits 0..11)
 * Slot p (0..2) of side s is bit 3*s+p. Rotating 90° clockwise moves every
 * slot 3 places (a 12-bit rotate left by 3). Slot p of side s faces slot 2-p
 * of side (s+2)%4 on the neighbour.
 * Threads: a tile type is only read, but by cm_tile_type_derive, which
 * writes the one it is given. */
#ifndef CARCAMAP_TILE_H
#define CARCAMAP_TILE_H

#include <stdbool.h>
#include "common.h"
#include "diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CM_N = 0, CM_E = 1, CM_S = 2, CM_W = 3 } cm_side;

typedef uint16_t cm_slots; /* 12-bit mask */
#define CM_SLOTS_ALL 0x0FFFu
#define CM_SLOT(side, p) ((cm_slots)(1u << (3 * (side) + (p))))
#define CM_SIDE_SLOTS(side) ((cm_slots)(7u << (3 * (side))))
#define CM_SIDE_MID(side) CM_SLOT(side, 1)

/* Slot names "Nw".."Wn" by bit index; parse accepts exactly these. */
const char *cm_slot_name(int bit);
int cm_slot_parse(const char *s); /* bit index or -1 */
/* "Nw Nm Ne"; returns the number of characters written (snprintf rules). */
int cm_slots_format(cm_slots m, char *buf, size_t size);
/* Parses a space-separated slot list; 0 or CM_EINVAL (unknown or repeated name). */
int cm_slots_parse(const char *s, cm_slots *out);

/* Rotation by r quarter turns clockwise (r taken mod 4). */
cm_slots cm_slots_rotate(cm_slots m, int r);
cm_side cm_side_rotate(cm_side s, int r);
/* The slot bit on the neighbour across side (bit/3) that faces slot bit. */
int cm_slot_facing(int bit);
/* The slots of side s moved to face the neighbour: slot p of s -> slot 2-p of (s+2)%4. */
cm_slots cm_slots_facing(cm_slots m);
/* The sides on which m has at least one slot: bit s for side s. */
unsigned cm_slots_sides(cm_slots m);
const char *cm_side_name(cm_side s); /* "N" … */

typedef enum {
	CM_FEAT_ROAD = 0,
	CM_FEAT_CITY,
	CM_FEAT_FIELD,
	CM_FEAT_MONASTERY,
	CM_FEAT_GARDEN,
	CM_FEAT_ABBEY
} cm_feature_kind;
#define CM_FEAT_KIND_COUNT 6
const char *cm_feature_kind_name(cm_feature_kind k); /* "road" … */
int cm_feature_kind_parse(const char *s, cm_feature_kind *out);

/* Edge kinds, derived from the features that cover a side. ABBEY matches
 * anything and closes what it meets. */
typedef enum { CM_EDGE_FIELD = 0, CM_EDGE_ROAD, CM_EDGE_CITY, CM_EDGE_ABBEY } cm_edge_kind;
const char *cm_edge_kind_name(cm_edge_kind k);
/* Whether two facing edge kinds may meet. */
bool cm_edge_match(cm_edge_kind a, cm_edge_kind b);

typedef enum { CM_GOOD_NONE = 0, CM_GOOD_WINE, CM_GOOD_GRAIN, CM_GOOD_CLOTH } cm_good;
const char *cm_good_name(cm_good g); /* "", "wine", "grain", "cloth" */

#define CM_MAX_FEATURES 32 /* per tile; relations are bit masks over feature indices */

typedef struct {
	cm_feature_kind kind;
	char *id;            /* local id, unique within the tile ("c1") */
	cm_slots slots;      /* edge slots it covers; 0 for monastery/garden/inner field */
	uint8_t arms;        /* coats of arms (pennants) */
	bool cathedral;      /* city */
	bool inn;            /* road */
	cm_good good;        /* city */
	uint32_t touches;    /* field: indices of the cities it touches (bit i = feature i) */
	unsigned line;       /* source line, 0 if unknown */
} cm_feature;

typedef struct {
	char *id;                 /* "D", "IC-05" */
	char *name;               /* optional description, may be NULL */
	int count[CM_EDITION_COUNT]; /* copies per edition (C3 = C2 unless given) */
	bool start;               /* the start tile of a base set */
	cm_feature *features;
	size_t n_features;
	uint32_t *contacts;       /* each a bit mask of features that touch (C1 wagon) */
	size_t n_contacts;
	char **markers;           /* prints the rules ignore (the minis' gold mine,
	                           * mage's hat, robber, crop circle), in file order;
	                           * kept for a module that gives them meaning */
	size_t n_markers;
	unsigned line;
	/* derived by cm_tile_type_derive(): */
	uint8_t edge[4];          /* cm_edge_kind per side */
	int8_t slot_feature[12];  /* feature index per slot, -1 if none */
} cm_tile_type;

/* Fills edge[] and slot_feature[] from the features. Returns 0, or CM_EINVAL
 * when a slot is covered twice (slot_feature then keeps the first). */
int cm_tile_type_derive(cm_tile_type *t);
/* Edge kind of side s after rotating the tile r quarter turns clockwise. */
cm_edge_kind cm_tile_edge(const cm_tile_type *t, cm_side s, int r);
/* Whether tile a (rotation ra) may sit with its side s against tile b
 * (rotation rb) across the shared edge. */
bool cm_tiles_match(const cm_tile_type *a, int ra, cm_side s, const cm_tile_type *b, int rb);
/* Releases what a tile type owns (not t itself); NULL-safe. */
void cm_tile_type_clear(cm_tile_type *t);

#ifdef __cplusplus
}
#endif
#endif
