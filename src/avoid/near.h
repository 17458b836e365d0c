/* The nearest neighbours an agent avoids: the candidate test every backend
 * shares (squared distance under the radius's limit, not itself, the
 * group filter) and the keeping of the `cap` nearest by (distance, id),
 * which the SIMD scans (src/kernels/avoid_scan.c) call for the candidates
 * their lanes accept. */
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

/* One agent's scan: its candidates and the test they must pass. */
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
} cs_avoid_scan;

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

/* The squared distances still worth a look: below `within`, and once `cap`
 * neighbours are kept, below a bound every dd with sqrtf(dd) <= the
 * farthest kept distance w stays under: with v the float after w, such a
 * dd is below v^2, and v * v rounded (2^-24) then widened by 2^-20 is
 * above it. A candidate at or over the bound has a larger key whatever its
 * id, so dropping it before its square root changes nothing. */
static inline float cs_avoid_limit(const cs_avoid_scan *scan, const cs_avoid_near *near,
                                   uint32_t count) {
  if (count < scan->cap) return scan->within;
  const cs_avoid_near *far =
      scan->cap <= CS_AVOID_SORTED_CAP ? &near[count - 1] : &near[0];
  const uint32_t bits = (uint32_t)(far->key >> 32);
  float worst;
  memcpy(&worst, &bits, sizeof worst);
  const float v = cs_float_step(worst, 1);
  /* Below 2^-60, v * v underflows (to 0 for coincident agents, which
   * then dropped the rest of them whatever their ids: found by the Python
   * tests); any dd whose root is that small is below 2^-100. */
  const float limit = worst < 0x1p-60f ? 0x1p-100f : v * v * (1.0f + 0x1p-20f);
  return limit < scan->within ? limit : scan->within;
}

/* A candidate whose squared distance dd passed `within`: kept when it is
 * not the agent itself and passes the group filter. */
static inline void cs_avoid_offer(const cs_avoid_scan *scan, cs_avoid_near *near,
                                  uint32_t *count, size_t slot, uint32_t order,
                                  float dd) {
  const cs_nb_rows *rows = scan->rows;
  const uint32_t qi = rows->index ? rows->index[slot] : (uint32_t)slot;
  if (qi == scan->self) return;
  if (scan->use_mask && ((rows->group ? rows->group[slot] : 0u) & scan->mask) == 0)
    return;
  const cs_avoid_near c = {cs_nb_nearness(sqrtf(dd), cs_agent_id(scan->ids, qi)), order,
                           (uint32_t)slot};
  if (scan->cap <= CS_AVOID_SORTED_CAP)
    cs_avoid_keep_sorted(near, count, scan->cap, c);
  else
    cs_avoid_heap_offer(near, count, scan->cap, c);
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

/* The scalar scan: every backend's definition (and its tails). */
static inline void cs_avoid_scan_range(const cs_avoid_scan *scan, cs_avoid_near *near,
                                       uint32_t *count, size_t first, size_t last,
                                       uint32_t order, float *limit) {
  for (size_t slot = first; slot < last; slot++, order++) {
    const float dd = cs_avoid_dd(scan, slot);
    if (!(dd < *limit)) continue;
    cs_avoid_offer(scan, near, count, slot, order, dd);
    *limit = cs_avoid_limit(scan, near, *count);
  }
}

uint32_t cs_avoid_scan_scalar(const cs_avoid_scan *scan, cs_avoid_near *near);
extern const cs_avoid_scan_fn cs_avoid_scan_sse4, cs_avoid_scan_avx2,
    cs_avoid_scan_avx512, cs_avoid_scan_neon;

#endif /* CROWDSTEER_AVOID_NEAR_H */
