/* Navigation fields: travel times against an independent march in double
 * (a plain Dijkstra-style selection of the smallest trial cell), exact
 * solutions (a corridor; a point goal against the Euclidean distance),
 * blocking by walls and polygons, directions that never point into a
 * blocked cell, rebuilds that give a full build's bits, and validation. */
#include <stdint.h>

#include "check.h"
#include "crowdsteer.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 32);
}
static float uniform(float lo, float hi) {
  return lo + (hi - lo) * (float)(rng() >> 8) * 0x1p-24f;
}

/* ---- the independent reference -------------------------------------------
 * Blocked cells and goal cells are given (read back from the field, whose
 * rasterisation is tested apart), costs too. Accepts the trial cell of
 * least T by a linear scan (ties: lowest index) and updates its four
 * neighbours from their accepted neighbours by the eikonal quadratic. */
static void reference_march(uint32_t w, uint32_t h, double cell, const int *blocked,
                            const int *goal, const float *cost, double *t) {
  const size_t n = (size_t)w * h;
  int *state = calloc(n, sizeof *state); /* 0 far, 1 trial, 2 accepted */
  for (size_t c = 0; c < n; c++) {
    t[c] = INFINITY;
    if (goal[c]) {
      t[c] = 0.0;
      state[c] = 1;
    }
  }
  for (;;) {
    size_t best = n;
    for (size_t c = 0; c < n; c++)
      if (state[c] == 1 && (best == n || t[c] < t[best])) best = c;
    if (best == n) break;
    state[best] = 2;
    const long bx = (long)(best % w), by = (long)(best / w);
    const long nx[4] = {bx - 1, bx + 1, bx, bx}, ny[4] = {by, by, by - 1, by + 1};
    for (int k = 0; k < 4; k++) {
      if (nx[k] < 0 || ny[k] < 0 || nx[k] >= (long)w || ny[k] >= (long)h) continue;
      const size_t m = (size_t)ny[k] * w + (size_t)nx[k];
      if (blocked[m] || state[m] == 2) continue;
      double axis[2] = {INFINITY, INFINITY};
      for (int a = 0; a < 2; a++)
        for (int side = -1; side <= 1; side += 2) {
          const long x = nx[k] + (a == 0 ? side : 0), y = ny[k] + (a == 1 ? side : 0);
          if (x < 0 || y < 0 || x >= (long)w || y >= (long)h) continue;
          const size_t q = (size_t)y * w + (size_t)x;
          if (state[q] == 2 && t[q] < axis[a]) axis[a] = t[q];
        }
      const double lo = fmin(axis[0], axis[1]), hi = fmax(axis[0], axis[1]);
      const double f = (cost ? cost[m] : 1.0) * cell;
      const double value =
          hi - lo < f ? 0.5 * (lo + hi + sqrt(2.0 * f * f - (hi - lo) * (hi - lo)))
                      : lo + f;
      if (value < t[m]) {
        t[m] = value;
        state[m] = 1;
      }
    }
  }
  free(state);
}

/* Blocked and goal flags read back from a built field (a goal cell has T
 * 0, a blocked one reports it). */
static void read_flags(const crowdsteer_field *f, uint32_t w, uint32_t h, int *blocked,
                       int *goal) {
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      float dx, dy;
      double t;
      crowdsteer_field_direction(f, x, y, &dx, &dy, &blocked[y * w + x]);
      crowdsteer_field_time(f, x, y, &t);
      goal[y * w + x] = t == 0.0;
    }
}

static crowdsteer_obstacles *make_set(void) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  return o;
}

static void add_box(crowdsteer_obstacles *o, float x0, float y0, float x1, float y1) {
  const float x[4] = {x0, x1, x1, x0}, y[4] = {y0, y0, y1, y1};
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 4), CROWDSTEER_OK);
}

static void add_wall(crowdsteer_obstacles *o, float x0, float y0, float x1, float y1) {
  const float x[2] = {x0, x1}, y[2] = {y0, y1};
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 2), CROWDSTEER_OK);
}

/* A grid of w x h cells of `cell` from the origin, goal points (gx, gy). */
static crowdsteer_field_desc grid_desc(float cell, uint32_t w, uint32_t h,
                                       const float *gx, const float *gy, size_t goals) {
  crowdsteer_field_desc d;
  memset(&d, 0, sizeof d);
  d.cell_size = cell;
  d.width = w;
  d.height = h;
  d.goal_x = gx;
  d.goal_y = gy;
  d.goal_point_count = goals;
  return d;
}

static double time_at(const crowdsteer_field *f, uint32_t x, uint32_t y) {
  double t = -1.0;
  CHECK_STATUS(crowdsteer_field_time(f, x, y, &t), CROWDSTEER_OK);
  return t;
}

/* Random boxes and walls, random costs, a few goal points in free cells:
 * the field's T against the reference's, cell by cell. */
static void test_against_reference(void) {
  for (int round = 0; round < 12; round++) {
    const uint32_t w = 8 + rng() % 25, h = 8 + rng() % 25;
    const float cell = round % 3 == 0 ? 1.0f : uniform(0.1f, 2.0f);
    crowdsteer_field_desc d;
    memset(&d, 0, sizeof d);
    d.origin[0] = uniform(-10.0f, 10.0f);
    d.origin[1] = uniform(-10.0f, 10.0f);
    d.cell_size = cell;
    d.width = w;
    d.height = h;
    crowdsteer_obstacles *o = make_set();
    for (int k = 0; k < 4; k++) {
      const float x = d.origin[0] + uniform(0.0f, (float)w) * cell;
      const float y = d.origin[1] + uniform(0.0f, (float)h) * cell;
      if (k % 2)
        add_box(o, x, y, x + uniform(0.3f, 4.0f) * cell, y + uniform(0.3f, 4.0f) * cell);
      else
        add_wall(o, x, y, x + uniform(-6.0f, 6.0f) * cell,
                 y + uniform(-6.0f, 6.0f) * cell);
    }
    CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
    d.obstacles = o;
    float *cost = malloc((size_t)w * h * sizeof *cost);
    for (size_t c = 0; c < (size_t)w * h; c++)
      cost[c] = round % 2 ? 1.0f + (float)(rng() % 4) * 0.75f : 1.0f;
    d.cost = cost;
    /* Goal points: corners tried until one is free. */
    float gx[2], gy[2];
    crowdsteer_field *f = NULL;
    CHECK_STATUS(crowdsteer_field_create(&f), CROWDSTEER_OK);
    crowdsteer_status st = CROWDSTEER_ERROR_GOAL;
    for (int tries = 0; tries < 50 && st == CROWDSTEER_ERROR_GOAL; tries++) {
      for (int g = 0; g < 2; g++) {
        gx[g] = d.origin[0] + ((float)(rng() % w) + 0.5f) * cell;
        gy[g] = d.origin[1] + ((float)(rng() % h) + 0.5f) * cell;
      }
      d.goal_x = gx;
      d.goal_y = gy;
      d.goal_point_count = 1 + (size_t)(round % 2);
      st = crowdsteer_field_build(f, &d);
    }
    CHECK_STATUS(st, CROWDSTEER_OK);
    const size_t n = (size_t)w * h;
    int *blocked = calloc(n, sizeof *blocked), *goal = calloc(n, sizeof *goal);
    double *t = malloc(n * sizeof *t);
    read_flags(f, w, h, blocked, goal);
    reference_march(w, h, (double)cell, blocked, goal, cost, t);
    double worst = 0.0;
    for (uint32_t y = 0; y < h; y++)
      for (uint32_t x = 0; x < w; x++) {
        const double got = time_at(f, x, y), want = t[y * w + x];
        if (isinf(want) || isinf(got)) {
          CHECK_MSG(isinf(want) && isinf(got), "cell %u,%u: %g vs %g", x, y, got, want);
          continue;
        }
        worst = fmax(worst, fabs(got - want) / (1.0 + want));
      }
    CHECK_MSG(worst <= 1e-12, "round %d: relative difference %g", round, worst);
    free(blocked);
    free(goal);
    free(t);
    free(cost);
    crowdsteer_field_destroy(f);
    crowdsteer_obstacles_destroy(o);
  }
}

/* A corridor whose goal is a wall along its first column: T = x * h,
 * exactly; the walls along it block their rows; directions point -x. */
static void test_corridor(void) {
  crowdsteer_obstacles *walls = make_set(), *exit = make_set();
  add_wall(walls, 0.0f, 0.25f, 40.0f, 0.25f);
  add_wall(walls, 0.0f, 3.75f, 40.0f, 3.75f);
  CHECK_STATUS(crowdsteer_obstacles_build(walls, 0.0f), CROWDSTEER_OK);
  add_wall(exit, 0.25f, 0.0f, 0.25f, 4.0f);
  crowdsteer_field_desc d;
  memset(&d, 0, sizeof d);
  d.cell_size = 0.5f;
  d.width = 80;
  d.height = 8;
  d.obstacles = walls;
  d.goal_regions = exit;
  crowdsteer_field *f = NULL;
  CHECK_STATUS(crowdsteer_field_create(&f), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_OK);
  for (uint32_t x = 0; x < 80; x++) {
    CHECK(isinf(time_at(f, x, 0)));
    CHECK(isinf(time_at(f, x, 7)));
    for (uint32_t y = 1; y < 7; y++) {
      CHECK_MSG(time_at(f, x, y) == 0.5 * x, "cell %u,%u: %g", x, y, time_at(f, x, y));
      float dx, dy;
      int b;
      CHECK_STATUS(crowdsteer_field_direction(f, x, y, &dx, &dy, &b), CROWDSTEER_OK);
      CHECK(!b && dy == 0.0f && dx == (x == 0 ? 0.0f : -1.0f));
    }
  }
  crowdsteer_field_destroy(f);
  crowdsteer_obstacles_destroy(walls);
  crowdsteer_obstacles_destroy(exit);
}

/* One point goal, cost 1, no obstacles: T is the Euclidean distance
 * between cell centres up to the first-order scheme's error, which only
 * ever overestimates (by at most 5 % plus a cell here); exact along the
 * axes. */
static void test_point_goal(void) {
  const float gx = 50.5f * 0.25f, gy = 50.5f * 0.25f;
  const crowdsteer_field_desc d = grid_desc(0.25f, 101, 101, &gx, &gy, 1);
  crowdsteer_field *f = NULL;
  CHECK_STATUS(crowdsteer_field_create(&f), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_OK);
  double worst = 0.0;
  for (uint32_t y = 0; y < 101; y++)
    for (uint32_t x = 0; x < 101; x++) {
      const double ex = ((double)x - 50.0) * 0.25, ey = ((double)y - 50.0) * 0.25;
      const double dist = sqrt(ex * ex + ey * ey), t = time_at(f, x, y);
      CHECK_MSG(t >= dist - 1e-9, "cell %u,%u: T %g below the distance %g", x, y, t,
                dist);
      CHECK_MSG(t <= dist * 1.05 + 0.25, "cell %u,%u: T %g, distance %g", x, y, t, dist);
      if (x == 50 || y == 50) CHECK(t == dist);
      worst = fmax(worst, (t - dist) / fmax(dist, 1.0));
    }
  CHECK(worst > 0.0); /* the scheme's error exists: the test can see it */
  /* The direction of the cell right of the goal points back, -x. */
  float dx, dy;
  int b;
  CHECK_STATUS(crowdsteer_field_direction(f, 51, 50, &dx, &dy, &b), CROWDSTEER_OK);
  CHECK(dx == -1.0f && dy == 0.0f);
  CHECK_STATUS(crowdsteer_field_direction(f, 50, 50, &dx, &dy, &b), CROWDSTEER_OK);
  CHECK(dx == 0.0f && dy == 0.0f);
  crowdsteer_field_destroy(f);
}

/* A wall between a cell and its goal: the path goes around, so T exceeds
 * the straight distance, the direction right behind the wall runs along
 * it, and a box's inside is blocked. */
static void test_blocking(void) {
  crowdsteer_obstacles *o = make_set();
  add_wall(o, 10.0f, 2.0f, 10.0f, 18.0f); /* the wall x = 10, 2 <= y <= 18 */
  add_box(o, 2.2f, 2.2f, 5.8f, 5.8f);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
  const float gx = 15.5f, gy = 10.5f;
  crowdsteer_field_desc d = grid_desc(1.0f, 20, 20, &gx, &gy, 1);
  d.obstacles = o;
  crowdsteer_field *f = NULL;
  CHECK_STATUS(crowdsteer_field_create(&f), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_OK);
  float dx, dy;
  int b;
  /* The wall lies on the line between columns 9 and 10: both blocked. */
  for (uint32_t y = 2; y < 18; y++) {
    CHECK_STATUS(crowdsteer_field_direction(f, 9, y, &dx, &dy, &b), CROWDSTEER_OK);
    CHECK(b);
    CHECK_STATUS(crowdsteer_field_direction(f, 10, y, &dx, &dy, &b), CROWDSTEER_OK);
    CHECK(b);
  }
  CHECK_STATUS(crowdsteer_field_direction(f, 8, 10, &dx, &dy, &b), CROWDSTEER_OK);
  CHECK(!b && dx == 0.0f && dy != 0.0f); /* along the wall, not into it */
  CHECK(time_at(f, 8, 10) > 7.0 + 8.0);  /* around an end of the wall */
  for (uint32_t y = 2; y <= 5; y++)
    for (uint32_t x = 2; x <= 5; x++) {
      CHECK_STATUS(crowdsteer_field_direction(f, x, y, &dx, &dy, &b), CROWDSTEER_OK);
      CHECK_MSG(b, "box cell %u,%u", x, y);
    }
  CHECK_STATUS(crowdsteer_field_direction(f, 1, 1, &dx, &dy, &b), CROWDSTEER_OK);
  CHECK(!b);
  CHECK_STATUS(crowdsteer_field_direction(f, 6, 6, &dx, &dy, &b), CROWDSTEER_OK);
  CHECK(!b);
  crowdsteer_field_destroy(f);
  crowdsteer_obstacles_destroy(o);
}

/* Whether the closed segment a-b meets the closed square [x, x + 1] x [y,
 * y + 1] (Liang-Barsky clipping, in double). */
static int segment_meets_cell(double ax, double ay, double bx, double by, double x,
                              double y) {
  double t0 = 0.0, t1 = 1.0;
  const double p[2] = {ax, ay}, d[2] = {bx - ax, by - ay};
  const double lo[2] = {x, y}, hi[2] = {x + 1.0, y + 1.0};
  for (int k = 0; k < 2; k++) {
    if (d[k] == 0.0) {
      if (p[k] < lo[k] || p[k] > hi[k]) return 0;
      continue;
    }
    double ta = (lo[k] - p[k]) / d[k], tb = (hi[k] - p[k]) / d[k];
    if (ta > tb) {
      const double t = ta;
      ta = tb;
      tb = t;
    }
    t0 = fmax(t0, ta);
    t1 = fmin(t1, tb);
  }
  return t0 <= t1;
}

/* Even-odd: whether (x, y) is inside the polygon of n vertices. */
static int point_in_polygon(const float *px, const float *py, int n, double x, double y) {
  int inside = 0;
  for (int i = 0, j = n - 1; i < n; j = i++)
    if (((double)py[i] > y) != ((double)py[j] > y) &&
        x < (double)px[j] +
                ((double)px[i] - px[j]) * (y - py[j]) / ((double)py[i] - py[j]))
      inside = !inside;
  return inside;
}

/* Blocking against brute force: random walls and convex polygons on a
 * grid of unit cells from the origin (grid coordinates are the world's),
 * each cell blocked exactly when an edge meets it or its centre is inside
 * a polygon. */
static void test_blocking_brute_force(void) {
  for (int round = 0; round < 20; round++) {
    enum { W = 24, H = 20, SHAPES = 6 };
    float sx[SHAPES][4], sy[SHAPES][4];
    int sn[SHAPES];
    crowdsteer_obstacles *o = make_set();
    for (int k = 0; k < SHAPES; k++) {
      const float cx = uniform(-3.0f, W + 3.0f), cy = uniform(-3.0f, H + 3.0f);
      if (k % 2 == 0) { /* a wall */
        sn[k] = 2;
        sx[k][0] = cx, sy[k][0] = cy;
        sx[k][1] = cx + uniform(-12.0f, 12.0f), sy[k][1] = cy + uniform(-12.0f, 12.0f);
      } else { /* a counter-clockwise quadrilateral around (cx, cy) */
        sn[k] = 4;
        for (int v = 0; v < 4; v++) {
          const float r = uniform(0.6f, 4.0f);
          static const float ux[4] = {1, 0, -1, 0}, uy[4] = {0, 1, 0, -1};
          sx[k][v] = cx + r * ux[v] + uniform(-0.3f, 0.3f) * r * uy[v];
          sy[k][v] = cy + r * uy[v] - uniform(-0.3f, 0.3f) * r * ux[v];
        }
      }
      CHECK_STATUS(crowdsteer_obstacles_add(o, sx[k], sy[k], (size_t)sn[k]),
                   CROWDSTEER_OK);
    }
    CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
    crowdsteer_field *f = NULL;
    CHECK_STATUS(crowdsteer_field_create(&f), CROWDSTEER_OK);
    crowdsteer_status st = CROWDSTEER_ERROR_GOAL;
    for (int tries = 0; tries < 200 && st == CROWDSTEER_ERROR_GOAL; tries++) {
      const float gx = (float)(rng() % W) + 0.5f, gy = (float)(rng() % H) + 0.5f;
      crowdsteer_field_desc d = grid_desc(1.0f, W, H, &gx, &gy, 1);
      d.obstacles = o;
      st = crowdsteer_field_build(f, &d);
    }
    CHECK_STATUS(st, CROWDSTEER_OK);
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        int want = 0;
        for (int k = 0; k < SHAPES && !want; k++) {
          for (int v = 0; v < sn[k] && !want; v++) {
            const int w = (v + 1) % sn[k];
            want = segment_meets_cell(sx[k][v], sy[k][v], sx[k][w], sy[k][w], x, y);
          }
          if (sn[k] > 2 && !want)
            want = point_in_polygon(sx[k], sy[k], sn[k], x + 0.5, y + 0.5);
        }
        float dx, dy;
        int blocked;
        crowdsteer_field_direction(f, (uint32_t)x, (uint32_t)y, &dx, &dy, &blocked);
        CHECK_MSG(blocked == want, "round %d cell %d,%d: blocked %d, brute force %d",
                  round, x, y, blocked, want);
      }
    crowdsteer_field_destroy(f);
    crowdsteer_obstacles_destroy(o);
  }
}

/* A blocked cell points to its reached neighbour (of 8) with the smallest
 * T, the first in row order on a tie: exactly (1, 0)-like axis directions
 * or the diagonal's 2^-14 rounding of 1/sqrt(2); zero without one. */
static void check_way_out(const crowdsteer_field *f, uint32_t x, uint32_t y, uint32_t w,
                          uint32_t h, float dx, float dy) {
  double best = INFINITY;
  int bx = 0, by = 0;
  for (int ny = (int)y - 1; ny <= (int)y + 1; ny++)
    for (int nx = (int)x - 1; nx <= (int)x + 1; nx++) {
      if ((nx == (int)x && ny == (int)y) || nx < 0 || ny < 0 || nx >= (int)w ||
          ny >= (int)h)
        continue;
      const double t = time_at(f, (uint32_t)nx, (uint32_t)ny);
      if (t < best) best = t, bx = nx - (int)x, by = ny - (int)y;
    }
  const float diagonal = (float)floor(16384.0 / sqrt(2.0) + 0.5) / 16384.0f;
  const float want_x = bx == 0 ? 0.0f : (by == 0 ? (float)bx : (float)bx * diagonal);
  const float want_y = by == 0 ? 0.0f : (bx == 0 ? (float)by : (float)by * diagonal);
  CHECK_MSG(dx == want_x && dy == want_y, "blocked cell %u,%u: (%g, %g), want (%g, %g)",
            x, y, (double)dx, (double)dy, (double)want_x, (double)want_y);
}

/* Over random maps: every direction is zero or unit, descends (the cell
 * it points to along each nonzero axis has a smaller T), and no cell it
 * points towards (the axis neighbours and the diagonal between them) is
 * blocked or unreachable; goals and unreachable cells have none; blocked
 * cells point to their best neighbour (check_way_out). */
static void test_directions(void) {
  for (int round = 0; round < 30; round++) {
    const uint32_t w = 16 + rng() % 40, h = 16 + rng() % 40;
    crowdsteer_obstacles *o = make_set();
    for (int k = 0; k < 12; k++) {
      const float x = uniform(0.0f, (float)w), y = uniform(0.0f, (float)h);
      if (k % 3 == 0)
        add_box(o, x, y, x + uniform(0.2f, 5.0f), y + uniform(0.2f, 5.0f));
      else
        add_wall(o, x, y, x + uniform(-9.0f, 9.0f), y + uniform(-9.0f, 9.0f));
    }
    CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
    float gx, gy;
    crowdsteer_field_desc d = grid_desc(1.0f, w, h, &gx, &gy, 1);
    d.obstacles = o;
    crowdsteer_field *f = NULL;
    CHECK_STATUS(crowdsteer_field_create(&f), CROWDSTEER_OK);
    crowdsteer_status st = CROWDSTEER_ERROR_GOAL;
    for (int tries = 0; tries < 100 && st == CROWDSTEER_ERROR_GOAL; tries++) {
      gx = (float)(rng() % w) + 0.5f;
      gy = (float)(rng() % h) + 0.5f;
      st = crowdsteer_field_build(f, &d);
    }
    CHECK_STATUS(st, CROWDSTEER_OK);
    for (uint32_t y = 0; y < h; y++)
      for (uint32_t x = 0; x < w; x++) {
        float dx, dy;
        int b;
        crowdsteer_field_direction(f, x, y, &dx, &dy, &b);
        const double t = time_at(f, x, y);
        if (b) {
          check_way_out(f, x, y, w, h, dx, dy);
          continue;
        }
        if (t == 0.0 || isinf(t)) {
          CHECK(dx == 0.0f && dy == 0.0f);
          continue;
        }
        const double length = sqrt((double)dx * dx + (double)dy * dy);
        CHECK_MSG(fabs(length - 1.0) < 2e-4, "cell %u,%u: length %g", x, y, length);
        const int sx = dx > 0.0f ? 1 : dx < 0.0f ? -1 : 0;
        const int sy = dy > 0.0f ? 1 : dy < 0.0f ? -1 : 0;
        const int targets[3][2] = {{sx, 0}, {0, sy}, {sx, sy}};
        for (int k = 0; k < 3; k++) {
          if (targets[k][0] == 0 && targets[k][1] == 0) continue;
          const uint32_t nx = x + (uint32_t)targets[k][0],
                         ny = y + (uint32_t)targets[k][1];
          CHECK(nx < w && ny < h);
          if (nx >= w || ny >= h) continue;
          crowdsteer_field_direction(f, nx, ny, &dx, &dy, &b);
          CHECK_MSG(!b && time_at(f, nx, ny) < INFINITY, "cell %u,%u points into %u,%u",
                    x, y, nx, ny);
          if (k < 2) CHECK(time_at(f, nx, ny) < t);
        }
      }
    crowdsteer_field_destroy(f);
    crowdsteer_obstacles_destroy(o);
  }
}

static int same_field(const crowdsteer_field *a, const crowdsteer_field *b, uint32_t w,
                      uint32_t h) {
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      double ta, tb;
      float ax, ay, bx, by;
      int ba, bb;
      crowdsteer_field_time(a, x, y, &ta);
      crowdsteer_field_time(b, x, y, &tb);
      crowdsteer_field_direction(a, x, y, &ax, &ay, &ba);
      crowdsteer_field_direction(b, x, y, &bx, &by, &bb);
      if (memcmp(&ta, &tb, sizeof ta) || !same_bits(ax, bx) || !same_bits(ay, by) ||
          ba != bb)
        return 0;
    }
  return 1;
}

/* Two rooms and a door: a rebuild over the door's cells, opening it (and
 * closing it again, with a cost change), gives the bits of a full build. */
static void test_rebuild(void) {
  crowdsteer_obstacles *closed = make_set(), *open = make_set();
  add_wall(closed, 32.0f, 0.0f, 32.0f, 64.0f); /* the wall with its door shut */
  add_wall(open, 32.0f, 0.0f, 32.0f, 28.0f);
  add_wall(open, 32.0f, 36.0f, 32.0f, 64.0f);
  add_wall(closed, 0.0f, 50.0f, 20.0f, 50.0f);
  add_wall(open, 0.0f, 50.0f, 20.0f, 50.0f);
  CHECK_STATUS(crowdsteer_obstacles_build(closed, 0.0f), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_build(open, 0.0f), CROWDSTEER_OK);
  const float gx[2] = {60.5f, 10.5f}, gy[2] = {60.5f, 10.5f};
  crowdsteer_field_desc d = grid_desc(1.0f, 64, 64, gx, gy, 2);
  float *cost = malloc(64 * 64 * sizeof *cost);
  for (int c = 0; c < 64 * 64; c++)
    cost[c] = 1.0f;
  d.cost = cost;
  crowdsteer_field *full = NULL, *part = NULL;
  CHECK_STATUS(crowdsteer_field_create(&full), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_create(&part), CROWDSTEER_OK);
  d.obstacles = closed;
  CHECK_STATUS(crowdsteer_field_build(part, &d), CROWDSTEER_OK);
  const size_t bytes = crowdsteer_field_bytes(part);
  d.obstacles = open;
  CHECK_STATUS(crowdsteer_field_build(full, &d), CROWDSTEER_OK);
  CHECK(!same_field(full, part, 64, 64)); /* the door matters */
  CHECK_STATUS(crowdsteer_field_rebuild(part, &d, 30, 26, 34, 38), CROWDSTEER_OK);
  CHECK(same_field(full, part, 64, 64));
  /* A region that misses part of the change is not the full build. */
  crowdsteer_field *short_region = NULL;
  CHECK_STATUS(crowdsteer_field_create(&short_region), CROWDSTEER_OK);
  d.obstacles = closed;
  CHECK_STATUS(crowdsteer_field_build(short_region, &d), CROWDSTEER_OK);
  d.obstacles = open;
  CHECK_STATUS(crowdsteer_field_rebuild(short_region, &d, 30, 26, 34, 30), CROWDSTEER_OK);
  CHECK(!same_field(full, short_region, 64, 64));
  /* Shut again, the door's cells dearer: back to a full build's bits. */
  for (int y = 20; y < 40; y++)
    for (int x = 28; x < 36; x++)
      cost[y * 64 + x] = 2.5f;
  d.obstacles = closed;
  CHECK_STATUS(crowdsteer_field_build(full, &d), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_rebuild(part, &d, 28, 20, 36, 40), CROWDSTEER_OK);
  CHECK(same_field(full, part, 64, 64));
  CHECK(crowdsteer_field_bytes(part) == bytes); /* nothing allocated */
  CHECK(bytes >= 64 * 64 * 34);
  /* Rebuild checks. */
  CHECK_STATUS(crowdsteer_field_rebuild(part, &d, 28, 20, 28, 40),
               CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_field_rebuild(part, &d, 0, 0, 65, 1),
               CROWDSTEER_ERROR_PARAMETER);
  d.width = 63;
  CHECK_STATUS(crowdsteer_field_rebuild(part, &d, 0, 0, 1, 1),
               CROWDSTEER_ERROR_PARAMETER);
  crowdsteer_field *unbuilt = NULL;
  CHECK_STATUS(crowdsteer_field_create(&unbuilt), CROWDSTEER_OK);
  d.width = 64;
  CHECK_STATUS(crowdsteer_field_rebuild(unbuilt, &d, 0, 0, 1, 1), CROWDSTEER_ERROR_GRID);
  CHECK(same_field(full, part, 64, 64));
  free(cost);
  crowdsteer_field_destroy(unbuilt);
  crowdsteer_field_destroy(short_region);
  crowdsteer_field_destroy(full);
  crowdsteer_field_destroy(part);
  crowdsteer_obstacles_destroy(closed);
  crowdsteer_obstacles_destroy(open);
}

/* Bad descriptions: their status, and the field as it was. */
static void test_validation(void) {
  const float gx = 2.5f, gy = 2.5f;
  const crowdsteer_field_desc good = grid_desc(1.0f, 10, 10, &gx, &gy, 1);
  crowdsteer_field *f = NULL, *copy = NULL;
  CHECK_STATUS(crowdsteer_field_create(NULL), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_field_create(&f), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_create(&copy), CROWDSTEER_OK);
  double t;
  CHECK_STATUS(crowdsteer_field_time(f, 0, 0, &t), CROWDSTEER_ERROR_GRID);
  CHECK_STATUS(crowdsteer_field_build(f, &good), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(copy, &good), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(NULL, &good), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_field_build(f, NULL), CROWDSTEER_ERROR_NULL_POINTER);
  crowdsteer_field_desc d = good;
  d.cell_size = NAN;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d = good;
  d.cell_size = -1.0f;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d = good;
  d.origin[1] = INFINITY;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d = good;
  d.origin[0] = 3e38f; /* the far side overflows */
  d.cell_size = 1e38f;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d = good;
  d.width = 0;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d = good;
  d.width = 1u << 24; /* 2^24 * 2^24 cells: width * height overflows 32 bits */
  d.height = 1u << 24;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d.width = (1u << 24) + 1;
  d.height = 1;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d = good;
  d.goal_x = NULL;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_NULL_POINTER);
  d = good;
  d.goal_x = (const float *)(const void *)((const char *)&gx + 1);
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_ALIGNMENT);
  const float outside = 10.5f, nan = NAN, edge = 10.0f;
  d = good;
  d.goal_x = &outside;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d.goal_x = &nan;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  d.goal_point_count = 0;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_GOAL);
  float cost[100];
  for (int c = 0; c < 100; c++)
    cost[c] = 1.0f;
  cost[57] = 0.5f;
  d = good;
  d.cost = cost;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  cost[57] = NAN;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  cost[57] = INFINITY;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  crowdsteer_obstacles *o = make_set();
  add_box(o, 2.0f, 2.0f, 3.0f, 3.0f);
  d = good;
  d.obstacles = o;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_GRID);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_GOAL); /* (2.5, 2.5) */
  /* A bigger grid that fails must not lose the field either. */
  d.width = 300;
  d.height = 300;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_GOAL);
  CHECK(same_field(f, copy, 10, 10));
  /* A goal region entirely blocked: no goal cell. */
  crowdsteer_obstacles *region = make_set();
  add_box(region, 2.2f, 2.2f, 2.8f, 2.8f);
  d = good;
  d.obstacles = o;
  d.goal_point_count = 0;
  d.goal_regions = region;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_GOAL);
  CHECK(same_field(f, copy, 10, 10));
  /* A goal on the grid's far side is in the last cell. */
  d = good;
  d.goal_x = &edge;
  d.goal_y = &edge;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_OK);
  CHECK(time_at(f, 9, 9) == 0.0);
  CHECK_STATUS(crowdsteer_field_time(f, 10, 0, &t), CROWDSTEER_ERROR_PARAMETER);
  uint32_t cx, cy;
  int inside;
  CHECK_STATUS(crowdsteer_field_cell_of(f, 9.99f, 0.0f, &cx, &cy, &inside),
               CROWDSTEER_OK);
  CHECK(inside && cx == 9 && cy == 0);
  CHECK_STATUS(crowdsteer_field_cell_of(f, 10.0f, 0.0f, &cx, &cy, &inside),
               CROWDSTEER_OK);
  CHECK(!inside);
  CHECK_STATUS(crowdsteer_field_cell_of(f, NAN, 0.0f, &cx, &cy, &inside), CROWDSTEER_OK);
  CHECK(!inside);
  CHECK(crowdsteer_field_bytes(NULL) == 0);
  crowdsteer_field_destroy(NULL);
  crowdsteer_field_destroy(f);
  crowdsteer_field_destroy(copy);
  crowdsteer_obstacles_destroy(o);
  crowdsteer_obstacles_destroy(region);
}

int main(void) {
  test_against_reference();
  test_corridor();
  test_point_goal();
  test_blocking();
  test_blocking_brute_force();
  test_directions();
  test_rebuild();
  test_validation();
  return check_failures ? 1 : 0;
}
