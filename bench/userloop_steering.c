/* The userloop competitor for the steering behaviours: what a competent C
 * programmer writes in a few minutes per behaviour from docs/behaviours.md
 * for a 2D structure-of-arrays crowd. One loop over the agents with
 * straight-line float code; every "if" of the formulas is a select between
 * values computed unconditionally (a division by a zero length is computed
 * and thrown away), so the compiler vectorises every loop. No library
 * machinery: no validation, no dispatch, no tiles.
 *
 * Compiled like bench/userloop.c: -O3 -march=native -fno-math-errno
 * -ffp-contract=off (no FMA contraction, no fast-math), so every operation
 * is the IEEE operation written, in the order written: the results are the
 * scalar reference's bits (tests/bench/test_userloop_bits.c proves it), and
 * the benchmarks compare the same arithmetic. */
#include "userloop_steering.h"

#include <math.h>

#define INLINE static inline __attribute__((always_inline))

typedef struct v2 {
  float x, y;
} v2;

INLINE float length(float x, float y) { return sqrtf(x * x + y * y); }

/* (x, y) / l when l > 0, else `otherwise`. */
INLINE v2 unit_or(float x, float y, float l, v2 otherwise) {
  const float ux = x / l, uy = y / l;
  const int positive = l > 0.0f;
  return (v2){positive ? ux : otherwise.x, positive ? uy : otherwise.y};
}

/* heading(v): v / |v|, +x at rest. */
INLINE v2 heading(float vx, float vy) {
  return unit_or(vx, vy, length(vx, vy), (v2){1.0f, 0.0f});
}

/* seek: (normalize(t - p) * max_speed) - v, the normal 0 on the target. */
INLINE v2 seek(float px, float py, float vx, float vy, float tx, float ty,
               float max_speed) {
  const float dx = tx - px, dy = ty - py;
  const v2 n = unit_or(dx, dy, length(dx, dy), (v2){0.0f, 0.0f});
  return (v2){n.x * max_speed - vx, n.y * max_speed - vy};
}

/* Away from a threat at offset d = p - t, |d| = dist: d / dist, or
 * heading(v) on the threat. One division pair serves both cases. */
INLINE v2 away(float dx, float dy, float dist, float vx, float vy) {
  const int off = dist > 0.0f;
  const float x = off ? dx : vx, y = off ? dy : vy;
  const float l = off ? dist : length(vx, vy);
  return unit_or(x, y, l, (v2){1.0f, 0.0f});
}

/* flee: away * max_speed - v, zero beyond the panic radius. */
INLINE v2 flee(float px, float py, float vx, float vy, float tx, float ty,
               float max_speed, float panic_radius) {
  const float dx = px - tx, dy = py - ty;
  const float dist = length(dx, dy);
  const v2 a = away(dx, dy, dist, vx, vy);
  const float sx = a.x * max_speed - vx, sy = a.y * max_speed - vy;
  const int calm = dist > panic_radius;
  return (v2){calm ? 0.0f : sx, calm ? 0.0f : sy};
}

INLINE v2 arrive(float px, float py, float vx, float vy, float tx, float ty,
                 const userloop_params *P) {
  const float dx = tx - px, dy = ty - py;
  const float dist = length(dx, dy);
  const float ramp = P->max_speed * dist / P->slowing_radius;
  const float speed = dist < P->slowing_radius ? ramp : P->max_speed;
  const int moving = !(dist <= P->target_radius);
  const float ux = dx / dist, uy = dy / dist;
  const float desired_x = moving ? ux * speed : 0.0f;
  const float desired_y = moving ? uy * speed : 0.0f;
  return (v2){desired_x - vx, desired_y - vy};
}

INLINE v2 leave(float px, float py, float vx, float vy, float tx, float ty,
                const userloop_params *P) {
  const float dx = px - tx, dy = py - ty;
  const float dist = length(dx, dy);
  const float slowing = P->max_speed - P->max_speed * dist / P->danger_radius;
  const float speed = dist < P->escape_radius ? P->max_speed : slowing;
  const v2 a = away(dx, dy, dist, vx, vy);
  const float sx = a.x * speed - vx, sy = a.y * speed - vy;
  const int safe = (P->danger_radius == 0.0f) | (dist > P->danger_radius);
  return (v2){safe ? 0.0f : sx, safe ? 0.0f : sy};
}

/* Where a target at t moving at tv will be: t + tv * T. */
INLINE v2 predict(float dx, float dy, float tx, float ty, float tvx, float tvy,
                  const userloop_params *P) {
  const float divisor = P->max_speed + length(tvx, tvy);
  float T = length(dx, dy) / divisor;
  T = divisor > 0.0f ? T : 0.0f;
  T = T < P->max_prediction ? T : P->max_prediction;
  return (v2){tx + tvx * T, ty + tvy * T};
}

INLINE v2 pursuit(float px, float py, float vx, float vy, float tx, float ty, float tvx,
                  float tvy, const userloop_params *P) {
  const float dx = tx - px, dy = ty - py;
  const v2 own = heading(vx, vy), theirs = heading(tvx, tvy);
  const int ahead_of_us = dx * own.x + dy * own.y > 0.0f;
  const int coming_at_us = own.x * theirs.x + own.y * theirs.y < -0.95f;
  const int head_on = ahead_of_us & coming_at_us;
  const v2 ahead = predict(dx, dy, tx, ty, tvx, tvy, P);
  const float aim_x = head_on ? tx : ahead.x, aim_y = head_on ? ty : ahead.y;
  return seek(px, py, vx, vy, aim_x, aim_y, P->max_speed);
}

INLINE v2 evade(float px, float py, float vx, float vy, float tx, float ty, float tvx,
                float tvy, const userloop_params *P) {
  const v2 threat = predict(tx - px, ty - py, tx, ty, tvx, tvy, P);
  return flee(px, py, vx, vy, threat.x, threat.y, P->max_speed, P->panic_radius);
}

/* The targeted behaviours; `behaviour` is a constant wherever it is used. */
INLINE v2 steer_agent(const int behaviour, float px, float py, float vx, float vy,
                      float tx, float ty, float tvx, float tvy,
                      const userloop_params *P) {
  switch (behaviour) {
  case USERLOOP_SEEK: return seek(px, py, vx, vy, tx, ty, P->max_speed);
  case USERLOOP_FLEE: return flee(px, py, vx, vy, tx, ty, P->max_speed, P->panic_radius);
  case USERLOOP_ARRIVE: return arrive(px, py, vx, vy, tx, ty, P);
  case USERLOOP_LEAVE: return leave(px, py, vx, vy, tx, ty, P);
  case USERLOOP_PURSUIT: return pursuit(px, py, vx, vy, tx, ty, tvx, tvy, P);
  default: return evade(px, py, vx, vy, tx, ty, tvx, tvy, P);
  }
}

/* docs/behaviours.md §4: the mixer, a key per call and axis, 24 bits per
 * agent scaled to [-1, 1). */
INLINE uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

static uint32_t wander_key(const userloop_wander *w, uint32_t axis) {
  return mix32(mix32(w->seed + axis * 0x9E3779B9u) ^ w->tick);
}

INLINE float random_unit(uint32_t key, uint32_t agent) {
  return (float)(int32_t)(mix32(key ^ agent) >> 8) * 0x1p-23f - 1.0f;
}

/* wander: w = normalize(w + jitter * r) (heading(v) if zero), written back;
 * s = heading(v) * wander_distance + w * wander_radius. */
INLINE v2 wander(float vx, float vy, float *wx, float *wy, uint32_t key_x, uint32_t key_y,
                 uint32_t i, const userloop_params *P) {
  const float jx = *wx + P->jitter * random_unit(key_x, i);
  const float jy = *wy + P->jitter * random_unit(key_y, i);
  const v2 own = heading(vx, vy);
  const v2 w = unit_or(jx, jy, length(jx, jy), own);
  *wx = w.x;
  *wy = w.y;
  return (v2){own.x * P->wander_distance + w.x * P->wander_radius,
              own.y * P->wander_distance + w.y * P->wander_radius};
}

/* The integrator with mass 1 and no force limit: v = truncate(v + s * dt,
 * max_speed), p = p + v * dt. */
INLINE void move(float *px, float *py, float *vx, float *vy, v2 s,
                 const userloop_params *P) {
  float nx = *vx + s.x * P->dt, ny = *vy + s.y * P->dt;
  const float speed = length(nx, ny);
  const float scale = P->max_speed / speed;
  const int fast = speed > P->max_speed;
  nx = fast ? nx * scale : nx;
  ny = fast ? ny * scale : ny;
  *vx = nx;
  *vy = ny;
  *px = *px + nx * P->dt;
  *py = *py + ny * P->dt;
}

/* ---- the loops: one per behaviour and target form ------------------------ */

/* Pursuit and evade read the target's velocity, the others do not. */
INLINE int reads_velocity(const int behaviour) {
  return behaviour == USERLOOP_PURSUIT || behaviour == USERLOOP_EVADE;
}

INLINE void steer_loop(const int behaviour, const int form, size_t n,
                       const float *restrict px, const float *restrict py,
                       const float *restrict vx, const float *restrict vy,
                       const userloop_target *T, const userloop_params *P,
                       float *restrict sx, float *restrict sy) {
  const float tx = T->x, ty = T->y, tvx = T->vx, tvy = T->vy;
  const float *restrict tpx = T->px, *restrict tpy = T->py;
  const float *restrict tpvx = T->pvx, *restrict tpvy = T->pvy;
  const uint32_t *restrict index = T->index;
  for (size_t i = 0; i < n; i++) {
    v2 s;
    if (form == USERLOOP_POINT) {
      s = steer_agent(behaviour, px[i], py[i], vx[i], vy[i], tx, ty, tvx, tvy, P);
    } else if (form == USERLOOP_ARRAYS) {
      s = steer_agent(behaviour, px[i], py[i], vx[i], vy[i], tpx[i], tpy[i],
                      reads_velocity(behaviour) ? tpvx[i] : 0.0f,
                      reads_velocity(behaviour) ? tpvy[i] : 0.0f, P);
    } else {
      const uint32_t j = index[i];
      s = steer_agent(behaviour, px[i], py[i], vx[i], vy[i], px[j], py[j], vx[j], vy[j],
                      P);
    }
    sx[i] = s.x;
    sy[i] = s.y;
  }
}

INLINE void step_loop(const int behaviour, const int form, size_t n, float *restrict px,
                      float *restrict py, float *restrict vx, float *restrict vy,
                      const userloop_target *T, const userloop_params *P) {
  const float tx = T->x, ty = T->y, tvx = T->vx, tvy = T->vy;
  const float *restrict tpx = T->px, *restrict tpy = T->py;
  const float *restrict tpvx = T->pvx, *restrict tpvy = T->pvy;
  for (size_t i = 0; i < n; i++) {
    v2 s;
    if (form == USERLOOP_POINT)
      s = steer_agent(behaviour, px[i], py[i], vx[i], vy[i], tx, ty, tvx, tvy, P);
    else
      s = steer_agent(behaviour, px[i], py[i], vx[i], vy[i], tpx[i], tpy[i],
                      reads_velocity(behaviour) ? tpvx[i] : 0.0f,
                      reads_velocity(behaviour) ? tpvy[i] : 0.0f, P);
    move(&px[i], &py[i], &vx[i], &vy[i], s, P);
  }
}

static void wander_loop(size_t n, const float *restrict vx, const float *restrict vy,
                        float *restrict wx, float *restrict wy, uint32_t key_x,
                        uint32_t key_y, const userloop_params *P, float *restrict sx,
                        float *restrict sy) {
  for (size_t i = 0; i < n; i++) {
    const v2 s = wander(vx[i], vy[i], &wx[i], &wy[i], key_x, key_y, (uint32_t)i, P);
    sx[i] = s.x;
    sy[i] = s.y;
  }
}

static void wander_step_loop(size_t n, float *restrict px, float *restrict py,
                             float *restrict vx, float *restrict vy, float *restrict wx,
                             float *restrict wy, uint32_t key_x, uint32_t key_y,
                             const userloop_params *P) {
  for (size_t i = 0; i < n; i++) {
    const v2 s = wander(vx[i], vy[i], &wx[i], &wy[i], key_x, key_y, (uint32_t)i, P);
    move(&px[i], &py[i], &vx[i], &vy[i], s, P);
  }
}

static void integrate_loop(size_t n, float *restrict px, float *restrict py,
                           float *restrict vx, float *restrict vy,
                           const float *restrict sx, const float *restrict sy,
                           const userloop_params *P) {
  for (size_t i = 0; i < n; i++)
    move(&px[i], &py[i], &vx[i], &vy[i], (v2){sx[i], sy[i]}, P);
}

/* ---- entry points: a switch picks the loop, as a user's game would call
 * the one it needs ------------------------------------------------------- */

/* One agent for all is a point: its state, read once before the loop. */
static userloop_target resolved(const userloop_crowd *c, const userloop_target *t,
                                userloop_form *form) {
  userloop_target r = *t;
  if (*form == USERLOOP_AGENT) {
    r.x = c->px[t->agent];
    r.y = c->py[t->agent];
    r.vx = c->vx[t->agent];
    r.vy = c->vy[t->agent];
    *form = USERLOOP_POINT;
  }
  return r;
}

/* Each (behaviour, form) pair gets its own loop: the behaviour and the form
 * are constants once these are inlined. */
INLINE void steer_forms(const int behaviour, userloop_form form, const userloop_crowd *c,
                        const userloop_target *T, const userloop_params *P, float *sx,
                        float *sy) {
  const size_t n = c->count;
  if (form == USERLOOP_POINT)
    steer_loop(behaviour, USERLOOP_POINT, n, c->px, c->py, c->vx, c->vy, T, P, sx, sy);
  else if (form == USERLOOP_ARRAYS)
    steer_loop(behaviour, USERLOOP_ARRAYS, n, c->px, c->py, c->vx, c->vy, T, P, sx, sy);
  else
    steer_loop(behaviour, USERLOOP_AGENTS, n, c->px, c->py, c->vx, c->vy, T, P, sx, sy);
}

void userloop_steer(userloop_behaviour behaviour, userloop_form form,
                    const userloop_crowd *c, const userloop_target *target,
                    const userloop_wander *w, const userloop_params *params, float *sx,
                    float *sy) {
  const userloop_params P = *params;
  if (behaviour == USERLOOP_WANDER) {
    wander_loop(c->count, c->vx, c->vy, w->wx, w->wy, wander_key(w, 0), wander_key(w, 1),
                &P, sx, sy);
    return;
  }
  const userloop_target T = resolved(c, target, &form);
  switch (behaviour) {
  case USERLOOP_SEEK: steer_forms(USERLOOP_SEEK, form, c, &T, &P, sx, sy); break;
  case USERLOOP_FLEE: steer_forms(USERLOOP_FLEE, form, c, &T, &P, sx, sy); break;
  case USERLOOP_ARRIVE: steer_forms(USERLOOP_ARRIVE, form, c, &T, &P, sx, sy); break;
  case USERLOOP_LEAVE: steer_forms(USERLOOP_LEAVE, form, c, &T, &P, sx, sy); break;
  case USERLOOP_PURSUIT: steer_forms(USERLOOP_PURSUIT, form, c, &T, &P, sx, sy); break;
  default: steer_forms(USERLOOP_EVADE, form, c, &T, &P, sx, sy); break;
  }
}

void userloop_integrate(const userloop_crowd *c, const float *sx, const float *sy,
                        const userloop_params *params) {
  const userloop_params P = *params;
  integrate_loop(c->count, c->px, c->py, c->vx, c->vy, sx, sy, &P);
}

INLINE void step_forms(const int behaviour, userloop_form form, const userloop_crowd *c,
                       const userloop_target *T, const userloop_params *P) {
  if (form == USERLOOP_POINT)
    step_loop(behaviour, USERLOOP_POINT, c->count, c->px, c->py, c->vx, c->vy, T, P);
  else
    step_loop(behaviour, USERLOOP_ARRAYS, c->count, c->px, c->py, c->vx, c->vy, T, P);
}

void userloop_steer_step(userloop_behaviour behaviour, userloop_form form,
                         const userloop_crowd *c, const userloop_target *target,
                         const userloop_wander *w, const userloop_params *params,
                         float *sx, float *sy) {
  if (form == USERLOOP_AGENTS) {
    userloop_steer(behaviour, form, c, target, w, params, sx, sy);
    userloop_integrate(c, sx, sy, params);
    return;
  }
  const userloop_params P = *params;
  if (behaviour == USERLOOP_WANDER) {
    wander_step_loop(c->count, c->px, c->py, c->vx, c->vy, w->wx, w->wy, wander_key(w, 0),
                     wander_key(w, 1), &P);
    return;
  }
  const userloop_target T = resolved(c, target, &form);
  switch (behaviour) {
  case USERLOOP_SEEK: step_forms(USERLOOP_SEEK, form, c, &T, &P); break;
  case USERLOOP_FLEE: step_forms(USERLOOP_FLEE, form, c, &T, &P); break;
  case USERLOOP_ARRIVE: step_forms(USERLOOP_ARRIVE, form, c, &T, &P); break;
  case USERLOOP_LEAVE: step_forms(USERLOOP_LEAVE, form, c, &T, &P); break;
  case USERLOOP_PURSUIT: step_forms(USERLOOP_PURSUIT, form, c, &T, &P); break;
  default: step_forms(USERLOOP_EVADE, form, c, &T, &P); break;
  }
}

static void mixed3_loop(size_t n, float *restrict px, float *restrict py,
                        float *restrict vx, float *restrict vy, float *restrict wx,
                        float *restrict wy, uint32_t key_x, uint32_t key_y,
                        const userloop_mix *M, const userloop_params *P) {
  for (size_t i = 0; i < n; i++) {
    const v2 a = seek(px[i], py[i], vx[i], vy[i], M->seek_x, M->seek_y, P->max_speed);
    const v2 b = flee(px[i], py[i], vx[i], vy[i], M->flee_x, M->flee_y, P->max_speed,
                      P->panic_radius);
    const v2 c = wander(vx[i], vy[i], &wx[i], &wy[i], key_x, key_y, (uint32_t)i, P);
    /* docs/behaviours.md §7: s = 0, then s = s + w_b * s_b in order. */
    v2 s = {0.0f + M->seek_weight * a.x, 0.0f + M->seek_weight * a.y};
    s.x = s.x + M->flee_weight * b.x;
    s.y = s.y + M->flee_weight * b.y;
    s.x = s.x + M->wander_weight * c.x;
    s.y = s.y + M->wander_weight * c.y;
    move(&px[i], &py[i], &vx[i], &vy[i], s, P);
  }
}

void userloop_mixed3(const userloop_crowd *c, const userloop_wander *w,
                     const userloop_mix *mix, const userloop_params *params) {
  const userloop_params P = *params;
  const userloop_mix M = *mix;
  mixed3_loop(c->count, c->px, c->py, c->vx, c->vy, w->wx, w->wy, wander_key(w, 0),
              wander_key(w, 1), &M, &P);
}
