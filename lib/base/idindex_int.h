/* SPDX-License-Identifier: MIT */
/* idindex_int.h: an index of distinct strings (map and tile set ids) to
 * the positions of the items that hold them (idindex.c). A crit-bit tree:
 * a lookup or an insertion costs the key's length, whatever keys were
 * added before, so no choice of ids makes loading many items quadratic. */
#ifndef CM_IDINDEX_INT_H
#define CM_IDINDEX_INT_H

#include <stddef.h>
#include <stdint.h>

typedef struct cm_idnode cm_idnode;

/* Item i's key is keys[i], borrowed: the strings must stay in place and
 * unchanged while the index lives. Zero-initialised is empty. */
typedef struct {
	const char **keys;
	size_t n, cap;
	cm_idnode *node; /* n - 1 of them once n > 0 */
	size_t cap_node;
	uint32_t root;
} cm_idindex;

#define CM_IDINDEX_NONE ((size_t)-1)

/* The position of the item whose key is key, or CM_IDINDEX_NONE. */
size_t cm_idindex_find(const cm_idindex *x, const char *key);
/* Adds key (borrowed) as item x->n. key must not be in the index yet (ask
 * cm_idindex_find first). 0, CM_ENOMEM or CM_ELIMIT (2^31 items). */
int cm_idindex_add(cm_idindex *x, const char *key);
/* Frees what the index holds (not the keys) and empties it. */
void cm_idindex_free(cm_idindex *x);

#endif
