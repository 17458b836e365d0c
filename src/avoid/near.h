/* The nearest neighbours an agent avoids: the candidate test every backend
 * shares (squared distance under the radius's limit, not itself, the
 * group filter), the collection of the candidates the SIMD scans
 * (src/kernels/avoid_scan.c) accept, and their ranking (near.c) into the
 * `cap` nearest by (distance, id). */
#ifndef CROWDSTEER_AVOID_NEAR_H
#define CROWDSTEER_AVOID_NEAR_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "neighbours/neighbours.h"

/* One nearest neighbour kept: its ordering key (cs_nb_nearness), then its
 * place in the scan, which decides between agents sharing an id. */
typedef struct cs_avoid_near {
  uint64_t key;
  uint32_t order;
  uint32_t slot;
} cs_avoid_near;

/* A candidate under the scan's limit, collected before any is ranked:
 * its squared distance, place in the scan, grid slot and id; `key` is
 * filled only when candidates are ranked by their full key. */
typedef struct cs_avoid_cand {
  uint64_t key;
  float dd;
  uint32_t order;
  uint32_t slot;
  uint32_t id;
} cs_avoid_cand;

/* Room for candidates beyond the cap before they are cut back to about the
 * cap: a typical crowd's candidates fit, so most agents rank once. */
enum { CS_AVOID_SPARE = 256 };

/* The cells of the last narrowed scan (cs_avoid_narrow) and its runs'
 * count (-1: none yet): an agent after it in the same cells, as a walk in
 * grid order often takes, reuses its runs. */
typedef struct cs_avoid_narrowed {
  uint32_t lo[3], span[3];
  int count;
} cs_avoid_narrowed;

/* One agent's scan: its candidates and the test they must pass, and the
 * room (cap + CS_AVOID_SPARE entries) its candidates are collected in. */
typedef struct cs_avoid_scan {
  const cs_nb_rows *rows;
  int dims;
  float p[3];
  float within; /* cs_within_limit(radius) */
  uint32_t self;
  int use_mask;
  uint32_t mask;
  const uint32_t *ids;
  uint32_t cap;
  cs_avoid_cand *cands;
  float *row_dd; /* CS_AVOID_SPARE + 16 floats for a SIMD scan's first limit */
  size_t slots;  /* the rows' arrays' length */
  /* The grid the rows come from (NULL: the rows are scanned as given) and
   * room for CS_AVOID_RUNS narrowed runs (cs_avoid_narrow), and what they
   * hold (NULL: work them out each time). */
  const crowdsteer_grid *grid;
  uint32_t *runs;
  cs_avoid_narrowed *narrowed;
} cs_avoid_scan;

/* A narrowed scan's runs: at most one a cell (4^3), 3 numbers each. A
 * grid of at least CS_AVOID_NARROW_FROM agents that its queries scan whole
 * (cs_nb_rows_for's small grids) is scanned by cells instead. */
enum { CS_AVOID_RUNS = 64, CS_AVOID_NARROW_FROM = 64 };

/* A backend's scan: the cap nearest candidates of `scan` into `near`,
 * nearest first; returns how many. */
typedef uint32_t (*cs_avoid_scan_fn)(const cs_avoid_scan *scan, cs_avoid_near *near);

static inline int cs_avoid_nearer(const cs_avoid_near *a, const cs_avoid_near *b) {
  return a->key < b->key || (a->key == b->key && a->order < b->order);
}

/* Keeps c among the `cap` nearest in a sorted array (caps up to
 * CS_AVOID_SORTED_CAP) or a max-heap (sorted by the caller at the end). */
enum { CS_AVOID_SORTED_CAP = 32 };

static inline void cs_avoid_keep_sorted(cs_avoid_near *near, uint32_t *count,
                                        uint32_t cap, cs_avoid_near c) {
  uint32_t k = *count;
  if (k == cap) {
    if (!cs_avoid_nearer(&c, &near[k - 1])) return;
    k--;
  } else {
    (*count)++;
  }
  while (k > 0 && cs_avoid_nearer(&c, &near[k - 1])) {
    near[k] = near[k - 1];
    k--;
  }
  near[k] = c;
}

static inline void cs_avoid_heap_offer(cs_avoid_near *heap, uint32_t *count, uint32_t cap,
                                       cs_avoid_near c) {
  size_t k;
  if (*count < cap) {
    k = (*count)++;
    while (k > 0 && cs_avoid_nearer(&heap[(k - 1) / 2], &c)) {
      heap[k] = heap[(k - 1) / 2];
      k = (k - 1) / 2;
    }
    heap[k] = c;
    return;
  }
  if (!cs_avoid_nearer(&c, &heap[0])) return;
  k = 0;
  for (;;) {
    size_t child = 2 * k + 1;
    if (child >= *count) break;
    if (child + 1 < *count && cs_avoid_nearer(&heap[child], &heap[child + 1])) child++;
    if (!cs_avoid_nearer(&c, &heap[child])) break;
    heap[k] = heap[child];
    k = child;
  }
  heap[k] = c;
}

/* The squared distances still worth a look once `cap` candidates are at
 * distance at most `worst` (sqrtf of a squared distance): every dd with
 * sqrtf(dd) <= worst stays under the bound (with v the float after worst,
 * such a dd is below v^2, and v * v rounded (2^-24) then widened by 2^-20
 * is above it), and a candidate at or over it has a larger key than those
 * cap whatever its id, so dropping it before its square root changes
 * nothing. Never above `within`. */
static inline float cs_avoid_bound(float worst, float within) {
  const float v = cs_float_step(worst, 1);
  /* Below 2^-60, v * v underflows (to 0 for coincident agents, which
   * then dropped the rest of them whatever their ids: found by the Python
   * tests); any dd whose root is that small is below 2^-100. */
  const float limit = worst < 0x1p-60f ? 0x1p-100f : v * v * (1.0f + 0x1p-20f);
  return limit < within ? limit : within;
}

/* Cuts the n collected candidates back to about the cap (at most
 * cap + CS_AVOID_SPARE / 2) without dropping any of the cap nearest, and
 * returns the tighter limit for the rest of the scan. */
float cs_avoid_cut(const cs_avoid_scan *scan, uint32_t *n);

/* For rows that are the whole grid (one run from slot 0, as cs_nb_rows_for
 * gives a small grid): the runs of the cells that can hold a candidate
 * under `limit` (sqrtf(limit), widened, as a query's radius), so the same
 * candidates, each at its place in the whole grid's scan (its slot), in
 * fewer slots. Writes first, last, place per run into scan->runs and
 * returns how many; -1 where the grid is to be scanned whole (no grid, a
 * table too small to tell cells apart, more than 4 cells an axis, a limit
 * too small against the coordinates for the margin in near.c). */
int cs_avoid_narrow(const cs_avoid_scan *scan, float limit);

/* The cap nearest of the n collected candidates by (key, order), nearest
 * first, into `near`; returns how many. */
uint32_t cs_avoid_rank(const cs_avoid_scan *scan, uint32_t n, cs_avoid_near *near);

/* Collects a candidate whose squared distance dd passed the limit, when it
 * is not the agent itself and passes the group filter; a full room is cut
 * back (and *limit tightened). */
static inline void cs_avoid_collect(const cs_avoid_scan *scan, uint32_t *n, size_t slot,
                                    uint32_t order, float dd, float *limit) {
  const cs_nb_rows *rows = scan->rows;
  const uint32_t qi = rows->index ? rows->index[slot] : (uint32_t)slot;
  if (qi == scan->self) return;
  if (scan->use_mask && ((rows->group ? rows->group[slot] : 0u) & scan->mask) == 0)
    return;
  cs_avoid_cand *c = &scan->cands[(*n)++];
  c->dd = dd;
  c->order = order;
  c->slot = (uint32_t)slot;
  c->id = cs_agent_id(scan->ids, qi);
  if (*n == scan->cap + CS_AVOID_SPARE) *limit = cs_avoid_cut(scan, n);
}

/* The squared distance of candidate `slot`, as every backend computes it. */
static inline float cs_avoid_dd(const cs_avoid_scan *scan, size_t slot) {
  const cs_nb_rows *rows = scan->rows;
  const float d0 = scan->p[0] - rows->pos[0][slot], d1 = scan->p[1] - rows->pos[1][slot];
  float dd = d0 * d0 + d1 * d1;
  if (scan->dims == 3) {
    const float d2 = scan->p[2] - rows->pos[2][slot];
    dd += d2 * d2;
  }
  return dd;
}

/* The scalar scan of slots [first, last): every backend's definition (and
 * its tails). */
static inline void cs_avoid_scan_range(const cs_avoid_scan *scan, uint32_t *n,
                                       size_t first, size_t last, uint32_t order,
                                       float *limit) {
  for (size_t slot = first; slot < last; slot++, order++) {
    const float dd = cs_avoid_dd(scan, slot);
    if (dd < *limit) cs_avoid_collect(scan, n, slot, order, dd, limit);
  }
}

uint32_t cs_avoid_scan_scalar(const cs_avoid_scan *scan, cs_avoid_near *near);
extern const cs_avoid_scan_fn cs_avoid_scan_sse4, cs_avoid_scan_avx2,
    cs_avoid_scan_avx512, cs_avoid_scan_neon, cs_avoid_scan_simd128;

#endif /* CROWDSTEER_AVOID_NEAR_H */
