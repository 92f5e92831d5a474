$CM check tests/fixtures/tileset/good/base-mini.xml --format
