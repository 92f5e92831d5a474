$CM diff maps/iberia/iberia.xml
