/* SPDX-License-Identifier: MIT */
/* cxx_client.cpp: a C++17 game client using both public faces of carcamap,
 * libcarcamap (carcamap.h) and the client reader (cmap.h): it reads a pack's
 * first map with the library, exports it to the binary format in memory,
 * reads that back with the reader and compares the two, and checks that the
 * library it runs with is the version it was compiled against
 * (carcamap/version.h). tests/lib/run.sh
 * builds it with g++ -Wall -Wextra -Werror and runs it on a bundled map. */
#include <carcamap/carcamap.h>
#include "cmap.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

/* the compile-time version: the library's, as a number too */
static_assert(CM_VERSION_NUMBER == CM_VERSION_MAJOR * 10000 + CM_VERSION_MINOR * 100 + CM_VERSION_PATCH,
              "CM_VERSION_NUMBER");

int main(int argc, char **argv)
{
	if (std::string(cm_version()) != CM_VERSION_STRING) {
		std::fprintf(stderr, "cxx_client: built against %s, runs with %s\n", CM_VERSION_STRING, cm_version());
		return 1;
	}
	if (argc != 2) {
		std::fprintf(stderr, "usage: cxx_client PACK\n");
		return 2;
	}
	cm_diags *d = nullptr;
	cm_pack *p = nullptr;
	cm_map *m = nullptr;
	std::vector<cm_tileset *> sets;
	if (cm_diags_new(&d) || cm_pack_open(argv[1], d, &p) || cm_pack_map_count(p) == 0 ||
	    cm_pack_read_map(p, cm_pack_map_id(p, 0), d, &m)) {
		cm_diags_write_text(d, stderr);
		return 1;
	}
	for (size_t i = 0; i < cm_pack_tileset_count(p); i++) {
		cm_tileset *t = nullptr;
		if (cm_pack_read_tileset(p, cm_pack_tileset_id(p, i), d, &t) == 0)
			sets.push_back(t);
	}
	unsigned char *bin = nullptr;
	size_t len = 0;
	cm_export_opts o;
	cm_export_opts_init(&o);
	o.sets = sets.data();
	o.n_sets = sets.size();
	int rc = cm_export_bin_mem(m, &o, &bin, &len);
	std::unique_ptr<unsigned char, void (*)(void *)> own(bin, std::free);
	cmap_map *c = nullptr;
	if (rc == 0)
		rc = cmap_open(bin, len, &c);
	int bad = rc != 0;
	if (c) {
		bad |= std::string(cmap_id(c)) != cm_map_id(m);
		bad |= cmap_cols(c) != static_cast<uint32_t>(cm_map_cols(m));
		bad |= cmap_rows(c) != static_cast<uint32_t>(cm_map_rows(m));
		std::printf("%s %ux%u %u edge prints, carcamap %s\n", cmap_id(c), cmap_cols(c),
		            cmap_rows(c), cmap_count(c, CMAP_T_PRINTS), cm_version());
	} else {
		std::fprintf(stderr, "cxx_client: %s\n", rc < -100 ? "?" : cmap_strerror(rc));
	}
	cmap_close(c);
	for (cm_tileset *t : sets)
		cm_tileset_free(t);
	cm_map_free(m);
	cm_pack_close(p);
	cm_diags_free(d);
	return bad;
}
