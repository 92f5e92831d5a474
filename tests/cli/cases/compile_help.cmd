$CM compile --help
