/* The obstacle layout the demo and the viewer share: two walls with a
 * doorway each, a row of square pillars, a wedge and an L-shaped corner,
 * given on the square [-1, 1]^2 and scaled to any world. */
#ifndef CROWDSTEER_EXAMPLES_OBSTACLE_LAYOUT_H
#define CROWDSTEER_EXAMPLES_OBSTACLE_LAYOUT_H

#include <stddef.h>

#include "crowdsteer.h"

/* Most vertices of one obstacle of the layout. */
enum { LAYOUT_MAX_VERTICES = 8 };

/* Obstacles in the layout. */
size_t layout_count(void);

/* Obstacle k placed in the world: u in [-1, 1] maps to centre_x + u *
 * half_x, v to centre_y + v * half_y (half sizes positive, so polygons stay
 * counter-clockwise in the world's own coordinates). Returns its vertex
 * count (2: a wall; more: a counter-clockwise polygon), 0 past the end. */
size_t layout_obstacle(size_t k, float centre_x, float centre_y, float half_x,
                       float half_y, float x[LAYOUT_MAX_VERTICES],
                       float y[LAYOUT_MAX_VERTICES]);

/* A built obstacle set of the whole layout so placed (*out NULL on error). */
crowdsteer_status layout_build(crowdsteer_obstacles **out, float centre_x, float centre_y,
                               float half_x, float half_y);

#endif /* CROWDSTEER_EXAMPLES_OBSTACLE_LAYOUT_H */
