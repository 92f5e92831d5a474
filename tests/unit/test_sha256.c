/* SPDX-License-Identifier: MIT */
/* test_sha256.c: SHA-256 against the FIPS 180-4 / NIST example vectors,
 * and incremental updates split at every offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "base/sha256_int.h"

static void hex(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void check(const char *msg, const char *want)
{
	uint8_t d[32];
	char h[65];
	cm_sha256_buf(msg, strlen(msg), d);
	hex(d, h);
	assert_string_equal(h, want);
}

static void test_sha256__nist_vectors(void **state)
{
	(void)state;
	check("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
	      "klmnopqrlmnopqrsmnopqrstnopqrstu",
	      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* Messages of 'a' whose padding sits at the edge of a block: 55 bytes
 * leave room for the 0x80 byte and the length in their one block, 56 do
 * not (NIST's 56-byte vector above has the same length as the second);
 * 63, 64 and 119 around the next edges. */
static void test_sha256__padding_edges(void **state)
{
	(void)state;
	static const struct {
		size_t n;
		const char *want;
	} v[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
	};
	char msg[120];
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		memset(msg, 'a', v[i].n);
		msg[v[i].n] = 0;
		check(msg, v[i].want);
	}
}

static void test_sha256__million_a(void **state)
{
	(void)state;
	static char a[1000];
	memset(a, 'a', sizeof a);
	cm_sha256 c;
	cm_sha256_init(&c);
	for (int i = 0; i < 1000; i++)
		cm_sha256_update(&c, a, sizeof a);
	uint8_t d[32];
	char h[65];
	cm_sha256_final(&c, d);
	hex(d, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Splitting the input anywhere (around the 55/56/64-byte padding edges too)
 * gives the same digest as hashing it in one piece. */
static void test_sha256__split_updates(void **state)
{
	(void)state;
	char msg[200];
	for (size_t i = 0; i < sizeof msg; i++)
		msg[i] = (char)('A' + i % 26);
	for (size_t len = 0; len <= sizeof msg; len += 1) {
		uint8_t want[32], got[32];
		cm_sha256_buf(msg, len, want);
		for (size_t cut = 0; cut <= len; cut += 7) {
			cm_sha256 c;
			cm_sha256_init(&c);
			cm_sha256_update(&c, msg, cut);
			cm_sha256_update(&c, msg + cut, len - cut);
			cm_sha256_final(&c, got);
			assert_memory_equal(got, want, 32);
		}
	}
}

/* The portable compression and the processor's (when it has the SHA
 * extensions) agree on a million bytes of varied data, and the portable
 * one on the million-a vector. */
static void test_sha256__portable_and_native_agree(void **state)
{
	(void)state;
	static uint8_t data[1000003];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof data; i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (uint8_t)(x >> 16);
	}
	uint8_t a[32], b[32];
	cm_sha256 c;
	cm_sha256_init(&c);
	cm_sha256_update(&c, data, sizeof data);
	cm_sha256_final(&c, a);
	cm_sha256_init_portable(&c);
	cm_sha256_update(&c, data, sizeof data);
	cm_sha256_final(&c, b);
	assert_memory_equal(a, b, 32);
	static char m[1000];
	memset(m, 'a', sizeof m);
	cm_sha256_init_portable(&c);
	for (int i = 0; i < 1000; i++)
		cm_sha256_update(&c, m, sizeof m);
	char h[65];
	cm_sha256_final(&c, a);
	hex(a, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Both compressions on every length from 0 to 300 bytes (one, two and
 * more blocks, every padding case) and on random lengths and split points
 * up to 200 KB: the digests agree. */
static void test_sha256__both_on_random_lengths(void **state)
{
	(void)state;
	static uint8_t data[200000];
	uint32_t x = 987654321u;
	for (size_t i = 0; i < sizeof data; i++) {
		x = x * 1664525u + 1013904223u;
		data[i] = (uint8_t)(x >> 24);
	}
	for (size_t len = 0; len <= 300; len++) {
		uint8_t a[32], b[32];
		cm_sha256 c;
		cm_sha256_init(&c);
		cm_sha256_update(&c, data + len, len);
		cm_sha256_final(&c, a);
		cm_sha256_init_portable(&c);
		cm_sha256_update(&c, data + len, len);
		cm_sha256_final(&c, b);
		assert_memory_equal(a, b, 32);
	}
	for (int k = 0; k < 40; k++) {
		x = x * 1664525u + 1013904223u;
		size_t len = x % sizeof data;
		x = x * 1664525u + 1013904223u;
		size_t cut = len ? x % len : 0;
		uint8_t a[32], b[32];
		cm_sha256 c;
		cm_sha256_init(&c);
		cm_sha256_update(&c, data, cut);
		cm_sha256_update(&c, data + cut, len - cut);
		cm_sha256_final(&c, a);
		cm_sha256_init_portable(&c);
		cm_sha256_update(&c, data, len);
		cm_sha256_final(&c, b);
		assert_memory_equal(a, b, 32);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256__nist_vectors),
		cmocka_unit_test(test_sha256__padding_edges),
		cmocka_unit_test(test_sha256__million_a),
		cmocka_unit_test(test_sha256__portable_and_native_agree),
		cmocka_unit_test(test_sha256__split_updates),
		cmocka_unit_test(test_sha256__both_on_random_lengths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
