/* SPDX-License-Identifier: MIT */
/* score.c: scoring (carcamap/board.h): the end of a turn (complete
 * features, monasteries, island coats of arms, town options) and final
 * scoring with farmers, each as explained items (rule id, reason, counts,
 * points, players). BASE-SCORE, BASE-FINAL, MAP-COA, MAP-EDGE-DONE,
 * MAP-BIGCITY-SCORE, MAP-FERRY-SCORE, MAP-MONASTERY-EDGE, MAP-FINAL. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "engine/board_int.h"

cm_score_item *cm__item(cm_board *b)
{
	assert(b->n_items < b->max_items);
	cm_score_item *it = &b->items[b->n_items++];
	memset(it, 0, sizeof *it);
	it->x = it->y = it->feature = -1;
	return it;
}

/* The players with the most followers in fol (the seats of the game, np:
 * the others hold none). */
unsigned cm__majority(const uint8_t *fol, int np)
{
	int max = 0;
	for (int p = 0; p < np; p++)
		if (fol[p] > max)
			max = fol[p];
	unsigned m = 0;
	for (int p = 0; max && p < np; p++)
		if (fol[p] == max)
			m |= 1u << p;
	return m;
}

/* Points to each player of the players mask, and the statistics: the
 * item's share of the game's figures, whether or not the item is built. */
static void award_pts(cm_board *b, cm_item_type type, int kind, int points, unsigned players, bool final)
{
	int cnt = 0;
	for (unsigned m = players & ((1u << b->n_players) - 1); m; m &= m - 1, cnt++)
		b->score[cm__ctz(m)] += points;
	if (!cnt)
		return;
	if (final)
		b->stats.final_points += cnt * points;
	switch (type) {
	case CM_ITEM_FEATURE: b->stats.points_kind[kind] += cnt * points; break;
	case CM_ITEM_ISLAND: b->stats.points_island += cnt * points; break;
	case CM_ITEM_TOWN_COST: b->stats.points_town += cnt * points; break;
	}
}

void cm__return_followers(cm_board *b, int32_t r)
{
	node *n = b->nodes;
	if (!n[r].nfol)
		return;
	int k = 0;
	for (int i = 0; i < b->n_fol; i++) {
		if (cm__find(n, b->fol_node[i]) == r) {
			if (b->fol[i].kind == CM_FOLLOWER_WAGON) {
				/* WAGON-MOVE: it waits for its move (wagon.c) */
				wagon_wait *w = &b->wait[b->n_wait++];
				w->player = (int8_t)b->fol[i].player;
				w->sq = b->nx[b->fol_node[i]].sq;
				w->root = r;
			} else {
				b->supply[b->fol[i].player]++;
			}
			continue;
		}
		b->fol[k] = b->fol[i];
		b->fol_node[k++] = b->fol_node[i];
	}
	b->n_fol = k;
	n[r].nfol = 0; /* and nx[r].fol no longer read */
}

/* MAP-TOWN option 3: empty town squares orthogonally next to a tile of
 * the road. */
static int visible_towns(cm_board *b, int32_t r)
{
	const node *n = b->nodes;
	uint32_t ep = cm__epoch(b);
	int cnt = 0;
	int32_t p = r;
	do {
		int s = b->nx[p].sq;
		if (s < b->L.n_sq)
			for (int d = 0; d < 4; d++) {
				int q = cm__nb(b, s, d);
				if (q >= 0 && b->L.sq_kind[q] == CM_SQ_TOWN && b->tile[q] < 0 && b->stamp[q] != ep) {
					b->stamp[q] = ep;
					cnt++;
				}
			}
		p = n[p].next;
	} while (p != r);
	return cnt;
}

void cm__score_feature(cm_board *b, int32_t r, bool final, bool give)
{
	node *nd = &b->nodes[r];
	if (!nd->nfol && !b->want_items) {
		/* most features close without a follower: no points, no
		 * statistics (award_pts counts only points given), no item */
		if (!final)
			nd->flags |= NF_DONE;
		return;
	}
	int points, towns = 0;
	if (nd->kind == CM_FEAT_ROAD) {
		/* MAP-COA: printed coats of arms on roads, 2 in game, 1 at the end */
		points = nd->tiles + (final ? 1 : 2) * nd->arms;
		if (b->rules.town_road_bonus) {
			towns = visible_towns(b, r);
			points += 2 * towns;
		}
	} else if (final) {
		points = nd->tiles + nd->arms;
	} else if (b->rules.tiny_city && nd->tiles == 2) {
		points = 2 + nd->arms;
	} else {
		points = 2 * nd->tiles + 2 * nd->arms;
	}
	unsigned players = nd->nfol ? cm__majority(b->nx[r].fol, b->n_players) : 0;
	if (b->want_items) {
		cm_score_item *it = cm__item(b);
		it->type = CM_ITEM_FEATURE;
		it->kind = (cm_feature_kind)nd->kind;
		it->complete = !final;
		it->tiles = nd->tiles;
		it->arms = nd->arms;
		it->towns = towns;
		it->points = points;
		if (nd->kind == CM_FEAT_ROAD) {
			if (towns)
				it->reason = final ? "incomplete road: 1 per tile, 1 per coat of arms, 2 per visible town"
				                   : "complete road: 1 per tile, 2 per coat of arms, 2 per visible town";
			else
				it->reason = final ? "incomplete road: 1 per tile, 1 per coat of arms"
				                   : "complete road: 1 per tile, 2 per coat of arms";
		} else if (final) {
			it->reason = "incomplete city: 1 per tile, 1 per coat of arms";
		} else if (b->rules.tiny_city && nd->tiles == 2) {
			it->reason = "complete city of 2 tiles (tiny-city): 2, 1 per coat of arms";
		} else {
			it->reason = "complete city: 2 per tile, 2 per coat of arms";
		}
		bool printed = (nd->flags & (NF_PRINT | NF_BIGCITY | NF_FERRY)) != 0;
		if (final)
			it->rule = printed ? "MAP-FINAL" : "BASE-FINAL";
		else if (nd->flags & NF_BIGCITY)
			it->rule = "MAP-BIGCITY-SCORE";
		else if (nd->flags & NF_FERRY)
			it->rule = "MAP-FERRY-SCORE";
		else if (nd->flags & (NF_PRINT | NF_EDGE))
			it->rule = "MAP-EDGE-DONE";
		else
			it->rule = "BASE-SCORE";
		it->players = players;
		cm__item_where(b, r, it);
	}
	if (give)
		award_pts(b, CM_ITEM_FEATURE, nd->kind, points, players, final);
	if (!final) {
		nd->flags |= NF_DONE;
		cm__return_followers(b, r);
	}
}

void cm__score_monastery(cm_board *b, int32_t m, int s, bool final, bool give)
{
	node *nd = &b->nodes[m];
	/* MAP-MONASTERY-EDGE: tiles and printed big-city squares around */
	int tiles = b->L.around8[s] - nd->open;
	unsigned players = nd->nfol ? cm__majority(b->nx[m].fol, b->n_players) : 0;
	if (b->want_items) {
		cm_score_item *it = cm__item(b);
		it->type = CM_ITEM_FEATURE;
		it->kind = (cm_feature_kind)nd->kind;
		it->complete = !final;
		it->tiles = tiles;
		it->points = 1 + tiles;
		bool edge = b->L.around8[s] < 8;
		if (final) {
			it->rule = "BASE-FINAL";
			it->reason = "incomplete monastery: 1, 1 per tile around";
		} else if (edge) {
			it->rule = "MAP-MONASTERY-EDGE";
			it->reason = "complete monastery at the map edge: 1, 1 per tile or big-city square around";
		} else {
			it->rule = "BASE-SCORE";
			it->reason = "complete monastery: 9";
		}
		it->players = players;
		it->x = s % b->L.cols;
		it->y = s / b->L.cols;
		it->feature = b->nx[m].feat;
	}
	if (give)
		award_pts(b, CM_ITEM_FEATURE, nd->kind, 1 + tiles, players, final);
	if (!final) {
		nd->flags |= NF_DONE;
		cm__return_followers(b, m);
	}
}

/* An item for the player who just placed, about the square placed on;
 * arms on the item (MAP-ISLAND). */
static void placer_item(cm_board *b, cm_item_type type, int points, int arms, const char *rule,
                        const char *reason)
{
	if (b->want_items) {
		cm_score_item *it = cm__item(b);
		it->type = type;
		it->points = points;
		it->arms = arms;
		it->players = 1u << b->cur;
		it->x = b->last_sq % b->L.cols;
		it->y = b->last_sq / b->L.cols;
		it->rule = rule;
		it->reason = reason;
	}
	award_pts(b, type, 0, points, 1u << b->cur, false);
}

void cm_board_set_score_hook(cm_board *b, cm_score_hook fn, void *arg)
{
	b->hook = fn;
	b->hook_arg = arg;
}

int cm_board_end_turn(cm_board *b, const cm_score_item **items, size_t *n_out)
{
	int s = b->last_sq;
	if (s < 0)
		return CM_EINVAL;
	b->n_items = 0;
	b->want_items = b->hook || items || n_out;
	node *n = b->nodes;
	if (b->L.island_arms[s])
		placer_item(b, CM_ITEM_ISLAND, 2 * b->L.island_arms[s], b->L.island_arms[s], "MAP-ISLAND",
		            "tile on an island square: 2 per coat of arms");
	bool town = b->L.sq_kind[s] == CM_SQ_TOWN;
	if (town && b->rules.town_cost)
		placer_item(b, CM_ITEM_TOWN_COST, -2, 0, "MAP-TOWN", "tile on a town square (town-cost): -2");
	const type_info *ti = &b->deck->info[b->tile[s]];
	/* the roads and cities the tile completed, in feature order: first
	 * which are (the first NODE_SPARE + 1 pieces whatever the tile's count, without
	 * a branch: cm__put_tile set up its spare pieces, and the mask drops
	 * them), then each scored unless scored just before (two pieces of
	 * one feature); scoring changes no open count */
	int32_t base = b->base[s];
	uint32_t rc = ti->roadcity, closed = 0;
#if defined(__GNUC__)
#pragma GCC unroll 8
#endif
	for (int f = 0; f <= NODE_SPARE; f++) {
		const node *r = &n[cm__find(n, base + f)];
		closed |= (uint32_t)((r->open | (r->flags & NF_DONE)) == 0) << f;
	}
	for (uint32_t m = rc & ~((2u << NODE_SPARE) - 1); m; m &= m - 1) {
		int f = cm__ctz(m);
		const node *r = &n[cm__find(n, base + f)];
		closed |= (uint32_t)((r->open | (r->flags & NF_DONE)) == 0) << f;
	}
	for (closed &= rc; closed; closed &= closed - 1) {
		int32_t r = cm__find(n, base + cm__ctz(closed));
		if (!(n[r].flags & NF_DONE))
			cm__score_feature(b, r, false, true);
	}
	/* ABBEY-PLACE: an abbey completes what it closes on the squares around */
	for (int d = 0; d < 4 && ti->abbey; d++) {
		int q = cm__nb(b, s, d);
		int32_t lo;
		const type_info *qi = q >= 0 ? cm__sq_info(b, q) : NULL;
		int32_t st = cm__side_static(&b->L, s, d);
		if (!qi && st >= 0 && (q < 0 || !(b->sflags[q] & SF_PLAYABLE))) {
			/* a ferry or printed segment at the abbey's side */
			int32_t r = cm__find(n, st);
			if ((n[r].kind == CM_FEAT_ROAD || n[r].kind == CM_FEAT_CITY) && n[r].open == 0 &&
			    !(n[r].flags & NF_DONE))
				cm__score_feature(b, r, false, true);
			continue;
		}
		if (!qi || cm__sq_nodes(b, q, &lo) == 0)
			continue;
		int rq = b->tile[q] >= 0 ? b->rot[q] : 0;
		int f = qi->slot[rq][cm_slot_facing(3 * d + 1)];
		if (qi->kind[f] != CM_FEAT_ROAD && qi->kind[f] != CM_FEAT_CITY)
			continue;
		int32_t r = cm__find(n, lo + f);
		if (n[r].open == 0 && !(n[r].flags & NF_DONE))
			cm__score_feature(b, r, false, true);
	}
	/* monasteries: on the square, and around it when any is (mon_near) */
	if (b->mon[s] >= 0) {
		int32_t m = b->mon[s];
		if (n[m].open == 0 && !(n[m].flags & NF_DONE))
			cm__score_monastery(b, m, s, false, true);
	}
	for (unsigned bits = b->mon_near[s]; bits; bits &= bits - 1) {
		int q = s + b->L.off8[cm__ctz(bits)];
		int32_t m = b->mon[q];
		if (n[m].open == 0 && !(n[m].flags & NF_DONE))
			cm__score_monastery(b, m, q, false, true);
	}
	if (b->n_wait) {
		cm__wagon_order(b, b->cur);
		cm__wagon_settle(b);
	}
	if (town && b->rules.town_extra_turn && !b->extra_taken) {
		b->extra_taken = true; /* MAP-TOWN 1: at most one extra turn per turn */
	} else {
		b->extra_taken = false;
		int next = b->cur + 1;
		b->cur = next & -(next != b->n_players); /* next == n_players ? 0 : next, without a branch */
	}
	b->last_sq = -1;
	b->deployed = false;
	b->stats.turns++;
	if (b->hook)
		b->hook(b->hook_arg, b->items, b->n_items);
	if (items)
		*items = b->items;
	if (n_out)
		*n_out = b->n_items;
	return 0;
}

/* Whether root c is a complete city that farmers count: big cities
 * (NF_BIGCITY) only when big is 0 (farmers-bigcity), a field never.
 * Without a branch: final scoring asks it of random pieces. */
static uint32_t city_counts(const node *n, int32_t c, unsigned big)
{
	return (uint32_t)(n[c].kind == CM_FEAT_CITY) & (uint32_t)(n[c].open == 0) & !(n[c].flags & big);
}

/* field_cities' tally of the nc city pieces in cand, onto cnt: the
 * roots that count, each once (nstamp), and into out[cnt..max) when out
 * is not NULL. No branch per piece: every root looked at is stamped (only
 * cities that count read their stamp) and written to cand, kept when
 * counted (in place: k <= i). */
static int city_tally(const node *n, uint32_t *stamp, uint32_t ep, unsigned big, int32_t *cand, int nc,
                      int cnt, int32_t *out, int max)
{
	int k = 0;
	for (int i = 0; i < nc; i++) {
		int32_t rc = cm__find(n, cand[i]);
		uint32_t c = city_counts(n, rc, big) & (stamp[rc] != ep);
		stamp[rc] = ep;
		cand[k] = rc;
		k += (int)c;
	}
	if (out)
		for (int i = 0; i < k && cnt + i < max; i++)
			out[cnt + i] = cand[i];
	return cnt + k;
}

/* The complete cities a field root touches, each once, in the order met
 * walking the field; their roots into out[0..max) when out is not NULL.
 * The walk lists the city pieces the field's pieces touch and city_tally
 * counts them, 64 or more at a time: a piece's first two (most touch 0 to
 * 2, at random) are listed without a branch, each written and kept when
 * there. */
static int field_cities(cm_board *b, int32_t fr, int32_t *out, int max)
{
	const node *n = b->nodes;
	const node_x *nx = b->nx;
	const int16_t *tile = b->tile;
	const type_info *info = b->deck->info;
	uint32_t *stamp = b->nstamp;
	uint32_t ep = cm__epoch(b);
	unsigned big = b->rules.farmers_bigcity ? 0 : NF_BIGCITY;
	int32_t cand[64 + CM_MAX_FEATURES]; /* 63 and a piece's */
	int nc = 0, cnt = 0;
	int32_t p = fr;
	do {
		if (nc >= 64) {
			cnt = city_tally(n, stamp, ep, big, cand, nc, cnt, out, max);
			nc = 0;
		}
		int s = nx[p].sq, f = nx[p].feat;
		uint32_t t = tile[s] >= 0 ? info[tile[s]].touches[f] : cm__sq_info(b, s)->touches[f];
		int32_t lo = p - f; /* the square's first piece (a field is never a print or ferry) */
		cand[nc] = lo + cm__ctz(t | 0x80000000u);
		nc += t != 0;
		t &= t - 1;
		cand[nc] = lo + cm__ctz(t | 0x80000000u);
		nc += t != 0;
		for (t &= t - 1; t; t &= t - 1)
			cand[nc++] = lo + cm__ctz(t);
		p = n[p].next;
	} while (p != fr);
	return city_tally(n, stamp, ep, big, cand, nc, cnt, out, max);
}

typedef struct {
	int32_t city, field;
} pair;

static int pair_cmp(const void *a, const void *b)
{
	const pair *x = a, *y = b;
	if (x->city != y->city)
		return x->city < y->city ? -1 : 1;
	return (x->field > y->field) - (x->field < y->field);
}

/* C1 farmers: each complete city once, 4 to the majority of the farmers
 * in every field touching it (the occupied features: roots[0..nr)). */
static int farmers_c1(cm_board *b, const int32_t *roots, int nr)
{
	node *n = b->nodes;
	size_t np = 0, cap = 0;
	pair *pv = NULL;
	int32_t *tmp = calloc((size_t)b->max_nodes + 1, sizeof *tmp);
	if (!tmp)
		return CM_ENOMEM;
	for (int ri = 0; ri < nr; ri++) {
		int32_t i = roots[ri];
		if (n[i].kind != CM_FEAT_FIELD)
			continue;
		int k = field_cities(b, i, tmp, b->max_nodes);
		for (int j = 0; j < k; j++) {
			if (np == cap) {
				size_t nc = cap ? 2 * cap : 64;
				pair *v = realloc(pv, nc * sizeof *v);
				if (!v) {
					free(pv);
					free(tmp);
					return CM_ENOMEM;
				}
				pv = v;
				cap = nc;
			}
			pv[np].city = tmp[j];
			pv[np++].field = i;
		}
	}
	free(tmp);
	if (np)
		qsort(pv, np, sizeof *pv, pair_cmp);
	for (size_t i = 0; i < np;) {
		size_t j = i;
		uint8_t tally[CM_MAX_PLAYERS] = { 0 };
		for (; j < np && pv[j].city == pv[i].city; j++)
			for (int p = 0; p < CM_MAX_PLAYERS; p++)
				tally[p] = (uint8_t)(tally[p] + b->nx[pv[j].field].fol[p]); /* fields with farmers */
		unsigned players = cm__majority(tally, b->n_players);
		if (b->want_items) {
			cm_score_item *it = cm__item(b);
			it->type = CM_ITEM_FEATURE;
			it->kind = CM_FEAT_FIELD;
			it->cities = 1;
			it->points = 4;
			it->players = players;
			it->rule = "BASE-FINAL";
			it->reason = "farmers (C1): 4 for a complete city, to the majority of its farmers";
			cm__item_where(b, pv[i].city, it);
		}
		award_pts(b, CM_ITEM_FEATURE, CM_FEAT_FIELD, 4, players, true);
		i = j;
	}
	free(pv);
	return 0;
}

/* The roots of the features with followers (a root has followers
 * exactly when a follower on the board stands on a piece under it): what
 * final scoring visits. Rising, the order of a walk over every node, when
 * the score items are built (their order); else in the followers' order,
 * without a sort to mispredict, as the points and statistics are sums and
 * C1 farmers sort what they award. */
static int occupied_roots(cm_board *b, int32_t *roots, bool sorted)
{
	node *n = b->nodes;
	uint32_t ep = cm__epoch(b);
	int nr = 0;
	for (int i = 0; i < b->n_fol; i++) {
		int32_t r = cm__find(n, b->fol_node[i]);
		if (b->nstamp[r] == ep)
			continue;
		b->nstamp[r] = ep;
		int j = nr++;
		for (; sorted && j > 0 && roots[j - 1] > r; j--)
			roots[j] = roots[j - 1];
		roots[j] = r;
	}
	return nr;
}

int cm_board_final(cm_board *b, const cm_score_item **items, size_t *n_out)
{
	if (b->final_done || b->last_sq >= 0 || b->n_wait)
		return CM_EINVAL;
	b->n_items = 0;
	b->want_items = b->hook || items || n_out;
	/* C1 farmers allocate: on failure the board is left as before, not
	 * half scored (a second call would count the roads and cities twice) */
	int score0[CM_MAX_PLAYERS];
	memcpy(score0, b->score, sizeof score0);
	cm_game_stats stats0 = b->stats;
	node *n = b->nodes;
	int32_t *roots = b->froots;
	int nr = occupied_roots(b, roots, b->want_items);
	for (int ri = 0; ri < nr; ri++) {
		int32_t i = roots[ri];
		if (n[i].flags & NF_DONE)
			continue;
		if ((n[i].kind == CM_FEAT_ROAD || n[i].kind == CM_FEAT_CITY) && n[i].open > 0)
			cm__score_feature(b, i, true, true);
		else if (n[i].kind == CM_FEAT_MONASTERY || n[i].kind == CM_FEAT_ABBEY)
			cm__score_monastery(b, i, b->nx[i].sq, true, true);
	}
	int rc = 0;
	if (b->rules.farmers == CM_FARMERS_C1) {
		rc = farmers_c1(b, roots, nr);
	} else {
		for (int ri = 0; ri < nr; ri++) {
			int32_t i = roots[ri];
			if (n[i].kind != CM_FEAT_FIELD)
				continue;
			int k = field_cities(b, i, NULL, 0);
			unsigned players = cm__majority(b->nx[i].fol, b->n_players); /* i has followers */
			if (b->want_items) {
				cm_score_item *it = cm__item(b);
				it->type = CM_ITEM_FEATURE;
				it->kind = CM_FEAT_FIELD;
				it->cities = k;
				it->points = 3 * k;
				it->players = players;
				it->rule = "BASE-FINAL";
				it->reason = "field: 3 per complete city it touches";
				cm__item_where(b, i, it);
			}
			award_pts(b, CM_ITEM_FEATURE, CM_FEAT_FIELD, 3 * k, players, true);
		}
	}
	if (rc < 0) {
		memcpy(b->score, score0, sizeof score0);
		b->stats = stats0;
		b->n_items = 0;
		return rc;
	}
	b->final_done = true;
	b->log[b->n_log].kind = CM_MOVE_FINAL;
	b->log[b->n_log].player = 0;
	b->log[b->n_log].feature = -1;
	b->n_log++;
	b->stats.squares_filled = b->n_filled;
	for (int p = 0; p < CM_MAX_PLAYERS; p++)
		b->stats.scores[p] = b->score[p];
	if (b->hook)
		b->hook(b->hook_arg, b->items, b->n_items);
	if (items)
		*items = b->items;
	if (n_out)
		*n_out = b->n_items;
	return 0;
}
