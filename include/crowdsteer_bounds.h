/* crowdsteer's world bounds: wrap-around of positions in a box, and
 * containment in a sphere (circle) or an axis-aligned box.
 * Part of the public API: include crowdsteer.h, which includes this header. */
/** \file crowdsteer_bounds.h
 * Wrap-around (crowdsteer_wrap) and containment (crowdsteer_contain);
 * included by crowdsteer.h. */
#ifndef CROWDSTEER_BOUNDS_H
#define CROWDSTEER_BOUNDS_H

#include "crowdsteer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Wrap-around (a periodic box) ------------------------------------------
 * crowdsteer_wrap moves the agents that left a box back in through the
 * opposite face. Per axis k < dims, with L = max[k] - min[k] (one float
 * subtraction):
 *   p >= max[k]:  p' = p - L;   p < min[k]:  p' = p + L;   else p' = p.
 * One shift, never a loop: an agent at most one side length outside comes
 * back inside (up to the rounding of that one subtraction or addition: a
 * result may sit on min[k] or, by one rounding, just outside; the next call
 * moves it again); an agent farther out moves by one L towards the box and
 * stays outside. NaN stays NaN. Compares and one correctly rounded add per
 * axis: the same bits on every ISA, thread count and split. Velocities are
 * not read.
 *
 * Neighbours are NOT seen across the seam yet: separation, cohesion,
 * alignment and the neighbour queries measure plain differences p_q - p_i
 * (docs/behaviours.md, "World bounds", says what a host can do meanwhile). */

/** An axis-aligned box: min[k] .. max[k] on each axis k < dims (z unused
 *  in 2D). */
typedef struct crowdsteer_box {
  float min[3]; /**< the low corner */
  float max[3]; /**< the high corner */
} crowdsteer_box;

/**
 * Wraps the positions of agents [begin, end) into the box, in place (see
 * above). Validation (nothing written on error): agents or box NULL, or a
 * position array NULL for a non-empty range: NULL_POINTER; dims: DIMS;
 * begin > end or end > count: RANGE; a position array not aligned to 4
 * bytes: ALIGNMENT; a corner not finite, min[k] >= max[k], or a side
 * max[k] - min[k] that overflows: PARAMETER (axes k < dims only). Runs on
 * the caller's thread, allocates nothing, keeps the floating-point
 * promises of every entry point.
 */
CROWDSTEER_API crowdsteer_status crowdsteer_wrap(const crowdsteer_agents *agents,
                                                 const crowdsteer_box *box, size_t begin,
                                                 size_t end);

/* ---- Containment -----------------------------------------------------------
 * crowdsteer_contain steers the agents that are outside a region, or will
 * be within `prediction` time units at their present velocity, back
 * towards its centre; the others get zero steering. With the region's
 * centre c (the sphere's centre, or min * 0.5 + max * 0.5 for a box) and
 * q = p + v * prediction (q = p when prediction is 0):
 *   q inside:   s = 0
 *   otherwise:  s = (normalize(c - p) * max_speed - v) / time_to_target
 * which is exactly crowdsteer_seek towards c (same bits, same parameters,
 * same defaults). "Inside" is dot(q - c, q - c) <= radius * radius for a
 * sphere (a circle in 2D; sums x, y, z in that order) and
 * min[k] <= q[k] <= max[k] on every axis k < dims for a box. */

/** The shape of a containing region. */
typedef enum crowdsteer_bounds_shape {
  CROWDSTEER_BOUNDS_SPHERE = 0, /**< centre and radius (a circle in 2D) */
  CROWDSTEER_BOUNDS_BOX = 1     /**< box.min .. box.max */
} crowdsteer_bounds_shape;

/** A containing region and how far ahead agents look. */
typedef struct crowdsteer_bounds {
  crowdsteer_bounds_shape shape; /**< sphere or box (else PARAMETER) */
  float centre[3];               /**< sphere: its centre (finite) */
  float radius;                  /**< sphere: its radius (finite, >= 0) */
  /** box: its corners (finite, min[k] <= max[k]). */
  crowdsteer_box box;
  /** Look-ahead time: an agent is steered back when p + v * prediction is
   *  outside. Finite and >= 0 (else PARAMETER); 0: only agents already
   *  outside. */
  float prediction;
} crowdsteer_bounds;

/**
 * Containment for agents [begin, end) (see above), written to `out` like any
 * behaviour (overwrite, or accumulate out += weight * s). Reads max_speed
 * and time_to_target from params as crowdsteer_seek does. Validation is
 * seek's (agents, params, output, OVERLAP) plus the bounds: NULL_POINTER,
 * PARAMETER for an unknown shape or a bad field of the shape in use or of
 * prediction (axes k < dims only); nothing is written on error. One scalar
 * definition on every ISA (the same bits everywhere), on the caller's
 * thread, no allocation, the floating-point promises of every entry point.
 */
CROWDSTEER_API crowdsteer_status crowdsteer_contain(const crowdsteer_agents *agents,
                                                    const crowdsteer_bounds *bounds,
                                                    const crowdsteer_params *params,
                                                    const crowdsteer_output *out,
                                                    size_t begin, size_t end);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_BOUNDS_H */
