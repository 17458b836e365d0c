/* ORCA's linear programs (cs_orca_solve) against an independent solver in
 * double on random and degenerate constraint sets: the optimum when the
 * lines leave room, the least largest violation when they do not. */
#include "../common/check.h"
#include "avoid/orca.h"

/* ---- the reference, in double ------------------------------------------------ */

/* A constraint a . v + c <= 0 on the velocity v; for a line, a . v + c is
 * its violation det(direction, point - v), exactly as the contract states
 * it (the float direction is taken as given, not renormalised). */
typedef struct half {
  double a[2], c;
} half;

static half half_of(const cs_orca_line *l) {
  const double px = l->point[0], py = l->point[1];
  const double dx = l->direction[0], dy = l->direction[1];
  half h = {{dy, -dx}, dx * py - dy * px};
  return h;
}

static double violation(const half *h, const double v[2]) {
  return h->a[0] * v[0] + h->a[1] * v[1] + h->c;
}

/* Slack of the reference's own candidate checks: its candidates are exact
 * up to double rounding, far below any tolerance on the float solver. */
#define REF_SLACK 1e-9

static int admissible(const half *h, int n, double radius, const double v[2]) {
  if (v[0] * v[0] + v[1] * v[1] > (radius + REF_SLACK) * (radius + REF_SLACK)) return 0;
  for (int i = 0; i < n; i++)
    if (violation(&h[i], v) > REF_SLACK) return 0;
  return 1;
}

/* Where the boundaries of h and g cross (0 when parallel). */
static int crossing(const half *h, const half *g, double out[2]) {
  const double d = h->a[0] * g->a[1] - h->a[1] * g->a[0];
  if (d == 0.0) return 0;
  out[0] = (-h->c * g->a[1] + g->c * h->a[1]) / d;
  out[1] = (-h->a[0] * g->c + g->a[0] * h->c) / d;
  return 1;
}

/* The points where h's boundary meets the circle (a tangent counts once,
 * within the reference's slack). */
static int circle_points(const half *h, double radius, double out[2][2]) {
  const double aa = h->a[0] * h->a[0] + h->a[1] * h->a[1];
  const double foot[2] = {-h->c * h->a[0] / aa, -h->c * h->a[1] / aa};
  const double rest = radius * radius - (foot[0] * foot[0] + foot[1] * foot[1]);
  if (rest < -REF_SLACK) return 0;
  const double along = rest > 0.0 ? sqrt(rest / aa) : 0.0;
  for (int s = 0; s < 2; s++) {
    const double sign = s ? -1.0 : 1.0;
    out[s][0] = foot[0] + sign * along * -h->a[1];
    out[s][1] = foot[1] + sign * along * h->a[0];
  }
  return 2;
}

/* Candidate points of {h} within the disc: every extreme point of that
 * convex set is a crossing of two boundaries, a boundary meeting the circle,
 * or (no boundary touching it) any point of the circle. fn returns nonzero
 * to stop. */
typedef int (*visit_fn)(void *context, const double v[2]);

static int each_vertex(const half *h, int n, double radius, visit_fn fn, void *context) {
  const double east[2] = {radius, 0.0};
  if (fn(context, east)) return 1;
  for (int i = 0; i < n; i++) {
    double on_circle[2][2], v[2];
    const int m = circle_points(&h[i], radius, on_circle);
    for (int k = 0; k < m; k++)
      if (fn(context, on_circle[k])) return 1;
    for (int j = 0; j < i; j++)
      if (crossing(&h[i], &h[j], v) && fn(context, v)) return 1;
  }
  return 0;
}

typedef struct search {
  const half *h;
  int n;
  double radius;
  double found[2];
} search;

static int stop_if_admissible(void *context, const double v[2]) {
  search *s = context;
  if (!admissible(s->h, s->n, s->radius, v)) return 0;
  s->found[0] = v[0], s->found[1] = v[1];
  return 1;
}

static int feasible(const half *h, int n, double radius, double point[2]) {
  search s = {h, n, radius, {0, 0}};
  const int found = each_vertex(h, n, radius, stop_if_admissible, &s);
  if (point) point[0] = s.found[0], point[1] = s.found[1];
  return found;
}

/* The constraints with lines [first, n) violated by at most `level`. */
static void shifted(const half *h, int n, int first, double level, half *out) {
  for (int i = 0; i < n; i++) {
    out[i] = h[i];
    if (i >= first) out[i].c -= level;
  }
}

/* The least largest violation of lines [first, n) over the disc, keeping
 * lines [0, first) (which must be feasible with the disc): bisection on the
 * level, each a feasibility test by enumeration. */
static double least_violation(const half *h, int n, int first, double radius,
                              double point[2]) {
  half moved[32];
  double lo = -INFINITY, hi = 0.0;
  /* No point of the disc violates line i by less than c - radius |a|. */
  for (int i = first; i < n; i++) {
    const double a = sqrt(h[i].a[0] * h[i].a[0] + h[i].a[1] * h[i].a[1]);
    lo = fmax(lo, h[i].c - radius * a);
  }
  hi = lo;
  for (double step = 1.0;; step *= 2.0) {
    hi = lo + step;
    shifted(h, n, first, hi, moved);
    if (feasible(moved, n, radius, point)) break;
  }
  lo -= REF_SLACK;
  for (int k = 0; k < 60 && hi - lo > 1e-13; k++) {
    const double mid = 0.5 * (lo + hi);
    shifted(h, n, first, mid, moved);
    if (feasible(moved, n, radius, NULL))
      hi = mid;
    else
      lo = mid;
  }
  shifted(h, n, first, hi, moved);
  feasible(moved, n, radius, point);
  return hi;
}

typedef struct nearest {
  const half *h;
  int n;
  double radius, target[2];
  double best[2], best_dist;
} nearest;

static void consider(nearest *s, const double v[2]) {
  if (!admissible(s->h, s->n, s->radius, v)) return;
  const double dist = hypot(v[0] - s->target[0], v[1] - s->target[1]);
  if (dist < s->best_dist) {
    s->best_dist = dist;
    s->best[0] = v[0], s->best[1] = v[1];
  }
}

static int consider_vertex(void *context, const double v[2]) {
  consider(context, v);
  return 0;
}

/* The point of {h} within the disc nearest `target` (unique: a strictly
 * convex objective on a convex set), by the KKT conditions: the target, its
 * projections on each boundary and on the circle, and the vertices. */
static double nearest_point(const half *h, int n, double radius, const double target[2],
                            double out[2]) {
  nearest s = {h, n, radius, {target[0], target[1]}, {0, 0}, INFINITY};
  consider(&s, target);
  const double len = hypot(target[0], target[1]);
  if (len > 0.0) {
    const double on_circle[2] = {target[0] / len * radius, target[1] / len * radius};
    consider(&s, on_circle);
  }
  for (int i = 0; i < n; i++) {
    const double aa = h[i].a[0] * h[i].a[0] + h[i].a[1] * h[i].a[1];
    const double over = violation(&h[i], target) / aa;
    const double foot[2] = {target[0] - over * h[i].a[0], target[1] - over * h[i].a[1]};
    consider(&s, foot);
  }
  each_vertex(h, n, radius, consider_vertex, &s);
  out[0] = s.best[0], out[1] = s.best[1];
  return s.best_dist;
}

/* ---- random constraint sets ---------------------------------------------------- */

static uint64_t next_random(uint64_t *state) { /* xorshift64* */
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1Dull;
}

static float uniform(uint64_t *state, float lo, float hi) {
  return lo + (hi - lo) * (float)(next_random(state) >> 40) * 0x1p-24f;
}

static unsigned pick(uint64_t *state, unsigned n) {
  return (unsigned)((next_random(state) >> 33) % n);
}

static void set_line(cs_orca_line *l, float px, float py, float dx, float dy) {
  l->point[0] = px, l->point[1] = py;
  l->direction[0] = dx, l->direction[1] = dy;
}

/* Line k of a set: like an ORCA line (a unit direction, the origin allowed
 * or not by up to a few units) or a degenerate one: through the origin,
 * tangent to the speed disc, parallel to an earlier line either way, or an
 * earlier line again (the same floats, or its point slid along it). */
static void random_line(uint64_t *rng, float radius, float low, cs_orca_line *lines,
                        int k) {
  const float angle = uniform(rng, 0.0f, 6.2831853f);
  const float dx = cosf(angle), dy = sinf(angle);
  const float slide = uniform(rng, -3.0f, 3.0f);
  /* Offset of the origin on the allowed side (the left normal is (-dy, dx)). */
  float s = uniform(rng, low, 1.3f * radius);
  const unsigned kind = k > 0 ? pick(rng, 13) : pick(rng, 8);
  const cs_orca_line *earlier = k > 0 ? &lines[pick(rng, (unsigned)k)] : NULL;
  cs_orca_line *l = &lines[k];
  switch (kind) {
  case 5: /* through the origin */ set_line(l, 0.0f, 0.0f, dx, dy); return;
  case 6: /* tangent to the disc, on either side */
    s = pick(rng, 2) ? radius : -radius;
    set_line(l, s * dy, -s * dx, dx, dy);
    return;
  case 7: /* tangent, its point slid along */
    s = pick(rng, 2) ? radius : -radius;
    set_line(l, s * dy + slide * dx, -s * dx + slide * dy, dx, dy);
    return;
  case 8: { /* parallel to an earlier line, same way or opposite */
    const float e[2] = {earlier->direction[0], earlier->direction[1]};
    const float sign = pick(rng, 2) ? 1.0f : -1.0f;
    const float apart = pick(rng, 3) ? uniform(rng, -1.0f, 1.0f) : 0.0f;
    set_line(l, earlier->point[0] - apart * e[1], earlier->point[1] + apart * e[0],
             sign * e[0], sign * e[1]);
    return;
  }
  case 9: /* the same line again */ *l = *earlier; return;
  case 11: { /* an earlier direction turned by an ulp: |det| ~ 1e-7, far
              * below CS_ORCA_EPSILON, the same way or opposite */
    const float sign = pick(rng, 3) ? 1.0f : -1.0f;
    set_line(l, earlier->point[0] + slide * earlier->direction[0],
             earlier->point[1] + slide * earlier->direction[1],
             sign * nextafterf(earlier->direction[0], 2.0f),
             sign * earlier->direction[1]);
    return;
  }
  case 10: /* the same line, its point slid along (rounded off it) */
    set_line(l, earlier->point[0] + slide * earlier->direction[0],
             earlier->point[1] + slide * earlier->direction[1], earlier->direction[0],
             earlier->direction[1]);
    return;
  default: set_line(l, s * dy + slide * dx, -s * dx + slide * dy, dx, dy);
  }
}

/* ---- the comparison ------------------------------------------------------------ */

typedef struct tally {
  int feasible, feasible_loose, feasible_parallel, feasible_parallel_refused;
  int infeasible, infeasible_minimax, infeasible_obstacles_only, infeasible_parallel;
  int borderline, obstacles_borderline, minimax_missed;
} tally;

static double cross(const half *h, const half *g) {
  return h->a[0] * g->a[1] - h->a[1] * g->a[0];
}

/* Smallest non-zero |det| of two directions among lines whose indices have
 * `mask` set. Exactly parallel lines (det 0 in double: the float products
 * are exact) are not ill-conditioned: the solver sees them as parallel. */
static double closest_to_parallel(const half *h, int n, const int *mask) {
  double least = INFINITY;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      const double d = fabs(cross(&h[i], &h[j]));
      if (mask[i] && mask[j] && d > 0.0) least = fmin(least, d);
    }
  return least;
}

/* How far from the origin the fallback's lines reach: the agent lines'
 * points and their pairwise crossings (the points of its bisectors). Its
 * float discriminant, |point . direction|^2 + max_speed^2 - |point|^2,
 * loses about eps |point|^2, which moves the answer radially by about that
 * over 2 max_speed. */
static double reach(const cs_orca_line *lines, const half *h, int first, int n) {
  double far = 0.0;
  for (int i = first; i < n; i++) {
    far = fmax(far, hypot(lines[i].point[0], lines[i].point[1]));
    for (int j = first; j < i; j++) {
      double at[2];
      if (fabs(cross(&h[i], &h[j])) > CS_ORCA_EPSILON && crossing(&h[i], &h[j], at))
        far = fmax(far, hypot(at[0], at[1]));
    }
  }
  return far;
}

/* Below this a pair of lines that fixes the answer makes it ill-conditioned
 * (and below CS_ORCA_EPSILON the solver takes the pair as parallel). */
#define NEARLY_PARALLEL 1e-2
/* What rounding in float leaves of a velocity of a few units. */
#define FLOAT_TOLERANCE 2e-5
/* A set counts as feasible (infeasible) when every line can be kept with
 * this much room (no point comes within it): between the two, the answer
 * hangs on rounding and only the weak checks apply. */
#define MARGIN 1e-3

static void print_set(const cs_orca_line *lines, int obstacles, int n, float radius,
                      const float preferred[2]) {
  fprintf(stderr, "  max_speed %a, preferred (%a, %a), obstacle lines %d\n",
          (double)radius, (double)preferred[0], (double)preferred[1], obstacles);
  for (int i = 0; i < n; i++)
    fprintf(stderr, "  line %d: point (%a, %a) direction (%a, %a)\n", i,
            (double)lines[i].point[0], (double)lines[i].point[1],
            (double)lines[i].direction[0], (double)lines[i].direction[1]);
}

static int compare_one(const cs_orca_line *lines, int obstacles, int n, float radius,
                       const float preferred[2], tally *t) {
  half h[32], moved[32];
  for (int i = 0; i < n; i++)
    h[i] = half_of(&lines[i]);
  cs_orca_line room[32];
  float got[2] = {NAN, NAN};
  const int status =
      cs_orca_solve(lines, (size_t)obstacles, (size_t)n, radius, preferred, room, got);
  const double v[2] = {got[0], got[1]};
  int failures = 0;
#define EXPECT(cond, ...)                                                                \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      failures++;                                                                        \
      CHECK_MSG(cond, __VA_ARGS__);                                                      \
    }                                                                                    \
  } while (0)
  int all[32];
  for (int i = 0; i < n; i++)
    all[i] = 1;
  /* The solver takes pairs within CS_ORCA_EPSILON as parallel, which costs
   * up to that much violation across the disc; and the fallback's far
   * bisector points cost precision (see reach). */
  double slack = FLOAT_TOLERANCE;
  if (closest_to_parallel(h, n, all) <= 2.0 * CS_ORCA_EPSILON)
    slack += 2.0 * CS_ORCA_EPSILON * radius;
  if (status) {
    const double far = reach(lines, h, obstacles, n);
    slack += 2e-7 * (far * far / radius + far);
  }
  const double speed = hypot(v[0], v[1]);
  EXPECT(isfinite(v[0]) && isfinite(v[1]) && speed <= radius + slack,
         "result (%.9g, %.9g) outside the speed disc %.9g by %g (status %d, slack %g)",
         v[0], v[1], (double)radius, speed - radius, status, slack);
  shifted(h, n, 0, -MARGIN, moved);
  if (feasible(moved, n, radius, NULL)) {
    double best[2];
    const double best_dist =
        nearest_point(h, n, radius, (const double[2]){preferred[0], preferred[1]}, best);
    int active[32];
    for (int i = 0; i < n; i++)
      active[i] = fabs(violation(&h[i], best)) <= 1e-7;
    if (closest_to_parallel(h, n, active) < NEARLY_PARALLEL) {
      t->feasible_parallel++;
      t->feasible_parallel_refused += status != 0;
      return failures;
    }
    t->feasible++;
    /* Where the answer sits where a line nearly touches the circle, the
     * rounded discriminant moves it along the line by up to ~eps / chord. */
    double cond = 1.0 + 1.0 / closest_to_parallel(h, n, active);
    if (hypot(best[0], best[1]) >= radius - 1e-7)
      for (int i = 0; i < n; i++) {
        if (!active[i]) continue;
        const double aa = h[i].a[0] * h[i].a[0] + h[i].a[1] * h[i].a[1];
        const double foot = fabs(h[i].c) / sqrt(aa);
        const double chord = sqrt(fmax(radius * radius - foot * foot, 0.0));
        cond = fmax(cond, fmin(radius / fmax(chord, 1e-12), 100.0));
      }
    t->feasible_loose += cond > 10.0;
    const double tolerance = FLOAT_TOLERANCE * cond;
    EXPECT(status == 0, "feasible set refused");
    for (int i = 0; i < n; i++)
      EXPECT(violation(&h[i], v) <= slack, "line %d violated by %g", i,
             violation(&h[i], v));
    const double dist = hypot(v[0] - preferred[0], v[1] - preferred[1]);
    EXPECT(fabs(dist - best_dist) <= tolerance &&
               hypot(v[0] - best[0], v[1] - best[1]) <= tolerance,
           "result (%.9g, %.9g) at %.9g from preferred, optimum (%.9g, %.9g) at %.9g",
           v[0], v[1], dist, best[0], best[1], best_dist);
  } else {
    shifted(h, n, 0, MARGIN, moved);
    if (feasible(moved, n, radius, NULL)) {
      t->borderline++;
      return failures;
    }
    t->infeasible++;
    EXPECT(status == 1, "infeasible set accepted");
    shifted(h, obstacles, 0, -MARGIN, moved);
    if (!feasible(moved, obstacles, radius, NULL)) {
      shifted(h, obstacles, 0, MARGIN, moved);
      if (feasible(moved, obstacles, radius, NULL))
        t->obstacles_borderline++;
      else
        t->infeasible_obstacles_only++;
      return failures;
    }
    for (int i = 0; i < obstacles; i++)
      EXPECT(violation(&h[i], v) <= slack, "obstacle line %d violated by %g", i,
             violation(&h[i], v));
    double at[2];
    const double least = least_violation(h, n, obstacles, radius, at);
    double worst = -INFINITY;
    for (int i = obstacles; i < n; i++)
      worst = fmax(worst, violation(&h[i], v));
    /* The lines that fix the minimax: the obstacle lines it keeps tight and
     * the agent lines violated by it, at the reference's answer. */
    int active[32];
    for (int i = 0; i < n; i++) {
      const double over = violation(&h[i], at);
      active[i] = i < obstacles ? fabs(over) <= 1e-6 : over >= least - 1e-6;
    }
    if (closest_to_parallel(h, n, active) < NEARLY_PARALLEL) {
      t->infeasible_parallel++;
      return failures;
    }
    t->infeasible_minimax++;
    const double tolerance = slack + FLOAT_TOLERANCE / closest_to_parallel(h, n, active);
    /* The solver is never better than the minimax (it keeps the obstacle
     * lines); it may be worse in one known way (see test_random_sets). */
    EXPECT(worst >= least - tolerance,
           "largest agent-line violation %.9g, below the least possible %.9g", worst,
           least);
    if (worst > least + tolerance) {
      t->minimax_missed++;
      fprintf(stderr, "largest agent-line violation %.9g, least possible %.9g:\n", worst,
              least);
      print_set(lines, obstacles, n, radius, preferred);
    }
  }
  if (failures) print_set(lines, obstacles, n, radius, preferred);
  return failures;
#undef EXPECT
}

static void test_random_sets(void) {
  tally t = {0};
  int reported = 0;
  for (uint64_t seed = 1; seed <= 20000; seed++) {
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull;
    cs_orca_line lines[16];
    const float radius = uniform(&rng, 0.5f, 3.0f);
    const int obstacles = (int)pick(&rng, 4);
    const int n = obstacles + 1 + (int)pick(&rng, 12);
    const float low = uniform(&rng, -0.6f, 0.4f) * radius;
    for (int k = 0; k < n; k++)
      random_line(&rng, radius, k < obstacles ? 0.0f : low, lines, k);
    float preferred[2];
    const float angle = uniform(&rng, 0.0f, 6.2831853f);
    float speed;
    switch (pick(&rng, 4)) {
    case 0: speed = radius * sqrtf(uniform(&rng, 0.0f, 1.0f)); break;
    case 1: speed = uniform(&rng, 1.0f, 2.5f) * radius; break;
    case 2: speed = radius; break;
    default: speed = 0.0f;
    }
    preferred[0] = speed * cosf(angle), preferred[1] = speed * sinf(angle);
    const int failures = compare_one(lines, obstacles, n, radius, preferred, &t);
    if (failures) fprintf(stderr, "  seed %llu\n", (unsigned long long)seed);
    if (failures && ++reported >= 10) break;
  }
  printf("feasible: %d checked (%d with a loosened tolerance), %d skipped for nearly "
         "parallel lines at the optimum (%d of them refused)\n",
         t.feasible, t.feasible_loose, t.feasible_parallel, t.feasible_parallel_refused);
  printf("infeasible: %d (%d minimax checked, %d skipped for nearly parallel lines, %d "
         "with infeasible obstacle lines, %d with borderline obstacle lines)\n",
         t.infeasible, t.infeasible_minimax, t.infeasible_parallel,
         t.infeasible_obstacles_only, t.obstacles_borderline);
  printf("borderline (within %g of feasible): %d\n", MARGIN, t.borderline);
  /* Known: the fallback's 2D program on the bisectors can find the region
   * where a line is the worst empty only through rounding (t_left above
   * t_right by an ulp); it then keeps its last answer, which may violate
   * that line far more than the minimax (seed 1904: 2.30 for 1.58). 2 sets
   * in 20,000 here, as in RVO2; a broken solver misses hundreds. */
  printf("minimax missed (the fallback kept its last answer): %d\n", t.minimax_missed);
  CHECK(t.minimax_missed <= 3);
}

/* Two sets where a decision made on a rounding error threw the answer
 * across the speed disc (status 1, far from the optimum). */
static void test_rounding_decisions(void) {
  cs_orca_line room[4];
  float got[2];
  /* The same line twice, the second point slid along it and rounded
   * 2.3e-9 to its right: was status 1 at (1.487, 1.919). */
  const cs_orca_line same[2] = {
      {{-0x1.670b72p+0f, -0x1.0f1558p-1f}, {0x1.94ab92p-1f, -0x1.39aa5ep-1f}},
      {{-0x1.62106ep+1f, 0x1.0e1368p-1f}, {0x1.94ab92p-1f, -0x1.39aa5ep-1f}}};
  const float preferred[2] = {-0x1.fa792ap+0f, -0x1.68567cp+0f};
  for (size_t obstacles = 0; obstacles <= 2; obstacles++) {
    CHECK(cs_orca_solve(same, obstacles, 2, 0x1.36c9eap+1f, preferred, room, got) == 0);
    CHECK_NEAR(got[0], -1.33708727, 1e-5);
    CHECK_NEAR(got[1], -0.580176353, 1e-5);
  }
  /* A line tangent to the disc (the disc on its allowed side), preferred
   * beyond the tangent point: was status 1 at the opposite point of the
   * circle for 56 of these 2,000 angles. */
  int refused = 0;
  for (int k = 0; k < 2000; k++) {
    const float angle = (float)k * 0.0031415926f, radius = 1.0f + (float)(k % 7) * 0.31f;
    const float dx = cosf(angle), dy = sinf(angle);
    const cs_orca_line tangent = {{radius * dy, -radius * dx}, {dx, dy}};
    const float beyond[2] = {3.0f * dy, -3.0f * dx};
    const int status = cs_orca_solve(&tangent, 0, 1, radius, beyond, room, got);
    refused +=
        status != 0 || hypot(got[0] - radius * dy, got[1] + radius * dx) > 1e-5 * radius;
  }
  CHECK_MSG(refused == 0, "%d tangent lines refused", refused);
}

int main(void) {
  test_rounding_decisions();
  test_random_sets();
  return check_report("test_orca_programs");
}
