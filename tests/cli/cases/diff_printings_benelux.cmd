$CM diff maps/benelux/benelux.xml
