/* SPDX-License-Identifier: MIT */
/* test_crc32.c: cm_crc32 (carry-less multiply where the processor has it)
 * against the portable code and zlib on every length to 600 bytes at
 * every alignment, long random inputs split anywhere, the check value of
 * the CRC catalogue, and the folding constants recomputed from the
 * polynomial. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <zlib.h>
#include "base/crc32_int.h"

static uint8_t data[300000];

static void fill(void)
{
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < sizeof data; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (uint8_t)x;
	}
}

static void test_crc32__check_value(void **state)
{
	(void)state;
	assert_int_equal(cm_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(cm_crc32_portable(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(cm_crc32(0, "", 0), 0);
	/* 64 bytes and more take the folding path */
	static const char s[] = "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over it.";
	assert_int_equal(cm_crc32(0, s, sizeof s - 1), (uint32_t)crc32_z(0, (const unsigned char *)s, sizeof s - 1));
}

static void test_crc32__every_length_and_alignment(void **state)
{
	(void)state;
	fill();
	for (size_t len = 0; len <= 600; len++)
		for (size_t off = 0; off < 16; off++) {
			uint32_t want = (uint32_t)crc32_z(0, data + off, len);
			assert_int_equal(cm_crc32(0, data + off, len), want);
			assert_int_equal(cm_crc32_portable(0, data + off, len), want);
			/* continuing a CRC (the starting register is not zero) */
			assert_int_equal(cm_crc32(0x12345678u, data + off, len),
			                 (uint32_t)crc32_z(0x12345678u, data + off, len));
		}
}

static void test_crc32__long_inputs_split_anywhere(void **state)
{
	(void)state;
	fill();
	uint32_t x = 7;
	for (int k = 0; k < 60; k++) {
		x = x * 1664525u + 1013904223u;
		size_t len = x % sizeof data;
		x = x * 1664525u + 1013904223u;
		size_t cut = len ? x % len : 0;
		uint32_t want = (uint32_t)crc32_z(0, data, len);
		assert_int_equal(cm_crc32(0, data, len), want);
		assert_int_equal(cm_crc32(cm_crc32(0, data, cut), data + cut, len - cut), want);
	}
	assert_int_equal(cm_crc32(0, data, sizeof data), (uint32_t)crc32_z(0, data, sizeof data));
}

/* x^n mod P (P = x^32 + 0x04C11DB7), bit-reversed and shifted left by one:
 * the folding constants crc32.c names. */
static uint64_t constant(int n)
{
	uint64_t r = 1;
	for (int i = 0; i < n; i++) {
		r <<= 1;
		if (r >> 32 & 1)
			r ^= 0x104C11DB7ull;
	}
	uint64_t v = 0;
	for (int i = 0; i < 32; i++)
		if (r >> i & 1)
			v |= 1ull << (31 - i);
	return v << 1;
}

static void test_crc32__folding_constants(void **state)
{
	(void)state;
	assert_true(constant(512 + 32) == 0x154442bd4ull);
	assert_true(constant(512 - 32) == 0x1c6e41596ull);
	assert_true(constant(128 + 32) == 0x1751997d0ull);
	assert_true(constant(128 - 32) == 0x0ccaa009eull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32__check_value),
		cmocka_unit_test(test_crc32__every_length_and_alignment),
		cmocka_unit_test(test_crc32__long_inputs_split_anywhere),
		cmocka_unit_test(test_crc32__folding_constants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
