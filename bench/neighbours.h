/* Neighbour benchmarks, 2D and 3D (grid build, separation, cohesion, alignment, and the
 * "seek one goal with separation" scenario) against the userloop competitor;
 * registered by crowdsteer_bench.c. */
#ifndef CROWDSTEER_BENCH_NEIGHBOURS_H
#define CROWDSTEER_BENCH_NEIGHBOURS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Registers every neighbour benchmark for each count in counts[0..n_counts)
 *  (counts must outlive the run). */
void register_neighbours(const int64_t *counts, size_t n_counts);

/** Frees the neighbour benchmarks' crowd (call once, after the run). */
void neighbours_free(void);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_BENCH_NEIGHBOURS_H */
