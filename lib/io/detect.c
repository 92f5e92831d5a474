/* SPDX-License-Identifier: MIT */
/* detect.c: what kind of file a path holds, from its first bytes (XML root
 * element, Tiled maps by their orientation attribute, SQLite or PNG signature), and the library version. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "carcamap/carcamap.h"
#include "base/util_int.h"
#include "io/pack_int.h"
#include "io/xml_int.h"

const char *cm_version(void)
{
	return CM_VERSION_STRING;
}

const char *cm_file_kind_name(cm_file_kind k)
{
	switch (k) {
	case CM_FILE_TILESET: return "tile set";
	case CM_FILE_MAP: return "map";
	case CM_FILE_LEGEND: return "legend";
	case CM_FILE_PACK: return "pack";
	case CM_FILE_PNG: return "png";
	case CM_FILE_TMX: return "tiled map";
	case CM_FILE_UNKNOWN: break;
	}
	return "unknown";
}

cm_file_kind cm_file_detect(const char *path, cm_diags *d)
{
	FILE *f;
	if (cm_open_read(path, d, &f))
		return CM_FILE_UNKNOWN;
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (cm__sqlite_signature(buf, n))
		return CM_FILE_PACK;
	if (n >= 8 && memcmp(buf, "\x89PNG\r\n\x1a\n", 8) == 0)
		return CM_FILE_PNG;
	char root[64];
	if (cm_xml_root_name(buf, n, root, sizeof root) == 0) {
		if (strcmp(root, "tileset") == 0)
			return CM_FILE_TILESET;
		if (strcmp(root, "map") == 0)
			return cm_xml_root_has_attr(buf, n, "orientation") ? CM_FILE_TMX : CM_FILE_MAP;
		if (strcmp(root, "legend") == 0)
			return CM_FILE_LEGEND;
	}
	return CM_FILE_UNKNOWN;
}
