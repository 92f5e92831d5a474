#!/bin/sh
# SPDX-License-Identifier: MIT
# Export checks that need tools outside the unit tests: the JSON samples
# validate against schemas/export.schema.json with Debian's python3-jsonschema,
# Tiled 1.8 (headless) renders and converts the TMX samples with the layers
# written, and the client reader compiles as plain C99 on its own.
# usage: run.sh BUILD_DIR   (BUILD_DIR/tests/test_export writes the samples)
set -eu
O=${1:?usage: run.sh build-dir}
CC=${CC:-cc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
no() { echo "FAIL $*"; fail=1; }

# the reader a client copies: C99, no carcamap headers, no warnings
$CC -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only lib/reader/cmap.c ||
  no "lib/reader/cmap.c does not compile cleanly as c99"

CM_EXPORT_DIR=$out "$O/tests/test_export" >"$out/unit.log" 2>&1 ||
  { cat "$out/unit.log"; no "writing the samples"; }

n=$(ls "$out"/*.json "$out"/*.tmx | wc -l)
for j in "$out"/*.json; do
  /usr/bin/python3 -m jsonschema -i "$j" schemas/export.schema.json ||
    no "$(basename "$j") does not follow schemas/export.schema.json"
done

export QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$out"
for t in "$out"/*.tmx; do
  b=${t%.tmx}
  tmxrasterizer "$t" "$b.render.png" >"$b.log" 2>&1 || { cat "$b.log"; no "tmxrasterizer $(basename "$t")"; }
  [ -s "$b.render.png" ] && head -c 8 "$b.render.png" | od -An -c | grep -q 'P   N   G' ||
    no "tmxrasterizer wrote no png for $(basename "$t")"
  tiled --export-map json "$t" "$b.tiled.json" >"$b.log" 2>&1 || { cat "$b.log"; no "tiled --export-map $(basename "$t")"; }
  /usr/bin/python3 - "$b.tiled.json" <<'PY' || no "layers of $(basename "$t")"
import json, sys
d = json.load(open(sys.argv[1]))
want = ["squares", "bigcities", "pieces", "prints-road", "prints-city", "prints-neutral", "ferries",
        "islands", "island-squares", "names", "markers"]
got = [l["name"] for l in d["layers"]]
assert got == want, got
sq = d["layers"][0]
assert sq["type"] == "tilelayer" and len(sq["data"]) == d["width"] * d["height"], sq["type"]
assert any(p["name"] == "rules.edition" for p in d["properties"])
PY
done

[ $fail = 0 ] && echo "export: $n samples valid (json schema, tiled, tmxrasterizer)"
exit $fail
