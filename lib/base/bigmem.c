/* SPDX-License-Identifier: MIT */
/* bigmem.c: arrays of a million squares, zeroed (cm_calloc_big) or not
 * (cm_malloc_big, for arrays the caller writes whole at once): on Linux
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

/* The whole huge pages inside a block of len bytes at p (glibc maps a
 * block this size on its own, so nothing else shares them). */
static void *advise_huge(void *p, size_t len)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (p && len >= 2 * HUGE_BYTES) {
		uintptr_t a = ((uintptr_t)p + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
		uintptr_t e = ((uintptr_t)p + len) & ~(uintptr_t)(HUGE_BYTES - 1);
		if (e > a)
			(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
	}
#else
	(void)len;
#endif
	return p;
}

void *cm_calloc_big(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return advise_huge(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *cm_malloc_big(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	size_t len = n * size;
	void *p = malloc(len ? len : 1);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	/* A block of its own (fresh pages, which the system clears as they
	 * are first touched; glibc's starts 16 bytes into a page) is better
	 * as whole huge pages on a huge page's boundary: all of it comes in
	 * 2 MB at a time (the huge pages inside a plain one leave up to 4 MB
	 * at its ends in small pages: 750 page faults of a 1000x1000 grid of
	 * 24 MB), and from 1 MB on one fault that clears a huge page costs
	 * less than the 256 or more small-page faults it stands for (the pack
	 * writer's megabytes of grid texts and client binary, the grid view).
	 * The caller writes every byte, so the rounding is never touched
	 * beyond the last huge page. A block from the heap is kept: memory
	 * used before costs no clearing at all (a program that loads one big
	 * map after another), where a new aligned block would. */
	if (p && len >= HUGE_BYTES / 2 && len <= SIZE_MAX - HUGE_BYTES &&
	    (uintptr_t)p % 4096 == 2 * sizeof(size_t)) {
		size_t whole = (len + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
		void *q = aligned_alloc(HUGE_BYTES, whole);
		if (q) {
			free(p);
			(void)madvise(q, whole, MADV_HUGEPAGE);
			return q;
		}
	}
#endif
	return advise_huge(p, len);
}
