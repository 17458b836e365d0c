/* Overlap counts and state hashes of scenario crowds (scenario_figures.h),
 * for bench/rvo2's driver and crowdsteer-scenarios alike. */
#include "scenario_figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCN_EMPTY INT64_MIN

/* 21 bits per coordinate: cells of 2 r_max reach far beyond any scenario. */
static int64_t scn_cell_key(const int64_t c[3]) {
  return ((c[0] & 0x1FFFFF) << 42) | ((c[1] & 0x1FFFFF) << 21) | (c[2] & 0x1FFFFF);
}

/* A full 64-bit mix (murmur3's finaliser): a plain multiply leaves the
 * high coordinates out of the low bits the mask keeps, and every cell of
 * a row then probed into one run of slots. */
static size_t scn_slot(const scn_overlaps *o, int64_t k) {
  uint64_t h = (uint64_t)k;
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
  h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  const size_t mask = o->slots - 1;
  size_t s = (size_t)h & mask;
  while (o->key[s] != SCN_EMPTY && o->key[s] != k)
    s = (s + 1) & mask;
  return s;
}

/* Grows the arrays to n agents and a table of at least 2n slots. */
static int scn_overlaps_reserve(scn_overlaps *o, size_t n) {
  size_t slots = 1;
  while (slots < 2 * n)
    slots <<= 1;
  if (slots > o->slots) {
    int64_t *key = realloc(o->key, slots * sizeof *key);
    if (key) o->key = key;
    size_t *head = realloc(o->head, slots * sizeof *head);
    if (head) o->head = head;
    if (!key || !head) return -1;
    o->slots = slots;
  }
  if (n > o->agents) {
    size_t *next = realloc(o->next, n * sizeof *next);
    if (next) o->next = next;
    int64_t *cell = realloc(o->cell, 3 * n * sizeof *cell);
    if (cell) o->cell = cell;
    if (!next || !cell) return -1;
    o->agents = n;
  }
  return 0;
}

/* The pairs (i, j > i) of the cell at slot s, counted into the figures. */
static void scn_pairs_with(const scn_overlaps *o, size_t s, size_t i, const float *pos,
                           const float *radius, int dims, uint64_t count[3],
                           double *min_ratio) {
  for (size_t j = o->head[s]; j != SIZE_MAX; j = o->next[j]) {
    if (j <= i) continue;
    double d2 = 0.0;
    for (int k = 0; k < dims; k++) {
      const double d =
          (double)pos[(size_t)dims * j + k] - (double)pos[(size_t)dims * i + k];
      d2 += d * d;
    }
    const double sum = (double)radius[i] + (double)radius[j];
    if (d2 >= sum * sum) continue;
    const double ratio = sqrt(d2) / sum;
    count[0]++;
    count[1] += ratio < 0.99;
    count[2] += ratio < 0.9;
    if (ratio < *min_ratio) *min_ratio = ratio;
  }
}

int scn_overlaps_measure(scn_overlaps *o, const float *pos, const float *radius, size_t n,
                         int dims, uint64_t count[3], double *min_ratio) {
  if (n == 0) return 0;
  if (scn_overlaps_reserve(o, n) != 0) return -1;
  float rmax = radius[0];
  for (size_t i = 1; i < n; i++)
    if (radius[i] > rmax) rmax = radius[i];
  const double cell = 2.0 * (double)rmax;
  for (size_t s = 0; s < o->slots; s++)
    o->key[s] = SCN_EMPTY, o->head[s] = SIZE_MAX;
  for (size_t i = n; i-- > 0;) { /* each cell's list in index order */
    int64_t *c = o->cell + 3 * i;
    c[0] = c[1] = c[2] = 0;
    for (int k = 0; k < dims; k++)
      c[k] = (int64_t)floor((double)pos[(size_t)dims * i + k] / cell);
    const size_t s = scn_slot(o, scn_cell_key(c));
    o->key[s] = scn_cell_key(c);
    o->next[i] = o->head[s];
    o->head[s] = i;
  }
  const int zr = dims == 3 ? 1 : 0;
  for (size_t i = 0; i < n; i++)
    for (int dz = -zr; dz <= zr; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          const int64_t *ci = o->cell + 3 * i;
          const int64_t c[3] = {ci[0] + dx, ci[1] + dy, ci[2] + dz};
          const size_t s = scn_slot(o, scn_cell_key(c));
          if (o->key[s] != SCN_EMPTY)
            scn_pairs_with(o, s, i, pos, radius, dims, count, min_ratio);
        }
  return 0;
}

void scn_overlaps_free(scn_overlaps *o) {
  free(o->key);
  free(o->head);
  free(o->next);
  free(o->cell);
  memset(o, 0, sizeof *o);
}

uint64_t scn_state_hash(const float *pos, size_t count) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < count; i++) {
    uint32_t bits;
    memcpy(&bits, &pos[i], sizeof bits);
    for (int b = 0; b < 4; b++)
      hash = (hash ^ ((bits >> (8 * b)) & 0xFFu)) * 0x100000001b3ull;
  }
  return hash;
}
