$CM diff maps/usa/usa.xml
