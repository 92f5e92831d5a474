$CM check maps/legend.xml; echo "exit $?"; $CM check tests/fixtures/image/legend_schema.xml; echo "exit $?"; $CM compile -o "$TMPDIR_CASE/x.pack" maps/legend.xml; echo "exit $?"
