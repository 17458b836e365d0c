/* What the world-bounds tests share: a small deterministic generator and
 * the batch over the test's own position and velocity arrays (px .. vz,
 * which the including file defines before this header). */
#ifndef CROWDSTEER_TEST_BOUNDS_COMMON_H
#define CROWDSTEER_TEST_BOUNDS_COMMON_H

#include <stdint.h>

#include "../common/check.h"

static uint32_t rng = 12345u;
static float uniform(float lo, float hi) {
  rng = rng * 1664525u + 1013904223u;
  return lo + (hi - lo) * (float)(rng >> 8) * 0x1p-24f;
}

static crowdsteer_agents batch(int dims, size_t count) {
  crowdsteer_agents a = {
      count, dims, px, py, dims == 3 ? pz : NULL, vx, vy, dims == 3 ? vz : NULL, NULL};
  return a;
}

#endif
