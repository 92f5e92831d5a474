$CM diff maps/taiwan/taiwan.xml
