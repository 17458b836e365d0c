/* A floor for the npm package's navigation: two rooms joined by a door, a
 * pillar, a navigation field to a goal in the far room and a pathway in
 * the near one; agents scattered by crowdsteer's random numbers follow
 * the field and the pathway blended, with ORCA and the walls as the step's
 * last stage, and then both behaviours once more into the steering. The
 * state and steering hashes must be those in js/test/web-nav.golden, which
 * js/test/nav.test.js computes through the package from both WebAssembly
 * builds (the same crowd, call for call). `--record` prints its lines. */
#include "golden.h"

/* The outer walls, a middle wall with a door (y 16 to 22), a pillar. */
static const float nav_walls[][4] = {{-2, -2, 40, -2}, {40, -2, 40, 40},
                                     {40, 40, -2, 40}, {-2, 40, -2, -2},
                                     {18, -2, 18, 16}, {18, 22, 18, 40}};
static const float nav_pillar[1][2] = {{30, 28}};

static uint64_t run(size_t count, int frames) {
  crowdsteer_agents a = web_crowd(count, 6);
  float *sx = web_array(&a, 4), *sy = web_array(&a, 5);
  /* In the near room ([0, 14] x [0, 36]; crowdsteer_random is in [-1, 1)):
   * products only, which JavaScript's doubles round once to float as C's
   * float product does. */
  for (uint32_t i = 0; i < count; i++) {
    a.px[i] = 14.0f * fabsf(crowdsteer_random(12, i, 0x4E41, 0));
    a.py[i] = 36.0f * fabsf(crowdsteer_random(12, i, 0x4E41, 1));
  }
  crowdsteer_obstacles *obstacles = web_obstacles(
      nav_walls, sizeof nav_walls / sizeof nav_walls[0], nav_pillar, 1, 2.0f);
  crowdsteer_field *field = NULL;
  CHECK_STATUS(crowdsteer_field_create(&field), CROWDSTEER_OK);
  const float goal_x[1] = {36}, goal_y[1] = {4};
  const crowdsteer_field_desc fd = {.origin = {-2, -2},
                                    .cell_size = 0.5f,
                                    .width = 84,
                                    .height = 84,
                                    .obstacles = obstacles,
                                    .goal_x = goal_x,
                                    .goal_y = goal_y,
                                    .goal_point_count = 1};
  CHECK_STATUS(crowdsteer_field_build(field, &fd), CROWDSTEER_OK);
  const float path_x[3] = {2, 2, 16}, path_y[3] = {2, 34, 34};
  const crowdsteer_pathway_desc pd = {2, 3, path_x, path_y, NULL, 1.5f, 0};
  crowdsteer_pathway *pathway = NULL;
  CHECK_STATUS(crowdsteer_pathway_create(&pathway, &pd), CROWDSTEER_OK);
  const crowdsteer_field *fields[1] = {field};
  const crowdsteer_field_follow along_field = {fields, 1, NULL, 0};
  const crowdsteer_pathway *paths[1] = {pathway};
  const crowdsteer_path_follow along_path = {.paths = paths,
                                             .path_count = 1,
                                             .direction = 1,
                                             .prediction_time = 1,
                                             .lead_distance = 2};
  crowdsteer_grid *grid = NULL;
  crowdsteer_workspace *workspace = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_workspace_create(&workspace), CROWDSTEER_OK);
  const crowdsteer_neighbours nb = {.grid = grid, .radius = 2, .max_neighbours = 8};
  uint32_t *report = calloc(count + 1, sizeof(uint32_t));
  const crowdsteer_avoidance avoid = {.radius = 0.25f,
                                      .time_horizon = 2,
                                      .obstacle_time_horizon = 1,
                                      .neighbours = &nb,
                                      .obstacles = obstacles,
                                      .report = report};
  const crowdsteer_params speed = {.max_speed = 1.4f};
  const crowdsteer_step_behaviour follow[2] = {{.behaviour = CROWDSTEER_FOLLOW_FIELD,
                                                .params = speed,
                                                .weight = 1,
                                                .field = &along_field},
                                               {.behaviour = CROWDSTEER_FOLLOW_PATH,
                                                .params = speed,
                                                .weight = 0.5f,
                                                .path = &along_path}};
  const crowdsteer_step_desc step = {
      .behaviours = follow,
      .behaviour_count = 2,
      .integrator = {.max_speed = 1.4f, .max_force = 4, .dt = 0.1f},
      .threads = 1,
      .workspace = workspace,
      .avoidance = &avoid};
  web_steps(&a, &step, grid, 2, frames);
  const crowdsteer_output first = {.steering = {sx, sy, NULL}, .weight = 1};
  const crowdsteer_output then = {
      .steering = {sx, sy, NULL}, .mode = CROWDSTEER_ACCUMULATE, .weight = 0.5f};
  CHECK_STATUS(crowdsteer_follow_field(&a, &along_field, &speed, &first, 0, count),
               CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_follow_path(&a, &along_path, &speed, &then, 0, count),
               CROWDSTEER_OK);
  const uint64_t h = web_hash(&a, 6);
  crowdsteer_pathway_destroy(pathway);
  crowdsteer_field_destroy(field);
  crowdsteer_obstacles_destroy(obstacles);
  crowdsteer_grid_destroy(grid);
  crowdsteer_workspace_destroy(workspace);
  free(report);
  free(a.px);
  return h;
}

int main(int argc, char **argv) {
  static const web_size sizes[] = {{400, 150}, {3000, 30}};
  return web_golden_main(
      argc, argv, WEB_NAV_GOLDEN,
      "js/test/nav.test.js's floor (tests/web/test_web_nav.c --record)", "test_web_nav",
      run, sizes, (int)(sizeof sizes / sizeof sizes[0]));
}
