/* Runs any entry point of the library on a test scenario with one fixed
 * parameter set (uniform or per-agent), so several tests drive every
 * behaviour the same way. */
#ifndef CROWDSTEER_TEST_ENTRIES_H
#define CROWDSTEER_TEST_ENTRIES_H

#include "scenario.h"

/* The entry points these tests drive: the behaviours with their own kernels,
 * by their crowdsteer_behaviour values (the neighbour behaviours have
 * tests/neighbours), then the integrator. */
enum {
  SEEK = CROWDSTEER_SEEK,
  FLEE = CROWDSTEER_FLEE,
  ARRIVE = CROWDSTEER_ARRIVE,
  LEAVE = CROWDSTEER_LEAVE,
  PURSUIT = CROWDSTEER_PURSUIT,
  EVADE = CROWDSTEER_EVADE,
  WANDER = CROWDSTEER_WANDER,
  INTEGRATE,
  ENTRY_COUNT
};

static inline const char *entry_name(int entry) {
  return entry == INTEGRATE ? "integrate"
                            : crowdsteer_behaviour_name((crowdsteer_behaviour)entry);
}

/* per_agent: 0 uniform parameters, 1 per-agent arrays, 2 also per-agent
 * time_to_target, max_prediction and jitter. */
typedef struct variant {
  int entry, dims, target_kind, per_agent, accumulate;
  size_t count, misalign;
} variant;

static inline crowdsteer_params make_params(scenario *s, int per_agent) {
  crowdsteer_params p;
  memset(&p, 0, sizeof p);
  p.max_speed = 2.5f;
  p.max_force = 1.5f;
  p.mass = 1.25f;
  p.dt = 0.5f;
  p.time_to_target = 0.75f;
  p.target_radius = 0.05f;
  p.slowing_radius = 3.0f;
  p.panic_radius = 40.0f;
  p.danger_radius = 30.0f;
  p.escape_radius = 5.0f;
  p.max_prediction = 20.0f;
  p.wander_radius = 1.5f;
  p.wander_distance = 3.0f;
  p.jitter = 0.3f;
  if (per_agent) {
    p.max_speed_per_agent = s->max_speed;
    p.max_force_per_agent = s->max_force;
    p.mass_per_agent = s->mass;
    p.target_radius_per_agent = s->target_radius;
    p.slowing_radius_per_agent = s->slowing_radius;
    p.panic_radius_per_agent = s->panic_radius;
    p.danger_radius_per_agent = s->danger_radius;
    p.escape_radius_per_agent = s->escape_radius;
    p.wander_radius_per_agent = s->wander_radius;
    p.wander_distance_per_agent = s->wander_distance;
  }
  if (per_agent >= 2) { /* also the timing arrays */
    p.time_to_target_per_agent = s->time_to_target;
    p.max_prediction_per_agent = s->max_prediction;
    p.jitter_per_agent = s->jitter;
  }
  return p;
}

/* Calls `check` with every variant of every entry point: each dims, target
 * kind (behaviours with targets), uniform or per-agent parameters,
 * overwrite or accumulate. */
static inline void for_each_variant(size_t count, size_t misalign,
                                    void (*check)(const variant *va)) {
  for (int entry = 0; entry < ENTRY_COUNT; entry++)
    for (int dims = 2; dims <= 3; dims++)
      for (int kind = 0; kind < 3; kind++)
        for (int flags = 0; flags < 4; flags++) {
          if (kind > 0 && (entry == WANDER || entry == INTEGRATE)) continue;
          const variant va = {entry, dims, kind, flags & 1, flags >> 1, count, misalign};
          check(&va);
        }
}

/* Runs one entry point over [begin, end) on the active ISA. */
static inline crowdsteer_status run_entry(scenario *s, const variant *va, size_t begin,
                                          size_t end) {
  crowdsteer_agents agents = scenario_agents(s);
  crowdsteer_params params = make_params(s, va->per_agent);
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = scenario_vectors(s->out);
  if (va->accumulate) {
    out.mode = CROWDSTEER_ACCUMULATE;
    out.weight = 0.625f;
    if (va->per_agent) out.weight_per_agent = s->weight;
  }
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  target.kind = (crowdsteer_target_kind)va->target_kind;
  for (int k = 0; k < 3; k++) {
    target.point[k] = 3.0f - 2.0f * (float)k;
    target.point_velocity[k] = 0.5f + (float)k;
  }
  target.position = scenario_vectors(s->tp);
  target.velocity = scenario_vectors(s->tv);
  target.index = s->index;
  target.agent = va->target_kind == CROWDSTEER_TARGET_AGENT && s->count ? s->index[0] : 0;
  if (va->entry == INTEGRATE) {
    crowdsteer_vectors steering = scenario_vectors(s->tv);
    return crowdsteer_integrate(&agents, &steering, &params, begin, end);
  }
  crowdsteer_wander_state state = {scenario_vectors(s->wander), 1234u, 77u};
  crowdsteer_step_behaviour behaviour;
  memset(&behaviour, 0, sizeof behaviour);
  behaviour.behaviour = (crowdsteer_behaviour)va->entry;
  behaviour.target = target;
  behaviour.params = params;
  behaviour.wander = &state;
  return crowdsteer_run(&agents, &behaviour, &out, begin, end);
}

#endif
