/* SPDX-License-Identifier: MIT */
/* test_bytes.c: the byte kernels (base/bytes_int.h) with the processor's
 * instructions and without: a grid's characters decoded to their values,
 * every byte outside the set caught wherever it lies, two arrays merged
 * into pairs, and runs of pairs found, at every length to 100 and on a
 * million bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes_int.h"
#include "base/cpu_int.h"

/* The features each kernel runs with: the processor's, then none (the
 * portable code). */
#define CPU_WAYS(portable) ((portable) ? 0u : cm_cpu_features())

static const char kinds[] = ".#STB~LIH"; /* the square kinds' characters */

static void init_kinds(cm_charmap *m)
{
	uint8_t v[sizeof kinds - 1];
	for (size_t i = 0; i < sizeof v; i++)
		v[i] = (uint8_t)i;
	cm_charmap_init(m, kinds, v, sizeof v);
}

/* Both ways, decoding n bytes of src gives want (all in the set) or false. */
static void decode_both(const cm_charmap *m, const unsigned char *src, size_t n, bool valid)
{
	uint8_t *dst = malloc(n + 1);
	assert_non_null(dst);
	for (int portable = 0; portable < 2; portable++) {
		memset(dst, 0xAA, n + 1);
		assert_int_equal(cm_charmap_decode(m, src, dst, n, CPU_WAYS(portable)), valid);
		if (valid)
			for (size_t i = 0; i < n; i++)
				assert_int_equal(dst[i], (uint8_t)(strchr(kinds, src[i]) - kinds));
		assert_int_equal(dst[n], 0xAA); /* nothing written past n */
	}
	free(dst);
}

static void test_bytes__charmap_finds_a_hash(void **state)
{
	(void)state;
	cm_charmap m;
	init_kinds(&m);
	assert_int_not_equal(m.shift, 0); /* the 16-byte path is taken for the grid's set */
	for (int c = 0; c < 256; c++) {
		const char *k = c ? strchr(kinds, c) : NULL;
		assert_int_equal(m.tab[c], k ? (uint8_t)(k - kinds) : 0xFF);
	}
	/* 17 characters: no hash, the table alone */
	cm_charmap big;
	uint8_t v[17] = { 0 };
	cm_charmap_init(&big, "abcdefghijklmnopq", v, 17);
	assert_int_equal(big.shift, 0);
}

static void test_bytes__decode_every_length_and_bad_byte(void **state)
{
	(void)state;
	cm_charmap m;
	init_kinds(&m);
	unsigned char src[100];
	uint32_t x = 1;
	for (size_t n = 0; n <= sizeof src; n++) {
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			src[i] = (unsigned char)kinds[(x >> 16) % 9];
		}
		decode_both(&m, src, n, true);
		/* one byte outside the set at each place, of several kinds: a
		 * byte with the hash of a set member, a high byte, NUL, newline */
		static const unsigned char bad[] = { '#' ^ 0x40, 0x80 | '#', 0xFF, 0, '\n', 'A', 'h' };
		for (size_t at = 0; at < n; at++)
			for (size_t b = 0; b < sizeof bad; b++) {
				unsigned char keep = src[at];
				src[at] = bad[b];
				decode_both(&m, src, n, false);
				src[at] = keep;
			}
	}
	/* every byte value alone at the start of a 32-byte run */
	memset(src, '#', 32);
	for (int c = 0; c < 256; c++) {
		src[0] = (unsigned char)c;
		decode_both(&m, src, 32, c && strchr(kinds, c));
	}
}

static void test_bytes__decode_a_million(void **state)
{
	(void)state;
	cm_charmap m;
	init_kinds(&m);
	size_t n = 1000003;
	unsigned char *src = malloc(n);
	assert_non_null(src);
	uint32_t x = 99;
	for (size_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		src[i] = (unsigned char)kinds[(x >> 20) % 9];
	}
	decode_both(&m, src, n, true);
	src[n - 1] = '?';
	decode_both(&m, src, n, false);
	free(src);
}

static void test_bytes__interleave(void **state)
{
	(void)state;
	size_t max = 70000;
	uint8_t *a = malloc(max), *b = malloc(max), *out = malloc(2 * max + 1);
	assert_true(a && b && out);
	for (size_t i = 0; i < max; i++) {
		a[i] = (uint8_t)(i * 7);
		b[i] = (uint8_t)(i * 13 + 1);
	}
	for (size_t n = 0; n <= max; n = n < 100 ? n + 1 : n * 3 + 1) {
		for (int portable = 0; portable < 2; portable++) {
			memset(out, 0x55, 2 * max + 1);
			cm_bytes_interleave(a, b, out, n, CPU_WAYS(portable));
			for (size_t i = 0; i < n; i++) {
				assert_int_equal(out[2 * i], a[i]);
				assert_int_equal(out[2 * i + 1], b[i]);
			}
			assert_int_equal(out[2 * n], 0x55);
		}
	}
	free(a);
	free(b);
	free(out);
}

/* The run of pairs with a zero second byte and a first below 16, its first
 * bytes mapped: ended by a second byte or a first byte of 16 anywhere. */
static void test_bytes__pairs_run(void **state)
{
	(void)state;
	const uint8_t tab[16] = "0123456789abcdef";
	uint8_t pairs[2 * 100], out[101];
	for (size_t n = 0; n <= 100; n++)
		for (size_t stop = 0; stop <= n; stop++)
			for (int how = 0; how < 3; how++) {
				for (size_t i = 0; i < n; i++) {
					pairs[2 * i] = (uint8_t)((i * 7) % 16);
					pairs[2 * i + 1] = 0;
				}
				if (stop < n) { /* the pair that ends the run */
					if (how == 0)
						pairs[2 * stop + 1] = 0x40;
					else if (how == 1)
						pairs[2 * stop] = 16;
					else
						pairs[2 * stop + 1] = 1;
				}
				for (int portable = 0; portable < 2; portable++) {
					memset(out, 'x', sizeof out);
					assert_int_equal(cm_bytes_pairs_run(pairs, n, tab, out, CPU_WAYS(portable)), stop);
					for (size_t i = 0; i < stop; i++)
						assert_int_equal(out[i], tab[pairs[2 * i]]);
				}
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes__charmap_finds_a_hash),
		cmocka_unit_test(test_bytes__decode_every_length_and_bad_byte),
		cmocka_unit_test(test_bytes__decode_a_million),
		cmocka_unit_test(test_bytes__interleave),
		cmocka_unit_test(test_bytes__pairs_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
