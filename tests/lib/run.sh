#!/bin/sh
# SPDX-License-Identifier: MIT
# The library as a client sees it, from the build tree:
#   - libcarcamap.so exports exactly the functions the public headers
#     declare (nm -D): all cm_, none of the private helpers;
#   - the soname is libcarcamap.so.MAJOR of CM_VERSION_MAJOR (carcamap/version.h);
#   - carcamap.h and cmap.h compile as C++17 with -Wall -Wextra -Werror and a
#     C++ program links against both (tests/lib/cxx_client.cpp) and runs.
# usage: run.sh BUILD_DIR VERSION   (SANFLAGS: those the library was built with)
set -eu
O=${1:?usage: run.sh build-dir version}
VERSION=${2:?usage: run.sh build-dir version}
CC=${CC:-cc}
CXX=${CXX:-g++}
SANFLAGS=${SANFLAGS:-}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
no() { echo "FAIL $*"; fail=1; }
so=$O/libcarcamap.so.$VERSION

readelf -d "$so" | grep -q "SONAME.*\[libcarcamap.so.${VERSION%%.*}\]" || no "soname of $so"

# exported: defined dynamic symbols (without version suffix)
nm -D --defined-only "$so" | awk '{ print $3 }' | sed 's/@.*//' | grep -v '^CARCAMAP_' | sort -u > "$t/exported"
# declared: functions of the public headers, less the static inline ones
sh tools/exports.sh lib/include/carcamap/*.h | sed -n "s/^  \(cm_[a-z0-9_]*\);$/\1/p" | sort -u > "$t/script"
grep -ho 'static inline [^(]*\bcm_[a-z0-9_]*(' lib/include/carcamap/*.h |
  grep -o 'cm_[a-z0-9_]*($' | tr -d '(' | sort -u > "$t/inline"
comm -23 "$t/script" "$t/inline" > "$t/declared"
[ -s "$t/exported" ] || no "no symbols exported"
grep -v '^cm_' "$t/exported" | sed 's/^/FAIL exported without the cm_ prefix: /' | grep . && fail=1
comm -23 "$t/exported" "$t/declared" | sed 's/^/FAIL exported but not in a public header: /' | grep . && fail=1
comm -13 "$t/exported" "$t/declared" | sed 's/^/FAIL declared in a public header but not exported: /' | grep . && fail=1
# private helpers stay so; the JSON writer is public (carcamap/json.h) but
# its stack initialiser is not, and cm_write_to is public only by its
# documented name cm_file_write (carcamap/file.h)
for private in cm_strdup cm_json_init cm_json_write_string cm_write_to cm_open_read cm_xml_load_file cm__fnv_u32 cm_hash_bytes; do
  grep -qx "$private" "$t/exported" && no "private helper $private is exported"
done

# C++: both headers, strict warnings, linked against the shared library
"$CXX" $SANFLAGS -std=c++17 -Wall -Wextra -Wpedantic -Werror -Ilib/include -Ilib/reader \
  -c tests/lib/cxx_client.cpp -o "$t/cxx_client.o" || no "cxx_client.cpp does not compile as C++17"
"$CC" $SANFLAGS -std=c99 -Wall -Wextra -Werror -c lib/reader/cmap.c -o "$t/cmap.o" || no "cmap.c"
"$CXX" $SANFLAGS -o "$t/cxx_client" "$t/cxx_client.o" "$t/cmap.o" -L"$O" -lcarcamap || no "linking cxx_client"
"$O/carcamap" compile maps/benelux/benelux.xml -o "$t/benelux.pack" >"$t/log" 2>&1 || { cat "$t/log"; no "compile benelux"; }
out=$(LD_LIBRARY_PATH=$O "$t/cxx_client" "$t/benelux.pack") || no "cxx_client failed: $out"
case $out in "benelux 13x17 "*" edge prints, carcamap $VERSION") ;; *) no "cxx_client said: $out" ;; esac
readelf -d "$t/cxx_client" | grep -q "NEEDED.*\[libcarcamap.so.${VERSION%%.*}\]" || no "cxx_client does not need the shared library"

[ $fail = 0 ] && echo "lib: $(wc -l < "$t/exported") symbols exported, all declared; C++17 client links and runs"
exit $fail
