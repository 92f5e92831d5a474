#!/bin/sh
# SPDX-License-Identifier: MIT
# Every example of the README and of every command's --help, run as written
# from a fresh tree after `make` (issue 33.7): the files git tracks (outside
# git, the tree without build/) copied into an empty directory, with the
# command that was built as its build/carcamap and no CARCAMAP_TILESETS.
#
#   - README: every ```sh block, one script each (set -e) in a tree of its
#     own, and every inline `carcamap ...` that names a file (in one tree);
#     lines that run make (this tree is built), tiled (an editor), cc or g++
#     (install-test builds the client examples) are left out.
#   - --help: the Examples lines of each command listed by `carcamap
#     --help`, in order, in a tree of their own (one example may write what
#     the next one reads, never one of another command's).
#   - Files an example names as the reader's own are made first, in each
#     tree, by this script (see make_own): my-map.xml (the README's demo
#     map), my-tiles.xml, scan.png, tiny.png, germany.tmx, map.xml, ~/tiles.
#   - An example must exit 0 (diff: 0 or 1, as diff(1)); one with --watch
#     must render once and keep watching (it is stopped after a few
#     seconds).
# Prints each failing example with its output; "examples: N passed, N
# failed"; exits non-zero on any failure.
set -u
BIN=${1:?usage: examples.sh path/to/carcamap}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
src=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset CARCAMAP_TILESETS

# the fresh tree after make
tree=$work/tree
mkdir -p "$tree/build"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files --cached --others --exclude-standard
else
  find . -path ./build -prune -o -type f -print | sed 's,^\./,,'
fi | while read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done | tar -cf - -T - | tar -xf - -C "$tree"
cp "$BIN" "$tree/build/carcamap"

pass=0 fail=0
# run NAME DIR SCRIPT: runs SCRIPT with sh -e in DIR (HOME is DIR/home)
run() {
  name=$1 dir=$2 script=$3
  printf '%s\n' "$script" > "$work/script.sh"
  watch=0
  case $script in *--watch*) watch=1 ;; esac
  if [ $watch = 1 ]; then
    # started in the background and stopped once its first render is
    # written (at most 20 s): still running then is a pass
    (cd "$dir" && HOME=$dir/home PATH=$dir/build:$PATH exec timeout 20 sh -e "$work/script.sh") >"$work/out" 2>&1 </dev/null &
    wpid=$!
    i=0
    while [ $i -lt 200 ] && kill -0 $wpid 2>/dev/null && ! grep -q '^render 1: .* written' "$work/out"; do
      sleep 0.1
      i=$((i + 1))
    done
    if kill -0 $wpid 2>/dev/null && grep -q '^render 1: .* written' "$work/out"; then
      kill $wpid
      wait $wpid 2>/dev/null
      rc=0
    else
      wait $wpid
      rc=$?
      [ $rc = 0 ] && rc=1 # --watch ended by itself
    fi
  else
    (cd "$dir" && HOME=$dir/home PATH=$dir/build:$PATH sh -e "$work/script.sh") >"$work/out" 2>&1 </dev/null
    rc=$?
  fi
  # diff answers as diff(1) does: 1 when the maps differ
  case $script in "carcamap diff "*) [ $rc = 1 ] && ! grep -q 'error:' "$work/out" && rc=0 ;; esac
  if [ $rc = 0 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name (exit $rc):"
    sed 's/^/    | /' "$work/script.sh" | head -40
    sed 's/^/    > /' "$work/out" | tail -20
  fi
}

# make_own DIR: the reader's own files the examples name, made in DIR
make_own() (
  cd "$1" && mkdir -p home/tiles && cp maps/tilesets/*.xml home/tiles/ &&
  sed -n '/^cat > demo.xml <<.XML.$/,/^XML$/p' README.md | sed '1d;$d' > my-map.xml &&
  sed -e 's/id="base"/id="my-tiles"/' -e 's/name="[^"]*"/name="My tiles"/' maps/tilesets/base.xml > my-tiles.xml &&
  cp my-map.xml map.xml &&
  build/carcamap render --scale 0 --legend maps/legend.xml my-map.xml -o scan.png &&
  build/carcamap render --scale 1 my-map.xml -o tiny.png &&
  build/carcamap export --format tmx maps/germany/germany.xml -o germany.tmx &&
  build/carcamap export --format tmx my-map.xml -o my-map.tmx
) >"$work/own.log" 2>&1

# fresh: the tree again in $work/t, with the reader's own files. maps/ and
# build/ are copies; every other top-level entry is a link to the one copy
# of the tree (no example writes there; copying 1,300 files a dozen times
# costs seconds on a busy machine).
fresh() {
  rm -rf "$work/t"
  mkdir "$work/t"
  for e in "$tree"/* "$tree"/.[!.]*; do
    [ -e "$e" ] || continue
    case ${e##*/} in
    maps|build) cp -a "$e" "$work/t/" ;;
    *) ln -s "$e" "$work/t/${e##*/}" ;;
    esac
  done
  make_own "$work/t" || { echo "examples: cannot make the reader's own files:"; cat "$work/own.log"; exit 1; }
}

# README: the sh blocks, one script each
blocks=$(awk '/^```/ { if (f) { f = 0; n++ } else if ($0 ~ /^```sh$/) f = 1; next } f { print n "\t" $0 }' README.md)
for b in $(printf '%s\n' "$blocks" | cut -f1 | sort -un); do
  script=$(printf '%s\n' "$blocks" | awk -F'\t' -v b="$b" '$1 == b { sub(/^[^\t]*\t/, ""); print }' |
    grep -Ev '^[[:space:]]*(make|tiled|cc|g\+\+)([[:space:]]|$)')
  case $script in *carcamap*) ;; *) continue ;; esac
  fresh
  run "README block $((b + 1)): $(printf '%s\n' "$script" | grep -m1 'carcamap' | cut -c1-60)" "$work/t" "$script"
done
# README: inline examples that name a file
grep -o '`carcamap [a-z][^`]*`' README.md | tr -d '`' | grep -E ' [^ -][^ ]*[./]' | grep -Ev '[<>|…]|[A-Z]{3,}' |
  sort -u > "$work/inline"
fresh
while read -r line; do
  run "README: $line" "$work/t" "$line"
done < "$work/inline"

# --help of every command
for cmd in $("$BIN" --help | awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { f = 0 }'); do
  script=$("$BIN" "$cmd" --help | awk '/^Examples:/ { f = 1; next } f && /^$/ { f = 0 } f' | sed 's/^ *//')
  if [ -z "$script" ]; then
    fail=$((fail + 1))
    echo "FAIL carcamap $cmd --help: no examples"
    continue
  fi
  fresh
  # one example at a time, so that a failure names its line
  printf '%s\n' "$script" > "$work/lines"
  while read -r line; do
    run "carcamap $cmd --help: $line" "$work/t" "$line"
  done < "$work/lines"
done

echo "examples: $pass passed, $fail failed"
[ $fail = 0 ]
