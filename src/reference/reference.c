/* The scalar reference: the normative definition of every behaviour and of
 * the integrator, down to the rounding of each operation. SIMD kernels must
 * perform exactly these operations in exactly this order. Built without
 * auto-vectorisation so it stays a true scalar baseline. */
#include <float.h>
#include <math.h>

#include "bounds/bounds.h"
#include "internal.h"
#include "nav/field.h"
#include "path/path.h"

/* Plain functions, inlined so each kernel compiles for a constant dims. */
#define REF static inline __attribute__((always_inline))

/* A 2D or 3D vector; in 2D the z component is ignored and never computed
 * with, so the 2D results are exactly what a 2-component code computes. */
typedef struct vec {
  float c[3];
} vec;

static const vec zero_vec = {{0.0f, 0.0f, 0.0f}};

REF vec vec_load(const float *const a[3], size_t i, int dims) {
  vec v = zero_vec;
  for (int k = 0; k < dims; k++)
    v.c[k] = a[k][i];
  return v;
}

REF vec vec_sub(vec a, vec b, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] -= b.c[k];
  return a;
}

REF vec vec_add(vec a, vec b, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] += b.c[k];
  return a;
}

REF vec vec_scale(vec a, float s, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] *= s;
  return a;
}

REF vec vec_div(vec a, float s, int dims) {
  for (int k = 0; k < dims; k++)
    a.c[k] /= s;
  return a;
}

/* dot = (x*x + y*y) + z*z: left to right. */
REF float dot(vec a, vec b, int dims) {
  float d = a.c[0] * b.c[0];
  for (int k = 1; k < dims; k++)
    d += a.c[k] * b.c[k];
  return d;
}

REF float len(vec a, int dims) { return sqrtf(dot(a, a, dims)); }

/* normalize(v) = v / len(v) when len(v) > 0, else the zero vector. */
REF vec normalize(vec a, int dims) {
  float l = len(a, dims);
  return l > 0.0f ? vec_div(a, l, dims) : zero_vec;
}

/* heading(v) = normalize(v), or the unit x axis when v is zero. */
REF vec heading(vec a, int dims) {
  float l = len(a, dims);
  if (l > 0.0f) return vec_div(a, l, dims);
  vec x = zero_vec;
  x.c[0] = 1.0f;
  return x;
}

/* truncate(v, m) = v * (m / len(v)) when len(v) > m, else v. */
REF vec truncate(vec a, float m, int dims) {
  float l = len(a, dims);
  return l > m ? vec_scale(a, m / l, dims) : a;
}

/* s = (desired - v) / time_to_target. The default time_to_target of 1
 * skips the division, as the kernels do: x / 1 == x exactly in the fixed
 * environment every call runs in, and both sides do the same operations. */
REF vec steer_towards(vec desired, vec v, float time_to_target, int dims) {
  vec difference = vec_sub(desired, v, dims);
  return time_to_target == 1.0f ? difference : vec_div(difference, time_to_target, dims);
}

REF vec target_position(const cs_job *job, size_t i, int dims) {
  switch (job->in.target_kind) {
  case CROWDSTEER_TARGET_POINT: {
    vec t = zero_vec;
    for (int k = 0; k < dims; k++)
      t.c[k] = job->in.target_point[k];
    return t;
  }
  case CROWDSTEER_TARGET_ARRAYS: return vec_load(job->in.target_pos, i, dims);
  default: return vec_load(job->in.gather_pos, job->in.target_index[i], dims);
  }
}

REF vec target_velocity(const cs_job *job, size_t i, int dims) {
  switch (job->in.target_kind) {
  case CROWDSTEER_TARGET_POINT: {
    vec t = zero_vec;
    for (int k = 0; k < dims; k++)
      t.c[k] = job->in.target_point_velocity[k];
    return t;
  }
  case CROWDSTEER_TARGET_ARRAYS: return vec_load(job->in.target_vel, i, dims);
  default: return vec_load(job->in.gather_vel, job->in.target_index[i], dims);
  }
}

REF int agent_active(const cs_job *job, size_t i) {
  return !job->policy.lane_select || (job->policy.lane_select[i] & job->policy.lane_bit);
}

/* OVERWRITE: out = s. ACCUMULATE: out = out + weight * s. PRIORITY (mixed
 * steps): unless decided, out = weight * s, and decided once
 * len(weight * s) > priority_threshold. (Agents a mixed step leaves out of a
 * behaviour are skipped by its loop: out stays as is.) */
REF void write_steering(const cs_job *job, size_t i, vec s, int dims) {
  const size_t slot = i - job->policy.out_base;
  if (job->policy.mode == CS_WRITE_OVERWRITE) {
    for (int k = 0; k < dims; k++)
      job->policy.out[k][slot] = s.c[k];
  } else if (job->policy.mode == CS_WRITE_ACCUMULATE) {
    float weight = cs_param_at(job->policy.weight, i);
    for (int k = 0; k < dims; k++)
      job->policy.out[k][slot] = job->policy.out[k][slot] + weight * s.c[k];
  } else if (job->policy.decided[slot] == 0.0f) {
    vec weighted = vec_scale(s, cs_param_at(job->policy.weight, i), dims);
    for (int k = 0; k < dims; k++)
      job->policy.out[k][slot] = weighted.c[k];
    if (len(weighted, dims) > job->policy.priority_threshold)
      job->policy.decided[slot] = 1.0f;
  }
}

/* seek: desired = normalize(t - p) * max_speed (0 when p == t) */
REF vec seek_one(vec p, vec v, vec t, float max_speed, float ttt, int dims) {
  vec desired = vec_scale(normalize(vec_sub(t, p, dims), dims), max_speed, dims);
  return steer_towards(desired, v, ttt, dims);
}

/* flee: desired = normalize(p - t) * max_speed, or heading(v) * max_speed
 * when p == t; zero steering when len(p - t) > panic_radius. */
REF vec flee_one(vec p, vec v, vec t, float max_speed, float panic_radius, float ttt,
                 int dims) {
  vec d = vec_sub(p, t, dims);
  float dist = len(d, dims);
  if (dist > panic_radius) return zero_vec;
  vec away = dist > 0.0f ? vec_div(d, dist, dims) : heading(v, dims);
  return steer_towards(vec_scale(away, max_speed, dims), v, ttt, dims);
}

/* Agent i's steering from one behaviour, given its position and velocity. */
typedef vec (*agent_steering)(const cs_job *job, size_t i, vec p, vec v, int dims);

/* The loop every behaviour shares: the agents of [begin, end) that take part,
 * each one's steering written as the job says. */
REF void steer_range(agent_steering steering, const cs_job *job, size_t begin, size_t end,
                     const int dims) {
  for (size_t i = begin; i < end; i++) {
    if (!agent_active(job, i)) continue; /* its data was not checked */
    vec p = vec_load(job->in.pos, i, dims), v = vec_load(job->in.vel, i, dims);
    write_steering(job, i, steering(job, i, p, v, dims), dims);
  }
}

/* Each behaviour's loop compiled for a constant dims, so the vectors live in
 * registers: the reference is a fair scalar baseline, not a slow one. */
REF void steer_all(agent_steering steering, const cs_job *job, size_t begin, size_t end) {
  if (job->in.dims == 2)
    steer_range(steering, job, begin, end, 2);
  else
    steer_range(steering, job, begin, end, 3);
}

REF vec seek_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  return seek_one(p, v, target_position(job, i, dims), cs_param_at(job->in.max_speed, i),
                  cs_param_at(job->in.time_to_target, i), dims);
}

REF vec flee_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  return flee_one(p, v, target_position(job, i, dims), cs_param_at(job->in.max_speed, i),
                  cs_param_at(job->in.panic_radius, i),
                  cs_param_at(job->in.time_to_target, i), dims);
}

/* arrive: d = t - p, dist = len(d).
 *   dist <= target_radius : desired = 0
 *   dist <  slowing_radius: desired = (d / dist) * (max_speed * dist / slowing_radius)
 *   otherwise             : desired = (d / dist) * max_speed */
REF vec arrive_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  vec d = vec_sub(target_position(job, i, dims), p, dims);
  float dist = len(d, dims);
  float max_speed = cs_param_at(job->in.max_speed, i);
  float slowing_radius = cs_param_at(job->in.slowing_radius, i);
  vec desired = zero_vec;
  if (!(dist <= cs_param_at(job->in.target_radius, i))) {
    float speed = dist < slowing_radius ? max_speed * dist / slowing_radius : max_speed;
    desired = vec_scale(vec_div(d, dist, dims), speed, dims);
  }
  return steer_towards(desired, v, cs_param_at(job->in.time_to_target, i), dims);
}

/* leave: d = p - t, dist = len(d). No steering when danger_radius == 0 or
 * dist > danger_radius. Else speed = max_speed when dist < escape_radius,
 * otherwise max_speed - max_speed * dist / danger_radius; the direction is
 * d / dist, or heading(v) when dist == 0. */
REF vec leave_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  vec d = vec_sub(p, target_position(job, i, dims), dims);
  float dist = len(d, dims);
  float max_speed = cs_param_at(job->in.max_speed, i);
  float danger_radius = cs_param_at(job->in.danger_radius, i);
  if (danger_radius == 0.0f || dist > danger_radius) return zero_vec;
  float speed = dist < cs_param_at(job->in.escape_radius, i)
                    ? max_speed
                    : max_speed - max_speed * dist / danger_radius;
  vec away = dist > 0.0f ? vec_div(d, dist, dims) : heading(v, dims);
  return steer_towards(vec_scale(away, speed, dims), v,
                       cs_param_at(job->in.time_to_target, i), dims);
}

/* Look-ahead for pursuit and evade:
 * T = min(len(d) / (max_speed + len(tv)), max_prediction), 0 when the divisor
 * is 0; the predicted target is tp + tv * T. */
REF vec predict(vec d, vec tp, vec tv, float max_speed, float max_prediction, int dims) {
  float divisor = max_speed + len(tv, dims);
  float T = divisor > 0.0f ? len(d, dims) / divisor : 0.0f;
  T = T < max_prediction ? T : max_prediction;
  return vec_add(tp, vec_scale(tv, T, dims), dims);
}

/* pursuit: with d = tp - p, a quarry ahead (dot(d, heading(v)) > 0) and
 * coming head-on (dot(heading(v), heading(tv)) < -0.95) is sought directly;
 * otherwise seek the predicted position. */
REF vec pursuit_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  vec tp = target_position(job, i, dims), tv = target_velocity(job, i, dims);
  float max_speed = cs_param_at(job->in.max_speed, i);
  vec d = vec_sub(tp, p, dims);
  vec own_heading = heading(v, dims);
  int head_on = dot(d, own_heading, dims) > 0.0f &&
                dot(own_heading, heading(tv, dims), dims) < -0.95f;
  vec aim = head_on ? tp
                    : predict(d, tp, tv, max_speed,
                              cs_max_prediction(job->in.max_prediction, i), dims);
  return seek_one(p, v, aim, max_speed, cs_param_at(job->in.time_to_target, i), dims);
}

/* evade: flee (with panic_radius) from pursuit's predicted position. */
REF vec evade_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  vec tp = target_position(job, i, dims), tv = target_velocity(job, i, dims);
  float max_speed = cs_param_at(job->in.max_speed, i);
  vec threat = predict(vec_sub(tp, p, dims), tp, tv, max_speed,
                       cs_max_prediction(job->in.max_prediction, i), dims);
  return flee_one(p, v, threat, max_speed, cs_param_at(job->in.panic_radius, i),
                  cs_param_at(job->in.time_to_target, i), dims);
}

/* wander: w = normalize(w + jitter * r), r[k] = random(seed, id of i, tick, k);
 * if that is zero, w = heading(v). s = heading(v) * wander_distance +
 * w * wander_radius. */
REF vec wander_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  (void)p;
  vec w = vec_load((const float *const *)job->in.wander, i, dims);
  vec jittered = w;
  for (int k = 0; k < dims; k++)
    jittered.c[k] = w.c[k] + cs_param_at(job->in.jitter, i) *
                                 cs_random_from_key(job->in.wander_key[k],
                                                    cs_agent_id(job->in.agent_id, i));
  vec own_heading = heading(v, dims);
  w = len(jittered, dims) > 0.0f ? normalize(jittered, dims) : own_heading;
  for (int k = 0; k < dims; k++)
    job->in.wander[k][i] = w.c[k];
  return vec_add(vec_scale(own_heading, cs_param_at(job->in.wander_distance, i), dims),
                 vec_scale(w, cs_param_at(job->in.wander_radius, i), dims), dims);
}

/* follow_field: u = (x - ox) * (1 / h), w = (y - oy) * (1 / h) in float
 * (1 / h rounded once, at the build); inside the grid (0 <= u < width,
 * 0 <= w < height) the cell is (uint32_t)w * width + (uint32_t)u, and
 * desired = direction(cell) * max_speed, the cell's direction from the
 * agent's field (nav/march.c); outside, desired = 0. */
REF vec follow_field_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  const cs_inputs *in = &job->in;
  const float u = (p.c[0] - in->field_origin[0]) * in->field_inverse_cell_size;
  const float w = (p.c[1] - in->field_origin[1]) * in->field_inverse_cell_size;
  uint32_t cell = in->field_cells; /* its direction is zero */
  if (u >= 0.0f && u < in->field_width_f && w >= 0.0f && w < in->field_height_f)
    cell = (uint32_t)w * in->field_width + (uint32_t)u;
  const crowdsteer_field *field = in->fields[in->field_index ? in->field_index[i] : 0];
  const uint32_t word = field->store.direction[cell];
  vec direction = zero_vec;
  direction.c[0] = cs_direction_x(word); /* (float)bits * 2^-14 - 1 */
  direction.c[1] = cs_direction_y(word);
  return steer_towards(vec_scale(direction, cs_param_at(in->max_speed, i), dims), v,
                       cs_param_at(in->time_to_target, i), dims);
}

/* The low-speed turn limit (crowdsteer_motion.turn_limit): at speed
 * 0 < len(v) <= slow, s keeps its length but turns at most to the cone of
 * cosine 1 - 2 (len(v) / slow)^20 around heading(v). */
REF vec limit_turn(vec s, vec v, float slow, int dims) {
  const float speed = len(v, dims), length = len(s, dims);
  if (!(speed > 0.0f) || speed > slow || !(length > 0.0f)) return s;
  const float range = speed / slow;
  const float r2 = range * range, r4 = r2 * r2, r8 = r4 * r4, r16 = r8 * r8;
  const float cosine = 1.0f - 2.0f * (r16 * r4);
  const vec h = vec_div(v, speed, dims);
  if (dot(vec_div(s, length, dims), h, dims) >= cosine) return s;
  const vec across =
      normalize(vec_sub(s, vec_scale(h, dot(s, h, dims), dims), dims), dims);
  const float side = sqrtf(1.0f - cosine * cosine);
  return vec_scale(
      vec_add(vec_scale(h, cosine, dims), vec_scale(across, side, dims), dims), length,
      dims);
}

/* integrator: f = truncate(s, max_force); a = f / mass;
 * v' = truncate(v + a * dt, max_speed); p' = p + v' * dt.
 * Like the kernels, a uniform max_force of +inf, mass of 1 and dt of 1 skip
 * their operations, which leave a vector unchanged exactly. */
REF void integrate_range(const cs_integrator *job, size_t begin, size_t end,
                         const int dims) {
  const int limit_force = job->max_force.array || job->max_force.value <= FLT_MAX;
  const int divide_mass = job->mass.array || job->mass.value != 1.0f;
  const int unit_dt = job->dt == 1.0f;
  for (size_t i = begin; i < end; i++) {
    vec s = vec_load(job->steering, i - job->steering_base, dims);
    vec v = vec_load(job->vel, i, dims);
    vec p = vec_load(job->pos, i, dims);
    if (job->turn > 0.0f)
      s = limit_turn(s, v, job->turn * cs_param_at(job->max_speed, i), dims);
    vec f = limit_force ? truncate(s, cs_param_at(job->max_force, i), dims) : s;
    vec a = divide_mass ? vec_div(f, cs_param_at(job->mass, i), dims) : f;
    if (job->smoothing > 0.0f) { /* a = A + (a - A) * rate, kept as A */
      const vec before = vec_load((const float *const *)job->accel, i, dims);
      a = vec_add(before, vec_scale(vec_sub(a, before, dims), job->smoothing, dims),
                  dims);
      for (int k = 0; k < dims; k++)
        job->accel[k][i] = a.c[k];
    }
    v = truncate(vec_add(v, unit_dt ? a : vec_scale(a, job->dt, dims), dims),
                 cs_param_at(job->max_speed, i), dims);
    p = vec_add(p, unit_dt ? v : vec_scale(v, job->dt, dims), dims);
    for (int k = 0; k < dims; k++) {
      job->vel_rw[k][i] = v.c[k];
      job->pos_rw[k][i] = p.c[k];
    }
  }
}

/* seek_one for one agent, for callers outside the backends (containment). */
void cs_reference_seek(const float p[3], const float v[3], const float t[3],
                       float max_speed, float time_to_target, int dims, float s[3]) {
  vec pv = zero_vec, vv = zero_vec, tv = zero_vec;
  for (int k = 0; k < dims; k++) {
    pv.c[k] = p[k];
    vv.c[k] = v[k];
    tv.c[k] = t[k];
  }
  const vec out = seek_one(pv, vv, tv, max_speed, time_to_target, dims);
  for (int k = 0; k < dims; k++)
    s[k] = out.c[k];
}

/* The reference function of each behaviour: row b of cs_backend_scalar. */
static void seek(const cs_job *job, size_t begin, size_t end) {
  steer_all(seek_agent, job, begin, end);
}
static void flee(const cs_job *job, size_t begin, size_t end) {
  steer_all(flee_agent, job, begin, end);
}
static void arrive(const cs_job *job, size_t begin, size_t end) {
  steer_all(arrive_agent, job, begin, end);
}
static void leave(const cs_job *job, size_t begin, size_t end) {
  steer_all(leave_agent, job, begin, end);
}
static void pursuit(const cs_job *job, size_t begin, size_t end) {
  steer_all(pursuit_agent, job, begin, end);
}
static void evade(const cs_job *job, size_t begin, size_t end) {
  steer_all(evade_agent, job, begin, end);
}
static void wander(const cs_job *job, size_t begin, size_t end) {
  steer_all(wander_agent, job, begin, end);
}
static void follow_field(const cs_job *job, size_t begin, size_t end) {
  steer_range(follow_field_agent, job, begin, end, 2); /* 2D only */
}

/* Follow a path: its definition is path/reference_path.c. */
REF vec follow_path_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  vec s = zero_vec;
  cs_path_steer_agent(job, i, p.c, v.c, s.c, dims);
  return s;
}
static void follow_path(const cs_job *job, size_t begin, size_t end) {
  steer_all(follow_path_agent, job, begin, end);
}
/* contain: zero while q = p + v * prediction is inside the region
 * (cs_bounds_inside, bounds/bounds.c), otherwise seek towards its centre
 * (the POINT target). */
REF vec contain_agent(const cs_job *job, size_t i, vec p, vec v, int dims) {
  if (cs_bounds_inside(job->in.bounds, job->in.target_point, p.c, v.c, dims))
    return zero_vec;
  return seek_agent(job, i, p, v, dims);
}
static void contain(const cs_job *job, size_t begin, size_t end) {
  steer_all(contain_agent, job, begin, end);
}
/* A neighbour behaviour in a step: its steering, computed before the tiles
 * (neighbours/step_neighbours.c), written like any behaviour's. */
static void precomputed(const cs_job *job, size_t begin, size_t end) {
  for (size_t i = begin; i < end; i++)
    if (agent_active(job, i))
      write_steering(job, i,
                     vec_load(job->precomputed, i - job->precomputed_base, job->in.dims),
                     job->in.dims);
}
static void integrate(const cs_integrator *job, size_t begin, size_t end) {
  if (job->dims == 2)
    integrate_range(job, begin, end, 2);
  else
    integrate_range(job, begin, end, 3);
}

/* A single-behaviour call runs the kernel as it is (no streaming stores). */
static void run_plain(cs_kernel kernel, const cs_job *job, size_t begin, size_t end) {
  kernel(job, begin, end);
}

/* Indexed by crowdsteer_behaviour (see cs_behaviours in behaviours.c) and
 * dims - 2 (each reference function handles both); the neighbour
 * behaviours' definition is neighbours/query.c, their rows here write
 * a step's precomputed steering. */
static const cs_kernel references[][2] = {
    [CROWDSTEER_SEEK] = {seek, seek},
    [CROWDSTEER_FLEE] = {flee, flee},
    [CROWDSTEER_ARRIVE] = {arrive, arrive},
    [CROWDSTEER_LEAVE] = {leave, leave},
    [CROWDSTEER_PURSUIT] = {pursuit, pursuit},
    [CROWDSTEER_EVADE] = {evade, evade},
    [CROWDSTEER_WANDER] = {wander, wander},
    [CROWDSTEER_SEPARATION] = {precomputed, precomputed},
    [CROWDSTEER_COHESION] = {precomputed, precomputed},
    [CROWDSTEER_ALIGNMENT] = {precomputed, precomputed},
    [CROWDSTEER_FOLLOW_FIELD] = {follow_field, follow_field},
    [CROWDSTEER_FOLLOW_PATH] = {follow_path, follow_path},
    [CROWDSTEER_CONTAIN] = {contain, contain},
};
_Static_assert(sizeof references / sizeof references[0] == CROWDSTEER_BEHAVIOUR_COUNT,
               "a row per behaviour of crowdsteer_behaviour");

const cs_backend cs_backend_scalar = {references, integrate, run_plain, NULL,
                                      NULL,       NULL,      NULL};
