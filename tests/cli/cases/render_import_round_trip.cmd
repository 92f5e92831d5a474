$CM render tests/fixtures/cli/tiny/tiny.xml --scale 1 -o "$TMPDIR_CASE/t1.png" && $CM import "$TMPDIR_CASE/t1.png" --id tiny | sed -n '/<grid>/,/<\/grid>/p'
