$CM check
