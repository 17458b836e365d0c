/* The table of behaviours: one row per crowdsteer_behaviour (its name, the
 * inputs and parameters it reads, the machinery that runs it), and everything
 * that is derived from it alone (names, inputs). Validation (validation.c),
 * the entry points, the step and the backends' kernel tables are indexed by
 * the same enum. */
#include <string.h>

#include "internal.h"

const cs_behaviour_row cs_behaviours[] = {
    [CROWDSTEER_SEEK] = {"seek", CROWDSTEER_INPUT_TARGET,
                         CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET, CS_RUNS_ON_KERNELS},
    [CROWDSTEER_FLEE] = {"flee", CROWDSTEER_INPUT_TARGET,
                         CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET |
                             CS_USES_PANIC_RADIUS,
                         CS_RUNS_ON_KERNELS},
    [CROWDSTEER_ARRIVE] = {"arrive", CROWDSTEER_INPUT_TARGET,
                           CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET |
                               CS_USES_ARRIVE_RADII,
                           CS_RUNS_ON_KERNELS},
    [CROWDSTEER_LEAVE] = {"leave", CROWDSTEER_INPUT_TARGET,
                          CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET |
                              CS_USES_LEAVE_RADII,
                          CS_RUNS_ON_KERNELS},
    [CROWDSTEER_PURSUIT] = {"pursuit",
                            CROWDSTEER_INPUT_TARGET | CROWDSTEER_INPUT_TARGET_VELOCITY,
                            CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET |
                                CS_USES_PREDICTION,
                            CS_RUNS_ON_KERNELS},
    [CROWDSTEER_EVADE] = {"evade",
                          CROWDSTEER_INPUT_TARGET | CROWDSTEER_INPUT_TARGET_VELOCITY,
                          CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET |
                              CS_USES_PREDICTION | CS_USES_PANIC_RADIUS,
                          CS_RUNS_ON_KERNELS},
    [CROWDSTEER_WANDER] = {"wander", CROWDSTEER_INPUT_WANDER, CS_USES_WANDER,
                           CS_RUNS_ON_KERNELS},
    /* The neighbour behaviours validate their crowdsteer_neighbours
     * themselves (cs_nb_prepare). */
    [CROWDSTEER_SEPARATION] = {"separation", CROWDSTEER_INPUT_NEIGHBOURS,
                               CS_USES_MAX_SPEED, CS_RUNS_ON_NEIGHBOURS},
    [CROWDSTEER_COHESION] = {"cohesion", CROWDSTEER_INPUT_NEIGHBOURS,
                             CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET,
                             CS_RUNS_ON_NEIGHBOURS},
    [CROWDSTEER_ALIGNMENT] = {"alignment", CROWDSTEER_INPUT_NEIGHBOURS,
                              CS_USES_TIME_TO_TARGET, CS_RUNS_ON_NEIGHBOURS},
    /* Its fields are checked by cs_resolve_field (nav/follow.c). */
    [CROWDSTEER_FOLLOW_FIELD] = {"follow_field", CROWDSTEER_INPUT_FIELD,
                                 CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET},
    [CROWDSTEER_FOLLOW_PATH] = {"follow_path", CROWDSTEER_INPUT_PATH,
                                CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET},
    /* Seek towards the region's centre, whose fields cs_resolve_bounds
     * checks (bounds/bounds.c). */
    [CROWDSTEER_CONTAIN] = {"contain", CROWDSTEER_INPUT_BOUNDS,
                            CS_USES_MAX_SPEED | CS_USES_TIME_TO_TARGET,
                            CS_RUNS_ON_KERNELS},
};
_Static_assert(sizeof cs_behaviours / sizeof cs_behaviours[0] ==
                   CROWDSTEER_BEHAVIOUR_COUNT,
               "a row per crowdsteer_behaviour");

const cs_behaviour_row *cs_behaviour_row_of(crowdsteer_behaviour behaviour) {
  /* A value below the count without a row (a reserved id) is unknown too. */
  return (unsigned)behaviour < CROWDSTEER_BEHAVIOUR_COUNT && cs_behaviours[behaviour].name
             ? &cs_behaviours[behaviour]
             : NULL;
}

const char *crowdsteer_behaviour_name(crowdsteer_behaviour behaviour) {
  const cs_behaviour_row *row = cs_behaviour_row_of(behaviour);
  return row ? row->name : "unknown";
}

crowdsteer_status crowdsteer_behaviour_from_name(const char *name,
                                                 crowdsteer_behaviour *behaviour) {
  if (!name || !behaviour) return CROWDSTEER_ERROR_NULL_POINTER;
  for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++) {
    if (cs_behaviours[b].name && strcmp(name, cs_behaviours[b].name) == 0) {
      *behaviour = (crowdsteer_behaviour)b;
      return CROWDSTEER_OK;
    }
  }
  return CROWDSTEER_ERROR_PARAMETER;
}

unsigned crowdsteer_behaviour_inputs(crowdsteer_behaviour behaviour) {
  const cs_behaviour_row *row = cs_behaviour_row_of(behaviour);
  return row ? row->inputs : 0u;
}
