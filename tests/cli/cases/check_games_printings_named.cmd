export CARCAMAP_TILESETS=$PWD/maps/tilesets; $CM check --games 2 --only CM0601 maps/germany; echo "exit $?"
