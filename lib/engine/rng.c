/* SPDX-License-Identifier: MIT */
/* rng.c: the engine's PRNG (carcamap/rng.h): SplitMix64 seeding and
 * xoshiro256**. Written from the published algorithm descriptions; the
 * constants are the algorithms' own. The steps are inline in rng_int.h. */
#include "engine/rng_int.h"

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

uint64_t cm_rng_next(cm_rng *r)
{
	return cm__rng_next(r);
}

uint32_t cm_rng_below(cm_rng *r, uint32_t n)
{
	return cm__rng_below(r, n);
}
