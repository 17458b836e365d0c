/* splitmix64, the one deterministic 64-bit generator of the tests, fuzzer,
 * demo pictures and viewer (not of the library: wander uses its own
 * counter-based hash, src/internal.h). Header-only; include it by path. */
#ifndef CROWDSTEER_SPLITMIX64_H
#define CROWDSTEER_SPLITMIX64_H

#include <stdint.h>

/* Advances *state and returns the next number of its stream. */
static inline uint64_t splitmix64_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

#endif
