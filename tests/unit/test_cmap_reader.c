/* SPDX-License-Identifier: MIT */
/* test_cmap_reader.c: the client reader lib/reader/cmap.c (built into this
 * program, as a client would) against bad input, in both major versions
 * (2.0 and 1.0): one table of patches to a valid file, each naming the
 * error it must give; every prefix of a file; every byte flipped with
 * checksums repaired (the sanitizer build proves that nothing is read out
 * of bounds); an unknown section of a later minor version is skipped;
 * strings that are not UTF-8 are refused. Every accessor gives the same
 * values for the 1.0 and 2.0 encodings of the same map (bundled maps,
 * random ones with every kind of square extra, the 1.0 fixtures under
 * tests/fixtures/export/). The client helpers (names, slots and rotation,
 * edge prints by square, cmap_open_file) agree with libcarcamap's own.
 * The valid files come from libcarcamap's writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "carcamap/diag.h"
#include "carcamap/export.h"
#include "carcamap/map.h"
#include "carcamap/workspace.h"
#include "carcamap/rules.h"
#include "carcamap/tile.h"
#include "util_files.h"
#include "util_model.h"
#include "../../lib/reader/cmap.c"

/* 3x2 with a name, a marker, an island with a title, a label and a print
 * with arms: every string kind, and in 2.0 three SQEX and two PREX
 * records; in major version major. */
static unsigned char *valid_file_v(unsigned major, size_t *len)
{
	cm_map_builder *b = util_builder(3, 2);
	util_id_set(b, "tiny", "Tiny");
	for (int i = 0; i < 6; i++)
		util_kind_set(b, i % 3, i / 3, CM_SQ_LAND);
	util_name_set(b, 0, 0, "Aachen");
	util_marker_add(b, 1, 0, "chip");
	util_island_add(b, "Isle", "Isle of Tests");
	cm_square q = *cm_map_builder_square(b, 2, 1);
	q.kind = CM_SQ_ISLAND;
	q.island = 0;
	util_square_set(b, 2, 1, &q);
	util_print_set(b, 2, 0, CM_N, CM_PRINT_ROAD, 0);
	util_label_set(b, 2, 0, CM_N, "north");
	util_print_set(b, 1, 1, CM_S, CM_PRINT_CITY, 2);
	cm_map *m = util_finish(b);
	unsigned char *bin;
	assert_int_equal(util_export_bin(m, NULL, 0, major, &bin, len), 0);
	assert_int_equal(bin[8], major);
	cm_map_free(m);
	return bin;
}

static unsigned char *valid_file(size_t *len)
{
	return valid_file_v(CM_EXPORT_BIN_MAJOR, len);
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
	unsigned major;     /* the version it applies to, 0: both */
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
	{ 0, "wrong magic", "hdr", 0, 1, V_ABS, 'X', 1, CMAP_EMAGIC },
	{ 0, "newer major version", "hdr", 8, 1, V_ABS, 3, 1, CMAP_EVERSION },
	{ 0, "major version 0", "hdr", 8, 1, V_ABS, 0, 1, CMAP_EVERSION },
	{ 0, "declared size past the buffer", "hdr", 12, 4, V_FILE_LEN, 1, 1, CMAP_ETRUNC },
	{ 0, "declared size below the header", "hdr", 12, 4, V_ABS, 8, 1, CMAP_EFORMAT },
	{ 0, "section table past the file", "hdr", 16, 4, V_ABS, 0x10000000, 1, CMAP_EBOUNDS },
	{ 0, "section table checksum", "hdr", 20, 1, V_ABS, 0x5A, 0, CMAP_ECRC },
	{ 1, "section checksum", "SQRS", 8, 1, V_ABS, 0x77, 0, CMAP_ECRC },
	{ 2, "section checksum", "GRID", 8, 1, V_ABS, 0x77, 0, CMAP_ECRC },
	{ 2, "square extras checksum", "SQEX", 8, 1, V_ABS, 0x77, 0, CMAP_ECRC },
	{ 0, "string table checksum", "STRS", 1, 1, V_ABS, 'Z', 0, CMAP_ECRC },
	{ 0, "section offset past the file", "tab:META", 4, 4, V_FILE_LEN, 0, 1, CMAP_EBOUNDS },
	{ 0, "section length past the file", "tab:DECK", 8, 4, V_ABS, 0x7FFFFFFF, 1, CMAP_EBOUNDS },
	{ 0, "section offset wraps around", "tab:FERY", 4, 4, V_ABS, 0xFFFFFFF0, 1, CMAP_EBOUNDS },
	/* offset + length past 2^32: a bounds check that adds them (o + len >
	 * size) sees a small sum and lets 4 GB be read */
	{ 0, "section length wraps around", "tab:DECK", 8, 4, V_ABS, 0xFFFFFFF8, 1, CMAP_EBOUNDS },
	{ 0, "section length wraps to its own offset", "tab:META", 8, 4, V_ABS, 0xFFFFFFFF, 1, CMAP_EBOUNDS },
	{ 1, "record count overflows", "SQRS", 0, 4, V_ABS, 0x80000000, 1, CMAP_ECOUNT },
	{ 2, "record count overflows", "GRID", 0, 4, V_ABS, 0x80000000, 1, CMAP_ECOUNT },
	{ 0, "record count past the section", "ISLD", 0, 4, V_ABS, 2, 1, CMAP_ECOUNT },
	{ 2, "square extras past the section", "SQEX", 0, 4, V_ABS, 4, 1, CMAP_ECOUNT },
	{ 2, "print extras overflow", "PREX", 0, 4, V_ABS, 0x80000000, 1, CMAP_ECOUNT },
	{ 1, "record size below 1.0", "PRNT", 4, 4, V_ABS, 8, 1, CMAP_EFORMAT },
	{ 2, "record size below 2.0", "PREX", 4, 4, V_ABS, 8, 1, CMAP_EFORMAT },
	{ 2, "grid record size below 2.0", "GRID", 4, 4, V_ABS, 1, 1, CMAP_EFORMAT },
	{ 0, "record size zero", "MRKS", 4, 4, V_ABS, 0, 1, CMAP_EFORMAT },
	{ 0, "no META record", "META", 0, 4, V_ABS, 0, 1, CMAP_EFORMAT },
	{ 0, "square count differs from the grid", "META", 8 + 8, 4, V_ABS, 4, 1, CMAP_EFORMAT },
	{ 0, "duplicate section", "tab:ISLD", 0, 4, V_ABS, 0x59524546 /* FERY */, 1, CMAP_EFORMAT },
	{ 0, "required section missing", "tab:RULE", 0, 1, V_ABS, 'r', 1, CMAP_EMISSING },
	{ 2, "1.0 squares instead of the grid", "tab:GRID", 0, 4, V_ABS, 0x53525153 /* SQRS */, 1, CMAP_EMISSING },
	{ 1, "2.0 grid instead of the squares", "tab:SQRS", 0, 4, V_ABS, 0x44495247 /* GRID */, 1, CMAP_EMISSING },
	{ 0, "string offset past the table", "META", 8 + 4, 4, V_SEC_LEN, 0, 1, CMAP_ESTRREF },
	{ 1, "label offset past the table", "PRNT", 8 + 8, 4, V_ABS, 0x7FFFFFF0, 1, CMAP_ESTRREF },
	{ 2, "label offset past the table", "PREX", 8 + 8, 4, V_ABS, 0x7FFFFFF0, 1, CMAP_ESTRREF },
	{ 2, "square name offset past the table", "SQEX", 8 + 8, 4, V_ABS, 0x7FFFFFF0, 1, CMAP_ESTRREF },
	{ 0, "island title offset past the table", "ISLD", 8 + 4, 4, V_ABS, 0x7FFFFFF0, 1, CMAP_ESTRREF },
	{ 0, "string table not terminated", "STRS", -1, 1, V_ABS, 'x', 1, CMAP_ESTRTERM },
	{ 1, "island index out of range", "SQRS", 8 + 8, 4, V_ABS, 1, 1, CMAP_EREF },
	{ 1, "marker range wraps around", "SQRS", 8 + 20 + 16, 4, V_ABS, 0xFFFFFFFF, 1, CMAP_EREF },
	{ 1, "print off the grid", "PRNT", 8 + 0, 4, V_ABS, 3, 1, CMAP_EREF },
	{ 1, "square kind out of range", "SQRS", 8, 1, V_ABS, 9, 1, CMAP_EVALUE },
	{ 1, "print side out of range", "PRNT", 8 + 4, 1, V_ABS, 4, 1, CMAP_EVALUE },
	/* 2.0: SQEX holds squares 0 (name), 1 (marker), 5 (island); PREX the
	 * prints (2, N) with a label and (4, S) with arms */
	{ 2, "island index out of range", "SQEX", 8 + 12, 4, V_ABS, 1, 1, CMAP_EREF },
	{ 2, "big city index out of range", "SQEX", 8 + 16, 4, V_ABS, 0, 1, CMAP_EREF },
	{ 2, "marker count past the markers", "SQEX", 8 + 24 + 6, 1, V_ABS, 2, 1, CMAP_EREF },
	{ 2, "markers not following each other", "SQEX", 8 + 24 + 20, 4, V_ABS, 1, 1, CMAP_EFORMAT },
	{ 2, "first markers not at 0", "SQEX", 8 + 20, 4, V_ABS, 1, 1, CMAP_EFORMAT },
	{ 2, "square extras out of order", "SQEX", 8, 4, V_ABS, 3, 1, CMAP_EFORMAT },
	{ 2, "two extras for one square", "SQEX", 8 + 24, 4, V_ABS, 0, 1, CMAP_EFORMAT },
	{ 2, "square extra off the grid", "SQEX", 8 + 48, 4, V_ABS, 6, 1, CMAP_EREF },
	{ 2, "square extra far off the grid", "SQEX", 8 + 48, 4, V_ABS, 0xFFFFFFFF, 1, CMAP_EREF },
	{ 2, "print extra off the grid", "PREX", 8 + 12, 4, V_ABS, 6, 1, CMAP_EREF },
	{ 2, "print extras out of order", "PREX", 8 + 12, 4, V_ABS, 1, 1, CMAP_EFORMAT },
	{ 2, "print extra on a side without a print", "PREX", 8 + 4, 1, V_ABS, CMAP_E, 1, CMAP_EREF },
	{ 2, "print extra's side out of range", "PREX", 8 + 4, 1, V_ABS, 4, 1, CMAP_EVALUE },
	{ 2, "square kind out of range", "GRID", 8 + 2 * 3, 1, V_ABS, 9, 1, CMAP_EVALUE },
	{ 2, "square kind far out of range", "GRID", 8, 1, V_ABS, 0xFF, 1, CMAP_EVALUE },
	{ 0, "edition out of range", "RULE", 8 + 16, 1, V_ABS, 3, 1, CMAP_EVALUE },
	/* STRS starts with the empty string, then the map's id "tiny" */
	{ 0, "a byte that is never UTF-8", "STRS", 2, 1, V_ABS, 0xFF, 1, CMAP_EUTF8 },
	{ 0, "a lead byte without its continuation", "STRS", 2, 1, V_ABS, 0xC3, 1, CMAP_EUTF8 },
	{ 0, "a stray continuation byte", "STRS", 2, 1, V_ABS, 0x80, 1, CMAP_EUTF8 },
	{ 0, "an overlong form", "STRS", 1, 1, V_ABS, 0xC0, 1, CMAP_EUTF8 },
	{ 0, "a sequence cut by the final NUL", "STRS", -2, 1, V_ABS, 0xE2, 1, CMAP_EUTF8 },
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
	for (unsigned major = 1; major <= 2; major++)
		for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
			size_t len;
			unsigned char *good = valid_file_v(major, &len);
			cmap_map *m;
			assert_int_equal(cmap_open(good, len, &m), 0);
			cmap_close(m);
			if (patches[i].major && patches[i].major != major) {
				free(good);
				continue;
			}
			unsigned char *b = malloc(len);
		assert_non_null(b);
		memcpy(b, good, len);
			apply(b, len, &patches[i]);
			m = (cmap_map *)b; /* must be reset to NULL */
			int rc = cmap_open(b, len, &m);
			if (rc != patches[i].want)
				fail_msg("%u.0, %s: got %d (%s), want %d (%s)", major, patches[i].name, rc,
				         cmap_strerror(rc), patches[i].want, cmap_strerror(patches[i].want));
			assert_null(m);
			free(b);
			free(good);
		}
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
	for (unsigned major = 1; major <= 2; major++) {
	size_t len;
	unsigned char *good = valid_file_v(major, &len);
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
}

/* Any byte changed, checksums repaired: an error or a map, never a crash or
 * a read outside the buffer; the accessors of an accepted map stay inside. */
static void test_cmap_reader__flipped_bytes_never_read_outside(void **state)
{
	(void)state;
	for (unsigned major = 1; major <= 2; major++) {
	size_t len;
	unsigned char *good = valid_file_v(major, &len);
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
						uint32_t idx[4];
						assert_int_equal(cmap_square_prints(m, x, y, idx), 0);
						for (unsigned e = 0; e < 4; e++) {
							cmap_print pr;
							if (idx[e] != CMAP_NONE) {
								assert_int_equal(cmap_get_print(m, idx[e], &pr), 0);
								assert_true(pr.x == x && pr.y == y && pr.side == e);
							}
						}
					}
				for (uint32_t k = 0; k < cmap_count(m, CMAP_T_PRINTS); k++) {
					cmap_print pr;
					assert_int_equal(cmap_get_print(m, k, &pr), 0);
					assert_true(pr.x < cmap_cols(m) && pr.y < cmap_rows(m));
				}
				cmap_close(m);
			}
			free(b);
		}
	assert_true(accepted > 0); /* some bytes are free text: flips there are fine */
	free(good);
	}
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
	b[10] = 7; /* version 2.7 */
	put32le(b + 12, (uint32_t)len2);
	put32le(b + 16, n + 1);
	fix_crcs(b, len2);
	cmap_map *m;
	assert_int_equal(cmap_open(b, len2, &m), 0);
	unsigned major, minor;
	cmap_version(m, &major, &minor);
	assert_int_equal(major, 2);
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

/* Sections overlapping by a single byte are refused too, whichever comes
 * first in the table: each known section in turn is grown to end one byte
 * inside the next one in the file. The file as written, whose sections
 * touch without overlapping, opens (every other test). */
static void test_cmap_reader__sections_overlapping_by_one_byte(void **state)
{
	(void)state;
	size_t len;
	unsigned char *b0 = valid_file(&len);
	uint32_t n = get32(b0 + 16);
	int grown = 0;
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *ei = b0 + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		uint32_t oi = get32(ei + 4), next = 0;
		for (uint32_t k = 0; k < n; k++) { /* the section that follows it in the file */
			uint32_t ok = get32(b0 + HEADER_SIZE + (size_t)k * ENTRY_SIZE + 4);
			uint32_t lk = get32(b0 + HEADER_SIZE + (size_t)k * ENTRY_SIZE + 8);
			if (ok > oi && lk && (!next || ok < next))
				next = ok;
		}
		if (!next || !get32(ei + 8))
			continue;
		unsigned char *b = malloc(len);
		assert_non_null(b);
		memcpy(b, b0, len);
		put32le(b + HEADER_SIZE + (size_t)i * ENTRY_SIZE + 8, next - oi + 1);
		fix_crcs(b, len);
		cmap_map *m = NULL;
		int rc = cmap_open(b, len, &m);
		if (rc != CMAP_EFORMAT)
			fail_msg("section %.4s grown one byte into the next opens with %d", (const char *)ei, rc);
		free(b);
		grown++;
	}
	assert_true(grown >= 10);
	free(b0);
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
		cm_map_builder *b = util_builder(2, 1);
		util_id_set(b, "r", NULL);
		util_kind_set(b, 0, 0, CM_SQ_START);
		util_kind_set(b, 1, 0, CM_SQ_START);
		cm_rules ru = *cm_map_builder_rules(b);
		for (size_t k = 0; k < cm_rule_option_count(); k++)
			if (cm_rule_option_get(k)->kind == CM_RULE_SWITCH)
				cm_rules_put(&ru, k, k == i);
		cm_rules_put(&ru, (size_t)cm_rule_option_find("farmers"), CM_FARMERS_C1);
		cm_map_builder_set_rules(b, &ru);
		cm_map *m = util_finish(b);
		unsigned char *bin;
		size_t len;
		assert_int_equal(util_export_bin(m, NULL, 0, 0, &bin, &len), 0);
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

/* A map with prints on several sides of several squares, some with arms
 * or a label (2.0: PREX records), in major version major. */
static unsigned char *prints_file(unsigned major, size_t *len)
{
	cm_map_builder *b = util_builder(4, 3);
	util_id_set(b, "edges", NULL);
	for (int i = 0; i < 12; i++)
		util_kind_set(b, i % 4, i / 4, CM_SQ_LAND);
	util_print_set(b, 0, 0, CM_N, CM_PRINT_ROAD, 1);
	util_print_set(b, 0, 0, CM_W, CM_PRINT_CITY, 0);
	util_label_set(b, 0, 0, CM_W, "west");
	util_print_set(b, 3, 0, CM_E, CM_PRINT_NEUTRAL, 0);
	util_print_set(b, 3, 0, CM_N, CM_PRINT_CITY, 0);
	util_print_set(b, 1, 2, CM_S, CM_PRINT_ROAD, 0);
	util_print_set(b, 3, 2, CM_S, CM_PRINT_NEUTRAL, 0);
	util_print_set(b, 3, 2, CM_E, CM_PRINT_ROAD, 3);
	cm_map *m = util_finish(b);
	unsigned char *bin;
	assert_int_equal(util_export_bin(m, NULL, 0, major, &bin, len), 0);
	cm_map_free(m);
	return bin;
}

/* cmap_square_prints finds what a scan of every print finds; prints out
 * of order are refused by cmap_open (1.0: PRNT records; 2.0: PREX). */
static void test_cmap_reader__edge_prints_by_square(void **state)
{
	(void)state;
	for (unsigned major = 1; major <= 2; major++) {
		size_t len;
		unsigned char *b = prints_file(major, &len);
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
		assert_int_equal(cmap_square_prints(m, 0, 0, idx), 0);
		assert_int_equal(cmap_get_print(m, idx[CMAP_W], &p), 0);
		assert_string_equal(p.label, "west");
		assert_int_equal(p.arms, 0);
		assert_int_equal(cmap_get_print(m, idx[CMAP_N], &p), 0);
		assert_null(p.label);
		assert_int_equal(p.arms, 1);
		assert_int_equal(cmap_get_print(m, 5, &p), 0); /* (3,2) E before (3,2) S */
		assert_true(p.x == 3 && p.y == 2 && p.side == CMAP_E && p.arms == 3);
		assert_int_equal(cmap_get_print(m, 7, &p), CMAP_EARG);
		cmap_close(m);

		/* swap the first two records: out of order */
		unsigned char *e = entry(b, major == 1 ? "PRNT" : "PREX");
		unsigned char *r = b + get32(e + 4) + 8, tmp[12];
		uint32_t rs = get32(r - 4);
		memcpy(tmp, r, 12);
		memcpy(r, r + rs, 12);
		memcpy(r + rs, tmp, 12);
		fix_crcs(b, len);
		m = (cmap_map *)b;
		assert_int_equal(cmap_open(b, len, &m), CMAP_EFORMAT);
		assert_null(m);
		/* two records on one side */
		memcpy(r, r + rs, 12);
		fix_crcs(b, len);
		assert_int_equal(cmap_open(b, len, &m), CMAP_EFORMAT);
		free(b);
	}
}

/* ---- the same map in both majors ---- */

static void same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_true(a == b);
	else
		assert_string_equal(a, b);
}

static void same_shape(const cmap_shape *a, const cmap_shape *b)
{
	assert_memory_equal(a->edges, b->edges, sizeof a->edges);
	assert_true(a->first_feature == b->first_feature && a->n_features == b->n_features &&
	            a->first_contact == b->first_contact && a->n_contacts == b->n_contacts);
}

/* Every accessor of a and b gives the same values, every square, print
 * and record; they differ only in their version. */
static void expect_same_maps(const cmap_map *a, const cmap_map *b)
{
	same_str(cmap_id(a), cmap_id(b));
	same_str(cmap_name(a), cmap_name(b));
	assert_int_equal(cmap_cols(a), cmap_cols(b));
	assert_int_equal(cmap_rows(a), cmap_rows(b));
	for (int t = CMAP_T_MARKERS; t <= CMAP_T_DECK; t++)
		assert_int_equal(cmap_count(a, (cmap_table)t), cmap_count(b, (cmap_table)t));
	cmap_rules ra, rb;
	memset(&ra, 0, sizeof ra);
	memset(&rb, 0, sizeof rb);
	cmap_get_rules(a, &ra);
	cmap_get_rules(b, &rb);
	assert_memory_equal(&ra, &rb, sizeof ra);
	for (uint32_t y = 0; y < cmap_rows(a); y++)
		for (uint32_t x = 0; x < cmap_cols(a); x++) {
			cmap_square qa, qb;
			uint32_t ia[4], ib[4];
			assert_int_equal(cmap_get_square(a, x, y, &qa), 0);
			assert_int_equal(cmap_get_square(b, x, y, &qb), 0);
			assert_true(qa.kind == qb.kind && qa.arms == qb.arms && qa.island == qb.island &&
			            qa.bigcity == qb.bigcity && qa.first_marker == qb.first_marker &&
			            qa.n_markers == qb.n_markers);
			same_str(qa.name, qb.name);
			assert_int_equal(cmap_square_prints(a, x, y, ia), 0);
			assert_int_equal(cmap_square_prints(b, x, y, ib), 0);
			assert_memory_equal(ia, ib, sizeof ia);
		}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_MARKERS); i++) {
		const char *ma, *mb;
		assert_int_equal(cmap_get_marker(a, i, &ma), 0);
		assert_int_equal(cmap_get_marker(b, i, &mb), 0);
		same_str(ma, mb);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_PRINTS); i++) {
		cmap_print pa, pb;
		assert_int_equal(cmap_get_print(a, i, &pa), 0);
		assert_int_equal(cmap_get_print(b, i, &pb), 0);
		assert_true(pa.x == pb.x && pa.y == pb.y && pa.side == pb.side && pa.kind == pb.kind &&
		            pa.arms == pb.arms);
		same_str(pa.label, pb.label);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_BIGCITIES); i++) {
		cmap_bigcity ba, bb;
		assert_int_equal(cmap_get_bigcity(a, i, &ba), 0);
		assert_int_equal(cmap_get_bigcity(b, i, &bb), 0);
		same_str(ba.name, bb.name);
		assert_true(ba.first_piece == bb.first_piece && ba.n_pieces == bb.n_pieces);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_PIECES); i++) {
		cmap_piece pa, pb;
		assert_int_equal(cmap_get_piece(a, i, &pa), 0);
		assert_int_equal(cmap_get_piece(b, i, &pb), 0);
		assert_true(pa.x == pb.x && pa.y == pb.y);
		same_shape(&pa.shape, &pb.shape);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_FEATURES); i++) {
		cmap_feature fa, fb;
		assert_int_equal(cmap_get_feature(a, i, &fa), 0);
		assert_int_equal(cmap_get_feature(b, i, &fb), 0);
		assert_true(fa.kind == fb.kind && fa.arms == fb.arms && fa.cathedral == fb.cathedral &&
		            fa.inn == fb.inn && fa.good == fb.good && fa.slots == fb.slots && fa.touches == fb.touches);
		same_str(fa.id, fb.id);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_CONTACTS); i++) {
		uint32_t ca, cb;
		assert_int_equal(cmap_get_contact(a, i, &ca), 0);
		assert_int_equal(cmap_get_contact(b, i, &cb), 0);
		assert_int_equal(ca, cb);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_FERRIES); i++) {
		cmap_ferry fa, fb;
		assert_int_equal(cmap_get_ferry(a, i, &fa), 0);
		assert_int_equal(cmap_get_ferry(b, i, &fb), 0);
		same_str(fa.name, fb.name);
		assert_true(fa.x1 == fb.x1 && fa.y1 == fb.y1 && fa.x2 == fb.x2 && fa.y2 == fb.y2 && fa.s1 == fb.s1 &&
		            fa.s2 == fb.s2 && fa.arms == fb.arms);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_ISLANDS); i++) {
		cmap_island ia, ib;
		assert_int_equal(cmap_get_island(a, i, &ia), 0);
		assert_int_equal(cmap_get_island(b, i, &ib), 0);
		same_str(ia.name, ib.name);
		same_str(ia.title, ib.title);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_TILESETS); i++) {
		cmap_tileset ta, tb;
		assert_int_equal(cmap_get_tileset(a, i, &ta), 0);
		assert_int_equal(cmap_get_tileset(b, i, &tb), 0);
		same_str(ta.id, tb.id);
		same_str(ta.name, tb.name);
		assert_true(ta.base == tb.base && ta.first_tile == tb.first_tile && ta.n_tiles == tb.n_tiles);
		assert_memory_equal(ta.total, tb.total, sizeof ta.total);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_TILES); i++) {
		cmap_tile ta, tb;
		assert_int_equal(cmap_get_tile(a, i, &ta), 0);
		assert_int_equal(cmap_get_tile(b, i, &tb), 0);
		same_str(ta.id, tb.id);
		same_str(ta.name, tb.name);
		assert_memory_equal(ta.count, tb.count, sizeof ta.count);
		assert_true(ta.in_deck == tb.in_deck && ta.start == tb.start);
		same_shape(&ta.shape, &tb.shape);
	}
	for (uint32_t i = 0; i < cmap_count(a, CMAP_T_DECK); i++) {
		cmap_deck_entry da, db;
		assert_int_equal(cmap_get_deck_entry(a, i, &da), 0);
		assert_int_equal(cmap_get_deck_entry(b, i, &db), 0);
		assert_true(da.tileset == db.tileset && da.tile == db.tile && da.count == db.count);
	}
}

/* m exported in both majors: the files read the same; 2.0 is smaller once
 * the map has a few squares. */
static void expect_majors_agree(const cm_map *m, const cm_tileset *const *sets, size_t n_sets)
{
	unsigned char *b1, *b2;
	size_t l1, l2;
	assert_int_equal(util_export_bin(m, sets, n_sets, 1, &b1, &l1), 0);
	assert_int_equal(util_export_bin(m, sets, n_sets, 0, &b2, &l2), 0);
	cmap_map *r1, *r2;
	assert_int_equal(cmap_open(b1, l1, &r1), 0);
	assert_int_equal(cmap_open(b2, l2, &r2), 0);
	unsigned major, minor;
	cmap_version(r1, &major, &minor);
	assert_true(major == 1 && minor == 0);
	cmap_version(r2, &major, &minor);
	assert_true(major == 2 && minor == 0);
	expect_same_maps(r1, r2);
	if (cm_map_cols(m) * cm_map_rows(m) >= 16)
		assert_true(l2 < l1);
	cmap_close(r1);
	cmap_close(r2);
	free(b1);
	free(b2);
}

/* Every bundled map, with the tile sets of its deck. */
static void test_cmap_reader__majors_agree_on_bundled_maps(void **state)
{
	(void)state;
	static const char *const ids[] = { "benelux", "british-isles", "carca-isles", "france", "germany", "iberia",
		                           "nordics", "taiwan", "ukraine", "usa", "usa-east", "usa-west" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		char path[128];
		snprintf(path, sizeof path, "maps/%s/%s.xml", ids[i], ids[i]);
		cm_diags *d;
		cm_workspace *w;
		assert_int_equal(cm_diags_new(&d), 0);
		assert_int_equal(cm_workspace_new(&w), 0);
		assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
		if (cm_workspace_load(w, path, d) != 0 || cm_workspace_resolve(w, d) != 0)
			fail_msg("%s does not load", path);
		const cm_map *m = cm_workspace_find_map(w, ids[i]);
		assert_non_null(m);
		const cm_tileset **sets;
		size_t n;
		assert_int_equal(cm_workspace_map_sets(w, m, &sets, &n), 0);
		expect_majors_agree(m, sets, n);
		free(sets);
		cm_workspace_free(w);
		cm_diags_free(d);
	}
}

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16 & 0x7FFF;
}

/* A cols x rows map with random kinds and prints, and on random squares a
 * name, markers, arms, an island, a big city, print arms and labels
 * (several rank blocks of 64 squares, rows that do not divide them). */
static cm_map *random_map(unsigned seed, int cols, int rows)
{
	cm_map_builder *m = util_builder(cols, rows);
	util_id_set(m, "random", "Random");
	for (int i = 0; i < 3; i++) {
		char t[32];
		snprintf(t, sizeof t, "isle%d", i);
		util_island_add(m, t, i == 1 ? NULL : t + 1);
	}
	cm_tile_type none;
	memset(&none, 0, sizeof none);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(cm_map_builder_add_bigcity(m, i ? "Metro" : "Capital", 0, NULL), 0);
		assert_int_equal(cm_map_builder_add_piece(m, (size_t)i, i % cols, 0, &none), 0);
	}
	unsigned s = seed;
	for (int y = 0; y < rows; y++)
		for (int x = 0; x < cols; x++) {
			cm_square sq = *cm_map_builder_square(m, x, y), *q = &sq;
			q->kind = (uint8_t)(rnd(&s) % CM_SQ_KIND_COUNT);
			for (int e = 0; e < 4; e++) {
				q->print[e].kind = (uint8_t)(rnd(&s) % 7 < 4 ? 0 : rnd(&s) % 4);
				if (q->print[e].kind && rnd(&s) % 9 == 0)
					q->print[e].arms = (uint8_t)(1 + rnd(&s) % 3);
				if (rnd(&s) % 11 == 0) {
					char l[32];
					snprintf(l, sizeof l, "to %d,%d", x, y);
					util_label_set(m, x, y, (cm_side)e, l);
				}
			}
			unsigned r = rnd(&s) % 40;
			if (r == 0) {
				char n[32];
				snprintf(n, sizeof n, "Place %d %d", x, y);
				util_name_set(m, x, y, n);
			} else if (r == 1) {
				util_marker_add(m, x, y, "chip");
				util_marker_add(m, x, y, "coin");
			} else if (r == 2) {
				q->island = (int32_t)(rnd(&s) % 3);
				q->arms = (uint8_t)(rnd(&s) % 3);
			} else if (r == 3) {
				q->bigcity = (int32_t)(rnd(&s) % 2);
			} else if (r == 4) {
				q->arms = 1;
			} else if (r == 5) {
				util_name_set(m, x, y, "");
			}
			util_square_set(m, x, y, q);
		}
	return util_finish(m);
}

static void test_cmap_reader__majors_agree_on_random_maps(void **state)
{
	(void)state;
	static const int dims[][2] = { { 1, 1 }, { 3, 2 }, { 64, 1 }, { 1, 65 }, { 37, 29 }, { 128, 16 }, { 200, 111 } };
	for (unsigned i = 0; i < sizeof dims / sizeof dims[0]; i++) {
		cm_map *m = random_map(i + 1, dims[i][0], dims[i][1]);
		expect_majors_agree(m, NULL, 0);
		cm_map_free(m);
	}
}

/* A 1.0 file that carcamap wrote before 2.0 (tests/fixtures/export/
 * tiny-1.0.cmap) reads as the 2.0 export of the same map, and the 1.0
 * writer still writes those bytes. */
static void test_cmap_reader__reads_the_1_0_fixture(void **state)
{
	(void)state;
	cmap_map *old, *now;
	assert_int_equal(cmap_open_file("tests/fixtures/export/tiny-1.0.cmap", &old), 0);
	unsigned major, minor;
	cmap_version(old, &major, &minor);
	assert_true(major == 1 && minor == 0);
	cm_diags *d;
	cm_workspace *w;
	assert_int_equal(cm_diags_new(&d), 0);
	assert_int_equal(cm_workspace_new(&w), 0);
	assert_int_equal(cm_workspace_add_tileset_dir(w, "maps/tilesets"), 0);
	assert_int_equal(cm_workspace_load(w, "tests/fixtures/cli/tiny/tiny.xml", d), 0);
	assert_int_equal(cm_workspace_resolve(w, d), 0);
	const cm_map *m = cm_workspace_find_map(w, "tiny");
	assert_non_null(m);
	const cm_tileset **sets;
	size_t n, l2, l1, lf;
	assert_int_equal(cm_workspace_map_sets(w, m, &sets, &n), 0);
	unsigned char *b2, *b1;
	assert_int_equal(util_export_bin(m, sets, n, 0, &b2, &l2), 0);
	assert_int_equal(cmap_open(b2, l2, &now), 0);
	expect_same_maps(old, now);
	assert_int_equal(util_export_bin(m, sets, n, 1, &b1, &l1), 0);
	unsigned char *fx = (unsigned char *)util_read_file("tests/fixtures/export/tiny-1.0.cmap", &lf);
	assert_int_equal(l1, lf);
	assert_memory_equal(b1, fx, l1);
	free(fx);
	free(b1);
	cmap_close(now);
	cmap_close(old);
	free(b2);
	free(sets);
	cm_workspace_free(w);
	cm_diags_free(d);
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
		cmocka_unit_test(test_cmap_reader__sections_overlapping_by_one_byte),
		cmocka_unit_test(test_cmap_reader__strings_are_checked_utf8),
		cmocka_unit_test(test_cmap_reader__names_match_the_library),
		cmocka_unit_test(test_cmap_reader__rule_constants_match_the_table),
		cmocka_unit_test(test_cmap_reader__slots_and_rotation_match_the_library),
		cmocka_unit_test(test_cmap_reader__edge_prints_by_square),
		cmocka_unit_test(test_cmap_reader__open_file),
		cmocka_unit_test(test_cmap_reader__majors_agree_on_bundled_maps),
		cmocka_unit_test(test_cmap_reader__majors_agree_on_random_maps),
		cmocka_unit_test(test_cmap_reader__reads_the_1_0_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
