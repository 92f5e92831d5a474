#!/bin/sh
# SPDX-License-Identifier: MIT
# make install / make uninstall: one list of what carcamap installs, so that
# uninstall removes exactly what install wrote (and the directories only
# carcamap uses, once empty). Run from the project root by make.
# usage: install.sh install|uninstall|list BUILD_DIR DESTDIR PREFIX VERSION
set -eu
mode=$1 O=$2 dest=$3 prefix=$4 version=$5
soname=libcarcamap.so.${version%%.*}
root=$dest$prefix

# One line per installed path: kind (file|exec|link), source or link target,
# destination relative to the root.
manifest() {
  echo "exec $O/carcamap bin/carcamap"
  echo "file $O/libcarcamap.a lib/libcarcamap.a"
  echo "exec $O/libcarcamap.so.$version lib/libcarcamap.so.$version"
  echo "link libcarcamap.so.$version lib/$soname"
  echo "link libcarcamap.so.$version lib/libcarcamap.so"
  echo "file $O/carcamap.pc lib/pkgconfig/carcamap.pc"
  for h in lib/include/carcamap/*.h; do echo "file $h include/carcamap/${h##*/}"; done
  echo "file $O/man/carcamap.1 share/man/man1/carcamap.1"
  for m in "$O"/man/carcamap-*.1; do echo "file $m share/man/man1/${m##*/}"; done
  for m in tools/*.3; do echo "file $m share/man/man3/${m##*/}"; done
  for t in maps/tilesets/*.xml maps/tilesets/carcamap-kinds.tsx maps/tilesets/carcamap-kinds.png \
    maps/tilesets/carcamap.tiled-project; do echo "file $t share/carcamap/tilesets/${t##*/}"; done
  for s in schemas/*; do echo "file $s share/carcamap/schemas/${s##*/}"; done
  echo "file lib/reader/cmap.h share/carcamap/reader/cmap.h"
  echo "file lib/reader/cmap.c share/carcamap/reader/cmap.c"
  echo "file tools/carcamap.magic share/carcamap/magic"
  echo "file LICENSE share/doc/carcamap/LICENSE"
  echo "file $O/carcamap.bash share/bash-completion/completions/carcamap"
}
# directories only carcamap writes into, deepest first
own_dirs="share/carcamap/tilesets share/carcamap/schemas share/carcamap/reader share/carcamap
include/carcamap share/doc/carcamap"

case $mode in
list)
  manifest | while read -r kind src dst; do echo "$dst"; done ;;
install)
  manifest | while read -r kind src dst; do
    install -d "$root/${dst%/*}"
    case $kind in
    file) install -m 644 "$src" "$root/$dst" ;;
    exec) install -m 755 "$src" "$root/$dst" ;;
    link) ln -sf "$src" "$root/$dst" ;;
    esac
  done ;;
uninstall)
  manifest | while read -r kind src dst; do rm -f "$root/$dst"; done
  for d in $own_dirs; do [ -d "$root/$d" ] && rmdir "$root/$d" 2>/dev/null || true; done ;;
*)
  echo "usage: install.sh install|uninstall|list BUILD_DIR DESTDIR PREFIX VERSION" >&2; exit 2 ;;
esac
