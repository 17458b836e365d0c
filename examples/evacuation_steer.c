/* crowdsteer-evacuation's way out: one navigation field over the building
 * whose goals are strips just outside every exit, so each agent walks to
 * its nearest exit by travel time, around walls and through doors. */
#include "evacuation_steer.h"

#include <stdio.h>
#include <stdlib.h>

/* The field reaches this far past the outer wall (and half a cell more:
 * with cells of 1 / n metres, the walls, on whole metres, then run through
 * cell centres, so each blocks one row of cells, within half a cell of it;
 * with cells under 0.4 m, narrower than the body radius ORCA keeps from a
 * wall, no agent stands in a blocked cell, where the field has no
 * direction). Its goal strips are GOAL_DEPTH deep, outside each opening. */
#define FIELD_MARGIN 3.0f
#define GOAL_DEPTH 2.0f

typedef struct steer_state {
  crowdsteer_field *field;
  crowdsteer_obstacles *goals;
  crowdsteer_field_follow follow;
  crowdsteer_field_desc desc;
  double build_seconds;
} steer_state;

/* A counter-clockwise rectangle outside exit k's opening, as a goal
 * region: GOAL_GAP past the outer wall (agents leave the batch on crossing
 * the wall, before they reach a goal cell, where the field brakes them)
 * and GOAL_DEPTH deep. */
#define GOAL_GAP 0.5f
static crowdsteer_status add_goal(crowdsteer_obstacles *goals, const floor_plan *p,
                                  size_t k) {
  const plan_rect e = plan_exit(p, k);
  float x0 = e.x0, x1 = e.x1, y0 = e.y0, y1 = e.y1;
  if (e.x0 == e.x1) { /* an opening in the west or east wall */
    const float out = e.x0 == 0.0f ? -1.0f : 1.0f;
    x0 = e.x0 + out * GOAL_GAP, x1 = e.x0 + out * GOAL_DEPTH;
  } else { /* in the south or north wall */
    const float out = e.y0 == 0.0f ? -1.0f : 1.0f;
    y0 = e.y0 + out * GOAL_GAP, y1 = e.y0 + out * GOAL_DEPTH;
  }
  const float lx = x0 < x1 ? x0 : x1, hx = x0 < x1 ? x1 : x0;
  const float ly = y0 < y1 ? y0 : y1, hy = y0 < y1 ? y1 : y0;
  const float x[4] = {lx, hx, hx, lx}, y[4] = {ly, ly, hy, hy};
  return crowdsteer_obstacles_add(goals, x, y, 4);
}

crowdsteer_status evac_steer_setup(evacuation *ev) {
  steer_state *s = calloc(1, sizeof *s);
  if (!s) return CROWDSTEER_ERROR_OUT_OF_MEMORY;
  ev->field = s;
  const floor_plan *p = &ev->plan;
  const float h = ev->opts.field_cell;
  crowdsteer_status st = crowdsteer_obstacles_create(&s->goals);
  for (size_t k = 0; st == CROWDSTEER_OK && k < plan_exit_count(p); k++)
    st = add_goal(s->goals, p, k);
  if (st == CROWDSTEER_OK) st = crowdsteer_field_create(&s->field);
  if (st != CROWDSTEER_OK) return st;
  s->desc = (crowdsteer_field_desc){
      .origin = {-FIELD_MARGIN - 0.5f * h, -FIELD_MARGIN - 0.5f * h},
      .cell_size = h,
      .width = (uint32_t)((plan_width(p) + 2.0f * FIELD_MARGIN) / h) + 1u,
      .height = (uint32_t)((plan_height(p) + 2.0f * FIELD_MARGIN) / h) + 1u,
      .obstacles = ev->obstacles,
      .goal_regions = s->goals};
  const double start = evac_seconds();
  st = crowdsteer_field_build(s->field, &s->desc);
  s->build_seconds = evac_seconds() - start;
  s->follow = (crowdsteer_field_follow){
      .fields = (const crowdsteer_field *const *)&s->field, .field_count = 1};
  return st;
}

void evac_steer_free(evacuation *ev) {
  steer_state *s = ev->field;
  if (!s) return;
  crowdsteer_field_destroy(s->field);
  crowdsteer_obstacles_destroy(s->goals);
  free(s);
  ev->field = NULL;
}

void evac_steer_behaviour(const evacuation *ev, crowdsteer_step_behaviour *b) {
  const steer_state *s = ev->field;
  *b = (crowdsteer_step_behaviour){.behaviour = CROWDSTEER_FOLLOW_FIELD,
                                   .field = &s->follow};
  b->params.max_speed = EVAC_SPEED;
  b->params.time_to_target = EVAC_DT;
}

void evac_steer_print(const evacuation *ev) {
  const steer_state *s = ev->field;
  const double cells = (double)s->desc.width * (double)s->desc.height;
  printf("  navigation field: %u x %u cells of %.2f m, goals outside the %zu exits, "
         "built in "
         "%.1f ms (%.1f ns a cell), %.1f MB\n",
         s->desc.width, s->desc.height, (double)s->desc.cell_size,
         plan_exit_count(&ev->plan), 1e3 * s->build_seconds,
         1e9 * s->build_seconds / cells, (double)crowdsteer_field_bytes(s->field) / 1e6);
}
