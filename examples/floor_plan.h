/* The evacuation's floor plan (crowdsteer-evacuation): a building of square
 * rooms in rows along corridors, each room with one door onto its corridor,
 * corridors open to the outside at both ends (the exits), all in metres. */
#ifndef CROWDSTEER_EXAMPLES_FLOOR_PLAN_H
#define CROWDSTEER_EXAMPLES_FLOOR_PLAN_H

#include <stddef.h>

#include "crowdsteer.h"

/* Rooms come in blocks of `block` side by side; two rows of rooms face each
 * other across a horizontal corridor (a band); blocks are separated by
 * vertical corridors through every band. Horizontal corridors open on the
 * west and east walls, vertical ones on the south and north walls; the
 * building's south-west corner is at (0, 0). */
typedef struct floor_plan {
  int rooms_x;    /* rooms along a row (a multiple of block is not needed) */
  int bands;      /* horizontal corridors, each with a row of rooms either side */
  int block;      /* rooms between two vertical corridors */
  float room;     /* inner side of a room */
  float corridor; /* corridor width, also each exit's width */
  float door;     /* width of each room's door, centred on its corridor side */
} floor_plan;

/* An axis-aligned rectangle [x0, x1] x [y0, y1]. */
typedef struct plan_rect {
  float x0, y0, x1, y1;
} plan_rect;

/* The plan's defaults (10 m rooms, 4 m corridors, 1.6 m doors, blocks of 8)
 * with the fewest bands and rooms per row, close to square, that give
 * `rooms` rooms or more. */
floor_plan floor_plan_for_rooms(size_t rooms);

size_t plan_room_count(const floor_plan *p);
float plan_width(const floor_plan *p);
float plan_height(const floor_plan *p);

/* Room k (0 .. plan_room_count - 1): its floor. */
plan_rect plan_room(const floor_plan *p, size_t k);

/* Exits: west and east ends of each band's corridor, then south and north
 * ends of each vertical corridor. plan_exit gives the opening (a segment of
 * the outer wall, as a rectangle of zero width) of exit k. */
size_t plan_exit_count(const floor_plan *p);
plan_rect plan_exit(const floor_plan *p, size_t k);
/* The exit an agent leaving the building at (x, y) (outside it) went
 * through: the nearest opening. */
size_t plan_exit_of(const floor_plan *p, float x, float y);

/* Every wall segment of the plan (outer wall without its exits, room walls
 * without their doors), each once: returns how many, writing at most `cap`
 * into `walls` (x0, y0, x1, y1 each). Call with cap 0 to size. */
size_t plan_walls(const floor_plan *p, plan_rect *walls, size_t cap);

/* A built obstacle set of every wall (*out NULL on error). */
crowdsteer_status plan_obstacles(const floor_plan *p, crowdsteer_obstacles **out);

#endif /* CROWDSTEER_EXAMPLES_FLOOR_PLAN_H */
