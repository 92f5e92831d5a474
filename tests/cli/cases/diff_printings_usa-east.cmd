$CM diff maps/usa-east/usa-east.xml
