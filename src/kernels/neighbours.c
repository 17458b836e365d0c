/* The neighbour kernel, compiled once per ISA like kernels.c. The grid's
 * slots are walked in order (bucket by bucket, so block by block, in
 * cache). Separation and cohesion with one radius and no filter run agent
 * by agent on 8- and 16-lane backends: the agent's candidates, the runs of
 * its rows of cells, are loaded W at a time, one candidate per lane, and
 * the lane sums of W agents are added up together (with AVX-512 by a
 * shuffle tree); so does a step's alignment, from its velocities already
 * in the exact sums' two parts, and a step's cohesion with an alignment
 * over the same neighbours walks once for both (FLOCK). Everything else
 * (alignment called on its own, per-agent radii, group filters, fields of
 * view, 4-lane backends, but for a step's alignment and flock on
 * WebAssembly SIMD: TAKES_PARTS) runs in tiles: up to W agents
 * of one row of cells, one agent per lane, against every candidate of the
 * rows of cells around them, read in place. Results go to the agents'
 * indices, prefetched ahead of the walk. An agent whose query leaves the
 * cells around its own, or that has more neighbours than the nearest-k cap
 * (or, agent by agent, a coincident neighbour), runs on its own over its
 * candidate runs, W candidates per vector. Each lane performs exactly the
 * scalar operations of cs_nb_pair (neighbours.h) and adds its rounded
 * contribution to 32-bit lane sums that cannot overflow before they are
 * added up, so the totals, and the steering, are the scalar bits. The grid
 * build's bucket keys are here too, lane by lane; the nearest-k selection,
 * the brute force (no grid) and the per-agent formulas are the shared
 * scalar code (query.c, neighbours.h).
 *
 * One translation unit per ISA, in parts that each build on the one
 * before: nb_candidates.h (an agent against its candidate runs),
 * nb_select.h (the capped selection), nb_finish.h (an agent's steering,
 * the cap applied), nb_tiles.h (agents in lanes), nb_rows.h (agents one by
 * one over rows of cells), nb_flock.h (a step's jobs that share one walk
 * of each agent's candidates); here, the walk that chooses between them, its
 * copies per shape, the backend's table and the grid build's keys. The
 * parts are always-inline templates specialised per shape by the walks,
 * so they stay in this one object. */
#include <string.h>

#include "kernels/nb_flock.h"

#ifndef CS_NB_KERNEL
#error "define CS_NB_KERNEL (the kernel's name) when compiling a kernel object"
#endif

/* The walk: agent by agent over rows of cells or in tiles (see the top of
 * this file), unless the table is too small to tell a query's cells apart
 * (then every agent scans the whole batch on its own) or the job has
 * Reynolds' forms or an inner radius (each agent on its own against its
 * candidate runs: cs_nb_by_agent). */
CS_INLINE void walk(const cs_nb_job *job, size_t begin, size_t end, const int dims,
                    const cs_nb_behaviour behaviour) {
  if (!cs_nb_by_agent(job)) {
    /* Agents one by one where a vector holds enough candidates to pay (W
     * of 4 holds about a third of a row: tiles are faster there);
     * alignment only with its parts ready (kernel()). */
    if (W >= 8 && behaviour != CS_NB_ALIGNMENT && cs_nb_plain(job))
      run_rows(job, begin, end, dims, behaviour);
    else
      run_lanes(job, begin, end, dims, behaviour);
    return;
  }
  for (size_t slot = job->slot_first; slot < job->slot_last; slot++)
    if (wanted(job, job->grid->index[slot], begin, end))
      evaluate(job, slot, dims, behaviour);
}

/* One copy of the walk per shape: constant dims and behaviour let the
 * compiler drop every test on them from the loops. */
CS_NOINLINE static void separation_2d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 2, CS_NB_SEPARATION);
}
CS_NOINLINE static void separation_3d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 3, CS_NB_SEPARATION);
}
CS_NOINLINE static void cohesion_2d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 2, CS_NB_COHESION);
}
CS_NOINLINE static void cohesion_3d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 3, CS_NB_COHESION);
}
CS_NOINLINE static void alignment_2d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 2, CS_NB_ALIGNMENT);
}
CS_NOINLINE static void alignment_3d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 3, CS_NB_ALIGNMENT);
}
/* A step's alignment, and its cohesion with one, agent by agent: shapes
 * of their own, so their frames stay off the tiles' (test_limits). */
CS_NOINLINE static void alignment_rows_2d(const cs_nb_job *job, size_t begin,
                                          size_t end) {
  run_rows(job, begin, end, 2, CS_NB_ALIGNMENT);
}
CS_NOINLINE static void alignment_rows_3d(const cs_nb_job *job, size_t begin,
                                          size_t end) {
  run_rows(job, begin, end, 3, CS_NB_ALIGNMENT);
}
CS_NOINLINE static void flock_2d(const cs_nb_job *job, size_t begin, size_t end) {
  run_rows(job, begin, end, 2, FLOCK);
}
CS_NOINLINE static void flock_3d(const cs_nb_job *job, size_t begin, size_t end) {
  run_rows(job, begin, end, 3, FLOCK);
}

static const cs_nb_kernel shapes[CS_NB_COUNT][2] = {
    [CS_NB_SEPARATION] = {separation_2d, separation_3d},
    [CS_NB_COHESION] = {cohesion_2d, cohesion_3d},
    [CS_NB_ALIGNMENT] = {alignment_2d, alignment_3d},
};

static void kernel(const cs_nb_job *job, size_t begin, size_t end) {
  if (!job->grid) { /* the brute force is the scalar definition */
    cs_nb_kernel_scalar(job, begin, end);
    return;
  }
  /* cs_nb_step_run gives parts, and pairs jobs, only where the walk is
   * agent by agent (cs_nb_plain, a backend that takes parts: TAKES_PARTS). */
  if (job->aligned) {
    (job->dims == 2 ? flock_2d : flock_3d)(job, begin, end);
    return;
  }
  if (job->vel_high[0]) {
    (job->dims == 2 ? alignment_rows_2d : alignment_rows_3d)(job, begin, end);
    return;
  }
  shapes[job->behaviour][job->dims - 2](job, begin, end);
}

/* A step's flock (nb_flock.h): a copy per form and dims. */
CS_NOINLINE static void flock_default_2d(const cs_nb_flock *f, size_t begin, size_t end) {
  flock_walk(f, begin, end, 2, 0);
}
CS_NOINLINE static void flock_default_3d(const cs_nb_flock *f, size_t begin, size_t end) {
  flock_walk(f, begin, end, 3, 0);
}
CS_NOINLINE static void flock_reynolds_2d(const cs_nb_flock *f, size_t begin,
                                          size_t end) {
  flock_walk(f, begin, end, 2, 1);
}
CS_NOINLINE static void flock_reynolds_3d(const cs_nb_flock *f, size_t begin,
                                          size_t end) {
  flock_walk(f, begin, end, 3, 1);
}

static void flock(const cs_nb_flock *f, size_t begin, size_t end) {
  static const cs_nb_flock_fn shapes_of[2][2] = {{flock_default_2d, flock_default_3d},
                                                 {flock_reynolds_2d, flock_reynolds_3d}};
  const cs_nb_job *job = f->job[0];
  shapes_of[job->form == CROWDSTEER_FORM_REYNOLDS][job->dims - 2](f, begin, end);
}

/* ---- alignment's parts for a step ------------------------------------------- */

static void velocity_parts(const float *vel, size_t first, size_t last, uint32_t *high,
                           uint32_t *low) {
  vi h, l;
  size_t i = first;
  for (; last - i >= W; i += W) {
    fixed_parts(v_load(vel + i), &h, &l);
    i_store(high + i, h);
    i_store(low + i, l);
  }
  if (i == last) return;
  float rest[W] = {0};
  uint32_t rest_high[W], rest_low[W];
  memcpy(rest, vel + i, (last - i) * sizeof(float));
  fixed_parts(v_load(rest), &h, &l);
  i_store(rest_high, h);
  i_store(rest_low, l);
  memcpy(high + i, rest_high, (last - i) * sizeof(uint32_t));
  memcpy(low + i, rest_low, (last - i) * sizeof(uint32_t));
}

/* ---- the grid build's bucket keys ------------------------------------------ */

/* cs_bucket of the cells of W agents. */
CS_INLINE vi buckets_of(const float *const pos[3], size_t i, vf inv_cell, vi mask,
                        const int dims) {
  vi cell[3];
  for (int k = 0; k < dims; k++)
    cell[k] = cells_of(v_load(pos[k] + i), inv_cell);
  return bucket_of_cells(cell, mask, dims);
}

CS_INLINE void keys_of(const crowdsteer_grid *g, const float *const pos[3], size_t first,
                       size_t last, uint32_t *keys, const int dims) {
  const vf inv_cell = v_set1(g->inv_cell);
  const vi mask = i_set1(g->bucket_mask);
  size_t i = first;
  for (; i + W <= last; i += W)
    i_store(keys + (i - first), buckets_of(pos, i, inv_cell, mask, dims));
  cs_nb_keys_scalar(g, pos, i, last, keys + (i - first));
}

static void keys(const crowdsteer_grid *g, const float *const pos[3], size_t first,
                 size_t last, uint32_t *out) {
  if (g->dims == 2)
    keys_of(g, pos, first, last, out, 2);
  else
    keys_of(g, pos, first, last, out, 3);
}

/* ---- the grid build's bucket ends ------------------------------------------- */

/* An inclusive prefix sum W counts at a time (the scalar loop is one chain
 * of additions, 2 per agent with the automatic table: 9 % of a build). */
static void ends(uint32_t *counts, size_t n, uint32_t start) {
  vi carry = i_set1(start);
  size_t k = 0;
  for (; k + W <= n; k += W) {
    const vi sums = i_add(i_prefix(i_load(counts + k)), carry);
    i_store(counts + k, sums);
    carry = i_last_lane(sums);
  }
  uint32_t last[W];
  i_store(last, carry);
  cs_nb_ends_scalar(counts + k, n - k, last[0]);
}

/* Velocity parts make a step's alignment, and its cohesion with one, walk
 * agent by agent (kernel()). On x86 a 4-lane vector holds about a third of
 * a row and tiles were faster; on WebAssembly SIMD the flock's one walk for
 * both took about a fifth less than two walks in tiles (docs/web.md). */
#if defined(__wasm_simd128__)
#define TAKES_PARTS 1
#else
#define TAKES_PARTS (W >= 8)
#endif
const cs_nb_backend CS_NB_KERNEL = {kernel, keys, ends,
                                    TAKES_PARTS ? velocity_parts : NULL, flock};
