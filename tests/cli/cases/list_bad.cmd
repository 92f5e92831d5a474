$CM list tests/fixtures/tileset/bad/CM0101-slot-uncovered.xml
