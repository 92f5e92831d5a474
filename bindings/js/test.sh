#!/bin/sh
# SPDX-License-Identifier: MIT
# The JavaScript reader's tests: builds the package (build.sh), exports
# every bundled map as binary (2.0 and 1.0) and as JSON, runs node --test on
# bindings/js/test/ against them, then npm pack makes the package and its
# file list and version are checked. Skipped, with a message, without
# emscripten or node.
# usage: test.sh BUILD_DIR VERSION path/to/carcamap
set -eu
O=${1:?usage: test.sh build-dir version carcamap}
VERSION=${2:?usage: test.sh build-dir version carcamap}
CM=${3:?usage: test.sh build-dir version carcamap}
for tool in ${EMCC:-emcc} node npm; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "js: $tool not found: skipping the JavaScript reader tests (tools/configure.sh test installs it)"; exit 0; }
done
sh bindings/js/build.sh "$O" "$VERSION" >/dev/null
maps=$O/js/maps
rm -rf "$maps" && mkdir -p "$maps"
n=0
for d in maps/*/; do
  id=$(basename "$d")
  [ -f "$d$id.xml" ] || continue
  "$CM" export --format bin "$d$id.xml" -o "$maps/$id.cmap" 2>"$maps/log" &&
    "$CM" export --format bin --bin-version 1 "$d$id.xml" -o "$maps/$id.v1.cmap" 2>"$maps/log" &&
    "$CM" export --format json "$d$id.xml" -o "$maps/$id.json" 2>"$maps/log" ||
    { cat "$maps/log"; echo "FAIL js: exporting $id"; exit 1; }
  n=$((n + 1))
done
CMAP_JS_PKG=$O/js/pkg CMAP_JS_MAPS=$maps node --test bindings/js/test/ >"$O/js/test.log" 2>&1 ||
  { cat "$O/js/test.log"; echo "FAIL js: node --test bindings/js/test/"; exit 1; }
rm -f "$O"/js/carcamap-reader-*.tgz
(cd "$O/js/pkg" && npm_config_cache="$(pwd)/../npm-cache" npm pack --silent --pack-destination .. >/dev/null 2>"../pack.log") ||
  { cat "$O/js/pack.log"; echo "FAIL js: npm pack"; exit 1; }
tgz=$O/js/carcamap-reader-$VERSION.tgz
[ -f "$tgz" ] || { echo "FAIL js: npm pack wrote no $tgz"; exit 1; }
for f in package/package.json package/index.js package/index.d.ts package/cmap.wasm package/LICENSE package/README.md; do
  tar -tzf "$tgz" | grep -qx "$f" || { echo "FAIL js: $f missing from $tgz"; exit 1; }
done
echo "js: $n bundled maps read by the wasm reader equal their JSON exports ($(sed -n 's/^# pass //p' "$O/js/test.log") node tests passed); npm pack: $tgz"
