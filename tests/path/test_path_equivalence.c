/* Follow a path on every ISA against the scalar reference, bit for bit:
 * 2D and 3D, counts that are no multiple of a vector, several pathways
 * mixed within a vector, per-agent data, unaligned starts, split ranges,
 * accumulate mode; a step (blend and priority, with seek, tiles, threads)
 * against separate calls and the integrator; a hostile host FP mode. */
#include <fenv.h>
#include <stdint.h>

#include "../common/check.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define PATH_X86 1
#endif

enum { PATHS = 4, MAX_AGENTS = 4099 + 1 };

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static float uniform(float lo, float hi) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return lo + (hi - lo) * (float)((rng >> 40) * 0x1p-24);
}

typedef struct crowd {
  size_t count;
  int dims;
  float *a[6]; /* px py pz vx vy vz, each with one spare float in front */
  float *dir, *max_speed, *ttt;
  uint32_t *index;
  float *s[3];
} crowd;

static float *floats(size_t n) { return calloc(n + 1, sizeof(float)); }

/* Agents in runs of one pathway and single agents of another, so vectors
 * hold one pathway, several, or lanes a step leaves out. */
static void crowd_make(crowd *c, size_t count, int dims, int offset) {
  c->count = count;
  c->dims = dims;
  for (int k = 0; k < 6; k++) {
    c->a[k] = floats(count) + offset;
    for (size_t i = 0; i < count; i++)
      c->a[k][i] = k < 3 ? uniform(-30.0f, 30.0f) : uniform(-2.0f, 2.0f);
  }
  c->dir = floats(count), c->max_speed = floats(count), c->ttt = floats(count);
  c->index = calloc(count + 1, sizeof(uint32_t));
  for (size_t i = 0; i < count; i++) {
    c->dir[i] = uniform(0.0f, 1.0f) < 0.5f ? 1.0f : -1.0f;
    c->max_speed[i] = uniform(0.5f, 3.0f);
    c->ttt[i] = uniform(0.25f, 2.0f);
    c->index[i] =
        (i / 37) % 3 == 0 ? (uint32_t)(i % PATHS) : (uint32_t)((i / 37) % PATHS);
  }
  /* Hand cases: at rest, on a path's point, denormal velocities. */
  if (count > 2) {
    c->a[3][0] = c->a[4][0] = c->a[5][0] = 0.0f;
    c->a[0][1] = 1.0f, c->a[1][1] = 2.0f, c->a[2][1] = 0.0f;
    c->a[3][2] = 1e-40f, c->a[4][2] = -3e-39f;
  }
  for (int k = 0; k < 3; k++)
    c->s[k] = floats(count);
}

static void crowd_free(crowd *c, int offset) {
  for (int k = 0; k < 6; k++)
    free(c->a[k] - offset);
  free(c->dir), free(c->max_speed), free(c->ttt), free(c->index);
  for (int k = 0; k < 3; k++)
    free(c->s[k]);
}

static crowdsteer_agents agents_of(const crowd *c) {
  crowdsteer_agents a = {c->count, c->dims, c->a[0], c->a[1], c->a[2],
                         c->a[3],  c->a[4], c->a[5], NULL};
  return a;
}

static crowdsteer_pathway *paths[2][PATHS];

static void make_paths(void) {
  for (int dims = 2; dims <= 3; dims++)
    for (int p = 0; p < PATHS; p++) {
      float x[9], y[9], z[9];
      const size_t n = 2 + (size_t)p * 2; /* 2, 4, 6, 8 points */
      for (size_t k = 0; k < n; k++)
        x[k] = uniform(-25, 25), y[k] = uniform(-25, 25), z[k] = uniform(-25, 25);
      x[0] = 1.0f, y[0] = 2.0f, z[0] = 0.0f;
      const crowdsteer_pathway_desc desc = {dims, n, x, y, z, uniform(0.5f, 4.0f), p % 2};
      CHECK_STATUS(crowdsteer_pathway_create(&paths[dims - 2][p], &desc), CROWDSTEER_OK);
    }
}

static crowdsteer_path_follow follow_of(const crowd *c, int per_agent) {
  crowdsteer_path_follow f;
  memset(&f, 0, sizeof f);
  f.paths = (const crowdsteer_pathway *const *)paths[c->dims - 2];
  f.path_count = PATHS;
  f.path = 3;
  f.direction = -1;
  f.prediction_time = 1.5f;
  f.lead_distance = 0.75f;
  if (per_agent) f.path_per_agent = c->index, f.direction_per_agent = c->dir;
  return f;
}

static crowdsteer_params params_of(const crowd *c, int per_agent) {
  crowdsteer_params p;
  memset(&p, 0, sizeof p);
  p.max_speed = 2.0f;
  if (per_agent)
    p.max_speed_per_agent = c->max_speed, p.time_to_target_per_agent = c->ttt;
  return p;
}

/* The steering of [0, count) in `pieces` calls, into c->s. */
static void run_calls(crowd *c, int per_agent, int accumulate, int pieces) {
  const crowdsteer_agents a = agents_of(c);
  const crowdsteer_path_follow f = follow_of(c, per_agent);
  const crowdsteer_params p = params_of(c, per_agent);
  crowdsteer_output out = {{c->s[0], c->s[1], c->s[2]},
                           accumulate ? CROWDSTEER_ACCUMULATE : CROWDSTEER_OVERWRITE,
                           accumulate ? 0.5f : 0.0f,
                           NULL};
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i < c->count; i++)
      c->s[k][i] = 0.25f;
  for (int q = 0; q < pieces; q++)
    CHECK_STATUS(crowdsteer_follow_path(&a, &f, &p, &out,
                                        c->count * (size_t)q / (size_t)pieces,
                                        c->count * (size_t)(q + 1) / (size_t)pieces),
                 CROWDSTEER_OK);
}

static int same_steering(const crowd *x, const crowd *y) {
  for (int k = 0; k < x->dims; k++)
    for (size_t i = 0; i < x->count; i++)
      if (!same_bits(x->s[k][i], y->s[k][i])) return 0;
  return 1;
}

static void check_calls(crowdsteer_isa isa) {
  static const size_t counts[] = {0, 1, 3, 17, 1000, 4099};
  for (int dims = 2; dims <= 3; dims++)
    for (size_t n = 0; n < sizeof counts / sizeof counts[0]; n++)
      for (int variant = 0; variant < 4; variant++) {
        const int per_agent = variant & 1, accumulate = variant >> 1,
                  offset = variant & 1;
        const uint64_t seed = rng;
        crowd want, got;
        crowd_make(&want, counts[n], dims, offset);
        rng = seed;
        crowd_make(&got, counts[n], dims, offset);
        crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
        run_calls(&want, per_agent, accumulate, 1);
        crowdsteer_force_isa(isa);
        run_calls(&got, per_agent, accumulate, 1 + (int)(n % 3));
        CHECK_MSG(same_steering(&want, &got),
                  "%s %dD count %zu per_agent %d accumulate %d", crowdsteer_isa_name(isa),
                  dims, counts[n], per_agent, accumulate);
        crowd_free(&want, offset);
        crowd_free(&got, offset);
      }
}

/* A step of seek and follow_path (some agents one, some the other, some
 * both), against the separate calls and crowdsteer_integrate. */
static void step_of(crowd *c, int combine, size_t tile, int threads, uint32_t *mask) {
  const crowdsteer_agents a = agents_of(c);
  const crowdsteer_path_follow f = follow_of(c, 1);
  crowdsteer_step_behaviour b[2];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_SEEK;
  b[0].target.point[0] = 3.0f;
  b[0].weight = 0.5f;
  b[1].behaviour = CROWDSTEER_FOLLOW_PATH;
  b[1].path = &f;
  b[1].params = params_of(c, 1);
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = b;
  step.behaviour_count = 2;
  step.combine = combine ? CROWDSTEER_PRIORITY : CROWDSTEER_BLEND;
  step.priority_threshold = 0.5f;
  step.behaviour_mask = mask;
  step.integrator.max_speed = 2.0f;
  step.tile_size = tile;
  step.threads = threads;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, c->count), CROWDSTEER_OK);
}

static void separate_of(crowd *c, const uint32_t *mask) {
  const crowdsteer_agents a = agents_of(c);
  const size_t n = c->count;
  float *s1[3], *s2[3];
  for (int k = 0; k < 3; k++)
    s1[k] = floats(n), s2[k] = floats(n);
  crowdsteer_target t;
  memset(&t, 0, sizeof t);
  t.point[0] = 3.0f;
  crowdsteer_params seek_params;
  memset(&seek_params, 0, sizeof seek_params);
  seek_params.max_speed = 2.0f;
  crowdsteer_output o1 = {{s1[0], s1[1], s1[2]}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  crowdsteer_output o2 = {{s2[0], s2[1], s2[2]}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  CHECK_STATUS(crowdsteer_seek(&a, &t, &seek_params, &o1, 0, n), CROWDSTEER_OK);
  const crowdsteer_path_follow f = follow_of(c, 1);
  const crowdsteer_params p = params_of(c, 1);
  CHECK_STATUS(crowdsteer_follow_path(&a, &f, &p, &o2, 0, n), CROWDSTEER_OK);
  /* Blend, as the step defines it: 0 + 0.5 * seek, then + 1 * path. */
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < c->dims; k++) {
      float sum = 0.0f;
      if (mask[i] & 1u) sum = sum + 0.5f * s1[k][i];
      if (mask[i] & 2u) sum = sum + 1.0f * s2[k][i];
      s1[k][i] = sum;
    }
  crowdsteer_params integrator;
  memset(&integrator, 0, sizeof integrator);
  integrator.max_speed = 2.0f;
  crowdsteer_vectors steering = {s1[0], s1[1], s1[2]};
  CHECK_STATUS(crowdsteer_integrate(&a, &steering, &integrator, 0, n), CROWDSTEER_OK);
  for (int k = 0; k < 3; k++)
    free(s1[k]), free(s2[k]);
}

static int same_state(const crowd *x, const crowd *y) {
  for (int k = 0; k < 6; k++) {
    if (x->dims == 2 && (k == 2 || k == 5)) continue;
    for (size_t i = 0; i < x->count; i++)
      if (!same_bits(x->a[k][i], y->a[k][i])) return 0;
  }
  return 1;
}

static void check_step(crowdsteer_isa isa) {
  enum { N = 2051 };
  uint32_t mask[N];
  for (size_t i = 0; i < N; i++)
    mask[i] = (i / 300) % 2 ? 2u : (uint32_t)(1 + i % 3);
  for (int dims = 2; dims <= 3; dims++) {
    const uint64_t seed = rng;
    crowd want, got;
    crowd_make(&want, N, dims, 0);
    crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
    separate_of(&want, mask);
    crowdsteer_force_isa(isa);
    static const size_t tiles[] = {0, 7, 64};
    static const int threads[] = {1, 2, 1};
    for (int v = 0; v < 3; v++) {
      rng = seed;
      crowd_make(&got, N, dims, 0);
      step_of(&got, 0, tiles[v], threads[v], mask);
      CHECK_MSG(same_state(&want, &got), "%s %dD blend step, tile %zu threads %d",
                crowdsteer_isa_name(isa), dims, tiles[v], threads[v]);
      crowd_free(&got, 0);
    }
    /* Priority: the same on the scalar reference and this ISA. */
    rng = seed;
    crowd_make(&got, N, dims, 0);
    crowd priority;
    rng = seed;
    crowd_make(&priority, N, dims, 0);
    crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
    step_of(&priority, 1, 0, 1, mask);
    crowdsteer_force_isa(isa);
    step_of(&got, 1, 64, 2, mask);
    CHECK_MSG(same_state(&priority, &got), "%s %dD priority step",
              crowdsteer_isa_name(isa), dims);
    crowd_free(&priority, 0);
    crowd_free(&got, 0);
    crowd_free(&want, 0);
  }
}

/* follow_path alone in a step of the common shape (uniform parameters, no
 * mask): the chunk runs in registers with the integrator on the SIMD ISAs,
 * the accumulator on the scalar reference; the same state. */
static void step_alone(crowd *c, int per_agent, int threads) {
  const crowdsteer_agents a = agents_of(c);
  const crowdsteer_path_follow f = follow_of(c, per_agent);
  crowdsteer_step_behaviour b;
  memset(&b, 0, sizeof b);
  b.behaviour = CROWDSTEER_FOLLOW_PATH;
  b.path = &f;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = &b;
  step.behaviour_count = 1;
  step.integrator.max_speed = 1.5f;
  step.integrator.dt = 0.25f;
  step.threads = threads;
  CHECK_STATUS(crowdsteer_step(&a, &step, 0, c->count), CROWDSTEER_OK);
}

static void check_step_alone(crowdsteer_isa isa) {
  for (int dims = 2; dims <= 3; dims++)
    for (int per_agent = 0; per_agent < 2; per_agent++) {
      const uint64_t seed = rng;
      crowd want, got;
      crowd_make(&want, 1043, dims, 0);
      rng = seed;
      crowd_make(&got, 1043, dims, 0);
      crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
      step_alone(&want, per_agent, 1);
      crowdsteer_force_isa(isa);
      step_alone(&got, per_agent, 1 + per_agent);
      CHECK_MSG(same_state(&want, &got), "%s %dD follow_path alone, per_agent %d",
                crowdsteer_isa_name(isa), dims, per_agent);
      crowd_free(&want, 0);
      crowd_free(&got, 0);
    }
}

/* A hostile host mode (upward rounding, FTZ and DAZ) changes no bit, and
 * the host gets its mode back. */
static void check_fpenv(crowdsteer_isa isa) {
  crowdsteer_force_isa(isa);
  for (int dims = 2; dims <= 3; dims++) {
    const uint64_t seed = rng;
    crowd want, got;
    crowd_make(&want, 203, dims, 0);
    rng = seed;
    crowd_make(&got, 203, dims, 0);
    run_calls(&want, 1, 0, 1);
    /* The mode the host got (WebAssembly has round-to-nearest only). */
    fesetround(FE_UPWARD);
    const int rounding = fegetround();
#ifdef PATH_X86
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u);
    /* The mode the host got (valgrind keeps neither FTZ nor DAZ). */
    const unsigned hostile = _mm_getcsr();
#endif
    run_calls(&got, 1, 0, 1);
#ifdef PATH_X86
    CHECK(_mm_getcsr() == hostile);
    _mm_setcsr(csr);
#endif
    CHECK(fegetround() == rounding);
    fesetround(FE_TONEAREST);
    CHECK_MSG(same_steering(&want, &got), "%s %dD in a hostile FP mode",
              crowdsteer_isa_name(isa), dims);
    crowd_free(&want, 0);
    crowd_free(&got, 0);
  }
}

int main(void) {
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  const int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  if (isa_count < 0) return 77;
  make_paths();
  for (int k = 0; k < isa_count; k++) {
    check_calls(isas[k]);
    check_step(isas[k]);
    check_step_alone(isas[k]);
    check_fpenv(isas[k]);
  }
  for (int dims = 0; dims < 2; dims++)
    for (int p = 0; p < PATHS; p++)
      crowdsteer_pathway_destroy(paths[dims][p]);
  return check_report("test_path_equivalence");
}
