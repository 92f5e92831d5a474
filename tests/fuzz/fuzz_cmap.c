/* SPDX-License-Identifier: MIT */
/* fuzz_cmap.c: libFuzzer harness for the dependency-free binary map reader
 * (lib/reader/cmap.c, built in as a client would): cmap_open on any bytes
 * either refuses them with a code or gives a map whose every record and
 * index can be read without leaving the buffer. The input is copied into an
 * exact-size allocation so that ASan sees any read past its end. Random
 * bytes rarely pass the CRC-32s, so an input refused for a CRC is opened a
 * second time with every CRC recomputed, as a writer would: the mutations
 * then reach the checks behind them. */
#include "fuzz_util.h"
#include "../../lib/reader/cmap.c"
#include "fuzz_cmap_walk.h"

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* Recomputes the CRC of each section inside the buffer and the table's. */
static void repair_crcs(unsigned char *b, size_t len)
{
	if (len < HEADER_SIZE)
		return;
	uint32_t n = rd32(b + 16);
	if (n > (len - HEADER_SIZE) / ENTRY_SIZE)
		return;
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = b + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
		uint32_t off = rd32(e + 4), l = rd32(e + 8);
		if (off <= len && l <= len - off)
			put32(e + 12, crc32_of(b + off, l));
	}
	put32(b + 20, crc32_of(b + HEADER_SIZE, (size_t)n * ENTRY_SIZE));
}

static int open_walk(const unsigned char *buf, size_t size)
{
	cmap_map *m = NULL;
	int rc = cmap_open(buf, size, &m);
	FUZZ_REQUIRE((rc == 0) == (m != NULL));
	FUZZ_REQUIRE(cmap_strerror(rc) != NULL);
	if (m)
		cmap_walk(m);
	cmap_close(m);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	if (open_walk(buf, size) == CMAP_ECRC) {
		repair_crcs(buf, size);
		open_walk(buf, size);
	}
	free(buf);
	return 0;
}
