$CM play maps/benelux/benelux.xml --games 20
