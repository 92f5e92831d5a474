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
	/* ---- CM00xx: input files (lib/xml.c, lib/util.c) ---- */
	{ "CM0001", E, "xml is not well-formed", "", "fix the XML syntax at the position given" },
	{ "CM0002", E, "xml does not follow its schema", "",
	  "compare the element with the format's XSD in schemas/ and fix it" },
	{ "CM0003", E, "dtd or entity declaration refused", "",
	  "remove the DOCTYPE: carcamap files never need a DTD and never load one" },
	{ "CM0004", E, "input larger than the limit", "", "split the file or check that it is the right file" },
	{ "CM0005", E, "unknown file kind", "",
	  "give a tile set or map XML file, a legend, a PNG image or a carcamap pack" },

	/* ---- CM01xx: tile sets (lib/tileset.c) ---- */
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

	/* end CM01xx */

	/* ---- CM02xx: maps (lib/map.c) ---- */
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
	  "write format=\"1\" or update carcamap" },

	/* end CM02xx */

	/* ---- CM03xx: images and legends (lib/image.c) ---- */

	/* end CM03xx */

	/* ---- CM04xx: packs (lib/pack.c) ---- */

	/* end CM04xx */

	/* ---- CM05xx: playability (lib/check.c) ---- */

	/* end CM05xx */

	/* ---- CM06xx: simulated games (lib/check.c) ---- */

	/* end CM06xx */
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
