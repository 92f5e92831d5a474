$CM check -T maps/tilesets tests/fixtures/tmx/bad-objects.tmx
