/* crowdsteer's flocking options: the forms of the neighbour behaviours'
 * formulas (crowdsteer_neighbours.form) and the always-seen inner radius.
 * Part of the public API: include crowdsteer.h, which includes this header. */
/** \file crowdsteer_flock.h
 * Forms of separation, cohesion and alignment; included by crowdsteer.h. */
#ifndef CROWDSTEER_FLOCK_H
#define CROWDSTEER_FLOCK_H

#include "crowdsteer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Forms of the neighbour behaviours -------------------------------------
 * crowdsteer_neighbours.form chooses the formulas separation, cohesion and
 * alignment compute from their neighbours (the same neighbour set either
 * way). Every form sums its contributions exactly (64-bit integer sums of
 * contributions rounded to multiples of 2^-24), so the results are the
 * same bits on every ISA, thread count, split and grid. The definitions,
 * with the roundings, are in the "Forms" part of the "Neighbours" section
 * of docs/behaviours.md. */

/** The formulas of separation, cohesion and alignment. Anything else in
 *  crowdsteer_neighbours.form is PARAMETER. */
typedef enum crowdsteer_form {
  /** The formulas of crowdsteer.h (linear falloff separation scaled by
   *  max_speed; cohesion seeking the centre and alignment matching the
   *  mean velocity, over time_to_target). */
  CROWDSTEER_FORM_DEFAULT = 0,
  /** Reynolds' forms, as OpenSteer's steerForSeparation, steerForCohesion
   *  and steerForAlignment: unit steering vectors (zero when the sum is
   *  zero or no neighbour is seen), max_speed and time_to_target not read.
   *  With d = p_i - p_q and normalize(x) = x / len(x):
   *  - separation: normalize(sum of d / dot(d, d)) (a coincident
   *    neighbour contributes -x for the agent of lower id, +x for the
   *    other, as in the default form);
   *  - cohesion: normalize(sum of (p_q - p_i) / radius), the direction to
   *    the neighbours' centre;
   *  - alignment: normalize(sum of heading(v_q) / n - heading(v_i)), with
   *    heading(v) = normalize(v), 0 for an agent at rest. */
  CROWDSTEER_FORM_REYNOLDS = 1
} crowdsteer_form;

/* crowdsteer_neighbours.inner_radius: finite and >= 0 (else PARAMETER;
 * 0, the default, is none). With a field of view, a neighbour q with
 * len(p_q - p_i) < inner_radius is seen whatever its angle (OpenSteer's
 * boids see all round within 1.5 of their 10); it changes nothing without
 * one, and the radius and every other rule still apply. Any form. */

/* Speed: Reynolds' forms and an inner radius in effect run each agent on
 * its own against its candidates (W candidates per vector), not in the
 * kernels' tiles; docs/benchmarks.md has the figures. */

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_FLOCK_H */
