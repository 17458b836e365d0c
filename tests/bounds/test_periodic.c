/* Neighbours across a periodic box's seam (crowdsteer_periodic_ghosts): an
 * agent just across the seam seen at the right distance (by hand), the
 * neighbour queries against an independent minimum-image brute force in
 * double, separation against its formula in double with minimum images,
 * every ISA the same bits, grid or no grid, a permuted batch with ids,
 * and validation (nothing written on error). */
#include <fenv.h>
#include <float.h>
#include <stdint.h>

enum { N = 300, CAP = 8 * N, K = 8 };

static float px[CAP], py[CAP], pz[CAP], vx[CAP], vy[CAP], vz[CAP];
static uint32_t ids[CAP], origin[CAP];

#include "bounds_common.h"

/* Extends the batch of n agents; returns the total (0 on failure). */
static size_t extend(int dims, size_t n, const crowdsteer_box *box, float reach,
                     const uint32_t *own_ids) {
  crowdsteer_agents a = batch(dims, n);
  a.id = own_ids;
  size_t total = 0, counted = 0;
  CHECK_STATUS(crowdsteer_periodic_count(&a, box, reach, &counted), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, box, reach, CAP, ids, origin, &total),
               CROWDSTEER_OK);
  CHECK(total == counted && total > n);
  return total;
}

static void hand(void) {
  const crowdsteer_box box = {{0, 0, 0}, {10, 10, 10}};
  /* A at x = 0.25 sees B at 9.875 across the seam, 0.375 away; C in the
   * corner sees D across both seams. */
  const float x[] = {0.25f, 9.875f, 0.125f, 9.75f}, y[] = {5, 5, 0.25f, 9.875f};
  for (int i = 0; i < 4; i++) {
    px[i] = x[i], py[i] = y[i];
    vx[i] = vy[i] = 0.0f;
  }
  vx[1] = 0.5f; /* B's velocity: A's alignment sees it through the ghost */
  const size_t total = extend(2, 4, &box, 1.0f, NULL);
  /* B: 1 ghost (x), A: 1, C: 3, D: 3. */
  CHECK(total == 4 + 1 + 1 + 3 + 3);
  crowdsteer_agents a = batch(2, total);
  a.id = ids;
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.radius = 1.0f;
  uint32_t index[4 * 2], found[4];
  float dd[4 * 2];
  CHECK_STATUS(crowdsteer_neighbour_nearest(&a, &nb, 2, index, dd, found, 0, 4),
               CROWDSTEER_OK);
  CHECK(found[0] == 1 && found[1] == 1 && found[2] == 1 && found[3] == 1);
  CHECK(origin[index[0]] == 1 && dd[0] == 0.375f * 0.375f);
  CHECK(origin[index[2]] == 0 && dd[2] == 0.375f * 0.375f);
  const float cx = 0.375f, cy = 0.375f; /* C to D: 0.375 on each axis */
  CHECK(origin[index[4]] == 3 && dd[4] == cx * cx + cy * cy);
  CHECK(origin[index[6]] == 2 && dd[6] == cx * cx + cy * cy);
  /* Separation: A is pushed +x by B alone, max_speed * 0.375 (1/0.375 - 1). */
  float sx[4], sy[4];
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering.x = sx;
  out.steering.y = sy;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.0f;
  CHECK_STATUS(crowdsteer_separation(&a, &nb, &params, &out, 0, 4), CROWDSTEER_OK);
  CHECK_NEAR(sx[0], 0.375 * (1 / 0.375 - 1), 1e-6);
  CHECK(sy[0] == 0.0f && sx[1] == -sx[0]);
  CHECK_STATUS(crowdsteer_alignment(&a, &nb, &params, &out, 0, 4), CROWDSTEER_OK);
  CHECK(sx[0] == 0.5f && sy[0] == 0.0f && sx[1] == -0.5f);
}

typedef struct result {
  float s[3][3][N]; /* behaviour, axis, agent */
  uint32_t count[N];
} result;

static result first, now;

static void random_crowd(int dims, const crowdsteer_box *box) {
  for (size_t i = 0; i < N; i++) {
    px[i] = uniform(box->min[0], box->max[0]);
    py[i] = uniform(box->min[1], box->max[1]);
    pz[i] = uniform(box->min[2], box->max[2]);
    vx[i] = uniform(-1, 1), vy[i] = uniform(-1, 1), vz[i] = uniform(-1, 1);
    if (dims == 2) pz[i] = 0.0f;
  }
}

/* The three behaviours and the counts on agents [0, N) of the batch. */
static void run_all(int dims, size_t total, const crowdsteer_grid *grid, int form,
                    result *r) {
  crowdsteer_agents a = batch(dims, total);
  a.id = ids;
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius = 2.5f;
  nb.form = form;
  nb.max_neighbours = 12;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.0f;
  crowdsteer_status (*const fn[3])(
      const crowdsteer_agents *, const crowdsteer_neighbours *, const crowdsteer_params *,
      const crowdsteer_output *, size_t,
      size_t) = {crowdsteer_separation, crowdsteer_cohesion, crowdsteer_alignment};
  for (int b = 0; b < 3; b++) {
    crowdsteer_output out;
    memset(&out, 0, sizeof out);
    out.steering.x = r->s[b][0];
    out.steering.y = r->s[b][1];
    out.steering.z = dims == 3 ? r->s[b][2] : NULL;
    CHECK_STATUS(fn[b](&a, &nb, &params, &out, 0, N), CROWDSTEER_OK);
  }
  CHECK_STATUS(crowdsteer_neighbour_count(&a, &nb, r->count, 0, N), CROWDSTEER_OK);
}

static int same_result(const result *x, const result *y, int dims) {
  int same = 1;
  for (int b = 0; b < 3; b++)
    for (int k = 0; k < dims; k++)
      for (size_t i = 0; i < N; i++)
        same &= same_bits(x->s[b][k][i], y->s[b][k][i]);
  for (size_t i = 0; i < N; i++)
    same &= x->count[i] == y->count[i];
  return same;
}

/* The minimum image of a difference on a side of length L, in double. */
static double image(double d, double side) {
  if (d > side / 2) return d - side;
  if (d < -side / 2) return d + side;
  return d;
}

/* Counts (uncapped) and the default separation against a brute force with
 * minimum images in double; agents whose distance to some agent is within
 * 1e-4 of the radius are left out (float and double may differ there). */
static void against_brute_force(int dims, size_t total, const crowdsteer_box *box) {
  crowdsteer_agents a = batch(dims, total);
  a.id = ids;
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.radius = 2.5f;
  static uint32_t count[N];
  static float sx[N], sy[N], sz[N];
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering.x = sx, out.steering.y = sy, out.steering.z = dims == 3 ? sz : NULL;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.0f;
  CHECK_STATUS(crowdsteer_neighbour_count(&a, &nb, count, 0, N), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_separation(&a, &nb, &params, &out, 0, N), CROWDSTEER_OK);
  int compared = 0, across = 0;
  for (size_t i = 0; i < N; i++) {
    uint32_t want = 0;
    int borderline = 0, seam = 0;
    double s[3] = {0, 0, 0};
    for (size_t q = 0; q < N; q++) {
      if (q == i) continue;
      double d[3] = {0, 0, 0}, dd = 0;
      const float *p[3] = {px, py, pz};
      for (int k = 0; k < dims; k++) {
        const double raw = (double)p[k][i] - p[k][q];
        d[k] = image(raw, (double)box->max[k] - box->min[k]);
        seam |= d[k] != raw;
        dd += d[k] * d[k];
      }
      const double dist = sqrt(dd);
      if (fabs(dist - 2.5) < 1e-4) borderline = 1;
      if (dist < 2.5) {
        want++;
        for (int k = 0; k < dims; k++)
          s[k] += d[k] * (1 / dist - 1 / 2.5);
      }
    }
    if (borderline) continue;
    compared++;
    across += seam && want;
    CHECK_MSG(count[i] == want, "agent %zu sees %u, brute force %u", i, count[i], want);
    const float got[3] = {sx[i], sy[i], sz[i]};
    for (int k = 0; k < dims; k++)
      CHECK_NEAR(got[k], s[k], 1e-4 * (1 + fabs(s[k])));
  }
  CHECK(compared > N * 9 / 10 && across > 20);
}

static void every_way(int dims) {
  const crowdsteer_box box = {{-4, 1, -6}, {12, 14, 5}};
  random_crowd(dims, &box);
  const size_t total = extend(dims, N, &box, 2.5f, NULL);
  against_brute_force(dims, total, &box);
  crowdsteer_grid *grid = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = 2.5f;
  crowdsteer_agents a = batch(dims, total);
  CHECK_STATUS(crowdsteer_grid_build(grid, &a, &desc), CROWDSTEER_OK);
  for (int form = 0; form <= 1; form++) {
    run_all(dims, total, NULL, form, &first);
    run_all(dims, total, grid, form, &now);
    CHECK_MSG(same_result(&first, &now, dims), "grid != no grid (dims %d form %d)", dims,
              form);
  }
  /* The batch reversed, each agent keeping its id: the same bits per id. */
  static float keep[6][N];
  for (size_t i = 0; i < N; i++) {
    const float *src[6] = {px, py, pz, vx, vy, vz};
    for (int c = 0; c < 6; c++)
      keep[c][i] = src[c][i];
  }
  static uint32_t reversed_ids[N];
  for (size_t i = 0; i < N; i++) {
    float *dst[6] = {px, py, pz, vx, vy, vz};
    for (int c = 0; c < 6; c++)
      dst[c][i] = keep[c][N - 1 - i];
    reversed_ids[i] = (uint32_t)(N - 1 - i);
  }
  const size_t total2 = extend(dims, N, &box, 2.5f, reversed_ids);
  CHECK(total2 == total);
  a = batch(dims, total2);
  CHECK_STATUS(crowdsteer_grid_build(grid, &a, &desc), CROWDSTEER_OK);
  run_all(dims, total2, grid, 1, &now);
  int same = 1;
  for (int b = 0; b < 3; b++)
    for (int k = 0; k < dims; k++)
      for (size_t i = 0; i < N; i++)
        same &= same_bits(now.s[b][k][i], first.s[b][k][N - 1 - i]);
  CHECK_MSG(same, "a reversed batch with ids changed bits (dims %d)", dims);
  crowdsteer_grid_destroy(grid);
}

/* A step (separation and cohesion blended, then the integrator) on agents
 * [0, N) of the ghost batch: the composition of the named calls, bit for
 * bit, and no ghost is moved. */
static void step_on_ghosts(int dims) {
  const crowdsteer_box box = {{0, 0, 0}, {11, 9, 10}};
  random_crowd(dims, &box);
  const size_t total = extend(dims, N, &box, 2.0f, NULL);
  crowdsteer_agents a = batch(dims, total);
  a.id = ids;
  crowdsteer_grid *grid = NULL;
  crowdsteer_workspace *work = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_workspace_create(&work), CROWDSTEER_OK);
  crowdsteer_grid_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.cell_size = 2.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &a, &desc), CROWDSTEER_OK);
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.grid = grid;
  nb.radius = 2.0f;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.0f;
  /* The named calls, accumulated: separation then 0.5 * cohesion. */
  static float s[3][N], ghost_x[CAP];
  memset(s, 0, sizeof s);
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering.x = s[0], out.steering.y = s[1], out.steering.z = dims == 3 ? s[2] : NULL;
  out.mode = CROWDSTEER_ACCUMULATE;
  CHECK_STATUS(crowdsteer_separation(&a, &nb, &params, &out, 0, N), CROWDSTEER_OK);
  out.weight = 0.5f;
  CHECK_STATUS(crowdsteer_cohesion(&a, &nb, &params, &out, 0, N), CROWDSTEER_OK);
  static float want[6][N];
  float *state[6] = {px, py, pz, vx, vy, vz};
  for (int c = 0; c < 6; c++)
    memcpy(want[c], state[c], N * sizeof(float));
  memcpy(ghost_x, px, total * sizeof(float));
  crowdsteer_agents copy = {N,
                            dims,
                            want[0],
                            want[1],
                            dims == 3 ? want[2] : NULL,
                            want[3],
                            want[4],
                            dims == 3 ? want[5] : NULL,
                            NULL};
  const crowdsteer_vectors steering = out.steering;
  CHECK_STATUS(crowdsteer_integrate(&copy, &steering, &params, 0, N), CROWDSTEER_OK);
  crowdsteer_step_behaviour b[2];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_SEPARATION;
  b[0].neighbours = &nb;
  b[0].params = params;
  b[1] = b[0];
  b[1].behaviour = CROWDSTEER_COHESION;
  b[1].weight = 0.5f;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = 2;
  step.combine = CROWDSTEER_BLEND;
  step.integrator = params;
  step.workspace = work;
  step.threads = 2;
  step.tile_size = 64;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_OK);
  int same = 1;
  for (int c = 0; c < 6; c++)
    if (dims == 3 || (c != 2 && c != 5))
      for (size_t i = 0; i < N; i++)
        same &= same_bits(state[c][i], want[c][i]);
  for (size_t i = N; i < total; i++)
    same &= same_bits(px[i], ghost_x[i]);
  CHECK_MSG(same, "a step on the ghost batch != the named calls (dims %d)", dims);
  crowdsteer_workspace_destroy(work);
  crowdsteer_grid_destroy(grid);
}

/* Every ISA gives the bits of the first one tested. */
static result isa_first[2];
static int isa_seen;
static void across_isas(void) {
  for (int dims = 2; dims <= 3; dims++) {
    rng = 99u;
    const crowdsteer_box box = {{0, 0, 0}, {9, 8, 7}};
    random_crowd(dims, &box);
    const size_t total = extend(dims, N, &box, 2.5f, NULL);
    run_all(dims, total, NULL, 0, &now);
    if (!isa_seen)
      isa_first[dims - 2] = now;
    else
      CHECK_MSG(same_result(&isa_first[dims - 2], &now, dims), "ISA %s differs",
                crowdsteer_isa_name(crowdsteer_active_isa()));
  }
  isa_seen = 1;
}

static void validation(void) {
  const crowdsteer_box box = {{0, 0, 0}, {10, 10, 10}};
  for (size_t i = 0; i < 4; i++)
    px[i] = py[i] = pz[i] = 0.5f, vx[i] = vy[i] = vz[i] = 0.0f;
  px[4] = py[4] = pz[4] = -1.0f; /* outside: only in the batch of 5 */
  for (size_t i = 0; i < CAP; i++)
    ids[i] = 12345u, origin[i] = 12345u;
  const crowdsteer_agents a = batch(3, 4);
  size_t total = 99;
  CHECK_STATUS(crowdsteer_periodic_ghosts(NULL, NULL, &box, 1, CAP, ids, NULL, &total),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, NULL, 1, CAP, ids, NULL, &total),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, &box, 1, CAP, NULL, NULL, &total),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, &box, 1, CAP, ids, NULL, NULL),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_periodic_count(&a, &box, 1, NULL),
               CROWDSTEER_ERROR_NULL_POINTER);
  crowdsteer_agents bad = a;
  bad.dims = 1;
  CHECK_STATUS(crowdsteer_periodic_ghosts(&bad, NULL, &box, 1, CAP, ids, NULL, &total),
               CROWDSTEER_ERROR_DIMS);
  bad = a;
  bad.vz = NULL;
  CHECK_STATUS(crowdsteer_periodic_ghosts(&bad, NULL, &box, 1, CAP, ids, NULL, &total),
               CROWDSTEER_ERROR_NULL_POINTER);
  bad = a;
  bad.px = (float *)((char *)px + 2);
  CHECK_STATUS(crowdsteer_periodic_ghosts(&bad, NULL, &box, 1, CAP, ids, NULL, &total),
               CROWDSTEER_ERROR_ALIGNMENT);
  const float reaches[] = {0.0f, -1.0f, NAN, INFINITY, 4.8f /* sides <= 2 * 1.0625 r */};
  for (int r = 0; r < 5; r++)
    CHECK_STATUS(
        crowdsteer_periodic_ghosts(&a, NULL, &box, reaches[r], CAP, ids, NULL, &total),
        CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_periodic_count(&a, &box, 4.7f, &total),
               CROWDSTEER_OK); /* 10 > 2 * 1.0625 * 4.7 */
  for (int k = 0; k < 3; k++) {
    crowdsteer_box b = box;
    b.max[k] = b.min[k];
    CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, &b, 1, CAP, ids, NULL, &total),
                 CROWDSTEER_ERROR_PARAMETER);
    b = box;
    b.min[k] = NAN;
    CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, &b, 1, CAP, ids, NULL, &total),
                 CROWDSTEER_ERROR_PARAMETER);
    b = box;
    b.max[k] = INFINITY;
    CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, &b, 1, CAP, ids, NULL, &total),
                 CROWDSTEER_ERROR_PARAMETER);
  }
  const crowdsteer_agents outside = batch(3, 5);
  CHECK_STATUS(
      crowdsteer_periodic_ghosts(&outside, NULL, &box, 1, CAP, ids, NULL, &total),
      CROWDSTEER_ERROR_PARAMETER);
  /* Each of the 4 agents at (0.5, 0.5, 0.5) has 7 ghosts: 32 in all. */
  CHECK_STATUS(crowdsteer_periodic_count(&a, &box, 1, &total), CROWDSTEER_OK);
  CHECK(total == 32);
  total = 99;
  CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, &box, 1, 31, ids, NULL, &total),
               CROWDSTEER_ERROR_RANGE);
  CHECK_STATUS(
      crowdsteer_periodic_ghosts(&a, NULL, &box, 1, CAP, (uint32_t *)px, NULL, &total),
      CROWDSTEER_ERROR_OVERLAP);
  CHECK_STATUS(crowdsteer_periodic_ghosts(&a, NULL, &box, 1, CAP, ids, ids, &total),
               CROWDSTEER_ERROR_OVERLAP);
  CHECK(total == 99);
  for (size_t i = 0; i < CAP; i++)
    CHECK(ids[i] == 12345u && origin[i] == 12345u);
  /* Group bits follow their agent. */
  static uint32_t group[CAP];
  for (size_t i = 0; i < 4; i++)
    group[i] = 1u << i;
  CHECK_STATUS(crowdsteer_periodic_ghosts(&a, group, &box, 1, CAP, ids, origin, &total),
               CROWDSTEER_OK);
  for (size_t s = 0; s < total; s++)
    CHECK(group[s] == 1u << origin[s] && ids[s] == origin[s]);
  CHECK(px[4] == 10.5f && py[4] == 0.5f && pz[4] == 0.5f); /* first ghost: x shifted */
}

/* The ghosts' shifts in a hostile rounding mode: the same bits. */
static void hostile_rounding(void) {
  const crowdsteer_box box = {{0.1f, 0.3f, 0.7f}, {9.9f, 8.3f, 7.1f}};
  random_crowd(3, &box);
  static float want[CAP];
  const size_t total = extend(3, N, &box, 1.3f, NULL);
  memcpy(want, px, total * sizeof(float));
  fesetround(FE_UPWARD);
  const size_t again = extend(3, N, &box, 1.3f, NULL);
  CHECK(fegetround() == FE_UPWARD);
  fesetround(FE_TONEAREST);
  CHECK(again == total && memcmp(want, px, total * sizeof(float)) == 0);
}

static void every_case(void) {
  hand();
  hostile_rounding();
  across_isas();
  validation();
}

int main(void) {
  if (!on_every_isa(every_case)) return 77;
  every_way(2);
  every_way(3);
  step_on_ghosts(2);
  step_on_ghosts(3);
  return check_report("test_periodic");
}
