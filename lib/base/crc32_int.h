/* SPDX-License-Identifier: MIT */
/* crc32_int.h: CRC-32 (ISO-HDLC: the zlib, PNG and CMAP one), with the
 * x86 carry-less multiply where the processor has it: the client binary's
 * section checksums, a few megabytes for a million squares. */
#ifndef CM_CRC32_INT_H
#define CM_CRC32_INT_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of n bytes at p continuing crc (0 to start), as zlib's
 * crc32_z(crc, p, n) gives it. */
uint32_t cm_crc32(uint32_t crc, const void *p, size_t n);
/* The same without the processor's instructions (tests compare both). */
uint32_t cm_crc32_portable(uint32_t crc, const void *p, size_t n);

#endif
