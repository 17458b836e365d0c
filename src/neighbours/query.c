/* The neighbour query's scalar definition, which every backend shares: an
 * agent's candidate runs (the cells around it in the grid, or every agent
 * without one), the exact sums, the nearest-k selection (the cap nearest
 * of more neighbours: kept and sorted up to CS_NB_NEAREST, a radix
 * selection past it, whose passes each backend runs its own way), the
 * scalar kernel (the brute force over every pair, and the scalar backend's
 * grid query) and the grid build's scalar bucket keys. It calls nothing
 * above it: the SIMD kernels (kernels/neighbours.c), the dispatcher and
 * the neighbour machinery (neighbours.c) call down into it. */
#include <stdatomic.h>
#include <string.h>

#include "neighbours/neighbours.h"

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
 * (rounding is monotone, and radius >= CS_NB_MIN_RADIUS makes each coordinate
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
  uint32_t lo[3], hi[3];
  cs_nb_cells_for(g, a, dims, lo, hi);
  cs_nb_rows_in_cells(g, lo, hi, dims, rows);
}

void cs_nb_cells_for(const crowdsteer_grid *g, const cs_nb_agent *a, int dims,
                     uint32_t lo[3], uint32_t hi[3]) {
  for (int k = 0; k < 3; k++)
    lo[k] = hi[k] = 0;
  for (int k = 0; k < dims; k++) {
    lo[k] = cs_cell(a->p[k] - a->radius, g->inv_cell);
    hi[k] = cs_cell(a->p[k] + a->radius, g->inv_cell);
  }
}

void cs_nb_rows_in_cells(const crowdsteer_grid *g, const uint32_t lo[3],
                         const uint32_t hi[3], int dims, cs_nb_rows *rows) {
  grid_source(g, rows);
  int wide = cs_nb_whole_grid(g);
  for (int k = 0; k < dims; k++)
    wide |= hi[k] - lo[k] > 3u;
  if (wide) { /* never for a table of 4^dims buckets or more */
    add_row(rows, 0, g->count);
    return;
  }
  /* The cells of a query row inside one block are consecutive buckets (a
   * table of CS_MIN_TABLE(dims) buckets or more keeps a block's offsets):
   * one run each, as add_row would merge them cell by cell. A block's row
   * hash is computed once per block met (its rows differ in offsets only). */
  const uint32_t x_low = CS_BLOCK_X(dims) - 1u;
  const uint32_t yz_high = ~((1u << CS_BLOCK_YZ_BITS(dims)) - 1u);
  uint32_t cell[3] = {0, 0, 0}, block[3] = {UINT32_MAX, 0, 0}, hash = 0;
  const uint32_t z_lo = dims == 3 ? lo[2] : 0, z_hi = dims == 3 ? hi[2] : 0;
  for (cell[2] = z_lo; cell[2] <= z_hi; cell[2]++)
    for (cell[1] = lo[1]; cell[1] <= hi[1]; cell[1]++)
      for (cell[0] = lo[0]; cell[0] <= hi[0];) {
        /* Compared field by field: memcmp of the array just stored read it
         * in one 8-byte load, a store-forwarding stall that was half of
         * this function's time at 1,000 boids. */
        const uint32_t here[3] = {cell[0] & ~x_low, cell[1] & yz_high, cell[2] & yz_high};
        if (here[0] != block[0] || here[1] != block[1] || here[2] != block[2]) {
          hash = cs_bucket_row(here, dims); /* a corner: offset 0 */
          block[0] = here[0];
          block[1] = here[1];
          block[2] = here[2];
        }
        const uint32_t last = (cell[0] | x_low) < hi[0] ? cell[0] | x_low : hi[0];
        const uint32_t b = (hash | cs_bucket_row_offset(cell, dims) | (cell[0] & x_low)) &
                           g->bucket_mask;
        add_row(rows, g->start[b], g->start[b + (last - cell[0]) + 1]);
        cell[0] = last + 1;
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

/* ---- the grid build's bucket keys and ends, one agent at a time ------------ */

void cs_nb_keys_scalar(const crowdsteer_grid *g, const float *const pos[3], size_t first,
                       size_t last, uint32_t *keys) {
  for (size_t i = first; i < last; i++) {
    uint32_t cell[3] = {0, 0, 0};
    for (int k = 0; k < g->dims; k++)
      cell[k] = cs_cell(pos[k][i], g->inv_cell);
    keys[i - first] = cs_bucket(cell, g->dims, g->bucket_mask);
  }
}

void cs_nb_ends_scalar(uint32_t *counts, size_t n, uint32_t start) {
  for (size_t k = 0; k < n; k++) {
    start += counts[k];
    counts[k] = start;
  }
}
