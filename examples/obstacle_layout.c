/* The shared obstacle layout (obstacle_layout.h): the shapes on [-1, 1]^2
 * and the obstacle set built from them. */
#include "obstacle_layout.h"

/* Vertex lists on [-1, 1]^2, polygons counter-clockwise (y up). The
 * doorways are 0.06 wide (6 units in the demo's 200-unit world, 24 of its
 * default bodies abreast), so crowds squeeze through them. */
typedef struct shape {
  size_t n;
  float u[LAYOUT_MAX_VERTICES], v[LAYOUT_MAX_VERTICES];
} shape;

static const shape shapes[] = {
    /* A long wall across the lower half, a doorway in the middle. */
    {2, {-0.85f, -0.03f}, {-0.35f, -0.35f}},
    {2, {0.03f, 0.85f}, {-0.35f, -0.35f}},
    /* A wall up the right side, a doorway at v = 0.3. */
    {2, {0.55f, 0.55f}, {-0.2f, 0.27f}},
    {2, {0.55f, 0.55f}, {0.33f, 0.8f}},
    /* Four square pillars in a row. */
    {4, {-0.64f, -0.56f, -0.56f, -0.64f}, {0.26f, 0.26f, 0.34f, 0.34f}},
    {4, {-0.34f, -0.26f, -0.26f, -0.34f}, {0.26f, 0.26f, 0.34f, 0.34f}},
    {4, {-0.04f, 0.04f, 0.04f, -0.04f}, {0.26f, 0.26f, 0.34f, 0.34f}},
    {4, {0.26f, 0.34f, 0.34f, 0.26f}, {0.26f, 0.26f, 0.34f, 0.34f}},
    /* A wedge pointing down at the wall's doorway. */
    {3, {-0.1f, 0.0f, 0.1f}, {-0.05f, -0.2f, -0.05f}},
    /* An L-shaped (concave) corner, lower left. */
    {6,
     {-0.8f, -0.55f, -0.55f, -0.72f, -0.72f, -0.8f},
     {-0.8f, -0.8f, -0.72f, -0.72f, -0.55f, -0.55f}},
};

size_t layout_count(void) { return sizeof shapes / sizeof shapes[0]; }

size_t layout_obstacle(size_t k, float centre_x, float centre_y, float half_x,
                       float half_y, float x[LAYOUT_MAX_VERTICES],
                       float y[LAYOUT_MAX_VERTICES]) {
  if (k >= layout_count()) return 0;
  const shape *s = &shapes[k];
  for (size_t i = 0; i < s->n; i++) {
    x[i] = centre_x + s->u[i] * half_x;
    y[i] = centre_y + s->v[i] * half_y;
  }
  return s->n;
}

crowdsteer_status layout_build(crowdsteer_obstacles **out, float centre_x, float centre_y,
                               float half_x, float half_y) {
  crowdsteer_obstacles *set = NULL;
  crowdsteer_status status = crowdsteer_obstacles_create(&set);
  for (size_t k = 0; k < layout_count() && status == CROWDSTEER_OK; k++) {
    float x[LAYOUT_MAX_VERTICES], y[LAYOUT_MAX_VERTICES];
    size_t n = layout_obstacle(k, centre_x, centre_y, half_x, half_y, x, y);
    status = crowdsteer_obstacles_add(set, x, y, n);
  }
  if (status == CROWDSTEER_OK) status = crowdsteer_obstacles_build(set, 0.0f);
  if (status != CROWDSTEER_OK) {
    crowdsteer_obstacles_destroy(set);
    set = NULL;
  }
  *out = set;
  return status;
}
