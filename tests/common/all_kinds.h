/* A mixed step over a test scenario that uses every behaviour kind (targets
 * of all three forms, uniform and per-agent parameters, a random behaviour
 * mask; seek .. wander, then follow_path on a pathway of its own), for the
 * tests that run steps in unusual conditions. */
#ifndef CROWDSTEER_TEST_ALL_KINDS_H
#define CROWDSTEER_TEST_ALL_KINDS_H

#include "check.h"
#include "entries.h"

enum { ALL_KINDS = 8 };

typedef struct all_kinds_step {
  crowdsteer_step_behaviour behaviours[ALL_KINDS];
  crowdsteer_wander_state wander;
  /* `other` is the step's output buffer or its snapshot: the caller points
   * step.output or step.snapshot at it. */
  crowdsteer_agents agents, other;
  crowdsteer_step_desc step;
  uint32_t *mask;
  crowdsteer_pathway *pathway; /* follow_path's, with its description */
  const crowdsteer_pathway *paths[1];
  crowdsteer_path_follow follow;
} all_kinds_step;

/* The behaviour of slot b: seek .. wander, then follow_path. */
static inline crowdsteer_behaviour all_kinds_behaviour(int b) {
  return b < CROWDSTEER_WANDER + 1 ? (crowdsteer_behaviour)b : CROWDSTEER_FOLLOW_PATH;
}

static inline void all_kinds_make(all_kinds_step *c, scenario *s, scenario *other,
                                  int combine) {
  memset(c, 0, sizeof *c);
  c->wander = (crowdsteer_wander_state){scenario_vectors(s->wander), 3u, 4u};
  static const float path_x[3] = {-3.0f, 2.0f, 5.0f}, path_y[3] = {1.0f, -2.0f, 4.0f},
                     path_z[3] = {0.0f, 1.0f, -1.0f};
  const crowdsteer_pathway_desc path = {s->dims, 3, path_x, path_y, path_z, 0.75f, 1};
  if (crowdsteer_pathway_create(&c->pathway, &path) != CROWDSTEER_OK) abort();
  c->paths[0] = c->pathway;
  c->follow.paths = c->paths;
  c->follow.path_count = 1;
  c->follow.direction = -1;
  c->follow.prediction_time = 1.5f;
  c->follow.lead_distance = 0.5f;
  for (int b = 0; b < ALL_KINDS; b++) {
    crowdsteer_step_behaviour *d = &c->behaviours[b];
    d->behaviour = all_kinds_behaviour(b);
    d->path = &c->follow;
    d->params = make_params(s, b % 2);
    d->target.kind = (crowdsteer_target_kind)(b % 3);
    d->target.point[0] = 1e-39f; /* denormal: host modes that flush it differ */
    d->target.point[1] = 2.0f;
    d->target.position = scenario_vectors(s->tp);
    d->target.velocity = scenario_vectors(s->tv);
    d->target.index = s->index;
    d->wander = &c->wander;
    d->weight = 0.75f;
    d->weight_per_agent = b == 1 ? s->weight : NULL;
  }
  c->mask = (uint32_t *)malloc((s->count + 1) * sizeof(uint32_t));
  rng r = {77 + s->count};
  for (size_t i = 0; i < s->count; i++)
    c->mask[i] = (uint32_t)rng_next(&r) & ((1u << ALL_KINDS) - 1u);
  c->agents = scenario_agents(s);
  c->other = scenario_agents(other);
  c->step.behaviours = c->behaviours;
  c->step.behaviour_count = ALL_KINDS;
  c->step.combine = (crowdsteer_combine)combine;
  c->step.priority_threshold = 0.25f;
  c->step.behaviour_mask = c->mask;
  c->step.integrator = make_params(s, 1);
}

static inline void all_kinds_free(all_kinds_step *c) {
  free(c->mask);
  crowdsteer_pathway_destroy(c->pathway);
}

/* Every float of two scenarios, bit for bit (NaN payloads aside). */
static inline int same_scenario(const scenario *a, const scenario *b) {
  const size_t floats = (a->count + 32) * SCENARIO_FLOAT_ARRAYS;
  for (size_t f = 0; f < floats; f++)
    if (!same_bits(a->storage[f], b->storage[f])) return 0;
  return 1;
}

#endif
