$CM list --help
