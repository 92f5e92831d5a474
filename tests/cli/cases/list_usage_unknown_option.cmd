$CM list -x tests/fixtures/tileset/good/base-mini.xml
