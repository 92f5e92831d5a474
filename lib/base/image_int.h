/* SPDX-License-Identifier: MIT */
/* image_int.h: the size limit of every raster picture carcamap reads or
 * draws, as one test for the reader (io/image.c) and the grid pictures
 * (export/render.c); in base, the layer below both. */
#ifndef CM_IMAGE_INT_H
#define CM_IMAGE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "carcamap/image.h"

/* Whether a picture of w x h pixels is within CM_IMAGE_MAX_SIDE a side and
 * CM_IMAGE_MAX_PIXELS in all (both limits included). */
static inline bool cm__image_fits(int64_t w, int64_t h)
{
	return w >= 0 && h >= 0 && w <= CM_IMAGE_MAX_SIDE && h <= CM_IMAGE_MAX_SIDE &&
	       w * h <= (int64_t)CM_IMAGE_MAX_PIXELS;
}

#endif
