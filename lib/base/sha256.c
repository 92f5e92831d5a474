/* SPDX-License-Identifier: MIT */
/* sha256.c: SHA-256 as specified in FIPS 180-4 (sha256_int.h). Portable C:
 * big-endian loads and stores are done byte by byte, so the result does not
 * depend on the host's byte order. */
#include <stdbool.h>
#include <string.h>
#include "base/cpu_int.h"
#include "base/sha256_int.h"
#if defined(__x86_64__) && defined(__GNUC__) && !defined(CM_NO_SIMD)
#include <immintrin.h>
#define HAVE_SHA_NI 1
#endif

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

#define BSIG0(x) (ror(x, 2) ^ ror(x, 13) ^ ror(x, 22))
#define BSIG1(x) (ror(x, 6) ^ ror(x, 11) ^ ror(x, 25))
#define SSIG0(x) (ror(x, 7) ^ ror(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (ror(x, 17) ^ ror(x, 19) ^ ((x) >> 10))
/* One round with the working variables renamed instead of moved: eight
 * rounds bring them back to their places. */
#define ROUND(a, b, c, d, e, f, g, h, i)                                              \
	do {                                                                          \
		uint32_t t1 = h + BSIG1(e) + (g ^ (e & (f ^ g))) + K[i] + w[(i) & 15]; \
		d += t1;                                                              \
		h = t1 + BSIG0(a) + ((a & b) | (c & (a | b)));                         \
	} while (0)
/* The message schedule in a window of 16 words, computed as the rounds
 * need it. */
#define SCHED(i) (w[(i) & 15] += SSIG1(w[((i) - 2) & 15]) + w[((i) - 7) & 15] + SSIG0(w[((i) - 15) & 15]))

static void block(uint32_t h[8], const uint8_t p[64])
{
	uint32_t w[16];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (int i = 0; i < 64; i += 8) {
		if (i >= 16)
			for (int j = i; j < i + 8; j++)
				SCHED(j);
		ROUND(a, b, c, d, e, f, g, k, i);
		ROUND(k, a, b, c, d, e, f, g, i + 1);
		ROUND(g, k, a, b, c, d, e, f, i + 2);
		ROUND(f, g, k, a, b, c, d, e, i + 3);
		ROUND(e, f, g, k, a, b, c, d, i + 4);
		ROUND(d, e, f, g, k, a, b, c, i + 5);
		ROUND(c, d, e, f, g, k, a, b, i + 6);
		ROUND(b, c, d, e, f, g, k, a, i + 7);
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += k;
}

static void blocks_c(uint32_t h[8], const uint8_t *p, size_t n)
{
	for (; n; n--, p += 64)
		block(h, p);
}

#ifdef HAVE_SHA_NI
/* The same compression with the x86 SHA extensions (when the processor
 * has them: cpuid leaf 7, EBX bit 29). The state is kept as the
 * instructions want it: ABEF in one register, CDGH in the other.
 * SHA256RNDS2 does two rounds with the two words of W+K in the low half
 * of its third operand; SHA256MSG1 and SHA256MSG2 extend the message
 * schedule four words at a time. The 16 groups of four rounds are written
 * out (NI_GROUP) so that the four schedule registers stay in registers:
 * the rounds are one chain of 32 dependent SHA256RNDS2, which is what
 * bounds the speed (looping over the groups with the schedule in an
 * array ran at 2/3 of this speed). */
/* Group g (0..15) of four rounds. w0..w3 hold W[4g-16..4g-1] oldest first
 * on entry, from group 4 on; w0 becomes W[4g..4g+3]:
 * W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], where MSG1 adds
 * s0(W[t-15]) to W[t-16], the alignr supplies W[t-7] and MSG2 adds
 * s1(W[t-2]) (for the upper two words from the two it has just made). */
#define NI_GROUP(w0, w1, w2, w3, g)                                                              \
	do {                                                                                     \
		if ((g) >= 4)                                                                     \
			w0 = _mm_sha256msg2_epu32(                                                \
			        _mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), _mm_alignr_epi8(w3, w2, 4)), w3); \
		__m128i wk = _mm_add_epi32(w0, _mm_loadu_si128((const __m128i *)(const void *)&K[4 * (g)])); \
		cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);                                    \
		abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));           \
	} while (0)
/* (each SHA256RNDS2 returns the new ABEF; the old ABEF is the new CDGH, so
 * the two variables swap roles twice and end where they began) */

__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_ni(uint32_t h[8], const uint8_t *p, size_t n)
{
	/* bytes of each 32-bit word reversed: the message words are big-endian */
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	/* lanes are named from the highest: h[0..3] loads as D C B A */
	__m128i x = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&h[0]), 0xB1); /* C D A B */
	__m128i y = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&h[4]), 0x1B); /* E F G H */
	__m128i abef = _mm_alignr_epi8(x, y, 8);   /* A B E F */
	__m128i cdgh = _mm_blend_epi16(y, x, 0xF0); /* C D G H */
	for (; n; n--, p += 64) {
		const __m128i abef0 = abef, cdgh0 = cdgh;
		__m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), bswap);
		__m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), bswap);
		__m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 32)), bswap);
		__m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 48)), bswap);
		NI_GROUP(w0, w1, w2, w3, 0);
		NI_GROUP(w1, w2, w3, w0, 1);
		NI_GROUP(w2, w3, w0, w1, 2);
		NI_GROUP(w3, w0, w1, w2, 3);
		NI_GROUP(w0, w1, w2, w3, 4);
		NI_GROUP(w1, w2, w3, w0, 5);
		NI_GROUP(w2, w3, w0, w1, 6);
		NI_GROUP(w3, w0, w1, w2, 7);
		NI_GROUP(w0, w1, w2, w3, 8);
		NI_GROUP(w1, w2, w3, w0, 9);
		NI_GROUP(w2, w3, w0, w1, 10);
		NI_GROUP(w3, w0, w1, w2, 11);
		NI_GROUP(w0, w1, w2, w3, 12);
		NI_GROUP(w1, w2, w3, w0, 13);
		NI_GROUP(w2, w3, w0, w1, 14);
		NI_GROUP(w3, w0, w1, w2, 15);
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}
	x = _mm_shuffle_epi32(abef, 0x1B); /* F E B A */
	y = _mm_shuffle_epi32(cdgh, 0xB1); /* D C H G */
	_mm_storeu_si128((__m128i *)(void *)&h[0], _mm_blend_epi16(x, y, 0xF0)); /* D C B A */
	_mm_storeu_si128((__m128i *)(void *)&h[4], _mm_alignr_epi8(y, x, 8));   /* H G F E */
}
#undef NI_GROUP

static bool has_sha_ni(void)
{
	const unsigned need = CM_CPU_SHA | CM_CPU_SSE41 | CM_CPU_SSSE3;
	return (cm_cpu_features() & need) == need;
}
#endif

void cm_sha256_init(cm_sha256 *c)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(c->h, iv, sizeof iv);
	c->len = 0;
	c->n = 0;
	c->blocks = blocks_c;
#ifdef HAVE_SHA_NI
	if (has_sha_ni())
		c->blocks = blocks_ni;
#endif
}

void cm_sha256_init_portable(cm_sha256 *c)
{
	cm_sha256_init(c);
	c->blocks = blocks_c;
}

void cm_sha256_update(cm_sha256 *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	c->len += len;
	if (c->n) {
		size_t k = 64 - c->n < len ? 64 - c->n : len;
		memcpy(c->buf + c->n, p, k);
		c->n += k;
		p += k;
		len -= k;
		if (c->n < 64)
			return;
		c->blocks(c->h, c->buf, 1);
		c->n = 0;
	}
	c->blocks(c->h, p, len / 64);
	p += len / 64 * 64;
	len %= 64;
	memcpy(c->buf, p, len);
	c->n = len;
}

void cm_sha256_final(cm_sha256 *c, uint8_t out[32])
{
	uint64_t bits = c->len * 8;
	c->buf[c->n++] = 0x80;
	if (c->n > 56) {
		memset(c->buf + c->n, 0, 64 - c->n);
		c->blocks(c->h, c->buf, 1);
		c->n = 0;
	}
	memset(c->buf + c->n, 0, 56 - c->n);
	for (int i = 0; i < 8; i++)
		c->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	c->blocks(c->h, c->buf, 1);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void cm_sha256_buf(const void *data, size_t len, uint8_t out[32])
{
	cm_sha256 c;
	cm_sha256_init(&c);
	cm_sha256_update(&c, data, len);
	cm_sha256_final(&c, out);
}
