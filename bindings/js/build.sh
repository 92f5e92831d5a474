#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the WebAssembly reader and stages the npm package in BUILD/js/pkg:
# lib/reader/cmap.c compiled by emscripten to a standalone cmap.wasm (no
# imports, no emscripten JS glue; cmap_open_file is left out: no files in a
# browser), index.js, index.d.ts, README.md, LICENSE, and package.json with
# carcamap's VERSION. Exits 0 with a message when emcc is missing.
# usage: build.sh BUILD_DIR VERSION
set -eu
O=${1:?usage: build.sh build-dir version}
VERSION=${2:?usage: build.sh build-dir version}
EMCC=${EMCC:-emcc}
if ! command -v "$EMCC" >/dev/null 2>&1; then
  echo "js: emscripten (emcc) not found: skipping the WebAssembly reader (Debian: apt-get install emscripten)"
  exit 0
fi
pkg=$O/js/pkg
mkdir -p "$pkg"
fns=$(sed -n 's/^[a-z].*\b\(cmap_[a-z_]*\)(.*/\1/p' lib/reader/cmap.h | grep -v '^cmap_open_file$' | sort -u)
exports=_malloc,_free$(for f in $fns; do printf ',_%s' "$f"; done)
"$EMCC" -O2 -std=c99 -Wall -Wextra -Werror --no-entry -sSTANDALONE_WASM=1 -sALLOW_MEMORY_GROWTH=1 \
  -sEXPORTED_FUNCTIONS="$exports" -o "$O/js/cmap.wasm" lib/reader/cmap.c
mv "$O/js/cmap.wasm" "$pkg/cmap.wasm"
cp bindings/js/index.js bindings/js/index.d.ts bindings/js/README.md LICENSE "$pkg/"
sed "s/\"version\": \"0.0.0\"/\"version\": \"$VERSION\"/" bindings/js/package.json > "$pkg/package.json"
grep -q "\"version\": \"$VERSION\"" "$pkg/package.json" || { echo "js: package.json has no version to set" >&2; exit 1; }
echo "js: $pkg ($(wc -c < "$pkg/cmap.wasm") bytes of wasm)"
