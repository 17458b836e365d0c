/* crowdsteer-demo: the scenario (one batch, contiguous groups, mixed per
 * agent), its setup and its steps, one crowdsteer_step or separate calls. */
#include "demo.h"

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
void place_markers(scenario *sc) {
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

/* Every per-agent float array but wander's, for allocation and release: the
 * first VECTOR_ARRAYS are x, y, z triples (z stays NULL in 2D). */
enum { VECTOR_ARRAYS = 18, ALL_FLOAT_ARRAYS = VECTOR_ARRAYS + 4 };
static void float_arrays(scenario *sc, float **arrays[ALL_FLOAT_ARRAYS]) {
  float **list[ALL_FLOAT_ARRAYS] = {&sc->agents.px,
                                    &sc->agents.py,
                                    &sc->agents.pz,
                                    &sc->agents.vx,
                                    &sc->agents.vy,
                                    &sc->agents.vz,
                                    &sc->snapshot.px,
                                    &sc->snapshot.py,
                                    &sc->snapshot.pz,
                                    &sc->snapshot.vx,
                                    &sc->snapshot.vy,
                                    &sc->snapshot.vz,
                                    &sc->steering.x,
                                    &sc->steering.y,
                                    &sc->steering.z,
                                    &sc->spot.x,
                                    &sc->spot.y,
                                    &sc->spot.z,
                                    &sc->max_speed,
                                    &sc->integrate_max_speed,
                                    &sc->integrate_max_force,
                                    &sc->wander_weight};
  memcpy(arrays, list, sizeof list);
}

void scenario_free(scenario *sc) {
  float **arrays[ALL_FLOAT_ARRAYS];
  float_arrays(sc, arrays);
  for (size_t i = 0; i < ALL_FLOAT_ARRAYS; i++)
    free(*arrays[i]);
  free(sc->wander.direction.x);
  free(sc->wander.direction.y);
  free(sc->wander.direction.z);
  free(sc->target_agent);
  free(sc->mask);
  free(sc->report);
  crowdsteer_obstacles_destroy(sc->obstacles);
  crowdsteer_grid_destroy(sc->avoid_grid);
  for (int g = 0; g < GROUP_COUNT; g++)
    free(sc->runs[g]);
  crowdsteer_grid_destroy(sc->grid);
  crowdsteer_workspace_destroy(sc->workspace);
  navigation_free(sc);
  if (sc->tasks) task_pool_stop(&sc->pool);
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

/* The runs of agents whose mask has `bit`, for the separate calls. */
static int find_runs(scenario *sc, int g) {
  const uint32_t bit = group_bit(g);
  const size_t n = sc->agents.count;
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    count += (sc->mask[i] & bit) && (i == 0 || !(sc->mask[i - 1] & bit));
  sc->runs[g] = calloc(count + 1, sizeof(run));
  if (!sc->runs[g]) return 1;
  for (size_t i = 0; i < n; i++) {
    if (!(sc->mask[i] & bit)) continue;
    if (i == 0 || !(sc->mask[i - 1] & bit)) sc->runs[g][sc->run_count[g]++].begin = i;
    sc->runs[g][sc->run_count[g] - 1].end = i + 1;
  }
  return 0;
}

/* The batch's arrays (2D leaves every z array NULL); 1 when out of memory. */
static int allocate_arrays(scenario *sc, size_t n, int dims) {
  /* calloc checks n * size for overflow; 2D leaves every z array NULL. The
   * snapshot is calloc'ed too: with --snapshot targets only two of its
   * agents are ever written, and the rest never costs memory. */
  float **arrays[ALL_FLOAT_ARRAYS];
  float_arrays(sc, arrays);
  int failed = 0;
  for (size_t i = 0; i < ALL_FLOAT_ARRAYS; i++) {
    int is_z_axis = i < VECTOR_ARRAYS && i % 3 == 2;
    if (is_z_axis && dims == 2) continue;
    *arrays[i] = calloc(n, sizeof(float));
    failed |= *arrays[i] == NULL;
  }
  float **wander_axes[3] = {&sc->wander.direction.x, &sc->wander.direction.y,
                            &sc->wander.direction.z};
  for (int k = 0; k < dims; k++) {
    *wander_axes[k] = calloc(n, sizeof(float));
    failed |= *wander_axes[k] == NULL;
  }
  sc->target_agent = calloc(n, sizeof(uint32_t));
  sc->mask = calloc(n, sizeof(uint32_t));
  return failed || !sc->target_agent || !sc->mask;
}

/* Each group's agents and every agent's behaviour mask; 1 when out of memory. */
static int assign_groups(scenario *sc, const demo_options *opts) {
  const size_t n = opts->agents;
  /* Contiguous groups: all behaviours share the batch evenly, or one
   * behaviour takes every steered agent. */
  const size_t steered = n - DRIVEN_AGENTS;
  const int mixed = opts->only_group < 0;
  for (int g = 0; g < GROUP_COUNT; g++) {
    group *gr = &sc->groups[g];
    if (mixed) {
      gr->begin = DRIVEN_AGENTS + steered * (size_t)g / GROUP_COUNT;
      gr->end = DRIVEN_AGENTS + steered * (size_t)(g + 1) / GROUP_COUNT;
    } else if (opts->only_group == g) {
      gr->begin = DRIVEN_AGENTS;
      gr->end = n;
    } else {
      gr->begin = gr->end = n; /* empty */
    }
  }

  /* Behaviour masks: each group's own behaviour; in the mixed crowd fleers
   * and evaders also wander (blended at a lower weight, or as the fallback
   * by priority) and the last pursuers also leave the threat. Contiguous
   * runs keep the separate calls few; crowdsteer_step would take any mask. */
  const group *pursuers = &sc->groups[GROUP_PURSUIT];
  sc->cautious_begin =
      pursuers->end - (pursuers->end - pursuers->begin) / CAUTIOUS_PURSUER_SHARE;
  if (!mixed) sc->cautious_begin = pursuers->end;
  for (int g = 0; g < GROUP_COUNT; g++) {
    uint32_t bits = group_bit(g);
    if (mixed && (g == GROUP_FLEE || g == GROUP_EVADE)) bits |= group_bit(GROUP_WANDER);
    if (opts->separation > 0.0f) bits |= 1u << SEPARATION_SLOT;
    for (size_t i = sc->groups[g].begin; i < sc->groups[g].end; i++) {
      sc->mask[i] = bits;
      sc->wander_weight[i] = g == GROUP_WANDER ? 1.0f : MIXED_WANDER_WEIGHT;
    }
  }
  for (size_t i = sc->cautious_begin; i < pursuers->end; i++)
    sc->mask[i] |= group_bit(GROUP_LEAVE);
  for (int g = 0; g < GROUP_COUNT; g++)
    if (find_runs(sc, g) != 0) return 1;
  return 0;
}

/* Where everyone starts, and each group's target and parameters. */
static void set_group_inputs(scenario *sc, const demo_options *opts) {
  const size_t n = opts->agents;
  const int dims = opts->dims;
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
  evade->params.max_speed = EVADE_MAX_SPEED;
  evade->params.panic_radius = EVADE_PANIC_RADIUS;
  evade->params.max_prediction = 20.0f;
  for (size_t i = evade->begin; i < evade->end; i++)
    sc->target_agent[i] = HUNTER_AGENT;

  group *wander = &sc->groups[GROUP_WANDER];
  wander->params.wander_radius = 0.5f;
  wander->params.wander_distance = 1.0f;
  wander->params.jitter = 0.3f;
  sc->wander.seed = opts->seed;
}

/* The integrator's per-agent limits. */
static void set_integrator_limits(scenario *sc, size_t n) {
  const group *seek = &sc->groups[GROUP_SEEK], *arrive = &sc->groups[GROUP_ARRIVE];
  const group *evade = &sc->groups[GROUP_EVADE], *wander = &sc->groups[GROUP_WANDER];
  /* One integrator for the whole batch, with each group's limits per agent:
   * seekers curve after the beacon (force 0.25), wanderers turn smoothly
   * (force 0.1), evaders are slower than the hunter. Agents 0 and 1 are
   * never integrated. */
  for (size_t i = 0; i < n; i++) {
    sc->integrate_max_speed[i] = 1.0f;
    sc->integrate_max_force[i] = (float)INFINITY;
  }
  for (size_t i = seek->begin; i < seek->end; i++) {
    sc->integrate_max_speed[i] = sc->max_speed[i];
    sc->integrate_max_force[i] = 0.25f;
  }
  for (size_t i = arrive->begin; i < arrive->end; i++)
    sc->integrate_max_speed[i] = sc->max_speed[i];
  for (size_t i = evade->begin; i < evade->end; i++)
    sc->integrate_max_speed[i] = EVADE_MAX_SPEED;
  for (size_t i = wander->begin; i < wander->end; i++)
    sc->integrate_max_force[i] = 0.1f;
}

/* --avoid and --obstacles: ORCA as the step's last stage, with the body
 * radius and time horizons of demo.h, the integrator's top speeds and dt;
 * its own grid (velocities kept, cells AVOID_REACH radii wide), and the
 * layout scaled to the world. With --avoid off and --obstacles, agents
 * avoid the walls only (no neighbours). 1 when out of memory. */
static int describe_avoidance(scenario *sc, const demo_options *opts) {
  if (opts->avoid == AVOID_OFF && !opts->obstacles) return 0;
  crowdsteer_avoidance *av = &sc->avoidance;
  av->radius = opts->body_radius;
  av->time_horizon = AVOID_TIME_HORIZON;
  av->obstacle_time_horizon = AVOID_OBSTACLE_TIME_HORIZON;
  sc->report = calloc(opts->agents, sizeof *sc->report);
  if (!sc->report) return 1;
  av->report = sc->report;
  if (opts->avoid != AVOID_OFF) {
    if (crowdsteer_grid_create(&sc->avoid_grid) != CROWDSTEER_OK) return 1;
    sc->avoid_neighbours.grid = sc->avoid_grid;
    sc->avoid_neighbours.radius = AVOID_REACH * opts->body_radius;
    sc->avoid_neighbours.max_neighbours = AVOID_NEIGHBOURS;
    av->neighbours = &sc->avoid_neighbours;
  }
  if (opts->obstacles) {
    if (layout_build(&sc->obstacles, 0.0f, 0.0f, WORLD_HALF_SIZE, WORLD_HALF_SIZE) !=
        CROWDSTEER_OK)
      return 1;
    av->obstacles = sc->obstacles;
  }
  if (!sc->workspace && crowdsteer_workspace_create(&sc->workspace) != CROWDSTEER_OK)
    return 1;
  sc->step_desc.workspace = sc->workspace; /* ORCA's per-thread slots */
  sc->step_desc.avoidance = av;
  return 0;
}

/* The step's description; 1 when the neighbour grid cannot be created. */
static int describe_step(scenario *sc, const demo_options *opts) {
  /* The step: separation, then one behaviour per group, in group order (the
   * priority order). With separation off no agent has its bit, and the slot
   * holds a seek that nothing reads. */
  for (int g = 0; g < GROUP_COUNT; g++) {
    crowdsteer_step_behaviour *b = &sc->behaviours[g + FIRST_GROUP_SLOT];
    b->behaviour = group_behaviours[g];
    b->weight = 1.0f;
  }
  sc->behaviours[GROUP_WANDER + FIRST_GROUP_SLOT].wander = &sc->wander;
  sc->behaviours[GROUP_WANDER + FIRST_GROUP_SLOT].weight_per_agent = sc->wander_weight;
  crowdsteer_step_behaviour *separation = &sc->behaviours[SEPARATION_SLOT];
  separation->behaviour = CROWDSTEER_SEEK;
  if (opts->separation > 0.0f) {
    if (crowdsteer_grid_create(&sc->grid) != CROWDSTEER_OK ||
        crowdsteer_workspace_create(&sc->workspace) != CROWDSTEER_OK)
      return 1;
    sc->neighbours.grid = sc->grid;
    sc->neighbours.radius = opts->separation;
    sc->separation_params.max_speed = 1.0f;
    separation->behaviour = CROWDSTEER_SEPARATION;
    separation->neighbours = &sc->neighbours;
    separation->params = sc->separation_params;
  }
  separation->weight = opts->separation_weight;
  crowdsteer_step_desc *d = &sc->step_desc;
  d->behaviours = sc->behaviours;
  d->behaviour_count = SLOT_COUNT;
  d->workspace = sc->workspace;
  d->combine = (crowdsteer_combine)opts->combine;
  d->priority_threshold = PRIORITY_THRESHOLD;
  d->behaviour_mask = sc->mask;
  d->integrator.max_speed_per_agent = sc->integrate_max_speed;
  d->integrator.max_force_per_agent = sc->integrate_max_force;
  d->snapshot = &sc->snapshot;
  d->tile_size = opts->tile;
  d->threads = opts->threads;
  if (opts->tasks && opts->mode == MODE_STEP) {
    if (task_pool_start(&sc->pool, opts->tasks) != 0) return 1;
    sc->tasks = &sc->pool.system;
  }
  d->tasks = sc->tasks;
  return describe_avoidance(sc, opts);
}

/* Allocates the batch and sets up every group; 0 on success. */
int scenario_setup(scenario *sc, const demo_options *opts) {
  memset(sc, 0, sizeof *sc);
  sc->opts = *opts;
  const size_t n = opts->agents;
  const int dims = opts->dims;
  sc->agents.count = sc->snapshot.count = n;
  sc->agents.dims = sc->snapshot.dims = dims;
  if (allocate_arrays(sc, n, dims) != 0 || assign_groups(sc, opts) != 0) {
    fprintf(stderr, "crowdsteer-demo: out of memory for %zu agents\n", n);
    scenario_free(sc);
    return 1;
  }
  set_group_inputs(sc, opts);
  set_integrator_limits(sc, n);
  if (describe_step(sc, opts) != 0) {
    fprintf(stderr, "crowdsteer-demo: out of memory for the neighbour grid\n");
    scenario_free(sc);
    return 1;
  }
  if (navigation_setup(sc, opts) != 0) {
    fprintf(stderr, "crowdsteer-demo: --navigate could not be set up\n");
    scenario_free(sc);
    return 1;
  }
  place_markers(sc);
  return 0;
}

/* ---- stepping -------------------------------------------------------------- */

double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static crowdsteer_status run_behaviour(scenario *sc, int g, const crowdsteer_output *out,
                                       size_t begin, size_t end) {
  const group *gr = &sc->groups[g];
  const crowdsteer_agents *a = &sc->agents;
  switch (g) {
  case GROUP_SEEK: return crowdsteer_seek(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_ARRIVE:
    return crowdsteer_arrive(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_FLEE: return crowdsteer_flee(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_LEAVE: return crowdsteer_leave(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_PURSUIT:
    return crowdsteer_pursuit(a, &gr->target, &gr->params, out, begin, end);
  case GROUP_EVADE: return crowdsteer_evade(a, &gr->target, &gr->params, out, begin, end);
  default: return crowdsteer_wander(a, &sc->wander, &gr->params, out, begin, end);
  }
}

/* The composition crowdsteer_step is defined by, with public entry points:
 * clear the steering, each behaviour in order accumulates weight * s over
 * its runs of agents, then one integrator call. Each part timed on its own.
 * The pursuers' and evaders' targets (agents 0 and 1) are not integrated,
 * so they hold their pre-step state throughout and need no snapshot. */
static crowdsteer_status step_separately(scenario *sc) {
  const size_t begin = DRIVEN_AGENTS, end = sc->agents.count;
  const int dims = sc->opts.dims;
  double start = seconds_now();
  float *const steer[3] = {sc->steering.x, sc->steering.y, sc->steering.z};
  for (int k = 0; k < dims; k++)
    memset(steer[k] + begin, 0, (end - begin) * sizeof(float));
  sc->clear_seconds += seconds_now() - start;
  if (sc->grid) { /* slot 0 first, as the step blends */
    const crowdsteer_output out = {.steering = sc->steering,
                                   .mode = CROWDSTEER_ACCUMULATE,
                                   .weight = sc->opts.separation_weight};
    start = seconds_now();
    crowdsteer_status status = crowdsteer_separation(
        &sc->agents, &sc->neighbours, &sc->separation_params, &out, begin, end);
    sc->separation_seconds += seconds_now() - start;
    if (status != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer-demo: separation failed at step %u: %s\n", sc->step,
              crowdsteer_status_string(status));
      return status;
    }
  }
  for (int g = 0; g < GROUP_COUNT; g++) {
    /* ACCUMULATE with weight 1 adds s itself, as the step's blend does. */
    const crowdsteer_output out = {.steering = sc->steering,
                                   .mode = CROWDSTEER_ACCUMULATE,
                                   .weight = 1.0f,
                                   .weight_per_agent =
                                       g == GROUP_WANDER ? sc->wander_weight : NULL};
    start = seconds_now();
    for (size_t r = 0; r < sc->run_count[g]; r++) {
      crowdsteer_status status =
          run_behaviour(sc, g, &out, sc->runs[g][r].begin, sc->runs[g][r].end);
      if (status != CROWDSTEER_OK) {
        fprintf(stderr, "crowdsteer-demo: %s failed at step %u: %s\n", group_name(g),
                sc->step, crowdsteer_status_string(status));
        return status;
      }
    }
    sc->behaviour_seconds[g] += seconds_now() - start;
  }
  const crowdsteer_output follow = {
      .steering = sc->steering, .mode = CROWDSTEER_ACCUMULATE, .weight = 1.0f};
  start = seconds_now();
  crowdsteer_status status = navigation_step_separately(sc, &follow);
  sc->behaviour_seconds[GROUP_SEEK] += seconds_now() - start;
  if (status != CROWDSTEER_OK) return status;
  start = seconds_now();
  status = crowdsteer_integrate(&sc->agents, &sc->steering, &sc->step_desc.integrator,
                                begin, end);
  sc->integrate_seconds += seconds_now() - start;
  if (status != CROWDSTEER_OK)
    fprintf(stderr, "crowdsteer-demo: integrate failed at step %u: %s\n", sc->step,
            crowdsteer_status_string(status));
  return status;
}

/* AGENTS targets must see the state from before the step. Default (swap):
 * the step writes the new state into the second buffer and the buffers swap
 * afterwards, so nothing is copied. In place (copy, targets), the second
 * buffer is a snapshot: a copy of every agent, or only of the two agents
 * that are targets (the only ones ever read from it). */
static void refresh_snapshot(scenario *sc) {
  if (sc->opts.snapshot == SNAPSHOT_SWAP) return;
  const crowdsteer_agents *a = &sc->agents, *s = &sc->snapshot;
  float *const from[6] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz};
  float *const to[6] = {s->px, s->py, s->pz, s->vx, s->vy, s->vz};
  for (int k = 0; k < 6; k++) {
    if (!from[k]) continue; /* z in 2D */
    if (sc->opts.snapshot == SNAPSHOT_COPY) {
      memcpy(to[k], from[k], a->count * sizeof(float));
    } else {
      to[k][QUARRY_AGENT] = from[k][QUARRY_AGENT];
      to[k][HUNTER_AGENT] = from[k][HUNTER_AGENT];
    }
  }
}

/* One crowdsteer_step over every steered agent of the batch. */
static crowdsteer_status step_at_once(scenario *sc) {
  /* The markers moved the point targets since the last step. */
  for (int g = 0; g < GROUP_COUNT; g++) {
    sc->behaviours[g + FIRST_GROUP_SLOT].target = sc->groups[g].target;
    sc->behaviours[g + FIRST_GROUP_SLOT].params = sc->groups[g].params;
  }
  double start = seconds_now();
  refresh_snapshot(sc);
  double copied = seconds_now();
  const int swap = sc->opts.snapshot == SNAPSHOT_SWAP;
  sc->step_desc.output = swap ? &sc->snapshot : NULL;
  sc->step_desc.snapshot = swap ? NULL : &sc->snapshot;
  crowdsteer_status status =
      crowdsteer_step(&sc->agents, &sc->step_desc, DRIVEN_AGENTS, sc->agents.count);
  if (swap) { /* the second buffer now holds the current state */
    crowdsteer_agents previous = sc->agents;
    sc->agents = sc->snapshot;
    sc->snapshot = previous;
  }
  sc->step_seconds += seconds_now() - copied;
  sc->snapshot_seconds += copied - start;
  if (status != CROWDSTEER_OK)
    fprintf(stderr, "crowdsteer-demo: crowdsteer_step failed at step %u: %s\n", sc->step,
            crowdsteer_status_string(status));
  return status;
}

/* Separation sees the others through a grid built from the state before
 * the step (on the step's threads); the behaviours then read that copy.
 * Separation reads no velocities: the grid keeps positions only. */
static crowdsteer_status build_grid(scenario *sc) {
  crowdsteer_status status = CROWDSTEER_OK;
  double start = seconds_now();
  if (sc->grid) {
    const crowdsteer_grid_desc desc = {
        .cell_size = sc->opts.separation,
        .threads = sc->opts.mode == MODE_STEP ? sc->opts.threads : 1,
        .positions_only = 1,
        .tasks = sc->tasks};
    status = crowdsteer_grid_build(sc->grid, &sc->agents, &desc);
  }
  /* ORCA reads velocities too, and looks farther: a grid of its own. */
  if (sc->avoid_grid && status == CROWDSTEER_OK) {
    const crowdsteer_grid_desc desc = {.cell_size = sc->avoid_neighbours.radius,
                                       .threads = sc->opts.threads,
                                       .tasks = sc->tasks};
    status = crowdsteer_grid_build(sc->avoid_grid, &sc->agents, &desc);
  }
  sc->grid_seconds += seconds_now() - start;
  if (status != CROWDSTEER_OK)
    fprintf(stderr, "crowdsteer-demo: crowdsteer_grid_build failed at step %u: %s\n",
            sc->step, crowdsteer_status_string(status));
  return status;
}

/* One simulation step. The setup and the report do not depend on how the
 * step is computed: both modes give the same bits. */
crowdsteer_status scenario_step(scenario *sc) {
  crowdsteer_status status = build_grid(sc);
  if (status != CROWDSTEER_OK) return status;
  status = sc->opts.mode == MODE_STEP ? step_at_once(sc) : step_separately(sc);
  if (status != CROWDSTEER_OK) return status;
  if (sc->report) /* the run's totals of the report bits */
    for (size_t i = DRIVEN_AGENTS; i < sc->agents.count; i++) {
      sc->wall_stops += (sc->report[i] & CROWDSTEER_REPORT_WALL) != 0;
      sc->crowded_steps += (sc->report[i] & CROWDSTEER_REPORT_CROWDED) != 0;
    }
  sc->wander.tick++; /* fresh wander randomness next step */
  sc->step++;
  place_markers(sc);
  return CROWDSTEER_OK;
}
