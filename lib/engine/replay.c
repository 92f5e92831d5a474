/* SPDX-License-Identifier: MIT */
/* replay.c: replays (carcamap/board.h "Replays", schemas/replay.md): a
 * game as its setup and moves, written and read as text, and played back
 * on a map and deck to the same board, and the map fingerprint a replay
 * carries. Rule options by name are rules.c's (carcamap/rules.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "engine/board_int.h"
#include "base/util_int.h"
#include "model/map_struct_int.h"

/* ---- map fingerprint ---- */

static uint64_t hash_str(uint64_t h, const char *s)
{
	return cm__fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

uint64_t cm_replay_map_hash(const cm_map *m)
{
	uint64_t h = CM__FNV_INIT;
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

/* "player P NAME": who played seat P. NULL, or what is wrong. */
static const char *player_line(cm_replay *r, char **tok, int n, int *err)
{
	int p;
	*err = 0;
	if (n != 3 || !parse_int(tok[1], 0, CM_MAX_PLAYERS - 1, &p))
		return "player needs a seat (0 to 5) and a name";
	if (r->seat_players[p])
		return "player names a seat twice";
	if (!player_name_ok(tok[2]))
		return "player name must be one word of at most 63 bytes";
	if (!(r->seat_players[p] = cm_strdup(tok[2])))
		*err = CM_ENOMEM;
	return NULL;
}

static int add_move(cm_replay *r, size_t *cap, cm_move_kind k, const char *tile, unsigned line)
{
	if (cm_grow((void **)&r->moves, cap, r->n_moves, sizeof *r->moves) < 0)
		return CM_ENOMEM;
	cm_move *m = &r->moves[r->n_moves];
	memset(m, 0, sizeof *m);
	m->kind = k;
	m->feature = -1;
	m->line = line;
	if (tile && !(m->tile = cm_strdup(tile)))
		return CM_ENOMEM;
	r->n_moves++;
	return 0;
}

int cm_replay_read(FILE *f, const char *file, cm_diags *d, cm_replay **out)
{
	*out = NULL;
	cm_replay *r = calloc(1, sizeof *r);
	if (!r)
		return CM_ENOMEM;
	cm_rules_default(&r->rules, CM_EDITION_C2);
	char *line = NULL;
	size_t lcap = 0, mcap = 0;
	unsigned ln = 0;
	int rc = 0;
	bool header = false;
	ssize_t len;
	/* a compound statement, not do-while: continue must reach the loop */
#define BAD(...)                                                                     \
	{                                                                            \
		if (d)                                                               \
			cm_diags_add(d, CM_SEV_ERROR, NULL, file, ln, 0, NULL, __VA_ARGS__); \
		rc = CM_EINVAL;                                                      \
		continue;                                                            \
	}
	while ((len = getline(&line, &lcap, f)) >= 0) {
		ln++;
		char *tok[MAX_TOK];
		int n = split(line, tok);
		if (n < 0)
			BAD("too many fields on the line");
		if (n == 0)
			continue;
		if (!header) {
			if (strcmp(tok[0], "carcamap-replay") != 0 || n != 2) {
				if (d)
					cm_diags_add(d, CM_SEV_ERROR, NULL, file, ln, 0, NULL,
					             "not a carcamap replay (first line must be \"carcamap-replay 1\")");
				rc = CM_EFORMAT;
				break;
			}
			if (strcmp(tok[1], "1") != 0) {
				if (d)
					cm_diags_add(d, CM_SEV_ERROR, NULL, file, ln, 0, NULL,
					             "replay format version %s is newer than this build reads", tok[1]);
				rc = CM_EVERSION;
				break;
			}
			header = true;
			continue;
		}
		const char *k = tok[0];
		if (strcmp(k, "map") == 0) {
			if (n != 3 || !parse_u64(tok[2], 16, &r->map_hash))
				BAD("map line needs an id and a 16-digit hash");
			free(r->map_id);
			if (!(r->map_id = cm_strdup(tok[1])))
				goto nomem;
		} else if (strcmp(k, "deck") == 0) {
			if (n < 2 || !parse_u64(tok[1], 16, &r->deck_hash))
				BAD("deck line needs a hash");
			for (int i = 2; i < n; i++) {
				char **v = realloc(r->tilesets, (r->n_tilesets + 1) * sizeof *v);
				if (!v)
					goto nomem;
				r->tilesets = v;
				if (!(v[r->n_tilesets] = cm_strdup(tok[i])))
					goto nomem;
				r->n_tilesets++;
			}
		} else if (strcmp(k, "players") == 0) {
			if (n != 2 || !parse_int(tok[1], 2, CM_MAX_PLAYERS, &r->players))
				BAD("players must be 2 to 6");
		} else if (strcmp(k, "player") == 0) {
			int err;
			const char *why = player_line(r, tok, n, &err);
			if (err)
				goto nomem;
			if (why)
				BAD("%s", why);
		} else if (strcmp(k, "seed") == 0) {
			if (n != 2 || !parse_u64(tok[1], 10, &r->seed))
				BAD("seed must be an unsigned decimal number");
		} else if (strcmp(k, "flags") == 0) {
			int v = 0;
			if (n != 2 || !parse_int(tok[1], 0, 1, &v))
				BAD("flags must be 0 or 1");
			r->flags = (unsigned)v;
		} else if (strcmp(k, "rules") == 0) {
			unsigned given = 0; /* an option on the line wins over its edition's default */
			for (int i = 1; i < n; i++) {
				char *eq = strchr(tok[i], '=');
				if (!eq)
					BAD("rule option %s has no value", tok[i]);
				*eq = '\0';
				if (cm_rules_set(&r->rules, &given, tok[i], eq + 1) < 0)
					BAD("unknown rule option or value %s=%s", tok[i], eq + 1);
			}
		} else if (strcmp(k, "setup") == 0) {
			if (n != 5)
				BAD("setup needs tile x y rotation");
			if (add_move(r, &mcap, CM_MOVE_SETUP, tok[1], ln) < 0)
				goto nomem;
			cm_move *m = &r->moves[r->n_moves - 1];
			if (!parse_int(tok[2], 0, 1 << 20, &m->x) || !parse_int(tok[3], 0, 1 << 20, &m->y) ||
			    !parse_int(tok[4], 0, 3, &m->rot))
				BAD("bad setup coordinates or rotation");
		} else if (strcmp(k, "aside") == 0) {
			if (n != 2)
				BAD("aside needs a tile");
			if (add_move(r, &mcap, CM_MOVE_ASIDE, tok[1], ln) < 0)
				goto nomem;
		} else if (strcmp(k, "move") == 0) {
			if (n != 7)
				BAD("move needs player tile x y rotation feature");
			if (add_move(r, &mcap, CM_MOVE_PLACE, tok[2], ln) < 0)
				goto nomem;
			cm_move *m = &r->moves[r->n_moves - 1];
			if (!parse_int(tok[1], 0, CM_MAX_PLAYERS - 1, &m->player) ||
			    !parse_int(tok[3], 0, 1 << 20, &m->x) || !parse_int(tok[4], 0, 1 << 20, &m->y) ||
			    !parse_int(tok[5], 0, 3, &m->rot) || !parse_follower(tok[6], m))
				BAD("bad move fields");
		} else if (strcmp(k, "abbey") == 0) {
			if (n != 6)
				BAD("abbey needs player tile x y feature");
			if (add_move(r, &mcap, CM_MOVE_ABBEY, tok[2], ln) < 0)
				goto nomem;
			cm_move *m = &r->moves[r->n_moves - 1];
			if (!parse_int(tok[1], 0, CM_MAX_PLAYERS - 1, &m->player) ||
			    !parse_int(tok[3], 0, 1 << 20, &m->x) || !parse_int(tok[4], 0, 1 << 20, &m->y) ||
			    !parse_follower(tok[5], m))
				BAD("bad abbey fields");
		} else if (strcmp(k, "wagon") == 0) {
			if (n != 3 && n != 5)
				BAD("wagon needs player x y feature, or player -");
			if (add_move(r, &mcap, CM_MOVE_WAGON, NULL, ln) < 0)
				goto nomem;
			cm_move *m = &r->moves[r->n_moves - 1];
			m->x = m->y = -1;
			if (!parse_int(tok[1], 0, CM_MAX_PLAYERS - 1, &m->player) ||
			    (n == 3 && strcmp(tok[2], "-") != 0) ||
			    (n == 5 && (!parse_int(tok[2], 0, 1 << 20, &m->x) || !parse_int(tok[3], 0, 1 << 20, &m->y) ||
			                !parse_int(tok[4], 0, CM_MAX_FEATURES - 1, &m->feature))))
				BAD("bad wagon fields");
		} else if (strcmp(k, "final") == 0) {
			if (add_move(r, &mcap, CM_MOVE_FINAL, NULL, ln) < 0)
				goto nomem;
			if (n - 1 != r->players)
				BAD("final needs one score per player");
			for (int i = 1; i < n; i++)
				if (!parse_int(tok[i], -1000000, 1000000, &r->scores[i - 1]))
					BAD("bad score %s", tok[i]);
			r->finished = true;
		} else {
			BAD("unknown line \"%s\"", k);
		}
	}
#undef BAD
	if (rc == 0 && !header) {
		if (d)
			cm_diags_add(d, CM_SEV_ERROR, NULL, file, 0, 0, NULL, "empty replay");
		rc = CM_EFORMAT;
	}
	if (rc == 0 && (!r->map_id || r->players == 0)) {
		if (d)
			cm_diags_add(d, CM_SEV_ERROR, NULL, file, 0, 0, NULL, "replay lacks a map or players line");
		rc = CM_EINVAL;
	}
	for (int p = r->players; rc == 0 && p < CM_MAX_PLAYERS; p++)
		if (r->seat_players[p]) {
			if (d)
				cm_diags_add(d, CM_SEV_ERROR, NULL, file, 0, 0, NULL,
				             "player line for seat %d of a %d-player game", p, r->players);
			rc = CM_EINVAL;
		}
	free(line);
	if (rc < 0) {
		cm_replay_free(r);
		return rc;
	}
	*out = r;
	return 0;
nomem:
	free(line);
	cm_replay_free(r);
	return CM_ENOMEM;
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
