/* SPDX-License-Identifier: MIT */
/* scene_int.h: the scene's storage (carcamap/scene.h), shared by its
 * builder and SVG writer (scene.c) and its cairo writers (scene_cairo.c):
 * nodes in one array linked as a tree, styles stored once each, strings
 * in one arena. */
#ifndef CM_SCENE_INT_H
#define CM_SCENE_INT_H

#include <stdio.h>
#include "carcamap/scene.h"

enum { SN_GROUP, SN_RECT, SN_CIRCLE, SN_PATH, SN_TEXT, SN_BREAK, SN_PATTERN };

typedef struct {
	uint8_t kind;
	uint8_t has_xf;     /* group: translated by (a, b) */
	uint32_t style;     /* index into styles (0: nothing set) */
	uint32_t next;      /* next sibling, or CM_NODE_NONE */
	uint32_t child;     /* group: first child, or CM_NODE_NONE */
	int32_t a, b, c, d; /* rect x y w h; circle cx cy r100; text x y; group tx ty;
	                     * pattern w h */
	uint32_t str;       /* path data, text: arena offset (0: none) */
	uint32_t meta;      /* index into metas (0: none) */
} cm__snode;

typedef struct {
	uint32_t id, cls, title, line2; /* arena offsets, 0 none */
	uint32_t data;      /* "name\0value\0...\0\0" in the arena, 0 none */
	int dy;             /* text: the second line's offset */
} cm__smeta;

struct cm_scene {
	cm__snode *n;
	size_t nn, cap_n;
	cm__smeta *meta;
	size_t nmeta, cap_meta;
	cm_style *st;
	size_t nst, cap_st;
	uint32_t *st_hash;  /* open addressing over styles: index + 1, 0 empty */
	size_t hash_cap;
	char *arena;
	size_t na, cap_a;
	char *pend;         /* path data being added */
	size_t npend, cap_pend;
	uint32_t stack[16]; /* open groups */
	uint32_t last[16];  /* their last child */
	int depth;
	uint32_t *pat;      /* pattern nodes */
	size_t npat, cap_pat;
	int w, h;
	uint32_t title, desc;
	int oom;
};

static inline const char *cm__sstr(const cm_scene *s, uint32_t off)
{
	return off ? s->arena + off : NULL;
}
static inline const cm__smeta *cm__snode_meta(const cm_scene *s, const cm__snode *n)
{
	return n->meta ? &s->meta[n->meta] : NULL;
}

/* The tile of cm_scene_tile (scene_tile.c); feature(arg, fi) (when not
 * NULL) opens a group around the drawing of feature fi and returns 1
 * (closed by the caller), or returns 0. The prints the tile shows
 * (junctions, bridges, coats of arms, markers, ...), a bit each, are added
 * to *prints when it is not NULL, for a key. */
cm_node cm__scene_tile(cm_scene *s, int x, int y, const cm_tile_type *t, int r, int (*feature)(void *, int),
                       void *arg, unsigned *prints);
/* Tiles drawn once per (type, rotation) and copied where they recur (a
 * played board repeats a few dozen of them): cm__scene_tile_cached draws
 * as cm__scene_tile does, with the same nodes, the same feature calls in
 * the same order and the same prints, but computes each (t, r) once. The
 * tile types must outlive the cache (it knows them by address); a cache
 * serves any number of scenes. cm__tile_cache_new: 0 or CM_ENOMEM. */
typedef struct cm__tile_cache cm__tile_cache;
int cm__tile_cache_new(cm__tile_cache **out);
void cm__tile_cache_free(cm__tile_cache *c);
cm_node cm__scene_tile_cached(cm_scene *s, cm__tile_cache *c, int x, int y, const cm_tile_type *t, int r,
                              int (*feature)(void *, int), void *arg, unsigned *prints);
/* The prints tile type t turned r shows (its template drawn when new),
 * added to *prints. 0 or CM_ENOMEM. */
int cm__tile_cache_prints(cm__tile_cache *c, const cm_tile_type *t, int r, unsigned *prints);
/* Copies node n of src into the group open in s: its kind, style,
 * geometry, strings and metadata, not its children; a group is opened
 * (the caller copies its children and closes it with cm_scene_end). Not
 * for patterns. Returns the new node (CM_NODE_NONE when out of memory). */
cm_node cm__scene_copy_node(cm_scene *s, const cm_scene *src, cm_node n);
/* The key of prints at z times its tile-sheet size (a tile sheet's 1, a
 * played board's 2, so its words match the map's key): its height in a
 * width of w units, and the key drawn from (x, y) (returns the same
 * height). */
#define CM__TILE_KEY_SHEET 1
#define CM__TILE_KEY_BOARD 2
int cm__tile_key_height(int w, unsigned prints, int z);
int cm__scene_tile_key(cm_scene *s, int x, int y, int w, unsigned prints, int z);
/* A printed big city's piece (its tile drawn at (x, y), unturned) in the
 * drawing maps have always had (scene.c). */
cm_node cm__scene_piece(cm_scene *s, int x, int y, const cm_tile_type *t);

/* A coat of arms, 8 wide and 9 high, its top-left corner at (x, y). */
void cm__scene_shield(cm_scene *s, int x, int y);

/* Writes the scene as an <svg> element (with an XML declaration when
 * standalone). Write errors are the caller's (ferror). */
void cm__scene_svg(const cm_scene *s, FILE *f, const cm_scene_opts *o, int standalone);

/* The cairo writers (scene_cairo.c). */
int cm__scene_png(const cm_scene *s, const cm_scene_opts *o, const char *path, cm_diags *d);
int cm__scene_pdf(const cm_scene *s, const cm_scene_opts *o, const char *path, cm_diags *d);
/* n pages of paper o->paper_w_um x o->paper_h_um, page i the scene
 * pages[i] at o->cell_um per 36 units, its origin at (x_um, y_um). */
int cm__scene_pdf_pages(cm_scene *const *pages, size_t n, int x_um, int y_um, const cm_scene_opts *o,
                        const char *path, cm_diags *d);

#endif
