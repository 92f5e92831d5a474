printf "<map/>\n" > "$TMPDIR_CASE/m.xml"; printf "hello\n" > "$TMPDIR_CASE/x.txt"; cd "$TMPDIR_CASE" && $CM check m.xml x.txt
