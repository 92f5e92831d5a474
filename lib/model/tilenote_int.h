/* SPDX-License-Identifier: MIT */
/* tilenote_int.h: the one-line tile notation of schemas/scenario.md
 * ("city[Nw Nm Ne] id=c1 arms=2 ; field[…] id=f1 touches=c1 ; contact[c1 r1]")
 * for the features of one tile or big-city piece, written and read back.
 * The TMX export and reader carry big-city pieces in it. Pure text. */
#ifndef CM_TILENOTE_INT_H
#define CM_TILENOTE_INT_H

#include <stddef.h>
#include "carcamap/tile.h"

/* The features and contacts of t, every feature with its id, attributes
 * only when not default, items separated by " ; ". New string or NULL. */
char *cm_tilenote_format(const cm_tile_type *t);

/* Parses the notation into t (emptied first): features get the ids
 * m1 c1 r1 f1 g1 a1 … by kind unless id= is given; then t is derived.
 * On a problem returns CM_EINVAL with a message in err (t is cleared);
 * else 0 or CM_ENOMEM. Cost linear in the text. */
int cm_tilenote_parse(const char *s, cm_tile_type *t, char *err, size_t errsize);

#endif
