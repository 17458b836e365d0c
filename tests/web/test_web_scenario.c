/* The web page's crowd (js/demo: seek a moving pointer, separation through
 * a grid rebuilt every frame) written in C: its state hashes must be those
 * in js/test/web-scenario.golden, which the npm package's Node tests and
 * the page in headless Chromium compute from WebAssembly (js/test,
 * js/test/page.sh). `--record` prints the file's lines instead; a path
 * argument replaces the file. */
#include "golden.h"

/* js/src/scenario.js is the same crowd, call for call. */
static void scenario_place(crowdsteer_agents *a) {
  for (uint32_t i = 0; i < a->count; i++) {
    a->px[i] = 100.0f * crowdsteer_random(7, i, 0x51A7, 0);
    a->py[i] = 100.0f * crowdsteer_random(7, i, 0x51A7, 1);
    a->vx[i] = a->vy[i] = 0;
  }
}

static uint64_t run(size_t count, int frames) {
  crowdsteer_agents a = web_crowd(count, 4);
  scenario_place(&a);
  crowdsteer_grid *grid = NULL;
  crowdsteer_workspace *workspace = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  CHECK_STATUS(crowdsteer_workspace_create(&workspace), CROWDSTEER_OK);
  const crowdsteer_params move = {.max_speed = 12, .max_force = 48, .dt = 0.03125f};
  const crowdsteer_neighbours nb = {.grid = grid, .radius = 1};
  crowdsteer_step_behaviour b[2] = {
      {.behaviour = CROWDSTEER_SEEK, .params = {.max_speed = 12}, .weight = 1},
      {.behaviour = CROWDSTEER_SEPARATION,
       .params = {.max_speed = 12},
       .weight = 4,
       .neighbours = &nb}};
  const crowdsteer_step_desc step = {.behaviours = b,
                                     .behaviour_count = 2,
                                     .integrator = move,
                                     .threads = 1,
                                     .workspace = workspace};
  const crowdsteer_grid_desc gd = {.cell_size = 1, .positions_only = 1, .threads = 1};
  for (int f = 0; f < frames; f++) {
    web_pointer_at(f, &b[0].target.point[0], &b[0].target.point[1]);
    CHECK_STATUS(crowdsteer_grid_build(grid, &a, &gd), CROWDSTEER_OK);
    CHECK_STATUS(crowdsteer_step(&a, &step, 0, count), CROWDSTEER_OK);
  }
  const uint64_t h = web_hash(&a, 4);
  crowdsteer_grid_destroy(grid);
  crowdsteer_workspace_destroy(workspace);
  free(a.px);
  return h;
}

int main(int argc, char **argv) {
  static const web_size sizes[] = {{1000, 120}, {10000, 30}, {100000, 10}};
  return web_golden_main(
      argc, argv, WEB_GOLDEN, "js/demo's crowd (tests/web/test_web_scenario.c --record)",
      "test_web_scenario", run, sizes, (int)(sizeof sizes / sizeof sizes[0]));
}
