$CM check maps/*/*.xml; echo "exit $?"
