// Runs one of examples/scenarios.h's scenarios on RVO2 (2D) or, built with
// -DRVO2_DRIVER_3D=1, on RVO2-3D, through their public API only (their
// RVOSimulator, as a user calls it), and prints one line of figures:
//   steps to completion (the scenario's reached test after each step, as the
//   reference examples loop; capped), overlapping pair-steps (pairs closer
//   than the sum of their radii, after each step, summed over the steps; also
//   those closer than 0.99 and 0.9 of it, as most of ORCA's overlaps are
//   contacts a rounding error deep), the smallest pair distance as a
//   fraction of the radii's sum, a hash of the final positions' bits (to
//   compare another implementation bit for bit) and the time per agent-step
//   of doStep (process CPU time and wall time).
// RVO2's doStep builds its agent k-d tree and then computes every agent's
// neighbours and new velocity; its public API has no way to time the tree
// build alone, so the whole doStep is timed.
// Usage: rvo2_driver --scenario NAME [--n N] [--seed S] [--cap STEPS]
//                    [--steps K] [--repeat R] [--metrics 0|1]
//   --steps K: run exactly K steps (timing; no completion test, metrics off
//   unless --metrics 1); the first step, which also sizes RVO2's arrays, is
//   reported apart and left out of the mean.
//   --repeat R: run the whole simulation R times (a new simulator each time,
//   the scenario made once) and report the median of the R mean times, and
//   each of them; the metrics come from the first run.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "RVO.h"

#include "../../examples/scenario_figures.h"
#include "../../examples/scenarios.h"

#if RVO2_DRIVER_3D
#define DIMS 3
typedef RVO::Vector3 Vec;
#else
#define DIMS 2
typedef RVO::Vector2 Vec;
#endif

namespace {

double now(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

Vec make_vec(const float *v) {
#if RVO2_DRIVER_3D
  return Vec(v[0], v[1], v[2]);
#else
  return Vec(v[0], v[1]);
#endif
}

void read_positions(const RVO::RVOSimulator &sim, std::vector<float> &pos) {
  for (std::size_t i = 0; i < sim.getNumAgents(); ++i) {
    const Vec &p = sim.getAgentPosition(i);
    pos[DIMS * i] = p.x();
    pos[DIMS * i + 1] = p.y();
#if RVO2_DRIVER_3D
    pos[DIMS * i + 2] = p.z();
#endif
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void usage() {
  std::fprintf(stderr,
               "usage: rvo2_driver --scenario NAME [--n N] [--seed S] [--cap STEPS] "
               "[--steps K] [--repeat R] [--metrics 0|1]\n");
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  std::string name;
  std::size_t n = 250, cap = 20000, timing_steps = 0, repeats = 1;
  std::uint64_t seed = 1;
  int metrics = -1;
  for (int a = 1; a < argc; ++a) {
    const std::string opt = argv[a];
    if (a + 1 >= argc) usage();
    const char *val = argv[++a];
    if (opt == "--scenario")
      name = val;
    else if (opt == "--n")
      n = std::strtoull(val, NULL, 10);
    else if (opt == "--seed")
      seed = std::strtoull(val, NULL, 10);
    else if (opt == "--cap")
      cap = std::strtoull(val, NULL, 10);
    else if (opt == "--steps")
      timing_steps = std::strtoull(val, NULL, 10);
    else if (opt == "--metrics")
      metrics = std::atoi(val);
    else if (opt == "--repeat")
      repeats = std::strtoull(val, NULL, 10);
    else
      usage();
  }
  if (metrics < 0) metrics = timing_steps ? 0 : 1;
  if (repeats < 1) usage();

  const double t_setup = now(CLOCK_MONOTONIC);
  scn_scenario s;
  if (name.empty() || scn_make(&s, name.c_str(), n, seed) != 0) {
    std::fprintf(stderr, "rvo2_driver: cannot make scenario '%s' (n %zu)\n", name.c_str(),
                 n);
    return 1;
  }
  if (s.dims != DIMS) {
    std::fprintf(stderr, "rvo2_driver: scenario '%s' is %dD, this driver %dD\n", s.name,
                 s.dims, DIMS);
    return 1;
  }
  const double scenario_seconds = now(CLOCK_MONOTONIC) - t_setup;

  std::vector<float> pos(DIMS * s.n), pref(DIMS * s.n), radius(s.n);
  scn_overlaps counter = {};
  std::uint64_t overlaps[3] = {0, 0, 0};
  double min_ratio = 1e30;
  std::uint64_t vis_queries = 0, vis_differ = 0, edge_differ = 0;
  std::vector<double> cpu_per, wall_per; // per repeat: seconds per agent-step
  double cpu_first = 0.0, wall_first = 0.0;
  std::size_t steps = 0;
  bool reached = false;
  const std::uint64_t rng0 = s.rng;
  for (std::size_t rep = 0; rep < repeats; ++rep) {
    const bool measure = metrics && rep == 0;
    s.rng = rng0; // the same perturbations every repeat
    RVO::RVOSimulator *sim = new RVO::RVOSimulator();
    sim->setTimeStep(s.time_step);
#if RVO2_DRIVER_3D
    sim->setAgentDefaults(s.agent.neighbor_dist, s.agent.max_neighbors,
                          s.agent.time_horizon, s.agent.radius, s.agent.max_speed);
#else
    sim->setAgentDefaults(s.agent.neighbor_dist, s.agent.max_neighbors,
                          s.agent.time_horizon, s.agent.time_horizon_obst, s.agent.radius,
                          s.agent.max_speed);
    for (std::size_t k = 0; k < s.num_obstacles; ++k) {
      std::vector<RVO::Vector2> poly;
      for (std::size_t v = s.obstacle_first[k]; v < s.obstacle_first[k + 1]; ++v)
        poly.push_back(make_vec(s.obstacle_xy + 2 * v));
      sim->addObstacle(poly);
    }
    if (s.num_obstacles) sim->processObstacles();
#endif
    for (std::size_t i = 0; i < s.n; ++i)
      sim->addAgent(make_vec(s.start + DIMS * i));
    for (std::size_t i = 0; i < s.n; ++i)
      radius[i] = sim->getAgentRadius(i);
    read_positions(*sim, pos);

#if !RVO2_DRIVER_3D
    // Where RVO2's visibility query and the scenario's differ: on the
    // roadmap's edges, and on every query its preferred-velocity rule could
    // make (each agent to each vertex, every step).
    for (std::size_t u = 0; measure && u < s.num_vertices; ++u)
      for (std::size_t v = 0; v < s.num_vertices; ++v) {
        const bool rvo = sim->queryVisibility(make_vec(s.vertex_xy + 2 * u),
                                              make_vec(s.vertex_xy + 2 * v), 2.0F);
        if (rvo != (s.edge[u * s.num_vertices + v] != 0)) ++edge_differ;
      }
#endif

    double cpu = 0.0, wall = 0.0;
    steps = 0;
    reached = false;
    const std::size_t limit = timing_steps ? timing_steps : cap;
    while (steps < limit) {
      scn_pref_velocities(&s, pos.data(), pref.data());
      for (std::size_t i = 0; i < s.n; ++i)
        sim->setAgentPrefVelocity(i, make_vec(pref.data() + DIMS * i));
#if !RVO2_DRIVER_3D
      for (std::size_t i = 0; measure && s.num_vertices && i < s.n; ++i)
        for (std::size_t v = 0; v < s.num_vertices; ++v, ++vis_queries) {
          const float *q = s.vertex_xy + 2 * v;
          const bool ours = scn_visible(&s, pos.data() + 2 * i, q, radius[i]) != 0;
          if (ours !=
              sim->queryVisibility(sim->getAgentPosition(i), make_vec(q), radius[i]))
            ++vis_differ;
        }
#endif
      const double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
      sim->doStep();
      const double c1 = now(CLOCK_PROCESS_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
      if (steps == 0) {
        if (rep == 0) {
          cpu_first = c1 - c0;
          wall_first = w1 - w0;
        }
      } else {
        cpu += c1 - c0;
        wall += w1 - w0;
      }
      ++steps;
      read_positions(*sim, pos);
      if (measure && scn_overlaps_measure(&counter, pos.data(), radius.data(), s.n, DIMS,
                                          overlaps, &min_ratio) != 0) {
        std::fprintf(stderr, "rvo2_driver: out of memory\n");
        return 1;
      }
      if (!timing_steps && scn_reached(&s, pos.data())) {
        reached = true;
        break;
      }
    }
    delete sim;
    const double agent_steps = steps > 1 ? (double)(steps - 1) * (double)s.n : 1.0;
    cpu_per.push_back(cpu / agent_steps);
    wall_per.push_back(wall / agent_steps);
  }

  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  std::printf("%s%s n=%zu threads=%d steps=%zu %s", s.name, DIMS == 3 ? "(3D)" : "", s.n,
              threads, steps,
              timing_steps ? "timing" : (reached ? "completed" : "NOT-completed(cap)"));
  if (metrics) {
    std::printf(" overlap_pair_steps=%llu below_0.99=%llu below_0.9=%llu",
                (unsigned long long)overlaps[0], (unsigned long long)overlaps[1],
                (unsigned long long)overlaps[2]);
    if (min_ratio < 1e29)
      std::printf(" min_dist_ratio=%.4f", min_ratio);
    else
      std::printf(" min_dist_ratio=none_below_1");
  }
  std::printf(" cpu_ns_per_agent_step=%.1f wall_ns_per_agent_step=%.1f",
              1e9 * median(cpu_per), 1e9 * median(wall_per));
  if (repeats > 1) {
    std::printf(" repeats_cpu_ns=");
    for (std::size_t r = 0; r < repeats; ++r)
      std::printf("%s%.1f", r ? "," : "", 1e9 * cpu_per[r]);
    std::printf(" repeats_wall_ns=");
    for (std::size_t r = 0; r < repeats; ++r)
      std::printf("%s%.1f", r ? "," : "", 1e9 * wall_per[r]);
  }
  std::printf(" first_step_cpu_ms=%.2f first_step_wall_ms=%.2f scenario_s=%.2f",
              1e3 * cpu_first, 1e3 * wall_first, scenario_seconds);
#if !RVO2_DRIVER_3D
  if (s.num_vertices && metrics)
    std::printf(
        " roadmap_edges_differ=%llu visibility_queries=%llu visibility_differ=%llu",
        (unsigned long long)edge_differ, (unsigned long long)vis_queries,
        (unsigned long long)vis_differ);
#endif
  std::printf(" state_hash=%016llx\n",
              (unsigned long long)scn_state_hash(pos.data(), pos.size()));
  scn_overlaps_free(&counter);
  scn_free(&s);
  return 0;
}
