/* The neighbour kernel, compiled once per ISA like kernels.c. The grid's
 * slots are walked in order (bucket by bucket, so block by block, in
 * cache). Separation and cohesion with one radius and no filter run agent
 * by agent on 8- and 16-lane backends: the agent's candidates, the runs of
 * its rows of cells, are loaded W at a time, one candidate per lane, and
 * the lane sums of W agents are added up together (with AVX-512 by a
 * shuffle tree); so does a step's alignment, from its velocities already
 * in the exact sums' two parts, and a step's cohesion with an alignment
 * over the same neighbours walks once for both (FLOCK). Everything else
 * (alignment called on its own, per-agent radii, group filters, fields of
 * view, 4-lane backends) runs in tiles: up to W agents
 * of one row of cells, one agent per lane, against every candidate of the
 * rows of cells around them, read in place. Results go to the agents'
 * indices, prefetched ahead of the walk. An agent whose query leaves the
 * cells around its own, or that has more neighbours than the nearest-k cap
 * (or, agent by agent, a coincident neighbour), runs on its own over its
 * candidate runs, W candidates per vector. Each lane performs exactly the
 * scalar operations of cs_nb_pair (neighbours.h) and adds its rounded
 * contribution to 32-bit lane sums that cannot overflow before they are
 * added up, so the totals, and the steering, are the scalar bits. The grid
 * build's bucket keys are here too, lane by lane; the nearest-k selection,
 * the brute force (no grid) and the per-agent formulas are the shared
 * scalar code. */
#include <string.h>

#include "kernels/vec_nb.h"
#include "neighbours/neighbours.h"

#ifndef CS_NB_KERNEL
#error "define CS_NB_KERNEL (the kernel's name) when compiling a kernel object"
#endif

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

/* The lanes whose bit is set in `bits`. */
CS_INLINE vmask m_from_bits(uint32_t bits) {
  static const uint32_t lane_bit[16] = {
      1u << 0, 1u << 1, 1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
      1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15};
  return i_any_common(i_set1(bits), i_load(lane_bit));
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
  c = v_select(in, c, v_zero());
  if (!split) { /* |c| < 1.25: c * 2^24 fits an int32 */
    acc->low[k] = i_add(acc->low[k], i_round_even(v_mul(c, v_set1(0x1p24f))));
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
  vf radius, inv_radius, cos_fov;
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
    in = m_and(in, m_or(m_not(apart), v_le(l->cos_fov, view)));
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

/* Agent a against candidates [first, last) of `src`, into `sum`. */
CS_INLINE void span_sum(const cs_nb_agent *a, const source *src, size_t first,
                        size_t last, cs_nb_sum *sum, const int dims,
                        const cs_nb_behaviour behaviour) {
  const int split = behaviour == CS_NB_ALIGNMENT;
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
    const vf w = separation_weight(&l, dist, behaviour);
    for (int k = 0; k < dims; k++)
      add_fixed(&acc, k, contribution(&l, src, j, d, w, k, behaviour), in, split);
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

/* ---- the nearest-k selection past CS_NB_NEAREST ------------------------- */

/* The passes of query.c's radix selection (cs_nb_select_run), W
 * candidates at a time: a lane's key is its distance's bits, computed as
 * cs_nb_pair computes the distance (neighbour_lanes), over the
 * candidate's id. Nothing else is stored: the few members kept are
 * evaluated again by the scalar cs_nb_pair, whose bits every lane has. */

/* A pass's running state: lane sums (COLLECT, UP_TO), or the AND and OR of
 * the keys counted and the digit counted most so far (HISTOGRAM). */
typedef struct select_lanes {
  union {
    lane_sums acc;
    struct {
      vi and_high, and_low, or_high, or_low;
    } bits;
  } u;
  uint32_t common;
} select_lanes;

/* The ids of the candidates of `index` in the lanes of `in` (0 elsewhere). */
CS_INLINE vi ids_of(const cs_nb_agent *a, vi index, vmask in) {
  if (!a->ids) return i_masked(in, index);
  uint32_t lane_index[W], id[W];
  i_store(lane_index, index);
  const uint32_t bits = m_bits(in);
  for (unsigned k = 0; k < W; k++)
    id[k] = bits >> k & 1u ? a->ids[lane_index[k]] : 0u;
  return i_load(id);
}

/* Key bits [shift, shift + CS_NB_DIGIT_BITS) of the lanes' keys (distance
 * bits, id). */
CS_INLINE vi digits_of(vi high, vi id, int shift) {
  vi d;
  if (shift >= 32)
    d = i_shr_by(high, shift - 32);
  else if (shift <= 32 - CS_NB_DIGIT_BITS)
    d = i_shr_by(id, shift);
  else
    d = i_or(i_shl_by(high, 32 - shift), i_shr_by(id, shift));
  return i_and(d, i_set1(CS_NB_DIGITS - 1u));
}

/* Candidates [first, last) of `src` in one pass. The lanes decide which
 * keys lie below the bucket and in it; only the bucket's members (at most
 * CS_NB_BUCKET when collected), keys equal to the cap-th (UP_TO), and a
 * histogram's digits other than the most counted, go lane by lane. */
CS_INLINE void select_span(const cs_nb_job *job, const cs_nb_agent *a,
                           const agent_lanes *l, const source *src, size_t first,
                           size_t last, const cs_nb_pass pass, const cs_nb_select *s,
                           cs_nb_select_room *room, cs_nb_sum *sum, select_lanes *state,
                           const int dims, const cs_nb_behaviour behaviour) {
  const int split = behaviour == CS_NB_ALIGNMENT;
  /* Bit 63 is decided (0): the distance parts compare as signed lanes. */
  const vi prefix_high = i_set1((uint32_t)(s->prefix >> 32));
  const vi known_high = i_set1((uint32_t)(s->known >> 32));
  const vi prefix_low = i_set1((uint32_t)s->prefix),
           known_low = i_set1((uint32_t)s->known);
  const int by_id = (uint32_t)s->known != 0; /* then every distance bit is decided */
  for (size_t j = first; j < last; j += W) {
    vf d[3], dist;
    vi index;
    const vmask in = neighbour_lanes(a, l, src, j, last - j < W ? last - j : W, d, &dist,
                                     &index, dims);
    if (!m_any(in)) continue;
    const vi high = v_bits(dist);
    vmask member = m_and(in, i_eq(i_and(high, known_high), prefix_high));
    vmask below = m_and(in, i_gt(prefix_high, high));
    if (pass == CS_NB_HISTOGRAM && !m_any(member)) continue;
    vi id = i_zero();
    if (m_any(member)) {
      id = ids_of(a, index, member);
      if (by_id) {
        below = m_or(below, m_and(member, i_gt_unsigned(prefix_low, id)));
        member = m_and(member, i_eq(i_and(id, known_low), prefix_low));
      }
    }
    if (pass == CS_NB_HISTOGRAM) {
      cs_nb_histogram *h = &room->histogram;
      const vi all = i_set1(UINT32_MAX);
      state->u.bits.and_high = i_and(state->u.bits.and_high, i_select(member, high, all));
      state->u.bits.and_low = i_and(state->u.bits.and_low, i_select(member, id, all));
      state->u.bits.or_high = i_or(state->u.bits.or_high, i_masked(member, high));
      state->u.bits.or_low = i_or(state->u.bits.or_low, i_masked(member, id));
      /* The digit counted most so far in one add: a bucket holding most of
       * the keys (the first pass's exponent) made one chain of increments
       * of the same counter, lane after lane. */
      const vi digit = digits_of(high, id, s->shift);
      const vmask common = m_and(member, i_eq(digit, i_set1(state->common)));
      h->count[state->common] += (uint32_t)m_count(common);
      uint32_t rest = m_bits(m_andnot(member, common));
      if (!rest) continue;
      uint32_t lane_digit[W];
      i_store(lane_digit, digit);
      uint32_t latest = 0;
      for (; rest; rest &= rest - 1)
        h->count[latest = lane_digit[__builtin_ctz(rest)]]++;
      if (h->count[latest] > h->count[state->common]) state->common = latest;
      continue;
    }
    uint32_t add = m_bits(below);
    if (m_any(member)) { /* lane by lane, in scan order */
      uint32_t lane_high[W];
      i_store(lane_high, high);
      uint32_t lane_id[W];
      if (pass == CS_NB_COLLECT) i_store(lane_id, id);
      for (uint32_t rest = m_bits(member); rest; rest &= rest - 1) {
        const unsigned lane = (unsigned)__builtin_ctz(rest);
        if (pass == CS_NB_COLLECT) {
          cs_nb_bucket *bucket = &room->bucket;
          if (bucket->count == CS_NB_BUCKET) break; /* never: narrowed to fit */
          bucket->slot[bucket->count] = (uint32_t)(j + lane);
          bucket->key[bucket->count++] = (uint64_t)lane_high[lane] << 32 | lane_id[lane];
        } else if (sum->n + (uint32_t)__builtin_popcount(add & ((1u << lane) - 1u)) <
                   job->cap) {
          add |= 1u << lane; /* as the scalar SUM_UP_TO: the sum holds fewer */
        }
      }
    }
    if (!add) continue;
    const vmask apart = v_gt(dist, v_zero());
    const vf w = separation_weight(l, dist, behaviour);
    vmask adding = m_from_bits(add);
    if (behaviour == CS_NB_SEPARATION) {
      const vmask coincident = m_andnot(adding, apart);
      if (m_any(coincident)) {
        add_coincident(a, index, coincident, sum);
        adding = m_and(adding, apart);
      }
    }
    sum->n += (uint32_t)m_count(adding);
    for (int k = 0; k < dims; k++)
      add_fixed(&state->u.acc, k, contribution(l, src, j, d, w, k, behaviour), adding,
                split);
    if (++state->u.acc.vectors == FLUSH_EVERY)
      lane_sums_flush(&state->u.acc, sum, dims, split);
  }
}

/* One pass of the selection over the agent's candidate runs. */
CS_INLINE void select_pass(const cs_nb_job *job, const cs_nb_agent *a,
                           const agent_lanes *l, const cs_nb_rows *rows,
                           const cs_nb_pass pass, const cs_nb_select *s,
                           cs_nb_select_room *room, cs_nb_sum *sum, const int dims,
                           const cs_nb_behaviour behaviour) {
  const source src = {{rows->pos[0], rows->pos[1], rows->pos[2]},
                      {rows->vel[0], rows->vel[1], rows->vel[2]},
                      rows->group,
                      rows->index};
  const int split = behaviour == CS_NB_ALIGNMENT;
  select_lanes state;
  state.common = 0;
  if (pass == CS_NB_HISTOGRAM) {
    state.u.bits.and_high = state.u.bits.and_low = i_set1(UINT32_MAX);
    state.u.bits.or_high = state.u.bits.or_low = i_zero();
  } else {
    lane_sums_clear(&state.u.acc, dims);
  }
  for (int r = 0; r < rows->count; r++)
    select_span(job, a, l, &src, rows->first[r], rows->last[r], pass, s, room, sum,
                &state, dims, behaviour);
  if (pass != CS_NB_HISTOGRAM) {
    lane_sums_flush(&state.u.acc, sum, dims, split);
    return;
  }
  uint32_t lanes[4][W];
  i_store(lanes[0], state.u.bits.and_high);
  i_store(lanes[1], state.u.bits.and_low);
  i_store(lanes[2], state.u.bits.or_high);
  i_store(lanes[3], state.u.bits.or_low);
  for (unsigned k = 0; k < W; k++) {
    room->histogram.all_and &= (uint64_t)lanes[0][k] << 32 | lanes[1][k];
    room->histogram.all_or |= (uint64_t)lanes[2][k] << 32 | lanes[3][k];
  }
}

/* The agent a selection is for, and its shape. */
typedef struct vector_selection {
  const cs_nb_job *job;
  const cs_nb_agent *a;
  const cs_nb_rows *rows;
  int dims;
  cs_nb_behaviour behaviour;
} vector_selection;

CS_INLINE void shaped_pass(const vector_selection *c, cs_nb_pass pass,
                           const cs_nb_select *s, cs_nb_select_room *room, cs_nb_sum *sum,
                           const int dims, const cs_nb_behaviour behaviour) {
  agent_lanes l;
  agent_lanes_of(c->a, &l, dims);
  select_pass(c->job, c->a, &l, c->rows, pass, s, room, sum, dims, behaviour);
}

/* A pass for cs_nb_select_run, one copy per shape as the walks have. */
static void vector_pass(void *context, cs_nb_pass pass, const cs_nb_select *s,
                        cs_nb_select_room *room, cs_nb_sum *sum) {
  const vector_selection *c = (const vector_selection *)context;
  const int dims = c->dims;
  if (c->behaviour == CS_NB_SEPARATION && dims == 2)
    shaped_pass(c, pass, s, room, sum, 2, CS_NB_SEPARATION);
  else if (c->behaviour == CS_NB_SEPARATION)
    shaped_pass(c, pass, s, room, sum, 3, CS_NB_SEPARATION);
  else if (c->behaviour == CS_NB_COHESION && dims == 2)
    shaped_pass(c, pass, s, room, sum, 2, CS_NB_COHESION);
  else if (c->behaviour == CS_NB_COHESION)
    shaped_pass(c, pass, s, room, sum, 3, CS_NB_COHESION);
  else if (dims == 2)
    shaped_pass(c, pass, s, room, sum, 2, CS_NB_ALIGNMENT);
  else
    shaped_pass(c, pass, s, room, sum, 3, CS_NB_ALIGNMENT);
}

/* Agent i's steering from its sum, the nearest-k cap applied. */
CS_INLINE void finish(const cs_nb_job *job, const cs_nb_agent *a, cs_nb_sum *sum,
                      cs_nb_rows *rows, const int dims, const cs_nb_behaviour behaviour) {
  if (sum->n > job->cap) {
    if (rows->count < 0) cs_nb_rows_for(job, a, rows);
    if (sum->n <= CS_NB_NEAREST) {
      cs_nb_sum_nearest(job, a, rows, sum);
    } else {
      vector_selection context = {job, a, rows, dims, behaviour};
      cs_nb_select_run(job, a, rows, sum, vector_pass, &context);
    }
  }
  float s[3];
  cs_nb_steering(job, a, sum, a->index, s);
  cs_nb_write(job, a->index, s);
}

/* The agent in grid slot `slot`, as cs_nb_agent_init sees it. */
CS_INLINE void slot_agent(const cs_nb_job *job, size_t slot, cs_nb_agent *a,
                          const int dims) {
  const crowdsteer_grid *g = job->grid;
  float p[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  for (int k = 0; k < dims; k++) {
    p[k] = g->pos[k][slot];
    v[k] = cs_velocity_at(g->vel[k], slot);
  }
  cs_nb_agent_init(a, job, g->index[slot], p, v);
}

/* Agent a's neighbours among candidates [first, last) of `src`, appended
 * to `kept` in scan order with cs_nb_pair's distances and contributions;
 * 0 once they are more than CS_NB_NEAREST. */
CS_INLINE int span_keep(const cs_nb_agent *a, const source *src, size_t first,
                        size_t last, cs_nb_nearest *kept, const int dims,
                        const cs_nb_behaviour behaviour) {
  agent_lanes l;
  agent_lanes_of(a, &l, dims);
  for (size_t j = first; j < last; j += W) {
    vf d[3], dist;
    vi index;
    const vmask in = neighbour_lanes(a, &l, src, j, last - j < W ? last - j : W, d, &dist,
                                     &index, dims);
    uint32_t bits = m_bits(in);
    if (!bits) continue;
    float c[3][W], lane_dist[W];
    uint32_t lane_index[W];
    const vf w = separation_weight(&l, dist, behaviour);
    for (int k = 0; k < dims; k++)
      v_store(c[k], contribution(&l, src, j, d, w, k, behaviour));
    v_store(lane_dist, dist);
    i_store(lane_index, index);
    for (; bits; bits &= bits - 1) {
      const unsigned lane = (unsigned)__builtin_ctz(bits);
      if (kept->count == CS_NB_NEAREST) return 0;
      float *out = kept->c[kept->count];
      out[0] = out[1] = out[2] = 0.0f;
      const uint32_t id = cs_agent_id(a->ids, lane_index[lane]);
      if (behaviour == CS_NB_SEPARATION && !(lane_dist[lane] > 0.0f))
        out[0] = cs_nb_apart_x(a, id); /* coincident */
      else
        for (int k = 0; k < dims; k++)
          out[k] = c[k][lane];
      kept->key[kept->count++] = cs_nb_nearness(lane_dist[lane], id);
    }
  }
  return 1;
}

/* An agent past the nearest-k cap with at most CS_NB_NEAREST neighbours:
 * each kept in one vector pass, then the cap nearest summed
 * (cs_nb_sum_kept) and the steering written; 0 (nothing written) when
 * they are more. Not inlined: the buffer stays off the walk's frame. */
CS_NOINLINE static int evaluate_kept(const cs_nb_job *job, const cs_nb_agent *a,
                                     const cs_nb_rows *rows, const int dims,
                                     const cs_nb_behaviour behaviour) {
  const source src = {{rows->pos[0], rows->pos[1], rows->pos[2]},
                      {rows->vel[0], rows->vel[1], rows->vel[2]},
                      rows->group,
                      rows->index};
  cs_nb_nearest kept;
  kept.count = 0;
  for (int r = 0; r < rows->count; r++)
    if (!span_keep(a, &src, rows->first[r], rows->last[r], &kept, dims, behaviour))
      return 0;
  cs_nb_sum sum;
  cs_nb_sum_kept(job, &kept, &sum);
  float s[3];
  cs_nb_steering(job, a, &sum, a->index, s);
  cs_nb_write(job, a->index, s);
  return 1;
}

/* The agent in grid slot `slot` on its own: against its candidate runs
 * (an agent whose query leaves the cells around its own, one past the
 * nearest-k cap, or any agent of a grid too small to tell cells apart). */
CS_INLINE void evaluate(const cs_nb_job *job, size_t slot, const int dims,
                        const cs_nb_behaviour behaviour) {
  cs_nb_agent a;
  slot_agent(job, slot, &a, dims);
  cs_nb_sum sum = {{0, 0, 0}, 0};
  cs_nb_rows rows;
  cs_nb_rows_for(job, &a, &rows);
  if (__builtin_expect(job->cap < CS_NB_NEAREST, 0) &&
      evaluate_kept(job, &a, &rows, dims, behaviour))
    return;
  const source src = {{rows.pos[0], rows.pos[1], rows.pos[2]},
                      {rows.vel[0], rows.vel[1], rows.vel[2]},
                      rows.group,
                      rows.index};
  for (int r = 0; r < rows.count; r++)
    span_sum(&a, &src, rows.first[r], rows.last[r], &sum, dims, behaviour);
  finish(job, &a, &sum, &rows, dims, behaviour);
}

CS_INLINE int wanted(const cs_nb_job *job, size_t i, size_t begin, size_t end) {
  return i >= begin && i < end &&
         (!job->lane_select || (job->lane_select[i] & job->lane_bit));
}

enum {
  GROUP = 32,          /* room for the cells of a tile's slots */
  PREFETCH_SLOTS = 128 /* how far ahead of the walk outputs are prefetched */
};

/* The cells of slots [first, first + n) of the grid, and which of those
 * agents have their whole query range in the block around their cell (the
 * bits of `covered`, as block_covers says). Per-agent radii are read only
 * for the agents of `todo` (bits over the slots): the others' may lie
 * outside the arrays the call was given. */
CS_INLINE uint64_t cells_of_slots(const cs_nb_job *job, size_t first, size_t n,
                                  uint32_t cells[3][GROUP + W], uint64_t todo,
                                  const int dims) {
  const crowdsteer_grid *g = job->grid;
  const vf inv_cell = v_set1(g->inv_cell);
  uint64_t covered = 0;
  for (size_t j = 0; j < n; j += W) {
    vmask outside = v_lt(v_set1(1.0f), v_zero()); /* none */
    /* Per-agent radii: the scalar test below. */
    const vf r = v_set1(job->radius.value);
    for (int k = 0; k < dims; k++) {
      const vf p = v_load(g->pos[k] + first + j);
      const vi cell = cells_of(p, inv_cell);
      i_store(cells[k] + j, cell);
      const vi lo = cells_of(v_sub(p, r), inv_cell), hi = cells_of(v_add(p, r), inv_cell);
      outside = m_or(outside, m_or(i_gt(cell, i_add(lo, i_set1(1u))),
                                   i_gt(hi, i_add(cell, i_set1(1u)))));
    }
    covered |= (uint64_t)(~m_bits(outside) & CS_ALL_LANES) << j;
  }
  if (dims == 2)
    for (size_t j = 0; j < (n + W - 1) / W * W; j++) /* whole vectors, as above */
      cells[2][j] = 0;
  if (job->radius.array) {
    covered = 0;
    for (; todo; todo &= todo - 1) {
      const unsigned j = (unsigned)__builtin_ctzll(todo);
      cs_nb_agent a; /* block_covers reads p and radius only */
      for (int k = 0; k < 3; k++)
        a.p[k] = k < dims ? g->pos[k][first + j] : 0.0f;
      a.radius = job->radius.array[g->index[first + j]];
      const uint32_t cell[3] = {cells[0][j], cells[1][j], cells[2][j]};
      covered |= (uint64_t)block_covers(g, &a, cell, dims) << j;
    }
  }
  return covered;
}

/* ---- agents in lanes ------------------------------------------------------ */

/* A tile of up to W agents of one cell row (consecutive slots of the
 * grid) runs with one agent per lane against each candidate in turn: every
 * per-agent step (the sums, their reduction, the count, the radius, group
 * and field-of-view filters) is a lane of a vector, and the candidates are
 * the tile's rows of cells read in place, with no copy. Each lane performs
 * exactly cs_nb_pair's operations, as span_sum does for one agent. */

/* Cells one tile may span along x: with one cell more on each side its
 * candidate cells stay within one block's width, so distinct cells are
 * distinct buckets and no candidate is read twice (cs_bucket). */
#define TILE_SPAN(dims) (CS_BLOCK_X(dims) - 3u)

/* Candidates added into a tile's 32-bit lane sums between flushes: each
 * adds below 1.25 * 2^24 to a lane (alignment: below 2^24 to each part),
 * so 96 stay below 2^31. */
#define TILE_FLUSH_EVERY 96

/* A tile's agents (lanes) and their running sums. */
typedef struct tile {
  vf p[3];
  vi slot;
  vmask members;
  vf within, radius, inv_radius; /* per lane (cs_nb_agent_init) */
  vi mask;                       /* the lanes' neighbour masks, when used */
  vf heading[3], cos_fov;        /* the field of view, when used */
  vmask fov;                     /* lanes whose field of view applies */
  lane_sums acc;
  vi count;
  int64_t total[3][W];    /* flushed lane sums */
  int flushed;            /* total holds sums (else it is not initialised) */
  vmask met;              /* separation: lanes that met a coincident agent */
  int pushed;             /* coincident holds pushes (else not initialised) */
  uint32_t coincident[W]; /* separation: +-1 pushes along x, per lane */
} tile;

CS_INLINE void tile_flush(tile *t, const int dims, const int split) {
  uint32_t low[W], high[W];
  if (!t->flushed) memset(t->total, 0, sizeof t->total);
  for (int k = 0; k < dims; k++) {
    i_store(low, t->acc.low[k]);
    i_store(high, t->acc.high[k]);
    for (int j = 0; j < W; j++)
      t->total[k][j] += (int64_t)(int32_t)low[j] +
                        (split ? (int64_t)(int32_t)high[j] * ((int64_t)1 << 24) : 0);
  }
  lane_sums_clear(&t->acc, dims);
  t->flushed = 1;
}

/* Coincident pairs of a separating tile (rare): each lane in `lanes`
 * pushes along x away from the lower id, counted as a neighbour. */
CS_NOINLINE static void tile_coincident(const cs_nb_job *job, tile *t, vmask lanes,
                                        size_t q) {
  const crowdsteer_grid *g = job->grid;
  uint32_t slot[W];
  i_store(slot, t->slot);
  const uint32_t q_id = cs_agent_id(job->id, g->index[q]);
  for (uint32_t bits = m_lane_bits(lanes); bits; bits &= bits - 1) {
    const unsigned j = (unsigned)__builtin_ctz(bits);
    const uint32_t id = cs_agent_id(job->id, g->index[slot[j]]);
    t->coincident[j] += id < q_id ? (uint32_t)-1 : 1u;
  }
}

/* The lanes of `in` that keep candidate q after the group filter and
 * the field of view (cs_nb_pair: only for an agent in motion and a
 * candidate apart from it). */
CS_INLINE vmask tile_filters(const cs_nb_job *job, const tile *t, size_t q, vmask in,
                             const vf d[3], vf dd, const int dims, const int masked,
                             const int sighted) {
  if (masked) in = m_and(in, i_any_common(i_set1(job->grid->group[q]), t->mask));
  if (sighted) {
    const vf dist = v_sqrt(dd);
    vf view = v_mul(t->heading[0], v_div(v_sub(v_zero(), d[0]), dist));
    for (int k = 1; k < dims; k++)
      view = v_add(view, v_mul(t->heading[k], v_div(v_sub(v_zero(), d[k]), dist)));
    const vmask looked = m_and(t->fov, v_gt(dist, v_zero()));
    in = m_and(in, m_or(m_not(looked), v_le(t->cos_fov, view)));
  }
  return in;
}

/* Coincident candidates in slots [from, to) of a separating tile, each
 * added by tile_coincident: a second pass over the tile's candidates, run
 * only when the first saw one. */
CS_INLINE void tile_run_coincident(const cs_nb_job *job, tile *t, size_t from, size_t to,
                                   const int dims) {
  const crowdsteer_grid *g = job->grid;
  for (size_t q = from; q < to; q++) {
    vf d[3], dd = v_zero();
    for (int k = 0; k < dims; k++) {
      d[k] = v_sub(t->p[k], v_set1(g->pos[k][q]));
      dd = k ? v_add(dd, v_mul(d[k], d[k])) : v_mul(d[k], d[k]);
    }
    vmask in = m_andnot(m_and(t->members, v_lt(dd, t->within)),
                        i_eq(t->slot, i_set1((uint32_t)q)));
    in = tile_filters(job, t, q, in, d, dd, dims, job->use_mask, job->use_fov);
    const vmask coincident = m_andnot(in, v_gt(dd, v_zero()));
    if (m_any(coincident)) tile_coincident(job, t, coincident, q);
  }
}

/* Separation's or cohesion's contributions of one candidate to the lanes
 * of `in` (cs_nb_pair's), rounded as cs_fixed into 32-bit sums.
 * Separation scales the weight by 2^24 before the product instead of the
 * product after: both are exact scalings of one rounding wherever the
 * product is normal, and where it is not its fixed point value rounds to 0
 * either way, so the bits are cs_fixed's. The scaled weight is 2^24 / dist
 * - 2^24 * (1 / radius), a multiplication per vector fewer than (1 / dist -
 * 1 / radius) * 2^24, and the same float: 1 / dist lies in (2^-64, 2^75)
 * (dist is the root of a float), so 2^24 / dist is the exact scaling of its
 * rounding, and 1 / dist - 1 / radius, of floats 0 <= 1 / radius < 1 /
 * dist, is normal or 0, so it scales exactly too (checked for every dist
 * of 10 radii from 2^-60 to FLT_MAX: 8e9 cases). */
CS_INLINE void add_pair(vi low[3], const vf d[3], vf dd, vmask in, vf radius,
                        vf inv_radius, const int dims, const cs_nb_behaviour behaviour) {
  if (behaviour == CS_NB_SEPARATION) {
    const vf w =
        v_sub(v_div(v_set1(0x1p24f), v_sqrt(dd)), v_mul(inv_radius, v_set1(0x1p24f)));
    for (int k = 0; k < dims; k++)
      low[k] = i_add(low[k], i_round_even(v_select(in, v_mul(d[k], w), v_zero())));
  } else {
    for (int k = 0; k < dims; k++)
      low[k] = i_add(
          low[k],
          i_round_even(v_mul(v_select(in, v_div(v_sub(v_zero(), d[k]), radius), v_zero()),
                             v_set1(0x1p24f))));
  }
}

/* The tile's agents against candidate slots [from, to), the sums in
 * registers for the run. */
CS_INLINE void tile_run(const cs_nb_job *job, tile *t, size_t from, size_t to,
                        const int dims, const cs_nb_behaviour behaviour, const int masked,
                        const int sighted, const int own_row) {
  const crowdsteer_grid *g = job->grid;
  const int split = behaviour == CS_NB_ALIGNMENT;
  const vf within = t->within, radius = t->radius, inv_radius = t->inv_radius;
  vf p[3];
  for (int k = 0; k < dims; k++)
    p[k] = t->p[k];
  const vi slot = t->slot;
  const vmask members = t->members;
  lane_sums acc = t->acc;
  vi count = t->count;
  vmask met = t->met;
  for (size_t q = from; q < to;) {
    /* Candidates up to the next flush, without a test per candidate. */
    const size_t room = (size_t)(TILE_FLUSH_EVERY - acc.vectors);
    const size_t stop = to - q < room ? to : q + room;
    acc.vectors += (int)(stop - q);
    /* Alignment: the candidates' velocities in the exact sums' two parts,
     * W at a time, before the loop broadcasts them (the grid's arrays are
     * readable a vector past their end). */
    const size_t base = q;
    uint32_t high[3][TILE_FLUSH_EVERY + W], low[3][TILE_FLUSH_EVERY + W];
    if (split)
      for (size_t j = q; j < stop; j += W)
        for (int k = 0; k < dims; k++) {
          vi h, l;
          fixed_parts(v_load(g->vel[k] + j), &h, &l);
          i_store(high[k] + (j - base), h);
          i_store(low[k] + (j - base), l);
        }
    for (; q < stop; q++) {
      vf d[3];
      for (int k = 0; k < dims; k++)
        d[k] = v_sub(p[k], v_set1(g->pos[k][q]));
      vf dd = v_mul(d[0], d[0]);
      for (int k = 1; k < dims; k++)
        dd = v_add(dd, v_mul(d[k], d[k]));
      vmask in = m_and(members, v_lt(dd, within));
      if (own_row) in = m_andnot(in, i_eq(slot, i_set1((uint32_t)q))); /* not itself */
      in = tile_filters(job, t, q, in, d, dd, dims, masked, sighted);
      count = i_count(count, in);
      if (behaviour == CS_NB_SEPARATION) {
        const vmask apart = v_gt(dd, v_zero());
        met = m_or(met, m_andnot(in, apart));
        in = m_and(in, apart);
      }
      if (behaviour != CS_NB_ALIGNMENT) {
        add_pair(acc.low, d, dd, in, radius, inv_radius, dims, behaviour);
      } else {
        for (int k = 0; k < dims; k++) {
          acc.high[k] = i_add(acc.high[k], i_masked(in, i_set1(high[k][q - base])));
          acc.low[k] = i_add(acc.low[k], i_masked(in, i_set1(low[k][q - base])));
        }
      }
    }
    if (acc.vectors == TILE_FLUSH_EVERY) {
      t->acc = acc;
      tile_flush(t, dims, split);
      acc = t->acc;
    }
  }
  t->acc = acc;
  t->count = count;
  t->met = met;
}

/* Every candidate of the tile whose agents' cells are x in [x_first,
 * x_last] of the row (y, z): the cells around them, row by row, each row's
 * cells as runs of consecutive buckets (split where a block ends). */
CS_INLINE void tile_candidates(const cs_nb_job *job, tile *t, uint32_t x_first,
                               uint32_t x_last, uint32_t y, uint32_t z, const int dims,
                               const cs_nb_behaviour behaviour, const int coincident) {
  const crowdsteer_grid *g = job->grid;
  const uint32_t low = CS_BLOCK_X(dims) - 1u;
  uint32_t c[3];
  for (int dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); dz++)
    for (int dy = -1; dy <= 1; dy++) {
      c[1] = y + (uint32_t)dy;
      c[2] = dims == 3 ? z + (uint32_t)dz : 0u;
      for (uint32_t x = x_first - 1u; x != x_last + 2u;) {
        const uint32_t in_block = CS_BLOCK_X(dims) - (x & low);
        const uint32_t left = x_last + 2u - x;
        const uint32_t run = in_block < left ? in_block : left;
        c[0] = x;
        const uint32_t b = cs_bucket(c, dims, g->bucket_mask);
        const size_t from = g->start[b], to = g->start[b + run];
        if (coincident)
          tile_run_coincident(job, t, from, to, dims);
        else if (job->use_fov)
          tile_run(job, t, from, to, dims, behaviour, job->use_mask, 1, 1);
        else if (job->use_mask)
          tile_run(job, t, from, to, dims, behaviour, 1, 0, 1);
        else if (dy == 0 && dz == 0) /* the tile's own row holds its agents */
          tile_run(job, t, from, to, dims, behaviour, 0, 0, 1);
        else
          tile_run(job, t, from, to, dims, behaviour, 0, 0, 0);
        x += run;
      }
    }
}

/* One agent of the tile: its steering from its exact sum, through the
 * shared scalar formulas. */
CS_INLINE void lane_finish(const cs_nb_job *job, const tile *t, size_t slot, unsigned j,
                           uint32_t count, const uint32_t low[3][W],
                           const uint32_t high[3][W], const int dims,
                           const cs_nb_behaviour behaviour) {
  const crowdsteer_grid *g = job->grid;
  const int split = behaviour == CS_NB_ALIGNMENT;
  cs_nb_sum sum = {{0, 0, 0}, count};
  for (int k = 0; k < dims; k++) {
    sum.s[k] = (int64_t)(int32_t)low[k][j] +
               (split ? (int64_t)(int32_t)high[k][j] * ((int64_t)1 << 24) : 0);
    if (t->flushed) sum.s[k] += t->total[k][j];
  }
  if (behaviour == CS_NB_SEPARATION && t->pushed)
    sum.s[0] += (int64_t)(int32_t)t->coincident[j] * ((int64_t)1 << 24);
  cs_nb_agent a;
  a.index = g->index[slot];
  for (int k = 0; k < 3; k++)
    a.v[k] = k < dims ? cs_velocity_at(g->vel[k], slot) : 0.0f;
  float s[3];
  cs_nb_steering(job, &a, &sum, a.index, s);
  cs_nb_write(job, a.index, s);
}

CS_INLINE vf param_lanes(cs_param p, const uint32_t index[W]) {
  return p.array ? v_gather_lanes(p.array, index) : v_set1(p.value);
}

/* Writes the steering s of the agents of `lanes` (0 where `alone`) as
 * cs_nb_write does, lane by lane. The other lanes of index/rel hold a
 * member's, so every gather reads valid data. */
CS_INLINE void lanes_write(const cs_nb_job *job, const vf s[3], vmask alone,
                           uint32_t lanes, const uint32_t index[W], const uint32_t rel[W],
                           const int dims) {
  const vf weight =
      job->mode == CROWDSTEER_OVERWRITE ? v_zero() : param_lanes(job->weight, index);
  /* Every lane stores, in a loop of fixed length (how many agents a tile
   * holds is not predictable): lanes outside `lanes` store to the first of
   * `lanes`, whose own value is stored again last. */
  const unsigned anchor = (unsigned)__builtin_ctz(lanes);
  uint32_t target[W];
  for (unsigned j = 0; j < W; j++)
    target[j] = (lanes >> j & 1u) ? rel[j] : rel[anchor];
  for (int k = 0; k < dims; k++) {
    vf out = v_select(alone, v_zero(), s[k]);
    if (job->mode != CROWDSTEER_OVERWRITE)
      out = v_add(v_gather_lanes(job->out[k], rel), v_mul(weight, out));
    float value[W];
    v_store(value, out);
    float *const to = job->out[k];
    for (unsigned j = 0; j < W; j++)
      to[target[j]] = value[j];
    to[target[anchor]] = value[anchor];
  }
}

/* The lanes' agent indices (index) and output slots (rel) of the group of
 * slots from `first`: the other lanes get the first of `lanes`'s. */
CS_INLINE void lanes_of_group(const cs_nb_job *job, size_t first, uint32_t lanes,
                              uint32_t index[W], uint32_t rel[W]) {
  const crowdsteer_grid *g = job->grid;
  const uint32_t lead = g->index[first + (unsigned)__builtin_ctz(lanes)];
  const vi lane_index =
      i_select(m_from_bits(lanes), i_load(g->index + first), i_set1(lead));
  i_store(index, lane_index);
  i_store(rel, i_sub(lane_index, i_set1((uint32_t)job->out_base)));
}

/* The agents of `lanes` at once: separation and cohesion whose exact sums
 * fit the int32 `sums` (no coincident push), by
 * cs_nb_steering's and cs_nb_write's operations lane by lane. The other
 * lanes of index/rel hold a member's, so every gather reads valid data. */
CS_INLINE void lanes_finish(const cs_nb_job *job, vi count, const vi sums[3],
                            size_t first, uint32_t lanes, const uint32_t index[W],
                            const uint32_t rel[W], const int dims,
                            const cs_nb_behaviour behaviour) {
  const crowdsteer_grid *g = job->grid;
  const vf max_speed = param_lanes(job->max_speed, index);
  const vmask alone = i_eq(count, i_zero());
  vf C[3], s[3];
  for (int k = 0; k < dims; k++)
    C[k] = v_mul(i_to_float(sums[k]), v_set1(0x1p-24f));
  if (behaviour == CS_NB_SEPARATION) {
    for (int k = 0; k < dims; k++)
      s[k] = v_mul(C[k], max_speed);
  } else {
    vf cc = v_mul(C[0], C[0]);
    for (int k = 1; k < dims; k++)
      cc = v_add(cc, v_mul(C[k], C[k]));
    const vf l = v_sqrt(cc);
    const vmask toward = v_gt(l, v_zero());
    const vf time_to_target = param_lanes(job->time_to_target, index);
    for (int k = 0; k < dims; k++) {
      const vf desired = v_select(toward, v_mul(v_div(C[k], l), max_speed), v_zero());
      s[k] = v_div(v_sub(desired, v_load(g->vel[k] + first)), time_to_target);
    }
  }
  lanes_write(job, s, alone, lanes, index, rel, dims);
}

/* The tile's steering from its exact sums: lane-parallel where the sums
 * fit the lanes, agent by agent otherwise; agents past the nearest-k cap
 * are recomputed on their own candidate runs. */
CS_INLINE void tile_finish(const cs_nb_job *job, tile *t, size_t first, uint32_t bits,
                           const int dims, const cs_nb_behaviour behaviour) {
  const int in_lanes = behaviour != CS_NB_ALIGNMENT;
  uint32_t count[W], low[3][W], high[3][W], index[W], rel[W];
  i_store(count, t->count);
  for (int k = 0; k < dims; k++) {
    i_store(low[k], t->acc.low[k]);
    i_store(high[k], t->acc.high[k]);
  }
  /* After a flush, the lanes whose whole sums fit 32 bits stay parallel. */
  vi sums[3] = {t->acc.low[0], t->acc.low[1], t->acc.low[2]};
  uint32_t wide = 0;
  if (t->flushed && in_lanes) {
    uint32_t whole[3][W];
    for (int k = 0; k < dims; k++) {
      for (unsigned j = 0; j < W; j++) {
        const int64_t total = t->total[k][j] + (int32_t)low[k][j];
        whole[k][j] = (uint32_t)total;
        if (total != (int32_t)total) wide |= 1u << j;
      }
      sums[k] = i_load(whole[k]);
    }
  }
  lanes_of_group(job, first, bits, index, rel);
  const uint32_t over = m_lane_bits(i_gt_unsigned(t->count, i_set1(job->cap))) & bits;
  uint32_t lanes = 0;
  if (!over && in_lanes && !t->pushed && !wide) {
    lanes = bits;
  } else {
    for (uint32_t rest = bits; rest; rest &= rest - 1) {
      const unsigned j = (unsigned)__builtin_ctz(rest);
      if (over >> j & 1u)
        evaluate(job, first + j, dims, behaviour);
      else if (in_lanes && !(t->pushed && t->coincident[j]) && !(wide >> j & 1u))
        lanes |= 1u << j;
      else
        lane_finish(job, t, first + j, j, count[j], low, high, dims, behaviour);
    }
  }
  if (lanes) lanes_finish(job, t->count, sums, first, lanes, index, rel, dims, behaviour);
}

/* The lanes' radius (its limit for the squared distance, its inverse) and
 * neighbour mask, as cs_nb_agent_init takes them; lanes that are not
 * members get a limit of 0 (never a neighbour). */
CS_INLINE void tile_parameters(const cs_nb_job *job, tile *t, size_t first,
                               uint32_t members, const int dims) {
  const crowdsteer_grid *g = job->grid;
  if (!job->radius.array) {
    t->within = v_set1(job->within);
    t->radius = v_set1(job->radius.value);
    t->inv_radius = v_set1(1.0f / job->radius.value);
  } else {
    float within[W], radius[W], inverse[W];
    for (unsigned j = 0; j < W; j++) {
      const float r = (members >> j & 1u) ? job->radius.array[g->index[first + j]] : 1.0f;
      radius[j] = r;
      inverse[j] = 1.0f / r;
      within[j] = (members >> j & 1u) ? cs_within_limit(r) : 0.0f;
    }
    t->within = v_load(within);
    t->radius = v_load(radius);
    t->inv_radius = v_load(inverse);
  }
  t->mask = i_set1(job->mask);
  if (job->use_mask && job->mask_array) {
    uint32_t mask[W];
    for (unsigned j = 0; j < W; j++)
      mask[j] = (members >> j & 1u) ? job->mask_array[g->index[first + j]] : 0u;
    t->mask = i_load(mask);
  }
  if (job->use_fov) { /* heading(v) and the cosine, as cs_nb_agent_init */
    vf v[3], vv = v_zero();
    for (int k = 0; k < dims; k++) {
      v[k] = v_load(g->vel[k] + first);
      vv = k ? v_add(vv, v_mul(v[k], v[k])) : v_mul(v[k], v[k]);
    }
    const vf speed = v_sqrt(vv);
    t->fov = v_gt(speed, v_zero());
    for (int k = 0; k < dims; k++)
      t->heading[k] = v_select(t->fov, v_div(v[k], speed), v_zero());
    float cos_fov[W];
    for (unsigned j = 0; j < W; j++)
      cos_fov[j] =
          (members >> j & 1u) ? cs_param_at(job->cos_fov, g->index[first + j]) : -1.0f;
    t->cos_fov = v_load(cos_fov);
  }
}

/* Results go to the agents' indices, all over the output: ask for the
 * lines of the slots up to PREFETCH_SLOTS past [first, first + n) well
 * before the stores (in-order store commits would otherwise wait for each
 * miss in turn); *ahead is the first slot not yet asked for. */
CS_INLINE void prefetch_outputs(const cs_nb_job *job, size_t *ahead, size_t first,
                                size_t n, size_t begin, size_t end, const int dims) {
  const crowdsteer_grid *g = job->grid;
  const size_t last = job->slot_last;
  const size_t horizon =
      first + n + PREFETCH_SLOTS < last ? first + n + PREFETCH_SLOTS : last;
  for (; *ahead < horizon; ++*ahead) {
    const size_t i = g->index[*ahead];
    if (i < begin || i >= end) continue;
    for (int k = 0; k < dims; k++)
      __builtin_prefetch(job->out[k] + (i - job->out_base), 1);
  }
}

/* The slots of [first, first + n) that are wanted() and not in `done`. */
CS_INLINE uint32_t todo_slots(const cs_nb_job *job, size_t first, size_t n, size_t begin,
                              size_t end, uint64_t done) {
  const crowdsteer_grid *g = job->grid;
  uint32_t todo = 0;
  if (!job->lane_select) { /* wanted(), lane by lane */
    const vi offset = i_sub(i_load(g->index + first), i_set1((uint32_t)begin));
    todo = m_lane_bits(i_gt_unsigned(i_set1((uint32_t)(end - begin)), offset)) &
           (uint32_t)~done & (n < W ? (1u << n) - 1u : CS_ALL_LANES);
  } else {
    for (size_t j = 0; j < n; j++)
      if (!(done >> j & 1u) && wanted(job, g->index[first + j], begin, end))
        todo |= 1u << j;
  }
  return todo;
}

/* The grid slots [slot_first, slot_last) of the job in tiles: a tile
 * starts at the first agent not yet done and takes, of the W slots from
 * there, the agents of its cell row within TILE_SPAN cells (the others, from
 * colliding blocks or the next row, lead tiles of their own). Agents whose
 * query leaves the cells around their own take the candidate-run path. */
CS_INLINE void run_lanes(const cs_nb_job *job, size_t begin, size_t end, const int dims,
                         const cs_nb_behaviour behaviour) {
  const crowdsteer_grid *g = job->grid;
  const size_t last = job->slot_last;
  size_t ahead = job->slot_first;
  uint64_t done = 0; /* bit j: slot first + j is done */
  for (size_t first = job->slot_first; first < last;) {
    const size_t n = last - first < W ? last - first : W;
    prefetch_outputs(job, &ahead, first, n, begin, end, dims);
    const uint32_t todo = todo_slots(job, first, n, begin, end, done);
    uint32_t cells[3][GROUP + W];
    const uint32_t covered = (uint32_t)cells_of_slots(job, first, n, cells, todo, dims);
    uint32_t members = 0;
    if (todo & 1u) {
      if (covered & 1u) {
        const uint32_t x = cells[0][0], y = cells[1][0], z = cells[2][0];
        /* Branch-free: how many agents share a row is not predictable. */
        const vi dx = i_sub(i_load(cells[0]), i_set1(x));
        const vmask row = m_and(
            m_and(i_eq(i_load(cells[1]), i_set1(y)), i_eq(i_load(cells[2]), i_set1(z))),
            i_gt_unsigned(i_set1(TILE_SPAN(dims) + 1u), dx));
        members = todo & covered & m_lane_bits(row);
        const uint32_t x_last = x + i_max_lane(i_masked(m_from_bits(members), dx));
        tile t;
        for (int k = 0; k < dims; k++)
          t.p[k] = v_load(g->pos[k] + first);
        t.slot = i_add(i_set1((uint32_t)first), i_iota());
        t.members = m_from_bits(members);
        tile_parameters(job, &t, first, members, dims);
        lane_sums_clear(&t.acc, dims);
        t.count = i_zero();
        t.flushed = 0;
        t.pushed = 0;
        t.met = m_not(m_from_bits(CS_ALL_LANES)); /* none */
        tile_candidates(job, &t, x, x_last, y, z, dims, behaviour, 0);
        if (behaviour == CS_NB_SEPARATION && m_any(t.met)) {
          memset(t.coincident, 0, sizeof t.coincident);
          t.pushed = 1;
          tile_candidates(job, &t, x, x_last, y, z, dims, behaviour, 1);
        }
        tile_finish(job, &t, first, members, dims, behaviour);
      } else {
        evaluate(job, first, dims, behaviour);
        members = 1u;
      }
    }
    /* Slots before the next one to do: done, or not wanted. */
    done |= members;
    done |= ~(uint64_t)todo & (((uint64_t)1 << n) - 1u);
    const unsigned step = done == ~(uint64_t)0 ? 64u : (unsigned)__builtin_ctzll(~done);
    first += step;
    done = step >= 64 ? 0 : done >> step;
  }
}

/* ---- agents one by one over their rows of cells ---------------------------- */

/* Separation and cohesion with one radius, no group filter and no field of
 * view: each agent of W consecutive slots on its own, its candidates
 * loaded W at a time from the runs of its rows of cells (3 x 1 cells in 2D,
 * 3 x 3 in 3D; a row is one run of consecutive buckets, plus one cell's run
 * where the agent's cell is at a block's edge along x). A lane of a vector
 * is a candidate, so the divider works on W candidates of one agent, about
 * 3 vectors per agent at 8 neighbours, where a tile needs about 5: each
 * lane performs cs_nb_pair's operations as tile_run does, and the agent's
 * 32-bit lane sums are added up exactly. The W agents' steering is then
 * computed in lanes, as a tile's. Agents this cannot do exactly (a
 * coincident neighbour, more neighbours than the cap or than the 32-bit
 * sums hold, a query that leaves the cells around its own) are evaluated
 * on their own. */

/* Neighbours whose total the lane tree adds in 32 bits: each adds below
 * 1.25 * 2^24 to one lane sum and to the agent's total (other lanes add
 * 0), so 96 of them stay below 2^31. Also the vectors an agent's lane sums
 * may take: a lane adds at most one neighbour per vector. */
#define ROW_LIMIT 96u

#define ROWS(dims) ((dims) == 3 ? 9 : 3)

/* The runs of W agents' rows: per row, the first bucket of its main run
 * (the cells of x - 1 .. x + 1 inside the agent's block) and of its extra
 * run (the neighbouring block's cell at an edge), and each run's length in
 * buckets, the same for every row of an agent. */
typedef struct row_runs {
  uint32_t main[9][W], extra[9][W];
  uint32_t main_cells[W], extra_cells[W];
} row_runs;

CS_INLINE void rows_of_cells(const crowdsteer_grid *g, const uint32_t cells[3][GROUP + W],
                             row_runs *runs, const int dims) {
  const vi x = i_load(cells[0]), y = i_load(cells[1]);
  const vi z = dims == 3 ? i_load(cells[2]) : i_zero();
  const vi low = i_and(x, i_set1(CS_BLOCK_X(dims) - 1u));
  const vmask at_left = i_eq(low, i_zero());
  const vmask at_right = i_eq(low, i_set1(CS_BLOCK_X(dims) - 1u));
  const vmask at_edge = m_or(at_left, at_right);
  /* Main run from x - 1 (from x at a left edge), 3 cells (2 at an edge);
   * the extra cell x - 1 or x + 1 at an edge, none elsewhere. */
  const vi x_main = i_add(i_sub(x, i_set1(1u)), i_masked(at_left, i_set1(1u)));
  const vi x_extra = i_select(at_left, i_sub(x, i_set1(1u)), i_add(x, i_set1(1u)));
  i_store(runs->main_cells, i_sub(i_set1(3u), i_masked(at_edge, i_set1(1u))));
  i_store(runs->extra_cells, i_masked(at_edge, i_set1(1u)));
  const vi mask = i_set1(g->bucket_mask);
  int r = 0;
  for (int dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); dz++)
    for (int dy = -1; dy <= 1; dy++, r++) {
      vi cell[3] = {x_main, i_add(y, i_set1((uint32_t)dy)),
                    i_add(z, i_set1((uint32_t)dz))};
      i_store(runs->main[r], bucket_of_cells(cell, mask, dims));
      cell[0] = x_extra;
      i_store(runs->extra[r], bucket_of_cells(cell, mask, dims));
    }
}

/* Cohesion and alignment of one step gathered by one walk (the job's
 * `aligned`): a shape of the walk beside the three behaviours. */
#define FLOCK ((cs_nb_behaviour)CS_NB_COUNT)

/* What one agent gathers over its runs. */
typedef struct agent_sums {
  vi acc[3];          /* separation, cohesion */
  vi high[3], low[3]; /* alignment: cs_fixed's parts (cs_nb_job.vel_high) */
  uint32_t count;
  vmask met; /* separation: a coincident neighbour */
} agent_sums;

/* The agent at position p against the candidate slots of `lanes` from q. */
CS_INLINE void row_vector(const cs_nb_job *job, agent_sums *a, size_t q, vmask lanes,
                          const vf p[3], vf within, vf radius, vf inv_radius,
                          const int dims, const cs_nb_behaviour behaviour) {
  const crowdsteer_grid *g = job->grid;
  vf d[3];
  for (int k = 0; k < dims; k++)
    d[k] = v_sub(p[k], v_load(g->pos[k] + q)); /* readable W past the end */
  vf dd = v_mul(d[0], d[0]);
  for (int k = 1; k < dims; k++)
    dd = v_add(dd, v_mul(d[k], d[k]));
  vmask in = m_and(v_lt(dd, within), lanes);
  a->count += (uint32_t)m_count(in);
  if (behaviour == CS_NB_SEPARATION) {
    const vmask apart = v_gt(dd, v_zero());
    a->met = m_or(a->met, m_andnot(in, apart));
    in = m_and(in, apart);
  }
  if (behaviour != CS_NB_ALIGNMENT)
    add_pair(a->acc, d, dd, in, radius, inv_radius, dims,
             behaviour == FLOCK ? CS_NB_COHESION : behaviour);
  if (behaviour == CS_NB_ALIGNMENT || behaviour == FLOCK) {
    const cs_nb_job *mates = behaviour == FLOCK ? job->aligned : job;
    for (int k = 0; k < dims; k++) { /* readable W past the end, as positions */
      a->high[k] = i_add(a->high[k], i_masked(in, i_load(mates->vel_high[k] + q)));
      a->low[k] = i_add(a->low[k], i_masked(in, i_load(mates->vel_low[k] + q)));
    }
  }
}

/* The agent at slot `self`, position p, against candidate slots [from, to). */
CS_INLINE void row_run(const cs_nb_job *job, agent_sums *a, size_t from, size_t to,
                       const vf p[3], uint32_t self, vf within, vf radius, vf inv_radius,
                       const int dims, const cs_nb_behaviour behaviour,
                       const int own_row) {
  for (size_t q = from; q < to; q += W) {
    vmask lanes = m_first(to - q);
    if (own_row) lanes = m_andnot(lanes, i_eq(i_iota(), i_set1(self - (uint32_t)q)));
    row_vector(job, a, q, lanes, p, within, radius, inv_radius, dims, behaviour);
  }
}

/* Vectors of agent j's runs: each of its lane sums adds at most one
 * neighbour per vector. */
CS_INLINE uint32_t run_vectors(const crowdsteer_grid *g, const row_runs *runs, unsigned j,
                               const int dims) {
  uint32_t vectors = 0;
  for (int r = 0; r < ROWS(dims); r++) {
    const uint32_t m = runs->main[r][j], e = runs->extra[r][j];
    vectors += (g->start[m + runs->main_cells[j]] - g->start[m] + W - 1) / W;
    if (runs->extra_cells[j])
      vectors += (g->start[e + runs->extra_cells[j]] - g->start[e] + W - 1) / W;
  }
  return vectors;
}

/* Alignment of the agent in `slot` on its own, out of line: inlined
 * beside cohesion's in FLOCK's walk it made that frame 1.7 KiB larger. */
CS_NOINLINE static void evaluate_aligned(const cs_nb_job *job, size_t slot,
                                         const int dims) {
  evaluate(job, slot, dims, CS_NB_ALIGNMENT);
}

/* Agent `slot`'s steering from lane sums that did not overflow (at most
 * ROW_LIMIT neighbours, or at most ROW_LIMIT vectors of candidates, each
 * adding below 1.25 * 2^24 to a lane), the cap not binding: each total is
 * low + high * 2^24 over the lanes in 64 bits (high: alignment's upper
 * parts, else 0). The same sum, so the same bits, as evaluating it on its
 * own: for agents past the 32-bit total (about 8 % of a flock of 100,000
 * boids with about 50 flockmates each, the viewer's) and alignment's.
 * Out of line, its sums by value: inside the walk 3D separation was 6 %
 * slower, and sums passed by address kept them live, 2 KiB more stack. */
CS_NOINLINE static void finish_wide(const cs_nb_job *job, size_t slot, vi low_x, vi low_y,
                                    vi low_z, vi high_x, vi high_y, vi high_z,
                                    uint32_t count, const int dims) {
  cs_nb_agent a;
  slot_agent(job, slot, &a, dims);
  const vi low[3] = {low_x, low_y, low_z}, high[3] = {high_x, high_y, high_z};
  cs_nb_sum sum = {{0, 0, 0}, count};
  for (int k = 0; k < dims; k++)
    sum.s[k] = i_sum64(low[k]) + i_sum64(high[k]) * ((int64_t)1 << 24);
  float s[3];
  cs_nb_steering(job, &a, &sum, a.index, s);
  cs_nb_write(job, a.index, s);
}

/* Alignment of the agents of `lanes` from the group of slots at `first`,
 * each with its neighbour count and its exact sums' 32-bit high and low
 * parts (the sum is high * 2^24 + low), all at once: cs_nb_steering's and
 * cs_nb_write's operations lane by lane, the same bits as finish_wide.
 * The agents have at most ROW_LIMIT neighbours, so no part wrapped, and
 * |high| < 2^28 (see v_from_parts). */
CS_NOINLINE static void aligned_lanes_finish(const cs_nb_job *job, size_t first,
                                             uint32_t lanes, const uint32_t count[W],
                                             const uint32_t high[3][W],
                                             const uint32_t low[3][W], const int dims) {
  const crowdsteer_grid *g = job->grid;
  uint32_t index[W], rel[W];
  lanes_of_group(job, first, lanes, index, rel);
  const vi n = i_load(count);
  const vmask alone = i_eq(n, i_zero());
  const vf divisor = v_select(alone, v_set1(1.0f), i_to_float(n));
  const vf time_to_target = param_lanes(job->time_to_target, index);
  vf s[3];
  for (int k = 0; k < dims; k++) {
    const vf C = v_mul(v_from_parts(i_load(high[k]), i_load(low[k])), v_set1(0x1p-24f));
    s[k] = v_div(v_sub(v_div(C, divisor), v_load(g->vel[k] + first)), time_to_target);
  }
  lanes_write(job, s, alone, lanes, index, rel, dims);
}

/* Slots [first, first + n) of the job's range, agent by agent: `todo` the
 * slots wanted by the job (separation or cohesion), `todo_aligned` those
 * wanted by its alignment (FLOCK: job->aligned; ALIGNMENT: the job). */
CS_INLINE void rows_group(const cs_nb_job *job, size_t first, size_t n, uint32_t todo,
                          uint32_t todo_aligned, const int dims,
                          const cs_nb_behaviour behaviour) {
  const crowdsteer_grid *g = job->grid;
  const int aligns = behaviour == CS_NB_ALIGNMENT || behaviour == FLOCK;
  const cs_nb_job *mates = behaviour == FLOCK ? job->aligned : job;
  const cs_nb_behaviour steered = behaviour == FLOCK ? CS_NB_COHESION : behaviour;
  if (behaviour == CS_NB_ALIGNMENT) todo = 0; /* the cohesion and separation part */
  if (!aligns) todo_aligned = 0;
  uint32_t cells[3][GROUP + W];
  const uint32_t covered =
      (uint32_t)cells_of_slots(job, first, n, cells, todo | todo_aligned, dims);
  row_runs runs;
  rows_of_cells(g, cells, &runs, dims);

  const vf within = v_set1(job->within), radius = v_set1(job->radius.value);
  const vf inv_radius = v_set1(1.0f / job->radius.value);
  const uint32_t limit = job->cap < ROW_LIMIT ? job->cap : ROW_LIMIT;
  uint32_t count[W] = {0}, lanes = 0, coincident = 0;
  vi lane_sums_of[3][W]; /* agent j's lane sums at i_sum_each_slot(j) */
  /* Alignment's agents finished together after the walk (aligned_lanes),
   * their counts and sums' parts in lane j. With 16 lanes only: with 8,
   * steps were 2-5 % slower than finishing each agent on its own. */
  uint32_t aligned_lanes = 0, aligned_count[W] = {0};
  uint32_t aligned_high[3][W] = {{0}}, aligned_low[3][W] = {{0}};
  if (todo && (todo & covered) != CS_ALL_LANES)
    for (int k = 0; k < dims; k++)
      for (unsigned j = 0; j < W; j++)
        if (!((todo & covered) >> j & 1u)) lane_sums_of[k][i_sum_each_slot(j)] = i_zero();
  for (uint32_t rest = (todo | todo_aligned) & covered; rest; rest &= rest - 1) {
    const unsigned j = (unsigned)__builtin_ctz(rest);
    const size_t slot = first + j;
    vf p[3];
    for (int k = 0; k < dims; k++)
      p[k] = v_set1(g->pos[k][slot]);
    agent_sums a;
    for (int k = 0; k < 3; k++)
      a.acc[k] = a.high[k] = a.low[k] = i_zero();
    a.count = 0;
    a.met = m_not(m_from_bits(CS_ALL_LANES));
    const uint32_t main_cells = runs.main_cells[j], extra_cells = runs.extra_cells[j];
    /* In 2D, with 16 lanes, 5 agents in 6 have every row in one vector:
     * those go straight through, with no loop per row (-14 % at 65,536
     * agents; docs/benchmarks.md). With 8 lanes most rows take two
     * vectors. */
    const int straight = dims == 2 && W >= 16;
    uint32_t from[3], to[3], longest = 0;
    if (straight)
      for (int r = 0; r < 3; r++) {
        const uint32_t m = runs.main[r][j];
        from[r] = g->start[m];
        to[r] = g->start[m + main_cells];
        longest |= to[r] - from[r];
      }
    if (straight && longest <= W)
      for (int r = 0; r < 3; r++)
        row_vector(job, &a, from[r],
                   r == 1 ? m_first_but(to[r] - from[r], slot - from[r])
                          : m_first(to[r] - from[r]),
                   p, within, radius, inv_radius, dims, behaviour);
    else
      for (int r = 0; r < ROWS(dims); r++) {
        const uint32_t m = runs.main[r][j];
        if (r == ROWS(dims) / 2) /* the agent's own row */
          row_run(job, &a, g->start[m], g->start[m + main_cells], p, (uint32_t)slot,
                  within, radius, inv_radius, dims, behaviour, 1);
        else
          row_run(job, &a, g->start[m], g->start[m + main_cells], p, (uint32_t)slot,
                  within, radius, inv_radius, dims, behaviour, 0);
      }
    if (extra_cells) /* at a block's edge along x: 1 agent in 32 (2D), 16 (3D) */
      for (int r = 0; r < ROWS(dims); r++) {
        const uint32_t e = runs.extra[r][j];
        row_run(job, &a, g->start[e], g->start[e + extra_cells], p, (uint32_t)slot,
                within, radius, inv_radius, dims, behaviour, 0);
      }
    if (todo_aligned >> j & 1u) {
      /* At most ROW_LIMIT neighbours, the cap not binding: the parts' totals
       * fit 32 bits. Past the cap, or past ROW_LIMIT in both neighbours and
       * vectors (a lane sum may have overflowed): on its own. */
      int parts_fit = W >= 16 && a.count <= mates->cap && a.count <= ROW_LIMIT;
      for (int k = 0; k < dims && parts_fit; k++) {
        aligned_high[k][j] = i_sum32(a.high[k]);
        aligned_low[k][j] = i_sum32(a.low[k]);
        parts_fit = aligned_high[k][j] + (1u << 28) < (1u << 29); /* |high| < 2^28 */
      }
      if (parts_fit) {
        aligned_count[j] = a.count;
        aligned_lanes |= 1u << j;
      } else if (a.count <= mates->cap &&
                 (a.count <= ROW_LIMIT || run_vectors(g, &runs, j, dims) <= ROW_LIMIT))
        finish_wide(mates, slot, a.low[0], a.low[1], a.low[2], a.high[0], a.high[1],
                    a.high[2], a.count, dims);
      else
        evaluate_aligned(mates, slot, dims);
    }
    if (!(todo >> j & 1u)) continue;
    const int exact = a.count <= limit && (steered != CS_NB_SEPARATION || !m_any(a.met));
    if (steered == CS_NB_SEPARATION && __builtin_expect(!exact, 0))
      coincident |= (uint32_t)m_any(a.met) << j;
    count[j] = a.count;
    for (int k = 0; k < dims; k++)
      lane_sums_of[k][i_sum_each_slot(j)] = a.acc[k];
    lanes |= (uint32_t)exact << j;
  }
  if (aligned_lanes)
    aligned_lanes_finish(mates, first, aligned_lanes, aligned_count, aligned_high,
                         aligned_low, dims);
  for (uint32_t rest = todo_aligned & ~covered; rest; rest &= rest - 1)
    evaluate_aligned(mates, first + (unsigned)__builtin_ctz(rest), dims);
  if (!todo) return;
  /* Dense agents: a neighbour count past the 32-bit limit, the cap not
   * binding, none coincident, at most ROW_LIMIT vectors (no lane sum
   * overflowed). */
  uint32_t dense = 0;
  for (uint32_t rest = todo & ~lanes; rest; rest &= rest - 1) {
    const unsigned j = (unsigned)__builtin_ctz(rest);
    if (count[j] > limit && count[j] <= job->cap && !(coincident >> j & 1u) &&
        run_vectors(g, &runs, j, dims) <= ROW_LIMIT) {
      const unsigned at = i_sum_each_slot(j);
      finish_wide(job, first + j, lane_sums_of[0][at], lane_sums_of[1][at],
                  dims == 3 ? lane_sums_of[2][at] : i_zero(), i_zero(), i_zero(),
                  i_zero(), count[j], dims);
      dense |= 1u << j;
    }
  }
  if (lanes) {
    uint32_t index[W], rel[W];
    lanes_of_group(job, first, lanes, index, rel);
    vi sum[3] = {i_zero(), i_zero(), i_zero()};
    for (int k = 0; k < dims; k++)
      sum[k] = i_sum_each(lane_sums_of[k]);
    lanes_finish(job, i_load(count), sum, first, lanes, index, rel, dims, steered);
  }
  for (uint32_t rest = todo & ~lanes & ~dense; rest; rest &= rest - 1)
    evaluate(job, first + (unsigned)__builtin_ctz(rest), dims, steered);
}

/* Rows' slots well ahead of the walk into cache: in a large grid the rows
 * of cells that lie in other blocks (the first and last rows of each block
 * read a row of the block above or below, anywhere in memory) miss every
 * cache (loading candidates was 30 % of separation at 1M agents). The
 * agent AHEAD slots on has its rows' table entries fetched; the one half
 * as far, whose entries are in cache by then, the first lines of its
 * rows' candidates. */
enum {
  AHEAD = 8 * W, /* measured at 1M: 4 W +2 %, 16 W +7 %, 32 W +30 % */
  /* Below this the grid and the outputs stay in cache, and prefetching
   * rows cost 10 % (65,536 agents), outputs 2-4 %. */
  PREFETCH_ROWS_FROM = 1 << 18
};

CS_INLINE void rows_buckets(const crowdsteer_grid *g, size_t slot, uint32_t bucket[9],
                            const int dims) {
  uint32_t cell[3] = {0, 0, 0};
  for (int k = 0; k < dims; k++)
    cell[k] = cs_cell(g->pos[k][slot], g->inv_cell);
  const uint32_t x = cell[0], y = cell[1], z = cell[2];
  cell[0] = x - 1u;
  int r = 0;
  for (int dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); dz++)
    for (int dy = -1; dy <= 1; dy++, r++) {
      cell[1] = y + (uint32_t)dy;
      cell[2] = z + (uint32_t)dz;
      bucket[r] = cs_bucket(cell, dims, g->bucket_mask);
    }
}

CS_INLINE void prefetch_rows(const crowdsteer_grid *g, size_t first, const int dims) {
  uint32_t bucket[9];
  if (first + AHEAD < g->count) {
    rows_buckets(g, first + AHEAD, bucket, dims);
    for (int r = 0; r < ROWS(dims); r++)
      __builtin_prefetch(g->start + bucket[r]);
  }
  if (first + AHEAD / 2 < g->count) {
    rows_buckets(g, first + AHEAD / 2, bucket, dims);
    for (int r = 0; r < ROWS(dims); r++) {
      const uint32_t from = g->start[bucket[r]];
      for (int k = 0; k < dims; k++) {
        __builtin_prefetch(g->pos[k] + from);
        __builtin_prefetch(g->pos[k] + from + 16);
      }
    }
  }
}

/* The job's slots W at a time; with `large` (a big grid) the outputs and
 * the rows ahead prefetched. */
CS_INLINE void rows_walk(const cs_nb_job *job, size_t begin, size_t end, const int dims,
                         const cs_nb_behaviour behaviour, const int large) {
  const size_t last = job->slot_last;
  size_t ahead = job->slot_first;
  for (size_t first = job->slot_first; first < last; first += W) {
    const size_t n = last - first < W ? last - first : W;
    if (large) prefetch_outputs(job, &ahead, first, n, begin, end, dims);
    const uint32_t todo = todo_slots(job, first, n, begin, end, 0);
    /* FLOCK: the slots its alignment wants (the same without a selection). */
    const uint32_t todo_aligned = behaviour != FLOCK || !job->aligned->lane_select
                                      ? todo
                                      : todo_slots(job->aligned, first, n, begin, end, 0);
    if (large) prefetch_rows(job->grid, first, dims);
    if (todo | todo_aligned)
      rows_group(job, first, n, todo, todo_aligned, dims, behaviour);
  }
}

/* Two copies of the walk: the prefetching of rows changed the code of the
 * walk around it enough to cost 13 % where it is not needed. */
CS_INLINE void run_rows(const cs_nb_job *job, size_t begin, size_t end, const int dims,
                        const cs_nb_behaviour behaviour) {
  if (job->grid->count >= PREFETCH_ROWS_FROM)
    rows_walk(job, begin, end, dims, behaviour, 1);
  else
    rows_walk(job, begin, end, dims, behaviour, 0);
}

/* The walk: agent by agent over rows of cells or in tiles (see the top of
 * this file), unless the table is too small to tell a query's cells apart
 * (then every agent scans the whole batch on its own). */
CS_INLINE void walk(const cs_nb_job *job, size_t begin, size_t end, const int dims,
                    const cs_nb_behaviour behaviour) {
  if (!job->grid->scan_all) {
    /* Agents one by one where a vector holds enough candidates to pay (W
     * of 4 holds about a third of a row: tiles are faster there);
     * alignment only with its parts ready (kernel()). */
    if (W >= 8 && behaviour != CS_NB_ALIGNMENT && cs_nb_plain(job))
      run_rows(job, begin, end, dims, behaviour);
    else
      run_lanes(job, begin, end, dims, behaviour);
    return;
  }
  for (size_t slot = job->slot_first; slot < job->slot_last; slot++)
    if (wanted(job, job->grid->index[slot], begin, end))
      evaluate(job, slot, dims, behaviour);
}

/* One copy of the walk per shape: constant dims and behaviour let the
 * compiler drop every test on them from the loops. */
CS_NOINLINE static void separation_2d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 2, CS_NB_SEPARATION);
}
CS_NOINLINE static void separation_3d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 3, CS_NB_SEPARATION);
}
CS_NOINLINE static void cohesion_2d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 2, CS_NB_COHESION);
}
CS_NOINLINE static void cohesion_3d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 3, CS_NB_COHESION);
}
CS_NOINLINE static void alignment_2d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 2, CS_NB_ALIGNMENT);
}
CS_NOINLINE static void alignment_3d(const cs_nb_job *job, size_t begin, size_t end) {
  walk(job, begin, end, 3, CS_NB_ALIGNMENT);
}
/* A step's alignment, and its cohesion with one, agent by agent: shapes
 * of their own, so their frames stay off the tiles' (test_limits). */
CS_NOINLINE static void alignment_rows_2d(const cs_nb_job *job, size_t begin,
                                          size_t end) {
  run_rows(job, begin, end, 2, CS_NB_ALIGNMENT);
}
CS_NOINLINE static void alignment_rows_3d(const cs_nb_job *job, size_t begin,
                                          size_t end) {
  run_rows(job, begin, end, 3, CS_NB_ALIGNMENT);
}
CS_NOINLINE static void flock_2d(const cs_nb_job *job, size_t begin, size_t end) {
  run_rows(job, begin, end, 2, FLOCK);
}
CS_NOINLINE static void flock_3d(const cs_nb_job *job, size_t begin, size_t end) {
  run_rows(job, begin, end, 3, FLOCK);
}

static const cs_nb_kernel shapes[CS_NB_COUNT][2] = {
    [CS_NB_SEPARATION] = {separation_2d, separation_3d},
    [CS_NB_COHESION] = {cohesion_2d, cohesion_3d},
    [CS_NB_ALIGNMENT] = {alignment_2d, alignment_3d},
};

static void kernel(const cs_nb_job *job, size_t begin, size_t end) {
  if (!job->grid) { /* the brute force is the scalar definition */
    cs_nb_kernel_scalar(job, begin, end);
    return;
  }
  /* cs_nb_step_run gives parts, and pairs jobs, only where the walk is
   * agent by agent (cs_nb_plain, a backend of 8 or 16 lanes). */
  if (job->aligned) {
    (job->dims == 2 ? flock_2d : flock_3d)(job, begin, end);
    return;
  }
  if (job->vel_high[0]) {
    (job->dims == 2 ? alignment_rows_2d : alignment_rows_3d)(job, begin, end);
    return;
  }
  shapes[job->behaviour][job->dims - 2](job, begin, end);
}

/* ---- alignment's parts for a step ------------------------------------------- */

static void velocity_parts(const float *vel, size_t first, size_t last, uint32_t *high,
                           uint32_t *low) {
  vi h, l;
  size_t i = first;
  for (; last - i >= W; i += W) {
    fixed_parts(v_load(vel + i), &h, &l);
    i_store(high + i, h);
    i_store(low + i, l);
  }
  if (i == last) return;
  float rest[W] = {0};
  uint32_t rest_high[W], rest_low[W];
  memcpy(rest, vel + i, (last - i) * sizeof(float));
  fixed_parts(v_load(rest), &h, &l);
  i_store(rest_high, h);
  i_store(rest_low, l);
  memcpy(high + i, rest_high, (last - i) * sizeof(uint32_t));
  memcpy(low + i, rest_low, (last - i) * sizeof(uint32_t));
}

/* ---- the grid build's bucket keys ------------------------------------------ */

/* cs_bucket of the cells of W agents. */
CS_INLINE vi buckets_of(const float *const pos[3], size_t i, vf inv_cell, vi mask,
                        const int dims) {
  vi cell[3];
  for (int k = 0; k < dims; k++)
    cell[k] = cells_of(v_load(pos[k] + i), inv_cell);
  return bucket_of_cells(cell, mask, dims);
}

CS_INLINE void keys_of(const crowdsteer_grid *g, const float *const pos[3], size_t first,
                       size_t last, uint32_t *keys, const int dims) {
  const vf inv_cell = v_set1(g->inv_cell);
  const vi mask = i_set1(g->bucket_mask);
  size_t i = first;
  for (; i + W <= last; i += W)
    i_store(keys + (i - first), buckets_of(pos, i, inv_cell, mask, dims));
  cs_nb_keys_scalar(g, pos, i, last, keys + (i - first));
}

static void keys(const crowdsteer_grid *g, const float *const pos[3], size_t first,
                 size_t last, uint32_t *out) {
  if (g->dims == 2)
    keys_of(g, pos, first, last, out, 2);
  else
    keys_of(g, pos, first, last, out, 3);
}

/* ---- the grid build's bucket ends ------------------------------------------- */

/* An inclusive prefix sum W counts at a time (the scalar loop is one chain
 * of additions, 2 per agent with the automatic table: 9 % of a build). */
static void ends(uint32_t *counts, size_t n, uint32_t start) {
  vi carry = i_set1(start);
  size_t k = 0;
  for (; k + W <= n; k += W) {
    const vi sums = i_add(i_prefix(i_load(counts + k)), carry);
    i_store(counts + k, sums);
    carry = i_last_lane(sums);
  }
  uint32_t last[W];
  i_store(last, carry);
  cs_nb_ends_scalar(counts + k, n - k, last[0]);
}

const cs_nb_backend CS_NB_KERNEL = {kernel, keys, ends, W >= 8 ? velocity_parts : NULL};
