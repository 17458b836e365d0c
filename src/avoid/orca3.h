/* ORCA in 3D (agents only, as RVO2-3D): half-space constraints (planes)
 * and the linear programs in the speed ball, the scalar definition. */
#ifndef CROWDSTEER_AVOID_ORCA3_H
#define CROWDSTEER_AVOID_ORCA3_H

#include <stddef.h>
#include <stdint.h>

/* The velocities x with dot(x - point, normal) >= 0 (normal of unit length). */
typedef struct cs_orca_plane {
  float point[3];
  float normal[3];
} cs_orca_plane;

typedef struct cs_orca3_agent {
  float p[3], v[3];
  float radius;
  float max_speed;
  float responsibility;
  uint32_t id;
} cs_orca3_agent;

/* The plane agent a gets from neighbour b; as cs_orca_agent_line. */
void cs_orca3_agent_plane(const cs_orca3_agent *a, const cs_orca3_agent *b, float share,
                          float inv_time_horizon, float inv_dt, cs_orca_plane *plane);

/* As cs_orca_solve, in the ball of radius max_speed (every plane is an
 * agent's: the fallback minimises the largest violation of all of them).
 * `room` holds count planes. Returns 1 when it fell back. */
int cs_orca3_solve(const cs_orca_plane *planes, size_t count, float max_speed,
                   const float preferred[3], cs_orca_plane *room, float result[3]);

#endif /* CROWDSTEER_AVOID_ORCA3_H */
