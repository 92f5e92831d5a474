export CARCAMAP_TILESETS=$PWD/maps/tilesets; $CM compile tests/fixtures/cli/tiny/tiny.xml -o "$TMPDIR_CASE/t.pack" 2>&1 | sed 's|/.*/||'; $CM list "$TMPDIR_CASE/t.pack"
