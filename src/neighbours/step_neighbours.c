/* Separation, cohesion and alignment inside crowdsteer_step. Before any
 * tile runs, a neighbour pass computes each neighbour behaviour's steering
 * for the step's range, cell by cell in the grid's order and split over the
 * step's threads by grid slots, into memory its grid keeps; the tiles then
 * blend or prioritise that steering like any behaviour's (the backends'
 * rows for these behaviours: kernels.c and reference.c). Neighbours are read from the
 * grid's copy of the pre-step state, so the step may update agents in place. */
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

/* One behaviour's steering for agents [begin, end) into `scratch`. */
static void neighbour_pass(cs_nb_job *job, size_t begin, size_t end, float *scratch,
                           int threads) {
  const size_t range = end - begin;
  for (int k = 0; k < job->dims; k++)
    job->out[k] = scratch + (size_t)k * range;
  job->out_base = begin;
  job->mode = CROWDSTEER_OVERWRITE;
  const cs_nb_kernel kernel = cs_nb_active_kernel();
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

crowdsteer_status cs_nb_step_run(const crowdsteer_agents *agents,
                                 const crowdsteer_step_desc *step, size_t begin,
                                 size_t end, cs_job *jobs, cs_nb_job *nb_jobs) {
  crowdsteer_status fault;
  const size_t range = end - begin;
  const int dims = agents->dims;
  const int threads = pass_threads(step->threads, range);
  /* Each grid's scratch holds one slice per behaviour that uses it. */
  for (size_t b = 0; b < step->behaviour_count; b++) {
    const crowdsteer_step_behaviour *desc = &step->behaviours[b];
    if (!cs_step_is_neighbour(desc->behaviour)) continue;
    crowdsteer_grid *g = (crowdsteer_grid *)desc->neighbours->grid;
    size_t slices = 0;
    for (size_t c = 0; c < step->behaviour_count; c++)
      slices += cs_step_is_neighbour(step->behaviours[c].behaviour) &&
                step->behaviours[c].neighbours->grid == g;
    if ((fault = reserve(g, slices * (size_t)dims * range)) != CROWDSTEER_OK)
      return fault;
  }
  size_t nth = 0; /* the nth neighbour behaviour: nb_jobs[nth] */
  for (size_t b = 0; b < step->behaviour_count; b++) {
    const crowdsteer_step_behaviour *desc = &step->behaviours[b];
    if (!cs_step_is_neighbour(desc->behaviour)) continue;
    const crowdsteer_grid *g = desc->neighbours->grid;
    size_t slice = 0;
    for (size_t c = 0; c < b; c++)
      slice += cs_step_is_neighbour(step->behaviours[c].behaviour) &&
               step->behaviours[c].neighbours->grid == g;
    float *scratch = g->step_scratch + slice * (size_t)dims * range;
    cs_nb_job job = nb_jobs[nth++];
    /* As for every step behaviour, a max_speed left at 0 is the integrator's
     * (make_plan put it in the behaviour's job). */
    if (desc->params.max_speed == 0.0f && !desc->params.max_speed_per_agent)
      job.max_speed = jobs[b].in.max_speed;
    job.lane_select = step->behaviour_mask;
    job.lane_bit = 1u << b;
    neighbour_pass(&job, begin, end, scratch, threads);
    for (int k = 0; k < dims; k++)
      jobs[b].precomputed[k] = scratch + (size_t)k * range;
    jobs[b].precomputed_base = begin;
  }
  return CROWDSTEER_OK;
}
