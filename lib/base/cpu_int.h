/* SPDX-License-Identifier: MIT */
/* cpu_int.h: what the processor offers beyond its baseline, asked once
 * (cpu.c): the one place the library runs cpuid. A kernel with a SIMD
 * version is given the features it may use, as an argument or a field set
 * from cm_cpu_features(): the tests pass 0 to run the portable code beside
 * the fast one, and no library global switches them. Built with
 * -DCM_NO_SIMD, or off x86, there are no features. */
#ifndef CM_CPU_INT_H
#define CM_CPU_INT_H

/* Feature bits. */
enum {
	CM_CPU_SSSE3 = 1u,  /* PSHUFB: byte kernels, random play's frontier scan */
	CM_CPU_SSE41 = 2u,
	CM_CPU_SHA = 4u,    /* the SHA extensions (SHA-256 with SSE4.1 and SSSE3) */
	CM_CPU_PCLMUL = 8u  /* carry-less multiply (CRC-32) */
};

/* The features of this processor (a bit set of the above), detected on
 * the first call; safe from any thread. */
unsigned cm_cpu_features(void);

#endif
