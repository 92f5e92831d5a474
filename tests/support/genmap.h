/* SPDX-License-Identifier: MIT */
/* genmap.h: large and hostile map descriptors written on demand, for the
 * hostile tests (tests/unit/test_hostile.c, recipe line `genmap`) and the
 * scale benchmarks (tests/bench/bench_scale.c). Test-only. */
#ifndef CM_GENMAP_H
#define CM_GENMAP_H
#include <stdio.h>

/* Writes the descriptor named by spec to f; 0, or -1 for an unknown spec.
 * spec is "KIND N [K]":
 *   corner N tl|tr|bl|br   N x N land, two start squares in that corner
 *   serpentine N           one path of land winding through N x N
 *   bigcities N K          N x N land with K one-piece big cities
 *   islands N K            N x N land with K one-square islands, a ferry each
 *   ferries K              a small map with the same ferry K times
 *   deck K                 a small map whose deck lists tile set base K times
 *   diags N                N x N land, every square named "x": N*N - 1
 *                          duplicate-name diagnostics, each quoted
 *   diags-one-line N       the same with every <square> on one line
 * Every map uses the tile set `base` (maps/tilesets). */
int cm_genmap(FILE *f, const char *spec);

#endif
