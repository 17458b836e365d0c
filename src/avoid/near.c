/* Ranking an agent's collected avoidance candidates (near.h): cutting a
 * full room back to about the cap by squared distance, and the final cap
 * nearest by (distance, id, scan order): the same neighbours, in the same
 * order, as keeping the cap nearest while scanning. */
#include "avoid/near.h"

#include <stdlib.h>

/* Candidates in the order that decides: by squared distance (its root's
 * order, with ties among roots left to the keys), or by full key; then by
 * scan order, so no two compare equal. */
static int before(const cs_avoid_cand *a, const cs_avoid_cand *b, int by_key) {
  if (by_key) return a->key < b->key || (a->key == b->key && a->order < b->order);
  return a->dd < b->dd || (a->dd == b->dd && a->order < b->order);
}

static void swap(cs_avoid_cand *a, cs_avoid_cand *b) {
  const cs_avoid_cand t = *a;
  *a = *b;
  *b = t;
}

static void sift_down(cs_avoid_cand *c, size_t at, size_t n, int by_key) {
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= n) return;
    if (child + 1 < n && before(&c[child], &c[child + 1], by_key)) child++;
    if (!before(&c[at], &c[child], by_key)) return;
    swap(&c[at], &c[child]);
    at = child;
  }
}

/* The guarantee behind the selection's worst case. */
static void heap_sort(cs_avoid_cand *c, size_t n, int by_key) {
  for (size_t k = n / 2; k-- > 0;)
    sift_down(c, k, n, by_key);
  for (size_t end = n; end-- > 1;) {
    swap(&c[0], &c[end]);
    sift_down(c, 0, end, by_key);
  }
}

/* Puts the candidate of rank k (from 0) at c[k], those before it at
 * [0, k): quickselect, turning to a heap sort of what is left when the
 * pivots keep splitting badly (an adversary's crowd), so O(n log n) at
 * worst. */
static void select_rank(cs_avoid_cand *c, size_t n, size_t k, int by_key) {
  size_t lo = 0, hi = n - 1;
  for (int rounds = 0; hi > lo; rounds++) {
    if (rounds == 64) {
      heap_sort(c + lo, hi - lo + 1, by_key);
      return;
    }
    const size_t mid = lo + (hi - lo) / 2;
    if (before(&c[mid], &c[lo], by_key)) swap(&c[mid], &c[lo]);
    if (before(&c[hi], &c[lo], by_key)) swap(&c[hi], &c[lo]);
    if (before(&c[hi], &c[mid], by_key)) swap(&c[hi], &c[mid]);
    const cs_avoid_cand pivot = c[mid];
    size_t i = lo, j = hi;
    for (;;) { /* Hoare: [lo, j] before or at the pivot, (j, hi] after */
      while (before(&c[i], &pivot, by_key))
        i++;
      while (before(&pivot, &c[j], by_key))
        j--;
      if (i >= j) break;
      swap(&c[i++], &c[j--]);
    }
    if (k <= j)
      hi = j;
    else
      lo = j + 1;
  }
}

/* The distance of a key (its high half: the float's bits). */
static float key_distance(uint64_t key) {
  const uint32_t bits = (uint32_t)(key >> 32);
  float d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* Keeps the cap nearest by squared distance and every candidate that may
 * tie with the farthest of them; returns the limit that keeps them. */
static float cut_by_distance(const cs_avoid_scan *scan, uint32_t *n) {
  cs_avoid_cand *c = scan->cands;
  const uint32_t cap = scan->cap;
  select_rank(c, *n, cap - 1u, 0);
  const float limit = cs_avoid_bound(sqrtf(c[cap - 1u].dd), scan->within);
  uint32_t kept = cap;
  for (uint32_t k = cap; k < *n; k++)
    if (c[k].dd < limit) c[kept++] = c[k];
  *n = kept;
  return limit;
}

static void fill_keys(cs_avoid_cand *c, uint32_t n) {
  for (uint32_t k = 0; k < n; k++)
    c[k].key = cs_nb_nearness(sqrtf(c[k].dd), c[k].id);
}

float cs_avoid_cut(const cs_avoid_scan *scan, uint32_t *n) {
  float limit = cut_by_distance(scan, n);
  if (*n <= scan->cap + CS_AVOID_SPARE / 2u) return limit;
  /* Many at one distance (agents stacked on a point): by full key. */
  const uint32_t cap = scan->cap;
  fill_keys(scan->cands, *n);
  select_rank(scan->cands, *n, cap - 1u, 1);
  *n = cap;
  return cs_avoid_bound(key_distance(scan->cands[cap - 1u].key), scan->within);
}

static int compare_cands(const void *a, const void *b) {
  return before(a, b, 1) ? -1 : (before(b, a, 1) ? 1 : 0);
}

/* Up to this many candidates are ranked by sorting them all. */
enum { SORT_ALL = 48 };

uint32_t cs_avoid_rank(const cs_avoid_scan *scan, uint32_t n, cs_avoid_near *near) {
  cs_avoid_cand *c = scan->cands;
  const uint32_t cap = scan->cap;
  if (n > cap && n > SORT_ALL) cut_by_distance(scan, &n);
  fill_keys(c, n);
  if (n > cap && n > SORT_ALL) {
    select_rank(c, n, cap - 1u, 1);
    n = cap;
  }
  if (n <= SORT_ALL) {
    for (uint32_t k = 1; k < n; k++) {
      const cs_avoid_cand x = c[k];
      uint32_t j = k;
      for (; j > 0 && before(&x, &c[j - 1], 1); j--)
        c[j] = c[j - 1];
      c[j] = x;
    }
  } else {
    qsort(c, n, sizeof *c, compare_cands);
  }
  if (n > cap) n = cap;
  for (uint32_t k = 0; k < n; k++) {
    near[k].key = c[k].key;
    near[k].order = c[k].order;
    near[k].slot = c[k].slot;
  }
  return n;
}

uint32_t cs_avoid_scan_scalar(const cs_avoid_scan *scan, cs_avoid_near *near) {
  uint32_t n = 0, order = 0;
  float limit = scan->within;
  for (int r = 0; r < scan->rows->count; r++) {
    const size_t first = scan->rows->first[r], last = scan->rows->last[r];
    cs_avoid_scan_range(scan, &n, first, last, order, &limit);
    order += (uint32_t)(last - first);
  }
  return cs_avoid_rank(scan, n, near);
}

/* Every q with dd < limit has |fl(p - q)| < sqrt(limit) (1 + 2^-23) on each
 * axis (each square is at most dd), so |p - q| < sqrt(limit) (1 + 2^-21);
 * reach = sqrtf(limit) (1 + 2^-10) exceeds that by reach 2^-12, more than
 * the half ulp of p -+ reach when |p| <= 4000 reach, so q lies between
 * fl(p - reach) and fl(p + reach), and its cell (cs_cell is monotone)
 * between theirs: at most 4 cells an axis, in distinct buckets. */
int cs_avoid_narrow(const cs_avoid_scan *scan, float limit) {
  const crowdsteer_grid *g = scan->grid;
  if (!g || g->scan_all || !(limit >= 0x1p-100f)) return -1;
  const int dims = scan->dims;
  const float reach = sqrtf(limit) * (1.0f + 0x1p-10f);
  uint32_t lo[3] = {0, 0, 0}, span[3] = {1, 1, 1};
  for (int k = 0; k < dims; k++) {
    if (!(fabsf(scan->p[k]) <= reach * 4000.0f)) return -1;
    lo[k] = cs_cell(scan->p[k] - reach, g->inv_cell);
    span[k] = cs_cell(scan->p[k] + reach, g->inv_cell) - lo[k] + 1u;
    if (span[k] > 4u) return -1; /* buckets no longer distinct */
  }
  cs_avoid_narrowed *memo = scan->narrowed;
  if (memo && memo->count >= 0 && memcmp(memo->lo, lo, sizeof lo) == 0 &&
      memcmp(memo->span, span, sizeof span) == 0)
    return memo->count;
  /* The cells x fastest, then y, then z; a bucket following the last run
   * in the slots extends it. */
  uint32_t *runs = scan->runs;
  int n = 0;
  const uint32_t x_low = CS_BLOCK_X(dims) - 1u;
  uint32_t cell[3];
  for (uint32_t z = 0; z < span[2]; z++)
    for (uint32_t y = 0; y < span[1]; y++) {
      cell[2] = lo[2] + z, cell[1] = lo[1] + y, cell[0] = lo[0];
      const uint32_t row = cs_bucket_row(cell, dims);
      for (uint32_t x = 0; x < span[0]; x++) {
        /* x crosses at most one block border (4 cells): a new row hash */
        cell[0] = lo[0] + x;
        const uint32_t b =
            ((cell[0] & x_low) < (lo[0] & x_low) ? cs_bucket(cell, dims, ~0u) : row) |
            (cell[0] & x_low);
        const uint32_t first = g->start[b & g->bucket_mask],
                       last = g->start[(b & g->bucket_mask) + 1];
        if (first == last) continue;
        if (n > 0 && runs[3 * n - 2] == first) {
          runs[3 * n - 2] = last;
          continue;
        }
        runs[3 * n] = first, runs[3 * n + 1] = last, runs[3 * n + 2] = first;
        n++;
      }
    }
  if (memo) {
    memcpy(memo->lo, lo, sizeof lo);
    memcpy(memo->span, span, sizeof span);
    memo->count = n;
  }
  return n;
}
