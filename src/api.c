/* Public entry points: validate everything (before any write), apply the
 * documented defaults, and hand a resolved job to the active backend. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "internal.h"

#define CS_STR2(x) #x
#define CS_STR(x) CS_STR2(x)

unsigned crowdsteer_version(void) { return CROWDSTEER_VERSION_NUMBER; }

const char *crowdsteer_version_string(void) {
  return CS_STR(CROWDSTEER_VERSION_MAJOR) "." CS_STR(CROWDSTEER_VERSION_MINOR) "." CS_STR(
      CROWDSTEER_VERSION_PATCH);
}

float crowdsteer_random(uint32_t seed, uint32_t agent_id, uint32_t tick, uint32_t axis) {
  const cs_fpenv host = cs_fpenv_enter();
  const float r = cs_random_from_key(cs_random_key(seed, tick, axis), agent_id);
  cs_fpenv_leave(host);
  return r;
}

/* ---- validation ---------------------------------------------------------- */

/* Which values a parameter accepts. NaN fails every rule. */
typedef enum value_rule {
  NON_NEGATIVE,        /* x >= 0, +inf allowed */
  NON_NEGATIVE_FINITE, /* 0 <= x < inf */
  POSITIVE,            /* x > 0, +inf allowed */
  FINITE               /* any sign, not inf */
} value_rule;

/* The rules per element, branch-free so that the loops below vectorise. */
static inline int non_negative(float x) { return x >= 0.0f; }
static inline int non_negative_finite(float x) { return (x >= 0.0f) & (x <= FLT_MAX); }
static inline int positive(float x) { return x > 0.0f; }
static inline int finite(float x) { return (x >= -FLT_MAX) & (x <= FLT_MAX); }

static int value_ok(float x, value_rule rule) {
  switch (rule) {
  case NON_NEGATIVE: return non_negative(x);
  case NON_NEGATIVE_FINITE: return non_negative_finite(x);
  case POSITIVE: return positive(x);
  case FINITE: return finite(x);
  }
  return 0;
}

/* Every element of `a` that `r` covers obeys `rule`. Inlined with a constant
 * rule, so each rule gets its own vectorised reduction. */
static inline __attribute__((always_inline)) int
all_obey(const float *a, const cs_range *r, int (*rule)(float)) {
  int ok = 1;
  if (!r->select) {
    for (size_t i = r->begin; i < r->end; i++)
      ok &= rule(a[i]);
  } else {
    for (size_t i = r->begin; i < r->end; i++)
      ok &= ((r->select[i] & r->bit) == 0) | rule(a[i]);
  }
  return ok;
}

static int array_ok(const float *a, const cs_range *r, value_rule rule) {
  switch (rule) {
  case NON_NEGATIVE: return all_obey(a, r, non_negative);
  case NON_NEGATIVE_FINITE: return all_obey(a, r, non_negative_finite);
  case POSITIVE: return all_obey(a, r, positive);
  case FINITE: return all_obey(a, r, finite);
  }
  return 0;
}

/* Every agent index that `r` covers is below count (32-bit compares, so the
 * loop vectorises; any uint32_t is below a count beyond 2^32 - 1). */
static int indices_ok(const uint32_t *index, size_t count, const cs_range *r) {
  if (count > UINT32_MAX) return 1;
  const uint32_t limit = (uint32_t)count;
  int ok = 1;
  if (!r->select) {
    for (size_t i = r->begin; i < r->end; i++)
      ok &= index[i] < limit;
  } else {
    for (size_t i = r->begin; i < r->end; i++)
      ok &= ((r->select[i] & r->bit) == 0) | (index[i] < limit);
  }
  return ok;
}

int cs_aligned(const void *array) { return ((uintptr_t)array & 3u) == 0; }

/* Resolves one parameter: uniform value (0 means `default_value`) or a
 * per-agent array, and checks the values in effect over the range (an
 * array only once it is known to be aligned: it is read as floats). */
static crowdsteer_status resolve_param(cs_param *out, float uniform,
                                       const float *per_agent, float default_value,
                                       value_rule rule, const cs_range *r) {
  out->array = per_agent;
  out->value = uniform == 0.0f ? default_value : uniform;
  int ok;
  if (!per_agent)
    ok = value_ok(out->value, rule);
  else if (r->begin == r->end)
    ok = 1;
  else if (!cs_aligned(per_agent))
    return CROWDSTEER_ERROR_ALIGNMENT;
  else
    ok = array_ok(per_agent, r, rule);
  return ok ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
}

/* The arrays of a vector a non-empty range uses: present, then aligned. */
static crowdsteer_status vectors_usable(const float *const a[3], int dims) {
  for (int k = 0; k < dims; k++)
    if (!a[k]) return CROWDSTEER_ERROR_NULL_POINTER;
  for (int k = 0; k < dims; k++)
    if (!cs_aligned(a[k])) return CROWDSTEER_ERROR_ALIGNMENT;
  return CROWDSTEER_OK;
}

static void copy_axes(const float *dst[3], const crowdsteer_vectors *v, int dims) {
  dst[0] = v->x;
  dst[1] = v->y;
  dst[2] = dims == 3 ? v->z : NULL;
}

static void copy_axes_rw(float *dst[3], const crowdsteer_vectors *v, int dims) {
  dst[0] = v->x;
  dst[1] = v->y;
  dst[2] = dims == 3 ? v->z : NULL;
}

/* Checks and copies the agent view; begin == end needs no arrays. */
static crowdsteer_status resolve_agents(cs_job *job, const crowdsteer_agents *agents,
                                        size_t begin, size_t end) {
  if (!agents) return CROWDSTEER_ERROR_NULL_POINTER;
  if (agents->dims != 2 && agents->dims != 3) return CROWDSTEER_ERROR_DIMS;
  if (begin > end || end > agents->count) return CROWDSTEER_ERROR_RANGE;
  job->dims = agents->dims;
  job->count = agents->count;
  crowdsteer_vectors p = {agents->px, agents->py, agents->pz};
  crowdsteer_vectors v = {agents->vx, agents->vy, agents->vz};
  copy_axes(job->pos, &p, job->dims);
  copy_axes(job->vel, &v, job->dims);
  memcpy(job->gather_pos, job->pos, sizeof job->pos);
  memcpy(job->gather_vel, job->vel, sizeof job->vel);
  if (begin == end) return CROWDSTEER_OK;
  CS_CHECK(vectors_usable(job->pos, job->dims));
  return vectors_usable(job->vel, job->dims);
}

static crowdsteer_status resolve_target(cs_job *job, const crowdsteer_target *target,
                                        int needs_velocity, size_t count,
                                        const cs_range *r) {
  if (!target) return CROWDSTEER_ERROR_NULL_POINTER;
  job->target_kind = target->kind;
  switch (target->kind) {
  case CROWDSTEER_TARGET_POINT: {
    /* A shared point is a parameter of the call, so it must be finite. */
    int ok = 1;
    for (int k = 0; k < job->dims; k++) {
      job->target_point[k] = target->point[k];
      job->target_point_velocity[k] = needs_velocity ? target->point_velocity[k] : 0.0f;
      ok &= value_ok(job->target_point[k], FINITE) &
            value_ok(job->target_point_velocity[k], FINITE);
    }
    return ok ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
  }
  case CROWDSTEER_TARGET_ARRAYS:
    copy_axes(job->target_pos, &target->position, job->dims);
    if (needs_velocity) copy_axes(job->target_vel, &target->velocity, job->dims);
    if (r->begin == r->end) return CROWDSTEER_OK;
    CS_CHECK(vectors_usable(job->target_pos, job->dims));
    return needs_velocity ? vectors_usable(job->target_vel, job->dims) : CROWDSTEER_OK;
  case CROWDSTEER_TARGET_AGENTS: {
    job->target_index = target->index;
    if (r->begin == r->end) return CROWDSTEER_OK;
    if (!target->index) return CROWDSTEER_ERROR_NULL_POINTER;
    if (!cs_aligned(target->index)) return CROWDSTEER_ERROR_ALIGNMENT;
    return indices_ok(target->index, count, r) ? CROWDSTEER_OK
                                               : CROWDSTEER_ERROR_AGENT_INDEX;
  }
  case CROWDSTEER_TARGET_AGENT:
    job->target_kind = CROWDSTEER_TARGET_POINT;
    if (r->begin == r->end) return CROWDSTEER_OK; /* nothing reads it */
    return cs_resolve_target_agent(job, target, needs_velocity);
  }
  return CROWDSTEER_ERROR_PARAMETER;
}

/* One index for the whole call: checked once, and its state copied once,
 * so the kernels run the POINT form (the same bits as gathering it). */
crowdsteer_status cs_resolve_target_agent(cs_job *job, const crowdsteer_target *target,
                                          int needs_velocity) {
  if (target->agent >= job->count) return CROWDSTEER_ERROR_AGENT_INDEX;
  job->target_kind = CROWDSTEER_TARGET_POINT;
  for (int k = 0; k < job->dims; k++) {
    job->target_point[k] = job->gather_pos[k][target->agent];
    job->target_point_velocity[k] =
        needs_velocity ? job->gather_vel[k][target->agent] : 0.0f;
  }
  return CROWDSTEER_OK;
}

int cs_all_finite(const float *a, const cs_range *r) { return array_ok(a, r, FINITE); }

static crowdsteer_status resolve_output(cs_job *job, const crowdsteer_output *out,
                                        size_t begin, size_t end) {
  if (!out) return CROWDSTEER_ERROR_NULL_POINTER;
  copy_axes_rw(job->out, &out->steering, job->dims);
  job->mode = out->mode;
  if (begin < end) CS_CHECK(vectors_usable((const float *const *)job->out, job->dims));
  if (out->mode == CROWDSTEER_OVERWRITE) return CROWDSTEER_OK;
  if (out->mode != CROWDSTEER_ACCUMULATE) return CROWDSTEER_ERROR_PARAMETER;
  const cs_range r = {begin, end, NULL, 0}; /* a uniform weight of 0 means 1 */
  return resolve_param(&job->weight, out->weight, out->weight_per_agent, 1.0f, FINITE,
                       &r);
}

crowdsteer_status cs_prepare_output(cs_job *job, const crowdsteer_output *out,
                                    size_t begin, size_t end) {
  return resolve_output(job, out, begin, end);
}

static crowdsteer_status resolve_params(cs_job *job, const crowdsteer_params *given,
                                        unsigned uses, const cs_range *r) {
  static const crowdsteer_params defaults;
  const crowdsteer_params *p = given ? given : &defaults;
  const float inf = (float)INFINITY;
  int ok = 1;
  if (uses & (CS_USES_MAX_SPEED | CS_USES_INTEGRATOR))
    CS_CHECK(resolve_param(&job->max_speed, p->max_speed, p->max_speed_per_agent, 1.0f,
                           NON_NEGATIVE_FINITE, r));
  if (uses & CS_USES_TIME_TO_TARGET)
    CS_CHECK(resolve_param(&job->time_to_target, p->time_to_target,
                           p->time_to_target_per_agent, 1.0f, POSITIVE, r));
  if (uses & CS_USES_ARRIVE_RADII) {
    CS_CHECK(resolve_param(&job->target_radius, p->target_radius,
                           p->target_radius_per_agent, 0.0f, NON_NEGATIVE, r));
    CS_CHECK(resolve_param(&job->slowing_radius, p->slowing_radius,
                           p->slowing_radius_per_agent, 0.0f, NON_NEGATIVE, r));
  }
  if (uses & CS_USES_PANIC_RADIUS)
    CS_CHECK(resolve_param(&job->panic_radius, p->panic_radius, p->panic_radius_per_agent,
                           inf, NON_NEGATIVE, r));
  if (uses & CS_USES_LEAVE_RADII) {
    CS_CHECK(resolve_param(&job->danger_radius, p->danger_radius,
                           p->danger_radius_per_agent, 0.0f, NON_NEGATIVE, r));
    CS_CHECK(resolve_param(&job->escape_radius, p->escape_radius,
                           p->escape_radius_per_agent, 0.0f, NON_NEGATIVE, r));
  }
  if (uses & CS_USES_PREDICTION) {
    CS_CHECK(resolve_param(&job->max_prediction, p->max_prediction,
                           p->max_prediction_per_agent, inf, NON_NEGATIVE, r));
    /* The largest float behaves as "no limit" for any T a finite state gives,
     * and keeps tv * T finite when max_speed + len(tv) is denormal. */
    if (job->max_prediction.value > FLT_MAX) job->max_prediction.value = FLT_MAX;
  }
  if (uses & CS_USES_WANDER) {
    CS_CHECK(resolve_param(&job->wander_radius, p->wander_radius,
                           p->wander_radius_per_agent, 0.0f, NON_NEGATIVE_FINITE, r));
    CS_CHECK(resolve_param(&job->wander_distance, p->wander_distance,
                           p->wander_distance_per_agent, 0.0f, NON_NEGATIVE_FINITE, r));
    CS_CHECK(resolve_param(&job->jitter, p->jitter, p->jitter_per_agent, 0.0f,
                           NON_NEGATIVE_FINITE, r));
  }
  if (uses & CS_USES_INTEGRATOR) {
    CS_CHECK(resolve_param(&job->max_force, p->max_force, p->max_force_per_agent, inf,
                           NON_NEGATIVE, r));
    CS_CHECK(resolve_param(&job->mass, p->mass, p->mass_per_agent, 1.0f, POSITIVE, r));
    job->dt = p->dt == 0.0f ? 1.0f : p->dt;
    ok &= value_ok(job->dt, NON_NEGATIVE_FINITE);
  }
  return ok ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
}

/* Wander's state: its direction arrays and the call's random keys. */
static crowdsteer_status resolve_wander(cs_job *job,
                                        const crowdsteer_wander_state *wander,
                                        const uint32_t *agent_id, size_t begin,
                                        size_t end) {
  if (!wander) return CROWDSTEER_ERROR_NULL_POINTER;
  copy_axes_rw(job->wander, &wander->direction, job->dims);
  if (begin < end) CS_CHECK(vectors_usable((const float *const *)job->wander, job->dims));
  for (int k = 0; k < job->dims; k++)
    job->wander_key[k] = cs_random_key(wander->seed, wander->tick, (uint32_t)k);
  job->agent_id = agent_id; /* wander is the one behaviour here reading ids */
  if (begin < end && agent_id && !cs_aligned(agent_id)) return CROWDSTEER_ERROR_ALIGNMENT;
  return CROWDSTEER_OK;
}

crowdsteer_status cs_prepare_behaviour(cs_job *job, crowdsteer_behaviour behaviour,
                                       const crowdsteer_agents *agents,
                                       const crowdsteer_target *target,
                                       const crowdsteer_wander_state *wander,
                                       const crowdsteer_params *params, size_t begin,
                                       size_t end, const uint32_t *select,
                                       uint32_t select_bit) {
  const cs_range r = {begin, end, select, select_bit};
  memset(job, 0, sizeof *job);
  CS_CHECK(resolve_agents(job, agents, begin, end));
  const cs_behaviour_row *row = cs_behaviour_row_of(behaviour);
  if (!row || (row->inputs & CROWDSTEER_INPUT_NEIGHBOURS))
    return CROWDSTEER_ERROR_PARAMETER; /* neighbours: see cs_nb_prepare */
  if (row->inputs & CROWDSTEER_INPUT_WANDER)
    CS_CHECK(resolve_wander(job, wander, agents->id, begin, end));
  if (row->inputs & CROWDSTEER_INPUT_TARGET)
    CS_CHECK(resolve_target(job, target,
                            (row->inputs & CROWDSTEER_INPUT_TARGET_VELOCITY) != 0,
                            agents->count, &r));
  return resolve_params(job, params, row->params, &r);
}

crowdsteer_status cs_prepare_integrator(cs_job *job, const crowdsteer_agents *agents,
                                        const crowdsteer_params *params, size_t begin,
                                        size_t end) {
  memset(job, 0, sizeof *job);
  CS_CHECK(resolve_agents(job, agents, begin, end));
  crowdsteer_vectors p = {agents->px, agents->py, agents->pz};
  crowdsteer_vectors v = {agents->vx, agents->vy, agents->vz};
  copy_axes_rw(job->pos_rw, &p, job->dims);
  copy_axes_rw(job->vel_rw, &v, job->dims);
  const cs_range r = {begin, end, NULL, 0};
  return resolve_params(job, params, CS_USES_INTEGRATOR, &r);
}

/* What one single-behaviour call is given: the named entry points fill in
 * their behaviour's inputs, crowdsteer_run takes them from its description. */
typedef struct call {
  crowdsteer_behaviour behaviour;
  const crowdsteer_target *target;
  const crowdsteer_wander_state *wander;
  const crowdsteer_neighbours *neighbours;
  const crowdsteer_params *params;
} call;

static crowdsteer_status run_here(const cs_backend *backend,
                                  const crowdsteer_agents *agents, const call *c,
                                  const crowdsteer_output *out, size_t begin,
                                  size_t end) {
  const cs_behaviour_row *row = cs_behaviour_row_of(c->behaviour);
  if (row && (row->inputs & CROWDSTEER_INPUT_NEIGHBOURS))
    return cs_nb_run(c->behaviour, agents, c->neighbours, c->params, out, begin, end);
  cs_job job;
  CS_CHECK(cs_prepare_behaviour(&job, c->behaviour, agents, c->target, c->wander,
                                c->params, begin, end, NULL, 0));
  CS_CHECK(resolve_output(&job, out, begin, end));
  if (begin < end) backend->run(backend->behaviour[c->behaviour], &job, begin, end);
  return CROWDSTEER_OK;
}

/* Validation included: a denormal compared under DAZ is zero. */
static crowdsteer_status run_call(const cs_backend *backend,
                                  const crowdsteer_agents *agents, const call *c,
                                  const crowdsteer_output *out, size_t begin,
                                  size_t end) {
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host, run_here(backend, agents, c, out, begin, end));
}

crowdsteer_status cs_run(const cs_backend *backend, const crowdsteer_agents *agents,
                         const crowdsteer_step_behaviour *behaviour,
                         const crowdsteer_output *out, size_t begin, size_t end) {
  if (!behaviour) return CROWDSTEER_ERROR_NULL_POINTER;
  const call c = {behaviour->behaviour, &behaviour->target, behaviour->wander,
                  behaviour->neighbours, &behaviour->params};
  return run_call(backend, agents, &c, out, begin, end);
}

static crowdsteer_status integrate_here(const cs_backend *backend,
                                        const crowdsteer_agents *agents,
                                        const crowdsteer_vectors *steering,
                                        const crowdsteer_params *params, size_t begin,
                                        size_t end) {
  cs_job job;
  CS_CHECK(cs_prepare_integrator(&job, agents, params, begin, end));
  if (!steering) return CROWDSTEER_ERROR_NULL_POINTER;
  copy_axes(job.steering, steering, job.dims);
  if (begin < end) CS_CHECK(vectors_usable(job.steering, job.dims));
  if (begin < end) backend->integrate(&job, begin, end);
  return CROWDSTEER_OK;
}

crowdsteer_status cs_run_integrate(const cs_backend *backend,
                                   const crowdsteer_agents *agents,
                                   const crowdsteer_vectors *steering,
                                   const crowdsteer_params *params, size_t begin,
                                   size_t end) {
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host,
                         integrate_here(backend, agents, steering, params, begin, end));
}

/* ---- the public entry points, on the active backend ----------------------- */

crowdsteer_status crowdsteer_run(const crowdsteer_agents *agents,
                                 const crowdsteer_step_behaviour *behaviour,
                                 const crowdsteer_output *out, size_t begin, size_t end) {
  return cs_run(cs_active_backend(), agents, behaviour, out, begin, end);
}

static crowdsteer_status
run_targeted(crowdsteer_behaviour behaviour, const crowdsteer_agents *agents,
             const crowdsteer_target *target, const crowdsteer_params *params,
             const crowdsteer_output *out, size_t begin, size_t end) {
  const call c = {behaviour, target, NULL, NULL, params};
  return run_call(cs_active_backend(), agents, &c, out, begin, end);
}

static crowdsteer_status
run_neighbours(crowdsteer_behaviour behaviour, const crowdsteer_agents *agents,
               const crowdsteer_neighbours *nb, const crowdsteer_params *params,
               const crowdsteer_output *out, size_t begin, size_t end) {
  const call c = {behaviour, NULL, NULL, nb, params};
  return run_call(cs_active_backend(), agents, &c, out, begin, end);
}

crowdsteer_status crowdsteer_seek(const crowdsteer_agents *agents,
                                  const crowdsteer_target *target,
                                  const crowdsteer_params *params,
                                  const crowdsteer_output *out, size_t begin,
                                  size_t end) {
  return run_targeted(CROWDSTEER_SEEK, agents, target, params, out, begin, end);
}

crowdsteer_status crowdsteer_flee(const crowdsteer_agents *agents,
                                  const crowdsteer_target *target,
                                  const crowdsteer_params *params,
                                  const crowdsteer_output *out, size_t begin,
                                  size_t end) {
  return run_targeted(CROWDSTEER_FLEE, agents, target, params, out, begin, end);
}

crowdsteer_status crowdsteer_arrive(const crowdsteer_agents *agents,
                                    const crowdsteer_target *target,
                                    const crowdsteer_params *params,
                                    const crowdsteer_output *out, size_t begin,
                                    size_t end) {
  return run_targeted(CROWDSTEER_ARRIVE, agents, target, params, out, begin, end);
}

crowdsteer_status crowdsteer_leave(const crowdsteer_agents *agents,
                                   const crowdsteer_target *target,
                                   const crowdsteer_params *params,
                                   const crowdsteer_output *out, size_t begin,
                                   size_t end) {
  return run_targeted(CROWDSTEER_LEAVE, agents, target, params, out, begin, end);
}

crowdsteer_status crowdsteer_pursuit(const crowdsteer_agents *agents,
                                     const crowdsteer_target *target,
                                     const crowdsteer_params *params,
                                     const crowdsteer_output *out, size_t begin,
                                     size_t end) {
  return run_targeted(CROWDSTEER_PURSUIT, agents, target, params, out, begin, end);
}

crowdsteer_status crowdsteer_evade(const crowdsteer_agents *agents,
                                   const crowdsteer_target *target,
                                   const crowdsteer_params *params,
                                   const crowdsteer_output *out, size_t begin,
                                   size_t end) {
  return run_targeted(CROWDSTEER_EVADE, agents, target, params, out, begin, end);
}

crowdsteer_status crowdsteer_wander(const crowdsteer_agents *agents,
                                    crowdsteer_wander_state *state,
                                    const crowdsteer_params *params,
                                    const crowdsteer_output *out, size_t begin,
                                    size_t end) {
  const call c = {CROWDSTEER_WANDER, NULL, state, NULL, params};
  return run_call(cs_active_backend(), agents, &c, out, begin, end);
}

crowdsteer_status crowdsteer_separation(const crowdsteer_agents *agents,
                                        const crowdsteer_neighbours *nb,
                                        const crowdsteer_params *params,
                                        const crowdsteer_output *out, size_t begin,
                                        size_t end) {
  return run_neighbours(CROWDSTEER_SEPARATION, agents, nb, params, out, begin, end);
}

crowdsteer_status crowdsteer_cohesion(const crowdsteer_agents *agents,
                                      const crowdsteer_neighbours *nb,
                                      const crowdsteer_params *params,
                                      const crowdsteer_output *out, size_t begin,
                                      size_t end) {
  return run_neighbours(CROWDSTEER_COHESION, agents, nb, params, out, begin, end);
}

crowdsteer_status crowdsteer_alignment(const crowdsteer_agents *agents,
                                       const crowdsteer_neighbours *nb,
                                       const crowdsteer_params *params,
                                       const crowdsteer_output *out, size_t begin,
                                       size_t end) {
  return run_neighbours(CROWDSTEER_ALIGNMENT, agents, nb, params, out, begin, end);
}

crowdsteer_status crowdsteer_integrate(const crowdsteer_agents *agents,
                                       const crowdsteer_vectors *steering,
                                       const crowdsteer_params *params, size_t begin,
                                       size_t end) {
  return cs_run_integrate(cs_active_backend(), agents, steering, params, begin, end);
}
