/* SPDX-License-Identifier: MIT */
/* carcamap/map.h: the map model (DESIGN.md "Core model"): a grid of printed
 * squares with kinds, names, coats of arms and markers; big cities as
 * printed pseudo-tiles; edge prints on the map edge; ferries; islands;
 * setup, decks and rule options. A map is opaque and immutable: built once
 * through a map builder, which checks the model once, or read from a
 * descriptor (schemas/map.xsd, optionally with squares from an annotated
 * image), then read through accessors; its game structure is checked by
 * CM02xx (cm_map_check). Threads: maps are safe to read from many threads;
 * a builder belongs to one thread at a time. */
#ifndef CARCAMAP_MAP_H
#define CARCAMAP_MAP_H

#include "rules.h"
#include "tile.h"
#include "tileset.h"

/* The newest descriptor format this library reads: 1, and 2 = 1 with
 * printings (schemas/map.md "Printings", "Versions"). The writer writes 1. */
#define CM_MAP_FORMAT 2

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	CM_SQ_NONE = 0,  /* not printed: map edge */
	CM_SQ_LAND,
	CM_SQ_START,
	CM_SQ_TOWN,
	CM_SQ_BIGCITY,   /* part of a printed big city (bigcity index on the square) */
	CM_SQ_WAVES,
	CM_SQ_LANDMARK,
	CM_SQ_ISLAND,    /* island id on the square */
	CM_SQ_HALF       /* USA seam half square; no tile unless combined */
} cm_square_kind;
#define CM_SQ_KIND_COUNT 9
const char *cm_square_kind_name(cm_square_kind k); /* "none", "land", … */
int cm_square_kind_parse(const char *s, cm_square_kind *out);
/* The descriptor's grid key (schemas/map.md): '.' none, '#' land, 'S' start,
 * 'T' town, 'B' bigcity, '~' waves, 'L' landmark, 'I' island, 'H' half.
 * from_char returns 0 or CM_EINVAL for any other character. */
char cm_square_kind_char(cm_square_kind k);
int cm_square_kind_from_char(char c, cm_square_kind *out);
/* Whether a tile may ever go on a square of this kind (land, start, town, island). */
bool cm_square_kind_playable(cm_square_kind k);

typedef enum {
	CM_PRINT_NONE = 0, /* the side faces another playable square: no print */
	CM_PRINT_NEUTRAL,  /* map edge, nothing printed: any side may face it */
	CM_PRINT_ROAD,
	CM_PRINT_CITY
} cm_print_kind;
const char *cm_print_kind_name(cm_print_kind k);

/* The print on one side of a square: kind and coats of arms. Its label
 * ("to Denmark") and line live beside the grid: cm_map_print_label,
 * cm_map_print_line. */
typedef struct {
	uint8_t kind;      /* a cm_print_kind */
	uint8_t arms;      /* coats of arms printed on the segment */
} cm_edge_print;

/* One square of the grid: what every square needs, in at most
 * CM_SQUARE_MAX_BYTES (a 1024x1024 map is a million of them). What few
 * squares have (a name, markers, edge-print labels and lines) the map
 * keeps in a table beside the grid: cm_map_square_name and the other
 * accessors below. */
typedef struct {
	uint8_t kind;      /* a cm_square_kind */
	uint8_t arms;      /* island squares: coats of arms scored at placement (MAP-ISLAND) */
	/* Per side, for playable squares whose side faces no playable square
	 * (edge, waves, landmark, none, half): the print there. CM_PRINT_NONE on
	 * sides facing playable squares and big-city squares. */
	cm_edge_print print[4];
	int32_t island;    /* index into cm_map.islands, or -1 */
	int32_t bigcity;   /* index into cm_map.bigcities, or -1 */
	unsigned line;     /* line of the defining element, 0 when from an image only */
} cm_square;
#define CM_SQUARE_MAX_BYTES 64

/* One printed square of a big city: features in the tile vocabulary, in the
 * square's own orientation (never rotated). City slots facing another piece
 * of the same big city join it; slots facing playable squares must be met
 * by tiles; slots facing the map edge are closed there. */
typedef struct {
	int x, y;
	cm_tile_type tile;   /* tile.id NULL; counts unused; tile.line: the <piece> element */
} cm_bigcity_piece;

typedef struct {
	char *name;          /* "Berlin" */
	cm_bigcity_piece *pieces;
	size_t n_pieces;
	unsigned line;
} cm_bigcity;

/* A ferry route joins the road print on side s1 of square (x1,y1) to the
 * road print on side s2 of (x2,y2); counts as one road tile (MAP-FERRY-SCORE). */
typedef struct {
	char *name;
	int x1, y1;
	cm_side s1;
	int x2, y2;
	cm_side s2;
	uint8_t arms;
	unsigned line;
} cm_ferry;

typedef struct {
	char *name;          /* id used by squares and the legend */
	char *title;         /* display name ("Mallorca"); may be NULL */
	unsigned line;
} cm_island;

typedef struct {
	int starts_used;     /* start squares used at setup */
	int tiles_min, tiles_max; /* recommended land tiles (0 = unset) */
	int followers;       /* per player (MAP-TILES: 9) */
	unsigned line;
} cm_setup;

/* A deck entry: a whole tile set (tile NULL, count -1 = the set's own
 * counts for the edition), or one tile type of it with an explicit count. */
typedef struct {
	char *tileset;       /* tile set id */
	char *tile;          /* tile type id or NULL */
	int count;           /* -1 = as in the set */
	unsigned line;
} cm_deck_entry;

/* cm_rules, the rule options of a map: carcamap/rules.h. */

/* Who made a map, as MBTiles and GeoPackage metadata say it (schemas/map.md
 * "<about>"): each field NULL when not given. Single-line texts: the
 * description up to CM_TEXT_MAX bytes, the others up to CM_ABOUT_MAX. Part
 * of the content hash only when at least one field is set. */
typedef struct {
	char *title;         /* "Germany, second edition" */
	char *author;
	char *licence;       /* "CC-BY-4.0" (an SPDX id is a good choice) */
	char *version;       /* of the map, not of the format: "1.2" */
	char *description;
	char *homepage;      /* a URL */
} cm_about;
#define CM_ABOUT_FIELDS 6
/* Field i (0..CM_ABOUT_FIELDS-1) in the fixed order above: its name
 * ("title", "author", "licence", "version", "description", "homepage"),
 * and its value in a (NULL for i out of range). A map's are
 * cm_map_about's; cm_map_builder_set_about sets them. */
const char *cm_about_name(int i);
const char *cm_about_get(const cm_about *a, int i);
/* Whether any field is set. */
bool cm_about_present(const cm_about *a);
/* The field of this name, or -1. */
int cm_about_find(const char *name);

/* ---- a map ----
 * Opaque. A map is built once, through a cm_map_builder, below, or by one
 * of the readers (cm_map_load, cm_tmx_load_file, the pack reader,
 * which build through one), and never changes after. Every map a reader
 * or cm_map_builder_finish hands out has passed the model's one checker
 * (the limits below, ids, texts, every reference in range), so whatever
 * takes a const cm_map * (the engine, the exporters, the pack writer,
 * render) trusts it and checks it no more. The one exception is a partial
 * map (cm_map_partial). Threads: a map may be read by any number of
 * threads at once (play --jobs shares one): no accessor writes to it, and
 * the content hash it caches (cm_map_hash, carcamap/pack.h) is filled
 * with C11 atomics, by whichever thread asks first. */
typedef struct cm_map cm_map;

/* Every accessor takes a map (never NULL) and returns values or pointers
 * borrowed from it, valid until cm_map_free. The i-th accessors return
 * NULL for i out of range. */
const char *cm_map_id(const cm_map *m);   /* "germany" (unique in a pack) */
const char *cm_map_name(const cm_map *m); /* "Germany"; NULL when not given */
int cm_map_cols(const cm_map *m);
int cm_map_rows(const cm_map *m);
/* The square at (x,y), or NULL off the grid. */
const cm_square *cm_map_at(const cm_map *m, int x, int y);
/* All cols * rows squares, row-major (square (x,y) is [y * cols + x]):
 * for passes over every square without a call per square. */
const cm_square *cm_map_squares(const cm_map *m);
size_t cm_map_bigcity_count(const cm_map *m);
const cm_bigcity *cm_map_bigcity(const cm_map *m, size_t i);
size_t cm_map_ferry_count(const cm_map *m);
const cm_ferry *cm_map_ferry(const cm_map *m, size_t i);
size_t cm_map_island_count(const cm_map *m);
const cm_island *cm_map_island(const cm_map *m, size_t i);
/* The index (cm_square.island) of the first island named name, or -1;
 * one hash lookup, whatever the number of islands. */
int cm_map_island_find(const cm_map *m, const char *name);
size_t cm_map_deck_count(const cm_map *m);
const cm_deck_entry *cm_map_deck_entry(const cm_map *m, size_t i);
const cm_setup *cm_map_setup(const cm_map *m);
const cm_rules *cm_map_rules(const cm_map *m);
/* Who made it; fields NULL when not given. */
const cm_about *cm_map_about(const cm_map *m);
/* The annotated image and the legend as the descriptor names them (paths
 * relative to it), or NULL. */
const char *cm_map_image(const cm_map *m);
const char *cm_map_legend(const cm_map *m);
/* The descriptor's path; NULL when built in memory or read from a pack. */
const char *cm_map_file(const cm_map *m);
/* The line of the <map> element, 0 when unknown. */
unsigned cm_map_line(const cm_map *m);
/* A map combined from halves (<combine>): the column where their half
 * squares met; -1 otherwise (also for maps read from packs, which do not
 * keep it). */
int cm_map_seam(const cm_map *m);
/* The printings the descriptor describes (<map printings>, schemas/map.md
 * "Printings"), the default first, *n of them (NULL and 0 when it names
 * none: one printing, the edition of <rules>; also for packs and images).
 * This map is the printing cm_map_rules(m)->edition. Reader information:
 * not stored in packs, not compared by cm_map_equal. */
const cm_edition *cm_map_printings(const cm_map *m, size_t *n);
/* Whether m is partial: a descriptor's model handed out although its
 * checks failed (CM_MAP_LOAD_PARTIAL, for `render --diagnostics`). Such a
 * map may break any rule the checks enforce (a big-city piece or a ferry
 * end off the grid, a missing id, a text no XML holds), but never holds
 * an index, kind or side out of range: the builder refuses those when
 * they are set. Only cm_render_map draws one; the board, the exporters,
 * the pack writer and cm_map_write_xml refuse it (CM_EINVAL). */
bool cm_map_partial(const cm_map *m);

/* ---- what few squares have, kept beside the grid ----
 * Looked up by square in constant time. Each takes any (x,y) and returns
 * NULL, 0 or nothing off the grid or where nothing is set. */
/* A town, start square or landmark name; NULL when it has none. */
const char *cm_map_square_name(const cm_map *m, int x, int y);
/* The square's markers (Map-Chips prints kept for later, MAP-CHIPS-IGNORED)
 * in order, *n of them (NULL and 0 when none). */
const char *const *cm_map_square_markers(const cm_map *m, int x, int y, size_t *n);
/* The label of the print on side s ("to Denmark"), or NULL. */
const char *cm_map_print_label(const cm_map *m, int x, int y, cm_side s);
/* The line of the <edge> element that printed side s, 0 when unknown. */
unsigned cm_map_print_line(const cm_map *m, int x, int y, cm_side s);

/* ---- limits of the model (every reader and writer holds to them) ---- */
#define CM_ID_MAX 64         /* bytes in a map or tile-set id */
#define CM_TEXT_MAX 4096     /* bytes in one text (name, marker, label, path) */
#define CM_ABOUT_MAX 256     /* bytes in an <about> field but the description */
#define CM_ITEMS_MAX 65536   /* entries in one list (tiles, markers, ferries, ...) */
#define CM_COUNT_MAX 1000000 /* a count, total or setup figure */
#define CM_GRID_MAX 1024     /* columns, and rows, of a map */

/* Whether s is a map or tile-set id (schemas/map.md): 1 to CM_ID_MAX bytes
 * of a-z, 0-9 and '-', the first no '-'. Such an id is safe as a file name
 * (no '/', no "..", no leading '-'). NULL is no id. */
bool cm_id_valid(const char *s);

/* ---- building a map ----
 * A builder holds a map under construction: cols x rows squares of kind
 * none, rules at the C2 defaults, 9 followers, no seam. Setters copy what
 * they are given (texts, ferries, deck entries, piece tiles). Each returns
 * 0, CM_EINVAL or CM_ENOMEM; on failure the builder is unchanged. CM_EINVAL
 * is a value the model can never hold at that place, refused at once: a
 * square off the grid, a kind, print kind or side out of range, an island
 * or big-city index that no island or big city has yet, an about field
 * out of range, more than CM_EDITION_COUNT printings, a seam that is no
 * column (nor -1). Everything else
 * (ids, texts and their lengths, counts, pieces and ferry ends on the
 * grid) is checked once, by cm_map_builder_finish. A builder belongs to
 * one thread at a time. */
typedef struct cm_map_builder cm_map_builder;

/* A new builder for a cols x rows map (1..CM_GRID_MAX each). Returns 0,
 * CM_EINVAL (bad size) or CM_ENOMEM; the caller frees *out with
 * cm_map_builder_free or hands it to cm_map_builder_finish. */
int cm_map_builder_new(int cols, int rows, cm_map_builder **out);
/* A new builder holding a copy of m (partial or not), to make a changed
 * map from it: the map itself stays as it is. 0 or CM_ENOMEM. */
int cm_map_builder_from(const cm_map *m, cm_map_builder **out);
/* Frees the builder and what it holds; NULL is a no-op. */
void cm_map_builder_free(cm_map_builder *b);

/* Reading what is built so far: the grid's size, the square at (x,y) (NULL
 * off the grid), the setup and rules (each valid until the next call on
 * b), and the first island named name (-1 when none). */
int cm_map_builder_cols(const cm_map_builder *b);
int cm_map_builder_rows(const cm_map_builder *b);
const cm_square *cm_map_builder_square(const cm_map_builder *b, int x, int y);
const cm_setup *cm_map_builder_setup(const cm_map_builder *b);
const cm_rules *cm_map_builder_rules(const cm_map_builder *b);
int cm_map_builder_island_find(const cm_map_builder *b, const char *name);

/* The map's own values: each text copied (NULL clears it). */
int cm_map_builder_set_id(cm_map_builder *b, const char *id);
int cm_map_builder_set_name(cm_map_builder *b, const char *name);
int cm_map_builder_set_image(cm_map_builder *b, const char *path);
int cm_map_builder_set_legend(cm_map_builder *b, const char *path);
int cm_map_builder_set_file(cm_map_builder *b, const char *path);
/* About field i (0..CM_ABOUT_FIELDS-1, cm_about_name order). */
int cm_map_builder_set_about(cm_map_builder *b, int i, const char *value);
int cm_map_builder_set_line(cm_map_builder *b, unsigned line);
int cm_map_builder_set_seam(cm_map_builder *b, int col);
int cm_map_builder_set_printings(cm_map_builder *b, const cm_edition *printings, size_t n);
int cm_map_builder_set_setup(cm_map_builder *b, const cm_setup *setup);
int cm_map_builder_set_rules(cm_map_builder *b, const cm_rules *rules);

/* Squares. set_square writes every field of the square at (x,y): kind,
 * arms, prints, island and big-city indices (each -1 or an island or big
 * city added already) and line; set_kind only its kind; set_print the
 * kind and coats of arms of the print on side s. */
int cm_map_builder_set_square(cm_map_builder *b, int x, int y, const cm_square *sq);
int cm_map_builder_set_kind(cm_map_builder *b, int x, int y, cm_square_kind kind);
int cm_map_builder_set_print(cm_map_builder *b, int x, int y, cm_side s, cm_print_kind kind, int arms);
/* What few squares have (cm_map_square_name and the others above). */
int cm_map_builder_set_square_name(cm_map_builder *b, int x, int y, const char *name);
int cm_map_builder_add_marker(cm_map_builder *b, int x, int y, const char *text);
int cm_map_builder_set_print_label(cm_map_builder *b, int x, int y, cm_side s, const char *label);
int cm_map_builder_set_print_line(cm_map_builder *b, int x, int y, cm_side s, unsigned line);
/* Sets the default edge prints (MAP-EDGE-NEUTRAL): every side of a playable
 * square that faces a square that can take no tile and is no big city
 * (none, waves, landmark, half, off the grid) and has CM_PRINT_NONE gets
 * CM_PRINT_NEUTRAL. Other sides are left alone. The readers call it once
 * the kinds are final; a client that builds squares calls it after. */
void cm_map_builder_default_prints(cm_map_builder *b);

/* Islands, big cities, ferries and the deck, appended in order. add_island
 * and add_bigcity give the new one's index in *index (NULL: not wanted);
 * the island index (cm_map_builder_island_find, cm_map_island_find) finds
 * the first island of each name. add_piece appends a copy of tile (its
 * features and contacts; in the square's own orientation) at (x,y) to big
 * city `city`; it does not mark the square (set_square does). */
int cm_map_builder_add_island(cm_map_builder *b, const char *name, const char *title, unsigned line,
                              size_t *index);
int cm_map_builder_add_bigcity(cm_map_builder *b, const char *name, unsigned line, size_t *index);
/* Renames big city i (added already; a copy of name, NULL clears it). */
int cm_map_builder_set_bigcity_name(cm_map_builder *b, size_t i, const char *name);
int cm_map_builder_add_piece(cm_map_builder *b, size_t city, int x, int y, const cm_tile_type *tile);
int cm_map_builder_add_ferry(cm_map_builder *b, const cm_ferry *ferry);
int cm_map_builder_add_deck_entry(cm_map_builder *b, const cm_deck_entry *entry);
/* Removes every deck entry (to give a map built from another a new deck). */
void cm_map_builder_clear_deck(cm_map_builder *b);

/* Runs the model's one checker on what was built, once: the limits
 * above, ids of the id syntax (map, tile-set and deck ids; tile and
 * feature ids of schemas/tileset.xsd's), texts within CM_TEXT_MAX of
 * well-formed UTF-8 holding no control character, enums in range, every
 * square, island, big-city, ferry-end and feature reference inside what
 * it refers to. Each problem goes to d (NULL: none reported) with the rule
 * id rule (NULL: none), file, and a `where` string ("map germany, square
 * (3,4)"). On success *out is the map (the caller frees it with
 * cm_map_free); otherwise *out is NULL. Always frees b (NULL: CM_EINVAL).
 * Returns 0, CM_EINVAL or CM_ENOMEM. The game rules on a valid model are
 * cm_map_check's. */
int cm_map_builder_finish(cm_map_builder *b, const char *rule, const char *file, cm_diags *d, cm_map **out);

/* Frees the map and everything it owns; NULL is a no-op. */
void cm_map_free(cm_map *m);

/* How cm_map_load reads a descriptor; cm_map_load_opts_init sets the
 * defaults (no flags, the default printing). */
typedef struct {
	unsigned flags; /* CM_MAP_LOAD_…; halves of a combined map get the same */
	int printing;   /* one printing of the board (schemas/map.md
	                 * "Printings"), a cm_edition: the printing's names,
	                 * kinds and markers, its edition as the rules edition,
	                 * and the id ID-c3 (ID-c2, ...) unless it is the
	                 * descriptor's default (first) printing, which keeps ID.
	                 * < 0 (the default): the default printing. A printing
	                 * the descriptor does not describe is CM0220 */
} cm_map_load_opts;
#define CM_MAP_LOAD_IMAGE 1u /* read the squares of <image> (paths relative to the
                              * descriptor; the legend, or the built-in one) before
                              * the checks: what every command does */
#define CM_MAP_LOAD_PARTIAL 2u /* when the descriptor parsed and followed the
                                * schema but later checks (structure, image)
                                * found errors, still return the model read
                                * so far in *out, with CM_EINVAL: what
                                * `render --diagnostics` draws. Such a map
                                * is partial (cm_map_partial) */
void cm_map_load_opts_init(cm_map_load_opts *o);

/* Reads a map descriptor (schemas/map.md): XML syntax, schema (map.xsd),
 * then every structural check that needs no tile set (cm_map_check without
 * sets). A <combine> descriptor loads its two halves (paths relative to
 * path) and joins them. o: NULL for the defaults. Every problem goes to d
 * with file and line. *out is set only when no error was reported (but
 * see CM_MAP_LOAD_PARTIAL); the caller frees it. Returns 0, CM_EINVAL (see
 * d), CM_EVERSION (newer format), CM_EIO, CM_ENOMEM. */
int cm_map_load(const char *path, const cm_map_load_opts *o, cm_diags *d, cm_map **out);

/* The same from memory; file names the text in diagnostics and is the base
 * for <combine> paths (NULL: the current directory). */
int cm_map_load_memory(const char *buf, size_t len, const char *file, cm_diags *d,
                       cm_map **out);

/* Structural checks CM02xx on a map (from a descriptor, an image or a pack):
 * coordinates, edge prints, ferries, islands, big-city pieces, start
 * squares, names, setup, deck entries; with n_sets > 0 also the deck's
 * references against the given tile sets (cm_map_check_deck). Diagnostics
 * carry cm_map_file(m) and the element's line, or a `where` string ("map germany,
 * square (3,4), side N") when the line is unknown. Returns 0 or CM_EINVAL
 * when any error was reported. */
int cm_map_check(const cm_map *m, const cm_tileset *const *sets, size_t n_sets, cm_diags *d);
/* Only the deck references (CM0212, CM0213): for a map already loaded with
 * cm_map_load, which ran every other check. 0 or CM_EINVAL. */
int cm_map_check_deck(const cm_map *m, const cm_tileset *const *sets, size_t n_sets,
                      cm_diags *d);

/* Writes the map as a canonical descriptor (schemas/map.md "Canonical
 * form"): deterministic, a full grid, only non-default values. Reading the
 * output gives a map equal to m (cm_map_equal). A partial map
 * (cm_map_partial) is not written. Returns 0, CM_EINVAL or CM_EIO. */
int cm_map_write_xml(const cm_map *m, FILE *f);
/* The same with the refusal reported to d (a partial map, or the XML
 * writer's own diagnostic for text it cannot carry). The document goes
 * through libxml2's xmlTextWriter and reaches f only once complete:
 * a refused map leaves f untouched. */
int cm_map_write_xml_diag(const cm_map *m, FILE *f, cm_diags *d);

/* Model equality, ignoring file and line fields and derived tile fields. */
bool cm_map_equal(const cm_map *a, const cm_map *b);

#ifdef __cplusplus
}
#endif
#endif
