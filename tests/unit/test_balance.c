/* SPDX-License-Identifier: MIT */
/* test_balance.c: the balance report (carcamap/balance.h) and the
 * engine's seating hooks it plays through (engine/engine.h): a deal in
 * rotation r gives seat s the tiles seat s + r draws unrotated; the setup
 * lands on the chosen start squares; the figures of known sums (means,
 * Student intervals, the Bonferroni gap); a run stops at the precision
 * with every win-rate interval within it, or at the cap; the same report
 * for every number of threads and another for another seed; refused
 * requests; an interrupted run is partial. On the bundled Carca Isles
 * (3 start squares, 2 used: 3 choices). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/carcamap.h"
#include "check/balance_int.h"
#include "engine/board_int.h"
#include "engine/engine.h"

typedef struct {
	cm_workspace *w;
	cm_deck *deck;
	const cm_map *m;
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	cm_diags *d = NULL;
	if (!fx || cm_diags_new(&d) || cm_workspace_new(&fx->w))
		return -1;
	*state = fx;
	int rc = cm_workspace_add_tileset_dir(fx->w, "maps/tilesets");
	if (!rc)
		rc = cm_workspace_load(fx->w, "maps/carca-isles/carca-isles.xml", d);
	if (!rc)
		rc = cm_workspace_resolve(fx->w, d);
	fx->m = cm_workspace_map(fx->w, 0);
	if (!rc)
		rc = cm_play_deck(fx->w, fx->m, d, &fx->deck);
	if (rc)
		cm_diags_write_text(d, stderr);
	cm_diags_free(d);
	return rc;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	cm_deck_free(fx->deck);
	cm_workspace_free(fx->w);
	free(fx);
	return 0;
}

static int start_square(const cm_map *m, int i)
{
	for (int s = 0; s < cm_map_cols(m) * cm_map_rows(m); s++)
		if (cm_map_squares(m)[s].kind == CM_SQ_START && i-- == 0)
			return s;
	return -1;
}

/* The pile after setup on the two first start squares, dealt in rotation r. */
static void dealt(const fixture *fx, int seats, int r, uint8_t *pile, int *n)
{
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx->m, fx->deck, NULL, seats, 7, CM_BOARD_NO_SETUP, NULL, &b), 0);
	int32_t sq[2] = { start_square(fx->m, 0), start_square(fx->m, 1) };
	assert_int_equal(cm__board_setup_on(b, sq, 2, NULL), 0);
	cm__board_rotate_deal(b, seats, r);
	*n = b->pile_n - b->pile_top;
	memcpy(pile, b->pile + b->pile_top, (size_t)*n);
	cm_board_free(b);
}

static void test_balance__a_rotation_deals_each_seat_another_seats_tiles(void **state)
{
	const fixture *fx = *state;
	uint8_t p0[256], pr[256];
	for (int seats = 2; seats <= 5; seats++)
		for (int r = 0; r < seats; r++) {
			int n0, nr;
			dealt(fx, seats, 0, p0, &n0);
			dealt(fx, seats, r, pr, &nr);
			assert_int_equal(n0, nr);
			int whole = n0 / seats * seats;
			for (int i = 0; i < whole; i++) {
				int round = i / seats, s = i % seats;
				assert_int_equal(pr[i], p0[round * seats + (s + r) % seats]);
			}
			for (int i = whole; i < n0; i++) /* the short round stays */
				assert_int_equal(pr[i], p0[i]);
		}
}

static void test_balance__setup_on_the_chosen_start_squares(void **state)
{
	const fixture *fx = *state;
	for (int a = 0; a < 3; a++)
		for (int c = a + 1; c < 3; c++) {
			cm_board *b = NULL;
			assert_int_equal(cm_board_new(fx->m, fx->deck, NULL, 2, 3, CM_BOARD_NO_SETUP, NULL, &b), 0);
			int32_t sq[2] = { start_square(fx->m, a), start_square(fx->m, c) };
			assert_int_equal(cm__board_setup_on(b, sq, 2, NULL), 0);
			int filled = 0;
			for (int i = 0; i < 3; i++) {
				int s = start_square(fx->m, i);
				bool has = cm_board_tile_at(b, s % cm_map_cols(fx->m), s / cm_map_cols(fx->m), NULL, NULL) == 0;
				assert_int_equal(has, i == a || i == c);
				filled += has;
			}
			assert_int_equal(filled, 2);
			assert_int_equal(cm_board_stats(b)->setup_tiles, 2);
			cm_board_free(b);
		}
	/* a square that is no start square, and a board that was set up */
	cm_board *b = NULL;
	assert_int_equal(cm_board_new(fx->m, fx->deck, NULL, 2, 3, CM_BOARD_NO_SETUP, NULL, &b), 0);
	int32_t bad[1] = { 0 };
	assert_int_equal(cm__board_setup_on(b, bad, 1, NULL), CM_EINVAL);
	cm_board_free(b);
	assert_int_equal(cm_board_new(fx->m, fx->deck, NULL, 2, 3, 0, NULL, &b), 0);
	int32_t one[1] = { start_square(fx->m, 0) };
	assert_int_equal(cm__board_setup_on(b, one, 1, NULL), CM_EINVAL);
	cm_board_free(b);
}

/* The figures of sums made by hand: 2 seats, 40 groups; seat 0 wins
 * both games of the first 30 groups and none of the last 10. */
static void test_balance__figures_of_known_sums(void **state)
{
	(void)state;
	cm_balance_cell c;
	memset(&c, 0, sizeof c);
	c.seats = 2;
	cm_balance_sums *s = &c.sums;
	const long long G = 40, u = 2 * CM_BALANCE_SHARE; /* a group's units */
	s->groups = G;
	s->games = 2 * G;
	s->win[0] = 30 * u;
	s->win[1] = 10 * u;
	s->win_sq[0][0] = 30 * u * u;
	s->win_sq[1][1] = 10 * u * u;
	s->win_sq[0][1] = s->win_sq[1][0] = 0;
	s->score[0] = s->score_sq[0] = s->score[1] = s->score_sq[1] = 0;
	for (int g = 0; g < G; g++) { /* group scores 100 + g for seat 0, 80 for seat 1 */
		s->score[0] += 100 + g;
		s->score_sq[0] += (100 + g) * (100 + g);
		s->score[1] += 80;
		s->score_sq[1] += 80 * 80;
	}
	cm_balance_cell_figures(&c, 0.05);
	/* mean 0.75; sd of the group means sqrt(0.75 * 0.25 * 40 / 39);
	 * t(0.975, 39) = 2.02269 */
	double sd = sqrt(0.75 * 0.25 * 40.0 / 39.0), half = 2.02269 * sd / sqrt(40.0);
	assert_true(fabs(c.win[0].value - 0.75) < 1e-12);
	assert_true(fabs(c.win[0].hi - c.win[0].value - half) < 1e-4);
	assert_true(fabs(c.win[1].value - 0.25) < 1e-12);
	/* the mean score per game: group sums of two games hold one score each */
	assert_true(fabs(c.score[0].value - (100 + 19.5) / 2) < 1e-9);
	assert_true(fabs(c.score[1].hi - c.score[1].lo) < 1e-12); /* no spread */
	/* the gap: seat 0 over seat 1 by 0.5, group differences +1 or -1 */
	assert_int_equal(c.best, 0);
	assert_int_equal(c.worst, 1);
	assert_true(fabs(c.gap.value - 0.5) < 1e-12);
	assert_true(fabs(c.gap.hi - 0.5 - 2 * half) < 1e-4); /* one pair: no Bonferroni */
	assert_true(fabs(c.balance.value - 0.5) < 1e-12);
	assert_true(fabs(c.first_seat_advantage.value - 0.25) < 1e-12);
	assert_int_equal(c.verdict, CM_BALANCE_UNFAIR);
	assert_true(c.sure);
	/* fewer than two groups: no interval, no verdict to be sure of */
	memset(&c, 0, sizeof c);
	c.seats = 3;
	c.sums.groups = 1;
	c.sums.games = 3;
	c.sums.win[0] = 3 * CM_BALANCE_SHARE;
	c.sums.win_sq[0][0] = 9LL * CM_BALANCE_SHARE * CM_BALANCE_SHARE;
	cm_balance_cell_figures(&c, 0.05);
	assert_true(isnan(c.win[0].lo));
	assert_false(c.sure);
}

static cm_balance_report *run(const fixture *fx, cm_balance_opts *o, int expect)
{
	cm_diags *d = NULL;
	cm_balance_report *r = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	int rc = cm_balance_run(fx->m, fx->deck, o, d, &r);
	if (rc != expect)
		cm_diags_write_text(d, stderr);
	assert_int_equal(rc, expect);
	cm_diags_free(d);
	return r;
}

static const char *const random_seat[] = { "random" };

static void test_balance__stops_at_the_precision_or_the_cap(void **state)
{
	const fixture *fx = *state;
	cm_balance_opts o;
	cm_balance_opts_init(&o);
	int seats[] = { 2, 3 };
	o.seats = seats;
	o.n_seats = 2;
	o.players = random_seat;
	o.n_players = 1;
	o.precision = 0.04;
	cm_balance_report *r = run(fx, &o, 0);
	assert_int_equal(r->n_cells, 6); /* 2 seat counts, 3 choices */
	int fairest[2] = { 0, 0 };
	for (size_t i = 0; i < r->n_cells; i++) {
		const cm_balance_cell *c = &r->cells[i];
		assert_int_equal(c->stop, CM_BALANCE_PRECISE);
		assert_true(c->groups >= CM_BALANCE_MIN_GROUPS);
		assert_int_equal(c->games, c->groups * c->seats);
		double total = 0;
		for (int p = 0; p < c->seats; p++) {
			assert_true((c->win[p].hi - c->win[p].lo) / 2 <= 0.04);
			total += c->win[p].value;
		}
		assert_true(fabs(total - 1) < 1e-9); /* shared ties add up */
		fairest[c->seats - 2] += c->fairest;
	}
	assert_int_equal(fairest[0], 1);
	assert_int_equal(fairest[1], 1);
	cm_balance_report_free(r);
	/* the cap: whole groups, never more games than allowed */
	o.precision = 0.001;
	o.max_games = 101;
	r = run(fx, &o, 0);
	for (size_t i = 0; i < r->n_cells; i++) {
		assert_int_equal(r->cells[i].stop, CM_BALANCE_CAPPED);
		assert_int_equal(r->cells[i].games, 101 / r->cells[i].seats * r->cells[i].seats);
	}
	cm_balance_report_free(r);
}

/* Everything a report says, as bytes to compare. */
static void fingerprint(const cm_balance_report *r, char *buf, size_t size)
{
	size_t at = 0;
	for (size_t i = 0; i < r->n_cells && at < size; i++) {
		const cm_balance_cell *c = &r->cells[i];
		int k = snprintf(buf + at, size - at, "%d %lld %lld %.17g %.17g %.17g %d %d|", c->seats, c->groups,
		                 c->sums.win[0], c->win[0].lo, c->gap.hi, c->lead_changes.value, c->fairest, c->flagged);
		at += k > 0 ? (size_t)k : 0;
	}
}

static void test_balance__same_report_for_every_jobs(void **state)
{
	const fixture *fx = *state;
	cm_balance_opts o;
	cm_balance_opts_init(&o);
	int seats[] = { 2, 4 };
	o.seats = seats;
	o.n_seats = 2;
	o.players = random_seat;
	o.n_players = 1;
	o.compare = "random";
	o.precision = 0.05;
	char a[4096], b[4096];
	cm_balance_report *r = run(fx, &o, 0);
	assert_int_equal(r->n_cells, 12);
	fingerprint(r, a, sizeof a);
	cm_balance_report_free(r);
	for (int jobs = 2; jobs <= 5; jobs += 3) {
		o.jobs = jobs;
		r = run(fx, &o, 0);
		fingerprint(r, b, sizeof b);
		assert_string_equal(a, b);
		cm_balance_report_free(r);
	}
	o.seed = 2;
	r = run(fx, &o, 0);
	fingerprint(r, b, sizeof b);
	assert_string_not_equal(a, b);
	cm_balance_report_free(r);
}

static void test_balance__refused_requests(void **state)
{
	const fixture *fx = *state;
	cm_balance_opts o;
	cm_balance_opts_init(&o);
	o.players = random_seat;
	o.n_players = 1;
	cm_diags *d = NULL;
	assert_int_equal(cm_diags_new(&d), 0);
	int too_many[] = { 7 };
	o.seats = too_many;
	o.n_seats = 1;
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), CM_EINVAL);
	o.seats = NULL;
	o.n_seats = 0;
	int32_t land[2] = { start_square(fx->m, 0), start_square(fx->m, 0) + 1 };
	o.starts = land;
	o.n_starts = 2;
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), CM_EINVAL);
	o.n_starts = 1; /* the setup uses 2 */
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), CM_EINVAL);
	int32_t twice[2] = { start_square(fx->m, 1), start_square(fx->m, 1) };
	o.starts = twice;
	o.n_starts = 2;
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), CM_EINVAL);
	int32_t good[2] = { start_square(fx->m, 2), start_square(fx->m, 0) };
	o.starts = good;
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), 0);
	o.precision = 0;
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), CM_EINVAL);
	o.precision = 0.01;
	const char *const bogus[] = { "clever" };
	o.players = bogus;
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), CM_EINVAL);
	const char *const two[] = { "random", "greedy" };
	o.players = two;
	o.n_players = 2;
	int three[] = { 3 };
	o.seats = three;
	o.n_seats = 1;
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), CM_EINVAL);
	o.seats = NULL;
	o.n_seats = 0;
	assert_int_equal(cm_balance_check_request(fx->m, fx->deck, &o, d), 0);
	assert_true(cm_diags_errors(d) >= 6);
	cm_diags_free(d);
	/* the pinned choice is the only cell, its squares sorted */
	o.players = random_seat;
	o.n_players = 1;
	o.precision = 0.1;
	o.starts = good;
	cm_balance_report *r = run(fx, &o, 0);
	assert_int_equal(r->n_cells, 4); /* seats 2..5 */
	assert_true(r->cells[0].starts[0] < r->cells[0].starts[1]);
	cm_balance_report_free(r);
}

static bool always(void *arg)
{
	(void)arg;
	return true;
}

static void test_balance__interrupted_run_is_partial(void **state)
{
	const fixture *fx = *state;
	cm_balance_opts o;
	cm_balance_opts_init(&o);
	o.players = random_seat;
	o.n_players = 1;
	o.interrupted = always;
	cm_balance_report *r = run(fx, &o, 0);
	assert_true(r->partial);
	for (size_t i = 0; i < r->n_cells; i++)
		assert_int_equal(r->cells[i].stop, CM_BALANCE_NOT_RUN);
	cm_balance_report_free(r);
	cm_balance_report_free(NULL);
}

/* ---- heatmaps ---- */

/* Every square's fill, turn and points and every element's figures, as
 * text. */
static void heat_text(const cm_map *m, const cm_balance_heat *h, char *buf, size_t size)
{
	size_t at = 0;
	for (int y = 0; y < cm_map_rows(m); y++)
		for (int x = 0; x < cm_map_cols(m); x++)
			for (int k = CM_HEAT_FILL; k <= CM_HEAT_POINTS; k++) {
				cm_interval v;
				if (cm_balance_heat_square(h, (cm_heat_kind)k, x, y, &v) == 0 && at < size)
					at += (size_t)snprintf(buf + at, size - at, "%.6f %.6f %.6f;", v.value, v.lo, v.hi);
			}
	for (size_t i = 0; i < cm_balance_heat_element_count(h) && at < size; i++) {
		const cm_heat_element *e = cm_balance_heat_element(h, i);
		at += (size_t)snprintf(buf + at, size - at, "%lld %lld %lld %.6f;", e->n_connected, e->n_completed,
		                       e->n_scored, e->completed.hi);
	}
}

/* The heatmap tests' games: 3 seats of random players (by spec, so the
 * player path is taken), games games on jobs threads. */
static cm_play_opts random_seats(int games, int jobs)
{
	static const char *const specs[CM_MAX_PLAYERS] = { "random", "random", "random",
		                                           "random", "random", "random" };
	cm_play_opts po;
	cm_play_opts_init(&po);
	po.seats = 3;
	po.players = specs;
	po.games = games;
	po.jobs = jobs;
	return po;
}

static cm_balance_heat *heat_of(const fixture *fx, int games, int jobs)
{
	cm_play_opts po = random_seats(games, jobs);
	cm_balance_heat *h = NULL;
	assert_int_equal(cm_balance_heat_play(fx->m, fx->deck, &po, NULL, &h), 0);
	assert_int_equal(cm_balance_heat_games(h), games);
	return h;
}

/* The heatmaps of the same games are the same for every number of
 * threads (integer sums per game), and differ for other games. */
static void test_balance__heatmaps_the_same_for_every_jobs(void **state)
{
	const fixture *fx = *state;
	static char a[1 << 16], b[1 << 16];
	cm_balance_heat *h = heat_of(fx, 30, 1);
	heat_text(fx->m, h, a, sizeof a);
	cm_balance_heat_free(h);
	for (int jobs = 2; jobs <= 7; jobs += 5) {
		h = heat_of(fx, 30, jobs);
		heat_text(fx->m, h, b, sizeof b);
		assert_string_equal(a, b);
		cm_balance_heat_free(h);
	}
	h = heat_of(fx, 31, 2);
	heat_text(fx->m, h, b, sizeof b);
	assert_string_not_equal(a, b);
	cm_balance_heat_free(h);
}

static void progress_count(void *arg, int done, int games)
{
	(void)done;
	(void)games;
	++*(int *)arg;
}

/* check --games takes its statistics and its heatmap from one set of
 * games (cm__heat_play_on): both are what cm_play_run and
 * cm_balance_heat_play give for those games, for every number of
 * threads, and one thread tells its progress once a game. */
static void test_balance__one_set_of_games_for_stats_and_heatmap(void **state)
{
	const fixture *fx = *state;
	static char a[1 << 16], b[1 << 16];
	const int games = 30;
	cm_play_opts po;
	cm_play_opts_init(&po);
	po.seats = 3;
	po.games = games;
	cm_play_stats *want = NULL;
	assert_int_equal(cm_play_run(fx->m, fx->deck, &po, NULL, &want), 0);
	cm_balance_heat *hw = NULL;
	assert_int_equal(cm_balance_heat_play(fx->m, fx->deck, &po, NULL, &hw), 0);
	heat_text(fx->m, hw, a, sizeof a);
	size_t n_sq = (size_t)want->cols * (size_t)want->rows;
	for (int jobs = 1; jobs <= 3; jobs += 2) {
		int told = 0;
		po.jobs = jobs;
		po.progress = progress_count;
		po.arg = &told;
		cm_play_stats *st = NULL;
		cm_balance_heat *h = NULL;
		assert_int_equal(cm__heat_play_on(NULL, fx->m, fx->deck, &po, NULL, &st, &h), 0);
		assert_int_equal(told, jobs == 1 ? games : 1);
		assert_int_equal(st->games, games);
		assert_int_equal(cm_balance_heat_games(h), games);
		assert_true(st->tiles_placed == want->tiles_placed && st->squares_filled == want->squares_filled);
		assert_int_equal(st->ties, want->ties);
		assert_memory_equal(st->scores, want->scores, sizeof st->scores);
		assert_memory_equal(st->wins, want->wins, sizeof st->wins);
		assert_memory_equal(st->fill, want->fill, n_sq * sizeof *st->fill);
		heat_text(fx->m, h, b, sizeof b);
		assert_string_equal(a, b);
		cm_play_stats_free(st);
		cm_balance_heat_free(h);
	}
	cm_play_stats_free(want);
	cm_balance_heat_free(hw);
}

/* The fill of every square adds up to the tiles a game leaves on the
 * board (setup included) as cm_play_run counts them for the same games;
 * turns lie between the setup (0) and the tiles placed; the elements'
 * counts are games. */
static void test_balance__heatmap_figures_add_up(void **state)
{
	const fixture *fx = *state;
	const int games = 40;
	cm_balance_heat *h = heat_of(fx, games, 2);
	cm_play_opts po = random_seats(games, 1);
	cm_play_stats *st = NULL;
	assert_int_equal(cm_play_run(fx->m, fx->deck, &po, NULL, &st), 0);
	double sum = 0;
	int filled_squares = 0;
	for (int y = 0; y < cm_map_rows(fx->m); y++)
		for (int x = 0; x < cm_map_cols(fx->m); x++) {
			cm_interval f, t;
			if (cm_balance_heat_square(h, CM_HEAT_FILL, x, y, &f) != 0)
				continue;
			assert_true(f.value >= 0 && f.value <= 1 && f.lo <= f.value && f.value <= f.hi);
			int n = st->fill[y * cm_map_cols(fx->m) + x]; /* -1: takes no tile */
			assert_true(fabs(f.value - (n < 0 ? 0 : (double)n / games)) < 1e-9);
			sum += f.value;
			if (cm_balance_heat_square(h, CM_HEAT_TURN, x, y, &t) == 0) {
				filled_squares++;
				assert_true(t.value >= 0 && t.value <= (double)st->tiles_placed / games * 3);
			}
		}
	assert_true(filled_squares > 0);
	assert_true(fabs(sum - (double)st->squares_filled / games) < 1e-6);
	assert_int_equal(cm_balance_heat_square(h, CM_HEAT_FILL, -1, 0, &(cm_interval){ 0 }), CM_ENOTFOUND);
	assert_int_equal(cm_balance_heat_square(h, CM_HEAT_USE, 0, 0, &(cm_interval){ 0 }), CM_ENOTFOUND);
	assert_true(cm_balance_heat_element_count(h) > 0);
	for (size_t i = 0; i < cm_balance_heat_element_count(h); i++) {
		const cm_heat_element *e = cm_balance_heat_element(h, i);
		assert_true(e->n_connected >= 0 && e->n_connected <= games);
		assert_true(e->n_completed >= 0 && e->n_completed <= games && e->n_scored <= games);
		assert_true(fabs(e->connected.value - (double)e->n_connected / games) < 1e-9);
	}
	cm_play_stats_free(st);
	cm_balance_heat_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balance__a_rotation_deals_each_seat_another_seats_tiles),
		cmocka_unit_test(test_balance__setup_on_the_chosen_start_squares),
		cmocka_unit_test(test_balance__figures_of_known_sums),
		cmocka_unit_test(test_balance__stops_at_the_precision_or_the_cap),
		cmocka_unit_test(test_balance__same_report_for_every_jobs),
		cmocka_unit_test(test_balance__refused_requests),
		cmocka_unit_test(test_balance__interrupted_run_is_partial),
		cmocka_unit_test(test_balance__heatmaps_the_same_for_every_jobs),
		cmocka_unit_test(test_balance__heatmap_figures_add_up),
		cmocka_unit_test(test_balance__one_set_of_games_for_stats_and_heatmap),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
