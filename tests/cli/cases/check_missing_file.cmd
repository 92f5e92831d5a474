$CM check tests/fixtures/tileset/good/base-mini.xml no/such/file.xml
