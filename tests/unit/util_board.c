/* SPDX-License-Identifier: MIT */
/* util_board.c: scenario fixtures and replay round trips for the rules
 * engine's unit tests (util_board.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util_board.h"

util_fixture util_fixture_load(const char *path)
{
	util_fixture fx = { 0 };
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_scenario_read_file(path, d, &fx.scn);
	if (rc == 0)
		rc = cm_deck_build(fx.scn->map, (const cm_tileset *const *)fx.scn->sets, fx.scn->n_sets, d,
		                   &fx.deck);
	if (rc < 0)
		cm_diags_write_text(d, stderr);
	cm_diags_free(d);
	assert_int_equal(rc, 0);
	return fx;
}

void util_fixture_unload(util_fixture *fx)
{
	cm_deck_free(fx->deck);
	cm_scenario_free(fx->scn);
}

char *util_replay_text(const cm_board *b)
{
	cm_replay *r = NULL;
	assert_int_equal(cm_replay_from_board(b, &r), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cm_replay_write(r, f), 0);
	fclose(f);
	cm_replay_free(r);
	return buf;
}

cm_board *util_replay_again(const util_fixture *fx, const cm_board *b)
{
	char *text = util_replay_text(b);
	FILE *f = fmemopen(text, strlen(text), "r");
	assert_non_null(f);
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	cm_replay *r = NULL;
	assert_int_equal(cm_replay_read(f, "mem", d, &r), 0);
	fclose(f);
	cm_board *b2 = NULL;
	int rc = cm_board_replay(fx->scn->map, fx->deck, r, d, &b2);
	if (rc < 0)
		cm_diags_write_text(d, stderr);
	assert_int_equal(rc, 0);
	for (int p = 0; p < cm_board_players(b); p++)
		assert_int_equal(cm_board_score(b, p), cm_board_score(b2, p));
	char *text2 = util_replay_text(b2);
	assert_string_equal(text, text2);
	free(text2);
	cm_replay_free(r);
	cm_diags_free(d);
	free(text);
	return b2;
}
