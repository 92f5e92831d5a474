#!/bin/sh
# SPDX-License-Identifier: MIT
# Functions by length (issue 32: none over 150 lines in lib/): prints
# "lines file:line name" for every function definition in the C files
# given (default lib/**/*.c), longest first. A definition is the house
# style's: the signature starts in column 0, its body opens with "{" alone
# in column 0 and closes with "}" in column 0; its length counts the lines
# from the signature's first line to the closing brace.
# usage: funcs.sh [-n N (only over N lines)] [FILE...]
set -u
min=0
if [ "${1:-}" = -n ]; then min=$2; shift 2; fi
[ $# -gt 0 ] || set -- $(find lib -name '*.c' | sort)
awk -v min="$min" '
FNR == 1 { sig = 0; inbody = 0 }
!inbody && /^[A-Za-z_]/ && !/^(typedef|struct|enum|union|static const|const|#)/ && !/;[[:space:]]*$/ && /\(/ {
  sig = FNR; name = $0; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n] }
!inbody && /^(static )?(const )?(struct |enum )?[A-Za-z_][A-Za-z_0-9]* \**[A-Za-z_][A-Za-z_0-9]*\(/ { if (!sig) sig = FNR }
!inbody && /^\{/ && sig { inbody = 1; next }
inbody && /^\}/ { len = FNR - sig + 1; if (len > min) printf "%d %s:%d %s\n", len, FILENAME, sig, name; inbody = 0; sig = 0; next }
!inbody && /;[[:space:]]*$/ && !/^[[:space:]]/ { sig = 0 }
' "$@" | sort -rn
