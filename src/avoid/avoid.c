/* crowdsteer_avoid: ORCA velocities for a range of agents. Validation and
 * defaults, the canonical order of the constraints (obstacle edges nearest
 * first, ties by edge index; then neighbours nearest first, ties by id),
 * and the per-agent evaluation a step shares. */
#include "avoid/avoid.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "workspace.h"

static cs_avoid_scan_fn scan_for(crowdsteer_isa isa);
static cs_orca_lines_fn lines_for(crowdsteer_isa isa);

/* ---- validation ------------------------------------------------------------- */

/* Every element of a[first, last) in [lo, hi] (so not NaN). */
static int all_within(const float *a, size_t first, size_t last, float lo, float hi) {
  for (size_t i = first; i < last; i++)
    if (!(a[i] >= lo && a[i] <= hi)) return 0;
  return 1;
}

/* A per-agent or uniform parameter in [lo, hi] (the uniform value after
 * its default), per-agent values checked over [first, last). */
static crowdsteer_status resolve(cs_param *out, float uniform, const float *per_agent,
                                 float fallback, float lo, float hi, size_t first,
                                 size_t last) {
  out->array = per_agent;
  out->value = uniform == 0.0f ? fallback : uniform;
  if (per_agent) {
    if (first < last && !cs_aligned(per_agent)) return CROWDSTEER_ERROR_ALIGNMENT;
    return all_within(per_agent, first, last, lo, hi) ? CROWDSTEER_OK
                                                      : CROWDSTEER_ERROR_PARAMETER;
  }
  return out->value >= lo && out->value <= hi ? CROWDSTEER_OK
                                              : CROWDSTEER_ERROR_PARAMETER;
}

static int positive_finite(float x) { return x > 0.0f && x <= FLT_MAX; }

crowdsteer_status cs_avoid_prepare(cs_avoid_job *job, const crowdsteer_agents *agents,
                                   const crowdsteer_avoidance *avoidance,
                                   const crowdsteer_params *params, size_t begin,
                                   size_t end) {
  crowdsteer_status fault;
  memset(job, 0, sizeof *job);
  if (!agents || !avoidance || !params) return CROWDSTEER_ERROR_NULL_POINTER;
  if (agents->dims != 2 && agents->dims != 3) return CROWDSTEER_ERROR_DIMS;
  if (agents->dims == 3 && avoidance->obstacles) return CROWDSTEER_ERROR_DIMS;
  if (begin > end || end > agents->count) return CROWDSTEER_ERROR_RANGE;
  job->dims = agents->dims;
  job->count = agents->count;
  job->id = agents->id;
  const int any = begin < end;
  if (any) {
    const float *const state[6] = {agents->px, agents->py, agents->pz,
                                   agents->vx, agents->vy, agents->vz};
    for (int a = 0; a < 6; a++) {
      if (agents->dims == 2 && (a == 2 || a == 5)) continue;
      if (!state[a]) return CROWDSTEER_ERROR_NULL_POINTER;
      if (!cs_aligned(state[a])) return CROWDSTEER_ERROR_ALIGNMENT;
    }
    if (agents->id && !cs_aligned(agents->id)) return CROWDSTEER_ERROR_ALIGNMENT;
  }
  job->pos[0] = agents->px, job->pos[1] = agents->py;
  job->vel[0] = agents->vx, job->vel[1] = agents->vy;
  if (agents->dims == 3) job->pos[2] = agents->pz, job->vel[2] = agents->vz;
  job->avoid_agents = avoidance->neighbours != NULL;
  /* A neighbour's radius and responsibility are read too: with agents to
   * avoid, the per-agent arrays are checked over the whole batch. */
  const size_t last = job->avoid_agents && any ? agents->count : end;
  const size_t first = job->avoid_agents && any ? 0 : begin;
  if ((fault = resolve(&job->radius, avoidance->radius, avoidance->radius_per_agent, 0.0f,
                       0.0f, FLT_MAX, first, last)) != CROWDSTEER_OK)
    return fault;
  if ((fault = resolve(&job->responsibility, avoidance->responsibility,
                       avoidance->responsibility_per_agent, 0.5f, 0.0f, 1.0f, first,
                       last)) != CROWDSTEER_OK)
    return fault;
  if ((fault = resolve(&job->max_speed, params->max_speed, params->max_speed_per_agent,
                       1.0f, 0.0f, FLT_MAX, begin, end)) != CROWDSTEER_OK)
    return fault;
  const float tau = avoidance->time_horizon == 0.0f ? 1.0f : avoidance->time_horizon;
  const float tau_o =
      avoidance->obstacle_time_horizon == 0.0f ? tau : avoidance->obstacle_time_horizon;
  const float dt = params->dt == 0.0f ? 1.0f : params->dt;
  if (!positive_finite(tau) || !positive_finite(tau_o) || !positive_finite(dt))
    return CROWDSTEER_ERROR_PARAMETER;
  job->inv_time_horizon = 1.0f / tau;
  job->obstacle_time_horizon = tau_o;
  job->inv_obstacle_time_horizon = 1.0f / tau_o;
  job->inv_dt = 1.0f / dt;
  if (avoidance->report && any && !cs_aligned(avoidance->report))
    return CROWDSTEER_ERROR_ALIGNMENT;
  job->scan = scan_for(crowdsteer_active_isa());
  job->lines = lines_for(crowdsteer_active_isa());
  job->obstacles = avoidance->obstacles;
  if (job->obstacles && !job->obstacles->built) return CROWDSTEER_ERROR_GRID;
  if (job->avoid_agents) {
    const crowdsteer_params none = {0};
    if ((fault = cs_nb_prepare(&job->neighbours, CS_NB_ALIGNMENT, agents,
                               avoidance->neighbours, &none, begin, end, NULL, 0)) !=
        CROWDSTEER_OK)
      return fault;
  }
  return CROWDSTEER_OK;
}

/* ---- scratch -------------------------------------------------------------------- */

static size_t edge_count(const cs_avoid_job *job) {
  return job->obstacles ? job->obstacles->vertex_count : 0;
}

static size_t neighbour_cap(const cs_avoid_job *job) {
  return job->avoid_agents ? job->neighbours.cap : 0;
}

static size_t round_up(size_t bytes) { return (bytes + 15u) & ~(size_t)15u; }

/* Room for one constraint: a line in 2D, a plane in 3D. */
static size_t constraint_size(const cs_avoid_job *job) {
  return job->dims == 2 ? sizeof(cs_orca_line) : sizeof(cs_orca_plane);
}

size_t cs_avoid_scratch_bytes(const cs_avoid_job *job) {
  const size_t lines = neighbour_cap(job) + edge_count(job);
  size_t bytes = round_up(neighbour_cap(job) * sizeof(cs_avoid_near));
  if (job->avoid_agents)
    bytes += round_up((neighbour_cap(job) + CS_AVOID_SPARE) * sizeof(cs_avoid_cand)) +
             round_up((CS_AVOID_SPARE + CS_AVOID_PAD) * sizeof(float)) +
             round_up(3 * CS_AVOID_RUNS * sizeof(uint32_t)) +
             7 * round_up((neighbour_cap(job) + CS_AVOID_PAD) * sizeof(float));
  bytes += round_up(edge_count(job) * (sizeof(uint64_t) + sizeof(uint32_t)));
  bytes += 2 * round_up(lines * constraint_size(job));
  if (job->obstacles) bytes += round_up(cs_obstacle_scratch_bytes(job->obstacles));
  return bytes + 16;
}

void cs_avoid_scratch_init(cs_avoid_scratch *s, const cs_avoid_job *job, void *memory) {
  char *at = memory;
  const size_t lines = neighbour_cap(job) + edge_count(job);
  s->near = (cs_avoid_near *)at;
  at += round_up(neighbour_cap(job) * sizeof(cs_avoid_near));
  s->cands = (cs_avoid_cand *)at;
  if (job->avoid_agents)
    at += round_up((neighbour_cap(job) + CS_AVOID_SPARE) * sizeof(cs_avoid_cand));
  s->row_dd = (float *)at;
  if (job->avoid_agents) at += round_up((CS_AVOID_SPARE + CS_AVOID_PAD) * sizeof(float));
  s->runs = (uint32_t *)at;
  if (job->avoid_agents) at += round_up(3 * CS_AVOID_RUNS * sizeof(uint32_t));
  s->narrowed.count = -1;
  s->rows_kept = 0;
  const size_t padded = round_up((neighbour_cap(job) + CS_AVOID_PAD) * sizeof(float));
  s->nb_floats = (float *)at;
  s->nb_stride = padded / sizeof(float);
  if (job->avoid_agents) at += 6 * padded;
  s->nb_ids = (uint32_t *)at;
  if (job->avoid_agents) at += padded;
  s->edge_keys = (uint64_t *)at;
  s->edges = (uint32_t *)(at + edge_count(job) * sizeof(uint64_t));
  at += round_up(edge_count(job) * (sizeof(uint64_t) + sizeof(uint32_t)));
  s->constraints.lines = (cs_orca_line *)at;
  at += round_up(lines * constraint_size(job));
  s->room.lines = (cs_orca_line *)at;
  at += round_up(lines * constraint_size(job));
  if (job->obstacles) cs_obstacle_scratch_init(&s->obstacle, job->obstacles, at);
}

/* ---- one agent ------------------------------------------------------------------- */

static int compare_near(const void *a, const void *b) {
  const cs_avoid_near *x = a, *y = b;
  return cs_avoid_nearer(x, y) ? -1 : (cs_avoid_nearer(y, x) ? 1 : 0);
}

static int compare_keys(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* The obstacle lines of agent a, in canonical order, into s->lines. */
static size_t obstacle_lines(const cs_avoid_job *job, cs_avoid_scratch *s,
                             const cs_orca_agent *a) {
  const crowdsteer_obstacles *o = job->obstacles;
  const float range = job->obstacle_time_horizon * a->max_speed + a->radius;
  const float range_sq = range * range;
  const size_t found =
      cs_obstacle_edges_near(o, &s->obstacle, a->p[0] - range, a->p[1] - range,
                             a->p[0] + range, a->p[1] + range);
  size_t kept = 0;
  for (size_t k = 0; k < found; k++) {
    float dist_sq;
    const uint32_t e = s->obstacle.found[k];
    if (!cs_orca_edge_in_range(o, e, a->p, range_sq, &dist_sq)) continue;
    uint32_t bits;
    memcpy(&bits, &dist_sq, sizeof bits);
    s->edge_keys[kept++] = (uint64_t)bits << 32 | e;
  }
  qsort(s->edge_keys, kept, sizeof *s->edge_keys, compare_keys);
  for (size_t k = 0; k < kept; k++)
    s->edges[k] = (uint32_t)s->edge_keys[k];
  size_t count = 0;
  cs_orca_obstacle_lines(o, a, job->inv_obstacle_time_horizon, s->edges, kept,
                         s->constraints.lines, &count);
  return count;
}

/* The cap nearest neighbours of agent i, nearest first, into s->near
 * (section 8's rule: distance, then id; the field of view and group
 * filter as cs_nb_pair applies them). */
/* Agent a's candidate runs into s->rows, the middle run first (the
 * agent's own row of cells): its nearest neighbours fill the cap early and
 * tighten the scan's bound. The order of runs decides nothing but ties
 * between agents sharing an id. The runs of the agent before are kept when
 * its cells are the same, as they mostly are in a walk in grid order. */
static void candidate_rows(const cs_nb_job *nb, cs_avoid_scratch *s,
                           const cs_nb_agent *a) {
  cs_nb_rows *rows = &s->rows;
  if (!nb->grid || cs_nb_whole_grid(nb->grid)) {
    cs_nb_rows_for(nb, a, rows); /* one run */
    return;
  }
  uint32_t lo[3], hi[3];
  cs_nb_cells_for(nb->grid, a, nb->dims, lo, hi);
  if (s->rows_kept && memcmp(lo, s->rows_lo, sizeof lo) == 0 &&
      memcmp(hi, s->rows_hi, sizeof hi) == 0)
    return;
  cs_nb_rows_in_cells(nb->grid, lo, hi, nb->dims, rows);
  memcpy(s->rows_lo, lo, sizeof lo);
  memcpy(s->rows_hi, hi, sizeof hi);
  s->rows_kept = 1;
  if (rows->count > 2) {
    const int mid = rows->count / 2;
    const size_t first = rows->first[mid], last = rows->last[mid];
    for (int r = mid; r > 0; r--) {
      rows->first[r] = rows->first[r - 1];
      rows->last[r] = rows->last[r - 1];
    }
    rows->first[0] = first, rows->last[0] = last;
  }
}

static uint32_t nearest_neighbours(const cs_avoid_job *job, cs_avoid_scratch *s, size_t i,
                                   const float p[3], const float v[3]) {
  const cs_nb_job *nb = &job->neighbours;
  const int dims = job->dims;
  const uint32_t cap = nb->cap;
  const cs_nb_rows *rows = &s->rows;
  cs_nb_agent a;
  cs_nb_agent_init(&a, nb, i, p, v);
  candidate_rows(nb, s, &a);
  uint32_t count = 0;
  if (!a.fov) {
    /* The squared distance against cs_within_limit decides as the distance
     * against the radius does; the backend's scan, lanes over candidates. */
    const cs_avoid_scan scan = {
        rows,     dims,      {a.p[0], a.p[1], a.p[2]},
        a.within, a.index,   a.use_mask,
        a.mask,   job->id,   cap,
        s->cands, s->row_dd, nb->grid ? nb->grid->count : job->count,
        nb->grid, s->runs,   &s->narrowed};
    count = job->scan(&scan, s->near);
  } else {
    uint32_t order = 0;
    for (int r = 0; r < rows->count; r++)
      for (size_t slot = rows->first[r]; slot < rows->last[r]; slot++, order++) {
        const uint32_t qi = rows->index ? rows->index[slot] : (uint32_t)slot;
        float pq[3] = {0.0f, 0.0f, 0.0f}, unused[3], dist;
        const float vq[3] = {0.0f, 0.0f, 0.0f};
        for (int k = 0; k < dims; k++)
          pq[k] = rows->pos[k][slot];
        const uint32_t group = rows->group ? rows->group[slot] : 0u;
        if (!cs_nb_pair(&a, CS_NB_COHESION, dims, qi, pq, vq, group, &dist, unused))
          continue;
        const cs_avoid_near c = {cs_nb_nearness(dist, cs_agent_id(job->id, qi)), order,
                                 (uint32_t)slot};
        if (cap <= CS_AVOID_SORTED_CAP)
          cs_avoid_keep_sorted(s->near, &count, cap, c);
        else
          cs_avoid_heap_offer(s->near, &count, cap, c);
      }
  }
  if (cap > CS_AVOID_SORTED_CAP) qsort(s->near, count, sizeof *s->near, compare_near);
  return count;
}

/* The scan of an ISA (the scalar one where no SIMD scan is built). */
static cs_avoid_scan_fn scan_for(crowdsteer_isa isa) {
  switch (isa) {
#ifdef CROWDSTEER_HAVE_SSE4
  case CROWDSTEER_ISA_SSE4: return cs_avoid_scan_sse4;
#endif
#ifdef CROWDSTEER_HAVE_AVX2
  case CROWDSTEER_ISA_AVX2: return cs_avoid_scan_avx2;
#endif
#ifdef CROWDSTEER_HAVE_AVX512
  case CROWDSTEER_ISA_AVX512: return cs_avoid_scan_avx512;
#endif
#ifdef CROWDSTEER_HAVE_NEON
  case CROWDSTEER_ISA_NEON: return cs_avoid_scan_neon;
#endif
#ifdef CROWDSTEER_HAVE_SIMD128
  case CROWDSTEER_ISA_SIMD128: return cs_avoid_scan_simd128;
#endif
  default: return cs_avoid_scan_scalar;
  }
}

/* The lines of an ISA (the scalar definition where none is built). */
static cs_orca_lines_fn lines_for(crowdsteer_isa isa) {
  switch (isa) {
#ifdef CROWDSTEER_HAVE_SSE4
  case CROWDSTEER_ISA_SSE4: return cs_avoid_lines_sse4;
#endif
#ifdef CROWDSTEER_HAVE_AVX2
  case CROWDSTEER_ISA_AVX2: return cs_avoid_lines_avx2;
#endif
#ifdef CROWDSTEER_HAVE_AVX512
  case CROWDSTEER_ISA_AVX512: return cs_avoid_lines_avx512;
#endif
#ifdef CROWDSTEER_HAVE_NEON
  case CROWDSTEER_ISA_NEON: return cs_avoid_lines_neon;
#endif
#ifdef CROWDSTEER_HAVE_SIMD128
  case CROWDSTEER_ISA_SIMD128: return cs_avoid_lines_simd128;
#endif
  default: return cs_orca_agent_lines;
  }
}

/* 3D: agents only. */
static uint32_t avoid_agent_3d(const cs_avoid_job *job, cs_avoid_scratch *s, size_t i,
                               const float p[3], const float v[3],
                               const float preferred[3], float velocity[3]) {
  const cs_orca3_agent a = {{p[0], p[1], p[2]},
                            {v[0], v[1], v[2]},
                            cs_param_at(job->radius, i),
                            cs_param_at(job->max_speed, i),
                            cs_param_at(job->responsibility, i),
                            cs_agent_id(job->id, i)};
  size_t count = 0;
  if (job->avoid_agents) {
    const uint32_t near = nearest_neighbours(job, s, i, p, v);
    const cs_nb_rows *rows = &s->rows;
    for (uint32_t k = 0; k < near; k++) {
      const uint32_t slot = s->near[k].slot;
      const uint32_t q = rows->index ? rows->index[slot] : slot;
      const cs_orca3_agent b = {
          {rows->pos[0][slot], rows->pos[1][slot], rows->pos[2][slot]},
          {rows->vel[0][slot], rows->vel[1][slot], rows->vel[2][slot]},
          cs_param_at(job->radius, q),
          0.0f,
          cs_param_at(job->responsibility, q),
          cs_agent_id(job->id, q)};
      const float share = cs_orca_share(a.responsibility, b.responsibility);
      if (!(share > 0.0f)) continue;
      cs_orca3_agent_plane(&a, &b, share, job->inv_time_horizon, job->inv_dt,
                           &s->constraints.planes[count++]);
    }
  }
  const int crowded = cs_orca3_solve(s->constraints.planes, count, a.max_speed, preferred,
                                     s->room.planes, velocity);
  return crowded ? CROWDSTEER_REPORT_CROWDED : 0u;
}

uint32_t cs_avoid_agent(const cs_avoid_job *job, cs_avoid_scratch *s, size_t i,
                        const float p[3], const float v[3], const float preferred[3],
                        float velocity[3]) {
  if (job->dims == 3) return avoid_agent_3d(job, s, i, p, v, preferred, velocity);
  cs_orca_agent a = {{p[0], p[1]},
                     {v[0], v[1]},
                     cs_param_at(job->radius, i),
                     cs_param_at(job->max_speed, i),
                     cs_param_at(job->responsibility, i),
                     cs_agent_id(job->id, i)};
  size_t count = job->obstacles ? obstacle_lines(job, s, &a) : 0;
  const size_t obstacle_count = count;
  if (job->avoid_agents) {
    const uint32_t near = nearest_neighbours(job, s, i, p, v);
    const cs_nb_rows *rows = &s->rows;
    float *const f = s->nb_floats;
    const size_t stride = s->nb_stride;
    float *const at[6] = {
        f, f + stride, f + 2 * stride, f + 3 * stride, f + 4 * stride, f + 5 * stride};
    /* Past the last neighbour, copies of it fill the kernels' last block. */
    const uint32_t filled =
        near ? (near + CS_AVOID_PAD - 1u) / CS_AVOID_PAD * CS_AVOID_PAD : 0;
    for (uint32_t k = 0; k < near; k++) {
      const uint32_t slot = s->near[k].slot;
      const uint32_t q = rows->index ? rows->index[slot] : slot;
      at[0][k] = rows->pos[0][slot], at[1][k] = rows->pos[1][slot];
      at[2][k] = rows->vel[0][slot], at[3][k] = rows->vel[1][slot];
      at[4][k] = cs_param_at(job->radius, q);
      at[5][k] = cs_param_at(job->responsibility, q);
      s->nb_ids[k] = cs_agent_id(job->id, q);
    }
    for (uint32_t k = near; k < filled; k++) {
      for (int j = 0; j < 6; j++)
        at[j][k] = at[j][near - 1u];
      s->nb_ids[k] = s->nb_ids[near - 1u];
    }
    const cs_orca_neighbours nb = {at[0], at[1], at[2],     at[3],
                                   at[4], at[5], s->nb_ids, near};
    if (near)
      count += job->lines(&a, &nb, job->inv_time_horizon, job->inv_dt,
                          &s->constraints.lines[count]);
  }
  const int crowded = cs_orca_solve(s->constraints.lines, obstacle_count, count,
                                    a.max_speed, preferred, s->room.lines, velocity);
  return crowded ? CROWDSTEER_REPORT_CROWDED : 0u;
}

/* ---- entry point ------------------------------------------------------------------ */

static crowdsteer_status check_vectors(const crowdsteer_vectors *v, int dims,
                                       size_t begin, size_t end) {
  if (!v) return CROWDSTEER_ERROR_NULL_POINTER;
  if (begin == end) return CROWDSTEER_OK;
  const float *const axis[3] = {v->x, v->y, v->z};
  for (int k = 0; k < dims; k++) {
    if (!axis[k]) return CROWDSTEER_ERROR_NULL_POINTER;
    if (!cs_aligned(axis[k])) return CROWDSTEER_ERROR_ALIGNMENT;
  }
  return CROWDSTEER_OK;
}

/* The output may be the preferred arrays themselves and nothing else. */
static int output_clashes(const crowdsteer_agents *agents,
                          const crowdsteer_avoidance *avoidance,
                          const crowdsteer_params *params,
                          const crowdsteer_vectors *preferred,
                          const crowdsteer_vectors *velocity, size_t begin, size_t end) {
  cs_spans reads = {0}, writes = {0};
  const int dims = agents->dims;
  const int same = preferred->x == velocity->x && preferred->y == velocity->y &&
                   (dims == 2 || preferred->z == velocity->z);
  cs_spans_add_vectors(&writes, velocity, dims, begin, end, 1);
  cs_spans_add(&writes, avoidance->report, begin, end, 1);
  if (!same) cs_spans_add_vectors(&reads, preferred, dims, begin, end, 0);
  const int grid = avoidance->neighbours && avoidance->neighbours->grid;
  const size_t first = avoidance->neighbours ? 0 : begin;
  const size_t last = avoidance->neighbours ? agents->count : end;
  if (!grid) cs_spans_add_state(&reads, agents, dims, first, last, 0);
  cs_spans_add(&reads, avoidance->radius_per_agent, first, last, 0);
  cs_spans_add(&reads, avoidance->responsibility_per_agent, first, last, 0);
  cs_spans_add(&reads, params->max_speed_per_agent, begin, end, 0);
  cs_spans_add(&reads, agents->id, first, last, 0);
  if (avoidance->neighbours)
    cs_behaviour_spans(&reads, CROWDSTEER_ALIGNMENT, agents, NULL, NULL,
                       avoidance->neighbours, NULL, NULL, NULL, NULL, begin, end);
  return cs_spans_clash(&writes, &writes) || cs_spans_clash(&writes, &reads);
}

/* One call's walk: its job, arrays and the scratch slots its workers
 * take (one each at a time). */
typedef struct avoid_walk {
  const cs_avoid_job *job;
  const crowdsteer_avoidance *avoidance;
  const crowdsteer_vectors *preferred, *velocity;
  size_t begin, end;
  char *memory;
  size_t slot_bytes, slots;
  atomic_int *busy;
} avoid_walk;

/* Slots (grid slots, or agent indices without a grid) [first, last). */
static void walk_part(void *context, size_t first, size_t last) {
  const avoid_walk *w = context;
  const cs_avoid_job *job = w->job;
  const crowdsteer_grid *g = job->avoid_agents ? job->neighbours.grid : NULL;
  const size_t mine = cs_avoid_take_slot(w->busy, w->slots);
  cs_avoid_scratch s;
  cs_avoid_scratch_init(&s, job, w->memory + mine * w->slot_bytes);
  const int dims = job->dims;
  float *const pref_axis[3] = {w->preferred->x, w->preferred->y, w->preferred->z};
  float *const out_axis[3] = {w->velocity->x, w->velocity->y, w->velocity->z};
  enum { AHEAD = 8 };
  for (size_t slot = first; slot < last; slot++) {
    if (g && slot + AHEAD < last) {
      const size_t later = g->index[slot + AHEAD];
      cs_avoid_prefetch_agent(job, w->avoidance->report, later);
      for (int k = 0; k < dims; k++) {
        __builtin_prefetch(pref_axis[k] + later);
        __builtin_prefetch(out_axis[k] + later, 1);
      }
    }
    const size_t i = g ? g->index[slot] : slot;
    if (i < w->begin || i >= w->end) continue;
    float p[3] = {0.0f, 0.0f, 0.0f}, v[3] = {0.0f, 0.0f, 0.0f};
    float pref[3] = {0.0f, 0.0f, 0.0f}, out[3];
    for (int k = 0; k < dims; k++) {
      p[k] = g ? g->pos[k][slot] : job->pos[k][i];
      v[k] = g ? g->vel[k][slot] : job->vel[k][i];
      pref[k] = pref_axis[k][i];
    }
    const uint32_t report = cs_avoid_agent(job, &s, i, p, v, pref, out);
    for (int k = 0; k < dims; k++)
      out_axis[k][i] = out[k];
    if (w->avoidance->report) w->avoidance->report[i] = report;
  }
  atomic_store(&w->busy[mine], 0);
}

/* Parts [first, last) of 256 slots each (any cut gives the same
 * bits: each agent's velocity is its own). */
static void avoid_parts(void *context, size_t first, size_t last) {
  const avoid_walk *w = context;
  const crowdsteer_grid *g = w->job->neighbours.grid;
  const size_t to = last * 256 < g->count ? last * 256 : g->count;
  walk_part(context, first * 256, to);
}

crowdsteer_status
crowdsteer_avoid(const crowdsteer_agents *agents, const crowdsteer_avoidance *avoidance,
                 const crowdsteer_params *params, const crowdsteer_vectors *preferred,
                 const crowdsteer_vectors *velocity, size_t begin, size_t end) {
  crowdsteer_status fault;
  cs_avoid_job job;
  const crowdsteer_params defaults = {0}; /* NULL params: every default */
  if (!params) params = &defaults;
  const cs_fpenv host = cs_fpenv_enter();
  if ((fault = cs_avoid_prepare(&job, agents, avoidance, params, begin, end)) !=
      CROWDSTEER_OK)
    return cs_fpenv_return(host, fault);
  if ((fault = check_vectors(preferred, job.dims, begin, end)) != CROWDSTEER_OK ||
      (fault = check_vectors(velocity, job.dims, begin, end)) != CROWDSTEER_OK)
    return cs_fpenv_return(host, fault);
  /* The neighbours' task system spreads a call with a grid, as for the
   * neighbour behaviours' own calls. */
  const crowdsteer_task_system *tasks =
      job.avoid_agents && job.neighbours.grid ? avoidance->neighbours->tasks : NULL;
  if ((fault = cs_tasks_check(tasks)) != CROWDSTEER_OK)
    return cs_fpenv_return(host, fault);
  if (begin == end) return cs_fpenv_return(host, CROWDSTEER_OK);
  if (output_clashes(agents, avoidance, params, preferred, velocity, begin, end))
    return cs_fpenv_return(host, CROWDSTEER_ERROR_OVERLAP);
  const crowdsteer_grid *g = job.avoid_agents ? job.neighbours.grid : NULL;
  /* With a grid an agent's own state is the grid's copy too: walk its
   * slots (in cell order, which also keeps neighbours in cache). */
  const size_t first = g ? 0 : begin, last = g ? g->count : end;
  const cs_spread spread = {tasks, 1};
  /* Parts of 256 slots: enough to share, each worth a slot grab. */
  const size_t parts = tasks ? (last - first + 255) / 256 : 1;
  const size_t slots = tasks ? cs_spread_width(&spread, parts) + 1 : 1;
  const size_t slot_bytes = (cs_avoid_scratch_bytes(&job) + 63u) & ~(size_t)63u;
  const size_t bytes = slots * slot_bytes + slots * sizeof(atomic_int);
  cs_scratch scratch;
  if ((fault = cs_scratch_take(&scratch, avoidance->workspace,
                               (bytes + sizeof(float) - 1) / sizeof(float))) !=
      CROWDSTEER_OK)
    return cs_fpenv_return(host, fault);
  char *memory = (char *)scratch.floats;
  avoid_walk walk = {
      &job, avoidance, preferred,  velocity, begin,
      end,  memory,    slot_bytes, slots,    (atomic_int *)(memory + slots * slot_bytes)};
  for (size_t k = 0; k < slots; k++)
    atomic_init(&walk.busy[k], 0);
  if (tasks)
    cs_spread_run(&spread, parts, 1, avoid_parts, &walk);
  else
    walk_part(&walk, first, last);
  cs_scratch_give_back(&scratch);
  return cs_fpenv_return(host, CROWDSTEER_OK);
}
