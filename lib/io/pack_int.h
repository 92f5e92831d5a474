/* SPDX-License-Identifier: MIT */
/* pack_int.h: what the rest of io asks of a pack (io/pack_open.c) beyond
 * carcamap/pack.h. The pack's own modules share io/pack_db_int.h. */
#ifndef CM_PACK_INT_H
#define CM_PACK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "carcamap/pack.h"

/* The content hash definition (1 or 2) of the pack's stored hashes:
 * CM_MAP_HASH_VERSION from format 3 on. */
int cm__pack_hash_version(const cm_pack *p);

/* Whether the n bytes at head begin with the SQLite signature: the file is
 * an SQLite database, so a pack or another program's (file detection, the
 * XML readers' refusals and the pack opener ask the same question). */
bool cm__sqlite_signature(const void *head, size_t n);

#endif
