/* Part of the neighbour kernel (see nb_candidates.h): one agent's
 * steering from its sum, the nearest-k cap applied (kept and summed up to
 * CS_NB_NEAREST neighbours, the selection past it); an agent on its own
 * against its candidate runs (whose query leaves the cells around its own,
 * past the cap, or in a grid too small to tell cells apart); and what both
 * walks ask of a group of slots (which are wanted, which queries the block
 * around their cell covers). */
#ifndef CROWDSTEER_NB_FINISH_H
#define CROWDSTEER_NB_FINISH_H

#include "kernels/nb_select.h"

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
  cs_nb_agent_init_dims(a, job, g->index[slot], p, v, dims);
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
    vf cv[3];
    contributions(a, &l, src, j, d, dist, cv, dims, behaviour);
    for (int k = 0; k < dims; k++)
      v_store(c[k], cv[k]);
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

#endif /* CROWDSTEER_NB_FINISH_H */
