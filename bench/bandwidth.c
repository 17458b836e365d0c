/* Memory-bandwidth baselines in plain C. Built with -O3 -march=native and
 * vectorised freely: they measure the machine, not crowdsteer. */
#include "bandwidth.h"

#include <string.h>

/* All k arrays advance together, as they do in a kernel that reads p, v and
 * s side by side, but in chunks so that each inner loop is one simple stream
 * the compiler vectorises. 1024 floats = 4 KiB per array per chunk: long
 * enough for the prefetchers, short enough to keep all k streams live. */
#define CHUNK 1024

uint32_t bw_read(float *const *a, int k, size_t n) {
  uint32_t acc = 0;
  for (size_t base = 0; base < n; base += CHUNK) {
    size_t len = n - base < CHUNK ? n - base : CHUNK;
    for (int j = 0; j < k; j++) {
      /* Integer xor of the bit patterns: a reduction the compiler may
       * vectorise without -ffast-math, and one that reads every byte. */
      const float *src = a[j] + base;
      uint32_t x = 0;
      for (size_t i = 0; i < len; i++) {
        uint32_t bits;
        memcpy(&bits, src + i, sizeof bits);
        x ^= bits;
      }
      acc ^= x;
    }
  }
  return acc;
}

void bw_copy(float *const *dst, float *const *src, int k, size_t n) {
  for (size_t base = 0; base < n; base += CHUNK) {
    size_t len = n - base < CHUNK ? n - base : CHUNK;
    for (int j = 0; j < k; j++) {
      float *restrict d = dst[j] + base;
      const float *restrict s = src[j] + base;
      for (size_t i = 0; i < len; i++)
        d[i] = s[i];
    }
  }
}

void bw_rmw(float *const *a, int k, size_t n, float scale, float offset) {
  for (size_t base = 0; base < n; base += CHUNK) {
    size_t len = n - base < CHUNK ? n - base : CHUNK;
    for (int j = 0; j < k; j++) {
      float *restrict x = a[j] + base;
      for (size_t i = 0; i < len; i++)
        x[i] = x[i] * scale + offset;
    }
  }
}
