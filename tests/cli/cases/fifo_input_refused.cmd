cd "$TMPDIR_CASE" && mkfifo pipe.xml && timeout 10 $CM check pipe.xml; echo "exit $?"; timeout 10 $CM import pipe.xml; echo "exit $?"; timeout 10 $CM compile pipe.xml -o x.pack; echo "exit $?"
