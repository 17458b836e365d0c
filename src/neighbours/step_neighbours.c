/* Separation, cohesion and alignment inside crowdsteer_step. Before any
 * tile runs, a neighbour pass computes each neighbour behaviour's steering
 * for the step's range, cell by cell in the grid's order and split over the
 * step's threads by grid slots, into memory its grid keeps; the tiles then
 * blend or prioritise that steering like any behaviour's (the backends'
 * rows for these behaviours: kernels.c and reference.c). Neighbours are read from the
 * grid's copy of the pre-step state, so the step may update agents in place.
 * Where the backend walks agent by agent, alignment reads the grid's
 * velocities converted once per step into the exact sums' two parts, and a
 * cohesion and an alignment over the same neighbours share one pass. */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "neighbours/neighbours.h"
#include "neighbours/step_neighbours.h"

static const cs_nb_behaviour kind_of[3] = {CS_NB_SEPARATION, CS_NB_COHESION,
                                           CS_NB_ALIGNMENT};

static crowdsteer_status prepare(cs_nb_job *job, const crowdsteer_agents *agents,
                                 const crowdsteer_step_behaviour *desc, size_t first,
                                 size_t last, const uint32_t *select, uint32_t bit) {
  if (desc->neighbours && !desc->neighbours->grid) return CROWDSTEER_ERROR_NULL_POINTER;
  return cs_nb_prepare(job, kind_of[desc->behaviour - CROWDSTEER_SEPARATION], agents,
                       desc->neighbours, &desc->params, first, last, select, bit);
}

crowdsteer_status cs_nb_step_check(cs_nb_job *job, const crowdsteer_agents *agents,
                                   const crowdsteer_step_behaviour *desc, size_t first,
                                   size_t last, const uint32_t *select, uint32_t bit) {
  return prepare(job, agents, desc, first, last, select, bit);
}

/* Grows a grid's step memory to `floats` of scratch. */
static crowdsteer_status reserve(crowdsteer_grid *g, size_t floats) {
  if (floats > g->step_scratch_floats) {
    float *fresh = malloc(floats * sizeof(float));
    if (!fresh) return CROWDSTEER_ERROR_OUT_OF_MEMORY;
    free(g->step_scratch);
    g->step_scratch = fresh;
    g->step_scratch_floats = floats;
  }
  return CROWDSTEER_OK;
}

/* A thread per 1024 agents at most; threads = 1 makes no OpenMP call (as
 * in the tiles, so a small-stack host thread never gets OpenMP state). */
static int pass_threads(int requested, size_t count) {
  return requested == 1 ? 1 : cs_team_size(requested, count / 1024 + 1);
}

/* Share t of `threads` of a neighbour pass: a contiguous run of grid slots. */
static void pass_part(const cs_nb_job *job, cs_nb_kernel kernel, size_t begin, size_t end,
                      int t, int threads) {
  const crowdsteer_grid *g = job->grid;
  cs_nb_job part = *job;
  part.slot_first = g->count * (size_t)t / (size_t)threads;
  part.slot_last = g->count * (size_t)(t + 1) / (size_t)threads;
  kernel(&part, begin, end);
}

/* A job's steering for agents [begin, end), its outputs set, by the step's
 * kernel. */
static void neighbour_pass(const cs_nb_job *job, cs_nb_kernel kernel, size_t begin,
                           size_t end, int threads) {
  if (threads == 1) {
    pass_part(job, kernel, begin, end, 0, 1);
    return;
  }
#ifdef _OPENMP
  /* Workers do not inherit the caller's floating-point mode: each sets the
   * library's own for its share and gives its previous mode back. */
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (int t = 0; t < threads; t++) {
    const cs_fpenv worker = cs_fpenv_enter();
    pass_part(job, kernel, begin, end, t, threads);
    cs_fpenv_leave(worker);
  }
#endif
}

/* Alignment's parts of a grid's velocities (cs_nb_job.vel_high) into
 * `parts`: high then low per axis, count + 16 each (zeros past the end). */
static void velocity_parts(const crowdsteer_grid *g, int dims, cs_nb_parts_fn fn,
                           uint32_t *parts, int threads) {
  const size_t n = g->count, stride = n + 16;
  for (int a = 0; a < 2 * dims; a++)
    memset(parts + (size_t)a * stride + n, 0, 16 * sizeof(uint32_t));
  if (threads == 1) {
    for (int k = 0; k < dims; k++)
      fn(g->vel[k], 0, n, parts + (size_t)k * stride,
         parts + (size_t)(dims + k) * stride);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (int t = 0; t < threads; t++) {
    const cs_fpenv worker = cs_fpenv_enter();
    const size_t first = n * (size_t)t / (size_t)threads;
    const size_t last = n * (size_t)(t + 1) / (size_t)threads;
    for (int k = 0; k < dims; k++)
      fn(g->vel[k], first, last, parts + (size_t)k * stride,
         parts + (size_t)(dims + k) * stride);
    cs_fpenv_leave(worker);
  }
#endif
}

/* Jobs [0, before) that use grid g: a job's slice of its grid's memory. */
static size_t slices_of(const cs_nb_job *nb_jobs, size_t before,
                        const crowdsteer_grid *g) {
  size_t slices = 0;
  for (size_t c = 0; c < before; c++)
    slices += nb_jobs[c].grid == g;
  return slices;
}

/* Whether a job walks agent by agent over velocity parts (an alignment on
 * a backend that takes them). */
static int takes_parts(const cs_nb_job *job, cs_nb_parts_fn parts_fn) {
  return parts_fn && job->behaviour == CS_NB_ALIGNMENT && cs_nb_plain(job);
}

crowdsteer_status cs_nb_step_run(const crowdsteer_agents *agents,
                                 const crowdsteer_step_desc *step, size_t begin,
                                 size_t end, crowdsteer_isa isa, cs_job *jobs,
                                 cs_nb_job *nb_jobs) {
  crowdsteer_status fault;
  const size_t range = end - begin;
  const int dims = agents->dims;
  const int threads = pass_threads(step->threads, range);
  const cs_nb_backend *backend = cs_nb_backend_for(isa);
  const cs_nb_parts_fn parts_fn = backend->velocity_parts;
  /* The step behaviour of each neighbour job. */
  size_t of[CROWDSTEER_STEP_MAX_BEHAVIOURS], count = 0;
  for (size_t b = 0; b < step->behaviour_count; b++)
    if (cs_step_is_neighbour(step->behaviours[b].behaviour)) of[count++] = b;
  /* Each grid's memory holds one slice of steering per job that uses it,
   * then, if one of them takes them, its velocities' parts. */
  for (size_t m = 0; m < count; m++) {
    crowdsteer_grid *g = (crowdsteer_grid *)nb_jobs[m].grid;
    int parts = 0;
    for (size_t c = 0; c < count; c++)
      parts |= nb_jobs[c].grid == g && takes_parts(&nb_jobs[c], parts_fn);
    const size_t floats = slices_of(nb_jobs, count, g) * (size_t)dims * range +
                          (parts ? 2 * (size_t)dims * (g->count + 16) : 0);
    if ((fault = reserve(g, floats)) != CROWDSTEER_OK) return fault;
  }
  for (size_t m = 0; m < count; m++) {
    const size_t b = of[m];
    const crowdsteer_step_behaviour *desc = &step->behaviours[b];
    cs_nb_job *job = &nb_jobs[m];
    const crowdsteer_grid *g = job->grid;
    float *scratch = g->step_scratch + slices_of(nb_jobs, m, g) * (size_t)dims * range;
    /* As for every step behaviour, a max_speed left at 0 is the integrator's
     * (make_plan put it in the behaviour's job). */
    if (desc->params.max_speed == 0.0f && !desc->params.max_speed_per_agent)
      job->max_speed = jobs[b].in.max_speed;
    job->lane_select = step->behaviour_mask;
    job->lane_bit = 1u << b;
    for (int k = 0; k < dims; k++)
      jobs[b].precomputed[k] = job->out[k] = scratch + (size_t)k * range;
    job->out_base = jobs[b].precomputed_base = begin;
    job->mode = CROWDSTEER_OVERWRITE;
    if (!takes_parts(job, parts_fn)) continue;
    int ready = 0; /* an earlier alignment on this grid made them */
    for (size_t c = 0; c < m; c++)
      ready |= nb_jobs[c].grid == g && nb_jobs[c].vel_high[0];
    uint32_t *parts = (uint32_t *)(g->step_scratch +
                                   slices_of(nb_jobs, count, g) * (size_t)dims * range);
    if (!ready) velocity_parts(g, dims, parts_fn, parts, threads);
    for (int k = 0; k < dims; k++) {
      job->vel_high[k] = parts + (size_t)k * (g->count + 16);
      job->vel_low[k] = parts + (size_t)(dims + k) * (g->count + 16);
    }
  }
  /* A cohesion and an alignment over the same neighbours gather in one
   * walk: each candidate is read once for both. */
  int gathered[CROWDSTEER_STEP_MAX_BEHAVIOURS] = {0};
  for (size_t m = 0; m < count; m++) {
    cs_nb_job *job = &nb_jobs[m];
    if (job->behaviour != CS_NB_COHESION || !cs_nb_plain(job)) continue;
    for (size_t c = 0; c < count; c++) {
      const cs_nb_job *mates = &nb_jobs[c];
      if (!gathered[c] && mates->vel_high[0] && mates->grid == job->grid &&
          mates->radius.value == job->radius.value) {
        job->aligned = mates;
        gathered[c] = 1;
        break;
      }
    }
  }
  for (size_t m = 0; m < count; m++)
    if (!gathered[m]) neighbour_pass(&nb_jobs[m], backend->kernel, begin, end, threads);
  return CROWDSTEER_OK;
}
