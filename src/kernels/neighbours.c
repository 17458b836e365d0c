/* The neighbour kernel, compiled once per ISA like kernels.c: agents are
 * taken cell by cell in the grid's order; the candidates of a cell's 3^dims
 * block of cells are copied once into a small contiguous buffer, and every
 * agent of the cell runs over that buffer W candidates at a time. Each lane
 * performs exactly the scalar operations of cs_nb_pair (neighbours.h) and
 * adds its rounded contribution to 32-bit lane sums that are flushed into
 * the 64-bit totals before they could overflow, so the totals, and the
 * steering, are the scalar bits. The nearest-k selection, the brute force
 * (no grid) and the final per-agent formulas are the shared scalar code. */
#include <string.h>

#include "kernels/vec_nb.h"
#include "neighbours/neighbours.h"

#ifndef CS_NB_KERNEL
#error "define CS_NB_KERNEL (the kernel's name) when compiling a kernel object"
#endif

enum {
  /* Candidates one cell's buffer holds (a 3D alignment buffer is 8 KiB). */
  BUFFER = CS_NB_BUFFER_CANDIDATES,
  /* Vectors added into the 32-bit lane sums between flushes: a lane adds
   * at most 1.25 * 2^24 per vector (separation and cohesion contributions
   * are within 1.25 in length, alignment's are split in two parts below
   * 2^24), so 64 vectors stay below 2^31. */
  FLUSH_EVERY = 64
};

/* Where candidates are read from: the grid's arrays or the cell buffer. */
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
    const uint32_t q = qi[__builtin_ctz(bits)];
    sum->s[0] +=
        a->id < cs_agent_id(a->ids, q) ? -((int64_t)1 << 24) : ((int64_t)1 << 24);
    sum->n++;
  }
}

/* A contribution component as cs_fixed does it, for lanes that are in. */
CS_INLINE void add_fixed(lane_sums *acc, int k, vf c, vmask in, int split) {
  c = v_select(in, c, v_zero());
  if (!split) { /* |c| < 1.25: c * 2^24 fits an int32 */
    acc->low[k] = i_add(acc->low[k], i_round_even(v_mul(c, v_set1(0x1p24f))));
    return;
  }
  c = v_select(v_ne(c, c), v_zero(), c); /* NaN counts as 0 */
  c = v_select(v_lt(c, v_set1(0x1p24f)), c, v_set1(0x1p24f));
  c = v_select(v_gt(c, v_set1(-0x1p24f)), c, v_set1(-0x1p24f));
  /* c * 2^24 = high * 2^24 + low, high = trunc(c), both parts exact. */
  const vi high = i_from_float_trunc(c);
  const vf low =
      v_sub(v_mul(c, v_set1(0x1p24f)), v_mul(i_to_float(high), v_set1(0x1p24f)));
  acc->high[k] = i_add(acc->high[k], high);
  acc->low[k] = i_add(acc->low[k], i_round_even(low));
}

/* Agent a against candidates [first, last) of `src`, into `sum`. */
CS_INLINE void span_sum(const cs_nb_agent *a, const source *src, size_t first,
                        size_t last, cs_nb_sum *sum, const int dims,
                        const cs_nb_behaviour behaviour) {
  const int split = behaviour == CS_NB_ALIGNMENT;
  vf p[3], heading[3];
  for (int k = 0; k < dims; k++) {
    p[k] = v_set1(a->p[k]);
    heading[k] = v_set1(a->heading[k]);
  }
  const vf radius = v_set1(a->radius), inv_radius = v_set1(a->inv_radius);
  const vf cos_fov = v_set1(a->cos_fov);
  const vi self = i_set1(a->index), mask = i_set1(a->mask);
  lane_sums acc;
  lane_sums_clear(&acc, dims);
  for (size_t j = first; j < last; j += W) {
    const size_t n = last - j < W ? last - j : W;
    /* Whole vectors: every source has W readable elements past its end
     * (the grid's arrays and the cell buffer are padded); lanes past the
     * span are masked off below. */
    vf d[3];
    for (int k = 0; k < dims; k++)
      d[k] = v_sub(p[k], v_load(src->pos[k] + j));
    vf dd = v_mul(d[0], d[0]);
    for (int k = 1; k < dims; k++)
      dd = v_add(dd, v_mul(d[k], d[k]));
    const vf dist = v_sqrt(dd);
    vmask in = v_lt(dist, radius);
    if (n < W) in = m_and(in, v_lt(i_to_float(i_iota()), v_set1((float)n)));
    const vi index = i_load(src->index + j);
    in = m_andnot(in, i_eq(index, self));
    if (!m_any(in)) continue;
    if (a->use_mask) in = m_and(in, i_any_common(i_load(src->group + j), mask));
    const vmask apart = v_gt(dist, v_zero());
    if (a->fov) {
      vf view = v_mul(heading[0], v_div(v_sub(v_zero(), d[0]), dist));
      for (int k = 1; k < dims; k++)
        view = v_add(view, v_mul(heading[k], v_div(v_sub(v_zero(), d[k]), dist)));
      in = m_and(in, m_or(m_not(apart), v_le(cos_fov, view)));
    }
    if (behaviour == CS_NB_SEPARATION) {
      const vmask coincident = m_andnot(in, apart);
      if (m_any(coincident)) {
        add_coincident(a, index, coincident, sum);
        in = m_and(in, apart);
      }
    }
    sum->n += (uint32_t)m_count(in);
    if (behaviour == CS_NB_SEPARATION) {
      const vf w = v_sub(v_div(v_set1(1.0f), dist), inv_radius);
      for (int k = 0; k < dims; k++)
        add_fixed(&acc, k, v_mul(d[k], w), in, 0);
    } else if (behaviour == CS_NB_COHESION) {
      for (int k = 0; k < dims; k++)
        add_fixed(&acc, k, v_div(v_sub(v_zero(), d[k]), radius), in, 0);
    } else {
      for (int k = 0; k < dims; k++)
        add_fixed(&acc, k, v_load(src->vel[k] + j), in, 1);
    }
    if (++acc.vectors == FLUSH_EVERY) lane_sums_flush(&acc, sum, dims, split);
  }
  lane_sums_flush(&acc, sum, dims, split);
}

/* The candidates of the 3^dims cells around `cell`, copied into `buffer`;
 * 0 if they do not fit (or the table cannot tell the cells apart). */
typedef struct cell_buffer {
  float pos[3][BUFFER + W], vel[3][BUFFER + W];
  uint32_t group[BUFFER + W], index[BUFFER + W];
  size_t count;
} cell_buffer;

CS_INLINE int fill_buffer(const cs_nb_job *job, const uint32_t cell[3], cell_buffer *buf,
                          const int dims, const cs_nb_behaviour behaviour) {
  const crowdsteer_grid *g = job->grid;
  if (g->scan_all) return 0;
  size_t first[27], last[27];
  int rows = 0;
  size_t total = 0;
  uint32_t c[3] = {0, 0, 0};
  const uint32_t z_from = dims == 3 ? cell[2] - 1u : 0u,
                 z_to = dims == 3 ? cell[2] + 1u : 0u;
  for (c[2] = z_from;; c[2]++) {
    for (c[1] = cell[1] - 1u; c[1] != cell[1] + 2u; c[1]++)
      for (c[0] = cell[0] - 1u; c[0] != cell[0] + 2u; c[0]++) {
        const uint32_t b = cs_bucket(c, dims, g->bucket_mask);
        const size_t from = g->start[b], to = g->start[b + 1];
        if (from == to) continue;
        if (rows && last[rows - 1] == from) {
          last[rows - 1] = to;
        } else {
          first[rows] = from;
          last[rows++] = to;
        }
        total += to - from;
      }
    if (c[2] == z_to) break;
  }
  if (total > BUFFER) return 0;
  size_t at = 0;
  for (int r = 0; r < rows; r++) {
    const size_t n = last[r] - first[r];
    /* Vector copies: a row is a few agents, memcpy calls would dominate;
     * the buffer has room for a whole vector past its count. */
    for (size_t j = 0; j < n; j += W) { /* whole vectors: see span_sum */
      const size_t from = first[r] + j, to = at + j;
      for (int k = 0; k < dims; k++) {
        v_store(buf->pos[k] + to, v_load(g->pos[k] + from));
        if (behaviour == CS_NB_ALIGNMENT)
          v_store(buf->vel[k] + to, v_load(g->vel[k] + from));
      }
      i_store(buf->index + to, i_load(g->index + from));
      if (job->use_mask) i_store(buf->group + to, i_load(g->group + from));
    }
    at += n;
  }
  buf->count = at;
  return 1;
}

_Static_assert(sizeof(cell_buffer) <= CS_NB_BUFFER_BYTES, "cell buffer size");

CS_INLINE void cell_of(const crowdsteer_grid *g, size_t slot, uint32_t cell[3],
                       int dims) {
  cell[2] = 0;
  for (int k = 0; k < dims; k++)
    cell[k] = cs_cell(g->pos[k][slot], g->inv_cell);
}

/* Whether agent a's own cell range lies in the block around `cell`, so the
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

CS_INLINE void evaluate(const cs_nb_job *job, size_t slot, const cell_buffer *buf,
                        int buffered, const uint32_t cell[3], const int dims,
                        const cs_nb_behaviour behaviour) {
  const crowdsteer_grid *g = job->grid;
  const size_t i = g->index[slot];
  float p[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  for (int k = 0; k < dims; k++) {
    p[k] = g->pos[k][slot];
    v[k] = g->vel[k][slot];
  }
  cs_nb_agent a;
  cs_nb_agent_init(&a, job, i, p, v);
  cs_nb_sum sum;
  memset(&sum, 0, sizeof sum);
  cs_nb_rows rows;
  rows.count = -1;
  if (buffered && block_covers(g, &a, cell, dims)) {
    const source src = {{buf->pos[0], buf->pos[1], buf->pos[2]},
                        {buf->vel[0], buf->vel[1], buf->vel[2]},
                        buf->group,
                        buf->index};
    span_sum(&a, &src, 0, buf->count, &sum, dims, behaviour);
  } else {
    cs_nb_rows_for(job, &a, &rows);
    const source src = {{rows.pos[0], rows.pos[1], rows.pos[2]},
                        {rows.vel[0], rows.vel[1], rows.vel[2]},
                        rows.group,
                        rows.index};
    for (int r = 0; r < rows.count; r++)
      span_sum(&a, &src, rows.first[r], rows.last[r], &sum, dims, behaviour);
  }
  if (sum.n > job->cap) {
    if (rows.count < 0) cs_nb_rows_for(job, &a, &rows);
    cs_nb_sum_nearest(job, &a, &rows, &sum);
  }
  float s[3];
  cs_nb_steering(job, &a, &sum, i, s);
  cs_nb_write(job, i, s);
}

CS_INLINE int wanted(const cs_nb_job *job, size_t i, size_t begin, size_t end) {
  return i >= begin && i < end &&
         (!job->lane_select || (job->lane_select[i] & job->lane_bit));
}

CS_INLINE void run_cells(const cs_nb_job *job, size_t begin, size_t end, const int dims,
                         const cs_nb_behaviour behaviour) {
  const crowdsteer_grid *g = job->grid;
  cell_buffer *buf = (cell_buffer *)job->buffer;
  size_t slot = job->slot_first;
  while (slot < job->slot_last) {
    uint32_t cell[3], next[3];
    cell_of(g, slot, cell, dims);
    size_t group_end = slot + 1;
    int todo = wanted(job, g->index[slot], begin, end);
    for (; group_end < job->slot_last; group_end++) {
      cell_of(g, group_end, next, dims);
      if (next[0] != cell[0] || next[1] != cell[1] || next[2] != cell[2]) break;
      todo |= wanted(job, g->index[group_end], begin, end);
    }
    if (todo) {
      const int buffered = fill_buffer(job, cell, buf, dims, behaviour);
      for (size_t s = slot; s < group_end; s++)
        if (wanted(job, g->index[s], begin, end))
          evaluate(job, s, buf, buffered, cell, dims, behaviour);
    }
    slot = group_end;
  }
}

#define FOR_SHAPE(dims, behaviour, name)                                                 \
  CS_NOINLINE static void name(const cs_nb_job *job, size_t begin, size_t end) {         \
    run_cells(job, begin, end, dims, behaviour);                                         \
  }
FOR_SHAPE(2, CS_NB_SEPARATION, separation_2d)
FOR_SHAPE(3, CS_NB_SEPARATION, separation_3d)
FOR_SHAPE(2, CS_NB_COHESION, cohesion_2d)
FOR_SHAPE(3, CS_NB_COHESION, cohesion_3d)
FOR_SHAPE(2, CS_NB_ALIGNMENT, alignment_2d)
FOR_SHAPE(3, CS_NB_ALIGNMENT, alignment_3d)

static const cs_nb_kernel shapes[CS_NB_COUNT][2] = {
    [CS_NB_SEPARATION] = {separation_2d, separation_3d},
    [CS_NB_COHESION] = {cohesion_2d, cohesion_3d},
    [CS_NB_ALIGNMENT] = {alignment_2d, alignment_3d},
};

/* The entry points' calls bring no buffer: one on this frame. A step's
 * neighbour pass brings its own (the grid's), so the step's stack never
 * holds one. */
CS_NOINLINE static void with_stack_buffer(const cs_nb_job *job, size_t begin,
                                          size_t end) {
  cell_buffer own;
  cs_nb_job with = *job;
  with.buffer = &own;
  shapes[job->behaviour][job->dims - 2](&with, begin, end);
}

static void kernel(const cs_nb_job *job, size_t begin, size_t end) {
  if (!job->grid) { /* the brute force is the scalar definition */
    cs_nb_kernel_scalar(job, begin, end);
    return;
  }
  if (!job->buffer) {
    with_stack_buffer(job, begin, end);
    return;
  }
  shapes[job->behaviour][job->dims - 2](job, begin, end);
}

/* ---- the grid build's bucket keys ------------------------------------------ */

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

/* cs_bucket of the cells of W agents. */
CS_INLINE vi buckets_of(const float *const pos[3], size_t i, vf inv_cell, vi mask,
                        const int dims) {
  static const uint32_t salt[3] = {0x9E3779B1u, 0x85EBCA77u, 0xC2B2AE3Du};
  vi h = i_zero(), offset = i_zero();
  for (int k = 0; k < dims; k++) {
    const vi cell = cells_of(v_load(pos[k] + i), inv_cell);
    h = i_xor(h, i_mul(i_shr(cell, 2), i_set1(salt[k])));
    const vi low = i_and(cell, i_set1(3u));
    offset = i_or(offset, k == 0 ? low : k == 1 ? i_shl(low, 2) : i_shl(low, 4));
  }
  const vi spread = dims == 3 ? i_shl(mixed(h), 6) : i_shl(mixed(h), 4);
  return i_and(i_or(spread, offset), mask);
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

const cs_nb_backend CS_NB_KERNEL = {kernel, keys};
