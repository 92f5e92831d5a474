/* SPDX-License-Identifier: MIT */
/* test_cmap_reader.c: the client reader lib/reader/cmap.c (built into this
 * program, as a client would) against bad input: one table of patches to a
 * valid file, each naming the error it must give; every prefix of a file;
 * every byte flipped with checksums repaired (the sanitizer build proves
 * that nothing is read out of bounds); an unknown section of a later minor
 * version is skipped; strings that are not UTF-8 are refused. The client
 * helpers (names, slots and rotation, edge prints by square,
 * cmap_open_file) agree with libcarcamap's own. The valid file comes from
 * libcarcamap's writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "carcamap/export.h"
#include "carcamap/map.h"
#include "carcamap/rules.h"
#include "carcamap/tile.h"
#include "util_files.h"
#include "../../lib/reader/cmap.c"

/* 3x2 with a name, a marker, an island with a title and a label: every
 * string kind. */
static unsigned char *valid_file(size_t *len)
{
	cm_map *m;
	assert_int_equal(cm_map_new(3, 2, &m), 0);
	m->id = strdup("tiny");
	m->name = strdup("Tiny");
	for (int i = 0; i < 6; i++)
		m->squares[i].kind = CM_SQ_LAND;
	assert_int_equal(cm_map_set_square_name(m, 0, 0, "Aachen"), 0);
	assert_int_equal(cm_map_add_square_marker(m, 1, 0, "chip"), 0);
	m->islands = calloc(1, sizeof *m->islands);
	m->islands[0].name = strdup("Isle");
	m->islands[0].title = strdup("Isle of Tests");
	m->n_islands = 1;
	m->squares[5].kind = CM_SQ_ISLAND;
	m->squares[5].island = 0;
	m->squares[2].print[CM_N].kind = CM_PRINT_ROAD;
	assert_int_equal(cm_map_set_print_label(m, 2, 0, CM_N, "north"), 0);
	unsigned char *bin;
	assert_int_equal(cm_export_bin(m, NULL, 0, &bin, len), 0);
	cm_map_free(m);
	return bin;
}

static uint32_t get32(const unsigned char *p)
{
	return rd32(p);
}

static void put32le(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Table entry of a tag, or NULL. */
static unsigned char *entry(unsigned char *b, const char *tag)
{
	for (uint32_t i = 0; i < get32(b + 16); i++) {
		unsigned char *e = b + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		if (memcmp(e, tag, 4) == 0)
			return e;
	}
	return NULL;
}

/* Recomputes every section's CRC and the table's, as a writer would. */
static void fix_crcs(unsigned char *b, size_t len)
{
	uint32_t n = get32(b + 16);
	if (n > (len - HEADER_SIZE) / ENTRY_SIZE)
		return; /* a table past the file: nothing to repair */
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = b + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		uint32_t off = get32(e + 4), l = get32(e + 8);
		if (off <= len && l <= len - off)
			put32le(e + 12, crc32_of(b + off, l));
	}
	put32le(b + 20, crc32_of(b + HEADER_SIZE, (size_t)n * ENTRY_SIZE));
}

/* ---- the bad-input table ---- */

enum { V_ABS, V_FILE_LEN, V_SEC_LEN }; /* what a patch value is relative to */

typedef struct {
	const char *name;
	const char *where;  /* "hdr", "tab:TAG" (its table entry) or a section tag */
	int32_t off;        /* byte offset in it; negative: from the end of the section */
	int width;          /* 1 or 4 bytes */
	int base;           /* V_* */
	int64_t value;      /* added to the base */
	int fix;            /* recompute checksums after patching */
	int want;
} patch;

static const patch patches[] = {
	{ "wrong magic", "hdr", 0, 1, V_ABS, 'X', 1, CMAP_EMAGIC },
	{ "newer major version", "hdr", 8, 1, V_ABS, 2, 1, CMAP_EVERSION },
	{ "major version 0", "hdr", 8, 1, V_ABS, 0, 1, CMAP_EVERSION },
	{ "declared size past the buffer", "hdr", 12, 4, V_FILE_LEN, 1, 1, CMAP_ETRUNC },
	{ "declared size below the header", "hdr", 12, 4, V_ABS, 8, 1, CMAP_EFORMAT },
	{ "section table past the file", "hdr", 16, 4, V_ABS, 0x10000000, 1, CMAP_EBOUNDS },
	{ "section table checksum", "hdr", 20, 1, V_ABS, 0x5A, 0, CMAP_ECRC },
	{ "section checksum", "SQRS", 8, 1, V_ABS, 0x77, 0, CMAP_ECRC },
	{ "string table checksum", "STRS", 1, 1, V_ABS, 'Z', 0, CMAP_ECRC },
	{ "section offset past the file", "tab:META", 4, 4, V_FILE_LEN, 0, 1, CMAP_EBOUNDS },
	{ "section length past the file", "tab:DECK", 8, 4, V_ABS, 0x7FFFFFFF, 1, CMAP_EBOUNDS },
	{ "section offset wraps around", "tab:FERY", 4, 4, V_ABS, 0xFFFFFFF0, 1, CMAP_EBOUNDS },
	{ "record count overflows", "SQRS", 0, 4, V_ABS, 0x80000000, 1, CMAP_ECOUNT },
	{ "record count past the section", "ISLD", 0, 4, V_ABS, 2, 1, CMAP_ECOUNT },
	{ "record size below 1.0", "PRNT", 4, 4, V_ABS, 8, 1, CMAP_EFORMAT },
	{ "record size zero", "MRKS", 4, 4, V_ABS, 0, 1, CMAP_EFORMAT },
	{ "no META record", "META", 0, 4, V_ABS, 0, 1, CMAP_EFORMAT },
	{ "square count differs from the grid", "META", 8 + 8, 4, V_ABS, 4, 1, CMAP_EFORMAT },
	{ "duplicate section", "tab:ISLD", 0, 4, V_ABS, 0x59524546 /* FERY */, 1, CMAP_EFORMAT },
	{ "required section missing", "tab:RULE", 0, 1, V_ABS, 'r', 1, CMAP_EMISSING },
	{ "string offset past the table", "META", 8 + 4, 4, V_SEC_LEN, 0, 1, CMAP_ESTRREF },
	{ "label offset past the table", "PRNT", 8 + 8, 4, V_ABS, 0x7FFFFFF0, 1, CMAP_ESTRREF },
	{ "island title offset past the table", "ISLD", 8 + 4, 4, V_ABS, 0x7FFFFFF0, 1, CMAP_ESTRREF },
	{ "string table not terminated", "STRS", -1, 1, V_ABS, 'x', 1, CMAP_ESTRTERM },
	{ "island index out of range", "SQRS", 8 + 8, 4, V_ABS, 1, 1, CMAP_EREF },
	{ "marker range wraps around", "SQRS", 8 + 20 + 16, 4, V_ABS, 0xFFFFFFFF, 1, CMAP_EREF },
	{ "print off the grid", "PRNT", 8 + 0, 4, V_ABS, 3, 1, CMAP_EREF },
	{ "square kind out of range", "SQRS", 8, 1, V_ABS, 9, 1, CMAP_EVALUE },
	{ "print side out of range", "PRNT", 8 + 4, 1, V_ABS, 4, 1, CMAP_EVALUE },
	{ "edition out of range", "RULE", 8 + 16, 1, V_ABS, 3, 1, CMAP_EVALUE },
	/* STRS starts with the empty string, then the map's id "tiny" */
	{ "a byte that is never UTF-8", "STRS", 2, 1, V_ABS, 0xFF, 1, CMAP_EUTF8 },
	{ "a lead byte without its continuation", "STRS", 2, 1, V_ABS, 0xC3, 1, CMAP_EUTF8 },
	{ "a stray continuation byte", "STRS", 2, 1, V_ABS, 0x80, 1, CMAP_EUTF8 },
	{ "an overlong form", "STRS", 1, 1, V_ABS, 0xC0, 1, CMAP_EUTF8 },
	{ "a sequence cut by the final NUL", "STRS", -2, 1, V_ABS, 0xE2, 1, CMAP_EUTF8 },
};

static void apply(unsigned char *b, size_t len, const patch *p)
{
	unsigned char *at;
	uint32_t sec_len = 0;
	if (strcmp(p->where, "hdr") == 0) {
		at = b;
	} else if (strncmp(p->where, "tab:", 4) == 0) {
		at = entry(b, p->where + 4);
		assert_non_null(at);
	} else {
		unsigned char *e = entry(b, p->where);
		assert_non_null(e);
		at = b + get32(e + 4);
		sec_len = get32(e + 8);
	}
	if (p->off < 0)
		at += sec_len;
	at += p->off;
	int64_t v = p->value + (p->base == V_FILE_LEN ? (int64_t)len : 0) +
	            (p->base == V_SEC_LEN ? (int64_t)get32(entry(b, "STRS") + 8) : 0);
	if (p->width == 1)
		*at = (unsigned char)v;
	else
		put32le(at, (uint32_t)v);
	if (p->fix)
		fix_crcs(b, len);
}

static void test_cmap_reader__each_bad_input_has_its_error(void **state)
{
	(void)state;
	size_t len;
	unsigned char *good = valid_file(&len);
	cmap_map *m;
	assert_int_equal(cmap_open(good, len, &m), 0);
	cmap_close(m);
	for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
		unsigned char *b = malloc(len);
		assert_non_null(b);
		memcpy(b, good, len);
		apply(b, len, &patches[i]);
		m = (cmap_map *)b; /* must be reset to NULL */
		int rc = cmap_open(b, len, &m);
		if (rc != patches[i].want)
			fail_msg("%s: got %d (%s), want %d (%s)", patches[i].name, rc, cmap_strerror(rc),
			         patches[i].want, cmap_strerror(patches[i].want));
		assert_null(m);
		free(b);
	}
	free(good);
}

/* Every code has its own text. */
static void test_cmap_reader__error_texts_are_distinct(void **state)
{
	(void)state;
	for (int a = CMAP_EUTF8; a <= 0; a++) {
		assert_string_not_equal(cmap_strerror(a), "unknown error");
		for (int b = a + 1; b <= 0; b++)
			assert_string_not_equal(cmap_strerror(a), cmap_strerror(b));
	}
}

static void test_cmap_reader__every_prefix_is_truncated(void **state)
{
	(void)state;
	size_t len;
	unsigned char *good = valid_file(&len);
	for (size_t n = 0; n < len; n++) {
		/* a copy of exactly n bytes, so that the sanitizer sees any overread */
		unsigned char *b = malloc(n ? n : 1);
		assert_non_null(b);
		memcpy(b, good, n);
		cmap_map *m;
		assert_int_equal(cmap_open(b, n, &m), CMAP_ETRUNC);
		free(b);
	}
	free(good);
}

/* Any byte changed, checksums repaired: an error or a map, never a crash or
 * a read outside the buffer; the accessors of an accepted map stay inside. */
static void test_cmap_reader__flipped_bytes_never_read_outside(void **state)
{
	(void)state;
	size_t len;
	unsigned char *good = valid_file(&len);
	static const unsigned char flips[] = { 0xFF, 0x80, 0x01 };
	size_t accepted = 0;
	for (size_t i = 0; i < len; i++)
		for (size_t f = 0; f < sizeof flips; f++) {
			unsigned char *b = malloc(len);
			assert_non_null(b);
			memcpy(b, good, len);
			b[i] ^= flips[f];
			if (i >= HEADER_SIZE)
				fix_crcs(b, len);
			cmap_map *m;
			int rc = cmap_open(b, len, &m);
			assert_true(rc <= 0 && rc >= CMAP_EUTF8 && rc != CMAP_EIO);
			if (rc == 0) {
				accepted++;
				for (uint32_t y = 0; y < cmap_rows(m); y++)
					for (uint32_t x = 0; x < cmap_cols(m); x++) {
						cmap_square q;
						const char *s;
						assert_int_equal(cmap_get_square(m, x, y, &q), 0);
						if (q.name)
							assert_true(strlen(q.name) < len);
						for (uint32_t k = 0; k < q.n_markers; k++)
							assert_int_equal(cmap_get_marker(m, q.first_marker + k, &s), 0);
					}
				cmap_close(m);
			}
			free(b);
		}
	assert_true(accepted > 0); /* some bytes are free text: flips there are fine */
	free(good);
}

/* A later minor version may add sections: they are skipped. */
static void test_cmap_reader__unknown_section_is_skipped(void **state)
{
	(void)state;
	size_t len;
	unsigned char *good = valid_file(&len);
	uint32_t n = get32(good + 16);
	static const unsigned char extra[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	size_t len2 = len + ENTRY_SIZE + sizeof extra;
	unsigned char *b = calloc(1, len2);
	assert_non_null(b);
	/* header and table, one more entry, then the old sections moved by one entry */
	size_t table_end = HEADER_SIZE + (size_t)n * ENTRY_SIZE;
	memcpy(b, good, table_end);
	memcpy(b + table_end + ENTRY_SIZE, good + table_end, len - table_end);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = b + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		put32le(e + 4, get32(e + 4) + ENTRY_SIZE);
	}
	unsigned char *e = b + table_end;
	memcpy(e, "XTRA", 4);
	put32le(e + 4, (uint32_t)(len + ENTRY_SIZE));
	put32le(e + 8, sizeof extra);
	memcpy(b + len + ENTRY_SIZE, extra, sizeof extra);
	b[10] = 7; /* version 1.7 */
	put32le(b + 12, (uint32_t)len2);
	put32le(b + 16, n + 1);
	fix_crcs(b, len2);
	cmap_map *m;
	assert_int_equal(cmap_open(b, len2, &m), 0);
	unsigned major, minor;
	cmap_version(m, &major, &minor);
	assert_int_equal(major, 1);
	assert_int_equal(minor, 7);
	assert_string_equal(cmap_id(m), "tiny");
	cmap_square q;
	assert_int_equal(cmap_get_square(m, 0, 0, &q), 0);
	assert_string_equal(q.name, "Aachen");
	cmap_close(m);
	free(b);
	free(good);
}

/* A valid file with n_extra more table entries of unknown tag, all naming
 * one blob of blob_len bytes after the old sections. */
static unsigned char *with_blob(size_t n_extra, size_t blob_len, size_t *len_out)
{
	size_t len;
	unsigned char *good = valid_file(&len);
	uint32_t n = get32(good + 16);
	size_t len2 = len + n_extra * ENTRY_SIZE + blob_len;
	unsigned char *b = calloc(1, len2);
	assert_non_null(b);
	size_t table_end = HEADER_SIZE + (size_t)n * ENTRY_SIZE, shift = n_extra * ENTRY_SIZE;
	memcpy(b, good, table_end);
	memcpy(b + table_end + shift, good + table_end, len - table_end);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = b + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		put32le(e + 4, get32(e + 4) + (uint32_t)shift);
	}
	memset(b + len + shift, 0xA5, blob_len);
	/* the old entries keep their CRCs (their bytes only moved); the blob
	 * is checksummed once here, not once per entry */
	uint32_t blob_crc = crc32_of(b + len + shift, blob_len);
	for (size_t i = 0; i < n_extra; i++) {
		unsigned char *e = b + table_end + i * ENTRY_SIZE;
		memcpy(e, "XTRA", 4);
		put32le(e + 4, (uint32_t)(len + shift));
		put32le(e + 8, (uint32_t)blob_len);
		put32le(e + 12, blob_crc);
	}
	put32le(b + 12, (uint32_t)len2);
	put32le(b + 16, n + (uint32_t)n_extra);
	put32le(b + 20, crc32_of(b + HEADER_SIZE, (size_t)(n + n_extra) * ENTRY_SIZE));
	free(good);
	*len_out = len2;
	return b;
}

/* Many unknown sections over one large blob (4 MB of table entries naming
 * the same 1 MB): once each was checksummed, minutes of work; tags come
 * first now, so only the known sections' bytes are, once. */
static void test_cmap_reader__open_is_linear(void **state)
{
	(void)state;
	size_t len;
	unsigned char *b = with_blob(250000, 1u << 20, &len);
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	cmap_map *m;
	assert_int_equal(cmap_open(b, len, &m), 0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	cmap_close(m);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (s > 2.0)
		fail_msg("cmap_open took %.2f s of CPU on %zu bytes", s, len);
	free(b);
}

/* Two known sections over the same bytes are refused. */
static void test_cmap_reader__known_sections_do_not_overlap(void **state)
{
	(void)state;
	size_t len;
	unsigned char *b = valid_file(&len);
	unsigned char *isld = entry(b, "ISLD"), *fery = entry(b, "FERY");
	memcpy(isld + 4, fery + 4, 8);
	fix_crcs(b, len);
	cmap_map *m;
	assert_int_equal(cmap_open(b, len, &m), CMAP_EFORMAT);
	free(b);
}

static void test_cmap_reader__null_arguments(void **state)
{
	(void)state;
	cmap_map *m = (cmap_map *)&m;
	assert_int_equal(cmap_open(NULL, 10, &m), CMAP_EARG);
	assert_null(m);
	assert_int_equal(cmap_open("x", 1, NULL), CMAP_EARG);
	cmap_close(NULL);
	size_t len;
	unsigned char *good = valid_file(&len);
	assert_int_equal(cmap_open(good, len, &m), 0);
	assert_int_equal(cmap_get_square(m, 0, 0, NULL), CMAP_EARG);
	assert_int_equal(cmap_get_marker(m, 1, NULL), CMAP_EARG);
	assert_int_equal(cmap_count(m, (cmap_table)99), 0);
	cmap_close(m);
	free(good);
}

/* Bytes of string s (with its NUL) in the STRS section of b, or NULL. */
static unsigned char *find_string(unsigned char *b, const char *s)
{
	unsigned char *e = entry(b, "STRS");
	unsigned char *p = b + get32(e + 4);
	size_t n = get32(e + 8), k = strlen(s) + 1;
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(p + i, s, k) == 0 && (i == 0 || p[i - 1] == 0))
			return p + i;
	return NULL;
}

/* Valid UTF-8 of every length passes; surrogates, code points past
 * U+10FFFF and overlong 3- and 4-byte forms do not. */
static void test_cmap_reader__strings_are_checked_utf8(void **state)
{
	(void)state;
	static const struct {
		unsigned char bytes[4]; /* replaces "Tiny" */
		int want;
	} cases[] = {
		{ { 'Z', 0xC3, 0xBC, 'r' }, 0 },           /* ü */
		{ { 0xE2, 0x82, 0xAC, 'x' }, 0 },          /* € */
		{ { 0xF0, 0x9F, 0x8F, 0xB0 }, 0 },         /* U+1F3F0 */
		{ { 0xF4, 0x8F, 0xBF, 0xBF }, 0 },         /* U+10FFFF */
		{ { 0xED, 0xA0, 0x80, 'x' }, CMAP_EUTF8 }, /* U+D800 */
		{ { 0xF4, 0x90, 0x80, 0x80 }, CMAP_EUTF8 }, /* U+110000 */
		{ { 0xE0, 0x80, 0xAF, 'x' }, CMAP_EUTF8 }, /* overlong '/' */
		{ { 0xF0, 0x80, 0x80, 0xAF }, CMAP_EUTF8 }, /* overlong '/' */
		{ { 0xF8, 0x88, 0x80, 0x80 }, CMAP_EUTF8 }, /* 5-byte lead */
	};
	size_t len;
	unsigned char *good = valid_file(&len);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned char *b = malloc(len);
		assert_non_null(b);
		memcpy(b, good, len);
		unsigned char *at = find_string(b, "Tiny");
		assert_non_null(at);
		memcpy(at, cases[i].bytes, 4);
		fix_crcs(b, len);
		cmap_map *m;
		int rc = cmap_open(b, len, &m);
		if (rc != cases[i].want)
			fail_msg("case %zu: got %d (%s)", i, rc, cmap_strerror(rc));
		if (!rc)
			assert_memory_equal(cmap_name(m), cases[i].bytes, 4);
		cmap_close(m);
		free(b);
	}
	free(good);
}

/* The names are libcarcamap's (the JSON export's) for every value. */
static void test_cmap_reader__names_match_the_library(void **state)
{
	(void)state;
	for (unsigned k = 0; k <= CMAP_SQ_HALF; k++)
		assert_string_equal(cmap_square_kind_name(k), cm_square_kind_name((cm_square_kind)k));
	assert_null(cmap_square_kind_name(CMAP_SQ_HALF + 1));
	for (unsigned k = 0; k < 4; k++) {
		assert_string_equal(cmap_side_name(k), cm_side_name((cm_side)k));
		assert_string_equal(cmap_edge_kind_name(k), cm_edge_kind_name((cm_edge_kind)k));
	}
	assert_null(cmap_side_name(4));
	assert_null(cmap_edge_kind_name(4));
	for (unsigned k = CMAP_PRINT_NEUTRAL; k <= CMAP_PRINT_CITY; k++)
		assert_string_equal(cmap_print_kind_name(k), cm_print_kind_name((cm_print_kind)k));
	assert_null(cmap_print_kind_name(0));
	assert_null(cmap_print_kind_name(4));
	for (unsigned k = 0; k <= CMAP_FEAT_ABBEY; k++)
		assert_string_equal(cmap_feature_kind_name(k), cm_feature_kind_name((cm_feature_kind)k));
	assert_null(cmap_feature_kind_name(CMAP_FEAT_ABBEY + 1));
	assert_string_equal(cmap_good_name(CMAP_GOOD_NONE), "none");
	for (unsigned k = CMAP_GOOD_WINE; k <= CMAP_GOOD_CLOTH; k++)
		assert_string_equal(cmap_good_name(k), cm_good_name((cm_good)k));
	assert_null(cmap_good_name(4));
	for (unsigned k = 0; k <= CMAP_C3; k++)
		assert_string_equal(cmap_edition_name(k), cm_edition_name((cm_edition)k));
	assert_null(cmap_edition_name(3));
	for (unsigned b = 0; b < 12; b++)
		assert_string_equal(cmap_slot_name(b), cm_slot_name((int)b));
	assert_null(cmap_slot_name(12));
}

/* The reader's rule constants are the one rule table's (carcamap/rules.h):
 * every switch with a bit in the binary export has a CMAP_RULE_<KEY>
 * define in cmap.h of that bit and no other define is there; the farmers
 * and edition values agree; and each switch alone, written by the
 * library's exporter, reads back as its own field of cmap_rules. */
static const struct {
	const char *key;
	size_t off;
} rule_fields[] = {
	{ "tiny_city", offsetof(cmap_rules, tiny_city) },
	{ "farmers_bigcity", offsetof(cmap_rules, farmers_bigcity) },
	{ "town_extra_turn", offsetof(cmap_rules, town_extra_turn) },
	{ "town_cost", offsetof(cmap_rules, town_cost) },
	{ "town_road_bonus", offsetof(cmap_rules, town_road_bonus) },
	{ "abbey_edge", offsetof(cmap_rules, abbey_edge) },
};
#define N_RULE_FIELDS (sizeof rule_fields / sizeof rule_fields[0])

static void test_cmap_reader__rule_constants_match_the_table(void **state)
{
	(void)state;
	assert_int_equal(CMAP_FARMERS_C1, CM_FARMERS_C1);
	assert_int_equal(CMAP_FARMERS_C2, CM_FARMERS_C2);
	assert_int_equal(CMAP_C1, CM_EDITION_C1);
	assert_int_equal(CMAP_C2, CM_EDITION_C2);
	assert_int_equal(CMAP_C3, CM_EDITION_C3);
	/* the defines, read from the header's text */
	char *h = util_read_file("lib/reader/cmap.h", NULL);
	unsigned all = 0, n_defines = 0, n_switches = 0;
	for (const char *p = strstr(h, "#define CMAP_RULE_"); p; p = strstr(p + 1, "#define CMAP_RULE_")) {
		char name[64];
		unsigned v;
		assert_int_equal(sscanf(p, "#define CMAP_RULE_%63[A-Z_] 0x%xu", name, &v), 2);
		if (strcmp(name, "ALL") == 0) {
			assert_int_equal(v, CMAP_RULE_ALL);
			continue;
		}
		n_defines++;
		for (char *c = name; *c; c++)
			*c = (char)(*c == '_' ? '_' : *c - 'A' + 'a');
		int i = cm_rule_option_find(name);
		if (i < 0 || cm_rule_option_get((size_t)i)->flag_bit < 0)
			fail_msg("cmap.h defines CMAP_RULE_ for '%s', which is no switch of the binary export", name);
		if (v != 1u << cm_rule_option_get((size_t)i)->flag_bit)
			fail_msg("cmap.h's bit for '%s' is 0x%x, the rule table's bit %d", name, v,
			         cm_rule_option_get((size_t)i)->flag_bit);
	}
	free(h);
	for (size_t i = 0; i < cm_rule_option_count(); i++) {
		const cm_rule_option *o = cm_rule_option_get(i);
		if (o->flag_bit < 0)
			continue;
		n_switches++;
		all |= 1u << o->flag_bit;
		size_t f = 0;
		while (f < N_RULE_FIELDS && strcmp(rule_fields[f].key, o->key) != 0)
			f++;
		if (f == N_RULE_FIELDS)
			fail_msg("the binary export writes '%s' but the reader has no cmap_rules field for it", o->key);
		/* that switch alone, through the library's writer and the reader */
		cm_map *m;
		assert_int_equal(cm_map_new(2, 1, &m), 0);
		m->id = strdup("r");
		m->squares[0].kind = m->squares[1].kind = CM_SQ_START;
		for (size_t k = 0; k < cm_rule_option_count(); k++)
			if (cm_rule_option_get(k)->kind == CM_RULE_SWITCH)
				cm_rules_put(&m->rules, k, k == i);
		cm_rules_put(&m->rules, (size_t)cm_rule_option_find("farmers"), CM_FARMERS_C1);
		unsigned char *bin;
		size_t len;
		assert_int_equal(cm_export_bin(m, NULL, 0, &bin, &len), 0);
		cm_map_free(m);
		cmap_map *cm = NULL;
		assert_int_equal(cmap_open(bin, len, &cm), 0);
		cmap_rules r;
		cmap_get_rules(cm, &r);
		assert_int_equal(r.farmers, CMAP_FARMERS_C1);
		for (size_t g = 0; g < N_RULE_FIELDS; g++) {
			int on = *(const int *)((const char *)&r + rule_fields[g].off);
			assert_int_equal(on, g == f);
		}
		cmap_close(cm);
		free(bin);
	}
	assert_int_equal(n_defines, n_switches);
	assert_int_equal(n_switches, N_RULE_FIELDS);
	assert_int_equal(all, CMAP_RULE_ALL);
}

/* Rotation and facing as the rules engine does them, for every mask. */
static void test_cmap_reader__slots_and_rotation_match_the_library(void **state)
{
	(void)state;
	for (unsigned r = 0; r < 8; r++) {
		for (unsigned mask = 0; mask < 0x1000; mask++)
			assert_int_equal(cmap_slots_rotate((uint16_t)mask, r),
			                 cm_slots_rotate((cm_slots)mask, (int)(r % 4)));
		for (unsigned s = 0; s < 4; s++)
			assert_int_equal(cmap_side_rotate(s, r), cm_side_rotate((cm_side)s, (int)(r % 4)));
	}
	for (unsigned b = 0; b < 12; b++)
		assert_int_equal(cmap_slot_facing(b), (unsigned)cm_slot_facing((int)b));
	for (unsigned s = 0; s < 4; s++) {
		assert_int_equal(cmap_side_opposite(s), (s + 2) % 4);
		assert_int_equal(CMAP_SIDE_SLOTS(s), CM_SIDE_SLOTS(s));
		for (unsigned p = 0; p < 3; p++)
			assert_int_equal(CMAP_SLOT(s, p), CM_SLOT(s, p));
	}
	/* a road N-S, a city E: turned once, the city is south, the road E-W */
	cmap_shape sh = { { CMAP_EDGE_ROAD, CMAP_EDGE_CITY, CMAP_EDGE_ROAD, CMAP_EDGE_FIELD }, 0, 0, 0, 0 };
	assert_int_equal(cmap_shape_edge(&sh, CMAP_S, 1), CMAP_EDGE_CITY);
	assert_int_equal(cmap_shape_edge(&sh, CMAP_E, 1), CMAP_EDGE_ROAD);
	assert_int_equal(cmap_shape_edge(&sh, CMAP_N, 1), CMAP_EDGE_FIELD);
	assert_int_equal(cmap_shape_edge(&sh, CMAP_W, 2), CMAP_EDGE_CITY);
	assert_int_equal(cmap_shape_edge(&sh, CMAP_E, 4), CMAP_EDGE_CITY);
}

/* A map with prints on several sides of several squares. */
static unsigned char *prints_file(size_t *len)
{
	cm_map *m;
	assert_int_equal(cm_map_new(4, 3, &m), 0);
	m->id = strdup("edges");
	for (int i = 0; i < 12; i++)
		m->squares[i].kind = CM_SQ_LAND;
	m->squares[0].print[CM_N].kind = CM_PRINT_ROAD;
	m->squares[0].print[CM_W].kind = CM_PRINT_CITY;
	m->squares[3].print[CM_E].kind = CM_PRINT_NEUTRAL;
	m->squares[3].print[CM_N].kind = CM_PRINT_CITY;
	m->squares[9].print[CM_S].kind = CM_PRINT_ROAD;
	m->squares[11].print[CM_S].kind = CM_PRINT_NEUTRAL;
	m->squares[11].print[CM_E].kind = CM_PRINT_ROAD;
	unsigned char *bin;
	assert_int_equal(cm_export_bin(m, NULL, 0, &bin, len), 0);
	cm_map_free(m);
	return bin;
}

/* cmap_square_prints finds what a scan of every print finds; prints out
 * of order are refused by cmap_open. */
static void test_cmap_reader__edge_prints_by_square(void **state)
{
	(void)state;
	size_t len;
	unsigned char *b = prints_file(&len);
	cmap_map *m;
	assert_int_equal(cmap_open(b, len, &m), 0);
	assert_int_equal(cmap_count(m, CMAP_T_PRINTS), 7);
	uint32_t found = 0;
	for (uint32_t y = 0; y < cmap_rows(m); y++)
		for (uint32_t x = 0; x < cmap_cols(m); x++) {
			uint32_t idx[4];
			assert_int_equal(cmap_square_prints(m, x, y, idx), 0);
			for (unsigned s = 0; s < 4; s++) {
				uint32_t want = CMAP_NONE;
				for (uint32_t i = 0; i < cmap_count(m, CMAP_T_PRINTS); i++) {
					cmap_print p;
					assert_int_equal(cmap_get_print(m, i, &p), 0);
					if (p.x == x && p.y == y && p.side == s)
						want = i;
				}
				assert_int_equal(idx[s], want);
				found += want != CMAP_NONE;
			}
		}
	assert_int_equal(found, 7);
	uint32_t idx[4];
	assert_int_equal(cmap_square_prints(m, 4, 0, idx), CMAP_EARG);
	assert_int_equal(cmap_square_prints(m, 0, 0, NULL), CMAP_EARG);
	assert_int_equal(cmap_square_prints(m, 3, 0, idx), 0);
	cmap_print p;
	assert_int_equal(cmap_get_print(m, idx[CMAP_N], &p), 0);
	assert_int_equal(p.kind, CMAP_PRINT_CITY);
	assert_int_equal(idx[CMAP_S], CMAP_NONE);
	cmap_close(m);

	/* swap the first two prints: out of order */
	unsigned char *e = entry(b, "PRNT");
	unsigned char *r = b + get32(e + 4) + 8, tmp[12];
	uint32_t rs = get32(r - 4);
	memcpy(tmp, r, 12);
	memcpy(r, r + rs, 12);
	memcpy(r + rs, tmp, 12);
	fix_crcs(b, len);
	m = (cmap_map *)b;
	assert_int_equal(cmap_open(b, len, &m), CMAP_EFORMAT);
	assert_null(m);
	/* two prints on one side */
	memcpy(r, r + rs, 12);
	fix_crcs(b, len);
	assert_int_equal(cmap_open(b, len, &m), CMAP_EFORMAT);
	free(b);
}

/* cmap_open_file reads a file and owns its bytes; I/O failures are EIO. */
static void test_cmap_reader__open_file(void **state)
{
	(void)state;
	size_t len;
	unsigned char *good = valid_file(&len);
	char dir[] = "/tmp/cmap-test-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/tiny.cmap", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(good, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(good);
	cmap_map *m;
	assert_int_equal(cmap_open_file(path, &m), 0);
	assert_string_equal(cmap_id(m), "tiny");
	cmap_square q;
	assert_int_equal(cmap_get_square(m, 0, 0, &q), 0);
	assert_string_equal(q.name, "Aachen");
	cmap_close(m);
	m = (cmap_map *)&m;
	assert_int_equal(cmap_open_file(dir, &m), CMAP_EIO); /* a directory */
	assert_null(m);
	assert_int_equal(remove(path), 0);
	assert_int_equal(cmap_open_file(path, &m), CMAP_EIO); /* missing */
	assert_int_equal(cmap_open_file(NULL, &m), CMAP_EARG);
	assert_int_equal(cmap_open_file(path, NULL), CMAP_EARG);
	/* a file that is not CMAP: cmap_open's error, nothing leaked */
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs("not a map\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(cmap_open_file(path, &m), CMAP_EMAGIC);
	assert_int_equal(remove(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmap_reader__each_bad_input_has_its_error),
		cmocka_unit_test(test_cmap_reader__error_texts_are_distinct),
		cmocka_unit_test(test_cmap_reader__every_prefix_is_truncated),
		cmocka_unit_test(test_cmap_reader__flipped_bytes_never_read_outside),
		cmocka_unit_test(test_cmap_reader__unknown_section_is_skipped),
		cmocka_unit_test(test_cmap_reader__null_arguments),
		cmocka_unit_test(test_cmap_reader__open_is_linear),
		cmocka_unit_test(test_cmap_reader__known_sections_do_not_overlap),
		cmocka_unit_test(test_cmap_reader__strings_are_checked_utf8),
		cmocka_unit_test(test_cmap_reader__names_match_the_library),
		cmocka_unit_test(test_cmap_reader__rule_constants_match_the_table),
		cmocka_unit_test(test_cmap_reader__slots_and_rotation_match_the_library),
		cmocka_unit_test(test_cmap_reader__edge_prints_by_square),
		cmocka_unit_test(test_cmap_reader__open_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
