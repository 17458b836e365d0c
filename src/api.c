/* The single-call entry points (crowdsteer_run, the named behaviours,
 * crowdsteer_integrate): validate everything before any write
 * (validation.c), then hand the resolved job to the machinery its
 * behaviour's row names. crowdsteer_step is step.c's. */
#include <stddef.h>
#include <string.h>

#include "bounds/bounds.h"
#include "internal.h"
#include "path/path.h"

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

/* The overlap check of a single behaviour call whose every other input is
 * valid: its spans, the agents' own state at their own index (a neighbour
 * behaviour reads the grid's copy, or without one every agent:
 * cs_behaviour_spans) and the output (its weights in accumulate mode). */
static crowdsteer_status behaviour_call_apart(
    const crowdsteer_agents *agents, crowdsteer_behaviour behaviour,
    const crowdsteer_target *target, const crowdsteer_wander_state *wander,
    const crowdsteer_neighbours *nb, const crowdsteer_field_follow *field,
    const crowdsteer_params *params, const crowdsteer_path_follow *path,
    const crowdsteer_output *out, size_t begin, size_t end) {
  cs_spans spans;
  spans.n = 0;
  spans.written = 0;
  const int dims = agents->dims;
  if (!(cs_behaviour_row_of(behaviour)->inputs & CROWDSTEER_INPUT_NEIGHBOURS))
    cs_spans_add_state(&spans, agents, dims, begin, end, 0);
  cs_behaviour_spans(&spans, behaviour, agents, target, wander, nb, field, params, agents,
                     agents, begin, end);
  if (cs_behaviour_row_of(behaviour)->inputs & CROWDSTEER_INPUT_PATH)
    cs_path_spans(&spans, path, begin, end);
  cs_spans_add_vectors(&spans, &out->steering, dims, begin, end, 1);
  if (out->mode == CROWDSTEER_ACCUMULATE)
    cs_spans_add(&spans, out->weight_per_agent, begin, end, 0);
  return cs_spans_clash(&spans, &spans) ? CROWDSTEER_ERROR_OVERLAP : CROWDSTEER_OK;
}

/* What one single-behaviour call is given: the named entry points fill in
 * their behaviour's inputs, crowdsteer_run takes them from its description. */
typedef struct call {
  crowdsteer_behaviour behaviour;
  const crowdsteer_target *target;
  const crowdsteer_wander_state *wander;
  const crowdsteer_neighbours *neighbours;
  const crowdsteer_params *params;
  const crowdsteer_field_follow *field;
  const crowdsteer_path_follow *path;
  const crowdsteer_bounds *bounds;
} call;

/* A behaviour the backends' kernels run: validation, the overlap check,
 * then the kernel of the behaviour's row on `backend`. */
static crowdsteer_status run_on_kernels(const cs_backend *backend,
                                        const crowdsteer_agents *agents, const call *c,
                                        const crowdsteer_output *out, size_t begin,
                                        size_t end) {
  crowdsteer_status fault;
  cs_job job;
  memset(&job, 0, sizeof job);
  if ((fault = cs_prepare_behaviour(&job.in, c->behaviour, agents, c->target, c->wander,
                                    c->field, c->params, begin, end, NULL, 0)) !=
      CROWDSTEER_OK)
    return fault;
  if ((cs_behaviour_row_of(c->behaviour)->inputs & CROWDSTEER_INPUT_PATH) &&
      ((fault = cs_path_resolve(&job.in, c->path, begin, end)) != CROWDSTEER_OK ||
       (fault = cs_path_check_agents(c->path, &(cs_range){begin, end, NULL, 0})) !=
           CROWDSTEER_OK))
    return fault;
  if ((cs_behaviour_row_of(c->behaviour)->inputs & CROWDSTEER_INPUT_BOUNDS) &&
      (fault = cs_resolve_bounds(&job.in, c->bounds)) != CROWDSTEER_OK)
    return fault;
  if ((fault = cs_prepare_output(&job.policy, job.in.dims, out, begin, end)) !=
      CROWDSTEER_OK)
    return fault;
  if (begin == end) return CROWDSTEER_OK;
  if ((fault = behaviour_call_apart(agents, c->behaviour, c->target, c->wander, NULL,
                                    c->field, c->params, c->path, out, begin, end)) !=
      CROWDSTEER_OK)
    return fault;
  backend->run(backend->behaviour[c->behaviour][job.in.dims - 2], &job, begin, end);
  return CROWDSTEER_OK;
}

/* A behaviour the neighbour machinery runs (cs_nb_run validates and runs in
 * one call, on the active ISA). The overlap check comes first, on a call
 * whose shape is sound (otherwise cs_nb_run reports the fault); it reads
 * only pointers. */
static crowdsteer_status run_on_neighbours(const crowdsteer_agents *agents, const call *c,
                                           const crowdsteer_output *out, size_t begin,
                                           size_t end) {
  crowdsteer_status fault;
  if (agents && (agents->dims == 2 || agents->dims == 3) && begin < end &&
      end <= agents->count && c->neighbours && out &&
      (fault = behaviour_call_apart(agents, c->behaviour, NULL, NULL, c->neighbours, NULL,
                                    c->params, NULL, out, begin, end)) != CROWDSTEER_OK)
    return fault;
  return cs_nb_run(c->behaviour, agents, c->neighbours, c->params, out, begin, end);
}

/* The machinery the behaviour's row names; an unknown behaviour goes the
 * kernels' way, whose validation reports it. */
static crowdsteer_status run_here(const cs_backend *backend,
                                  const crowdsteer_agents *agents, const call *c,
                                  const crowdsteer_output *out, size_t begin,
                                  size_t end) {
  if (cs_runs_on_neighbours(c->behaviour))
    return run_on_neighbours(agents, c, out, begin, end);
  return run_on_kernels(backend, agents, c, out, begin, end);
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
  const call c = {behaviour->behaviour,  &behaviour->target, behaviour->wander,
                  behaviour->neighbours, &behaviour->params, behaviour->field,
                  behaviour->path,       behaviour->bounds};
  return run_call(backend, agents, &c, out, begin, end);
}

static crowdsteer_status integrate_here(const cs_backend *backend,
                                        const crowdsteer_agents *agents,
                                        const crowdsteer_vectors *steering,
                                        const crowdsteer_params *params, size_t begin,
                                        size_t end) {
  crowdsteer_status fault;
  cs_integrator job;
  if ((fault = cs_prepare_integrator(&job, agents, params, begin, end)) != CROWDSTEER_OK)
    return fault;
  if ((fault = cs_prepare_steering(&job, steering, begin, end)) != CROWDSTEER_OK)
    return fault;
  if (begin == end) return CROWDSTEER_OK;
  /* Positions and velocities are updated in place; everything else is read. */
  cs_spans spans;
  spans.n = 0;
  spans.written = 0;
  cs_spans_add_state(&spans, agents, job.dims, begin, end, 1);
  cs_spans_add_vectors(&spans, steering, job.dims, begin, end, 0);
  cs_spans_add(&spans, job.max_speed.array, begin, end, 0);
  cs_spans_add(&spans, job.max_force.array, begin, end, 0);
  cs_spans_add(&spans, job.mass.array, begin, end, 0);
  for (int k = 0; job.smoothing > 0.0f && k < job.dims; k++)
    cs_spans_add(&spans, job.accel[k], begin, end, 1);
  if (cs_spans_clash(&spans, &spans)) return CROWDSTEER_ERROR_OVERLAP;
  backend->integrate(&job, begin, end);
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
  const call c = {behaviour, target, NULL, NULL, params, NULL, NULL, NULL};
  return run_call(cs_active_backend(), agents, &c, out, begin, end);
}

static crowdsteer_status
run_neighbours(crowdsteer_behaviour behaviour, const crowdsteer_agents *agents,
               const crowdsteer_neighbours *nb, const crowdsteer_params *params,
               const crowdsteer_output *out, size_t begin, size_t end) {
  const call c = {behaviour, NULL, NULL, nb, params, NULL, NULL, NULL};
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
  const call c = {CROWDSTEER_WANDER, NULL, state, NULL, params, NULL, NULL, NULL};
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

crowdsteer_status crowdsteer_follow_field(const crowdsteer_agents *agents,
                                          const crowdsteer_field_follow *follow,
                                          const crowdsteer_params *params,
                                          const crowdsteer_output *out, size_t begin,
                                          size_t end) {
  const call c = {CROWDSTEER_FOLLOW_FIELD, NULL, NULL, NULL, params, follow, NULL, NULL};
  return run_call(cs_active_backend(), agents, &c, out, begin, end);
}

crowdsteer_status crowdsteer_follow_path(const crowdsteer_agents *agents,
                                         const crowdsteer_path_follow *follow,
                                         const crowdsteer_params *params,
                                         const crowdsteer_output *out, size_t begin,
                                         size_t end) {
  const call c = {CROWDSTEER_FOLLOW_PATH, NULL, NULL, NULL, params, NULL, follow, NULL};
  return run_call(cs_active_backend(), agents, &c, out, begin, end);
}

crowdsteer_status crowdsteer_integrate(const crowdsteer_agents *agents,
                                       const crowdsteer_vectors *steering,
                                       const crowdsteer_params *params, size_t begin,
                                       size_t end) {
  return cs_run_integrate(cs_active_backend(), agents, steering, params, begin, end);
}
