for a in "maps/germany --precision 5" "maps/germany --balance --precision 0" "maps/germany --balance --players bogus" "maps/germany --balance --jobs 0"; do $CM diff $a; echo "exit $?"; done
