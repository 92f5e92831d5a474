/* SPDX-License-Identifier: MIT */
/* catalog.c: the catalogue of checks (carcamap/catalog.h). One table, sorted
 * by id, in ranges per module. Ids are stable: never renumber or reuse one;
 * retire an id by leaving its row with "(retired)" in the title. */
#include <assert.h>
#include <string.h>
#include "carcamap/catalog.h"

#define E CM_SEV_ERROR
#define W CM_SEV_WARNING
#define N CM_SEV_NOTE

static const cm_check_info checks[] = {
	/* ---- CM00xx: input files (lib/io/xml.c, lib/base/util.c) ---- */
	{ "CM0001", E, "xml is not well-formed", "", "fix the XML syntax at the position given" },
	{ "CM0002", E, "xml does not follow its schema", "",
	  "compare the element with the format's XSD in schemas/ and fix it" },
	{ "CM0003", E, "dtd or entity declaration refused", "",
	  "remove the DOCTYPE: carcamap files never need a DTD and never load one" },
	{ "CM0004", E, "input larger than the limit", "", "split the file or check that it is the right file" },
	{ "CM0005", E, "unknown file kind", "",
	  "give a tile set or map XML file, a legend, a PNG image or a carcamap pack" },
	{ "CM0006", E, "id defined twice across the inputs", "",
	  "give each map and tile set its own id, or pass each file once" },
	{ "CM0007", E, "text holds a control character", "",
	  "names, labels and other text hold printable characters only: remove control characters "
	  "(character references such as &#10; or &#27; too), bidirectional controls and invalid UTF-8" },

	/* ---- CM01xx: tile sets (lib/model/tileset.c) ---- */
	{ "CM0101", E, "edge slot covered by no feature", "BASE-FEATURES",
	  "add the slot to the feature that reaches that part of the edge (often a field)" },
	{ "CM0102", E, "edge slot covered by more than one feature", "BASE-FEATURES",
	  "keep each slot in exactly one feature of the tile" },
	{ "CM0103", E, "feature does not fit its kind", "BASE-FEATURES",
	  "a city covers whole sides, a road middle slots only, monastery and garden no slots, an abbey all 12; "
	  "arms, cathedral and good belong on cities, inn on roads, touches on fields" },
	{ "CM0104", E, "tile id used twice in the set", "", "give each tile of the set its own id" },
	{ "CM0105", E, "feature id used twice in a tile", "", "give each feature of the tile its own id" },
	{ "CM0106", E, "touches does not name a city of the tile", "BASE-FINAL",
	  "list in touches only the ids of city features of the same tile" },
	{ "CM0107", E, "contact names an unknown feature", "WAGON-C1",
	  "list in a contact only the ids of features of the same tile" },
	{ "CM0108", E, "contact with fewer than two features", "WAGON-C1",
	  "name at least two different features in each contact, or remove it" },
	{ "CM0109", E, "field or garden in a contact", "WAGON-C1",
	  "remove it from the contact: a wagon never stands on a field or a garden" },
	{ "CM0110", E, "road and city on the same side in a contact", "WAGON-C1",
	  "check the slots: one side cannot show both a road and a city" },
	{ "CM0111", W, "contact listed twice", "WAGON-C1", "remove the repeated contact" },
	{ "CM0112", E, "tile counts missing or contradictory", "",
	  "give count, or count-c1/count-c2/count-c3 (not both), with at least one copy in some edition" },
	{ "CM0113", E, "wrong start tile", "MAP-START",
	  "mark exactly one drawn tile start=\"true\" in a base set, and none in an expansion" },
	{ "CM0114", E, "declared total does not match the counts", "",
	  "fix the total (drawn tiles only: abbey tiles do not count) or the tile counts; "
	  "give total or total-c1/total-c2/total-c3, not both" },
	{ "CM0115", E, "abbey tile holds other features", "ABBEY-PLACE",
	  "an abbey tile holds one abbey and nothing else" },
	{ "CM0116", E, "too many features on a tile", "", "split the tile's features: a tile holds at most 32" },
	{ "CM0117", E, "tile grid unreadable", "",
	  "draw 5 rows of 5 cells, one character each: C city, R road, . field, M monastery, G garden, A abbey, "
	  "# nothing, or a mark 0-9 a-z that one feature names (schemas/tileset.md \"Tiles as pictures\")" },
	{ "CM0118", E, "tile grid and feature elements disagree", "",
	  "beside a <grid>, give elements without slots, one per region of their kind or per mark, each mark "
	  "named by one element and drawn in the grid; a mark needs a <grid>" },

	/* end CM01xx */

	/* ---- CM02xx: maps (lib/model/map.c) ---- */
	{ "CM0201", E, "map coordinate outside the grid", "MAP-SQUARE",
	  "use 0-based x (east) and y (south) inside the grid, or widen the grid" },
	{ "CM0202", E, "map element described twice", "",
	  "describe each square, edge print and deck entry once; give a square's kind in the grid or in <square kind>, not both" },
	{ "CM0203", E, "edge print where the map has no edge", "MAP-EDGE-PRINT",
	  "put edge prints only on sides of squares that take tiles and face no such square nor a big city; coats of arms only on road and city prints" },
	{ "CM0204", E, "ferry end is not a road edge print", "MAP-FERRY",
	  "end each ferry at a side with an <edge print=\"road\">, a different one at each end, one ferry per print" },
	{ "CM0205", E, "island reference broken", "MAP-ISLAND",
	  "give every island square the id of a declared <island>, only island squares an island id or coats of arms, every island a square" },
	{ "CM0206", E, "island reached by no ferry", "MAP-ISLAND",
	  "add the ferry that joins the island to the mainland, ending at a road print on an island square" },
	{ "CM0207", E, "big-city pieces do not fit together", "MAP-BIGCITY",
	  "make side-by-side pieces meet like tiles (city to city, road to road, field to field) and keep a big city's pieces joined side by side" },
	{ "CM0208", E, "big-city square and pieces disagree", "MAP-BIGCITY",
	  "mark each big-city square B in the grid and describe it by exactly one <piece> of one <bigcity>" },
	{ "CM0209", E, "big-city piece features inconsistent", "MAP-BIGCITY",
	  "cover each of the 12 slots by one feature, cities whole sides, roads middle slots, and name only features of the piece" },
	{ "CM0210", E, "fewer start squares than setup uses", "MAP-START",
	  "mark the start squares S in the grid or lower <setup starts>" },
	{ "CM0211", E, "name used twice", "",
	  "give squares and big cities, islands, and ferries each a name of their own" },
	{ "CM0212", E, "deck names an unknown tile set", "MAP-TILES",
	  "name a tile set by its id, and give that tile set to the check" },
	{ "CM0213", E, "deck names an unknown tile", "MAP-TILES",
	  "name a tile type by its id in that tile set" },
	{ "CM0214", E, "setup values impossible", "MAP-TILES",
	  "use at least one start square and one follower, and tiles-min not above tiles-max" },
	{ "CM0215", E, "half squares do not pair", "MAP-HALF",
	  "line the two maps up (dy) so that each half square of the west map's last column meets one of the east map's first column" },
	{ "CM0216", E, "map grid malformed", "MAP-SQUARE",
	  "give every grid row the same length in the documented square characters, or cols and rows with no grid" },
	{ "CM0217", E, "combined map half does not load", "MAP-HALF",
	  "fix the half's descriptor or its path (relative to the combining descriptor); halves are plain maps" },
	{ "CM0218", E, "map format version not supported", "",
	  "write format=\"1\" (\"2\" for a map with printings) or update carcamap" },
	{ "CM0219", E, "map value beyond the model's limits", "",
	  "shorten the id or text, or lower the count, to the limits of schemas/map.md" },
	{ "CM0220", E, "printing not described or not possible", "",
	  "with format=\"2\", list every printing in <map printings>, give each <printing> child once, select a listed one, let a printing change land and town squares only, and leave the edition out of <rules>" },

	/* end CM02xx */

	/* ---- CM03xx: images and legends (lib/io/image.c) ---- */
	{ "CM0301", E, "legend format newer than this build reads", "",
	  "use a carcamap release that reads this legend format, or write format=\"1\"" },
	{ "CM0302", E, "legend colours too close for the tolerance", "",
	  "make the colours differ by more than twice the tolerance in some channel, or lower the tolerance" },
	{ "CM0303", E, "legend colour inconsistent with its kind", "MAP-ISLAND",
	  "give island (and arms) only on island colours, and an island id on every island colour" },
	{ "CM0304", E, "legend sample larger than the cell", "",
	  "make sample at most the cell width and height" },
	{ "CM0310", E, "png cannot be decoded", "",
	  "re-export the image as PNG from the drawing program; the file is damaged or not a PNG" },
	{ "CM0311", E, "png larger than the limits", "",
	  "scale the image down: at most 16384 pixels per side and 100 million pixels" },
	{ "CM0312", W, "png colour management ignored", "",
	  "colours are read raw: export without gamma or colour profile, or make sure the raw values are the legend's" },
	{ "CM0313", W, "png decoder warning", "", "re-export the image; the decoder repaired or skipped part of it" },
	{ "CM0320", E, "unknown colour in a cell", "MAP-SQUARE",
	  "paint the cell's centre in a legend colour, or add the colour to the legend" },
	{ "CM0321", E, "cell mixes legend colours", "MAP-SQUARE",
	  "paint the sample around the cell's centre in one colour, or check the grid geometry in the legend" },
	{ "CM0322", E, "partly transparent pixel in a cell", "MAP-SQUARE",
	  "paint the cell opaque, or add the colour with its alpha to the legend" },
	{ "CM0323", E, "grid does not fit the image", "",
	  "fix the legend's grid origin, cell size, cols and rows for this image" },
	{ "CM0324", N, "more cell problems not reported", "", "fix the cells reported first, then run again" },
	{ "CM0330", E, "image disagrees with the descriptor", "MAP-SQUARE",
	  "make the square's kind in the descriptor and the colour in the image agree" },
	{ "CM0331", E, "image grid size differs from the map", "",
	  "make the legend's grid cols and rows the map's size" },
	{ "CM0340", W, "no legend colour for a square kind", "",
	  "add a colour for the kind to the legend; the built-in colour was drawn instead" },
	{ "CM0341", E, "rendered image larger than the limits", "",
	  "use a smaller scale: at most 16384 pixels per side (and 100 million pixels at scale 0 or 1)" },
	{ "CM0342", E, "printed board larger than the limits", "",
	  "use a smaller --square-mm or a larger --paper: at most 500 poster pages, and a sheet at most 5080 mm a side" },

	/* end CM03xx */

	/* ---- CM04xx: packs (lib/io/pack_*.c) ---- */
	{ "CM0401", E, "not an sqlite database", "",
	  "give a pack written by carcamap compile; this file is something else" },
	{ "CM0402", E, "sqlite database of another application", "",
	  "give a pack written by carcamap compile; this database belongs to another program" },
	{ "CM0403", E, "pack format version newer than this carcamap reads", "",
	  "upgrade carcamap, or recompile the pack from its sources with this version" },
	{ "CM0404", E, "pack file is damaged", "",
	  "recompile the pack from its sources: the file was truncated or altered" },
	{ "CM0405", E, "pack tables do not match the pack format", "",
	  "recompile the pack from its sources with carcamap compile; do not edit packs by hand" },
	{ "CM0406", E, "pack contains triggers or views", "",
	  "recompile the pack from its sources: carcamap packs never hold triggers or views" },
	{ "CM0407", E, "pack holds an invalid value", "",
	  "recompile the pack from its sources: a value is out of range or refers to nothing" },
	{ "CM0408", E, "stored content hash does not match the content", "",
	  "recompile the pack from its sources: the content was changed after it was written" },
	{ "CM0409", E, "deck names a tile set or tile not in the pack", "",
	  "add the tile set to the pack, or fix the tile set or tile id in the deck" },
	{ "CM0410", E, "duplicate map or tile set id in a pack", "",
	  "give each map and tile set in a pack its own id" },
	{ "CM0411", E, "model value a pack cannot hold", "",
	  "fix the value in the source file: it is missing, out of range or refers to nothing" },
	{ "CM0412", E, "pack is not one file in rollback journal mode", "",
	  "convert it with sqlite3 PACK 'PRAGMA journal_mode=DELETE' (which also applies and removes a -wal file "
	  "beside it), or recompile it with carcamap" },
	{ "CM0413", E, "stored client binary does not match the map", "",
	  "recompile the pack from its sources: the client binary is missing or was changed" },

	/* end CM04xx */

	/* ---- CM05xx: playability (lib/check/check.c) ---- */
	{ "CM0501", E, "square takes no tile of the deck", "MAP-EDGE-PRINT",
	  "change the square's edge prints or big-city sides so that some tile of the deck fits, "
	  "or make the square print no tile (none, waves or landmark)" },
	{ "CM0502", W, "square takes very few tiles of the deck", "MAP-EDGE-PRINT",
	  "loosen the square's printed constraints (fewer road and city sides) or add tiles that fit them to the deck" },
	{ "CM0503", E, "square unreachable from the start squares", "BASE-PLACE",
	  "join the square to the start squares through squares that take tiles, a big city or a ferry" },
	{ "CM0504", E, "island never connected", "MAP-ISLAND",
	  "end a ferry to the island at a mainland square that play can reach and that takes a tile" },
	{ "CM0505", E, "start square does not take the start tile", "MAP-START",
	  "loosen the start square's printed constraints: the start tile may be set on any start square" },
	{ "CM0506", W, "deck has more tiles than the map has squares", "MAP-TILES",
	  "use fewer tiles (see the map's recommended range) or print more squares" },
	{ "CM0507", W, "deck size outside the recommended range", "MAP-TILES",
	  "add or remove tiles in <deck>, or fix <setup tiles-min tiles-max>" },
	{ "CM0508", W, "ferry cannot carry a road", "MAP-FERRY",
	  "make the squares at both ends of the ferry take a tile of the deck with a road towards the ferry" },
	{ "CM0509", E, "deck or board cannot be built for play", "MAP-TILES",
	  "fix the deck (tile sets, tile ids unique over the deck, at most 255 tile types) so the rules engine can play the map" },

	/* end CM05xx */

	/* ---- CM06xx: simulated games (lib/check/check.c) ---- */
	{ "CM0601", N, "simulated games summary", "",
	  "nothing to fix: the figures describe random games on the map (check --games)" },
	{ "CM0602", W, "square rarely filled in simulated games", "BASE-PLACE",
	  "open the square up: fewer printed constraints, or more squares and tiles around it" },
	{ "CM0603", W, "low fill ratio in simulated games", "MAP-TILES",
	  "use more tiles for the map, or fewer squares, or looser printed constraints" },
	{ "CM0604", W, "simulated games strand many tiles", "BASE-PLACE",
	  "loosen printed constraints near the squares that stay empty, or change the deck's mix" },
	{ "CM0605", W, "printed element never connected or completed in simulated games", "",
	  "open the way to the big city, edge print, ferry or island (the squares next to it, their printed constraints, the deck's tiles), or leave it out of the map" },
	{ "CM0606", W, "declared tile range far from the recommended one", "MAP-TILES",
	  "set <setup tiles-min tiles-max> near the recommendation (carcamap balance --fit-deck shows the curve), or change the squares or the deck" },

	/* end CM06xx */

	/* ---- CM07xx: maps drawn in Tiled (lib/io/tmx.c) ---- */
	{ "CM0701", E, "tiled map of a kind carcamap does not read", "",
	  "in Tiled, Map > Map Properties: Orientation orthogonal, Infinite unticked; keep a tile layer named "
	  "squares; a map from an older carcamap: export it again" },
	{ "CM0702", E, "tile layer encoding or compression not supported", "",
	  "in Tiled, Map > Map Properties > Tile Layer Format: CSV, Base64 (uncompressed), Base64 (zlib "
	  "compressed) or Base64 (gzip compressed), then save" },
	{ "CM0703", E, "tile layer data damaged", "",
	  "save the map again from Tiled: the squares layer holds one tile per square of the map" },
	{ "CM0704", E, "squares drawn with tiles not from the carcamap kinds tileset", "",
	  "draw the squares layer with carcamap-kinds.tsx only: Map > Replace Tileset swaps another tileset for it" },
	{ "CM0705", E, "tiled object or property invalid", "",
	  "give the object or map property the name, shape, type and value schemas/export-tmx.md lists for its layer" },
	{ "CM0706", W, "object layer carcamap does not read", "",
	  "move the objects to a layer of schemas/export-tmx.md if they belong to the map; otherwise nothing to fix" },

	/* end CM07xx */
};

#undef E
#undef W
#undef N

size_t cm_catalog_count(void)
{
	return sizeof checks / sizeof checks[0];
}

const cm_check_info *cm_catalog_get(size_t i)
{
	return i < cm_catalog_count() ? &checks[i] : NULL;
}

const cm_check_info *cm_catalog_find(const char *id)
{
	if (!id)
		return NULL;
	for (size_t i = 0; i < cm_catalog_count(); i++)
		if (strcmp(checks[i].id, id) == 0)
			return &checks[i];
	return NULL;
}
