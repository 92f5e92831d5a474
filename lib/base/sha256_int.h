/* SPDX-License-Identifier: MIT */
/* sha256_int.h: SHA-256 (FIPS 180-4), used for the content hash of maps in
 * packs. Written here because the dependencies are fixed (no OpenSSL). */
#ifndef CM_SHA256_INT_H
#define CM_SHA256_INT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t h[8];
	uint64_t len;        /* bytes hashed so far */
	uint8_t buf[64];     /* pending partial block */
	size_t n;            /* bytes in buf */
	void (*blocks)(uint32_t h[8], const uint8_t *p, size_t n); /* n whole blocks at p */
} cm_sha256;

void cm_sha256_init(cm_sha256 *c);
/* As cm_sha256_init, with the portable compression even where the
 * processor's SHA extensions would be used (tests compare both). */
void cm_sha256_init_portable(cm_sha256 *c);
void cm_sha256_update(cm_sha256 *c, const void *data, size_t len);
/* Writes the digest to out and leaves c unusable until the next init. */
void cm_sha256_final(cm_sha256 *c, uint8_t out[32]);
/* One-shot digest of a buffer. */
void cm_sha256_buf(const void *data, size_t len, uint8_t out[32]);

#endif
