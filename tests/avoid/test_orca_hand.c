/* ORCA worked by hand through crowdsteer_avoid: two agents head-on, an
 * agent that does not yield, an agent and a wall, an agent in a corner;
 * the same bits with and without a grid, for any order of the agents
 * (with ids) and as agents leave and arrive; and the validation of every field (nothing
 * written). */
#include "../common/check.h"

enum { MAX = 512 };

typedef struct crowd {
  size_t n;
  float px[MAX], py[MAX], vx[MAX], vy[MAX];
  float pref_x[MAX], pref_y[MAX], out_x[MAX], out_y[MAX];
  uint32_t id[MAX], report[MAX];
} crowd;

static crowdsteer_agents agents_of(crowd *c) {
  crowdsteer_agents a = {c->n, 2, c->px, c->py, NULL, c->vx, c->vy, NULL, c->id};
  return a;
}

static crowdsteer_status avoid(crowd *c, const crowdsteer_avoidance *av,
                               const crowdsteer_params *params) {
  crowdsteer_agents a = agents_of(c);
  const crowdsteer_vectors pref = {c->pref_x, c->pref_y, NULL};
  const crowdsteer_vectors out = {c->out_x, c->out_y, NULL};
  return crowdsteer_avoid(&a, av, params, &pref, &out, 0, c->n);
}

static void put(crowd *c, size_t i, float px, float py, float vx, float vy) {
  c->px[i] = px, c->py[i] = py, c->vx[i] = vx, c->vy[i] = vy;
  c->pref_x[i] = vx, c->pref_y[i] = vy;
  c->id[i] = (uint32_t)i;
}

/* The closest two discs of radius sum r come over [0, tau] at the new
 * velocities. */
static double closest(const crowd *c, size_t i, size_t j, double tau) {
  const double px = c->px[j] - c->px[i], py = c->py[j] - c->py[i];
  const double wx = c->out_x[j] - c->out_x[i], wy = c->out_y[j] - c->out_y[i];
  const double ww = wx * wx + wy * wy;
  double t = ww > 0 ? -(px * wx + py * wy) / ww : 0.0;
  t = t < 0 ? 0 : (t > tau ? tau : t);
  return hypot(px + wx * t, py + wy * t);
}

static void test_head_on(void) {
  static crowd c;
  c.n = 2;
  put(&c, 0, -5, 0, 1, 0);
  put(&c, 1, 5, 0, -1, 0);
  crowdsteer_neighbours nb = {0};
  nb.radius = 20;
  crowdsteer_avoidance av = {0};
  av.radius = 0.5f;
  av.time_horizon = 10;
  av.neighbours = &nb;
  av.report = c.report;
  crowdsteer_params params = {0};
  params.max_speed = 2;
  params.dt = 0.25f;
  CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
  /* The pair is symmetric under a half turn: so are the answers, bit for bit. */
  CHECK(same_bits(c.out_x[1], -c.out_x[0]) && same_bits(c.out_y[1], -c.out_y[0]));
  CHECK(c.out_y[0] != 0.0f); /* they step aside */
  CHECK(c.report[0] == 0 && c.report[1] == 0);
  CHECK(closest(&c, 0, 1, 10.0) >= 1.0 - 1e-4); /* and miss within the horizon */
  /* Each takes half: the sideways speeds are equal and opposite. */
  CHECK_NEAR(c.out_y[0], -c.out_y[1], 0.0);

  /* Agent 1 does not yield: it keeps its preferred velocity, agent 0 takes
   * the whole avoidance and still misses. */
  const float responsibility[2] = {0.5f, 0.0f};
  av.responsibility_per_agent = responsibility;
  CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
  CHECK(c.out_x[1] == -1.0f && c.out_y[1] == 0.0f);
  CHECK(closest(&c, 0, 1, 10.0) >= 1.0 - 1e-4);
}

/* A wall 2 above an agent of radius 0.5 heading into it at speed 1: with
 * an obstacle horizon of 2 it may close at most (2 - 0.5) / 2 per unit of
 * time. Walls given either way round act the same. */
static void test_wall(void) {
  for (int way = 0; way < 2; way++) {
    crowdsteer_obstacles *o = NULL;
    CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
    const float wx[2] = {way ? 10.0f : -10.0f, way ? -10.0f : 10.0f}, wy[2] = {2, 2};
    CHECK_STATUS(crowdsteer_obstacles_add(o, wx, wy, 2), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_obstacles_build(o, 0), CROWDSTEER_OK);
    static crowd c;
    c.n = 1;
    put(&c, 0, 0, 0, 0, 1);
    crowdsteer_avoidance av = {0};
    av.radius = 0.5f;
    av.time_horizon = 2;
    av.obstacles = o;
    crowdsteer_params params = {0};
    params.max_speed = 1;
    CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
    CHECK_NEAR(c.out_y[0], 0.75, 1e-6);
    CHECK_NEAR(c.out_x[0], 0.0, 1e-6);
    /* Heading away, nothing changes. */
    c.pref_y[0] = -1;
    CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
    CHECK(c.out_x[0] == 0.0f && c.out_y[0] == -1.0f);
    crowdsteer_obstacles_destroy(o);
  }
}

/* An agent of radius 0.5 touching a wall's end: its centre 0.25 below the
 * end point, so its projection on the edge is the end point itself (s == 0
 * or s == 1 exactly). Both ends act alike: heading up and sideways, it
 * keeps the sideways part and stops going up. Once NaN at s == 1 (a fuzzer
 * finding on lattice coordinates). */
static void test_wall_end(void) {
  for (int end = 0; end < 2; end++) {
    crowdsteer_obstacles *o = NULL;
    CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
    const float wx[2] = {end ? -4.0f : 0.0f, end ? 0.0f : 4.0f}, wy[2] = {1, 1};
    CHECK_STATUS(crowdsteer_obstacles_add(o, wx, wy, 2), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_obstacles_build(o, 0), CROWDSTEER_OK);
    static crowd c;
    c.n = 1;
    put(&c, 0, 0, 0.75f, end ? 0.25f : -0.25f, 1);
    crowdsteer_avoidance av = {0};
    av.radius = 0.5f;
    av.time_horizon = 2;
    av.obstacles = o;
    crowdsteer_params params = {0};
    params.max_speed = 2;
    CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
    CHECK_MSG(c.out_x[0] == c.pref_x[0] && c.out_y[0] == 0.0f, "end %d: (%g, %g)", end,
              (double)c.out_x[0], (double)c.out_y[0]);
    crowdsteer_obstacles_destroy(o);
  }
}

/* A room 10 x 10 (its inside is free space: four walls), an agent near
 * the corner (0, 0) heading into it: both components are held back. */
static void test_corner(void) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  const float corners[5][2] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}};
  for (int k = 0; k < 4; k++) {
    const float x[2] = {corners[k][0], corners[k + 1][0]};
    const float y[2] = {corners[k][1], corners[k + 1][1]};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 2), CROWDSTEER_OK);
  }
  CHECK_STATUS(crowdsteer_obstacles_build(o, 2.0f), CROWDSTEER_OK);
  static crowd c;
  c.n = 1;
  put(&c, 0, 1, 1, -1, -1);
  crowdsteer_avoidance av = {0};
  av.radius = 0.5f;
  av.time_horizon = 1;
  av.obstacles = o;
  crowdsteer_params params = {0};
  params.max_speed = 2;
  CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
  CHECK(c.out_x[0] >= -0.5f - 1e-5f && c.out_y[0] >= -0.5f - 1e-5f);
  CHECK_NEAR(c.out_x[0], -0.5, 1e-5);
  CHECK_NEAR(c.out_y[0], -0.5, 1e-5);
  crowdsteer_obstacles_destroy(o);
}

static uint32_t next_random(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

static float uniform(uint32_t *state, float lo, float hi) {
  return lo + (hi - lo) * (float)next_random(state) / 16777216.0f;
}

/* FNV-1a over the bits of n floats (or words), continuing from h. */
static uint64_t hash_floats(const float *a, size_t n, uint64_t h) {
  h = h ? h : 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    uint32_t bits;
    memcpy(&bits, &a[i], sizeof bits);
    for (int b = 0; b < 4; b++) {
      h ^= (bits >> (8 * b)) & 0xFFu;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

static uint64_t hash_words(const uint32_t *a, size_t n) {
  return hash_floats((const float *)(const void *)a, n, 0);
}

/* Recorded on x86-64 (every ISA gives it). */
#define GOLDEN_CROWD 0x1337cfefed554a19ull

/* A host task system that runs every range at once, last range first. */
static void *run_backwards(crowdsteer_task_fn *task, uint32_t items, uint32_t min_range,
                           void *task_context, void *host_context) {
  (void)host_context;
  const uint32_t step = min_range ? min_range : 1;
  for (uint32_t end = items; end > 0;) {
    const uint32_t first = end > step ? end - step : 0;
    task(first, end, task_context);
    end = first;
  }
  return NULL;
}

static void never_called(void *handle, void *host_context) {
  (void)handle, (void)host_context;
  check_failures++;
}

/* The crowd of `c` as an engine keeps it while agents leave and arrive:
 * ORCA keeps nothing between calls, so after a few swap-removes and
 * appends (new ids) the next call needs only the arrays (and the grid built
 * from them, as every step builds it): each agent gets the bits it gets in
 * the same crowd made afresh in id order. */
static void agents_come_and_go(crowd *c, crowdsteer_avoidance *av,
                               const crowdsteer_params *params, crowdsteer_grid *grid,
                               const crowdsteer_grid_desc *gd, uint32_t *seed) {
  static crowd kept, fresh;
  static float radius[MAX], responsibility[MAX];
  kept = *c;
  memcpy(radius, av->radius_per_agent, c->n * sizeof(float));
  memcpy(responsibility, av->responsibility_per_agent, c->n * sizeof(float));
  uint32_t next_id = (uint32_t)c->n;
  for (int round = 0; round < 3; round++) {
    for (int k = 0; k < 20; k++) { /* leaving: the last agent fills the gap */
      const size_t i = next_random(seed) % kept.n, last = --kept.n;
      kept.px[i] = kept.px[last], kept.py[i] = kept.py[last];
      kept.vx[i] = kept.vx[last], kept.vy[i] = kept.vy[last];
      kept.pref_x[i] = kept.pref_x[last], kept.pref_y[i] = kept.pref_y[last];
      kept.id[i] = kept.id[last];
      radius[i] = radius[last], responsibility[i] = responsibility[last];
    }
    for (int k = 0; k < 15 + 5 * round; k++) { /* arriving, new ids */
      const size_t i = kept.n++;
      const float px = uniform(seed, 0, 30);
      const float py = uniform(seed, 0, 30);
      put(&kept, i, px, py, uniform(seed, -1, 1), 0.5f);
      kept.id[i] = next_id++;
      radius[i] = 0.3f;
      responsibility[i] = 0.5f;
    }
    av->radius_per_agent = radius;
    av->responsibility_per_agent = responsibility;
    av->report = kept.report;
    crowdsteer_agents a = agents_of(&kept);
    CHECK_STATUS(crowdsteer_grid_build(grid, &a, gd), CROWDSTEER_OK);
    CHECK_STATUS(avoid(&kept, av, params), CROWDSTEER_OK);
    /* The same agents in id order (ids below next_id, each at most once). */
    static size_t at_id[2 * MAX];
    static float fresh_radius[MAX], fresh_responsibility[MAX];
    for (uint32_t id = 0; id < next_id; id++)
      at_id[id] = SIZE_MAX;
    for (size_t i = 0; i < kept.n; i++)
      at_id[kept.id[i]] = i;
    fresh.n = 0;
    for (uint32_t id = 0; id < next_id; id++) {
      const size_t i = at_id[id];
      if (i == SIZE_MAX) continue;
      const size_t j = fresh.n++;
      fresh.px[j] = kept.px[i], fresh.py[j] = kept.py[i];
      fresh.vx[j] = kept.vx[i], fresh.vy[j] = kept.vy[i];
      fresh.pref_x[j] = kept.pref_x[i], fresh.pref_y[j] = kept.pref_y[i];
      fresh.id[j] = id;
      fresh_radius[j] = radius[i], fresh_responsibility[j] = responsibility[i];
    }
    CHECK(fresh.n == kept.n);
    av->radius_per_agent = fresh_radius;
    av->responsibility_per_agent = fresh_responsibility;
    av->report = fresh.report;
    a = agents_of(&fresh);
    CHECK_STATUS(crowdsteer_grid_build(grid, &a, gd), CROWDSTEER_OK);
    CHECK_STATUS(avoid(&fresh, av, params), CROWDSTEER_OK);
    for (size_t j = 0; j < fresh.n; j++) {
      const size_t i = at_id[fresh.id[j]];
      CHECK_MSG(same_bits(fresh.out_x[j], kept.out_x[i]) &&
                    same_bits(fresh.out_y[j], kept.out_y[i]) &&
                    fresh.report[j] == kept.report[i],
                "round %d, id %u: the kept crowd gives other bits than a fresh one",
                round, (unsigned)fresh.id[j]);
    }
    /* Then the kept crowd moves on with its new velocities. */
    for (size_t i = 0; i < kept.n; i++) {
      kept.vx[i] = kept.out_x[i], kept.vy[i] = kept.out_y[i];
      kept.px[i] += 0.1f * kept.vx[i], kept.py[i] += 0.1f * kept.vy[i];
    }
  }
}

/* A packed crowd around pillars: with a grid and without, in five orders,
 * and as agents come and go. */
static void test_same_bits(void) {
  static crowd c, shuffled;
  uint32_t seed = 12345u;
  c.n = 400;
  for (size_t i = 0; i < c.n; i++) {
    /* One draw per statement: the order of a call's arguments is the
     * compiler's (aarch64's gcc took them in another order). */
    const float px = uniform(&seed, 0, 30);
    const float py = uniform(&seed, 0, 30);
    const float vx = uniform(&seed, -1, 1);
    const float vy = uniform(&seed, -1, 1);
    put(&c, i, px, py, vx, vy);
    c.pref_x[i] = uniform(&seed, -2, 2);
    c.pref_y[i] = uniform(&seed, -2, 2);
  }
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  for (int k = 0; k < 9; k++) {
    const float cx = 5.0f + 10.0f * (float)(k % 3), cy = 5.0f + 10.0f * (float)(k / 3);
    const float x[4] = {cx - 1, cx + 1, cx + 1, cx - 1},
                y[4] = {cy - 1, cy - 1, cy + 1, cy + 1};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 4), CROWDSTEER_OK);
  }
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0), CROWDSTEER_OK);
  float radius[MAX], responsibility[MAX];
  for (size_t i = 0; i < c.n; i++) {
    radius[i] = uniform(&seed, 0.2f, 0.6f);
    responsibility[i] = (i % 7 == 0) ? 0.0f : uniform(&seed, 0.1f, 1.0f);
  }
  crowdsteer_neighbours nb = {0};
  nb.radius = 4;
  nb.max_neighbours = 10;
  crowdsteer_avoidance av = {0};
  av.radius_per_agent = radius;
  av.responsibility_per_agent = responsibility;
  av.time_horizon = 3;
  av.obstacle_time_horizon = 2;
  av.neighbours = &nb;
  av.obstacles = o;
  av.report = c.report;
  crowdsteer_params params = {0};
  params.max_speed = 2;
  params.dt = 0.1f;
  CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
  int crowded = 0;
  for (size_t i = 0; i < c.n; i++)
    crowded += (c.report[i] & CROWDSTEER_REPORT_CROWDED) != 0;
  CHECK(crowded > 0); /* the packed crowd has agents with no free velocity */

  /* A grid (cell 4) gives the same bits. */
  crowdsteer_grid *grid = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_agents a = agents_of(&c);
  crowdsteer_grid_desc gd = {0};
  gd.cell_size = 4;
  CHECK_STATUS(crowdsteer_grid_build(grid, &a, &gd), CROWDSTEER_OK);
  float first_x[MAX], first_y[MAX];
  memcpy(first_x, c.out_x, sizeof first_x);
  memcpy(first_y, c.out_y, sizeof first_y);
  /* The same bits on every machine: x86 and aarch64 (under qemu in CI)
   * give this hash of the velocities and reports. */
  const uint64_t crowd_hash =
      hash_floats(first_x, c.n, hash_floats(first_y, c.n, 0)) ^ hash_words(c.report, c.n);
  CHECK_MSG(crowd_hash == GOLDEN_CROWD, "crowd hash %016llx",
            (unsigned long long)crowd_hash);
  nb.grid = grid;
  CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
  for (size_t i = 0; i < c.n; i++)
    CHECK_MSG(same_bits(c.out_x[i], first_x[i]) && same_bits(c.out_y[i], first_y[i]),
              "agent %zu: grid gives other bits", i);

  /* Every ISA's candidate scan gives the same bits (the scalar one is the
   * definition: forced first when the test runs for all ISAs). */
  const crowdsteer_isa active = crowdsteer_active_isa();
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  const int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  for (int k = 0; k < isa_count; k++) {
    CHECK_STATUS(crowdsteer_force_isa(isas[k]), CROWDSTEER_OK);
    for (int with_grid = 0; with_grid < 2; with_grid++) {
      nb.grid = with_grid ? grid : NULL;
      CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
      for (size_t i = 0; i < c.n; i++)
        CHECK_MSG(same_bits(c.out_x[i], first_x[i]) && same_bits(c.out_y[i], first_y[i]),
                  "agent %zu: isa %s (grid %d) gives other bits", i,
                  crowdsteer_isa_name(isas[k]), with_grid);
    }
  }
  CHECK_STATUS(crowdsteer_force_isa(active), CROWDSTEER_OK);
  nb.grid = grid;

  /* On a task system (parts run last first, in ranges of the least size
   * allowed): the same bits. */
  crowdsteer_task_system backwards = {run_backwards, never_called, 3, NULL};
  nb.tasks = &backwards;
  CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
  for (size_t i = 0; i < c.n; i++)
    CHECK_MSG(same_bits(c.out_x[i], first_x[i]) && same_bits(c.out_y[i], first_y[i]),
              "agent %zu: a task system gives other bits", i);
  backwards.worker_count = 0;
  CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_ERROR_PARAMETER);
  nb.tasks = NULL;

  /* Reversed, then three random orders, with ids and per-agent arrays
   * moved along (agent i of c is agent place[i] of the other order). */
  for (int trial = 0; trial < 4; trial++) {
    static size_t place[MAX];
    for (size_t i = 0; i < c.n; i++)
      place[i] = c.n - 1 - i;
    for (size_t i = c.n - 1; trial > 0 && i > 0; i--) { /* Fisher-Yates */
      const size_t j = next_random(&seed) % (i + 1), t = place[i];
      place[i] = place[j], place[j] = t;
    }
    float radius2[MAX], responsibility2[MAX];
    shuffled.n = c.n;
    for (size_t i = 0; i < c.n; i++) {
      const size_t j = place[i];
      shuffled.px[j] = c.px[i], shuffled.py[j] = c.py[i];
      shuffled.vx[j] = c.vx[i], shuffled.vy[j] = c.vy[i];
      shuffled.pref_x[j] = c.pref_x[i], shuffled.pref_y[j] = c.pref_y[i];
      shuffled.id[j] = c.id[i];
      radius2[j] = radius[i], responsibility2[j] = responsibility[i];
    }
    av.radius_per_agent = radius2;
    av.responsibility_per_agent = responsibility2;
    av.report = shuffled.report;
    crowdsteer_agents b = agents_of(&shuffled);
    CHECK_STATUS(crowdsteer_grid_build(grid, &b, &gd), CROWDSTEER_OK);
    CHECK_STATUS(avoid(&shuffled, &av, &params), CROWDSTEER_OK);
    for (size_t i = 0; i < c.n; i++) {
      const size_t j = place[i];
      CHECK_MSG(same_bits(shuffled.out_x[j], first_x[i]) &&
                    same_bits(shuffled.out_y[j], first_y[i]) &&
                    shuffled.report[j] == c.report[i],
                "agent %zu: order %d gives other bits", i, trial);
    }
  }
  av.radius_per_agent = radius;
  av.responsibility_per_agent = responsibility;
  av.report = c.report;
  agents_come_and_go(&c, &av, &params, grid, &gd, &seed);
  crowdsteer_grid_destroy(grid);
  crowdsteer_obstacles_destroy(o);
}

/* Every field's bad value: its status, and nothing written. */
static void test_validation(void) {
  static crowd c;
  c.n = 4;
  for (size_t i = 0; i < c.n; i++)
    put(&c, i, (float)i, 0, 0, 0);
  crowdsteer_neighbours nb = {0};
  nb.radius = 2;
  crowdsteer_params params = {0};
  crowdsteer_obstacles *unbuilt = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&unbuilt), CROWDSTEER_OK);
  const float bad_radius[4] = {0.5f, -1.0f, 0.5f, 0.5f};
  const float bad_responsibility[4] = {0.5f, 0.5f, 1.5f, 0.5f};
  const float nan_radius[4] = {0.5f, 0.5f, 0.5f, NAN};
  for (int fault = 0; fault < 12; fault++) {
    crowdsteer_avoidance av = {0};
    av.neighbours = &nb;
    crowdsteer_params p = params;
    crowdsteer_status expect = CROWDSTEER_ERROR_PARAMETER;
    switch (fault) {
    case 0: av.radius = -1; break;
    case 1: av.radius = INFINITY; break;
    case 2: av.radius_per_agent = bad_radius; break;
    case 3: av.radius_per_agent = nan_radius; break;
    case 4: av.time_horizon = -1; break;
    case 5: av.obstacle_time_horizon = NAN; break;
    case 6: av.responsibility = 2; break;
    case 7: av.responsibility_per_agent = bad_responsibility; break;
    case 8: p.max_speed = -1; break;
    case 9: p.dt = INFINITY; break;
    case 10: av.obstacles = unbuilt, expect = CROWDSTEER_ERROR_GRID; break;
    case 11:
      av.report = (uint32_t *)((char *)c.report + 2), expect = CROWDSTEER_ERROR_ALIGNMENT;
      break;
    }
    for (size_t i = 0; i < c.n; i++)
      c.out_x[i] = c.out_y[i] = 42.0f;
    CHECK_STATUS(avoid(&c, &av, &p), expect);
    for (size_t i = 0; i < c.n; i++)
      CHECK_MSG(c.out_x[i] == 42.0f && c.out_y[i] == 42.0f, "fault %d wrote", fault);
  }
  crowdsteer_avoidance av = {0};
  crowdsteer_agents a = agents_of(&c);
  const crowdsteer_vectors pref = {c.pref_x, c.pref_y, NULL};
  const crowdsteer_vectors out = {c.out_x, c.out_y, NULL};
  const crowdsteer_vectors into_positions = {c.px, c.py, NULL};
  CHECK_STATUS(crowdsteer_avoid(NULL, &av, &params, &pref, &out, 0, 4),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_avoid(&a, NULL, &params, &pref, &out, 0, 4),
               CROWDSTEER_ERROR_NULL_POINTER);
  /* params NULL: every default, as for every entry point. */
  for (size_t i = 0; i < c.n; i++)
    c.pref_x[i] = 0.5f * (float)i, c.pref_y[i] = 2.0f;
  float want[2][4];
  const crowdsteer_params defaults = {0};
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &defaults, &pref, &out, 0, 4), CROWDSTEER_OK);
  memcpy(want[0], c.out_x, sizeof want[0]), memcpy(want[1], c.out_y, sizeof want[1]);
  CHECK(want[1][0] == 1.0f); /* the default max_speed, 1 */
  for (size_t i = 0; i < c.n; i++)
    c.out_x[i] = c.out_y[i] = 42.0f;
  CHECK_STATUS(crowdsteer_avoid(&a, &av, NULL, &pref, &out, 0, 4), CROWDSTEER_OK);
  CHECK(!memcmp(want[0], c.out_x, sizeof want[0]) &&
        !memcmp(want[1], c.out_y, sizeof want[1]));
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, NULL, &out, 0, 4),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, NULL, 0, 4),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, &out, 3, 2),
               CROWDSTEER_ERROR_RANGE);
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, &out, 0, 5),
               CROWDSTEER_ERROR_RANGE);
  av.neighbours = &nb;
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, &into_positions, 0, 4),
               CROWDSTEER_ERROR_OVERLAP);
  /* In place (preferred = output) is fine. */
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &out, &out, 0, 4), CROWDSTEER_OK);
  a.dims = 4;
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, &out, 0, 4),
               CROWDSTEER_ERROR_DIMS);
  a.dims = 3; /* 3D: agents only, and every z array present */
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, &out, 0, 4),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_obstacles_build(unbuilt, 0), CROWDSTEER_OK);
  av.obstacles = unbuilt;
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, &out, 0, 4),
               CROWDSTEER_ERROR_DIMS);
  crowdsteer_obstacles_destroy(unbuilt);
}

/* Two spheres head-on, slightly off-axis in z: they part, symmetric under
 * a half turn, and miss within the horizon; a third that does not yield. */
static void test_head_on_3d(void) {
  float px[3] = {-5, 5, 0}, py[3] = {0, 0, 30}, pz[3] = {0.01f, -0.01f, 0};
  float vx[3] = {1, -1, 0}, vy[3] = {0, 0, 0}, vz[3] = {0, 0, 0};
  float ox[3], oy[3], oz[3];
  crowdsteer_agents a = {3, 3, px, py, pz, vx, vy, vz, NULL};
  crowdsteer_neighbours nb = {0};
  nb.radius = 20;
  crowdsteer_avoidance av = {0};
  av.radius = 0.5f;
  av.time_horizon = 10;
  av.neighbours = &nb;
  crowdsteer_params params = {0};
  params.max_speed = 2;
  params.dt = 0.25f;
  const crowdsteer_vectors pref = {vx, vy, vz}, out = {ox, oy, oz};
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, &out, 0, 3), CROWDSTEER_OK);
  CHECK(ox[1] == -ox[0] && oy[1] == -oy[0] && oz[1] == -oz[0]);
  CHECK(oz[0] > 0.0f); /* apart along the side they already lean to */
  /* Closest approach over the horizon at the new velocities. */
  const double P[3] = {10, 0, -0.02},
               W[3] = {ox[1] - ox[0], oy[1] - oy[0], oz[1] - oz[0]};
  const double ww = W[0] * W[0] + W[1] * W[1] + W[2] * W[2];
  double t = -(P[0] * W[0] + P[1] * W[1] + P[2] * W[2]) / ww;
  t = t < 0 ? 0 : (t > 10 ? 10 : t);
  CHECK(sqrt(pow(P[0] + W[0] * t, 2) + pow(P[1] + W[1] * t, 2) +
             pow(P[2] + W[2] * t, 2)) >= 1.0 - 1e-4);
  CHECK(ox[2] == 0.0f && oy[2] == 0.0f && oz[2] == 0.0f); /* alone: unchanged */
  /* Exactly head-on: the relative velocity has no part off the axis; they
   * still part, opposite ways, and nothing is NaN. */
  pz[0] = pz[1] = 0.0f;
  CHECK_STATUS(crowdsteer_avoid(&a, &av, &params, &pref, &out, 0, 3), CROWDSTEER_OK);
  CHECK(ox[1] == -ox[0] && oy[1] == -oy[0] && oz[1] == -oz[0]);
  CHECK(isfinite(ox[0]) && isfinite(oy[0]) && isfinite(oz[0]));
  CHECK(oy[0] != 0.0f || oz[0] != 0.0f);
}

/* Eight coincident agents at rest, cap 6: the nearest six are the six of
 * lowest id in any order (a bound that underflowed to 0 once dropped
 * later ones whatever their ids). */
static void test_coincident_order(void) {
  static crowd c, r;
  c.n = r.n = 8;
  for (size_t i = 0; i < 8; i++) {
    put(&c, i, 0, 0, 0, 0);
    put(&r, i, 0, 0, 0, 0);
    r.id[i] = (uint32_t)(7 - i);
  }
  crowdsteer_neighbours nb = {0};
  nb.radius = 5;
  nb.max_neighbours = 6;
  crowdsteer_avoidance av = {0};
  av.radius = 0.25f;
  av.time_horizon = 2;
  av.neighbours = &nb;
  crowdsteer_params params = {0};
  params.max_speed = 0.25f;
  params.dt = 0.1f;
  CHECK_STATUS(avoid(&c, &av, &params), CROWDSTEER_OK);
  CHECK_STATUS(avoid(&r, &av, &params), CROWDSTEER_OK);
  for (size_t i = 0; i < 8; i++)
    CHECK_MSG(same_bits(c.out_x[i], r.out_x[7 - i]) &&
                  same_bits(c.out_y[i], r.out_y[7 - i]),
              "coincident agent %zu: the order changed its bits", i);
}

int main(void) {
  test_coincident_order();
  test_head_on();
  test_head_on_3d();
  test_wall();
  test_wall_end();
  test_corner();
  test_same_bits();
  test_validation();
  return check_report("test_orca_hand");
}
