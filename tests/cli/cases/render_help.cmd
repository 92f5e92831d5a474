$CM render --help
