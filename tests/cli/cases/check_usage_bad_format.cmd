$CM check --format xml tests/fixtures/tileset/good/base-mini.xml
