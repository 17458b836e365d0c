/* Start here: a quarry wanders, a crowd of pursuers chases it, and whoever
 * catches it starts again on the rim while the quarry reappears somewhere
 * else. One crowdsteer_step call per frame moves everybody.
 *
 *   chase [pursuers] [frames]      (defaults: 1000 pursuers, 600 frames)
 *
 * Prints the catches and exits with 1 if there were none or the state went
 * non-finite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "crowdsteer.h"

enum { QUARRY = 0 }; /* agent 0 is the quarry, agents 1..n the pursuers */

static const float arena_radius = 60.0f, catch_radius = 1.0f;

/* A point on the rim, from crowdsteer's counter-based random numbers. */
static void rim_point(uint32_t who, uint32_t frame, float *x, float *y) {
  float rx = crowdsteer_random(7, who, frame, 0),
        ry = crowdsteer_random(7, who, frame, 1);
  float r = sqrtf(rx * rx + ry * ry);
  if (r == 0.0f) rx = r = 1.0f;
  *x = arena_radius * rx / r;
  *y = arena_radius * ry / r;
}

int main(int argc, char **argv) {
  const size_t pursuers = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
  const int frames = argc > 2 ? atoi(argv[2]) : 600;
  const size_t n = pursuers + 1;

  /* The crowd, structure-of-arrays: one float array per coordinate. */
  float *px = calloc(n, sizeof(float)), *py = calloc(n, sizeof(float));
  float *vx = calloc(n, sizeof(float)), *vy = calloc(n, sizeof(float));
  float *wx = calloc(n, sizeof(float)), *wy = calloc(n, sizeof(float));
  uint32_t *mask = calloc(n, sizeof(uint32_t));
  if (!px || !py || !vx || !vy || !wx || !wy || !mask) return 1;
  for (size_t i = 1; i < n; i++)
    rim_point((uint32_t)i, 0, &px[i], &py[i]);
  crowdsteer_agents crowd = {
      .count = n, .dims = 2, .px = px, .py = py, .vx = vx, .vy = vy};

  /* Behaviour 0 (mask bit 0): pursue agent QUARRY. Behaviour 1 (bit 1):
   * wander, which keeps a direction per agent in wander_state. */
  crowdsteer_wander_state wander_state = {.direction = {.x = wx, .y = wy}, .seed = 42};
  crowdsteer_step_behaviour behaviours[2] = {
      {.behaviour = CROWDSTEER_PURSUIT,
       .target = {.kind = CROWDSTEER_TARGET_AGENT, .agent = QUARRY}},
      {.behaviour = CROWDSTEER_WANDER,
       .wander = &wander_state,
       .params = {.wander_distance = 2, .wander_radius = 1, .jitter = 0.4f}}};
  mask[QUARRY] = 1u << 1;
  for (size_t i = 1; i < n; i++)
    mask[i] = 1u << 0;
  /* Pursuers are slower than the quarry: they win by numbers. max_speed is
   * the integrator's; behaviours that leave it at 0 use the same. */
  float *max_speed = malloc(n * sizeof(float));
  if (!max_speed) return 1;
  for (size_t i = 0; i < n; i++)
    max_speed[i] = i == QUARRY ? 1.0f : 0.8f;
  crowdsteer_step_desc step = {
      .behaviours = behaviours,
      .behaviour_count = 2,
      .behaviour_mask = mask,
      .integrator = {.max_speed_per_agent = max_speed},
  };

  unsigned catches = 0;
  for (int frame = 1; frame <= frames; frame++) {
    /* In place: the step reads the quarry's state from before the step. */
    crowdsteer_status status = crowdsteer_step(&crowd, &step, 0, n);
    if (status != CROWDSTEER_OK) {
      fprintf(stderr, "chase: %s\n", crowdsteer_status_string(status));
      return 1;
    }
    wander_state.tick++; /* fresh randomness next frame */
    for (size_t i = 1; i < n; i++) {
      float dx = px[i] - px[QUARRY], dy = py[i] - py[QUARRY];
      if (dx * dx + dy * dy >= catch_radius * catch_radius) continue;
      catches++; /* caught: the pursuer starts again on the rim, at rest, */
      rim_point((uint32_t)i, (uint32_t)frame, &px[i], &py[i]);
      vx[i] = vy[i] = 0.0f;
      /* and the quarry reappears halfway out, somewhere else */
      rim_point(QUARRY, (uint32_t)frame, &px[QUARRY], &py[QUARRY]);
      px[QUARRY] *= 0.5f;
      py[QUARRY] *= 0.5f;
    }
  }

  size_t not_finite = 0;
  for (size_t i = 0; i < n; i++)
    not_finite +=
        !isfinite(px[i]) + !isfinite(py[i]) + !isfinite(vx[i]) + !isfinite(vy[i]);
  printf("chase: %zu pursuers, %d frames, crowdsteer %s on %s: %u catches, %zu "
         "non-finite values\n",
         pursuers, frames, crowdsteer_version_string(),
         crowdsteer_isa_name(crowdsteer_active_isa()), catches, not_finite);
  free(px), free(py), free(vx), free(vy), free(wx), free(wy), free(mask), free(max_speed);
  return catches > 0 && not_finite == 0 ? 0 : 1;
}
