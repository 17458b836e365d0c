/* The exact predicates (cs_exact_sign2, cs_orient, cs_dot_sign,
 * cs_segments_touch) against big-integer arithmetic on adversarial floats,
 * and the obstacle queries (move blocked, inside) against brute force over
 * every edge with those exact signs. */
#include <float.h>
#include <stdint.h>

#include "../common/check.h"
#include "avoid/exact.h"
#include "avoid/obstacles.h"

/* ---- exact reference: fixed-size big integers ---------------------------------- */

/* Every finite float is an integer multiple of 2^-149 below 2^277, so a
 * difference fits 9 limbs of 32 bits, a product 18, the sum of two 19. */
enum { LIMBS = 20 };

typedef struct big {
  int negative;
  uint32_t limb[LIMBS]; /* magnitude, least significant first */
} big;

/* f as the integer f * 2^149. */
static big big_of_float(float f) {
  big r = {0};
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  const uint32_t biased = (bits >> 23) & 0xff, fraction = bits & 0x7fffff;
  const uint64_t mantissa = biased ? fraction | 0x800000u : fraction;
  const unsigned shift = biased ? biased - 1 : 0; /* f = mantissa 2^(shift - 149) */
  r.negative = (bits >> 31) && mantissa;
  const unsigned word = shift / 32, offset = shift % 32;
  const uint64_t wide = mantissa << offset;
  r.limb[word] = (uint32_t)wide;
  if (word + 1 < LIMBS) r.limb[word + 1] = (uint32_t)(wide >> 32);
  return r;
}

static int magnitude_compare(const big *a, const big *b) {
  for (int k = LIMBS - 1; k >= 0; k--)
    if (a->limb[k] != b->limb[k]) return a->limb[k] < b->limb[k] ? -1 : 1;
  return 0;
}

static int is_zero(const big *a) {
  for (int k = 0; k < LIMBS; k++)
    if (a->limb[k]) return 0;
  return 1;
}

static big add(const big *a, const big *b) {
  big r = {0};
  if (a->negative == b->negative) {
    uint64_t carry = 0;
    for (int k = 0; k < LIMBS; k++) {
      carry += (uint64_t)a->limb[k] + b->limb[k];
      r.limb[k] = (uint32_t)carry;
      carry >>= 32;
    }
    r.negative = a->negative;
  } else {
    const int order = magnitude_compare(a, b);
    const big *large = order >= 0 ? a : b, *small = order >= 0 ? b : a;
    int64_t borrow = 0;
    for (int k = 0; k < LIMBS; k++) {
      int64_t d = (int64_t)large->limb[k] - small->limb[k] - borrow;
      borrow = d < 0;
      r.limb[k] = (uint32_t)(d + (borrow ? (int64_t)1 << 32 : 0));
    }
    r.negative = large->negative;
  }
  if (is_zero(&r)) r.negative = 0;
  return r;
}

static big subtract(const big *a, const big *b) {
  big minus = *b;
  minus.negative = !is_zero(b) && !b->negative;
  return add(a, &minus);
}

/* Limbs up to the most significant non-zero one. */
static int length(const big *a) {
  int n = LIMBS;
  while (n > 0 && !a->limb[n - 1])
    n--;
  return n;
}

static big multiply(const big *a, const big *b) {
  big r = {0};
  const int na = length(a), nb = length(b);
  for (int i = 0; i < na; i++) {
    uint64_t carry = 0;
    for (int j = 0; j < nb && i + j < LIMBS; j++) {
      carry += (uint64_t)a->limb[i] * b->limb[j] + r.limb[i + j];
      r.limb[i + j] = (uint32_t)carry;
      carry >>= 32;
    }
    if (i + nb < LIMBS) r.limb[i + nb] = (uint32_t)carry;
  }
  r.negative = !is_zero(&r) && a->negative != b->negative;
  return r;
}

static int big_sign(const big *a) { return is_zero(a) ? 0 : (a->negative ? -1 : 1); }

static big difference(float x1, float x0) {
  const big a = big_of_float(x1), b = big_of_float(x0);
  return subtract(&a, &b);
}

static int reference_sign2(float a1, float a0, float b1, float b0, float c1, float c0,
                           float d1, float d0) {
  const big a = difference(a1, a0), b = difference(b1, b0);
  const big c = difference(c1, c0), d = difference(d1, d0);
  const big p = multiply(&a, &b), q = multiply(&c, &d);
  const big sum = add(&p, &q);
  return big_sign(&sum);
}

/* The reference's own geometry, written from the definitions. */
static int reference_orient(const float a[2], const float b[2], const float c[2]) {
  const big bx = difference(b[0], a[0]), by = difference(b[1], a[1]);
  const big cx = difference(c[0], a[0]), cy = difference(c[1], a[1]);
  const big left = multiply(&bx, &cy), right = multiply(&by, &cx);
  const big det = subtract(&left, &right);
  return big_sign(&det);
}

/* p on the closed segment ab: collinear and within its bounding box. */
static int reference_on_segment(const float a[2], const float b[2], const float p[2]) {
  return reference_orient(a, b, p) == 0 && fminf(a[0], b[0]) <= p[0] &&
         p[0] <= fmaxf(a[0], b[0]) && fminf(a[1], b[1]) <= p[1] &&
         p[1] <= fmaxf(a[1], b[1]);
}

static int reference_touch(const float a[2], const float b[2], const float c[2],
                           const float d[2]) {
  const int abc = reference_orient(a, b, c), abd = reference_orient(a, b, d);
  const int cda = reference_orient(c, d, a), cdb = reference_orient(c, d, b);
  if (abc * abd < 0 && cda * cdb < 0) return 1; /* crossing inside both */
  return reference_on_segment(a, b, c) || reference_on_segment(a, b, d) ||
         reference_on_segment(c, d, a) || reference_on_segment(c, d, b);
}

/* ---- adversarial floats ------------------------------------------------------ */

static uint64_t next_random(uint64_t *state) { /* xorshift64* */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1Dull;
}

static unsigned pick(uint64_t *state, unsigned n) {
  return (unsigned)((next_random(state) >> 33) % n);
}

static float uniform(uint64_t *state, float lo, float hi) {
  return lo + (hi - lo) * (float)(next_random(state) >> 40) * 0x1p-24f;
}

/* x moved by up to `steps` ulps either way, staying finite. */
static float nudge(uint64_t *rng, float x, int steps) {
  const int k = (int)pick(rng, (unsigned)(2 * steps + 1)) - steps;
  for (int i = 0; i < k; i++)
    x = nextafterf(x, FLT_MAX);
  for (int i = 0; i > k; i--)
    x = nextafterf(x, -FLT_MAX);
  return x;
}

/* Huge, tiny, subnormal, ordinary and signed zero, mixed. */
static float extreme(uint64_t *rng) {
  static const float pool[] = {
      0.0f,     -0.0f,     1.0f,       -1.0f,     3.0f,    1e38f,
      -1e38f,   FLT_MAX,   -FLT_MAX,   1e-38f,    -1e-38f, FLT_MIN,
      -FLT_MIN, 0x1p-149f, -0x1p-149f, 0x3p-149f, 1e-45f,  0x1.fffffep-127f,
      1e20f,    -3e-20f};
  const float x = pool[pick(rng, sizeof pool / sizeof pool[0])];
  return pick(rng, 3) ? x : nudge(rng, x, 2);
}

static int compared;

static void check_sign2(float a1, float a0, float b1, float b0, float c1, float c0,
                        float d1, float d0) {
  const int want = reference_sign2(a1, a0, b1, b0, c1, c0, d1, d0);
  const int got = cs_exact_sign2(a1, a0, b1, b0, c1, c0, d1, d0);
  compared++;
  CHECK_MSG(got == want, "sign2(%a, %a, %a, %a, %a, %a, %a, %a) = %d, exact %d",
            (double)a1, (double)a0, (double)b1, (double)b0, (double)c1, (double)c0,
            (double)d1, (double)d0, got, want);
}

static void check_points(const float a[2], const float b[2], const float c[2],
                         const float d[2]) {
  const int orient = cs_orient(a, b, c), want = reference_orient(a, b, c);
  CHECK_MSG(orient == want, "orient((%a, %a), (%a, %a), (%a, %a)) = %d, exact %d",
            (double)a[0], (double)a[1], (double)b[0], (double)b[1], (double)c[0],
            (double)c[1], orient, want);
  const int dot = cs_dot_sign(a, b, c, d);
  const int dot_want =
      reference_sign2(b[0], a[0], d[0], c[0], b[1], a[1], d[1], c[1]); /* checked */
  CHECK(dot == dot_want);
  const int touch = cs_segments_touch(a, b, c, d),
            touch_want = reference_touch(a, b, c, d);
  CHECK_MSG(touch == touch_want,
            "segments (%a, %a)-(%a, %a) and (%a, %a)-(%a, %a): touch %d, exact %d",
            (double)a[0], (double)a[1], (double)b[0], (double)b[1], (double)c[0],
            (double)c[1], (double)d[0], (double)d[1], touch, touch_want);
  compared += 3;
}

/* Signs the reference must get right by hand: huge against tiny, exact
 * cancellation, subnormal products. */
static void test_reference_by_hand(void) {
  CHECK(reference_sign2(1e38f, -1e38f, 1e-38f, 0.0f, -1e38f, 1e38f, 1e-38f, 0.0f) == 0);
  CHECK(reference_sign2(FLT_MAX, 0.0f, 0x1p-149f, 0.0f, -FLT_MAX, 0.0f, 0.0f,
                        -0x1p-149f) == 0);
  CHECK(reference_sign2(FLT_MAX, 0.0f, 0x1p-149f, 0.0f, -FLT_MAX, 0.0f, 0x1p-148f,
                        0.0f) == -1);
  CHECK(reference_sign2(0x1p-149f, 0.0f, 0x1p-149f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f) == 1);
  /* (2^24 + 2)(2^24 - 2) - (2^24)^2 = -4, lost in a float product. */
  CHECK(reference_sign2(0x1.000002p24f, 0.0f, 0x1.fffffcp23f, 0.0f, 0x1p24f, 0.0f, 0.0f,
                        0x1p24f) == -1);
  const float a[2] = {0, 0}, b[2] = {2, 2}, on[2] = {1, 1}, off[2] = {1, 0x1.000002p0f};
  CHECK(reference_orient(a, b, on) == 0 && reference_orient(a, b, off) == 1);
  CHECK(reference_touch(a, b, on, off) == 1);
}

static void test_sign2(void) {
  uint64_t rng = 0x5eed0001u;
  for (int k = 0; k < 20000; k++) {
    float x[8];
    switch (pick(&rng, 5)) {
    case 4: { /* (X - x) b + (-X b - y): differences past double's 53 bits that
               * nearly cancel, where the double filter alone would err */
      const float big_x = ldexpf(uniform(&rng, 1.0f, 2.0f), 40 + (int)pick(&rng, 40));
      const float b = (float)(1 + pick(&rng, 7));
      const float scale = ldexpf(big_x, -50 - (int)pick(&rng, 8));
      x[0] = big_x, x[1] = uniform(&rng, 0.0f, 4.0f) * scale;
      x[2] = b, x[3] = 0.0f;
      x[4] = -(big_x * b), x[5] = -uniform(&rng, 0.0f, 4.0f * b) * scale;
      x[6] = 1.0f, x[7] = pick(&rng, 2) ? 0.0f : nudge(&rng, 0.0f, 1);
      break;
    }
    case 0: /* huge and tiny mixed */
      for (int i = 0; i < 8; i++)
        x[i] = extreme(&rng);
      break;
    case 1: { /* two products that nearly cancel: p q - p' q' with p' ~ p */
      const float p = uniform(&rng, -1e6f, 1e6f), q = uniform(&rng, -1e6f, 1e6f);
      const float base = uniform(&rng, -10.0f, 10.0f);
      x[0] = nudge(&rng, base + p, 1), x[1] = base;
      x[2] = q, x[3] = nudge(&rng, 0.0f, 1);
      x[4] = nudge(&rng, -p, 1), x[5] = 0.0f;
      x[6] = nudge(&rng, q, 1), x[7] = pick(&rng, 2) ? 0.0f : nudge(&rng, 0.0f, 1);
      break;
    }
    case 2: /* differences of neighbouring floats */
      for (int i = 0; i < 8; i += 2) {
        x[i + 1] = pick(&rng, 2) ? extreme(&rng) : uniform(&rng, -1e3f, 1e3f);
        x[i] = nudge(&rng, x[i + 1], 3);
      }
      break;
    default:
      for (int i = 0; i < 8; i++)
        x[i] = pick(&rng, 2) ? extreme(&rng) : uniform(&rng, -4.0f, 4.0f);
    }
    check_sign2(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
  }
}

/* A point on y = slope x (rounded to float), nudged by a few ulps. */
static void on_line(uint64_t *rng, float slope, float offset, float x, int steps,
                    float out[2]) {
  out[0] = nudge(rng, x, steps);
  out[1] = nudge(rng, slope * x + offset, steps);
}

static void test_geometry(void) {
  uint64_t rng = 0x5eed0002u;
  for (int k = 0; k < 10000; k++) {
    float p[4][2];
    const unsigned kind = pick(&rng, 5);
    if (kind == 0 || kind == 1) { /* nearly collinear, at scale 1 or 1e6 */
      const float scale = kind ? 1e6f : 1.0f;
      const float slope = uniform(&rng, -3.0f, 3.0f);
      const float offset = uniform(&rng, -1.0f, 1.0f) * scale;
      for (int i = 0; i < 4; i++)
        on_line(&rng, slope, offset, uniform(&rng, -2.0f, 2.0f) * scale, 1, p[i]);
    } else if (kind == 2) { /* huge and tiny coordinates */
      for (int i = 0; i < 4; i++)
        p[i][0] = extreme(&rng), p[i][1] = extreme(&rng);
    } else if (kind == 3) { /* on a small lattice: shared ends, equal points, overlaps */
      for (int i = 0; i < 4; i++)
        p[i][0] = (float)pick(&rng, 4), p[i][1] = (float)pick(&rng, 4);
    } else { /* an end of one segment exactly on the other, or an ulp off */
      for (int i = 0; i < 3; i++)
        p[i][0] = uniform(&rng, -4.0f, 4.0f), p[i][1] = uniform(&rng, -4.0f, 4.0f);
      const float t = (float)pick(&rng, 5) * 0.25f;
      p[3][0] = nudge(&rng, p[0][0] + t * (p[1][0] - p[0][0]), 1);
      p[3][1] = nudge(&rng, p[0][1] + t * (p[1][1] - p[0][1]), 1);
    }
    const unsigned shuffle = pick(&rng, 4); /* which end is where */
    const float *a = p[shuffle & 1 ? 1 : 0], *b = p[shuffle & 1 ? 0 : 1];
    const float *c = p[shuffle & 2 ? 3 : 2], *d = p[shuffle & 2 ? 2 : 3];
    check_points(a, b, c, d);
    check_points(c, d, a, b);
  }
}

/* ---- obstacle queries against brute force ------------------------------------- */

static crowdsteer_obstacles *obstacles;

static void add_loop(const float *xy, size_t n) {
  _Alignas(64) float x[64], y[64];
  for (size_t k = 0; k < n; k++)
    x[k] = xy[2 * k], y[k] = xy[2 * k + 1];
  CHECK_STATUS(crowdsteer_obstacles_add(obstacles, x, y, n), CROWDSTEER_OK);
}

static void edge(uint32_t e, float a[2], float b[2]) {
  const uint32_t f = obstacles->next[e];
  a[0] = obstacles->x[e], a[1] = obstacles->y[e];
  b[0] = obstacles->x[f], b[1] = obstacles->y[f];
}

/* The contract, over every edge: the move touches the edge and p, q lie
 * on different sides (on the line counts as right). */
static int brute_blocked(const float p[2], const float q[2]) {
  for (uint32_t e = 0; e < obstacles->vertex_count; e++) {
    float a[2], b[2];
    edge(e, a, b);
    if ((reference_orient(a, b, p) > 0) != (reference_orient(a, b, q) > 0) &&
        reference_touch(p, q, a, b))
      return 1;
  }
  return 0;
}

/* Strictly inside a closed loop: off its edges, winding number non-zero. */
static int brute_inside(const float p[2]) {
  for (uint32_t loop = 0; loop < obstacles->loop_count; loop++) {
    if (!obstacles->loop_closed[loop]) continue;
    int winding = 0, boundary = 0;
    const uint32_t first = obstacles->loop_first[loop];
    uint32_t e = first;
    do {
      float a[2], b[2];
      edge(e, a, b);
      const int side = reference_orient(a, b, p);
      boundary |= reference_on_segment(a, b, p);
      if (a[1] <= p[1] && b[1] > p[1] && side > 0) winding++;
      if (b[1] <= p[1] && a[1] > p[1] && side < 0) winding--;
      e = obstacles->next[e];
    } while (e != first);
    if (!boundary && winding != 0) return 1;
  }
  return 0;
}

/* A point the queries find hard: a vertex, on an edge (or rounded next to
 * it), on an edge's line beyond its ends, at a vertex's height, or anywhere
 * near the set. */
static void hard_point(uint64_t *rng, float out[2]) {
  const uint32_t e = (uint32_t)pick(rng, (unsigned)obstacles->vertex_count);
  float a[2], b[2];
  edge(e, a, b);
  static const float along[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, -0.5f, 1.5f, 0.1f};
  const float t = along[pick(rng, sizeof along / sizeof along[0])];
  switch (pick(rng, 6)) {
  case 0: out[0] = a[0], out[1] = a[1]; return;
  case 1:
  case 2:
    out[0] = a[0] + t * (b[0] - a[0]), out[1] = a[1] + t * (b[1] - a[1]);
    if (pick(rng, 3) == 0) out[0] = nudge(rng, out[0], 1), out[1] = nudge(rng, out[1], 1);
    return;
  case 3: out[0] = uniform(rng, -12.0f, 70.0f), out[1] = a[1]; return;
  default: out[0] = uniform(rng, -12.0f, 70.0f), out[1] = uniform(rng, -12.0f, 12.0f);
  }
}

static void test_obstacle_queries(void) {
  CHECK_STATUS(crowdsteer_obstacles_create(&obstacles), CROWDSTEER_OK);
  const float square[] = {0, 0, 4, 0, 4, 4, 0, 4};
  const float u_shape[] = {8, 0, 14, 0, 14, 6, 12, 6, 12, 2, 10, 2, 10, 6, 8, 6};
  const float sliver[] = {16, 0, 26, 0x1p-10f, 16, 0x1p-9f}; /* thin triangle */
  const float strip[] = {30, -5, 30 + 0x1p-19f, -5, 30 + 0x1p-19f, 5,
                         30, 5}; /* one ulp */
  const float wall[] = {40, -3, 44, 5};
  const float straight[] = {50, 0, 52, 0, 54, 0, 54, 2, 52, 2, 50, 2}; /* flat vertices */
  const float far[] = {60, -8, 60.0625f, -8, 60.0625f, -7.9375f}; /* tiny, off centre */
  add_loop(square, 4);
  add_loop(u_shape, 8);
  add_loop(sliver, 3);
  add_loop(strip, 4);
  add_loop(wall, 2);
  add_loop(straight, 6);
  add_loop(far, 3);
  /* A star-shaped loop with rounded random corners (simple, counter-clockwise). */
  uint64_t rng = 0x5eed0003u;
  float star[2 * 24];
  for (int k = 0; k < 24; k++) {
    const float angle = (float)k * 0.2617994f, r = uniform(&rng, 1.0f, 5.0f);
    star[2 * k] = 20.0f + r * cosf(angle), star[2 * k + 1] = -8.0f + r * sinf(angle);
  }
  add_loop(star, 24);
  int blocked_moves = 0, inside_points = 0, checked = 0;
  const float cells[] = {0.0f, 0.7f, 3.0f, 100.0f};
  for (size_t g = 0; g < sizeof cells / sizeof cells[0]; g++) {
    CHECK_STATUS(crowdsteer_obstacles_build(obstacles, cells[g]), CROWDSTEER_OK);
    void *memory = malloc(cs_obstacle_scratch_bytes(obstacles));
    cs_obstacle_scratch scratch;
    cs_obstacle_scratch_init(&scratch, obstacles, memory);
    for (int k = 0; k < 2500; k++) {
      float p[2], q[2];
      hard_point(&rng, p);
      switch (pick(&rng, 4)) {
      case 0: /* through p and on: grazes a vertex, runs along an edge */
        hard_point(&rng, q);
        q[0] = p[0] + (p[0] - q[0]), q[1] = p[1] + (p[1] - q[1]);
        break;
      case 1: /* a long move: tunnels through the sliver and the strip */
        q[0] = p[0] + uniform(&rng, -40.0f, 40.0f),
        q[1] = p[1] + uniform(&rng, -1.0f, 1.0f);
        break;
      case 2: q[0] = p[0], q[1] = p[1]; break;
      default: hard_point(&rng, q);
      }
      if (pick(&rng, 2)) { /* start on the hard point or end on it */
        const float swap[2] = {p[0], p[1]};
        p[0] = q[0], p[1] = q[1], q[0] = swap[0], q[1] = swap[1];
      }
      const int want = brute_blocked(p, q);
      const int got = cs_obstacle_move_blocked(obstacles, &scratch, p, q);
      CHECK_MSG(got == want, "move (%a, %a) -> (%a, %a), cells %g: blocked %d, exact %d",
                (double)p[0], (double)p[1], (double)q[0], (double)q[1], (double)cells[g],
                got, want);
      const int in_want = brute_inside(p),
                in_got = cs_obstacle_inside(obstacles, &scratch, p);
      CHECK_MSG(in_got == in_want, "(%a, %a), cells %g: inside %d, exact %d",
                (double)p[0], (double)p[1], (double)cells[g], in_got, in_want);
      blocked_moves += want;
      inside_points += in_want;
      checked++;
    }
    free(memory);
  }
  /* A few moves whose answers are known by hand. */
  CHECK_STATUS(crowdsteer_obstacles_build(obstacles, 0.0f), CROWDSTEER_OK);
  void *memory = malloc(cs_obstacle_scratch_bytes(obstacles));
  cs_obstacle_scratch s;
  cs_obstacle_scratch_init(&s, obstacles, memory);
  const float left[2] = {29, 0}, right[2] = {31, 0}, on_strip[2] = {30, 0};
  CHECK(cs_obstacle_move_blocked(obstacles, &s, left, right) ==
        1); /* through the strip */
  CHECK(cs_obstacle_move_blocked(obstacles, &s, left, on_strip) == 0); /* ends on it */
  const float graze_a[2] = {-1, -1}, graze_b[2] = {1, 1}; /* into the square's corner */
  CHECK(cs_obstacle_move_blocked(obstacles, &s, graze_a, graze_b) == 1);
  const float along_a[2] = {-1, 0}, along_b[2] = {5, 0}; /* along its bottom edge */
  CHECK(cs_obstacle_move_blocked(obstacles, &s, along_a, along_b) ==
        brute_blocked(along_a, along_b));
  free(memory);
  printf("obstacles: %d moves and points checked (%d moves blocked, %d points inside)\n",
         checked, blocked_moves, inside_points);
  CHECK(blocked_moves > checked / 20 && inside_points > checked / 50);
  crowdsteer_obstacles_destroy(obstacles);
}

int main(void) {
  test_reference_by_hand();
  test_sign2();
  test_geometry();
  printf("predicates: %d signs compared with the exact reference\n", compared);
  test_obstacle_queries();
  return check_report("test_exact");
}
