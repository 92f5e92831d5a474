#!/bin/sh
# SPDX-License-Identifier: MIT
# The library's layers hold (README "Tour"): lib/base, model, engine, check,
# export, io, in that order; a module uses only its own layer and the ones
# before it. Checked two ways, from the sources and from the objects:
#   - includes: a private header ("layer/x_int.h") of the same or a lower
#     layer only; no libxml2, libpng, SQLite or zlib header in base, model
#     or engine; public headers (lib/include/carcamap) include only public
#     headers and no dependency header; the validator (check) asks the
#     engine through its layer-internal engine/engine.h, never its private
#     engine/*_int.h structures, and the pack (io) asks the exporters
#     through export/export.h, never their private export/*_int.h;
#   - the command (tools/*.c, *.h) is a client: it includes only public
#     headers (carcamap/*.h), its own headers in tools/ and the build's
#     cm_paths.h, so it builds against an installed library;
#   - symbols (nm): every library symbol a module uses is defined in its
#     own layer or a lower one, and no modules use each other in a circle;
#     the map model's checker (cm__map_check_model_flags) is called by the
#     builder's finish (model/map_builder.c) and by no other module: a map,
#     once built, is trusted and never checked again (issue 32).
# usage: layers.sh OBJDIR (the objects of lib/ under OBJDIR/obj/lib)
set -u
obj=${1:?usage: layers.sh OBJDIR}
fail=0
rank() {
  case $1 in
    base) echo 0 ;; model) echo 1 ;; engine) echo 2 ;; check) echo 3 ;;
    export) echo 4 ;; io) echo 5 ;; *) echo 99 ;;
  esac
}
say() { echo "layers: $*"; fail=1; }

for f in lib/base/* lib/model/* lib/engine/* lib/check/* lib/export/* lib/io/*; do
  case $f in *.c|*.h) ;; *) continue ;; esac
  layer=${f#lib/}; layer=${layer%%/*}; r=$(rank "$layer")
  grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | while IFS= read -r line; do
    n=${line%%:*}
    inc=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p')
    case $inc in
      libxml/*|png.h|sqlite3.h|zlib.h)
        [ "$r" -le 2 ] && echo "layers: $f:$n: $layer includes $inc (base, model and engine use no dependency)" ;;
      carcamap/*) ;;
      */*)
        case $line in *'"'*) ;; *) continue ;; esac # <sys/stat.h>
        il=${inc%%/*}; ir=$(rank "$il")
        if [ "$ir" -eq 99 ]; then echo "layers: $f:$n: includes $inc, which is no layer's header"
        elif [ "$ir" -gt "$r" ]; then echo "layers: $f:$n: $layer includes $inc of the higher layer $il"
        elif [ "$layer" = check ] && case $inc in engine/*_int.h) true ;; *) false ;; esac; then
          echo "layers: $f:$n: check includes the engine's private $inc (ask engine/engine.h)"
        elif [ "$layer" != export ] && case $inc in export/*_int.h) true ;; *) false ;; esac; then
          echo "layers: $f:$n: $layer includes the exporters' private $inc (ask export/export.h)"; fi ;;
      cm_paths.h) ;; # written by make into the build tree
      *.h) case $line in *'"'*) echo "layers: $f:$n: includes \"$inc\" without its layer path" ;; esac ;;
    esac
  done
done > "$obj/layers.inc"
[ -s "$obj/layers.inc" ] && { cat "$obj/layers.inc"; fail=1; }

for f in lib/include/carcamap/*.h; do
  grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | grep -v '<std[a-z]*\.h>\|<limits\.h>\|<inttypes\.h>' |
    grep -v '#[[:space:]]*include[[:space:]]*"[a-z0-9_]*\.h"' | sed "s|^|layers: $f:|; s|\$| (public headers include only public and standard headers)|"
done > "$obj/layers.pub"
[ -s "$obj/layers.pub" ] && { cat "$obj/layers.pub"; fail=1; }

# the command: public headers only ("..." includes; <...> are the system's)
for f in tools/*.c tools/*.h; do
  [ -e "$f" ] || continue
  grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
    n=${line%%:*}
    inc=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p')
    case $inc in
      carcamap/*.h) [ -e "lib/include/$inc" ] && continue ;;
      cm_paths.h) continue ;; # written by make into the build tree (PREFIX)
      */*) ;;
      *) [ -e "tools/$inc" ] && continue ;;
    esac
    echo "layers: $f:$n: the command includes \"$inc\", which is no public header (use lib/include/carcamap/*.h only: the command builds against an installed library)"
  done
done > "$obj/layers.tools"
[ -s "$obj/layers.tools" ] && { cat "$obj/layers.tools"; fail=1; }

# symbols: who defines what, who uses what
: > "$obj/layers.def"; : > "$obj/layers.use"
for o in "$obj"/obj/lib/base/*.o "$obj"/obj/lib/model/*.o "$obj"/obj/lib/engine/*.o \
         "$obj"/obj/lib/check/*.o "$obj"/obj/lib/export/*.o "$obj"/obj/lib/io/*.o; do
  [ -e "$o" ] || continue
  m=${o#"$obj"/obj/lib/}; m=${m%.o}
  [ -e "lib/$m.c" ] || continue # a stale object of a removed source
  nm -g --defined-only "$o" | awk -v m="$m" 'NF == 3 { print $3, m }' >> "$obj/layers.def"
  nm -u "$o" | awk -v m="$m" '{ print $NF, m }' >> "$obj/layers.use"
done
sort -o "$obj/layers.def" "$obj/layers.def"
sort -o "$obj/layers.use" "$obj/layers.use"
join "$obj/layers.use" "$obj/layers.def" | awk '$2 != $3 { print $2, $3, $1 }' | sort -u > "$obj/layers.edges"
awk '
function rank(m,   l) { l = m; sub(/\/.*/, "", l)
  return l == "base" ? 0 : l == "model" ? 1 : l == "engine" ? 2 : l == "check" ? 3 : l == "export" ? 4 : l == "io" ? 5 : 99 }
{ if (rank($2) > rank($1)) { key = $1 " " $2; if (!(key in seen)) { seen[key] = 1
      printf "layers: lib/%s.c uses %s of lib/%s.c, a higher layer\n", $1, $3, $2 } } }
' "$obj/layers.edges" > "$obj/layers.up"
[ -s "$obj/layers.up" ] && { cat "$obj/layers.up"; fail=1; }
# circles: strip modules that use no remaining module until none is left;
# what stays lies on a circle
awk '
{ e[$1 " " $2] = 1; node[$1] = 1; node[$2] = 1 }
END {
  do { changed = 0
    for (n in node) { out = 0
      for (k in e) { split(k, p, " "); if (p[1] == n && (p[2] in node)) { out = 1; break } }
      if (!out) { delete node[n]; changed = 1 } }
  } while (changed)
  for (k in e) { split(k, p, " "); if ((p[1] in node) && (p[2] in node)) printf "layers: circle: lib/%s.c uses lib/%s.c\n", p[1], p[2] }
}' "$obj/layers.edges" | sort > "$obj/layers.circles"
[ -s "$obj/layers.circles" ] && { cat "$obj/layers.circles"; fail=1; }

# one model check per map: the builder's finish, nowhere else
awk '$1 == "cm__map_check_model_flags" && $2 != "model/map_builder" {
  printf "layers: lib/%s.c calls the map model checker: only the builder'"'"'s finish (lib/model/map_builder.c) checks a map\n", $2 }' \
  "$obj/layers.use" > "$obj/layers.check"
[ -s "$obj/layers.check" ] && { cat "$obj/layers.check"; fail=1; }

if [ $fail = 0 ]; then
  echo "layers: $(wc -l < "$obj/layers.edges" | tr -d ' ') module uses, none upwards, no circle; includes hold (the command's public only); maps checked by the builder only"
fi
exit $fail
