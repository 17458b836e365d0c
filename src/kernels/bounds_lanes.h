/* Containment's inside rule on CS_LANES lanes: cs_bounds_inside
 * (bounds/bounds.c) with the same operations in the same order, compares
 * as masks. Included by kernels/kernels.c. */
#ifndef CROWDSTEER_KERNELS_BOUNDS_LANES_H
#define CROWDSTEER_KERNELS_BOUNDS_LANES_H

#include "internal.h"
#include "kernels/vec.h"

/* The lanes whose q = p + v * prediction (p when prediction is 0: p + v * 0
 * is not p for an infinite or NaN v) lies inside the region. */
CS_INLINE vmask bounds_inside_lanes(const crowdsteer_bounds *b, const float centre[3],
                                    const vf p[3], const vf v[3], int dims) {
  vf q[3];
  const vf ahead = v_set1(b->prediction);
  for (int k = 0; k < dims; k++)
    q[k] = b->prediction == 0.0f ? p[k] : v_add(p[k], v_mul(v[k], ahead));
  if (b->shape == CROWDSTEER_BOUNDS_BOX) {
    vmask in =
        m_and(v_le(v_set1(b->box.min[0]), q[0]), v_le(q[0], v_set1(b->box.max[0])));
    for (int k = 1; k < dims; k++)
      in = m_and(in, m_and(v_le(v_set1(b->box.min[k]), q[k]),
                           v_le(q[k], v_set1(b->box.max[k]))));
    return in;
  }
  vf e = v_sub(q[0], v_set1(centre[0]));
  vf d2 = v_mul(e, e);
  for (int k = 1; k < dims; k++) {
    e = v_sub(q[k], v_set1(centre[k]));
    d2 = v_add(d2, v_mul(e, e));
  }
  return v_le(d2, v_set1(b->radius * b->radius));
}

/* cs_wrap_positions (bounds/bounds.c) on CS_LANES lanes, positions
 * [first, last) of one axis: both shifts, then selects (the cases exclude
 * each other, NaN takes neither), so the same bits. */
CS_INLINE vf wrap_one(vf x, vf lo, vf hi, vf side) {
  const vf below = v_select(v_lt(x, lo), v_add(x, side), x);
  return v_select(v_le(hi, x), v_sub(x, side), below);
}

CS_INLINE void wrap_lanes(float *p, float lo, float hi, size_t first, size_t last) {
  const vf l = v_set1(lo), h = v_set1(hi), side = v_set1(hi - lo);
  size_t i = first;
  for (; last - i >= W; i += W)
    v_store(p + i, wrap_one(v_load(p + i), l, h, side));
  if (i < last)
    v_store_n(p + i, wrap_one(v_load_n(p + i, last - i), l, h, side), last - i);
}

#endif /* CROWDSTEER_KERNELS_BOUNDS_LANES_H */
