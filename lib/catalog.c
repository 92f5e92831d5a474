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
