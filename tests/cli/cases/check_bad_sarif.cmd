$CM check --format sarif tests/fixtures/tileset/bad/CM0110-road-city-same-side.xml
