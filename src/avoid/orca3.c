/* ORCA in 3D, the scalar definition: the plane an agent gets from a
 * neighbour (the velocity obstacle is a cone truncated by a sphere) and the
 * incremental programs on a line, on a plane, in the ball, and the
 * least-violation fallback, as in the 3D version of the ORCA paper's
 * library (RVO2-3D). Every value a float computed in the order written. */
#include "avoid/orca3.h"

#include <math.h>

#include "avoid/orca.h"

static inline float dot3(const float a[3], const float b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const float a[3], const float b[3], float out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline void set3(float out[3], float x, float y, float z) {
  out[0] = x;
  out[1] = y;
  out[2] = z;
}

/* out = a + s * b */
static inline void add_scaled(const float a[3], float s, const float b[3], float out[3]) {
  set3(out, a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]);
}

static inline void sub3(const float a[3], const float b[3], float out[3]) {
  set3(out, a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

static inline void divide3(const float a[3], float d, float out[3]) {
  set3(out, a[0] / d, a[1] / d, a[2] / d);
}

void cs_orca3_agent_plane(const cs_orca3_agent *a, const cs_orca3_agent *b, float share,
                          float inv_time_horizon, float inv_dt, cs_orca_plane *plane) {
  float rel[3], vrel[3], u[3];
  sub3(b->p, a->p, rel);
  sub3(a->v, b->v, vrel);
  const float dist_sq = dot3(rel, rel);
  const float r = a->radius + b->radius;
  const float r_sq = r * r;
  float *normal = plane->normal;
  if (dist_sq > r_sq) {
    float w[3];
    add_scaled(vrel, -inv_time_horizon, rel, w);
    const float w_len_sq = dot3(w, w);
    const float along = dot3(w, rel);
    if (along < 0.0f && along * along > r_sq * w_len_sq) {
      /* Nearest the cut-off sphere. */
      const float w_len = sqrtf(w_len_sq);
      divide3(w, w_len, normal);
      const float push = r * inv_time_horizon - w_len;
      set3(u, push * normal[0], push * normal[1], push * normal[2]);
    } else {
      /* Nearest the cone: project the relative velocity on the cone's
       * generator in the plane of the axis and itself (the exact nearest
       * point; RVO2-3D's inscribed-sphere shortcut lets pairs come a
       * little closer than r). e is the axis, f the unit direction of the
       * relative velocity's part off the axis (when it has none, a fixed
       * perpendicular to e, the other way round for the agent of higher id
       * so the two part). */
      const float dist = sqrtf(dist_sq);
      const float leg = sqrtf(dist_sq - r_sq);
      float e[3], f[3], g[3];
      divide3(rel, dist, e);
      float off_axis[3];
      add_scaled(vrel, -dot3(vrel, e), e, off_axis);
      const float off_len = sqrtf(dot3(off_axis, off_axis));
      if (off_len > 0.0f) {
        divide3(off_axis, off_len, f);
      } else {
        int k = 0; /* the axis e leans on least */
        for (int c = 1; c < 3; c++)
          if (fabsf(e[c]) < fabsf(e[k])) k = c;
        float axis[3] = {0.0f, 0.0f, 0.0f};
        axis[k] = a->id < b->id ? 1.0f : -1.0f;
        add_scaled(axis, -axis[k] * e[k], e, off_axis);
        divide3(off_axis, sqrtf(dot3(off_axis, off_axis)), f);
      }
      const float cos_a = leg / dist, sin_a = r / dist;
      set3(g, cos_a * e[0] + sin_a * f[0], cos_a * e[1] + sin_a * f[1],
           cos_a * e[2] + sin_a * f[2]);
      set3(normal, cos_a * f[0] - sin_a * e[0], cos_a * f[1] - sin_a * e[1],
           cos_a * f[2] - sin_a * e[2]);
      const float along_g = dot3(vrel, g);
      set3(u, along_g * g[0] - vrel[0], along_g * g[1] - vrel[1],
           along_g * g[2] - vrel[2]);
    }
  } else {
    float w[3];
    add_scaled(vrel, -inv_dt, rel, w);
    const float w_len = sqrtf(dot3(w, w));
    if (w_len > 0.0f) {
      divide3(w, w_len, normal);
    } else if (dist_sq > 0.0f) {
      const float dist = sqrtf(dist_sq);
      set3(normal, -rel[0] / dist, -rel[1] / dist, -rel[2] / dist);
    } else {
      set3(normal, a->id < b->id ? -1.0f : 1.0f, 0.0f, 0.0f);
    }
    const float push = r * inv_dt - w_len;
    set3(u, push * normal[0], push * normal[1], push * normal[2]);
  }
  add_scaled(a->v, share, u, plane->point);
}

/* How far x is on the wrong side of plane p (positive: violated). */
static inline float violation(const cs_orca_plane *p, const float x[3]) {
  float gap[3];
  sub3(p->point, x, gap);
  return dot3(p->normal, gap);
}

/* Whether plane q faces the way of normal `along` (parallel, the same
 * way). */
static int same_way(const cs_orca_plane *q, const float along[3]) {
  float c[3];
  cross3(q->normal, along, c);
  return dot3(c, c) <= CS_ORCA_EPSILON && dot3(q->normal, along) > 0.0f;
}

/* The best point of the line (point, direction), which lies in the planes
 * of normals on[0] and on[1], that keeps planes [0, n) and the ball. */
static int program_on_line(const cs_orca_plane *planes, size_t n, const float point[3],
                           const float direction[3], const float *const on[2],
                           float max_speed, const float target[3], int toward,
                           float result[3]) {
  const float along = dot3(point, direction);
  const float discriminant = along * along + max_speed * max_speed - dot3(point, point);
  if (discriminant < 0.0f) return 0;
  const float root = sqrtf(discriminant);
  float t_left = -along - root, t_right = -along + root;
  for (size_t i = 0; i < n; i++) {
    float gap[3];
    sub3(planes[i].point, point, gap);
    const float numerator = dot3(gap, planes[i].normal);
    const float denominator = dot3(direction, planes[i].normal);
    if (denominator * denominator <= CS_ORCA_EPSILON) { /* parallel to plane i */
      /* Outside plane i, unless plane i faces the way of a plane the line
       * lies in: that plane is the stricter (program_on_plane's rule), and
       * the line leaves plane i only through rounding. */
      if (numerator > 0.0f && !same_way(&planes[i], on[0]) &&
          !same_way(&planes[i], on[1]))
        return 0;
      continue;
    }
    const float t = numerator / denominator;
    if (denominator >= 0.0f)
      t_left = t_left > t ? t_left : t;
    else
      t_right = t_right < t ? t_right : t;
    if (t_left > t_right) return 0;
  }
  float t;
  if (toward) {
    t = dot3(target, direction) > 0.0f ? t_right : t_left;
  } else {
    float offset[3];
    sub3(target, point, offset);
    t = dot3(direction, offset);
    t = t < t_left ? t_left : (t > t_right ? t_right : t);
  }
  add_scaled(point, t, direction, result);
  return 1;
}

/* The best point of plane n that keeps planes [0, n) and the ball. */
static int program_on_plane(const cs_orca_plane *planes, size_t n, float max_speed,
                            const float target[3], int toward, float result[3]) {
  const cs_orca_plane *p = &planes[n];
  const float plane_dist = dot3(p->point, p->normal);
  const float plane_dist_sq = plane_dist * plane_dist;
  const float radius_sq = max_speed * max_speed;
  if (plane_dist_sq > radius_sq) return 0;
  const float disc_radius_sq = radius_sq - plane_dist_sq;
  float centre[3];
  set3(centre, plane_dist * p->normal[0], plane_dist * p->normal[1],
       plane_dist * p->normal[2]);
  if (toward) {
    float in_plane[3];
    add_scaled(target, -dot3(target, p->normal), p->normal, in_plane);
    const float len_sq = dot3(in_plane, in_plane);
    if (len_sq <= CS_ORCA_EPSILON)
      set3(result, centre[0], centre[1], centre[2]);
    else
      add_scaled(centre, sqrtf(disc_radius_sq / len_sq), in_plane, result);
  } else {
    float gap[3];
    sub3(p->point, target, gap);
    add_scaled(target, dot3(gap, p->normal), p->normal, result);
    if (dot3(result, result) > radius_sq) {
      float off[3];
      sub3(result, centre, off);
      const float off_sq = dot3(off, off);
      /* The foot itself outside the ball by a rounding (the plane touches
       * it): the disc is that point (off 0 gave 0 / 0, a NaN velocity). */
      if (off_sq > 0.0f)
        add_scaled(centre, sqrtf(disc_radius_sq / off_sq), off, result);
      else
        set3(result, centre[0], centre[1], centre[2]);
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (!(violation(&planes[i], result) > 0.0f)) continue;
    float direction_raw[3], direction[3], line_normal[3], gap[3], point[3];
    cross3(planes[i].normal, p->normal, direction_raw);
    const float raw_sq = dot3(direction_raw, direction_raw);
    if (raw_sq <= CS_ORCA_EPSILON) { /* parallel */
      /* Opposite ways: no point of plane n keeps plane i. The same way:
       * plane i was kept and plane n not, so n is the stricter and its
       * point violates i only through rounding (n is i again, or meets it
       * at a near-zero angle); giving up would throw the answer across
       * the ball (as in 2D, orca.c). */
      if (dot3(planes[i].normal, p->normal) < 0.0f) return 0;
      continue;
    }
    divide3(direction_raw, sqrtf(raw_sq), direction);
    cross3(direction, p->normal, line_normal);
    sub3(planes[i].point, p->point, gap);
    add_scaled(p->point,
               dot3(gap, planes[i].normal) / dot3(line_normal, planes[i].normal),
               line_normal, point);
    const float *const on[2] = {planes[i].normal, p->normal};
    if (!program_on_line(planes, i, point, direction, on, max_speed, target, toward,
                         result))
      return 0;
  }
  return 1;
}

static size_t program_in_ball(const cs_orca_plane *planes, size_t count, float max_speed,
                              const float target[3], int toward, float result[3]) {
  if (toward) {
    set3(result, target[0] * max_speed, target[1] * max_speed, target[2] * max_speed);
  } else if (dot3(target, target) > max_speed * max_speed) {
    const float len = sqrtf(dot3(target, target));
    set3(result, target[0] / len * max_speed, target[1] / len * max_speed,
         target[2] / len * max_speed);
  } else {
    set3(result, target[0], target[1], target[2]);
  }
  for (size_t i = 0; i < count; i++) {
    if (!(violation(&planes[i], result) > 0.0f)) continue;
    const float kept[3] = {result[0], result[1], result[2]};
    if (!program_on_plane(planes, i, max_speed, target, toward, result)) {
      set3(result, kept[0], kept[1], kept[2]);
      return i;
    }
  }
  return count;
}

static void program_least_violation(const cs_orca_plane *planes, size_t first,
                                    size_t count, float max_speed, cs_orca_plane *room,
                                    float result[3]) {
  float worst = 0.0f;
  for (size_t i = first; i < count; i++) {
    const cs_orca_plane *p = &planes[i];
    if (!(violation(p, result) > worst)) continue;
    size_t n = 0;
    for (size_t j = 0; j < i; j++) {
      const cs_orca_plane *q = &planes[j];
      cs_orca_plane *b = &room[n];
      float c[3];
      cross3(q->normal, p->normal, c);
      if (dot3(c, c) <= CS_ORCA_EPSILON) {
        if (dot3(p->normal, q->normal) > 0.0f) continue; /* same way */
        set3(b->point, 0.5f * (p->point[0] + q->point[0]),
             0.5f * (p->point[1] + q->point[1]), 0.5f * (p->point[2] + q->point[2]));
      } else {
        float line_normal[3], gap[3];
        cross3(c, p->normal, line_normal);
        sub3(q->point, p->point, gap);
        add_scaled(p->point, dot3(gap, q->normal) / dot3(line_normal, q->normal),
                   line_normal, b->point);
      }
      float between[3];
      sub3(q->normal, p->normal, between);
      divide3(between, sqrtf(dot3(between, between)), b->normal);
      n++;
    }
    const float kept[3] = {result[0], result[1], result[2]};
    if (program_in_ball(room, n, max_speed, p->normal, 1, result) < n)
      set3(result, kept[0], kept[1], kept[2]);
    worst = violation(p, result);
  }
}

int cs_orca3_solve(const cs_orca_plane *planes, size_t count, float max_speed,
                   const float preferred[3], cs_orca_plane *room, float result[3]) {
  const size_t failed = program_in_ball(planes, count, max_speed, preferred, 0, result);
  int crowded = 0;
  if (failed < count) {
    program_least_violation(planes, failed, count, max_speed, room, result);
    crowded = 1;
  }
  /* Back into the ball, as in 2D (a line far out carries its rounding). */
  const double x = result[0], y = result[1], z = result[2];
  const double speed = sqrt(x * x + y * y + z * z);
  if (speed > max_speed) {
    const double scale = max_speed / speed;
    const double scaled[3] = {x * scale, y * scale, z * scale};
    for (int k = 0; k < 3; k++)
      result[k] = cs_toward_zero(scaled[k]);
  }
  return crowded;
}
