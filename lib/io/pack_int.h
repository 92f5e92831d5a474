/* SPDX-License-Identifier: MIT */
/* pack_int.h: what the rest of io asks of an open pack (io/pack.c) beyond
 * carcamap/pack.h. */
#ifndef CM_PACK_INT_H
#define CM_PACK_INT_H

#include "carcamap/pack.h"

/* The content hash definition (1 or 2) of the pack's stored hashes:
 * CM_MAP_HASH_VERSION from format 3 on. */
int cm__pack_hash_version(const cm_pack *p);

#endif
