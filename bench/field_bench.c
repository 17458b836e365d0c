/* Navigation-field figures (docs/benchmarks.md): the build of a 1024 x
 * 1024 field over a floor plan of 16 x 16 rooms with doors and pillars,
 * a door's rebuild, and follow-the-field and follow-a-path (8 segments)
 * against seek in the same step (same ISA, same agents). Public API only; minimum of
 * alternating runs, in thread CPU time. crowdsteer-field-bench [side=1024]
 * [agents=1048576] [repeats=5] */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crowdsteer.h"

/* This thread's CPU time: on a machine shared with other jobs the time
 * the thread ran, not the time it waited for a core. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void wall(crowdsteer_obstacles *o, float x0, float y0, float x1, float y1) {
  const float x[2] = {x0, x1}, y[2] = {y0, y1};
  if (crowdsteer_obstacles_add(o, x, y, 2) != CROWDSTEER_OK) abort();
}

static void box(crowdsteer_obstacles *o, float x0, float y0, float x1, float y1) {
  const float x[4] = {x0, x1, x1, x0}, y[4] = {y0, y0, y1, y1};
  if (crowdsteer_obstacles_add(o, x, y, 4) != CROWDSTEER_OK) abort();
}

/* Rooms of `room` metres, walls with a 2 m door in the middle of each
 * (the door of room (0, 0)'s east wall shut when `shut`), a pillar per
 * room, the outer wall open at four exits. */
static crowdsteer_obstacles *floor_plan(float size, int rooms, int shut) {
  crowdsteer_obstacles *o = NULL;
  if (crowdsteer_obstacles_create(&o) != CROWDSTEER_OK) abort();
  const float room = size / (float)rooms;
  for (int k = 0; k <= rooms; k++) {
    const float at = (float)k * room;
    for (int r = 0; r < rooms; r++) {
      const float a = (float)r * room, mid = a + 0.5f * room;
      const int outer = k == 0 || k == rooms;
      const int exit = outer && r == rooms / 2;
      if (exit) continue;
      if (k == 1 && r == 0 && shut) {
        wall(o, at, a, at, a + room);
      } else {
        wall(o, at, a, at, mid - 1.0f); /* vertical walls, a door each */
        wall(o, at, mid + 1.0f, at, a + room);
      }
      wall(o, a, at, mid - 1.0f, at); /* horizontal walls */
      wall(o, mid + 1.0f, at, a + room, at);
    }
  }
  for (int ry = 0; ry < rooms; ry++)
    for (int rx = 0; rx < rooms; rx++) {
      const float x = ((float)rx + 0.3f) * room, y = ((float)ry + 0.3f) * room;
      box(o, x, y, x + 1.5f, y + 1.5f);
    }
  if (crowdsteer_obstacles_build(o, 0.0f) != CROWDSTEER_OK) abort();
  return o;
}

/* Seek and another behaviour alone in a step, alternately: the minimum of
 * each. */
static void compare(const crowdsteer_agents *agents,
                    const crowdsteer_step_behaviour *other, const char *name, float half,
                    size_t n, int repeats, const char *order) {
  crowdsteer_step_behaviour b[2];
  memset(b, 0, sizeof b);
  b[0].behaviour = CROWDSTEER_SEEK;
  b[0].target.point[0] = half;
  b[0].target.point[1] = half;
  b[1] = *other;
  double best[2] = {1e30, 1e30};
  for (int r = 0; r < 2 * repeats; r++) {
    crowdsteer_step_desc step;
    memset(&step, 0, sizeof step);
    step.behaviours = &b[r % 2];
    step.behaviour_count = 1;
    step.integrator.max_speed = 1.34f;
    step.integrator.dt = 0.05f;
    step.threads = 1;
    const double t0 = now();
    if (crowdsteer_step(agents, &step, 0, n) != CROWDSTEER_OK) abort();
    const double t1 = now();
    best[r % 2] = t1 - t0 < best[r % 2] ? t1 - t0 : best[r % 2];
  }
  printf("step of %zu agents (%s), one thread, %s: seek %.2f ns/agent, %s "
         "%.2f ns/agent (%.2fx)\n",
         n, order, crowdsteer_isa_name(crowdsteer_active_isa()),
         best[0] * 1e9 / (double)n, name, best[1] * 1e9 / (double)n, best[1] / best[0]);
}

/* Agents reordered by the cell they are in (row by row), as a crowd kept
 * sorted for locality is. */
static void sort_by_cell(float *a[4], size_t n, float cell, uint32_t side) {
  size_t *start = calloc((size_t)side * side + 1, sizeof *start);
  uint32_t *key = malloc(n * sizeof *key);
  float *b = malloc(n * sizeof *b);
  for (size_t i = 0; i < n; i++) {
    uint32_t cx = (uint32_t)(a[0][i] / cell), cy = (uint32_t)(a[1][i] / cell);
    cx = cx < side ? cx : side - 1;
    cy = cy < side ? cy : side - 1;
    key[i] = cy * side + cx;
    start[key[i] + 1]++;
  }
  for (size_t c = 0; c < (size_t)side * side; c++)
    start[c + 1] += start[c];
  for (int k = 0; k < 4; k++) {
    size_t *at = malloc(((size_t)side * side + 1) * sizeof *at);
    memcpy(at, start, ((size_t)side * side + 1) * sizeof *at);
    for (size_t i = 0; i < n; i++)
      b[at[key[i]]++] = a[k][i];
    memcpy(a[k], b, n * sizeof *b);
    free(at);
  }
  free(start);
  free(key);
  free(b);
}

int main(int argc, char **argv) {
  const uint32_t side = argc > 1 ? (uint32_t)atoi(argv[1]) : 1024;
  const size_t n = argc > 2 ? (size_t)atol(argv[2]) : 1048576;
  const int repeats = argc > 3 ? atoi(argv[3]) : 5;
  const float cell = 0.25f, size = (float)side * cell;
  crowdsteer_obstacles *shut = floor_plan(size, 16, 1), *open = floor_plan(size, 16, 0);
  /* Goals: the four exits' middles, just inside the grid. */
  const float half = 0.5f * size, edge = size - 0.5f * cell, in = 0.5f * cell;
  const float gx[4] = {in, edge, half + 0.5f * size / 16, half + 0.5f * size / 16};
  const float gy[4] = {half + 0.5f * size / 16, half + 0.5f * size / 16, in, edge};
  crowdsteer_field_desc d;
  memset(&d, 0, sizeof d);
  d.cell_size = cell;
  d.width = side;
  d.height = side;
  d.obstacles = open;
  d.goal_x = gx;
  d.goal_y = gy;
  d.goal_point_count = 4;
  crowdsteer_field *field = NULL;
  crowdsteer_field_create(&field);
  crowdsteer_status st = crowdsteer_field_build(field, &d);
  if (st != CROWDSTEER_OK) {
    fprintf(stderr, "build: %s\n", crowdsteer_status_string(st));
    return 1;
  }
  const double cells = (double)side * side;
  double build = 1e30, rebuild = 1e30;
  const float room = size / 16.0f;
  const uint32_t door0 = (uint32_t)(room / cell) - 2, door1 = door0 + 4;
  for (int r = 0; r < repeats; r++) {
    double t0 = now();
    crowdsteer_field_build(field, &d);
    double t1 = now();
    build = t1 - t0 < build ? t1 - t0 : build;
    d.obstacles = r % 2 ? open : shut;
    t0 = now();
    st = crowdsteer_field_rebuild(field, &d, door0, 0, door1, (uint32_t)(room / cell));
    t1 = now();
    if (st != CROWDSTEER_OK) return 1;
    rebuild = t1 - t0 < rebuild ? t1 - t0 : rebuild;
    d.obstacles = open;
  }
  printf("field %ux%u, %zu obstacle edges: build %.1f ms (%.1f ns/cell), door rebuild "
         "%.1f ms, %zu bytes\n",
         side, side, crowdsteer_obstacles_edge_count(open), build * 1e3,
         build * 1e9 / cells, rebuild * 1e3, crowdsteer_field_bytes(field));

  /* Follow-the-field against seek: one behaviour, the same step. */
  float *a[4];
  for (int k = 0; k < 4; k++)
    a[k] = malloc(n * sizeof(float));
  srand(1);
  for (size_t i = 0; i < n; i++) {
    a[0][i] = (float)rand() / (float)RAND_MAX * size;
    a[1][i] = (float)rand() / (float)RAND_MAX * size;
    a[2][i] = a[3][i] = 0.0f;
  }
  crowdsteer_agents agents = {n, 2, a[0], a[1], NULL, a[2], a[3], NULL, NULL};
  const crowdsteer_field *fields[1] = {field};
  crowdsteer_field_follow follow = {fields, 1, NULL, 0};
  crowdsteer_step_behaviour along_field, along_path;
  memset(&along_field, 0, sizeof along_field);
  along_field.behaviour = CROWDSTEER_FOLLOW_FIELD;
  along_field.field = &follow;
  /* A pathway of 8 segments zigzagging across the floor, 1 m wide: most
   * agents are off it (the rule measures every segment for p and for the
   * predicted position). */
  float px[9], py[9];
  for (int k = 0; k < 9; k++) {
    px[k] = size * (0.05f + 0.9f * (float)k / 8.0f);
    py[k] = size * (k % 2 ? 0.7f : 0.3f);
  }
  crowdsteer_pathway_desc pd;
  memset(&pd, 0, sizeof pd);
  pd.dims = 2;
  pd.point_count = 9;
  pd.x = px;
  pd.y = py;
  pd.radius = 1.0f;
  crowdsteer_pathway *pathway = NULL;
  if (crowdsteer_pathway_create(&pathway, &pd) != CROWDSTEER_OK) abort();
  const crowdsteer_pathway *paths[1] = {pathway};
  crowdsteer_path_follow pf;
  memset(&pf, 0, sizeof pf);
  pf.paths = paths;
  pf.path_count = 1;
  pf.direction = 1;
  pf.prediction_time = 1.0f;
  pf.lead_distance = 1.0f;
  memset(&along_path, 0, sizeof along_path);
  along_path.behaviour = CROWDSTEER_FOLLOW_PATH;
  along_path.path = &pf;
  for (int order = 0; order < 2; order++) {
    if (order == 1) sort_by_cell(a, n, cell, side);
    compare(&agents, &along_field, "follow_field", half, n, repeats,
            order ? "sorted by cell" : "random order");
  }
  compare(&agents, &along_path, "follow_path", half, n, repeats, "8 segments");
  crowdsteer_pathway_destroy(pathway);
  for (int k = 0; k < 4; k++)
    free(a[k]);
  crowdsteer_field_destroy(field);
  crowdsteer_obstacles_destroy(shut);
  crowdsteer_obstacles_destroy(open);
  return 0;
}
