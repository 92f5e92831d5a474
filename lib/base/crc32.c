/* SPDX-License-Identifier: MIT */
/* crc32.c: CRC-32 (crc32_int.h). Portable: eight bytes a step through
 * eight tables (slicing by 8; base uses no dependency, so not zlib's). On
 * x86-64 with PCLMULQDQ (cpuid leaf 1, ECX bit 1; not with -DCM_NO_SIMD),
 * inputs of 64 bytes or more are folded 64 bytes at a time with carry-less
 * multiplies, and the last 16 folded bytes and the tail finished by the
 * portable code. */
#include <pthread.h>
#include <stdbool.h>
#include "base/cpu_int.h"
#include "base/crc32_int.h"
#if defined(__x86_64__) && defined(__GNUC__) && !defined(CM_NO_SIMD)
#include <immintrin.h>
#define HAVE_CLMUL 1
#endif

/* tab[0][b]: the register after byte b from a zero register (the
 * reflected polynomial 0xEDB88320); tab[k][b] the same followed by k zero
 * bytes, so that eight bytes are eight independent look-ups */
static uint32_t tab[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void tab_init(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
		tab[0][b] = c;
	}
	for (int k = 1; k < 8; k++)
		for (int b = 0; b < 256; b++)
			tab[k][b] = (tab[k - 1][b] >> 8) ^ tab[0][tab[k - 1][b] & 0xFF];
}

uint32_t cm_crc32_portable(uint32_t crc, const void *data, size_t n)
{
	pthread_once(&tab_once, tab_init);
	const unsigned char *p = data;
	uint32_t c = ~crc;
	for (; n && ((uintptr_t)p & 7); n--, p++)
		c = (c >> 8) ^ tab[0][(c ^ *p) & 0xFF];
	for (; n >= 8; n -= 8, p += 8) {
		/* the bytes in order whatever the host's byte order */
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		c = tab[7][lo & 0xFF] ^ tab[6][lo >> 8 & 0xFF] ^ tab[5][lo >> 16 & 0xFF] ^ tab[4][lo >> 24] ^
		    tab[3][p[4]] ^ tab[2][p[5]] ^ tab[1][p[6]] ^ tab[0][p[7]];
	}
	for (; n; n--, p++)
		c = (c >> 8) ^ tab[0][(c ^ *p) & 0xFF];
	return ~c;
}

#ifdef HAVE_CLMUL
/* The arithmetic (the bit-reflected form zlib computes in): the bytes
 * read so far, with the starting register XORed into their first four,
 * are a polynomial M over GF(2), the first bit read its highest term, and
 * the register is M x^32 mod P (P = 0x104C11DB7). A 16-byte lane X whose
 * bytes are followed by D more bits contributes X x^D; with X split into
 * its first eight bytes H (the higher terms) and last eight L,
 * X x^D = H x^(D+64) + L x^D, and modulo P each half multiplies a 32-bit
 * constant: the result, below 96 bits, is a lane D bits further on, and
 * is XORed into the bytes there. Reflected, a 64x33-bit carry-less
 * product lands one bit off, so the constants are the bit-reversed
 * remainders x^(D+32) mod P and x^(D-32) mod P shifted left by one
 * (test_crc32 computes them from P). */
#define K_512_HI 0x154442bd4ull /* x^(512+32) mod P: the first half of a lane, 64 bytes on */
#define K_512_LO 0x1c6e41596ull /* x^(512-32) mod P: its second half */
#define K_128_HI 0x1751997d0ull /* x^(128+32) mod P: 16 bytes on */
#define K_128_LO 0x0ccaa009eull /* x^(128-32) mod P */

/* x carried D bits on, for the constants k (first half's in the low
 * 64 bits), XORed into the lane there, d */
__attribute__((target("pclmul,sse2"))) static inline __m128i fold(__m128i x, __m128i k, __m128i d)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d);
}

__attribute__((target("pclmul,sse2"))) static uint32_t crc_clmul(uint32_t crc, const unsigned char *p, size_t n)
{
	const __m128i k512 = _mm_set_epi64x((long long)K_512_LO, (long long)K_512_HI);
	const __m128i k128 = _mm_set_epi64x((long long)K_128_LO, (long long)K_128_HI);
	__m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
	__m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)~crc)); /* the starting register */
	p += 64;
	n -= 64;
	for (; n >= 64; n -= 64, p += 64) {
		x0 = fold(x0, k512, _mm_loadu_si128((const __m128i *)(const void *)p));
		x1 = fold(x1, k512, _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
		x2 = fold(x2, k512, _mm_loadu_si128((const __m128i *)(const void *)(p + 32)));
		x3 = fold(x3, k512, _mm_loadu_si128((const __m128i *)(const void *)(p + 48)));
	}
	x0 = fold(x0, k128, x1);
	x0 = fold(x0, k128, x2);
	x0 = fold(x0, k128, x3);
	for (; n >= 16; n -= 16, p += 16)
		x0 = fold(x0, k128, _mm_loadu_si128((const __m128i *)(const void *)p));
	/* the 16 bytes left stand for everything read: their CRC from a zero
	 * register (zlib's crc argument 0xFFFFFFFF), then the tail */
	unsigned char last[16];
	_mm_storeu_si128((__m128i *)(void *)last, x0);
	return cm_crc32_portable(cm_crc32_portable(0xFFFFFFFFu, last, 16), p, n);
}

static bool have_clmul(void)
{
	return (cm_cpu_features() & CM_CPU_PCLMUL) != 0; /* SSE2: every x86-64 */
}
#endif

uint32_t cm_crc32(uint32_t crc, const void *p, size_t n)
{
#ifdef HAVE_CLMUL
	if (n >= 64 && have_clmul())
		return crc_clmul(crc, p, n);
#endif
	return cm_crc32_portable(crc, p, n);
}
