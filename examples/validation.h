/* crowdsteer-validation: ORCA agents (metres, seconds) against measured
 * pedestrians: the speed-density relation in a periodic corridor and the
 * flow through bottlenecks (docs/validation.md). Shared declarations. */
#ifndef CROWDSTEER_EXAMPLES_VALIDATION_H
#define CROWDSTEER_EXAMPLES_VALIDATION_H

#include <stddef.h>
#include <stdint.h>

#include "crowdsteer.h"

/* The pedestrian model: every value is chosen once, a priori, and stated in
 * docs/validation.md; none is fitted to the measured data. */
typedef struct val_model {
  float radius;            /* body radius, m */
  float v0;                /* mean preferred (and top) speed, m/s */
  float v0_sd;             /* 0: every agent v0; else normal(v0, v0_sd), clipped */
  float v0_min, v0_max;    /* the clip of the distributed speeds */
  float dt;                /* time step, s */
  float tau, tau_obst;     /* ORCA time horizons (agents, obstacles), s */
  float neighbour_radius;  /* who ORCA considers, m (also the grid's cell) */
  uint32_t max_neighbours; /* and at most this many, nearest first */
} val_model;

/* What every run counts besides its figure of merit. */
typedef struct val_counts {
  uint64_t walls_crossed; /* moves through an obstacle edge, or a centre
                             outside the walkable area (must be 0) */
  uint64_t inside;        /* agent-steps with a centre inside a polygon */
  uint64_t wall_contacts; /* agent-steps whose move a wall stopped or slid */
  uint64_t crowded;       /* agent-steps with no velocity meeting every
                             agent constraint */
  uint64_t agent_steps;   /* the denominator of the last two */
  double min_distance;    /* smallest centre distance seen, m */
} val_counts;

/* One density of the periodic corridor (length x width, metres). */
typedef struct val_corridor_result {
  double density; /* agents per m^2 (count / (length * width)) */
  size_t count;
  double mean_speed; /* mean of v_x over agents and measured steps, m/s */
  double mean_abs;   /* mean of |v| over the same */
  val_counts counts;
} val_corridor_result;

/* Runs the corridor: `warmup` steps, then `measure` steps averaged.
 * Returns 0, or -1 (with a message on stderr) on failure. */
int val_corridor(const val_model *m, float length, float width, double density,
                 uint64_t seed, size_t warmup, size_t measure, val_corridor_result *out);

/* One bottleneck run: `count` agents leave a room through a corridor of
 * width `b` and length 4 m. */
typedef struct val_bottleneck_result {
  double width;
  size_t count, passed; /* agents, and those past the measuring line */
  double flow_steady;   /* persons/s between the 20 % and 80 % passages */
  double flow_all;      /* (passed - 1) / (last - first passage time) */
  double first, last;   /* first and last passage time, s */
  val_counts counts;
} val_bottleneck_result;

int val_bottleneck(const val_model *m, float width, size_t count, uint64_t seed,
                   double max_time, val_bottleneck_result *out);

/* Weidmann's speed-density relation (1993), m/s for rho in 1/m^2. */
double val_weidmann(double density);

/* Deterministic random numbers: splitmix64, uniform [0, 1), normal. */
uint64_t val_next(uint64_t *state);
double val_uniform(uint64_t *state);
double val_normal(uint64_t *state);

#endif /* CROWDSTEER_EXAMPLES_VALIDATION_H */
