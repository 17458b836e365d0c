/* Validation, below every entry point: the rules a call's values obey, the
 * defaults, the resolved inputs of one behaviour (cs_inputs), of the
 * integrator and of a single call's output, and the memory spans of the
 * overlap check. Shared by api.c, step.c, the neighbour machinery and the
 * grid; it runs no behaviour. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "path/path.h"

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
    /* The active backend's vectors when it has them (the same answer). */
    const cs_backend *backend = cs_active_backend();
    if (backend->indices_below)
      return backend->indices_below(index, r->begin, r->end, limit);
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
 * per-agent array. A uniform value is checked here, an array is checked to
 * be aligned (it is read as floats); its values are checked by
 * check_param_array, over the agents that use it. */
static crowdsteer_status resolve_param(cs_param *out, float uniform,
                                       const float *per_agent, float default_value,
                                       value_rule rule, const cs_range *r) {
  out->array = per_agent;
  out->value = uniform == 0.0f ? default_value : uniform;
  if (!per_agent)
    return value_ok(out->value, rule) ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
  if (r->begin < r->end && !cs_aligned(per_agent)) return CROWDSTEER_ERROR_ALIGNMENT;
  return CROWDSTEER_OK;
}

static crowdsteer_status check_param_array(cs_param p, value_rule rule,
                                           const cs_range *r) {
  if (!p.array || r->begin == r->end) return CROWDSTEER_OK;
  return array_ok(p.array, r, rule) ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
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

/* Checks the agent view and copies its arrays; begin == end needs none. */
static crowdsteer_status resolve_agents(int *dims, size_t *count, const float *pos[3],
                                        const float *vel[3],
                                        const crowdsteer_agents *agents, size_t begin,
                                        size_t end) {
  crowdsteer_status fault;
  if (!agents) return CROWDSTEER_ERROR_NULL_POINTER;
  if (agents->dims != 2 && agents->dims != 3) return CROWDSTEER_ERROR_DIMS;
  if (begin > end || end > agents->count) return CROWDSTEER_ERROR_RANGE;
  *dims = agents->dims;
  *count = agents->count;
  crowdsteer_vectors p = {agents->px, agents->py, agents->pz};
  crowdsteer_vectors v = {agents->vx, agents->vy, agents->vz};
  copy_axes(pos, &p, *dims);
  copy_axes(vel, &v, *dims);
  if (begin == end) return CROWDSTEER_OK;
  if ((fault = vectors_usable(pos, *dims)) != CROWDSTEER_OK) return fault;
  return vectors_usable(vel, *dims);
}

static crowdsteer_status resolve_target(cs_inputs *in, const crowdsteer_target *target,
                                        int needs_velocity, const cs_range *r) {
  crowdsteer_status fault;
  if (!target) return CROWDSTEER_ERROR_NULL_POINTER;
  in->target_kind = target->kind;
  switch (target->kind) {
  case CROWDSTEER_TARGET_POINT: {
    /* A shared point is a parameter of the call, so it must be finite. */
    int ok = 1;
    for (int k = 0; k < in->dims; k++) {
      in->target_point[k] = target->point[k];
      in->target_point_velocity[k] = needs_velocity ? target->point_velocity[k] : 0.0f;
      ok &= finite(in->target_point[k]) & finite(in->target_point_velocity[k]);
    }
    return ok ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
  }
  case CROWDSTEER_TARGET_ARRAYS:
    copy_axes(in->target_pos, &target->position, in->dims);
    if (needs_velocity) copy_axes(in->target_vel, &target->velocity, in->dims);
    if (r->begin == r->end) return CROWDSTEER_OK;
    if ((fault = vectors_usable(in->target_pos, in->dims)) != CROWDSTEER_OK) return fault;
    return needs_velocity ? vectors_usable(in->target_vel, in->dims) : CROWDSTEER_OK;
  case CROWDSTEER_TARGET_AGENTS: /* the indices' values: cs_check_agent_data */
    in->target_index = target->index;
    /* The instruction takes signed 32-bit indices. */
    in->gather_instruction =
        in->count <= (size_t)INT32_MAX && cs_gather_instruction_pays();
    if (r->begin == r->end) return CROWDSTEER_OK;
    if (!target->index) return CROWDSTEER_ERROR_NULL_POINTER;
    return cs_aligned(target->index) ? CROWDSTEER_OK : CROWDSTEER_ERROR_ALIGNMENT;
  case CROWDSTEER_TARGET_AGENT:
    in->target_kind = CROWDSTEER_TARGET_POINT;
    if (r->begin == r->end) return CROWDSTEER_OK; /* nothing reads it */
    return cs_resolve_target_agent(in, target, needs_velocity);
  }
  return CROWDSTEER_ERROR_PARAMETER;
}

/* One index for the whole call: checked once, and its state copied once,
 * so the kernels run the POINT form (the same bits as gathering it). */
crowdsteer_status cs_resolve_target_agent(cs_inputs *in, const crowdsteer_target *target,
                                          int needs_velocity) {
  if (target->agent >= in->count) return CROWDSTEER_ERROR_AGENT_INDEX;
  in->target_kind = CROWDSTEER_TARGET_POINT;
  for (int k = 0; k < in->dims; k++) {
    in->target_point[k] = in->gather_pos[k][target->agent];
    in->target_point_velocity[k] =
        needs_velocity ? in->gather_vel[k][target->agent] : 0.0f;
  }
  return CROWDSTEER_OK;
}

int cs_all_finite(const float *a, const cs_range *r) { return array_ok(a, r, FINITE); }

crowdsteer_status cs_prepare_output(cs_policy *policy, int dims,
                                    const crowdsteer_output *out, size_t begin,
                                    size_t end) {
  crowdsteer_status fault;
  memset(policy, 0, sizeof *policy);
  if (!out) return CROWDSTEER_ERROR_NULL_POINTER;
  copy_axes_rw(policy->out, &out->steering, dims);
  if ((begin < end) &&
      (fault = vectors_usable((const float *const *)policy->out, dims)) != CROWDSTEER_OK)
    return fault;
  if (out->mode == CROWDSTEER_OVERWRITE) return CROWDSTEER_OK;
  if (out->mode != CROWDSTEER_ACCUMULATE) return CROWDSTEER_ERROR_PARAMETER;
  policy->mode = CS_WRITE_ACCUMULATE;
  const cs_range r = {begin, end, NULL, 0}; /* a uniform weight of 0 means 1 */
  if ((fault = resolve_param(&policy->weight, out->weight, out->weight_per_agent, 1.0f,
                             FINITE, &r)) != CROWDSTEER_OK)
    return fault;
  return check_param_array(policy->weight, FINITE, &r);
}

/* A behaviour parameter: where crowdsteer_params holds it, where cs_inputs
 * keeps it, its default and its rule, and the CS_USES_* bit of the
 * behaviours that read it. */
typedef struct param_spec {
  unsigned used_by;
  size_t uniform, per_agent, slot;
  float default_value;
  value_rule rule;
} param_spec;

static const param_spec behaviour_params[] = {
    {CS_USES_MAX_SPEED, offsetof(crowdsteer_params, max_speed),
     offsetof(crowdsteer_params, max_speed_per_agent), offsetof(cs_inputs, max_speed),
     1.0f, NON_NEGATIVE_FINITE},
    {CS_USES_TIME_TO_TARGET, offsetof(crowdsteer_params, time_to_target),
     offsetof(crowdsteer_params, time_to_target_per_agent),
     offsetof(cs_inputs, time_to_target), 1.0f, POSITIVE},
    {CS_USES_ARRIVE_RADII, offsetof(crowdsteer_params, target_radius),
     offsetof(crowdsteer_params, target_radius_per_agent),
     offsetof(cs_inputs, target_radius), 0.0f, NON_NEGATIVE},
    {CS_USES_ARRIVE_RADII, offsetof(crowdsteer_params, slowing_radius),
     offsetof(crowdsteer_params, slowing_radius_per_agent),
     offsetof(cs_inputs, slowing_radius), 0.0f, NON_NEGATIVE},
    {CS_USES_PANIC_RADIUS, offsetof(crowdsteer_params, panic_radius),
     offsetof(crowdsteer_params, panic_radius_per_agent),
     offsetof(cs_inputs, panic_radius), INFINITY, NON_NEGATIVE},
    {CS_USES_LEAVE_RADII, offsetof(crowdsteer_params, danger_radius),
     offsetof(crowdsteer_params, danger_radius_per_agent),
     offsetof(cs_inputs, danger_radius), 0.0f, NON_NEGATIVE},
    {CS_USES_LEAVE_RADII, offsetof(crowdsteer_params, escape_radius),
     offsetof(crowdsteer_params, escape_radius_per_agent),
     offsetof(cs_inputs, escape_radius), 0.0f, NON_NEGATIVE},
    {CS_USES_PREDICTION, offsetof(crowdsteer_params, max_prediction),
     offsetof(crowdsteer_params, max_prediction_per_agent),
     offsetof(cs_inputs, max_prediction), INFINITY, NON_NEGATIVE},
    {CS_USES_WANDER, offsetof(crowdsteer_params, wander_radius),
     offsetof(crowdsteer_params, wander_radius_per_agent),
     offsetof(cs_inputs, wander_radius), 0.0f, NON_NEGATIVE_FINITE},
    {CS_USES_WANDER, offsetof(crowdsteer_params, wander_distance),
     offsetof(crowdsteer_params, wander_distance_per_agent),
     offsetof(cs_inputs, wander_distance), 0.0f, NON_NEGATIVE_FINITE},
    {CS_USES_WANDER, offsetof(crowdsteer_params, jitter),
     offsetof(crowdsteer_params, jitter_per_agent), offsetof(cs_inputs, jitter), 0.0f,
     NON_NEGATIVE_FINITE},
};
enum { BEHAVIOUR_PARAMS = sizeof behaviour_params / sizeof behaviour_params[0] };

static cs_param *param_slot(cs_inputs *in, const param_spec *spec) {
  return (cs_param *)(void *)((char *)in + spec->slot);
}

static cs_param param_in(const cs_inputs *in, const param_spec *spec) {
  return *(const cs_param *)(const void *)((const char *)in + spec->slot);
}

static crowdsteer_status resolve_params(cs_inputs *in, const crowdsteer_params *given,
                                        unsigned uses, const cs_range *r) {
  crowdsteer_status fault;
  static const crowdsteer_params defaults;
  const char *p = (const char *)(given ? given : &defaults);
  for (int s = 0; s < BEHAVIOUR_PARAMS; s++) {
    const param_spec *spec = &behaviour_params[s];
    if (!(uses & spec->used_by)) continue;
    float uniform;
    const float *per_agent;
    memcpy(&uniform, p + spec->uniform, sizeof uniform);
    memcpy(&per_agent, p + spec->per_agent, sizeof per_agent);
    if ((fault = resolve_param(param_slot(in, spec), uniform, per_agent,
                               spec->default_value, spec->rule, r)) != CROWDSTEER_OK)
      return fault;
  }
  /* The largest float behaves as "no limit" for any T a finite state gives,
   * and keeps tv * T finite when max_speed + len(tv) is denormal. */
  if (in->max_prediction.value > FLT_MAX) in->max_prediction.value = FLT_MAX;
  return CROWDSTEER_OK;
}

/* Wander's state: its direction arrays and the call's random keys. */
static crowdsteer_status resolve_wander(cs_inputs *in,
                                        const crowdsteer_wander_state *wander,
                                        const uint32_t *agent_id, size_t begin,
                                        size_t end) {
  crowdsteer_status fault;
  if (!wander) return CROWDSTEER_ERROR_NULL_POINTER;
  copy_axes_rw(in->wander, &wander->direction, in->dims);
  if ((begin < end) && (fault = vectors_usable((const float *const *)in->wander,
                                               in->dims)) != CROWDSTEER_OK)
    return fault;
  for (int k = 0; k < in->dims; k++)
    in->wander_key[k] = cs_random_key(wander->seed, wander->tick, (uint32_t)k);
  in->agent_id = agent_id; /* wander is the one behaviour here reading ids */
  if (begin < end && agent_id && !cs_aligned(agent_id)) return CROWDSTEER_ERROR_ALIGNMENT;
  return CROWDSTEER_OK;
}

crowdsteer_status cs_resolve_behaviour(cs_inputs *in, crowdsteer_behaviour behaviour,
                                       const crowdsteer_agents *agents,
                                       const crowdsteer_target *target,
                                       const crowdsteer_wander_state *wander,
                                       const crowdsteer_field_follow *field,
                                       const crowdsteer_params *params, size_t begin,
                                       size_t end) {
  crowdsteer_status fault;
  const cs_range r = {begin, end, NULL, 0};
  memset(in, 0, sizeof *in);
  if ((fault = resolve_agents(&in->dims, &in->count, in->pos, in->vel, agents, begin,
                              end)) != CROWDSTEER_OK)
    return fault;
  memcpy(in->gather_pos, in->pos, sizeof in->pos);
  memcpy(in->gather_vel, in->vel, sizeof in->vel);
  const cs_behaviour_row *row = cs_behaviour_row_of(behaviour);
  if (!row) return CROWDSTEER_ERROR_PARAMETER;
  /* A neighbour behaviour gets its agents and the parameters it reads here;
   * its crowdsteer_neighbours is cs_nb_prepare's. */
  if ((row->inputs & CROWDSTEER_INPUT_WANDER) &&
      (fault = resolve_wander(in, wander, agents->id, begin, end)) != CROWDSTEER_OK)
    return fault;
  if ((row->inputs & CROWDSTEER_INPUT_FIELD) &&
      (fault = cs_resolve_field(in, field, begin, end)) != CROWDSTEER_OK)
    return fault;
  if ((row->inputs & CROWDSTEER_INPUT_TARGET) &&
      (fault = resolve_target(in, target,
                              (row->inputs & CROWDSTEER_INPUT_TARGET_VELOCITY) != 0,
                              &r)) != CROWDSTEER_OK)
    return fault;
  return resolve_params(in, params, row->params, &r);
}

int cs_has_agent_data(const cs_inputs *in, crowdsteer_behaviour behaviour) {
  const unsigned uses = cs_behaviour_row_of(behaviour)->params;
  int any = (in->target_kind == CROWDSTEER_TARGET_AGENTS && in->target_index) ||
            in->field_index;
  for (int s = 0; s < BEHAVIOUR_PARAMS; s++)
    any |= (uses & behaviour_params[s].used_by) &&
           param_in(in, &behaviour_params[s]).array != NULL;
  any |= in->path && (in->path->path_per_agent || in->path->direction_per_agent);
  return any;
}

crowdsteer_status cs_check_agent_data(const cs_inputs *in, crowdsteer_behaviour behaviour,
                                      const cs_range *r) {
  crowdsteer_status fault;
  if (r->begin == r->end) return CROWDSTEER_OK;
  const unsigned uses = cs_behaviour_row_of(behaviour)->params;
  if (in->target_kind == CROWDSTEER_TARGET_AGENTS && in->target_index &&
      !indices_ok(in->target_index, in->count, r))
    return CROWDSTEER_ERROR_AGENT_INDEX;
  if (in->field_index && !indices_ok(in->field_index, in->field_count, r))
    return CROWDSTEER_ERROR_AGENT_INDEX;
  for (int s = 0; s < BEHAVIOUR_PARAMS; s++) {
    const param_spec *spec = &behaviour_params[s];
    if ((uses & spec->used_by) &&
        (fault = check_param_array(param_in(in, spec), spec->rule, r)) != CROWDSTEER_OK)
      return fault;
  }
  return cs_path_check_agents(in->path, r);
}

crowdsteer_status cs_prepare_behaviour(
    cs_inputs *in, crowdsteer_behaviour behaviour, const crowdsteer_agents *agents,
    const crowdsteer_target *target, const crowdsteer_wander_state *wander,
    const crowdsteer_field_follow *field, const crowdsteer_params *params, size_t begin,
    size_t end, const uint32_t *select, uint32_t select_bit) {
  crowdsteer_status fault;
  const cs_range r = {begin, end, select, select_bit};
  if ((fault = cs_resolve_behaviour(in, behaviour, agents, target, wander, field, params,
                                    begin, end)) != CROWDSTEER_OK)
    return fault;
  return cs_check_agent_data(in, behaviour, &r);
}

crowdsteer_status cs_prepare_integrator(cs_integrator *job,
                                        const crowdsteer_agents *agents,
                                        const crowdsteer_params *params, size_t begin,
                                        size_t end) {
  crowdsteer_status fault;
  static const crowdsteer_params defaults;
  const crowdsteer_params *p = params ? params : &defaults;
  memset(job, 0, sizeof *job);
  if ((fault = resolve_agents(&job->dims, &job->count, job->pos, job->vel, agents, begin,
                              end)) != CROWDSTEER_OK)
    return fault;
  crowdsteer_vectors pos = {agents->px, agents->py, agents->pz};
  crowdsteer_vectors vel = {agents->vx, agents->vy, agents->vz};
  copy_axes_rw(job->pos_rw, &pos, job->dims);
  copy_axes_rw(job->vel_rw, &vel, job->dims);
  const cs_range r = {begin, end, NULL, 0};
  if ((fault = resolve_param(&job->max_speed, p->max_speed, p->max_speed_per_agent, 1.0f,
                             NON_NEGATIVE_FINITE, &r)) != CROWDSTEER_OK)
    return fault;
  if ((fault = check_param_array(job->max_speed, NON_NEGATIVE_FINITE, &r)) !=
      CROWDSTEER_OK)
    return fault;
  if ((fault = resolve_param(&job->max_force, p->max_force, p->max_force_per_agent,
                             INFINITY, NON_NEGATIVE, &r)) != CROWDSTEER_OK)
    return fault;
  if ((fault = check_param_array(job->max_force, NON_NEGATIVE, &r)) != CROWDSTEER_OK)
    return fault;
  if ((fault = resolve_param(&job->mass, p->mass, p->mass_per_agent, 1.0f, POSITIVE,
                             &r)) != CROWDSTEER_OK)
    return fault;
  if ((fault = check_param_array(job->mass, POSITIVE, &r)) != CROWDSTEER_OK) return fault;
  job->dt = p->dt == 0.0f ? 1.0f : p->dt;
  return non_negative_finite(job->dt) ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
}

crowdsteer_status cs_prepare_steering(cs_integrator *job,
                                      const crowdsteer_vectors *steering, size_t begin,
                                      size_t end) {
  if (!steering) return CROWDSTEER_ERROR_NULL_POINTER;
  copy_axes(job->steering, steering, job->dims);
  if (begin == end) return CROWDSTEER_OK;
  return vectors_usable(job->steering, job->dims);
}

/* ---- overlap ---------------------------------------------------------------- */

void cs_spans_add_vectors(cs_spans *spans, const crowdsteer_vectors *v, int dims,
                          size_t first, size_t last, int written) {
  cs_spans_add(spans, v->x, first, last, written);
  cs_spans_add(spans, v->y, first, last, written);
  if (dims == 3) cs_spans_add(spans, v->z, first, last, written);
}

void cs_spans_add_state(cs_spans *spans, const crowdsteer_agents *state, int dims,
                        size_t first, size_t last, int written) {
  const crowdsteer_vectors p = {state->px, state->py, state->pz};
  const crowdsteer_vectors v = {state->vx, state->vy, state->vz};
  cs_spans_add_vectors(spans, &p, dims, first, last, written);
  cs_spans_add_vectors(spans, &v, dims, first, last, written);
}

/* Whether a written span of w meets any other span of o. */
static int written_meets(const cs_spans *w, const cs_spans *o) {
  for (uint64_t left = w->written; left; left &= left - 1u) {
    const int i = __builtin_ctzll(left);
    const uintptr_t lo = w->lo[i], hi = w->hi[i];
    for (int j = 0; j < o->n; j++)
      if (o->lo[j] < hi && lo < o->hi[j] && (w != o || i != j)) return 1;
  }
  return 0;
}

int cs_spans_clash(const cs_spans *a, const cs_spans *b) {
  return written_meets(a, b) || (a != b && written_meets(b, a));
}

void cs_behaviour_spans(cs_spans *spans, crowdsteer_behaviour behaviour,
                        const crowdsteer_agents *agents, const crowdsteer_target *target,
                        const crowdsteer_wander_state *wander,
                        const crowdsteer_neighbours *nb,
                        const crowdsteer_field_follow *field,
                        const crowdsteer_params *params, const crowdsteer_agents *gather,
                        const crowdsteer_agents *point, size_t begin, size_t end) {
  const cs_behaviour_row *row = cs_behaviour_row_of(behaviour);
  const int dims = agents->dims;
  const size_t count = agents->count;
  if (!row) return;
  if ((row->inputs & CROWDSTEER_INPUT_FIELD) && field)
    cs_spans_add(spans, field->field_index, begin, end, 0);
  for (int s = 0; params && s < BEHAVIOUR_PARAMS; s++) {
    const param_spec *spec = &behaviour_params[s];
    const float *per_agent;
    if (!(row->params & spec->used_by)) continue;
    memcpy(&per_agent, (const char *)params + spec->per_agent, sizeof per_agent);
    cs_spans_add(spans, per_agent, begin, end, 0);
  }
  const int velocity = (row->inputs & CROWDSTEER_INPUT_TARGET_VELOCITY) != 0;
  if ((row->inputs & CROWDSTEER_INPUT_TARGET) && target) {
    switch (target->kind) {
    case CROWDSTEER_TARGET_POINT: break;
    case CROWDSTEER_TARGET_ARRAYS:
      cs_spans_add_vectors(spans, &target->position, dims, begin, end, 0);
      if (velocity) cs_spans_add_vectors(spans, &target->velocity, dims, begin, end, 0);
      break;
    case CROWDSTEER_TARGET_AGENTS:
      cs_spans_add(spans, target->index, begin, end, 0);
      if (gather) cs_spans_add_state(spans, gather, dims, 0, count, 0);
      break;
    case CROWDSTEER_TARGET_AGENT:
      /* Positions and velocities both: the velocity is what pursuit and
       * evade predict with and what every other kind steers against. */
      if (point && target->agent < count)
        cs_spans_add_state(spans, point, dims, target->agent, (size_t)target->agent + 1,
                           0);
      break;
    }
  }
  if ((row->inputs & CROWDSTEER_INPUT_WANDER) && wander) {
    cs_spans_add_vectors(spans, &wander->direction, dims, begin, end, 1);
    cs_spans_add(spans, agents->id, begin, end, 0);
  }
  if ((row->inputs & CROWDSTEER_INPUT_NEIGHBOURS) && nb) {
    cs_spans_add(spans, nb->radius_per_agent, begin, end, 0);
    if (nb->field_of_view)
      cs_spans_add(spans, nb->cos_field_of_view_per_agent, begin, end, 0);
    cs_spans_add(spans, nb->neighbour_mask_per_agent, begin, end, 0);
    /* Every agent is a candidate neighbour: ids break ties among them. */
    cs_spans_add(spans, agents->id, 0, count, 0);
    if (!nb->grid) {
      if (nb->neighbour_mask_per_agent || nb->neighbour_mask)
        cs_spans_add(spans, nb->group, 0, count, 0);
      cs_spans_add_state(spans, agents, dims, 0, count, 0);
    }
  }
}
