/* crowdsteer-demo: the sanity figures of the crowd and the report (the
 * mode, throughput, the figures before and after, the state hash). */
#include "demo.h"

/* ---- sanity figures -------------------------------------------------------- */

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

size_t count_non_finite(const float *a, size_t n) {
  size_t bad = 0;
  if (a)
    for (size_t i = 0; i < n; i++)
      bad += !isfinite(a[i]);
  return bad;
}

figures measure(const scenario *sc) {
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
  /* Bodies of radius r overlap when closer than r_i + r_j = 2r. */
  f.spacing_measured =
      f.non_finite == 0 &&
      spacing_measure2(&sc->agents, DRIVEN_AGENTS, sc->agents.count, OVERLAP_SPACING,
                       2.0 * (double)sc->opts.body_radius, &f.spacing) == 0;
  if (sc->obstacles) /* exactly, as the step decides it */
    for (size_t i = DRIVEN_AGENTS; i < sc->agents.count; i++) {
      int inside = 0;
      if (crowdsteer_obstacles_inside(sc->obstacles, sc->agents.px[i], sc->agents.py[i],
                                      &inside) == CROWDSTEER_OK)
        f.inside += inside != 0;
    }
  if (sc->report)
    for (size_t i = DRIVEN_AGENTS; i < sc->agents.count; i++) {
      f.walled += (sc->report[i] & CROWDSTEER_REPORT_WALL) != 0;
      f.crowded += (sc->report[i] & CROWDSTEER_REPORT_CROWDED) != 0;
    }
  navigation_measure(sc, &f);
  return f;
}

/* ---- report ---------------------------------------------------------------- */

/* Threads crowdsteer_step runs on with these options, as the library picks
 * them: the requested count (0: every OpenMP thread), at most one per tile,
 * and one without OpenMP. */
static int step_threads(const scenario *sc, int *all) {
  int max_threads = crowdsteer_step_max_threads();
  *all = max_threads;
  size_t tile = sc->opts.tile ? sc->opts.tile : 1024; /* the documented default */
  size_t tiles = (sc->agents.count - DRIVEN_AGENTS + tile - 1) / tile;
  size_t threads = sc->opts.threads ? (size_t)sc->opts.threads : (size_t)max_threads;
  if (threads > tiles) threads = tiles;
  return threads < 1 ? 1 : (int)threads;
}

void print_mode(const scenario *sc) {
  static const char *const combines[] = {"blend", "priority"};
  const demo_options *o = &sc->opts;
  printf("crowd: %s, %s\n",
         o->only_group < 0 ? "mixed (fleers and evaders also wander, 1 in 4 pursuers "
                             "also leaves the threat)"
                           : group_name(o->only_group),
         combines[o->combine]);
  int all = 1, used = step_threads(sc, &all);
  if (o->mode == MODE_STEP && sc->tasks) {
    printf("mode: step (one crowdsteer_step per simulation step), tile %zu, on a host "
           "task pool of %u workers (no OpenMP), snapshot %s\n",
           o->tile ? o->tile : (size_t)1024, sc->tasks->worker_count,
           o->snapshot == SNAPSHOT_SWAP   ? "none (double buffer, swapped)"
           : o->snapshot == SNAPSHOT_COPY ? "copy of every agent"
                                          : "copy of the target agents");
  } else if (o->mode == MODE_STEP) {
    printf("mode: step (one crowdsteer_step per simulation step), tile %zu%s, "
           "threads %d (requested %d%s), snapshot %s\n",
           o->tile ? o->tile : (size_t)1024, o->tile ? "" : " (default)", used,
           o->threads, o->threads ? "" : " = all",
           o->snapshot == SNAPSHOT_SWAP   ? "none (double buffer, swapped)"
           : o->snapshot == SNAPSHOT_COPY ? "copy of every agent"
                                          : "copy of the target agents");
  } else {
    printf("mode: separate (one call per behaviour and run of agents, then "
           "crowdsteer_integrate), 1 thread\n");
  }
  printf("crowdsteer_step threads available: %d\n", all);
  if (o->separation > 0.0f)
    printf("separation: every steered agent, radius %g, weight %g (%s), neighbour grid "
           "rebuilt before each step\n",
           (double)o->separation, (double)o->separation_weight,
           o->combine == CROWDSTEER_PRIORITY ? "first in priority" : "blended");
  else
    printf("separation: off\n");
  /* Nothing more when avoidance is off: the output stays as it was. */
  if (o->avoid != AVOID_OFF)
    printf("avoidance: ORCA %s separation, body radius %g, time horizon %g (obstacles "
           "%g), the %d nearest within %g (own grid, velocities kept)\n",
           o->avoid == AVOID_ON ? "with" : "instead of", (double)o->body_radius,
           (double)AVOID_TIME_HORIZON, (double)AVOID_OBSTACLE_TIME_HORIZON,
           AVOID_NEIGHBOURS, (double)sc->avoid_neighbours.radius);
  navigation_describe(sc);
  if (sc->obstacles)
    printf("obstacles: %zu (walls with doorways, pillars, a wedge, an L) over the world, "
           "%zu edges, %zu bytes; %s\n",
           layout_count(), crowdsteer_obstacles_edge_count(sc->obstacles),
           crowdsteer_obstacles_bytes(sc->obstacles),
           o->avoid == AVOID_OFF ? "agents avoid the walls only (ORCA without neighbours)"
                                 : "ORCA avoids them too");
}

void report_throughput(const scenario *sc, double wall_seconds) {
  const double steps = sc->step;
  const double steered = (double)(sc->agents.count - DRIVEN_AGENTS);
  const double agent_steps = steered * steps;
  double library_seconds = 0.0;
  if (sc->opts.mode == MODE_STEP) {
    library_seconds = sc->step_seconds;
    printf("\nstep: %.0f agent-steps in %.2f s = %.1f M agent-steps/s "
           "(crowdsteer_step: behaviours + integrate)\n",
           agent_steps, sc->step_seconds, agent_steps / sc->step_seconds * 1e-6);
    printf("snapshot: %.3f s (%.1f%% of the step time); step + snapshot = %.1f M "
           "agent-steps/s\n",
           sc->snapshot_seconds, 100.0 * sc->snapshot_seconds / sc->step_seconds,
           agent_steps / (sc->step_seconds + sc->snapshot_seconds) * 1e-6);
    if (sc->grid || sc->avoid_grid)
      printf("grid: %.3f s (crowdsteer_grid_build before each step, %.1f%% of the step "
             "time); grid + step = %.1f steps/s\n",
             sc->grid_seconds, 100.0 * sc->grid_seconds / sc->step_seconds,
             steps / (sc->grid_seconds + sc->step_seconds));
  } else {
    printf("\n%-9s %10s %16s\n", "behaviour", "agents", "M agent-steps/s");
    for (int g = 0; g < GROUP_COUNT; g++) {
      size_t users = 0;
      for (size_t r = 0; r < sc->run_count[g]; r++)
        users += sc->runs[g][r].end - sc->runs[g][r].begin;
      if (!users) continue;
      printf("%-9s %10zu %16.1f\n", group_name(g), users,
             (double)users * steps / sc->behaviour_seconds[g] * 1e-6);
      library_seconds += sc->behaviour_seconds[g];
    }
    if (sc->grid) {
      printf("%-9s %10.0f %16.1f\n", "grid", (double)sc->agents.count,
             (double)sc->agents.count * steps / sc->grid_seconds * 1e-6);
      printf("%-9s %10.0f %16.1f\n", "separate", steered,
             agent_steps / sc->separation_seconds * 1e-6);
      library_seconds += sc->grid_seconds + sc->separation_seconds;
    }
    printf("%-9s %10.0f %16.1f\n", "clear", steered,
           agent_steps / sc->clear_seconds * 1e-6);
    printf("%-9s %10.0f %16.1f\n", "integrate", steered,
           agent_steps / sc->integrate_seconds * 1e-6);
    library_seconds += sc->clear_seconds + sc->integrate_seconds;
    printf("total: %.0f agent-steps in %.2f s = %.1f M agent-steps/s "
           "(grid + clear + behaviours + integrate)\n",
           agent_steps, library_seconds, agent_steps / library_seconds * 1e-6);
  }
  printf("%.2f s wall for the whole loop\n", wall_seconds);
}

void state_arrays(const scenario *sc, float *arrays[STATE_ARRAYS]) {
  const crowdsteer_agents *a = &sc->agents;
  const crowdsteer_vectors *w = &sc->wander.direction;
  float *list[STATE_ARRAYS] = {a->px, a->py, a->pz, a->vx, a->vy,
                               a->vz, w->x,  w->y,  w->z};
  memcpy(arrays, list, sizeof list);
}

/* FNV-1a over the bits of the final state, so runs can be compared: both
 * modes, any tile size and any thread count must print the same hash. */
uint64_t state_hash(const scenario *sc) {
  float *arrays[STATE_ARRAYS];
  state_arrays(sc, arrays);
  const crowdsteer_agents *a = &sc->agents;
  uint64_t hash = 0xCBF29CE484222325u;
  for (int k = 0; k < STATE_ARRAYS; k++) {
    if (!arrays[k]) continue;
    for (size_t i = 0; i < a->count; i++) {
      uint32_t bits;
      memcpy(&bits, &arrays[k][i], sizeof bits);
      for (int byte = 0; byte < 4; byte++) {
        hash ^= (bits >> (8 * byte)) & 0xFFu;
        hash *= 0x100000001B3u;
      }
    }
  }
  return hash;
}

int report_sanity(const scenario *sc, const figures *start, const figures *end) {
  const group *g = sc->groups;
  const int mixed = sc->opts.only_group < 0;
  printf("\nsanity (start -> end of the run):\n");
  if (g[GROUP_SEEK].end > g[GROUP_SEEK].begin && !sc->opts.navigate)
    printf("  seek    mean distance to the moving beacon   %9.2f -> %9.2f\n",
           start->mean_distance[GROUP_SEEK], end->mean_distance[GROUP_SEEK]);
  if (sc->path_begin > g[GROUP_SEEK].begin)
    printf("  field   followers in their exit's cell       %zu -> %zu of %zu\n",
           start->at_exit, end->at_exit, sc->path_begin - g[GROUP_SEEK].begin);
  if (sc->opts.navigate && g[GROUP_SEEK].end > sc->path_begin)
    printf("  path    mean distance from their pathway     %9.2f -> %9.2f\n",
           start->path_offset_mean, end->path_offset_mean);
  if (g[GROUP_ARRIVE].end > g[GROUP_ARRIVE].begin)
    printf("  arrive  at rest on their own grid spot       %zu of %zu "
           "(distance and speed < %g; mean distance %.3g -> %.3g)\n",
           end->arrivers_at_rest, g[GROUP_ARRIVE].end - g[GROUP_ARRIVE].begin,
           AT_REST_TOLERANCE, start->mean_distance[GROUP_ARRIVE],
           end->mean_distance[GROUP_ARRIVE]);
  if (g[GROUP_FLEE].end > g[GROUP_FLEE].begin)
    printf("  flee    mean distance from the threat        %9.2f -> %9.2f%s\n",
           start->mean_distance[GROUP_FLEE], end->mean_distance[GROUP_FLEE],
           mixed ? " (also wandering)" : "");
  if (g[GROUP_LEAVE].end > g[GROUP_LEAVE].begin)
    printf("  leave   mean distance from the threat        %9.2f -> %9.2f "
           "(inside escape radius %g: %zu -> %zu)\n",
           start->mean_distance[GROUP_LEAVE], end->mean_distance[GROUP_LEAVE],
           LEAVE_ESCAPE_RADIUS, start->leavers_inside_escape, end->leavers_inside_escape);
  if (g[GROUP_PURSUIT].end > g[GROUP_PURSUIT].begin)
    printf("  pursuit mean distance to the quarry          %9.2f -> %9.2f%s\n",
           start->mean_distance[GROUP_PURSUIT], end->mean_distance[GROUP_PURSUIT],
           mixed ? " (1 in 4 also leaves the threat)" : "");
  if (g[GROUP_EVADE].end > g[GROUP_EVADE].begin)
    printf("  evade   mean distance from the hunter        %9.2f -> %9.2f "
           "(inside panic radius %g: %zu -> %zu)%s\n",
           start->mean_distance[GROUP_EVADE], end->mean_distance[GROUP_EVADE],
           EVADE_PANIC_RADIUS, start->evaders_inside_panic, end->evaders_inside_panic,
           mixed ? " (also wandering)" : "");
  if (g[GROUP_WANDER].end > g[GROUP_WANDER].begin)
    printf("  wander  mean speed %.4f, top speed %.4f, max_speed 1\n",
           end->wander_mean_speed, end->wander_top_speed);
  if (start->spacing_measured && end->spacing_measured)
    printf("  spacing nearest neighbour: mean %.4f -> %.4f, minimum %.2g -> %.2g; pairs "
           "closer than %g: %zu -> %zu (separation %s)\n",
           start->spacing.mean_nearest, end->spacing.mean_nearest,
           start->spacing.min_nearest, end->spacing.min_nearest, OVERLAP_SPACING,
           start->spacing.close_pairs, end->spacing.close_pairs, sc->grid ? "on" : "off");
  if (start->spacing_measured && end->spacing_measured)
    printf(
        "  overlap pairs closer than r_i + r_j = %g: %zu -> %zu, minimum pair distance "
        "%.3g -> %.3g (avoidance %s)\n",
        2.0 * (double)sc->opts.body_radius, start->spacing.close_pairs2,
        end->spacing.close_pairs2, start->spacing.min_nearest, end->spacing.min_nearest,
        sc->opts.avoid == AVOID_OFF  ? "off"
        : sc->opts.avoid == AVOID_ON ? "on"
                                     : "only");
  if (sc->report)
    printf(
        "  avoidance last step: %zu agents crowded (no velocity clear of every "
        "neighbour), %zu stopped or slid at a wall; whole run: %zu crowded and %zu wall "
        "agent-steps\n",
        end->crowded, end->walled, sc->crowded_steps, sc->wall_stops);
  if (sc->obstacles)
    printf("  obstacles inside a polygon (held at rest): %zu -> %zu\n", start->inside,
           end->inside);
  printf("  state hash: %016" PRIx64 " (the same in both modes, for any tile size "
         "and thread count)\n",
         state_hash(sc));
  printf("  NaN/inf values in the state: %zu\n", end->non_finite);
  return end->non_finite == 0 ? 0 : 1;
}
