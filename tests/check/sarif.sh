#!/bin/sh
# SPDX-License-Identifier: MIT
# `check --format sarif` output validates against SARIF 2.1.0 with
# Microsoft's SARIF Multitool (npm @microsoft/sarif-multitool-linux 5.7.0,
# a self-contained binary with the OASIS schema inside), installed on first
# use into build/tools, with its SARIF rules and its GitHub code scanning
# rules (--rule-kind Sarif;Ghas). The multitool exits 0 even when it finds
# errors, so its own SARIF output is read: any error-level result fails the
# test. The inputs include file names with a space and '#' (percent-encoded
# URIs), relative ones (SRCROOT) and absolute ones (file:// URIs). When
# the binary cannot run, the bundled sarif-2.1.0.json is used with Debian's
# python3-jsonschema instead (VERBOSE=1 says which ran).
# usage: sarif.sh CARCAMAP   (run from the project root)
set -u
CM=${1:?usage: sarif.sh path/to/carcamap}
case $CM in /*) ;; *) CM=$(pwd)/$CM ;; esac
PKG=build/tools/node_modules/@microsoft/sarif-multitool-linux
MT=$PKG/Sarif.Multitool
say() { [ "${VERBOSE:-0}" = 1 ] && echo "$*" >&2; return 0; }
if [ ! -f "$MT" ]; then
  mkdir -p build/tools
  npm install --prefix build/tools --no-audit --no-fund @microsoft/sarif-multitool-linux@5.7.0 \
    >build/tools/npm.log 2>&1 || { echo "FAIL npm install @microsoft/sarif-multitool-linux (build/tools/npm.log)"; exit 1; }
fi
chmod u+x "$MT" 2>/dev/null # npm does not run its postinstall
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
method=multitool
"$MT" --version >/dev/null 2>&1 || method=jsonschema
say "sarif: validating with the $method"
fail=0 n=0 files=
run() {
  n=$((n + 1))
  "$CM" check -T maps/tilesets -T tests/fixtures/check/tilesets --format sarif "$@" >"$tmp/$n.sarif" 2>/dev/null
  files="$files $tmp/$n.sarif"
}
run tests/fixtures/tileset/bad/CM0110-road-city-same-side.xml tests/fixtures/tileset/good/base-mini.xml
run tests/fixtures/map/bad/print-inland.xml
run tests/fixtures/check/CM0503-unreachable.xml tests/fixtures/check/CM0504-island.xml
run --games 20 tests/fixtures/check/CM0602-rare.xml
run tests/no-such-file.xml
# a space and '#' in a relative and an absolute file name
mkdir -p "$tmp/in dir"
cp tests/fixtures/map/bad/print-inland.xml "$tmp/in dir/bad #1.xml"
n=$((n + 1))
(cd "$tmp" && "$CM" check --format sarif "in dir/bad #1.xml") >"$tmp/$n.sarif" 2>/dev/null
files="$files $tmp/$n.sarif"
grep -q '"uri": "in%20dir/bad%20%231.xml"' "$tmp/$n.sarif" || { echo "FAIL relative uri not percent-encoded"; fail=1; }
grep -q '"uriBaseId": "SRCROOT"' "$tmp/$n.sarif" || { echo "FAIL no uriBaseId on a relative uri"; fail=1; }
run "$tmp/in dir/bad #1.xml"
case $tmp in
/*) grep -q '"uri": "file://.*/in%20dir/bad%20%231.xml"' "$tmp/$n.sarif" || { echo "FAIL absolute path not a file:// uri"; fail=1; } ;;
esac
"$CM" compile -T maps/tilesets -o "$tmp/p.pack" tests/fixtures/check/CM0502-few.xml 2>/dev/null
run "$tmp/p.pack"
if [ $method = multitool ]; then
  # one run for every file: the tool takes seconds to start
  "$MT" validate $files -j "$PKG/sarif-2.1.0.json" --rule-kind "Sarif;Ghas" -o "$tmp/out.sarif" >"$tmp/log" 2>&1
  /usr/bin/python3 - "$tmp/out.sarif" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
bad = [r for run in d["runs"] for r in run.get("results", []) if r.get("level") == "error"]
for r in bad:
    loc = r.get("locations", [{}])[0].get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
    print("FAIL", loc, r.get("ruleId"), r["message"].get("id"), r["message"].get("arguments"))
sys.exit(1 if bad or not d["runs"] else 0)
PY
else
  for f in $files; do
    /usr/bin/python3 -m jsonschema -i "$f" "$PKG/sarif-2.1.0.json" || { echo "FAIL $f"; fail=1; }
  done
fi
grep -q '"square": \[' "$tmp/3.sarif" || { echo "FAIL no square property in the sarif output"; fail=1; }
[ $fail = 0 ] && echo "check sarif: $n outputs are valid SARIF 2.1.0 (and for GitHub code scanning)"
exit $fail
