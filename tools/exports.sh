#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the linker version script of libcarcamap.so to stdout: the cm_
# functions the public headers (given as arguments) declare are global,
# everything else (the library's private cm_ helpers included) is local.
# usage: exports.sh lib/include/carcamap/*.h > carcamap.sym
set -eu
echo "/* written by tools/exports.sh from the public headers */"
echo "CARCAMAP_0 {"
echo "global:"
sed 's,/\*.*\*/,,g' "$@" | grep -o '\bcm_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' |
  sort -u | sed 's/.*/  &;/'
echo "local:"
echo "  *;"
echo "};"
