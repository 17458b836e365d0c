/* crowdsteer-scenarios: examples/scenarios.h's crowds (RVO2's Circle, Blocks
 * and Roadmap, RVO2-3D's Sphere, a dense random crowd) moved by crowdsteer's
 * ORCA, with bench/rvo2/rvo2_driver.cpp's loop, options and output line.
 *
 * One step, as RVO2's doStep: a grid of the state (cell = the scenario's
 * neighbour distance), crowdsteer_avoid from the preferred velocities, then
 * velocity = the new velocity and position += velocity * time step, in
 * float, which is RVO2's own update (Agent::update). Avoidance and the
 * update are separate, not crowdsteer_step's avoidance stage: a step's
 * integrator would turn the preferred velocity into steering and back (not
 * bit-exact), and its walls slide moves along edges where RVO2 moves freely.
 *
 * Usage: crowdsteer-scenarios --scenario NAME [--n N] [--seed S] [--cap STEPS]
 *          [--steps K] [--repeat R] [--metrics 0|1] [--threads T] [--isa NAME]
 *          [--margin F]
 * The options and the printed key=value line are the RVO2 driver's (see
 * bench/rvo2/README.md), plus threads (a pthread pool behind
 * crowdsteer_task_system for T > 1), isa, and crowded_agent_steps (agents
 * whose constraints had no common velocity, summed over the steps).
 * --margin F: avoid with the radius times 1 + F (overlaps still count the
 * scenario's radius): a clearance that keeps ORCA's contacts, exact only up
 * to rounding, from counting as overlaps; 0 (the default) is the scenario. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crowdsteer.h"
#include "scenario_figures.h"
#include "scenarios.h"
#include "task_pool.h"

typedef struct options {
  const char *name;
  size_t n, cap, timing_steps, repeats;
  uint64_t seed;
  int metrics, threads;
  const char *isa;
  float margin; /* avoid with radius * (1 + margin); overlaps use the radius */
} options;

/* The crowd's state and everything a step reuses. */
typedef struct sim {
  scn_scenario *s;
  size_t n;
  int dims;
  float *soa;      /* 9 arrays of n: position, velocity, new velocity */
  float *pref_soa; /* 3 arrays of n */
  crowdsteer_agents agents;
  crowdsteer_vectors pref, out;
  crowdsteer_grid *grid;
  crowdsteer_grid_desc grid_desc;
  crowdsteer_neighbours nb;
  crowdsteer_obstacles *obstacles;
  crowdsteer_avoidance avoidance;
  crowdsteer_params params;
  uint32_t *report;
} sim;

static double now(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(void) {
  fprintf(stderr, "usage: crowdsteer-scenarios --scenario NAME [--n N] [--seed S] "
                  "[--cap STEPS] [--steps K] [--repeat R] [--metrics 0|1] [--threads T] "
                  "[--isa NAME] [--margin F]\n");
  exit(2);
}

static options parse(int argc, char **argv) {
  options o = {NULL, 250, 20000, 0, 1, 1, -1, 1, NULL, 0.0f};
  for (int a = 1; a < argc; a++) {
    const char *opt = argv[a];
    if (a + 1 >= argc) usage();
    const char *val = argv[++a];
    if (!strcmp(opt, "--scenario"))
      o.name = val;
    else if (!strcmp(opt, "--n"))
      o.n = strtoull(val, NULL, 10);
    else if (!strcmp(opt, "--seed"))
      o.seed = strtoull(val, NULL, 10);
    else if (!strcmp(opt, "--cap"))
      o.cap = strtoull(val, NULL, 10);
    else if (!strcmp(opt, "--steps"))
      o.timing_steps = strtoull(val, NULL, 10);
    else if (!strcmp(opt, "--metrics"))
      o.metrics = atoi(val);
    else if (!strcmp(opt, "--repeat"))
      o.repeats = strtoull(val, NULL, 10);
    else if (!strcmp(opt, "--threads"))
      o.threads = atoi(val);
    else if (!strcmp(opt, "--isa"))
      o.isa = val;
    else if (!strcmp(opt, "--margin"))
      o.margin = strtof(val, NULL);
    else
      usage();
  }
  if (o.metrics < 0) o.metrics = o.timing_steps ? 0 : 1;
  if (!o.name || o.repeats < 1 || o.threads < 1 || !(o.margin >= 0.0f)) usage();
  return o;
}

static void fail(const char *what, crowdsteer_status status) {
  fprintf(stderr, "crowdsteer-scenarios: %s: %s\n", what,
          crowdsteer_status_string(status));
  exit(1);
}

/* The scenario's polygons as an obstacle set, once for every repeat. */
static void make_obstacles(sim *m) {
  const scn_scenario *s = m->s;
  crowdsteer_status st = crowdsteer_obstacles_create(&m->obstacles);
  for (size_t k = 0; st == CROWDSTEER_OK && k < s->num_obstacles; k++) {
    float x[64], y[64];
    const size_t first = s->obstacle_first[k], count = s->obstacle_first[k + 1] - first;
    if (count > 64) fail("obstacle of more than 64 vertices", CROWDSTEER_ERROR_PARAMETER);
    for (size_t v = 0; v < count; v++)
      x[v] = s->obstacle_xy[2 * (first + v)], y[v] = s->obstacle_xy[2 * (first + v) + 1];
    st = crowdsteer_obstacles_add(m->obstacles, x, y, count);
  }
  if (st == CROWDSTEER_OK) st = crowdsteer_obstacles_build(m->obstacles, 0.0f);
  if (st != CROWDSTEER_OK) fail("obstacles", st);
}

static void sim_init(sim *m, scn_scenario *s, const options *o, task_pool *pool) {
  memset(m, 0, sizeof *m);
  m->s = s;
  m->n = s->n;
  m->dims = s->dims;
  m->soa = calloc(9 * s->n, sizeof(float));
  m->pref_soa = calloc(3 * s->n, sizeof(float));
  m->report = calloc(s->n, sizeof(uint32_t));
  if (!m->soa || !m->pref_soa || !m->report)
    fail("memory", CROWDSTEER_ERROR_OUT_OF_MEMORY);
  float *a = m->soa;
  const size_t n = s->n;
  m->agents = (crowdsteer_agents){n,         s->dims,   a,         a + n, a + 2 * n,
                                  a + 3 * n, a + 4 * n, a + 5 * n, NULL};
  m->out = (crowdsteer_vectors){a + 6 * n, a + 7 * n, a + 8 * n};
  m->pref = (crowdsteer_vectors){m->pref_soa, m->pref_soa + n, m->pref_soa + 2 * n};
  crowdsteer_status st = crowdsteer_grid_create(&m->grid);
  if (st != CROWDSTEER_OK) fail("grid", st);
  const crowdsteer_task_system *tasks = o->threads > 1 ? &pool->system : NULL;
  m->grid_desc = (crowdsteer_grid_desc){
      .cell_size = s->agent.neighbor_dist, .threads = 1, .tasks = tasks};
  m->nb = (crowdsteer_neighbours){.grid = m->grid,
                                  .radius = s->agent.neighbor_dist,
                                  .max_neighbours = (uint32_t)s->agent.max_neighbors,
                                  .tasks = tasks};
  if (s->num_obstacles) make_obstacles(m);
  m->avoidance =
      (crowdsteer_avoidance){.radius = s->agent.radius * (1.0f + o->margin),
                             .time_horizon = s->agent.time_horizon,
                             .obstacle_time_horizon = s->agent.time_horizon_obst,
                             .neighbours = &m->nb,
                             .obstacles = m->obstacles};
  m->params = (crowdsteer_params){.max_speed = s->agent.max_speed, .dt = s->time_step};
}

/* The state at the scenario's starts, at rest (RVO2's addAgent). */
static void sim_reset(sim *m) {
  float *p[3] = {m->agents.px, m->agents.py, m->agents.pz};
  float *v[3] = {m->agents.vx, m->agents.vy, m->agents.vz};
  for (size_t i = 0; i < m->n; i++)
    for (int k = 0; k < m->dims; k++)
      p[k][i] = m->s->start[(size_t)m->dims * i + k], v[k][i] = 0.0f;
}

static void sim_free(sim *m) {
  crowdsteer_grid_destroy(m->grid);
  crowdsteer_obstacles_destroy(m->obstacles);
  free(m->soa);
  free(m->pref_soa);
  free(m->report);
}

/* Interleaved positions (scenarios.h's layout) from the agents' arrays. */
static void read_positions(const sim *m, float *pos) {
  const float *p[3] = {m->agents.px, m->agents.py, m->agents.pz};
  for (size_t i = 0; i < m->n; i++)
    for (int k = 0; k < m->dims; k++)
      pos[(size_t)m->dims * i + k] = p[k][i];
}

static void set_preferred(sim *m, const float *pref) {
  float *q[3] = {m->pref.x, m->pref.y, m->pref.z};
  for (size_t i = 0; i < m->n; i++)
    for (int k = 0; k < m->dims; k++)
      q[k][i] = pref[(size_t)m->dims * i + k];
}

/* One step; the new velocities' arrays become the velocities. */
static void sim_step(sim *m, int report) {
  m->avoidance.report = report ? m->report : NULL;
  crowdsteer_status st = crowdsteer_grid_build(m->grid, &m->agents, &m->grid_desc);
  if (st != CROWDSTEER_OK) fail("grid build", st);
  st =
      crowdsteer_avoid(&m->agents, &m->avoidance, &m->params, &m->pref, &m->out, 0, m->n);
  if (st != CROWDSTEER_OK) fail("crowdsteer_avoid", st);
  float *p[3] = {m->agents.px, m->agents.py, m->agents.pz};
  float *nv[3] = {m->out.x, m->out.y, m->out.z};
  const float dt = m->s->time_step;
  for (int k = 0; k < m->dims; k++)
    for (size_t i = 0; i < m->n; i++)
      p[k][i] = p[k][i] + nv[k][i] * dt;
  crowdsteer_vectors old = {m->agents.vx, m->agents.vy, m->agents.vz};
  m->agents.vx = m->out.x, m->agents.vy = m->out.y, m->agents.vz = m->out.z;
  m->out = old;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, size_t count) {
  double *c = malloc(count * sizeof *c);
  if (!c) return v[0];
  memcpy(c, v, count * sizeof *c);
  qsort(c, count, sizeof *c, cmp_double);
  const double m = count % 2 ? c[count / 2] : 0.5 * (c[count / 2 - 1] + c[count / 2]);
  free(c);
  return m;
}

int main(int argc, char **argv) {
  const options o = parse(argc, argv);
  if (o.isa) {
    crowdsteer_isa isa;
    crowdsteer_status st = crowdsteer_isa_from_name(o.isa, &isa);
    if (st == CROWDSTEER_OK) st = crowdsteer_force_isa(isa);
    if (st != CROWDSTEER_OK) fail("--isa", st);
  }
  const double t_setup = now(CLOCK_MONOTONIC);
  scn_scenario s;
  if (scn_make(&s, o.name, o.n, o.seed) != 0) {
    fprintf(stderr, "crowdsteer-scenarios: cannot make scenario '%s' (n %zu)\n", o.name,
            o.n);
    return 1;
  }
  const double scenario_seconds = now(CLOCK_MONOTONIC) - t_setup;
  task_pool pool;
  if (o.threads > 1 && task_pool_start(&pool, o.threads) != 0)
    fail("thread pool", CROWDSTEER_ERROR_OUT_OF_MEMORY);
  sim m;
  sim_init(&m, &s, &o, &pool);

  const size_t nd = s.n * (size_t)s.dims;
  float *pos = malloc(nd * sizeof *pos), *pref = malloc(nd * sizeof *pref);
  float *radius = malloc(s.n * sizeof *radius);
  double *cpu_per = malloc(o.repeats * sizeof *cpu_per);
  double *wall_per = malloc(o.repeats * sizeof *wall_per);
  if (!pos || !pref || !radius || !cpu_per || !wall_per)
    fail("memory", CROWDSTEER_ERROR_OUT_OF_MEMORY);
  for (size_t i = 0; i < s.n; i++)
    radius[i] = s.agent.radius;
  scn_overlaps counter = {0};
  uint64_t overlaps[3] = {0, 0, 0}, crowded = 0;
  double min_ratio = 1e30, cpu_first = 0.0, wall_first = 0.0;
  size_t steps = 0;
  int reached = 0;
  const uint64_t rng0 = s.rng;
  for (size_t rep = 0; rep < o.repeats; rep++) {
    const int measure = o.metrics && rep == 0;
    s.rng = rng0; /* the same perturbations every repeat */
    sim_reset(&m);
    read_positions(&m, pos);
    double cpu = 0.0, wall = 0.0;
    steps = 0;
    reached = 0;
    const size_t limit = o.timing_steps ? o.timing_steps : o.cap;
    while (steps < limit) {
      scn_pref_velocities(&s, pos, pref);
      set_preferred(&m, pref);
      const double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
      sim_step(&m, measure);
      const double c1 = now(CLOCK_PROCESS_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
      if (steps == 0) {
        if (rep == 0) cpu_first = c1 - c0, wall_first = w1 - w0;
      } else {
        cpu += c1 - c0;
        wall += w1 - w0;
      }
      steps++;
      read_positions(&m, pos);
      if (measure) {
        if (scn_overlaps_measure(&counter, pos, radius, s.n, s.dims, overlaps,
                                 &min_ratio))
          fail("memory", CROWDSTEER_ERROR_OUT_OF_MEMORY);
        for (size_t i = 0; i < s.n; i++)
          crowded += (m.report[i] & CROWDSTEER_REPORT_CROWDED) != 0;
      }
      if (!o.timing_steps && scn_reached(&s, pos)) {
        reached = 1;
        break;
      }
    }
    const double agent_steps = steps > 1 ? (double)(steps - 1) * (double)s.n : 1.0;
    cpu_per[rep] = cpu / agent_steps;
    wall_per[rep] = wall / agent_steps;
  }

  printf("%s%s n=%zu threads=%d steps=%zu %s", s.name, s.dims == 3 ? "(3D)" : "", s.n,
         o.threads, steps,
         o.timing_steps ? "timing" : (reached ? "completed" : "NOT-completed(cap)"));
  if (o.metrics) {
    printf(" overlap_pair_steps=%llu below_0.99=%llu below_0.9=%llu",
           (unsigned long long)overlaps[0], (unsigned long long)overlaps[1],
           (unsigned long long)overlaps[2]);
    if (min_ratio < 1e29)
      printf(" min_dist_ratio=%.4f", min_ratio);
    else
      printf(" min_dist_ratio=none_below_1");
  }
  printf(" cpu_ns_per_agent_step=%.1f wall_ns_per_agent_step=%.1f",
         1e9 * median(cpu_per, o.repeats), 1e9 * median(wall_per, o.repeats));
  if (o.repeats > 1) {
    printf(" repeats_cpu_ns=");
    for (size_t r = 0; r < o.repeats; r++)
      printf("%s%.1f", r ? "," : "", 1e9 * cpu_per[r]);
    printf(" repeats_wall_ns=");
    for (size_t r = 0; r < o.repeats; r++)
      printf("%s%.1f", r ? "," : "", 1e9 * wall_per[r]);
  }
  printf(" first_step_cpu_ms=%.2f first_step_wall_ms=%.2f scenario_s=%.2f",
         1e3 * cpu_first, 1e3 * wall_first, scenario_seconds);
  if (o.metrics) printf(" crowded_agent_steps=%llu", (unsigned long long)crowded);
  printf(" isa=%s state_hash=%016llx\n", crowdsteer_isa_name(crowdsteer_active_isa()),
         (unsigned long long)scn_state_hash(pos, nd));

  scn_overlaps_free(&counter);
  free(pos);
  free(pref);
  free(radius);
  free(cpu_per);
  free(wall_per);
  sim_free(&m);
  if (o.threads > 1) task_pool_stop(&pool);
  scn_free(&s);
  return 0;
}
