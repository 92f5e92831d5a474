printf "<legend/>\n" > "$TMPDIR_CASE/l.xml"; cd "$TMPDIR_CASE" && $CM list l.xml
