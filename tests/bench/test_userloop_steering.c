/* The benchmarks' userloop competitor (bench/userloop_steering.c) computes
 * exactly what crowdsteer computes: every behaviour in every target form,
 * the integrator, one-loop steps and the three-behaviour mix give the
 * scalar reference's bits. So "x userloop" compares equal work. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowdsteer.h"
#include "userloop_steering.h"

enum { N = 4099 };

typedef struct crowd {
  float px[N], py[N], vx[N], vy[N], wx[N], wy[N];
} crowd;

static float tpx[N], tpy[N], tvx[N], tvy[N];
static uint32_t index_of[N];
static int failures;

static uint32_t next_random(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

static float uniform(uint32_t *state, float lo, float hi) {
  return lo + (hi - lo) * (float)next_random(state) * 0x1p-24f;
}

/* A crowd around the origin (the point target) with the cases the formulas
 * treat apart: agents on the point target, at rest, on their target agent
 * or array target, head-on to their quarry, on each radius, and speeding. */
static void make_crowd(crowd *c, uint32_t seed) {
  uint32_t r = seed;
  for (size_t i = 0; i < N; i++) {
    c->px[i] = uniform(&r, -100.0f, 100.0f);
    c->py[i] = uniform(&r, -100.0f, 100.0f);
    c->vx[i] = uniform(&r, -3.0f, 3.0f);
    c->vy[i] = uniform(&r, -3.0f, 3.0f);
    c->wx[i] = uniform(&r, -1.0f, 1.0f);
    c->wy[i] = uniform(&r, -1.0f, 1.0f);
    tpx[i] = uniform(&r, -100.0f, 100.0f);
    tpy[i] = uniform(&r, -100.0f, 100.0f);
    tvx[i] = uniform(&r, -1.0f, 1.0f);
    tvy[i] = uniform(&r, -1.0f, 1.0f);
    index_of[i] = next_random(&r) % N;
    switch (i % 11) {
    case 0: c->px[i] = c->py[i] = 0.0f; break; /* on the point target */
    case 1: c->vx[i] = c->vy[i] = 0.0f; break; /* at rest */
    case 2: c->px[i] = c->py[i] = c->vx[i] = c->vy[i] = 0.0f; break;
    case 3:
      index_of[i] = (uint32_t)i; /* its own quarry */
      tpx[i] = c->px[i];
      tpy[i] = c->py[i];
      break;
    case 4: /* quarry ahead, coming head-on */
      c->vx[i] = tpx[i] - c->px[i];
      c->vy[i] = tpy[i] - c->py[i];
      tvx[i] = -c->vx[i];
      tvy[i] = -c->vy[i];
      break;
    case 5: c->wx[i] = c->wy[i] = 0.0f; break;
    /* exactly on a radius of the point target: panic and danger, target,
     * escape, slowing, the second setting's panic */
    case 6: c->px[i] = 60.0f, c->py[i] = 0.0f; break;
    case 7: c->px[i] = 0.0f, c->py[i] = -1.0f; break;
    case 8: c->px[i] = 20.0f, c->py[i] = 0.0f; break;
    case 9: c->px[i] = 0.0f, c->py[i] = 50.0f; break;
    default: c->px[i] = -25.0f, c->py[i] = 0.0f; break;
    }
  }
}

static void expect_bits(const char *what, const float *got, const float *want) {
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < N; i++)
    if (memcmp(&got[i], &want[i], sizeof(float)) != 0 && wrong++ == 0) first = i;
  if (wrong) {
    printf("FAIL %s: %zu agents differ, first %zu: %.9g vs reference %.9g\n", what, wrong,
           first, (double)got[first], (double)want[first]);
    failures++;
  }
}

static void expect_state(const char *what, const crowd *got, const crowd *want) {
  char name[128];
  const float *const g[6] = {got->px, got->py, got->vx, got->vy, got->wx, got->wy};
  const float *const w[6] = {want->px, want->py, want->vx, want->vy, want->wx, want->wy};
  static const char *const axis[6] = {"px", "py", "vx", "vy", "wx", "wy"};
  for (int a = 0; a < 6; a++) {
    snprintf(name, sizeof name, "%s %s", what, axis[a]);
    expect_bits(name, g[a], w[a]);
  }
}

static crowdsteer_agents agents_of(crowd *c) {
  crowdsteer_agents a = {N, 2, c->px, c->py, NULL, c->vx, c->vy, NULL, NULL};
  return a;
}

static userloop_crowd userloop_of(crowd *c) {
  userloop_crowd u = {N, c->px, c->py, c->vx, c->vy};
  return u;
}

typedef crowdsteer_status (*targeted_call)(const crowdsteer_agents *,
                                           const crowdsteer_target *,
                                           const crowdsteer_params *,
                                           const crowdsteer_output *, size_t, size_t);

static const struct {
  const char *name;
  userloop_behaviour behaviour;
  targeted_call call;
} behaviours[] = {
    {"seek", USERLOOP_SEEK, crowdsteer_seek},
    {"flee", USERLOOP_FLEE, crowdsteer_flee},
    {"arrive", USERLOOP_ARRIVE, crowdsteer_arrive},
    {"leave", USERLOOP_LEAVE, crowdsteer_leave},
    {"pursuit", USERLOOP_PURSUIT, crowdsteer_pursuit},
    {"evade", USERLOOP_EVADE, crowdsteer_evade},
};

static const struct {
  const char *name;
  userloop_form form;
  crowdsteer_target_kind kind;
} forms[] = {
    {"point", USERLOOP_POINT, CROWDSTEER_TARGET_POINT},
    {"arrays", USERLOOP_ARRAYS, CROWDSTEER_TARGET_ARRAYS},
    {"agents", USERLOOP_AGENTS, CROWDSTEER_TARGET_AGENTS},
    {"agent", USERLOOP_AGENT, CROWDSTEER_TARGET_AGENT},
};

/* The same game constants for both: crowdsteer's fields with its defaults
 * (time to target and mass 1, no force limit) and the userloop's values. */
typedef struct setting {
  crowdsteer_params params;
  userloop_params user;
} setting;

static setting make_setting(float max_speed, float dt, float panic_radius,
                            float max_prediction) {
  setting s;
  memset(&s, 0, sizeof s);
  crowdsteer_params *p = &s.params;
  p->max_speed = max_speed;
  p->dt = dt;
  p->target_radius = 1.0f;
  p->slowing_radius = 50.0f;
  p->panic_radius = panic_radius;
  p->danger_radius = 60.0f;
  p->escape_radius = 20.0f;
  p->max_prediction = max_prediction;
  p->wander_radius = 1.0f;
  p->wander_distance = 2.0f;
  p->jitter = 0.1f;
  s.user = (userloop_params){
      max_speed,    dt,    1.0f,  50.0f,
      panic_radius, 60.0f, 20.0f, max_prediction > 0 ? max_prediction : FLT_MAX,
      1.0f,         2.0f,  0.1f};
  return s;
}

static void check_targeted(const setting *s, int b, int f) {
  static crowd ref, mine;
  static float rsx[N], rsy[N], usx[N], usy[N];
  char what[96];
  make_crowd(&ref, 7u + (uint32_t)(b * 4 + f));
  mine = ref;
  crowdsteer_target target;
  memset(&target, 0, sizeof target);
  target.kind = forms[f].kind;
  target.point_velocity[0] = 0.5f;
  target.point_velocity[1] = -0.25f;
  target.position = (crowdsteer_vectors){tpx, tpy, NULL};
  target.velocity = (crowdsteer_vectors){tvx, tvy, NULL};
  target.index = index_of;
  target.agent = N / 2;
  userloop_target user = {0.0f, 0.0f, 0.5f, -0.25f, tpx, tpy, tvx, tvy, index_of, N / 2};
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = (crowdsteer_vectors){rsx, rsy, NULL};
  crowdsteer_agents agents = agents_of(&ref);
  userloop_crowd crowd_user = userloop_of(&mine);
  userloop_wander no_wander = {NULL, NULL, 0, 0};

  if (behaviours[b].call(&agents, &target, &s->params, &out, 0, N) != CROWDSTEER_OK) {
    printf("FAIL %s: the reference call failed\n", behaviours[b].name);
    failures++;
    return;
  }
  userloop_steer(behaviours[b].behaviour, forms[f].form, &crowd_user, &user, &no_wander,
                 &s->user, usx, usy);
  snprintf(what, sizeof what, "%s/%s steering x", behaviours[b].name, forms[f].name);
  expect_bits(what, usx, rsx);
  snprintf(what, sizeof what, "%s/%s steering y", behaviours[b].name, forms[f].name);
  expect_bits(what, usy, rsy);

  /* A step: the behaviour, then the integrator. */
  crowdsteer_vectors steering = {rsx, rsy, NULL};
  crowdsteer_integrate(&agents, &steering, &s->params, 0, N);
  userloop_steer_step(behaviours[b].behaviour, forms[f].form, &crowd_user, &user,
                      &no_wander, &s->user, usx, usy);
  snprintf(what, sizeof what, "%s/%s step", behaviours[b].name, forms[f].name);
  expect_state(what, &mine, &ref);
}

static void check_wander(const setting *s) {
  static crowd ref, mine;
  static float rsx[N], rsy[N], usx[N], usy[N];
  make_crowd(&ref, 99u);
  mine = ref;
  crowdsteer_wander_state state = {{ref.wx, ref.wy, NULL}, 0x12345u, 17u};
  userloop_wander user = {mine.wx, mine.wy, 0x12345u, 17u};
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = (crowdsteer_vectors){rsx, rsy, NULL};
  crowdsteer_agents agents = agents_of(&ref);
  userloop_crowd crowd_user = userloop_of(&mine);
  crowdsteer_wander(&agents, &state, &s->params, &out, 0, N);
  userloop_steer(USERLOOP_WANDER, USERLOOP_POINT, &crowd_user, NULL, &user, &s->user, usx,
                 usy);
  expect_bits("wander steering x", usx, rsx);
  expect_bits("wander steering y", usy, rsy);
  expect_state("wander direction", &mine, &ref);

  crowdsteer_vectors steering = {rsx, rsy, NULL};
  crowdsteer_integrate(&agents, &steering, &s->params, 0, N);
  userloop_integrate(&crowd_user, usx, usy, &s->user);
  expect_state("integrate", &mine, &ref);

  state.tick = user.tick = 18u;
  crowdsteer_wander(&agents, &state, &s->params, &out, 0, N);
  crowdsteer_integrate(&agents, &steering, &s->params, 0, N);
  userloop_steer_step(USERLOOP_WANDER, USERLOOP_POINT, &crowd_user, NULL, &user, &s->user,
                      usx, usy);
  expect_state("wander step", &mine, &ref);
}

/* The benchmarks' mixed3_fused: seek the origin, flee (30, 0) at weight
 * 0.75, wander at weight 0.5, one crowdsteer_step in place. */
static void check_mixed3(const setting *s) {
  static crowd ref, mine;
  make_crowd(&ref, 123u);
  mine = ref;
  crowdsteer_wander_state state = {{ref.wx, ref.wy, NULL}, 0x12345u, 3u};
  userloop_wander user = {mine.wx, mine.wy, 0x12345u, 3u};
  crowdsteer_step_behaviour steps[3];
  memset(steps, 0, sizeof steps);
  const crowdsteer_behaviour kinds[3] = {CROWDSTEER_SEEK, CROWDSTEER_FLEE,
                                         CROWDSTEER_WANDER};
  for (int b = 0; b < 3; b++) {
    steps[b].behaviour = kinds[b];
    steps[b].params = s->params;
    steps[b].wander = &state;
  }
  steps[1].target.point[0] = 30.0f;
  steps[1].weight = 0.75f;
  steps[2].weight = 0.5f;
  crowdsteer_step_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.behaviours = steps;
  desc.behaviour_count = 3;
  desc.combine = CROWDSTEER_BLEND;
  desc.integrator = s->params;
  desc.threads = 1;
  crowdsteer_agents agents = agents_of(&ref);
  if (crowdsteer_step(&agents, &desc, 0, N) != CROWDSTEER_OK) {
    printf("FAIL mixed3: crowdsteer_step failed\n");
    failures++;
    return;
  }
  userloop_crowd crowd_user = userloop_of(&mine);
  const userloop_mix mix = {0.0f, 0.0f, 30.0f, 0.0f, 1.0f, 0.75f, 0.5f};
  userloop_mixed3(&crowd_user, &user, &mix, &s->user);
  expect_state("mixed3 step", &mine, &ref);
}

int main(void) {
  if (crowdsteer_force_isa(CROWDSTEER_ISA_SCALAR) != CROWDSTEER_OK) return 1;
  /* The benchmarks' constants, then fast agents, a short panic radius and
   * a capped look-ahead. */
  const setting settings[2] = {make_setting(2.0f, 1.0f / 60.0f, 60.0f, 0.0f),
                               make_setting(5.0f, 0.5f, 25.0f, 3.0f)};
  int checks = 0;
  for (int k = 0; k < 2; k++) {
    for (int b = 0; b < (int)(sizeof behaviours / sizeof behaviours[0]); b++)
      for (int f = 0; f < (int)(sizeof forms / sizeof forms[0]); f++, checks++)
        check_targeted(&settings[k], b, f);
    check_wander(&settings[k]);
    check_mixed3(&settings[k]);
    checks += 2;
  }
  if (failures) return 1;
  printf("userloop: %d checks, every bit of the scalar reference's\n", checks);
  return 0;
}
