/* Part of the neighbour kernel (see nb_candidates.h): agents one by one
 * over their rows of cells, W candidates per vector (8 and 16 lanes), with
 * the tiles' finishing and output helpers (nb_tiles.h). */
#ifndef CROWDSTEER_NB_ROWS_H
#define CROWDSTEER_NB_ROWS_H

#include "kernels/nb_tiles.h"

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
     * agents; docs/lab-notes.md, "Rows straight through"). With 8 lanes
     * most rows take two vectors. */
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

#endif /* CROWDSTEER_NB_ROWS_H */
