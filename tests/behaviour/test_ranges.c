/* Splitting a batch into sub-ranges (in any order, with empty pieces) gives
 * the same bits as one call: the contract a host's job system relies on. */
#include "../common/check.h"
#include "../common/scenario.h"

enum { SEEK, ARRIVE, LEAVE, PURSUIT, EVADE, WANDER, INTEGRATE, ENTRY_COUNT };
static const char *const names[ENTRY_COUNT] = {"seek",  "arrive", "leave",    "pursuit",
                                               "evade", "wander", "integrate"};
/* The target form each behaviour is tried with: AGENTS for pursuit and
 * evade, where split calls must still read every target's old state. */
static const crowdsteer_target_kind kinds[ENTRY_COUNT] = {
    CROWDSTEER_TARGET_POINT,  CROWDSTEER_TARGET_ARRAYS, CROWDSTEER_TARGET_ARRAYS,
    CROWDSTEER_TARGET_AGENTS, CROWDSTEER_TARGET_AGENTS, CROWDSTEER_TARGET_POINT,
    CROWDSTEER_TARGET_POINT};

static crowdsteer_status run(scenario *s, int entry, int per_agent, int accumulate,
                             size_t begin, size_t end) {
  crowdsteer_agents agents = scenario_agents(s);
  crowdsteer_params p;
  memset(&p, 0, sizeof p);
  p.max_speed = 2;
  p.max_force = 3;
  p.dt = 0.5f;
  p.time_to_target = 0.5f;
  p.slowing_radius = 4;
  p.target_radius = 0.25f;
  p.danger_radius = 20;
  p.escape_radius = 3;
  p.max_prediction = 8;
  p.wander_radius = 1;
  p.wander_distance = 2;
  p.jitter = 0.4f;
  if (per_agent) {
    p.max_speed_per_agent = s->max_speed;
    p.max_force_per_agent = s->max_force;
    p.mass_per_agent = s->mass;
    p.target_radius_per_agent = s->target_radius;
    p.slowing_radius_per_agent = s->slowing_radius;
    p.panic_radius_per_agent = s->panic_radius;
    p.danger_radius_per_agent = s->danger_radius;
    p.escape_radius_per_agent = s->escape_radius;
    p.wander_radius_per_agent = s->wander_radius;
    p.wander_distance_per_agent = s->wander_distance;
  }
  crowdsteer_output out;
  memset(&out, 0, sizeof out);
  out.steering = scenario_vectors(s->out);
  if (accumulate) {
    out.mode = CROWDSTEER_ACCUMULATE;
    out.weight = 0.75f;
    if (per_agent) out.weight_per_agent = s->weight;
  }
  crowdsteer_target t;
  memset(&t, 0, sizeof t);
  t.kind = kinds[entry];
  t.point[0] = 1.5f, t.point[1] = -2, t.point[2] = 0.5f;
  t.point_velocity[0] = 0.25f;
  t.position = scenario_vectors(s->tp);
  t.velocity = scenario_vectors(s->tv);
  t.index = s->index;
  crowdsteer_wander_state ws = {scenario_vectors(s->wander), 2024, 17};
  crowdsteer_vectors steering = scenario_vectors(s->out);
  switch (entry) {
  case SEEK: return crowdsteer_seek(&agents, &t, &p, &out, begin, end);
  case ARRIVE: return crowdsteer_arrive(&agents, &t, &p, &out, begin, end);
  case LEAVE: return crowdsteer_leave(&agents, &t, &p, &out, begin, end);
  case PURSUIT: return crowdsteer_pursuit(&agents, &t, &p, &out, begin, end);
  case EVADE: return crowdsteer_evade(&agents, &t, &p, &out, begin, end);
  case WANDER: return crowdsteer_wander(&agents, &ws, &p, &out, begin, end);
  default: return crowdsteer_integrate(&agents, &steering, &p, begin, end);
  }
}

int main(void) {
  if (skip_if_forced_isa_unavailable()) return 77;
  enum { N = 53 };
  /* cut points; each split is run in the listed order, so some run the
   * later piece first */
  static const size_t splits[][8] = {{0, 1, N},
                                     {0, 17, 17, N},
                                     {0, 5, 16, 17, 31, 32, N},
                                     {0, N - 1, N},
                                     {0, 8, 16, 24, 40, 48, N},
                                     {0, 3, 7, 11, 13, 29, N}};
  static const size_t split_len[] = {3, 4, 7, 3, 7, 7};
  size_t compared = 0;
  for (int dims = 2; dims <= 3; dims++)
    for (int entry = 0; entry < ENTRY_COUNT; entry++)
      for (int per_agent = 0; per_agent < 2; per_agent++)
        for (int accumulate = 0; accumulate < (entry == INTEGRATE ? 1 : 2);
             accumulate++) {
          scenario whole, pieces;
          uint64_t seed = 1000u + (uint64_t)(dims * 100 + entry * 10 + per_agent);
          scenario_make(&whole, N, dims, seed, 1);
          CHECK_STATUS(run(&whole, entry, per_agent, accumulate, 0, N), CROWDSTEER_OK);
          size_t bytes = (N + 32) * SCENARIO_FLOAT_ARRAYS * sizeof(float);
          scenario_make(&pieces, N, dims, seed, 1);
          CHECK_MSG(memcmp(whole.storage, pieces.storage, bytes) != 0,
                    "%s %dD: the call wrote nothing", names[entry], dims);
          scenario_free(&pieces);
          for (size_t sp = 0; sp < sizeof splits / sizeof splits[0]; sp++) {
            scenario_make(&pieces, N, dims, seed, 1);
            size_t cuts = split_len[sp];
            /* odd splits run back to front */
            for (size_t j = 0; j + 1 < cuts; j++) {
              size_t piece = sp % 2 ? cuts - 2 - j : j;
              CHECK_STATUS(run(&pieces, entry, per_agent, accumulate, splits[sp][piece],
                               splits[sp][piece + 1]),
                           CROWDSTEER_OK);
            }
            CHECK_MSG(
                memcmp(whole.storage, pieces.storage, bytes) == 0,
                "%s %dD per_agent %d accumulate %d: split #%zu differs from one call",
                names[entry], dims, per_agent, accumulate, sp);
            compared++;
            scenario_free(&pieces);
          }
          scenario_free(&whole);
        }
  printf("compared %zu split runs with single calls\n", compared);
  return check_report("test_behaviour_ranges");
}
