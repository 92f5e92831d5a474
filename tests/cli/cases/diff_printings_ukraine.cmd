$CM diff maps/ukraine/ukraine.xml
