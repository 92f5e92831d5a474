d=$TMPDIR_CASE; $CM render tests/fixtures/cli/tiny/tiny.xml -o $d/t24.png; { $CM import $d/t24.png; echo "exit $?"; } 2>&1 | tail -3 | sed "s|$d/||"
