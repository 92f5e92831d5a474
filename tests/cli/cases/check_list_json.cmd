$CM check --list --format json
