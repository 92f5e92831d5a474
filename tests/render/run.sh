#!/bin/sh
# SPDX-License-Identifier: MIT
# The pictures of every bundled map: SVG, HTML and PDF rendered with
# --diagnostics (and one --game), every SVG well-formed (xmllint), every
# word of every map text in its SVG (names.py) and in its PDF (pdf_names.py,
# pdftotext); squares measured at 300 dpi, poster overlaps and the words of
# a picture PNG (pictures.py); the tile sheet of every bundled set and of a
# set with problems, their words (sheet_words.py); and the HTML in Debian's
# headless chromium driven by puppeteer-core (browser.js: a screenshot of
# each map's page, hover and diagnostic selection, no console errors).
# puppeteer-core comes from npm into build/tools/puppeteer on first use and
# drives the installed browser: nothing is downloaded besides it.
# usage: run.sh CARCAMAP BUILD_DIR   (run from the project root)
set -u
CM=$1
O=$2
out=$O/render
rm -rf "$out"
mkdir -p "$out/shots"
export CARCAMAP_TILESETS=$PWD/maps/tilesets
fail=0
no() { echo "FAIL $*"; fail=1; }

for x in $(ls maps/*/*.xml | grep -v '^maps/tilesets/' | sort); do
  id=$(basename "$x" .xml)
  "$CM" render --diagnostics "$x" -o "$out/$id.svg" 2>"$out/$id.err" || { cat "$out/$id.err"; no "render $x svg"; }
  "$CM" render --diagnostics "$x" -o "$out/$id.html" 2>"$out/$id.err" || { cat "$out/$id.err"; no "render $x html"; }
  "$CM" render --diagnostics "$x" -o "$out/$id.pdf" 2>"$out/$id.err" || { cat "$out/$id.err"; no "render $x pdf"; }
  "$CM" export --format json "$x" -o "$out/$id.json" 2>"$out/$id.err" || { cat "$out/$id.err"; no "export $x"; }
done
grep -q 'id="seam"' "$out/usa.svg" || no "usa.svg draws no seam"
mkdir -p "$out/extra"
"$CM" render --game 1 maps/benelux/benelux.xml -o "$out/extra/benelux-game.svg" || no "render --game svg"
"$CM" render --game 1 maps/benelux/benelux.xml -o "$out/extra/benelux-game.html" || no "render --game html"
"$CM" render --diagnostics tests/fixtures/render/every.xml -o "$out/extra/every.html" 2>/dev/null
"$CM" render --diagnostics tests/fixtures/map/bad/many.xml -o "$out/extra/many.html" 2>/dev/null
# heatmaps (SVG and HTML): fill of Germany, use of Iberia (big cities,
# prints, ferries, an island)
for k in fill:germany use:iberia turn:benelux points:france; do
  "$CM" render --heatmap ${k%%:*} --games 40 "maps/${k#*:}/${k#*:}.xml" -o "$out/extra/heat-${k%%:*}.html" 2>/dev/null ||
    no "render --heatmap ${k%%:*} html"
  "$CM" render --heatmap ${k%%:*} --games 40 "maps/${k#*:}/${k#*:}.xml" -o "$out/extra/heat-${k%%:*}.svg" 2>/dev/null ||
    no "render --heatmap ${k%%:*} svg"
  grep -q 'data-value=' "$out/extra/heat-${k%%:*}.svg" || no "heat-${k%%:*}.svg carries no values"
done
# the balance report's page: the map with its heatmaps, tables, the curve
"$CM" balance maps/carca-isles --seats 2 --precision 10 --compare none --fit-deck --format html \
  -o "$out/extra/heat-balance.html" 2>/dev/null || no "balance --format html"
grep -q 'class="follower"' "$out/extra/benelux-game.svg" || no "game svg has no followers"
grep -q 'id="scores"' "$out/extra/benelux-game.svg" || no "game svg has no score table"

# tile sheets: every bundled set in one sheet (svg and html), and a set
# with problems drawn with --diagnostics
mkdir -p "$out/sheets"
"$CM" render maps/tilesets/*.xml -o "$out/extra/tiles-all.svg" || no "render the tile sheet svg"
"$CM" render maps/tilesets/*.xml -o "$out/extra/tiles-all.html" || no "render the tile sheet html"
"$CM" render --diagnostics tests/fixtures/render/bad-tiles.xml -o "$out/extra/tiles-bad.svg" 2>/dev/null
"$CM" render --diagnostics tests/fixtures/render/bad-tiles.xml -o "$out/extra/tiles-bad.html" 2>/dev/null
for t in maps/tilesets/*.xml; do
  "$CM" export --format json "$t" -o "$out/sheets/$(basename "$t" .xml).json" || no "export $t"
done
/usr/bin/python3 tests/render/sheet_words.py "$out/extra/tiles-all.svg" \
  $(for t in maps/tilesets/*.xml; do echo "$out/sheets/$(basename "$t" .xml).json"; done) || fail=1
/usr/bin/python3 tests/render/sheet_words.py "$out/extra/tiles-bad.svg" --ids CM0101 CM0102 CM0107 CM0113 CM0117 ||
  fail=1

n=0
for s in "$out"/*.svg "$out"/extra/*.svg tests/fixtures/render/every.svg; do
  xmllint --noout --nonet "$s" || no "$s is not well-formed XML"
  n=$((n + 1))
done
[ $fail = 0 ] && echo "render: $n svg files well-formed"
/usr/bin/python3 tests/render/names.py "$out" || fail=1
/usr/bin/python3 tests/render/pdf_names.py "$out" || fail=1
/usr/bin/python3 tests/render/pictures.py "$CM" "$out/paper" || fail=1

# the pages in a real browser
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
  echo "render: SKIP the browser test: no chromium (Debian package chromium; tools/configure.sh test installs it)"
  exit $fail
fi
P=build/tools/puppeteer
if [ ! -f "$P/node_modules/puppeteer-core/package.json" ]; then
  mkdir -p "$P"
  PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$P" --no-audit --no-fund puppeteer-core@24.10.2 \
    >"$P/npm.log" 2>&1 || { echo "FAIL npm install puppeteer-core ($P/npm.log)"; exit 1; }
fi
NODE_PATH=$P/node_modules CHROMIUM="$CHROMIUM" node tests/render/browser.js "$out" "$out/shots" || fail=1
exit $fail
