/* Containment's inside rule (bounds/bounds.h), alone in its file: the
 * reference's contain row and crowdsteer_contain (bounds.c, which calls the
 * reference's seek) both use it, so it sits below both. */
#include "bounds/bounds.h"

int cs_bounds_inside(const crowdsteer_bounds *b, const float centre[3], const float p[3],
                     const float v[3], int dims) {
  float q[3] = {0.0f, 0.0f, 0.0f};
  for (int k = 0; k < dims; k++)
    q[k] = b->prediction == 0.0f ? p[k] : p[k] + v[k] * b->prediction;
  if (b->shape == CROWDSTEER_BOUNDS_BOX) {
    int in = 1;
    for (int k = 0; k < dims; k++)
      in &= q[k] >= b->box.min[k] && q[k] <= b->box.max[k];
    return in;
  }
  float d2 = (q[0] - centre[0]) * (q[0] - centre[0]);
  for (int k = 1; k < dims; k++)
    d2 += (q[k] - centre[k]) * (q[k] - centre[k]);
  return d2 <= b->radius * b->radius;
}
