$CM check --strict tests/fixtures/tileset/bad/CM0111-contact-twice.xml
