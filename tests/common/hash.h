/* FNV-1a over float bits, NaNs canonicalised (their payloads may differ
 * between backends): the golden hashes' and the web scenario's; and over
 * raw bytes. */
#ifndef CROWDSTEER_TEST_HASH_H
#define CROWDSTEER_TEST_HASH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FNV_OFFSET 0xCBF29CE484222325ull

/* FNV-1a over raw bytes (no canonicalising: for values that are no NaN). */
static inline uint64_t hash_bytes(uint64_t h, const void *data, size_t bytes) {
  const unsigned char *b = (const unsigned char *)data;
  for (size_t k = 0; k < bytes; k++)
    h = (h ^ b[k]) * 0x100000001B3ull;
  return h;
}

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
