/* Every behaviour and the integrator against values worked out by hand from
 * docs/behaviours.md §3 and §8: 2D and 3D, every target form, uniform and per-agent
 * parameters, accumulate mode, the zero-means-default rule, time_to_target and wander. */
#include "../common/small_world.h"

typedef struct hand_case {
  const char *name;
  bh_entry entry;
  int dims;
  float p[3], v[3], t[3], tv[3];
  crowdsteer_params params; /* uniform values; 0 = default */
  float want[3];
} hand_case;

/* Worked by hand; ms = max_speed, ttt = time_to_target. One row per case is
 * easier to read than clang-format's field-per-line layout. */
// clang-format off
static const hand_case cases[] = {
    /* d = (3,4), |d| = 5, desired = (0.6,0.8)*2 = (1.2,1.6); s = desired - v
     * = (1.2-1, 1.6-0) = (0.2, 1.6) */
    {"seek 2D", SEEK, 2, {0, 0}, {1, 0}, {3, 4}, {0}, {.max_speed = 2}, {0.2f, 1.6f}},
    /* d = (2,3,6), |d| = 7, desired = d/7*14 = (4,6,12); desired - v =
     * (3,5,11); / ttt 0.5 = (6,10,22) */
    {"seek 3D ttt", SEEK, 3, {1, 2, 3}, {1, 1, 1}, {3, 5, 9}, {0},
     {.max_speed = 14, .time_to_target = 0.5f}, {6, 10, 22}},
    /* p - t = (3,4), |.| = 5, desired = (0.6,0.8)*10 = (6,8); s = (6, 8-1) */
    {"flee 2D", FLEE, 2, {3, 4}, {0, 1}, {0, 0}, {0}, {.max_speed = 10}, {6, 7}},
    /* same, on the panic radius (5 is not > 5): still flees */
    {"flee 2D on panic radius", FLEE, 2, {3, 4}, {0, 1}, {0, 0}, {0},
     {.max_speed = 10, .panic_radius = 5}, {6, 7}},
    /* |p - t| = 5 > panic 4.9: steering is zero (not -v) */
    {"flee 2D beyond panic", FLEE, 2, {3, 4}, {0, 1}, {0, 0}, {0},
     {.max_speed = 10, .panic_radius = 4.9f}, {0, 0}},
    /* p - t = (-2,-3,-6), |.| = 7 <= panic 7.5, desired = (-2,-3,-6)*7/7;
     * s = desired - (0,0,1) = (-2,-3,-7) */
    {"flee 3D", FLEE, 3, {0, 0, 0}, {0, 0, 1}, {2, 3, 6}, {0},
     {.max_speed = 7, .panic_radius = 7.5f}, {-2, -3, -7}},
    /* dist 10 >= slowing 5: desired = (0.6,0.8)*2 = (1.2,1.6), v = 0 */
    {"arrive 2D outside slowing", ARRIVE, 2, {0, 0}, {0, 0}, {6, 8}, {0},
     {.max_speed = 2, .slowing_radius = 5}, {1.2f, 1.6f}},
    /* dist 10 < slowing 40: speed = 2*10/40 = 0.5, desired = (0.3,0.4);
     * s = (0.3-1, 0.4-1) = (-0.7,-0.6) */
    {"arrive 2D ramp", ARRIVE, 2, {0, 0}, {1, 1}, {6, 8}, {0},
     {.max_speed = 2, .slowing_radius = 40}, {-0.7f, -0.6f}},
    /* dist 10 <= target_radius 10: desired = 0; s = -v / 0.25 = (-4,-8) */
    {"arrive 2D brake", ARRIVE, 2, {0, 0}, {1, 2}, {6, 8}, {0},
     {.max_speed = 2, .slowing_radius = 40, .target_radius = 10,
      .time_to_target = 0.25f},
     {-4, -8}},
    /* d = (2,3,6), dist 7 < slowing 14: speed = 4*7/14 = 2, desired =
     * (2,3,6)/7*2 = (4/7, 6/7, 12/7), v = 0 */
    {"arrive 3D ramp", ARRIVE, 3, {1, 1, 1}, {0, 0, 0}, {3, 4, 7}, {0},
     {.max_speed = 4, .slowing_radius = 14}, {4.f / 7, 6.f / 7, 12.f / 7}},
    /* d = p - t = (3,4), dist 5 < escape 6: speed = 2, desired = (1.2,1.6);
     * s = (0.2, 1.6) */
    {"leave 2D escape", LEAVE, 2, {3, 4}, {1, 0}, {0, 0}, {0},
     {.max_speed = 2, .danger_radius = 20, .escape_radius = 6}, {0.2f, 1.6f}},
    /* dist 5 between escape 1 and danger 20: speed = 2 - 2*5/20 = 1.5,
     * desired = (0.9,1.2), v = 0 */
    {"leave 2D ramp", LEAVE, 2, {3, 4}, {0, 0}, {0, 0}, {0},
     {.max_speed = 2, .danger_radius = 20, .escape_radius = 1}, {0.9f, 1.2f}},
    /* dist 5 > danger 4: zero steering */
    {"leave 2D beyond danger", LEAVE, 2, {3, 4}, {1, 0}, {0, 0}, {0},
     {.max_speed = 2, .danger_radius = 4}, {0, 0}},
    /* danger_radius 0 (default): leave never steers */
    {"leave 2D no danger radius", LEAVE, 2, {3, 4}, {1, 0}, {0, 0}, {0},
     {.max_speed = 2}, {0, 0}},
    /* d = (2,3,6), dist 7, danger 14: speed = 4 - 4*7/14 = 2, desired =
     * (4/7, 6/7, 12/7); s = desired - (0,0,1) = (4/7, 6/7, 5/7) */
    {"leave 3D ramp", LEAVE, 3, {2, 3, 6}, {0, 0, 1}, {0, 0, 0}, {0},
     {.max_speed = 4, .danger_radius = 14}, {4.f / 7, 6.f / 7, 5.f / 7}},
    /* d = (4,0) is not ahead of heading (0,1) (dot 0): T = 4/(1+3) = 1,
     * predicted (4,3), desired (0.8,0.6); s = (0.8, 0.6-1) */
    {"pursuit 2D", PURSUIT, 2, {0, 0}, {0, 1}, {4, 0}, {0, 3}, {.max_speed = 1},
     {0.8f, -0.4f}},
    /* T = 4/(1+6) = 0.571 capped at max_prediction 0.5: predicted (4,3),
     * desired (0.8,0.6), v = 0 (uncapped would aim at (4, 3.43)) */
    {"pursuit 2D max_prediction", PURSUIT, 2, {0, 0}, {0, 0}, {4, 0}, {0, 6},
     {.max_speed = 1, .max_prediction = 0.5f}, {0.8f, 0.6f}},
    /* quarry ahead (d = (10,0), heading (1,0)), heading(tv) = (-2,0.6)/2.088
     * has x = -0.958 < -0.95: head-on, seek tp: desired (2,0); s = (1,0).
     * (The prediction would have aimed 1.47 off the axis.) */
    {"pursuit 2D head-on", PURSUIT, 2, {0, 0}, {1, 0}, {10, 0}, {-2, 0.6f},
     {.max_speed = 2}, {1, 0}},
    /* tv = (-2,0.7): |tv| = 2.118962, heading x = -0.94386 >= -0.95, so no
     * shortcut: T = 10/(2+2.118962) = 2.427796, predicted = (10-2T, 0.7T) =
     * (5.144408, 1.699457), |.| = 5.417869, desired = 2*pred/|pred| =
     * (1.899059, 0.627355); s = (0.899059, 0.627355) */
    {"pursuit 2D nearly head-on", PURSUIT, 2, {0, 0}, {1, 0}, {10, 0},
     {-2, 0.7f}, {.max_speed = 2}, {0.8990592f, 0.6273550f}},
    /* quarry behind (d = (-10,0), heading (1,0)) and moving against v: no
     * shortcut. |tv| = 3.014963, T = 10/(1+3.014963) = 2.490683, predicted =
     * (-10-3T, 0.3T) = (-17.472050, 0.747205), desired = normalized =
     * (-0.999087, 0.042727); s = (-1.999087, 0.042727) */
    {"pursuit 2D quarry behind", PURSUIT, 2, {0, 0}, {1, 0}, {-10, 0},
     {-3, 0.3f}, {.max_speed = 1}, {-1.9990868f, 0.0427267f}},
    /* v = 0: heading +x, d = (4,0,0) ahead, heading(tv) = +z (dot 0): T =
     * 4/(1+3) = 1, predicted (4,0,3), desired (0.8,0,0.6) */
    {"pursuit 3D", PURSUIT, 3, {0, 0, 0}, {0, 0, 0}, {4, 0, 0}, {0, 0, 3},
     {.max_speed = 1}, {0.8f, 0, 0.6f}},
    /* T = 4/(1+3) = 1, threat at (4,3), flee (-0.8,-0.6)*1; s = desired -
     * (0.5,0) = (-1.3,-0.6) */
    {"evade 2D", EVADE, 2, {0, 0}, {0.5f, 0}, {4, 0}, {0, 3}, {.max_speed = 1},
     {-1.3f, -0.6f}},
    /* the pursuer itself is 4 away (inside panic 4.9), but its predicted
     * position (4,3) is 5 away: no steering */
    {"evade 2D beyond panic", EVADE, 2, {0, 0}, {0.5f, 0}, {4, 0}, {0, 3},
     {.max_speed = 1, .panic_radius = 4.9f}, {0, 0}},
    /* head-on pursuer: evade has no shortcut. T = 10/(3+2) = 2, threat (6,0),
     * desired (-3,0); s = (-3-1, 0) = (-4,0) (seeking would give (2,0)) */
    {"evade 2D head-on", EVADE, 2, {0, 0}, {1, 0}, {10, 0}, {-2, 0},
     {.max_speed = 3}, {-4, 0}},
    /* d = (0,4,0), T = 4/(1+3) = 1, threat (0,4,3), desired (0,-0.8,-0.6);
     * s = desired / ttt 2 = (0,-0.4,-0.3) */
    {"evade 3D ttt", EVADE, 3, {0, 0, 0}, {0, 0, 0}, {0, 4, 0}, {0, 0, 3},
     {.max_speed = 1, .time_to_target = 2}, {0, -0.4f, -0.3f}},
};
// clang-format on

/* Where the subject and its target holder sit in the batch: not at 0, so a
 * kernel that confuses range and batch indices shows. */
enum { SUBJECT = 2, HOLDER = 0, BATCH = 4 };

/* Copies the uniform values in effect into per-agent arrays and sets decoy
 * uniform values, which must then be ignored. */
static void make_per_agent(crowdsteer_params *p, bh_world *w) {
  const float inf = (float)INFINITY;
  for (int i = 0; i < BH_MAX; i++) {
    w->max_speed[i] = p->max_speed == 0 ? 1 : p->max_speed;
    w->max_force[i] = p->max_force == 0 ? inf : p->max_force;
    w->mass[i] = p->mass == 0 ? 1 : p->mass;
    w->target_radius[i] = p->target_radius;
    w->slowing_radius[i] = p->slowing_radius;
    w->panic_radius[i] = p->panic_radius == 0 ? inf : p->panic_radius;
    w->danger_radius[i] = p->danger_radius;
    w->escape_radius[i] = p->escape_radius;
    w->wander_radius[i] = p->wander_radius;
    w->wander_distance[i] = p->wander_distance;
  }
  p->max_speed_per_agent = w->max_speed;
  p->max_force_per_agent = w->max_force;
  p->mass_per_agent = w->mass;
  p->target_radius_per_agent = w->target_radius;
  p->slowing_radius_per_agent = w->slowing_radius;
  p->panic_radius_per_agent = w->panic_radius;
  p->danger_radius_per_agent = w->danger_radius;
  p->escape_radius_per_agent = w->escape_radius;
  p->wander_radius_per_agent = w->wander_radius;
  p->wander_distance_per_agent = w->wander_distance;
  p->max_speed = 77;
  p->max_force = 0.001f;
  p->mass = 55;
  p->target_radius = 999;
  p->slowing_radius = 0.5f;
  p->panic_radius = 0.001f;
  p->danger_radius = 0.0015f;
  p->escape_radius = 999;
  p->wander_radius = 33;
  p->wander_distance = 44;
}

static void run_case(const hand_case *hc, crowdsteer_target_kind kind, int per_agent) {
  bh_world w;
  bh_world_fill(&w, 100.0f);
  bh_call c;
  bh_call_init(&c, &w, BATCH, hc->dims, kind);
  c.params = hc->params;
  if (per_agent) make_per_agent(&c.params, &w);
  for (int k = 0; k < 3; k++) {
    w.p[k][SUBJECT] = hc->p[k];
    w.v[k][SUBJECT] = hc->v[k];
    c.target.point[k] = hc->t[k];
    c.target.point_velocity[k] = hc->tv[k];
    w.tp[k][SUBJECT] = hc->t[k];
    w.tv[k][SUBJECT] = hc->tv[k];
    w.p[k][HOLDER] = hc->t[k];
    w.v[k][HOLDER] = hc->tv[k];
  }
  w.index[SUBJECT] = HOLDER;
  bh_world before = w;
  CHECK_STATUS(bh_run(hc->entry, &c, SUBJECT, SUBJECT + 1), CROWDSTEER_OK);
  for (int k = 0; k < hc->dims; k++) {
    float got = w.out[k][SUBJECT];
    if (!(fabs(got - hc->want[k]) <= bh_tol(hc->want[k]))) {
      check_failures++;
      fprintf(stderr, "%s (target kind %d, %s): out[%d] = %.9g, expected %.9g\n",
              hc->name, (int)kind, per_agent ? "per-agent" : "uniform", k, got,
              (double)hc->want[k]);
    }
  }
  /* Nothing outside the range or the output moved. */
  for (int k = 0; k < hc->dims; k++)
    w.out[k][SUBJECT] = before.out[k][SUBJECT];
  CHECK_MSG(memcmp(&w, &before, sizeof w) == 0, "%s wrote outside agent %d", hc->name,
            SUBJECT);
}

static void test_hand_cases(void) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int kind = 0; kind < 3; kind++)
      for (int per_agent = 0; per_agent < 2; per_agent++)
        run_case(&cases[i], (crowdsteer_target_kind)kind, per_agent);
}

/* Different per-agent values in one batch, and the literal reading of
 * per-agent arrays: 0 there is 0, not the default. */
static void test_per_agent_seek_flee(void) {
  bh_world w;
  bh_world_fill(&w, 0.0f);
  bh_call c;
  bh_call_init(&c, &w, 4, 3, CROWDSTEER_TARGET_POINT);
  c.target.point[0] = 3, c.target.point[1] = 5, c.target.point[2] = 9;
  static const float speeds[4] = {14, 7, 0, 3.5f};
  for (int i = 0; i < 4; i++) {
    w.p[0][i] = 1, w.p[1][i] = 2, w.p[2][i] = 3; /* d = (2,3,6), |d| = 7 */
    w.v[0][i] = 1, w.v[1][i] = 1, w.v[2][i] = 1;
  }
  c.params.max_speed = 2; /* ignored: the array replaces it */
  c.params.max_speed_per_agent = speeds;
  CHECK_STATUS(crowdsteer_seek(&c.agents, &c.target, &c.params, &c.out, 0, 4),
               CROWDSTEER_OK);
  /* desired = (2,3,6)/7 * ms, s = desired - (1,1,1):
   * ms 14 -> (3,5,11); ms 7 -> (1,2,5); ms 0 (literal) -> (-1,-1,-1);
   * ms 3.5 -> (0,0.5,2) */
  static const float want[4][3] = {{3, 5, 11}, {1, 2, 5}, {-1, -1, -1}, {0, 0.5f, 2}};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(w.out[k][i], want[i][k], bh_tol(want[i][k]));

  /* Flee: panic_radius_per_agent {0, +inf, 7, 6.9}; |p - t| = 7 for all.
   * Literal 0 means "never flee" (distance 7 > 0), unlike uniform 0. */
  const float inf = (float)INFINITY;
  static float panic[4];
  panic[0] = 0, panic[1] = inf, panic[2] = 7, panic[3] = 6.9f;
  c.params.max_speed = 7;
  c.params.max_speed_per_agent = NULL;
  c.params.panic_radius_per_agent = panic;
  CHECK_STATUS(crowdsteer_flee(&c.agents, &c.target, &c.params, &c.out, 0, 4),
               CROWDSTEER_OK);
  /* fleeing: desired = (-2,-3,-6), s = (-3,-4,-7) */
  static const float want_flee[4][3] = {{0, 0, 0}, {-3, -4, -7}, {-3, -4, -7}, {0, 0, 0}};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(w.out[k][i], want_flee[i][k], bh_tol(want_flee[i][k]));
  c.params.panic_radius_per_agent = NULL;
  c.params.panic_radius = 0; /* uniform 0 = +inf: everyone flees */
  CHECK_STATUS(crowdsteer_flee(&c.agents, &c.target, &c.params, &c.out, 0, 4),
               CROWDSTEER_OK);
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 3; k++)
      CHECK_NEAR(w.out[k][i], want_flee[1][k], bh_tol(want_flee[1][k]));
}

/* Per-agent radii of arrive and leave, taken literally (2D). */
static void test_per_agent_arrive_leave(void) {
  bh_world w;
  bh_world_fill(&w, 0.0f);
  bh_call c;
  /* Arrive with per-agent radii (2D): p = (0,0), t = (6,8), dist 10, ms 2.
   * agent 0: tr 0, sr 0       -> full speed, desired (1.2,1.6)
   * agent 1: tr 0, sr 40      -> speed 0.5,  desired (0.3,0.4)
   * agent 2: tr 10, sr 40     -> brake,      desired 0
   * agent 3: tr 9.99, sr 20   -> speed 1,    desired (0.6,0.8); v = (1,0) */
  bh_call_init(&c, &w, 4, 2, CROWDSTEER_TARGET_POINT);
  c.target.point[0] = 6, c.target.point[1] = 8;
  static const float tr[4] = {0, 0, 10, 9.99f}, sr[4] = {0, 40, 40, 20};
  for (int i = 0; i < 4; i++)
    w.p[0][i] = w.p[1][i] = 0, w.v[0][i] = 1, w.v[1][i] = 0;
  c.params.max_speed = 2;
  c.params.target_radius = 1000; /* decoys */
  c.params.slowing_radius = 1000;
  c.params.target_radius_per_agent = tr;
  c.params.slowing_radius_per_agent = sr;
  CHECK_STATUS(crowdsteer_arrive(&c.agents, &c.target, &c.params, &c.out, 0, 4),
               CROWDSTEER_OK);
  static const float want_arrive[4][2] = {
      {0.2f, 1.6f}, {-0.7f, 0.4f}, {-1, 0}, {-0.4f, 0.8f}};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 2; k++)
      CHECK_NEAR(w.out[k][i], want_arrive[i][k], bh_tol(want_arrive[i][k]));

  /* Leave with per-agent radii: p = (3,4), t = 0, dist 5, ms 2, v = (1,0);
   * s = desired - v when steering, else 0.
   * agent 0: danger 0 (literal: never steers)     -> 0
   * agent 1: danger 20, escape 6 (inside escape)  -> desired (1.2,1.6)
   * agent 2: danger 20, escape 5 (5 < 5 false)    -> speed 1.5, (0.9,1.2)
   * agent 3: danger 5, escape 0 (on the edge)     -> speed 2-2 = 0, desired 0 */
  for (int i = 0; i < 4; i++) {
    w.p[0][i] = 3, w.p[1][i] = 4, w.v[0][i] = 1, w.v[1][i] = 0;
  }
  c.target.point[0] = 0, c.target.point[1] = 0;
  static const float dr[4] = {0, 20, 20, 5}, er[4] = {0, 6, 5, 0};
  c.params.danger_radius = 100, c.params.escape_radius = 100; /* decoys */
  c.params.danger_radius_per_agent = dr;
  c.params.escape_radius_per_agent = er;
  CHECK_STATUS(crowdsteer_leave(&c.agents, &c.target, &c.params, &c.out, 0, 4),
               CROWDSTEER_OK);
  static const float want_leave[4][2] = {{0, 0}, {0.2f, 1.6f}, {-0.1f, 1.2f}, {-1, 0}};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 2; k++)
      CHECK_NEAR(w.out[k][i], want_leave[i][k], bh_tol(want_leave[i][k]));
}

/* Four agents of "seek 2D": at the origin moving (1, 0), target (3, 4),
 * max_speed 2, so s = desired - v = (0.2, 1.6). */
static void four_seekers(bh_world *w, bh_call *c) {
  bh_world_fill(w, 0.0f);
  bh_call_init(c, w, 4, 2, CROWDSTEER_TARGET_POINT);
  c->target.point[0] = 3, c->target.point[1] = 4;
  for (int i = 0; i < 4; i++) {
    w->p[0][i] = w->p[1][i] = 0;
    w->v[0][i] = 1, w->v[1][i] = 0;
  }
  c->params.max_speed = 2;
}

/* ACCUMULATE: out += weight * s, uniform and per-agent weights; a uniform
 * weight of 0 means 1 (behaviours.md §6), a per-agent 0 adds nothing. */
static void test_accumulate(void) {
  bh_world w;
  bh_call c;
  four_seekers(&w, &c);
  for (int i = 0; i < 4; i++)
    w.out[0][i] = 1, w.out[1][i] = 2;
  c.out.mode = CROWDSTEER_ACCUMULATE;
  c.out.weight = 0.5f;
  CHECK_STATUS(bh_run(SEEK, &c, 0, 4), CROWDSTEER_OK);
  /* (1,2) + 0.5*(0.2,1.6) = (1.1, 2.8) */
  for (int i = 0; i < 4; i++) {
    CHECK_NEAR(w.out[0][i], 1.1, bh_tol(1.1));
    CHECK_NEAR(w.out[1][i], 2.8, bh_tol(2.8));
  }
  c.out.weight = 0; /* means 1: (1.1,2.8) + (0.2,1.6) = (1.3, 4.4) */
  CHECK_STATUS(bh_run(SEEK, &c, 0, 4), CROWDSTEER_OK);
  for (int i = 0; i < 4; i++) {
    CHECK_NEAR(w.out[0][i], 1.3, bh_tol(1.3));
    CHECK_NEAR(w.out[1][i], 4.4, bh_tol(4.4));
  }
  /* per-agent weights {-2, 0, 1, 10} replace the uniform 0.5, literally:
   * (1.3,4.4) + wt*(0.2,1.6) */
  static const float wt[4] = {-2, 0, 1, 10};
  c.out.weight = 0.5f;
  c.out.weight_per_agent = wt;
  CHECK_STATUS(bh_run(SEEK, &c, 0, 4), CROWDSTEER_OK);
  static const float want[4][2] = {
      {0.9f, 1.2f}, {1.3f, 4.4f}, {1.5f, 6.0f}, {3.3f, 20.4f}};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 2; k++)
      CHECK_NEAR(w.out[k][i], want[i][k], bh_tol(want[i][k]));

  /* 3D flee accumulating with a negative weight: s = (-2,-3,-7) ("flee 3D"),
   * out = (1,1,1) - 1*s = (3,4,8) */
  bh_call_init(&c, &w, 1, 3, CROWDSTEER_TARGET_POINT);
  c.target.point[0] = 2, c.target.point[1] = 3, c.target.point[2] = 6;
  w.p[0][0] = w.p[1][0] = w.p[2][0] = 0;
  w.v[0][0] = 0, w.v[1][0] = 0, w.v[2][0] = 1;
  w.out[0][0] = w.out[1][0] = w.out[2][0] = 1;
  c.params.max_speed = 7;
  c.out.mode = CROWDSTEER_ACCUMULATE;
  c.out.weight = -1;
  CHECK_STATUS(bh_run(FLEE, &c, 0, 1), CROWDSTEER_OK);
  CHECK_NEAR(w.out[0][0], 3, bh_tol(3));
  CHECK_NEAR(w.out[1][0], 4, bh_tol(4));
  CHECK_NEAR(w.out[2][0], 8, bh_tol(8));
}

/* params == NULL, a zeroed struct and the spelled-out defaults give the same
 * bits, and those bits are the default formulas. */
static void test_defaults(void) {
  const float inf = (float)INFINITY;
  crowdsteer_params spelled;
  memset(&spelled, 0, sizeof spelled);
  spelled.max_speed = 1;
  spelled.max_force = inf;
  spelled.mass = 1;
  spelled.dt = 1;
  spelled.time_to_target = 1;
  spelled.panic_radius = inf;
  spelled.max_prediction = inf;
  for (int e = 0; e < ENTRY_COUNT; e++) {
    for (int dims = 2; dims <= 3; dims++) {
      bh_world w[3];
      float got[3][3];
      for (int spelling = 0; spelling < 3; spelling++) {
        bh_world_fill(&w[spelling], 0.0f);
        bh_call c;
        bh_call_init(&c, &w[spelling], 1, dims, CROWDSTEER_TARGET_POINT);
        /* far from the target, so panic_radius and max_prediction matter */
        c.target.point[0] = 3000, c.target.point[1] = 4000, c.target.point[2] = 0;
        c.target.point_velocity[0] = 0, c.target.point_velocity[1] = 0.5f;
        c.target.point_velocity[2] = 0;
        float *p[3] = {w[spelling].p[0], w[spelling].p[1], w[spelling].p[2]};
        float *v[3] = {w[spelling].v[0], w[spelling].v[1], w[spelling].v[2]};
        p[0][0] = 0, p[1][0] = 0, p[2][0] = 0;
        v[0][0] = 0.5f, v[1][0] = 0, v[2][0] = 0;
        w[spelling].w[0][0] = 0, w[spelling].w[1][0] = 1, w[spelling].w[2][0] = 0;
        w[spelling].out[0][0] = 0, w[spelling].out[1][0] = 0.5f,
        w[spelling].out[2][0] = 0;
        if (spelling == 0) c.params_ptr = NULL;
        if (spelling == 2) c.params = spelled;
        CHECK_STATUS(bh_run((bh_entry)e, &c, 0, 1), CROWDSTEER_OK);
        for (int k = 0; k < 3; k++)
          got[spelling][k] = e == INTEGRATE
                                 ? (k < 2 ? w[spelling].v[k][0] : w[spelling].p[0][0])
                                 : w[spelling].out[k][0];
      }
      for (int spelling = 1; spelling < 3; spelling++)
        CHECK_MSG(memcmp(&w[0], &w[spelling], sizeof w[0]) == 0,
                  "%s %dD: params variant %d differs from params == NULL", entry_name(e),
                  dims, spelling);
      /* d = (3000,4000), |d| = 5000, v = (0.5,0), max_speed 1: */
      double want[2] = {0, 0};
      switch (e) {
      case SEEK:
      case ARRIVE: /* desired (0.6,0.8); s = (0.1, 0.8) */
        want[0] = 0.1, want[1] = 0.8;
        break;
      case FLEE: /* panic +inf: desired (-0.6,-0.8), s = (-1.1,-0.8) */
        want[0] = -1.1, want[1] = -0.8;
        break;
      case LEAVE: /* danger_radius 0: never steers */ break;
      case PURSUIT: { /* T = 5000/(1+0.5) uncapped; aim (3000, 4000+T/2) */
        double T = 5000.0 / 1.5, ax = 3000, ay = 4000 + 0.5 * T,
               l = sqrt(ax * ax + ay * ay);
        want[0] = ax / l - 0.5, want[1] = ay / l;
        break;
      }
      case EVADE: {
        double T = 5000.0 / 1.5, ax = 3000, ay = 4000 + 0.5 * T,
               l = sqrt(ax * ax + ay * ay);
        want[0] = -ax / l - 0.5, want[1] = -ay / l;
        break;
      }
      case WANDER: /* radius 0, distance 0: s = 0 */ break;
      case INTEGRATE: /* v' = truncate((0.5,0)+(0,0.5), 1) = (0.5,0.5); p' = p + v' */
        want[0] = 0.5, want[1] = 0.5;
        CHECK_NEAR(got[0][2], 0.5, bh_tol(0.5));
        break;
      default: break;
      }
      for (int k = 0; k < 2; k++)
        CHECK_MSG(fabs(got[0][k] - want[k]) <= 2e-6,
                  "%s %dD defaults: [%d] = %.9g, expected %.9g", entry_name(e), dims, k,
                  got[0][k], want[k]);
    }
  }
}

/* The integrator: f = truncate(s, max_force), a = f / mass,
 * v' = truncate(v + a*dt, max_speed), p' = p + v'*dt. */
static void test_integrator(void) {
  bh_world w;
  bh_world_fill(&w, 0.0f);
  bh_call c;

  /* 2D, all limits active: s = (0,20) -> f = (0,8) (max_force 8), mass 1,
   * a = (0,8), dt 0.5: v + a*dt = (3,0)+(0,4) = (3,4), |.| = 5 > 2.5 ->
   * v' = (1.5,2); p' = (1,1) + (1.5,2)*0.5 = (1.75,2) */
  bh_call_init(&c, &w, 1, 2, CROWDSTEER_TARGET_POINT);
  w.p[0][0] = 1, w.p[1][0] = 1, w.v[0][0] = 3, w.v[1][0] = 0;
  w.out[0][0] = 0, w.out[1][0] = 20;
  c.params.max_force = 8, c.params.mass = 1, c.params.dt = 0.5f,
  c.params.max_speed = 2.5f;
  CHECK_STATUS(bh_run(INTEGRATE, &c, 0, 1), CROWDSTEER_OK);
  CHECK_NEAR(w.v[0][0], 1.5, bh_tol(1.5));
  CHECK_NEAR(w.v[1][0], 2, bh_tol(2));
  CHECK_NEAR(w.p[0][0], 1.75, bh_tol(1.75));
  CHECK_NEAR(w.p[1][0], 2, bh_tol(2));
  CHECK_NEAR(w.out[1][0], 20, 0); /* steering is read, not written */

  /* mass divides: s = (0,20), max_force 8 -> (0,8), mass 2 -> a = (0,4),
   * dt 1: (3,0)+(0,4) = (3,4), max_speed 10 (no truncation); p' = (4,5) */
  w.p[0][0] = 1, w.p[1][0] = 1, w.v[0][0] = 3, w.v[1][0] = 0;
  c.params.mass = 2, c.params.dt = 1, c.params.max_speed = 10;
  CHECK_STATUS(bh_run(INTEGRATE, &c, 0, 1), CROWDSTEER_OK);
  CHECK_NEAR(w.v[0][0], 3, bh_tol(3));
  CHECK_NEAR(w.v[1][0], 4, bh_tol(4));
  CHECK_NEAR(w.p[0][0], 4, bh_tol(4));
  CHECK_NEAR(w.p[1][0], 5, bh_tol(5));

  /* 3D, nothing truncated: s = (2,3,6), |s| = 7 <= max_force 7, mass 0.5 ->
   * a = (4,6,12), dt 0.25 -> v' = (1,1.5,3), |v'| = 3.5 <= 7;
   * p' = (1,2,3) + v'*0.25 = (1.25,2.375,3.75) */
  bh_call_init(&c, &w, 1, 3, CROWDSTEER_TARGET_POINT);
  w.p[0][0] = 1, w.p[1][0] = 2, w.p[2][0] = 3;
  w.v[0][0] = w.v[1][0] = w.v[2][0] = 0;
  w.out[0][0] = 2, w.out[1][0] = 3, w.out[2][0] = 6;
  c.params.max_force = 7, c.params.mass = 0.5f, c.params.dt = 0.25f,
  c.params.max_speed = 7;
  CHECK_STATUS(bh_run(INTEGRATE, &c, 0, 1), CROWDSTEER_OK);
  static const float wv[3] = {1, 1.5f, 3}, wp[3] = {1.25f, 2.375f, 3.75f};
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(w.v[k][0], wv[k], bh_tol(wv[k]));
    CHECK_NEAR(w.p[k][0], wp[k], bh_tol(wp[k]));
  }
}

/* The integrator's per-agent limits, and dt's default. */
static void test_integrator_per_agent(void) {
  bh_world w;
  bh_world_fill(&w, 0.0f);
  bh_call c;
  /* Per-agent max_force, mass and max_speed (3D), uniform dt 1, v = 0,
   * s = (2,3,6) for all, p = 0:
   * agent 0: mf 3.5 -> f = (1,1.5,3); mass 0.5 -> a = (2,3,6); ms 100 -> v' = (2,3,6)
   * agent 1: mf +inf, mass 2 -> a = (1,1.5,3); ms 1.75 -> v' = (0.5,0.75,1.5)
   * agent 2: mf 0 (literal) -> f = 0 -> v' = v = 0
   * agent 3: mf 7, mass 1, ms 0 -> v' = 0 */
  bh_call_init(&c, &w, 4, 3, CROWDSTEER_TARGET_POINT);
  static float mf[4], ms[4], mass[4];
  mf[0] = 3.5f, mf[1] = (float)INFINITY, mf[2] = 0, mf[3] = 7;
  mass[0] = 0.5f, mass[1] = 2, mass[2] = 1, mass[3] = 1;
  ms[0] = 100, ms[1] = 1.75f, ms[2] = 5, ms[3] = 0;
  for (int i = 0; i < 4; i++) {
    for (int k = 0; k < 3; k++)
      w.p[k][i] = w.v[k][i] = 0;
    w.out[0][i] = 2, w.out[1][i] = 3, w.out[2][i] = 6;
  }
  c.params.max_force_per_agent = mf;
  c.params.mass_per_agent = mass;
  c.params.max_speed_per_agent = ms;
  c.params.max_force = 0.01f, c.params.mass = 50, c.params.max_speed = 0.01f; /* decoys */
  CHECK_STATUS(bh_run(INTEGRATE, &c, 0, 4), CROWDSTEER_OK);
  static const float want_v[4][3] = {
      {2, 3, 6}, {0.5f, 0.75f, 1.5f}, {0, 0, 0}, {0, 0, 0}};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 3; k++) {
      CHECK_NEAR(w.v[k][i], want_v[i][k], bh_tol(want_v[i][k]));
      CHECK_NEAR(w.p[k][i], want_v[i][k], bh_tol(want_v[i][k])); /* dt 1, p = 0 */
    }

  /* dt 0 means 1, not a frozen step: v = (1,0), s = 0 -> p' = p + (1,0) */
  bh_call_init(&c, &w, 1, 2, CROWDSTEER_TARGET_POINT);
  w.p[0][0] = 5, w.p[1][0] = 5, w.v[0][0] = 1, w.v[1][0] = 0,
  w.out[0][0] = w.out[1][0] = 0;
  c.params.max_speed = 10;
  CHECK_STATUS(bh_run(INTEGRATE, &c, 0, 1), CROWDSTEER_OK);
  CHECK_NEAR(w.p[0][0], 6, bh_tol(6));
  CHECK_NEAR(w.p[1][0], 5, bh_tol(5));
}

/* Wander: the reference formula reproduced with crowdsteer_random. */
static void wander_expect(const float v[3], float w[3], int dims, float jitter,
                          uint32_t seed, uint32_t index, uint32_t tick, float dist,
                          float radius, float s[3]) {
  float h[3] = {1, 0, 0}, vl = 0, j[3], jl = 0;
  for (int k = 0; k < dims; k++)
    vl += v[k] * v[k];
  vl = sqrtf(vl);
  if (vl > 0)
    for (int k = 0; k < dims; k++)
      h[k] = v[k] / vl;
  for (int k = 0; k < dims; k++) {
    j[k] = w[k] + jitter * crowdsteer_random(seed, index, tick, (uint32_t)k);
    jl += j[k] * j[k];
  }
  jl = sqrtf(jl);
  for (int k = 0; k < dims; k++) {
    w[k] = jl > 0 ? j[k] / jl : h[k];
    s[k] = h[k] * dist + w[k] * radius;
  }
}

static void test_wander(void) {
  bh_world w;
  bh_call c;
  /* jitter 0 keeps w: v = (0,2), w = (1,0), distance 3, radius 0.5:
   * s = (0,1)*3 + (1,0)*0.5 = (0.5, 3) */
  bh_world_fill(&w, 0.0f);
  bh_call_init(&c, &w, 1, 2, CROWDSTEER_TARGET_POINT);
  w.v[0][0] = 0, w.v[1][0] = 2, w.w[0][0] = 1, w.w[1][0] = 0;
  c.params.wander_distance = 3, c.params.wander_radius = 0.5f;
  c.wander.seed = 7, c.wander.tick = 3;
  CHECK_STATUS(bh_run(WANDER, &c, 0, 1), CROWDSTEER_OK);
  CHECK_NEAR(w.out[0][0], 0.5, bh_tol(0.5));
  CHECK_NEAR(w.out[1][0], 3, bh_tol(3));
  CHECK(w.w[0][0] == 1 && w.w[1][0] == 0);

  /* 3D, jitter 0: v = (0,0,-5), w = (0,1,0), distance 2, radius 1:
   * s = (0,0,-2) + (0,1,0) = (0,1,-2) */
  bh_call_init(&c, &w, 1, 3, CROWDSTEER_TARGET_POINT);
  w.v[0][0] = 0, w.v[1][0] = 0, w.v[2][0] = -5;
  w.w[0][0] = 0, w.w[1][0] = 1, w.w[2][0] = 0;
  c.params.wander_distance = 2, c.params.wander_radius = 1;
  CHECK_STATUS(bh_run(WANDER, &c, 0, 1), CROWDSTEER_OK);
  CHECK_NEAR(w.out[0][0], 0, 1e-7);
  CHECK_NEAR(w.out[1][0], 1, bh_tol(1));
  CHECK_NEAR(w.out[2][0], -2, bh_tol(2));

  /* zero w, jitter 0: w becomes heading(v). v = (3,4) -> w = (0.6,0.8),
   * s = (0.6,0.8)*(2+1) = (1.8,2.4). At rest: heading +x, s = (3,0). */
  bh_call_init(&c, &w, 2, 2, CROWDSTEER_TARGET_POINT);
  w.v[0][0] = 3, w.v[1][0] = 4, w.v[0][1] = 0, w.v[1][1] = 0;
  for (int i = 0; i < 2; i++)
    w.w[0][i] = w.w[1][i] = 0;
  c.params.wander_distance = 2, c.params.wander_radius = 1;
  CHECK_STATUS(bh_run(WANDER, &c, 0, 2), CROWDSTEER_OK);
  CHECK_NEAR(w.w[0][0], 0.6, bh_tol(0.6));
  CHECK_NEAR(w.w[1][0], 0.8, bh_tol(0.8));
  CHECK_NEAR(w.out[0][0], 1.8, bh_tol(1.8));
  CHECK_NEAR(w.out[1][0], 2.4, bh_tol(2.4));
  CHECK(w.w[0][1] == 1 && w.w[1][1] == 0);
  CHECK_NEAR(w.out[0][1], 3, bh_tol(3));
  CHECK_NEAR(w.out[1][1], 0, 1e-7);
}

/* With jitter, per-agent radius/distance, in a sub-range so the random
 * numbers must use the agent's index in the whole batch. */
static void test_wander_jitter(void) {
  bh_world w;
  bh_call c;
  for (int dims = 2; dims <= 3; dims++) {
    bh_world_fill(&w, 0.0f);
    bh_call_init(&c, &w, 10, dims, CROWDSTEER_TARGET_POINT);
    c.wander.seed = 0xC0FFEEu, c.wander.tick = 41;
    c.params.jitter = 0.7f;
    c.params.wander_radius_per_agent = w.wander_radius;
    c.params.wander_distance_per_agent = w.wander_distance;
    float want_w[10][3], want_s[10][3];
    for (int i = 0; i < 10; i++) {
      float v[3] = {(float)(i % 3) - 1, 0.5f * (float)i, i % 2 ? 0 : 1};
      float wv[3] = {i % 4 ? 0.6f : 0, i % 4 ? -0.8f : 0, 0};
      for (int k = 0; k < 3; k++)
        w.v[k][i] = v[k], w.w[k][i] = wv[k];
      w.wander_radius[i] = 0.25f * (float)i;
      w.wander_distance[i] = 3 - 0.25f * (float)i;
      wander_expect(v, wv, dims, 0.7f, 0xC0FFEEu, (uint32_t)i, 41, w.wander_distance[i],
                    w.wander_radius[i], want_s[i]);
      for (int k = 0; k < 3; k++)
        want_w[i][k] = wv[k];
    }
    bh_world before = w;
    CHECK_STATUS(bh_run(WANDER, &c, 3, 8), CROWDSTEER_OK);
    for (int i = 0; i < 10; i++)
      for (int k = 0; k < dims; k++) {
        if (i < 3 || i >= 8) {
          CHECK(same_bits(w.w[k][i], before.w[k][i]));
          CHECK(same_bits(w.out[k][i], before.out[k][i]));
          continue;
        }
        CHECK_NEAR(w.w[k][i], want_w[i][k], 1e-6);
        CHECK_NEAR(w.out[k][i], want_s[i][k], bh_tol(want_s[i][k]));
      }
    /* w stays a unit vector */
    for (int i = 3; i < 8; i++) {
      float ww[3] = {w.w[0][i], w.w[1][i], w.w[2][i]};
      CHECK_NEAR(bh_len(ww, dims), 1.0, 1e-6);
    }
  }
}

/* Per-agent time_to_target, max_prediction and jitter (behaviours.md §8):
 * each element is used literally for its agent. */
static void test_per_agent_timing(void) {
  bh_world w;
  bh_call c;
  four_seekers(&w, &c);
  c.params.time_to_target = 3; /* replaced by the array */
  static const float ttt[4] = {1, 2, 0.5f, INFINITY};
  c.params.time_to_target_per_agent = ttt;
  CHECK_STATUS(bh_run(SEEK, &c, 0, 4), CROWDSTEER_OK);
  static const float want[4][2] = {{0.2f, 1.6f}, {0.1f, 0.8f}, {0.4f, 3.2f}, {0, 0}};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 2; k++)
      CHECK_NEAR(w.out[k][i], want[i][k], bh_tol(want[i][k]));

  /* Quarry at (10, 0) moving (0, 1), pursuer at rest at the origin with
   * max_speed 1: T = 10 / (1 + 1) = 5. max_prediction {0, 2, +inf, 5}: aim
   * (10, 0), (10, 2), (10, 5), (10, 5); s = normalize(aim). */
  bh_call_init(&c, &w, 4, 2, CROWDSTEER_TARGET_POINT);
  c.target.point[0] = 10, c.target.point_velocity[1] = 1;
  for (int i = 0; i < 4; i++)
    w.p[0][i] = w.p[1][i] = w.v[0][i] = w.v[1][i] = 0;
  static const float prediction[4] = {0, 2, INFINITY, 5};
  c.params.max_prediction_per_agent = prediction;
  CHECK_STATUS(bh_run(PURSUIT, &c, 0, 4), CROWDSTEER_OK);
  static const double aim_y[4] = {0, 2, 5, 5};
  for (int i = 0; i < 4; i++) {
    double l = sqrt(100.0 + aim_y[i] * aim_y[i]);
    CHECK_NEAR(w.out[0][i], 10.0 / l, bh_tol(1));
    CHECK_NEAR(w.out[1][i], aim_y[i] / l, bh_tol(1));
  }

  /* Jitter 0 for agent 0 keeps its unit wander direction; the others move
   * it by jitter * r, as a uniform jitter of the same value does. */
  static const float jitter[4] = {0, 0.25f, 0.5f, 1};
  for (int j = 0; j < 4; j++) {
    bh_call_init(&c, &w, 4, 2, CROWDSTEER_TARGET_POINT);
    for (int i = 0; i < 4; i++)
      w.v[0][i] = 1, w.v[1][i] = 0, w.w[0][i] = 0, w.w[1][i] = 1;
    c.params.wander_radius = 1;
    if (j == 0) {
      c.params.jitter_per_agent = jitter;
    } else {
      c.params.jitter = jitter[j];
    }
    CHECK_STATUS(bh_run(WANDER, &c, 0, 4), CROWDSTEER_OK);
    static float by_array[2][4];
    for (int k = 0; k < 2; k++)
      if (j == 0)
        memcpy(by_array[k], w.w[k], sizeof by_array[k]);
      else
        CHECK(same_bits(by_array[k][j], w.w[k][j]));
    if (j == 0) CHECK(by_array[0][0] == 0 && by_array[1][0] == 1);
  }
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  test_hand_cases();
  test_per_agent_seek_flee();
  test_per_agent_arrive_leave();
  test_accumulate();
  test_per_agent_timing();
  test_defaults();
  test_integrator();
  test_integrator_per_agent();
  test_wander();
  test_wander_jitter();
  return check_report("test_behaviour_formulas");
}
