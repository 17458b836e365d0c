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

/* In crowdsteer_step: the behaviour CROWDSTEER_CONTAIN, whose region is
 * crowdsteer_step_behaviour.bounds, gives each agent crowdsteer_contain's
 * steering (the same bits on every ISA), and crowdsteer_step_desc.wrap
 * wraps the moved positions of the range as crowdsteer_wrap then would. */

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
 * Neighbours are seen across the seam through ghosts
 * (crowdsteer_periodic_ghosts below). */

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

/* ---- Neighbours across the seam: ghosts ------------------------------------
 * crowdsteer_periodic_ghosts appends, after the `count` agents of a batch, a
 * ghost of every agent within reach of a face: a copy at p shifted by +L
 * (within reach of the low face) or -L (of the high face) on each such axis,
 * every combination of those shifts (up to 3 ghosts an agent in 2D, 7 in
 * 3D), with the agent's velocity, group and id. Run the neighbour
 * behaviours, queries, a grid build and crowdsteer_step on the batch of
 * `total` agents with `id` as its ids, for agents [0, count): each agent
 * then sees its neighbours across the seam at their ghost position
 * p_q +- L (rounded once) by every rule of the neighbour behaviours, with
 * and without a grid, on every ISA, with the same bits; a ghost is never
 * an agent of the range, so it is only seen. A neighbour query's index of
 * a ghost is its slot; origin[] gives the agent it copies.
 *
 * Ghosts are made where p < min + reach' or p >= max - reach', reach' =
 * reach * 1.0625 (a margin over the rounding of the shift while the
 * coordinates' ulp is far below reach / 16; a ghost out of reach is only a
 * candidate that fails the distance test), and every side
 * must exceed 2 * reach' (PARAMETER), so no agent sees another twice or
 * sees itself. `reach` is the largest neighbour radius in use (a radius
 * larger than reach misses neighbours across the seam). */

/**
 * The number of agents the batch holds with its ghosts, into *total:
 * count + the ghosts of agents [0, count). Validation as
 * crowdsteer_periodic_ghosts.
 */
CROWDSTEER_API crowdsteer_status
crowdsteer_periodic_count(const crowdsteer_agents *agents, const crowdsteer_box *box,
                          float reach, size_t *total);

/**
 * Writes the ghosts (see above) of agents [0, agents->count) into slots
 * [count, total) of the agents' own arrays (positions, velocities, and
 * group when group is not NULL), which must hold `capacity` elements; id
 * (capacity entries) gets every slot's id (the agents' id, or its index,
 * for [0, count); the source agent's for a ghost) and origin (NULL, or
 * capacity entries) the source agent's index (i for agent i). *total =
 * count + ghosts. Validation (nothing written on error): NULL_POINTER
 * (agents, box, a position or velocity array, id, total), DIMS, ALIGNMENT,
 * PARAMETER (a corner not finite or min >= max; reach not finite or <= 0;
 * a side not above 2 * reach'; an agent's position outside [min, max) or
 * NaN: wrap first), RANGE (capacity below the total, or a total that does
 * not fit a uint32_t), OVERLAP (id, origin or group meeting another array).
 * Caller's thread, no allocation, the floating-point promises.
 */
CROWDSTEER_API crowdsteer_status crowdsteer_periodic_ghosts(
    const crowdsteer_agents *agents, uint32_t *group, const crowdsteer_box *box,
    float reach, size_t capacity, uint32_t *id, uint32_t *origin, size_t *total);

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
