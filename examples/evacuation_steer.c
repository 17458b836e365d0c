/* PLACEHOLDER until the navigation field lands: seek west. */
#include "evacuation_steer.h"
#include <stdio.h>
crowdsteer_status evac_steer_setup(evacuation *ev) { (void)ev; return CROWDSTEER_OK; }
void evac_steer_free(evacuation *ev) { (void)ev; }
void evac_steer_behaviour(const evacuation *ev, crowdsteer_step_behaviour *b) {
  *b = (crowdsteer_step_behaviour){.behaviour = CROWDSTEER_SEEK};
  b->target.kind = CROWDSTEER_TARGET_POINT;
  b->target.point[0] = -10.0f;
  b->target.point[1] = plan_height(&ev->plan) * 0.5f;
  b->params.max_speed = EVAC_SPEED;
  b->params.time_to_target = EVAC_DT;
}
void evac_steer_print(const evacuation *ev) { (void)ev; puts("  placeholder steering"); }
