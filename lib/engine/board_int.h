/* SPDX-License-Identifier: MIT */
/* board_int.h: the engine's private structures, shared by its modules:
 * the map's layout (layout.c) and the board over it. Everything a turn touches is a flat array
 * sized when the board is made: no allocation per turn. */
#ifndef CM_BOARD_INT_H
#define CM_BOARD_INT_H

#include <string.h>
#include "carcamap/board.h"
#include "carcamap/play.h"
#include "carcamap/replay.h"

/* Per-side requirement of an empty square, 2 bits a side (side s at bits
 * 2s..2s+1): what the tile's edge there must be. An abbey edge and an
 * empty or neutral neighbour require nothing. */
enum { REQ_ANY = 0, REQ_FIELD = 1, REQ_ROAD = 2, REQ_CITY = 3 };

/* Node flags. */
enum {
	NF_MULTI = 1,     /* the square holds another road or city piece of the same kind
	                   * (BASE-TILE-COUNT); on a root: some piece under it does */
	NF_INN = 2,
	NF_CATHEDRAL = 4,
	NF_BIGCITY = 8,   /* a printed big-city piece (MAP-BIGCITY-SCORE) */
	NF_PRINT = 16,    /* a printed edge segment (MAP-EDGE-DONE) */
	NF_FERRY = 32,    /* a ferry route (MAP-FERRY-SCORE) */
	NF_DONE = 64,     /* complete and scored (roots only) */
	NF_EDGE = 128     /* closed by the map edge somewhere (MAP-EDGE-DONE) */
};

/* A side's join signature (type_info.jsig): bits of what its three slots
 * hold, so that the bits two sides that meet share say what joins there
 * (board.c join_plan): a field on slot p, a road or a city on the middle
 * slot, slots 0 and 1 or 1 and 2 of one feature; JS_ABBEY on every side
 * of an abbey tile. */
enum {
	JS_FIELD0 = 1,
	JS_FIELD1 = 2,
	JS_FIELD2 = 4,
	JS_ROAD1 = 8,
	JS_CITY1 = 16,
	JS_SAME01 = 32,
	JS_SAME12 = 64,
	JS_ABBEY = 128
};

/* What the engine precomputes for a tile type (or a big-city piece, which
 * is never rotated). */
typedef struct {
	/* what a placement reads (of the tile put and of its neighbours)
	 * first, in the first two cache lines; then what scoring, the
	 * board's checks and a new board read (type_info is 1,024 bytes, a
	 * deck's are more than the L1 cache holds) */
	uint8_t n_feat;
	int8_t mon;                        /* monastery or abbey feature, -1 */
	bool abbey;                        /* has an abbey feature: never drawn */
	uint32_t roadcity;                 /* bit f: feature f is a road or a city */
	uint32_t spot_meeple;              /* bit f: random play may put a meeple on f (not a garden) */
	uint32_t spot_wagon;               /* ... a wagon (not a garden or a field) */
	/* deck types: rotcnt then rotmask in the deck's table of distinct
	 * ones (cm_deck.fit; types of one edge pattern share it), so the
	 * frontier scans of random play touch few cache lines; NULL for
	 * big-city pieces */
	const uint8_t *fit;
	int8_t slot[4][12];                /* per rotation: feature on each slot */
	uint8_t edge[4][4];                /* per rotation: cm_edge_kind per side */
	uint8_t reqn[4];                   /* per rotation: bits 2e..2e+1 what side (e + 2) & 3 requires (REQ_)
	                                    * of the neighbour across it (its side e) */
	uint8_t jsig[4][4];                /* per rotation and side: its join signature (JS_), slots in order */
	uint8_t jsigr[4][4];               /* ... the side as its neighbour meets it: slots in reverse order */
	uint8_t kind[CM_MAX_FEATURES];
	uint8_t arms[CM_MAX_FEATURES];
	uint8_t open0[CM_MAX_FEATURES];    /* sides a road or city touches */
	uint8_t nflags[CM_MAX_FEATURES];   /* NF_MULTI, NF_INN, NF_CATHEDRAL */
	uint32_t touches[CM_MAX_FEATURES]; /* fields: cities on the tile */
	uint32_t same[CM_MAX_FEATURES];    /* roads and cities: the tile's other features of that kind */
	uint8_t rotcnt[256];               /* per requirement byte: legal rotations counted */
	uint8_t rotmask[256];              /* per requirement byte: legal rotations */
} type_info;

/* A deck's fit table (cm_deck.fit) per edge pattern: rotcnt[256],
 * rotmask[256], then the rotations meeting sides N and E (16, by the low
 * nibble) and S and W (16, by the high one), whose intersection is
 * rotmask; a multiple of 16 bytes, so each table's halves are aligned. */
#define CM__FIT_SIZE 544

struct cm_deck {
	char **set_ids;
	size_t n_sets;
	const cm_tile_type **types;
	int *count;
	size_t n_types;
	int start;
	int total;
	type_info *info;
	uint8_t *fit;   /* per distinct edge pattern, CM__FIT_SIZE bytes each */
};

/* Fills ti from a tile type. 0 or CM_EINVAL (too many features, a slot
 * without a feature). */
int cm__type_info(const cm_tile_type *t, type_info *ti);

/* A feature piece, split in two: what a union, a find and the checks of
 * a turn read (node, 32 bytes: two to a cache line, so the pieces a
 * game touches stay in the L1 cache), and what only rarer steps read
 * (node_x: squares, the NF_MULTI lists, followers per player), in a
 * parallel array (cm_board.nx). */
typedef struct {
	int32_t parent; /* the root itself (a union relabels the smaller set's pieces) */
	int32_t next;   /* circular list of the pieces under one root */
	int32_t size;   /* roots: pieces */
	int32_t open;   /* roots: open edges; monasteries: neighbours missing */
	int32_t tiles;  /* roots: BASE-TILE-COUNT */
	int32_t arms;
	int32_t minp;   /* roots: the lowest-numbered piece on a square, -1 (cm__item_where) */
	uint8_t kind;
	uint8_t flags;
	uint16_t nfol;  /* roots: followers (6 players x up to 255) */
} node;

/* Spare nodes past the last a board can use, and spare templates past
 * the deck's last: cm__put_tile sets up NODE_SPARE + 1 pieces of every
 * tile, whatever its count, so the turn's code may read that many
 * pieces from a tile's first without testing its count. */
#define NODE_SPARE 3
#define NODE_PAD (2 * NODE_SPARE + 1) /* the spares: a tile of more pieces sets up twice as many */

typedef struct {
	int32_t sq;     /* tile identity: square index, or n_squares + k for a print or ferry */
	/* read only under NF_MULTI (a new tile's pieces set them as for a
	 * piece that has it) */
	int32_t mhead;  /* roots: a piece of the list below */
	int32_t mnext;  /* NF_MULTI pieces: circular list of those under one root */
	int32_t nmulti; /* roots: NF_MULTI pieces */
	uint8_t feat;   /* feature index on its square, 255 for prints and ferries */
	uint8_t fol[CM_MAX_PLAYERS]; /* roots with nfol > 0 (set by the first follower) */
} node_x;

/* What lies across a side of a playable square (layout.side_cls): a
 * playable square, a big-city piece, nothing a tile joins (the grid edge,
 * water, a landmark), or such a side with a printed segment or a ferry's
 * end (the static node in layout.side_static). */
enum { SC_PLAYABLE = 0, SC_BIGCITY = 1, SC_NONE = 2, SC_STATIC = 3 };

/* Square flags. */
enum {
	SF_PLAYABLE = 1, /* can ever take a tile (land, start, town, island) */
	SF_REACH = 2,    /* next to a tile, or unlocked */
	SF_ALLOWED = 4,  /* not an island nobody has connected */
	SF_TOWN = 8,
	SF_BIGCITY = 16
};

typedef struct {
	uint8_t kind;   /* cm_move_kind */
	uint8_t player;
	uint8_t type;
	uint8_t rot;
	int16_t x, y;
	int8_t feature;
	uint8_t wagon;  /* the deployed follower is a wagon */
} move_rec;

/* A wagon waiting for its move (WAGON-MOVE). */
typedef struct {
	int8_t player;
	int32_t sq;     /* where it stood */
	int32_t root;   /* the scored feature */
} wagon_wait;

/* The map's layout (layout.c): everything that depends on the map alone,
 * built once in named steps (the grid, big cities, ferries, their
 * nodes, the squares' sides, the neighbourhoods a connection unlocks) and
 * read-only from then on. One layout serves the validator, every board on
 * the map and every thread that plays on it (cm__layout, engine.h: the
 * layout with a reference count). A board keeps a copy of this view: the
 * pointers are borrowed and never written through, and the turn reads a
 * static array at one load from the board, as it reads its own fields.
 *
 * Neighbours are computed, not stored (a 1024x1024 map would spend 48 MB
 * on them): cm__nb and cm__nb8 below. Most of a big map is land among
 * land: the arrays marked "sparse" are written only where they mean
 * something and read only there (elsewhere they hold 0, unspecified), so
 * a million squares cost no memory in them. */
typedef struct {
	const cm_map *map;
	int cols, rows, n_sq;
	uint64_t cols_inv;  /* ceil(2^42 / cols): cm__row divides by a multiply */
	int32_t off4[4];    /* index steps to the neighbours N E S W */
	int32_t off8[8];    /* to the 8 around, clockwise from the north-west */
	/* per square, every square written (one block) */
	const uint8_t *border;   /* BD_ bits of the grid edges it lies on */
	const uint8_t *sq_kind;
	const uint8_t *sflags0;  /* SF_ flags before any tile */
	const uint8_t *req0;     /* printed requirements (REQ_ per side) before any tile */
	const uint8_t *side_cls; /* 2 bits per side d, what lies across it (SC_) */
	const uint8_t *around8;  /* playable and big-city squares among the 8 around
	                          * (MAP-MONASTERY-EDGE counts them) */
	const uint8_t *sq_links; /* bit d when side d ends a ferry or faces a big city */
	const int32_t *island;   /* sparse, island squares: island index, -1 (up to
	                          * CM_ITEMS_MAX islands); read through cm__island_of */
	const uint8_t *island_arms; /* sparse, island squares: coats of arms (MAP-ISLAND) */
	const int32_t *side_static; /* sparse, n_sq*4, SC_STATIC sides: the static node the
	                          * side meets (printed segment, ferry); read through
	                          * cm__side_static */
	const int16_t *side_bc;  /* sparse, n_sq*4, squares with sq_links: big city faced on
	                          * that side, -1 (CM_BOARD_MAX_LINKS) */
	const int16_t *side_ferry; /* sparse like side_bc: ferry whose end is that side, -1 */
	const int32_t *bc_base;  /* sparse, big-city squares (SF_BIGCITY): first node of
	                          * the piece there */
	const int32_t *bc_type;  /* sparse, big-city squares: index into bc_info */
	const type_info *bc_info; /* one per big-city piece */
	const cm_tile_type *const *bc_tile; /* per big-city piece: its tile (contacts, WAGON-C1) */
	size_t n_bc_pieces;
	const int32_t *bc_adj_start, *bc_adj; /* per big city: playable squares next to it */
	const int32_t *isl_start, *isl_sq;    /* per island: its squares */
	const int32_t *start_sq; /* start squares, row-major */
	int n_start;
	int n_playable;
	const node *static_nodes; /* the static pieces (big-city pieces joined, ferries,
	                           * printed segments) as a new game starts: nodes
	                           * 0..n_static-1 of every board */
	const node_x *static_nx;
	int n_static;
} layout;

/* The layout with its owner's count (layout.c): shared by reference,
 * freed with the last. */
struct cm__layout {
	layout L;
	void *slab;   /* the per-square block the dense arrays lie in */
	uint8_t *dense; /* their first, in slab */
	int refs;     /* atomic (__atomic builtins) */
	bool whole;   /* boards' steps built too (cm__layout_complete) */
	int n_bc_nodes, n_prints; /* carried from the validator's steps to the boards' */
};

/* Takes another reference to l (safe from any thread); returns l. */
struct cm__layout *cm__layout_ref(struct cm__layout *l);

struct cm_board {
	layout L;                 /* the map's layout, borrowed from lay (read only) */
	struct cm__layout *lay;   /* holds a reference */
	const cm_deck *deck;
	cm_rules rules;
	int n_players;
	unsigned flags;
	uint64_t seed;
	cm_rng rng;

	/* game state */
	int16_t *tile;      /* per square: deck type, -1 */
	uint8_t *rot;
	int32_t *base;      /* per square: first node of the tile's features */
	uint8_t *req;
	uint8_t *sflags;
	int32_t *mon;       /* per square: monastery node, -1 */
	int32_t *front, *front_pos;
	uint8_t *front_req; /* req of front[i], side by side for the scans of random play
	                     * (15 spare entries: they read 16 at a time) */
	uint32_t *front_cum;/* scratch for random play: legal placements in front[0..i] */
	uint8_t *front_fit; /* scratch for random play's SIMD scan: legal placements on
	                     * front[i] (15 spare entries) */
	int n_front;
	int n_filled;
	int32_t *filled;    /* the squares filled, in order (n_filled): reset and
	                     * statistics walk these, never the whole map */
	bool reset_all;     /* the next reset clears every square (a new board) */
	uint8_t *mon_near;  /* per square: bit k when its k-th of the 8 around (cm__nb8) holds a monastery or abbey */
	uint8_t *bc_connected;
	uint8_t *isl_open;
	uint8_t *ferry_used;
	node *nodes;
	node_x *nx;         /* per node, its rarer half */
	int n_nodes, max_nodes;
	node *proto;        /* per deck type, its pieces as a new tile's (links and minp: the place on the tile) */
	int32_t *proto_at;  /* per deck type: its first piece in proto */
	uint32_t *stamp;    /* per square, for counting squares once */
	uint32_t *nstamp;   /* per node, for counting roots once */
	uint32_t epoch;
	uint8_t *pile;      /* deck type per copy; pile[pile_top..pile_n) are left */
	int pile_n, pile_top;
	uint8_t *pile0;     /* the pile before shuffling, in deck order */
	int pile0_n;
	bool start_used;
	int32_t *start_pick;/* scratch for choosing the start squares */

	int cur;
	int score[CM_MAX_PLAYERS];
	int supply[CM_MAX_PLAYERS];
	uint8_t wagons[CM_MAX_PLAYERS]; /* wagons in the supply */
	uint8_t abbeys[CM_MAX_PLAYERS]; /* abbey tiles held */
	int abbey_type;     /* the deck's abbey tile type, -1 */
	int abbey_count;    /* its copies (dealt one per player) */
	wagon_wait wait[CM_MAX_PLAYERS];
	int n_wait;
	/* per node, scratch for WAGON-C1 (wagon.c): adjacent to the scored
	 * feature when wmark equals wepoch, by what (cm_wagon_via) and where */
	uint32_t *wmark;
	uint8_t *wvia;
	int32_t *wvsq;
	uint32_t wepoch;
	cm_follower *fol;   /* on the board */
	int32_t *fol_node;
	int32_t *froots;    /* scratch for final scoring: the roots of fol_node */
	int n_fol;

	/* the turn */
	int last_sq;        /* square placed this turn, -1 */
	bool deployed;
	bool extra_taken;   /* MAP-TOWN 1: this turn is already an extra turn */
	bool final_done;
	bool want_items;    /* this end of turn or final scoring builds its
	                     * score items (a hook or a caller reads them);
	                     * random play without a hook only adds points */

	cm_score_item *items;
	size_t n_items, max_items;
	cm_score_hook hook; /* cm_board_set_score_hook */
	void *hook_arg;

	move_rec *log;
	int n_log, max_log;

	cm_game_stats stats;
};

/* The few hot steps of a turn the compiler should inline where they are
 * called whatever its size heuristics (a hint elsewhere). */
#if defined(__GNUC__)
#define CM__INLINE inline __attribute__((always_inline))
#else
#define CM__INLINE inline
#endif
/* ... and the rarer steps kept out of line, so the hot code stays small
 * enough for the instruction cache. */
#if defined(__GNUC__)
#define CM__NOINLINE __attribute__((noinline))
#else
#define CM__NOINLINE
#endif

/* The static node (printed segment, ferry) across side d of playable
 * square s, or -1. */
static inline int32_t cm__side_static(const layout *L, int s, int d)
{
	return ((L->side_cls[s] >> (2 * d)) & 3) == SC_STATIC ? L->side_static[s * 4 + d] : -1;
}

/* The index of the lowest set bit of m (m not 0). */
static inline int cm__ctz(unsigned m)
{
#if defined(__GNUC__)
	return __builtin_ctz(m);
#else
	int k = 0;
	while (!((m >> k) & 1))
		k++;
	return k;
#endif
}

/* Grid edges a square lies on (bit d: no neighbour across side d). */
enum { BD_N = 1, BD_E = 2, BD_S = 4, BD_W = 8 };

/* Square s's row, s / cols: exact for s < 2^21 and cols <= 2^10
 * (CM_GRID_MAX), as cols_inv * cols - 2^42 < cols. */
static inline int cm__row(const cm_board *b, int s)
{
	return (int)(((uint64_t)s * b->L.cols_inv) >> 42);
}

/* The neighbour of square s across side d (N E S W), -1 off the grid. */
static inline int32_t cm__lnb(const layout *L, int s, int d)
{
	return (L->border[s] >> d) & 1 ? -1 : s + L->off4[d];
}

static inline int32_t cm__nb(const cm_board *b, int s, int d)
{
	return cm__lnb(&b->L, s, d);
}

/* The k-th of the 8 squares around s, clockwise from the north-west, -1
 * off the grid. */
static inline int32_t cm__lnb8(const layout *L, int s, int k)
{
	static const uint8_t block[8] = { BD_N | BD_W, BD_N, BD_N | BD_E, BD_E,
		                          BD_S | BD_E, BD_S, BD_S | BD_W, BD_W };
	return L->border[s] & block[k] ? -1 : s + L->off8[k];
}

static inline int32_t cm__nb8(const cm_board *b, int s, int k)
{
	return cm__lnb8(&b->L, s, k);
}

/* The island of square s, -1 (the layout's island is sparse). */
static inline int32_t cm__lisland_of(const layout *L, int s)
{
	return L->sq_kind[s] == CM_SQ_ISLAND ? L->island[s] : -1;
}

static inline int32_t cm__island_of(const cm_board *b, int s)
{
	return cm__lisland_of(&b->L, s);
}

/* union-find: every piece's parent is its root (unite relabels the
 * pieces of the smaller set, whose ring it walks anyway), so finding a
 * root is one load and no loop of unpredictable length. */
static inline int32_t cm__find(const node *n, int32_t a)
{
	return n[a].parent;
}

/* The features on square s (a tile's or a big-city piece's): their count,
 * the first in *lo (0 and 0 when none). */
static inline int cm__sq_nodes(const cm_board *b, int s, int32_t *lo)
{
	/* a big-city square never takes a tile (and the layout's builder
	 * asks this of big-city squares on a board without tiles) */
	if (b->L.sflags0[s] & SF_BIGCITY) {
		*lo = b->L.bc_base[s];
		return b->L.bc_info[b->L.bc_type[s]].n_feat;
	}
	if (b->tile[s] >= 0) {
		*lo = b->base[s];
		return b->deck->info[b->tile[s]].n_feat;
	}
	*lo = 0;
	return 0;
}

/* What square s holds: its tile's type, its big-city piece, or NULL. */
static inline const type_info *cm__sq_info(const cm_board *b, int s)
{
	if (b->L.sflags0[s] & SF_BIGCITY)
		return &b->L.bc_info[b->L.bc_type[s]];
	if (b->tile[s] >= 0)
		return &b->deck->info[b->tile[s]];
	return NULL;
}

/* A new piece i on square sq (n_sq + k for a print or ferry): its own
 * root, one tile, the open edges and coats of arms given. */
static inline void cm__init_node(node *nd, node_x *x, int32_t i, int32_t sq, uint8_t kind, uint8_t flags,
                                 uint8_t feat, int open, int arms)
{
	memset(nd, 0, sizeof *nd);
	memset(x, 0, sizeof *x);
	nd->parent = i;
	nd->next = i;
	x->mnext = i;
	x->mhead = (flags & NF_MULTI) ? i : -1;
	x->nmulti = (flags & NF_MULTI) ? 1 : 0;
	x->sq = sq;
	nd->kind = kind;
	nd->flags = flags;
	x->feat = feat;
	nd->open = open;
	nd->tiles = 1;
	nd->arms = arms;
	nd->size = 1;
	nd->minp = feat != 255 ? i : -1; /* prints and ferries lie on no square */
}

/* A fresh stamp value for stamp and nstamp (both cleared when it wraps). */
static inline uint32_t cm__epoch(cm_board *b)
{
	if (++b->epoch == 0) {
		memset(b->stamp, 0, (size_t)b->L.n_sq * sizeof *b->stamp);
		memset(b->nstamp, 0, (size_t)b->max_nodes * sizeof *b->nstamp);
		b->epoch = 1;
	}
	return b->epoch;
}

/* board.c */
void cm__item_where(const cm_board *b, int32_t nd, cm_score_item *it); /* a score item's square */
/* Records a follower of player on node nd (not its supply). */
void cm__put_follower(cm_board *b, int player, cm_follower_kind kind, int32_t nd);
/* cm_board_deploy without its checks: feature f of last_sq's tile, whose
 * root r the caller found free, for a follower the current player holds. */
void cm__deploy_free(cm_board *b, int f, cm_follower_kind kind, int32_t r);
void cm__put_tile(cm_board *b, int t, int s, int r);
/* cm_board_place of the tile on top of the pile (t) on a legal placement,
 * without the checks: random play's turn. */
void cm__place_drawn(cm_board *b, int t, int s, int r);
void cm__log_move(cm_board *b, cm_move_kind k, int t, int s, int r);
int cm__sq_index(const cm_board *b, int x, int y);
/* The features of tile type placed on square s in rotation rot (a legal
 * placement) whose joined feature would carry no follower: bit f. */
uint32_t cm__free_if(const cm_board *b, int type, int s, int rot);
bool cm__pile_has(const cm_board *b, int type); /* a copy is left to draw */
/* Whether the current player has a follower of this kind to deploy. */
bool cm__in_supply(const cm_board *b, cm_follower_kind kind);

/* deck.c: the library's FNV-1a 64 (cm_hash_bytes, from CM_HASH_INIT) */
uint64_t cm__fnv_u32(uint64_t h, uint32_t v); /* little-endian bytes */
uint64_t cm__hash_tile(uint64_t h, const cm_tile_type *t); /* features */

/* wagon.c */
void cm__wagon_order(cm_board *b, int placer); /* sorts the waiting wagons clockwise */
void cm__wagon_settle(cm_board *b); /* first waiting wagons without destinations go back */
/* Abbey squares in frontier order: the count (nth < 0) or the nth square (-1). */
int cm__abbey_front(const cm_board *b, int nth);
/* The first waiting wagon's destinations: all (nth < 0, as
 * cm_board_wagon_moves) or only the nth into out[0]; returns the total. */
size_t cm__wagon_dests(const cm_board *b, cm_wagon_dest *out, size_t max, long nth);

/* ask.c: cm_board_place_if on square s without its checks (a legal
 * placement, no turn open): the players that list the placements themselves */
void cm__place_if(const cm_board *b, int type, int s, int rot, cm_place_if *out);

/* play.c: whether p is the library's random player (cm_board_play's
 * fast path: cm_board_play_random) */
struct cm_player;
bool cm__player_is_random(const struct cm_player *p);

/* score.c */
unsigned cm__majority(const uint8_t *fol, int np); /* bit p: most followers in fol[p], 0 for none */
void cm__score_feature(cm_board *b, int32_t root, bool final, bool award);
void cm__score_monastery(cm_board *b, int32_t m, int sq, bool final, bool award);
void cm__return_followers(cm_board *b, int32_t root);
cm_score_item *cm__item(cm_board *b);
void cm__final_fields(cm_board *b);

#endif
