/* The hooks crowdsteer_step (step.c) uses for neighbour behaviours. */
#ifndef CROWDSTEER_STEP_NEIGHBOURS_H
#define CROWDSTEER_STEP_NEIGHBOURS_H

#include "internal.h"
#include "neighbours/neighbours.h"

/* Validation of a neighbour behaviour of a step, per-agent data for the
 * agents of [first, last) with select[i] & bit (it needs a grid): its
 * resolved job into `job`, which cs_nb_step_run then uses as it is. */
crowdsteer_status cs_nb_step_check(cs_nb_job *job, const crowdsteer_agents *agents,
                                   const crowdsteer_step_behaviour *desc, size_t first,
                                   size_t last, const uint32_t *select, uint32_t bit);

/* Floats of scratch a step's neighbour behaviours need for a range of
 * `range` agents on `isa` (0 without any), from their resolved jobs; 0 if
 * that does not fit a size_t of bytes (the step reports OUT_OF_MEMORY). */
int cs_nb_step_floats(const crowdsteer_step_desc *step, const cs_nb_job *nb_jobs,
                      size_t range, int dims, crowdsteer_isa isa, size_t *floats);

/* After validation, before any tile: every neighbour behaviour's steering
 * for [begin, end) into `scratch` (cs_nb_step_floats of it) from its
 * resolved job (the k-th neighbour behaviour's is nb_jobs[k]), on the
 * step's ISA (read once per step: whether alignment shares cohesion's walk
 * depends on it); jobs[b].precomputed points at it. Grids are only read. */
void cs_nb_step_run(const crowdsteer_agents *agents, const crowdsteer_step_desc *step,
                    size_t begin, size_t end, crowdsteer_isa isa, cs_job *jobs,
                    cs_nb_job *nb_jobs, float *scratch);

#endif
