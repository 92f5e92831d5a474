/* SPDX-License-Identifier: MIT */
/* map_extra.c: what few squares have (names, markers, edge-print labels
 * and lines), kept beside the grid so that a square stays small: one
 * entry per square that has any, found by square index through an
 * open-addressing table, so building and looking up are linear overall.
 * The getters are map.h's; the setters are the builder's (map_builder.c). */
#include <stdlib.h>
#include <string.h>
#include "model/map_int.h"
#include "base/util_int.h"

struct cm_map_extras {
	cm_square_extra *v; /* in the order first set */
	size_t n, cap;
	uint32_t *slot;     /* entry + 1, 0 empty; n_slot a power of two */
	size_t n_slot;
};

static size_t slot_of(uint32_t sq, size_t n_slot)
{
	return (size_t)((sq * 2654435769u) ^ (sq >> 16)) & (n_slot - 1);
}

const cm_square_extra *cm_map_extra_find(const cm_map *m, int sq)
{
	const struct cm_map_extras *e = m->extras;
	if (!e || sq < 0)
		return NULL;
	for (size_t i = slot_of((uint32_t)sq, e->n_slot);; i = (i + 1) & (e->n_slot - 1)) {
		uint32_t k = e->slot[i];
		if (k == 0)
			return NULL;
		if (e->v[k - 1].sq == sq)
			return &e->v[k - 1];
	}
}

static int rehash(struct cm_map_extras *e, size_t n_slot)
{
	uint32_t *slot = calloc(n_slot, sizeof *slot);
	if (!slot)
		return CM_ENOMEM;
	for (size_t k = 0; k < e->n; k++) {
		size_t i = slot_of((uint32_t)e->v[k].sq, n_slot);
		while (slot[i])
			i = (i + 1) & (n_slot - 1);
		slot[i] = (uint32_t)(k + 1);
	}
	free(e->slot);
	e->slot = slot;
	e->n_slot = n_slot;
	return 0;
}

/* The entry of sq, added empty when missing; NULL off the grid or out of
 * memory. */
static cm_square_extra *extra_get(cm_map *m, int sq)
{
	if (sq < 0 || sq >= m->cols * m->rows)
		return NULL;
	cm_square_extra *x = (cm_square_extra *)cm_map_extra_find(m, sq);
	if (x)
		return x;
	struct cm_map_extras *e = m->extras;
	if (!e) {
		if (!(e = calloc(1, sizeof *e)))
			return NULL;
		if (rehash(e, 16)) {
			free(e);
			return NULL;
		}
		m->extras = e;
	}
	/* at most half full */
	if (2 * (e->n + 1) > e->n_slot && rehash(e, 2 * e->n_slot))
		return NULL;
	if (cm_grow((void **)&e->v, &e->cap, e->n, sizeof *e->v))
		return NULL;
	x = &e->v[e->n];
	memset(x, 0, sizeof *x);
	x->sq = sq;
	size_t i = slot_of((uint32_t)sq, e->n_slot);
	while (e->slot[i])
		i = (i + 1) & (e->n_slot - 1);
	e->slot[i] = (uint32_t)(++e->n);
	return x;
}

size_t cm_map_extra_count(const cm_map *m)
{
	return m->extras ? m->extras->n : 0;
}

const cm_square_extra *cm_map_extra_nth(const cm_map *m, size_t i)
{
	return m->extras && i < m->extras->n ? &m->extras->v[i] : NULL;
}

void cm_map_extras_free(cm_map *m)
{
	struct cm_map_extras *e = m->extras;
	if (!e)
		return;
	for (size_t k = 0; k < e->n; k++) {
		cm_square_extra *x = &e->v[k];
		free(x->name);
		for (size_t i = 0; i < x->n_markers; i++)
			free(x->markers[i]);
		free(x->markers);
		for (int s = 0; s < 4; s++)
			free(x->label[s]);
	}
	free(e->v);
	free(e->slot);
	free(e);
	m->extras = NULL;
}

static int sq_index(const cm_map *m, int x, int y)
{
	return (x >= 0 && y >= 0 && x < m->cols && y < m->rows) ? y * m->cols + x : -1;
}

static const cm_square_extra *find_xy(const cm_map *m, int x, int y)
{
	return m ? cm_map_extra_find(m, sq_index(m, x, y)) : NULL;
}

int cm__map_set_text(char **slot, const char *text)
{
	char *t = NULL;
	if (text && !(t = cm_strdup(text)))
		return CM_ENOMEM;
	free(*slot);
	*slot = t;
	return 0;
}

/* The entry of (x,y) for a setter: CM_EINVAL off the grid, CM_ENOMEM. A
 * setter that clears what was never set adds no entry (*out NULL, 0). */
static int entry_for(cm_map *m, int x, int y, bool clearing, cm_square_extra **out)
{
	int sq = sq_index(m, x, y);
	*out = NULL;
	if (sq < 0)
		return CM_EINVAL;
	if (clearing) {
		*out = (cm_square_extra *)cm_map_extra_find(m, sq);
		return 0;
	}
	return (*out = extra_get(m, sq)) ? 0 : CM_ENOMEM;
}

const char *cm_map_square_name(const cm_map *m, int x, int y)
{
	const cm_square_extra *e = find_xy(m, x, y);
	return e ? e->name : NULL;
}

int cm__map_set_square_name(cm_map *m, int x, int y, const char *name)
{
	cm_square_extra *e;
	int rc = entry_for(m, x, y, !name, &e);
	return rc || !e ? rc : cm__map_set_text(&e->name, name);
}

const char *const *cm_map_square_markers(const cm_map *m, int x, int y, size_t *n)
{
	const cm_square_extra *e = find_xy(m, x, y);
	*n = e ? e->n_markers : 0;
	return e && e->n_markers ? (const char *const *)e->markers : NULL;
}

int cm__map_add_square_marker(cm_map *m, int x, int y, const char *text)
{
	if (!text)
		return CM_EINVAL;
	cm_square_extra *e;
	int rc = entry_for(m, x, y, false, &e);
	if (rc)
		return rc;
	char *t = cm_strdup(text);
	if (!t || cm_grow((void **)&e->markers, &e->cap_markers, e->n_markers, sizeof *e->markers)) {
		free(t);
		return CM_ENOMEM;
	}
	e->markers[e->n_markers++] = t;
	return 0;
}

const char *cm_map_print_label(const cm_map *m, int x, int y, cm_side s)
{
	const cm_square_extra *e = (unsigned)s < 4 ? find_xy(m, x, y) : NULL;
	return e ? e->label[s] : NULL;
}

int cm__map_set_print_label(cm_map *m, int x, int y, cm_side s, const char *label)
{
	if ((unsigned)s >= 4)
		return CM_EINVAL;
	cm_square_extra *e;
	int rc = entry_for(m, x, y, !label, &e);
	return rc || !e ? rc : cm__map_set_text(&e->label[s], label);
}

unsigned cm_map_print_line(const cm_map *m, int x, int y, cm_side s)
{
	const cm_square_extra *e = (unsigned)s < 4 ? find_xy(m, x, y) : NULL;
	return e ? e->line[s] : 0;
}

int cm__map_set_print_line(cm_map *m, int x, int y, cm_side s, unsigned line)
{
	if ((unsigned)s >= 4)
		return CM_EINVAL;
	cm_square_extra *e;
	int rc = entry_for(m, x, y, line == 0, &e);
	if (!rc && e)
		e->line[s] = line;
	return rc;
}
