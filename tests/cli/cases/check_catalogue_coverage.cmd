/usr/bin/python3 tests/check/coverage.py $CM
