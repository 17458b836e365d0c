/* Internal contract of the static obstacle set: vertex loops with their
 * edge directions and convexity (what ORCA's obstacle lines read), and the
 * uniform grid of edges over their bounding box (what the queries walk). */
#ifndef CROWDSTEER_AVOID_OBSTACLES_H
#define CROWDSTEER_AVOID_OBSTACLES_H

#include <stddef.h>
#include <stdint.h>

#include "crowdsteer.h"

/* Edge e runs from vertex e to vertex next[e] of the same loop; a wall (a
 * loop of two vertices) is two edges, one each way. */
struct crowdsteer_obstacles {
  size_t vertex_count, vertex_capacity;
  float *x, *y;
  float *dir_x, *dir_y;      /* unit direction of edge e */
  uint32_t *next, *previous; /* vertex after and before, in the loop */
  uint32_t *loop;            /* the loop (polygon) of each vertex */
  uint8_t *convex;           /* the loop turns left (or goes straight) here */
  size_t loop_count, loop_capacity;
  uint32_t *loop_first; /* first vertex of each loop */
  uint8_t *loop_closed; /* a polygon (3+ vertices), not a wall */

  /* The index, valid while `built`: cells of cell_size from (min_x,
   * min_y), `columns` by `rows`; cell c lists edges cell_edge[cell_first[c]
   * .. cell_first[c + 1]). */
  int built;
  float min_x, min_y, max_x, max_y;
  double cell_size;
  uint32_t columns, rows;
  uint32_t *cell_first;
  uint32_t *cell_edge;
  size_t cell_capacity, entry_capacity;
  /* Per cell, when no edge is filed in it (so every point of the closed
   * cell has its centre's status): CS_CELL_OUTSIDE, or 1 + the one loop
   * its centre is inside; CS_CELL_UNKNOWN when edges are filed in it, its
   * centre is inside several loops, or rounding moves the centre out. And
   * the build's query scratch. */
  uint32_t *cell_state;
  size_t state_capacity;
  void *build_scratch;
  size_t scratch_capacity;
};

enum { CS_CELL_OUTSIDE = 0 };
#define CS_CELL_UNKNOWN UINT32_MAX

/* The grid column (row) of coordinate x (y): monotone in x, clamped to the
 * grid, so every query covering a point visits the cell the build filed
 * it under. */
uint32_t cs_obstacle_column(const crowdsteer_obstacles *o, float x);
uint32_t cs_obstacle_row(const crowdsteer_obstacles *o, float y);

/* A caller's room for queries: one mark per edge (so an edge filed in
 * several cells is listed once), the edges found, and the loops' parity
 * for the inside test. */
typedef struct cs_obstacle_scratch {
  uint32_t *mark;
  uint32_t stamp;
  uint32_t *found;
  uint8_t *parity;
  uint32_t *touched;
} cs_obstacle_scratch;

/* Bytes of a scratch for this set. */
size_t cs_obstacle_scratch_bytes(const crowdsteer_obstacles *o);
/* Lays a scratch out in `memory` (cs_obstacle_scratch_bytes of it, 4-byte
 * aligned), marks cleared. */
void cs_obstacle_scratch_init(cs_obstacle_scratch *s, const crowdsteer_obstacles *o,
                              void *memory);

/* The edges filed in the cells that cover [x0, x1] x [y0, y1], each once,
 * into s->found (their count returned), in cell order. */
size_t cs_obstacle_edges_near(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                              float x0, float y0, float x1, float y1);

/* Whether point p is strictly inside a polygon of the set (on an edge is
 * outside; walls have no inside). Exact. */
int cs_obstacle_inside(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                       const float p[2]);

/* Whether the move from p to q crosses an edge: it touches the edge and p
 * and q lie on different sides of it (a point on the edge's line counts as
 * right of it, outside a polygon). Exact. */
int cs_obstacle_move_blocked(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                             const float p[2], const float q[2]);

/* The lowest-numbered edge the move from p to q crosses (as
 * cs_obstacle_move_blocked), or UINT32_MAX when it crosses none. */
uint32_t cs_obstacle_first_crossed(const crowdsteer_obstacles *o, cs_obstacle_scratch *s,
                                   const float p[2], const float q[2]);

#endif /* CROWDSTEER_AVOID_OBSTACLES_H */
