export CARCAMAP_TILESETS=$PWD/maps/tilesets; $CM play tests/fixtures/cli/tiny/tiny.xml --games 10 --players 3 --rule farmers=C1 --rule tiny-city=yes --format json
