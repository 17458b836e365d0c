/* Which cells of a field's grid an obstacle (or goal) set meets: every
 * cell an edge touches, column by column, and every cell whose centre lies
 * inside a polygon, row by row. Decided in double on the grid coordinates
 * u = (x - ox) / h, v = (y - oy) / h, where cell (i, j) is [i, i + 1] x
 * [j, j + 1]. */
#include <math.h>
#include <string.h>

#include "avoid/obstacles.h"
#include "nav/field.h"

/* The cells [first, last] of a closed coordinate interval [lo, hi] (a cell
 * touching it at a corner or side included), clipped to [min, max); 0 if
 * none. */
static int cell_span(double lo, double hi, uint32_t min, uint32_t max, uint32_t *first,
                     uint32_t *last) {
  double a = ceil(lo) - 1.0, b = floor(hi);
  if (a < (double)min) a = (double)min;
  if (b > (double)max - 1.0) b = (double)max - 1.0;
  if (!(a <= b)) return 0;
  *first = (uint32_t)a;
  *last = (uint32_t)b;
  return 1;
}

static void mark(uint8_t *flags, const cs_raster_clip *c, uint32_t cx, uint32_t cy,
                 uint8_t bit) {
  flags[(size_t)cy * c->width + cx] |= bit;
}

/* Every cell of the clip the closed segment (ua, va)-(ub, va) touches:
 * per column, the v range of the part of the segment over it. */
static void raster_edge(double ua, double va, double ub, double vb,
                        const cs_raster_clip *c, uint8_t *flags, uint8_t bit) {
  uint32_t i0, i1;
  if (!cell_span(fmin(ua, ub), fmax(ua, ub), c->cx0, c->cx1, &i0, &i1)) return;
  for (uint32_t i = i0; i <= i1; i++) {
    double lo = fmax(fmin(ua, ub), (double)i), hi = fmin(fmax(ua, ub), (double)i + 1.0);
    if (lo > hi) continue;
    double v_lo, v_hi;
    if (ua == ub) {
      v_lo = fmin(va, vb);
      v_hi = fmax(va, vb);
    } else {
      const double slope = (vb - va) / (ub - ua);
      const double at_lo = va + slope * (lo - ua), at_hi = va + slope * (hi - ua);
      v_lo = fmin(at_lo, at_hi);
      v_hi = fmax(at_lo, at_hi);
      /* The segment's own end points bound it whatever the rounding. */
      v_lo = fmax(v_lo, fmin(va, vb));
      v_hi = fmin(v_hi, fmax(va, vb));
    }
    uint32_t j0, j1;
    if (!cell_span(v_lo, v_hi, c->cy0, c->cy1, &j0, &j1)) continue;
    for (uint32_t j = j0; j <= j1; j++)
      mark(flags, c, i, j, bit);
  }
}

/* Cells of the clip whose centre is inside a polygon (even-odd over its
 * edges, crossings of the centre line counted half-open in v): per row,
 * each crossing toggles the parity from the first centre at or right of
 * it. Centres on the boundary belong to cells raster_edge marks. */
static double grid_u(const crowdsteer_obstacles *o, uint32_t k, const cs_raster_clip *c) {
  return ((double)o->x[k] - c->origin_x) / c->cell_size;
}
static double grid_v(const crowdsteer_obstacles *o, uint32_t k, const cs_raster_clip *c) {
  return ((double)o->y[k] - c->origin_y) / c->cell_size;
}

static void raster_interior(const crowdsteer_obstacles *o, uint32_t first,
                            const cs_raster_clip *c, uint8_t *flags, uint8_t bit,
                            uint8_t *row) {
  double v_min = INFINITY, v_max = -INFINITY;
  uint32_t k = first;
  do {
    v_min = fmin(v_min, grid_v(o, k, c));
    v_max = fmax(v_max, grid_v(o, k, c));
    k = o->next[k];
  } while (k != first);
  uint32_t j0, j1;
  if (!cell_span(v_min - 0.5, v_max - 0.5, c->cy0, c->cy1, &j0, &j1)) return;
  for (uint32_t j = j0; j <= j1; j++) {
    const double centre = (double)j + 0.5;
    uint32_t toggled_min = c->width, toggled_max = 0;
    k = first;
    do {
      const uint32_t n = o->next[k];
      const double vk = grid_v(o, k, c), vn = grid_v(o, n, c);
      if ((vk <= centre) != (vn <= centre)) {
        const double uk = grid_u(o, k, c), un = grid_u(o, n, c);
        const double x = uk + (centre - vk) * (un - uk) / (vn - vk);
        double at = ceil(x - 0.5);
        at = at < 0.0 ? 0.0 : at > (double)c->width ? (double)c->width : at;
        const uint32_t t = (uint32_t)at;
        row[t] ^= 1u;
        toggled_min = t < toggled_min ? t : toggled_min;
        toggled_max = t > toggled_max ? t : toggled_max;
      }
      k = n;
    } while (k != first);
    if (toggled_min > toggled_max) continue;
    uint8_t inside = 0;
    for (uint32_t i = toggled_min; i <= toggled_max; i++) {
      inside ^= row[i];
      row[i] = 0;
      if (inside && i < c->width && i >= c->cx0 && i < c->cx1) mark(flags, c, i, j, bit);
    }
  }
}

void cs_raster_set(const crowdsteer_obstacles *o, const cs_raster_clip *c, uint8_t *flags,
                   uint8_t bit, uint8_t *row) {
  if (!o || c->cx0 >= c->cx1 || c->cy0 >= c->cy1) return;
  for (size_t l = 0; l < o->loop_count; l++) {
    const uint32_t first = o->loop_first[l];
    uint32_t k = first;
    do {
      const uint32_t n = o->next[k];
      raster_edge(grid_u(o, k, c), grid_v(o, k, c), grid_u(o, n, c), grid_v(o, n, c), c,
                  flags, bit);
      k = n;
    } while (k != first && o->loop_closed[l]);
    if (o->loop_closed[l]) raster_interior(o, first, c, flags, bit, row);
  }
}
