/* Splitting a batch into sub-ranges (in any order, with empty pieces) gives
 * the same bits as one call: the contract a host's job system relies on. */
#include "../common/check.h"
#include "../common/entries.h"

/* The target form each behaviour is tried with: AGENTS for pursuit and
 * evade, where split calls must still read every target's old state. */
static const crowdsteer_target_kind kinds[ENTRY_COUNT] = {
    CROWDSTEER_TARGET_POINT,  CROWDSTEER_TARGET_ARRAYS, CROWDSTEER_TARGET_ARRAYS,
    CROWDSTEER_TARGET_ARRAYS, CROWDSTEER_TARGET_AGENTS, CROWDSTEER_TARGET_AGENTS,
    CROWDSTEER_TARGET_POINT,  CROWDSTEER_TARGET_POINT};

static crowdsteer_status run(scenario *s, int entry, int per_agent, int accumulate,
                             size_t begin, size_t end) {
  const variant va = {entry, s->dims, kinds[entry], per_agent, accumulate, s->count, 1};
  return run_entry(s, &va, begin, end);
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
                    "%s %dD: the call wrote nothing", entry_name(entry), dims);
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
                entry_name(entry), dims, per_agent, accumulate, sp);
            compared++;
            scenario_free(&pieces);
          }
          scenario_free(&whole);
        }
  printf("compared %zu split runs with single calls\n", compared);
  return check_report("test_behaviour_ranges");
}
