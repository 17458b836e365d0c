/* examples/scenarios.c: the crowds are what scenarios.h defines. circle(N)
 * places N agents no two closer than two radii, sphere(N) N distinct agents
 * (a few closer than two radii, as in the example), each going to its
 * antipode (-start, bit for bit), and at the reference examples' sizes
 * (250, 812) they give their agents bit for bit; dense keeps two radii
 * between starts and its goals are the starts permuted; blocks' and
 * roadmap's fixed parts, the visibility test and the preferred-velocity
 * rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../examples/scenarios.h"
#include "../common/check.h"

#define TWO_PI_F 6.28318530717958647692F

/* Smallest distance between two of the n points (dims 2 or 3), by pairs. */
static double min_spacing(const float *p, size_t n, int dims) {
  double best = INFINITY;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double d2 = 0.0;
      for (int k = 0; k < dims; k++) {
        const double d = (double)p[dims * j + k] - (double)p[dims * i + k];
        d2 += d * d;
      }
      if (d2 < best) best = d2;
    }
  return sqrt(best);
}

static void check_antipodes(const scn_scenario *s) {
  for (size_t i = 0; i < s->n * (size_t)s->dims; i++)
    CHECK_MSG(same_bits(s->goal[i], -s->start[i]), "%s coordinate %zu", s->name, i);
}

static void test_circle(void) {
  static const size_t sizes[] = {1, 7, 250, 251, 1000, 1234, 3000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    scn_scenario s;
    CHECK(scn_circle(&s, sizes[k]) == 0);
    CHECK(s.n == sizes[k] && s.dims == 2 && s.num_obstacles == 0);
    check_antipodes(&s);
    if (s.n > 1) CHECK_MSG(min_spacing(s.start, s.n, 2) >= 3.0, "circle(%zu)", s.n);
    /* The outer ring's radius is 200 sqrt(N / 250). */
    CHECK_NEAR(hypot(s.start[0], s.start[1]), 200.0 * sqrt((double)s.n / 250.0), 1e-3);
    CHECK(!scn_reached(&s, s.start) && scn_reached(&s, s.goal));
    scn_free(&s);
  }
  /* The Circle example's agents, as it computes them. */
  scn_scenario s;
  CHECK(scn_circle(&s, 250) == 0);
  for (size_t i = 0; i < 250; i++) {
    const float a = (float)i * TWO_PI_F * 0.004F;
    CHECK_MSG(same_bits(s.start[2 * i], 200.0F * cosf(a)) &&
                  same_bits(s.start[2 * i + 1], 200.0F * sinf(a)),
              "agent %zu", i);
  }
  CHECK(s.agent.radius == 1.5F && s.agent.max_speed == 2.0F && s.time_step == 0.25F &&
        s.agent.neighbor_dist == 15.0F && s.agent.max_neighbors == 10 &&
        s.agent.time_horizon == 10.0F && s.agent.time_horizon_obst == 10.0F);
  /* Preferred velocity: towards the goal, at most length 1. */
  float *pref = malloc(2 * s.n * sizeof(float));
  scn_pref_velocities(&s, s.start, pref);
  for (size_t i = 0; i < s.n; i++) {
    const double len = hypot(pref[2 * i], pref[2 * i + 1]);
    CHECK_NEAR(len, 1.0, 1e-6);
    CHECK(pref[2 * i] * s.start[2 * i] + pref[2 * i + 1] * s.start[2 * i + 1] < 0.0F);
  }
  scn_pref_velocities(&s, s.goal, pref);
  for (size_t i = 0; i < 2 * s.n; i++)
    CHECK(pref[i] == 0.0F);
  free(pref);
  scn_free(&s);
}

static void test_sphere(void) {
  scn_scenario s;
  /* The Sphere example's agents, as it computes them. */
  CHECK(scn_sphere(&s, 812) == 0);
  size_t a = 0;
  for (size_t i = 0; i < 5.0F * TWO_PI_F; ++i) {
    const float z = 100.0F * cosf((float)i / 10.0F);
    const float r = 100.0F * sinf((float)i / 10.0F);
    for (size_t j = 0; (float)j < r / 2.5F; ++j, ++a) {
      const float x = r * cosf((float)j * TWO_PI_F / (r / 2.5F));
      const float y = r * sinf((float)j * TWO_PI_F / (r / 2.5F));
      CHECK_MSG(a < s.n && same_bits(s.start[3 * a], x) &&
                    same_bits(s.start[3 * a + 1], y) && same_bits(s.start[3 * a + 2], z),
                "agent %zu", a);
    }
  }
  CHECK(a == 812 && s.n == 812 && s.dims == 3 && s.time_step == 0.125F);
  check_antipodes(&s);
  CHECK(min_spacing(s.start, s.n, 3) > 0.25); /* the example's closest: 0.29 */
  scn_free(&s);
  static const size_t sizes[] = {1, 100, 1000, 2500};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    CHECK(scn_sphere(&s, sizes[k]) == 0);
    CHECK(s.n == sizes[k]);
    check_antipodes(&s);
    if (s.n > 1) CHECK_MSG(min_spacing(s.start, s.n, 3) > 0.0, "sphere(%zu)", s.n);
    scn_free(&s);
  }
}

static int cmp_xy(const void *a, const void *b) {
  const float *p = a, *q = b;
  if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
  if (p[1] != q[1]) return p[1] < q[1] ? -1 : 1;
  return 0;
}

static void test_dense(void) {
  scn_scenario s, t;
  CHECK(scn_dense(&s, 1000, 7) == 0 && s.n == 1000);
  CHECK(min_spacing(s.start, s.n, 2) >= 3.0);
  const float half = 0.5F * sqrtf(10000.0F);
  for (size_t i = 0; i < 2 * s.n; i++)
    CHECK(s.start[i] >= -half && s.start[i] <= half);
  /* Goals: the starts permuted (as sets of points, the same). */
  float *a = malloc(2 * s.n * sizeof(float)), *b = malloc(2 * s.n * sizeof(float));
  memcpy(a, s.start, 2 * s.n * sizeof(float));
  memcpy(b, s.goal, 2 * s.n * sizeof(float));
  qsort(a, s.n, 2 * sizeof(float), cmp_xy);
  qsort(b, s.n, 2 * sizeof(float), cmp_xy);
  CHECK(memcmp(a, b, 2 * s.n * sizeof(float)) == 0);
  CHECK(memcmp(s.start, s.goal, 2 * s.n * sizeof(float)) != 0);
  free(a);
  free(b);
  /* Same seed, same crowd; another seed, another. */
  CHECK(scn_dense(&t, 1000, 7) == 0);
  CHECK(memcmp(s.start, t.start, 2 * s.n * sizeof(float)) == 0 &&
        memcmp(s.goal, t.goal, 2 * s.n * sizeof(float)) == 0);
  scn_free(&t);
  CHECK(scn_dense(&t, 1000, 8) == 0);
  CHECK(memcmp(s.start, t.start, 2 * s.n * sizeof(float)) != 0);
  scn_free(&t);
  scn_free(&s);
}

static void test_blocks_roadmap(void) {
  scn_scenario s, t;
  CHECK(scn_blocks(&s, 1) == 0);
  CHECK(s.n == 100 && s.num_obstacles == 4 && s.obstacle_first[4] == 16);
  CHECK(s.start[0] == 55.0F && s.start[1] == 55.0F && s.goal[0] == -75.0F);
  CHECK(s.start[2 * 99] == -95.0F && s.start[2 * 99 + 1] == -95.0F &&
        s.goal[2 * 99] == 75.0F);
  /* Visibility: along the corridor between the blocks, past them, not
   * through one; at distance exactly 2 from an edge, visible. */
  const float w[2] = {-75, 0}, e[2] = {75, 0}, n[2] = {-25, 75}, sth[2] = {-25, -75};
  const float p[2] = {-42, -42}, q[2] = {-8, -42}, sw[2] = {-75, -75}, nw[2] = {-75, 75};
  CHECK(scn_visible(&s, w, e, 2.0F) && scn_visible(&s, sw, nw, 2.0F));
  CHECK(!scn_visible(&s, n, sth, 0.0F) && !scn_visible(&s, n, sth, 2.0F));
  CHECK(scn_visible(&s, p, q, 2.0F) && !scn_visible(&s, p, q, 2.01F));
  /* The perturbation: the same seed, the same preferred velocities, close to
   * the unperturbed rule's (within 1e-4); another seed, others. */
  CHECK(scn_blocks(&t, 1) == 0);
  float *v1 = malloc(200 * sizeof(float)), *v2 = malloc(200 * sizeof(float));
  scn_pref_velocities(&s, s.start, v1);
  scn_pref_velocities(&t, t.start, v2);
  CHECK(memcmp(v1, v2, 200 * sizeof(float)) == 0);
  for (size_t i = 0; i < 100; i++)
    CHECK_NEAR(hypot(v1[2 * i], v1[2 * i + 1]), 1.0, 1.01e-4);
  scn_pref_velocities(&t, t.start, v2); /* the next draws */
  CHECK(memcmp(v1, v2, 200 * sizeof(float)) != 0);
  scn_free(&t);
  scn_free(&s);

  CHECK(scn_roadmap(&s, 1) == 0);
  CHECK(s.n == 100 && s.num_vertices == 20 && s.rule == SCN_ROADMAP_PERTURBED);
  size_t edges = 0;
  for (size_t i = 0; i < 400; i++)
    edges += s.edge[i];
  CHECK(edges == 183);
  CHECK(s.edge[4 * 20 + 5] && !s.edge[5 * 20 + 4]); /* not symmetric */
  for (size_t v = 0; v < 20; v++)
    for (size_t g = 0; g < 4; g++)
      CHECK(isfinite(s.dist[v * 4 + g]));
  for (size_t g = 0; g < 4; g++)
    CHECK(s.dist[g * 4 + g] == 0.0F);
  CHECK(s.dist[1 * 4 + 0] == 150.0F); /* (75,-75) straight to (-75,-75) */
  /* Agent 0 at (55, 55) goes to vertex 0 (-75, -75): not straight through
   * the blocks; its first step heads along a roadmap edge, length 1 (+-1e-4). */
  float *v = malloc(200 * sizeof(float));
  scn_pref_velocities(&s, s.start, v);
  CHECK_NEAR(hypot(v[0], v[1]), 1.0, 1.01e-4);
  for (size_t i = 0; i < 100; i++)
    CHECK(s.goal_vertex[i] == i % 4);
  CHECK(!scn_reached(&s, s.start));
  free(v);
  free(v1);
  free(v2);
  scn_free(&s);
  CHECK(scn_make(&s, "nothing", 10, 1) == -1);
}

int main(void) {
  test_circle();
  test_sphere();
  test_dense();
  test_blocks_roadmap();
  return check_report("test_scenarios");
}
