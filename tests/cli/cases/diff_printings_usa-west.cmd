$CM diff maps/usa-west/usa-west.xml
