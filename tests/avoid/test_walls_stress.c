/* Walls hold at scale: 100,000 agents in a 4 x 4 block of rooms joined by
 * doorways, with pillars, seeking goals in other rooms, in corners and
 * beyond the outer walls, for 1,000 steps (the second half with avoidance
 * that sees walls too late, so only the step's guarantee keeps them in).
 * Every move is checked exactly against the edges near it; any crossing,
 * or an agent ending inside a pillar, fails. CI runs it at full size
 * in a step of its own (arguments: agents, steps). */
#include <stdlib.h>

#include "../common/check.h"
#include "avoid/exact.h"

enum { ROOMS = 4, MAX_EDGES = 512 };
static const float ROOM = 150.0f, DOOR = 6.0f;

static float edge_list[MAX_EDGES][4];
static int edge_count, wall_count; /* walls first (both ways), then polygon edges */

static void add_wall(crowdsteer_obstacles *o, float x0, float y0, float x1, float y1) {
  const float x[2] = {x0, x1}, y[2] = {y0, y1};
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 2), CROWDSTEER_OK);
  edge_list[edge_count][0] = x0, edge_list[edge_count][1] = y0;
  edge_list[edge_count][2] = x1, edge_list[edge_count][3] = y1;
  edge_count++, wall_count++;
}

static void add_square(crowdsteer_obstacles *o, float cx, float cy, float h) {
  const float x[4] = {cx - h, cx + h, cx + h, cx - h},
              y[4] = {cy - h, cy - h, cy + h, cy + h};
  CHECK_STATUS(crowdsteer_obstacles_add(o, x, y, 4), CROWDSTEER_OK);
  for (int k = 0; k < 4; k++) {
    edge_list[edge_count][0] = x[k], edge_list[edge_count][1] = y[k];
    edge_list[edge_count][2] = x[(k + 1) % 4], edge_list[edge_count][3] = y[(k + 1) % 4];
    edge_count++;
  }
}

static crowdsteer_obstacles *make_rooms(void) {
  crowdsteer_obstacles *o = NULL;
  CHECK_STATUS(crowdsteer_obstacles_create(&o), CROWDSTEER_OK);
  const float side = ROOMS * ROOM;
  add_wall(o, 0, 0, side, 0);
  add_wall(o, side, 0, side, side);
  add_wall(o, side, side, 0, side);
  add_wall(o, 0, side, 0, 0);
  /* Inner walls with a doorway in the middle of each room's side. */
  for (int k = 1; k < ROOMS; k++) {
    const float at = ROOM * (float)k;
    for (int r = 0; r < ROOMS; r++) {
      const float lo = ROOM * (float)r, mid = lo + ROOM / 2;
      add_wall(o, at, lo, at, mid - DOOR / 2);
      add_wall(o, at, mid + DOOR / 2, at, lo + ROOM);
      add_wall(o, lo, at, mid - DOOR / 2, at);
      add_wall(o, mid + DOOR / 2, at, lo + ROOM, at);
    }
  }
  for (int i = 0; i < ROOMS; i++)
    for (int j = 0; j < ROOMS; j++)
      add_square(o, ROOM * (float)i + ROOM / 2, ROOM * (float)j + ROOM / 2, 5.0f);
  CHECK_STATUS(crowdsteer_obstacles_build(o, 0), CROWDSTEER_OK);
  return o;
}

/* The test's own index: edges by 10 x 10 cells of their bounding boxes. */
enum { CELLS = 64 };
static int cell_edges[CELLS][CELLS][24], cell_fill[CELLS][CELLS];
static float cell_size;

static int cell_of(float x) {
  int c = (int)floorf(x / cell_size);
  return c < 0 ? 0 : (c >= CELLS ? CELLS - 1 : c);
}

static void index_edges(void) {
  cell_size = ROOMS * ROOM / CELLS;
  for (int e = 0; e < edge_count; e++) {
    const float *E = edge_list[e];
    for (int i = cell_of(fminf(E[0], E[2])); i <= cell_of(fmaxf(E[0], E[2])); i++)
      for (int j = cell_of(fminf(E[1], E[3])); j <= cell_of(fmaxf(E[1], E[3])); j++)
        if (cell_fill[i][j] < 24)
          cell_edges[i][j][cell_fill[i][j]++] = e;
        else
          check_failures++;
  }
}

static int crosses(const float p[2], const float q[2]) {
  if (!isfinite(q[0]) || !isfinite(q[1])) return 1;
  for (int i = cell_of(fminf(p[0], q[0])); i <= cell_of(fmaxf(p[0], q[0])); i++)
    for (int j = cell_of(fminf(p[1], q[1])); j <= cell_of(fmaxf(p[1], q[1])); j++)
      for (int k = 0; k < cell_fill[i][j]; k++) {
        const int e = cell_edges[i][j][k];
        const float a[2] = {edge_list[e][0], edge_list[e][1]};
        const float b[2] = {edge_list[e][2], edge_list[e][3]};
        for (int way = 0; way < (e < wall_count ? 2 : 1); way++) {
          const float *u = way ? b : a, *w = way ? a : b;
          if ((cs_orient(u, w, p) > 0) != (cs_orient(u, w, q) > 0) &&
              cs_segments_touch(p, q, u, w))
            return 1;
        }
      }
  return 0;
}

static uint32_t lcg(uint32_t *x) {
  *x = *x * 1664525u + 1013904223u;
  return *x >> 8;
}
static float uniform(uint32_t *x, float lo, float hi) {
  return lo + (hi - lo) * (float)lcg(x) / 16777216.0f;
}

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? (size_t)atol(argv[1]) : 100000;
  const int steps = argc > 2 ? atoi(argv[2]) : 1000;
  crowdsteer_obstacles *o = make_rooms();
  index_edges();
  float *px = malloc(n * 4), *py = malloc(n * 4), *vx = calloc(n, 4), *vy = calloc(n, 4);
  float *gx = malloc(n * 4), *gy = malloc(n * 4), *bx = malloc(n * 4),
        *by = malloc(n * 4);
  uint32_t *report = calloc(n, 4);
  uint32_t seed = 2024;
  const float side = ROOMS * ROOM;
  for (size_t i = 0; i < n; i++) {
    for (;;) { /* inside a room, clear of walls and pillars */
      px[i] = uniform(&seed, 1, side - 1), py[i] = uniform(&seed, 1, side - 1);
      const float rx = fmodf(px[i], ROOM), ry = fmodf(py[i], ROOM);
      if (rx > 1 && rx < ROOM - 1 && ry > 1 && ry < ROOM - 1 &&
          (fabsf(rx - ROOM / 2) > 6 || fabsf(ry - ROOM / 2) > 6))
        break;
    }
    const uint32_t kind = lcg(&seed) % 3;
    if (kind == 0) { /* a random point of another room */
      gx[i] = uniform(&seed, 0, side), gy[i] = uniform(&seed, 0, side);
    } else if (kind == 1) { /* a corner of the whole block */
      gx[i] = lcg(&seed) % 2 ? -10.0f : side + 10.0f;
      gy[i] = lcg(&seed) % 2 ? -10.0f : side + 10.0f;
    } else { /* straight through the nearest inner wall */
      gx[i] = px[i] + (lcg(&seed) % 2 ? ROOM : -ROOM), gy[i] = py[i];
    }
  }
  crowdsteer_agents a = {n, 2, px, py, NULL, vx, vy, NULL, NULL};
  crowdsteer_grid *grid = NULL;
  CHECK_STATUS(crowdsteer_grid_create(&grid), CROWDSTEER_OK);
  crowdsteer_grid_desc gd = {0};
  gd.cell_size = 2;
  crowdsteer_neighbours nb = {0};
  nb.grid = grid;
  nb.radius = 2;
  nb.max_neighbours = 8;
  crowdsteer_avoidance av = {0};
  av.radius = 0.3f;
  av.time_horizon = 2;
  av.obstacle_time_horizon = 1;
  av.neighbours = &nb;
  av.obstacles = o;
  av.report = report;
  crowdsteer_step_behaviour seek = {0};
  seek.behaviour = CROWDSTEER_SEEK;
  seek.target.kind = CROWDSTEER_TARGET_ARRAYS;
  seek.target.position.x = gx;
  seek.target.position.y = gy;
  crowdsteer_step_desc step = {0};
  step.behaviours = &seek;
  step.behaviour_count = 1;
  step.integrator.max_speed = 1.5f;
  step.integrator.max_force = 3;
  step.integrator.dt = 0.1f;
  step.avoidance = &av;
  crowdsteer_workspace *ws = NULL;
  CHECK_STATUS(crowdsteer_workspace_create(&ws), CROWDSTEER_OK);
  step.workspace = ws;
  size_t crossings = 0, wall_stops = 0;
  for (int t = 0; t < steps; t++) {
    if (t == steps / 2) { /* walls seen too late, point agents, faster */
      av.obstacle_time_horizon = 1e-3f;
      av.radius = 0;
      step.integrator.max_speed = 4.5f;
    }
    CHECK_STATUS(crowdsteer_grid_build(grid, &a, &gd), CROWDSTEER_OK);
    memcpy(bx, px, n * 4);
    memcpy(by, py, n * 4);
    CHECK_STATUS(crowdsteer_step(&a, &step, 0, n), CROWDSTEER_OK);
    for (size_t i = 0; i < n; i++) {
      const float p[2] = {bx[i], by[i]}, q[2] = {px[i], py[i]};
      if (crosses(p, q) && crossings++ < 5)
        fprintf(stderr, "step %d agent %zu: (%a, %a) -> (%a, %a) crossed\n", t, i, p[0],
                p[1], q[0], q[1]);
      wall_stops += (report[i] & CROWDSTEER_REPORT_WALL) != 0;
    }
  }
  size_t inside = 0;
  for (size_t i = 0; i < n; i++) {
    int in = 0;
    CHECK_STATUS(crowdsteer_obstacles_inside(o, px[i], py[i], &in), CROWDSTEER_OK);
    inside += (size_t)in;
  }
  CHECK_MSG(crossings == 0, "%zu moves crossed an edge", crossings);
  CHECK_MSG(inside == 0, "%zu agents ended inside a pillar", inside);
  CHECK_MSG(wall_stops > 0, "no move met a wall: the test does not push");
  printf("walls hold: %zu agents x %d steps, %zu wall stops, 0 crossings, %zu inside\n",
         n, steps, wall_stops, inside);
  crowdsteer_workspace_destroy(ws);
  crowdsteer_grid_destroy(grid);
  crowdsteer_obstacles_destroy(o);
  free(px), free(py), free(vx), free(vy), free(gx), free(gy), free(bx), free(by),
      free(report);
  return check_report("test_walls_stress");
}
