/* SPDX-License-Identifier: MIT */
/* idindex.c: strings to item positions (base/idindex_int.h) in a crit-bit
 * tree. Each inner node names the first bit where the keys of its two
 * subtrees differ; a walk reads one key byte per node, so a lookup costs
 * at most the key's length in bits plus one strcmp, for any set of keys.
 * (A hash table would be as fast on ordinary ids, but ids chosen to
 * collide under a known hash make its probes quadratic.) */
#include <stdlib.h>
#include <string.h>
#include "base/idindex_int.h"
#include "base/util_int.h"

/* A reference: an inner node's position, or with LEAF set an item's. */
#define LEAF 0x80000000u

struct cm_idnode {
	uint32_t child[2];
	uint32_t byte;  /* the key byte the bit is in */
	uint8_t other;  /* every bit set but the critical one */
};

/* Which way key (of length len) goes at node n. */
static unsigned dir_at(const cm_idnode *n, const unsigned char *key, size_t len)
{
	unsigned c = n->byte < len ? key[n->byte] : 0;
	return (1u + (n->other | c)) >> 8;
}

/* The item whose key agrees with key on every critical bit of its path. */
static uint32_t best(const cm_idindex *x, const unsigned char *key, size_t len)
{
	uint32_t p = x->root;
	while (!(p & LEAF))
		p = x->node[p].child[dir_at(&x->node[p], key, len)];
	return p & ~LEAF;
}

size_t cm_idindex_find(const cm_idindex *x, const char *key)
{
	if (!x->n || !key)
		return CM_IDINDEX_NONE;
	uint32_t i = best(x, (const unsigned char *)key, strlen(key));
	return strcmp(x->keys[i], key) == 0 ? i : CM_IDINDEX_NONE;
}

int cm_idindex_add(cm_idindex *x, const char *key)
{
	if (x->n >= LEAF - 1)
		return CM_ELIMIT;
	if (cm_grow((void **)&x->keys, &x->cap, x->n, sizeof *x->keys))
		return CM_ENOMEM;
	uint32_t item = (uint32_t)x->n;
	if (!x->n) {
		x->keys[0] = key;
		x->root = LEAF;
		x->n = 1;
		return 0;
	}
	if (cm_grow((void **)&x->node, &x->cap_node, x->n - 1, sizeof *x->node))
		return CM_ENOMEM;
	const unsigned char *k = (const unsigned char *)key;
	size_t len = strlen(key);
	const unsigned char *q = (const unsigned char *)x->keys[best(x, k, len)];
	/* the first byte where key and its best match differ (a key's NUL
	 * differs from the other's longer bytes) */
	size_t b = 0;
	while (b < len && k[b] == q[b])
		b++;
	unsigned diff = (unsigned)(k[b] ^ q[b]);
	if (!diff)
		return CM_EINVAL; /* the key is already there */
	diff |= diff >> 1;
	diff |= diff >> 2;
	diff |= diff >> 4;
	uint8_t other = (uint8_t)((diff & ~(diff >> 1)) ^ 0xffu);
	unsigned qdir = (1u + (other | q[b])) >> 8;
	/* where the new node goes: below every node of an earlier bit */
	uint32_t *where = &x->root;
	while (!(*where & LEAF)) {
		cm_idnode *n = &x->node[*where];
		if (n->byte > b || (n->byte == b && n->other > other))
			break;
		where = &n->child[dir_at(n, k, len)];
	}
	uint32_t at = (uint32_t)(x->n - 1);
	cm_idnode *n = &x->node[at];
	n->byte = (uint32_t)b;
	n->other = other;
	n->child[qdir] = *where;
	n->child[1 - qdir] = item | LEAF;
	*where = at;
	x->keys[item] = key;
	x->n++;
	return 0;
}

void cm_idindex_free(cm_idindex *x)
{
	free(x->keys);
	free(x->node);
	memset(x, 0, sizeof *x);
}
