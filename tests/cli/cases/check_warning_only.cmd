$CM check tests/fixtures/tileset/bad/CM0111-contact-twice.xml
