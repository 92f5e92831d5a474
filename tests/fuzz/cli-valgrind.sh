#!/bin/sh
# SPDX-License-Identifier: MIT
# The CLI golden tests (tests/cli/run.sh) with the binary run under
# valgrind: cli-valgrind.sh path/to/carcamap. Memory errors and definite or
# indirect leaks fail the case (valgrind's exit status 99 differs from every
# golden .rc) and the run; valgrind writes its reports to log files, not
# stderr, so the golden .err files still compare. Reports are printed.
# CLI_JOBS runs (default: the machine's processors) take the cases side by
# side (tests/cli/run.sh CLI_CLAIM); valgrind runs a program on one core.
set -u
bin=${1:?usage: cli-valgrind.sh path/to/carcamap}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v valgrind >/dev/null 2>&1 || { echo "cli-valgrind: valgrind not found" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/logs"
cat > "$tmp/carcamap" <<WRAP
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full \\
  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \\
  --track-fds=no --log-file="$tmp/logs/vg.%p" "$bin" "\$@"
WRAP
chmod +x "$tmp/carcamap"
jobs=${CLI_JOBS:-$(nproc 2>/dev/null || echo 1)}
mkdir "$tmp/claim"
j=0
while [ $j -lt "$jobs" ]; do
  j=$((j + 1))
  { CM_BIN=$bin CLI_CLAIM=$tmp/claim sh tests/cli/run.sh "$tmp/carcamap" >"$tmp/run.$j" 2>&1; echo $? >"$tmp/rc.$j"; } &
done
wait
rc=0 pass=0 fail=0
j=0
while [ $j -lt "$jobs" ]; do
  j=$((j + 1))
  grep -v '^cli: [0-9]* passed, [0-9]* failed$' "$tmp/run.$j"
  set -- $(sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/run.$j") 0 0
  pass=$((pass + $1)) fail=$((fail + $2))
  [ "$(cat "$tmp/rc.$j")" = 0 ] || rc=1
done
echo "cli: $pass passed, $fail failed"
reports=0
for f in "$tmp"/logs/vg.*; do
  [ -s "$f" ] || continue
  reports=$((reports + 1))
  echo "== valgrind report ($f):"
  head -60 "$f"
done
runs=$(ls "$tmp/logs" | wc -l)
echo "cli-valgrind: $runs runs under valgrind, $reports with a report"
[ $rc = 0 ] && [ $reports = 0 ]
