$CM check --format sarif tests/fixtures/tileset/good/base-mini.xml
