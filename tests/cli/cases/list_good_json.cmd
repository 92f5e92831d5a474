$CM list --format json tests/fixtures/tileset/good/expansion-abbey.xml
