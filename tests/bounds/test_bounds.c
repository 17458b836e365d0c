/* World bounds (crowdsteer_bounds.h): wrap-around and containment on
 * hand-worked cases, the wrap against its written rule on every lane,
 * containment against crowdsteer_seek towards the
 * centre (outside) and zero (inside) bit for bit on every ISA, the inside
 * rule against a double-precision test, a hostile host rounding mode, and
 * validation of every field (nothing written on error). */
#include <fenv.h>
#include <float.h>
#include <stdint.h>

enum { N = 257 };

static float px[N], py[N], pz[N], vx[N], vy[N], vz[N];
static float sx[N], sy[N], sz[N], ex[N], ey[N], ez[N];

#include "bounds_common.h"

static crowdsteer_output out_of(float *x, float *y, float *z) {
  crowdsteer_output o;
  memset(&o, 0, sizeof o);
  o.steering.x = x;
  o.steering.y = y;
  o.steering.z = z;
  return o;
}

static void wrap_hand(void) {
  const crowdsteer_box box = {{-1.0f, 0.0f, 10.0f}, {3.0f, 2.0f, 14.0f}};
  const float in_x[] = {3.0f, 3.5f, -1.5f, -1.0f, 2.75f, 12.0f, -9.5f, NAN};
  const float want_x[] = {-1.0f, -0.5f, 2.5f, -1.0f, 2.75f, 8.0f, -5.5f, NAN};
  const size_t n = sizeof in_x / sizeof in_x[0];
  for (size_t i = 0; i < n; i++) {
    px[i] = in_x[i];
    py[i] = 1.0f;
    pz[i] = 14.0f;
  }
  py[0] = 2.0f;  /* -> 0 */
  py[1] = -0.5f; /* -> 1.5 */
  const crowdsteer_agents a3 = batch(3, n);
  CHECK_STATUS(crowdsteer_wrap(&a3, &box, 0, n), CROWDSTEER_OK);
  for (size_t i = 0; i < n; i++) {
    CHECK_MSG(same_bits(px[i], want_x[i]), "x[%zu] = %g, want %g", i, px[i], want_x[i]);
    CHECK(pz[i] == 10.0f);
  }
  CHECK(py[0] == 0.0f && py[1] == 1.5f && py[2] == 1.0f);
  /* A hostile rounding mode: one shift of an inexact side, the same bits. */
  const crowdsteer_box odd = {{0.1f, 0, 0}, {0.7f, 1, 1}};
  px[0] = 0.9f, px[1] = 0.05f;
  const float want0 = 0.9f - (0.7f - 0.1f), want1 = 0.05f + (0.7f - 0.1f);
  fesetround(FE_DOWNWARD);
  CHECK_STATUS(crowdsteer_wrap(&a3, &odd, 0, 2), CROWDSTEER_OK);
  fesetround(FE_TONEAREST);
  CHECK(same_bits(px[0], want0) && same_bits(px[1], want1));
  /* 2D: z neither read nor written (NULL is fine). */
  px[0] = 3.25f;
  py[0] = -2.0f;
  const crowdsteer_agents a2 = batch(2, 1);
  CHECK_STATUS(crowdsteer_wrap(&a2, &box, 0, 1), CROWDSTEER_OK);
  CHECK(px[0] == -0.75f && py[0] == 0.0f);
}

/* Every failure leaves the positions as they were. */
/* The written rule on every lane position: random positions in and
 * around the box, its corners and one ulp about them, infinities and NaN,
 * over ranges that start and end mid-vector; nothing outside the range is
 * written. */
static void wrap_sweep(void) {
  const crowdsteer_box box = {{-3.5f, 0.25f, 1.0f}, {2.0f, 7.75f, 1.5f}};
  float want[3][N];
  float *const p[3] = {px, py, pz};
  const size_t ranges[][2] = {{0, N}, {3, N - 5}, {17, 18}, {1, 40}, {N - 1, N}};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
    for (int dims = 2; dims <= 3; dims++) {
      const size_t begin = ranges[r][0], end = ranges[r][1];
      for (int k = 0; k < 3; k++) {
        const float lo = box.min[k], hi = box.max[k], side = hi - lo;
        const float special[] = {lo,
                                 hi,
                                 nextafterf(lo, -INFINITY),
                                 nextafterf(lo, INFINITY),
                                 nextafterf(hi, -INFINITY),
                                 nextafterf(hi, INFINITY),
                                 INFINITY,
                                 -INFINITY,
                                 NAN,
                                 0.0f,
                                 -0.0f};
        for (size_t i = 0; i < N; i++) {
          const size_t s = i % 23;
          const float x = s < sizeof special / sizeof special[0]
                              ? special[s]
                              : uniform(lo - 2.0f * side, hi + 2.0f * side);
          p[k][i] = x;
          const int moved = i >= begin && i < end && (k < dims);
          want[k][i] = !moved ? x : x >= hi ? x - side : x < lo ? x + side : x;
        }
      }
      CHECK_STATUS(
          crowdsteer_wrap(&(crowdsteer_agents){N, dims, px, py, pz, vx, vy, vz, NULL},
                          &box, begin, end),
          CROWDSTEER_OK);
      for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < N; i++)
          CHECK_MSG(same_bits(p[k][i], want[k][i]),
                    "%dD [%zu, %zu): axis %d, agent %zu: %g, want %g", dims, begin, end,
                    k, i, p[k][i], want[k][i]);
    }
}

static void wrap_validation(void) {
  for (size_t i = 0; i < 8; i++)
    px[i] = py[i] = pz[i] = 100.0f + (float)i;
  const crowdsteer_box good = {{0, 0, 0}, {1, 1, 1}};
  crowdsteer_agents a = batch(3, 8);
  CHECK_STATUS(crowdsteer_wrap(NULL, &good, 0, 8), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_wrap(&a, NULL, 0, 8), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_wrap(&a, &good, 5, 4), CROWDSTEER_ERROR_RANGE);
  CHECK_STATUS(crowdsteer_wrap(&a, &good, 0, 9), CROWDSTEER_ERROR_RANGE);
  a.dims = 4;
  CHECK_STATUS(crowdsteer_wrap(&a, &good, 0, 8), CROWDSTEER_ERROR_DIMS);
  a = batch(3, 8);
  a.pz = NULL;
  CHECK_STATUS(crowdsteer_wrap(&a, &good, 0, 8), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_wrap(&a, &good, 3, 3), CROWDSTEER_OK); /* empty: not read */
  a = batch(3, 8);
  a.py = (float *)((char *)py + 1);
  CHECK_STATUS(crowdsteer_wrap(&a, &good, 0, 4), CROWDSTEER_ERROR_ALIGNMENT);
  a = batch(3, 8);
  for (int k = 0; k < 3; k++) {
    const float bad_values[] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; b++) {
      crowdsteer_box box = good;
      box.min[k] = bad_values[b];
      CHECK_STATUS(crowdsteer_wrap(&a, &box, 0, 8), CROWDSTEER_ERROR_PARAMETER);
      box = good;
      box.max[k] = bad_values[b];
      CHECK_STATUS(crowdsteer_wrap(&a, &box, 0, 8), CROWDSTEER_ERROR_PARAMETER);
    }
    crowdsteer_box box = good;
    box.max[k] = 0.0f; /* min == max: no shift */
    CHECK_STATUS(crowdsteer_wrap(&a, &box, 0, 8), CROWDSTEER_ERROR_PARAMETER);
    box.max[k] = -1.0f;
    CHECK_STATUS(crowdsteer_wrap(&a, &box, 0, 8), CROWDSTEER_ERROR_PARAMETER);
    box = good;
    box.min[k] = -FLT_MAX; /* the side overflows */
    box.max[k] = FLT_MAX;
    CHECK_STATUS(crowdsteer_wrap(&a, &box, 0, 8), CROWDSTEER_ERROR_PARAMETER);
  }
  for (size_t i = 0; i < 8; i++)
    CHECK(px[i] == 100.0f + (float)i && py[i] == px[i] && pz[i] == px[i]);
  /* 2D ignores z's corners. */
  crowdsteer_box flat = good;
  flat.min[2] = NAN;
  a = batch(2, 8);
  CHECK_STATUS(crowdsteer_wrap(&a, &flat, 0, 8), CROWDSTEER_OK);
}

static crowdsteer_bounds sphere(float cx, float cy, float cz, float r, float ahead) {
  crowdsteer_bounds b;
  memset(&b, 0, sizeof b);
  b.shape = CROWDSTEER_BOUNDS_SPHERE;
  b.centre[0] = cx;
  b.centre[1] = cy;
  b.centre[2] = cz;
  b.radius = r;
  b.prediction = ahead;
  return b;
}

static crowdsteer_bounds box_bounds(const float lo[3], const float hi[3], float ahead) {
  crowdsteer_bounds b;
  memset(&b, 0, sizeof b);
  b.shape = CROWDSTEER_BOUNDS_BOX;
  memcpy(b.box.min, lo, sizeof b.box.min);
  memcpy(b.box.max, hi, sizeof b.box.max);
  b.prediction = ahead;
  return b;
}

static void contain_hand(void) {
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 2.0f;
  /* 0: outside at rest; 1: inside, still inside ahead; 2: inside, outside
   * in 10; 3: exactly on the circle (inside). */
  const float x[] = {11.0f, 5.0f, 5.0f, 0.0f}, y[] = {0.0f, 0.0f, 0.0f, 10.0f};
  const float u[] = {0.0f, 0.0f, 1.0f, 0.0f}, w[] = {0.0f, 0.5f, 0.0f, 0.0f};
  for (int i = 0; i < 4; i++) {
    px[i] = x[i];
    py[i] = y[i];
    vx[i] = u[i];
    vy[i] = w[i];
  }
  const crowdsteer_agents a = batch(2, 4);
  const crowdsteer_output o = out_of(sx, sy, NULL);
  crowdsteer_bounds b = sphere(0, 0, 0, 10.0f, 0.0f);
  CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 4), CROWDSTEER_OK);
  CHECK(sx[0] == -2.0f && sy[0] == 0.0f);
  CHECK(sx[1] == 0.0f && sy[1] == 0.0f);
  CHECK(sx[2] == 0.0f && sy[2] == 0.0f);
  CHECK(sx[3] == 0.0f && sy[3] == 0.0f);
  b.prediction = 10.0f; /* agent 1 at (5, 5): inside; agent 2 at (15, 0) */
  CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 4), CROWDSTEER_OK);
  CHECK(sx[1] == 0.0f && sy[1] == 0.0f);
  CHECK(sx[2] == -3.0f && sy[2] == 0.0f);
  /* A box [0, 4] x [0, 2] x [0, 2] (centre (2, 1, 1)), 3D, accumulate with
   * weight 0.5 onto 1s, time_to_target 2. */
  const float lo[3] = {0, 0, 0}, hi[3] = {4, 2, 2};
  b = box_bounds(lo, hi, 0.0f);
  px[0] = 2.0f, py[0] = 1.0f, pz[0] = 5.0f; /* above: seek (0, 0, -1) */
  vx[0] = 1.0f, vy[0] = 0.0f, vz[0] = 0.0f;
  px[1] = 4.0f, py[1] = 0.0f, pz[1] = 2.0f; /* on the corner: inside */
  vx[1] = vy[1] = vz[1] = 0.0f;
  for (int i = 0; i < 2; i++)
    sx[i] = sy[i] = sz[i] = 1.0f;
  crowdsteer_output acc = out_of(sx, sy, sz);
  acc.mode = CROWDSTEER_ACCUMULATE;
  acc.weight = 0.5f;
  params.time_to_target = 2.0f;
  const crowdsteer_agents a3 = batch(3, 2);
  CHECK_STATUS(crowdsteer_contain(&a3, &b, &params, &acc, 0, 2), CROWDSTEER_OK);
  /* s = ((0, 0, -2) - (1, 0, 0)) / 2 = (-0.5, 0, -1); 1 + 0.5 s */
  CHECK(sx[0] == 0.75f && sy[0] == 1.0f && sz[0] == 0.5f);
  CHECK(sx[1] == 1.0f && sy[1] == 1.0f && sz[1] == 1.0f);
}

/* Outside agents get seek towards the centre, inside ones zero: the same
 * bits as crowdsteer_seek on the active ISA, whatever the host's rounding. */
static void contain_against_seek(int dims, const crowdsteer_bounds *b,
                                 const crowdsteer_params *params) {
  for (size_t i = 0; i < N; i++) {
    px[i] = uniform(-30, 30), py[i] = uniform(-30, 30), pz[i] = uniform(-30, 30);
    vx[i] = uniform(-3, 3), vy[i] = uniform(-3, 3), vz[i] = uniform(-3, 3);
  }
  px[7] = b->centre[0], py[7] = b->centre[1], pz[7] = b->centre[2]; /* on the centre */
  const crowdsteer_agents a = batch(dims, N);
  crowdsteer_target t;
  memset(&t, 0, sizeof t);
  t.kind = CROWDSTEER_TARGET_POINT;
  for (int k = 0; k < 3; k++)
    t.point[k] = b->shape == CROWDSTEER_BOUNDS_SPHERE
                     ? b->centre[k]
                     : b->box.min[k] * 0.5f + b->box.max[k] * 0.5f;
  const crowdsteer_output seek_out = out_of(ex, ey, dims == 3 ? ez : NULL);
  const crowdsteer_output o = out_of(sx, sy, dims == 3 ? sz : NULL);
  CHECK_STATUS(crowdsteer_seek(&a, &t, params, &seek_out, 0, N), CROWDSTEER_OK);
  /* Two split calls, the second in a hostile rounding mode. */
  CHECK_STATUS(crowdsteer_contain(&a, b, params, &o, 0, 100), CROWDSTEER_OK);
  fesetround(FE_UPWARD);
  CHECK_STATUS(crowdsteer_contain(&a, b, params, &o, 100, N), CROWDSTEER_OK);
  CHECK(fegetround() == FE_UPWARD); /* the host's mode comes back */
  fesetround(FE_TONEAREST);
  int outside = 0, inside = 0;
  for (size_t i = 0; i < N; i++) {
    /* The inside rule, in double: agents within 1e-3 of the border are
     * left to the float rule (the double rule may round either way). */
    double q[3], margin;
    for (int k = 0; k < 3; k++)
      q[k] = (double)(k == 0   ? px
                      : k == 1 ? py
                               : pz)[i] +
             (double)(k == 0   ? vx
                      : k == 1 ? vy
                               : vz)[i] *
                 b->prediction;
    if (b->shape == CROWDSTEER_BOUNDS_SPHERE) {
      double d2 = 0;
      for (int k = 0; k < dims; k++)
        d2 += (q[k] - b->centre[k]) * (q[k] - b->centre[k]);
      margin = b->radius - sqrt(d2);
    } else {
      margin = INFINITY;
      for (int k = 0; k < dims; k++) {
        margin = fmin(margin, q[k] - b->box.min[k]);
        margin = fmin(margin, b->box.max[k] - q[k]);
      }
    }
    const int is_inside = sx[i] == 0.0f && sy[i] == 0.0f && (dims == 2 || sz[i] == 0.0f);
    if (margin > 1e-3) CHECK_MSG(is_inside, "agent %zu inside by %g, steered", i, margin);
    if (margin < -1e-3) {
      outside++;
      CHECK_MSG(same_bits(sx[i], ex[i]) && same_bits(sy[i], ey[i]) &&
                    (dims == 2 || same_bits(sz[i], ez[i])),
                "agent %zu: contain (%g %g) != seek (%g %g)", i, sx[i], sy[i], ex[i],
                ey[i]);
    } else if (margin > 1e-3) {
      inside++;
    }
  }
  CHECK_MSG(outside > 20 && inside > 20, "outside %d inside %d", outside, inside);
}

static void contain_every_isa(void) {
  static const float ttt[N];
  static float speeds[N];
  for (size_t i = 0; i < N; i++)
    speeds[i] = uniform(0.5f, 4.0f);
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = 1.5f;
  const float lo[3] = {-20, -15, -25}, hi[3] = {18, 25, 12};
  for (int dims = 2; dims <= 3; dims++) {
    crowdsteer_bounds s = sphere(1.5f, -2.0f, 3.0f, 20.0f, 0.0f);
    contain_against_seek(dims, &s, &params);
    s.prediction = 2.5f;
    params.time_to_target = 0.75f;
    contain_against_seek(dims, &s, &params);
    crowdsteer_bounds bx = box_bounds(lo, hi, 1.25f);
    params.max_speed_per_agent = speeds;
    contain_against_seek(dims, &bx, &params);
    params.max_speed_per_agent = NULL;
    params.time_to_target = 0.0f;
  }
  (void)ttt;
}

/* Every failure writes nothing. */
static void contain_validation(void) {
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  for (size_t i = 0; i < 8; i++) {
    px[i] = py[i] = pz[i] = 50.0f;
    vx[i] = vy[i] = vz[i] = 0.0f;
    sx[i] = sy[i] = sz[i] = 7.0f;
  }
  const crowdsteer_agents a = batch(3, 8);
  const crowdsteer_output o = out_of(sx, sy, sz);
  const crowdsteer_bounds good = sphere(0, 0, 0, 1, 0);
  CHECK_STATUS(crowdsteer_contain(NULL, &good, &params, &o, 0, 8),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_contain(&a, NULL, &params, &o, 0, 8),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_contain(&a, &good, &params, NULL, 0, 8),
               CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_contain(&a, &good, &params, &o, 0, 9), CROWDSTEER_ERROR_RANGE);
  crowdsteer_agents bad = a;
  bad.dims = 1;
  CHECK_STATUS(crowdsteer_contain(&bad, &good, &params, &o, 0, 8), CROWDSTEER_ERROR_DIMS);
  crowdsteer_bounds b = good;
  b.shape = (crowdsteer_bounds_shape)2;
  CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 8), CROWDSTEER_ERROR_PARAMETER);
  const float bad_values[] = {NAN, INFINITY, -INFINITY, -1.0f};
  for (int v = 0; v < 4; v++) {
    b = good;
    b.radius = bad_values[v];
    CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 8),
                 CROWDSTEER_ERROR_PARAMETER);
    b = good;
    b.prediction = bad_values[v];
    CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 8),
                 CROWDSTEER_ERROR_PARAMETER);
    if (v < 3) {
      for (int k = 0; k < 3; k++) {
        b = good;
        b.centre[k] = bad_values[v];
        CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 8),
                     CROWDSTEER_ERROR_PARAMETER);
        const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        b = box_bounds(lo, hi, 0);
        b.box.min[k] = bad_values[v];
        CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 8),
                     CROWDSTEER_ERROR_PARAMETER);
        b = box_bounds(lo, hi, 0);
        b.box.max[k] = bad_values[v];
        CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 8),
                     CROWDSTEER_ERROR_PARAMETER);
        b = box_bounds(hi, lo, 0); /* min > max */
        CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 8),
                     CROWDSTEER_ERROR_PARAMETER);
      }
    }
  }
  /* Seek's own validation: a bad parameter, an overlapping output. */
  params.max_speed = -1.0f;
  CHECK_STATUS(crowdsteer_contain(&a, &good, &params, &o, 0, 8),
               CROWDSTEER_ERROR_PARAMETER);
  params.max_speed = 0.0f;
  const crowdsteer_output clash = out_of(px, sy, sz);
  CHECK_STATUS(crowdsteer_contain(&a, &good, &params, &clash, 0, 8),
               CROWDSTEER_ERROR_OVERLAP);
  crowdsteer_output weird = o;
  weird.mode = (crowdsteer_write_mode)7;
  CHECK_STATUS(crowdsteer_contain(&a, &good, &params, &weird, 0, 8),
               CROWDSTEER_ERROR_PARAMETER);
  for (size_t i = 0; i < 8; i++)
    CHECK(sx[i] == 7.0f && sy[i] == 7.0f && sz[i] == 7.0f && px[i] == 50.0f);
  /* The shape not in use, and z in 2D, are not read. */
  b = good;
  b.box.min[0] = NAN;
  b.centre[2] = NAN;
  const crowdsteer_agents a2 = batch(2, 8);
  CHECK_STATUS(crowdsteer_contain(&a2, &b, &params, &o, 0, 8), CROWDSTEER_OK);
  /* A box whose side overflows a float is a region like any other (only
   * the wrap shifts by its side): the agents at 50 are inside it, steering
   * 0; one above it at y = 5 seeks its centre, the origin. */
  const float huge_lo[3] = {-3e38f, -1.0f, -1.0f}, huge_hi[3] = {3e38f, 1.0f, 1.0f};
  const float wide_lo[3] = {-3e38f, -3e38f, -3e38f}, wide_hi[3] = {3e38f, 3e38f, 3e38f};
  b = box_bounds(wide_lo, wide_hi, 0);
  CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 8), CROWDSTEER_OK);
  for (size_t i = 0; i < 8; i++)
    CHECK(sx[i] == 0.0f && sy[i] == 0.0f && sz[i] == 0.0f);
  b = box_bounds(huge_lo, huge_hi, 0);
  px[0] = 0.0f, py[0] = 5.0f, pz[0] = 0.0f;
  params.max_speed = 1.0f;
  CHECK_STATUS(crowdsteer_contain(&a, &b, &params, &o, 0, 1), CROWDSTEER_OK);
  CHECK_MSG(sx[0] == 0.0f && sy[0] == -1.0f && sz[0] == 0.0f, "%g %g %g", sx[0], sy[0],
            sz[0]);
  params.max_speed = 0.0f;
  px[0] = py[0] = pz[0] = 50.0f;
}

static void every_case(void) {
  wrap_hand();
  wrap_sweep();
  wrap_validation();
  contain_hand();
  contain_every_isa();
  contain_validation();
}

int main(void) {
  if (!on_every_isa(every_case)) return 77;
  return check_report("test_bounds");
}
