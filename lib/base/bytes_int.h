/* SPDX-License-Identifier: MIT */
/* bytes_int.h: kernels over a million bytes (a big map's grid): characters
 * to values through a small character set, and two byte arrays merged
 * into pairs; 16 bytes a step with SSSE3 where the processor has it. Each
 * kernel takes the processor features it may use (cpu: cm_cpu_features(),
 * base/cpu_int.h; 0 runs the portable code, as the tests do beside the
 * fast one). */
#ifndef CM_BYTES_INT_H
#define CM_BYTES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A character set of at most 16 characters, each with a value below 0x80;
 * any other byte maps to 0xFF. */
typedef struct {
	uint8_t tab[256];   /* value of each byte, 0xFF for bytes outside the set */
	uint8_t hchar[16];  /* by hash: the character with that hash (or one with another) */
	uint8_t hval[16];   /* by hash: its value */
	int shift;          /* the hash (c ^ c >> shift) & 15 is one-to-one on the set; 0: none found */
} cm_charmap;

/* chars[i] has value vals[i] (n at most 16, values below 0x80). */
void cm_charmap_init(cm_charmap *m, const char *chars, const uint8_t *vals, size_t n);
/* dst[i] = the value of src[i] for i < n; false when some src[i] is outside
 * the set (dst is then unspecified: m->tab says which). */
bool cm_charmap_decode(const cm_charmap *m, const unsigned char *src, uint8_t *dst, size_t n, unsigned cpu);
/* out[2i] = a[i], out[2i+1] = b[i] for i < n. */
void cm_bytes_interleave(const uint8_t *a, const uint8_t *b, uint8_t *out, size_t n, unsigned cpu);
/* The run of pairs at the start of pairs[0..2n) whose second byte is 0 and
 * first below 16: out[i] = tab[pairs[2i]] for each; returns its length. */
size_t cm_bytes_pairs_run(const uint8_t *pairs, size_t n, const uint8_t tab[16], uint8_t *out, unsigned cpu);

#endif
