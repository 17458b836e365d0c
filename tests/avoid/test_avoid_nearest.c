/* The avoidance's nearest-neighbour scan (collect under a limit, then
 * rank) against brute force on every ISA: all candidates keyed by
 * (sqrtf of the squared distance, id), ties by scan order, the cap
 * nearest in order. Crowds that exercise every path: a room cut back by
 * distance, stacks of coincident agents (cut by full key), caps past the
 * sort-all size, duplicate ids, group filters, crowds smaller than a
 * block, 2D and 3D; and the lines' and planes' special cases, every ISA
 * against the scalar one. */
#include "../common/check.h"
#include "avoid/avoid.h"

#include <stdlib.h>
#include <string.h>

enum { N = 1500, MAX_CAP = 2000 };

typedef struct crowd {
  int dims;
  size_t n;
  float pos[3][N];
  uint32_t id[N], group[N];
} crowd;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float uniform(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (float)(rng >> 40) * 0x1p-24f;
}

typedef struct brute {
  uint64_t key;
  uint32_t order, slot;
} brute;

static int brute_order(const void *x, const void *y) {
  const brute *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->order < b->order ? -1 : (a->order > b->order ? 1 : 0);
}

/* Agent `self`'s cap nearest within `radius`, the runs being the whole
 * crowd cut into `runs` pieces visited in order. */
static void check_agent(const cs_avoid_job *job, const crowd *c, size_t self,
                        float radius, uint32_t cap, int use_mask, uint32_t mask, int runs,
                        const char *what) {
  static cs_avoid_cand cands[MAX_CAP + CS_AVOID_SPARE];
  static cs_avoid_near near[MAX_CAP];
  static float row_dd[CS_AVOID_SPARE + CS_AVOID_PAD];
  static brute all[N];
  cs_nb_rows rows = {{c->pos[0], c->pos[1], c->pos[2]},
                     {NULL, NULL, NULL},
                     use_mask ? c->group : NULL,
                     NULL,
                     {0},
                     {0},
                     runs};
  for (int r = 0; r < runs; r++) {
    rows.first[r] = c->n * (size_t)r / (size_t)runs;
    rows.last[r] = c->n * (size_t)(r + 1) / (size_t)runs;
  }
  const cs_avoid_scan scan = {&rows,
                              c->dims,
                              {c->pos[0][self], c->pos[1][self], c->pos[2][self]},
                              cs_within_limit(radius),
                              (uint32_t)self,
                              use_mask,
                              mask,
                              c->id,
                              cap,
                              cands,
                              row_dd,
                              c->n,
                              NULL,
                              NULL,
                              NULL};
  const uint32_t got = job->scan(&scan, near);
  size_t m = 0;
  for (size_t q = 0; q < c->n; q++) {
    if (q == self || (use_mask && !(c->group[q] & mask))) continue;
    float dd = 0.0f;
    for (int k = 0; k < c->dims; k++) {
      const float d = c->pos[k][self] - c->pos[k][q];
      dd = k ? dd + d * d : d * d;
    }
    const float dist = sqrtf(dd);
    if (!(dist < radius)) continue;
    all[m++] = (brute){cs_nb_nearness(dist, c->id[q]), (uint32_t)q, (uint32_t)q};
  }
  qsort(all, m, sizeof *all, brute_order);
  const size_t want = m < cap ? m : cap;
  CHECK_MSG(got == want, "%s: agent %zu keeps %u of %zu", what, self, got, want);
  for (size_t k = 0; k < want && k < got; k++)
    CHECK_MSG(near[k].key == all[k].key && near[k].slot == all[k].slot,
              "%s: agent %zu, neighbour %zu differs", what, self, k);
}

static void check_crowd(const crowd *c, float radius, uint32_t cap, int use_mask,
                        const char *what) {
  /* A job for the scan of the ISA in force. */
  crowdsteer_agents agents = {c->n,
                              c->dims,
                              (float *)c->pos[0],
                              (float *)c->pos[1],
                              c->dims == 3 ? (float *)c->pos[2] : NULL,
                              (float *)c->pos[0],
                              (float *)c->pos[1],
                              c->dims == 3 ? (float *)c->pos[2] : NULL,
                              (uint32_t *)c->id};
  crowdsteer_neighbours nb = {0};
  nb.radius = radius;
  crowdsteer_avoidance av = {0};
  av.neighbours = &nb;
  crowdsteer_params params = {0};
  cs_avoid_job job;
  CHECK_STATUS(cs_avoid_prepare(&job, &agents, &av, &params, 0, c->n), CROWDSTEER_OK);
  for (size_t self = 0; self < c->n; self += 1 + c->n / 23)
    for (int runs = 1; runs <= 3; runs += 2)
      check_agent(&job, c, self, radius, cap, use_mask, 0x5u, runs, what);
}

static crowd c;

static void fill(int dims, size_t n, float spread, uint32_t id_mod) {
  c.dims = dims;
  c.n = n;
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++)
      c.pos[k][i] = k < dims ? spread * uniform() : 0.0f;
    c.id[i] = id_mod ? (uint32_t)(i * 7919u) % id_mod : (uint32_t)(n - i);
    c.group[i] = 1u << (i % 4);
  }
}

static void every_path(void) {
  const uint32_t caps[] = {1, 10, 47, 100, 1000, MAX_CAP};
  for (int dims = 2; dims <= 3; dims++) {
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
      fill(dims, N, 100.0f, 0); /* sparse: a radius's worth of candidates */
      check_crowd(&c, 15.0f, caps[k], 0, "sparse");
      fill(dims, N, 1.0f, 0); /* packed: the room fills and is cut back */
      check_crowd(&c, 15.0f, caps[k], 0, "packed");
      check_crowd(&c, 15.0f, caps[k], 1, "packed, groups");
      fill(dims, N, 1.0f, 50); /* duplicate ids: ties by scan order */
      check_crowd(&c, 15.0f, caps[k], 0, "duplicate ids");
    }
    /* Crowds smaller than a block or two (row tails at the arrays' end). */
    for (size_t n = 2; n <= 40; n += 7) {
      fill(dims, n, 1.0f, 0);
      check_crowd(&c, 15.0f, 3, 0, "tiny");
      check_crowd(&c, 15.0f, 100, 0, "tiny");
    }
    /* Stacks: 300 agents on each of 10 points (keys tie on distance). */
    fill(dims, N, 1.0f, 0);
    for (size_t i = 0; i < N; i++)
      for (int k = 0; k < dims; k++)
        c.pos[k][i] = (float)(i % 10) * 0.25f + (float)k;
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++)
      check_crowd(&c, 15.0f, caps[k], 0, "stacks");
    /* A lattice: many equal distances. */
    for (size_t i = 0; i < N; i++)
      for (int k = 0; k < dims; k++)
        c.pos[k][i] = (float)((i >> (4 * k)) % 16);
    check_crowd(&c, 6.0f, 10, 0, "lattice");
    check_crowd(&c, 6.0f, 100, 0, "lattice");
  }
}

/* crowdsteer_avoid with a grid (cells as wide as the radius) gives the
 * bits of the scan over every agent (no grid), for crowds on cell borders
 * far from the origin, where x * (1 / cell) rounds across a border; 200
 * agents make a grid its queries scan whole, whose agents avoidance reads
 * by cells (cs_avoid_narrow), across a block of cells' border at -5.4. */
static void grid_against_all(void) {
  static float px[N], py[N], vx[N], vy[N], pref_x[N], pref_y[N];
  static float out_grid[2][N], out_all[2][N];
  static uint32_t ids[N];
  const float cell = 0.3f, origins[] = {0.0f, 1e6f, -3e5f, 1e7f, -5.4f};
  for (int t = 0; t < 10; t++) {
    const int o = t / 2;
    const size_t n = t % 2 ? 200 : 1200;
    for (size_t i = 0; i < n; i++) {
      /* On a lattice of cell borders, nudged by an ulp or two either way. */
      const float bx = origins[o] + cell * (float)(i % 40), by = cell * (float)(i / 40);
      const int nudge = (int)(i % 5) - 2;
      px[i] = nudge > 0 ? cs_float_step(bx, nudge > 1) : bx + 0.01f * (float)nudge;
      py[i] = by + (float)(i % 3) * 0.07f;
      vx[i] = uniform() - 0.5f, vy[i] = uniform() - 0.5f;
      pref_x[i] = uniform() - 0.5f, pref_y[i] = uniform() - 0.5f;
      ids[i] = (uint32_t)(i * 2654435761u);
    }
    crowdsteer_agents agents = {n, 2, px, py, NULL, vx, vy, NULL, ids};
    crowdsteer_grid *grid;
    CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
    crowdsteer_grid_desc desc = {0};
    desc.cell_size = 3 * cell;
    desc.table_size = n == 200 ? 1u << 14 : 0; /* blocks' hashes matter */
    CHECK_STATUS(crowdsteer_grid_build(grid, &agents, &desc), CROWDSTEER_OK);
    crowdsteer_neighbours nb = {0};
    nb.radius = 3 * cell;
    nb.max_neighbours = 6;
    crowdsteer_avoidance av = {0};
    av.radius = 0.12f;
    av.neighbours = &nb;
    crowdsteer_params params = {0};
    params.max_speed = 1.0f;
    const crowdsteer_vectors pref = {pref_x, pref_y, NULL};
    const crowdsteer_vectors all = {out_all[0], out_all[1], NULL};
    const crowdsteer_vectors by_grid = {out_grid[0], out_grid[1], NULL};
    CHECK_STATUS(crowdsteer_avoid(&agents, &av, &params, &pref, &all, 0, n),
                 CROWDSTEER_OK);
    nb.grid = grid;
    CHECK_STATUS(crowdsteer_avoid(&agents, &av, &params, &pref, &by_grid, 0, n),
                 CROWDSTEER_OK);
    for (size_t i = 0; i < n; i++)
      CHECK_MSG(!memcmp(&out_all[0][i], &out_grid[0][i], sizeof(float)) &&
                    !memcmp(&out_all[1][i], &out_grid[1][i], sizeof(float)),
                "origin %g, %zu agents, agent %zu: the grid's bits differ",
                (double)origins[o], n, i);
    crowdsteer_grid_destroy(grid);
  }
}

/* The planes' and lines' special cases on every ISA against the scalar
 * ISA's bits: neighbours straight along the relative velocity (no part off
 * the cone's axis: the fixed perpendicular, ties in which axis it leans on
 * least), coincident agents at rest and moving together (apart by id),
 * overlapping pairs, in 2D and 3D. */
static void special_cases(int dims, float out[3][N]) {
  static float p[3][64], v[3][64], pref[3][64];
  static uint32_t ids[64];
  const size_t n = 64;
  for (size_t i = 0; i < n; i++) {
    const size_t group = i / 8, k = i % 8;
    const float at = (float)group * 50.0f;
    /* along x, along the diagonal, coincident, overlapping, near */
    const float d = group % 4 == 0   ? 3.0f * (float)k
                    : group % 4 == 1 ? 0.0f
                                     : 0.7f * (float)k;
    for (int axis = 0; axis < 3; axis++) {
      const float dir = group % 2 ? 1.0f : (axis == 0 ? 1.0f : 0.0f);
      p[axis][i] = at + d * dir;
      v[axis][i] = group >= 4 ? 0.0f : (k % 2 ? -0.5f : 0.5f) * dir;
      pref[axis][i] = 0.3f * dir;
    }
    ids[i] = (uint32_t)(n - i);
  }
  crowdsteer_agents agents = {
      n,  dims, p[0], p[1], dims == 3 ? p[2] : NULL, v[0], v[1], dims == 3 ? v[2] : NULL,
      ids};
  crowdsteer_neighbours nb = {0};
  nb.radius = 30.0f;
  nb.max_neighbours = 7;
  crowdsteer_avoidance av = {0};
  av.radius = 0.5f;
  av.time_horizon = 4.0f;
  av.neighbours = &nb;
  crowdsteer_params params = {0};
  params.max_speed = 2.0f;
  params.dt = 0.25f;
  const crowdsteer_vectors pv = {pref[0], pref[1], dims == 3 ? pref[2] : NULL};
  const crowdsteer_vectors ov = {out[0], out[1], dims == 3 ? out[2] : NULL};
  CHECK_STATUS(crowdsteer_avoid(&agents, &av, &params, &pv, &ov, 0, n), CROWDSTEER_OK);
}

/* `run`'s outputs on every ISA against the scalar ISA's bits, 2D and 3D. */
static void against_scalar(void (*run)(int dims, float out[3][N]), const char *what) {
  static float want[3][N], got[3][N];
  const crowdsteer_isa active = crowdsteer_active_isa();
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  const int count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  for (int dims = 2; dims <= 3; dims++) {
    CHECK_STATUS(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR), CROWDSTEER_OK);
    memset(want, 0, sizeof want);
    run(dims, want);
    for (int k = 0; k < count; k++) {
      CHECK_STATUS(crowdsteer_force_isa(isas[k]), CROWDSTEER_OK);
      memset(got, 0, sizeof got);
      run(dims, got);
      CHECK_MSG(!memcmp(want, got, sizeof want), "%dD %s: isa %s differs", dims, what,
                crowdsteer_isa_name(isas[k]));
    }
  }
  CHECK_STATUS(crowdsteer_force_isa(active), CROWDSTEER_OK);
}

/* A crowd read by cells (beyond the small grids), ids shared in threes
 * and a lattice's many equal distances, so ties between agents sharing an
 * id are decided by their place in the rows' scan, which every ISA's scan
 * must give each candidate as the scalar scan does. */
static void shared_ids(int dims, float out[3][N]) {
  static float p[3][N], v[3][N], pref[3][N];
  static uint32_t ids[N];
  const size_t n = 1500;
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) {
      const size_t side = dims == 2 ? 40 : 12;
      const size_t step = k == 0 ? 1 : (k == 1 ? side : side * side);
      p[k][i] = 0.5f * (float)((i / step) % side) - 3.0f;
      v[k][i] = 0.1f * (float)((i * (size_t)(k + 3)) % 7) - 0.3f;
      pref[k][i] = 0.3f - 0.1f * (float)((i + (size_t)k) % 5);
    }
    ids[i] = (uint32_t)(i / 3);
  }
  crowdsteer_agents agents = {
      n,  dims, p[0], p[1], dims == 3 ? p[2] : NULL, v[0], v[1], dims == 3 ? v[2] : NULL,
      ids};
  crowdsteer_grid *grid;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 2.5f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &agents, &desc), CROWDSTEER_OK);
  crowdsteer_neighbours nb = {0};
  nb.grid = grid;
  nb.radius = 2.5f;
  nb.max_neighbours = 5;
  crowdsteer_avoidance av = {0};
  av.radius = 0.2f;
  av.neighbours = &nb;
  crowdsteer_params params = {0};
  params.max_speed = 1.0f;
  const crowdsteer_vectors pv = {pref[0], pref[1], dims == 3 ? pref[2] : NULL};
  const crowdsteer_vectors ov = {out[0], out[1], dims == 3 ? out[2] : NULL};
  CHECK_STATUS(crowdsteer_avoid(&agents, &av, &params, &pv, &ov, 0, n), CROWDSTEER_OK);
  crowdsteer_grid_destroy(grid);
}

static void every_check(void) {
  every_path();
  grid_against_all();
}

int main(void) {
  against_scalar(special_cases, "special cases");
  against_scalar(shared_ids, "shared ids by cells");
  if (!on_every_isa(every_check)) return 77;
  return check_report("test_avoid_nearest");
}
