/* Every behaviour and the integrator, written once against vec.h and compiled
 * once per ISA (CS_LANES, CS_BACKEND set by CMake). Each operation mirrors
 * src/reference/reference.c exactly, in the same order: read the formulas
 * there. Branches of the reference become computed-both-ways-then-select. */
#include <float.h>
#include <math.h>

#include "internal.h"
#include "kernels/bounds_lanes.h"
#include "kernels/path_lanes.h"
#include "kernels/vec.h"
#include "nav/field.h"

#ifndef CS_BACKEND
#error "define CS_BACKEND (the backend table's name) when compiling a kernel object"
#endif

#ifndef CS_STREAM_MIN_BYTES /* set by cmake/Backends.cmake */
#define CS_STREAM_MIN_BYTES (64u << 20)
#endif

/* Up to three lanes-wide components; z is never touched in 2D. */
typedef struct v3 {
  vf c[3];
} v3;

CS_INLINE v3 v3_splat(const float x[3], int dims) {
  v3 r;
  for (int k = 0; k < dims; k++)
    r.c[k] = v_set1(x[k]);
  return r;
}

CS_INLINE v3 v3_load(const float *const a[3], size_t i, size_t n, int dims) {
  v3 r;
  for (int k = 0; k < dims; k++)
    r.c[k] = v_load_n(a[k] + i, n);
  return r;
}

CS_INLINE void v3_store(float *const a[3], size_t i, size_t n, v3 v, int dims) {
  for (int k = 0; k < dims; k++)
    v_store_n(a[k] + i, v.c[k], n);
}

/* The gather instruction (where the ISA has one, see vec.h) when the job
 * chose it (cs_inputs.gather_instruction); otherwise the indices are stored
 * once and every axis is gathered with scalar loads. */
CS_INLINE v3 v3_gather(const float *const a[3], vi idx, int instruction, int dims) {
  v3 r;
#ifdef CS_HAVE_NATIVE_GATHER
  if (instruction) {
    for (int k = 0; k < dims; k++)
      r.c[k] = v_gather(a[k], idx);
    return r;
  }
#else
  (void)instruction;
#endif
  uint32_t lane_index[W];
  i_store(lane_index, idx);
  for (int k = 0; k < dims; k++)
    r.c[k] = v_gather_lanes(a[k], lane_index);
  return r;
}

CS_INLINE v3 v3_sub(v3 a, v3 b, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] = v_sub(a.c[k], b.c[k]);
  return a;
}

CS_INLINE v3 v3_add(v3 a, v3 b, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] = v_add(a.c[k], b.c[k]);
  return a;
}

CS_INLINE v3 v3_scale(v3 a, vf s, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] = v_mul(a.c[k], s);
  return a;
}

CS_INLINE v3 v3_div(v3 a, vf s, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] = v_div(a.c[k], s);
  return a;
}

CS_INLINE v3 v3_select(vmask m, v3 a, v3 b, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] = v_select(m, a.c[k], b.c[k]);
  return a;
}

CS_INLINE v3 v3_zero(int dims) {
  v3 r;
  for (int k = 0; k < dims; k++)
    r.c[k] = v_zero();
  return r;
}

CS_INLINE vf v3_dot(v3 a, v3 b, int dims) {
  vf d = v_mul(a.c[0], b.c[0]);
  for (int k = 1; k < dims; k++)
    d = v_add(d, v_mul(a.c[k], b.c[k]));
  return d;
}

CS_INLINE vf v3_len(v3 a, int dims) { return v_sqrt(v3_dot(a, a, dims)); }

/* heading: a / len(a), or the unit x axis where a is zero. */
CS_INLINE v3 v3_heading(v3 a, int dims) {
  vf l = v3_len(a, dims);
  v3 unit_x = v3_zero(dims);
  unit_x.c[0] = v_set1(1.0f);
  return v3_select(v_gt(l, v_zero()), v3_div(a, l, dims), unit_x, dims);
}

/* truncate: a * (m / len(a)) where len(a) > m, else a. */
CS_INLINE v3 v3_truncate(v3 a, vf m, int dims) {
  vf l = v3_len(a, dims);
  return v3_select(v_gt(l, m), v3_scale(a, v_div(m, l), dims), a, dims);
}

CS_INLINE vf param_load(cs_param p, size_t i, size_t n) {
  return p.array ? v_load_n(p.array + i, n) : v_set1(p.value);
}

/* x / 1 == x exactly, so the default time_to_target skips its divisions
 * (the divider is the busiest unit in these kernels) with the same bits. */
CS_INLINE v3 steer_towards(v3 desired, v3 v, cs_param time_to_target, size_t i, size_t n,
                           int dims) {
  v3 difference = v3_sub(desired, v, dims);
  if (!time_to_target.array && time_to_target.value == 1.0f) return difference;
  return v3_div(difference, param_load(time_to_target, i, n), dims);
}

/* cs_max_prediction, lanes-wide (a uniform value is clamped already). */
CS_INLINE vf max_prediction_load(const cs_job *job, size_t i, size_t n) {
  if (!job->in.max_prediction.array) return v_set1(job->in.max_prediction.value);
  vf m = v_load_n(job->in.max_prediction.array + i, n), largest = v_set1(FLT_MAX);
  return v_select(v_lt(m, largest), m, largest);
}

/* Lanes of agents that take part (see cs_policy.lane_select). */
CS_INLINE vmask active_lanes(const cs_job *job, size_t i, size_t n) {
  return m_bit_set(i_load_n(job->policy.lane_select + i, n), job->policy.lane_bit);
}

/* The target of agents [i, i + n) in the form `kind` (a constant after
 * inlining, so each form gets its own loop). */
CS_INLINE void load_target(const cs_job *job, size_t i, size_t n, int kind,
                           int with_velocity, int all_lanes, v3 *tp, v3 *tv, int dims) {
  if (kind == CROWDSTEER_TARGET_POINT) {
    *tp = v3_splat(job->in.target_point, dims);
    if (with_velocity) *tv = v3_splat(job->in.target_point_velocity, dims);
  } else if (kind == CROWDSTEER_TARGET_ARRAYS) {
    *tp = v3_load(job->in.target_pos, i, n, dims);
    if (with_velocity) *tv = v3_load(job->in.target_vel, i, n, dims);
  } else {
#ifdef CS_HAVE_NATIVE_GATHER
    const int instruction = job->in.gather_instruction;
#else
    const int instruction = 0; /* this ISA gathers with loads in any case */
#endif
    if (!instruction && n == W && (all_lanes || !job->policy.lane_select)) {
      /* Scalar loads straight from the caller's indices (not through a
       * store of the index vector, which the loads would wait on). */
      const uint32_t *lane_index = job->in.target_index + i;
      for (int k = 0; k < dims; k++) {
        tp->c[k] = v_gather_lanes(job->in.gather_pos[k], lane_index);
        if (with_velocity) tv->c[k] = v_gather_lanes(job->in.gather_vel[k], lane_index);
      }
      return;
    }
    /* Tail lanes gather agent 0, which exists whenever the range is not empty;
     * so do agents a mixed step leaves out, whose index was not checked. */
    vi idx = i_load_n(job->in.target_index + i, n);
    if (!all_lanes && job->policy.lane_select)
      idx = i_select(active_lanes(job, i, n), idx, i_set1(0));
    *tp = v3_gather(job->in.gather_pos, idx, instruction, dims);
    if (with_velocity) *tv = v3_gather(job->in.gather_vel, idx, instruction, dims);
  }
}

/* reference.c's write_steering, lanes-wide. */
CS_INLINE void write_steering(const cs_job *job, size_t i, size_t n, v3 s, int dims) {
  float *const out[3] = {job->policy.out[0] + (i - job->policy.out_base),
                         job->policy.out[1] + (i - job->policy.out_base),
                         dims == 3 ? job->policy.out[2] + (i - job->policy.out_base)
                                   : NULL};
  if (job->policy.mode == CS_WRITE_OVERWRITE) {
    v3_store(out, 0, n, s, dims);
    return;
  }
  if (job->policy.mode == CS_WRITE_STREAM) { /* full, aligned vectors only */
    for (int k = 0; k < dims; k++)
      v_stream(out[k], s.c[k]);
    return;
  }
  v3 old = v3_load((const float *const *)out, 0, n, dims);
  vf weight = param_load(job->policy.weight, i, n);
  if (job->policy.mode == CS_WRITE_ACCUMULATE) {
    v3 sum = v3_add(old, v3_scale(s, weight, dims), dims);
    if (job->policy.lane_select) sum = v3_select(active_lanes(job, i, n), sum, old, dims);
    v3_store(out, 0, n, sum, dims);
    return;
  }
  float *decided_at = job->policy.decided + (i - job->policy.out_base);
  vf decided = v_load_n(decided_at, n);
  vmask open = v_le(decided, v_zero());
  if (job->policy.lane_select) open = m_and(open, active_lanes(job, i, n));
  v3 weighted = v3_scale(s, weight, dims);
  v3_store(out, 0, n, v3_select(open, weighted, old, dims), dims);
  vmask wins =
      m_and(open, v_gt(v3_len(weighted, dims), v_set1(job->policy.priority_threshold)));
  v_store_n(decided_at, v_select(wins, v_set1(1.0f), decided), n);
}

CS_INLINE v3 seek_one(v3 p, v3 v, v3 t, vf max_speed, cs_param ttt, size_t i, size_t n,
                      int dims) {
  v3 d = v3_sub(t, p, dims);
  vf l = v3_len(d, dims);
  v3 direction = v3_select(v_gt(l, v_zero()), v3_div(d, l, dims), v3_zero(dims), dims);
  return steer_towards(v3_scale(direction, max_speed, dims), v, ttt, i, n, dims);
}

/* d / dist, or heading(v) where dist is 0 (on the threat). heading costs a
 * square root and divisions, and agents exactly on a threat are rare: it is
 * only computed for blocks that have one (same bits either way). */
CS_INLINE v3 away_from(v3 d, vf dist, v3 v, int dims) {
  vmask off_threat = v_gt(dist, v_zero());
  v3 away = v3_div(d, dist, dims);
  if (!m_any(m_not(off_threat))) return away;
  return v3_select(off_threat, away, v3_heading(v, dims), dims);
}

CS_INLINE v3 flee_one(v3 p, v3 v, v3 t, vf max_speed, vf panic_radius, cs_param ttt,
                      size_t i, size_t n, int dims) {
  v3 d = v3_sub(p, t, dims);
  vf dist = v3_len(d, dims);
  v3 away = away_from(d, dist, v, dims);
  v3 s = steer_towards(v3_scale(away, max_speed, dims), v, ttt, i, n, dims);
  return v3_select(v_gt(dist, panic_radius), v3_zero(dims), s, dims);
}

CS_INLINE v3 predict(v3 d, v3 tp, v3 tv, vf max_speed, vf max_prediction, int dims) {
  vf divisor = v_add(max_speed, v3_len(tv, dims));
  vf T = v_select(v_gt(divisor, v_zero()), v_div(v3_len(d, dims), divisor), v_zero());
  T = v_select(v_lt(T, max_prediction), T, max_prediction);
  return v3_add(tp, v3_scale(tv, T, dims), dims);
}

/* ---- one block of n <= W agents starting at i, per behaviour ------------- */

/* Each behaviour's steering for agents [i, i + n) at positions p and
 * velocities v, in registers: written out by steer_block (a behaviour's own
 * call, or a step's accumulator) or combined and integrated at once
 * (fused_block). `kind` is the target form; `all_lanes` (a constant) says
 * every lane takes part, so the lane selection is not read. */
typedef v3 steer_fn(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                    int all_lanes, int dims);

/* What every targeted behaviour reads besides p and v: its target (and the
 * target's velocity, `with_velocity`) and max_speed. */
typedef struct targeted_in {
  v3 p, v, t, tv;
  vf max_speed;
} targeted_in;

CS_INLINE targeted_in load_targeted(const cs_job *job, v3 p, v3 v, size_t i, size_t n,
                                    int kind, int with_velocity, int all_lanes,
                                    int dims) {
  targeted_in a;
  a.p = p;
  a.v = v;
  load_target(job, i, n, kind, with_velocity, all_lanes, &a.t, &a.tv, dims);
  if (!with_velocity) a.tv = a.t; /* unused */
  a.max_speed = param_load(job->in.max_speed, i, n);
  return a;
}

CS_INLINE v3 seek_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                        int all_lanes, int dims) {
  const targeted_in a = load_targeted(job, p, v, i, n, kind, 0, all_lanes, dims);
  return seek_one(a.p, a.v, a.t, a.max_speed, job->in.time_to_target, i, n, dims);
}

CS_INLINE v3 flee_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                        int all_lanes, int dims) {
  const targeted_in a = load_targeted(job, p, v, i, n, kind, 0, all_lanes, dims);
  vf panic_radius = param_load(job->in.panic_radius, i, n);
  return flee_one(a.p, a.v, a.t, a.max_speed, panic_radius, job->in.time_to_target, i, n,
                  dims);
}

CS_INLINE v3 arrive_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                          int all_lanes, int dims) {
  const targeted_in a = load_targeted(job, p, v, i, n, kind, 0, all_lanes, dims);
  v3 d = v3_sub(a.t, a.p, dims);
  vf dist = v3_len(d, dims);
  vf slowing_radius = param_load(job->in.slowing_radius, i, n);
  vf ramp = v_div(v_mul(a.max_speed, dist), slowing_radius);
  v3 desired = v3_scale(v3_div(d, dist, dims),
                        v_select(v_lt(dist, slowing_radius), ramp, a.max_speed), dims);
  desired = v3_select(v_le(dist, param_load(job->in.target_radius, i, n)), v3_zero(dims),
                      desired, dims);
  return steer_towards(desired, a.v, job->in.time_to_target, i, n, dims);
}

CS_INLINE v3 leave_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                         int all_lanes, int dims) {
  const targeted_in a = load_targeted(job, p, v, i, n, kind, 0, all_lanes, dims);
  v3 d = v3_sub(a.p, a.t, dims);
  vf dist = v3_len(d, dims);
  vf danger_radius = param_load(job->in.danger_radius, i, n);
  vf fading = v_sub(a.max_speed, v_div(v_mul(a.max_speed, dist), danger_radius));
  vf speed =
      v_select(v_lt(dist, param_load(job->in.escape_radius, i, n)), a.max_speed, fading);
  v3 away = away_from(d, dist, a.v, dims);
  v3 s =
      steer_towards(v3_scale(away, speed, dims), a.v, job->in.time_to_target, i, n, dims);
  vmask active = m_and(v_ne(danger_radius, v_zero()), m_not(v_gt(dist, danger_radius)));
  return v3_select(active, s, v3_zero(dims), dims);
}

CS_INLINE v3 pursuit_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                           int all_lanes, int dims) {
  const targeted_in a = load_targeted(job, p, v, i, n, kind, 1, all_lanes, dims);
  v3 d = v3_sub(a.t, a.p, dims);
  v3 own_heading = v3_heading(a.v, dims);
  vmask head_on =
      m_and(v_gt(v3_dot(d, own_heading, dims), v_zero()),
            v_lt(v3_dot(own_heading, v3_heading(a.tv, dims), dims), v_set1(-0.95f)));
  v3 predicted = predict(d, a.t, a.tv, a.max_speed, max_prediction_load(job, i, n), dims);
  v3 aim = v3_select(head_on, a.t, predicted, dims);
  return seek_one(a.p, a.v, aim, a.max_speed, job->in.time_to_target, i, n, dims);
}

CS_INLINE v3 evade_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                         int all_lanes, int dims) {
  const targeted_in a = load_targeted(job, p, v, i, n, kind, 1, all_lanes, dims);
  v3 threat = predict(v3_sub(a.t, a.p, dims), a.t, a.tv, a.max_speed,
                      max_prediction_load(job, i, n), dims);
  vf panic_radius = param_load(job->in.panic_radius, i, n);
  return flee_one(a.p, a.v, threat, a.max_speed, panic_radius, job->in.time_to_target, i,
                  n, dims);
}

/* The directions of cells `cell` in the fields agents [i, i + n) follow
 * (per-agent fields: a load per lane; agents a mixed step leaves out, and
 * tail lanes, read field 0, whose index is not theirs to check). */
CS_INLINE v3 field_directions(const cs_job *job, vi cell, size_t i, size_t n,
                              int all_lanes) {
  const cs_inputs *in = &job->in;
  vi word;
  if (!in->field_index) {
    word = i_gather(in->fields[0]->store.direction, cell, in->gather_instruction);
  } else {
    uint32_t lane_cell[W], lane_field[W] = {0}, lane_word[W];
    i_store(lane_cell, cell);
    for (size_t k = 0; k < n; k++)
      if (all_lanes || !job->policy.lane_select ||
          (job->policy.lane_select[i + k] & job->policy.lane_bit))
        lane_field[k] = in->field_index[i + k];
    for (int k = 0; k < W; k++)
      lane_word[k] = in->fields[lane_field[k]]->store.direction[lane_cell[k]];
    word = i_load(lane_word);
  }
  /* cs_direction_x and _y: exact conversions and a power-of-two scale. */
  const vf scale = v_set1(0x1p-14f), one = v_set1(1.0f);
  v3 d;
  d.c[0] = v_sub(v_mul(i_to_float(i_and(word, i_set1(0xffffu))), scale), one);
  d.c[1] = v_sub(v_mul(i_to_float(i_shr(word, 16)), scale), one);
  return d;
}

/* reference.c's follow_field_agent (2D): each lane's cell, the lanes
 * outside the grid sent to the zero direction after the last cell. */
CS_INLINE v3 follow_field_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n,
                                int kind, int all_lanes, int dims) {
  (void)kind; /* no target */
  const cs_inputs *in = &job->in;
  const vf scale = v_set1(in->field_inverse_cell_size);
  const vf u = v_mul(v_sub(p.c[0], v_set1(in->field_origin[0])), scale);
  const vf w = v_mul(v_sub(p.c[1], v_set1(in->field_origin[1])), scale);
  const vmask inside =
      m_and(m_and(v_le(v_zero(), u), v_lt(u, v_set1(in->field_width_f))),
            m_and(v_le(v_zero(), w), v_lt(w, v_set1(in->field_height_f))));
  vi cell = i_add(i_mul(v_to_index(w), i_set1(in->field_width)), v_to_index(u));
  cell = i_select(inside, cell, i_set1(in->field_cells));
  const v3 direction = field_directions(job, cell, i, n, all_lanes);
  return steer_towards(v3_scale(direction, param_load(in->max_speed, i, n), dims), v,
                       in->time_to_target, i, n, dims);
}

/* Follow a path (kernels/path_lanes.h): the lanes of agents [i, i + n)
 * that take part. */
CS_INLINE v3 follow_path_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n,
                               int kind, int all_lanes, int dims) {
  (void)kind; /* no target */
  uint32_t taking_part[W];
  for (int l = 0; l < W; l++)
    taking_part[l] =
        (size_t)l < n && (all_lanes || !job->policy.lane_select ||
                          (job->policy.lane_select[i + l] & job->policy.lane_bit));
  v3 s = {{v_zero(), v_zero(), v_zero()}};
  path_steering(job, p.c, v.c, i, n, taking_part, s.c, dims);
  return s;
}

/* Containment (kernels/bounds_lanes.h): seek towards the region's centre
 * for the lanes outside it, zero inside; the seek only for blocks with a
 * lane outside (the same bits either way). */
CS_INLINE v3 contain_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                           int all_lanes, int dims) {
  (void)kind, (void)all_lanes; /* its target is the centre, a point */
  const vmask inside =
      bounds_inside_lanes(job->in.bounds, job->in.target_point, p.c, v.c, dims);
  if (!m_any(m_not(inside))) return v3_zero(dims);
  const v3 s =
      seek_one(p, v, v3_splat(job->in.target_point, dims),
               param_load(job->in.max_speed, i, n), job->in.time_to_target, i, n, dims);
  return v3_select(inside, v3_zero(dims), s, dims);
}

/* cs_random_from_key, lanes-wide. */
CS_INLINE vf random_lanes(uint32_t key, vi agent_id) {
  vi h = i_xor(i_set1(key), agent_id);
  h = i_xor(h, i_shr(h, 16));
  h = i_mul(h, i_set1(0x7feb352du));
  h = i_xor(h, i_shr(h, 15));
  h = i_mul(h, i_set1(0x846ca68bu));
  h = i_xor(h, i_shr(h, 16));
  return v_sub(v_mul(i_to_float(i_shr(h, 8)), v_set1(0x1p-23f)), v_set1(1.0f));
}

/* Wander's state of the agents that use it, and only theirs: a mixed step
 * neither reads nor writes the direction of an agent outside wander's
 * selection (its host may be updating it meanwhile). The lanes of agents
 * [i, i + n) that wander, as a mask and as bits. */
CS_INLINE uint32_t wander_lanes(const cs_job *job, size_t i, size_t n, int all_lanes,
                                vmask *m) {
  if (!all_lanes && job->policy.lane_select) {
    *m = active_lanes(job, i, n);
    return m_lane_bits(*m);
  }
  if (n == W) { /* every block but a range's last: no mask needed */
    *m = m_bit_set(i_set1(1u), 1u);
    return CS_ALL_LANES;
  }
  uint32_t in_range[W];
  for (int k = 0; k < W; k++)
    in_range[k] = (size_t)k < n;
  *m = m_bit_set(i_load(in_range), 1u);
  return (uint32_t)((1ull << n) - 1u);
}

/* Wander of the lanes `wanders` (`lanes` as bits, not none): the new
 * direction is stored, the steering returned. */
CS_INLINE v3 wander_lanes_steer(const cs_job *job, v3 v, size_t i, size_t n,
                                vmask wanders, uint32_t lanes, int dims) {
  v3 w;
  for (int k = 0; k < dims; k++)
    w.c[k] = v_load_lanes(job->in.wander[k] + i, wanders, lanes);
  /* The random stream is the agent's id's (its index without ids). */
  vi agent_id = job->in.agent_id ? i_load_n(job->in.agent_id + i, n)
                                 : i_add(i_set1((uint32_t)i), i_iota());
  vf jitter = param_load(job->in.jitter, i, n);
  v3 jittered;
  for (int k = 0; k < dims; k++)
    jittered.c[k] =
        v_add(w.c[k], v_mul(jitter, random_lanes(job->in.wander_key[k], agent_id)));
  v3 own_heading = v3_heading(v, dims);
  vf l = v3_len(jittered, dims);
  v3 new_w = v3_select(v_gt(l, v_zero()), v3_div(jittered, l, dims), own_heading, dims);
  for (int k = 0; k < dims; k++)
    v_store_lanes(job->in.wander[k] + i, new_w.c[k], wanders, lanes);
  return v3_add(v3_scale(own_heading, param_load(job->in.wander_distance, i, n), dims),
                v3_scale(new_w, param_load(job->in.wander_radius, i, n), dims), dims);
}

/* For every lane (the fused step's chunks, where all agents wander). */
CS_INLINE v3 wander_steer(const cs_job *job, v3 p, v3 v, size_t i, size_t n, int kind,
                          int all_lanes, int dims) {
  (void)p;
  (void)kind; /* no target */
  (void)all_lanes;
  vmask wanders;
  const uint32_t lanes = wander_lanes(job, i, n, 1, &wanders);
  return wander_lanes_steer(job, v, i, n, wanders, lanes, dims);
}

/* A behaviour's block on its own: its steering written out. */
CS_INLINE void steer_block(steer_fn steer, const cs_job *job, size_t i, size_t n,
                           int kind, int dims) {
  const v3 p = v3_load(job->in.pos, i, n, dims);
  const v3 v = v3_load(job->in.vel, i, n, dims);
  write_steering(job, i, n, steer(job, p, v, i, n, kind, 0, dims), dims);
}

/* Wander's reads and writes only the lanes it selects; p is not read. */
CS_INLINE void wander_block(const cs_job *job, size_t i, size_t n, int dims) {
  vmask wanders;
  const uint32_t lanes = wander_lanes(job, i, n, 0, &wanders);
  if (!lanes) return; /* nobody here wanders: the step's output stays as is */
  const v3 v = v3_load(job->in.vel, i, n, dims);
  write_steering(job, i, n, wander_lanes_steer(job, v, i, n, wanders, lanes, dims), dims);
}

/* The reference's limit_turn, lanes-wide. */
CS_INLINE v3 v3_limit_turn(v3 s, v3 v, vf slow, int dims) {
  const vf speed = v3_len(v, dims), length = v3_len(s, dims), zero = v_zero();
  vmask turning =
      m_and(m_and(v_gt(speed, zero), m_not(v_gt(speed, slow))), v_gt(length, zero));
  if (!m_any(turning)) return s;
  const vf range = v_div(speed, slow);
  const vf r2 = v_mul(range, range), r4 = v_mul(r2, r2), r8 = v_mul(r4, r4),
           r16 = v_mul(r8, r8);
  const vf cosine = v_sub(v_set1(1.0f), v_mul(v_set1(2.0f), v_mul(r16, r4)));
  const v3 h = v3_div(v, speed, dims);
  turning = m_and(turning, m_not(v_le(cosine, v3_dot(v3_div(s, length, dims), h, dims))));
  if (!m_any(turning)) return s;
  const v3 perp = v3_sub(s, v3_scale(h, v3_dot(s, h, dims), dims), dims);
  const vf perp_length = v3_len(perp, dims);
  const v3 across = v3_select(v_gt(perp_length, zero), v3_div(perp, perp_length, dims),
                              v3_zero(dims), dims);
  const vf side = v_sqrt(v_sub(v_set1(1.0f), v_mul(cosine, cosine)));
  const v3 limited =
      v3_scale(v3_add(v3_scale(h, cosine, dims), v3_scale(across, side, dims), dims),
               length, dims);
  return v3_select(turning, limited, s, dims);
}

/* The integrator for agents [i, i + n) at p, v with steering s: the new
 * state is stored. `skip_unit_dt`: a dt of 1 skips its multiplies (a test
 * per call; without it they are done, which is exact too). */
CS_INLINE void integrate_registers(const cs_integrator *job, size_t i, size_t n, v3 s,
                                   v3 p, v3 v, int skip_unit_dt, int dims) {
  /* Exact shortcuts, taken by the reference too: truncating by +inf,
   * dividing by 1 and multiplying by 1 leave a vector unchanged. */
  if (job->turn > 0.0f)
    s = v3_limit_turn(s, v, v_mul(v_set1(job->turn), param_load(job->max_speed, i, n)),
                      dims);
  if (job->max_force.array || job->max_force.value <= FLT_MAX)
    s = v3_truncate(s, param_load(job->max_force, i, n), dims);
  v3 a = s;
  if (job->mass.array || job->mass.value != 1.0f)
    a = v3_div(s, param_load(job->mass, i, n), dims);
  if (job->smoothing > 0.0f) {
    const v3 before = v3_load((const float *const *)job->accel, i, n, dims);
    a = v3_add(before, v3_scale(v3_sub(a, before, dims), v_set1(job->smoothing), dims),
               dims);
    v3_store(job->accel, i, n, a, dims);
  }
  const int unit_dt = skip_unit_dt && job->dt == 1.0f;
  vf dt = v_set1(job->dt);
  v = v3_truncate(v3_add(v, unit_dt ? a : v3_scale(a, dt, dims), dims),
                  param_load(job->max_speed, i, n), dims);
  p = v3_add(p, unit_dt ? v : v3_scale(v, dt, dims), dims);
  v3_store(job->vel_rw, i, n, v, dims);
  v3_store(job->pos_rw, i, n, p, dims);
}

CS_INLINE void integrate_block(const cs_integrator *job, size_t i, size_t n, int dims) {
  const float *const steering[3] = {
      job->steering[0] + (i - job->steering_base),
      job->steering[1] + (i - job->steering_base),
      dims == 3 ? job->steering[2] + (i - job->steering_base) : NULL};
  integrate_registers(job, i, n, v3_load(steering, 0, n, dims),
                      v3_load(job->pos, i, n, dims), v3_load(job->vel, i, n, dims), 1,
                      dims);
}

/* ---- loops: full blocks with n == W (a constant), then one partial block - */

CS_INLINE void run_blocks(steer_fn steer, const cs_job *job, size_t begin, size_t end,
                          int kind, int dims) {
  size_t i = begin;
  for (; end - i >= W; i += W)
    steer_block(steer, job, i, W, kind, dims);
  if (i < end) steer_block(steer, job, i, end - i, kind, dims);
}

/* A loop per target form and dims, so each is compiled for its constants. */
CS_INLINE void run_forms(steer_fn steer, const cs_job *job, size_t begin, size_t end,
                         int dims) {
  switch (job->in.target_kind) {
  case CROWDSTEER_TARGET_POINT:
    run_blocks(steer, job, begin, end, CROWDSTEER_TARGET_POINT, dims);
    break;
  case CROWDSTEER_TARGET_ARRAYS:
    run_blocks(steer, job, begin, end, CROWDSTEER_TARGET_ARRAYS, dims);
    break;
  default: run_blocks(steer, job, begin, end, CROWDSTEER_TARGET_AGENTS, dims); break;
  }
}

/* A neighbour behaviour in a step: its steering, computed before the tiles
 * (step_neighbours.c), read and written like any behaviour's. */
CS_INLINE void precomputed_block(const cs_job *job, size_t i, size_t n, int dims) {
  const size_t at = i - job->precomputed_base;
  const float *const s[3] = {job->precomputed[0] + at, job->precomputed[1] + at,
                             dims == 3 ? job->precomputed[2] + at : NULL};
  write_steering(job, i, n, v3_load(s, 0, n, dims), dims);
}

CS_INLINE void run_precomputed(const cs_job *job, size_t begin, size_t end, int dims) {
  size_t i = begin;
  for (; end - i >= W; i += W)
    precomputed_block(job, i, W, dims);
  if (i < end) precomputed_block(job, i, end - i, dims);
}

CS_INLINE void run_wander(const cs_job *job, size_t begin, size_t end, int dims) {
  size_t i = begin;
  for (; end - i >= W; i += W)
    wander_block(job, i, W, dims);
  if (i < end) wander_block(job, i, end - i, dims);
}

/* The kernels, one per behaviour and dims (so each stays a frame of its own
 * size: a sanitizer build keeps every inlined temporary on the stack). Not
 * inlined: run_streamed calls one up to three times. They read the job in
 * place: a second body per kernel on a copy of the job (whose fields then
 * stay in registers, see fused_shape) made long calls 5-12 % faster on Zen
 * 5 but doubled the code and its compile time, and a copy per call made a
 * step's 256-agent chunks slower. */
#define CS_KERNELS(name, steer)                                                          \
  CS_NOINLINE static void name##_2d(const cs_job *job, size_t begin, size_t end) {       \
    run_forms(steer, job, begin, end, 2);                                                \
  }                                                                                      \
  CS_NOINLINE static void name##_3d(const cs_job *job, size_t begin, size_t end) {       \
    run_forms(steer, job, begin, end, 3);                                                \
  }
CS_KERNELS(seek, seek_steer)
CS_KERNELS(flee, flee_steer)
CS_KERNELS(arrive, arrive_steer)
CS_KERNELS(leave, leave_steer)
CS_KERNELS(pursuit, pursuit_steer)
CS_KERNELS(evade, evade_steer)
#undef CS_KERNELS
CS_NOINLINE static void follow_field_2d(const cs_job *job, size_t begin, size_t end) {
  run_blocks(follow_field_steer, job, begin, end, CROWDSTEER_TARGET_POINT, 2);
}
CS_NOINLINE static void contain_2d(const cs_job *job, size_t begin, size_t end) {
  run_blocks(contain_steer, job, begin, end, CROWDSTEER_TARGET_POINT, 2);
}
CS_NOINLINE static void contain_3d(const cs_job *job, size_t begin, size_t end) {
  run_blocks(contain_steer, job, begin, end, CROWDSTEER_TARGET_POINT, 3);
}
CS_NOINLINE static void wander_2d(const cs_job *job, size_t begin, size_t end) {
  run_wander(job, begin, end, 2);
}
CS_NOINLINE static void wander_3d(const cs_job *job, size_t begin, size_t end) {
  run_wander(job, begin, end, 3);
}
CS_NOINLINE static void precomputed_2d(const cs_job *job, size_t begin, size_t end) {
  run_precomputed(job, begin, end, 2);
}
CS_NOINLINE static void precomputed_3d(const cs_job *job, size_t begin, size_t end) {
  run_precomputed(job, begin, end, 3);
}

CS_INLINE void integrate_range(const cs_integrator *job, size_t begin, size_t end,
                               int dims) {
  size_t i = begin;
  for (; end - i >= W; i += W)
    integrate_block(job, i, W, dims);
  if (i < end) integrate_block(job, i, end - i, dims);
}

CS_INLINE void integrate_dims(const cs_integrator *job, size_t begin, size_t end) {
  if (job->dims == 2)
    integrate_range(job, begin, end, 2);
  else
    integrate_range(job, begin, end, 3);
}

CS_NOINLINE static void integrate_in_place(const cs_integrator *job, size_t begin,
                                           size_t end) {
  integrate_dims(job, begin, end);
}

/* A long range runs on a copy of the job, whose fields then stay in
 * registers (see fused_shape): small enough to keep both bodies. A step's
 * chunks (CHUNK agents) read it in place. */
enum { COPY_JOB_ABOVE = 1024 };

CS_NOINLINE static void integrate_copied(const cs_integrator *original, size_t begin,
                                         size_t end) {
  const cs_integrator copy = *original;
  integrate_dims(&copy, begin, end);
}

static void integrate_kernel(const cs_integrator *job, size_t begin, size_t end) {
  if (end - begin > COPY_JOB_ABOVE)
    integrate_copied(job, begin, end);
  else
    integrate_in_place(job, begin, end);
}

/* ---- the fused step: one behaviour and the integrator in registers ------ */

/* `shape`: SHAPE_DECIDED, a loop compiled for the common shape (blend,
 * plain_shape's constants), or SHAPE_RUN_TIME: every test per block. */
enum { SHAPE_RUN_TIME = 0, SHAPE_DECIDED = 1 };

/* What the step's accumulator would hand the integrator (write_steering,
 * one behaviour): blend adds the weighted steering to +0; priority keeps it
 * as it is (the first behaviour always writes). Decided shapes are blends
 * and skip a weight of 1 (a branch per block, predicted): s is the result
 * of arithmetic, so a NaN in it is quiet already and multiplying by 1 would
 * keep it. */
CS_INLINE v3 combined_steering(const cs_fused_chunk *f, v3 s, size_t i, size_t n,
                               int shape, int dims) {
  const v3 weighted = shape & SHAPE_DECIDED && f->job->policy.weight.value == 1.0f
                          ? s
                          : v3_scale(s, param_load(f->job->policy.weight, i, n), dims);
  if (!(shape & SHAPE_DECIDED) && f->priority) return weighted;
  return v3_add(v3_zero(dims), weighted, dims);
}

CS_INLINE void fused_block(steer_fn steer, const cs_fused_chunk *f, size_t i, size_t n,
                           int kind, int shape, int dims) {
  const cs_integrator *integrator = f->integrator;
  const v3 p = v3_load(integrator->pos, i, n, dims);
  const v3 v = v3_load(integrator->vel, i, n, dims);
  const v3 s =
      combined_steering(f, steer(f->job, p, v, i, n, kind, 1, dims), i, n, shape, dims);
  integrate_registers(integrator, i, n, s, p, v, !(shape & SHAPE_DECIDED), dims);
}

CS_INLINE void fused_blocks(steer_fn steer, const cs_fused_chunk *f, size_t begin,
                            size_t end, int kind, int shape, int dims) {
  size_t i = begin;
  for (; end - i >= W; i += W)
    fused_block(steer, f, i, W, kind, shape, dims);
  if (i < end) fused_block(steer, f, i, end - i, kind, shape, dims);
}

/* A loop per target form, like run_forms. */
CS_INLINE void fused_forms(steer_fn steer, const cs_fused_chunk *f, size_t begin,
                           size_t end, int shape, int dims) {
  switch (f->job->in.target_kind) {
  case CROWDSTEER_TARGET_POINT:
    fused_blocks(steer, f, begin, end, CROWDSTEER_TARGET_POINT, shape, dims);
    break;
  case CROWDSTEER_TARGET_ARRAYS:
    fused_blocks(steer, f, begin, end, CROWDSTEER_TARGET_ARRAYS, shape, dims);
    break;
  default:
    fused_blocks(steer, f, begin, end, CROWDSTEER_TARGET_AGENTS, shape, dims);
    break;
  }
}

/* The common shape of a step: every parameter uniform, time_to_target and
 * mass 1, no force limit. Its loops are compiled with these as constants
 * (plain_shape writes them into the copies the loop reads), so none is
 * tested per block. */
CS_INLINE int is_plain_shape(const cs_job *job, const cs_integrator *integrator) {
  const cs_param *const list[15] = {
      &job->in.max_speed,      &job->in.time_to_target, &job->in.target_radius,
      &job->in.slowing_radius, &job->in.panic_radius,   &job->in.danger_radius,
      &job->in.escape_radius,  &job->in.wander_radius,  &job->in.wander_distance,
      &job->in.jitter,         &job->in.max_prediction, &job->policy.weight,
      &integrator->max_speed,  &integrator->max_force,  &integrator->mass};
  for (int k = 0; k < 15; k++)
    if (list[k]->array) return 0;
  return job->in.time_to_target.value == 1.0f && integrator->mass.value == 1.0f &&
         !(integrator->max_force.value <= FLT_MAX) && !integrator->turn &&
         !integrator->smoothing;
}

CS_INLINE void plain_shape(cs_job *job, cs_integrator *integrator) {
  job->in.max_speed.array = NULL;
  job->in.time_to_target = (cs_param){1.0f, NULL};
  job->in.target_radius.array = NULL;
  job->in.slowing_radius.array = NULL;
  job->in.panic_radius.array = NULL;
  job->in.danger_radius.array = NULL;
  job->in.escape_radius.array = NULL;
  job->in.wander_radius.array = NULL;
  job->in.wander_distance.array = NULL;
  job->in.jitter.array = NULL;
  job->in.max_prediction.array = NULL;
  job->policy.weight.array = NULL;
  integrator->max_speed.array = NULL;
  integrator->max_force = (cs_param){(float)INFINITY, NULL};
  integrator->mass = (cs_param){1.0f, NULL};
}

/* One loop per target form for one shape, on copies of the job and the
 * integrator: no store of the loop can reach a copy that never escapes, so
 * the compiler keeps their fields in registers and moves their tests out of
 * the loop (a store through the vector types may alias anything reachable).
 * Decided shapes get the common shape's constants in their copies. */
CS_INLINE void fused_shape(steer_fn steer, const cs_fused_chunk *chunk, size_t begin,
                           size_t end, int shape, int dims) {
  cs_job job = *chunk->job;
  cs_integrator integrator = *chunk->integrator;
  const cs_fused_chunk f = {&job, chunk->kind, chunk->priority, &integrator};
  if (shape & SHAPE_DECIDED) plain_shape(&job, &integrator);
  fused_forms(steer, &f, begin, end, shape, dims);
}

/* Which chunks run in registers, as measured against the accumulator on
 * Zen 5: 2D steps of the common shape (blend; seek_fused 1.45x), and 3D
 * steps with 16 lanes, whose 32 registers hold the 3D vectors (1.15-1.3x;
 * with AVX2 it was 7 % slower). A function per behaviour and shape, each
 * the size of a behaviour's own kernel (one function holding every shape
 * took minutes to compile under the sanitizers). dt is not decided:
 * multiplying by a dt of 1 is exact. */
#define CS_FUSED_2D(name, steer)                                                         \
  CS_NOINLINE static void fused_##name##_2d(const cs_fused_chunk *f, size_t begin,       \
                                            size_t end) {                                \
    fused_shape(steer, f, begin, end, SHAPE_DECIDED, 2);                                 \
  }
#if CS_LANES == 16
#define CS_FUSED_3D(name, steer)                                                         \
  CS_NOINLINE static void fused_##name##_3d(const cs_fused_chunk *f, size_t begin,       \
                                            size_t end) {                                \
    fused_shape(steer, f, begin, end, SHAPE_RUN_TIME, 3);                                \
  }
#define CS_FUSED_ROW(name)                                                               \
  { fused_##name##_2d, fused_##name##_3d }
#else
#define CS_FUSED_3D(name, steer)
#define CS_FUSED_ROW(name)                                                               \
  { fused_##name##_2d, NULL }
#endif
#define CS_FUSED(name, steer) CS_FUSED_2D(name, steer) CS_FUSED_3D(name, steer)
CS_FUSED(seek, seek_steer)
CS_FUSED(flee, flee_steer)
CS_FUSED(arrive, arrive_steer)
CS_FUSED(leave, leave_steer)
CS_FUSED(pursuit, pursuit_steer)
CS_FUSED(evade, evade_steer)
CS_FUSED(wander, wander_steer)
CS_FUSED_2D(follow_field, follow_field_steer)
CS_FUSED(follow_path, follow_path_steer)
CS_FUSED(contain, contain_steer)
#undef CS_FUSED
#undef CS_FUSED_2D
#undef CS_FUSED_3D

static const cs_fused_kernel fused[][2] = {
    [CROWDSTEER_SEEK] = CS_FUSED_ROW(seek),
    [CROWDSTEER_FLEE] = CS_FUSED_ROW(flee),
    [CROWDSTEER_ARRIVE] = CS_FUSED_ROW(arrive),
    [CROWDSTEER_LEAVE] = CS_FUSED_ROW(leave),
    [CROWDSTEER_PURSUIT] = CS_FUSED_ROW(pursuit),
    [CROWDSTEER_EVADE] = CS_FUSED_ROW(evade),
    [CROWDSTEER_WANDER] = CS_FUSED_ROW(wander),
    [CROWDSTEER_FOLLOW_FIELD] = {fused_follow_field_2d, NULL},
    [CROWDSTEER_FOLLOW_PATH] = CS_FUSED_ROW(follow_path),
    [CROWDSTEER_CONTAIN] = CS_FUSED_ROW(contain),
};
#undef CS_FUSED_ROW

/* Where a chunk of one behaviour runs in registers (see above). */
static int fuses(const cs_fused_chunk *f) {
  const int dims = f->integrator->dims;
  if ((size_t)f->kind >= sizeof fused / sizeof fused[0]) return 0;
  if (dims == 2 && (f->priority || !is_plain_shape(f->job, f->integrator))) return 0;
  return fused[f->kind][dims - 2] != NULL;
}

static void fused_kernel(const cs_fused_chunk *f, size_t begin, size_t end) {
  fused[f->kind][f->integrator->dims - 2](f, begin, end);
}

/* A large OVERWRITE output is written with non-temporal stores: a normal
 * store first reads the line it writes (write-allocate), which costs a
 * third more memory traffic for an array that is only written, and evicts
 * data that is still needed. Only where every output array has the same
 * alignment can one range of whole vectors be aligned for all of them;
 * [*first, *last) is that range, the rest is stored normally. Outputs small
 * enough to stay in cache for the integrator keep normal stores. */
CS_INLINE int stream_split(const cs_job *job, size_t begin, size_t end, size_t *first,
                           size_t *last) {
  const uintptr_t vector_bytes = W * sizeof(float);
  const int dims = job->in.dims;
  if (job->policy.mode != CS_WRITE_OVERWRITE ||
      (end - begin) * (size_t)dims * sizeof(float) < CS_STREAM_MIN_BYTES)
    return 0;
  const uintptr_t offset = (uintptr_t)(job->policy.out[0] + begin) % vector_bytes;
  if (offset % sizeof(float) != 0) return 0;
  for (int k = 1; k < dims; k++)
    if ((uintptr_t)(job->policy.out[k] + begin) % vector_bytes != offset) return 0;
  *first = begin + (offset ? (vector_bytes - offset) / sizeof(float) : 0);
  if (*first >= end) return 0;
  *last = *first + (end - *first) / W * W;
  return 1;
}

/* Runs a behaviour's kernel over [begin, end) for a single-behaviour call,
 * streaming the aligned middle of a large output (stream_split). */
static void run_streamed(cs_kernel kernel, const cs_job *job, size_t begin, size_t end) {
  size_t first, last;
  if (!stream_split(job, begin, end, &first, &last)) {
    kernel(job, begin, end);
    return;
  }
  cs_job streamed = *job;
  streamed.policy.mode = CS_WRITE_STREAM;
  kernel(job, begin, first);
  kernel(&streamed, first, last);
  v_stream_fence();
  kernel(job, last, end);
}

/* Follow a path: kernels/path.c. */
void CS_FOLLOW_PATH_2D(const cs_job *job, size_t begin, size_t end);
void CS_FOLLOW_PATH_3D(const cs_job *job, size_t begin, size_t end);

/* Indexed by crowdsteer_behaviour (see cs_behaviours in behaviours.c). The
 * neighbour behaviours have their own kernels and job (kernels/neighbours.c);
 * their rows here write a step's precomputed steering. */
static const cs_kernel kernels[][2] = {
    [CROWDSTEER_SEEK] = {seek_2d, seek_3d},
    [CROWDSTEER_FLEE] = {flee_2d, flee_3d},
    [CROWDSTEER_ARRIVE] = {arrive_2d, arrive_3d},
    [CROWDSTEER_LEAVE] = {leave_2d, leave_3d},
    [CROWDSTEER_PURSUIT] = {pursuit_2d, pursuit_3d},
    [CROWDSTEER_EVADE] = {evade_2d, evade_3d},
    [CROWDSTEER_WANDER] = {wander_2d, wander_3d},
    [CROWDSTEER_SEPARATION] = {precomputed_2d, precomputed_3d},
    [CROWDSTEER_COHESION] = {precomputed_2d, precomputed_3d},
    [CROWDSTEER_ALIGNMENT] = {precomputed_2d, precomputed_3d},
    /* 2D only: validation refuses 3D agents. */
    [CROWDSTEER_FOLLOW_FIELD] = {follow_field_2d, follow_field_2d},
    [CROWDSTEER_FOLLOW_PATH] = {CS_FOLLOW_PATH_2D, CS_FOLLOW_PATH_3D},
    [CROWDSTEER_CONTAIN] = {contain_2d, contain_3d},
};
_Static_assert(sizeof kernels / sizeof kernels[0] == CROWDSTEER_BEHAVIOUR_COUNT,
               "a row per behaviour of crowdsteer_behaviour");

/* The largest index against the limit: a max over the range in two
 * vectors (independent chains), then over their lanes. */
static int indices_below(const uint32_t *index, size_t begin, size_t end,
                         uint32_t limit) {
  vi largest_a = i_set1(0), largest_b = i_set1(0);
  size_t i = begin;
  for (; i + 2 * W <= end; i += 2 * W) {
    largest_a = i_max_u(largest_a, i_load(index + i));
    largest_b = i_max_u(largest_b, i_load(index + i + W));
  }
  uint32_t lanes[W];
  i_store(lanes, i_max_u(largest_a, largest_b));
  uint32_t largest = 0;
  for (int k = 0; k < W; k++)
    largest = lanes[k] > largest ? lanes[k] : largest;
  for (; i < end; i++)
    largest = index[i] > largest ? index[i] : largest;
  return largest < limit;
}

/* A step's wrap-around (kernels/bounds_lanes.h). */
static void wrap_kernel(float *const pos[3], const crowdsteer_box *box, int dims,
                        size_t first, size_t last) {
  for (int k = 0; k < dims; k++)
    wrap_lanes(pos[k], box->min[k], box->max[k], first, last);
}

const cs_backend CS_BACKEND = {kernels,      integrate_kernel, run_streamed, fuses,
                               fused_kernel, indices_below,    wrap_kernel};
