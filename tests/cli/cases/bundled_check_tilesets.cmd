$CM check maps/tilesets/base.xml maps/tilesets/inns-cathedrals.xml maps/tilesets/traders-builders.xml maps/tilesets/abbey-mayor.xml
