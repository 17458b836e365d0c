/* The neighbour grid: allocation that only grows, and the build, a stable
 * counting sort of the batch into bucket order in three passes (histogram,
 * prefix sums, scatter), each split over OpenMP threads by agent range or
 * bucket range so that the order, and so every result, is the same for any
 * thread count. */
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "neighbours/neighbours.h"

enum { MAX_BUILD_THREADS = 64, AGENTS_PER_BUILD_THREAD = 16384, ALIGN = 64 };

crowdsteer_status crowdsteer_grid_create(crowdsteer_grid **grid) {
  if (!grid) return CROWDSTEER_ERROR_NULL_POINTER;
  *grid = calloc(1, sizeof **grid);
  return *grid ? CROWDSTEER_OK : CROWDSTEER_ERROR_OUT_OF_MEMORY;
}

void crowdsteer_grid_destroy(crowdsteer_grid *grid) {
  if (!grid) return;
  free(grid->agent_block);
  free(grid->table_block);
  free(grid->step_scratch);
  free(grid->step_buffers);
  free(grid);
}

size_t crowdsteer_grid_bytes(const crowdsteer_grid *grid) {
  if (!grid) return 0;
  return sizeof *grid + grid->agent_bytes + grid->table_bytes +
         grid->step_scratch_floats * sizeof(float) +
         (size_t)grid->step_buffer_count * CS_NB_BUFFER_BYTES;
}

static size_t round_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

/* Agents' arrays: positions and velocities (dims each), index, groups. */
static size_t agent_arrays(int dims, int with_group) {
  return (size_t)(2 * dims + 1 + with_group);
}

/* Grows a block to at least `bytes` (plus alignment slack); the old block
 * stays untouched until every new one exists. */
static int grow(size_t have, size_t bytes, void **fresh) {
  *fresh = NULL;
  if (bytes <= have) return 1;
  *fresh = malloc(bytes + ALIGN);
  return *fresh != NULL;
}

static void *aligned_in(void *block) {
  uintptr_t p = (uintptr_t)block;
  return (void *)((p + ALIGN - 1) / ALIGN * ALIGN);
}

/* Lays the grid's arrays out in its (possibly new) blocks. */
static void lay_out(crowdsteer_grid *g, size_t count, size_t table, int threads, int dims,
                    int with_group) {
  const size_t array = round_up(count * sizeof(float));
  char *a = aligned_in(g->agent_block);
  for (int k = 0; k < 3; k++) {
    g->pos[k] = k < dims ? (float *)(a + (size_t)k * array) : NULL;
    g->vel[k] = k < dims ? (float *)(a + (size_t)(dims + k) * array) : NULL;
  }
  g->index = (uint32_t *)(a + (size_t)(2 * dims) * array);
  g->group = with_group ? (uint32_t *)(a + (size_t)(2 * dims + 1) * array) : NULL;
  char *t = aligned_in(g->table_block);
  g->start = (uint32_t *)t;
  g->thread_counts = (uint32_t *)(t + round_up((table + 1) * sizeof(uint32_t)));
  (void)threads;
}

static crowdsteer_status reserve(crowdsteer_grid *g, size_t count, size_t table,
                                 int threads, int dims, int with_group) {
  const size_t agent_bytes =
      agent_arrays(dims, with_group) * round_up(count * sizeof(float)) + ALIGN;
  const size_t table_bytes = round_up((table + 1) * sizeof(uint32_t)) +
                             (size_t)threads * table * sizeof(uint32_t) + ALIGN;
  void *fresh_agents, *fresh_table;
  if (!grow(g->agent_bytes, agent_bytes, &fresh_agents))
    return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  if (!grow(g->table_bytes, table_bytes, &fresh_table)) {
    free(fresh_agents);
    return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  }
  if (fresh_agents) {
    free(g->agent_block);
    g->agent_block = fresh_agents;
    g->agent_bytes = agent_bytes;
  }
  if (fresh_table) {
    free(g->table_block);
    g->table_block = fresh_table;
    g->table_bytes = table_bytes;
  }
  lay_out(g, count, table, threads, dims, with_group);
  return CROWDSTEER_OK;
}

static int is_power_of_two(size_t n) { return n && (n & (n - 1)) == 0; }

static size_t automatic_table(size_t count, int dims) {
  size_t table = dims == 3 ? 64 : 16;
  while (table < count / 2)
    table *= 2;
  return table;
}

static int build_threads(int requested, size_t count) {
#ifdef _OPENMP
  int threads = requested ? requested : omp_get_max_threads();
#else
  int threads = 1;
  (void)requested;
#endif
  const size_t useful = count / AGENTS_PER_BUILD_THREAD + 1;
  if ((size_t)threads > useful) threads = (int)useful;
  if (threads > MAX_BUILD_THREADS) threads = MAX_BUILD_THREADS;
  return threads < 1 ? 1 : threads;
}

/* Bucket of agent i of the caller's arrays. */
static inline uint32_t bucket_of(const crowdsteer_grid *g, const float *const pos[3],
                                 size_t i) {
  uint32_t cell[3] = {0, 0, 0};
  for (int k = 0; k < g->dims; k++)
    cell[k] = cs_cell(pos[k][i], g->inv_cell);
  return cs_bucket(cell, g->dims, g->bucket_mask);
}

static void agent_chunk(size_t count, int threads, int t, size_t *first, size_t *last) {
  *first = count * (size_t)t / (size_t)threads;
  *last = count * (size_t)(t + 1) / (size_t)threads;
}

/* Pass 1: per thread, the bucket histogram of its agent chunk. */
static void histogram(crowdsteer_grid *g, const float *const pos[3], size_t table,
                      int threads, int t) {
  uint32_t *counts = g->thread_counts + (size_t)t * table;
  memset(counts, 0, table * sizeof(uint32_t));
  size_t first, last;
  agent_chunk(g->count, threads, t, &first, &last);
  for (size_t i = first; i < last; i++)
    counts[bucket_of(g, pos, i)]++;
}

/* Pass 2a: total agents of a bucket range (all threads' chunks). */
static uint32_t range_total(const crowdsteer_grid *g, size_t table, int threads,
                            size_t first, size_t last) {
  uint32_t total = 0;
  for (int t = 0; t < threads; t++) {
    const uint32_t *counts = g->thread_counts + (size_t)t * table;
    for (size_t b = first; b < last; b++)
      total += counts[b];
  }
  return total;
}

/* Pass 2b: each bucket's start, and each thread's first slot in it. */
static void range_offsets(crowdsteer_grid *g, size_t table, int threads, size_t first,
                          size_t last, uint32_t offset) {
  for (size_t b = first; b < last; b++) {
    g->start[b] = offset;
    for (int t = 0; t < threads; t++) {
      uint32_t *counts = g->thread_counts + (size_t)t * table;
      const uint32_t n = counts[b];
      counts[b] = offset;
      offset += n;
    }
  }
}

/* Pass 3: every agent of the thread's chunk to its slot, in index order. */
static void scatter(crowdsteer_grid *g, const crowdsteer_agents *agents,
                    const float *const pos[3], const uint32_t *group, size_t table,
                    int threads, int t) {
  uint32_t *cursor = g->thread_counts + (size_t)t * table;
  const float *const vel[3] = {agents->vx, agents->vy, agents->vz};
  size_t first, last;
  agent_chunk(g->count, threads, t, &first, &last);
  for (size_t i = first; i < last; i++) {
    const uint32_t slot = cursor[bucket_of(g, pos, i)]++;
    for (int k = 0; k < g->dims; k++) {
      g->pos[k][slot] = pos[k][i];
      g->vel[k][slot] = vel[k][i];
    }
    g->index[slot] = (uint32_t)i;
    if (group) g->group[slot] = group[i];
  }
}

static void sort_into_buckets(crowdsteer_grid *g, const crowdsteer_agents *agents,
                              const uint32_t *group, size_t table, int threads) {
  const float *const pos[3] = {agents->px, agents->py, agents->pz};
  uint32_t totals[MAX_BUILD_THREADS];
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1)
#endif
  {
    /* Cells come from float arithmetic: every worker in the fixed mode. */
    const cs_fpenv worker = cs_fpenv_enter();
#ifdef _OPENMP
    const int t = omp_get_thread_num();
#else
    const int t = 0;
#endif
    const size_t first = table * (size_t)t / (size_t)threads;
    const size_t last = table * (size_t)(t + 1) / (size_t)threads;
    histogram(g, pos, table, threads, t);
#ifdef _OPENMP
#pragma omp barrier
#endif
    totals[t] = range_total(g, table, threads, first, last);
#ifdef _OPENMP
#pragma omp barrier
#endif
    uint32_t offset = 0;
    for (int u = 0; u < t; u++)
      offset += totals[u];
    range_offsets(g, table, threads, first, last, offset);
#ifdef _OPENMP
#pragma omp barrier
#endif
    scatter(g, agents, pos, group, table, threads, t);
    cs_fpenv_leave(worker);
  }
  g->start[table] = (uint32_t)g->count;
}

static crowdsteer_status check_build(const crowdsteer_agents *agents,
                                     const crowdsteer_grid_desc *desc) {
  if (!agents || !desc) return CROWDSTEER_ERROR_NULL_POINTER;
  if (agents->dims != 2 && agents->dims != 3) return CROWDSTEER_ERROR_DIMS;
  if (agents->count > UINT32_MAX - 1) return CROWDSTEER_ERROR_RANGE;
  if (!(desc->cell_size > 0.0f && desc->cell_size <= 3.4028234e38f) ||
      desc->threads < 0 || (desc->table_size && !is_power_of_two(desc->table_size)) ||
      desc->table_size > ((size_t)1 << 31))
    return CROWDSTEER_ERROR_PARAMETER;
  /* The cell coordinate is x * (1 / cell_size): that must be finite. */
  if (!(1.0f / desc->cell_size <= 3.4028234e38f)) return CROWDSTEER_ERROR_PARAMETER;
  if (agents->count == 0) return CROWDSTEER_OK;
  const float *const needed[6] = {agents->px, agents->py, agents->pz,
                                  agents->vx, agents->vy, agents->vz};
  for (int a = 0; a < 6; a++)
    if (!needed[a] && !(agents->dims == 2 && (a == 2 || a == 5)))
      return CROWDSTEER_ERROR_NULL_POINTER;
  for (int a = 0; a < 6; a++)
    if (!(agents->dims == 2 && (a == 2 || a == 5)) && !cs_aligned(needed[a]))
      return CROWDSTEER_ERROR_ALIGNMENT;
  if (desc->group && !cs_aligned(desc->group)) return CROWDSTEER_ERROR_ALIGNMENT;
  return CROWDSTEER_OK;
}

static crowdsteer_status grid_build_here(crowdsteer_grid *grid,
                                         const crowdsteer_agents *agents,
                                         const crowdsteer_grid_desc *desc) {
  if (!grid) return CROWDSTEER_ERROR_NULL_POINTER;
  CS_CHECK(check_build(agents, desc));
  const int dims = agents->dims;
  const size_t count = agents->count;
  const size_t table = desc->table_size ? desc->table_size : automatic_table(count, dims);
  const int threads = build_threads(desc->threads, count);
  const int with_group = desc->group != NULL;
  CS_CHECK(reserve(grid, count, table, threads, dims, with_group));
  grid->built = 1;
  grid->dims = dims;
  grid->count = count;
  grid->cell_size = desc->cell_size;
  grid->inv_cell = 1.0f / desc->cell_size;
  grid->bucket_mask = (uint32_t)(table - 1);
  grid->scan_all = table < (dims == 3 ? 64u : 16u);
  grid->has_group = with_group;
  sort_into_buckets(grid, agents, desc->group, table, threads);
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_grid_build(crowdsteer_grid *grid,
                                        const crowdsteer_agents *agents,
                                        const crowdsteer_grid_desc *desc) {
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host, grid_build_here(grid, agents, desc));
}
