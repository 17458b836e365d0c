/* bench/web/bench.mjs's crowdsteer scenarios in C, for the native ISAs
 * (CROWDSTEER_ISA picks one): seek; seek + separation (radius 1, about 8
 * neighbours); the flock. Wall time per agent-step on one thread, best of 3.
 * --page N: the demo page's crowd (js/src/scenario.js, as
 * tests/web/test_web_scenario.c) of N agents, ms per frame over frames 10-130.
 *   crowdsteer-web-bench [--page N] [sizes...]    (default 1000 10000 100000) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crowdsteer.h"

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

enum { SEEK_ONLY, SEPARATION, FLOCK };

/* n agents in 2D at rest at the origin: one block, px first (free(a.px)). */
static crowdsteer_agents zeroed_agents(size_t n) {
  float *block = calloc(4 * n + 1, sizeof(float));
  if (!block) abort();
  return (crowdsteer_agents){.count = n,
                             .dims = 2,
                             .px = block,
                             .py = block + n,
                             .vx = block + 2 * n,
                             .vy = block + 3 * n};
}

static double run(int scenario, size_t n) {
  crowdsteer_agents a = zeroed_agents(n);
  const float side = sqrtf((float)n * 3.14159265f / 8);
  for (uint32_t i = 0; i < n; i++) {
    a.px[i] = side * 0.5f * crowdsteer_random(5, i, 1, 0);
    a.py[i] = side * 0.5f * crowdsteer_random(5, i, 1, 1);
    a.vx[i] = crowdsteer_random(5, i, 2, 0);
    a.vy[i] = crowdsteer_random(5, i, 2, 1);
  }
  crowdsteer_grid *grid = NULL;
  crowdsteer_workspace *workspace = NULL;
  crowdsteer_grid_create(&grid);
  crowdsteer_workspace_create(&workspace);
  const crowdsteer_neighbours nb = {.grid = grid, .radius = 1};
  /* A far target: the crowd moves as one, keeping its density. */
  const crowdsteer_target far = {.point = {10 * side, 0}};
  crowdsteer_step_behaviour plans[3][3] = {
      {{.behaviour = CROWDSTEER_SEEK, .target = far}},
      {{.behaviour = CROWDSTEER_SEEK, .target = far},
       {.behaviour = CROWDSTEER_SEPARATION, .neighbours = &nb, .weight = 2}},
      {{.behaviour = CROWDSTEER_SEPARATION, .neighbours = &nb, .weight = 2},
       {.behaviour = CROWDSTEER_ALIGNMENT, .neighbours = &nb},
       {.behaviour = CROWDSTEER_COHESION, .neighbours = &nb}}};
  const size_t counts[3] = {1, 2, 3};
  const crowdsteer_step_desc step = {.behaviours = plans[scenario],
                                     .behaviour_count = counts[scenario],
                                     .integrator = {.max_speed = 1, .dt = 0.03125f},
                                     .threads = 1,
                                     .workspace = workspace};
  const crowdsteer_grid_desc gd = {
      .cell_size = 1, .positions_only = scenario == SEPARATION, .threads = 1};
  const int steps = n * 3 > 300000 ? 3 : (int)(300000 / n);
  double best = INFINITY;
  for (int r = -1; r < 3; r++) { /* r = -1 warms */
    const double t = now_ns();
    for (int s = 0; s < (r < 0 ? 1 : steps); s++) {
      if (scenario != SEEK_ONLY && crowdsteer_grid_build(grid, &a, &gd) != CROWDSTEER_OK)
        abort();
      if (crowdsteer_step(&a, &step, 0, n) != CROWDSTEER_OK) abort();
    }
    if (r >= 0 && (now_ns() - t) / steps < best) best = (now_ns() - t) / steps;
  }
  crowdsteer_grid_destroy(grid);
  crowdsteer_workspace_destroy(workspace);
  free(a.px);
  return best / (double)n;
}

/* The page's crowd, call for call (js/src/scenario.js). */
static double page(size_t n) {
  crowdsteer_agents a = zeroed_agents(n);
  for (uint32_t i = 0; i < n; i++) {
    a.px[i] = 100.0f * crowdsteer_random(7, i, 0x51A7, 0);
    a.py[i] = 100.0f * crowdsteer_random(7, i, 0x51A7, 1);
  }
  crowdsteer_grid *grid = NULL;
  crowdsteer_workspace *workspace = NULL;
  crowdsteer_grid_create(&grid);
  crowdsteer_workspace_create(&workspace);
  const crowdsteer_neighbours nb = {.grid = grid, .radius = 1};
  crowdsteer_step_behaviour b[2] = {
      {.behaviour = CROWDSTEER_SEEK, .params = {.max_speed = 12}, .weight = 1},
      {.behaviour = CROWDSTEER_SEPARATION,
       .params = {.max_speed = 12},
       .weight = 4,
       .neighbours = &nb}};
  const crowdsteer_step_desc step = {
      .behaviours = b,
      .behaviour_count = 2,
      .integrator = {.max_speed = 12, .max_force = 48, .dt = 0.03125f},
      .threads = 1,
      .workspace = workspace};
  const crowdsteer_grid_desc gd = {.cell_size = 1, .positions_only = 1, .threads = 1};
  double t = 0;
  for (int f = 0; f < 130; f++) {
    if (f == 10) t = now_ns();
    const int at = 3 * (f % 40), side = f / 40 % 4;
    const int xs[4] = {-60 + at, 60, 60 - at, -60}, ys[4] = {-60, -60 + at, 60, 60 - at};
    b[0].target.point[0] = (float)xs[side];
    b[0].target.point[1] = (float)ys[side];
    if (crowdsteer_grid_build(grid, &a, &gd) != CROWDSTEER_OK ||
        crowdsteer_step(&a, &step, 0, n) != CROWDSTEER_OK)
      abort();
  }
  t = (now_ns() - t) / 120;
  crowdsteer_grid_destroy(grid);
  crowdsteer_workspace_destroy(workspace);
  free(a.px);
  return t / 1e6;
}

int main(int argc, char **argv) {
  size_t sizes[8] = {1000, 10000, 100000};
  int count = 3;
  if (argc > 2 && !strcmp(argv[1], "--page")) {
    const size_t n = strtoul(argv[2], NULL, 10);
    printf("| page | %zu | %.2f ms/frame (%s) |\n", n, page(n),
           crowdsteer_isa_name(crowdsteer_active_isa()));
    argc -= 2;
    argv += 2;
    if (argc == 1) return 0;
  }
  if (argc > 1) {
    count = argc - 1 < 8 ? argc - 1 : 8;
    for (int i = 0; i < count; i++)
      sizes[i] = strtoul(argv[i + 1], NULL, 10);
  }
  static const char *const names[3] = {"seek", "separation", "flock"};
  printf("# crowdsteer %s on %s, one thread; ns per agent-step, best of 3\n",
         crowdsteer_version_string(), crowdsteer_isa_name(crowdsteer_active_isa()));
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < count; i++)
      printf("| %s | %zu | %.1f |\n", names[s], sizes[i], run(s, sizes[i]));
  return 0;
}
