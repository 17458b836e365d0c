/* World bounds (crowdsteer_bounds.h): wrap-around of positions in a box and
 * containment in a sphere or a box. Each is a few compares and correctly
 * rounded operations per agent, so there is nothing for an ISA to round
 * differently: the wrap runs on the active backend's lanes (the same
 * compares and one shift: cs_wrap_positions' bits), containment's
 * steering repeats the reference seek's operations in its order. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bounds/bounds.h"
#include "internal.h"

static int finite(float x) { return x == x && x <= FLT_MAX && x >= -FLT_MAX; }

/* The box's corners on the axes in use: finite and min <= max; for a
 * wrap (`strict`) min < max and a side that does not overflow, since the
 * side is its shift. Containment reads only the corners and their
 * midpoint, min / 2 + max / 2, which cannot overflow. */
static int box_ok(const crowdsteer_box *box, int dims, int strict) {
  for (int k = 0; k < dims; k++) {
    const float lo = box->min[k], hi = box->max[k];
    if (!finite(lo) || !finite(hi)) return 0;
    if (strict ? !(lo < hi) || !finite(hi - lo) : !(lo <= hi)) return 0;
  }
  return 1;
}

static float *position_axis(const crowdsteer_agents *agents, int k) {
  return k == 0 ? agents->px : k == 1 ? agents->py : agents->pz;
}

static crowdsteer_status wrap_here(const crowdsteer_agents *agents,
                                   const crowdsteer_box *box, size_t begin, size_t end) {
  if (!agents || !box) return CROWDSTEER_ERROR_NULL_POINTER;
  const int dims = agents->dims;
  if (dims != 2 && dims != 3) return CROWDSTEER_ERROR_DIMS;
  if (begin > end || end > agents->count) return CROWDSTEER_ERROR_RANGE;
  if (begin < end) {
    for (int k = 0; k < dims; k++)
      if (!position_axis(agents, k)) return CROWDSTEER_ERROR_NULL_POINTER;
    for (int k = 0; k < dims; k++)
      if (!cs_aligned(position_axis(agents, k))) return CROWDSTEER_ERROR_ALIGNMENT;
  }
  if (!box_ok(box, dims, 1)) return CROWDSTEER_ERROR_PARAMETER;
  float *const pos[3] = {agents->px, agents->py, dims == 3 ? agents->pz : NULL};
  cs_wrap_on(cs_active_backend(), pos, box, dims, begin, end);
  return CROWDSTEER_OK;
}

int cs_wrap_box_ok(const crowdsteer_box *box, int dims) { return box_ok(box, dims, 1); }

void cs_wrap_positions(float *const pos[3], const crowdsteer_box *box, int dims,
                       size_t first, size_t last) {
  for (int k = 0; k < dims; k++) {
    float *const p = pos[k];
    const float lo = box->min[k], hi = box->max[k], side = hi - lo;
    for (size_t i = first; i < last; i++) {
      const float x = p[i];
      p[i] = x >= hi ? x - side : x < lo ? x + side : x;
    }
  }
}

crowdsteer_status crowdsteer_wrap(const crowdsteer_agents *agents,
                                  const crowdsteer_box *box, size_t begin, size_t end) {
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host, wrap_here(agents, box, begin, end));
}

/* The region's fields in use, and its centre. */
static int bounds_ok(const crowdsteer_bounds *b, int dims, float centre[3]) {
  if (!finite(b->prediction) || !(b->prediction >= 0.0f)) return 0;
  centre[0] = centre[1] = centre[2] = 0.0f;
  if (b->shape == CROWDSTEER_BOUNDS_SPHERE) {
    if (!finite(b->radius) || !(b->radius >= 0.0f)) return 0;
    for (int k = 0; k < dims; k++) {
      if (!finite(b->centre[k])) return 0;
      centre[k] = b->centre[k];
    }
    return 1;
  }
  if (b->shape != CROWDSTEER_BOUNDS_BOX || !box_ok(&b->box, dims, 0)) return 0;
  for (int k = 0; k < dims; k++)
    centre[k] = b->box.min[k] * 0.5f + b->box.max[k] * 0.5f;
  return 1;
}

crowdsteer_status cs_resolve_bounds(cs_inputs *in, const crowdsteer_bounds *bounds) {
  float centre[3];
  if (!bounds) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!bounds_ok(bounds, in->dims, centre)) return CROWDSTEER_ERROR_PARAMETER;
  in->bounds = bounds;
  in->target_kind = CROWDSTEER_TARGET_POINT;
  memcpy(in->target_point, centre, sizeof in->target_point);
  return CROWDSTEER_OK;
}

static crowdsteer_status contain_here(const crowdsteer_agents *agents,
                                      const crowdsteer_bounds *bounds,
                                      const crowdsteer_params *params,
                                      const crowdsteer_output *out, size_t begin,
                                      size_t end) {
  crowdsteer_status fault;
  if (!agents || !bounds) return CROWDSTEER_ERROR_NULL_POINTER;
  const int dims = agents->dims;
  if (dims != 2 && dims != 3) return CROWDSTEER_ERROR_DIMS;
  float centre[3];
  if (!bounds_ok(bounds, dims, centre)) return CROWDSTEER_ERROR_PARAMETER;
  /* Seek's validation, with the centre as its point target. */
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  target.kind = CROWDSTEER_TARGET_POINT;
  memcpy(target.point, centre, sizeof target.point);
  cs_inputs in;
  cs_policy policy;
  memset(&in, 0, sizeof in);
  if ((fault = cs_prepare_behaviour(&in, CROWDSTEER_SEEK, agents, &target, NULL, NULL,
                                    params, begin, end, NULL, 0)) != CROWDSTEER_OK ||
      (fault = cs_prepare_output(&policy, dims, out, begin, end)) != CROWDSTEER_OK)
    return fault;
  if (begin == end) return CROWDSTEER_OK;
  cs_spans spans;
  spans.n = 0;
  spans.written = 0;
  cs_spans_add_state(&spans, agents, dims, begin, end, 0);
  cs_behaviour_spans(&spans, CROWDSTEER_SEEK, agents, &target, NULL, NULL, NULL, params,
                     agents, agents, begin, end);
  cs_spans_add_vectors(&spans, &out->steering, dims, begin, end, 1);
  if (out->mode == CROWDSTEER_ACCUMULATE)
    cs_spans_add(&spans, out->weight_per_agent, begin, end, 0);
  if (cs_spans_clash(&spans, &spans)) return CROWDSTEER_ERROR_OVERLAP;
  for (size_t i = begin; i < end; i++) {
    float p[3] = {0.0f, 0.0f, 0.0f}, v[3] = {0.0f, 0.0f, 0.0f}, s[3] = {0, 0, 0};
    for (int k = 0; k < dims; k++) {
      p[k] = in.pos[k][i];
      v[k] = in.vel[k][i];
    }
    if (!cs_bounds_inside(bounds, centre, p, v, dims))
      cs_reference_seek(p, v, centre, cs_param_at(in.max_speed, i),
                        cs_param_at(in.time_to_target, i), dims, s);
    for (int k = 0; k < dims; k++) {
      float *const o = policy.out[k] + i;
      *o = policy.mode == CS_WRITE_OVERWRITE ? s[k]
                                             : *o + cs_param_at(policy.weight, i) * s[k];
    }
  }
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_contain(const crowdsteer_agents *agents,
                                     const crowdsteer_bounds *bounds,
                                     const crowdsteer_params *params,
                                     const crowdsteer_output *out, size_t begin,
                                     size_t end) {
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host, contain_here(agents, bounds, params, out, begin, end));
}
