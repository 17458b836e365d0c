/* Bad input to the grid and to the neighbour behaviours: the documented
 * status, and nothing written; per-agent arrays read only over the call's
 * range; and the grid's agent order and crowdsteer_reorder. */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */
#include <float.h>
#include <sys/mman.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <unistd.h>

#include "../common/neighbour_crowd.h"

static crowd c;
static crowdsteer_grid *grid;

/* Runs every behaviour with `nb`; each must return `want` and, on error,
 * leave the output untouched. */
static void expect(const crowdsteer_neighbours *nb, const crowdsteer_params *params,
                   crowdsteer_status want, int line) {
  crowdsteer_output out = crowd_output(&c);
  for (int b = 0; b < NB_BEHAVIOURS; b++) {
    for (int k = 0; k < 2; k++)
      for (size_t i = 0; i < c.count; i++)
        c.out[k][i] = 42.0f;
    crowdsteer_status got = nb_call(b, &c, nb, params, &out, 0, c.count);
    CHECK_MSG(got == want, "line %d %s: status %d, expected %d", line, nb_name(b),
              (int)got, (int)want);
    if (want == CROWDSTEER_OK) continue;
    for (int k = 0; k < 2; k++)
      for (size_t i = 0; i < c.count; i++)
        CHECK_MSG(c.out[k][i] == 42.0f, "line %d: written on error", line);
  }
}
#define EXPECT(nb, params, want) expect(nb, params, want, __LINE__)

static void test_build(void) {
  crowdsteer_grid_desc desc = {0};
  CHECK_STATUS(crowdsteer_grid_create(NULL), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_ERROR_PARAMETER);
  /* A normal float (its reciprocal finite): the smallest is accepted. */
  const float bad_cells[] = {-1.0f, NAN, INFINITY, 1e-39f, 0x1p-127f, 0x1p-149f, -0.0f};
  for (size_t i = 0; i < sizeof bad_cells / sizeof bad_cells[0]; i++) {
    desc.cell_size = bad_cells[i];
    CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc),
                 CROWDSTEER_ERROR_PARAMETER);
  }
  crowdsteer_grid *other; /* `grid` stays unbuilt for test_queries */
  CHECK_STATUS(crowdsteer_grid_create(&other), CROWDSTEER_OK);
  desc.cell_size = FLT_MIN;
  CHECK_STATUS(crowdsteer_grid_build(other, &c.agents, &desc), CROWDSTEER_OK);
  desc.cell_size = FLT_MAX;
  CHECK_STATUS(crowdsteer_grid_build(other, &c.agents, &desc), CROWDSTEER_OK);
  crowdsteer_grid_destroy(other);
  desc.cell_size = 1.0f;
  desc.table_size = 48;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_ERROR_PARAMETER);
  desc.table_size = 0;
  desc.threads = -1;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_ERROR_PARAMETER);
  desc.threads = 0;
  CHECK_STATUS(crowdsteer_grid_build(NULL, &c.agents, &desc),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_grid_build(grid, NULL, &desc), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, NULL),
               CROWDSTEER_ERROR_NULL_POINTER);
  crowdsteer_agents bad = c.agents;
  bad.dims = 4;
  CHECK_STATUS(crowdsteer_grid_build(grid, &bad, &desc), CROWDSTEER_ERROR_DIMS);
  bad = c.agents;
  bad.vy = NULL;
  CHECK_STATUS(crowdsteer_grid_build(grid, &bad, &desc), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK(crowdsteer_grid_bytes(NULL) == 0);
  crowdsteer_grid_destroy(NULL);
}

static void test_queries(void) {
  crowdsteer_neighbours nb = {0};
  crowdsteer_params params = {0};
  /* Not built yet. */
  nb.grid = grid;
  EXPECT(&nb, &params, CROWDSTEER_ERROR_GRID);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 2.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  EXPECT(&nb, &params, CROWDSTEER_OK); /* radius 0: the cell size */
  EXPECT(NULL, &params, CROWDSTEER_ERROR_NULL_POINTER);
  const float bad_radii[] = {-1.0f, NAN, 2.5f, 1e-20f, INFINITY};
  for (size_t i = 0; i < sizeof bad_radii / sizeof bad_radii[0]; i++) {
    nb.radius = bad_radii[i];
    EXPECT(&nb, &params, CROWDSTEER_ERROR_PARAMETER);
  }
  nb.radius = 2.0f;
  EXPECT(&nb, &params, CROWDSTEER_OK);
  float radii[64];
  for (int i = 0; i < 64; i++)
    radii[i] = 1.0f;
  nb.radius_per_agent = radii;
  radii[0] = 0.0f; /* sees no one: allowed */
  EXPECT(&nb, &params, CROWDSTEER_OK);
  radii[63] = 3.0f;
  EXPECT(&nb, &params, CROWDSTEER_ERROR_PARAMETER);
  radii[63] = 1.0f;
  nb.field_of_view = 1;
  nb.cos_field_of_view = 1.5f;
  EXPECT(&nb, &params, CROWDSTEER_ERROR_PARAMETER);
  nb.cos_field_of_view = NAN;
  EXPECT(&nb, &params, CROWDSTEER_ERROR_PARAMETER);
  nb.cos_field_of_view = 0.0f;
  EXPECT(&nb, &params, CROWDSTEER_OK);
  nb.neighbour_mask = 1u; /* the grid has no groups */
  EXPECT(&nb, &params, CROWDSTEER_ERROR_PARAMETER);
  desc.group = c.group;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  EXPECT(&nb, &params, CROWDSTEER_OK);
  /* A grid of another count or dims. */
  crowd other;
  crowd_init(&other, 10, 2);
  CHECK_STATUS(crowdsteer_grid_build(grid, &other.agents, &desc), CROWDSTEER_OK);
  EXPECT(&nb, &params, CROWDSTEER_ERROR_GRID);
  crowd_free(&other);
  crowd_init(&other, 64, 3);
  CHECK_STATUS(crowdsteer_grid_build(grid, &other.agents, &desc), CROWDSTEER_OK);
  EXPECT(&nb, &params, CROWDSTEER_ERROR_GRID);
  crowd_free(&other);
  /* Without a grid: a uniform radius is required, groups need an array. */
  memset(&nb, 0, sizeof nb);
  EXPECT(&nb, &params, CROWDSTEER_ERROR_PARAMETER);
  nb.radius = 1e30f; /* no cell size to respect */
  EXPECT(&nb, &params, CROWDSTEER_OK);
  nb.neighbour_mask = 1u;
  EXPECT(&nb, &params, CROWDSTEER_ERROR_PARAMETER);
  nb.group = c.group;
  EXPECT(&nb, &params, CROWDSTEER_OK);
  /* Range and output checks as everywhere. */
  crowdsteer_output out = crowd_output(&c);
  CHECK_STATUS(crowdsteer_separation(&c.agents, &nb, NULL, &out, 5, 4),
               CROWDSTEER_ERROR_RANGE);
  CHECK_STATUS(crowdsteer_separation(&c.agents, &nb, NULL, &out, 0, 65),
               CROWDSTEER_ERROR_RANGE);
  out.mode = (crowdsteer_write_mode)7;
  CHECK_STATUS(crowdsteer_cohesion(&c.agents, &nb, NULL, &out, 0, 64),
               CROWDSTEER_ERROR_PARAMETER);
  out = crowd_output(&c);
  out.steering.y = NULL;
  CHECK_STATUS(crowdsteer_alignment(&c.agents, &nb, NULL, &out, 0, 64),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_alignment(&c.agents, &nb, NULL, &out, 3, 3), CROWDSTEER_OK);
  CHECK(strcmp(crowdsteer_status_string(CROWDSTEER_ERROR_GRID), "unknown status") != 0);
  CHECK(strcmp(crowdsteer_status_string(CROWDSTEER_ERROR_OUT_OF_MEMORY),
               "unknown status") != 0);
}

/* A copy of `a` starting 1 byte off 4-byte alignment (same values). */
static void *misaligned(void *storage, const void *a, size_t bytes) {
  char *moved = (char *)storage + 1;
  memcpy(moved, a, bytes);
  return moved;
}

/* Every array the grid build and the queries read, moved off its 4-byte
 * alignment: ALIGNMENT, nothing written. */
static void test_alignment(void) {
  enum { BYTES = 64 * sizeof(float) };
  static char storage[BYTES + 8];
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  for (int a = 0; a < 5; a++) {
    crowdsteer_agents moved = c.agents;
    float **axes[4] = {&moved.px, &moved.py, &moved.vx, &moved.vy};
    desc.group = NULL;
    if (a < 4)
      *axes[a] = (float *)misaligned(storage, *axes[a], BYTES);
    else
      desc.group = (const uint32_t *)misaligned(storage, c.group, BYTES);
    CHECK_STATUS(crowdsteer_grid_build(grid, &moved, &desc), CROWDSTEER_ERROR_ALIGNMENT);
  }
  desc.group = c.group;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  float radii[64], cosines[64];
  uint32_t masks[64];
  for (int i = 0; i < 64; i++) {
    radii[i] = 0.5f;
    cosines[i] = 0.0f;
    masks[i] = 3u;
  }
  for (int a = 0; a < 4; a++) {
    crowdsteer_neighbours nb = {0};
    nb.grid = a < 3 ? grid : NULL;
    nb.radius = 1.0f;
    if (a == 0) nb.radius_per_agent = (const float *)misaligned(storage, radii, BYTES);
    if (a == 1) {
      nb.field_of_view = 1;
      nb.cos_field_of_view_per_agent = (const float *)misaligned(storage, cosines, BYTES);
    }
    if (a == 2)
      nb.neighbour_mask_per_agent = (const uint32_t *)misaligned(storage, masks, BYTES);
    if (a == 3) { /* the brute force reads the group bits itself */
      nb.neighbour_mask = 1u;
      nb.group = (const uint32_t *)misaligned(storage, c.group, BYTES);
    }
    EXPECT(&nb, NULL, CROWDSTEER_ERROR_ALIGNMENT);
  }
}

/* Each behaviour validates only the parameters it reads (separation
 * max_speed, alignment time_to_target, cohesion both): a bad value in a
 * field it does not read changes neither the status nor a bit, in a call
 * of its own and in a step. */
static void test_params_read(void) {
  enum { MAX_SPEED = 1, TIME_TO_TARGET = 2, BYTES = 64 * sizeof(float) };
  static const unsigned reads[NB_BEHAVIOURS] = {[NB_SEPARATION] = MAX_SPEED,
                                                [NB_COHESION] =
                                                    MAX_SPEED | TIME_TO_TARGET,
                                                [NB_ALIGNMENT] = TIME_TO_TARGET};
  static char storage[BYTES + 8];
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 2.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &c.agents, &desc), CROWDSTEER_OK);
  crowdsteer_neighbours nb = {0};
  nb.grid = grid;
  float one_nan[64], ones[64];
  for (int i = 0; i < 64; i++)
    one_nan[i] = ones[i] = 1.0f;
  one_nan[37] = NAN;
  const float *shifted = (const float *)misaligned(storage, ones, BYTES);
  crowdsteer_output out = crowd_output(&c);
  crowd next; /* the steps' output: the crowd itself never moves */
  crowd_init(&next, c.count, c.dims);
  for (int b = 0; b < NB_BEHAVIOURS; b++) {
    float want[2][64];
    CHECK_STATUS(nb_call(b, &c, &nb, NULL, &out, 0, c.count), CROWDSTEER_OK);
    for (int k = 0; k < 2; k++)
      memcpy(want[k], c.out[k], sizeof want[k]);
    for (int field = MAX_SPEED; field <= TIME_TO_TARGET; field++)
      for (int bad = 0; bad < 4; bad++) {
        crowdsteer_params params = {0};
        float *uniform = field == MAX_SPEED ? &params.max_speed : &params.time_to_target;
        const float **array = field == MAX_SPEED ? &params.max_speed_per_agent
                                                 : &params.time_to_target_per_agent;
        if (bad < 2)
          *uniform = bad ? NAN : -1.0f;
        else
          *array = bad == 2 ? one_nan : shifted;
        const crowdsteer_status expected = !(reads[b] & field) ? CROWDSTEER_OK
                                           : bad == 3 ? CROWDSTEER_ERROR_ALIGNMENT
                                                      : CROWDSTEER_ERROR_PARAMETER;
        for (int k = 0; k < 2; k++)
          for (size_t i = 0; i < c.count; i++)
            c.out[k][i] = 42.0f;
        CHECK_MSG(nb_call(b, &c, &nb, &params, &out, 0, c.count) == expected,
                  "%s field %d bad %d: status", nb_name(b), field, bad);
        for (int k = 0; k < 2; k++)
          for (size_t i = 0; i < c.count; i++)
            CHECK_MSG(expected == CROWDSTEER_OK
                          ? memcmp(&c.out[k][i], &want[k][i], sizeof(float)) == 0
                          : c.out[k][i] == 42.0f,
                      "%s field %d bad %d: output", nb_name(b), field, bad);
        /* The same behaviour alone in a step: the same status. */
        crowdsteer_step_behaviour sb;
        memset(&sb, 0, sizeof sb);
        sb.behaviour = (crowdsteer_behaviour)(CROWDSTEER_SEPARATION + b);
        sb.neighbours = &nb;
        sb.params = params;
        crowdsteer_step_desc step;
        memset(&step, 0, sizeof step);
        step.behaviours = &sb;
        step.behaviour_count = 1;
        step.threads = 1;
        step.output = &next.agents;
        CHECK_MSG(crowdsteer_step(&c.agents, &step, 0, c.count) == expected,
                  "%s field %d bad %d: step status", nb_name(b), field, bad);
      }
  }
  crowd_free(&next);
}

/* `count` elements of 4 bytes in whole pages, readable only over [begin,
 * end) (page-aligned indices): any read of another agent's value faults. */
static void *guarded(size_t count, size_t begin, size_t end) {
  void *all =
      mmap(NULL, count * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (all == MAP_FAILED) return NULL;
  char *bytes = all;
  if (begin && mprotect(bytes, begin * 4, PROT_NONE) != 0) return NULL;
  if (end < count && mprotect(bytes + end * 4, (count - end) * 4, PROT_NONE) != 0)
    return NULL;
  return all;
}

/* Per-agent radius, neighbour mask and field of view are read for the
 * agents of [begin, end) only (a host may hand over per-range buffers):
 * the others' pages are unreadable, and the results are those of whole
 * arrays holding the same values. */
static void test_range_only_read(void) {
  const size_t quarter = (size_t)sysconf(_SC_PAGESIZE) / 4, count = 4 * quarter;
  const size_t begin = quarter, end = 2 * quarter;
  crowd big;
  crowd_init(&big, count, 2);
  rng r = {5u};
  crowd_random(&big, &r, 8.0f);
  crowdsteer_grid *g = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&g), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  desc.group = big.group;
  CHECK_STATUS(crowdsteer_grid_build(g, &big.agents, &desc), CROWDSTEER_OK);
  float *radius = guarded(count, begin, end), *cosine = guarded(count, begin, end);
  uint32_t *mask = guarded(count, begin, end);
  float *whole_radius = calloc(count, sizeof(float));
  float *whole_cosine = calloc(count, sizeof(float));
  uint32_t *whole_mask = calloc(count, sizeof(uint32_t));
  CHECK(radius && cosine && mask && whole_radius && whole_cosine && whole_mask);
  if (!(radius && cosine && mask && whole_radius && whole_cosine && whole_mask)) return;
  for (size_t i = begin; i < end; i++) {
    radius[i] = whole_radius[i] = 0.25f + 0.75f * (float)(i % 4) / 3.0f;
    cosine[i] = whole_cosine[i] = (float)(i % 3) - 1.0f;
    mask[i] = whole_mask[i] = 1u + (uint32_t)(i % 15);
  }
  crowdsteer_params params = {0};
  crowdsteer_output out = crowd_output(&big);
  float *expected[2] = {calloc(count, sizeof(float)), calloc(count, sizeof(float))};
  for (int b = 0; b < NB_BEHAVIOURS; b++) {
    crowdsteer_neighbours nb = {0};
    nb.grid = g;
    nb.field_of_view = 1;
    nb.radius_per_agent = whole_radius;
    nb.cos_field_of_view_per_agent = whole_cosine;
    nb.neighbour_mask_per_agent = whole_mask;
    CHECK_STATUS(nb_call(b, &big, &nb, &params, &out, begin, end), CROWDSTEER_OK);
    for (int k = 0; k < 2; k++)
      memcpy(expected[k], big.out[k], count * sizeof(float));
    nb.radius_per_agent = radius;
    nb.cos_field_of_view_per_agent = cosine;
    nb.neighbour_mask_per_agent = mask;
    CHECK_STATUS(nb_call(b, &big, &nb, &params, &out, begin, end), CROWDSTEER_OK);
    for (int k = 0; k < 2; k++)
      CHECK_MSG(memcmp(expected[k], big.out[k], count * sizeof(float)) == 0,
                "%s: guarded per-agent arrays change the result", nb_name(b));
  }
  free(expected[0]);
  free(expected[1]);
  free(whole_radius);
  free(whole_cosine);
  free(whole_mask);
  munmap(radius, count * 4);
  munmap(cosine, count * 4);
  munmap(mask, count * 4);
  crowdsteer_grid_destroy(g);
  crowd_free(&big);
}

/* A grid of positions only: built without velocity arrays, smaller, and
 * queried by separation without a field of view only (the rest read
 * velocities: PARAMETER, nothing written), alone or in a step. */
static void test_positions_only(void) {
  crowdsteer_grid *full, *lean;
  CHECK_STATUS(crowdsteer_grid_create(&full), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_grid_create(&lean), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 2.0f;
  CHECK_STATUS(crowdsteer_grid_build(full, &c.agents, &desc), CROWDSTEER_OK);
  crowdsteer_agents positions = c.agents;
  positions.vx = positions.vy = NULL;
  CHECK_STATUS(crowdsteer_grid_build(lean, &positions, &desc),
               CROWDSTEER_ERROR_NULL_POINTER);
  desc.positions_only = 1;
  CHECK_STATUS(crowdsteer_grid_build(lean, &positions, &desc), CROWDSTEER_OK);
  /* 2 dims of velocities fewer in the copy and the records: 16 bytes. */
  CHECK(crowdsteer_grid_bytes(full) - crowdsteer_grid_bytes(lean) >= c.count * 16);
  crowdsteer_output out = crowd_output(&c);
  crowdsteer_params params = {0};
  for (int view = 0; view < 2; view++)
    for (int b = 0; b < NB_BEHAVIOURS; b++) {
      crowdsteer_neighbours nb = {0};
      nb.grid = lean;
      nb.field_of_view = view;
      for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < c.count; i++)
          c.out[k][i] = 42.0f;
      const crowdsteer_status want =
          b == NB_SEPARATION && !view ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
      CHECK_STATUS(nb_call(b, &c, &nb, &params, &out, 0, c.count), want);
      if (want == CROWDSTEER_OK) continue;
      for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < c.count; i++)
          CHECK_MSG(c.out[k][i] == 42.0f, "%s on a positions-only grid wrote",
                    nb_name(b));
    }
  /* In a step: cohesion on it is rejected before anything is written. */
  crowdsteer_neighbours nb = {0};
  nb.grid = lean;
  crowdsteer_step_behaviour behaviours[2];
  memset(behaviours, 0, sizeof behaviours);
  behaviours[0].behaviour = CROWDSTEER_SEPARATION;
  behaviours[0].neighbours = &nb;
  behaviours[1].behaviour = CROWDSTEER_COHESION;
  behaviours[1].neighbours = &nb;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = behaviours;
  step.behaviour_count = 1;
  step.threads = 1;
  float before = c.agents.px[3];
  CHECK_STATUS(crowdsteer_step(&c.agents, &step, 0, c.count), CROWDSTEER_OK);
  CHECK(c.agents.px[3] != before || c.agents.vx[3] == 0.0f);
  step.behaviour_count = 2;
  before = c.agents.px[3];
  CHECK_STATUS(crowdsteer_step(&c.agents, &step, 0, c.count), CROWDSTEER_ERROR_PARAMETER);
  CHECK(same_bits(c.agents.px[3], before));
  crowdsteer_grid_destroy(full);
  crowdsteer_grid_destroy(lean);
}

/* The order of one build of `w`: a permutation that keeps each cell's
 * agents by increasing index; reordering the batch by it and building
 * again gives the identity. */
static void check_order(crowd *w, float cell, int threads) {
  crowdsteer_grid *g;
  CHECK_STATUS(crowdsteer_grid_create(&g), CROWDSTEER_OK);
  size_t count = 99;
  CHECK(crowdsteer_grid_order(g, &count) == NULL && count == 0);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = cell;
  desc.threads = threads;
  CHECK_STATUS(crowdsteer_grid_build(g, &w->agents, &desc), CROWDSTEER_OK);
  const uint32_t *order = crowdsteer_grid_order(g, &count);
  CHECK(order != NULL && count == w->count);
  CHECK(crowdsteer_grid_order(g, NULL) == order);
  uint8_t *seen = calloc(w->count, 1);
  int64_t(*cells)[3] = calloc(w->count, sizeof *cells);
  for (size_t s = 0; s < count; s++) {
    CHECK(order[s] < w->count && !seen[order[s]]);
    seen[order[s]] = 1;
    for (int k = 0; k < w->dims; k++) /* finite here: floor is the cell */
      cells[s][k] = (int64_t)floorf(w->a[k][order[s]] / cell);
  }
  /* Stable: a cell's agents (in one bucket, maybe with another cell's)
   * by increasing index. */
  for (size_t s = 1; s < count; s++) {
    size_t q = s;
    while (q-- > 0 && memcmp(cells[q], cells[s], sizeof cells[s]) != 0) {
    }
    if (q < s) CHECK(order[q] < order[s]);
  }
  crowd sorted;
  crowd_init(&sorted, w->count, w->dims);
  for (int k = 0; k < 6; k++)
    CHECK_STATUS(crowdsteer_reorder(sorted.a[k], w->a[k], order, count), CROWDSTEER_OK);
  for (size_t s = 0; s < count; s++)
    for (int k = 0; k < 6; k++)
      CHECK(same_bits(sorted.a[k][s], w->a[k][order[s]]));
  CHECK_STATUS(crowdsteer_grid_build(g, &sorted.agents, &desc), CROWDSTEER_OK);
  order = crowdsteer_grid_order(g, &count);
  size_t moved = 0;
  for (size_t s = 0; s < count; s++)
    moved += order[s] != s;
  CHECK_MSG(moved == 0, "a sorted batch reordered again: %zu agents moved", moved);
  /* A failed build keeps the last order. */
  desc.cell_size = -1.0f;
  CHECK_STATUS(crowdsteer_grid_build(g, &w->agents, &desc), CROWDSTEER_ERROR_PARAMETER);
  CHECK(crowdsteer_grid_order(g, &count) == order && count == w->count);
  crowd_free(&sorted);
  free(cells);
  free(seen);
  crowdsteer_grid_destroy(g);
}

static void test_order(void) {
  CHECK(crowdsteer_grid_order(NULL, NULL) == NULL);
  { /* an empty batch: built, no slots */
    crowdsteer_grid *g;
    CHECK_STATUS(crowdsteer_grid_create(&g), CROWDSTEER_OK);
    crowdsteer_agents none = c.agents;
    none.count = 0;
    crowdsteer_grid_desc desc = {0};
    desc.cell_size = 1.0f;
    CHECK_STATUS(crowdsteer_grid_build(g, &none, &desc), CROWDSTEER_OK);
    size_t count = 99;
    CHECK(crowdsteer_grid_order(g, &count) != NULL && count == 0);
    crowdsteer_grid_destroy(g);
  }
  for (int dims = 2; dims <= 3; dims++) {
    crowd w;
    crowd_init(&w, 700, dims);
    rng r = {29u + (uint64_t)dims};
    crowd_random(&w, &r, 8.0f);
    for (size_t i = 0; i < 60; i++) /* a cluster in one cell, and duplicates */
      for (int k = 0; k < dims; k++)
        w.a[k][i * 11] = i % 3 == 0 ? 0.25f : w.a[k][i * 11 + 1];
    check_order(&w, 1.0f, 1);
    check_order(&w, 0.37f, 2);
    crowd_free(&w);
  }
  /* crowdsteer_reorder's errors write nothing. */
  uint32_t order[4] = {2, 0, 3, 1}, in[4] = {10, 11, 12, 13}, out[8];
  for (int k = 0; k < 8; k++)
    out[k] = 7;
  CHECK_STATUS(crowdsteer_reorder(NULL, NULL, NULL, 0), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_reorder(NULL, in, order, 4), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_reorder(out, NULL, order, 4), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_reorder(out, in, NULL, 4), CROWDSTEER_ERROR_NULL_POINTER);
  /* Overlap here is PARAMETER, not OVERLAP (docs/guarantees.md says why). */
  CHECK_STATUS(crowdsteer_reorder(in, in, order, 4), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_reorder(out + 3, out, order, 4), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_reorder(order + 1, in, order, 3), CROWDSTEER_ERROR_PARAMETER);
  order[3] = 4;
  CHECK_STATUS(crowdsteer_reorder(out, in, order, 4), CROWDSTEER_ERROR_RANGE);
  for (int k = 0; k < 8; k++)
    CHECK(out[k] == 7);
  order[3] = 1;
  CHECK_STATUS(crowdsteer_reorder(out, in, order, 4), CROWDSTEER_OK);
  CHECK(out[0] == 12 && out[1] == 10 && out[2] == 13 && out[3] == 11 && out[4] == 7);
  /* Bits, not values: a NaN payload and -0 survive. */
  const uint32_t bits[2] = {0x7fc01234u, 0x80000000u}, swap[2] = {1, 0};
  uint32_t copied[2];
  CHECK_STATUS(crowdsteer_reorder(copied, bits, swap, 2), CROWDSTEER_OK);
  CHECK(copied[0] == bits[1] && copied[1] == bits[0]);
}

/* Steering of agents [0, QUERIED) of w on grid g (the same call for both
 * grids compared): alignment with a group filter reads the grid's
 * positions, velocities, groups and bucket starts around them. */
enum { QUERIED = 4000 };
static void aligned_steering(crowd *w, const crowdsteer_grid *g, float *out[3]) {
  crowdsteer_neighbours nb = {0};
  nb.grid = g;
  nb.radius = 1.0f;
  nb.neighbour_mask = 0x5u;
  crowdsteer_params params = {0};
  params.max_speed = 1.5f;
  params.time_to_target = 0.5f;
  crowdsteer_output o = {0};
  o.steering = (crowdsteer_vectors){out[0], out[1], out[2]};
  CHECK_STATUS(crowdsteer_alignment(&w->agents, &nb, &params, &o, 0, QUERIED),
               CROWDSTEER_OK);
}

/* Slots whose agent differs between two grids' orders (all of them when
 * the counts differ). */
static size_t slots_differ(const crowdsteer_grid *a, const crowdsteer_grid *b) {
  size_t na, nb;
  const uint32_t *oa = crowdsteer_grid_order(a, &na), *ob = crowdsteer_grid_order(b, &nb);
  if (na != nb) return na > nb ? na : nb;
  size_t differ = 0;
  for (size_t s = 0; s < na; s++)
    differ += oa[s] != ob[s];
  return differ;
}

/* A crowd of `count` agents at 8 neighbours: in random order (0), in its
 * grid's cell order (1), or sorted and then each agent nudged by up to 0.3
 * cells on each axis (2). */
static void arranged_crowd(crowd *w, size_t count, int dims, int arrangement) {
  crowd_init(w, count, dims);
  rng r = {41u + count + (uint64_t)dims};
  crowd_random(w, &r, 8.0f);
  if (arrangement == 0) return;
  crowdsteer_grid *g;
  CHECK_STATUS(crowdsteer_grid_create(&g), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  CHECK_STATUS(crowdsteer_grid_build(g, &w->agents, &desc), CROWDSTEER_OK);
  size_t n;
  const uint32_t *order = crowdsteer_grid_order(g, &n);
  crowd sorted;
  crowd_init(&sorted, count, dims);
  for (int k = 0; k < 6; k++)
    CHECK_STATUS(crowdsteer_reorder(sorted.a[k], w->a[k], order, n), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_reorder(sorted.group, w->group, order, n), CROWDSTEER_OK);
  for (int k = 0; k < 6; k++)
    memcpy(w->a[k], sorted.a[k], count * sizeof(float));
  memcpy(w->group, sorted.group, count * sizeof(uint32_t));
  crowd_free(&sorted);
  crowdsteer_grid_destroy(g);
  if (arrangement == 2)
    for (size_t i = 0; i < count; i++)
      for (int k = 0; k < dims; k++)
        w->a[k][i] += rng_range(&r, -0.3f, 0.3f);
}

/* A grid build sorts through partitions or directly, on one thread or a
 * team, by the batch's size and order: every way must give the same grid,
 * the order and every query's bits (compared with the partitioned passes
 * on one thread). way: 0 the build's choice, 1 partitioned, 2 direct. */
static void check_sorts(size_t count, int dims, int arrangement, size_t table,
                        const int ways[][2], int n_ways) {
  crowd w;
  arranged_crowd(&w, count, dims, arrangement);
  crowdsteer_grid *want, *got;
  CHECK_STATUS(crowdsteer_grid_create(&want), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_grid_create(&got), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  desc.table_size = table;
  desc.group = w.group;
  desc.threads = 1;
  cs_grid_set_sort(1);
  cs_set_write_prefetch(0); /* the other builds with the CPU's prefetch */
  CHECK_STATUS(crowdsteer_grid_build(want, &w.agents, &desc), CROWDSTEER_OK);
  cs_set_write_prefetch(1);
  float *want_out[3], *got_out[3];
  for (int k = 0; k < 3; k++) {
    want_out[k] = calloc(count + 1, sizeof(float));
    got_out[k] = calloc(count + 1, sizeof(float));
  }
  aligned_steering(&w, want, want_out);
  for (int v = 0; v < n_ways; v++) {
    cs_grid_set_sort(ways[v][0]);
    desc.threads = ways[v][1];
    CHECK_STATUS(crowdsteer_grid_build(got, &w.agents, &desc), CROWDSTEER_OK);
    size_t slots;
    crowdsteer_grid_order(got, &slots);
    size_t differ = slots_differ(want, got) + (slots != count);
    aligned_steering(&w, got, got_out);
    for (size_t i = 0; i < QUERIED && i < count; i++)
      for (int k = 0; k < dims; k++)
        differ += !same_bits(want_out[k][i], got_out[k][i]);
    CHECK_MSG(differ == 0,
              "%zu agents, %dD, arrangement %d, table %zu, sort %d on %d threads: %zu "
              "differences",
              count, dims, arrangement, table, ways[v][0], ways[v][1], differ);
  }
  cs_grid_set_sort(0);
  for (int k = 0; k < 3; k++) {
    free(want_out[k]);
    free(got_out[k]);
  }
  crowdsteer_grid_destroy(want);
  crowdsteer_grid_destroy(got);
  crowd_free(&w);
}

/* A build asked for 2 threads inside the caller's own parallel region,
 * where OpenMP gives it a team of one (nested regions inactive): the same
 * grid as on one thread, through the partitioned passes (a random crowd)
 * and the direct sort (a sorted one). The teams split their shares by the
 * team they get; split by the threads asked, the shares of the missing
 * thread went undone (299,997 of 300,000 slots wrong). */
static void check_nested_build(int dims, int arrangement) {
#ifdef _OPENMP
  crowd w;
  arranged_crowd(&w, 140000, dims, arrangement);
  crowdsteer_grid *one, *nested;
  CHECK_STATUS(crowdsteer_grid_create(&one), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_grid_create(&nested), CROWDSTEER_OK);
  crowdsteer_grid_desc desc = {0};
  desc.cell_size = 1.0f;
  desc.threads = 1;
  CHECK_STATUS(crowdsteer_grid_build(one, &w.agents, &desc), CROWDSTEER_OK);
  desc.threads = 2;
  crowdsteer_status status = CROWDSTEER_ERROR_PARAMETER;
  omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    status = crowdsteer_grid_build(nested, &w.agents, &desc);
  }
  CHECK_STATUS(status, CROWDSTEER_OK);
  const size_t differ = slots_differ(one, nested);
  CHECK_MSG(differ == 0, "%dD, arrangement %d: a nested build differs in %zu slots", dims,
            arrangement, differ);
  crowdsteer_grid_destroy(one);
  crowdsteer_grid_destroy(nested);
  crowd_free(&w);
#else
  (void)dims;
  (void)arrangement;
#endif
}

static void test_sorts(void) {
  static const int forced[][2] = {{2, 1}, {2, 2}, {2, 3}, {1, 2}, {1, 3}, {0, 1}, {0, 2}};
  static const int chosen[][2] = {{0, 1}, {0, 2}};
  static const size_t tables[3] = {0, 1u << 12, 1u << 17};
  for (int dims = 2; dims <= 3; dims++) {
    for (int arrangement = 0; arrangement < 3; arrangement++)
      for (int t = 0; t < 3; t++)
        check_sorts(20000, dims, arrangement, tables[t], forced, 7);
    /* Past 2^17 agents the build chooses by the batch's order. */
    for (int arrangement = 0; arrangement < 3; arrangement++)
      check_sorts(140000, dims, arrangement, 0, chosen, 2);
    check_nested_build(dims, 0);
    check_nested_build(dims, 1);
  }
}

/* ---- overlap ------------------------------------------------------------------
 * The output moved onto every other array of a neighbour call, either side
 * of the edges of what the two touch (docs/guarantees.md, "Memory", written
 * out here on its own): OVERLAP with nothing written exactly when they meet.
 * Without a grid every agent's position and velocity (and group bits, with
 * a mask) is read; with one, none of the agents' state, the grid's copy
 * being read instead; ids are read for every candidate, per-agent arrays
 * over the range. */
enum { OV_COUNT = 12, OV_BEGIN = 2, OV_END = 10, OV_SLOT = 48 };

typedef enum nb_role {
  OV_P,
  OV_V = OV_P + 3,
  OV_OUT = OV_V + 3,
  OV_IDS = OV_OUT + 3,
  OV_GROUP,
  OV_RADIUS,
  OV_COS,
  OV_MASK,
  OV_MAX_SPEED,
  OV_TTT,
  OV_WEIGHT,
  OV_ROLES
} nb_role;

static float ov_pool[(OV_ROLES + 2) * OV_SLOT];

static float *ov_slot(int role) { return ov_pool + (size_t)(role + 1) * OV_SLOT; }

/* [first, last) of role r a call touches; first == last: not at all. */
static void ov_touched(int behaviour, int dims, int with_grid, int fov, int accumulate,
                       int r, long *first, long *last, int *written) {
  *first = *last = 0;
  *written = r >= OV_OUT && r < OV_IDS;
  if (r < OV_IDS && r % 3 >= dims) return;
  int whole = 0, own = 0;
  if (r < OV_OUT)
    whole = !with_grid;
  else if (r < OV_IDS)
    own = 1;
  else if (r == OV_IDS)
    whole = 1;
  else if (r == OV_GROUP)
    whole = !with_grid;
  else if (r == OV_RADIUS || r == OV_MASK)
    own = 1;
  else if (r == OV_COS)
    own = fov;
  else if (r == OV_MAX_SPEED)
    own = behaviour != NB_ALIGNMENT;
  else if (r == OV_TTT)
    own = behaviour != NB_SEPARATION;
  else if (r == OV_WEIGHT)
    own = accumulate;
  if (whole) *first = 0, *last = OV_COUNT;
  if (own) *first = OV_BEGIN, *last = OV_END;
}

static void test_overlaps(void) {
  static const int shifts[] = {-12, -10, -9, -8, -7, -2, -1, 0, 1, 7, 8, 9, 10, 12};
  static float before[sizeof ov_pool / sizeof ov_pool[0]];
  crowdsteer_grid *g = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&g), CROWDSTEER_OK);
  size_t refused = 0, allowed = 0;
  for (int dims = 2; dims <= 3; dims++)
    for (int with_grid = 0; with_grid < 2; with_grid++)
      for (int fov = 0; fov < 2; fov++)
        for (int accumulate = 0; accumulate < 2; accumulate++)
          for (int b = 0; b < NB_BEHAVIOURS; b++)
            for (int moved = OV_OUT; moved < OV_OUT + dims; moved++)
              for (int onto = 0; onto < OV_ROLES; onto++)
                for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
                  if (onto == moved) continue;
                  for (size_t i = 0; i < sizeof ov_pool / sizeof ov_pool[0]; i++)
                    ov_pool[i] = 0.5f + 0.125f * (float)(i % 13);
                  for (uint32_t i = 0; i < OV_COUNT; i++) {
                    const uint32_t id = 100u + i, group = 1u, mask = 0xFu;
                    memcpy(ov_slot(OV_IDS) + i, &id, sizeof id);
                    memcpy(ov_slot(OV_GROUP) + i, &group, sizeof group);
                    memcpy(ov_slot(OV_MASK) + i, &mask, sizeof mask);
                  }
                  float *a[OV_ROLES];
                  for (int r = 0; r < OV_ROLES; r++)
                    a[r] = r == moved ? ov_slot(onto) + shifts[s] : ov_slot(r);
                  crowd w;
                  memset(&w, 0, sizeof w);
                  w.count = OV_COUNT;
                  w.dims = dims;
                  w.agents = (crowdsteer_agents){
                      OV_COUNT,    dims,        a[OV_P],
                      a[OV_P + 1], a[OV_P + 2], a[OV_V],
                      a[OV_V + 1], a[OV_V + 2], (const uint32_t *)(void *)a[OV_IDS]};
                  crowdsteer_neighbours nb;
                  memset(&nb, 0, sizeof nb);
                  nb.radius_per_agent = a[OV_RADIUS];
                  nb.field_of_view = fov;
                  nb.cos_field_of_view_per_agent = a[OV_COS];
                  for (int i = 0; i < OV_COUNT; i++)
                    ov_slot(OV_COS)[i] = 0.25f;
                  nb.neighbour_mask_per_agent = (const uint32_t *)(void *)a[OV_MASK];
                  nb.group = (const uint32_t *)(void *)a[OV_GROUP];
                  if (with_grid) {
                    crowdsteer_grid_desc desc = {0};
                    desc.cell_size = 4.0f;
                    desc.group = nb.group;
                    CHECK_STATUS(crowdsteer_grid_build(g, &w.agents, &desc),
                                 CROWDSTEER_OK);
                    nb.grid = g;
                  }
                  crowdsteer_params params;
                  memset(&params, 0, sizeof params);
                  params.max_speed_per_agent = a[OV_MAX_SPEED];
                  params.time_to_target_per_agent = a[OV_TTT];
                  crowdsteer_output out;
                  memset(&out, 0, sizeof out);
                  out.steering =
                      (crowdsteer_vectors){a[OV_OUT], a[OV_OUT + 1], a[OV_OUT + 2]};
                  out.mode = accumulate ? CROWDSTEER_ACCUMULATE : CROWDSTEER_OVERWRITE;
                  out.weight_per_agent = a[OV_WEIGHT];
                  long wf, wl, rf, rl;
                  int written;
                  ov_touched(b, dims, with_grid, fov, accumulate, moved, &wf, &wl,
                             &written);
                  ov_touched(b, dims, with_grid, fov, accumulate, onto, &rf, &rl,
                             &written);
                  const int meet = rf < rl && wf + shifts[s] < rl && rf < wl + shifts[s];
                  memcpy(before, ov_pool, sizeof before);
                  const crowdsteer_status got =
                      nb_call(b, &w, &nb, &params, &out, OV_BEGIN, OV_END);
                  CHECK_MSG(got == (meet ? CROWDSTEER_ERROR_OVERLAP : CROWDSTEER_OK),
                            "%s %dD%s%s%s: output %d moved %d onto array %d: %d (%s)",
                            nb_name(b), dims, with_grid ? ", grid" : "",
                            fov ? ", view" : "", accumulate ? ", accumulate" : "", moved,
                            shifts[s], onto, (int)got, crowdsteer_status_string(got));
                  if (got == CROWDSTEER_ERROR_OVERLAP)
                    CHECK_MSG(memcmp(before, ov_pool, sizeof before) == 0,
                              "%s: a refused overlap wrote", nb_name(b));
                  refused += meet;
                  allowed += !meet;
                }
  CHECK_MSG(refused > 1000 && allowed > 1000, "refused %zu, allowed %zu", refused,
            allowed);
  crowdsteer_grid_destroy(g);
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  crowd_init(&c, 64, 2);
  rng r = {11u};
  crowd_random(&c, &r, 8.0f);
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  test_build();
  test_queries();
  test_alignment();
  test_params_read();
  test_range_only_read();
  test_positions_only();
  test_order();
  test_sorts();
  test_overlaps();
  crowdsteer_grid_destroy(grid);
  crowd_free(&c);
  return check_report("test_neighbours_validation");
}
