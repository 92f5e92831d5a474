#!/bin/sh
# SPDX-License-Identifier: MIT
# CLI golden tests: each tests/cli/cases/NAME.cmd holds one shell command
# line run from the project root with $CM set to the carcamap binary; its
# stdout, stderr and exit status must equal NAME.out, NAME.err and NAME.rc.
# UPDATE=1 rewrites the golden files from the current output.
# CLI_CLAIM=DIR: runs side by side share the cases, each taking the next
# case no other has taken (mkdir DIR/NAME claims it; tests/fuzz/cli-valgrind.sh).
# Prints "N passed, N failed" and exits non-zero on any failure.
set -u
CM=${1:?usage: run.sh path/to/carcamap}
case $CM in /*) ;; *) CM=$(pwd)/$CM ;; esac
# $CM_BIN: the command's own file, for a case that runs a copy of it from
# elsewhere ($CM may be a wrapper: tests/fuzz/cli-valgrind.sh sets it)
CM_BIN=${CM_BIN:-$CM}
export CM CM_BIN
dir=tests/cli/cases
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for cmd in "$dir"/*.cmd; do
  [ -e "$cmd" ] || continue
  name=${cmd%.cmd}
  base=$(basename "$name")
  [ -z "${CLI_CLAIM:-}" ] || mkdir "$CLI_CLAIM/$base" 2>/dev/null || continue
  export TMPDIR_CASE="$tmp/$base.d"
  mkdir -p "$TMPDIR_CASE"
  sh -c "$(cat "$cmd")" >"$tmp/out" 2>"$tmp/err" </dev/null
  echo $? >"$tmp/rc"
  if [ "${UPDATE:-0}" = 1 ]; then
    cp "$tmp/out" "$name.out"; cp "$tmp/err" "$name.err"; cp "$tmp/rc" "$name.rc"
  fi
  ok=1
  for k in out err rc; do
    if ! cmp -s "$tmp/$k" "$name.$k"; then
      [ $ok = 1 ] && echo "FAIL $base"
      ok=0
      diff -u "$name.$k" "$tmp/$k" | head -20
    fi
  done
  if [ $ok = 1 ]; then pass=$((pass+1)); else fail=$((fail+1)); fi
done
echo "cli: $pass passed, $fail failed"
[ $fail = 0 ]
