/* SPDX-License-Identifier: MIT */
/* bigmem.c: zeroed arrays of a million squares (cm_calloc_big): on Linux
 * backed by transparent huge pages where the system offers them on request,
 * so a big map's model and board fault in 2 MB at a time instead of 4 KB
 * (page faults were a third of `check` on a 1000x1000 map). Freed by free(). */
#if defined(__linux__)
#define _DEFAULT_SOURCE 1
#include <sys/mman.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include "base/util_int.h"

#define HUGE_BYTES ((size_t)2 << 20)

void *cm_calloc_big(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = calloc(n ? n : 1, size ? size : 1);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	size_t len = n * size;
	if (p && len >= 2 * HUGE_BYTES) {
		/* the whole huge pages inside the block (glibc maps a block
		 * this size on its own, so nothing else shares them) */
		uintptr_t a = ((uintptr_t)p + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
		uintptr_t e = ((uintptr_t)p + len) & ~(uintptr_t)(HUGE_BYTES - 1);
		if (e > a)
			(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
	}
#endif
	return p;
}
