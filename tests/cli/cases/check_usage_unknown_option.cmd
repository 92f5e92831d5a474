$CM check --frobnicate tests/fixtures/tileset/good/base-mini.xml
