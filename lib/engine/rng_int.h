/* SPDX-License-Identifier: MIT */
/* rng_int.h: the engine's PRNG steps (xoshiro256**, multiply-and-reject)
 * as inline functions, so random play and the pile shuffle draw without a
 * call per number. rng.c's public functions are these, so the sequences
 * are one and the same. */
#ifndef CM_RNG_INT_H
#define CM_RNG_INT_H

#include "carcamap/rng.h"

static inline uint64_t cm__rotl(uint64_t v, int k)
{
	return (v << k) | (v >> (64 - k));
}

static inline uint64_t cm__rng_next(cm_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = cm__rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = cm__rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n): the high 32 bits times n, rejecting the low part
 * below 2^32 mod n. n <= 1 gives 0 and draws nothing. */
static inline uint32_t cm__rng_below(cm_rng *r, uint32_t n)
{
	if (n <= 1)
		return 0;
	uint64_t m = (cm__rng_next(r) >> 32) * (uint64_t)n;
	uint32_t low = (uint32_t)m;
	if (low < n) {
		uint32_t floor = (uint32_t)(-n) % n; /* 2^32 mod n */
		while (low < floor) {
			m = (cm__rng_next(r) >> 32) * (uint64_t)n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

#endif
