$CM check tests/fixtures/tileset/good/base-mini.xml tests/fixtures/tileset/good/expansion-abbey.xml
