printf 'SQLite format 3' > "$TMPDIR_CASE/x.pack"; sqlite3 "$TMPDIR_CASE/f.pack" 'CREATE TABLE t(a);'; cd "$TMPDIR_CASE" && $CM check f.pack x.pack
