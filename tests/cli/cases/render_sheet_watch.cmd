sh tests/render/watch_sheet.sh $CM "$TMPDIR_CASE" && mkdir "$TMPDIR_CASE/p" && CARCAMAP_WATCH_POLL=1 sh tests/render/watch_sheet.sh $CM "$TMPDIR_CASE/p"
