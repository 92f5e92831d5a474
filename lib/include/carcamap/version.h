/* SPDX-License-Identifier: MIT */
/* carcamap/version.h: the library's version at compile time, the one place
 * it is written (the Makefile reads VERSION from here; cm_version(), the
 * soname, the man pages, carcamap.pc and the tarball take it from there).
 * A client compares CM_VERSION_NUMBER with #if and cm_version() at run
 * time to see which library it runs against. Threads: constants only. */
#ifndef CARCAMAP_VERSION_H
#define CARCAMAP_VERSION_H

#define CM_VERSION_MAJOR 0
#define CM_VERSION_MINOR 1
#define CM_VERSION_PATCH 0
/* "MAJOR.MINOR.PATCH", a string literal made of the three above */
#define CM_VERSION__STR(n) #n
#define CM_VERSION__XSTR(n) CM_VERSION__STR(n)
#define CM_VERSION_STRING                                                                          \
	CM_VERSION__XSTR(CM_VERSION_MAJOR) "." CM_VERSION__XSTR(CM_VERSION_MINOR) "." CM_VERSION__XSTR(CM_VERSION_PATCH)
/* MAJOR * 10000 + MINOR * 100 + PATCH: 0.1.0 is 100 */
#define CM_VERSION_NUMBER (CM_VERSION_MAJOR * 10000 + CM_VERSION_MINOR * 100 + CM_VERSION_PATCH)

#endif
