$CM balance --help
