#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the bash completion of carcamap to stdout from the command's own
# --help texts (the commands of 'carcamap --help', the options each
# 'carcamap CMD --help' lists before its examples), so it cannot drift from the command.
# usage: completion.sh path/to/carcamap
set -eu
bin=$1
cmds=$("$bin" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
echo "# bash completion for carcamap; written by tools/completion.sh from --help"
echo "_carcamap() {"
echo '  local cur=${COMP_WORDS[COMP_CWORD]} opts'
echo '  if [ "$COMP_CWORD" -eq 1 ]; then'
echo "    COMPREPLY=(\$(compgen -W \"$(echo $cmds) --help --version\" -- \"\$cur\"))"
echo '    return'
echo '  fi'
echo '  case ${COMP_WORDS[1]} in'
for c in $cmds; do
  opts=$("$bin" "$c" --help | awk '/^Examples:/ { exit }
    /^  -/ { n = split($0, w, /[ ,]+/); for (i = 2; i <= n; i++) if (w[i] ~ /^-/) print w[i]; else break }' | sort -u)
  echo "    $c) opts=\"$(echo $opts)\" ;;"
done
echo '    *) opts="" ;;'
echo '  esac'
echo '  case $cur in'
echo '    -*) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;'
echo '    *) COMPREPLY=($(compgen -f -- "$cur")) ;;'
echo '  esac'
echo "}"
echo "complete -o filenames -F _carcamap carcamap"
