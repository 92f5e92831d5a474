/* SPDX-License-Identifier: MIT */
/* workspace_int.h: the workspace's contents, shared by the model
 * (model/workspace.c) and the loader (io/workspace.c). */
#ifndef CM_WORKSPACE_INT_H
#define CM_WORKSPACE_INT_H

#include "carcamap/workspace.h"
#include "base/idindex_int.h"

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
	char *only_map;     /* cm_workspace_set_map_only: the one map (and its
	                     * printings) a pack's maps are read for, or NULL */
	/* map i's content hash as its reading verified (a map read from a
	 * pack of format 3 or later: cm_workspace_map_hash), parallel to maps */
	struct cm_ws_hash {
		uint8_t h[32];
		bool known;
	} *hashes;
	size_t cap_hashes;
	/* the positions of maps and sets by id (find_map, the duplicate check
	 * of take_map): keys are the models' own id strings */
	cm_idindex map_ix, set_ix;
};

/* Add m (or ts), read from src, taking ownership (freed on failure): an id
 * already in the workspace is CM0006. 0, CM_EINVAL or CM_ENOMEM. */
int cm_workspace_take_map(cm_workspace *w, cm_map *m, const char *src, cm_diags *d);
int cm_workspace_take_set(cm_workspace *w, cm_tileset *ts, const char *src, cm_diags *d);
/* The position of map m in the workspace, or CM_IDINDEX_NONE. */
size_t cm__workspace_map_pos(const cm_workspace *w, const cm_map *m);

#endif
