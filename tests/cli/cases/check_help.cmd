$CM check --help
