/* SPDX-License-Identifier: MIT */
/* replay.c: replays (carcamap/board.h "Replays", schemas/replay.md): a
 * game as its setup and moves, written and read as text, and played back
 * on a map and deck to the same board, and the map fingerprint a replay
 * carries. Rule options by name are rules.c's (carcamap/rules.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "engine/board_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

/* ---- map fingerprint ---- */

static uint64_t hash_str(uint64_t h, const char *s)
{
	return cm_hash_bytes(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

uint64_t cm_replay_map_hash(const cm_map *m)
{
	uint64_t h = CM_HASH_INIT;
	h = cm__fnv_u32(h, (uint32_t)m->cols);
	h = cm__fnv_u32(h, (uint32_t)m->rows);
	for (int i = 0; i < m->cols * m->rows; i++) {
		const cm_square *q = &m->squares[i];
		h = cm__fnv_u32(h, (uint32_t)q->kind);
		h = cm__fnv_u32(h, (uint32_t)q->island);
		h = cm__fnv_u32(h, q->arms);
		h = cm__fnv_u32(h, (uint32_t)q->bigcity);
		for (int k = 0; k < 4; k++) {
			h = cm__fnv_u32(h, (uint32_t)q->print[k].kind);
			h = cm__fnv_u32(h, q->print[k].arms);
		}
	}
	for (size_t c = 0; c < m->n_bigcities; c++) {
		h = cm__fnv_u32(h, (uint32_t)m->bigcities[c].n_pieces);
		for (size_t k = 0; k < m->bigcities[c].n_pieces; k++) {
			const cm_bigcity_piece *p = &m->bigcities[c].pieces[k];
			h = cm__fnv_u32(h, (uint32_t)p->x);
			h = cm__fnv_u32(h, (uint32_t)p->y);
			h = cm__hash_tile(h, &p->tile);
		}
	}
	for (size_t f = 0; f < m->n_ferries; f++) {
		const cm_ferry *fr = &m->ferries[f];
		uint32_t v[7] = { (uint32_t)fr->x1, (uint32_t)fr->y1, (uint32_t)fr->s1, (uint32_t)fr->x2,
			          (uint32_t)fr->y2, (uint32_t)fr->s2, fr->arms };
		for (int k = 0; k < 7; k++)
			h = cm__fnv_u32(h, v[k]);
	}
	h = cm__fnv_u32(h, (uint32_t)m->n_islands);
	h = cm__fnv_u32(h, (uint32_t)m->setup.starts_used);
	h = cm__fnv_u32(h, (uint32_t)m->setup.followers);
	return hash_str(h, m->id);
}

/* ---- replay objects ---- */

void cm_replay_free(cm_replay *r)
{
	if (!r)
		return;
	free(r->map_id);
	for (size_t i = 0; i < r->n_tilesets; i++)
		free(r->tilesets[i]);
	free(r->tilesets);
	for (size_t i = 0; i < r->n_moves; i++)
		free(r->moves[i].tile);
	free(r->moves);
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		free(r->seat_players[p]);
	free(r);
}

/* Whether s may name a seat's player in a replay: one word of printable
 * characters, no '#'. */
static bool player_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > CM_REPLAY_NAME_MAX)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= ' ' || c == '#' || c == 0x7f)
			return false;
	}
	return true;
}

int cm_replay_set_players(cm_replay *r, const char *const *names)
{
	char *copy[CM_MAX_PLAYERS] = { NULL };
	for (int p = 0; p < r->players && p < CM_MAX_PLAYERS; p++) {
		if (!names[p])
			continue;
		if (!player_name_ok(names[p]) || !(copy[p] = cm_strdup(names[p]))) {
			bool bad = !player_name_ok(names[p]);
			for (int q = 0; q < p; q++)
				free(copy[q]);
			return bad ? CM_EINVAL : CM_ENOMEM;
		}
	}
	for (int p = 0; p < CM_MAX_PLAYERS; p++) {
		free(r->seat_players[p]);
		r->seat_players[p] = copy[p];
	}
	return 0;
}

int cm_replay_from_board(const cm_board *b, cm_replay **out)
{
	*out = NULL;
	cm_replay *r = calloc(1, sizeof *r);
	if (!r)
		return CM_ENOMEM;
	const cm_deck *k = b->deck;
	r->map_id = cm_strdup(b->L.map->id ? b->L.map->id : "-");
	r->map_hash = cm_replay_map_hash(b->L.map);
	r->deck_hash = cm_deck_hash(k);
	r->players = b->n_players;
	r->seed = b->seed;
	r->flags = b->flags;
	r->rules = b->rules;
	r->tilesets = calloc(k->n_sets + 1, sizeof *r->tilesets);
	r->moves = calloc((size_t)b->n_log + 1, sizeof *r->moves);
	if (!r->map_id || !r->tilesets || !r->moves)
		goto nomem;
	for (size_t i = 0; i < k->n_sets; i++) {
		if (!(r->tilesets[i] = cm_strdup(k->set_ids[i])))
			goto nomem;
		r->n_tilesets++;
	}
	for (int i = 0; i < b->n_log; i++) {
		const move_rec *mv = &b->log[i];
		cm_move *o = &r->moves[r->n_moves];
		o->kind = (cm_move_kind)mv->kind;
		o->player = mv->player;
		o->x = mv->x;
		o->y = mv->y;
		o->rot = mv->rot;
		o->feature = mv->feature;
		o->follower = mv->wagon ? CM_FOLLOWER_WAGON : CM_FOLLOWER_MEEPLE;
		if (o->kind != CM_MOVE_FINAL && o->kind != CM_MOVE_WAGON &&
		    !(o->tile = cm_strdup(k->types[mv->type]->id)))
			goto nomem;
		r->n_moves++;
	}
	r->finished = b->final_done;
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		r->scores[p] = b->score[p];
	*out = r;
	return 0;
nomem:
	cm_replay_free(r);
	return CM_ENOMEM;
}

/* A deployed follower: "-", "N" (a meeple on feature N) or "wN" (a wagon). */
static void write_follower(FILE *f, const cm_move *m)
{
	if (m->feature < 0)
		fprintf(f, "-\n");
	else
		fprintf(f, "%s%d\n", m->follower == CM_FOLLOWER_WAGON ? "w" : "", m->feature);
}

int cm_replay_write(const cm_replay *r, FILE *f)
{
	char rules[256];
	cm_rules_format(&r->rules, rules, sizeof rules);
	fprintf(f, "carcamap-replay 1\n");
	fprintf(f, "map %s %016" PRIx64 "\n", r->map_id ? r->map_id : "-", r->map_hash);
	fprintf(f, "deck %016" PRIx64, r->deck_hash);
	for (size_t i = 0; i < r->n_tilesets; i++)
		fprintf(f, " %s", r->tilesets[i]);
	fprintf(f, "\nplayers %d\n", r->players);
	for (int p = 0; p < r->players && p < CM_MAX_PLAYERS; p++)
		if (r->seat_players[p])
			fprintf(f, "player %d %s\n", p, r->seat_players[p]);
	fprintf(f, "seed %" PRIu64 "\nflags %u\nrules %s\n", r->seed, r->flags, rules);
	for (size_t i = 0; i < r->n_moves; i++) {
		const cm_move *m = &r->moves[i];
		switch (m->kind) {
		case CM_MOVE_SETUP:
			fprintf(f, "setup %s %d %d %d\n", m->tile, m->x, m->y, m->rot);
			break;
		case CM_MOVE_ASIDE:
			fprintf(f, "aside %s\n", m->tile);
			break;
		case CM_MOVE_PLACE:
			fprintf(f, "move %d %s %d %d %d ", m->player, m->tile, m->x, m->y, m->rot);
			write_follower(f, m);
			break;
		case CM_MOVE_ABBEY:
			fprintf(f, "abbey %d %s %d %d ", m->player, m->tile, m->x, m->y);
			write_follower(f, m);
			break;
		case CM_MOVE_WAGON:
			if (m->feature >= 0)
				fprintf(f, "wagon %d %d %d %d\n", m->player, m->x, m->y, m->feature);
			else
				fprintf(f, "wagon %d -\n", m->player);
			break;
		case CM_MOVE_FINAL:
			fprintf(f, "final");
			for (int p = 0; p < r->players; p++)
				fprintf(f, " %d", r->scores[p]);
			fprintf(f, "\n");
			break;
		}
	}
	return ferror(f) ? CM_EIO : 0;
}

/* ---- reading ---- */

#define MAX_TOK 24

static int split(char *line, char **tok)
{
	int n = 0;
	for (char *p = line; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			*p++ = '\0';
		if (!*p || *p == '#')
			break;
		if (n == MAX_TOK)
			return -1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
	}
	return n;
}

static bool parse_int(const char *s, long lo, long hi, int *out)
{
	char *e;
	long v = strtol(s, &e, 10);
	if (!*s || *e || v < lo || v > hi)
		return false;
	*out = (int)v;
	return true;
}

static bool parse_follower(const char *s, cm_move *m)
{
	m->follower = CM_FOLLOWER_MEEPLE;
	if (strcmp(s, "-") == 0)
		return true;
	if (*s == 'w') {
		m->follower = CM_FOLLOWER_WAGON;
		s++;
	}
	return parse_int(s, 0, CM_MAX_FEATURES - 1, &m->feature);
}

static bool parse_u64(const char *s, int base, uint64_t *out)
{
	char *e;
	if (!*s || *s == '-')
		return false;
	unsigned long long v = strtoull(s, &e, base);
	if (*e)
		return false;
	*out = (uint64_t)v;
	return true;
}

/* What reading a replay carries from line to line. */
typedef struct {
	cm_replay *r;
	cm_diags *d;
	const char *file;
	unsigned ln;     /* the line read */
	size_t mcap;     /* moves allocated */
	int rc;          /* CM_EINVAL once a line was bad */
	bool nomem;
} reader;

/* A bad line (one diagnostic per fault: a line may have several). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void bad(reader *rd, const char *fmt, ...)
{
	if (rd->d) {
		va_list ap;
		va_start(ap, fmt);
		char *msg = cm_vasprintf(fmt, ap);
		va_end(ap);
		cm_diags_add(rd->d, CM_SEV_ERROR, NULL, rd->file, rd->ln, 0, NULL, "%s", msg ? msg : fmt);
		free(msg);
	}
	rd->rc = CM_EINVAL;
}

/* A new move of kind k (tile: its tile id, or NULL) on the line read, or
 * NULL out of memory. */
static cm_move *add_move(reader *rd, cm_move_kind k, const char *tile)
{
	cm_replay *r = rd->r;
	if (cm_grow((void **)&r->moves, &rd->mcap, r->n_moves, sizeof *r->moves) < 0) {
		rd->nomem = true;
		return NULL;
	}
	cm_move *m = &r->moves[r->n_moves];
	memset(m, 0, sizeof *m);
	m->kind = k;
	m->feature = -1;
	m->line = rd->ln;
	if (tile && !(m->tile = cm_strdup(tile))) {
		rd->nomem = true;
		return NULL;
	}
	r->n_moves++;
	return m;
}

/* ---- the lines ---- */

static void map_line(reader *rd, char **tok, int n)
{
	cm_replay *r = rd->r;
	if (n != 3 || !parse_u64(tok[2], 16, &r->map_hash)) {
		bad(rd, "map line needs an id and a 16-digit hash");
		return;
	}
	free(r->map_id);
	rd->nomem = !(r->map_id = cm_strdup(tok[1]));
}

static void deck_line(reader *rd, char **tok, int n)
{
	cm_replay *r = rd->r;
	if (n < 2 || !parse_u64(tok[1], 16, &r->deck_hash)) {
		bad(rd, "deck line needs a hash");
		return;
	}
	for (int i = 2; i < n && !rd->nomem; i++) {
		char **v = realloc(r->tilesets, (r->n_tilesets + 1) * sizeof *v);
		if (!v || !(v[r->n_tilesets] = cm_strdup(tok[i]))) {
			if (v)
				r->tilesets = v;
			rd->nomem = true;
			return;
		}
		r->tilesets = v;
		r->n_tilesets++;
	}
}

static void players_line(reader *rd, char **tok, int n)
{
	if (n != 2 || !parse_int(tok[1], 2, CM_MAX_PLAYERS, &rd->r->players))
		bad(rd, "players must be 2 to 6");
}

/* "player P NAME": who played seat P. */
static void player_line(reader *rd, char **tok, int n)
{
	cm_replay *r = rd->r;
	int p;
	if (n != 3 || !parse_int(tok[1], 0, CM_MAX_PLAYERS - 1, &p)) {
		bad(rd, "player needs a seat (0 to 5) and a name");
		return;
	}
	if (r->seat_players[p]) {
		bad(rd, "player names a seat twice");
		return;
	}
	if (!player_name_ok(tok[2])) {
		bad(rd, "player name must be one word of at most 63 bytes");
		return;
	}
	rd->nomem = !(r->seat_players[p] = cm_strdup(tok[2]));
}

static void seed_line(reader *rd, char **tok, int n)
{
	if (n != 2 || !parse_u64(tok[1], 10, &rd->r->seed))
		bad(rd, "seed must be an unsigned decimal number");
}

static void flags_line(reader *rd, char **tok, int n)
{
	int v = 0;
	if (n != 2 || !parse_int(tok[1], 0, 1, &v)) {
		bad(rd, "flags must be 0 or 1");
		return;
	}
	rd->r->flags = (unsigned)v;
}

/* Every bad option of the line is reported. */
static void rules_line(reader *rd, char **tok, int n)
{
	unsigned given = 0; /* an option on the line wins over its edition's default */
	for (int i = 1; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		if (!eq) {
			bad(rd, "rule option %s has no value", tok[i]);
			continue;
		}
		*eq = '\0';
		if (cm_rules_set(&rd->r->rules, &given, tok[i], eq + 1) < 0)
			bad(rd, "unknown rule option or value %s=%s", tok[i], eq + 1);
	}
}

static void setup_line(reader *rd, char **tok, int n)
{
	if (n != 5) {
		bad(rd, "setup needs tile x y rotation");
		return;
	}
	cm_move *m = add_move(rd, CM_MOVE_SETUP, tok[1]);
	if (m && (!parse_int(tok[2], 0, 1 << 20, &m->x) || !parse_int(tok[3], 0, 1 << 20, &m->y) ||
	          !parse_int(tok[4], 0, 3, &m->rot)))
		bad(rd, "bad setup coordinates or rotation");
}

static void aside_line(reader *rd, char **tok, int n)
{
	if (n != 2) {
		bad(rd, "aside needs a tile");
		return;
	}
	add_move(rd, CM_MOVE_ASIDE, tok[1]);
}

static void move_line(reader *rd, char **tok, int n)
{
	if (n != 7) {
		bad(rd, "move needs player tile x y rotation feature");
		return;
	}
	cm_move *m = add_move(rd, CM_MOVE_PLACE, tok[2]);
	if (m && (!parse_int(tok[1], 0, CM_MAX_PLAYERS - 1, &m->player) || !parse_int(tok[3], 0, 1 << 20, &m->x) ||
	          !parse_int(tok[4], 0, 1 << 20, &m->y) || !parse_int(tok[5], 0, 3, &m->rot) ||
	          !parse_follower(tok[6], m)))
		bad(rd, "bad move fields");
}

static void abbey_line(reader *rd, char **tok, int n)
{
	if (n != 6) {
		bad(rd, "abbey needs player tile x y feature");
		return;
	}
	cm_move *m = add_move(rd, CM_MOVE_ABBEY, tok[2]);
	if (m && (!parse_int(tok[1], 0, CM_MAX_PLAYERS - 1, &m->player) || !parse_int(tok[3], 0, 1 << 20, &m->x) ||
	          !parse_int(tok[4], 0, 1 << 20, &m->y) || !parse_follower(tok[5], m)))
		bad(rd, "bad abbey fields");
}

static void wagon_line(reader *rd, char **tok, int n)
{
	if (n != 3 && n != 5) {
		bad(rd, "wagon needs player x y feature, or player -");
		return;
	}
	cm_move *m = add_move(rd, CM_MOVE_WAGON, NULL);
	if (!m)
		return;
	m->x = m->y = -1;
	if (!parse_int(tok[1], 0, CM_MAX_PLAYERS - 1, &m->player) || (n == 3 && strcmp(tok[2], "-") != 0) ||
	    (n == 5 && (!parse_int(tok[2], 0, 1 << 20, &m->x) || !parse_int(tok[3], 0, 1 << 20, &m->y) ||
	                !parse_int(tok[4], 0, CM_MAX_FEATURES - 1, &m->feature))))
		bad(rd, "bad wagon fields");
}

/* Every bad score of the line is reported. */
static void final_line(reader *rd, char **tok, int n)
{
	cm_replay *r = rd->r;
	if (!add_move(rd, CM_MOVE_FINAL, NULL))
		return;
	if (n - 1 != r->players) {
		bad(rd, "final needs one score per player");
		return;
	}
	for (int i = 1; i < n; i++)
		if (!parse_int(tok[i], -1000000, 1000000, &r->scores[i - 1]))
			bad(rd, "bad score %s", tok[i]);
	r->finished = true;
}

static const struct {
	const char *key;
	void (*read)(reader *rd, char **tok, int n);
} line_kinds[] = {
	{ "map", map_line },       { "deck", deck_line },   { "players", players_line }, { "player", player_line },
	{ "seed", seed_line },     { "flags", flags_line }, { "rules", rules_line },     { "setup", setup_line },
	{ "aside", aside_line },   { "move", move_line },   { "abbey", abbey_line },     { "wagon", wagon_line },
	{ "final", final_line },
};

/* The first line: "carcamap-replay 1". 0, CM_EFORMAT or CM_EVERSION. */
static int header_line(reader *rd, char **tok, int n)
{
	if (strcmp(tok[0], "carcamap-replay") != 0 || n != 2) {
		if (rd->d)
			cm_diags_add(rd->d, CM_SEV_ERROR, NULL, rd->file, rd->ln, 0, NULL,
			             "not a carcamap replay (first line must be \"carcamap-replay 1\")");
		return CM_EFORMAT;
	}
	if (strcmp(tok[1], "1") != 0) {
		if (rd->d)
			cm_diags_add(rd->d, CM_SEV_ERROR, NULL, rd->file, rd->ln, 0, NULL,
			             "replay format version %s is newer than this build reads", tok[1]);
		return CM_EVERSION;
	}
	return 0;
}

/* What a replay read whole must have. */
static void check_whole(reader *rd, bool header)
{
	cm_replay *r = rd->r;
	if (!header) {
		if (rd->d)
			cm_diags_add(rd->d, CM_SEV_ERROR, NULL, rd->file, 0, 0, NULL, "empty replay");
		rd->rc = CM_EFORMAT;
		return;
	}
	if (!r->map_id || r->players == 0) {
		if (rd->d)
			cm_diags_add(rd->d, CM_SEV_ERROR, NULL, rd->file, 0, 0, NULL, "replay lacks a map or players line");
		rd->rc = CM_EINVAL;
		return;
	}
	for (int p = r->players; p < CM_MAX_PLAYERS; p++)
		if (r->seat_players[p]) {
			if (rd->d)
				cm_diags_add(rd->d, CM_SEV_ERROR, NULL, rd->file, 0, 0, NULL,
				             "player line for seat %d of a %d-player game", p, r->players);
			rd->rc = CM_EINVAL;
			return;
		}
}

int cm_replay_read(FILE *f, const char *file, cm_diags *d, cm_replay **out)
{
	*out = NULL;
	reader rd = { .d = d, .file = file };
	if (!(rd.r = calloc(1, sizeof *rd.r)))
		return CM_ENOMEM;
	cm_rules_default(&rd.r->rules, CM_EDITION_C2);
	char *line = NULL;
	size_t lcap = 0;
	bool header = false;
	while (!rd.nomem && getline(&line, &lcap, f) >= 0) {
		rd.ln++;
		char *tok[MAX_TOK];
		int n = split(line, tok);
		if (n < 0) {
			bad(&rd, "too many fields on the line");
			continue;
		}
		if (n == 0)
			continue;
		if (!header) {
			if ((rd.rc = header_line(&rd, tok, n)) < 0)
				break;
			header = true;
			continue;
		}
		size_t k = 0;
		while (k < sizeof line_kinds / sizeof line_kinds[0] && strcmp(tok[0], line_kinds[k].key) != 0)
			k++;
		if (k == sizeof line_kinds / sizeof line_kinds[0])
			bad(&rd, "unknown line \"%s\"", tok[0]);
		else
			line_kinds[k].read(&rd, tok, n);
	}
	free(line);
	if (!rd.nomem && rd.rc == 0)
		check_whole(&rd, header);
	if (rd.nomem || rd.rc < 0) {
		cm_replay_free(rd.r);
		return rd.nomem ? CM_ENOMEM : rd.rc;
	}
	*out = rd.r;
	return 0;
}

/* ---- playing back ---- */

int cm_board_replay(const cm_map *map, const cm_deck *deck, const cm_replay *r, cm_diags *d,
                    cm_board **out)
{
	*out = NULL;
	char where[96];
#define FAIL(m, ...)                                                                                  \
	do {                                                                                          \
		if (d) {                                                                              \
			snprintf(where, sizeof where, "replay move %zu", (size_t)((m) - r->moves) + 1); \
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, (m)->line, 0, where, __VA_ARGS__);   \
		}                                                                                     \
		rc = CM_EINVAL;                                                                       \
		goto out;                                                                             \
	} while (0)
	if (cm_replay_map_hash(map) != r->map_hash) {
		if (d)
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "replay",
			             "replay was played on another map (hash differs)");
		return CM_EINVAL;
	}
	if (cm_deck_hash(deck) != r->deck_hash) {
		if (d)
			cm_diags_add(d, CM_SEV_ERROR, NULL, NULL, 0, 0, "replay",
			             "replay was played with another deck (hash differs)");
		return CM_EINVAL;
	}
	cm_board *b = NULL;
	int rc = cm_board_new(map, deck, &r->rules, r->players, r->seed, r->flags, d, &b);
	if (rc < 0)
		return rc;
	int setup_seen = 0;
	for (size_t i = 0; i < r->n_moves; i++) {
		const cm_move *m = &r->moves[i];
		int t = m->tile ? cm_deck_find(deck, m->tile) : -1;
		if (m->kind != CM_MOVE_FINAL && m->kind != CM_MOVE_WAGON && t < 0)
			FAIL(m, "unknown tile %s", m->tile);
		switch (m->kind) {
		case CM_MOVE_SETUP:
			if (r->flags & CM_BOARD_NO_SETUP) {
				if (cm_board_place_setup(b, t, m->x, m->y, m->rot) < 0)
					FAIL(m, "setup tile %s cannot go on (%d,%d)", m->tile, m->x, m->y);
			} else {
				/* the seed did the setup: check it agrees */
				int k = 0, j = 0;
				for (; j < b->n_log; j++)
					if (b->log[j].kind == CM_MOVE_SETUP && k++ == setup_seen)
						break;
				if (j == b->n_log || b->log[j].type != t || b->log[j].x != m->x ||
				    b->log[j].y != m->y || b->log[j].rot != m->rot)
					FAIL(m, "setup differs from the one the seed gives");
			}
			setup_seen++;
			break;
		case CM_MOVE_ASIDE:
			if (cm_board_put_aside(b, t) < 0)
				FAIL(m, "no tile %s left to put aside", m->tile);
			break;
		case CM_MOVE_PLACE:
			if (m->player != b->cur)
				FAIL(m, "player %d moves but it is player %d's turn", m->player, b->cur);
			if (cm_board_place(b, t, m->x, m->y, m->rot) < 0)
				FAIL(m, "illegal placement of %s on (%d,%d) rotation %d", m->tile, m->x, m->y,
				     m->rot);
			if (m->feature >= 0 && cm_board_deploy(b, m->feature, m->follower) < 0)
				FAIL(m, "cannot deploy on feature %d", m->feature);
			cm_board_end_turn(b, NULL, NULL);
			break;
		case CM_MOVE_ABBEY:
			/* after the last tile, players place their abbeys in turn */
			if (cm_board_over(b))
				cm_board_set_current(b, m->player);
			if (m->player != b->cur)
				FAIL(m, "player %d moves but it is player %d's turn", m->player, b->cur);
			if (t != b->abbey_type || cm_board_place_abbey(b, m->x, m->y) < 0)
				FAIL(m, "illegal abbey %s on (%d,%d)", m->tile, m->x, m->y);
			if (m->feature >= 0 && cm_board_deploy(b, m->feature, m->follower) < 0)
				FAIL(m, "cannot deploy on feature %d", m->feature);
			cm_board_end_turn(b, NULL, NULL);
			break;
		case CM_MOVE_WAGON: {
			cm_wagon_pending w;
			if (!cm_board_wagon_pending(b, &w) || w.player != m->player)
				FAIL(m, "no wagon of player %d waits to move", m->player);
			if (cm_board_wagon_move(b, m->x, m->y, m->feature) < 0)
				FAIL(m, "wagon cannot move to feature %d of (%d,%d)", m->feature, m->x, m->y);
			break;
		}
		case CM_MOVE_FINAL:
			if (cm_board_final(b, NULL, NULL) < 0)
				FAIL(m, "final scoring twice");
			for (int p = 0; p < r->players; p++)
				if (b->score[p] != r->scores[p])
					FAIL(m, "player %d scores %d, the replay says %d", p, b->score[p],
					     r->scores[p]);
			break;
		}
	}
out:
#undef FAIL
	if (rc < 0) {
		cm_board_free(b);
		return rc;
	}
	*out = b;
	return 0;
}
