$CM rules --help
