/* SPDX-License-Identifier: MIT */
/* play.c: random play (carcamap/play.h): whole games with uniformly chosen
 * placements and follower spots, abbeys and wagon moves when the game has
 * them, for map statistics and the benchmark; and the random player
 * (carcamap/player.h), which makes the same choices one at a time, so a
 * game of random seats is random play's. Uses only the turn API's fast
 * paths; no allocation during a game. */
#include <stdlib.h>
#include <string.h>
#include "carcamap/player.h"
#include "engine/board_int.h"
#include "engine/engine.h"
#include "engine/rng_int.h"
#include "base/cpu_int.h"

/* The k-th rotation (rising) in a mask of legal rotations. */
static const uint8_t kth_rot[16][4] = {
	{ 0 }, { 0 }, { 1 }, { 0, 1 }, { 2 }, { 0, 2 }, { 1, 2 }, { 0, 1, 2 },
	{ 3 }, { 0, 3 }, { 1, 3 }, { 0, 1, 3 }, { 2, 3 }, { 0, 2, 3 }, { 1, 2, 3 }, { 0, 1, 2, 3 },
};

/* The frontier scan of random play with SSSE3 (x86): 16 requirement bytes
 * at a time, each split into its nibbles, looked up in the fit table's
 * halves (pshufb) and intersected, the rotation masks counted by a third
 * lookup; the same counts as rotcnt, so the same games. Elsewhere, and on
 * a processor without SSSE3 (base/cpu_int.h) or built with -DCM_NO_SIMD,
 * the scalar scan below. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(CM_NO_SIMD)
#include <tmmintrin.h>
#define SCAN16 1

/* The halves of a fit table that fits16 looks up. */
typedef struct {
	__m128i ne, sw;
} fit_halves;

__attribute__((target("ssse3"))) static inline fit_halves halves16(const uint8_t *fit)
{
	fit_halves h = { _mm_load_si128((const __m128i *)(const void *)(fit + 512)),
		         _mm_load_si128((const __m128i *)(const void *)(fit + 528)) };
	return h;
}

__attribute__((target("ssse3"))) static inline __m128i fits16(fit_halves h, const uint8_t *fr)
{
	const __m128i nib = _mm_set1_epi8(0x0f);
	const __m128i pc = _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)fr);
	__m128i lo = _mm_shuffle_epi8(h.ne, _mm_and_si128(v, nib));
	__m128i hi = _mm_shuffle_epi8(h.sw, _mm_and_si128(_mm_srli_epi16(v, 4), nib));
	return _mm_shuffle_epi8(pc, _mm_and_si128(lo, hi));
}

/* The legal placements on the nf frontier entries fr: per entry into cnt
 * (for pick16), running totals per block of 16 into blk (blk[j]: in
 * blocks 0..j; blk[-1] is 0); returns the total. Only the last block
 * masks its lanes past nf. */
__attribute__((target("ssse3"))) static inline uint32_t scan16(const uint8_t *fit, const uint8_t *fr, int nf,
                                                                uint32_t *blk, uint8_t *cnt)
{
	const fit_halves h = halves16(fit);
	uint32_t total = 0;
	int j = 0;
	for (; j < nf >> 4; j++) {
		__m128i c = fits16(h, fr + 16 * j);
		_mm_storeu_si128((__m128i *)(void *)(cnt + 16 * j), c);
		__m128i sad = _mm_sad_epu8(c, _mm_setzero_si128());
		total += (uint32_t)_mm_cvtsi128_si32(sad) + (uint32_t)_mm_extract_epi16(sad, 4);
		blk[j] = total;
	}
	/* the rest, none when nf is a multiple of 16 (no test of that to
	 * mispredict: fr and cnt have 15 spare entries) */
	const __m128i lane = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__m128i c = _mm_and_si128(fits16(h, fr + 16 * j), _mm_cmpgt_epi8(_mm_set1_epi8((char)(nf & 15)), lane));
	_mm_storeu_si128((__m128i *)(void *)(cnt + 16 * j), c);
	__m128i sad = _mm_sad_epu8(c, _mm_setzero_si128());
	total += (uint32_t)_mm_cvtsi128_si32(sad) + (uint32_t)_mm_extract_epi16(sad, 4);
	blk[j] = total;
	return total;
}

/* The entry holding the k-th legal placement (k below scan16's total,
 * over nf entries, its counts in cnt), and in *rest its rank among that
 * entry's rotations. */
__attribute__((target("ssse3"))) static inline int pick16(const uint8_t *cnt, int nf, const uint32_t *blk,
                                                          uint32_t k, uint32_t *rest)
{
	/* the block: those whose running total is at most k counted, not
	 * searched (which block is a coin toss; how many there are changes
	 * slowly) */
	int j = 0;
	for (int i = 0; i < (nf - 1) >> 4; i++)
		j += blk[i] <= k;
	k -= blk[j - 1]; /* blk[-1] is 0 */
	/* running counts in the block (at most 64 a byte); the first lane
	 * past k (lanes past the end count nothing) */
	__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(cnt + 16 * j));
	c = _mm_add_epi8(c, _mm_slli_si128(c, 1));
	c = _mm_add_epi8(c, _mm_slli_si128(c, 2));
	c = _mm_add_epi8(c, _mm_slli_si128(c, 4));
	c = _mm_add_epi8(c, _mm_slli_si128(c, 8));
	int l = cm__ctz((unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(c, _mm_set1_epi8((char)k))));
	uint8_t run[17] = { 0 }; /* run[l]: the count before lane l */
	_mm_storeu_si128((__m128i *)(void *)(run + 1), c);
	*rest = k - run[l];
	return 16 * j + l;
}
#endif

/* Step 3: deploy a meeple or the wagon, or nothing. The spots are those
 * of cm_board_spots for a meeple, then for the wagon (in feature order);
 * drawn only when there is one and the draw deploys (the draws are the
 * same). */
static CM__INLINE void deploy_random(cm_board *b, cm_rng *rng)
{
	int s = b->last_sq;
	bool meeple = b->supply[b->cur] > 0, wagon = b->rules.wagons && b->wagons[b->cur] > 0;
	if (!meeple && !wagon)
		return;
	const type_info *ti = &b->deck->info[b->tile[s]];
	const node *nd = b->nodes;
	int32_t base = b->base[s];
	/* the first spot of either kind (a wagon's are a meeple's too) */
	uint32_t t = meeple ? ti->spot_meeple : ti->spot_wagon;
	for (; t; t &= t - 1)
		if (!nd[cm__find(nd, base + cm__ctz(t))].nfol)
			break;
	if (!t || cm__rng_below(rng, 100) >= CM_PLAY_DEPLOY_PERCENT)
		return;
	/* the spots from there on, listed without a branch per feature */
	uint32_t mm = meeple ? ti->spot_meeple : 0, wm = wagon ? ti->spot_wagon : 0;
	int8_t ml[CM_MAX_FEATURES], wl[CM_MAX_FEATURES];
	int f = cm__ctz(t);
	ml[0] = wl[0] = (int8_t)f;
	uint32_t n = (mm >> f) & 1, m = (wm >> f) & 1;
	for (t &= t - 1; t; t &= t - 1) {
		f = cm__ctz(t);
		uint32_t fr = nd[cm__find(nd, base + f)].nfol == 0;
		ml[n] = (int8_t)f;
		n += fr & (mm >> f);
		wl[m] = (int8_t)f;
		m += fr & (wm >> f);
	}
	uint32_t k = cm__rng_below(rng, n + m);
	bool wg = k >= n;
	f = (wg ? wl : ml)[wg ? k - n : k];
	cm__deploy_free(b, f, wg ? CM_FOLLOWER_WAGON : CM_FOLLOWER_MEEPLE, cm__find(nd, base + f));
}

/* Step 4: each waiting wagon to a destination or back to the supply. */
static void move_wagons(cm_board *b, cm_rng *rng)
{
	while (b->n_wait) {
		uint32_t k = (uint32_t)cm__wagon_dests(b, NULL, 0, -1);
		uint32_t c = cm__rng_below(rng, k + 1);
		cm_wagon_dest d = { .feature = -1 };
		if (c < k)
			cm__wagon_dests(b, &d, 1, (long)c);
		cm_board_wagon_move(b, d.x, d.y, c < k ? d.feature : -1);
	}
}

/* An abbey turn on the nth abbey square (frontier order). */
static void abbey_turn(cm_board *b, cm_rng *rng, int nth)
{
	int s = cm__abbey_front(b, nth);
	cm_board_place_abbey(b, s % b->L.cols, s / b->L.cols);
	deploy_random(b, rng);
	cm_board_end_turn(b, NULL, NULL);
	move_wagons(b, rng);
}

/* The turns of random play till the pile is empty. Inlined into two
 * copies, simd a constant in each: the SSSE3 one (play_turns16) inlines
 * scan16 and pick16, which a function built for any x86 may not, and
 * keeps no test of simd in the turn; the other has the scalar scan. */
static CM__INLINE void play_turns(cm_board *b, cm_rng *rng, const bool simd)
{
	while (b->pile_top < b->pile_n) {
		int t = b->pile[b->pile_top];
		const uint8_t *rc = b->deck->info[t].fit; /* rotcnt, then rotmask */
		const uint8_t *fr = b->front_req;
		int nf = b->n_front;
		/* one pass over the frontier's requirements counts the legal
		 * placements, keeping the running counts (or the blocks' counts)
		 * for the choice; the draw, the count and the choice of
		 * cm_board_draw, cm_board_placements and a walk would take three */
		uint32_t *cum = b->front_cum, total = 0;
		cum[0] = 0; /* before scan16's first block */
		int i = 0;
#ifdef SCAN16
		if (simd)
			total = scan16(rc, fr, nf, cum + 1, b->front_fit);
#endif
		if (!simd) {
			/* four at a time, past the end into the arrays' spare
			 * entries (no tail loop to mispredict); sums past nf
			 * are never read */
			uint32_t run = 0;
			for (; i < nf; i += 4) {
				uint32_t c0 = run + rc[fr[i]], c1 = c0 + rc[fr[i + 1]];
				uint32_t c2 = c1 + rc[fr[i + 2]], c3 = c2 + rc[fr[i + 3]];
				cum[i] = c0;
				cum[i + 1] = c1;
				cum[i + 2] = c2;
				cum[i + 3] = c3;
				run = c3;
			}
			total = nf ? cum[nf - 1] : 0;
		}
		if (total == 0) {
			cm_board_put_aside(b, t); /* BASE-PLACE: put aside, draw again */
			continue;
		}
		if (b->abbeys[b->cur]) { /* step 1: the abbey instead of drawing */
			int k = cm__abbey_front(b, -1);
			if (k && cm__rng_below(rng, 100) < CM_PLAY_ABBEY_PERCENT) {
				abbey_turn(b, rng, (int)cm__rng_below(rng, (uint32_t)k));
				continue;
			}
		}
		/* the k-th legal placement in frontier order, rotations rising */
		uint32_t k = cm__rng_below(rng, total);
		i = 0;
#ifdef SCAN16
		if (simd)
			i = pick16(b->front_fit, nf, cum + 1, k, &k);
#endif
		if (!simd) {
			/* the first i with k < cum[i], by halving without
			 * branches (the comparisons are random, so a branch
			 * would be mispredicted) */
			for (int len = nf; len > 1;) {
				int half = len >> 1;
				i += cum[i + half - 1] <= k ? half : 0;
				len -= half;
			}
			if (i)
				k -= cum[i - 1];
		}
		int s = b->front[i];
		cm__place_drawn(b, t, s, kth_rot[rc[256 + fr[i]]][k]);
		deploy_random(b, rng);
		cm_board_end_turn(b, NULL, NULL);
		if (b->n_wait)
			move_wagons(b, rng);
	}
}

#ifdef SCAN16
__attribute__((target("ssse3"))) static void play_turns16(cm_board *b, cm_rng *rng)
{
	play_turns(b, rng, true);
}
#endif

static void play_turns1(cm_board *b, cm_rng *rng)
{
	play_turns(b, rng, false);
}

int cm__board_play_random_cpu(cm_board *b, cm_rng *rng, unsigned cpu)
{
	if (b->last_sq >= 0 || b->final_done || b->n_wait)
		return CM_EINVAL;
#ifdef SCAN16
	if (cpu & CM_CPU_SSSE3)
		play_turns16(b, rng);
	else
#endif
		play_turns1(b, rng);
	(void)cpu;
	/* players still holding an abbey may place it at the end */
	for (int i = 0, p = b->cur, np = b->n_players; i < np; i++, p = (p + 1) % np) {
		if (!b->abbeys[p])
			continue;
		cm_board_set_current(b, p);
		int k = cm__abbey_front(b, -1);
		if (k)
			abbey_turn(b, rng, (int)cm__rng_below(rng, (uint32_t)k));
	}
	return cm_board_final(b, NULL, NULL);
}

int cm_board_play_random(cm_board *b, cm_rng *rng)
{
	return cm__board_play_random_cpu(b, rng, cm_cpu_features());
}

/* ---- the random player: random play's choices one at a time ---- */

static int popcount32(uint32_t m)
{
	int n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

/* The k-th set bit of m (k below its count). */
static int kth_bit(uint32_t m, int k)
{
	while (k--)
		m &= m - 1;
	return cm__ctz(m);
}

/* Step 3 for tile type t not yet placed, whose features free_mask would
 * be unoccupied: deploy_random's draws over the same spots (a meeple's,
 * then the wagon's, each in feature order). */
static void random_follower(const cm_board *b, int t, uint32_t free_mask, cm_rng *rng, cm_choice *c)
{
	const type_info *ti = &b->deck->info[t];
	uint32_t mm = b->supply[b->cur] > 0 ? ti->spot_meeple & free_mask : 0;
	uint32_t wm = b->rules.wagons && b->wagons[b->cur] > 0 ? ti->spot_wagon & free_mask : 0;
	int n = popcount32(mm), m = popcount32(wm);
	c->feature = -1;
	c->follower = CM_FOLLOWER_MEEPLE;
	if (n + m == 0 || cm__rng_below(rng, 100) >= CM_PLAY_DEPLOY_PERCENT)
		return;
	int k = (int)cm__rng_below(rng, (uint32_t)(n + m));
	if (k < n) {
		c->feature = kth_bit(mm, k);
	} else {
		c->feature = kth_bit(wm, k - n);
		c->follower = CM_FOLLOWER_WAGON;
	}
}

/* An abbey on the nth abbey square (frontier order), and its follower. */
static void random_abbey(const cm_board *b, int nth, cm_rng *rng, cm_choice *c)
{
	int s = cm__abbey_front(b, nth);
	c->kind = CM_CHOICE_ABBEY;
	c->x = s % b->L.cols;
	c->y = s / b->L.cols;
	random_follower(b, b->abbey_type, UINT32_MAX, rng, c);
}

static int random_choose(cm_player *self, const cm_board *b, int tile, cm_rng *rng, cm_choice *c)
{
	(void)self;
	memset(c, 0, sizeof *c);
	c->feature = -1;
	if (b->n_wait) { /* step 4 */
		uint32_t k = (uint32_t)cm__wagon_dests(b, NULL, 0, -1);
		uint32_t pick = cm__rng_below(rng, k + 1);
		c->kind = CM_CHOICE_WAGON;
		c->x = c->y = -1;
		if (pick < k) {
			cm_wagon_dest d;
			cm__wagon_dests(b, &d, 1, (long)pick);
			c->x = d.x;
			c->y = d.y;
			c->feature = d.feature;
		}
		return 0;
	}
	if (tile < 0) {
		/* the abbey question: before a draw (step 1: the abbey instead
		 * of drawing, with random play's draws) or after the last tile
		 * (an abbey where one goes) */
		int k = cm__abbey_front(b, -1);
		c->kind = CM_CHOICE_PASS;
		if (k && (b->pile_top == b->pile_n || cm__rng_below(rng, 100) < CM_PLAY_ABBEY_PERCENT))
			random_abbey(b, (int)cm__rng_below(rng, (uint32_t)k), rng, c);
		return 0;
	}
	/* step 2: the k-th legal placement in frontier order, rotations rising */
	const uint8_t *rc = b->deck->info[tile].fit, *fr = b->front_req;
	uint32_t total = 0;
	for (int i = 0; i < b->n_front; i++)
		total += rc[fr[i]];
	if (total == 0)
		return CM_EINVAL; /* not a drawn tile: cm_board_draw skips those */
	uint32_t k = cm__rng_below(rng, total);
	int i = 0;
	for (; k >= rc[fr[i]]; i++)
		k -= rc[fr[i]];
	int s = b->front[i], r = kth_rot[rc[256 + fr[i]]][k];
	c->kind = CM_CHOICE_TILE;
	c->x = s % b->L.cols;
	c->y = s / b->L.cols;
	c->rot = r;
	random_follower(b, tile, cm__free_if(b, tile, s, r), rng, c);
	return 0;
}

static void random_free(cm_player *self)
{
	free(self);
}

int cm_player_new_random(cm_player **out)
{
	*out = NULL;
	cm_player *p = calloc(1, sizeof *p);
	if (!p)
		return CM_ENOMEM;
	p->choose = random_choose;
	p->free = random_free;
	p->name = "random";
	*out = p;
	return 0;
}

bool cm__player_is_random(const cm_player *p)
{
	return p && p->choose == random_choose;
}
