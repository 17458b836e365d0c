/* Deterministic random crowds for tests: only integer arithmetic and IEEE
 * + - * / (no libm), so the same seed gives the same floats on every
 * platform. Inputs span many scales and hit every branch of every behaviour:
 * agents on their target, at rest, head-on, inside and outside each radius. */
#ifndef CROWDSTEER_TEST_SCENARIO_H
#define CROWDSTEER_TEST_SCENARIO_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/splitmix64.h"
#include "crowdsteer.h"

/* The library's internal choice of gather for AGENTS targets
 * (src/internal.h; the tests link the static library), so that tests check
 * both ways on every CPU: the bits never depend on it. */
void cs_set_gather_instruction(int use);
int cs_gather_instruction_pays(void);
/* Likewise how grid builds sort (src/internal.h): 0 each build chooses, 1
 * the partitioned passes, 2 the direct sort. */
void cs_grid_set_sort(int way);
/* Which runs the threads of a call without a task system (1: the library's
 * pool, 2: OpenMP), and how many workers the pool has started. */
void cs_team_force(int team);
int cs_pool_workers(void);
/* And whether the build's partition pass may use PREFETCHW: 0 never, 1 when
 * the CPU has it. */
void cs_set_write_prefetch(int allow);

typedef struct rng {
  uint64_t state;
} rng;

static inline uint64_t rng_next(rng *r) { return splitmix64_next(&r->state); }

/* Uniform in [0, 1), 24 bits. */
static inline float rng_unit(rng *r) {
  return (float)(uint32_t)(rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

static inline float rng_range(rng *r, float lo, float hi) {
  return lo + (hi - lo) * rng_unit(r);
}

static inline uint32_t rng_below(rng *r, uint32_t n) {
  return (uint32_t)((rng_next(r) >> 32) % n);
}

/* A magnitude from 1e-6 to 1e18 (the state range of behaviours.md §10),
 * mostly moderate so the interesting branches are common. */
static inline float rng_scale(rng *r) {
  static const float scales[] = {1e-6f, 1e-2f,  1.0f, 1.0f, 10.0f,
                                 10.0f, 100.0f, 1e4f, 1e9f, 1e18f};
  return scales[rng_below(r, sizeof scales / sizeof scales[0])];
}

/* Every array a call may touch, `count` agents, starting `misalign` floats
 * past an aligned allocation so kernels see unaligned starts. */
typedef struct scenario {
  size_t count;
  int dims;
  float *storage;
  float *p[3], *v[3], *tp[3], *tv[3], *out[3], *wander[3];
  float *max_speed, *max_force, *mass, *target_radius, *slowing_radius;
  float *panic_radius, *danger_radius, *escape_radius, *wander_radius;
  float *wander_distance, *weight;
  float *time_to_target, *max_prediction, *jitter;
  uint32_t *index;
} scenario;

enum { SCENARIO_FLOAT_ARRAYS = 6 * 3 + 14 };

static inline void scenario_free(scenario *s) {
  free(s->storage);
  free(s->index);
  memset(s, 0, sizeof *s);
}

/* Agent i's state, target and parameters, from `r`. */
static inline void scenario_agent(scenario *s, rng *r, size_t i) {
  const size_t count = s->count;
  float scale = rng_scale(r);
  float vscale = rng_scale(r) < 1e9f ? rng_scale(r) : 1.0f;
  for (int k = 0; k < 3; k++) {
    s->p[k][i] = rng_range(r, -1.0f, 1.0f) * scale;
    s->v[k][i] = rng_range(r, -1.0f, 1.0f) * vscale;
    s->tp[k][i] = s->p[k][i] + rng_range(r, -1.0f, 1.0f) * rng_scale(r);
    s->tv[k][i] = rng_range(r, -1.0f, 1.0f) * vscale;
    s->out[k][i] = rng_range(r, -5.0f, 5.0f);
    s->wander[k][i] = rng_range(r, -1.0f, 1.0f);
  }
  switch (rng_below(r, 8)) { /* edge cases, one agent in eight */
  case 0:
    for (int k = 0; k < 3; k++)
      s->tp[k][i] = s->p[k][i]; /* on the target */
    break;
  case 1:
    for (int k = 0; k < 3; k++)
      s->v[k][i] = 0.0f; /* at rest */
    break;
  case 2:
    for (int k = 0; k < 3; k++) { /* head-on: quarry ahead, coming back */
      s->v[k][i] = s->tp[k][i] - s->p[k][i];
      s->tv[k][i] = -s->v[k][i];
    }
    break;
  case 3:
    for (int k = 0; k < 3; k++)
      s->wander[k][i] = 0.0f, s->tv[k][i] = 0.0f;
    break;
  default: break;
  }
  float reach = rng_scale(r);
  s->max_speed[i] = rng_below(r, 16) == 0 ? 0.0f : rng_range(r, 0.0f, 4.0f) * vscale;
  s->max_force[i] = rng_below(r, 4) == 0 ? (float)INFINITY : rng_range(r, 0.0f, 3.0f);
  s->mass[i] = rng_range(r, 0.25f, 4.0f);
  s->target_radius[i] = rng_range(r, 0.0f, 0.2f) * reach;
  s->slowing_radius[i] = rng_range(r, 0.0f, 2.0f) * reach;
  s->panic_radius[i] =
      rng_below(r, 4) == 0 ? (float)INFINITY : rng_range(r, 0.0f, 2.0f) * reach;
  s->danger_radius[i] = rng_below(r, 8) == 0 ? 0.0f : rng_range(r, 0.0f, 2.0f) * reach;
  s->escape_radius[i] = rng_range(r, 0.0f, 1.0f) * s->danger_radius[i];
  s->wander_radius[i] = rng_range(r, 0.0f, 3.0f);
  s->wander_distance[i] = rng_range(r, 0.0f, 5.0f);
  s->weight[i] = rng_range(r, -2.0f, 2.0f);
  s->index[i] = rng_below(r, (uint32_t)count);
}

static inline void scenario_make(scenario *s, size_t count, int dims, uint64_t seed,
                                 size_t misalign) {
  memset(s, 0, sizeof *s);
  s->count = count;
  s->dims = dims;
  size_t stride = count + 32;
  s->storage = (float *)calloc(stride * SCENARIO_FLOAT_ARRAYS, sizeof(float));
  s->index = (uint32_t *)calloc(count + 1, sizeof(uint32_t));
  float *next = s->storage + misalign;
#define TAKE() (next += stride, next - stride)
  for (int k = 0; k < 3; k++) {
    s->p[k] = TAKE();
    s->v[k] = TAKE();
    s->tp[k] = TAKE();
    s->tv[k] = TAKE();
    s->out[k] = TAKE();
    s->wander[k] = TAKE();
  }
  s->max_speed = TAKE();
  s->max_force = TAKE();
  s->mass = TAKE();
  s->target_radius = TAKE();
  s->slowing_radius = TAKE();
  s->panic_radius = TAKE();
  s->danger_radius = TAKE();
  s->escape_radius = TAKE();
  s->wander_radius = TAKE();
  s->wander_distance = TAKE();
  s->weight = TAKE();
  s->time_to_target = TAKE();
  s->max_prediction = TAKE();
  s->jitter = TAKE();
#undef TAKE
  rng r = {seed};
  for (size_t i = 0; i < count; i++)
    scenario_agent(s, &r, i);
  /* From a generator of their own, so the arrays above (and the recorded
   * golden hashes) do not depend on them. */
  rng timing = {seed ^ 0x71AE5EEDu};
  for (size_t i = 0; i < count; i++) {
    s->time_to_target[i] =
        rng_below(&timing, 8) == 0 ? 1.0f : rng_range(&timing, 0.05f, 4.0f);
    s->max_prediction[i] = rng_below(&timing, 4) == 0   ? (float)INFINITY
                           : rng_below(&timing, 8) == 0 ? 0.0f
                                                        : rng_range(&timing, 0.0f, 50.0f);
    s->jitter[i] = rng_below(&timing, 8) == 0 ? 0.0f : rng_range(&timing, 0.0f, 2.0f);
  }
}

static inline crowdsteer_agents scenario_agents(const scenario *s) {
  crowdsteer_agents a = {s->count, s->dims, s->p[0], s->p[1], s->p[2],
                         s->v[0],  s->v[1], s->v[2], NULL};
  return a;
}

static inline crowdsteer_vectors scenario_vectors(float *const a[3]) {
  crowdsteer_vectors v = {a[0], a[1], a[2]};
  return v;
}

#endif
