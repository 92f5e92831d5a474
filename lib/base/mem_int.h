/* SPDX-License-Identifier: MIT */
/* mem_int.h: eight bytes of a byte array as one word, for the passes over
 * a million squares that skip runs of alike squares a word at a time (the
 * engine's layout and reachability walk, the validator's fits). Portable
 * C: memcpy loads, no alignment needed. */
#ifndef CM_MEM_INT_H
#define CM_MEM_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Byte v in each of a word's eight bytes. */
#define CM_BYTES8(v) (0x0101010101010101ull * (uint64_t)(v))

/* The eight bytes at p (any alignment) as one word. */
static inline uint64_t cm_load8(const uint8_t *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return x;
}

/* Whether some byte of x is v (the bytes equal to v become zero bytes,
 * and a zero byte sets its top bit in (y - 1) & ~y). */
static inline bool cm_has_byte8(uint64_t x, uint8_t v)
{
	uint64_t y = x ^ CM_BYTES8(v);
	return ((y - CM_BYTES8(1)) & ~y & CM_BYTES8(0x80)) != 0;
}

#endif
