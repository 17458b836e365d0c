/* The userloop competitor: what a competent C programmer writes in an
 * afternoon for "a crowd seeks a goal while keeping apart". A dense grid over
 * the bounding box with cells one radius wide, filled by a counting sort
 * (count, prefix sum, scatter of indices and positions), then one loop over
 * the agents in batch order that visits the 3x3 cells around each agent,
 * skips itself by index, tests the distance with a branch and sums in float.
 * Its sums depend on the visiting order (not crowdsteer's exact integer
 * sums), and it knows nothing of groups, fields of view or neighbour caps.
 * Compiled -O3 -march=native -fno-math-errno in GCC's GNU dialect (which
 * fuses multiply-adds), with OpenMP on the agent loop (see
 * bench/CMakeLists.txt). */
#include "userloop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **array, size_t count, size_t size) {
  void *bigger = realloc(*array, count * size);
  if (!bigger) return -1;
  *array = bigger;
  return 0;
}

static int reserve(userloop_grid *grid, size_t n, size_t cells) {
  if (n > grid->capacity) {
    if (grow((void **)&grid->cell_of, n, sizeof(uint32_t)) ||
        grow((void **)&grid->order, n, sizeof(uint32_t)) ||
        grow((void **)&grid->sorted_x, n, sizeof(float)) ||
        grow((void **)&grid->sorted_y, n, sizeof(float)))
      return -1;
    grid->capacity = n;
  }
  if (cells + 1 > grid->cell_capacity) {
    if (grow((void **)&grid->cell_start, cells + 1, sizeof(uint32_t)) ||
        grow((void **)&grid->cursor, cells + 1, sizeof(uint32_t)))
      return -1;
    grid->cell_capacity = cells + 1;
  }
  return 0;
}

void userloop_grid_free(userloop_grid *grid) {
  free(grid->cell_start);
  free(grid->cursor);
  free(grid->cell_of);
  free(grid->order);
  free(grid->sorted_x);
  free(grid->sorted_y);
  memset(grid, 0, sizeof *grid);
}

int userloop_grid_build(userloop_grid *grid, const float *px, const float *py, size_t n,
                        float cell_size) {
  float min_x = INFINITY, min_y = INFINITY, max_x = -INFINITY, max_y = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (px[i] < min_x) min_x = px[i];
    if (px[i] > max_x) max_x = px[i];
    if (py[i] < min_y) min_y = py[i];
    if (py[i] > max_y) max_y = py[i];
  }
  if (n == 0) min_x = min_y = max_x = max_y = 0.0f;
  const float inverse_cell = 1.0f / cell_size;
  const int columns = (int)((max_x - min_x) * inverse_cell) + 1;
  const int rows = (int)((max_y - min_y) * inverse_cell) + 1;
  const size_t cells = (size_t)columns * (size_t)rows;
  if (reserve(grid, n, cells)) return -1;
  grid->count = n;
  grid->cells = cells;
  grid->columns = columns;
  grid->rows = rows;
  grid->min_x = min_x;
  grid->min_y = min_y;
  grid->inverse_cell = inverse_cell;

  uint32_t *start = grid->cell_start;
  memset(start, 0, (cells + 1) * sizeof *start);
  for (size_t i = 0; i < n; i++) {
    int cx = (int)((px[i] - min_x) * inverse_cell);
    int cy = (int)((py[i] - min_y) * inverse_cell);
    uint32_t cell = (uint32_t)(cy * columns + cx);
    grid->cell_of[i] = cell;
    start[cell + 1]++;
  }
  for (size_t c = 0; c < cells; c++)
    start[c + 1] += start[c];
  memcpy(grid->cursor, start, cells * sizeof *start);
  for (size_t i = 0; i < n; i++) {
    uint32_t k = grid->cursor[grid->cell_of[i]]++;
    grid->order[k] = (uint32_t)i;
    grid->sorted_x[k] = px[i];
    grid->sorted_y[k] = py[i];
  }
  return 0;
}

/* Sum of d * (1/|d| - 1/radius) over agent i's neighbours (coincident ones
 * push along x, away from the lower index). */
static void separation_sum(const userloop_grid *grid, size_t i, float x, float y,
                           float radius, float sum[2]) {
  const float r2 = radius * radius, inverse_radius = 1.0f / radius;
  int cx = (int)((x - grid->min_x) * grid->inverse_cell);
  int cy = (int)((y - grid->min_y) * grid->inverse_cell);
  float ax = 0.0f, ay = 0.0f;
  for (int row = cy - 1; row <= cy + 1; row++) {
    if (row < 0 || row >= grid->rows) continue;
    for (int column = cx - 1; column <= cx + 1; column++) {
      if (column < 0 || column >= grid->columns) continue;
      size_t cell = (size_t)row * (size_t)grid->columns + (size_t)column;
      for (uint32_t k = grid->cell_start[cell]; k < grid->cell_start[cell + 1]; k++) {
        uint32_t q = grid->order[k];
        if (q == i) continue;
        float dx = x - grid->sorted_x[k], dy = y - grid->sorted_y[k];
        float d2 = dx * dx + dy * dy;
        if (d2 >= r2) continue;
        if (d2 > 0.0f) {
          float f = 1.0f / sqrtf(d2) - inverse_radius;
          ax += dx * f;
          ay += dy * f;
        } else {
          ax += i < q ? -1.0f : 1.0f;
        }
      }
    }
  }
  sum[0] = ax;
  sum[1] = ay;
}

void userloop_separation(const userloop_grid *grid, const float *px, const float *py,
                         float radius, float max_speed, float *sx, float *sy,
                         int threads) {
  const long n = (long)grid->count;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (long i = 0; i < n; i++) {
    float sum[2];
    separation_sum(grid, (size_t)i, px[i], py[i], radius, sum);
    sx[i] = sum[0] * max_speed;
    sy[i] = sum[1] * max_speed;
  }
}

void userloop_step(const userloop_grid *grid, const userloop_scenario *sc,
                   const float *px, const float *py, const float *vx, const float *vy,
                   float *next_px, float *next_py, float *next_vx, float *next_vy,
                   int threads) {
  const long n = (long)grid->count;
  const float speed = sc->max_speed;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (long i = 0; i < n; i++) {
    float sep[2];
    separation_sum(grid, (size_t)i, px[i], py[i], sc->radius, sep);
    float gx = sc->goal_x - px[i], gy = sc->goal_y - py[i];
    float distance = sqrtf(gx * gx + gy * gy);
    float desired_x = 0.0f, desired_y = 0.0f;
    if (distance > 0.0f) {
      desired_x = gx / distance * speed;
      desired_y = gy / distance * speed;
    }
    float ax = desired_x - vx[i] + sc->separation_weight * sep[0] * speed;
    float ay = desired_y - vy[i] + sc->separation_weight * sep[1] * speed;
    float nvx = vx[i] + ax * sc->dt, nvy = vy[i] + ay * sc->dt;
    float v = sqrtf(nvx * nvx + nvy * nvy);
    if (v > speed) {
      nvx *= speed / v;
      nvy *= speed / v;
    }
    next_vx[i] = nvx;
    next_vy[i] = nvy;
    next_px[i] = px[i] + nvx * sc->dt;
    next_py[i] = py[i] + nvy * sc->dt;
  }
}
