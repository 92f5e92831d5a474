$CM check tests/fixtures/cli/missing-set/deck-lines.xml
