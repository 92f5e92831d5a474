$CM diff tests/fixtures/diff/isles-a.xml tests/fixtures/diff/isles-b.xml; echo "exit $?"; $CM diff tests/fixtures/diff/isles-b.xml tests/fixtures/diff/isles-a.xml --format json
