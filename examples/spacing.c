/* Nearest-neighbour distances and close pairs of a crowd, exactly, with a
 * dense grid over the crowd's bounding box (about one agent per cell) and a
 * search in growing shells of cells around each agent: after shell k every
 * agent not yet seen is at least k cell widths away, so the search stops as
 * soon as the nearest distance found and the spacing are both within that. */
#include "spacing.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct spacing_grid {
  int dims;
  size_t count;
  double min[3], cell;
  long side[3];       /* cells per axis (1 on unused axes) */
  size_t *cell_start; /* cells + 1 */
  double *sorted[3];  /* positions in cell order */
  size_t *order;      /* the agent (0 .. count-1) at each sorted place */
} spacing_grid;

static double coordinate(const crowdsteer_agents *a, int axis, size_t i) {
  const float *p = axis == 0 ? a->px : axis == 1 ? a->py : a->pz;
  return p[i];
}

static long cell_on_axis(const spacing_grid *g, int axis, double x) {
  long c = (long)floor((x - g->min[axis]) / g->cell);
  return c < 0 ? 0 : c >= g->side[axis] ? g->side[axis] - 1 : c;
}

static size_t cell_index(const spacing_grid *g, const long c[3]) {
  return ((size_t)c[2] * (size_t)g->side[1] + (size_t)c[1]) * (size_t)g->side[0] +
         (size_t)c[0];
}

/* Cell width for about one agent per cell over the bounding box. */
static void size_grid(spacing_grid *g, const double max[3]) {
  double volume = 1.0;
  for (int k = 0; k < g->dims; k++)
    volume *= fmax(max[k] - g->min[k], 1e-9);
  g->cell = pow(volume / (double)g->count, 1.0 / g->dims);
  if (!(g->cell > 0.0) || !isfinite(g->cell)) g->cell = 1.0;
  for (;;) { /* a flat crowd would ask for too many cells: widen them */
    double cells = 1.0;
    for (int k = 0; k < 3; k++) {
      g->side[k] = k < g->dims ? (long)((max[k] - g->min[k]) / g->cell) + 1 : 1;
      cells *= (double)g->side[k];
    }
    if (cells <= 4.0 * (double)g->count + 64.0) return;
    g->cell *= 2.0;
  }
}

static int grid_build(spacing_grid *g, const crowdsteer_agents *a, size_t begin,
                      size_t end) {
  double max[3] = {0, 0, 0};
  for (int k = 0; k < g->dims; k++) {
    g->min[k] = max[k] = coordinate(a, k, begin);
    for (size_t i = begin; i < end; i++) {
      double x = coordinate(a, k, i);
      g->min[k] = fmin(g->min[k], x);
      max[k] = fmax(max[k], x);
    }
  }
  size_grid(g, max);
  const size_t cells = (size_t)g->side[0] * (size_t)g->side[1] * (size_t)g->side[2];
  size_t *cell_of = malloc(g->count * sizeof *cell_of);
  g->cell_start = calloc(cells + 1, sizeof *g->cell_start);
  g->order = malloc(g->count * sizeof *g->order);
  for (int k = 0; k < g->dims; k++)
    g->sorted[k] = malloc(g->count * sizeof(double));
  if (!cell_of || !g->cell_start || !g->order || !g->sorted[0] || !g->sorted[1] ||
      (g->dims == 3 && !g->sorted[2])) {
    free(cell_of);
    return -1;
  }
  for (size_t i = 0; i < g->count; i++) {
    long c[3] = {0, 0, 0};
    for (int k = 0; k < g->dims; k++)
      c[k] = cell_on_axis(g, k, coordinate(a, k, begin + i));
    cell_of[i] = cell_index(g, c);
    g->cell_start[cell_of[i] + 1]++;
  }
  for (size_t c = 0; c < cells; c++)
    g->cell_start[c + 1] += g->cell_start[c];
  for (size_t i = 0; i < g->count; i++) { /* stable: cell_start[c] is the cursor */
    size_t place = g->cell_start[cell_of[i]]++;
    g->order[place] = i;
    for (int k = 0; k < g->dims; k++)
      g->sorted[k][place] = coordinate(a, k, begin + i);
  }
  for (size_t c = cells; c > 0; c--)
    g->cell_start[c] = g->cell_start[c - 1];
  g->cell_start[0] = 0;
  free(cell_of);
  return 0;
}

static void grid_free(spacing_grid *g) {
  free(g->cell_start);
  free(g->order);
  for (int k = 0; k < 3; k++)
    free(g->sorted[k]);
}

typedef struct search {
  size_t self;
  double at[3];
  double nearest;
  double spacing, spacing2;
  size_t close, close2; /* partners closer than each spacing with a higher index */
} search;

static void visit_cell(const spacing_grid *g, const long c[3], search *s) {
  size_t cell = cell_index(g, c);
  for (size_t k = g->cell_start[cell]; k < g->cell_start[cell + 1]; k++) {
    if (g->order[k] == s->self) continue;
    double d2 = 0.0;
    for (int axis = 0; axis < g->dims; axis++) {
      double d = g->sorted[axis][k] - s->at[axis];
      d2 += d * d;
    }
    double d = sqrt(d2);
    if (d < s->nearest) s->nearest = d;
    s->close += d < s->spacing && g->order[k] > s->self;
    s->close2 += d < s->spacing2 && g->order[k] > s->self;
  }
}

/* Visits the cells at Chebyshev distance exactly `shell` from `home`;
 * returns 0 when none of them is inside the grid (nothing farther is). */
static int visit_shell(const spacing_grid *g, const long home[3], long shell, search *s) {
  int inside = 0;
  const long reach_z = g->dims == 3 ? shell : 0;
  for (long dz = -reach_z; dz <= reach_z; dz++)
    for (long dy = -shell; dy <= shell; dy++)
      for (long dx = -shell; dx <= shell; dx++) {
        long ax = labs(dx), ay = labs(dy), az = labs(dz);
        if ((ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az)) != shell) continue;
        long c[3] = {home[0] + dx, home[1] + dy, home[2] + dz};
        if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= g->side[0] ||
            c[1] >= g->side[1] || c[2] >= g->side[2])
          continue;
        inside = 1;
        visit_cell(g, c, s);
      }
  return inside;
}

int spacing_measure(const crowdsteer_agents *agents, size_t begin, size_t end,
                    double spacing, spacing_figures *out) {
  return spacing_measure2(agents, begin, end, spacing, 0.0, out);
}

int spacing_measure2(const crowdsteer_agents *agents, size_t begin, size_t end,
                     double spacing, double spacing2, spacing_figures *out) {
  if (end < begin + 2) return -1;
  spacing_grid g = {.dims = agents->dims, .count = end - begin};
  if (grid_build(&g, agents, begin, end) != 0) {
    grid_free(&g);
    return -1;
  }
  double sum = 0.0, smallest = INFINITY;
  size_t close = 0, close2 = 0;
  const double reach_needed = fmax(spacing, spacing2);
  for (size_t place = 0; place < g.count; place++) {
    search s = {.self = g.order[place],
                .nearest = INFINITY,
                .spacing = spacing,
                .spacing2 = spacing2};
    long home[3] = {0, 0, 0};
    for (int k = 0; k < g.dims; k++) {
      s.at[k] = g.sorted[k][place];
      home[k] = cell_on_axis(&g, k, s.at[k]);
    }
    /* Cells are found with the same rounding as they were filled, so the
     * bound only needs a hair of slack. */
    for (long shell = 0;; shell++) {
      if (!visit_shell(&g, home, shell, &s)) break;
      double reach = (double)shell * g.cell * (1.0 - 1e-9);
      if (s.nearest <= reach && reach_needed <= reach) break;
    }
    sum += s.nearest;
    smallest = fmin(smallest, s.nearest);
    close += s.close;
    close2 += s.close2;
  }
  grid_free(&g);
  *out = (spacing_figures){sum / (double)g.count, smallest, close, close2};
  return 0;
}
