/* The travel-time march of a navigation field and the per-cell
 * directions agents follow. Fast marching: cells accepted in order of T
 * from a 4-ary heap (ties in the order its fixed operations give), each
 * trial cell updated by the first-order upwind solution from its accepted
 * neighbours, in double. One thread, one fixed order: the same inputs give
 * the same bits. */
#include <math.h>
#include <stddef.h>

#include "nav/field.h"

/* During the march store.time holds the T of accepted cells and +inf
 * for every other (so an upwind minimum needs no test of a cell's state),
 * a trial cell's T lives in its heap entry, and heap_position says where,
 * or FAR (never reached yet) or DONE (accepted or blocked). */
#define FAR UINT32_MAX
#define DONE (UINT32_MAX - 1)

/* A 4-ary heap: half the levels of a binary one, whose position updates
 * dominated the march. */
enum { ARITY = 4 };

/* The heap orders by T alone (a tie-break by cell index made the march
 * 1.8x slower: the compiler no longer selects the smallest child without
 * branches). Equal times leave the heap in the order its fixed sequence of
 * operations gives, the same on every run. Its times and cells are two
 * arrays: a node's four children's times share half a cache line (one
 * array of 16-byte entries took a whole line: 1.06x slower).
 *
 * climb places the entry (t, cell) at `at` or above it: it climbs while its
 * parent's time is greater (or, `past_equal`, not smaller): sift_up and the
 * end of sift_down. */
static inline void climb(cs_field_store *s, uint32_t at, double t, uint32_t cell,
                         int past_equal) {
  while (at > 0) {
    const uint32_t parent = (at - 1) / ARITY;
    const double above = s->heap_time[parent];
    if (past_equal ? above < t : !(t < above)) break;
    s->heap_time[at] = above;
    s->heap_cell[at] = s->heap_cell[parent];
    s->heap_position[s->heap_cell[at]] = at;
    at = parent;
  }
  s->heap_time[at] = t;
  s->heap_cell[at] = cell;
  s->heap_position[cell] = at;
}

static void sift_up(cs_field_store *s, uint32_t at) {
  climb(s, at, s->heap_time[at], s->heap_cell[at], 0);
}

/* Sift-down of the root's entry by Floyd's method: the hole goes down to
 * a leaf along the smallest children (one comparison less per level), then
 * the entry climbs back while its parent is not smaller. The path's times
 * rise downwards, so the entry stops below exactly the times smaller than
 * it, where the usual sift-down (stop at the first child not smaller)
 * puts it: the same heap, ties included. */
static void sift_down(cs_field_store *s, uint32_t size) {
  const double t = s->heap_time[0];
  const uint32_t cell = s->heap_cell[0];
  uint32_t at = 0;
  for (;;) {
    const uint32_t first = ARITY * at + 1;
    if (first >= size) break;
    const uint32_t last = first + ARITY < size ? first + ARITY : size;
    uint32_t child = first;
    double best = s->heap_time[first];
    for (uint32_t k = first + 1; k < last; k++) {
      const double u = s->heap_time[k];
      const int better = u < best;
      child = better ? k : child;
      best = better ? u : best;
    }
    s->heap_time[at] = best;
    s->heap_cell[at] = s->heap_cell[child];
    s->heap_position[s->heap_cell[at]] = at;
    at = child;
  }
  climb(s, at, t, cell, 1);
}

/* The smaller T of a cell's accepted neighbours along one axis (+inf if
 * none): `low` and `high` say whether the neighbours exist. */
static double upwind(const cs_field_store *s, size_t c, size_t step, int low, int high) {
  const double below = low ? s->time[c - step] : INFINITY;
  const double above = high ? s->time[c + step] : INFINITY;
  return above < below ? above : below;
}

/* The first-order upwind update of cell c: with a <= b the smaller T of
 * its accepted neighbours in each axis and f = cost * h, T = (a + b +
 * sqrt(2 f^2 - (b - a)^2)) / 2 when b - a < f, else a + f. */
static double update(const crowdsteer_field *f, size_t c, uint32_t cx, uint32_t cy) {
  const cs_field_store *s = &f->store;
  double a = upwind(s, c, 1, cx > 0, cx + 1 < f->width);
  double b = upwind(s, c, f->width, cy > 0, cy + 1 < f->height);
  if (a > b) {
    const double t = a;
    a = b;
    b = t;
  }
  /* cost * h with a cost of 1 is h exactly: a field without costs skips
   * the loads. */
  const double slowness =
      f->uniform_cost ? (double)f->cell_size : (double)s->cost[c] * (double)f->cell_size;
  if (b - a < slowness) {
    const double d = b - a;
    return (a + b + sqrt(2.0 * slowness * slowness - d * d)) * 0.5;
  }
  return a + slowness;
}

/* Cell n = (nx, ny), a neighbour of a cell just accepted. */
static void consider(crowdsteer_field *f, size_t n, uint32_t nx, uint32_t ny,
                     uint32_t *size) {
  cs_field_store *s = &f->store;
  const uint32_t at = s->heap_position[n];
  if (at == DONE) return;
  const double t = update(f, n, nx, ny);
  if (at == FAR) {
    s->heap_time[*size] = t;
    s->heap_cell[*size] = (uint32_t)n;
    sift_up(s, (*size)++);
  } else if (t < s->heap_time[at]) {
    s->heap_time[at] = t;
    sift_up(s, at);
  }
}

static void march(crowdsteer_field *f) {
  cs_field_store *s = &f->store;
  uint32_t size = 0;
  for (size_t c = 0; c < f->cells; c++) {
    s->time[c] = INFINITY;
    s->heap_position[c] = s->flags[c] & CS_CELL_BLOCKED ? DONE : FAR;
  }
  for (size_t c = 0; c < f->cells; c++) {
    if (s->flags[c] != CS_CELL_GOAL) continue; /* a goal, not blocked */
    s->heap_time[size] = 0.0;
    s->heap_cell[size] = (uint32_t)c;
    s->heap_position[c] = size++; /* in index order: already a heap */
  }
  const size_t w = f->width;
  while (size > 0) {
    const size_t c = s->heap_cell[0];
    s->time[c] = s->heap_time[0];
    s->heap_position[c] = DONE;
    --size;
    s->heap_time[0] = s->heap_time[size];
    s->heap_cell[0] = s->heap_cell[size];
    if (size > 0) sift_down(s, size);
    const uint32_t cx = (uint32_t)c % f->width, cy = (uint32_t)c / f->width;
    if (cx > 0) consider(f, c - 1, cx - 1, cy, &size);
    if (cx + 1 < f->width) consider(f, c + 1, cx + 1, cy, &size);
    if (cy > 0) consider(f, c - w, cx, cy - 1, &size);
    if (cy + 1 < f->height) consider(f, c + w, cx, cy + 1, &size);
  }
}

/* One axis of the descent at T = t from the neighbours' T below and
 * above (+inf where missing, blocked or unreached): the drop towards the
 * lower one that is lower than t (the one below on a tie), signed towards
 * it in *sign; 0 if neither is lower. */
static double descent(double t, double below, double above, int *sign) {
  if (below < t && below <= above) {
    *sign = -1;
    return below - t;
  }
  if (above < t) {
    *sign = 1;
    return t - above;
  }
  *sign = 0;
  return 0.0;
}

/* A component in [-1, 1] as stored: q = floor(g * 2^14 + 1/2), plus 2^14
 * (cs_field_store.direction). */
static uint32_t encode(double g) {
  return (uint32_t)((int32_t)floor(g * 16384.0 + 0.5) + 16384);
}

/* A blocked cell's direction, for agents whose centre stands in it beside
 * a wall: towards the centre of its reached neighbour (of 8) with the
 * smallest T, the first in row order (dy, then dx, from -1) on a tie; zero
 * when none is reached (deep inside a polygon). */
static uint32_t way_out(const crowdsteer_field *f, size_t c, uint32_t cx, uint32_t cy) {
  const double *time = f->store.time;
  double best = INFINITY;
  int bx = 0, by = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      if ((dx == 0 && dy == 0) || (dx < 0 && cx == 0) || (dy < 0 && cy == 0) ||
          (dx > 0 && cx + 1 >= f->width) || (dy > 0 && cy + 1 >= f->height))
        continue;
      const double t = time[(size_t)((ptrdiff_t)c + dx + dy * (ptrdiff_t)f->width)];
      if (t < best) best = t, bx = dx, by = dy;
    }
  if (!(best < INFINITY)) return CS_DIRECTION_ZERO;
  const double length = sqrt((double)(bx * bx + by * by));
  return encode(bx / length) | encode(by / length) << 16;
}

/* A cell's direction: the upwind descent (gx, gy) of T, from each axis's
 * lower neighbour, normalised in double and stored to 2^-14. Where both
 * components are nonzero but the diagonal cell between them is blocked or
 * unreached, only the larger one is kept (x on a tie), so no direction
 * points into a blocked cell. Zero in goal and unreached cells, and where
 * no neighbour is lower; blocked cells: way_out. */
static uint32_t direction(const crowdsteer_field *f, size_t c, uint32_t cx, uint32_t cy) {
  const double *time = f->store.time;
  const double t = time[c];
  if (f->store.flags[c] & CS_CELL_BLOCKED) return way_out(f, c, cx, cy);
  if (!(t > 0.0 && t < INFINITY)) return CS_DIRECTION_ZERO;
  const size_t w = f->width;
  int sx, sy;
  double gx = descent(t, cx > 0 ? time[c - 1] : INFINITY,
                      cx + 1 < f->width ? time[c + 1] : INFINITY, &sx);
  double gy = descent(t, cy > 0 ? time[c - w] : INFINITY,
                      cy + 1 < f->height ? time[c + w] : INFINITY, &sy);
  if (sx != 0 && sy != 0 &&
      !(time[(size_t)((ptrdiff_t)c + sx + sy * (ptrdiff_t)w)] < INFINITY)) {
    if (fabs(gx) >= fabs(gy))
      gy = 0.0;
    else
      gx = 0.0;
  }
  const double length = sqrt(gx * gx + gy * gy);
  if (!(length > 0.0)) return CS_DIRECTION_ZERO;
  return encode(gx / length) | encode(gy / length) << 16;
}

void cs_field_march(crowdsteer_field *f) {
  march(f);
  size_t c = 0;
  for (uint32_t cy = 0; cy < f->height; cy++)
    for (uint32_t cx = 0; cx < f->width; cx++, c++)
      f->store.direction[c] = direction(f, c, cx, cy);
  f->store.direction[f->cells] = CS_DIRECTION_ZERO;
}
