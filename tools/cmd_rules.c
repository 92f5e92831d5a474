/* SPDX-License-Identifier: MIT */
/* cmd_rules.c: `carcamap rules`: answers one rules question on the board
 * state a replay reaches (after all its moves, or the first K): the legal
 * placements of a tile with their follower spots, the joined features on a
 * square, the final scoring if the game ended now, where a waiting wagon
 * may go and why a feature is refused, or what the library's players would
 * do next and why (--advise); as text or JSON (schemas/rules-json.md). The
 * answers and their JSON are the library's (cm_board_ask,
 * cm_answer_write_json in carcamap/answer.h): this file plays the replay
 * back, asks, and formats an answer as text. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "carcamap/stats.h"

#define MAX_COORD (1L << 20)

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carcamap rules [options] REPLAY (MAP.xml | PACK [--map ID]) [TILESETS...]\n"
	        "         (--legal TILE | --square X,Y | --score | --wagon | --why X,Y,F | --advise)\n"
	        "\n"
	        "Plays a replay (schemas/replay.md) back on its map and answers one\n"
	        "question on the board it reaches, before any final scoring:\n"
	        "  --legal TILE   every legal placement of tile type TILE for the player to\n"
	        "                 move (square, rotation) with the features a follower could\n"
	        "                 take there\n"
	        "  --square X,Y   the tile or printed big city on square (X,Y) and, per\n"
	        "                 feature, the joined feature it belongs to: kind, tiles,\n"
	        "                 open edges, complete, coats of arms, followers per player\n"
	        "  --score        the final scoring if the game ended now: every scoring\n"
	        "                 item with its reason, and the scores before and after\n"
	        "  --wagon        the wagon waiting to move after move K (its feature\n"
	        "                 scored) and every destination, with what makes it\n"
	        "                 adjacent: a contact (C1) or the range (C2/C3)\n"
	        "  --why X,Y,F    whether that waiting wagon may go to feature index F of\n"
	        "                 the tile on (X,Y), and why not\n"
	        "  --advise       what the library's players would do next on that board:\n"
	        "                 the waiting wagon, the abbey of a player who holds one\n"
	        "                 (asked before the draw, or after the last tile), or the\n"
	        "                 next tile of the pile (or --tile); each player's choice\n"
	        "                 and the values it saw for its best choices\n"
	        "\n"
	        "Options:\n"
	        "  --moves K          the state after the first K moves (default: all)\n"
	        "  --edition ED       judge by edition ED's rules (C1, C2, C3) instead of\n"
	        "                     the replay's (wagon moves differ: WAGON-C1/C2)\n"
	        "  --tile TILE        --advise: weigh this tile instead of the pile's next\n"
	        "                     (drawn: an abbey is no longer a choice)\n"
	        "  --players P        --advise: the players to ask, comma-separated (random,\n"
	        "                     greedy, mcts, mcts:N; default greedy,mcts: the ones\n"
	        "                     this build has)\n"
	        "  --top N            --advise: show the N best choices, 1..100 (default 5)\n"
	        "  --format FMT       text (default) or json (schemas/rules-json.md)\n"
	        "  --map ID           the map (default: the only one, else the replay's)\n"
	        "  --printing ED      the printing of the board, C2 or C3 (maps/README.md:\n"
	        "                     a descriptor may describe both; default: its first)\n"
	        "  -T, --tilesets DIR search DIR for the tile sets the deck names\n"
	        "  -h, --help         show this help\n"
	        "\n"
	        "Examples:\n"
	        "  carcamap play maps/benelux/benelux.xml --games 1 --replay game.txt\n"
	        "  carcamap rules game.txt maps/benelux/benelux.xml --moves 10 --legal E\n"
	        "  carcamap rules game.txt maps/benelux/benelux.xml --square 4,7 --format json\n"
	        "  carcamap rules game.txt maps/benelux/benelux.xml --moves 31 --wagon --edition C1\n"
	        "  carcamap rules game.txt maps/benelux/benelux.xml --moves 40 --advise\n"
	        "\n"
	        "Exit status: 0 answered, 1 problems in the input (a replay that does not\n"
	        "apply), 2 usage error (also a question the board cannot take: --score\n"
	        "while a wagon waits to move), 3 I/O or internal failure.\n");
}

typedef struct {
	const cm_map *m;
	const cm_deck *deck;
	cm_board *b;
	int moves, moves_total;
	cli_format fmt;
} ctx;

/* The replay up to and including its k-th move line, as a shallow copy of
 * r: setup lines, then the moves and the tiles put aside before them; with
 * k = all, also the tiles put aside at the end. Never the final line: the
 * questions are asked before final scoring. */
static cm_replay cut(const cm_replay *r, int k, int total)
{
	cm_replay c = *r;
	size_t i = 0;
	for (int seen = 0; i < r->n_moves; i++) {
		cm_move_kind kind = r->moves[i].kind;
		if (kind == CM_MOVE_FINAL || (seen == k && k < total && kind != CM_MOVE_SETUP))
			break;
		seen += kind == CM_MOVE_PLACE || kind == CM_MOVE_ABBEY;
	}
	c.n_moves = i;
	c.finished = false;
	return c;
}

static int count_moves(const cm_replay *r)
{
	int n = 0;
	for (size_t i = 0; i < r->n_moves; i++)
		n += r->moves[i].kind == CM_MOVE_PLACE || r->moves[i].kind == CM_MOVE_ABBEY;
	return n;
}

/* Plays r back; the engine's diagnostics name moves by line but carry no
 * file, so they are copied to d with the replay's path. */
static int play_back(const cm_map *m, const cm_deck *deck, const cm_replay *r, const char *path,
                     cm_diags *d, cm_board **out)
{
	cm_diags *tmp = NULL;
	if (cm_diags_new(&tmp))
		return CM_ENOMEM;
	int rc = cm_board_replay(m, deck, r, tmp, out);
	cm_diags_append(d, tmp, path);
	cm_diags_free(tmp);
	return rc;
}

/* ---- The answers as text (the library writes the JSON) ---- */

static void head(const cm_answer *a)
{
	printf("map %s after %d of %d moves: player %d to move, %d tiles to draw; scores", a->map, a->moves,
	       a->moves_total, a->player, a->pile);
	for (int p = 0; p < a->players; p++)
		printf(" %d", a->scores[p]);
	printf("\n");
}

/* Spots as text: " NAME 0 road, 3 field" after the first. */
static void spots_text(const char *name, const cm_answer_spot *s, int k)
{
	for (int i = 0; i < k; i++)
		printf("%s %d %s", i ? "," : name, s[i].feature, cm_feature_kind_name(s[i].kind));
}

static void legal(const cm_answer *a)
{
	size_t n = a->legal.n_placements;
	bool wagon = a->legal.wagon;
	printf("tile %s: %zu legal placement%s%s\n", a->legal.tile, n, n == 1 ? "" : "s",
	       a->legal.wagon_waits ? " (a wagon waits to move first: see --wagon)" : "");
	for (size_t i = 0; i < n; i++) {
		const cm_answer_placement *p = &a->legal.placements[i];
		printf("  (%d,%d) rotation %d:", p->x, p->y, p->rot);
		if (p->n_spots < 0)
			printf(" spots unknown (no copy left to draw)");
		else if (p->n_spots == 0)
			printf(" no %s spot", wagon ? "meeple" : "follower");
		spots_text(" spots", p->spots, p->n_spots);
		if (wagon && p->n_spots >= 0) {
			printf(";");
			if (p->n_wagon_spots == 0)
				printf(" no wagon spot");
			spots_text(" wagon spots", p->wagon_spots, p->n_wagon_spots);
		}
		printf("\n");
	}
}

/* Fields are never complete: no state is shown for them. */
static const char *state(const cm_feature_info *fi)
{
	if (fi->kind == CM_FEAT_FIELD || fi->kind == CM_FEAT_GARDEN)
		return "";
	return fi->scored ? "scored, " : fi->complete ? "complete, " : "incomplete, ";
}

static void feature_text(const cm_answer *a, const cm_answer_feature *af)
{
	const cm_feature_info *fi = &af->info;
	printf("  feature %d%s%s %s: %s%d tile%s, %d open, %d arms", af->index, af->id ? " " : "",
	       af->id ? af->id : "", cm_feature_kind_name(fi->kind), state(fi), fi->tiles, fi->tiles == 1 ? "" : "s",
	       fi->open, fi->arms);
	const char *flags[] = { fi->inn ? "inn" : NULL, fi->cathedral ? "cathedral" : NULL,
		                fi->bigcity ? "big city" : NULL, fi->print ? "edge print" : NULL,
		                fi->ferry ? "ferry" : NULL };
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (flags[i])
			printf(", %s", flags[i]);
	printf("; followers");
	int any = 0;
	for (int p = 0; p < a->players; p++)
		if (fi->followers[p]) {
			printf(" player %d: %d", p, fi->followers[p]);
			any = 1;
		}
	if (!any)
		printf(" none");
	if (af->follower_here >= 0)
		printf("; player %d's follower stands here", af->follower_here);
	printf("\n");
}

static void square(const cm_answer *a)
{
	const char *name = a->square.name;
	printf("square (%d,%d) %s%s%s: ", a->square.x, a->square.y, cm_square_kind_name(a->square.kind),
	       name ? " " : "", name ? name : "");
	if (a->square.tile)
		printf("tile %s rotation %d\n", a->square.tile, a->square.rot);
	else if (a->square.kind == CM_SQ_BIGCITY)
		printf("printed big city\n");
	else
		printf("%s\n", a->square.open ? "empty, open" : "empty");
	for (size_t i = 0; i < a->square.n_features; i++)
		feature_text(a, &a->square.features[i]);
}

static void score(const cm_answer *a)
{
	size_t n = a->score.n_items;
	printf("final scoring now: %zu item%s\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		const cm_score_item *s = &a->score.items[i];
		const char *what = s->type == CM_ITEM_FEATURE ? cm_feature_kind_name(s->kind) : cm_item_type_name(s->type);
		printf("  %s at (%d,%d)", what, s->x, s->y);
		if (s->feature >= 0)
			printf(" feature %d", s->feature);
		int k = 0;
		for (int p = 0; p < a->players; p++)
			k += (s->players >> p) & 1;
		printf(": %d to %s", s->points, k == 0 ? "nobody" : k == 1 ? "player" : "each of players");
		for (int p = 0, first = 1; p < a->players; p++)
			if (s->players & (1u << p)) {
				printf("%s %d", first ? "" : ",", p);
				first = 0;
			}
		printf(" [%s] %s\n", s->rule ? s->rule : "", s->reason ? s->reason : "");
	}
	printf("final scores:");
	for (int p = 0; p < a->players; p++)
		printf(" %d", a->score.final_scores[p]);
	printf("\n");
}

static void dest_text(const cm_wagon_dest *d)
{
	printf("  (%d,%d) feature %d %s, of the %s named (%d,%d) feature %d: %s [%s, %s on (%d,%d)]\n", d->x,
	       d->y, d->feature, cm_feature_kind_name(d->kind), cm_feature_kind_name(d->kind), d->fx, d->fy,
	       d->ffeature, d->reason, d->rule, cm_wagon_via_name(d->via), d->vx, d->vy);
}

/* --wagon and --why X,Y,F */
static void wagon(const cm_answer *a)
{
	if (!a->wagon.waiting) {
		printf("no wagon waits to move\n");
		return;
	}
	const cm_wagon_pending *w = &a->wagon.pending;
	printf("player %d's wagon waits on (%d,%d): its %s, named (%d,%d) feature %d, scored; %s\n", w->player,
	       w->x, w->y, cm_feature_kind_name(w->kind), w->fx, w->fy, w->feature, a->wagon.rule);
	if (a->kind == CM_ASK_WHY) {
		bool allowed = a->wagon.why == CM_WAGON_ALLOWED;
		const cm_wagon_dest *how = &a->wagon.how;
		printf("(%d,%d) feature %d %s: %s: %s", a->wagon.x, a->wagon.y, a->wagon.feature,
		       cm_feature_kind_name(a->wagon.kind), allowed ? "allowed" : "refused", a->wagon.reason);
		if (allowed)
			printf(" [%s, %s on (%d,%d)]", how->rule, cm_wagon_via_name(how->via), how->vx, how->vy);
		printf("\n");
		return;
	}
	size_t n = a->wagon.n_destinations;
	printf("%zu destination%s:\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		dest_text(&a->wagon.destinations[i]);
}

static void choice_text(const cm_answer *a, const cm_answer_choice *c)
{
	const cm_choice *ch = &c->choice;
	const char *who = ch->follower == CM_FOLLOWER_WAGON ? "the wagon" : "a meeple";
	const char *kind = c->feature_kind >= 0 ? cm_feature_kind_name((cm_feature_kind)c->feature_kind) : "?";
	switch (ch->kind) {
	case CM_CHOICE_TILE: printf("tile %s on (%d,%d) rotation %d", a->advise.tile_id, ch->x, ch->y, ch->rot); break;
	case CM_CHOICE_ABBEY: printf("abbey on (%d,%d)", ch->x, ch->y); break;
	case CM_CHOICE_WAGON:
		if (ch->feature < 0)
			printf("wagon back to the supply");
		else
			printf("wagon to (%d,%d) feature %d %s", ch->x, ch->y, ch->feature, kind);
		return;
	case CM_CHOICE_PASS: printf(a->pile ? "draw (keep the abbey)" : "keep the abbey"); return;
	}
	if (ch->feature >= 0)
		printf(", %s on feature %d %s", who, ch->feature, kind);
	else
		printf(", no follower");
}

static void advise(const cm_answer *a)
{
	const char *what = a->advise.decision;
	int who = a->advise.decides;
	if (a->advise.n_aside) {
		printf("put aside first (no legal placement):");
		for (size_t i = 0; i < a->advise.n_aside; i++)
			printf(" %s", a->advise.aside[i]);
		printf("\n");
	}
	if (strcmp(what, "wagon") == 0)
		printf("player %d's wagon waits to move from (%d,%d)\n", who, a->advise.wagon.x, a->advise.wagon.y);
	else if (strcmp(what, "tile") == 0)
		printf("player %d %s tile %s\n", who, a->advise.given ? "is given" : "draws", a->advise.tile_id);
	else if (strcmp(what, "abbey") == 0 && a->pile)
		printf("player %d may place its abbey instead of drawing (the tile on top unseen)\n", who);
	else if (strcmp(what, "abbey") == 0)
		printf("the pile is empty: player %d may place its abbey\n", who);
	else if (a->advise.given)
		printf("tile %s has no legal placement now: it would be put aside\n", a->advise.tile_id);
	else
		printf("nothing to decide: the game ends\n");
	for (size_t i = 0; i < a->advise.n_advice; i++) {
		const cm_answer_advice *v = &a->advise.advice[i];
		if (!v->available) {
			printf("%s: not in this build\n", v->player);
			continue;
		}
		printf("%s would play: ", v->player);
		choice_text(a, &v->choice);
		printf("\n");
		if (v->weighed < 0) {
			printf("  (%s does not say what it weighed)\n", v->player);
			continue;
		}
		/* a player that samples (mcts) gives each choice's playouts */
		bool sampled = v->n_best > 0 && v->best[0].visits > 0;
		if (sampled)
			printf("  the best %d of the %d choices it searched (mean playout result, 0 to 1; playouts):\n",
			       v->n_best, v->weighed);
		else
			printf("  the best %d of the %d choices it weighed (values in points):\n", v->n_best, v->weighed);
		for (int k = 0; k < v->n_best; k++) {
			if (sampled)
				printf("  %3d. %8.4f %6d  ", k + 1, v->best[k].value, v->best[k].visits);
			else
				printf("  %3d. %8.2f  ", k + 1, v->best[k].value);
			choice_text(a, &v->best[k]);
			printf("\n");
		}
	}
}

static void answer_text(const cm_answer *a)
{
	head(a);
	switch (a->kind) {
	case CM_ASK_LEGAL: legal(a); break;
	case CM_ASK_SQUARE: square(a); break;
	case CM_ASK_SCORE: score(a); break;
	case CM_ASK_WAGON:
	case CM_ASK_WHY: wagon(a); break;
	case CM_ASK_ADVISE: advise(a); break;
	}
}

/* "X,Y" into *x, *y; false when malformed. */
static bool parse_xy(const char *s, int *x, int *y)
{
	const char *comma = strchr(s, ',');
	char buf[32];
	if (!comma || (size_t)(comma - s) >= sizeof buf)
		return false;
	memcpy(buf, s, (size_t)(comma - s));
	buf[comma - s] = '\0';
	long a = cli_parse_uint(buf, MAX_COORD), b = cli_parse_uint(comma + 1, MAX_COORD);
	*x = (int)a;
	*y = (int)b;
	return a >= 0 && b >= 0;
}

static int read_replay(const char *path, cm_diags *d, cm_replay **out)
{
	/* a regular file only (cm_file_open_read): a FIFO never blocks the command */
	FILE *f = NULL;
	int orc = cm_file_open_read(path, d, &f);
	if (orc)
		return orc;
	int rc = cm_replay_read(f, path, d, out);
	fclose(f);
	return rc;
}

int cmd_rules(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "moves", required_argument, NULL, 'k' },
		{ "legal", required_argument, NULL, 'L' },
		{ "square", required_argument, NULL, 'S' },
		{ "score", no_argument, NULL, 'C' },
		{ "wagon", no_argument, NULL, 'W' },
		{ "why", required_argument, NULL, 'Y' },
		{ "advise", no_argument, NULL, 'A' },
		{ "tile", required_argument, NULL, 't' },
		{ "players", required_argument, NULL, 'p' },
		{ "top", required_argument, NULL, 'n' },
		{ "edition", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "map", required_argument, NULL, 'm' },
		{ "printing", required_argument, NULL, 'P' },
		{ "tilesets", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	cm_diags *d = NULL;
	cm_workspace *w = NULL;
	cm_replay *r = NULL;
	cli_target tg = { .cmd = "rules", .decks = 1, .build_deck = 1 };
	ctx c = { 0 };
	if (cm_diags_new(&d) || cm_workspace_new(&w)) {
		cm_diags_free(d);
		return EXIT_IO;
	}
	const char *tile = NULL, *advise_tile = NULL, *advisors = CM_ASK_ADVISORS;
	long top = 5;
	bool advise_opts = false; /* --tile, --players or --top given */
	cm_ask_kind q = CM_ASK_LEGAL;
	int queries = 0, x = 0, y = 0, f = 0, ec = EXIT_CLEAN, opt;
	const char *edition = NULL;
	cm_edition ed = CM_EDITION_C2;
	long moves = -1;
	cli_opts o = { .cmd = "rules", .opts = opts, .usage = usage, .tilesets = w, .printing = &tg.printing };
	while ((opt = cli_next_option(&o, argc, argv, ":hT:")) >= 0) {
		switch (opt) {
		case 'k':
			if ((moves = cli_parse_uint(optarg, 1L << 30)) < 0)
				ec = cli_usage_error("rules", "--moves takes a whole number, not '%s'", optarg);
			break;
		case 'L': q = CM_ASK_LEGAL; queries++; tile = optarg; break;
		case 'S':
			q = CM_ASK_SQUARE;
			queries++;
			if (!parse_xy(optarg, &x, &y))
				ec = cli_usage_error("rules", "--square takes X,Y (two whole numbers), not '%s'", optarg);
			break;
		case 'C': q = CM_ASK_SCORE; queries++; break;
		case 'W': q = CM_ASK_WAGON; queries++; break;
		case 'Y': {
			q = CM_ASK_WHY;
			queries++;
			/* X,Y,F: the last comma splits off F */
			char *last = strrchr(optarg, ',');
			long fv = last ? cli_parse_uint(last + 1, CM_MAX_FEATURES - 1) : -1;
			if (last)
				*last = '\0';
			if (fv < 0 || !parse_xy(optarg, &x, &y))
				ec = cli_usage_error("rules", "--why takes X,Y,F (three whole numbers)");
			f = (int)fv;
			break;
		}
		case 'A': q = CM_ASK_ADVISE; queries++; break;
		case 't': advise_tile = optarg; advise_opts = true; break;
		case 'p':
			advisors = optarg;
			advise_opts = true;
			if (strlen(optarg) > CM_ASK_PLAYERS_MAX)
				ec = cli_usage_error("rules", "--players is too long");
			for (const char *p = optarg; !ec && p;) {
				const char *comma = strchr(p, ',');
				char one[64];
				snprintf(one, sizeof one, "%.*s", (int)(comma ? (size_t)(comma - p) : strlen(p)), p);
				cm_player_spec sp;
				int prc = cm_player_spec_parse(one, &sp);
				if (prc == CM_ENOTFOUND)
					ec = cli_usage_error("rules", "unknown player '%s' in --players; players are %s", one,
					                     CM_PLAYER_SPEC_FORMS);
				else if (prc < 0)
					ec = cli_usage_error("rules", "player '%s': N must be a whole number from 1 to %d; "
					                     "players are %s", one, CM_PLAYER_MAX_BUDGET, CM_PLAYER_SPEC_FORMS);
				p = comma ? comma + 1 : NULL;
			}
			break;
		case 'n':
			advise_opts = true;
			if ((top = cli_parse_uint(optarg, CM_ASK_MAX_TOP)) < 1)
				ec = cli_usage_error("rules", "--top takes a number from 1 to %d, not '%s'", CM_ASK_MAX_TOP, optarg);
			break;
		case 'e':
			edition = optarg;
			if (cm_edition_parse(optarg, &ed) < 0)
				ec = cli_usage_error("rules", "--edition is C1, C2 or C3, not '%s'", optarg);
			break;
		case 'f':
			if (cli_parse_format("rules", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &c.fmt) < 0)
				ec = EXIT_USAGE;
			break;
		case 'm': tg.map_id = optarg; break;
		}
		if (ec)
			goto done;
	}
	if (opt == CLI_STOP) {
		ec = o.status;
		goto done;
	}
	if (queries != 1) {
		ec = cli_usage_error("rules", "ask one question: --legal TILE, --square X,Y, --score, --wagon, "
		                             "--why X,Y,F or --advise");
		goto done;
	}
	if (q != CM_ASK_ADVISE && advise_opts) {
		ec = cli_usage_error("rules", "--tile, --players and --top go with --advise");
		goto done;
	}
	if (argc - optind < 2) {
		ec = cli_usage_error("rules", "give a replay and the map it was played on");
		goto done;
	}
	const char *path = argv[optind];
	int rc = read_replay(path, d, &r);
	if (!rc) {
		tg.fallback = r->map_id; /* several maps: the one the replay names, unless --map says */
		rc = cli_load_map(&tg, w, argc - optind - 1, argv + optind + 1, d);
	}
	if (rc == CLI_NO_MAP) {
		ec = EXIT_USAGE;
		goto done;
	}
	c.m = tg.map;
	c.deck = tg.deck;
	if (!rc && cm_diags_errors(d) == 0) {
		c.moves_total = count_moves(r);
		if (moves > c.moves_total) {
			ec = cli_usage_error("rules", "--moves %ld: the replay has %d moves", moves, c.moves_total);
			goto done;
		}
		c.moves = moves < 0 ? c.moves_total : (int)moves;
		int t = q == CM_ASK_LEGAL ? cm_deck_find(c.deck, tile) : 0;
		if (t < 0) {
			ec = cli_usage_error("rules", "no tile '%s' in the deck of map %s", tile, cm_map_id(c.m));
			goto done;
		}
		int given = advise_tile ? cm_deck_find(c.deck, advise_tile) : -1;
		if (advise_tile && given < 0) {
			ec = cli_usage_error("rules", "no tile '%s' in the deck of map %s", advise_tile, cm_map_id(c.m));
			goto done;
		}
		if ((q == CM_ASK_SQUARE || q == CM_ASK_WHY) && !cm_map_at(c.m, x, y)) {
			ec = cli_usage_error("rules", "square (%d,%d) is off the %dx%d grid of map %s", x, y,
			                     cm_map_cols(c.m), cm_map_rows(c.m), cm_map_id(c.m));
			goto done;
		}
		cm_replay part = cut(r, c.moves, c.moves_total);
		rc = play_back(c.m, c.deck, &part, path, d, &c.b);
		if (!rc && edition) { /* what if: the same board under another edition */
			cm_rules ru = *cm_board_rules(c.b);
			ru.edition = ed;
			cm_board_set_rules(c.b, &ru);
		}
		cm_feature_info fi;
		if (!rc && q == CM_ASK_WHY && cm_board_feature(c.b, x, y, f, &fi) < 0) {
			ec = cli_usage_error("rules", "no feature %d on square (%d,%d)", f, x, y);
			goto done;
		}
		if (!rc && q == CM_ASK_SCORE && cm_board_wagon_pending(c.b, NULL)) {
			ec = cli_usage_error("rules", "--score: after move %d a wagon waits to move; no final scoring "
			                              "before it moves (ask --wagon)", c.moves);
			goto done;
		}
		if (!rc) {
			cm_ask ask;
			cm_ask_init(&ask, q);
			ask.tile = q == CM_ASK_LEGAL ? t : given;
			ask.x = x;
			ask.y = y;
			ask.feature = f;
			ask.players = advisors;
			ask.top = (int)top;
			ask.seed = r->seed;
			ask.moves = c.moves;
			ask.moves_total = c.moves_total;
			cm_answer *a = NULL;
			rc = cm_board_ask(c.b, &ask, &a);
			if (!rc && c.fmt == FMT_JSON)
				rc = cm_answer_write_json(a, stdout);
			else if (!rc)
				answer_text(a);
			cm_answer_free(a);
			if (fflush(stdout) && !rc)
				rc = CM_EIO;
		}
	}
	ec = cli_finish(d, FMT_TEXT, rc);
done:
	cm_board_free(c.b);
	cm_deck_free(tg.deck);
	cm_replay_free(r);
	cm_workspace_free(w);
	cm_diags_free(d);
	return ec;
}
