/* The userloop competitor: the neighbour grid and per-agent loops that a
 * competent user writes in plain C in an afternoon, to compare crowdsteer's
 * neighbour behaviours with (bench/userloop.c says what it does and why). */
#ifndef CROWDSTEER_BENCH_USERLOOP_H
#define CROWDSTEER_BENCH_USERLOOP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A dense 2D grid over the crowd's bounding box, cells of one radius,
 *  agents counting-sorted into cell order (indices and positions). */
typedef struct userloop_grid {
  size_t count, capacity; /* agents sorted; allocated for */
  size_t cells, cell_capacity;
  int columns, rows;
  float min_x, min_y, inverse_cell;
  uint32_t
      *cell_start;   /* cells + 1 entries: agents of cell c in [start[c], start[c+1]) */
  uint32_t *cursor;  /* scatter positions while sorting */
  uint32_t *cell_of; /* per agent, in batch order */
  uint32_t *order;   /* batch index of each sorted agent */
  float *sorted_x, *sorted_y;
} userloop_grid;

/** The scenario both competitors run: seek one goal, separation blended. */
typedef struct userloop_scenario {
  float goal_x, goal_y;
  float max_speed;
  float radius;            /* separation radius; the grid's cell size */
  float separation_weight; /* blend weight of separation (seek's is 1) */
  float dt;
} userloop_scenario;

/** Sorts n agents into the grid (allocating only when n or the cell count
 *  grows). Returns 0, or -1 when out of memory. */
int userloop_grid_build(userloop_grid *grid, const float *px, const float *py, size_t n,
                        float cell_size);
void userloop_grid_free(userloop_grid *grid);

/** Separation steering of every agent, s = max_speed * sum of
 *  d * (1/|d| - 1/radius) over the others within the radius, into sx, sy
 *  (float sums in visiting order). OpenMP on `threads` threads when > 1. */
void userloop_separation(const userloop_grid *grid, const float *px, const float *py,
                         float radius, float max_speed, float *sx, float *sy,
                         int threads);

/** One step of the scenario: seek + weight * separation, then the point-mass
 *  integrator (dt, speed limit), from (p, v) into (next_p, next_v). */
void userloop_step(const userloop_grid *grid, const userloop_scenario *scenario,
                   const float *px, const float *py, const float *vx, const float *vy,
                   float *next_px, float *next_py, float *next_vx, float *next_vy,
                   int threads);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_BENCH_USERLOOP_H */
