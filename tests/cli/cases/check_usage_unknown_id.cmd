$CM check --ignore CM9999 tests/fixtures/tileset/good/base-mini.xml
