$CM export --format tmx -T maps/tilesets maps/taiwan/taiwan.xml -o "$TMPDIR_CASE/taiwan.tmx" && $CM import "$TMPDIR_CASE/taiwan.tmx"
