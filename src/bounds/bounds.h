/* World bounds inside the library: containment's inside rule and its
 * validation (shared by crowdsteer_contain, the reference's contain row and
 * the step), and wrap-around of a range of positions (crowdsteer_wrap and
 * the step's wrap option). */
#ifndef CROWDSTEER_BOUNDS_BOUNDS_H
#define CROWDSTEER_BOUNDS_BOUNDS_H

#include "internal.h"

/* Whether q = p + v * prediction (q = p when prediction is 0) is inside the
 * region whose centre is `centre` (crowdsteer_bounds.h's rule). */
int cs_bounds_inside(const crowdsteer_bounds *b, const float centre[3], const float p[3],
                     const float v[3], int dims);

/* Containment's region for `in` (agents resolved, dims set): NULL_POINTER
 * or PARAMETER as crowdsteer_contain; on success in->bounds is the region
 * and its centre the POINT target. */
crowdsteer_status cs_resolve_bounds(cs_inputs *in, const crowdsteer_bounds *bounds);

/* Whether a wrap box is valid on the axes in use (crowdsteer_wrap's rule). */
int cs_wrap_box_ok(const crowdsteer_box *box, int dims);

/* Wraps positions [first, last) into the box, in place (crowdsteer_wrap). */
void cs_wrap_positions(float *const pos[3], const crowdsteer_box *box, int dims,
                       size_t first, size_t last);

/* The same on `backend`'s lanes where it has them (crowdsteer_wrap and the
 * step's wrap: the same bits either way). */
static inline void cs_wrap_on(const cs_backend *backend, float *const pos[3],
                              const crowdsteer_box *box, int dims, size_t first,
                              size_t last) {
  if (backend->wrap)
    backend->wrap(pos, box, dims, first, last);
  else
    cs_wrap_positions(pos, box, dims, first, last);
}

#endif /* CROWDSTEER_BOUNDS_BOUNDS_H */
