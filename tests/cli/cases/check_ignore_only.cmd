$CM check --ignore CM0102 tests/fixtures/tileset/bad/CM0110-road-city-same-side.xml; echo "exit $?"; $CM check --only CM0102 --format json tests/fixtures/tileset/bad/CM0110-road-city-same-side.xml
