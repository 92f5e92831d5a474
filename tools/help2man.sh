#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the man page carcamap-CMD(1) to stdout from 'carcamap CMD --help',
# so the pages cannot drift from the command: the usage lines become the
# SYNOPSIS, the text before "Options:" the DESCRIPTION, "NAME  text" lists
# tagged paragraphs, "Examples:" a literal block, "Exit status:" its section.
# usage: help2man.sh path/to/carcamap CMD VERSION
set -eu
bin=$1 cmd=$2 version=$3
summary=$("$bin" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
[ -n "$summary" ] || { echo "help2man.sh: '$cmd' is not a carcamap command" >&2; exit 1; }
"$bin" "$cmd" --help | awk -v cmd="$cmd" -v version="$version" -v summary="$summary" '
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.\047]/) s = "\\&" s
	return s
}
function section(name) {
	if (lit) { print ".fi"; lit = 0 }
	print ".SH " name
	mode = "text"; tagged = 0
}
BEGIN {
	up = toupper("carcamap-" cmd)
	print ".\\\" written by tools/help2man.sh from carcamap " cmd " --help; do not edit"
	print ".TH " up " 1 \"\" \"carcamap " version "\" \"User Commands\""
	print ".SH NAME"
	print "carcamap\\-" cmd " \\- " esc(summary)
	print ".SH SYNOPSIS"
	print ".nf"
	lit = 1; mode = "synopsis"
}
mode == "synopsis" {
	if ($0 == "") { print ".fi"; lit = 0; section("DESCRIPTION"); next }
	sub(/^usage: /, ""); sub(/^       /, "")
	print esc($0); next
}
/^Options:$/ { section("OPTIONS"); next }
/^Examples:$/ { section("EXAMPLES"); print ".nf"; lit = 1; mode = "examples"; next }
/^Exit status:/ { section("EXIT STATUS"); sub(/^Exit status: */, "") }
/^[A-Z][A-Za-z ]*:$/ { s = $0; sub(/:$/, "", s); section(toupper(s)); next }
mode == "examples" { if ($0 != "") { sub(/^  /, ""); print esc($0) } ; next }
$0 == "" { if (tagged) { tagged = 0 } ; print ".PP"; next }
/^  [^ ]/ {
	line = substr($0, 3)
	if (match(line, /   */)) { tag = substr(line, 1, RSTART - 1); rest = substr(line, RSTART + RLENGTH) }
	else { tag = line; rest = "" }
	print ".TP"
	print ".B " esc(tag)
	if (rest != "") print esc(rest)
	tagged = 1; next
}
/^   / { sub(/^ +/, ""); print esc($0); next }
{ if (tagged) { print ".PP"; tagged = 0 } ; print esc($0) }
END {
	if (lit) print ".fi"
	print ".SH SEE ALSO"
	print ".BR carcamap (1),"
	print ".BR libcarcamap (3)"
}'
