/* The static obstacle set: adding checked loops, building the grid of
 * edges, and the exact queries the walls guarantee rests on (inside a
 * polygon, a move crossing an edge). */
#include "avoid/obstacles.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "avoid/exact.h"
#include "internal.h"

enum { MAX_LOOP_VERTICES = 1 << 24, MAX_SET_VERTICES = 1 << 30, MAX_CELLS = 1 << 22 };
enum { CELLS_PER_EDGE = 64, MIN_CELLS = 4096 };

crowdsteer_status crowdsteer_obstacles_create(crowdsteer_obstacles **obstacles) {
  if (!obstacles) return CROWDSTEER_ERROR_NULL_POINTER;
  *obstacles = calloc(1, sizeof **obstacles);
  return *obstacles ? CROWDSTEER_OK : CROWDSTEER_ERROR_OUT_OF_MEMORY;
}

void crowdsteer_obstacles_destroy(crowdsteer_obstacles *o) {
  if (!o) return;
  void *arrays[] = {
      o->x,          o->y,         o->dir_x,      o->dir_y,        o->next,
      o->previous,   o->loop,      o->convex,     o->loop_first,   o->loop_closed,
      o->cell_first, o->cell_edge, o->cell_state, o->build_scratch};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
    free(arrays[k]);
  free(o);
}

/* Grows *array to hold `count` elements of `size` bytes (doubling). */
static int reserve(void **array, size_t *capacity, size_t count, size_t size) {
  if (count <= *capacity) return 1;
  size_t want = *capacity ? *capacity : 16;
  while (want < count)
    want *= 2;
  void *grown = realloc(*array, want * size);
  if (!grown) return 0;
  *array = grown;
  *capacity = want;
  return 1;
}

static int grow_vertices(crowdsteer_obstacles *o, size_t count) {
  if (count <= o->vertex_capacity) return 1;
  size_t capacity = o->vertex_capacity;
  void **float_arrays[] = {(void **)&o->x, (void **)&o->y, (void **)&o->dir_x,
                           (void **)&o->dir_y};
  void **index_arrays[] = {(void **)&o->next, (void **)&o->previous, (void **)&o->loop};
  for (int k = 0; k < 4; k++) {
    capacity = o->vertex_capacity;
    if (!reserve(float_arrays[k], &capacity, count, sizeof(float))) return 0;
  }
  for (int k = 0; k < 3; k++) {
    capacity = o->vertex_capacity;
    if (!reserve(index_arrays[k], &capacity, count, sizeof(uint32_t))) return 0;
  }
  capacity = o->vertex_capacity;
  if (!reserve((void **)&o->convex, &capacity, count, 1)) return 0;
  o->vertex_capacity = capacity;
  return 1;
}

static int grow_loops(crowdsteer_obstacles *o, size_t count) {
  size_t capacity = o->loop_capacity;
  if (!reserve((void **)&o->loop_first, &capacity, count, sizeof(uint32_t))) return 0;
  capacity = o->loop_capacity;
  if (!reserve((void **)&o->loop_closed, &capacity, count, 1)) return 0;
  o->loop_capacity = capacity;
  return 1;
}

/* ---- checking a loop ------------------------------------------------------- */

static void vertex(const float *x, const float *y, size_t k, float p[2]) {
  p[0] = x[k];
  p[1] = y[k];
}

/* Whether edges e (a -> b) and f of one loop of n vertices meet anywhere
 * but where consecutive edges must: a shared vertex, without folding back. */
static int edges_clash(const float *x, const float *y, size_t n, size_t e, size_t f) {
  if (e == f) return 0;
  float a[2], b[2], c[2], d[2];
  vertex(x, y, e, a);
  vertex(x, y, (e + 1) % n, b);
  vertex(x, y, f, c);
  vertex(x, y, (f + 1) % n, d);
  if ((e + 1) % n == f) /* a -> b -> d: folds when d is on the ray from b to a */
    return cs_orient(a, b, d) == 0 && cs_dot_sign(b, a, b, d) > 0;
  if ((f + 1) % n == e) /* c -> d = a -> b */
    return cs_orient(c, d, b) == 0 && cs_dot_sign(d, c, d, b) > 0;
  return cs_segments_touch(a, b, c, d);
}

/* A loop of n >= 3 vertices (consecutive ones distinct) is simple: no two
 * edges clash. Edges are filed by bounding box in a g by g grid over the
 * loop, and only edges sharing a cell are compared. */
static crowdsteer_status check_simple(const float *x, const float *y, size_t n) {
  float lo[2] = {x[0], y[0]}, hi[2] = {x[0], y[0]};
  for (size_t k = 1; k < n; k++) {
    lo[0] = fminf(lo[0], x[k]), hi[0] = fmaxf(hi[0], x[k]);
    lo[1] = fminf(lo[1], y[k]), hi[1] = fmaxf(hi[1], y[k]);
  }
  size_t g = 1;
  while (g * g < n && g < 2048)
    g++;
  const double extent[2] = {(double)hi[0] - lo[0], (double)hi[1] - lo[1]};
  size_t span[2][2];
  size_t *count = calloc(g * g + 1, sizeof *count);
  if (!count) return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  /* Two passes over the edges: count the cells' entries, then fill. */
  size_t *entry = NULL;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t e = 0; e < n; e++) {
      const size_t f = (e + 1) % n;
      const float ex[2] = {x[e], x[f]}, ey[2] = {y[e], y[f]};
      for (int axis = 0; axis < 2; axis++) {
        const float *c = axis ? ey : ex;
        for (int end = 0; end < 2; end++) {
          const float v = end ? fmaxf(c[0], c[1]) : fminf(c[0], c[1]);
          const double t =
              extent[axis] > 0.0 ? ((double)v - lo[axis]) / extent[axis] : 0.0;
          size_t cell = (size_t)(t * (double)g);
          span[axis][end] = cell < g ? cell : g - 1;
        }
      }
      for (size_t r = span[1][0]; r <= span[1][1]; r++)
        for (size_t c = span[0][0]; c <= span[0][1]; c++) {
          if (pass == 0)
            count[r * g + c + 1]++;
          else
            entry[count[r * g + c]++] = e;
        }
    }
    if (pass == 0) {
      for (size_t c = 0; c < g * g; c++)
        count[c + 1] += count[c];
      entry = malloc((count[g * g] ? count[g * g] : 1) * sizeof *entry);
      if (!entry) {
        free(count);
        return CROWDSTEER_ERROR_OUT_OF_MEMORY;
      }
    }
  }
  /* After the fill, count[c] is the end of cell c and count[c - 1] its start. */
  crowdsteer_status status = CROWDSTEER_OK;
  for (size_t c = 0; c < g * g && status == CROWDSTEER_OK; c++) {
    const size_t first = c ? count[c - 1] : 0, last = count[c];
    for (size_t i = first; i < last && status == CROWDSTEER_OK; i++)
      for (size_t j = i + 1; j < last; j++)
        if (edges_clash(x, y, n, entry[i], entry[j])) {
          status = CROWDSTEER_ERROR_GEOMETRY;
          break;
        }
  }
  free(entry);
  free(count);
  return status;
}

/* A simple loop turns counter-clockwise exactly when it turns left at its
 * lowest vertex (leftmost among the lowest). */
static int counter_clockwise(const float *x, const float *y, size_t n) {
  size_t low = 0;
  for (size_t k = 1; k < n; k++)
    if (y[k] < y[low] || (y[k] == y[low] && x[k] < x[low])) low = k;
  float a[2], b[2], c[2];
  vertex(x, y, (low + n - 1) % n, a);
  vertex(x, y, low, b);
  vertex(x, y, (low + 1) % n, c);
  return cs_orient(a, b, c) > 0;
}

static crowdsteer_status check_loop(const float *x, const float *y, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!isfinite(x[k]) || !isfinite(y[k])) return CROWDSTEER_ERROR_PARAMETER;
  for (size_t k = 0; k < n; k++) {
    const size_t f = (k + 1) % n;
    if (x[k] == x[f] && y[k] == y[f]) return CROWDSTEER_ERROR_GEOMETRY;
  }
  if (n == 2) return CROWDSTEER_OK;
  if (!counter_clockwise(x, y, n)) return CROWDSTEER_ERROR_GEOMETRY;
  return check_simple(x, y, n);
}

crowdsteer_status crowdsteer_obstacles_add(crowdsteer_obstacles *o, const float *x,
                                           const float *y, size_t n) {
  if (!o || !x || !y) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!cs_aligned(x) || !cs_aligned(y)) return CROWDSTEER_ERROR_ALIGNMENT;
  if (n < 2 || n > MAX_LOOP_VERTICES || o->vertex_count + n > MAX_SET_VERTICES)
    return CROWDSTEER_ERROR_PARAMETER;
  const cs_fpenv host = cs_fpenv_enter();
  crowdsteer_status status = check_loop(x, y, n);
  if (status != CROWDSTEER_OK) return cs_fpenv_return(host, status);
  if (!grow_vertices(o, o->vertex_count + n) || !grow_loops(o, o->loop_count + 1))
    return cs_fpenv_return(host, CROWDSTEER_ERROR_OUT_OF_MEMORY);
  const uint32_t first = (uint32_t)o->vertex_count;
  const uint32_t loop = (uint32_t)o->loop_count;
  for (size_t k = 0; k < n; k++) {
    const size_t v = first + k;
    o->x[v] = x[k];
    o->y[v] = y[k];
    o->next[v] = first + (uint32_t)((k + 1) % n);
    o->previous[v] = first + (uint32_t)((k + n - 1) % n);
    o->loop[v] = loop;
  }
  for (size_t k = 0; k < n; k++) {
    const size_t v = first + k, w = o->next[v], u = o->previous[v];
    /* The edge's unit direction, as the ORCA lines use it: worked in
     * double (a float dx * dx overflows past edges of 1.8e19), rounded once. */
    const double dx = (double)o->x[w] - o->x[v], dy = (double)o->y[w] - o->y[v];
    const double length = sqrt(dx * dx + dy * dy);
    o->dir_x[v] = (float)(dx / length);
    o->dir_y[v] = (float)(dy / length);
    const float a[2] = {o->x[u], o->y[u]}, b[2] = {o->x[v], o->y[v]},
                c[2] = {o->x[w], o->y[w]};
    o->convex[v] = n == 2 || cs_orient(a, b, c) >= 0;
  }
  o->loop_first[loop] = first;
  o->loop_closed[loop] = n > 2;
  o->vertex_count += n;
  o->loop_count++;
  o->built = 0;
  return cs_fpenv_return(host, CROWDSTEER_OK);
}

/* ---- the grid of edges -------------------------------------------------------- */

static uint32_t grid_cell(float v, float origin, double cell_size, uint32_t cells) {
  const double t = floor(((double)v - origin) / cell_size);
  if (!(t > 0.0)) return 0; /* also NaN */
  return t < (double)cells ? (uint32_t)t : cells - 1;
}

uint32_t cs_obstacle_column(const crowdsteer_obstacles *o, float x) {
  return grid_cell(x, o->min_x, o->cell_size, o->columns);
}

uint32_t cs_obstacle_row(const crowdsteer_obstacles *o, float y) {
  return grid_cell(y, o->min_y, o->cell_size, o->rows);
}

/* Whether edge e may pass through cell (c, r): its distance to the cell's
 * centre is at most the half-diagonal, with a margin far above the
 * rounding of the cell coordinates. A false yes costs a test, never a
 * result. */
static int edge_near_cell(const crowdsteer_obstacles *o, size_t e, uint32_t c,
                          uint32_t r) {
  const size_t f = o->next[e];
  const double h = o->cell_size;
  const double cx = o->min_x + (c + 0.5) * h, cy = o->min_y + (r + 0.5) * h;
  const double ax = o->x[e], ay = o->y[e], bx = o->x[f], by = o->y[f];
  const double ux = bx - ax, uy = by - ay;
  double t = ((cx - ax) * ux + (cy - ay) * uy) / (ux * ux + uy * uy);
  t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  const double dx = ax + t * ux - cx, dy = ay + t * uy - cy;
  const double reach = h * (0.7072 + 0.01);
  return dx * dx + dy * dy <= reach * reach;
}

/* The columns [*from, *to] of row r (within [c0, c1]) that edge e may
 * pass near: where the edge is while its y is within a cell of the row's
 * band, widened by two cells; a superset of edge_near_cell's yes (a cell
 * it says yes to has its centre within 0.72 cells of a point of the edge),
 * so the walk along a long edge costs its length in cells, not its box. */
static int edge_columns(const crowdsteer_obstacles *o, size_t e, uint32_t r, uint32_t c0,
                        uint32_t c1, uint32_t *from, uint32_t *to) {
  const size_t f = o->next[e];
  const double h = o->cell_size;
  const double ax = o->x[e], ay = o->y[e], ux = (double)o->x[f] - ax,
               uy = (double)o->y[f] - ay;
  double t0 = 0.0, t1 = 1.0;
  if (uy != 0.0) {
    const double low = o->min_y + ((double)r - 1.0) * h, high = low + 3.0 * h;
    t0 = (low - ay) / uy, t1 = (high - ay) / uy;
    if (t0 > t1) {
      const double t = t0;
      t0 = t1, t1 = t;
    }
    t0 = t0 < 0.0 ? 0.0 : t0;
    t1 = t1 > 1.0 ? 1.0 : t1;
    if (!(t0 <= t1)) return 0;
  }
  const double xa = ax + t0 * ux, xb = ax + t1 * ux;
  const double lo = (xa < xb ? xa : xb) - 2.0 * h - o->min_x;
  const double hi = (xa < xb ? xb : xa) + 2.0 * h - o->min_x;
  const double first = floor(lo / h), last = floor(hi / h);
  if (!(last >= (double)c0) || !(first <= (double)c1)) return 0;
  *from = first > (double)c0 ? (uint32_t)first : c0;
  *to = last < (double)c1 ? (uint32_t)last : c1;
  return 1;
}

/* Runs body for every cell (c, r) edge e is filed in. */
#define FOR_EDGE_CELLS(o, e, c, r, body)                                                 \
  do {                                                                                   \
    const size_t f_ = (o)->next[e];                                                      \
    const uint32_t c0_ = cs_obstacle_column(o, fminf((o)->x[e], (o)->x[f_]));            \
    const uint32_t c1_ = cs_obstacle_column(o, fmaxf((o)->x[e], (o)->x[f_]));            \
    const uint32_t r0_ = cs_obstacle_row(o, fminf((o)->y[e], (o)->y[f_]));               \
    const uint32_t r1_ = cs_obstacle_row(o, fmaxf((o)->y[e], (o)->y[f_]));               \
    for (uint32_t r = r0_; r <= r1_; r++) {                                              \
      uint32_t from_, to_;                                                               \
      if (!edge_columns(o, e, r, c0_, c1_, &from_, &to_)) continue;                      \
      for (uint32_t c = from_; c <= to_; c++)                                            \
        if (edge_near_cell(o, e, c, r)) body                                             \
    }                                                                                    \
  } while (0)

static size_t edges_in_cells(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                             uint32_t c0, uint32_t r0, uint32_t c1, uint32_t r1);
static void edge_ends(const crowdsteer_obstacles *o, uint32_t e, float a[2], float b[2]);

/* Per-loop flags of the inside test. */
enum { ODD = 1, ON_BOUNDARY = 2, LISTED = 4 };

/* Whether the ray from p towards +x crosses edge e (a, b its ends, side
 * the exact orientation of p): half-open in y, so the ray meets a vertex
 * on one of its two edges only. */
static int ray_crosses(const float a[2], const float b[2], const float p[2], int side) {
  const int up = a[1] <= p[1] && b[1] > p[1];
  const int down = b[1] <= p[1] && a[1] > p[1];
  return (up && side > 0) || (down && side < 0);
}

static int ray_crosses_edge(const crowdsteer_obstacles *o, uint32_t e, const float p[2]) {
  float a[2], b[2];
  edge_ends(o, e, a, b);
  return ray_crosses(a, b, p, cs_orient(a, b, p));
}

/* Row r's cells without edges get their centre's state (see obstacles.h),
 * walking from the right: the first centre's rays are counted as
 * cs_obstacle_inside counts them (every edge to its right in the row),
 * each next centre's by the edges whose crossing lies between it and the
 * last centre (filed in the cells between them, each visited once). A
 * centre no edge comes near is on no edge, so the parities of the closed
 * loops are all there is; while exactly one is odd, the XOR of the odd
 * loops' numbers (plus one) names it. */
static void classify_row(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                         uint32_t r) {
  const float y = (float)(o->min_y + ((double)r + 0.5) * o->cell_size);
  uint32_t *state = o->cell_state + (size_t)r * o->columns;
  const int row_ok = cs_obstacle_row(o, y) == r;
  float last[2] = {0.0f, y};
  uint32_t scanned_to = o->columns - 1; /* cells right of here are accounted for */
  int have_last = 0;
  size_t odd = 0, touched = 0;
  uint32_t odd_names = 0;
  for (uint32_t c = o->columns; c-- > 0;) {
    const size_t cell = (size_t)r * o->columns + c;
    state[c] = CS_CELL_UNKNOWN;
    if (o->cell_first[cell] != o->cell_first[cell + 1] || !row_ok) continue;
    const float p[2] = {(float)(o->min_x + ((double)c + 0.5) * o->cell_size), y};
    if (cs_obstacle_column(o, p[0]) != c) continue; /* rounding left the cell */
    const size_t found = edges_in_cells(o, s, c, r, scanned_to, r);
    for (size_t k = 0; k < found; k++) {
      const uint32_t e = s->found[k], loop = o->loop[e];
      if (!o->loop_closed[loop]) continue;
      if (ray_crosses_edge(o, e, p) == (have_last && ray_crosses_edge(o, e, last)))
        continue;
      if (!(s->parity[loop] & LISTED)) { /* listed once, reset at the end */
        s->parity[loop] = LISTED;
        s->touched[touched++] = loop;
      }
      s->parity[loop] ^= ODD;
      odd += s->parity[loop] & ODD ? 1 : (size_t)-1;
      odd_names ^= loop + 1;
    }
    state[c] = odd == 0 ? CS_CELL_OUTSIDE : odd == 1 ? odd_names : CS_CELL_UNKNOWN;
    last[0] = p[0];
    have_last = 1;
    scanned_to = c;
  }
  for (size_t k = 0; k < touched; k++)
    s->parity[s->touched[k]] = 0;
}

/* The cell states of the whole grid; 0 when out of memory. */
static int classify_cells(crowdsteer_obstacles *o, size_t cells) {
  size_t capacity = o->state_capacity;
  if (!reserve((void **)&o->cell_state, &capacity, cells, sizeof(uint32_t))) return 0;
  o->state_capacity = capacity;
  capacity = o->scratch_capacity;
  if (!reserve(&o->build_scratch, &capacity, cs_obstacle_scratch_bytes(o), 1)) return 0;
  o->scratch_capacity = capacity;
  cs_obstacle_scratch s;
  cs_obstacle_scratch_init(&s, o, o->build_scratch);
  for (uint32_t r = 0; r < o->rows; r++)
    classify_row(o, &s, r);
  return 1;
}

crowdsteer_status crowdsteer_obstacles_build(crowdsteer_obstacles *o, float cell_size) {
  if (!o) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!(cell_size >= 0.0f) || !isfinite(cell_size)) return CROWDSTEER_ERROR_PARAMETER;
  const cs_fpenv host = cs_fpenv_enter();
  o->built = 0;
  const size_t n = o->vertex_count;
  float lo[2] = {0.0f, 0.0f}, hi[2] = {0.0f, 0.0f};
  if (n) {
    lo[0] = hi[0] = o->x[0];
    lo[1] = hi[1] = o->y[0];
  }
  for (size_t k = 1; k < n; k++) {
    lo[0] = fminf(lo[0], o->x[k]), hi[0] = fmaxf(hi[0], o->x[k]);
    lo[1] = fminf(lo[1], o->y[k]), hi[1] = fmaxf(hi[1], o->y[k]);
  }
  const double width = (double)hi[0] - lo[0], height = (double)hi[1] - lo[1];
  const double longest = width > height ? width : height;
  double h = cell_size;
  if (h == 0.0 && n) {
    /* About 16 cells an edge over the box (thin ones too): cells about a
     * quarter of the edges' spacing, so that most points of open floor lie
     * in cells no edge comes near, whose inside status the build records
     * (the evacuation's step 1.3x faster than with one edge a cell). */
    h = sqrt(width * height / (double)n) / 4.0;
    if (h < longest / (16.0 * (double)n)) h = longest / (16.0 * (double)n);
  } else if (h == 0.0) {
    h = 1.0;
  }
  if (!(h > 0.0)) h = longest > 0.0 ? longest / (double)(n ? n : 1) : 1.0;
  /* At most MAX_CELLS cells, and CELLS_PER_EDGE an edge (MIN_CELLS at
   * least): coarser cells where the box needs it. More would be empty, and
   * each long edge is filed in every cell it crosses (a wall 3.4e16 long
   * in cells of 5 made 3.2 million entries: a fuzz timeout). */
  const double most = (double)n * CELLS_PER_EDGE > MAX_CELLS ? (double)MAX_CELLS
                      : (double)n * CELLS_PER_EDGE < MIN_CELLS
                          ? (double)MIN_CELLS
                          : (double)n * CELLS_PER_EDGE;
  while ((floor(width / h) + 1.0) * (floor(height / h) + 1.0) > most)
    h *= 2.0;
  o->min_x = lo[0], o->min_y = lo[1], o->max_x = hi[0], o->max_y = hi[1];
  o->cell_size = h;
  o->columns = (uint32_t)floor(width / h) + 1u;
  o->rows = (uint32_t)floor(height / h) + 1u;
  const size_t cells = (size_t)o->columns * o->rows;
  size_t capacity = o->cell_capacity;
  if (!reserve((void **)&o->cell_first, &capacity, cells + 1, sizeof(uint32_t)))
    return cs_fpenv_return(host, CROWDSTEER_ERROR_OUT_OF_MEMORY);
  o->cell_capacity = capacity;
  memset(o->cell_first, 0, (cells + 1) * sizeof(uint32_t));
  size_t entries = 0;
  for (size_t e = 0; e < n; e++)
    FOR_EDGE_CELLS(o, e, c, r, {
      o->cell_first[(size_t)r * o->columns + c + 1]++;
      entries++;
    });
  if (entries > UINT32_MAX) return cs_fpenv_return(host, CROWDSTEER_ERROR_OUT_OF_MEMORY);
  capacity = o->entry_capacity;
  if (!reserve((void **)&o->cell_edge, &capacity, entries ? entries : 1,
               sizeof(uint32_t)))
    return cs_fpenv_return(host, CROWDSTEER_ERROR_OUT_OF_MEMORY);
  o->entry_capacity = capacity;
  for (size_t c = 0; c < cells; c++)
    o->cell_first[c + 1] += o->cell_first[c];
  /* Fill in edge order through per-cell cursors kept in cell_first[c]
   * (shifted back afterwards): each cell lists its edges by index. */
  for (size_t e = 0; e < n; e++)
    FOR_EDGE_CELLS(o, e, c, r, {
      o->cell_edge[o->cell_first[(size_t)r * o->columns + c]++] = (uint32_t)e;
    });
  for (size_t c = cells; c > 0; c--)
    o->cell_first[c] = o->cell_first[c - 1];
  o->cell_first[0] = 0;
  if (!classify_cells(o, cells))
    return cs_fpenv_return(host, CROWDSTEER_ERROR_OUT_OF_MEMORY);
  o->built = 1;
  return cs_fpenv_return(host, CROWDSTEER_OK);
}

size_t crowdsteer_obstacles_bytes(const crowdsteer_obstacles *o) {
  if (!o) return 0;
  return sizeof *o + o->vertex_capacity * (4 * sizeof(float) + 3 * sizeof(uint32_t) + 1) +
         o->loop_capacity * (sizeof(uint32_t) + 1) + o->cell_capacity * sizeof(uint32_t) +
         o->entry_capacity * sizeof(uint32_t) + o->state_capacity * sizeof(uint32_t) +
         o->scratch_capacity;
}

size_t crowdsteer_obstacles_edge_count(const crowdsteer_obstacles *o) {
  return o ? o->vertex_count : 0;
}

/* ---- queries ------------------------------------------------------------------ */

size_t cs_obstacle_scratch_bytes(const crowdsteer_obstacles *o) {
  return (2 * o->vertex_count + o->loop_count) * sizeof(uint32_t) + o->loop_count + 4;
}

void cs_obstacle_scratch_init(cs_obstacle_scratch *s, const crowdsteer_obstacles *o,
                              void *memory) {
  uint32_t *words = memory;
  s->mark = words;
  s->found = words + o->vertex_count;
  s->touched = words + 2 * o->vertex_count;
  s->parity = (uint8_t *)(words + 2 * o->vertex_count + o->loop_count);
  memset(s->mark, 0, o->vertex_count * sizeof(uint32_t));
  memset(s->parity, 0, o->loop_count);
  s->stamp = 0;
}

/* A fresh stamp, clearing the marks when the counter wraps. */
static uint32_t next_stamp(const crowdsteer_obstacles *o, cs_obstacle_scratch *s) {
  if (++s->stamp == 0) {
    memset(s->mark, 0, o->vertex_count * sizeof(uint32_t));
    s->stamp = 1;
  }
  return s->stamp;
}

static size_t edges_in_cells(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                             uint32_t c0, uint32_t r0, uint32_t c1, uint32_t r1) {
  const uint32_t stamp = next_stamp(o, s);
  size_t found = 0;
  for (uint32_t r = r0; r <= r1; r++)
    for (uint32_t c = c0; c <= c1; c++) {
      const size_t cell = (size_t)r * o->columns + c;
      for (uint32_t k = o->cell_first[cell]; k < o->cell_first[cell + 1]; k++) {
        const uint32_t e = o->cell_edge[k];
        if (s->mark[e] == stamp) continue;
        s->mark[e] = stamp;
        s->found[found++] = e;
      }
    }
  return found;
}

size_t cs_obstacle_edges_near(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                              float x0, float y0, float x1, float y1) {
  if (!o->vertex_count || x1 < o->min_x || x0 > o->max_x || y1 < o->min_y ||
      y0 > o->max_y)
    return 0;
  return edges_in_cells(o, s, cs_obstacle_column(o, x0), cs_obstacle_row(o, y0),
                        cs_obstacle_column(o, x1), cs_obstacle_row(o, y1));
}

static void edge_ends(const crowdsteer_obstacles *o, uint32_t e, float a[2], float b[2]) {
  const uint32_t f = o->next[e];
  a[0] = o->x[e], a[1] = o->y[e];
  b[0] = o->x[f], b[1] = o->y[f];
}

int cs_obstacle_inside(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                       const float p[2]) {
  if (!isfinite(p[0]) || !isfinite(p[1])) return 0;
  if (!o->vertex_count || p[0] > o->max_x || p[1] < o->min_y || p[1] > o->max_y) return 0;
  const uint32_t row = cs_obstacle_row(o, p[1]), column = cs_obstacle_column(o, p[0]);
  const uint32_t *state = o->cell_state + (size_t)row * o->columns;
  if (p[0] >= o->min_x && state[column] != CS_CELL_UNKNOWN) /* no edge comes near */
    return state[column] != CS_CELL_OUTSIDE;
  /* The ray from p towards +x, as far as q in the first cell of known state
   * to the right (its status is q's), or to the row's end: the edges that
   * cross one ray but not the other are filed in the cells between. */
  uint32_t known = column + 1;
  while (known < o->columns && state[known] == CS_CELL_UNKNOWN)
    known++;
  const int to_q = known < o->columns;
  const float q[2] = {
      to_q ? (float)(o->min_x + ((double)known + 0.5) * o->cell_size) : 0.0f, p[1]};
  size_t touched = 0;
  if (to_q && state[known] != CS_CELL_OUTSIDE) { /* q is inside one loop */
    const uint32_t loop = state[known] - 1;
    s->parity[loop] = LISTED | ODD;
    s->touched[touched++] = loop;
  }
  const size_t found =
      edges_in_cells(o, s, column, row, to_q ? known : o->columns - 1, row);
  for (size_t k = 0; k < found; k++) {
    const uint32_t e = s->found[k], loop = o->loop[e];
    if (!o->loop_closed[loop]) continue;
    if (!(s->parity[loop] & LISTED)) {
      s->parity[loop] = LISTED;
      s->touched[touched++] = loop;
    }
    if (s->parity[loop] & ON_BOUNDARY) continue;
    float a[2], b[2];
    edge_ends(o, e, a, b);
    const int side = cs_orient(a, b, p);
    if (side == 0 && cs_dot_sign(p, a, p, b) <= 0) {
      s->parity[loop] |= ON_BOUNDARY; /* on an edge: outside that loop */
      continue;
    }
    if (ray_crosses(a, b, p, side) != (to_q && ray_crosses(a, b, q, cs_orient(a, b, q))))
      s->parity[loop] ^= ODD;
  }
  int inside = 0;
  for (size_t k = 0; k < touched; k++) {
    const uint32_t loop = s->touched[k];
    inside |= (s->parity[loop] & (ODD | ON_BOUNDARY)) == ODD;
    s->parity[loop] = 0;
  }
  return inside;
}

uint32_t cs_obstacle_first_crossed(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                                   const float p[2], const float q[2]) {
  const size_t found = cs_obstacle_edges_near(o, s, fminf(p[0], q[0]), fminf(p[1], q[1]),
                                              fmaxf(p[0], q[0]), fmaxf(p[1], q[1]));
  uint32_t first = UINT32_MAX;
  for (size_t k = 0; k < found; k++) {
    const uint32_t e = s->found[k];
    if (e >= first) continue;
    float a[2], b[2];
    edge_ends(o, e, a, b);
    const int from_left = cs_orient(a, b, p) > 0, to_left = cs_orient(a, b, q) > 0;
    if (from_left != to_left && cs_segments_touch(p, q, a, b)) first = e;
  }
  return first;
}

int cs_obstacle_move_blocked(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                             const float p[2], const float q[2]) {
  return cs_obstacle_first_crossed(o, s, p, q) != UINT32_MAX;
}

crowdsteer_status crowdsteer_obstacles_inside(const crowdsteer_obstacles *o, float x,
                                              float y, int *inside) {
  if (!o || !inside) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!o->built) return CROWDSTEER_ERROR_GRID;
  const size_t bytes = cs_obstacle_scratch_bytes(o);
  void *memory = malloc(bytes);
  if (!memory) return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  const cs_fpenv host = cs_fpenv_enter();
  cs_obstacle_scratch s;
  cs_obstacle_scratch_init(&s, o, memory);
  const float p[2] = {x, y};
  *inside = cs_obstacle_inside(o, &s, p);
  free(memory);
  return cs_fpenv_return(host, CROWDSTEER_OK);
}
