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

/* cm_pack_read_tileset, handing over the copy that verifying a map read
 * when there is one (the pack reads the set again if a later map needs
 * it): a pack's sets are then read once when its maps are read first.
 * With read_only, a set no verification has read is left (CM_ENOTFOUND,
 * nothing reported). */
int cm__pack_take_tileset(cm_pack *p, const char *id, bool read_only, cm_diags *d, cm_tileset **out);

/* Whether the n bytes at head begin with the SQLite signature: the file is
 * an SQLite database, so a pack or another program's (file detection, the
 * XML readers' refusals and the pack opener ask the same question). */
bool cm__sqlite_signature(const void *head, size_t n);

#endif
