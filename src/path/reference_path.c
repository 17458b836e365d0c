/* Follow a path, the scalar reference: the normative definition of the
 * nearest point, of the point at a distance along the path and of the
 * steering, down to the rounding of each operation. The kernels
 * (kernels/path.c) perform exactly these operations in this order. Built
 * with the reference, without auto-vectorisation. */
#include <math.h>

#include "path/path.h"

/* dot = (x*x + y*y) + z*z: left to right, as everywhere. */
static inline float dot3(const float a[3], const float b[3], int dims) {
  float d = a[0] * b[0];
  for (int k = 1; k < dims; k++)
    d += a[k] * b[k];
  return d;
}

/* Per segment s, in order: w = q - start_s, t = dot(w, unit_s) clamped to
 * [0, seg_len_s], e = w - unit_s * t, d2 = dot(e, e); the first segment
 * with the smallest d2 wins (strictly smaller replaces), and its point is
 * at[s] + t along the path. */
void cs_path_nearest(const crowdsteer_pathway *path, const float q[3], int dims,
                     float *dist_sq, float *along, float point[3]) {
  float best = INFINITY, best_along = 0.0f, best_t = 0.0f;
  size_t best_s = 0;
  for (size_t s = 0; s < path->segments; s++) {
    float w[3] = {0}, u[3] = {0}, e[3] = {0};
    for (int k = 0; k < dims; k++) {
      w[k] = q[k] - path->start[k][s];
      u[k] = path->unit[k][s];
    }
    float t = dot3(w, u, dims);
    t = t < 0.0f ? 0.0f : t;
    t = t > path->seg_len[s] ? path->seg_len[s] : t;
    for (int k = 0; k < dims; k++)
      e[k] = w[k] - u[k] * t;
    const float d2 = dot3(e, e, dims);
    if (d2 < best) {
      best = d2;
      best_along = path->at[s] + t;
      best_t = t;
      best_s = s;
    }
  }
  *dist_sq = best;
  *along = best_along;
  if (point)
    for (int k = 0; k < dims; k++)
      point[k] = path->start[k][best_s] + path->unit[k][best_s] * best_t;
}

/* Cyclic: d = d - floor(d / length) * length. Then d is clamped to
 * [0, length]; the segment is the last s with at[s] <= d (segment 0 if
 * none), t = d - at[s] clamped to seg_len[s], the point start_s +
 * unit_s * t. */
void cs_path_point_at(const crowdsteer_pathway *path, float d, int dims, float point[3]) {
  const float length = path->length;
  if (path->cyclic) d = d - floorf(d / length) * length;
  d = d < 0.0f ? 0.0f : d;
  d = d > length ? length : d;
  size_t seg = 0;
  for (size_t s = 1; s < path->segments; s++)
    seg = path->at[s] <= d ? s : seg;
  float t = d - path->at[seg];
  t = t > path->seg_len[seg] ? path->seg_len[seg] : t;
  for (int k = 0; k < dims; k++)
    point[k] = path->start[k][seg] + path->unit[k][seg] * t;
}

/* future = p + v * prediction_time. now = along of p's nearest point; the
 * future's nearest point gives d2 and its along. progress = future's along
 * - now (cyclic: -length where above half_length, +length where below
 * -half_length). On the path and moving its way (d2 < radius_sq and
 * direction * progress > 0): zero. Otherwise seek the point at now +
 * direction * (prediction_time * len(v) + lead_distance):
 * desired = normalize(target - p) * max_speed (0 on the target),
 * s = (desired - v) / time_to_target. */
void cs_path_steer_agent(const cs_job *job, size_t i, const float p[3], const float v[3],
                         float s[3], int dims) {
  const crowdsteer_path_follow *f = job->in.path;
  const crowdsteer_pathway *path = cs_path_of(f, i);
  const float direction = cs_path_direction(f, i);
  float future[3] = {0}, now_sq, now, future_sq, later;
  for (int k = 0; k < dims; k++)
    future[k] = p[k] + v[k] * f->prediction_time;
  cs_path_nearest(path, p, dims, &now_sq, &now, NULL);
  cs_path_nearest(path, future, dims, &future_sq, &later, NULL);
  float progress = later - now;
  if (path->cyclic) {
    progress = progress > path->half_length ? progress - path->length : progress;
    progress = progress < -path->half_length ? progress + path->length : progress;
  }
  for (int k = 0; k < 3; k++)
    s[k] = 0.0f;
  if (future_sq < path->radius_sq && direction * progress > 0.0f) return;
  const float speed = sqrtf(dot3(v, v, dims));
  const float aim = f->prediction_time * speed + f->lead_distance;
  float target[3] = {0}, d[3] = {0};
  cs_path_point_at(path, now + direction * aim, dims, target);
  for (int k = 0; k < dims; k++)
    d[k] = target[k] - p[k];
  const float dist = sqrtf(dot3(d, d, dims));
  const float max_speed = cs_param_at(job->in.max_speed, i);
  const float ttt = cs_param_at(job->in.time_to_target, i);
  for (int k = 0; k < dims; k++) {
    const float desired = dist > 0.0f ? d[k] / dist * max_speed : 0.0f;
    s[k] = ttt == 1.0f ? desired - v[k] : (desired - v[k]) / ttt;
  }
}
