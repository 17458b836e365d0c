/* Navigation fields under an adversary: the documented order of the
 * build's checks (every value before the obstacle set, every goal point
 * before the blocking), sizes whose product wraps a 32-bit size_t
 * (WebAssembly), a cell size whose reciprocal overflows, a rebuild that
 * reads only its rectangle's costs, goal points and agents on cell lines,
 * at infinities and past the grid of a field that once was larger; its
 * bytes; the
 * queries' bits whatever the host's rounding mode. */
#include <fenv.h>
#include <stdint.h>

#include "check.h"

static crowdsteer_obstacles *box(float x0, float y0, float x1, float y1, int build) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  const float x[4] = {x0, x1, x1, x0}, y[4] = {y0, y0, y1, y1};
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 4), CROWDSTEER_OK);
  if (build) CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
  return o;
}

static crowdsteer_field_desc desc_of(uint32_t w, uint32_t h, const float *gx,
                                     const float *gy, size_t goals) {
  const crowdsteer_field_desc d = {{0.0f, 0.0f}, 1.0f, w,  h,     NULL,
                                   NULL,         gx,   gy, goals, NULL};
  return d;
}

/* FNV-1a over every cell's T, direction and blocking, as the queries give
 * them: equal for two fields with the same bits. */
static uint64_t field_hash(const crowdsteer_field *f, uint32_t w, uint32_t h) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint32_t c = 0; c < w * h; c++) {
    struct {
      double t;
      float d[2];
      int blocked;
    } cell;
    memset(&cell, 0, sizeof cell);
    if (crowdsteer_field_time(f, c % w, c / w, &cell.t) ||
        crowdsteer_field_direction(f, c % w, c / w, &cell.d[0], &cell.d[1],
                                   &cell.blocked))
      return 0;
    const unsigned char *bytes = (const unsigned char *)&cell;
    for (size_t b = 0; b < sizeof cell; b++)
      hash = (hash ^ bytes[b]) * 0x100000001b3ull;
  }
  return hash;
}

/* Two fields built from d. */
static void twins(const crowdsteer_field_desc *d, crowdsteer_field **a,
                  crowdsteer_field **b) {
  CHECK_STATUS(crowdsteer_field_create(a), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_create(b), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(*a, d), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_build(*b, d), CROWDSTEER_OK);
}

/* PARAMETER before GRID before GOAL, build and rebuild; the field as it was. */
static void test_check_order(void) {
  const float gx[2] = {0.5f, 0.5f}, gy[2] = {0.5f, 0.5f};
  crowdsteer_field *f = NULL, *copy = NULL;
  crowdsteer_obstacles *built = box(4, 4, 8, 8, 1), *unbuilt = box(1, 1, 2, 2, 0);
  crowdsteer_field_desc d = desc_of(16, 16, gx, gy, 1);
  d.obstacles = built;
  twins(&d, &f, &copy);
  float cost[256];
  for (int c = 0; c < 256; c++)
    cost[c] = 1.0f;
  cost[200] = NAN;
  d.obstacles = unbuilt; /* GRID, but a cost is bad */
  d.cost = cost;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_field_rebuild(f, &d, 0, 0, 16, 16), CROWDSTEER_ERROR_PARAMETER);
  d.cost = NULL;
  const float far_x[2] = {0.5f, 99.0f}, nan_x[2] = {6.0f, NAN};
  d.goal_x = far_x; /* GRID, but the second goal point is off the grid */
  d.goal_point_count = 2;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_field_rebuild(f, &d, 0, 0, 1, 1), CROWDSTEER_ERROR_PARAMETER);
  d.obstacles = built; /* the first goal point blocked, the second NaN */
  d.goal_x = nan_x;
  d.goal_y = nan_x;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  CHECK_STATUS(crowdsteer_field_rebuild(f, &d, 0, 0, 1, 1), CROWDSTEER_ERROR_PARAMETER);
  d.goal_point_count = 1;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_GOAL);
  CHECK_STATUS(crowdsteer_field_rebuild(f, &d, 0, 0, 1, 1), CROWDSTEER_ERROR_GOAL);
  CHECK(field_hash(f, 16, 16) == field_hash(copy, 16, 16));
  crowdsteer_field_destroy(f);
  crowdsteer_field_destroy(copy);
  crowdsteer_obstacles_destroy(built);
  crowdsteer_obstacles_destroy(unbuilt);
}

/* Sizes within 2^24 whose product passes 2^28 only modulo 2^32, and h whose
 * reciprocal overflows a float: PARAMETER, nothing touched. On a 32-bit
 * size_t, 2^28 cells (4 GiB of heap entries) are OUT_OF_MEMORY. */
static void test_sizes(void) {
  const float g = 0.5f;
  crowdsteer_field *f = NULL, *copy = NULL;
  crowdsteer_field_desc d = desc_of(4, 4, &g, &g, 1);
  twins(&d, &f, &copy);
  static const uint32_t sizes[][2] = {
      {1u << 24, 257}, {257, 1u << 24}, {1u << 20, 1u << 12}, {1u << 24, 1u << 24}};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    d.width = sizes[k][0];
    d.height = sizes[k][1];
    CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  }
#if SIZE_MAX <= UINT32_MAX
  d.width = 1u << 24;
  d.height = 16;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_OUT_OF_MEMORY);
#endif
  d.width = 1;
  d.height = 1;
  d.cell_size = 0x1p-128f; /* positive and finite, but 1 / h is +inf */
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_ERROR_PARAMETER);
  CHECK(field_hash(f, 4, 4) == field_hash(copy, 4, 4) &&
        crowdsteer_field_bytes(f) == crowdsteer_field_bytes(copy));
  d.cell_size = 0x1p-126f; /* 1 / h = 2^126 */
  d.goal_x = d.goal_y = &d.origin[0];
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_OK);
  crowdsteer_field_destroy(f);
  crowdsteer_field_destroy(copy);
}

/* A rebuild reads (and checks) only its rectangle's costs. */
static void test_rebuild_costs(void) {
  const float g = 0.5f;
  crowdsteer_field *full = NULL, *part = NULL;
  CHECK_STATUS(crowdsteer_field_create(&full), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_field_create(&part), CROWDSTEER_OK);
  float cost[64];
  for (int c = 0; c < 64; c++)
    cost[c] = 1.0f;
  crowdsteer_field_desc d = desc_of(8, 8, &g, &g, 1);
  d.cost = cost;
  CHECK_STATUS(crowdsteer_field_build(part, &d), CROWDSTEER_OK);
  cost[3 * 8 + 3] = 4.0f; /* inside [2, 5) x [2, 5) */
  CHECK_STATUS(crowdsteer_field_build(full, &d), CROWDSTEER_OK);
  cost[7 * 8 + 7] = NAN; /* outside: neither read nor checked */
  CHECK_STATUS(crowdsteer_field_rebuild(part, &d, 2, 2, 5, 5), CROWDSTEER_OK);
  CHECK(field_hash(full, 8, 8) == field_hash(part, 8, 8));
  CHECK_STATUS(crowdsteer_field_build(part, &d), CROWDSTEER_ERROR_PARAMETER);
  crowdsteer_field_destroy(full);
  crowdsteer_field_destroy(part);
}

/* Goal points on cell lines (origin and h not 1) are in the higher cell;
 * agents on lines, at +-inf, huge, -0 and past the last cell see the cells
 * crowdsteer_field_cell_of names, on every ISA. The field was 64 x 64
 * before: outside its 8 x 8 the zero direction is still gathered. */
static void test_lines(void) {
  crowdsteer_field *f = NULL;
  CHECK_STATUS(crowdsteer_field_create(&f), CROWDSTEER_OK);
  const float big = 3.0f;
  crowdsteer_field_desc d = desc_of(64, 64, &big, &big, 1);
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_OK);
  /* h = 0.5 from (-1.5, 0.25): x = 0 is u = 3, y = 1.25 is v = 2. */
  const float gx = 0.0f, gy = 1.25f;
  d = desc_of(8, 8, &gx, &gy, 1);
  d.cell_size = 0.5f;
  d.origin[0] = -1.5f;
  d.origin[1] = 0.25f;
  CHECK_STATUS(crowdsteer_field_build(f, &d), CROWDSTEER_OK);
  double t;
  CHECK_STATUS(crowdsteer_field_time(f, 3, 2, &t), CROWDSTEER_OK);
  CHECK(t == 0.0);
  CHECK_STATUS(crowdsteer_field_time(f, 2, 1, &t), CROWDSTEER_OK);
  CHECK(t > 0.0);
  enum { N = 13 };
  float px[N] = {0.0f,       -1.5f,  2.5f,     nextafterf(2.5f, 0.0f),
                 -0.0f,      -1.5f,  INFINITY, -INFINITY,
                 1e30f,      -1e30f, NAN,      1.0f,
                 -1.5000001f};
  float py[N] = {1.25f, 0.25f, 1.0f, 4.0f, 2.0f,  -0.0f, 1.0f,
                 1.0f,  1.0f,  1.0f, 1.0f, 4.25f, 1.0f};
  float vx[N], vy[N], sx[N], sy[N];
  for (int i = 0; i < N; i++) {
    vx[i] = 0.25f * (float)(i % 3);
    vy[i] = -0.5f;
  }
  crowdsteer_agents a = {N, 2, px, py, NULL, vx, vy, NULL, NULL};
  const crowdsteer_field *list[1] = {f};
  const crowdsteer_field_follow follow = {list, 1, NULL, 0};
  crowdsteer_params params = {0};
  params.time_to_target = 0.25f;
  params.max_speed = 1.5f;
  const crowdsteer_output out = {{sx, sy, NULL}, CROWDSTEER_OVERWRITE, 0.0f, NULL};
  /* The documented rule from the queries: the cell cell_of names, its
   * direction, zero outside; then every ISA's follow_field. */
  float want[2][N];
  for (int i = 0; i < N; i++) {
    uint32_t cx, cy;
    int inside, blocked;
    float dx = 0.0f, dy = 0.0f;
    CHECK_STATUS(crowdsteer_field_cell_of(f, px[i], py[i], &cx, &cy, &inside),
                 CROWDSTEER_OK);
    if (inside) crowdsteer_field_direction(f, cx, cy, &dx, &dy, &blocked);
    want[0][i] = (dx * 1.5f - vx[i]) / 0.25f;
    want[1][i] = (dy * 1.5f - vy[i]) / 0.25f;
  }
  for (int isa = 0; isa < CROWDSTEER_ISA_COUNT; isa++) {
    if (!crowdsteer_isa_supported((crowdsteer_isa)isa)) continue;
    crowdsteer_force_isa((crowdsteer_isa)isa);
    memset(sx, 0x7f, sizeof sx);
    CHECK_STATUS(crowdsteer_follow_field(&a, &follow, &params, &out, 0, N),
                 CROWDSTEER_OK);
    for (int i = 0; i < N; i++)
      CHECK_MSG(same_bits(sx[i], want[0][i]) && same_bits(sy[i], want[1][i]),
                "%s agent %d (%g, %g): (%g, %g)",
                crowdsteer_isa_name((crowdsteer_isa)isa), i, (double)px[i], (double)py[i],
                (double)sx[i], (double)sy[i]);
  }
  crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR);
  uint32_t cx, cy;
  int inside;
  crowdsteer_field_cell_of(f, 0.0f, 1.25f, &cx, &cy, &inside);
  CHECK(inside && cx == 3 && cy == 2); /* the goal's own cell */
  crowdsteer_field_cell_of(f, 2.5f, 1.0f, &cx, &cy, &inside);
  CHECK(!inside); /* the far side */
  /* 35 bytes per cell (the header), whatever the grid's shape was. */
  const size_t bytes = crowdsteer_field_bytes(f);
  CHECK_MSG(bytes >= 34 * 64 * 64 && bytes <= 35 * 64 * 64 + 512, "%zu bytes", bytes);
  crowdsteer_field_destroy(f);
}

/* crowdsteer_field_direction in the host's directed rounding modes gives
 * the bits it gives in the default one (a zero component was -0 rounding
 * down: 1 - 1 computed in the host's mode). */
static void test_rounding_modes(void) {
  const float g = 0.5f;
  crowdsteer_field_desc d = desc_of(4, 4, &g, &g, 1);
  crowdsteer_field *f = NULL, *spare = NULL;
  twins(&d, &f, &spare);
  const int modes[3] = {FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  for (uint32_t c = 0; c < 16; c++) {
    float want[2], got[2];
    int blocked;
    CHECK_STATUS(
        crowdsteer_field_direction(f, c % 4, c / 4, &want[0], &want[1], &blocked),
        CROWDSTEER_OK);
    for (int m = 0; m < 3; m++) {
      if (fesetround(modes[m]) != 0) continue; /* WebAssembly: nearest only */
      const int host = fegetround();
      crowdsteer_field_direction(f, c % 4, c / 4, &got[0], &got[1], &blocked);
      const int kept = fegetround() == host;
      fesetround(FE_TONEAREST);
      CHECK(kept);
      CHECK_MSG(same_bits(got[0], want[0]) && same_bits(got[1], want[1]),
                "cell %u, mode %d: (%g, %g)", c, m, (double)got[0], (double)got[1]);
    }
  }
  crowdsteer_field_destroy(f);
  crowdsteer_field_destroy(spare);
}

int main(void) {
  test_check_order();
  test_sizes();
  test_rebuild_costs();
  test_lines();
  test_rounding_modes();
  return check_failures ? 1 : 0;
}
