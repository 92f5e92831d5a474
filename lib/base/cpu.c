/* SPDX-License-Identifier: MIT */
/* cpu.c: the processor's features (cpu_int.h), read by cpuid once and
 * kept; a race between two first calls writes the same answer twice. */
#include <stddef.h>
#include "base/cpu_int.h"
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(CM_NO_SIMD)
#include <cpuid.h>
#define HAVE_CPUID 1
#endif

#ifdef HAVE_CPUID
static unsigned detect(void)
{
	unsigned a, b, c, d, f = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	f |= (c & (1u << 9)) ? CM_CPU_SSSE3 : 0;
	f |= (c & (1u << 19)) ? CM_CPU_SSE41 : 0;
	f |= (c & (1u << 1)) ? CM_CPU_PCLMUL : 0;
	if (__get_cpuid_max(0, NULL) >= 7) {
		__cpuid_count(7, 0, a, b, c, d);
		f |= (b & (1u << 29)) ? CM_CPU_SHA : 0; /* leaf 7, EBX bit 29 */
	}
	return f;
}
#endif

#ifdef HAVE_CPUID
/* bit 31: detected; the features below it */
static unsigned known;
#endif

unsigned cm_cpu_features(void)
{
#ifdef HAVE_CPUID
	unsigned k = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (!k) {
		k = detect() | 0x80000000u;
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k & 0x7fffffffu;
#else
	return 0;
#endif
}
