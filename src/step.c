/* crowdsteer_step: a mixed crowd in one pass over memory. The batch is cut
 * into cache-sized tiles; per tile, each behaviour some agent of the tile
 * uses writes into a tile-sized accumulator (blend or priority, masked per
 * agent), then the integrator consumes it. Tiles are independent, so they
 * run on OpenMP threads and the bits never depend on tiling or threads. */
#include <float.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

enum { DEFAULT_TILE = 1024, MAX_TILE = 4096 };

#define CHECK(expr)                                                            \
  do {                                                                         \
    crowdsteer_status status_ = (expr);                                        \
    if (status_ != CROWDSTEER_OK) return status_;                              \
  } while (0)

int crowdsteer_step_threads_available(void) {
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

/* A resolved step: one job per behaviour, one for the integrator. */
typedef struct plan {
  cs_job behaviour[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  cs_behaviour kind[CROWDSTEER_STEP_MAX_BEHAVIOURS];
  size_t behaviour_count;
  uint32_t all_bits;
  const uint32_t *mask;
  cs_job integrator;
  size_t tile;
} plan;

static crowdsteer_status check_snapshot(const crowdsteer_agents *agents,
                                        const crowdsteer_agents *snapshot, size_t begin,
                                        size_t end) {
  if (!snapshot) return CROWDSTEER_ERROR_NULL_POINTER;
  if (snapshot->dims != agents->dims) return CROWDSTEER_ERROR_DIMS;
  if (snapshot->count != agents->count) return CROWDSTEER_ERROR_RANGE;
  if (begin == end) return CROWDSTEER_OK;
  const float *const arrays[6] = {snapshot->px, snapshot->py, snapshot->pz,
                                  snapshot->vx, snapshot->vy, snapshot->vz};
  for (int a = 0; a < 6; a++) {
    if (agents->dims == 2 && (a == 2 || a == 5)) continue;
    if (!arrays[a]) return CROWDSTEER_ERROR_NULL_POINTER;
  }
  /* Reading targets from the arrays being written would make results depend
   * on tile order: the one overlap that is cheap to detect is rejected. */
  if (snapshot->px == agents->px || snapshot->vx == agents->vx)
    return CROWDSTEER_ERROR_PARAMETER;
  return CROWDSTEER_OK;
}

static crowdsteer_status make_plan(plan *out, const crowdsteer_agents *agents,
                                   const crowdsteer_step_desc *step, size_t begin,
                                   size_t end) {
  if (!agents || !step) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!step->behaviours) return CROWDSTEER_ERROR_NULL_POINTER;
  if (step->behaviour_count == 0 ||
      step->behaviour_count > CROWDSTEER_STEP_MAX_BEHAVIOURS ||
      (step->combine != CROWDSTEER_BLEND && step->combine != CROWDSTEER_PRIORITY) ||
      !(step->priority_threshold >= 0.0f && step->priority_threshold <= FLT_MAX) ||
      step->tile_size > MAX_TILE || step->threads < 0)
    return CROWDSTEER_ERROR_PARAMETER;
  CHECK(cs_prepare_integrator(&out->integrator, agents, &step->integrator, begin, end));
  out->behaviour_count = step->behaviour_count;
  out->all_bits = step->behaviour_count == 32 ? 0xFFFFFFFFu
                                              : (1u << step->behaviour_count) - 1u;
  out->mask = step->behaviour_mask;
  out->tile = step->tile_size ? step->tile_size : DEFAULT_TILE;
  for (size_t b = 0; b < step->behaviour_count; b++) {
    const crowdsteer_step_behaviour *desc = &step->behaviours[b];
    cs_job *job = &out->behaviour[b];
    out->kind[b] = (cs_behaviour)desc->behaviour;
    CHECK(cs_prepare_behaviour(job, out->kind[b], agents, &desc->target, desc->wander,
                               &desc->params, begin, end));
    if (out->kind[b] != CS_WANDER && desc->target.kind == CROWDSTEER_TARGET_AGENTS) {
      CHECK(check_snapshot(agents, step->snapshot, begin, end));
      const crowdsteer_agents *s = step->snapshot;
      const float *pos[3] = {s->px, s->py, agents->dims == 3 ? s->pz : NULL};
      const float *vel[3] = {s->vx, s->vy, agents->dims == 3 ? s->vz : NULL};
      memcpy(job->gather_pos, pos, sizeof pos);
      memcpy(job->gather_vel, vel, sizeof vel);
    }
    job->mode = step->combine == CROWDSTEER_BLEND ? CROWDSTEER_ACCUMULATE
                                                  : CS_WRITE_PRIORITY;
    job->weight.value = desc->weight == 0.0f ? 1.0f : desc->weight;
    job->weight.array = desc->weight_per_agent;
    int weights_ok = desc->weight_per_agent
                         ? cs_all_finite(desc->weight_per_agent, begin, end)
                         : job->weight.value >= -FLT_MAX && job->weight.value <= FLT_MAX;
    if (!weights_ok) return CROWDSTEER_ERROR_PARAMETER;
    job->lane_select = step->behaviour_mask;
    job->lane_bit = 1u << b;
    job->priority_threshold = step->priority_threshold;
  }
  return CROWDSTEER_OK;
}

/* One tile [first, last): behaviours into the accumulator, then integrate. */
static void run_tile(const plan *pl, const cs_backend *backend, size_t first,
                     size_t last) {
  float acc[3][MAX_TILE];
  float decided[MAX_TILE];
  const size_t n = last - first;
  const int dims = pl->integrator.dims;
  for (int k = 0; k < dims; k++) memset(acc[k], 0, n * sizeof(float));
  memset(decided, 0, n * sizeof(float));

  uint32_t used = pl->all_bits;
  if (pl->mask) {
    uint32_t any = 0;
    for (size_t i = first; i < last; i++) any |= pl->mask[i];
    used &= any;
  }
  for (size_t b = 0; b < pl->behaviour_count; b++) {
    if (!(used & (1u << b))) continue; /* no agent of this tile uses it */
    cs_job job = pl->behaviour[b];
    for (int k = 0; k < dims; k++) job.out[k] = acc[k];
    job.out_base = first;
    job.decided = decided;
    backend->behaviour[pl->kind[b]][dims - 2](&job, first, last);
  }
  cs_job integrate = pl->integrator;
  for (int k = 0; k < dims; k++) integrate.steering[k] = acc[k];
  integrate.out_base = first;
  backend->integrate[dims - 2](&integrate, first, last);
}

crowdsteer_status crowdsteer_step(const crowdsteer_agents *agents,
                                  const crowdsteer_step_desc *step, size_t begin,
                                  size_t end) {
  plan pl;
  CHECK(make_plan(&pl, agents, step, begin, end));
  if (begin == end) return CROWDSTEER_OK;
  const cs_backend *backend = cs_active_backend();
  const size_t tiles = (end - begin + pl.tile - 1) / pl.tile;
#ifdef _OPENMP
  int threads = step->threads ? step->threads : omp_get_max_threads();
  if (threads > 1 && tiles > 1) {
    if ((size_t)threads > tiles) threads = (int)tiles;
    /* Static schedule: contiguous tile runs per thread, no shared state. */
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t t = 0; t < tiles; t++) {
      size_t first = begin + t * pl.tile;
      size_t last = end - first < pl.tile ? end : first + pl.tile;
      run_tile(&pl, backend, first, last);
    }
    return CROWDSTEER_OK;
  }
#endif
  for (size_t t = 0; t < tiles; t++) {
    size_t first = begin + t * pl.tile;
    size_t last = end - first < pl.tile ? end : first + pl.tile;
    run_tile(&pl, backend, first, last);
  }
  return CROWDSTEER_OK;
}
