/* Separation, cohesion and alignment inside crowdsteer_step. Before any
 * tile runs, a neighbour pass computes each neighbour behaviour's steering
 * for the step's range, cell by cell in the grid's order and split over the
 * step's threads by grid slots, into the step's scratch memory (its
 * workspace's, or the call's own; the grid is only read); the tiles then
 * blend or prioritise that steering like any behaviour's (the backends'
 * rows for these behaviours: kernels.c and reference.c). Neighbours are read from the
 * grid's copy of the pre-step state, so the step may update agents in place.
 * Where the backend walks agent by agent, alignment reads the grid's
 * velocities converted once per step into the exact sums' two parts, and a
 * cohesion and an alignment over the same neighbours share one pass; jobs
 * that walk agent by agent (Reynolds' forms, inner radii) share one walk
 * when cs_nb_flockable (a flock, kernels/nb_flock.h). */
#include <stdint.h>
#include <string.h>

#include "neighbours/neighbours.h"
#include "neighbours/step_neighbours.h"
#include "parallel.h"

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

/* A neighbour pass's spread: a thread per CS_NB_AGENTS_PER_THREAD agents
 * at most. */
static cs_spread pass_spread(const crowdsteer_step_desc *step, size_t count) {
  return cs_spread_for(step->tasks, step->threads, count / CS_NB_AGENTS_PER_THREAD + 1);
}

typedef struct parts_work {
  const crowdsteer_grid *g;
  int dims;
  cs_nb_parts_fn fn;
  uint32_t *parts;
  size_t pieces;
} parts_work;

static void parts_pieces(void *context, size_t first, size_t last) {
  const parts_work *work = context;
  const size_t n = work->g->count, stride = n + 16;
  const size_t from = n * first / work->pieces, to = n * last / work->pieces;
  for (int k = 0; k < work->dims; k++)
    work->fn(work->g->vel[k], from, to, work->parts + (size_t)k * stride,
             work->parts + (size_t)(work->dims + k) * stride);
}

/* Alignment's parts of a grid's velocities (cs_nb_job.vel_high) into
 * `parts`: high then low per axis, count + 16 each (zeros past the end). */
static void velocity_parts(const crowdsteer_grid *g, int dims, cs_nb_parts_fn fn,
                           uint32_t *parts, const cs_spread *spread) {
  const size_t n = g->count, stride = n + 16;
  for (int a = 0; a < 2 * dims; a++)
    memset(parts + (size_t)a * stride + n, 0, 16 * sizeof(uint32_t));
  parts_work work = {g, dims, fn, parts,
                     cs_spread_width(spread, n / CS_NB_AGENTS_PER_THREAD + 1)};
  if (work.pieces == 1)
    parts_pieces(&work, 0, 1);
  else
    cs_spread_run(spread, work.pieces, 1, parts_pieces, &work);
}

/* Whether a job walks agent by agent over velocity parts (an alignment on
 * a backend that takes them). */
static int takes_parts(const cs_nb_job *job, cs_nb_parts_fn parts_fn) {
  return parts_fn && job->behaviour == CS_NB_ALIGNMENT && cs_nb_plain(job);
}

/* Whether job m is the first of the jobs [0, count) on its grid and some job
 * on that grid takes velocity parts: then the scratch holds one block of
 * that grid's parts. */
static int owns_parts_block(const cs_nb_job *nb_jobs, size_t count, size_t m,
                            cs_nb_parts_fn parts_fn) {
  const crowdsteer_grid *g = nb_jobs[m].grid;
  for (size_t c = 0; c < m; c++)
    if (nb_jobs[c].grid == g) return 0;
  for (size_t c = m; c < count; c++)
    if (nb_jobs[c].grid == g && takes_parts(&nb_jobs[c], parts_fn)) return 1;
  return 0;
}

static size_t parts_block_floats(const crowdsteer_grid *g, int dims) {
  return 2 * (size_t)dims * (g->count + 16);
}

/* *total += a * b; 0 if it does not fit a size_t of floats' bytes. */
static int grow_by(size_t *total, size_t a, size_t b) {
  size_t product;
  if (__builtin_mul_overflow(a, b, &product) ||
      __builtin_add_overflow(*total, product, total))
    return 0;
  return *total <= SIZE_MAX / sizeof(float);
}

/* The scratch layout: the steering of job m (dims slices of the range) at
 * m * dims * range, then one velocity-parts block per grid that needs one,
 * in the order of each grid's first job. `at` (if not NULL) gets the offset
 * of the block of job `m`'s grid. Returns 0 if the total overflows. */
static int layout(const cs_nb_job *nb_jobs, size_t count, size_t m, int dims,
                  size_t range, cs_nb_parts_fn parts_fn, size_t *total, size_t *at) {
  *total = 0;
  if (!grow_by(total, count * (size_t)dims, range)) return 0;
  for (size_t c = 0; c < count; c++) {
    if (!owns_parts_block(nb_jobs, count, c, parts_fn)) continue;
    if (at && nb_jobs[c].grid == nb_jobs[m].grid) *at = *total;
    if (!grow_by(total, 1, parts_block_floats(nb_jobs[c].grid, dims))) return 0;
  }
  return 1;
}

static size_t neighbour_count(const crowdsteer_step_desc *step) {
  size_t count = 0;
  for (size_t b = 0; b < step->behaviour_count; b++)
    count += cs_runs_on_neighbours(step->behaviours[b].behaviour);
  return count;
}

int cs_nb_step_floats(const crowdsteer_step_desc *step, const cs_nb_job *nb_jobs,
                      size_t range, int dims, crowdsteer_isa isa, size_t *floats) {
  const size_t count = neighbour_count(step);
  *floats = 0;
  if (!count || !range) return 1;
  return layout(nb_jobs, count, 0, dims, range, cs_nb_backend_for(isa)->velocity_parts,
                floats, NULL);
}

/* Job m and the later jobs not yet walked that may share its walk
 * (cs_nb_flockable with each member) into `flock`, marked in `walked`;
 * 0 (nothing marked) when none may. */
static int flock_of(const cs_nb_job *nb_jobs, size_t count, size_t m, int *walked,
                    cs_nb_flock *flock) {
  size_t member[CS_NB_FLOCK_MAX];
  int n = 1;
  member[0] = m;
  for (size_t c = m + 1; c < count && n < CS_NB_FLOCK_MAX; c++) {
    int fits = !walked[c];
    for (int k = 0; k < n && fits; k++)
      fits = cs_nb_flockable(&nb_jobs[member[k]], &nb_jobs[c]);
    if (fits) member[n++] = c;
  }
  if (n < 2) return 0;
  flock->count = n;
  flock->widest = 0;
  for (int k = 0; k < n; k++) {
    walked[member[k]] = 1;
    flock->job[k] = &nb_jobs[member[k]];
    if (flock->job[k]->radius.value > flock->job[flock->widest]->radius.value)
      flock->widest = k;
  }
  flock->slot_first = 0;
  flock->slot_last = nb_jobs[m].grid->count;
  return 1;
}

void cs_nb_step_run(const crowdsteer_agents *agents, const crowdsteer_step_desc *step,
                    size_t begin, size_t end, crowdsteer_isa isa, cs_job *jobs,
                    cs_nb_job *nb_jobs, float *scratch) {
  const size_t range = end - begin;
  const int dims = agents->dims;
  const cs_spread spread = pass_spread(step, range);
  const cs_nb_backend *backend = cs_nb_backend_for(isa);
  const cs_nb_parts_fn parts_fn = backend->velocity_parts;
  /* The step behaviour of each neighbour job. */
  size_t of[CROWDSTEER_STEP_MAX_BEHAVIOURS], count = 0;
  for (size_t b = 0; b < step->behaviour_count; b++)
    if (cs_runs_on_neighbours(step->behaviours[b].behaviour)) of[count++] = b;
  for (size_t m = 0; m < count; m++) {
    const size_t b = of[m];
    const crowdsteer_step_behaviour *desc = &step->behaviours[b];
    cs_nb_job *job = &nb_jobs[m];
    const crowdsteer_grid *g = job->grid;
    float *steering = scratch + m * (size_t)dims * range;
    /* As for every step behaviour, a max_speed left at 0 is the integrator's
     * (make_plan put it in the behaviour's job). */
    if (desc->params.max_speed == 0.0f && !desc->params.max_speed_per_agent)
      job->max_speed = jobs[b].in.max_speed;
    job->lane_select = step->behaviour_mask;
    job->lane_bit = 1u << b;
    for (int k = 0; k < dims; k++)
      jobs[b].precomputed[k] = job->out[k] = steering + (size_t)k * range;
    job->out_base = jobs[b].precomputed_base = begin;
    job->mode = CROWDSTEER_OVERWRITE;
    if (!takes_parts(job, parts_fn)) continue;
    int ready = 0; /* an earlier alignment on this grid made them */
    for (size_t c = 0; c < m; c++)
      ready |= nb_jobs[c].grid == g && nb_jobs[c].vel_high[0];
    size_t total, at = 0;
    layout(nb_jobs, count, m, dims, range, parts_fn, &total, &at);
    uint32_t *parts = (uint32_t *)(scratch + at);
    if (!ready) velocity_parts(g, dims, parts_fn, parts, &spread);
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
  for (size_t m = 0; m < count; m++) {
    if (gathered[m]) continue;
    cs_nb_flock flock;
    if (backend->flock && flock_of(nb_jobs, count, m, gathered, &flock)) {
      cs_nb_flock_walk(&flock, backend->flock, begin, end, &spread);
      continue;
    }
    cs_nb_walk(&nb_jobs[m], backend->kernel, begin, end, &spread);
  }
}
