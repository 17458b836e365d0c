/* How far apart a crowd's agents are: each agent's nearest-neighbour
 * distance (mean and minimum) and the pairs closer than a spacing, computed
 * exactly with a grid (not by testing every pair). For the demo's report. */
#ifndef CROWDSTEER_EXAMPLES_SPACING_H
#define CROWDSTEER_EXAMPLES_SPACING_H

#include <stddef.h>

#include "crowdsteer.h"

typedef struct spacing_figures {
  double mean_nearest; /* mean over agents of the distance to the nearest other */
  double min_nearest;  /* the smallest of those */
  size_t close_pairs;  /* pairs (each counted once) closer than the spacing */
  size_t close_pairs2; /* and closer than the second spacing (spacing_measure2) */
} spacing_figures;

/* Measures agents [begin, end) of `agents` (2D or 3D) against each other.
 * Returns 0, or -1 when out of memory or fewer than two agents. */
int spacing_measure(const crowdsteer_agents *agents, size_t begin, size_t end,
                    double spacing, spacing_figures *out);
/* The same, also counting the pairs closer than `spacing2` in the same
 * search (the demo's overlapping bodies: closer than r_i + r_j). */
int spacing_measure2(const crowdsteer_agents *agents, size_t begin, size_t end,
                     double spacing, double spacing2, spacing_figures *out);

#endif /* CROWDSTEER_EXAMPLES_SPACING_H */
