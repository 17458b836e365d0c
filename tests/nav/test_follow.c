/* Follow-the-field: every ISA against the scalar reference bit for bit
 * (uniform and per-agent fields and parameters, counts off the vector
 * widths, unaligned starts, both gathers), worked values, agents that walk
 * around a wall to the goal, steps (threads, tiles, masks) against single
 * calls, and validation. */
#include <stdint.h>

#include "check.h"
#include "crowdsteer.h"
#include "scenario.h"

enum { CAP = 4200 };

/* Per-agent arrays, `misalign` floats into their allocation. */
typedef struct crowd {
  float *p[2], *v[2], *out[2], *max_speed, *ttt;
  uint32_t *field_index, *mask;
  float *storage;
} crowd;

static void crowd_make(crowd *c, size_t n, size_t misalign, uint64_t seed, float size) {
  const size_t stride = n + 16;
  c->storage = calloc(stride * 8, sizeof(float));
  float *next = c->storage + misalign;
  for (int k = 0; k < 2; k++) {
    c->p[k] = next, next += stride;
    c->v[k] = next, next += stride;
    c->out[k] = next, next += stride;
  }
  c->max_speed = next, next += stride;
  c->ttt = next;
  c->field_index = calloc(n + 1, sizeof(uint32_t));
  c->mask = calloc(n + 1, sizeof(uint32_t));
  rng r = {seed};
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 2; k++) {
      /* Mostly on the grid, some outside, some on its lines. */
      const uint32_t kind = rng_below(&r, 10);
      c->p[k][i] = kind == 0   ? rng_range(&r, -2.0f, 0.0f) * size
                   : kind == 1 ? (float)rng_below(&r, 9) * size / 8.0f
                               : rng_range(&r, 0.0f, size);
      c->v[k][i] = rng_range(&r, -2.0f, 2.0f);
    }
    if (rng_below(&r, 50) == 0) c->p[rng_below(&r, 2)][i] = NAN;
    c->max_speed[i] = rng_range(&r, 0.0f, 3.0f);
    c->ttt[i] = rng_range(&r, 0.1f, 2.0f);
    c->field_index[i] = rng_below(&r, 3);
    c->mask[i] = rng_below(&r, 4);
  }
}

static void crowd_free(crowd *c) {
  free(c->storage);
  free(c->field_index);
  free(c->mask);
}

static crowdsteer_agents crowd_agents(const crowd *c, size_t n) {
  crowdsteer_agents a = {n, 2, c->p[0], c->p[1], NULL, c->v[0], c->v[1], NULL, NULL};
  return a;
}

/* Three fields over one grid of rooms, their goals in different corners. */
static crowdsteer_field *fields[3];
static crowdsteer_obstacles *plan;
static const float SIZE = 48.0f;

static void make_fields(void) {
  CHECK_STATUS(crowdsteer_obstacles_create(&plan), CROWDSTEER_OK);
  const float walls[][4] = {{16, 0, 16, 20},  {16, 28, 16, 48}, {32, 0, 32, 36},
                            {0, 24, 10, 24},  {22, 24, 32, 24}, {36, 10, 44, 18},
                            {40, 30, 40, 44}, {5, 5, 5, 6}};
  for (size_t k = 0; k < sizeof walls / sizeof walls[0]; k++) {
    const float x[2] = {walls[k][0], walls[k][2]}, y[2] = {walls[k][1], walls[k][3]};
    CHECK_STATUS(crowdsteer_obstacles_add(plan, x, y, 2), CROWDSTEER_OK);
  }
  const float bx[4] = {24, 28, 28, 24}, by[4] = {8, 8, 12, 12};
  CHECK_STATUS(crowdsteer_obstacles_add(plan, bx, by, 4), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_build(plan, 0.0f), CROWDSTEER_OK);
  const float gx[3] = {1.0f, 46.5f, 30.0f}, gy[3] = {1.0f, 46.5f, 40.0f};
  for (int f = 0; f < 3; f++) {
    crowdsteer_field_desc d;
    memset(&d, 0, sizeof d);
    d.cell_size = 0.75f;
    d.width = d.height = 64;
    d.obstacles = plan;
    d.goal_x = &gx[f];
    d.goal_y = &gy[f];
    d.goal_point_count = 1;
    CHECK_STATUS(crowdsteer_field_create(&fields[f]), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_field_build(fields[f], &d), CROWDSTEER_OK);
  }
}

static crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
static int isa_count;

static void find_isas(void) {
  for (int i = 1; i < CROWDSTEER_ISA_COUNT; i++)
    if (crowdsteer_isa_supported((crowdsteer_isa)i))
      isas[isa_count++] = (crowdsteer_isa)i;
}

/* One call on `isa` (and gather way), its output. */
static crowdsteer_status run_on(crowdsteer_isa isa, const crowd *c, size_t n,
                                const crowdsteer_field_follow *follow,
                                const crowdsteer_params *params, int accumulate,
                                size_t begin, size_t end) {
  CHECK(crowdsteer_force_isa(isa) == CROWDSTEER_OK);
  const crowdsteer_agents a = crowd_agents(c, n);
  crowdsteer_vectors out = {c->out[0], c->out[1], NULL};
  const crowdsteer_output o = {
      out, accumulate ? CROWDSTEER_ACCUMULATE : CROWDSTEER_OVERWRITE, 0.75f, NULL};
  return crowdsteer_follow_field(&a, follow, params, &o, begin, end);
}

static void test_equivalence(void) {
  static const size_t counts[] = {0, 1, 3, 17, 1000, 4099};
  for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
    for (int variant = 0; variant < 8; variant++) {
      const size_t n = counts[ci], misalign = (size_t)variant % 3;
      crowd ref, got;
      crowd_make(&ref, n, misalign, 77u + ci, SIZE);
      crowd_make(&got, n, misalign, 77u + ci, SIZE);
      const crowdsteer_field *const list[3] = {fields[0], fields[1], fields[2]};
      crowdsteer_field_follow follow = {list, 3, NULL, (uint32_t)variant % 3};
      if (variant & 1) follow.field_index = ref.field_index;
      crowdsteer_params params;
      memset(&params, 0, sizeof params);
      params.max_speed = 1.5f;
      if (variant & 2) {
        params.max_speed_per_agent = ref.max_speed;
        params.time_to_target_per_agent = ref.ttt;
      }
      const int accumulate = (variant & 4) != 0;
      const size_t begin = n > 5 ? 2 : 0, end = n > 5 ? n - 1 : n;
      CHECK_STATUS(run_on(CROWDSTEER_ISA_SCALAR, &ref, n, &follow, &params, accumulate,
                          begin, end),
                   CROWDSTEER_OK);
      for (int k = 0; k < isa_count; k++)
        for (int gather = 0; gather < 2; gather++) {
          cs_set_gather_instruction(gather);
          memcpy(got.storage, ref.storage, (n + 16) * 8 * sizeof(float));
          /* The output back to its state before the reference's call. */
          crowd fresh;
          crowd_make(&fresh, n, misalign, 77u + ci, SIZE);
          for (int a = 0; a < 2; a++)
            memcpy(got.out[a], fresh.out[a], n * sizeof(float));
          crowd_free(&fresh);
          if (variant & 1) follow.field_index = got.field_index;
          CHECK_STATUS(run_on(isas[k], &got, n, &follow, &params, accumulate, begin, end),
                       CROWDSTEER_OK);
          if (variant & 1) follow.field_index = ref.field_index;
          for (int a = 0; a < 2; a++)
            for (size_t i = 0; i < n; i++)
              CHECK_MSG(same_bits(got.out[a][i], ref.out[a][i]),
                        "%s n %zu variant %d gather %d agent %zu axis %d: %a vs %a",
                        crowdsteer_isa_name(isas[k]), n, variant, gather, i, a,
                        (double)got.out[a][i], (double)ref.out[a][i]);
        }
      crowd_free(&ref);
      crowd_free(&got);
    }
  cs_set_gather_instruction(cs_gather_instruction_pays());
  crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
}

/* Worked values on field 0: at rest in a free cell the steering is the
 * cell's direction times max_speed; on the goal, outside the grid or in a
 * blocked cell it brakes (s = -v / time_to_target). */
static void test_worked(void) {
  float px[4] = {10.1f, 1.0f, -1.0f, 5.1f}, py[4] = {10.1f, 1.0f, 3.0f, 5.5f};
  float vx[4] = {0, 0.5f, 0.5f, 1.0f}, vy[4] = {0, 0.25f, -1.0f, 0};
  float sx[4], sy[4];
  crowdsteer_agents a = {4, 2, px, py, NULL, vx, vy, NULL, NULL};
  const crowdsteer_field *list[1] = {fields[0]};
  const crowdsteer_field_follow follow = {list, 1, NULL, 0};
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 2.0f;
  params.time_to_target = 0.5f;
  const crowdsteer_output out = {{sx, sy, NULL}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  for (int k = -1; k < isa_count; k++) {
    CHECK(crowdsteer_force_isa(k < 0 ? CROWDSTEER_ISA_SCALAR : isas[k]) == CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_follow_field(&a, &follow, &params, &out, 0, 4),
                 CROWDSTEER_OK);
    uint32_t cx, cy;
    int inside, blocked;
    float dx, dy;
    crowdsteer_field_cell_of(fields[0], px[0], py[0], &cx, &cy, &inside);
    crowdsteer_field_direction(fields[0], cx, cy, &dx, &dy, &blocked);
    CHECK(inside && !blocked && (dx != 0.0f || dy != 0.0f));
    CHECK(sx[0] == (dx * 2.0f - 0.0f) / 0.5f && sy[0] == (dy * 2.0f - 0.0f) / 0.5f);
    CHECK(dx < 0.0f && dy < 0.0f); /* towards the goal at (1, 1) */
    for (int i = 1; i < 4; i++)    /* goal, outside, the blocked cell of a wall */
      CHECK_MSG(sx[i] == -vx[i] / 0.5f && sy[i] == -vy[i] / 0.5f, "agent %d: %g %g", i,
                (double)sx[i], (double)sy[i]);
  }
  crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
}

/* Agents anywhere on the plan, each following one of the fields with
 * steps of length 0.2 (under a cell): none ever steps into a blocked
 * cell, and every one whose start can reach its goal gets there. */
static void test_walk(void) {
  enum { N = 300 };
  float px[N], py[N], vx[N], vy[N];
  uint32_t index[N];
  rng r = {5};
  for (int i = 0; i < N; i++) {
    uint32_t cx, cy;
    int inside, blocked;
    float dx, dy;
    double t;
    do {
      px[i] = rng_range(&r, 0.0f, SIZE);
      py[i] = rng_range(&r, 0.0f, SIZE);
      index[i] = rng_below(&r, 3);
      crowdsteer_field_cell_of(fields[index[i]], px[i], py[i], &cx, &cy, &inside);
      crowdsteer_field_direction(fields[index[i]], cx, cy, &dx, &dy, &blocked);
      crowdsteer_field_time(fields[index[i]], cx, cy, &t);
    } while (blocked || isinf(t));
    vx[i] = vy[i] = 0.0f;
  }
  crowdsteer_agents a = {N, 2, px, py, NULL, vx, vy, NULL, NULL};
  const crowdsteer_field *list[3] = {fields[0], fields[1], fields[2]};
  const crowdsteer_field_follow follow = {list, 3, index, 0};
  crowdsteer_step_behaviour b;
  memset(&b, 0, sizeof b);
  b.behaviour = CROWDSTEER_FOLLOW_FIELD;
  b.field = &follow;
  b.params.time_to_target = 0.2f; /* = dt: the velocity becomes the desired one */
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = &b;
  step.behaviour_count = 1;
  step.integrator.max_speed = 1.0f;
  step.integrator.dt = 0.2f;
  int into_blocked = 0;
  for (int s = 0; s < 600; s++) {
    CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_OK);
    for (int i = 0; i < N; i++) {
      uint32_t cx, cy;
      int inside, blocked;
      float dx, dy;
      crowdsteer_field_cell_of(fields[index[i]], px[i], py[i], &cx, &cy, &inside);
      crowdsteer_field_direction(fields[index[i]], cx, cy, &dx, &dy, &blocked);
      into_blocked += !inside || blocked;
    }
  }
  CHECK_MSG(into_blocked == 0, "%d agent-steps in blocked cells", into_blocked);
  int arrived = 0;
  for (int i = 0; i < N; i++) {
    uint32_t cx, cy;
    int inside;
    double t;
    crowdsteer_field_cell_of(fields[index[i]], px[i], py[i], &cx, &cy, &inside);
    crowdsteer_field_time(fields[index[i]], cx, cy, &t);
    arrived += inside && t <= 0.75;
  }
  CHECK_MSG(arrived == N, "%d of %d agents at their goals", arrived, N);
}

/* A blended, masked step of follow_field and seek: threads and tiles give
 * the same bits, and they are those of the single calls composed. */
static void test_step(void) {
  enum { N = 3001 };
  crowd c[3];
  for (int k = 0; k < 3; k++)
    crowd_make(&c[k], N, 1, 99u, SIZE);
  const crowdsteer_field *list[3] = {fields[0], fields[1], fields[2]};
  for (int run = 0; run < 3; run++) {
    crowdsteer_field_follow follow = {list, 3, c[run].field_index, 0};
    crowdsteer_step_behaviour b[2];
    memset(b, 0, sizeof b);
    b[0].behaviour = CROWDSTEER_FOLLOW_FIELD;
    b[0].field = &follow;
    b[0].weight = 1.5f;
    b[0].params.max_speed = 2.0f;
    b[1].behaviour = CROWDSTEER_SEEK;
    b[1].target.point[0] = 20.0f;
    b[1].weight = 0.5f;
    for (size_t i = 0; i < N; i++)
      if (!(c[run].mask[i] & 1u)) c[run].field_index[i] = 0xdeadbeefu; /* never read */
    crowdsteer_agents a = crowd_agents(&c[run], N);
    crowdsteer_step_desc step;
    memset(&step, 0, sizeof step);
    step.behaviours = b;
    step.behaviour_count = 2;
    step.behaviour_mask = c[run].mask;
    step.integrator.max_speed = 2.0f;
    step.integrator.dt = 0.1f;
    step.threads = run == 2 ? 2 : 1;
    step.tile_size = run == 1 ? 100 : 0;
    if (run < 2) {
      CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_OK);
    } else { /* in two calls */
      CHECK_STATUS(crowdsteer_step(&a, &step, 0, 1234), CROWDSTEER_OK);
      CHECK_STATUS(crowdsteer_step(&a, &step, 1234, N), CROWDSTEER_OK);
    }
  }
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < N; i++)
      CHECK(same_bits(c[0].p[k][i], c[1].p[k][i]) &&
            same_bits(c[0].p[k][i], c[2].p[k][i]) &&
            same_bits(c[0].v[k][i], c[2].v[k][i]));
  /* Composed: follow_field of the agents that use it, accumulated. */
  crowd single;
  crowd_make(&single, N, 1, 99u, SIZE);
  crowdsteer_agents a = crowd_agents(&single, N);
  float *sx = calloc(N, sizeof(float)), *sy = calloc(N, sizeof(float));
  float *w0 = calloc(N, sizeof(float)), *w1 = calloc(N, sizeof(float));
  for (size_t i = 0; i < N; i++) {
    w0[i] = single.mask[i] & 1u ? 1.5f : 0.0f;
    w1[i] = single.mask[i] & 2u ? 0.5f : 0.0f;
  }
  crowdsteer_field_follow follow = {list, 3, single.field_index, 0};
  crowdsteer_output out = {{sx, sy, NULL}, CROWDSTEER_ACCUMULATE, 0.0f, w0};
  crowdsteer_params follow_params;
  memset(&follow_params, 0, sizeof follow_params);
  follow_params.max_speed = 2.0f;
  CHECK_STATUS(crowdsteer_follow_field(&a, &follow, &follow_params, &out, 0, N),
               CROWDSTEER_OK);
  crowdsteer_target t;
  memset(&t, 0, sizeof t);
  t.point[0] = 20.0f;
  out.weight_per_agent = w1;
  crowdsteer_params seek_params;
  memset(&seek_params, 0, sizeof seek_params);
  seek_params.max_speed = 2.0f;
  CHECK_STATUS(crowdsteer_seek(&a, &t, &seek_params, &out, 0, N), CROWDSTEER_OK);
  crowdsteer_params integrator;
  memset(&integrator, 0, sizeof integrator);
  integrator.max_speed = 2.0f;
  integrator.dt = 0.1f;
  crowdsteer_vectors s = {sx, sy, NULL};
  CHECK_STATUS(crowdsteer_integrate(&a, &s, &integrator, 0, N), CROWDSTEER_OK);
  /* Agents at a NaN position are left out: a weight of 0 times their NaN
   * steering is NaN in the composition, nothing in the step. */
  size_t differing = 0, compared = 0;
  for (size_t i = 0; i < N; i++) {
    if (single.p[0][i] != single.p[0][i] || single.p[1][i] != single.p[1][i]) continue;
    compared++;
    for (int k = 0; k < 2; k++)
      differing += !same_bits(single.p[k][i], c[0].p[k][i]) ||
                   !same_bits(single.v[k][i], c[0].v[k][i]);
  }
  CHECK(compared > N / 2);
  CHECK_MSG(differing == 0, "%zu components differ", differing);
  free(sx);
  free(sy);
  free(w0);
  free(w1);
  crowd_free(&single);
  for (int k = 0; k < 3; k++)
    crowd_free(&c[k]);
}

/* A step of follow_field alone in the common shape (blend, uniform
 * parameters, time_to_target 1): the SIMD backends run it in registers
 * (the fused path), the scalar one through the accumulator; the same bits,
 * with one field and with per-agent fields. */
static void test_fused_step(void) {
  enum { N = 1029 };
  const crowdsteer_field *list[3] = {fields[0], fields[1], fields[2]};
  for (int per_agent = 0; per_agent < 2; per_agent++) {
    crowd ref;
    crowd_make(&ref, N, 0, 1234u, SIZE);
    for (int k = -1; k < isa_count; k++) {
      crowd c;
      crowd_make(&c, N, 0, 1234u, SIZE);
      crowdsteer_field_follow follow = {list, 3, per_agent ? c.field_index : NULL, 1};
      crowdsteer_step_behaviour b;
      memset(&b, 0, sizeof b);
      b.behaviour = CROWDSTEER_FOLLOW_FIELD;
      b.field = &follow;
      crowdsteer_step_desc step;
      memset(&step, 0, sizeof step);
      step.behaviours = &b;
      step.behaviour_count = 1;
      step.integrator.max_speed = 1.5f;
      step.integrator.dt = 0.25f;
      step.threads = 1;
      crowdsteer_agents a = crowd_agents(k < 0 ? &ref : &c, N);
      if (k < 0) follow.field_index = per_agent ? ref.field_index : NULL;
      CHECK(crowdsteer_force_isa(k < 0 ? CROWDSTEER_ISA_SCALAR : isas[k]) ==
            CROWDSTEER_OK);
      for (int s = 0; s < 3; s++)
        CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_OK);
      if (k >= 0)
        for (int axis = 0; axis < 2; axis++)
          for (size_t i = 0; i < N; i++)
            CHECK_MSG(same_bits(c.p[axis][i], ref.p[axis][i]) &&
                          same_bits(c.v[axis][i], ref.v[axis][i]),
                      "%s per-agent %d agent %zu", crowdsteer_isa_name(isas[k]),
                      per_agent, i);
      crowd_free(&c);
    }
    crowd_free(&ref);
  }
  crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
}

/* Bad input: its status, and nothing written. */
static void test_validation(void) {
  enum { N = 8 };
  crowd c;
  crowd_make(&c, N, 0, 3u, SIZE);
  const crowdsteer_agents a = crowd_agents(&c, N);
  const crowdsteer_output out = {
      {c.out[0], c.out[1], NULL}, CROWDSTEER_OVERWRITE, 0, NULL};
  const crowdsteer_field *list[3] = {fields[0], fields[1], fields[2]};
  for (size_t i = 0; i < N; i++)
    c.out[0][i] = c.out[1][i] = 7.0f;
  crowdsteer_field_follow f = {list, 3, NULL, 0};
  CHECK_STATUS(crowdsteer_follow_field(&a, NULL, NULL, &out, 0, N),
               CROWDSTEER_ERROR_NULL_POINTER);
  f.fields = NULL;
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, N),
               CROWDSTEER_ERROR_NULL_POINTER);
  f.fields = list;
  f.field_count = 0;
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, N),
               CROWDSTEER_ERROR_PARAMETER);
  f.field_count = 3;
  f.field = 3;
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, N),
               CROWDSTEER_ERROR_PARAMETER);
  f.field = 0;
  c.field_index[5] = 3;
  f.field_index = c.field_index;
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, N),
               CROWDSTEER_ERROR_AGENT_INDEX);
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, 5), CROWDSTEER_OK);
  for (size_t i = 0; i < N; i++)
    c.out[0][i] = c.out[1][i] = 7.0f;
  f.field_index = (const uint32_t *)(const void *)((const char *)c.field_index + 2);
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, N),
               CROWDSTEER_ERROR_ALIGNMENT);
  for (size_t i = 0; i < N; i++)
    c.out[0][i] = 0.0f;                                     /* index 0, as bits */
  f.field_index = (const uint32_t *)(const void *)c.out[0]; /* written and read */
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, N),
               CROWDSTEER_ERROR_OVERLAP);
  for (size_t i = 0; i < N; i++)
    c.out[0][i] = 7.0f;
  f.field_index = NULL;
  crowdsteer_field *unbuilt = NULL, *other = NULL;
  CHECK_STATUS(crowdsteer_field_create(&unbuilt), CROWDSTEER_OK);
  const crowdsteer_field *with_unbuilt[2] = {fields[0], unbuilt};
  f.fields = with_unbuilt;
  f.field_count = 2;
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, N), CROWDSTEER_ERROR_GRID);
  const float g = 1.0f;
  crowdsteer_field_desc d;
  memset(&d, 0, sizeof d);
  d.cell_size = 0.5f; /* another grid */
  d.width = d.height = 64;
  d.goal_x = d.goal_y = &g;
  d.goal_point_count = 1;
  CHECK_STATUS(crowdsteer_field_create(&other), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(other, &d), CROWDSTEER_OK);
  const crowdsteer_field *mixed[2] = {fields[0], other};
  f.fields = mixed;
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, NULL, &out, 0, N),
               CROWDSTEER_ERROR_PARAMETER);
  f.fields = list;
  f.field_count = 3;
  crowdsteer_agents in3d = a;
  in3d.dims = 3;
  in3d.pz = in3d.vz = c.out[0];
  CHECK_STATUS(crowdsteer_follow_field(&in3d, &f, NULL, &out, 0, N),
               CROWDSTEER_ERROR_DIMS);
  crowdsteer_params bad;
  memset(&bad, 0, sizeof bad);
  bad.max_speed = NAN;
  CHECK_STATUS(crowdsteer_follow_field(&a, &f, &bad, &out, 0, N),
               CROWDSTEER_ERROR_PARAMETER);
  for (size_t i = 0; i < N; i++)
    CHECK(c.out[0][i] == 7.0f && c.out[1][i] == 7.0f);
  crowdsteer_field_destroy(unbuilt);
  crowdsteer_field_destroy(other);
  crowd_free(&c);
}

int main(void) {
  find_isas();
  make_fields();
  test_equivalence();
  test_worked();
  test_walk();
  test_step();
  test_fused_step();
  test_validation();
  for (int f = 0; f < 3; f++)
    crowdsteer_field_destroy(fields[f]);
  crowdsteer_obstacles_destroy(plan);
  return check_failures ? 1 : 0;
}
