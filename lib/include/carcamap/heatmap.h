/* SPDX-License-Identifier: MIT */
/* carcamap/heatmap.h: pictures of the balance results, drawn through the
 * scene of a map (carcamap/scene.h, carcamap/render.h): a heatmap over the
 * map's squares (a colour scale with its legend; each square's value and
 * interval on hover), the deck-fitting curve, and the balance report as
 * one HTML page (the map, the tables, the heatmaps). Deterministic: the
 * same inputs give the same bytes. */
#ifndef CARCAMAP_HEATMAP_H
#define CARCAMAP_HEATMAP_H

#include "balance.h"
#include "render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Draws m with heatmap k of h over it into out: o->format SVG or HTML
 * (o->scale as cm_render_map's: the size per square). The squares
 * coloured from the lowest value (pale) to the highest (dark) on a
 * legend below the map; fill on a fixed 0..1 scale, turn and points from
 * 0 to their highest value; use colours the printed elements by the share
 * of games that completed them. Each coloured square or element carries
 * its value and interval as a hover title and data attributes (data-value,
 * data-lo, data-hi). Written atomically (cm_file_write). Returns 0,
 * CM_EINVAL (another format, no games in h), CM_EIO or CM_ENOMEM. */
int cm_render_heatmap(const cm_map *m, const cm_balance_heat *h, cm_heat_kind k, const cm_render_opts *o,
                      const char *out, cm_diags *d);

/* The deck-fitting curve as an SVG: the mean fill ratio (and the stranded
 * share) against the deck size, the criterion's band, the recommended
 * range and the declared one. Written atomically. 0, CM_EIO or CM_ENOMEM. */
int cm_fit_write_svg(const cm_fit *f, const char *map_name, const char *out, cm_diags *d);

/* The balance report as one self-contained HTML page: the map (its scene)
 * with the heatmaps of r->heat as layers to switch between, then a table
 * per cell (win rates and scores per seat with their intervals, the
 * figures, the verdict), the summary, the printed elements' use, and the
 * deck-fitting curve when fit is not NULL. rules_text: the rule options
 * played (cm_rules_format). Written atomically. 0, CM_EIO or CM_ENOMEM. */
int cm_balance_write_html(const cm_map *m, const cm_balance_report *r, const cm_fit *fit, const char *rules_text,
                          const char *out, cm_diags *d);

#ifdef __cplusplus
}
#endif
#endif
