#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs libFuzzer harnesses: run.sh SECONDS build/fuzz/fuzz_NAME...
# For each harness: seeds build/fuzz/corpus/NAME from tests/fuzz/corpus/NAME
# and every small bundled or fixture file of the reader's kind, builds its
# dictionary, runs it for SECONDS, and keeps any crashing input under
# build/fuzz/artifacts/NAME/. The log of each run is build/fuzz/logs/NAME.log.
# Prints one line per harness and "fuzz: N passed, N failed"; exits non-zero
# when any harness found something.
set -u
secs=${1:?usage: run.sh SECONDS HARNESS...}
shift
fz=build/fuzz
maxseed=65536 # larger files teach a mutator little and slow every run

# Whether file $2 is an input of reader $1, from its first bytes.
is_kind() {
  case $1 in
  tileset|map|legend)
    head -c 4096 "$2" | tr -d '\000' | grep -q "<$1[ >/]" ;;
  tmx)
    head -c 4096 "$2" | tr -d '\000' | grep -q "<map [^>]*orientation=" ;;
  image)
    [ "$(head -c 8 "$2" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ;;
  pack)
    [ "$(head -c 15 "$2")" = "SQLite format 3" ] ;;
  cmap)
    case $2 in *.cmap|*.bin) true ;; *) false ;; esac ;;
  *) false ;;
  esac
}

seed() {
  r=$1 dir=$2
  mkdir -p "$dir"
  if [ -d tests/fuzz/corpus/"$r" ]; then
    cp tests/fuzz/corpus/"$r"/* "$dir"/ 2>/dev/null
  fi
  # hand-made inputs plus whatever the generator script below produces
  if [ -f tests/fuzz/seed-"$r".sh ]; then
    sh tests/fuzz/seed-"$r".sh "$dir" >/dev/null 2>&1 || echo "fuzz: seed-$r.sh failed (continuing)" >&2
  fi
  # packs and binary maps: written from the fixture maps by seedgen
  case $r in pack|cmap)
    if [ -n "${SEEDGEN:-}" ] && [ ! -d "$fz/seedgen" ]; then
      "$SEEDGEN" "$fz/seedgen" tests/fixtures/map/good/*.xml maps/*/*.xml >/dev/null 2>&1 ||
        echo "fuzz: seedgen failed (continuing)" >&2
    fi
    cp "$fz/seedgen/$r"/* "$dir"/ 2>/dev/null ;;
  esac
  find maps tests/fixtures -type f -size -$((maxseed / 1024 + 1))k 2>/dev/null | sort |
  while read -r f; do
    case $f in *.expect|*.md|*.gen) continue ;; esac
    is_kind "$r" "$f" && cp "$f" "$dir/seed-$(echo "$f" | tr '/' '_')"
  done
}

pass=0 fail=0
# One harness, seeded already: its line into $fz/logs/NAME.line, its
# status into $fz/logs/NAME.rc.
run_one() {
  bin=$1 r=$2
  corpus=$fz/corpus/$r
  art=$fz/artifacts/$r
  log=$fz/logs/$r.log
  dict=$fz/$r.dict
  : > "$dict"
  case $r in tileset|map|legend|tmx) cat tests/fuzz/xml.dict >> "$dict" ;; esac
  [ -f tests/fuzz/"$r".dict ] && cat tests/fuzz/"$r".dict >> "$dict"
  dictopt=""
  [ -s "$dict" ] && dictopt="-dict=$dict"
  # -timeout: an input taking 10 s is a hang; -rss_limit_mb: a reader that
  # needs 2 GB for one input has no limit; leaks are findings (ASan).
  # shellcheck disable=SC2086
  TMPDIR=${TMPDIR:-/tmp} "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art/" $dictopt "$corpus" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [ $rc = 0 ]; then
    echo "fuzz $r: ok, ${execs:-?} runs in ${secs}s, ${cov:-cov: ?}, corpus $(ls "$corpus" | wc -l)"
  else
    echo "fuzz $r: FOUND A PROBLEM (exit $rc), input kept in $art/:"
    ls -t "$art" | head -3 | sed 's/^/  /'
    grep -E 'ERROR|SUMMARY|invariant|#[0-9]+ 0x' "$log" | head -25 | sed 's/^/  /'
    echo "  full log: $log"
  fi > "$fz/logs/$r.line"
  echo $rc > "$fz/logs/$r.rc"
}

# Seeds first, one harness after another (pack and cmap share seedgen's
# output); then FUZZ_JOBS harnesses at a time (default: the machine's
# processors), each on a core of its own for its SECONDS.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
reader() { r=$(basename "$1"); echo "${r#fuzz_}"; }
for bin in "$@"; do
  r=$(reader "$bin")
  mkdir -p "$fz/artifacts/$r" "$fz/logs"
  seed "$r" "$fz/corpus/$r"
done
set -- "$@" ""
while [ -n "$1" ]; do
  n=0 batch=""
  while [ -n "$1" ] && [ $n -lt "$jobs" ]; do
    r=$(reader "$1")
    run_one "$1" "$r" &
    batch="$batch $r" n=$((n + 1))
    shift
  done
  wait
  for r in $batch; do
    cat "$fz/logs/$r.line"
    if [ "$(cat "$fz/logs/$r.rc")" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  done
done
echo "fuzz: $pass passed, $fail failed"
[ $fail = 0 ]
