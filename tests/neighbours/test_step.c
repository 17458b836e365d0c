/* Separation, cohesion and alignment inside crowdsteer_step: bit-identical
 * to the composition (each behaviour through its entry point on the
 * pre-step state, combined per agent, then crowdsteer_integrate) with seek
 * and wander mixed in, for blend and priority, random per-agent behaviour
 * masks and weights, every tile size and thread count the step tests use, a
 * split range, in place and double-buffered, on every ISA; and validation. */
#include <fenv.h>
#include <limits.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "../common/neighbour_crowd.h"

enum { KINDS = 5 };

typedef struct world {
  crowd c;
  uint32_t *mask;
  float *weight;
  float *time_to_target, *max_speed; /* check_flock's, per agent */
  float *wander[3];
  crowdsteer_grid *grid;
  crowdsteer_neighbours nb;
  crowdsteer_neighbours nb_positions; /* separation's: a grid of positions only */
  crowdsteer_neighbours nb_narrow;    /* check_flock's cohesion, when apart */
  crowdsteer_step_behaviour behaviours[KINDS];
  crowdsteer_wander_state wander_state;
  crowdsteer_step_desc step;
} world;

/* Separation's grid: positions only (the others read velocities). */
static crowdsteer_grid *positions_grid;

/* The world's grids from its crowd: positions, velocities and groups in
 * `grid`, positions and groups in positions_grid. */
static void build_grids(world *w) {
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  desc.group = w->c.group;
  CHECK_STATUS(crowdsteer_grid_build(w->grid, &w->c.agents, &desc), CROWDSTEER_OK);
  desc.positions_only = 1;
  CHECK_STATUS(crowdsteer_grid_build(positions_grid, &w->c.agents, &desc), CROWDSTEER_OK);
}

static void make_world(world *w, size_t n, int dims, int combine, crowdsteer_grid *grid) {
  memset(w, 0, sizeof *w);
  crowd_init(&w->c, n, dims);
  rng r = {0xB01D5u + n * 3u + (uint64_t)dims};
  crowd_random(&w->c, &r, 8.0f);
  w->mask = (uint32_t *)calloc(n + 1, sizeof(uint32_t));
  w->weight = (float *)calloc(n + 1, sizeof(float));
  w->time_to_target = (float *)calloc(n + 1, sizeof(float));
  w->max_speed = (float *)calloc(n + 1, sizeof(float));
  for (int k = 0; k < 3; k++)
    w->wander[k] = (float *)calloc(n + 1, sizeof(float));
  for (size_t i = 0; i < n; i++) {
    w->mask[i] = rng_below(&r, 6) == 0 ? 0u : (uint32_t)(rng_next(&r) & 0x1Fu);
    w->weight[i] = rng_range(&r, -0.5f, 2.0f);
  }
  w->grid = grid;
  build_grids(w);
  w->nb.grid = grid;
  w->nb.max_neighbours = 6;
  w->nb_positions = w->nb;
  w->nb_positions.grid = positions_grid;
  w->wander_state =
      (crowdsteer_wander_state){{w->wander[0], w->wander[1], w->wander[2]}, 7u, 3u};
  static const crowdsteer_behaviour kinds[KINDS] = {
      CROWDSTEER_SEPARATION, CROWDSTEER_SEEK, CROWDSTEER_COHESION, CROWDSTEER_WANDER,
      CROWDSTEER_ALIGNMENT};
  for (int b = 0; b < KINDS; b++) {
    crowdsteer_step_behaviour *d = &w->behaviours[b];
    d->behaviour = kinds[b];
    d->params.max_speed = 1.5f;
    d->params.time_to_target = 0.5f;
    d->params.wander_radius = 1.0f;
    d->params.wander_distance = 2.0f;
    d->params.jitter = 0.3f;
    d->weight = 0.5f + 0.25f * (float)b;
    d->neighbours = &w->nb;
    d->wander = &w->wander_state;
  }
  w->behaviours[0].neighbours = &w->nb_positions;
  w->behaviours[1].target.point[0] = 30.0f;
  w->behaviours[0].params.max_speed = 0.0f; /* the integrator's, in a step */
  w->behaviours[2].weight_per_agent = w->weight;
  w->step.behaviours = w->behaviours;
  w->step.behaviour_count = KINDS;
  w->step.combine = (crowdsteer_combine)combine;
  w->step.priority_threshold = 0.75f;
  w->step.behaviour_mask = w->mask;
  w->step.integrator.max_speed = 2.0f;
  w->step.integrator.dt = 0.5f;
}

static void free_world(world *w) {
  crowd_free(&w->c);
  free(w->mask);
  free(w->weight);
  free(w->time_to_target);
  free(w->max_speed);
  for (int k = 0; k < 3; k++)
    free(w->wander[k]);
}

/* One behaviour through its entry point, for every agent that uses it. */
static void single(world *w, int b, float *const out[3]) {
  crowdsteer_step_behaviour copy = w->behaviours[b];
  const crowdsteer_step_behaviour *d = &copy;
  if (copy.params.max_speed == 0.0f && !copy.params.max_speed_per_agent)
    copy.params.max_speed = w->step.integrator.max_speed;
  crowdsteer_output o = {{out[0], out[1], out[2]}, CROWDSTEER_OVERWRITE, 0, NULL};
  crowdsteer_agents *a = &w->c.agents;
  switch (d->behaviour) {
  case CROWDSTEER_SEEK:
    CHECK_STATUS(crowdsteer_seek(a, &d->target, &d->params, &o, 0, a->count),
                 CROWDSTEER_OK);
    break;
  case CROWDSTEER_WANDER:
    for (size_t i = 0; i < a->count; i++)
      if (w->mask[i] & (1u << b))
        CHECK_STATUS(crowdsteer_wander(a, d->wander, &d->params, &o, i, i + 1),
                     CROWDSTEER_OK);
    break;
  default:
    CHECK_STATUS(nb_call(d->behaviour - CROWDSTEER_SEPARATION, &w->c, d->neighbours,
                         &d->params, &o, 0, a->count),
                 CROWDSTEER_OK);
  }
}

static void compose(world *w) {
  const size_t n = w->c.count;
  const int dims = w->c.dims;
  float *steer[KINDS][3], *acc[3], *decided = (float *)calloc(n + 1, sizeof(float));
  for (int k = 0; k < 3; k++) {
    acc[k] = (float *)calloc(n + 1, sizeof(float));
    for (int b = 0; b < KINDS; b++)
      steer[b][k] = (float *)calloc(n + 1, sizeof(float));
  }
  for (int b = 0; b < KINDS; b++)
    single(w, b, steer[b]);
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < KINDS; b++) {
      if (!(w->mask[i] & (1u << b))) continue;
      const crowdsteer_step_behaviour *d = &w->behaviours[b];
      const float weight = d->weight_per_agent ? d->weight_per_agent[i] : d->weight;
      if (w->step.combine == CROWDSTEER_BLEND) {
        for (int k = 0; k < dims; k++)
          acc[k][i] = acc[k][i] + weight * steer[b][k][i];
      } else if (decided[i] == 0.0f) {
        float dot = 0.0f;
        for (int k = 0; k < dims; k++) {
          acc[k][i] = steer[b][k][i] * weight;
          dot = k == 0 ? acc[k][i] * acc[k][i] : dot + acc[k][i] * acc[k][i];
        }
        if (sqrtf(dot) > w->step.priority_threshold) decided[i] = 1.0f;
      }
    }
  crowdsteer_vectors steering = {acc[0], acc[1], acc[2]};
  CHECK_STATUS(crowdsteer_integrate(&w->c.agents, &steering, &w->step.integrator, 0, n),
               CROWDSTEER_OK);
  for (int k = 0; k < 3; k++) {
    free(acc[k]);
    for (int b = 0; b < KINDS; b++)
      free(steer[b][k]);
  }
  free(decided);
}

static int same_world(const world *a, const world *b, const char *what) {
  for (int k = 0; k < a->c.dims; k++)
    for (size_t i = 0; i < a->c.count; i++) {
      const float x[3] = {a->c.a[k][i], a->c.a[3 + k][i], a->wander[k][i]};
      const float y[3] = {b->c.a[k][i], b->c.a[3 + k][i], b->wander[k][i]};
      for (int f = 0; f < 3; f++)
        if (!same_bits(x[f], y[f])) {
          CHECK_MSG(0, "%s isa %s %dD n=%zu agent %zu axis %d field %d: %.9g vs %.9g",
                    what, crowdsteer_isa_name(crowdsteer_active_isa()), a->c.dims,
                    a->c.count, i, k, f, x[f], y[f]);
          return 0;
        }
    }
  return 1;
}

/* One step of the whole crowd in place, or `split` in two ranges, the later
 * part first. */
static void step_world(world *w, int split) {
  const size_t n = w->c.count;
  if (split) {
    CHECK_STATUS(crowdsteer_step(&w->c.agents, &w->step, n / 3, n), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_step(&w->c.agents, &w->step, 0, n / 3), CROWDSTEER_OK);
  } else {
    CHECK_STATUS(crowdsteer_step(&w->c.agents, &w->step, 0, n), CROWDSTEER_OK);
  }
}

static void check_case(size_t n, int dims, int combine, const crowdsteer_isa *isas,
                       int isa_count, crowdsteer_grid *grid) {
  world want, got;
  CHECK(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) == CROWDSTEER_OK);
  make_world(&want, n, dims, combine, grid);
  compose(&want);
  static const size_t tiles[] = {0, 1, 7, 64, 4096};
  static const int threads[] = {1, 2, 3, 0};
  for (int isa = 0; isa < isa_count; isa++) {
    CHECK(crowdsteer_force_isa(isas[isa]) == CROWDSTEER_OK);
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
      make_world(&got, n, dims, combine, grid);
      got.step.tile_size = tiles[t];
      got.step.threads = threads[t % 4];
      if (t == 3) { /* double-buffered: the new state goes to a second crowd */
        crowd next;
        crowd_init(&next, n, dims);
        got.step.output = &next.agents;
        CHECK_STATUS(crowdsteer_step(&got.c.agents, &got.step, 0, n), CROWDSTEER_OK);
        for (int k = 0; k < 2 * 3; k++)
          memcpy(got.c.a[k], next.a[k], n * sizeof(float));
        crowd_free(&next);
      } else {
        step_world(&got, t == 2 && n > 10);
      }
      char what[64];
      snprintf(what, sizeof what, "%s tile=%zu threads=%d",
               combine == CROWDSTEER_BLEND ? "blend" : "priority", tiles[t],
               threads[t % 4]);
      same_world(&want, &got, what);
      free_world(&got);
    }
  }
  free_world(&want);
}

static void check_validation(crowdsteer_grid *grid) {
  world w;
  make_world(&w, 50, 2, CROWDSTEER_BLEND, grid);
  w.behaviours[0].neighbours = NULL;
  CHECK_STATUS(crowdsteer_step(&w.c.agents, &w.step, 0, 50),
               CROWDSTEER_ERROR_NULL_POINTER);
  crowdsteer_neighbours no_grid = w.nb;
  no_grid.grid = NULL;
  no_grid.radius = 1.0f;
  w.behaviours[0].neighbours = &no_grid;
  CHECK_STATUS(crowdsteer_step(&w.c.agents, &w.step, 0, 50),
               CROWDSTEER_ERROR_NULL_POINTER);
  w.behaviours[0].neighbours = &w.nb;
  w.nb.radius = 2.0f; /* above the cell size */
  CHECK_STATUS(crowdsteer_step(&w.c.agents, &w.step, 0, 50), CROWDSTEER_ERROR_PARAMETER);
  w.nb.radius = 0.0f;
  float radii[50];
  for (int i = 0; i < 50; i++)
    radii[i] = 0.5f;
  radii[7] = -1.0f; /* checked only where the mask selects separation */
  w.nb.radius_per_agent = radii;
  w.mask[7] = 1u;
  CHECK_STATUS(crowdsteer_step(&w.c.agents, &w.step, 0, 50), CROWDSTEER_ERROR_PARAMETER);
  w.mask[7] = 2u;
  w.behaviours[2].neighbours = NULL; /* cohesion keeps the valid query */
  w.behaviours[2].neighbours = &w.nb;
  w.behaviours[4].neighbours = &w.nb;
  CHECK_STATUS(crowdsteer_step(&w.c.agents, &w.step, 8, 50), CROWDSTEER_OK);
  crowd other;
  crowd_init(&other, 10, 2);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &other.agents, &desc), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_step(&w.c.agents, &w.step, 0, 50), CROWDSTEER_ERROR_GRID);
  crowd_free(&other);
  free_world(&w);
}

/* The caller and every OpenMP worker in a hostile floating-point mode
 * (upward rounding; on x86 FTZ and DAZ too), or back in the default. */
static void set_host_mode(int hostile) {
#ifdef _OPENMP
#pragma omp parallel num_threads(4)
#endif
  {
    fesetround(hostile ? FE_UPWARD : FE_TONEAREST);
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr((_mm_getcsr() & ~0x8040u) | (hostile ? 0x8040u : 0u));
#endif
  }
  fesetround(hostile ? FE_UPWARD : FE_TONEAREST);
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr((_mm_getcsr() & ~0x8040u) | (hostile ? 0x8040u : 0u));
#endif
}

/* A crowd large enough that the neighbour pass runs on several threads:
 * with the host in a hostile mode, and with threads up to INT_MAX and one
 * agent per tile, the step gives the one-thread, default-mode bits, and
 * the caller's mode is as it was. */
static void check_host_mode_and_threads(crowdsteer_grid *grid) {
  enum { N = 5000 };
  world want, got;
  make_world(&want, N, 2, CROWDSTEER_BLEND, grid);
  want.step.threads = 1;
  CHECK_STATUS(crowdsteer_step(&want.c.agents, &want.step, 0, N), CROWDSTEER_OK);
  /* INT_MAX (a team clamped to four per processor) is left to the plain
   * builds: LeakSanitizer reports clang's libomp state of threads beyond its
   * first team as a leak. */
#if defined(__SANITIZE_ADDRESS__)
#define NB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NB_SANITIZED 1
#endif
#endif
#ifdef NB_SANITIZED
  static const int threads[] = {2, 3};
#else
  static const int threads[] = {2, 3, INT_MAX};
#endif
  static const size_t tiles[] = {0, 1};
  for (int hostile = 0; hostile < 2; hostile++)
    for (size_t h = 0; h < sizeof threads / sizeof threads[0]; h++)
      for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
        make_world(&got, N, 2, CROWDSTEER_BLEND, grid);
        got.step.threads = threads[h];
        got.step.tile_size = tiles[t];
        set_host_mode(hostile);
        /* The host's mode as set (WebAssembly has round-to-nearest only). */
        const int host_rounding = fegetround();
        const crowdsteer_status status = crowdsteer_step(&got.c.agents, &got.step, 0, N);
        const int rounding = fegetround();
        set_host_mode(0);
        CHECK_STATUS(status, CROWDSTEER_OK);
        CHECK(rounding == host_rounding);
#ifndef __EMSCRIPTEN__
        CHECK(rounding == (hostile ? FE_UPWARD : FE_TONEAREST));
#endif
        char what[64];
        snprintf(what, sizeof what, "%s host, threads=%d tile=%zu",
                 hostile ? "hostile" : "default", threads[h], tiles[t]);
        same_world(&want, &got, what);
        free_world(&got);
      }
  free_world(&want);
}

/* Velocities whose alignment sums sit just past a float tie above 2^53
 * (at 2^24, cs_fixed's clamp, a velocity is 2^48 in the sums): for the
 * agent at rest and those at the clamp the exact sum along x is (2^5 +
 * 1 or 2^5) * 2^48 + 2^29 + 1 (float spacing 2^30 there), which a
 * conversion through a double (spacing 2) rounds twice, down; the
 * correct rounding is up. Agents [0, 36) must be within each other's
 * radius, the only agents there. */
static void velocities_past_2_53(world *w) {
  for (size_t i = 0; i < 36; i++)
    for (int k = 0; k < w->c.dims; k++)
      w->c.a[3 + k][i] = 0.0f;
  for (size_t i = 0; i < 33; i++)
    w->c.a[3][i] = 0x1p24f;
  w->c.a[3][33] = 32.0f;    /* 2^29 in the sums */
  w->c.a[3][34] = 0x1p-24f; /* 1 */
}

/* A world for check_flock: a cluster of `cluster` agents in one cell,
 * odd velocities (or, with `past_2_53` and a cluster of 36, those of
 * velocities_past_2_53), no cap, per-agent parameters; cohesion over
 * alignment's radius (`shared`) or a smaller one; with or without the
 * behaviour mask. */
static void make_flock(world *w, size_t n, int dims, size_t cluster, int shared,
                       int masked, int past_2_53, crowdsteer_grid *grid) {
  static const float odd[] = {1e30f,  -1e30f, 3e7f,     -16777216.5f, 12345.678f,
                              1e-30f, 1e-40f, INFINITY, -INFINITY,    NAN};
  make_world(w, n, dims, CROWDSTEER_BLEND, grid);
  rng r = {0xF10Cu + n + cluster};
  for (size_t i = 0; i < n; i++) {
    if (i < cluster) /* in one cell, all moving alike: sums that grow */
      for (int k = 0; k < dims; k++) {
        w->c.a[k][i] = 0.25f + 0.5f * rng_range(&r, 0.0f, 1.0f);
        w->c.a[3 + k][i] = 0.99f + rng_range(&r, 0.0f, 0.009f);
      }
    if (rng_below(&r, 8) == 0)
      w->c.a[3 + rng_below(&r, (uint32_t)dims)][i] = odd[rng_below(&r, 10)];
    if (!masked) w->mask[i] = 0x1Fu;
  }
  if (past_2_53) velocities_past_2_53(w);
  /* Per-agent time to target (cohesion, alignment) and cohesion's speed:
   * the steering in lanes gathers them by agent index. */
  for (size_t i = 0; i < n; i++) {
    w->time_to_target[i] = rng_range(&r, 0.25f, 2.0f);
    w->max_speed[i] = rng_range(&r, 0.5f, 3.0f);
  }
  w->behaviours[2].params.time_to_target_per_agent = w->time_to_target;
  w->behaviours[2].params.max_speed_per_agent = w->max_speed;
  w->behaviours[4].params.time_to_target_per_agent = w->time_to_target;
  build_grids(w);
  w->nb.max_neighbours = 0;
  w->nb_positions.max_neighbours = 0;
  w->nb_narrow = w->nb;
  w->nb_narrow.radius = 0.75f;
  if (!shared) w->behaviours[2].neighbours = &w->nb_narrow;
  if (!masked) w->step.behaviour_mask = NULL;
}

/* A flock in a step: the composition's bits for neighbourhoods past the
 * kernels' 32-bit lane totals (a cluster of 300: past 96 neighbours; of
 * 2,200: past the 128 vectors of candidates after which 32-bit
 * lane sums of velocities near 1 overflow), with no cap, velocities from
 * 1e-40 to 1e30, infinite and NaN (both parts of alignment's exact sums),
 * on 1 to 3 threads and a split range. Under gcc 12 with AddressSanitizer
 * this overran rows_group's stack before m_word (kernels/vec.h). */
static void check_flock(size_t n, int dims, size_t cluster, int shared, int masked,
                        int past_2_53, const crowdsteer_isa *isas, int isa_count,
                        crowdsteer_grid *grid) {
  world want, got;
  CHECK(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) == CROWDSTEER_OK);
  make_flock(&want, n, dims, cluster, shared, masked, past_2_53, grid);
  compose(&want);
  for (int isa = 0; isa < isa_count; isa++) {
    CHECK(crowdsteer_force_isa(isas[isa]) == CROWDSTEER_OK);
    for (int threads = 1; threads <= 3; threads++) {
      make_flock(&got, n, dims, cluster, shared, masked, past_2_53, grid);
      got.step.threads = threads;
      step_world(&got, threads == 3);
      char what[96];
      snprintf(what, sizeof what,
               "flock cluster=%zu shared=%d masked=%d past_2_53=%d threads=%d", cluster,
               shared, masked, past_2_53, threads);
      same_world(&want, &got, what);
      free_world(&got);
    }
  }
  free_world(&want);
}

int main(void) {
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  const int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  if (isa_count < 0) return 77;
  crowdsteer_grid *grid;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_grid_create(&positions_grid), CROWDSTEER_OK);
  static const size_t counts[] = {0, 1, 33, 700};
  for (int dims = 2; dims <= 3; dims++)
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
      for (int combine = 0; combine < 2; combine++)
        check_case(counts[c], dims, combine, isas, isa_count, grid);
  /* Clusters of 300 (past 96 neighbours) and 2,200 (past 128 vectors);
   * cohesion over alignment's radius or not, with the behaviour mask or
   * not. Kept small: the aarch64 job runs this under qemu, where no
   * backend walks agent by agent (the 2,200 are for those that do). */
  for (int dims = 2; dims <= 3; dims++) {
    check_flock(1200, dims, 300, 1, 0, 0, isas, isa_count, grid);
    check_flock(36, dims, 36, 1, 0, 1, isas, isa_count, grid);
  }
  check_flock(1200, 2, 300, 1, 1, 0, isas, isa_count, grid);
  check_flock(1200, 2, 300, 0, 0, 0, isas, isa_count, grid);
  for (int isa = 0; isa < isa_count; isa++) /* 8 or 16 lanes walk agent by agent */
    if (isas[isa] == CROWDSTEER_ISA_AVX2 || isas[isa] == CROWDSTEER_ISA_AVX512) {
      check_flock(2500, 2, 2200, 1, 0, 0, isas, isa_count, grid);
      break;
    }
  check_validation(grid);
  for (int isa = 0; isa < isa_count; isa++) {
    CHECK(crowdsteer_force_isa(isas[isa]) == CROWDSTEER_OK);
    check_host_mode_and_threads(grid);
  }
  crowdsteer_grid_destroy(grid);
  crowdsteer_grid_destroy(positions_grid);
  return check_report("test_neighbours_step");
}
