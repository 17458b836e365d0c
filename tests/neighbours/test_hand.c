/* The worked values of docs/behaviours.md ("Neighbours"), through the brute
 * force and through grids, plus the field of view, the nearest-k cap, the
 * group filter, coincident agents and empty neighbourhoods, on every ISA;
 * and the documented rules written out independently (by_the_rules) against
 * the brute force and a grid for random 2D and 3D crowds. */
#include "../common/neighbour_crowd.h"

static crowdsteer_grid *grid;

/* Runs one behaviour for agent `i` without a grid and with grids of two
 * cell sizes; all three must agree, and the result goes to s. */
static void steer_one(int behaviour, crowd *c, crowdsteer_neighbours nb,
                      const crowdsteer_params *params, size_t i, float s[3]) {
  crowdsteer_output out = crowd_output(c);
  float got[3][3];
  const float cells[2] = {0.0f, 4.0f};
  for (int g = -1; g < 2; g++) {
    crowdsteer_neighbours query = nb;
    if (g >= 0) {
      crowdsteer_grid_desc desc = {0};
      desc.cell_size = cells[g] > 0.0f ? cells[g] : nb.radius;
      desc.group = nb.group;
      CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
      query.grid = grid;
      query.group = NULL;
    }
    CHECK_STATUS(nb_call(behaviour, c, &query, params, &out, i, i + 1), CROWDSTEER_OK);
    for (int k = 0; k < 3; k++)
      got[g + 1][k] = k < c->dims ? c->out[k][i] : 0.0f;
  }
  for (int g = 1; g < 3; g++)
    for (int k = 0; k < c->dims; k++)
      CHECK_MSG(same_bits(got[g][k], got[0][k]), "%s agent %zu axis %d: %g vs %g",
                nb_name(behaviour), i, k, got[g][k], got[0][k]);
  memcpy(s, got[0], sizeof got[0]);
}

static void place(crowd *c, size_t i, float x, float y, float vx, float vy) {
  c->a[0][i] = x;
  c->a[1][i] = y;
  c->a[3][i] = vx;
  c->a[4][i] = vy;
}

static void test_worked_values(void) {
  crowd c;
  crowd_init(&c, 5, 2);
  place(&c, 0, 0, 0, 0, 0);
  place(&c, 1, 1, 0, 0, 0);
  place(&c, 2, 0, -0.5f, 0, 0);
  place(&c, 3, 3, 4, 0, 0);
  place(&c, 4, 0, 0, 0, 0);
  crowdsteer_neighbours nb = {0};
  nb.radius = 2.0f;
  crowdsteer_params params = {0};
  params.max_speed = 2.0f;
  float s[3];
  steer_one(NB_SEPARATION, &c, nb, &params, 0, s);
  CHECK(s[0] == -3.0f && s[1] == 1.5f);
  steer_one(NB_SEPARATION, &c, nb, &params, 4, s);
  CHECK(s[0] == 1.0f && s[1] == 1.5f);
  steer_one(NB_SEPARATION, &c, nb, &params, 3, s); /* nobody within 2 */
  CHECK(s[0] == 0.0f && s[1] == 0.0f);
  steer_one(NB_COHESION, &c, nb, &params, 0, s);
  const float len = sqrtf(0.5f * 0.5f + 0.25f * 0.25f);
  CHECK(same_bits(s[0], 0.5f / len * 2.0f) && same_bits(s[1], -0.25f / len * 2.0f));
  CHECK_NEAR(s[0], 1.788854, 1e-6);
  CHECK_NEAR(s[1], -0.894427, 1e-6);
  steer_one(NB_COHESION, &c, nb, &params, 3, s);
  CHECK(s[0] == 0.0f && s[1] == 0.0f);
  crowd_free(&c);

  crowd_init(&c, 4, 2);
  place(&c, 0, 0, 0, 0, 0);
  place(&c, 1, 0.5f, 0, 1, 0);
  place(&c, 2, 0, 0.5f, 0, 2);
  place(&c, 3, -0.5f, 0, 2, 1);
  nb.radius = 1.0f;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] == 1.0f && s[1] == 1.0f);
  params.time_to_target = 0.5f;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] == 2.0f && s[1] == 2.0f);
  params.time_to_target = 0.0f;
  /* Ties to even: three velocities of float(1/3) sum to 16777218 units. */
  for (size_t i = 1; i < 4; i++) {
    c.a[3][i] = 1.0f / 3.0f;
    c.a[4][i] = 0.0f;
  }
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(same_bits(s[0], (16777218.0f * 0x1p-24f) / 3.0f));
  crowd_free(&c);
}

static void test_field_of_view(void) {
  crowd c;
  crowd_init(&c, 5, 2);
  place(&c, 0, 0, 0, 1, 0); /* looks along +x */
  place(&c, 1, 0.5f, 0, 0, 0);
  place(&c, 2, 0, 0.5f, 0, 0);
  place(&c, 3, -0.5f, 0, 0, 0);
  place(&c, 4, 0, 0, 0, 0);
  crowdsteer_neighbours nb = {0};
  nb.radius = 1.0f;
  nb.field_of_view = 1;
  nb.cos_field_of_view = 0.0f;
  crowdsteer_params params = {0};
  float s[3];
  /* Alignment counts them: seen are 1, 2 and 4 (not 3). Give each a unit
   * velocity along its own axis to tell them apart. */
  c.a[3][1] = 1.0f;
  c.a[4][2] = 2.0f;
  c.a[3][3] = 100.0f;
  c.a[4][4] = 4.0f;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(same_bits(s[0], 1.0f / 3.0f - 1.0f) && same_bits(s[1], 6.0f / 3.0f));
  /* Agent 4 looks along +y: 1 and 3 are on the boundary (dot 0) and 0 is
   * coincident, so it sees all four. */
  steer_one(NB_ALIGNMENT, &c, nb, &params, 4, s);
  CHECK(same_bits(s[0], 102.0f / 4.0f) && same_bits(s[1], 2.0f / 4.0f - 4.0f));
  /* At rest, agent 0 sees all round: 1, 2, 3 and 4. */
  c.a[3][0] = 0.0f;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(same_bits(s[0], 101.0f / 4.0f) && same_bits(s[1], 6.0f / 4.0f));
  /* So it does with a velocity of length not positive (docs/behaviours.md,
   * heading): one whose squared length underflows, or a NaN. With a narrow
   * view a zero heading would see only the coincident 4 (y: 4). */
  nb.cos_field_of_view = 0.5f;
  c.a[3][0] = 1e-30f;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(same_bits(s[0], 101.0f / 4.0f) && same_bits(s[1], 6.0f / 4.0f));
  c.a[3][0] = NAN;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] != s[0] && same_bits(s[1], 6.0f / 4.0f));
  crowd_free(&c);
}

static void test_nearest_and_groups(void) {
  crowd c;
  crowd_init(&c, 8, 2);
  for (size_t i = 0; i < 8; i++)
    place(&c, i, 50.0f + 10.0f * (float)i, 0, 0, 0); /* far from everyone */
  place(&c, 0, 0, 0, 0, 0);
  place(&c, 7, 0.5f, 0, 7, 0);
  place(&c, 3, 0, 1, 3, 0);
  place(&c, 5, -1, 0, 5, 0);
  crowdsteer_neighbours nb = {0};
  nb.radius = 2.0f;
  nb.max_neighbours = 2;
  crowdsteer_params params = {0};
  float s[3];
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] == 5.0f); /* (7 + 3) / 2 */
  nb.max_neighbours = 1;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] == 7.0f);
  nb.max_neighbours = 0;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] == 5.0f); /* (7 + 3 + 5) / 3 */
  c.group[7] = 1u;
  c.group[3] = 2u;
  c.group[5] = 2u;
  nb.group = c.group;
  nb.neighbour_mask = 2u;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] == 4.0f); /* (3 + 5) / 2 */
  uint32_t masks[8] = {1u, 0, 0, 0, 0, 0, 0, 0};
  nb.neighbour_mask_per_agent = masks;
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] == 7.0f);
  masks[0] = 0u; /* a per-agent mask of 0 sees no one */
  steer_one(NB_ALIGNMENT, &c, nb, &params, 0, s);
  CHECK(s[0] == 0.0f && s[1] == 0.0f);
  crowd_free(&c);
}

/* Hundreds of agents on one spot, and a cluster in one cell: finite
 * results that match the brute force (steer_one checks that). */
static void test_coincident(void) {
  for (int dims = 2; dims <= 3; dims++) {
    crowd c;
    crowd_init(&c, 300, dims);
    rng r = {77u};
    for (size_t i = 150; i < 300; i++)
      for (int k = 0; k < dims; k++)
        c.a[k][i] = rng_range(&r, 0.0f, 1e-3f);
    crowdsteer_neighbours nb = {0};
    nb.radius = 1.0f;
    crowdsteer_params params = {0};
    for (int b = 0; b < NB_BEHAVIOURS; b++)
      for (size_t i = 0; i < 300; i += 37) {
        float s[3];
        steer_one(b, &c, nb, &params, i, s);
        for (int k = 0; k < dims; k++)
          CHECK_MSG(isfinite(s[k]), "%s %zu: %g", nb_name(b), i, s[k]);
      }
    /* Agent 0 has 149 agents on its spot, all of higher index: pushed to -x. */
    float s[3];
    steer_one(NB_SEPARATION, &c, nb, &params, 0, s);
    CHECK(s[0] < 0.0f);
    crowd_free(&c);
  }
}

/* The rules of docs/behaviours.md written out again here, plainly and on
 * their own: every pair, the float operations in the order written, the
 * sums in 64-bit integers. The library's brute force defines the bits the
 * grids must give (test_neighbours_equivalence); this checks that it is
 * the documented formulas. */
static int64_t sum_units(float component) {
  if (component != component) return 0;
  if (component > 0x1p24f) component = 0x1p24f;
  if (component < -0x1p24f) component = -0x1p24f;
  return (int64_t)nearbyintf(component * 0x1p24f);
}

static float distance_between(const crowd *c, size_t i, size_t q, float d[3]) {
  float dd = 0.0f;
  for (int k = 0; k < c->dims; k++) {
    d[k] = c->a[k][i] - c->a[k][q];
    dd += d[k] * d[k];
  }
  return sqrtf(dd);
}

static void by_the_rules(const crowd *c, int behaviour, float radius, uint32_t cap,
                         float max_speed, float time_to_target, size_t i, float s[3]) {
  const int dims = c->dims;
  size_t set[256], n = 0;
  float d[3];
  for (size_t q = 0; q < c->count && n < 256; q++)
    if (q != i && distance_between(c, i, q, d) < radius) set[n++] = q;
  CHECK_MSG(n < 256, "agent %zu: too many neighbours for the rules' list", i);
  /* The nearest `cap` by distance, ties by the lower index. */
  for (size_t a = 1; a < n; a++)
    for (size_t b = a; b > 0; b--) {
      const float near = distance_between(c, i, set[b - 1], d);
      const float far = distance_between(c, i, set[b], d);
      if (far > near || (far == near && set[b] > set[b - 1])) break;
      const size_t swap = set[b];
      set[b] = set[b - 1];
      set[b - 1] = swap;
    }
  if (cap && n > cap) n = cap;
  s[0] = s[1] = s[2] = 0.0f;
  if (n == 0) return;
  int64_t total[3] = {0, 0, 0};
  const float inverse_radius = 1.0f / radius;
  for (size_t m = 0; m < n; m++) {
    const size_t q = set[m];
    const float dist = distance_between(c, i, q, d);
    for (int k = 0; k < dims; k++) {
      float contribution;
      if (behaviour == NB_SEPARATION)
        contribution = dist == 0.0f ? (k == 0 ? (i < q ? -1.0f : 1.0f) : 0.0f)
                                    : d[k] * (1.0f / dist - inverse_radius);
      else if (behaviour == NB_COHESION)
        contribution = (c->a[k][q] - c->a[k][i]) / radius;
      else
        contribution = c->a[3 + k][q];
      total[k] += sum_units(contribution);
    }
  }
  float sum[3] = {0.0f, 0.0f, 0.0f}, length = 0.0f;
  for (int k = 0; k < dims; k++) {
    sum[k] = (float)total[k] * 0x1p-24f;
    length += sum[k] * sum[k];
  }
  length = sqrtf(length);
  for (int k = 0; k < dims; k++) {
    const float v = c->a[3 + k][i];
    if (behaviour == NB_SEPARATION)
      s[k] = sum[k] * max_speed;
    else if (behaviour == NB_COHESION)
      s[k] = ((length > 0.0f ? sum[k] / length : 0.0f) * max_speed - v) / time_to_target;
    else
      s[k] = (sum[k] / (float)n - v) / time_to_target;
  }
}

static void test_formulas(void) {
  for (int dims = 2; dims <= 3; dims++) {
    crowd c;
    crowd_init(&c, 90, dims);
    rng r = {31u + (uint64_t)dims};
    crowd_random(&c, &r, 8.0f);
    for (size_t i = 80; i < 90; i++) /* coincident pairs and a stack */
      for (int k = 0; k < dims; k++)
        c.a[k][i] = c.a[k][i < 85 ? i - 80 : 85];
    const float radii[2] = {1.0f, 0.7f};
    const uint32_t caps[2] = {0, 3};
    crowdsteer_params params = {0};
    params.max_speed = 1.5f;
    params.time_to_target = 0.75f;
    crowdsteer_output out = crowd_output(&c);
    for (int b = 0; b < NB_BEHAVIOURS; b++)
      for (int v = 0; v < 4; v++) {
        crowdsteer_neighbours nb = {0};
        nb.radius = radii[v % 2];
        nb.max_neighbours = caps[v / 2];
        for (int with_grid = 0; with_grid < 2; with_grid++) {
          if (with_grid) {
            crowdsteer_grid_desc desc = {0};
            desc.cell_size = 1.0f;
            CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
          }
          nb.grid = with_grid ? grid : NULL;
          CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, 0, c.count), CROWDSTEER_OK);
          for (size_t i = 0; i < c.count; i++) {
            float want[3];
            by_the_rules(&c, b, nb.radius, nb.max_neighbours, params.max_speed,
                         params.time_to_target, i, want);
            for (int k = 0; k < dims; k++)
              CHECK_MSG(same_bits(c.out[k][i], want[k]),
                        "%s %dD radius %g cap %u%s: agent %zu axis %d: %.9g, the rules "
                        "give %.9g",
                        nb_name(b), dims, (double)nb.radius, nb.max_neighbours,
                        with_grid ? " (grid)" : "", i, k, c.out[k][i], want[k]);
          }
        }
      }
    crowd_free(&c);
  }
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  test_worked_values();
  test_field_of_view();
  test_nearest_and_groups();
  test_coincident();
  test_formulas();
  crowdsteer_grid_destroy(grid);
  return check_report("test_neighbours_hand");
}
