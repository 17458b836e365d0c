/* The obstacle set: what crowdsteer_obstacles_add accepts and refuses
 * (every status, nothing added on error), the build, and the exact inside
 * test on convex and concave polygons, on edges and at vertices, and on
 * random nested and overlapping sets against a brute force. */
#include <math.h>

#include "../common/check.h"
#include "../common/scenario.h"

static crowdsteer_obstacles *make(void) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  return o;
}

static crowdsteer_status add(crowdsteer_obstacles *o, const float *xy, size_t n) {
  float x[64], y[64];
  for (size_t k = 0; k < n; k++) {
    x[k] = xy[2 * k];
    y[k] = xy[2 * k + 1];
  }
  return crowdsteer_obstacles_add(o, x, y, n);
}

static void test_refusals(void) {
  crowdsteer_obstacles *o = make();
  const float x[4] = {0, 1, 1, 0}, y[4] = {0, 0, 1, 1};
  CHECK_STATUS(crowdsteer_obstacles_create(NULL), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_obstacles_add(NULL, x, y, 4), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_obstacles_add(o, NULL, y, 4), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, NULL, 4), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_obstacles_add(o, (const float *)((const char *)x + 1), y, 2),
               CROWDSTEER_ERROR_ALIGNMENT);
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 0), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 1), CROWDSTEER_ERROR_PARAMETER);
  const float nan_x[3] = {0, NAN, 1}, inf_y[3] = {0, 0, INFINITY}, ok_y[3] = {0, 1, 0};
  CHECK_STATUS(crowdsteer_obstacles_add(o, nan_x, ok_y, 3), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, inf_y, 3), CROWDSTEER_ERROR_PARAMETER);

  const float repeated[] = {0, 0, 1, 0, 1, 0, 0, 1};            /* a zero-length edge */
  const float closing[] = {0, 0, 1, 0, 0, 1, 0, 0};             /* last = first */
  const float clockwise[] = {0, 0, 0, 1, 1, 1, 1, 0};           /* square the wrong way */
  const float flat[] = {0, 0, 1, 0, 2, 0};                      /* no area */
  const float bowtie[] = {0, 0, 2, 2, 2, 0, 0, 2};              /* crosses itself */
  const float figure8[] = {0, 0, 2, 0, 1, 1, 2, 2, 0, 2, 1, 1}; /* touches at (1, 1) */
  const float folds[] = {0, 0, 4, 0, 4, 2, 4, 1, 0, 2}; /* doubles back on x = 4 */
  const float wall_point[] = {3, 3, 3, 3};
  const struct {
    const float *xy;
    size_t n;
  } bad[] = {{repeated, 4}, {closing, 4}, {clockwise, 4}, {flat, 3},
             {bowtie, 4},   {figure8, 6}, {folds, 5},     {wall_point, 2}};
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    CHECK_STATUS(add(o, bad[b].xy, bad[b].n), CROWDSTEER_ERROR_GEOMETRY);
  }
  CHECK(crowdsteer_obstacles_edge_count(o) == 0);
  CHECK_STATUS(crowdsteer_obstacles_build(o, -1.0f), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_obstacles_build(o, NAN), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_obstacles_build(o, INFINITY), CROWDSTEER_ERROR_PARAMETER);
  int inside = 7;
  CHECK_STATUS(crowdsteer_obstacles_inside(o, 0, 0, &inside), CROWDSTEER_ERROR_GRID);
  CHECK(inside == 7);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK); /* empty */
  CHECK_STATUS(crowdsteer_obstacles_inside(o, 0, 0, &inside), CROWDSTEER_OK);
  CHECK(inside == 0);
  CHECK_STATUS(crowdsteer_obstacles_inside(o, 0, 0, NULL), CROWDSTEER_ERROR_NULL_POINTER);
  CHECK_STATUS(crowdsteer_obstacles_build(NULL, 0.0f), CROWDSTEER_ERROR_NULL_POINTER);
  /* Good shapes after the refusals: a wall either way, a triangle. */
  const float wall[] = {5, 5, 6, 7}, triangle[] = {0, 0, 1, 0, 0, 1};
  CHECK_STATUS(add(o, wall, 2), CROWDSTEER_OK);
  CHECK_STATUS(add(o, triangle, 3), CROWDSTEER_OK);
  CHECK(crowdsteer_obstacles_edge_count(o) == 5);
  /* Adding unbuilds: queries refuse until the next build. */
  CHECK_STATUS(crowdsteer_obstacles_inside(o, 0.2f, 0.2f, &inside),
               CROWDSTEER_ERROR_GRID);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
  /* The vertices and the grid are counted (once a bare struct only). */
  CHECK(crowdsteer_obstacles_bytes(o) >
        5 * (4 * sizeof(float) + 3 * sizeof(uint32_t)) + 256);
  CHECK(crowdsteer_obstacles_bytes(NULL) == 0);
  crowdsteer_obstacles_destroy(o);
  crowdsteer_obstacles_destroy(NULL);
}

static int inside_at(const crowdsteer_obstacles *o, float x, float y) {
  int inside = -1;
  CHECK_STATUS(crowdsteer_obstacles_inside(o, x, y, &inside), CROWDSTEER_OK);
  return inside;
}

/* A concave U (counter-clockwise) and a separate square, on several cell
 * sizes: points inside, outside, in the notch, on edges and at vertices,
 * and on the ray through vertices. */
static void test_inside(void) {
  const float u_shape[] = {0, 0, 6, 0, 6, 6, 4, 6, 4, 2, 2, 2, 2, 6, 0, 6};
  const float square[] = {10, 10, 11, 10, 11, 11, 10, 11};
  const float cells[] = {0.0f, 0.25f, 1.0f, 3.0f, 100.0f, 1e-3f};
  for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
    crowdsteer_obstacles *o = make();
    CHECK_STATUS(add(o, u_shape, 8), CROWDSTEER_OK);
    CHECK_STATUS(add(o, square, 4), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_obstacles_build(o, cells[c]), CROWDSTEER_OK);
    const struct {
      float x, y;
      int inside;
    } cases[] = {{1, 1, 1},          {5, 5, 1},         {3, 1, 1},
                 {3, 4, 0}, /* notch */
                 {3, 2, 0}, /* notch floor edge */
                 {0, 3, 0},          {6, 3, 0},         {0, 0, 0},
                 {6, 6, 0},                     /* edges, vertices */
                 {1, 2, 1},          {5, 2, 1}, /* ray along y = 2 */
                 {1, 6, 0},          {-1, 2, 0},        {-1, 6, 0},
                 {7, 1, 0},          {10.5f, 10.5f, 1}, {10.5f, 10, 0},
                 {9, 10.5f, 0},      {12, 10.5f, 0},    {1, 0x1p-20f, 1},
                 {1, -0x1p-149f, 0}, {0x1p-149f, 1, 1}, {-0x1p-149f, 1, 0},
                 {NAN, 1, 0},        {INFINITY, 1, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      CHECK_MSG(inside_at(o, cases[k].x, cases[k].y) == cases[k].inside,
                "cell %g: (%g, %g) inside should be %d", (double)cells[c],
                (double)cases[k].x, (double)cases[k].y, cases[k].inside);
    crowdsteer_obstacles_destroy(o);
  }
}

/* A long diagonal wall and a thin sliver of many vertices: build and query
 * far from and next to them. */
static void test_large(void) {
  crowdsteer_obstacles *o = make();
  const float wall_x[2] = {-1e4f, 1e4f}, wall_y[2] = {-1e4f, 1e4f};
  CHECK_STATUS(crowdsteer_obstacles_add(o, wall_x, wall_y, 2), CROWDSTEER_OK);
  enum { N = 2000 };
  static float x[N], y[N];
  /* A circle of N vertices, counter-clockwise. */
  for (int k = 0; k < N; k++) {
    const double a = 6.283185307179586 * k / N;
    x[k] = (float)(500.0 + 100.0 * cos(a));
    y[k] = (float)(-500.0 + 100.0 * sin(a));
  }
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, N), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
  CHECK(inside_at(o, 500, -500) == 1);
  CHECK(inside_at(o, 500, -399) == 0);
  CHECK(inside_at(o, 500, -402) == 1);
  CHECK(inside_at(o, 0, 0) == 0); /* on the wall: walls have no inside */
  /* A self-crossing circle (one vertex pulled across) is refused. */
  x[N / 2] = 700.0f;
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, N), CROWDSTEER_ERROR_GEOMETRY);
  crowdsteer_obstacles_destroy(o);
}

/* An automatic cell over a thin, tall box: about one edge per cell, not
 * cells square to the box's width (a fuzz input had 2.9 million rows for
 * 8 edges, and builds took seconds); an explicit cell far below the box's
 * size is coarsened to 64 cells an edge. */
static void test_thin_box(void) {
  crowdsteer_obstacles *o = make();
  const float wall_x[2] = {0.0f, 3.75f}, wall_y[2] = {-1e18f, 1e18f};
  const float post_x[3] = {1.0f, 2.0f, 1.0f}, post_y[3] = {0.0f, 0.0f, 1.0f};
  CHECK_STATUS(crowdsteer_obstacles_add(o, wall_x, wall_y, 2), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_add(o, post_x, post_y, 3), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
  CHECK_MSG(crowdsteer_obstacles_bytes(o) < 4096, "%zu bytes for 5 edges",
            crowdsteer_obstacles_bytes(o));
  CHECK(inside_at(o, 1.2f, 0.2f) == 1);
  CHECK(inside_at(o, 1.9f, 0.9f) == 0);
  /* Cells of 1 asked for over a 2048 by 2048 box with 2 edges: coarsened
   * to at most 4,096 cells (64 an edge, 4,096 always allowed), so a long
   * wall is filed in a few thousand cells, not millions. */
  crowdsteer_obstacles *d = make();
  const float diag_x[2] = {0.0f, 2048.0f}, diag_y[2] = {0.0f, 2048.0f};
  CHECK_STATUS(crowdsteer_obstacles_add(d, diag_x, diag_y, 2), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_build(d, 1.0f), CROWDSTEER_OK);
  CHECK_MSG(crowdsteer_obstacles_bytes(d) < 4 * (4097 + 2 * 3 * 64) + 1024,
            "%zu bytes for a diagonal", crowdsteer_obstacles_bytes(d));
  CHECK(inside_at(d, 100.0f, 100.0f) == 0);
  crowdsteer_obstacles_destroy(d);
  crowdsteer_obstacles_destroy(o);
}

/* Brute force: strictly inside some closed loop (on a loop's edge is
 * outside that loop), by the crossing number in double, exact for the
 * quarter-unit coordinates used here. */
typedef struct loop_set {
  int count;
  int size[24];
  float x[24][4], y[24][4];
} loop_set;

static int brute_inside(const loop_set *l, double px, double py) {
  int inside = 0;
  for (int k = 0; k < l->count; k++) {
    if (l->size[k] < 3) continue;
    int odd = 0, on_edge = 0;
    for (int v = 0; v < l->size[k]; v++) {
      const int w = (v + 1) % l->size[k];
      const double ax = l->x[k][v], ay = l->y[k][v], bx = l->x[k][w], by = l->y[k][w];
      const double cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
      if (cross == 0.0 && (px - ax) * (px - bx) <= 0.0 && (py - ay) * (py - by) <= 0.0)
        on_edge = 1;
      if ((ay <= py) != (by <= py)) {
        const double t = (py - ay) / (by - ay);
        if (ax + t * (bx - ax) > px) odd ^= 1;
      }
    }
    inside |= odd && !on_edge;
  }
  return inside;
}

/* Random sets of rectangles and triangles (nested, overlapping, sharing
 * edges) and walls on a quarter-unit lattice, on several cell sizes:
 * points in cells no edge comes near (answered from the cell's state),
 * on cell borders, edges and vertices, and anywhere, against the brute
 * force. */
static void test_inside_random(void) {
  rng r = {0x1D51DEu};
  for (int trial = 0; trial < 60; trial++) {
    loop_set l = {0};
    crowdsteer_obstacles *o = make();
    const int loops = 1 + (int)rng_below(&r, 20);
    for (int k = 0; k < loops; k++) {
      const float x0 = 0.25f * (float)((int)rng_below(&r, 160) - 80);
      const float y0 = 0.25f * (float)((int)rng_below(&r, 160) - 80);
      const float w = 0.25f * (float)(1 + rng_below(&r, 80));
      const float h = 0.25f * (float)(1 + rng_below(&r, 80));
      const int kind = (int)rng_below(&r, 3); /* rectangle, triangle, wall */
      const float rx[4] = {x0, x0 + w, x0 + w, x0}, ry[4] = {y0, y0, y0 + h, y0 + h};
      const float tx[3] = {x0, x0 + w, x0}, ty[3] = {y0, y0, y0 + h};
      const float *xs = kind == 1 ? tx : rx, *ys = kind == 1 ? ty : ry;
      const int n = kind == 0 ? 4 : kind == 1 ? 3 : 2;
      if (crowdsteer_obstacles_add(o, xs, ys, (size_t)n) != CROWDSTEER_OK) continue;
      l.size[l.count] = n;
      memcpy(l.x[l.count], xs, (size_t)n * sizeof(float));
      memcpy(l.y[l.count], ys, (size_t)n * sizeof(float));
      l.count++;
    }
    const float cells[4] = {0.0f, 0.5f, 1.0f, 3.0f};
    CHECK_STATUS(crowdsteer_obstacles_build(o, cells[trial % 4]), CROWDSTEER_OK);
    for (int q = 0; q < 4000; q++) {
      float px, py;
      if (q % 2) { /* the lattice: borders, edges, vertices */
        px = 0.125f * (float)((int)rng_below(&r, 1000) - 500);
        py = 0.125f * (float)((int)rng_below(&r, 1000) - 500);
      } else {
        px = rng_range(&r, -65.0f, 65.0f);
        py = rng_range(&r, -65.0f, 65.0f);
      }
      const int want = brute_inside(&l, px, py);
      CHECK_MSG(inside_at(o, px, py) == want, "trial %d: (%a, %a) inside should be %d",
                trial, (double)px, (double)py, want);
    }
    crowdsteer_obstacles_destroy(o);
  }
}

int main(void) {
  test_refusals();
  test_inside_random();
  test_inside();
  test_large();
  test_thin_box();
  return check_report("test_obstacles");
}
