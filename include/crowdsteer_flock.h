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

/* ---- Integrator options ------------------------------------------------------
 * crowdsteer_params.motion, read by crowdsteer_integrate and by a step's
 * integrator (crowdsteer_step_desc.integrator.motion; a behaviour's own
 * params.motion is not read). NULL, or zeros, change no bit. Per agent,
 * before the force limit and after the mass (docs/behaviours.md §3.8):
 *   s = limit_turn(s, v, turn_limit * max_speed)   (turn_limit > 0)
 *   f = truncate(s, max_force); a = f / mass;
 *   a = A + (a - A) * smoothing; A = a             (smoothing > 0)
 *   v' = truncate(v + a * dt, max_speed); p' = p + v' * dt. */

/** The integrator's options, OpenSteer's SimpleVehicle rules. */
typedef struct crowdsteer_motion {
  /** Acceleration smoothing rate in [0, 1] (else PARAMETER); 0: none.
   *  OpenSteer blends at clip(9 dt, 0.15, 0.4) (0.15 at 60 Hz). */
  float smoothing;
  /** With smoothing: each agent's smoothed acceleration A (zeros are a
   *  valid start), read and written for the range, caller-owned, dims
   *  axes (NULL_POINTER, ALIGNMENT; OVERLAP if it meets another array of
   *  the call). A step's updates it in place, whether or not out of place. */
  crowdsteer_vectors acceleration;
  /** Low-speed turn limit as a fraction of max_speed in [0, 1] (else
   *  PARAMETER); 0: none; OpenSteer's is 0.2. At a speed 0 < len(v) <=
   *  turn_limit * max_speed the steering keeps its length but turns at most
   *  to the cone of cosine 1 - 2 (len(v) / (turn_limit * max_speed))^20
   *  around heading(v) (OpenSteer's adjustRawSteeringForce); an agent at
   *  rest, or faster, is not limited. */
  float turn_limit;
} crowdsteer_motion;

/* Speed: Reynolds' forms and an inner radius in effect run each agent on
 * its own against its candidates (W candidates per vector), not in the
 * kernels' tiles; in a step, such behaviours on one grid (one form,
 * uniform radii, one group filter) share one walk of the candidates.
 * docs/benchmarks.md has the figures. */

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_FLOCK_H */
