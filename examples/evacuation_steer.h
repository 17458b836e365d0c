/* crowdsteer-evacuation's way out: the navigation field over the floor plan
 * (goals just outside every exit) and the behaviour that follows it. */
#ifndef CROWDSTEER_EXAMPLES_EVACUATION_STEER_H
#define CROWDSTEER_EXAMPLES_EVACUATION_STEER_H

#include "evacuation.h"

crowdsteer_status evac_steer_setup(evacuation *ev);
void evac_steer_free(evacuation *ev);
/* The step's one behaviour: follow the field at EVAC_SPEED. */
void evac_steer_behaviour(const evacuation *ev, crowdsteer_step_behaviour *b);
void evac_steer_print(const evacuation *ev);

#endif /* CROWDSTEER_EXAMPLES_EVACUATION_STEER_H */
