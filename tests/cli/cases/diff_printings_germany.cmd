$CM diff maps/germany/germany.xml
