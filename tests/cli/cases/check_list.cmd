$CM check --list
