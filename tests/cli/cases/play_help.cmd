$CM play --help
