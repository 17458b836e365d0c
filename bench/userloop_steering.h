/* The userloop competitor for the steering behaviours and the integrator:
 * the plain structure-of-arrays loops a competent user writes from
 * docs/behaviours.md (bench/userloop_steering.c says how and why). 2D. */
#ifndef CROWDSTEER_BENCH_USERLOOP_STEERING_H
#define CROWDSTEER_BENCH_USERLOOP_STEERING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum userloop_behaviour {
  USERLOOP_SEEK,
  USERLOOP_FLEE,
  USERLOOP_ARRIVE,
  USERLOOP_LEAVE,
  USERLOOP_PURSUIT,
  USERLOOP_EVADE,
  USERLOOP_WANDER
} userloop_behaviour;

/* Where the target is: one point, per-agent arrays, per-agent indices of
 * other agents (read before anyone moves), or one agent for all. */
typedef enum userloop_form {
  USERLOOP_POINT,
  USERLOOP_ARRAYS,
  USERLOOP_AGENTS,
  USERLOOP_AGENT
} userloop_form;

/* A 2D crowd, one array per coordinate. */
typedef struct userloop_crowd {
  size_t count;
  float *px, *py, *vx, *vy;
} userloop_crowd;

typedef struct userloop_target {
  float x, y, vx, vy;               /* POINT */
  const float *px, *py, *pvx, *pvy; /* ARRAYS */
  const uint32_t *index;            /* AGENTS */
  uint32_t agent;                   /* AGENT */
} userloop_target;

typedef struct userloop_wander {
  float *wx, *wy; /* each agent's wander direction, updated */
  uint32_t seed, tick;
} userloop_wander;

/* The game's constants. Time to target and mass are 1 and there is no
 * force limit (the per-frame form of the articles), as in the benchmarks;
 * a user who has those constants writes no operation for them. */
typedef struct userloop_params {
  float max_speed, dt;
  float target_radius, slowing_radius; /* arrive */
  float panic_radius;                  /* flee, evade */
  float danger_radius, escape_radius;  /* leave (danger_radius > 0) */
  float max_prediction;                /* pursuit, evade */
  float wander_radius, wander_distance, jitter;
} userloop_params;

/** Steering of every agent into (sx, sy). */
void userloop_steer(userloop_behaviour behaviour, userloop_form form,
                    const userloop_crowd *crowd, const userloop_target *target,
                    const userloop_wander *wander, const userloop_params *params,
                    float *sx, float *sy);

/** Moves every agent by its steering (sx, sy), in place. */
void userloop_integrate(const userloop_crowd *crowd, const float *sx, const float *sy,
                        const userloop_params *params);

/** One simulation step, in place: the behaviour and the integrator in one
 *  loop, no steering array (AGENTS targets: two loops through (sx, sy), as
 *  a target must be read before it moves). */
void userloop_steer_step(userloop_behaviour behaviour, userloop_form form,
                         const userloop_crowd *crowd, const userloop_target *target,
                         const userloop_wander *wander, const userloop_params *params,
                         float *sx, float *sy);

/* The three-behaviour mix of the benchmarks' mixed3_fused: every agent
 * seeks one point, flees another, wanders, blended with these weights. */
typedef struct userloop_mix {
  float seek_x, seek_y, flee_x, flee_y;
  float seek_weight, flee_weight, wander_weight;
} userloop_mix;

/** One step of the mix, in one loop, in place. */
void userloop_mixed3(const userloop_crowd *crowd, const userloop_wander *wander,
                     const userloop_mix *mix, const userloop_params *params);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_BENCH_USERLOOP_STEERING_H */
