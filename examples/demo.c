/* crowdsteer-demo: steps a crowd of about a million agents split into groups
 * (one per behaviour), reports throughput per behaviour and physics sanity. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crowdsteer.h"

#ifdef CROWDSTEER_DEMO_PICTURES
#include "pictures.h"
#endif

/* ---- options -------------------------------------------------------------- */

enum { EXIT_USAGE = 2 };

enum group_id {
  GROUP_SEEK,
  GROUP_ARRIVE,
  GROUP_FLEE,
  GROUP_LEAVE,
  GROUP_PURSUIT,
  GROUP_EVADE,
  GROUP_WANDER,
  GROUP_COUNT
};

static const char *const group_names[GROUP_COUNT] = {
    "seek", "arrive", "flee", "leave", "pursuit", "evade", "wander"};

/* Agents 0 and 1 are moved by the demo itself (never by a behaviour), so
 * pursuers and evaders have moving agents to target by index. */
enum { QUARRY_AGENT = 0, HUNTER_AGENT = 1, DRIVEN_AGENTS = 2 };

typedef struct demo_options {
  size_t agents;
  unsigned steps;
  int dims;
  int only_group; /* a group_id, or -1 for every behaviour */
  const char *isa_name;
  uint32_t seed;
  const char *pictures_dir;
} demo_options;

static void print_usage(FILE *to) {
  fprintf(
      to,
      "usage: crowdsteer-demo [options]\n"
      "  --agents N        agents in the batch (default 1048576, at least %d)\n"
      "  --steps N         simulation steps (default 200)\n"
      "  --behaviour NAME  seek, arrive, flee, leave, pursuit, evade, wander\n"
      "                    or all (default: all, one group each)\n"
      "  --dims 2|3        2D or 3D (default 2)\n"
      "  --isa NAME        force scalar, sse4, avx2, avx512 or neon\n"
      "                    (default: the best this machine runs, or $CROWDSTEER_ISA)\n"
      "  --seed N          seed of the start positions and of wander (default 1)\n"
      "  --pictures DIR    write PNG pictures of the behaviours into DIR and exit\n"
      "  --help            this text\n"
      "Exit status: 0 ok, 1 a call failed or the state holds NaN/inf, 2 bad usage.\n",
      DRIVEN_AGENTS + GROUP_COUNT);
}

/* Parses a whole decimal number in [min, max]; no sign, no trailing text. */
static int parse_count(const char *text, unsigned long long min, unsigned long long max,
                       unsigned long long *value) {
  if (!text || *text < '0' || *text > '9') return 0;
  char *end = NULL;
  unsigned long long v = strtoull(text, &end, 10);
  if (*end != '\0' || v < min || v > max) return 0;
  *value = v;
  return 1;
}

static int usage_error(const char *what, const char *value) {
  fprintf(stderr, "crowdsteer-demo: %s%s%s\n", what, value ? ": " : "",
          value ? value : "");
  print_usage(stderr);
  return EXIT_USAGE;
}

/* Returns -1 when the options are fine, else the exit code to leave with. */
static int parse_options(int argc, char **argv, demo_options *opts) {
  *opts = (demo_options){
      .agents = 1048576, .steps = 200, .dims = 2, .only_group = -1, .seed = 1};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      print_usage(stdout);
      return 0;
    }
    /* Every other option takes a value, as "--opt VALUE" or "--opt=VALUE". */
    char name[32];
    const char *value = NULL;
    const char *equals = strchr(arg, '=');
    size_t name_length = equals ? (size_t)(equals - arg) : strlen(arg);
    if (strncmp(arg, "--", 2) != 0 || name_length >= sizeof name)
      return usage_error("unknown option", arg);
    memcpy(name, arg, name_length);
    name[name_length] = '\0';
    if (equals)
      value = equals + 1;
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return usage_error("missing value for", name);

    unsigned long long number = 0;
    if (strcmp(name, "--agents") == 0) {
      /* Target indices are 32-bit, so a batch holds at most 2^32 - 1 agents. */
      if (!parse_count(value, DRIVEN_AGENTS + GROUP_COUNT, UINT32_MAX, &number))
        return usage_error("--agents needs a whole number from 9 to 4294967295", value);
      opts->agents = (size_t)number;
    } else if (strcmp(name, "--steps") == 0) {
      if (!parse_count(value, 1, 100000000, &number))
        return usage_error("--steps needs a whole number from 1 to 100000000", value);
      opts->steps = (unsigned)number;
    } else if (strcmp(name, "--dims") == 0) {
      if (!parse_count(value, 2, 3, &number))
        return usage_error("--dims must be 2 or 3", value);
      opts->dims = (int)number;
    } else if (strcmp(name, "--seed") == 0) {
      if (!parse_count(value, 0, UINT32_MAX, &number))
        return usage_error("--seed needs a whole number from 0 to 4294967295", value);
      opts->seed = (uint32_t)number;
    } else if (strcmp(name, "--behaviour") == 0 || strcmp(name, "--behavior") == 0) {
      opts->only_group = -2;
      if (strcmp(value, "all") == 0) opts->only_group = -1;
      for (int g = 0; g < GROUP_COUNT; g++)
        if (strcmp(value, group_names[g]) == 0) opts->only_group = g;
      if (opts->only_group == -2) return usage_error("unknown behaviour", value);
    } else if (strcmp(name, "--isa") == 0) {
      opts->isa_name = value;
    } else if (strcmp(name, "--pictures") == 0) {
      opts->pictures_dir = value;
    } else {
      return usage_error("unknown option", name);
    }
  }
  return -1;
}

/* ---- the scenario: one batch, contiguous groups ---------------------------- */

typedef struct group {
  size_t begin, end; /* the group's agents: [begin, end) of the batch */
  crowdsteer_target target;
  crowdsteer_params params;
  double behaviour_seconds, integrate_seconds;
} group;

/* Where the moving targets are at a given step; a pure function of the step
 * so setup, stepping and reporting all agree. */
typedef struct markers {
  float beacon[3], threat[3];          /* seek's point, flee/leave's point */
  float quarry[3], quarry_velocity[3]; /* pursued by index */
  float hunter[3], hunter_velocity[3]; /* evaded by index */
} markers;

typedef struct scenario {
  demo_options opts;
  crowdsteer_agents agents;
  crowdsteer_vectors steering;
  crowdsteer_vectors spot; /* arrivers' own targets, one per agent */
  float *max_speed;        /* per-agent top speeds of seekers and arrivers */
  uint32_t *target_agent;  /* pursuers' quarry, evaders' hunter */
  crowdsteer_wander_state wander;
  group groups[GROUP_COUNT];
  unsigned step; /* steps taken so far */
  markers now;
} scenario;

/* Scenario constants, in the per-step units of the default integrator
 * (dt = 1): a speed is distance per step. */
#define WORLD_HALF_SIZE 100.0f /* agents start in [-100, 100] per axis */
#define ARRIVE_START_SPREAD 40.0f
#define ARRIVE_SLOWING_RADIUS 5.0f
#define ARRIVE_TARGET_RADIUS 0.005f
#define AT_REST_TOLERANCE 0.01
#define LEAVE_DANGER_RADIUS 40.0f
#define LEAVE_ESCAPE_RADIUS 10.0f
#define EVADE_PANIC_RADIUS 25.0f

/* A point moving on a circle in the xy plane, with its velocity per step. */
static void on_circle(float centre_x, float centre_y, double radius,
                      double radians_per_step, unsigned step, float position[3],
                      float velocity[3]) {
  double angle = radians_per_step * step;
  position[0] = (float)(centre_x + radius * cos(angle));
  position[1] = (float)(centre_y + radius * sin(angle));
  position[2] = 0.0f;
  velocity[0] = (float)(-radius * radians_per_step * sin(angle));
  velocity[1] = (float)(radius * radians_per_step * cos(angle));
  velocity[2] = 0.0f;
}

static markers markers_at(unsigned step) {
  markers m;
  float unused[3];
  on_circle(0.0f, 0.0f, 60.0, 0.01, step, m.beacon, unused); /* 0.6 per step */
  on_circle(0.0f, 0.0f, 80.0, 0.006, step, m.quarry, m.quarry_velocity);     /* 0.48 */
  on_circle(20.0f, -10.0f, 50.0, -0.008, step, m.hunter, m.hunter_velocity); /* 0.4 */
  /* The threat crosses the world along x at 0.3 per step. */
  m.threat[0] = -50.0f + 0.3f * (float)step;
  m.threat[1] = 10.0f;
  m.threat[2] = 0.0f;
  return m;
}

/* Puts the demo-driven agents and point targets where they are at sc->step. */
static void place_markers(scenario *sc) {
  sc->now = markers_at(sc->step);
  const crowdsteer_agents *a = &sc->agents;
  const int dims = sc->opts.dims;
  float *const pos[3] = {a->px, a->py, a->pz}, *const vel[3] = {a->vx, a->vy, a->vz};
  for (int k = 0; k < dims; k++) {
    pos[k][QUARRY_AGENT] = sc->now.quarry[k];
    vel[k][QUARRY_AGENT] = sc->now.quarry_velocity[k];
    pos[k][HUNTER_AGENT] = sc->now.hunter[k];
    vel[k][HUNTER_AGENT] = sc->now.hunter_velocity[k];
  }
  memcpy(sc->groups[GROUP_SEEK].target.point, sc->now.beacon, sizeof sc->now.beacon);
  memcpy(sc->groups[GROUP_FLEE].target.point, sc->now.threat, sizeof sc->now.threat);
  memcpy(sc->groups[GROUP_LEAVE].target.point, sc->now.threat, sizeof sc->now.threat);
}

static void scenario_free(scenario *sc) {
  float *arrays[] = {sc->agents.px,
                     sc->agents.py,
                     sc->agents.pz,
                     sc->agents.vx,
                     sc->agents.vy,
                     sc->agents.vz,
                     sc->steering.x,
                     sc->steering.y,
                     sc->steering.z,
                     sc->spot.x,
                     sc->spot.y,
                     sc->spot.z,
                     sc->wander.direction.x,
                     sc->wander.direction.y,
                     sc->wander.direction.z,
                     sc->max_speed};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    free(arrays[i]);
  free(sc->target_agent);
}

/* Random numbers for the start state come from the library's own
 * counter-based generator, on streams (its `tick` argument) of their own. */
enum { STREAM_POSITION = 0x51A7u, STREAM_SPEED = 0x5BEEu };

static float uniform_pm1(const scenario *sc, size_t agent, uint32_t stream,
                         uint32_t axis) {
  return crowdsteer_random(sc->opts.seed, (uint32_t)agent, stream, axis);
}

/* Agent i's spot on a square (cubic) grid filling the world, for arrivers. */
static void grid_spot(size_t rank, size_t side, int dims, float spot[3]) {
  float spacing = 2.0f * WORLD_HALF_SIZE / (float)side;
  size_t cell = rank;
  for (int k = 0; k < dims; k++) {
    spot[k] = -WORLD_HALF_SIZE + spacing * ((float)(cell % side) + 0.5f);
    cell /= side;
  }
}

/* Allocates the batch and sets up every group; 0 on success. */
static int scenario_setup(scenario *sc, const demo_options *opts) {
  memset(sc, 0, sizeof *sc);
  sc->opts = *opts;
  const size_t n = opts->agents;
  const int dims = opts->dims;
  sc->agents.count = n;
  sc->agents.dims = dims;

  /* calloc checks n * size for overflow; 2D leaves every z array NULL. */
  float **arrays[] = {&sc->agents.px,
                      &sc->agents.py,
                      &sc->agents.pz,
                      &sc->agents.vx,
                      &sc->agents.vy,
                      &sc->agents.vz,
                      &sc->steering.x,
                      &sc->steering.y,
                      &sc->steering.z,
                      &sc->spot.x,
                      &sc->spot.y,
                      &sc->spot.z,
                      &sc->wander.direction.x,
                      &sc->wander.direction.y,
                      &sc->wander.direction.z,
                      &sc->max_speed};
  int failed = 0;
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
    int is_z_axis = i < 15 && i % 3 == 2;
    if (is_z_axis && dims == 2) continue;
    *arrays[i] = calloc(n, sizeof(float));
    failed |= *arrays[i] == NULL;
  }
  sc->target_agent = calloc(n, sizeof(uint32_t));
  if (failed || !sc->target_agent) {
    fprintf(stderr, "crowdsteer-demo: out of memory for %zu agents\n", n);
    scenario_free(sc);
    return 1;
  }

  /* Contiguous groups: all behaviours share the batch evenly, or one
   * behaviour takes every steered agent. */
  const size_t steered = n - DRIVEN_AGENTS;
  for (int g = 0; g < GROUP_COUNT; g++) {
    group *gr = &sc->groups[g];
    if (opts->only_group < 0) {
      gr->begin = DRIVEN_AGENTS + steered * (size_t)g / GROUP_COUNT;
      gr->end = DRIVEN_AGENTS + steered * (size_t)(g + 1) / GROUP_COUNT;
    } else if (opts->only_group == g) {
      gr->begin = DRIVEN_AGENTS;
      gr->end = n;
    } else {
      gr->begin = gr->end = n; /* empty */
    }
  }

  /* Everyone starts at rest, scattered over the world. */
  float *const pos[3] = {sc->agents.px, sc->agents.py, sc->agents.pz};
  for (size_t i = DRIVEN_AGENTS; i < n; i++)
    for (int k = 0; k < dims; k++)
      pos[k][i] = WORLD_HALF_SIZE * uniform_pm1(sc, i, STREAM_POSITION, (uint32_t)k);

  /* Heterogeneous top speeds for seekers and arrivers, 0.75 to 1.5. */
  for (size_t i = 0; i < n; i++)
    sc->max_speed[i] = 1.125f + 0.375f * uniform_pm1(sc, i, STREAM_SPEED, 0);

  group *seek = &sc->groups[GROUP_SEEK];
  seek->target.kind = CROWDSTEER_TARGET_POINT;
  seek->params.max_speed_per_agent = sc->max_speed;
  seek->params.max_force = 0.25f; /* they curve after the beacon */

  /* Arrivers: each has its own spot on a grid and starts near it. */
  group *arrive = &sc->groups[GROUP_ARRIVE];
  arrive->target.kind = CROWDSTEER_TARGET_ARRAYS;
  arrive->target.position = sc->spot;
  arrive->params.max_speed_per_agent = sc->max_speed;
  arrive->params.slowing_radius = ARRIVE_SLOWING_RADIUS;
  arrive->params.target_radius = ARRIVE_TARGET_RADIUS;
  size_t arrivers = arrive->end - arrive->begin, side = 1;
  while ((dims == 2 ? side * side : side * side * side) < arrivers)
    side++;
  float *const spot[3] = {sc->spot.x, sc->spot.y, sc->spot.z};
  for (size_t i = arrive->begin; i < arrive->end; i++) {
    float s[3];
    grid_spot(i - arrive->begin, side, dims, s);
    for (int k = 0; k < dims; k++) {
      spot[k][i] = s[k];
      pos[k][i] =
          s[k] + ARRIVE_START_SPREAD * uniform_pm1(sc, i, STREAM_POSITION, (uint32_t)k);
    }
  }

  group *flee = &sc->groups[GROUP_FLEE];
  flee->target.kind = CROWDSTEER_TARGET_POINT; /* panic_radius default: +inf */

  group *leave = &sc->groups[GROUP_LEAVE];
  leave->target.kind = CROWDSTEER_TARGET_POINT;
  leave->params.danger_radius = LEAVE_DANGER_RADIUS;
  leave->params.escape_radius = LEAVE_ESCAPE_RADIUS;

  group *pursuit = &sc->groups[GROUP_PURSUIT];
  pursuit->target.kind = CROWDSTEER_TARGET_AGENTS;
  pursuit->target.index = sc->target_agent;
  pursuit->params.max_prediction = 20.0f;
  for (size_t i = pursuit->begin; i < pursuit->end; i++)
    sc->target_agent[i] = QUARRY_AGENT;

  group *evade = &sc->groups[GROUP_EVADE];
  evade->target.kind = CROWDSTEER_TARGET_AGENTS;
  evade->target.index = sc->target_agent;
  evade->params.max_speed = 0.9f;
  evade->params.panic_radius = EVADE_PANIC_RADIUS;
  evade->params.max_prediction = 20.0f;
  for (size_t i = evade->begin; i < evade->end; i++)
    sc->target_agent[i] = HUNTER_AGENT;

  /* Wanderers: a gentle force limit so the random walk turns smoothly. */
  group *wander = &sc->groups[GROUP_WANDER];
  wander->params.wander_radius = 0.5f;
  wander->params.wander_distance = 1.0f;
  wander->params.jitter = 0.3f;
  wander->params.max_force = 0.1f;
  sc->wander.seed = opts->seed;

  place_markers(sc);
  return 0;
}

/* ---- stepping -------------------------------------------------------------- */

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static crowdsteer_status run_behaviour(scenario *sc, int g) {
  const group *gr = &sc->groups[g];
  const crowdsteer_output out = {.steering = sc->steering};
  switch (g) {
  case GROUP_SEEK:
    return crowdsteer_seek(&sc->agents, &gr->target, &gr->params, &out, gr->begin,
                           gr->end);
  case GROUP_ARRIVE:
    return crowdsteer_arrive(&sc->agents, &gr->target, &gr->params, &out, gr->begin,
                             gr->end);
  case GROUP_FLEE:
    return crowdsteer_flee(&sc->agents, &gr->target, &gr->params, &out, gr->begin,
                           gr->end);
  case GROUP_LEAVE:
    return crowdsteer_leave(&sc->agents, &gr->target, &gr->params, &out, gr->begin,
                            gr->end);
  case GROUP_PURSUIT:
    return crowdsteer_pursuit(&sc->agents, &gr->target, &gr->params, &out, gr->begin,
                              gr->end);
  case GROUP_EVADE:
    return crowdsteer_evade(&sc->agents, &gr->target, &gr->params, &out, gr->begin,
                            gr->end);
  default:
    return crowdsteer_wander(&sc->agents, &sc->wander, &gr->params, &out, gr->begin,
                             gr->end);
  }
}

/* One simulation step, behaviour by behaviour: each group's behaviour, then
 * the integrator on that group's range, each call timed on its own. The
 * setup and the report do not depend on how this step is computed. */
static crowdsteer_status scenario_step(scenario *sc) {
  for (int g = 0; g < GROUP_COUNT; g++) {
    group *gr = &sc->groups[g];
    if (gr->begin == gr->end) continue;
    double start = seconds_now();
    crowdsteer_status status = run_behaviour(sc, g);
    double steered = seconds_now();
    if (status == CROWDSTEER_OK)
      status = crowdsteer_integrate(&sc->agents, &sc->steering, &gr->params, gr->begin,
                                    gr->end);
    double moved = seconds_now();
    if (status != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer-demo: %s failed at step %u: %s\n", group_names[g],
              sc->step, crowdsteer_status_string(status));
      return status;
    }
    gr->behaviour_seconds += steered - start;
    gr->integrate_seconds += moved - steered;
  }
  sc->wander.tick++; /* fresh wander randomness next step */
  sc->step++;
  place_markers(sc);
  return CROWDSTEER_OK;
}

/* ---- sanity figures -------------------------------------------------------- */

typedef struct figures {
  double mean_distance[GROUP_COUNT]; /* to each group's target or threat */
  size_t arrivers_at_rest;
  size_t leavers_inside_escape, evaders_inside_panic;
  double wander_mean_speed, wander_top_speed;
  size_t non_finite; /* NaN or inf anywhere in the state */
} figures;

static double distance_to(const scenario *sc, size_t i, const float target[3]) {
  const crowdsteer_agents *a = &sc->agents;
  double dx = a->px[i] - target[0], dy = a->py[i] - target[1];
  double dz = sc->opts.dims == 3 ? a->pz[i] - target[2] : 0.0;
  return sqrt(dx * dx + dy * dy + dz * dz);
}

static double speed_of(const scenario *sc, size_t i) {
  const crowdsteer_agents *a = &sc->agents;
  double vz = sc->opts.dims == 3 ? a->vz[i] : 0.0;
  return sqrt((double)a->vx[i] * a->vx[i] + (double)a->vy[i] * a->vy[i] + vz * vz);
}

/* The target each group is measured against, as it is now. */
static const float *measured_target(const scenario *sc, int g, size_t i, float own[3]) {
  switch (g) {
  case GROUP_SEEK: return sc->now.beacon;
  case GROUP_FLEE:
  case GROUP_LEAVE: return sc->now.threat;
  case GROUP_PURSUIT: return sc->now.quarry;
  case GROUP_EVADE: return sc->now.hunter;
  case GROUP_ARRIVE:
    own[0] = sc->spot.x[i];
    own[1] = sc->spot.y[i];
    own[2] = sc->opts.dims == 3 ? sc->spot.z[i] : 0.0f;
    return own;
  default: return NULL;
  }
}

static size_t count_non_finite(const float *a, size_t n) {
  size_t bad = 0;
  if (a)
    for (size_t i = 0; i < n; i++)
      bad += !isfinite(a[i]);
  return bad;
}

static figures measure(const scenario *sc) {
  figures f;
  memset(&f, 0, sizeof f);
  for (int g = 0; g < GROUP_COUNT; g++) {
    const group *gr = &sc->groups[g];
    double sum = 0.0;
    for (size_t i = gr->begin; i < gr->end; i++) {
      float own[3];
      const float *target = measured_target(sc, g, i, own);
      double distance = target ? distance_to(sc, i, target) : 0.0;
      double speed = speed_of(sc, i);
      sum += distance;
      if (g == GROUP_ARRIVE)
        f.arrivers_at_rest += distance < AT_REST_TOLERANCE && speed < AT_REST_TOLERANCE;
      if (g == GROUP_LEAVE) f.leavers_inside_escape += distance < LEAVE_ESCAPE_RADIUS;
      if (g == GROUP_EVADE) f.evaders_inside_panic += distance < EVADE_PANIC_RADIUS;
      if (g == GROUP_WANDER) {
        f.wander_mean_speed += speed;
        if (speed > f.wander_top_speed) f.wander_top_speed = speed;
      }
    }
    size_t members = gr->end - gr->begin;
    if (members) f.mean_distance[g] = sum / (double)members;
    if (g == GROUP_WANDER && members) f.wander_mean_speed /= (double)members;
  }
  const float *state[] = {
      sc->agents.px,          sc->agents.py,          sc->agents.pz,
      sc->agents.vx,          sc->agents.vy,          sc->agents.vz,
      sc->steering.x,         sc->steering.y,         sc->steering.z,
      sc->wander.direction.x, sc->wander.direction.y, sc->wander.direction.z};
  for (size_t k = 0; k < sizeof state / sizeof state[0]; k++)
    f.non_finite += count_non_finite(state[k], sc->agents.count);
  return f;
}

/* ---- report ---------------------------------------------------------------- */

static void report_throughput(const scenario *sc, double wall_seconds) {
  const unsigned steps = sc->step;
  double total_seconds = 0.0, agent_steps = 0.0;
  printf("\n%-8s %10s %18s %18s\n", "group", "agents", "behaviour Magent/s",
         "integrate Magent/s");
  for (int g = 0; g < GROUP_COUNT; g++) {
    const group *gr = &sc->groups[g];
    size_t members = gr->end - gr->begin;
    if (!members) continue;
    double work = (double)members * steps;
    printf("%-8s %10zu %18.1f %18.1f\n", group_names[g], members,
           work / gr->behaviour_seconds * 1e-6, work / gr->integrate_seconds * 1e-6);
    total_seconds += gr->behaviour_seconds + gr->integrate_seconds;
    agent_steps += work;
  }
  printf("total: %.0f agent-steps in %.2f s of library calls = %.1f M agent-steps/s "
         "(behaviour + integrate); %.2f s wall for the whole loop\n",
         agent_steps, total_seconds, agent_steps / total_seconds * 1e-6, wall_seconds);
}

static int report_sanity(const scenario *sc, const figures *start, const figures *end) {
  const group *g = sc->groups;
  printf("\nsanity (start -> end of the run):\n");
  if (g[GROUP_SEEK].end > g[GROUP_SEEK].begin)
    printf("  seek    mean distance to the moving beacon   %9.2f -> %9.2f\n",
           start->mean_distance[GROUP_SEEK], end->mean_distance[GROUP_SEEK]);
  if (g[GROUP_ARRIVE].end > g[GROUP_ARRIVE].begin)
    printf("  arrive  at rest on their own grid spot       %zu of %zu "
           "(distance and speed < %g; mean distance %.3g -> %.3g)\n",
           end->arrivers_at_rest, g[GROUP_ARRIVE].end - g[GROUP_ARRIVE].begin,
           AT_REST_TOLERANCE, start->mean_distance[GROUP_ARRIVE],
           end->mean_distance[GROUP_ARRIVE]);
  if (g[GROUP_FLEE].end > g[GROUP_FLEE].begin)
    printf("  flee    mean distance from the threat        %9.2f -> %9.2f\n",
           start->mean_distance[GROUP_FLEE], end->mean_distance[GROUP_FLEE]);
  if (g[GROUP_LEAVE].end > g[GROUP_LEAVE].begin)
    printf("  leave   mean distance from the threat        %9.2f -> %9.2f "
           "(inside escape radius %g: %zu -> %zu)\n",
           start->mean_distance[GROUP_LEAVE], end->mean_distance[GROUP_LEAVE],
           LEAVE_ESCAPE_RADIUS, start->leavers_inside_escape, end->leavers_inside_escape);
  if (g[GROUP_PURSUIT].end > g[GROUP_PURSUIT].begin)
    printf("  pursuit mean distance to the quarry          %9.2f -> %9.2f\n",
           start->mean_distance[GROUP_PURSUIT], end->mean_distance[GROUP_PURSUIT]);
  if (g[GROUP_EVADE].end > g[GROUP_EVADE].begin)
    printf("  evade   mean distance from the hunter        %9.2f -> %9.2f "
           "(inside panic radius %g: %zu -> %zu)\n",
           start->mean_distance[GROUP_EVADE], end->mean_distance[GROUP_EVADE],
           EVADE_PANIC_RADIUS, start->evaders_inside_panic, end->evaders_inside_panic);
  if (g[GROUP_WANDER].end > g[GROUP_WANDER].begin)
    printf("  wander  mean speed %.4f, top speed %.4f, max_speed 1\n",
           end->wander_mean_speed, end->wander_top_speed);
  printf("  NaN/inf values in the state: %zu\n", end->non_finite);
  return end->non_finite == 0 ? 0 : 1;
}

/* ---- main ------------------------------------------------------------------ */

static int choose_isa(const char *name) {
  if (!name) return 0;
  crowdsteer_isa isa;
  if (crowdsteer_isa_from_name(name, &isa) != CROWDSTEER_OK) {
    fprintf(stderr,
            "crowdsteer-demo: unknown ISA '%s' (scalar, sse4, avx2, avx512, neon)\n",
            name);
    return EXIT_USAGE;
  }
  crowdsteer_status status = crowdsteer_force_isa(isa);
  if (status != CROWDSTEER_OK) {
    fprintf(stderr, "crowdsteer-demo: cannot use ISA '%s': %s\n", name,
            crowdsteer_status_string(status));
    return EXIT_USAGE;
  }
  return 0;
}

static void print_supported_isas(void) {
  printf("ISA: %s (this build and CPU support:",
         crowdsteer_isa_name(crowdsteer_active_isa()));
  for (int isa = 0; isa < CROWDSTEER_ISA_COUNT; isa++)
    if (crowdsteer_isa_supported((crowdsteer_isa)isa))
      printf(" %s", crowdsteer_isa_name((crowdsteer_isa)isa));
  printf(")\n");
}

int main(int argc, char **argv) {
  demo_options opts;
  int exit_code = parse_options(argc, argv, &opts);
  if (exit_code >= 0) return exit_code;

  if (opts.pictures_dir) {
#ifdef CROWDSTEER_DEMO_PICTURES
    return demo_write_pictures(opts.pictures_dir) == 0 ? 0 : 1;
#else
    fprintf(stderr, "crowdsteer-demo: --pictures: this build has no PNG support "
                    "(examples/pictures.cmake was not found)\n");
    return EXIT_USAGE;
#endif
  }
  exit_code = choose_isa(opts.isa_name);
  if (exit_code) return exit_code;

  scenario sc;
  if (scenario_setup(&sc, &opts) != 0) return 1;
  printf("crowdsteer %s demo: %zu agents (%d driven by the demo), %dD, %u steps, seed "
         "%" PRIu32 "\n",
         crowdsteer_version_string(), opts.agents, DRIVEN_AGENTS, opts.dims, opts.steps,
         opts.seed);
  print_supported_isas();
  fflush(stdout);

  figures start = measure(&sc);
  double loop_start = seconds_now();
  crowdsteer_status status = CROWDSTEER_OK;
  for (unsigned s = 0; s < opts.steps && status == CROWDSTEER_OK; s++)
    status = scenario_step(&sc);
  double wall = seconds_now() - loop_start;
  if (status != CROWDSTEER_OK) {
    scenario_free(&sc);
    return 1;
  }
  figures end = measure(&sc);
  report_throughput(&sc, wall);
  exit_code = report_sanity(&sc, &start, &end);
  scenario_free(&sc);
  return exit_code;
}
