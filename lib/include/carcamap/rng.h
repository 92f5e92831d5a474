/* SPDX-License-Identifier: MIT */
/* carcamap/rng.h: the engine's own seeded pseudo-random generator, so games
 * are identical on every platform and C library: xoshiro256** (Blackman and
 * Vigna, 2018), its 256-bit state filled from the 64-bit seed by SplitMix64.
 * Never rand(), never time.
 * Threads: a generator belongs to one thread at a time. */
#ifndef CARCAMAP_RNG_H
#define CARCAMAP_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Plain state so callers can keep one on the stack; treat it as opaque. */
typedef struct {
	uint64_t s[4];
} cm_rng;

/* Seeds r: s[0..3] are four successive SplitMix64 outputs from seed. */
void cm_rng_seed(cm_rng *r, uint64_t seed);
/* The next 64 random bits (xoshiro256**). */
uint64_t cm_rng_next(cm_rng *r);
/* A uniform integer in [0, n) for n >= 1, without modulo bias (Lemire's
 * multiply-and-reject on the high 32 bits of cm_rng_next). n == 0 gives 0. */
uint32_t cm_rng_below(cm_rng *r, uint32_t n);

#ifdef __cplusplus
}
#endif
#endif
