/* SPDX-License-Identifier: MIT */
/* bytes.c: byte kernels (bytes_int.h). Portable loops, and on x86-64 with
 * SSSE3 (checked at run time; not with -DCM_NO_SIMD) 16 bytes a step: a
 * character's value by PSHUFB from a 4-bit hash of it, the character of
 * that hash compared with it to catch bytes outside the set. */
#include <string.h>
#include "base/bytes_int.h"
#include "base/cpu_int.h"
#if defined(__x86_64__) && defined(__GNUC__) && !defined(CM_NO_SIMD)
#include <immintrin.h>
#define HAVE_SSSE3 1
#endif

static unsigned hash(unsigned c, int shift)
{
	return (c ^ c >> shift) & 15u;
}

void cm_charmap_init(cm_charmap *m, const char *chars, const uint8_t *vals, size_t n)
{
	memset(m->tab, 0xFF, sizeof m->tab);
	for (size_t i = 0; i < n && i < 16; i++)
		m->tab[(unsigned char)chars[i]] = vals[i];
	m->shift = 0;
	if (n == 0 || n > 16)
		return;
	for (int s = 1; s < 8 && !m->shift; s++) {
		uint16_t used = 0;
		bool ok = true;
		for (size_t i = 0; i < n && ok; i++) {
			unsigned h = hash((unsigned char)chars[i], s);
			ok = !(used >> h & 1u) && vals[i] < 0x80;
			used = (uint16_t)(used | 1u << h);
		}
		if (!ok)
			continue;
		m->shift = s;
		/* a free hash holds a character of the set: its own hash is
		 * another, so no byte with the free hash equals it */
		for (int h = 0; h < 16; h++) {
			m->hchar[h] = (uint8_t)chars[0];
			m->hval[h] = 0xFF;
		}
		for (size_t i = 0; i < n; i++) {
			unsigned h = hash((unsigned char)chars[i], s);
			m->hchar[h] = (uint8_t)chars[i];
			m->hval[h] = vals[i];
		}
	}
}

#ifdef HAVE_SSSE3
__attribute__((target("ssse3"))) static size_t decode16(const cm_charmap *m, const unsigned char *src, uint8_t *dst,
                                                         size_t n, bool *bad)
{
	const __m128i hc = _mm_loadu_si128((const __m128i *)(const void *)m->hchar);
	const __m128i hv = _mm_loadu_si128((const __m128i *)(const void *)m->hval);
	const __m128i low = _mm_set1_epi8(15), top = _mm_set1_epi8((char)(0xFF >> m->shift));
	const __m128i sh = _mm_cvtsi32_si128(m->shift);
	__m128i miss = _mm_setzero_si128();
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
		/* c >> shift per byte: a 16-bit shift, the bits from the next byte masked off */
		__m128i h = _mm_and_si128(_mm_xor_si128(c, _mm_and_si128(_mm_srl_epi16(c, sh), top)), low);
		miss = _mm_or_si128(miss, _mm_xor_si128(_mm_cmpeq_epi8(_mm_shuffle_epi8(hc, h), c), _mm_set1_epi8(-1)));
		_mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_shuffle_epi8(hv, h));
	}
	*bad = _mm_movemask_epi8(miss) != 0;
	return i;
}

__attribute__((target("ssse3"))) static size_t interleave16(const uint8_t *a, const uint8_t *b, uint8_t *out, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		_mm_storeu_si128((__m128i *)(void *)(out + 2 * i), _mm_unpacklo_epi8(x, y));
		_mm_storeu_si128((__m128i *)(void *)(out + 2 * i + 16), _mm_unpackhi_epi8(x, y));
	}
	return i;
}

__attribute__((target("ssse3"))) static size_t pairs16(const uint8_t *pairs, size_t n, const uint8_t tab[16], uint8_t *out)
{
	const __m128i t = _mm_loadu_si128((const __m128i *)(const void *)tab);
	/* the bits of a pair that must be clear: a first byte of 16 or more, any second byte */
	const __m128i off = _mm_set1_epi16((short)0xFFF0);
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(pairs + 2 * i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(pairs + 2 * i + 16));
		__m128i x = _mm_and_si128(_mm_or_si128(a, b), off);
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())) != 0xFFFF)
			break;
		/* the first bytes, packed: the second bytes are zero */
		_mm_storeu_si128((__m128i *)(void *)(out + i), _mm_shuffle_epi8(t, _mm_packus_epi16(a, b)));
	}
	return i;
}


/* Whether the kernels may take their SSSE3 path with features cpu. */
static bool simd(unsigned cpu)
{
	return (cpu & CM_CPU_SSSE3) != 0;
}
#endif

bool cm_charmap_decode(const cm_charmap *m, const unsigned char *src, uint8_t *dst, size_t n, unsigned cpu)
{
	size_t i = 0;
	bool bad = false;
	(void)cpu;
#ifdef HAVE_SSSE3
	if (m->shift && simd(cpu))
		i = decode16(m, src, dst, n, &bad);
#endif
	uint8_t acc = 0;
	for (; i < n; i++)
		acc |= dst[i] = m->tab[src[i]];
	return !bad && !(acc & 0x80);
}

size_t cm_bytes_pairs_run(const uint8_t *pairs, size_t n, const uint8_t tab[16], uint8_t *out, unsigned cpu)
{
	size_t i = 0;
	(void)cpu;
#ifdef HAVE_SSSE3
	if (simd(cpu))
		i = pairs16(pairs, n, tab, out);
#endif
	for (; i < n && !pairs[2 * i + 1] && pairs[2 * i] < 16; i++)
		out[i] = tab[pairs[2 * i]];
	return i;
}

void cm_bytes_interleave(const uint8_t *a, const uint8_t *b, uint8_t *out, size_t n, unsigned cpu)
{
	size_t i = 0;
	(void)cpu;
#ifdef HAVE_SSSE3
	if (simd(cpu))
		i = interleave16(a, b, out, n);
#endif
	for (; i < n; i++) {
		out[2 * i] = a[i];
		out[2 * i + 1] = b[i];
	}
}
