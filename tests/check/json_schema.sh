#!/bin/sh
# SPDX-License-Identifier: MIT
# The JSON diagnostics of real runs follow schemas/check.schema.json
# (Debian's python3-jsonschema): tile sets and maps with errors, squares,
# notes from simulated games, a pack, an unreadable file.
# usage: json_schema.sh CARCAMAP   (run from the project root)
set -u
CM=${1:?usage: json_schema.sh path/to/carcamap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
run() {
  n=$((n + 1))
  "$CM" check -T maps/tilesets -T tests/fixtures/check/tilesets --format json "$@" >"$tmp/$n.json" 2>/dev/null
  if ! /usr/bin/python3 -m jsonschema -i "$tmp/$n.json" schemas/check.schema.json; then
    echo "FAIL check --format json $*"
    fail=1
  fi
}
run tests/fixtures/tileset/bad/CM0110-road-city-same-side.xml
run tests/fixtures/map/bad/print-inland.xml
run tests/fixtures/check/CM0503-unreachable.xml tests/fixtures/check/CM0502-few.xml
run --games 20 tests/fixtures/check/CM0602-rare.xml
run tests/no-such-file.xml
"$CM" compile -T maps/tilesets -o "$tmp/p.pack" tests/fixtures/check/CM0502-few.xml 2>/dev/null
run "$tmp/p.pack"
# the squares really are there: the schema alone allows null everywhere
grep -q '"square": \[' "$tmp/3.json" || { echo "FAIL no square in the playability output"; fail=1; }
[ $fail = 0 ] && echo "check json: $n outputs follow schemas/check.schema.json"
exit $fail
