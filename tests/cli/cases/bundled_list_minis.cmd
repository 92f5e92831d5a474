$CM list maps/tilesets/crop-circles-2.xml
