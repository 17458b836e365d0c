/* The obstacle and avoidance fuzz cases (fuzz_avoid.c): inputs with the
 * "AV" prefix. */
#ifndef CROWDSTEER_FUZZ_AVOID_H
#define CROWDSTEER_FUZZ_AVOID_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the bytes after the prefix into an obstacle set, a crowd and an
 * avoidance description, runs crowdsteer_avoid and crowdsteer_step with it
 * and checks their properties; `isa` >= 0 overrides the ISA the bytes
 * choose for the first call (every supported ISA is compared with it).
 * Returns 0 when all hold, else prints what failed and returns 1. */
int cs_fuzz_avoid(const uint8_t *data, size_t size, int isa);

/* Counters over all calls, for the replay test's summary and its checks
 * that the inputs reach what they should. */
typedef struct cs_fuzz_avoid_stats {
  unsigned long cases, adds, adds_accepted, avoids, avoids_accepted, sane_checked;
  unsigned long steps, steps_accepted, moves_checked, wall_stops, insides, crowded;
  unsigned long reversed_checked, grid_checked;
} cs_fuzz_avoid_stats;
extern cs_fuzz_avoid_stats cs_fuzz_avoid_counters;

#endif
