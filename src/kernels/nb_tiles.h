/* Part of the neighbour kernel (see nb_candidates.h): agents in lanes.
 * A tile of up to W agents of one cell row (consecutive slots of the
 * grid) runs with one agent per lane against each candidate in turn: every
 * per-agent step (the sums, their reduction, the count, the radius, group
 * and field-of-view filters) is a lane of a vector, and the candidates are
 * the tile's rows of cells read in place, with no copy. Each lane performs
 * exactly cs_nb_pair's operations, as span_sum does for one agent. */
#ifndef CROWDSTEER_NB_TILES_H
#define CROWDSTEER_NB_TILES_H

#include "kernels/nb_finish.h"

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
      low[k] = i_add(low[k], i_round_even_small(v_keep(in, v_mul(d[k], w))));
  } else {
    for (int k = 0; k < dims; k++)
      low[k] =
          i_add(low[k],
                i_round_even_small(v_mul(v_keep(in, v_div(v_sub(v_zero(), d[k]), radius)),
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

#endif /* CROWDSTEER_NB_TILES_H */
