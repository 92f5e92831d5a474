$CM export --help
