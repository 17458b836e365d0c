/* The README's API example, kept compiling and running by the test suite:
 * four agents seek the point (10, 0), one behaviour call and one integrator
 * call per step. */
#include <stdio.h>

#include "crowdsteer.h"

int main(void) {
  float px[4] = {0, 0, 5, -3}, py[4] = {0, 4, -2, 1}; /* positions */
  float vx[4] = {0}, vy[4] = {0};                     /* velocities */
  float sx[4], sy[4];                                 /* steering */
  crowdsteer_agents crowd = {
      .count = 4, .dims = 2, .px = px, .py = py, .vx = vx, .vy = vy};
  crowdsteer_target goal = {.kind = CROWDSTEER_TARGET_POINT, .point = {10, 0}};
  crowdsteer_params params = {.max_speed = 0.5f};           /* zero fields: defaults */
  crowdsteer_output out = {.steering = {.x = sx, .y = sy}}; /* overwrite mode */

  for (int step = 0; step < 60; step++) {
    crowdsteer_status status = crowdsteer_seek(&crowd, &goal, &params, &out, 0, 4);
    if (status == CROWDSTEER_OK)
      status = crowdsteer_integrate(&crowd, &out.steering, &params, 0, 4);
    if (status != CROWDSTEER_OK) {
      fprintf(stderr, "crowdsteer: %s\n", crowdsteer_status_string(status));
      return 1;
    }
  }
  /* Seek overshoots and comes back, so each agent ends within one step
   * (max_speed * dt = 0.5) of the goal. */
  for (int i = 0; i < 4; i++) {
    float dx = px[i] - 10, dy = py[i];
    if (dx * dx + dy * dy > 0.25f) {
      fprintf(stderr, "agent %d did not reach the goal: (%g, %g)\n", i, px[i], py[i]);
      return 1;
    }
  }
  printf("crowdsteer %s (%s): all 4 agents at the goal\n", crowdsteer_version_string(),
         crowdsteer_isa_name(crowdsteer_active_isa()));
  return 0;
}
