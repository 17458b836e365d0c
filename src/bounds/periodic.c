/* Neighbours across a periodic box's seam (crowdsteer_periodic_ghosts):
 * ghost copies of the agents near a face, appended to the batch. The
 * neighbour machinery (grid, kernels, queries, step) runs unchanged on the
 * longer batch, so every rule, ISA and split keeps its bits; a ghost is
 * only ever a candidate because the caller's range stops at `count`. */
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* The margin over `reach` within which ghosts are made (see the header). */
#define CS_GHOST_MARGIN 1.0625f

static float *axis_of(float *x, float *y, float *z, int k) {
  return k == 0 ? x : k == 1 ? y : z;
}

/* Agent i's shift per axis: +1 (ghost at p + L), -1 (p - L) or 0. */
static int shifts_of(const crowdsteer_agents *a, size_t i, const float lo[3],
                     const float hi[3], int dims, int shift[3]) {
  int n = 1;
  for (int k = 0; k < dims; k++) {
    const float p = axis_of(a->px, a->py, a->pz, k)[i];
    shift[k] = p < lo[k] ? 1 : p >= hi[k] ? -1 : 0;
    n *= shift[k] ? 2 : 1;
  }
  return n - 1; /* every combination but no shift at all */
}

typedef struct ghost_plan {
  float lo[3], hi[3]; /* ghost thresholds: min + reach', max - reach' */
  float side[3];
  size_t total;
} ghost_plan;

static crowdsteer_status plan(const crowdsteer_agents *a, const crowdsteer_box *box,
                              float reach, ghost_plan *g) {
  if (!a || !box) return CROWDSTEER_ERROR_NULL_POINTER;
  const int dims = a->dims;
  if (dims != 2 && dims != 3) return CROWDSTEER_ERROR_DIMS;
  for (int k = 0; k < dims; k++) {
    const float *p = axis_of(a->px, a->py, a->pz, k),
                *v = axis_of(a->vx, a->vy, a->vz, k);
    if (a->count && (!p || !v)) return CROWDSTEER_ERROR_NULL_POINTER;
    if (a->count && (!cs_aligned(p) || !cs_aligned(v))) return CROWDSTEER_ERROR_ALIGNMENT;
  }
  if (a->count && a->id && !cs_aligned(a->id)) return CROWDSTEER_ERROR_ALIGNMENT;
  const float wide = reach * CS_GHOST_MARGIN;
  if (!(reach > 0.0f) || !(wide <= FLT_MAX)) return CROWDSTEER_ERROR_PARAMETER;
  for (int k = 0; k < dims; k++) {
    const float lo = box->min[k], hi = box->max[k], side = hi - lo;
    if (!(lo >= -FLT_MAX && hi <= FLT_MAX && lo < hi && side <= FLT_MAX))
      return CROWDSTEER_ERROR_PARAMETER;
    if (!(side > 2.0f * wide)) return CROWDSTEER_ERROR_PARAMETER;
    g->lo[k] = lo + wide;
    g->hi[k] = hi - wide;
    g->side[k] = side;
  }
  size_t total = a->count;
  for (size_t i = 0; i < a->count; i++) {
    int shift[3];
    for (int k = 0; k < dims; k++) {
      const float p = axis_of(a->px, a->py, a->pz, k)[i];
      if (!(p >= box->min[k] && p < box->max[k])) return CROWDSTEER_ERROR_PARAMETER;
    }
    total += (size_t)shifts_of(a, i, g->lo, g->hi, dims, shift);
  }
  if (total > UINT32_MAX) return CROWDSTEER_ERROR_RANGE;
  g->total = total;
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_periodic_count(const crowdsteer_agents *agents,
                                            const crowdsteer_box *box, float reach,
                                            size_t *total) {
  const cs_fpenv host = cs_fpenv_enter();
  ghost_plan g;
  crowdsteer_status fault =
      total ? plan(agents, box, reach, &g) : CROWDSTEER_ERROR_NULL_POINTER;
  if (fault == CROWDSTEER_OK) *total = g.total;
  return cs_fpenv_return(host, fault);
}

/* The arrays a ghost call writes or reads, for OVERLAP: positions and
 * velocities over the capacity (written past count), ids, origin, group. */
static int apart(const crowdsteer_agents *a, const uint32_t *group, size_t capacity,
                 const uint32_t *id, const uint32_t *origin) {
  cs_spans spans;
  spans.n = 0;
  spans.written = 0;
  const crowdsteer_vectors p = {a->px, a->py, a->pz}, v = {a->vx, a->vy, a->vz};
  cs_spans_add_vectors(&spans, &p, a->dims, 0, capacity, 1);
  cs_spans_add_vectors(&spans, &v, a->dims, 0, capacity, 1);
  cs_spans_add(&spans, group, 0, capacity, 1);
  cs_spans_add(&spans, id, 0, capacity, 1);
  cs_spans_add(&spans, origin, 0, capacity, 1);
  cs_spans_add(&spans, a->id, 0, a->count, 0);
  return !cs_spans_clash(&spans, &spans);
}

static crowdsteer_status ghosts_here(const crowdsteer_agents *a, uint32_t *group,
                                     const crowdsteer_box *box, float reach,
                                     size_t capacity, uint32_t *id, uint32_t *origin,
                                     size_t *total) {
  crowdsteer_status fault;
  ghost_plan g;
  if (!id || !total) return CROWDSTEER_ERROR_NULL_POINTER;
  if ((fault = plan(a, box, reach, &g)) != CROWDSTEER_OK) return fault;
  if (!cs_aligned(id) || (origin && !cs_aligned(origin)) || (group && !cs_aligned(group)))
    return CROWDSTEER_ERROR_ALIGNMENT;
  if (capacity < g.total) return CROWDSTEER_ERROR_RANGE;
  if (!apart(a, group, capacity, id, origin)) return CROWDSTEER_ERROR_OVERLAP;
  const int dims = a->dims;
  size_t slot = a->count;
  for (size_t i = 0; i < a->count; i++) {
    const uint32_t own = a->id ? a->id[i] : (uint32_t)i;
    id[i] = own;
    if (origin) origin[i] = (uint32_t)i;
    int shift[3] = {0, 0, 0};
    const int ghosts = shifts_of(a, i, g.lo, g.hi, dims, shift);
    /* Combination c (1 .. 2^dims - 1 over the shifted axes, in order):
     * axis k moves when its bit among the shifted axes is set. */
    for (int c = 1; c <= ghosts; c++) {
      int bit = 0;
      for (int k = 0; k < dims; k++) {
        float *const p = axis_of(a->px, a->py, a->pz, k);
        float *const v = axis_of(a->vx, a->vy, a->vz, k);
        int moves = 0;
        if (shift[k]) moves = (c >> bit++) & 1;
        p[slot] = moves ? (shift[k] > 0 ? p[i] + g.side[k] : p[i] - g.side[k]) : p[i];
        v[slot] = v[i];
      }
      if (group) group[slot] = group[i];
      id[slot] = own;
      if (origin) origin[slot] = (uint32_t)i;
      slot++;
    }
  }
  *total = slot;
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_periodic_ghosts(const crowdsteer_agents *agents,
                                             uint32_t *group, const crowdsteer_box *box,
                                             float reach, size_t capacity, uint32_t *id,
                                             uint32_t *origin, size_t *total) {
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(
      host, ghosts_here(agents, group, box, reach, capacity, id, origin, total));
}
