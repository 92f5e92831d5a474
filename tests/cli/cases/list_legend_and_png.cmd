$CM list maps/legend.xml; $CM list maps/germany/germany.png
