#!/bin/sh
# SPDX-License-Identifier: MIT
# `render --watch` end to end, in bounded time: starts it in the
# background, waits for its first line, edits the descriptor (a rename, as
# editors save), makes it briefly invalid, restores it, and checks one
# line per render and the pictures' contents. Each wait gives up after 30 s.
# usage: watch.sh CARCAMAP DIR   (run from the project root; CARCAMAP_WATCH_POLL=1: polling)
set -u
CM=$1
d=$2
export CARCAMAP_TILESETS=$PWD/maps/tilesets
cp tests/fixtures/cli/tiny/tiny.xml "$d/w.xml"
: >"$d/log"
"$CM" render --watch "$d/w.xml" -o "$d/w.svg" >"$d/log" 2>"$d/err" &
pid=$!
lines() { # waits until the log has $1 lines
  i=0
  while [ "$(wc -l <"$d/log")" -lt "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
lines 1
echo "first: $(grep -c '>Beta<' "$d/w.svg") Beta"
sleep 0.1 # a change within the first render's second must still be seen
sed 's/"Beta"/"Gamma"/' "$d/w.xml" >"$d/w.tmp" && mv "$d/w.tmp" "$d/w.xml"
lines 2
echo "after the edit: $(grep -c '>Gamma<' "$d/w.svg") Gamma"
printf '<map format="1" id="w"><grid>#S#</grdi></map>' >"$d/w.xml"
lines 3
echo "while broken: $(grep -c '>Gamma<' "$d/w.svg") Gamma (the last good picture stays)"
cp tests/fixtures/cli/tiny/tiny.xml "$d/w.xml"
lines 4
# ended as a terminal's Ctrl-C ends it: the last render's status (clean)
kill -INT "$pid"
wait "$pid" 2>/dev/null
echo "stopped by SIGINT after a clean render: exit $?"
sed "s|$d/||g" "$d/log"
# and by a kill after a render with errors: 1. The log is emptied first:
# the shell truncates it only once the child runs, and until then the
# first watcher's four lines would satisfy the waits below (and the kill
# would come before the new watcher caught SIGTERM: exit 143)
: >"$d/log"
"$CM" render --watch "$d/w.xml" -o "$d/w.svg" >"$d/log" 2>"$d/err" &
pid=$!
lines 1
printf '<map format="1" id="w"><grid>#S#</grdi></map>' >"$d/w.xml"
lines 2
kill "$pid"
wait "$pid" 2>/dev/null
echo "stopped by SIGTERM after a render with errors: exit $?"
cp tests/fixtures/cli/tiny/tiny.xml "$d/w.xml"
echo "restored: $(grep -c '>Beta<' "$d/w.svg") Beta"
echo "syntax error reported: $(grep -c 'CM0001' "$d/err")"
