/* Results never depend on the host's floating-point mode: with the host (the
 * calling thread and every OpenMP worker) in FE_UPWARD, FE_DOWNWARD,
 * FE_TOWARDZERO, FTZ, DAZ or FTZ+DAZ, every entry point and crowdsteer_step
 * (threads 1, 2, 3, every tile size test_step uses), avoidance with
 * obstacles and walls, and a navigation field's build, rebuild and
 * following give the bits of the default mode, on every ISA, and leave the host's mode as
 * they found it. The crowds carry denormal state and parameters, which is where FTZ and
 * DAZ change results. */
#include <fenv.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define FPENV_X86 1
#endif

#include "../common/all_kinds.h"
#include "../common/check.h"
#include "../common/hash.h"
#include "../common/neighbour_crowd.h"

/* Beyond the largest team the step runs here, so every worker is set. */
enum { WORKERS = 4, AGENTS = 203, STEP_AGENTS = 4099 };

typedef struct host_mode {
  const char *name;
  int rounding;
  int flush_to_zero, denormals_are_zero;
} host_mode;

static const host_mode default_mode = {"default", FE_TONEAREST, 0, 0};
static const host_mode hostile_modes[] = {
    {"upward", FE_UPWARD, 0, 0},         {"downward", FE_DOWNWARD, 0, 0},
    {"towardzero", FE_TOWARDZERO, 0, 0}, {"ftz", FE_TONEAREST, 1, 0},
    {"daz", FE_TONEAREST, 0, 1},         {"ftz+daz", FE_TONEAREST, 1, 1},
};
enum { MODE_COUNT = sizeof hostile_modes / sizeof hostile_modes[0] };

#if defined(__aarch64__)
static uint64_t read_fpcr(void) {
  uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
static void write_fpcr(uint64_t fpcr) { __asm__ volatile("msr fpcr, %0" : : "r"(fpcr)); }
#endif

static void set_mode(const host_mode *m) {
  CHECK(fesetround(m->rounding) == 0);
#ifdef FPENV_X86
  unsigned csr = _mm_getcsr() & ~0x8040u; /* FTZ is bit 15, DAZ bit 6 */
  _mm_setcsr(csr | (m->flush_to_zero ? 0x8000u : 0u) |
             (m->denormals_are_zero ? 0x40u : 0u));
#elif defined(__aarch64__)
  /* FPCR.FZ (bit 24) flushes inputs and outputs: both FTZ and DAZ. */
  const uint64_t fz = 1u << 24;
  uint64_t fpcr = read_fpcr() & ~fz;
  write_fpcr(fpcr | (m->flush_to_zero || m->denormals_are_zero ? fz : 0u));
#endif
}

/* The mode bits of this thread (not the sticky exception flags). */
static uint64_t read_mode(void) {
#ifdef FPENV_X86
  return _mm_getcsr() & ~0x3Fu;
#elif defined(__aarch64__)
  return read_fpcr();
#else
  return (uint64_t)fegetround();
#endif
}

/* The calling thread and every worker of the OpenMP pool. */
static void set_mode_everywhere(const host_mode *m) {
#ifdef _OPENMP
#pragma omp parallel num_threads(WORKERS)
  set_mode(m);
#endif
  set_mode(m);
}

/* Every worker is still in `want` (its mode before the call). */
static int workers_in_mode(uint64_t want) {
  int all = 1;
#ifdef _OPENMP
#pragma omp parallel num_threads(WORKERS) reduction(&& : all)
  all = read_mode() == want;
#else
  (void)want;
#endif
  return all;
}

/* Denormal state and parameters in one agent of three. */
static void add_denormals(scenario *s) {
  for (size_t i = 1; i < s->count; i += 3) {
    for (int k = 0; k < 3; k++) {
      const float tiny = 1e-39f * (float)(k + 1) * (i % 2 ? 1.0f : -1.0f);
      s->v[k][i] = tiny;
      s->tv[k][i] = -tiny;
      s->out[k][i] = tiny;
      s->wander[k][i] = tiny;
      if (i % 9 == 1) s->p[k][i] = s->tp[k][i] + tiny;
    }
    s->max_speed[i] = 3e-39f;
    s->weight[i] = -2e-39f;
    if (i % 6 == 1) s->mass[i] = 1e-39f;
  }
}

static void make_crowd(scenario *s, size_t count, int dims, uint64_t seed) {
  scenario_make(s, count, dims, seed, 1);
  add_denormals(s);
}

/* Runs `call` in host mode `m`; checks the host's mode is unchanged after. */
#define IN_MODE(m, call)                                                                 \
  do {                                                                                   \
    set_mode_everywhere(m);                                                              \
    const uint64_t before_ = read_mode();                                                \
    call;                                                                                \
    const uint64_t after_ = read_mode();                                                 \
    CHECK_MSG(after_ == before_ && workers_in_mode(before_),                             \
              "host mode %s changed by the call", (m)->name);                            \
    set_mode_everywhere(&default_mode);                                                  \
  } while (0)

static void check_entry(const variant *va) {
  const uint64_t seed =
      0xF0E7u + (uint64_t)(va->entry * 64 + va->dims * 8 + va->target_kind);
  scenario want, got;
  make_crowd(&want, AGENTS, va->dims, seed);
  CHECK_STATUS(run_entry(&want, va, 0, AGENTS), CROWDSTEER_OK);
  for (int m = 0; m < MODE_COUNT; m++) {
    make_crowd(&got, AGENTS, va->dims, seed);
    IN_MODE(&hostile_modes[m],
            CHECK_STATUS(run_entry(&got, va, 0, AGENTS), CROWDSTEER_OK));
    CHECK_MSG(same_scenario(&want, &got),
              "%s %dd kind %d per_agent %d accumulate %d, isa %s, host %s",
              entry_name(va->entry), va->dims, va->target_kind, va->per_agent,
              va->accumulate, crowdsteer_isa_name(crowdsteer_active_isa()),
              hostile_modes[m].name);
    scenario_free(&got);
  }
  scenario_free(&want);
}

/* A step of every behaviour kind, out of place into `next`. */
static void run_step(scenario *s, scenario *next, int combine, size_t tile, int threads) {
  all_kinds_step c;
  all_kinds_make(&c, s, next, combine);
  c.step.output = &c.other;
  c.step.tile_size = tile;
  c.step.threads = threads;
  CHECK_STATUS(crowdsteer_step(&c.agents, &c.step, 0, s->count), CROWDSTEER_OK);
  all_kinds_free(&c);
}

static void check_step(void) {
  static const size_t tiles[] = {0, 1, 7, 64, 4096};
  static const int threads[] = {1, 2, 3};
  for (int dims = 2; dims <= 3; dims++)
    for (int combine = 0; combine < 2; combine++) {
      const uint64_t seed = 0x57E0u + (uint64_t)(dims * 2 + combine);
      scenario want, want_next, got, got_next;
      make_crowd(&want, STEP_AGENTS, dims, seed);
      make_crowd(&want_next, STEP_AGENTS, dims, seed + 1);
      run_step(&want, &want_next, combine, 0, 1);
      for (int m = 0; m < MODE_COUNT; m++)
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
          for (size_t h = 0; h < sizeof threads / sizeof threads[0]; h++) {
            make_crowd(&got, STEP_AGENTS, dims, seed);
            make_crowd(&got_next, STEP_AGENTS, dims, seed + 1);
            IN_MODE(&hostile_modes[m],
                    run_step(&got, &got_next, combine, tiles[t], threads[h]));
            CHECK_MSG(same_scenario(&want, &got) && same_scenario(&want_next, &got_next),
                      "step %dd combine %d tile %zu threads %d, isa %s, host %s", dims,
                      combine, tiles[t], threads[h],
                      crowdsteer_isa_name(crowdsteer_active_isa()),
                      hostile_modes[m].name);
            scenario_free(&got);
            scenario_free(&got_next);
          }
      scenario_free(&want);
      scenario_free(&want_next);
    }
}

enum { NAV_AGENTS = 1500, NAV_SIDE = 48 };

/* Every cell's time and direction. */
static uint64_t hash_field(uint64_t h, const crowdsteer_field *field) {
  for (uint32_t cy = 0; cy < NAV_SIDE; cy++)
    for (uint32_t cx = 0; cx < NAV_SIDE; cx++) {
      double t;
      float d[2];
      int blocked;
      CHECK_STATUS(crowdsteer_field_time(field, cx, cy, &t), CROWDSTEER_OK);
      CHECK_STATUS(crowdsteer_field_direction(field, cx, cy, &d[0], &d[1], &blocked),
                   CROWDSTEER_OK);
      h = hash_bytes(h, &t, sizeof t);
      h = hash_bytes(h, d, sizeof d);
    }
  return h;
}

/* The inputs of avoid_and_fields, made in the default mode: a crowd
 * (denormal velocities in one agent of seven) and the field's costs. */
typedef struct nav_inputs {
  crowd c;
  float cost[NAV_SIDE * NAV_SIDE];
} nav_inputs;

static void nav_inputs_make(nav_inputs *in, int dims) {
  rng r = {0xA5u + (uint64_t)dims};
  crowd_init(&in->c, NAV_AGENTS, dims);
  crowd_random(&in->c, &r, 6.0f);
  for (size_t i = 0; i < in->c.count; i += 7)
    in->c.a[3][i] = 0x1p-140f, in->c.a[4][i] = -0x1p-131f;
  for (size_t k = 0; k < NAV_SIDE * NAV_SIDE; k++)
    in->cost[k] = 1.0f + (float)(k % 5) * 0.37f;
}

/* The bits of avoidance, obstacles and navigation, the objects made and
 * built in the mode this runs in: a navigation field (obstacles, costs, a
 * goal; built, then rebuilt around a moved block) over every cell's time
 * and direction; crowdsteer_avoid (2D: agents over a grid and the
 * obstacles; 3D: agents) into spare velocities; follow-the-field; and a
 * step seeking (2D: following the field) with avoidance and walls on
 * `threads`. */
static uint64_t avoid_and_fields(nav_inputs *in, int threads) {
  crowd c = in->c;
  const int dims = c.dims;
  const float *cost = in->cost;
  uint64_t h = FNV_OFFSET;
  crowdsteer_grid *grid = NULL;
  crowdsteer_obstacles *obstacles = NULL;
  crowdsteer_field *field = NULL;
  CHECK(crowdsteer_grid_create(&grid) == CROWDSTEER_OK);
  crowdsteer_grid_desc gd;
  memset(&gd, 0, sizeof gd);
  gd.cell_size = 3.0f;
  gd.threads = threads;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &gd), CROWDSTEER_OK);
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.3f;
  params.dt = 0.1f;

  const crowdsteer_field *fields[1] = {NULL};
  const crowdsteer_field_follow follow = {fields, 1, NULL, 0};
  if (dims == 2) {
    /* Two blocks, a diagonal wall and a triangle in the crowd (about 16
     * wide), a field of 0.75 cells over them to a corner, with costs. */
    static const float block_x[4] = {-2.0f, 1.0f, 1.0f, -2.0f},
                       block_y[4] = {-1.0f, -1.0f, 0.5f, 0.5f};
    static const float moved_x[4] = {3.0f, 4.5f, 4.5f, 3.0f},
                       moved_y[4] = {2.0f, 2.0f, 5.0f, 5.0f};
    static const float wall_x[2] = {-6.0f, -1.0f}, wall_y[2] = {4.0f, 7.3f};
    static const float tri_x[3] = {2.0f, 6.5f, 3.1f}, tri_y[3] = {-6.0f, -5.2f, -2.9f};
    static const float goal_x[1] = {-16.5f}, goal_y[1] = {-16.5f};
    CHECK(crowdsteer_obstacles_create(&obstacles) == CROWDSTEER_OK);
    CHECK(crowdsteer_obstacles_add(obstacles, block_x, block_y, 4) == CROWDSTEER_OK);
    CHECK(crowdsteer_obstacles_add(obstacles, wall_x, wall_y, 2) == CROWDSTEER_OK);
    CHECK(crowdsteer_obstacles_add(obstacles, tri_x, tri_y, 3) == CROWDSTEER_OK);
    CHECK(crowdsteer_obstacles_build(obstacles, 0.0f) == CROWDSTEER_OK);
    crowdsteer_field_desc fd;
    memset(&fd, 0, sizeof fd);
    fd.origin[0] = fd.origin[1] = -18.0f;
    fd.cell_size = 0.75f;
    fd.width = fd.height = NAV_SIDE;
    fd.obstacles = obstacles;
    fd.cost = cost;
    fd.goal_x = goal_x;
    fd.goal_y = goal_y;
    fd.goal_point_count = 1;
    CHECK(crowdsteer_field_create(&field) == CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_field_build(field, &fd), CROWDSTEER_OK);
    h = hash_field(h, field);
    /* The first block moved: the cells of both, rebuilt. */
    crowdsteer_obstacles_destroy(obstacles);
    CHECK(crowdsteer_obstacles_create(&obstacles) == CROWDSTEER_OK);
    CHECK(crowdsteer_obstacles_add(obstacles, moved_x, moved_y, 4) == CROWDSTEER_OK);
    CHECK(crowdsteer_obstacles_add(obstacles, wall_x, wall_y, 2) == CROWDSTEER_OK);
    CHECK(crowdsteer_obstacles_add(obstacles, tri_x, tri_y, 3) == CROWDSTEER_OK);
    CHECK(crowdsteer_obstacles_build(obstacles, 0.0f) == CROWDSTEER_OK);
    fd.obstacles = obstacles;
    CHECK_STATUS(crowdsteer_field_rebuild(field, &fd, 19, 20, 31, 31), CROWDSTEER_OK);
    h = hash_field(h, field);
    fields[0] = field;
    const crowdsteer_output out = crowd_output(&c);
    CHECK_STATUS(crowdsteer_follow_field(&c.agents, &follow, &params, &out, 0, c.count),
                 CROWDSTEER_OK);
    for (int k = 0; k < 2; k++)
      h = hash_bytes(h, c.out[k], c.count * sizeof(float));
  }

  crowdsteer_neighbours nearest;
  memset(&nearest, 0, sizeof nearest);
  nearest.grid = grid;
  nearest.radius = 3.0f;
  nearest.max_neighbours = 10;
  crowdsteer_avoidance avoid;
  memset(&avoid, 0, sizeof avoid);
  avoid.radius = 0.3f;
  avoid.time_horizon = 2.0f;
  avoid.obstacle_time_horizon = 1.0f;
  avoid.neighbours = &nearest;
  avoid.obstacles = obstacles;
  const crowdsteer_vectors preferred = {c.a[3], c.a[4], dims == 3 ? c.a[5] : NULL};
  const crowdsteer_vectors velocity = {c.out[0], c.out[1], dims == 3 ? c.out[2] : NULL};
  CHECK_STATUS(
      crowdsteer_avoid(&c.agents, &avoid, &params, &preferred, &velocity, 0, c.count),
      CROWDSTEER_OK);
  for (int k = 0; k < dims; k++)
    h = hash_bytes(h, c.out[k], c.count * sizeof(float));

  /* The step: out of place into a spare state. */
  float *next[6];
  for (int k = 0; k < 6; k++)
    next[k] = (float *)calloc(c.count, sizeof(float));
  crowdsteer_agents spare = {c.count, dims,    next[0], next[1], next[2],
                             next[3], next[4], next[5], NULL};
  static const float target[3] = {-20.0f, 13.0f, 4.0f};
  crowdsteer_step_behaviour b;
  memset(&b, 0, sizeof b);
  b.behaviour = dims == 2 ? CROWDSTEER_FOLLOW_FIELD : CROWDSTEER_SEEK;
  b.params = params;
  b.field = &follow;
  b.target.kind = CROWDSTEER_TARGET_POINT;
  memcpy(b.target.point, target, sizeof target);
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = &b;
  step.behaviour_count = 1;
  step.integrator = params;
  step.output = &spare;
  step.threads = threads;
  step.avoidance = &avoid;
  CHECK_STATUS(crowdsteer_step(&c.agents, &step, 0, c.count), CROWDSTEER_OK);
  for (int k = 0; k < 6; k++)
    if (k % 3 < dims) h = hash_bytes(h, next[k], c.count * sizeof(float));
  for (int k = 0; k < 6; k++)
    free(next[k]);
  crowdsteer_field_destroy(field);
  crowdsteer_obstacles_destroy(obstacles);
  crowdsteer_grid_destroy(grid);
  return h;
}

static void check_avoid_and_fields(void) {
  for (int dims = 2; dims <= 3; dims++) {
    nav_inputs *in = (nav_inputs *)malloc(sizeof *in);
    nav_inputs_make(in, dims);
    const uint64_t want = avoid_and_fields(in, 1);
    for (int m = 0; m < MODE_COUNT; m++)
      for (int threads = 1; threads <= 2; threads++) {
        uint64_t got = 0;
        IN_MODE(&hostile_modes[m], got = avoid_and_fields(in, threads));
        CHECK_MSG(got == want, "avoidance and fields %dd threads %d, isa %s, host %s",
                  dims, threads, crowdsteer_isa_name(crowdsteer_active_isa()),
                  hostile_modes[m].name);
      }
    crowd_free(&in->c);
    free(in);
  }
}

static void check_all(void) {
  for_each_variant(AGENTS, 1, check_entry);
  check_step();
  check_avoid_and_fields();
}

int main(void) {
  set_mode_everywhere(&default_mode);
  if (!on_every_isa(check_all)) return 77;
  return check_report("test_fpenv");
}
