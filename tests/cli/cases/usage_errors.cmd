$CM export tests/fixtures/cli/tiny/tiny.xml; $CM export --format yaml tests/fixtures/cli/tiny/tiny.xml; $CM compile; $CM render; $CM nosuch
