/* The grid never changes a bit: for random crowds (sparse, dense, clustered,
 * coincident, on rings at the radius, 200-300 neighbours each, 2D and 3D, up
 * to a few thousand agents; and one of 300,000, large enough for the
 * kernels' prefetching walk, against the scalar backend on the same grid) every behaviour
 * with every option gives, through grids of several cell sizes, table sizes and build
 * thread counts, and over any split of the range, exactly what the brute force over every
 * pair gives, also scaled to radii from 2^-60 to above 2^126, and with per-agent radii,
 * views, masks, top speeds and times to target. Builds on teams of 2 and 3 threads (each
 * sort forced) are compared with the brute force too. Also: the nearest-k cap
 * against its definition, no NaN from finite crowds, a warm grid reallocates nothing, and
 * accumulate mode blends exactly. */
#include "../common/neighbour_crowd.h"

typedef struct options {
  int per_agent, fov, cap, mask;
} options;

static float per_agent_radius[4096], per_agent_cos[4096];
static float per_agent_speed[4096], per_agent_time[4096];
static uint32_t per_agent_mask[4096];

static crowdsteer_neighbours make_query(crowd *c, const options *o, float radius,
                                        rng *r) {
  crowdsteer_neighbours nb = {0};
  nb.radius = radius;
  nb.field_of_view = o->fov;
  nb.cos_field_of_view = -0.25f;
  nb.max_neighbours = o->cap ? 3u : 0u;
  nb.neighbour_mask = o->mask ? 0x5u : 0u;
  nb.group = c->group;
  if (o->per_agent) {
    for (size_t i = 0; i < c->count; i++) {
      per_agent_radius[i] = rng_below(r, 10) == 0 ? 0.0f : rng_range(r, 0.25f, radius);
      per_agent_cos[i] = rng_range(r, -1.0f, 1.0f);
      per_agent_mask[i] = rng_below(r, 16);
    }
    nb.radius_per_agent = per_agent_radius;
    if (o->fov) nb.cos_field_of_view_per_agent = per_agent_cos;
    if (o->mask) nb.neighbour_mask_per_agent = per_agent_mask;
  }
  return nb;
}

static void copy_out(crowd *c, float *dst[3]) {
  for (int k = 0; k < c->dims; k++)
    memcpy(dst[k], c->out[k], c->count * sizeof(float));
}

static int compare(crowd *c, float *const want[3], const char *what, int behaviour) {
  for (int k = 0; k < c->dims; k++)
    for (size_t i = 0; i < c->count; i++)
      if (!same_bits(c->out[k][i], want[k][i])) {
        CHECK_MSG(0, "%s %s %zu agents %dD: agent %zu axis %d: %.9g vs %.9g", what,
                  nb_name(behaviour), c->count, c->dims, i, k, c->out[k][i], want[k][i]);
        return 0;
      }
  return 1;
}

static void check_crowd(crowd *c, crowdsteer_grid *grid, const options *o, float radius,
                        uint64_t seed) {
  rng r = {seed};
  crowdsteer_neighbours nb = make_query(c, o, radius, &r);
  crowdsteer_params params = {0};
  params.max_speed = 1.5f;
  params.time_to_target = 0.75f;
  if (o->per_agent) { /* the steering's own per-agent parameters too */
    for (size_t i = 0; i < c->count; i++) {
      per_agent_speed[i] = rng_below(&r, 8) == 0 ? 0.0f : rng_range(&r, 0.5f, 3.0f);
      per_agent_time[i] = rng_range(&r, 0.25f, 2.0f);
    }
    params.max_speed_per_agent = per_agent_speed;
    params.time_to_target_per_agent = per_agent_time;
  }
  crowdsteer_output out = crowd_output(c);
  float *want[3];
  for (int k = 0; k < 3; k++)
    want[k] = (float *)calloc(c->count + 1, sizeof(float));
  /* (cell size / radius, table size) pairs; tables below one block of
   * cells (512 in 2D and 3D: the smallest exact table) make every query
   * scan all agents (4: small crowds only; 256). */
  const size_t block_table = 512;
  const float cells[6] = {1.0f, 1.5f, 4.0f, 1.0f, 1.5f, 1.0f};
  const size_t tables[6] = {0,
                            c->count <= 300 ? 4 : block_table,
                            4 * block_table,
                            block_table,
                            0,
                            block_table / 2};
  for (int b = 0; b < NB_BEHAVIOURS; b++) {
    CHECK_STATUS(nb_call(b, c, &nb, &params, &out, 0, c->count), CROWDSTEER_OK);
    copy_out(c, want);
    for (int k = 0; k < c->dims; k++)
      for (size_t i = 0; i < c->count; i++)
        CHECK_MSG(isfinite(want[k][i]), "%s agent %zu: %g", nb_name(b), i, want[k][i]);
    const int configs = c->count > 300 ? 3 : 6; /* keep the run short */
    for (int cs = 0; cs < configs; cs++) {
      const int t = cs;
      crowdsteer_grid_desc desc = {0};
      desc.cell_size = cells[cs] * radius;
      if (!isfinite(desc.cell_size)) continue; /* check_scaled's largest radius */
      desc.table_size = tables[t];
      desc.group = c->group;
      desc.threads = 1 + cs % 3;
      /* Separation without a view reads no velocities: every other grid
       * keeps none (and the build gets no velocity arrays). */
      desc.positions_only = b == NB_SEPARATION && !o->fov && cs % 2 == 1;
      crowdsteer_agents positions = c->agents;
      if (desc.positions_only) positions.vx = positions.vy = positions.vz = NULL;
      CHECK_STATUS(crowdsteer_grid_build(grid, &positions, &desc), CROWDSTEER_OK);
      crowdsteer_neighbours query = nb;
      query.grid = grid;
      query.group = NULL;
      for (int k = 0; k < c->dims; k++)
        memset(c->out[k], 0xFF, c->count * sizeof(float));
      /* Whole range, or three uneven parts. */
      if (cs % 2 == 0) {
        CHECK_STATUS(nb_call(b, c, &query, &params, &out, 0, c->count), CROWDSTEER_OK);
      } else {
        size_t cut1 = c->count / 3, cut2 = c->count - c->count / 5;
        CHECK_STATUS(nb_call(b, c, &query, &params, &out, 0, cut1), CROWDSTEER_OK);
        CHECK_STATUS(nb_call(b, c, &query, &params, &out, cut2, c->count), CROWDSTEER_OK);
        CHECK_STATUS(nb_call(b, c, &query, &params, &out, cut1, cut2), CROWDSTEER_OK);
      }
      char what[96];
      snprintf(what, sizeof what, "cell %g table %zu threads %d opts %d%d%d%d%s",
               (double)desc.cell_size, tables[t], desc.threads, o->per_agent, o->fov,
               o->cap, o->mask, desc.positions_only ? " positions only" : "");
      if (!compare(c, want, what, b)) goto done;
    }
  }
done:
  for (int k = 0; k < 3; k++)
    free(want[k]);
}

/* Small crowds scaled with their radius: a tiny radius, and radii whose
 * reciprocal is subnormal (above 2^126), where the kernels' weights scaled
 * by 2^24 (add_pair) must still be the brute force's bits. */
static void check_scaled(crowdsteer_grid *grid) {
  static const float scales[4] = {0x1p-60f, 0x1p100f, 0x1.8p126f, 0x1.fp126f};
  for (int dims = 2; dims <= 3; dims++)
    for (int s = 0; s < 4; s++) {
      crowd c;
      crowd_init(&c, 17, dims);
      rng r = {555u + (uint64_t)(dims * 4 + s)};
      crowd_random(&c, &r, 8.0f);
      for (int k = 0; k < dims; k++)
        for (size_t i = 0; i < c.count; i++)
          c.a[k][i] *= scales[s];
      const options o = {0, 0, 0, 0};
      check_crowd(&c, grid, &o, scales[s], 31u + (uint64_t)s);
      crowd_free(&c);
    }
}

/* Accumulate: out + weight * s, from the same s. */
static void check_accumulate(crowd *c, crowdsteer_grid *grid) {
  crowdsteer_neighbours nb = {0};
  nb.grid = grid;
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
  crowdsteer_output out = crowd_output(c);
  CHECK_STATUS(crowdsteer_separation(&c->agents, &nb, NULL, &out, 0, c->count),
               CROWDSTEER_OK);
  float *s = (float *)malloc(c->count * sizeof(float));
  memcpy(s, c->out[0], c->count * sizeof(float));
  for (size_t i = 0; i < c->count; i++)
    c->out[0][i] = c->out[1][i] = (float)i;
  out.mode = CROWDSTEER_ACCUMULATE;
  out.weight = 0.3f;
  CHECK_STATUS(crowdsteer_separation(&c->agents, &nb, NULL, &out, 0, c->count),
               CROWDSTEER_OK);
  for (size_t i = 0; i < c->count; i++)
    CHECK(same_bits(c->out[0][i], (float)i + 0.3f * s[i]));
  free(s);
}

static void fill_clusters(crowd *c, rng *r) {
  for (size_t i = 0; i < c->count; i++) {
    const float centre = (float)(i % 4) * 2.0f;
    for (int k = 0; k < c->dims; k++)
      c->a[k][i] = (i % 7 == 0) ? centre : centre + rng_range(r, -0.2f, 0.2f);
  }
}

/* A dense crowd, uniform in a square or cube of `side` radii: 200-300
 * neighbours per agent at the sizes used, more than the kernels' 32-bit
 * totals hold (the dense path of rows_group), and with cells of 4 radii
 * more candidate vectors than their lane sums hold (evaluated on their
 * own). */
static void fill_dense(crowd *c, rng *r, float side) {
  for (size_t i = 0; i < c->count; i++)
    for (int k = 0; k < c->dims; k++)
      c->a[k][i] = rng_range(r, 0.0f, side);
}

/* Agent 0 at the origin and the others in a tight cluster 0.99 radii away
 * along x: agent 0 has 2,200 neighbours, each adding about 0.99 * 2^24 to
 * its cohesion sum, more than 32-bit lane sums hold over its 138 candidate
 * vectors (the kernels must not add them up in lanes). */
static void fill_far_cluster(crowd *c, rng *r) {
  for (size_t i = 0; i < c->count; i++) {
    c->a[0][i] = i ? 0.99f + rng_range(r, -0.004f, 0.004f) : 0.0f;
    c->a[1][i] = i ? rng_range(r, -0.004f, 0.004f) : 0.0f;
  }
}

/* Agents on rings around centres, the query's radius away give or take a
 * few ulps (along an axis, where the squared distance is one rounding of
 * x^2, and at random angles): squared distances on both sides of the
 * kernels' radius test, which compares them with a limit instead of taking
 * square roots. Centres are 3 radii apart. */
static void fill_rings(crowd *c, rng *r, float radius) {
  for (size_t i = 0; i < c->count; i++) {
    const size_t centre = i - i % 25;
    const float cx = (float)(centre / 25) * 3.0f * radius;
    float x = cx, y = 0.0f;
    if (i != centre) {
      const float angle = i % 2 ? 0.0f : rng_range(r, 0.0f, 6.2831853f);
      x = cx + radius * cosf(angle);
      y = radius * sinf(angle);
      for (int nudge = (int)rng_below(r, 7) - 3; nudge; nudge += nudge < 0 ? 1 : -1)
        x = nextafterf(x, nudge < 0 ? -INFINITY : INFINITY);
    }
    c->a[0][i] = x;
    c->a[1][i] = y;
    if (c->dims == 3) c->a[2][i] = 0.0f;
  }
}

/* A random 2D crowd at 8 neighbours per agent and a grid of it (cells of
 * 1, 2 build threads). */
static void random_crowd_on_grid(crowd *c, size_t count, uint64_t seed,
                                 crowdsteer_grid *grid) {
  crowd_init(c, count, 2);
  rng r = {seed};
  crowd_random(c, &r, 8.0f);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  desc.threads = 2;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c->agents, &desc), CROWDSTEER_OK);
}

/* A crowd too large for the brute force, large enough for the kernels'
 * walk for big grids: the active ISA against the scalar backend's query
 * on the same grid, every behaviour (the range in three parts). */
static void check_large(crowdsteer_grid *grid) {
  crowd c;
  random_crowd_on_grid(&c, 300000, 77u, grid);
  crowdsteer_neighbours nb = {0};
  nb.radius = 1.0f;
  nb.grid = grid;
  crowdsteer_params params = {0};
  params.max_speed = 1.5f;
  crowdsteer_output out = crowd_output(&c);
  const crowdsteer_isa active = crowdsteer_active_isa();
  float *want[3];
  for (int k = 0; k < 3; k++)
    want[k] = (float *)calloc(c.count + 1, sizeof(float));
  for (int b = 0; b < NB_BEHAVIOURS; b++) {
    CHECK_STATUS(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR), CROWDSTEER_OK);
    CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, 0, c.count), CROWDSTEER_OK);
    copy_out(&c, want);
    CHECK_STATUS(crowdsteer_force_isa(active), CROWDSTEER_OK);
    for (int k = 0; k < 2; k++)
      memset(c.out[k], 0xFF, c.count * sizeof(float));
    CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, 0, 1000), CROWDSTEER_OK);
    CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, 1000, c.count - 7), CROWDSTEER_OK);
    CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, c.count - 7, c.count), CROWDSTEER_OK);
    if (!compare(&c, want, "large crowd", b)) break;
  }
  /* Separation again on a grid of the positions only: the same bits. */
  CHECK_STATUS(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR), CROWDSTEER_OK);
  CHECK_STATUS(nb_call(NB_SEPARATION, &c, &nb, &params, &out, 0, c.count), CROWDSTEER_OK);
  copy_out(&c, want);
  CHECK_STATUS(crowdsteer_force_isa(active), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  desc.threads = 2;
  desc.positions_only = 1;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  for (int k = 0; k < 2; k++)
    memset(c.out[k], 0xFF, c.count * sizeof(float));
  CHECK_STATUS(nb_call(NB_SEPARATION, &c, &nb, &params, &out, 0, c.count), CROWDSTEER_OK);
  compare(&c, want, "large crowd, positions only", NB_SEPARATION);
  for (int k = 0; k < 3; k++)
    free(want[k]);
  crowd_free(&c);
}

/* Builds on teams of 2 and 3 threads against the brute force: up to 2^17
 * agents a build sorts directly on one thread whatever it is asked, so the
 * small crowds above never reach a team, and check_large's team (the
 * partitioned passes, 2 threads) is compared with the scalar backend only.
 * Here each sort, the direct one on a team included, is forced in turn on
 * a crowd large enough for 3 build threads, and the first agents' steering
 * compared with the brute force's (2D and 3D, every behaviour). */
static void check_team_builds(crowdsteer_grid *grid) {
  enum { TEAM_CROWD = 34000, QUERIED = 100 };
  for (int dims = 2; dims <= 3; dims++) {
    crowd c;
    crowd_init(&c, TEAM_CROWD, dims);
    rng r = {4242u + (uint64_t)dims};
    crowd_random(&c, &r, 8.0f);
    crowdsteer_params params = {0};
    params.max_speed = 1.5f;
    crowdsteer_output out = crowd_output(&c);
    for (int b = 0; b < NB_BEHAVIOURS; b++) {
      crowdsteer_neighbours nb = {0};
      nb.radius = 1.0f;
      CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, 0, QUERIED), CROWDSTEER_OK);
      float want[3][QUERIED];
      for (int k = 0; k < dims; k++)
        memcpy(want[k], c.out[k], sizeof want[k]);
      for (int sort = 1; sort <= 2; sort++)
        for (int threads = 2; threads <= 3; threads++) {
          cs_grid_set_sort(sort);
          crowdsteer_grid_desc desc = {0};
          desc.cell_size = 1.0f;
          desc.threads = threads;
          CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
          cs_grid_set_sort(0);
          nb.grid = grid;
          CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, 0, QUERIED), CROWDSTEER_OK);
          nb.grid = NULL;
          for (int k = 0; k < dims; k++)
            for (size_t i = 0; i < QUERIED; i++)
              CHECK_MSG(same_bits(c.out[k][i], want[k][i]),
                        "team build (sort %d, %d threads) %s %dD: agent %zu axis %d: "
                        "%.9g vs %.9g",
                        sort, threads, nb_name(b), dims, i, k, c.out[k][i], want[k][i]);
        }
    }
    crowd_free(&c);
  }
}

/* The nearest-k cap against its definition: agent i's capped steering is
 * its uncapped steering in a crowd of only i and its k nearest (distance
 * as the formulas compute it, ties by lower index; everyone else moved far
 * away), on a grid and without. Caps below and above the 64 neighbours the
 * buffered selection holds, and a cluster of 100 for the radix selection. */
static void check_cap_definition(int dims) {
  const size_t n = 400;
  crowd c, alone;
  crowd_init(&c, n, dims);
  crowd_init(&alone, n, dims);
  rng r = {77u + (uint64_t)dims};
  crowd_random(&c, &r, 12.0f);
  for (size_t i = 0; i < 100; i++) /* a cluster: ~100 neighbours each */
    for (int k = 0; k < dims; k++)
      c.a[k][i] = rng_range(&r, 0.0f, 0.4f);
  crowdsteer_grid *grid, *alone_grid;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_grid_create(&alone_grid), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  static const uint32_t caps[] = {1, 2, 6, 10, 63, 64, 65, 90};
  float dist[400];
  uint32_t order[400];
  for (size_t i = 0; i < n; i += 9) {
    uint32_t found = 0;
    for (uint32_t q = 0; q < n; q++) {
      float dd = 0.0f;
      for (int k = 0; k < dims; k++) {
        const float d = c.a[k][i] - c.a[k][q];
        dd = k == 0 ? d * d : dd + d * d;
      }
      dist[q] = sqrtf(dd);
      if (q != i && dist[q] < 1.0f) order[found++] = q;
    }
    for (uint32_t a = 1; a < found; a++) /* by distance, then index */
      for (uint32_t b = a;
           b > 0 && (dist[order[b]] < dist[order[b - 1]] ||
                     (dist[order[b]] == dist[order[b - 1]] && order[b] < order[b - 1]));
           b--) {
        const uint32_t t = order[b];
        order[b] = order[b - 1];
        order[b - 1] = t;
      }
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
      const uint32_t cap = caps[ci];
      if (cap >= found) continue;
      for (int k = 0; k < 6; k++)
        memcpy(alone.a[k], c.a[k], n * sizeof(float));
      for (uint32_t q = 0; q < n; q++) /* far apart, far from i */
        alone.a[0][q] = 1e5f + 8.0f * (float)q;
      alone.a[0][i] = c.a[0][i];
      for (uint32_t m = 0; m < cap; m++)
        alone.a[0][order[m]] = c.a[0][order[m]];
      CHECK_STATUS(crowdsteer_grid_build(alone_grid, &alone.agents, &desc),
                   CROWDSTEER_OK);
      for (int b = 0; b < NB_BEHAVIOURS; b++)
        for (int with_grid = 0; with_grid < 2; with_grid++) {
          crowdsteer_neighbours nb = {0};
          nb.radius = 1.0f;
          nb.grid = with_grid ? grid : NULL;
          nb.max_neighbours = cap;
          crowdsteer_output out = crowd_output(&c);
          CHECK_STATUS(nb_call(b, &c, &nb, NULL, &out, i, i + 1), CROWDSTEER_OK);
          nb.grid = with_grid ? alone_grid : NULL;
          nb.max_neighbours = 0;
          crowdsteer_output want = crowd_output(&alone);
          CHECK_STATUS(nb_call(b, &alone, &nb, NULL, &want, i, i + 1), CROWDSTEER_OK);
          for (int k = 0; k < dims; k++)
            CHECK_MSG(same_bits(c.out[k][i], alone.out[k][i]),
                      "%dd %s agent %zu cap %u of %u%s: %a, definition %a", dims,
                      nb_name(b), i, cap, found, with_grid ? " grid" : "",
                      (double)c.out[k][i], (double)alone.out[k][i]);
        }
    }
  }
  crowdsteer_grid_destroy(grid);
  crowdsteer_grid_destroy(alone_grid);
  crowd_free(&c);
  crowd_free(&alone);
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  check_cap_definition(2);
  check_cap_definition(3);
  crowdsteer_grid *grid;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  static const size_t counts[] = {0, 1, 2, 17, 300, 2000};
  for (int dims = 2; dims <= 3; dims++)
    for (size_t n = 0; n < sizeof counts / sizeof counts[0]; n++) {
      const size_t count = dims == 3 && counts[n] > 1000 ? 1000 : counts[n];
      crowd c;
      crowd_init(&c, count, dims);
      rng r = {1234u + count * 10u + (uint64_t)dims};
      crowd_random(&c, &r, 8.0f);
      for (int variant = 0; variant < 16; variant++) {
        options o = {variant & 1, (variant >> 1) & 1, (variant >> 2) & 1,
                     (variant >> 3) & 1};
        /* Each option alone and all together (every combination when small). */
        if (count > 300 && variant != 15) continue;
        if (count == 300 && (variant & (variant - 1)) && variant != 15) continue;
        check_crowd(&c, grid, &o, 1.0f, 99u + (uint64_t)variant);
      }
      if (count == 300) { /* 200-300 neighbours each */
        crowd dense;
        crowd_init(&dense, dims == 2 ? 600 : 500, dims);
        fill_dense(&dense, &r, dims == 2 ? 2.5f : 2.2f);
        options o = {0, 0, 0, 0};
        check_crowd(&dense, grid, &o, 1.0f, 11u);
        o.cap = 1;
        check_crowd(&dense, grid, &o, 1.0f, 12u);
        crowd_free(&dense);
        if (dims == 2) {
          crowd_init(&dense, 2201, 2);
          fill_far_cluster(&dense, &r);
          o.cap = 0;
          check_crowd(&dense, grid, &o, 1.0f, 13u);
          crowd_free(&dense);
        }
      }
      if (count == 300) { /* hundreds in a few cells, coincident stacks */
        fill_clusters(&c, &r);
        options o = {0, 0, 0, 0};
        check_crowd(&c, grid, &o, 1.0f, 5u);
        o.cap = 1;
        check_crowd(&c, grid, &o, 1.0f, 6u);
        check_accumulate(&c, grid);
        const float radii[2] = {1.0f, 0.7f};
        for (int k = 0; k < 4; k++) {
          fill_rings(&c, &r, radii[k / 2]);
          o.cap = k % 2;
          check_crowd(&c, grid, &o, radii[k / 2], 7u + (uint64_t)k);
        }
      }
      crowd_free(&c);
    }
  check_scaled(grid);
  check_large(grid);
  check_team_builds(grid);
  /* Warm: another build of the same size holds the same memory. */
  crowd c;
  random_crowd_on_grid(&c, 1000, 3u, grid);
  const size_t bytes = crowdsteer_grid_bytes(grid);
  CHECK(bytes > 1000 * 5 * 4);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  desc.threads = 2;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  CHECK(crowdsteer_grid_bytes(grid) == bytes);
  crowd_free(&c);
  crowdsteer_grid_destroy(grid);
  return check_report("test_neighbours_equivalence");
}
