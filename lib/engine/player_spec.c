/* SPDX-License-Identifier: MIT */
/* player_spec.c: player specs as the command line names them ("random",
 * "greedy", "mcts:200"; carcamap/player.h) and the constructors they
 * name. Apart from player.c because the players use player.c's driver
 * and choices (mcts plays its playouts with them): the factory sits above
 * every player. */
#include <stdbool.h>
#include <string.h>
#include "carcamap/player.h"

/* The budget after "NAME:" (1..CM_PLAYER_MAX_BUDGET, decimal digits only), or -1. */
static long parse_budget(const char *s)
{
	long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > CM_PLAYER_MAX_BUDGET)
			return -1;
	}
	return v >= 1 ? v : -1;
}

int cm_player_spec_parse(const char *text, cm_player_spec *out)
{
	static const struct {
		const char *name;
		cm_player_kind kind;
		bool budget;
	} names[] = {
		{ "random", CM_PLAYER_RANDOM, false },
		{ "greedy", CM_PLAYER_GREEDY, false },
		{ "mcts", CM_PLAYER_MCTS, true },
	};
	const char *colon = strchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strlen(names[i].name) != len || memcmp(names[i].name, text, len) != 0)
			continue;
		if (colon && !names[i].budget)
			return CM_ENOTFOUND; /* "random:5": no such player */
		long v = colon ? parse_budget(colon + 1) : 0;
		if (v < 0)
			return CM_EINVAL;
		out->kind = names[i].kind;
		out->budget = v;
		return 0;
	}
	return CM_ENOTFOUND;
}

int cm_player_new(const cm_player_spec *spec, cm_player **out)
{
	*out = NULL;
	switch (spec->kind) {
	case CM_PLAYER_RANDOM:
		return cm_player_new_random(out);
	case CM_PLAYER_GREEDY:
		return cm_player_new_greedy(out);
	case CM_PLAYER_MCTS:
		return cm_player_new_mcts(spec->budget, out);
	}
	return CM_EINVAL;
}

int cm_player_new_from_spec(const char *text, cm_player **out)
{
	cm_player_spec sp;
	*out = NULL;
	int rc = cm_player_spec_parse(text, &sp);
	return rc < 0 ? rc : cm_player_new(&sp, out);
}
