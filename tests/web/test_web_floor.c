/* The web page's floor (js/demo/?mode=floor): a building of four rooms
 * joined by doors, two exits, four pillars; agents scattered by
 * crowdsteer's random numbers follow a navigation field to the nearest exit
 * with ORCA and the walls as the step's last stage. Its state hashes must
 * be those in js/test/web-floor.golden, which the npm package (both
 * WebAssembly builds, js/test/nav.test.js) and the page in headless
 * Chromium (js/demo/check.mjs) compute from js/src/scenario.js's floor,
 * call for call. `--record` prints the file's lines. */
#include "golden.h"

/* js/src/scenario.js's FLOOR_WALLS and FLOOR_PILLARS. */
static const float floor_walls[][4] = {
    {-100, -100, 100, -100}, {-100, 100, 100, 100}, {-100, -100, -100, 40},
    {-100, 48, -100, 100},   {100, -100, 100, -48}, {100, -40, 100, 100},
    {0, -100, 0, -30},       {0, -22, 0, 22},       {0, 30, 0, 100},
    {-100, 0, -70, 0},       {-62, 0, 62, 0},       {70, 0, 100, 0}};
static const float floor_pillars[4][2] = {{-50, -50}, {50, -50}, {50, 50}, {-50, 50}};

static uint64_t run(size_t count, int frames) {
  crowdsteer_agents a = web_crowd(count, 4);
  uint32_t *report = calloc(count + 1, sizeof(uint32_t));
  /* In [-95, 95): products only, which JavaScript's doubles round once to
   * float as C's float product does. */
  for (uint32_t i = 0; i < count; i++) {
    a.px[i] = 95.0f * crowdsteer_random(13, i, 0xF1, 0);
    a.py[i] = 95.0f * crowdsteer_random(13, i, 0xF1, 1);
  }
  crowdsteer_obstacles *obstacles = web_obstacles(
      floor_walls, sizeof floor_walls / sizeof floor_walls[0], floor_pillars, 4, 3.0f);
  crowdsteer_field *field = NULL;
  CHECK_STATUS(crowdsteer_field_create(&field), CROWDSTEER_OK);
  const float goal_x[2] = {-115, 115}, goal_y[2] = {44, -44};
  const crowdsteer_field_desc fd = {.origin = {-120, -120},
                                    .cell_size = 1,
                                    .width = 240,
                                    .height = 240,
                                    .obstacles = obstacles,
                                    .goal_x = goal_x,
                                    .goal_y = goal_y,
                                    .goal_point_count = 2};
  CHECK_STATUS(crowdsteer_field_build(field, &fd), CROWDSTEER_OK);
  const crowdsteer_field *fields[1] = {field};
  const crowdsteer_field_follow along = {fields, 1, NULL, 0};
  crowdsteer_grid *grid = NULL;
  crowdsteer_workspace *workspace = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_workspace_create(&workspace), CROWDSTEER_OK);
  const crowdsteer_neighbours nb = {.grid = grid, .radius = 2, .max_neighbours = 8};
  const crowdsteer_avoidance avoid = {.radius = 0.4f,
                                      .time_horizon = 1,
                                      .obstacle_time_horizon = 0.5f,
                                      .neighbours = &nb,
                                      .obstacles = obstacles,
                                      .report = report};
  const crowdsteer_step_behaviour follow = {.behaviour = CROWDSTEER_FOLLOW_FIELD,
                                            .params = {.max_speed = 8},
                                            .weight = 1,
                                            .field = &along};
  const crowdsteer_step_desc step = {
      .behaviours = &follow,
      .behaviour_count = 1,
      .integrator = {.max_speed = 8, .max_force = 32, .dt = 0.03125f},
      .threads = 1,
      .workspace = workspace,
      .avoidance = &avoid};
  web_steps(&a, &step, grid, 2, frames);
  const uint64_t h = web_hash(&a, 4);
  crowdsteer_field_destroy(field);
  crowdsteer_obstacles_destroy(obstacles);
  crowdsteer_grid_destroy(grid);
  crowdsteer_workspace_destroy(workspace);
  free(report);
  free(a.px);
  return h;
}

int main(int argc, char **argv) {
  static const web_size sizes[] = {{2000, 60}, {10000, 20}};
  return web_golden_main(argc, argv, WEB_FLOOR_GOLDEN,
                         "js/src/scenario.js's floor, the page's ?mode=floor "
                         "(tests/web/test_web_floor.c --record)",
                         "test_web_floor", run, sizes,
                         (int)(sizeof sizes / sizeof sizes[0]));
}
