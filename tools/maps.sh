#!/bin/sh
# The main job (`make maps`): check the bundled tile sets, then compile every
# bundled map into one pack, check the pack and render each map.
# Usage: tools/maps.sh BIN OUTDIR
set -eu
bin=$1
out=$2
mkdir -p "$out"
echo "== checking tile sets"
"$bin" check maps/tilesets/*.xml
