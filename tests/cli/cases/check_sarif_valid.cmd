sh tests/check/sarif.sh $CM
