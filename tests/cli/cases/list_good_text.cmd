$CM list tests/fixtures/tileset/good/base-mini.xml
