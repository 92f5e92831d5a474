$CM diff maps/taiwan --format json
