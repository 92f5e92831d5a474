/* SPDX-License-Identifier: MIT */
/* rng.c: the engine's PRNG (carcamap/rng.h): SplitMix64 seeding and
 * xoshiro256**. Written from the published algorithm descriptions; the
 * constants are the algorithms' own. */
#include "carcamap/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void cm_rng_seed(cm_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t v, int k)
{
	return (v << k) | (v >> (64 - k));
}

uint64_t cm_rng_next(cm_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint32_t cm_rng_below(cm_rng *r, uint32_t n)
{
	if (n <= 1)
		return 0;
	uint64_t m = (cm_rng_next(r) >> 32) * (uint64_t)n;
	uint32_t low = (uint32_t)m;
	if (low < n) {
		uint32_t floor = (uint32_t)(-n) % n; /* 2^32 mod n */
		while (low < floor) {
			m = (cm_rng_next(r) >> 32) * (uint64_t)n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}
