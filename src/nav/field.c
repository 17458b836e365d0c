/* Navigation fields' entry points: checking a description, the field's
 * memory, blocking and goals from the obstacle and goal sets (raster.c),
 * then the march (march.c); and the per-cell queries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "avoid/obstacles.h"
#include "internal.h"
#include "nav/field.h"

enum { MAX_SIDE = 1 << 24 };
#define MAX_CELLS ((size_t)1 << 28)

/* Bytes per cell of the store: time, direction, cost, flags, work, heap
 * time, cell and position. */
#define CELL_BYTES                                                                       \
  (sizeof(double) + sizeof(uint32_t) + sizeof(float) + 2 + sizeof(double) +              \
   2 * sizeof(uint32_t))

crowdsteer_status crowdsteer_field_create(crowdsteer_field **field) {
  if (!field) return CROWDSTEER_ERROR_NULL_POINTER;
  *field = calloc(1, sizeof **field);
  return *field ? CROWDSTEER_OK : CROWDSTEER_ERROR_OUT_OF_MEMORY;
}

static void store_free(cs_field_store *s) {
  free(s->time);
  free(s->direction);
  free(s->cost);
  free(s->flags);
  free(s->work);
  free(s->row);
  free(s->heap_time);
  free(s->heap_cell);
  free(s->heap_position);
  memset(s, 0, sizeof *s);
}

void crowdsteer_field_destroy(crowdsteer_field *field) {
  if (!field) return;
  store_free(&field->store);
  free(field);
}

size_t crowdsteer_field_bytes(const crowdsteer_field *field) {
  if (!field) return 0;
  const size_t n = field->store.capacity;
  if (n == 0) return sizeof *field;
  /* The directions' extra cell, and the row scratch of up to n + 1. */
  return sizeof *field + n * CELL_BYTES + sizeof(uint32_t) + n + 1;
}

/* A store of `cells` cells whose rows are at most `width` long. */
static int store_make(cs_field_store *s, size_t cells) {
  memset(s, 0, sizeof *s);
  /* 2^28 heap times are 2 GiB, all arrays more: beyond a 32-bit size_t
   * (WebAssembly). */
  if (cells > (SIZE_MAX - 1) / 16) return 0;
  s->capacity = cells;
  s->time = malloc(cells * sizeof *s->time);
  s->direction = malloc((cells + 1) * sizeof *s->direction);
  s->cost = malloc(cells * sizeof *s->cost);
  s->flags = malloc(cells);
  s->work = malloc(cells);
  s->row = calloc(cells + 1, 1);
  s->heap_time = malloc(cells * sizeof *s->heap_time);
  s->heap_cell = malloc(cells * sizeof *s->heap_cell);
  s->heap_position = malloc(cells * sizeof *s->heap_position);
  if (s->time && s->direction && s->cost && s->flags && s->work && s->row &&
      s->heap_time && s->heap_cell && s->heap_position)
    return 1;
  store_free(s);
  return 0;
}

/* Checks of a description that need no cells: sizes, geometry, arrays. */
static crowdsteer_status check_desc(const crowdsteer_field_desc *d) {
  if (d->goal_point_count && (!d->goal_x || !d->goal_y))
    return CROWDSTEER_ERROR_NULL_POINTER;
  if ((d->goal_point_count && (!cs_aligned(d->goal_x) || !cs_aligned(d->goal_y))) ||
      (d->cost && !cs_aligned(d->cost)))
    return CROWDSTEER_ERROR_ALIGNMENT;
  /* width * height <= 2^28 by division: the product wraps a 32-bit size_t. */
  if (d->width < 1 || d->height < 1 || d->width > MAX_SIDE || d->height > MAX_SIDE ||
      d->width > MAX_CELLS / d->height)
    return CROWDSTEER_ERROR_PARAMETER;
  const float h = d->cell_size;
  if (!(h > 0.0f) || !isfinite(h) || !isfinite(d->origin[0]) || !isfinite(d->origin[1]))
    return CROWDSTEER_ERROR_PARAMETER;
  if (!isfinite(d->origin[0] + (float)d->width * h) ||
      !isfinite(d->origin[1] + (float)d->height * h) || !isfinite(1.0f / h))
    return CROWDSTEER_ERROR_PARAMETER;
  return CROWDSTEER_OK;
}

/* The cells [x0, x1) x [y0, y1) of cost are >= 1 and finite. */
static int costs_valid(const crowdsteer_field_desc *d, uint32_t x0, uint32_t y0,
                       uint32_t x1, uint32_t y1) {
  if (!d->cost) return 1;
  for (uint32_t y = y0; y < y1; y++)
    for (uint32_t x = x0; x < x1; x++) {
      const float c = d->cost[(size_t)y * d->width + x];
      if (!(c >= 1.0f) || !isfinite(c)) return 0;
    }
  return 1;
}

/* The cell of a goal point, or 0 when it is outside the grid (or NaN). A
 * point on the line between two cells is in the higher one; on the grid's
 * far side, in the last. */
static int goal_cell(const crowdsteer_field_desc *d, float x, float y, size_t *cell) {
  const double h = d->cell_size;
  const double u = ((double)x - d->origin[0]) / h, v = ((double)y - d->origin[1]) / h;
  if (!(u >= 0.0 && v >= 0.0 && u <= (double)d->width && v <= (double)d->height))
    return 0;
  double cx = floor(u), cy = floor(v);
  if (cx >= (double)d->width) cx = (double)d->width - 1.0;
  if (cy >= (double)d->height) cy = (double)d->height - 1.0;
  *cell = (size_t)cy * d->width + (size_t)cx;
  return 1;
}

/* After check_desc, in the documented order: the costs of [x0, x1) x [y0,
 * y1), every goal point in the grid (PARAMETER), the obstacles built (GRID). */
static crowdsteer_status check_values(const crowdsteer_field_desc *d, uint32_t x0,
                                      uint32_t y0, uint32_t x1, uint32_t y1) {
  if (!costs_valid(d, x0, y0, x1, y1)) return CROWDSTEER_ERROR_PARAMETER;
  for (size_t k = 0; k < d->goal_point_count; k++) {
    size_t cell;
    if (!goal_cell(d, d->goal_x[k], d->goal_y[k], &cell))
      return CROWDSTEER_ERROR_PARAMETER;
  }
  if (d->obstacles && !d->obstacles->built) return CROWDSTEER_ERROR_GRID;
  return CROWDSTEER_OK;
}

static cs_raster_clip clip_of(const crowdsteer_field_desc *d, uint32_t x0, uint32_t y0,
                              uint32_t x1, uint32_t y1) {
  const cs_raster_clip c = {d->origin[0], d->origin[1], d->cell_size, d->width, d->height,
                            x0,           y0,           x1,           y1};
  return c;
}

/* The goal cells into s->work (after the blocking): goal points, then goal
 * regions. PARAMETER for a point outside the grid, GOAL for one in a
 * blocked cell or when no free cell is a goal. */
static crowdsteer_status mark_goals(cs_field_store *s, const crowdsteer_field_desc *d,
                                    size_t cells) {
  for (size_t k = 0; k < d->goal_point_count; k++) {
    size_t cell;
    if (!goal_cell(d, d->goal_x[k], d->goal_y[k], &cell))
      return CROWDSTEER_ERROR_PARAMETER;
    if (s->work[cell] & CS_CELL_BLOCKED) return CROWDSTEER_ERROR_GOAL;
    s->work[cell] |= CS_CELL_GOAL;
  }
  const cs_raster_clip all = clip_of(d, 0, 0, d->width, d->height);
  cs_raster_set(d->goal_regions, &all, s->work, CS_CELL_GOAL, s->row);
  for (size_t c = 0; c < cells; c++)
    if (s->work[c] == CS_CELL_GOAL) return CROWDSTEER_OK;
  return CROWDSTEER_ERROR_GOAL;
}

/* Geometry from a checked description. */
static void set_geometry(crowdsteer_field *f, const crowdsteer_field_desc *d) {
  f->origin[0] = d->origin[0];
  f->origin[1] = d->origin[1];
  f->cell_size = d->cell_size;
  f->inverse_cell_size = 1.0f / d->cell_size;
  f->width = d->width;
  f->height = d->height;
  f->width_f = (float)d->width;
  f->height_f = (float)d->height;
  f->cells = (size_t)d->width * d->height;
}

/* The new flags are in s->work: commit them and the costs of [x0, x1) x
 * [y0, y1), then march. */
static void commit(crowdsteer_field *f, const crowdsteer_field_desc *d, uint32_t x0,
                   uint32_t y0, uint32_t x1, uint32_t y1) {
  cs_field_store *s = &f->store;
  memcpy(s->flags, s->work, f->cells);
  for (uint32_t y = y0; y < y1; y++)
    for (uint32_t x = x0; x < x1; x++) {
      const size_t c = (size_t)y * f->width + x;
      s->cost[c] = d->cost ? d->cost[c] : 1.0f;
    }
  f->uniform_cost = 1;
  for (size_t c = 0; c < f->cells; c++)
    f->uniform_cost &= s->cost[c] == 1.0f;
  cs_field_march(f);
  f->built = 1;
}

static crowdsteer_status build(crowdsteer_field *f, const crowdsteer_field_desc *d) {
  crowdsteer_status status = check_desc(d);
  if (status != CROWDSTEER_OK) return status;
  status = check_values(d, 0, 0, d->width, d->height);
  if (status != CROWDSTEER_OK) return status;
  const size_t cells = (size_t)d->width * d->height;
  cs_field_store grown = {0}, *s = &f->store;
  if (cells > s->capacity) {
    if (!store_make(&grown, cells)) return CROWDSTEER_ERROR_OUT_OF_MEMORY;
    s = &grown;
  }
  memset(s->work, 0, cells);
  const cs_raster_clip all = clip_of(d, 0, 0, d->width, d->height);
  cs_raster_set(d->obstacles, &all, s->work, CS_CELL_BLOCKED, s->row);
  status = mark_goals(s, d, cells);
  if (status != CROWDSTEER_OK) {
    if (s == &grown) store_free(&grown);
    return status;
  }
  if (s == &grown) {
    store_free(&f->store);
    f->store = grown;
  }
  set_geometry(f, d);
  commit(f, d, 0, 0, d->width, d->height);
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_field_build(crowdsteer_field *field,
                                         const crowdsteer_field_desc *desc) {
  if (!field || !desc) return CROWDSTEER_ERROR_NULL_POINTER;
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host, build(field, desc));
}

static crowdsteer_status rebuild(crowdsteer_field *f, const crowdsteer_field_desc *d,
                                 uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
  if (!f->built) return CROWDSTEER_ERROR_GRID;
  crowdsteer_status status = check_desc(d);
  if (status != CROWDSTEER_OK) return status;
  if (d->origin[0] != f->origin[0] || d->origin[1] != f->origin[1] ||
      d->cell_size != f->cell_size || d->width != f->width || d->height != f->height ||
      x0 >= x1 || y0 >= y1 || x1 > f->width || y1 > f->height)
    return CROWDSTEER_ERROR_PARAMETER;
  if ((status = check_values(d, x0, y0, x1, y1)) != CROWDSTEER_OK) return status;
  cs_field_store *s = &f->store;
  /* The old blocking outside the region, the new one inside it. */
  for (size_t c = 0; c < f->cells; c++)
    s->work[c] = s->flags[c] & CS_CELL_BLOCKED;
  for (uint32_t y = y0; y < y1; y++)
    memset(s->work + (size_t)y * f->width + x0, 0, x1 - x0);
  const cs_raster_clip region = clip_of(d, x0, y0, x1, y1);
  cs_raster_set(d->obstacles, &region, s->work, CS_CELL_BLOCKED, s->row);
  status = mark_goals(s, d, f->cells);
  if (status != CROWDSTEER_OK) return status;
  commit(f, d, x0, y0, x1, y1);
  return CROWDSTEER_OK;
}

crowdsteer_status crowdsteer_field_rebuild(crowdsteer_field *field,
                                           const crowdsteer_field_desc *desc,
                                           uint32_t cx0, uint32_t cy0, uint32_t cx1,
                                           uint32_t cy1) {
  if (!field || !desc) return CROWDSTEER_ERROR_NULL_POINTER;
  const cs_fpenv host = cs_fpenv_enter();
  return cs_fpenv_return(host, rebuild(field, desc, cx0, cy0, cx1, cy1));
}

crowdsteer_status crowdsteer_field_cell_of(const crowdsteer_field *field, float x,
                                           float y, uint32_t *cx, uint32_t *cy,
                                           int *inside) {
  if (!field || !cx || !cy || !inside) return CROWDSTEER_ERROR_NULL_POINTER;
  if (!field->built) return CROWDSTEER_ERROR_GRID;
  const cs_fpenv host = cs_fpenv_enter();
  const float u = (x - field->origin[0]) * field->inverse_cell_size;
  const float v = (y - field->origin[1]) * field->inverse_cell_size;
  *inside = u >= 0.0f && u < field->width_f && v >= 0.0f && v < field->height_f;
  *cx = *inside ? (uint32_t)u : 0;
  *cy = *inside ? (uint32_t)v : 0;
  return cs_fpenv_return(host, CROWDSTEER_OK);
}

static crowdsteer_status check_cell(const crowdsteer_field *f, uint32_t cx, uint32_t cy) {
  if (!f->built) return CROWDSTEER_ERROR_GRID;
  return cx < f->width && cy < f->height ? CROWDSTEER_OK : CROWDSTEER_ERROR_PARAMETER;
}

crowdsteer_status crowdsteer_field_time(const crowdsteer_field *field, uint32_t cx,
                                        uint32_t cy, double *time) {
  if (!field || !time) return CROWDSTEER_ERROR_NULL_POINTER;
  const crowdsteer_status status = check_cell(field, cx, cy);
  if (status == CROWDSTEER_OK) *time = field->store.time[(size_t)cy * field->width + cx];
  return status;
}

crowdsteer_status crowdsteer_field_direction(const crowdsteer_field *field, uint32_t cx,
                                             uint32_t cy, float *dx, float *dy,
                                             int *blocked) {
  if (!field || !dx || !dy || !blocked) return CROWDSTEER_ERROR_NULL_POINTER;
  const crowdsteer_status status = check_cell(field, cx, cy);
  if (status != CROWDSTEER_OK) return status;
  const size_t c = (size_t)cy * field->width + cx;
  /* 1 - 1 is -0 when the host rounds down: the library's mode, as always. */
  const cs_fpenv host = cs_fpenv_enter();
  *dx = cs_direction_x(field->store.direction[c]);
  *dy = cs_direction_y(field->store.direction[c]);
  *blocked = field->store.flags[c] & CS_CELL_BLOCKED;
  return cs_fpenv_return(host, CROWDSTEER_OK);
}
