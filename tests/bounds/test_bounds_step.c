/* World bounds in crowdsteer_step: the contain behaviour (CROWDSTEER_CONTAIN)
 * gives exactly crowdsteer_contain's steering for every agent (crowdsteer_run
 * too), and a step blending or prioritising it with seek is the named calls
 * combined as the step defines, then crowdsteer_integrate, bit for bit: every
 * ISA, 2D and 3D, sphere and box, with and without look-ahead, per-agent
 * masks, weights and max_speed, 1 and 2 threads, several tiles (the fused
 * and accumulator paths), split ranges. The step's wrap option is the same
 * step then crowdsteer_wrap, in place and out of place, with avoidance too
 * (after each chunk and after the tiles). Validation: a NULL or bad region or wrap box
 * writes nothing. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

enum { N = 1037 };

static float px[N], py[N], pz[N], vx[N], vy[N], vz[N];

#include "bounds_common.h"

/* Two more states (expected, got) and steering scratch. */
static float state[2][6][N];
static float s_seek[3][N], s_contain[3][N], blend[3][N], decided[N];
static float speeds[N], weights[N];
static uint32_t mask[N];

static crowdsteer_agents state_agents(int which, int dims) {
  float(*a)[N] = state[which];
  crowdsteer_agents s = {
      N,   dims, a[0], a[1], dims == 3 ? a[2] : NULL, a[3], a[4], dims == 3 ? a[5] : NULL,
      NULL};
  return s;
}

/* Both states from the crowd (px .. vz). */
static void reset_states(void) {
  float *const from[6] = {px, py, pz, vx, vy, vz};
  for (int w = 0; w < 2; w++)
    for (int k = 0; k < 6; k++)
      memcpy(state[w][k], from[k], sizeof(float) * N);
}

static int states_agree(int dims, const char *what) {
  for (int k = 0; k < 6; k++) {
    if (dims == 2 && (k == 2 || k == 5)) continue;
    for (size_t i = 0; i < N; i++)
      if (!same_bits(state[0][k][i], state[1][k][i])) {
        CHECK_MSG(0, "%s (isa %s, %dD): agent %zu array %d: want %a got %a", what,
                  crowdsteer_isa_name(crowdsteer_active_isa()), dims, i, k,
                  state[0][k][i], state[1][k][i]);
        return 0;
      }
  }
  return 1;
}

static crowdsteer_bounds region(int box, float ahead) {
  crowdsteer_bounds b;
  memset(&b, 0, sizeof b);
  b.shape = box ? CROWDSTEER_BOUNDS_BOX : CROWDSTEER_BOUNDS_SPHERE;
  b.centre[0] = 1.5f, b.centre[1] = -2.0f, b.centre[2] = 3.0f;
  b.radius = 20.0f;
  const float lo[3] = {-20, -15, -25}, hi[3] = {18, 25, 12};
  memcpy(b.box.min, lo, sizeof lo);
  memcpy(b.box.max, hi, sizeof hi);
  b.prediction = ahead;
  return b;
}

/* A crowd half in, half out, with agents on the centre, on the border and
 * moving. */
static void make_crowd(const crowdsteer_bounds *b) {
  rng = 777u;
  for (size_t i = 0; i < N; i++) {
    px[i] = uniform(-22, 22), py[i] = uniform(-22, 22), pz[i] = uniform(-22, 22);
    vx[i] = uniform(-3, 3), vy[i] = uniform(-3, 3), vz[i] = uniform(-3, 3);
    speeds[i] = uniform(0.5f, 4.0f);
    weights[i] = uniform(-1.0f, 3.0f);
    mask[i] = (uint32_t)(rng >> 29) & 3u;
  }
  /* Agents [256, 768) use contain alone: whole chunks and tiles of one
   * behaviour, which run in registers where the backend fuses them. */
  for (size_t i = 256; i < 768; i++)
    mask[i] = 2u;
  px[5] = b->centre[0], py[5] = b->centre[1], pz[5] = b->centre[2];
  px[6] = b->centre[0] + b->radius, py[6] = b->centre[1], pz[6] = b->centre[2];
  px[7] = b->box.max[0], py[7] = b->box.min[1], pz[7] = b->box.max[2];
  vx[6] = vy[6] = vz[6] = vx[7] = vy[7] = vz[7] = 0.0f;
}

static crowdsteer_output out_to(float (*s)[N], int dims) {
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering = (crowdsteer_vectors){s[0], s[1], dims == 3 ? s[2] : NULL};
  return o;
}

/* A behaviour of kind `kind`, zeroed but for it. */
static crowdsteer_step_behaviour behaviour_of(crowdsteer_behaviour kind) {
  crowdsteer_step_behaviour d;
  memset(&d, 0, sizeof d);
  d.behaviour = kind;
  return d;
}

/* Integrator parameters with this top speed (0: the default), dt 1. */
static crowdsteer_params integrator_of(float max_speed) {
  crowdsteer_params p;
  memset(&p, 0, sizeof p);
  p.max_speed = max_speed;
  return p;
}

/* The behaviour's value: crowdsteer_run (the kernels of the active ISA) and
 * crowdsteer_contain, overwrite and accumulate. */
static void run_equals_named(int dims, const crowdsteer_bounds *b,
                             const crowdsteer_params *p) {
  const crowdsteer_agents a = batch(dims, N);
  crowdsteer_step_behaviour d = behaviour_of(CROWDSTEER_CONTAIN);
  d.params = *p;
  d.bounds = b;
  for (int accumulate = 0; accumulate < 2; accumulate++) {
    crowdsteer_output o1 = out_to(s_contain, dims), o2 = out_to(blend, dims);
    if (accumulate) {
      o1.mode = o2.mode = CROWDSTEER_ACCUMULATE;
      o1.weight_per_agent = o2.weight_per_agent = weights;
      for (int k = 0; k < dims; k++)
        for (size_t i = 0; i < N; i++)
          s_contain[k][i] = blend[k][i] = (float)i;
    }
    CHECK_STATUS(crowdsteer_contain(&a, b, p, &o1, 0, N), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_run(&a, &d, &o2, 0, 100), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_run(&a, &d, &o2, 100, N), CROWDSTEER_OK);
    int outside = 0;
    for (size_t i = 0; i < N; i++) {
      for (int k = 0; k < dims; k++)
        CHECK_MSG(same_bits(s_contain[k][i], blend[k][i]),
                  "run != contain: agent %zu axis %d (%a, %a)", i, k, s_contain[k][i],
                  blend[k][i]);
      outside += !accumulate && s_contain[0][i] != 0.0f;
    }
    if (!accumulate) CHECK_MSG(outside > N / 5 && outside < N - N / 5, "%d out", outside);
  }
}

/* The expected step: the named calls, combined as the step defines, then
 * crowdsteer_integrate, on state 0. */
static void expected_step(int dims, const crowdsteer_step_behaviour *bs, int priority,
                          const crowdsteer_params *integrator) {
  const crowdsteer_agents a = state_agents(0, dims);
  crowdsteer_output o = out_to(s_seek, dims);
  CHECK_STATUS(crowdsteer_seek(&a, &bs[0].target, &bs[0].params, &o, 0, N),
               CROWDSTEER_OK);
  o = out_to(s_contain, dims);
  CHECK_STATUS(crowdsteer_contain(&a, bs[1].bounds, &bs[1].params, &o, 0, N),
               CROWDSTEER_OK);
  for (size_t i = 0; i < N; i++) {
    float(*const s[2])[N] = {s_seek, s_contain};
    const float w[2] = {bs[0].weight, bs[1].weight_per_agent ? weights[i] : bs[1].weight};
    decided[i] = 0.0f;
    for (int k = 0; k < dims; k++)
      blend[k][i] = 0.0f;
    for (int c = 0; c < 2; c++) {
      if (!(mask[i] & (1u << c)) || decided[i] != 0.0f) continue;
      float weighted[3] = {0, 0, 0}, d2 = 0.0f;
      for (int k = 0; k < dims; k++) {
        weighted[k] = w[c] * s[c][k][i];
        d2 = k ? d2 + weighted[k] * weighted[k] : weighted[k] * weighted[k];
        blend[k][i] = priority ? weighted[k] : blend[k][i] + weighted[k];
      }
      if (priority && sqrtf(d2) > 0.5f) decided[i] = 1.0f;
    }
  }
  const crowdsteer_vectors steering = {blend[0], blend[1], dims == 3 ? blend[2] : NULL};
  CHECK_STATUS(crowdsteer_integrate(&a, &steering, integrator, 0, N), CROWDSTEER_OK);
}

static crowdsteer_step_desc step_of(const crowdsteer_step_behaviour *bs, size_t count,
                                    int priority, const crowdsteer_params *integrator) {
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = bs;
  step.behaviour_count = count;
  step.combine = priority ? CROWDSTEER_PRIORITY : CROWDSTEER_BLEND;
  step.priority_threshold = 0.5f;
  step.behaviour_mask = mask;
  step.integrator = *integrator;
  return step;
}

/* Seek and contain in one step, every tile size, thread count and split,
 * against expected_step. `plain`: the common shape (uniform parameters,
 * time_to_target 1), which 2D steps fuse. */
static void step_equals_named(int dims, const crowdsteer_bounds *b, int plain,
                              int priority) {
  crowdsteer_step_behaviour bs[2];
  memset(bs, 0, sizeof bs);
  bs[0].behaviour = CROWDSTEER_SEEK;
  bs[0].target.point[0] = 4.0f, bs[0].target.point[1] = -1.0f;
  bs[0].params.max_speed = 1.5f;
  bs[0].weight = plain ? 1.0f : 0.5f;
  bs[1].behaviour = CROWDSTEER_CONTAIN;
  bs[1].bounds = b;
  bs[1].params.max_speed = 2.0f;
  bs[1].weight = 2.0f;
  if (!plain) {
    bs[1].params.max_speed_per_agent = speeds;
    bs[1].params.time_to_target = 0.75f;
    bs[1].weight_per_agent = weights;
  }
  crowdsteer_params integrator = integrator_of(3.0f);
  integrator.dt = 0.5f;
  static const size_t tiles[] = {0, 64, 300};
  for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
    for (int threads = 1; threads <= 2; threads++) {
      reset_states();
      expected_step(dims, bs, priority, &integrator);
      crowdsteer_step_desc step = step_of(bs, 2, priority, &integrator);
      step.tile_size = tiles[t];
      step.threads = threads;
      const crowdsteer_agents a = state_agents(1, dims);
      const size_t cut = t == 1 ? 333 : N; /* a split range */
      CHECK_STATUS(crowdsteer_step(&a, &step, 0, cut), CROWDSTEER_OK);
      CHECK_STATUS(crowdsteer_step(&a, &step, cut, N), CROWDSTEER_OK);
      char what[96];
      snprintf(what, sizeof what, "step %s, tile %zu, %d threads, plain %d, priority %d",
               b->shape ? "box" : "sphere", tiles[t], threads, plain, priority);
      states_agree(dims, what);
    }
}

/* Contain alone, no mask: every tile runs in registers where the backend
 * fuses contain (2D of the common shape; 3D on 16 lanes). */
static void step_alone(int dims, const crowdsteer_bounds *b) {
  crowdsteer_step_behaviour d = behaviour_of(CROWDSTEER_CONTAIN);
  d.bounds = b;
  d.params.max_speed = 2.0f;
  crowdsteer_params integrator = integrator_of(3.0f);
  reset_states();
  const crowdsteer_agents want = state_agents(0, dims), got = state_agents(1, dims);
  crowdsteer_output o = out_to(blend, dims);
  CHECK_STATUS(crowdsteer_contain(&want, b, &d.params, &o, 0, N), CROWDSTEER_OK);
  const crowdsteer_vectors steering = {blend[0], blend[1], dims == 3 ? blend[2] : NULL};
  CHECK_STATUS(crowdsteer_integrate(&want, &steering, &integrator, 0, N), CROWDSTEER_OK);
  crowdsteer_step_desc step = step_of(&d, 1, 0, &integrator);
  step.behaviour_mask = NULL;
  step.threads = 2;
  CHECK_STATUS(crowdsteer_step(&got, &step, 0, N), CROWDSTEER_OK);
  states_agree(dims, "contain alone");
}

/* The wrap option: the step without it, then crowdsteer_wrap over the range. */
static void step_wrap(int dims) {
  const crowdsteer_box box = {{-12.0f, -9.0f, -10.0f}, {11.0f, 10.0f, 12.5f}};
  rng = 99u;
  for (size_t i = 0; i < N; i++) {
    px[i] = uniform(-12.0f, 11.0f), py[i] = uniform(-9.0f, 10.0f);
    pz[i] = uniform(-10.0f, 12.5f);
    vx[i] = uniform(-4, 4), vy[i] = uniform(-4, 4), vz[i] = uniform(-4, 4);
  }
  crowdsteer_grid *grid = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_step_behaviour d = behaviour_of(CROWDSTEER_SEEK);
  d.target.point[0] = 30.0f;
  crowdsteer_params integrator = integrator_of(4.0f);
  crowdsteer_neighbours nb;
  memset(&nb, 0, sizeof nb);
  nb.radius = 2.0f;
  nb.grid = grid;
  crowdsteer_avoidance av;
  memset(&av, 0, sizeof av);
  av.radius = 0.2f;
  av.neighbours = &nb;
  const crowdsteer_agents crowd = batch(dims, N);
  crowdsteer_grid_desc gd;
  memset(&gd, 0, sizeof gd);
  gd.cell_size = 2.0f;
  CHECK_STATUS(crowdsteer_grid_build(grid, &crowd, &gd), CROWDSTEER_OK);
  for (int avoid = 0; avoid < 2; avoid++)
    for (int threads = 1; threads <= 2; threads++)
      for (size_t end = N / 8; end <= N; end += N - N / 8) {
        /* Avoidance over N / 8 agents runs after each chunk, over all of
         * them after the tiles. In place (each state from the crowd) with
         * one thread, out of place (the crowd into each state) with two. */
        reset_states();
        const crowdsteer_agents want = state_agents(0, dims), got = state_agents(1, dims);
        crowdsteer_step_desc step = step_of(&d, 1, 0, &integrator);
        step.behaviour_mask = NULL;
        step.threads = threads;
        step.tile_size = 128;
        step.avoidance = avoid ? &av : NULL;
        const crowdsteer_agents *in_want = threads == 1 ? &want : &crowd;
        const crowdsteer_agents *in_got = threads == 1 ? &got : &crowd;
        if (threads == 2) step.output = &want;
        CHECK_STATUS(crowdsteer_step(in_want, &step, 0, end), CROWDSTEER_OK);
        int outside = 0; /* agents the wrap moves */
        for (size_t i = 0; i < end; i++)
          for (int k = 0; k < dims; k++)
            outside += !(state[0][k][i] >= box.min[k] && state[0][k][i] < box.max[k]);
        CHECK_MSG(outside > (int)end / 20, "%d of %zu agents left the box", outside, end);
        CHECK_STATUS(crowdsteer_wrap(&want, &box, 0, end), CROWDSTEER_OK);
        step.wrap = &box;
        if (threads == 2) step.output = &got;
        CHECK_STATUS(crowdsteer_step(in_got, &step, 0, end), CROWDSTEER_OK);
        char what[64];
        snprintf(what, sizeof what, "wrap: avoid %d, %d threads, end %zu", avoid, threads,
                 end);
        states_agree(dims, what);
      }
  crowdsteer_grid_destroy(grid);
}

/* The wrap's edges through a step that does not move anyone (steering
 * weighted by 0, at rest): on max (wraps to min), on min, just inside and
 * outside each, one side out, NaN and infinities; each axis sees them in
 * another order. */
static void wrap_edges(int dims) {
  const crowdsteer_box box = {{-12.0f, -9.0f, -10.0f}, {11.0f, 10.0f, 12.5f}};
  float *const axes[3] = {px, py, pz};
  for (int k = 0; k < 3; k++) {
    const float lo = box.min[k], hi = box.max[k], side = hi - lo;
    const float edges[] = {hi,
                           lo,
                           nextafterf(hi, 0.0f),
                           nextafterf(lo, -INFINITY),
                           nextafterf(hi, INFINITY),
                           hi + side,
                           lo - side,
                           NAN,
                           INFINITY,
                           -INFINITY,
                           0.5f * (lo + hi)};
    const size_t n = sizeof edges / sizeof edges[0];
    for (size_t i = 0; i < N; i++)
      axes[k][i] = edges[(i + (size_t)k * 3) % n];
  }
  for (size_t i = 0; i < N; i++) {
    vx[i] = vy[i] = vz[i] = 0.0f;
    weights[i] = 0.0f;
  }
  crowdsteer_step_behaviour d = behaviour_of(CROWDSTEER_SEEK);
  d.weight_per_agent = weights;
  crowdsteer_params integrator = integrator_of(0.0f);
  for (int threads = 1; threads <= 2; threads++) {
    reset_states();
    const crowdsteer_agents want = state_agents(0, dims), got = state_agents(1, dims);
    crowdsteer_step_desc step = step_of(&d, 1, 0, &integrator);
    step.behaviour_mask = NULL;
    step.threads = threads;
    CHECK_STATUS(crowdsteer_step(&want, &step, 0, N), CROWDSTEER_OK);
    CHECK(state[0][0][0] == box.max[0]); /* nobody moved */
    CHECK_STATUS(crowdsteer_wrap(&want, &box, 0, N), CROWDSTEER_OK);
    CHECK(state[0][0][0] == box.min[0] && state[0][0][1] == box.min[0]);
    step.wrap = &box;
    CHECK_STATUS(crowdsteer_step(&got, &step, 0, N), CROWDSTEER_OK);
    states_agree(dims, "wrap at the edges");
  }
}

/* Bad regions and wrap boxes: their status, and nothing written. */
static void step_validation(void) {
  const crowdsteer_bounds good = region(0, 0.0f);
  reset_states();
  const crowdsteer_agents a = state_agents(1, 3);
  crowdsteer_step_behaviour bs[2];
  memset(bs, 0, sizeof bs);
  bs[0].behaviour = CROWDSTEER_SEEK;
  bs[1].behaviour = CROWDSTEER_CONTAIN;
  crowdsteer_params integrator = integrator_of(0.0f);
  crowdsteer_step_desc step = step_of(bs, 2, 0, &integrator);
  step.behaviour_mask = NULL;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_ERROR_NULL_POINTER);
  /* Required even when no agent selects it. */
  for (size_t i = 0; i < N; i++)
    mask[i] = 1u;
  step.behaviour_mask = mask;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_ERROR_NULL_POINTER);
  crowdsteer_bounds bad = good;
  bad.radius = -1.0f;
  bs[1].bounds = &bad;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_ERROR_PARAMETER);
  bad = good;
  bad.prediction = INFINITY;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_ERROR_PARAMETER);
  bad = good;
  bad.shape = (crowdsteer_bounds_shape)5;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_ERROR_PARAMETER);
  bad = region(1, 0.0f);
  bad.box.min[2] = 30.0f; /* min > max */
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_ERROR_PARAMETER);
  const crowdsteer_output o = out_to(blend, 3);
  CHECK_STATUS(crowdsteer_run(&a, &bs[1], &o, 0, N), CROWDSTEER_ERROR_PARAMETER);
  bs[1].bounds = &good;
  crowdsteer_box box = {{0, 0, 0}, {1, 1, 1}};
  step.wrap = &box;
  const float wrong[] = {NAN, INFINITY, 1.0f};
  for (int k = 0; k < 3; k++)
    for (int v = 0; v < 3; v++) {
      box = (crowdsteer_box){{0, 0, 0}, {1, 1, 1}};
      box.min[k] = wrong[v]; /* 1: min == max */
      CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_ERROR_PARAMETER);
    }
  box = (crowdsteer_box){{-FLT_MAX, 0, 0}, {FLT_MAX, 1, 1}}; /* a side overflows */
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, N), CROWDSTEER_ERROR_PARAMETER);
  CHECK(states_agree(3, "nothing written"));
  /* z's corners are not read in 2D. */
  box = (crowdsteer_box){{0, 0, NAN}, {1, 1, NAN}};
  const crowdsteer_agents a2 = state_agents(1, 2);
  CHECK_STATUS(crowdsteer_step(&a2, &step, 0, N), CROWDSTEER_OK);
}

static void every_case(void) {
  for (int dims = 2; dims <= 3; dims++)
    for (int shape = 0; shape < 2; shape++)
      for (int ahead = 0; ahead < 2; ahead++) {
        const crowdsteer_bounds b = region(shape, ahead ? 1.25f : 0.0f);
        make_crowd(&b);
        crowdsteer_params p;
        memset(&p, 0, sizeof p);
        p.max_speed = 1.5f;
        run_equals_named(dims, &b, &p);
        p.max_speed_per_agent = speeds;
        p.time_to_target = 0.75f;
        run_equals_named(dims, &b, &p);
        for (int plain = 0; plain < 2; plain++)
          for (int priority = 0; priority < 2; priority++)
            step_equals_named(dims, &b, plain, priority);
        step_alone(dims, &b);
      }
  for (int dims = 2; dims <= 3; dims++) {
    step_wrap(dims);
    wrap_edges(dims);
  }
  step_validation();
}

int main(void) {
  if (!on_every_isa(every_case)) return 77;
  return check_report("test_bounds_step");
}
