/* Separation, cohesion and alignment, the behaviours whose rows name the
 * neighbour machinery: validation and defaults of a crowdsteer_neighbours
 * (cs_nb_prepare, which calls down into validation.c for the agents and
 * parameters), a grid job's walk over threads (cs_nb_walk), and a single
 * call (cs_nb_run, for api.c). The query itself is query.c's and the
 * backends' (kernels/neighbours.c); a step's neighbour pass is
 * step_neighbours.c's. */
#include <float.h>
#include <string.h>

#include "neighbours/neighbours.h"

/* ---- validation --------------------------------------------------------------- */

static int agent_in(const cs_range *r, size_t i) {
  return !r->select || (r->select[i] & r->bit);
}

/* A radius in effect: 0 (per-agent only) or in [CS_NB_MIN_RADIUS, limit]. */
static int radius_ok(float x, float limit, int zero_ok) {
  return (zero_ok && x == 0.0f) || (x >= CS_NB_MIN_RADIUS && x <= limit);
}

static crowdsteer_status resolve_radius(cs_nb_job *job, const crowdsteer_neighbours *nb,
                                        const cs_range *r) {
  const float limit = job->grid ? job->grid->cell_size : FLT_MAX;
  job->radius.array = nb->radius_per_agent;
  if (nb->radius_per_agent) {
    int ok = 1;
    for (size_t i = r->begin; i < r->end; i++)
      ok &= (!agent_in(r, i)) | radius_ok(nb->radius_per_agent[i], limit, 1);
    return ok ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
  }
  job->radius.value = nb->radius;
  if (nb->radius == 0.0f && job->grid) job->radius.value = job->grid->cell_size;
  if (radius_ok(job->radius.value, limit, 0)) {
    job->within = cs_within_limit(job->radius.value);
    job->inv_radius = 1.0f / job->radius.value;
  }
  return radius_ok(job->radius.value, limit, 0) ? CROWDSTEER_OK
                                                : CROWDSTEER_ERROR_PARAMETER;
}

static int cosine_ok(float c) { return c >= -1.0f && c <= 1.0f; }

static crowdsteer_status resolve_view(cs_nb_job *job, const crowdsteer_neighbours *nb,
                                      const cs_range *r) {
  job->use_fov = nb->field_of_view != 0;
  if (!job->use_fov) return CROWDSTEER_OK;
  job->cos_fov.value = nb->cos_field_of_view;
  job->cos_fov.array = nb->cos_field_of_view_per_agent;
  int ok = 1;
  if (job->cos_fov.array) {
    for (size_t i = r->begin; i < r->end; i++)
      ok &= (!agent_in(r, i)) | cosine_ok(job->cos_fov.array[i]);
  } else {
    ok = cosine_ok(job->cos_fov.value);
  }
  return ok ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
}

static crowdsteer_status resolve_neighbours(cs_nb_job *job,
                                            const crowdsteer_neighbours *nb,
                                            const crowdsteer_agents *agents,
                                            const cs_range *r) {
  crowdsteer_status fault;
  if (!nb) return CROWDSTEER_ERROR_NULL_POINTER;
  /* The per-agent arrays this range reads, as 32-bit elements: aligned. */
  if (r->begin < r->end) {
    const int masked = nb->neighbour_mask_per_agent != NULL || nb->neighbour_mask != 0;
    const void *const used[5] = {
        nb->radius_per_agent,
        nb->field_of_view ? (const void *)nb->cos_field_of_view_per_agent : NULL,
        nb->neighbour_mask_per_agent, !nb->grid && masked ? nb->group : NULL, agents->id};
    for (int a = 0; a < 5; a++)
      if (used[a] && !cs_aligned(used[a])) return CROWDSTEER_ERROR_ALIGNMENT;
  }
  job->grid = nb->grid;
  job->id = agents->id;
  int has_group = nb->group != NULL;
  if (nb->grid) {
    if (!nb->grid->built || nb->grid->count != agents->count ||
        nb->grid->dims != agents->dims)
      return CROWDSTEER_ERROR_GRID;
    has_group = nb->grid->has_group;
  } else {
    job->group = nb->group;
    if (r->begin < r->end && agents->count > UINT32_MAX - 1)
      return CROWDSTEER_ERROR_RANGE; /* agent indices are 32-bit */
  }
  if ((fault = resolve_radius(job, nb, r)) != CROWDSTEER_OK) return fault;
  if ((fault = resolve_view(job, nb, r)) != CROWDSTEER_OK) return fault;
  /* The form and the inner radius (crowdsteer_flock.h); the inner radius
   * matters only with a field of view, so it is 0 in the job without one
   * (and such a job keeps the kernels' fastest walks). */
  if (nb->form != CROWDSTEER_FORM_DEFAULT && nb->form != CROWDSTEER_FORM_REYNOLDS)
    return CROWDSTEER_ERROR_PARAMETER;
  if (!(nb->inner_radius >= 0.0f && nb->inner_radius <= FLT_MAX))
    return CROWDSTEER_ERROR_PARAMETER;
  job->form = nb->form;
  job->inner = job->use_fov ? nb->inner_radius : 0.0f;
  job->cap = nb->max_neighbours == 0 || nb->max_neighbours > CROWDSTEER_MAX_NEIGHBOURS
                 ? CROWDSTEER_MAX_NEIGHBOURS
                 : nb->max_neighbours;
  job->mask = nb->neighbour_mask;
  job->mask_array = nb->neighbour_mask_per_agent;
  job->use_mask = job->mask_array != NULL || job->mask != 0;
  if (job->use_mask && !has_group) return CROWDSTEER_ERROR_PARAMETER;
  return CROWDSTEER_OK;
}

/* A grid without velocities serves what reads none: separation without a
 * field of view (cohesion steers against the agent's own velocity,
 * alignment sums the neighbours', the view faces along the agent's). */
static crowdsteer_status check_velocities(const cs_nb_job *job) {
  if (!job->grid || job->grid->vel[0]) return CROWDSTEER_OK;
  return job->behaviour == CS_NB_SEPARATION && !job->use_fov ? CROWDSTEER_OK
                                                             : CROWDSTEER_ERROR_PARAMETER;
}

crowdsteer_status cs_nb_prepare(cs_nb_job *job, cs_nb_behaviour behaviour,
                                const crowdsteer_agents *agents,
                                const crowdsteer_neighbours *nb,
                                const crowdsteer_params *params, size_t begin, size_t end,
                                const uint32_t *select, uint32_t select_bit) {
  crowdsteer_status fault;
  cs_inputs base; /* the agents and the parameters the behaviour reads */
  memset(job, 0, sizeof *job);
  if ((fault = cs_prepare_behaviour(
           &base, (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + (int)behaviour), agents,
           NULL, NULL, NULL, params, begin, end, select, select_bit)) != CROWDSTEER_OK)
    return fault;
  job->behaviour = behaviour;
  job->dims = base.dims;
  job->count = base.count;
  memcpy(job->pos, base.pos, sizeof job->pos);
  memcpy(job->vel, base.vel, sizeof job->vel);
  job->max_speed = base.max_speed;
  job->time_to_target = base.time_to_target;
  job->lane_select = select;
  job->lane_bit = select_bit;
  const cs_range r = {begin, end, select, select_bit};
  if ((fault = resolve_neighbours(job, nb, agents, &r)) != CROWDSTEER_OK) return fault;
  if ((fault = check_velocities(job)) != CROWDSTEER_OK) return fault;
  job->slot_last = job->grid ? job->grid->count : 0;
  return CROWDSTEER_OK;
}

/* ---- entry points ------------------------------------------------------------- */

/* A pass: one job's by its kernel, or a flock's by its walk. */
typedef struct pass_work {
  const cs_nb_job *job;
  cs_nb_kernel kernel;
  const cs_nb_flock *flock;
  cs_nb_flock_fn fn;
  size_t begin, end;
  size_t count, parts;
} pass_work;

static void run_part(const pass_work *work, size_t slot_first, size_t slot_last) {
  if (work->flock) {
    cs_nb_flock part = *work->flock;
    part.slot_first = slot_first;
    part.slot_last = slot_last;
    work->fn(&part, work->begin, work->end);
  } else {
    cs_nb_job part = *work->job;
    part.slot_first = slot_first;
    part.slot_last = slot_last;
    work->kernel(&part, work->begin, work->end);
  }
}

/* Parts [first, last) of a pass, each a contiguous run of grid slots (any
 * cut gives the same bits: each agent's steering is its own). */
static void pass_parts(void *context, size_t first, size_t last) {
  const pass_work *work = context;
  for (size_t t = first; t < last; t++)
    run_part(work, work->count * t / work->parts, work->count * (t + 1) / work->parts);
}

static void walk(pass_work *work, const cs_spread *spread) {
  const size_t width = cs_spread_width(spread, work->count / CS_NB_AGENTS_PER_THREAD + 1);
  work->parts = width > 1 ? 4 * width : 1;
  if (work->parts == 1)
    run_part(work, 0, work->count);
  else
    cs_spread_run(spread, work->parts, 1, pass_parts, work);
}

void cs_nb_walk(const cs_nb_job *job, cs_nb_kernel kernel, size_t begin, size_t end,
                const cs_spread *spread) {
  pass_work work = {job, kernel, NULL, NULL, begin, end, job->grid->count, 1};
  walk(&work, spread);
}

void cs_nb_flock_walk(const cs_nb_flock *flock, cs_nb_flock_fn fn, size_t begin,
                      size_t end, const cs_spread *spread) {
  pass_work work = {NULL, NULL, flock, fn, begin, end, flock->job[0]->grid->count, 1};
  walk(&work, spread);
}

crowdsteer_status cs_nb_run(crowdsteer_behaviour behaviour,
                            const crowdsteer_agents *agents,
                            const crowdsteer_neighbours *nb,
                            const crowdsteer_params *params, const crowdsteer_output *out,
                            size_t begin, size_t end) {
  crowdsteer_status fault;
  const cs_nb_behaviour kind = (cs_nb_behaviour)(behaviour - CROWDSTEER_SEPARATION);
  cs_nb_job job;
  if ((fault = cs_nb_prepare(&job, kind, agents, nb, params, begin, end, NULL, 0)) !=
      CROWDSTEER_OK)
    return fault;
  cs_policy output;
  if ((fault = cs_prepare_output(&output, job.dims, out, begin, end)) != CROWDSTEER_OK)
    return fault;
  memcpy(job.out, output.out, sizeof job.out);
  job.mode =
      output.mode == CS_WRITE_ACCUMULATE ? CROWDSTEER_ACCUMULATE : CROWDSTEER_OVERWRITE;
  job.weight = output.weight;
  if ((fault = cs_tasks_check(nb->tasks)) != CROWDSTEER_OK) return fault;
  if (begin == end) return CROWDSTEER_OK;
  if (!job.grid) {
    cs_nb_kernel_scalar(&job, begin, end);
    return CROWDSTEER_OK;
  }
  /* Without a task system on the caller's thread only: a behaviour's own
   * call never starts a team. */
  const cs_spread spread = cs_spread_for(nb->tasks, 1, 1);
  cs_nb_walk(&job, cs_nb_backend_for(crowdsteer_active_isa())->kernel, begin, end,
             &spread);
  return CROWDSTEER_OK;
}
