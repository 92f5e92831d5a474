$CM check tests/fixtures/tileset/bad/CM0001-unclosed-tag.xml tests/fixtures/tileset/bad/CM0003-doctype.xml
