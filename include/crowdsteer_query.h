/* crowdsteer's neighbour queries: how many neighbours each agent sees, and
 * which are the nearest, by the very rules the neighbour behaviours use.
 * Part of the public API: include crowdsteer.h, which includes this header. */
/** \file crowdsteer_query.h
 * Neighbour counts and nearest-k lists; included by crowdsteer.h. */
#ifndef CROWDSTEER_QUERY_H
#define CROWDSTEER_QUERY_H

#include "crowdsteer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Neighbour queries -----------------------------------------------------
 * Agent i's neighbours N(i) are exactly those of separation, cohesion and
 * alignment with the same crowdsteer_neighbours (radius, group filter,
 * field of view and inner radius, the nearest-k cap; its form is checked
 * as a behaviour's, PARAMETER for an unknown one, but changes nothing, and
 * its tasks are not read): the agents q != i with len(p_q - p_i) < radius
 * that pass the filters, and of those the max_neighbours nearest by
 * distance, ties by the lower id (crowdsteer_agents.id, or the index). As
 * for the behaviours,
 * with a grid every position and velocity is the grid's copy (count and
 * dims must match its build), without one every pair is examined; the
 * results never depend on the grid's cell or table size, or on how the
 * range is split. Validation as a behaviour's (a field of view needs
 * velocities: PARAMETER on a positions-only grid), plus the outputs:
 * NULL_POINTER, ALIGNMENT, OVERLAP (an output meeting another or any array
 * the query reads); on error nothing is written. They run on the caller's
 * thread, allocate nothing and keep the floating-point promises of every
 * entry point. Outputs are indexed by the agent's index in the whole
 * batch, for agents [begin, end). */

/** count[i] = the number of agent i's neighbours, len(N(i)) (at most the
 *  cap). */
CROWDSTEER_API crowdsteer_status crowdsteer_neighbour_count(
    const crowdsteer_agents *agents, const crowdsteer_neighbours *nb, uint32_t *count,
    size_t begin, size_t end);

/**
 * The k nearest of agent i's neighbours (1 <= k <= CROWDSTEER_MAX_NEIGHBOURS,
 * else PARAMETER), in row i of k entries: index[i * k + j] is the batch
 * index of the j-th nearest and distance_squared[i * k + j] its
 * dot(d, d), d = p_i - p_q (float, summed x, y, z in that order; its square
 * root is the distance the rules compare), ordered by distance, ties by the
 * lower id, then by the lower index (agents sharing an id). Entries past
 * the neighbours found hold UINT32_MAX and +infinity; found[i] (found may
 * be NULL) is their number, min(k, len(N(i))). RANGE if end * k does not
 * fit a size_t.
 */
CROWDSTEER_API crowdsteer_status crowdsteer_neighbour_nearest(
    const crowdsteer_agents *agents, const crowdsteer_neighbours *nb, uint32_t k,
    uint32_t *index, float *distance_squared, uint32_t *found, size_t begin, size_t end);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_QUERY_H */
