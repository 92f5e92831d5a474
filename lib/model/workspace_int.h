/* SPDX-License-Identifier: MIT */
/* workspace_int.h: the workspace's contents, shared by the model
 * (model/workspace.c) and the loader (io/workspace.c). */
#ifndef CM_WORKSPACE_INT_H
#define CM_WORKSPACE_INT_H

#include "carcamap/workspace.h"

struct cm_workspace {
	cm_map **maps;
	char **map_src;
	size_t n_maps, cap_maps, cap_src;
	cm_tileset **sets;
	char **set_src;
	size_t n_sets, cap_sets, cap_set_src;
	char **dirs;
	size_t n_dirs, cap_dirs;
	unsigned map_flags; /* cm_workspace_set_map_flags */
	int printing;       /* cm_workspace_set_printing: a cm_edition, -1 every printing */
	/* maps read from packs of format 3 and later, with the content hash
	 * their reading verified (cm_workspace_map_hash) */
	struct cm_ws_hash {
		const cm_map *m;
		uint8_t h[32];
	} *hashes;
	size_t n_hashes, cap_hashes;
};

/* Add m (or ts), read from src, taking ownership (freed on failure): an id
 * already in the workspace is CM0006. 0, CM_EINVAL or CM_ENOMEM. */
int cm_workspace_take_map(cm_workspace *w, cm_map *m, const char *src, cm_diags *d);
int cm_workspace_take_set(cm_workspace *w, cm_tileset *ts, const char *src, cm_diags *d);

#endif
