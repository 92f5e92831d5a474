/* SPDX-License-Identifier: MIT */
/* scene_tile.c: a tile type drawn from its features (cm_scene_tile,
 * carcamap/scene.h) so that the picture says what the features say: each
 * city its own shape with a wall on its inner edge, fields parted by a
 * hedge wherever nothing else parts them, roads that end where their
 * contacts say (a junction, a monastery, a city gate, a crop field, a dead
 * end), bridges where roads cross without meeting, and the tile's prints
 * (coats of arms, cathedral, inn, goods, markers) as small glyphs named in
 * their titles, with the key a tile sheet prints. Cities and roads are
 * curves; fields are found on a raster of the tile (cells of half a unit),
 * grown from their edge slots, and traced back into outlines. Everything is
 * computed in the turned tile, so every rotation is drawn, not rotated. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/palette.h"
#include "export/render_int.h"
#include "export/scene_int.h"
#include "base/util_int.h"

#define S CM_SCENE_CELL
#define RES 2        /* raster cells per unit */
#define N (S * RES)  /* raster cells per side */
#define NC (N * N)
#define NV ((N + 1) * (N + 1))
#define MAXQ 40      /* curves of one city's outline */
#define SAMPLES 24   /* points per road piece for the raster and crossings */
#define ROAD_W 5.0   /* a road's outline; its fill is 3 */
#define CAP_DEPTH 11.0
#define CAP_NESTED 8.0
#define WALL_DEPTH 10.0
#define WALL_OVER_CAP 16.0
#define WALL_CROSSING 14.0 /* two bands across each other: narrow, room in the corners */
#define CROP_R 7.0
#define SLIVER (4 * RES * RES) /* cells: a free area smaller than 2 by 2 units */

typedef struct {
	double x, y;
} pt;

/* A quadratic Bezier curve from a to b; a straight line has c between. */
typedef struct {
	pt a, c, b;
} quad;

static pt P(double x, double y) { return (pt){ x, y }; }
static pt add(pt a, pt b) { return P(a.x + b.x, a.y + b.y); }
static pt sub(pt a, pt b) { return P(a.x - b.x, a.y - b.y); }
static pt mul(pt a, double k) { return P(a.x * k, a.y * k); }
static double dot(pt a, pt b) { return a.x * b.x + a.y * b.y; }
static double len(pt a) { return sqrt(dot(a, a)); }
static pt unit(pt a)
{
	double l = len(a);
	return l > 1e-9 ? mul(a, 1 / l) : P(0, 0);
}

static pt qat(const quad *q, double t)
{
	double u = 1 - t;
	return P(u * u * q->a.x + 2 * u * t * q->c.x + t * t * q->b.x, u * u * q->a.y + 2 * u * t * q->c.y + t * t * q->b.y);
}

static pt qtangent(const quad *q, double t)
{
	pt d = add(mul(sub(q->c, q->a), 2 * (1 - t)), mul(sub(q->b, q->c), 2 * t));
	return unit(len(d) > 1e-9 ? d : sub(q->b, q->a));
}

/* The part of q between t0 and t1 (de Casteljau), itself a quadratic. */
static quad qsub(const quad *q, double t0, double t1)
{
	quad r;
	r.a = qat(q, t0);
	r.b = qat(q, t1);
	/* the control point: B(t0) + (t1 - t0) B'(t0) / 2 */
	pt d0 = add(mul(sub(q->c, q->a), 2 * (1 - t0)), mul(sub(q->b, q->c), 2 * t0));
	r.c = add(r.a, mul(d0, (t1 - t0) / 2));
	return r;
}

static quad qline(pt a, pt b)
{
	return (quad){ a, mul(add(a, b), 0.5), b };
}

static const pt corner[4] = { { 0, 0 }, { S, 0 }, { S, S }, { 0, S } };
static const pt inward[4] = { { 0, 1 }, { -1, 0 }, { 0, -1 }, { 1, 0 } };
static const pt centre = { S / 2.0, S / 2.0 };

/* The point u units along side s, clockwise. */
static pt on_side(int s, double u)
{
	pt a = corner[s & 3], b = corner[(s + 1) & 3];
	return add(a, mul(sub(b, a), u / S));
}

static pt slot_point(int bit)
{
	return on_side(bit / 3, 6 + 12 * (bit % 3));
}

/* ---- the prints: what a tile can show besides its features' shapes ---- */

enum {
	PR_WALL, PR_HEDGE, PR_JUNCTION, PR_FORK, PR_BRIDGE, PR_TUNNEL, PR_GATE, PR_DEAD,
	PR_ARMS, PR_CATHEDRAL, PR_INN, PR_WINE, PR_GRAIN, PR_CLOTH,
	PR_MONASTERY, PR_GARDEN, PR_ABBEY,
	PR_CROP_CLUB, PR_CROP_FORK, PR_CROP_SHIELD, PR_CROP,
	PR_GOLD, PR_HAT, PR_ROBBER, PR_MARKER,
	PR_COUNT
};

static const char *const print_name[PR_COUNT] = {
	"city wall (each city its own shape)", "field boundary (two fields meet)", "junction (roads end and meet)",
	"fork (one road, three ways or more)", "bridge (crosses without meeting)", "tunnel (a field or city passes over it)",
	"city gate (the road ends at the city)", "dead end (the road ends, touching nothing)",
	"coat of arms", "cathedral", "inn", "wine", "grain", "cloth", "monastery", "garden", "abbey",
	"crop field, club (crop-circle-club)", "crop field, pitchfork (crop-circle-pitchfork)",
	"crop field, shield (crop-circle-shield)", "crop field (another crop-circle marker)",
	"gold mine (marker gold-mine)", "mage's hat (marker mage-hat)", "robbers' bag (marker robber)",
	"another marker (named on hover)",
};

/* The print of a marker's name. */
static int marker_print(const char *m)
{
	if (!m)
		return PR_MARKER;
	if (strcmp(m, "crop-circle-club") == 0)
		return PR_CROP_CLUB;
	if (strcmp(m, "crop-circle-pitchfork") == 0)
		return PR_CROP_FORK;
	if (strcmp(m, "crop-circle-shield") == 0)
		return PR_CROP_SHIELD;
	if (strncmp(m, "crop-circle", 11) == 0)
		return PR_CROP;
	if (strcmp(m, "gold-mine") == 0)
		return PR_GOLD;
	if (strcmp(m, "mage-hat") == 0)
		return PR_HAT;
	if (strcmp(m, "robber") == 0)
		return PR_ROBBER;
	return PR_MARKER;
}

static int is_crop(int pr)
{
	return pr >= PR_CROP_CLUB && pr <= PR_CROP;
}

/* ---- the tile's geometry ---- */

typedef struct {
	int fi;
	unsigned sides;  /* sides whose three slots are all this city's */
	int over;        /* crosses over another city (drawn last) */
	int nq;
	quad q[MAXQ];
	uint8_t wall[MAXQ], last[MAXQ]; /* a wall; the last curve of a loop */
} city;

enum { R_THROUGH, R_FORK, R_JUNCTION, R_CLOISTER, R_GATE, R_CROP, R_DEAD };

typedef struct {
	quad q;
	double t0, t1;   /* drawn between; tunnels before t0 and after t1 */
	int edge;        /* the slot bit where it leaves the tile at t = 0 (-1 none) */
	int edge1;       /* ... and at t = 1 */
} piece;

typedef struct {
	int fi, kind, np;
	piece p[12];
	int gate;        /* R_GATE: the city index */
	pt end;          /* where a one-slot road stops */
} road;

typedef struct {
	int upper, lower; /* road indices; lower -1: the upper crosses city `city` */
	int city;
	pt at, dir;       /* a bridge over a road: where, the upper road's direction */
	int from, to;     /* a bridge over a city: samples of the upper road's piece */
	int piece;
} bridge;

typedef struct {
	pt at;
	int size;        /* hundredths */
	int pr;
	int fi;          /* the feature it belongs to, -1 the tile */
	const char *name; /* a marker's name */
} glyph;

typedef struct {
	const cm_tile_type *t;
	int nf;
	cm_slots slots[CM_MAX_FEATURES]; /* turned */
	int8_t owner[12];               /* the first feature of each turned slot */
	city c[CM_MAX_FEATURES];
	int nc;
	int8_t city_of[CM_MAX_FEATURES]; /* feature -> city index, -1 */
	road r[CM_MAX_FEATURES];
	int nr;
	int junction;                    /* roads meet at the centre */
	int lane_city[CM_MAX_FEATURES];  /* cities a junction reaches by a lane */
	int nlane;
	pt lane_gate[CM_MAX_FEATURES];
	bridge br[64];
	int nbr;
	int crop;                        /* a crop field: the marker index + 1 */
	pt crop_c;
	glyph gl[96];
	int ngl;
	unsigned prints;
	/* the raster, cell (i, j) at column i, row j */
	int8_t cityl[NC];                /* city index or -1 */
	uint8_t blk[NC];                 /* 1 city, 2 road, 3 junction */
	int8_t fld[NC];                  /* field feature or -1 */
	uint8_t used[NC];                /* under a glyph */
	int comp[NC];
	int queue[NC];
	int dist[NC];
	int heap[NC], pos[NC];           /* the growth's heap of cells by dist */
	int from[NC];                    /* the seed each grown cell is nearest */
	int one[NC];                     /* per free area: the one field its seeds are, -2 several */
	uint8_t vtx[NV];
} geo;

static int kind_of(const geo *g, int fi)
{
	return (int)g->t->features[fi].kind;
}

static int contact(const geo *g, int a, int b)
{
	if (a < 0 || b < 0 || a >= CM_MAX_FEATURES || b >= CM_MAX_FEATURES)
		return 0;
	uint32_t m = (1u << a) | (1u << b);
	for (size_t i = 0; i < g->t->n_contacts; i++)
		if ((g->t->contacts[i] & m) == m)
			return 1;
	return 0;
}

static int cell(double x, double y)
{
	int i = (int)floor(x * RES), j = (int)floor(y * RES);
	if (i < 0 || j < 0 || i >= N || j >= N)
		return -1;
	return j * N + i;
}

static pt cell_pt(int c)
{
	return P((c % N + 0.5) / RES, (c / N + 0.5) / RES);
}

static void set_print(geo *g, int pr)
{
	g->prints |= 1u << pr;
}

/* ---- cities ---- */

static void city_add(city *c, quad q, int wall)
{
	if (c->nq >= MAXQ)
		return;
	c->wall[c->nq] = (uint8_t)wall;
	c->last[c->nq] = 0;
	c->q[c->nq++] = q;
}

/* Whether c crosses another city (N-S against W-E). */
static int crossing(const geo *g, const city *c)
{
	for (int k = 0; k < g->nc; k++)
		if ((c->sides == 5u && g->c[k].sides == 10u) || (c->sides == 10u && g->c[k].sides == 5u))
			return 1;
	return 0;
}

/* Whether another city than c covers exactly side s (a cap there). */
static int cap_on(const geo *g, const city *c, int s)
{
	for (int k = 0; k < g->nc; k++)
		if (&g->c[k] != c && g->c[k].sides == (1u << s))
			return 1;
	return 0;
}

/* Whether another city than c has a wall spanning side s alone (it holds
 * both neighbours of s). */
static int spanned(const geo *g, const city *c, int s)
{
	for (int k = 0; k < g->nc; k++) {
		unsigned m = g->c[k].sides;
		if (&g->c[k] != c && (m & (1u << ((s + 1) & 3))) && (m & (1u << ((s + 3) & 3))) && !(m & (1u << s)))
			return 1;
	}
	return 0;
}

/* The wall of c from corner k across the gap sides k .. k + gap - 1. */
static quad wall_of(const geo *g, const city *c, int k, int gap)
{
	pt a = corner[k & 3], b = corner[(k + gap) & 3], ctl;
	if (gap == 1) {
		double d = cap_on(g, c, k & 3) ? WALL_OVER_CAP : crossing(g, c) ? WALL_CROSSING : WALL_DEPTH;
		ctl = add(on_side(k, S / 2.0), mul(inward[k & 3], 2 * d));
	} else if (gap == 2) {
		ctl = add(centre, mul(sub(corner[(k + 3) & 3], centre), 0.45)); /* towards the city's corner */
	} else {
		int s = (k + 3) & 3; /* the cap's side */
		double d = spanned(g, c, s) ? CAP_NESTED : CAP_DEPTH;
		ctl = add(on_side(s, S / 2.0), mul(inward[s], 2 * d));
	}
	return (quad){ a, ctl, b };
}

static void end_loop(city *c)
{
	if (c->nq)
		c->last[c->nq - 1] = 1;
}

/* The outline of c: its full sides along the edge, walls between them, and
 * a small cap over each slot it holds outside a full side. */
static void city_outline(const geo *g, city *c)
{
	unsigned m = c->sides;
	if (m == 15) {
		for (int s = 0; s < 4; s++)
			city_add(c, qline(corner[s], corner[(s + 1) & 3]), 0);
		end_loop(c);
	} else if (m) {
		int s0 = 0;
		while (!((m >> s0) & 1) || ((m >> ((s0 + 3) & 3)) & 1))
			s0++;
		int s = s0;
		do {
			int a = s;
			while ((m >> ((s + 1) & 3)) & 1)
				s = (s + 1) & 3;
			for (int k = a;; k = (k + 1) & 3) {
				city_add(c, qline(corner[k], corner[(k + 1) & 3]), 0);
				if (k == s)
					break;
			}
			int gap = 0, n = (s + 1) & 3;
			while (!((m >> n) & 1)) {
				n = (n + 1) & 3;
				gap++;
			}
			city_add(c, wall_of(g, c, (s + 1) & 3, gap), 1);
			s = n;
		} while (s != s0);
		end_loop(c);
	}
	cm_slots mine = g->slots[c->fi];
	for (int b = 0; b < 12; b++) {
		if (!((mine >> b) & 1) || ((m >> (b / 3)) & 1))
			continue;
		int s = b / 3;
		pt a = on_side(s, 12.0 * (b % 3)), e = on_side(s, 12.0 * (b % 3) + 12);
		city_add(c, qline(a, e), 0);
		city_add(c, (quad){ e, add(slot_point(b), mul(inward[s], 8)), a }, 1);
		end_loop(c);
	}
}

static void build_cities(geo *g)
{
	for (int fi = 0; fi < g->nf; fi++) {
		g->city_of[fi] = -1;
		if (kind_of(g, fi) != CM_FEAT_CITY || !g->slots[fi])
			continue;
		city *c = &g->c[g->nc];
		memset(c, 0, sizeof *c);
		c->fi = fi;
		for (int s = 0; s < 4; s++)
			if ((g->slots[fi] & CM_SIDE_SLOTS(s)) == CM_SIDE_SLOTS(s))
				c->sides |= 1u << s;
		g->city_of[fi] = (int8_t)g->nc++;
	}
	/* two cities across each other (N-S and W-E): the first crosses over */
	for (int i = 0; i < g->nc; i++)
		for (int k = 0; k < g->nc; k++)
			if (i != k && ((g->c[i].sides == 5u && g->c[k].sides == 10u) ||
			               (g->c[i].sides == 10u && g->c[k].sides == 5u)) && i < k)
				g->c[i].over = 1;
	for (int i = 0; i < g->nc; i++) {
		city_outline(g, &g->c[i]);
		if (g->c[i].nq)
			set_print(g, PR_WALL);
	}
}

/* ---- the raster ---- */

/* Fills the cells whose centres lie inside the loops of c (even-odd). */
static void fill_city(geo *g, int ci)
{
	const city *c = &g->c[ci];
	enum { K = 12 };
	double xs[MAXQ * K];
	for (int j = 0; j < N; j++) {
		double y = (j + 0.5) / RES;
		int nx = 0;
		for (int q = 0; q < c->nq; q++) {
			pt a = c->q[q].a;
			for (int k = 1; k <= K; k++) {
				pt b = qat(&c->q[q], (double)k / K);
				if ((a.y <= y && b.y > y) || (b.y <= y && a.y > y))
					if (nx < MAXQ * K)
						xs[nx++] = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
				a = b;
			}
		}
		for (int i = 1; i < nx; i++) /* insertion sort: a few crossings */
			for (int k = i; k > 0 && xs[k - 1] > xs[k]; k--) {
				double t = xs[k];
				xs[k] = xs[k - 1];
				xs[k - 1] = t;
			}
		for (int k = 0; k + 1 < nx; k += 2)
			for (int i = 0; i < N; i++) {
				double x = (i + 0.5) / RES;
				if (x >= xs[k] && x < xs[k + 1])
					g->cityl[j * N + i] = (int8_t)ci;
			}
	}
}

/* Marks the cells within r of segment a-b with v (where marked lower),
 * none beyond the planes through e0 and e1 facing out along n0 and n1
 * (NULL: no plane): a road's stroke ends square there. */
static void mark_clipped(uint8_t *m, pt a, pt b, double r, uint8_t v, const pt *e0, pt n0, const pt *e1, pt n1)
{
	int i0 = (int)floor((fmin(a.x, b.x) - r) * RES), i1 = (int)floor((fmax(a.x, b.x) + r) * RES);
	int j0 = (int)floor((fmin(a.y, b.y) - r) * RES), j1 = (int)floor((fmax(a.y, b.y) + r) * RES);
	pt d = sub(b, a);
	double dd = dot(d, d);
	for (int j = j0 < 0 ? 0 : j0; j <= j1 && j < N; j++)
		for (int i = i0 < 0 ? 0 : i0; i <= i1 && i < N; i++) {
			pt p = P((i + 0.5) / RES, (j + 0.5) / RES); /* cell_pt */
			if ((e0 && dot(sub(p, *e0), n0) > 0) || (e1 && dot(sub(p, *e1), n1) > 0))
				continue;
			double t = dd > 1e-12 ? dot(sub(p, a), d) / dd : 0;
			t = t < 0 ? 0 : t > 1 ? 1 : t;
			if (m[j * N + i] < v && len(sub(p, add(a, mul(d, t)))) <= r)
				m[j * N + i] = v;
		}
}

static void mark_segment(uint8_t *m, pt a, pt b, double r, uint8_t v)
{
	mark_clipped(m, a, b, r, v, NULL, P(0, 0), NULL, P(0, 0));
}

/* A road's piece between t0 and t1, its ends square as drawn. */
static void mark_quad(uint8_t *m, const quad *q, double t0, double t1, double r, uint8_t v)
{
	if (t1 <= t0)
		return;
	pt a = qat(q, t0), e0 = a, e1 = qat(q, t1), n0 = mul(qtangent(q, t0), -1), n1 = qtangent(q, t1);
	for (int k = 1; k <= SAMPLES; k++) {
		pt b = qat(q, t0 + (t1 - t0) * k / SAMPLES);
		mark_clipped(m, a, b, r, v, &e0, n0, &e1, n1);
		a = b;
	}
}

/* The cells cities and the drawn parts of roads cover. */
static void block(geo *g)
{
	for (int c = 0; c < NC; c++)
		g->blk[c] = g->cityl[c] >= 0;
	for (int i = 0; i < g->nr; i++)
		for (int k = 0; k < g->r[i].np; k++) {
			const piece *p = &g->r[i].p[k];
			mark_quad(g->blk, &p->q, p->t0, p->t1, ROAD_W / 2, 2);
		}
	for (int i = 0; i < g->nlane; i++)
		mark_segment(g->blk, centre, g->lane_gate[i], 1.7, 2);
	if (g->junction)
		for (int c = 0; c < NC; c++) {
			pt p = cell_pt(c);
			if (fabs(p.x - centre.x) <= 4 && fabs(p.y - centre.y) <= 4)
				g->blk[c] = 3;
		}
}

/* ---- roads ---- */

static int road_ends(const geo *g, int fi, int *ends)
{
	int n = 0;
	for (int b = 0; b < 12; b++)
		if ((g->slots[fi] >> b) & 1)
			ends[n++] = b;
	return n;
}

static piece piece_to(int bit, pt to)
{
	pt a = slot_point(bit), in = inward[bit / 3];
	double ahead = dot(sub(to, a), in);
	pt ctl = ahead > 0.5 ? add(a, mul(in, ahead * 0.5)) : mul(add(a, to), 0.5);
	return (piece){ { a, ctl, to }, 0, 1, bit, -1 };
}

/* Roads through the tile (two slots) and forks (one road, more ways). */
static void build_through(geo *g)
{
	for (int fi = 0; fi < g->nf; fi++) {
		int e[12], n;
		if (kind_of(g, fi) != CM_FEAT_ROAD || (n = road_ends(g, fi, e)) < 2)
			continue;
		road *r = &g->r[g->nr++];
		memset(r, 0, sizeof *r);
		r->fi = fi;
		r->gate = -1;
		if (n == 2) {
			pt a = slot_point(e[0]), b = slot_point(e[1]);
			int straight = (e[0] / 3 + 2) % 4 == e[1] / 3;
			r->kind = R_THROUGH;
			r->p[0] = (piece){ { a, straight ? mul(add(a, b), 0.5) : centre, b }, 0, 1, e[0], e[1] };
			r->np = 1;
		} else {
			r->kind = R_FORK;
			for (int k = 0; k < n; k++)
				r->p[r->np++] = piece_to(e[k], centre);
			set_print(g, PR_FORK);
		}
	}
}

/* The point of a wall of city ci nearest to p, in the middle half of the
 * wall; 0, or -1 when the city has no wall. */
static int gate_of(const geo *g, int ci, pt p, pt *out)
{
	double best = 1e9;
	const city *c = &g->c[ci];
	for (int q = 0; q < c->nq; q++) {
		if (!c->wall[q])
			continue;
		for (int k = 14; k <= 26; k++) {
			pt x = qat(&c->q[q], k / 40.0);
			double d = len(sub(x, p));
			if (d < best - 1e-9) {
				best = d;
				*out = x;
			}
		}
	}
	return best < 1e9 ? 0 : -1;
}

/* The crop field sits in the middle, moved off the roads that cross the
 * tile so that the ground around it stays. */
static void place_crop(geo *g)
{
	g->crop_c = centre;
	double need = CROP_R + ROAD_W / 2 + 1.5;
	for (int i = 0; i < g->nr; i++)
		for (int k = 0; k < g->r[i].np; k++) {
			double best = 1e9;
			pt near = centre;
			for (int s = 0; s <= SAMPLES; s++) {
				pt x = qat(&g->r[i].p[k].q, (double)s / SAMPLES);
				if (len(sub(x, g->crop_c)) < best) {
					best = len(sub(x, g->crop_c));
					near = x;
				}
			}
			if (best < need)
				g->crop_c = add(g->crop_c, mul(unit(sub(g->crop_c, near)), need - best));
		}
	/* and off the cities, pushed by each (opposite pushes cancel): the
	 * ground goes round it */
	pt push = P(0, 0);
	for (int ci = 0; ci < g->nc; ci++) {
		double best = 1e9;
		pt near = centre;
		for (int c = 0; c < NC; c++)
			if (g->cityl[c] == ci && len(sub(cell_pt(c), g->crop_c)) < best) {
				best = len(sub(cell_pt(c), g->crop_c));
				near = cell_pt(c);
			}
		if (best < CROP_R + 2.5)
			push = add(push, mul(unit(sub(g->crop_c, near)), CROP_R + 2.5 - best));
	}
	g->crop_c = add(g->crop_c, push);
	g->crop_c.x = fmin(fmax(g->crop_c.x, 9), S - 9);
	g->crop_c.y = fmin(fmax(g->crop_c.y, 9), S - 9);
}

/* Where a road of one slot stops: at a monastery it touches, at a junction
 * with the roads it touches, at the gate of a city it touches, at the crop
 * field, or a dead end. */
static void build_ends(geo *g)
{
	for (int fi = 0; fi < g->nf; fi++) {
		int e[12];
		if (kind_of(g, fi) != CM_FEAT_ROAD || road_ends(g, fi, e) != 1)
			continue;
		road *r = &g->r[g->nr++];
		memset(r, 0, sizeof *r);
		r->fi = fi;
		r->gate = -1;
		r->kind = R_DEAD;
		pt a = slot_point(e[0]);
		r->end = add(a, mul(inward[e[0] / 3], 9));
		for (int k = 0; k < g->nf && r->kind == R_DEAD; k++)
			if ((kind_of(g, k) == CM_FEAT_MONASTERY || kind_of(g, k) == CM_FEAT_ABBEY) && contact(g, fi, k)) {
				r->kind = R_CLOISTER;
				r->end = centre;
			}
		for (int k = 0; k < g->nf && r->kind == R_DEAD; k++)
			if (k != fi && kind_of(g, k) == CM_FEAT_ROAD && contact(g, fi, k)) {
				r->kind = R_JUNCTION;
				r->end = centre;
				g->junction = 1;
			}
		for (int k = 0; k < g->nf && r->kind == R_DEAD; k++)
			if (g->city_of[k] >= 0 && contact(g, fi, k) && gate_of(g, g->city_of[k], a, &r->end) == 0) {
				r->kind = R_GATE;
				r->gate = g->city_of[k];
			}
		if (r->kind == R_DEAD && g->crop) {
			r->kind = R_CROP;
			r->end = add(g->crop_c, mul(unit(sub(a, g->crop_c)), CROP_R));
		}
		r->p[0] = piece_to(e[0], r->end);
		r->np = 1;
		if (r->kind == R_JUNCTION || r->kind == R_GATE || r->kind == R_DEAD)
			set_print(g, r->kind == R_JUNCTION ? PR_JUNCTION : r->kind == R_GATE ? PR_GATE : PR_DEAD);
	}
}

/* Cities that a junction's roads touch get a lane from the junction to a gate. */
static void build_lanes(geo *g)
{
	if (!g->junction)
		return;
	for (int ci = 0; ci < g->nc; ci++) {
		int fi = g->c[ci].fi, any = 0;
		for (int i = 0; i < g->nr; i++)
			if (g->r[i].kind == R_JUNCTION && contact(g, g->r[i].fi, fi) && g->r[i].gate != ci)
				any = 1;
		pt at;
		if (any && gate_of(g, ci, centre, &at) == 0) {
			g->lane_city[g->nlane] = ci;
			g->lane_gate[g->nlane++] = at;
			set_print(g, PR_GATE);
		}
	}
}

/* Whether segments a-b and c-d cross; the crossing in *x. */
static int cross(pt a, pt b, pt c, pt d, pt *x)
{
	pt r = sub(b, a), s = sub(d, c);
	double den = r.x * s.y - r.y * s.x;
	if (fabs(den) < 1e-12)
		return 0;
	pt ac = sub(c, a);
	double t = (ac.x * s.y - ac.y * s.x) / den, u = (ac.x * r.y - ac.y * r.x) / den;
	if (t < 0 || t > 1 || u < 0 || u > 1)
		return 0;
	*x = add(a, mul(r, t));
	return 1;
}

static void add_bridge(geo *g, bridge b)
{
	if (g->nbr < (int)(sizeof g->br / sizeof g->br[0]))
		g->br[g->nbr++] = b;
	set_print(g, PR_BRIDGE);
}

/* Two roads with no contact whose drawn parts cross: the later one bridges
 * the other. */
static void road_bridges(geo *g, int lo, int hi)
{
	const road *a = &g->r[lo], *b = &g->r[hi];
	if (contact(g, a->fi, b->fi) || (a->kind == R_CLOISTER && b->kind == R_CLOISTER)) /* met, or both end at it */
		return;
	for (int i = 0; i < a->np; i++)
		for (int k = 0; k < b->np; k++) {
			const piece *p = &a->p[i], *q = &b->p[k];
			for (int s = 0; s < SAMPLES; s++) {
				pt p0 = qat(&p->q, (double)s / SAMPLES), p1 = qat(&p->q, (double)(s + 1) / SAMPLES);
				for (int u = 0; u < SAMPLES; u++) {
					double tu = (double)u / SAMPLES;
					pt x, q0 = qat(&q->q, tu), q1 = qat(&q->q, (double)(u + 1) / SAMPLES);
					if (!cross(p0, p1, q0, q1, &x))
						continue;
					add_bridge(g, (bridge){ hi, lo, -1, x, qtangent(&q->q, tu), 0, 0, k });
					return;
				}
			}
		}
}

/* A crossing of samples from .. to of piece p that meets the piece's
 * tunnel (the road runs underground up to the city, as AM-12's road comes
 * out of its tunnel only at the edge): the tunnel goes on under the city
 * instead of a bridge over it. */
static int tunnel_on(piece *p, int from, int to)
{
	double a = (double)from / SAMPLES, b = (double)to / SAMPLES, step = 1.0 / SAMPLES;
	if (p->t1 < 1 && b >= p->t1 - step) {
		p->t1 = a < p->t1 ? a : p->t1;
		return 1;
	}
	if (p->t0 > 0 && a <= p->t0 + step) {
		p->t0 = b > p->t0 ? b : p->t0;
		return 1;
	}
	return 0;
}

/* A road crossing a city it has no contact with bridges it, or passes
 * under it in a tunnel. */
static void city_bridges(geo *g, int ri)
{
	road *r = &g->r[ri];
	for (int k = 0; k < r->np; k++) {
		int from = -1, ci = -1;
		for (int s = 0; s <= SAMPLES + 1; s++) {
			pt x = qat(&r->p[k].q, (double)s / SAMPLES);
			int c = s <= SAMPLES ? cell(x.x, x.y) : -1;
			int in = c >= 0 ? g->cityl[c] : -1;
			if (in >= 0 && contact(g, r->fi, g->c[in].fi))
				in = -1;
			if (in >= 0 && from < 0) {
				from = s;
				ci = in;
			} else if ((in < 0 || in != ci) && from >= 0) {
				if (s - from >= 3 && !tunnel_on(&r->p[k], from, s - 1))
					add_bridge(g, (bridge){ ri, -1, ci, P(0, 0), P(0, 0), from, s - 1, k });
				from = -1;
				if (in >= 0) {
					from = s;
					ci = in;
				}
			}
		}
	}
}

static void bridges(geo *g)
{
	for (int i = 0; i < g->nr; i++)
		for (int k = i + 1; k < g->nr; k++)
			road_bridges(g, i, k);
	for (int i = 0; i < g->nr; i++)
		city_bridges(g, i);
}

/* ---- fields ---- */

/* The field a cell u units along side s starts: its slot's field, or beside
 * a road's middle slot the field of that half. */
static int seed_field(const geo *g, int s, double u)
{
	int p = u < 12 ? 0 : u < 24 ? 1 : 2, f = g->owner[3 * s + p];
	if (f >= 0 && kind_of(g, f) == CM_FEAT_ROAD && p == 1)
		f = g->owner[3 * s + (u < S / 2.0 ? 0 : 2)];
	return f >= 0 && kind_of(g, f) == CM_FEAT_FIELD ? f : -1;
}

/* ---- growing fields: each cell takes the field of the nearest seed
 * (the squared straight-line distance in cells, the seed passed on from
 * cell to cell through free cells only), smallest first, ties by cell; a
 * heap indexed by cell ---- */

static int heap_less(const geo *g, int a, int b)
{
	return g->dist[a] < g->dist[b] || (g->dist[a] == g->dist[b] && a < b);
}

static void heap_up(geo *g, int i)
{
	while (i > 0) {
		int p = (i - 1) / 2;
		if (!heap_less(g, g->heap[i], g->heap[p]))
			break;
		int t = g->heap[i];
		g->heap[i] = g->heap[p];
		g->heap[p] = t;
		g->pos[g->heap[i]] = i;
		g->pos[g->heap[p]] = p;
		i = p;
	}
}

static int heap_pop(geo *g, int *n)
{
	int top = g->heap[0], i = 0;
	g->heap[0] = g->heap[--*n];
	g->pos[g->heap[0]] = 0;
	g->pos[top] = -1;
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < *n && heap_less(g, g->heap[l], g->heap[m]))
			m = l;
		if (r < *n && heap_less(g, g->heap[r], g->heap[m]))
			m = r;
		if (m == i)
			break;
		int t = g->heap[i];
		g->heap[i] = g->heap[m];
		g->heap[m] = t;
		g->pos[g->heap[i]] = i;
		g->pos[g->heap[m]] = m;
		i = m;
	}
	return top;
}

static void seed(geo *g, int c, int f, int *n)
{
	if (f < 0 || g->blk[c] || g->fld[c] >= 0)
		return;
	g->fld[c] = (int8_t)f;
	g->dist[c] = 0;
	g->from[c] = c;
	g->pos[c] = *n;
	g->heap[(*n)++] = c;
	heap_up(g, *n - 1);
}

/* Grows the seeded fields through the free cells (a diagonal step only
 * where both cells beside it are free, so nothing leaks through a corner). */
static void grow_free(geo *g, int n)
{
	static const int di[8] = { 1, 0, -1, 0, 1, 1, -1, -1 }, dj[8] = { 0, 1, 0, -1, 1, -1, 1, -1 };
	while (n > 0) {
		int c = heap_pop(g, &n), i = c % N, j = c / N;
		for (int k = 0; k < 8; k++) {
			int x = i + di[k], y = j + dj[k];
			if (x < 0 || y < 0 || x >= N || y >= N || g->blk[y * N + x])
				continue;
			if (k >= 4 && (g->blk[j * N + x] || g->blk[y * N + i]))
				continue;
			int m = y * N + x, o = g->from[c], ex = x - o % N, ey = y - o / N, d = ex * ex + ey * ey;
			if (d >= g->dist[m])
				continue;
			g->dist[m] = d;
			g->from[m] = o;
			g->fld[m] = g->fld[c];
			if (g->pos[m] < 0) {
				g->pos[m] = n;
				g->heap[n++] = m;
			}
			heap_up(g, g->pos[m]);
		}
	}
}

/* Grows every cell of the queue into the cells cities and roads cover (4
 * neighbours, first come), so outlines of fields meet under them. */
static void grow_under(geo *g, int nq)
{
	for (int h = 0; h < nq; h++) {
		int c = g->queue[h], i = c % N;
		/* right, down, left, up: the order of first come */
		int nb[4] = { i + 1 < N ? c + 1 : -1, c + N < NC ? c + N : -1, i > 0 ? c - 1 : -1, c >= N ? c - N : -1 };
		for (int k = 0; k < 4; k++) {
			int n = nb[k];
			if (n < 0 || g->fld[n] >= 0 || !g->blk[n])
				continue;
			g->fld[n] = g->fld[c];
			g->queue[nq++] = n;
		}
	}
}

static int components(geo *g);

/* Fields grown from their edge slots through the free cells. A free area
 * that the seeds of one field alone reach is that field's without growing
 * (most are: roads and cities part most fields); only an area two fields
 * share is grown, cell by cell, and gets the same cells as growing the
 * whole tile would give, since areas never reach each other. */
static void grow_fields(geo *g)
{
	int nq = 0;
	memset(g->fld, -1, sizeof g->fld);
	for (int c = 0; c < NC; c++) {
		g->dist[c] = 1 << 28;
		g->pos[c] = -1;
	}
	for (int i = 0; i < N; i++)
		seed(g, i, seed_field(g, 0, (i + 0.5) / RES), &nq);
	for (int j = 0; j < N; j++)
		seed(g, j * N + N - 1, seed_field(g, 1, (j + 0.5) / RES), &nq);
	for (int i = N - 1; i >= 0; i--)
		seed(g, (N - 1) * N + i, seed_field(g, 2, S - (i + 0.5) / RES), &nq);
	for (int j = N - 1; j >= 0; j--)
		seed(g, j * N, seed_field(g, 3, S - (j + 0.5) / RES), &nq);
	int n = components(g), *one = g->one, shared = 0;
	for (int k = 0; k < n; k++)
		one[k] = -1; /* the field of the area's seeds, -2 several */
	for (int h = 0; h < nq; h++) {
		int k = g->comp[g->heap[h]], f = g->fld[g->heap[h]];
		one[k] = one[k] == -1 || one[k] == f ? f : -2;
	}
	for (int c = 0; c < NC; c++)
		if (g->comp[c] >= 0 && one[g->comp[c]] >= 0)
			g->fld[c] = (int8_t)one[g->comp[c]];
	for (int h = 0; h < nq; h++) { /* the heap keeps the shared areas' seeds */
		int c = g->heap[h];
		g->pos[c] = -1;
		if (one[g->comp[c]] == -2)
			g->heap[shared++] = c;
	}
	for (int h = 0; h < shared; h++) {
		g->pos[g->heap[h]] = h;
		heap_up(g, h);
	}
	if (shared)
		grow_free(g, shared);
}

/* Connected free cells: a component number per cell (-1 blocked); the count. */
static int components(geo *g)
{
	int n = 0;
	for (int c = 0; c < NC; c++)
		g->comp[c] = -1;
	for (int c0 = 0; c0 < NC; c0++) {
		if (g->blk[c0] || g->comp[c0] >= 0)
			continue;
		int nq = 0;
		g->comp[c0] = n;
		g->queue[nq++] = c0;
		for (int h = 0; h < nq; h++) {
			int c = g->queue[h], i = c % N;
			int nb[4] = { i + 1 < N ? c + 1 : -1, c + N < NC ? c + N : -1, i > 0 ? c - 1 : -1, c >= N ? c - N : -1 };
			for (int k = 0; k < 4; k++) {
				int m = nb[k];
				if (m < 0 || g->blk[m] || g->comp[m] >= 0)
					continue;
				g->comp[m] = n;
				g->queue[nq++] = m;
			}
		}
		n++;
	}
	return n;
}

/* A field on both sides of a road's end that the drawing parts: the road
 * runs there in a tunnel, from the edge up to a city or 10 units in. */
static int tunnels(geo *g)
{
	int changed = 0, any = 0;
	for (int s = 0; s < 4; s++) {
		int r = g->owner[3 * s + 1], f = g->owner[3 * s];
		any |= r >= 0 && kind_of(g, r) == CM_FEAT_ROAD && f >= 0 && f == g->owner[3 * s + 2];
	}
	if (!any)
		return 0;
	components(g);
	for (int i = 0; i < g->nr; i++)
		for (int k = 0; k < g->r[i].np; k++) {
			piece *p = &g->r[i].p[k];
			for (int end = 0; end < 2; end++) {
				int b = end ? p->edge1 : p->edge;
				if (b < 0 || b % 3 != 1)
					continue;
				int s = b / 3, f = g->owner[3 * s];
				if (f < 0 || f != g->owner[3 * s + 2] || kind_of(g, f) != CM_FEAT_FIELD)
					continue;
				/* the two halves' first free cells, just inside the edge */
				int ca = cell(add(on_side(s, 6), mul(inward[s], 0.3)).x, add(on_side(s, 6), mul(inward[s], 0.3)).y);
				int cb = cell(add(on_side(s, 30), mul(inward[s], 0.3)).x, add(on_side(s, 30), mul(inward[s], 0.3)).y);
				if (ca < 0 || cb < 0 || g->comp[ca] < 0 || g->comp[cb] < 0 || g->comp[ca] == g->comp[cb])
					continue;
				double t = 0, run = 0;
				pt prev = qat(&p->q, end ? 1 : 0);
				for (int u = 1; u <= SAMPLES; u++) {
					double tt = end ? 1 - (double)u / SAMPLES : (double)u / SAMPLES;
					pt x = qat(&p->q, tt);
					int c = cell(x.x, x.y);
					run += len(sub(x, prev));
					prev = x;
					t = tt;
					if (run >= 10 || (c >= 0 && g->cityl[c] >= 0))
						break;
				}
				if (end)
					p->t1 = t;
				else
					p->t0 = t;
				set_print(g, PR_TUNNEL);
				changed = 1;
			}
		}
	return changed;
}

/* Free cells no slot reached: the inner fields, a component each in turn;
 * when there are more inner fields than such components, a component
 * holds several, in strips side by side (a hedge between), so that each
 * field the tile has is drawn. */
static void inner_fields(geo *g)
{
	int inner[CM_MAX_FEATURES], ni = 0;
	for (int fi = 0; fi < g->nf; fi++)
		if (kind_of(g, fi) == CM_FEAT_FIELD && !g->slots[fi])
			inner[ni++] = fi;
	if (!ni)
		return;
	int n = components(g), *of = g->dist, nk = 0; /* dist is free scratch here */
	for (int k = 0; k < n; k++)
		of[k] = -2;
	for (int c = 0; c < NC; c++)
		if (g->comp[c] >= 0 && g->fld[c] >= 0)
			of[g->comp[c]] = -1; /* a component slots reach */
	int *size = g->from; /* free scratch too */
	for (int k = 0; k < n; k++)
		size[k] = 0;
	for (int c = 0; c < NC; c++)
		if (g->comp[c] >= 0)
			size[g->comp[c]]++;
	for (int c = 0; c < NC; c++) { /* the inner components, numbered in cell order */
		int k = g->comp[c];
		if (k >= 0 && of[k] == -2)
			of[k] = size[k] >= SLIVER ? nk++ : -3;
	}
	for (int c = 0; c < NC; c++) /* a sliver between walls: the first inner field's */
		if (g->comp[c] >= 0 && of[g->comp[c]] == -3)
			g->fld[c] = (int8_t)inner[0];
	if (!nk)
		return;
	/* per inner component: its box (columns x0..x1, rows y0..y1) */
	int *x0 = g->heap, *x1 = g->pos, *y0 = g->queue, *y1 = g->heap + NC / 2;
	for (int k = 0; k < nk; k++) {
		x0[k] = y0[k] = N;
		x1[k] = y1[k] = -1;
	}
	for (int c = 0; c < NC; c++) {
		int k = g->comp[c] >= 0 ? of[g->comp[c]] : -1, i = c % N, j = c / N;
		if (k >= 0) {
			x0[k] = i < x0[k] ? i : x0[k];
			x1[k] = i > x1[k] ? i : x1[k];
			y0[k] = j < y0[k] ? j : y0[k];
			y1[k] = j > y1[k] ? j : y1[k];
		}
	}
	for (int c = 0; c < NC; c++) {
		int k = g->comp[c] >= 0 ? of[g->comp[c]] : -1;
		if (k < 0)
			continue;
		/* component k holds fields k, k + nk, k + 2 nk, ... below ni, in
		 * strips across its longer side */
		int m = (ni - k + nk - 1) / nk, strip = 0;
		if (m > 1 && x1[k] - x0[k] >= y1[k] - y0[k])
			strip = (c % N - x0[k]) * m / (x1[k] - x0[k] + 1);
		else if (m > 1)
			strip = (c / N - y0[k]) * m / (y1[k] - y0[k] + 1);
		g->fld[c] = (int8_t)(m > 0 ? inner[k + strip * nk] : inner[k % ni]);
	}
}

static void fields(geo *g)
{
	block(g);
	grow_fields(g);
	if (tunnels(g)) {
		memset(g->blk, 0, sizeof g->blk);
		block(g);
		grow_fields(g);
	}
	inner_fields(g);
	/* under cities and roads, the nearest field, so outlines meet there */
	int nq = 0;
	for (int c = 0; c < NC; c++)
		if (g->fld[c] >= 0)
			g->queue[nq++] = c;
	grow_under(g, nq);
	for (int c = 0; c < NC; c++)
		if (g->fld[c] >= 0 && !g->blk[c])
			for (int k = 0; k < 2; k++) {
				int n = k ? c + N : c + 1;
				if ((k ? c / N + 1 < N : c % N + 1 < N) && !g->blk[n] && g->fld[n] >= 0 && g->fld[n] != g->fld[c])
					set_print(g, PR_HEDGE);
			}
}

/* ---- where the glyphs go ---- */

/* Chamfer distances (3 a step, 4 a diagonal) from the cells not ok and the
 * tile's edge. */
static void distances(geo *g, const uint8_t *ok)
{
	int *d = g->dist;
	for (int c = 0; c < NC; c++)
		d[c] = ok[c] ? 1 << 20 : 0;
	for (int j = 0; j < N; j++)
		for (int i = 0; i < N; i++) {
			int c = j * N + i, v = d[c];
			v = i ? (d[c - 1] + 3 < v ? d[c - 1] + 3 : v) : (3 < v ? 3 : v);
			v = j ? (d[c - N] + 3 < v ? d[c - N] + 3 : v) : (3 < v ? 3 : v);
			if (i && j && d[c - N - 1] + 4 < v)
				v = d[c - N - 1] + 4;
			if (i + 1 < N && j && d[c - N + 1] + 4 < v)
				v = d[c - N + 1] + 4;
			d[c] = v;
		}
	for (int j = N - 1; j >= 0; j--)
		for (int i = N - 1; i >= 0; i--) {
			int c = j * N + i, v = d[c];
			v = i + 1 < N ? (d[c + 1] + 3 < v ? d[c + 1] + 3 : v) : (3 < v ? 3 : v);
			v = j + 1 < N ? (d[c + N] + 3 < v ? d[c + N] + 3 : v) : (3 < v ? 3 : v);
			if (i + 1 < N && j + 1 < N && d[c + N + 1] + 4 < v)
				v = d[c + N + 1] + 4;
			if (i && j + 1 < N && d[c + N - 1] + 4 < v)
				v = d[c + N - 1] + 4;
			d[c] = v;
		}
}

/* The ok cell farthest from the rest (the nearest to `near` among equals);
 * its clearance in units, or -1 when no cell is ok. */
static double roomiest(geo *g, const uint8_t *ok, pt near, pt *at)
{
	distances(g, ok);
	int best = -1;
	double bd = 0;
	for (int c = 0; c < NC; c++) {
		if (!ok[c] || (best >= 0 && g->dist[c] < g->dist[best]))
			continue;
		double dn = len(sub(cell_pt(c), near));
		if (best < 0 || g->dist[c] > g->dist[best] || dn < bd - 1e-9) {
			best = c;
			bd = dn;
		}
	}
	if (best < 0)
		return -1;
	*at = cell_pt(best);
	return g->dist[best] / 3.0 / RES;
}

static void use(geo *g, pt at, double r)
{
	int i0 = (int)floor((at.x - r) * RES), i1 = (int)ceil((at.x + r) * RES);
	int j0 = (int)floor((at.y - r) * RES), j1 = (int)ceil((at.y + r) * RES);
	for (int j = j0 < 0 ? 0 : j0; j <= j1 && j < N; j++)
		for (int i = i0 < 0 ? 0 : i0; i <= i1 && i < N; i++)
			if (len(sub(P((i + 0.5) / RES, (j + 0.5) / RES), at)) <= r)
				g->used[j * N + i] = 1;
}

static void add_glyph(geo *g, pt at, double size, int pr, int fi, const char *name)
{
	if (g->ngl >= (int)(sizeof g->gl / sizeof g->gl[0]))
		return;
	g->gl[g->ngl++] = (glyph){ at, (int)lround(size * 100), pr, fi, name };
	set_print(g, pr);
	use(g, at, size / 2 + 0.5);
}

/* A glyph on open ground (not in a city nor on a road), or anywhere free
 * of glyphs when there is none, sized to its room between lo and hi. */
static void place_open(geo *g, uint8_t *ok, int pr, int fi, const char *name, double lo, double hi)
{
	pt at = centre;
	for (int c = 0; c < NC; c++)
		ok[c] = !g->blk[c] && !g->used[c];
	double room = roomiest(g, ok, centre, &at);
	if (room < lo / 2) {
		for (int c = 0; c < NC; c++)
			ok[c] = !g->used[c];
		double r2 = roomiest(g, ok, centre, &at);
		room = r2 > room ? r2 : room;
	}
	double size = 2 * room - 3; /* a ring of ground stays around it: it never parts a field */
	add_glyph(g, at, size < lo ? lo : size > hi ? hi : size, pr, fi, name);
}

/* A glyph in city ci, away from its walls and the glyphs already there,
 * smaller (down to 0.6 of size) where the city has less room. */
static void place_in_city(geo *g, uint8_t *ok, int ci, int pr, const char *name, double size)
{
	double room;
	pt sum = P(0, 0), at = centre;
	int n = 0;
	for (int c = 0; c < NC; c++) {
		ok[c] = g->cityl[c] == ci && g->blk[c] == 1 && !g->used[c];
		if (g->cityl[c] == ci) {
			sum = add(sum, cell_pt(c));
			n++;
		}
	}
	pt mid = n ? mul(sum, 1.0 / n) : centre;
	if ((room = roomiest(g, ok, mid, &at)) < 0) {
		for (int c = 0; c < NC; c++)
			ok[c] = g->cityl[c] == ci;
		if ((room = roomiest(g, ok, mid, &at)) < 0)
			at = mid;
	}
	double fit = 2 * room;
	add_glyph(g, at, fit > size ? size : fit < 0.6 * size ? 0.6 * size : fit, pr, g->c[ci].fi, name);
}

/* An inn beside its road, on the side with more room. */
static void place_inn(geo *g, uint8_t *ok, const road *r)
{
	const piece *p = &r->p[0];
	double t = r->kind == R_THROUGH ? 0.5 : p->t0 + (p->t1 - p->t0) * 0.55;
	pt m = qat(&p->q, t), tg = qtangent(&p->q, t), n = P(-tg.y, tg.x), best = m;
	for (int c = 0; c < NC; c++)
		ok[c] = !g->blk[c] && !g->used[c];
	distances(g, ok);
	int bd = -1;
	for (int k = -1; k <= 1; k += 2) {
		pt x = add(m, mul(n, k * 6.0));
		int c = cell(x.x, x.y);
		if (c >= 0 && g->dist[c] > bd) {
			bd = g->dist[c];
			best = x;
		}
	}
	add_glyph(g, best, 7, PR_INN, r->fi, NULL);
}

static void place_glyphs(geo *g)
{
	uint8_t *ok = malloc(NC);
	if (!ok)
		return;
	/* monasteries and abbeys: at the centre where roads end at them, in
	 * the city they touch, else on the roomiest open ground; then gardens */
	for (int fi = 0; fi < g->nf; fi++) {
		int k = kind_of(g, fi), pr = k == CM_FEAT_MONASTERY ? PR_MONASTERY : k == CM_FEAT_ABBEY ? PR_ABBEY : -1;
		if (pr < 0)
			continue;
		int at_centre = k == CM_FEAT_ABBEY, in = -1;
		for (int i = 0; i < g->nr; i++)
			at_centre |= g->r[i].kind == R_CLOISTER && contact(g, g->r[i].fi, fi);
		for (int c = 0; c < g->nc && in < 0; c++)
			if (contact(g, fi, g->c[c].fi))
				in = c;
		if (at_centre)
			add_glyph(g, centre, 14, pr, fi, NULL);
		else if (in >= 0)
			place_in_city(g, ok, in, pr, NULL, 12);
		else
			place_open(g, ok, pr, fi, NULL, 9, 14);
	}
	for (int fi = 0; fi < g->nf; fi++)
		if (kind_of(g, fi) == CM_FEAT_GARDEN)
			place_open(g, ok, PR_GARDEN, fi, NULL, 5, 10);
	for (int ci = 0; ci < g->nc; ci++) {
		const cm_feature *f = &g->t->features[g->c[ci].fi];
		for (int a = 0; a < f->arms; a++)
			place_in_city(g, ok, ci, PR_ARMS, NULL, 8);
		if (f->cathedral)
			place_in_city(g, ok, ci, PR_CATHEDRAL, NULL, 10);
		if (f->good == CM_GOOD_WINE || f->good == CM_GOOD_GRAIN || f->good == CM_GOOD_CLOTH)
			place_in_city(g, ok, ci, f->good == CM_GOOD_WINE ? PR_WINE : f->good == CM_GOOD_GRAIN ? PR_GRAIN : PR_CLOTH,
			              NULL, 8);
	}
	for (int i = 0; i < g->nr; i++)
		if (g->t->features[g->r[i].fi].inn)
			place_inn(g, ok, &g->r[i]);
	for (size_t m = 0; m < g->t->n_markers; m++) {
		int pr = marker_print(g->t->markers[m]);
		if (is_crop(pr) && g->crop == (int)m + 1) {
			set_print(g, pr);
			continue;
		}
		place_open(g, ok, is_crop(pr) ? PR_MARKER : pr, -1, g->t->markers[m], 6, 8);
	}
	free(ok);
}

/* ---- building it all ---- */

static void geo_build(geo *g, const cm_tile_type *t, int r)
{
	memset(g, 0, offsetof(geo, cityl));
	g->t = t;
	g->nf = t->n_features < CM_MAX_FEATURES ? (int)t->n_features : CM_MAX_FEATURES;
	memset(g->owner, -1, sizeof g->owner);
	for (int fi = 0; fi < g->nf; fi++) {
		g->slots[fi] = (cm_slots)(cm_slots_rotate(t->features[fi].slots, r) & CM_SLOTS_ALL);
		if ((unsigned)t->features[fi].kind >= CM_FEAT_KIND_COUNT)
			g->slots[fi] = 0;
		for (int b = 0; b < 12; b++)
			if (((g->slots[fi] >> b) & 1) && g->owner[b] < 0)
				g->owner[b] = (int8_t)fi;
	}
	for (size_t m = 0; m < t->n_markers && !g->crop; m++)
		if (is_crop(marker_print(t->markers[m])))
			g->crop = (int)m + 1;
	build_cities(g);
	memset(g->cityl, -1, sizeof g->cityl);
	for (int i = 0; i < g->nc; i++)
		if (!g->c[i].over)
			fill_city(g, i);
	for (int i = 0; i < g->nc; i++)
		if (g->c[i].over)
			fill_city(g, i);
	build_through(g);
	if (g->crop)
		place_crop(g);
	build_ends(g);
	build_lanes(g);
	memset(g->used, 0, sizeof g->used);
	fields(g);
	bridges(g);
	if (g->crop)
		use(g, g->crop_c, CROP_R + 0.5);
	place_glyphs(g);
}

/* ---- writing it into the scene ---- */

/* v (units) as a decimal of at most two places, into 24 bytes. */
static char *num(char *buf, double v)
{
	long h = lround(v * 100);
	const char *sign = h < 0 ? "-" : "";
	h = h < 0 ? -h : h;
	if (h % 100 == 0)
		snprintf(buf, 24, "%s%ld", sign, h / 100);
	else if (h % 10 == 0)
		snprintf(buf, 24, "%s%ld.%ld", sign, h / 100, h % 100 / 10);
	else
		snprintf(buf, 24, "%s%ld.%02ld", sign, h / 100, h % 100);
	return buf;
}

static void path_pt(cm_scene *s, char cmd, pt p)
{
	char a[24], b[24];
	cm_scene_path_add(s, "%c%s %s", cmd, num(a, p.x), num(b, p.y));
}

static void path_quad(cm_scene *s, const quad *q, int move)
{
	if (move)
		path_pt(s, 'M', q->a);
	pt m = mul(add(q->a, q->b), 0.5);
	if (len(sub(m, q->c)) < 1e-6) {
		path_pt(s, 'L', q->b);
		return;
	}
	char a[24], b[24], c[24], d[24];
	cm_scene_path_add(s, "Q%s %s %s %s", num(a, q->c.x), num(b, q->c.y), num(c, q->b.x), num(d, q->b.y));
}

static cm_style fill_st(cm_rgb c)
{
	return (cm_style){ .fill = cm_paint_rgb(c) };
}

static cm_style line_st(cm_rgb c, int w)
{
	return (cm_style){ .fill = CM_PAINT_NONE, .stroke = cm_paint_rgb(c), .stroke_width = w };
}

/* A glyph: a path template in a box of -50..50, at (at) size hundredths
 * wide. Templates hold absolute M, L, Q, C and Z with integers. */
static void tpl(cm_scene *s, const char *d, pt at, double size)
{
	double k = size / 100;
	char buf[24];
	while (*d) {
		char c = *d++;
		if (c == ' ')
			continue;
		int n = c == 'Q' ? 2 : c == 'C' ? 3 : c == 'Z' ? 0 : 1;
		cm_scene_path_add(s, "%c", c);
		for (int i = 0; i < n; i++) {
			char *e;
			long x = strtol(d, &e, 10);
			long y = strtol(e, &e, 10);
			d = e;
			cm_scene_path_add(s, "%s%s", i ? " " : "", num(buf, at.x + x * k));
			cm_scene_path_add(s, " %s", num(buf, at.y + y * k));
		}
	}
}

static void circle(cm_scene *s, pt c, double r)
{
	double k = r * 0.5523;
	char b[6][24];
	path_pt(s, 'M', P(c.x + r, c.y));
	pt q[4][3] = { { { c.x + r, c.y + k }, { c.x + k, c.y + r }, { c.x, c.y + r } },
		       { { c.x - k, c.y + r }, { c.x - r, c.y + k }, { c.x - r, c.y } },
		       { { c.x - r, c.y - k }, { c.x - k, c.y - r }, { c.x, c.y - r } },
		       { { c.x + k, c.y - r }, { c.x + r, c.y - k }, { c.x + r, c.y } } };
	for (int i = 0; i < 4; i++)
		cm_scene_path_add(s, "C%s %s %s %s %s %s", num(b[0], q[i][0].x), num(b[1], q[i][0].y), num(b[2], q[i][1].x),
		                  num(b[3], q[i][1].y), num(b[4], q[i][2].x), num(b[5], q[i][2].y));
	cm_scene_path_add(s, "Z");
}

static void glyph_path(cm_scene *s, const char *d, pt at, double size, cm_style st)
{
	tpl(s, d, at, size);
	cm_scene_path_end(s, &st);
}

static const char shield_d[] = "M-40 -45L40 -45L40 0Q40 40 0 50Q-40 40 -40 0Z";
static const char cloister_d[] = "M-43 50L43 50L43 -7L0 -50L-43 -7Z";

/* The drawing of print pr centred at `at`, size units wide. */
static void draw_print(cm_scene *s, int pr, pt at, double size)
{
	cm_rgb dark = cm_palette_ink(CM_INK_DARK), white = { 255, 255, 255 };
	cm_style st;
	switch (pr) {
	case PR_ARMS:
		st = fill_st(cm_palette_arms());
		st.stroke = cm_paint_rgb(white), st.stroke_width = 70;
		glyph_path(s, shield_d, at, size, st);
		break;
	case PR_CATHEDRAL:
		st = fill_st(cm_palette_ink(CM_INK_STONE));
		st.stroke = cm_paint_rgb(dark), st.stroke_width = 50;
		glyph_path(s, "M-45 50L-45 0L-25 0L-25 -22L0 -50L25 -22L25 0L45 0L45 50Z", at, size, st);
		glyph_path(s, "M-9 50L-9 28Q0 16 9 28L9 50Z M-3 -30L3 -30L3 -14L-3 -14Z", at, size, fill_st(dark));
		break;
	case PR_INN:
		st = fill_st(white);
		st.stroke = cm_paint_rgb(dark), st.stroke_width = 40;
		glyph_path(s, "M-36 -4L36 -4L36 42L-36 42Z", at, size, st);
		st.fill = cm_paint_rgb(cm_palette_ink(CM_INK_ROOF));
		glyph_path(s, "M-50 -2L0 -46L50 -2Z", at, size, st);
		glyph_path(s, "M-8 42L-8 16L8 16L8 42Z", at, size, fill_st(dark));
		break;
	case PR_WINE: {
		static const int gr[6][2] = { { -24, -16 }, { 0, -16 }, { 24, -16 }, { -12, 8 }, { 12, 8 }, { 0, 32 } };
		for (int i = 0; i < 6; i++)
			circle(s, P(at.x + gr[i][0] * size / 100, at.y + gr[i][1] * size / 100), size * 0.14);
		st = fill_st(cm_palette_ink(CM_INK_WINE));
		st.stroke = cm_paint_rgb(white), st.stroke_width = 30;
		cm_scene_path_end(s, &st);
		glyph_path(s, "M0 -30L10 -48", at, size, line_st(dark, 60));
		break;
	}
	case PR_GRAIN:
		st = fill_st(cm_palette_ink(CM_INK_GRAIN));
		st.stroke = cm_paint_rgb(dark), st.stroke_width = 35;
		glyph_path(s, "M0 50L0 -4M-4 50L-20 8M4 50L20 8", at, size, line_st(dark, 50));
		glyph_path(s, "M0 0Q-16 -24 0 -50Q16 -24 0 0Z M-18 12Q-38 -6 -30 -38Q-10 -18 -18 12Z "
		              "M18 12Q38 -6 30 -38Q10 -18 18 12Z", at, size, st);
		break;
	case PR_CLOTH:
		st = fill_st(cm_palette_ink(CM_INK_CLOTH));
		st.stroke = cm_paint_rgb(white), st.stroke_width = 40;
		glyph_path(s, "M-46 -30L30 -30Q46 -30 46 -14L46 28Q46 44 30 44L-46 44Z", at, size, st);
		glyph_path(s, "M-28 -30L-28 44M-10 -30L-10 44M8 -30L8 44", at, size, line_st(white, 40));
		break;
	case PR_MONASTERY: case PR_ABBEY:
		st = fill_st(cm_palette_feature(pr == PR_ABBEY ? CM_FEAT_ABBEY : CM_FEAT_MONASTERY));
		st.stroke = cm_paint_rgb(white), st.stroke_width = 80;
		glyph_path(s, cloister_d, at, size, st);
		break;
	case PR_GARDEN:
		circle(s, at, size / 2);
		st = fill_st(cm_palette_feature(CM_FEAT_GARDEN));
		st.stroke = cm_paint_rgb(white), st.stroke_width = 80;
		cm_scene_path_end(s, &st);
		break;
	case PR_CROP_CLUB: case PR_CROP_FORK: case PR_CROP_SHIELD: case PR_CROP:
		circle(s, at, size / 2);
		st = fill_st(cm_palette_ink(CM_INK_CROP));
		st.stroke = cm_paint_rgb(cm_palette_ink(CM_INK_GRAIN)), st.stroke_width = 60;
		cm_scene_path_end(s, &st);
		if (pr == PR_CROP_CLUB)
			glyph_path(s, "M-5 30L5 30L9 -6Q9 -26 0 -26Q-9 -26 -9 -6Z", at, size, fill_st(dark));
		else if (pr == PR_CROP_FORK)
			glyph_path(s, "M0 32L0 -6M-14 -6L14 -6M-14 -6L-14 -28M0 -6L0 -28M14 -6L14 -28", at, size, line_st(dark, 70));
		else if (pr == PR_CROP_SHIELD)
			glyph_path(s, "M-20 -24L20 -24L20 0Q20 20 0 28Q-20 20 -20 0Z", at, size, line_st(dark, 70));
		else
			glyph_path(s, "M-16 0L16 0M0 -16L0 16", at, size, line_st(dark, 70));
		break;
	case PR_GOLD:
		st = fill_st(cm_palette_ink(CM_INK_GOLD));
		st.stroke = cm_paint_rgb(dark), st.stroke_width = 40;
		glyph_path(s, "M-46 26L46 26L30 -20L-30 -20Z", at, size, st);
		glyph_path(s, "M-18 -10L18 -10", at, size, line_st(white, 50));
		break;
	case PR_HAT:
		st = fill_st(cm_palette_ink(CM_INK_HAT));
		st.stroke = cm_paint_rgb(white), st.stroke_width = 40;
		glyph_path(s, "M-22 26L6 -50L24 24Z", at, size, st);
		glyph_path(s, "M-48 28Q0 48 48 28Q0 12 -48 28Z", at, size, st);
		break;
	case PR_ROBBER:
		st = fill_st(cm_palette_ink(CM_INK_BAG));
		st.stroke = cm_paint_rgb(dark), st.stroke_width = 40;
		glyph_path(s, "M-30 48Q-54 8 -14 -18L-26 -42L26 -42L14 -18Q54 8 30 48Z", at, size, st);
		glyph_path(s, "M-16 -20L16 -20", at, size, line_st(dark, 60));
		break;
	default:
		st = fill_st(cm_palette_marker());
		st.stroke = cm_paint_rgb(white), st.stroke_width = 50;
		glyph_path(s, "M0 -50L50 0L0 50L-50 0Z", at, size, st);
		break;
	}
}

/* A glyph as a group with its name as the title. */
static void put_glyph(cm_scene *s, const glyph *gl)
{
	cm_node n = cm_scene_group(s, NULL);
	cm_scene_class(s, n, "print");
	if (gl->name) {
		char *t = cm_asprintf("marker %s", gl->name);
		cm_scene_title(s, n, t ? t : gl->name);
		free(t);
	} else {
		cm_scene_title(s, n, print_name[gl->pr]);
	}
	draw_print(s, gl->pr, gl->at, gl->size / 100.0);
	cm_scene_end(s);
}

static void put_glyphs_of(cm_scene *s, const geo *g, int fi)
{
	for (int i = 0; i < g->ngl; i++)
		if (g->gl[i].fi == fi)
			put_glyph(s, &g->gl[i]);
}

/* ---- field outlines, traced from the raster ---- */

typedef struct {
	int *x, *y; /* vertices, raster corners */
	int n, cap;
} poly;

static int lab(const geo *g, int i, int j)
{
	return i < 0 || j < 0 || i >= N || j >= N ? -1 : g->fld[j * N + i];
}

static int keep_far(const poly *p, int a, int b, double tol2, uint8_t *keep)
{
	/* Douglas-Peucker between a and b (exclusive), iteratively */
	int stack[2 * 4096], ns = 0;
	stack[ns++] = a;
	stack[ns++] = b;
	while (ns) {
		int e = stack[--ns], s = stack[--ns];
		double dx = p->x[e] - p->x[s], dy = p->y[e] - p->y[s], dd = dx * dx + dy * dy, best = -1;
		int at = -1;
		for (int i = s + 1; i < e; i++) {
			double px = p->x[i] - p->x[s], py = p->y[i] - p->y[s], d2;
			if (dd > 0) {
				double cr = px * dy - py * dx;
				d2 = cr * cr / dd;
			} else {
				d2 = px * px + py * py;
			}
			if (d2 > best) {
				best = d2;
				at = i;
			}
		}
		if (at >= 0 && best > tol2 && ns + 4 <= (int)(sizeof stack / sizeof stack[0])) {
			keep[at] = 1;
			stack[ns++] = s;
			stack[ns++] = at;
			stack[ns++] = at;
			stack[ns++] = e;
		}
	}
	return 0;
}

static int poly_push(poly *p, int x, int y)
{
	if (p->n == p->cap) {
		int c = p->cap ? 2 * p->cap : 256;
		int *nx = realloc(p->x, (size_t)c * sizeof *nx);
		if (!nx)
			return -1;
		p->x = nx;
		int *ny = realloc(p->y, (size_t)c * sizeof *ny);
		if (!ny)
			return -1;
		p->y = ny;
		p->cap = c;
	}
	p->x[p->n] = x;
	p->y[p->n++] = y;
	return 0;
}

/* Writes p (raster corners) simplified, as a closed loop or an open line. */
static int put_poly(cm_scene *s, poly *p, int closed, double tol, int *oom)
{
	if (p->n < 2)
		return 0;
	if (closed && poly_push(p, p->x[0], p->y[0])) {
		*oom = 1;
		return -1;
	}
	uint8_t *keep = calloc((size_t)p->n, 1);
	if (!keep) {
		*oom = 1;
		return -1;
	}
	keep[0] = keep[p->n - 1] = 1;
	int mid = 0;
	if (closed) { /* split at the vertex farthest from the start */
		double best = -1;
		for (int i = 1; i < p->n - 1; i++) {
			double dx = p->x[i] - p->x[0], dy = p->y[i] - p->y[0];
			if (dx * dx + dy * dy > best) {
				best = dx * dx + dy * dy;
				mid = i;
			}
		}
		keep[mid] = 1;
		keep_far(p, 0, mid, tol * tol, keep);
		keep_far(p, mid, p->n - 1, tol * tol, keep);
	} else {
		keep_far(p, 0, p->n - 1, tol * tol, keep);
	}
	int first = 1;
	for (int i = 0; i < p->n - (closed ? 1 : 0); i++)
		if (keep[i]) {
			path_pt(s, first ? 'M' : 'L', P((double)p->x[i] / RES, (double)p->y[i] / RES));
			first = 0;
		}
	if (closed)
		cm_scene_path_add(s, "Z");
	free(keep);
	return 0;
}

/* The outline of field f: boundary edges with the field on their right,
 * chained into loops. */
static void trace_field(geo *g, cm_scene *s, int f, poly *p)
{
	static const int dx[4] = { 1, 0, -1, 0 }, dy[4] = { 0, 1, 0, -1 };
	uint8_t *out = g->vtx;
	memset(out, 0, NV);
	for (int j = 0; j < N; j++)
		for (int i = 0; i < N; i++) {
			if (g->fld[j * N + i] != f)
				continue;
			if (lab(g, i, j - 1) != f)
				out[j * (N + 1) + i] |= 1; /* east along the top */
			if (lab(g, i + 1, j) != f)
				out[j * (N + 1) + i + 1] |= 2; /* south down the right */
			if (lab(g, i, j + 1) != f)
				out[(j + 1) * (N + 1) + i + 1] |= 4; /* west along the bottom */
			if (lab(g, i - 1, j) != f)
				out[(j + 1) * (N + 1) + i] |= 8; /* north up the left */
		}
	for (int v0 = 0; v0 < NV; v0++)
		while (out[v0]) {
			int v = v0, d = 0;
			while (!((out[v] >> d) & 1))
				d++;
			p->n = 0;
			if (poly_push(p, v0 % (N + 1), v0 / (N + 1))) {
				s->oom = 1;
				return;
			}
			for (;;) {
				int x = v % (N + 1), y = v / (N + 1);
				out[v] &= (uint8_t)~(1u << d);
				int nx = x + dx[d], ny = y + dy[d], nv = ny * (N + 1) + nx;
				if (!out[nv])
					break;
				/* turn right first: diagonal cells stay apart */
				int nd = -1;
				for (int k = 0; k < 3 && nd < 0; k++) {
					int c = (d + (k == 0 ? 1 : k == 1 ? 0 : 3)) & 3;
					if ((out[nv] >> c) & 1)
						nd = c;
				}
				if (nd < 0)
					break;
				if (nd != d && poly_push(p, nx, ny)) {
					s->oom = 1;
					return;
				}
				v = nv;
				d = nd;
			}
			int oom = 0;
			put_poly(s, p, 1, 0.8, &oom);
			if (oom)
				s->oom = 1;
		}
}

/* The lines where two fields meet on open ground. */
static void trace_hedges(geo *g, cm_scene *s, poly *p)
{
	static const int dx[4] = { 1, 0, -1, 0 }, dy[4] = { 0, 1, 0, -1 };
	uint8_t *e = g->vtx; /* per vertex: edges east, south, west, north */
	memset(e, 0, NV);
	for (int j = 0; j < N; j++)
		for (int i = 0; i < N; i++) {
			int c = j * N + i;
			if (g->blk[c] || g->fld[c] < 0)
				continue;
			if (i + 1 < N && !g->blk[c + 1] && g->fld[c + 1] >= 0 && g->fld[c + 1] != g->fld[c]) {
				e[j * (N + 1) + i + 1] |= 2; /* the edge between, from its top down */
				e[(j + 1) * (N + 1) + i + 1] |= 8;
			}
			if (j + 1 < N && !g->blk[c + N] && g->fld[c + N] >= 0 && g->fld[c + N] != g->fld[c]) {
				e[(j + 1) * (N + 1) + i] |= 1;
				e[(j + 1) * (N + 1) + i + 1] |= 4;
			}
		}
	for (int pass = 0; pass < 2; pass++) /* lines from their ends first, then loops */
		for (int v0 = 0; v0 < NV; v0++) {
			int deg = (e[v0] & 1) + ((e[v0] >> 1) & 1) + ((e[v0] >> 2) & 1) + ((e[v0] >> 3) & 1);
			if (!deg || (pass == 0 && deg == 2))
				continue;
			while (e[v0]) {
				int v = v0, d = 0;
				while (!((e[v] >> d) & 1))
					d++;
				p->n = 0;
				if (poly_push(p, v % (N + 1), v / (N + 1))) {
					s->oom = 1;
					return;
				}
				for (;;) {
					int x = v % (N + 1) + dx[d], y = v / (N + 1) + dy[d], nv = y * (N + 1) + x;
					e[v] &= (uint8_t)~(1u << d);
					e[nv] &= (uint8_t)~(1u << ((d + 2) & 3));
					if (poly_push(p, x, y)) {
						s->oom = 1;
						return;
					}
					v = nv;
					int n = (e[v] & 1) + ((e[v] >> 1) & 1) + ((e[v] >> 2) & 1) + ((e[v] >> 3) & 1);
					if (n != 1)
						break;
					d = 0;
					while (!((e[v] >> d) & 1))
						d++;
				}
				int oom = 0;
				put_poly(s, p, 0, 1.3, &oom);
				if (oom)
					s->oom = 1;
			}
		}
}

/* ---- the tile's nodes ---- */

typedef int (*feature_fn)(void *, int);

static int open_feature(feature_fn feature, void *arg, int fi)
{
	return feature ? feature(arg, fi) : 0;
}

static void put_fields(cm_scene *s, geo *g, feature_fn feature, void *arg)
{
	poly p = { 0 };
	cm_style st = fill_st(cm_palette_feature(CM_FEAT_FIELD));
	for (int fi = 0; fi < g->nf; fi++) {
		if (kind_of(g, fi) != CM_FEAT_FIELD)
			continue;
		int any = 0;
		for (int c = 0; c < NC && !any; c++)
			any = g->fld[c] == fi;
		if (!any)
			continue;
		int grp = open_feature(feature, arg, fi);
		trace_field(g, s, fi, &p);
		cm_scene_class(s, cm_scene_path_end(s, &st), "area");
		if (grp)
			cm_scene_end(s);
	}
	if (g->prints & (1u << PR_HEDGE)) {
		trace_hedges(g, s, &p);
		cm_node n = cm_scene_path_end(s, &(cm_style){ .fill = CM_PAINT_NONE,
		                                              .stroke = cm_paint_rgb(cm_palette_ink(CM_INK_HEDGE)),
		                                              .stroke_width = 90 });
		cm_scene_class(s, n, "hedge");
		cm_scene_title(s, n, print_name[PR_HEDGE]);
	}
	free(p.x);
	free(p.y);
}

static void put_city(cm_scene *s, geo *g, int ci, feature_fn feature, void *arg)
{
	const city *c = &g->c[ci];
	if (!c->nq)
		return;
	int grp = open_feature(feature, arg, c->fi), first = 1;
	for (int q = 0; q < c->nq; q++) {
		path_quad(s, &c->q[q], first);
		first = c->last[q];
		if (first)
			cm_scene_path_add(s, "Z");
	}
	cm_scene_class(s, cm_scene_path_end(s, &(cm_style){ .fill = cm_paint_rgb(cm_palette_feature(CM_FEAT_CITY)) }),
	               c->over ? "area over" : "area");
	for (int q = 0; q < c->nq; q++)
		if (c->wall[q])
			path_quad(s, &c->q[q], 1);
	cm_node w = cm_scene_path_end(s, &(cm_style){ .fill = CM_PAINT_NONE,
	                                              .stroke = cm_paint_rgb(cm_palette_ink(CM_INK_WALL)),
	                                              .stroke_width = 120 });
	cm_scene_class(s, w, "wall");
	put_glyphs_of(s, g, c->fi);
	if (grp)
		cm_scene_end(s);
}

/* The piece's drawn part (or its tunnels) as path data. */
static void piece_path(cm_scene *s, const piece *p)
{
	quad q = qsub(&p->q, p->t0, p->t1);
	path_quad(s, &q, 1);
}

/* Lines along a piece between samples from and to, d units either side. */
static void sides_path(cm_scene *s, const quad *q, double t0, double t1, double d)
{
	for (int k = -1; k <= 1; k += 2)
		for (int i = 0; i <= 8; i++) {
			double t = t0 + (t1 - t0) * i / 8;
			pt x = qat(q, t), tg = qtangent(q, t);
			path_pt(s, i ? 'L' : 'M', add(x, mul(P(-tg.y, tg.x), k * d)));
		}
}

static void put_marks(cm_scene *s, const char *cls, const char *title, const cm_style *st)
{
	cm_node n = cm_scene_path_end(s, st);
	cm_scene_class(s, n, cls);
	cm_scene_title(s, n, title);
}

static void put_road_ends(cm_scene *s, const geo *g, const road *r)
{
	cm_rgb dark = cm_palette_ink(CM_INK_DARK);
	const piece *p = &r->p[0];
	if (r->kind == R_GATE) {
		circle(s, r->end, 1.6);
		put_marks(s, "gate", print_name[PR_GATE], &(cm_style){ .fill = cm_paint_rgb(dark) });
	} else if (r->kind == R_DEAD) {
		pt tg = qtangent(&p->q, 1), n = P(-tg.y, tg.x);
		path_pt(s, 'M', add(r->end, mul(n, 3.2)));
		path_pt(s, 'L', add(r->end, mul(n, -3.2)));
		put_marks(s, "dead", print_name[PR_DEAD], &(cm_style){ .fill = CM_PAINT_NONE, .stroke = cm_paint_rgb(dark),
		                                                       .stroke_width = 140 });
	} else if (r->kind == R_FORK) {
		circle(s, centre, ROAD_W / 2);
		cm_scene_path_end(s, &(cm_style){ .fill = cm_paint_rgb(cm_palette_grid()) });
		circle(s, centre, 1.5);
		put_marks(s, "fork", print_name[PR_FORK], &(cm_style){ .fill = cm_paint_rgb(cm_palette_feature(CM_FEAT_ROAD)) });
	}
	(void)g;
}

static void put_bridges(cm_scene *s, const geo *g, int ri)
{
	for (int i = 0; i < g->nbr; i++) {
		const bridge *b = &g->br[i];
		if (b->upper != ri)
			continue;
		const quad *q = &g->r[ri].p[b->piece].q;
		if (b->lower >= 0) {
			pt n = P(-b->dir.y, b->dir.x);
			for (int k = -1; k <= 1; k += 2) {
				path_pt(s, 'M', add(add(b->at, mul(n, k * 3.1)), mul(b->dir, -6)));
				path_pt(s, 'L', add(add(b->at, mul(n, k * 3.1)), mul(b->dir, 6)));
			}
		} else {
			sides_path(s, q, (double)b->from / SAMPLES, (double)b->to / SAMPLES, 3.1);
		}
		put_marks(s, "bridge", print_name[PR_BRIDGE],
		          &(cm_style){ .fill = CM_PAINT_NONE, .stroke = cm_paint_rgb(cm_palette_ink(CM_INK_DARK)),
		                       .stroke_width = 100 });
	}
}

static void put_road(cm_scene *s, geo *g, int ri, feature_fn feature, void *arg)
{
	const road *r = &g->r[ri];
	int grp = open_feature(feature, arg, r->fi), tunnel = 0;
	for (int k = 0; k < r->np; k++) { /* tunnels: dashed sides, the field over them */
		const piece *p = &r->p[k];
		if (p->t0 > 0)
			sides_path(s, &p->q, 0, p->t0, ROAD_W / 2);
		if (p->t1 < 1)
			sides_path(s, &p->q, p->t1, 1, ROAD_W / 2);
		tunnel |= p->t0 > 0 || p->t1 < 1;
	}
	if (tunnel) {
		cm_style st = line_st(cm_palette_grid(), 60);
		st.dash[0] = 1;
		st.dash[1] = 1;
		put_marks(s, "tunnel", print_name[PR_TUNNEL], &st);
	}
	for (int k = 0; k < r->np; k++)
		piece_path(s, &r->p[k]);
	cm_scene_path_end(s, &(cm_style){ .fill = CM_PAINT_NONE, .stroke = cm_paint_rgb(cm_palette_grid()),
	                                  .stroke_width = (int)(ROAD_W * 100) });
	for (int k = 0; k < r->np; k++)
		piece_path(s, &r->p[k]);
	cm_scene_class(s, cm_scene_path_end(s, &(cm_style){ .fill = CM_PAINT_NONE,
	                                                    .stroke = cm_paint_rgb(cm_palette_feature(CM_FEAT_ROAD)),
	                                                    .stroke_width = 300 }),
	               "road");
	put_road_ends(s, g, r);
	put_bridges(s, g, ri);
	put_glyphs_of(s, g, r->fi);
	if (grp)
		cm_scene_end(s);
}

static void put_junction(cm_scene *s, const geo *g)
{
	cm_rgb dark = cm_palette_ink(CM_INK_DARK);
	for (int i = 0; i < g->nlane; i++) { /* lanes from the junction to city gates */
		path_pt(s, 'M', centre);
		path_pt(s, 'L', g->lane_gate[i]);
	}
	if (g->nlane) {
		cm_style under = line_st(cm_palette_grid(), 340), over = line_st(cm_palette_feature(CM_FEAT_ROAD), 180);
		cm_scene_path_end(s, &under);
		for (int i = 0; i < g->nlane; i++) {
			path_pt(s, 'M', centre);
			path_pt(s, 'L', g->lane_gate[i]);
		}
		cm_scene_path_end(s, &over);
		for (int i = 0; i < g->nlane; i++)
			circle(s, g->lane_gate[i], 1.6);
		put_marks(s, "gate", print_name[PR_GATE], &(cm_style){ .fill = cm_paint_rgb(dark) });
	}
	if (g->junction) {
		cm_scene_path_add(s, "M14 14h8v8h-8z");
		put_marks(s, "junction", print_name[PR_JUNCTION], &(cm_style){ .fill = cm_paint_rgb(cm_palette_grid()) });
	}
}

static void put_cloisters(cm_scene *s, geo *g, feature_fn feature, void *arg)
{
	for (int fi = 0; fi < g->nf; fi++) {
		int k = kind_of(g, fi);
		if (k != CM_FEAT_MONASTERY && k != CM_FEAT_ABBEY && k != CM_FEAT_GARDEN)
			continue;
		int grp = open_feature(feature, arg, fi);
		put_glyphs_of(s, g, fi);
		if (grp)
			cm_scene_end(s);
	}
}

static void put_crop(cm_scene *s, const geo *g)
{
	if (!g->crop)
		return;
	const char *m = g->t->markers[g->crop - 1];
	cm_node n = cm_scene_group(s, NULL);
	cm_scene_class(s, n, "print crop");
	char *t = cm_asprintf("marker %s: a crop field, no feature; roads end at it", m ? m : "?");
	cm_scene_title(s, n, t ? t : "crop field");
	free(t);
	draw_print(s, marker_print(m), g->crop_c, CROP_R * 2);
	cm_scene_end(s);
}

static void put_tile(cm_scene *s, geo *g, feature_fn feature, void *arg)
{
	int ground = g->crop ? CM_INK_CROP : CM_INK_GROUND;
	cm_scene_class(s, cm_scene_rect(s, 0, 0, S, S, &(cm_style){ .fill = cm_paint_rgb(cm_palette_ink((cm_ink)ground)) }),
	               "ground");
	put_fields(s, g, feature, arg);
	for (int pass = 0; pass < 2; pass++) /* a city that crosses over another comes last */
		for (int ci = 0; ci < g->nc; ci++)
			if (g->c[ci].over == pass)
				put_city(s, g, ci, feature, arg);
	for (int ri = 0; ri < g->nr; ri++)
		put_road(s, g, ri, feature, arg);
	put_junction(s, g);
	put_crop(s, g);
	put_cloisters(s, g, feature, arg);
	put_glyphs_of(s, g, -1);
}

cm_node cm__scene_tile(cm_scene *s, int x, int y, const cm_tile_type *t, int r, int (*feature)(void *, int),
                       void *arg, unsigned *prints)
{
	cm_node n = cm_scene_group(s, NULL);
	cm_scene_translate(s, n, x, y);
	geo *g = malloc(sizeof *g);
	if (!g) {
		s->oom = 1;
	} else {
		geo_build(g, t, r);
		put_tile(s, g, feature, arg);
		if (prints)
			*prints |= g->prints;
		free(g);
	}
	cm_scene_end(s);
	return n;
}

cm_node cm_scene_tile(cm_scene *s, int x, int y, const cm_tile_type *t, int r)
{
	return cm__scene_tile(s, x, y, t, r, NULL, NULL, NULL);
}

/* ---- drawn once per type and rotation ---- */

/* The templates are tiles drawn into a scene of their own, each a group at
 * its root; a feature's group there is a placeholder (feat[node] holds the
 * feature + 1) that a copy replaces by the caller's own feature call. */
typedef struct {
	const cm_tile_type *t;
	int r;
	cm_node n;       /* the template's group in the cache's scene */
	unsigned prints;
} tile_tpl;

struct cm__tile_cache {
	cm_scene *s;
	tile_tpl *e;
	size_t ne, cap;
	uint32_t *slot;   /* open addressing: entry index + 1, 0 empty */
	size_t nslot;
	int16_t *feat;    /* per node of s: the feature + 1 of a placeholder, 0 others */
	size_t nfeat, cap_feat;
	int oom;
};

int cm__tile_cache_new(cm__tile_cache **out)
{
	cm__tile_cache *c = calloc(1, sizeof *c);
	*out = NULL;
	if (!c || cm_scene_new(&c->s)) {
		free(c);
		return CM_ENOMEM;
	}
	*out = c;
	return 0;
}

void cm__tile_cache_free(cm__tile_cache *c)
{
	if (!c)
		return;
	cm_scene_free(c->s);
	free(c->e);
	free(c->slot);
	free(c->feat);
	free(c);
}

static size_t tpl_hash(const cm_tile_type *t, int r, size_t nslot)
{
	uint64_t h = ((uint64_t)(uintptr_t)t ^ (uint64_t)(r & 3)) * 0x9e3779b97f4a7c15u;
	return (size_t)(h >> 32) & (nslot - 1);
}

static tile_tpl *tpl_find(const cm__tile_cache *c, const cm_tile_type *t, int r)
{
	if (!c->nslot)
		return NULL;
	for (size_t k = tpl_hash(t, r, c->nslot); c->slot[k]; k = (k + 1) & (c->nslot - 1)) {
		tile_tpl *e = &c->e[c->slot[k] - 1];
		if (e->t == t && e->r == r)
			return e;
	}
	return NULL;
}

/* A new entry for (t, r), its template not drawn yet; NULL out of memory. */
static tile_tpl *tpl_add(cm__tile_cache *c, const cm_tile_type *t, int r)
{
	if (2 * (c->ne + 1) > c->nslot) {
		size_t n = c->nslot ? 2 * c->nslot : 64;
		uint32_t *sl = calloc(n, sizeof *sl);
		if (!sl)
			return NULL;
		for (size_t i = 0; i < c->ne; i++) {
			size_t k = tpl_hash(c->e[i].t, c->e[i].r, n);
			while (sl[k])
				k = (k + 1) & (n - 1);
			sl[k] = (uint32_t)i + 1;
		}
		free(c->slot);
		c->slot = sl;
		c->nslot = n;
	}
	if (cm_grow((void **)&c->e, &c->cap, c->ne, sizeof *c->e))
		return NULL;
	size_t k = tpl_hash(t, r, c->nslot);
	while (c->slot[k])
		k = (k + 1) & (c->nslot - 1);
	c->slot[k] = (uint32_t)c->ne + 1;
	c->e[c->ne] = (tile_tpl){ .t = t, .r = r, .n = CM_NODE_NONE };
	return &c->e[c->ne++];
}

/* The feature callback while a template is drawn: a placeholder group. */
static int placeholder(void *arg, int fi)
{
	cm__tile_cache *c = arg;
	cm_node g = cm_scene_group(c->s, NULL);
	if (g == CM_NODE_NONE)
		return 1;
	if (g >= c->cap_feat) {
		size_t n = c->cap_feat ? c->cap_feat : 256;
		while (n <= g)
			n *= 2;
		int16_t *f = realloc(c->feat, n * sizeof *f);
		if (!f) {
			c->oom = 1;
			return 1;
		}
		c->feat = f;
		c->cap_feat = n;
	}
	if (g >= c->nfeat) {
		memset(c->feat + c->nfeat, 0, (g + 1 - c->nfeat) * sizeof *c->feat);
		c->nfeat = g + 1;
	}
	c->feat[g] = (int16_t)(fi + 1);
	return 1;
}

/* The children of template node n copied into s's open group. */
static void copy_children(cm_scene *s, const cm__tile_cache *c, cm_node n, feature_fn feature, void *arg)
{
	for (cm_node k = c->s->n[n].child; k != CM_NODE_NONE; k = c->s->n[k].next) {
		int fi = k < c->nfeat ? c->feat[k] - 1 : -1;
		if (fi >= 0) {
			int grp = open_feature(feature, arg, fi);
			copy_children(s, c, k, feature, arg);
			if (grp)
				cm_scene_end(s);
		} else if (c->s->n[k].kind == SN_GROUP) {
			cm__scene_copy_node(s, c->s, k);
			copy_children(s, c, k, feature, arg);
			cm_scene_end(s);
		} else {
			cm__scene_copy_node(s, c->s, k);
		}
	}
}

/* The template of (t, r), drawn when new; NULL out of memory. */
static const tile_tpl *tpl_of(cm__tile_cache *c, const cm_tile_type *t, int r)
{
	tile_tpl *e = tpl_find(c, t, r);
	if (!e) {
		e = tpl_add(c, t, r);
		if (!e)
			return NULL;
		e->n = cm__scene_tile(c->s, 0, 0, t, r, placeholder, c, &e->prints);
	}
	return c->oom || cm_scene_error(c->s) || e->n == CM_NODE_NONE ? NULL : e;
}

int cm__tile_cache_prints(cm__tile_cache *c, const cm_tile_type *t, int r, unsigned *prints)
{
	const tile_tpl *e = tpl_of(c, t, r);
	if (!e)
		return CM_ENOMEM;
	*prints |= e->prints;
	return 0;
}

cm_node cm__scene_tile_cached(cm_scene *s, cm__tile_cache *c, int x, int y, const cm_tile_type *t, int r,
                              int (*feature)(void *, int), void *arg, unsigned *prints)
{
	if (!c)
		return cm__scene_tile(s, x, y, t, r, feature, arg, prints);
	const tile_tpl *e = tpl_of(c, t, r);
	if (!e) {
		s->oom = 1;
		return CM_NODE_NONE;
	}
	cm_node n = cm_scene_group(s, NULL);
	cm_scene_translate(s, n, x, y);
	copy_children(s, c, e->n, feature, arg);
	cm_scene_end(s);
	if (prints)
		*prints |= e->prints;
	return n;
}

/* ---- the key ---- */

/* The key is drawn z times its tile-sheet size (z >= 1): a tile sheet's
 * at 1, beside tiles as large as its samples; a played board's at 2,
 * beside the map's key. Lengths below are in units of z. */
#define KEY_ROW 13
#define KEY_FONT 5
#define KEY_TEXT_X 15 /* a label's start after its sample */

/* A key column's width: the widest label of prints, its sample and a gap. */
static int key_col(unsigned prints, int z)
{
	long w = 0;
	for (int pr = 0; pr < PR_COUNT; pr++)
		if ((prints >> pr) & 1) {
			long t = cm__text_width(print_name[pr], KEY_FONT * z);
			w = t > w ? t : w;
		}
	return (KEY_TEXT_X + 8) * z + (int)((w + 99) / 100);
}

static int key_cols(int w, unsigned prints, int z)
{
	int c = w / key_col(prints, z);
	return c < 1 ? 1 : c;
}

int cm__tile_key_height(int w, unsigned prints, int z)
{
	int n = 0;
	for (int pr = 0; pr < PR_COUNT; pr++)
		n += (prints >> pr) & 1;
	if (!n)
		return 0;
	int cols = key_cols(w, prints, z);
	return (14 + (n + cols - 1) / cols * KEY_ROW) * z;
}

/* A sample of a line print in the 12-unit box at (x, y), z times. */
static void key_line(cm_scene *s, int pr, int x, int y, int z)
{
#define X(d) (x + (d) * z)
#define Y(d) (y + (d) * z)
	cm_style field = fill_st(cm_palette_feature(CM_FEAT_FIELD));
	cm_scene_rect(s, x, y, 12 * z, 12 * z, &field);
	cm_rgb paving = cm_palette_feature(CM_FEAT_ROAD), grid = cm_palette_grid();
	if (pr == PR_WALL) {
		cm_style town = fill_st(cm_palette_feature(CM_FEAT_CITY)),
		         wall = line_st(cm_palette_ink(CM_INK_WALL), 120 * z);
		cm_scene_path_add(s, "M%d %dH%dV%dQ%d %d %d %dZ", x, y, X(12), Y(2), X(6), Y(10), x, Y(2));
		cm_scene_path_end(s, &town);
		cm_scene_path_add(s, "M%d %dQ%d %d %d %d", x, Y(2), X(6), Y(10), X(12), Y(2));
		cm_scene_path_end(s, &wall);
	} else if (pr == PR_HEDGE) {
		cm_style hedge = line_st(cm_palette_ink(CM_INK_HEDGE), 90 * z);
		cm_scene_path_add(s, "M%d %dL%d %d", X(2), y, X(10), Y(12));
		cm_scene_path_end(s, &hedge);
	} else {
		int vert = pr == PR_BRIDGE || pr == PR_JUNCTION || pr == PR_FORK;
		cm_rgb dark = cm_palette_ink(CM_INK_DARK);
		cm_style under = line_st(grid, 400 * z), over = line_st(paving, 240 * z), thin = line_st(dark, 100 * z);
		cm_style dead = line_st(dark, 140 * z), gate = line_st(cm_palette_ink(CM_INK_WALL), 200 * z),
		         dot_st = fill_st(dark);
		cm_style gr = fill_st(grid);
		int end = pr == PR_DEAD || pr == PR_GATE ? X(8) : X(12);
		cm_scene_path_add(s, "M%d %dH%d", x, Y(6), end);
		if (vert)
			cm_scene_path_add(s, "M%d %dV%d", X(6), y, pr == PR_FORK ? Y(6) : Y(12));
		cm_scene_path_end(s, &under);
		cm_scene_path_add(s, "M%d %dH%d", x, Y(6), end);
		if (vert && pr != PR_BRIDGE)
			cm_scene_path_add(s, "M%d %dV%d", X(6), y, pr == PR_FORK ? Y(6) : Y(12));
		cm_scene_path_end(s, &over);
		if (pr == PR_BRIDGE) {
			cm_scene_path_add(s, "M%d %dV%dM%d %dV%d", X(6), y, Y(12), X(6), y, Y(12));
			cm_scene_path_end(s, &over);
			cm_scene_path_add(s, "M%d %dV%dM%d %dV%d", X(3), Y(1), Y(11), X(9), Y(1), Y(11));
			cm_scene_path_end(s, &thin);
		} else if (pr == PR_JUNCTION) {
			cm_scene_rect(s, X(3), Y(3), 6 * z, 6 * z, &gr);
		} else if (pr == PR_GATE) {
			cm_scene_path_add(s, "M%d %dV%d", X(10), y, Y(12));
			cm_scene_path_end(s, &gate);
			circle(s, P(X(9), Y(6)), 1.4 * z);
			cm_scene_path_end(s, &dot_st);
		} else if (pr == PR_DEAD) {
			cm_scene_path_add(s, "M%d %dV%d", X(8), Y(3), Y(9));
			cm_scene_path_end(s, &dead);
		} else if (pr == PR_TUNNEL) {
			cm_scene_rect(s, X(3), y, 6 * z, 12 * z, &field);
			cm_scene_path_add(s, "M%d %dH%dM%d %dH%d", X(3), Y(4), X(9), X(3), Y(8), X(9));
			cm_style st = line_st(grid, 60 * z);
			st.dash[0] = st.dash[1] = z;
			cm_scene_path_end(s, &st);
		}
	}
#undef X
#undef Y
}

int cm__scene_tile_key(cm_scene *s, int x, int y, int w, unsigned prints, int z)
{
	int h = cm__tile_key_height(w, prints, z), cols = key_cols(w, prints, z), col = key_col(prints, z), k = 0;
	if (!h)
		return 0;
	cm_node g = cm_scene_group(s, NULL);
	cm_scene_class(s, g, "key");
	cm_scene_text(s, x, y + 8 * z, "What the tiles show",
	              &(cm_style){ .fill = cm_paint_rgb(cm_palette_text()), .font_size = 7 * z, .bold = 1 });
	for (int pr = 0; pr < PR_COUNT; pr++) {
		if (!((prints >> pr) & 1))
			continue;
		int ix = x + k % cols * col, iy = y + (14 + k / cols * KEY_ROW) * z;
		cm_node e = cm_scene_group(s, NULL);
		cm_scene_class(s, e, "keyentry");
		cm_scene_title(s, e, print_name[pr]);
		if (pr <= PR_DEAD)
			key_line(s, pr, ix, iy, z);
		else
			draw_print(s, pr, P(ix + 6 * z, iy + 6 * z), (is_crop(pr) ? 12 : 10) * z);
		cm_scene_text(s, ix + KEY_TEXT_X * z, iy + 8 * z, print_name[pr],
		              &(cm_style){ .fill = cm_paint_rgb(cm_palette_text()), .font_size = KEY_FONT * z });
		cm_scene_end(s);
		k++;
	}
	cm_scene_end(s);
	return h;
}
