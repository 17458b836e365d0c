/* Multi-step behaviour of the neighbour behaviours through crowdsteer_step:
 * a crowd seeking one point while separating keeps its members apart, and
 * boids (separation, cohesion, alignment) align from a random start. */
#include "../common/neighbour_crowd.h"

static crowdsteer_grid *grid;

static void run_steps(crowd *c, crowdsteer_step_desc *step, int steps) {
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  for (int t = 0; t < steps; t++) {
    CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_step(&c->agents, step, 0, c->count), CROWDSTEER_OK);
  }
}

static float nearest_pair(const crowd *c, size_t *overlaps, float overlap) {
  float best = INFINITY;
  *overlaps = 0;
  for (size_t i = 0; i < c->count; i++)
    for (size_t j = i + 1; j < c->count; j++) {
      float dd = 0.0f;
      for (int k = 0; k < c->dims; k++) {
        const float d = c->a[k][i] - c->a[k][j];
        dd += d * d;
      }
      const float dist = sqrtf(dd);
      if (dist < best) best = dist;
      *overlaps += dist < overlap;
    }
  return best;
}

/* 400 agents from a random 20 x 20 square (3D: cube) seek the origin at
 * speed 0.1 per step, separation radius 1 with weight 4. */
static void test_seek_with_separation(int dims) {
  crowd c;
  const size_t n = 400;
  crowd_init(&c, n, dims);
  rng r = {42u + (uint64_t)dims};
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < dims; k++)
      c.a[k][i] = rng_range(&r, -10.0f, 10.0f);
  crowdsteer_neighbours nb = {0};
  nb.grid = grid;
  crowdsteer_step_behaviour b[2];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_SEEK;
  b[0].params.max_speed = 0.1f;
  b[1].behaviour = CROWDSTEER_SEPARATION;
  b[1].params.max_speed = 0.1f;
  b[1].weight = 4.0f;
  b[1].neighbours = &nb;
  crowdsteer_step_desc step = {0};
  step.behaviours = b;
  step.behaviour_count = 2;
  step.integrator.max_speed = 0.1f;
  step.integrator.max_force = 0.05f;
  if (dims == 2) { /* seeking alone, the same crowd collapses onto the goal */
    crowd alone;
    crowd_init(&alone, n, dims);
    for (int k = 0; k < 6; k++)
      memcpy(alone.a[k], c.a[k], n * sizeof(float));
    step.behaviour_count = 1;
    run_steps(&alone, &step, 600);
    size_t overlaps;
    const float nearest = nearest_pair(&alone, &overlaps, 0.25f);
    CHECK_MSG(nearest < 0.05f && overlaps > n, "seek alone: nearest %g, %zu overlaps",
              (double)nearest, overlaps);
    step.behaviour_count = 2;
    crowd_free(&alone);
  }
  run_steps(&c, &step, 600);
  size_t overlaps;
  const float nearest = nearest_pair(&c, &overlaps, 0.25f);
  float farthest = 0.0f;
  for (size_t i = 0; i < n; i++) {
    float dd = 0.0f;
    for (int k = 0; k < dims; k++)
      dd += c.a[k][i] * c.a[k][i];
    farthest = fmaxf(farthest, sqrtf(dd));
  }
  printf("seek + separation %dD, %zu agents, 600 steps: nearest pair %.3f, pairs closer "
         "than 0.25: %zu, farthest from the goal %.2f\n",
         dims, n, (double)nearest, overlaps, (double)farthest);
  CHECK_MSG(nearest >= 0.25f, "nearest pair %g", (double)nearest);
  CHECK_MSG(farthest < (dims == 2 ? 12.0f : 6.0f), "the crowd did not gather: %g",
            (double)farthest);
  crowd_free(&c);
}

static float order_parameter(const crowd *c) {
  double sum[3] = {0, 0, 0};
  for (size_t i = 0; i < c->count; i++) {
    float vv = 0.0f;
    for (int k = 0; k < c->dims; k++)
      vv += c->a[3 + k][i] * c->a[3 + k][i];
    const float speed = sqrtf(vv);
    if (speed > 0.0f)
      for (int k = 0; k < c->dims; k++)
        sum[k] += c->a[3 + k][i] / speed;
  }
  double len = 0.0;
  for (int k = 0; k < c->dims; k++)
    len += sum[k] * sum[k];
  return (float)(sqrt(len) / (double)c->count);
}

/* 300 boids in a square of side 6 (3D: cube of side 3), random velocities
 * up to 0.1 per axis: separation, cohesion and alignment (weights 1, 1, 2),
 * plus a cruise thrust along the heading (wander with distance 0.02 and
 * radius 0), because boids fly: without it alignment's averaging slows the
 * flock to a stop. */
static void test_boids_align(int dims) {
  crowd c;
  const size_t n = 300;
  crowd_init(&c, n, dims);
  rng r = {7u + (uint64_t)dims};
  const float side = dims == 2 ? 6.0f : 3.0f;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < dims; k++) {
      c.a[k][i] = rng_range(&r, 0.0f, side);
      c.a[3 + k][i] = rng_range(&r, -0.1f, 0.1f);
    }
  const float before = order_parameter(&c);
  crowdsteer_neighbours nb = {0};
  nb.grid = grid;
  crowdsteer_step_behaviour b[4];
  memset(b, 0, sizeof b);
  const crowdsteer_behaviour kinds[3] = {CROWDSTEER_SEPARATION, CROWDSTEER_COHESION,
                                         CROWDSTEER_ALIGNMENT};
  const float weights[3] = {1.0f, 1.0f, 2.0f};
  for (int k = 0; k < 3; k++) {
    b[k].behaviour = kinds[k];
    b[k].params.max_speed = 0.1f;
    b[k].weight = weights[k];
    b[k].neighbours = &nb;
  }
  float *direction[3];
  for (int k = 0; k < 3; k++)
    direction[k] = (float *)calloc(n, sizeof(float));
  crowdsteer_wander_state cruise = {{direction[0], direction[1], direction[2]}, 1u, 0u};
  b[3].behaviour = CROWDSTEER_WANDER;
  b[3].wander = &cruise;
  b[3].params.wander_distance = 0.02f;
  crowdsteer_step_desc step = {0};
  step.behaviours = b;
  step.behaviour_count = 4;
  step.integrator.max_speed = 0.1f;
  step.integrator.max_force = 0.01f;
  run_steps(&c, &step, 1000);
  const float after = order_parameter(&c);
  printf("boids %dD, %zu agents, 1000 steps: order parameter %.3f -> %.3f\n", dims, n,
         (double)before, (double)after);
  CHECK_MSG(before < 0.2f && after > 0.9f, "order parameter %g -> %g", (double)before,
            (double)after);
  for (int k = 0; k < 3; k++)
    free(direction[k]);
  crowd_free(&c);
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  for (int dims = 2; dims <= 3; dims++) {
    test_seek_with_separation(dims);
    test_boids_align(dims);
  }
  crowdsteer_grid_destroy(grid);
  return check_report("test_neighbours_physics");
}
