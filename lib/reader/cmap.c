/* SPDX-License-Identifier: MIT */
/* cmap.c: the dependency-free reader of carcamap's binary map export (see
 * cmap.h and schemas/export-bin.md). cmap_open validates the whole buffer
 * once (bounds, CRCs, counts, strings, cross-references, enumerations) so
 * that the accessors only decode little-endian fields at checked offsets.
 * Reads majors 1 (a record per square and per print) and 2 (two bytes per
 * square, records only for what few squares and prints carry more). Plain
 * C99; the only allocations are the small cmap_map itself, for 2.x a rank
 * index of the prints (4 bytes per 64 squares), and, for cmap_open_file,
 * the file's bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmap.h"

#define HEADER_SIZE 24u
#define ENTRY_SIZE 16u

/* Sections this reader knows; the table ones share one layout:
 * u32 count, u32 record size, then the records. SQRS and PRNT are 1.x
 * only, GRID, SQEX and PREX 2.x only; a file of one major has every
 * section of its own (the other major's tags are unknown to it). */
enum { S_META, S_RULE, S_STRS, S_SQRS, S_MRKS, S_PRNT, S_BIGC, S_PIEC, S_FEAT, S_CONT,
       S_FERY, S_ISLD, S_TSET, S_TILE, S_DECK, S_GRID, S_SQEX, S_PREX, S_COUNT };
static const char tags[S_COUNT][5] = { "META", "RULE", "STRS", "SQRS", "MRKS", "PRNT", "BIGC",
                                       "PIEC", "FEAT", "CONT", "FERY", "ISLD", "TSET", "TILE",
                                       "DECK", "GRID", "SQEX", "PREX" };
/* the smallest record size of each table (its x.0 size); 0: not a table */
static const uint32_t min_rec[S_COUNT] = { 16, 20, 0, 20, 4, 12, 12, 24, 16, 4, 16, 8, 32, 48, 12,
                                           2, 24, 12 };
/* whether section s belongs to major version major (1 or 2) */
static int in_major(int s, unsigned major)
{
	if (s == S_SQRS || s == S_PRNT)
		return major == 1;
	if (s == S_GRID || s == S_SQEX || s == S_PREX)
		return major == 2;
	return 1;
}
/* cmap_table -> section (CMAP_T_PRINTS: counted at open in 2.x) */
static const int table_sec[] = { S_MRKS, S_PRNT, S_BIGC, S_PIEC, S_FEAT, S_CONT,
                                 S_FERY, S_ISLD, S_TSET, S_TILE, S_DECK };
#define RANK_BLOCK 64u /* squares per entry of the 2.x print rank index */

typedef struct {
	const unsigned char *p; /* first record */
	uint32_t n, rs;         /* records, record size */
} table;

struct cmap_map {
	unsigned major, minor;
	const unsigned char *strs;
	uint32_t strs_len;
	table t[S_COUNT];
	uint32_t next_contact; /* while opening: where the next shape's contacts begin */
	uint32_t n_prints;     /* edge prints (1.x: PRNT records; 2.x: counted in GRID) */
	uint32_t *rank;        /* 2.x: prints before each block of RANK_BLOCK squares */
	void *owned; /* the bytes cmap_open_file read, or NULL */
};

const char *cmap_strerror(int code)
{
	switch (code) {
	case CMAP_OK: return "no error";
	case CMAP_EARG: return "bad argument";
	case CMAP_ENOMEM: return "out of memory";
	case CMAP_ETRUNC: return "file is truncated";
	case CMAP_EMAGIC: return "not a cmap file";
	case CMAP_EVERSION: return "unsupported major version";
	case CMAP_ECRC: return "checksum mismatch";
	case CMAP_EBOUNDS: return "section outside the file";
	case CMAP_ECOUNT: return "record count does not fit its section";
	case CMAP_ESTRREF: return "string offset outside the string table";
	case CMAP_ESTRTERM: return "string table not terminated";
	case CMAP_EMISSING: return "required section missing";
	case CMAP_EFORMAT: return "malformed section";
	case CMAP_EREF: return "reference out of range";
	case CMAP_EVALUE: return "value out of range";
	case CMAP_EIO: return "cannot read the file";
	case CMAP_EUTF8: return "string is not valid UTF-8";
	default: return "unknown error";
	}
}

static uint32_t rd16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* CRC-32 (ISO-HDLC), a byte at a time through a table made per call (256
 * entries: cheap beside the sections it checks, and no shared state). */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	uint32_t t[256], c;
	size_t i;
	int k;
	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
		t[i] = c;
	}
	c = 0xFFFFFFFFu;
	for (i = 0; i < n; i++)
		c = t[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

/* The edge prints a 2.x GRID print byte holds (its non-zero 2-bit fields). */
static unsigned prints_in(unsigned v)
{
	v = (v | v >> 1) & 0x55u;
	return (v & 1u) + (v >> 2 & 1u) + (v >> 4 & 1u) + (v >> 6 & 1u);
}

static const unsigned char *rec(const cmap_map *m, int s, uint32_t i)
{
	return m->t[s].p + (size_t)i * m->t[s].rs;
}

static const char *str_at(const cmap_map *m, uint32_t off)
{
	return off == CMAP_NONE ? NULL : (const char *)m->strs + off;
}

/* ---- validation ---- */

static int check_str(const cmap_map *m, uint32_t off)
{
	return off == CMAP_NONE || off < m->strs_len ? 0 : CMAP_ESTRREF;
}

/* The string table is UTF-8 throughout (NULs end strings): shortest forms
 * only, no surrogates, nothing above U+10FFFF. */
static int check_utf8(const unsigned char *p, uint32_t n)
{
	uint32_t i = 0;
	while (i < n) {
		unsigned c = p[i], k, lo = 0x80, hi = 0xBF;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			k = 1;
		else if (c >= 0xE0 && c <= 0xEF) {
			k = 2;
			if (c == 0xE0)
				lo = 0xA0; /* overlong */
			else if (c == 0xED)
				hi = 0x9F; /* surrogates */
		} else if (c >= 0xF0 && c <= 0xF4) {
			k = 3;
			if (c == 0xF0)
				lo = 0x90; /* overlong */
			else if (c == 0xF4)
				hi = 0x8F; /* past U+10FFFF */
		} else
			return CMAP_EUTF8;
		if (k > n - i - 1)
			return CMAP_EUTF8;
		if (p[i + 1] < lo || p[i + 1] > hi)
			return CMAP_EUTF8;
		for (c = 2; c <= k; c++)
			if (p[i + c] < 0x80 || p[i + c] > 0xBF)
				return CMAP_EUTF8;
		i += k + 1;
	}
	return 0;
}

/* first+n within a table of size total, without overflow */
static int check_range(uint32_t first, uint32_t n, uint32_t total)
{
	return first <= total && n <= total - first ? 0 : CMAP_EREF;
}

static int check_opt_index(uint32_t i, uint32_t total)
{
	return i == CMAP_NONE || i < total ? 0 : CMAP_EREF;
}

static int check_xy(const cmap_map *m, uint32_t x, uint32_t y)
{
	return x < rd32(rec(m, S_META, 0) + 8) && y < rd32(rec(m, S_META, 0) + 12) ? 0 : CMAP_EREF;
}

/* Sort key of the edge print at p: its square in row-major order, then side. */
static uint64_t print_key(const cmap_map *m, const unsigned char *p)
{
	return ((uint64_t)rd16(p + 2) * rd32(rec(m, S_META, 0) + 8) + rd16(p)) * 4u + p[4];
}

/* A shape at p: edges[4], first/n features, first/n contacts; feature
 * relations must stay inside the shape's own features. The shapes' contact
 * ranges follow each other in CONT (pieces, then tiles, as written), so
 * every contact is checked once however the file is made. */
static int check_shape(cmap_map *m, const unsigned char *p)
{
	uint32_t ff = rd32(p + 4), nf = rd32(p + 8), fc = rd32(p + 12), nc = rd32(p + 16);
	uint32_t i, own;
	int rc;
	for (i = 0; i < 4; i++)
		if (p[i] > CMAP_EDGE_ABBEY)
			return CMAP_EVALUE;
	if ((rc = check_range(ff, nf, m->t[S_FEAT].n)) || (rc = check_range(fc, nc, m->t[S_CONT].n)))
		return rc;
	if (fc != m->next_contact)
		return CMAP_EFORMAT;
	m->next_contact = fc + nc;
	if (nf > 32)
		return CMAP_EFORMAT;
	own = nf == 32 ? 0xFFFFFFFFu : (1u << nf) - 1u;
	for (i = 0; i < nf; i++)
		if (rd32(rec(m, S_FEAT, ff + i) + 12) & ~own)
			return CMAP_EREF;
	for (i = 0; i < nc; i++)
		if (rd32(rec(m, S_CONT, fc + i)) & ~own)
			return CMAP_EREF;
	return 0;
}

/* Checks every record of section s; returns the first problem. */
static int check_records(cmap_map *m, int s)
{
	const table *t = &m->t[s];
	uint32_t i;
	int rc = 0;
	for (i = 0; i < t->n && !rc; i++) {
		const unsigned char *p = rec(m, s, i);
		switch (s) {
		case S_META:
			if (rd32(p) == CMAP_NONE)
				return CMAP_EFORMAT;
			if (rd32(p + 8) == 0 || rd32(p + 12) == 0 || rd32(p + 8) > 65535 ||
			    rd32(p + 12) > 65535)
				return CMAP_EFORMAT;
			if (!(rc = check_str(m, rd32(p))))
				rc = check_str(m, rd32(p + 4));
			break;
		case S_RULE:
			if (p[16] > CMAP_C3 || p[17] < CMAP_FARMERS_C1 || p[17] > CMAP_FARMERS_C2 ||
			    (p[18] & ~CMAP_RULE_ALL))
				return CMAP_EVALUE;
			break;
		case S_SQRS:
			if (p[0] > CMAP_SQ_HALF)
				return CMAP_EVALUE;
			if ((rc = check_str(m, rd32(p + 4))) ||
			    (rc = check_opt_index(rd32(p + 8), m->t[S_ISLD].n)) ||
			    (rc = check_opt_index(rd32(p + 12), m->t[S_BIGC].n)))
				return rc;
			rc = check_range(rd32(p + 16), rd16(p + 2), m->t[S_MRKS].n);
			break;
		case S_MRKS:
			rc = check_str(m, rd32(p));
			break;
		case S_ISLD:
			if (!(rc = check_str(m, rd32(p))))
				rc = check_str(m, rd32(p + 4));
			break;
		case S_PRNT:
			if (p[4] > CMAP_W || p[5] < CMAP_PRINT_NEUTRAL || p[5] > CMAP_PRINT_CITY)
				return CMAP_EVALUE;
			if ((rc = check_xy(m, rd16(p), rd16(p + 2))) || (rc = check_str(m, rd32(p + 8))))
				return rc;
			/* in square order, then N E S W, one per side: cmap_square_prints
			 * searches them */
			if (i > 0 && print_key(m, p) <= print_key(m, rec(m, S_PRNT, i - 1)))
				return CMAP_EFORMAT;
			break;
		case S_BIGC:
			if (!(rc = check_str(m, rd32(p))))
				rc = check_range(rd32(p + 4), rd32(p + 8), m->t[S_PIEC].n);
			break;
		case S_PIEC:
			if (!(rc = check_xy(m, rd16(p), rd16(p + 2))))
				rc = check_shape(m, p + 4);
			break;
		case S_FEAT:
			if (p[0] > CMAP_FEAT_ABBEY || p[2] > 3 || p[3] > CMAP_GOOD_CLOTH ||
			    rd16(p + 4) > 0x0FFF)
				return CMAP_EVALUE;
			rc = check_str(m, rd32(p + 8));
			break;
		case S_FERY:
			if (p[12] > CMAP_W || p[13] > CMAP_W)
				return CMAP_EVALUE;
			if ((rc = check_xy(m, rd16(p + 4), rd16(p + 6))) ||
			    (rc = check_xy(m, rd16(p + 8), rd16(p + 10))))
				return rc;
			rc = check_str(m, rd32(p));
			break;
		case S_TSET:
			if ((rc = check_str(m, rd32(p))) || (rc = check_str(m, rd32(p + 4))))
				return rc;
			if (rd32(p) == CMAP_NONE)
				return CMAP_EFORMAT;
			rc = check_range(rd32(p + 24), rd32(p + 28), m->t[S_TILE].n);
			break;
		case S_TILE:
			if ((rc = check_str(m, rd32(p))) || (rc = check_str(m, rd32(p + 4))))
				return rc;
			if (rd32(p) == CMAP_NONE)
				return CMAP_EFORMAT;
			rc = check_shape(m, p + 28);
			break;
		case S_DECK:
			if (rd32(p) >= m->t[S_TSET].n)
				return CMAP_EREF;
			if (rd32(p + 4) != CMAP_NONE) {
				/* a single tile type: one of its own set's */
				const unsigned char *ts = rec(m, S_TSET, rd32(p));
				if (rd32(p + 4) - rd32(ts + 24) >= rd32(ts + 28) ||
				    rd32(p + 4) < rd32(ts + 24))
					return CMAP_EREF;
			}
			break;
		case S_SQEX:
			/* one per square, in square order; markers follow each other
			 * from 0 (a square without a record starts where the last
			 * one before it ends) */
			if (rd32(p) >= m->t[S_GRID].n)
				return CMAP_EREF;
			if (i > 0 && rd32(p) <= rd32(rec(m, S_SQEX, i - 1)))
				return CMAP_EFORMAT;
			if (rd32(p + 20) != (i > 0 ? rd32(rec(m, S_SQEX, i - 1) + 20) + rd16(rec(m, S_SQEX, i - 1) + 6) : 0))
				return CMAP_EFORMAT;
			if ((rc = check_str(m, rd32(p + 8))) ||
			    (rc = check_opt_index(rd32(p + 12), m->t[S_ISLD].n)) ||
			    (rc = check_opt_index(rd32(p + 16), m->t[S_BIGC].n)))
				return rc;
			rc = check_range(rd32(p + 20), rd16(p + 6), m->t[S_MRKS].n);
			break;
		case S_PREX:
			/* in square-then-side order, one per side, each on a side
			 * whose GRID byte has a print */
			if (p[4] > CMAP_W)
				return CMAP_EVALUE;
			if (rd32(p) >= m->t[S_GRID].n)
				return CMAP_EREF;
			if (i > 0 && (uint64_t)rd32(p) * 4u + p[4] <=
			                     (uint64_t)rd32(rec(m, S_PREX, i - 1)) * 4u + rec(m, S_PREX, i - 1)[4])
				return CMAP_EFORMAT;
			if (!(rec(m, S_GRID, rd32(p))[1] >> (2u * p[4]) & 3u))
				return CMAP_EREF;
			rc = check_str(m, rd32(p + 8));
			break;
		default: /* CONT: checked with the shapes that own them; GRID: check_grid */
			break;
		}
	}
	return rc;
}

/* 2.x GRID: every kind in range; counts the prints and builds the rank
 * index (the prints before each block of RANK_BLOCK squares) that
 * cmap_get_print and cmap_square_prints use. */
static int check_grid(cmap_map *m)
{
	const table *t = &m->t[S_GRID];
	uint32_t i, nb = t->n / RANK_BLOCK + 1;
	uint64_t n = 0;
	m->rank = malloc((size_t)nb * sizeof *m->rank);
	if (!m->rank)
		return CMAP_ENOMEM;
	for (i = 0; i < t->n; i++) {
		const unsigned char *p = t->p + (size_t)i * t->rs;
		if (i % RANK_BLOCK == 0)
			m->rank[i / RANK_BLOCK] = (uint32_t)n;
		if (p[0] > CMAP_SQ_HALF)
			return CMAP_EVALUE;
		n += prints_in(p[1]);
		if (n >= CMAP_NONE)
			return CMAP_ECOUNT;
	}
	if (t->n % RANK_BLOCK == 0)
		m->rank[t->n / RANK_BLOCK] = (uint32_t)n;
	m->n_prints = (uint32_t)n;
	return 0;
}

/* Finds the known sections in the table: every entry's bounds, then the
 * tag, and the CRC of the known sections alone, which may not overlap, so
 * each byte is checksummed at most once. Sections of unknown tags (a later
 * minor version's) are skipped unread. */
static int read_table(cmap_map *m, const unsigned char *b, uint32_t size, uint32_t n,
                      const unsigned char *sec[S_COUNT], uint32_t sec_len[S_COUNT])
{
	uint32_t i, off[S_COUNT], crc[S_COUNT];
	int s, k;
	if (n > (size - HEADER_SIZE) / ENTRY_SIZE)
		return CMAP_EBOUNDS;
	if (crc32_of(b + HEADER_SIZE, (size_t)n * ENTRY_SIZE) != rd32(b + 20))
		return CMAP_ECRC;
	for (i = 0; i < n; i++) {
		const unsigned char *e = b + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		uint32_t o = rd32(e + 4), len = rd32(e + 8);
		if (o > size || len > size - o)
			return CMAP_EBOUNDS;
		for (s = 0; s < S_COUNT; s++)
			if (in_major(s, m->major) && memcmp(e, tags[s], 4) == 0)
				break;
		if (s == S_COUNT)
			continue;
		if (sec[s])
			return CMAP_EFORMAT;
		sec[s] = b + o;
		sec_len[s] = len;
		off[s] = o;
		crc[s] = rd32(e + 12);
	}
	for (s = 0; s < S_COUNT; s++)
		for (k = 0; sec[s] && k < s; k++)
			if (sec[k] && sec_len[s] && sec_len[k] && off[s] < off[k] + sec_len[k] && off[k] < off[s] + sec_len[s])
				return CMAP_EFORMAT;
	for (s = 0; s < S_COUNT; s++)
		if (sec[s] && crc32_of(sec[s], sec_len[s]) != crc[s])
			return CMAP_ECRC;
	return 0;
}

static int open_checked(cmap_map *m, const unsigned char *b, size_t len)
{
	const unsigned char *sec[S_COUNT] = { 0 };
	uint32_t sec_len[S_COUNT] = { 0 };
	uint32_t size;
	int s, rc, sq = S_SQRS;
	if (memcmp(b, "CMAP\r\n\x1a\n", len < 8 ? len : 8) != 0)
		return CMAP_EMAGIC;
	if (len < HEADER_SIZE)
		return CMAP_ETRUNC;
	m->major = rd16(b + 8);
	m->minor = rd16(b + 10);
	if (m->major < 1 || m->major > CMAP_MAJOR)
		return CMAP_EVERSION;
	size = rd32(b + 12);
	if (size > len)
		return CMAP_ETRUNC;
	if (size < HEADER_SIZE)
		return CMAP_EFORMAT;
	if ((rc = read_table(m, b, size, rd32(b + 16), sec, sec_len)))
		return rc;
	for (s = 0; s < S_COUNT; s++)
		if (!sec[s] && in_major(s, m->major))
			return CMAP_EMISSING;
	m->strs = sec[S_STRS];
	m->strs_len = sec_len[S_STRS];
	if (m->strs_len && m->strs[m->strs_len - 1] != 0)
		return CMAP_ESTRTERM;
	if ((rc = check_utf8(m->strs, m->strs_len)))
		return rc;
	for (s = 0; s < S_COUNT; s++) {
		table *t = &m->t[s];
		if (!min_rec[s] || !sec[s])
			continue;
		if (sec_len[s] < 8)
			return CMAP_EFORMAT;
		t->n = rd32(sec[s]);
		t->rs = rd32(sec[s] + 4);
		t->p = sec[s] + 8;
		if (t->rs < min_rec[s])
			return CMAP_EFORMAT;
		if (t->n > (sec_len[s] - 8) / t->rs)
			return CMAP_ECOUNT;
	}
	if (m->t[S_META].n != 1 || m->t[S_RULE].n != 1)
		return CMAP_EFORMAT;
	if ((rc = check_records(m, S_META)))
		return rc;
	if (m->major >= 2)
		sq = S_GRID;
	if ((uint64_t)cmap_cols(m) * cmap_rows(m) != m->t[sq].n)
		return CMAP_EFORMAT;
	if (m->major >= 2 && (rc = check_grid(m)))
		return rc;
	for (s = 0; s < S_COUNT; s++)
		if (s != S_META && sec[s] && (rc = check_records(m, s)))
			return rc;
	if (m->major == 1)
		m->n_prints = m->t[S_PRNT].n;
	return 0;
}

int cmap_open(const void *buf, size_t len, cmap_map **out)
{
	cmap_map *m;
	int rc;
	if (!out)
		return CMAP_EARG;
	*out = NULL;
	if (!buf)
		return CMAP_EARG;
	m = calloc(1, sizeof *m);
	if (!m)
		return CMAP_ENOMEM;
	rc = open_checked(m, (const unsigned char *)buf, len);
	if (rc) {
		free(m->rank);
		free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void cmap_close(cmap_map *m)
{
	if (m) {
		free(m->owned);
		free(m->rank);
	}
	free(m);
}

int cmap_open_file(const char *path, cmap_map **out)
{
	FILE *f;
	unsigned char *buf = NULL, *grown;
	size_t len = 0, cap = 0, got;
	int rc;
	if (!out)
		return CMAP_EARG;
	*out = NULL;
	if (!path)
		return CMAP_EARG;
	if (!(f = fopen(path, "rb")))
		return CMAP_EIO;
	for (;;) {
		if (len == cap) {
			/* doubling: reading costs time linear in the file's size */
			size_t ncap = cap ? cap * 2 : 65536;
			if (ncap < cap || !(grown = realloc(buf, ncap))) {
				free(buf);
				fclose(f);
				return CMAP_ENOMEM;
			}
			buf = grown;
			cap = ncap;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	rc = ferror(f) ? CMAP_EIO : 0;
	if (fclose(f) && !rc)
		rc = CMAP_EIO;
	if (!rc)
		rc = cmap_open(buf, len, out);
	if (rc) {
		free(buf);
		return rc;
	}
	(*out)->owned = buf;
	return 0;
}

/* ---- accessors ---- */

void cmap_version(const cmap_map *m, unsigned *major, unsigned *minor)
{
	*major = m->major;
	*minor = m->minor;
}

const char *cmap_id(const cmap_map *m) { return str_at(m, rd32(rec(m, S_META, 0))); }
const char *cmap_name(const cmap_map *m) { return str_at(m, rd32(rec(m, S_META, 0) + 4)); }
uint32_t cmap_cols(const cmap_map *m) { return rd32(rec(m, S_META, 0) + 8); }
uint32_t cmap_rows(const cmap_map *m) { return rd32(rec(m, S_META, 0) + 12); }

uint32_t cmap_count(const cmap_map *m, cmap_table t)
{
	if (t == CMAP_T_PRINTS)
		return m->n_prints;
	return (unsigned)t < sizeof table_sec / sizeof table_sec[0] ? m->t[table_sec[t]].n : 0;
}

void cmap_get_rules(const cmap_map *m, cmap_rules *out)
{
	const unsigned char *p = rec(m, S_RULE, 0);
	out->starts_used = (int32_t)rd32(p);
	out->tiles_min = (int32_t)rd32(p + 4);
	out->tiles_max = (int32_t)rd32(p + 8);
	out->followers = (int32_t)rd32(p + 12);
	out->edition = p[16];
	out->farmers = p[17];
	out->tiny_city = (p[18] & CMAP_RULE_TINY_CITY) != 0;
	out->farmers_bigcity = (p[18] & CMAP_RULE_FARMERS_BIGCITY) != 0;
	out->town_extra_turn = (p[18] & CMAP_RULE_TOWN_EXTRA_TURN) != 0;
	out->town_cost = (p[18] & CMAP_RULE_TOWN_COST) != 0;
	out->town_road_bonus = (p[18] & CMAP_RULE_TOWN_ROAD_BONUS) != 0;
	out->abbey_edge = (p[18] & CMAP_RULE_ABBEY_EDGE) != 0;
}

/* The record i of section s, or NULL when i is past the end. */
static const unsigned char *get(const cmap_map *m, int s, uint32_t i, const void *out)
{
	return m && out && i < m->t[s].n ? rec(m, s, i) : NULL;
}

/* 2.x: the index of the first record of table s (SQEX or PREX) whose key
 * (square, or square * 4 + side for PREX) is at least key. */
static uint32_t lower_bound(const cmap_map *m, int s, uint64_t key)
{
	uint32_t lo = 0, hi = m->t[s].n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const unsigned char *p = rec(m, s, mid);
		uint64_t k = s == S_PREX ? (uint64_t)rd32(p) * 4u + p[4] : rd32(p);
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int cmap_get_square(const cmap_map *m, uint32_t x, uint32_t y, cmap_square *out)
{
	const unsigned char *p;
	uint32_t sq, k;
	if (!m || !out || x >= cmap_cols(m) || y >= cmap_rows(m))
		return CMAP_EARG;
	sq = y * cmap_cols(m) + x;
	if (m->major >= 2) {
		out->kind = rec(m, S_GRID, sq)[0];
		k = lower_bound(m, S_SQEX, sq);
		if (k < m->t[S_SQEX].n && rd32(p = rec(m, S_SQEX, k)) == sq) {
			out->arms = p[4];
			out->n_markers = rd16(p + 6);
			out->name = str_at(m, rd32(p + 8));
			out->island = rd32(p + 12);
			out->bigcity = rd32(p + 16);
			out->first_marker = rd32(p + 20);
		} else {
			/* nothing beside the grid; its (empty) markers start where
			 * the last record before it ends */
			p = k ? rec(m, S_SQEX, k - 1) : NULL;
			out->arms = 0;
			out->n_markers = 0;
			out->name = NULL;
			out->island = CMAP_NONE;
			out->bigcity = CMAP_NONE;
			out->first_marker = p ? rd32(p + 20) + rd16(p + 6) : 0;
		}
		return 0;
	}
	p = rec(m, S_SQRS, sq);
	out->kind = p[0];
	out->arms = p[1];
	out->n_markers = rd16(p + 2);
	out->name = str_at(m, rd32(p + 4));
	out->island = rd32(p + 8);
	out->bigcity = rd32(p + 12);
	out->first_marker = rd32(p + 16);
	return 0;
}

int cmap_get_marker(const cmap_map *m, uint32_t i, const char **out)
{
	const unsigned char *p = get(m, S_MRKS, i, out);
	if (!p)
		return CMAP_EARG;
	*out = str_at(m, rd32(p));
	return 0;
}

/* 2.x: the print byte of square sq */
static unsigned grid_prints(const cmap_map *m, uint32_t sq)
{
	return rec(m, S_GRID, sq)[1];
}

int cmap_get_print(const cmap_map *m, uint32_t i, cmap_print *out)
{
	const unsigned char *p;
	if (m && m->major >= 2) {
		uint32_t lo = 0, hi, sq, r, k;
		unsigned v = 0, side;
		if (!out || i >= m->n_prints)
			return CMAP_EARG;
		/* the last block starting at or before print i, then its squares */
		hi = m->t[S_GRID].n / RANK_BLOCK + 1;
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (m->rank[mid] <= i)
				lo = mid;
			else
				hi = mid;
		}
		r = m->rank[lo];
		for (sq = lo * RANK_BLOCK;; sq++) {
			v = grid_prints(m, sq);
			if (r + prints_in(v) > i)
				break;
			r += prints_in(v);
		}
		for (side = 0;; side++)
			if (v >> (2u * side) & 3u && r++ == i)
				break;
		out->x = sq % cmap_cols(m);
		out->y = sq / cmap_cols(m);
		out->side = side;
		out->kind = v >> (2u * side) & 3u;
		out->arms = 0;
		out->label = NULL;
		k = lower_bound(m, S_PREX, (uint64_t)sq * 4u + side);
		if (k < m->t[S_PREX].n && rd32(p = rec(m, S_PREX, k)) == sq && p[4] == side) {
			out->arms = p[5];
			out->label = str_at(m, rd32(p + 8));
		}
		return 0;
	}
	p = get(m, S_PRNT, i, out);
	if (!p)
		return CMAP_EARG;
	out->x = rd16(p);
	out->y = rd16(p + 2);
	out->side = p[4];
	out->kind = p[5];
	out->arms = p[6];
	out->label = str_at(m, rd32(p + 8));
	return 0;
}

int cmap_get_bigcity(const cmap_map *m, uint32_t i, cmap_bigcity *out)
{
	const unsigned char *p = get(m, S_BIGC, i, out);
	if (!p)
		return CMAP_EARG;
	out->name = str_at(m, rd32(p));
	out->first_piece = rd32(p + 4);
	out->n_pieces = rd32(p + 8);
	return 0;
}

static void shape_at(const unsigned char *p, cmap_shape *out)
{
	int s;
	for (s = 0; s < 4; s++)
		out->edges[s] = p[s];
	out->first_feature = rd32(p + 4);
	out->n_features = rd32(p + 8);
	out->first_contact = rd32(p + 12);
	out->n_contacts = rd32(p + 16);
}

int cmap_get_piece(const cmap_map *m, uint32_t i, cmap_piece *out)
{
	const unsigned char *p = get(m, S_PIEC, i, out);
	if (!p)
		return CMAP_EARG;
	out->x = rd16(p);
	out->y = rd16(p + 2);
	shape_at(p + 4, &out->shape);
	return 0;
}

int cmap_get_feature(const cmap_map *m, uint32_t i, cmap_feature *out)
{
	const unsigned char *p = get(m, S_FEAT, i, out);
	if (!p)
		return CMAP_EARG;
	out->kind = p[0];
	out->arms = p[1];
	out->cathedral = (p[2] & 1) != 0;
	out->inn = (p[2] & 2) != 0;
	out->good = p[3];
	out->slots = (uint16_t)rd16(p + 4);
	out->id = str_at(m, rd32(p + 8));
	out->touches = rd32(p + 12);
	return 0;
}

int cmap_get_contact(const cmap_map *m, uint32_t i, uint32_t *out)
{
	const unsigned char *p = get(m, S_CONT, i, out);
	if (!p)
		return CMAP_EARG;
	*out = rd32(p);
	return 0;
}

int cmap_get_ferry(const cmap_map *m, uint32_t i, cmap_ferry *out)
{
	const unsigned char *p = get(m, S_FERY, i, out);
	if (!p)
		return CMAP_EARG;
	out->name = str_at(m, rd32(p));
	out->x1 = rd16(p + 4);
	out->y1 = rd16(p + 6);
	out->x2 = rd16(p + 8);
	out->y2 = rd16(p + 10);
	out->s1 = p[12];
	out->s2 = p[13];
	out->arms = p[14];
	return 0;
}

int cmap_get_island(const cmap_map *m, uint32_t i, cmap_island *out)
{
	const unsigned char *p = get(m, S_ISLD, i, out);
	if (!p)
		return CMAP_EARG;
	out->name = str_at(m, rd32(p));
	out->title = str_at(m, rd32(p + 4));
	return 0;
}

int cmap_get_tileset(const cmap_map *m, uint32_t i, cmap_tileset *out)
{
	const unsigned char *p = get(m, S_TSET, i, out);
	int e;
	if (!p)
		return CMAP_EARG;
	out->id = str_at(m, rd32(p));
	out->name = str_at(m, rd32(p + 4));
	out->base = p[8] != 0;
	for (e = 0; e < 3; e++)
		out->total[e] = (int32_t)rd32(p + 12 + 4 * e);
	out->first_tile = rd32(p + 24);
	out->n_tiles = rd32(p + 28);
	return 0;
}

int cmap_get_tile(const cmap_map *m, uint32_t i, cmap_tile *out)
{
	const unsigned char *p = get(m, S_TILE, i, out);
	int e;
	if (!p)
		return CMAP_EARG;
	out->id = str_at(m, rd32(p));
	out->name = str_at(m, rd32(p + 4));
	for (e = 0; e < 3; e++)
		out->count[e] = rd32(p + 8 + 4 * e);
	out->in_deck = rd32(p + 20);
	out->start = p[24] != 0;
	shape_at(p + 28, &out->shape);
	return 0;
}

int cmap_get_deck_entry(const cmap_map *m, uint32_t i, cmap_deck_entry *out)
{
	const unsigned char *p = get(m, S_DECK, i, out);
	if (!p)
		return CMAP_EARG;
	out->tileset = rd32(p);
	out->tile = rd32(p + 4);
	out->count = (int32_t)rd32(p + 8);
	return 0;
}

/* ---- names, edge prints by square, slots and rotation ---- */

static const char *name_of(unsigned v, const char *const *names, unsigned n)
{
	return v < n ? names[v] : NULL;
}

const char *cmap_square_kind_name(unsigned kind)
{
	static const char *const n[] = { "none", "land", "start", "town", "bigcity",
		                         "waves", "landmark", "island", "half" };
	return name_of(kind, n, 9);
}

const char *cmap_side_name(unsigned side)
{
	static const char *const n[] = { "N", "E", "S", "W" };
	return name_of(side, n, 4);
}

const char *cmap_print_kind_name(unsigned kind)
{
	static const char *const n[] = { NULL, "neutral", "road", "city" };
	return name_of(kind, n, 4);
}

const char *cmap_edge_kind_name(unsigned kind)
{
	static const char *const n[] = { "field", "road", "city", "abbey" };
	return name_of(kind, n, 4);
}

const char *cmap_feature_kind_name(unsigned kind)
{
	static const char *const n[] = { "road", "city", "field", "monastery", "garden", "abbey" };
	return name_of(kind, n, 6);
}

const char *cmap_good_name(unsigned good)
{
	static const char *const n[] = { "none", "wine", "grain", "cloth" };
	return name_of(good, n, 4);
}

const char *cmap_edition_name(unsigned edition)
{
	static const char *const n[] = { "C1", "C2", "C3" };
	return name_of(edition, n, 3);
}

const char *cmap_slot_name(unsigned bit)
{
	static const char *const n[] = { "Nw", "Nm", "Ne", "En", "Em", "Es",
		                         "Se", "Sm", "Sw", "Ws", "Wm", "Wn" };
	return name_of(bit, n, 12);
}

uint16_t cmap_slots_rotate(uint16_t slots, unsigned turns)
{
	unsigned r = 3u * (turns % 4u), v = slots & 0x0FFFu;
	return (uint16_t)(((v << r) | (v >> (12u - r))) & 0x0FFFu);
}

unsigned cmap_side_rotate(unsigned side, unsigned turns)
{
	return (side + turns) % 4u;
}

unsigned cmap_side_opposite(unsigned side)
{
	return (side + 2u) % 4u;
}

unsigned cmap_slot_facing(unsigned bit)
{
	unsigned side = (bit / 3u) % 4u, p = bit % 3u;
	return 3u * cmap_side_opposite(side) + (2u - p);
}

unsigned cmap_shape_edge(const cmap_shape *s, unsigned side, unsigned turns)
{
	return s->edges[(side % 4u + 4u - turns % 4u) % 4u];
}

int cmap_square_prints(const cmap_map *m, uint32_t x, uint32_t y, uint32_t out[4])
{
	uint32_t lo = 0, hi, s;
	uint64_t first;
	if (!m || !out || x >= cmap_cols(m) || y >= cmap_rows(m))
		return CMAP_EARG;
	for (s = 0; s < 4; s++)
		out[s] = CMAP_NONE;
	if (m->major >= 2) {
		/* the rank of its block, then the prints of the squares before
		 * it in the block */
		uint32_t sq = y * cmap_cols(m) + x, i, r = m->rank[sq / RANK_BLOCK];
		unsigned v = grid_prints(m, sq);
		for (i = sq - sq % RANK_BLOCK; i < sq; i++)
			r += prints_in(grid_prints(m, i));
		for (s = 0; s < 4; s++)
			if (v >> (2u * s) & 3u)
				out[s] = r++;
		return 0;
	}
	/* the first print at or after the square's north side, then its sides:
	 * cmap_open checked the order */
	first = ((uint64_t)y * cmap_cols(m) + x) * 4u;
	hi = m->t[S_PRNT].n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (print_key(m, rec(m, S_PRNT, mid)) < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->t[S_PRNT].n; lo++) {
		uint64_t k = print_key(m, rec(m, S_PRNT, lo));
		if (k >= first + 4)
			break;
		out[k - first] = lo;
	}
	return 0;
}
