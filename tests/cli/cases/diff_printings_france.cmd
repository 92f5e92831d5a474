$CM diff maps/france/france.xml
