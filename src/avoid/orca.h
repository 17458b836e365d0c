/* Internal contract of ORCA avoidance in 2D: the half-plane constraints
 * (lines), how an agent and a neighbour or an obstacle edge make one, and
 * the linear programs that pick the velocity. This scalar code is the
 * definition: every operation in float, in the order written, no FMA. */
#ifndef CROWDSTEER_AVOID_ORCA_H
#define CROWDSTEER_AVOID_ORCA_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "avoid/obstacles.h"

/* The float next to a positive finite f, toward zero. */
static inline float cs_float_down(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  bits -= 1u;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* A double rounded to a float no larger in magnitude (the solvers' last
 * scaling onto the speed disc or ball). */
static inline float cs_toward_zero(double d) {
  float f = (float)d;
  if (fabsf(f) > fabs(d)) f = f > 0.0f ? cs_float_down(f) : -cs_float_down(-f);
  return f;
}

/* A half-plane of velocities: those on the left of the directed line
 * through `point` along the unit vector `direction` (on it included). */
typedef struct cs_orca_line {
  float point[2];
  float direction[2];
} cs_orca_line;

/* Below this, two line directions count as parallel (|det| <= it), and an
 * obstacle edge's velocity obstacle counts as covered by an earlier line. */
#define CS_ORCA_EPSILON 0.00001f

/* One agent's view: its state (the grid's copy when there is one) and its
 * parameters. */
typedef struct cs_orca_agent {
  float p[2], v[2];
  float radius;
  float max_speed;
  float responsibility;
  uint32_t id;
} cs_orca_agent;

/* The line agent a gets from neighbour b (relative position p_b - p_a,
 * relative velocity v_a - v_b), given 1 / time_horizon and 1 / dt; `share`
 * is the part of the avoidance a takes (> 0). */
void cs_orca_agent_line(const cs_orca_agent *a, const cs_orca_agent *b, float share,
                        float inv_time_horizon, float inv_dt, cs_orca_line *line);

/* Agent a's neighbours in structure-of-arrays form, `count` of them, each
 * array readable (and padded) to a whole number of CS_LANES blocks. */
typedef struct cs_orca_neighbours {
  const float *px, *py, *vx, *vy, *radius, *responsibility;
  const uint32_t *id;
  size_t count;
} cs_orca_neighbours;

/* The lines a gets from its neighbours, in their order, those it takes no
 * share of (cs_orca_share 0) left out, into `out`; returns how many. The
 * scalar definition, and the kernels' (src/kernels/avoid_lines.c). */
typedef size_t (*cs_orca_lines_fn)(const cs_orca_agent *a, const cs_orca_neighbours *nb,
                                   float inv_time_horizon, float inv_dt,
                                   cs_orca_line *out);
size_t cs_orca_agent_lines(const cs_orca_agent *a, const cs_orca_neighbours *nb,
                           float inv_time_horizon, float inv_dt, cs_orca_line *out);
extern const cs_orca_lines_fn cs_avoid_lines_sse4, cs_avoid_lines_avx2,
    cs_avoid_lines_avx512, cs_avoid_lines_neon, cs_avoid_lines_simd128;

/* a's share of avoiding b: responsibility r_a / (r_a + r_b), 0 when r_a is 0. */
static inline float cs_orca_share(float ra, float rb) {
  return ra > 0.0f ? ra / (ra + rb) : 0.0f;
}

/* The squared distance from p to edge e, when p is strictly on its right
 * (outside) and within range_sq; returns 0 otherwise. */
int cs_orca_edge_in_range(const crowdsteer_obstacles *o, uint32_t e, const float p[2],
                          float range_sq, float *dist_sq);

/* Appends to `lines` (from *count) the lines of the obstacle edges `edges`
 * (already in order: nearest first, ties by edge index). */
void cs_orca_obstacle_lines(const crowdsteer_obstacles *o, const cs_orca_agent *a,
                            float inv_time_horizon, const uint32_t *edges,
                            size_t edge_count, cs_orca_line *lines, size_t *count);

/* The velocity closest to `preferred` within max_speed on the left of
 * every line; when none is, the one within max_speed that keeps the first
 * obstacle_lines lines and violates the others least (returns 1 then).
 * `room` holds line_count lines for the fallback. */
int cs_orca_solve(const cs_orca_line *lines, size_t obstacle_lines, size_t line_count,
                  float max_speed, const float preferred[2], cs_orca_line *room,
                  float result[2]);

#endif /* CROWDSTEER_AVOID_ORCA_H */
