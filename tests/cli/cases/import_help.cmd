$CM import --help
