/* Separation, cohesion and alignment: validation and defaults, the entry
 * points, the candidate runs of a query, nearest-k selection, and the scalar
 * kernel, which is both the brute force over every pair (no grid) and the
 * scalar backend's grid query. */
#include <float.h>
#include <string.h>

#include "neighbours/neighbours.h"

/* Smallest non-zero radius: radius^2 stays a normal float, so a neighbour's
 * every coordinate difference is below the radius (the query's cell range
 * relies on it). */
#define MIN_RADIUS 0x1p-60f

/* ---- candidate runs ------------------------------------------------------- */

static void add_row(cs_nb_rows *rows, size_t first, size_t last) {
  if (first == last) return;
  if (rows->count > 0 && rows->last[rows->count - 1] == first) {
    rows->last[rows->count - 1] = last; /* the next bucket follows on */
    return;
  }
  rows->first[rows->count] = first;
  rows->last[rows->count] = last;
  rows->count++;
}

static void grid_source(const crowdsteer_grid *g, cs_nb_rows *rows) {
  for (int k = 0; k < 3; k++) {
    rows->pos[k] = g->pos[k];
    rows->vel[k] = g->vel[k];
  }
  rows->group = g->group;
  rows->index = g->index;
  rows->count = 0;
}

/* Every q within the radius has fl(p - r) <= p_q <= fl(p + r) on each axis
 * (rounding is monotone, and radius >= MIN_RADIUS makes each coordinate
 * difference of a neighbour smaller than the radius), so its cell lies in
 * [cell(fl(p - r)), cell(fl(p + r))]: at most 4 cells per axis (see
 * CS_CELL_LIMIT), whose buckets are distinct, so no agent is seen twice. */
void cs_nb_rows_for(const cs_nb_job *job, const cs_nb_agent *a, cs_nb_rows *rows) {
  const int dims = job->dims;
  const crowdsteer_grid *g = job->grid;
  if (!g) {
    for (int k = 0; k < 3; k++) {
      rows->pos[k] = job->pos[k];
      rows->vel[k] = job->vel[k];
    }
    rows->group = job->group;
    rows->index = NULL;
    rows->count = 0;
    add_row(rows, 0, job->count);
    return;
  }
  grid_source(g, rows);
  uint32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  int wide = g->scan_all;
  for (int k = 0; k < dims; k++) {
    lo[k] = cs_cell(a->p[k] - a->radius, g->inv_cell);
    hi[k] = cs_cell(a->p[k] + a->radius, g->inv_cell);
    wide |= hi[k] - lo[k] > 3u;
  }
  if (wide) { /* never for a table of 4^dims buckets or more */
    add_row(rows, 0, g->count);
    return;
  }
  uint32_t cell[3] = {0, 0, 0};
  for (cell[2] = lo[2]; cell[2] <= hi[2]; cell[2]++)
    for (cell[1] = lo[1]; cell[1] <= hi[1]; cell[1]++)
      for (cell[0] = lo[0]; cell[0] <= hi[0]; cell[0]++) {
        const uint32_t b = cs_bucket(cell, dims, g->bucket_mask);
        add_row(rows, g->start[b], g->start[b + 1]);
      }
}

/* ---- scalar evaluation ----------------------------------------------------- */

static inline void load_slot(const cs_nb_rows *rows, size_t slot, int dims, float p[3],
                             float v[3], uint32_t *index, uint32_t *group) {
  for (int k = 0; k < dims; k++) {
    p[k] = rows->pos[k][slot];
    v[k] = cs_velocity_at(rows->vel[k], slot);
  }
  *index = rows->index ? rows->index[slot] : (uint32_t)slot;
  *group = rows->group ? rows->group[slot] : 0u;
}

enum scan_mode { SUM_ALL, HISTOGRAM, SUM_UP_TO };

/* One pass over the candidates: sum every neighbour (SUM_ALL), histogram a
 * byte of the keys matching `prefix` under `known` (HISTOGRAM), or sum the
 * neighbours with key <= `prefix` (SUM_UP_TO). */
static inline __attribute__((always_inline)) void
scan(const cs_nb_job *job, const cs_nb_agent *a, const cs_nb_rows *rows,
     enum scan_mode mode, uint64_t prefix, uint64_t known, int shift, uint32_t hist[256],
     cs_nb_sum *sum) {
  const int dims = job->dims;
  for (int r = 0; r < rows->count; r++) {
    for (size_t slot = rows->first[r]; slot < rows->last[r]; slot++) {
      float p[3] = {0, 0, 0}, v[3] = {0, 0, 0}, c[3] = {0, 0, 0}, dist = 0.0f;
      uint32_t qi, group;
      load_slot(rows, slot, dims, p, v, &qi, &group);
      if (!cs_nb_pair(a, job->behaviour, dims, qi, p, v, group, &dist, c)) continue;
      if (mode == SUM_ALL) {
        cs_nb_add(sum, c, dims);
        continue;
      }
      const uint64_t key = cs_nb_nearness(dist, cs_agent_id(a->ids, qi));
      if (mode == HISTOGRAM) {
        if ((key & known) == prefix) hist[(key >> shift) & 255u]++;
      } else if (key < prefix || (key == prefix && sum->n < job->cap)) {
        /* Distinct ids make keys distinct: cap - 1 below the cap-th, which
         * is added; agents sharing an id never push the set beyond cap. */
        cs_nb_add(sum, c, dims);
      }
    }
  }
}

void cs_nb_sum_kept(const cs_nb_job *job, cs_nb_nearest *kept, cs_nb_sum *sum) {
  const int dims = job->dims;
  const uint32_t m = kept->count;
  memset(sum, 0, sizeof *sum);
  if (m <= job->cap) {
    for (uint32_t j = 0; j < m; j++)
      cs_nb_add(sum, kept->c[j], dims);
    return;
  }
  /* A taken key becomes UINT64_MAX, above every key (a distance below the
   * radius has bits below infinity's); the strict < keeps the first of
   * equal keys. */
  for (uint32_t taken = 0; taken < job->cap; taken++) {
    uint32_t best = 0;
    uint64_t least = kept->key[0];
    for (uint32_t j = 1; j < m; j++)
      if (kept->key[j] < least) {
        least = kept->key[j];
        best = j;
      }
    cs_nb_add(sum, kept->c[best], dims);
    kept->key[best] = UINT64_MAX;
  }
}

/* The cap nearest of at most CS_NB_NEAREST neighbours: one pass keeps
 * them, then cs_nb_sum_kept, which sums the set the radix selection below
 * sums. A cap of 6 over 8 neighbours cost 3.3 us per agent through the
 * radix selection. */
static __attribute__((noinline)) void sum_nearest_kept(const cs_nb_job *job,
                                                       const cs_nb_agent *a,
                                                       const cs_nb_rows *rows,
                                                       cs_nb_sum *sum) {
  const int dims = job->dims;
  cs_nb_nearest kept;
  kept.count = 0;
  for (int r = 0; r < rows->count; r++)
    for (size_t slot = rows->first[r]; slot < rows->last[r] && kept.count < CS_NB_NEAREST;
         slot++) {
      float p[3] = {0, 0, 0}, v[3] = {0, 0, 0}, dist = 0.0f;
      float *c = kept.c[kept.count];
      uint32_t qi, group;
      load_slot(rows, slot, dims, p, v, &qi, &group);
      c[0] = c[1] = c[2] = 0.0f;
      if (!cs_nb_pair(a, job->behaviour, dims, qi, p, v, group, &dist, c)) continue;
      kept.key[kept.count++] = cs_nb_nearness(dist, cs_agent_id(a->ids, qi));
    }
  cs_nb_sum_kept(job, &kept, sum);
}

/* The cap nearest by radix selection of the cap-th smallest key, a byte at
 * a time (eight histogram passes over the candidates, no memory), then one
 * pass summing every key up to it. */
static __attribute__((noinline)) void sum_nearest_radix(const cs_nb_job *job,
                                                        const cs_nb_agent *a,
                                                        const cs_nb_rows *rows,
                                                        cs_nb_sum *sum) {
  uint64_t prefix = 0, known = 0;
  uint32_t need = job->cap;
  for (int shift = 56; shift >= 0; shift -= 8) {
    uint32_t hist[256];
    memset(hist, 0, sizeof hist);
    scan(job, a, rows, HISTOGRAM, prefix, known, shift, hist, NULL);
    uint32_t byte = 0;
    for (; byte < 255u && hist[byte] < need; byte++)
      need -= hist[byte];
    prefix |= (uint64_t)byte << shift;
    known |= (uint64_t)255u << shift;
  }
  memset(sum, 0, sizeof *sum);
  scan(job, a, rows, SUM_UP_TO, prefix, known, 0, NULL, sum);
}

/* `sum` holds every neighbour on entry; each way keeps its buffer in a
 * frame of its own, so the two never add up on the stack. */
void cs_nb_sum_nearest(const cs_nb_job *job, const cs_nb_agent *a, const cs_nb_rows *rows,
                       cs_nb_sum *sum) {
  if (sum->n <= CS_NB_NEAREST)
    sum_nearest_kept(job, a, rows, sum);
  else
    sum_nearest_radix(job, a, rows, sum);
}

/* Agent i's steering from its query, written per the job's output mode. */
static void evaluate_agent(const cs_nb_job *job, size_t i, const float p[3],
                           const float v[3]) {
  cs_nb_agent a;
  cs_nb_agent_init(&a, job, i, p, v);
  cs_nb_rows rows;
  cs_nb_rows_for(job, &a, &rows);
  cs_nb_sum sum;
  memset(&sum, 0, sizeof sum);
  scan(job, &a, &rows, SUM_ALL, 0, 0, 0, NULL, &sum);
  if (sum.n > job->cap) cs_nb_sum_nearest(job, &a, &rows, &sum);
  float s[3];
  cs_nb_steering(job, &a, &sum, i, s);
  cs_nb_write(job, i, s);
}

static inline int selected(const cs_nb_job *job, size_t i) {
  return !job->lane_select || (job->lane_select[i] & job->lane_bit);
}

void cs_nb_kernel_scalar(const cs_nb_job *job, size_t begin, size_t end) {
  const int dims = job->dims;
  float p[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  if (!job->grid) {
    for (size_t i = begin; i < end; i++) {
      if (!selected(job, i)) continue;
      for (int k = 0; k < dims; k++) {
        p[k] = job->pos[k][i];
        v[k] = job->vel[k][i];
      }
      evaluate_agent(job, i, p, v);
    }
    return;
  }
  const crowdsteer_grid *g = job->grid;
  for (size_t slot = job->slot_first; slot < job->slot_last; slot++) {
    const size_t i = g->index[slot];
    if (i < begin || i >= end || !selected(job, i)) continue;
    for (int k = 0; k < dims; k++) {
      p[k] = g->pos[k][slot];
      v[k] = cs_velocity_at(g->vel[k], slot);
    }
    evaluate_agent(job, i, p, v);
  }
}

/* ---- validation --------------------------------------------------------------- */

static int agent_in(const cs_range *r, size_t i) {
  return !r->select || (r->select[i] & r->bit);
}

/* A radius in effect: 0 (per-agent only) or in [MIN_RADIUS, limit]. */
static int radius_ok(float x, float limit, int zero_ok) {
  return (zero_ok && x == 0.0f) || (x >= MIN_RADIUS && x <= limit);
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
  if (radius_ok(job->radius.value, limit, 0))
    job->within = cs_within_limit(job->radius.value);
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
           NULL, NULL, params, begin, end, select, select_bit)) != CROWDSTEER_OK)
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

static const cs_nb_backend scalar_backend = {cs_nb_kernel_scalar, cs_nb_keys_scalar,
                                             cs_nb_ends_scalar, NULL};

const cs_nb_backend *cs_nb_backend_for(crowdsteer_isa isa) {
  switch (isa) {
#ifdef CROWDSTEER_HAVE_SSE4
  case CROWDSTEER_ISA_SSE4: return &cs_nb_kernel_sse4;
#endif
#ifdef CROWDSTEER_HAVE_AVX2
  case CROWDSTEER_ISA_AVX2: return &cs_nb_kernel_avx2;
#endif
#ifdef CROWDSTEER_HAVE_AVX512
  case CROWDSTEER_ISA_AVX512: return &cs_nb_kernel_avx512;
#endif
#ifdef CROWDSTEER_HAVE_NEON
  case CROWDSTEER_ISA_NEON: return &cs_nb_kernel_neon;
#endif
  default: return &scalar_backend;
  }
}

typedef struct pass_work {
  const cs_nb_job *job;
  cs_nb_kernel kernel;
  size_t begin, end;
  size_t parts;
} pass_work;

/* Parts [first, last) of a pass, each a contiguous run of grid slots (any
 * cut gives the same bits: each agent's steering is its own). */
static void pass_parts(void *context, size_t first, size_t last) {
  const pass_work *work = context;
  const crowdsteer_grid *g = work->job->grid;
  cs_nb_job part = *work->job;
  for (size_t t = first; t < last; t++) {
    part.slot_first = g->count * t / work->parts;
    part.slot_last = g->count * (t + 1) / work->parts;
    work->kernel(&part, work->begin, work->end);
  }
}

void cs_nb_pass(const cs_nb_job *job, cs_nb_kernel kernel, size_t begin, size_t end,
                const cs_spread *spread) {
  const size_t width = cs_spread_width(spread, job->grid->count / 1024 + 1);
  pass_work work = {job, kernel, begin, end, width > 1 ? 4 * width : 1};
  if (work.parts == 1)
    kernel(job, begin, end);
  else
    cs_spread_run(spread, work.parts, 1, pass_parts, &work);
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
   * call never starts an OpenMP team. */
  const cs_spread spread = cs_spread_for(nb->tasks, 1, 1);
  cs_nb_pass(&job, cs_nb_backend_for(crowdsteer_active_isa())->kernel, begin, end,
             &spread);
  return CROWDSTEER_OK;
}
