/* FNV-1a over float bits, NaNs canonicalised (their payloads may differ
 * between backends): the golden hashes' and the web scenario's. */
#ifndef CROWDSTEER_TEST_HASH_H
#define CROWDSTEER_TEST_HASH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FNV_OFFSET 0xCBF29CE484222325ull

static inline uint64_t hash_floats(uint64_t h, const float *a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    float x = a[i] != a[i] ? (float)NAN : a[i];
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    for (int b = 0; b < 4; b++) {
      h ^= (bits >> (8 * b)) & 0xFFu;
      h *= 0x100000001B3ull;
    }
  }
  return h;
}

#endif
