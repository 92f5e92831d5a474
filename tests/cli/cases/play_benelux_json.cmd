$CM play maps/benelux/benelux.xml --games 20 --seed 9 --players 4 --format json
