$CM diff --help
