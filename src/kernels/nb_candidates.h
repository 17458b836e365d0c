/* Part of the neighbour kernel (kernels/neighbours.c, compiled once per
 * ISA; the parts are included there, each after the ones it builds on):
 * one agent against its candidate runs, W candidates per vector. Each lane
 * performs exactly the scalar operations of cs_nb_pair (neighbours.h) and
 * adds its rounded contribution to 32-bit lane sums that cannot overflow
 * before they are added up; cs_cell and cs_bucket lane by lane. */
#ifndef CROWDSTEER_NB_CANDIDATES_H
#define CROWDSTEER_NB_CANDIDATES_H

#include "kernels/vec_nb.h"
#include "neighbours/neighbours.h"

enum {
  /* Vectors added into the 32-bit lane sums between flushes: a lane adds
   * at most 1.25 * 2^24 per vector (separation and cohesion contributions
   * are within 1.25 in length, alignment's are split in two parts below
   * 2^24), so 64 vectors stay below 2^31. */
  FLUSH_EVERY = 64
};

/* Where an agent's own candidate runs are read from (cs_nb_rows). */
typedef struct source {
  const float *pos[3], *vel[3];
  const uint32_t *group, *index;
} source;

typedef struct lane_sums {
  vi low[3];  /* separation, cohesion: the rounded value; alignment: low part */
  vi high[3]; /* alignment: multiples of 2^24 */
  int vectors;
} lane_sums;

CS_INLINE void lane_sums_clear(lane_sums *acc, int dims) {
  for (int k = 0; k < dims; k++)
    acc->low[k] = acc->high[k] = i_zero();
  acc->vectors = 0;
}

CS_INLINE void lane_sums_flush(lane_sums *acc, cs_nb_sum *sum, int dims, int split) {
  if (!acc->vectors) return; /* every lane 0: each add counts its vector */
  for (int k = 0; k < dims; k++) {
    sum->s[k] += i_sum64(acc->low[k]);
    if (split) sum->s[k] += i_sum64(acc->high[k]) * ((int64_t)1 << 24);
  }
  lane_sums_clear(acc, dims);
}

/* Coincident neighbours of a separating agent push along x, away from the
 * lower id: few enough to add one by one. */
CS_NOINLINE static void add_coincident(const cs_nb_agent *a, vi index, vmask lanes,
                                       cs_nb_sum *sum) {
  uint32_t qi[W];
  i_store(qi, index);
  for (unsigned bits = m_bits(lanes); bits; bits &= bits - 1) {
    const float c[3] = {cs_nb_apart_x(a, cs_agent_id(a->ids, qi[__builtin_ctz(bits)])),
                        0.0f, 0.0f};
    cs_nb_add(sum, c, 1); /* x only */
  }
}

/* cs_fixed(c) as high * 2^24 + low, both int32 and each below 2^24 in
 * magnitude: c clamped (NaN as 0), high = trunc(c), low the rest times
 * 2^24 (exact), rounded to nearest even as cs_fixed rounds. */
CS_INLINE void fixed_parts(vf c, vi *high, vi *low) {
  c = v_select(v_ne(c, c), v_zero(), c);
  c = v_select(v_lt(c, v_set1(0x1p24f)), c, v_set1(0x1p24f));
  c = v_select(v_gt(c, v_set1(-0x1p24f)), c, v_set1(-0x1p24f));
  *high = i_from_float_trunc(c);
  *low = i_round_even(
      v_sub(v_mul(c, v_set1(0x1p24f)), v_mul(i_to_float(*high), v_set1(0x1p24f))));
}

/* A contribution component as cs_fixed does it, for lanes that are in. */
CS_INLINE void add_fixed(lane_sums *acc, int k, vf c, vmask in, int split) {
  c = v_keep(in, c);
  if (!split) { /* |c| < 1.25: c * 2^24 fits an int32 */
    acc->low[k] = i_add(acc->low[k], i_round_even_small(v_mul(c, v_set1(0x1p24f))));
    return;
  }
  vi high, low;
  fixed_parts(c, &high, &low);
  acc->high[k] = i_add(acc->high[k], high);
  acc->low[k] = i_add(acc->low[k], low);
}

/* One agent in every lane, for a scan of its candidates. */
typedef struct agent_lanes {
  vf p[3], heading[3];
  vf radius, inv_radius, cos_fov, inner;
  vi self, mask;
} agent_lanes;

CS_INLINE void agent_lanes_of(const cs_nb_agent *a, agent_lanes *l, const int dims) {
  for (int k = 0; k < dims; k++) {
    l->p[k] = v_set1(a->p[k]);
    l->heading[k] = v_set1(a->heading[k]);
  }
  l->radius = v_set1(a->radius);
  l->inv_radius = v_set1(a->inv_radius);
  l->cos_fov = v_set1(a->cos_fov);
  l->inner = v_set1(a->inner);
  l->self = i_set1(a->index);
  l->mask = i_set1(a->mask);
}

/* Candidates [j, j + n) of `src` (n <= W) against agent a: d = p_i - p_q,
 * the distances and indices, and the lanes that are neighbours as
 * cs_nb_pair decides (radius, not itself, group filter, field of view).
 * Whole vectors are loaded: the grid's arrays have W readable elements
 * past their end, and the lanes past n are masked off. */
CS_INLINE vmask neighbour_lanes(const cs_nb_agent *a, const agent_lanes *l,
                                const source *src, size_t j, size_t n, vf d[3], vf *dist,
                                vi *index, const int dims) {
  for (int k = 0; k < dims; k++)
    d[k] = v_sub(l->p[k], v_load(src->pos[k] + j));
  vf dd = v_mul(d[0], d[0]);
  for (int k = 1; k < dims; k++)
    dd = v_add(dd, v_mul(d[k], d[k]));
  *dist = v_sqrt(dd);
  vmask in = v_lt(*dist, l->radius);
  if (n < W) in = m_and(in, v_lt(i_to_float(i_iota()), v_set1((float)n)));
  *index = i_load(src->index + j);
  in = m_andnot(in, i_eq(*index, l->self));
  if (!m_any(in)) return in;
  if (a->use_mask) in = m_and(in, i_any_common(i_load(src->group + j), l->mask));
  if (a->fov) {
    const vmask apart = v_gt(*dist, v_zero());
    vf view = v_mul(l->heading[0], v_div(v_sub(v_zero(), d[0]), *dist));
    for (int k = 1; k < dims; k++)
      view = v_add(view, v_mul(l->heading[k], v_div(v_sub(v_zero(), d[k]), *dist)));
    const vmask close = m_or(m_not(apart), v_lt(*dist, l->inner));
    in = m_and(in, m_or(close, v_le(l->cos_fov, view)));
  }
  return in;
}

/* Separation's weight 1 / dist - 1 / radius (unused by the others). */
CS_INLINE vf separation_weight(const agent_lanes *l, vf dist,
                               const cs_nb_behaviour behaviour) {
  return behaviour == CS_NB_SEPARATION ? v_sub(v_div(v_set1(1.0f), dist), l->inv_radius)
                                       : v_zero();
}

/* Component k of the contributions of candidates [j, j + W) of `src`, as
 * cs_nb_pair computes them for lanes apart from the agent: d = p_i - p_q,
 * w = separation_weight. */
CS_INLINE vf contribution(const agent_lanes *l, const source *src, size_t j,
                          const vf d[3], vf w, int k, const cs_nb_behaviour behaviour) {
  if (behaviour == CS_NB_SEPARATION) return v_mul(d[k], w);
  if (behaviour == CS_NB_COHESION) return v_div(v_sub(v_zero(), d[k]), l->radius);
  return v_load(src->vel[k] + j);
}

/* The contributions of candidates [j, j + W) of `src`, as cs_nb_pair
 * computes them for lanes apart from the agent: the default form's, or
 * Reynolds' (cs_nb_reynolds: d / dd, dd recomputed in cs_nb_pair's order;
 * heading(v_q)). */
CS_INLINE void contributions(const cs_nb_agent *a, const agent_lanes *l,
                             const source *src, size_t j, const vf d[3], vf dist, vf c[3],
                             const int dims, const cs_nb_behaviour behaviour) {
  const int reynolds = a->form == CROWDSTEER_FORM_REYNOLDS;
  if (reynolds && behaviour == CS_NB_SEPARATION) {
    vf dd = v_mul(d[0], d[0]);
    for (int k = 1; k < dims; k++)
      dd = v_add(dd, v_mul(d[k], d[k]));
    for (int k = 0; k < dims; k++)
      c[k] = v_div(d[k], dd);
    return;
  }
  if (reynolds && behaviour == CS_NB_ALIGNMENT) {
    vf v[3];
    for (int k = 0; k < dims; k++)
      v[k] = v_load(src->vel[k] + j);
    vf vv = v_mul(v[0], v[0]);
    for (int k = 1; k < dims; k++)
      vv = v_add(vv, v_mul(v[k], v[k]));
    const vf speed = v_sqrt(vv);
    const vmask moving = v_gt(speed, v_zero());
    for (int k = 0; k < dims; k++)
      c[k] = v_select(moving, v_div(v[k], speed), v_zero());
    return;
  }
  const vf w = separation_weight(l, dist, behaviour);
  for (int k = 0; k < dims; k++)
    c[k] = contribution(l, src, j, d, w, k, behaviour);
}

/* Whether the lane sums split each contribution in two parts (its values
 * may reach 2^24: alignment's velocities, Reynolds' separation). */
CS_INLINE int split_sums(const cs_nb_agent *a, const cs_nb_behaviour behaviour) {
  return behaviour == CS_NB_ALIGNMENT || a->form != CROWDSTEER_FORM_DEFAULT;
}

/* Agent a against candidates [first, last) of `src`, into `sum`. */
CS_INLINE void span_sum(const cs_nb_agent *a, const source *src, size_t first,
                        size_t last, cs_nb_sum *sum, const int dims,
                        const cs_nb_behaviour behaviour) {
  const int split = split_sums(a, behaviour);
  agent_lanes l;
  agent_lanes_of(a, &l, dims);
  lane_sums acc;
  lane_sums_clear(&acc, dims);
  for (size_t j = first; j < last; j += W) {
    vf d[3], dist;
    vi index;
    vmask in = neighbour_lanes(a, &l, src, j, last - j < W ? last - j : W, d, &dist,
                               &index, dims);
    if (!m_any(in)) continue;
    const vmask apart = v_gt(dist, v_zero());
    if (behaviour == CS_NB_SEPARATION) {
      const vmask coincident = m_andnot(in, apart);
      if (m_any(coincident)) {
        add_coincident(a, index, coincident, sum);
        in = m_and(in, apart);
      }
    }
    sum->n += (uint32_t)m_count(in);
    vf c[3];
    contributions(a, &l, src, j, d, dist, c, dims, behaviour);
    for (int k = 0; k < dims; k++)
      add_fixed(&acc, k, c[k], in, split);
    if (++acc.vectors == FLUSH_EVERY) lane_sums_flush(&acc, sum, dims, split);
  }
  lane_sums_flush(&acc, sum, dims, split);
}

/* Whether agent a's cell range lies in the block around `cell`, so the
 * block holds every agent within its radius. */
CS_INLINE int block_covers(const crowdsteer_grid *g, const cs_nb_agent *a,
                           const uint32_t cell[3], int dims) {
  int inside = 1;
  for (int k = 0; k < dims; k++) {
    const int64_t lo = cs_cell(a->p[k] - a->radius, g->inv_cell);
    const int64_t hi = cs_cell(a->p[k] + a->radius, g->inv_cell);
    inside &= (lo >= (int64_t)cell[k] - 1) & (hi <= (int64_t)cell[k] + 1);
  }
  return inside;
}

/* cs_cell, lane by lane: the same clamps, truncation and floor correction. */
CS_INLINE vi cells_of(vf x, vf inv_cell) {
  const vf limit = v_set1(CS_CELL_LIMIT), low = v_set1(-CS_CELL_LIMIT);
  vf t = v_mul(x, inv_cell);
  t = v_select(v_lt(t, limit), t, limit);
  t = v_select(v_gt(t, low), t, low);
  const vi c = i_from_float_trunc(t); /* |t| <= 2^21: exact */
  const vi floor = i_sub(c, i_masked(v_gt(i_to_float(c), t), i_set1(1u)));
  return i_add(floor, i_set1(CS_CELL_BIAS));
}

/* cs_mix32, lane by lane. */
CS_INLINE vi mixed(vi x) {
  x = i_xor(x, i_shr(x, 16));
  x = i_mul(x, i_set1(0x7feb352du));
  x = i_xor(x, i_shr(x, 15));
  x = i_mul(x, i_set1(0x846ca68bu));
  return i_xor(x, i_shr(x, 16));
}

/* cs_bucket, lane by lane. */
CS_INLINE vi bucket_of_cells(const vi cell[3], vi mask, const int dims) {
  static const uint32_t salt[3] = {0x9E3779B1u, 0x85EBCA77u, 0xC2B2AE3Du};
  const int x_bits = CS_BLOCK_X_BITS(dims);
  vi h = i_mul(dims == 3 ? i_shr(cell[0], 5) : i_shr(cell[0], 6), i_set1(salt[0]));
  vi offset = i_and(cell[0], i_set1(CS_BLOCK_X(dims) - 1u));
  for (int k = 1; k < dims; k++) {
    h = i_xor(h, dims == 3 ? i_mul(i_shr(cell[k], 2), i_set1(salt[k]))
                           : i_mul(i_shr(cell[k], 3), i_set1(salt[k])));
    const vi low = i_and(cell[k], i_set1((1u << CS_BLOCK_YZ_BITS(dims)) - 1u));
    const int shift = x_bits + (k - 1) * CS_BLOCK_YZ_BITS(dims);
    offset = i_or(offset, shift == 5   ? i_shl(low, 5)
                          : shift == 6 ? i_shl(low, 6)
                          : shift == 7 ? i_shl(low, 7)
                                       : i_shl(low, 8));
  }
  const vi spread = i_shl(mixed(h), 9);
  return i_and(i_or(spread, offset), mask);
}

#endif /* CROWDSTEER_NB_CANDIDATES_H */
