/* The hooks crowdsteer_step (step.c) uses for neighbour behaviours. */
#ifndef CROWDSTEER_STEP_NEIGHBOURS_H
#define CROWDSTEER_STEP_NEIGHBOURS_H

#include "internal.h"
#include "neighbours/neighbours.h"

/* Whether a step behaviour is separation, cohesion or alignment. */
static inline int cs_step_is_neighbour(int behaviour) {
  return behaviour >= CROWDSTEER_SEPARATION && behaviour <= CROWDSTEER_ALIGNMENT;
}

/* Validation of a neighbour behaviour of a step, per-agent data for the
 * agents of [first, last) with select[i] & bit (it needs a grid): its
 * resolved job into `job`, which cs_nb_step_run then uses as it is. */
crowdsteer_status cs_nb_step_check(cs_nb_job *job, const crowdsteer_agents *agents,
                                   const crowdsteer_step_behaviour *desc, size_t first,
                                   size_t last, const uint32_t *select, uint32_t bit);

/* After validation, before any tile: every neighbour behaviour's steering
 * for [begin, end) into its grid's memory from its resolved job (the k-th
 * neighbour behaviour's is nb_jobs[k]), on the step's ISA (read once per
 * step: whether alignment shares cohesion's walk depends on it);
 * jobs[b].precomputed points at it. OUT_OF_MEMORY (nothing written) if that
 * memory cannot grow. */
crowdsteer_status cs_nb_step_run(const crowdsteer_agents *agents,
                                 const crowdsteer_step_desc *step, size_t begin,
                                 size_t end, crowdsteer_isa isa, cs_job *jobs,
                                 cs_nb_job *nb_jobs);

#endif
