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

	/* end CM01xx */

	/* ---- CM02xx: maps (lib/map.c) ---- */

	/* end CM02xx */

	/* ---- CM03xx: images and legends (lib/image.c) ---- */
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
	  "use a smaller scale: at most 16384 pixels per side and 100 million pixels" },

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
