#!/bin/sh
# SPDX-License-Identifier: MIT
# `render --watch` of a tile sheet, end to end in bounded time: starts it
# with --diagnostics in the background, renames a tile (a rename, as
# editors save), leaves a slot uncovered (still drawn: the problem on its
# tile), restores the file, and checks one line per render and the
# sheets' contents. Each wait gives up after 10 s.
# usage: watch_sheet.sh CARCAMAP DIR   (run from the project root)
set -u
CM=$1
d=$2
cp tests/fixtures/tileset/good/grid.xml "$d/t.xml"
: >"$d/log"
"$CM" render --watch --diagnostics "$d/t.xml" -o "$d/t.svg" >"$d/log" 2>"$d/err" &
pid=$!
lines() { # waits until the log has $1 lines
  i=0
  while [ "$(wc -l <"$d/log")" -lt "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
lines 1
echo "first: $(grep -c '>GM-06<' "$d/t.svg") GM-06"
sleep 0.1
sed 's/id="GM-06"/id="GM-66"/' "$d/t.xml" >"$d/t.tmp" && mv "$d/t.tmp" "$d/t.xml"
lines 2
echo "after the edit: $(grep -c '>GM-66<' "$d/t.svg") GM-66"
sed '0,/^    \.\.R\.\./s//    .#R../' "$d/t.xml" >"$d/t.tmp" && mv "$d/t.tmp" "$d/t.xml"
lines 3
echo "with a slot left out: $(grep -c '>CM0101<' "$d/t.svg") tile marked CM0101"
cp tests/fixtures/tileset/good/grid.xml "$d/t.xml"
lines 4
kill "$pid"
wait "$pid" 2>/dev/null
sed "s|$d/||g" "$d/log"
echo "restored: $(grep -c 'CM0101' "$d/t.svg") CM0101, $(grep -c '>GM-06<' "$d/t.svg") GM-06"
