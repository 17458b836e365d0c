/* The integrator's options (crowdsteer_motion, crowdsteer_flock.h):
 * acceleration smoothing and the low-speed turn limit. Every ISA gives the
 * scalar reference's bits (counts around the vector widths, split ranges,
 * slow, resting and reversing agents); the reference matches the written
 * rules computed in double precision; zeros change no bit; a step with
 * them is its behaviours' named calls blended, then crowdsteer_integrate
 * (1 and 2 threads, small tiles); and validation writes nothing. */
#include "../common/neighbour_crowd.h"

enum { N = 1000 };

typedef struct motion_world {
  crowd c;
  float sx[N], sy[N], sz[N];
  float ax[N], ay[N], az[N];
  crowdsteer_motion motion;
  crowdsteer_params params;
} motion_world;

/* Random agents (a third slow, some at rest), steering often against the
 * velocity, and a random smoothed acceleration. */
static void world_init(motion_world *w, size_t count, int dims, uint64_t seed) {
  crowd_init(&w->c, count, dims);
  rng r = {seed};
  crowd_random(&w->c, &r, 6.0f);
  float *s[3] = {w->sx, w->sy, w->sz}, *a[3] = {w->ax, w->ay, w->az};
  for (size_t i = 0; i < count; i++) {
    const float slow = i % 3 == 0 ? 0.05f : 1.0f;
    for (int k = 0; k < dims; k++) {
      w->c.a[3 + k][i] *= i % 17 == 3 ? 0.0f : slow;
      s[k][i] = i % 4 == 1 ? -3.0f * w->c.a[3 + k][i] + rng_range(&r, -0.05f, 0.05f)
                           : rng_range(&r, -2.0f, 2.0f);
      if (i % 23 == 9) s[k][i] = 0.0f;
      a[k][i] = rng_range(&r, -0.5f, 0.5f);
    }
  }
  memset(&w->motion, 0, sizeof w->motion);
  w->motion.smoothing = 0.15f;
  w->motion.turn_limit = 0.2f;
  w->motion.acceleration = (crowdsteer_vectors){w->ax, w->ay, dims == 3 ? w->az : NULL};
  memset(&w->params, 0, sizeof w->params);
  w->params.max_speed = 1.5f;
  w->params.max_force = 2.0f;
  w->params.dt = 0.25f;
  w->params.motion = &w->motion;
}

static crowdsteer_vectors steering_of(motion_world *w) {
  return (crowdsteer_vectors){w->sx, w->sy, w->c.dims == 3 ? w->sz : NULL};
}

/* Positions, velocities and accelerations after one integration. */
static void integrate(motion_world *w, size_t cut, float out[9][N]) {
  crowd *c = &w->c;
  const crowdsteer_vectors s = steering_of(w);
  CHECK_STATUS(crowdsteer_integrate(&c->agents, &s, &w->params, cut, c->count),
               CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_integrate(&c->agents, &s, &w->params, 0, cut), CROWDSTEER_OK);
  const float *a[3] = {w->ax, w->ay, w->az};
  for (int k = 0; k < 6; k++)
    memcpy(out[k], c->a[k], c->count * sizeof(float));
  for (int k = 0; k < 3; k++)
    memcpy(out[6 + k], a[k], c->count * sizeof(float));
}

static float want[9][N], got[9][N];

static int same_arrays(size_t count, int dims, const char *what) {
  for (int k = 0; k < 9; k++) {
    if (k % 3 >= dims) continue;
    for (size_t i = 0; i < count; i++)
      if (!same_bits(got[k][i], want[k][i])) {
        CHECK_MSG(0, "%s %dD %zu agents: array %d agent %zu: %.9g vs %.9g", what, dims,
                  count, k, i, got[k][i], want[k][i]);
        return 0;
      }
  }
  return 1;
}

/* Every supported ISA against the scalar reference. */
static void check_isas(void) {
  static const size_t counts[] = {1, 3, 17, 31, 1000};
  crowdsteer_isa isas[CROWDSTEER_ISA_COUNT];
  const int isa_count = isas_to_test(CROWDSTEER_ISA_SCALAR, isas);
  for (int dims = 2; dims <= 3; dims++)
    for (size_t n = 0; n < sizeof counts / sizeof counts[0]; n++) {
      const size_t count = counts[n];
      motion_world w;
      CHECK_STATUS(crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR), CROWDSTEER_OK);
      world_init(&w, count, dims, 40u + n);
      integrate(&w, count, want);
      crowd_free(&w.c);
      for (int t = 0; t < isa_count; t++) {
        CHECK_STATUS(crowdsteer_force_isa(isas[t]), CROWDSTEER_OK);
        world_init(&w, count, dims, 40u + n);
        integrate(&w, count / 3, got);
        same_arrays(count, dims, crowdsteer_isa_name(isas[t]));
        crowd_free(&w.c);
      }
    }
}

/* The rules in double precision, for one agent. */
static void rules(const motion_world *w, size_t i, double v_out[3], double a_out[3]) {
  const int dims = w->c.dims;
  const float *s_in[3] = {w->sx, w->sy, w->sz}, *a_in[3] = {w->ax, w->ay, w->az};
  double s[3] = {0, 0, 0}, v[3] = {0, 0, 0}, A[3] = {0, 0, 0};
  for (int k = 0; k < dims; k++) {
    s[k] = s_in[k][i];
    v[k] = w->c.a[3 + k][i];
    A[k] = a_in[k][i];
  }
  const double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  const double length = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  const double slow = 0.2 * 1.5;
  if (speed > 0 && speed <= slow && length > 0) {
    const double cosine = 1.0 - 2.0 * pow(speed / slow, 20);
    double h[3], sh = 0.0;
    for (int k = 0; k < 3; k++) {
      h[k] = v[k] / speed;
      sh += s[k] * h[k];
    }
    if (sh / length < cosine) {
      double perp[3], pl = 0.0;
      for (int k = 0; k < 3; k++) {
        perp[k] = s[k] - h[k] * sh;
        pl += perp[k] * perp[k];
      }
      pl = sqrt(pl);
      const double side = sqrt(1.0 - cosine * cosine);
      for (int k = 0; k < 3; k++)
        s[k] = (h[k] * cosine + (pl > 0 ? perp[k] / pl : 0.0) * side) * length;
    }
  }
  const double f = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  for (int k = 0; k < 3; k++) {
    const double a = f > 2.0 ? s[k] * 2.0 / f : s[k];
    a_out[k] = A[k] + (a - A[k]) * 0.15;
    v_out[k] = v[k] + a_out[k] * 0.25;
  }
  const double vl = sqrt(v_out[0] * v_out[0] + v_out[1] * v_out[1] + v_out[2] * v_out[2]);
  for (int k = 0; vl > 1.5 && k < 3; k++)
    v_out[k] *= 1.5 / vl;
}

static void check_rules(void) {
  for (int dims = 2; dims <= 3; dims++) {
    motion_world w, before;
    world_init(&w, N, dims, 7u);
    world_init(&before, N, dims, 7u);
    integrate(&w, 0, got);
    size_t limited = 0;
    for (size_t i = 0; i < N; i++) {
      double v[3], a[3];
      rules(&before, i, v, a);
      for (int k = 0; k < dims; k++) {
        /* The cone's edge is steep in the speed (a 20th power): allow the
         * float roundings of the range 40 ulps of effect. */
        CHECK_MSG(fabs(got[6 + k][i] - a[k]) <= 1e-4 * (1.0 + fabs(a[k])),
                  "%dD agent %zu acceleration %d: %.9g, rules %.9g", dims, i, k,
                  got[6 + k][i], a[k]);
        CHECK_MSG(fabs(got[3 + k][i] - v[k]) <= 1e-4 * (1.0 + fabs(v[k])),
                  "%dD agent %zu velocity %d: %.9g, rules %.9g", dims, i, k,
                  got[3 + k][i], v[k]);
      }
      const float speed = sqrtf(before.c.a[3][i] * before.c.a[3][i] +
                                before.c.a[4][i] * before.c.a[4][i]);
      limited += speed > 0.0f && speed < 0.2f && i % 4 == 1;
    }
    CHECK(limited > 50); /* the limit was exercised: slow agents steering back */
    crowd_free(&w.c);
    crowd_free(&before.c);
  }
}

/* Zeros (and NULL) change no bit. */
static void check_defaults(void) {
  motion_world w;
  world_init(&w, N, 3, 9u);
  w.params.motion = NULL;
  integrate(&w, 0, want);
  crowd_free(&w.c);
  world_init(&w, N, 3, 9u);
  w.motion.smoothing = 0.0f;
  w.motion.turn_limit = 0.0f;
  integrate(&w, 0, got);
  same_arrays(N, 3, "zeroed motion");
  crowd_free(&w.c);
}

/* A step of seek and separation with the options: the named calls
 * blended, then crowdsteer_integrate. */
static void check_step(void) {
  for (int dims = 2; dims <= 3; dims++)
    for (int threads = 1; threads <= 2; threads++) {
      motion_world w, ref;
      world_init(&w, N, dims, 11u);
      world_init(&ref, N, dims, 11u);
      crowdsteer_grid *grid;
      CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
      crowdsteer_grid_desc desc = {0};
      desc.cell_size = 1.0f;
      CHECK_STATUS(crowdsteer_grid_build(grid, &w.c.agents, &desc), CROWDSTEER_OK);
      crowdsteer_neighbours nb = {0};
      nb.grid = grid;
      crowdsteer_step_behaviour b[2];
      memset(b, 0, sizeof b);
      b[0].behaviour = CROWDSTEER_SEEK;
      b[0].target.point[0] = 4.0f;
      b[1].behaviour = CROWDSTEER_SEPARATION;
      b[1].neighbours = &nb;
      b[1].weight = 2.0f;
      crowdsteer_output out;
      memset(&out, 0, sizeof out);
      out.steering = steering_of(&ref);
      CHECK_STATUS(crowdsteer_seek(&ref.c.agents, &b[0].target, &ref.params, &out, 0, N),
                   CROWDSTEER_OK);
      out.mode = CROWDSTEER_ACCUMULATE;
      out.weight = 2.0f;
      CHECK_STATUS(crowdsteer_separation(&ref.c.agents, &nb, &ref.params, &out, 0, N),
                   CROWDSTEER_OK);
      integrate(&ref, 0, want);
      crowdsteer_step_desc step;
      memset(&step, 0, sizeof step);
      step.behaviours = b;
      step.behaviour_count = 2;
      step.integrator = w.params;
      step.threads = threads;
      step.tile_size = 96;
      CHECK_STATUS(crowdsteer_step(&w.c.agents, &step, 0, N), CROWDSTEER_OK);
      const float *a[3] = {w.ax, w.ay, w.az};
      for (int k = 0; k < 6; k++)
        memcpy(got[k], w.c.a[k], N * sizeof(float));
      for (int k = 0; k < 3; k++)
        memcpy(got[6 + k], a[k], N * sizeof(float));
      same_arrays(N, dims, threads == 1 ? "step" : "step, 2 threads");
      crowdsteer_grid_destroy(grid);
      crowd_free(&w.c);
      crowd_free(&ref.c);
    }
}

static void check_validation(void) {
  motion_world w;
  world_init(&w, 50, 2, 5u);
  const crowdsteer_vectors s = steering_of(&w);
  const float vx0 = w.c.a[3][0], ax0 = w.ax[0];
  const float bad[4] = {-0.1f, 1.5f, NAN, INFINITY};
  for (int j = 0; j < 4; j++) {
    w.motion.smoothing = bad[j];
    CHECK_STATUS(crowdsteer_integrate(&w.c.agents, &s, &w.params, 0, 50),
                 CROWDSTEER_ERROR_PARAMETER);
    w.motion.smoothing = 0.15f;
    w.motion.turn_limit = bad[j];
    CHECK_STATUS(crowdsteer_integrate(&w.c.agents, &s, &w.params, 0, 50),
                 CROWDSTEER_ERROR_PARAMETER);
    w.motion.turn_limit = 0.2f;
  }
  w.motion.acceleration.y = NULL;
  CHECK_STATUS(crowdsteer_integrate(&w.c.agents, &s, &w.params, 0, 50),
               CROWDSTEER_ERROR_NULL_POINTER);
  w.motion.acceleration.y = w.c.a[3]; /* the velocities */
  CHECK_STATUS(crowdsteer_integrate(&w.c.agents, &s, &w.params, 0, 50),
               CROWDSTEER_ERROR_OVERLAP);
  w.motion.acceleration.y = (float *)((char *)w.ay + 2);
  CHECK_STATUS(crowdsteer_integrate(&w.c.agents, &s, &w.params, 0, 50),
               CROWDSTEER_ERROR_ALIGNMENT);
  CHECK(same_bits(w.c.a[3][0], vx0) && same_bits(w.ax[0], ax0));
  crowd_free(&w.c);
}

static void body(void) {
  check_rules();
  check_defaults();
  check_step();
  check_validation();
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  check_isas();
  if (!on_every_isa(body)) return 77;
  return check_report("test_behaviour_motion");
}
