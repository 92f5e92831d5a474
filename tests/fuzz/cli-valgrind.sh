#!/bin/sh
# SPDX-License-Identifier: MIT
# The CLI golden tests (tests/cli/run.sh) with the binary run under
# valgrind: cli-valgrind.sh path/to/carcamap. Memory errors and definite or
# indirect leaks fail the case (valgrind's exit status 99 differs from every
# golden .rc) and the run; valgrind writes its reports to log files, not
# stderr, so the golden .err files still compare. Reports are printed.
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
CM_BIN=$bin sh tests/cli/run.sh "$tmp/carcamap"
rc=$?
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
