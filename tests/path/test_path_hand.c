/* Follow a path seen by its user: hand-worked cases (back to the path
 * ahead, on the path, backwards, the ends, the cyclic wrap, ties, at
 * rest), an independent double-precision computation on random paths,
 * pathway building and validation of every field (nothing written). */
#include <stdint.h>

#include "../common/check.h"

static crowdsteer_pathway *make_path(int dims, size_t n, const float *x, const float *y,
                                     const float *z, float radius, int cyclic) {
  const crowdsteer_pathway_desc desc = {dims, n, x, y, z, radius, cyclic};
  crowdsteer_pathway *path = NULL;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_OK);
  return path;
}

/* One 2D agent's steering from crowdsteer_follow_path. */
static void steer_one(const crowdsteer_pathway *path, const crowdsteer_path_follow *base,
                      float px, float py, float vx, float vy, float max_speed,
                      float s[2]) {
  float apx[1] = {px}, apy[1] = {py}, avx[1] = {vx}, avy[1] = {vy};
  float sx[1] = {99.0f}, sy[1] = {99.0f};
  const crowdsteer_pathway *paths[1] = {path};
  crowdsteer_path_follow f = *base;
  f.paths = paths;
  f.path_count = 1;
  crowdsteer_agents agents = {1, 2, apx, apy, NULL, avx, avy, NULL, NULL};
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  params.max_speed = max_speed;
  crowdsteer_output out = {{sx, sy, NULL}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  CHECK_STATUS(crowdsteer_follow_path(&agents, &f, &params, &out, 0, 1), CROWDSTEER_OK);
  s[0] = sx[0];
  s[1] = sy[0];
}

/* Seek's steering towards (tx, ty) from (px, py) at velocity (vx, vy). */
static void seek_expected(float px, float py, float vx, float vy, float tx, float ty,
                          float max_speed, double s[2]) {
  const double dx = (double)tx - px, dy = (double)ty - py, d = sqrt(dx * dx + dy * dy);
  s[0] = (d > 0 ? dx / d * max_speed : 0.0) - vx;
  s[1] = (d > 0 ? dy / d * max_speed : 0.0) - vy;
}

static void check_straight(void) {
  static const float x[2] = {0.0f, 10.0f}, y[2] = {0.0f, 0.0f};
  crowdsteer_pathway *path = make_path(2, 2, x, y, NULL, 1.0f, 0);
  CHECK(crowdsteer_pathway_length(path) == 10.0f);
  CHECK(crowdsteer_pathway_bytes(path) > 0);
  crowdsteer_path_follow f;
  memset(&f, 0, sizeof f);
  f.prediction_time = 1.0f;
  float s[2];
  double want[2];
  /* Off the path: aim 1 ahead of its own nearest point (2, 0): (3, 0). */
  steer_one(path, &f, 2.0f, 3.0f, 1.0f, 0.0f, 1.0f, s);
  seek_expected(2.0f, 3.0f, 1.0f, 0.0f, 3.0f, 0.0f, 1.0f, want);
  CHECK_NEAR(s[0], want[0], 1e-6);
  CHECK_NEAR(s[1], want[1], 1e-6);
  CHECK(s[1] < 0.0f); /* back towards the path */
  /* On the path, moving its way: no steering. */
  steer_one(path, &f, 2.0f, 0.5f, 1.0f, 0.0f, 1.0f, s);
  CHECK(s[0] == 0.0f && s[1] == 0.0f);
  /* The same agent told to go backwards turns round: target (1, 0). */
  f.direction = -1;
  steer_one(path, &f, 2.0f, 0.5f, 1.0f, 0.0f, 1.0f, s);
  seek_expected(2.0f, 0.5f, 1.0f, 0.0f, 1.0f, 0.0f, 1.0f, want);
  CHECK_NEAR(s[0], want[0], 1e-6);
  CHECK_NEAR(s[1], want[1], 1e-6);
  CHECK(s[0] < 0.0f);
  /* ... and once it moves backwards it is left alone. */
  steer_one(path, &f, 2.0f, 0.5f, -1.0f, 0.0f, 1.0f, s);
  CHECK(s[0] == 0.0f && s[1] == 0.0f);
  /* Per-agent direction: the array, not the uniform field. */
  f.direction = 1;
  /* The end clamps: from 9.5 aiming 2 ahead is the last point (10, 0). */
  f.prediction_time = 2.0f;
  steer_one(path, &f, 9.5f, 0.2f, 1.0f, 0.0f, 1.0f, s);
  seek_expected(9.5f, 0.2f, 1.0f, 0.0f, 10.0f, 0.0f, 1.0f, want);
  CHECK_NEAR(s[0], want[0], 1e-6);
  CHECK_NEAR(s[1], want[1], 1e-6);
  /* ... and so does the start, backwards. */
  f.direction = -1;
  steer_one(path, &f, 0.5f, 3.0f, -1.0f, 0.0f, 1.0f, s);
  seek_expected(0.5f, 3.0f, -1.0f, 0.0f, 0.0f, 0.0f, 1.0f, want);
  CHECK_NEAR(s[0], want[0], 1e-6);
  CHECK_NEAR(s[1], want[1], 1e-6);
  /* At rest inside the radius: no progress, so it seeks its nearest path
   * point plus lead_distance; exactly on that point it stays put. */
  f.direction = 1;
  f.prediction_time = 1.0f;
  steer_one(path, &f, 2.0f, 0.5f, 0.0f, 0.0f, 2.0f, s);
  CHECK_NEAR(s[0], 0.0, 0.0);
  CHECK_NEAR(s[1], -2.0, 0.0);
  steer_one(path, &f, 2.0f, 0.0f, 0.0f, 0.0f, 2.0f, s);
  CHECK(s[0] == 0.0f && s[1] == 0.0f);
  f.lead_distance = 3.0f;
  steer_one(path, &f, 2.0f, 0.0f, 0.0f, 0.0f, 2.0f, s);
  CHECK(s[0] == 2.0f && s[1] == 0.0f);
  crowdsteer_pathway_destroy(path);
}

static void check_cyclic(void) {
  static const float x[4] = {0.0f, 10.0f, 10.0f, 0.0f}, y[4] = {0.0f, 0.0f, 10.0f, 10.0f};
  crowdsteer_pathway *loop = make_path(2, 4, x, y, NULL, 1.0f, 1);
  CHECK(crowdsteer_pathway_length(loop) == 40.0f);
  float point[3], along;
  /* Ties: the centre is as near every side; the lower segment wins. */
  const float centre[3] = {5.0f, 5.0f, 0.0f};
  CHECK_STATUS(crowdsteer_pathway_nearest(loop, centre, point, &along), CROWDSTEER_OK);
  CHECK(point[0] == 5.0f && point[1] == 0.0f && along == 5.0f);
  CHECK_STATUS(crowdsteer_pathway_point_at(loop, 42.0f, point), CROWDSTEER_OK);
  CHECK(point[0] == 2.0f && point[1] == 0.0f);
  CHECK_STATUS(crowdsteer_pathway_point_at(loop, -1.0f, point), CROWDSTEER_OK);
  CHECK(point[0] == 0.0f && point[1] == 1.0f);
  crowdsteer_path_follow f;
  memset(&f, 0, sizeof f);
  f.prediction_time = 1.0f;
  f.lead_distance = 3.0f;
  float s[2];
  double want[2];
  /* Beside the closing side at 38 along: 38 + 4 wraps to 2, (2, 0). */
  steer_one(loop, &f, -3.0f, 2.0f, 0.0f, -1.0f, 1.0f, s);
  seek_expected(-3.0f, 2.0f, 0.0f, -1.0f, 2.0f, 0.0f, 1.0f, want);
  CHECK_NEAR(s[0], want[0], 1e-6);
  CHECK_NEAR(s[1], want[1], 1e-6);
  /* Crossing the seam on the path (39.5 now, 0 predicted): progress wraps
   * to +0.5, so the agent is on its way: no steering. */
  steer_one(loop, &f, 0.0f, 0.5f, 0.0f, -1.0f, 1.0f, s);
  CHECK(s[0] == 0.0f && s[1] == 0.0f);
  /* Crossing it backwards (0.5 now, 39 predicted): progress wraps to -1.5,
   * so the agent is turned forwards: seek (0.5 + len(v) + 3, 0). */
  steer_one(loop, &f, 0.5f, 0.0f, -0.5f, 1.0f, 1.0f, s);
  seek_expected(0.5f, 0.0f, -0.5f, 1.0f, 0.5f + sqrtf(1.25f) + 3.0f, 0.0f, 1.0f, want);
  CHECK_NEAR(s[0], want[0], 1e-6);
  CHECK_NEAR(s[1], want[1], 1e-6);
  crowdsteer_pathway_destroy(loop);
}

/* ---- an independent computation in double, from the raw points ---------- */

typedef struct dpath {
  int n, cyclic, dims;
  double x[10], y[10], z[10], radius;
} dpath;

static int dsegments(const dpath *d) { return d->cyclic ? d->n : d->n - 1; }

/* The nearest point of d to q: distance, distance along, and the gap to
 * the second-best segment (to skip near-ties). */
static void dnearest(const dpath *d, const double q[3], double *dist, double *along,
                     double *gap) {
  double best = INFINITY, second = INFINITY, at = 0.0, best_along = 0.0;
  for (int s = 0; s < dsegments(d); s++) {
    const int e = (s + 1) % d->n;
    const double a[3] = {d->x[s], d->y[s], d->z[s]}, b[3] = {d->x[e], d->y[e], d->z[e]};
    double len2 = 0, t = 0;
    for (int k = 0; k < d->dims; k++) {
      len2 += (b[k] - a[k]) * (b[k] - a[k]);
      t += (q[k] - a[k]) * (b[k] - a[k]);
    }
    const double len = sqrt(len2);
    t = t / len;
    t = t < 0 ? 0 : (t > len ? len : t);
    double e2 = 0;
    for (int k = 0; k < d->dims; k++) {
      const double c = a[k] + (b[k] - a[k]) / len * t - q[k];
      e2 += c * c;
    }
    const double gone = sqrt(e2);
    if (gone < best) {
      second = best;
      best = gone;
      best_along = at + t;
    } else if (gone < second) {
      second = gone;
    }
    at += len;
  }
  *dist = best;
  *along = best_along;
  *gap = second - best;
}

static double dlength(const dpath *d) {
  double at = 0;
  for (int s = 0; s < dsegments(d); s++) {
    const int e = (s + 1) % d->n;
    at += sqrt((d->x[e] - d->x[s]) * (d->x[e] - d->x[s]) +
               (d->y[e] - d->y[s]) * (d->y[e] - d->y[s]) +
               (d->z[e] - d->z[s]) * (d->z[e] - d->z[s]));
  }
  return at;
}

static void dpoint_at(const dpath *d, double t, double out[3]) {
  const double length = dlength(d);
  if (d->cyclic) t = t - floor(t / length) * length;
  t = t < 0 ? 0 : (t > length ? length : t);
  for (int s = 0; s < dsegments(d); s++) {
    const int e = (s + 1) % d->n;
    const double len = sqrt((d->x[e] - d->x[s]) * (d->x[e] - d->x[s]) +
                            (d->y[e] - d->y[s]) * (d->y[e] - d->y[s]) +
                            (d->z[e] - d->z[s]) * (d->z[e] - d->z[s]));
    if (t <= len || s == dsegments(d) - 1) {
      const double u = t / len;
      out[0] = d->x[s] + (d->x[e] - d->x[s]) * u;
      out[1] = d->y[s] + (d->y[e] - d->y[s]) * u;
      out[2] = d->z[s] + (d->z[e] - d->z[s]) * u;
      return;
    }
    t -= len;
  }
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * (double)(rng_state >> 11) * 0x1p-53;
}

static void check_against_double(int dims) {
  enum { PATHS = 40, AGENTS = 64 };
  int compared = 0;
  for (int trial = 0; trial < PATHS; trial++) {
    dpath d;
    memset(&d, 0, sizeof d);
    d.dims = dims;
    d.n = 2 + (int)uniform(0, 8);
    d.cyclic = d.n > 2 && uniform(0, 1) < 0.5;
    d.radius = (float)uniform(0.2, 3.0);
    float x[10], y[10], z[10];
    for (int k = 0; k < d.n; k++) {
      x[k] = (float)uniform(-20, 20), y[k] = (float)uniform(-20, 20);
      z[k] = dims == 3 ? (float)uniform(-20, 20) : 0.0f;
      d.x[k] = x[k], d.y[k] = y[k], d.z[k] = z[k];
    }
    crowdsteer_pathway *path =
        make_path(dims, (size_t)d.n, x, y, z, (float)d.radius, d.cyclic);
    const crowdsteer_pathway *paths[1] = {path};
    float px[AGENTS], py[AGENTS], pz[AGENTS], vx[AGENTS], vy[AGENTS], vz[AGENTS];
    float dir[AGENTS], sx[AGENTS], sy[AGENTS], sz[AGENTS];
    for (int i = 0; i < AGENTS; i++) {
      px[i] = (float)uniform(-25, 25), py[i] = (float)uniform(-25, 25);
      pz[i] = dims == 3 ? (float)uniform(-25, 25) : 0.0f;
      vx[i] = (float)uniform(-2, 2), vy[i] = (float)uniform(-2, 2);
      vz[i] = dims == 3 ? (float)uniform(-2, 2) : 0.0f;
      dir[i] = uniform(0, 1) < 0.5 ? 1.0f : -1.0f;
    }
    crowdsteer_path_follow f;
    memset(&f, 0, sizeof f);
    f.paths = paths;
    f.path_count = 1;
    f.direction_per_agent = dir;
    f.prediction_time = (float)uniform(0, 3);
    f.lead_distance = (float)uniform(0, 2);
    crowdsteer_params params;
    memset(&params, 0, sizeof params);
    params.max_speed = 1.5f;
    params.time_to_target = 0.5f;
    crowdsteer_agents agents = {AGENTS, dims, px, py, pz, vx, vy, vz, NULL};
    crowdsteer_output out = {{sx, sy, sz}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
    CHECK_STATUS(crowdsteer_follow_path(&agents, &f, &params, &out, 0, AGENTS),
                 CROWDSTEER_OK);
    const double length = dlength(&d);
    for (int i = 0; i < AGENTS; i++) {
      const double p[3] = {px[i], py[i], pz[i]}, v[3] = {vx[i], vy[i], vz[i]};
      const double pt = f.prediction_time;
      const double fut[3] = {p[0] + v[0] * pt, p[1] + v[1] * pt, p[2] + v[2] * pt};
      double now_dist, now, now_gap, fdist, later, fgap;
      dnearest(&d, p, &now_dist, &now, &now_gap);
      dnearest(&d, fut, &fdist, &later, &fgap);
      double progress = later - now;
      if (d.cyclic) {
        if (progress > length / 2) progress -= length;
        if (progress < -length / 2) progress += length;
      }
      /* Decisions within rounding of their boundary are not compared. */
      if (now_gap < 1e-3 || fgap < 1e-3 || fabs(fdist - d.radius) < 1e-3 ||
          fabs(progress) < 1e-3 || (d.cyclic && fabs(fabs(progress) - length / 2) < 1e-3))
        continue;
      double want[3] = {0, 0, 0};
      if (!(fdist < d.radius && dir[i] * progress > 0)) {
        const double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        double target[3] = {0, 0, 0};
        dpoint_at(&d, now + dir[i] * (pt * speed + f.lead_distance), target);
        const double dd[3] = {target[0] - p[0], target[1] - p[1],
                              dims == 3 ? target[2] - p[2] : 0.0};
        const double dist = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
        if (dist < 0.05) continue;
        for (int k = 0; k < dims; k++)
          want[k] = (dd[k] / dist * 1.5 - v[k]) / 0.5;
      }
      const float got[3] = {sx[i], sy[i], dims == 3 ? sz[i] : 0.0f};
      for (int k = 0; k < dims; k++)
        CHECK_MSG(fabs(got[k] - want[k]) <= 2e-3,
                  "%dD path %d agent %d axis %d: %.9g, %.9g", dims, trial, i, k, got[k],
                  want[k]);
      compared++;
    }
    crowdsteer_pathway_destroy(path);
  }
  CHECK_MSG(compared > PATHS * AGENTS / 2, "only %d agents compared", compared);
}

/* ---- pathways and validation ---------------------------------------------- */

static void check_pathway_validation(void) {
  float x[3] = {0.0f, 1.0f, 2.0f}, y[3] = {0.0f, 0.0f, 1.0f}, z[3] = {0.0f, 0.0f, 0.0f};
  crowdsteer_pathway *path = NULL;
  crowdsteer_pathway_desc desc = {2, 3, x, y, z, 0.5f, 0};
  CHECK_STATUS(crowdsteer_pathway_create(NULL, &desc), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_pathway_create(&path, NULL), CROWDSTEER_ERROR_NULL_POINTER);
  desc.dims = 4;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_DIMS);
  desc.dims = 3;
  desc.z = NULL;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_NULL_POINTER);
  desc.z = (const float *)((const char *)z + 1);
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_ALIGNMENT);
  desc.z = z;
  desc.radius = -1.0f;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_PARAMETER);
  desc.radius = NAN;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_PARAMETER);
  desc.radius = INFINITY;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_PARAMETER);
  desc.radius = 0.0f; /* allowed: never on the path */
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_OK);
  crowdsteer_pathway_destroy(path);
  path = NULL;
  y[1] = NAN;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_PARAMETER);
  y[1] = -INFINITY;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_PARAMETER);
  y[1] = 0.0f;
  x[1] = 0.0f; /* a zero-length segment */
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_GEOMETRY);
  x[1] = 1.0f;
  x[2] = 0.0f, y[2] = 0.0f; /* closing segment of zero length */
  desc.cyclic = 1;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_GEOMETRY);
  desc.cyclic = 0; /* not closed: fine */
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_OK);
  crowdsteer_pathway_destroy(path);
  path = NULL;
  desc.point_count = 1;
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_GEOMETRY);
  x[0] = -3e38f, x[1] = 3e38f, desc.point_count = 2; /* longer than a float holds */
  CHECK_STATUS(crowdsteer_pathway_create(&path, &desc), CROWDSTEER_ERROR_PARAMETER);
  CHECK(path == NULL);
  crowdsteer_pathway_destroy(NULL);
  CHECK(crowdsteer_pathway_bytes(NULL) == 0);
  float point[3];
  CHECK_STATUS(crowdsteer_pathway_point_at(NULL, 0.0f, point),
               CROWDSTEER_ERROR_NULL_POINTER);
}

/* A call that must fail with `want` and write nothing. */
static void expect_fault(const crowdsteer_agents *agents, const crowdsteer_path_follow *f,
                         crowdsteer_status want, const char *what) {
  float sx[8], sy[8];
  for (int i = 0; i < 8; i++)
    sx[i] = sy[i] = 7.0f;
  crowdsteer_params params;
  memset(&params, 0, sizeof params);
  crowdsteer_output out = {{sx, sy, NULL}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  const crowdsteer_status got = crowdsteer_follow_path(agents, f, &params, &out, 0, 8);
  CHECK_MSG(got == want, "%s: %d, expected %d", what, (int)got, (int)want);
  for (int i = 0; i < 8; i++)
    CHECK_MSG(sx[i] == 7.0f && sy[i] == 7.0f, "%s wrote agent %d", what, i);
}

static void check_follow_validation(void) {
  static const float x[2] = {0.0f, 10.0f}, y[2] = {0.0f, 0.0f}, z[2] = {0.0f, 1.0f};
  crowdsteer_pathway *flat = make_path(2, 2, x, y, NULL, 1.0f, 0);
  crowdsteer_pathway *solid = make_path(3, 2, x, y, z, 1.0f, 0);
  float px[8] = {0}, py[8] = {0}, vx[8] = {0}, vy[8] = {0}, dir[9];
  uint32_t index[9];
  for (int i = 0; i < 9; i++)
    dir[i] = 1.0f, index[i] = 1;
  crowdsteer_agents agents = {8, 2, px, py, NULL, vx, vy, NULL, NULL};
  const crowdsteer_pathway *paths[2] = {flat, flat};
  crowdsteer_path_follow f, good;
  memset(&good, 0, sizeof good);
  good.paths = paths;
  good.path_count = 2;
  expect_fault(&agents, NULL, CROWDSTEER_ERROR_NULL_POINTER, "no follow");
  f = good, f.paths = NULL;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_NULL_POINTER, "no paths");
  f = good, f.path_count = 0;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "no path count");
  const crowdsteer_pathway *holes[2] = {flat, NULL};
  f = good, f.paths = holes;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_NULL_POINTER, "a NULL pathway");
  const crowdsteer_pathway *mixed[2] = {flat, solid};
  f = good, f.paths = mixed;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_DIMS, "a 3D pathway for 2D agents");
  f = good, f.direction = 2;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "direction 2");
  f = good, f.prediction_time = -1.0f;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "negative prediction");
  f = good, f.prediction_time = NAN;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "NaN prediction");
  f = good, f.prediction_time = INFINITY;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "infinite prediction");
  f = good, f.lead_distance = -0.5f;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "negative lead");
  f = good, f.lead_distance = NAN;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "NaN lead");
  f = good, f.path = 2;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_AGENT_INDEX, "path 2 of 2");
  f = good, f.path_per_agent = index;
  index[5] = 2;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_AGENT_INDEX, "agent 5's path 2 of 2");
  index[5] = 1;
  f.path_per_agent = (const uint32_t *)((const char *)index + 1);
  expect_fault(&agents, &f, CROWDSTEER_ERROR_ALIGNMENT, "misaligned path indices");
  f = good, f.direction_per_agent = dir;
  dir[3] = 0.5f;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "direction 0.5");
  dir[3] = NAN;
  expect_fault(&agents, &f, CROWDSTEER_ERROR_PARAMETER, "direction NaN");
  dir[3] = -1.0f;
  f.direction_per_agent = (const float *)((const char *)dir + 2);
  expect_fault(&agents, &f, CROWDSTEER_ERROR_ALIGNMENT, "misaligned directions");
  /* Per-agent data is read for the range only. */
  f = good, f.path_per_agent = index, f.direction_per_agent = dir;
  index[8] = 7, dir[8] = 0.0f;
  float sx[8], sy[8];
  crowdsteer_output out = {{sx, sy, NULL}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  CHECK_STATUS(crowdsteer_follow_path(&agents, &f, NULL, &out, 0, 8), CROWDSTEER_OK);
  /* A step whose mask leaves the bad agent out accepts it. */
  index[2] = 9;
  uint32_t mask[8] = {1, 1, 0, 1, 1, 1, 1, 1};
  crowdsteer_step_behaviour b;
  memset(&b, 0, sizeof b);
  b.behaviour = CROWDSTEER_FOLLOW_PATH;
  b.path = &f;
  crowdsteer_step_desc step;
  memset(&step, 0, sizeof step);
  step.behaviours = &b;
  step.behaviour_count = 1;
  step.behaviour_mask = mask;
  step.threads = 1;
  CHECK_STATUS(crowdsteer_step(&agents, &step, 0, 8), CROWDSTEER_OK);
  mask[2] = 1;
  const float before = px[0];
  CHECK_STATUS(crowdsteer_step(&agents, &step, 0, 8), CROWDSTEER_ERROR_AGENT_INDEX);
  CHECK(px[0] == before);
  b.path = NULL;
  CHECK_STATUS(crowdsteer_step(&agents, &step, 0, 8), CROWDSTEER_ERROR_NULL_POINTER);
  /* An output that is a path array: OVERLAP, nothing written. */
  f = good, f.direction_per_agent = dir;
  crowdsteer_output clash = {{dir, sy, NULL}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  CHECK_STATUS(crowdsteer_follow_path(&agents, &f, NULL, &clash, 0, 8),
               CROWDSTEER_ERROR_OVERLAP);
  CHECK(dir[0] == 1.0f);
  crowdsteer_pathway_destroy(flat);
  crowdsteer_pathway_destroy(solid);
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  check_straight();
  check_cyclic();
  check_against_double(2);
  check_against_double(3);
  check_pathway_validation();
  check_follow_validation();
  return check_report("test_path_hand");
}
