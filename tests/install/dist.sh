#!/bin/sh
# SPDX-License-Identifier: MIT
# make dist writes build/carcamap-VERSION.tar.gz, and the tarball stands
# alone: unpacked outside the tree it builds (command, both libraries) and
# passes the unit and CLI golden tests. The scenario, export, library and
# install tests are left to the tree's own run: they exercise the same
# files, and doubling them would double the cost of make test.
# usage: dist.sh VERSION
set -eu
VERSION=${1:?usage: dist.sh version}
MAKE=${MAKE:-make}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
tgz=build/carcamap-$VERSION.tar.gz
"$MAKE" --no-print-directory -s dist >"$t/log" 2>&1 || { cat "$t/log"; echo "FAIL make dist"; exit 1; }
[ -s "$tgz" ] || { echo "FAIL make dist wrote no $tgz"; exit 1; }
tar -xzf "$tgz" -C "$t"
src=$t/carcamap-$VERSION
[ -f "$src/Makefile" ] && [ -f "$src/LICENSE" ] || { echo "FAIL the tarball has no carcamap-$VERSION/Makefile, LICENSE"; exit 1; }
if tar -tzf "$tgz" | grep -q "^carcamap-$VERSION/build/"; then echo "FAIL the tarball holds build/"; exit 1; fi
(cd "$src" && "$MAKE" --no-print-directory -j2 SAN= all unit-test cli-test) >"$t/log" 2>&1 ||
  { grep -E "FAILED|ERROR|Error|error:|FAIL" "$t/log" | head -20; tail -15 "$t/log"; echo "FAIL the tarball does not build and pass its unit and CLI tests"; exit 1; }
[ -x "$src/build/libcarcamap.so.$VERSION" ] || { echo "FAIL no shared library built from the tarball"; exit 1; }
echo "dist: $tgz ($(tar -tzf "$tgz" | wc -l) entries) builds and passes its unit and CLI tests"
