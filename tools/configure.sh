#!/bin/sh
# SPDX-License-Identifier: MIT
# Finds (and on a fresh Debian machine, as root, installs; with --check
# only finds) what carcamap builds against, then writes the compiler and
# linker flags to the file named by $1 for the Makefile to include. Run by
# make (installing only for the configure and test-deps steps, --check for
# every other goal); safe to run by hand.
# usage: configure.sh [--check] (CONFIG-FILE | test | fuzz | valgrind)
set -eu
install=1
if [ "${1:-}" = --check ]; then install=0; shift; fi
out=${1:-build/config.mk}

# Installs the Debian packages named in $1 (as root) or says how to. Another
# apt (unattended-upgrades, a second build) may hold the dpkg lock: wait for
# it up to CARCAMAP_APT_LOCK_TIMEOUT seconds (600) instead of failing at once.
APT_LOCK="-o DPkg::Lock::Timeout=${CARCAMAP_APT_LOCK_TIMEOUT:-600}"
install_missing() {
  if [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "configure: installing missing packages:$1" >&2
    export DEBIAN_FRONTEND=noninteractive
    # apt-get update takes the lists lock, which older apt does not wait
    # for: retry it every 5 seconds for as long.
    waited=0
    # shellcheck disable=SC2086
    until apt-get $APT_LOCK update -qq >&2; do
      [ "$waited" -lt "${CARCAMAP_APT_LOCK_TIMEOUT:-600}" ] || exit 1
      echo "configure: apt-get update failed (lock held?), retrying in 5 s" >&2
      sleep 5; waited=$((waited + 5))
    done
    # shellcheck disable=SC2086
    apt-get $APT_LOCK install -y -qq --no-install-recommends $1 >&2
  else
    echo "configure: missing build dependencies:$1" >&2
    echo "configure: install them (Debian: sudo apt-get install$1)" >&2
    case $out in
      test|fuzz|valgrind) how="make test-deps TEST_DEPS=$out" ;;
      *) how="make configure" ;;
    esac
    echo "configure: or, as root on Debian, run \`$how\` to install them" >&2
    exit 1
  fi
}

# Tools only some targets need, checked (and installed) only when asked:
# `configure.sh fuzz` for make fuzz (clang with libFuzzer and its sanitizer
# runtimes), `configure.sh valgrind` for make cli-valgrind (make runs both
# with --check; make test-deps TEST_DEPS="fuzz valgrind" installs). The normal build
# needs neither. These modes write no config file.
FUZZ_PKGS="clang libclang-rt-dev"
VALGRIND_PKGS="valgrind"
case $out in
fuzz)
  t=$(mktemp -d)
  printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$t/f.c"
  if ! command -v clang >/dev/null 2>&1 ||
     ! clang -fsanitize=fuzzer,address,undefined "$t/f.c" -o "$t/f" >/dev/null 2>&1; then
    install_missing " $FUZZ_PKGS"
  fi
  rm -rf "$t"
  exit 0 ;;
valgrind)
  command -v valgrind >/dev/null 2>&1 || install_missing " $VALGRIND_PKGS"
  exit 0 ;;
test)
  # tools the tests run (command:package; poppler-utils reads the PDFs back:
  # page sizes, text, pixels at 300 dpi; npm fetches the SARIF validator
  # and puppeteer-core, which drives the Debian chromium: no browser download;
  # emscripten and node build and test the JavaScript reader, bindings/js);
  # /usr/bin/jsonschema because a
  # pip-installed jsonschema elsewhere on PATH is not the Debian one the
  # tests use. Building and using carcamap needs none of them.
  tools_needed="g++:g++ man:man-db file:file xmllint:libxml2-utils pdfinfo:poppler-utils sqlite3:sqlite3 /usr/bin/jsonschema:python3-jsonschema tmxrasterizer:tiled npm:npm chromium:chromium node:nodejs emcc:emscripten"
  missing=""
  for t in $tools_needed; do
    cmd=${t%%:*}; pkg=${t#*:}
    command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  # GNU parallel runs the README's shards example (moreutils has a
  # parallel of its own, with other options)
  parallel --version 2>/dev/null | grep -q '^GNU parallel' || missing="$missing parallel"
  [ -z "$missing" ] || install_missing "$missing"
  exit 0 ;;
esac

# pkg-config module -> Debian package that provides it
mods="libxml-2.0:libxml2-dev libpng:libpng-dev sqlite3:libsqlite3-dev zlib:zlib1g-dev cairo:libcairo2-dev freetype2:libfreetype-dev cmocka:libcmocka-dev"
# the one font of PDF and picture PNGs (loaded from its file, so that the
# bytes do not depend on the machine's font settings)
FONT_DIR=${CARCAMAP_FONT_DIR:-/usr/share/fonts/truetype/dejavu}
FONT_PKG=fonts-dejavu-core

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for m in $mods; do
  mod=${m%%:*}; pkg=${m#*:}
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$mod"; then
    missing="$missing $pkg"
  fi
done
[ -f "$FONT_DIR/DejaVuSans.ttf" ] && [ -f "$FONT_DIR/DejaVuSans-Bold.ttf" ] || missing="$missing $FONT_PKG"
[ -z "$missing" ] || install_missing "$missing"

mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
# the library's dependencies (also carcamap.pc's Requires.private)
deps="libxml-2.0 libpng sqlite3 zlib cairo freetype2"
{
  echo "# written by tools/configure.sh; delete to re-run"
  echo "DEP_PKGS := $deps"
  echo "FONT_DIR := $FONT_DIR"
  echo "DEP_CFLAGS := $(pkg-config --cflags $deps)"
  echo "DEP_LIBS := $(pkg-config --libs $deps) -lm"
  echo "CMOCKA_CFLAGS := $(pkg-config --cflags cmocka)"
  echo "CMOCKA_LIBS := $(pkg-config --libs cmocka)"
} > "$tmp"
mv "$tmp" "$out"
