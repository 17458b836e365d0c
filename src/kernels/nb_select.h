/* Part of the neighbour kernel (see nb_candidates.h): the nearest-k cap
 * past CS_NB_NEAREST neighbours, the passes of query.c's radix selection
 * (cs_nb_select_run) W candidates at a time: a lane's key is its
 * distance's bits, computed as cs_nb_pair computes the distance
 * (neighbour_lanes), over the candidate's id. Nothing else is stored: the
 * few members kept are evaluated again by the scalar cs_nb_pair, whose
 * bits every lane has. */
#ifndef CROWDSTEER_NB_SELECT_H
#define CROWDSTEER_NB_SELECT_H

#include "kernels/nb_candidates.h"

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
  const int split = split_sums(a, behaviour);
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
    vmask adding = m_from_bits(add);
    if (behaviour == CS_NB_SEPARATION) {
      const vmask coincident = m_andnot(adding, apart);
      if (m_any(coincident)) {
        add_coincident(a, index, coincident, sum);
        adding = m_and(adding, apart);
      }
    }
    sum->n += (uint32_t)m_count(adding);
    vf c[3];
    contributions(a, l, src, j, d, dist, c, dims, behaviour);
    for (int k = 0; k < dims; k++)
      add_fixed(&state->u.acc, k, c[k], adding, split);
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
  const int split = split_sums(a, behaviour);
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

#endif /* CROWDSTEER_NB_SELECT_H */
