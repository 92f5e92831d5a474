export CARCAMAP_TILESETS=$PWD/maps/tilesets; $CM play tests/fixtures/cli/tiny/tiny.xml --games 20 --seed 3
