#!/bin/sh
# SPDX-License-Identifier: MIT
# The Tiled round trip (schemas/export-tmx.md) with the real Tiled: for
# every bundled map, export --format tmx, let Tiled re-save it headless
# (tiled --export-map tmx), import, compile: the pack's content hash equals
# the original descriptor's. The same TMX with its squares layer rewritten
# as base64, base64+zlib, base64+gzip and Tiled's XML tiles imports to the
# same hash. Then an edit as an author makes it in Tiled (one square's kind,
# one object's property): the imported descriptor differs from the original
# by exactly those two lines.
# usage: tiled_roundtrip.sh CARCAMAP
set -eu
cm=${1:?usage: tiled_roundtrip.sh carcamap}
case $cm in /*) ;; *) cm=$PWD/$cm ;; esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$out" CARCAMAP_TILESETS="$PWD/maps/tilesets"
fail=0
no() { echo "FAIL $*"; fail=1; }
# the first map's hash: a descriptor's default printing, the one export writes
hash_of() { "$cm" list "$1" | sed -n 's/^ *hash *//p' | head -1; }

n=0
# every bundled map, and a map with every <about> field (map properties about.*)
for f in maps/*/*.xml tests/fixtures/cli/about/about.xml; do
  case $f in maps/tilesets/*) continue ;; esac
  b=$(basename "$f" .xml)
  "$cm" export --format tmx "$f" -o "$out/$b.tmx" || { no "export $b"; continue; }
  tiled --export-map tmx "$out/$b.tmx" "$out/$b.tiled.tmx" >"$out/$b.log" 2>&1 ||
    { cat "$out/$b.log"; no "tiled --export-map $b"; continue; }
  "$cm" import "$out/$b.tiled.tmx" -o "$out/$b.xml" || { no "import $b"; continue; }
  "$cm" compile "$out/$b.xml" -o "$out/$b.pack" >/dev/null 2>&1 || { no "compile $b"; continue; }
  want=$(hash_of "$f")
  got=$(hash_of "$out/$b.pack")
  [ -n "$want" ] && [ "$want" = "$got" ] || no "$b: content hash $got after the Tiled round trip, $want before"
  n=$((n + 1))
done

# Tiled opens every export clean (issue 33.8): each property it re-saves
# as it was written (a property type Tiled does not know, from a project the
# TMX cannot carry, is an error when Tiled opens the file and is dropped
# when it saves it), none names a custom property type, and the kinds
# tileset survives the same
tiled --export-tileset tsx maps/tilesets/carcamap-kinds.tsx "$out/kinds.tiled.tsx" >"$out/kinds.log" 2>&1 ||
  { cat "$out/kinds.log"; no "tiled --export-tileset carcamap-kinds.tsx"; }
/usr/bin/python3 - "$out" maps/tilesets/carcamap-kinds.tsx "$out/kinds.tiled.tsx" <<'PY' || no "Tiled did not keep every property of the exports"
import glob, os, re, sys
out = sys.argv[1]
def props(path):
    t = open(path, encoding="utf-8").read()
    got = []
    for m in re.finditer(r"<property ([^>]*?)/?>", t):
        a = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        got.append((a.get("name"), a.get("type", "string"), a.get("propertytype"), a.get("value")))
        assert "propertytype" not in a, (path, a)
    return sorted(got)
pairs = [(sys.argv[2], sys.argv[3])]
for f in glob.glob(out + "/*.tiled.tmx"):
    pairs.append((f.replace(".tiled.tmx", ".tmx"), f))
for a, b in pairs:
    if props(a) != props(b):
        print(a, sorted(set(props(a)) ^ set(props(b)))[:5])
        sys.exit(1)
print("tiled keeps the properties of", len(pairs), "files")
PY

# the other layer formats Tiled writes
/usr/bin/python3 - "$out/germany.tiled.tmx" "$out" <<'PY' || no "writing the layer format variants"
import base64, gzip, re, sys, zlib
src, out = sys.argv[1], sys.argv[2]
t = open(src, encoding="utf-8").read()
m = re.search(r'<data encoding="csv">(.*?)</data>', t, re.S)
gids = [int(v) for v in m.group(1).replace("\n", "").split(",")]
raw = b"".join(g.to_bytes(4, "little") for g in gids)
def put(name, data):
    open(f"{out}/{name}.tmx", "w", encoding="utf-8").write(t[:m.start()] + data + t[m.end():])
put("b64", '<data encoding="base64">\n   ' + base64.b64encode(raw).decode() + "\n  </data>")
put("zlib", '<data encoding="base64" compression="zlib">' + base64.b64encode(zlib.compress(raw)).decode() + "</data>")
put("gzip", '<data encoding="base64" compression="gzip">' + base64.b64encode(gzip.compress(raw, mtime=0)).decode() + "</data>")
put("xmltiles", "<data>" + "".join(f'<tile gid="{g}"/>' for g in gids) + "</data>")
PY
want=$(hash_of maps/germany/germany.xml)
for v in b64 zlib gzip xmltiles; do
  got=$(hash_of "$out/$v.tmx")
  [ "$want" = "$got" ] || no "germany with a $v squares layer: hash $got, want $want"
done

# an author's edit: square (4,6) from land to town, the first road print's
# coats of arms from 2 to 3
/usr/bin/python3 - "$out/germany.tiled.tmx" "$out/edited.tmx" <<'PY' || no "editing the TMX"
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<data encoding="csv">\n(.*?)</data>', t, re.S)
rows = m.group(1).split("\n")
cells = rows[6].split(",")
assert cells[4] == "2", cells  # land
cells[4] = "4"                 # town
rows[6] = ",".join(cells)
t = t[:m.start(1)] + "\n".join(rows) + t[m.end(1):]
g = t.index('name="prints-road"')
o = t.index('<property name="arms" type="int" value="2"/>', g)
t = t[:o] + '<property name="arms" type="int" value="3"/>' + t[o + len('<property name="arms" type="int" value="2"/>'):]
open(sys.argv[2], "w", encoding="utf-8").write(t)
PY
"$cm" import "$out/edited.tmx" -o "$out/edited.xml" || no "import of the edited map"
"$cm" export --format xml maps/germany/germany.xml | grep -v '<image ' >"$out/original.xml"
/usr/bin/python3 - "$out/original.xml" "$out/edited.xml" <<'PY' || no "the edit is not exactly the two changes"
import difflib, sys
a = open(sys.argv[1], encoding="utf-8").read().splitlines()
b = open(sys.argv[2], encoding="utf-8").read().splitlines()
d = [l for l in difflib.unified_diff(a, b, lineterm="", n=0) if l[:1] in "+-" and l[:3] not in ("+++", "---")]
want = ["-    ##B###########", "-  <edge x=\"5\" y=\"0\" side=\"N\" print=\"road\" arms=\"2\" label=\"to Denmark\"/>",
        "+    ##B#T#########", "+  <edge x=\"5\" y=\"0\" side=\"N\" print=\"road\" arms=\"3\" label=\"to Denmark\"/>"]
if sorted(d) != sorted(want):
    print("\n".join(d))
    sys.exit(1)
PY

# the Tiled project's enums name the values the kinds tileset and the
# exports write as plain strings
/usr/bin/python3 - maps/tilesets/carcamap.tiled-project maps/tilesets/carcamap-kinds.tsx "$out/germany.tmx" <<'PY' || no "maps/tilesets/carcamap.tiled-project does not match the kinds tileset and the export"
import json, re, sys
types = {t["name"]: t for t in json.load(open(sys.argv[1]))["propertyTypes"]}
assert all(t["type"] == "enum" and t["storageType"] == "string" for t in types.values()), types
tsx = open(sys.argv[2], encoding="utf-8").read()
kinds = re.findall(r'name="kind" value="([a-z]+)"', tsx)
assert types["square-kind"]["values"] == kinds and len(kinds) == 9, kinds
assert types["print-kind"]["values"] == ["road", "city", "neutral"]
assert types["edition"]["values"] == ["C1", "C2", "C3"]
assert types["farmers"]["values"] == ["C1", "C2"]
# the exports use none of them (plain strings: Tiled opens them alone)
assert "propertytype" not in open(sys.argv[3], encoding="utf-8").read() + tsx
PY

[ $fail = 0 ] && echo "tiled round trip: $n maps re-saved by Tiled import to their content hash; 4 layer formats; one edit"
exit $fail
