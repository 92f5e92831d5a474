$CM diff maps/british-isles/british-isles.xml
