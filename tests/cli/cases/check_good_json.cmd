$CM check --format json tests/fixtures/tileset/good/base-mini.xml
