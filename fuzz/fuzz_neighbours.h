/* The neighbour fuzz cases (fuzz_neighbours.c): inputs with the "NB" prefix. */
#ifndef CROWDSTEER_FUZZ_NEIGHBOURS_H
#define CROWDSTEER_FUZZ_NEIGHBOURS_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the bytes after the prefix into a grid and a neighbour query and
 * checks its properties; `isa` >= 0 overrides the ISA the bytes choose.
 * Returns 0 when all hold, else prints what failed and returns 1. */
int cs_fuzz_neighbours(const uint8_t *data, size_t size, int isa);

/* Counters over all calls: cases, accepted grid queries, checked steps,
 * crowds whose bits were compared in their cell order, neighbour queries
 * (count and nearest) compared with and without the grid, cases in the
 * Reynolds form. */
typedef struct cs_fuzz_neighbour_stats {
  unsigned long cases, queries_accepted, steps_checked, cell_orders_checked;
  unsigned long queries_compared, reynolds_accepted;
} cs_fuzz_neighbour_stats;
extern cs_fuzz_neighbour_stats cs_fuzz_neighbour_counters;

#endif
