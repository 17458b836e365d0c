/* Internal contract of a navigation field: the grid's geometry, its cells'
 * blocking, costs, travel times and directions (what the follow-the-field
 * kernels gather), and the rasteriser and march that fill them. */
#ifndef CROWDSTEER_NAV_FIELD_H
#define CROWDSTEER_NAV_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "crowdsteer.h"

/* Bits of a cell's flags. */
enum { CS_CELL_BLOCKED = 1, CS_CELL_GOAL = 2 };

/* A cell's direction, one 32-bit word: x in the low 16 bits, y in the
 * high, each component g a multiple of 2^-14 stored as g * 2^14 + 2^14
 * (0 .. 32768), read back as (float)bits * 2^-14 - 1 (exact). One gather
 * per agent: the words of a 1024 x 1024 field take 4 MiB. */
#define CS_DIRECTION_ZERO (16384u | 16384u << 16)
static inline float cs_direction_x(uint32_t word) {
  return (float)(word & 0xffffu) * 0x1p-14f - 1.0f;
}
static inline float cs_direction_y(uint32_t word) {
  return (float)(word >> 16) * 0x1p-14f - 1.0f;
}

/* Every per-cell array, `capacity` cells (directions one more: the last
 * is the zero direction gathered for agents outside the grid). */
typedef struct cs_field_store {
  size_t capacity;
  double *time;
  uint32_t *direction;
  float *cost;
  uint8_t *flags;      /* CS_CELL_* of the build */
  uint8_t *work;       /* the next build's flags, then the march's states */
  uint8_t *row;        /* width + 1: the rasteriser's parity toggles */
  double *heap_time;   /* the march's heap (march.c): times, */
  uint32_t *heap_cell; /* and their cells */
  uint32_t *heap_position;
} cs_field_store;

struct crowdsteer_field {
  int built;
  float origin[2];
  float cell_size;
  float inverse_cell_size; /* 1 / cell_size, in float: the followers' rule */
  float width_f, height_f; /* exact: at most 2^24 */
  uint32_t width, height;
  size_t cells;
  int uniform_cost; /* every cost is 1 */
  cs_field_store store;
};

/* The cells [cx0, cx1) x [cy0, cy1) of a grid, and its geometry in double. */
typedef struct cs_raster_clip {
  double origin_x, origin_y, cell_size;
  uint32_t width, height;
  uint32_t cx0, cy0, cx1, cy1;
} cs_raster_clip;

/* Sets `bit` in flags[cy * width + cx] for every cell of the clip that
 * meets a loop of `set`: an edge touches the closed cell, or (a polygon)
 * the cell's centre is inside it. `row` holds width + 1 bytes of scratch. */
void cs_raster_set(const crowdsteer_obstacles *set, const cs_raster_clip *clip,
                   uint8_t *flags, uint8_t bit, uint8_t *row);

/* The march over a field whose store holds the new flags (in `flags`) and
 * costs: T in `time`, then every cell's direction. */
void cs_field_march(crowdsteer_field *field);

#endif /* CROWDSTEER_NAV_FIELD_H */
