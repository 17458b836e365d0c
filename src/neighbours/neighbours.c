/* Separation, cohesion and alignment: validation and defaults, the entry
 * points, the candidate runs of a query, nearest-k selection, and the scalar
 * kernel, which is both the brute force over every pair (no grid) and the
 * scalar backend's grid query. */
#include <float.h>
#include <stdatomic.h>
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

enum scan_mode { SUM_ALL, HISTOGRAM, COLLECT, SUM_UP_TO };

/* One pass over the candidates: sum every neighbour (SUM_ALL); count the
 * digit of the keys in the bucket of `s` (HISTOGRAM); sum the keys below
 * the bucket and keep its members (COLLECT); or sum the keys below
 * `s->prefix` and those equal to it while fewer than the cap are in, in
 * scan order (SUM_UP_TO, what decides between agents sharing an id). */
static inline __attribute__((always_inline)) void
scan(const cs_nb_job *job, const cs_nb_agent *a, const cs_nb_rows *rows,
     enum scan_mode mode, const cs_nb_select *s, cs_nb_histogram *h, cs_nb_bucket *bucket,
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
      const int member = (key & s->known) == s->prefix;
      if (mode == HISTOGRAM) {
        if (member) {
          h->count[(key >> s->shift) & (CS_NB_DIGITS - 1u)]++;
          h->all_and &= key;
          h->all_or |= key;
        }
      } else if (key < s->prefix) {
        cs_nb_add(sum, c, dims);
      } else if (mode == COLLECT) {
        if (member && bucket->count < CS_NB_BUCKET) { /* always: narrowed to fit */
          bucket->slot[bucket->count] = (uint32_t)slot;
          bucket->key[bucket->count++] = key;
        }
      } else if (key == s->prefix && sum->n < job->cap) {
        /* Distinct ids make keys distinct: cap - 1 below the cap-th, which
         * is added. Agents sharing an id and a distance: the first ones
         * scanned while the sum holds fewer than the cap. */
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

/* ---- the nearest-k selection past CS_NB_NEAREST ---------------------------
 *
 * The cap-th smallest key by radix selection: each histogram pass counts
 * CS_NB_DIGIT_BITS bits of the keys in the bucket (the keys sharing the
 * bits decided so far), the digit holding the cap-th key narrows the
 * bucket, and the bits every key counted shared (their AND and OR) are
 * decided with it, so the next pass counts the highest bits that still
 * differ. Once the bucket holds at most CS_NB_BUCKET keys, one more pass
 * sums every key below it and keeps its members, of which the nearest are
 * evaluated again and added. The keys are 63 bits (distance, id): at most
 * 9 histogram passes and the collecting one, whatever the cap; agents
 * sharing an id and a distance across the cap take one pass more
 * (SUM_UP_TO). Crowds of distinct distances take 2 histogram passes (the
 * exponent's high bits, then the next 7 that differ), a crowd at one point
 * 2 (the first finds every distance equal, the second counts the ids'
 * highest differing bits). It was 8 passes of 8 bits and a summing one,
 * and the vector kernels ran them here, a candidate at a time (2,000
 * agents in one cell under a cap of 1,998: 260 times the uncapped call). */

static void select_start(cs_nb_select *s, uint32_t cap) {
  s->prefix = 0;
  s->known = (uint64_t)1 << 63; /* a distance is not negative: its sign is 0 */
  s->need = cap;
  s->members = UINT32_MAX;
  s->shift = 63 - CS_NB_DIGIT_BITS; /* the exponent's high bits */
}

/* The highest bit that is not decided; known is not all ones. */
static inline uint64_t undecided_top(uint64_t known) {
  return (uint64_t)1 << (63 - __builtin_clzll(~known));
}

/* Narrows the bucket to the histogram's digit that holds the need-th key,
 * and decides the bits its keys all shared; 1 while it has too many
 * members to keep (another histogram), 0 once they fit a cs_nb_nearest or
 * are all one key. */
static int narrow(cs_nb_select *s, const cs_nb_histogram *h) {
  uint32_t digit = 0;
  while (digit < CS_NB_DIGITS - 1u && h->count[digit] < s->need)
    s->need -= h->count[digit++];
  s->members = h->count[digit];
  s->prefix |= (uint64_t)digit << s->shift;
  s->known |= (uint64_t)(CS_NB_DIGITS - 1u) << s->shift;
  const uint64_t shared = ~(h->all_and ^ h->all_or);
  while (s->known != UINT64_MAX && (shared & undecided_top(s->known))) {
    const uint64_t bit = undecided_top(s->known);
    s->known |= bit;
    s->prefix |= h->all_and & bit;
  }
  if (s->members <= CS_NB_BUCKET || s->known == UINT64_MAX) return 0;
  const int top = 63 - __builtin_clzll(~s->known);
  s->shift = top >= CS_NB_DIGIT_BITS - 1 ? top - (CS_NB_DIGIT_BITS - 1) : 0;
  return 1;
}

/* After CS_NB_COLLECT: adds the bucket's members among the cap nearest
 * (evaluated again: every backend computes cs_nb_pair's bits) and returns
 * 1; or returns 0, with the cap-th key in *threshold, when equal keys
 * (agents sharing an id) straddle the cap: then CS_NB_UP_TO decides, in
 * scan order. */
static __attribute__((noinline)) int
add_members(const cs_nb_job *job, const cs_nb_agent *a, const cs_nb_rows *rows,
            const cs_nb_select *s, const cs_nb_bucket *bucket, cs_nb_sum *sum,
            uint64_t *threshold) {
  const uint32_t m = bucket->count;
  uint8_t order[CS_NB_BUCKET];
  for (uint32_t j = 0; j < m; j++) { /* by key, stable: at most CS_NB_BUCKET */
    uint32_t at = j;
    for (; at > 0 && bucket->key[order[at - 1]] > bucket->key[j]; at--)
      order[at] = order[at - 1];
    order[at] = (uint8_t)j;
  }
  const uint32_t need = s->need <= m ? s->need : m; /* always 1 <= need <= m */
  if (!need) return 1;
  *threshold = bucket->key[order[need - 1]];
  if (need < m && bucket->key[order[need]] == *threshold) return 0;
  for (uint32_t j = 0; j < need; j++) {
    float p[3] = {0, 0, 0}, v[3] = {0, 0, 0}, c[3] = {0, 0, 0}, dist = 0.0f;
    uint32_t qi, group;
    load_slot(rows, bucket->slot[order[j]], job->dims, p, v, &qi, &group);
    if (cs_nb_pair(a, job->behaviour, job->dims, qi, p, v, group, &dist, c))
      cs_nb_add(sum, c, job->dims); /* always a neighbour: it was collected */
  }
  return 1;
}

static atomic_int counting;
static _Atomic uint64_t counted_selections, counted_candidates, counted_visits,
    counted_most;

void cs_count_selections(int on) {
  if (on) {
    atomic_store(&counted_selections, 0);
    atomic_store(&counted_candidates, 0);
    atomic_store(&counted_visits, 0);
    atomic_store(&counted_most, 0);
  }
  atomic_store(&counting, on);
}

cs_selection_work cs_selection_counts(void) {
  cs_selection_work w = {atomic_load(&counted_selections),
                         atomic_load(&counted_candidates), atomic_load(&counted_visits),
                         atomic_load(&counted_most)};
  return w;
}

/* A finished selection's work, while the tests count it. */
static void count_selection(const cs_nb_rows *rows, uint32_t passes) {
  if (!atomic_load_explicit(&counting, memory_order_relaxed)) return;
  uint64_t candidates = 0;
  for (int r = 0; r < rows->count; r++)
    candidates += rows->last[r] - rows->first[r];
  atomic_fetch_add(&counted_selections, 1);
  atomic_fetch_add(&counted_candidates, candidates);
  atomic_fetch_add(&counted_visits, candidates * passes);
  uint64_t most = atomic_load(&counted_most);
  while (passes > most && !atomic_compare_exchange_weak(&counted_most, &most, passes)) {
  }
}

__attribute__((noinline)) void cs_nb_select_run(const cs_nb_job *job,
                                                const cs_nb_agent *a,
                                                const cs_nb_rows *rows, cs_nb_sum *sum,
                                                cs_nb_pass_fn pass, void *context) {
  cs_nb_select s;
  select_start(&s, job->cap);
  cs_nb_select_room room;
  uint32_t passes = 0;
  do {
    memset(room.histogram.count, 0, sizeof room.histogram.count);
    room.histogram.all_and = UINT64_MAX;
    room.histogram.all_or = 0;
    pass(context, CS_NB_HISTOGRAM, &s, &room, NULL);
    passes++;
  } while (narrow(&s, &room.histogram));
  uint64_t threshold = s.prefix;
  int done = 0;
  if (s.members <= CS_NB_BUCKET) {
    memset(sum, 0, sizeof *sum);
    room.bucket.count = 0;
    pass(context, CS_NB_COLLECT, &s, &room, sum);
    passes++;
    done = add_members(job, a, rows, &s, &room.bucket, sum, &threshold);
  }
  if (!done) { /* agents sharing an id and a distance across the cap */
    cs_nb_select up = s;
    up.prefix = threshold;
    up.known = UINT64_MAX;
    memset(sum, 0, sizeof *sum);
    pass(context, CS_NB_UP_TO, &up, &room, sum);
    passes++;
  }
  count_selection(rows, passes);
}

/* The scalar passes, a candidate at a time. */
typedef struct scalar_selection {
  const cs_nb_job *job;
  const cs_nb_agent *a;
  const cs_nb_rows *rows;
} scalar_selection;

static inline __attribute__((always_inline)) void
scalar_pass(void *context, cs_nb_pass pass, const cs_nb_select *s,
            cs_nb_select_room *room, cs_nb_sum *sum) {
  const scalar_selection *c = (const scalar_selection *)context;
  if (pass == CS_NB_HISTOGRAM)
    scan(c->job, c->a, c->rows, HISTOGRAM, s, &room->histogram, NULL, NULL);
  else if (pass == CS_NB_COLLECT)
    scan(c->job, c->a, c->rows, COLLECT, s, NULL, &room->bucket, sum);
  else
    scan(c->job, c->a, c->rows, SUM_UP_TO, s, NULL, NULL, sum);
}

/* `sum` holds every neighbour on entry; each way keeps its buffer in a
 * frame of its own, so the two never add up on the stack. */
void cs_nb_sum_nearest(const cs_nb_job *job, const cs_nb_agent *a, const cs_nb_rows *rows,
                       cs_nb_sum *sum) {
  if (sum->n <= CS_NB_NEAREST)
    sum_nearest_kept(job, a, rows, sum);
  else
    cs_nb_select_run(job, a, rows, sum, scalar_pass, &(scalar_selection){job, a, rows});
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
  scan(job, &a, &rows, SUM_ALL, NULL, NULL, NULL, &sum);
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

void cs_nb_walk(const cs_nb_job *job, cs_nb_kernel kernel, size_t begin, size_t end,
                const cs_spread *spread) {
  const size_t width =
      cs_spread_width(spread, job->grid->count / CS_NB_AGENTS_PER_THREAD + 1);
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
  cs_nb_walk(&job, cs_nb_backend_for(crowdsteer_active_isa())->kernel, begin, end,
             &spread);
  return CROWDSTEER_OK;
}
