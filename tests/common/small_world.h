/* The hand-sized fixture of the test family (tests/common): a small world
 * whose arrays all live in one struct (so "nothing was written" is one
 * memcmp) and a call of any named entry point whose struct arguments can
 * each be NULL (what crowdsteer_run cannot express, so bh_run names them).
 * Include once per test binary (check.h has state). */
#ifndef CROWDSTEER_TEST_SMALL_WORLD_H
#define CROWDSTEER_TEST_SMALL_WORLD_H

#include <float.h>
#include <stdint.h>

#include "check.h"
#include "entries.h"

enum { BH_MAX = 16 };

/* The entry points are tests/common/entries.h's (SEEK .. WANDER by their
 * crowdsteer_behaviour values, INTEGRATE, entry_name). */
typedef int bh_entry;

static inline int bh_has_target(bh_entry e) {
  return e != INTEGRATE &&
         (crowdsteer_behaviour_inputs((crowdsteer_behaviour)e) & CROWDSTEER_INPUT_TARGET);
}

/* Every array any call may read or write. */
typedef struct bh_world {
  float p[3][BH_MAX], v[3][BH_MAX], tp[3][BH_MAX], tv[3][BH_MAX];
  float out[3][BH_MAX], w[3][BH_MAX];
  float max_speed[BH_MAX], max_force[BH_MAX], mass[BH_MAX];
  float target_radius[BH_MAX], slowing_radius[BH_MAX], panic_radius[BH_MAX];
  float danger_radius[BH_MAX], escape_radius[BH_MAX];
  float wander_radius[BH_MAX], wander_distance[BH_MAX], weight[BH_MAX];
  float time_to_target[BH_MAX], max_prediction[BH_MAX], jitter[BH_MAX];
  uint32_t index[BH_MAX];
} bh_world;

/* The structs of one call, pointing into a bh_world. The *_ptr fields are
 * what bh_run passes, so a test can pass NULL for any of them. Never copy a
 * bh_call: the pointers point into itself. */
typedef struct bh_call {
  crowdsteer_agents agents;
  crowdsteer_target target;
  crowdsteer_params params;
  crowdsteer_output out;
  crowdsteer_wander_state wander;
  crowdsteer_vectors steering;
  const crowdsteer_agents *agents_ptr;
  const crowdsteer_target *target_ptr;
  const crowdsteer_params *params_ptr;
  const crowdsteer_output *out_ptr;
  crowdsteer_wander_state *wander_ptr;
  const crowdsteer_vectors *steering_ptr;
} bh_call;

static inline crowdsteer_vectors bh_vectors(float (*a)[BH_MAX]) {
  crowdsteer_vectors v = {a[0], a[1], a[2]};
  return v;
}

/* A call on `count` agents of `w` with zeroed (default) params, overwrite
 * mode, a target of `kind` reading w->tp/w->tv/w->index, wander state in w->w
 * and the integrator reading its steering from w->out. */
static inline void bh_call_init(bh_call *c, bh_world *w, size_t count, int dims,
                                crowdsteer_target_kind kind) {
  memset(c, 0, sizeof *c);
  crowdsteer_agents a = {count,   dims,    w->p[0], w->p[1], w->p[2],
                         w->v[0], w->v[1], w->v[2], NULL};
  c->agents = a;
  c->target.kind = kind;
  c->target.position = bh_vectors(w->tp);
  c->target.velocity = bh_vectors(w->tv);
  c->target.index = w->index;
  c->out.steering = bh_vectors(w->out);
  c->out.mode = CROWDSTEER_OVERWRITE;
  c->wander.direction = bh_vectors(w->w);
  c->steering = bh_vectors(w->out);
  c->agents_ptr = &c->agents;
  c->target_ptr = &c->target;
  c->params_ptr = &c->params;
  c->out_ptr = &c->out;
  c->wander_ptr = &c->wander;
  c->steering_ptr = &c->steering;
}

static inline crowdsteer_status bh_run(bh_entry e, bh_call *c, size_t begin, size_t end) {
  switch (e) {
  case SEEK:
    return crowdsteer_seek(c->agents_ptr, c->target_ptr, c->params_ptr, c->out_ptr, begin,
                           end);
  case FLEE:
    return crowdsteer_flee(c->agents_ptr, c->target_ptr, c->params_ptr, c->out_ptr, begin,
                           end);
  case ARRIVE:
    return crowdsteer_arrive(c->agents_ptr, c->target_ptr, c->params_ptr, c->out_ptr,
                             begin, end);
  case LEAVE:
    return crowdsteer_leave(c->agents_ptr, c->target_ptr, c->params_ptr, c->out_ptr,
                            begin, end);
  case PURSUIT:
    return crowdsteer_pursuit(c->agents_ptr, c->target_ptr, c->params_ptr, c->out_ptr,
                              begin, end);
  case EVADE:
    return crowdsteer_evade(c->agents_ptr, c->target_ptr, c->params_ptr, c->out_ptr,
                            begin, end);
  case WANDER:
    return crowdsteer_wander(c->agents_ptr, c->wander_ptr, c->params_ptr, c->out_ptr,
                             begin, end);
  case INTEGRATE:
    return crowdsteer_integrate(c->agents_ptr, c->steering_ptr, c->params_ptr, begin,
                                end);
  default: break;
  }
  return CROWDSTEER_ERROR_PARAMETER;
}

/* Fills every float array of `w` with a distinct recognisable pattern, so a
 * stray write is visible (and not mistaken for a legitimate zero). */
static inline void bh_world_fill(bh_world *w, float base) {
  float *f = &w->p[0][0];
  size_t n = offsetof(bh_world, index) / sizeof(float);
  for (size_t i = 0; i < n; i++)
    f[i] = base + 0.25f * (float)(i % 97);
  for (size_t i = 0; i < BH_MAX; i++)
    w->index[i] = 0;
}

/* Hand-written expectations are exact decimals; float rounding of a handful
 * of operations stays far below this. */
static inline double bh_tol(double want) { return 2e-6 * (1.0 + fabs(want)); }

static inline int bh_finite(float x) { return x == x && x >= -FLT_MAX && x <= FLT_MAX; }

static inline double bh_len(const float *x, int dims) {
  double s = 0.0;
  for (int k = 0; k < dims; k++)
    s += (double)x[k] * x[k];
  return sqrt(s);
}

#endif
