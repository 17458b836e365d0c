/* The figures every driver of examples/scenarios.h prints about a crowd's
 * state (overlapping pairs, the closest pair, a hash of the positions'
 * bits), shared so that RVO2's driver and crowdsteer-scenarios count alike. */
#ifndef CROWDSTEER_EXAMPLES_SCENARIO_FIGURES_H
#define CROWDSTEER_EXAMPLES_SCENARIO_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reusable memory of the overlap count (zero-initialise; scn_overlaps_free). */
typedef struct scn_overlaps {
  int64_t *key;  /* per hash slot: the cell, or empty */
  size_t *head;  /* per hash slot: first agent of the cell */
  size_t *next;  /* per agent: next agent of its cell */
  int64_t *cell; /* per agent: its cell, 3 coordinates */
  size_t slots;  /* hash slots allocated */
  size_t agents; /* agents allocated */
} scn_overlaps;

/* Adds to count[0..2] the pairs of the state `pos` (n * dims floats, agents
 * interleaved) closer than r_i + r_j, 0.99 and 0.9 of it, and lowers
 * *min_ratio to the smallest distance / (r_i + r_j) among them (left as it
 * is when there are none). Exact (in double), through a spatial hash of
 * cells 2 r_max wide. Returns 0, or -1 when out of memory (nothing added). */
int scn_overlaps_measure(scn_overlaps *o, const float *pos, const float *radius, size_t n,
                         int dims, uint64_t count[3], double *min_ratio);
void scn_overlaps_free(scn_overlaps *o);

/* FNV-1a over the bits of `count` floats (the final positions, agents in
 * index order), to compare two implementations bit for bit. */
uint64_t scn_state_hash(const float *pos, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_EXAMPLES_SCENARIO_FIGURES_H */
