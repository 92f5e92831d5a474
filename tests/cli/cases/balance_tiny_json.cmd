export CARCAMAP_TILESETS=$PWD/maps/tilesets; $CM balance tests/fixtures/cli/tiny/tiny.xml --seats 2 --players greedy,random --compare none --precision 10 --format json
