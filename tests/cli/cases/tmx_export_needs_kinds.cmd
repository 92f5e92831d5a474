CARCAMAP_TILESETS= $CM export --format tmx tests/fixtures/tmx/sample.tmx -o "$TMPDIR_CASE/g.tmx"; echo "exit $?"; ls "$TMPDIR_CASE"
