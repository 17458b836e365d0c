/* Part of the neighbour kernel (see nb_candidates.h): a step's flock
 * (cs_nb_flock, neighbours.h), the agent-by-agent jobs of one step that
 * walk their candidates once: each vector of W candidates is loaded once
 * and its squared distances tested against the widest radius's limit
 * (cs_within_limit: the same test as the distance against the radius);
 * the lanes inside are packed across the agent's runs (flock_pack), and
 * only full packed vectors (and the last, partial one) take the square
 * root, the view (one for every job: the heading is the agent's) and each
 * job's radius, field of view and contribution, exactly as cs_nb_pair.
 * Consecutive agents whose queries cover the same cells share their
 * candidate runs. An agent past a job's nearest-k cap is evaluated again
 * for that job on its own. */
#ifndef CROWDSTEER_NB_FLOCK_H
#define CROWDSTEER_NB_FLOCK_H

#include "kernels/nb_rows.h"

/* One member job's parameters for the agent (the rest of its view is the
 * lead's: the agent as every member sees it) and its sums. */
typedef struct flock_member {
  vf radius, inv_radius, cos_fov, inner;
  int fov; /* a field of view in effect */
  lane_sums acc;
  cs_nb_sum sum;
} flock_member;

/* Member m, of job `job`, for agent i whose view is `lead`. Set field by
 * field: copying a cs_nb_agent just written stalls on store forwarding
 * (a fifth of the walk at 200 boids). */
CS_INLINE void member_of(flock_member *m, const cs_nb_agent *lead, const cs_nb_job *job,
                         size_t i, const int dims) {
  cs_nb_agent own;
  cs_nb_agent_params(&own, job, i);
  m->radius = v_set1(own.radius);
  m->inv_radius = v_set1(own.inv_radius);
  m->cos_fov = v_set1(own.cos_fov);
  m->inner = v_set1(own.inner);
  m->fov = job->use_fov && lead->fov;
  lane_sums_clear(&m->acc, dims);
  m->sum = (cs_nb_sum){{0, 0, 0}, 0};
}

/* Whether behaviour b's lane sums split each contribution in two parts:
 * the default alignment's velocities and Reynolds' separation (d / dd)
 * may reach 2^24. Reynolds' alignment adds headings, within 1.25 in length
 * or NaN (a velocity with an infinite component), which flock_add adds as
 * 0 the way cs_fixed does: one part is exact, and half the lane sums to add
 * up (1,000 boids 1.04x faster). The others are within 1.25, as in span_sum. */
CS_INLINE int flock_split(const cs_nb_behaviour b, const int reynolds) {
  return (!reynolds && b == CS_NB_ALIGNMENT) || (reynolds && b == CS_NB_SEPARATION);
}

/* Member b's neighbours among the lanes `in` (within the widest radius,
 * not the agent, past the group filter), added to its lane sums. */
CS_INLINE void flock_add(flock_member *m, const cs_nb_agent *lead, const source *src,
                         size_t j, vmask in, const vf d[3], vf dist, vf view, vi index,
                         const int dims, const cs_nb_behaviour b, const int reynolds) {
  in = m_and(in, v_lt(dist, m->radius));
  const vmask apart = v_gt(dist, v_zero());
  if (m->fov) {
    const vmask close = m_or(m_not(apart), v_lt(dist, m->inner));
    in = m_and(in, m_or(close, v_le(m->cos_fov, view)));
  }
  if (!m_any(in)) return;
  if (b == CS_NB_SEPARATION) {
    const vmask coincident = m_andnot(in, apart);
    if (m_any(coincident)) {
      add_coincident(lead, index, coincident, &m->sum);
      in = m_and(in, apart);
    }
  }
  const int split = flock_split(b, reynolds);
  m->sum.n += (uint32_t)m_count(in);
  agent_lanes l; /* what contributions reads of it */
  l.radius = m->radius;
  l.inv_radius = m->inv_radius;
  vf c[3];
  contributions(lead, &l, src, j, d, dist, c, dims, b);
  if (reynolds && b == CS_NB_ALIGNMENT)
    for (int k = 0; k < dims; k++) /* NaN as 0, as cs_fixed */
      c[k] = v_keep(m_not(v_ne(c[k], c[k])), c[k]);
  for (int k = 0; k < dims; k++)
    add_fixed(&m->acc, k, c[k], in, split);
  if (++m->acc.vectors == FLUSH_EVERY) lane_sums_flush(&m->acc, &m->sum, dims, split);
}

/* An agent's neighbours within the widest radius, packed from its
 * candidate runs (d = p_i - p_q, index, velocity) until W of them fill a
 * vector: at 1,000 boids an agent reads 9 runs of mostly empty vectors for
 * about 8 such neighbours, and the square root, view and contributions
 * ran on each of them. Each lane still performs cs_nb_pair's operations
 * on its own pair, and the sums are exact, so packing changes no bit.
 * Room for W - 1 held and W more written. */
typedef struct flock_pack {
  float d[3][2 * W], vel[3][2 * W];
  uint32_t index[2 * W];
  unsigned count;
} flock_pack;

/* The first n packed lanes (1 <= n <= W) for the members of `want`; with
 * `view`, some member has a field of view in effect. */
CS_INLINE void flock_vector(flock_member m[CS_NB_COUNT], const cs_nb_agent *lead,
                            unsigned want, int view, const vf heading[3],
                            const flock_pack *pk, unsigned n, const int dims,
                            const int reynolds) {
  vf d[3];
  for (int k = 0; k < dims; k++)
    d[k] = v_load(pk->d[k]);
  vf dd = v_mul(d[0], d[0]); /* the walk's own operations: the same bits */
  for (int k = 1; k < dims; k++)
    dd = v_add(dd, v_mul(d[k], d[k]));
  const vmask in = m_first(n);
  const vi index = i_load(pk->index);
  const vf dist = v_sqrt(dd);
  vf cos_view = v_zero();
  if (view) {
    cos_view = v_mul(heading[0], v_div(v_sub(v_zero(), d[0]), dist));
    for (int k = 1; k < dims; k++)
      cos_view = v_add(cos_view, v_mul(heading[k], v_div(v_sub(v_zero(), d[k]), dist)));
  }
  const source src = {
      {NULL, NULL, NULL}, {pk->vel[0], pk->vel[1], pk->vel[2]}, NULL, pk->index};
  /* One copy per behaviour (a loop over them stays a loop). */
  if (want & (1u << CS_NB_SEPARATION))
    flock_add(&m[CS_NB_SEPARATION], lead, &src, 0, in, d, dist, cos_view, index, dims,
              CS_NB_SEPARATION, reynolds);
  if (want & (1u << CS_NB_COHESION))
    flock_add(&m[CS_NB_COHESION], lead, &src, 0, in, d, dist, cos_view, index, dims,
              CS_NB_COHESION, reynolds);
  if (want & (1u << CS_NB_ALIGNMENT))
    flock_add(&m[CS_NB_ALIGNMENT], lead, &src, 0, in, d, dist, cos_view, index, dims,
              CS_NB_ALIGNMENT, reynolds);
}

/* The lanes of candidates [j, j + W) of `src` (before `last`) within the
 * widest radius (cs_within_limit: the same test as the distance against
 * the radius), not the agent, past the group filter; d = p - p_q. With
 * `skip_empty` (the caller skips a vector with no lane inside) the filters
 * are not read when the radius leaves none (200 boids 1.03x). */
CS_INLINE vmask flock_lanes(const cs_nb_agent *lead, const vf p[3], vf within, vi self,
                            vi mask, const source *src, size_t j, size_t last, vf d[3],
                            vi *index, const int skip_empty, const int dims) {
  for (int k = 0; k < dims; k++)
    d[k] = v_sub(p[k], v_load(src->pos[k] + j));
  vf dd = v_mul(d[0], d[0]);
  for (int k = 1; k < dims; k++)
    dd = v_add(dd, v_mul(d[k], d[k]));
  vmask in = v_lt(dd, within);
  if (last - j < W) in = m_and(in, m_first(last - j));
  if (skip_empty && !m_any(in)) return in; /* index unread: the caller skips */
  *index = i_load(src->index + j);
  in = m_andnot(in, i_eq(*index, self));
  if (lead->use_mask) in = m_and(in, i_any_common(i_load(src->group + j), mask));
  return in;
}

/* The agent `lead` (at p) against candidates [first, last) of `src`: the
 * lanes inside (flock_lanes) are packed; each full vector is evaluated for
 * the members of `want`. */
CS_INLINE void flock_span(flock_member m[CS_NB_COUNT], flock_pack *pk,
                          const cs_nb_agent *lead, unsigned want, int view, const vf p[3],
                          const vf heading[3], vf within, const source *src, size_t first,
                          size_t last, const int skip_empty, const int dims,
                          const int reynolds) {
  const vi self = i_set1(lead->index), mask = i_set1(lead->mask);
  const int velocities = (want >> CS_NB_ALIGNMENT) & 1u;
  for (size_t j = first; j < last; j += W) {
    vf d[3];
    vi index;
    const vmask in = flock_lanes(lead, p, within, self, mask, src, j, last, d, &index,
                                 skip_empty, dims);
    /* In cells about half the vectors have a neighbour, at random: where
     * packing is a few register operations, packing none costs less than
     * the branch mispredicted (1,000 boids 4.6 % faster with AVX-512). A
     * whole small grid has few, and skips them (200 boids 1.2x faster). */
    if (skip_empty && !m_any(in)) continue;
    const unsigned at = pk->count;
    for (int k = 0; k < dims; k++)
      v_pack(pk->d[k] + at, in, d[k]);
    if (velocities)
      for (int k = 0; k < dims; k++)
        v_pack(pk->vel[k] + at, in, v_load(src->vel[k] + j));
    i_pack(pk->index + at, in, index);
    pk->count = at + (unsigned)m_count(in);
    if (pk->count < W) continue;
    flock_vector(m, lead, want, view, heading, pk, W, dims, reynolds);
    pk->count -= W; /* the rest (fewer than W) to the front */
    for (int k = 0; k < dims; k++) {
      v_store(pk->d[k], v_load(pk->d[k] + W));
      if (velocities) v_store(pk->vel[k], v_load(pk->vel[k] + W));
    }
    i_store(pk->index, i_load(pk->index + W));
  }
}

/* With AVX-512, where the grid's slots fit int32 lanes: the slots of the
 * lanes inside are packed in a register (compress, then rotated into place
 * after those already held) and a full vector's positions, velocities and
 * indices gathered from the grid. Packing the seven arrays through memory
 * cost seven compresses a candidate vector, and each full vector's loads
 * waited on stores of other widths (store forwarding). d = p - p_q is the
 * scan's own operation on the same values: the same bits. */
#if CS_LANES == 16 && defined(__AVX512F__)
#define CS_FLOCK_GATHER 1
CS_INLINE void flock_gather(flock_pack *pk, vi slots, const vf p[3], const source *src,
                            unsigned n, int velocities, const int dims) {
  const vmask in = m_first(n);
  for (int k = 0; k < dims; k++) {
    v_store(pk->d[k],
            v_sub(p[k], _mm512_mask_i32gather_ps(v_zero(), in, slots, src->pos[k], 4)));
    if (velocities)
      v_store(pk->vel[k], _mm512_mask_i32gather_ps(v_zero(), in, slots, src->vel[k], 4));
  }
  i_store(pk->index, _mm512_mask_i32gather_epi32(i_zero(), in, slots, src->index, 4));
}

CS_INLINE void flock_span_gather(flock_member m[CS_NB_COUNT], flock_pack *pk, vi *slots,
                                 const cs_nb_agent *lead, unsigned want, int view,
                                 const vf p[3], const vf heading[3], vf within,
                                 const source *src, size_t first, size_t last,
                                 const int dims, const int reynolds) {
  const vi self = i_set1(lead->index), mask = i_set1(lead->mask), iota = i_iota();
  const int velocities = (want >> CS_NB_ALIGNMENT) & 1u;
  for (size_t j = first; j < last; j += W) {
    vf d[3];
    vi index;
    const vmask in =
        flock_lanes(lead, p, within, self, mask, src, j, last, d, &index, 0, dims);
    const vi packed = _mm512_maskz_compress_epi32(in, i_add(i_set1((uint32_t)j), iota));
    const unsigned at = pk->count;
    const vi shifted = _mm512_permutexvar_epi32(
        _mm512_and_si512(_mm512_sub_epi32(iota, i_set1(at)), i_set1(W - 1)), packed);
    *slots = _mm512_mask_blend_epi32((__mmask16)(0xFFFFu << at), *slots, shifted);
    pk->count = at + (unsigned)m_count(in);
    if (pk->count < W) continue;
    flock_gather(pk, *slots, p, src, W, velocities, dims);
    flock_vector(m, lead, want, view, heading, pk, W, dims, reynolds);
    pk->count -= W;
    *slots = shifted; /* the rest (fewer than W) from lane 0 */
  }
}
#else
#define CS_FLOCK_GATHER 0
#endif

/* Lanes where m is set from a, the others from b. */
CS_INLINE simde__m128 u4_select(simde__m128 m, simde__m128 a, simde__m128 b) {
  return simde_mm_or_ps(simde_mm_and_ps(m, a), simde_mm_andnot_ps(m, b));
}

/* cs_nb_steering in Reynolds' form for the members of `live`, member b in
 * lane b of one 4-lane vector per axis: each lane performs the scalar
 * rule's IEEE operations in its order, so the same bits, with one square
 * root and six divisions for the three members where the scalar rule took
 * four and twelve (1,000 boids 1.03x faster). The agent's own
 * heading cs_unit(v) is the lead's (cs_nb_agent_init computes it by the
 * same operations) when its job has a field of view. */
CS_INLINE void flock_units(const flock_member m[CS_NB_COUNT], unsigned live,
                           const cs_nb_agent *lead, int lead_heading,
                           float s[CS_NB_COUNT][3], const int dims) {
  /* Lanes built from registers (setr): scalar stores read back as one
   * vector would stall on store forwarding. */
  float c[CS_NB_COUNT][3] = {{0.0f}};
  int in[CS_NB_COUNT];
  for (int b = 0; b < CS_NB_COUNT; b++) {
    in[b] = (live >> b & 1u) && m[b].sum.n;
    for (int k = 0; k < dims; k++)
      c[b][k] = in[b] ? cs_unfixed(m[b].sum.s[k]) : 0.0f;
  }
  float own[3] = {0.0f, 0.0f, 0.0f}, count = 1.0f;
  const int align = in[CS_NB_ALIGNMENT];
  if (align) {
    count = (float)m[CS_NB_ALIGNMENT].sum.n;
    if (lead_heading)
      for (int k = 0; k < dims; k++)
        own[k] = lead->heading[k];
    else
      cs_unit(lead->v, dims, own);
  }
  const simde__m128 n = simde_mm_setr_ps(1.0f, 1.0f, count, 1.0f);
  const simde__m128 align_lane =
      simde_mm_castsi128_ps(simde_mm_setr_epi32(0, 0, align ? -1 : 0, 0));
  simde__m128 x[3];
  for (int k = 0; k < dims; k++) {
    x[k] = simde_mm_setr_ps(c[CS_NB_SEPARATION][k], c[CS_NB_COHESION][k],
                            c[CS_NB_ALIGNMENT][k], 0.0f);
    const simde__m128 mean_less_own =
        simde_mm_sub_ps(simde_mm_div_ps(x[k], n), simde_mm_set1_ps(own[k]));
    x[k] = u4_select(align_lane, mean_less_own, x[k]);
  }
  simde__m128 xx = simde_mm_mul_ps(x[0], x[0]);
  for (int k = 1; k < dims; k++)
    xx = simde_mm_add_ps(xx, simde_mm_mul_ps(x[k], x[k]));
  const simde__m128 l = simde_mm_sqrt_ps(xx);
  const simde__m128 keep =
      simde_mm_and_ps(simde_mm_castsi128_ps(simde_mm_setr_epi32(
                          in[0] ? -1 : 0, in[1] ? -1 : 0, in[2] ? -1 : 0, 0)),
                      simde_mm_cmpgt_ps(l, simde_mm_setzero_ps()));
  float unit[3][4] = {{0.0f}};
  for (int k = 0; k < dims; k++)
    simde_mm_storeu_ps(unit[k], simde_mm_and_ps(keep, simde_mm_div_ps(x[k], l)));
  for (int b = 0; b < CS_NB_COUNT; b++)
    for (int k = 0; k < 3; k++)
      s[b][k] = unit[k][b];
}

/* A job's agent on its own (past its cap in a flock): not inlined, rare. */
CS_NOINLINE static void flock_alone(const cs_nb_job *job, size_t slot) {
  if (job->dims == 2)
    evaluate(job, slot, 2, job->behaviour);
  else
    evaluate(job, slot, 3, job->behaviour);
}

/* Whether agent a's query covers cells lo .. hi (and fills them). */
CS_INLINE int same_cells(const crowdsteer_grid *g, const float p[3], float radius,
                         uint32_t lo[3], uint32_t hi[3], const int dims) {
  int same = 1;
  for (int k = 0; k < dims; k++) {
    const uint32_t l = cs_cell(p[k] - radius, g->inv_cell);
    const uint32_t h = cs_cell(p[k] + radius, g->inv_cell);
    same &= (l == lo[k]) & (h == hi[k]);
    lo[k] = l;
    hi[k] = h;
  }
  return same;
}

enum { FLOCK_CHUNK = 32 /* slots ordered at a time (bits of a word) */ };

CS_INLINE void flock_walk(const cs_nb_flock *f, size_t begin, size_t end, const int dims,
                          const int reynolds) {
  const cs_nb_job *job[CS_NB_COUNT] = {NULL, NULL, NULL};
  for (int k = 0; k < f->count; k++)
    job[f->job[k]->behaviour] = f->job[k];
  const cs_nb_job *wide = f->job[f->widest];
  const crowdsteer_grid *g = wide->grid;
  const vf within = v_set1(wide->within);
  const int whole_grid = cs_nb_whole_grid(g);
  const int skip_empty = !CS_PACK_IN_REGISTERS || whole_grid;
#if CS_FLOCK_GATHER
  const int by_gather = !skip_empty && g->count <= (size_t)INT32_MAX - W;
#endif
  cs_nb_rows rows;
  flock_pack pk; /* every lane defined: lanes past the packed ones are read */
  memset(&pk, 0, sizeof pk);
  /* Cells no query covers (a coordinate's cell is at most 2^22 after the
   * bias): the first agent computes its runs. */
  uint32_t lo[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX}, hi[3] = {0, 0, 0};
  /* Slots in chunks, each chunk's agents taken by where their query box
   * starts (the parity of its low cell on each axis): agents of one cell
   * in different halves of it alternate in slot order, and each change of
   * box took a cs_nb_rows_for (16 % of the walk at 1,000 boids, cells twice
   * the radius). Agents are independent, so the order changes no bit. */
  for (size_t chunk = f->slot_first; chunk < f->slot_last; chunk += FLOCK_CHUNK) {
    const size_t chunk_size =
        f->slot_last - chunk < FLOCK_CHUNK ? f->slot_last - chunk : FLOCK_CHUNK;
    uint32_t by_box[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (whole_grid) /* one run for every agent: slot order */
      by_box[0] = (uint32_t)(((uint64_t)1 << chunk_size) - 1u);
    for (size_t t = 0; !whole_grid && t < chunk_size; t++) {
      unsigned box = 0;
      for (int k = 0; k < dims; k++)
        box |= (cs_cell(g->pos[k][chunk + t] - wide->radius.value, g->inv_cell) & 1u)
               << k;
      by_box[box] |= 1u << t;
    }
    for (int box = 0; box < 8; box++)
      for (uint32_t todo = by_box[box]; todo; todo &= todo - 1) {
        const size_t slot = chunk + (unsigned)__builtin_ctz(todo);
        const uint32_t i = g->index[slot];
        unsigned want = 0;
        for (int b = 0; b < CS_NB_COUNT; b++)
          if (job[b] && wanted(job[b], i, begin, end)) want |= 1u << b;
        if (!want) continue;
        /* The agent as a member with a field of view sees it (its heading
         * computed once; the rest is every member's), then each member's
         * parameters. */
        int lead_job = __builtin_ctz(want);
        for (int b = 0; b < CS_NB_COUNT; b++)
          if ((want & (1u << b)) && job[b]->use_fov) lead_job = b;
        cs_nb_agent lead;
        slot_agent(job[lead_job], slot, &lead, dims);
        flock_member m[CS_NB_COUNT];
        int view = 0;
        for (int b = 0; b < CS_NB_COUNT; b++)
          if (want & (1u << b)) {
            member_of(&m[b], &lead, job[b], i, dims);
            view |= m[b].fov;
          }
        if (!same_cells(g, lead.p, wide->radius.value, lo, hi, dims))
          cs_nb_rows_in_cells(g, lo, hi, dims, &rows);
        const source src = {{rows.pos[0], rows.pos[1], rows.pos[2]},
                            {rows.vel[0], rows.vel[1], rows.vel[2]},
                            rows.group,
                            rows.index};
        vf p[3], heading[3];
        for (int k = 0; k < dims; k++) {
          p[k] = v_set1(lead.p[k]);
          heading[k] = v_set1(lead.heading[k]);
        }
        pk.count = 0;
#if CS_FLOCK_GATHER
        vi slots = i_zero();
        if (by_gather) {
          for (int r = 0; r < rows.count; r++)
            flock_span_gather(m, &pk, &slots, &lead, want, view, p, heading, within, &src,
                              rows.first[r], rows.last[r], dims, reynolds);
          if (pk.count)
            flock_gather(&pk, slots, p, &src, pk.count, (want >> CS_NB_ALIGNMENT) & 1u,
                         dims);
        } else
#endif
          for (int r = 0; r < rows.count; r++)
            if (skip_empty) /* a copy each: a flag tested in the loop cost 12 % */
              flock_span(m, &pk, &lead, want, view, p, heading, within, &src,
                         rows.first[r], rows.last[r], 1, dims, reynolds);
            else
              flock_span(m, &pk, &lead, want, view, p, heading, within, &src,
                         rows.first[r], rows.last[r], 0, dims, reynolds);
        if (pk.count)
          flock_vector(m, &lead, want, view, heading, &pk, pk.count, dims, reynolds);
        unsigned capped = 0;
        for (int b = 0; b < CS_NB_COUNT; b++) {
          if (!(want & (1u << b))) continue;
          lane_sums_flush(&m[b].acc, &m[b].sum, dims,
                          flock_split((cs_nb_behaviour)b, reynolds));
          if (m[b].sum.n > job[b]->cap) capped |= 1u << b;
        }
        float s[CS_NB_COUNT][3];
        if (reynolds)
          flock_units(m, want & ~capped, &lead, job[lead_job]->use_fov, s, dims);
        for (int b = 0; b < CS_NB_COUNT; b++) { /* in order: the writes may add up */
          if (!(want & (1u << b))) continue;
          if (capped & (1u << b)) {
            flock_alone(job[b], slot);
            continue;
          }
          if (!reynolds)
            cs_nb_steering(job[b], &lead, &m[b].sum, i, s[b]); /* reads lead.v */
          cs_nb_write(job[b], i, s[b]);
        }
      }
  }
}

#endif /* CROWDSTEER_NB_FLOCK_H */
