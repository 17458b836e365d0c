/* What a user sees over many steps of behaviour + crowdsteer_integrate:
 * arrive stops without overshoot, flee and leave open distance, pursuit beats
 * seek, evade beats flee, wander stays bounded and is reproducible. */
#include "../common/small_world.h"

static double dist_to(const bh_world *w, size_t i, const float t[3], int dims) {
  double s = 0;
  for (int k = 0; k < dims; k++)
    s += ((double)w->p[k][i] - t[k]) * ((double)w->p[k][i] - t[k]);
  return sqrt(s);
}

static double speed_of(const bh_world *w, size_t i, int dims) {
  float v[3] = {w->v[0][i], w->v[1][i], w->v[2][i]};
  return bh_len(v, dims);
}

/* One step: a behaviour into w->out over [0, n), then integrate [0, n). */
static void step(bh_entry e, bh_call *c, const crowdsteer_params *integrator, size_t n) {
  CHECK_STATUS(bh_run(e, c, 0, n), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_integrate(c->agents_ptr, c->steering_ptr, integrator, 0, n),
               CROWDSTEER_OK);
}

/* Arrive from rest along a straight line: the distance never grows, the agent
 * never passes the target (it stays on its starting side), and it ends at
 * rest on the target. `p` is the behaviour+integrator parameter set. */
static void arrive_run(const char *name, int dims, const float start[3],
                       const float target[3], const crowdsteer_params *p, int steps) {
  bh_world w;
  bh_world_fill(&w, 0.0f);
  bh_call c;
  bh_call_init(&c, &w, 1, dims, CROWDSTEER_TARGET_POINT);
  c.params = *p;
  for (int k = 0; k < 3; k++) {
    c.target.point[k] = target[k];
    w.p[k][0] = start[k];
    w.v[k][0] = 0;
  }
  double prev = dist_to(&w, 0, target, dims);
  int grew = 0, overshoot = 0, nan = 0;
  for (int n = 0; n < steps; n++) {
    step(ARRIVE, &c, &c.params, 1);
    double d = dist_to(&w, 0, target, dims);
    if (d > prev) grew++;
    prev = d;
    double side = 0; /* (t - p) . (t - start): negative once past the target */
    for (int k = 0; k < dims; k++)
      side += ((double)target[k] - w.p[k][0]) * ((double)target[k] - start[k]);
    if (side < 0) overshoot++;
    for (int k = 0; k < dims; k++)
      nan += !bh_finite(w.p[k][0]) || !bh_finite(w.v[k][0]);
  }
  CHECK_MSG(grew == 0, "%s: distance grew in %d steps", name, grew);
  CHECK_MSG(overshoot == 0, "%s: passed the target in %d steps", name, overshoot);
  CHECK_MSG(nan == 0, "%s: non-finite state", name);
  /* Near |t| = 100 a float step is 7.6e-6, and the last creeping moves fall
   * below half of it, so "on the target" means within a few hundred ulps. */
  CHECK_MSG(prev < 1e-3, "%s: final distance %g", name, prev);
  CHECK_MSG(speed_of(&w, 0, dims) < 1e-4, "%s: final speed %g", name,
            speed_of(&w, 0, dims));
}

static void test_arrive(void) {
  /* Per-frame form: inside the slowing radius v' = d * ms/sr, so the
   * distance shrinks by (1 - 2/10) per step. */
  crowdsteer_params p;
  memset(&p, 0, sizeof p);
  p.max_speed = 2;
  p.slowing_radius = 10;
  const float s2[3] = {0, 0, 0}, t2[3] = {30, 40, 0};
  arrive_run("arrive 2D per-frame", 2, s2, t2, &p, 200);

  /* Real-time units, force-limited: dt 0.05, ttt 0.25, k = ms/sr = 0.5;
   * the continuous system x'' + 4x' + 2x = 0 is overdamped, so no overshoot. */
  memset(&p, 0, sizeof p);
  p.max_speed = 3;
  p.slowing_radius = 6;
  p.time_to_target = 0.25f;
  p.dt = 0.05f;
  p.max_force = 20;
  const float s3[3] = {0, 0, 0}, t3[3] = {3, -4, 12};
  arrive_run("arrive 3D real-time", 3, s3, t3, &p, 1000);
  const float s3b[3] = {-7, 100, 2.5f}, t3b[3] = {-1, 92, 2.5f};
  arrive_run("arrive 3D offset", 3, s3b, t3b, &p, 1000);

  /* target_radius brakes to a full stop: positions 1, 2, ..., 10, then
   * dist 0.25 <= 0.5 gives desired 0, v' = v - v = 0 exactly. */
  bh_world w;
  bh_world_fill(&w, 0.0f);
  bh_call c;
  bh_call_init(&c, &w, 1, 2, CROWDSTEER_TARGET_POINT);
  c.target.point[0] = 10.25f, c.target.point[1] = 0;
  c.params.target_radius = 0.5f;
  w.p[0][0] = w.p[1][0] = w.v[0][0] = w.v[1][0] = 0;
  for (int n = 0; n < 20; n++) {
    step(ARRIVE, &c, &c.params, 1);
    CHECK(w.p[0][0] <= 10.25f);
  }
  CHECK(w.p[0][0] == 10 && w.p[1][0] == 0);
  CHECK(w.v[0][0] == 0 && w.v[1][0] == 0);
}

/* Flee and leave from rest or sideways motion: every step opens distance. */
static void test_flee_leave(void) {
  for (int dims = 2; dims <= 3; dims++) {
    for (int which = 0; which < 2; which++) {
      bh_entry e = which ? LEAVE : FLEE;
      bh_world w;
      bh_world_fill(&w, 0.0f);
      bh_call c;
      enum { N = 6 };
      bh_call_init(&c, &w, N, dims, CROWDSTEER_TARGET_POINT);
      const float threat[3] = {5, -3, 2};
      for (int k = 0; k < 3; k++)
        c.target.point[k] = threat[k];
      /* positions around the threat, some at rest, some moving sideways */
      static const float off[N][3] = {{1, 0, 0},   {0, -2, 0},   {0.5f, 0.5f, 1},
                                      {-3, 1, -1}, {0, 0, 0.5f}, {2, 2, 0}};
      static const float side[N][3] = {{0, 0, 0}, {0.3f, 0, 0}, {0, 0, 0},
                                       {0, 0, 0}, {0.2f, 0, 0}, {-1, 1, 0}};
      static const float ms[N] = {1, 2, 0.5f, 3, 1.5f, 1};
      for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) {
          w.p[k][i] = threat[k] + (k < dims ? off[i][k] : 0);
          w.v[k][i] = k < dims ? side[i][k] : 0;
        }
      c.params.max_speed_per_agent = ms;
      c.params.time_to_target = 0.5f;
      c.params.dt = 0.1f;
      c.params.danger_radius = 30;
      c.params.escape_radius = 2;
      double prev[N];
      for (int i = 0; i < N; i++)
        prev[i] = dist_to(&w, i, threat, dims);
      int shrank = 0;
      for (int n = 0; n < 100; n++) {
        step(e, &c, &c.params, N);
        for (int i = 0; i < N; i++) {
          double d = dist_to(&w, i, threat, dims);
          if (!(d > prev[i])) shrank++;
          prev[i] = d;
        }
      }
      CHECK_MSG(shrank == 0, "%s %dD: distance did not grow %d times", entry_name(e),
                dims, shrank);
      for (int i = 0; i < N; i++)
        CHECK_MSG(prev[i] > 3.5, "%s %dD agent %d only reached %g", entry_name(e), dims,
                  i, prev[i]);
    }
  }
}

/* Leave: an agent coasting out through the danger radius. Inside, it is
 * steered; once beyond, the steering is exactly zero and it keeps its
 * velocity. */
static void test_leave_danger_edge(void) {
  for (int dims = 2; dims <= 3; dims++) {
    bh_world w;
    bh_world_fill(&w, 0.0f);
    bh_call c;
    bh_call_init(&c, &w, 1, dims, CROWDSTEER_TARGET_POINT);
    c.target.point[0] = c.target.point[1] = c.target.point[2] = 0;
    c.params.max_speed = 4;
    c.params.danger_radius = 5;
    c.params.dt = 0.1f;
    c.params.time_to_target = 2;
    for (int k = 0; k < 3; k++)
      w.p[k][0] = 0.5f, w.v[k][0] = k < dims ? 2.0f : 0;
    const float origin[3] = {0, 0, 0};
    int outside_steps = 0, bad = 0;
    for (int n = 0; n < 200; n++) {
      int beyond = dist_to(&w, 0, origin, dims) > 5;
      float v_before[3] = {w.v[0][0], w.v[1][0], w.v[2][0]};
      CHECK_STATUS(bh_run(LEAVE, &c, 0, 1), CROWDSTEER_OK);
      if (beyond) {
        outside_steps++;
        for (int k = 0; k < dims; k++)
          bad += w.out[k][0] != 0.0f;
      } else {
        float s[3] = {w.out[0][0], w.out[1][0], w.out[2][0]};
        bad += bh_len(s, dims) == 0.0;
      }
      CHECK_STATUS(crowdsteer_integrate(&c.agents, &c.steering, &c.params, 0, 1),
                   CROWDSTEER_OK);
      if (beyond)
        for (int k = 0; k < dims; k++)
          bad += w.v[k][0] != v_before[k];
    }
    CHECK_MSG(bad == 0, "leave %dD: %d wrong steps around the danger radius", dims, bad);
    CHECK_MSG(outside_steps > 50, "leave %dD: never got beyond the danger radius", dims);
  }
}

/* Steps until a chaser (agent 0, max speed 1) gets within 1 of a quarry
 * (agent 1, constant velocity), targeting it by agent index; -1 if never. */
static int chase_steps(bh_entry e, int dims, const float quarry[3], const float qv[3]) {
  bh_world w;
  bh_world_fill(&w, 0.0f);
  bh_call c;
  bh_call_init(&c, &w, 2, dims, CROWDSTEER_TARGET_AGENTS);
  static const float ms[2] = {1, 10};
  c.params.max_speed_per_agent = ms;
  w.index[0] = 1, w.index[1] = 1;
  for (int k = 0; k < 3; k++) {
    w.p[k][0] = w.v[k][0] = 0;
    w.p[k][1] = quarry[k], w.v[k][1] = qv[k];
  }
  for (int n = 1; n <= 500; n++) {
    CHECK_STATUS(bh_run(e, &c, 0, 1), CROWDSTEER_OK);
    for (int k = 0; k < 3; k++)
      w.out[k][1] = 0; /* the quarry keeps its course */
    CHECK_STATUS(crowdsteer_integrate(&c.agents, &c.steering, &c.params, 0, 2),
                 CROWDSTEER_OK);
    double s = 0;
    for (int k = 0; k < dims; k++)
      s += ((double)w.p[k][0] - w.p[k][1]) * ((double)w.p[k][0] - w.p[k][1]);
    if (sqrt(s) < 1) return n;
  }
  return -1;
}

static void test_pursuit_beats_seek(void) {
  const float q2[3] = {20, 0, 0}, qv2[3] = {0, 0.8f, 0};
  const float q3[3] = {0, 15, -10}, qv3[3] = {0.48f, 0, 0.64f};
  for (int dims = 2; dims <= 3; dims++) {
    const float *q = dims == 2 ? q2 : q3, *qv = dims == 2 ? qv2 : qv3;
    int pursuit = chase_steps(PURSUIT, dims, q, qv);
    int seek = chase_steps(SEEK, dims, q, qv);
    CHECK_MSG(pursuit > 0, "pursuit %dD never caught the quarry", dims);
    /* seek ends up in a tail chase at 1 vs 0.8; pursuit heads it off */
    CHECK_MSG(pursuit > 0 && (seek < 0 || pursuit + 5 < seek),
              "%dD: pursuit took %d steps, seek %d", dims, pursuit, seek);
  }
}

/* Evade's steering matches behaviours.md §3.5's prediction computed here in double:
 * T = len(d) / (max_speed + len(tv)), capped, threat = tp + tv*T. */
static void test_evade_prediction(void) {
  for (int dims = 2; dims <= 3; dims++) {
    bh_world w;
    bh_world_fill(&w, 0.0f);
    bh_call c;
    enum { N = 6 };
    bh_call_init(&c, &w, N, dims, CROWDSTEER_TARGET_ARRAYS);
    static const float p[N][3] = {{0, 0, 0},    {1, 2, 3},      {-4, 0.5f, 2},
                                  {10, -10, 1}, {0.25f, 0, -1}, {3, 3, 3}};
    static const float v[N][3] = {{0.5f, 0, 0}, {0, -1, 0.5f},    {0, 0, 0},
                                  {1, 1, 1},    {-0.2f, 0.1f, 0}, {0, 0, 2}};
    static const float tp[N][3] = {{6, 1, 0}, {-2, 2, 0}, {-4, 7, 2},
                                   {0, 0, 0}, {5, 5, 5},  {3, 8, -1}};
    static const float tv[N][3] = {{-1, 0.5f, 0},   {2, 0, -1}, {0, -3, 0},
                                   {0.3f, 0.1f, 0}, {0, 0, 0},  {-2, -2, 1}};
    static const float ms[N] = {1, 2.5f, 0.7f, 4, 1, 0.5f};
    for (int i = 0; i < N; i++)
      for (int k = 0; k < 3; k++)
        w.p[k][i] = p[i][k], w.v[k][i] = v[i][k], w.tp[k][i] = tp[i][k],
        w.tv[k][i] = tv[i][k];
    c.params.max_speed_per_agent = ms;
    for (int capped = 0; capped < 2; capped++) {
      c.params.max_prediction = capped ? 0.75f : 0; /* 0 = no cap */
      CHECK_STATUS(bh_run(EVADE, &c, 0, N), CROWDSTEER_OK);
      for (int i = 0; i < N; i++) {
        double d[3] = {0, 0, 0}, dl = 0, tvl = 0;
        for (int k = 0; k < dims; k++) {
          d[k] = (double)tp[i][k] - p[i][k];
          dl += d[k] * d[k];
          tvl += (double)tv[i][k] * tv[i][k];
        }
        double T = sqrt(dl) / (ms[i] + sqrt(tvl));
        if (capped && T > 0.75) T = 0.75;
        double away[3] = {0, 0, 0}, al = 0;
        for (int k = 0; k < dims; k++) {
          away[k] = p[i][k] - (tp[i][k] + tv[i][k] * T);
          al += away[k] * away[k];
        }
        al = sqrt(al);
        for (int k = 0; k < dims; k++) {
          double want = away[k] / al * ms[i] - v[i][k];
          CHECK_MSG(fabs(w.out[k][i] - want) <= 1e-5 * (1 + fabs(want)),
                    "evade %dD agent %d axis %d (cap %d): %.9g, expected %.9g", dims, i,
                    k, capped, w.out[k][i], want);
        }
      }
    }
  }
}

/* Closest approach of a straight-line pursuer (start (-10, 0.5), velocity
 * (1, 0)) to a slower agent starting at rest at the origin, 2D or 3D. */
static double closest_approach(bh_entry e, int dims) {
  bh_world w;
  bh_world_fill(&w, 0.0f);
  bh_call c;
  bh_call_init(&c, &w, 1, dims, CROWDSTEER_TARGET_ARRAYS);
  c.params.max_speed = 0.3f;
  float q[3] = {-10, 0.5f, dims == 3 ? 0.25f : 0};
  const float qv[3] = {1, 0, 0};
  for (int k = 0; k < 3; k++)
    w.p[k][0] = w.v[k][0] = 0, w.tv[k][0] = qv[k];
  double best = 1e30;
  for (int n = 0; n < 60; n++) {
    for (int k = 0; k < 3; k++)
      w.tp[k][0] = q[k];
    step(e, &c, &c.params, 1);
    for (int k = 0; k < 3; k++)
      q[k] += qv[k];
    double d = dist_to(&w, 0, q, dims);
    if (d < best) best = d;
  }
  return best;
}

static void test_evade_beats_flee(void) {
  for (int dims = 2; dims <= 3; dims++) {
    double evade = closest_approach(EVADE, dims);
    double flee = closest_approach(FLEE, dims);
    /* Flee runs ahead along the pursuer's path and is run down; evade sees
     * where the pursuer will be and steps aside (about 2.7 vs 1.4 in 2D). */
    CHECK_MSG(evade > flee + 0.5, "%dD: closest approach evade %g, flee %g", dims, evade,
              flee);
  }
}

/* Runs `steps` of wander + integrate for a small crowd; returns 0 if any
 * speed exceeded max_speed. The final state is left in *w. */
static int wander_run(bh_world *w, int dims, uint32_t seed, int steps) {
  enum { N = 9 };
  bh_world_fill(w, 0.0f);
  bh_call c;
  bh_call_init(&c, w, N, dims, CROWDSTEER_TARGET_POINT);
  static const float ms[N] = {1, 2, 0.5f, 1.5f, 3, 1, 0.25f, 2, 1};
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 3; k++) {
      w->p[k][i] = (float)(i * 3 + k);
      w->v[k][i] = k == 0 ? 0.1f * (float)i : 0;
      w->w[k][i] = 0;
    }
  c.params.max_speed_per_agent = ms;
  c.params.wander_distance = 2;
  c.params.wander_radius = 1;
  c.params.jitter = 0.5f;
  c.params.dt = 0.1f;
  c.params.max_force = 5;
  c.wander.seed = seed;
  int ok = 1;
  for (int n = 0; n < steps; n++) {
    c.wander.tick = (uint32_t)n;
    step(WANDER, &c, &c.params, N);
    for (int i = 0; i < N; i++) {
      double s = speed_of(w, (size_t)i, dims);
      if (!(s <= ms[i] * (1 + 1e-6))) ok = 0;
      float wv[3] = {w->w[0][i], w->w[1][i], w->w[2][i]};
      if (!(fabs(bh_len(wv, dims) - 1) <= 1e-5)) ok = 0;
    }
  }
  return ok;
}

static void test_wander(void) {
  for (int dims = 2; dims <= 3; dims++) {
    static bh_world a, b, other;
    CHECK_MSG(wander_run(&a, dims, 1234, 300), "wander %dD: speed over max_speed", dims);
    CHECK(wander_run(&b, dims, 1234, 300));
    CHECK(wander_run(&other, dims, 1235, 300));
    CHECK_MSG(memcmp(&a, &b, sizeof a) == 0, "wander %dD: same seed, different result",
              dims);
    int differ = 0;
    for (int i = 0; i < 9; i++)
      for (int k = 0; k < dims; k++)
        differ += a.p[k][i] != other.p[k][i];
    CHECK_MSG(differ >= 9, "wander %dD: another seed changed only %d coordinates", dims,
              differ);
    /* the walk turns: the headings at the end are not all still +x */
    int turned = 0;
    for (int i = 0; i < 9; i++)
      turned += fabs(a.v[1][i]) > 1e-3;
    CHECK_MSG(turned >= 5, "wander %dD: only %d agents turned", dims, turned);
  }
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  test_arrive();
  test_flee_leave();
  test_leave_danger_edge();
  test_pursuit_beats_seek();
  test_evade_prediction();
  test_evade_beats_flee();
  test_wander();
  return check_report("test_behaviour_physics");
}
