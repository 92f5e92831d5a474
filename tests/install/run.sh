#!/bin/sh
# SPDX-License-Identifier: MIT
# make install / uninstall as a user and a packager see them, in a build
# tree of its own (build/install-test) so that the other tests' binary is
# never relinked under them:
#   1. install into two prefixes one after the other (no make clean between):
#      each installed command, run from outside the tree on a descriptor
#      with no tile sets beside it, finds its own prefix's tile sets; the
#      first is then uninstalled and the second still works;
#   2. install with DESTDIR: every file of the manifest is there; a client
#      (the EXAMPLE of libcarcamap(3)) builds with only pkg-config's flags
#      against the shared library and with --static against the archive,
#      and prints what the man page says on a bundled map's pack;
#   3. the man pages format without warnings, one per command; the bash
#      completion completes; file(1) names packs and .cmap files with the
#      installed magic;
#   4. uninstall removes every file install wrote and nothing else.
# usage: run.sh VERSION
set -eu
VERSION=${1:?usage: run.sh version}
MAKE=${MAKE:-make}
CC=${CC:-cc}
top=$(pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
no() { echo "FAIL $*"; fail=1; }
O=build/install-test
mk() { "$MAKE" --no-print-directory -s O=$O SAN= "$@" >"$t/make.log" 2>&1 || { cat "$t/make.log"; no "make $*"; }; }

# a descriptor alone in a directory: its deck's tile sets come from the prefix
mkdir -p "$t/work"
cp maps/benelux/benelux.xml maps/benelux/benelux.png "$t/work/"
cp maps/legend.xml "$t/"   # ../legend.xml, as in maps/; no ../tilesets
run_installed() { # PREFIX_ROOT
  (cd "$t/work" && env -u CARCAMAP_TILESETS "$1/bin/carcamap" check benelux.xml) >"$t/run.log" 2>&1
}

# 1. two prefixes
mk install PREFIX="$t/p1"
mk install PREFIX="$t/p2"
run_installed "$t/p1" || { cat "$t/run.log"; no "carcamap installed in p1 does not find its tile sets"; }
run_installed "$t/p2" || { cat "$t/run.log"; no "carcamap installed in p2 does not find its tile sets"; }
mk uninstall PREFIX="$t/p1"
left=$(find "$t/p1" -type f -o -type l | sed "s,^$t/p1/,,")
[ -z "$left" ] || no "uninstall left files in p1: $left"
run_installed "$t/p2" || { cat "$t/run.log"; no "carcamap in p2 uses p1's tile sets"; }

# 2. DESTDIR, a packager's install with an unrelated file already there
d=$t/dest
p=/usr/local
mkdir -p "$d$p/bin" && echo keep > "$d$p/bin/other"
mk install DESTDIR="$d" PREFIX=$p
sh tools/install.sh list $O "$d" $p "$VERSION" > "$t/manifest"
while read -r f; do [ -e "$d$p/$f" ] || [ -L "$d$p/$f" ] || no "not installed: $f"; done < "$t/manifest"
for f in bin/carcamap lib/libcarcamap.so.$VERSION lib/libcarcamap.so.${VERSION%%.*} lib/libcarcamap.so \
         lib/libcarcamap.a lib/pkgconfig/carcamap.pc include/carcamap/carcamap.h \
         share/man/man1/carcamap.1 share/man/man1/carcamap-check.1 share/man/man3/libcarcamap.3 \
         share/carcamap/tilesets/base.xml share/carcamap/schemas/map.xsd share/carcamap/schemas/export-bin.md \
         share/carcamap/reader/cmap.h share/carcamap/reader/cmap.c share/carcamap/magic \
         share/bash-completion/completions/carcamap; do
  grep -qx "$f" "$t/manifest" || no "$f is not in the install manifest"
done

# the man page's examples (code, then what it prints: .EX blocks 1 and 2,
# 3 and 4 of EXAMPLE), with only pkg-config's flags
export PKG_CONFIG_PATH="$d$p/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$d"
cflags=$(pkg-config --cflags carcamap) && libs=$(pkg-config --libs carcamap) || no "pkg-config carcamap"
slibs=$(pkg-config --static --libs carcamap | sed 's/-lcarcamap/-Wl,-Bstatic -lcarcamap -Wl,-Bdynamic/')
case $cflags in *"$d$p/include"*) ;; *) no "pkg-config --cflags: $cflags" ;; esac
"$d$p/bin/carcamap" compile -T "$d$p/share/carcamap/tilesets" "$t/work/benelux.xml" -o "$t/benelux.pack" >"$t/run.log" 2>&1 ||
  { cat "$t/run.log"; no "the installed carcamap does not compile benelux"; }
block() { # N: the N-th .EX block of EXAMPLE
  sed -n '/^\.SH EXAMPLE/,/^\.SH/p' tools/libcarcamap.3 | awk -v k="$1" '/^\.EX/ { n++; on = n == k; next } /^\.EE/ { on = 0 } on'
}
for k in 1 2; do
  e=$t/example$k
  block $((2 * k - 1)) | sed 's/\\e/\\/g; s/\\-/-/g; s/^\\&//' > "$e.c"
  block $((2 * k)) | sed 's/\\-/-/g' | grep -v '^\$' > "$e.expected"
  [ -s "$e.c" ] && [ -s "$e.expected" ] || no "libcarcamap(3) example $k not found"
  $CC -std=c11 -Wall -Wextra -Werror $cflags "$e.c" -o "$e" $libs || no "example $k of libcarcamap(3) does not build with pkg-config --libs"
  $CC -std=c11 -Wall -Wextra -Werror $cflags "$e.c" -o "$e-static" $slibs || no "example $k does not build with pkg-config --static"
  readelf -d "$e" | grep -q "NEEDED.*libcarcamap.so.${VERSION%%.*}" || no "example $k does not use libcarcamap.so"
  readelf -d "$e-static" | grep -q "NEEDED.*libcarcamap" && no "the static example $k needs libcarcamap.so"
  LD_LIBRARY_PATH="$d$p/lib" "$e" "$t/benelux.pack" > "$e.out" 2>&1 || { cat "$e.out"; no "example $k failed"; }
  "$e-static" "$t/benelux.pack" > "$e-static.out" 2>&1 || no "the static example $k failed"
  diff "$e.expected" "$e.out" || no "example $k's output differs from libcarcamap(3)"
  cmp -s "$e.out" "$e-static.out" || no "the static example $k's output differs"
done
deps=$(sed -n 's/^DEP_PKGS := //p' build/config.mk)
[ -n "$deps" ] || no "no DEP_PKGS in build/config.mk"
grep -qx "Requires.private: $deps" "$d$p/lib/pkgconfig/carcamap.pc" || no "Requires.private is not: $deps"
for l in $(pkg-config --libs $deps); do
  case " $(pkg-config --static --libs carcamap) " in *" $l "*) ;; *) no "pkg-config --static --libs carcamap lacks $l" ;; esac
done

# 3. man pages, completion, magic
cmds=$("$d$p/bin/carcamap" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for c in $cmds; do
  m=$d$p/share/man/man1/carcamap-$c.1
  [ -f "$m" ] || { no "no man page carcamap-$c.1"; continue; }
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$m" 2>"$t/man.err" >"$t/man.out" || no "man carcamap-$c"
  [ -s "$t/man.err" ] && { cat "$t/man.err"; no "man carcamap-$c warns"; }
  # every option of the --help is in the page
  for o in $("$d$p/bin/carcamap" "$c" --help | sed -n '/^Options:/,/^$/p' | grep -o '^  --*[a-zA-Z-]*'); do
    grep -q -- "$o" "$t/man.out" || no "carcamap-$c(1) misses $o"
  done
  grep -q "^\.B $c\$" "$d$p/share/man/man1/carcamap.1" || no "carcamap(1) does not describe $c"
done
for m in "$d$p/share/man/man1/carcamap.1" "$d$p/share/man/man3/libcarcamap.3"; do
  LC_ALL=C.UTF-8 man --warnings -l "$m" 2>"$t/man.err" >/dev/null; [ -s "$t/man.err" ] && { cat "$t/man.err"; no "man $m warns"; }
done
grep -q "carcamap $VERSION" "$d$p/share/man/man1/carcamap.1" || no "carcamap(1) names another version"
got=$(bash -c '. "$1"; COMP_WORDS=(carcamap check --ign); COMP_CWORD=2; _carcamap; echo "${COMPREPLY[*]}"' - \
  "$d$p/share/bash-completion/completions/carcamap")
[ "$got" = "--ignore" ] || no "bash completion of 'check --ign': $got"
"$d$p/bin/carcamap" export --format bin "$t/benelux.pack" -o "$t/benelux.cmap" >"$t/run.log" 2>&1 || no "export bin"
got=$(file -b -m "$d$p/share/carcamap/magic" "$t/benelux.pack" "$t/benelux.cmap" | tr '\n' ';')
[ "$got" = "carcamap map pack, format 4;carcamap binary map (CMAP), format 2.0;" ] || no "file(1) magic says: $got"

# 4. uninstall
mk uninstall DESTDIR="$d" PREFIX=$p
left=$(cd "$d$p" && find . -type f -o -type l | sed 's,^\./,,' | sort)
[ "$left" = "bin/other" ] || no "after uninstall: $(echo $left)"
[ -d "$d$p/share/carcamap" ] && no "uninstall left share/carcamap"

[ $fail = 0 ] && echo "install: 2 prefixes, DESTDIR, pkg-config (shared and --static), $(wc -l < "$t/manifest") files installed and uninstalled"
exit $fail
