$CM list maps/tilesets/base.xml
