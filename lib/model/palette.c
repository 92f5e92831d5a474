/* SPDX-License-Identifier: MIT */
/* palette.c: the colours of carcamap/palette.h, defined once. Square colours
 * are the built-in legend's (an image drawn with them imports unchanged);
 * the rest are chosen to stay apart from them and from each other. */
#include <stdio.h>
#include "carcamap/palette.h"

static const cm_rgb squares[CM_SQ_KIND_COUNT] = {
	{ 0xa8, 0xc8, 0xe8 }, /* none: water and off-map */
	{ 0xc8, 0xdc, 0x8c }, /* land */
	{ 0xe8, 0xc8, 0x90 }, /* start */
	{ 0xd8, 0xb8, 0x78 }, /* town */
	{ 0xb0, 0x50, 0x30 }, /* big city */
	{ 0x68, 0x90, 0xc0 }, /* waves */
	{ 0x90, 0x90, 0x90 }, /* landmark */
	{ 0xa0, 0xd0, 0x70 }, /* island */
	{ 0xd0, 0xd0, 0xa0 }, /* half square */
};

static const cm_rgb features[CM_FEAT_KIND_COUNT] = {
	{ 0xf8, 0xf4, 0xe8 }, /* road */
	{ 0xc8, 0x78, 0x3c }, /* city */
	{ 0x9c, 0xc8, 0x6c }, /* field */
	{ 0x8a, 0x4a, 0x24 }, /* monastery */
	{ 0x3c, 0x8c, 0x3c }, /* garden */
	{ 0x6a, 0x4a, 0x8a }, /* abbey */
};

static const cm_rgb players[] = {
	{ 0xd0, 0x20, 0x20 }, { 0x20, 0x50, 0xd0 }, { 0xe0, 0xc0, 0x10 },
	{ 0x20, 0x90, 0x30 }, { 0x20, 0x20, 0x20 }, { 0xc0, 0x40, 0xc0 },
};

static const cm_rgb inks[CM_INK_COUNT] = {
	{ 0x6e, 0x3a, 0x16 }, /* wall */
	{ 0x4e, 0x74, 0x2c }, /* hedge */
	{ 0xe4, 0xde, 0xc8 }, /* ground */
	{ 0xec, 0xd2, 0x6a }, /* crop field */
	{ 0xb0, 0x30, 0x20 }, /* roof */
	{ 0x6a, 0x1c, 0x58 }, /* wine */
	{ 0xd8, 0xa8, 0x20 }, /* grain */
	{ 0x2c, 0x5c, 0xb0 }, /* cloth */
	{ 0xf0, 0xc0, 0x20 }, /* gold */
	{ 0x5a, 0x2a, 0x8a }, /* hat */
	{ 0x8c, 0x68, 0x38 }, /* bag */
	{ 0xf2, 0xee, 0xe2 }, /* stone */
	{ 0x30, 0x2c, 0x24 }, /* dark */
};

cm_rgb cm_palette_ink(cm_ink k)
{
	return (unsigned)k < CM_INK_COUNT ? inks[k] : inks[CM_INK_DARK];
}

cm_rgb cm_palette_square(cm_square_kind k)
{
	return (unsigned)k < CM_SQ_KIND_COUNT ? squares[k] : squares[0];
}

cm_rgb cm_palette_feature(cm_feature_kind k)
{
	return (unsigned)k < CM_FEAT_KIND_COUNT ? features[k] : features[CM_FEAT_FIELD];
}

cm_rgb cm_palette_print(cm_print_kind k)
{
	switch (k) {
	case CM_PRINT_ROAD: return (cm_rgb){ 0xff, 0xff, 0xff };
	case CM_PRINT_CITY: return (cm_rgb){ 0xa0, 0x30, 0x10 };
	case CM_PRINT_NEUTRAL: return (cm_rgb){ 0x50, 0x70, 0x40 };
	case CM_PRINT_NONE: break;
	}
	return cm_palette_grid();
}

cm_rgb cm_palette_severity(cm_severity s)
{
	switch (s) {
	case CM_SEV_ERROR: return (cm_rgb){ 0xe0, 0x00, 0x00 };
	case CM_SEV_WARNING: return (cm_rgb){ 0xff, 0x90, 0x00 };
	case CM_SEV_NOTE: break;
	}
	return (cm_rgb){ 0x00, 0x80, 0xc0 };
}

cm_rgb cm_palette_player(int i)
{
	int n = (int)(sizeof players / sizeof players[0]);
	return players[((i % n) + n) % n];
}

cm_rgb cm_palette_start_outline(void) { return (cm_rgb){ 0x8b, 0x1a, 0x1a }; }
cm_rgb cm_palette_marker(void) { return (cm_rgb){ 0x7a, 0x2a, 0x9a }; }
cm_rgb cm_palette_arms(void) { return (cm_rgb){ 0x20, 0x40, 0xc0 }; }
cm_rgb cm_palette_ferry(void) { return (cm_rgb){ 0x20, 0x40, 0x80 }; }
cm_rgb cm_palette_grid(void) { return (cm_rgb){ 0x60, 0x60, 0x60 }; }
cm_rgb cm_palette_text(void) { return (cm_rgb){ 0x1a, 0x1a, 0x1a }; }

char *cm_rgb_hex(cm_rgb c, char buf[8])
{
	snprintf(buf, 8, "#%02x%02x%02x", c.r, c.g, c.b);
	return buf;
}
