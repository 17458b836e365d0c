/* A walled crowd for the npm package's avoidance: agents scattered by
 * crowdsteer's random numbers seek a pointer round a square past four
 * pillars and a wall, avoiding each other and the obstacles with ORCA as
 * the step's last stage. Its state hashes must be those in
 * js/test/web-avoid.golden, which js/test/avoid.test.js computes through
 * the package from both WebAssembly builds (the same crowd, call for
 * call). `--record` prints the file's lines. */
#include "golden.h"

/* Four square pillars, counter-clockwise, and a wall. */
static crowdsteer_obstacles *walls(void) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  for (int k = 0; k < 4; k++) {
    const float cx = k & 1 ? 20.0f : -20.0f, cy = k & 2 ? 20.0f : -20.0f;
    const float x[4] = {cx - 3, cx + 3, cx + 3, cx - 3},
                y[4] = {cy - 3, cy - 3, cy + 3, cy + 3};
    CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 4), CROWDSTEER_OK);
  }
  const float wx[2] = {-40, -8}, wy[2] = {0, 0};
  CHECK_STATUS(crowdsteer_obstacles_add(o, wx, wy, 2), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0.0f), CROWDSTEER_OK);
  return o;
}

static uint64_t run(size_t count, int frames) {
  crowdsteer_agents a = web_crowd(count, 4);
  uint32_t *report = calloc(count + 1, sizeof(uint32_t));
  for (uint32_t i = 0; i < count; i++) {
    a.px[i] = 50.0f * crowdsteer_random(11, i, 0x51A7, 0);
    a.py[i] = 50.0f * crowdsteer_random(11, i, 0x51A7, 1);
  }
  crowdsteer_obstacles *obstacles = walls();
  crowdsteer_grid *grid = NULL;
  crowdsteer_workspace *workspace = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_workspace_create(&workspace), CROWDSTEER_OK);
  const crowdsteer_neighbours nb = {.grid = grid, .radius = 3, .max_neighbours = 10};
  const crowdsteer_avoidance avoid = {.radius = 0.4f,
                                      .time_horizon = 2,
                                      .obstacle_time_horizon = 1,
                                      .neighbours = &nb,
                                      .obstacles = obstacles,
                                      .report = report};
  crowdsteer_step_behaviour seek = {
      .behaviour = CROWDSTEER_SEEK, .params = {.max_speed = 12}, .weight = 1};
  const crowdsteer_step_desc step = {
      .behaviours = &seek,
      .behaviour_count = 1,
      .integrator = {.max_speed = 12, .max_force = 48, .dt = 0.03125f},
      .threads = 1,
      .workspace = workspace,
      .avoidance = &avoid};
  const crowdsteer_grid_desc gd = {.cell_size = 3, .threads = 1};
  for (int f = 0; f < frames; f++) {
    web_pointer_at(f, &seek.target.point[0], &seek.target.point[1]);
    CHECK_STATUS(crowdsteer_grid_build(grid, &a, &gd), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_step(&a, &step, 0, count), CROWDSTEER_OK);
  }
  const uint64_t h = web_hash(&a, 4);
  uint32_t held = 0, walled = 0;
  for (size_t i = 0; i < count; i++) {
    held += (report[i] & CROWDSTEER_REPORT_INSIDE) != 0;
    walled += (report[i] & CROWDSTEER_REPORT_WALL) != 0;
  }
  crowdsteer_obstacles_destroy(obstacles);
  crowdsteer_grid_destroy(grid);
  crowdsteer_workspace_destroy(workspace);
  free(report);
  free(a.px);
  return h ^ ((uint64_t)held << 48 | (uint64_t)walled << 32); /* the report too */
}

int main(int argc, char **argv) {
  static const web_size sizes[] = {{500, 160}, {4000, 40}};
  return web_golden_main(
      argc, argv, WEB_AVOID_GOLDEN,
      "js/test/avoid.test.js's walled crowd (tests/web/test_web_avoid.c --record)",
      "test_web_avoid", run, sizes, (int)(sizeof sizes / sizeof sizes[0]));
}
