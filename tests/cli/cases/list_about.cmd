export CARCAMAP_TILESETS=$PWD/maps/tilesets; $CM list tests/fixtures/cli/about/about.xml 2>/dev/null && $CM list --format json tests/fixtures/cli/about/about.xml 2>/dev/null | sed -n '/"about"/,/}/p'
