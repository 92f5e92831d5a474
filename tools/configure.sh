#!/bin/sh
# Finds (and on a fresh Debian machine, as root, installs) what carcamap
# builds against, then writes the compiler and linker flags to the file named
# by $1 for the Makefile to include. Run by make; safe to run by hand.
set -eu
out=${1:-build/config.mk}

# pkg-config module -> Debian package that provides it
mods="libxml-2.0:libxml2-dev libpng:libpng-dev sqlite3:libsqlite3-dev cmocka:libcmocka-dev"
# tools the tests run (command:package); /usr/bin/jsonschema because a
# pip-installed jsonschema elsewhere on PATH is not the Debian one the tests use
tools_needed="xmllint:libxml2-utils sqlite3:sqlite3 /usr/bin/jsonschema:python3-jsonschema tmxrasterizer:tiled"

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for m in $mods; do
  mod=${m%%:*}; pkg=${m#*:}
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$mod"; then
    missing="$missing $pkg"
  fi
done
for t in $tools_needed; do
  cmd=${t%%:*}; pkg=${t#*:}
  command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done

if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "configure: installing missing packages:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >&2
  else
    echo "configure: missing build dependencies:$missing" >&2
    echo "configure: install them (Debian: sudo apt-get install$missing)" >&2
    echo "configure: or run make as root on Debian to install them automatically" >&2
    exit 1
  fi
fi

mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
{
  echo "# written by tools/configure.sh; delete to re-run"
  echo "DEP_CFLAGS := $(pkg-config --cflags libxml-2.0 libpng sqlite3)"
  echo "DEP_LIBS := $(pkg-config --libs libxml-2.0 libpng sqlite3) -lm"
  echo "CMOCKA_CFLAGS := $(pkg-config --cflags cmocka)"
  echo "CMOCKA_LIBS := $(pkg-config --libs cmocka)"
} > "$tmp"
mv "$tmp" "$out"
