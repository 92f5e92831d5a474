$CM check tests/fixtures/tileset/bad/CM0110-road-city-same-side.xml tests/fixtures/tileset/bad/CM0111-contact-twice.xml
