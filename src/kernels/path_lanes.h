/* Follow a path on CS_LANES lanes, the steering of one block: every
 * operation of the reference (path/reference_path.c) in the same order,
 * branches as selects. Included by kernels/path.c (the behaviour's own
 * kernel) and kernels/kernels.c (a step's chunk in registers). */
#ifndef CROWDSTEER_KERNELS_PATH_LANES_H
#define CROWDSTEER_KERNELS_PATH_LANES_H

#include <float.h>
#include <math.h>

#include "kernels/vec.h"
#include "path/path.h"

/* floor per lane: an exact operation, so the scalar floorf gives the
 * reference's bits on every ISA (only cyclic paths need it). */
CS_INLINE vf floor_lanes(vf x) {
  float lane[W];
  v_store(lane, x);
  for (int k = 0; k < W; k++)
    lane[k] = floorf(lane[k]);
  return v_load(lane);
}

CS_INLINE vf dot_lanes(const vf a[3], const vf b[3], int dims) {
  vf d = v_mul(a[0], b[0]);
  for (int k = 1; k < dims; k++)
    d = v_add(d, v_mul(a[k], b[k]));
  return d;
}

/* The nearest point of one segment to q: its squared distance and its
 * distance along the path; the smaller replaces (best, along). */
CS_INLINE void segment_nearest(const vf q[3], const vf a[3], const vf u[3], vf len, vf at,
                               vf *best, vf *along, int dims) {
  vf w[3], e[3];
  for (int k = 0; k < dims; k++)
    w[k] = v_sub(q[k], a[k]);
  vf t = dot_lanes(w, u, dims);
  t = v_min_lt(len, v_max_gt(v_zero(), t)); /* t < 0 ? 0 : t, then t > len ? len : t */
  for (int k = 0; k < dims; k++)
    e[k] = v_sub(w[k], v_mul(u[k], t));
  const vf d2 = dot_lanes(e, e, dims);
  /* The best's chain is a min, the select of along hangs off it. */
  *along = v_select(v_lt(d2, *best), v_add(at, t), *along);
  *best = v_min_lt(d2, *best);
}

/* cs_path_nearest's distance along the path for q, and its squared
 * distance. One query per loop: two at once spilled registers on 16. */
CS_INLINE vf nearest(const crowdsteer_pathway *path, const vf q[3], vf *dist_sq,
                     int dims) {
  vf best = v_set1(INFINITY), along = v_zero();
  for (size_t s = 0; s < path->segments; s++) {
    vf a[3], u[3];
    for (int k = 0; k < dims; k++) {
      a[k] = v_set1(path->start[k][s]);
      u[k] = v_set1(path->unit[k][s]);
    }
    segment_nearest(q, a, u, v_set1(path->seg_len[s]), v_set1(path->at[s]), &best, &along,
                    dims);
  }
  *dist_sq = best;
  return along;
}

/* cs_path_point_at, lanes-wide. */
CS_INLINE void point_at(const crowdsteer_pathway *path, vf d, vf point[3], int dims) {
  const vf length = v_set1(path->length);
  if (path->cyclic) d = v_sub(d, v_mul(floor_lanes(v_div(d, length)), length));
  /* The reference's clamps are max/min in its compare order (NaN and -0
   * pass through alike): no mask on the chain to the segment search. */
  d = v_min_lt(length, v_max_gt(v_zero(), d));
  vf a[3], u[3], len = v_set1(path->seg_len[0]), at = v_set1(path->at[0]);
  for (int k = 0; k < dims; k++) {
    a[k] = v_set1(path->start[k][0]);
    u[k] = v_set1(path->unit[k][0]);
  }
  for (size_t s = 1; s < path->segments; s++) {
    const vf at_s = v_set1(path->at[s]);
    const vmask later = v_le(at_s, d);
    for (int k = 0; k < dims; k++) {
      a[k] = v_select(later, v_set1(path->start[k][s]), a[k]);
      u[k] = v_select(later, v_set1(path->unit[k][s]), u[k]);
    }
    len = v_select(later, v_set1(path->seg_len[s]), len);
    at = v_select(later, at_s, at);
  }
  vf t = v_sub(d, at);
  t = v_min_lt(len, t);
  for (int k = 0; k < dims; k++)
    point[k] = v_add(a[k], v_mul(u[k], t));
}

/* What a block's lanes share besides their pathway. */
typedef struct lanes_in {
  vf p[3], v[3];
  vf direction, max_speed;
  cs_param time_to_target;
  size_t i, n;
} lanes_in;

/* cs_path_steer_agent for the lanes on `path`; lanes `care` are the ones
 * whose result is kept (if none of them steers, no target is computed). */
CS_INLINE void steer_lanes(const crowdsteer_path_follow *f,
                           const crowdsteer_pathway *path, const lanes_in *in, vmask care,
                           vf s[3], int dims) {
  const vf prediction = v_set1(f->prediction_time);
  vf future[3], now, future_sq, later;
  for (int k = 0; k < dims; k++) {
    future[k] = v_add(in->p[k], v_mul(in->v[k], prediction));
    s[k] = v_zero();
  }
  vf now_sq;
  now = nearest(path, in->p, &now_sq, dims);
  later = nearest(path, future, &future_sq, dims);
  vf progress = v_sub(later, now);
  if (path->cyclic) {
    const vf length = v_set1(path->length), half = v_set1(path->half_length);
    progress = v_select(v_gt(progress, half), v_sub(progress, length), progress);
    progress = v_select(v_lt(progress, v_sub(v_zero(), half)), v_add(progress, length),
                        progress);
  }
  const vmask hold = m_and(v_lt(future_sq, v_set1(path->radius_sq)),
                           v_gt(v_mul(in->direction, progress), v_zero()));
  if (!m_any(m_and(care, m_not(hold)))) return;
  const vf speed = v_sqrt(dot_lanes(in->v, in->v, dims));
  const vf aim = v_add(v_mul(prediction, speed), v_set1(f->lead_distance));
  vf target[3], d[3];
  point_at(path, v_add(now, v_mul(in->direction, aim)), target, dims);
  for (int k = 0; k < dims; k++)
    d[k] = v_sub(target[k], in->p[k]);
  const vf dist = v_sqrt(dot_lanes(d, d, dims));
  const vmask apart = v_gt(dist, v_zero());
  const cs_param ttt = in->time_to_target;
  const int divide = ttt.array || ttt.value != 1.0f;
  const vf divisor = ttt.array ? v_load_n(ttt.array + in->i, in->n) : v_set1(ttt.value);
  for (int k = 0; k < dims; k++) {
    const vf desired = v_select(apart, v_mul(v_div(d[k], dist), in->max_speed), v_zero());
    const vf difference = v_sub(desired, in->v[k]);
    s[k] = v_select(hold, v_zero(), divide ? v_div(difference, divisor) : difference);
  }
}

/* The steering of agents [i, i + n) at p with velocities v, for the
 * lanes `taking_part` (1 a lane; the others' steering is not kept). */
CS_INLINE void path_steering(const cs_job *job, const vf p[3], const vf v[3], size_t i,
                             size_t n, const uint32_t taking_part[W], vf s[3], int dims) {
  const crowdsteer_path_follow *f = job->in.path;
  lanes_in in;
  for (int k = 0; k < dims; k++) {
    in.p[k] = p[k];
    in.v[k] = v[k];
  }
  in.direction = f->direction_per_agent ? v_load_n(f->direction_per_agent + i, n)
                                        : v_set1(f->direction < 0 ? -1.0f : 1.0f);
  in.max_speed = job->in.max_speed.array ? v_load_n(job->in.max_speed.array + i, n)
                                         : v_set1(job->in.max_speed.value);
  in.time_to_target = job->in.time_to_target;
  in.i = i;
  in.n = n;
  if (!f->path_per_agent) {
    steer_lanes(f, f->paths[f->path], &in, m_bit_set(i_load(taking_part), 1u), s, dims);
  } else {
    /* One pass per pathway of the block, in lane order. */
    for (int k = 0; k < dims; k++)
      s[k] = v_zero();
    uint32_t left[W];
    for (int l = 0; l < W; l++)
      left[l] = taking_part[l] ? f->path_per_agent[i + l] : UINT32_MAX;
    for (int l = 0; l < W; l++) {
      if (left[l] == UINT32_MAX) continue;
      const uint32_t which = left[l];
      uint32_t group[W];
      for (int m = 0; m < W; m++) {
        group[m] = left[m] == which;
        left[m] = group[m] ? UINT32_MAX : left[m];
      }
      const vmask mine = m_bit_set(i_load(group), 1u);
      vf r[3];
      steer_lanes(f, f->paths[which], &in, mine, r, dims);
      for (int k = 0; k < dims; k++)
        s[k] = v_select(mine, r[k], s[k]);
    }
  }
}

#endif /* CROWDSTEER_KERNELS_PATH_LANES_H */
