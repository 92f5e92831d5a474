#!/bin/sh
# SPDX-License-Identifier: MIT
# The main job (`make maps`): check the bundled tile sets and maps, compile
# every bundled map into one pack, check the pack (with simulated games:
# fill ratio and squares never filled per map), and render each map (PNG,
# SVG with its names, HTML with its diagnostics, an A4 poster to print).
# Usage: tools/maps.sh BIN OUTDIR   (writes OUTDIR/maps.pack, OUTDIR/maps/*.png|svg|html|pdf)
set -eu
bin=$1
out=$2
mkdir -p "$out/maps"
descriptors=$(ls maps/*/*.xml | grep -v '^maps/tilesets/' | sort)
echo "== checking tile sets and maps"
"$bin" check maps/tilesets/*.xml $descriptors
echo "== compiling $out/maps.pack"
"$bin" compile -o "$out/maps.pack" maps/tilesets/*.xml $descriptors
echo "== checking the pack, with 1000 simulated games per map"
"$bin" check --games 1000 "$out/maps.pack"
echo "== rendering"
for id in $("$bin" list "$out/maps.pack" | sed -n 's/^map \([^:]*\):.*/\1/p'); do
  "$bin" render "$out/maps.pack" --map "$id" --scale 32 -o "$out/maps/$id.png"
  "$bin" render "$out/maps.pack" --map "$id" -o "$out/maps/$id.svg"
  "$bin" render "$out/maps.pack" --map "$id" --diagnostics -o "$out/maps/$id.html"
  "$bin" render "$out/maps.pack" --map "$id" --paper a4 -o "$out/maps/$id.pdf"
  echo "  $out/maps/$id.png .svg .html .pdf"
done
"$bin" list "$out/maps.pack" | grep -E '^map '
