/* Memory-bandwidth baselines (bandwidth.c): read, copy and read-modify-write
 * over k float arrays, the yardstick each kernel is measured against. */
#ifndef CROWDSTEER_BENCH_BANDWIDTH_H
#define CROWDSTEER_BENCH_BANDWIDTH_H

#include <stddef.h>
#include <stdint.h>

/** Reads every element of a[0..k) (n each); returns a checksum. */
uint32_t bw_read(float *const *a, int k, size_t n);
/** dst[j][i] = src[j][i] for j < k, i < n. */
void bw_copy(float *const *dst, float *const *src, int k, size_t n);
/** a[j][i] = a[j][i] * scale + offset, in place, for j < k, i < n. */
void bw_rmw(float *const *a, int k, size_t n, float scale, float offset);

#endif /* CROWDSTEER_BENCH_BANDWIDTH_H */
