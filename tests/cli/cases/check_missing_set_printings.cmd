$CM check -T maps/tilesets tests/fixtures/cli/missing-set/printings.xml
