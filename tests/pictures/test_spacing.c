/* The demo's spacing figures (examples/spacing.c): nearest-neighbour mean and
 * minimum and the pairs closer than a spacing, found with a grid, equal what
 * testing every pair gives, for uniform, clustered, flat and coincident
 * crowds in 2D and 3D. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../common/check.h"
#include "spacing.h"

static uint64_t state = 0x9E3779B97F4A7C15ull;

static float uniform(float lo, float hi) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * (float)(state >> 40) * (1.0f / 16777216.0f);
}

/* Every pair, in double, as spacing.c measures. */
static spacing_figures brute_force(float *const p[3], int dims, size_t n,
                                   double spacing) {
  spacing_figures f = {0.0, INFINITY, 0, 0};
  for (size_t i = 0; i < n; i++) {
    double nearest = INFINITY;
    for (size_t j = 0; j < n; j++) {
      if (j == i) continue;
      double d2 = 0.0;
      for (int k = 0; k < dims; k++) {
        double d = (double)p[k][j] - (double)p[k][i];
        d2 += d * d;
      }
      double d = sqrt(d2);
      nearest = fmin(nearest, d);
      f.close_pairs += j > i && d < spacing;
    }
    f.mean_nearest += nearest;
    f.min_nearest = fmin(f.min_nearest, nearest);
  }
  f.mean_nearest /= (double)n;
  return f;
}

/* Layouts: 0 uniform, 1 half the crowd in a tiny cluster, 2 flat (one
 * coordinate constant), 3 with coincident pairs. */
static void make_crowd(float *const p[3], size_t n, int layout) {
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      float x = uniform(-50.0f, 50.0f);
      if (layout == 1 && i % 2) x = 3.0f + x * 1e-3f;
      if (layout == 2 && k == 1) x = 7.0f;
      p[k][i] = x;
    }
  if (layout == 3)
    for (size_t i = 1; i < n; i += 5)
      for (int k = 0; k < 3; k++)
        p[k][i] = p[k][i - 1];
}

int main(void) {
  enum { MAX_N = 1500 };
  static float x[MAX_N], y[MAX_N], z[MAX_N];
  float *const p[3] = {x, y, z};
  for (int dims = 2; dims <= 3; dims++)
    for (int layout = 0; layout < 4; layout++)
      for (size_t n = 2; n <= MAX_N; n = n * 3 + 1) {
        make_crowd(p, n, layout);
        crowdsteer_agents agents = {
            .count = n, .dims = dims, .px = x, .py = y, .pz = dims == 3 ? z : NULL};
        const double spacing = 2.5;
        spacing_figures got, want = brute_force(p, dims, n, spacing);
        CHECK(spacing_measure(&agents, 0, n, spacing, &got) == 0);
        CHECK_MSG(fabs(got.mean_nearest - want.mean_nearest) <= 1e-12 * want.mean_nearest,
                  "dims %d layout %d n %zu: mean %.17g, every pair %.17g", dims, layout,
                  n, got.mean_nearest, want.mean_nearest);
        CHECK_MSG(
            got.min_nearest == want.min_nearest && got.close_pairs == want.close_pairs,
            "dims %d layout %d n %zu: min %g / %g, close pairs %zu / %zu", dims, layout,
            n, got.min_nearest, want.min_nearest, got.close_pairs, want.close_pairs);
        /* A second spacing, larger than the first (the demo's bodies), in
         * the same search: its pairs are those of a search with it alone. */
        spacing_figures both, wide = brute_force(p, dims, n, 4.0);
        CHECK(spacing_measure2(&agents, 0, n, spacing, 4.0, &both) == 0);
        CHECK_MSG(both.close_pairs == want.close_pairs &&
                      both.close_pairs2 == wide.close_pairs &&
                      both.min_nearest == want.min_nearest,
                  "dims %d layout %d n %zu: second spacing %zu / %zu", dims, layout, n,
                  both.close_pairs2, wide.close_pairs);
      }
  /* A sub-range is measured on its own; fewer than two agents is an error. */
  crowdsteer_agents agents = {.count = 3, .dims = 2, .px = x, .py = y};
  spacing_figures f;
  x[0] = 0, y[0] = 0, x[1] = 100, y[1] = 0, x[2] = 103, y[2] = 4;
  CHECK(spacing_measure(&agents, 1, 3, 1.0, &f) == 0);
  CHECK(f.mean_nearest == 5.0 && f.min_nearest == 5.0 && f.close_pairs == 0);
  CHECK(spacing_measure(&agents, 2, 3, 1.0, &f) == -1);
  return check_report("test_spacing");
}
