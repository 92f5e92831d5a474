/* SPDX-License-Identifier: MIT */
/* tile.c: the tile model (carcamap/tile.h): slot names and masks, rotation,
 * facing slots, edge kinds derived from features, and matching. Everything
 * here is pure and allocation-free except cm_tile_type_clear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/tile.h"

static const char *const slot_names[12] = {
	"Nw", "Nm", "Ne", "En", "Em", "Es", "Se", "Sm", "Sw", "Ws", "Wm", "Wn"
};

const char *cm_slot_name(int bit)
{
	return bit >= 0 && bit < 12 ? slot_names[bit] : "?";
}

int cm_slot_parse(const char *s)
{
	/* every name has two letters (a tile reads one per slot token) */
	if (!s[0] || !s[1] || s[2])
		return -1;
	for (int i = 0; i < 12; i++)
		if (s[0] == slot_names[i][0] && s[1] == slot_names[i][1])
			return i;
	return -1;
}

int cm_slots_format(cm_slots m, char *buf, size_t size)
{
	int n = 0;
	if (size)
		buf[0] = '\0';
	for (int i = 0; i < 12; i++) {
		if (!(m & (1u << i)))
			continue;
		int w = snprintf(buf + (n < (int)size ? n : (int)size), (size_t)n < size ? size - (size_t)n : 0,
		                 "%s%s", n ? " " : "", slot_names[i]);
		n += w;
	}
	return n;
}

int cm_slots_parse(const char *s, cm_slots *out)
{
	cm_slots m = 0;
	const char *p = s;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		const char *q = p;
		while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
			q++;
		char tok[4];
		size_t n = (size_t)(q - p);
		if (n != 2)
			return CM_EINVAL;
		memcpy(tok, p, 2);
		tok[2] = '\0';
		int b = cm_slot_parse(tok);
		if (b < 0 || (m & (1u << b)))
			return CM_EINVAL;
		m |= (cm_slots)(1u << b);
		p = q;
	}
	*out = m;
	return 0;
}

cm_slots cm_slots_rotate(cm_slots m, int r)
{
	r = ((r % 4) + 4) % 4;
	unsigned k = 3u * (unsigned)r, v = m & CM_SLOTS_ALL;
	if (!k)
		return (cm_slots)v;
	return (cm_slots)(((v << k) | (v >> (12 - k))) & CM_SLOTS_ALL);
}

cm_side cm_side_rotate(cm_side s, int r)
{
	return (cm_side)((((int)s + r) % 4 + 4) % 4);
}

int cm_slot_facing(int bit)
{
	int s = bit / 3, p = bit % 3;
	return 3 * ((s + 2) % 4) + (2 - p);
}

cm_slots cm_slots_facing(cm_slots m)
{
	cm_slots r = 0;
	for (int i = 0; i < 12; i++)
		if (m & (1u << i))
			r |= (cm_slots)(1u << cm_slot_facing(i));
	return r;
}

unsigned cm_slots_sides(cm_slots m)
{
	unsigned r = 0;
	for (int s = 0; s < 4; s++)
		if (m & CM_SIDE_SLOTS(s))
			r |= 1u << s;
	return r;
}

const char *cm_side_name(cm_side s)
{
	static const char *const n[4] = { "N", "E", "S", "W" };
	return (unsigned)s < 4 ? n[s] : "?";
}

static const char *const kind_names[CM_FEAT_KIND_COUNT] = {
	"road", "city", "field", "monastery", "garden", "abbey"
};

const char *cm_feature_kind_name(cm_feature_kind k)
{
	return (unsigned)k < CM_FEAT_KIND_COUNT ? kind_names[k] : "?";
}

int cm_feature_kind_parse(const char *s, cm_feature_kind *out)
{
	for (int i = 0; i < CM_FEAT_KIND_COUNT; i++)
		if (strcmp(s, kind_names[i]) == 0) {
			*out = (cm_feature_kind)i;
			return 0;
		}
	return CM_EINVAL;
}

const char *cm_edge_kind_name(cm_edge_kind k)
{
	static const char *const n[4] = { "field", "road", "city", "abbey" };
	return (unsigned)k < 4 ? n[k] : "?";
}

bool cm_edge_match(cm_edge_kind a, cm_edge_kind b)
{
	return a == b || a == CM_EDGE_ABBEY || b == CM_EDGE_ABBEY;
}

const char *cm_good_name(cm_good g)
{
	static const char *const n[4] = { "", "wine", "grain", "cloth" };
	return (unsigned)g < 4 ? n[g] : "";
}

int cm_tile_type_derive(cm_tile_type *t)
{
	int rc = 0;
	for (int i = 0; i < 12; i++)
		t->slot_feature[i] = -1;
	for (size_t f = 0; f < t->n_features && f < CM_MAX_FEATURES; f++)
		for (int i = 0; i < 12; i++)
			if (t->features[f].slots & (1u << i)) {
				if (t->slot_feature[i] >= 0)
					rc = CM_EINVAL;
				else
					t->slot_feature[i] = (int8_t)f;
			}
	/* A side's kind is the kind of the feature on its middle slot: a city
	 * covers all three slots, a road the middle one, a field the rest. */
	for (int s = 0; s < 4; s++) {
		int f = t->slot_feature[3 * s + 1];
		cm_edge_kind k = CM_EDGE_FIELD;
		if (f >= 0) {
			switch (t->features[f].kind) {
			case CM_FEAT_CITY: k = CM_EDGE_CITY; break;
			case CM_FEAT_ROAD: k = CM_EDGE_ROAD; break;
			case CM_FEAT_ABBEY: k = CM_EDGE_ABBEY; break;
			default: k = CM_EDGE_FIELD; break;
			}
		}
		t->edge[s] = (uint8_t)k;
	}
	return rc;
}

cm_edge_kind cm_tile_edge(const cm_tile_type *t, cm_side s, int r)
{
	/* after rotating by r, side s shows what was on side s - r */
	return (cm_edge_kind)t->edge[cm_side_rotate(s, -r)];
}

bool cm_tiles_match(const cm_tile_type *a, int ra, cm_side s, const cm_tile_type *b, int rb)
{
	return cm_edge_match(cm_tile_edge(a, s, ra), cm_tile_edge(b, cm_side_rotate(s, 2), rb));
}

void cm_tile_type_clear(cm_tile_type *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_features; i++)
		free(t->features[i].id);
	free(t->features);
	free(t->contacts);
	for (size_t i = 0; i < t->n_markers; i++)
		free(t->markers[i]);
	free(t->markers);
	free(t->id);
	free(t->name);
	memset(t, 0, sizeof *t);
}
